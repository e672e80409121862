//! The Graph tab: the dependency graph on a canvas (pan, zoom, fit, minimap; pinch and one-finger
//! pan on touch screens), module clusters that collapse and expand, blast radius highlights,
//! search that counts and steps through its matches, and SVG/PNG export, in the page's theme. The
//! core builds, folds, searches and lays out the graph (`crate::graph`); this file wires the tab
//! together: its memos, the effects that move the camera and draw, and the pointer and key events
//! on the canvas.
//!
//! The other jobs are in their own files: view state (`state`), canvas drawing (`canvas`), the
//! HTML around the canvas (`toolbar`) and export (`export`).
//!
//! The click on a node is handled here too.

mod canvas;
mod export;
mod state;
mod toolbar;

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

use leptos::ev;
use leptos::html;
use leptos::prelude::*;
use petgraph::graph::NodeIndex;
use wasm_bindgen::JsCast;

use super::AppState;
use super::timing::measure;
use crate::graph::DepGraph;
use crate::graph::camera::{self, Camera, bounds};
use crate::graph::style::Palette;
use crate::graph::view::{HighlightOptions, View, ViewNodeKind};
use canvas::{Scene, draw, draw_minimap, minimap_scale, page_theme, place_minimap};
use state::{Framing, Gesture};
use toolbar::{EdgeNote, FetchNote, GraphSide, GraphStatus, GraphToolbar, Legend, SearchBar};

pub(super) use export::download;
pub use state::GraphState;

