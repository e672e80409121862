//! Planlens's fuzzing harness (cargo-fuzz): the target bodies ([`targets`], shared with the root
//! package's stable regression replay) and the plan generator of the structured target
//! ([`generate`], the only part that needs `arbitrary`).

pub mod generate;
pub mod targets;
