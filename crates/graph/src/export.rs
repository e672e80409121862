//! The dependency graph written out for other tools: Graphviz DOT and JSON (`planlens graph`).
//!
//! It also writes SVG (`view_to_svg`); `opening_svg` is the Graph tab's opening picture as its SVG
//! export writes it (`planlens graph --format svg`). Text is XML- or DOT-escaped; in the SVG each
//! node is a `<g data-address>` and each module box a `<g data-module>`.

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
                planlens_model::Action::Create => ("#e3f6e8", ""),
                planlens_model::Action::Update => ("#fff4d6", ""),
                planlens_model::Action::Read => ("#e6f0ff", ""),
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

/// Escapes text for SVG/XML content and attribute values.
fn xml(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '&' => s.push_str("&amp;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&#39;"),
            // XML 1.0 cannot carry most control characters, even escaped.
            c if c.is_control() && c != '\n' && c != '\t' => s.push('\u{fffd}'),
            c => s.push(c),
        }
    }
    s
}

/// The title of a picture of a plan's graph, from the plan's file name.
pub fn svg_title(file_name: &str) -> String {
    format!("{file_name} — dependency graph")
}

/// The picture the Graph tab opens with (its options, nothing selected or lit), as the tab's SVG
/// export writes it: what `planlens graph --format svg` prints.
pub fn opening_svg(g: &DepGraph, file_name: &str) -> String {
    let view = g.view(&g.opening_options());
    let lit = view.highlight(g, &super::view::HighlightOptions::default());
    view_to_svg(g, &view, &lit, &svg_title(file_name))
}

/// The legend's row for the marks since the last plan: each badge and what it means, and how many
/// changes are no longer planned (not drawn: they are not in this plan).
fn since_legend(out: &mut String, since: &Since, margin: f32) {
    use super::style::since_badge;
    use planlens_model::since::SinceMark;
    let p = &super::style::Palette::LIGHT;
    let y = 30.0 + SINCE_LEGEND_HEIGHT;
    let _ = write!(
        out,
        "<g class=\"legend-since\"><text x=\"{margin}\" y=\"{:.0}\" font-size=\"11\" font-weight=\"bold\">Since the last plan:</text>",
        y + 12.0
    );
    let mut x = margin + 118.0;
    for mark in SinceMark::ALL {
        let (word, w) = since_badge(mark);
        let meaning = mark.words();
        let _ = write!(
            out,
            "<rect x=\"{x:.1}\" y=\"{y:.0}\" width=\"{w:.1}\" height=\"14\" rx=\"3\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.0}\" font-size=\"10\" font-weight=\"bold\" fill=\"{}\">{word}</text><text x=\"{:.1}\" y=\"{:.0}\" font-size=\"11\">{}</text>",
            p.since,
            x + 5.0,
            y + 10.5,
            p.on_fill,
            x + w + 4.0,
            y + 11.0,
            xml(meaning),
        );
        x += w + 14.0 + meaning.len() as f32 * 5.6;
    }
    let _ = writeln!(
        out,
        "<text x=\"{x:.1}\" y=\"{:.0}\" font-size=\"11\">{}</text></g>",
        y + 11.0,
        xml(&gone_words(since.gone)),
    );
}

/// How many changes of the last plan are no longer planned, and that the graph cannot draw them.
pub fn gone_words(gone: usize) -> String {
    match gone {
        0 => "nothing no longer planned".to_string(),
        1 => "1 change no longer planned (not in this graph)".to_string(),
        n => format!("{n} changes no longer planned (not in this graph)"),
    }
}

/// Height of the legend strip at the top of an exported picture.
pub const LEGEND_HEIGHT: f32 = 56.0;

/// What changed since the last plan reviewed, as the graph marks it: each address's mark (given
/// as data by whoever compared the plans) and how many changes are no longer planned (they are
/// not in this plan, so not in its graph).
#[derive(Debug, Clone, Copy)]
pub struct Since<'a> {
    /// The mark of every address that changed since.
    pub marks: &'a std::collections::HashMap<String, planlens_model::since::SinceMark>,
    /// Changes of the last plan that this one no longer plans.
    pub gone: usize,
}

/// Height of the legend's second row, which says what the marks since the last plan mean.
const SINCE_LEGEND_HEIGHT: f32 = 24.0;

