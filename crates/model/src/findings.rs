//! What a rule evaluation finds: findings, their severities, the verdict and the counts every
//! view shows. Plain data: `rules` makes it from a plan, a redacted link carries it.
//!
//! No logic that reads a plan: `Verdict::of(planning, findings)`, `Evaluation::tally` (every count
//! shown) and `groups` (the per-rule groups) work on findings alone.

use super::planning::Planning;
use super::text::count;

/// How serious a rule's finding is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum RuleSeverity {
    /// Worth knowing; does not change the verdict.
    Info,
    /// Look before applying: the verdict is at least "warn".
    Warn,
    /// Needs someone's approval: the verdict is "needs approval".
    Deny,
}

impl RuleSeverity {
    /// The name used in rule files, JSON output and CSS: `info`, `warn`, `deny`.
    pub fn key(self) -> &'static str {
        match self {
            RuleSeverity::Info => "info",
            RuleSeverity::Warn => "warn",
            RuleSeverity::Deny => "deny",
        }
    }

    /// The severity for a [`RuleSeverity::key`].
    pub fn from_key(key: &str) -> Option<RuleSeverity> {
        [RuleSeverity::Info, RuleSeverity::Warn, RuleSeverity::Deny]
            .into_iter()
            .find(|s| s.key() == key)
    }
}

/// The verdict on the whole plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Planning finished and covers everything, and no deny or warn finding.
    Pass,
    /// At least one warn finding and no deny; planning finished.
    Warn,
    /// Planning finished but left work for a later plan (deferred changes, `-target`), and no
    /// deny finding.
    Incomplete,
    /// At least one deny finding; planning finished.
    NeedsApproval,
    /// Planning failed: the plan cannot be applied, so it cannot be judged, whatever the findings
    /// on its partial content.
    PlanningFailed,
    /// Not a plan (a state): nothing to judge. Views show no verdict for it; `planlens check`
    /// exits 3, as for any input that is not a plan, so no CI job reads a state as a pass.
    NotAPlan,
}

impl Verdict {
    /// The verdict on a plan with these findings: the one decision the page, the CLI, the comment
    /// and redacted links read. A failed plan is `PlanningFailed` whatever its findings; else a
    /// deny finding needs approval; else an incomplete plan is `Incomplete`; else a warn finding
    /// warns; else it passes. A state is `NotAPlan` whatever the findings.
    pub fn of(planning: &Planning, findings: &[Finding]) -> Verdict {
        let worst = findings.iter().map(|f| f.severity).max();
        match (planning, worst) {
            (Planning::State, _) => Verdict::NotAPlan,
            (Planning::Failed { .. }, _) => Verdict::PlanningFailed,
            (_, Some(RuleSeverity::Deny)) => Verdict::NeedsApproval,
            (p, _) if p.is_incomplete() => Verdict::Incomplete,
            (_, Some(RuleSeverity::Warn)) => Verdict::Warn,
            _ => Verdict::Pass,
        }
    }

    /// Stable name for JSON, CSS and exit-code mapping: `pass`, `warn`, `incomplete`,
    /// `needs-approval`, `planning-failed`, `not-a-plan`.
    pub fn key(self) -> &'static str {
        match self {
            Verdict::NotAPlan => "not-a-plan",
            Verdict::Pass => "pass",
            Verdict::Warn => "warn",
            Verdict::Incomplete => "incomplete",
            Verdict::NeedsApproval => "needs-approval",
            Verdict::PlanningFailed => "planning-failed",
        }
    }

    /// How a person would say it: `pass`, `warn`, `plan incomplete`, `needs approval`,
    /// `planning failed`, `no verdict: not a plan`.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::NotAPlan => "no verdict: not a plan",
            Verdict::Pass => "pass",
            Verdict::Warn => "warn",
            Verdict::Incomplete => "plan incomplete",
            Verdict::NeedsApproval => "needs approval",
            Verdict::PlanningFailed => "planning failed",
        }
    }

    /// The exit code of `planlens check`: 0 pass, 1 warn or plan incomplete (look before
    /// applying), 2 needs approval, 4 planning failed (the plan cannot be judged), 3 not a plan
    /// (the code of every input that is not a plan).
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::NotAPlan => 3,
            Verdict::Pass => 0,
            Verdict::Warn | Verdict::Incomplete => 1,
            Verdict::NeedsApproval => 2,
            Verdict::PlanningFailed => 4,
        }
    }
}

/// One rule firing, on one resource or (for aggregates) on the plan.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Finding {
    /// The rule's id.
    pub rule_id: String,
    /// The rule's severity.
    pub severity: RuleSeverity,
    /// The rule's message with its placeholders filled in (sensitive values masked).
    pub message: String,
    /// Index into the rules' input resources; `None` for an aggregate's plan-level finding.
    pub resource: Option<usize>,
}

