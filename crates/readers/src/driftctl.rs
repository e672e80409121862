//! driftctl `scan --output json://` reports → the plan model.
//!
//! Three generations of the format are read: v0.40+ (`summary`, `managed`, `unmanaged`, `missing`,
//! `coverage`, `alerts`; no attribute comparison), v0.8–v0.39 (also `differences[].changelog[]` and
//! `summary.total_changed`), and v0.7 (`deleted` instead of `missing`, `total_drifted`).
//!
//! Changed resources become `resource_drift` updates whose `before`/`after` hold the changed paths'
//! old and new values; missing resources become `resource_drift` deletes. What has no place in a
//! plan (coverage, unmanaged resources, alerts, computed-field warnings) becomes [`DriftctlFacts`].
//!
//! `DriftctlFacts` also keep the report's counts. The converted document keeps the report's own
//! text (`Document::source_text`): that is what reloads and full links carry.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::converted::{Change, ConvertedPlan, Keys, ResourceChange};
use planlens_model::source::DriftctlFacts;

#[derive(Deserialize)]
struct Report {
    #[serde(default)]
    summary: ReportSummary,
    #[serde(default)]
    unmanaged: Option<Vec<Res>>,
    #[serde(default)]
    missing: Option<Vec<Res>>,
    /// v0.7's name for `missing`.
    #[serde(default)]
    deleted: Option<Vec<Res>>,
    #[serde(default)]
    differences: Option<Vec<Difference>>,
    #[serde(default)]
    coverage: f64,
    #[serde(default)]
    alerts: Option<BTreeMap<String, Option<Vec<Alert>>>>,
    #[serde(default)]
    provider_name: Option<String>,
    #[serde(default)]
    provider_version: Option<String>,
    #[serde(default)]
    date: Option<String>,
}

#[derive(Deserialize, Default)]
struct ReportSummary {
    #[serde(default)]
    total_resources: u64,
    #[serde(default)]
    total_changed: Option<u64>,
    /// v0.7's name for `total_changed`.
    #[serde(default)]
    total_drifted: Option<u64>,
    #[serde(default)]
    total_unmanaged: u64,
    #[serde(default)]
    total_missing: Option<u64>,
    /// v0.7's name for `total_missing`.
    #[serde(default)]
    total_deleted: Option<u64>,
    #[serde(default)]
    total_managed: u64,
}

#[derive(Deserialize)]
struct Res {
    #[serde(default)]
    id: String,
    #[serde(rename = "type", default)]
    resource_type: String,
    #[serde(default)]
    source: Option<ResSource>,
}

#[derive(Deserialize)]
struct ResSource {
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    internal_name: String,
}

#[derive(Deserialize)]
struct Difference {
    res: Res,
    #[serde(default)]
    changelog: Vec<ChangelogEntry>,
}

#[derive(Deserialize)]
struct ChangelogEntry {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    path: Vec<String>,
    #[serde(default)]
    from: Value,
    #[serde(default)]
    to: Value,
    #[serde(default)]
    computed: bool,
}

#[derive(Deserialize)]
struct Alert {
    #[serde(default)]
    message: String,
}

impl Res {
    /// A Terraform-like address: from the state source when driftctl knows it
    /// (`module.NS.TYPE.NAME`), else the type with the cloud id as key (`TYPE["id"]`).
    fn address(&self) -> String {
        match &self.source {
            Some(s) if !s.internal_name.is_empty() => {
                let module = match s.namespace.as_str() {
                    "" => String::new(),
                    ns if ns.starts_with("module.") => format!("{ns}."),
                    ns => format!("module.{ns}."),
                };
                format!("{module}{}.{}", self.resource_type, s.internal_name)
            }
            _ => format!("{}[{}]", self.resource_type, Value::String(self.id.clone())),
        }
    }

    fn module(&self) -> Option<String> {
        let ns = &self.source.as_ref()?.namespace;
        match ns.as_str() {
            "" => None,
            ns if ns.starts_with("module.") => Some(ns.to_string()),
            ns => Some(format!("module.{ns}")),
        }
    }

    fn name(&self) -> &str {
        match &self.source {
            Some(s) if !s.internal_name.is_empty() => &s.internal_name,
            _ => &self.id,
        }
    }

    fn drift_entry(
        &self,
        provider: &str,
        actions: &'static [&'static str],
        before: Value,
        after: Value,
    ) -> ResourceChange<'static> {
        ResourceChange {
            address: self.address(),
            previous_address: None,
            module_address: self.module().unwrap_or_default(),
            mode: "managed",
            resource_type: self.resource_type.clone(),
            name: self.name().to_string(),
            index: None,
            provider_name: provider.to_string(),
            deposed: None,
            action_reason: None,
            change: Change {
                before: Some(before.into()),
                after: Some(after.into()),
                ..Change::of(actions)
            },
        }
    }
}

