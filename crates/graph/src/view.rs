//! What the graph view draws: the dependency graph with collapsed modules folded into one node each
//! and, unless the full graph is asked for, only changed resources and their direct neighbours.
//!
//! A collapsed module is one box with its action mix; cluster boxes frame expanded modules; large
//! plans get a default folding (`default_collapsed`). Labels are relative to their module and
//! shortened to their end, unless that would make two boxes of one cluster read the same.
//! Highlights: the selection, what it depends on, its destructive blast radius. `DepGraph::search`
//! finds nodes, `DepGraph::reveal` opens what hides one, `hit` and `hit_cluster` test a point.
//! Pure; laid out through `layout`.

use std::collections::{BTreeSet, HashMap};

use petgraph::graph::NodeIndex;

use super::DepGraph;
use super::layout::{Layout, LayoutInput, Module, Rect, TITLE_HEIGHT, layout};
use super::style::node_prefix;
use planlens_model::Action;
use planlens_model::text::contains_ignore_case;

/// Above this many nodes, the default view collapses modules.
pub const READABLE_NODES: usize = 250;

/// Box height of a resource node and of a collapsed module, in px.
pub const NODE_HEIGHT: f32 = 30.0;
/// Box height of a collapsed module (name and action mix on two lines).
pub const MODULE_HEIGHT: f32 = 46.0;
/// Labels longer than this many characters are shortened to their end, after an ellipsis (unless
/// that would make two boxes of one cluster read the same).
pub const MAX_LABEL_CHARS: usize = 44;
/// Advance of one label character at the view's font size (12 px), in px: generous, so labels
/// fit in the widest common system font (DejaVu Sans averages about 7.4 px).
const CHAR_WIDTH: f32 = 7.6;
/// The same for bold text (action symbols and marks, module names).
const BOLD_CHAR_WIDTH: f32 = 8.2;

/// How the user has folded the graph.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ViewOptions {
    /// Module instances drawn as one node each (with everything below them).
    pub collapsed: BTreeSet<u32>,
    /// Show every resource, not only changed ones and their direct neighbours.
    pub show_unchanged: bool,
}

/// How many resources inside a collapsed module do what, in the legend's order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ActionMix {
    /// `+`
    pub create: u32,
    /// `~`
    pub update: u32,
    /// `-/+`, `+/-`, `+/.`
    pub replace: u32,
    /// `-`
    pub delete: u32,
    /// `.`
    pub forget: u32,
    /// `<=`
    pub read: u32,
    /// Unchanged.
    pub no_op: u32,
}

impl ActionMix {
    fn add(&mut self, action: Action) {
        match action {
            Action::Create => self.create += 1,
            Action::Update => self.update += 1,
            Action::Replace(_) => self.replace += 1,
            Action::Delete => self.delete += 1,
            Action::Forget => self.forget += 1,
            Action::Read => self.read += 1,
            Action::NoOp => self.no_op += 1,
        }
    }

    /// The segments of the badge, e.g. `[("create", "3 +"), ("update", "1 ~"), ("delete", "2 -")]`:
    /// one per action present, keyed for colouring.
    pub fn segments(&self) -> Vec<(&'static str, String)> {
        [
            ("create", self.create, "+"),
            ("update", self.update, "~"),
            ("replace", self.replace, "±"),
            ("delete", self.delete, "-"),
            ("forget", self.forget, "."),
            ("read", self.read, "<="),
            ("no-op", self.no_op, "="),
        ]
        .into_iter()
        .filter(|(_, n, _)| *n > 0)
        .map(|(key, n, symbol)| (key, format!("{n} {symbol}")))
        .collect()
    }

    /// True when something inside is destroyed, replaced or forgotten.
    pub fn is_destructive(&self) -> bool {
        self.replace + self.delete + self.forget > 0
    }

    /// Number of resources counted.
    pub fn total(&self) -> u32 {
        self.create
            + self.update
            + self.replace
            + self.delete
            + self.forget
            + self.read
            + self.no_op
    }
}

