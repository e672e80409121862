//! What kind of input a document was loaded from, and the facts of that input that have no place
//! in a plan (a log's diagnostics, a driftctl report's coverage and unmanaged resources).
//!
//! Plan logs and driftctl reports are converted to the plan model on load, so every view works on
//! them; what the conversion cannot carry lives here.

use serde::{Deserialize, Serialize};

/// Where a document came from. (Serialized only inside Planlens's own redacted form.)
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    /// `terraform show -json PLANFILE`.
    #[default]
    Plan,
    /// A `terraform plan -json` log (JSON Lines). It names actions but carries no attribute values.
    PlanLog(PlanLogFacts),
    /// A driftctl `scan --output json://` report. Its drifted and missing resources become drift
    /// entries; it has no planned changes.
    Driftctl(DriftctlFacts),
}

impl Source {
    /// True when the input carries attribute values (only plans do in full; driftctl only the
    /// changed ones).
    pub fn has_values(&self) -> bool {
        !matches!(self, Source::PlanLog(_))
    }

    /// A short name of the input kind, for headings and messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Source::Plan => "plan",
            Source::PlanLog(_) => "plan log",
            Source::Driftctl(_) => "driftctl report",
        }
    }
}

/// What a `terraform plan -json` log says besides its resource changes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanLogFacts {
    /// The Terraform version from the `version` message.
    pub terraform_version: Option<String>,
    /// The counts of the `change_summary` message, as Terraform printed them.
    pub change_summary: Option<ChangeSummary>,
    /// `diagnostic` messages: warnings and errors.
    pub diagnostics: Vec<Diagnostic>,
    /// Lines that were not JSON objects or had an unknown `type` (skipped, counted).
    pub skipped_lines: usize,
}

/// The `change_summary` message of a plan log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeSummary {
    /// Resources to add.
    pub add: u64,
    /// Resources to change in place.
    pub change: u64,
    /// Resources to destroy.
    pub remove: u64,
    /// Resources to import.
    pub import: u64,
}

/// A warning or error Terraform reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// `error` or `warning`.
    pub severity: String,
    /// One line.
    pub summary: String,
    /// More text, possibly several lines.
    pub detail: String,
    /// The resource it is about, when Terraform says.
    pub address: Option<String>,
    /// `file:line` in the configuration, when Terraform says.
    pub location: Option<String>,
}

/// The figures and lists of a driftctl report that have no place in the plan model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DriftctlFacts {
    /// Which generation of the report format: "v0.40+", "v0.8–v0.39" or "v0.7".
    pub format: String,
    /// Resources driftctl found in the cloud and in IaC together.
    pub total_resources: u64,
    /// Resources in Terraform state.
    pub managed: u64,
    /// Resources in the cloud but not in any state.
    pub unmanaged: u64,
    /// Resources in state but gone from the cloud.
    pub missing: u64,
    /// Managed resources whose attributes differ (reports up to v0.39; `None` when the report does
    /// not say, as v0.40+ no longer compares attributes).
    pub changed: Option<u64>,
    /// Share of cloud resources under Terraform, in percent.
    pub coverage: u64,
    /// Unmanaged resources: (type, id).
    pub unmanaged_resources: Vec<(String, String)>,
    /// Alerts, with the resource they are about when driftctl says ("" otherwise).
    pub alerts: Vec<(String, String)>,
    /// Drifted attribute paths that driftctl marks as computed (possible false positives):
    /// (address, dotted path).
    pub computed: Vec<(String, String)>,
    /// The cloud provider and its version, when the report says.
    pub provider: Option<String>,
    /// When the scan ran, when the report says.
    pub date: Option<String>,
}

impl DriftctlFacts {
    /// The report in one sentence, in place of a plan's: `driftctl: 6 resources, 2 managed,
    /// 2 unmanaged, 2 missing, 2 changed; coverage 33 %.`
    pub fn sentence(&self) -> String {
        format!(
            "driftctl: {} resources, {} managed, {} unmanaged, {} missing{}; coverage {} %.",
            self.total_resources,
            self.managed,
            self.unmanaged,
            self.missing,
            self.changed
                .map(|c| format!(", {c} changed"))
                .unwrap_or_default(),
            self.coverage
        )
    }
}
