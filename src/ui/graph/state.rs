//! The Graph tab's view state: the graph and its folded, laid-out view, what is lit, the camera,
//! and the state changes pointer and key events make (zoom about a point, a click on a node).

use std::sync::Arc;

use leptos::prelude::*;
use petgraph::graph::NodeIndex;

use crate::graph::DepGraph;
use crate::graph::layout::Rect;
use crate::graph::view::{View, ViewNodeKind, ViewOptions};
use crate::ui::loaded::Loaded;
use crate::ui::timing::{mark, measure};

/// The dependency graph of the open plan, compared by identity.
#[derive(Clone)]
pub struct GraphRef(pub Arc<DepGraph>);

impl PartialEq for GraphRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A laid-out view, compared by identity.
#[derive(Clone)]
pub struct ViewRef(pub Arc<View>);

impl PartialEq for ViewRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Graph state that is not the plan: how it is folded and what is lit.
#[derive(Clone, Copy)]
pub struct GraphState {
    /// The graph of the open plan; built the first time the Graph tab is shown.
    pub graph: Memo<Option<GraphRef>>,
    /// How the user folded it; `None` until they do, meaning the default for the plan.
    pub options: RwSignal<Option<ViewOptions>>,
    /// Also light what the selection depends on.
    pub upstream: RwSignal<bool>,
    /// Light the blast radius of every destructive change.
    pub destructive: RwSignal<bool>,
    /// A node without a row (only in the prior state) selected in the graph.
    pub state_only: RwSignal<Option<u32>>,
    /// The folded, laid-out view.
    pub view: Memo<Option<ViewRef>>,
    /// Where the graph is looked at; `None` until the first frame of a plan frames it.
    pub(super) camera: RwSignal<Option<Camera>>,
}

impl GraphState {
    /// Creates the graph state over the app's loaded plan.
    pub fn new(loaded: RwSignal<Option<Arc<Loaded>>, LocalStorage>) -> Self {
        let graph = Memo::new(move |_| {
            loaded.with(|l| {
                let l = l.as_ref()?;
                mark("planlens:graph-start");
                let g = Arc::clone(l.analysis.graph(&l.doc));
                measure("planlens:graph-build", "planlens:graph-start");
                Some(GraphRef(g))
            })
        });
        let options: RwSignal<Option<ViewOptions>> = RwSignal::new(None);
        let view = Memo::new(move |_| {
            let g = graph.get()?;
            let opts = options.get().unwrap_or_else(|| ViewOptions {
                collapsed: g.0.default_collapsed(),
                show_unchanged: false,
            });
            mark("planlens:layout-start");
            let view = g.0.view(&opts);
            measure("planlens:graph-layout", "planlens:layout-start");
            Some(ViewRef(Arc::new(view)))
        });
        GraphState {
            graph,
            options,
            upstream: RwSignal::new(false),
            destructive: RwSignal::new(false),
            state_only: RwSignal::new(None),
            view,
            camera: RwSignal::new(None),
        }
    }

    /// Forgets folding and selection, for a newly opened plan.
    pub fn reset(&self) {
        self.options.set(None);
        self.state_only.set(None);
        self.camera.set(None);
    }

    /// The options in effect (the default ones until the user changes something).
    fn current_options(&self) -> Option<ViewOptions> {
        self.options.get_untracked().or_else(|| {
            let g = self.graph.get_untracked()?;
            Some(ViewOptions {
                collapsed: g.0.default_collapsed(),
                show_unchanged: false,
            })
        })
    }

    pub(super) fn update_options(&self, f: impl FnOnce(&mut ViewOptions)) {
        if let Some(mut opts) = self.current_options() {
            f(&mut opts);
            self.options.set(Some(opts));
        }
    }

