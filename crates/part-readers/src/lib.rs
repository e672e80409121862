//! The readers' part: how the browser app reaches the readers of inputs that are not plan JSON
//! (`planlens-readers`: text plans, states, plan logs, driftctl reports, Kubernetes objects) and the
//! fleet (`planlens_fleet`), which are not in the first-visit module but in the lazily loaded
//! `part-readers` (this package's binary). Both ends are here, in a package of the browser app
//! that the part and the app's worker both depend on, so they compile and are tested natively
//! (tests/core/readers_part.rs, through the app's `planlens::readers_part`):
//! - the part's side (the `part` feature: the part's binary and the native tests; never in the
//!   page's module): `answer`, its one entry point (a call's name, a file name, text in; the
//!   answer's text out), which runs `readers::Direct` and keeps the fleet it read last for the
//!   links asked of it later ([`Call::FleetLink`]);
//! - the worker's side: [`PartReaders`], the readers the plan's worker gives the session
//!   (`load::Readers`, `fleet::FleetReaders`). Once the part is loaded ([`PartReaders::load`])
//!   they call it and open its answer into the same document, stored objects or fleet the
//!   readers make directly; until then they refuse with [`LoadError::NeedsReaders`] and note the
//!   miss ([`PartReaders::take_missed`]), and the worker loads the part and opens the files
//!   again. On the page, where no part is ever loaded, they only refuse.
//!
//! An answer's first line is a small JSON head ([`Head`]: the document's `Source` facts,
//! warnings and notes, what stored objects were, a fleet's rows, or the reader's error message
//! word for word); the converted plan's (or stored thing's, or link's) text follows it as it is,
//! not as a JSON string: a state's plan can be megabytes, and escaping and unescaping it would
//! cost a copy each way.
//!
//! In `planlens-web` nothing calls `Direct`: the readers (`planlens-readers`: its converters and
//! `kube` reading) and `Fleet::read` are only in `part-readers`. A refusal crosses as its message
//! word for word (`LoadError::Reader`); an answer that does not read is a message (reload the
//! page), never a panic. tests/core/readers_part.rs checks that every fixture and real file gives
//! the same document, index, remask and message through the part as directly, and every set of
//! Kubernetes files the same session open (a plan's index, or a fleet's rows, problems and every
//! link's file).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

#[cfg(feature = "part")]
use planlens_fleet::Fleet;
use planlens_fleet::{Decoded, FleetIndex, FleetRead, FleetReaders, Link, LinkFiles, OpenFleet};
use planlens_load::LoadError;
use planlens_load::decode;
use planlens_load::kube::{Content, Unpacked};
use planlens_load::readers::{Reader, Readers};
use planlens_model::{Document, Source};
#[cfg(feature = "part")]
use planlens_readers::Direct;

/// What the part is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// Read a file into a document.
    Read(Reader),
    /// Unpack the one plan, text plan or state one file's Kubernetes objects hold.
    Kube,
    /// Read files opened together (the JSON of `fleet::Decoded`) into a fleet, and keep it.
    Fleet,
    /// A link (its JSON) of the fleet the part keeps → its file.
    FleetLink,
    /// An archive (its bytes in base64, the budget left in the name after `|`) → its files.
    Unpack,
}

impl Call {
    /// The call's name, as it crosses.
    pub fn name(self) -> &'static str {
        match self {
            Call::Read(reader) => reader.name(),
            Call::Kube => "kube",
            Call::Fleet => "fleet",
            Call::FleetLink => "fleet_link",
            Call::Unpack => "unpack",
        }
    }

    /// The call named `name`.
    pub fn from_name(name: &str) -> Option<Call> {
        match name {
            "kube" => Some(Call::Kube),
            "fleet" => Some(Call::Fleet),
            "fleet_link" => Some(Call::FleetLink),
            "unpack" => Some(Call::Unpack),
            _ => Reader::from_name(name).map(Call::Read),
        }
    }

    /// What a file this call reads is, for [`LoadError::NeedsReaders`].
    fn what(self) -> &'static str {
        match self {
            Call::Read(reader) => reader.what(),
            Call::Kube => "a file of Kubernetes objects",
            Call::Fleet | Call::FleetLink => "a fleet of tf-controller workspaces",
            Call::Unpack => "an archive (zip, tar, tar.gz)",
        }
    }
}

