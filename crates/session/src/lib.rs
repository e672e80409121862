//! An open plan's session: the full document and its analysis, held where the work is done (a
//! Web Worker in the browser), and the conversation the views have with it. Opening hands the
//! views a values-free [`Index`] (rows, counts, graph, drift, findings, outputs, checks); values
//! travel only on request, one answer at a time (a diff, the share links, findings under other
//! rules), so the side that renders never holds or parses the plan itself.
//!
//! Requests and answers are plain serde data: the browser sends them between threads as JSON, and
//! the same [`Session::answer`] runs natively in the tests.
//!
//! Files that are not plan JSON (and a remask, which reads the file again) are read with the
//! readers the caller gives: natively `readers::Direct`, in the browser's worker the app's readers,
//! which ask the readers' part.
//!
//! Requests: a row's or drift entry's diff, the dependency graph (never in the index: the session
//! builds it when first asked, `Analysis::graph_in_session`, `receive_graph`), evaluation under
//! other rules and policies, the policies' engine inputs, the share links and comment, a remask, a
//! fleet row's link. tests/core/session.rs checks the answers natively and through JSON: every
//! fixture's index reads back to the same rows, counts, drift, outputs, checks and findings, its
//! graph asked for equals the full plan's, and every diff equals the full plan's.

pub mod analysis;
pub mod compare;
pub mod glance;
pub mod index;
pub mod set;
pub mod share;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
use crate::share::markdown::{self, choose_link};
use crate::share::redacted::PolicyFindings;
use planlens_changes::checks::check_rows;
use planlens_changes::diff::{DiffError, DiffNode, diff_change};
use planlens_changes::outputs::output_rows;
use planlens_fleet::{FleetIndex, FleetReaders, Link, OpenFleet};
use planlens_load::fragment::LinkView;
use planlens_load::{LoadError, Readers, load_plan_text_with, load_plan_with};
use planlens_model::Document;
use planlens_model::document::Parsed;
use planlens_model::findings::Evaluation;
use planlens_model::mask::Mask;
use planlens_model::redaction::{CarriedGraph, Carrier, Redaction};
use planlens_policy::{PolicyFile, Shape};
use planlens_rules::RuleSet;

pub use index::Analyses;

/// Plans up to this many bytes come back with the index so the page can keep them for a reload.
pub const KEEP_FOR_RELOAD_BELOW: usize = 4 * 1024 * 1024;

/// What to open and how.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OpenOptions {
    /// The name the plan is shown as.
    pub name: String,
    /// Secret-name masking: the built-in patterns on or off.
    pub mask_builtin: bool,
    /// The user's own secret-name patterns.
    pub mask_user: Vec<String>,
    /// The rules to evaluate (TOML); `None` for the built-in pack.
    pub rules: Option<String>,
    /// The labels rules see.
    pub labels: BTreeMap<String, String>,
}

impl OpenOptions {
    /// The secret-name mask these options ask for.
    pub fn mask(&self) -> Mask {
        Mask::new(self.mask_builtin, &self.mask_user)
    }
}

/// What opening hands the views.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Index {
    /// The plan without values ([`index::plan_text`]).
    pub plan: String,
    /// What was made from the full plan.
    pub analyses: Analyses,
    /// The findings under the rules the plan was opened with, or their rule file's errors.
    pub evaluation: Result<Evaluation, String>,
    /// The built-in pack's findings when the rules do not parse, for the document to carry;
    /// `None` when they are `evaluation`'s (not sent twice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carried: Option<Evaluation>,
    /// The text as the user gave it, when small enough to keep for a reload.
    pub kept: Option<String>,
}

impl Index {
    /// The values-free document the views read, carrying the analyses and the findings.
    pub fn document(&self) -> Result<Document, LoadError> {
        self.document_over(self.plan.clone())
    }

    /// [`Index::document`] without copying the plan's text: the index is left without it.
    pub fn take_document(&mut self) -> Result<Document, LoadError> {
        let parsed = self.take_parsed()?;
        self.document_of(parsed)
    }

    /// The first half of [`Index::take_document`]: the plan's text parsed (and taken from the
    /// index), its rows not yet indexed. The page does the halves in separate tasks.
    pub fn take_parsed(&mut self) -> Result<Parsed, LoadError> {
        let plan = std::mem::take(&mut self.plan);
        planlens_load::redacted::parse_index(plan, &self.analyses.name)
    }

