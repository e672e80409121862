//! The Share dialog: a link with the plan inside (sensitive values stripped), a redacted link, and
//! the Markdown comment for a pull request. The core (`share`) makes all three, with the same code
//! as `planlens link` and `planlens summary --format markdown`.
//!
//! The session makes both links and the comment in one request, which both `planlens:share-full`
//! and `planlens:share-redacted` time; the dialog never blocks before it has painted "Preparing…".

use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::timing::{mark, measure, now};
use super::{AppState, url};
use crate::session::{Request, Response};
use crate::share::LinkFit;

/// The three texts, made once when the dialog opens.
struct Prepared {
    full: String,
    redacted: String,
    /// For a plan opened from `?url=`: a link that fetches it from there again.
    by_address: Option<String>,
    markdown: String,
    /// The rules had errors, so the redacted link carries the built-in pack's findings.
    builtin_fallback: bool,
    /// The open plan came from a redacted link: both links are redacted.
    already_redacted: bool,
    /// Whether the plan has sensitivity marks of its own, and what was masked by name.
    masking: crate::model::mask::Masking,
}

/// `1 value`, `3 values`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// The secret-name patterns in a sentence: `password, secret, token, …`, as the user reads them.
fn mask_names() -> String {
    "password, secret, token, private key, access key, API key, connection string, credentials, kubeconfig, and your own patterns".to_string()
}

/// `12,345`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Makes the links and the comment for what the app shows now: the open plan's session writes
/// them, where the plan's values are. `Err` says why it could not.
async fn prepare(state: AppState) -> Result<Prepared, String> {
    let loaded = state.loaded.get_untracked().ok_or("no plan is open")?;
    let view = untrack(|| url::current_view(state));
    let view = url::LinkView {
        rules: state.rules.payload_for_link(),
        ..view
    };
    let base = url::site_base();
    let rules = state.rules.text_in_use();
    let by_address = match &loaded.source {
        super::PlanSource::Url(href) => Some(crate::share::fragment::url_link(&base, href, &view)),
        _ => None,
    };
    let request = Request::Share {
        base,
        view: Box::new(view),
        rules,
        labels: state.rules.labels(),
        by_address: by_address.clone(),
        policies: state.rules.policy_answer.get_untracked(),
        // A comparison open: the full link carries the plan last reviewed too (the session
        // kept it).
        since: None,
        since_compared: state.since.with_untracked(Option::is_some),
    };
    // Both links (and the comment) are made by one request, so both measures time all of it.
    mark("planlens:share-start");
    let answer = super::backend::ask(request).await?;
    measure("planlens:share-full", "planlens:share-start");
    measure("planlens:share-redacted", "planlens:share-start");
    match answer {
        Response::Share {
            full,
            redacted,
            markdown,
            builtin_fallback,
        } => Ok(Prepared {
            full,
            redacted,
            by_address,
            markdown,
            builtin_fallback,
            already_redacted: loaded.doc.values_dropped(),
            masking: loaded.doc.masking.clone(),
        }),
        _ => Err("the plan's session answered another question".to_string()),
    }
}

/// Copies text to the clipboard; false when the browser refuses.
pub(super) async fn copy_text(text: &str) -> bool {
    let clipboard = window().navigator().clipboard();
    JsFuture::from(clipboard.write_text(text)).await.is_ok()
}

/// The links the dialog offers.
#[derive(Clone, Copy)]
enum LinkKind {
    /// With the plan (`share::full_link`).
    Full,
    /// Without values (`share::redacted_link`).
    Redacted,
    /// To the address the plan was opened from (`?url=`).
    Address,
}

impl LinkKind {
    /// Its test and label key, title and what it carries.
    fn words(self) -> (&'static str, &'static str, &'static str) {
        match self {
            LinkKind::Full => (
                "full",
                "Link with the plan",
                "The whole plan, its sensitive and secret-named values replaced by placeholders: every view and diff works.",
            ),
            LinkKind::Redacted => (
                "redacted",
                "Redacted link",
                "Addresses, actions, reasons, import and move marks, drift flags, dependency edges and rule findings. No attribute values: safe to paste anywhere.",
            ),
            LinkKind::Address => (
                "address",
                "Link to the plan's address",
                "Short, whatever the plan's size: whoever opens it fetches the plan from the address it was opened from, so that address must stay reachable (and allow CORS).",
            ),
        }
    }
}

