//! Bytes → a loaded plan, or an error a user can act on.
//!
//! Detects what a file is: a plan, a `terraform plan -json` log, a driftctl report, a Terraform
//! state, a text plan or Kubernetes objects (all converted to the plan model by the
//! `planlens-readers` crate; a state is never judged), or something Planlens refuses plainly (a
//! provider schema, other JSON). Plans are detected in the same single parse that reads them.
//! Never panics on any input. The conversions go through the [`Readers`] port the caller gives
//! (`planlens_readers::Direct` natively; in the browser the app's, which ask a lazily loaded
//! part); detection stays here ([`plan_log`], [`state`], [`text_plan`] and [`kube`] hold only
//! what detection and the port need).
//!
//! Entry points: `load_plan_with(bytes, name, mask, readers)`, `load_plan_text_with` and
//! `load_unpacked_with` (what the readers unpacked from a Kubernetes object); natively
//! `planlens_readers::load_plan` and `load_plan_text` call them with the built-in mask and
//! `Direct`. A file over `MAX_FILE_BYTES` (300 MB) is refused before it is parsed, and a JSON error
//! gives its line and column. This crate cannot name `planlens-readers` (it sits above it), so it
//! never converts or reads a non-plan input itself.

pub mod archive;
pub mod decode;
pub mod error;
pub mod fragment;
pub mod kube;
pub mod link;
pub mod mask;
pub mod plan_log;
pub mod readers;
pub mod redacted;
pub mod set;
pub mod state;
pub mod text_plan;
pub mod yaml;

use std::collections::BTreeMap;

use serde::de::IgnoredAny;

use error::strip_position;
pub use error::{ArchiveLimit, LoadError, MAX_FILE_BYTES, NotAPlan};

use planlens_model::mask::Mask;
use planlens_model::{Document, Plan, Source};
use readers::Reader;
pub use readers::Readers;

/// What a file picker offers (an `accept` attribute): the names every input the loader reads is
/// usually saved under — plan JSON, states and driftctl reports (`.json`, `.tfstate`,
/// `terraform.tfstate.backup`), plan logs (`.jsonl`, `.log`), text plans in CI logs and PR comments
/// (`.txt`, `.log`, `.md` for Atlantis and tfcmt), Kubernetes objects (`.json`, `.yaml`, `.yml`) and
/// gzip copies of any of them (`.gz`). Detection reads the content, never the name: this only keeps
/// the system dialog from greying such files out (its "All files" still offers a text plan saved
/// without an extension).
pub const FILE_TYPES: &str = ".json,.jsonl,.log,.txt,.md,.tfstate,.backup,.yaml,.yml,.gz,.zip,\
                              .tar,.tgz,application/json,text/plain,text/markdown,\
                              application/yaml,application/gzip,application/zip,application/x-tar";

/// Format versions of `terraform show -json` this build knows field by field.
pub const KNOWN_FORMAT_VERSIONS: [&str; 5] = ["0.1", "0.2", "1.0", "1.1", "1.2"];

/// Reads a file's bytes as a plan, masking values under keys `mask` matches ([`mask::apply`]);
/// a file that is not plan JSON is converted by `readers`.
pub fn load_plan_with(
    bytes: Vec<u8>,
    name: &str,
    mask: &Mask,
    readers: &dyn Readers,
) -> Result<Document, LoadError> {
    read_bytes(bytes, name, readers).and_then(|doc| mask::apply(doc, mask))
}

/// Reads text (a pasted plan, or a file already decoded) as a plan, a plan log or a driftctl
/// report, masking values under keys `mask` matches; a text that is not plan JSON is converted by
/// `readers` (natively `planlens_readers::load_plan_text` uses the built-in mask and `Direct`).
pub fn load_plan_text_with(
    text: String,
    name: &str,
    mask: &Mask,
    readers: &dyn Readers,
) -> Result<Document, LoadError> {
    read_text(text, name, readers).and_then(|doc| mask::apply(doc, mask))
}

/// Bytes → a document, before masking.
fn read_bytes(bytes: Vec<u8>, name: &str, readers: &dyn Readers) -> Result<Document, LoadError> {
    if bytes.len() > MAX_FILE_BYTES {
        return Err(LoadError::TooLarge {
            bytes: bytes.len(),
            limit: MAX_FILE_BYTES,
        });
    }
    let decode::Decoded { text, mut notes } = decode::decode(bytes)?;
    let mut doc = read_decoded(text, name, readers)?;
    // The file's own decoding first, then what a reader undid inside it (a Secret's gzip).
    notes.append(&mut doc.notes);
    doc.notes = notes;
    Ok(doc)
}

