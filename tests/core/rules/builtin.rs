//! The built-in pack, policy by policy.

use super::*;

#[test]
fn builtin_pack_is_the_shipped_file() {
    assert!(BUILTIN_TOML.contains("id = \"destroy-needs-approval\""));
    let set = RuleSet::builtin();
    assert_eq!(set.rules().len(), 7);
    let sg = set.rule("security-group-changed").expect("listed");
    assert_eq!(sg.severity(), RuleSeverity::Warn);
    assert_eq!(sg.message(), "Security group changed: {address}");
    assert!(sg.description().is_some());
}

#[test]
fn a_destroy_needs_approval() {
    let out = builtin(
        &plan_of(vec![
            change(
                "aws_s3_bucket.logs",
                &["delete"],
                json!({"id": "logs"}),
                Value::Null,
            ),
            change(
                "aws_s3_bucket.data",
                &["update"],
                json!({"id": "d"}),
                json!({"id": "d2"}),
            ),
            change(
                "aws_s3_bucket.new",
                &["create"],
                Value::Null,
                json!({"id": "n"}),
            ),
        ]),
        &[],
    );
    assert_eq!(out.fired("destroy-needs-approval"), ["aws_s3_bucket.logs"]);
    assert_eq!(
        out.messages("destroy-needs-approval"),
        ["Destroy needs approval: aws_s3_bucket.logs"]
    );
    assert_eq!(out.verdict(), Verdict::NeedsApproval);
}

#[test]
fn a_replace_counts_as_a_destroy_but_create_then_forget_does_not() {
    let out = builtin(
        &plan_of(vec![
            bare("aws_instance.a", &["delete", "create"]),
            bare("aws_instance.b", &["create", "delete"]),
            bare("aws_instance.c", &["create", "forget"]),
            change("aws_instance.d", &["forget"], json!({}), Value::Null),
        ]),
        &[],
    );
    assert_eq!(
        out.fired("destroy-needs-approval"),
        ["aws_instance.a", "aws_instance.b"]
    );
}

#[test]
fn deleting_a_data_source_needs_no_approval() {
    let out = builtin(
        &plan_of(vec![change(
            "data.aws_ami.ubuntu",
            &["delete"],
            json!({"id": "ami-1"}),
            Value::Null,
        )]),
        &[],
    );
    assert!(out.seen.is_empty(), "{:?}", out.seen);
    assert_eq!(out.verdict(), Verdict::Pass);
}

#[test]
fn five_destroys_are_not_too_many() {
    let out = builtin(&deletes(5), &[]);
    assert_eq!(out.fired("destroy-needs-approval").len(), 5);
    assert!(out.fired("too-many-destroys").is_empty());
}

#[test]
fn six_destroys_are_too_many_one_plan_level_finding() {
    let out = builtin(&deletes(6), &[]);
    assert_eq!(out.fired("too-many-destroys"), ["plan"]);
    assert_eq!(
        out.messages("too-many-destroys"),
        ["More than 5 destroys in one plan (6)"]
    );
    assert_eq!(out.evaluation.for_plan().count(), 1);
}

#[test]
fn replaces_count_towards_too_many_destroys() {
    let mut plan = deletes(3);
    let changes = plan["resource_changes"].as_array_mut().unwrap();
    changes.extend((0..3).map(|i| bare(&format!("aws_instance.r{i}"), &["delete", "create"])));
    let out = builtin(&plan, &[]);
    assert_eq!(out.fired("too-many-destroys"), ["plan"]);
}