/// What a view node stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewNodeKind {
    /// One resource instance.
    Resource(NodeIndex),
    /// A collapsed module instance and everything below it.
    Module {
        /// Index into [`DepGraph::module_instances`].
        module: u32,
        /// What its resources do.
        mix: ActionMix,
    },
}

/// One box in the drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewNode {
    /// A resource or a collapsed module.
    pub kind: ViewNodeKind,
    /// The text in the box, without the action symbol: the address relative to the cluster's
    /// module, shortened to its end when long (boxes of one cluster never read the same unless
    /// their addresses do).
    pub label: String,
    /// The module instance whose cluster the box is drawn in.
    pub cluster: u32,
    /// Shown only because it neighbours a change: drawn faded.
    pub context_only: bool,
    /// Box size.
    pub size: (f32, f32),
}

/// A module instance drawn expanded, as a box around its members.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    /// Index into [`DepGraph::module_instances`].
    pub module: u32,
    /// Bounds of its members plus padding.
    pub rect: Rect,
    /// Nesting depth (1 for a top-level module), to draw outer clusters first.
    pub depth: u32,
}

/// The folded graph, laid out.
#[derive(Debug, Clone)]
pub struct View {
    /// The boxes.
    pub nodes: Vec<ViewNode>,
    /// Edges between boxes (dependency → dependent), one per pair.
    pub edges: Vec<(u32, u32)>,
    /// Per dependency-graph node, the box that shows it, if any is visible.
    pub node_of: Vec<Option<u32>>,
    /// Unchanged resources left out because the full graph was not asked for.
    pub hidden_unchanged: usize,
    /// Where everything is.
    pub layout: Layout,
    /// Expanded modules with visible members.
    pub clusters: Vec<Cluster>,
}

impl DepGraph {
    /// True when the node is a change worth showing: an action other than no-op, or a move,
    /// import or drift.
    pub fn is_changed(&self, n: NodeIndex) -> bool {
        let node = &self.graph[n];
        node.action != Action::NoOp || node.is_move || node.is_import || node.is_drifted
    }

    /// How the Graph tab folds the graph until the user changes something, and what
    /// `planlens graph --format svg` draws: [`Self::default_collapsed`], changes and their neighbours.
    /// When nothing changes at all (a state, or a plan of no-ops) there is nothing to centre on,
    /// so the whole graph is shown, folded the same way.
    pub fn opening_options(&self) -> ViewOptions {
        let show_unchanged = !self.graph.node_indices().any(|n| self.is_changed(n));
        ViewOptions {
            collapsed: self.collapsed_to_read(show_unchanged),
            show_unchanged,
        }
    }

    /// The modules to collapse so the default view stays readable: nothing when the changed
    /// resources and their neighbours fit in [`READABLE_NODES`], else every module instance from the
    /// deepest level at which the view fits (at worst, every top-level module).
    pub fn default_collapsed(&self) -> BTreeSet<u32> {
        self.collapsed_to_read(false)
    }

    /// [`Self::default_collapsed`] for a view that shows unchanged resources or not.
    fn collapsed_to_read(&self, show_unchanged: bool) -> BTreeSet<u32> {
        let visible = self.visible_nodes(show_unchanged);
        if visible.iter().filter(|v| v.is_some()).count() <= READABLE_NODES {
            return BTreeSet::new();
        }
        let max_depth = self
            .module_instances
            .iter()
            .map(|m| m.depth)
            .max()
            .unwrap_or(0);
        let at_or_below = |d: u32| -> BTreeSet<u32> {
            (0..self.module_instances.len() as u32)
                .filter(|&m| self.module_instances[m as usize].depth >= d)
                .collect()
        };
        for depth in (1..=max_depth).rev() {
            let collapsed = at_or_below(depth);
            let boxes = self.count_boxes(&visible, &collapsed);
            if boxes <= READABLE_NODES {
                return collapsed;
            }
        }
        at_or_below(1)
    }

