//! Drift: what changed outside Terraform, how badly, and whether the plan would undo it.
//!
//! One model for every drift source: a plan's `resource_drift` (including refresh-only plans), a
//! `terraform plan -json` log's `resource_drift` messages, and driftctl reports (converted on load).
//!
//! Severity follows the team's remediation policy: drift confined to tags and labels is minor
//! (auto-remediate); any other changed attribute, or an object deleted outside Terraform, is
//! structural (a human decides). When the input has no values (plan logs) drift counts as
//! structural, since nothing shows it was only tags. Terraform 1.0.0 listed unchanged resources in
//! `resource_drift`; entries whose values are equal are not drift and are skipped.

/// How a drifted resource must be remediated, per the team's policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Only tags or labels (`tags`, `tags_all`, `labels`) changed: auto-remediate.
    Minor,
    /// Any other attribute changed, or the object was deleted: alert, a human decides.
    Structural,
}

impl Severity {
    /// Lowercase name for text output, JSON and CSS.
    pub fn key(self) -> &'static str {
        match self {
            Severity::Minor => "minor",
            Severity::Structural => "structural",
        }
    }
}

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::document::drift_address;
use crate::model::{Action, Address, Document, RowSource, Source};

/// Top-level attributes whose drift alone is minor.
pub const TAG_ATTRIBUTES: [&str; 3] = ["tags", "tags_all", "labels"];

/// At most this many drifted paths are listed per resource (a rewritten list can touch thousands).
pub const MAX_PATHS: usize = 64;

/// What the plan does about one drifted attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttributeEffect {
    /// The planned value is the value from before the drift: applying undoes it.
    Reverted,
    /// The planned value is the drifted one: applying keeps it.
    Kept,
    /// The plan sets a third value.
    Changed,
    /// The planned value is known only after apply, or the plan does not touch the object.
    Unknown,
}

/// One drifted attribute path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftedAttribute {
    /// The path as Terraform writes it: `tags.Owner`, `ingress[0].cidr_blocks`,
    /// `tags["kubernetes.io/role"]`.
    pub path: String,
    /// Its first step (the resource's attribute).
    pub top: String,
    /// True when the path is inside tags or labels (`tags`, `tags_all` or `labels` at any depth,
    /// so the tags of a nested block such as `root_block_device[0].tags` count too).
    pub is_tag: bool,
    /// True when `relevant_attributes` says this attribute matters to the plan.
    pub relevant: bool,
    /// What the plan does about it.
    pub effect: AttributeEffect,
    /// True when driftctl marks the path as computed: possibly a false positive.
    pub computed: bool,
}

/// What the plan does about a drifted resource as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlanEffect {
    /// Every drifted attribute goes back to its value from before the drift.
    Reverts,
    /// The plan keeps the drifted values (configuration matches them, or `ignore_changes`).
    Keeps,
    /// Some drifted attributes go back, others do not.
    Partly,
    /// The plan replaces the object.
    Replaces,
    /// The plan destroys (or forgets) the object.
    Destroys,
    /// The object was deleted outside Terraform and the plan creates it again.
    Recreates,
    /// The plan has no change for it (refresh-only plans and drift reports).
    NotInPlan,
    /// The input has no values to compare (plan logs), or the planned values are unknown.
    Unknown,
}

impl PlanEffect {
    /// Stable lowercase name for JSON, CSS and tests.
    pub fn key(self) -> &'static str {
        match self {
            PlanEffect::Reverts => "reverts",
            PlanEffect::Keeps => "keeps",
            PlanEffect::Partly => "partly",
            PlanEffect::Replaces => "replaces",
            PlanEffect::Destroys => "destroys",
            PlanEffect::Recreates => "recreates",
            PlanEffect::NotInPlan => "not-in-plan",
            PlanEffect::Unknown => "unknown",
        }
    }

    /// A sentence for the drift view.
    pub fn sentence(self) -> &'static str {
        match self {
            PlanEffect::Reverts => "The plan reverts this drift.",
            PlanEffect::Keeps => "The plan keeps the drifted values.",
            PlanEffect::Partly => "The plan reverts part of this drift.",
            PlanEffect::Replaces => "The plan replaces this resource.",
            PlanEffect::Destroys => "The plan destroys this resource.",
            PlanEffect::Recreates => "Deleted outside Terraform; the plan creates it again.",
            PlanEffect::NotInPlan => "The plan does not change this resource.",
            PlanEffect::Unknown => "Whether the plan reverts this drift is not known.",
        }
    }
}

