//! Reads the redacted share form (`model::redaction`) back into a `Document` that carries the
//! analyses it was made with. Everything the form refers to is checked here, so an edited link is
//! refused with a message instead of showing something inconsistent, and whatever reads the
//! carried analyses later can trust their indices.
//!
//! `read` opens a redacted link's JSON into a `Document` carrying its `Redaction`; `read_index`
//! opens any values-free plan with what it carries, which is also how a session's index is read
//! (`Carrier::Session`). The checks cover every index the form holds: drift rows, finding
//! resources, graph modules, nodes and edges.

use serde_json::Value;

use super::LoadError;
use planlens_model::Document;
use planlens_model::document::Parsed;
use planlens_model::redaction::{
    CarriedGraph, Carrier, DERIVED_KEYS, EDGE_KINDS, FORMAT, Payload, Redaction, derived,
};

fn damaged(message: impl Into<String>) -> LoadError {
    LoadError::InvalidReport {
        what: "redacted Planlens link".to_string(),
        line: 0,
        column: 0,
        message: message.into(),
    }
}

/// Reads a redacted document.
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
    let mut doc = read_index(
        plan.to_string(),
        &display_name,
        Redaction {
            carrier: Carrier::Link,
            graph: Some(payload.graph),
            drift: payload.drift,
            evaluation: payload.evaluation,
            labels: payload.labels,
        },
    )?;
    doc.source = payload.source;
    doc.warnings = payload.warnings;
    doc.original = Some(text);
    Ok(doc)
}

/// Reads a values-free plan (a redacted link's, or a session's index) into a document carrying
/// `carried`, after checking every index in it against the plan's rows.
pub fn read_index(plan: String, name: &str, carried: Redaction) -> Result<Document, LoadError> {
    read_parsed_index(parse_index(plan, name)?, carried)
}

/// The first half of [`read_index`]: the plan parsed, its rows not yet indexed.
pub fn parse_index(plan: String, name: &str) -> Result<Parsed, LoadError> {
    Document::parse_only(plan, name.to_string())
        .map_err(|(_, e)| damaged(format!("its plan does not read: {e}")))
}

/// The second half of [`read_index`]: the rows indexed and every index `carried` holds checked
/// against them.
pub fn read_parsed_index(parsed: Parsed, carried: Redaction) -> Result<Document, LoadError> {
    let mut doc = parsed.index();
    let rows = doc.rows.len();
    let entries = doc.plan().resource_drift.len();
    for r in &carried.drift {
        if r.entry as usize >= entries || r.rows.iter().any(|&i| i as usize >= rows) {
            return Err(damaged(format!(
                "its drift of {} refers to a resource it does not have",
                r.address
            )));
        }
    }
    if let Some(f) = carried
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
    if let Some(graph) = &carried.graph {
        check_graph(graph, rows)?;
    }
    doc.redacted = Some(Box::new(carried));
    Ok(doc)
}

/// Puts back the fields the writer left out because the address says them.
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
    planlens_model::plan::each_change(plan, |_, _, c| fill(c));
}

/// Checks every index of a carried graph against a document of `rows` rows: module parents
/// (each before its module, as the graph writes them, so no walk up the tree loops), node
/// modules, edge ends and kinds.
pub fn check_graph(graph: &CarriedGraph, rows: usize) -> Result<(), LoadError> {
    let modules = graph.modules.len() as u32;
    if modules == 0
        || (0u32..)
            .zip(&graph.modules)
            .any(|(i, (_, parent, _))| parent.is_some_and(|p| p >= i))
    {
        return Err(damaged("its graph's modules are inconsistent"));
    }
    if graph.row_modules.len() > rows
        || (graph.row_modules.len() < rows && !graph.others.is_empty())
    {
        return Err(damaged("its graph does not match its resources"));
    }
    if graph.row_modules.iter().any(|&m| m >= modules) {
        return Err(damaged("a node of its graph is inconsistent"));
    }
    if let Some(n) = graph.others.iter().find(|n| n.module >= modules) {
        return Err(damaged(format!(
            "its graph node {} is inconsistent",
            n.address
        )));
    }
    if !graph.edges.len().is_multiple_of(3) {
        return Err(damaged("its graph's edges are cut short"));
    }
    let count = (graph.row_modules.len() + graph.others.len()) as i64;
    for (from, to, kind) in graph.decoded_edges() {
        if !(0..EDGE_KINDS.len() as i64).contains(&kind) {
            return Err(damaged("its graph has an unknown edge kind"));
        }
        if !(0..count).contains(&from) || !(0..count).contains(&to) {
            return Err(damaged("an edge of its graph points nowhere"));
        }
    }
    Ok(())
}
