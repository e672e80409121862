//! Layered (Sugiyama-style) drawing of the dependency graph, cheap enough to run in the browser.
//!
//! Dependencies sit above their dependents, as `terraform graph` reads. Modules are nested boxes,
//! true to the module tree by construction: the contents of each module (its own nodes and the
//! boxes of its child modules) are drawn on their own, and that drawing, framed with a title
//! strip, is one box among the contents of its parent module. So a box holds exactly its module's
//! nodes and its child modules' boxes, and boxes that are not nested never meet. An edge between
//! modules is drawn at the level of the innermost module holding both ends, between the boxes
//! (or nodes) there that hold them; inside each box it passes, it runs from an entry port on the
//! box's top edge or to an exit port on its bottom edge, routed among the box's contents like any
//! other edge.
//!
//! Each level (the top level and every box) is drawn component by component, in five steps:
//! break cycles (reverse DFS back edges), assign layers (longest path, then nodes with more
//! dependents than dependencies pulled down towards them; ports above and below everything),
//! split long edges with dummy nodes, order each layer to reduce crossings (median sweeps, then
//! adjacent swaps), and place the nodes (isotonic regression towards their neighbours). The
//! components are then packed into rows, largest first, with the isolated nodes in rows after
//! them; in a box with ports, beside the component that holds them, so the ports' way out of
//! the box is clear.
//!
//! Work is bounded by budgets, not clocks: the browser has no `std::time`, and a layout must be the
//! same on every run and platform, so there are no threads or random numbers either.

use petgraph::unionfind::UnionFind;

/// Vertical space between two layers, where the edges run.
const LAYER_GAP: f32 = 60.0;
/// Vertical space between a box's port and the layer of contents next to it: the edges there
/// only fan out to (or gather from) the contents.
const PORT_GAP: f32 = 28.0;
/// Horizontal space between two nodes.
const NODE_GAP: f64 = 24.0;
/// Horizontal space beside a module's box, so boxes stand apart from their neighbours.
const BOX_GAP: f64 = 40.0;
/// Horizontal space next to a dummy node: edges may run closer together than boxes.
const DUMMY_GAP: f64 = 12.0;
/// Width reserved for an edge passing through a layer, and for a port.
const DUMMY_WIDTH: f64 = 8.0;
/// Space between packed components and between isolated nodes.
const COMPONENT_GAP: f32 = 48.0;
/// Width : height the packing aims at, that of a typical screen.
const TARGET_ASPECT: f32 = 1.6;

/// Height of the strip at the top of a module's box that holds its title: no node, box or other
/// title is drawn in it.
pub const TITLE_HEIGHT: f32 = 16.0;
/// Space between a box's title strip and its contents: room for what is drawn just outside a
/// node (a finding's flag sticks out 7 px above it, a highlight ring 4 px).
const TITLE_GAP: f32 = 10.0;
/// Space between a box's contents and its left, right and bottom edges.
const BOX_PAD: f32 = 10.0;

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
    /// The module of each node, an index into `modules`. A node past the end of `groups`, or in
    /// a module past the end of `modules`, is drawn at the top level.
    pub groups: &'a [u32],
    /// The module tree, drawn as nested boxes.
    pub modules: &'a [Module],
}

/// One module of the tree that [`layout`] draws as nested boxes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Module {
    /// The module this one is drawn inside. `None` for a module drawn without a box, its nodes
    /// at the top level: the root module. A module whose parent is past the end of the list, or
    /// whose ancestors form a cycle, is drawn at the top level.
    pub parent: Option<u32>,
    /// The narrowest its box may be, so that its title fits.
    pub min_width: f32,
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

/// Where everything goes: one box per node and per drawn module, one polyline per edge.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// The box of each input node, in input order.
    pub nodes: Vec<Rect>,
    /// One polyline per input edge, in input order (empty for self-loops and invalid edges).
    /// It starts at the bottom-centre of the dependency's box, ends at the top-centre of the
    /// dependent's box and passes through the dummy-node positions of long edges and the ports
    /// of the module boxes it leaves and enters. An edge that was reversed to break a cycle
    /// still runs from dependency to dependent, so it goes upward.
    pub edges: Vec<Vec<(f32, f32)>>,
    /// The box of each input module, in input order: `None` for a module drawn without a box or
    /// with no node in it or below it. The top [`TITLE_HEIGHT`] px of a box are its title strip;
    /// below it are the module's own nodes and its child modules' boxes, and nothing else.
    pub modules: Vec<Option<Rect>>,
    /// Width of the bounding box of everything; the layout starts at (0, 0).
    pub width: f32,
    /// Height of the bounding box of everything.
    pub height: f32,
    /// The largest number of layers of any component, in any box.
    pub layers: u32,
    /// Edge crossings between adjacent layers in the final order, dummy nodes included, summed
    /// over every box: a quality metric. Long edges over the dummy budget are drawn straight
    /// and not counted.
    pub crossings: u64,
}

