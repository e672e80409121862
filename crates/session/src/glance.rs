//! What a reviewer sees first, as text ready to show: the summary strip (banners, Terraform's
//! sentence, the verdict, versions, drift note, counts) and the resource list's lines. The page's
//! summary and list render these (`Strip::of`, `RowLine::of`), and so does the first paint of a
//! share link (`src/glance.rs`), which reads a [`Glance`] carried in the link (`g=`) and paints it
//! before the app, its worker and the plan's parser have arrived.
//!
//! A glance holds display text only (every plan-supplied string already passed through
//! `text::visible`), no values and nothing to compute: the code that paints it is a few Leptos
//! components and a JSON reader. It is made where the whole plan is (the session, the CLI) with the
//! link's own rules, labels and list filter, so it says what the app says once the plan is open;
//! the app replaces it with its own rendering as soon as it has opened the plan.
//!
//! Invariants: the lines are the list's entries under the link's filter, cut at [`MAX_ROWS`]
//! resource rows (`more` counts the rest); a glance made under an `environment` label names it, and
//! one read under another label is not shown (its verdict could differ).

use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
use planlens_changes::checks::{CheckRow, check_rows};
use planlens_changes::drift::Severity;
use planlens_changes::list::{ListEntry, ListFilter, address_in_group};
use planlens_load::fragment::LinkView;
use planlens_model::findings::{Evaluation, RuleSeverity, Verdict};
use planlens_model::summary::{Planning, Tool, count, noun};
use planlens_model::text::visible;
use planlens_model::{Document, RowSource, Source, reason};
use planlens_rules::RuleSet;

/// The most resource rows a glance carries: a pull request's plan has far fewer; a larger one's
/// glance shows the first rows and says how many follow.
pub const MAX_ROWS: usize = 300;

/// What the resource count chip's title says: what the summary's, the list's and the graph's
/// instance counts count (one row each).
pub const INSTANCES_TITLE: &str = "Resource instances, one per row of the Resources list: planned \
     changes (no-ops included), deferred changes and resources that only drifted";

/// A plan's first screen, carried by a share link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Glance {
    /// The file name the plan is shown as.
    pub name: String,
    /// The `environment` label the verdict was made under, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<String>,
    /// The findings stand whatever rules the reader has (a redacted link's); otherwise the verdict
    /// and finding marks are the link's rules' (or the built-in pack's), and a reader with rules
    /// or policies of their own sees them only once the app has evaluated its own.
    #[serde(default)]
    pub fixed: bool,
    /// The summary strip.
    pub strip: Strip,
    /// The verdict badge; `None` for a state (no verdict).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<VerdictBadge>,
    /// The list's lines under the link's filter, at most [`MAX_ROWS`] resource rows.
    pub lines: Vec<Line>,
    /// Resource rows the filter shows beyond `lines`.
    #[serde(default)]
    pub more: usize,
}

/// The summary strip of an open plan, as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Strip {
    /// True for a state (not a plan): the strip is labelled "State summary".
    #[serde(default)]
    pub state: bool,
    /// Banners above the sentence, in order: errors, state, text plan, incomplete, warnings, notes.
    #[serde(default)]
    pub banners: Vec<Banner>,
    /// Terraform's sentence ("Plan: 2 to add, …").
    pub sentence: String,
    /// Opened from a redacted link: no values.
    #[serde(default)]
    pub redacted: bool,
    /// Which Terraform, which format.
    pub versions: String,
    /// What drifted, and its totals ("2 structural, 1 minor").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drift: Option<(String, String)>,
    /// The counts, in order.
    #[serde(default)]
    pub chips: Vec<Chip>,
}

/// How a banner reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tone {
    /// Something stops the plan.
    Danger,
    /// Look before trusting it.
    Warn,
    /// Worth knowing.
    Info,
}

impl Tone {
    /// The CSS class's suffix (`banner-danger`).
    pub fn key(self) -> &'static str {
        match self {
            Tone::Danger => "danger",
            Tone::Warn => "warn",
            Tone::Info => "info",
        }
    }
}

/// One banner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Banner {
    /// How it reads.
    pub tone: Tone,
    /// What it is about (`errored`, `state`, `text-plan`, `incomplete`, `load-warning`,
    /// `load-note`): its test id.
    pub kind: String,
    /// What it says.
    pub text: String,
}

/// One count of the strip.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chip {
    /// What it counts (`replace`, `move`, …, `instances`).
    pub key: String,
    /// The number, shown bold before the text; `None` when the text says it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<usize>,
    /// The words after the number.
    pub text: String,
    /// Its tooltip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Shown muted (a fact, not a change).
    #[serde(default)]
    pub muted: bool,
}

