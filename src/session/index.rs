//! The values-free index of an open plan: what the session hands the views so they can list,
//! count, draw and filter without the plan's values. Its plan part is a plan in Terraform's own
//! format that keeps every change's identity and actions and drops every attribute value, so it
//! loads as a [`Document`] through the same parser and row index as any plan; its analyses part
//! carries what cannot be recomputed without values (`model::redaction::Payload`'s graph, drift
//! and findings, plus output and check rows). `load::redacted::read_index` reads it back.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::checks::CheckRow;
use crate::model::document::is_unchanged_drift;
use crate::model::drifted::DriftedResource;
use crate::model::plan::{Mode, ResourceChange};
use crate::model::redaction::CarriedGraph;
use crate::model::{Document, Source};
use crate::outputs::OutputRow;

/// What the views need besides the plan's rows: the analyses made from the full plan.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Analyses {
    /// The file name the plan was opened as.
    pub name: String,
    /// What kind of input it came from, with every fact (diagnostics included).
    pub source: Source,
    /// Load warnings.
    pub warnings: Vec<String>,
    /// What decoding the file undid (gzip, UTF-16, CI wrapper lines).
    pub notes: Vec<String>,
    /// The secret-name mask the plan was opened with (built-in patterns on, the user's own).
    pub mask_builtin: bool,
    /// The user's own secret-name patterns.
    pub mask_user: Vec<String>,
    /// True when the plan carries sensitivity marks of its own.
    pub plan_has_marks: bool,
    /// How many values the masking pass hid by name.
    pub masked_by_name: usize,
    /// The dependency graph.
    pub graph: CarriedGraph,
    /// The graded drift.
    pub drift: Vec<DriftedResource>,
    /// The ids of objects deleted outside Terraform, by drift entry: a value, which the drift
    /// type never serializes (so no redacted link can carry one), sent beside it here.
    pub deleted_ids: Vec<Option<String>>,
    /// Output changes, masked, with their diffs.
    pub outputs: Vec<OutputRow>,
    /// Check results.
    pub checks: Vec<CheckRow>,
    /// The plan's own `environment` (or `env`) variable, when it is a string.
    pub environment: Option<String>,
    /// The plan came from a redacted link: its values are nowhere, not even in the session.
    pub values_dropped: bool,
}

/// The plan part of the index: `doc`'s plan with identities and actions only, as JSON text.
pub fn plan_text(doc: &Document) -> String {
    let plan = doc.plan();
    let mut out = Map::new();
    let mut put = |key: &str, value: Value| {
        if !value.is_null() {
            out.insert(key.to_string(), value);
        }
    };
    put("format_version", json!(plan.format_version));
    put("terraform_version", json!(plan.terraform_version));
    put("timestamp", json!(plan.timestamp));
    put("applyable", json!(plan.applyable));
    put("complete", json!(plan.complete));
    put("errored", json!(plan.errored));
    put(
        "resource_changes",
        Value::Array(
            plan.resource_changes
                .iter()
                .map(|c| change(c, false))
                .collect(),
        ),
    );
    put(
        "resource_drift",
        Value::Array(
            plan.resource_drift
                .iter()
                .map(|c| change(c, is_unchanged_drift(c)))
                .collect(),
        ),
    );
    put(
        "deferred_changes",
        Value::Array(
            plan.deferred_changes
                .iter()
                .map(|d| json!({"reason": d.reason, "resource_change": change(&d.resource_change, false)}))
                .collect(),
        ),
    );
    let outputs: Map<String, Value> = plan
        .output_changes
        .iter()
        .map(|(name, c)| (name.to_string(), json!({"actions": c.actions.names()})))
        .collect();
    put("output_changes", Value::Object(outputs));
    // The variables a view reads by name (the environment label) are in `Analyses`; values of
    // the others stay in the session.
    Value::Object(out).to_string()
}

/// One change without its values. `unchanged`: a drift entry Terraform 1.0.0 listed although
/// nothing changed; equal empty values keep it recognisable as no drift.
fn change(c: &ResourceChange, unchanged: bool) -> Value {
    let mut m = Map::new();
    m.insert("address".into(), json!(c.address));
    if let Some(module) = &c.module_address {
        m.insert("module_address".into(), json!(module));
    }
    let mode = match c.mode {
        Mode::Managed => "managed",
        Mode::Data => "data",
    };
    m.insert("mode".into(), json!(mode));
    m.insert("type".into(), json!(c.resource_type));
    m.insert("name".into(), json!(c.name));
    m.insert("provider_name".into(), json!(c.provider_name));
    for (key, value) in [
        ("deposed", &c.deposed),
        ("previous_address", &c.previous_address),
        ("action_reason", &c.action_reason),
    ] {
        if let Some(v) = value {
            m.insert(key.into(), json!(v));
        }
    }
    if c.index_unknown {
        m.insert("index_unknown".into(), json!(true));
    }
    let mut inner = Map::new();
    inner.insert("actions".into(), json!(c.change.actions.names()));
    if let Some(importing) = &c.change.importing {
        let mut i = Map::new();
        if let Some(id) = &importing.id {
            i.insert("id".into(), json!(id));
        }
        if importing.identity.is_some() {
            i.insert("identity".into(), json!({}));
        }
        inner.insert("importing".into(), Value::Object(i));
    }
    if unchanged {
        inner.insert("before".into(), json!({}));
        inner.insert("after".into(), json!({}));
    }
    m.insert("change".into(), Value::Object(inner));
    Value::Object(m)
}

/// The plan's own `environment` (or `env`) variable, when it is a string.
pub fn plan_environment(doc: &Document) -> Option<String> {
    let vars = &doc.plan().variables;
    ["environment", "env"].iter().find_map(|k| {
        let raw = vars.get(*k)?.value?;
        serde_json::from_str::<String>(raw.get()).ok()
    })
}
