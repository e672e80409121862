//! Where the Graph tab looks at a laid-out view: a camera (the layout point at the canvas's
//! top-left corner and the zoom), and how a drawing is framed on a canvas part of which is covered.
//!
//! Everything here is in CSS pixels of the canvas and layout units; the device pixel ratio is
//! the canvas's business (it scales its backing store), never the camera's, so a framing is the
//! same on every screen. Pure arithmetic: no browser.
//!
//! `Camera` is a scale and an offset (`shows` says whether a rectangle is in view); `Canvas` is the
//! free area, minus the legend's measured part and a margin; `fit` frames the whole drawing
//! (`View::drawing()`, module boxes and edges included) inside the free area, however small;
//! `opening` shows everything when it reads at a scale of at least 0.75 (`READABLE`), else the
//! densest group of changed boxes a canvas-sized window holds, at a readable zoom, clear of the
//! minimap's strip. Unit-tested here; tests/core/graph.rs frames every real plan.

use super::layout::Rect;

/// Zoom from which the canvas writes labels in the boxes (below it, boxes are unlabelled).
pub const LABELS_FROM: f64 = 0.45;
/// Zoom at which labels (12 px in the layout) are comfortably readable: the opening view is
/// never below it.
pub const READABLE: f64 = 0.75;
/// The camera's zoom limits for zooming by hand (wheel, pinch, buttons).
pub const MIN_SCALE: f64 = 0.02;
/// See [`MIN_SCALE`].
pub const MAX_SCALE: f64 = 4.0;
/// Fitting never zooms in past this: a small graph is not blown up.
const FIT_MAX: f64 = 1.5;
/// Framing on the changes (the opening view of a large graph) never zooms in past this.
const FOCUS_MAX: f64 = 1.0;
/// Space kept between a framed drawing and the free area's edges, in CSS pixels.
pub const MARGIN: f64 = 16.0;

/// Where the camera looks: layout coordinates of the canvas's top-left corner, and the zoom
/// (CSS pixels per layout unit).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// Layout x at the canvas's left edge.
    pub x: f64,
    /// Layout y at the canvas's top edge.
    pub y: f64,
    /// CSS pixels per layout unit.
    pub scale: f64,
}

/// The canvas a drawing is framed on: its CSS size and how much of each edge is covered (the
/// legend over the top-left corner, the minimap over the bottom-right one) or kept free.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Canvas {
    /// CSS width.
    pub width: f64,
    /// CSS height.
    pub height: f64,
    /// Covered at the top.
    pub top: f64,
    /// Covered at the right.
    pub right: f64,
    /// Covered at the bottom.
    pub bottom: f64,
    /// Covered at the left.
    pub left: f64,
}

impl Canvas {
    /// A canvas of `width`×`height` CSS pixels with nothing over it.
    pub fn new(width: f64, height: f64) -> Canvas {
        Canvas {
            width,
            height,
            ..Canvas::default()
        }
    }

    /// The free area, less [`MARGIN`] on every side, as (left, top, width, height); never
    /// narrower or lower than a pixel.
    fn free(&self) -> (f64, f64, f64, f64) {
        let (l, t) = (self.left + MARGIN, self.top + MARGIN);
        let w = (self.width - self.right - MARGIN - l).max(1.0);
        let h = (self.height - self.bottom - MARGIN - t).max(1.0);
        (l, t, w, h)
    }
}

impl Camera {
    /// The layout point under a point of the canvas.
    pub fn to_world(self, sx: f64, sy: f64) -> (f64, f64) {
        (self.x + sx / self.scale, self.y + sy / self.scale)
    }

    /// Where a rectangle of the layout is on the canvas, in CSS pixels from its corner.
    pub fn to_screen(self, r: &Rect) -> Rect {
        let s = self.scale;
        Rect {
            x: ((f64::from(r.x) - self.x) * s) as f32,
            y: ((f64::from(r.y) - self.y) * s) as f32,
            w: (f64::from(r.w) * s) as f32,
            h: (f64::from(r.h) * s) as f32,
        }
    }

    /// Zooms by `factor` (within [`MIN_SCALE`]..[`MAX_SCALE`], or down to where Fit put a huge
    /// drawing) keeping the layout point under the canvas point (`sx`, `sy`) where it is.
    pub fn zoom_at(self, factor: f64, sx: f64, sy: f64) -> Camera {
        let scale = (self.scale * factor).clamp(MIN_SCALE.min(self.scale), MAX_SCALE);
        let (wx, wy) = self.to_world(sx, sy);
        Camera {
            x: wx - sx / scale,
            y: wy - sy / scale,
            scale,
        }
    }

