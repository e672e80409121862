//! Human-readable plans (`terraform plan` / `terraform show PLANFILE` text) → the plan model.
//!
//! # Using it
//!
//! - [`read`]`(text) -> Result<`[`TextPlan`]`, LoadError>`: reads any text that holds a plan — a
//!   tf-controller condition message, a ConfigMap's `data.tfplan`, a CI log, an Atlantis or tfcmt
//!   PR comment, pasted text — and gives the changes ([`TextPlan::changes`]: address, action,
//!   reason), the drifted resources ([`TextPlan::drift`]: "Objects have changed outside of
//!   Terraform", `has changed` / `has been deleted`), the facts ([`TextPlanFacts`]: the `Plan:`
//!   line's counts, `No changes.`, whether the text was **cut** before its end, lines skipped) and
//!   the text of an equivalent plan JSON ([`TextPlan::plan_json`]). A text with no plan in it is a
//!   [`LoadError`]. A tf-controller message cut at 20,000 characters reads as far as it goes, with
//!   [`TextPlanFacts::cut`] set: say so, never treat its list as complete (a document of it is
//!   [`Planning::Cut`](planlens_model::planning::Planning::Cut), judged "plan incomplete").
//! - To open it with every view, give the text to [`crate::load_plan_text`] (it detects text
//!   plans, masks secret-named values and gives a [`planlens_model::Document`] whose
//!   `source` is [`Source::TextPlan`](planlens_model::Source::TextPlan)), or call [`document`].
//!
//! # What it reads
//!
//! ANSI colour codes and common log prefixes are removed first (timestamps of GitHub Actions,
//! GitLab and Jenkins logs, `##[group]` markers, `[command]` and `::debug::` lines, Markdown fences
//! and `<details>` tags of PR comments, Atlantis's `!` for `~`, the box Terraform draws around
//! errors). Then: the `Plan:` line (`to import`, `to add`, `to change`, `to replace`, `to destroy`,
//! `to forget`) and `No changes.`; each resource header (`# ADDR will be created`, `must be
//! replaced` and its variants, `will be destroyed`, `will be updated in-place`, `will be read
//! during apply`, `has moved to`, `will be imported`, `will no longer be managed`, `has changed` /
//! `has been deleted` for drift, `(deposed object …)`) with the comment lines after it (`(because
//! …)`, `(moved from …)`, `(imported from …)`, read reasons), the `-/+` or `+/-` of a replace; the
//! attributes the text shows (`~ a = "x" -> "y"`, `+`, `-  … -> null`, nested blocks, lists,
//! maps, heredocs, `jsonencode(…)`), `(known after apply)` as unknown, `(sensitive value)` as a
//! sensitive mark (never a value), `# forces replacement` as a replace path; `Changes to Outputs:`.
//!
//! # What it cannot know
//!
//! Values Terraform hid (`# (3 unchanged attributes hidden)`), providers, configuration (so no
//! dependency graph edges), variables, the Terraform version. A body it cannot read keeps its
//! resource with the action, listed in [`TextPlanFacts::unread`]: values are never invented.
//! Nested blocks are written as lists of objects (a text does not say whether a block is a single
//! object). Lines that are neither the plan nor Terraform's known wording are skipped and counted.
//! Terraform 0.12 and later and OpenTofu wording are read, and Terraform 0.11 resource lines
//! (`-/+ ADDRESS (new resource required)`: their action, not their values).
//!
//! # Where
//!
//! This file holds the entry points and the facts; `lines.rs` (in the loader,
//! `planlens_load::text_plan::lines`, since detection reads lines too) what one line is (cleaned,
//! its symbol, a header, the `Plan:` line), `reader.rs` the walk over the lines, `body.rs` a body's
//! attributes and values, `values.rs` a value projected into `before`/`after` with its mirrors,
//! `elements.rs` list element order, replace paths and hidden counts. The converted plan is written
//! through `crate::converted`, as every converting reader's is.
//!
//! Also: Terraform 0.11's resource lines are read through `lines::header_0_11`. The converted plan
//! carries its facts under `planlens_text_plan` (`MARKER`), so a stripped share copy reopens as a
//! text plan. `TextPlanFacts` also say whether the text is an apply's output that printed its plan
//! (`applied`), which Atlantis projects it holds, the lines skipped, the bodies left unread and how
//! many items the text hid. `other_text` (in the loader) names a text that is no plan — an Atlantis
//! comment of another command, driftctl's text output, an apply's output — for `NotAPlan`. Lines
//! are cleaned with `decode::clean_ci_line`, then of Terraform's diagnostic box (inside it only
//! `Error:` lines are read) and of Atlantis's column-0 symbols. Each converted change carries
//! `planlens_elements` (`ELEMENTS`): per list, the rows the text printed (removed, added, kept or
//! changed in place, with their indexes in the converted arrays), and `hidden` when the text hid
//! elements or blocks.

