//! The Rules tab: the verdict of the guardrail rules on the open plan, findings linked to their
//! resources, and the editor for the team's own rules (kept in localStorage, importable and
//! exportable). The rules are parsed and evaluated by the core (`rules::evaluate`), the same
//! function the CLI's `planlens check` calls.
//!
//! Findings are grouped by rule with counts, filtered by severity, rule and text, long groups paged
//! with *Show more*, and linked to the list and the graph. The TOML editor re-evaluates after a
//! pause (debounced); the rule file imports and exports; the environment label is set here.

use std::collections::{HashMap, HashSet};

use leptos::prelude::*;
use wasm_bindgen::JsCast;

pub mod policies;
mod secret_names;
mod state;

pub use state::judged_locally;

pub use state::RulesState;

use super::graph::download;
use super::{AppState, Tab};
use crate::model::text::{visible, visible_lines};
use crate::rules::{BUILTIN_TOML, Finding, RuleSeverity};

/// How long typing pauses before the rules are parsed and evaluated again.
const DEBOUNCE_MS: u64 = 250;

/// A rule file to start from: one rule of each kind, commented.
const EXAMPLE: &str = r#"# Your team's rules, checked together with the built-in pack.
# Format: see the README ("Guardrail rules"). Set include_builtin = false to run only these.

[[rule]]
id = "no-public-buckets"
severity = "deny"
type = "aws_s3_bucket_acl"
actions = ["create", "update"]
message = "Bucket ACL {address} is {after.acl}"

[[rule.attribute]]
path = "after.acl"
in = ["public-read", "public-read-write"]

[[rule]]
id = "many-changes"
severity = "warn"
actions = ["create", "update", "delete"]
count = { gt = 50 }
message = "{count} resources change in one plan"
"#;

/// The verdict badge (summary strip and Rules tab).
#[component]
pub fn VerdictBadge() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        // The words are the core's, as on a link's first paint.
        use crate::session::glance::VerdictBadge as Badge;
        let badge = match (state.rules.checked.get(), state.rules.parsed.get()) {
            // A state gets no verdict at all: no badge (the summary and the Rules tab say why).
            (Some(c), _) => Badge::of(&c.0.evaluation)?,
            (None, p) if p.0.is_err() => Badge::error("rules have errors"),
            (None, _)
                if matches!(
                    state.rules.policy_status.get(),
                    state::PolicyStatus::Failed(_)
                ) =>
            {
                Badge::error("policies have errors")
            }
            (None, _) => return None,
        };
        let key = badge.key;
        Some(view! {
            <button
                class=format!("verdict verdict-{key}")
                data-testid="verdict"
                data-verdict=key
                title=badge.title
                on:click=move |_| state.tab.set(Tab::Rules)
            >
                {badge.label}
            </button>
        })
    }
}