/// The verdict badge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictBadge {
    /// `Verdict::key` (`pass`, `warn`, `fail`, `errored`, …).
    pub key: String,
    /// What it says.
    pub label: String,
    /// Its tooltip.
    pub title: String,
}

impl VerdictBadge {
    /// The badge of an evaluation; `None` for a state (no verdict at all).
    pub fn of(evaluation: &Evaluation) -> Option<VerdictBadge> {
        if evaluation.verdict == Verdict::NotAPlan {
            return None;
        }
        let title = match evaluation.planning.sentence() {
            Some(sentence) => format!("{} Guardrail rules: open the Rules tab", visible(&sentence)),
            None => "Guardrail rules: open the Rules tab".to_string(),
        };
        Some(VerdictBadge {
            key: evaluation.verdict.key().to_string(),
            label: evaluation.verdict.label().to_string(),
            title,
        })
    }

    /// The badge of rules or policies that could not be evaluated (`label` says which).
    pub fn error(label: &str) -> VerdictBadge {
        VerdictBadge {
            key: "error".to_string(),
            label: label.to_string(),
            title: "Guardrail rules: open the Rules tab".to_string(),
        }
    }
}

/// One line of the resource list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Line {
    /// A module's heading: its path as shown, and how many rows follow.
    Module {
        /// `(root module)` or the module path.
        label: String,
        /// Rows under it.
        count: usize,
    },
    /// A resource.
    Row(Box<RowLine>),
}

/// A resource's row of the list, as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowLine {
    /// Its full address, raw (the row's `data-address`).
    pub address: String,
    /// The address as the row shows it: without the module path of the heading above.
    pub shown: String,
    /// The action's key (`create`, `replace`, …): the row's colour.
    pub action: String,
    /// True when the action destroys something.
    #[serde(default)]
    pub destructive: bool,
    /// What the row says the action is: its key (`in-state` for a state's resource), symbol and
    /// name.
    pub shown_action: (String, String, String),
    /// Marks after the address: key and label (`drift`, `drifted`).
    #[serde(default)]
    pub marks: Vec<(String, String)>,
    /// The worst finding's severity key (`deny`, `warn`), when a rule flags it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finding: Option<String>,
    /// Its resource type.
    pub resource_type: String,
    /// Why Terraform chose the action, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Strip {
    /// The strip of an open plan: its sentence, banners and counts (`checks`: its check rows).
    pub fn of(doc: &Document, analysis: &Analysis, checks: &[CheckRow]) -> Strip {
        let s = &analysis.summary;
        let plan = doc.plan();
        let planning = &analysis.planning;
        let banner = |tone, kind: &str, text: String| Banner {
            tone,
            kind: kind.to_string(),
            text,
        };
        let mut banners = Vec::new();
        if planning.failed() {
            let tool = Tool::of(doc).name();
            let what = if doc.rows.is_empty() {
                format!("{tool} could not make this plan, so there is nothing to apply.")
            } else {
                format!(
                    "This plan is partial: {tool} stopped on an error, so it cannot be applied."
                )
            };
            let next = if matches!(doc.source, Source::TextPlan(_)) {
                // A text plan's errors are its own `Error:` lines, not a list below.
                " The text's Error: lines say why: fix them and plan again."
            } else if matches!(planning, Planning::Failed { errors: 0, .. }) {
                " Its errors are not in this file (terraform show -json leaves them out): see the \
                 output of terraform plan, fix them and plan again."
            } else {
                " Fix the errors below and plan again."
            };
            banners.push(banner(Tone::Danger, "errored", format!("{what}{next}")));
        }
        if planning.is_state() {
            banners.push(banner(
                Tone::Info,
                "state",
                planning.sentence().unwrap_or_default(),
            ));
        }
        // A text plan: what reading it from text leaves out, said before anything is judged.
        if let Source::TextPlan(f) = &doc.source {
            banners.push(banner(Tone::Info, "text-plan", f.sentence()));
        }
        if planning.is_incomplete() {
            let text = planning.sentence().unwrap_or_default();
            banners.push(banner(Tone::Warn, "incomplete", text));
        }
        for w in &doc.warnings {
            banners.push(banner(Tone::Warn, "load-warning", w.clone()));
        }
        // What was undone to read the file (gzip, UTF-16, CI wrapper lines): information.
        for n in &doc.notes {
            banners.push(banner(Tone::Info, "load-note", n.clone()));
        }

        let terraform = plan
            .terraform_version
            .as_deref()
            .map_or("Terraform version not recorded".to_string(), |v| {
                format!("Terraform {}", visible(v))
            });
        let versions = match &doc.source {
            Source::Plan => format!(
                "{terraform} · format {}",
                plan.format_version
                    .as_deref()
                    .map_or("?".to_string(), visible),
            ),
            Source::PlanLog(_) => {
                format!("{terraform} · terraform plan -json log (no attribute values)")
            }
            Source::Driftctl(f) => format!("driftctl report, {}", f.format),
            Source::State(f) => {
                let serial = f
                    .serial
                    .map(|n| format!(" · serial {n}"))
                    .unwrap_or_default();
                format!("{terraform} · state, {}{serial}", visible(&f.format))
            }
            Source::TextPlan(f) => format!(
                "{} · human-readable plan (read from text)",
                f.tool.as_deref().unwrap_or("Terraform or OpenTofu")
            ),
        };

        let mut chips = Vec::new();
        let mut chip =
            |n: usize, one: &str, many: &str, key: &str| count_chip(&mut chips, n, one, many, key);
        let failing_checks = checks.iter().filter(|c| c.status.is_failing()).count();
        chip(s.replace, "to replace", "to replace", "replace");
        chip(s.moves, "moved", "moved", "move");
        chip(s.import, "to import", "to import", "import");
        chip(s.reads, "data read", "data reads", "read");
        chip(s.deferred, "deferred", "deferred", "deferred");
        chip(
            s.output_changes,
            "output change",
            "output changes",
            "output",
        );
        chip(
            failing_checks,
            "check failing",
            "checks failing",
            "check-fail",
        );
        if !plan.action_invocations.is_empty() {
            // Which actions: the chip names them, since the list shows resources.
            let named = plan
                .action_invocations
                .iter()
                .map(|a| visible(&a.address))
                .collect::<Vec<_>>()
                .join(", ");
            chips.push(Chip {
                key: "action".to_string(),
                count: Some(s.actions),
                text: format!(
                    "{}: {named}",
                    noun(s.actions, "action to invoke", "actions to invoke")
                ),
                title: Some(named),
                muted: false,
            });
        }
        if let Source::State(f) = &doc.source {
            let mut chip = |n: usize, one: &str, many: &str, key: &str| {
                count_chip(&mut chips, n, one, many, key)
            };
            chip(f.data_sources, "data source", "data sources", "data");
            chip(f.outputs, "output", "outputs", "state-outputs");
            chip(f.deposed, "deposed object", "deposed objects", "deposed");
            chip(f.tainted, "tainted", "tainted", "tainted");
        }
        if !matches!(doc.source, Source::Driftctl(_)) {
            chips.push(Chip {
                key: "instances".to_string(),
                count: None,
                text: count(s.instances, "resource instance", "resource instances"),
                title: Some(INSTANCES_TITLE.to_string()),
                muted: true,
            });
        }

        let drift = &analysis.drift;
        Strip {
            state: matches!(doc.source, Source::State(_)),
            banners,
            sentence: s.headline(doc),
            redacted: doc.values_dropped(),
            versions,
            drift: drift
                .note()
                .map(|note| (note, format!("{} →", drift.totals()))),
            chips,
        }
    }
}