/// One resource that changed outside Terraform.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriftedResource {
    /// Index into the plan's `resource_drift`.
    pub entry: u32,
    /// Its address (for Terraform 1.0.0's address-less entries, the resource address).
    pub address: String,
    /// The document rows it concerns (its planned change, or its own drift-only row).
    pub rows: Vec<u32>,
    /// What happened outside Terraform: `Update`, or `Delete` for an object deleted outside.
    #[serde(with = "crate::model::action::by_key")]
    pub action: Action,
    /// Minor (tags only) or structural.
    pub severity: Severity,
    /// Drifted attribute paths, at most [`MAX_PATHS`]; empty for deletes and for inputs without
    /// values.
    pub attributes: Vec<DriftedAttribute>,
    /// Paths left out beyond [`MAX_PATHS`].
    pub more_attributes: usize,
    /// The attributes' paths alone (what rules and JSON output see).
    pub paths: Vec<String>,
    /// False when the input carries no values (plan logs): the attributes are not known.
    pub values_known: bool,
    /// What the plan does about it.
    pub effect: PlanEffect,
}

impl DriftedResource {
    /// The attribute paths as plain strings (for rules and JSON output).
    pub fn attribute_paths(&self) -> Vec<String> {
        self.paths.clone()
    }
}

/// Everything that drifted in a document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Drift {
    /// Drifted resources in the plan's (address) order.
    pub resources: Vec<DriftedResource>,
    /// Resources whose drift is minor.
    pub minor: usize,
    /// Resources whose drift is structural.
    pub structural: usize,
    /// Per document row, the index into `resources` of its drift.
    by_row: Vec<Option<u32>>,
}

