//! The Fleet view: every workspace of Flux's Terraform controller in the opened files, one row per
//! `Terraform` object, most urgent first (`crate::fleet` decides everything shown: the order, the
//! words, whether a plan awaits approval). Filters by what a workspace needs and by namespace, a
//! search (`/`), rows that open with Enter to show what a workspace needs, and its plan, text
//! plan, state or drift plan opened with every view of a plan.
//!
//! It shows while `AppState::showing_fleet`; *← Back to the fleet* returns to it from a row's plan,
//! *Back to the plan* the other way. Chips per `Attention` with counts, *Needs a person*, the
//! namespace select and the search (`/`, Esc) work over `fleet::FleetFilter`. Rows are buttons
//! (Tab, ↑/↓ or j/k, Enter/Space) that open what a workspace needs — message, failures, lock,
//! drifted resources, the `kubectl patch` approving a pending plan, notes, revisions — and its
//! links, each opened by `open::open_fleet_link` (the fleet's worker gives it as a file). While it
//! shows, the page's own keys are off; nothing is wider than the screen at 390 px.

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::{AppState, open};
use crate::fleet::{Attention, FleetFilter, Link, Row, namespaces};
use crate::model::text::visible;

/// The Fleet view (shown while `AppState::showing_fleet`).
#[component]
pub fn FleetView() -> impl IntoView {
    let state = expect_context::<AppState>();
    let filter = RwSignal::new(FleetFilter::default());
    let expanded = RwSignal::new(None::<String>);
    // `/` searches, as in the list; Esc clears the search.
    let keys = window_event_listener(ev::keydown, move |ev: web_sys::KeyboardEvent| {
        if !state.showing_fleet.get_untracked() || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        let in_field = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
            .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
        match ev.key().as_str() {
            "/" if !in_field => {
                ev.prevent_default();
                focus("[data-testid=fleet-search]");
            }
            "Escape" => filter.update(|f| f.search.clear()),
            _ => {}
        }
    });
    on_cleanup(move || keys.remove());
    move || {
        let fleet = state.fleet.get()?;
        let rows = fleet.rows.clone();
        let counts = {
            let mut c = std::collections::BTreeMap::<Attention, usize>::new();
            for r in &rows {
                *c.entry(r.attention).or_default() += 1;
            }
            c
        };
        let headline = format!(
            "{} workspace{}",
            rows.len(),
            if rows.len() == 1 { "" } else { "s" }
        );
        let needs_human = rows.iter().filter(|r| r.attention.needs_human()).count();
        let pending = rows
            .iter()
            .filter(|r| r.attention == crate::fleet::Attention::Pending)
            .count();
        let chips = counts
            .iter()
            .map(|(&attention, &n)| {
                let pressed = move || filter.with(|f| f.attention.contains(&attention));
                view! {
                    <button
                        class=format!("chip-button fleet-chip fleet-chip-{}", attention.key())
                        data-testid=format!("fleet-chip-{}", attention.key())
                        aria-pressed=move || pressed().to_string()
                        on:click=move |_| filter.update(|f| {
                            if let Some(at) = f.attention.iter().position(|a| *a == attention) {
                                f.attention.remove(at);
                            } else {
                                f.attention.push(attention);
                            }
                        })
                    >
                        {format!("{n} {}", attention.label())}
                    </button>
                }
            })
            .collect_view();
        let spaces = namespaces(&rows);
        let namespace_filter = (spaces.len() > 1).then(|| {
            view! {
                <label class="fleet-namespace">
                    <span class="visually-hidden">"Namespace"</span>
                    <select
                        data-testid="fleet-namespace"
                        on:change=move |ev| {
                            let value = event_target_value(&ev);
                            filter.update(|f| f.namespace = value);
                        }
                    >
                        <option value="">"All namespaces"</option>
                        {spaces
                            .into_iter()
                            .map(|ns| view! { <option value=ns.clone()>{visible(&ns)}</option> })
                            .collect_view()}
                    </select>
                </label>
            }
        });
        let problems = fleet
            .problems
            .iter()
            .map(|(file, message)| {
                view! {
                    <p class="banner banner-warn" data-testid="fleet-problem">
                        {format!("{}: {}", visible(file), visible(message))}
                    </p>
                }
            })
            .collect_view();
        let unclaimed = (!fleet.unclaimed.is_empty()).then(|| {
            view! {
                <p class="fine" data-testid="fleet-unclaimed">
                    "Stored for no workspace in these files: "
                    {visible(&fleet.unclaimed.join(", "))}
                </p>
            }
        });
        let back = state.loaded.with(Option::is_some).then(|| {
            view! {
                <button class="button" data-testid="fleet-to-plan" on:click=move |_| state.showing_fleet.set(false)>
                    "Back to the plan"
                </button>
            }
        });
        let list_rows = rows.clone();
        let shown = Memo::new(move |_| filter.with(|f| f.apply(&list_rows)));
        let all_rows = rows.clone();
        Some(view! {
            <section class="panel fleet-panel" data-testid="fleet">
                <div class="fleet-head">
                    <h2 class="fleet-title" data-testid="fleet-summary">
                        "Fleet: " {headline}
                        <span class="fleet-needs">
                            {if needs_human == 0 && pending > 0 {
                                // Not "nothing needs a person" before the controller has judged.
                                format!(" — {pending} with no verdict yet")
                            } else if needs_human == 0 {
                                " — nothing needs a person".to_string()
                            } else {
                                format!(" — {needs_human} need{} a person", if needs_human == 1 { "s" } else { "" })
                            }}
                        </span>
                    </h2>
                    {back}
                </div>
                {problems}
                <div class="fleet-filters" role="group" aria-label="Filter the workspaces">
                    <button
                        class="chip-button"
                        data-testid="fleet-needs-human"
                        aria-pressed=move || filter.with(|f| f.needs_human).to_string()
                        on:click=move |_| filter.update(|f| f.needs_human = !f.needs_human)
                    >
                        "Needs a person"
                    </button>
                    {chips}
                    {namespace_filter}
                    <input
                        type="search"
                        class="fleet-search"
                        data-testid="fleet-search"
                        placeholder="Search: name, reason, resource, plan id"
                        aria-label="Search the workspaces"
                        prop:value=move || filter.with(|f| f.search.clone())
                        on:input=move |ev| {
                            let value = event_target_value(&ev);
                            filter.update(|f| f.search = value);
                        }
                    />
                </div>
                <p class="fine fleet-count" data-testid="fleet-count" aria-live="polite">
                    {move || {
                        let n = shown.with(Vec::len);
                        if n == all_rows.len() {
                            String::new()
                        } else {
                            format!("{n} of {} workspaces shown", all_rows.len())
                        }
                    }}
                </p>
                <ul class="fleet-list" data-testid="fleet-list" on:keydown=move_focus>
                    {move || {
                        let visible_rows = shown.get();
                        if visible_rows.is_empty() {
                            return view! {
                                <li class="panel-empty" data-testid="fleet-none">"No workspace matches."</li>
                            }
                            .into_any();
                        }
                        visible_rows
                            .into_iter()
                            .map(|i| fleet_row(rows[i].clone(), expanded, state))
                            .collect_view()
                            .into_any()
                    }}
                </ul>
                {unclaimed}
            </section>
        })
    }
}

