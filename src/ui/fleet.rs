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
use crate::fleet::{Attention, Entry, Link, Row};
use crate::model::text::visible;

/// The roll-up (shown while `AppState::showing_fleet`): workspaces and plans, one row each.
#[component]
pub fn FleetView() -> impl IntoView {
    let state = expect_context::<AppState>();
    let filter = state.fleet_filter;
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
    // Back from a row's plan: the row it opened gets the focus, the page its scroll.
    if let Some((id, scroll)) = state.fleet_place.get_value() {
        request_animation_frame(move || {
            window().scroll_to_with_x_and_y(0.0, scroll);
            focus(&format!(
                "[data-testid=fleet-row][data-id=\"{}\"] [data-testid=fleet-row-head]",
                css_escape(&id)
            ));
        });
    }
    move || {
        let fleet = state.fleet.get()?;
        let plans_only = fleet.rows.is_empty();
        let counts = fleet.counts();
        let needs_human: usize = (counts.iter())
            .filter(|(a, _)| a.needs_human())
            .map(|(_, n)| n)
            .sum();
        let pending = counts.get(&Attention::Pending).copied().unwrap_or(0);
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
                        {chip_text(attention, n)}
                    </button>
                }
            })
            .collect_view();
        let spaces = fleet.groups();
        let namespace_filter = (spaces.len() > 1).then(|| {
            let all = if plans_only { "All groups" } else { "All namespaces" };
            view! {
                <label class="fleet-namespace">
                    <span class="visually-hidden">{if plans_only { "Group" } else { "Namespace" }}</span>
                    <select
                        data-testid="fleet-namespace"
                        prop:value=move || filter.with(|f| f.namespace.clone())
                        on:change=move |ev| {
                            let value = event_target_value(&ev);
                            filter.update(|f| f.namespace = value);
                        }
                    >
                        <option value="">{all}</option>
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
        let share = (!fleet.plans.is_empty() && open::set_has_plans()).then(|| share_panel(state));
        let back = state.loaded.with(Option::is_some).then(|| {
            view! {
                <button class="button" data-testid="fleet-to-plan" on:click=move |_| state.showing_fleet.set(false)>
                    "Back to the plan"
                </button>
            }
        });
        let title = if plans_only { "" } else { "Fleet: " };
        let unverdicted = (fleet.plans.iter())
            .filter(|r| r.policy_error.is_some() && r.verdict.is_none())
            .count();
        let verdict = crate::fleet::plans::worst_verdict(&fleet.plans).map(|v| {
            view! {
                <p class="rollup-verdict" data-testid="rollup-verdict">
                    "Verdict: "
                    <strong class=format!("rollup-verdict-chip verdict-{}", v.key())>{v.label()}</strong>
                    " — the worst of the plans"
                    {(unverdicted > 0).then(|| format!(" · {unverdicted} with no verdict: the policies did not run"))}
                </p>
            }
        });
        // Rego policies judge every plan with the rules (in the set's workers, as the CLI does);
        // a plan they could not judge has no verdict, and the roll-up says why.
        let unjudged: Vec<&crate::fleet::PlanRow> = fleet
            .plans
            .iter()
            .filter(|r| r.policy_error.is_some())
            .collect();
        let policies = (!unjudged.is_empty()).then(|| {
            let first = unjudged[0].policy_error.clone().unwrap_or_default();
            let count = unjudged.len();
            view! {
                <div class="banner banner-warn" data-testid="rollup-policies" role="alert">
                    <p>
                        {format!(
                            "Your Rego policies could not run on {} of {} plans; none of those can pass until they do. Mend the policy in the Rules tab of any plan, or remove the policies: the plans are judged again at once.",
                            count,
                            fleet.plans.len(),
                        )}
                    </p>
                    <pre class="fine rollup-policy-error">{visible(&first)}</pre>
                    <button class="button" data-testid="rollup-remove-policies" on:click=move |_| state.rules.policies.set(Vec::new())>
                        "Remove the Rego policies"
                    </button>
                </div>
            }
        });
        let judged_by = (!fleet.plans.is_empty() && open::set_has_plans() && unjudged.is_empty())
            .then(|| {
                let n = state.rules.policies.with_untracked(Vec::len);
                (n > 0).then(|| {
                    view! {
                        <p class="fine" data-testid="rollup-judged-by">
                            {format!(
                                "Every plan is judged by the rules and your {} Rego polic{}.",
                                n,
                                if n == 1 { "y" } else { "ies" }
                            )}
                        </p>
                    }
                })
            })
            .flatten();
        let redacted = (!fleet.plans.is_empty() && !open::set_has_plans()).then(|| {
            view! {
                <p class="fine" data-testid="rollup-redacted">
                    "A redacted roll-up: names, counts, addresses, actions and findings, no values. \
                     The plans themselves are not in this link."
                </p>
            }
        });
        let total = fleet.rows.len() + fleet.plans.len();
        let noun = match (plans_only, fleet.plans.is_empty()) {
            (true, _) => "plans",
            (false, true) => "workspaces",
            (false, false) => "rows",
        };
        let shown = {
            let fleet = fleet.clone();
            Memo::new(move |_| filter.with(|f| f.entries(&fleet)))
        };
        let hits = {
            let fleet = fleet.clone();
            move || {
                let query = filter.with(|f| f.search.clone());
                if fleet.plans.is_empty() || query.trim().is_empty() {
                    return None;
                }
                let hits = crate::fleet::plans::search_changes(&fleet.plans, &query);
                Some(search_hits(&fleet, hits, state))
            }
        };
        Some(view! {
            <section class="panel fleet-panel" data-testid="fleet">
                <div class="fleet-head">
                    <h2 class="fleet-title" data-testid="fleet-summary">
                        {title} {visible(&fleet.headline())}
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
                {share}
                {(!fleet.plans.is_empty() && open::set_has_plans()).then(|| view! { <super::set_since::SetSincePanel /> })}
                {verdict}
                {policies}
                {judged_by}
                {redacted}
                {problems}
                <div class="fleet-filters" role="group" aria-label="Filter the rows">
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
                        placeholder=if plans_only { "Search every plan: name, address, rule" } else { "Search: name, reason, resource, plan id" }
                        aria-label="Search the rows"
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
                        if n == total {
                            String::new()
                        } else {
                            format!("{n} of {total} {noun} shown")
                        }
                    }}
                </p>
                {hits}
                <ul class="fleet-list" data-testid="fleet-list" on:keydown=move_focus>
                    {move || {
                        // Only plans that changed since the last review, when asked.
                        let only = state.set_since_only.get();
                        let visible_rows: Vec<_> = shown
                            .get()
                            .into_iter()
                            .filter(|e| match e {
                                Entry::Plan(i) if only => super::set_since::changed_since(state, &fleet.plans[*i].name),
                                _ => true,
                            })
                            .collect();
                        if visible_rows.is_empty() {
                            return view! {
                                <li class="panel-empty" data-testid="fleet-none">"Nothing matches."</li>
                            }
                            .into_any();
                        }
                        visible_rows
                            .into_iter()
                            .map(|entry| match entry {
                                Entry::Workspace(i) => fleet_row(fleet.rows[i].clone(), expanded, state).into_any(),
                                Entry::Plan(i) => plan_row(fleet.plans[i].clone(), expanded, state).into_any(),
                            })
                            .collect_view()
                            .into_any()
                    }}
                </ul>
                {unclaimed}
            </section>
        })
    }
}