/// A count's chip (`n` `one`/`many`, keyed `key`), when there is anything to count.
fn count_chip(chips: &mut Vec<Chip>, n: usize, one: &str, many: &str, key: &str) {
    if n > 0 {
        chips.push(Chip {
            key: key.to_string(),
            count: Some(n),
            text: noun(n, one, many).to_string(),
            title: None,
            muted: false,
        });
    }
}

impl RowLine {
    /// Row `r` of `doc` as the list shows it (`worst`: the worst finding's severity on it).
    pub fn of(
        doc: &Document,
        analysis: &Analysis,
        r: usize,
        worst: Option<RuleSeverity>,
    ) -> RowLine {
        let row = &doc.rows[r];
        let change = doc.change(row);
        let mut marks = Vec::new();
        let mut mark = |k: &str, label: &str| marks.push((k.to_string(), label.to_string()));
        if row.is_move {
            mark("move", "moved");
        }
        if row.is_import {
            mark("import", "import");
        }
        match analysis.drift.for_row(r).map(|d| d.severity) {
            Some(Severity::Structural) => mark("drift", "drifted"),
            Some(Severity::Minor) => mark("drift-minor", "tags drifted"),
            Some(Severity::NotRelevant) => mark("drift-not-relevant", "drifted, not relevant"),
            None => {}
        }
        if change.deposed.is_some() {
            mark("deposed", "deposed");
        }
        if let Source::State(f) = &doc.source
            && f.is_tainted(&change.address)
            && change.deposed.is_none()
        {
            mark("tainted", "tainted");
        }
        if matches!(row.source, RowSource::Deferred(_)) {
            mark("deferred", "deferred");
        }
        let action = row.action;
        // A state's row is a resource as recorded, not a change: no action symbol or name.
        let shown_action = if doc.source.is_state() {
            ("in-state", "", "in the state")
        } else {
            (action.key(), action.symbol(), action.label())
        };
        RowLine {
            address: change.address.to_string(),
            shown: visible(address_in_group(doc, row)),
            action: action.key().to_string(),
            destructive: action.is_destructive(),
            shown_action: (
                shown_action.0.to_string(),
                shown_action.1.to_string(),
                shown_action.2.to_string(),
            ),
            marks,
            finding: worst
                .filter(|s| *s != RuleSeverity::Info)
                .map(|s| s.key().to_string()),
            resource_type: visible(&doc.resource_types[row.resource_type as usize]),
            reason: change
                .action_reason
                .as_deref()
                .map(|why| reason::describe(why, action)),
        }
    }
}

