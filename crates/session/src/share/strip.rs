//! What a full share link carries: the plan as the user opened it, without its sensitive values and
//! without the parts Planlens never shows.
//!
//! Removed from a plan:
//! - every value its `before_sensitive` / `after_sensitive` marks (resource changes, drift,
//!   deferred changes, outputs); the marks stay, so the diff still says "(sensitive value)". Each
//!   distinct secret becomes its own placeholder, `(sensitive 1)`, `(sensitive 2)`…, numbered in
//!   the order they appear, so the diff and the drift view still see what changed and what the
//!   plan reverts (as Terraform shows "changed" for a secret without showing it); nothing of the
//!   value is kept (an unset one, `null`, `""`, `[]` or `{}`, stays as it is);
//! - the values of input variables the configuration marks `sensitive`, and their defaults;
//! - `constant_value`s of the configuration (literals, which may be secrets the schema marks
//!   sensitive; the graph reads only references);
//! - `planned_values` and the prior state's attribute values and outputs (the state keeps its
//!   addresses and `depends_on`, which the graph reads).
//!
//! Values under secret-like keys are removed the same way: the loader has already marked them
//! sensitive in the plan (`load::mask`). A driftctl report travels as the report, so its changelog
//! entries whose path names a secret-like key lose their `from` / `to` strings here, with the same
//! mask. Plan logs carry no attribute values; their diagnostics' snippets lose what they quote
//! under secret names, as the loader masks it.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use planlens_load::mask::mask_snippet;
use planlens_model::mask::Mask;
use planlens_model::source::Snippet;
use planlens_model::{Document, Source};

/// How every placeholder of a sensitive value starts: `(sensitive 1)`.
pub const SENSITIVE: &str = "(sensitive ";

/// Numbers distinct secrets: the same value gets the same placeholder everywhere in the plan.
#[derive(Default)]
struct Placeholders {
    seen: HashMap<String, usize>,
}

impl Placeholders {
    fn of(&mut self, value: &Value) -> Value {
        let next = self.seen.len() + 1;
        let n = *self.seen.entry(value.to_string()).or_insert(next);
        Value::String(format!("{SENSITIVE}{n})"))
    }
}

/// The text a full link carries for `doc`.
pub fn shareable_text(doc: &Document) -> String {
    if doc.redacted.is_none() && matches!(doc.source, Source::Driftctl(_)) {
        return strip_driftctl(doc.source_text(), &doc.masking.mask);
    }
    if doc.redacted.is_none() && matches!(doc.source, Source::PlanLog(_)) {
        return strip_plan_log(doc.source_text(), &doc.masking.mask);
    }
    // A state travels as its equivalent plan (`planlens_readers::state`), stripped as a plan is; the text
    // carries the state's facts, so it opens as a state again. Never the state's own text.
    // A text plan too: never its own text, which can hold secret-named values in the clear.
    if doc.redacted.is_some()
        || !matches!(
            doc.source,
            Source::Plan | Source::State(_) | Source::TextPlan(_)
        )
    {
        return doc.source_text().to_string();
    }
    match serde_json::from_str::<Value>(doc.text()) {
        Ok(mut plan) => {
            strip_plan(&mut plan, &doc.sensitive_variables(), &doc.masking.mask);
            plan.to_string()
        }
        // The document parsed, so this cannot happen; never share what was not stripped.
        Err(_) => String::from("{}"),
    }
}

/// Strips a plan in place (see the module documentation); `sensitive_variables` are the plan's
/// ([`Document::sensitive_variables`]), `mask` the one it was loaded with.
pub fn strip_plan(plan: &mut Value, sensitive_variables: &HashSet<String>, mask: &Mask) {
    let mut placeholders = Placeholders::default();
    planlens_model::plan::each_change(plan, |_, _, c| {
        if let Some(change) = c.get_mut("change") {
            strip_change(change, &mut placeholders);
        }
    });
    let Some(top) = plan.as_object_mut() else {
        return;
    };
    if let Some(Value::Object(outputs)) = top.get_mut("output_changes") {
        for change in outputs.values_mut() {
            strip_change(change, &mut placeholders);
        }
    }
    if let Some(config) = top.get_mut("configuration") {
        strip_configuration(config, mask);
    }
    planlens_model::redaction::keep_action_identities(top);
    if let Some(Value::Object(vars)) = top.get_mut("variables") {
        vars.retain(|name, _| !sensitive_variables.contains(name));
    }
    if top.contains_key("planned_values") {
        top.insert("planned_values".to_string(), Value::Object(Map::new()));
    }
    if let Some(values) = top.get_mut("prior_state").and_then(|s| s.get_mut("values")) {
        if let Some(v) = values.as_object_mut() {
            v.remove("outputs");
        }
        if let Some(root) = values.get_mut("root_module") {
            strip_state_module(root);
        }
    }
}

