//! Layered (Sugiyama-style) drawing of the dependency graph, cheap enough to run in the browser.
//!
//! Dependencies sit above their dependents, as `terraform graph` reads. Each weakly connected
//! component is drawn on its own, in five steps: break cycles (reverse DFS back edges), assign
//! layers (longest path, then nodes with more dependents than dependencies pulled down towards
//! them), split long edges with dummy nodes, order each layer to reduce crossings (median
//! sweeps that keep a module's nodes together, then adjacent swaps), and place the nodes
//! (isotonic regression towards their neighbours). The components are then packed into rows,
//! largest first, with the isolated nodes in rows after them.
//!
//! Work is bounded by budgets, not clocks: the browser has no `std::time`, and a layout must be the
//! same on every run and platform, so there are no threads or random numbers either.

use petgraph::unionfind::UnionFind;

/// Vertical space between two layers, where the edges run.
const LAYER_GAP: f32 = 60.0;
/// Horizontal space between two nodes of the same module.
const NODE_GAP: f64 = 24.0;
/// Horizontal space between nodes of different modules, so module boxes drawn around them
/// do not touch.
const GROUP_GAP: f64 = 40.0;
/// Horizontal space next to a dummy node: edges may run closer together than boxes.
const DUMMY_GAP: f64 = 12.0;
/// Width reserved for an edge passing through a layer.
const DUMMY_WIDTH: f64 = 8.0;
/// Space between packed components and between isolated nodes.
const COMPONENT_GAP: f32 = 48.0;
/// Width : height the packing aims at, that of a typical screen.
const TARGET_ASPECT: f32 = 1.6;

/// Node plus edge visits (dummies included) that crossing reduction may spend on the whole
/// graph, summed over its sweeps: a small graph gets every sweep, a 10k-node one a few.
const ORDER_WORK_BUDGET: usize = 1_000_000;
/// More sweeps than this rarely improve a median ordering.
const MAX_SWEEPS: usize = 24;
/// A downward and an upward sweep, so even huge components see both directions.
const MIN_SWEEPS: usize = 2;
/// Stop sweeping once this many sweeps in a row found no better order: by then the sweeps
/// are cycling, and each extra one costs as much as a useful one.
const STALE_SWEEPS: usize = 2;
/// Rounds of adjacent swaps on the best order found: the first two undo most knots, later
/// ones cost as much for little.
const TRANSPOSE_ROUNDS: usize = 2;
/// Dummy nodes a component may get per real node and edge. Dependency graphs have short edges,
/// but a graph with many very long edges would otherwise grow millions of dummies; past this
/// budget the longest edges are drawn as straight lines and ignored by the ordering.
const DUMMIES_PER_ELEMENT: usize = 4;

/// Pull of a node that has no neighbour in the layer being looked at: it stays where it is
/// unless a neighbouring block pushes it.
const IDLE_WEIGHT: f64 = 1e-3;
/// Pull of an edge between two real nodes; edges touching dummies pull harder, so long edges
/// come out straight (the weights of Gansner et al.'s priority layout).
const REAL_EDGE_WEIGHT: f64 = 1.0;
/// Pull of an edge between a real node and a dummy node.
const MIXED_EDGE_WEIGHT: f64 = 2.0;
/// Pull of an edge between two dummy nodes: the inner segments of a long edge.
const DUMMY_EDGE_WEIGHT: f64 = 8.0;

/// What the layout needs to know about the graph to draw.
pub struct LayoutInput<'a> {
    /// Width and height of each node's box, in px; node i is `sizes[i]`.
    pub sizes: &'a [(f32, f32)],
    /// Edges as (dependency, dependent) node indices. May contain duplicates, self-loops and
    /// cycles; edges naming a node past the end of `sizes` are ignored (empty polyline).
    pub edges: &'a [(u32, u32)],
    /// Cluster (module) id per node, same length as sizes: nodes with the same id are kept
    /// adjacent within a layer where possible, so module boxes stay compact. A node past the
    /// end of `groups` is in group `u32::MAX`.
    pub groups: &'a [u32],
    /// Packing unit per node (may be empty): nodes with the same unit are laid out as one
    /// component even when no edge joins them, so a module's cluster box encloses only its own
    /// members instead of spanning unrelated components. `u32::MAX` means no unit.
    pub units: &'a [u32],
}

/// An axis-aligned box: top-left corner and size, in px.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rect {
    /// Left edge.
    pub x: f32,
    /// Top edge (y grows downwards).
    pub y: f32,
    /// Width.
    pub w: f32,
    /// Height.
    pub h: f32,
}

/// Where everything goes: one box per node, one polyline per edge.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// The box of each input node, in input order.
    pub nodes: Vec<Rect>,
    /// One polyline per input edge, in input order (empty for self-loops and invalid edges).
    /// It starts at the bottom-centre of the dependency's box, ends at the top-centre of the
    /// dependent's box and passes through the dummy-node positions of long edges. An edge that
    /// was reversed to break a cycle still runs from dependency to dependent, so it goes upward.
    pub edges: Vec<Vec<(f32, f32)>>,
    /// Width of the bounding box of everything; the layout starts at (0, 0).
    pub width: f32,
    /// Height of the bounding box of everything.
    pub height: f32,
    /// The largest number of layers of any component.
    pub layers: u32,
    /// Edge crossings between adjacent layers in the final order, dummy nodes included: a quality
    /// metric. Long edges over the dummy budget are drawn straight and not counted.
    pub crossings: u64,
}

