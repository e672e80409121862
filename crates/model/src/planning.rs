//! Whether Terraform finished planning: complete, incomplete or failed. Plain data that every
//! verdict, headline and banner reads; `summary` decides it from a document (`Planning::of`).
//!
//! Judged as incomplete: a text plan cut before its end, a log or text whose changes do not add up
//! to its own summary, a text of several plans (an Atlantis comment of several projects), a partial
//! driftctl scan. A state is nothing planned and nothing judged.

use serde::{Deserialize, Serialize};

use super::text::{clipped, count};

/// At most this many bytes of the first error's summary go into [`Planning::sentence`], the
/// headline of the page, the CLI and the comment. Terraform's summaries are one short line; a
/// damaged file's "summary" can be megabytes (fuzzing found a comment of 88,955 bytes, past
/// GitHub's limit). The whole diagnostic is still shown where diagnostics are.
pub const MAX_ERROR_SUMMARY: usize = 300;

/// Why a state gets no verdict: said by the page's banner and Rules tab, the CLI and the comment.
pub const STATE_SENTENCE: &str = "This is a Terraform state, not a plan: what Terraform recorded \
     after its last apply. Nothing in it is a change, so there is no verdict and no rules ran; \
     open `terraform show -json` of a saved plan to review changes.";

/// Why a cut text plan is not judged as a whole plan.
pub const CUT_SENTENCE: &str = "Plan incomplete: the text stops before the plan's end (no `Plan:` \
     line or `No changes.` after its changes): it was cut, so it may show only some of the plan's \
     changes. Open the whole plan (`terraform show -json`) to review it all.";

/// Why a plan log that misses lines is not judged as a whole plan.
pub const LOG_SHORT_SENTENCE: &str = "Plan incomplete: the log's planned changes do not add up to \
     the change summary Terraform printed at its end, so lines are missing (a cut or filtered CI \
     log) and it may show only some of the plan's changes. Open the whole log, or `terraform show \
     -json` of the saved plan.";

/// Why a text plan whose changes do not add up to its `Plan:` line is not judged as a whole plan.
pub const TEXT_SHORT_SENTENCE: &str = "Plan incomplete: the changes Planlens read from the text do \
     not add up to the text's own `Plan:` line (a wording Planlens does not read, or lines a CI \
     step left out), so it may show only some of the plan's changes. Open `terraform show -json` of the \
     saved plan to review it all.";

/// Why a state shows no drift, in place of "No drift" (the page's Drift tab, `planlens drift`).
pub const STATE_NO_DRIFT: &str = "A state cannot show drift: it holds what Terraform recorded, \
     not what exists now. Run terraform plan -refresh-only and open its JSON to see drift.";

/// Whether Terraform finished planning: the one decision every verdict, headline and banner
/// reads ([`Planning::of`]).
///
/// Terraform 1.8+ writes `errored` and `complete` into `terraform show -json`; a `terraform plan
/// -json` log says it with `diagnostic` messages of severity `error`. `applyable` is not read:
/// Terraform sets it to false for a plan that has nothing to do, which is a plan that passes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Planning {
    /// Planning finished and covers the whole configuration (or the plan does not say otherwise,
    /// as plans before Terraform 1.8 do not).
    #[default]
    Complete,
    /// Planning finished but left work for a later plan: deferred changes, or `-target`.
    Incomplete {
        /// How many changes were deferred (`deferred_changes`); 0 when the plan does not say why.
        deferred: usize,
    },
    /// Planning stopped on an error: what the plan holds is partial and cannot be applied.
    Failed {
        /// The first error's summary, when the input carries Terraform's diagnostics (plan logs).
        error: Option<String>,
        /// How many errors the input carries.
        #[serde(default)]
        errors: usize,
    },
    /// The input stops before the plan's end: a human-readable plan cut short (a tf-controller
    /// condition message is cut at 20,000 characters), so it may show only some of the changes.
    /// Judged as an incomplete plan, never "pass".
    Cut,
    /// A `terraform plan -json` log whose planned changes do not add up to the change summary
    /// Terraform printed at its end: lines are missing (a CI log cut or filtered), so it may show
    /// only some of the plan's changes. Judged as an incomplete plan, never "pass".
    LogShort,
    /// A human-readable plan whose changes, as Planlens read them, do not add up to the text's own
    /// `Plan:` line (a wording it does not read, or lines a CI step left out; several plans in
    /// one text are [`Planning::Several`]): it may show only some of the plan's changes. Judged
    /// as an incomplete plan, never "pass".
    TextShort,
    /// A text that holds several plans (a terragrunt run-all's modules, an Atlantis comment's
    /// projects: `### 1. dir: …` headings), read as one plan: a resource two of them plan shows
    /// once, so its counts and findings are no one plan's. Judged as an incomplete plan, never
    /// "pass".
    Several {
        /// How many plans.
        plans: usize,
        /// The Atlantis projects, as the comment's headings name them; empty for other texts.
        projects: Vec<String>,
    },
    /// A driftctl report whose alerts say it left resource types out of the scan (it was not
    /// allowed to list them: "Ignoring aws_vpc from drift calculation: Listing aws_vpc is
    /// forbidden"): their drift is not known. Judged as an incomplete plan, never "pass".
    ScanPartial {
        /// The resource types driftctl ignored, as its alerts name them.
        ignored: Vec<String>,
    },
    /// Nothing was planned: the document is a Terraform state (`Source::State`), what Terraform
    /// recorded after its last apply. It has no changes to judge, so it gets no verdict at all
    /// ([`super::findings::Verdict::NotAPlan`]), never "pass".
    State,
}

