//! What kind of input a document was loaded from, and the facts of that input that have no place
//! in a plan (a log's diagnostics, a driftctl report's coverage and unmanaged resources).
//!
//! Plan logs and driftctl reports are converted to the plan model on load, so every view works on
//! them; what the conversion cannot carry lives here.
//!
//! `Source::has_values` and `values_complete` say what an input can show. A `Diagnostic` splits its
//! snippet around the highlighted range (`Snippet::lines`) and prints itself as Terraform does
//! (`to_text`); offsets out of range never panic. Plain owned data, filled only by `load` and
//! `readers`; fields added later are `#[serde(default)]`, so older redacted links still read.

use serde::{Deserialize, Serialize};

use crate::text::visible;

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
    /// A Terraform state (raw `.tfstate` v4, `terraform show -json` of a state, or a state Secret
    /// of the Terraform controller): what Terraform recorded, not a plan. Each resource instance
    /// is a row whose values are its attributes; nothing is a change and nothing is judged
    /// (`Planning::State`).
    State(StateFacts),
    /// A human-readable plan (`terraform plan` / `terraform show` text, from a CI log, a PR
    /// comment, a controller's message). It names actions and shows only some values: the
    /// attributes Terraform printed, never the ones it hid as unchanged.
    TextPlan(TextPlanFacts),
}

impl Source {
    /// True when the input carries attribute values (only plans do in full; driftctl only the
    /// changed ones; a text plan those Terraform printed).
    pub fn has_values(&self) -> bool {
        !matches!(self, Source::PlanLog(_))
    }

    /// True when every attribute value of every resource is in the document, so a rule that reads
    /// a value can trust a missing one to be missing. False for plan logs (no values) and text
    /// plans (Terraform hides unchanged attributes from the text).
    pub fn values_complete(&self) -> bool {
        !matches!(self, Source::PlanLog(_) | Source::TextPlan(_))
    }

    /// A short name of the input kind, for headings and messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Source::Plan => "plan",
            Source::PlanLog(_) => "plan log",
            Source::Driftctl(_) => "driftctl report",
            Source::State(_) => "state",
            Source::TextPlan(_) => "text plan",
        }
    }

    /// True for a state: its rows are resources as recorded, not changes.
    pub fn is_state(&self) -> bool {
        matches!(self, Source::State(_))
    }
}

/// What a Terraform state says about itself, and the counts its headline reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateFacts {
    /// Which form it came in: `tfstate v4` or `terraform show -json`.
    pub format: String,
    /// The Terraform version that wrote it, when it says.
    #[serde(default)]
    pub terraform_version: Option<String>,
    /// The state's serial (raw states only): how many times it was written.
    #[serde(default)]
    pub serial: Option<u64>,
    /// The state's lineage (raw states only).
    #[serde(default)]
    pub lineage: Option<String>,
    /// Resource instances (managed and data sources; deposed objects not counted).
    #[serde(default)]
    pub resources: usize,
    /// Of those, data sources.
    #[serde(default)]
    pub data_sources: usize,
    /// Module instances holding them, the root module included.
    #[serde(default)]
    pub modules: usize,
    /// Deposed objects (left over from a create-before-destroy that did not finish).
    #[serde(default)]
    pub deposed: usize,
    /// Instances marked tainted (Terraform replaces them at the next apply).
    #[serde(default)]
    pub tainted: usize,
    /// The addresses of the tainted instances.
    #[serde(default)]
    pub tainted_addresses: Vec<String>,
    /// Root module outputs.
    #[serde(default)]
    pub outputs: usize,
}

impl StateFacts {
    /// True when the instance at `address` is tainted.
    pub fn is_tainted(&self, address: &str) -> bool {
        self.tainted_addresses.iter().any(|a| a == address)
    }

    /// The headline of a state, in place of a plan's sentence: `State: 4 resources in 2 modules
    /// (Terraform 1.9.5).` Never a verdict, never "No changes".
    pub fn sentence(&self) -> String {
        let resources = super::text::count(self.resources, "resource", "resources");
        let place = match self.modules {
            0 => String::new(),
            n => format!(" in {}", super::text::count(n, "module", "modules")),
        };
        let version = match &self.terraform_version {
            Some(v) if !v.is_empty() => format!(" (Terraform {})", visible(v)),
            _ => String::new(),
        };
        format!("State: {resources}{place}{version}.")
    }
}