/// Lays out a dependency graph: dependencies above dependents, components packed into rows.
///
/// Deterministic and single-threaded, with work bounded in proportion to the graph's size
/// (10k nodes take milliseconds to a few hundred milliseconds natively, depending on how long
/// the edges are), so it can run on the browser's main thread.
pub fn layout(input: &LayoutInput) -> Layout {
    let n = input.sizes.len();
    let mut out = Layout {
        nodes: vec![Rect::default(); n],
        edges: vec![Vec::new(); input.edges.len()],
        ..Layout::default()
    };
    if n == 0 {
        return out;
    }
    // A NaN or negative size from a broken measurement must not poison every coordinate.
    let sizes: Vec<(f32, f32)> = input
        .sizes
        .iter()
        .map(|&(w, h)| (clean_size(w), clean_size(h)))
        .collect();
    let group_of = |v: usize| input.groups.get(v).copied().unwrap_or(u32::MAX);
    let (links, edge_link) = dedupe_edges(n, input.edges);

    // Components are numbered by their lowest node so the result never depends on union order.
    let mut uf = UnionFind::<u32>::new(n);
    for &(u, v) in &links {
        uf.union(u, v);
    }
    let mut first_of_unit: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    for (v, &unit) in input.units.iter().enumerate().take(n) {
        if unit != u32::MAX {
            let first = *first_of_unit.entry(unit).or_insert(v as u32);
            uf.union(first, v as u32);
        }
    }
    let labels = uf.into_labeling();
    let mut comp_of_label = vec![u32::MAX; n];
    let mut comp_of = vec![0u32; n];
    let mut local = vec![0u32; n];
    let mut comp_nodes: Vec<Vec<u32>> = Vec::new();
    for v in 0..n {
        let label = labels[v] as usize;
        if comp_of_label[label] == u32::MAX {
            comp_of_label[label] = comp_nodes.len() as u32;
            comp_nodes.push(Vec::new());
        }
        let c = comp_of_label[label];
        comp_of[v] = c;
        local[v] = comp_nodes[c as usize].len() as u32;
        comp_nodes[c as usize].push(v as u32);
    }
    let mut comp_links: Vec<Vec<(u32, u32)>> = vec![Vec::new(); comp_nodes.len()];
    let mut link_local = vec![0u32; links.len()];
    for (li, &(u, v)) in links.iter().enumerate() {
        let c = comp_of[u as usize] as usize;
        link_local[li] = comp_links[c].len() as u32;
        comp_links[c].push((local[u as usize], local[v as usize]));
    }

    let mut prepared: Vec<Option<Prepared>> = Vec::with_capacity(comp_nodes.len());
    let mut isolated: Vec<u32> = Vec::new();
    for (nodes, links) in comp_nodes.iter().zip(&comp_links) {
        if links.is_empty() {
            isolated.extend(nodes);
            prepared.push(None);
            continue;
        }
        let sizes: Vec<(f32, f32)> = nodes.iter().map(|&v| sizes[v as usize]).collect();
        let groups: Vec<u32> = nodes.iter().map(|&v| group_of(v as usize)).collect();
        prepared.push(Some(Prepared::new(sizes, &groups, links)));
    }
    // One budget for the whole graph, so a plan of many small components costs no more than
    // one large component, and either way the browser stays responsive.
    let work: usize = prepared.iter().flatten().map(|p| p.graph.work()).sum();
    let sweeps = (ORDER_WORK_BUDGET / work.max(1)).clamp(MIN_SWEEPS, MAX_SWEEPS);
    let mut scratch = Scratch::default();
    let drawn: Vec<Option<ComponentLayout>> = prepared
        .into_iter()
        .map(|p| p.map(|p| p.finish(sweeps, &mut scratch)))
        .collect();

    // Largest first so the big drawings set the rows and the small ones fill in after them.
    let mut packed: Vec<u32> = (0..drawn.len() as u32)
        .filter(|&c| drawn[c as usize].is_some())
        .collect();
    let area = |c: u32| {
        drawn[c as usize]
            .as_ref()
            .map_or(0.0, |d| d.width * d.height)
    };
    packed.sort_by(|&a, &b| area(b).total_cmp(&area(a)).then(a.cmp(&b)));
    // Isolated nodes of one module end up side by side.
    isolated.sort_by_key(|&v| (group_of(v as usize), v));
    let comp_boxes: Vec<(f32, f32)> = packed
        .iter()
        .filter_map(|&c| drawn[c as usize].as_ref().map(|d| (d.width, d.height)))
        .collect();
    let iso_boxes: Vec<(f32, f32)> = isolated.iter().map(|&v| sizes[v as usize]).collect();
    let (comp_origins, iso_origins) = pack(&comp_boxes, &iso_boxes);

    let mut origin_of = vec![(0.0f32, 0.0f32); drawn.len()];
    for (&c, &o) in packed.iter().zip(&comp_origins) {
        origin_of[c as usize] = o;
    }
    for (c, d) in drawn.iter().enumerate() {
        let Some(d) = d else { continue };
        let (ox, oy) = origin_of[c];
        for (&v, r) in comp_nodes[c].iter().zip(&d.rects) {
            out.nodes[v as usize] = Rect {
                x: r.x + ox,
                y: r.y + oy,
                ..*r
            };
        }
        out.layers = out.layers.max(d.layers);
        out.crossings += d.crossings;
    }
    if !isolated.is_empty() {
        out.layers = out.layers.max(1);
    }
    for (&v, &(x, y)) in isolated.iter().zip(&iso_origins) {
        let (w, h) = sizes[v as usize];
        out.nodes[v as usize] = Rect { x, y, w, h };
    }

    for (k, &li) in edge_link.iter().enumerate() {
        if li == NO_LINK {
            continue;
        }
        let (u, v) = links[li as usize];
        let c = comp_of[u as usize] as usize;
        let Some(d) = &drawn[c] else { continue };
        let (ox, oy) = origin_of[c];
        let (dag, reversed) = d.link_dag[link_local[li as usize] as usize];
        let from = out.nodes[u as usize];
        let to = out.nodes[v as usize];
        let (from_bend, bend_count) = d.bend_spans[dag as usize];
        let bends = &d.bends[from_bend as usize..(from_bend + bend_count) as usize];
        let mut line = Vec::with_capacity(bends.len() + 2);
        line.push((from.x + from.w / 2.0, from.y + from.h));
        // Bends are stored top to bottom; a reversed edge climbs from its dependency below.
        if reversed {
            line.extend(bends.iter().rev().map(|&(x, y)| (x + ox, y + oy)));
        } else {
            line.extend(bends.iter().map(|&(x, y)| (x + ox, y + oy)));
        }
        line.push((to.x + to.w / 2.0, to.y));
        out.edges[k] = line;
    }

    let mut width = 0.0f32;
    let mut height = 0.0f32;
    for r in &out.nodes {
        width = width.max(r.x + r.w);
        height = height.max(r.y + r.h);
    }
    for &(x, y) in out.edges.iter().flatten() {
        width = width.max(x);
        height = height.max(y);
    }
    out.width = width;
    out.height = height;
    out
}

/// Marks an input edge that takes no part in the layout (self-loop or unknown node).
const NO_LINK: u32 = u32::MAX;

/// Finite and non-negative, or zero.
fn clean_size(v: f32) -> f32 {
    if v.is_finite() { v.max(0.0) } else { 0.0 }
}

/// The distinct directed edges without self-loops ("links"), sorted, and for each input edge the
/// link it became (or [`NO_LINK`]), so duplicates share one route.
fn dedupe_edges(n: usize, edges: &[(u32, u32)]) -> (Vec<(u32, u32)>, Vec<u32>) {
    let mut keyed: Vec<(u32, u32, u32)> = edges
        .iter()
        .enumerate()
        .filter(|&(_, &(u, v))| u != v && (u as usize) < n && (v as usize) < n)
        .map(|(k, &(u, v))| (u, v, k as u32))
        .collect();
    keyed.sort_unstable();
    let mut links: Vec<(u32, u32)> = Vec::new();
    let mut edge_link = vec![NO_LINK; edges.len()];
    for &(u, v, k) in &keyed {
        if links.last() != Some(&(u, v)) {
            links.push((u, v));
        }
        edge_link[k as usize] = links.len() as u32 - 1;
    }
    (links, edge_link)
}