impl Drift {
    /// Finds and grades every drifted resource of a document.
    pub fn of(doc: &Document) -> Drift {
        if let Some(r) = &doc.redacted {
            return Drift::from_resources(r.drift.clone(), doc.rows.len());
        }
        let plan = doc.plan();
        let mut by_address: HashMap<&str, Vec<u32>> = HashMap::new();
        let mut by_resource: HashMap<String, Vec<u32>> = HashMap::new();
        let any_addressless = plan.resource_drift.iter().any(|d| d.address.is_empty());
        for (i, row) in doc.rows.iter().enumerate() {
            let address = &*doc.change(row).address;
            by_address.entry(address).or_default().push(i as u32);
            if any_addressless && let Ok(a) = Address::parse(address) {
                by_resource
                    .entry(a.resource_path())
                    .or_default()
                    .push(i as u32);
            }
        }
        let relevant = relevant_attributes(plan.relevant_attributes);
        let computed: &[(String, String)] = match &doc.source {
            Source::Driftctl(f) => &f.computed,
            _ => &[],
        };
        let values_known = doc.has_values();

        let mut drift = Drift {
            by_row: vec![None; doc.rows.len()],
            ..Drift::default()
        };
        for (entry, d) in plan.resource_drift.iter().enumerate() {
            let address = drift_address(d).into_owned();
            let rows = if d.address.is_empty() {
                by_resource.get(&address).cloned().unwrap_or_default()
            } else {
                by_address.get(&*address).cloned().unwrap_or_default()
            };
            let planned = rows
                .iter()
                .map(|&r| &doc.rows[r as usize])
                .find(|r| !matches!(r.source, RowSource::Drift(_)));
            let action = d.change.actions;
            let mut attributes = Vec::new();
            let mut more_attributes = 0;
            let mut effect = match planned.map(|r| r.action) {
                None => PlanEffect::NotInPlan,
                Some(Action::Replace(_)) => PlanEffect::Replaces,
                Some(Action::Delete | Action::Forget) => PlanEffect::Destroys,
                Some(Action::Create) if action == Action::Delete => PlanEffect::Recreates,
                Some(Action::NoOp) => PlanEffect::Keeps,
                Some(_) if !values_known => PlanEffect::Unknown,
                Some(_) => PlanEffect::Reverts, // refined per attribute below
            };
            if values_known && action != Action::Delete {
                let before = parse(d.change.before);
                let after = parse(d.change.after);
                // Terraform 1.0.0's unchanged entries (the test `is_unchanged_drift` makes for
                // the document's rows, on the values parsed here anyway).
                let both = d.change.before.is_some() && d.change.after.is_some();
                if action == Action::Update && both && before == after {
                    continue;
                }
                let sensitive = [
                    parse(d.change.before_sensitive),
                    parse(d.change.after_sensitive),
                ];
                let mut paths = Vec::new();
                changed_paths(&before, &after, &sensitive, &mut Vec::new(), &mut paths);
                more_attributes = paths.len().saturating_sub(MAX_PATHS);
                paths.truncate(MAX_PATHS);
                let planned_change = planned.map(|r| &doc.change(r).change);
                let planned_after = planned_change.map(|c| parse(c.after));
                let planned_unknown = planned_change.map(|c| parse(c.after_unknown));
                let rel = relevant.get(address.as_str());
                for path in paths {
                    let attr_effect = match (&planned_after, planned.map(|r| r.action)) {
                        (Some(pa), Some(Action::Update | Action::Read)) => {
                            let unknown = planned_unknown
                                .as_ref()
                                .is_some_and(|u| is_unknown(u, &path));
                            let planned_value = lookup(pa, &path);
                            if unknown {
                                AttributeEffect::Unknown
                            } else if planned_value == lookup(&before, &path) {
                                AttributeEffect::Reverted
                            } else if planned_value == lookup(&after, &path) {
                                AttributeEffect::Kept
                            } else {
                                AttributeEffect::Changed
                            }
                        }
                        (_, Some(Action::NoOp)) => AttributeEffect::Kept,
                        _ => AttributeEffect::Unknown,
                    };
                    attributes.push(DriftedAttribute {
                        path: display_path(&path),
                        top: match path.first() {
                            Some(Step::Key(k)) => k.clone(),
                            Some(Step::Index(i)) => i.to_string(),
                            None => String::new(),
                        },
                        is_tag: path.iter().any(
                            |s| matches!(s, Step::Key(k) if TAG_ATTRIBUTES.contains(&k.as_str())),
                        ),
                        relevant: rel.is_some_and(|r| {
                            r.iter().any(|p| is_prefix(p, &path) || is_prefix(&path, p))
                        }),
                        effect: attr_effect,
                        computed: computed
                            .iter()
                            .any(|(a, p)| *a == address && *p == dotted(&path)),
                    });
                }
                if effect == PlanEffect::Reverts {
                    let reverted = attributes
                        .iter()
                        .filter(|a| a.effect == AttributeEffect::Reverted)
                        .count();
                    effect = if attributes
                        .iter()
                        .any(|a| a.effect == AttributeEffect::Unknown)
                    {
                        PlanEffect::Unknown
                    } else if reverted == attributes.len() {
                        PlanEffect::Reverts
                    } else if reverted == 0 {
                        PlanEffect::Keeps
                    } else {
                        PlanEffect::Partly
                    };
                }
            }
            let severity = if action == Action::Delete || (!values_known) {
                Severity::Structural
            } else if attributes.iter().all(|a| a.is_tag) && more_attributes == 0 {
                Severity::Minor
            } else {
                Severity::Structural
            };
            match severity {
                Severity::Minor => drift.minor += 1,
                Severity::Structural => drift.structural += 1,
            }
            let index = drift.resources.len() as u32;
            for &r in &rows {
                drift.by_row[r as usize].get_or_insert(index);
            }
            drift.resources.push(DriftedResource {
                paths: attributes.iter().map(|a| a.path.clone()).collect(),
                entry: entry as u32,
                address,
                rows,
                action,
                severity,
                attributes,
                more_attributes,
                values_known,
                effect,
            });
        }
        drift
    }