    /// Centres a rectangle of the layout on a `w`×`h` canvas, zoomed in to at least 0.8.
    pub fn centre_on(self, r: &Rect, w: f64, h: f64) -> Camera {
        let scale = self.scale.max(0.8);
        Camera {
            x: f64::from(r.x + r.w / 2.0) - w / 2.0 / scale,
            y: f64::from(r.y + r.h / 2.0) - h / 2.0 / scale,
            scale,
        }
    }

    /// True when all of `r` is on the canvas (a quarter pixel of rounding allowed).
    pub fn shows(self, r: &Rect, canvas: &Canvas) -> bool {
        let s = self.to_screen(r);
        let slack = 0.25;
        f64::from(s.x) >= -slack
            && f64::from(s.y) >= -slack
            && f64::from(s.x + s.w) <= canvas.width + slack
            && f64::from(s.y + s.h) <= canvas.height + slack
    }

    /// All of `r` in the canvas's free area, centred, as large as fits but never past 1.5: what
    /// Fit does. However small that makes it (a huge graph on a phone), nothing is cut off.
    pub fn fit(r: &Rect, canvas: &Canvas) -> Camera {
        let (_, _, fw, fh) = canvas.free();
        let scale = (fw / f64::from(r.w).max(1.0))
            .min(fh / f64::from(r.h).max(1.0))
            .min(FIT_MAX);
        Camera::frame_at(r, scale, canvas)
    }

    /// `r` at zoom `scale`: centred in the free area along each axis it fits in, and along one
    /// it does not, its start (left or top: where a reader starts) at the free area's start.
    pub fn frame_at(r: &Rect, scale: f64, canvas: &Canvas) -> Camera {
        let (fl, ft, fw, fh) = canvas.free();
        let axis = |start: f32, len: f32, free_start: f64, free_len: f64| {
            let (start, len) = (f64::from(start), f64::from(len) * scale);
            let offset = if len <= free_len {
                free_start + (free_len - len) / 2.0
            } else {
                free_start
            };
            start - offset / scale
        };
        Camera {
            x: axis(r.x, r.w, fl, fw),
            y: axis(r.y, r.h, ft, fh),
            scale,
        }
    }

    /// The opening view of a drawing (`all`, the bounds of everything drawn): all of it when it
    /// fits at a readable zoom ([`READABLE`]); else, at a readable zoom, the most of the changed
    /// boxes (`changed`; everything when nothing changes) that the canvas holds together
    /// ([`densest`]), framed as closely as that zoom allows, never shrunk to unlabelled boxes. A
    /// partial view shows the minimap, which covers `overview` CSS pixels at the bottom: the
    /// changes are framed above it.
    pub fn opening(all: &Rect, changed: &[Rect], canvas: &Canvas, overview: f64) -> Camera {
        let whole = Camera::fit(all, canvas);
        if whole.scale >= READABLE {
            return whole;
        }
        let canvas = Canvas {
            bottom: canvas.bottom.max(overview),
            ..*canvas
        };
        let focus = densest(changed, &canvas).unwrap_or(*all);
        let scale = Camera::fit(&focus, &canvas)
            .scale
            .clamp(READABLE, FOCUS_MAX);
        Camera::frame_at(&focus, scale, &canvas)
    }

    /// How many of `rects` are wholly on the canvas.
    pub fn count_shown(self, rects: &[Rect], canvas: &Canvas) -> usize {
        rects.iter().filter(|r| self.shows(r, canvas)).count()
    }
}

/// At most this many left edges, and as many top edges, place the windows [`densest`] tries, so
/// a view of thousands of boxes is framed in a few tens of millions of comparisons.
const EDGES: usize = 64;