/// Packs component boxes (largest first) into rows, then the isolated nodes in rows below them,
/// choosing the row width whose result comes closest to [`TARGET_ASPECT`]. Returns top-left
/// corners in the order given.
fn pack(comps: &[(f32, f32)], isolated: &[(f32, f32)]) -> Origins {
    let gap = COMPONENT_GAP;
    let area: f32 = comps
        .iter()
        .chain(isolated)
        .map(|&(w, h)| (w + gap) * (h + gap))
        .sum();
    let widest = comps
        .iter()
        .chain(isolated)
        .map(|&(w, _)| w)
        .fold(0.0f32, f32::max);
    let ideal = (area * TARGET_ASPECT).sqrt();
    // Shelf packing wastes space at row ends, so the ideal width is only a first guess: trying
    // a spread of widths is cheap (linear in the number of boxes) and finds a much closer fit.
    let mut best: Option<(f32, f32)> = None;
    for step in 0..=16 {
        let row_width = (ideal * (0.5 + step as f32 * 0.1)).max(widest);
        let (w, h) = shelf_pack(comps, isolated, row_width, None);
        let miss = ((w.max(1.0) / h.max(1.0)) / TARGET_ASPECT).ln().abs();
        if best.is_none_or(|(best_miss, _)| miss < best_miss) {
            best = Some((miss, row_width));
        }
    }
    let row_width = best.map_or(widest, |(_, w)| w);
    let mut origins = (Vec::new(), Vec::new());
    shelf_pack(comps, isolated, row_width, Some(&mut origins));
    origins
}

/// Output of [`shelf_pack`]: top-left corners of the components and of the isolated nodes.
type Origins = (Vec<(f32, f32)>, Vec<(f32, f32)>);

/// Places boxes left to right in rows no wider than `row_width`; returns the size used.
fn shelf_pack(
    comps: &[(f32, f32)],
    isolated: &[(f32, f32)],
    row_width: f32,
    mut origins: Option<&mut Origins>,
) -> (f32, f32) {
    let gap = COMPONENT_GAP;
    let mut used_w = 0.0f32;
    let mut top = 0.0f32;
    for (part, boxes) in [comps, isolated].into_iter().enumerate() {
        if boxes.is_empty() {
            continue;
        }
        let (mut x, mut row_h) = (0.0f32, 0.0f32);
        for &(w, h) in boxes {
            if x > 0.0 && x + w > row_width {
                top += row_h + gap;
                x = 0.0;
                row_h = 0.0;
            }
            if let Some(o) = origins.as_deref_mut() {
                let list = if part == 0 { &mut o.0 } else { &mut o.1 };
                list.push((x, top));
            }
            used_w = used_w.max(x + w);
            row_h = row_h.max(h);
            x += w + gap;
        }
        // The isolated grid starts on a fresh row below the components.
        top += row_h + gap;
    }
    (used_w, (top - gap).max(0.0))
}

/// One component drawn with its top-left corner at (0, 0).
struct ComponentLayout {
    /// Box of each node of the component, in component order.
    rects: Vec<Rect>,
    /// Bend points of all acyclic edges, each edge's top to bottom.
    bends: Vec<(f32, f32)>,
    /// Per acyclic edge: where its bends start in `bends`, and how many (none for edges
    /// spanning one layer).
    bend_spans: Vec<(u32, u32)>,
    /// For each link of the component: its acyclic edge and whether that edge points the other way.
    link_dag: Vec<(u32, bool)>,
    width: f32,
    height: f32,
    layers: u32,
    crossings: u64,
}

/// A component made acyclic, layered and split into unit-length edges, ready to be ordered.
struct Prepared {
    /// Box size of each node, in component order.
    sizes: Vec<(f32, f32)>,
    /// For each link of the component: its acyclic edge and whether that edge points the other way.
    link_dag: Vec<(u32, bool)>,
    graph: Layered,
}

impl Prepared {
    /// Prepares one weakly connected component whose links are local node indices.
    fn new(sizes: Vec<(f32, f32)>, groups: &[u32], links: &[(u32, u32)]) -> Self {
        let n = sizes.len();
        let reversed = break_cycles(n, links);
        // A cycle u→v→u becomes two copies of one edge once reversed; draw it once.
        let mut oriented: Vec<(u32, u32, u32)> = links
            .iter()
            .zip(&reversed)
            .enumerate()
            .map(|(li, (&(u, v), &r))| {
                if r {
                    (v, u, li as u32)
                } else {
                    (u, v, li as u32)
                }
            })
            .collect();
        oriented.sort_unstable();
        let mut dag: Vec<(u32, u32)> = Vec::new();
        let mut link_dag = vec![(0u32, false); links.len()];
        for &(u, v, li) in &oriented {
            if dag.last() != Some(&(u, v)) {
                dag.push((u, v));
            }
            link_dag[li as usize] = (dag.len() as u32 - 1, reversed[li as usize]);
        }

        let layer_of = assign_layers(n, &dag);
        let graph = Layered::build(&sizes, groups, &layer_of, &dag);
        Prepared {
            sizes,
            link_dag,
            graph,
        }
    }

    /// Orders, places and routes the component, with its top-left corner at (0, 0).
    fn finish(self, sweeps: usize, s: &mut Scratch) -> ComponentLayout {
        let Prepared {
            sizes,
            link_dag,
            graph,
        } = self;
        let layer_of = &graph.layer_of;
        let (order, crossings) = order_layers(&graph, sweeps, s);
        let x = assign_x(&graph, &order, &mut s.pools);

        // Each layer is as tall as its tallest box; boxes are centred in it so edges leave and
        // enter at similar heights.
        let mut layer_h = vec![0.0f32; graph.layer_count];
        for (v, &(_, h)) in sizes.iter().enumerate() {
            let l = layer_of[v] as usize;
            layer_h[l] = layer_h[l].max(h);
        }
        let mut layer_top = Vec::with_capacity(graph.layer_count);
        let mut y = 0.0f32;
        for &h in &layer_h {
            layer_top.push(y);
            y += h + LAYER_GAP;
        }
        let height = (y - LAYER_GAP).max(0.0);

        let rects: Vec<Rect> = sizes
            .iter()
            .enumerate()
            .map(|(v, &(w, h))| {
                let l = layer_of[v] as usize;
                Rect {
                    x: (x[v] - f64::from(w) / 2.0) as f32,
                    y: layer_top[l] + (layer_h[l] - h) / 2.0,
                    w,
                    h,
                }
            })
            .collect();
        // A long edge runs vertically through each layer it crosses, in the slot its dummy holds.
        let mut bends = Vec::new();
        let mut bend_spans = Vec::with_capacity(graph.chains.len());
        for &(first, count) in &graph.chains {
            let from = bends.len();
            for d in first..first + count {
                let l = graph.layer_of[d as usize] as usize;
                let dx = x[d as usize] as f32;
                bends.push((dx, layer_top[l]));
                if layer_h[l] > 0.0 {
                    bends.push((dx, layer_top[l] + layer_h[l]));
                }
            }
            bend_spans.push((from as u32, (bends.len() - from) as u32));
        }
        let width = (0..graph.layer_of.len())
            .map(|v| (x[v] + graph.width[v] / 2.0) as f32)
            .fold(0.0f32, f32::max);

        ComponentLayout {
            rects,
            bends,
            bend_spans,
            link_dag,
            width,
            height,
            layers: graph.layer_count as u32,
            crossings,
        }
    }
}

/// Compressed adjacency lists: the neighbours of `v` are `adj[start[v]..start[v + 1]]`.
struct Csr {
    start: Vec<u32>,
    adj: Vec<u32>,
}