/// A module heading's label: `(root module)` or the path, visible.
pub fn module_label(doc: &Document, module: u32) -> String {
    let name = &doc.modules[module as usize];
    if name.is_empty() {
        "(root module)".to_string()
    } else {
        visible(name)
    }
}

impl Glance {
    /// The glance of an open plan under `evaluation` (its rules and labels) and the link's `view`
    /// (its list filter and `environment`).
    pub fn of(
        doc: &Document,
        analysis: &Analysis,
        checks: &[CheckRow],
        evaluation: &Evaluation,
        view: &LinkView,
    ) -> Glance {
        let worst = evaluation.worst_by_resource(doc.rows.len());
        let filter = ListFilter::from_view(view, doc);
        let mut lines = Vec::new();
        let mut rows = 0;
        let mut more = 0;
        for entry in filter.entries(doc) {
            match entry {
                ListEntry::Module { module, count } => {
                    if rows < MAX_ROWS {
                        lines.push(Line::Module {
                            label: module_label(doc, module),
                            count: count as usize,
                        });
                    }
                }
                ListEntry::Resource(r) => {
                    if rows < MAX_ROWS {
                        let w = worst.get(r as usize).copied().flatten();
                        lines.push(Line::Row(Box::new(RowLine::of(
                            doc, analysis, r as usize, w,
                        ))));
                    } else {
                        more += 1;
                    }
                    rows += 1;
                }
            }
        }
        // A heading left with no row under it says nothing.
        if matches!(lines.last(), Some(Line::Module { .. })) {
            lines.pop();
        }
        Glance {
            name: visible(&doc.name),
            environment: view.environment.clone(),
            fixed: analysis.findings_carried(),
            strip: Strip::of(doc, analysis, checks),
            verdict: VerdictBadge::of(evaluation),
            lines,
            more,
        }
    }

    /// The glance of a link to `doc` showing `view`, as the app shows the plan once it has opened
    /// the link: under the link's rules (or the built-in pack) and `environment` label, or the
    /// findings a redacted document carries. `doc` is the document the link opens to (its text
    /// read back), not the one it was made from.
    pub fn for_link(doc: &Document, view: &LinkView) -> Glance {
        let analysis = Analysis::of(doc);
        let labels = planlens_rules::environment_labels(view.environment.as_deref().unwrap_or(""));
        let rules = match &view.rules {
            None => Ok(RuleSet::builtin()),
            Some(payload) => planlens_load::link::decode(payload)
                .ok()
                .and_then(|text| RuleSet::parse(&text).ok())
                .ok_or(()),
        };
        let checks = check_rows(doc);
        match rules {
            Ok(rules) => {
                let evaluation = analysis.evaluate(doc, &rules, &labels);
                Glance::of(doc, &analysis, &checks, &evaluation, view)
            }
            // Rules that do not parse give no verdict: the app says why once it has opened.
            Err(_) => {
                let evaluation = analysis.evaluate(doc, &RuleSet::builtin(), &labels);
                let mut glance = Glance::of(doc, &analysis, &checks, &evaluation, view);
                glance.verdict = None;
                for line in &mut glance.lines {
                    if let Line::Row(row) = line {
                        row.finding = None;
                    }
                }
                glance
            }
        }
    }

    /// The glance as a link payload (`load::link`: JSON, zlib, base64).
    pub fn payload(&self) -> String {
        let json = serde_json::to_string(self).expect("a glance is plain data");
        planlens_load::link::encode(&json)
    }

    /// A link payload read back, or why it cannot be.
    pub fn read(payload: &str) -> Result<Glance, String> {
        let json = planlens_load::link::decode(payload).map_err(|e| e.to_string())?;
        serde_json::from_str(&json).map_err(|e| format!("The link's glance does not read: {e}"))
    }
}
