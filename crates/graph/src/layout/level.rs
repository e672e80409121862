//! One level drawn: split into weakly connected components, each drawn on its own, packed side
//! by side with the items that have no link, and framed as a box when the level is a module's.

use petgraph::unionfind::UnionFind;

use super::Rect;
use super::TITLE_HEIGHT;
use super::component::{ComponentLayout, Prepared};
use super::ordering::Scratch;
use super::packing::pack;
use super::tree::{Item, Level};

/// Space between a box's title strip and its contents: room for what is drawn just outside a
/// node (a finding's flag sticks out 7 px above it, a highlight ring 4 px).
const TITLE_GAP: f32 = 10.0;
/// Space between a box's contents and its left, right and bottom edges.
const BOX_PAD: f32 = 10.0;

/// A level split into weakly connected components (its two ports always in one), each ready to
/// be ordered, and its items without links.
#[derive(Default)]
pub(super) struct Split {
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
    pub(super) fn of(level: &Level) -> Self {
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

    /// What one ordering sweep over every component of the level costs.
    pub(super) fn work(&self) -> usize {
        self.comps.iter().map(Prepared::work).sum()
    }

    /// Orders, places and packs the level's contents, given each item's size.
    pub(super) fn draw(
        self,
        level: &Level,
        sizes: Vec<(f32, f32)>,
        sweeps: usize,
        s: &mut Scratch,
    ) -> Drawn {
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
pub(super) struct Drawn {
    /// Per item: its box, relative to the contents' corner.
    pub(super) rects: Vec<Rect>,
    /// Bend points of every link's route, each route top to bottom, relative to the contents'
    /// corner.
    pub(super) bends: Vec<(f32, f32)>,
    /// Per level link: where its bends start in `bends`, how many, and whether the link climbs
    /// (it was reversed to break a cycle).
    pub(super) routes: Vec<(u32, u32, bool)>,
    /// For the top level, the contents' size; for a box, the box's.
    pub(super) size: (f32, f32),
    /// Where the contents' corner sits in the box.
    pub(super) content_at: (f32, f32),
    pub(super) layers: u32,
    pub(super) crossings: u64,
}

impl Drawn {
    /// The contents framed as a box: padded, under a title strip, at least `min_width` wide (the
    /// contents centred when the title is wider).
    pub(super) fn framed(self, min_width: f32) -> Self {
        let (w, h) = self.size;
        let width = (w + 2.0 * BOX_PAD).max(min_width);
        Drawn {
            size: (width, TITLE_HEIGHT + TITLE_GAP + h + BOX_PAD),
            content_at: ((width - w) / 2.0, TITLE_HEIGHT + TITLE_GAP),
            ..self
        }
    }
}