/// At most this many search matches open the modules that hide them as the search is typed;
/// more are opened one by one as the search steps to them.
const REVEAL_AT_ONCE: usize = 40;

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
    let theme = follow_theme();
    // On a phone, the detail sheet over the graph is open.
    let sheet = RwSignal::new(false);
    // The session builds the graph when the tab first needs it (and for each plan opened while
    // the tab is shown).
    Effect::new(move |_| gs.ask());

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
    // The resources that match the search, in plan order.
    let found = Memo::new(move |_| {
        let g = gs.graph.get();
        state.filter.with(|f| match g {
            Some(g) => Arc::new(g.0.search(&f.search)),
            None => Arc::new(Vec::new()),
        })
    });
    // Boxes that show a match.
    let matches = Memo::new(move |_| {
        let found = found.get();
        let v = gs.view.get()?;
        if found.is_empty() {
            return None;
        }
        let mut hit = vec![false; v.0.nodes.len()];
        for n in found.iter() {
            if let Some(b) = v.0.node_of[n.index()] {
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

    // The canvas as the camera frames on it: its CSS size, less the legend over its corner.
    let free_canvas = move || {
        let (w, h) = size();
        let mut free = camera::Canvas::new(w, h);
        if let Some(c) = canvas.try_get_untracked().flatten() {
            let (covered_top, covered_left) = legend_cover(&c);
            // Below a closed legend (wide and short), or right of an open one (tall).
            if covered_top > 0.0 && covered_top <= covered_left {
                free.top = covered_top;
            } else {
                free.left = covered_left;
            }
        }
        free
    };
    // How the tab frames the drawing by itself: the opening view, or Fit. Remembered with the
    // camera it gave, so a resize frames it again while the user has not moved it.
    let frame = move |framing: Framing, v: &View| {
        let free = free_canvas();
        let cam = match framing {
            Framing::Opening => {
                // A partial view shows the minimap: the changes are framed clear of its strip.
                let overview = minimap
                    .try_get_untracked()
                    .flatten()
                    .map_or(0.0, |m| f64::from(m.offset_height()) + 12.0);
                Camera::opening(&v.drawing(), &v.changed_boxes(), &free, overview)
            }
            Framing::Fit => Camera::fit(&v.drawing(), &free),
        };
        gs.framed.set_value(Some((framing, cam)));
        camera.set(Some(cam));
    };
    // A new plan (the camera was reset): frame it. Folding keeps the camera where the user put it.
    Effect::new(move |_| {
        if camera.with(Option::is_some) {
            return;
        }
        let Some(v) = gs.view.get() else { return };
        frame(Framing::Opening, &v.0);
    });
    // The canvas changed size: a framing the user has not moved from is made again for it.
    Effect::new(move |_| {
        resized.track();
        let Some((framing, cam)) = gs.framed.get_value() else {
            return;
        };
        if camera.get_untracked() != Some(cam) {
            gs.framed.set_value(None);
            return;
        }
        if let Some(v) = gs.view.get_untracked() {
            frame(framing, &v.0);
        }
    });
    // A search opens the modules hiding its matches (when they are few) and frames them.
    Effect::new(move |_| {
        let found = found.get();
        if found.is_empty() {
            return;
        }
        if found.len() <= REVEAL_AT_ONCE {
            gs.reveal(&found);
        }
        let Some(v) = gs.view.get_untracked() else {
            return;
        };
        let boxes = found.iter().filter_map(|n| v.0.node_of[n.index()]);
        if let Some(r) = bounds(boxes.map(|b| v.0.layout.nodes[b as usize])) {
            camera.set(Some(Camera::fit(&r, &free_canvas())));
        }
    });
    // Selecting in the list, by the URL or by stepping through the search opens what hides the
    // resource and centres the graph on it. Only a new selection (or plan) moves the camera:
    // folding later leaves it where the user put it.
    Effect::new(move |_| {
        let Some(node) = selected_node.get() else {
            return;
        };
        gs.graph.track();
        gs.reveal(&[node]);
        let Some(v) = gs.view.get_untracked() else {
            return;
        };
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
        let since = state.since_marks.get();
        let palette = Palette::of(theme.get());
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
            let scene = Scene {
                g: &g.0,
                v: &v.0,
                hl: &hl,
                hits: hits.as_deref().map(|h| h.as_slice()),
                findings: findings.as_ref().map_or(&[][..], |f| f.0.worst.as_slice()),
                since: (!since.is_empty()).then_some(&*since),
                cam,
                palette,
            };
            draw(&c, &scene);
            // How many boxes of the view carry a mark since the last plan (tests read it).
            let marked = (v.0.nodes.iter())
                .filter(|n| match n.kind {
                    ViewNodeKind::Resource(r) => since.contains_key(&g.0.graph[r].address),
                    ViewNodeKind::Module { .. } => false,
                })
                .count();
            let _ = c.set_attribute("data-since-marked", &marked.to_string());
            // Where the drawing is on screen, the zoom, and how many of the changed boxes are
            // wholly in view: for tools and tests (a canvas has no DOM to look into).
            let drawing = cam.to_screen(&v.0.drawing());
            let changed = v.0.changed_boxes();
            let shown = cam.count_shown(&changed, &camera::Canvas::new(size().0, size().1));
            for (name, value) in [
                ("data-scale", format!("{:.3}", cam.scale)),
                (
                    "data-drawing-box",
                    format!(
                        "{:.0} {:.0} {:.0} {:.0}",
                        drawing.x, drawing.y, drawing.w, drawing.h
                    ),
                ),
                ("data-changes-shown", format!("{shown} {}", changed.len())),
            ] {
                let _ = c.set_attribute(name, &value);
            }
            // Where the selection is on screen: the minimap keeps clear of it, and tools (and
            // tests) can find it.
            let selection = hl
                .selected
                .map(|b| cam.to_screen(&v.0.layout.nodes[b as usize]));
            match &selection {
                Some(r) => {
                    let _ = c.set_attribute(
                        "data-selection-box",
                        &format!("{:.0} {:.0} {:.0} {:.0}", r.x, r.y, r.w, r.h),
                    );
                }
                None => {
                    let _ = c.remove_attribute("data-selection-box");
                }
            }
            if let Some(m) = minimap.try_get_untracked().flatten() {
                let (w, h) = size();
                let all_in_view = cam.shows(&v.0.drawing(), &camera::Canvas::new(w, h));
                place_minimap(&m, (w, h), selection.as_ref(), all_in_view);
                draw_minimap(&m, &scene, size());
            }
            if first_frame.replace(false) {
                measure("planlens:graph", "planlens:open-start");
            }
        });
    });
    watch_size(canvas, resized);

    // Steps through the search's matches in plan order (from the selection when it is one):
    // selects the next (`delta` > 0) or previous one, which opens what hides it and centres it.
    let step = move |delta: i64| {
        let found = found.get_untracked();
        let Some(g) = gs.graph.get_untracked() else {
            return;
        };
        let Some(last) = found.len().checked_sub(1) else {
            return;
        };
        let at = selected_node
            .get_untracked()
            .and_then(|n| found.iter().position(|m| *m == n));
        let next = match at {
            Some(i) => (i as i64 + delta).rem_euclid(found.len() as i64) as usize,
            None if delta > 0 => 0,
            None => last,
        };
        select_node(state, &g.0, found[next]);
    };

    // Pointers: one drags (pans) or clicks (selects a node, expands a collapsed module or
    // collapses an expanded one by its title), two pinch to zoom. Hovering a box puts its whole
    // address in the canvas's tooltip.
    let gesture: Rc<RefCell<Gesture>> = Rc::new(RefCell::new(Gesture::default()));
    let hovered: Rc<Cell<Option<u32>>> = Rc::new(Cell::new(None));
    let at = |ev: &ev::PointerEvent| (f64::from(ev.offset_x()), f64::from(ev.offset_y()));
    let gesture_down = gesture.clone();
    let on_down = move |ev: ev::PointerEvent| {
        if ev.button() != 0 {
            return;
        }
        if let Some(c) = canvas.get_untracked() {
            let _ = c.set_pointer_capture(ev.pointer_id());
            let _ = c.focus();
        }
        gesture_down
            .borrow_mut()
            .down(ev.pointer_id(), at(&ev), camera.get_untracked());
    };
    let gesture_move = gesture.clone();
    let on_move = move |ev: ev::PointerEvent| {
        if !gesture_move.borrow().active() {
            show_title(canvas, gs, &hovered, at(&ev));
            return;
        }
        let Some(cam) = camera.get_untracked() else {
            return;
        };
        let moved = gesture_move
            .borrow_mut()
            .moved(ev.pointer_id(), at(&ev), cam);
        if let Some(cam) = moved {
            camera.set(Some(cam));
        }
    };
    let gesture_up = gesture.clone();
    let on_up = move |ev: ev::PointerEvent| {
        // The browser may fold the last move into the lift: apply where the pointer ended.
        if let Some(cam) = camera.get_untracked()
            && let Some(cam) = gesture_up.borrow_mut().moved(ev.pointer_id(), at(&ev), cam)
        {
            camera.set(Some(cam));
        }
        if !gesture_up.borrow_mut().up(ev.pointer_id()) {
            return;
        }
        let (Some(cam), Some(g), Some(v)) = (
            camera.get_untracked(),
            gs.graph.get_untracked(),
            gs.view.get_untracked(),
        ) else {
            return;
        };
        let (x, y) = at(&ev);
        let (wx, wy) = cam.to_world(x, y);
        if click_at(state, &g.0, &v.0, wx as f32, wy as f32) {
            sheet.set(true);
        }
    };
    let on_cancel = move |ev: ev::PointerEvent| {
        gesture.borrow_mut().up(ev.pointer_id());
    };
    let on_wheel = move |ev: ev::WheelEvent| {
        ev.prevent_default();
        let Some(cam) = camera.get_untracked() else {
            return;
        };
        let factor = (-ev.delta_y() * 0.0015).exp();
        camera.set(Some(cam.zoom_at(
            factor,
            f64::from(ev.offset_x()),
            f64::from(ev.offset_y()),
        )));
    };
    // The whole drawing in the canvas, however small that makes it.
    let fit = move || {
        if let Some(v) = gs.view.get_untracked() {
            frame(Framing::Fit, &v.0);
        }
    };
    let zoom_button = move |factor: f64| {
        if let Some(cam) = camera.get_untracked() {
            let (w, h) = size();
            camera.set(Some(cam.zoom_at(factor, w / 2.0, h / 2.0)));
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
            "+" | "=" => Some(cam.zoom_at(1.25, w / 2.0, h / 2.0)),
            "-" | "_" => Some(cam.zoom_at(0.8, w / 2.0, h / 2.0)),
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

    view! {
        <div class="graph-tab">
            <section class="graph-main" aria-label="Dependency graph">
                <GraphToolbar highlight=highlight fit=fit zoom_button=zoom_button>
                    <SearchBar found=found selected=selected_node step=step />
                </GraphToolbar>
                <FetchNote />
                <EdgeNote />
                <div class="graph-stage">
                    <canvas
                        node_ref=canvas
                        class="graph-canvas"
                        data-testid="graph-canvas"
                        tabindex="0"
                        role="img"
                        aria-label="Dependency graph. Drag to pan, wheel, pinch or + and − to zoom, 0 to fit, arrows to move; click a node to select it."
                        on:pointerdown=on_down
                        on:pointermove=on_move
                        on:pointerup=on_up
                        on:pointercancel=on_cancel
                        on:wheel=on_wheel
                        on:keydown=on_key
                    ></canvas>
                    <canvas
                        node_ref=minimap
                        class="graph-minimap"
                        // Nothing to overview while the session builds the graph.
                        class:graph-minimap-empty=move || gs.view.with(Option::is_none)
                        data-testid="graph-minimap"
                        data-corner="bottom-right"
                        aria-label="Overview: click to move there"
                        on:pointerdown=on_minimap
                        on:pointermove=on_minimap
                    ></canvas>
                    <Legend theme=theme />
                </div>
                <GraphStatus highlight=highlight selected=selected_node />
            </section>
            <GraphSide open=sheet />
        </div>
    }
}

/// How far the legend (over the canvas's top-left corner) reaches down and right into the
/// canvas, in CSS pixels; (0, 0) when it is not shown. Both sit at the top-left of the stage
/// (its positioned box), so the legend's offsets are its place on the canvas.
fn legend_cover(c: &web_sys::HtmlCanvasElement) -> (f64, f64) {
    let Some(legend) = c
        .parent_element()
        .and_then(|stage| stage.query_selector(".graph-legend").ok().flatten())
        .and_then(|l| l.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return (0.0, 0.0);
    };
    if legend.offset_width() <= 0 {
        return (0.0, 0.0);
    }
    (
        f64::from(legend.offset_top() + legend.offset_height() - c.offset_top()),
        f64::from(legend.offset_left() + legend.offset_width() - c.offset_left()),
    )
}

/// Bumps `resized` whenever the canvas changes size: with the window, and when the page around it
/// changes (a note, the search's second row or the tools behind More on a phone), so the picture
/// is redrawn at its new size instead of stretched.
fn watch_size(canvas: NodeRef<html::Canvas>, resized: RwSignal<u32>) {
    let on_resize = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
        resized.try_update(|n| *n += 1);
    });
    let Ok(observer) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()) else {
        return;
    };
    let watched = StoredValue::new_local((observer, on_resize));
    Effect::new(move |_| {
        if let Some(c) = canvas.get() {
            watched.with_value(|(observer, _)| observer.observe(&c));
        }
    });
    // Cleanups run before the panel's values are dropped, so the observer stops first.
    on_cleanup(move || watched.with_value(|(observer, _)| observer.disconnect()));
}

