//! The cross-crate tests of the core, linked into one test binary (`cargo test --test core`):
//! one link instead of one per file, and the shared helpers (tests/common) compiled once. Each
//! file is a module named after the feature it tests; `cargo test --test core drift::` runs one.

#[path = "../common/mod.rs"]
mod common;

mod compare;
mod diff;
mod drift;
mod fuzz_regressions;
mod glance;
mod graph;
mod inputs;
mod kube;
mod list;
mod manifest;
mod own_fixtures;
mod policy;
mod readers_part;
mod real_plans;
mod rollup;
mod rules;
mod session;
mod set;
mod share;
