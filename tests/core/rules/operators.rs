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

/// Whether each condition (a path under `after.` and an operator) holds on a resource whose value
/// is `after`, against what it should be.
#[track_caller]
fn assert_holds(after: &Value, cases: &[(&str, &str, bool)]) {
    for (path, operator, want) in cases {
        let condition = format!("path = \"after.{path}\"\n{operator}");
        assert_eq!(holds(&condition, after), *want, "{condition}");
    }
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
    assert_holds(
        &v,
        &[
            ("instance_type", "equals = \"m5.large\"", true),
            ("instance_type", "equals = \"m5.xlarge\"", false),
            ("min_count", "equals = 3", true),
            ("min_count", "equals = 3.0", true),
            ("min_count", "equals = \"3\"", false),
            ("monitoring", "equals = true", true),
            ("monitoring", "equals = false", false),
            ("zones", "equals = [\"a\", \"b\"]", true),
            ("tags.env", "equals = \"dev\"", true),
        ],
    );
}

#[test]
fn not_equals_is_the_negation() {
    let v = values();
    assert_holds(
        &v,
        &[
            ("instance_type", "not_equals = \"m5.xlarge\"", true),
            ("instance_type", "not_equals = \"m5.large\"", false),
            ("min_count", "not_equals = 3", false),
        ],
    );
}

#[test]
fn in_and_not_in_check_membership() {
    let v = values();
    assert_holds(
        &v,
        &[
            ("instance_type", "in = [\"t3.micro\", \"m5.large\"]", true),
            ("instance_type", "in = [\"t3.micro\"]", false),
            ("min_count", "in = [1, 2, 3]", true),
            ("instance_type", "not_in = [\"t3.micro\"]", true),
            ("instance_type", "not_in = [\"m5.large\"]", false),
        ],
    );
}

#[test]
fn lt_gt_le_ge_compare_numbers() {
    let v = values();
    assert_holds(
        &v,
        &[
            ("min_count", "lt = 4", true),
            ("min_count", "lt = 3", false),
            ("min_count", "le = 3", true),
            ("min_count", "le = 2", false),
            ("min_count", "gt = 2", true),
            ("min_count", "gt = 3", false),
            ("min_count", "ge = 3", true),
            ("min_count", "ge = 3.5", false),
            ("ratio", "lt = 1", true),
            // A string is not a number, even one that looks like one.
            ("instance_type", "lt = 100", false),
        ],
    );
    assert!(!holds(
        "path = \"after.label\"\ngt = 1",
        &json!({"label": "5"})
    ));
}

#[test]
fn regex_matches_strings_only() {
    let v = values();
    assert_holds(
        &v,
        &[
            ("instance_type", "regex = '^m5\\.'", true),
            ("instance_type", "regex = '^c5\\.'", false),
            ("min_count", "regex = '3'", false),
            ("zones", "regex = 'a'", false),
        ],
    );
}

#[test]
fn exists_tells_present_from_missing() {
    let v = values();
    assert_holds(
        &v,
        &[
            ("instance_type", "exists = true", true),
            ("instance_type", "exists = false", false),
            ("absent", "exists = false", true),
            ("absent", "exists = true", false),
            ("nothing", "exists = false", true),
        ],
    );
}

#[test]
fn changed_compares_before_and_after() {
    let before = json!({"instance_type": "t3.micro", "tags": {"Name": "a"}, "size": 3});
    let after = json!({"instance_type": "t3.large", "tags": {"Name": "a"}, "size": 3.0});
    for (path, changed, want) in [
        ("instance_type", true, true),
        ("instance_type", false, false),
        ("tags.Name", true, false),
        ("tags", false, true),
        // 3 and 3.0 are the same number.
        ("size", true, false),
    ] {
        let condition = format!("path = \"{path}\"\nchanged = {changed}");
        let holds = holds_on_change(&condition, before.clone(), after.clone());
        assert_eq!(holds, want, "{condition}");
    }
    // Present on one side only: changed (a create, or a value known only after apply).
    let ami = "path = \"ami\"\nchanged = true";
    assert!(holds_on_change(ami, json!({}), json!({"ami": "a"})));
    assert!(holds_on_change(ami, json!({"ami": "a"}), json!({})));
    assert!(!holds_on_change(ami, json!({}), json!({})));
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
    assert_holds(
        &v,
        &[
            ("node[0].size", "equals = 100", true),
            ("zones[1]", "equals = \"b\"", true),
            ("zones[2]", "exists = true", false),
        ],
    );
    let odd_key = "path = 'after.tags[\"kubernetes.io/role\"]'\nequals = \"agent\"";
    assert!(holds(odd_key, &v));
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
