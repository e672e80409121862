//! The redacted share form: a plan's shape without its values, and the analyses computed from
//! the full plan that cannot be recomputed without them (the dependency graph, the drift grades,
//! the findings).
//!
//! It is JSON whose first key is `planlens_redacted` (the format version): a plan with the values
//! left out, which loads like any plan, plus what cannot be derived without values, carried as it
//! was computed. `load::redacted` reads it, `share::redacted` writes it; both use these types.
//!
//! `Payload` is the form; `CarriedGraph` carries the edges delta-coded and the nodes' flags;
//! `Redaction` is what a values-free `Document` carries, and its `Carrier` says whose: a link
//! (values gone, `Document::values_dropped`) or a session (values on request,
//! `Document::values_in_session`). `derived` and `keep_action_identities` decide the keys kept and
//! derived; `looks_redacted` recognises the form.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::drifted::DriftedResource;
use super::findings::Evaluation;
use super::{Action, Address, Source};

/// The format this build writes and reads.
pub const FORMAT: u32 = 1;

/// Who holds a values-free document's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carrier {
    /// Nobody: a redacted link left them out for good.
    Link,
    /// The session that opened the full plan (in the browser, a Web Worker), which gives them
    /// out on request (`session::Request`).
    Session,
}

/// What a values-free document carries besides its plan: the analyses as they were made from the
/// full plan. Every index in it was checked against the document when it was read.
#[derive(Debug, Clone)]
pub struct Redaction {
    /// Who holds the values: nobody (a redacted link) or the session.
    pub carrier: Carrier,
    /// The dependency graph as it was built from the full plan. `None`: the session holds it
    /// and builds it when asked (`session::Request::Graph`), so opening a plan does not wait for
    /// a graph most reviews never look at; a redacted link always carries it.
    pub graph: Option<CarriedGraph>,
    /// The drifted resources as they were graded from the full plan.
    pub drift: Vec<DriftedResource>,
    /// The findings, with values in messages redacted.
    pub evaluation: Evaluation,
    /// The labels the rules were evaluated with.
    pub labels: BTreeMap<String, String>,
}

/// The whole redacted document as JSON.
#[derive(Serialize, Deserialize)]
pub struct Payload {
    /// The format version ([`FORMAT`]); first, so a reader can recognise the form.
    pub planlens_redacted: u32,
    /// The file name the plan was opened as.
    pub name: String,
    /// What kind of input the plan came from, without diagnostic details.
    pub source: Source,
    /// The load warnings of the full plan.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The plan with only identities and actions.
    pub plan: Value,
    /// The dependency graph.
    pub graph: CarriedGraph,
    /// The graded drift.
    pub drift: Vec<DriftedResource>,
    /// The findings.
    pub evaluation: Evaluation,
    /// The labels the rules were evaluated with.
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
}

/// A dependency graph as a redacted link carries it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CarriedGraph {
    /// What the edges came from: `configuration`, `state` or `none`.
    pub source: String,
    /// Module instances: (path, parent, depth).
    pub modules: Vec<(String, Option<u32>, u32)>,
    /// Node i < rows is row i's node (its address, action and marks are the row's): only its
    /// module instance is written.
    pub row_modules: Vec<u32>,
    /// The nodes after those: instances only in the prior state.
    pub others: Vec<CarriedNode>,
    /// Edges as flat triples, delta-coded so they compress to almost nothing: (from − previous
    /// from, to − from, kind: an index into [`EDGE_KINDS`]).
    pub edges: Vec<i64>,
}

/// Edge kinds by their number in [`CarriedGraph::edges`].
pub const EDGE_KINDS: [&str; 3] = ["reference", "depends_on", "state"];

/// A graph node that is not a row's (an instance only in the prior state).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CarriedNode {
    /// Its address.
    #[serde(rename = "a")]
    pub address: String,
    /// Its action.
    #[serde(rename = "x", with = "crate::action::by_key")]
    pub action: Action,
    /// Its module instance, an index into [`CarriedGraph::modules`].
    #[serde(rename = "m", default)]
    pub module: u32,
    /// Bits: [`FLAG_DATA`], [`FLAG_IMPORT`], [`FLAG_MOVE`], [`FLAG_DRIFTED`], [`FLAG_DEPOSED`].
    #[serde(rename = "f", default)]
    pub flags: u8,
}

/// [`CarriedNode::flags`]: a data source.
pub const FLAG_DATA: u8 = 1;
/// [`CarriedNode::flags`]: imported.
pub const FLAG_IMPORT: u8 = 2;
/// [`CarriedNode::flags`]: moved.
pub const FLAG_MOVE: u8 = 4;
/// [`CarriedNode::flags`]: drifted.
pub const FLAG_DRIFTED: u8 = 8;
/// [`CarriedNode::flags`]: a deposed object.
pub const FLAG_DEPOSED: u8 = 16;

impl CarriedGraph {
    /// The edges decoded: (from, to, kind index). Values out of range are returned as they are;
    /// the reader checks them.
    pub fn decoded_edges(&self) -> impl Iterator<Item = (i64, i64, i64)> + '_ {
        let mut previous = 0i64;
        self.edges.chunks_exact(3).map(move |triple| {
            let from = previous.saturating_add(triple[0]);
            let to = from.saturating_add(triple[1]);
            previous = from;
            (from, to, triple[2])
        })
    }
}

/// Keys of a resource change that say what it is, not what it holds.
pub const CHANGE_KEYS: [&str; 10] = [
    "address",
    "module_address",
    "mode",
    "type",
    "name",
    "provider_name",
    "deposed",
    "previous_address",
    "index_unknown",
    "action_reason",
];

/// Top-level plan keys a redacted plan keeps (values are then removed inside them).
pub const PLAN_KEYS: [&str; 12] = [
    "format_version",
    "terraform_version",
    "resource_changes",
    "resource_drift",
    "deferred_changes",
    "action_invocations",
    "output_changes",
    "checks",
    "timestamp",
    "applyable",
    "complete",
    "errored",
];

/// Fields of an action invocation a redacted plan, a session's index and a full link keep: its
/// identity, never its `config_values`.
pub const ACTION_KEYS: [&str; 4] = ["address", "type", "name", "provider_name"];

/// Keeps only what identifies each of a plan's action invocations ([`ACTION_KEYS`]): their
/// configuration may hold values, sensitive ones too.
pub fn keep_action_identities(plan: &mut serde_json::Map<String, Value>) {
    if let Some(Value::Array(actions)) = plan.get_mut("action_invocations") {
        for a in actions.iter_mut().filter_map(Value::as_object_mut) {
            a.retain(|k, _| ACTION_KEYS.contains(&k.as_str()));
        }
    }
}

/// Fields of a change that its address says too; left out when they agree with it.
pub const DERIVED_KEYS: [&str; 4] = ["module_address", "mode", "type", "name"];

/// What an address says about its change's `module_address`, `mode`, `type` and `name`.
pub fn derived(address: &str) -> Option<[Value; 4]> {
    let a = Address::parse(address).ok()?;
    let module = a.module_path();
    Some([
        if module.is_empty() {
            Value::Null
        } else {
            Value::String(module)
        },
        Value::String(if a.is_data { "data" } else { "managed" }.to_string()),
        Value::String(a.resource_type),
        Value::String(a.name),
    ])
}

/// True when `text` is a redacted document (its first key says so).
pub fn looks_redacted(text: &str) -> bool {
    text.trim_start()
        .strip_prefix('{')
        .is_some_and(|rest| rest.trim_start().starts_with("\"planlens_redacted\""))
}
