//! What a full share link carries: the plan as the user opened it, without its sensitive values and
//! without the parts Planlens never shows.
//!
//! Removed from a plan:
//! - every value its `before_sensitive` / `after_sensitive` marks (resource changes, drift,
//!   deferred changes, outputs); the marks stay, so the diff still says "(sensitive value)". Each
//!   distinct secret becomes its own placeholder, `(sensitive 1)`, `(sensitive 2)`…, numbered in
//!   the order they appear, so the diff and the drift view still see what changed and what the
//!   plan reverts (as Terraform shows "changed" for a secret without showing it); nothing of the
//!   value is kept;
//! - the values of input variables the configuration marks `sensitive`, and their defaults;
//! - `constant_value`s of the configuration (literals, which may be secrets the schema marks
//!   sensitive; the graph reads only references);
//! - `planned_values` and the prior state's attribute values and outputs (the state keeps its
//!   addresses and `depends_on`, which the graph reads).
//!
//! Plan logs carry no values and driftctl reports no sensitivity marks: they travel as they are.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::model::{Document, Source};

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
    if doc.redacted.is_some() || !matches!(doc.source, Source::Plan) {
        return doc.source_text().to_string();
    }
    match serde_json::from_str::<Value>(doc.text()) {
        Ok(mut plan) => {
            strip_plan(&mut plan, &doc.sensitive_variables());
            plan.to_string()
        }
        // The document parsed, so this cannot happen; never share what was not stripped.
        Err(_) => String::from("{}"),
    }
}

/// Strips a plan in place (see the module documentation); `sensitive_variables` are the plan's
/// ([`Document::sensitive_variables`]).
pub fn strip_plan(plan: &mut Value, sensitive_variables: &HashSet<String>) {
    let mut placeholders = Placeholders::default();
    super::each_change(plan, |_, _, c| {
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
        strip_configuration(config);
    }
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
        Value::Bool(true) if !value.is_null() => *value = placeholders.of(value),
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

/// Drops literals (`constant_value`) anywhere in the configuration, and the defaults of variables
/// marked sensitive.
fn strip_configuration(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("constant_value");
            if map.get("sensitive") == Some(&Value::Bool(true)) {
                map.remove("default");
            }
            for v in map.values_mut() {
                strip_configuration(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_configuration),
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
        strip_plan(&mut plan, &HashSet::from(["db_password".to_string()]));
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
