//! Drift: what changed outside Terraform, how badly, and whether the plan would undo it.
//!
//! One model for every drift source: a plan's `resource_drift` (including refresh-only plans), a
//! `terraform plan -json` log's `resource_drift` messages, and driftctl reports (converted on load).
//!
//! What counts as drift follows Terraform: a change between `null` and an empty value (`[]`, `{}`,
//! `""`) is not one (providers normalise "not set" either way), so an entry with nothing else is
//! not drift, and Terraform 1.0.0's unchanged entries neither ([`is_unchanged_drift`]). When the
//! plan says which attributes its changes depend on (`relevant_attributes`, Terraform 1.2+, not in
//! refresh-only plans), drift outside them is not relevant to the plan: Terraform does not show it.
//!
//! Severity follows the team's remediation policy, over the relevant attributes: drift confined to
//! tags and labels is minor (auto-remediate); any other changed attribute, or an object deleted
//! outside Terraform, is structural (a human decides); a resource none of whose drifted attributes
//! is relevant is graded "not relevant". When the input has no values (plan logs) drift counts as
//! structural, since nothing shows it was only tags.
//!
//! What the plan does about it comes from one function ([`PlanEffect::of`], over
//! [`AttributeEffect`]s), so the header, the list and the attribute table say the same thing.
//!
//! Nor is a change between two strings holding equal JSON. Minor means only `tags`, `tags_all` or
//! `labels` changed, at any depth; resources not relevant are listed last. A deleted object says
//! what it was (type, id). `PlanEffect::of` words each attribute and the resource (reverts, keeps,
//! changes, partly, keeps part, replaces, …), and every resource's effect agrees with its
//! attributes' (tested over every real file). `Drift::note` gives Terraform's note;
//! `incompleteness(doc, planning, listed)` says why the list may not be all the drift there is
//! (planning failed, a partial input, a Terraform before 0.15.4), in place of "No drift". Sensitive
//! values are named by path at most, never entered. A drifted row ⇔ a `Drift` entry:
//! `is_unchanged_drift` is the one decision for both.

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use serde_json::Value;
use serde_json::value::RawValue;

use planlens_model::document::{drift_address, same_ignoring_empty};
use planlens_model::planning::Planning;
use planlens_model::{Action, Address, Document, RowSource, Source};

pub use planlens_model::document::is_unchanged_drift;
pub use planlens_model::drifted::{
    AttributeEffect, DeletedObject, DriftedAttribute, DriftedResource, PlanEffect, Severity,
};

/// Top-level attributes whose drift alone is minor.
pub const TAG_ATTRIBUTES: [&str; 3] = ["tags", "tags_all", "labels"];

/// At most this many drifted paths are listed per resource (a rewritten list can touch thousands).
pub const MAX_PATHS: usize = 64;

/// What the plan does about the drifted attribute at `path`: its planned value compared with
/// the values before and after the drift (`null` and empty values count as one).
fn attribute_effect(
    planned: Option<&Planned>,
    before: &Value,
    after: &Value,
    path: &[Step],
) -> AttributeEffect {
    let Some(planned) = planned else {
        return AttributeEffect::Unknown;
    };
    match planned.action {
        Action::NoOp => AttributeEffect::Kept,
        Action::Update | Action::Read if is_marked(&planned.unknown, path) => {
            AttributeEffect::Unknown
        }
        Action::Update | Action::Read => {
            let value = at(&planned.after, path);
            if same_ignoring_empty(value, at(before, path)) {
                AttributeEffect::Reverted
            } else if same_ignoring_empty(value, at(after, path)) {
                AttributeEffect::Kept
            } else {
                AttributeEffect::Changed
            }
        }
        _ => AttributeEffect::Unknown,
    }
}

/// The planned change of a drifted resource, parsed once.
struct Planned {
    action: Action,
    after: Value,
    unknown: Value,
}

