//! Output changes, with sensitive outputs masked.

use crate::diff::{DiffError, DiffNode, diff_change};
use planlens_model::{Action, Document};

/// One root module output and its change.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OutputRow {
    /// The output's name.
    pub name: String,
    /// Its action (create, update, delete, no-op).
    #[serde(with = "planlens_model::action::by_key")]
    pub action: Action,
    /// True when either side is sensitive (then the diff shows `(sensitive value)`).
    pub sensitive: bool,
    /// The before → after tree, masked.
    pub diff: Result<DiffNode, DiffError>,
}

/// Every output change, changed ones first, then by name.
pub fn output_rows(doc: &Document) -> Vec<OutputRow> {
    let mut rows: Vec<OutputRow> = doc
        .plan()
        .output_changes
        .iter()
        .map(|(name, o)| OutputRow {
            name: name.to_string(),
            action: o.actions,
            sensitive: [o.before_sensitive, o.after_sensitive]
                .into_iter()
                .flatten()
                .any(|raw| raw.get() != "false"),
            diff: diff_change(o),
        })
        .collect();
    planlens_model::sort::by(&mut rows, |a, b| {
        (a.action == Action::NoOp, &a.name).cmp(&(b.action == Action::NoOp, &b.name))
    });
    rows
}