/// How the part's refusal to unpack says the archive is damaged (not over a limit).
const DAMAGED: &str = "damaged: ";

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
    /// What Kubernetes objects hold ([`Call::Kube`]): its text follows the line.
    Stored(StoredHead),
    /// The fleet's rows, and `Fleet::single` (its text follows the line).
    Fleet {
        index: FleetIndex,
        single: Option<Result<StoredHead, String>>,
    },
    /// A link's file (its text follows the line), or none.
    File { name: Option<String> },
    /// An archive's files: what the budget has left; their paths and bytes (base64) follow the
    /// line as JSON.
    Entries { left: u64 },
    /// The call could not be answered (a reader refused the file): its message.
    Refused { message: String },
}

impl Head {
    /// What the head is, for an answer of the wrong kind.
    fn kind(&self) -> &'static str {
        match self {
            Head::Document { .. } => "a document",
            Head::Stored(_) => "stored objects",
            Head::Fleet { .. } => "a fleet",
            Head::File { .. } => "a file",
            Head::Entries { .. } => "an archive's files",
            Head::Refused { .. } => "a refusal",
        }
    }
}

/// An [`Unpacked`] stored thing without its text, which follows the head line.
#[derive(Serialize, Deserialize)]
struct StoredHead {
    label: String,
    note: String,
    /// `plan`, `text_plan` or `state`.
    kind: String,
    /// What decoding it undid (a plan's or state's gzip).
    notes: Vec<String>,
}