/// The result of evaluating a rule set on a plan.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Evaluation {
    /// Plan-level findings (of aggregate rules) first, then deny, then warn, then info; within
    /// those by rule order, then resource order. So a rule's findings are next to each other.
    pub findings: Vec<Finding>,
    /// The verdict on the plan ([`Verdict::of`] the planning status and the findings).
    pub verdict: Verdict,
    /// How many rules were evaluated (the whole set).
    pub rules_run: usize,
    /// Whether Terraform finished planning (redacted links made before this field read as
    /// complete; their verdict is decided again from the plan they carry).
    #[serde(default)]
    pub planning: Planning,
}

/// The counts every view of an evaluation shows — the Rules tab's badge and heading, the verdict
/// line of the CLI and the comment — so they cannot disagree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Deny findings.
    pub deny: usize,
    /// Warn findings.
    pub warn: usize,
    /// Info findings.
    pub info: usize,
    /// Findings about the whole plan (aggregate rules), of any severity.
    pub plan_level: usize,
    /// Rules evaluated.
    pub rules_run: usize,
}

impl Tally {
    /// Every finding.
    pub fn total(&self) -> usize {
        self.deny + self.warn + self.info
    }

    /// `2 deny, 1 warn, 0 info`.
    pub fn severities(&self) -> String {
        format!("{} deny, {} warn, {} info", self.deny, self.warn, self.info)
    }

    /// `3 findings`.
    pub fn findings(&self) -> String {
        count(self.total(), "finding", "findings")
    }

    /// `7 rules`.
    pub fn rules(&self) -> String {
        count(self.rules_run, "rule", "rules")
    }
}

/// The findings of one rule, as the Rules tab and the comment group them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingGroup<'e> {
    /// The rule's id.
    pub rule_id: &'e str,
    /// The rule's severity.
    pub severity: RuleSeverity,
    /// True for an aggregate rule's plan-level finding.
    pub plan_level: bool,
    /// The group's findings, in evaluation order.
    pub findings: Vec<&'e Finding>,
}

impl Evaluation {
    /// The number of findings of one severity.
    pub fn count(&self, severity: RuleSeverity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }

    /// The counts, in one pass: what every badge, heading and verdict line shows.
    pub fn tally(&self) -> Tally {
        let mut t = Tally {
            rules_run: self.rules_run,
            ..Tally::default()
        };
        for f in &self.findings {
            match f.severity {
                RuleSeverity::Deny => t.deny += 1,
                RuleSeverity::Warn => t.warn += 1,
                RuleSeverity::Info => t.info += 1,
            }
            t.plan_level += usize::from(f.resource.is_none());
        }
        t
    }

    /// The findings that `keep` keeps, grouped by rule in evaluation order (so plan-level groups
    /// come first); groups left empty are left out.
    pub fn groups(&self, keep: impl Fn(&Finding) -> bool) -> Vec<FindingGroup<'_>> {
        let mut groups: Vec<FindingGroup<'_>> = Vec::new();
        for f in self.findings.iter().filter(|f| keep(f)) {
            let plan_level = f.resource.is_none();
            // Findings are sorted so that a rule's are adjacent; the search is for safety with
            // evaluations read from a link.
            match groups
                .iter_mut()
                .find(|g| g.rule_id == f.rule_id && g.plan_level == plan_level)
            {
                Some(g) => g.findings.push(f),
                None => groups.push(FindingGroup {
                    rule_id: &f.rule_id,
                    severity: f.severity,
                    plan_level,
                    findings: vec![f],
                }),
            }
        }
        groups
    }

    /// The same findings judged with `planning`: what a redacted link's stored evaluation
    /// becomes when it is read, so its verdict follows [`Verdict::of`] like any other.
    pub fn with_planning(mut self, planning: Planning) -> Evaluation {
        self.verdict = Verdict::of(&planning, &self.findings);
        self.planning = planning;
        self
    }

    /// The findings about one resource (an index into the rules' input resources).
    pub fn for_resource(&self, index: usize) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(move |f| f.resource == Some(index))
    }

    /// The plan-level findings (of aggregate rules).
    pub fn for_plan(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.resource.is_none())
    }

    /// The worst severity found for each of `resources` resources, in one pass (for list badges).
    pub fn worst_by_resource(&self, resources: usize) -> Vec<Option<RuleSeverity>> {
        let mut worst = vec![None; resources];
        for f in &self.findings {
            if let Some(slot) = f.resource.and_then(|i| worst.get_mut(i)) {
                *slot = (*slot).max(Some(f.severity));
            }
        }
        worst
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_and_severity_names() {
        assert_eq!(Verdict::NeedsApproval.key(), "needs-approval");
        assert_eq!(Verdict::NeedsApproval.label(), "needs approval");
        assert_eq!(RuleSeverity::from_key("warn"), Some(RuleSeverity::Warn));
        assert!(RuleSeverity::Deny > RuleSeverity::Warn && RuleSeverity::Warn > RuleSeverity::Info);
    }
}
