//! Operators of attribute and variable conditions.

use super::*;

/// True when one attribute condition holds on an update from `before` to `after`.
fn holds_on_change(condition: &str, before: Value, after: Value) -> bool {
    let set = own_rules(&format!(
        "[[rule]]\nid = \"t\"\nseverity = \"warn\"\nmessage = \"{{address}}\"\n\
         [[rule.attribute]]\n{condition}\n"
    ));
    let plan = plan_of(vec![change("aws_instance.x", &["update"], before, after)]);
    !run(&plan.to_string(), &set, &[]).seen.is_empty()
}

/// True when one attribute condition holds on a resource whose value is `after` (and unchanged).
fn holds(condition: &str, after: &Value) -> bool {
    holds_on_change(condition, after.clone(), after.clone())
}

fn values() -> Value {
    json!({
        "instance_type": "m5.large",
        "min_count": 3,
        "ratio": 0.5,
        "monitoring": true,
        "zones": ["a", "b"],
        "tags": {"env": "dev", "kubernetes.io/role": "agent"},
        "node": [{"size": 100}],
        "nothing": null,
    })
}

#[test]
fn equals_compares_json_values() {
    let v = values();
    assert!(holds(
        "path = \"after.instance_type\"\nequals = \"m5.large\"",
        &v
    ));
    assert!(!holds(
        "path = \"after.instance_type\"\nequals = \"m5.xlarge\"",
        &v
    ));
    assert!(holds("path = \"after.min_count\"\nequals = 3", &v));
    assert!(holds("path = \"after.min_count\"\nequals = 3.0", &v));
    assert!(!holds("path = \"after.min_count\"\nequals = \"3\"", &v));
    assert!(holds("path = \"after.monitoring\"\nequals = true", &v));
    assert!(!holds("path = \"after.monitoring\"\nequals = false", &v));
    assert!(holds("path = \"after.zones\"\nequals = [\"a\", \"b\"]", &v));
    assert!(holds("path = \"after.tags.env\"\nequals = \"dev\"", &v));
}

#[test]
fn not_equals_is_the_negation() {
    let v = values();
    assert!(holds(
        "path = \"after.instance_type\"\nnot_equals = \"m5.xlarge\"",
        &v
    ));
    assert!(!holds(
        "path = \"after.instance_type\"\nnot_equals = \"m5.large\"",
        &v
    ));
    assert!(!holds("path = \"after.min_count\"\nnot_equals = 3", &v));
}

#[test]
fn in_and_not_in_check_membership() {
    let v = values();
    assert!(holds(
        "path = \"after.instance_type\"\nin = [\"t3.micro\", \"m5.large\"]",
        &v
    ));
    assert!(!holds(
        "path = \"after.instance_type\"\nin = [\"t3.micro\"]",
        &v
    ));
    assert!(holds("path = \"after.min_count\"\nin = [1, 2, 3]", &v));
    assert!(holds(
        "path = \"after.instance_type\"\nnot_in = [\"t3.micro\"]",
        &v
    ));
    assert!(!holds(
        "path = \"after.instance_type\"\nnot_in = [\"m5.large\"]",
        &v
    ));
}

#[test]
fn lt_gt_le_ge_compare_numbers() {
    let v = values();
    for (op, n, want) in [
        ("lt", "4", true),
        ("lt", "3", false),
        ("le", "3", true),
        ("le", "2", false),
        ("gt", "2", true),
        ("gt", "3", false),
        ("ge", "3", true),
        ("ge", "3.5", false),
    ] {
        assert_eq!(
            holds(&format!("path = \"after.min_count\"\n{op} = {n}"), &v),
            want,
            "min_count 3 {op} {n}"
        );
    }
    assert!(holds("path = \"after.ratio\"\nlt = 1", &v));
    // A string is not a number, even one that looks like one.
    assert!(!holds("path = \"after.instance_type\"\nlt = 100", &v));
    assert!(!holds(
        "path = \"after.label\"\ngt = 1",
        &json!({"label": "5"})
    ));
}

#[test]
fn regex_matches_strings_only() {
    let v = values();
    assert!(holds(
        "path = \"after.instance_type\"\nregex = '^m5\\.'",
        &v
    ));
    assert!(!holds(
        "path = \"after.instance_type\"\nregex = '^c5\\.'",
        &v
    ));
    assert!(!holds("path = \"after.min_count\"\nregex = '3'", &v));
    assert!(!holds("path = \"after.zones\"\nregex = 'a'", &v));
}

#[test]
fn exists_tells_present_from_missing() {
    let v = values();
    assert!(holds("path = \"after.instance_type\"\nexists = true", &v));
    assert!(!holds("path = \"after.instance_type\"\nexists = false", &v));
    assert!(holds("path = \"after.absent\"\nexists = false", &v));
    assert!(!holds("path = \"after.absent\"\nexists = true", &v));
    assert!(holds("path = \"after.nothing\"\nexists = false", &v));
}

