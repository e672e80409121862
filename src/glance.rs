//! The first paint of a share link (`planlens-glance.js`, `planlens-glance_bg.wasm`): a small
//! module of its own that the page loads before the app when the link carries a glance (`g=`,
//! `session::glance`), paints it (`ui::glance::paint`) and exits; the boot script then loads the
//! app, which takes over once it has opened the plan (`ui::glance::take_over`). It links Leptos,
//! the glance's reader and the components that render it, and nothing that reads a plan.
//!
//! Trunk builds it from the root package as a worker module (`index.html`: `data-bin=
//! "planlens-glance" data-type="worker" data-bindgen-target="web"`), so nothing is added to the
//! page for it; `scripts/csp-boot.mjs` writes the boot script that imports it. Natively it exits 64.

#[cfg(target_arch = "wasm32")]
fn main() {
    planlens::ui::glance::paint();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "planlens-glance is the first paint of the browser app, built by Trunk (see index.html)."
    );
    std::process::exit(64);
}
