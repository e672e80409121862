//! The page's clock: `performance.now()` for the durations the UI shows, and `performance.mark` /
//! `measure` for the named timings (`planlens:*`) that the browser tests and `scripts/bench.mjs` read.

use leptos::prelude::window;

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
