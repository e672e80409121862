//! Two small readers of JavaScript values, shared by the page (`ui::backend`), the plan's worker
//! (`src/worker.rs`) and the lazily loaded parts (`src/bin/part_*.rs`).

use wasm_bindgen::{JsCast, JsValue};

/// `value[key]`, or `undefined` when it cannot be read.
pub fn field(value: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(value, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// What a thrown value says: an `Error`'s message, a thrown string, or "unknown error".
pub fn error_message(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".to_string())
}