/// Text → a document, before masking. Text goes through the same [`decode`] step as a file's
/// bytes, so pasted wrapper output opens too.
fn read_text(text: String, name: &str, readers: &dyn Readers) -> Result<Document, LoadError> {
    read_bytes(text.into_bytes(), name, readers)
}

/// Decoded text → a document, before masking.
fn read_decoded(text: String, name: &str, readers: &dyn Readers) -> Result<Document, LoadError> {
    if text.trim().is_empty() {
        return Err(LoadError::Empty);
    }
    // Decoding UTF-16 can make the text longer than the file was.
    if text.len() > MAX_FILE_BYTES {
        return Err(LoadError::TooLarge {
            bytes: text.len(),
            limit: MAX_FILE_BYTES,
        });
    }
    if planlens_model::redaction::looks_redacted(&text) {
        return redacted::read(text, name);
    }
    if plan_log::looks_like_plan_log(&text) {
        return readers.document(Reader::PlanLog, text, name);
    }
    if yaml::looks_like_kube_yaml(&text) {
        return load_kube(&text, name, readers);
    }
    let mut doc = match Document::parse(text, name.to_string()) {
        Ok(doc) => doc,
        Err((text, e)) => {
            // Not JSON but a human-readable plan (`planlens_readers::text_plan`).
            if !text.trim_start().starts_with('{') && text_plan::looks_like_text_plan(&text) {
                return readers.document(Reader::TextPlan, text, name);
            }
            // Text that says what it is (an apply's output, another Atlantis comment, driftctl's
            // text): say so, not "not JSON".
            if !text.trim_start().starts_with(['{', '['])
                && let Some(what) = text_plan::other_text(&text)
            {
                return Err(LoadError::NotAPlan(what));
            }
            return match explain_parse_error(&text, e) {
                LoadError::NotAPlan(NotAPlan::PlanLog) => {
                    readers.document(Reader::PlanLog, text, name)
                }
                LoadError::NotAPlan(NotAPlan::Driftctl) => {
                    readers.document(Reader::Driftctl, text, name)
                }
                LoadError::NotAPlan(NotAPlan::State | NotAPlan::ShownState) => {
                    open_state(text, name, readers)
                }
                other => Err(other),
            };
        }
    };
    // A state converted by Planlens (a share link's stripped copy) opens as a state again.
    if let Some(facts) = state::converted_facts(doc.plan()) {
        doc.source = Source::State(facts);
        return Ok(doc);
    }
    // A text plan converted by Planlens (a share link's stripped copy) opens as a text plan.
    if let Some(facts) = text_plan::converted_facts(doc.plan()) {
        doc.source = Source::TextPlan(facts);
        return Ok(doc);
    }
    let mut warnings = Vec::new();
    match classify_plan(doc.plan(), doc.text(), &mut warnings) {
        Ok(()) => {}
        Err(LoadError::NotAPlan(NotAPlan::PlanLog)) => {
            return readers.document(Reader::PlanLog, doc.text().to_string(), name);
        }
        Err(LoadError::NotAPlan(NotAPlan::Driftctl)) => {
            return readers.document(Reader::Driftctl, doc.text().to_string(), name);
        }
        // States open as a state view, never judged (`planlens_readers::state`).
        Err(LoadError::NotAPlan(NotAPlan::State | NotAPlan::ShownState)) => {
            return open_state(doc.text().to_string(), name, readers);
        }
        // A redacted document whose keys were reordered (it was edited by hand or a tool).
        Err(LoadError::NotAPlan(NotAPlan::OtherJson { keys }))
            if keys.iter().any(|k| k == "planlens_redacted") =>
        {
            return redacted::read(doc.text().to_string(), name);
        }
        // Flux's Terraform controller's objects (`planlens_readers::kube`).
        Err(LoadError::NotAPlan(NotAPlan::OtherJson { keys })) if kube::is_kube_keys(&keys) => {
            return load_kube(doc.text(), name, readers);
        }
        Err(e) => return Err(e),
    }
    doc.warnings = warnings;
    Ok(doc)
}

/// Kubernetes objects (JSON or YAML) → the one plan, text plan or state they hold
/// (`planlens_readers::kube::Objects::single`), unpacked by `readers` ([`Readers::kube`]) and opened here.
fn load_kube(text: &str, name: &str, readers: &dyn Readers) -> Result<Document, LoadError> {
    open_unpacked(readers.kube(text, name)?, name, readers)
}

