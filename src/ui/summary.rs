//! The summary strip: Terraform's sentence, the counts behind it, versions, banners and warnings.

use leptos::prelude::*;

use super::AppState;
use crate::model::Source;
use crate::model::source::Diagnostic;
use crate::model::summary::{Planning, count, noun};
use crate::model::text::{visible, visible_lines};

/// What the summary's, the list's and the graph's instance counts count (one row each).
pub const INSTANCES_TITLE: &str = "Resource instances, one per row of the Resources list: planned \
     changes (no-ops included), deferred changes and resources that only drifted";

/// Summary of the open plan.
#[component]
pub fn SummaryPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        state.loaded.get().map(|l| {
            let s = &l.analysis.summary;
            let failing_checks = l
                .checks
                .iter()
                .filter(|c| c.status.is_failing())
                .count();
            let plan = l.doc.plan();
            let chip = |n: usize, one: &'static str, many: &'static str, key: &'static str| {
                (n > 0).then(|| {
                    view! {
                        <span class=format!("chip chip-{key}") data-testid=format!("count-{key}")>
                            <b>{n}</b> " " {noun(n, one, many)}
                        </span>
                    }
                })
            };
            let terraform = plan
                .terraform_version
                .as_deref()
                .map_or("Terraform version not recorded".to_string(), |v| format!("Terraform {}", visible(v)));
            let version = match &l.doc.source {
                Source::Plan => format!(
                    "{terraform} · format {}",
                    plan.format_version.as_deref().map_or("?".to_string(), visible),
                ),
                Source::PlanLog(_) => format!("{terraform} · terraform plan -json log (no attribute values)"),
                Source::Driftctl(f) => format!("driftctl report, {}", f.format),
                Source::State(f) => {
                    let serial = f.serial.map(|n| format!(" · serial {n}")).unwrap_or_default();
                    format!("{terraform} · state, {}{serial}", visible(&f.format))
                }
                Source::TextPlan(f) => format!(
                    "{} · human-readable plan (read from text)",
                    f.tool.as_deref().unwrap_or("Terraform or OpenTofu")
                ),
            };
            // A text plan: what reading it from text leaves out, said before anything is judged.
            let text_banner = match &l.doc.source {
                Source::TextPlan(f) => Some(view! {
                    <div class="banner banner-info" data-testid="banner-text-plan">
                        {f.sentence()}
                    </div>
                }),
                _ => None,
            };
            let state_facts = match &l.doc.source {
                Source::State(f) => Some(f.clone()),
                _ => None,
            };
            let sentence = s.headline(&l.doc);
            let diagnostics = match &l.doc.source {
                Source::PlanLog(f) if !f.diagnostics.is_empty() => view! {
                    <Diagnostics list=f.diagnostics.clone() />
                }
                .into_any(),
                _ => ().into_any(),
            };
            let drift = &l.analysis.drift;
            let drift_note = drift.note().map(|note| view! {
                <p class="drift-note" data-testid="summary-drift-note">
                    {note}
                    " "
                    <button class="link-button" data-testid="open-drift" on:click=move |_| state.tab.set(super::Tab::Drift)>
                        {format!("{} →", drift.totals())}
                    </button>
                </p>
            });
            // The banners say what the verdict says: both read the analysis's planning status.
            let planning = &l.analysis.planning;
            let errored = planning.failed().then(|| {
                let tool = crate::model::summary::Tool::of(&l.doc).name();
                let what = if l.doc.rows.is_empty() {
                    format!("{tool} could not make this plan, so there is nothing to apply.")
                } else {
                    format!("This plan is partial: {tool} stopped on an error, so it cannot be applied.")
                };
                let next = if matches!(l.doc.source, crate::model::Source::TextPlan(_)) {
                    // A text plan's errors are its own `Error:` lines, not a list below.
                    " The text's Error: lines say why: fix them and plan again."
                } else if matches!(planning, Planning::Failed { errors: 0, .. }) {
                    " Its errors are not in this file (terraform show -json leaves them out): see the output of terraform plan, fix them and plan again."
                } else {
                    " Fix the errors below and plan again."
                };
                view! { <div class="banner banner-danger" data-testid="banner-errored">{what}{next}</div> }
            });
            // A state: what it is and why nothing here is a verdict.
            let state_banner = planning.is_state().then(|| view! {
                <div class="banner banner-info" data-testid="banner-state">{planning.sentence()}</div>
            });
            let incomplete = planning.is_incomplete().then(|| view! {
                <div class="banner banner-warn" data-testid="banner-incomplete">
                    {planning.sentence()}
                </div>
            });
            let warnings = l
                .doc
                .warnings
                .iter()
                .map(|w| view! { <div class="banner banner-warn" data-testid="load-warning">{w.clone()}</div> })
                .collect_view();
            // What was undone to read the file (gzip, UTF-16, CI wrapper lines): information.
            let notes = l
                .doc
                .notes
                .iter()
                .map(|n| view! { <div class="banner banner-info" data-testid="load-note">{n.clone()}</div> })
                .collect_view();
            view! {
                <section class="summary" aria-label=if state_facts.is_some() { "State summary" } else { "Plan summary" }>
                    {errored}
                    {state_banner}
                    {text_banner}
                    {incomplete}
                    {warnings}
                    {notes}
                    <div class="summary-main">
                        <p class="sentence" data-testid="plan-summary">{sentence}</p>
                        <super::rules::VerdictBadge />
                        {l.doc.values_dropped().then(|| view! {
                            <span
                                class="chip chip-muted"
                                data-testid="redacted-badge"
                                title="Opened from a redacted link: addresses, actions, edges and findings, no attribute values"
                            >
                                "redacted: no values"
                            </span>
                        })}
                        <span class="versions" data-testid="plan-versions">{version}</span>
                    </div>
                    {diagnostics}
                    {drift_note}
                    <div class="chips">
                        {chip(s.replace, "to replace", "to replace", "replace")}
                        {chip(s.moves, "moved", "moved", "move")}
                        {chip(s.import, "to import", "to import", "import")}
                        {chip(s.reads, "data read", "data reads", "read")}
                        {chip(s.deferred, "deferred", "deferred", "deferred")}
                        {chip(s.output_changes, "output change", "output changes", "output")}
                        {chip(failing_checks, "check failing", "checks failing", "check-fail")}
                        {(!plan.action_invocations.is_empty()).then(|| {
                            // Which actions: the chip names them, since the list shows resources.
                            let named = plan
                                .action_invocations
                                .iter()
                                .map(|a| visible(&a.address))
                                .collect::<Vec<_>>()
                                .join(", ");
                            let title = named.clone();
                            view! {
                                <span class="chip chip-action" data-testid="count-action" title=title>
                                    <b>{s.actions}</b> " " {noun(s.actions, "action to invoke", "actions to invoke")}
                                    ": " {named}
                                </span>
                            }
                        })}
                        {state_facts.as_ref().map(|f| view! {
                            {chip(f.data_sources, "data source", "data sources", "data")}
                            {chip(f.outputs, "output", "outputs", "state-outputs")}
                            {chip(f.deposed, "deposed object", "deposed objects", "deposed")}
                            {chip(f.tainted, "tainted", "tainted", "tainted")}
                        })}
                        {(!matches!(l.doc.source, Source::Driftctl(_))).then(|| view! {
                            <span
                                class="chip chip-muted"
                                data-testid="count-instances"
                                title=INSTANCES_TITLE
                            >
                                {count(s.instances, "resource instance", "resource instances")}
                            </span>
                        })}
                    </div>
                </section>
            }
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
