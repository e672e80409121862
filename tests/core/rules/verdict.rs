//! The verdict and the order of findings; findings at scale: plan-level first, grouped by rule,
//! one set of counts.

use super::*;

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
                .map(|t| bare(&format!("{t}.x"), &["update"]))
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
        bare("aws_instance.a", &["update"]),
        bare("aws_subnet.a", &["update"]),
        bare("aws_vpc.a", &["update"]),
        bare("aws_subnet.b", &["update"]),
        bare("aws_instance.b", &["update"]),
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
