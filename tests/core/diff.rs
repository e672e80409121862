//! Diffs read as `terraform show` reads a plan: list elements aligned by longest common
//! subsequence (a removed first rule is one removal, the rest unchanged), JSON held in a string
//! diffed as JSON, multi-line strings diffed by line, entry counts that match what is listed, and
//! sensitive values masked wherever the alignment moves them.

use crate::common;

use common::load_own;
use planlens::Document;
use planlens::diff::{Container, DiffNode, Form, NodeChange, PathKey, Side, diff_change};

const FIXTURE: &str = "diff_like_terraform_show.json";

fn tree_of(doc: &Document, address: &str) -> DiffNode {
    let row = doc
        .rows
        .iter()
        .find(|r| doc.change(r).address == address)
        .unwrap_or_else(|| panic!("no row {address}"));
    diff_change(&doc.change(row).change).unwrap_or_else(|e| panic!("{address}: {e}"))
}

/// The node at a path of labels as the diff shows them (`ingress`, `[0]`, `"nginx.conf"`).
fn at<'t>(node: &'t DiffNode, labels: &[&str]) -> &'t DiffNode {
    labels.iter().fold(node, |n, label| {
        n.children
            .iter()
            .find(|c| c.key_label() == *label)
            .unwrap_or_else(|| {
                let have: Vec<String> = n.children.iter().map(DiffNode::key_label).collect();
                panic!("no {label} under {:?}; children: {have:?}", n.key)
            })
    })
}

fn changes(node: &DiffNode) -> Vec<NodeChange> {
    node.children.iter().map(|c| c.change).collect()
}

fn count(node: &DiffNode, change: NodeChange) -> usize {
    node.children.iter().filter(|c| c.change == change).count()
}

#[test]
fn removing_the_first_of_twelve_rules_is_one_removal_and_eleven_unchanged_rules() {
    let doc = load_own(FIXTURE);
    let tree = tree_of(&doc, "aws_security_group.web");
    let ingress = at(&tree, &["ingress"]);
    assert_eq!(ingress.change, NodeChange::Modified);
    assert_eq!(
        (&ingress.before, &ingress.after),
        (&Side::List(12), &Side::List(11))
    );
    assert_eq!(ingress.children.len(), 12, "{:?}", changes(ingress));
    let removed = &ingress.children[0];
    assert_eq!(removed.change, NodeChange::Removed);
    assert_eq!(
        removed.key,
        Some(PathKey::Index {
            before: Some(0),
            after: None
        })
    );
    assert_eq!(
        at(removed, &["from_port"]).before,
        Side::Scalar("22".into())
    );
    assert_eq!(
        count(ingress, NodeChange::Unchanged),
        11,
        "{:?}",
        changes(ingress)
    );
    // The rules that stay are labelled where they are now, and know where they were.
    for (i, rule) in ingress.children[1..].iter().enumerate() {
        assert_eq!(
            rule.key,
            Some(PathKey::Index {
                before: Some(i + 1),
                after: Some(i)
            })
        );
        assert_eq!(rule.key_label(), format!("[{i}]"));
    }
    // Nothing else changed in the security group.
    assert_eq!(count(&tree, NodeChange::Modified), 1);
    assert_eq!(at(&tree, &["egress"]).change, NodeChange::Unchanged);
}

#[test]
fn an_element_changed_inside_is_changed_in_place_and_new_ones_are_added() {
    // Terraform's own plan (equivalence test `fully_populated_complex_update`): its `list` has
    // three objects changed in place and one unchanged; in the second, a nested list gains an
    // element and changes another.
    let Some(dir) = common::real_fixtures_dir() else {
        return;
    };
    let name = "terraform__equiv_fully_populated_complex_update.json";
    let doc = planlens::load_plan(std::fs::read(dir.join(name)).unwrap(), name).unwrap();
    let tree = tree_of(&doc, "tfcoremock_complex_resource.complex");
    let list = at(&tree, &["list"]);
    assert_eq!(count(list, NodeChange::Modified), 3, "{:?}", changes(list));
    assert_eq!(count(list, NodeChange::Unchanged), 1, "{:?}", changes(list));
    let inner = at(list, &["[2]", "list"]);
    assert_eq!(
        (
            count(inner, NodeChange::Modified),
            count(inner, NodeChange::Added),
            count(inner, NodeChange::Unchanged),
            count(inner, NodeChange::Removed)
        ),
        (1, 1, 2, 0),
        "{:?}",
        changes(inner)
    );
    // Hidden as Terraform hides them: "# (1 unchanged attribute hidden)" beside that list, none
    // beside the heredoc, and attributes null on both sides are not counted at all.
    assert_eq!(at(list, &["[2]"]).unchanged_children(), 1);
    assert_eq!(at(list, &["[1]"]).unchanged_children(), 0);
    let object = at(&tree, &["object"]);
    assert_eq!(object.unchanged_children(), 2);
    assert_eq!(at(object, &["object"]).unchanged_children(), 2);
    let number = at(inner, &["[2]", "number"]);
    assert_eq!(
        (number.before.display(), number.after.display()),
        ("2".into(), "3".into())
    );
    // The first element's multi-line string gained one line and kept three.
    let Form::Lines(lines) = &at(list, &["[1]", "string"]).form else {
        panic!("a multi-line string reads line by line");
    };
    let added: Vec<&str> = lines
        .iter()
        .filter(|l| l.change == NodeChange::Added)
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(added, ["but I've been edited"]);
    assert_eq!(lines.len(), 4);
}