    /// Makes a node visible: expands the modules around it and, when it is an unchanged resource
    /// that the view leaves out, shows the full graph.
    pub(super) fn reveal(&self, node: NodeIndex) {
        let (Some(g), Some(v)) = (self.graph.get_untracked(), self.view.get_untracked()) else {
            return;
        };
        let showing = v.0.node_of.get(node.index()).copied().flatten();
        if showing.is_some_and(|b| matches!(v.0.nodes[b as usize].kind, ViewNodeKind::Resource(_)))
        {
            return;
        }
        let mut module = Some(g.0.graph[node].module);
        self.update_options(|o| {
            while let Some(m) = module {
                o.collapsed.remove(&m);
                module = g.0.module_instances[m as usize].parent;
            }
            if showing.is_none() {
                o.show_unchanged = true;
            }
        });
    }
}

/// Zoom at which labels are comfortably readable; the first view never starts below it.
const READABLE_SCALE: f64 = 0.75;

/// Where the camera looks: world coordinates of the top-left corner and the zoom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Camera {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) scale: f64,
}

impl Camera {
    pub(super) fn to_world(self, sx: f64, sy: f64) -> (f64, f64) {
        (self.x + sx / self.scale, self.y + sy / self.scale)
    }

    /// Fits a rectangle of the layout into a `w`×`h` screen, never zooming in past 1.5.
    pub(super) fn fit(r: &Rect, w: f64, h: f64) -> Camera {
        let margin = 24.0;
        let rw = f64::from(r.w).max(1.0);
        let rh = f64::from(r.h).max(1.0);
        let scale = ((w - 2.0 * margin) / rw)
            .min((h - 2.0 * margin) / rh)
            .clamp(0.02, 1.5);
        Camera {
            x: f64::from(r.x) + rw / 2.0 - w / 2.0 / scale,
            y: f64::from(r.y) + rh / 2.0 - h / 2.0 / scale,
            scale,
        }
    }

    /// The first view of a graph: all of it when it fits at a readable size, else its top
    /// (where the dependencies everything else builds on are), centred, at a readable size.
    pub(super) fn first(r: &Rect, w: f64, h: f64) -> Camera {
        let fit = Camera::fit(r, w, h);
        if fit.scale >= READABLE_SCALE {
            return fit;
        }
        let scale = READABLE_SCALE;
        Camera {
            x: f64::from(r.x) + f64::from(r.w) / 2.0 - w / 2.0 / scale,
            y: f64::from(r.y) - 24.0 / scale,
            scale,
        }
    }

    pub(super) fn centre_on(&self, r: &Rect, w: f64, h: f64) -> Camera {
        let scale = self.scale.max(0.8);
        Camera {
            x: f64::from(r.x + r.w / 2.0) - w / 2.0 / scale,
            y: f64::from(r.y + r.h / 2.0) - h / 2.0 / scale,
            scale,
        }
    }
}

/// A pointer press on the canvas: where it started, where it was last, and whether it has moved
/// far enough to be a drag rather than a click.
#[derive(Debug, Clone, Copy)]
pub(super) struct Drag {
    pub(super) start: (f64, f64),
    pub(super) last: (f64, f64),
    pub(super) moved: bool,
}

pub(super) fn bounds(rects: impl Iterator<Item = Rect>) -> Option<Rect> {
    rects.reduce(|a, b| {
        let x = a.x.min(b.x);
        let y = a.y.min(b.y);
        Rect {
            x,
            y,
            w: (a.x + a.w).max(b.x + b.w) - x,
            h: (a.y + a.h).max(b.y + b.h) - y,
        }
    })
}

pub(super) fn zoom_at(
    camera: RwSignal<Option<Camera>>,
    cam: Camera,
    factor: f64,
    sx: f64,
    sy: f64,
) {
    let scale = (cam.scale * factor).clamp(0.02, 4.0);
    let (wx, wy) = cam.to_world(sx, sy);
    camera.set(Some(Camera {
        x: wx - sx / scale,
        y: wy - sy / scale,
        scale,
    }));
}
