//! The YAML reader as a lazily loaded part of the browser app (`part-yaml.js` and
//! `part-yaml_bg.wasm`, built by Trunk as a worker module, index.html). The plan's worker
//! (src/worker.rs) fetches it the first time a YAML file is opened and calls [`yaml_to_json`]; the
//! first-visit module never contains the YAML parser. It depends on the loader only (its `yaml`
//! module). Natively this binary does nothing: the CLI calls `planlens_load::yaml::yaml_to_json`
//! itself.
//!
//! Trunk builds it from this package's manifest (`index.html`: `data-bin="part-yaml"
//! data-type="worker" data-bindgen-target="web"`), so nothing is added to the page; the plan's
//! worker calls it after `worker.js` has loaded it (`self.planlensPart("yaml")`). It never links
//! the app's library (`ui`, the session, Leptos); natively it exits 64.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen::prelude::*;

/// YAML text → JSON text (`load::yaml::yaml_to_json`); an error is a message with line and column.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen]
pub fn yaml_to_json(text: &str) -> Result<String, JsError> {
    planlens_load::yaml::yaml_to_json(text).map_err(|e| JsError::new(&e.to_string()))
}

fn main() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        eprintln!("part-yaml is a part of the browser app, built by Trunk (see index.html).");
        std::process::exit(64);
    }
}
