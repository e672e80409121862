//! The dependency graph written out for other tools: Graphviz DOT and JSON (`planlens graph`).

use std::fmt::Write;

use serde::Serialize;

use super::DepGraph;

/// `planlens graph --format json`: nodes and edges, edges from the dependency to the dependent.
#[derive(Serialize)]
struct JsonGraph<'g> {
    /// What the edges were built from: "configuration", "state" or "none".
    edges_from: &'static str,
    nodes: Vec<JsonNode<'g>>,
    edges: Vec<JsonEdge<'g>>,
}

#[derive(Serialize)]
struct JsonNode<'g> {
    address: &'g str,
    /// Our stable action key (`create`, `replace`, `replace-cbd`, …).
    action: &'static str,
    /// Terraform's own `actions` array.
    actions: &'static [&'static str],
    /// Module instance path; "" for the root module.
    module: &'g str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    data: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    deposed: bool,
}

#[derive(Serialize)]
struct JsonEdge<'g> {
    from: &'g str,
    to: &'g str,
    kind: &'static str,
}

impl DepGraph {
    /// The key naming [`DepGraph::source`] in exports.
    pub fn source_key(&self) -> &'static str {
        match self.source {
            super::EdgeSource::Configuration => "configuration",
            super::EdgeSource::StateOnly => "state",
            super::EdgeSource::Nothing => "none",
        }
    }

    /// The graph as JSON: `{"edges_from", "nodes": [{address, action, actions, module}],
    /// "edges": [{from, to, kind}]}`, edges from the dependency to the dependent.
    pub fn to_json(&self) -> String {
        let g = &self.graph;
        let doc = JsonGraph {
            edges_from: self.source_key(),
            nodes: g
                .node_weights()
                .map(|n| JsonNode {
                    address: &n.address,
                    action: n.action.key(),
                    actions: n.action.names(),
                    module: &self.module_instances[n.module as usize].path,
                    data: n.is_data,
                    deposed: n.is_deposed,
                })
                .collect(),
            edges: g
                .edge_indices()
                .filter_map(|e| {
                    let (from, to) = g.edge_endpoints(e)?;
                    Some(JsonEdge {
                        from: &g[from].address,
                        to: &g[to].address,
                        kind: g[e].key(),
                    })
                })
                .collect(),
        };
        // Serializing plain structs of strings cannot fail.
        serde_json::to_string_pretty(&doc).expect("graph JSON")
    }

    /// The graph in Graphviz DOT: module instances as nested clusters, nodes labelled with
    /// Terraform's action symbol, destructive changes drawn bold and red.
    pub fn to_dot(&self) -> String {
        let g = &self.graph;
        let mut out = String::from(
            "digraph planlens {\n  rankdir=TB;\n  compound=true;\n  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"Helvetica\"];\n",
        );
        // Children per module instance, so clusters nest as modules do.
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); self.module_instances.len()];
        for (i, m) in self.module_instances.iter().enumerate() {
            if let Some(p) = m.parent {
                children[p as usize].push(i as u32);
            }
        }
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); self.module_instances.len()];
        for n in g.node_indices() {
            members[g[n].module as usize].push(n.index());
        }
        self.write_cluster(&mut out, 0, &children, &members, 1);
        for e in g.edge_indices() {
            let Some((from, to)) = g.edge_endpoints(e) else {
                continue;
            };
            let style = match g[e] {
                super::EdgeKind::Reference => "",
                super::EdgeKind::DependsOn => " [style=dashed]",
                super::EdgeKind::State => " [style=dotted]",
            };
            let _ = writeln!(
                out,
                "  {} -> {}{style};",
                dot_id(&node_id(
                    g[from].address.as_str(),
                    g[from].is_deposed,
                    from.index()
                )),
                dot_id(&node_id(
                    g[to].address.as_str(),
                    g[to].is_deposed,
                    to.index()
                )),
            );
        }
        out.push_str("}\n");
        out
    }

    fn write_cluster(
        &self,
        out: &mut String,
        module: u32,
        children: &[Vec<u32>],
        members: &[Vec<usize>],
        indent: usize,
    ) {
        let pad = "  ".repeat(indent);
        for &n in &members[module as usize] {
            let node = &self.graph[petgraph::graph::NodeIndex::new(n)];
            let (fill, extra) = match node.action {
                a if a.is_destructive() => ("#fde2e1", ", color=\"#c0392b\", penwidth=2"),
                crate::model::Action::Create => ("#e3f6e8", ""),
                crate::model::Action::Update => ("#fff4d6", ""),
                crate::model::Action::Read => ("#e6f0ff", ""),
                _ => ("#f2f2f2", ", fontcolor=\"#666666\""),
            };
            let mut label = format!("{} {}", node.action.symbol().trim(), node.address);
            if node.is_deposed {
                label.push_str(" (deposed)");
            }
            let _ = writeln!(
                out,
                "{pad}{} [label={}, fillcolor=\"{fill}\"{extra}];",
                dot_id(&node_id(&node.address, node.is_deposed, n)),
                dot_id(label.trim()),
            );
        }
        for &child in &children[module as usize] {
            let path = &self.module_instances[child as usize].path;
            let _ = writeln!(
                out,
                "{pad}subgraph {} {{\n{pad}  label={};\n{pad}  style=rounded;\n{pad}  color=\"#8892a0\";",
                dot_id(&format!("cluster_{child}")),
                dot_id(path),
            );
            self.write_cluster(out, child, children, members, indent + 1);
            let _ = writeln!(out, "{pad}}}");
        }
    }
}

/// Deposed objects share their address with the current object; keep their DOT ids apart.
fn node_id(address: &str, deposed: bool, index: usize) -> String {
    if deposed {
        format!("{address} (deposed #{index})")
    } else {
        address.to_string()
    }
}

/// A DOT quoted string: addresses hold quotes and backslashes (`module.x["a\"b"]`).
fn dot_id(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            c if c.is_control() => {}
            c => s.push(c),
        }
    }
    s.push('"');
    s
}