mod body;
mod elements;
mod reader;
mod values;

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::converted::{ConvertedPlan, Keys, ResourceChange};
use planlens_load::LoadError;
use planlens_load::decode::CiCleaning;
use planlens_load::text_plan::lines::{self, clean_line};
use planlens_model::Action;
use planlens_model::source::TextPlanFacts;

pub use elements::ELEMENTS;
// Detection is the loader's; re-exported so this module reads as the whole of text plans.
pub use planlens_load::text_plan::{
    MARKER, converted_facts, is_apply_end, looks_like_text_plan, other_text,
};
use reader::Cursor;
pub use values::{SENSITIVE_AFTER, SENSITIVE_BEFORE};

/// What [`read`] made of a text plan. (Serialized only between the `part-readers` module and the
/// first-visit module, `load::readers`.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextPlan {
    /// The text of an equivalent plan JSON (`resource_changes`, `resource_drift`,
    /// `output_changes`), with only the values the text shows.
    pub plan_json: String,
    /// What the text said besides its changes, and how much of it was read.
    pub facts: TextPlanFacts,
    /// The planned changes, in the text's order.
    pub changes: Vec<TextChange>,
    /// Resources changed outside Terraform ("Objects have changed outside of Terraform"):
    /// [`Action::Update`] for `has changed`, [`Action::Delete`] for `has been deleted`.
    pub drift: Vec<TextChange>,
}

/// One resource header of a text plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextChange {
    /// The instance address, e.g. `module.net.aws_subnet.a["x"]`.
    pub address: String,
    /// The action the header names (a replace in the order the body's `-/+` or `+/-` says).
    #[serde(with = "planlens_model::action::by_key")]
    pub action: Action,
    /// The plan's `action_reason` the text implies, e.g. `replace_because_tainted`.
    pub reason: Option<String>,
    /// The address it moved from.
    pub previous_address: Option<String>,
    /// True when the plan imports it.
    pub importing: bool,
    /// The deposed object's key, for `(deposed object …)`.
    pub deposed: Option<String>,
}

/// The projects an Atlantis comment holds plans of, from its headings (`### 1. dir: `.`
/// workspace: `default``, `### 2. project: `api` dir: …`), in order; empty when it has none.
fn atlantis_projects(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("### ")?;
            let (number, project) = rest.split_once(". ")?;
            (!number.is_empty()
                && number.bytes().all(|b| b.is_ascii_digit())
                && (project.starts_with("dir: ") || project.starts_with("project: ")))
            .then(|| project.trim().to_string())
        })
        .collect()
}

