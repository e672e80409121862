//! Guardrail rules: the built-in pack on plans that should and should not trip each policy, every
//! operator, selectors, message templates (sensitive values masked), parse errors with their exact
//! line and column, and the verdict.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Value, json};

use planlens::analysis::Analysis;
use planlens::drift::Drift;
use planlens::model::Address;
use planlens::model::Source;
use planlens::model::summary::{Planning, count};
use planlens::rules::{
    BUILTIN_TOML, Evaluation, Input, RuleError, RuleSet, RuleSeverity, Verdict, evaluate,
};
use planlens::{Document, Summary};

// ---------------------------------------------------------------------------------------------
// Helpers: plans in, findings out.

/// One finding, with the resource's address instead of its index.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    rule: String,
    /// The resource's address, or "plan" for an aggregate's finding.
    at: String,
    severity: RuleSeverity,
    message: String,
}

struct Outcome {
    evaluation: Evaluation,
    seen: Vec<Seen>,
}

impl Outcome {
    /// Where a rule fired, in finding order.
    fn fired(&self, rule: &str) -> Vec<&str> {
        self.seen
            .iter()
            .filter(|s| s.rule == rule)
            .map(|s| s.at.as_str())
            .collect()
    }

    /// The messages of a rule's findings.
    fn messages(&self, rule: &str) -> Vec<&str> {
        self.seen
            .iter()
            .filter(|s| s.rule == rule)
            .map(|s| s.message.as_str())
            .collect()
    }

    fn verdict(&self) -> Verdict {
        self.evaluation.verdict
    }
}

/// Evaluates `rules` on a plan's text the way the app and the CLI do: load, drift analysis,
/// `Input::from_document` (one resource per row), then `evaluate` with the labels.
fn run(plan_text: &str, rules: &RuleSet, labels: &[(&str, &str)]) -> Outcome {
    let doc =
        planlens::load_plan_text(plan_text.to_string(), "test.json").expect("the test plan loads");
    let drift = Drift::of(&doc);
    let input = Input::from_document(&doc, &drift);
    let labels: BTreeMap<String, String> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let evaluation = evaluate(&input, rules, &labels);
    let seen = evaluation
        .findings
        .iter()
        .map(|f| Seen {
            rule: f.rule_id.clone(),
            at: f.resource.map_or("plan".to_string(), |i| {
                input.resources[i].address.to_string()
            }),
            severity: f.severity,
            message: f.message.clone(),
        })
        .collect();
    Outcome { evaluation, seen }
}

/// A resource change as `terraform show -json` writes it; type, name, mode and module come from
/// the address.
fn change(address: &str, actions: &[&str], before: Value, after: Value) -> Value {
    let a = Address::parse(address).expect("a valid address");
    let mut c = json!({
        "address": address,
        "mode": if a.is_data { "data" } else { "managed" },
        "type": a.resource_type,
        "name": a.name,
        "provider_name": "registry.terraform.io/hashicorp/aws",
        "change": { "actions": actions, "before": before, "after": after },
    });
    let module = a.module_path();
    if !module.is_empty() {
        c["module_address"] = json!(module);
    }
    c
}

fn plan_of(changes: Vec<Value>) -> Value {
    json!({ "format_version": "1.2", "terraform_version": "1.9.5", "resource_changes": changes })
}

/// Adds root variables (`{"environment": "dev"}`) to a plan.
fn with_variables(mut plan: Value, variables: Value) -> Value {
    let Value::Object(vars) = variables else {
        panic!("variables are an object");
    };
    plan["variables"] = vars
        .into_iter()
        .map(|(k, v)| (k, json!({ "value": v })))
        .collect();
    plan
}

/// Runs the built-in pack.
fn builtin(plan: &Value, labels: &[(&str, &str)]) -> Outcome {
    run(&plan.to_string(), &RuleSet::builtin(), labels)
}

/// Parses a rule file that must be valid.
fn rules(text: &str) -> RuleSet {
    RuleSet::parse(text).unwrap_or_else(|errors| {
        let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
        panic!("the rules do not parse:\n{}", list.join("\n"))
    })
}

/// A rule file of our own, without the built-in pack.
fn own_rules(text: &str) -> RuleSet {
    rules(&format!("include_builtin = false\n{text}"))
}

/// Parses a rule file that must be invalid.
fn errors(text: &str) -> Vec<RuleError> {
    match RuleSet::parse(text) {
        Ok(_) => panic!("the rules parsed but should not:\n{text}"),
        Err(errors) => errors,
    }
}

/// The one error of an invalid file.
fn error(text: &str) -> RuleError {
    let mut all = errors(text);
    assert_eq!(all.len(), 1, "expected one error, got {all:#?}");
    all.remove(0)
}

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

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn instance(address: &str, actions: &[&str], instance_type: &str) -> Value {
    let before = json!({ "instance_type": "t3.micro", "ami": "ami-1" });
    let after = json!({ "instance_type": instance_type, "ami": "ami-1" });
    match actions {
        ["create"] => change(address, actions, Value::Null, after),
        _ => change(address, actions, before, after),
    }
}

// ---------------------------------------------------------------------------------------------
// The built-in pack, policy by policy.

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
            change(
                "aws_instance.a",
                &["delete", "create"],
                json!({}),
                json!({}),
            ),
            change(
                "aws_instance.b",
                &["create", "delete"],
                json!({}),
                json!({}),
            ),
            change(
                "aws_instance.c",
                &["create", "forget"],
                json!({}),
                json!({}),
            ),
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