/// The bounds of the largest group of `boxes` that the canvas's free area shows at once at the
/// readable zoom: of the windows of that size whose left edge is a box's and whose top edge is a
/// box's (not always the same one: a group's highest box is not always its leftmost), the one
/// holding the most boxes whole, the first in reading order (top to bottom, then left to right)
/// of those holding as many. `None` for no boxes.
pub fn densest(boxes: &[Rect], canvas: &Canvas) -> Option<Rect> {
    let (_, _, fw, fh) = canvas.free();
    let (ww, wh) = ((fw / READABLE) as f32, (fh / READABLE) as f32);
    let edges = |edge: fn(&Rect) -> f32| {
        let mut all: Vec<f32> = boxes.iter().map(edge).collect();
        all.sort_by(f32::total_cmp);
        all.dedup();
        let step = all.len().div_ceil(EDGES).max(1);
        all.into_iter().step_by(step).collect::<Vec<f32>>()
    };
    let (lefts, tops) = (edges(|r| r.x), edges(|r| r.y));
    let mut best: Option<(usize, Rect)> = None;
    for &top in &tops {
        for &left in &lefts {
            let held = boxes.iter().filter(|r| {
                r.x >= left && r.y >= top && r.x + r.w <= left + ww && r.y + r.h <= top + wh
            });
            let n = held.clone().count();
            if n > best.map_or(0, |(most, _)| most) {
                best = bounds(held.copied()).map(|r| (n, r));
            }
        }
    }
    // Every box is bigger than the window: the first one frames itself (at its start).
    best.map(|(_, r)| r).or_else(|| {
        boxes
            .iter()
            .min_by(|a, b| a.y.total_cmp(&b.y).then(a.x.total_cmp(&b.x)))
            .copied()
    })
}

