//! Small readers of JavaScript values, shared by the page (`ui::backend`) and the plan's worker
//! (`src/worker.rs`). (The lazily loaded parts, packages of their own, do not link this library.)

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

/// The files of a file input's or a drop's list, in order.
pub fn files(list: &web_sys::FileList) -> Vec<web_sys::File> {
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// Appends the bytes of `array` to `bytes`, copied straight into its spare capacity (zero-filling
/// it first cost about 1 ms per MB of a large file).
pub fn append(bytes: &mut Vec<u8>, array: &js_sys::Uint8Array) {
    let at = bytes.len();
    let len = array.length() as usize;
    bytes.reserve(len);
    let copied = array
        .copy_to_uninit(&mut bytes.spare_capacity_mut()[..len])
        .len();
    // SAFETY: `copy_to_uninit` initialised the first `copied` bytes after `at`.
    unsafe { bytes.set_len(at + copied) };
}