/// Masks a change's values where its sensitivity mirrors say so.
fn strip_change(change: &mut Value, placeholders: &mut Placeholders) {
    let Some(c) = change.as_object_mut() else {
        return;
    };
    for (value, marks) in [("before", "before_sensitive"), ("after", "after_sensitive")] {
        let Some(marks) = c.get(marks).cloned() else {
            continue;
        };
        if let Some(v) = c.get_mut(value) {
            mask(v, &marks, placeholders);
        }
    }
}

/// Replaces what `marks` covers with placeholders.
fn mask(value: &mut Value, marks: &Value, placeholders: &mut Placeholders) {
    match marks {
        // An unset value (null, "", [], {}) holds nothing to hide and stays, so drift judges it
        // unset as in the plan (`same_ignoring_empty`): a placeholder would make an unchanged
        // resource read as drifted in the link.
        Value::Bool(true) if !is_unset(value) => *value = placeholders.of(value),
        Value::Object(marks) => {
            if let Value::Object(map) = value {
                for (key, m) in marks {
                    if let Some(v) = map.get_mut(key) {
                        mask(v, m, placeholders);
                    }
                }
            }
        }
        Value::Array(marks) => {
            if let Value::Array(items) = value {
                for (v, m) in items.iter_mut().zip(marks) {
                    mask(v, m, placeholders);
                }
            }
        }
        _ => {}
    }
}

fn is_unset(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// A driftctl report without the values of changelog entries whose path names a secret-like key.
fn strip_driftctl(text: &str, mask: &Mask) -> String {
    let Ok(mut report) = serde_json::from_str::<Value>(text) else {
        // It was read as a report, so this cannot happen; never share what was not stripped.
        return String::from("{}");
    };
    let mut placeholders = Placeholders::default();
    let mut changed = false;
    if let Some(Value::Array(differences)) = report.get_mut("differences") {
        let entries = differences
            .iter_mut()
            .filter_map(|d| d.get_mut("changelog").and_then(Value::as_array_mut))
            .flatten();
        for c in entries {
            let secret = c
                .get("path")
                .and_then(Value::as_array)
                .is_some_and(|p| p.iter().filter_map(Value::as_str).any(|k| mask.matches(k)));
            if !secret {
                continue;
            }
            for side in ["from", "to"] {
                if let Some(v) = c.get_mut(side) {
                    changed |= mask_strings(v, &mut placeholders);
                }
            }
        }
    }
    if changed {
        report.to_string()
    } else {
        text.to_string()
    }
}

/// A plan log whose diagnostics' snippets no longer quote secret-named values
/// ([`mask_snippet`], the loader's own pass); every other line as it was.
fn strip_plan_log(text: &str, mask: &Mask) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let masked = serde_json::from_str::<Value>(line).ok().and_then(|mut v| {
            let raw = v.pointer_mut("/diagnostic/snippet")?;
            let mut snippet: Snippet = serde_json::from_value(raw.clone()).ok()?;
            if mask_snippet(&mut snippet, mask) == 0 {
                return None;
            }
            *raw = serde_json::to_value(&snippet).ok()?;
            Some(v.to_string())
        });
        match masked {
            Some(m) => {
                out.push_str(&m);
                if line.ends_with('\n') {
                    out.push('\n');
                }
            }
            None => out.push_str(line),
        }
    }
    out
}

