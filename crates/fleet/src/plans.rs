//! Plans opened together — a pull request's plans: the roll-up's second source of rows. A
//! [`PlanRow`] is what the roll-up shows of one plan (its name, Terraform's summary counts, what it
//! destroys or replaces, drift, verdict and findings), made by the session from the plan's own
//! analysis; [`PlanRow::judge`] gives it its [`Attention`], so plans and workspaces sort by one
//! order. [`headline`] says the set in the peers' words ("7 plans: 5 with changes, 1 with no
//! changes, 1 failed"), [`worst_verdict`] is the combined verdict, [`search_changes`] answers
//! "where is `aws_db_instance` replaced?" across every plan.
//!
//! Nothing is merged across plans: two plans that touch the same address are two rows, and a hit
//! always names its plan. Rows carry addresses and words, never an attribute value.

use serde::{Deserialize, Serialize};

use planlens_model::findings::{RuleSeverity, Verdict};

use crate::Attention;

/// Terraform's summary counts of one plan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanCounts {
    /// `N to import`.
    pub import: usize,
    /// `N to add` (creates and the create half of replaces).
    pub add: usize,
    /// `N to change`.
    pub change: usize,
    /// `N to destroy` (deletes and the delete half of replaces).
    pub destroy: usize,
    /// Replaces.
    pub replace: usize,
    /// Forgets (removed from the state, not destroyed).
    pub forget: usize,
    /// Moves.
    pub moves: usize,
    /// Resources changed outside Terraform.
    pub drifted: usize,
    /// Output changes.
    pub outputs: usize,
}

impl PlanCounts {
    /// Destroys, replaces and forgets: what cannot be undone by planning again.
    pub fn destructive(&self) -> usize {
        self.destroy.max(self.replace) + self.forget
    }

    /// True when the plan changes anything (outputs included).
    pub fn any(&self) -> bool {
        self.import
            + self.add
            + self.change
            + self.destroy
            + self.forget
            + self.moves
            + self.outputs
            > 0
    }
}

/// One change a plan makes, for the roll-up's search and a row's details.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanChange {
    /// The resource instance's address.
    pub address: String,
    /// `Action::key`: `create`, `update`, `delete`, `replace`, `forget`, `read`, ….
    pub action: String,
    /// Its index among the plan's rows (what opens it selected).
    pub row: usize,
}

impl PlanChange {
    /// True for a delete, a replace or a forget.
    pub fn is_destructive(&self) -> bool {
        matches!(self.action.as_str(), "delete" | "replace" | "forget")
            || self.action.starts_with("replace")
    }
}

/// One finding of a plan's rules or policies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanFinding {
    /// `deny`, `warn` or `info`.
    pub severity: RuleSeverity,
    /// The rule's id.
    pub rule: String,
    /// The resource it is about; `None` for a plan-level finding.
    pub address: Option<String>,
    /// The rule's message.
    pub message: String,
}

/// What the roll-up shows of one plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanRow {
    /// The name a reviewer knows it by (`prod/network`, an Atlantis project, a Terragrunt unit).
    pub name: String,
    /// Its place among the plans as opened: what opens it.
    pub member: usize,
    /// What it needs ([`PlanRow::judge`]).
    pub attention: Attention,
    /// What the file was read as ("plan JSON", "plan log", "text plan", "state", …).
    pub kind: String,
    /// Its headline: Terraform's summary line, or why planning failed.
    pub summary: String,
    /// Terraform's counts.
    pub counts: PlanCounts,
    /// The rules' verdict; `None` for a state or a file that could not be read.
    pub verdict: Option<Verdict>,
    /// Findings of its rules and policies.
    pub findings: Vec<PlanFinding>,
    /// Every change it lists (no-ops left out), in its order.
    pub changes: Vec<PlanChange>,
    /// Resources changed outside Terraform.
    pub drift: Vec<String>,
    /// Why it could not be opened at all.
    pub error: Option<String>,
    /// Warnings about how it was read.
    pub notes: Vec<String>,
    /// Why the Rego policies in use could not judge it (a policy that does not compile, the time
    /// limit): it then has no verdict, since a policy that did not run may have denied it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_error: Option<String>,
    /// The labels it was judged with (the user's, and the rule file's `[[plans]]` for its name
    /// where its own variables do not name them): opening it alone uses the same.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub labels: std::collections::BTreeMap<String, String>,
}

