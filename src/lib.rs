//! Planlens core: everything that understands Terraform plans, with no browser dependency.
//!
//! The data flows one way: [`load`] (bytes → a [`model::Document`] or a [`load::LoadError`]) →
//! [`model`] (typed plan, addresses, actions) → [`summary`], [`diff`], [`checks`], [`list`] (derived
//! views) → the shells: `ui` (Leptos, browser only) and the `planlens` CLI.

pub mod checks;
pub mod diff;
pub mod drift;
pub mod graph;
pub mod list;
pub mod load;
pub mod model;
pub mod outputs;
pub mod rules;
pub mod share;
pub mod summary;

/// The Leptos UI (browser only).
#[cfg(target_arch = "wasm32")]
pub mod ui;

pub use load::{LoadError, load_plan, load_plan_text};
pub use model::Document;
pub use summary::Summary;
