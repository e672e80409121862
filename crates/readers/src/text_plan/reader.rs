//! The reader's walk over the cleaned lines: headers, comment lines, bodies, outputs, the
//! `Plan:` line and Terraform's closing words; each resource read becomes a [`TextChange`] and its
//! entry of the converted plan. Unknown lines are skipped and counted, never fatal.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::elements::{body_elements, elements_of, forced_paths, hidden_count};
use super::lines::{
    Header, Sigil, delete_reason, header, header_0_11, is_wording, split_sigil, summary_line,
};
use super::values::{Item, Val, When, project};
use super::{TextChange, is_apply_end};
use crate::converted::{Change, Importing, ResourceChange};
use planlens_model::address::InstanceKey;
use planlens_model::source::TextPlanFacts;
use planlens_model::{Action, ReplaceOrder};

/// Why a body could not be read to its end.
#[derive(Debug)]
pub(super) enum Stop {
    /// The text ended inside it.
    End,
    /// A resource header came before its closing brace.
    Header,
    /// Values nested deeper than [`MAX_DEPTH`].
    TooDeep,
}

/// How deep values may nest before a body is given up as unreadable.
pub(super) const MAX_DEPTH: usize = 64;

/// The reader's place in the cleaned lines.
pub(super) struct Cursor<'t> {
    pub(super) lines: &'t [String],
    pub(super) pos: usize,
    pub(super) facts: TextPlanFacts,
    pub(super) changes: Vec<(TextChange, ResourceChange<'static>)>,
    pub(super) drift: Vec<(TextChange, ResourceChange<'static>)>,
    pub(super) outputs: BTreeMap<String, Change<'static>>,
    /// Terraform's closing words were seen after the changes (`Plan:`, `No changes.`, …).
    pub(super) closed: bool,
    pub(super) failed: bool,
    /// How many bodies, lists and maps the reader is inside.
    pub(super) depth: usize,
    /// A resource was read since the last plan's end (`Plan:` or `No changes.`).
    pub(super) since_end: bool,
}

impl<'t> Cursor<'t> {
    pub(super) fn line(&self) -> Option<&'t str> {
        self.lines.get(self.pos).map(String::as_str)
    }

    pub(super) fn run(&mut self) {
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
    pub(super) fn plan_end(&mut self) {
        if self.since_end {
            self.facts.plans += 1;
        }
        self.since_end = false;
    }

    /// A Terraform 0.11 resource ([`header_0_11`]): its action, and its attribute lines skipped
    /// (their values are not read, so it is listed as unread).
    pub(super) fn resource_0_11(&mut self, indent: usize, h: Header) {
        while let Some(line) = self.line() {
            let (inner, sigil, rest) = split_sigil(line);
            if rest.is_empty() || inner <= indent || sigil != Sigil::None || !rest.contains(':') {
                break;
            }
            self.pos += 1;
        }
        self.push(&h, h.reason.map(str::to_string), None, None);
    }

    pub(super) fn note_tool(&mut self, rest: &str) {
        if self.facts.tool.is_none() {
            if rest.contains("OpenTofu") || rest.contains("tofu apply") {
                self.facts.tool = Some("OpenTofu".to_string());
            } else if rest.contains("Terraform") || rest.contains("terraform apply") {
                self.facts.tool = Some("Terraform".to_string());
            }
        }
    }

    /// Reads the comment lines after a header, the body, and records the change.
    pub(super) fn resource(&mut self, mut h: Header) {
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
    /// JSON ([`Cursor::entry_json`]).
    pub(super) fn push(
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
    pub(super) fn entry_json(
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
                    side(When::Before, has_before),
                    side(When::After, has_after),
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
    pub(super) fn output(&mut self, sigil: Sigil, rest: String) {
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
            side(When::Before),
            side(When::After),
            &Value::Bool(false),
        );
        change.elements = elements_of(&item);
        self.outputs.insert(name, change);
    }
}

/// The replace order the body's symbol says, for a replace header.
pub(super) fn replace_with(action: Action, order: ReplaceOrder) -> Action {
    match action {
        Action::Replace(_) => Action::Replace(order),
        other => other,
    }
}