/// What a human-readable plan said besides its resource changes, and how much of it was read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TextPlanFacts {
    /// `Terraform` or `OpenTofu`, when the text's wording names the tool.
    #[serde(default)]
    pub tool: Option<String>,
    /// The counts of the text's `Plan: …` line, as printed.
    #[serde(default)]
    pub summary_line: Option<TextSummary>,
    /// True when the text says `No changes.`
    #[serde(default)]
    pub no_changes: bool,
    /// True when the text stops before Terraform's closing lines (no `Plan:` line, `No changes.`
    /// or refresh-only note after its changes, or a block left open): it was cut, as a
    /// tf-controller condition message is at 20,000 characters, so it may list only some changes.
    #[serde(default)]
    pub cut: bool,
    /// The projects of an Atlantis comment that holds the plans of several (`### 1. dir: `.`
    /// workspace: `default``, …): read as one plan, they are judged as such
    /// ([`super::planning::Planning::Several`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub projects: Vec<String>,
    /// How many plans the text holds: its plans' ends (`Plan:` lines, `No changes.`) with
    /// resources between them (a terragrunt run-all prints one per module; a PR comment that
    /// repeats a plan's `Plan:` line after it counts once).
    #[serde(default)]
    pub plans: usize,
    /// True when the text goes on past the plan into an apply's end ("Apply complete!
    /// Resources: …"): the output of `terraform apply`, whose changes were already applied.
    #[serde(default)]
    pub applied: bool,
    /// Lines that were neither part of the plan nor Terraform's known wording (skipped, counted).
    #[serde(default)]
    pub skipped_lines: usize,
    /// What was removed around the plan before reading it: colour codes, timestamps, CI markers.
    #[serde(default)]
    pub cleaned: Vec<String>,
    /// Addresses whose attributes the text did not show, or showed in a form Planlens could not
    /// read: their action is known, their values are not.
    #[serde(default)]
    pub unread: Vec<String>,
    /// Attributes, elements and blocks the text hid as unchanged (`# (2 unchanged attributes
    /// hidden)`), summed over the text.
    #[serde(default)]
    pub hidden: usize,
    /// The summaries of the errors the text shows (`Error: …`); a text with one is a failed plan.
    #[serde(default)]
    pub errors: Vec<String>,
}

impl TextPlanFacts {
    /// What reading the plan from text means for every view, in one sentence: the page's banner,
    /// the CLI's and the comment's note.
    pub fn sentence(&self) -> String {
        let hidden = match self.hidden {
            0 => String::new(),
            n => format!(
                " ({} the text hid as unchanged {} not here)",
                super::text::count(
                    n,
                    "attribute, element or block",
                    "attributes, elements or blocks"
                ),
                if n == 1 { "is" } else { "are" }
            ),
        };
        format!(
            "Read from a human-readable plan: its actions, and only the values the text shows{hidden}. \
             A text names no providers and no configuration, so there are no dependency edges."
        )
    }
}

impl TextSummary {
    /// The counts as words: `1 to import, 2 to add, 0 to change, 1 to destroy`.
    pub fn words(&self) -> String {
        let mut parts = Vec::new();
        if self.import > 0 {
            parts.push(format!("{} to import", self.import));
        }
        parts.push(format!("{} to add", self.add));
        parts.push(format!("{} to change", self.change));
        if let Some(r) = self.replace {
            parts.push(format!("{r} to replace"));
        }
        parts.push(format!("{} to destroy", self.destroy));
        if self.forget > 0 {
            parts.push(format!("{} to forget", self.forget));
        }
        parts.join(", ")
    }
}

/// The counts of a text plan's `Plan: 1 to import, 2 to add, 0 to change, 1 to destroy.` line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextSummary {
    /// `N to import`.
    #[serde(default)]
    pub import: u64,
    /// `N to add`.
    #[serde(default)]
    pub add: u64,
    /// `N to change`.
    #[serde(default)]
    pub change: u64,
    /// `N to replace`, printed by newer versions; then `add` and `destroy` leave replacements out.
    #[serde(default)]
    pub replace: Option<u64>,
    /// `N to destroy`.
    #[serde(default)]
    pub destroy: u64,
    /// `N to forget`.
    #[serde(default)]
    pub forget: u64,
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
    /// `OpenTofu` when the log says it came from OpenTofu (its version message's `tofu` key,
    /// `@module` `tofu.ui`), `Terraform` when it says Terraform; else not known.
    #[serde(default)]
    pub tool: Option<String>,
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

/// A warning or error Terraform reported: a `diagnostic` message of a plan log (Terraform's
/// `views/json` `Diagnostic`). Fields added after the first redacted-link format default, so older
/// links still read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// `error` or `warning` (Terraform also knows `unknown`).
    pub severity: String,
    /// One line.
    pub summary: String,
    /// More text, possibly several lines.
    pub detail: String,
    /// The resource it is about, when Terraform says.
    pub address: Option<String>,
    /// `file:line` in the configuration, when Terraform says.
    pub location: Option<String>,
    /// Where in the configuration, when Terraform says: file, start and end.
    #[serde(default)]
    pub range: Option<SourceRange>,
    /// The configuration lines around the problem, when Terraform could read them.
    #[serde(default)]
    pub snippet: Option<Snippet>,
}