/// Replaces every non-empty string in `value` with a placeholder; true when one was replaced.
fn mask_strings(value: &mut Value, placeholders: &mut Placeholders) -> bool {
    match value {
        Value::String(s) if !s.is_empty() => {
            *value = placeholders.of(value);
            true
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |any, v| mask_strings(v, placeholders) | any),
        Value::Object(map) => map
            .values_mut()
            .fold(false, |any, v| mask_strings(v, placeholders) | any),
        _ => false,
    }
}

/// Drops literals (`constant_value`) anywhere in the configuration, and the defaults of variables
/// marked sensitive or named like secrets.
fn strip_configuration(value: &mut Value, mask: &Mask) {
    match value {
        Value::Object(map) => {
            map.remove("constant_value");
            if map.get("sensitive") == Some(&Value::Bool(true)) {
                map.remove("default");
            }
            if let Some(Value::Object(variables)) = map.get_mut("variables") {
                for (name, declaration) in variables.iter_mut() {
                    if let (true, Some(d)) = (mask.matches(name), declaration.as_object_mut()) {
                        d.remove("default");
                    }
                }
            }
            for v in map.values_mut() {
                strip_configuration(v, mask);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| strip_configuration(v, mask)),
        _ => {}
    }
}

/// Keeps the state's addresses and dependencies, drops its attribute values.
fn strip_state_module(module: &mut Value) {
    if let Some(Value::Array(resources)) = module.get_mut("resources") {
        for r in resources.iter_mut().filter_map(Value::as_object_mut) {
            r.remove("values");
            r.remove("sensitive_values");
        }
    }
    if let Some(Value::Array(children)) = module.get_mut("child_modules") {
        children.iter_mut().for_each(strip_state_module);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn masks_marked_values_and_keeps_whether_they_changed() {
        let mut change = json!({
            "actions": ["update"],
            "before": {"name": "db", "password": "old-secret", "same": "kept-secret", "nested": [{"k": "v1"}]},
            "after": {"name": "db", "password": "new-secret", "same": "kept-secret", "nested": [{"k": "v2"}]},
            "before_sensitive": {"password": true, "same": true, "nested": [{"k": true}]},
            "after_sensitive": {"password": true, "same": true, "nested": [{"k": true}]}
        });
        strip_change(&mut change, &mut Placeholders::default());
        let text = change.to_string();
        for secret in ["old-secret", "new-secret", "kept-secret", "v1", "v2"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        let (b, a) = (&change["before"], &change["after"]);
        assert_ne!(
            b["password"], a["password"],
            "a changed secret still reads as changed"
        );
        assert_eq!(b["same"], a["same"], "an unchanged one as unchanged");
        assert_ne!(b["nested"][0]["k"], a["nested"][0]["k"]);
        assert!(a["password"].as_str().unwrap().starts_with(SENSITIVE));
        assert_eq!(a["name"], "db");
    }

    #[test]
    fn strips_variables_configuration_literals_and_state_values() {
        let mut plan = json!({
            "format_version": "1.2",
            "variables": {"db_password": {"value": "var-secret"}, "region": {"value": "eu-west-1"}},
            "planned_values": {"root_module": {"resources": [{"values": {"x": "planned-secret"}}]}},
            "prior_state": {"values": {"outputs": {"o": {"value": "out-secret"}}, "root_module": {
                "resources": [{"address": "a.b", "values": {"x": "state-value"}, "depends_on": ["c.d"]}],
                "child_modules": [{"resources": [{"address": "module.m.a.b", "sensitive_values": {"x": true}, "values": {"x": "child-value"}}]}]
            }}},
            "configuration": {"root_module": {
                "variables": {"db_password": {"sensitive": true, "default": "default-secret"}},
                "resources": [{"expressions": {"password": {"constant_value": "literal-secret"}, "vpc": {"references": ["aws_vpc.main"]}}}]
            }}
        });
        strip_plan(
            &mut plan,
            &HashSet::from(["db_password".to_string()]),
            &Mask::default(),
        );
        let text = plan.to_string();
        for secret in [
            "var-secret",
            "planned-secret",
            "out-secret",
            "state-value",
            "child-value",
            "default-secret",
            "literal-secret",
        ] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        for kept in ["eu-west-1", "aws_vpc.main", "c.d", "module.m.a.b"] {
            assert!(text.contains(kept), "{kept} missing from {text}");
        }
    }
}
