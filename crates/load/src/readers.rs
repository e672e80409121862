//! The readers of inputs that are not plan JSON — human-readable plans ([`super::text_plan`]),
//! Terraform states ([`super::state`]), `terraform plan -json` logs ([`super::plan_log`]) and
//! driftctl reports ([`super::driftctl`]) — behind one function with text in and text out
//! ([`answer`]), and the reading of Flux's Terraform controller's Kubernetes objects
//! ([`super::kube`]: [`read_kube`] here, the fleet in `planlens_fleet`).
//!
//! Most visits open plan JSON and never need them, so in the browser they are not part of the
//! first-visit module: the lazily loaded `part-readers` module (src/bin/part_readers.rs) exports
//! [`answer`] (through `planlens_fleet::answer_part`, which answers the fleet's own calls), and the
//! plan's worker (src/worker.rs) registers it here ([`set_part`]) once loaded.
//! Detection stays in the loader (`load::read_decoded`: the cheap `looks_like_*` checks and the
//! keys of the one parse); only the conversion goes through [`read`]:
//! - natively (the CLI, `cargo test`) [`read`] calls the readers directly, as it always did;
//! - in the browser, without the part, it refuses with [`LoadError::NeedsReaders`] and notes that
//!   the part was missed ([`take_missed`]): the worker loads the part and opens the file again;
//! - with the part registered (the browser after that, and tests that take the browser's path)
//!   the part's answer is opened here ([`open_answer`]) into the same document the reader makes:
//!   the converted plan's text, its [`Source`] facts, warnings, notes and the original text, or
//!   the reader's error message word for word ([`LoadError::Reader`]).
//!
//! The answer's first line is a small JSON head; the converted plan's text follows it as it is
//! (not as a JSON string: a state's plan can be megabytes, and escaping and unescaping it would
//! cost a copy each way).

use std::cell::{Cell, RefCell};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::LoadError;
use super::decode::Decoded;
use super::kube::{Content, Unpacked};
use planlens_model::{Document, Source};

/// A reader the part runs.
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
    /// Kubernetes objects → the one plan, text plan or state they hold, unpacked ([`read_kube`]).
    Kube,
    /// Files opened together → their fleet (`planlens_fleet::read_files`; the part keeps it).
    Fleet,
    /// A link of the fleet the part keeps → its file (`planlens_fleet::OpenFleet::link_file`).
    FleetLink,
}

impl Reader {
    const ALL: [Reader; 7] = [
        Reader::TextPlan,
        Reader::State,
        Reader::PlanLog,
        Reader::Driftctl,
        Reader::Kube,
        Reader::Fleet,
        Reader::FleetLink,
    ];

    /// The reader's name in the part's calls.
    pub fn name(self) -> &'static str {
        match self {
            Reader::TextPlan => "text_plan",
            Reader::State => "state",
            Reader::PlanLog => "plan_log",
            Reader::Driftctl => "driftctl",
            Reader::Kube => "kube",
            Reader::Fleet => "fleet",
            Reader::FleetLink => "fleet_link",
        }
    }

    /// The reader named `name`.
    pub fn from_name(name: &str) -> Option<Reader> {
        Reader::ALL.into_iter().find(|r| r.name() == name)
    }

    /// What a file this reader reads is, for [`LoadError::NeedsReaders`].
    fn what(self) -> &'static str {
        match self {
            Reader::TextPlan => "a human-readable plan",
            Reader::State => "a Terraform state",
            Reader::PlanLog => "a `terraform plan -json` log",
            Reader::Driftctl => "a driftctl report",
            Reader::Kube => "a file of Kubernetes objects",
            Reader::Fleet | Reader::FleetLink => "a fleet of tf-controller workspaces",
        }
    }
}

/// The first line of the part's answer.
// Externally tagged: an internally tagged enum is read through serde's buffered `Content`, which
// would instantiate `Source`'s and `TextPlan`'s readers a second time in the first-visit module.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Head {
    /// A document: the converted plan's text follows the line.
    Document {
        source: Source,
        warnings: Vec<String>,
        notes: Vec<String>,
        /// True when the document keeps the file's own text (`Document::original`).
        original: bool,
    },
    /// What Kubernetes objects hold ([`Reader::Kube`]): its text follows the line.
    Stored(StoredHead),
    /// The reader refused the file: its [`LoadError`]'s message.
    Refused { message: String },
}

/// An [`Unpacked`] stored thing without its text, which follows the head line.
#[derive(Serialize, Deserialize)]
pub struct StoredHead {
    label: String,
    note: String,
    /// `plan`, `text_plan` or `state`.
    kind: String,
    /// What decoding it undid (a plan's or state's gzip).
    notes: Vec<String>,
}