/// What sharing the set gave: (link with every plan, redacted roll-up link, comment, whether
/// the built-in pack stood in for the rules).
type Shared = Result<(String, String, String, bool), String>;

/// *Share…* for a set: the link that carries every plan, the redacted roll-up's link and ONE
/// pull-request comment for the whole set, each with a Copy button (`share::set`'s, as
/// `planlens link` and `summary --format markdown` make them).
fn share_panel(state: AppState) -> impl IntoView {
    let shared = RwSignal::new(None::<Shared>);
    let busy = RwSignal::new(false);
    let status = RwSignal::new(String::new());
    let start = move |_| {
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        shared.set(None);
        leptos::task::spawn_local(async move {
            let result = open::share_set(state).await;
            shared.set(Some(result));
            busy.set(false);
        });
    };
    let copy = move |text: String, what: &'static str| {
        leptos::task::spawn_local(async move {
            let done = super::share::copy_text(&text).await;
            status.set(if done {
                format!("Copied the {what}.")
            } else {
                format!("The browser refused to copy the {what}: select it and copy it yourself.")
            });
        });
    };
    view! {
        <div class="rollup-share">
            <button class="button" data-testid="rollup-share" disabled=move || busy.get() on:click=start>
                {move || if busy.get() { "Preparing…" } else { "Share the roll-up…" }}
            </button>
            {move || shared.get().map(|result| match result {
                Err(e) => view! { <p class="banner banner-danger" role="alert" data-testid="rollup-share-error">{e}</p> }.into_any(),
                Ok((full, redacted, markdown, fallback)) => {
                    let fits = full.len() <= crate::share::GITHUB_COMMENT_LIMIT;
                    let m = markdown.clone();
                    view! {
                        {link_section("full", "Link with every plan", "The plans are in the link, without their sensitive values; nothing is uploaded.", full, (!fits).then_some("Too long for a pull-request comment: the comment carries the redacted roll-up instead."), copy)}
                        {link_section("redacted", "Redacted roll-up", "Names, counts, addresses, actions and findings: no value.", redacted, None, copy)}
                        <section class="share-section" data-testid="rollup-share-markdown">
                            <h3>{format!("One pull-request comment for every plan ({} characters)", markdown.chars().count())}</h3>
                            {fallback.then(|| view! { <p class="banner banner-warn">"The rules have errors: the comment judges with the built-in pack."</p> })}
                            <button class="button" data-testid="rollup-copy-markdown" on:click=move |_| copy(m.clone(), "comment")>"Copy the comment"</button>
                            <textarea class="share-markdown" readonly rows="8" spellcheck="false" aria-label="The comment" data-testid="rollup-share-markdown-text" prop:value=markdown.clone()></textarea>
                        </section>
                    }
                    .into_any()
                }
            })}
            <p class="share-status" role="status" data-testid="rollup-share-status">{move || status.get()}</p>
        </div>
    }
}

