//! An open plan and where it came from: the lowest layer of the browser shell, read by the view
//! states (graph, rules) and the app state that holds them.

use std::sync::Arc;

use crate::checks::CheckRow;
use crate::model::Document;
use crate::outputs::OutputRow;

/// A plan as the views hold it: the values-free index its session (in a Web Worker) handed over,
/// with everything derived from it once, when it is opened. Values are asked for
/// (`ui::backend::ask`).
pub struct Loaded {
    /// The plan without values (`doc.values_in_session()`), and its row index.
    pub doc: Document,
    /// Output changes, masked.
    pub outputs: Vec<OutputRow>,
    /// Check results.
    pub checks: Vec<CheckRow>,
    /// Its analysis (counts, planning, drift, graph, findings): computed, or carried by a
    /// redacted link.
    pub analysis: crate::analysis::Analysis,
    /// Where it came from, for the URL fragment.
    pub source: PlanSource,
    /// The plan's own `environment` (or `env`) variable, when it is a string.
    pub environment: Option<String>,
    /// The findings the session made when it opened the plan, and the rules (`None`: the
    /// built-in pack) and labels it made them with: the Rules tab uses them instead of asking
    /// again while the rules and labels are the same.
    pub first_evaluation: (
        Option<String>,
        std::collections::BTreeMap<String, String>,
        Result<crate::model::findings::Evaluation, String>,
    ),
}

/// Where the open plan came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanSource {
    /// A sample shipped with the app, by file stem.
    Sample(String),
    /// A file the user chose or dropped, or text they pasted.
    Local,
    /// A share link: the plan was in the fragment (this payload), and stays there.
    Link(Arc<str>),
    /// Fetched from `?url=` (this address).
    Url(String),
    /// Plan `.1` of the set a link carried (its payload `.0`): the fragment keeps the set and
    /// names the plan (`s=…&pl=N`), a row's deep link.
    Member(Arc<str>, usize),
}