    /// Per node: `None` hidden, `Some(false)` shown, `Some(true)` shown as context only.
    fn visible_nodes(&self, show_unchanged: bool) -> Vec<Option<bool>> {
        let g = &self.graph;
        let mut visible = vec![None; g.node_count()];
        for n in g.node_indices() {
            if show_unchanged || self.is_changed(n) {
                visible[n.index()] = Some(!self.is_changed(n));
            }
        }
        if !show_unchanged {
            for n in g.node_indices() {
                if self.is_changed(n) {
                    for m in self.neighbours(n) {
                        visible[m.index()].get_or_insert(true);
                    }
                }
            }
        }
        visible
    }

    /// The outermost collapsed module instance containing `module`, if any.
    fn collapsed_ancestor(&self, module: u32, collapsed: &BTreeSet<u32>) -> Option<u32> {
        let mut chain = Vec::new();
        let mut m = Some(module);
        while let Some(i) = m {
            chain.push(i);
            m = self.module_instances[i as usize].parent;
        }
        chain.into_iter().rev().find(|m| collapsed.contains(m))
    }

    /// The resources whose address contains `text` (ignoring case and surrounding spaces), in plan
    /// order (node order: rows first, then resources only in the prior state); none for blank text.
    pub fn search(&self, text: &str) -> Vec<NodeIndex> {
        let text = text.trim();
        if text.is_empty() {
            return Vec::new();
        }
        self.graph
            .node_indices()
            .filter(|&n| contains_ignore_case(&self.graph[n].address, text))
            .collect()
    }

    /// True when `n` is drawn (as itself or inside a collapsed module) with `show_unchanged`:
    /// a change, or a neighbour of one, or anything in the full graph.
    fn is_drawn(&self, n: NodeIndex, show_unchanged: bool) -> bool {
        show_unchanged || self.is_changed(n) || self.neighbours(n).any(|m| self.is_changed(m))
    }

    /// Changes `options` so that each of `nodes` is drawn as a box of its own: the collapsed
    /// modules around them are expanded and, if one is an unchanged resource the view leaves out,
    /// the full graph is shown. Returns whether anything changed.
    pub fn reveal(&self, options: &mut ViewOptions, nodes: &[NodeIndex]) -> bool {
        let mut changed = false;
        for &n in nodes {
            let mut module = Some(self.graph[n].module);
            while let Some(m) = module {
                changed |= options.collapsed.remove(&m);
                module = self.module_instances[m as usize].parent;
            }
            if !options.show_unchanged && !self.is_drawn(n, false) {
                options.show_unchanged = true;
                changed = true;
            }
        }
        changed
    }

    fn count_boxes(&self, visible: &[Option<bool>], collapsed: &BTreeSet<u32>) -> usize {
        let folded = self.folded(collapsed);
        let mut modules = BTreeSet::new();
        let mut resources = 0;
        for n in self.graph.node_indices() {
            if visible[n.index()].is_none() {
                continue;
            }
            match folded[self.graph[n].module as usize] {
                Some(m) => {
                    modules.insert(m);
                }
                None => resources += 1,
            }
        }
        resources + modules.len()
    }

    /// Per module instance, the collapsed module drawing it, if any (computed once per module:
    /// modules are few, nodes many).
    fn folded(&self, collapsed: &BTreeSet<u32>) -> Vec<Option<u32>> {
        (0..self.module_instances.len() as u32)
            .map(|m| self.collapsed_ancestor(m, collapsed))
            .collect()
    }

