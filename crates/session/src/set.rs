//! Plans opened together: each plan of the set is opened by the one-plan path
//! ([`Session::open_text`]) and judged under the same rules as a plan opened alone, and the
//! roll-up gets one [`PlanRow`] per plan ([`Session::plan_row`], [`rows`]). Nothing is merged across
//! plans.
//!
//! Where the work runs is the caller's: the CLI opens the members on its threads, the browser in
//! its workers (one per core at most), each calling [`row_of`] for its share of the members.

use std::collections::BTreeMap;

use planlens_changes::drift::Drift;
use planlens_fleet::PlanRow;
use planlens_fleet::plans::{self, PlanChange, PlanCounts, PlanFinding};
use planlens_load::Readers;
use planlens_load::set::Member;
use planlens_model::findings::Verdict;
use planlens_model::{Action, RowSource};
use planlens_policy::{PolicyFile, Prepared, Shape};
use planlens_rules::RuleSet;
use serde::{Deserialize, Serialize};

use crate::{OpenOptions, Session};

/// The Rego policies every plan of a set is judged with, as the page's Rules tab holds them (the
/// CLI reads its own from `--policy`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetPolicies {
    /// The policy files.
    pub files: Vec<PolicyFile>,
    /// conftest namespaces; empty: `main`.
    pub namespaces: Vec<String>,
    /// One shape for every file instead of each file's own.
    pub shape: Option<Shape>,
}

/// Plans that files opened together hold, not yet read ([`planlens_load::set::expand`]).
#[derive(Debug, Clone, Default)]
pub struct OpenSet {
    /// The plans, each with its name, in the order given.
    pub members: Vec<Member>,
    /// Files skipped: (name, why).
    pub problems: Vec<(String, String)>,
}

impl Session {
    /// What the roll-up shows of this plan (`member` is its place in the set), under `rules`
    /// and `labels`.
    pub fn plan_row(
        &self,
        name: &str,
        member: usize,
        rules: &RuleSet,
        labels: &BTreeMap<String, String>,
    ) -> PlanRow {
        let labels = self.plan_labels(name, rules, labels);
        let evaluation = self.analysis.evaluate(&self.doc, rules, &labels);
        let mut row = self.plan_row_with(name, member, &evaluation);
        row.labels = labels;
        row
    }

    /// The labels this plan, named `name` in a set, is judged with: `labels`, and the rule
    /// file's `[[plans]]` labels for its name where neither `labels` nor the plan's own
    /// variables name the key ([`RuleSet::labels_for`]).
    pub fn plan_labels(
        &self,
        name: &str,
        rules: &RuleSet,
        labels: &BTreeMap<String, String>,
    ) -> BTreeMap<String, String> {
        let variables: Vec<&str> = self
            .doc
            .plan()
            .variables
            .keys()
            .map(|k| k.as_ref())
            .collect();
        rules.labels_for(name, labels, &variables)
    }

