//! Inputs that are not plan JSON, converted to a plan through one typed writer: human-readable
//! plans ([`text_plan`]), Terraform states ([`state`], never judged), `terraform plan -json` logs
//! ([`plan_log`]), driftctl reports ([`driftctl`]) and what Flux's Terraform controller stores in
//! Kubernetes ([`kube`]). Each converter writes its plan through `converted` (the one writer).
//!
//! The loader (`planlens-load`) detects what a file is and asks the
//! [`Readers`](planlens_load::Readers) port its caller gives; [`Direct`] is the port's
//! implementation that calls these readers (natively, and inside the browser's lazily loaded
//! `part-readers` module). The browser's first-visit module never links this crate's code.
//!
//! Each format's module re-exports the loader's detection for it (`state::is_state_text`,
//! `plan_log::looks_like_plan_log`, …), so a reader and its check are found together. `load_plan`
//! and `load_plan_text` (native only) load with the built-in mask and `Direct`; `load_stored_with`
//! opens a stored tf-controller object, for the fleet. Nothing here detects what a file is (the
//! loader does, and asks), and there is no transport and no state between calls: how the browser
//! reaches these readers is `crates/part-readers`'s business.

mod converted;
mod direct;
pub mod driftctl;
pub mod kube;
pub mod plan_log;
pub mod state;
pub mod text_plan;

pub use direct::Direct;

use planlens_load::{LoadError, load_unpacked_with};
use planlens_model::Document;
use planlens_model::mask::Mask;

/// Reads a file's bytes as a plan, masking values under secret-like keys with the built-in
/// patterns ([`Mask::default`]) and reading other inputs with [`Direct`]. `name` is the file
/// name, for messages and the title. Native only: in the browser the readers are the app's
/// ([`planlens_load::load_plan_with`]).
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub fn load_plan(bytes: Vec<u8>, name: &str) -> Result<Document, LoadError> {
    planlens_load::load_plan_with(bytes, name, &Mask::default(), &Direct)
}

/// Reads text (a pasted plan, or a file already decoded) as a plan, a plan log or a driftctl
/// report, with the built-in secret-name mask and [`Direct`]. Native only, as [`load_plan`].
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub fn load_plan_text(text: String, name: &str) -> Result<Document, LoadError> {
    planlens_load::load_plan_text_with(text, name, &Mask::default(), &Direct)
}

/// Opens what Flux's Terraform controller (or Terraform's `kubernetes` backend) stored — a plan
/// Secret, a plan ConfigMap, a state Secret, a drift plan in a `Terraform` object's message — with
/// the secret-name `mask`, a text plan or state converted by `readers`. The fleet opens its rows'
/// plans and states with it (natively).
pub fn load_stored_with(
    stored: kube::Stored,
    name: &str,
    mask: &Mask,
    readers: &dyn planlens_load::Readers,
) -> Result<Document, LoadError> {
    load_unpacked_with(stored.unpack()?, name, mask, readers)
}
