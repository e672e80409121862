//! The plan's counts, Terraform's own summary sentence, and whether planning finished.
//!
//! Follows Terraform's renderer (`internal/command/jsonformat/plan.go`): plain no-ops are not shown;
//! deletes of data sources are not shown; every other change is shown, and a move or import without
//! other changes still prints the `Plan:` line, with zeros. A plan whose planning failed gets no
//! sentence of changes (Terraform prints its errors instead): see [`Planning`].
//!
//! `count` and `noun` are re-exported from `text`, the one plural helper. `Tool` (from a text's
//! wording, a plan log's version message or plan JSON's provider registry; else unknown) decides
//! the `Plan:` line: OpenTofu's has `, N to forget`, Terraform's no forget count, so its forgets
//! follow in a sentence of ours; `Tool::name` names the tool in sentences (drift notes, banners).
//! The counts live in the model because `Planning::of` and the readers check a log's or a text's
//! own summary against them.

pub use super::planning::Planning;
pub use super::text::{count, noun};
use crate::source::{PlanLogFacts, TextPlanFacts, TextSummary};
use crate::{Action, Document, ReplaceOrder, Source};

impl Planning {
    /// Reads a document: a state is [`Planning::State`] (never judged); `errored: true` or an
    /// error diagnostic is a failure; a text plan cut before its end is [`Planning::Cut`], a plan log
    /// whose change summary its changes do not add up to [`Planning::LogShort`]; else
    /// `complete: false` is an incomplete plan.
    pub fn of(doc: &Document) -> Planning {
        if doc.source.is_state() {
            return Planning::State;
        }
        let plan = doc.plan();
        let diagnostics = match &doc.source {
            Source::PlanLog(facts) => facts.diagnostics.as_slice(),
            _ => &[],
        };
        let mut errors = diagnostics.iter().filter(|d| d.is_error());
        let first = errors.next();
        if plan.errored || first.is_some() {
            // A text plan's own `Error:` lines say why, as a log's diagnostics do.
            if let Source::TextPlan(facts) = &doc.source
                && let Some(error) = facts.errors.first()
            {
                return Planning::Failed {
                    error: Some(error.clone()),
                    errors: facts.errors.len(),
                };
            }
            return Planning::Failed {
                error: first.map(|d| d.summary.clone()),
                errors: first.map_or(0, |_| 1 + errors.count()),
            };
        }
        if matches!(&doc.source, Source::TextPlan(f) if f.cut) {
            return Planning::Cut;
        }
        if let Source::PlanLog(facts) = &doc.source
            && Summary::of(doc).disagrees_with(facts)
        {
            return Planning::LogShort;
        }
        if let Source::TextPlan(facts) = &doc.source
            && (facts.projects.len() > 1 || facts.plans > 1)
        {
            return Planning::Several {
                plans: facts.plans.max(facts.projects.len()),
                projects: if facts.projects.len() > 1 {
                    facts.projects.clone()
                } else {
                    Vec::new()
                },
            };
        }
        if let Source::TextPlan(facts) = &doc.source
            && let Some(line) = &facts.summary_line
            && !Summary::of(doc).agrees_with_text(line)
        {
            return Planning::TextShort;
        }
        if let Source::Driftctl(facts) = &doc.source {
            let ignored = facts.ignored_types();
            if !ignored.is_empty() {
                return Planning::ScanPartial { ignored };
            }
        }
        if plan.complete == Some(false) {
            return Planning::Incomplete {
                deferred: plan.deferred_changes.len(),
            };
        }
        Planning::Complete
    }
}

/// The tool that made a plan, as far as the document says: the two print different `Plan:`
/// lines and name themselves in their sentences.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Tool {
    /// HashiCorp's Terraform.
    Terraform,
    /// OpenTofu.
    OpenTofu,
    /// Not known: plan JSON names no tool (OpenTofu writes its own version into
    /// `terraform_version`), and a text or log may not say.
    #[default]
    Unknown,
}