impl Diagnostic {
    /// True for errors: a plan log with one is a failed plan.
    pub fn is_error(&self) -> bool {
        self.severity == "error"
    }

    /// `Error` or `Warning`, as Terraform heads a diagnostic.
    pub fn heading(&self) -> &'static str {
        match self.severity.as_str() {
            "error" => "Error",
            "warning" => "Warning",
            _ => "Diagnostic",
        }
    }

    /// The diagnostic as plain text, the way Terraform prints it in a terminal (without the box):
    /// heading and summary, the place (`on FILE line N, in CONTEXT:`) with the snippet's lines
    /// and carets under the highlighted part, the values Terraform mentions, then the detail.
    /// Hidden characters are made visible.
    pub fn to_text(&self) -> String {
        let mut out = format!("{}: {}\n", self.heading(), visible(&self.summary));
        if let Some(address) = &self.address {
            out.push_str(&format!("  with {},\n", visible(address)));
        }
        if let Some(place) = self.place() {
            out.push_str(&format!("  {}\n", visible(&place)));
        }
        if let Some(snippet) = &self.snippet {
            out.push_str(&snippet.to_text());
        }
        if !self.detail.is_empty() {
            out.push_str(&format!("\n{}\n", crate::text::visible_lines(&self.detail)));
        }
        out
    }

    /// `on FILE line N, in CONTEXT:` (Terraform's words), or `on FILE line N:`, or the
    /// [`Diagnostic::location`] alone; `None` when Terraform gave no place.
    pub fn place(&self) -> Option<String> {
        let (file, line) = match &self.range {
            Some(r) => (r.filename.clone(), r.start.line.to_string()),
            None => {
                let location = self.location.as_deref()?;
                match location.rsplit_once(':') {
                    Some((file, line)) if line.parse::<u64>().is_ok() => {
                        (file.to_string(), line.to_string())
                    }
                    _ => return Some(format!("in {location}")),
                }
            }
        };
        Some(
            match self.snippet.as_ref().and_then(|s| s.context.as_deref()) {
                Some(context) => format!("on {file} line {line}, in {context}:"),
                None => format!("on {file} line {line}:"),
            },
        )
    }
}

/// A range in a configuration file (start inclusive, end exclusive).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRange {
    /// The file, relative to the working directory, e.g. `main.tf` or `modules/net/main.tf`.
    #[serde(default)]
    pub filename: String,
    /// Where the range starts.
    #[serde(default)]
    pub start: SourcePos,
    /// Where the range ends.
    #[serde(default)]
    pub end: SourcePos,
}

/// A position in a configuration file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcePos {
    /// 1-based line.
    #[serde(default)]
    pub line: u64,
    /// 1-based column, in characters.
    #[serde(default)]
    pub column: u64,
    /// 0-based byte offset in the file.
    #[serde(default)]
    pub byte: u64,
}

/// The configuration lines a diagnostic is about, as Terraform quotes them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snippet {
    /// The block it is in, e.g. `resource "aws_subnet" "private"`.
    #[serde(default)]
    pub context: Option<String>,
    /// One or more whole lines of configuration (no final line break).
    #[serde(default)]
    pub code: String,
    /// The file line of the first line of `code`.
    #[serde(default)]
    pub start_line: u64,
    /// Where the highlighted part starts: a byte offset into `code`.
    #[serde(default)]
    pub highlight_start_offset: usize,
    /// Where the highlighted part ends (exclusive): a byte offset into `code`.
    #[serde(default)]
    pub highlight_end_offset: usize,
    /// Values of the expression's references when it was evaluated, as Terraform describes them
    /// (`var.size` `is "huge"`). (Terraform writes `[]` when there are none; `null` reads as none.)
    #[serde(default, deserialize_with = "null_as_empty")]
    pub values: Vec<ExpressionValue>,
}

fn null_as_empty<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<ExpressionValue>, D::Error> {
    Ok(Option::<Vec<ExpressionValue>>::deserialize(deserializer)?.unwrap_or_default())
}

/// One reference of an expression and what Terraform says about its value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpressionValue {
    /// The reference, e.g. `var.instance_type`.
    #[serde(default)]
    pub traversal: String,
    /// What its value was, e.g. `is "m5.metal"` or `has a sensitive value`.
    #[serde(default)]
    pub statement: String,
}

/// One line of a [`Snippet`], split around the highlighted part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnippetLine<'a> {
    /// The line's number in its file.
    pub number: u64,
    /// Text before the highlighted part (the whole line when nothing on it is highlighted).
    pub before: &'a str,
    /// The highlighted part on this line (may be empty).
    pub highlight: &'a str,
    /// Text after it.
    pub after: &'a str,
}

