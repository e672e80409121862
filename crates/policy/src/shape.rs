//! The input a policy is written for, and that input's text built around the plan's.
//!
//! | shape | chosen when | `input` | rules read |
//! |---|---|---|---|
//! | conftest | the package is a namespace (`main` unless `--namespace`) | the plan | `deny`, `violation`, `warn` and `deny_*`, `violation_*`, `warn_*` in the namespaces |
//! | Spacelift | `package spacelift` | `{"terraform": plan, "spacelift": {"stack": {"labels": […]}, "run": {…}}}` | `deny`, `warn` of `spacelift` |
//! | Scalr | the file reads `input.tfplan` or `input.tfrun` | `{"tfplan": plan, "tfrun": {…}}` | `deny`, `violation`, `warn` of its package |
//! | OPA | any other package | the plan (as `opa eval -i plan.json`) | `deny`, `violation`, `warn` of its package |
//!
//! The input's text is composed around the plan's text: nothing is parsed or re-serialised here,
//! so building it costs one copy of the plan at most (none for conftest and OPA).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::source::{PolicyFile, package_of, reads_scalr_input};

/// The input a policy file is evaluated against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    /// conftest: `input` is the plan JSON; rules in the namespace packages (default `main`).
    Conftest,
    /// Spacelift plan policies: the plan under `input.terraform`, stack and run under
    /// `input.spacelift`.
    Spacelift,
    /// Scalr: the plan under `input.tfplan`, the run under `input.tfrun`.
    Scalr,
    /// Plain OPA (`opa eval -i plan.json data.terraform.deny`): `input` is the plan JSON.
    Opa,
}

impl Shape {
    /// Every shape, in the order the CLI lists them.
    pub const ALL: [Shape; 4] = [Shape::Conftest, Shape::Spacelift, Shape::Scalr, Shape::Opa];

    /// `conftest`, `spacelift`, `scalr`, `opa`.
    pub fn key(self) -> &'static str {
        match self {
            Shape::Conftest => "conftest",
            Shape::Spacelift => "spacelift",
            Shape::Scalr => "scalr",
            Shape::Opa => "opa",
        }
    }

    /// The shape named by [`Shape::key`].
    pub fn from_key(key: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.key() == key)
    }

    /// How a person would say it: `conftest`, `Spacelift`, `Scalr`, `OPA`.
    pub fn label(self) -> &'static str {
        match self {
            Shape::Conftest => "conftest",
            Shape::Spacelift => "Spacelift",
            Shape::Scalr => "Scalr",
            Shape::Opa => "OPA",
        }
    }

    /// True when `rule` (a rule's name in its package) gives findings for this shape: `deny`,
    /// `violation`, `warn` (Spacelift: `deny`, `warn`), and for conftest also names that continue
    /// with `_` (`deny_public_bucket`), as conftest reads them.
    pub fn reads_rule(self, rule: &str) -> bool {
        let kinds: &[&str] = match self {
            Shape::Spacelift => &["deny", "warn"],
            _ => &["deny", "violation", "warn"],
        };
        kinds.iter().any(|kind| {
            rule == *kind
                || (self == Shape::Conftest
                    && rule.strip_prefix(kind).is_some_and(|rest| {
                        rest.starts_with('_')
                            && rest[1..]
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || c == '_')
                    }))
        })
    }
}

/// The conftest namespace used when none is given, as conftest's `--namespace` default.
pub const DEFAULT_NAMESPACE: &str = "main";

/// The shape of `file`: `forced` when given (the user's choice, `--input`), else from the file:
/// `package spacelift` is Spacelift, a file reading `input.tfplan`/`input.tfrun` is Scalr, a
/// package among `namespaces` is conftest, any other package is plain OPA.
pub fn shape_of(file: &PolicyFile, namespaces: &[String], forced: Option<Shape>) -> Shape {
    if let Some(shape) = forced {
        return shape;
    }
    let package = package_of(&file.text).unwrap_or_default();
    if package == "spacelift" {
        Shape::Spacelift
    } else if reads_scalr_input(&file.text) {
        Shape::Scalr
    } else if namespaces.contains(&package)
        || (namespaces.is_empty() && package == DEFAULT_NAMESPACE)
    {
        Shape::Conftest
    } else {
        Shape::Opa
    }
}

/// What the input says besides the plan: the labels the user set for this plan
/// (`environment` = `prod`, …) and the plan's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context<'a> {
    /// Labels the user set (`--label K=V`; the page's environment is `environment`).
    pub labels: &'a BTreeMap<String, String>,
    /// The plan's file name (Spacelift's stack name, Scalr's workspace name).
    pub name: &'a str,
}