    /// What the Rego engine needs to judge this plan, named `name` in a set, with `policies`
    /// under the labels its row is judged with (`plan_labels`); `None` when policies do not judge
    /// it (a state, a redacted link) or there are none.
    pub fn set_policy_inputs(
        &self,
        name: &str,
        rules: &RuleSet,
        labels: &BTreeMap<String, String>,
        policies: &SetPolicies,
    ) -> Option<Prepared<'_>> {
        if policies.files.is_empty() {
            return None;
        }
        let labels = self.plan_labels(name, rules, labels);
        self.prepare_policies(
            &policies.files,
            &labels,
            policies.namespaces.clone(),
            policies.shape,
        )
        .ok()
    }

    /// [`Session::plan_row`] with the Rego engine's `answer` (`policy::engine::answer_json`) for
    /// the inputs [`Session::set_policy_inputs`] gave: its findings join the rules'. An answer
    /// with errors leaves the row without a verdict (unless its planning failed), saying why
    /// (`policy_error`): a policy that did not run may have denied the plan.
    pub fn plan_row_judged(
        &self,
        name: &str,
        member: usize,
        rules: &RuleSet,
        labels: &BTreeMap<String, String>,
        answer: &str,
    ) -> PlanRow {
        let labels = self.plan_labels(name, rules, labels);
        let evaluation = self.analysis.evaluate(&self.doc, rules, &labels);
        let mut row = match self.with_policies(evaluation.clone(), Some(answer)) {
            Ok(judged) => self.plan_row_with(name, member, &judged),
            Err(errors) => {
                let mut row = self.plan_row_with(name, member, &evaluation);
                // A plan whose planning failed stays failed; any other has no verdict.
                if row.verdict != Some(Verdict::PlanningFailed) {
                    row.verdict = None;
                }
                row.policy_error = Some(errors);
                row.judge();
                row
            }
        };
        row.labels = labels;
        row
    }

    /// The analysis (for the CLI, which adds Rego policies' findings to the evaluation).
    pub fn analysis(&self) -> &crate::analysis::Analysis {
        &self.analysis
    }

    /// [`Session::plan_row`] with the findings already evaluated.
    pub fn plan_row_with(
        &self,
        name: &str,
        member: usize,
        evaluation: &planlens_model::findings::Evaluation,
    ) -> PlanRow {
        let doc = &self.doc;
        let analysis = &self.analysis;
        let s = &analysis.summary;
        let address = |i: usize| doc.change(&doc.rows[i]).address.to_string();
        let changes = (doc.rows.iter().enumerate())
            .filter(|(_, r)| {
                !doc.source.is_state()
                    && !matches!(r.source, RowSource::Drift(_))
                    && r.action != Action::NoOp
                    && doc.change(r).is_shown()
            })
            .map(|(i, r)| PlanChange {
                address: address(i),
                action: r.action.key().to_string(),
                row: i,
            })
            .collect();
        let drift = drifted(&analysis.drift);
        let mut row = PlanRow {
            name: name.to_string(),
            member,
            attention: planlens_fleet::Attention::Changes,
            kind: doc.source.kind().to_string(),
            summary: s.headline(doc),
            counts: PlanCounts {
                import: s.import,
                add: s.add,
                change: s.change,
                destroy: s.destroy,
                replace: s.replace,
                forget: s.forget,
                moves: s.moves,
                drifted: drift.len(),
                outputs: s.output_changes,
            },
            verdict: (evaluation.verdict != Verdict::NotAPlan).then_some(evaluation.verdict),
            findings: (evaluation.findings.iter())
                .map(|f| PlanFinding {
                    severity: f.severity,
                    rule: f.rule_id.clone(),
                    address: f.resource.filter(|&i| i < doc.rows.len()).map(address),
                    message: f.message.clone(),
                })
                .collect(),
            changes,
            drift,
            error: None,
            notes: doc.warnings.clone(),
            policy_error: None,
            labels: BTreeMap::new(),
        };
        if doc.source.is_state() {
            row.verdict = Some(Verdict::NotAPlan);
        }
        row.judge();
        row
    }
}

/// True when one file may hold several plans and is worth expanding before it is opened (see
/// `load::set::expand`): an archive, a small text, or a large one naming `planned_values` twice.
pub fn may_hold_several(bytes: &[u8]) -> bool {
    crate::may_hold_several(bytes)
}

/// The addresses of the resources changed outside Terraform.
fn drifted(drift: &Drift) -> Vec<String> {
    drift.resources.iter().map(|r| r.address.clone()).collect()
}

/// The rules a set's plans are judged under: the rule file (`None`: the built-in pack), or its
/// errors.
pub fn rule_set(rules: Option<&str>) -> Result<RuleSet, String> {
    Session::rule_set(rules)
}

/// Opens member `index` and makes its row (a file that does not open is a failed row saying
/// why); the session, when it opened, for a caller that keeps it.
pub fn row_of(
    member: &Member,
    index: usize,
    options: &OpenOptions,
    rules: &RuleSet,
    readers: &dyn Readers,
) -> (PlanRow, Option<Session>) {
    let options = OpenOptions {
        name: member.name.clone(),
        ..options.clone()
    };
    match Session::open_text(member.text.clone(), &options, readers) {
        Ok(session) => {
            let labels = options.labels.clone();
            let row = session.plan_row(&member.name, index, rules, &labels);
            (row, Some(session))
        }
        Err(e) => (
            PlanRow::unreadable(member.name.clone(), index, e.to_string()),
            None,
        ),
    }
}

/// Every member's row, in the roll-up's order (one after the other: a caller with threads or
/// workers calls [`row_of`] for its share and [`plans::sort`]s the rows).
pub fn rows(
    members: &[Member],
    options: &OpenOptions,
    rules: &RuleSet,
    readers: &dyn Readers,
) -> Vec<PlanRow> {
    let mut out: Vec<PlanRow> = (members.iter().enumerate())
        .map(|(i, m)| row_of(m, i, options, rules, readers).0)
        .collect();
    plans::sort(&mut out);
    out
}