/// Lays out a dependency graph: dependencies above dependents, each module's contents in its own
/// box, components packed into rows.
///
/// Deterministic and single-threaded, with work bounded in proportion to the graph's size
/// (10k nodes take milliseconds to a few hundred milliseconds natively, depending on how long
/// the edges are), so it can run on the browser's main thread.
pub fn layout(input: &LayoutInput) -> Layout {
    let n = input.sizes.len();
    let mut out = Layout {
        nodes: vec![Rect::default(); n],
        edges: vec![Vec::new(); input.edges.len()],
        modules: vec![None; input.modules.len()],
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
    let (mut levels, place) = Level::tree(input);
    let (links, edge_link) = dedupe_edges(n, input.edges);

    // Every link becomes one link per level it passes: out of each box around its dependency,
    // across the innermost level holding both ends, into each box around its dependent.
    let mut hops = Hops::default();
    for &(u, v) in &links {
        lift(&levels, place[u as usize], place[v as usize], &mut hops);
        for hop in &hops.all {
            let level = &mut levels[hop.level as usize];
            let link = (level.end(hop.from), level.end(hop.to));
            level.links.push(link);
        }
    }
    for level in &mut levels {
        level.links.sort_unstable();
        level.links.dedup();
    }

    let mut split: Vec<Split> = levels.iter().map(Split::of).collect();
    // One budget for the whole graph, so a plan of many small components costs no more than
    // one large component, and either way the browser stays responsive.
    let work: usize = split
        .iter()
        .flat_map(|s| &s.comps)
        .map(|c| c.graph.work())
        .sum();
    let sweeps = (ORDER_WORK_BUDGET / work.max(1)).clamp(MIN_SWEEPS, MAX_SWEEPS);

    // Inner boxes first: a box's size is known once its contents are drawn. Boxes are created
    // after the level holding them, so going backwards visits contents before their box.
    let mut scratch = Scratch::default();
    let mut drawn: Vec<Option<Drawn>> = (0..levels.len()).map(|_| None).collect();
    for l in (0..levels.len()).rev() {
        let level = &levels[l];
        let item_sizes: Vec<(f32, f32)> = level
            .items
            .iter()
            .map(|&item| match item {
                Item::Node(v) => sizes[v as usize],
                Item::Box(b) => drawn[b as usize].as_ref().map_or((0.0, 0.0), |d| d.size),
                Item::Port => (DUMMY_WIDTH as f32, 0.0),
            })
            .collect();
        let d = std::mem::take(&mut split[l]).draw(level, item_sizes, sweeps, &mut scratch);
        out.layers = out.layers.max(d.layers);
        out.crossings += d.crossings;
        if let Some(min_width) = level.min_width {
            drawn[l] = Some(d.framed(min_width));
        } else {
            drawn[l] = Some(d);
        }
    }
    let drawn: Vec<Drawn> = drawn
        .into_iter()
        .map(|d| d.expect("the loop above draws every level"))
        .collect();

    // Outer boxes first: a level's contents are placed relative to its box.
    let mut origin = vec![(0.0f32, 0.0f32); levels.len()];
    let mut box_rect = vec![Rect::default(); levels.len()];
    for (l, level) in levels.iter().enumerate() {
        let (ox, oy) = origin[l];
        for (item, r) in level.items.iter().zip(&drawn[l].rects) {
            let abs = Rect {
                x: r.x + ox,
                y: r.y + oy,
                ..*r
            };
            match *item {
                Item::Node(v) => out.nodes[v as usize] = abs,
                Item::Box(b) => {
                    let (cx, cy) = drawn[b as usize].content_at;
                    origin[b as usize] = (abs.x + cx, abs.y + cy);
                    box_rect[b as usize] = abs;
                    if let Some(slot) = out.modules.get_mut(levels[b as usize].module as usize) {
                        *slot = Some(abs);
                    }
                }
                Item::Port => {}
            }
        }
    }

    let at = |l: u32, (x, y): (f32, f32)| (x + origin[l as usize].0, y + origin[l as usize].1);
    for (k, &li) in edge_link.iter().enumerate() {
        if li == NO_LINK {
            continue;
        }
        let (u, v) = links[li as usize];
        lift(&levels, place[u as usize], place[v as usize], &mut hops);
        let (from, to) = (out.nodes[u as usize], out.nodes[v as usize]);
        let mut line = vec![(from.x + from.w / 2.0, from.y + from.h)];
        for hop in &hops.all {
            let level = &levels[hop.level as usize];
            let d = &drawn[hop.level as usize];
            // Every end was given its item when the links were lifted above.
            let (Some(a), Some(b)) = (level.item(hop.from), level.item(hop.to)) else {
                continue;
            };
            let port = |item: u32| {
                let r = d.rects[item as usize];
                at(hop.level, (r.x + r.w / 2.0, r.y))
            };
            if hop.from == End::In {
                // Into the box through the top edge, down to the port.
                let (x, y) = port(a);
                line.push((x, box_rect[hop.level as usize].y));
                line.push((x, y));
            }
            let Ok(li) = level.links.binary_search(&(a, b)) else {
                continue;
            };
            let (start, count, reversed) = d.routes[li];
            let bends = d.bends[start as usize..(start + count) as usize].iter();
            // Bends are stored top to bottom; a reversed edge climbs from its dependency below.
            if reversed {
                line.extend(bends.rev().map(|&p| at(hop.level, p)));
            } else {
                line.extend(bends.map(|&p| at(hop.level, p)));
            }
            if hop.to == End::Out {
                // Down to the port, out through the bottom edge.
                let (x, y) = port(b);
                let r = box_rect[hop.level as usize];
                line.push((x, y));
                line.push((x, r.y + r.h));
            }
        }
        line.push((to.x + to.w / 2.0, to.y));
        out.edges[k] = line;
    }

    let mut width = 0.0f32;
    let mut height = 0.0f32;
    for r in out.nodes.iter().chain(out.modules.iter().flatten()) {
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

/// One thing drawn among a level's contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    /// An input node.
    Node(u32),
    /// The box of a child module: the index of the level drawn inside it.
    Box(u32),
    /// Where edges enter (above everything) or leave (below everything) the level's box.
    Port,
}

/// An end of a link within one level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// An item of the level.
    Item(u32),
    /// The level's entry port.
    In,
    /// The level's exit port.
    Out,
}

/// One piece of a link: an edge between two ends in one level.
#[derive(Debug, Clone, Copy)]
struct Hop {
    level: u32,
    from: End,
    to: End,
}

/// The top level (level 0) or the inside of one module's box.
struct Level {
    /// Index into the input's modules; `u32::MAX` for the top level.
    module: u32,
    /// The level holding this one's box, and the box's item there; `None` for the top level.
    parent: Option<(u32, u32)>,
    /// Boxes around this one; 0 for the top level.
    depth: u32,
    /// For a box: the narrowest it may be. `None` for the top level.
    min_width: Option<f32>,
    items: Vec<Item>,
    /// The entry and exit ports' items, once an edge needs them.
    ports: [Option<u32>; 2],
    /// Edges between items, sorted and distinct once every link has been lifted.
    links: Vec<(u32, u32)>,
}

impl Level {
    fn new(module: u32, parent: Option<(u32, u32)>, depth: u32, min_width: Option<f32>) -> Self {
        Level {
            module,
            parent,
            depth,
            min_width,
            items: Vec::new(),
            ports: [None; 2],
            links: Vec::new(),
        }
    }

    /// The levels of the module tree, top level first and every box after the level holding it,
    /// and each node's place: its level and its item there. Only modules with a node in them
    /// or below them get a box.
    fn tree(input: &LayoutInput) -> (Vec<Level>, Vec<(u32, u32)>) {
        const UNSET: u32 = u32::MAX;
        let modules = input.modules;
        let mut levels = vec![Level::new(u32::MAX, None, 0, None)];
        let mut level_of = vec![UNSET; modules.len()];
        let mut chain: Vec<u32> = Vec::new();
        let mut place = Vec::with_capacity(input.sizes.len());
        for v in 0..input.sizes.len() as u32 {
            let group = input.groups.get(v as usize).copied().unwrap_or(u32::MAX);
            // Up the tree to a module that has its level already, or to the top; the modules
            // passed on the way get boxes, outermost first.
            chain.clear();
            let mut at = group;
            let mut level = loop {
                let Some(module) = modules.get(at as usize) else {
                    break 0;
                };
                if level_of[at as usize] != UNSET {
                    break level_of[at as usize];
                }
                let Some(parent) = module.parent else {
                    break 0;
                };
                if chain.len() > modules.len() {
                    // The parents form a cycle: drawn at the top level, without boxes.
                    chain.clear();
                    break 0;
                }
                chain.push(at);
                at = parent;
            };
            for &m in chain.iter().rev() {
                let id = levels.len() as u32;
                let holder = &mut levels[level as usize];
                let item = holder.items.len() as u32;
                holder.items.push(Item::Box(id));
                let depth = holder.depth + 1;
                let min_width = clean_size(modules[m as usize].min_width);
                levels.push(Level::new(m, Some((level, item)), depth, Some(min_width)));
                level_of[m as usize] = id;
                level = id;
            }
            let holder = &mut levels[level as usize];
            place.push((level, holder.items.len() as u32));
            holder.items.push(Item::Node(v));
        }
        (levels, place)
    }

    /// The item of an end, if it has one (a port only once an edge needed it).
    fn item(&self, end: End) -> Option<u32> {
        match end {
            End::Item(i) => Some(i),
            End::In => self.ports[0],
            End::Out => self.ports[1],
        }
    }

    /// The item of an end, adding the port the first time it is asked for.
    fn end(&mut self, end: End) -> u32 {
        let slot = match end {
            End::Item(i) => return i,
            End::In => 0,
            End::Out => 1,
        };
        *self.ports[slot].get_or_insert_with(|| {
            self.items.push(Item::Port);
            self.items.len() as u32 - 1
        })
    }
}

/// The hops of a link between two places (level, item), in order from the dependency to the
/// dependent: out of each box around the dependency, across the innermost level holding both,
/// into each box around the dependent.
fn lift(levels: &[Level], from: (u32, u32), to: (u32, u32), hops: &mut Hops) {
    let Hops { all: hops, down } = hops;
    hops.clear();
    down.clear();
    let ((mut lu, mut iu), (mut lv, mut iv)) = (from, to);
    while lu != lv {
        // The deeper side climbs; only the top level has depth 0, so the side that climbs is
        // in a box and has a parent.
        if levels[lu as usize].depth >= levels[lv as usize].depth {
            hops.push(Hop {
                level: lu,
                from: End::Item(iu),
                to: End::Out,
            });
            (lu, iu) = levels[lu as usize].parent.expect("a box has a parent");
        } else {
            down.push(Hop {
                level: lv,
                from: End::In,
                to: End::Item(iv),
            });
            (lv, iv) = levels[lv as usize].parent.expect("a box has a parent");
        }
    }
    hops.push(Hop {
        level: lu,
        from: End::Item(iu),
        to: End::Item(iv),
    });
    hops.extend(down.drain(..).rev());
}

/// The hops of one link, and room for the ones into the dependent's boxes while they are found.
#[derive(Default)]
struct Hops {
    all: Vec<Hop>,
    down: Vec<Hop>,
}

/// A level split into weakly connected components (its two ports always in one), each ready to
/// be ordered, and its items without links.
#[derive(Default)]
struct Split {
    comps: Vec<Prepared>,
    /// The items of each component, in component order.
    comp_items: Vec<Vec<u32>>,
    /// Per level link: its component and its index among the component's links.
    link_at: Vec<(u32, u32)>,
    /// Items with no link.
    alone: Vec<u32>,
    /// The component holding the ports, if the level has any.
    ported: Option<u32>,
}

impl Split {
    fn of(level: &Level) -> Self {
        let n = level.items.len();
        let mut uf = UnionFind::<u32>::new(n);
        for &(u, v) in &level.links {
            uf.union(u, v);
        }
        if let [Some(a), Some(b)] = level.ports {
            uf.union(a, b);
        }
        // Components are numbered by their lowest item, so the result never depends on union
        // order.
        let labels = uf.into_labeling();
        let mut linked = vec![false; n];
        for &(u, v) in &level.links {
            linked[u as usize] = true;
            linked[v as usize] = true;
        }
        let mut comp_of_label = vec![u32::MAX; n];
        let mut comp_of = vec![0u32; n];
        let mut local = vec![0u32; n];
        let mut split = Split::default();
        for v in 0..n {
            if !linked[v] {
                split.alone.push(v as u32);
                continue;
            }
            let label = labels[v] as usize;
            if comp_of_label[label] == u32::MAX {
                comp_of_label[label] = split.comp_items.len() as u32;
                split.comp_items.push(Vec::new());
            }
            let c = comp_of_label[label];
            comp_of[v] = c;
            local[v] = split.comp_items[c as usize].len() as u32;
            split.comp_items[c as usize].push(v as u32);
        }
        let mut comp_links: Vec<Vec<(u32, u32)>> = vec![Vec::new(); split.comp_items.len()];
        for &(u, v) in &level.links {
            let c = comp_of[u as usize] as usize;
            split.link_at.push((c as u32, comp_links[c].len() as u32));
            comp_links[c].push((local[u as usize], local[v as usize]));
        }
        let port = |p: Option<u32>| p.filter(|&p| linked[p as usize]);
        let [in_port, out_port] = level.ports.map(port);
        split.ported = in_port.or(out_port).map(|p| comp_of[p as usize]);
        split.comps = split
            .comp_items
            .iter()
            .zip(&comp_links)
            .enumerate()
            .map(|(c, (items, links))| {
                let ours = |p: Option<u32>| {
                    p.filter(|&p| comp_of[p as usize] == c as u32)
                        .map(|p| local[p as usize])
                };
                let boxed = items
                    .iter()
                    .map(|&i| matches!(level.items[i as usize], Item::Box(_)))
                    .collect();
                Prepared::new(boxed, links, [ours(in_port), ours(out_port)])
            })
            .collect();
        split
    }

    /// Orders, places and packs the level's contents, given each item's size.
    fn draw(self, level: &Level, sizes: Vec<(f32, f32)>, sweeps: usize, s: &mut Scratch) -> Drawn {
        let Split {
            comps,
            comp_items,
            link_at,
            alone,
            ported,
        } = self;
        let drawn: Vec<ComponentLayout> = comps
            .into_iter()
            .zip(&comp_items)
            .map(|(p, items)| {
                let sizes = items.iter().map(|&i| sizes[i as usize]).collect();
                p.finish(sizes, sweeps, s)
            })
            .collect();
        let layers = drawn.iter().map(|d| d.layers).max().unwrap_or(1);
        let crossings = drawn.iter().map(|d| d.crossings).sum();

        // A box without links is packed like a component; plain nodes without links fill a grid
        // after them, side by side in input order.
        let (single_boxes, loose): (Vec<u32>, Vec<u32>) = alone
            .into_iter()
            .partition(|&i| matches!(level.items[i as usize], Item::Box(_)));
        // Largest first so the big drawings set the rows and the small ones fill in after them.
        let mut packed: Vec<Packed> = (0..drawn.len() as u32)
            .filter(|&c| Some(c) != ported)
            .map(Packed::Comp)
            .chain(single_boxes.into_iter().map(Packed::Item))
            .collect();
        let size = |p: &Packed| match *p {
            Packed::Comp(c) => (drawn[c as usize].width, drawn[c as usize].height),
            Packed::Item(i) => sizes[i as usize],
        };
        planlens_model::sort::by(&mut packed, |a, b| {
            let (area_a, area_b) = (size(a).0 * size(a).1, size(b).0 * size(b).1);
            area_b.total_cmp(&area_a).then(a.cmp(b))
        });
        let boxes: Vec<(f32, f32)> = packed.iter().map(size).collect();
        let loose_boxes: Vec<(f32, f32)> = loose.iter().map(|&i| sizes[i as usize]).collect();
        let lead = ported.map(|c| (drawn[c as usize].width, drawn[c as usize].height));
        let (origins, loose_origins) = pack(lead, &boxes, &loose_boxes);

        let mut rects = vec![Rect::default(); sizes.len()];
        let mut comp_origin = vec![(0.0f32, 0.0f32); drawn.len()];
        for (p, &o) in packed.iter().zip(&origins) {
            match *p {
                Packed::Comp(c) => comp_origin[c as usize] = o,
                Packed::Item(i) => {
                    let (w, h) = sizes[i as usize];
                    rects[i as usize] = Rect {
                        x: o.0,
                        y: o.1,
                        w,
                        h,
                    };
                }
            }
        }
        for (&i, &(x, y)) in loose.iter().zip(&loose_origins) {
            let (w, h) = sizes[i as usize];
            rects[i as usize] = Rect { x, y, w, h };
        }
        for (c, (d, items)) in drawn.iter().zip(&comp_items).enumerate() {
            let (ox, oy) = comp_origin[c];
            for (&i, r) in items.iter().zip(&d.rects) {
                rects[i as usize] = Rect {
                    x: r.x + ox,
                    y: r.y + oy,
                    ..*r
                };
            }
        }
        let mut bends = Vec::new();
        let mut routes = Vec::with_capacity(link_at.len());
        for &(c, cl) in &link_at {
            let d = &drawn[c as usize];
            let (ox, oy) = comp_origin[c as usize];
            let (dag, reversed) = d.link_dag[cl as usize];
            let (from, count) = d.bend_spans[dag as usize];
            let start = bends.len() as u32;
            bends.extend(
                d.bends[from as usize..(from + count) as usize]
                    .iter()
                    .map(|&(x, y)| (x + ox, y + oy)),
            );
            routes.push((start, count, reversed));
        }
        let mut size = (0.0f32, 0.0f32);
        for r in &rects {
            size = (size.0.max(r.x + r.w), size.1.max(r.y + r.h));
        }
        for &(x, y) in &bends {
            size = (size.0.max(x), size.1.max(y));
        }
        Drawn {
            rects,
            bends,
            routes,
            size,
            content_at: (0.0, 0.0),
            layers,
            crossings,
        }
    }
}

/// What [`pack`] places at a level besides the loose nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Packed {
    /// A component, by index.
    Comp(u32),
    /// An item alone: a module box with no link at this level.
    Item(u32),
}