impl Tool {
    /// Reads the document: a text plan's wording (`OpenTofu will perform …`, `tofu apply`); for
    /// plan JSON, its resources' providers, since OpenTofu's default registry is
    /// `registry.opentofu.org` and Terraform's `registry.terraform.io` (a provider of either
    /// registry decides when no provider of the other is there); a plan log's version message.
    /// States and driftctl reports: not known.
    pub fn of(doc: &Document) -> Tool {
        match &doc.source {
            Source::TextPlan(TextPlanFacts { tool, .. })
            | Source::PlanLog(PlanLogFacts { tool, .. }) => match tool.as_deref() {
                Some("OpenTofu") => Tool::OpenTofu,
                Some("Terraform") => Tool::Terraform,
                _ => Tool::Unknown,
            },
            Source::Plan => {
                let plan = doc.plan();
                let providers = || {
                    plan.resource_changes
                        .iter()
                        .chain(&plan.resource_drift)
                        .map(|c| c.provider_name.as_ref())
                };
                let from = |registry: &str| providers().any(|p| p.starts_with(registry));
                match (
                    from("registry.opentofu.org/"),
                    from("registry.terraform.io/"),
                ) {
                    (true, false) => Tool::OpenTofu,
                    (false, true) => Tool::Terraform,
                    _ => Tool::Unknown,
                }
            }
            _ => Tool::Unknown,
        }
    }

    /// How the tool is named in a sentence; "Terraform" when not known, as Planlens' words
    /// have always said.
    pub fn name(self) -> &'static str {
        match self {
            Tool::OpenTofu => "OpenTofu",
            Tool::Terraform | Tool::Unknown => "Terraform",
        }
    }
}

/// Counts over one plan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// The tool that made the plan, whose `Plan:` line [`Summary::sentence`] writes.
    pub tool: Tool,
    /// Changes Terraform would list (everything but plain no-ops and data source deletes).
    pub shown: usize,
    /// `N to import`.
    pub import: usize,
    /// `N to add`: creates and the create half of every replace.
    pub add: usize,
    /// `N to change`: in-place updates.
    pub change: usize,
    /// `N to destroy`: deletes and the delete half of delete/create and create/delete replaces.
    pub destroy: usize,
    /// `N to forget`: forgets and the forget half of create/forget.
    pub forget: usize,
    /// Replaces, all three orders.
    pub replace: usize,
    /// Moves (`previous_address` set and different).
    pub moves: usize,
    /// Data sources read during apply.
    pub reads: usize,
    /// Entries of `deferred_changes`.
    pub deferred: usize,
    /// Entries of `resource_drift`.
    pub drifted: usize,
    /// Output changes other than no-ops.
    pub output_changes: usize,
    /// Provider actions the apply will invoke (`action_invocations`).
    pub actions: usize,
    /// Resource instances in `resource_changes` (no-ops included).
    pub resources: usize,
    /// Resource instances the document lists, one row each: `resource_changes`, deferred
    /// changes, and resources that only drifted. The summary strip, the list and the graph count
    /// these.
    pub instances: usize,
}

impl Summary {
    /// Counts a loaded plan.
    pub fn of(doc: &Document) -> Summary {
        let plan = doc.plan();
        let mut s = Summary {
            tool: Tool::of(doc),
            deferred: plan.deferred_changes.len(),
            drifted: plan.resource_drift.len(),
            resources: plan.resource_changes.len(),
            actions: plan.action_invocations.len(),
            instances: doc.rows.len(),
            output_changes: plan
                .output_changes
                .values()
                .filter(|o| o.actions != Action::NoOp)
                .count(),
            ..Summary::default()
        };
        for c in &plan.resource_changes {
            let action = c.change.actions;
            if c.is_move() {
                s.moves += 1;
            }
            if !c.is_shown() {
                continue;
            }
            let is_import = c.change.importing.is_some();
            s.shown += 1;
            if is_import {
                s.import += 1;
            }
            match action {
                Action::NoOp => {}
                Action::Create => s.add += 1,
                Action::Read => s.reads += 1,
                Action::Update => s.change += 1,
                Action::Delete => s.destroy += 1,
                Action::Forget => s.forget += 1,
                Action::Replace(order) => {
                    s.replace += 1;
                    s.add += 1;
                    match order {
                        ReplaceOrder::DeleteThenCreate | ReplaceOrder::CreateThenDelete => {
                            s.destroy += 1
                        }
                        ReplaceOrder::CreateThenForget => s.forget += 1,
                    }
                }
            }
        }
        s
    }

