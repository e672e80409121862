//! Redacted share links: a plan's shape without its values, small and safe to paste anywhere.
//!
//! A redacted document keeps addresses, actions, reasons, import and move marks, drift grades and
//! drifted attribute paths, the dependency edges and the rule findings, and nothing of attribute
//! values: no `before`/`after`, no variables, no configuration literals, no state, and finding
//! messages print `(redacted)` where the rule's template prints a value. It reopens with the same
//! summary, list, graph, drift view and verdict; diffs say the values were redacted.
//!
//! It is JSON whose first key is `planlens_redacted` (the format version): a plan with the values
//! left out, which loads like any plan, plus what cannot be derived without values (the graph,
//! the drift grades, the findings) carried as they were computed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::drift::{Drift, DriftedResource};
use crate::graph::{DepGraph, EdgeKind, EdgeSource, ModuleInstance, Node};
use crate::load::LoadError;
use crate::model::document::is_unchanged_drift;
use crate::model::{Action, Address, Document, Source};
use crate::rules::{Evaluation, Input, RuleSet, evaluate_redacted};

/// The format this build writes and reads.
pub const FORMAT: u32 = 1;

/// What a redacted document carries besides its plan.
#[derive(Debug, Clone)]
pub struct Redaction {
    /// The dependency graph as it was built from the full plan.
    pub graph: DepGraph,
    /// The drifted resources as they were graded from the full plan.
    pub drift: Vec<DriftedResource>,
    /// The findings, with values in messages redacted.
    pub evaluation: Evaluation,
    /// The labels the rules were evaluated with.
    pub labels: BTreeMap<String, String>,
}