/// Terraform writes drift into its plans since 0.15.4 (`resource_drift`, and the "Objects have
/// changed outside of Terraform" note); a plan from an older Terraform says nothing about drift
/// either way.
const DRIFT_REPORTED_SINCE: [u32; 3] = [0, 15, 4];

/// Why the drift a document lists may not be all there is: planning failed (Terraform may have
/// stopped before comparing every resource with what exists), the input is not the whole plan,
/// or an older Terraform wrote it that reports no drift at all. One sentence, said in place of
/// "No drift" when nothing is listed and above the list otherwise; `None` when the list is all
/// Terraform found. (A state is told apart before: it shows no drift at all.)
pub fn incompleteness(doc: &Document, planning: &Planning, listed: usize) -> Option<String> {
    let lead = if listed == 0 {
        "Drift not known"
    } else {
        "Drift may be incomplete"
    };
    let why = if planning.failed() {
        "planning failed, so Terraform may have stopped before it compared every resource with \
         what exists. Fix the error and plan again."
            .to_string()
    } else if let Planning::ScanPartial { .. } = planning {
        "driftctl left some resource types out of its scan (its alerts say which), so their \
         drift is not shown."
            .to_string()
    } else if planning.is_incomplete() {
        "this is not the whole plan (see why above), so drift in the rest is not shown.".to_string()
    } else if matches!(doc.source, Source::TextPlan(_)) && !is_refresh_only(doc) {
        // Terraform's and OpenTofu's text print only the outside changes "which may have
        // affected this plan" (those in its relevant attributes); the JSON has them all.
        let tool = planlens_model::summary::Tool::of(doc).name();
        format!(
            "a human-readable plan shows only what changed outside {tool} that may affect the \
             plan. Open the plan's JSON (`show -json`) to see all drift."
        )
    } else if let Some(version) = old_terraform(doc) {
        format!(
            "Terraform {version} wrote this plan, and Terraform reports drift in its plans only \
             since 0.15.4. Plan with a newer Terraform to see drift."
        )
    } else {
        return None;
    };
    Some(format!("{lead}: {why}"))
}

/// The plan's Terraform version when it is older than [`DRIFT_REPORTED_SINCE`].
fn old_terraform(doc: &Document) -> Option<String> {
    if !matches!(doc.source, Source::Plan | Source::PlanLog(_)) {
        return None;
    }
    let version = doc.plan().terraform_version.as_deref()?.trim();
    let numbers: Vec<u32> = version
        .split(['.', '-', '+'])
        .take(3)
        .map_while(|part| part.parse().ok())
        .collect();
    (numbers.len() == 3 && numbers.as_slice() < DRIFT_REPORTED_SINCE.as_slice())
        .then(|| planlens_model::text::visible(version))
}

/// Everything that drifted in a document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Drift {
    /// Drifted resources in the plan's (address) order, those not relevant to the plan last.
    pub resources: Vec<DriftedResource>,
    /// Resources whose drift is minor.
    pub minor: usize,
    /// Resources whose drift is structural.
    pub structural: usize,
    /// Resources whose drift is not relevant to the plan.
    pub not_relevant: usize,
    /// Per document row, the index into `resources` of its drift.
    by_row: Vec<Option<u32>>,
    /// The tool that made the plan, named in [`Drift::note`] as it names itself.
    pub tool: planlens_model::summary::Tool,
}

