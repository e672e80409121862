//! The values-free index of an open plan: what the session hands the views so they can list,
//! count, draw and filter without the plan's values. Its plan part is a plan in Terraform's own
//! format that keeps every change's identity and actions and drops every attribute value, so it
//! loads as a [`Document`] through the same parser and row index as any plan; its analyses part
//! carries what cannot be recomputed without values (`model::redaction::Payload`'s graph, drift
//! and findings, plus output and check rows). `load::redacted::read_index` reads it back.
//!
//! The plan part is written from the typed plan; the analyses part also carries output and check
//! rows and the ids of objects deleted outside Terraform, which the drift type never serializes.
//! `Index::document` reads it back (`load::redacted::read_index` with `Carrier::Session`). The
//! dependency graph is never in it: the session sends it when asked.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use planlens_changes::checks::CheckRow;
use planlens_changes::outputs::OutputRow;
use planlens_model::document::is_unchanged_drift;
use planlens_model::drifted::DriftedResource;
use planlens_model::plan::{Mode, ResourceChange};
use planlens_model::redaction::CarriedGraph;
use planlens_model::{Document, Source};

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
    /// The dependency graph, when it was sent with the index. A session sends none (it builds
    /// the graph when the views ask, `Request::Graph`: most reviews never open the Graph tab,
    /// and it is the largest part of opening a plan after parsing it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<CarriedGraph>,
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

/// The plan part of the index: `doc`'s plan with identities and actions only, as JSON text
/// (written straight from the typed plan, without building a JSON tree).
pub fn plan_text(doc: &Document) -> String {
    let plan = doc.plan();
    let slim = SlimPlan {
        format_version: plan.format_version.as_deref(),
        terraform_version: plan.terraform_version.as_deref(),
        timestamp: plan.timestamp.as_deref(),
        applyable: plan.applyable,
        complete: plan.complete,
        errored: plan.errored,
        resource_changes: plan
            .resource_changes
            .iter()
            .map(|c| slim(c, false))
            .collect(),
        resource_drift: (plan.resource_drift.iter())
            .map(|c| slim(c, is_unchanged_drift(c)))
            .collect(),
        deferred_changes: (plan.deferred_changes.iter())
            .map(|d| SlimDeferred {
                reason: &d.reason,
                resource_change: slim(&d.resource_change, false),
            })
            .collect(),
        action_invocations: (plan.action_invocations.iter())
            .map(|a| SlimAction {
                address: &a.address,
                action_type: &a.action_type,
                name: &a.name,
                provider_name: &a.provider_name,
            })
            .collect(),
        output_changes: (plan.output_changes.iter())
            .map(|(name, c)| {
                (
                    name.as_ref(),
                    SlimOutput {
                        actions: c.actions.names(),
                    },
                )
            })
            .collect(),
    };
    serde_json::to_string(&slim).unwrap_or_default()
}

#[derive(Serialize)]
struct SlimPlan<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    format_version: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    terraform_version: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    applyable: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    complete: Option<bool>,
    errored: bool,
    resource_changes: Vec<Slim<'a>>,
    resource_drift: Vec<Slim<'a>>,
    deferred_changes: Vec<SlimDeferred<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    action_invocations: Vec<SlimAction<'a>>,
    output_changes: BTreeMap<&'a str, SlimOutput>,
}

/// An action the apply invokes, without its configuration.
#[derive(Serialize)]
struct SlimAction<'a> {
    address: &'a str,
    #[serde(rename = "type")]
    action_type: &'a str,
    name: &'a str,
    provider_name: &'a str,
}

#[derive(Serialize)]
struct SlimDeferred<'a> {
    reason: &'a str,
    resource_change: Slim<'a>,
}

#[derive(Serialize)]
struct SlimOutput {
    actions: &'static [&'static str],
}

/// One change without its values.
#[derive(Serialize)]
struct Slim<'a> {
    address: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    module_address: Option<&'a str>,
    mode: &'static str,
    #[serde(rename = "type")]
    resource_type: &'a str,
    name: &'a str,
    provider_name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    deposed: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    previous_address: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    action_reason: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    index_unknown: bool,
    change: SlimChange<'a>,
}

#[derive(Serialize)]
struct SlimChange<'a> {
    actions: &'static [&'static str],
    #[serde(skip_serializing_if = "Option::is_none")]
    importing: Option<SlimImporting<'a>>,
    /// `{}` on both sides for a drift entry Terraform 1.0.0 listed although nothing changed, so
    /// it stays recognisable as no drift.
    #[serde(skip_serializing_if = "Option::is_none")]
    before: Option<Empty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    after: Option<Empty>,
}

#[derive(Serialize)]
struct SlimImporting<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    identity: Option<Empty>,
}

/// `{}`.
#[derive(Serialize)]
struct Empty {}

fn slim<'a>(c: &'a ResourceChange, unchanged: bool) -> Slim<'a> {
    Slim {
        address: &c.address,
        module_address: c.module_address.as_deref(),
        mode: match c.mode {
            Mode::Managed => "managed",
            Mode::Data => "data",
        },
        resource_type: &c.resource_type,
        name: &c.name,
        provider_name: &c.provider_name,
        deposed: c.deposed.as_deref(),
        previous_address: c.previous_address.as_deref(),
        action_reason: c.action_reason.as_deref(),
        index_unknown: c.index_unknown,
        change: SlimChange {
            actions: c.change.actions.names(),
            importing: c.change.importing.as_ref().map(|i| SlimImporting {
                id: i.id.as_deref(),
                identity: i.identity.map(|_| Empty {}),
            }),
            before: unchanged.then_some(Empty {}),
            after: unchanged.then_some(Empty {}),
        },
    }
}

/// The plan's own `environment` (or `env`) variable, when it is a string.
pub fn plan_environment(doc: &Document) -> Option<String> {
    let vars = &doc.plan().variables;
    ["environment", "env"].iter().find_map(|k| {
        let raw = vars.get(*k)?.value?;
        serde_json::from_str::<String>(raw.get()).ok()
    })
}