impl StoredHead {
    /// The head of `unpacked`, and its text.
    pub fn of(unpacked: Unpacked) -> (StoredHead, String) {
        let (kind, text, notes) = match unpacked.content {
            Content::Plan(d) => ("plan", d.text, d.notes),
            Content::TextPlan(text) => ("text_plan", text, Vec::new()),
            Content::State(d) => ("state", d.text, d.notes),
        };
        let head = StoredHead {
            label: unpacked.label,
            note: unpacked.note,
            kind: kind.to_string(),
            notes,
        };
        (head, text)
    }

    /// The stored thing again, with its `text`.
    pub fn unpacked(self, text: String) -> Result<Unpacked, LoadError> {
        let decoded = Decoded {
            text,
            notes: self.notes,
        };
        let content = match self.kind.as_str() {
            "plan" => Content::Plan(decoded),
            "text_plan" => Content::TextPlan(decoded.text),
            "state" => Content::State(decoded),
            other => return Err(garbled(format!("it stored a {other:?}"))),
        };
        Ok(Unpacked {
            label: self.label,
            note: self.note,
            content,
        })
    }
}

/// The part as the browser's worker calls it: (reader's name, file name, text) → the answer, or
/// a message when the call itself failed.
pub type Part = Box<dyn Fn(&str, &str, &str) -> Result<String, String>>;

thread_local! {
    static PART: RefCell<Option<Part>> = const { RefCell::new(None) };
    static MISSED: Cell<bool> = const { Cell::new(false) };
}

/// Registers the part (in the browser, the loaded `part-readers` module's export): from now on
/// [`read`] goes through it, on every target.
pub fn set_part(part: Part) {
    PART.with(|p| *p.borrow_mut() = Some(part));
}

/// Forgets the registered part (tests).
pub fn clear_part() {
    PART.with(|p| *p.borrow_mut() = None);
}

/// True when a file needed the part since the last call while none was registered (the browser's
/// worker then loads it and opens the file again); resets the mark.
pub fn take_missed() -> bool {
    MISSED.with(|m| m.replace(false))
}

/// The part's entry point: runs `reader` (by [`Reader::name`]) on `text` and writes its answer
/// (see the module documentation). Never fails: a reader's error is part of the answer.
pub fn answer(reader: &str, name: &str, text: &str) -> String {
    let head = match Reader::from_name(reader) {
        // The fleet's calls are answered by `planlens_fleet::answer_part`, which the part calls.
        None | Some(Reader::Fleet | Reader::FleetLink) => Head::Refused {
            message: format!("Planlens has no reader named {reader:?}; please report this"),
        },
        Some(Reader::Kube) => match kube_directly(text) {
            Ok(unpacked) => {
                let (head, text) = StoredHead::of(unpacked);
                let mut out = head_line(&Head::Stored(head));
                out.push_str(&text);
                return out;
            }
            Err(e) => Head::Refused {
                message: e.to_string(),
            },
        },
        Some(reader) => match read_directly(reader, text.to_string(), name) {
            Ok(doc) => {
                let head = Head::Document {
                    source: doc.source.clone(),
                    warnings: doc.warnings.clone(),
                    notes: doc.notes.clone(),
                    original: doc.original.is_some(),
                };
                let mut out = head_line(&head);
                out.push_str(doc.text());
                return out;
            }
            Err(e) => Head::Refused {
                message: e.to_string(),
            },
        },
    };
    head_line(&head)
}

/// A head `line`, with its newline.
pub fn head_line<T: Serialize>(head: &T) -> String {
    // A serde type of strings, vectors and numbers: writing it cannot fail.
    let mut line = serde_json::to_string(head).unwrap_or_default();
    line.push('\n');
    line
}

/// Opens the part's answer about `text` (the file's text, kept as the document's original when
/// the reader keeps it) as the document the reader made.
pub fn open_answer(answer: String, text: String, name: &str) -> Result<Document, LoadError> {
    let (head, plan) = split_answer(answer)?;
    match head {
        Head::Document {
            source,
            warnings,
            notes,
            original,
        } => {
            let mut doc = Document::parse(plan, name.to_string())
                .map_err(|(_, e)| garbled(format!("its converted plan does not read ({e})")))?;
            doc.source = source;
            doc.warnings = warnings;
            doc.notes = notes;
            doc.original = original.then_some(text);
            Ok(doc)
        }
        Head::Refused { message } => Err(LoadError::Reader { message }),
        Head::Stored(_) => Err(garbled("it answered with stored objects".to_string())),
    }
}