/// Reads a human-readable plan (see the module documentation). Never panics; unknown lines are
/// skipped and counted. A text with none of a plan's parts (no resource header, no output change,
/// no `Plan:` line, no `No changes.`, no error) is refused with a message.
pub fn read(text: &str) -> Result<TextPlan, LoadError> {
    let mut cleaning = CiCleaning::default();
    let lines: Vec<String> = text
        .lines()
        .filter_map(|l| clean_line(l, &mut cleaning))
        .collect();
    let mut reader = Cursor {
        lines: &lines,
        pos: 0,
        facts: TextPlanFacts::default(),
        changes: Vec::new(),
        drift: Vec::new(),
        outputs: BTreeMap::new(),
        closed: false,
        failed: false,
        depth: 0,
        since_end: false,
    };
    reader.facts.cleaned = cleaning.notes();
    reader.facts.projects = atlantis_projects(&lines);
    reader.run();
    let Cursor {
        mut facts,
        changes,
        drift,
        outputs,
        closed,
        failed,
        ..
    } = reader;
    if changes.is_empty()
        && drift.is_empty()
        && outputs.is_empty()
        && facts.summary_line.is_none()
        && !facts.no_changes
        && facts.errors.is_empty()
    {
        return Err(LoadError::InvalidReport {
            what: "human-readable plan".to_string(),
            line: 0,
            column: 0,
            message: "it has no plan in it: no resource header (`# … will be created`), no \
                      `Plan:` line and no `No changes.`. Copy the whole output of `terraform \
                      plan` or `terraform show PLANFILE`"
                .to_string(),
        });
    }
    facts.cut |= !closed && !failed;
    let (changes, mut resource_changes): (Vec<_>, Vec<_>) = changes.into_iter().unzip();
    let (drift, resource_drift): (Vec<_>, Vec<_>) = drift.into_iter().unzip();
    // A plan's resource_changes are sorted by address; the text's order is Terraform's too, but a
    // log may repeat a plan: the later copy of an address wins.
    dedupe(&mut resource_changes);
    let plan_json = ConvertedPlan {
        resource_changes: Some(resource_changes),
        resource_drift: Some(resource_drift),
        output_changes: Some(outputs),
        errored: Some(failed || !facts.errors.is_empty()),
        // A share link carries this text stripped as a plan is; the facts make it open as a
        // text plan again, never as a plan whose values look complete.
        planlens_text_plan: Some(&facts),
        ..ConvertedPlan::new()
    }
    .text(Keys::Sorted);
    Ok(TextPlan {
        plan_json,
        facts,
        changes,
        drift,
    })
}

/// Reads a text plan into a document (not yet masked: [`crate::load_plan_text`] masks), with
/// warnings for skipped lines, a cut text and a `Plan:` line that disagrees with the changes read.
pub fn document(text: &str, name: &str) -> Result<planlens_model::Document, LoadError> {
    let read = read(text)?;
    let mut doc =
        planlens_model::Document::parse(read.plan_json, name.to_string()).map_err(|(_, e)| {
            LoadError::InvalidReport {
                what: "human-readable plan".to_string(),
                line: 0,
                column: 0,
                message: format!("Planlens could not convert it ({e}); please report this"),
            }
        })?;
    let summary = planlens_model::summary::Summary::of(&doc);
    doc.warnings = warnings(&read.facts, &summary);
    doc.source = planlens_model::Source::TextPlan(read.facts);
    doc.original = Some(text.to_string());
    Ok(doc)
}

/// What a reader of the document must know about how it was read from text.
pub fn warnings(facts: &TextPlanFacts, ours: &planlens_model::summary::Summary) -> Vec<String> {
    let mut out = Vec::new();
    // A cut text is said by its planning status (`Planning::Cut`), in every view.
    if facts.skipped_lines > 0 {
        out.push(planlens_model::text::skipped_lines(
            facts.skipped_lines,
            "text",
            "not part of the plan Planlens reads",
        ));
    }
    if facts.applied {
        out.push(
            "The text goes on past the plan into an apply (\"Apply complete!\"): these changes \
             were already applied when it was written."
                .to_string(),
        );
    }
    if !facts.unread.is_empty() {
        out.push(format!(
            "The attributes of {} could not be read from the text; {} action is shown, no values.",
            planlens_model::summary::count(facts.unread.len(), "resource", "resources"),
            if facts.unread.len() == 1 {
                "its"
            } else {
                "their"
            }
        ));
    }
    // A text of several plans has several `Plan:` lines: comparing the last with all the changes
    // says nothing (its planning status says the text holds several plans).
    let several = facts.plans > 1 || facts.projects.len() > 1;
    if let Some(said) = facts.summary_line
        && !several
        && !ours.agrees_with_text(&said)
    {
        out.push(format!(
            "The text's `Plan:` line says {}; the changes read from the text give {} to add, {} \
             to change, {} to destroy{}.",
            said.words(),
            ours.add,
            ours.change,
            ours.destroy,
            if ours.import > 0 {
                format!(", {} to import", ours.import)
            } else {
                String::new()
            }
        ));
    }
    out
}

/// Keeps the last entry of each address, in the place of the first.
fn dedupe(list: &mut Vec<ResourceChange>) {
    let mut at: HashMap<(String, Option<String>), usize> = HashMap::new();
    let mut out: Vec<ResourceChange> = Vec::with_capacity(list.len());
    for v in list.drain(..) {
        let key = (v.address.clone(), v.deposed.clone());
        match at.get(&key) {
            Some(&i) => out[i] = v,
            None => {
                at.insert(key, out.len());
                out.push(v);
            }
        }
    }
    *list = out;
}