    /// Folds and lays out the graph as `options` say.
    pub fn view(&self, options: &ViewOptions) -> View {
        let g = &self.graph;
        let visible = self.visible_nodes(options.show_unchanged);
        let hidden_unchanged = visible.iter().filter(|v| v.is_none()).count();

        let folded = self.folded(&options.collapsed);

        let mut nodes: Vec<ViewNode> = Vec::new();
        let mut node_of = vec![None; g.node_count()];
        let mut module_box: HashMap<u32, u32> = HashMap::new();
        for n in g.node_indices() {
            let Some(context_only) = visible[n.index()] else {
                continue;
            };
            let node = &g[n];
            match folded[node.module as usize] {
                Some(m) => {
                    let ix = *module_box.entry(m).or_insert_with(|| {
                        let module = &self.module_instances[m as usize];
                        let parent = module.parent.unwrap_or(0);
                        nodes.push(ViewNode {
                            kind: ViewNodeKind::Module {
                                module: m,
                                mix: ActionMix::default(),
                            },
                            label: relative(
                                &module.path,
                                &self.module_instances[parent as usize].path,
                            )
                            .to_string(),
                            cluster: parent,
                            context_only: true,
                            size: (0.0, MODULE_HEIGHT),
                        });
                        nodes.len() as u32 - 1
                    });
                    let view_node = &mut nodes[ix as usize];
                    if let ViewNodeKind::Module { mix, .. } = &mut view_node.kind {
                        mix.add(node.action);
                    }
                    view_node.context_only &= context_only;
                    node_of[n.index()] = Some(ix);
                }
                None => {
                    let module = &self.module_instances[node.module as usize].path;
                    let mut label = relative(&node.address, module).to_string();
                    if node.is_deposed {
                        label.push_str(" (deposed)");
                    }
                    nodes.push(ViewNode {
                        kind: ViewNodeKind::Resource(n),
                        label,
                        cluster: node.module,
                        context_only,
                        size: (0.0, NODE_HEIGHT),
                    });
                    node_of[n.index()] = Some(nodes.len() as u32 - 1);
                }
            }
        }
        shorten_labels(&mut nodes);
        for node in &mut nodes {
            node.size.0 = self.box_width(node);
        }

        let mut edges: Vec<(u32, u32)> = g
            .edge_indices()
            .filter_map(|e| {
                let (a, b) = g.edge_endpoints(e)?;
                let (a, b) = (node_of[a.index()]?, node_of[b.index()]?);
                (a != b).then_some((a, b))
            })
            .collect();
        planlens_model::sort::natural(&mut edges);
        edges.dedup();

        let sizes: Vec<(f32, f32)> = nodes.iter().map(|n| n.size).collect();
        let groups: Vec<u32> = nodes.iter().map(|n| n.cluster).collect();
        // The layout draws each expanded module as a box around exactly its members.
        let modules: Vec<Module> = self
            .module_instances
            .iter()
            .map(|m| Module {
                parent: m.parent,
                min_width: title_width(&m.path),
            })
            .collect();
        let layout = layout(&LayoutInput {
            sizes: &sizes,
            edges: &edges,
            groups: &groups,
            modules: &modules,
        });
        let clusters = self.clusters(&layout);
        View {
            nodes,
            edges,
            node_of,
            hidden_unchanged,
            layout,
            clusters,
        }
    }

    /// The boxes the layout drew around each expanded module instance with visible members.
    fn clusters(&self, layout: &Layout) -> Vec<Cluster> {
        let mut clusters: Vec<Cluster> = layout
            .modules
            .iter()
            .enumerate()
            .filter_map(|(module, rect)| {
                Some(Cluster {
                    module: module as u32,
                    rect: (*rect)?,
                    depth: self.module_instances[module].depth,
                })
            })
            .collect();
        planlens_model::sort::by_key(&mut clusters, |c| (c.depth, c.module));
        clusters
    }
}

/// What to light up in a view.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HighlightOptions {
    /// The selected resource.
    pub selected: Option<NodeIndex>,
    /// Also show what the selection depends on.
    pub upstream: bool,
    /// Show the blast radius of every destructive change at once.
    pub destructive: bool,
}