    /// The drift of a document of `rows` rows made of already graded resources (a redacted share
    /// link carries them).
    pub fn from_resources(resources: Vec<DriftedResource>, rows: usize) -> Drift {
        let mut drift = Drift {
            by_row: vec![None; rows],
            ..Drift::default()
        };
        for (index, r) in resources.iter().enumerate() {
            match r.severity {
                Severity::Minor => drift.minor += 1,
                Severity::Structural => drift.structural += 1,
            }
            for &row in &r.rows {
                if let Some(slot) = drift.by_row.get_mut(row as usize) {
                    slot.get_or_insert(index as u32);
                }
            }
        }
        drift.resources = resources;
        drift
    }

    /// The drift of a document row, if it drifted.
    pub fn for_row(&self, row: usize) -> Option<&DriftedResource> {
        self.by_row
            .get(row)
            .copied()
            .flatten()
            .map(|i| &self.resources[i as usize])
    }

    /// Terraform's note, in its words: `Note: 2 resources have changed outside of Terraform.`;
    /// `None` when nothing drifted.
    pub fn note(&self) -> Option<String> {
        match self.resources.len() {
            0 => None,
            1 => Some("Note: 1 resource has changed outside of Terraform.".to_string()),
            n => Some(format!(
                "Note: {n} resources have changed outside of Terraform."
            )),
        }
    }

    /// `2 structural, 1 minor`-style totals.
    pub fn totals(&self) -> String {
        format!("{} structural, {} minor", self.structural, self.minor)
    }
}

/// True when the document is a refresh-only plan: drift, and no planned changes at all.
pub fn is_refresh_only(doc: &Document) -> bool {
    let plan = doc.plan();
    matches!(doc.source, Source::Plan)
        && !plan.resource_drift.is_empty()
        && plan.resource_changes.is_empty()
}

/// One step of an attribute path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

fn parse(raw: Option<&RawValue>) -> Value {
    raw.and_then(|r| serde_json::from_str(r.get()).ok())
        .unwrap_or(Value::Null)
}

fn child<'v>(v: &'v Value, step: &Step) -> Option<&'v Value> {
    match (v, step) {
        (Value::Object(m), Step::Key(k)) => m.get(k),
        (Value::Array(a), Step::Index(i)) => a.get(*i),
        _ => None,
    }
}

fn lookup<'v>(v: &'v Value, path: &[Step]) -> Option<&'v Value> {
    path.iter()
        .try_fold(v, |v, s| child(v, s))
        .filter(|v| !v.is_null())
}

/// True when a sensitivity or unknown mirror marks the path (or an ancestor) with `true`.
fn is_marked(mirror: &Value, path: &[Step]) -> bool {
    let mut v = mirror;
    for step in path {
        if v == &Value::Bool(true) {
            return true;
        }
        match child(v, step) {
            Some(c) => v = c,
            None => return false,
        }
    }
    v == &Value::Bool(true)
}

fn is_unknown(mirror: &Value, path: &[Step]) -> bool {
    is_marked(mirror, path)
}

/// Collects the paths where `before` and `after` differ, descending through objects and
/// equal-length lists, stopping at sensitive values (their insides are not named).
fn changed_paths(
    before: &Value,
    after: &Value,
    sensitive: &[Value; 2],
    path: &mut Vec<Step>,
    out: &mut Vec<Vec<Step>>,
) {
    if before == after || out.len() > MAX_PATHS {
        return;
    }
    let sensitive_here = sensitive.iter().any(|m| is_marked(m, path));
    match (before, after) {
        (Value::Object(b), Value::Object(a)) if !sensitive_here => {
            let mut keys: Vec<&String> = b.keys().chain(a.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let (bv, av) = (
                    b.get(k).unwrap_or(&Value::Null),
                    a.get(k).unwrap_or(&Value::Null),
                );
                path.push(Step::Key(k.clone()));
                changed_paths(bv, av, sensitive, path, out);
                path.pop();
            }
        }
        (Value::Array(b), Value::Array(a)) if !sensitive_here && a.len() == b.len() => {
            for (i, (bv, av)) in b.iter().zip(a).enumerate() {
                path.push(Step::Index(i));
                changed_paths(bv, av, sensitive, path, out);
                path.pop();
            }
        }
        _ => out.push(path.clone()),
    }
}