/// One link with its length, warning and copy button.
#[component]
fn LinkBox(kind: LinkKind, link: String, status: RwSignal<String>) -> impl IntoView {
    let (key, title, what) = kind.words();
    let length = link.chars().count();
    let fit = LinkFit::of(length);
    let area = NodeRef::<leptos::html::Textarea>::new();
    let text = link.clone();
    let copy = move |_| {
        let text = text.clone();
        leptos::task::spawn_local(async move {
            if copy_text(&text).await {
                status.set(format!("Copied the {key} link."));
            } else {
                if let Some(a) = area.get_untracked() {
                    a.select();
                }
                status.set(
                    "The browser did not allow copying: the link is selected, press Ctrl+C (⌘C)."
                        .to_string(),
                );
            }
        });
    };
    view! {
        <section class="share-section" data-testid=format!("share-{key}")>
            <h3>{title}</h3>
            <p class="fine">{what}</p>
            <textarea
                class="share-link"
                readonly
                rows="3"
                spellcheck="false"
                node_ref=area
                data-testid=format!("share-{key}-link")
                aria-label=title
                prop:value=link
            ></textarea>
            <div class="share-row">
                <button class="button" data-testid=format!("share-copy-{key}") on:click=copy>
                    "Copy link"
                </button>
                <span
                    class=format!("link-length fit-{}", if fit == LinkFit::Anywhere { "ok" } else { "warn" })
                    data-testid=format!("share-{key}-length")
                    data-length=length.to_string()
                >
                    {format!("{} characters", thousands(length))}
                </span>
            </div>
            {fit.warning(key == "redacted").map(|w| view! {
                <p class="banner banner-warn" data-testid=format!("share-{key}-warning")>{w}</p>
            })}
        </section>
    }
}