#[test]
fn a_security_group_update_warns_a_no_op_does_not() {
    let out = builtin(
        &plan_of(vec![
            change(
                "aws_security_group.web",
                &["update"],
                json!({"name": "w"}),
                json!({"name": "w2"}),
            ),
            change(
                "aws_security_group.db",
                &["no-op"],
                json!({"name": "d"}),
                json!({"name": "d"}),
            ),
            change(
                "aws_security_group_rule.ssh",
                &["create"],
                Value::Null,
                json!({"from_port": 22}),
            ),
            bare("aws_vpc.main", &["update"]),
        ]),
        &[],
    );
    assert_eq!(
        out.fired("security-group-changed"),
        ["aws_security_group.web", "aws_security_group_rule.ssh"]
    );
    assert_eq!(
        out.messages("security-group-changed")[0],
        "Security group changed: aws_security_group.web"
    );
    assert_eq!(out.verdict(), Verdict::Warn);
}

#[test]
fn a_security_group_replace_warns_and_needs_approval() {
    let out = builtin(
        &plan_of(vec![bare("aws_security_group.web", &["create", "delete"])]),
        &[],
    );
    assert_eq!(
        out.fired("security-group-changed"),
        ["aws_security_group.web"]
    );
    assert_eq!(
        out.fired("destroy-needs-approval"),
        ["aws_security_group.web"]
    );
    // Deny findings come before warnings.
    assert_eq!(out.seen[0].severity, RuleSeverity::Deny);
    assert_eq!(out.seen[1].severity, RuleSeverity::Warn);
}

fn big_instance_plan(environment: Option<&str>) -> Value {
    let plan = plan_of(vec![
        instance("aws_instance.big", &["update"], "m5.8xlarge"),
        instance("aws_instance.small", &["update"], "m5.2xlarge"),
        instance("aws_instance.metal", &["create"], "c7i.metal-48xl"),
    ]);
    match environment {
        Some(env) => with_variables(plan, json!({ "environment": env })),
        None => plan,
    }
}

#[test]
fn a_large_instance_in_dev_is_denied() {
    let out = builtin(&big_instance_plan(Some("dev")), &[]);
    assert_eq!(
        out.fired("large-instance-outside-prod"),
        ["aws_instance.big", "aws_instance.metal"]
    );
    assert_eq!(
        out.messages("large-instance-outside-prod")[0],
        "Instance aws_instance.big of type m5.8xlarge not allowed outside prod"
    );
}

#[test]
fn a_large_instance_in_prod_passes() {
    for env in ["prod", "production"] {
        let out = builtin(&big_instance_plan(Some(env)), &[]);
        assert!(out.seen.is_empty(), "{env}: {:?}", out.seen);
        assert_eq!(out.verdict(), Verdict::Pass);
    }
}

#[test]
fn a_large_instance_with_no_environment_is_denied() {
    let out = builtin(&big_instance_plan(None), &[]);
    assert_eq!(out.fired("large-instance-outside-prod").len(), 2);
}

#[test]
fn a_label_overrides_the_environment_variable() {
    let out = builtin(&big_instance_plan(Some("dev")), &[("environment", "prod")]);
    assert!(out.fired("large-instance-outside-prod").is_empty());
    let out = builtin(
        &big_instance_plan(Some("prod")),
        &[("environment", "staging")],
    );
    assert_eq!(out.fired("large-instance-outside-prod").len(), 2);
    let out = builtin(&big_instance_plan(None), &[("environment", "production")]);
    assert!(out.fired("large-instance-outside-prod").is_empty());
}

#[test]
fn large_means_4xlarge_and_up_or_metal() {
    let large = |t: &str| {
        let plan = plan_of(vec![instance("aws_instance.x", &["create"], t)]);
        !builtin(&plan, &[("environment", "dev")])
            .fired("large-instance-outside-prod")
            .is_empty()
    };
    for t in [
        "m5.4xlarge",
        "c5.9xlarge",
        "r5.12xlarge",
        "x1e.32xlarge",
        "u-6tb1.112xlarge",
        "m5.metal",
        "c7i.metal-24xl",
    ] {
        assert!(large(t), "{t} is large");
    }
    for t in [
        "t3.micro",
        "m5.large",
        "m5.xlarge",
        "m5.2xlarge",
        "m5.3xlarge",
        "metal",
        "m5.4xlarge-ish",
    ] {
        assert!(!large(t), "{t} is not large");
    }
}