impl PlanRow {
    /// A row for a file that could not be opened as a plan.
    pub fn unreadable(name: String, member: usize, error: String) -> PlanRow {
        let mut row = PlanRow {
            name,
            member,
            attention: Attention::Failed,
            kind: "unreadable".to_string(),
            summary: "Could not be read.".to_string(),
            counts: PlanCounts::default(),
            verdict: None,
            findings: Vec::new(),
            changes: Vec::new(),
            drift: Vec::new(),
            error: Some(error),
            notes: Vec::new(),
            policy_error: None,
            labels: Default::default(),
        };
        row.judge();
        row
    }

    /// Sets `attention` from what the row holds: failed (planning failed, or unreadable), needs
    /// approval (a deny), destroys, drift, warn (a warning, an incomplete plan, or policies that
    /// could not judge it), changes, no changes.
    pub fn judge(&mut self) {
        self.attention = if self.error.is_some() || self.verdict == Some(Verdict::PlanningFailed) {
            Attention::Failed
        } else if self.verdict == Some(Verdict::NeedsApproval) {
            Attention::NeedsApproval
        } else if self.counts.destructive() > 0 {
            Attention::Destroys
        } else if self.counts.drifted > 0 || !self.drift.is_empty() {
            Attention::Drifted
        } else if matches!(self.verdict, Some(Verdict::Warn | Verdict::Incomplete))
            || self.policy_error.is_some()
        {
            Attention::Warn
        } else if self.counts.any() {
            Attention::Changes
        } else {
            Attention::NoChanges
        };
    }

    /// The first segment of its name (`prod` of `prod/network`), the roll-up's group filter;
    /// empty for a name without one.
    pub fn group(&self) -> &str {
        match self.name.split_once('/') {
            Some((group, _)) => group,
            None => "",
        }
    }

    /// How many findings of `severity`.
    pub fn count(&self, severity: RuleSeverity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }

