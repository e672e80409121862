//! The smallest browser module that can open a plan: read its bytes, parse, mask, analyse, grade
//! it under the built-in pack and write the index the views read — and nothing else (no view, no
//! graph, no share link, no rule editor, no reader part). `scripts/size-floor.sh` builds it for
//! wasm32 and prints its gzip size: a floor under the first-visit module, which must also render.
//! Natively it does nothing.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen::prelude::*;

/// The worker's open in one call: bytes in, the index's JSON (or the load error) out.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen]
pub fn open(bytes: Vec<u8>) -> String {
    let options = planlens::session::OpenOptions {
        name: "plan.json".into(),
        mask_builtin: true,
        mask_user: Vec::new(),
        rules: None,
        labels: Default::default(),
    };
    // The readers' part is not loaded: a file that needs it is refused, as on the page.
    let readers = planlens::readers_part::PartReaders::new();
    match planlens::session::Session::open_bytes(bytes, &options, &readers) {
        Ok(session) => {
            serde_json::to_string(&session.index(None, &Default::default())).unwrap_or_default()
        }
        Err(error) => error.to_string(),
    }
}

fn main() {}