impl Drift {
    /// Finds and grades every drifted resource of a document.
    pub fn of(doc: &Document) -> Drift {
        let plan = doc.plan();
        // FxHash: every row's address is hashed (SipHash was a tenth of opening a large plan).
        let mut by_address: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
        let mut by_resource: FxHashMap<String, Vec<u32>> = FxHashMap::default();
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
        // Terraform shows all of a refresh-only plan's drift, and otherwise only what
        // `relevant_attributes` names (command/jsonformat's precomputeDiffs).
        let relevance = if is_refresh_only(doc) {
            None
        } else {
            relevant_attributes(plan.relevant_attributes)
        };
        let computed: &[(String, String)] = match &doc.source {
            Source::Driftctl(f) => &f.computed,
            _ => &[],
        };
        let values_known = doc.has_values();

        let mut resources = Vec::new();
        for (entry, d) in plan.resource_drift.iter().enumerate() {
            let address = drift_address(d).into_owned();
            let rows = if d.address.is_empty() {
                by_resource.get(&address).cloned().unwrap_or_default()
            } else {
                by_address.get(&*address).cloned().unwrap_or_default()
            };
            let planned_row = rows
                .iter()
                .map(|&r| &doc.rows[r as usize])
                .find(|r| !matches!(r.source, RowSource::Drift(_)));
            let action = d.change.actions;
            let before = parse(d.change.before);
            let mut attributes = Vec::new();
            let mut more_attributes = 0;
            if values_known && action != Action::Delete {
                let after = parse(d.change.after);
                // The decision `is_unchanged_drift` makes for the document's rows, on the values
                // parsed here anyway.
                let both = d.change.before.is_some() && d.change.after.is_some();
                if matches!(action, Action::Update | Action::NoOp)
                    && both
                    && same_ignoring_empty(&before, &after)
                {
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
                let planned = planned_row.map(|r| {
                    let c = &doc.change(r).change;
                    Planned {
                        action: r.action,
                        after: parse(c.after),
                        unknown: parse(c.after_unknown),
                    }
                });
                let relevant: Vec<&Vec<Step>> = relevance
                    .iter()
                    .flat_map(|m| [m.get(address.as_str()), m.get("")])
                    .flatten()
                    .flatten()
                    .collect();
                for path in paths {
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
                        relevant: relevant
                            .iter()
                            .any(|r| is_prefix(r, &path) || is_prefix(&path, r)),
                        effect: attribute_effect(planned.as_ref(), &before, &after, &path),
                        computed: computed
                            .iter()
                            .any(|(a, p)| *a == address && *p == dotted(&path)),
                    });
                }
            }
            let relevance_known = relevance.is_some() && values_known;
            let deleted = (action == Action::Delete).then(|| DeletedObject {
                resource_type: d.resource_type.to_string(),
                id: object_id(&before, &parse(d.change.before_sensitive)),
            });
            resources.push(DriftedResource {
                paths: attributes.iter().map(|a| a.path.clone()).collect(),
                entry: entry as u32,
                address,
                rows,
                action,
                severity: Severity::of(
                    action,
                    values_known,
                    relevance_known,
                    &attributes,
                    more_attributes,
                ),
                effect: match doc.source {
                    Source::Driftctl(_) => PlanEffect::NoPlan,
                    _ => PlanEffect::of(
                        planned_row.map(|r| r.action),
                        action,
                        values_known,
                        attributes.iter().map(|a| a.effect),
                    ),
                },
                attributes,
                more_attributes,
                values_known,
                relevance_known,
                deleted,
            });
        }
        // Stable: plan order within each part.
        planlens_model::sort::by_key(&mut resources, |r| r.severity == Severity::NotRelevant);
        Drift {
            tool: planlens_model::summary::Tool::of(doc),
            ..Drift::from_resources(resources, doc.rows.len())
        }
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
                Severity::NotRelevant => drift.not_relevant += 1,
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
    /// `None` when nothing drifted. Terraform leaves out drift that cannot affect the plan
    /// (outside `relevant_attributes`); the note counts it apart, so it never reads as if it
    /// mattered: `Note: 1 resource has changed outside of Terraform (and 2 more in ways that do
    /// not affect this plan).`
    pub fn note(&self) -> Option<String> {
        let tool = self.tool.name();
        let relevant = self.resources.len() - self.not_relevant;
        let resources = |n: usize| planlens_model::summary::count(n, "resource", "resources");
        match (relevant, self.not_relevant) {
            (0, 0) => None,
            (0, n) => Some(format!(
                "Note: {} changed outside of {tool} in ways that do not affect this plan.",
                resources(n)
            )),
            (r, n) => {
                let verb = if r == 1 { "has" } else { "have" };
                let more = if n > 0 {
                    format!(" (and {n} more in ways that do not affect this plan)")
                } else {
                    String::new()
                };
                Some(format!(
                    "Note: {} {verb} changed outside of {tool}{more}.",
                    resources(r)
                ))
            }
        }
    }