fn deletes(n: usize) -> Value {
    plan_of(
        (0..n)
            .map(|i| {
                change(
                    &format!("aws_s3_bucket.b{i}"),
                    &["delete"],
                    json!({}),
                    Value::Null,
                )
            })
            .collect(),
    )
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
    let mut changes: Vec<Value> = (0..3)
        .map(|i| {
            change(
                &format!("aws_s3_bucket.b{i}"),
                &["delete"],
                json!({}),
                Value::Null,
            )
        })
        .collect();
    changes.extend((0..3).map(|i| {
        change(
            &format!("aws_instance.r{i}"),
            &["delete", "create"],
            json!({}),
            json!({}),
        )
    }));
    let out = builtin(&plan_of(changes), &[]);
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
            change("aws_vpc.main", &["update"], json!({}), json!({})),
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
        &plan_of(vec![change(
            "aws_security_group.web",
            &["create", "delete"],
            json!({}),
            json!({}),
        )]),
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

fn drifted(attribute_after: Value) -> Value {
    let before = json!({"instance_type": "t3.micro", "tags": {"Name": "web"}});
    let mut after = before.clone();
    for (k, v) in attribute_after.as_object().expect("object") {
        after[k] = v.clone();
    }
    let mut plan = plan_of(vec![change(
        "aws_instance.web",
        &["no-op"],
        after.clone(),
        after.clone(),
    )]);
    plan["resource_drift"] = json!([change("aws_instance.web", &["update"], before, after)]);
    plan
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

// ---------------------------------------------------------------------------------------------
// Operators.

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

// ---------------------------------------------------------------------------------------------
// Selectors.

/// Where a rule with these selector lines fires on a plan.
fn selects(selectors: &str, plan: &Value) -> Vec<String> {
    let set = own_rules(&format!(
        "[[rule]]\nid = \"s\"\nseverity = \"info\"\nmessage = \"{{address}}\"\n{selectors}\n"
    ));
    run(&plan.to_string(), &set, &[])
        .seen
        .into_iter()
        .map(|s| s.at)
        .collect()
}

fn module_plan() -> Value {
    plan_of(vec![
        change("aws_security_group.root", &["update"], json!({}), json!({})),
        change(
            r#"module.sg["a"].aws_security_group.this"#,
            &["update"],
            json!({}),
            json!({}),
        ),
        change(
            r#"module.sg["b"].aws_security_group.this"#,
            &["update"],
            json!({}),
            json!({}),
        ),
        change(
            r#"module.net.module.sub[0].aws_subnet.s"#,
            &["update"],
            json!({}),
            json!({}),
        ),
        change("data.aws_ami.ubuntu", &["read"], Value::Null, json!({})),
    ])
}

#[test]
fn address_globs_keep_brackets_literal() {
    let plan = module_plan();
    assert_eq!(
        selects(r#"address = 'module.sg["a"].*'"#, &plan),
        [r#"module.sg["a"].aws_security_group.this"#]
    );
    assert_eq!(
        selects(
            r#"address = 'module.sg["?"].aws_security_group.this'"#,
            &plan
        )
        .len(),
        2
    );
    assert_eq!(
        selects("address = \"aws_security_group.root\"", &plan),
        ["aws_security_group.root"]
    );
}

#[test]
fn module_globs_and_the_root_module() {
    let plan = module_plan();
    assert_eq!(
        selects("module = \"\"", &plan),
        ["aws_security_group.root", "data.aws_ami.ubuntu"]
    );
    assert_eq!(selects("module = \"module.sg*\"", &plan).len(), 2);
    assert_eq!(
        selects("module = \"module.net.*\"", &plan),
        ["module.net.module.sub[0].aws_subnet.s"]
    );
    assert_eq!(
        selects(r#"module = ['module.sg["b"]', "module.net*"]"#, &plan).len(),
        2
    );
}

#[test]
fn type_provider_and_mode_selectors() {
    let plan = module_plan();
    assert_eq!(
        selects("type = [\"aws_subnet\", \"aws_ami\"]", &plan).len(),
        2
    );
    assert_eq!(selects("type = \"aws_security_group\"", &plan).len(), 3);
    assert_eq!(selects("provider = \"hashicorp/*\"", &plan).len(), 5);
    assert!(selects("provider = \"hashicorp/azurerm\"", &plan).is_empty());
    assert_eq!(selects("mode = \"data\"", &plan), ["data.aws_ami.ubuntu"]);
    assert_eq!(selects("mode = \"managed\"", &plan).len(), 4);
}

#[test]
fn action_selectors_use_terraforms_words() {
    let mut imported = change("aws_instance.imported", &["no-op"], json!({}), json!({}));
    imported["change"]["importing"] = json!({"id": "i-1"});
    let mut moved = change("aws_instance.moved", &["update"], json!({}), json!({}));
    moved["previous_address"] = json!("aws_instance.old");
    let plan = plan_of(vec![
        change("aws_instance.created", &["create"], Value::Null, json!({})),
        change("aws_instance.deleted", &["delete"], json!({}), Value::Null),
        change(
            "aws_instance.forgotten",
            &["forget"],
            json!({}),
            Value::Null,
        ),
        imported,
        moved,
        change(
            "aws_instance.replaced",
            &["delete", "create"],
            json!({}),
            json!({}),
        ),
        change("aws_instance.same", &["no-op"], json!({}), json!({})),
        change("data.aws_ami.read", &["read"], Value::Null, json!({})),
    ]);
    let sel = |actions: &str| selects(&format!("actions = {actions}"), &plan);
    assert_eq!(
        sel("[\"create\"]"),
        ["aws_instance.created", "aws_instance.replaced"]
    );
    assert_eq!(sel("[\"update\"]"), ["aws_instance.moved"]);
    assert_eq!(
        sel("[\"delete\"]"),
        ["aws_instance.deleted", "aws_instance.replaced"]
    );
    assert_eq!(sel("[\"replace\"]"), ["aws_instance.replaced"]);
    assert_eq!(sel("[\"forget\"]"), ["aws_instance.forgotten"]);
    assert_eq!(sel("[\"read\"]"), ["data.aws_ami.read"]);
    assert_eq!(
        sel("[\"no-op\"]"),
        ["aws_instance.imported", "aws_instance.same"]
    );
    assert_eq!(sel("[\"import\"]"), ["aws_instance.imported"]);
    assert_eq!(sel("[\"move\"]"), ["aws_instance.moved"]);
    assert_eq!(sel("\"import\""), ["aws_instance.imported"]);
    assert_eq!(sel("[\"import\", \"move\"]").len(), 2);
}

#[test]
fn drift_selectors() {
    let minor = drifted(json!({"tags": {"Name": "edited"}}));
    let structural = drifted(json!({"instance_type": "t3.large"}));
    let clean = plan_of(vec![change(
        "aws_instance.web",
        &["no-op"],
        json!({}),
        json!({}),
    )]);
    assert_eq!(selects("drift = \"any\"", &minor).len(), 1);
    assert_eq!(selects("drift = \"any\"", &structural).len(), 1);
    assert!(selects("drift = \"any\"", &clean).is_empty());
    assert!(selects("drift = \"structural\"", &minor).is_empty());
    assert_eq!(selects("drift = \"none\"", &clean).len(), 1);
    assert!(selects("drift = \"none\"", &minor).is_empty());
}

// ---------------------------------------------------------------------------------------------
// Messages.

fn message(template: &str, plan: &Value, labels: &[(&str, &str)]) -> Vec<String> {
    let set = own_rules(&format!(
        "[[rule]]\nid = \"m\"\nseverity = \"info\"\nmessage = '{template}'\n"
    ));
    run(&plan.to_string(), &set, labels)
        .seen
        .into_iter()
        .map(|s| s.message)
        .collect()
}

#[test]
fn templates_fill_in_the_resource() {
    // Root module first, as the plan (and the list) orders them.
    let plan = with_variables(
        plan_of(vec![
            change(
                "aws_vpc.main",
                &["no-op"],
                json!({"cidr": "10.0.0.0/16"}),
                json!({"cidr": "10.0.0.0/16"}),
            ),
            change(
                r#"module.sg["a"].aws_security_group.this"#,
                &["create", "delete"],
                json!({"name": "old", "ports": [22]}),
                json!({"name": "new", "ports": [22, 443], "rules": {"a": 1}}),
            ),
        ]),
        json!({"environment": "dev"}),
    );
    assert_eq!(
        message(
            "{address} {type} {name} {module} {provider} {action} {drift} {drift.attributes} {var.environment}",
            &plan,
            &[],
        ),
        [
            "aws_vpc.main aws_vpc main (root) hashicorp/aws no-op (none) (none) dev",
            r#"module.sg["a"].aws_security_group.this aws_security_group this module.sg["a"] hashicorp/aws replace (none) (none) dev"#,
        ]
    );
    assert_eq!(
        message(
            "{before.name} → {after.name} {after.ports} {after.ports[1]} {after.rules}",
            &plan,
            &[]
        )[1],
        r#"old → new [22,443] 443 {"a":1}"#
    );
    assert_eq!(
        message("{after.missing} {var.nope} {{literal}}", &plan, &[])[1],
        "(unknown) (unknown) {literal}"
    );
    assert_eq!(
        message("{var.environment}", &plan, &[("environment", "qa")])[0],
        "qa"
    );
}

#[test]
fn templates_name_drift() {
    let plan = drifted(json!({"instance_type": "t3.large", "tags": {"Name": "x"}}));
    assert_eq!(
        message("{drift}: {drift.attributes}", &plan, &[]),
        ["structural: instance_type, tags.Name"]
    );
}

fn secret_plan() -> Value {
    let mut c = change(
        "aws_db_instance.main",
        &["update"],
        json!({"password": "SECRET-OLD-1", "engine": "postgres", "users": [{"name": "app", "token": "SECRET-TOKEN-2"}]}),
        json!({"password": "SECRET-NEW-3", "engine": "postgres", "users": [{"name": "app", "token": "SECRET-TOKEN-2"}]}),
    );
    c["change"]["before_sensitive"] = json!({"password": true, "users": [{"token": true}]});
    c["change"]["after_sensitive"] = json!({"password": true, "users": [{"token": true}]});
    plan_of(vec![c])
}

#[test]
fn sensitive_values_print_as_sensitive() {
    let plan = secret_plan();
    assert_eq!(
        message(
            "{after.password} {before.password} {after.users[0].token} {after.users[0].name} {after.engine}",
            &plan,
            &[]
        ),
        ["(sensitive) (sensitive) (sensitive) app postgres"]
    );
    // A container with a secret inside cannot be printed whole.
    assert_eq!(
        message("{after.users} {after.users[0]} {after}", &plan, &[]),
        ["(sensitive) (sensitive) (sensitive)"]
    );
}

#[test]
fn conditions_may_read_secrets_but_findings_never_show_them() {
    let text = "[[rule]]\nid = \"weak\"\nseverity = \"deny\"\n\
                message = \"{address} password {after.password} was {before.password} ({after.users})\"\n\
                [[rule.attribute]]\npath = \"after.password\"\nregex = '^SECRET-NEW'\n\
                [[rule.attribute]]\npath = \"before.password\"\nequals = \"SECRET-OLD-1\"\n";
    let out = run(&secret_plan().to_string(), &own_rules(text), &[]);
    assert_eq!(
        out.messages("weak"),
        ["aws_db_instance.main password (sensitive) was (sensitive) ((sensitive))"]
    );
    for s in &out.seen {
        assert!(!s.message.contains("SECRET"), "leaked: {}", s.message);
    }
}

#[test]
fn the_fixtures_secret_never_appears() {
    let text = "[[rule]]\nid = \"all\"\nseverity = \"info\"\nmessage = \"{after.password} {before} {after}\"\n";
    let out = run(&fixture("guardrails.json"), &rules(text), &[]);
    assert!(out.fired("all").contains(&"aws_db_instance.main"));
    for s in &out.seen {
        assert!(
            !s.message.contains("SECRET-DB-PASSWORD-42"),
            "leaked: {}",
            s.message
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Parse errors: where, in which rule, and what.

#[test]
fn a_syntax_error_is_one_error_with_its_position() {
    let e = error("[[rule]]\nid = \"x\"\nmessage = \"unclosed\nseverity = \"deny\"\n");
    assert_eq!((e.line, e.column), (3, 20));
    assert_eq!(e.rule_id, None);
    assert!(e.message.contains("string"), "{}", e.message);
}

#[test]
fn an_unknown_key_names_the_key_and_the_rule() {
    let e =
        error("[[rule]]\nid = \"x\"\nseverty = \"deny\"\nseverity = \"deny\"\nmessage = \"m\"\n");
    assert_eq!((e.line, e.column), (3, 1));
    assert_eq!(e.rule_id.as_deref(), Some("x"));
    assert!(
        e.message.starts_with("unknown key \"severty\""),
        "{}",
        e.message
    );
    let e = error("[[rules]]\nid = \"x\"\n");
    assert_eq!((e.line, e.column), (1, 3));
    assert!(
        e.message.starts_with("unknown key \"rules\""),
        "{}",
        e.message
    );
}

#[test]
fn an_unknown_operator_lists_the_known_ones() {
    let text = "[[rule]]\nid = \"x\"\nseverity = \"deny\"\nmessage = \"m\"\n\
                [[rule.attribute]]\npath = \"after.min_count\"\n  grater_than = 5\n";
    let e = error(text);
    assert_eq!((e.line, e.column), (7, 3));
    assert_eq!(e.rule_id.as_deref(), Some("x"));
    assert_eq!(
        e.to_string(),
        "line 7, column 3 (rule \"x\"): unknown operator \"grater_than\"; expected one of \
         equals, not_equals, in, not_in, lt, gt, le, ge, regex, exists, changed"
    );
}

#[test]
fn a_bad_regex_points_at_its_value() {
    let text = "[[rule]]\nid = \"re\"\nseverity = \"warn\"\nmessage = \"m\"\n\
                [[rule.attribute]]\npath = \"after.name\"\nregex = '(unclosed'\n";
    let e = error(text);
    assert_eq!((e.line, e.column), (7, 9));
    assert_eq!(e.rule_id.as_deref(), Some("re"));
    assert!(e.message.starts_with("invalid regex"), "{}", e.message);
}

#[test]
fn a_duplicate_id_is_reported_at_the_second() {
    let rule =
        |id: &str| format!("[[rule]]\nid = \"{id}\"\nseverity = \"info\"\nmessage = \"m\"\n");
    let text = format!(
        "include_builtin = false\n{}{}{}",
        rule("a"),
        rule("b"),
        rule("a")
    );
    let e = error(&text);
    assert_eq!((e.line, e.column), (11, 6));
    assert_eq!(e.rule_id.as_deref(), Some("a"));
    assert_eq!(e.message, "duplicate rule id \"a\" (first used on line 3)");
}

#[test]
fn a_builtin_id_cannot_be_reused_unless_the_pack_is_off() {
    let text = "[[rule]]\nid = \"minor-drift\"\nseverity = \"info\"\nmessage = \"m\"\n";
    let e = error(text);
    assert_eq!((e.line, e.column), (2, 6));
    assert!(e.message.contains("built-in pack"), "{}", e.message);
    let replaced = rules(&format!("include_builtin = false\n{text}"));
    assert_eq!(replaced.rules().len(), 1);
}

#[test]
fn a_missing_message_is_reported_at_the_rule() {
    let e = error("include_builtin = false\n\n[[rule]]\nid = \"quiet\"\nseverity = \"warn\"\n");
    assert_eq!((e.line, e.column), (3, 1));
    assert_eq!(e.rule_id.as_deref(), Some("quiet"));
    assert_eq!(e.message, "the rule has no message");
}

#[test]
fn missing_id_and_severity_are_reported() {
    let all = errors("[[rule]]\nmessage = \"m\"\n");
    assert_eq!(all.len(), 2, "{all:#?}");
    assert!(
        all.iter()
            .all(|e| (e.line, e.column) == (1, 1) && e.rule_id.is_none())
    );
    assert!(all.iter().any(|e| e.message == "the rule has no id"));
    assert!(
        all.iter()
            .any(|e| e.message.starts_with("the rule has no severity"))
    );
}

#[test]
fn an_unknown_placeholder_is_reported_where_it_is_written() {
    let text =
        "[[rule]]\nid = \"p\"\nseverity = \"warn\"\nmessage = \"Instance {adress} changed\"\n";
    let e = error(text);
    assert_eq!((e.line, e.column), (4, 21));
    assert_eq!(e.rule_id.as_deref(), Some("p"));
    assert!(
        e.message
            .starts_with("unknown placeholder {adress}; expected one of {address}"),
        "{}",
        e.message
    );
}

#[test]
fn placeholders_must_fit_the_kind_of_rule() {
    let e = error(
        "[[rule]]\nid = \"agg\"\nseverity = \"deny\"\nmessage = \"{count}: {address}\"\ncount = { gt = 1 }\n",
    );
    assert_eq!((e.line, e.column), (4, 21));
    assert!(e.message.contains("counts resources"), "{}", e.message);
    let e = error("[[rule]]\nid = \"one\"\nseverity = \"deny\"\nmessage = \"{count}\"\n");
    assert_eq!((e.line, e.column), (4, 12));
    let e = error("[[rule]]\nid = \"p\"\nseverity = \"deny\"\nmessage = \"{after.tags[x]}\"\n");
    assert_eq!((e.line, e.column), (4, 12));
}

#[test]
fn two_operators_in_one_condition_are_an_error() {
    let text = "[[rule]]\nid = \"two\"\nseverity = \"deny\"\nmessage = \"m\"\n\
                [[rule.attribute]]\npath = \"after.x\"\nequals = 1\nregex = 'a'\n";
    let e = error(text);
    assert_eq!((e.line, e.column), (8, 1));
    assert_eq!(e.rule_id.as_deref(), Some("two"));
    assert!(e.message.contains("exactly one operator"), "{}", e.message);
}

#[test]
fn a_condition_without_operator_or_path_is_an_error() {
    let text = "[[rule]]\nid = \"none\"\nseverity = \"deny\"\nmessage = \"m\"\n\
                [[rule.attribute]]\npath = \"after.x\"\n[[rule.variable]]\nequals = \"prod\"\n";
    let all = errors(text);
    assert_eq!(all.len(), 2, "{all:#?}");
    assert_eq!((all[0].line, all[0].column), (5, 1));
    assert!(all[0].message.contains("no operator"), "{}", all[0].message);
    assert_eq!((all[1].line, all[1].column), (7, 1));
    assert!(all[1].message.contains("has no name"), "{}", all[1].message);
}

#[test]
fn unknown_values_are_reported_at_the_value() {
    let text = "[[rule]]\nid = \"v\"\nseverity = \"block\"\nmessage = \"m\"\n\
                actions = [\"create\", \"destroy\"]\nmode = \"resource\"\ndrift = \"major\"\n";
    let all = errors(text);
    let got: Vec<(usize, usize, &str)> = all
        .iter()
        .map(|e| (e.line, e.column, e.message.split(';').next().unwrap_or("")))
        .collect();
    assert_eq!(
        got,
        [
            (3, 12, "unknown severity \"block\""),
            (5, 22, "unknown action \"destroy\""),
            (6, 8, "unknown mode \"resource\""),
            (7, 9, "unknown drift \"major\""),
        ]
    );
    assert!(all.iter().all(|e| e.rule_id.as_deref() == Some("v")));
}

#[test]
fn operands_of_the_wrong_type_are_errors() {
    let cond = |c: &str| {
        error(&format!(
            "[[rule]]\nid = \"t\"\nseverity = \"deny\"\nmessage = \"m\"\n[[rule.attribute]]\n{c}\n"
        ))
    };
    let e = cond("path = \"after.min_count\"\nlt = \"3\"");
    assert_eq!((e.line, e.column), (7, 6));
    assert!(e.message.contains("needs a number"), "{}", e.message);
    assert!(
        cond("path = \"after.x\"\nin = \"a\"")
            .message
            .contains("array")
    );
    assert!(
        cond("path = \"after.x\"\nexists = 1")
            .message
            .contains("true or false")
    );
    let e = cond("path = \"tags.x\"\nequals = 1");
    assert_eq!((e.line, e.column), (6, 9));
    assert!(
        e.message
            .contains("must start with \"before.\" or \"after.\""),
        "{}",
        e.message
    );
    let e = cond("path = \"after.tags\"\nchanged = true");
    assert!(
        e.message.contains("without \"before.\"/\"after.\""),
        "{}",
        e.message
    );
    let e = cond("path = \"after.a..b\"\nexists = true");
    assert_eq!((e.line, e.column), (6, 17));
    let e =
        error("[[rule]]\nid = \"c\"\nseverity = \"deny\"\nmessage = \"m\"\ncount = { more = 5 }\n");
    assert_eq!((e.line, e.column), (5, 11));
    assert!(
        e.message.starts_with("unknown operator \"more\" in count"),
        "{}",
        e.message
    );
    let e = error(
        "[[rule]]\nid = \"v\"\nseverity = \"deny\"\nmessage = \"m\"\n[[rule.variable]]\nname = \"env\"\nchanged = true\n",
    );
    assert!(
        e.message.starts_with("changed only applies"),
        "{}",
        e.message
    );
}

#[test]
fn every_problem_is_reported_at_once_in_file_order() {
    let text = "include_builtin = false\n\
                [[rule]]\nid = \"a\"\nseverity = \"fatal\"\nmessage = \"{bad}\"\n\
                [[rule]]\nid = \"b c\"\nseverity = \"warn\"\nmessage = \"m\"\ncolour = \"red\"\n";
    let all = errors(text);
    let got: Vec<(usize, Option<&str>)> =
        all.iter().map(|e| (e.line, e.rule_id.as_deref())).collect();
    assert_eq!(
        got,
        [
            (4, Some("a")),
            (5, Some("a")),
            (7, Some("b c")),
            (10, Some("b c"))
        ]
    );
}

#[test]
fn include_builtin_inside_a_rule_is_explained() {
    let e = error(
        "[[rule]]\nid = \"x\"\nseverity = \"info\"\nmessage = \"m\"\ninclude_builtin = false\n",
    );
    assert_eq!((e.line, e.column), (5, 1));
    assert!(
        e.message.contains("before the first [[rule]]"),
        "{}",
        e.message
    );
}

// ---------------------------------------------------------------------------------------------
// Verdict and the order of findings.

fn three_severities() -> RuleSet {
    own_rules(
        "[[rule]]\nid = \"i\"\nseverity = \"info\"\nmessage = \"i {address}\"\ntype = \"aws_instance\"\n\
         [[rule]]\nid = \"w\"\nseverity = \"warn\"\nmessage = \"w {address}\"\ntype = \"aws_vpc\"\n\
         [[rule]]\nid = \"d\"\nseverity = \"deny\"\nmessage = \"d {address}\"\ntype = \"aws_subnet\"\n\
         [[rule]]\nid = \"i2\"\nseverity = \"info\"\nmessage = \"{count}\"\ncount = { ge = 0 }\n",
    )
}

#[test]
fn the_verdict_is_the_worst_finding() {
    let set = three_severities();
    let verdict = |types: &[&str]| {
        let plan = plan_of(
            types
                .iter()
                .map(|t| change(&format!("{t}.x"), &["update"], json!({}), json!({})))
                .collect(),
        );
        run(&plan.to_string(), &set, &[]).verdict()
    };
    assert_eq!(verdict(&[]), Verdict::Pass);
    assert_eq!(verdict(&["aws_instance"]), Verdict::Pass);
    assert_eq!(verdict(&["aws_instance", "aws_vpc"]), Verdict::Warn);
    assert_eq!(verdict(&["aws_vpc", "aws_subnet"]), Verdict::NeedsApproval);
    assert_eq!(Verdict::NeedsApproval.key(), "needs-approval");
    assert_eq!(Verdict::NeedsApproval.label(), "needs approval");
    assert_eq!(Verdict::Warn.key(), "warn");
    assert_eq!(Verdict::Pass.label(), "pass");
}

#[test]
fn findings_come_plan_level_then_deny_warn_info_then_rule_then_resource_order() {
    let plan = plan_of(vec![
        change("aws_instance.a", &["update"], json!({}), json!({})),
        change("aws_subnet.a", &["update"], json!({}), json!({})),
        change("aws_vpc.a", &["update"], json!({}), json!({})),
        change("aws_subnet.b", &["update"], json!({}), json!({})),
        change("aws_instance.b", &["update"], json!({}), json!({})),
    ]);
    let out = run(&plan.to_string(), &three_severities(), &[]);
    let messages: Vec<&str> = out.seen.iter().map(|s| s.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "5",
            "d aws_subnet.a",
            "d aws_subnet.b",
            "w aws_vpc.a",
            "i aws_instance.a",
            "i aws_instance.b",
        ]
    );
    let ev = &out.evaluation;
    assert_eq!(ev.rules_run, 4);
    assert_eq!(
        (
            ev.count(RuleSeverity::Deny),
            ev.count(RuleSeverity::Warn),
            ev.count(RuleSeverity::Info)
        ),
        (2, 1, 3)
    );
    let for_first: Vec<&str> = ev.for_resource(0).map(|f| f.rule_id.as_str()).collect();
    assert_eq!(for_first, ["i"]);
    assert_eq!(
        ev.for_plan()
            .map(|f| f.rule_id.as_str())
            .collect::<Vec<_>>(),
        ["i2"]
    );
    assert_eq!(
        ev.worst_by_resource(6),
        [
            Some(RuleSeverity::Info),
            Some(RuleSeverity::Deny),
            Some(RuleSeverity::Warn),
            Some(RuleSeverity::Deny),
            Some(RuleSeverity::Info),
            None,
        ]
    );
}

#[test]
fn an_empty_rule_set_passes_everything() {
    let set = rules("include_builtin = false\n");
    assert!(set.rules().is_empty());
    let out = run(&deletes(10).to_string(), &set, &[]);
    assert!(out.seen.is_empty());
    assert_eq!(out.verdict(), Verdict::Pass);
    assert_eq!(out.evaluation.rules_run, 0);
}

// ---------------------------------------------------------------------------------------------
// Planning status: a failed or incomplete plan is never "pass".

/// Loads text and evaluates the built-in pack the way the app and the CLI do.
fn judged(text: &str, name: &str) -> (Document, Evaluation) {
    let doc =
        planlens::load_plan_text(text.to_string(), name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let evaluation = Analysis::of(&doc).evaluate(&doc, &RuleSet::builtin(), &BTreeMap::new());
    (doc, evaluation)
}

fn own(name: &str) -> String {
    String::from_utf8(common::own_fixture(name)).unwrap()
}

#[test]
fn an_error_only_plan_log_is_a_failed_plan_not_a_pass() {
    let (doc, ev) = judged(
        &own("plan_log_error_only.jsonl"),
        "plan_log_error_only.jsonl",
    );
    assert_eq!(
        Planning::of(&doc),
        Planning::Failed {
            error: Some("Reference to undeclared resource".to_string()),
            errors: 1
        }
    );
    assert_eq!(ev.verdict, Verdict::PlanningFailed);
    assert_eq!(ev.verdict.key(), "planning-failed");
    assert_eq!(ev.verdict.exit_code(), 4);
    let headline = Summary::of(&doc).headline(&doc);
    assert_eq!(
        headline,
        "Planning failed: Reference to undeclared resource."
    );
    assert!(!headline.contains("No changes"));
    // The log is a real plan log: no question whether it was made by `terraform plan -json`,
    // and the error is shown as a diagnostic, not repeated as a load warning.
    assert_eq!(doc.warnings, Vec::<String>::new());
}

#[test]
fn a_plan_log_diagnostic_keeps_detail_place_and_snippet() {
    let doc = common::load_own("plan_log_error_only.jsonl");
    let Source::PlanLog(facts) = &doc.source else {
        panic!("not read as a plan log");
    };
    assert_eq!(facts.terraform_version.as_deref(), Some("1.9.5"));
    assert_eq!(facts.diagnostics.len(), 1);
    let d = &facts.diagnostics[0];
    assert!(d.is_error());
    assert_eq!(d.summary, "Reference to undeclared resource");
    assert_eq!(
        d.detail,
        "A managed resource \"aws_vpc\" \"mian\" has not been declared in the root module."
    );
    assert_eq!(d.location.as_deref(), Some("network.tf:12"));
    let range = d.range.as_ref().expect("a range");
    assert_eq!(range.filename, "network.tf");
    assert_eq!(
        (range.start.line, range.start.column, range.start.byte),
        (12, 16, 215)
    );
    assert_eq!(
        (range.end.line, range.end.column, range.end.byte),
        (12, 28, 227)
    );
    let snippet = d.snippet.as_ref().expect("a snippet");
    assert_eq!(
        snippet.context.as_deref(),
        Some("resource \"aws_subnet\" \"private\"")
    );
    assert_eq!(snippet.code, "  vpc_id     = aws_vpc.mian.id");
    assert_eq!(snippet.start_line, 12);
    assert_eq!(
        (snippet.highlight_start_offset, snippet.highlight_end_offset),
        (15, 27)
    );
    let lines = snippet.lines();
    assert_eq!(lines.len(), 1);
    assert_eq!(
        (
            lines[0].number,
            lines[0].before,
            lines[0].highlight,
            lines[0].after
        ),
        (12, "  vpc_id     = ", "aws_vpc.mian", ".id")
    );
    assert_eq!(
        d.to_text(),
        "Error: Reference to undeclared resource\n\
         \x20 on network.tf line 12, in resource \"aws_subnet\" \"private\":\n\
         \x20 12:   vpc_id     = aws_vpc.mian.id\n\
         \x20                    ^^^^^^^^^^^^\n\
         \n\
         A managed resource \"aws_vpc\" \"mian\" has not been declared in the root module.\n"
    );
}

#[test]
fn an_errored_show_json_plan_fails_whatever_its_partial_findings() {
    let (doc, ev) = judged(&own("plan_errored.json"), "plan_errored.json");
    assert_eq!(
        Planning::of(&doc),
        Planning::Failed {
            error: None,
            errors: 0
        }
    );
    // The partial plan deletes a resource: the finding is listed, the verdict is the failure.
    assert_eq!(ev.count(RuleSeverity::Deny), 1);
    assert_eq!(ev.verdict, Verdict::PlanningFailed);
    assert!(
        Summary::of(&doc)
            .headline(&doc)
            .starts_with("Planning failed: Terraform marked this plan as errored")
    );
}

#[test]
fn an_incomplete_plan_is_never_a_pass_but_a_deny_still_needs_approval() {
    let (doc, ev) = judged(&own("deferred.json"), "deferred.json");
    assert_eq!(Planning::of(&doc), Planning::Incomplete { deferred: 3 });
    assert_eq!(ev.verdict, Verdict::Incomplete);
    assert_eq!(ev.verdict.exit_code(), 1);
    assert_eq!(
        ev.planning.sentence().as_deref(),
        Some(
            "Plan incomplete: 3 changes were deferred to a later plan; plan again after applying this one."
        )
    );
    // The counts are true for what was planned: the sentence stays Terraform's.
    assert_eq!(
        Summary::of(&doc).headline(&doc),
        "Plan: 1 to add, 0 to change, 0 to destroy."
    );
    let mut plan = deletes(1);
    plan["complete"] = json!(false);
    let (_, ev) = judged(&plan.to_string(), "targeted.json");
    assert_eq!(ev.verdict, Verdict::NeedsApproval);
    assert_eq!(
        ev.planning,
        Planning::Incomplete { deferred: 0 },
        "a -target plan says nothing was deferred"
    );
}

#[test]
fn a_plan_with_nothing_to_do_is_not_applyable_and_still_passes() {
    // Terraform 1.8+ writes `applyable: false` for a plan without changes.
    let mut plan = plan_of(vec![change(
        "aws_s3_bucket.b",
        &["no-op"],
        json!({}),
        json!({}),
    )]);
    plan["applyable"] = json!(false);
    plan["complete"] = json!(true);
    plan["errored"] = json!(false);
    let (doc, ev) = judged(&plan.to_string(), "nothing.json");
    assert_eq!(Planning::of(&doc), Planning::Complete);
    assert_eq!(ev.verdict, Verdict::Pass);
    assert_eq!(Summary::of(&doc).headline(&doc), "No changes.");
}

#[test]
fn the_verdict_follows_terraforms_planning_status_on_every_real_plan() {
    let Some(dir) = common::real_fixtures_dir() else {
        return;
    };
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    let mut plans = 0;
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let (doc, ev) = judged(&text, &name);
        let raw: Value = serde_json::from_str(&text).unwrap();
        let failed = raw["errored"] == json!(true);
        let incomplete = raw["complete"] == json!(false);
        if failed || incomplete {
            assert_ne!(ev.verdict, Verdict::Pass, "{name}");
        }
        assert_eq!(ev.planning.failed(), failed, "{name}");
        if !matches!(doc.source, Source::Plan) {
            continue;
        }
        plans += 1;
        // The same plan, had planning failed or stopped short, is never a pass either.
        let mut errored = raw.clone();
        errored["errored"] = json!(true);
        let (doc, ev) = judged(&errored.to_string(), &name);
        assert_eq!(ev.verdict, Verdict::PlanningFailed, "{name}");
        let headline = Summary::of(&doc).headline(&doc);
        assert!(
            headline.starts_with("Planning failed"),
            "{name}: {headline}"
        );
        let mut partial = raw.clone();
        partial["complete"] = json!(false);
        partial["errored"] = json!(false);
        let (_, ev) = judged(&partial.to_string(), &name);
        assert!(
            matches!(ev.verdict, Verdict::Incomplete | Verdict::NeedsApproval),
            "{name}: {:?}",
            ev.verdict
        );
    }
    assert!(plans >= 30, "only {plans} real plans");
}

#[test]
fn a_redacted_link_of_a_failed_plan_still_says_planning_failed() {
    for name in ["plan_log_error_only.jsonl", "plan_errored.json"] {
        let (doc, ev) = judged(&own(name), name);
        let text = planlens::share::redacted::write(
            &doc,
            &Analysis::of(&doc),
            &RuleSet::builtin(),
            &BTreeMap::new(),
        );
        let (back, back_ev) = judged(&text, name);
        assert!(back.redacted.is_some(), "{name}");
        assert_eq!(back_ev.verdict, Verdict::PlanningFailed, "{name}");
        assert_eq!(back_ev.planning, ev.planning, "{name}");
        assert_eq!(
            Summary::of(&back).headline(&back),
            Summary::of(&doc).headline(&doc),
            "{name}"
        );
        // A link made before the planning status travelled (verdict "pass", no `planning`) is
        // judged again from the plan it carries.
        let mut old: Value = serde_json::from_str(&text).unwrap();
        old["evaluation"]
            .as_object_mut()
            .unwrap()
            .remove("planning");
        old["evaluation"]["verdict"] = json!("pass");
        let (_, old_ev) = judged(&old.to_string(), name);
        assert_eq!(old_ev.verdict, Verdict::PlanningFailed, "{name}");
    }
    // The redacted form keeps what went wrong and where, not the configuration it quotes.
    let (doc, _) = judged(&own("plan_log_error_only.jsonl"), "log");
    let text = planlens::share::redacted::write(
        &doc,
        &Analysis::of(&doc),
        &RuleSet::builtin(),
        &BTreeMap::new(),
    );
    assert!(!text.contains("vpc_id"), "{text}");
    let (back, _) = judged(&text, "log");
    let Source::PlanLog(facts) = &back.source else {
        panic!("the redacted link lost its source");
    };
    assert_eq!(
        facts.diagnostics[0].summary,
        "Reference to undeclared resource"
    );
    assert_eq!(
        facts.diagnostics[0].location.as_deref(),
        Some("network.tf:12")
    );
    assert!(facts.diagnostics[0].snippet.is_none());
}

#[test]
fn the_verdict_is_decided_in_one_place() {
    let finding = |severity| planlens::rules::Finding {
        rule_id: "r".to_string(),
        severity,
        message: String::new(),
        resource: Some(0),
    };
    let failed = Planning::Failed {
        error: None,
        errors: 0,
    };
    let incomplete = Planning::Incomplete { deferred: 2 };
    let complete = Planning::Complete;
    let deny = [finding(RuleSeverity::Deny)];
    let warn = [finding(RuleSeverity::Warn)];
    let info = [finding(RuleSeverity::Info)];
    let cases = [
        (&failed, &deny[..], Verdict::PlanningFailed),
        (&failed, &[][..], Verdict::PlanningFailed),
        (&incomplete, &deny[..], Verdict::NeedsApproval),
        (&incomplete, &warn[..], Verdict::Incomplete),
        (&incomplete, &[][..], Verdict::Incomplete),
        (&complete, &deny[..], Verdict::NeedsApproval),
        (&complete, &warn[..], Verdict::Warn),
        (&complete, &info[..], Verdict::Pass),
        (&complete, &[][..], Verdict::Pass),
    ];
    for (planning, findings, want) in cases {
        assert_eq!(
            Verdict::of(planning, findings),
            want,
            "{planning:?} {findings:?}"
        );
    }
    let codes: Vec<u8> = [
        Verdict::Pass,
        Verdict::Warn,
        Verdict::Incomplete,
        Verdict::NeedsApproval,
        Verdict::PlanningFailed,
    ]
    .iter()
    .map(|v| v.exit_code())
    .collect();
    assert_eq!(codes, [0, 1, 1, 2, 4]);
}

// ---------------------------------------------------------------------------------------------
// Findings at scale: plan-level first, grouped by rule, one set of counts.

#[test]
fn the_plan_level_finding_comes_first_among_many() {
    let out = builtin(&deletes(40), &[]);
    assert_eq!(out.seen[0].rule, "too-many-destroys");
    assert_eq!(out.seen[0].at, "plan");
    assert_eq!(out.seen[0].message, "More than 5 destroys in one plan (40)");
    assert!(out.seen[1..].iter().all(|s| s.at != "plan"));
}

#[test]
fn counts_come_from_one_tally_and_groups_add_up() {
    let mut plan = deletes(8);
    let changes = plan["resource_changes"].as_array_mut().unwrap();
    changes.push(change(
        "aws_security_group.web",
        &["update"],
        json!({ "name": "a" }),
        json!({ "name": "b" }),
    ));
    let out = builtin(&plan, &[]);
    let ev = &out.evaluation;
    let tally = ev.tally();
    assert_eq!(
        (tally.deny, tally.warn, tally.info, tally.plan_level),
        (9, 1, 0, 1)
    );
    assert_eq!(tally.total(), ev.findings.len());
    assert_eq!(tally.severities(), "9 deny, 1 warn, 0 info");
    assert_eq!(tally.findings(), "10 findings");
    assert_eq!(tally.rules(), "7 rules");

    let groups = ev.groups(|_| true);
    let shape: Vec<(&str, RuleSeverity, bool, usize)> = groups
        .iter()
        .map(|g| (g.rule_id, g.severity, g.plan_level, g.findings.len()))
        .collect();
    assert_eq!(
        shape,
        [
            ("too-many-destroys", RuleSeverity::Deny, true, 1),
            ("destroy-needs-approval", RuleSeverity::Deny, false, 8),
            ("security-group-changed", RuleSeverity::Warn, false, 1),
        ]
    );
    assert_eq!(
        groups.iter().map(|g| g.findings.len()).sum::<usize>(),
        tally.total()
    );
    // A filter keeps the grouping and drops emptied groups.
    let warns = ev.groups(|f| f.severity == RuleSeverity::Warn);
    assert_eq!(warns.len(), 1);
    assert_eq!(warns[0].rule_id, "security-group-changed");
}

#[test]
fn counts_read_in_the_singular_for_one() {
    assert_eq!(count(1, "dependency", "dependencies"), "1 dependency");
    assert_eq!(count(0, "dependency", "dependencies"), "0 dependencies");
    assert_eq!(
        count(2, "check failing", "checks failing"),
        "2 checks failing"
    );
    let one = rules(
        "include_builtin = false\n[[rule]]\nid = \"x\"\nseverity = \"warn\"\nmessage = \"m\"\n",
    );
    let out = run(&deletes(1).to_string(), &one, &[]);
    let tally = out.evaluation.tally();
    assert_eq!(
        (tally.findings(), tally.rules()),
        ("1 finding".to_string(), "1 rule".to_string())
    );
}
