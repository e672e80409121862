//! What a loaded plan changes, read for the views, the comment and the rules: the resource rows
//! ([`list`]), the attribute diff of a change ([`diff`]), drift and its severity ([`drift`]),
//! Terraform's check results ([`checks`]), the outputs ([`outputs`]), and what changed between
//! two plans of the same configuration ([`compare`]). Each is a pure function of
//! a [`planlens_model::Document`]; none reads bytes (that is `planlens-load`) or renders.

pub mod checks;
pub mod compare;
pub mod diff;
pub mod drift;
pub mod list;
pub mod outputs;
