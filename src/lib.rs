//! The browser app's library: the Leptos page ([`ui`], browser only), the transport of the lazily
//! loaded readers' part ([`readers_part`], the `planlens-part-readers` package's library) and the
//! core crates under the names the app and the tests use.
//!
//! The core is a workspace of crates along the layers (`crates/`, ARCHITECTURE.md), each able to
//! name only those below it, which Cargo enforces: `planlens-model` → `planlens-load` →
//! `planlens-readers`, `planlens-changes`, `planlens-graph`, `planlens-policy` → `planlens-fleet`,
//! `planlens-rules` →
//! `planlens-session` → the shells: this app (`ui`, the worker in the `planlens-web` binary, the
//! lazily loaded parts, packages of their own in `crates/part-*`) and the `planlens` CLI
//! (`crates/cli`).
//!
//! No logic of its own: module declarations and re-exports only.

pub use planlens_changes::{checks, diff, drift, list, outputs};
pub use planlens_fleet as fleet;
pub use planlens_graph as graph;
/// The loader (`planlens-load`), with the readers (`planlens-readers`) under the paths they had
/// when they were part of it (`load::state`, `load::text_plan`, `load::kube`, `load::Direct`, …),
/// so the tests read the same.
pub mod load {
    pub use planlens_load::*;
    pub use planlens_readers::{
        Direct, driftctl, kube, load_stored_with, plan_log, state, text_plan,
    };
    #[cfg(not(target_arch = "wasm32"))]
    pub use planlens_readers::{load_plan, load_plan_text};
}
pub use planlens_model as model;
pub use planlens_model::sort;
pub use planlens_policy as policy;
pub use planlens_readers as readers;
pub use planlens_rules as rules;
pub use planlens_session as session;
pub use planlens_session::{analysis, share};

pub use planlens_part_readers as readers_part;

/// The Leptos UI (browser only).
#[cfg(target_arch = "wasm32")]
pub mod ui;

pub use load::LoadError;
// Natively only: in the browser the readers are the part's (`readers_part`).
#[cfg(not(target_arch = "wasm32"))]
pub use load::{load_plan, load_plan_text};
pub use model::Document;
pub use model::summary::Summary;