    /// `2 structural, 1 minor`-style totals, with `, 3 not relevant` when some drift is not
    /// relevant to the plan.
    pub fn totals(&self) -> String {
        let mut s = format!("{} structural, {} minor", self.structural, self.minor);
        if self.not_relevant > 0 {
            s.push_str(&format!(", {} not relevant", self.not_relevant));
        }
        s
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

/// The value at `path` (`null` where there is none).
fn at<'v>(v: &'v Value, path: &[Step]) -> &'v Value {
    path.iter()
        .try_fold(v, |v, s| child(v, s))
        .unwrap_or(&Value::Null)
}

/// A deleted object's `id` from its value before the deletion, unless it is sensitive.
fn object_id(before: &Value, before_sensitive: &Value) -> Option<String> {
    let path = [Step::Key("id".to_string())];
    if is_marked(before_sensitive, &path) {
        return None;
    }
    match at(before, &path) {
        Value::String(id) if !id.is_empty() => Some(id.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
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

/// Collects the paths where `before` and `after` differ, descending through objects and
/// equal-length lists, stopping at sensitive values (their insides are not named). A difference
/// between `null` and an empty value is none ([`same_ignoring_empty`]), so this finds no path
/// exactly when the two are the same for it.
fn changed_paths(
    before: &Value,
    after: &Value,
    sensitive: &[Value; 2],
    path: &mut Vec<Step>,
    out: &mut Vec<Vec<Step>>,
) {
    if out.len() > MAX_PATHS || same_ignoring_empty(before, after) {
        return;
    }
    let sensitive_here = sensitive.iter().any(|m| is_marked(m, path));
    match (before, after) {
        (Value::Object(b), Value::Object(a)) if !sensitive_here => {
            let mut keys: Vec<&String> = b.keys().chain(a.keys()).collect();
            planlens_model::sort::natural(&mut keys);
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

/// `relevant_attributes` as address → paths (an empty address stands for every resource, as in
/// Terraform's renderer); `None` when the plan does not have them. Steps are strings (attributes,
/// map keys) or numbers (list indexes).
fn relevant_attributes(raw: Option<&RawValue>) -> Option<HashMap<String, Vec<Vec<Step>>>> {
    #[derive(serde::Deserialize)]
    struct Entry {
        #[serde(default)]
        resource: String,
        #[serde(default)]
        attribute: Vec<Value>,
    }
    let entries: Vec<Entry> = serde_json::from_str(raw?.get()).ok()?;
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
    Some(map)
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
    fn null_and_empty_values_are_no_change_at_any_depth() {
        assert!(
            paths(
                json!({"tags": null, "egress": [{"prefix_list_ids": null, "description": null}], "policy": null}),
                json!({"tags": {}, "egress": [{"prefix_list_ids": [], "description": ""}]})
            )
            .is_empty()
        );
        assert_eq!(
            paths(
                json!({"tags": null, "egress": [{"cidr_blocks": null}]}),
                json!({"tags": {"Owner": "a"}, "egress": [{"cidr_blocks": ["0.0.0.0/0"]}]})
            ),
            ["egress[0].cidr_blocks", "tags"]
        );
        // A block whose attributes are all null is not an empty value.
        assert_eq!(paths(json!({"b": null}), json!({"b": {"x": null}})), ["b"]);
        assert!(!same_ignoring_empty(&json!(0), &json!(null)));
        assert!(!same_ignoring_empty(&json!(false), &json!("")));
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
