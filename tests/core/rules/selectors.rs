//! Selectors: address, module, type, provider, mode, actions, drift.

use super::*;

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
        bare("aws_security_group.root", &["update"]),
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
        bare(r#"module.net.module.sub[0].aws_subnet.s"#, &["update"]),
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
    let mut imported = bare("aws_instance.imported", &["no-op"]);
    imported["change"]["importing"] = json!({"id": "i-1"});
    let mut moved = bare("aws_instance.moved", &["update"]);
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
        bare("aws_instance.replaced", &["delete", "create"]),
        bare("aws_instance.same", &["no-op"]),
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
    let clean = plan_of(vec![bare("aws_instance.web", &["no-op"])]);
    assert_eq!(selects("drift = \"any\"", &minor).len(), 1);
    assert_eq!(selects("drift = \"any\"", &structural).len(), 1);
    assert!(selects("drift = \"any\"", &clean).is_empty());
    assert!(selects("drift = \"structural\"", &minor).is_empty());
    assert_eq!(selects("drift = \"none\"", &clean).len(), 1);
    assert!(selects("drift = \"none\"", &minor).is_empty());
}