    /// The findings the document carries: `evaluation`'s, or the built-in pack's when the rules
    /// do not parse (`None` only for an index no session made: rule errors and nothing else).
    pub fn carried_evaluation(&self) -> Option<Evaluation> {
        match (&self.carried, &self.evaluation) {
            (Some(carried), _) => Some(carried.clone()),
            (None, Ok(evaluation)) => Some(evaluation.clone()),
            (None, Err(_)) => None,
        }
    }

    fn document_over(&self, plan: String) -> Result<Document, LoadError> {
        self.document_of(planlens_load::redacted::parse_index(
            plan,
            &self.analyses.name,
        )?)
    }

    /// The second half of [`Index::take_document`]: the rows indexed, the analyses checked
    /// against them and carried.
    pub fn document_of(&self, parsed: Parsed) -> Result<Document, LoadError> {
        let a = &self.analyses;
        let mut drift = a.drift.clone();
        for (r, id) in drift.iter_mut().zip(&a.deleted_ids) {
            if let Some(deleted) = &mut r.deleted {
                deleted.id = id.clone();
            }
        }
        let mut doc = planlens_load::redacted::read_parsed_index(
            parsed,
            Redaction {
                carrier: if a.values_dropped {
                    Carrier::Link
                } else {
                    Carrier::Session
                },
                graph: a.graph.clone(),
                drift,
                evaluation: self
                    .carried_evaluation()
                    .ok_or_else(|| LoadError::InvalidReport {
                        what: "plan index".to_string(),
                        line: 0,
                        column: 0,
                        message: "it carries neither findings nor the built-in pack's".to_string(),
                    })?,
                labels: BTreeMap::new(),
            },
        )?;
        doc.source = a.source.clone();
        doc.warnings = a.warnings.clone();
        doc.notes = a.notes.clone();
        doc.masking = planlens_model::mask::Masking {
            mask: Mask::new(a.mask_builtin, &a.mask_user),
            plan_has_marks: a.plan_has_marks,
            masked_by_name: a.masked_by_name,
        };
        Ok(doc)
    }
}

/// A question from the views.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Request {
    /// The attribute diff of row `row`.
    Diff { row: u32 },
    /// The diff of drift entry `entry` (`resource_drift[entry]`).
    DriftDiff { entry: u32 },
    /// The findings of `rules` (TOML; `None` for the built-in pack) with `labels`, and of the
    /// Rego policies whose engine answer (`policy::engine::answer_json`) is `policies`.
    Evaluate {
        rules: Option<String>,
        labels: BTreeMap<String, String>,
        #[serde(default)]
        policies: Option<String>,
    },
    /// What the Rego engine needs to evaluate `policies` on this plan: its request and one input
    /// text per shape in use (`policy::prepare`). The engine itself is a lazily loaded part of
    /// the app running in a worker of its own.
    PolicyInputs {
        policies: Vec<PolicyFile>,
        labels: BTreeMap<String, String>,
        /// conftest namespaces; empty: `main`.
        namespaces: Vec<String>,
        /// One shape for every file instead of each file's own.
        shape: Option<Shape>,
    },
    /// The share links and the PR comment for `view` at `base`.
    Share {
        base: String,
        view: Box<LinkView>,
        rules: Option<String>,
        labels: BTreeMap<String, String>,
        /// A link that fetches the plan from where it was fetched (`?url=`), for the comment.
        by_address: Option<String>,
        /// The Rego engine's answer for the policies in use, if any (as in `Evaluate`).
        #[serde(default)]
        policies: Option<String>,
        /// The plan last reviewed (its text or link), when a comparison is open: the full link
        /// carries it too and reopens the comparison.
        #[serde(default)]
        since: Option<String>,
        /// The full link carries the plan this session was last compared with (kept by
        /// [`Request::Compare`] and [`Session::compare_bytes`]), when `since` is not given.
        #[serde(default)]
        since_compared: bool,
    },
    /// Open the same text again with another mask (the rest of `options` as before).
    Remask(Box<OpenOptions>),
    /// A fleet row's plan or state, as a file to open (asked of the worker holding the fleet).
    FleetLink { link: Link },
    /// The dependency graph (the index carries none: it is built when first asked for).
    Graph,
    /// This plan compared with the plan last reviewed: `other` is that plan's file text, or a
    /// Planlens link that carries it (full or redacted); findings under `rules` and `labels`.
    Compare {
        other: String,
        rules: Option<String>,
        labels: BTreeMap<String, String>,
    },
    /// [`Request::Compare`] with a file the last plan was in: its bytes travel beside this
    /// request (the browser's worker reads the `File` the page hands it and calls
    /// [`Session::compare_bytes`]), so a large plan is never a string on the page or in JSON.
    CompareFile {
        rules: Option<String>,
        labels: BTreeMap<String, String>,
    },
}