/// Which boxes and edges of a view are lit, and the counts to print beside them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Highlight {
    /// The selected box.
    pub selected: Option<u32>,
    /// Per box: in the blast radius (depends on the selection or on a destructive change).
    pub downstream: Vec<bool>,
    /// Per box: the selection depends on it.
    pub upstream: Vec<bool>,
    /// Per view edge: on a lit path.
    pub hot_edges: Vec<bool>,
    /// Per view edge: on the path to what the selection depends on (drawn in that ring's colour;
    /// the other lit edges lead to the blast radius).
    pub upstream_edges: Vec<bool>,
    /// Resources that depend on the selection, transitively.
    pub dependents: usize,
    /// Resources the selection depends on, transitively.
    pub dependencies: usize,
    /// Destructive changes, when their blast radius is shown.
    pub destructive: usize,
    /// Resources depending on any destructive change (the changes themselves not counted).
    pub destructive_dependents: usize,
}

impl View {
    /// Lights the blast radius of the selection (and of every destructive change, if asked) and,
    /// if asked, what the selection depends on.
    pub fn highlight(&self, g: &DepGraph, options: &HighlightOptions) -> Highlight {
        let boxes = self.nodes.len();
        let mut h = Highlight {
            selected: options
                .selected
                .and_then(|n| self.node_of.get(n.index()).copied().flatten()),
            downstream: vec![false; boxes],
            upstream: vec![false; boxes],
            hot_edges: vec![false; self.edges.len()],
            upstream_edges: vec![false; self.edges.len()],
            ..Highlight::default()
        };
        // Sources of lit paths: the selection and the destructive changes.
        let mut sources = vec![false; boxes];
        let light = |nodes: &[NodeIndex], into: &mut Vec<bool>| {
            for n in nodes {
                if let Some(b) = self.node_of[n.index()] {
                    into[b as usize] = true;
                }
            }
        };
        if let Some(selected) = options.selected {
            let down = g.dependents(&[selected]);
            h.dependents = down.len();
            light(&down, &mut h.downstream);
            light(&[selected], &mut sources);
            if options.upstream {
                let up = g.dependencies(&[selected]);
                h.dependencies = up.len();
                light(&up, &mut h.upstream);
            }
        }
        if options.destructive {
            let destructive = g.destructive();
            let down = g.dependents(&destructive);
            h.destructive = destructive.len();
            h.destructive_dependents = down.len();
            light(&down, &mut h.downstream);
            light(&destructive, &mut sources);
        }
        for (i, &(a, b)) in self.edges.iter().enumerate() {
            let (a, b) = (a as usize, b as usize);
            let down = (sources[a] || h.downstream[a]) && h.downstream[b];
            let up = h.upstream[a] && (h.upstream[b] || Some(b as u32) == h.selected);
            h.hot_edges[i] = down || up;
            h.upstream_edges[i] = up && !down;
        }
        h
    }

    /// Everything drawn: boxes, module boxes and edges (the layout starts at (0, 0)). A camera
    /// that shows this cuts nothing off.
    pub fn drawing(&self) -> Rect {
        Rect {
            x: 0.0,
            y: 0.0,
            w: self.layout.width,
            h: self.layout.height,
        }
    }

    /// The boxes that show a change (not those drawn only as a change's neighbours): what the
    /// opening view frames when everything cannot be shown readably. Empty when nothing changes
    /// (a state).
    pub fn changed_boxes(&self) -> Vec<Rect> {
        self.nodes
            .iter()
            .zip(&self.layout.nodes)
            .filter(|(n, _)| !n.context_only)
            .map(|(_, r)| *r)
            .collect()
    }

    /// The box at a point of the layout, if any.
    pub fn hit(&self, x: f32, y: f32) -> Option<u32> {
        self.layout
            .nodes
            .iter()
            .position(|r| x >= r.x && x <= r.x + r.w && y >= r.y && y <= r.y + r.h)
            .map(|i| i as u32)
    }

