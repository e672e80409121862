//! One weakly connected component of a level, from links to boxes and bends: cycles broken,
//! layers assigned and long edges split ([`layering`](super::layering)), then ordered, placed,
//! and given y coordinates here.

use super::Rect;
use super::layering::{Layered, assign_layers, break_cycles};
use super::ordering::{Scratch, order_layers};
use super::placing::assign_x;

/// Vertical space between two layers, where the edges run.
const LAYER_GAP: f32 = 60.0;
/// Vertical space between a box's port and the layer of contents next to it: the edges there
/// only fan out to (or gather from) the contents.
const PORT_GAP: f32 = 28.0;

/// One component drawn with its top-left corner at (0, 0).
pub(super) struct ComponentLayout {
    /// Box of each node of the component, in component order.
    pub(super) rects: Vec<Rect>,
    /// Bend points of all acyclic edges, each edge's top to bottom.
    pub(super) bends: Vec<(f32, f32)>,
    /// Per acyclic edge: where its bends start in `bends`, and how many (none for edges
    /// spanning one layer).
    pub(super) bend_spans: Vec<(u32, u32)>,
    /// For each link of the component: its acyclic edge and whether that edge points the other way.
    pub(super) link_dag: Vec<(u32, bool)>,
    pub(super) width: f32,
    pub(super) height: f32,
    pub(super) layers: u32,
    pub(super) crossings: u64,
}

/// A component made acyclic, layered and split into unit-length edges, ready to be ordered.
pub(super) struct Prepared {
    /// For each link of the component: its acyclic edge and whether that edge points the other way.
    link_dag: Vec<(u32, bool)>,
    graph: Layered,
    /// The component's entry and exit ports, if it has them: alone in the first and last layer.
    ports: [Option<u32>; 2],
}

impl Prepared {
    /// Prepares one weakly connected component whose links are local node indices; `boxed`
    /// says which nodes are module boxes.
    pub(super) fn new(boxed: Vec<bool>, links: &[(u32, u32)], ports: [Option<u32>; 2]) -> Self {
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

    /// What one ordering sweep over the component costs.
    pub(super) fn work(&self) -> usize {
        self.graph.work()
    }

    /// Orders, places and routes the component, given each node's size, with its top-left
    /// corner at (0, 0).
    pub(super) fn finish(
        self,
        sizes: Vec<(f32, f32)>,
        sweeps: usize,
        s: &mut Scratch,
    ) -> ComponentLayout {
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