/// An answer, in the order of [`Request`]'s variants.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Response {
    /// A diff, or why there is none.
    Diff(Option<Result<DiffNode, DiffError>>),
    /// Findings, or the rule file's errors.
    Evaluation(Result<Evaluation, String>),
    /// Both links and the comment.
    Share {
        full: String,
        redacted: String,
        markdown: String,
        /// The rules had errors: the built-in pack's findings were used.
        builtin_fallback: bool,
    },
    /// The plan opened (again).
    Opened(Box<Index>),
    /// The Rego engine's request (JSON text of `policy::engine::Request`), each policy file's
    /// shape (`None` for a test file) and the input texts. (The worker sends the inputs as bytes
    /// beside the answer's JSON.)
    PolicyInputs {
        request: String,
        shapes: Vec<Option<Shape>>,
        #[serde(default)]
        inputs: Vec<String>,
    },
    /// It could not be opened: the message says why.
    Failed(String),
    /// The files opened as a fleet of tf-controller workspaces.
    Fleet(Box<FleetIndex>),
    /// A fleet row's plan or state as a file: its name and text.
    FleetFile { name: String, text: String },
    /// The dependency graph, made from the full plan.
    Graph(Box<CarriedGraph>),
    /// The files hold several plans: their names (the worker sends their texts beside the
    /// answer, as bytes) and the files skipped, with why.
    Set {
        names: Vec<String>,
        problems: Vec<(String, String)>,
    },
    /// The roll-up's rows of the plans a worker was given.
    Rows(Vec<planlens_fleet::PlanRow>),
    /// What changed since the plan last reviewed.
    Compared(Box<compare::JudgedComparison>),
    /// A set compared with the last review's set, plan by plan (the worker sends the older
    /// set's names and texts beside it, for its rows to open compared).
    SetSince(Vec<compare::PlanSince>),
}

/// What opening files gave: one plan (or state, or anything else a document holds) with its
/// session, or the fleet of tf-controller workspaces they describe.
pub enum Opened {
    /// One document.
    Plan(Box<Session>),
    /// Workspaces, with the plans and states stored beside them.
    Fleet(Box<OpenFleet>),
    /// Several plans (files, an archive, a text of several plans), not yet read.
    Set(Box<set::OpenSet>),
}

/// Answers a request to the worker holding a fleet: a row's plan or state as a file, which the
/// page then opens like any file, in a worker of its own.
pub fn answer_fleet(fleet: &OpenFleet, request: Request) -> Response {
    match request {
        Request::FleetLink { link } => match fleet.link_file(link) {
            Ok(Some((name, text))) => Response::FleetFile { name, text },
            Ok(None) => {
                Response::Failed("That plan or state is not among the opened files.".to_string())
            }
            Err(e) => Response::Failed(e.to_string()),
        },
        _ => Response::Failed(
            "this worker holds a fleet, not a plan: open a row's plan first".to_string(),
        ),
    }
}

/// True when `bytes` start like Kubernetes objects as kubectl writes them (JSON with an
/// `apiVersion` and a `kind` near the start; YAML was converted to JSON before).
fn names_kubernetes_kinds(bytes: &[u8]) -> bool {
    // Compressed or UTF-16 text cannot be told from its bytes: the fleet's reader decodes it and
    // names it if it is not Kubernetes objects.
    if bytes.starts_with(&[0x1f, 0x8b])
        || bytes.starts_with(&[0xff, 0xfe])
        || bytes.starts_with(&[0xfe, 0xff])
    {
        return true;
    }
    let start = String::from_utf8_lossy(&bytes[..bytes.len().min(64 * 1024)]);
    start.trim_start().starts_with(['{', '['])
        && start.contains("\"apiVersion\"")
        && start.contains("\"kind\"")
}