/// The head line and what follows it.
pub fn split_answer<T: DeserializeOwned>(mut answer: String) -> Result<(T, String), LoadError> {
    let Some(at) = answer.find('\n') else {
        return Err(garbled("its answer has no head line".to_string()));
    };
    let head: T = serde_json::from_str(&answer[..at])
        .map_err(|e| garbled(format!("its answer does not read ({e})")))?;
    // Only the head's bytes move: the plan's text stays where it is.
    answer.drain(..=at);
    Ok((head, answer))
}

/// An answer the first-visit module cannot read: two builds of Planlens mixed (a cached part of
/// another version), or a bug.
pub fn garbled(why: String) -> LoadError {
    LoadError::Reader {
        message: format!(
            "Planlens' reader for this file gave an answer this page cannot read: {why}. Reload \
             the page and open the file again; if it persists, please report this."
        ),
    }
}

/// Reads `text` with `reader` into an unmasked document: through the registered part if there is
/// one, else directly (natively) or not at all (in the browser, [`LoadError::NeedsReaders`]).
pub fn read(reader: Reader, text: String, name: &str) -> Result<Document, LoadError> {
    match call_part(reader, name, &text) {
        Some(answer) => open_answer(answer?, text, name),
        None => read_without_part(reader, text, name),
    }
}

/// Kubernetes objects (one file's text) → the one plan, text plan or state they hold
/// ([`super::kube::Objects::single`]), unpacked: through the part when one is registered, else
/// directly (natively) or not at all (in the browser, [`LoadError::NeedsReaders`]).
pub fn read_kube(text: &str, name: &str) -> Result<Unpacked, LoadError> {
    match call_part(Reader::Kube, name, text) {
        Some(answer) => match split_answer(answer?)? {
            (Head::Stored(head), text) => head.unpacked(text),
            (Head::Refused { message }, _) => Err(LoadError::Reader { message }),
            (Head::Document { .. }, _) => Err(garbled("it answered with a document".to_string())),
        },
        None => kube_without_part(text),
    }
}

/// The registered part's answer, or `None` when none is registered.
pub fn call_part(reader: Reader, name: &str, text: &str) -> Option<Result<String, LoadError>> {
    PART.with(|p| {
        p.borrow().as_ref().map(|part| {
            part(reader.name(), name, text).map_err(|e| LoadError::Reader {
                message: format!("Planlens' reader for {} failed: {e}", reader.what()),
            })
        })
    })
}

#[cfg(not(target_arch = "wasm32"))]
fn read_without_part(reader: Reader, text: String, name: &str) -> Result<Document, LoadError> {
    read_directly(reader, text, name)
}

#[cfg(not(target_arch = "wasm32"))]
fn kube_without_part(text: &str) -> Result<Unpacked, LoadError> {
    kube_directly(text)
}

/// In the browser the readers are not part of the first-visit module (see the module
/// documentation): say what was missed, for the worker.
#[cfg(target_arch = "wasm32")]
fn read_without_part(reader: Reader, _text: String, _name: &str) -> Result<Document, LoadError> {
    missed(reader)
}

#[cfg(target_arch = "wasm32")]
fn kube_without_part(_text: &str) -> Result<Unpacked, LoadError> {
    missed(Reader::Kube)
}

/// Notes that a file needed the part while none was registered ([`take_missed`]) and says so.
#[cfg(target_arch = "wasm32")]
pub fn missed<T>(reader: Reader) -> Result<T, LoadError> {
    MISSED.with(|m| m.set(true));
    Err(LoadError::NeedsReaders {
        what: reader.what(),
    })
}

/// The readers themselves: what the part runs, and what native builds call.
fn read_directly(reader: Reader, text: String, name: &str) -> Result<Document, LoadError> {
    match reader {
        Reader::State => super::state::read_state(text, name),
        Reader::PlanLog => load_plan_log(text, name),
        Reader::Driftctl => load_driftctl(text, name),
        Reader::TextPlan => super::text_plan::document(&text, name),
        // Not documents: [`answer`] and `planlens_fleet` call them apart.
        Reader::Kube | Reader::Fleet | Reader::FleetLink => Err(LoadError::Reader {
            message: format!(
                "Planlens read {} as a document; please report this",
                reader.what()
            ),
        }),
    }
}

/// What one file of Kubernetes objects holds, unpacked (what the part runs, and native builds).
fn kube_directly(text: &str) -> Result<Unpacked, LoadError> {
    super::kube::Objects::collect(super::kube::read(text)?)
        .single()?
        .unpack()
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
