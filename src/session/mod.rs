//! An open plan's session: the full document and its analysis, held where the work is done (a
//! Web Worker in the browser), and the conversation the views have with it. Opening hands the
//! views a values-free [`Index`] (rows, counts, graph, drift, findings, outputs, checks); values
//! travel only on request, one answer at a time (a diff, the share links, findings under other
//! rules), so the side that renders never holds or parses the plan itself.
//!
//! Requests and answers are plain serde data: the browser sends them between threads as JSON, and
//! the same [`Session::answer`] runs natively in the tests.

pub mod index;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
use crate::checks::check_rows;
use crate::diff::{DiffError, DiffNode, diff_change};
use crate::load::fragment::View;
use crate::load::{LoadError, load_plan_text_with, load_plan_with};
use crate::model::Document;
use crate::model::findings::Evaluation;
use crate::model::mask::Mask;
use crate::model::redaction::{Carrier, Redaction};
use crate::outputs::output_rows;
use crate::rules::RuleSet;
use crate::share::markdown::{self, choose_link};

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
    fn mask(&self) -> Mask {
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
    /// The findings the document carries: those above, or the built-in pack's when the rules do
    /// not parse.
    pub carried: Evaluation,
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
        let plan = std::mem::take(&mut self.plan);
        self.document_over(plan)
    }

    fn document_over(&self, plan: String) -> Result<Document, LoadError> {
        let a = &self.analyses;
        let mut drift = a.drift.clone();
        for (r, id) in drift.iter_mut().zip(&a.deleted_ids) {
            if let Some(deleted) = &mut r.deleted {
                deleted.id = id.clone();
            }
        }
        let mut doc = crate::load::redacted::read_index(
            plan,
            &a.name,
            Redaction {
                carrier: if a.values_dropped {
                    Carrier::Link
                } else {
                    Carrier::Session
                },
                graph: a.graph.clone(),
                drift,
                evaluation: self.carried.clone(),
                labels: BTreeMap::new(),
            },
        )?;
        doc.source = a.source.clone();
        doc.warnings = a.warnings.clone();
        doc.notes = a.notes.clone();
        doc.masking = crate::model::mask::Masking {
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
    /// The findings of `rules` (TOML; `None` for the built-in pack) with `labels`.
    Evaluate {
        rules: Option<String>,
        labels: BTreeMap<String, String>,
    },
    /// The share links and the PR comment for `view` at `base`.
    Share {
        base: String,
        view: Box<View>,
        rules: Option<String>,
        labels: BTreeMap<String, String>,
        /// A link that fetches the plan from where it was fetched (`?url=`), for the comment.
        by_address: Option<String>,
    },
    /// Open the same text again with another mask (the rest of `options` as before).
    Remask(Box<OpenOptions>),
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
    /// It could not be opened: the message says why.
    Failed(String),
}

/// An open plan, with everything made from it.
pub struct Session {
    doc: Document,
    analysis: Analysis,
}

impl Session {
    /// Opens bytes (a file, gzip or UTF-16 included).
    pub fn open_bytes(bytes: Vec<u8>, options: &OpenOptions) -> Result<Session, LoadError> {
        load_plan_with(bytes, &options.name, &options.mask()).map(Session::of)
    }

    /// Opens text (pasted, a sample, a kept plan, a link's plan).
    pub fn open_text(text: String, options: &OpenOptions) -> Result<Session, LoadError> {
        load_plan_text_with(text, &options.name, &options.mask()).map(Session::of)
    }

    /// A session over a loaded document.
    pub fn of(doc: Document) -> Session {
        let analysis = Analysis::of(&doc);
        Session { doc, analysis }
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
        let carried = match &evaluation {
            Ok(e) => e.clone(),
            Err(_) => self.analysis.evaluate(doc, &RuleSet::builtin(), labels),
        };
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
                graph: self.analysis.graph(doc).carried(doc),
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

    /// Answers a request. `Remask` replaces the session's document.
    pub fn answer(&mut self, request: Request) -> Response {
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
            Request::Evaluate { rules, labels } => {
                Response::Evaluation(self.evaluate(rules.as_deref(), &labels))
            }
            Request::Share {
                base,
                view,
                rules,
                labels,
                by_address,
            } => {
                let (rules, builtin_fallback) = match Session::rule_set(rules.as_deref()) {
                    Ok(rules) => (rules, false),
                    Err(_) => (RuleSet::builtin(), true),
                };
                let doc = &self.doc;
                let full = crate::share::full_link(&base, doc, &view);
                let redacted =
                    crate::share::redacted_link(&base, doc, &self.analysis, &rules, &labels, &view);
                let evaluation = self.analysis.evaluate(doc, &rules, &labels);
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
                match load_plan_text_with(doc.source_text().to_string(), &doc.name, &options.mask())
                {
                    Ok(mut new) => {
                        // What decoding the file did is still true of it.
                        if new.notes.is_empty() {
                            new.notes = doc.notes.clone();
                        }
                        *self = Session::of(new);
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