/// ↑/↓ (and j/k) move between the rows' headers; Enter and Space open them (they are buttons).
/// These keys stop here: the page's own keys (which walk the open plan's list) must not act on a
/// plan hidden behind the fleet, nor cancel a row's Enter.
fn move_focus(ev: ev::KeyboardEvent) {
    let delta = match ev.key().as_str() {
        "ArrowDown" | "j" => 1,
        "ArrowUp" | "k" => -1,
        "Enter" | " " => {
            ev.stop_propagation();
            return;
        }
        _ => return,
    };
    ev.stop_propagation();
    let Some(doc) = window().document() else {
        return;
    };
    let Ok(heads) = doc.query_selector_all("[data-testid=fleet-row-head]") else {
        return;
    };
    let active = doc.active_element();
    let at = (0..heads.length()).find(|&i| {
        heads
            .get(i)
            .zip(active.as_ref())
            .is_some_and(|(h, a)| h.is_same_node(Some(a)))
    });
    let next = match at {
        Some(i) => i as i64 + delta,
        None => 0,
    };
    if next < 0 || next >= heads.length() as i64 {
        return;
    }
    ev.prevent_default();
    if let Some(el) = heads
        .get(next as u32)
        .and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

fn focus(selector: &str) {
    if let Some(el) = window()
        .document()
        .and_then(|d| d.query_selector(selector).ok().flatten())
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

/// One workspace: its header (a button that opens the details) and, opened, what it needs.
fn fleet_row(row: Row, expanded: RwSignal<Option<String>>, state: AppState) -> impl IntoView {
    let id = row.id();
    let is_open = {
        let id = id.clone();
        move || expanded.with(|e| e.as_deref() == Some(id.as_str()))
    };
    let toggle = {
        let id = id.clone();
        move |_| {
            expanded.update(|e| {
                *e = if e.as_deref() == Some(id.as_str()) {
                    None
                } else {
                    Some(id.clone())
                }
            })
        }
    };
    let ready = if row.ready.status.is_empty() {
        row.ready.words.clone()
    } else {
        format!("{}: {}", row.ready.status, row.ready.words)
    };
    let plan = plan_text(&row);
    let meta = meta_text(&row);
    let details = {
        let row = row.clone();
        let is_open = is_open.clone();
        move || is_open().then(|| details(row.clone(), state))
    };
    view! {
        <li
            class=format!("fleet-row fleet-row-{}", row.attention.key())
            data-testid="fleet-row"
            data-id=visible(&id)
            data-attention=row.attention.key()
        >
            <button
                class="fleet-row-head"
                data-testid="fleet-row-head"
                aria-expanded=move || is_open().to_string()
                on:click=toggle
            >
                <span class=format!("fleet-badge fleet-badge-{}", row.attention.key())>
                    {row.attention.label()}
                </span>
                <span class="fleet-id">
                    <span class="fleet-ns">{visible(&row.namespace)} "/"</span>
                    <span class="fleet-name">{visible(&row.name)}</span>
                </span>
                <span class="fleet-ready" data-testid="fleet-ready">{visible(&ready)}</span>
                <span class="fleet-plan" data-testid="fleet-plan">{visible(&plan)}</span>
                <span class="fleet-meta">{visible(&meta)}</span>
            </button>
            {details}
        </li>
    }
}

/// The pending plan and its flags: `plan-main-0a1b2c3d4e · awaits approval · destroy`.
fn plan_text(row: &Row) -> String {
    let mut parts = Vec::new();
    if let Some(p) = &row.pending {
        parts.push(p.plan_id.clone());
        if p.awaits_approval {
            parts.push("awaits approval".to_string());
        }
    }
    parts.extend(row.plan_flags().map(str::to_string));
    if parts.is_empty() {
        "no pending plan".to_string()
    } else {
        parts.join(" · ")
    }
}

/// Failures, interval and the applied revision, in a few words.
fn meta_text(row: &Row) -> String {
    let mut parts = Vec::new();
    if row.failures > 0 {
        parts.push(format!(
            "{} failure{}",
            row.failures,
            if row.failures == 1 { "" } else { "s" }
        ));
    }
    if !row.interval.is_empty() {
        parts.push(format!("every {}", row.interval));
    }
    if !row.revisions.applied.is_empty() {
        parts.push(format!(
            "applied {}",
            short_revision(&row.revisions.applied)
        ));
    }
    parts.join(" · ")
}

/// `main@sha1:0a1b2c3d4e5f…` → `main@sha1:0a1b2c3`.
fn short_revision(rev: &str) -> String {
    match rev.rfind([':', '/']) {
        Some(at) => format!(
            "{}{}",
            &rev[..=at],
            rev[at + 1..].chars().take(7).collect::<String>()
        ),
        None => rev.to_string(),
    }
}

/// What a workspace needs, and what the files hold for it.
fn details(row: Row, state: AppState) -> impl IntoView {
    let message = (!row.ready.message.is_empty()).then(|| {
        view! { <p class="fleet-message" data-testid="fleet-message">{visible(&row.ready.message)}</p> }
    });
    let lock = row.lock.as_ref().map(|lock| {
        view! {
            <p class="fleet-line">
                "The state lock is held"
                {(!lock.is_empty()).then(|| format!(
                    ": {} (force-unlock with spec.tfstate.lockIdentifier)",
                    visible(lock)
                ))}
            </p>
        }
    });
    let drift = row.drift.as_ref().map(|d| {
        let when = d
            .detected_at
            .as_deref()
            .map_or(String::new(), |at| format!(" at {}", visible(at)));
        let summary = d.summary.clone().map(|s| format!(" — {s}"));
        let resources = d
            .resources
            .iter()
            .map(|r| {
                let planned = if r.action == "no-op" {
                    "the plan leaves it".to_string()
                } else {
                    format!("plan: {}", r.action)
                };
                let what = match &r.outside {
                    Some(o) => format!("{o} outside Terraform; {planned}"),
                    None => planned,
                };
                view! {
                    <li>
                        <span class="addr">{visible(&r.address)}</span>
                        " "
                        <span class="fleet-effect">{what}</span>
                    </li>
                }
            })
            .collect_view();
        view! {
            <div class="fleet-drift" data-testid="fleet-drift">
                <p class="fleet-line">"Drift detected" {when} {summary}</p>
                <ul class="fleet-drifted">{resources}</ul>
                {d.cut.then(|| view! {
                    <p class="fine">"The controller cut its message: more resources may have drifted."</p>
                })}
                {d.unreadable.clone().map(|why| view! {
                    <p class="fine">"The drift plan could not be read: " {visible(&why)}</p>
                })}
            </div>
        }
    });
    let approve = row.pending.as_ref().filter(|p| p.awaits_approval).map(|p| {
        let command = format!(
            "kubectl patch terraform {} -n {} --type merge -p '{{\"spec\":{{\"approvePlan\":\"{}\"}}}}'",
            row.name, row.namespace, p.plan_id
        );
        view! {
            <p class="fleet-line">"Approve with:"</p>
            <code class="fleet-command" data-testid="fleet-approve">{visible(&command)}</code>
        }
    });
    let notes = row
        .notes
        .iter()
        .map(|n| view! { <p class="fine">{visible(n)}</p> })
        .collect_view();
    let failures = (row.failures > 0).then(|| {
        view! {
            <p class="fleet-line">
                {format!(
                    "{} failed reconciliation{} since the last success",
                    row.failures,
                    if row.failures == 1 { "" } else { "s" }
                )}
            </p>
        }
    });
    let revisions = {
        let r = &row.revisions;
        let lines: Vec<String> = [
            ("applied", &r.applied),
            ("planned", &r.planned),
            ("attempted", &r.attempted),
        ]
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k} {}", visible(v)))
        .collect();
        (!lines.is_empty())
            .then(|| view! { <p class="fine fleet-revisions">{lines.join(" · ")}</p> })
    };
    let links = row
        .links
        .iter()
        .map(|(link, label)| {
            let link = *link;
            let verb = match link {
                Link::Plan(_) => "Open the plan",
                Link::TextPlan(_) => "Open the text plan",
                Link::State(_) => "Open the state",
                Link::DriftMessage(_) => "Open the drift plan",
            };
            let shown = visible(label).to_string();
            view! {
                <button
                    class="button fleet-open"
                    data-testid="fleet-open"
                    title=shown
                    on:click=move |_| open::open_fleet_link(state, link)
                >
                    {verb}
                </button>
            }
        })
        .collect_view();
    let no_links = row.links.is_empty().then(|| {
        view! {
            <p class="fine">
                "Open its plan Secret (storeReadablePlan: json) or state Secret with this file to see them here."
            </p>
        }
    });
    view! {
        <div class="fleet-details" data-testid="fleet-details">
            {message}
            {failures}
            {lock}
            {drift}
            {approve}
            {notes}
            {revisions}
            <div class="fleet-links">{links}</div>
            {no_links}
        </div>
    }
}