    /// The expanded module whose title strip is at a point, if any (innermost first).
    pub fn hit_cluster(&self, x: f32, y: f32) -> Option<u32> {
        self.clusters
            .iter()
            .rev()
            .find(|c| {
                let r = &c.rect;
                x >= r.x && x <= r.x + r.w && y >= r.y && y <= r.y + CLUSTER_TITLE
            })
            .map(|c| c.module)
    }
}

/// Height of the strip at the top of a module cluster holding its name; clicking it collapses the
/// module.
pub const CLUSTER_TITLE: f32 = TITLE_HEIGHT;

/// Approximate advance of one character of a cluster title (11 px), in px.
const TITLE_CHAR_WIDTH: f32 = 6.6;

/// Width a cluster needs for its title, `▾ PATH` drawn 8 px from its left edge.
fn title_width(path: &str) -> f32 {
    let chars = planlens_model::text::visible(path).chars().count() + 2;
    chars as f32 * TITLE_CHAR_WIDTH + 16.0
}

/// An address (or module path) relative to the module it is drawn in: `aws_x.y` for
/// `module.a.aws_x.y` in `module.a`; unchanged in the root module or when it is not inside.
fn relative<'a>(address: &'a str, module: &str) -> &'a str {
    if module.is_empty() {
        return address;
    }
    address
        .strip_prefix(module)
        .and_then(|s| s.strip_prefix('.'))
        .unwrap_or(address)
}

/// The last `keep` characters of a label after an ellipsis, or the label when it is no longer.
fn tail(label: &str, keep: usize) -> String {
    let count = label.chars().count();
    if count <= keep {
        return label.to_string();
    }
    let mut s = String::from("…");
    s.extend(label.chars().skip(count - keep + 1));
    s
}

/// Keeps the end of a long label, where an address says what tells it apart from its siblings
/// (`…_instance.this["b"]`); the whole address is shown on hover and in the detail.
pub fn shorten(label: &str) -> String {
    tail(label, MAX_LABEL_CHARS)
}

/// Shortens every box's label to its end and, where two boxes of one cluster would then read the
/// same, keeps more of their ends until they do not (the whole label at most).
fn shorten_labels(nodes: &mut [ViewNode]) {
    let mut by_short: HashMap<(u32, String), Vec<usize>> = HashMap::new();
    for (i, node) in nodes.iter().enumerate() {
        by_short
            .entry((node.cluster, shorten(&node.label)))
            .or_default()
            .push(i);
    }
    let mut short = vec![String::new(); nodes.len()];
    for ((_, label), members) in by_short {
        let mut keep = MAX_LABEL_CHARS;
        let longest = members
            .iter()
            .map(|&i| nodes[i].label.chars().count())
            .max()
            .unwrap_or(0);
        let distinct = |keep: usize| {
            let full: BTreeSet<&str> = members.iter().map(|&i| nodes[i].label.as_str()).collect();
            let tails: BTreeSet<String> = members
                .iter()
                .map(|&i| tail(&nodes[i].label, keep))
                .collect();
            tails.len() == full.len()
        };
        if members.len() > 1 {
            while keep < longest && !distinct(keep) {
                keep += 1;
            }
        }
        for &i in &members {
            short[i] = if keep == MAX_LABEL_CHARS {
                label.clone()
            } else {
                tail(&nodes[i].label, keep)
            };
        }
    }
    for (node, s) in nodes.iter_mut().zip(short) {
        node.label = s;
    }
}

/// Width of bold text: spaces are narrow, symbols and letters about [`BOLD_CHAR_WIDTH`].
fn bold_width(text: &str) -> f32 {
    text.chars()
        .map(|c| if c == ' ' { 4.0 } else { BOLD_CHAR_WIDTH })
        .sum()
}

