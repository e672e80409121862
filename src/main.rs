//! The browser app's entry point: mounts the Leptos UI. Built by Trunk for wasm32.
//!
//! In the worker (`worker.js` instantiates this same module) it mounts nothing: `worker_start` runs
//! instead. `mod worker` is declared here, so the worker's side is part of this binary, not of the
//! library. Natively it says what it is and exits 64.

// The worker's side lives in this binary, not in the library: every `#[wasm_bindgen]` export of
// the library would come with it into any module that links the library, and with it the whole
// session. (The lazily loaded parts, packages of their own in crates/part-*, do not link it.)
#[cfg(target_arch = "wasm32")]
mod worker;

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    // In the Web Worker (`worker.js` instantiates this same module) there is no page to mount:
    // `worker_start` runs instead.
    if web_sys::window().is_some() {
        leptos::mount::mount_to_body(planlens::ui::App);
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("planlens-web is the browser app: build it with `trunk build` (see README.md).");
    std::process::exit(64);
}