/// The smallest rectangle around all of `rects`; `None` for none.
pub fn bounds(rects: impl Iterator<Item = Rect>) -> Option<Rect> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x: f32, y: f32, w: f32, h: f32) -> Rect {
        Rect { x, y, w, h }
    }

    /// The desktop Graph tab's canvas (1400×860 window, side pane beside it) with the legend's
    /// strip covered at the top.
    fn desktop() -> Canvas {
        Canvas {
            top: 40.0,
            ..Canvas::new(950.0, 640.0)
        }
    }

    #[test]
    fn fit_shows_the_whole_drawing_inside_the_free_area_whatever_its_shape() {
        for canvas in [
            desktop(),
            Canvas::new(390.0, 560.0),
            Canvas::new(120.0, 90.0),
        ] {
            for r in [
                rect(0.0, 0.0, 4000.0, 300.0),
                rect(0.0, 0.0, 300.0, 9000.0),
                rect(-50.0, 20.0, 60.0, 40.0),
                rect(0.0, 0.0, 250_000.0, 180_000.0),
            ] {
                let cam = Camera::fit(&r, &canvas);
                let s = cam.to_screen(&r);
                assert!(cam.shows(&r, &canvas), "{r:?} on {canvas:?}: {s:?}");
                // Nothing under what covers the canvas.
                assert!(
                    f64::from(s.y) >= canvas.top - 0.25,
                    "{s:?} under the legend"
                );
                assert!(f64::from(s.x + s.w) <= canvas.width - canvas.right + 0.25);
                assert!(cam.scale <= 1.5);
            }
        }
    }

    #[test]
    fn fit_centres_and_uses_the_free_area() {
        let canvas = desktop();
        let r = rect(100.0, 100.0, 2000.0, 200.0);
        let cam = Camera::fit(&r, &canvas);
        let s = cam.to_screen(&r);
        // Width-bound: it spans the free width, margins on both sides.
        assert!((f64::from(s.x) - MARGIN).abs() < 0.01, "{s:?}");
        assert!(
            (f64::from(s.x + s.w) - (canvas.width - MARGIN)).abs() < 0.01,
            "{s:?}"
        );
        // Centred vertically in what the legend leaves.
        let free_mid = canvas.top + (canvas.height - canvas.top) / 2.0;
        assert!(
            (f64::from(s.y + s.h / 2.0) - free_mid).abs() < 0.01,
            "{s:?}"
        );
        // A tiny drawing is not blown up past 1.5.
        assert_eq!(Camera::fit(&rect(0.0, 0.0, 20.0, 10.0), &canvas).scale, 1.5);
    }

    #[test]
    fn opening_shows_everything_when_it_is_readable_so() {
        let canvas = desktop();
        let all = rect(0.0, 0.0, 1000.0, 500.0);
        let cam = Camera::opening(&all, &[rect(10.0, 10.0, 50.0, 30.0)], &canvas, 100.0);
        assert!(cam.scale >= READABLE);
        assert!(cam.shows(&all, &canvas));
        assert_eq!(cam, Camera::fit(&all, &canvas));
    }

    #[test]
    fn opening_a_large_drawing_frames_the_changes_at_a_readable_zoom() {
        let canvas = desktop();
        let all = rect(0.0, 0.0, 6000.0, 3000.0);
        // Changes that fit at a readable zoom: all of them, centred, none cut.
        let changed = rect(3000.0, 1200.0, 900.0, 400.0);
        let cam = Camera::opening(&all, &[changed], &canvas, 100.0);
        assert!(cam.scale >= READABLE && cam.scale <= 1.0, "{cam:?}");
        assert!(
            cam.shows(&changed, &canvas),
            "{:?}",
            cam.to_screen(&changed)
        );
        // Clear of the minimap's strip at the bottom.
        let s = cam.to_screen(&changed);
        assert!(
            f64::from(s.y + s.h) <= canvas.height - 100.0 + 0.25,
            "{s:?}"
        );
        // A change bigger than the canvas even at a readable zoom: its start (left, top) is in
        // view, at the free area's start, not its middle with both ends cut off.
        let wide = rect(500.0, 300.0, 5000.0, 2000.0);
        let cam = Camera::opening(&all, &[wide], &canvas, 100.0);
        assert_eq!(cam.scale, READABLE);
        let s = cam.to_screen(&wide);
        assert!((f64::from(s.x) - MARGIN).abs() < 0.01, "{s:?}");
        assert!(
            (f64::from(s.y) - (canvas.top + MARGIN)).abs() < 0.01,
            "{s:?}"
        );
        // Nothing changed: everything is the focus.
        let cam = Camera::opening(&all, &[], &canvas, 100.0);
        assert_eq!(cam.scale, READABLE);
        assert!((f64::from(cam.to_screen(&all).x) - MARGIN).abs() < 0.01);
    }

    #[test]
    fn opening_a_large_drawing_frames_its_largest_group_of_changes() {
        let canvas = desktop();
        let all = rect(0.0, 0.0, 8000.0, 4000.0);
        // Two changes at the top-left, six together far to the bottom-right, one alone between.
        let box_at = |x: f32, y: f32| rect(x, y, 180.0, 28.0);
        let mut changed = vec![
            box_at(0.0, 0.0),
            box_at(300.0, 60.0),
            box_at(3000.0, 1500.0),
        ];
        for i in 0..6 {
            changed.push(box_at(
                6000.0 + 200.0 * (i % 3) as f32,
                3000.0 + 80.0 * (i / 3) as f32,
            ));
        }
        let cam = Camera::opening(&all, &changed, &canvas, 100.0);
        assert!(cam.scale >= READABLE, "{cam:?}");
        assert_eq!(cam.count_shown(&changed[3..], &canvas), 6, "{cam:?}");
        // A group whose highest box is not its leftmost is framed whole (its top not cut).
        let stair = [
            box_at(4000.0, 2000.0),
            box_at(3700.0, 2060.0),
            box_at(4200.0, 2300.0),
        ];
        let cam = Camera::opening(&all, &stair, &canvas, 100.0);
        assert_eq!(cam.count_shown(&stair, &canvas), 3, "{cam:?}");
        // Of groups as large, the first in reading order.
        let two = [
            box_at(5000.0, 100.0),
            box_at(5200.0, 100.0),
            box_at(10.0, 3000.0),
            box_at(210.0, 3000.0),
        ];
        let cam = Camera::opening(&all, &two, &canvas, 100.0);
        assert_eq!(cam.count_shown(&two[..2], &canvas), 2, "{cam:?}");
        // Many changes: a few hundred windows are tried, and the frame still holds a full group.
        let many: Vec<Rect> = (0..5000)
            .map(|i| box_at(200.0 * (i % 40) as f32, 40.0 * (i / 40) as f32))
            .collect();
        let all = bounds(many.iter().copied()).unwrap();
        let cam = Camera::opening(&all, &many, &canvas, 100.0);
        assert!(
            cam.count_shown(&many, &canvas) >= 40,
            "{}",
            cam.count_shown(&many, &canvas)
        );
    }

    #[test]
    fn zooming_keeps_the_point_under_the_pointer() {
        let cam = Camera {
            x: 10.0,
            y: 20.0,
            scale: 0.5,
        };
        let z = cam.zoom_at(2.0, 300.0, 200.0);
        assert_eq!(z.scale, 1.0);
        let (a, b) = (cam.to_world(300.0, 200.0), z.to_world(300.0, 200.0));
        assert!((a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9);
        assert_eq!(cam.zoom_at(1e-6, 0.0, 0.0).scale, MIN_SCALE);
        assert_eq!(cam.zoom_at(1e6, 0.0, 0.0).scale, MAX_SCALE);
        // Below the limit (Fit on a huge drawing), zooming out stays put rather than jumping in.
        let far = Camera {
            scale: 0.005,
            ..cam
        };
        assert_eq!(far.zoom_at(0.8, 0.0, 0.0).scale, 0.005);
        assert!(far.zoom_at(1.25, 0.0, 0.0).scale > 0.005);
    }
}
