//! The fleet view: one row per tf-controller workspace of the files opened together (`Terraform`
//! objects, with the plan and state Secrets and ConfigMaps stored beside them), most urgent
//! first; filter by what a workspace needs and by namespace, search; a row's stored plan, state
//! or drift plan opens with every view of the app (`open::open_fleet_link`), and the way back
//! keeps the fleet. The rows are made by the core (`fleet::Fleet`, in the worker that read the
//! files); this view only shows them.

use leptos::prelude::*;

use super::{AppState, open};
use crate::fleet::{Attention, FleetFilter, Link, Row, namespaces};
use crate::model::text::{count, visible};

/// The fleet of the open files.
#[component]
pub fn FleetView() -> impl IntoView {
    let state = expect_context::<AppState>();
    let filter = RwSignal::new(FleetFilter::default());
    let fleet = move || state.fleet.get();
    let shown = move || {
        fleet().map_or(Vec::new(), |f| {
            filter.with(|flt| {
                flt.apply(&f.rows)
                    .into_iter()
                    .map(|i| f.rows[i].clone())
                    .collect()
            })
        })
    };
    let headline = move || {
        fleet().map(|f| {
            let human = f.rows.iter().filter(|r| r.attention.needs_human()).count();
            format!(
                "Fleet: {} — {}",
                count(f.rows.len(), "workspace", "workspaces"),
                match human {
                    0 => "none needs a person.".to_string(),
                    n => format!("{} a person.", count(n, "needs", "need")),
                }
            )
        })
    };
    let counts = move || {
        fleet().map(|f| {
            Attention::ALL
                .into_iter()
                .filter_map(|a| {
                    let n = f.rows.iter().filter(|r| r.attention == a).count();
                    (n > 0).then(|| {
                        let on = move || filter.with(|flt| flt.attention == vec![a]);
                        view! {
                            <button
                                class=format!("chip attention-{}", a.key())
                                class:active=on
                                data-testid="fleet-count"
                                data-attention=a.key()
                                aria-pressed=move || on().to_string()
                                on:click=move |_| filter.update(|flt| {
                                    flt.attention = if flt.attention == vec![a] { Vec::new() } else { vec![a] };
                                })
                            >
                                <strong>{n}</strong>" "{a.label()}
                            </button>
                        }
                    })
                })
                .collect_view()
        })
    };
    view! {
        <section class="fleet" data-testid="fleet">
            <div class="fleet-head">
                <h2 data-testid="fleet-headline">{headline}</h2>
                <div class="fleet-counts">{counts}</div>
                <div class="fleet-filters">
                    <label>
                        <input
                            type="checkbox"
                            data-testid="fleet-needs-human"
                            prop:checked=move || filter.with(|f| f.needs_human)
                            on:change=move |ev| filter.update(|f| f.needs_human = event_target_checked(&ev))
                        />
                        " needs a person"
                    </label>
                    <label>
                        "namespace "
                        <select
                            data-testid="fleet-namespace"
                            on:change=move |ev| filter.update(|f| f.namespace = event_target_value(&ev))
                        >
                            <option value="">"all"</option>
                            {move || fleet().map(|f| namespaces(&f.rows).into_iter().map(|n| {
                                let label = visible(&n);
                                view! { <option value=n>{label}</option> }
                            }).collect_view())}
                        </select>
                    </label>
                    <input
                        type="search"
                        class="fleet-search"
                        data-testid="fleet-search"
                        placeholder="Search name, reason, plan id, resource…"
                        prop:value=move || filter.with(|f| f.search.clone())
                        on:input=move |ev| filter.update(|f| f.search = event_target_value(&ev))
                    />
                </div>
            </div>
            {move || fleet().map(|f| {
                let problems = f.problems.clone();
                let unclaimed = f.unclaimed.clone();
                view! {
                    {(!problems.is_empty()).then(|| view! {
                        <div class="banner banner-warn" data-testid="fleet-problems">
                            <p>"Some files were not read:"</p>
                            <ul>{problems.into_iter().map(|(name, why)| view! {
                                <li><strong>{visible(&name)}</strong>": "{visible(&why)}</li>
                            }).collect_view()}</ul>
                        </div>
                    })}
                    {(!unclaimed.is_empty()).then(|| view! {
                        <p class="fine" data-testid="fleet-unclaimed">
                            {format!("Stored but claimed by no workspace of these files: {}.", unclaimed.iter().map(|u| visible(u)).collect::<Vec<_>>().join(", "))}
                        </p>
                    })}
                }
            })}
            <p class="fine" data-testid="fleet-shown">
                {move || fleet().map(|f| format!("{} of {} shown", shown().len(), f.rows.len()))}
            </p>
            <ul class="fleet-rows" data-testid="fleet-rows">
                {move || shown().into_iter().map(|row| view! { <FleetRow row=row /> }).collect_view()}
            </ul>
        </section>
    }
}

