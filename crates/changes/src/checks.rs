//! Check results: `checks` (Terraform 1.5+) and the older `condition_results` (1.2 – 1.3) as one list.
//!
//! `failing_sentence` names the failing checks (addresses only) for the CLI, the comment and the
//! built-in pack's `failing-checks` warning. `result: false` with `unknown: true` is unknown, not a
//! failure.

use planlens_model::Document;
use planlens_model::text::{count, visible};

/// The outcome of a check.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum CheckStatus {
    /// A condition failed.
    Fail,
    /// Evaluating the condition errored.
    Error,
    /// Not known until apply.
    Unknown,
    /// All conditions held.
    Pass,
}

impl CheckStatus {
    fn parse(s: &str) -> CheckStatus {
        match s {
            "pass" => CheckStatus::Pass,
            "fail" => CheckStatus::Fail,
            "error" => CheckStatus::Error,
            _ => CheckStatus::Unknown,
        }
    }

    /// True for a failed or errored check: what the summary chip, the CLI, the comment and the
    /// built-in pack's `failing-checks` warning count.
    pub fn is_failing(self) -> bool {
        matches!(self, CheckStatus::Fail | CheckStatus::Error)
    }

    /// Lowercase name for display and CSS.
    pub fn key(self) -> &'static str {
        match self {
            CheckStatus::Pass => "pass",
            CheckStatus::Fail => "fail",
            CheckStatus::Error => "error",
            CheckStatus::Unknown => "unknown",
        }
    }
}

/// One checked object (or instance) and its result.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CheckRow {
    /// The object's address as Terraform displays it.
    pub address: String,
    /// What kind of check: `check`, `resource`, `output_value`, or a condition type.
    pub kind: String,
    /// The result.
    pub status: CheckStatus,
    /// Failure messages.
    pub messages: Vec<String>,
}

/// Every check result of the plan, failures first.
pub fn check_rows(doc: &Document) -> Vec<CheckRow> {
    let plan = doc.plan();
    let mut rows = Vec::new();
    for check in &plan.checks {
        if check.instances.is_empty() {
            rows.push(CheckRow {
                address: check.address.to_display.clone(),
                kind: check.address.kind.clone(),
                status: CheckStatus::parse(&check.status),
                messages: Vec::new(),
            });
        }
        for inst in &check.instances {
            rows.push(CheckRow {
                address: inst.address.to_display.clone(),
                kind: check.address.kind.clone(),
                status: CheckStatus::parse(&inst.status),
                messages: inst.problems.iter().map(|p| p.message.clone()).collect(),
            });
        }
    }
    for c in &plan.condition_results {
        // Terraform wrote `result: false` together with `unknown: true` for unknown results.
        let status = match (c.unknown, c.result) {
            (true, _) | (false, None) => CheckStatus::Unknown,
            (false, Some(true)) => CheckStatus::Pass,
            (false, Some(false)) => CheckStatus::Fail,
        };
        let messages = match (&c.error_message, status) {
            (Some(m), CheckStatus::Fail) if !m.is_empty() => vec![m.clone()],
            _ => Vec::new(),
        };
        rows.push(CheckRow {
            address: c.address.clone(),
            kind: c.condition_type.clone(),
            status,
            messages,
        });
    }
    planlens_model::sort::by_key(&mut rows, |r| r.status);
    rows
}

/// What the CLI and the pull-request comment say of failing checks (failed or errored): `2 checks
/// failing: check.health, aws_instance.web.` naming at most five, or `None` when none fails. Only
/// addresses: a condition's message is shown where the checks are listed (the page's Checks
/// panel, `planlens summary`'s lines), not in a sentence meant for a comment.
pub fn failing_sentence(rows: &[CheckRow]) -> Option<String> {
    let failing: Vec<&CheckRow> = rows.iter().filter(|r| r.status.is_failing()).collect();
    if failing.is_empty() {
        return None;
    }
    let mut named: Vec<String> = failing
        .iter()
        .take(5)
        .map(|r| visible(&r.address))
        .collect();
    if failing.len() > 5 {
        named.push(format!("and {} more", failing.len() - 5));
    }
    Some(format!(
        "{} failing: {}.",
        count(failing.len(), "check", "checks"),
        named.join(", ")
    ))
}