impl Planning {
    /// True when planning failed.
    pub fn failed(&self) -> bool {
        matches!(self, Planning::Failed { .. })
    }

    /// True when planning finished but what the input shows is not the whole plan: deferred
    /// changes or `-target`, a text cut before its end, a log missing lines.
    pub fn is_incomplete(&self) -> bool {
        matches!(
            self,
            Planning::Incomplete { .. }
                | Planning::Cut
                | Planning::LogShort
                | Planning::TextShort
                | Planning::Several { .. }
                | Planning::ScanPartial { .. }
        )
    }

    /// True when the document is a state, not a plan: nothing in it is judged.
    pub fn is_state(&self) -> bool {
        matches!(self, Planning::State)
    }

    /// What went wrong, in one sentence: `Planning failed: Unsupported argument.`,
    /// `Plan incomplete: 3 changes were deferred to a later plan.`, or why a state has no
    /// verdict; `None` for a complete plan.
    pub fn sentence(&self) -> Option<String> {
        match self {
            Planning::Complete => None,
            Planning::State => Some(STATE_SENTENCE.to_string()),
            Planning::Failed {
                error: Some(error),
                errors,
            } => {
                let error = clipped(error.trim_end_matches('.'), MAX_ERROR_SUMMARY);
                Some(match errors.saturating_sub(1) {
                    0 => format!("Planning failed: {error}."),
                    more => format!(
                        "Planning failed: {error} (and {}).",
                        count(more, "other error", "other errors")
                    ),
                })
            }
            Planning::Failed { error: None, .. } => Some(
                "Planning failed: Terraform marked this plan as errored, so it is partial and \
                 cannot be applied."
                    .to_string(),
            ),
            Planning::Cut => Some(CUT_SENTENCE.to_string()),
            Planning::LogShort => Some(LOG_SHORT_SENTENCE.to_string()),
            Planning::TextShort => Some(TEXT_SHORT_SENTENCE.to_string()),
            Planning::Several { projects, .. } if !projects.is_empty() => Some(format!(
                "Plan incomplete: this Atlantis comment holds the plans of {} ({}), read here as \
                 one, so a resource planned in more than one shows once and the counts and \
                 findings are no one project's. Open each project's plan on its own (its section \
                 of the comment, or `terraform show -json` of its plan).",
                count(projects.len(), "project", "projects"),
                crate::text::visible(&projects.join("; ")),
            )),
            Planning::Several { plans, .. } => Some(format!(
                "Plan incomplete: this text holds {plans} plans ({plans} `Plan:` lines or `No \
                 changes.`, as a terragrunt run-all prints), read here as one, so a resource \
                 planned in more than one shows once and the counts and findings are no one \
                 plan's. Open each plan on its own (or `terraform show -json` of each)."
            )),
            Planning::ScanPartial { ignored } => Some(format!(
                "Scan incomplete: driftctl left {} out of its scan ({}; its alerts say why, \
                 usually a missing permission), so their drift is not known.",
                count(ignored.len(), "resource type", "resource types"),
                crate::text::visible(&ignored.join(", ")),
            )),
            Planning::Incomplete { deferred: 0 } => Some(
                "Plan incomplete: Terraform left part of the configuration out of this plan \
                 (for example with -target); plan again after applying it."
                    .to_string(),
            ),
            Planning::Incomplete { deferred } => Some(format!(
                "Plan incomplete: {} to a later plan; plan again after applying this one.",
                count(*deferred, "change was deferred", "changes were deferred")
            )),
        }
    }
}
