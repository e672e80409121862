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
use crate::model::source::{ChangeSummary, Diagnostic, DriftctlFacts, PlanLogFacts};
use crate::model::{Action, Document, Source};
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
    source: SourceData,
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
#[serde(tag = "kind", rename_all = "snake_case")]
enum SourceData {
    Plan,
    PlanLog {
        terraform_version: Option<String>,
        /// add, change, remove, import.
        change_summary: Option<[u64; 4]>,
        /// severity, summary, address, location (details can quote values: left out).
        diagnostics: Vec<(String, String, Option<String>, Option<String>)>,
        skipped_lines: usize,
    },
    Driftctl {
        format: String,
        total_resources: u64,
        managed: u64,
        unmanaged: u64,
        missing: u64,
        changed: Option<u64>,
        coverage: u64,
        unmanaged_resources: Vec<(String, String)>,
        alerts: Vec<(String, String)>,
        computed: Vec<(String, String)>,
        provider: Option<String>,
        date: Option<String>,
    },
}

#[derive(Serialize, Deserialize)]
struct GraphData {
    /// `configuration`, `state` or `none`.
    source: String,
    /// (path, parent, depth).
    modules: Vec<(String, Option<u32>, u32)>,
    nodes: Vec<NodeData>,
    /// (from, to, kind).
    edges: Vec<(u32, u32, String)>,
}

#[derive(Serialize, Deserialize)]
struct NodeData {
    /// The address, for nodes without a row (a row's node has the row's address).
    #[serde(rename = "a", default, skip_serializing_if = "Option::is_none")]
    address: Option<String>,
    #[serde(rename = "r", default, skip_serializing_if = "Option::is_none")]
    row: Option<u32>,
    #[serde(rename = "x", with = "crate::model::action::by_key")]
    action: Action,
    #[serde(rename = "m", default)]
    module: u32,
    /// Bits: 1 data, 2 import, 4 move, 8 drifted, 16 deposed.
    #[serde(rename = "f", default)]
    flags: u8,
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
        source: SourceData::of(&doc.source),
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
    let display_name = if payload.name.is_empty() {
        name.to_string()
    } else {
        payload.name.clone()
    };
    let mut doc = Document::parse(payload.plan.to_string(), display_name)
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
    doc.source = payload.source.into_source();
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
    let typed = doc.plan();
    if let Some(Value::Array(changes)) = plan.get_mut("resource_changes") {
        changes.iter_mut().for_each(|c| redact_change(c, false));
    }
    if let Some(Value::Array(drift)) = plan.get_mut("resource_drift") {
        for (i, d) in drift.iter_mut().enumerate() {
            let unchanged = typed.resource_drift.get(i).is_some_and(is_unchanged_drift);
            redact_change(d, unchanged);
        }
    }
    if let Some(Value::Array(deferred)) = plan.get_mut("deferred_changes") {
        for d in deferred.iter_mut() {
            if let Value::Object(d) = d {
                d.retain(|k, _| k == "reason" || k == "resource_change");
                if let Some(c) = d.get_mut("resource_change") {
                    redact_change(c, false);
                }
            }
        }
    }
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
    Value::Object(plan)
}

