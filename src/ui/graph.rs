//! The Graph tab: the dependency graph on a canvas (pan, zoom, fit, minimap), module clusters that
//! collapse and expand, blast radius highlights and SVG/PNG export. The core builds, folds and lays
//! out the graph (`crate::graph`); this file only draws it and turns pointer and key events into
//! state changes.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::ev;
use leptos::html;
use leptos::prelude::*;
use petgraph::graph::NodeIndex;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::CanvasRenderingContext2d as Ctx;

use super::{AppState, diff};
use crate::graph::export::view_to_svg;
use crate::graph::layout::Rect;
use crate::graph::style::{colour, node_prefix, node_style, segment_fill};
use crate::graph::view::{Highlight, HighlightOptions, View, ViewNodeKind, ViewOptions};
use crate::graph::{DepGraph, EdgeSource};
use crate::list::contains_ignore_case;
use crate::model::text::{count, noun};
use crate::rules::RuleSeverity;

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
    camera: RwSignal<Option<Camera>>,
}

impl GraphState {
    /// Creates the graph state over the app's loaded plan.
    pub fn new(loaded: RwSignal<Option<Arc<super::Loaded>>, LocalStorage>) -> Self {
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

    fn update_options(&self, f: impl FnOnce(&mut ViewOptions)) {
        if let Some(mut opts) = self.current_options() {
            f(&mut opts);
            self.options.set(Some(opts));
        }
    }

    /// Makes a node visible: expands the modules around it and, when it is an unchanged resource
    /// that the view leaves out, shows the full graph.
    fn reveal(&self, node: NodeIndex) {
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

fn performance() -> Option<web_sys::Performance> {
    window().performance()
}

/// Milliseconds on the page's clock, for the durations the UI shows.
pub(super) fn now() -> f64 {
    performance().map_or(0.0, |p| p.now())
}

pub(super) fn mark(name: &str) {
    if let Some(p) = performance() {
        let _ = p.mark(name);
    }
}

pub(super) fn measure(name: &str, from: &str) {
    if let Some(p) = performance() {
        let _ = p.measure_with_start_mark(name, from);
    }
}

/// Where the camera looks: world coordinates of the top-left corner and the zoom.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Camera {
    x: f64,
    y: f64,
    scale: f64,
}

impl Camera {
    fn to_world(self, sx: f64, sy: f64) -> (f64, f64) {
        (self.x + sx / self.scale, self.y + sy / self.scale)
    }

    /// Fits a rectangle of the layout into a `w`×`h` screen, never zooming in past 1.5.
    fn fit(r: &Rect, w: f64, h: f64) -> Camera {
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
    fn first(r: &Rect, w: f64, h: f64) -> Camera {
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

    fn centre_on(&self, r: &Rect, w: f64, h: f64) -> Camera {
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
struct Drag {
    start: (f64, f64),
    last: (f64, f64),
    moved: bool,
}

fn bounds(rects: impl Iterator<Item = Rect>) -> Option<Rect> {
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

/// The Graph tab.
#[component]
pub fn GraphPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let gs = state.graph;
    let canvas: NodeRef<html::Canvas> = NodeRef::new();
    let minimap: NodeRef<html::Canvas> = NodeRef::new();
    let camera = gs.camera;
    // Bumped when the canvas's size may have changed.
    let resized = RwSignal::new(0u32);

    let selected_node = Memo::new(move |_| {
        gs.state_only
            .get()
            .map(|n| NodeIndex::new(n as usize))
            .or_else(|| state.selected.get().map(|r| NodeIndex::new(r as usize)))
    });
    let highlight = Memo::new(move |_| {
        let g = gs.graph.get()?;
        let v = gs.view.get()?;
        Some(Arc::new(v.0.highlight(
            &g.0,
            &HighlightOptions {
                selected: selected_node.get(),
                upstream: gs.upstream.get(),
                destructive: gs.destructive.get(),
            },
        )))
    });
    // Boxes whose resources match the search.
    let matches = Memo::new(move |_| {
        let search = state.filter.with(|f| f.search.trim().to_string());
        let g = gs.graph.get()?;
        let v = gs.view.get()?;
        if search.is_empty() {
            return None;
        }
        let mut hit = vec![false; v.0.nodes.len()];
        for n in g.0.graph.node_indices() {
            if let Some(b) = v.0.node_of[n.index()]
                && contains_ignore_case(&g.0.graph[n].address, &search)
            {
                hit[b as usize] = true;
            }
        }
        Some(Arc::new(hit))
    });

    // `try_`: a frame requested just before the tab closed runs after the panel is disposed.
    let size = move || -> (f64, f64) {
        canvas
            .try_get_untracked()
            .flatten()
            .map(|c| (f64::from(c.client_width()), f64::from(c.client_height())))
            .unwrap_or((800.0, 600.0))
    };

    // A new plan (the camera was reset): frame it. Folding keeps the camera where the user put it.
    Effect::new(move |_| {
        if camera.with(Option::is_some) {
            return;
        }
        let Some(v) = gs.view.get() else { return };
        let (w, h) = size();
        if let Some(all) = bounds(v.0.layout.nodes.iter().copied()) {
            camera.set(Some(Camera::first(&all, w, h)));
        }
    });
    // A search frames its matches.
    Effect::new(move |_| {
        let Some(hit) = matches.get() else { return };
        let Some(v) = gs.view.get_untracked() else {
            return;
        };
        let (w, h) = size();
        let rects = v.0.layout.nodes.iter().zip(hit.iter()).filter(|(_, h)| **h);
        if let Some(r) = bounds(rects.map(|(r, _)| *r)) {
            camera.set(Some(Camera::fit(&r, w, h)));
        }
    });
    // Selecting in the list (or by the URL) centres the graph on the resource.
    Effect::new(move |_| {
        let Some(node) = selected_node.get() else {
            return;
        };
        gs.reveal(node);
        let Some(v) = gs.view.get() else { return };
        let Some(b) = v.0.node_of.get(node.index()).copied().flatten() else {
            return;
        };
        let r = v.0.layout.nodes[b as usize];
        let (w, h) = size();
        let cam = camera.get_untracked().unwrap_or(Camera {
            x: 0.0,
            y: 0.0,
            scale: 1.0,
        });
        camera.set(Some(cam.centre_on(&r, w, h)));
    });

    // Draw on the next animation frame whenever anything drawn changes.
    let pending = Rc::new(Cell::new(false));
    let first_frame = Rc::new(Cell::new(true));
    Effect::new(move |_| {
        let (Some(g), Some(v), Some(hl)) = (gs.graph.get(), gs.view.get(), highlight.get()) else {
            return;
        };
        let cam = camera.get();
        let hits = matches.get();
        let findings = state.rules.checked.get();
        resized.track();
        if pending.replace(true) {
            return;
        }
        let pending = pending.clone();
        let first_frame = first_frame.clone();
        request_animation_frame(move || {
            pending.set(false);
            // The panel may have been disposed since the frame was requested (tab switched).
            let (Some(c), Some(cam)) = (canvas.try_get_untracked().flatten(), cam) else {
                return;
            };
            draw(
                &c,
                &g.0,
                &v.0,
                &hl,
                hits.as_deref().map(|h| h.as_slice()),
                findings.as_ref().map_or(&[][..], |f| f.0.worst.as_slice()),
                cam,
            );
            if let Some(m) = minimap.try_get_untracked().flatten() {
                draw_minimap(&m, &g.0, &v.0, &hl, cam, size());
            }
            if first_frame.replace(false) {
                measure("planlens:graph", "planlens:open-start");
            }
        });
    });
    let resize = window_event_listener(ev::resize, move |_| resized.update(|n| *n += 1));
    on_cleanup(move || resize.remove());

    // Pointer: drag pans, a click selects a node, expands a collapsed module or collapses an
    // expanded one by its title.
    let drag: Rc<Cell<Option<Drag>>> = Rc::new(Cell::new(None));
    let drag_down = drag.clone();
    let on_down = move |ev: ev::PointerEvent| {
        if ev.button() != 0 {
            return;
        }
        if let Some(c) = canvas.get_untracked() {
            let _ = c.set_pointer_capture(ev.pointer_id());
            let _ = c.focus();
        }
        let (x, y) = (f64::from(ev.offset_x()), f64::from(ev.offset_y()));
        drag_down.set(Some(Drag {
            start: (x, y),
            last: (x, y),
            moved: false,
        }));
    };
    let drag_move = drag.clone();
    let on_move = move |ev: ev::PointerEvent| {
        let Some(d) = drag_move.get() else {
            return;
        };
        let (x, y) = (f64::from(ev.offset_x()), f64::from(ev.offset_y()));
        let moved = d.moved || (x - d.start.0).abs() + (y - d.start.1).abs() > 4.0;
        if moved && let Some(cam) = camera.get_untracked() {
            camera.set(Some(Camera {
                x: cam.x - (x - d.last.0) / cam.scale,
                y: cam.y - (y - d.last.1) / cam.scale,
                ..cam
            }));
        }
        drag_move.set(Some(Drag {
            last: (x, y),
            moved,
            ..d
        }));
    };
    let drag_up = drag.clone();
    let on_up = move |ev: ev::PointerEvent| {
        let Some(d) = drag_up.take() else {
            return;
        };
        if d.moved {
            return;
        }
        let (Some(cam), Some(g), Some(v)) = (
            camera.get_untracked(),
            gs.graph.get_untracked(),
            gs.view.get_untracked(),
        ) else {
            return;
        };
        let (wx, wy) = cam.to_world(f64::from(ev.offset_x()), f64::from(ev.offset_y()));
        click_at(state, &g.0, &v.0, wx as f32, wy as f32);
    };
    let on_wheel = move |ev: ev::WheelEvent| {
        ev.prevent_default();
        let Some(cam) = camera.get_untracked() else {
            return;
        };
        let factor = (-ev.delta_y() * 0.0015).exp();
        zoom_at(
            camera,
            cam,
            factor,
            f64::from(ev.offset_x()),
            f64::from(ev.offset_y()),
        );
    };
    let fit = move || {
        let Some(v) = gs.view.get_untracked() else {
            return;
        };
        let (w, h) = size();
        if let Some(all) = bounds(v.0.layout.nodes.iter().copied()) {
            camera.set(Some(Camera::fit(&all, w, h)));
        }
    };
    let zoom_button = move |factor: f64| {
        if let Some(cam) = camera.get_untracked() {
            let (w, h) = size();
            zoom_at(camera, cam, factor, w / 2.0, h / 2.0);
        }
    };
    let on_key = move |ev: ev::KeyboardEvent| {
        let Some(cam) = camera.get_untracked() else {
            return;
        };
        let step = 80.0 / cam.scale;
        let (w, h) = size();
        let moved = match ev.key().as_str() {
            "ArrowLeft" => Some(Camera {
                x: cam.x - step,
                ..cam
            }),
            "ArrowRight" => Some(Camera {
                x: cam.x + step,
                ..cam
            }),
            "ArrowUp" => Some(Camera {
                y: cam.y - step,
                ..cam
            }),
            "ArrowDown" => Some(Camera {
                y: cam.y + step,
                ..cam
            }),
            "+" | "=" => {
                zoom_at(camera, cam, 1.25, w / 2.0, h / 2.0);
                None
            }
            "-" | "_" => {
                zoom_at(camera, cam, 0.8, w / 2.0, h / 2.0);
                None
            }
            "0" | "f" => {
                fit();
                None
            }
            _ => return,
        };
        ev.prevent_default();
        // Keep the arrows from also moving the list cursor.
        ev.stop_propagation();
        if let Some(c) = moved {
            camera.set(Some(c));
        }
    };
    let on_minimap = move |ev: ev::PointerEvent| {
        if ev.buttons() == 0 && ev.type_() != "pointerdown" {
            return;
        }
        let (Some(v), Some(cam), Some(m)) = (
            gs.view.get_untracked(),
            camera.get_untracked(),
            minimap.get_untracked(),
        ) else {
            return;
        };
        let (mw, mh) = (f64::from(m.client_width()), f64::from(m.client_height()));
        let (s, ox, oy) = minimap_scale(&v.0, mw, mh);
        let wx = (f64::from(ev.offset_x()) - ox) / s;
        let wy = (f64::from(ev.offset_y()) - oy) / s;
        let (w, h) = size();
        camera.set(Some(Camera {
            x: wx - w / 2.0 / cam.scale,
            y: wy - h / 2.0 / cam.scale,
            ..cam
        }));
    };

    let export_svg = move |_| {
        let hl = highlight.get_untracked();
        if let Some((svg, name)) = hl.and_then(|hl| svg_for_export(state, &hl)) {
            download(&svg, "image/svg+xml", &format!("{name}.svg"));
        }
    };
    let export_png = move |_| {
        let hl = highlight.get_untracked();
        if let Some((svg, name)) = hl.and_then(|hl| svg_for_export(state, &hl)) {
            svg_to_png(svg, format!("{name}.png"));
        }
    };

    let toggle = move |sig: RwSignal<bool>| move |_| sig.update(|b| *b = !*b);
    let show_unchanged = move || gs.options.get().map(|o| o.show_unchanged).unwrap_or(false);

    view! {
        <div class="graph-tab">
            <section class="graph-main" aria-label="Dependency graph">
                <div class="graph-toolbar" role="toolbar" aria-label="Graph tools">
                    <input
                        type="search"
                        class="search graph-search"
                        data-testid="graph-search"
                        placeholder="Find in graph…"
                        aria-label="Find a resource in the graph"
                        prop:value=move || state.filter.with(|f| f.search.clone())
                        on:input=move |ev| {
                            let value = event_target_value(&ev);
                            state.filter.update(|f| f.search = value);
                        }
                    />
                    <button class="button" data-testid="graph-fit" title="Fit to screen (0)" on:click=move |_| fit()>"Fit"</button>
                    <button class="button" title="Zoom in (+)" aria-label="Zoom in" on:click=move |_| zoom_button(1.25)>"+"</button>
                    <button class="button" title="Zoom out (−)" aria-label="Zoom out" on:click=move |_| zoom_button(0.8)>"−"</button>
                    <span class="toolbar-sep"></span>
                    <button class="button" data-testid="graph-collapse-all" title="Draw every module as one node"
                        on:click=move |_| gs.update_options(|o| {
                            if let Some(g) = gs.graph.get_untracked() {
                                o.collapsed = (1..g.0.module_instances.len() as u32).collect();
                            }
                        })>"Collapse modules"</button>
                    <button class="button" data-testid="graph-expand-all" title="Show every module's resources"
                        on:click=move |_| gs.update_options(|o| o.collapsed.clear())>"Expand all"</button>
                    <label class="toggle">
                        <input type="checkbox" data-testid="graph-full"
                            prop:checked=show_unchanged
                            on:change=move |_| gs.update_options(|o| o.show_unchanged = !o.show_unchanged) />
                        " Full graph"
                    </label>
                    <span class="toolbar-sep"></span>
                    <label class="toggle" title="Also light what the selected resource depends on">
                        <input type="checkbox" data-testid="graph-upstream" prop:checked=move || gs.upstream.get() on:change=toggle(gs.upstream) />
                        " Depends on"
                    </label>
                    <label class="toggle danger" title="Light everything that depends on a delete, replace or forget">
                        <input type="checkbox" data-testid="graph-destructive" prop:checked=move || gs.destructive.get() on:change=toggle(gs.destructive) />
                        " Blast radius of destructive changes"
                    </label>
                    <span class="toolbar-sep"></span>
                    <button class="button" data-testid="graph-export-svg" on:click=export_svg>"Export SVG"</button>
                    <button class="button" data-testid="graph-export-png" on:click=export_png>"Export PNG"</button>
                </div>
                <EdgeNote />
                <div class="graph-stage">
                    <canvas
                        node_ref=canvas
                        class="graph-canvas"
                        data-testid="graph-canvas"
                        tabindex="0"
                        role="img"
                        aria-label="Dependency graph. Drag to pan, wheel or + and − to zoom, 0 to fit, arrows to move; click a node to select it."
                        on:pointerdown=on_down
                        on:pointermove=on_move
                        on:pointerup=on_up
                        on:wheel=on_wheel
                        on:keydown=on_key
                    ></canvas>
                    <canvas
                        node_ref=minimap
                        class="graph-minimap"
                        data-testid="graph-minimap"
                        aria-label="Overview: click to move there"
                        on:pointerdown=on_minimap
                        on:pointermove=on_minimap
                    ></canvas>
                    <Legend />
                </div>
                <GraphStatus highlight=highlight selected=selected_node />
            </section>
            <GraphSide />
        </div>
    }
}

fn zoom_at(camera: RwSignal<Option<Camera>>, cam: Camera, factor: f64, sx: f64, sy: f64) {
    let scale = (cam.scale * factor).clamp(0.02, 4.0);
    let (wx, wy) = cam.to_world(sx, sy);
    camera.set(Some(Camera {
        x: wx - sx / scale,
        y: wy - sy / scale,
        scale,
    }));
}

/// A click at a point of the layout.
fn click_at(state: AppState, g: &DepGraph, v: &View, x: f32, y: f32) {
    let gs = state.graph;
    if let Some(b) = v.hit(x, y) {
        match &v.nodes[b as usize].kind {
            ViewNodeKind::Resource(n) => match g.graph[*n].row {
                Some(row) => {
                    gs.state_only.set(None);
                    state.select(Some(row));
                }
                None => {
                    state.select(None);
                    gs.state_only.set(Some(n.index() as u32));
                }
            },
            ViewNodeKind::Module { module, .. } => {
                let m = *module;
                gs.update_options(|o| {
                    o.collapsed.remove(&m);
                });
            }
        }
    } else if let Some(m) = v.hit_cluster(x, y) {
        gs.update_options(|o| {
            o.collapsed.insert(m);
        });
    }
}

/// Says when edges may be missing.
#[component]
fn EdgeNote() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        let g = state.graph.graph.get()?;
        let text = match g.0.source {
            EdgeSource::Configuration => return None,
            EdgeSource::StateOnly => {
                "This plan has no configuration, so edges come only from the prior state's depends_on: they may be incomplete."
            }
            EdgeSource::Nothing => {
                "This plan has neither configuration nor prior state: no dependencies can be shown."
            }
        };
        Some(view! { <p class="graph-note" role="note" data-testid="graph-note">{text}</p> })
    }
}

/// Counts under the graph: what is drawn, what is folded, and the blast radius.
#[component]
fn GraphStatus(
    highlight: Memo<Option<Arc<Highlight>>>,
    selected: Memo<Option<NodeIndex>>,
) -> impl IntoView {
    let state = expect_context::<AppState>();
    let gs = state.graph;
    let text = move || {
        let g = gs.graph.get()?;
        let v = gs.view.get()?;
        let (g, v) = (&g.0, &v.0);
        let modules = v
            .nodes
            .iter()
            .filter(|n| matches!(n.kind, ViewNodeKind::Module { .. }))
            .count();
        // Instances are counted as the summary and the list count them (one per row); the
        // graph's other nodes are resources only in the prior state.
        let instances = state
            .loaded
            .with(|l| l.as_ref().map_or(0, |l| l.analysis.summary.instances));
        let state_only = g.graph.node_count().saturating_sub(instances);
        let mut parts = vec![count(instances, "resource instance", "resource instances")];
        if state_only > 0 {
            parts.push(format!("{state_only} only in the prior state"));
        }
        parts.push(count(g.graph.edge_count(), "dependency", "dependencies"));
        parts.push(format!("showing {}", count(v.nodes.len(), "node", "nodes")));
        if modules > 0 {
            parts.push(count(modules, "collapsed module", "collapsed modules"));
        }
        if v.hidden_unchanged > 0 {
            parts.push(format!("{} unchanged hidden", v.hidden_unchanged));
        }
        Some(parts.join(" · "))
    };
    let blast = move || {
        let h = highlight.get()?;
        let g = gs.graph.get()?;
        let mut parts = Vec::new();
        if let Some(n) = selected.get() {
            let address = crate::model::text::visible(&g.0.graph[n].address);
            parts.push(format!(
                "{address}: {} on it",
                count(h.dependents, "resource depends", "resources depend")
            ));
            if gs.upstream.get() {
                parts.push(format!("it depends on {}", h.dependencies));
            }
        }
        if gs.destructive.get() {
            parts.push(format!(
                "{}, {} on {}",
                count(h.destructive, "destructive change", "destructive changes"),
                count(
                    h.destructive_dependents,
                    "resource depends",
                    "resources depend"
                ),
                noun(h.destructive, "it", "them")
            ));
        }
        (!parts.is_empty()).then(|| parts.join(" · "))
    };
    view! {
        <p class="graph-status" data-testid="graph-status" aria-live="polite">
            <span data-testid="graph-counts">{text}</span>
            {move || blast().map(|b| view! { <span class="blast" data-testid="graph-blast">{b}</span> })}
        </p>
    }
}

/// The legend: action symbols and borders, and the marks.
#[component]
fn Legend() -> impl IntoView {
    let items = crate::graph::style::legend()
        .into_iter()
        .map(|(action, symbol, label)| {
            view! {
                <li>
                    <span class=format!("legend-swatch action-{}", action.key())>{if symbol.is_empty() { "=" } else { symbol }}</span>
                    {label}
                </li>
            }
        })
        .collect_view();
    let marks = crate::graph::style::MARKS
        .iter()
        .map(|(m, meaning)| view! { <li><span class="legend-mark">{*m}</span>{*meaning}</li> })
        .collect_view();
    view! {
        <details class="graph-legend">
            <summary>"Legend"</summary>
            <ul>
                {items}
                {marks}
                <li><span class="legend-flag sev-deny">"deny"</span>"a deny rule flags it"</li>
                <li><span class="legend-flag sev-warn">"warn"</span>"a warn rule flags it"</li>
            </ul>
            <p class="fine">"Arrows point from a dependency to what depends on it. Click a module to expand it, its title to collapse it."</p>
        </details>
    }
}

/// Beside the graph: the diff of the selected resource, or a note for a node only in state.
#[component]
fn GraphSide() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || match (state.graph.state_only.get(), state.graph.graph.get()) {
        (Some(n), Some(g)) => {
            let node = &g.0.graph[NodeIndex::new(n as usize)];
            let address = crate::model::text::visible(&node.address);
            view! {
                <aside class="diff-pane" data-testid="graph-state-only">
                    <h2 class="diff-address">{address}</h2>
                    <p>"Only in the prior state: the plan has no change for it. It is shown because other resources depend on it."</p>
                </aside>
            }
            .into_any()
        }
        _ => view! { <diff::DiffPanel /> }.into_any(),
    }
}

/// The current view as SVG, with a file name stem.
fn svg_for_export(state: AppState, highlight: &Highlight) -> Option<(String, String)> {
    let gs = state.graph;
    let g = gs.graph.get_untracked()?;
    let v = gs.view.get_untracked()?;
    let name = state
        .loaded
        .with_untracked(|l| l.as_ref().map(|l| l.doc.name.clone()))?;
    let stem = name.trim_end_matches(".json").to_string();
    let svg = view_to_svg(&g.0, &v.0, highlight, &format!("{name} — dependency graph"));
    Some((svg, format!("{stem}-graph")))
}

/// Saves text as a file through a temporary object URL.
pub(super) fn download(content: &str, mime: &str, file_name: &str) {
    let parts = js_sys::Array::of1(&JsValue::from_str(content));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return;
    };
    download_blob(&blob, file_name);
}

fn download_blob(blob: &web_sys::Blob, file_name: &str) {
    let Ok(url) = web_sys::Url::create_object_url_with_blob(blob) else {
        return;
    };
    if let Ok(a) = document().create_element("a")
        && let Ok(a) = a.dyn_into::<web_sys::HtmlAnchorElement>()
    {
        a.set_href(&url);
        a.set_download(file_name);
        a.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// Rasterises the SVG (through an image and a canvas, so the PNG matches the SVG) and saves it.
fn svg_to_png(svg: String, file_name: String) {
    let Ok(img) = web_sys::HtmlImageElement::new() else {
        return;
    };
    let src = format!(
        "data:image/svg+xml;charset=utf-8,{}",
        String::from(js_sys::encode_uri_component(&svg))
    );
    let image = img.clone();
    let onload = wasm_bindgen::closure::Closure::once_into_js(move || {
        let (w, h) = (
            f64::from(image.natural_width()),
            f64::from(image.natural_height()),
        );
        // Browsers refuse canvases much over 16k px a side or ~250 M px.
        let scale = 2.0f64
            .min(16000.0 / w.max(h))
            .min((2.0e8 / (w * h)).sqrt())
            .max(0.05);
        let Ok(Some(c)) = document()
            .create_element("canvas")
            .map(|c| c.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        else {
            return;
        };
        c.set_width((w * scale) as u32);
        c.set_height((h * scale) as u32);
        let Some(ctx) = context(&c) else { return };
        let _ = ctx.draw_image_with_html_image_element_and_dw_and_dh(
            &image,
            0.0,
            0.0,
            w * scale,
            h * scale,
        );
        let done =
            wasm_bindgen::closure::Closure::once_into_js(move |blob: Option<web_sys::Blob>| {
                if let Some(blob) = blob {
                    download_blob(&blob, &file_name);
                }
            });
        let _ = c.to_blob_with_type(done.unchecked_ref(), "image/png");
    });
    img.set_onload(Some(onload.unchecked_ref()));
    img.set_src(&src);
}

fn context(c: &web_sys::HtmlCanvasElement) -> Option<Ctx> {
    c.get_context("2d").ok().flatten()?.dyn_into::<Ctx>().ok()
}

/// Sizes a canvas's backing store to its CSS size at the device's pixel ratio.
fn prepare(c: &web_sys::HtmlCanvasElement) -> Option<(Ctx, f64, f64, f64)> {
    let (w, h) = (f64::from(c.client_width()), f64::from(c.client_height()));
    let dpr = window().device_pixel_ratio().max(1.0);
    let (bw, bh) = ((w * dpr).round() as u32, (h * dpr).round() as u32);
    if c.width() != bw || c.height() != bh {
        c.set_width(bw);
        c.set_height(bh);
    }
    let ctx = context(c)?;
    Some((ctx, w, h, dpr))
}

/// Zoom at which labels are comfortably readable; the first view never starts below it.
const READABLE_SCALE: f64 = 0.75;
/// Above this many edges, plain edges are left out when zoomed below [`DETAIL_FROM`].
const FOG_EDGES: usize = 4000;
/// Zoom below which labels are not drawn.
const LABELS_FROM: f64 = 0.45;
/// Zoom below which nodes are plain blocks and arrows are left out.
const DETAIL_FROM: f64 = 0.15;

fn draw(
    c: &web_sys::HtmlCanvasElement,
    g: &DepGraph,
    v: &View,
    hl: &Highlight,
    hits: Option<&[bool]>,
    findings: &[Option<RuleSeverity>],
    cam: Camera,
) {
    let Some((ctx, w, h, dpr)) = prepare(c) else {
        return;
    };
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, w, h);
    let s = cam.scale;
    let _ = ctx.set_transform(
        dpr * s,
        0.0,
        0.0,
        dpr * s,
        -cam.x * s * dpr,
        -cam.y * s * dpr,
    );
    // The visible part of the layout, in layout coordinates.
    let (x0, y0) = (cam.x as f32, cam.y as f32);
    let (x1, y1) = ((cam.x + w / s) as f32, (cam.y + h / s) as f32);
    let in_view = |r: &Rect| r.x <= x1 && r.x + r.w >= x0 && r.y <= y1 && r.y + r.h >= y0;
    let px = 1.0 / s; // one screen pixel in layout units

    for cl in &v.clusters {
        if !in_view(&cl.rect) {
            continue;
        }
        let r = &cl.rect;
        ctx.set_fill_style_str(colour::CLUSTER_FILL);
        ctx.fill_rect(r.x.into(), r.y.into(), r.w.into(), r.h.into());
        ctx.set_stroke_style_str(colour::CLUSTER_STROKE);
        ctx.set_line_width(px);
        ctx.stroke_rect(r.x.into(), r.y.into(), r.w.into(), r.h.into());
        if s >= LABELS_FROM * 0.7 {
            ctx.set_fill_style_str(colour::TEXT_FADED);
            ctx.set_font("11px system-ui, sans-serif");
            let path = crate::model::text::visible(&g.module_instances[cl.module as usize].path);
            let _ = ctx.fill_text(
                &format!("▾ {path}"),
                f64::from(r.x) + 8.0,
                f64::from(r.y) + 13.0,
            );
        }
    }

    // Edges: plain ones in one path, lit ones in another, drawn over them. Zoomed far out over a
    // big graph, plain edges are a grey fog that costs most of the frame: only lit ones are drawn.
    let plain_edges = s >= DETAIL_FROM || v.edges.len() <= FOG_EDGES;
    for hot in [false, true] {
        if !hot && !plain_edges {
            continue;
        }
        ctx.begin_path();
        let mut any = false;
        for (i, line) in v.layout.edges.iter().enumerate() {
            if hl.hot_edges.get(i).copied().unwrap_or(false) != hot || line.len() < 2 {
                continue;
            }
            let Some(bb) = bounds(line.iter().map(|&(x, y)| Rect {
                x,
                y,
                w: 0.0,
                h: 0.0,
            })) else {
                continue;
            };
            if !in_view(&bb) {
                continue;
            }
            any = true;
            ctx.move_to(line[0].0.into(), line[0].1.into());
            for &(x, y) in &line[1..] {
                ctx.line_to(x.into(), y.into());
            }
            if s >= DETAIL_FROM {
                arrow_head(&ctx, line);
            }
        }
        if any {
            ctx.set_stroke_style_str(if hot { colour::EDGE_HOT } else { colour::EDGE });
            ctx.set_line_width(if hot { 2.0 * px.max(1.0) } else { px.max(1.0) });
            ctx.stroke();
        }
    }

    let labels = s >= LABELS_FROM;
    let detail = s >= DETAIL_FROM;
    if !detail {
        // Zoomed far out: plain blocks, one path per colour (a few canvas calls instead of one
        // per node), rings kept so the selection and blast radius still show.
        let mut by_fill: Vec<(&str, Vec<&Rect>)> = Vec::new();
        for (i, (node, r)) in v.nodes.iter().zip(&v.layout.nodes).enumerate() {
            if !in_view(r) {
                continue;
            }
            let fill = if hl.selected == Some(i as u32) || hl.downstream[i] {
                colour::BLAST
            } else if hl.upstream[i] {
                colour::UPSTREAM
            } else if hits.is_some_and(|h| h[i]) {
                colour::MATCH
            } else {
                block_colour(g, node)
            };
            match by_fill.iter_mut().find(|(f, _)| *f == fill) {
                Some((_, rects)) => rects.push(r),
                None => by_fill.push((fill, vec![r])),
            }
        }
        for (fill, rects) in by_fill {
            ctx.begin_path();
            for r in rects {
                ctx.rect(r.x.into(), r.y.into(), r.w.into(), r.h.into());
            }
            ctx.set_fill_style_str(fill);
            ctx.fill();
        }
        return;
    }
    ctx.set_font("12px system-ui, sans-serif");
    for (i, (node, r)) in v.nodes.iter().zip(&v.layout.nodes).enumerate() {
        if !in_view(r) {
            continue;
        }
        let (x, y, rw, rh) = (
            f64::from(r.x),
            f64::from(r.y),
            f64::from(r.w),
            f64::from(r.h),
        );
        let ring = if hl.selected == Some(i as u32) {
            Some(colour::SELECTED)
        } else if hl.downstream[i] {
            Some(colour::BLAST)
        } else if hl.upstream[i] {
            Some(colour::UPSTREAM)
        } else if hits.is_some_and(|h| h[i]) {
            Some(colour::MATCH)
        } else {
            None
        };
        if let Some(ring) = ring {
            ctx.set_stroke_style_str(ring);
            ctx.set_line_width(3.0 * px.max(1.0));
            let _ = ctx.set_line_dash(&js_sys::Array::new());
            let gap = 4.0 * px.max(1.0);
            ctx.stroke_rect(x - gap, y - gap, rw + 2.0 * gap, rh + 2.0 * gap);
        }
        ctx.set_global_alpha(if node.context_only { 0.5 } else { 1.0 });
        match &node.kind {
            ViewNodeKind::Resource(n) => {
                let dep = &g.graph[*n];
                let st = node_style(dep.action);
                ctx.set_fill_style_str(st.fill);
                ctx.fill_rect(x, y, rw, rh);
                ctx.set_stroke_style_str(st.stroke);
                ctx.set_line_width(f64::from(st.border));
                let dash = js_sys::Array::new();
                for d in st.dash {
                    dash.push(&JsValue::from_f64(f64::from(*d)));
                }
                let _ = ctx.set_line_dash(&dash);
                ctx.stroke_rect(x, y, rw, rh);
                let _ = ctx.set_line_dash(&js_sys::Array::new());

                // A guardrail finding: a flag on the top-right corner (node index = row index).
                let flag = match findings.get(n.index()).copied().flatten() {
                    Some(RuleSeverity::Deny) => Some((colour::FINDING_DENY, "deny")),
                    Some(RuleSeverity::Warn) => Some((colour::FINDING_WARN, "warn")),
                    _ => None,
                };
                if let Some((fill, text)) = flag {
                    let (fw, fh) = (34.0, 14.0);
                    ctx.set_fill_style_str(fill);
                    ctx.fill_rect(x + rw - fw - 4.0, y - fh / 2.0, fw, fh);
                    if labels {
                        ctx.set_fill_style_str("#ffffff");
                        ctx.set_font("bold 10px system-ui, sans-serif");
                        let _ = ctx.fill_text(text, x + rw - fw + 1.0, y + 3.5);
                    }
                }
                if labels {
                    let prefix =
                        node_prefix(dep.action, dep.is_import, dep.is_move, dep.is_drifted);
                    ctx.set_fill_style_str(st.stroke);
                    ctx.set_font("bold 12px system-ui, sans-serif");
                    let _ = ctx.fill_text(&prefix, x + 8.0, y + rh / 2.0 + 4.0);
                    let pw = ctx.measure_text(&prefix).map(|m| m.width()).unwrap_or(12.0);
                    ctx.set_font("12px system-ui, sans-serif");
                    ctx.set_fill_style_str(colour::TEXT);
                    let label = crate::model::text::visible(&node.label);
                    let _ = ctx.fill_text(&label, x + 14.0 + pw, y + rh / 2.0 + 4.0);
                }
            }
            ViewNodeKind::Module { mix, .. } => {
                ctx.set_fill_style_str("#eef1f6");
                ctx.fill_rect(x, y, rw, rh);
                let destructive = mix.is_destructive();
                ctx.set_stroke_style_str(if destructive { "#b42318" } else { "#475467" });
                ctx.set_line_width(if destructive { 3.0 } else { 1.5 });
                ctx.stroke_rect(x, y, rw, rh);
                if labels {
                    ctx.set_fill_style_str(colour::TEXT);
                    ctx.set_font("bold 12px system-ui, sans-serif");
                    let label = crate::model::text::visible(&node.label);
                    let _ = ctx.fill_text(&format!("▸ {label}"), x + 8.0, y + 16.0);
                    ctx.set_font("11px system-ui, sans-serif");
                    let mut sx = x + 8.0;
                    for (key, text) in mix.segments() {
                        let tw = ctx.measure_text(&text).map(|m| m.width()).unwrap_or(20.0) + 8.0;
                        ctx.set_fill_style_str(segment_fill(key));
                        ctx.fill_rect(sx, y + 24.0, tw, 15.0);
                        ctx.set_fill_style_str("#ffffff");
                        let _ = ctx.fill_text(&text, sx + 4.0, y + 35.5);
                        sx += tw + 3.0;
                    }
                    ctx.set_font("12px system-ui, sans-serif");
                }
            }
        }
        ctx.set_global_alpha(1.0);
    }
}

fn arrow_head(ctx: &Ctx, line: &[(f32, f32)]) {
    let Some([(lx, ly), (tx, ty), (rx, ry)]) = crate::graph::style::arrow_head(line) else {
        return;
    };
    ctx.move_to(f64::from(lx), f64::from(ly));
    ctx.line_to(f64::from(tx), f64::from(ty));
    ctx.line_to(f64::from(rx), f64::from(ry));
    ctx.move_to(f64::from(tx), f64::from(ty));
}

/// The colour of a box drawn as a plain block (zoomed far out, and in the minimap): its action's.
fn block_colour(g: &DepGraph, node: &crate::graph::view::ViewNode) -> &'static str {
    match &node.kind {
        ViewNodeKind::Resource(n) => node_style(g.graph[*n].action).stroke,
        ViewNodeKind::Module { mix, .. } if mix.is_destructive() => "#b42318",
        ViewNodeKind::Module { .. } => "#475467",
    }
}

/// Scale and offset that fit the whole layout into the minimap.
fn minimap_scale(v: &View, mw: f64, mh: f64) -> (f64, f64, f64) {
    let (lw, lh) = (
        f64::from(v.layout.width).max(1.0),
        f64::from(v.layout.height).max(1.0),
    );
    let s = ((mw - 8.0) / lw).min((mh - 8.0) / lh);
    (s, (mw - lw * s) / 2.0, (mh - lh * s) / 2.0)
}

fn draw_minimap(
    c: &web_sys::HtmlCanvasElement,
    g: &DepGraph,
    v: &View,
    hl: &Highlight,
    cam: Camera,
    (w, h): (f64, f64),
) {
    let Some((ctx, mw, mh, dpr)) = prepare(c) else {
        return;
    };
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, mw, mh);
    let (s, ox, oy) = minimap_scale(v, mw, mh);
    for (i, (node, r)) in v.nodes.iter().zip(&v.layout.nodes).enumerate() {
        let fill = if hl.downstream[i] || hl.selected == Some(i as u32) {
            colour::BLAST
        } else {
            block_colour(g, node)
        };
        ctx.set_fill_style_str(fill);
        ctx.fill_rect(
            ox + f64::from(r.x) * s,
            oy + f64::from(r.y) * s,
            (f64::from(r.w) * s).max(1.5),
            (f64::from(r.h) * s).max(1.5),
        );
    }
    ctx.set_stroke_style_str(colour::SELECTED);
    ctx.set_line_width(1.5);
    ctx.stroke_rect(
        ox + cam.x * s,
        oy + cam.y * s,
        w / cam.scale * s,
        h / cam.scale * s,
    );
}
