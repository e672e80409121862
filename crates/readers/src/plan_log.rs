//! `terraform plan -json` logs (JSON Lines) → the plan model.
//!
//! Each line is one UI message (`@level`, `@message`, `type`, …; Terraform's "machine-readable UI",
//! 0.15.3+). `planned_change` and `resource_drift` messages become `resource_changes` and
//! `resource_drift` entries of an equivalent plan, so every view works on a log; `change_summary`,
//! `diagnostic` and `version` messages become [`PlanLogFacts`]. A log names actions but carries no
//! attribute values. Unknown message types and lines that are not JSON are skipped and counted.
//!
//! Reasons are translated into the plan's `action_reason` words. A log with an error diagnostic
//! becomes an `errored` plan, and its diagnostics keep Terraform's `range` and `snippet`; `outputs`
//! messages become `output_changes` (actions and sensitivity, no values). An apply's log — a change
//! summary of operation `apply` or `destroy`, or without one an `apply_*` message of another action
//! than a data source's `read` — is refused (`NotAPlan::ApplyLog`), and a log whose changes do not
//! add up to its change summary is judged incomplete (`Planning::LogShort`). Detection
//! (`planlens_load::plan_log`) looks only at the start of the first line.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::converted::{Change, ConvertedPlan, Importing, Keys, ResourceChange};
use planlens_load::error::{LoadError, NotAPlan};
// Detection is the loader's; re-exported so this module reads as the whole of plan logs.
pub use planlens_load::plan_log::looks_like_plan_log;
use planlens_model::source::{ChangeSummary, Diagnostic, PlanLogFacts, Snippet, SourceRange};

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Cow<'a, str>,
    /// The version in Terraform's `version` message.
    #[serde(borrow, default)]
    terraform: Option<Cow<'a, str>>,
    /// The version in OpenTofu's `version` message.
    #[serde(borrow, default)]
    tofu: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    change: Option<LogChange<'a>>,
    #[serde(borrow, default)]
    changes: Option<LogSummary<'a>>,
    #[serde(borrow, default)]
    diagnostic: Option<LogDiagnostic<'a>>,
    /// An `apply_*` message's resource and action (`read` for a data source read while planning).
    #[serde(borrow, default)]
    hook: Option<LogHook<'a>>,
    /// An `outputs` message: each root output's planned action and sensitivity (a plan's), or its
    /// value (an apply's; never read).
    #[serde(borrow, default)]
    outputs: Option<HashMap<Cow<'a, str>, LogOutput<'a>>>,
}

#[derive(Deserialize)]
struct LogHook<'a> {
    #[serde(borrow, default)]
    action: Cow<'a, str>,
}

#[derive(Deserialize)]
struct LogOutput<'a> {
    #[serde(default)]
    sensitive: bool,
    /// `create`, `update`, `delete` or `noop` in a plan's log; absent in an apply's.
    #[serde(borrow, default)]
    action: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct LogChange<'a> {
    #[serde(borrow)]
    resource: ResourceAddr<'a>,
    #[serde(borrow, default)]
    previous_resource: Option<ResourceAddr<'a>>,
    #[serde(borrow, default)]
    action: Cow<'a, str>,
    #[serde(borrow, default)]
    reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    importing: Option<LogImporting<'a>>,
}

#[derive(Deserialize)]
struct ResourceAddr<'a> {
    #[serde(borrow, default)]
    addr: Cow<'a, str>,
    #[serde(borrow, default)]
    module: Cow<'a, str>,
    #[serde(borrow, default)]
    resource: Cow<'a, str>,
    #[serde(borrow, default)]
    implied_provider: Cow<'a, str>,
    #[serde(borrow, default)]
    resource_type: Cow<'a, str>,
    #[serde(borrow, default)]
    resource_name: Cow<'a, str>,
}

#[derive(Deserialize)]
struct LogImporting<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct LogSummary<'a> {
    #[serde(default)]
    add: u64,
    #[serde(default)]
    change: u64,
    #[serde(default)]
    remove: u64,
    #[serde(default)]
    import: u64,
    /// `plan`, or `apply` / `destroy` in the summary an apply prints at its end.
    #[serde(borrow, default)]
    operation: Cow<'a, str>,
}