/// The Rules tab.
#[component]
pub fn RulesPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let rs = state.rules;
    // A redacted link carries its findings; nothing here can evaluate it again.
    let redacted = move || {
        state
            .loaded
            .with(|l| l.as_ref().is_some_and(|l| l.doc.values_dropped()))
    };
    view! {
        <section class="panel rules-panel" data-testid="rules-panel">
            <div class="rules-head">
                <VerdictBadge />
                <span class="fine" data-testid="rules-counts">
                    {move || rs.checked.get().map(|c| {
                        if c.0.evaluation.planning.is_state() {
                            return "No rules ran: rules judge planned changes, and a state has none.".to_string();
                        }
                        let t = c.0.evaluation.tally();
                        let when = match c.0.ms {
                            Some(ms) => format!("evaluated in {ms:.1} ms"),
                            None => "evaluated as the plan opened".to_string(),
                        };
                        format!(
                            "{}: {} deny · {} warn · {} info — {} {when}",
                            t.findings(),
                            t.deny,
                            t.warn,
                            t.info,
                            t.rules(),
                        )
                    })}
                </span>
                <Show when=move || !redacted()>
                <label class="env-label">
                    "environment "
                    <input
                        type="text"
                        data-testid="rules-environment"
                        spellcheck="false"
                        placeholder=move || state.loaded.with(|l| {
                            match l.as_ref().and_then(|l| l.environment.as_deref()) {
                                Some(v) => format!("from the plan: {v}"),
                                None => "not set (counts as not prod)".to_string(),
                            }
                        })
                        prop:value=move || rs.environment.get()
                        on:input=move |ev| rs.environment.set(event_target_value(&ev))
                    />
                </label>
                </Show>
            </div>
            {move || rs.checked.get().and_then(|c| {
                let failed = c.0.evaluation.planning.failed();
                let class = match &c.0.evaluation.planning {
                    _ if failed => "banner banner-danger",
                    crate::model::summary::Planning::State => "banner banner-info",
                    _ => "banner banner-warn",
                };
                c.0.evaluation.planning.sentence().map(|sentence| view! {
                    <p
                        class=class
                        data-testid="rules-planning"
                    >
                        {visible(&sentence)}
                        {failed.then(|| {
                            let tool = state.loaded.with_untracked(|l| {
                                l.as_ref().map_or("Terraform", |l| crate::model::summary::Tool::of(&l.doc).name())
                            });
                            format!(" The findings below are about the partial plan {tool} made before the error.")
                        })}
                    </p>
                })
            })}
            {move || redacted().then(|| view! {
                <p class="banner banner-info" data-testid="rules-redacted">
                    "This is a redacted link: these are the findings made when it was shared. Rules cannot run again here, because the plan's values were left out."
                </p>
            })}
            {move || rs.from_link.with(Option::is_some).then(|| view! {
                <div class="banner banner-info" data-testid="rules-from-link">
                    "These rules came with the link you opened. Your own rules are kept, unchanged. "
                    <button class="link-button" data-testid="rules-keep-link" on:click=move |_| {
                        if let Some(l) = rs.from_link.get_untracked() {
                            rs.text.set(l.text);
                        }
                        rs.forget_link_rules();
                    }>"Keep these as my rules"</button>
                    " · "
                    <button class="link-button" data-testid="rules-use-mine" on:click=move |_| rs.forget_link_rules()>
                        "Use my rules"
                    </button>
                </div>
            })}
            <div class="rules-workspace">
                <Findings />
                {move || match rs.from_link.get() {
                    // A redacted plan cannot be evaluated: no editor to suggest otherwise.
                    _ if redacted() => ().into_any(),
                    Some(l) => view! {
                        <div class="rule-editor">
                            <pre class="link-rules" data-testid="link-rules">{visible_lines(&l.text)}</pre>
                        </div>
                    }.into_any(),
                    None => view! { <RuleEditor /> }.into_any(),
                }}
            </div>
            // Policies judge plans with their values: not a redacted link, not a state.
            <Show when=move || {
                !redacted() && !state.loaded.with(|l| l.as_ref().is_some_and(|l| l.doc.source.is_state()))
            }>
                <policies::Policies />
            </Show>
            <Show when=move || !redacted()>
                <secret_names::MaskSettings />
            </Show>
        </section>
    }
}

/// Findings shown per group before "Show more": enough for any ordinary plan, few enough that
/// thousands of findings render at once.
const GROUP_PAGE: usize = 100;