/// The plans of files opened together (`load::set::expand_with`), archives unpacked by
/// `readers` (in the browser, the readers' part).
fn expand(
    files: Vec<(String, Vec<u8>)>,
    readers: &dyn Readers,
) -> Result<planlens_load::set::Expanded, LoadError> {
    planlens_load::set::expand_with(files, &|bytes: &[u8], name: &str, budget: &mut _| {
        readers.unpack(bytes, name, budget)
    })
}

/// True when one file may hold several plans, so it is expanded before it is opened: an archive
/// (zip, tar, gzip), a small text (an Atlantis or digger comment, a Terragrunt log, plans one
/// after another), or a large one that names a plan's `planned_values` more than once. A single
/// large plan is never read twice for it.
fn may_hold_several(bytes: &[u8]) -> bool {
    const SMALL: usize = 8 * 1024 * 1024;
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(&[0x1f, 0x8b]) || bytes.len() <= SMALL
    {
        return true;
    }
    let key = b"\"planned_values\"";
    bytes
        .windows(key.len())
        .filter(|w| w == key)
        .nth(1)
        .is_some()
}

/// True when `bytes` may be Kubernetes objects naming tf-controller `Terraform` resources (a
/// fleet): JSON whose start names an `apiVersion` and whose text names the controller's API
/// group. Only such files are read as a fleet first; a plan's start is never one.
fn may_hold_workspaces(bytes: &[u8]) -> bool {
    let start = &bytes[..bytes.len().min(64 * 1024)];
    let start = String::from_utf8_lossy(start);
    let group = b"infra.contrib.fluxcd.io";
    start.trim_start().starts_with(['{', '['])
        && start.contains("\"apiVersion\"")
        && bytes.windows(group.len()).any(|w| w == group)
}

/// An open plan, with everything made from it.
pub struct Session {
    doc: Document,
    analysis: Analysis,
    /// The plan last reviewed, once this plan was compared with it: a share link carries it.
    older: Option<Document>,
}

impl Session {
    /// Opens bytes (a file, gzip or UTF-16 included); a file that is not plan JSON is converted
    /// by `readers`.
    pub fn open_bytes(
        bytes: Vec<u8>,
        options: &OpenOptions,
        readers: &dyn Readers,
    ) -> Result<Session, LoadError> {
        load_plan_with(bytes, &options.name, &options.mask(), readers).map(Session::of)
    }

