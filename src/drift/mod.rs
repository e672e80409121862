//! Drift: what changed outside Terraform, how badly, and whether the plan would undo it.
//!
//! One model for every drift source: a plan's `resource_drift` (including refresh-only plans), a
//! `terraform plan -json` log's `resource_drift` messages, and driftctl reports (converted on load).

/// How a drifted resource must be remediated, per the team's policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Only tags or labels (`tags`, `tags_all`, `labels`) changed: auto-remediate.
    Minor,
    /// Any other attribute changed, or the object was deleted: alert, a human decides.
    Structural,
}

impl Severity {
    /// Lowercase name for text output, JSON and CSS.
    pub fn key(self) -> &'static str {
        match self {
            Severity::Minor => "minor",
            Severity::Structural => "structural",
        }
    }
}
