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

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::LoadError;
use super::converted::{Change, ConvertedPlan, Importing, Keys, Mirrored, ResourceChange};
use super::decode::{CiCleaning, clean_ci_line};
use super::error::NotAPlan;
use planlens_model::address::{Address, InstanceKey};
use planlens_model::source::{TextPlanFacts, TextSummary};
use planlens_model::{Action, ReplaceOrder};

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

/// The line `terraform apply` and `destroy` end with.
fn is_apply_end(line: &str) -> bool {
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

/// Reads a human-readable plan (see the module documentation). Never panics; unknown lines are
/// skipped and counted. A text with none of a plan's parts (no resource header, no output change,
/// no `Plan:` line, no `No changes.`, no error) is refused with a message.
pub fn read(text: &str) -> Result<TextPlan, LoadError> {
    let mut cleaning = CiCleaning::default();
    let lines: Vec<String> = text
        .lines()
        .filter_map(|l| clean_line(l, &mut cleaning))
        .collect();
    let mut reader = Reader {
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
    let Reader {
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

// ---------------------------------------------------------------------------------------------
// Cleaning lines

/// One line of a plan text as the reader reads it: cleaned of what a CI log or PR comment adds
/// ([`crate::decode::clean_ci_line`]), without Terraform's box around diagnostics (only its `Error:`
/// lines are kept) and with Atlantis's `!` read as `~`; `None` for a line that is not read.
fn clean_line(raw: &str, c: &mut CiCleaning) -> Option<String> {
    let mut line = clean_ci_line(raw, c)?;
    let trimmed = line.trim();
    // Terraform's box around diagnostics.
    if trimmed == "╷" || trimmed == "╵" {
        return None;
    }
    if let Some(rest) = line.strip_prefix("│") {
        // Inside the box only its `Error:` line is read: the rest is a diagnostic's detail,
        // never plan lines (Terraform's forget warning lists ` - ADDRESS`, which would read as
        // Terraform 0.11's destroy line).
        let rest = rest.strip_prefix(' ').unwrap_or(rest);
        if !rest.starts_with("Error: ") {
            return None;
        }
        line = rest.to_string();
    }
    // Atlantis writes `~` as `!` at the start of a line so GitHub colours it.
    if let Some(rest) = line.strip_prefix("! ") {
        line = format!("~ {rest}");
    }
    Some(line)
}

// ---------------------------------------------------------------------------------------------
// Lines

/// The symbol in front of a line of the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sigil {
    None,
    Add,
    Remove,
    Change,
    DeleteCreate,
    CreateDelete,
    Read,
    Forget,
}

/// A line's indentation, its symbol and the rest.
fn split_sigil(line: &str) -> (usize, Sigil, &str) {
    let rest = line.trim_start();
    let indent = line.len() - rest.len();
    for (prefix, sigil) in [
        ("-/+", Sigil::DeleteCreate),
        ("+/-", Sigil::CreateDelete),
        ("<=", Sigil::Read),
        ("+", Sigil::Add),
        ("-", Sigil::Remove),
        ("~", Sigil::Change),
    ] {
        if let Some(after) = rest.strip_prefix(prefix)
            && (after.is_empty() || after.starts_with(' '))
        {
            return (indent, sigil, after.trim_start());
        }
    }
    if let Some(after) = rest.strip_prefix(". ")
        && (after.starts_with("resource ") || after.starts_with("data "))
    {
        return (indent, Sigil::Forget, after);
    }
    (indent, Sigil::None, rest)
}

/// A resource header: `# ADDR will be created` and the others.
#[derive(Debug, Clone, PartialEq)]
struct Header {
    address: String,
    /// The address, parsed.
    parsed: Address,
    action: Action,
    drift: bool,
    reason: Option<&'static str>,
    previous: Option<String>,
    importing: bool,
    deposed: Option<String>,
}

/// A resource line of Terraform 0.11's plan text, which has no `# … will be …` headers: the
/// action's symbol, then the address, then notes (`-/+ aws_instance.db (tainted) (new resource
/// required)`, `  - aws_sqs_queue.jobs`, ` <= data.aws_ami.ubuntu`). Its attributes follow as
/// `name: "old" => "new"` lines, which are not read (the resource is listed as unread).
fn header_0_11(sigil: Sigil, rest: &str) -> Option<Header> {
    let action = match sigil {
        Sigil::Add => Action::Create,
        Sigil::Remove => Action::Delete,
        Sigil::Change => Action::Update,
        Sigil::DeleteCreate => Action::Replace(ReplaceOrder::DeleteThenCreate),
        Sigil::CreateDelete => Action::Replace(ReplaceOrder::CreateThenDelete),
        Sigil::Read => Action::Read,
        _ => return None,
    };
    let rest = rest.trim_end();
    let (address, notes) = rest.split_once(" (").unwrap_or((rest, ""));
    // An address alone: not a symbol legend line (`  + create`), an output (`+ x = 1`) or a value.
    if address.is_empty() || address.contains([' ', '"', '=', ':', '{']) {
        return None;
    }
    let parsed = Address::parse(address).ok()?;
    if (action == Action::Read) != parsed.is_data {
        return None;
    }
    Some(Header {
        address: address.to_string(),
        parsed,
        action,
        drift: false,
        reason: if notes.contains("tainted)") {
            Some("replace_because_tainted")
        } else if notes.contains("new resource required)") {
            Some("replace_because_cannot_update")
        } else {
            None
        },
        previous: None,
        importing: false,
        // 0.11 names no deposed object's key: `(deposed)` is read as the resource's own line.
        deposed: None,
    })
}

/// Reads a resource header comment (without `# `).
fn header(comment: &str) -> Option<Header> {
    let comment = comment.trim_end();
    let (mut action, mut reason, mut drift, mut importing) = (Action::NoOp, None, false, false);
    let (mut previous, mut deposed) = (None, None);
    let suffixes: [(&str, Action, Option<&'static str>, bool); 14] = [
        (" will be created", Action::Create, None, false),
        (" will be read during apply", Action::Read, None, false),
        (" will be updated in-place", Action::Update, None, false),
        (
            " is tainted, so must be replaced",
            Action::Replace(ReplaceOrder::DeleteThenCreate),
            Some("replace_because_tainted"),
            false,
        ),
        (
            " will be replaced, as requested",
            Action::Replace(ReplaceOrder::DeleteThenCreate),
            Some("replace_by_request"),
            false,
        ),
        (
            " will be replaced due to changes in replace_triggered_by",
            Action::Replace(ReplaceOrder::DeleteThenCreate),
            Some("replace_by_triggers"),
            false,
        ),
        (
            " must be replaced",
            Action::Replace(ReplaceOrder::DeleteThenCreate),
            Some("replace_because_cannot_update"),
            false,
        ),
        (" will be destroyed", Action::Delete, None, false),
        (" will be imported", Action::NoOp, None, false),
        (" has changed", Action::Update, None, true),
        (" has been changed", Action::Update, None, true),
        (" has been deleted", Action::Delete, None, true),
        (
            " will be removed from the Terraform state but will not be destroyed",
            Action::Forget,
            None,
            false,
        ),
        // OpenTofu's own words for a forget (`internal/command/jsonformat/plan.go`).
        (
            " will be removed from the OpenTofu state but will not be destroyed",
            Action::Forget,
            None,
            false,
        ),
    ];
    let mut address = None;
    for (suffix, its_action, its_reason, is_drift) in suffixes {
        if let Some(a) = comment.strip_suffix(suffix) {
            address = Some(a);
            action = its_action;
            reason = its_reason;
            drift = is_drift;
            importing = suffix == " will be imported";
            break;
        }
    }
    if address.is_none() {
        if let Some((a, _)) = comment.split_once(" will no longer be managed by ") {
            address = Some(a);
            action = Action::Forget;
        } else if let Some((from, to)) = comment.split_once(" has moved to ") {
            Address::parse(from).ok()?;
            previous = Some(from.to_string());
            address = Some(to);
        }
    }
    let mut address = address?;
    if let Some(open) = address.rfind(" (deposed object ")
        && address.ends_with(')')
    {
        deposed = Some(address[open + " (deposed object ".len()..address.len() - 1].to_string());
        address = &address[..open];
    }
    Some(Header {
        parsed: Address::parse(address).ok()?,
        address: address.to_string(),
        action,
        drift,
        reason,
        previous,
        importing,
        deposed,
    })
}

/// The counts of a `Plan: …` line.
fn summary_line(rest: &str) -> Option<TextSummary> {
    let body = rest
        .strip_prefix("Plan: ")?
        .trim_end()
        .trim_end_matches('.');
    let mut s = TextSummary::default();
    let mut any = false;
    for part in body.split(',') {
        let (n, what) = part.trim().split_once(" to ")?;
        let n: u64 = n.trim().parse().ok()?;
        match what.trim() {
            "import" => s.import = n,
            "add" => s.add = n,
            "change" => s.change = n,
            "replace" => s.replace = Some(n),
            "destroy" => s.destroy = n,
            "forget" => s.forget = n,
            _ => return None,
        }
        any = true;
    }
    any.then_some(s)
}

/// Lines of Terraform's and OpenTofu's own wording around a plan: read, not counted as skipped.
fn is_wording(rest: &str, sigil: Sigil) -> bool {
    const LEGEND: [&str; 9] = [
        "create",
        "update in-place",
        "destroy",
        "destroy and then create replacement",
        "create replacement and then destroy",
        "read (data resources)",
        "forget",
        "Terraform will not take any actions to undo",
        "no-op",
    ];
    if sigil != Sigil::None {
        return LEGEND.contains(&rest);
    }
    const PREFIXES: [&str; 56] = [
        // OpenTofu's legend line for a forget (`.` is no sigil Planlens reads).
        ". forget",
        "Terraform used the selected providers",
        "OpenTofu used the selected providers",
        "plan. Resource actions are indicated",
        "execution plan. Resource actions are indicated",
        "Resource actions are indicated with the following symbols",
        "symbols:",
        "Terraform will perform the following actions",
        "OpenTofu will perform the following actions",
        "Note: Objects have changed outside of",
        "Terraform detected the following changes made outside of",
        "OpenTofu detected the following changes made outside of",
        "last \"terraform apply\"",
        "last \"tofu apply\"",
        "since the last \"terraform apply\"",
        "Unless you have made equivalent changes",
        "relevant attributes using ignore_changes",
        "actions to undo or respond to these changes",
        "This is a refresh-only plan",
        "these. If you were expecting these changes",
        "record the updated values in the",
        "objects.",
        "Your infrastructure matches the configuration",
        "Terraform has compared your real infrastructure",
        "OpenTofu has compared your real infrastructure",
        "and found no differences",
        "You can apply this plan to save these new output values",
        "state, without changing any real infrastructure",
        "Saved the plan to:",
        "To perform exactly these actions",
        "terraform apply",
        "tofu apply",
        "Note: You didn't use the -out option",
        "guarantee to take exactly these actions",
        "Acquiring state lock",
        "Releasing state lock",
        "Refreshing Terraform state in-memory",
        "Refreshing OpenTofu state in-memory",
        "persisted to local or remote state storage",
        "An execution plan has been generated",
        "Resource actions are indicated",
        "------------------------------------------------------------------------",
        "─────",
        "Planning failed.",
        "Terraform encountered an error",
        "OpenTofu encountered an error",
        "Warning:",
        "Terraform planned the following actions, but then encountered a problem",
        "OpenTofu planned the following actions, but then encountered a problem",
        "The refreshed state will be used to calculate this plan",
        "Note: You didn't specify an \"-out\" parameter",
        "can't guarantee that exactly these actions will be performed",
        "\"terraform apply\" is subsequently run",
        "This means that Terraform did not detect any differences",
        "configuration and real physical resources that exist",
        "actions need to be performed",
    ];
    PREFIXES.iter().any(|p| rest.starts_with(p))
        || rest.contains(": Refreshing state...")
        || rest.contains(": Reading...")
        || rest.contains(": Read complete after")
        || rest.contains(": Still reading...")
        || rest.contains("Refreshing state...")
}

// ---------------------------------------------------------------------------------------------
// Values

/// A value as the text shows it.
#[derive(Debug, Clone)]
enum Val {
    Lit(Value),
    Unknown,
    Sensitive,
    /// An object, map or block body; `sensitive` when Terraform said its contents are hidden.
    Obj(Vec<Item>, bool),
    List(Vec<Item>),
    Heredoc(Vec<(Sigil, String)>),
    Json(Box<Val>),
    /// Something this reader does not know: no value on either side.
    Opaque,
}

/// An attribute, map entry, block or list element, with its symbol.
#[derive(Debug, Clone)]
struct Item {
    sigil: Sigil,
    /// The attribute or key; `None` for a list element.
    key: Option<String>,
    /// A nested block (`name {`, or `name "label" {` with the label in `label`).
    block: bool,
    label: Option<String>,
    /// The value, or the one before `->`.
    old: Val,
    /// The value after `->`.
    new: Option<Val>,
    forces: bool,
    /// `# (N unchanged … hidden)`: this item stands for N hidden ones.
    hidden: usize,
    /// True when what is hidden are only attributes (`# (2 unchanged attributes hidden)`), so
    /// the blocks beside it are all shown; hidden blocks, elements or an unreadable line may
    /// stand for elements of a list, whose positions are then not known.
    hides_attributes_only: bool,
}

impl Item {
    /// An item with this symbol and value, and nothing else known yet.
    fn of(sigil: Sigil, old: Val) -> Item {
        Item {
            sigil,
            key: None,
            block: false,
            label: None,
            old,
            new: None,
            forces: false,
            hidden: 0,
            hides_attributes_only: false,
        }
    }

    /// `# (N unchanged … hidden)`, or a line that could not be read (N = 1).
    fn hidden(n: usize, attributes_only: bool) -> Item {
        Item {
            hidden: n,
            hides_attributes_only: attributes_only,
            ..Item::of(Sigil::None, Val::Opaque)
        }
    }

    /// True when this item may stand for hidden elements of a list or blocks of a body.
    fn hides_places(&self) -> bool {
        self.hidden > 0 && !self.hides_attributes_only
    }

    fn on(&self, side: Side) -> bool {
        self.hidden == 0
            && match self.sigil {
                Sigil::Add => side == Side::After,
                Sigil::Remove => side == Side::Before,
                _ => true,
            }
    }

    /// This item's value on one side. A sensitive value the text marks as changed (`~ password =
    /// (sensitive value)`) gets a placeholder per side that says it is not the value: the marks
    /// hide both from every view, and the diff shows the change the text names instead of
    /// folding it as unchanged.
    fn project(&self, side: Side) -> Projected {
        let mut p = project(self.value(side), side);
        let sensitive_change = self.sigil == Sigil::Change
            && matches!(self.old, Val::Sensitive)
            && matches!(self.new, None | Some(Val::Sensitive));
        if sensitive_change {
            p.tree.value = Some(Value::String(match side {
                Side::Before => SENSITIVE_BEFORE.to_string(),
                Side::After => SENSITIVE_AFTER.to_string(),
            }));
        }
        p
    }

    fn value(&self, side: Side) -> &Val {
        match (&self.new, side) {
            (Some(new), Side::After) => new,
            _ => &self.old,
        }
    }
}

/// What a changed sensitive value is before the change, in place of the value the text hides.
pub const SENSITIVE_BEFORE: &str = "(sensitive value before the change; not in the text)";
/// What a changed sensitive value is after the change, in place of the value the text hides.
pub const SENSITIVE_AFTER: &str = "(sensitive value after the change; not in the text)";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Before,
    After,
}

/// One side of a value: the value with its mirrors ([`Mirrored`]; the value is `None` when
/// absent, as an unknown value is from `after`), and whether all of it was shown.
struct Projected {
    tree: Mirrored,
    /// False when a part of it was hidden or unreadable.
    complete: bool,
}

fn project(v: &Val, side: Side) -> Projected {
    let whole = |value, unknown, sensitive| Projected {
        tree: Mirrored {
            value,
            unknown,
            sensitive,
        },
        complete: true,
    };
    let unknown = || (side == Side::After).then_some(Value::Bool(true));
    match v {
        Val::Lit(x) => whole(Some(x.clone()), None, None),
        Val::Unknown => whole(None, unknown(), None),
        Val::Sensitive => whole(Some(Value::Null), None, Some(Value::Bool(true))),
        Val::Opaque => Projected {
            tree: Mirrored::default(),
            complete: false,
        },
        Val::Heredoc(lines) => {
            let text: Vec<&str> = lines
                .iter()
                .filter(|(s, _)| match s {
                    Sigil::Add => side == Side::After,
                    Sigil::Remove => side == Side::Before,
                    _ => true,
                })
                .map(|(_, l)| l.as_str())
                .collect();
            whole(Some(Value::String(text.join("\n"))), None, None)
        }
        Val::Json(inner) => {
            let p = project(inner, side);
            let (value, unknown, sensitive) = if p.tree.sensitive.is_some() {
                (Some(Value::Null), None, Some(Value::Bool(true)))
            } else if p.tree.unknown.is_some() {
                (None, unknown(), None)
            } else {
                return match p.tree.value {
                    // The string is only what it was when nothing of it was hidden.
                    Some(v) if p.complete => whole(Some(Value::String(v.to_string())), None, None),
                    value => Projected {
                        tree: Mirrored {
                            value,
                            ..Mirrored::default()
                        },
                        complete: false,
                    },
                };
            };
            Projected {
                tree: Mirrored {
                    value,
                    unknown,
                    sensitive,
                },
                complete: p.complete,
            }
        }
        Val::List(items) => {
            let mut complete = true;
            let mut elements = Vec::new();
            for item in items {
                if item.hidden > 0 {
                    complete = false;
                    continue;
                }
                if !item.on(side) {
                    continue;
                }
                let p = item.project(side);
                complete &= p.complete;
                elements.push(p.tree);
            }
            Projected {
                tree: Mirrored::list(elements),
                complete,
            }
        }
        Val::Obj(items, hidden_contents) => {
            if *hidden_contents {
                return Projected {
                    tree: Mirrored {
                        value: Some(Value::Null),
                        unknown: None,
                        sensitive: Some(Value::Bool(true)),
                    },
                    complete: false,
                };
            }
            let mut entries = Vec::new();
            let mut complete = true;
            // Blocks of one name are gathered into a list (or a map by label), in order.
            let mut blocks: Vec<(String, Vec<(Mirrored, Option<String>)>)> = Vec::new();
            for item in items {
                if item.hidden > 0 {
                    complete = false;
                    continue;
                }
                if !item.on(side) {
                    continue;
                }
                let Some(key) = &item.key else { continue };
                let p = item.project(side);
                complete &= p.complete;
                if item.block {
                    let block = (p.tree, item.label.clone());
                    match blocks.iter_mut().find(|(k, _)| k == key) {
                        Some((_, list)) => list.push(block),
                        None => blocks.push((key.clone(), vec![block])),
                    }
                } else {
                    entries.push((key.clone(), p.tree));
                }
            }
            for (key, list) in blocks {
                let tree = if list.iter().all(|(_, label)| label.is_some()) {
                    // A labelled block with no value is there all the same.
                    Mirrored::object(list.into_iter().map(|(tree, label)| {
                        let value = Some(tree.value.unwrap_or(Value::Null));
                        (label.unwrap_or_default(), Mirrored { value, ..tree })
                    }))
                } else {
                    Mirrored::list(list.into_iter().map(|(tree, _)| tree))
                };
                entries.push((key, tree));
            }
            Projected {
                tree: Mirrored::object(entries),
                complete,
            }
        }
    }
}

/// The key under which a converted change carries the text's own order of list elements: a
/// mirror of the change's values with, at each list, `{"rows": [ROW, …]}` (and `"hidden": true`
/// when the text hid some of its elements or blocks), each `ROW` an element as the text prints
/// it — `{"before": I}` removed, `{"after": J}` added, both for one kept or changed in place,
/// `"in"` the mirror of its own lists —, I and J its indexes in the converted `before` and
/// `after` arrays. The text prints no indexes and hides unchanged elements, so these arrays hold
/// only the elements shown: `planlens_changes::diff` pairs elements as the text's `-`, `+` and `~` say,
/// never by index or value, and claims no position in a list marked `hidden`.
pub const ELEMENTS: &str = "planlens_elements";

/// The [`ELEMENTS`] mirror of a value, when it holds a list.
fn elements_of(item: &Item) -> Option<Value> {
    if item.new.is_some() {
        // `[…] -> null`, `{…} -> (known after apply)`: two values, no elements to pair.
        return None;
    }
    match &item.old {
        Val::Obj(items, false) => body_elements(items),
        Val::List(items) => {
            let items: Vec<&Item> = items.iter().collect();
            list_elements(&items, items.iter().any(|i| i.hides_places()))
        }
        _ => None,
    }
}

/// The [`ELEMENTS`] mirror of an object or block body: its lists by attribute name, its blocks
/// without labels as one list per name (as [`project`] gathers them), labelled ones by label.
fn body_elements(items: &[Item]) -> Option<Value> {
    let blocks_hidden = items.iter().any(Item::hides_places);
    let mut out = Map::new();
    let mut blocks: Vec<(&str, Vec<&Item>)> = Vec::new();
    for item in items {
        let Some(key) = &item.key else { continue };
        if item.hidden > 0 || !(item.on(Side::Before) || item.on(Side::After)) {
            continue;
        }
        if item.block {
            match blocks.iter_mut().find(|(k, _)| k == key) {
                Some((_, list)) => list.push(item),
                None => blocks.push((key, vec![item])),
            }
        } else if let Some(e) = elements_of(item) {
            out.insert(key.clone(), e);
        }
    }
    for (key, list) in blocks {
        if list.iter().all(|b| b.label.is_some()) {
            let by_label: Map<String, Value> = list
                .iter()
                .filter_map(|b| Some((b.label.clone()?, elements_of(b)?)))
                .collect();
            if !by_label.is_empty() {
                out.insert(key.to_string(), Value::Object(by_label));
            }
        } else {
            if let Some(e) = list_elements(&list, blocks_hidden) {
                out.insert(key.to_string(), e);
            }
        }
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// The [`ELEMENTS`] mirror of a list: one row per element shown, in the text's order.
fn list_elements(items: &[&Item], hidden: bool) -> Option<Value> {
    let (mut b, mut a) = (0usize, 0usize);
    let mut rows = Vec::new();
    for item in items.iter().filter(|i| i.hidden == 0) {
        let mut row = Map::new();
        if item.on(Side::Before) {
            row.insert("before".into(), json!(b));
            b += 1;
        }
        if item.on(Side::After) {
            row.insert("after".into(), json!(a));
            a += 1;
        }
        if row.is_empty() {
            continue;
        }
        if let Some(e) = elements_of(item) {
            row.insert("in".into(), e);
        }
        rows.push(Value::Object(row));
    }
    if rows.is_empty() && !hidden {
        return None;
    }
    let mut list = Map::new();
    list.insert("rows".into(), Value::Array(rows));
    if hidden {
        list.insert("hidden".into(), Value::Bool(true));
    }
    Some(Value::Object(list))
}

/// The paths marked `# forces replacement`, as the plan's `replace_paths` writes them. Where the
/// text hid elements of a list (or blocks of an object) their indexes are unknown, since Terraform
/// prints the hidden count apart from their places: the path then stops at the list.
fn forced_paths(items: &[Item], path: &mut Vec<Value>, out: &mut Vec<Value>) {
    let some_hidden = items.iter().any(|i| i.hidden > 0);
    let mut index = 0usize;
    let mut block_index: std::collections::HashMap<&str, usize> = Default::default();
    for item in items {
        if item.hidden > 0 {
            continue;
        }
        let step = match (&item.key, item.block) {
            (Some(k), true) => {
                let n = block_index.entry(k.as_str()).or_insert(0);
                let step = match (&item.label, some_hidden) {
                    (Some(l), _) => vec![json!(k), json!(l)],
                    (None, false) => vec![json!(k), json!(*n)],
                    (None, true) => vec![json!(k)],
                };
                if item.sigil != Sigil::Add {
                    *n += 1;
                }
                step
            }
            (Some(k), false) => vec![json!(k)],
            (None, _) => {
                let step = if some_hidden {
                    Vec::new()
                } else {
                    vec![json!(index)]
                };
                if item.sigil != Sigil::Add {
                    index += 1;
                }
                step
            }
        };
        // A block without a label among hidden blocks has no index we know.
        let exact = !(step.is_empty() || item.block && item.label.is_none() && some_hidden);
        let depth = path.len();
        path.extend(step);
        if exact {
            if item.forces {
                out.push(Value::Array(path.clone()));
            }
            for v in [Some(&item.old), item.new.as_ref()].into_iter().flatten() {
                if let Val::Obj(inner, _) | Val::List(inner) = v {
                    forced_paths(inner, path, out);
                }
            }
        } else if forces_somewhere(item) && !path.is_empty() {
            let p = Value::Array(path.clone());
            if !out.contains(&p) {
                out.push(p);
            }
        }
        path.truncate(depth);
    }
}

/// True when the item or anything inside it is marked `# forces replacement`.
fn forces_somewhere(item: &Item) -> bool {
    item.forces
        || [Some(&item.old), item.new.as_ref()]
            .into_iter()
            .flatten()
            .any(|v| match v {
                Val::Obj(inner, _) | Val::List(inner) => inner.iter().any(forces_somewhere),
                _ => false,
            })
}

fn hidden_count(items: &[Item]) -> usize {
    items
        .iter()
        .map(|i| {
            i.hidden
                + [Some(&i.old), i.new.as_ref()]
                    .into_iter()
                    .flatten()
                    .map(|v| match v {
                        Val::Obj(inner, _) | Val::List(inner) => hidden_count(inner),
                        Val::Json(inner) => match inner.as_ref() {
                            Val::Obj(inner, _) | Val::List(inner) => hidden_count(inner),
                            _ => 0,
                        },
                        _ => 0,
                    })
                    .sum::<usize>()
        })
        .sum()
}

/// Why a body could not be read to its end.
#[derive(Debug)]
enum Stop {
    /// The text ended inside it.
    End,
    /// A resource header came before its closing brace.
    Header,
    /// Values nested deeper than [`MAX_DEPTH`].
    TooDeep,
}

/// How deep values may nest before a body is given up as unreadable.
const MAX_DEPTH: usize = 64;

/// The reader's place in the cleaned lines.
struct Reader<'t> {
    lines: &'t [String],
    pos: usize,
    facts: TextPlanFacts,
    changes: Vec<(TextChange, ResourceChange<'static>)>,
    drift: Vec<(TextChange, ResourceChange<'static>)>,
    outputs: BTreeMap<String, Change<'static>>,
    /// Terraform's closing words were seen after the changes (`Plan:`, `No changes.`, …).
    closed: bool,
    failed: bool,
    /// How many bodies, lists and maps the reader is inside.
    depth: usize,
    /// A resource was read since the last plan's end (`Plan:` or `No changes.`).
    since_end: bool,
}

impl<'t> Reader<'t> {
    fn line(&self) -> Option<&'t str> {
        self.lines.get(self.pos).map(String::as_str)
    }

    fn run(&mut self) {
        let mut in_outputs = false;
        while let Some(line) = self.line() {
            let (indent, sigil, rest) = split_sigil(line);
            if rest.is_empty() {
                self.pos += 1;
                continue;
            }
            if sigil == Sigil::None
                && let Some(h) = rest.strip_prefix("# ").and_then(header)
            {
                in_outputs = false;
                self.pos += 1;
                self.resource(h);
                // More changes after a `Plan:` line (a log with two plans) reopen the text.
                self.closed = false;
                continue;
            }
            if indent <= 3
                && !in_outputs
                && let Some(h) = header_0_11(sigil, rest)
            {
                self.pos += 1;
                self.resource_0_11(indent, h);
                self.closed = false;
                continue;
            }
            if in_outputs && (sigil != Sigil::None || indent >= 2) {
                // Terraform prints output changes after the `Plan:` line: they do not reopen it.
                self.output(sigil, rest.to_string());
                continue;
            }
            in_outputs = false;
            self.pos += 1;
            if rest.starts_with("Changes to Outputs:") {
                in_outputs = true;
            } else if let Some(s) = summary_line(rest) {
                self.facts.summary_line = Some(s);
                self.closed = true;
                self.plan_end();
            } else if rest.starts_with("No changes.") {
                self.facts.no_changes = true;
                self.closed = true;
                self.plan_end();
            } else if is_apply_end(rest) {
                self.facts.applied = true;
            } else if rest.starts_with("This is a refresh-only plan")
                || rest.starts_with("You can apply this plan to save these new output values")
            {
                self.closed = true;
                self.note_tool(rest);
            } else if let Some(summary) = rest.strip_prefix("Error: ") {
                self.facts.errors.push(summary.trim().to_string());
            } else if rest.starts_with("Planning failed.") {
                self.failed = true;
            } else if is_wording(rest, sigil) {
                self.note_tool(rest);
            } else {
                self.facts.skipped_lines += 1;
            }
        }
    }

    /// A plan's end (`Plan:` or `No changes.`): another plan when resources were read since the
    /// last end (a PR comment repeats a plan's `Plan:` line before or after it; a plan with no
    /// changes is not counted, which only counts fewer).
    fn plan_end(&mut self) {
        if self.since_end {
            self.facts.plans += 1;
        }
        self.since_end = false;
    }

    /// A Terraform 0.11 resource ([`header_0_11`]): its action, and its attribute lines skipped
    /// (their values are not read, so it is listed as unread).
    fn resource_0_11(&mut self, indent: usize, h: Header) {
        while let Some(line) = self.line() {
            let (inner, sigil, rest) = split_sigil(line);
            if rest.is_empty() || inner <= indent || sigil != Sigil::None || !rest.contains(':') {
                break;
            }
            self.pos += 1;
        }
        self.push(&h, h.reason.map(str::to_string), None, None);
    }

    fn note_tool(&mut self, rest: &str) {
        if self.facts.tool.is_none() {
            if rest.contains("OpenTofu") || rest.contains("tofu apply") {
                self.facts.tool = Some("OpenTofu".to_string());
            } else if rest.contains("Terraform") || rest.contains("terraform apply") {
                self.facts.tool = Some("Terraform".to_string());
            }
        }
    }

    /// Reads the comment lines after a header, the body, and records the change.
    fn resource(&mut self, mut h: Header) {
        let mut reason = h.reason.map(str::to_string);
        let mut import_id: Option<String> = None;
        // Comment lines right after the header.
        while let Some(line) = self.line() {
            let (_, sigil, rest) = split_sigil(line);
            let Some(comment) = rest.strip_prefix("# (") else {
                break;
            };
            if sigil != Sigil::None || header(&rest[2..]).is_some() {
                break;
            }
            let comment = comment.trim_end().trim_end_matches(')');
            if let Some(from) = comment.strip_prefix("moved from ") {
                h.previous = Some(from.to_string());
            } else if let Some(id) = comment.strip_prefix("imported from ") {
                h.importing = true;
                import_id = Some(id.trim_matches('"').to_string());
            } else if let Some(because) = comment.strip_prefix("because ") {
                reason = delete_reason(because, &h.address)
                    .map(str::to_string)
                    .or(reason);
            } else if comment.starts_with("config refers to values not yet known") {
                reason = Some("read_because_config_unknown".to_string());
            } else if comment.starts_with("depends on a resource or a module with changes pending")
            {
                reason = Some("read_because_dependency_pending".to_string());
            } else if comment.starts_with("config will be reloaded to verify a check block") {
                reason = Some("read_because_check_nested".to_string());
            }
            self.pos += 1;
        }
        // The body: `[sigil] resource "TYPE" "NAME" {` or `data "TYPE" "NAME" {`.
        let mut body: Option<Result<Vec<Item>, Stop>> = None;
        if let Some(line) = self.line() {
            let (_, sigil, rest) = split_sigil(line);
            if rest.starts_with("resource \"") || rest.starts_with("data \"") {
                match sigil {
                    Sigil::DeleteCreate => {
                        h.action = replace_with(h.action, ReplaceOrder::DeleteThenCreate)
                    }
                    Sigil::CreateDelete => {
                        h.action = replace_with(h.action, ReplaceOrder::CreateThenDelete)
                    }
                    _ => {}
                }
                let trimmed = rest.trim_end();
                if trimmed.ends_with("{}") {
                    self.pos += 1;
                    body = Some(Ok(Vec::new()));
                } else if trimmed.ends_with('{') {
                    self.pos += 1;
                    let parsed = self.entries(false);
                    if parsed.is_ok() {
                        // The closing brace.
                        self.pos += 1;
                    }
                    body = Some(parsed.map(|(items, _)| items));
                } else {
                    self.pos += 1;
                    body = Some(Err(Stop::Header));
                }
            }
        }
        let parsed = match body {
            Some(Ok(items)) => Some(items),
            Some(Err(Stop::End)) => {
                self.facts.cut = true;
                None
            }
            Some(Err(Stop::Header | Stop::TooDeep)) | None => None,
        };
        self.push(&h, reason, import_id, parsed.as_deref());
    }

    /// Adds a read resource to the changes (or, for a drift header, to the drift), with its plan
    /// JSON ([`Reader::entry_json`]).
    fn push(
        &mut self,
        h: &Header,
        reason: Option<String>,
        import_id: Option<String>,
        body: Option<&[Item]>,
    ) {
        let change = TextChange {
            address: h.address.clone(),
            action: h.action,
            reason: reason.clone(),
            previous_address: h.previous.clone(),
            importing: h.importing,
            deposed: h.deposed.clone(),
        };
        let entry = self.entry_json(h, reason, import_id, body);
        self.since_end = true;
        if h.drift {
            self.drift.push((change, entry));
        } else {
            self.changes.push((change, entry));
        }
    }

    /// The plan JSON of one resource change.
    fn entry_json(
        &mut self,
        h: &Header,
        reason: Option<String>,
        import_id: Option<String>,
        body: Option<&[Item]>,
    ) -> ResourceChange<'static> {
        let mut change = Change::of(h.action.names());
        let (has_before, has_after) = match h.action {
            Action::Create | Action::Read => (false, true),
            Action::Delete | Action::Forget => (true, false),
            _ => (true, true),
        };
        match body {
            Some(items) => {
                let whole = Val::Obj(items.to_vec(), false);
                let side = |side, has: bool| has.then(|| project(&whole, side).tree);
                change = change.with_sides(
                    side(Side::Before, has_before),
                    side(Side::After, has_after),
                    &json!({}),
                );
                let mut paths = Vec::new();
                forced_paths(items, &mut Vec::new(), &mut paths);
                change.replace_paths = (!paths.is_empty()).then_some(paths);
                change.elements = body_elements(items);
                self.facts.hidden += hidden_count(items);
            }
            None => {
                change = change.with_sides(None, None, &Value::Null);
                self.facts.unread.push(h.address.clone());
            }
        }
        if h.importing {
            change.importing = Some(Importing { id: import_id });
        }
        let a = &h.parsed;
        ResourceChange {
            address: h.address.clone(),
            previous_address: h.previous.clone(),
            module_address: a.module_path(),
            mode: if a.is_data { "data" } else { "managed" },
            resource_type: a.resource_type.clone(),
            name: a.name.clone(),
            index: match &a.key {
                Some(InstanceKey::Int(i)) => Some(json!(i)),
                Some(InstanceKey::Str(s)) => Some(json!(s)),
                _ => None,
            },
            // The text never names the provider.
            provider_name: String::new(),
            deposed: h.deposed.clone(),
            action_reason: reason,
            change,
        }
    }

    /// One line of `Changes to Outputs:` (and the lines its value spans).
    fn output(&mut self, sigil: Sigil, rest: String) {
        let item = match self.item(sigil, &rest, false) {
            Ok(item) => item,
            Err(Stop::End) => {
                self.facts.cut = true;
                None
            }
            // A header: read it next.
            Err(Stop::Header) => return,
            Err(Stop::TooDeep) => None,
        };
        self.pos += 1;
        let Some(item) = item else {
            self.facts.skipped_lines += 1;
            return;
        };
        let Some(name) = item.key.clone() else { return };
        let actions: &'static [&'static str] = match sigil {
            Sigil::Add => &["create"],
            Sigil::Remove => &["delete"],
            Sigil::Change => &["update"],
            _ => &["no-op"],
        };
        let side = |side| item.on(side).then(|| item.project(side).tree);
        let mut change = Change::of(actions).with_sides(
            side(Side::Before),
            side(Side::After),
            &Value::Bool(false),
        );
        change.elements = elements_of(&item);
        self.outputs.insert(name, change);
    }

    /// Reads items until the closing `}` or `]` (left as the current line); returns the items
    /// and the text after the bracket.
    fn entries(&mut self, in_list: bool) -> Result<(Vec<Item>, String), Stop> {
        // Terraform nests values a few levels deep; an edited text must not exhaust the stack.
        if self.depth >= MAX_DEPTH {
            return Err(Stop::TooDeep);
        }
        self.depth += 1;
        let read = self.entries_at_depth(in_list);
        self.depth -= 1;
        read
    }

    fn entries_at_depth(&mut self, in_list: bool) -> Result<(Vec<Item>, String), Stop> {
        let mut items = Vec::new();
        let mut hidden_contents = false;
        loop {
            let Some(line) = self.line() else {
                return Err(Stop::End);
            };
            let (_, sigil, rest) = split_sigil(line);
            let rest = rest.to_string();
            if rest.is_empty() {
                self.pos += 1;
                continue;
            }
            if sigil == Sigil::None && (rest.starts_with('}') || rest.starts_with(']')) {
                let trailing = rest[1..].to_string();
                if hidden_contents {
                    // Terraform said the block's contents are sensitive: one marker item.
                    items.push(Item {
                        key: Some(String::new()),
                        ..Item::of(Sigil::None, Val::Obj(Vec::new(), true))
                    });
                }
                return Ok((items, trailing));
            }
            if sigil == Sigil::None && rest.starts_with('#') {
                if let Some(c) = rest.strip_prefix("# ")
                    && header(c).is_some()
                {
                    return Err(Stop::Header);
                }
                if let Some((n, attributes_only)) = hidden_marker(&rest) {
                    items.push(Item::hidden(n, attributes_only));
                } else if rest.contains("sensitive, so its contents will not be displayed")
                    || rest.contains("(or was) sensitive")
                {
                    hidden_contents = true;
                }
                self.pos += 1;
                continue;
            }
            match self.item(sigil, &rest, in_list)? {
                Some(item) => items.push(item),
                // Not an attribute, element or block: the line goes, and with it a value.
                None => items.push(Item {
                    sigil,
                    ..Item::hidden(1, false)
                }),
            }
            // Every item leaves the reader on its last line.
            self.pos += 1;
        }
    }

    /// Reads one attribute, entry, block or element starting on the current line; leaves the
    /// reader on the item's last line.
    fn item(&mut self, sigil: Sigil, rest: &str, in_list: bool) -> Result<Option<Item>, Stop> {
        let mut item = Item::of(sigil, Val::Opaque);
        let value_text: String;
        if in_list {
            value_text = rest.to_string();
        } else {
            let Some((key, after)) = key_of(rest) else {
                return Ok(None);
            };
            item.key = Some(key);
            let after = after.trim_start();
            if let Some(v) = after.strip_prefix('=') {
                value_text = v.trim_start().to_string();
            } else {
                // A block: `name {`, `name "label" {`, `name {}`.
                let (label, after) = if after.starts_with('"') {
                    let Some((l, a)) = lex_string(after) else {
                        return Ok(None);
                    };
                    (Some(l), a.trim_start())
                } else {
                    (None, after)
                };
                item.block = true;
                item.label = label;
                let after = after.trim_end();
                if after.starts_with("{}") {
                    item.old = Val::Obj(Vec::new(), false);
                    return Ok(Some(item));
                }
                if !after.starts_with('{') {
                    return Ok(None);
                }
                self.pos += 1;
                let (items, trailing) = self.entries(false)?;
                item.old = Val::Obj(items, false);
                item.forces = trailing.contains("# forces replacement");
                return Ok(Some(item));
            }
        }
        let Some((old, trailing)) = self.value(&value_text)? else {
            return Ok(None);
        };
        item.old = old;
        let (arrow, forces) = after_value(&trailing);
        item.forces = forces;
        if let Some(next) = arrow {
            match self.value(&next)? {
                Some((new, trailing)) => {
                    item.new = Some(new);
                    item.forces |= after_value(&trailing).1;
                }
                None => item.new = Some(Val::Opaque),
            }
        }
        Ok(Some(item))
    }

    /// Reads a value starting with `text` on the current line; returns it and the text after it
    /// on the line where it ends (the reader is left on that line).
    fn value(&mut self, text: &str) -> Result<Option<(Val, String)>, Stop> {
        let text = text.trim_start();
        if text.starts_with('"') {
            return Ok(
                lex_string(text).map(|(s, rest)| (Val::Lit(Value::String(s)), rest.to_string()))
            );
        }
        for (word, val) in [
            ("(known after apply)", Val::Unknown),
            ("(sensitive value)", Val::Sensitive),
            ("(sensitive)", Val::Sensitive),
            ("(sensitive data)", Val::Sensitive),
            ("null", Val::Lit(Value::Null)),
            ("true", Val::Lit(Value::Bool(true))),
            ("false", Val::Lit(Value::Bool(false))),
            ("[]", Val::List(Vec::new())),
            ("{}", Val::Obj(Vec::new(), false)),
        ] {
            if let Some(rest) = text.strip_prefix(word)
                && ends_token(rest)
            {
                return Ok(Some((val, rest.to_string())));
            }
        }
        if text.starts_with('[') && text[1..].trim().is_empty() {
            self.pos += 1;
            let (items, trailing) = self.entries(true)?;
            return Ok(Some((Val::List(items), trailing)));
        }
        if text.starts_with('{') && text[1..].trim().is_empty() {
            self.pos += 1;
            let (items, trailing) = self.entries(false)?;
            return Ok(Some((Val::Obj(items, false), trailing)));
        }
        if let Some(after) = text.strip_prefix("<<") {
            let after = after.trim_start_matches(['-', '~']);
            let delimiter: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !delimiter.is_empty() {
                return self.heredoc(&delimiter).map(Some);
            }
        }
        if let Some(after) = text.strip_prefix("jsonencode(") {
            return self.jsonencode(after).map(Some);
        }
        // A number.
        let end = text
            .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')))
            .unwrap_or(text.len());
        if end > 0
            && let Ok(n) = serde_json::from_str::<serde_json::Number>(&text[..end])
        {
            return Ok(Some((Val::Lit(Value::Number(n)), text[end..].to_string())));
        }
        if end > 0
            && let Ok(f) = text[..end].parse::<f64>()
            && let Some(n) = serde_json::Number::from_f64(f)
        {
            return Ok(Some((Val::Lit(Value::Number(n)), text[end..].to_string())));
        }
        Ok(None)
    }

    /// A heredoc: the lines up to the delimiter, each with its symbol (two columns left of the
    /// text, as Terraform indents them).
    fn heredoc(&mut self, delimiter: &str) -> Result<(Val, String), Stop> {
        let from = self.pos + 1;
        let mut end = from;
        while let Some(line) = self.lines.get(end) {
            let t = line.trim_start();
            if let Some(after) = t.strip_prefix(delimiter)
                && (after.trim().is_empty() || after.trim_start().starts_with("->"))
            {
                break;
            }
            end += 1;
        }
        let Some(close) = self.lines.get(end) else {
            self.pos = self.lines.len();
            return Err(Stop::End);
        };
        let close_indent = close.len() - close.trim_start().len();
        let trailing = close.trim_start()[delimiter.len()..].to_string();
        let mut lines = Vec::new();
        for line in &self.lines[from..end] {
            let sigil_at = close_indent + 2;
            let text_at = close_indent + 4;
            let (sigil, text) = match line.get(sigil_at..sigil_at + 2) {
                Some("+ ") => (Sigil::Add, line.get(text_at..).unwrap_or("")),
                Some("- ") => (Sigil::Remove, line.get(text_at..).unwrap_or("")),
                _ => (
                    Sigil::None,
                    line.get(text_at..).unwrap_or(line.trim_start()),
                ),
            };
            lines.push((sigil, text.to_string()));
        }
        self.pos = end;
        Ok((Val::Heredoc(lines), trailing))
    }

    /// `jsonencode(` and the value inside, up to the closing `)`.
    fn jsonencode(&mut self, after: &str) -> Result<(Val, String), Stop> {
        let after = after.trim();
        if !after.is_empty() {
            // On one line: `jsonencode("x")`, `jsonencode({}) -> null`.
            let close = after.rfind(')').unwrap_or(after.len());
            let trailing = after.get(close + 1..).unwrap_or("").to_string();
            return Ok(match self.value(&after[..close])? {
                Some((v, rest)) if rest.trim().is_empty() => (Val::Json(Box::new(v)), trailing),
                _ => (Val::Opaque, trailing),
            });
        }
        self.pos += 1;
        while self.line().is_some_and(|l| l.trim().is_empty()) {
            self.pos += 1;
        }
        let Some(line) = self.line() else {
            return Err(Stop::End);
        };
        let (_, _, rest) = split_sigil(line);
        let rest = rest.to_string();
        let inner = self.value(&rest)?;
        self.pos += 1;
        while self.line().is_some_and(|l| l.trim().is_empty()) {
            self.pos += 1;
        }
        let Some(line) = self.line() else {
            return Err(Stop::End);
        };
        match inner {
            Some((v, _)) if line.trim_start().starts_with(')') => {
                let trailing = line.trim_start()[1..].to_string();
                Ok((Val::Json(Box::new(v)), trailing))
            }
            // Not what Terraform writes: the value is lost, the line stays for the caller.
            _ => {
                self.pos -= 1;
                Ok((Val::Opaque, String::new()))
            }
        }
    }
}

/// The replace order the body's symbol says, for a replace header.
fn replace_with(action: Action, order: ReplaceOrder) -> Action {
    match action {
        Action::Replace(_) => Action::Replace(order),
        other => other,
    }
}

/// The plan's `action_reason` for a `# (because …)` line of a destroy.
fn delete_reason(because: &str, address: &str) -> Option<&'static str> {
    let because = because.trim_end_matches(')');
    if let Some(what) = because.strip_suffix(" is not in configuration") {
        // `module.x is not in configuration` names the module the resource was in.
        return Some(
            if what.starts_with("module.") && address.starts_with(&format!("{what}.")) {
                "delete_because_no_module"
            } else {
                "delete_because_no_resource_config"
            },
        );
    }
    if because.contains("which is not in configuration") {
        return Some("delete_because_no_move_target");
    }
    if because.starts_with("resource does not use") || because.starts_with("resource uses") {
        return Some("delete_because_wrong_repetition");
    }
    if because.starts_with("index ") && because.contains("out of range for count") {
        return Some("delete_because_count_index");
    }
    if because.starts_with("key ") && because.contains("not in for_each map") {
        return Some("delete_because_each_key");
    }
    None
}

/// `# (3 unchanged attributes hidden)` → 3, and whether only attributes are hidden (not
/// blocks or elements).
fn hidden_marker(comment: &str) -> Option<(usize, bool)> {
    let inner = comment.strip_prefix("# (")?.strip_suffix(')')?;
    let (n, what) = inner.split_once(' ')?;
    (what.starts_with("unchanged ") && what.ends_with(" hidden")).then_some(())?;
    Some((n.parse().ok()?, what.starts_with("unchanged attribute")))
}

/// What follows a value on its line: the text after `->`, and whether `# forces replacement`
/// is there.
fn after_value(trailing: &str) -> (Option<String>, bool) {
    let mut t = trailing.trim();
    let forces = t.contains("# forces replacement");
    if let Some(i) = t.find("# forces replacement") {
        t = t[..i].trim_end();
    }
    let t = t.trim_end_matches(',').trim();
    match t.strip_prefix("->") {
        Some(next) => (Some(next.trim().to_string()), forces),
        None => (None, forces),
    }
}

/// True when a word is complete: followed by nothing, a space, a comma or a bracket.
fn ends_token(rest: &str) -> bool {
    rest.chars()
        .next()
        .is_none_or(|c| c == ' ' || c == ',' || c == ')' || c == ']' || c == '}')
}

/// An attribute name (`id`, `"key with spaces"`) and the text after it.
fn key_of(rest: &str) -> Option<(String, &str)> {
    if rest.starts_with('"') {
        return lex_string(rest);
    }
    let end = rest.find([' ', '=']).unwrap_or(rest.len());
    let key = &rest[..end];
    let valid = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':' | '@' | '*'));
    valid.then(|| (key.to_string(), &rest[end..]))
}

