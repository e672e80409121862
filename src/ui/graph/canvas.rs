//! The Graph tab's canvas drawing: the view through the camera with culling and level of detail,
//! and the minimap, in the page's theme. Pixels only; the colours, borders and symbols come from
//! `crate::graph::style`.
//!
//! Only what is in view is drawn: labels from 45 % zoom (`camera::LABELS_FROM`), plain blocks below
//! 15 %. The minimap takes the first corner where it does not cover the selection.

use leptos::prelude::{document, window};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::CanvasRenderingContext2d as Ctx;

use crate::graph::DepGraph;
use crate::graph::camera::{Camera, LABELS_FROM, bounds};
use crate::graph::layout::Rect;
use crate::graph::style::{Lit, Palette, Ring, Theme, node_prefix, since_badge};
use crate::graph::view::{Highlight, View, ViewNodeKind};
use crate::rules::RuleSeverity;

/// The page's colour scheme, as CSS decided it (`color-scheme` on the root element follows
/// `prefers-color-scheme`, and any theme switch that sets it).
pub(super) fn page_theme() -> Theme {
    let dark = document()
        .document_element()
        .and_then(|root| window().get_computed_style(&root).ok().flatten())
        .and_then(|style| style.get_property_value("color-scheme").ok())
        .is_some_and(|scheme| scheme.trim() == "dark");
    if dark { Theme::Dark } else { Theme::Light }
}

pub(super) fn context(c: &web_sys::HtmlCanvasElement) -> Option<Ctx> {
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

/// Above this many edges, plain edges are left out when zoomed below [`DETAIL_FROM`].
const FOG_EDGES: usize = 4000;
/// Zoom below which nodes are plain blocks and arrows are left out.
const DETAIL_FROM: f64 = 0.15;

/// Everything one frame draws: the graph and its folded view, what is lit, the search's boxes,
/// each resource's worst finding (by row), what changed since the last plan (by address, while a
/// comparison is open), the camera and the theme's palette.
pub(super) struct Scene<'a> {
    pub(super) g: &'a DepGraph,
    pub(super) v: &'a View,
    pub(super) hl: &'a Highlight,
    pub(super) hits: Option<&'a [bool]>,
    pub(super) findings: &'a [Option<RuleSeverity>],
    pub(super) since: Option<&'a std::collections::HashMap<String, crate::model::since::SinceMark>>,
    pub(super) cam: Camera,
    pub(super) palette: &'a Palette,
}

