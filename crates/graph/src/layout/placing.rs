//! Horizontal placement within the fixed order: each layer in turn moved as close to its
//! neighbours in the adjacent layer as the gaps allow (isotonic regression), never reordered.

use super::layering::{Csr, Layered};
use super::ordering::{Order, Sweep};

/// Horizontal space between two nodes.
const NODE_GAP: f64 = 24.0;
/// Horizontal space beside a module's box, so boxes stand apart from their neighbours.
const BOX_GAP: f64 = 40.0;
/// Horizontal space next to a dummy node: edges may run closer together than boxes.
const DUMMY_GAP: f64 = 12.0;
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

impl Layered {
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

/// Centre x of every node (dummies included). Layers start packed to the left; then passes
/// downward, upward and downward again move each layer towards its neighbours in the layer
/// just placed, and a last pass looks both ways.
pub(super) fn assign_x(g: &Layered, order: &Order, pools: &mut Vec<Pool>) -> Vec<f64> {
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
    for pass in (0..3).map(Sweep::alternating) {
        for (l, _) in pass.layers(order.count()) {
            place_layer(g, order.layer(l), &[pass.neighbours(g)], &mut x, pools);
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
pub(super) struct Pool {
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