/// One of the roll-up's two links (`key`: `full` or `redacted`): its length, what it carries,
/// the link and its Copy button, and a warning when there is one.
fn link_section(
    key: &'static str,
    title: &'static str,
    what: &'static str,
    link: String,
    warning: Option<&'static str>,
    copy: impl Fn(String, &'static str) + Copy + 'static,
) -> impl IntoView {
    let copied = link.clone();
    let noun = if key == "full" {
        "link"
    } else {
        "redacted link"
    };
    view! {
        <section class="share-section" data-testid=format!("rollup-share-{key}")>
            <h3>{format!("{title} ({} characters)", link.len())}</h3>
            <p class="fine">{what}</p>
            <textarea class="share-link" readonly rows="2" spellcheck="false" aria-label=title data-testid=format!("rollup-share-{key}-link") prop:value=link></textarea>
            <div class="share-row">
                <button class="button" data-testid=format!("rollup-copy-{key}") on:click=move |_| copy(copied.clone(), noun)>"Copy link"</button>
            </div>
            {warning.map(|w| view! { <p class="banner banner-warn">{w}</p> })}
        </section>
    }
}

/// Back to the roll-up from a row's plan.
pub fn back(state: AppState) {
    state.showing_fleet.set(true);
}

/// `"` and `\` escaped for a CSS attribute selector's quoted value.
fn css_escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// At most this many search hits are listed; the rest are counted.
const MAX_HITS: usize = 200;

/// Where the search's words are among every plan's changes: one line per change, with its plan's
/// name, opening that plan with the change selected.
fn search_hits(
    fleet: &crate::fleet::FleetIndex,
    hits: Vec<crate::fleet::plans::Hit>,
    state: AppState,
) -> impl IntoView + use<> {
    let count = hits.len();
    let plans_hit = {
        let mut p: Vec<usize> = hits.iter().map(|h| h.plan).collect();
        p.dedup();
        p.len()
    };
    let can_open = open::set_has_plans();
    let items = hits
        .into_iter()
        .take(MAX_HITS)
        .map(|h| {
            let row = &fleet.plans[h.plan];
            let change = &row.changes[h.change];
            let (member, address) = (row.member, change.address.clone());
            let label = crate::model::Action::from_key(&change.action).map_or(change.action.clone(), |a| a.label().to_string());
            view! {
                <li>
                    <button
                        class="rollup-hit"
                        data-testid="rollup-hit"
                        disabled=!can_open
                        on:click=move |_| {
                            remember_place(state, member);
                            open::open_member(state, member, Some(address.clone()));
                        }
                    >
                        <span class="rollup-hit-plan">{visible(&row.name)}</span>
                        <span class=format!("rollup-hit-action action-{}", change.action)>{label}</span>
                        <span class="addr">{visible(&change.address)}</span>
                    </button>
                </li>
            }
        })
        .collect_view();
    (count > 0).then(|| {
        view! {
            <div class="rollup-hits" data-testid="rollup-hits">
                <p class="fine">
                    {format!(
                        "{count} change{} in {plans_hit} plan{} match{}",
                        if count == 1 { "" } else { "s" },
                        if plans_hit == 1 { "" } else { "s" },
                        if count == 1 { "es" } else { "" }
                    )}
                    {(count > MAX_HITS).then(|| format!(" (the first {MAX_HITS} shown)"))}
                </p>
                <ul class="rollup-hit-list">{items}</ul>
            </div>
        }
    })
}

/// Remembers the row a plan was opened from and the page's scroll, for the way back.
fn remember_place(state: AppState, member: usize) {
    let id = state
        .fleet
        .with_untracked(|f| {
            f.as_ref().and_then(|f| {
                f.plans
                    .iter()
                    .find(|p| p.member == member)
                    .map(|p| p.name.clone())
            })
        })
        .unwrap_or_default();
    let scroll = window().scroll_y().unwrap_or(0.0);
    state.fleet_place.set_value(Some((id, scroll)));
}

/// One plan: its header (a button that opens the plan, or in a redacted roll-up shows what it
/// changes) with its name, what it needs, its summary, counts, verdict and findings.
fn plan_row(
    row: crate::fleet::PlanRow,
    expanded: RwSignal<Option<String>>,
    state: AppState,
) -> impl IntoView {
    let id = row.name.clone();
    let can_open = open::set_has_plans();
    let is_open = {
        let id = id.clone();
        move || expanded.with(|e| e.as_deref() == Some(id.as_str()))
    };
    let member = row.member;
    let click = {
        let id = id.clone();
        move |_| {
            if can_open {
                remember_place(state, member);
                open::open_member(state, member, None);
            } else {
                expanded.update(|e| {
                    *e = if e.as_deref() == Some(id.as_str()) {
                        None
                    } else {
                        Some(id.clone())
                    }
                });
            }
        }
    };
    let findings = row.finding_counts();
    let verdict = match (row.verdict, &row.policy_error) {
        (None, Some(error)) => Some(view! {
            <span class="rollup-verdict-chip verdict-unjudged" data-testid="rollup-row-verdict" title=visible(error)>
                "no verdict: policies failed"
            </span>
        }.into_any()),
        (Some(v), _) => Some(view! {
            <span class=format!("rollup-verdict-chip verdict-{}", v.key()) data-testid="rollup-row-verdict">{v.label()}</span>
        }.into_any()),
        (None, None) => None,
    };
    let drift = (!row.drift.is_empty()).then(|| format!("{} drifted", row.drift.len()));
    let meta: Vec<String> = [
        Some(row.short_counts()),
        drift,
        (!findings.is_empty()).then_some(findings),
        Some(row.kind.clone()),
    ]
    .into_iter()
    .flatten()
    .filter(|s| !s.is_empty())
    .collect();
    let details = {
        let row = row.clone();
        let is_open = is_open.clone();
        move || is_open().then(|| plan_details(&row))
    };
    view! {
        <li
            class=format!("fleet-row rollup-row fleet-row-{}", row.attention.key())
            data-testid="fleet-row"
            data-kind="plan"
            data-id=visible(&id)
            data-attention=row.attention.key()
        >
            <button
                class="fleet-row-head"
                data-testid="fleet-row-head"
                aria-expanded=move || (!can_open).then(|| is_open().to_string())
                title=if can_open { "Open this plan" } else { "Show what it changes" }
                on:click=click
            >
                <span class=format!("fleet-badge fleet-badge-{}", row.attention.key())>
                    {row.attention.label()}
                </span>
                <span class="fleet-id">
                    <span class="fleet-name" data-testid="rollup-name">{visible(&row.name)}</span>
                </span>
                <span class="fleet-ready" data-testid="rollup-summary">{visible(row.error.as_deref().unwrap_or(&row.summary))}</span>
                <span class="fleet-plan">{verdict}</span>
                <span class="fleet-meta" data-testid="rollup-meta">{visible(&meta.join(" · "))}</span>
                {super::set_since::row_since(state, row.name.clone())}
            </button>
            {details}
        </li>
    }
}

/// A plan's findings and destructive changes, in a redacted roll-up (whose plans cannot open).
fn plan_details(row: &crate::fleet::PlanRow) -> impl IntoView + use<> {
    let findings = row
        .findings
        .iter()
        .map(|f| {
            let on = f.address.as_deref().map(|a| format!(" {}", visible(a))).unwrap_or_default();
            view! { <li>{format!("{}: {}{on} — {}", f.severity.key(), visible(&f.rule), visible(&f.message))}</li> }
        })
        .collect_view();
    let changes = row
        .changes
        .iter()
        .filter(|c| c.is_destructive())
        .map(|c| view! { <li><span class="addr">{visible(&c.address)}</span> " " {c.action.clone()}</li> })
        .collect_view();
    view! {
        <div class="fleet-details" data-testid="fleet-details">
            <ul class="fleet-drifted">{findings}{changes}</ul>
        </div>
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

/// A chip's words: how many rows, and what they need ("1 with changes", not "1 changes").
fn chip_text(attention: Attention, n: usize) -> String {
    match attention {
        Attention::Changes | Attention::NoChanges | Attention::Destroys | Attention::Drifted => {
            format!("{n} with {}", attention.label())
        }
        _ => format!("{n} {}", attention.label()),
    }
}
