//! The dependency graph in the form a redacted link carries it (`model::redaction::CarriedGraph`),
//! both ways: made from a graph built from the full plan, and made back into a graph when the
//! link is opened (after `load::redacted` checked every index in it).
//!
//! Node i is row i's. `load::redacted` checked the indices; anything out of range is still left
//! out, never a panic.

use super::{DepGraph, EdgeKind, EdgeSource, ModuleInstance, Node};
use planlens_model::Document;
use planlens_model::redaction::{
    CarriedGraph, CarriedNode, FLAG_DATA, FLAG_DEPOSED, FLAG_DRIFTED, FLAG_IMPORT, FLAG_MOVE,
};

/// Edge kinds by their number in the carried form (`model::redaction::EDGE_KINDS`).
const EDGE_KINDS: [EdgeKind; 3] = [EdgeKind::Reference, EdgeKind::DependsOn, EdgeKind::State];

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

impl DepGraph {
    /// The carried form of this graph of `doc` (built by [`DepGraph::build`], so node i is row
    /// i's for every row).
    pub fn carried(&self, doc: &Document) -> CarriedGraph {
        let mut row_modules = Vec::new();
        let mut others = Vec::new();
        for (i, n) in self.graph.node_weights().enumerate() {
            if i < doc.rows.len() && row_node(doc, i as u32, n.module).as_ref() == Some(n) {
                row_modules.push(n.module);
                continue;
            }
            debug_assert!(i >= doc.rows.len(), "node {i} is not its row's node");
            let flags = [
                (n.is_data, FLAG_DATA),
                (n.is_import, FLAG_IMPORT),
                (n.is_move, FLAG_MOVE),
                (n.is_drifted, FLAG_DRIFTED),
                (n.is_deposed, FLAG_DEPOSED),
            ]
            .iter()
            .filter(|(set, _)| *set)
            .fold(0, |f, (_, bit)| f | bit);
            others.push(CarriedNode {
                address: n.address.clone(),
                action: n.action,
                module: n.module,
                flags,
            });
        }
        let mut edges = Vec::with_capacity(self.graph.edge_count() * 3);
        let mut previous = 0i64;
        for e in self.graph.raw_edges() {
            let (from, to) = (e.source().index() as i64, e.target().index() as i64);
            let kind = EDGE_KINDS.iter().position(|k| *k == e.weight).unwrap_or(0) as i64;
            edges.extend([from - previous, to - from, kind]);
            previous = from;
        }
        CarriedGraph {
            source: match self.source {
                EdgeSource::Configuration => "configuration",
                EdgeSource::StateOnly => "state",
                EdgeSource::Nothing => "none",
            }
            .to_string(),
            modules: self
                .module_instances
                .iter()
                .map(|m| (m.path.clone(), m.parent, m.depth))
                .collect(),
            row_modules,
            others,
            edges,
        }
    }

    /// The graph a redacted link carries for `doc`. Its indices were checked when the link was
    /// read (`load::redacted`); anything out of range would be left out, never a panic.
    pub fn from_carried(carried: &CarriedGraph, doc: &Document) -> DepGraph {
        let mut graph = petgraph::graph::DiGraph::with_capacity(
            carried.row_modules.len() + carried.others.len(),
            carried.edges.len() / 3,
        );
        for (i, &module) in carried.row_modules.iter().enumerate() {
            if let Some(node) = row_node(doc, i as u32, module) {
                graph.add_node(node);
            }
        }
        for n in &carried.others {
            let flag = |bit: u8| n.flags & bit != 0;
            graph.add_node(Node {
                address: n.address.clone(),
                action: n.action,
                row: None,
                module: n.module,
                is_data: flag(FLAG_DATA),
                is_import: flag(FLAG_IMPORT),
                is_move: flag(FLAG_MOVE),
                is_drifted: flag(FLAG_DRIFTED),
                is_deposed: flag(FLAG_DEPOSED),
            });
        }
        let count = graph.node_count() as i64;
        for (from, to, kind) in carried.decoded_edges() {
            let kind = usize::try_from(kind).ok().and_then(|k| EDGE_KINDS.get(k));
            if let Some(kind) = kind
                && (0..count).contains(&from)
                && (0..count).contains(&to)
            {
                graph.add_edge((from as u32).into(), (to as u32).into(), *kind);
            }
        }
        DepGraph {
            graph,
            module_instances: carried
                .modules
                .iter()
                .map(|(path, parent, depth)| ModuleInstance {
                    path: path.clone(),
                    parent: *parent,
                    depth: *depth,
                })
                .collect(),
            source: match carried.source.as_str() {
                "configuration" => EdgeSource::Configuration,
                "state" => EdgeSource::StateOnly,
                _ => EdgeSource::Nothing,
            },
        }
    }
}
