//! The rules' state: the user's rule file (kept in this browser's localStorage), rules a share
//! link brought, the environment label, and the evaluation of the open plan that follows from
//! them: evaluated by the open plan's session (`ui::backend::ask`, in its Web Worker), or, for a
//! redacted link, the findings it carries.
//!
//! `RulesState` is derived with memos from the loaded plan, the rule text and the label; each
//! evaluation is timed (`planlens:rules`). Rego policies go session → engine part
//! (`ui::backend::ask_part`) → session, and are kept in localStorage too.

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::load::link::LinkError;
use crate::model::findings::Evaluation;
use crate::policy::{PolicyFile, Shape};
use crate::rules::{RuleError, RuleSet, RuleSeverity, environment_labels};
use crate::ui::loaded::Loaded;
use crate::ui::timing::{mark, measure, now};

/// Where the user's rule file is kept in this browser.
const STORAGE_KEY: &str = "planlens:rules";
/// Where the user's Rego policies are kept in this browser (a JSON list of `{name, text}`).
const POLICIES_KEY: &str = "planlens:policies";
/// How long the Rego engine may take before its worker is stopped: the engine's own limit
/// (`policy::DEFAULT_TIME_LIMIT_MS`) plus time to read a large plan into it.
const POLICY_WORKER_LIMIT_MS: i32 = 20_000;

/// Where the Rego policies stand for the open plan.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum PolicyStatus {
    /// No policies, or no plan.
    #[default]
    Idle,
    /// Fetching the Rego engine (the first time only).
    LoadingEngine,
    /// Evaluating.
    Running,
    /// Evaluated: how each file was read, and how long it took (ms).
    Done {
        files: Vec<PolicyFileReport>,
        ms: f64,
    },
    /// The policies could not be evaluated (a compile error, the time limit, …): no verdict.
    Failed(String),
}

/// How one policy file was read, for the Rules tab.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyFileReport {
    /// The file's name.
    pub name: String,
    /// The input it was given (`None`: a test file, run only on request).
    pub shape: Option<Shape>,
    /// `v0` or `v1`.
    pub syntax: &'static str,
    /// Its package.
    pub package: String,
}

/// The parsed rule file: a rule set, or every error found (then nothing is evaluated).
#[derive(Clone)]
pub struct Parsed(pub Arc<Result<RuleSet, Vec<RuleError>>>);