#[test]
fn a_policy_held_in_a_string_is_diffed_as_json() {
    let doc = load_own(FIXTURE);
    let tree = tree_of(&doc, "aws_iam_policy.deploy");
    let policy = at(&tree, &["policy"]);
    assert_eq!(policy.change, NodeChange::Modified);
    assert_eq!(policy.form, Form::Json(Container::Object));
    assert_eq!(at(policy, &["Version"]).change, NodeChange::Unchanged);
    let statements = at(policy, &["Statement"]);
    assert_eq!(statements.form, Form::List);
    // Two statements changed in place: one action added to the first, the second's resource.
    let actions = at(statements, &["[0]", "Action"]);
    let added: Vec<String> = actions
        .children
        .iter()
        .filter(|c| c.change == NodeChange::Added)
        .map(|c| c.after.display())
        .collect();
    assert_eq!(added, ["\"s3:PutObject\""]);
    assert_eq!(count(actions, NodeChange::Unchanged), 2);
    let resource = at(statements, &["[1]", "Resource"]);
    assert_eq!(
        resource.after.display(),
        "\"arn:aws:lambda:eu-west-1:123456789012:function:api-v2\""
    );
    assert_eq!(
        at(statements, &["[0]", "Sid"]).change,
        NodeChange::Unchanged
    );
}

#[test]
fn a_multi_line_string_is_diffed_line_by_line() {
    let doc = load_own(FIXTURE);
    let tree = tree_of(&doc, "kubernetes_config_map.nginx");
    let conf = at(&tree, &["data", "\"nginx.conf\""]);
    assert_eq!(conf.change, NodeChange::Modified);
    let Form::Lines(lines) = &conf.form else {
        panic!("nginx.conf reads line by line: {:?}", conf.form);
    };
    let shown: Vec<(NodeChange, &str)> = lines
        .iter()
        .filter(|l| l.change != NodeChange::Unchanged)
        .map(|l| (l.change, l.text.as_str()))
        .collect();
    assert_eq!(
        shown,
        [
            (NodeChange::Removed, "  keepalive_timeout 65;"),
            (NodeChange::Added, "  keepalive_timeout 30;"),
            (NodeChange::Added, "    listen [::]:80;"),
        ]
    );
    // Trimmed as Terraform trims it: the final newline adds no empty line.
    assert_eq!(lines.len(), 13 + 2);
    assert_eq!(lines.last().map(|l| l.text.as_str()), Some("}"));
    // A one-line value beside it stays one value.
    assert_eq!(at(&tree, &["data", "log_level"]).form, Form::Scalar);
}

#[test]
fn entry_counts_include_the_attributes_known_only_after_apply() {
    // Terraform leaves unknown attributes out of `after` and names them in `after_unknown`; the
    // new bucket lists all of them, so its count must too. Its two null attributes are left out,
    // as Terraform leaves them out.
    let doc = load_own(FIXTURE);
    let tree = tree_of(&doc, "aws_s3_bucket.logs");
    assert_eq!(tree.change, NodeChange::Added);
    assert_eq!(tree.children.len(), 17);
    assert_eq!(tree.after, Side::Object(17));
    assert_eq!(at(&tree, &["arn"]).after, Side::Unknown);
    let listed: Vec<String> = tree.children.iter().map(DiffNode::key_label).collect();
    assert!(!listed.contains(&"timeouts".to_string()), "{listed:?}");
}

/// Every container's count on each side is the number of its children present on that side.
fn assert_counts_match(node: &DiffNode, at: &str) {
    if matches!(node.form, Form::Object | Form::List) {
        for (side, present) in [
            (
                &node.before,
                node.children
                    .iter()
                    .filter(|c| c.before != Side::Absent)
                    .count(),
            ),
            (
                &node.after,
                node.children
                    .iter()
                    .filter(|c| c.after != Side::Absent)
                    .count(),
            ),
        ] {
            if let Side::Object(n) | Side::List(n) | Side::Shown(n) = side {
                assert_eq!(*n, present, "{at}: {side:?} above {present} entries");
            }
        }
    }
    for child in &node.children {
        assert_counts_match(child, &format!("{at}.{}", child.key_label()));
    }
}