    /// The document's headline (the page's summary, the CLI's first line, the comment's title):
    /// for a plan whose planning failed, [`Planning::sentence`] (never a sentence of changes, as
    /// Terraform prints none); a driftctl report's or a state's own sentence (a state's never
    /// says "No changes."); else [`Summary::sentence`].
    pub fn headline(&self, doc: &Document) -> String {
        match &doc.source {
            Source::Driftctl(f) => return f.sentence(),
            Source::State(f) => return f.sentence(),
            _ => {}
        }
        match Planning::of(doc) {
            failed @ Planning::Failed { .. } => failed.sentence().unwrap_or_default(),
            // A text cut before its end (a tf-controller message) shows only some changes.
            Planning::Cut => format!(
                "{} The text was cut: there may be more changes.",
                self.sentence()
            ),
            Planning::LogShort => format!(
                "{} The log is missing lines: there may be more changes.",
                self.sentence()
            ),
            Planning::Several { plans, projects } => format!(
                "{} Read from {plans} plans{} as one: open each on its own.",
                self.sentence(),
                if projects.is_empty() {
                    ""
                } else {
                    " of one Atlantis comment"
                },
            ),
            Planning::TextShort => match &doc.source {
                Source::TextPlan(f) => match &f.summary_line {
                    Some(line) => format!(
                        "The text's `Plan:` line says {}; the changes read from it: {}",
                        line.words(),
                        self.sentence()
                    ),
                    None => self.sentence(),
                },
                _ => self.sentence(),
            },
            _ => self.sentence(),
        }
    }

    /// True when a plan log's change summary (Terraform's own counts, printed at its end) is not
    /// what its planned changes add up to: lines of the log are missing.
    pub fn disagrees_with(&self, log: &PlanLogFacts) -> bool {
        log.change_summary.is_some_and(|said| {
            (said.add, said.change, said.remove, said.import)
                != (
                    self.add as u64,
                    self.change as u64,
                    self.destroy as u64,
                    self.import as u64,
                )
        })
    }

    /// True when a text plan's own `Plan:` line says what the changes read from it add up to.
    /// Newer versions print replacements apart; the older line counts them in add and destroy.
    pub fn agrees_with_text(&self, line: &TextSummary) -> bool {
        let replace = line.replace.unwrap_or(0);
        line.add + replace == self.add as u64
            && line.change == self.change as u64
            && line.destroy + replace == self.destroy as u64
            && line.import == self.import as u64
    }

    /// The tool's sentence: `Plan: 1 to import, 3 to add, 1 to change, 2 to destroy.`, or
    /// `No changes.`. A plan that changes only outputs gets a sentence of ours, since Terraform
    /// prints no `Plan:` line for it. Provider actions the apply invokes follow the `Plan:` line
    /// (`Actions: 1 to invoke.`), which a plan with actions always has, zeros and all: such a plan
    /// is never "No changes.".
    ///
    /// Forgets, as each tool prints them (read in their renderers,
    /// `internal/command/jsonformat/plan.go`, `renderHuman`: hashicorp/terraform at
    /// 0000ad574e75, opentofu/opentofu at 02ea2453b1b8): OpenTofu adds `, N to forget` to its line
    /// when it forgets anything (`Forget` and `ForgetThenCreate`, whose create is also in "to
    /// add"). Terraform's line has no forget count at all (1.7 to 1.14): `Forget` is in none of
    /// its numbers and `CreateThenForget` only in "to add". So a Terraform plan gets Terraform's
    /// line and, apart from it, a sentence of ours naming the forgets, which its line leaves out;
    /// a plan whose tool is not known keeps OpenTofu's form, the one that loses nothing.
    pub fn sentence(&self) -> String {
        if self.shown == 0 && self.actions == 0 {
            return match self.output_changes {
                0 => "No changes.".to_string(),
                n => format!(
                    "No resource changes. {}.",
                    count(n, "output change", "output changes")
                ),
            };
        }
        let mut s = String::from("Plan: ");
        if self.import > 0 {
            s.push_str(&format!("{} to import, ", self.import));
        }
        s.push_str(&format!(
            "{} to add, {} to change, {} to destroy",
            self.add, self.change, self.destroy
        ));
        if self.forget > 0 && self.tool != Tool::Terraform {
            s.push_str(&format!(", {} to forget", self.forget));
        }
        s.push('.');
        if self.actions > 0 {
            s.push_str(&format!(" Actions: {} to invoke.", self.actions));
        }
        if self.forget > 0 && self.tool == Tool::Terraform {
            s.push_str(&format!(
                " Also {} to forget (removed from the state, not destroyed), which Terraform's \
                 line does not count.",
                self.forget
            ));
        }
        s
    }
}