#[derive(Deserialize)]
struct LogDiagnostic<'a> {
    #[serde(borrow, default)]
    severity: Cow<'a, str>,
    #[serde(borrow, default)]
    summary: Cow<'a, str>,
    #[serde(borrow, default)]
    detail: Cow<'a, str>,
    #[serde(borrow, default)]
    address: Option<Cow<'a, str>>,
    // Read on their own, so a range or snippet of an unexpected shape loses only itself, never
    // the diagnostic.
    #[serde(borrow, default)]
    range: Option<&'a RawValue>,
    #[serde(borrow, default)]
    snippet: Option<&'a RawValue>,
}

impl LogDiagnostic<'_> {
    fn into_diagnostic(self) -> Diagnostic {
        let range = self
            .range
            .and_then(|r| serde_json::from_str::<SourceRange>(r.get()).ok());
        let snippet = self
            .snippet
            .and_then(|s| serde_json::from_str::<Snippet>(s.get()).ok());
        Diagnostic {
            severity: self.severity.into_owned(),
            summary: self.summary.into_owned(),
            detail: self.detail.into_owned(),
            address: self.address.map(Cow::into_owned).filter(|a| !a.is_empty()),
            location: range.as_ref().map(|r| match r.start.line {
                0 => r.filename.clone(),
                line => format!("{}:{line}", r.filename),
            }),
            range,
            snippet,
        }
    }
}

/// The plan `actions` array for a log action, or `None` for messages that are no resource change
/// (ephemeral resources' open/renew/close).
fn plan_actions(action: &str) -> Option<&'static [&'static str]> {
    Some(match action {
        "noop" | "move" | "import" => &["no-op"],
        "create" => &["create"],
        "read" => &["read"],
        "update" => &["update"],
        // The log does not say which order; Terraform's default is delete first.
        "replace" => &["delete", "create"],
        "delete" => &["delete"],
        // Terraform writes `remove` for a removed block's forget; accept the plan's word too.
        "remove" | "forget" => &["forget"],
        _ => return None,
    })
}

/// The plan's `action_reason` for a log reason (the log shortens the replace reasons).
fn plan_reason(reason: &str) -> Option<&str> {
    match reason {
        "" | "unknown" => None,
        "tainted" => Some("replace_because_tainted"),
        "requested" => Some("replace_by_request"),
        "replace_triggered_by" => Some("replace_by_triggers"),
        "cannot_update" => Some("replace_because_cannot_update"),
        other => Some(other),
    }
}

fn change_json(c: &LogChange) -> Option<ResourceChange<'static>> {
    let actions = plan_actions(&c.action)?;
    let r = &c.resource;
    let mode = if r.resource.starts_with("data.") {
        "data"
    } else {
        "managed"
    };
    Some(ResourceChange {
        address: r.addr.to_string(),
        previous_address: c.previous_resource.as_ref().map(|p| p.addr.to_string()),
        module_address: r.module.to_string(),
        mode,
        resource_type: r.resource_type.to_string(),
        name: r.resource_name.to_string(),
        index: None,
        provider_name: r.implied_provider.to_string(),
        deposed: None,
        action_reason: c
            .reason
            .as_deref()
            .and_then(plan_reason)
            .map(str::to_string),
        change: Change {
            importing: c.importing.as_ref().map(|i| Importing {
                id: i.id.as_deref().map(str::to_string),
            }),
            ..Change::of(actions)
        },
    })
}

/// A plan's `output_changes` entry for an `outputs` message's output: its actions and sensitivity,
/// no values (the log has none).
fn output_json(action: &str, sensitive: bool) -> Option<Change<'static>> {
    let actions = match action {
        "noop" => &["no-op"][..],
        "create" => &["create"],
        "update" => &["update"],
        "delete" => &["delete"],
        _ => return None,
    };
    Some(Change {
        before_sensitive: Some(Value::Bool(sensitive)),
        after_sensitive: Some(Value::Bool(sensitive)),
        ..Change::of(actions)
    })
}