fn is_prefix(prefix: &[Step], path: &[Step]) -> bool {
    prefix.len() <= path.len() && prefix.iter().zip(path).all(|(a, b)| a == b)
}

/// driftctl's way of writing a path: steps joined by dots (`struct.0.array.0`).
fn dotted(path: &[Step]) -> String {
    path.iter()
        .map(|s| match s {
            Step::Key(k) => k.clone(),
            Step::Index(i) => i.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// `tags.Owner`, `ingress[0].cidr_blocks`, `tags["kubernetes.io/role"]`.
fn display_path(path: &[Step]) -> String {
    let mut s = String::new();
    for step in path {
        match step {
            Step::Index(i) => s.push_str(&format!("[{i}]")),
            Step::Key(k)
                if !k.is_empty()
                    && k.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') =>
            {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Step::Key(k) => s.push_str(&format!("[{}]", Value::String(k.clone()))),
        }
    }
    s
}

/// `relevant_attributes` as address → paths. Steps are strings (attributes, map keys) or numbers
/// (list indexes).
fn relevant_attributes(raw: Option<&RawValue>) -> HashMap<String, Vec<Vec<Step>>> {
    #[derive(serde::Deserialize)]
    struct Entry {
        #[serde(default)]
        resource: String,
        #[serde(default)]
        attribute: Vec<Value>,
    }
    let entries: Vec<Entry> = raw
        .and_then(|r| serde_json::from_str(r.get()).ok())
        .unwrap_or_default();
    let mut map: HashMap<String, Vec<Vec<Step>>> = HashMap::new();
    for e in entries {
        let path = e
            .attribute
            .iter()
            .filter_map(|s| match s {
                Value::String(k) => Some(Step::Key(k.clone())),
                Value::Number(n) => n.as_u64().map(|i| Step::Index(i as usize)),
                _ => None,
            })
            .collect();
        map.entry(e.resource).or_default().push(path);
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(before: Value, after: Value) -> Vec<String> {
        let mut out = Vec::new();
        changed_paths(
            &before,
            &after,
            &[Value::Null, Value::Null],
            &mut Vec::new(),
            &mut out,
        );
        out.iter().map(|p| display_path(p)).collect()
    }

    #[test]
    fn changed_paths_name_leaves_and_quote_odd_keys() {
        assert_eq!(
            paths(
                json!({"tags": {"Owner": "a", "kubernetes.io/role": "x"}, "size": 1}),
                json!({"tags": {"Owner": "b", "kubernetes.io/role": "y"}, "size": 1})
            ),
            ["tags.Owner", "tags[\"kubernetes.io/role\"]"]
        );
        assert_eq!(paths(json!({"l": [1, 2]}), json!({"l": [1]})), ["l"]);
        assert_eq!(paths(json!({"l": [1, 2]}), json!({"l": [1, 3]})), ["l[1]"]);
    }

    #[test]
    fn sensitive_values_are_named_but_not_entered() {
        let mut out = Vec::new();
        changed_paths(
            &json!({"secret": {"user": "a", "pw": "x"}}),
            &json!({"secret": {"user": "a", "pw": "y"}}),
            &[json!({"secret": true}), json!({"secret": true})],
            &mut Vec::new(),
            &mut out,
        );
        assert_eq!(
            out.iter().map(|p| display_path(p)).collect::<Vec<_>>(),
            ["secret"]
        );
    }
}
