//! *Compare with the last plans…* — a roll-up of several plans compared with the last review's
//! set: its files, folder or archive. The plans are matched by name and compared in a worker
//! (`session::compare::sets_since`); this file asks, says what changed since in a sentence with
//! the plans gone, marks each row (new plan, N changes since, unchanged since, verdict before →
//! after), offers *Only plans that changed since*, and a row's plan then opens compared with its
//! namesake (`open::open_member`).

use leptos::prelude::*;

use super::AppState;
use crate::model::text::{count, visible};
use crate::session::compare::{PlanSince, SinceOfPlan, verdict_label};

/// What a row says since the last review, and its test key.
fn words(since: &SinceOfPlan) -> (String, &'static str) {
    match since {
        SinceOfPlan::New => ("new plan since the last review".to_string(), "new"),
        SinceOfPlan::Gone => ("plan gone".to_string(), "gone"),
        SinceOfPlan::Compared {
            changes: 0,
            other: 0,
            verdict,
        } if verdict.before == verdict.after => ("unchanged since".to_string(), "same"),
        SinceOfPlan::Compared {
            changes,
            other,
            verdict,
        } => {
            let verdict = if verdict.before == verdict.after {
                String::new()
            } else {
                format!(
                    " · verdict {} → {}",
                    verdict_label(&verdict.before),
                    verdict_label(&verdict.after)
                )
            };
            // Moves, drift and findings are differences too: a plan with only those is not
            // "unchanged since".
            let others = count(*other, "other difference", "other differences");
            let what = match (*changes, *other) {
                (0, 0) => "changed since".to_string(),
                (0, _) => format!("{others} since (moves, drift, findings)"),
                (n, 0) => format!("{} since", count(n, "change", "changes")),
                (n, _) => format!(
                    "{} since · {others} (moves, drift, findings)",
                    count(n, "change", "changes")
                ),
            };
            (format!("{what}{verdict}"), "changed")
        }
        SinceOfPlan::Unreadable(why) => (format!("not compared: {why}"), "unreadable"),
    }
}

/// True when a row's plan changed since the last review (what *Only plans that changed since*
/// keeps); every row while no comparison is open.
pub fn changed_since(state: AppState, name: &str) -> bool {
    state.set_since.with(|s| {
        s.as_ref().is_none_or(|rows| {
            rows.iter()
                .find(|r| r.name == name)
                .is_none_or(|r| words(&r.since).1 != "same")
        })
    })
}

/// A roll-up row's mark since the last review.
pub fn row_since(state: AppState, name: String) -> impl IntoView {
    move || {
        let (text, key) = state.set_since.with(|s| {
            let row = s.as_ref()?.iter().find(|r| r.name == name)?;
            Some(words(&row.since))
        })?;
        Some(view! {
            <span class=format!("set-since set-since-{key}") data-testid="rollup-since" data-since=key>
                {visible(&text)}
            </span>
        })
    }
}

/// The sentence over the rows: how many plans are new, gone, changed and unchanged.
fn sentence(rows: &[PlanSince]) -> String {
    let n = |key: &str| rows.iter().filter(|r| words(&r.since).1 == key).count();
    format!(
        "Since the last review: {}, {}, {} changed, {} unchanged.",
        count(n("new"), "new plan", "new plans"),
        count(n("gone"), "plan gone", "plans gone"),
        n("changed"),
        n("same")
    )
}

/// *Compare with the last plans…* and, once compared, what changed since over the roll-up.
#[component]
pub fn SetSincePanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let open = RwSignal::new(false);
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let link = RwSignal::new(String::new());
    let run = move |older: Result<Vec<(web_sys::File, String)>, String>| {
        busy.set(true);
        error.set(None);
        leptos::task::spawn_local(async move {
            let result = super::open::compare_set(state, older).await;
            busy.set(false);
            if let Err(e) = result {
                error.set(Some(e));
            }
        });
    };
    let choose = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(list) = input.files() else {
            return;
        };
        let files: Vec<(web_sys::File, String)> = (0..list.length())
            .filter_map(|i| list.get(i))
            .map(|f| {
                let path = super::folder::relative_path(&f);
                (f, path)
            })
            .collect();
        input.set_value("");
        if !files.is_empty() {
            run(Ok(files));
        }
    };
    move || {
        let result = state.set_since.get().map(|rows| {
            let gone = rows
                .iter()
                .filter(|r| r.since == SinceOfPlan::Gone)
                .map(|r| view! { <li data-testid="rollup-since-gone"><span class="addr">{visible(&r.name)}</span>" — no longer in the set"</li> })
                .collect_view();
            view! {
                <section class="since-panel" data-testid="rollup-since-panel" aria-label="Since the last review">
                    <p class="since-text" data-testid="rollup-since-text">{sentence(&rows)}</p>
                    <ul class="since-gone">{gone}</ul>
                    <div class="since-actions">
                        <button
                            class="chip-button"
                            data-testid="rollup-since-only"
                            aria-pressed=move || state.set_since_only.get().to_string()
                            on:click=move |_| state.set_since_only.update(|o| *o = !*o)
                        >
                            "Only plans that changed since"
                        </button>
                        <button class="link-button" data-testid="rollup-since-clear" on:click=move |_| super::open::stop_comparing_set(state)>
                            "Stop comparing"
                        </button>
                    </div>
                </section>
            }
        });
        let form = (state.set_since.with(Option::is_none) && open.get()).then(|| {
            view! {
                <section class="since-form" data-testid="rollup-since-form">
                    <label class="button">
                        "The last plans' files…"
                        <input type="file" multiple=true class="visually-hidden" data-testid="rollup-since-files" on:change=choose />
                    </label>
                    <label class="button">
                        "Their folder…"
                        <input type="file" prop:webkitdirectory=true class="visually-hidden" data-testid="rollup-since-folder" on:change=choose />
                    </label>
                    <span class="fine">" (or a .zip / .tar.gz of them), or their Planlens link: "</span>
                    <input
                        type="url"
                        class="since-link"
                        data-testid="rollup-since-link"
                        placeholder="https://…/planlens/#…s=…"
                        prop:value=move || link.get()
                        on:input=move |ev| link.set(event_target_value(&ev))
                    />
                    <button
                        class="button"
                        data-testid="rollup-since-compare"
                        disabled=move || busy.get() || link.with(|l| l.trim().is_empty())
                        on:click=move |_| run(Err(link.get_untracked()))
                    >
                        "Compare"
                    </button>
                    <span class="fine">" Plans are matched by name."</span>
                </section>
            }
        });
        view! {
            <div class="since">
                {(state.set_since.with(Option::is_none) && !open.get()).then(|| view! {
                    <button class="link-button" data-testid="rollup-since-open" on:click=move |_| open.set(true)>
                        "Compare with the last plans…"
                    </button>
                })}
                {form}
                {move || busy.get().then(|| view! { <p class="fine" role="status">"Comparing…"</p> })}
                {move || error.get().map(|e| view! { <p class="banner banner-danger" role="alert" data-testid="rollup-since-error">{visible(&e)}</p> })}
                {result}
            </div>
        }
    }
}