#[test]
fn changed_compares_before_and_after() {
    let before = json!({"instance_type": "t3.micro", "tags": {"Name": "a"}, "size": 3});
    let after = json!({"instance_type": "t3.large", "tags": {"Name": "a"}, "size": 3.0});
    assert!(holds_on_change(
        "path = \"instance_type\"\nchanged = true",
        before.clone(),
        after.clone()
    ));
    assert!(!holds_on_change(
        "path = \"instance_type\"\nchanged = false",
        before.clone(),
        after.clone()
    ));
    assert!(!holds_on_change(
        "path = \"tags.Name\"\nchanged = true",
        before.clone(),
        after.clone()
    ));
    assert!(holds_on_change(
        "path = \"tags\"\nchanged = false",
        before.clone(),
        after.clone()
    ));
    // 3 and 3.0 are the same number.
    assert!(!holds_on_change(
        "path = \"size\"\nchanged = true",
        before.clone(),
        after.clone()
    ));
    // Present on one side only: changed (a create, or a value known only after apply).
    assert!(holds_on_change(
        "path = \"ami\"\nchanged = true",
        json!({}),
        json!({"ami": "a"})
    ));
    assert!(holds_on_change(
        "path = \"ami\"\nchanged = true",
        json!({"ami": "a"}),
        json!({})
    ));
    assert!(!holds_on_change(
        "path = \"ami\"\nchanged = true",
        json!({}),
        json!({})
    ));
}

#[test]
fn missing_values_fail_positive_tests_and_pass_negative_ones() {
    let v = values();
    for path in [
        "after.absent",
        "after.nothing",
        "after.tags.absent",
        "before.node[5].size",
    ] {
        for (op, want) in [
            ("equals = \"x\"", false),
            ("not_equals = \"x\"", true),
            ("in = [\"x\"]", false),
            ("not_in = [\"x\"]", true),
            ("lt = 1", false),
            ("gt = 1", false),
            ("le = 1", false),
            ("ge = 1", false),
            ("regex = '.*'", false),
            ("exists = false", true),
            ("exists = true", false),
        ] {
            assert_eq!(
                holds(&format!("path = \"{path}\"\n{op}"), &v),
                want,
                "{path} {op}"
            );
        }
    }
}

#[test]
fn paths_reach_into_lists_and_odd_keys() {
    let v = values();
    assert!(holds("path = \"after.node[0].size\"\nequals = 100", &v));
    assert!(holds(
        "path = 'after.tags[\"kubernetes.io/role\"]'\nequals = \"agent\"",
        &v
    ));
    assert!(holds("path = \"after.zones[1]\"\nequals = \"b\"", &v));
    assert!(!holds("path = \"after.zones[2]\"\nexists = true", &v));
    assert!(holds("path = \"after\"\nexists = true", &v));
}

#[test]
fn before_and_after_are_read_separately() {
    let before = json!({"instance_type": "t3.micro"});
    let after = json!({"instance_type": "t3.large"});
    assert!(holds_on_change(
        "path = \"before.instance_type\"\nequals = \"t3.micro\"",
        before.clone(),
        after.clone()
    ));
    assert!(!holds_on_change(
        "path = \"after.instance_type\"\nequals = \"t3.micro\"",
        before,
        after
    ));
}

#[test]
fn all_attribute_conditions_must_hold() {
    let v = values();
    let two = |second: &str| {
        holds(
            &format!("path = \"after.min_count\"\nge = 3\n[[rule.attribute]]\n{second}"),
            &v,
        )
    };
    assert!(two("path = \"after.monitoring\"\nequals = true"));
    assert!(!two("path = \"after.monitoring\"\nequals = false"));
}

fn variable_rule(condition: &str) -> RuleSet {
    own_rules(&format!(
        "[[rule]]\nid = \"v\"\nseverity = \"warn\"\nmessage = \"{{address}} in {{var.environment}}\"\n\
         [[rule.variable]]\n{condition}\n"
    ))
}

#[test]
fn variable_conditions_hold_on_the_plan_as_a_whole() {
    let plan = with_variables(
        plan_of(vec![
            instance("aws_instance.a", &["update"], "t3.micro"),
            instance("aws_instance.b", &["update"], "t3.micro"),
        ]),
        json!({"environment": "dev", "replicas": 3}),
    )
    .to_string();
    let fired =
        |cond: &str, labels: &[(&str, &str)]| run(&plan, &variable_rule(cond), labels).seen.len();
    assert_eq!(fired("name = \"environment\"\nequals = \"dev\"", &[]), 2);
    assert_eq!(fired("name = \"environment\"\nequals = \"prod\"", &[]), 0);
    assert_eq!(
        fired(
            "name = \"environment\"\nequals = \"prod\"",
            &[("environment", "prod")]
        ),
        2
    );
    assert_eq!(fired("name = \"replicas\"\ngt = 2", &[]), 2);
    assert_eq!(fired("name = \"replicas\"\nin = [1, 2]", &[]), 0);
    assert_eq!(
        fired("name = \"region\"\nnot_equals = \"eu-west-1\"", &[]),
        2
    );
    assert_eq!(fired("name = \"region\"\nexists = true", &[]), 0);
    assert_eq!(
        fired(
            "name = \"region\"\nregex = 'eu-'",
            &[("region", "eu-west-1")]
        ),
        2
    );
    let messages = run(
        &plan,
        &variable_rule("name = \"environment\"\nexists = true"),
        &[],
    );
    assert_eq!(messages.seen[0].message, "aws_instance.a in dev");
}

#[test]
fn a_failing_variable_condition_silences_an_aggregate() {
    let text = "[[rule]]\nid = \"many\"\nseverity = \"deny\"\nmessage = \"{count} in {var.environment}\"\n\
                count = { ge = 1 }\n[[rule.variable]]\nname = \"environment\"\nequals = \"prod\"\n";
    let set = own_rules(text);
    let plan = plan_of(vec![instance("aws_instance.a", &["update"], "t3.micro")]).to_string();
    assert!(run(&plan, &set, &[("environment", "dev")]).seen.is_empty());
    let out = run(&plan, &set, &[("environment", "prod")]);
    assert_eq!(out.messages("many"), ["1 in prod"]);
}
