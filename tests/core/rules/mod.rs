//! Guardrail rules: the built-in pack on plans that should and should not trip each policy, every
//! operator, selectors, message templates (sensitive values masked), parse errors with their exact
//! line and column, and the verdict.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Value, json};

use planlens::analysis::Analysis;
use planlens::drift::Drift;
use planlens::model::Address;
use planlens::model::Source;
use planlens::model::summary::{Planning, count};
use planlens::rules::{
    BUILTIN_TOML, Evaluation, Input, RuleError, RuleSet, RuleSeverity, Verdict, evaluate,
};
use planlens::{Document, Summary};

mod builtin;
mod messages;
mod operators;
mod parse_errors;
mod planning;
mod selectors;
mod verdict;

// ---------------------------------------------------------------------------------------------
// Helpers: plans in, findings out.

/// One finding, with the resource's address instead of its index.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    rule: String,
    /// The resource's address, or "plan" for an aggregate's finding.
    at: String,
    severity: RuleSeverity,
    message: String,
}

struct Outcome {
    evaluation: Evaluation,
    seen: Vec<Seen>,
}

impl Outcome {
    /// A rule's findings, in finding order.
    fn of(&self, rule: &str) -> Vec<&Seen> {
        self.seen.iter().filter(|s| s.rule == rule).collect()
    }

    /// Where a rule fired, in finding order.
    fn fired(&self, rule: &str) -> Vec<&str> {
        self.of(rule).into_iter().map(|s| s.at.as_str()).collect()
    }

    /// The messages of a rule's findings.
    fn messages(&self, rule: &str) -> Vec<&str> {
        self.of(rule)
            .into_iter()
            .map(|s| s.message.as_str())
            .collect()
    }

    fn verdict(&self) -> Verdict {
        self.evaluation.verdict
    }
}

/// Evaluates `rules` on a plan's text the way the app and the CLI do: load, drift analysis,
/// `Input::from_document` (one resource per row), then `evaluate` with the labels.
fn run(plan_text: &str, rules: &RuleSet, labels: &[(&str, &str)]) -> Outcome {
    let doc =
        planlens::load_plan_text(plan_text.to_string(), "test.json").expect("the test plan loads");
    let drift = Drift::of(&doc);
    let input = Input::from_document(&doc, &drift);
    let labels: BTreeMap<String, String> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let evaluation = evaluate(&input, rules, &labels);
    let seen = evaluation
        .findings
        .iter()
        .map(|f| Seen {
            rule: f.rule_id.clone(),
            at: f.resource.map_or("plan".to_string(), |i| {
                input.resources[i].address.to_string()
            }),
            severity: f.severity,
            message: f.message.clone(),
        })
        .collect();
    Outcome { evaluation, seen }
}

/// A resource change as `terraform show -json` writes it; type, name, mode and module come from
/// the address.
fn change(address: &str, actions: &[&str], before: Value, after: Value) -> Value {
    let a = Address::parse(address).expect("a valid address");
    let mut c = json!({
        "address": address,
        "mode": if a.is_data { "data" } else { "managed" },
        "type": a.resource_type,
        "name": a.name,
        "provider_name": "registry.terraform.io/hashicorp/aws",
        "change": { "actions": actions, "before": before, "after": after },
    });
    let module = a.module_path();
    if !module.is_empty() {
        c["module_address"] = json!(module);
    }
    c
}

/// A change of `actions` whose values before and after are empty objects: all a rule that reads
/// no attribute needs.
fn bare(address: &str, actions: &[&str]) -> Value {
    change(address, actions, json!({}), json!({}))
}

fn plan_of(changes: Vec<Value>) -> Value {
    json!({ "format_version": "1.2", "terraform_version": "1.9.5", "resource_changes": changes })
}

/// Adds root variables (`{"environment": "dev"}`) to a plan.
fn with_variables(mut plan: Value, variables: Value) -> Value {
    let Value::Object(vars) = variables else {
        panic!("variables are an object");
    };
    plan["variables"] = vars
        .into_iter()
        .map(|(k, v)| (k, json!({ "value": v })))
        .collect();
    plan
}

/// Runs the built-in pack.
fn builtin(plan: &Value, labels: &[(&str, &str)]) -> Outcome {
    run(&plan.to_string(), &RuleSet::builtin(), labels)
}

/// Parses a rule file that must be valid.
fn rules(text: &str) -> RuleSet {
    RuleSet::parse(text).unwrap_or_else(|errors| {
        let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
        panic!("the rules do not parse:\n{}", list.join("\n"))
    })
}

/// A rule file of our own, without the built-in pack.
fn own_rules(text: &str) -> RuleSet {
    rules(&format!("include_builtin = false\n{text}"))
}

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn instance(address: &str, actions: &[&str], instance_type: &str) -> Value {
    let before = json!({ "instance_type": "t3.micro", "ami": "ami-1" });
    let after = json!({ "instance_type": instance_type, "ami": "ami-1" });
    match actions {
        ["create"] => change(address, actions, Value::Null, after),
        _ => change(address, actions, before, after),
    }
}

/// A plan that deletes `n` buckets.
fn deletes(n: usize) -> Value {
    let delete = |i| {
        change(
            &format!("aws_s3_bucket.b{i}"),
            &["delete"],
            json!({}),
            Value::Null,
        )
    };
    plan_of((0..n).map(delete).collect())
}

fn drifted(attribute_after: Value) -> Value {
    let before = json!({"instance_type": "t3.micro", "tags": {"Name": "web"}});
    let mut after = before.clone();
    for (k, v) in attribute_after.as_object().expect("object") {
        after[k] = v.clone();
    }
    let mut plan = plan_of(vec![change(
        "aws_instance.web",
        &["no-op"],
        after.clone(),
        after.clone(),
    )]);
    plan["resource_drift"] = json!([change("aws_instance.web", &["update"], before, after)]);
    plan
}