/// Opens a stored thing already unpacked (`planlens_readers::kube::Stored::unpack`, which in the
/// browser the readers' part runs), with the secret-name `mask`, a text plan or state converted by `readers`.
pub fn load_unpacked_with(
    unpacked: kube::Unpacked,
    name: &str,
    mask: &Mask,
    readers: &dyn Readers,
) -> Result<Document, LoadError> {
    open_unpacked(unpacked, name, readers).and_then(|doc| mask::apply(doc, mask))
}

fn open_unpacked(
    unpacked: kube::Unpacked,
    name: &str,
    readers: &dyn Readers,
) -> Result<Document, LoadError> {
    let mut doc = match unpacked.content {
        kube::Content::Plan(decoded) => {
            let mut doc = read_decoded(decoded.text, name, readers)?;
            doc.notes = decoded.notes;
            doc
        }
        kube::Content::State(decoded) => {
            let mut doc = readers.document(Reader::State, decoded.text, name)?;
            doc.notes = decoded.notes;
            doc
        }
        kube::Content::TextPlan(text) => readers.document(Reader::TextPlan, text, name)?,
    };
    doc.notes.insert(0, unpacked.note);
    Ok(doc)
}

/// A file whose keys look like a state's: read as a state when it is one ([`state::is_state_text`]:
/// `{"values": {}}` alone is not), else refused as JSON that is no known format.
fn open_state(text: String, name: &str, readers: &dyn Readers) -> Result<Document, LoadError> {
    if state::is_state_text(&text) {
        readers.document(Reader::State, text, name)
    } else {
        Err(LoadError::NotAPlan(NotAPlan::OtherJson {
            keys: top_level_keys(&text),
        }))
    }
}

/// Decides, from a successful parse, whether this is a plan, and collects warnings.
fn classify_plan(plan: &Plan, text: &str, warnings: &mut Vec<String>) -> Result<(), LoadError> {
    match plan.format_version.as_deref() {
        Some(v) => {
            if !has_plan_keys(plan) {
                not_a_plan_with_version(plan, text)?;
            }
            if !KNOWN_FORMAT_VERSIONS.contains(&v) {
                warnings.push(format!(
                    "This plan's format_version is {v}, which this build of Planlens does not know \
                     (it reads {}). It was loaded because its keys fit; anything new in that format \
                     is not shown.",
                    KNOWN_FORMAT_VERSIONS.join(", ")
                ));
            }
            Ok(())
        }
        None => {
            let has = |key: &str| match key {
                "@level" => plan.log_level.is_some(),
                "summary" => plan.summary.is_some(),
                "coverage" => plan.coverage.is_some(),
                "managed" => plan.managed.is_some(),
                "differences" => plan.differences.is_some(),
                "lineage" => plan.lineage.is_some(),
                "version" => plan.version.is_some(),
                "resources" => plan.resources.is_some(),
                "values" => plan.values.is_some(),
                "provider_schemas" => plan.provider_schemas.is_some(),
                "resource_changes" => !plan.resource_changes.is_empty(),
                "planned_values" => plan.planned_values.is_some(),
                "resource_drift" => !plan.resource_drift.is_empty(),
                _ => false,
            };
            match looks_like(has) {
                Some(NotAPlan::PlanWithoutVersion) => {
                    warnings.push(
                        "This plan has no format_version; it was read as the newest known format."
                            .to_string(),
                    );
                    Ok(())
                }
                Some(what) => Err(LoadError::NotAPlan(what)),
                None => Err(LoadError::NotAPlan(NotAPlan::OtherJson {
                    keys: top_level_keys(text),
                })),
            }
        }
    }
}

/// Keys only a plan has at the top level. Terraform writes `planned_values` and `configuration` in
/// every plan (jsonplan/plan.go); a state (`terraform show -json` without a plan file,
/// jsonstate/state.go) has only `format_version`, `terraform_version` and `values`.
const PLAN_KEYS: [&str; 17] = [
    "planned_values",
    "resource_changes",
    "resource_drift",
    "deferred_changes",
    "output_changes",
    "prior_state",
    "configuration",
    "variables",
    "relevant_attributes",
    "checks",
    "condition_results",
    "applyable",
    "complete",
    "errored",
    "timestamp",
    "action_invocations",
    "deferred_action_invocations",
];

/// True when the parse saw keys Terraform writes in every plan, so real plans are decided without
/// a second look.
fn has_plan_keys(plan: &Plan) -> bool {
    plan.planned_values.is_some()
        || plan.configuration.is_some()
        || plan.prior_state.is_some()
        || !plan.resource_changes.is_empty()
        || !plan.resource_drift.is_empty()
        || !plan.deferred_changes.is_empty()
        || !plan.output_changes.is_empty()
}

