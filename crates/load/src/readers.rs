//! The readers of inputs that are not plan JSON — human-readable plans ([`super::text_plan`]),
//! Terraform states ([`super::state`]), `terraform plan -json` logs ([`super::plan_log`]) and
//! driftctl reports ([`super::driftctl`]) — and the reading of Flux's Terraform controller's
//! Kubernetes objects ([`super::kube`]), behind one port: [`Readers`].
//!
//! The loader detects what a file is (the cheap `looks_like_*` checks and the keys of the one
//! parse, `load::read_decoded`) and asks the [`Readers`] it was given for the conversion. Natively
//! (the CLI, `cargo test`) that is [`Direct`], which calls the readers. In the browser most visits
//! open plan JSON and never need them, so they are not part of the first-visit module: the app
//! gives the loader readers of its own that ask the lazily loaded `part-readers` module
//! (src/readers_part.rs, which runs [`Direct`] inside the part). How the part is called, what
//! crosses and when it is loaded is the app's business, never this crate's.

use super::LoadError;
use super::kube::Unpacked;
use planlens_model::{Document, Source};

/// A reader of files that are a document of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// A human-readable plan → its document ([`super::text_plan::document`]).
    TextPlan,
    /// A Terraform state → its document ([`super::state::read_state`]).
    State,
    /// A `terraform plan -json` log → its document.
    PlanLog,
    /// A driftctl report → its document.
    Driftctl,
}

impl Reader {
    /// Every reader.
    pub const ALL: [Reader; 4] = [
        Reader::TextPlan,
        Reader::State,
        Reader::PlanLog,
        Reader::Driftctl,
    ];

    /// The reader's name (in the readers' part's calls).
    pub fn name(self) -> &'static str {
        match self {
            Reader::TextPlan => "text_plan",
            Reader::State => "state",
            Reader::PlanLog => "plan_log",
            Reader::Driftctl => "driftctl",
        }
    }

    /// The reader named `name`.
    pub fn from_name(name: &str) -> Option<Reader> {
        Reader::ALL.into_iter().find(|r| r.name() == name)
    }

    /// What a file this reader reads is, for [`LoadError::NeedsReaders`].
    pub fn what(self) -> &'static str {
        match self {
            Reader::TextPlan => "a human-readable plan",
            Reader::State => "a Terraform state",
            Reader::PlanLog => "a `terraform plan -json` log",
            Reader::Driftctl => "a driftctl report",
        }
    }
}

/// What a file that is not plan JSON is read with: [`Direct`], or readers that ask where they are
/// (the browser's `part-readers`). Every implementation gives the same documents and the same
/// messages (tests/core/readers_part.rs).
pub trait Readers {
    /// `text` read by `reader` into an unmasked document named `name`.
    fn document(&self, reader: Reader, text: String, name: &str) -> Result<Document, LoadError>;

    /// One file's Kubernetes objects → the one plan, text plan or state they hold
    /// ([`super::kube::Objects::single`]), unpacked; the loader opens it.
    fn kube(&self, text: &str, name: &str) -> Result<Unpacked, LoadError>;
}

/// The readers called directly: the CLI's and the tests', and what the readers' part runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Direct;

impl Readers for Direct {
    fn document(&self, reader: Reader, text: String, name: &str) -> Result<Document, LoadError> {
        match reader {
            Reader::State => super::state::read_state(text, name),
            Reader::PlanLog => load_plan_log(text, name),
            Reader::Driftctl => load_driftctl(text, name),
            Reader::TextPlan => super::text_plan::document(&text, name),
        }
    }

    fn kube(&self, text: &str, _name: &str) -> Result<Unpacked, LoadError> {
        super::kube::Objects::collect(super::kube::read(text)?)
            .single()?
            .unpack()
    }
}

/// Parses the plan text a converter made; a failure is a bug in the converter, reported plainly.
fn parse_converted(text: String, name: &str, what: &str) -> Result<Document, LoadError> {
    Document::parse(text, name.to_string()).map_err(|(_, e)| LoadError::InvalidReport {
        what: what.to_string(),
        line: 0,
        column: 0,
        message: format!("Planlens could not convert it ({e}); please report this"),
    })
}

fn load_plan_log(text: String, name: &str) -> Result<Document, LoadError> {
    let (plan_text, facts) = super::plan_log::convert(&text)?;
    let mut doc = parse_converted(plan_text, name, "terraform plan -json log")?;
    let mut warnings = Vec::new();
    if facts.skipped_lines > 0 {
        warnings.push(planlens_model::text::skipped_lines(
            facts.skipped_lines,
            "log",
            "not a resource change Planlens reads",
        ));
    }
    let plan = doc.plan();
    // A log with Terraform's diagnostics is one (a failed plan has nothing else): the question
    // is only right for a log with nothing recognisable at all.
    if plan.resource_changes.is_empty()
        && plan.resource_drift.is_empty()
        && facts.change_summary.is_none()
        && facts.diagnostics.is_empty()
    {
        warnings.push(
            "This log has no planned_change, resource_drift or change_summary messages: was it \
             made by `terraform plan -json`?"
                .to_string(),
        );
    }
    if let Some(said) = facts.change_summary {
        let ours = planlens_model::summary::Summary::of(&doc);
        if ours.disagrees_with(&facts) {
            warnings.push(format!(
                "Terraform's change summary in the log says {} to add, {} to change, {} to \
                 destroy, {} to import; the log's planned changes give {} to add, {} to change, \
                 {} to destroy, {} to import. Lines of the log are missing, so it is judged as an \
                 incomplete plan.",
                said.add,
                said.change,
                said.remove,
                said.import,
                ours.add,
                ours.change,
                ours.destroy,
                ours.import
            ));
        }
    }
    doc.warnings = warnings;
    doc.source = Source::PlanLog(facts);
    doc.original = Some(text);
    Ok(doc)
}

fn load_driftctl(text: String, name: &str) -> Result<Document, LoadError> {
    let (plan_text, facts) =
        super::driftctl::convert(&text).map_err(|e| LoadError::InvalidReport {
            what: "driftctl report".to_string(),
            line: e.line(),
            column: e.column(),
            message: super::error::strip_position(&e),
        })?;
    let mut doc = parse_converted(plan_text, name, "driftctl report")?;
    doc.source = Source::Driftctl(facts);
    doc.original = Some(text);
    Ok(doc)
}