/// Keeps a change's identity and actions. `unchanged`: Terraform 1.0.0 listed resources whose
/// values did not change as drift; equal empty values keep them recognisable as not drifted.
fn redact_change(change: &mut Value, unchanged: bool) {
    let Value::Object(c) = change else { return };
    c.retain(|k, _| CHANGE_KEYS.contains(&k.as_str()) || k == "change");
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

impl SourceData {
    fn of(source: &Source) -> SourceData {
        match source {
            Source::Plan => SourceData::Plan,
            Source::PlanLog(f) => SourceData::PlanLog {
                terraform_version: f.terraform_version.clone(),
                change_summary: f
                    .change_summary
                    .map(|s| [s.add, s.change, s.remove, s.import]),
                diagnostics: f
                    .diagnostics
                    .iter()
                    .map(|d| {
                        (
                            d.severity.clone(),
                            d.summary.clone(),
                            d.address.clone(),
                            d.location.clone(),
                        )
                    })
                    .collect(),
                skipped_lines: f.skipped_lines,
            },
            Source::Driftctl(f) => SourceData::Driftctl {
                format: f.format.to_string(),
                total_resources: f.total_resources,
                managed: f.managed,
                unmanaged: f.unmanaged,
                missing: f.missing,
                changed: f.changed,
                coverage: f.coverage,
                unmanaged_resources: f.unmanaged_resources.clone(),
                alerts: f.alerts.clone(),
                computed: f.computed.clone(),
                provider: f.provider.clone(),
                date: f.date.clone(),
            },
        }
    }

    fn into_source(self) -> Source {
        match self {
            SourceData::Plan => Source::Plan,
            SourceData::PlanLog {
                terraform_version,
                change_summary,
                diagnostics,
                skipped_lines,
            } => Source::PlanLog(PlanLogFacts {
                terraform_version,
                change_summary: change_summary.map(|[add, change, remove, import]| ChangeSummary {
                    add,
                    change,
                    remove,
                    import,
                }),
                diagnostics: diagnostics
                    .into_iter()
                    .map(|(severity, summary, address, location)| Diagnostic {
                        severity,
                        summary,
                        detail: String::new(),
                        address,
                        location,
                    })
                    .collect(),
                skipped_lines,
            }),
            SourceData::Driftctl {
                format,
                total_resources,
                managed,
                unmanaged,
                missing,
                changed,
                coverage,
                unmanaged_resources,
                alerts,
                computed,
                provider,
                date,
            } => Source::Driftctl(DriftctlFacts {
                format: ["v0.7", "v0.8–v0.39"]
                    .into_iter()
                    .find(|f| *f == format)
                    .unwrap_or("v0.40+"),
                total_resources,
                managed,
                unmanaged,
                missing,
                changed,
                coverage,
                unmanaged_resources,
                alerts,
                computed,
                provider,
                date,
            }),
        }
    }
}

fn edge_kind(key: &str) -> Option<EdgeKind> {
    [EdgeKind::Reference, EdgeKind::DependsOn, EdgeKind::State]
        .into_iter()
        .find(|k| k.key() == key)
}

impl GraphData {
    fn of(graph: &DepGraph, doc: &Document) -> GraphData {
        let nodes = graph
            .graph
            .node_weights()
            .map(|n| NodeData {
                address: match n.row.and_then(|r| doc.rows.get(r as usize)) {
                    Some(row) if doc.change(row).address == n.address => None,
                    _ => Some(n.address.clone()),
                },
                row: n.row,
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
            })
            .collect();
        let edges = graph
            .graph
            .raw_edges()
            .iter()
            .map(|e| {
                (
                    e.source().index() as u32,
                    e.target().index() as u32,
                    e.weight.key().to_string(),
                )
            })
            .collect();
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
            nodes,
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
        let mut graph = petgraph::graph::DiGraph::with_capacity(self.nodes.len(), self.edges.len());
        for n in self.nodes {
            let address = match (n.address, n.row.and_then(|r| doc.rows.get(r as usize))) {
                (Some(a), _) => a,
                (None, Some(row)) => doc.change(row).address.to_string(),
                (None, None) => {
                    return Err(damaged(
                        "a node of its graph has neither address nor resource",
                    ));
                }
            };
            if n.module >= modules || n.row.is_some_and(|r| r as usize >= doc.rows.len()) {
                return Err(damaged(format!("its graph node {address} is inconsistent")));
            }
            let flag = |bit: u8| n.flags & (1 << bit) != 0;
            graph.add_node(Node {
                address,
                action: n.action,
                row: n.row,
                module: n.module,
                is_data: flag(0),
                is_import: flag(1),
                is_move: flag(2),
                is_drifted: flag(3),
                is_deposed: flag(4),
            });
        }
        let count = graph.node_count() as u32;
        for (from, to, kind) in self.edges {
            let kind = edge_kind(&kind)
                .ok_or_else(|| damaged(format!("its graph has an unknown edge kind {kind:?}")))?;
            if from >= count || to >= count {
                return Err(damaged("an edge of its graph points nowhere"));
            }
            graph.add_edge(from.into(), to.into(), kind);
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