/// For JSON with a `format_version` but none of the keys [`has_plan_keys`] reads: a plan whose
/// lists are all empty (written by hand) is still a plan; a state, an empty state
/// (`{"format_version":"1.0"}`, what `terraform show -json` prints when there is none) and provider
/// schemas are refused, never shown as "No changes.".
fn not_a_plan_with_version(plan: &Plan, text: &str) -> Result<(), LoadError> {
    let keys = top_level_keys(text);
    // `values` is the state's own key (a plan writes `planned_values`); a state may carry plan-like
    // keys too (Terraform 1.5+ writes `checks` beside it), so `values` decides first.
    if plan.values.is_some() {
        return Err(LoadError::NotAPlan(NotAPlan::ShownState));
    }
    if keys.iter().any(|k| PLAN_KEYS.contains(&k.as_str())) {
        return Ok(());
    }
    let only_versions = keys
        .iter()
        .all(|k| k == "format_version" || k == "terraform_version");
    Err(LoadError::NotAPlan(if only_versions {
        NotAPlan::ShownState
    } else if plan.provider_schemas.is_some() {
        NotAPlan::ProviderSchemas
    } else {
        NotAPlan::OtherJson { keys }
    }))
}

/// The top-level keys of a JSON object (for the message about a file that is no known format).
fn top_level_keys(text: &str) -> Vec<String> {
    serde_json::from_str::<BTreeMap<String, IgnoredAny>>(text)
        .map(|m| m.into_keys().collect())
        .unwrap_or_default()
}

/// What a JSON object that is not a plan looks like, from which top-level keys it has.
fn looks_like(has: impl Fn(&str) -> bool) -> Option<NotAPlan> {
    if has("@level") {
        Some(NotAPlan::PlanLog)
    } else if has("differences") || (has("summary") && (has("coverage") || has("managed"))) {
        Some(NotAPlan::Driftctl)
    } else if has("lineage") || (has("version") && has("resources")) {
        Some(NotAPlan::State)
    } else if has("values") {
        Some(NotAPlan::ShownState)
    } else if has("provider_schemas") && !has("resource_changes") {
        Some(NotAPlan::ProviderSchemas)
    } else if has("resource_changes") || has("planned_values") || has("resource_drift") {
        Some(NotAPlan::PlanWithoutVersion)
    } else {
        None
    }
}

/// Turns a serde_json error into a message with line and column, recognising truncated files, JSON
/// Lines logs and JSON that is valid but not a plan.
fn explain_parse_error(text: &str, e: serde_json::Error) -> LoadError {
    use serde_json::error::Category;
    let (line, column) = (e.line(), e.column());
    match e.classify() {
        Category::Eof => LoadError::Truncated { line, column },
        Category::Syntax if e.to_string().starts_with("trailing characters") => {
            // Several JSON values one after another: a JSON Lines log?
            let first_line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            match serde_json::from_str::<BTreeMap<String, IgnoredAny>>(first_line) {
                Ok(keys) if keys.contains_key("@level") || keys.contains_key("@message") => {
                    LoadError::NotAPlan(NotAPlan::PlanLog)
                }
                _ => LoadError::NotJson {
                    line,
                    column,
                    message: strip_position(&e),
                },
            }
        }
        Category::Syntax | Category::Io => LoadError::NotJson {
            line,
            column,
            message: strip_position(&e),
        },
        Category::Data => {
            // Valid JSON of the wrong shape: say what it looks like if we can.
            match serde_json::from_str::<serde_json::Value>(text) {
                Ok(serde_json::Value::Object(map)) => {
                    if map.contains_key("format_version") {
                        LoadError::InvalidPlan {
                            line,
                            column,
                            message: strip_position(&e),
                        }
                    } else {
                        looks_like(|k| map.contains_key(k))
                            .filter(|w| *w != NotAPlan::PlanWithoutVersion)
                            .map(LoadError::NotAPlan)
                            .unwrap_or_else(|| LoadError::InvalidPlan {
                                line,
                                column,
                                message: strip_position(&e),
                            })
                    }
                }
                Ok(other) => LoadError::NotAPlan(NotAPlan::NotAnObject {
                    found: json_kind(&other),
                }),
                Err(_) => LoadError::InvalidPlan {
                    line,
                    column,
                    message: strip_position(&e),
                },
            }
        }
    }
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