/// Converts a plan log to the text of an equivalent plan, and the facts the plan cannot hold. The
/// log of an apply (`apply_*` messages, or a change summary of operation `apply` / `destroy`) is
/// refused: it says what was done, not what a plan would do.
pub fn convert(text: &str) -> Result<(String, PlanLogFacts), LoadError> {
    let mut facts = PlanLogFacts::default();
    let mut changes: Vec<ResourceChange> = Vec::new();
    let mut drift: Vec<ResourceChange> = Vec::new();
    // A later message about the same address replaces an earlier one.
    let mut change_at: HashMap<String, usize> = HashMap::new();
    let mut drift_at: HashMap<String, usize> = HashMap::new();
    let mut outputs = BTreeMap::new();
    // What only an apply does: a hook that changes something (a data source is read while
    // planning too, with `apply_start`/`apply_complete` lines of action `read`).
    let mut applied = false;
    let mut operation: Option<String> = None;

    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Ok(msg) = serde_json::from_str::<Message>(line) else {
            facts.skipped_lines += 1;
            continue;
        };
        match &*msg.kind {
            "version" => {
                let tool = match (&msg.terraform, &msg.tofu) {
                    (_, Some(_)) => "OpenTofu",
                    (Some(_), None) => "Terraform",
                    (None, None) => continue,
                };
                facts.tool = Some(tool.to_string());
                facts.terraform_version = msg.terraform.or(msg.tofu).map(Cow::into_owned);
            }
            "planned_change" | "resource_drift" => {
                let Some(entry) = msg.change.as_ref().and_then(change_json) else {
                    facts.skipped_lines += 1;
                    continue;
                };
                let address = entry.address.clone();
                let (list, at) = if msg.kind == "planned_change" {
                    (&mut changes, &mut change_at)
                } else {
                    (&mut drift, &mut drift_at)
                };
                match at.get(&address) {
                    Some(&i) => list[i] = entry,
                    None => {
                        at.insert(address, list.len());
                        list.push(entry);
                    }
                }
            }
            kind if kind.starts_with("apply_") => {
                applied |= msg.hook.as_ref().is_none_or(|h| h.action != "read");
            }
            "outputs" => {
                for (name, o) in msg.outputs.iter().flatten() {
                    if let Some(entry) = o
                        .action
                        .as_deref()
                        .and_then(|a| output_json(a, o.sensitive))
                    {
                        outputs.insert(name.to_string(), entry);
                    }
                }
            }
            "change_summary" => {
                if let Some(c) = &msg.changes {
                    operation = Some(c.operation.to_string());
                }
                facts.change_summary = msg.changes.map(|c| ChangeSummary {
                    add: c.add,
                    change: c.change,
                    remove: c.remove,
                    import: c.import,
                })
            }
            "diagnostic" => {
                if let Some(d) = msg.diagnostic {
                    facts.diagnostics.push(d.into_diagnostic());
                }
            }
            // Every other type (log, refresh_*, test_*, and future ones) says
            // nothing the plan model needs.
            _ => {}
        }
    }
    // The change summary says which operation wrote the log; without one, a hook that changed
    // something does.
    let is_apply = match operation.as_deref() {
        Some("apply" | "destroy") => true,
        Some(_) => false,
        None => applied,
    };
    if is_apply {
        return Err(LoadError::NotAPlan(NotAPlan::ApplyLog));
    }
    // Plans list resource changes sorted by address; the log's order is the walk's.
    changes.sort_by(|a, b| a.address.cmp(&b.address));
    drift.sort_by(|a, b| a.address.cmp(&b.address));
    let errored = facts.diagnostics.iter().any(Diagnostic::is_error);
    let plan = ConvertedPlan {
        terraform_version: Some(facts.terraform_version.clone()),
        resource_changes: Some(changes),
        resource_drift: Some(drift),
        output_changes: Some(outputs),
        errored: Some(errored),
        ..ConvertedPlan::new()
    };
    Ok((plan.text(Keys::Sorted), facts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_start_of_the_first_line_is_looked_at() {
        assert!(looks_like_plan_log(
            "{\"@level\":\"info\",\"@message\":\"Terraform 1.9.0\"}\n"
        ));
        assert!(!looks_like_plan_log("{\n  \"format_version\": \"1.2\"\n}"));
        assert!(!looks_like_plan_log("é".repeat(400).as_str()));
    }

    #[test]
    fn log_reasons_become_plan_reasons() {
        assert_eq!(plan_reason("tainted"), Some("replace_because_tainted"));
        assert_eq!(
            plan_reason("delete_because_each_key"),
            Some("delete_because_each_key")
        );
        assert_eq!(plan_reason(""), None);
    }
}