    /// Opens files chosen or dropped together (name, bytes): tf-controller `Terraform` objects
    /// (with any plan and state Secrets and ConfigMaps beside them) open as a fleet, read by
    /// `readers`; one file that holds no workspace opens as its document, as
    /// [`Session::open_bytes`] opens it.
    pub fn open_files(
        mut files: Vec<(String, Vec<u8>)>,
        options: &OpenOptions,
        readers: &dyn FleetReaders,
    ) -> Result<Opened, LoadError> {
        if files.len() == 1 && !may_hold_workspaces(&files[0].1) {
            if may_hold_several(&files[0].1) {
                let expanded = expand(files.clone(), readers)?;
                if expanded.members.len() > 1 {
                    return Ok(Opened::Set(Box::new(set::OpenSet {
                        members: expanded.members,
                        problems: expanded.problems,
                    })));
                }
            }
            let (_, bytes) = files.remove(0);
            return Session::open_bytes(bytes, options, readers).map(|s| Opened::Plan(Box::new(s)));
        }
        // Files that are not Kubernetes objects opened together are plans (and logs, text
        // plans, states, archives of them): a set, each read by the one-plan path.
        if files.len() > 1
            && files
                .iter()
                .any(|(_, bytes)| !names_kubernetes_kinds(bytes))
        {
            let expanded = expand(files, readers)?;
            return match expanded.members.len() {
                0 => Err(LoadError::Controller {
                    message: format!(
                        "None of these files holds a plan: {}",
                        (expanded.problems.iter())
                            .map(|(name, why)| format!("{name}: {why}"))
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                }),
                _ => Ok(Opened::Set(Box::new(set::OpenSet {
                    members: expanded.members,
                    problems: expanded.problems,
                }))),
            };
        }
        // A single file of Kubernetes objects without a workspace (a plan Secret) opens as its
        // document: keep it for that (such files are small).
        let single = (files.len() == 1).then(|| files[0].1.clone());
        let count = files.len();
        // In the browser the fleet is read by the readers' part (the app's readers).
        let read = planlens_fleet::read_files(files, readers)?;
        if !read.fleet.index.rows.is_empty() {
            return Ok(Opened::Fleet(Box::new(read.fleet)));
        }
        if let Some(bytes) = single {
            return Session::open_bytes(bytes, options, readers).map(|s| Opened::Plan(Box::new(s)));
        }
        // Several files without a workspace (a plan Secret and its state Secret, a plan's chunks
        // in separate files): what one file holding them all would open as, when they read.
        if let Some(unpacked) = read.single {
            let unpacked = unpacked?;
            let name = unpacked.label.clone();
            return planlens_load::load_unpacked_with(unpacked, &name, &options.mask(), readers)
                .map(|doc| Opened::Plan(Box::new(Session::of(doc))));
        }
        let problems: Vec<String> = (read.fleet.index.problems.iter())
            .map(|(name, why)| format!("{name}: {why}"))
            .collect();
        Err(LoadError::Controller {
            message: format!(
                "None of these {count} files holds a tf-controller Terraform object, so they make \
                 no fleet: open a plan, a state or a Secret one file at a time.{}",
                if problems.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", problems.join("; "))
                }
            ),
        })
    }

    /// Opens text (pasted, a sample, a kept plan, a link's plan); text that is not plan JSON is
    /// converted by `readers`.
    pub fn open_text(
        text: String,
        options: &OpenOptions,
        readers: &dyn Readers,
    ) -> Result<Session, LoadError> {
        load_plan_text_with(text, &options.name, &options.mask(), readers).map(Session::of)
    }

    /// A session over a loaded document.
    pub fn of(doc: Document) -> Session {
        let analysis = Analysis::of(&doc);
        Session {
            doc,
            analysis,
            older: None,
        }
    }

    /// Compares this plan with the plan last reviewed, given as a file's bytes (gzip, UTF-16 and
    /// every input the loader reads, read with this plan's mask), judged under `rules` and
    /// `labels`; the older plan is kept for the share link.
    pub fn compare_bytes(
        &mut self,
        bytes: Vec<u8>,
        rules: Option<&str>,
        labels: &BTreeMap<String, String>,
        readers: &dyn Readers,
    ) -> Response {
        let old = load_plan_with(bytes, "the last plan", &self.doc.masking.mask, readers);
        self.compare_with(old, rules, labels)
    }

    /// The comparison with `old` (or why it could not be opened), which is kept.
    fn compare_with(
        &mut self,
        old: Result<Document, LoadError>,
        rules: Option<&str>,
        labels: &BTreeMap<String, String>,
    ) -> Response {
        let rules = Session::rule_set(rules).unwrap_or_else(|_| RuleSet::builtin());
        let old = match old {
            Ok(old) => old,
            Err(e) => return Response::Failed(e.to_string()),
        };
        let old_evaluation = Analysis::of(&old).evaluate(&old, &rules, labels);
        let new_evaluation = self.analysis.evaluate(&self.doc, &rules, labels);
        let judged = compare::judged(&old, &old_evaluation, &self.doc, &new_evaluation);
        self.older = Some(old);
        Response::Compared(Box::new(judged))
    }

    /// The document (for the CLI and tests).
    pub fn document(&self) -> &Document {
        &self.doc
    }