/// Sets `value` at `path` inside `root`, creating objects (or lists, for numeric steps) on the way.
fn set_path(root: &mut Value, path: &[String], value: Value) {
    let Some((step, rest)) = path.split_first() else {
        *root = value;
        return;
    };
    let index = step.parse::<usize>().ok().filter(|i| *i < 10_000);
    if root.is_null() {
        *root = match index {
            Some(_) => Value::Array(Vec::new()),
            None => Value::Object(Map::new()),
        };
    }
    let child = match (root, index) {
        (Value::Array(items), Some(i)) => {
            if items.len() <= i {
                items.resize(i + 1, Value::Null);
            }
            &mut items[i]
        }
        (Value::Object(map), _) => map.entry(step.clone()).or_insert(Value::Null),
        // A step that does not fit what is there (a key into a list): keep the first shape.
        _ => return,
    };
    set_path(child, rest, value);
}

/// Converts a driftctl report (already known to be one) to the text of an equivalent plan and the
/// facts the plan cannot hold. Fails with serde's error when the report's shape is wrong.
pub fn convert(text: &str) -> Result<(String, DriftctlFacts), serde_json::Error> {
    let report: Report = serde_json::from_str(text)?;
    let s = &report.summary;
    // v0.7 wrote `deleted` and `total_drifted`; v0.8 renamed them `missing` and `total_changed`,
    // but some v0.8–v0.39 reports still carry `total_drifted` beside `missing`/`differences`.
    let v0_7_only = report.missing.is_none() && report.differences.is_none();
    let format = if report.deleted.is_some() || (s.total_drifted.is_some() && v0_7_only) {
        "v0.7"
    } else if report.differences.is_some() || s.total_changed.is_some() {
        "v0.8–v0.39"
    } else {
        "v0.40+"
    }
    .to_string();
    let provider = report
        .provider_name
        .as_deref()
        .unwrap_or("driftctl")
        .to_lowercase();

    let mut drift = Vec::new();
    let mut computed = Vec::new();
    for d in report.differences.iter().flatten() {
        let (mut before, mut after) = (Value::Null, Value::Null);
        for c in &d.changelog {
            // `create`: the attribute appeared (only `to`); `delete`: it vanished (only `from`).
            if c.kind != "create" {
                set_path(&mut before, &c.path, c.from.clone());
            }
            if c.kind != "delete" {
                set_path(&mut after, &c.path, c.to.clone());
            }
            if c.computed {
                computed.push((d.res.address(), c.path.join(".")));
            }
        }
        // The cloud id, unchanged on both sides, says which object this is.
        for side in [&mut before, &mut after] {
            if side.is_null() {
                *side = json!({});
            }
            if let Value::Object(map) = side {
                map.entry("id").or_insert_with(|| json!(d.res.id));
            }
        }
        drift.push(d.res.drift_entry(&provider, &["update"], before, after));
    }
    let missing = report.missing.as_ref().or(report.deleted.as_ref());
    for m in missing.into_iter().flatten() {
        drift.push(m.drift_entry(&provider, &["delete"], json!({ "id": m.id }), Value::Null));
    }
    drift.sort_by(|a, b| a.address.cmp(&b.address));

    let mut alerts = Vec::new();
    for (about, list) in report.alerts.iter().flatten() {
        for a in list.iter().flatten() {
            alerts.push((about.clone(), a.message.clone()));
        }
    }
    let facts = DriftctlFacts {
        format,
        total_resources: s.total_resources,
        managed: s.total_managed,
        unmanaged: s.total_unmanaged,
        missing: s
            .total_missing
            .or(s.total_deleted)
            .unwrap_or_else(|| missing.map_or(0, |m| m.len() as u64)),
        changed: s.total_changed.or(s.total_drifted),
        coverage: report.coverage.round().clamp(0.0, 100.0) as u64,
        unmanaged_resources: report
            .unmanaged
            .iter()
            .flatten()
            .map(|r| (r.resource_type.clone(), r.id.clone()))
            .collect(),
        alerts,
        computed,
        provider: report
            .provider_name
            .as_ref()
            .map(|p| match &report.provider_version {
                Some(v) => format!("{p} {v}"),
                None => p.clone(),
            }),
        date: report.date.clone(),
    };
    let plan = ConvertedPlan {
        resource_drift: Some(drift),
        ..ConvertedPlan::new()
    };
    Ok((plan.text(Keys::Sorted), facts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_with_numeric_steps_build_lists() {
        let mut v = Value::Null;
        set_path(
            &mut v,
            &["struct".into(), "0".into(), "array".into()],
            json!("x"),
        );
        assert_eq!(v, json!({ "struct": [{ "array": "x" }] }));
    }

    #[test]
    fn ids_become_quoted_keys_when_the_state_address_is_unknown() {
        let r = Res {
            id: "sg-1 \"a\"".into(),
            resource_type: "aws_security_group".into(),
            source: None,
        };
        assert_eq!(r.address(), "aws_security_group[\"sg-1 \\\"a\\\"\"]");
    }
}