impl Snippet {
    /// The code's lines, each split around the highlighted byte range. Offsets that fall outside
    /// the code or inside a character are moved to the nearest character boundary, so an edited
    /// log can never make this panic.
    pub fn lines(&self) -> Vec<SnippetLine<'_>> {
        let code = self.code.as_str();
        let floor = |mut i: usize| {
            i = i.min(code.len());
            while !code.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        let start = floor(self.highlight_start_offset);
        let end = floor(self.highlight_end_offset).max(start);
        let mut lines = Vec::new();
        let mut from = 0;
        for (i, piece) in code.split('\n').enumerate() {
            let line = piece.strip_suffix('\r').unwrap_or(piece);
            let to = from + line.len();
            // The part of the highlight on this line, in the line's own offsets.
            let (s, e) = if start.max(from) < end.min(to) {
                (start.max(from) - from, end.min(to) - from)
            } else {
                (line.len(), line.len())
            };
            lines.push(SnippetLine {
                number: self.start_line + i as u64,
                before: &line[..s],
                highlight: &line[s..e],
                after: &line[e..],
            });
            from += piece.len() + 1;
        }
        lines
    }

    /// The snippet as plain text, as Terraform prints it: each line with its number, carets under
    /// the highlighted part, then the values Terraform mentions. Hidden characters are made
    /// visible; tabs become two spaces so the carets line up.
    pub fn to_text(&self) -> String {
        let show = |t: &str| visible(&t.replace('\t', "  "));
        let width = self.last_line().to_string().len();
        let mut out = String::new();
        for line in self.lines() {
            let (before, highlight) = (show(line.before), show(line.highlight));
            out.push_str(&format!(
                "  {:>width$}: {before}{highlight}{}\n",
                line.number,
                show(line.after)
            ));
            if !highlight.is_empty() {
                out.push_str(&format!(
                    "  {:>width$}  {}{}\n",
                    "",
                    " ".repeat(before.chars().count()),
                    "^".repeat(highlight.chars().count())
                ));
            }
        }
        if !self.values.is_empty() {
            out.push_str("    ├────────────────\n");
        }
        for v in &self.values {
            out.push_str(&format!(
                "    │ {} {}\n",
                visible(&v.traversal),
                visible(&v.statement)
            ));
        }
        out
    }

    /// The file line of the code's last line.
    pub fn last_line(&self) -> u64 {
        self.start_line + self.code.matches('\n').count() as u64
    }
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
    /// The resource types the report's alerts say driftctl left out of the scan ("Ignoring
    /// aws_vpc from drift calculation: …", when it may not list them), in the alerts' order.
    pub fn ignored_types(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (_, message) in &self.alerts {
            if let Some(rest) = message.strip_prefix("Ignoring ")
                && let Some((kind, _)) = rest.split_once(" from drift calculation")
                && !out.iter().any(|k| k == kind)
            {
                out.push(kind.to_string());
            }
        }
        out
    }

    /// The report in one sentence, in place of a plan's: `driftctl: 6 resources, 2 managed,
    /// 2 unmanaged, 2 missing, 2 changed; coverage 33 %.`
    pub fn sentence(&self) -> String {
        format!(
            "driftctl: {}, {} managed, {} unmanaged, {} missing{}; coverage {} %.",
            super::text::count(self.total_resources as usize, "resource", "resources"),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn snippet(code: &str, start: usize, end: usize) -> Snippet {
        Snippet {
            code: code.to_string(),
            start_line: 7,
            highlight_start_offset: start,
            highlight_end_offset: end,
            ..Snippet::default()
        }
    }

    fn parts(s: &Snippet) -> Vec<(u64, &str, &str, &str)> {
        s.lines()
            .into_iter()
            .map(|l| (l.number, l.before, l.highlight, l.after))
            .collect()
    }

    #[test]
    fn a_highlight_over_two_lines_is_split_per_line() {
        // Bytes 4..11: from "{" to the "=" of the next line.
        let s = snippet("a = {\n  b = 1\n}", 4, 11);
        assert_eq!(
            parts(&s),
            [
                (7, "a = ", "{", ""),
                (8, "", "  b =", " 1"),
                (9, "}", "", "")
            ]
        );
        assert_eq!(s.last_line(), 9);
    }

    #[test]
    fn offsets_outside_the_code_or_inside_a_character_never_panic() {
        // "é" is two bytes: offset 1 falls inside it and moves back to its start.
        let s = snippet("é = x", 1, 99);
        assert_eq!(parts(&s), [(7, "", "é = x", "")]);
        let s = snippet("x", 5, 2);
        assert_eq!(parts(&s), [(7, "x", "", "")]);
    }
}
