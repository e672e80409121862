//! The dependency graph: one node per resource instance, one edge per dependency, pointing from the
//! dependency to the dependent (what must exist first → what uses it), as `terraform graph` reads.
//!
//! [`DepGraph::build`] resolves the plan's `configuration` (references, `depends_on`, module call
//! inputs and outputs, `count`/`for_each`) to instance addresses and adds `prior_state`'s
//! `depends_on`. [`view`] folds modules and unchanged resources into what the UI draws, [`layout`]
//! places it, [`camera`] frames it on a canvas, and [`export`] writes DOT, JSON and SVG.
//!
//! Blast radius: `dependents` and `dependencies` walk the graph breadth-first (petgraph's `Bfs`,
//! over `Reversed` for dependencies); `destructive` lists the deletes, replaces and forgets.

mod build;
pub mod camera;
mod carried;
pub mod config;
pub mod export;
pub mod layout;
pub mod style;
pub mod view;

use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{Bfs, Reversed};

use planlens_model::Action;

/// One resource instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Absolute instance address.
    pub address: String,
    /// The planned action; `NoOp` for instances only in the prior state.
    pub action: Action,
    /// Index into the document's rows, when the plan has a change for this instance.
    pub row: Option<u32>,
    /// Index into [`DepGraph::module_instances`]; 0 is the root module.
    pub module: u32,
    /// True for data sources.
    pub is_data: bool,
    /// True when the change imports the resource.
    pub is_import: bool,
    /// True when the change moves the resource.
    pub is_move: bool,
    /// True when the resource has drifted.
    pub is_drifted: bool,
    /// True for a deposed object (an old object left by `create_before_destroy`).
    pub is_deposed: bool,
}

/// Where an edge was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EdgeKind {
    /// An expression of the dependent refers to the dependency (directly, or through module inputs
    /// and outputs, or through `count`/`for_each`).
    Reference,
    /// An explicit `depends_on` of the dependent, its module call, or an output it reads.
    DependsOn,
    /// Only the prior state's `depends_on` says so.
    State,
}

impl EdgeKind {
    /// The name used in JSON output and the UI.
    pub fn key(self) -> &'static str {
        match self {
            EdgeKind::Reference => "reference",
            EdgeKind::DependsOn => "depends_on",
            EdgeKind::State => "state",
        }
    }
}

/// What the edges were built from, so the UI can say how far to trust them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeSource {
    /// The plan has a `configuration`: references and `depends_on` (plus state `depends_on`).
    Configuration,
    /// No `configuration`; only the prior state's `depends_on`, so edges may be incomplete.
    StateOnly,
    /// Neither: the graph has no edges at all.
    Nothing,
}

/// One module instance: `module.a["x"].module.b`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleInstance {
    /// The path as Terraform writes it; "" for the root module.
    pub path: String,
    /// The enclosing module instance; `None` for the root.
    pub parent: Option<u32>,
    /// Number of `module.` steps; 0 for the root.
    pub depth: u32,
}

/// The dependency graph of a plan.
#[derive(Debug, Clone)]
pub struct DepGraph {
    /// Nodes are resource instances; an edge goes from a dependency to its dependent.
    pub graph: DiGraph<Node, EdgeKind, u32>,
    /// Module instances; nodes refer to them by index. Index 0 is the root module.
    pub module_instances: Vec<ModuleInstance>,
    /// What the edges were built from.
    pub source: EdgeSource,
}

impl DepGraph {
    /// The node for an address (the current object, not a deposed one), if any.
    pub fn find(&self, address: &str) -> Option<NodeIndex> {
        self.graph
            .node_indices()
            .find(|&n| self.graph[n].address == address && !self.graph[n].is_deposed)
    }

    /// Everything that depends on `start`, transitively: what a destroy or replace of `start`
    /// ripples into. `start` itself is not included.
    pub fn dependents(&self, start: &[NodeIndex]) -> Vec<NodeIndex> {
        reach(&self.graph, start)
    }

    /// Everything `start` depends on, transitively. `start` itself is not included.
    pub fn dependencies(&self, start: &[NodeIndex]) -> Vec<NodeIndex> {
        reach(Reversed(&self.graph), start)
    }

    /// Nodes whose action is destructive (delete, replace, forget).
    pub fn destructive(&self) -> Vec<NodeIndex> {
        self.graph
            .node_indices()
            .filter(|&n| self.graph[n].action.is_destructive())
            .collect()
    }

    /// Direct dependencies and dependents of a node.
    pub fn neighbours(&self, node: NodeIndex) -> impl Iterator<Item = NodeIndex> + '_ {
        self.graph
            .neighbors_directed(node, Direction::Incoming)
            .chain(self.graph.neighbors_directed(node, Direction::Outgoing))
    }
}

/// Breadth-first reach from several starts, the starts themselves left out (unless reached again
/// through a cycle, which they are not reported for either), sorted by index.
fn reach<G>(graph: G, start: &[NodeIndex]) -> Vec<NodeIndex>
where
    G: petgraph::visit::IntoNeighbors<NodeId = NodeIndex> + petgraph::visit::Visitable,
    G::Map: petgraph::visit::VisitMap<NodeIndex>,
{
    use petgraph::visit::VisitMap;
    let Some((&first, rest)) = start.split_first() else {
        return Vec::new();
    };
    let mut bfs = Bfs::new(graph, first);
    for &s in rest {
        if bfs.discovered.visit(s) {
            bfs.stack.push_back(s);
        }
    }
    let mut out = Vec::new();
    while let Some(n) = bfs.next(graph) {
        out.push(n);
    }
    let mut starts = start.to_vec();
    planlens_model::sort::natural(&mut starts);
    out.retain(|n| starts.binary_search(n).is_err());
    planlens_model::sort::natural(&mut out);
    out
}
