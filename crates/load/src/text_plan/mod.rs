//! What the loader needs to know of human-readable plans without reading one: whether a text
//! holds one ([`looks_like_text_plan`]), what a text that is not one says it is ([`other_text`]),
//! the facts a text plan converted by Planlens carries ([`MARKER`], [`converted_facts`]) and the
//! key of its list order ([`ELEMENTS`]); and what one line of such a text is ([`lines`]), which
//! the reader (`planlens_readers::text_plan`) walks.

pub mod lines;

use planlens_model::source::TextPlanFacts;

use crate::decode::CiCleaning;
use crate::error::NotAPlan;
use lines::{Sigil, clean_line, header, split_sigil, summary_line};

/// The key under which the converted plan carries its [`TextPlanFacts`].
pub const MARKER: &str = "planlens_text_plan";

/// The facts a converted text plan carries ([`MARKER`], read with the plan at no extra cost),
/// when it is one (a share link's stripped copy of it).
pub fn converted_facts(plan: &planlens_model::Plan) -> Option<TextPlanFacts> {
    serde_json::from_str(plan.planlens_text_plan?.get()).ok()
}

/// True when `text` (not JSON) holds words only a human-readable plan has: a resource header, the
/// `Plan:` line, `No changes.`, Terraform's headings. Reads lines until it finds one.
pub fn looks_like_text_plan(text: &str) -> bool {
    text.lines().any(|raw| {
        let line = clean_line(raw, &mut CiCleaning::default());
        let Some(line) = line else { return false };
        let (_, sigil, rest) = split_sigil(&line);
        (sigil == Sigil::None && rest.strip_prefix("# ").is_some_and(|c| header(c).is_some()))
            || summary_line(rest).is_some()
            || rest.starts_with("No changes.")
            || STRONG_MARKERS.iter().any(|m| rest.starts_with(m))
    })
}

/// What a text that is neither JSON nor a plan Planlens reads is, when its words say so: an
/// apply's output, an Atlantis comment of another command than `plan`, driftctl's text output.
/// Asked only after [`looks_like_text_plan`] said no, so a plan text that goes on into an apply's
/// lines is not refused here.
pub fn other_text(text: &str) -> Option<NotAPlan> {
    let mut cleaning = CiCleaning::default();
    let mut lines = text
        .lines()
        .filter_map(move |raw| clean_line(raw, &mut cleaning))
        .map(|line| line.trim().to_string())
        .filter(|line| !line.is_empty());
    let first = lines.next()?;
    if let Some(command) = first
        .strip_prefix("Ran ")
        .and_then(|rest| rest.split_once(" for "))
        .map(|(command, _)| command)
        .filter(|c| !c.is_empty() && *c != "Plan" && c.len() <= 20)
    {
        return Some(NotAPlan::AtlantisComment {
            command: command.to_string(),
        });
    }
    std::iter::once(first).chain(lines).find_map(|line| {
        if is_apply_end(&line) {
            Some(NotAPlan::ApplyOutput)
        } else if DRIFTCTL_HEADINGS.iter().any(|h| line.starts_with(h)) {
            Some(NotAPlan::DriftctlText)
        } else {
            None
        }
    })
}

/// The line `terraform apply` and `destroy` end with.
pub fn is_apply_end(line: &str) -> bool {
    line.starts_with("Apply complete! Resources:")
        || line.starts_with("Destroy complete! Resources:")
}

/// Headings of driftctl's text output (`driftctl scan` without `--output json://`).
const DRIFTCTL_HEADINGS: [&str; 4] = [
    "Found missing resources:",
    "Found resources not covered by IaC:",
    "Found changed resources:",
    "Found deleted resources:",
];

/// Headings only a plan text has.
const STRONG_MARKERS: [&str; 7] = [
    "Planning failed.",
    "Terraform will perform the following actions:",
    "OpenTofu will perform the following actions:",
    "Note: Objects have changed outside of Terraform",
    "Note: Objects have changed outside of OpenTofu",
    "Changes to Outputs:",
    "An execution plan has been generated and is shown below.",
];

/// The key under which a converted change carries the text's own order of list elements: a
/// mirror of the change's values with, at each list, `{"rows": [ROW, …]}` (and `"hidden": true`
/// when the text hid some of its elements or blocks), each `ROW` an element as the text prints
/// it — `{"before": I}` removed, `{"after": J}` added, both for one kept or changed in place,
/// `"in"` the mirror of its own lists —, I and J its indexes in the converted `before` and
/// `after` arrays. The text prints no indexes and hides unchanged elements, so these arrays hold
/// only the elements shown: `planlens_changes::diff` pairs elements as the text's `-`, `+` and `~` say,
/// never by index or value, and claims no position in a list marked `hidden`.
pub const ELEMENTS: &str = "planlens_elements";