impl StoredHead {
    /// The head of `unpacked`, and its text.
    #[cfg(feature = "part")]
    fn of(unpacked: Unpacked) -> (StoredHead, String) {
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
    fn unpacked(self, text: String) -> Result<Unpacked, LoadError> {
        let decoded = decode::Decoded {
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

#[cfg(feature = "part")]
thread_local! {
    /// The fleet the part read last (the part's instance in the fleet's worker keeps it for the
    /// links the page asks for later).
    static FLEET: RefCell<Option<Fleet>> = const { RefCell::new(None) };
}

/// The part's entry point (this package's binary exports it): runs `call` (by [`Call::name`])
/// on `text` with `readers::Direct` and writes its answer (see the module documentation). Never
/// fails: a reader's error is part of the answer.
#[cfg(feature = "part")]
pub fn answer(call: &str, name: &str, text: &str) -> String {
    let head = match Call::from_name(call) {
        None => Head::Refused {
            message: format!("Planlens has no reader named {call:?}; please report this"),
        },
        Some(Call::Read(reader)) => match Direct.document(reader, text.to_string(), name) {
            Ok(doc) => {
                let head = Head::Document {
                    source: doc.source.clone(),
                    warnings: doc.warnings.clone(),
                    notes: doc.notes.clone(),
                    original: doc.original.is_some(),
                };
                return with_text(&head, doc.text());
            }
            Err(e) => Head::Refused {
                message: e.to_string(),
            },
        },
        Some(Call::Kube) => match Direct.kube(text, name) {
            Ok(unpacked) => {
                let (head, text) = StoredHead::of(unpacked);
                return with_text(&Head::Stored(head), &text);
            }
            Err(e) => Head::Refused {
                message: e.to_string(),
            },
        },
        Some(Call::Fleet) => match serde_json::from_str::<Decoded>(text) {
            Ok(files) => {
                let fleet = Fleet::read_decoded(files);
                let (single, after) = match fleet.single() {
                    Some(Ok(unpacked)) => {
                        let (head, text) = StoredHead::of(unpacked);
                        (Some(Ok(head)), text)
                    }
                    Some(Err(e)) => (Some(Err(e.to_string())), String::new()),
                    None => (None, String::new()),
                };
                let head = Head::Fleet {
                    index: fleet.index(),
                    single,
                };
                FLEET.with(|f| *f.borrow_mut() = Some(fleet));
                return with_text(&head, &after);
            }
            Err(e) => Head::Refused {
                message: format!("Planlens' fleet reader was sent files it cannot read ({e})"),
            },
        },
        Some(Call::Unpack) => {
            use base64::Engine;
            let engine = base64::engine::general_purpose::STANDARD;
            let (name, left) = name.rsplit_once('|').unwrap_or((name, ""));
            let mut budget = planlens_load::archive::Budget {
                left: left.parse().unwrap_or(0),
            };
            match engine.decode(text).map_err(|e| LoadError::Reader {
                message: format!("Planlens' archive reader was sent bytes it cannot read ({e})"),
            }) {
                Ok(bytes) => match Direct.unpack(&bytes, name, &mut budget) {
                    Ok(entries) => {
                        let list: Vec<(String, String)> = (entries.into_iter())
                            .map(|e| (e.path, engine.encode(&e.bytes)))
                            .collect();
                        let json = serde_json::to_string(&list).unwrap_or_default();
                        return with_text(&Head::Entries { left: budget.left }, &json);
                    }
                    // A damaged archive is a problem of the set, not a failure: say which.
                    Err(LoadError::BadArchive { message, .. }) => Head::Refused {
                        message: format!("{DAMAGED}{message}"),
                    },
                    Err(e) => Head::Refused {
                        message: e.to_string(),
                    },
                },
                Err(e) => Head::Refused {
                    message: e.to_string(),
                },
            }
        }
        Some(Call::FleetLink) => match serde_json::from_str::<Link>(text) {
            Ok(link) => match FLEET.with(|f| f.borrow().as_ref().map(|f| f.link_file(link))) {
                Some(file) => {
                    let (name, text) = file.unzip();
                    return with_text(&Head::File { name }, &text.unwrap_or_default());
                }
                None => Head::Refused {
                    message: "This fleet's files are no longer read: open them again.".to_string(),
                },
            },
            Err(e) => Head::Refused {
                message: format!("Planlens' fleet reader was sent a link it cannot read ({e})"),
            },
        },
    };
    with_text(&head, "")
}

/// The head line, then `text`.
#[cfg(feature = "part")]
fn with_text(head: &Head, text: &str) -> String {
    // A serde type of strings, vectors and numbers: writing it cannot fail.
    let mut out = serde_json::to_string(head).unwrap_or_default();
    out.push('\n');
    out.push_str(text);
    out
}

/// The head line and what follows it.
fn split_answer<T: DeserializeOwned>(mut answer: String) -> Result<(T, String), LoadError> {
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
fn garbled(why: String) -> LoadError {
    LoadError::Reader {
        message: format!(
            "Planlens' reader for this file gave an answer this page cannot read: {why}. Reload \
             the page and open the file again; if it persists, please report this."
        ),
    }
}

/// An answer of another kind than the call's.
fn unexpected(head: &Head) -> LoadError {
    garbled(format!("it answered with {}", head.kind()))
}

/// The loaded part as the worker calls it: (call's name, file name, text) → the answer, or a
/// message when the call itself failed (in the browser, the part's exported function threw).
pub type Part = Box<dyn Fn(&str, &str, &str) -> Result<String, String>>;

/// The readers the browser app gives the session: they ask the readers' part once it is loaded
/// ([`PartReaders::load`]), and until then refuse with [`LoadError::NeedsReaders`], noting the
/// miss for the worker ([`PartReaders::take_missed`]). They never read anything themselves.
#[derive(Default)]
pub struct PartReaders {
    /// The loaded part, shared with the fleets it read (their links are asked of it).
    part: Rc<RefCell<Option<Part>>>,
    missed: Cell<bool>,
}

impl PartReaders {
    /// Readers without the part (on the page, where it is never loaded, they only refuse).
    pub fn new() -> PartReaders {
        PartReaders::default()
    }

    /// From now on, calls go to `part` (in the browser, the loaded module's export).
    pub fn load(&self, part: Part) {
        *self.part.borrow_mut() = Some(part);
    }

    /// Forgets the part: calls refuse again, and the fleets read through it can no longer give
    /// their links' files.
    pub fn unload(&self) {
        *self.part.borrow_mut() = None;
    }

    /// True when a file needed the part since the last call while it was not loaded (the
    /// worker then loads it and opens the file again); resets the mark.
    pub fn take_missed(&self) -> bool {
        self.missed.replace(false)
    }

    /// The part's answer to `call`, or [`LoadError::NeedsReaders`] (and the mark) when it is not
    /// loaded.
    fn call(&self, call: Call, name: &str, text: &str) -> Result<String, LoadError> {
        match ask(&self.part, call, name, text) {
            Some(answer) => answer,
            None => {
                self.missed.set(true);
                Err(LoadError::NeedsReaders { what: call.what() })
            }
        }
    }
}

/// `part`'s answer to `call`, or `None` when it is not loaded.
fn ask(
    part: &RefCell<Option<Part>>,
    call: Call,
    name: &str,
    text: &str,
) -> Option<Result<String, LoadError>> {
    part.borrow().as_ref().map(|part| {
        part(call.name(), name, text).map_err(|e| LoadError::Reader {
            message: format!("Planlens' reader for {} failed: {e}", call.what()),
        })
    })
}

impl Readers for PartReaders {
    /// The part's answer about `text` opened as the document the reader made (`text` kept as
    /// the document's original when the reader keeps it).
    fn document(&self, reader: Reader, text: String, name: &str) -> Result<Document, LoadError> {
        let answer = self.call(Call::Read(reader), name, &text)?;
        match split_answer(answer)? {
            (
                Head::Document {
                    source,
                    warnings,
                    notes,
                    original,
                },
                plan,
            ) => {
                let mut doc = Document::parse(plan, name.to_string())
                    .map_err(|(_, e)| garbled(format!("its converted plan does not read ({e})")))?;
                doc.source = source;
                doc.warnings = warnings;
                doc.notes = notes;
                doc.original = original.then_some(text);
                Ok(doc)
            }
            (Head::Refused { message }, _) => Err(LoadError::Reader { message }),
            (head, _) => Err(unexpected(&head)),
        }
    }

    fn kube(&self, text: &str, name: &str) -> Result<Unpacked, LoadError> {
        match split_answer(self.call(Call::Kube, name, text)?)? {
            (Head::Stored(head), text) => head.unpacked(text),
            (Head::Refused { message }, _) => Err(LoadError::Reader { message }),
            (head, _) => Err(unexpected(&head)),
        }
    }

    /// The part unpacks it (the archive readers are not in the first-visit module); bytes cross
    /// as base64, the budget's figure in the call's name.
    fn unpack(
        &self,
        bytes: &[u8],
        name: &str,
        budget: &mut planlens_load::archive::Budget,
    ) -> Result<Vec<planlens_load::archive::Entry>, LoadError> {
        use base64::Engine;
        let engine = base64::engine::general_purpose::STANDARD;
        let call_name = format!("{name}|{}", budget.left);
        let answer = self.call(Call::Unpack, &call_name, &engine.encode(bytes))?;
        match split_answer(answer)? {
            (Head::Entries { left }, json) => {
                budget.left = left;
                let list: Vec<(String, String)> = serde_json::from_str(&json)
                    .map_err(|e| garbled(format!("its files do not read ({e})")))?;
                (list.into_iter())
                    .map(|(path, b64)| {
                        engine
                            .decode(b64)
                            .map(|bytes| planlens_load::archive::Entry { path, bytes })
                            .map_err(|e| garbled(format!("its files do not read ({e})")))
                    })
                    .collect()
            }
            // A damaged archive stays one (a problem of the set); a limit passed fails the set.
            (Head::Refused { message }, _) => match message.strip_prefix(DAMAGED) {
                Some(message) => Err(LoadError::BadArchive {
                    archive: name.to_string(),
                    message: message.to_string(),
                }),
                None => Err(LoadError::Reader { message }),
            },
            (head, _) => Err(unexpected(&head)),
        }
    }
}

impl FleetReaders for PartReaders {
    /// The part reads the files (decoded here: gzip and UTF-16 stay in the first-visit module)
    /// and keeps the fleet; its links are asked of it ([`PartFleet`]).
    fn fleet(&self, files: Decoded) -> Result<FleetRead, LoadError> {
        // Strings and results of strings: writing them cannot fail.
        let json = serde_json::to_string(&files).unwrap_or_default();
        match split_answer(self.call(Call::Fleet, "", &json)?)? {
            (Head::Fleet { index, single }, text) => Ok(FleetRead {
                single: single.map(|s| match s {
                    Ok(head) => head.unpacked(text),
                    Err(message) => Err(LoadError::Reader { message }),
                }),
                fleet: OpenFleet {
                    index,
                    files: Box::new(PartFleet {
                        part: self.part.clone(),
                    }),
                },
            }),
            (Head::Refused { message }, _) => Err(LoadError::Reader { message }),
            (head, _) => Err(unexpected(&head)),
        }
    }
}

/// A fleet the part read and keeps: its links' files are asked of the part.
struct PartFleet {
    part: Rc<RefCell<Option<Part>>>,
}

impl LinkFiles for PartFleet {
    fn link_file(&self, link: Link) -> Result<Option<(String, String)>, LoadError> {
        // A `Link` is two small fields: writing it cannot fail.
        let json = serde_json::to_string(&link).unwrap_or_default();
        let Some(answer) = ask(&self.part, Call::FleetLink, "", &json) else {
            return Err(LoadError::Reader {
                message: "The fleet's reader is no longer loaded: open the files again."
                    .to_string(),
            });
        };
        match split_answer(answer?)? {
            (Head::File { name }, text) => Ok(name.map(|name| (name, text))),
            (Head::Refused { message }, _) => Err(LoadError::Reader { message }),
            (head, _) => Err(unexpected(&head)),
        }
    }
}
