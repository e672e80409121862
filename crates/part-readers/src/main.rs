//! The readers of inputs that are not plan JSON (human-readable plans, Terraform states,
//! `terraform plan -json` logs, driftctl reports, Flux's Terraform controller's Kubernetes objects
//! and the fleet they make) as a lazily loaded part of the browser app
//! (`part-readers.js` and `part-readers_bg.wasm`, built by Trunk as a worker module, index.html).
//! The plan's worker (src/worker.rs) loads it the first time such a file is opened and calls
//! [`read`] through its readers (this package's `PartReaders`); the first-visit module only
//! detects these files. Natively this binary does nothing: the CLI calls the readers itself.
//!
//! Trunk builds it with `data-cargo-features="part"`. `read` is `readers_part::answer`; the plan's
//! worker loads the part into its `PartReaders` the first time an open misses it (a text plan,
//! state, plan log, driftctl report, Kubernetes objects or a fleet). It never links the app's
//! library; natively it exits 64.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen::prelude::*;

/// (call's name, file name, text) → the answer (`planlens_part_readers::answer`: a head line,
/// then the converted plan's, the stored plan's or state's, or a fleet link's text).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen]
pub fn read(reader: &str, name: &str, text: &str) -> String {
    planlens_part_readers::answer(reader, name, text)
}

fn main() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        eprintln!("part-readers is a part of the browser app, built by Trunk (see index.html).");
        std::process::exit(64);
    }
}
