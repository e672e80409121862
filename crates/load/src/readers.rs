//! The port to the readers of inputs that are not plan JSON — human-readable plans, Terraform
//! states, `terraform plan -json` logs and driftctl reports — and to the reading of Flux's
//! Terraform controller's Kubernetes objects: [`Readers`]. The readers themselves are the
//! `planlens-readers` crate, above this one.
//!
//! The loader detects what a file is (the cheap `looks_like_*` checks and the keys of the one
//! parse, `load::read_decoded`) and asks the [`Readers`] it was given for the conversion. Natively
//! (the CLI, `cargo test`) that is `planlens_readers::Direct`, which calls the readers. In the browser most visits
//! open plan JSON and never need them, so they are not part of the first-visit module: the app
//! gives the loader readers of its own that ask the lazily loaded `part-readers` module
//! (crates/part-readers, which runs `Direct` inside the part). How the part is called, what
//! crosses and when it is loaded is the app's business, never this crate's.
//!
//! The port has two methods: `document(reader, text, name)` converts a text with one of the four
//! converting readers `Reader` names, and `kube(text, name)` reads one file's Kubernetes objects
//! into a `kube::Unpacked` (a stored plan's, text plan's or state's decoded text, with its label
//! and note), which the loader then opens itself. No transport lives here: no registration, no wire
//! format, no state between calls (the browser app's `crates/part-readers` has them). Every
//! implementation gives the same documents and messages as `planlens_readers::Direct`;
//! tests/core/readers_part.rs checks the app's against it.

use super::LoadError;
use super::kube::Unpacked;
use planlens_model::Document;

/// A reader of files that are a document of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// A human-readable plan → its document (`planlens_readers::text_plan::document`).
    TextPlan,
    /// A Terraform state → its document (`planlens_readers::state::read_state`).
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

/// What a file that is not plan JSON is read with: `planlens_readers::Direct`, or readers that ask where they are
/// (the browser's `part-readers`). Every implementation gives the same documents and the same
/// messages (tests/core/readers_part.rs).
pub trait Readers {
    /// `text` read by `reader` into an unmasked document named `name`.
    fn document(&self, reader: Reader, text: String, name: &str) -> Result<Document, LoadError>;

    /// One file's Kubernetes objects → the one plan, text plan or state they hold
    /// (`planlens_readers::kube::Objects::single`), unpacked; the loader opens it.
    fn kube(&self, text: &str, name: &str) -> Result<Unpacked, LoadError>;

    /// The files of the archive `bytes` (zip, tar, tar.gz; named `name` for messages), within
    /// what `budget` has left ([`crate::archive::unpack_within`]). In the browser the archive
    /// readers are in the readers' part, not the first-visit module.
    fn unpack(
        &self,
        bytes: &[u8],
        name: &str,
        budget: &mut crate::archive::Budget,
    ) -> Result<Vec<crate::archive::Entry>, LoadError>;
}
