//! `action_reason`: why Terraform chose an action, as a sentence a reviewer can read.

use super::Action;

/// The human sentence for an `action_reason` value on a change with this action. Unknown values
/// (from newer Terraform versions) are shown as they are rather than hidden. A forget (a `removed`
/// block with `destroy = false`) carries the `delete_because_*` reasons too, but nothing is
/// destroyed: its sentence says so.
pub fn describe(reason: &str, action: Action) -> String {
    let sentence = reason_sentence(reason);
    match sentence.strip_prefix("Destroyed because ") {
        Some(why) if action == Action::Forget => {
            format!("Forgotten, not destroyed (Terraform stops managing it) because {why}")
        }
        _ => sentence,
    }
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
    use crate::model::Action;

    #[test]
    fn every_documented_reason_has_a_sentence() {
        for reason in [
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
        ] {
            let s = super::describe(reason, Action::Update);
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
    fn a_forget_is_never_said_to_destroy() {
        assert_eq!(
            super::describe("delete_because_no_resource_config", Action::Forget),
            "Forgotten, not destroyed (Terraform stops managing it) because its resource block \
             is no longer in the configuration."
        );
        assert!(
            super::describe("delete_because_no_resource_config", Action::Delete)
                .starts_with("Destroyed because")
        );
    }
}