/// One workspace.
#[component]
fn FleetRow(row: Row) -> impl IntoView {
    let state = expect_context::<AppState>();
    let a = row.attention;
    let mut facts: Vec<String> = Vec::new();
    if let Some(p) = &row.pending {
        facts.push(if p.awaits_approval {
            format!(
                "plan {} waits for approval (approvePlan: {})",
                p.plan_id,
                if row.approve_plan.is_empty() {
                    "empty"
                } else {
                    &row.approve_plan
                }
            )
        } else {
            format!("plan {} pending", p.plan_id)
        });
        if p.destroy {
            facts.push("destroy plan".to_string());
        }
    }
    if let Some((planned, generation)) = row.stale {
        facts.push(format!(
            "stale: planned for generation {planned}, now {generation}"
        ));
    }
    if row.plan_only {
        facts.push("plan only".to_string());
    }
    if row.destroy && row.pending.as_ref().is_none_or(|p| !p.destroy) {
        facts.push("destroy".to_string());
    }
    if row.failures > 0 {
        facts.push(count(row.failures as usize, "failure", "failures"));
    }
    if let Some(lock) = &row.lock {
        facts.push(format!("locked by {lock}"));
    }
    if !row.interval.is_empty() {
        facts.push(format!("every {}", row.interval));
    }
    let revisions = [
        ("applied", &row.revisions.applied),
        ("planned", &row.revisions.planned),
    ]
    .into_iter()
    .filter(|(_, r)| !r.is_empty())
    .map(|(k, r)| format!("{k} {r}"))
    .collect::<Vec<_>>()
    .join(" · ");
    let drift = row.drift.clone().map(|d| {
        let when = d
            .detected_at
            .clone()
            .map(|t| format!(" at {t}"))
            .unwrap_or_default();
        let what = if d.resources.is_empty() {
            d.unreadable
                .clone()
                .unwrap_or_else(|| "no resource named".to_string())
        } else {
            d.resources
                .iter()
                .map(|r| {
                    let how = r.outside.as_deref().unwrap_or(&r.action);
                    format!("{} ({how})", r.address)
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let cut = if d.cut {
            " — the message was cut: the list may be incomplete"
        } else {
            ""
        };
        format!("Drift{when}: {what}{cut}")
    });
    let ready = if row.ready.status.is_empty() {
        "Ready: not reported yet".to_string()
    } else {
        format!("Ready {}: {}", row.ready.status, row.ready.words)
    };
    let links = row.links.clone();
    view! {
        <li class=format!("fleet-row attention-{}", a.key()) data-testid="fleet-row" data-id=row.id() data-attention=a.key()>
            <div class="fleet-row-head">
                <span class=format!("fleet-badge attention-{}", a.key())>{a.label()}</span>
                <strong class="fleet-name">{visible(&row.id())}</strong>
                {(row.workspace != "default" && !row.workspace.is_empty()).then(|| view! {
                    <span class="fine">{format!("workspace {}", visible(&row.workspace))}</span>
                })}
            </div>
            <div class="fleet-ready" data-testid="fleet-ready">{visible(&ready)}</div>
            {(!row.ready.message.is_empty() && row.drift.is_none()).then(|| view! {
                <div class="fine fleet-message">{visible(&row.ready.message)}</div>
            })}
            {drift.map(|d| view! { <div class="fleet-drift" data-testid="fleet-drift">{visible(&d)}</div> })}
            {(!facts.is_empty()).then(|| view! { <div class="fleet-facts">{visible(&facts.join(" · "))}</div> })}
            {(!revisions.is_empty()).then(|| view! { <div class="fine">{visible(&revisions)}</div> })}
            {row.notes.iter().map(|n| view! { <div class="fine">{visible(n)}</div> }).collect_view()}
            <div class="fleet-links">
                {links.into_iter().map(|(link, label)| {
                    let verb = match link {
                        Link::Plan(_) | Link::TextPlan(_) => "Open plan",
                        Link::State(_) => "Open state",
                        Link::DriftMessage(_) => "Open drift plan",
                    };
                    view! {
                        <button
                            class="button"
                            data-testid="fleet-open"
                            title=visible(&label)
                            on:click=move |_| open::open_fleet_link(state, link)
                        >
                            {verb}
                        </button>
                    }
                }).collect_view()}
            </div>
        </li>
    }
}
