//! The Graph tab: the dependency graph on a canvas (pan, zoom, fit, minimap), module clusters that
//! collapse and expand, blast radius highlights and SVG/PNG export. The core builds, folds and lays
//! out the graph (`crate::graph`); this file wires the tab together: its memos, the effects that
//! move the camera and draw, and the pointer and key events on the canvas.
//!
//! The other jobs are in their own files: view state (`state`), canvas drawing (`canvas`), the
//! HTML around the canvas (`toolbar`) and export (`export`).

mod canvas;
mod export;
mod state;
mod toolbar;

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::ev;
use leptos::html;
use leptos::prelude::*;
use petgraph::graph::NodeIndex;

use super::AppState;
use super::timing::measure;
use crate::graph::DepGraph;
use crate::graph::view::{HighlightOptions, View, ViewNodeKind};
use crate::list::contains_ignore_case;
use canvas::{draw, draw_minimap, minimap_scale};
use state::{Camera, Drag, bounds, zoom_at};
use toolbar::{EdgeNote, GraphSide, GraphStatus, GraphToolbar, Legend};

pub(super) use export::download;
pub use state::GraphState;

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

    view! {
        <div class="graph-tab">
            <section class="graph-main" aria-label="Dependency graph">
                <GraphToolbar highlight=highlight fit=fit zoom_button=zoom_button />
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
