//! `action_reason`: why Terraform chose an action, as a sentence a reviewer can read.
//!
//! An unknown reason is shown as it is.

use super::Action;

/// Every `action_reason` value Terraform documents (its JSON output format, `action_reason`), each
/// of which [`describe`] turns into a sentence of its own; any other value is shown as it is.
pub const DOCUMENTED: &[&str] = &[
    "replace_because_tainted",
    "replace_because_cannot_update",
    "replace_by_request",
    "replace_by_triggers",
    "delete_because_no_resource_config",
    "delete_because_wrong_repetition",
    "delete_because_count_index",
    "delete_because_each_key",
    "delete_because_no_module",
    "delete_because_no_move_target",
    "read_because_config_unknown",
    "read_because_dependency_pending",
    "read_because_check_nested",
];

/// The human sentence for an `action_reason` value on a change with this action. Unknown values
/// (from newer Terraform versions) are shown as they are rather than hidden. A forget (a `removed`
/// block with `destroy = false`) carries the `delete_because_*` reasons too, but nothing is
/// destroyed: its sentence says so.
///
/// A reason that names another action than the change's (a no-op whose object was already deleted
/// outside Terraform keeps its `delete_because_*` reason) never says the action happens: the
/// sentence says what the plan does, then the reason.
pub fn describe(reason: &str, action: Action) -> String {
    let sentence = reason_sentence(reason);
    let does = match action {
        Action::NoOp => "the plan does not change it",
        Action::Create => "the plan creates it",
        Action::Read => "the plan reads it",
        Action::Update => "the plan updates it in place",
        Action::Replace(_) => "the plan replaces it",
        Action::Delete => "the plan destroys it",
        Action::Forget => "the plan forgets it",
    };
    let fits = |prefix: &str| match prefix {
        "Destroyed because " => matches!(action, Action::Delete),
        "Replaced because " => matches!(action, Action::Replace(_)),
        _ => matches!(action, Action::Read),
    };
    for (prefix, not) in [
        ("Destroyed because ", "Not destroyed"),
        ("Replaced because ", "Not replaced"),
        ("Read during apply because ", "Not read during apply"),
    ] {
        let Some(why) = sentence.strip_prefix(prefix) else {
            continue;
        };
        return match action {
            _ if fits(prefix) => sentence,
            Action::Forget if prefix == "Destroyed because " => {
                format!(
                    "Forgotten, not destroyed (it leaves the state; the object stays) because {why}"
                )
            }
            _ => format!("{not}: {does}, though {why}"),
        };
    }
    sentence
}

fn reason_sentence(reason: &str) -> String {
    let sentence = match reason {
        "replace_because_tainted" => {
            "Replaced because it is tainted (a previous apply failed part-way)."
        }
        "replace_because_cannot_update" => {
            "Replaced because a changed attribute cannot be updated in place."
        }
        "replace_by_request" => "Replaced because you asked for it (-replace).",
        "replace_by_triggers" => "Replaced because replace_triggered_by changed.",
        "delete_because_no_resource_config" => {
            "Destroyed because its resource block is no longer in the configuration."
        }
        "delete_because_wrong_repetition" => {
            "Destroyed because the resource switched between count, for_each and a single instance."
        }
        "delete_because_count_index" => "Destroyed because its count index is out of range.",
        "delete_because_each_key" => {
            "Destroyed because its for_each key is no longer in the map or set."
        }
        "delete_because_no_module" => {
            "Destroyed because its module call is no longer in the configuration."
        }
        "delete_because_no_move_target" => {
            "Destroyed because the target of its moved block does not exist."
        }
        "read_because_config_unknown" => {
            "Read during apply because its configuration depends on values not known yet."
        }
        "read_because_dependency_pending" => {
            "Read during apply because a resource it depends on has changes pending."
        }
        "read_because_check_nested" => "Read during apply because a check block uses it.",
        other => return format!("Reason: {other}"),
    };
    sentence.to_string()
}

#[cfg(test)]
mod tests {
    use crate::Action;

    #[test]
    fn every_documented_reason_has_a_sentence() {
        assert_eq!(super::DOCUMENTED.len(), 13);
        for &reason in super::DOCUMENTED {
            let action = match reason.split('_').next() {
                Some("replace") => Action::Replace(crate::ReplaceOrder::DeleteThenCreate),
                Some("delete") => Action::Delete,
                _ => Action::Read,
            };
            let s = super::describe(reason, action);
            assert!(
                !s.starts_with("Reason:") && s.ends_with('.'),
                "{reason}: {s}"
            );
        }
        assert_eq!(
            super::describe("replace_because_moon_phase", Action::Update),
            "Reason: replace_because_moon_phase"
        );
    }

    #[test]
    fn a_reason_never_claims_an_action_the_change_does_not_take() {
        assert_eq!(
            super::describe("delete_because_no_resource_config", Action::NoOp),
            "Not destroyed: the plan does not change it, though its resource block is no longer \
             in the configuration."
        );
        assert_eq!(
            super::describe("replace_because_tainted", Action::Update),
            "Not replaced: the plan updates it in place, though it is tainted (a previous apply \
             failed part-way)."
        );
        assert!(
            super::describe("read_because_config_unknown", Action::Read)
                .starts_with("Read during apply because")
        );
    }

    #[test]
    fn a_forget_is_never_said_to_destroy() {
        assert_eq!(
            super::describe("delete_because_no_resource_config", Action::Forget),
            "Forgotten, not destroyed (it leaves the state; the object stays) because its resource block \
             is no longer in the configuration."
        );
        assert!(
            super::describe("delete_because_no_resource_config", Action::Delete)
                .starts_with("Destroyed because")
        );
    }
}