/// A quoted string as Terraform prints it (Go/HCL escapes, `$${` for `${`), and the rest.
fn lex_string(text: &str) -> Option<(String, &str)> {
    let mut chars = text.char_indices();
    if chars.next()?.1 != '"' {
        return None;
    }
    let mut out = String::new();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                let out = out.replace("$${", "${").replace("%%{", "%{");
                return Some((out, &text[i + 1..]));
            }
            '\\' => {
                let (_, e) = chars.next()?;
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    'u' | 'U' | 'x' => {
                        let n = match e {
                            'u' => 4,
                            'U' => 8,
                            _ => 2,
                        };
                        let hex: String =
                            (0..n).filter_map(|_| chars.next().map(|c| c.1)).collect();
                        let ch = u32::from_str_radix(&hex, 16)
                            .ok()
                            .and_then(char::from_u32)?;
                        out.push(ch);
                    }
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                }
            }
            c => out.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_name_the_action_and_address() {
        let h = header("module.a[\"k.1\"].aws_x.y will be updated in-place").unwrap();
        assert_eq!(h.address, "module.a[\"k.1\"].aws_x.y");
        assert_eq!(h.action, Action::Update);
        let h = header("aws_x.y (deposed object 1a2b3c) will be destroyed").unwrap();
        assert_eq!(
            (h.address.as_str(), h.deposed.as_deref()),
            ("aws_x.y", Some("1a2b3c"))
        );
        let h = header("aws_x.a has moved to aws_x.b").unwrap();
        assert_eq!(
            (h.address.as_str(), h.previous.as_deref()),
            ("aws_x.b", Some("aws_x.a"))
        );
        assert!(header("(1 unchanged attribute hidden)").is_none());
        assert!(header("this will be created").is_none());
    }

    #[test]
    fn summary_lines_of_every_version_read() {
        let s = summary_line("Plan: 1 to import, 2 to add, 0 to change, 1 to destroy.").unwrap();
        assert_eq!((s.import, s.add, s.destroy), (1, 2, 1));
        let s = summary_line("Plan: 0 to add, 0 to change, 1 to replace, 0 to destroy.").unwrap();
        assert_eq!(s.replace, Some(1));
        assert!(summary_line("Plan: tomorrow").is_none());
    }
}
