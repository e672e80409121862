//! Planlens core: everything that understands Terraform plans, with no browser dependency.
//!
//! Layers, each using only those below it (tests/layers.rs checks it): [`model`] (the formats'
//! types, addresses, actions, counts) → [`load`] (bytes → a [`model::Document`] or a
//! [`load::LoadError`], every input format) → the analyses ([`diff`], [`list`], [`checks`],
//! [`graph`], [`drift`], then [`outputs`], [`rules`], [`policy`]) → [`analysis`] (one per
//! document, computed or carried by a redacted link) → [`share`] (links, Markdown) → [`session`] (an open plan, its
//! values-free index and answers to the views' requests) → the shells: `ui` (Leptos, the page),
//! `worker` (the session in a Web Worker, part of the `planlens-web` binary; both browser only) and the `planlens` CLI.

pub mod analysis;
pub mod checks;
pub mod diff;
pub mod drift;
pub mod fleet;
pub mod graph;
pub mod list;
pub mod load;
pub mod model;
pub mod outputs;
pub mod policy;
pub mod rules;
pub mod session;
pub mod share;
pub mod sort;

/// The Leptos UI (browser only).
#[cfg(target_arch = "wasm32")]
pub mod ui;

pub use load::{LoadError, load_plan, load_plan_text};
pub use model::Document;
pub use model::summary::Summary;