impl PartialEq for Parsed {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// An evaluation the session gave for one open plan (by its `Arc` address).
#[derive(Clone)]
struct Answer {
    plan: usize,
    evaluation: Result<Evaluation, String>,
    ms: Option<f64>,
}

fn plan_key(loaded: &Arc<Loaded>) -> usize {
    Arc::as_ptr(loaded) as usize
}

/// The evaluation of the open plan, with per-row worst severities for list and graph marks.
pub struct Checked {
    /// Findings and verdict.
    pub evaluation: Evaluation,
    /// Per document row, the worst finding's severity.
    pub worst: Vec<Option<RuleSeverity>>,
    /// How long asking for the evaluation took (parsing the input and evaluating, in the
    /// worker, and the messages there and back), in milliseconds.
    /// `None` when the findings were made as the plan opened (or a link carried them).
    pub ms: Option<f64>,
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
    /// The user's Rego policies (kept in this browser's localStorage).
    pub policies: RwSignal<Vec<PolicyFile>>,
    /// One input shape for every policy instead of each file's own (`None`: from each package).
    pub policy_shape: RwSignal<Option<Shape>>,
    /// conftest namespaces, comma-separated ("" = `main`).
    pub namespaces: RwSignal<String>,
    /// Where the policies stand for the open plan.
    pub policy_status: RwSignal<PolicyStatus>,
    /// The Rego engine's last answer for the open plan (for share links and the comment).
    pub policy_answer: RwSignal<Option<String>>,
}

/// A rule file that came with a share link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkRules {
    /// As the link carries it (`rules=`), to carry it on unchanged.
    pub payload: String,
    /// The rule file.
    pub text: String,
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
        let policies = RwSignal::new(
            storage()
                .and_then(|s| s.get_item(POLICIES_KEY).ok().flatten())
                .and_then(|json| serde_json::from_str::<Vec<PolicyFile>>(&json).ok())
                .unwrap_or_default(),
        );
        let policy_shape = RwSignal::new(None);
        let namespaces = RwSignal::new(String::new());
        let policy_status = RwSignal::new(PolicyStatus::Idle);
        let policy_answer: RwSignal<Option<String>> = RwSignal::new(None);
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
        // The session evaluates the rules whenever the plan, the rules or the label change; the
        // newest answer for the open plan is the one shown (the worker answers in order).
        let answer: RwSignal<Option<Answer>, LocalStorage> = RwSignal::new_local(None);
        Effect::new(move |_| {
            let Some(loaded) = loaded.get() else {
                return;
            };
            let parsed = parsed.get();
            if parsed.0.is_err() || loaded.analysis.findings_carried() {
                return;
            }
            let rules = rule_text(from_link, text);
            let labels = environment.with(|e| environment_labels(e));
            let plan = plan_key(&loaded);
            let files = policies.get();
            let asked = PolicyAsk {
                shape: policy_shape.get(),
                namespaces: namespaces.with(|n| namespace_list(n)),
            };
            policy_answer.set(None);
            if !files.is_empty() {
                if loaded.doc.source.is_state() {
                    policy_status.set(PolicyStatus::Idle);
                } else {
                    leptos::task::spawn_local(async move {
                        let start = now();
                        mark("planlens:rules-start");
                        let evaluation = evaluate_with_policies(
                            rules,
                            labels,
                            files,
                            asked,
                            policy_status,
                            policy_answer,
                        )
                        .await;
                        measure("planlens:rules", "planlens:rules-start");
                        answer.set(Some(Answer {
                            plan,
                            evaluation,
                            ms: Some(now() - start),
                        }));
                    });
                    return;
                }
            } else {
                policy_status.set(PolicyStatus::Idle);
            }
            let (first_rules, first_labels, first) = &loaded.first_evaluation;
            if *first_rules == rules && *first_labels == labels {
                // What the session found when it opened the plan, with these rules and labels.
                answer.set(Some(Answer {
                    plan,
                    evaluation: first.clone(),
                    ms: None,
                }));
                return;
            }
            leptos::task::spawn_local(async move {
                let start = now();
                mark("planlens:rules-start");
                let evaluation = match crate::ui::backend::ask(crate::session::Request::Evaluate {
                    rules,
                    labels,
                    policies: None,
                })
                .await
                {
                    Ok(crate::session::Response::Evaluation(e)) => e,
                    Ok(crate::session::Response::Failed(e)) | Err(e) => Err(e),
                    Ok(_) => Err("the worker answered something else".to_string()),
                };
                measure("planlens:rules", "planlens:rules-start");
                answer.set(Some(Answer {
                    plan,
                    evaluation,
                    ms: Some(now() - start),
                }));
            });
        });
        let checked = Memo::new(move |_| {
            let loaded = loaded.get()?;
            let parsed = parsed.get();
            let (evaluation, ms) = if loaded.analysis.findings_carried() {
                // A redacted link carries its findings; they stand whatever the rules say.
                let builtin;
                let rules = match parsed.0.as_ref() {
                    Ok(rules) => rules,
                    Err(_) => {
                        builtin = RuleSet::builtin();
                        &builtin
                    }
                };
                let labels = environment.with(|e| environment_labels(e));
                (loaded.analysis.evaluate(&loaded.doc, rules, &labels), None)
            } else {
                if parsed.0.is_err() {
                    return None;
                }
                let answer = answer.get().filter(|a| a.plan == plan_key(&loaded))?;
                (answer.evaluation.ok()?, answer.ms)
            };
            let worst = evaluation.worst_by_resource(loaded.doc.rows.len());
            Some(CheckedRef(Arc::new(Checked {
                evaluation,
                worst,
                ms,
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
        Effect::new(move |_| {
            let json = policies.with(|p| serde_json::to_string(p).unwrap_or_default());
            if let Some(s) = storage() {
                let _ = if policies.with(Vec::is_empty) {
                    s.remove_item(POLICIES_KEY)
                } else {
                    s.set_item(POLICIES_KEY, &json)
                };
            }
        });
        RulesState {
            text,
            environment,
            parsed,
            checked,
            from_link,
            policies,
            policy_shape,
            namespaces,
            policy_status,
            policy_answer,
        }
    }

    /// Uses the rules a link carries (as its `rules=` payload) instead of the user's own.
    pub fn use_link_rules(&self, payload: &str) -> Result<(), LinkError> {
        let text = crate::load::link::decode(payload)?;
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
            .with_untracked(|t| (!t.trim().is_empty()).then(|| crate::load::link::encode(t)))
    }

    /// The rule file in use (a link's, or the user's), `None` for the built-in pack alone.
    pub fn text_in_use(&self) -> Option<String> {
        untrack(|| rule_text(self.from_link, self.text))
    }

    /// The labels rules are evaluated with.
    pub fn labels(&self) -> BTreeMap<String, String> {
        self.environment.with_untracked(|e| environment_labels(e))
    }

    /// The Rego policies a set's plans are judged with (untracked), `None` when there are none.
    pub fn set_policies(&self) -> Option<crate::session::set::SetPolicies> {
        untrack(|| {
            let files = self.policies.get();
            (!files.is_empty()).then(|| crate::session::set::SetPolicies {
                files,
                namespaces: self.namespaces.with(|n| namespace_list(n)),
                shape: self.policy_shape.get(),
            })
        })
    }

    /// What a set's rows were judged with: the rule file in use, the labels and the policies
    /// (tracked, so an effect sees them change).
    pub fn set_judging_key(&self) -> String {
        let rules = rule_text(self.from_link, self.text);
        let labels = self.environment.with(|e| environment_labels(e));
        let policies = (
            self.policies.get(),
            self.namespaces.get(),
            self.policy_shape.get(),
        );
        serde_json::to_string(&(rules, labels, policies)).unwrap_or_default()
    }

    /// The worst finding's severity on a row, for list and graph marks.
    pub fn worst(&self, row: usize) -> Option<RuleSeverity> {
        self.checked.with(|c| {
            c.as_ref()
                .and_then(|c| c.0.worst.get(row).copied().flatten())
        })
    }
}

/// What the user chose for the policies as a whole.
#[derive(Clone)]
struct PolicyAsk {
    shape: Option<Shape>,
    namespaces: Vec<String>,
}

/// "a, b" → `["a", "b"]`.
fn namespace_list(text: &str) -> Vec<String> {
    text.split([',', ' '])
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect()
}

/// The evaluation of the rules and of the Rego policies `files`: the session prepares the
/// engine's inputs, the engine (a lazily loaded part, in its own worker) evaluates, and the
/// session turns its answer into findings beside the rules'. `status` follows along.
async fn evaluate_with_policies(
    rules: Option<String>,
    labels: BTreeMap<String, String>,
    files: Vec<PolicyFile>,
    asked: PolicyAsk,
    status: RwSignal<PolicyStatus>,
    kept: RwSignal<Option<String>>,
) -> Result<Evaluation, String> {
    use crate::session::{Request, Response};
    let start = now();
    mark("planlens:policies-start");
    status.set(PolicyStatus::Running);
    let failed = |message: String| {
        status.set(PolicyStatus::Failed(message.clone()));
        Err(message)
    };
    let (request, shapes, inputs) = match crate::ui::backend::policy_inputs(Request::PolicyInputs {
        policies: files,
        labels: labels.clone(),
        namespaces: asked.namespaces,
        shape: asked.shape,
    })
    .await
    {
        Ok(prepared) => prepared,
        Err(e) => return failed(e),
    };
    let buffers = js_sys::Array::new();
    for input in inputs.iter() {
        if let Some(bytes) = input.dyn_ref::<js_sys::Uint8Array>() {
            buffers.push(&bytes.buffer());
        }
    }
    let answer = crate::ui::backend::ask_part(
        "rego",
        &[
            ("task", "run".into()),
            ("request", request.into()),
            ("inputs", inputs.into()),
        ],
        &buffers,
        POLICY_WORKER_LIMIT_MS,
        move |loading| {
            status.set(if loading {
                PolicyStatus::LoadingEngine
            } else {
                PolicyStatus::Running
            })
        },
    )
    .await;
    let answer = match answer {
        Ok(answer) => answer,
        Err(e) => return failed(e),
    };
    // How each file was read, for the tab (the session reads the same answer for findings).
    let reports = match crate::policy::read_answer(&answer) {
        Ok(outcome) => {
            // Where the engine's time went, for scripts/bench.mjs.
            if let Some(t) = outcome.timings {
                crate::ui::timing::record("planlens:policy-compile", t.compile_ms);
                crate::ui::timing::record("planlens:policy-input", t.input_ms);
                crate::ui::timing::record("planlens:policy-eval", t.eval_ms);
            }
            outcome
                .files
                .iter()
                .zip(&shapes)
                .map(|(f, shape)| PolicyFileReport {
                    name: f.name.clone(),
                    shape: *shape,
                    syntax: f.syntax.key(),
                    package: f.package.clone(),
                })
                .collect()
        }
        Err(errors) => {
            return failed(
                errors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
        }
    };
    let evaluation = match crate::ui::backend::ask(Request::Evaluate {
        rules,
        labels,
        policies: Some(answer.clone()),
    })
    .await
    {
        Ok(Response::Evaluation(e)) => e,
        Ok(Response::Failed(e)) | Err(e) => Err(e),
        Ok(_) => Err("the worker answered something else".to_string()),
    };
    measure("planlens:policies", "planlens:policies-start");
    match &evaluation {
        Ok(_) => {
            kept.set(Some(answer));
            status.set(PolicyStatus::Done {
                files: reports,
                ms: now() - start,
            })
        }
        Err(e) => status.set(PolicyStatus::Failed(e.clone())),
    }
    evaluation
}

/// The rule file in use: a link's, else the user's unless empty; `None` for the built-in pack.
fn rule_text(from_link: RwSignal<Option<LinkRules>>, text: RwSignal<String>) -> Option<String> {
    from_link.with(|l| match l {
        Some(l) => Some(l.text.clone()),
        None => text.with(|t| (!t.trim().is_empty()).then(|| t.clone())),
    })
}

/// True when this browser keeps rules of its own, which judge a link that carries none, or Rego
/// policies, which judge every plan: a share link's first paint then leaves the verdict to the app.
pub fn judged_locally(link_has_rules: bool) -> bool {
    storage().is_some_and(|s| {
        let kept = |key| {
            s.get_item(key)
                .ok()
                .flatten()
                .is_some_and(|v| !v.trim().is_empty())
        };
        (!link_has_rules && kept(STORAGE_KEY)) || kept(POLICIES_KEY)
    })
}

fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}
