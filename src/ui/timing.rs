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

/// Records a step that took `ms` and ended now as the measure `name` (for steps timed elsewhere,
/// such as in a worker): `performance.measure(name, {start, duration})`.
pub(super) fn record(name: &str, ms: f64) {
    use wasm_bindgen::JsCast;
    let Some(p) = performance() else {
        return;
    };
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"start".into(), &(p.now() - ms).into());
    let _ = js_sys::Reflect::set(&options, &"duration".into(), &ms.into());
    let measure = js_sys::Reflect::get(&p, &"measure".into())
        .ok()
        .and_then(|m| m.dyn_into::<js_sys::Function>().ok());
    if let Some(measure) = measure {
        let _ = measure.call2(&p, &name.into(), &options);
    }
}

/// Resolves in a later task (`setTimeout` 0): the browser may paint and handle input first.
pub(super) async fn next_task() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        leptos::prelude::set_timeout(
            move || drop(resolve.call0(&wasm_bindgen::JsValue::NULL)),
            std::time::Duration::ZERO,
        );
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
