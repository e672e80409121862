//! The Drift tab: what changed outside Terraform, graded structural, minor or not relevant to the
//! plan, with what the plan does about it; for driftctl reports also coverage, unmanaged resources
//! and alerts. Every word about grades and effects comes from `crate::drift`.

use std::sync::Arc;

use leptos::prelude::*;

use super::diff::{AskedDiff, DiffKey, DiffOf, SessionDiff};
use super::{AppState, Loaded, Tab};
use crate::drift::{DriftedResource, PlanEffect, Severity};
use crate::model::Action;
use crate::model::source::{DriftctlFacts, Source};
use crate::model::text::visible;

/// Which drifted resources the list shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SeverityFilter {
    All,
    Only(Severity),
}

/// The Drift tab.
#[component]
pub fn DriftPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let filter = RwSignal::new(SeverityFilter::All);
    move || {
        let loaded = state.loaded.get()?;
        let drift = &loaded.analysis.drift;
        let driftctl = match &loaded.doc.source {
            Source::Driftctl(f) => Some(view! { <DriftctlFigures facts=f.clone() /> }),
            _ => None,
        };
        let tool = crate::model::summary::Tool::of(&loaded.doc).name();
        let refresh_only = crate::drift::is_refresh_only(&loaded.doc).then(|| view! {
            <p class="banner banner-info" data-testid="refresh-only">
                {format!("This is a refresh-only plan: {tool} will not undo these changes. Applying it records \
                 the values listed below in the state.")}
            </p>
        });
        let no_values = (!loaded.doc.source.has_values() && !drift.resources.is_empty()).then(|| view! {
            <p class="fine">
                "A plan log says which resources drifted but not which attributes; they count as \
                 structural. Open `terraform show -json` of the saved plan for the attributes."
            </p>
        });
        // Why the list may not be all the drift there is (planning failed, a partial input, an
        // old Terraform): said in place of "No drift", or above the list. (Never for a state.)
        let incomplete = crate::drift::incompleteness(
            &loaded.doc,
            &loaded.analysis.planning,
            drift.resources.len(),
        )
        .map(
            |why| view! { <p class="banner banner-warn" data-testid="drift-incomplete">{why}</p> },
        );
        if drift.resources.is_empty() {
            let in_state = loaded.doc.source.is_state();
            // A state is what Terraform recorded; it cannot say what changed since.
            let state_note = in_state.then(|| view! {
                <p class="panel-empty" data-testid="no-drift">{crate::model::planning::STATE_NO_DRIFT}</p>
            });
            let tool = drift.tool.name();
            let no_drift = (!in_state && incomplete.is_none()).then(|| view! {
                <p class="panel-empty" data-testid="no-drift">{format!("No drift: nothing changed outside of {tool}.")}</p>
            });
            return Some(
                view! {
                    <section class="panel drift-panel" data-testid="drift-panel">
                        {driftctl}
                        {state_note}
                        {incomplete}
                        {no_drift}
                    </section>
                }
                .into_any(),
            );
        }
        let count_button = move |f: SeverityFilter, label: String| {
            view! {
                <button
                    class="chip-button"
                    aria-pressed=move || (filter.get() == f).to_string()
                    on:click=move |_| filter.set(f)
                >
                    {label}
                </button>
            }
        };
        let items = move || {
            let loaded = state.loaded.get()?;
            let is_driftctl = matches!(loaded.doc.source, Source::Driftctl(_));
            let shown: Vec<AnyView> = loaded
                .analysis
                .drift
                .resources
                .iter()
                .filter(|r| match filter.get() {
                    SeverityFilter::All => true,
                    SeverityFilter::Only(s) => r.severity == s,
                })
                .map(|r| drift_item(state, r, !is_driftctl))
                .collect();
            Some(shown)
        };
        Some(
            view! {
                <section class="panel drift-panel" data-testid="drift-panel">
                    {driftctl}
                    {incomplete}
                    {refresh_only}
                    {no_values}
                    <div class="drift-filter" role="group" aria-label="Severity">
                        {count_button(SeverityFilter::All, format!("All {}", drift.resources.len()))}
                        {count_button(
                            SeverityFilter::Only(Severity::Structural),
                            format!("{} structural", drift.structural),
                        )}
                        {count_button(SeverityFilter::Only(Severity::Minor), format!("{} minor", drift.minor))}
                        {(drift.not_relevant > 0).then(|| count_button(
                            SeverityFilter::Only(Severity::NotRelevant),
                            format!("{} not relevant", drift.not_relevant),
                        ))}
                        <span class="fine">
                            "Minor: only tags or labels changed (auto-remediate). Structural: anything else (a human decides)."
                            {(drift.not_relevant > 0).then_some(" Not relevant: the plan's changes do not depend on what changed (relevant_attributes).")}
                        </span>
                    </div>
                    // On a phone the detail is a full-screen sheet, as in the Resources tab.
                    <div class="drift-workspace" class:detail-open=move || state.showing_detail()>
                        <ul class="drift-list" data-testid="drift-list">{items}</ul>
                        <div class="detail-sheet" data-testid="drift-sheet">
                            <button class="sheet-back" data-testid="drift-sheet-back" on:click=move |_| state.detail_open.set(false)>
                                "← Back to the drift list"
                            </button>
                            <DriftDetail />
                        </div>
                    </div>
                </section>
            }
            .into_any(),
        )
    }
}

