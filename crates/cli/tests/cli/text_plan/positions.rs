//! Positions: Terraform's text prints no element indexes and hides unchanged elements and blocks,
//! so a diff read from text pairs elements as its `-`, `+` and `~` say and claims no position
//! where elements were hidden.

use super::*;

/// The diff of the change at `address`.
fn diff_of(doc: &Document, address: &str) -> planlens::diff::DiffNode {
    planlens::diff::diff_change(&change(doc, address).change).unwrap()
}

/// Every node under `node` (itself included).
fn nodes(node: &planlens::diff::DiffNode) -> Vec<&planlens::diff::DiffNode> {
    let mut out = vec![node];
    for c in &node.children {
        out.extend(nodes(c));
    }
    out
}

fn child<'t>(node: &'t planlens::diff::DiffNode, label: &str) -> &'t planlens::diff::DiffNode {
    node.children
        .iter()
        .find(|c| c.key_label() == label)
        .unwrap_or_else(|| panic!("no {label} in {node:?}"))
}

/// No element under `node` is labelled by an index.
fn assert_no_index(node: &planlens::diff::DiffNode, what: &str) {
    use planlens::diff::PathKey;
    for n in nodes(node) {
        assert!(
            !matches!(n.key, Some(PathKey::Index { .. })),
            "{what}: {} claims a position",
            n.key_label()
        );
    }
}

#[test]
fn a_block_removed_from_the_middle_of_a_list_is_one_block_removed_at_no_position() {
    use planlens::diff::{NodeChange, PathKey, Side};
    let doc = own("list_block_removed_middle.txt");
    let tree = diff_of(&doc, "tfcoremock_multiple_blocks.rules");
    let blocks = child(&tree, "first_block");
    // The list is changed, not gone: the text hid 3 unchanged blocks.
    assert_eq!(blocks.change, NodeChange::Modified);
    assert_eq!(
        (&blocks.before, &blocks.after),
        (&Side::Shown(1), &Side::Shown(0))
    );
    assert_eq!(blocks.children.len(), 1);
    let removed = &blocks.children[0];
    assert_eq!(removed.key, Some(PathKey::Unpositioned));
    assert_eq!(removed.key_label(), "");
    assert_eq!(removed.change, NodeChange::Removed);
    assert_eq!(
        child(removed, "id").before,
        Side::Scalar("\"B7A1C2D3-0000-4E5F-8A9B-222222222222\"".to_string())
    );
    assert_no_index(&tree, "middle block");
}

#[test]
fn the_third_of_three_blocks_removed_is_not_the_whole_list_removed() {
    use planlens::diff::{NodeChange, PathKey};
    let doc = own("list_block_removed_last.txt");
    let tree = diff_of(&doc, "tfcoremock_list_blocks.routes");
    let blocks = child(&tree, "list_block");
    assert_eq!(blocks.change, NodeChange::Modified, "{blocks:?}");
    assert_eq!(blocks.before.display(), "[ 1 element shown ]");
    assert_eq!(blocks.after.display(), "[ none shown ]");
    let kinds: Vec<(Option<PathKey>, NodeChange)> = blocks
        .children
        .iter()
        .map(|c| (c.key.clone(), c.change))
        .collect();
    assert_eq!(kinds, [(Some(PathKey::Unpositioned), NodeChange::Removed)]);
}

#[test]
fn a_set_element_replaced_is_one_removed_and_one_added_never_changed_in_place() {
    use planlens::diff::NodeChange;
    let doc = own("set_element_replaced.txt");
    let tree = diff_of(&doc, "tfcoremock_set_blocks.numbers");
    let set = child(&tree, "set_block");
    let kinds: Vec<NodeChange> = set.children.iter().map(|c| c.change).collect();
    assert_eq!(kinds, [NodeChange::Removed, NodeChange::Added]);
    assert_eq!(child(&set.children[0], "number").before.display(), "1");
    assert_eq!(child(&set.children[1], "number").after.display(), "2");
    // Nowhere `number = 1 → 2`.
    assert!(
        nodes(&tree)
            .iter()
            .all(|n| !(n.change == NodeChange::Modified && n.form == planlens::diff::Form::Scalar)),
        "{tree:?}"
    );
    assert_no_index(&tree, "set");
}

