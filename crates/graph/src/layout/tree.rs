//! The module tree as levels: the top level and the inside of each box, each holding its nodes,
//! its child modules' boxes and its ports; and each edge lifted to one link per level it passes.

use super::{LayoutInput, clean_size};

/// One thing drawn among a level's contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Item {
    /// An input node.
    Node(u32),
    /// The box of a child module: the index of the level drawn inside it.
    Box(u32),
    /// Where edges enter (above everything) or leave (below everything) the level's box.
    Port,
}

/// An end of a link within one level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum End {
    /// An item of the level.
    Item(u32),
    /// The level's entry port.
    In,
    /// The level's exit port.
    Out,
}

/// One piece of a link: an edge between two ends in one level.
#[derive(Debug, Clone, Copy)]
pub(super) struct Hop {
    pub(super) level: u32,
    pub(super) from: End,
    pub(super) to: End,
}

/// The top level (level 0) or the inside of one module's box.
pub(super) struct Level {
    /// Index into the input's modules; `u32::MAX` for the top level.
    pub(super) module: u32,
    /// The level holding this one's box, and the box's item there; `None` for the top level.
    parent: Option<(u32, u32)>,
    /// Boxes around this one; 0 for the top level.
    depth: u32,
    /// For a box: the narrowest it may be. `None` for the top level.
    pub(super) min_width: Option<f32>,
    pub(super) items: Vec<Item>,
    /// The entry and exit ports' items, once an edge needs them.
    pub(super) ports: [Option<u32>; 2],
    /// Edges between items, sorted and distinct once every link has been lifted.
    pub(super) links: Vec<(u32, u32)>,
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
    pub(super) fn tree(input: &LayoutInput) -> (Vec<Level>, Vec<(u32, u32)>) {
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
    pub(super) fn item(&self, end: End) -> Option<u32> {
        match end {
            End::Item(i) => Some(i),
            End::In => self.ports[0],
            End::Out => self.ports[1],
        }
    }

    /// The item of an end, adding the port the first time it is asked for.
    pub(super) fn end(&mut self, end: End) -> u32 {
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
pub(super) fn lift(levels: &[Level], from: (u32, u32), to: (u32, u32), hops: &mut Hops) {
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
pub(super) struct Hops {
    pub(super) all: Vec<Hop>,
    down: Vec<Hop>,
}
