//! The Outputs and Checks tabs.

use leptos::prelude::*;

use super::AppState;
use super::diff::DiffTree;
use crate::model::text::visible;

/// Output changes, sensitive ones masked.
#[component]
pub fn OutputsPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let show_unchanged = RwSignal::new(false);
    move || {
        let loaded = state.loaded.get()?;
        // A state's outputs are values as recorded, shown whole, without an action.
        let in_state = loaded.doc.source.is_state();
        if loaded.outputs.is_empty() {
            let text = if in_state {
                "This state has no outputs.".to_string()
            } else if loaded.analysis.planning.failed() {
                // Terraform stopped before it planned the outputs: not "no outputs".
                format!(
                    "Planning failed before {} planned the outputs: they are not known.",
                    crate::model::summary::Tool::of(&loaded.doc).name()
                )
            } else {
                "This plan changes no outputs.".to_string()
            };
            return Some(view! { <p class="panel-empty">{text}</p> }.into_any());
        }
        let show_unchanged = if in_state {
            RwSignal::new(true)
        } else {
            show_unchanged
        };
        let missing = loaded.doc.missing_values();
        Some(
            view! {
                <section class="panel" data-testid="outputs-panel">
                    {missing.map(|m| view! { <p class="fine" data-testid="outputs-no-values">{m}</p> })}
                    {loaded
                        .outputs
                        .iter()
                        .map(|o| {
                            let tree = o.diff.clone().map(|t| missing.is_none().then_some(t));
                            view! {
                                <article class=format!("output a-{}", o.action.key()) data-testid="output-row">
                                    <h3>
                                        <span class="sym">{if in_state { "" } else { o.action.symbol() }}</span>
                                        " "
                                        <span class="output-name">{visible(&o.name)}</span>
                                        {o.sensitive.then(|| view! { <span class="mark mark-sensitive">"sensitive"</span> })}
                                    </h3>
                                    {match tree {
                                        Ok(Some(tree)) => view! { <DiffTree tree show_unchanged /> }.into_any(),
                                        Ok(None) => ().into_any(),
                                        Err(e) => view! { <p class="load-error">{e.to_string()}</p> }.into_any(),
                                    }}
                                </article>
                            }
                        })
                        .collect_view()}
                </section>
            }
            .into_any(),
        )
    }
}

/// Check results with their failure messages, failures first.
#[component]
pub fn ChecksPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        let loaded = state.loaded.get()?;
        if loaded.checks.is_empty() {
            // A state's own check_results (of its last apply) are not read: say so, not "none".
            let text = if loaded.doc.source.is_state() {
                "Planlens does not show a state's check results (check_results of its last apply)."
                    .to_string()
            } else if loaded.analysis.planning.failed() {
                format!(
                    "Planning failed before {} checked the conditions: their results are not known.",
                    crate::model::summary::Tool::of(&loaded.doc).name()
                )
            } else {
                "This plan has no check results (check blocks, preconditions or postconditions)."
                    .to_string()
            };
            return Some(
                view! { <p class="panel-empty" data-testid="checks-empty">{text}</p> }.into_any(),
            );
        }
        Some(
            view! {
                <section class="panel" data-testid="checks-panel">
                    {loaded
                        .checks
                        .iter()
                        .map(|c| {
                            view! {
                                <article class=format!("check status-{}", c.status.key()) data-testid="check-row">
                                    <h3>
                                        <span class=format!("status-badge status-{}", c.status.key())>{c.status.key()}</span>
                                        " "
                                        <span class="check-address">{visible(&c.address)}</span>
                                        <span class="check-kind">{visible(&c.kind)}</span>
                                    </h3>
                                    <ul>
                                        {c.messages
                                            .iter()
                                            .map(|m| view! { <li class="check-message">{visible(m)}</li> })
                                            .collect_view()}
                                    </ul>
                                </article>
                            }
                        })
                        .collect_view()}
                </section>
            }
            .into_any(),
        )
    }
}