/// Findings grouped by rule (plan-level first, as evaluated), with counts, filters by severity,
/// rule and text, and each finding linked to its resource.
#[component]
fn Findings() -> impl IntoView {
    let state = expect_context::<AppState>();
    let severity: RwSignal<Option<RuleSeverity>> = RwSignal::new(None);
    let rule: RwSignal<String> = RwSignal::new(String::new());
    let query: RwSignal<String> = RwSignal::new(String::new());
    // Per rule: how many findings are shown (absent: one page), and whether the group is folded.
    let shown: RwSignal<HashMap<String, usize>> = RwSignal::new(HashMap::new());
    let folded: RwSignal<HashSet<String>> = RwSignal::new(HashSet::new());
    move || {
        let Some(c) = state.rules.checked.get() else {
            return view! {
                <div class="findings" data-testid="findings">
                    <p class="banner banner-danger" data-testid="rules-not-evaluated">
                        "The rules were not evaluated: fix the errors in your rules first. No verdict is given until they parse."
                    </p>
                </div>
            }
            .into_any();
        };
        let evaluation = &c.0.evaluation;
        if evaluation.findings.is_empty() {
            let text = if evaluation.planning.is_state() {
                "No findings: no rule ran on this state."
            } else {
                "No findings: every rule passes."
            };
            return view! {
                <div class="findings" data-testid="findings">
                    <p class="panel-empty">{text}</p>
                </div>
            }
            .into_any();
        }
        let loaded = state.loaded.get_untracked();
        let address = move |row: usize| {
            loaded
                .as_ref()
                .and_then(|l| {
                    l.doc
                        .rows
                        .get(row)
                        .map(|r| l.doc.change(r).address.to_string())
                })
                .unwrap_or_default()
        };
        let tally = evaluation.tally();
        let all_groups = evaluation.groups(|_| true);
        let (want_severity, want_rule) = (severity.get(), rule.get());
        let needle = query.get().trim().to_lowercase();
        let groups = evaluation.groups(|f| {
            want_severity.is_none_or(|s| f.severity == s)
                && (want_rule.is_empty() || f.rule_id == want_rule)
                && (needle.is_empty()
                    || f.message.to_lowercase().contains(&needle)
                    || f.rule_id.to_lowercase().contains(&needle)
                    || f.resource
                        .is_some_and(|r| address(r).to_lowercase().contains(&needle)))
        });
        let matching: usize = groups.iter().map(|g| g.findings.len()).sum();

        let severity_button = move |key: Option<RuleSeverity>, n: usize| {
            let label = match key {
                None => format!("All {n}"),
                Some(s) => format!("{n} {}", s.key()),
            };
            view! {
                <button
                    class="chip-button"
                    data-testid=format!("findings-sev-{}", key.map_or("all", RuleSeverity::key))
                    aria-pressed=move || (severity.get() == key).to_string()
                    disabled=n == 0 && key.is_some()
                    on:click=move |_| severity.set(key)
                >
                    {label}
                </button>
            }
        };
        let rule_options = all_groups
            .iter()
            .map(|g| {
                let id = g.rule_id.to_string();
                let selected = id == want_rule;
                view! {
                    <option value=id.clone() selected=selected>
                        {format!("{} ({})", id, g.findings.len())}
                    </option>
                }
            })
            .collect_view();
        let filter_bar = view! {
            <div class="findings-filter" role="group" aria-label="Filter findings">
                {severity_button(None, tally.total())}
                {severity_button(Some(RuleSeverity::Deny), tally.deny)}
                {severity_button(Some(RuleSeverity::Warn), tally.warn)}
                {severity_button(Some(RuleSeverity::Info), tally.info)}
                <select
                    data-testid="findings-rule"
                    aria-label="Rule"
                    on:change=move |ev| rule.set(event_target_value(&ev))
                >
                    <option value="" selected=want_rule.is_empty()>"All rules"</option>
                    {rule_options}
                </select>
                <input
                    type="search"
                    data-testid="findings-search"
                    aria-label="Search findings"
                    placeholder="Search messages, rules, addresses"
                    spellcheck="false"
                    prop:value=move || query.get_untracked()
                    on:input=move |ev| query.set(event_target_value(&ev))
                />
            </div>
        };
        let filtered = matching != tally.total();
        let status = filtered.then(|| {
            view! {
                <p class="fine findings-shown" data-testid="findings-shown">
                    {format!("{matching} of {} match", tally.findings())}
                    " "
                    <button class="link-button" data-testid="findings-reset" on:click=move |_| {
                        severity.set(None);
                        rule.set(String::new());
                        query.set(String::new());
                    }>"Show all"</button>
                </p>
            }
        });

        let groups_view = groups
            .into_iter()
            .map(|g| {
                let id = g.rule_id.to_string();
                let sev = g.severity.key();
                let total = g.findings.len();
                let limit = shown.with(|m| m.get(&id).copied().unwrap_or(GROUP_PAGE));
                let is_folded = folded.with(|f| f.contains(&id));
                let head_id = id.clone();
                let head = view! {
                    <button
                        class="finding-group-head"
                        data-testid="finding-group-head"
                        aria-expanded=(!is_folded).to_string()
                        on:click=move |_| folded.update(|f| {
                            if !f.remove(&head_id) {
                                f.insert(head_id.clone());
                            }
                        })
                    >
                        <span class="fold">{if is_folded { "▸" } else { "▾" }}</span>
                        <span class=format!("sev-badge sev-{sev}")>{sev}</span>
                        <span class="finding-group-rule">{visible(&id)}</span>
                        <span class="finding-group-count" data-testid="finding-group-count">
                            {format!("— {total} {sev}")}
                        </span>
                        {g.plan_level.then(|| view! { <span class="chip chip-muted">"whole plan"</span> })}
                    </button>
                };
                let items = (!is_folded).then(|| {
                    let list = g
                        .findings
                        .iter()
                        .take(limit)
                        .map(|f| finding_item(state, f, f.resource.map(&address).unwrap_or_default()))
                        .collect_view();
                    let more_id = id.clone();
                    let more = (total > limit).then(|| {
                        let next = (total - limit).min(GROUP_PAGE);
                        view! {
                            <li class="findings-more">
                                <button
                                    class="link-button"
                                    data-testid="findings-more"
                                    on:click=move |_| shown.update(|m| {
                                        m.insert(more_id.clone(), limit + GROUP_PAGE);
                                    })
                                >
                                    {format!("Show {next} more ({} not shown)", total - limit)}
                                </button>
                            </li>
                        }
                    });
                    view! { <ul class="findings">{list}{more}</ul> }
                });
                view! {
                    <section
                        class=format!("finding-group sev-{sev}")
                        data-testid="finding-group"
                        data-rule=id.clone()
                        data-count=total
                    >
                        {head}
                        {items}
                    </section>
                }
            })
            .collect_view();
        view! {
            <div class="findings-pane" data-testid="findings">
                {filter_bar}
                {status}
                {(matching == 0).then(|| view! { <p class="panel-empty">"No finding matches."</p> })}
                {groups_view}
            </div>
        }
        .into_any()
    }
}