    /// Its deny and warn findings, counted: `2 deny, 1 warn` (empty with none).
    pub fn finding_counts(&self) -> String {
        [RuleSeverity::Deny, RuleSeverity::Warn]
            .into_iter()
            .map(|s| (self.count(s), s.key()))
            .filter(|(n, _)| *n > 0)
            .map(|(n, k)| format!("{n} {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The counts as Terraform's words, short: `+2 ~1 -1 ±1` (nothing for no changes).
    pub fn short_counts(&self) -> String {
        let c = &self.counts;
        let mut parts = Vec::new();
        if c.import > 0 {
            parts.push(format!("←{}", c.import));
        }
        for (n, sign) in [
            (c.add, '+'),
            (c.change, '~'),
            (c.destroy, '-'),
            (c.replace, '±'),
        ] {
            if n > 0 {
                parts.push(format!("{sign}{n}"));
            }
        }
        parts.join(" ")
    }

    /// The texts a search of the rows looks in.
    pub fn haystack(&self) -> impl Iterator<Item = &str> {
        [
            self.name.as_str(),
            self.summary.as_str(),
            self.kind.as_str(),
            self.attention.label(),
        ]
        .into_iter()
        .chain(self.verdict.map(Verdict::label))
        .chain(self.changes.iter().map(|c| c.address.as_str()))
        .chain(self.drift.iter().map(String::as_str))
        .chain((self.findings.iter()).flat_map(|f| [f.rule.as_str(), f.message.as_str()]))
        .chain(self.error.as_deref())
    }
}

/// Sorts rows as the roll-up shows them: what needs a person first, then by name (numbers in
/// names in their order: `unit-2` before `unit-10`).
pub fn sort(rows: &mut [PlanRow]) {
    rows.sort_by(|a, b| {
        a.attention
            .cmp(&b.attention)
            .then_with(|| b.counts.destructive().cmp(&a.counts.destructive()))
            .then_with(|| natural(&a.name).cmp(&natural(&b.name)))
    });
}

/// A name as runs of text and numbers, for a natural order.
fn natural(name: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut digits = String::new();
    for ch in name.chars() {
        if ch.is_ascii_digit() {
            digits.push(ch);
        } else {
            if !digits.is_empty() {
                out.push((
                    std::mem::take(&mut text),
                    digits.parse().unwrap_or(u64::MAX),
                ));
                digits.clear();
            }
            text.extend(ch.to_lowercase());
        }
    }
    out.push((text, digits.parse().unwrap_or(0)));
    out
}

/// The set in the peers' words: `7 plans: 5 with changes, 1 with no changes, 1 failed`.
pub fn headline(rows: &[PlanRow]) -> String {
    // By what each plan does, not by what it needs: a plan that only drifted has no changes.
    let failed = rows
        .iter()
        .filter(|r| r.attention == Attention::Failed)
        .count();
    let states = (rows.iter())
        .filter(|r| r.attention != Attention::Failed && r.verdict == Some(Verdict::NotAPlan))
        .count();
    let changed = (rows.iter())
        .filter(|r| {
            r.attention != Attention::Failed
                && r.verdict != Some(Verdict::NotAPlan)
                && r.counts.any()
        })
        .count();
    let unchanged = rows.len() - failed - states - changed;
    let mut parts = Vec::new();
    if changed > 0 {
        parts.push(format!("{changed} with changes"));
    }
    if unchanged > 0 {
        parts.push(format!("{unchanged} with no changes"));
    }
    if states > 0 {
        parts.push(format!(
            "{states} {}",
            if states == 1 { "state" } else { "states" }
        ));
    }
    if failed > 0 {
        parts.push(format!("{failed} failed"));
    }
    format!(
        "{} {}: {}",
        rows.len(),
        if rows.len() == 1 { "plan" } else { "plans" },
        parts.join(", ")
    )
}

/// The combined verdict: the worst plan's (planning failed, then needs approval, warn, plan
/// incomplete, pass). A plan that could not be read counts as failed; states have none. `None`
/// when no row has a verdict.
pub fn worst_verdict(rows: &[PlanRow]) -> Option<Verdict> {
    let rank = |v: Verdict| match v {
        Verdict::PlanningFailed => 5,
        Verdict::NeedsApproval => 4,
        Verdict::Warn => 3,
        Verdict::Incomplete => 2,
        Verdict::Pass => 1,
        Verdict::NotAPlan => 0,
    };
    (rows.iter())
        .map(|r| {
            if r.error.is_some() {
                Verdict::PlanningFailed
            } else {
                r.verdict.unwrap_or(Verdict::NotAPlan)
            }
        })
        .filter(|v| *v != Verdict::NotAPlan)
        .max_by_key(|v| rank(*v))
}

/// One change found by [`search_changes`]: `rows[plan].changes[change]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hit {
    /// The row's index.
    pub plan: usize,
    /// The change's index in that row.
    pub change: usize,
}

/// Words of an action a search may name (`replaced`, `destroy`, …), and the action keys each
/// stands for.
const ACTION_WORDS: [(&[&str], &[&str]); 6] = [
    (&["replace", "replaced", "replaces"], &["replace"]),
    (
        &[
            "destroy",
            "destroyed",
            "destroys",
            "delete",
            "deleted",
            "deletes",
        ],
        &["delete", "replace"],
    ),
    (
        &["create", "created", "creates", "add", "added"],
        &["create", "replace"],
    ),
    (
        &["update", "updated", "updates", "change", "changed"],
        &["update"],
    ),
    (&["forget", "forgotten", "forgets"], &["forget"]),
    (&["read", "reads"], &["read"]),
];

/// The changes of every row that match `query`: each of its words must be in the address
/// (case-insensitive), or name the change's action (`aws_db_instance replaced`). In the rows'
/// order, then each plan's; empty for an empty query.
pub fn search_changes(rows: &[PlanRow], query: &str) -> Vec<Hit> {
    let words = words(query);
    if words.is_empty() {
        return Vec::new();
    }
    let mut hits = Vec::new();
    for (plan, row) in rows.iter().enumerate() {
        for (change, c) in row.changes.iter().enumerate() {
            if change_matches(c, &words) {
                hits.push(Hit { plan, change });
            }
        }
    }
    hits
}

/// True when one of the row's changes matches `query` as [`search_changes`] reads it.
pub fn has_hit(row: &PlanRow, query: &str) -> bool {
    let words = words(query);
    !words.is_empty() && row.changes.iter().any(|c| change_matches(c, &words))
}

/// A query's words, lowercase.
fn words(query: &str) -> Vec<String> {
    query.split_whitespace().map(str::to_lowercase).collect()
}

/// True when every word is in the change's address or names its action.
fn change_matches(c: &PlanChange, words: &[String]) -> bool {
    let address = c.address.to_lowercase();
    words.iter().all(|w| {
        address.contains(w.as_str())
            || ACTION_WORDS.iter().any(|(said, keys)| {
                said.contains(&w.as_str()) && keys.iter().any(|k| c.action.starts_with(k))
            })
    })
}

/// The groups of the rows' names (`prod`, `dev`), sorted, each once.
pub fn groups(rows: &[PlanRow]) -> Vec<String> {
    let mut out: Vec<String> = (rows.iter())
        .map(|r| r.group().to_string())
        .filter(|g| !g.is_empty())
        .collect();
    out.sort();
    out.dedup();
    out
}
