//! What one line of a plan text is: cleaned of what CI logs and PR comments add, its symbol
//! (`+`, `-/+`, …), a resource header (`# ADDR will be created`, Terraform 0.11's resource
//! lines), the `Plan:` line, Terraform's own wording, a comment after a header. Reads one line at a
//! time; never builds a value or a change.

use planlens_model::address::Address;
use planlens_model::source::TextSummary;
use planlens_model::{Action, ReplaceOrder};

use crate::decode::{CiCleaning, clean_ci_line};

/// One line of a plan text as the reader reads it: cleaned of what a CI log or PR comment adds
/// (`crate::decode::clean_ci_line`), without Terraform's box around diagnostics (only its `Error:`
/// lines are kept) and with Atlantis's `!` read as `~`; `None` for a line that is not read.
pub fn clean_line(raw: &str, c: &mut CiCleaning) -> Option<String> {
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
pub enum Sigil {
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
pub fn split_sigil(line: &str) -> (usize, Sigil, &str) {
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
pub struct Header {
    pub address: String,
    /// The address, parsed.
    pub parsed: Address,
    pub action: Action,
    pub drift: bool,
    pub reason: Option<&'static str>,
    pub previous: Option<String>,
    pub importing: bool,
    pub deposed: Option<String>,
}

/// A resource line of Terraform 0.11's plan text, which has no `# … will be …` headers: the
/// action's symbol, then the address, then notes (`-/+ aws_instance.db (tainted) (new resource
/// required)`, `  - aws_sqs_queue.jobs`, ` <= data.aws_ami.ubuntu`). Its attributes follow as
/// `name: "old" => "new"` lines, which are not read (the resource is listed as unread).
pub fn header_0_11(sigil: Sigil, rest: &str) -> Option<Header> {
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
pub fn header(comment: &str) -> Option<Header> {
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
pub fn summary_line(rest: &str) -> Option<TextSummary> {
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
pub fn is_wording(rest: &str, sigil: Sigil) -> bool {
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

/// The plan's `action_reason` for a `# (because …)` line of a destroy.
pub fn delete_reason(because: &str, address: &str) -> Option<&'static str> {
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
pub fn hidden_marker(comment: &str) -> Option<(usize, bool)> {
    let inner = comment.strip_prefix("# (")?.strip_suffix(')')?;
    let (n, what) = inner.split_once(' ')?;
    (what.starts_with("unchanged ") && what.ends_with(" hidden")).then_some(())?;
    Some((n.parse().ok()?, what.starts_with("unchanged attribute")))
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