impl Csr {
    /// Builds the lists from (from, to) pairs; each list keeps the pairs' order.
    fn new(n: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Self {
        let mut start = vec![0u32; n + 1];
        for (from, _) in pairs.clone() {
            start[from as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut adj = vec![0u32; start[n] as usize];
        for (from, to) in pairs {
            adj[fill[from as usize] as usize] = to;
            fill[from as usize] += 1;
        }
        Csr { start, adj }
    }

    fn of(&self, v: u32) -> &[u32] {
        &self.adj[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }
}

/// Which links to reverse so the graph becomes acyclic: the back edges of an iterative DFS
/// (recursion would overflow the small wasm stack on long chains). Starting from the sources
/// keeps the natural dependency direction for most edges.
fn break_cycles(n: usize, links: &[(u32, u32)]) -> Vec<bool> {
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let out = Csr::new(
        n,
        links.iter().enumerate().map(|(li, &(u, _))| (u, li as u32)),
    );
    let mut indegree = vec![0u32; n];
    for &(_, v) in links {
        indegree[v as usize] += 1;
    }
    let roots = (0..n as u32)
        .filter(|&v| indegree[v as usize] == 0)
        .chain(0..n as u32);
    let mut reversed = vec![false; links.len()];
    let mut state = vec![NEW; n];
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for root in roots {
        if state[root as usize] != NEW {
            continue;
        }
        state[root as usize] = OPEN;
        stack.push((root, out.start[root as usize]));
        while let Some(top) = stack.last_mut() {
            let (v, cursor) = *top;
            if cursor == out.start[v as usize + 1] {
                state[v as usize] = DONE;
                stack.pop();
                continue;
            }
            top.1 += 1;
            let li = out.adj[cursor as usize];
            let w = links[li as usize].1;
            match state[w as usize] {
                NEW => {
                    state[w as usize] = OPEN;
                    stack.push((w, out.start[w as usize]));
                }
                OPEN => reversed[li as usize] = true,
                _ => {}
            }
        }
    }
    reversed
}

/// Layer of each node of an acyclic graph: longest path from the sources, then every node with
/// more dependents than dependencies moved down next to its highest dependent, which shortens
/// its edges (and saves dummy nodes) without lengthening any other.
fn assign_layers(n: usize, dag: &[(u32, u32)]) -> Vec<u32> {
    let out = Csr::new(n, dag.iter().copied());
    let mut indegree = vec![0u32; n];
    for &(_, v) in dag {
        indegree[v as usize] += 1;
    }
    let mut remaining = indegree.clone();
    let mut topo: Vec<u32> = (0..n as u32)
        .filter(|&v| indegree[v as usize] == 0)
        .collect();
    let mut layer = vec![0u32; n];
    let mut next = 0;
    while next < topo.len() {
        let v = topo[next];
        next += 1;
        for &w in out.of(v) {
            layer[w as usize] = layer[w as usize].max(layer[v as usize] + 1);
            remaining[w as usize] -= 1;
            if remaining[w as usize] == 0 {
                topo.push(w);
            }
        }
    }
    debug_assert_eq!(topo.len(), n, "the graph handed to layering has a cycle");
    // Dependents are final before their dependencies are looked at.
    for &v in topo.iter().rev() {
        let succ = out.of(v);
        if succ.len() > indegree[v as usize] as usize {
            let highest = succ.iter().map(|&w| layer[w as usize]).min();
            if let Some(highest) = highest {
                layer[v as usize] = layer[v as usize].max(highest - 1);
            }
        }
    }
    let min = layer.iter().copied().min().unwrap_or(0);
    for l in &mut layer {
        *l -= min;
    }
    layer
}

/// The "proper" layered graph: real nodes first, then one dummy node per layer a long edge
/// crosses, with edges only between adjacent layers.
struct Layered {
    /// Number of real nodes; ids from here on are dummies.
    real: usize,
    layer_count: usize,
    layer_of: Vec<u32>,
    /// Box width of each node (dummies are narrow).
    width: Vec<f64>,
    /// Block each node is kept contiguous with: the dense group id (< `group_count`) for real
    /// nodes and for dummies of edges inside one group, a unique id for the other dummies.
    block: Vec<u32>,
    group_count: usize,
    /// Neighbours in the layer above.
    up: Csr,
    /// Neighbours in the layer below.
    down: Csr,
    /// Per acyclic edge: first dummy id and number of dummies (ids are consecutive, top down).
    chains: Vec<(u32, u32)>,
}

impl Layered {
    fn build(sizes: &[(f32, f32)], groups: &[u32], layer_of: &[u32], dag: &[(u32, u32)]) -> Self {
        let real = sizes.len();
        let mut dense: Vec<u32> = groups.to_vec();
        dense.sort_unstable();
        dense.dedup();
        let group_count = dense.len();
        let group_id = |v: u32| dense.partition_point(|&g| g < groups[v as usize]) as u32;

        let span = |&(u, v): &(u32, u32)| (layer_of[v as usize] - layer_of[u as usize]) as usize;
        let needed: usize = dag.iter().map(|e| span(e) - 1).sum();
        let budget = DUMMIES_PER_ELEMENT * (real + dag.len());
        // Over budget, the shortest edges get their dummies first: they are the ones a reader
        // follows, and each costs little.
        let mut routed = vec![true; dag.len()];
        if needed > budget {
            let mut by_span: Vec<u32> = (0..dag.len() as u32).collect();
            by_span.sort_by_key(|&e| (span(&dag[e as usize]), e));
            let mut spent = 0;
            for e in by_span {
                let cost = span(&dag[e as usize]) - 1;
                if spent + cost > budget {
                    routed[e as usize] = false;
                } else {
                    spent += cost;
                }
            }
        }

        let layer_count = layer_of.iter().copied().max().map_or(0, |m| m as usize + 1);
        let mut all_layers = layer_of.to_vec();
        let mut width: Vec<f64> = sizes.iter().map(|&(w, _)| f64::from(w)).collect();
        let mut block: Vec<u32> = (0..real as u32).map(group_id).collect();
        let mut chains = vec![(0u32, 0u32); dag.len()];
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(dag.len());
        for (e, &(u, v)) in dag.iter().enumerate() {
            if !routed[e] {
                continue;
            }
            let count = span(&(u, v)) as u32 - 1;
            let first = all_layers.len() as u32;
            chains[e] = (first, count);
            // A long edge inside one module is routed inside the module's box.
            let edge_block = if groups[u as usize] == groups[v as usize] {
                group_id(u)
            } else {
                u32::MAX
            };
            let mut prev = u;
            for i in 0..count {
                let d = first + i;
                all_layers.push(layer_of[u as usize] + 1 + i);
                width.push(DUMMY_WIDTH);
                block.push(if edge_block == u32::MAX {
                    (group_count + d as usize) as u32
                } else {
                    edge_block
                });
                pairs.push((prev, d));
                prev = d;
            }
            pairs.push((prev, v));
        }
        let total = all_layers.len();
        Layered {
            real,
            layer_count,
            layer_of: all_layers,
            width,
            block,
            group_count,
            up: Csr::new(total, pairs.iter().map(|&(a, b)| (b, a))),
            down: Csr::new(total, pairs.iter().copied()),
            chains,
        }
    }

    /// Node plus edge count: what one sweep or pass costs.
    fn work(&self) -> usize {
        self.layer_of.len() + self.down.adj.len()
    }

    fn is_dummy(&self, v: u32) -> bool {
        v as usize >= self.real
    }

    /// Minimum distance between the centres of two nodes next to each other in a layer.
    fn separation(&self, a: u32, b: u32) -> f64 {
        let gap = if self.is_dummy(a) || self.is_dummy(b) {
            DUMMY_GAP
        } else if self.block[a as usize] != self.block[b as usize] {
            GROUP_GAP
        } else {
            NODE_GAP
        };
        (self.width[a as usize] + self.width[b as usize]) / 2.0 + gap
    }

    /// How hard an edge pulls its ends into line (see [`DUMMY_EDGE_WEIGHT`]).
    fn edge_weight(&self, a: u32, b: u32) -> f64 {
        match (self.is_dummy(a), self.is_dummy(b)) {
            (false, false) => REAL_EDGE_WEIGHT,
            (true, true) => DUMMY_EDGE_WEIGHT,
            _ => MIXED_EDGE_WEIGHT,
        }
    }
}

/// Buffers reused across layers and components, so ordering allocates next to nothing.
#[derive(Default)]
struct Scratch {
    /// Position of each node within its layer.
    pos: Vec<u32>,
    /// Sort keys of [`reorder`]: block key, block, own wish, current position.
    keys: Vec<u128>,
    /// Where each node of a layer would like to be: see [`reorder`].
    wish: Vec<f32>,
    /// Positions of one node's neighbours, to find their median.
    nearby: Vec<u32>,
    group_sum: Vec<f32>,
    group_count: Vec<u32>,
    previous: Vec<u32>,
    south: Vec<u32>,
    tree: Vec<u32>,
    /// Sorted neighbour positions of each slot of a layer, for [`transpose`].
    neighbour_pos: Vec<u32>,
    /// Per slot: where its neighbours above, then below, start in `neighbour_pos`, and the end.
    spans: Vec<(u32, u32, u32)>,
    pools: Vec<Pool>,
}

/// The nodes of every layer, left to right, stored back to back.
#[derive(Clone)]
struct Order {
    nodes: Vec<u32>,
    /// Layer `l` is `nodes[start[l]..start[l + 1]]`.
    start: Vec<usize>,
}

impl Order {
    fn count(&self) -> usize {
        self.start.len() - 1
    }

    fn layer(&self, l: usize) -> &[u32] {
        &self.nodes[self.start[l]..self.start[l + 1]]
    }

    fn layer_mut(&mut self, l: usize) -> &mut [u32] {
        &mut self.nodes[self.start[l]..self.start[l + 1]]
    }

    fn layers(&self) -> impl DoubleEndedIterator<Item = &[u32]> {
        (0..self.count()).map(|l| self.layer(l))
    }
}

/// Orders the nodes of each layer to reduce crossings: median sweeps, alternately downward
/// and upward, keeping the best order seen, then adjacent swaps on that. Returns the order and
/// its crossings.
fn order_layers(g: &Layered, sweeps: usize, s: &mut Scratch) -> (Order, u64) {
    let total = g.layer_of.len();
    let mut start = vec![0usize; g.layer_count + 1];
    for &l in &g.layer_of {
        start[l as usize + 1] += 1;
    }
    for l in 0..g.layer_count {
        start[l + 1] += start[l];
    }
    let mut fill = start.clone();
    let mut nodes = vec![0u32; total];
    for (v, &l) in g.layer_of.iter().enumerate() {
        nodes[fill[l as usize]] = v as u32;
        fill[l as usize] += 1;
    }
    let mut order = Order { nodes, start };
    // Every order tried keeps blocks contiguous, the starting one included.
    for l in 0..order.count() {
        order
            .layer_mut(l)
            .sort_unstable_by_key(|&v| (g.block[v as usize], v));
    }
    s.pos.clear();
    s.pos.resize(total, 0);
    set_positions(&order, &mut s.pos);
    // Entries are zero between uses (reorder resets what it touched).
    if s.group_sum.len() < g.group_count {
        s.group_sum.resize(g.group_count, 0.0);
        s.group_count.resize(g.group_count, 0);
    }

    let mut best = count_crossings(g, &order, s);
    let mut best_order = order.clone();
    let mut stale = 0;
    for sweep in 0..sweeps {
        if best == 0 {
            break;
        }
        let mut moved = false;
        if sweep % 2 == 0 {
            for l in 1..order.count() {
                let above = order.layer(l - 1).len();
                moved |= reorder(g, order.layer_mut(l), &g.up, above, s);
            }
        } else {
            for l in (0..order.count() - 1).rev() {
                let below = order.layer(l + 1).len();
                moved |= reorder(g, order.layer_mut(l), &g.down, below, s);
            }
        }
        // A sweep that moves nothing after one the other way has reached a fixed point of
        // both directions: every further sweep would move nothing either.
        if !moved && sweep > 0 {
            break;
        }
        let crossings = count_crossings(g, &order, s);
        if crossings < best {
            best = crossings;
            best_order.nodes.copy_from_slice(&order.nodes);
            stale = 0;
        } else {
            stale += 1;
            if stale >= STALE_SWEEPS {
                break;
            }
        }
    }
    if best > 0 {
        set_positions(&best_order, &mut s.pos);
        best -= transpose(g, &mut best_order, s);
    }
    (best_order, best)
}

fn set_positions(order: &Order, pos: &mut [u32]) {
    for layer in order.layers() {
        for (i, &v) in layer.iter().enumerate() {
            pos[v as usize] = i as u32;
        }
    }
}

/// Sorts one layer by the median position of each node's neighbours in the adjacent layer
/// (which leaves fewer crossings than their mean, measured on plans and random graphs), blocks
/// (modules) first by the mean of their members' medians so each block stays contiguous.
/// Returns whether the order changed.
fn reorder(
    g: &Layered,
    layer: &mut [u32],
    neighbours: &Csr,
    adjacent_len: usize,
    s: &mut Scratch,
) -> bool {
    let len = layer.len();
    if len < 2 {
        return false;
    }
    // A node with no neighbour there keeps its relative place, scaled to the other layer.
    let scale = adjacent_len as f32 / len as f32;
    s.wish.clear();
    for (i, &v) in layer.iter().enumerate() {
        let ns = neighbours.of(v);
        let pos = |k: usize| s.pos[ns[k] as usize] as f32;
        let wish = match ns.len() {
            0 => i as f32 * scale,
            1 => pos(0),
            2 => (pos(0) + pos(1)) / 2.0,
            len => {
                s.nearby.clear();
                s.nearby.extend(ns.iter().map(|&u| s.pos[u as usize]));
                let (lower, &mut upper, _) = s.nearby.select_nth_unstable(len / 2);
                if len % 2 == 1 {
                    upper as f32
                } else {
                    let lower = lower.iter().copied().max().unwrap_or(upper);
                    (lower as f32 + upper as f32) / 2.0
                }
            }
        };
        s.wish.push(wish);
        let b = g.block[v as usize] as usize;
        if b < g.group_count {
            s.group_sum[b] += wish;
            s.group_count[b] += 1;
        }
    }
    // One integer per node sorts several times faster than a tuple of floats, and the current
    // position as the last part makes the order deterministic.
    s.keys.clear();
    for (i, &v) in layer.iter().enumerate() {
        let b = g.block[v as usize];
        let block_key = if (b as usize) < g.group_count {
            s.group_sum[b as usize] / s.group_count[b as usize] as f32
        } else {
            s.wish[i]
        };
        s.keys.push(
            u128::from(sortable(block_key)) << 96
                | u128::from(b) << 64
                | u128::from(sortable(s.wish[i])) << 32
                | i as u128,
        );
    }
    for &v in layer.iter() {
        let b = g.block[v as usize] as usize;
        if b < g.group_count {
            s.group_sum[b] = 0.0;
            s.group_count[b] = 0;
        }
    }
    // Once the sweeps settle most layers are already in order.
    if s.keys.is_sorted() {
        return false;
    }
    s.keys.sort_unstable();
    s.previous.clear();
    s.previous.extend_from_slice(layer);
    for (i, &key) in s.keys.iter().enumerate() {
        let v = s.previous[key as u32 as usize];
        layer[i] = v;
        s.pos[v as usize] = i as u32;
    }
    true
}

/// The bits of a float as an integer that sorts like [`f32::total_cmp`].
fn sortable(f: f32) -> u32 {
    let bits = f.to_bits();
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    }
}

/// Swaps neighbours in a layer while that removes crossings (Gansner et al.'s "transpose"):
/// medians place nodes well on average but leave local knots, which this unties. A swap
/// never splits a block: both nodes are of one block, or each is alone in its block there.
/// Returns the crossings removed.
fn transpose(g: &Layered, order: &mut Order, s: &mut Scratch) -> u64 {
    let mut removed = 0;
    for _ in 0..TRANSPOSE_ROUNDS {
        let before = removed;
        for l in 0..order.count() {
            let layer = order.layer_mut(l);
            if layer.len() < 2 {
                continue;
            }
            // Neighbours live in other layers, so their positions hold while this one changes.
            s.neighbour_pos.clear();
            s.spans.clear();
            for &v in layer.iter() {
                let above = s.neighbour_pos.len();
                let pos = &s.pos;
                s.neighbour_pos
                    .extend(g.up.of(v).iter().map(|&u| pos[u as usize]));
                s.neighbour_pos[above..].sort_unstable();
                let below = s.neighbour_pos.len();
                s.neighbour_pos
                    .extend(g.down.of(v).iter().map(|&u| pos[u as usize]));
                s.neighbour_pos[below..].sort_unstable();
                let end = s.neighbour_pos.len();
                s.spans.push((above as u32, below as u32, end as u32));
            }
            for i in 0..layer.len() - 1 {
                let (v, w) = (layer[i], layer[i + 1]);
                let (bv, bw) = (g.block[v as usize], g.block[w as usize]);
                let alone_v = i == 0 || g.block[layer[i - 1] as usize] != bv;
                let alone_w = i + 2 >= layer.len() || g.block[layer[i + 2] as usize] != bw;
                if bv != bw && !(alone_v && alone_w) {
                    continue;
                }
                let np = &s.neighbour_pos;
                let (a, b) = (s.spans[i], s.spans[i + 1]);
                let (up_v, down_v) = (
                    &np[a.0 as usize..a.1 as usize],
                    &np[a.1 as usize..a.2 as usize],
                );
                let (up_w, down_w) = (
                    &np[b.0 as usize..b.1 as usize],
                    &np[b.1 as usize..b.2 as usize],
                );
                let now = pair_crossings(up_v, up_w) + pair_crossings(down_v, down_w);
                let swapped = pair_crossings(up_w, up_v) + pair_crossings(down_w, down_v);
                if swapped < now {
                    layer.swap(i, i + 1);
                    s.spans.swap(i, i + 1);
                    s.pos[v as usize] = i as u32 + 1;
                    s.pos[w as usize] = i as u32;
                    removed += now - swapped;
                }
            }
        }
        if removed == before {
            break;
        }
    }
    removed
}

/// Crossings among the edges of two nodes side by side, the first on the left, given the sorted
/// positions of their neighbours in one adjacent layer.
fn pair_crossings(left: &[u32], right: &[u32]) -> u64 {
    let mut below = 0;
    let mut crossings = 0;
    for &p in left {
        while below < right.len() && right[below] < p {
            below += 1;
        }
        crossings += below as u64;
    }
    crossings
}

/// Crossings between all pairs of adjacent layers.
fn count_crossings(g: &Layered, order: &Order, s: &mut Scratch) -> u64 {
    (1..order.count())
        .map(|l| count_between(order.layer(l - 1), order.layer(l).len(), &g.down, s))
        .sum()
}

/// Crossings between one layer and the next, with Barth, Jünger and Mutzel's accumulator tree:
/// the edges in lexicographic (upper, lower) order cross exactly as often as the lower ends
/// are out of order, counted in O(E log V).
fn count_between(upper: &[u32], lower_len: usize, down: &Csr, s: &mut Scratch) -> u64 {
    s.south.clear();
    for &u in upper {
        let from = s.south.len();
        let pos = &s.pos;
        s.south.extend(down.of(u).iter().map(|&w| pos[w as usize]));
        if s.south.len() - from > 1 {
            s.south[from..].sort_unstable();
        }
    }
    let leaves = lower_len.next_power_of_two();
    s.tree.clear();
    s.tree.resize(2 * leaves - 1, 0);
    let first_leaf = leaves - 1;
    let mut crossings = 0u64;
    for &p in &s.south {
        let mut i = p as usize + first_leaf;
        s.tree[i] += 1;
        while i > 0 {
            // A left child: every edge already counted in its right sibling ends further right
            // yet started earlier, so it crosses this one.
            if i % 2 == 1 {
                crossings += u64::from(s.tree[i + 1]);
            }
            i = (i - 1) / 2;
            s.tree[i] += 1;
        }
    }
    crossings
}

/// Centre x of every node (dummies included). Layers start packed to the left; then passes
/// downward, upward and downward again move each layer towards its neighbours in the layer
/// just placed, and a last pass looks both ways.
fn assign_x(g: &Layered, order: &Order, pools: &mut Vec<Pool>) -> Vec<f64> {
    let total = g.layer_of.len();
    let mut x = vec![0.0f64; total];
    for layer in order.layers() {
        let mut cur = 0.0;
        for (i, &v) in layer.iter().enumerate() {
            cur = if i == 0 {
                g.width[v as usize] / 2.0
            } else {
                cur + g.separation(layer[i - 1], v)
            };
            x[v as usize] = cur;
        }
    }
    // One-sided passes carry an alignment through every layer in one go (looking both ways
    // would only diffuse it a layer per pass). Ending downward keeps dependents under their
    // dependencies; more passes measured no shorter edges.
    for pass in 0..3 {
        if pass % 2 == 0 {
            for layer in order.layers().skip(1) {
                place_layer(g, layer, &[&g.up], &mut x, pools);
            }
        } else {
            for layer in order.layers().rev().skip(1) {
                place_layer(g, layer, &[&g.down], &mut x, pools);
            }
        }
    }
    for layer in order.layers() {
        place_layer(g, layer, &[&g.up, &g.down], &mut x, pools);
    }
    let left = (0..total)
        .map(|v| x[v] - g.width[v] / 2.0)
        .fold(f64::INFINITY, f64::min);
    if left.is_finite() {
        for v in &mut x {
            *v -= left;
        }
    }
    x
}

/// A run of nodes in [`place_layer`] that ended up packed against each other.
#[derive(Clone, Copy)]
struct Pool {
    weight: f64,
    weighted_sum: f64,
    len: usize,
}

/// Places one layer, keeping its order and minimum gaps, where the weighted squared horizontal
/// length of its edges to the given neighbours is smallest. Subtracting each node's minimum
/// offset from the left turns the gap constraints into "non-decreasing", so this is isotonic
/// regression, solved exactly in linear time by pooling adjacent violators.
fn place_layer(g: &Layered, layer: &[u32], sides: &[&Csr], x: &mut [f64], pools: &mut Vec<Pool>) {
    pools.clear();
    let mut offset = 0.0;
    for (i, &v) in layer.iter().enumerate() {
        if i > 0 {
            offset += g.separation(layer[i - 1], v);
        }
        let (mut weight, mut sum) = (0.0, 0.0);
        for side in sides {
            for &u in side.of(v) {
                let w = g.edge_weight(v, u);
                weight += w;
                sum += w * x[u as usize];
            }
        }
        let (weight, target) = if weight > 0.0 {
            (weight, sum / weight)
        } else {
            (IDLE_WEIGHT, x[v as usize])
        };
        let mut pool = Pool {
            weight,
            weighted_sum: weight * (target - offset),
            len: 1,
        };
        while let Some(last) = pools.last() {
            if last.weighted_sum / last.weight < pool.weighted_sum / pool.weight {
                break;
            }
            pool.weight += last.weight;
            pool.weighted_sum += last.weighted_sum;
            pool.len += last.len;
            pools.pop();
        }
        pools.push(pool);
    }
    let mut i = 0;
    let mut offset = 0.0;
    for pool in pools.iter() {
        let base = pool.weighted_sum / pool.weight;
        for _ in 0..pool.len {
            let v = layer[i];
            if i > 0 {
                offset += g.separation(layer[i - 1], v);
            }
            x[v as usize] = base + offset;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(sizes: &[(f32, f32)], edges: &[(u32, u32)], groups: &[u32]) -> Layout {
        layout(&LayoutInput {
            sizes,
            edges,
            groups,
            units: &[],
        })
    }

    fn boxes(n: usize) -> Vec<(f32, f32)> {
        vec![(120.0, 40.0); n]
    }

    /// Every pair of boxes that share a horizontal band is checked (a sweep down the page, so
    /// it stays quick on 10k nodes).
    fn assert_no_overlap(l: &Layout) {
        let mut by_top: Vec<usize> = (0..l.nodes.len()).collect();
        by_top.sort_by(|&a, &b| l.nodes[a].y.total_cmp(&l.nodes[b].y));
        for (k, &i) in by_top.iter().enumerate() {
            let a = l.nodes[i];
            for &j in &by_top[k + 1..] {
                let b = l.nodes[j];
                if b.y >= a.y + a.h - 1e-3 {
                    break;
                }
                let apart = a.x + a.w <= b.x + 1e-3 || b.x + b.w <= a.x + 1e-3;
                assert!(apart, "nodes {i} {a:?} and {j} {b:?} overlap");
            }
        }
    }

    /// Nodes of one group form one run in every row of boxes.
    fn assert_groups_contiguous(l: &Layout, groups: &[u32]) {
        let mut order: Vec<usize> = (0..l.nodes.len()).collect();
        order.sort_by(|&a, &b| {
            (l.nodes[a].y, l.nodes[a].x)
                .partial_cmp(&(l.nodes[b].y, l.nodes[b].x))
                .unwrap()
        });
        let mut seen = std::collections::HashSet::new();
        for (k, &v) in order.iter().enumerate() {
            let new_row = k == 0 || l.nodes[order[k - 1]].y != l.nodes[v].y;
            if new_row {
                seen.clear();
            } else if groups[order[k - 1]] == groups[v] {
                continue;
            }
            assert!(
                seen.insert(groups[v]),
                "group {} split in row at y={}",
                groups[v],
                l.nodes[v].y
            );
        }
    }

    fn assert_in_bounds(l: &Layout) {
        for r in &l.nodes {
            assert!(r.x >= -1e-3 && r.y >= -1e-3, "{r:?} starts before 0,0");
            assert!(r.x + r.w <= l.width + 1e-3 && r.y + r.h <= l.height + 1e-3);
        }
    }

    #[test]
    fn a_chain_reads_top_down() {
        let l = run(&boxes(3), &[(0, 1), (1, 2)], &[0; 3]);
        assert!(l.nodes[0].y < l.nodes[1].y && l.nodes[1].y < l.nodes[2].y);
        assert_eq!(l.layers, 3);
        assert_eq!(l.edges[0].first(), Some(&(60.0, 40.0)));
        assert_no_overlap(&l);
        assert_in_bounds(&l);
    }

    #[test]
    fn a_diamond_has_no_crossings() {
        let l = run(&boxes(4), &[(0, 1), (0, 2), (1, 3), (2, 3)], &[0; 4]);
        assert_eq!(l.crossings, 0);
        assert_eq!(l.layers, 3);
        assert_no_overlap(&l);
    }

    #[test]
    fn a_cycle_lays_out_with_distinct_boxes() {
        let l = run(&boxes(3), &[(0, 1), (1, 2), (2, 0)], &[0; 3]);
        assert_eq!(l.nodes.len(), 3);
        assert_eq!(l.edges.iter().filter(|e| e.len() >= 2).count(), 3);
        for i in 0..3 {
            for j in i + 1..3 {
                assert_ne!(l.nodes[i], l.nodes[j]);
            }
        }
        assert_no_overlap(&l);
    }

    #[test]
    fn a_reversed_edge_still_runs_from_dependency_to_dependent() {
        // d→a closes the cycle and spans three layers once reversed: it must climb from d.
        let edges = [(0, 1), (1, 0), (1, 2), (2, 3), (3, 0)];
        let l = run(&boxes(4), &edges, &[0; 4]);
        for (line, &(u, v)) in l.edges.iter().zip(&edges) {
            let (from, to) = (l.nodes[u as usize], l.nodes[v as usize]);
            assert_eq!(
                line.first(),
                Some(&(from.x + from.w / 2.0, from.y + from.h))
            );
            assert_eq!(line.last(), Some(&(to.x + to.w / 2.0, to.y)));
        }
        let climb = &l.edges[4];
        assert!(climb.len() >= 4, "{climb:?}");
        let bends = &climb[1..climb.len() - 1];
        assert!(
            bends.windows(2).all(|p| p[0].1 >= p[1].1),
            "goes upward: {climb:?}"
        );
        assert_no_overlap(&l);
    }

    #[test]
    fn every_edge_of_an_acyclic_graph_points_down() {
        let mut seed = 7u32;
        let mut next = move |m: u32| {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) % m
        };
        let edges: Vec<(u32, u32)> = (1..300u32)
            .flat_map(|v| [(next(v), v), (next(v), v)])
            .collect();
        let groups: Vec<u32> = (0..300).map(|v| v % 5).collect();
        let l = run(&boxes(300), &edges, &groups);
        for &(u, v) in &edges {
            let (a, b) = (l.nodes[u as usize], l.nodes[v as usize]);
            assert!(a.y + a.h < b.y, "{u} {a:?} is not above {v} {b:?}");
        }
        assert_no_overlap(&l);
        assert_in_bounds(&l);
        assert_groups_contiguous(&l, &groups);
    }

    #[test]
    fn a_long_edge_bends_through_the_layers_it_crosses() {
        let l = run(&boxes(4), &[(0, 1), (1, 2), (2, 3), (0, 3)], &[0; 4]);
        let long = &l.edges[3];
        assert!(long.len() >= 4, "{long:?}");
        assert!(
            long.windows(2).all(|p| p[0].1 <= p[1].1),
            "goes downward: {long:?}"
        );
        // The bends sit beside b and c, not through them.
        for &(x, y) in &long[1..long.len() - 1] {
            for r in &l.nodes[1..3] {
                let inside = x > r.x && x < r.x + r.w && y > r.y && y < r.y + r.h;
                assert!(!inside, "bend {x},{y} inside {r:?}");
            }
        }
        assert_no_overlap(&l);
    }

    #[test]
    fn a_crossing_that_can_be_undone_is_undone() {
        // a,b above c,d with a→d, b→c first: in input order the edges cross.
        let l = run(&boxes(4), &[(0, 3), (1, 2)], &[0; 4]);
        assert_eq!(l.crossings, 0);
        // K(2,2) plus a third edge pair that forces a choice.
        let l = run(
            &boxes(6),
            &[(0, 4), (1, 3), (2, 5), (0, 5), (2, 3)],
            &[0; 6],
        );
        assert!(l.crossings <= 1, "{}", l.crossings);
        assert_no_overlap(&l);
    }

    #[test]
    fn a_module_stays_together_within_its_layer() {
        // Root 0 feeds every dependent, root 1 only the odd ones: by position alone the
        // evens come first, and the evens and odds each mix both modules.
        let mut edges: Vec<(u32, u32)> = (2..10).map(|v| (0, v)).collect();
        edges.extend((3..10).step_by(2).map(|v| (1, v)));
        let groups = [0, 1, 7, 8, 8, 7, 7, 8, 8, 7];
        let l = run(&boxes(10), &edges, &groups);
        let mut row: Vec<usize> = (2..10).collect();
        assert!(row.iter().all(|&v| l.nodes[v].y == l.nodes[2].y));
        row.sort_by(|&a, &b| l.nodes[a].x.total_cmp(&l.nodes[b].x));
        let runs = row
            .windows(2)
            .filter(|p| groups[p[0]] != groups[p[1]])
            .count();
        assert_eq!(runs, 1, "groups interleave: {row:?}");
        assert_groups_contiguous(&l, &groups);
        assert_no_overlap(&l);
    }

    #[test]
    fn duplicates_self_loops_and_bad_edges_are_harmless() {
        let l = run(
            &boxes(3),
            &[(0, 1), (0, 1), (1, 1), (1, 9), (1, 2)],
            &[0; 3],
        );
        assert_eq!(l.edges[0], l.edges[1]);
        assert!(l.edges[2].is_empty() && l.edges[3].is_empty());
        assert!(!l.edges[4].is_empty());
        assert_eq!(l.layers, 3);
        assert_no_overlap(&l);
    }

    #[test]
    fn components_and_isolated_nodes_are_packed_apart() {
        let mut edges = Vec::new();
        for c in 0..12u32 {
            edges.extend([
                (4 * c, 4 * c + 1),
                (4 * c, 4 * c + 2),
                (4 * c + 2, 4 * c + 3),
            ]);
        }
        let mut sizes = boxes(48 + 30);
        sizes[50] = (300.0, 90.0);
        let l = run(&sizes, &edges, &[]);
        assert_no_overlap(&l);
        assert_in_bounds(&l);
        let aspect = l.width / l.height;
        assert!(aspect > 0.8 && aspect < 3.2, "aspect {aspect}");
    }

    #[test]
    fn no_input_gives_an_empty_layout() {
        let l = run(&[], &[], &[]);
        assert!(l.nodes.is_empty() && l.width == 0.0 && l.height == 0.0);
    }

    /// Node sizes, edges and groups of a generated graph.
    type Generated = (Vec<(f32, f32)>, Vec<(u32, u32)>, Vec<u32>);

    /// A Terraform-shaped graph: each resource depends on a few recent ones, modules of 25,
    /// a sprinkle of edges pointing back up to make cycles.
    fn big_graph(n: u32) -> Generated {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |m: u32| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) % u64::from(m)) as u32
        };
        let mut edges = Vec::new();
        for v in 1..n {
            edges.push((v - 1 - next(v.min(40)), v));
            for _ in 0..2 {
                edges.push((v - 1 - next(v.min(400)), v));
            }
            if next(50) == 0 {
                edges.push((v, v - 1 - next(v.min(400))));
            }
        }
        let sizes = (0..n)
            .map(|v| (80.0 + (v % 7) as f32 * 20.0, 36.0))
            .collect();
        let groups = (0..n).map(|v| v / 25).collect();
        (sizes, edges, groups)
    }

    #[test]
    fn ten_thousand_nodes_in_one_component_finish() {
        let (sizes, edges, groups) = big_graph(10_000);
        let l = run(&sizes, &edges, &groups);
        assert_eq!(l.nodes.len(), 10_000);
        assert_eq!(l.edges.len(), edges.len());
        assert!(l.edges.iter().all(|e| e.len() >= 2));
        assert!(l.width.is_finite() && l.height.is_finite() && l.layers > 1);
        // Every edge ends where its dependent's box begins.
        for (&(_, v), line) in edges.iter().zip(&l.edges) {
            let r = l.nodes[v as usize];
            assert_eq!(line.last(), Some(&(r.x + r.w / 2.0, r.y)));
        }
        assert_no_overlap(&l);
        assert_in_bounds(&l);
    }

    #[test]
    fn many_small_components_and_loose_nodes_pack_without_overlap() {
        // Plan-shaped: 300 modules of a dozen resources, plus 200 resources with no edges.
        let mut edges = Vec::new();
        for m in 0..300u32 {
            let base = m * 12;
            edges.extend((1..12).map(|i| (base + (i - 1) / 3, base + i)));
        }
        let n = 300 * 12 + 200;
        let sizes: Vec<(f32, f32)> = (0..n)
            .map(|v| (60.0 + (v % 9) as f32 * 15.0, 30.0))
            .collect();
        let groups: Vec<u32> = (0..n).map(|v| v / 12).collect();
        let l = run(&sizes, &edges, &groups);
        assert_no_overlap(&l);
        assert_in_bounds(&l);
        let aspect = l.width / l.height;
        assert!(aspect > 1.0 && aspect < 2.6, "aspect {aspect}");
    }
}
