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
//!
//! One file a step: [`tree`] turns the module tree into levels and lifts each edge through the
//! boxes it passes; [`level`] splits a level into components, draws each and frames the result
//! as a box; [`component`] takes one component through [`layering`], [`ordering`] and
//! [`placing`]; [`packing`] sets the drawn components side by side.
//!
//! One work budget covers the whole graph. The box invariants hold by construction and are tested
//! on every fixture and on the generated 10k plan.

mod component;
mod layering;
mod level;
mod ordering;
mod packing;
mod placing;
#[cfg(test)]
mod tests;
mod tree;

use layering::DUMMY_WIDTH;
use level::{Drawn, Split};
use ordering::Scratch;
use tree::{End, Hops, Item, Level, lift};

/// Height of the strip at the top of a module's box that holds its title: no node, box or other
/// title is drawn in it.
pub const TITLE_HEIGHT: f32 = 16.0;

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
    let work: usize = split.iter().map(Split::work).sum();
    let sweeps = ordering::sweeps(work);

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
