//! The Graph tab's view state: the graph and its folded, laid-out view, what is lit, the camera,
//! and the state changes pointer and key events make (zoom about a point, a click on a node).
//!
//! `GraphState` asks the plan's session for the graph once per plan (`Fetch`, shown by the
//! toolbar's `FetchNote`), and follows drags, clicks and pinches. It knows the open plan, never the
//! app.

use std::sync::{Arc, Weak};

use leptos::prelude::*;
use petgraph::graph::NodeIndex;

use crate::graph::DepGraph;
use crate::graph::camera::{Camera, MAX_SCALE, MIN_SCALE};
use crate::graph::view::{View, ViewOptions};
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

/// Where the open plan's graph is while it is not on the page: the plan's session builds it
/// when the Graph tab first asks (opening a plan does not wait for it).
#[derive(Clone, Debug, PartialEq)]
pub enum Fetch {
    /// Nothing asked, or the graph is here.
    Idle,
    /// Asked of the plan's session.
    Asking,
    /// The session could not give it: why.
    Failed(String),
}

/// Graph state that is not the plan: how it is folded and what is lit.
#[derive(Clone, Copy)]
pub struct GraphState {
    /// The graph of the open plan; asked of its session the first time the Graph tab is shown.
    pub graph: Memo<Option<GraphRef>>,
    /// Whether the graph is being asked for, or why it could not be had.
    pub fetch: RwSignal<Fetch>,
    /// Bumped when a graph arrives, so `graph` reads it.
    received: RwSignal<u32>,
    /// The plan the graph was last asked for (weak: a closed plan is not kept for this).
    asked: StoredValue<Weak<Loaded>, LocalStorage>,
    loaded: RwSignal<Option<Arc<Loaded>>, LocalStorage>,
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
    /// The framing that put the camera where it is, and the camera it gave; the user's moves
    /// leave it behind (the camera is no longer that one).
    pub(super) framed: StoredValue<Option<(Framing, Camera)>>,
}

impl GraphState {
    /// Creates the graph state over the app's loaded plan.
    pub fn new(loaded: RwSignal<Option<Arc<Loaded>>, LocalStorage>) -> Self {
        let received = RwSignal::new(0u32);
        let graph = Memo::new(move |_| {
            received.track();
            loaded.with(|l| {
                let l = l.as_ref()?;
                let a = &l.analysis;
                let g = match a.graph_ready() {
                    Some(g) => g,
                    None if a.graph_in_session() => return None,
                    None => a.graph(&l.doc),
                };
                Some(GraphRef(Arc::clone(g)))
            })
        });
        let options: RwSignal<Option<ViewOptions>> = RwSignal::new(None);
        let view = Memo::new(move |_| {
            let g = graph.get()?;
            let opts = options.get().unwrap_or_else(|| g.0.opening_options());
            mark("planlens:layout-start");
            let view = g.0.view(&opts);
            measure("planlens:graph-layout", "planlens:layout-start");
            Some(ViewRef(Arc::new(view)))
        });
        GraphState {
            graph,
            fetch: RwSignal::new(Fetch::Idle),
            received,
            asked: StoredValue::new_local(Weak::new()),
            loaded,
            options,
            upstream: RwSignal::new(false),
            destructive: RwSignal::new(false),
            state_only: RwSignal::new(None),
            view,
            camera: RwSignal::new(None),
            framed: StoredValue::new(None),
        }
    }

    /// Asks the open plan's session for its graph unless it is here or already asked for
    /// (`planlens:graph-build` measures the wait). Tracks the open plan, so an effect calling it
    /// asks again for the next plan.
    pub fn ask(&self) {
        let Some(l) = self.loaded.get() else {
            return;
        };
        let a = &l.analysis;
        if a.graph_ready().is_some() || !a.graph_in_session() {
            return;
        }
        if self
            .asked
            .with_value(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(&l)))
        {
            return;
        }
        self.asked.set_value(Arc::downgrade(&l));
        self.fetch.set(Fetch::Asking);
        mark("planlens:graph-start");
        let me = *self;
        leptos::task::spawn_local(async move {
            let answer = crate::ui::backend::ask(crate::session::Request::Graph).await;
            // Another plan was opened meanwhile: its own question follows.
            let current = me.loaded.try_get_untracked().flatten();
            if !current.is_some_and(|c| Arc::ptr_eq(&c, &l)) {
                return;
            }
            let failed = match answer {
                Ok(crate::session::Response::Graph(carried)) => {
                    match l.analysis.receive_graph(&l.doc, &carried) {
                        Ok(_) => None,
                        Err(e) => Some(e.to_string()),
                    }
                }
                Ok(crate::session::Response::Failed(message)) | Err(message) => Some(message),
                Ok(_) => Some("the plan's session answered another question".to_string()),
            };
            match failed {
                None => {
                    measure("planlens:graph-build", "planlens:graph-start");
                    me.fetch.set(Fetch::Idle);
                    me.received.update(|n| *n += 1);
                }
                Some(message) => {
                    // Showing the tab again asks again.
                    me.asked.set_value(Weak::new());
                    me.fetch.set(Fetch::Failed(message));
                }
            }
        });
    }

    /// Forgets folding and selection, for a newly opened plan.
    pub fn reset(&self) {
        self.fetch.set(Fetch::Idle);
        self.options.set(None);
        self.state_only.set(None);
        self.camera.set(None);
        self.framed.set_value(None);
    }

    /// The options in effect (the default ones until the user changes something).
    fn current_options(&self) -> Option<ViewOptions> {
        self.options.get_untracked().or_else(|| {
            let g = self.graph.get_untracked()?;
            Some(g.0.opening_options())
        })
    }

    pub(super) fn update_options(&self, f: impl FnOnce(&mut ViewOptions)) {
        if let Some(mut opts) = self.current_options() {
            f(&mut opts);
            self.options.set(Some(opts));
        }
    }

    /// Makes nodes visible, each as a box of its own: expands the modules around them and shows
    /// the full graph when one is an unchanged resource the view leaves out
    /// ([`DepGraph::reveal`]). Leaves the options alone when they already show them.
    pub(super) fn reveal(&self, nodes: &[NodeIndex]) {
        let (Some(g), Some(mut opts)) = (self.graph.get_untracked(), self.current_options()) else {
            return;
        };
        if g.0.reveal(&mut opts, nodes) {
            self.options.set(Some(opts));
        }
    }
}