/// The current view as a standalone SVG document: title, legend, clusters, edges and nodes with
/// their highlights. Text is escaped; nothing in it runs.
pub fn view_to_svg(
    g: &DepGraph,
    view: &super::view::View,
    highlight: &super::view::Highlight,
    title: &str,
) -> String {
    view_to_svg_since(g, view, highlight, title, None)
}

/// [`view_to_svg`] with what changed since the last plan reviewed, when the plan was compared
/// with it: a badge on each marked node and a second legend row saying what the badges mean and
/// how many changes are gone.
pub fn view_to_svg_since(
    g: &DepGraph,
    view: &super::view::View,
    highlight: &super::view::Highlight,
    title: &str,
    since: Option<&Since>,
) -> String {
    use super::style::{colour, legend, node_prefix, node_style, segment_fill, since_badge};
    use super::view::ViewNodeKind;

    let margin = 16.0;
    let legend_height = LEGEND_HEIGHT
        + if since.is_some() {
            SINCE_LEGEND_HEIGHT
        } else {
            0.0
        };
    let width = (view.layout.width + 2.0 * margin).max(720.0);
    let height = view.layout.height + 2.0 * margin + legend_height;
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n<title>{}</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n",
        xml(title)
    );
    // Legend.
    let _ = writeln!(
        out,
        "<g class=\"legend\"><text x=\"{margin}\" y=\"20\" font-weight=\"bold\">{}</text>",
        xml(title)
    );
    let mut x = margin;
    for (action, symbol, label) in legend() {
        let s = node_style(action);
        let _ = writeln!(
            out,
            "<rect x=\"{x}\" y=\"30\" width=\"22\" height=\"16\" rx=\"3\" fill=\"{}\" stroke=\"{}\" stroke-width=\"{}\"/><text x=\"{}\" y=\"42\" font-size=\"10\" text-anchor=\"middle\" fill=\"{}\">{}</text><text x=\"{}\" y=\"42\" font-size=\"11\">{}</text>",
            s.fill,
            s.stroke,
            s.border.min(2.0),
            x + 11.0,
            s.stroke,
            xml(if symbol.is_empty() { "=" } else { symbol }),
            x + 26.0,
            xml(label),
        );
        x += 32.0 + label.chars().count() as f32 * 6.2;
    }
    for (mark, meaning) in super::style::MARKS {
        let _ = writeln!(
            out,
            "<text x=\"{x}\" y=\"42\" font-size=\"11\">{mark} {meaning}</text>"
        );
        x += 24.0 + meaning.len() as f32 * 6.2;
    }
    if let Some(since) = since {
        since_legend(&mut out, since, margin);
    }
    out.push_str("</g>\n");
    let _ = writeln!(
        out,
        "<g transform=\"translate({margin} {})\">",
        margin + legend_height
    );
    // Tools read what is drawn where from `data-module` (a cluster: the module instance's
    // path) and `data-address` (a node: the resource's address, or a collapsed module's path).
    for c in &view.clusters {
        let r = &c.rect;
        let path = xml(&g.module_instances[c.module as usize].path);
        let _ = writeln!(
            out,
            "<g class=\"cluster\" data-module=\"{path}\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"8\" fill=\"{}\" stroke=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"{}\">{path}</text></g>",
            r.x,
            r.y,
            r.w,
            r.h,
            colour::CLUSTER_FILL,
            colour::CLUSTER_STROKE,
            r.x + 8.0,
            r.y + 13.0,
            colour::TEXT_FADED,
        );
    }
    for (i, line) in view.layout.edges.iter().enumerate() {
        if line.len() < 2 {
            continue;
        }
        let hot = highlight.hot_edges.get(i).copied().unwrap_or(false);
        let points: Vec<String> = line.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
        let _ = writeln!(
            out,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"/>",
            points.join(" "),
            if hot { colour::EDGE_HOT } else { colour::EDGE },
            if hot { 2.0 } else { 1.0 },
        );
        if let Some([(lx, ly), (tx, ty), (rx, ry)]) = super::style::arrow_head(line) {
            let _ = writeln!(
                out,
                "<polygon points=\"{tx:.1},{ty:.1} {lx:.1},{ly:.1} {rx:.1},{ry:.1}\" fill=\"{}\"/>",
                if hot { colour::EDGE_HOT } else { colour::EDGE },
            );
        }
    }
    for (i, (node, r)) in view.nodes.iter().zip(&view.layout.nodes).enumerate() {
        let opacity = if node.context_only { 0.55 } else { 1.0 };
        // Rings as the canvas draws them: each highlight its own colour and dash.
        let lit = if highlight.selected == Some(i as u32) {
            Some(super::style::Lit::Selected)
        } else if highlight.downstream.get(i).copied().unwrap_or(false) {
            Some(super::style::Lit::Dependent)
        } else if highlight.upstream.get(i).copied().unwrap_or(false) {
            Some(super::style::Lit::Dependency)
        } else {
            None
        };
        if let Some(ring) = lit.map(|l| super::style::Palette::LIGHT.ring(l)) {
            let dash: Vec<String> = ring.dash.iter().map(|d| d.to_string()).collect();
            let _ = writeln!(
                out,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"8\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{}/>",
                r.x - ring.gap,
                r.y - ring.gap,
                r.w + 2.0 * ring.gap,
                r.h + 2.0 * ring.gap,
                ring.colour,
                ring.width,
                if dash.is_empty() {
                    String::new()
                } else {
                    format!(" stroke-dasharray=\"{}\"", dash.join(" "))
                },
            );
        }
        match &node.kind {
            ViewNodeKind::Resource(n) => {
                let dep = &g.graph[*n];
                let s = node_style(dep.action);
                let dash = if s.dash.is_empty() {
                    String::new()
                } else {
                    let parts: Vec<String> = s.dash.iter().map(|d| d.to_string()).collect();
                    format!(" stroke-dasharray=\"{}\"", parts.join(" "))
                };
                let _ = write!(
                    out,
                    "<g class=\"node\" data-address=\"{}\"{} opacity=\"{opacity}\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"5\" fill=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{dash}/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"{}\"><tspan font-weight=\"bold\" fill=\"{}\">{}</tspan> {}</text>",
                    xml(&dep.address),
                    if dep.is_deposed {
                        " data-deposed=\"true\""
                    } else {
                        ""
                    },
                    r.x,
                    r.y,
                    r.w,
                    r.h,
                    s.fill,
                    s.stroke,
                    s.border,
                    r.x + 8.0,
                    r.y + r.h / 2.0 + 4.0,
                    colour::TEXT,
                    s.stroke,
                    xml(&node_prefix(
                        dep.action,
                        dep.is_import,
                        dep.is_move,
                        dep.is_drifted
                    )),
                    xml(&node.label),
                );
                // What changed since the last plan: a badge on the top-left corner (a finding's
                // flag is on the other one), saying which in words.
                if let Some(mark) = since.and_then(|s| s.marks.get(&dep.address)) {
                    let (word, w) = since_badge(*mark);
                    let p = &super::style::Palette::LIGHT;
                    let _ = write!(
                        out,
                        "<g class=\"since\" data-since=\"{}\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"14\" rx=\"3\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" font-weight=\"bold\" fill=\"{}\">{word}</text></g>",
                        mark.key(),
                        r.x + 4.0,
                        r.y - 7.0,
                        p.since,
                        r.x + 9.0,
                        r.y + 3.5,
                        p.on_fill,
                    );
                }
                out.push_str("</g>\n");
            }
            ViewNodeKind::Module { module, mix } => {
                let stroke = if mix.is_destructive() {
                    "#b42318"
                } else {
                    "#475467"
                };
                let border = if mix.is_destructive() { 3.0 } else { 1.5 };
                let _ = writeln!(
                    out,
                    "<g class=\"node\" data-address=\"{}\" data-collapsed=\"true\" opacity=\"{opacity}\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"8\" fill=\"#eef1f6\" stroke=\"{stroke}\" stroke-width=\"{border}\"/><text x=\"{:.1}\" y=\"{:.1}\" font-weight=\"bold\" fill=\"{}\">▸ {}</text>",
                    xml(&g.module_instances[*module as usize].path),
                    r.x,
                    r.y,
                    r.w,
                    r.h,
                    r.x + 8.0,
                    r.y + 16.0,
                    colour::TEXT,
                    xml(&node.label),
                );
                let mut sx = r.x + 8.0;
                for (key, text) in mix.segments() {
                    let w = text.chars().count() as f32 * 7.0 + 8.0;
                    let _ = writeln!(
                        out,
                        "<rect x=\"{sx:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"15\" rx=\"3\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"#ffffff\">{}</text>",
                        r.y + 24.0,
                        segment_fill(key),
                        sx + 4.0,
                        r.y + 35.5,
                        xml(&text),
                    );
                    sx += w + 3.0;
                }
                out.push_str("</g>\n");
            }
        }
    }
    out.push_str("</g>\n</svg>\n");
    out
}