#[test]
fn terraforms_own_pairs_read_from_text_claim_no_position_their_json_does_not_have() {
    use planlens::diff::NodeChange;
    // The element changed in place is element 1 of 3 (the JSON's replace path `list.1.id`); the
    // text shows it alone with `# (2 unchanged elements hidden)`.
    let pair = dir().join("terraform-1.5.7/replace_within_list");
    let text = load(&pair.join("plan"));
    let tree = diff_of(&text, "tfcoremock_list.list");
    let list = child(&tree, "list");
    assert!(list.forces_replacement, "the path stops at the list");
    assert_eq!(list.children.len(), 1);
    let element = &list.children[0];
    assert_eq!(element.change, NodeChange::Modified);
    assert_eq!(element.key_label(), "");
    assert_no_index(&tree, "replace_within_list");
    let json = load(&pair.join("plan.json"));
    let from_json = diff_of(&json, "tfcoremock_list.list");
    assert_eq!(
        child(child(&from_json, "list"), "[1]").change,
        NodeChange::Modified
    );

    // A set of lists: two removed, two added, one hidden; none paired with another.
    let text = load(&dir().join("terraform-1.5.7/nested_set_update/plan"));
    let tree = diff_of(&text, "tfcoremock_nested_set.nested_set");
    let sets = child(&tree, "sets");
    let kinds: Vec<NodeChange> = sets.children.iter().map(|c| c.change).collect();
    assert_eq!(
        kinds,
        [
            NodeChange::Removed,
            NodeChange::Removed,
            NodeChange::Added,
            NodeChange::Added
        ]
    );
    assert!(sets.children.iter().all(|c| c.key_label().is_empty()));

    // Blocks among hidden blocks: changed in place, at no position.
    let text = load(&dir().join("terraform-1.5.7/multiple_block_types_update/plan"));
    let tree = diff_of(&text, "tfcoremock_multiple_blocks.multiple_blocks");
    for name in ["first_block", "second_block"] {
        let blocks = child(&tree, name);
        assert_eq!(blocks.children.len(), 1, "{name}");
        assert_eq!(blocks.children[0].change, NodeChange::Modified, "{name}");
    }
    assert_no_index(&tree, "multiple_block_types_update");
}

#[test]
fn a_list_the_text_shows_whole_keeps_its_positions() {
    use planlens::diff::{NodeChange, PathKey};
    // A created resource prints every element: its positions are the text's order.
    let doc = own("opentofu_drift.txt");
    let tree = diff_of(&doc, "aws_instance.web[0]");
    let blocks = child(&tree, "root_block_device");
    assert_eq!(
        blocks.children[0].key,
        Some(PathKey::Index {
            before: None,
            after: Some(0)
        })
    );
    assert_eq!(blocks.children[0].change, NodeChange::Added);
}

#[test]
fn a_converted_plan_without_the_elements_key_still_diffs_as_before() {
    use planlens::diff::NodeChange;
    // A share link made before the text's element order was kept: aligned by value, as then.
    let read = text_plan::read(&own_text("set_element_replaced.txt")).unwrap();
    let mut plan: serde_json::Value = serde_json::from_str(&read.plan_json).unwrap();
    let change = &mut plan["resource_changes"][0]["change"];
    assert!(change.get(text_plan::ELEMENTS).is_some());
    change.as_object_mut().unwrap().remove(text_plan::ELEMENTS);
    let doc = planlens::load_plan(plan.to_string().into_bytes(), "old-link.json").unwrap();
    let tree = diff_of(&doc, "tfcoremock_set_blocks.numbers");
    assert_eq!(
        child(&tree, "set_block").children[0].change,
        NodeChange::Modified
    );
}