/// How the camera was last placed by the tab itself rather than by the user: the opening view
/// or Fit. While the camera is still where that put it, a change of the canvas's size (the
/// window, a note above it, the phone's tools) frames the drawing again the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Framing {
    Opening,
    Fit,
}

/// A pointer press on the canvas: which pointer, where it started, where it was last, and
/// whether it has moved far enough to be a drag rather than a click.
#[derive(Debug, Clone, Copy)]
struct Drag {
    id: i32,
    start: (f64, f64),
    last: (f64, f64),
    moved: bool,
}

/// Two fingers on the canvas: how far apart they started, their midpoint and the camera then.
#[derive(Debug, Clone, Copy)]
struct Pinch {
    distance: f64,
    middle: (f64, f64),
    camera: Camera,
}

/// The pointers on the canvas and what they are doing: one drags (pans) or clicks, two pinch
/// (zoom about their midpoint, and pan as it moves). Positions are CSS pixels on the canvas.
#[derive(Debug, Default)]
pub(super) struct Gesture {
    pointers: Vec<(i32, (f64, f64))>,
    drag: Option<Drag>,
    pinch: Option<Pinch>,
}

impl Gesture {
    /// A pointer went down.
    pub(super) fn down(&mut self, id: i32, at: (f64, f64), camera: Option<Camera>) {
        self.pointers.retain(|(p, _)| *p != id);
        self.pointers.push((id, at));
        match (&self.pointers[..], camera) {
            ([_], _) => {
                self.drag = Some(Drag {
                    id,
                    start: at,
                    last: at,
                    moved: false,
                });
            }
            ([(_, a), (_, b), ..], Some(camera)) => {
                // A second finger: a pinch, never a click.
                self.drag = None;
                self.pinch = Some(Pinch {
                    distance: distance(*a, *b),
                    middle: middle(*a, *b),
                    camera,
                });
            }
            _ => {}
        }
    }

    /// A pointer moved: the camera it moves to, if it pans or zooms.
    pub(super) fn moved(&mut self, id: i32, at: (f64, f64), camera: Camera) -> Option<Camera> {
        let p = self.pointers.iter_mut().find(|(p, _)| *p == id)?;
        p.1 = at;
        if let (Some(pinch), [(_, a), (_, b), ..]) = (self.pinch, &self.pointers[..]) {
            let scale = (pinch.camera.scale * distance(*a, *b) / pinch.distance.max(1.0))
                .clamp(MIN_SCALE.min(pinch.camera.scale), MAX_SCALE);
            // The point of the layout that was under the fingers' midpoint stays under it.
            let (wx, wy) = pinch.camera.to_world(pinch.middle.0, pinch.middle.1);
            let (mx, my) = middle(*a, *b);
            return Some(Camera {
                x: wx - mx / scale,
                y: wy - my / scale,
                scale,
            });
        }
        let d = self.drag.as_mut().filter(|d| d.id == id)?;
        d.moved = d.moved || (at.0 - d.start.0).abs() + (at.1 - d.start.1).abs() > 4.0;
        let (dx, dy) = (at.0 - d.last.0, at.1 - d.last.1);
        d.last = at;
        d.moved.then(|| Camera {
            x: camera.x - dx / camera.scale,
            y: camera.y - dy / camera.scale,
            ..camera
        })
    }

    /// A pointer went up (or was cancelled): true when it was a click (one pointer that did not
    /// move).
    pub(super) fn up(&mut self, id: i32) -> bool {
        self.pointers.retain(|(p, _)| *p != id);
        let click = self.drag.take_if(|d| d.id == id).is_some_and(|d| !d.moved);
        if self.pointers.len() < 2 && self.pinch.take().is_some() {
            // The finger left after a pinch pans on, without clicking when lifted.
            if let [(id, at)] = self.pointers[..] {
                self.drag = Some(Drag {
                    id,
                    start: at,
                    last: at,
                    moved: true,
                });
            }
        }
        click
    }

    /// True while any pointer is down.
    pub(super) fn active(&self) -> bool {
        !self.pointers.is_empty()
    }
}

fn distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

fn middle(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0)
}
