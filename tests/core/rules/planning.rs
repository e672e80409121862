//! Planning status: a failed or incomplete plan is never "pass".

use super::*;

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
    let mut plan = plan_of(vec![bare("aws_s3_bucket.b", &["no-op"])]);
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
    if common::real_fixtures_dir().is_none() {
        return;
    }
    let mut plans = 0;
    for f in common::fixtures_of(&common::INPUT_KINDS)
        .iter()
        .filter(|f| f.is_real())
    {
        let name = f.name().to_string();
        let text = String::from_utf8(f.bytes()).unwrap();
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