/// The page's theme, kept up to date when the system's colour scheme changes.
fn follow_theme() -> RwSignal<crate::graph::style::Theme> {
    let theme = RwSignal::new(page_theme());
    let Ok(Some(query)) = window().match_media("(prefers-color-scheme: dark)") else {
        return theme;
    };
    let on_change = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
        theme.set(page_theme());
    });
    let _ = query.add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref());
    // Cleanups run before the panel's values are dropped, so the listener goes first.
    let listener = StoredValue::new_local((query, on_change));
    on_cleanup(move || {
        listener.with_value(|(query, on_change)| {
            let _ = query
                .remove_event_listener_with_callback("change", on_change.as_ref().unchecked_ref());
        });
    });
    theme
}

/// Puts the whole address of the box under the pointer in the canvas's tooltip (labels are
/// shortened to their ends).
fn show_title(
    canvas: NodeRef<html::Canvas>,
    gs: GraphState,
    hovered: &Cell<Option<u32>>,
    (x, y): (f64, f64),
) {
    let (Some(c), Some(cam), Some(g), Some(v)) = (
        canvas.get_untracked(),
        gs.camera.get_untracked(),
        gs.graph.get_untracked(),
        gs.view.get_untracked(),
    ) else {
        return;
    };
    let (wx, wy) = cam.to_world(x, y);
    let b = v.0.hit(wx as f32, wy as f32);
    if hovered.replace(b) == b {
        return;
    }
    let title = b.map(|b| match &v.0.nodes[b as usize].kind {
        ViewNodeKind::Resource(n) => crate::model::text::visible(&g.0.graph[*n].address),
        ViewNodeKind::Module { module, .. } => {
            crate::model::text::visible(&g.0.module_instances[*module as usize].path)
        }
    });
    match title {
        Some(t) => {
            let _ = c.set_attribute("title", &t);
        }
        None => {
            let _ = c.remove_attribute("title");
        }
    }
}

/// Selects a node of the graph: its row (the list and URL follow), or a resource only in the
/// prior state.
fn select_node(state: AppState, g: &DepGraph, n: NodeIndex) {
    match g.graph[n].row {
        Some(row) => {
            state.graph.state_only.set(None);
            state.select(Some(row));
        }
        None => {
            state.select(None);
            state.graph.state_only.set(Some(n.index() as u32));
        }
    }
}

/// A click at a point of the layout; true when it selected a resource.
fn click_at(state: AppState, g: &DepGraph, v: &View, x: f32, y: f32) -> bool {
    let gs = state.graph;
    if let Some(b) = v.hit(x, y) {
        match &v.nodes[b as usize].kind {
            ViewNodeKind::Resource(n) => {
                select_node(state, g, *n);
                return true;
            }
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
    false
}