impl DepGraph {
    /// The width of a box: what the canvas and the SVG draw in it (a resource's action symbol and
    /// marks, then its label; a module's `▸ name` over its action mix), with padding.
    fn box_width(&self, node: &ViewNode) -> f32 {
        let label = node.label.chars().count() as f32 * CHAR_WIDTH;
        match &node.kind {
            ViewNodeKind::Resource(n) => {
                let r = &self.graph[*n];
                let prefix = node_prefix(r.action, r.is_import, r.is_move, r.is_drifted);
                14.0 + bold_width(&prefix) + label + 12.0
            }
            ViewNodeKind::Module { mix, .. } => {
                let title = bold_width("▸ ") + node.label.chars().count() as f32 * BOLD_CHAR_WIDTH;
                let badge: usize = mix.segments().iter().map(|(_, s)| s.len() + 2).sum();
                (title + 24.0).max(badge as f32 * CHAR_WIDTH + 24.0)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn graph_of(path: &PathBuf) -> Option<DepGraph> {
        let bytes = std::fs::read(path).ok()?;
        let name = path.file_name()?.to_string_lossy().into_owned();
        let doc = planlens_readers::load_plan(bytes, &name).ok()?;
        Some(DepGraph::build(&doc))
    }

    /// `rel` under the repository's root (two levels above this crate).
    fn repo(rel: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(rel)
    }

    /// Our fixtures, the samples and (when present) the real corpus.
    fn every_plan() -> Vec<PathBuf> {
        let mut paths = Vec::new();
        for dir in ["tests/fixtures", "samples", "../shared/fixtures/real"] {
            let Ok(entries) = std::fs::read_dir(repo(dir)) else {
                // A user's clone has no ../shared; CI has it beside the clone.
                assert!(
                    std::env::var("CI").map_or(true, |ci| ci != "true"),
                    "{dir} is missing, and CI=true needs it"
                );
                eprintln!("SKIPPED: {dir} is not beside the repository");
                continue;
            };
            paths.extend(
                entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "json")),
            );
        }
        paths.sort();
        paths
    }

    /// The full address of what a box stands for.
    fn address_of(g: &DepGraph, node: &ViewNode) -> String {
        match &node.kind {
            ViewNodeKind::Resource(n) => {
                let r = &g.graph[*n];
                format!(
                    "{}{}",
                    r.address,
                    if r.is_deposed { " (deposed)" } else { "" }
                )
            }
            ViewNodeKind::Module { module, .. } => {
                g.module_instances[*module as usize].path.clone()
            }
        }
    }

    /// Boxes of one cluster read differently whenever they stand for different things, expanded
    /// and collapsed, and every label is the end of its address.
    fn assert_labels_tell_siblings_apart(g: &DepGraph, options: &ViewOptions, name: &str) {
        let v = g.view(options);
        let mut seen: HashMap<(u32, &str), String> = HashMap::new();
        for node in &v.nodes {
            let full = address_of(g, node);
            let end = node.label.trim_start_matches('…');
            assert!(
                full.ends_with(end),
                "{name}: {:?} is not the end of {full}",
                node.label
            );
            if let Some(other) = seen.insert((node.cluster, node.label.as_str()), full.clone()) {
                assert_eq!(other, full, "{name}: two boxes read {:?}", node.label);
            }
        }
    }

    #[test]
    fn labels_keep_the_end_that_tells_driftctl_records_apart() {
        let g = graph_of(&repo("tests/fixtures/driftctl_route53.json")).expect("fixture loads");
        let v = g.view(&ViewOptions::default());
        let mut labels: Vec<&str> = v.nodes.iter().map(|n| n.label.as_str()).collect();
        labels.sort();
        assert_eq!(
            labels,
            [
                "…160912ILRMWGJR3SGR_api.prod.example.com_A\"]",
                "…160912ILRMWGJR3SGR_cdn.prod.example.com_A\"]",
                "…160912ILRMWGJR3SGR_www.prod.example.com_A\"]",
            ]
        );
    }

    #[test]
    fn sibling_labels_stay_distinct_when_their_ends_agree() {
        // Same last 60 characters: the tails grow until the three differ.
        let common = "x".repeat(60);
        let mut nodes: Vec<ViewNode> = ["alpha", "beta", "gamma"]
            .iter()
            .map(|k| ViewNode {
                kind: ViewNodeKind::Module {
                    module: 0,
                    mix: ActionMix::default(),
                },
                label: format!("module.{k}_{common}"),
                cluster: 0,
                context_only: false,
                size: (0.0, 0.0),
            })
            .collect();
        shorten_labels(&mut nodes);
        let labels: BTreeSet<&str> = nodes.iter().map(|n| n.label.as_str()).collect();
        assert_eq!(labels.len(), 3, "{labels:?}");
        for n in &nodes {
            assert!(n.label.starts_with('…'), "{}", n.label);
            assert!(n.label.chars().count() <= 60 + 8, "{}", n.label);
        }
    }

    #[test]
    fn every_plan_draws_labels_that_tell_siblings_apart() {
        let plans = every_plan();
        assert!(plans.len() > 10);
        for path in plans {
            let name = path.display().to_string();
            let Some(g) = graph_of(&path) else { continue };
            let all: BTreeSet<u32> = (1..g.module_instances.len() as u32).collect();
            for options in [
                ViewOptions {
                    collapsed: BTreeSet::new(),
                    show_unchanged: true,
                },
                ViewOptions {
                    collapsed: all,
                    show_unchanged: true,
                },
            ] {
                assert_labels_tell_siblings_apart(&g, &options, &name);
            }
        }
    }

    #[test]
    fn a_collapsed_module_is_labelled_relative_to_the_module_around_it() {
        let g = graph_of(&repo("samples/modules-for-each.json")).expect("sample loads");
        let inner = g
            .module_instances
            .iter()
            .position(|m| m.path == "module.service[\"api\"].module.alerts")
            .expect("nested module") as u32;
        let v = g.view(&ViewOptions {
            collapsed: BTreeSet::from([inner]),
            show_unchanged: false,
        });
        let node = v
            .nodes
            .iter()
            .find(|n| matches!(n.kind, ViewNodeKind::Module { module, .. } if module == inner))
            .expect("the collapsed module's box");
        assert_eq!(node.label, "module.alerts");
    }

    #[test]
    fn search_finds_resources_in_plan_order_and_reveal_opens_what_hides_them() {
        let g = graph_of(&repo("samples/modules-for-each.json")).expect("sample loads");
        let found = g.search("  MODULE.NETWORK. ");
        assert!(!found.is_empty());
        assert!(found.windows(2).all(|w| w[0] < w[1]));
        assert!(
            found
                .iter()
                .all(|&n| g.graph[n].address.starts_with("module.network."))
        );
        assert!(g.search("   ").is_empty());

        let all: BTreeSet<u32> = (1..g.module_instances.len() as u32).collect();
        let mut options = ViewOptions {
            collapsed: all.clone(),
            show_unchanged: false,
        };
        assert!(g.reveal(&mut options, &found));
        assert!(!g.reveal(&mut options, &found), "nothing left to open");
        let v = g.view(&options);
        for &n in &found {
            let b = v.node_of[n.index()].expect("drawn");
            assert_eq!(v.nodes[b as usize].kind, ViewNodeKind::Resource(n));
        }
        // Only what hid the matches was opened.
        assert!(options.collapsed.len() < all.len() && !options.collapsed.is_empty());
    }

    #[test]
    fn reveal_shows_the_full_graph_for_an_unchanged_resource_left_out() {
        let g = graph_of(&repo("tests/fixtures/blast_radius.json")).expect("fixture loads");
        let role = g.find("aws_iam_role.ci").expect("unrelated no-op");
        let mut options = ViewOptions::default();
        assert_eq!(g.view(&options).node_of[role.index()], None);
        assert!(g.reveal(&mut options, &[role]));
        assert!(options.show_unchanged);
        assert!(g.view(&options).node_of[role.index()].is_some());
    }
}