/// One finding: its severity, rule and message; a click opens its resource in the list, the
/// "graph" button in the graph.
fn finding_item(state: AppState, f: &Finding, addr: String) -> impl IntoView + use<> {
    let row = f.resource.map(|r| r as u32);
    let sev = f.severity.key();
    let go = move |tab: Tab| {
        if row.is_some() {
            state.select(row);
            state.tab.set(tab);
        }
    };
    view! {
        <li
            class=format!("finding sev-{sev}")
            class:linked=row.is_some()
            data-testid="finding"
            data-rule=f.rule_id.clone()
            data-address=addr
            role=row.map(|_| "button")
            tabindex=row.map(|_| "0")
            on:click=move |_| go(Tab::Resources)
            on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Enter" { go(Tab::Resources) }
        >
            <span class=format!("sev-badge sev-{sev}")>{sev}</span>
            <span class="finding-rule">{visible(&f.rule_id)}</span>
            <span class="finding-message">{visible(&f.message)}</span>
            {row.map(|_| view! {
                <button
                    class="link-button finding-graph"
                    data-testid="finding-graph"
                    on:click=move |ev| { ev.stop_propagation(); go(Tab::Graph); }
                >
                    "graph"
                </button>
            })}
        </li>
    }
}

/// The user's rule file: edited live, errors with line and column, import and export.
#[component]
fn RuleEditor() -> impl IntoView {
    let state = expect_context::<AppState>();
    let rs = state.rules;
    let draft = RwSignal::new(rs.text.get_untracked());
    let textarea = NodeRef::<leptos::html::Textarea>::new();
    let pending: StoredValue<Option<TimeoutHandle>, LocalStorage> = StoredValue::new_local(None);
    // The text goes with the timer, not read from the editor when it fires: the editor may be
    // gone by then (the user went back to the roll-up), and the edit must still count.
    let commit_later = move || {
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let text = draft.get_untracked();
        let h = set_timeout_with_handle(
            move || rs.text.set(text),
            std::time::Duration::from_millis(DEBOUNCE_MS),
        )
        .ok();
        pending.set_value(h);
    };
    let set_now = move |t: String| {
        draft.set(t.clone());
        rs.text.set(t);
    };
    let jump_to = move |line: usize, column: usize| {
        let Some(ta) = textarea.get() else { return };
        let text = draft.get_untracked();
        let offset: usize = text
            .split_inclusive('\n')
            .take(line.saturating_sub(1))
            .map(|l| l.encode_utf16().count())
            .sum::<usize>()
            + column.saturating_sub(1);
        let _ = ta.focus();
        let _ = ta.set_selection_range(offset as u32, offset as u32 + 1);
    };
    let errors = move || {
        match rs.parsed.get().0.as_ref() {
        Ok(set) => {
            let builtin = set.rules().iter().filter(|r| r.is_builtin()).count();
            let own = set.rules().len() - builtin;
            view! {
                <p class="fine" data-testid="rules-ok">
                    {format!(
                        "{} {}: {builtin} built-in{}, {own} yours.",
                        set.rules().len(),
                        if set.rules().len() == 1 { "rule" } else { "rules" },
                        if set.includes_builtin() { "" } else { " (turned off)" }
                    )}
                </p>
            }
            .into_any()
        }
        Err(errors) => view! {
            <ul class="rule-errors" data-testid="rule-errors">
                {errors
                    .iter()
                    .map(|e| {
                        let (line, column) = (e.line, e.column);
                        view! {
                            <li>
                                <button class="link-button" data-testid="rule-error" on:click=move |_| jump_to(line, column)>
                                    {e.to_string()}
                                </button>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        }
        .into_any(),
    }
    };
    let import = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        input.set_value("");
        leptos::task::spawn_local(async move {
            let text = wasm_bindgen_futures::JsFuture::from(file.text()).await;
            if let Some(t) = text.ok().and_then(|v| v.as_string()) {
                set_now(t);
            }
        });
    };
    view! {
        <div class="rule-editor">
            <div class="rule-editor-bar">
                <h3>"Your rules (TOML)"</h3>
                <label class="button button-quiet">
                    "Import…"
                    <input type="file" accept=".toml,.txt,text/plain" class="visually-hidden" data-testid="rules-import" on:change=import />
                </label>
                <button class="button button-quiet" data-testid="rules-export" on:click=move |_| download(&draft.get_untracked(), "application/toml", "planlens-rules.toml")>
                    "Export"
                </button>
                <button class="button button-quiet" data-testid="rules-example" on:click=move |_| set_now(EXAMPLE.to_string())>
                    "Example"
                </button>
                <button class="button button-quiet" data-testid="rules-clear" on:click=move |_| set_now(String::new())>
                    "Clear"
                </button>
            </div>
            <textarea
                node_ref=textarea
                class="rule-text"
                data-testid="rules-text"
                aria-label="Your rules (TOML)"
                spellcheck="false"
                rows="16"
                placeholder="Empty: the built-in pack alone. Add [[rule]] entries here, or Import a file."
                prop:value=move || draft.get()
                on:input=move |ev| {
                    draft.set(event_target_value(&ev));
                    commit_later();
                }
                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                    // Tab indents instead of leaving the editor; Esc leaves it.
                    if ev.key() == "Tab" && !ev.shift_key() {
                        ev.prevent_default();
                        if let Some(ta) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok()) {
                            let _ = ta.set_range_text("  ");
                            let end = ta.selection_end().ok().flatten().unwrap_or(0) + 2;
                            let _ = ta.set_selection_range(end, end);
                            draft.set(ta.value());
                            commit_later();
                        }
                    }
                }
            ></textarea>
            {errors}
            <details class="builtin-pack">
                <summary>"The built-in pack"</summary>
                <pre data-testid="builtin-pack">{BUILTIN_TOML}</pre>
            </details>
        </div>
    }
}
