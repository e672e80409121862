//! The Graph tab's canvas drawing: the view through the camera with culling and level of detail,
//! and the minimap. Pixels only; the colours, borders and symbols come from `crate::graph::style`.

use leptos::prelude::window;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::CanvasRenderingContext2d as Ctx;

use super::state::{Camera, bounds};
use crate::graph::DepGraph;
use crate::graph::layout::Rect;
use crate::graph::style::{colour, node_prefix, node_style, segment_fill};
use crate::graph::view::{Highlight, View, ViewNodeKind};
use crate::rules::RuleSeverity;

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
/// Zoom below which labels are not drawn.
const LABELS_FROM: f64 = 0.45;
/// Zoom below which nodes are plain blocks and arrows are left out.
const DETAIL_FROM: f64 = 0.15;

pub(super) fn draw(
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
pub(super) fn minimap_scale(v: &View, mw: f64, mh: f64) -> (f64, f64, f64) {
    let (lw, lh) = (
        f64::from(v.layout.width).max(1.0),
        f64::from(v.layout.height).max(1.0),
    );
    let s = ((mw - 8.0) / lw).min((mh - 8.0) / lh);
    (s, (mw - lw * s) / 2.0, (mh - lh * s) / 2.0)
}

pub(super) fn draw_minimap(
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
