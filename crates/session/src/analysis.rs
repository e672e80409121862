//! One analysis per document: its summary counts, planning status, drift, dependency graph and
//! rule findings, either computed from a full plan or carried by a redacted link, decided once
//! ([`Analysis::of`]) right after the document is loaded. The views, the CLI and the share
//! writers read the analysis; none of the analyses asks whether a document was redacted.
//!
//! This is the only place that asks whether a document was redacted for its analyses. The
//! dependency graph is built on first use (`Analysis::graph`); a session's values-free index has no
//! configuration or state to build it from, so the session sends it and the index receives it
//! (`receive_graph`; `graph_in_session` says it waits for it). `evaluate(doc, rules, labels)` gives
//! the findings: computed from the plan, or carried — a redacted link's stand whatever the rules,
//! while a session's index is evaluated again by its session when the rules change. A state runs no
//! rules at all.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use planlens_changes::drift::Drift;
use planlens_graph::DepGraph;
use planlens_load::LoadError;
use planlens_model::Document;
use planlens_model::findings::{Evaluation, Verdict};
use planlens_model::redaction::CarriedGraph;
use planlens_model::summary::{Planning, Summary};
use planlens_rules::{Input, RuleSet, evaluate};

/// Everything derived from one document.
#[derive(Debug)]
pub struct Analysis {
    /// Terraform's counts and sentence.
    pub summary: Summary,
    /// Whether planning finished: what every verdict, headline and banner reads.
    pub planning: Planning,
    /// What drifted, graded, and what the plan does about it.
    pub drift: Drift,
    /// The dependency graph: carried, or built on first use (a large plan's graph is only built
    /// when something needs it).
    graph: OnceLock<Arc<DepGraph>>,
    /// A session's values-free document whose graph stayed in the session: it cannot be built
    /// from this document (it has no configuration and no state) and arrives with
    /// [`Analysis::receive_graph`].
    graph_in_session: bool,
    /// Where findings come from.
    findings: Findings,
    /// The carried findings stand whatever the rules: a redacted link's (a session's index is
    /// evaluated again by its session when the rules change).
    findings_fixed: bool,
}

/// Where a document's findings come from.
#[derive(Debug)]
enum Findings {
    /// Rules run on the plan's values.
    Computed,
    /// A redacted link has no values to run rules on: it carries the findings made when it was
    /// made, whatever the rules now.
    Carried(Evaluation),
}

impl Analysis {
    /// The analysis of a loaded document: computed from its plan, or, for a redacted link, the
    /// graph, drift and findings it carries.
    pub fn of(doc: &Document) -> Analysis {
        let summary = Summary::of(doc);
        let planning = Planning::of(doc);
        match &doc.redacted {
            Some(carried) => Analysis {
                summary,
                planning,
                drift: {
                    let mut drift = Drift::from_resources(carried.drift.clone(), doc.rows.len());
                    drift.tool = planlens_model::summary::Tool::of(doc);
                    drift
                },
                graph: match &carried.graph {
                    Some(graph) => OnceLock::from(Arc::new(DepGraph::from_carried(graph, doc))),
                    None => OnceLock::new(),
                },
                graph_in_session: carried.graph.is_none(),
                findings: Findings::Carried(carried.evaluation.clone()),
                findings_fixed: carried.carrier == planlens_model::redaction::Carrier::Link,
            },
            None => Analysis {
                summary,
                planning,
                drift: Drift::of(doc),
                graph: OnceLock::new(),
                graph_in_session: false,
                findings: Findings::Computed,
                findings_fixed: false,
            },
        }
    }

    /// The dependency graph of `doc` (the document this analysis was made of), built on first
    /// use. A session's values-free document must not build it (it has no configuration and no
    /// state to build it from): the views ask the session for it and hand it over with
    /// [`Analysis::receive_graph`], and read it with [`Analysis::graph_ready`].
    pub fn graph(&self, doc: &Document) -> &Arc<DepGraph> {
        debug_assert!(
            !self.graph_in_session || self.graph.get().is_some(),
            "the graph of a session's index is the session's to build"
        );
        self.graph.get_or_init(|| Arc::new(DepGraph::build(doc)))
    }

    /// The graph when it is ready without building it (carried, received or already built).
    pub fn graph_ready(&self) -> Option<&Arc<DepGraph>> {
        self.graph.get()
    }

    /// True when the graph is ready without building it (it was carried or already built).
    pub fn graph_is_built(&self) -> bool {
        self.graph.get().is_some()
    }

    /// True when the graph stays in the session until asked for (a session's index).
    pub fn graph_in_session(&self) -> bool {
        self.graph_in_session
    }

    /// Takes the graph the session built for `doc` (`session::Request::Graph`), after checking
    /// every index in it against `doc`'s rows; the graph already there, if any, stays.
    pub fn receive_graph(
        &self,
        doc: &Document,
        carried: &CarriedGraph,
    ) -> Result<&Arc<DepGraph>, LoadError> {
        if let Some(graph) = self.graph.get() {
            return Ok(graph);
        }
        planlens_load::redacted::check_graph(carried, doc.rows.len())?;
        Ok(self
            .graph
            .get_or_init(|| Arc::new(DepGraph::from_carried(carried, doc))))
    }

    /// The findings of `rules` on `doc` with `labels`. A redacted link's carried findings are
    /// returned whatever the rules, judged again with the planning status of the plan it carries.
    ///
    /// Rules do not run on a state: they are written against changes (actions, `before` →
    /// `after`), and in a state every resource would read as a no-op whose `after` is simply what
    /// exists, so a finding list would look like a judgement of changes that are not there. A
    /// state's evaluation is empty, with no rules run, and its verdict is
    /// [`planlens_model::findings::Verdict::NotAPlan`].
    pub fn evaluate(
        &self,
        doc: &Document,
        rules: &RuleSet,
        labels: &BTreeMap<String, String>,
    ) -> Evaluation {
        if self.planning.is_state() {
            return Evaluation {
                findings: Vec::new(),
                verdict: Verdict::of(&self.planning, &[]),
                rules_run: 0,
                planning: self.planning.clone(),
            };
        }
        match &self.findings {
            Findings::Carried(evaluation) => {
                evaluation.clone().with_planning(self.planning.clone())
            }
            Findings::Computed => evaluate(&Input::from_document(doc, &self.drift), rules, labels),
        }
    }

    /// True when the findings were carried by a redacted link rather than computed by the rules.
    pub fn findings_carried(&self) -> bool {
        self.findings_fixed
    }
}
