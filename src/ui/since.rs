//! *Compare with…* — since the last review: the open plan compared with the plan a reviewer
//! approved before (its file, or the Planlens link the last comment carried). The session
//! compares (`session::compare`); this file asks, says what changed since in a paragraph with what
//! is no longer planned, offers *Only what changed since* for the list, and gives the list's rows
//! and the diff their marks ([`mark`], [`SinceInDiff`]).

use std::collections::BTreeSet;
use std::sync::Arc;

use leptos::prelude::*;

use super::AppState;
use super::backend;
use crate::model::text::visible;
use crate::session::compare::{JudgedComparison, SinceMark};
use crate::session::{Request, Response};

thread_local! {
    /// The last plan's file to compare the plan named so with once it is open (a roll-up's row
    /// compared with the last review's set).
    static PENDING_FILE: std::cell::RefCell<Option<(String, web_sys::File)>> =
        const { std::cell::RefCell::new(None) };
}

/// Compares the plan being opened (named `name`) with `file` once it is open.
pub fn compare_when_open(name: String, file: web_sys::File) {
    PENDING_FILE.with(|p| *p.borrow_mut() = Some((name, file)));
}

/// How many changes no longer planned are listed before *Show the other N*.
const GONE_SHOWN: usize = 50;

/// A mark's words and CSS/test key.
fn shown(mark: SinceMark) -> (&'static str, &'static str) {
    match mark {
        SinceMark::New => ("new since", "new"),
        SinceMark::ActionChanged => ("action changed", "action"),
        SinceMark::ValuesChanged => ("changed since", "values"),
    }
}

/// A row's mark, as the list shows it after the address (looked up in `AppState::since_marks`).
pub fn row_mark(state: AppState, address: String) -> impl IntoView {
    move || {
        let mark = state.since_marks.with(|m| m.get(&address).copied())?;
        let (words, key) = shown(mark);
        Some(view! {
            <span class=format!("since-mark since-{key}") data-testid="since-mark" data-since=key>
                {words}
            </span>
        })
    }
}

/// Every address that changed since (new, action changed, values changed, drift appeared): what
/// *Only what changed since* keeps.
fn changed_addresses(since: &JudgedComparison) -> BTreeSet<String> {
    let c = &since.comparison;
    (c.added.iter().map(|p| p.address.clone()))
        .chain(c.action_changed.iter().map(|a| a.address.clone()))
        .chain(c.values_changed.iter().map(|v| v.address.clone()))
        .chain(c.drift_appeared.iter().cloned())
        .collect()
}

/// What the open plan is compared with.
enum Other {
    /// A Planlens link (or a link's plan text, `was=`): small, sent as text.
    Link(String),
    /// The last plan's file: handed to the plan's worker, which reads it; never read here.
    File(web_sys::File),
}

/// Compares the open plan with `other` and shows the result.
fn compare(state: AppState, other: Other, busy: RwSignal<bool>, error: RwSignal<Option<String>>) {
    busy.set(true);
    error.set(None);
    leptos::task::spawn_local(async move {
        super::timing::mark("planlens:compare-start");
        let (rules, labels) = (state.rules.text_in_use(), state.rules.labels());
        let answer = match other {
            Other::Link(other) => {
                backend::ask(Request::Compare {
                    other,
                    rules,
                    labels,
                })
                .await
            }
            Other::File(file) => {
                backend::compare_file(file, &Request::CompareFile { rules, labels }).await
            }
        };
        super::timing::measure("planlens:compare", "planlens:compare-start");
        busy.set(false);
        match answer {
            Ok(Response::Compared(judged)) => {
                state.since.set(Some(Arc::new(*judged)));
            }
            Ok(Response::Failed(message)) | Err(message) => error.set(Some(message)),
            Ok(_) => error.set(Some(
                "the plan's worker answered something else".to_string(),
            )),
        }
    });
}