/// Tab and Shift+Tab cycle through the dialog's controls instead of leaving it (it is modal).
fn keep_focus_inside(dialog: &NodeRef<leptos::html::Div>, ev: &leptos::ev::KeyboardEvent) {
    let Some(d) = dialog.get_untracked() else {
        return;
    };
    let Ok(list) = d.query_selector_all("button, textarea, summary") else {
        return;
    };
    let controls: Vec<web_sys::HtmlElement> = (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
        // Not the contents of a closed <details> (laid out but hidden in current Chromium).
        .filter(|e| {
            e.closest("details:not([open]) *:not(summary)")
                .ok()
                .flatten()
                .is_none()
        })
        .collect();
    let (Some(first), Some(last)) = (controls.first(), controls.last()) else {
        return;
    };
    let active = document().active_element();
    let at = |e: &web_sys::HtmlElement| {
        active
            .as_ref()
            .is_some_and(|a| a == e.unchecked_ref::<web_sys::Element>())
    };
    let inside = controls.iter().any(at);
    if ev.shift_key() && (at(first) || !inside) {
        ev.prevent_default();
        let _ = last.focus();
    } else if !ev.shift_key() && (at(last) || !inside) {
        ev.prevent_default();
        let _ = first.focus();
    }
}

/// The dialog.
#[component]
pub fn ShareDialog() -> impl IntoView {
    let state = expect_context::<AppState>();
    let prepared: RwSignal<Option<Result<Arc<Prepared>, String>>, LocalStorage> =
        RwSignal::new_local(None);
    let status = RwSignal::new(String::new());
    let took = RwSignal::new(0.0);
    let dialog = NodeRef::<leptos::html::Div>::new();
    leptos::task::spawn_local(async move {
        // "Preparing…" is painted before the work starts.
        super::open::next_paint().await;
        let start = now();
        let p = prepare(state).await;
        // The dialog may have been closed meanwhile.
        let _ = took.try_set(now() - start);
        let _ = prepared.try_set(Some(p.map(Arc::new)));
    });
    Effect::new(move |_| {
        if let Some(d) = dialog.get() {
            let _ = d.focus();
        }
    });
    let close = move || {
        state.sharing.set(false);
        if let Some(button) = document()
            .query_selector("[data-testid=share]")
            .ok()
            .flatten()
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = button.focus();
        }
    };
    let copy_markdown = move |_| {
        let Some(Ok(p)) = prepared.get_untracked() else {
            return;
        };
        leptos::task::spawn_local(async move {
            status.set(if copy_text(&p.markdown).await {
                "Copied the Markdown summary.".to_string()
            } else {
                "The browser did not allow copying: select the text under Preview and press Ctrl+C (⌘C)."
                    .to_string()
            });
        });
    };
    view! {
        <div class="modal-backdrop" on:click=move |_| close()>
            <div
                class="modal share-dialog"
                role="dialog"
                aria-modal="true"
                aria-labelledby="share-title"
                tabindex="-1"
                node_ref=dialog
                data-testid="share-dialog"
                on:click=|ev| ev.stop_propagation()
                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                    ev.stop_propagation();
                    match ev.key().as_str() {
                        "Escape" => close(),
                        "Tab" => keep_focus_inside(&dialog, &ev),
                        _ => {}
                    }
                }
            >
                <header class="modal-head">
                    <h2 id="share-title">"Share this view"</h2>
                    <button class="link-button" aria-label="Close" data-testid="share-close" on:click=move |_| close()>
                        "×"
                    </button>
                </header>
                <p class="fine" data-testid="share-promise">
                    "A link opens this plan with the same tab, selection, filters and rules. The plan travels inside the link, after the "
                    <code>"#"</code>
                    ", which browsers never send to any server. In the link with the plan, values the plan marks sensitive and values under secret-like names ("
                    {mask_names()}
                    ") are replaced by placeholders; any other value travels as it is, so a secret under another name would too. The redacted link carries no attribute values at all."
                </p>
                {move || match prepared.get() {
                    None => view! {
                        <p class="progress" role="status" data-testid="share-preparing">
                            <span>"Preparing the links…"</span>
                            <progress></progress>
                        </p>
                    }.into_any(),
                    Some(Err(message)) => view! {
                        <p class="banner banner-danger" role="alert" data-testid="share-error">
                            {format!("Could not make the links: {message}")}
                        </p>
                    }.into_any(),
                    Some(Ok(p)) => view! {
                        {p.already_redacted.then(|| view! {
                            <p class="banner banner-info">"This plan was opened from a redacted link, so both links are redacted."</p>
                        })}
                        {(!p.masking.plan_has_marks && !p.already_redacted).then(|| view! {
                            <p class="banner banner-warn" role="note" data-testid="share-no-marks">
                                <strong>"This plan marks no resource value sensitive. "</strong>
                                {format!(
                                    "Terraform before 0.15 marked only outputs declared sensitive, so Planlens cannot know which other values are secret. It masked {} by name; a secret under any other name would be in the link with the plan. Share the redacted link unless you have checked the plan. The pull-request comment links the redacted form.",
                                    count(p.masking.masked_by_name, "value", "values"),
                                )}
                            </p>
                        })}
                        {
                            // The link the plan's marks make safe first; the other after it.
                            let full = (LinkKind::Full, p.full.clone());
                            let redacted = (LinkKind::Redacted, p.redacted.clone());
                            let pair = if p.masking.plan_has_marks { [full, redacted] } else { [redacted, full] };
                            let address = p.by_address.clone().map(|link| (LinkKind::Address, link));
                            pair.into_iter()
                                .chain(address)
                                .map(|(kind, link)| view! { <LinkBox kind link status /> })
                                .collect_view()
                        }
                        {p.builtin_fallback.then(|| view! {
                            <p class="banner banner-warn" data-testid="share-rules-fallback">
                                "Your rules have errors: the redacted link carries the built-in rules' findings."
                            </p>
                        })}
                        <section class="share-section" data-testid="share-markdown">
                            <h3>"Pull-request comment"</h3>
                            <p class="fine">
                                "Summary, verdict and findings, destructive changes, drift, the other changes folded, and a link — at most 65,536 characters, as GitHub allows."
                            </p>
                            <div class="share-row">
                                <button class="button" data-testid="share-copy-markdown" on:click=copy_markdown>
                                    "Copy as Markdown"
                                </button>
                                <span class="link-length" data-testid="share-markdown-length">
                                    {format!("{} characters", thousands(p.markdown.chars().count()))}
                                </span>
                            </div>
                            <details>
                                <summary>"Preview"</summary>
                                <textarea
                                    class="share-markdown"
                                    readonly
                                    rows="10"
                                    spellcheck="false"
                                    aria-label="Markdown summary"
                                    data-testid="share-markdown-text"
                                    prop:value=p.markdown.clone()
                                ></textarea>
                            </details>
                        </section>
                        <p class="fine share-timing" data-testid="share-timing">
                            {format!("Prepared in {:.0} ms.", took.get_untracked())}
                        </p>
                    }.into_any(),
                }}
                <p class="share-status" role="status" data-testid="share-status">{move || status.get()}</p>
            </div>
        </div>
    }
}
