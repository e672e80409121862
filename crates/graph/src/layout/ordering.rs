//! The order of the nodes within each layer, chosen to reduce crossings: median sweeps down and
//! up the layers, keeping the best order seen, then swaps of neighbours that untie local knots.

use super::layering::{Csr, Layered};
use super::placing::Pool;

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

/// Buffers reused across layers and components, so ordering allocates next to nothing.
#[derive(Default)]
pub(super) struct Scratch {
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
    pub(super) pools: Vec<Pool>,
}

/// The nodes of every layer, left to right, stored back to back.
#[derive(Clone)]
pub(super) struct Order {
    nodes: Vec<u32>,
    /// Layer `l` is `nodes[start[l]..start[l + 1]]`.
    start: Vec<usize>,
}

impl Order {
    /// Number of layers.
    pub(super) fn count(&self) -> usize {
        self.start.len() - 1
    }

    /// The nodes of layer `l`, left to right.
    pub(super) fn layer(&self, l: usize) -> &[u32] {
        &self.nodes[self.start[l]..self.start[l + 1]]
    }

    fn layer_mut(&mut self, l: usize) -> &mut [u32] {
        &mut self.nodes[self.start[l]..self.start[l + 1]]
    }

    /// Every layer, top down.
    pub(super) fn layers(&self) -> impl Iterator<Item = &[u32]> {
        (0..self.count()).map(|l| self.layer(l))
    }
}

/// Which way a pass over the layers goes. Each layer it visits is fitted to the layer visited
/// just before it, so a pass carries what it changes all the way through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sweep {
    /// Top down: every layer but the first, each fitted to the layer above.
    Down,
    /// Bottom up: every layer but the last, each fitted to the layer below.
    Up,
}

impl Sweep {
    /// Passes alternate, starting downward: pass 0 goes down, pass 1 up, and so on.
    pub(super) fn alternating(pass: usize) -> Self {
        if pass.is_multiple_of(2) {
            Sweep::Down
        } else {
            Sweep::Up
        }
    }

    /// The layers this pass visits among `count`, in order, each with the layer it is fitted to.
    pub(super) fn layers(self, count: usize) -> impl Iterator<Item = (usize, usize)> {
        let n = count.saturating_sub(1);
        (0..n).map(move |i| match self {
            Sweep::Down => (i + 1, i),
            Sweep::Up => (n - 1 - i, n - i),
        })
    }

    /// Each node's neighbours in the layer it is fitted to.
    pub(super) fn neighbours(self, g: &Layered) -> &Csr {
        match self {
            Sweep::Down => &g.up,
            Sweep::Up => &g.down,
        }
    }
}

/// How many sweeps each component gets when ordering the whole graph costs `work` (the sum of
/// [`Layered::work`] over its components) per sweep.
pub(super) fn sweeps(work: usize) -> usize {
    (ORDER_WORK_BUDGET / work.max(1)).clamp(MIN_SWEEPS, MAX_SWEEPS)
}

/// Orders the nodes of each layer to reduce crossings: median sweeps, alternately downward
/// and upward, keeping the best order seen, then adjacent swaps on that. Returns the order and
/// its crossings.
pub(super) fn order_layers(g: &Layered, sweeps: usize, s: &mut Scratch) -> (Order, u64) {
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
        let pass = Sweep::alternating(sweep);
        let mut moved = false;
        for (l, fitted_to) in pass.layers(order.count()) {
            let adjacent_len = order.layer(fitted_to).len();
            moved |= reorder(order.layer_mut(l), pass.neighbours(g), adjacent_len, s);
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
                let sides = |(above, below, end): (u32, u32, u32)| {
                    let [above, below, end] = [above, below, end].map(|i| i as usize);
                    (&np[above..below], &np[below..end])
                };
                let ((up_v, down_v), (up_w, down_w)) = (sides(s.spans[i]), sides(s.spans[i + 1]));
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