#[test]
fn an_instance_type_known_only_after_apply_is_not_judged() {
    let plan = plan_of(vec![change(
        "aws_instance.x",
        &["create"],
        Value::Null,
        json!({"ami": "a"}),
    )]);
    let out = builtin(&plan, &[("environment", "dev")]);
    assert!(out.fired("large-instance-outside-prod").is_empty());
}

fn node_pool(min_count: Value) -> Value {
    let mut c = change(
        "azurerm_kubernetes_cluster_node_pool.user",
        &["update"],
        json!({"min_count": 3, "max_count": 10}),
        json!({"min_count": min_count, "max_count": 10}),
    );
    c["provider_name"] = json!("registry.terraform.io/hashicorp/azurerm");
    plan_of(vec![c])
}

#[test]
fn an_aks_node_pool_below_three_nodes_is_denied() {
    let out = builtin(&node_pool(json!(2)), &[]);
    assert_eq!(
        out.messages("aks-node-pool-min-count"),
        ["Node pool azurerm_kubernetes_cluster_node_pool.user has min_count 2; it must stay ≥ 3"]
    );
    assert_eq!(out.verdict(), Verdict::NeedsApproval);
}

#[test]
fn an_aks_node_pool_of_three_passes() {
    for min in [json!(3), json!(5), Value::Null] {
        let out = builtin(&node_pool(min.clone()), &[]);
        assert!(out.seen.is_empty(), "min_count {min}: {:?}", out.seen);
    }
}

#[test]
fn structural_drift_is_denied() {
    let out = builtin(&drifted(json!({"instance_type": "t3.large"})), &[]);
    assert_eq!(
        out.messages("structural-drift"),
        ["Structural drift on aws_instance.web needs a human: instance_type"]
    );
    assert!(out.fired("minor-drift").is_empty());
    assert_eq!(out.verdict(), Verdict::NeedsApproval);
}

#[test]
fn tag_only_drift_is_info_and_the_plan_passes() {
    let out = builtin(&drifted(json!({"tags": {"Name": "web-edited"}})), &[]);
    assert_eq!(
        out.messages("minor-drift"),
        ["Tag-only drift on aws_instance.web: auto-remediate"]
    );
    assert!(out.fired("structural-drift").is_empty());
    assert_eq!(out.evaluation.count(RuleSeverity::Info), 1);
    assert_eq!(out.verdict(), Verdict::Pass);
}

#[test]
fn a_plan_with_every_policy() {
    let out = run(&fixture("guardrails.json"), &RuleSet::builtin(), &[]);
    let got: Vec<(&str, &str)> = out
        .seen
        .iter()
        .map(|s| (s.rule.as_str(), s.at.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("destroy-needs-approval", "aws_db_instance.main"),
            ("destroy-needs-approval", "aws_iam_role.ci"),
            ("large-instance-outside-prod", "aws_instance.api"),
            (
                "aks-node-pool-min-count",
                "azurerm_kubernetes_cluster_node_pool.user"
            ),
            ("structural-drift", "aws_instance.worker"),
            (
                "security-group-changed",
                r#"module.sg["a"].aws_security_group.this"#
            ),
            ("minor-drift", "aws_s3_bucket.logs"),
        ]
    );
    assert_eq!(out.verdict(), Verdict::NeedsApproval);
    assert_eq!(out.evaluation.rules_run, 7);
    assert_eq!(out.evaluation.count(RuleSeverity::Deny), 5);
    assert_eq!(out.evaluation.count(RuleSeverity::Warn), 1);

    let in_prod = run(
        &fixture("guardrails.json"),
        &RuleSet::builtin(),
        &[("environment", "prod")],
    );
    assert!(in_prod.fired("large-instance-outside-prod").is_empty());
    assert_eq!(in_prod.seen.len(), 6);
}
