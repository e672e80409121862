//! The start page: drop zone, file picker, paste box and the samples; with a plan open (the logo
//! was clicked), the way back to it.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::AppState;
use super::open::{SAMPLES, open_sample, open_text};
use crate::load::{MAX_FILE_BYTES, error::megabytes};
use crate::model::text::visible;

/// Becomes true once a service worker of this site is active: it became active only after it had
/// stored every file of the site (scripts/service-worker.mjs), so from then on the site opens with
/// no network. Stays false where there is none (a report file, `file://`, a browser that refused it).
fn offline_ready() -> RwSignal<bool> {
    let ready = RwSignal::new(false);
    let container = web_sys::window()
        .map(|w| w.navigator())
        .and_then(|n| js_sys::Reflect::get(&n, &JsValue::from_str("serviceWorker")).ok())
        .filter(|c| c.is_object());
    let promise = container
        .and_then(|c| js_sys::Reflect::get(&c, &JsValue::from_str("ready")).ok())
        .and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
    if let Some(promise) = promise {
        leptos::task::spawn_local(async move {
            if JsFuture::from(promise).await.is_ok() {
                // The landing page may be gone by then (a plan was opened).
                let _ = ready.try_set(true);
            }
        });
    }
    ready
}

/// Shown while no plan is open.
#[component]
pub fn Landing() -> impl IntoView {
    let state = expect_context::<AppState>();
    let pasted = RwSignal::new(String::new());
    let offline = offline_ready();
    // Reached by the logo with a plan open: the way back to it, as it was left.
    let open_plan = move || {
        state.loaded.with(|l| {
            l.as_ref().map(|l| {
                let name = visible(&l.doc.name);
                let selected = state
                    .selected
                    .get()
                    .and_then(|r| l.doc.rows.get(r as usize))
                    .map(|row| visible(&l.doc.change(row).address));
                (name, selected)
            })
        })
    };
    view! {
        <main class="landing">
            {move || open_plan().map(|(name, selected)| view! {
                <section class="back-to-plan" data-testid="open-plan">
                    <button
                        class="button"
                        data-testid="back-to-plan"
                        on:click=move |_| super::url::back_to_plan(state)
                    >
                        "← Back to " {name}
                    </button>
                    <span class="fine">
                        {match selected {
                            Some(address) => view! {
                                "Still open, with " <code>{address}</code> " selected, its tab and filters as you left them."
                            }.into_any(),
                            None => "Still open, its tab and filters as you left them.".into_any(),
                        }}
                    </span>
                </section>
            })}
            <section class="drop-zone" data-testid="drop-zone">
                <h1>"Open a Terraform plan"</h1>
                <p class="lead">
                    "Drop the output of " <code>"terraform show -json plan.out > plan.json"</code>
                    " here, or "
                    <label class="link-like">
                        "choose a file"
                        <input
                            type="file"
                            data-testid="landing-files"
                            multiple
                            accept=super::open::PLAN_FILE_TYPES
                            class="visually-hidden"
                            on:change=move |ev| {
                                let input: web_sys::HtmlInputElement = event_target(&ev);
                                super::open::open_chosen(state, input.files());
                                input.set_value("");
                            }
                        />
                    </label> "."
                </p>
                <p class="fine" data-testid="landing-many">
                    "A pull request's plans: choose or drop several files, "
                    <label class="link-like">
                        "a folder"
                        <input
                            type="file"
                            data-testid="landing-folder"
                            prop:webkitdirectory=true
                            class="visually-hidden"
                            on:change=move |ev| {
                                let input: web_sys::HtmlInputElement = event_target(&ev);
                                super::open::open_chosen(state, input.files());
                                input.set_value("");
                            }
                        />
                    </label>
                    " (a Terragrunt --json-out-dir tree), a .zip or .tar.gz of them, or paste an Atlantis comment: one roll-up, one row per plan."
                </p>
                <p class="fine">
                    "Everything happens in this tab: the plan is never uploaded. Terraform 0.12 to 1.14 and OpenTofu, up to "
                    {megabytes(MAX_FILE_BYTES)} "."
                </p>
                // What else opens, each detected from its content (load::FILE_TYPES).
                <p class="fine" data-testid="landing-inputs">
                    "Also opens: a " <code>"terraform plan -json"</code> " log; a text plan from a CI log, "
                    "an Atlantis or tfcmt PR comment; a state (" <code>".tfstate"</code> " or "
                    <code>"terraform show -json"</code> "); a driftctl " <code>"scan --output json://"</code>
                    " report; tf-controller objects (" <code>"kubectl get -o yaml"</code> ")."
                </p>
                {move || {
                    state.pending_view.get().and_then(|v| v.address).map(|a| view! {
                        <p class="pending">
                            "Reopen your plan to return to "
                            <code>{visible(&a)}</code>
                            "."
                        </p>
                    })
                }}
            </section>
            // A report file fetches nothing, so it offers no samples (they are files of the site).
            <section class="samples" hidden=super::report::is_report()>
                <h2>"Try a sample"</h2>
                <ul>
                    {SAMPLES
                        .iter()
                        .map(|(stem, title, blurb)| {
                            let stem = stem.to_string();
                            view! {
                                <li>
                                    <button
                                        class="sample"
                                        data-testid=format!("sample-{stem}")
                                        on:click=move |_| open_sample(state, stem.clone())
                                    >
                                        <strong>{*title}</strong>
                                        <span>{*blurb}</span>
                                    </button>
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
            </section>
            <section class="paste">
                <h2>"Or paste a plan, a log or a comment"</h2>
                <textarea
                    data-testid="paste-box"
                    rows="6"
                    spellcheck="false"
                    placeholder="{ \"format_version\": \"1.2\", … }"
                    aria-label="A plan's JSON, a plan log, a text plan or an Atlantis or digger comment"
                    prop:value=move || pasted.get()
                    on:input=move |ev| pasted.set(event_target_value(&ev))
                ></textarea>
                <button
                    class="button"
                    data-testid="paste-open"
                    disabled=move || pasted.with(|p| p.trim().is_empty())
                    on:click=move |_| open_text(state, pasted.get_untracked())
                >
                    "Open pasted plan"
                </button>
            </section>
            // Last on the page: it appears a moment after the first visit has started, and
            // nothing below it moves when it does.
            <Show when=move || offline.get()>
                <footer class="fine" data-testid="offline-ready">
                    "Works offline: this browser keeps the site's files (never a plan), so it opens with no network after this visit."
                </footer>
            </Show>
        </main>
    }
}