/// One level drawn, its contents' top-left corner at (0, 0).
struct Drawn {
    /// Per item: its box, relative to the contents' corner.
    rects: Vec<Rect>,
    /// Bend points of every link's route, each route top to bottom, relative to the contents'
    /// corner.
    bends: Vec<(f32, f32)>,
    /// Per level link: where its bends start in `bends`, how many, and whether the link climbs
    /// (it was reversed to break a cycle).
    routes: Vec<(u32, u32, bool)>,
    /// For the top level, the contents' size; for a box, the box's.
    size: (f32, f32),
    /// Where the contents' corner sits in the box.
    content_at: (f32, f32),
    layers: u32,
    crossings: u64,
}

impl Drawn {
    /// The contents framed as a box: padded, under a title strip, at least `min_width` wide (the
    /// contents centred when the title is wider).
    fn framed(self, min_width: f32) -> Self {
        let (w, h) = self.size;
        let width = (w + 2.0 * BOX_PAD).max(min_width);
        Drawn {
            size: (width, TITLE_HEIGHT + TITLE_GAP + h + BOX_PAD),
            content_at: ((width - w) / 2.0, TITLE_HEIGHT + TITLE_GAP),
            ..self
        }
    }
}

/// Packs component boxes (largest first) into rows, then the loose nodes in rows below them,
/// choosing the row width whose result comes closest to [`TARGET_ASPECT`]. A `lead` box (the
/// component holding a box's ports) goes first at (0, 0) with everything else to its right, so
/// nothing is drawn under it. Returns top-left corners in the order given.
fn pack(lead: Option<(f32, f32)>, comps: &[(f32, f32)], loose: &[(f32, f32)]) -> Origins {
    let gap = COMPONENT_GAP;
    let (lead_w, lead_h) = lead.map_or((0.0, 0.0), |(w, h)| (w + gap, h));
    let area: f32 = comps
        .iter()
        .chain(loose)
        .map(|&(w, h)| (w + gap) * (h + gap))
        .sum();
    let widest = comps
        .iter()
        .chain(loose)
        .map(|&(w, _)| w)
        .fold(0.0f32, f32::max);
    let ideal = (area * TARGET_ASPECT).sqrt();
    // Shelf packing wastes space at row ends, so the ideal width is only a first guess: trying
    // a spread of widths is cheap (linear in the number of boxes) and finds a much closer fit.
    let mut best: Option<(f32, f32)> = None;
    for step in 0..=16 {
        let row_width = (ideal * (0.5 + step as f32 * 0.1)).max(widest);
        let (w, h) = shelf_pack(comps, loose, row_width, None);
        let (w, h) = (lead_w + w, h.max(lead_h));
        // How many times too wide or too tall: ordered like |ln|, without a logarithm, whose
        // last bit may differ between platforms (WebAssembly's libm and the system's).
        let ratio = (w.max(1.0) / h.max(1.0)) / TARGET_ASPECT;
        let miss = ratio.max(1.0 / ratio);
        if best.is_none_or(|(best_miss, _)| miss < best_miss) {
            best = Some((miss, row_width));
        }
    }
    let row_width = best.map_or(widest, |(_, w)| w);
    let mut origins = (Vec::new(), Vec::new());
    shelf_pack(comps, loose, row_width, Some(&mut origins));
    for (x, _) in origins.0.iter_mut().chain(origins.1.iter_mut()) {
        *x += lead_w;
    }
    origins
}