/// *Compare with…* and, once compared, what changed since the last plan.
#[component]
pub fn SincePanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let open = RwSignal::new(false);
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let link = RwSignal::new(String::new());
    // A link that carried the plan last reviewed (`was=`) reopens the comparison once its plan
    // is open.
    Effect::new(move |_| {
        if state.loaded.with(Option::is_some)
            && let Some(older) = state.pending_since.get_value()
        {
            state.pending_since.set_value(None);
            compare(state, Other::Link(older), busy, error);
        }
        // Only once that plan is open, not the one open while it opens.
        let open_name = state
            .loaded
            .with(|l| l.as_ref().map(|l| l.doc.name.clone()));
        let pending = PENDING_FILE.with(|p| {
            let mut p = p.borrow_mut();
            let due = p
                .as_ref()
                .is_some_and(|(name, _)| Some(name) == open_name.as_ref());
            if due { p.take() } else { None }
        });
        if let Some((_, file)) = pending {
            compare(state, Other::File(file), busy, error);
        }
    });
    let choose = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        input.set_value("");
        compare(state, Other::File(file), busy, error);
    };
    let only = move || state.filter.with(|f| f.addresses.is_some());
    let toggle_only = move |_| {
        let Some(since) = state.since.get_untracked() else {
            return;
        };
        state.filter.update(|f| {
            f.addresses = match f.addresses {
                Some(_) => None,
                None => Some(Arc::new(changed_addresses(&since))),
            }
        });
    };
    let clear = move |_| {
        state.since.set(None);
        state.filter.update(|f| f.addresses = None);
    };
    // A large comparison can list thousands of changes no longer planned: the first few are
    // shown at once (one page task must stay short), the rest when asked for.
    let all_gone = RwSignal::new(false);
    move || {
        let result = state.since.get().map(|since| {
            let paragraph = crate::session::compare::plain_since(&since);
            let removed = &since.comparison.removed;
            let more = removed.len().saturating_sub(GONE_SHOWN);
            let shown = if all_gone.get() { removed.len() } else { GONE_SHOWN };
            let gone = removed
                .iter()
                .take(shown)
                .map(|p| {
                    view! {
                        <li data-testid="since-gone">
                            <span class="addr">{visible(&p.address)}</span>
                            " — was planned to " {p.action.label()} ", no longer planned"
                        </li>
                    }
                })
                .collect_view();
            let none_gone = since.comparison.removed.is_empty();
            view! {
                <section class="since-panel" data-testid="since-panel" aria-label="Since the last plan">
                    <p class="since-text" data-testid="since-text">{visible(&paragraph)}</p>
                    {(!none_gone).then(|| view! { <ul class="since-gone">{gone}</ul> })}
                    {(more > 0 && !all_gone.get()).then(|| view! {
                        <button class="link-button" data-testid="since-gone-all" on:click=move |_| all_gone.set(true)>
                            {format!("Show the other {more} no longer planned")}
                        </button>
                    })}
                    <div class="since-actions">
                        <button class="chip-button" data-testid="since-only" aria-pressed=move || only().to_string() on:click=toggle_only>
                            "Only what changed since"
                        </button>
                        <button class="link-button" data-testid="since-clear" on:click=clear>"Stop comparing"</button>
                    </div>
                </section>
            }
        });
        let form = (state.since.with(Option::is_none) && open.get()).then(|| {
            view! {
                <section class="since-form" data-testid="since-form">
                    <label class="button">
                        "The last plan's file…"
                        <input type="file" class="visually-hidden" data-testid="since-file" on:change=choose />
                    </label>
                    <span class="fine">" or its Planlens link: "</span>
                    <input
                        type="url"
                        class="since-link"
                        data-testid="since-link"
                        placeholder="https://…/planlens/#…p=…"
                        prop:value=move || link.get()
                        on:input=move |ev| link.set(event_target_value(&ev))
                    />
                    <button
                        class="button"
                        data-testid="since-compare"
                        disabled=move || busy.get() || link.with(|l| l.trim().is_empty())
                        on:click=move |_| compare(state, Other::Link(link.get_untracked()), busy, error)
                    >
                        "Compare"
                    </button>
                </section>
            }
        });
        view! {
            <div class="since">
                {(state.since.with(Option::is_none) && !open.get()).then(|| view! {
                    <button class="link-button" data-testid="since-open" on:click=move |_| open.set(true)>
                        "Compare with the last plan…"
                    </button>
                })}
                {form}
                {move || busy.get().then(|| view! { <p class="fine" role="status">"Comparing…"</p> })}
                {move || error.get().map(|e| view! { <p class="banner banner-danger" role="alert" data-testid="since-error">{visible(&e)}</p> })}
                {result}
            </div>
        }
    }
}

/// What changed since in the selected resource's planned values, above its diff.
#[component]
pub fn SinceInDiff(address: String) -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        let since = state.since.get()?;
        let c = &since.comparison;
        if let Some(a) = c.action_changed.iter().find(|a| a.address == address) {
            return Some(
                view! {
                    <p class="since-diff" data-testid="since-diff">
                        {format!("Since the last plan: {} → {}", a.before.label(), a.after.label())}
                    </p>
                }
                .into_any(),
            );
        }
        if c.added.iter().any(|p| p.address == address) {
            return Some(view! { <p class="since-diff" data-testid="since-diff">"New since the last plan."</p> }.into_any());
        }
        let v = c.values_changed.iter().find(|v| v.address == address)?;
        let lines = v
            .attributes
            .iter()
            .map(|a| view! { <li><code>{visible(&a.path)}</code> ": " {visible(&a.before)} " → " {visible(&a.after)}</li> })
            .collect_view();
        Some(
            view! {
                <div class="since-diff" data-testid="since-diff">
                    <p>"Planned values changed since the last plan:"</p>
                    <ul>{lines}</ul>
                </div>
            }
            .into_any(),
        )
    }
}