pub(super) fn draw(c: &web_sys::HtmlCanvasElement, scene: &Scene) {
    let Scene {
        g,
        v,
        hl,
        hits,
        findings,
        since,
        cam,
        palette: p,
    } = *scene;
    let Some((ctx, w, h, dpr)) = prepare(c) else {
        return;
    };
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.set_fill_style_str(p.background);
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
        ctx.set_fill_style_str(p.cluster_fill);
        ctx.fill_rect(r.x.into(), r.y.into(), r.w.into(), r.h.into());
        ctx.set_stroke_style_str(p.cluster_stroke);
        ctx.set_line_width(px);
        ctx.stroke_rect(r.x.into(), r.y.into(), r.w.into(), r.h.into());
        if s >= LABELS_FROM * 0.7 {
            ctx.set_fill_style_str(p.text_faded);
            ctx.set_font("11px system-ui, sans-serif");
            let path = crate::model::text::visible(&g.module_instances[cl.module as usize].path);
            let _ = ctx.fill_text(
                &format!("▾ {path}"),
                f64::from(r.x) + 8.0,
                f64::from(r.y) + 13.0,
            );
        }
    }

    // Edges: plain ones in one path, lit ones in one path per colour, drawn over them. Zoomed far
    // out over a big graph, plain edges are a grey fog that costs most of the frame: only lit
    // ones are drawn. Lit edges lead to the blast radius or, in their own colour, to what the
    // selection depends on.
    let plain_edges = s >= DETAIL_FROM || v.edges.len() <= FOG_EDGES;
    let kind = |i: usize| match (hl.hot_edges.get(i), hl.upstream_edges.get(i)) {
        (Some(true), Some(true)) => 2,
        (Some(true), _) => 1,
        _ => 0,
    };
    for pass in 0..3 {
        if pass == 0 && !plain_edges {
            continue;
        }
        ctx.begin_path();
        let mut any = false;
        for (i, line) in v.layout.edges.iter().enumerate() {
            if kind(i) != pass || line.len() < 2 {
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
            let colour = match pass {
                0 => p.edge,
                1 => p.dependent,
                _ => p.dependency,
            };
            ctx.set_stroke_style_str(colour);
            ctx.set_line_width(if pass > 0 {
                2.0 * px.max(1.0)
            } else {
                px.max(1.0)
            });
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
            let fill = match ring_of(hl, hits, i) {
                Some(lit) => p.ring(lit).colour,
                None if hits.is_some_and(|h| h[i]) => p.matched,
                None => block_colour(g, node, p),
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
        // The search halo goes under the box, the other ring around it.
        if hits.is_some_and(|h| h[i]) {
            stroke_ring(&ctx, &p.ring(Lit::Match), (x, y, rw, rh), px);
        }
        if let Some(lit) = ring_of(hl, None, i) {
            stroke_ring(&ctx, &p.ring(lit), (x, y, rw, rh), px);
        }
        ctx.set_global_alpha(if node.context_only { 0.5 } else { 1.0 });
        match &node.kind {
            ViewNodeKind::Resource(n) => {
                let dep = &g.graph[*n];
                let st = p.node(dep.action);
                ctx.set_fill_style_str(st.fill);
                ctx.fill_rect(x, y, rw, rh);
                ctx.set_stroke_style_str(st.stroke);
                ctx.set_line_width(f64::from(st.border));
                set_dash(&ctx, st.dash);
                ctx.stroke_rect(x, y, rw, rh);
                set_dash(&ctx, &[]);

                // A guardrail finding: a flag on the top-right corner (node index = row index),
                // filled for deny, outlined for warn, saying which.
                let flag = match findings.get(n.index()).copied().flatten() {
                    Some(RuleSeverity::Deny) => Some((p.flag(true), "deny")),
                    Some(RuleSeverity::Warn) => Some((p.flag(false), "warn")),
                    _ => None,
                };
                if let Some(((fill, stroke, ink), text)) = flag {
                    let (fw, fh) = (34.0, 14.0);
                    let (fx, fy) = (x + rw - fw - 4.0, y - fh / 2.0);
                    ctx.set_fill_style_str(fill);
                    ctx.fill_rect(fx, fy, fw, fh);
                    ctx.set_stroke_style_str(stroke);
                    ctx.set_line_width(1.5);
                    ctx.stroke_rect(fx, fy, fw, fh);
                    if labels {
                        ctx.set_fill_style_str(ink);
                        ctx.set_font("bold 10px system-ui, sans-serif");
                        let _ = ctx.fill_text(text, fx + 5.0, y + 3.5);
                    }
                }
                // What changed since the last plan: a badge on the top-left corner, saying which.
                if let Some(mark) = since.and_then(|m| m.get(&dep.address)) {
                    let (word, bw) = since_badge(*mark);
                    let (bx, by) = (x + 4.0, y - 7.0);
                    ctx.set_fill_style_str(p.since);
                    ctx.fill_rect(bx, by, f64::from(bw), 14.0);
                    if labels {
                        ctx.set_fill_style_str(p.on_fill);
                        ctx.set_font("bold 10px system-ui, sans-serif");
                        let _ = ctx.fill_text(word, bx + 5.0, y + 3.5);
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
                    ctx.set_fill_style_str(p.text);
                    let label = crate::model::text::visible(&node.label);
                    let _ = ctx.fill_text(&label, x + 14.0 + pw, y + rh / 2.0 + 4.0);
                }
            }
            ViewNodeKind::Module { mix, .. } => {
                ctx.set_fill_style_str(p.module_fill);
                ctx.fill_rect(x, y, rw, rh);
                let (stroke, width) = p.module_border(mix.is_destructive());
                ctx.set_stroke_style_str(stroke);
                ctx.set_line_width(f64::from(width));
                ctx.stroke_rect(x, y, rw, rh);
                if labels {
                    ctx.set_fill_style_str(p.text);
                    ctx.set_font("bold 12px system-ui, sans-serif");
                    let label = crate::model::text::visible(&node.label);
                    let _ = ctx.fill_text(&format!("▸ {label}"), x + 8.0, y + 16.0);
                    ctx.set_font("11px system-ui, sans-serif");
                    let mut sx = x + 8.0;
                    for (key, text) in mix.segments() {
                        let tw = ctx.measure_text(&text).map(|m| m.width()).unwrap_or(20.0) + 8.0;
                        ctx.set_fill_style_str(p.segment(key));
                        ctx.fill_rect(sx, y + 24.0, tw, 15.0);
                        ctx.set_fill_style_str(p.on_fill);
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

/// The ring a box gets, if any: the selection, then the blast radius, then what the selection
/// depends on, then (when `hits` are given) a search match.
fn ring_of(hl: &Highlight, hits: Option<&[bool]>, i: usize) -> Option<Lit> {
    if hl.selected == Some(i as u32) {
        Some(Lit::Selected)
    } else if hl.downstream[i] {
        Some(Lit::Dependent)
    } else if hl.upstream[i] {
        Some(Lit::Dependency)
    } else if hits.is_some_and(|h| h[i]) {
        Some(Lit::Match)
    } else {
        None
    }
}

fn set_dash(ctx: &Ctx, dash: &[f32]) {
    let array = js_sys::Array::new();
    for d in dash {
        array.push(&JsValue::from_f64(f64::from(*d)));
    }
    let _ = ctx.set_line_dash(&array);
}

/// Strokes a ring around a box, at least one screen pixel per ring pixel however far out.
fn stroke_ring(ctx: &Ctx, ring: &Ring, (x, y, w, h): (f64, f64, f64, f64), px: f64) {
    let unit = px.max(1.0);
    let gap = f64::from(ring.gap) * unit;
    ctx.set_global_alpha(f64::from(ring.alpha));
    ctx.set_stroke_style_str(ring.colour);
    ctx.set_line_width(f64::from(ring.width) * unit);
    let dash: Vec<f32> = ring.dash.iter().map(|d| d * unit as f32).collect();
    set_dash(ctx, &dash);
    ctx.stroke_rect(x - gap, y - gap, w + 2.0 * gap, h + 2.0 * gap);
    set_dash(ctx, &[]);
    ctx.set_global_alpha(1.0);
}

/// The colour of a box drawn as a plain block (zoomed far out, and in the minimap): its action's.
fn block_colour(g: &DepGraph, node: &crate::graph::view::ViewNode, p: &Palette) -> &'static str {
    match &node.kind {
        ViewNodeKind::Resource(n) => p.node(g.graph[*n].action).stroke,
        ViewNodeKind::Module { mix, .. } => p.module_border(mix.is_destructive()).0,
    }
}

/// Scale and offset that fit the whole layout into the minimap.
pub(super) fn minimap_scale(v: &View, mw: f64, mh: f64) -> (f64, f64, f64) {
    let (lw, lh) = (
        f64::from(v.layout.width).max(1.0),
        f64::from(v.layout.height).max(1.0),
    );
    let s = ((mw - 8.0) / lw).min((mh - 8.0) / lh);
    (s, (mw - lw * s) / 2.0, (mh - lh * s) / 2.0)
}

pub(super) fn draw_minimap(c: &web_sys::HtmlCanvasElement, scene: &Scene, (w, h): (f64, f64)) {
    let Scene {
        g,
        v,
        hl,
        cam,
        palette: p,
        ..
    } = *scene;
    let Some((ctx, mw, mh, dpr)) = prepare(c) else {
        return;
    };
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.set_fill_style_str(p.background);
    ctx.fill_rect(0.0, 0.0, mw, mh);
    let (s, ox, oy) = minimap_scale(v, mw, mh);
    for (i, (node, r)) in v.nodes.iter().zip(&v.layout.nodes).enumerate() {
        let fill = match ring_of(hl, None, i) {
            Some(lit) => p.ring(lit).colour,
            None => block_colour(g, node, p),
        };
        ctx.set_fill_style_str(fill);
        ctx.fill_rect(
            ox + f64::from(r.x) * s,
            oy + f64::from(r.y) * s,
            (f64::from(r.w) * s).max(1.5),
            (f64::from(r.h) * s).max(1.5),
        );
    }
    ctx.set_stroke_style_str(p.selected);
    ctx.set_line_width(1.5);
    ctx.stroke_rect(
        ox + cam.x * s,
        oy + cam.y * s,
        w / cam.scale * s,
        h / cam.scale * s,
    );
}

/// Corners the minimap may sit in, in order of preference (the legend has the top-left one).
const CORNERS: [&str; 3] = ["bottom-right", "bottom-left", "top-right"];

/// Puts the minimap in the first corner of the stage where it does not cover the selected box
/// (`selection`, in CSS pixels on the canvas), and hides it when it would cover it in every one,
/// or when the whole graph is in view (there is nowhere else to go, and it would only cover
/// nodes). The corner is the minimap's `data-corner` attribute, which the stylesheet places.
pub(super) fn place_minimap(
    m: &web_sys::HtmlCanvasElement,
    (w, h): (f64, f64),
    selection: Option<&Rect>,
    everything_in_view: bool,
) {
    // The stylesheet's margin around the minimap (0.75rem) plus the ring around the selection.
    let (margin, ring) = (12.0, 8.0);
    let (mw, mh) = (f64::from(m.offset_width()), f64::from(m.offset_height()));
    let clear = |corner: &str| {
        let Some(r) = selection else { return true };
        let x = if corner.ends_with("right") {
            w - margin - mw
        } else {
            margin
        };
        let y = if corner.starts_with("bottom") {
            h - margin - mh
        } else {
            margin
        };
        let (rx, ry) = (f64::from(r.x) - ring, f64::from(r.y) - ring);
        let (rw, rh) = (f64::from(r.w) + 2.0 * ring, f64::from(r.h) + 2.0 * ring);
        rx > x + mw || rx + rw < x || ry > y + mh || ry + rh < y
    };
    let corner = if everything_in_view {
        "hidden"
    } else {
        CORNERS.into_iter().find(|c| clear(c)).unwrap_or("hidden")
    };
    if m.get_attribute("data-corner").as_deref() != Some(corner) {
        let _ = m.set_attribute("data-corner", corner);
    }
}
