//! The `planlens` binary's tests, linked into one test binary (`cargo test -p planlens-cli --test
//! cli`): each file is a module named after the commands or inputs it runs the binary on, sharing
//! one way to run it (run.rs) and the helpers of the top-level tests (tests/common).
//!
//! They live in the CLI's package, not beside the other native tests in tests/core, because Cargo
//! gives a test the path of its own package's binaries only (`CARGO_BIN_EXE_planlens`).

#[path = "../../../../tests/common/mod.rs"]
mod common;
mod run;

mod check;
mod comment;
mod compare;
mod drift;
mod fleet;
mod graph;
mod link;
mod policy;
mod report;
mod secrets;
mod sets;
mod state;
mod summary;
mod text_plan;