fn drift_item(state: AppState, r: &DriftedResource, show_effect: bool) -> AnyView {
    let row = r.rows.first().copied();
    let summary = r.what();
    let severity = r.severity.key();
    view! {
        <li
            class=format!("drift-item sev-{severity}")
            class:selected=move || row.is_some() && state.selected.get() == row
            data-testid="drift-item"
            data-address=r.address.clone()
            data-severity=severity
            role="button"
            tabindex="0"
            on:click=move |_| state.select(row)
            on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                if ev.key() == "Enter" {
                    state.select(row);
                }
            }
        >
            <span class=format!("sev-badge sev-{severity}")>{r.severity.label()}</span>
            <span class="addr">{visible(&r.address)}</span>
            {show_effect.then(|| view! {
                <span class=format!("effect effect-{}", r.effect.key()) data-testid="drift-item-effect">{r.effect.label()}</span>
            })}
            <span class="drift-attrs">{visible(&summary)}</span>
        </li>
    }
    .into_any()
}

/// The diff of a drifted resource, when it has one to show: a plan log has no values, and an
/// object deleted outside Terraform has no after.
fn diff_key(loaded: &Arc<Loaded>, r: &DriftedResource) -> Option<DiffKey> {
    (loaded.doc.has_values() && r.action != Action::Delete)
        .then(|| DiffKey::of(loaded, DiffOf::Drift(r.entry)))
}

/// The selected resource's drift: attributes, what the plan does, and the before → after diff.
#[component]
fn DriftDetail() -> impl IntoView {
    let state = expect_context::<AppState>();
    let show_unchanged = RwSignal::new(false);
    // The selected entry's diff, asked of the session.
    let key = Memo::new(move |_| {
        let loaded = state.loaded.get()?;
        let r = loaded
            .analysis
            .drift
            .for_row(state.selected.get()? as usize)?;
        diff_key(&loaded, r)
    });
    let diff = SessionDiff::new(key);
    move || {
        let loaded = state.loaded.get()?;
        let selected = state.selected.get();
        let Some(r) = selected.and_then(|row| loaded.analysis.drift.for_row(row as usize)) else {
            return Some(
                view! {
                    <aside class="diff-pane empty-pane" data-testid="drift-detail-empty">
                        <p>"Select a drifted resource to see what changed outside Terraform."</p>
                    </aside>
                }
                .into_any(),
            );
        };
        let row = selected;
        let has_plan =
            !matches!(loaded.doc.source, Source::Driftctl(_)) && r.effect != PlanEffect::NotInPlan;
        let relevance_known = r.relevance_known;
        let attributes = r
            .attributes
            .iter()
            .map(|a| {
                let is_computed = a.computed;
                view! {
                    <tr data-testid="drift-attribute" data-relevant=relevance_known.then_some(a.relevant.to_string())>
                        <td class="mono">{visible(&a.path)}</td>
                        <td>
                            {a.relevant.then(|| view! {
                                <span class="mark mark-relevant" title="relevant_attributes: this attribute matters to the planned changes">"relevant to the plan"</span>
                            })}
                            {(relevance_known && !a.relevant).then(|| view! {
                                <span class="mark mark-not-relevant" title="Not in relevant_attributes: the planned changes do not depend on it, and it does not count toward the grade">"not relevant to this plan"</span>
                            })}
                            {is_computed.then(|| view! {
                                <span class="mark mark-computed" title="driftctl marks this field as computed: possibly a false positive">"computed"</span>
                            })}
                        </td>
                        {has_plan.then(|| view! { <td class="fine" data-testid="drift-attribute-effect">{a.effect.label()}</td> })}
                    </tr>
                }
            })
            .collect_view();
        let tree = diff_key(&loaded, r);
        let severity = r.severity.key();
        let more = (r.more_attributes > 0)
            .then(|| view! { <p class="fine">{format!("… and {} more changed paths.", r.more_attributes)}</p> });
        Some(
            view! {
                <aside class="diff-pane" data-testid="drift-detail">
                    <header class=format!("diff-head sev-{severity}")>
                        <span class=format!("sev-badge sev-{severity}")>{r.severity.label()}</span>
                        <div>
                            <h2 class="diff-address" data-testid="drift-address">{visible(&r.address)}</h2>
                            <p class="diff-sub" data-testid="drift-effect">
                                {if r.action == Action::Delete { "Deleted outside Terraform. " } else { "Changed outside Terraform. " }}
                                {match loaded.doc.source { Source::Driftctl(_) => "", _ => r.effect.sentence() }}
                            </p>
                        </div>
                    </header>
                    {r.deleted.as_ref().map(|d| view! {
                        <dl class="drift-deleted" data-testid="drift-deleted">
                            <dt>"Type"</dt><dd class="mono">{visible(&d.resource_type)}</dd>
                            <dt>"Address"</dt><dd class="mono">{visible(&r.address)}</dd>
                            <dt>"Id"</dt>
                            <dd class="mono" data-testid="drift-deleted-id">
                                {match &d.id {
                                    Some(id) => visible(id),
                                    None if loaded.doc.values_dropped() => "(redacted)".to_string(),
                                    None if !r.values_known => "(not in the log)".to_string(),
                                    None => "(none, or sensitive)".to_string(),
                                }}
                            </dd>
                        </dl>
                    })}
                    <div class="drift-actions">
                        <button class="button" data-testid="drift-show-list" on:click=move |_| { state.select(row); state.tab.set(Tab::Resources); }>
                            "Show in list"
                        </button>
                        <button class="button" data-testid="drift-show-graph" title="The graph highlights what depends on it" on:click=move |_| { state.select(row); state.tab.set(Tab::Graph); }>
                            "Show in graph (blast radius)"
                        </button>
                    </div>
                    {(!r.attributes.is_empty()).then(|| view! {
                        <table class="drift-attributes">
                            <thead><tr><th>"Drifted attribute"</th><th></th>{has_plan.then(|| view! { <th>"Plan"</th> })}</tr></thead>
                            <tbody>{attributes}</tbody>
                        </table>
                    })}
                    {more}
                    {loaded.doc.values_dropped().then(|| view! {
                        <p class="fine" data-testid="drift-redacted">{loaded.doc.missing_values()}</p>
                    })}
                    {tree.map(|key| view! {
                        <h3 class="drift-diff-title">"Last known (state) → actual (refreshed)"</h3>
                        <AskedDiff diff key show_unchanged what="drift" />
                    })}
                </aside>
            }
            .into_any(),
        )
    }
}

