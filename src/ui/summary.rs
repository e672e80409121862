//! The summary strip: Terraform's sentence, the counts behind it, versions, banners and warnings.

use leptos::prelude::*;

use super::AppState;
use crate::model::Source;
use crate::model::source::Diagnostic;
use crate::model::summary::count;
use crate::model::text::{visible, visible_lines};
use crate::session::glance::Strip;

/// Summary of the open plan: the strip the core writes (`session::glance::Strip`, which a share
/// link's first paint shows too), with the live verdict, a plan log's diagnostics and the drift
/// note's way to the Drift tab.
#[component]
pub fn SummaryPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        state.loaded.get().map(|l| {
            let strip = Strip::of(&l.doc, &l.analysis, &l.checks);
            let diagnostics = match &l.doc.source {
                Source::PlanLog(f) if !f.diagnostics.is_empty() => view! {
                    <Diagnostics list=f.diagnostics.clone() />
                }
                .into_any(),
                _ => ().into_any(),
            };
            let open_drift = Callback::new(move |()| state.tab.set(super::Tab::Drift));
            super::glance::strip_view(
                strip,
                view! { <super::rules::VerdictBadge /> },
                diagnostics,
                Some(open_drift),
            )
        })
    }
}

/// Terraform's errors and warnings from a plan log: severity, summary, `file:line`, the resource,
/// the configuration snippet with the highlighted part marked, the values Terraform mentions and
/// the detail. Errors are open; warnings fold to their summary line.
#[component]
fn Diagnostics(list: Vec<Diagnostic>) -> impl IntoView {
    let errors = list.iter().filter(|d| d.is_error()).count();
    let warnings = list.len() - errors;
    let heading = match (errors, warnings) {
        (0, w) => format!("Terraform reported {}", count(w, "warning", "warnings")),
        (e, 0) => format!("Terraform reported {}", count(e, "error", "errors")),
        (e, w) => format!(
            "Terraform reported {} and {}",
            count(e, "error", "errors"),
            count(w, "warning", "warnings")
        ),
    };
    let items = list
        .into_iter()
        .map(|d| {
            let severity = if d.is_error() { "error" } else { "warning" };
            let head = view! {
                <span class=format!("sev-badge diag-{severity}")>{d.severity.clone()}</span>
                " "
                <strong class="diag-summary">{visible(&d.summary)}</strong>
                {d.location.as_ref().map(|at| view! {
                    <span class="diag-at" data-testid="diag-location">{format!(" ({})", visible(at))}</span>
                })}
            };
            let body = view! {
                {d.address.as_ref().map(|a| view! {
                    <p class="diag-address">"with " <code>{visible(a)}</code></p>
                })}
                {d.snippet.as_ref().map(|s| {
                    let context = s.context.as_ref().map(|c| view! {
                        <p class="diag-context">{format!("in {}", visible(c))}</p>
                    });
                    let lines = s
                        .lines()
                        .into_iter()
                        .map(|line| {
                            let show = |t: &str| visible(&t.replace('\t', "  "));
                            view! {
                                <span class="diag-line">
                                    <span class="diag-lineno">{line.number}</span>
                                    {show(line.before)}
                                    {(!line.highlight.is_empty()).then(|| view! {
                                        <mark data-testid="diag-highlight">{show(line.highlight)}</mark>
                                    })}
                                    {show(line.after)}
                                </span>
                            }
                        })
                        .collect_view();
                    let values = (!s.values.is_empty()).then(|| view! {
                        <ul class="diag-values">
                            {s.values.iter().map(|v| view! {
                                <li><code>{visible(&v.traversal)}</code> " " {visible(&v.statement)}</li>
                            }).collect_view()}
                        </ul>
                    });
                    view! {
                        {context}
                        <pre class="diag-snippet" data-testid="diag-snippet">{lines}</pre>
                        {values}
                    }
                })}
                {(!d.detail.is_empty()).then(|| view! {
                    <p class="diag-detail" data-testid="diag-detail">{visible_lines(&d.detail)}</p>
                })}
            };
            if d.is_error() {
                view! {
                    <article class="diagnostic diag-error" data-testid="log-diagnostic" data-severity=severity>
                        <p class="diag-head">{head}</p>
                        {body}
                    </article>
                }
                .into_any()
            } else {
                view! {
                    <details class=format!("diagnostic diag-{severity}") data-testid="log-diagnostic" data-severity=severity>
                        <summary class="diag-head">{head}</summary>
                        {body}
                    </details>
                }
                .into_any()
            }
        })
        .collect_view();
    view! {
        <section class="diagnostics" data-testid="diagnostics" aria-label="Terraform's errors and warnings">
            <h2 class="diag-heading">{heading}</h2>
            {items}
        </section>
    }
}