/// Output of [`pack`]: top-left corners of the components and of the loose nodes.
type Origins = (Vec<(f32, f32)>, Vec<(f32, f32)>);

/// Places boxes left to right in rows no wider than `row_width`; returns the size used.
fn shelf_pack(
    comps: &[(f32, f32)],
    loose: &[(f32, f32)],
    row_width: f32,
    mut origins: Option<&mut Origins>,
) -> (f32, f32) {
    let gap = COMPONENT_GAP;
    let mut used_w = 0.0f32;
    let mut top = 0.0f32;
    for (part, boxes) in [comps, loose].into_iter().enumerate() {
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
        // The loose grid starts on a fresh row below the components.
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
    /// For each link of the component: its acyclic edge and whether that edge points the other way.
    link_dag: Vec<(u32, bool)>,
    graph: Layered,
    /// The component's entry and exit ports, if it has them: alone in the first and last layer.
    ports: [Option<u32>; 2],
}

impl Prepared {
    /// Prepares one weakly connected component whose links are local node indices; `boxed`
    /// says which nodes are module boxes.
    fn new(boxed: Vec<bool>, links: &[(u32, u32)], ports: [Option<u32>; 2]) -> Self {
        let n = boxed.len();
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

        let layer_of = assign_layers(n, &dag, ports);
        let graph = Layered::build(boxed, &layer_of, &dag);
        Prepared {
            link_dag,
            graph,
            ports,
        }
    }

    /// Orders, places and routes the component, given each node's size, with its top-left
    /// corner at (0, 0).
    fn finish(self, sizes: Vec<(f32, f32)>, sweeps: usize, s: &mut Scratch) -> ComponentLayout {
        let Prepared {
            link_dag,
            mut graph,
            ports,
        } = self;
        for (w, &(size, _)) in graph.width.iter_mut().zip(&sizes) {
            *w = f64::from(size);
        }
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
        let last = graph.layer_count.saturating_sub(1);
        let mut layer_top = Vec::with_capacity(graph.layer_count);
        let mut y = 0.0f32;
        for (l, &h) in layer_h.iter().enumerate() {
            layer_top.push(y);
            let next_to_port =
                (l == 0 && ports[0].is_some()) || (l + 1 == last && ports[1].is_some());
            y += h + if next_to_port { PORT_GAP } else { LAYER_GAP };
        }
        let height = layer_top.last().map_or(0.0, |&t| t + layer_h[last]);

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
/// its edges (and saves dummy nodes) without lengthening any other. The entry port, if any, gets
/// the first layer and the exit port the last, each alone there.
fn assign_layers(n: usize, dag: &[(u32, u32)], ports: [Option<u32>; 2]) -> Vec<u32> {
    let is_port = |v: u32| ports.contains(&Some(v));
    let inner = dag
        .iter()
        .copied()
        .filter(|&(u, v)| !is_port(u) && !is_port(v));
    let out = Csr::new(n, inner.clone());
    let mut indegree = vec![0u32; n];
    for (_, v) in inner {
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
    let min = (0..n as u32)
        .filter(|&v| !is_port(v))
        .map(|v| layer[v as usize])
        .min()
        .unwrap_or(0);
    let shift = u32::from(ports[0].is_some());
    for (v, l) in layer.iter_mut().enumerate() {
        *l = *l - min.min(*l) + shift;
        if is_port(v as u32) {
            *l = 0;
        }
    }
    if let Some(exit) = ports[1] {
        let deepest = (0..n as u32)
            .filter(|&v| !is_port(v))
            .map(|v| layer[v as usize])
            .max();
        layer[exit as usize] = deepest.map_or(shift, |l| l + 1);
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
    /// Box width of each node (dummies are narrow; real nodes' are set before placing).
    width: Vec<f64>,
    /// Per real node: a module box, which keeps its neighbours further off.
    boxed: Vec<bool>,
    /// Neighbours in the layer above.
    up: Csr,
    /// Neighbours in the layer below.
    down: Csr,
    /// Per acyclic edge: first dummy id and number of dummies (ids are consecutive, top down).
    chains: Vec<(u32, u32)>,
}

impl Layered {
    fn build(boxed: Vec<bool>, layer_of: &[u32], dag: &[(u32, u32)]) -> Self {
        let real = boxed.len();
        let span = |&(u, v): &(u32, u32)| (layer_of[v as usize] - layer_of[u as usize]) as usize;
        let needed: usize = dag.iter().map(|e| span(e) - 1).sum();
        let budget = DUMMIES_PER_ELEMENT * (real + dag.len());
        // Over budget, the shortest edges get their dummies first: they are the ones a reader
        // follows, and each costs little.
        let mut routed = vec![true; dag.len()];
        if needed > budget {
            let mut by_span: Vec<u32> = (0..dag.len() as u32).collect();
            planlens_model::sort::by_key(&mut by_span, |&e| (span(&dag[e as usize]), e));
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
        let mut width: Vec<f64> = vec![0.0; real];
        let mut chains = vec![(0u32, 0u32); dag.len()];
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(dag.len());
        for (e, &(u, v)) in dag.iter().enumerate() {
            if !routed[e] {
                continue;
            }
            let count = span(&(u, v)) as u32 - 1;
            let first = all_layers.len() as u32;
            chains[e] = (first, count);
            let mut prev = u;
            for i in 0..count {
                let d = first + i;
                all_layers.push(layer_of[u as usize] + 1 + i);
                width.push(DUMMY_WIDTH);
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
            boxed,
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

    fn is_box(&self, v: u32) -> bool {
        self.boxed.get(v as usize).copied().unwrap_or(false)
    }

    /// Minimum distance between the centres of two nodes next to each other in a layer.
    fn separation(&self, a: u32, b: u32) -> f64 {
        let gap = if self.is_dummy(a) || self.is_dummy(b) {
            DUMMY_GAP
        } else if self.is_box(a) || self.is_box(b) {
            BOX_GAP
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
    /// Sort keys of [`reorder`]: own wish, current position.
    keys: Vec<u64>,
    /// Positions of one node's neighbours, to find their median.
    nearby: Vec<u32>,
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
    s.pos.clear();
    s.pos.resize(total, 0);
    set_positions(&order, &mut s.pos);

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
                moved |= reorder(order.layer_mut(l), &g.up, above, s);
            }
        } else {
            for l in (0..order.count() - 1).rev() {
                let below = order.layer(l + 1).len();
                moved |= reorder(order.layer_mut(l), &g.down, below, s);
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
/// (which leaves fewer crossings than their mean, measured on plans and random graphs).
/// Returns whether the order changed.
fn reorder(layer: &mut [u32], neighbours: &Csr, adjacent_len: usize, s: &mut Scratch) -> bool {
    let len = layer.len();
    if len < 2 {
        return false;
    }
    // A node with no neighbour there keeps its relative place, scaled to the other layer.
    let scale = adjacent_len as f32 / len as f32;
    s.keys.clear();
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
        // One integer per node sorts several times faster than a pair with a float, and the
        // current position as the last part makes the order deterministic.
        s.keys.push(u64::from(sortable(wish)) << 32 | i as u64);
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
/// medians place nodes well on average but leave local knots, which this unties. Returns the
/// crossings removed.
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
            modules: &[],
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

    fn inside(a: &Rect, b: &Rect) -> bool {
        a.x >= b.x - 1e-3
            && a.y >= b.y - 1e-3
            && a.x + a.w <= b.x + b.w + 1e-3
            && a.y + a.h <= b.y + b.h + 1e-3
    }

    fn meet(a: &Rect, b: &Rect) -> bool {
        a.x + 1e-3 < b.x + b.w
            && b.x + 1e-3 < a.x + a.w
            && a.y + 1e-3 < b.y + b.h
            && b.y + 1e-3 < a.y + a.h
    }

    /// Each node inside the box of its module and of every module around it and outside every
    /// other box; each box inside its parent's; boxes not nested apart; title strips clear of
    /// nodes and of each other.
    fn assert_true_to_the_tree(l: &Layout, groups: &[u32], modules: &[Module]) {
        let around = |m: u32| {
            let mut out = Vec::new();
            let mut at = Some(m);
            while let Some(i) = at {
                let Some(module) = modules.get(i as usize) else {
                    break;
                };
                if module.parent.is_some() {
                    out.push(i);
                }
                at = module.parent;
            }
            out
        };
        let title = |r: &Rect| Rect {
            h: TITLE_HEIGHT,
            ..*r
        };
        for (v, r) in l.nodes.iter().enumerate() {
            let own = around(groups[v]);
            for (m, b) in l.modules.iter().enumerate() {
                let Some(b) = b else { continue };
                if own.contains(&(m as u32)) {
                    assert!(inside(r, b), "node {v} {r:?} outside its module {m} {b:?}");
                } else {
                    assert!(!meet(r, b), "node {v} {r:?} inside module {m} {b:?}");
                }
                assert!(!meet(r, &title(b)), "node {v} under the title of {m}");
            }
            for &m in &own {
                assert!(
                    l.modules[m as usize].is_some(),
                    "module {m} of {v} has no box"
                );
            }
        }
        for (m, a) in l.modules.iter().enumerate() {
            let Some(a) = a else { continue };
            let up = around(m as u32);
            if let Some(&p) = up.get(1) {
                let parent = l.modules[p as usize].expect("parent box");
                assert!(inside(a, &parent), "module {m} sticks out of {p}");
            }
            for (k, b) in l.modules.iter().enumerate().skip(m + 1) {
                let Some(b) = b else { continue };
                let nested = up.contains(&(k as u32)) || around(k as u32).contains(&(m as u32));
                assert!(nested || !meet(a, b), "modules {m} and {k} overlap");
                assert!(!meet(&title(a), &title(b)), "titles of {m} and {k} overlap");
            }
        }
    }

    /// A random acyclic graph over nodes spread across a module tree: root 0, modules 1–4 in
    /// it, 5–8 inside 1, 2 and 3, 9 inside 5; edges within and across modules.
    fn nested(n: u32) -> (Vec<(u32, u32)>, Vec<u32>, Vec<Module>) {
        let mut seed = 11u32;
        let mut next = move |m: u32| {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) % m
        };
        let parents = [
            None,
            Some(0),
            Some(0),
            Some(0),
            Some(0),
            Some(1),
            Some(1),
            Some(2),
            Some(3),
            Some(5),
        ];
        let modules: Vec<Module> = parents
            .iter()
            .map(|&parent| Module {
                parent,
                min_width: 150.0,
            })
            .collect();
        let groups: Vec<u32> = (0..n).map(|v| (v * 7 + v / 3) % 10).collect();
        let edges: Vec<(u32, u32)> = (1..n).flat_map(|v| [(next(v), v), (next(v), v)]).collect();
        (edges, groups, modules)
    }

    #[test]
    fn modules_are_boxes_holding_exactly_their_members() {
        let (edges, groups, modules) = nested(200);
        let l = layout(&LayoutInput {
            sizes: &boxes(200),
            edges: &edges,
            groups: &groups,
            modules: &modules,
        });
        assert_true_to_the_tree(&l, &groups, &modules);
        assert_no_overlap(&l);
        assert_in_bounds(&l);
        // The root module has no box; every other module has members, so a box.
        assert!(l.modules[0].is_none());
        assert!(l.modules[1..].iter().all(Option::is_some));
        for (line, &(u, v)) in l.edges.iter().zip(&edges) {
            let (from, to) = (l.nodes[u as usize], l.nodes[v as usize]);
            assert_eq!(
                line.first(),
                Some(&(from.x + from.w / 2.0, from.y + from.h))
            );
            assert_eq!(line.last(), Some(&(to.x + to.w / 2.0, to.y)));
        }
    }

    #[test]
    fn a_cycle_across_modules_and_one_module_per_node_stay_true_to_the_tree() {
        // Every edge goes back and forth between two sibling modules, and a chain of modules
        // each holding one node.
        let modules: Vec<Module> = [None, Some(0), Some(0), Some(2), Some(3)]
            .into_iter()
            .map(|parent| Module {
                parent,
                min_width: 0.0,
            })
            .collect();
        let groups = [1, 2, 1, 2, 3, 4, 0];
        let edges = [
            (0, 1),
            (1, 2),
            (2, 3),
            (3, 0),
            (4, 5),
            (5, 6),
            (6, 4),
            (0, 5),
        ];
        let l = layout(&LayoutInput {
            sizes: &boxes(7),
            edges: &edges,
            groups: &groups,
            modules: &modules,
        });
        assert_true_to_the_tree(&l, &groups, &modules);
        assert_no_overlap(&l);
        assert!(l.edges.iter().all(|e| e.len() >= 2));
    }

    #[test]
    fn an_edge_enters_a_box_through_its_top_and_leaves_through_its_bottom() {
        // Root node 0 feeds node 2 deep inside module 1 (under node 1); node 2 feeds root
        // node 3.
        let modules = [
            Module::default(),
            Module {
                parent: Some(0),
                min_width: 0.0,
            },
        ];
        let groups = [0, 1, 1, 0];
        let edges = [(0, 2), (1, 2), (2, 3)];
        let l = layout(&LayoutInput {
            sizes: &boxes(4),
            edges: &edges,
            groups: &groups,
            modules: &modules,
        });
        assert_true_to_the_tree(&l, &groups, &modules);
        let b = l.modules[1].expect("module 1 has a box");
        let into = &l.edges[0];
        assert!(
            into.iter().any(|&(_, y)| y == b.y),
            "enters at the top: {into:?}"
        );
        let out_of = &l.edges[2];
        assert!(
            out_of.iter().any(|&(_, y)| y == b.y + b.h),
            "leaves at the bottom: {out_of:?}"
        );
        // Inside the box, the entering edge passes beside node 1, not through it.
        let n1 = l.nodes[1];
        for &(x, y) in &into[1..into.len() - 1] {
            let through = x > n1.x && x < n1.x + n1.w && y > n1.y && y < n1.y + n1.h;
            assert!(!through, "bend {x},{y} inside node 1 {n1:?}");
        }
    }

    #[test]
    fn a_broken_module_tree_is_drawn_without_panicking() {
        // Module 1 and 2 are each other's parents; module 3's parent does not exist.
        let modules = [
            Module::default(),
            Module {
                parent: Some(2),
                min_width: 0.0,
            },
            Module {
                parent: Some(1),
                min_width: 0.0,
            },
            Module {
                parent: Some(99),
                min_width: f32::NAN,
            },
        ];
        let groups = [0, 1, 2, 3, 7];
        let l = layout(&LayoutInput {
            sizes: &boxes(5),
            edges: &[(0, 1), (1, 2), (2, 3), (3, 4)],
            groups: &groups,
            modules: &modules,
        });
        assert_no_overlap(&l);
        assert_in_bounds(&l);
        assert!(l.modules[1].is_none() && l.modules[2].is_none());
        let b = l.modules[3].expect("module 3 is drawn at the top level");
        assert!(inside(&l.nodes[3], &b));
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