/// Keys of a resource change that say what it is, not what it holds.
const CHANGE_KEYS: [&str; 10] = [
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
const PLAN_KEYS: [&str; 11] = [
    "format_version",
    "terraform_version",
    "resource_changes",
    "resource_drift",
    "deferred_changes",
    "output_changes",
    "checks",
    "timestamp",
    "applyable",
    "complete",
    "errored",
];

#[derive(Serialize, Deserialize)]
struct Payload {
    planlens_redacted: u32,
    name: String,
    source: Source,
    #[serde(default)]
    warnings: Vec<String>,
    plan: Value,
    graph: GraphData,
    drift: Vec<DriftedResource>,
    evaluation: Evaluation,
    #[serde(default)]
    labels: BTreeMap<String, String>,
}

#[derive(Serialize, Deserialize)]
struct GraphData {
    /// `configuration`, `state` or `none`.
    source: String,
    /// (path, parent, depth).
    modules: Vec<(String, Option<u32>, u32)>,
    /// Node i < rows is row i's node (its address, action and marks are the row's): only its
    /// module instance is written.
    row_modules: Vec<u32>,
    /// The nodes after those: instances only in the prior state.
    others: Vec<NodeData>,
    /// Edges as flat triples, delta-coded so they compress to almost nothing: (from − previous
    /// from, to − from, kind: 0 reference, 1 depends_on, 2 state).
    edges: Vec<i64>,
}

#[derive(Serialize, Deserialize)]
struct NodeData {
    #[serde(rename = "a")]
    address: String,
    #[serde(rename = "x", with = "crate::model::action::by_key")]
    action: Action,
    #[serde(rename = "m", default)]
    module: u32,
    /// Bits: 1 data, 2 import, 4 move, 8 drifted, 16 deposed.
    #[serde(rename = "f", default)]
    flags: u8,
}

const EDGE_KINDS: [EdgeKind; 3] = [EdgeKind::Reference, EdgeKind::DependsOn, EdgeKind::State];

/// Fields of a change that its address says too; left out when they agree with it.
const DERIVED_KEYS: [&str; 4] = ["module_address", "mode", "type", "name"];

/// What an address says about its change's `module_address`, `mode`, `type` and `name`.
fn derived(address: &str) -> Option<[Value; 4]> {
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

/// Writes the redacted form of `doc`, evaluating `rules` with `labels` for its findings. A
/// document that is already redacted is written as it came.
pub fn write(
    doc: &Document,
    drift: &Drift,
    rules: &RuleSet,
    labels: &BTreeMap<String, String>,
) -> String {
    if doc.redacted.is_some() {
        return doc.source_text().to_string();
    }
    let evaluation = evaluate_redacted(&Input::from_document(doc, drift), rules, labels);
    let payload = Payload {
        planlens_redacted: FORMAT,
        name: doc.name.clone(),
        source: without_details(&doc.source),
        warnings: doc.warnings.clone(),
        plan: redacted_plan(doc),
        graph: GraphData::of(&DepGraph::build(doc), doc),
        drift: drift.resources.clone(),
        evaluation,
        labels: labels.clone(),
    };
    serde_json::to_string(&payload).unwrap_or_default()
}

/// True when `text` is a redacted document (its first key says so).
pub fn looks_redacted(text: &str) -> bool {
    text.trim_start()
        .strip_prefix('{')
        .is_some_and(|rest| rest.trim_start().starts_with("\"planlens_redacted\""))
}

fn damaged(message: impl Into<String>) -> LoadError {
    LoadError::InvalidReport {
        what: "redacted Planlens link".to_string(),
        line: 0,
        column: 0,
        message: message.into(),
    }
}

/// Reads a redacted document. Everything it refers to is checked, so an edited link is refused
/// with a message instead of showing something inconsistent.
pub fn read(text: String, name: &str) -> Result<Document, LoadError> {
    let payload: Payload = serde_json::from_str(&text).map_err(|e| LoadError::InvalidReport {
        what: "redacted Planlens link".to_string(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    if payload.planlens_redacted > FORMAT {
        return Err(damaged(format!(
            "it was made by a newer Planlens (redacted format {}; this one reads {FORMAT})",
            payload.planlens_redacted
        )));
    }
    let mut plan = payload.plan;
    restore_derived(&mut plan);
    let display_name = if payload.name.is_empty() {
        name.to_string()
    } else {
        payload.name
    };
    let mut doc = Document::parse(plan.to_string(), display_name)
        .map_err(|(_, e)| damaged(format!("its plan does not read: {e}")))?;
    let rows = doc.rows.len();
    let entries = doc.plan().resource_drift.len();
    for r in &payload.drift {
        if r.entry as usize >= entries || r.rows.iter().any(|&i| i as usize >= rows) {
            return Err(damaged(format!(
                "its drift of {} refers to a resource it does not have",
                r.address
            )));
        }
    }
    if let Some(f) = payload
        .evaluation
        .findings
        .iter()
        .find(|f| f.resource.is_some_and(|i| i >= rows))
    {
        return Err(damaged(format!(
            "the finding of rule {} refers to a resource it does not have",
            f.rule_id
        )));
    }
    let graph = payload.graph.into_graph(&doc)?;
    doc.source = payload.source;
    doc.warnings = payload.warnings;
    doc.original = Some(text);
    doc.redacted = Some(Box::new(Redaction {
        graph,
        drift: payload.drift,
        evaluation: payload.evaluation,
        labels: payload.labels,
    }));
    Ok(doc)
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
    let mut plan = Value::Object(plan);
    let drift = &doc.plan().resource_drift;
    super::each_change(&mut plan, |list, i, c| {
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

/// Puts back the fields [`redact_change`] left out because the address says them.
fn restore_derived(plan: &mut Value) {
    let fill = |c: &mut Value| {
        let Some(fields) = c.get("address").and_then(Value::as_str).and_then(derived) else {
            return;
        };
        let Value::Object(c) = c else { return };
        for (key, value) in DERIVED_KEYS.iter().zip(fields) {
            if !c.contains_key(*key) && !value.is_null() {
                c.insert(key.to_string(), value);
            }
        }
    };
    super::each_change(plan, |_, _, c| fill(c));
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

/// The node a row has in any graph of this document (its module instance aside).
fn row_node(doc: &Document, row: u32, module: u32) -> Option<Node> {
    let r = doc.rows.get(row as usize)?;
    let change = doc.change(r);
    Some(Node {
        address: change.address.to_string(),
        action: r.action,
        row: Some(row),
        module,
        is_data: r.is_data,
        is_import: r.is_import,
        is_move: r.is_move,
        is_drifted: r.is_drifted,
        is_deposed: change.deposed.is_some(),
    })
}

impl GraphData {
    fn of(graph: &DepGraph, doc: &Document) -> GraphData {
        let mut row_modules = Vec::new();
        let mut others = Vec::new();
        for (i, n) in graph.graph.node_weights().enumerate() {
            // `DepGraph::build` gives row i node i; nodes after the rows have none.
            if i < doc.rows.len() && row_node(doc, i as u32, n.module).as_ref() == Some(n) {
                row_modules.push(n.module);
                continue;
            }
            debug_assert!(i >= doc.rows.len(), "node {i} is not its row's node");
            others.push(NodeData {
                address: n.address.clone(),
                action: n.action,
                module: n.module,
                flags: [
                    n.is_data,
                    n.is_import,
                    n.is_move,
                    n.is_drifted,
                    n.is_deposed,
                ]
                .iter()
                .enumerate()
                .fold(0, |f, (bit, &set)| f | (u8::from(set) << bit)),
            });
        }
        let mut edges = Vec::with_capacity(graph.graph.edge_count() * 3);
        let mut previous = 0i64;
        for e in graph.graph.raw_edges() {
            let (from, to) = (e.source().index() as i64, e.target().index() as i64);
            let kind = EDGE_KINDS.iter().position(|k| *k == e.weight).unwrap_or(0) as i64;
            edges.extend([from - previous, to - from, kind]);
            previous = from;
        }
        GraphData {
            source: match graph.source {
                EdgeSource::Configuration => "configuration",
                EdgeSource::StateOnly => "state",
                EdgeSource::Nothing => "none",
            }
            .to_string(),
            modules: graph
                .module_instances
                .iter()
                .map(|m| (m.path.clone(), m.parent, m.depth))
                .collect(),
            row_modules,
            others,
            edges,
        }
    }

    fn into_graph(self, doc: &Document) -> Result<DepGraph, LoadError> {
        let modules = self.modules.len() as u32;
        if modules == 0
            || self
                .modules
                .iter()
                .any(|(_, parent, _)| parent.is_some_and(|p| p >= modules))
        {
            return Err(damaged("its graph's modules are inconsistent"));
        }
        if self.row_modules.len() > doc.rows.len()
            || (self.row_modules.len() < doc.rows.len() && !self.others.is_empty())
        {
            return Err(damaged("its graph does not match its resources"));
        }
        let mut graph = petgraph::graph::DiGraph::with_capacity(
            self.row_modules.len() + self.others.len(),
            self.edges.len() / 3,
        );
        for (i, &module) in self.row_modules.iter().enumerate() {
            let node = row_node(doc, i as u32, module)
                .filter(|_| module < modules)
                .ok_or_else(|| damaged("a node of its graph is inconsistent"))?;
            graph.add_node(node);
        }
        for n in self.others {
            if n.module >= modules {
                return Err(damaged(format!(
                    "its graph node {} is inconsistent",
                    n.address
                )));
            }
            let flag = |bit: u8| n.flags & (1 << bit) != 0;
            graph.add_node(Node {
                address: n.address,
                action: n.action,
                row: None,
                module: n.module,
                is_data: flag(0),
                is_import: flag(1),
                is_move: flag(2),
                is_drifted: flag(3),
                is_deposed: flag(4),
            });
        }
        let count = graph.node_count() as i64;
        if !self.edges.len().is_multiple_of(3) {
            return Err(damaged("its graph's edges are cut short"));
        }
        let mut previous = 0i64;
        for triple in self.edges.chunks_exact(3) {
            let from = previous.saturating_add(triple[0]);
            let to = from.saturating_add(triple[1]);
            let kind = usize::try_from(triple[2])
                .ok()
                .and_then(|k| EDGE_KINDS.get(k))
                .ok_or_else(|| damaged("its graph has an unknown edge kind"))?;
            if !(0..count).contains(&from) || !(0..count).contains(&to) {
                return Err(damaged("an edge of its graph points nowhere"));
            }
            graph.add_edge((from as u32).into(), (to as u32).into(), *kind);
            previous = from;
        }
        Ok(DepGraph {
            graph,
            module_instances: self
                .modules
                .into_iter()
                .map(|(path, parent, depth)| ModuleInstance {
                    path,
                    parent,
                    depth,
                })
                .collect(),
            source: match self.source.as_str() {
                "configuration" => EdgeSource::Configuration,
                "state" => EdgeSource::StateOnly,
                _ => EdgeSource::Nothing,
            },
        })
    }
}