/// A driftctl report's figures, alerts and unmanaged resources.
#[component]
fn DriftctlFigures(facts: DriftctlFacts) -> impl IntoView {
    let figure = |n: String, label: &'static str, key: &'static str| {
        view! {
            <div class=format!("figure figure-{key}") data-testid=format!("driftctl-{key}")>
                <b>{n}</b>
                <span>{label}</span>
            </div>
        }
    };
    let alerts = (!facts.alerts.is_empty()).then(|| {
        view! {
            <ul class="alerts" data-testid="driftctl-alerts">
                {facts
                    .alerts
                    .iter()
                    .map(|(about, m)| {
                        let about = (!about.is_empty()).then(|| format!("{}: ", visible(about)));
                        view! { <li class="banner banner-warn">{about}{visible(m)}</li> }
                    })
                    .collect_view()}
            </ul>
        }
    });
    let unmanaged = (!facts.unmanaged_resources.is_empty()).then(|| {
        view! {
            <details class="unmanaged" data-testid="driftctl-unmanaged">
                <summary>{format!("{} unmanaged resources (in the cloud, in no state)", facts.unmanaged_resources.len())}</summary>
                <table>
                    <thead><tr><th>"Type"</th><th>"Cloud id"</th></tr></thead>
                    <tbody>
                        {facts
                            .unmanaged_resources
                            .iter()
                            .map(|(t, id)| view! { <tr><td class="mono">{visible(t)}</td><td class="mono">{visible(id)}</td></tr> })
                            .collect_view()}
                    </tbody>
                </table>
            </details>
        }
    });
    let about = format!(
        "driftctl report ({}){}{}",
        facts.format,
        facts
            .provider
            .as_deref()
            .map(|p| format!(" · {}", visible(p)))
            .unwrap_or_default(),
        facts
            .date
            .as_deref()
            .map(|d| format!(" · scanned {}", visible(d)))
            .unwrap_or_default(),
    );
    view! {
        <section class="driftctl" data-testid="driftctl-figures">
            <p class="fine">{about}</p>
            <div class="figures">
                {figure(format!("{} %", facts.coverage), "coverage", "coverage")}
                {figure(facts.managed.to_string(), "managed", "managed")}
                {figure(facts.unmanaged.to_string(), "unmanaged", "unmanaged")}
                {figure(facts.missing.to_string(), "missing", "missing")}
                {figure(facts.changed.map_or("—".to_string(), |c| c.to_string()), "changed", "changed")}
            </div>
            {alerts}
            {unmanaged}
        </section>
    }
}