    /// What the views need, with findings under `rules` and `labels`.
    pub fn index(&self, rules: Option<&str>, labels: &BTreeMap<String, String>) -> Index {
        let doc = &self.doc;
        let masking = &doc.masking;
        let source_text = doc.source_text();
        let evaluation = self.evaluate(rules, labels);
        let carried = evaluation
            .is_err()
            .then(|| self.analysis.evaluate(doc, &RuleSet::builtin(), labels));
        Index {
            plan: index::plan_text(doc),
            analyses: Analyses {
                name: doc.name.clone(),
                source: doc.source.clone(),
                warnings: doc.warnings.clone(),
                notes: doc.notes.clone(),
                mask_builtin: masking.mask.uses_builtin(),
                mask_user: masking.mask.user_patterns().to_vec(),
                plan_has_marks: masking.plan_has_marks,
                masked_by_name: masking.masked_by_name,
                graph: None,
                drift: self.analysis.drift.resources.clone(),
                deleted_ids: (self.analysis.drift.resources.iter())
                    .map(|r| r.deleted.as_ref().and_then(|d| d.id.clone()))
                    .collect(),
                outputs: output_rows(doc),
                checks: check_rows(doc),
                environment: index::plan_environment(doc),
                values_dropped: doc.values_dropped(),
            },
            evaluation,
            carried,
            kept: (doc.redacted.is_none() && source_text.len() <= KEEP_FOR_RELOAD_BELOW)
                .then(|| source_text.to_string()),
        }
    }

    fn rule_set(rules: Option<&str>) -> Result<RuleSet, String> {
        match rules {
            Some(text) if !text.trim().is_empty() => RuleSet::parse(text).map_err(|errors| {
                errors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            }),
            _ => Ok(RuleSet::builtin()),
        }
    }

    fn evaluate(
        &self,
        rules: Option<&str>,
        labels: &BTreeMap<String, String>,
    ) -> Result<Evaluation, String> {
        let rules = Session::rule_set(rules)?;
        Ok(self.analysis.evaluate(&self.doc, &rules, labels))
    }

    /// `evaluation` with the findings of the Rego engine's `answer` (`None`: no policies). An
    /// answer with errors (a policy that does not compile, the time limit) gives no evaluation
    /// at all: the errors, each with its file, line and column.
    fn with_policies(
        &self,
        evaluation: Evaluation,
        answer: Option<&str>,
    ) -> Result<Evaluation, String> {
        let Some(answer) = answer else {
            return Ok(evaluation);
        };
        match planlens_policy::read_answer(answer) {
            Ok(outcome) => Ok(planlens_policy::judge(evaluation, &outcome, &self.doc)),
            Err(errors) => Err(errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")),
        }
    }

    /// The Rego engine's request and inputs for `policies` on this plan, or why they cannot run.
    fn policy_inputs(
        &self,
        policies: &[PolicyFile],
        labels: &BTreeMap<String, String>,
        namespaces: Vec<String>,
        shape: Option<Shape>,
    ) -> Response {
        match self.prepare_policies(policies, labels, namespaces, shape) {
            Ok(prepared) => Response::PolicyInputs {
                request: serde_json::to_string(&prepared.request).unwrap_or_default(),
                shapes: prepared.shapes,
                inputs: (prepared.inputs.into_iter())
                    .map(|i| i.into_owned())
                    .collect(),
            },
            Err(message) => Response::Failed(message),
        }
    }

    /// What the Rego engine needs for `policies` on this plan (`policy::prepare`), or why
    /// policies do not run on it (a state, a redacted link).
    fn prepare_policies(
        &self,
        policies: &[PolicyFile],
        labels: &BTreeMap<String, String>,
        namespaces: Vec<String>,
        shape: Option<Shape>,
    ) -> Result<planlens_policy::Prepared<'_>, String> {
        let doc = &self.doc;
        if doc.source.is_state() {
            return Err(
                "This is a Terraform state, not a plan: Rego policies judge plans, so they are \
                 not run on it."
                    .to_string(),
            );
        }
        if doc.redacted.is_some() {
            return Err(
                "A redacted link carries no attribute values, so Rego policies cannot run on it \
                 (its findings are the ones it was shared with). Open the plan itself to run them."
                    .to_string(),
            );
        }
        let context = planlens_policy::Context {
            labels,
            name: &doc.name,
        };
        let options = planlens_policy::Options {
            namespaces,
            shape,
            time_limit_ms: None,
        };
        Ok(planlens_policy::prepare(
            policies,
            doc.text(),
            &context,
            &options,
        ))
    }

