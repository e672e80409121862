//! Writes redacted share links: a plan's shape without its values, small and safe to paste
//! anywhere (the format: `model::redaction`; its reader: `load::redacted`).
//!
//! A redacted document keeps addresses, actions, reasons, import and move marks, drift grades and
//! drifted attribute paths, the dependency edges and the rule findings, and nothing of attribute
//! values: no `before`/`after`, no variables, no configuration literals, no state, and finding
//! messages print `(redacted)` where the rule's template prints a value. It reopens with the same
//! summary, list, graph, drift view and verdict; diffs say the values were redacted.
//!
//! A change's module, mode, type and name are left out when its address says them
//! (`model::redaction::derived`); the graph is `DepGraph::carried`; the source facts go without
//! diagnostic details. Tested over every fixture: no attribute value in it.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::analysis::Analysis;
use planlens_model::document::is_unchanged_drift;
use planlens_model::findings::Finding;
use planlens_model::redaction::{
    CHANGE_KEYS, DERIVED_KEYS, FORMAT, PLAN_KEYS, Payload, derived, keep_action_identities,
};
use planlens_model::{Document, Source};
use planlens_rules::{Input, RuleSet, evaluate_redacted};

/// Writes the redacted form of `doc`, evaluating `rules` with `labels` for its findings. A
/// document that is already redacted is written as it came.
pub fn write(
    doc: &Document,
    analysis: &Analysis,
    rules: &RuleSet,
    labels: &BTreeMap<String, String>,
) -> String {
    write_with(doc, analysis, rules, labels, None)
}

/// [`write`], the findings of Rego policies beside the rules' (their verdict is the page's).
pub fn write_with(
    doc: &Document,
    analysis: &Analysis,
    rules: &RuleSet,
    labels: &BTreeMap<String, String>,
    policies: Option<&PolicyFindings>,
) -> String {
    if doc.redacted.is_some() {
        return doc.source_text().to_string();
    }
    let mut evaluation =
        evaluate_redacted(&Input::from_document(doc, &analysis.drift), rules, labels);
    if let Some(p) = policies {
        // A policy's message is whatever text it wrote, values included, and cannot be redacted
        // word by word: the link keeps each finding's rule, severity and resource (so its verdict
        // is the page's) and says the message was left out.
        let findings = p
            .findings
            .iter()
            .map(|f| Finding {
                message: format!(
                    "{}: the policy's message is left out of a redacted link (it may hold values)",
                    f.rule_id
                ),
                ..f.clone()
            })
            .collect();
        evaluation = planlens_policy::combine(evaluation, findings, p.rules_read);
    }
    let payload = Payload {
        planlens_redacted: FORMAT,
        name: doc.name.clone(),
        source: without_details(&doc.source),
        warnings: doc.warnings.clone(),
        plan: redacted_plan(doc),
        graph: analysis.graph(doc).carried(doc),
        drift: analysis.drift.resources.clone(),
        evaluation,
        labels: labels.clone(),
    };
    serde_json::to_string(&payload).unwrap_or_default()
}

/// The Rego policies' findings on the plan and how many rules they read, for a redacted link.
#[derive(Debug, Clone, Default)]
pub struct PolicyFindings {
    /// Their findings (`policy::judge` makes the same).
    pub findings: Vec<Finding>,
    /// How many policy rules were read.
    pub rules_read: usize,
}

/// The plan without values: changes keep what identifies them and their actions.
fn redacted_plan(doc: &Document) -> Value {
    let Ok(Value::Object(mut plan)) = serde_json::from_str::<Value>(doc.text()) else {
        return Value::Object(Map::new());
    };
    plan.retain(|k, _| PLAN_KEYS.contains(&k.as_str()));
    if let Some(Value::Array(deferred)) = plan.get_mut("deferred_changes") {
        for d in deferred.iter_mut().filter_map(Value::as_object_mut) {
            d.retain(|k, _| k == "reason" || k == "resource_change");
        }
    }
    keep_action_identities(&mut plan);
    let mut plan = Value::Object(plan);
    let drift = &doc.plan().resource_drift;
    planlens_model::plan::each_change(&mut plan, |list, i, c| {
        let unchanged = list == "resource_drift" && drift.get(i).is_some_and(is_unchanged_drift);
        redact_change(c, unchanged);
    });
    if let Some(Value::Object(outputs)) = plan.get_mut("output_changes") {
        for change in outputs.values_mut() {
            if let Value::Object(c) = change {
                // Whether an output is sensitive as a whole is a mark, not a value: it stays.
                c.retain(|k, v| k == "actions" || (k.ends_with("_sensitive") && v.is_boolean()));
            }
        }
    }
    if let Some(checks) = plan.get_mut("checks") {
        remove_key(checks, "problems");
    }
    plan
}

/// Keeps a change's identity and actions. `unchanged`: Terraform 1.0.0 listed resources whose
/// values did not change as drift; equal empty values keep them recognisable as not drifted.
fn redact_change(change: &mut Value, unchanged: bool) {
    let Value::Object(c) = change else { return };
    c.retain(|k, _| CHANGE_KEYS.contains(&k.as_str()) || k == "change");
    if let Some(fields) = c.get("address").and_then(Value::as_str).and_then(derived) {
        for (key, value) in DERIVED_KEYS.iter().zip(fields) {
            // A root module's change may say `module_address: null` or nothing: both read the same.
            let agrees = match c.get(*key) {
                Some(v) => *v == value,
                None => value.is_null(),
            };
            if agrees {
                c.remove(*key);
            }
        }
    }
    if let Some(Value::Object(inner)) = c.get_mut("change") {
        let importing = inner.get("importing").is_some_and(|i| !i.is_null());
        inner.retain(|k, _| k == "actions");
        if importing {
            inner.insert("importing".to_string(), Value::Object(Map::new()));
        }
        if unchanged {
            inner.insert("before".to_string(), Value::Object(Map::new()));
            inner.insert("after".to_string(), Value::Object(Map::new()));
        }
    }
}

/// The source facts without diagnostic details, which can quote values.
fn without_details(source: &Source) -> Source {
    let mut source = source.clone();
    if let Source::PlanLog(facts) = &mut source {
        // Details and snippets quote configuration and values; summaries and places do not.
        facts.diagnostics.iter_mut().for_each(|d| {
            d.detail.clear();
            d.snippet = None;
        });
    }
    source
}

fn remove_key(value: &mut Value, key: &str) {
    match value {
        Value::Object(map) => {
            map.remove(key);
            map.values_mut().for_each(|v| remove_key(v, key));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| remove_key(v, key)),
        _ => {}
    }
}
