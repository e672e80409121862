//! The `planlens` binary's tests, linked into one test binary (`cargo test -p planlens-cli --test
//! cli`): each file is a module named after the commands or inputs it runs the binary on, sharing
//! the helpers of the top-level tests (tests/common).

#[path = "../../../../tests/common/mod.rs"]
mod common;

mod cli;
mod fleet;
mod policy;
mod secrets;
mod state;
mod text_plan;
