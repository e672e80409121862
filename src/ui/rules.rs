//! The Rules tab: the verdict of the guardrail rules on the open plan, findings linked to their
//! resources, and the editor for the team's own rules (kept in localStorage, importable and
//! exportable). The rules are parsed and evaluated by the core (`rules::evaluate`), the same
//! function the CLI's `planlens check` calls.

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::graph::{download, mark, measure, now};
use super::{AppState, Loaded, Tab};
use crate::model::text::{visible, visible_lines};
use crate::rules::{BUILTIN_TOML, Evaluation, RuleError, RuleSet, RuleSeverity, evaluate_document};
use crate::share::link::LinkError;

/// Where the user's rule file is kept in this browser.
const STORAGE_KEY: &str = "planlens:rules";

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

/// The parsed rule file: a rule set, or every error found (then nothing is evaluated).
#[derive(Clone)]
pub struct Parsed(pub Arc<Result<RuleSet, Vec<RuleError>>>);

impl PartialEq for Parsed {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The evaluation of the open plan, with per-row worst severities for list and graph marks.
pub struct Checked {
    /// Findings and verdict.
    pub evaluation: Evaluation,
    /// Per document row, the worst finding's severity.
    pub worst: Vec<Option<RuleSeverity>>,
    /// How long parsing the input and evaluating took, in milliseconds.
    pub ms: f64,
}

/// A shared evaluation, compared by identity.
#[derive(Clone)]
pub struct CheckedRef(pub Arc<Checked>);

impl PartialEq for CheckedRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The rules' state: the user's rule text, the environment label, and what follows from them.
#[derive(Clone, Copy)]
pub struct RulesState {
    /// The user's rule file (empty: the built-in pack alone).
    pub text: RwSignal<String>,
    /// The `environment` label the user set for this plan ("" = not set: the plan's variable).
    pub environment: RwSignal<String>,
    /// The parsed rule set.
    pub parsed: Memo<Parsed>,
    /// The evaluation of the open plan; `None` without a plan or when the rules have errors.
    pub checked: Memo<Option<CheckedRef>>,
    /// Rules that came with a share link; used instead of the user's own (which stay stored,
    /// untouched) until the user decides.
    pub from_link: RwSignal<Option<LinkRules>>,
}

/// A rule file that came with a share link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkRules {
    /// As the link carries it (`rules=`), to carry it on unchanged.
    pub payload: String,
    /// The rule file.
    pub text: String,
}

/// The labels rules are evaluated with, from the `environment` field ("" = not set).
fn labels_of(environment: &str) -> BTreeMap<String, String> {
    let e = environment.trim();
    if e.is_empty() {
        BTreeMap::new()
    } else {
        BTreeMap::from([("environment".to_string(), e.to_string())])
    }
}

impl RulesState {
    /// Creates the state, reading the user's rules from localStorage.
    pub fn new(loaded: RwSignal<Option<Arc<Loaded>>, LocalStorage>) -> Self {
        let stored = storage()
            .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
            .unwrap_or_default();
        let text = RwSignal::new(stored);
        let environment = RwSignal::new(String::new());
        let from_link: RwSignal<Option<LinkRules>> = RwSignal::new(None);
        let parsed = Memo::new(move |_| {
            let parse = |t: &String| {
                if t.trim().is_empty() {
                    Ok(RuleSet::builtin())
                } else {
                    RuleSet::parse(t)
                }
            };
            let parsed = from_link.with(|l| match l {
                Some(l) => parse(&l.text),
                None => text.with(parse),
            });
            Parsed(Arc::new(parsed))
        });
        let checked = Memo::new(move |_| {
            let loaded = loaded.get()?;
            let parsed = parsed.get();
            // A redacted link carries its findings; they stand whatever the rules say.
            let builtin;
            let rules = match parsed.0.as_ref() {
                Ok(rules) => rules,
                Err(_) if loaded.doc.redacted.is_some() => {
                    builtin = RuleSet::builtin();
                    &builtin
                }
                Err(_) => return None,
            };
            let labels = environment.with(|e| labels_of(e));
            let start = now();
            mark("planlens:rules-start");
            let evaluation = evaluate_document(&loaded.doc, &loaded.drift, rules, &labels);
            measure("planlens:rules", "planlens:rules-start");
            let worst = evaluation.worst_by_resource(loaded.doc.rows.len());
            Some(CheckedRef(Arc::new(Checked {
                evaluation,
                worst,
                ms: now() - start,
            })))
        });
        // Keep the user's rules across visits (this browser only; never sent anywhere).
        Effect::new(move |_| {
            let t = text.get();
            if let Some(s) = storage() {
                let _ = if t.trim().is_empty() {
                    s.remove_item(STORAGE_KEY)
                } else {
                    s.set_item(STORAGE_KEY, &t)
                };
            }
        });
        RulesState {
            text,
            environment,
            parsed,
            checked,
            from_link,
        }
    }

