//! Message templates, with sensitive values masked.

use super::*;

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