    /// Answers a request. `Remask` replaces the session's document, reading the file's text again
    /// with `readers` (the others do not use them).
    pub fn answer(&mut self, request: Request, readers: &dyn Readers) -> Response {
        match request {
            Request::Diff { row } => {
                let doc = &self.doc;
                Response::Diff(
                    doc.rows
                        .get(row as usize)
                        .filter(|_| doc.has_values())
                        .map(|r| diff_change(&doc.change(r).change)),
                )
            }
            Request::DriftDiff { entry } => {
                let doc = &self.doc;
                Response::Diff(
                    doc.plan()
                        .resource_drift
                        .get(entry as usize)
                        .filter(|_| doc.has_values())
                        .map(|e| diff_change(&e.change)),
                )
            }
            Request::Evaluate {
                rules,
                labels,
                policies,
            } => Response::Evaluation(
                self.evaluate(rules.as_deref(), &labels)
                    .and_then(|evaluation| self.with_policies(evaluation, policies.as_deref())),
            ),
            Request::PolicyInputs {
                policies,
                labels,
                namespaces,
                shape,
            } => self.policy_inputs(&policies, &labels, namespaces, shape),
            Request::FleetLink { .. } => {
                Response::Failed("this worker holds a plan, not a fleet".to_string())
            }
            Request::Graph => {
                let doc = &self.doc;
                Response::Graph(Box::new(self.analysis.graph(doc).carried(doc)))
            }
            Request::Compare {
                other,
                rules,
                labels,
            } => {
                let old = compare::open_other(other, &self.doc.masking.mask, readers);
                self.compare_with(old, rules.as_deref(), &labels)
            }
            Request::CompareFile { .. } => {
                Response::Failed("the last plan's file was not sent with the request".to_string())
            }
            Request::Share {
                base,
                view,
                rules,
                labels,
                by_address,
                policies,
                since,
                since_compared,
            } => {
                let (rules, builtin_fallback) = match Session::rule_set(rules.as_deref()) {
                    Ok(rules) => (rules, false),
                    Err(_) => (RuleSet::builtin(), true),
                };
                let doc = &self.doc;
                let opened =
                    since.and_then(|s| compare::open_other(s, &doc.masking.mask, readers).ok());
                let older = opened
                    .as_ref()
                    .or(self.older.as_ref().filter(|_| since_compared));
                let full = crate::share::full_link_since(&base, doc, &view, readers, older);
                // The policies' findings count in the redacted link and the comment as on the
                // page. If their answer does not read (the Rules tab shows why), both say what
                // the rules alone found.
                let outcome = policies.and_then(|a| planlens_policy::read_answer(&a).ok());
                let policy_findings = outcome.as_ref().map(|o| PolicyFindings {
                    findings: planlens_policy::all_findings(o, doc),
                    rules_read: o.rules_read,
                });
                let redacted = crate::share::redacted_link(
                    &base,
                    doc,
                    &self.analysis,
                    &rules,
                    &labels,
                    &view,
                    policy_findings.as_ref(),
                );
                let mut evaluation = self.analysis.evaluate(doc, &rules, &labels);
                if let Some(p) = policy_findings {
                    evaluation = planlens_policy::combine(evaluation, p.findings, p.rules_read);
                }
                let for_comment = markdown::full_link_for_comment(doc, full.clone());
                let link = choose_link(for_comment, by_address, redacted.clone());
                let markdown = markdown::summary(doc, &self.analysis, &evaluation, Some(&link));
                Response::Share {
                    full,
                    redacted,
                    markdown,
                    builtin_fallback,
                }
            }
            Request::Remask(options) => {
                let options = *options;
                let doc = &self.doc;
                if doc.redacted.is_some() || doc.masking.mask == options.mask() {
                    return Response::Opened(Box::new(
                        self.index(options.rules.as_deref(), &options.labels),
                    ));
                }
                match load_plan_text_with(
                    doc.source_text().to_string(),
                    &doc.name,
                    &options.mask(),
                    readers,
                ) {
                    Ok(mut new) => {
                        // What decoding the file did is still true of it.
                        if new.notes.is_empty() {
                            new.notes = doc.notes.clone();
                        }
                        let older = self.older.take();
                        *self = Session::of(new);
                        self.older = older;
                        Response::Opened(Box::new(
                            self.index(options.rules.as_deref(), &options.labels),
                        ))
                    }
                    Err(e) => Response::Failed(e.to_string()),
                }
            }
        }
    }
}