    /// Uses the rules a link carries (as its `rules=` payload) instead of the user's own.
    pub fn use_link_rules(&self, payload: &str) -> Result<(), LinkError> {
        let text = crate::share::link::decode(payload)?;
        self.from_link.set(Some(LinkRules {
            payload: payload.to_string(),
            text,
        }));
        Ok(())
    }

    /// Goes back to the user's own rules.
    pub fn forget_link_rules(&self) {
        self.from_link.set(None);
    }

    /// What a share link should carry: the rules in use, unless they are the built-in pack.
    pub fn payload_for_link(&self) -> Option<String> {
        if let Some(l) = self.from_link.get_untracked() {
            return Some(l.payload);
        }
        self.text
            .with_untracked(|t| (!t.trim().is_empty()).then(|| crate::share::link::encode(t)))
    }

    /// The labels rules are evaluated with.
    pub fn labels(&self) -> BTreeMap<String, String> {
        self.environment.with_untracked(|e| labels_of(e))
    }

    /// The worst finding's severity on a row, for list and graph marks.
    pub fn worst(&self, row: usize) -> Option<RuleSeverity> {
        self.checked.with(|c| {
            c.as_ref()
                .and_then(|c| c.0.worst.get(row).copied().flatten())
        })
    }
}

fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

/// The plan's own `environment` (or `env`) variable, when it is a string.
fn plan_environment(loaded: &Loaded) -> Option<String> {
    let vars = &loaded.doc.plan().variables;
    ["environment", "env"].iter().find_map(|k| {
        let raw = vars.get(*k)?.value?;
        serde_json::from_str::<String>(raw.get()).ok()
    })
}

/// The verdict badge (summary strip and Rules tab).
#[component]
pub fn VerdictBadge() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        let (key, label) = match (state.rules.checked.get(), state.rules.parsed.get()) {
            (Some(c), _) => (
                c.0.evaluation.verdict.key(),
                c.0.evaluation.verdict.label().to_string(),
            ),
            (None, p) if p.0.is_err() => ("error", "rules have errors".to_string()),
            (None, _) => return None,
        };
        Some(view! {
            <button
                class=format!("verdict verdict-{key}")
                data-testid="verdict"
                data-verdict=key
                title="Guardrail rules: open the Rules tab"
                on:click=move |_| state.tab.set(Tab::Rules)
            >
                {label}
            </button>
        })
    }
}

/// The Rules tab.
#[component]
pub fn RulesPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let rs = state.rules;
    // A redacted plan carries its findings; nothing here can evaluate it again.
    let redacted = move || {
        state
            .loaded
            .with(|l| l.as_ref().is_some_and(|l| l.doc.redacted.is_some()))
    };
    view! {
        <section class="panel rules-panel" data-testid="rules-panel">
            <div class="rules-head">
                <VerdictBadge />
                <span class="fine" data-testid="rules-counts">
                    {move || rs.checked.get().map(|c| {
                        let e = &c.0.evaluation;
                        format!(
                            "{} deny · {} warn · {} info — {} rules evaluated in {:.1} ms",
                            e.count(RuleSeverity::Deny),
                            e.count(RuleSeverity::Warn),
                            e.count(RuleSeverity::Info),
                            e.rules_run,
                            c.0.ms
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
                            match l.as_ref().and_then(|l| plan_environment(l)) {
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
        </section>
    }
}

/// Findings, each linked to its resource.
#[component]
fn Findings() -> impl IntoView {
    let state = expect_context::<AppState>();
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
        if c.0.evaluation.findings.is_empty() {
            return view! {
                <div class="findings" data-testid="findings">
                    <p class="panel-empty">"No findings: every rule passes."</p>
                </div>
            }
            .into_any();
        }
        let items = c
            .0
            .evaluation
            .findings
            .iter()
            .map(|f| {
                let row = f.resource.map(|r| r as u32);
                let sev = f.severity.key();
                let addr = f.resource.map(&address).unwrap_or_default();
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
                        <span class="finding-rule">{f.rule_id.clone()}</span>
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
            })
            .collect_view();
        view! { <ul class="findings" data-testid="findings">{items}</ul> }.into_any()
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
    let commit_later = move || {
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let h = set_timeout_with_handle(
            move || rs.text.set(draft.get_untracked()),
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