#[test]
fn counts_match_what_is_listed_in_every_diff_of_every_fixture() {
    let mut checked = 0;
    for (name, bytes) in common::inputs() {
        let doc = planlens::load_plan(bytes, &name).unwrap_or_else(|e| panic!("{name}: {e}"));
        for row in &doc.rows {
            let change = doc.change(row);
            if let Ok(tree) = diff_change(&change.change) {
                assert_counts_match(&tree, &format!("{name} {}", change.address));
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "only {checked} diffs");
}

#[test]
fn sensitive_elements_stay_masked_when_the_list_shifts() {
    let doc = load_own(FIXTURE);
    let tree = tree_of(&doc, "terraform_data.users");
    let input = at(&tree, &["input"]);
    assert_eq!(
        changes(input),
        [
            NodeChange::Removed,
            NodeChange::Unchanged,
            NodeChange::Unchanged
        ]
    );
    // `bo` was element 1 and is element 0: its password is masked on both sides.
    let bo = &input.children[1];
    assert_eq!(at(bo, &["name"]).after, Side::Scalar("\"bo\"".into()));
    let password = at(bo, &["password"]);
    assert_eq!(
        (&password.before, &password.after),
        (&Side::Sensitive, &Side::Sensitive)
    );
    let removed = at(&input.children[0], &["password"]);
    assert_eq!(removed.before, Side::Sensitive);
    let shown = format!("{tree:?}");
    assert!(!shown.contains("SECRET"), "a secret reached the diff");
    // The output is unknown as a whole: shown as before, never listed element by element.
    assert_eq!(at(&tree, &["output"]).after, Side::Unknown);
}

/// A one-resource plan updating `attr` from `before` to `after` (JSON values).
fn one_update(before: &serde_json::Value, after: &serde_json::Value) -> DiffNode {
    let plan = serde_json::json!({
        "format_version": "1.2",
        "terraform_version": "1.9.8",
        "resource_changes": [{
            "address": "aws_s3_bucket_policy.p", "mode": "managed", "type": "aws_s3_bucket_policy",
            "name": "p", "provider_name": "registry.terraform.io/hashicorp/aws",
            "change": {
                "actions": ["update"],
                "before": {"bucket": "b", "policy": before},
                "after": {"bucket": "b", "policy": after},
                "after_unknown": {}, "before_sensitive": {}, "after_sensitive": {}
            }
        }]
    });
    let doc = planlens::load_plan(plan.to_string().into_bytes(), "inline.json").unwrap();
    tree_of(&doc, "aws_s3_bucket_policy.p")
}

#[test]
fn json_strings_read_as_terraform_reads_them_whitespace_kinds_and_nulls() {
    // Only the whitespace changed: a change (Terraform says "# whitespace changes"), nothing in
    // the JSON changed.
    let tree = one_update(
        &serde_json::json!(r#"{"Version":"2012-10-17","Statement":[]}"#),
        &serde_json::json!("{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": []\n}"),
    );
    let policy = at(&tree, &["policy"]);
    assert_eq!(
        (policy.change, &policy.form),
        (NodeChange::Modified, &Form::Json(Container::Object))
    );
    assert!(
        policy
            .children
            .iter()
            .all(|c| c.change == NodeChange::Unchanged)
    );
    // JSON before, plain text after: two plain strings, as Terraform shows them.
    let tree = one_update(&serde_json::json!("[1,2]"), &serde_json::json!("none"));
    assert_eq!(at(&tree, &["policy"]).form, Form::Scalar);
    // A JSON object becomes an array: two plain strings too.
    let tree = one_update(&serde_json::json!("[1]"), &serde_json::json!(r#"{"a":1}"#));
    assert_eq!(at(&tree, &["policy"]).form, Form::Scalar);
    // From null: every entry is added, and a null inside the JSON is kept (it was written).
    let tree = one_update(
        &serde_json::Value::Null,
        &serde_json::json!(r#"{"Version":"2012-10-17","Id":null}"#),
    );
    let policy = at(&tree, &["policy"]);
    assert_eq!(policy.form, Form::Json(Container::Object));
    assert_eq!(
        changes(policy),
        [NodeChange::Added, NodeChange::Added],
        "Id and Version"
    );
    assert_eq!(policy.before, Side::Scalar("null".into()));
}