/// The stack labels a Spacelift policy sees: each label `K=V` as `K:V`, with `environment`
/// written `env` as Spacelift stacks usually label it (`environment=prod` → `env:prod`).
pub fn spacelift_labels(labels: &BTreeMap<String, String>) -> Vec<String> {
    labels
        .iter()
        .map(|(k, v)| {
            let k = if k == "environment" { "env" } else { k };
            format!("{k}:{v}")
        })
        .collect()
}

/// The input's JSON text for `shape` around `plan` (the plan's JSON text).
///
/// - conftest, OPA: the plan itself (borrowed, no copy).
/// - Spacelift: `{"terraform": plan, "spacelift": {"stack": {"name", "labels"}, "run": {"type":
///   "PROPOSED", "drift_detection": false}}}` — what a proposed run's plan policy sees of its
///   stack; other fields Spacelift fills (commit, user, timestamps) are left out, so rules that
///   read them stay undefined rather than see invented values.
/// - Scalr: `{"tfplan": plan, "tfrun": {"workspace": {"name", "environment_type"},
///   "environment": {"name"}, "is_dry": true, "source": "planlens"}}`, the environment from the
///   `environment` label (left out without one).
pub fn input_text<'p>(shape: Shape, plan: &'p str, context: &Context<'_>) -> Cow<'p, str> {
    let json = |s: &str| serde_json::Value::String(s.to_string()).to_string();
    match shape {
        Shape::Conftest | Shape::Opa => Cow::Borrowed(plan),
        Shape::Spacelift => {
            let labels = serde_json::to_string(&spacelift_labels(context.labels))
                .expect("a list of strings serialises");
            let tail = format!(
                ",\"spacelift\":{{\"stack\":{{\"name\":{},\"labels\":{labels}}},\
                 \"run\":{{\"type\":\"PROPOSED\",\"drift_detection\":false}}}}}}",
                json(context.name)
            );
            Cow::Owned(wrap("{\"terraform\":", plan, &tail))
        }
        Shape::Scalr => {
            let environment = context.labels.get("environment");
            let env = environment.map_or(String::new(), |e| {
                format!(",\"environment_type\":{}", json(e))
            });
            let env_object = environment.map_or(String::new(), |e| {
                format!(",\"environment\":{{\"name\":{}}}", json(e))
            });
            let tail = format!(
                ",\"tfrun\":{{\"workspace\":{{\"name\":{}{env}}}{env_object},\
                 \"is_dry\":true,\"source\":\"planlens\"}}}}",
                json(context.name)
            );
            Cow::Owned(wrap("{\"tfplan\":", plan, &tail))
        }
    }
}

fn wrap(head: &str, plan: &str, tail: &str) -> String {
    let mut s = String::with_capacity(head.len() + plan.len() + tail.len());
    s.push_str(head);
    s.push_str(plan);
    s.push_str(tail);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_json_around_the_plan() {
        let mut labels = BTreeMap::new();
        labels.insert("environment".to_string(), "prod".to_string());
        labels.insert("team".to_string(), "a\"b".to_string());
        let context = Context {
            labels: &labels,
            name: "plan.json",
        };
        let plan = r#"{"resource_changes":[]}"#;
        for shape in Shape::ALL {
            let text = input_text(shape, plan, &context);
            let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
            let plan_value = match shape {
                Shape::Spacelift => &v["terraform"],
                Shape::Scalr => &v["tfplan"],
                _ => &v,
            };
            assert_eq!(plan_value["resource_changes"], serde_json::json!([]));
        }
        let v: serde_json::Value =
            serde_json::from_str(&input_text(Shape::Spacelift, plan, &context)).unwrap();
        assert_eq!(
            v["spacelift"]["stack"]["labels"],
            serde_json::json!(["env:prod", "team:a\"b"])
        );
        let v: serde_json::Value =
            serde_json::from_str(&input_text(Shape::Scalr, plan, &context)).unwrap();
        assert_eq!(v["tfrun"]["workspace"]["environment_type"], "prod");
    }

    #[test]
    fn rule_names_per_shape() {
        assert!(Shape::Conftest.reads_rule("deny_public_bucket"));
        assert!(!Shape::Conftest.reads_rule("denylist"));
        assert!(!Shape::Spacelift.reads_rule("violation"));
        assert!(!Shape::Opa.reads_rule("deny_x"));
    }
}
