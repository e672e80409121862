//! Judging a text plan: rules honest about values the text hides, a text whose changes do not add
//! up or that holds several plans never passes, and the CLI, the worker's index, links and the PR
//! comment carry what was read from text.

use super::*;

#[test]
fn rules_that_read_values_the_text_hides_say_so_instead_of_passing() {
    use planlens::model::findings::{RuleSeverity, Verdict};
    // The bucket's update shows only its tags, but a bucket can never have an instance type: the
    // rule, which names the types it reads, says nothing about it (it warned "Not checked").
    let doc = own("ci_log_github_actions.txt");
    let ev = evaluate(&doc);
    assert!(ev.findings.is_empty(), "{:?}", ev.findings);
    assert_eq!(ev.verdict, Verdict::Pass);
    // An instance's update that hides its type is not checked, and says so; a null_resource's
    // beside it is not counted.
    let doc = own("instance_type_hidden.txt");
    let ev = evaluate(&doc);
    let unchecked: Vec<_> = ev
        .findings
        .iter()
        .filter(|f| f.message.starts_with("Not checked on"))
        .collect();
    assert_eq!(unchecked.len(), 1, "{:?}", ev.findings);
    assert_eq!(unchecked[0].rule_id, "large-instance-outside-prod");
    assert_eq!(unchecked[0].severity, RuleSeverity::Warn);
    assert_eq!(unchecked[0].resource, None);
    assert!(
        unchecked[0].message.contains("1 resource:"),
        "{}",
        unchecked[0].message
    );
    assert_eq!(ev.verdict, Verdict::Warn);
    // Where the text shows the value, the rule decides: a large create is denied, a small
    // update shown in full is not "not checked", and a create's values are whole.
    let doc = own("opentofu_drift.txt");
    let ev = evaluate(&doc);
    let rows: Vec<String> = ev
        .findings
        .iter()
        .filter(|f| f.rule_id == "large-instance-outside-prod")
        .map(|f| match f.resource {
            Some(i) => doc.change(&doc.rows[i]).address.to_string(),
            None => f.message.clone(),
        })
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.contains(&"aws_instance.web[0]".to_string()));
    assert!(
        rows.iter()
            .any(|r| r.starts_with("Not checked on 1 resource:")),
        "{rows:?}"
    );
    let doc = own("atlantis_comment.md");
    assert_eq!(
        evaluate(&doc).verdict,
        Verdict::Pass,
        "{:?}",
        evaluate(&doc).findings
    );
    // Rules on actions and addresses run as on a plan.
    let doc = own("tfcmt_comment.md");
    let ev = evaluate(&doc);
    assert!(
        ev.findings
            .iter()
            .any(|f| f.rule_id == "destroy-needs-approval"
                && f.message == "Destroy needs approval: aws_sqs_queue.old")
    );
    assert_eq!(ev.verdict, Verdict::NeedsApproval);
}

#[test]
fn the_cli_summarises_and_checks_a_text_plan() {
    let log = "tests/fixtures/text_plans/ci_log_github_actions.txt";
    let (code, out, err) = planlens(&["summary", log]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("Plan: 1 to add, 1 to change, 0 to destroy."),
        "{out}"
    );
    assert!(err.contains("Read from a human-readable plan"), "{err}");
    // Needs approval: the destroy.
    let (code, out, _) = planlens_line("check tests/fixtures/text_plans/tfcmt_comment.md");
    assert_eq!(code, 2, "{out}");
    // Pass: nothing the text shows breaks a rule, and no rule reads what a bucket cannot have.
    let (code, out, _) = planlens(&["check", log]);
    assert_eq!(code, 0, "{out}");
    // Warn: the instance's type is hidden by the text.
    let (code, out, _) = planlens_line("check tests/fixtures/text_plans/instance_type_hidden.txt");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("Not checked on 1 resource"));
}

#[test]
fn the_session_index_carries_the_text_plan_facts() {
    // The page reads the worker's index: the source and its facts must survive it.
    let bytes = std::fs::read(dir().join("opentofu_drift.txt")).unwrap();
    let options = planlens::session::OpenOptions {
        name: "opentofu_drift.txt".to_string(),
        mask_builtin: true,
        mask_user: Vec::new(),
        rules: None,
        labels: BTreeMap::new(),
    };
    let session = planlens::session::Session::open_bytes(bytes, &options, &Direct).unwrap();
    let index = session.index(None, &BTreeMap::new());
    let index: planlens::session::Index =
        serde_json::from_str(&serde_json::to_string(&index).unwrap()).unwrap();
    let page = index.document().unwrap();
    let Source::TextPlan(f) = &page.source else {
        panic!("the index lost the source: {}", page.source.kind())
    };
    assert_eq!(f.tool.as_deref(), Some("OpenTofu"));
    assert!(f.hidden > 0);
}

#[test]
fn a_full_link_of_a_text_plan_carries_no_secret_and_opens_as_a_text_plan_again() {
    let text = "Terraform will perform the following actions:\n\n  \
                # aws_db_instance.main will be created\n  \
                + resource \"aws_db_instance\" \"main\" {\n      \
                + engine   = \"postgres\"\n      \
                + password = \"hunter2-from-the-text\"\n    \
                }\n\nPlan: 1 to add, 0 to change, 0 to destroy.\n";
    let doc = planlens::load::load_plan_text(text.to_string(), "pasted").unwrap();
    assert!(matches!(doc.source, Source::TextPlan(_)));
    // Masked by name like any plan's value.
    let c = change(&doc, "aws_db_instance.main");
    assert_eq!(json(c.change.after_sensitive)["password"], true);
    let shared = planlens::share::strip::shareable_text(&doc);
    assert!(!shared.contains("hunter2"), "{shared}");
    assert!(shared.contains("postgres"));
    let again = planlens::load::load_plan_text(shared, "link").unwrap();
    let Source::TextPlan(f) = &again.source else {
        panic!("reopened as {}", again.source.kind())
    };
    assert_eq!(f, facts(&doc));
    assert_eq!(actions(&again), actions(&doc));
}

#[test]
fn the_pr_comment_says_the_plan_was_read_from_text() {
    let doc = own("ci_log_github_actions.txt");
    let analysis = planlens::analysis::Analysis::of(&doc);
    let ev = evaluate(&doc);
    let comment = planlens::share::markdown::summary(&doc, &analysis, &ev, None);
    assert!(
        comment.contains("Read from a human-readable plan"),
        "{comment}"
    );
    let doc = own("tf_controller_drift_message_cut.txt");
    let analysis = planlens::analysis::Analysis::of(&doc);
    let comment = planlens::share::markdown::summary(&doc, &analysis, &evaluate(&doc), None);
    assert!(comment.contains("The text was cut"), "{comment}");
}

#[test]
fn a_text_whose_changes_do_not_add_up_to_its_plan_line_never_passes() {
    // One resource's block is missing (a CI step filtered it out): the text's own `Plan:` line
    // says 2 to add, so the plan is judged incomplete, and its headline gives both counts.
    let doc = own("plan_line_disagrees.txt");
    let planning = planlens::model::summary::Planning::of(&doc);
    assert_eq!(planning, planlens::model::summary::Planning::TextShort);
    let headline = planlens::Summary::of(&doc).headline(&doc);
    assert_eq!(
        headline,
        "The text's `Plan:` line says 2 to add, 0 to change, 0 to destroy; the changes read from \
         it: Plan: 1 to add, 0 to change, 0 to destroy."
    );
    assert_eq!(
        evaluate(&doc).verdict,
        planlens::model::findings::Verdict::Incomplete
    );
    // A text whose changes add up stays a complete plan.
    let whole = own("terraform_0_12.txt");
    assert_eq!(
        planlens::model::summary::Planning::of(&whole),
        planlens::model::summary::Planning::Complete
    );
}

#[test]
fn an_atlantis_comment_with_several_projects_is_never_judged_as_one_plan() {
    // Two workspaces of one directory plan the same address: read as one plan, one of the two
    // changes is lost, so the plan is judged incomplete and says which projects it holds.
    let doc = own("atlantis_two_projects.md");
    let planning = planlens::model::summary::Planning::of(&doc);
    let projects = vec![
        "dir: `envs` workspace: `staging`".to_string(),
        "dir: `envs` workspace: `production`".to_string(),
    ];
    assert_eq!(
        planning,
        planlens::model::summary::Planning::Several {
            plans: 2,
            projects: projects.clone()
        }
    );
    assert!(planning.is_incomplete());
    let sentence = planning.sentence().unwrap();
    assert!(
        sentence.starts_with("Plan incomplete: this Atlantis comment holds the plans of 2 projects (dir: `envs` workspace: `staging`; dir: `envs` workspace: `production`)"),
        "{sentence}"
    );
    let headline = planlens::Summary::of(&doc).headline(&doc);
    assert!(
        headline
            .ends_with("Read from 2 plans of one Atlantis comment as one: open each on its own."),
        "{headline}"
    );
    // Its destroy still needs approval; without it, the comment would be incomplete, not a pass.
    assert_eq!(
        evaluate(&doc).verdict,
        planlens::model::findings::Verdict::NeedsApproval
    );
    // A comment of one project stays a complete plan.
    let one = own("atlantis_comment.md");
    assert_eq!(
        planlens::model::summary::Planning::of(&one),
        planlens::model::summary::Planning::Complete
    );
}

#[test]
fn a_text_of_several_plans_is_never_judged_as_one() {
    // A terragrunt run-all of two modules: each plans `aws_s3_bucket.this` (one creates it, one
    // destroys it). Read as one plan, only one of the two shows: judged incomplete, saying so.
    let doc = own("terragrunt_run_all.txt");
    let planning = planlens::model::summary::Planning::of(&doc);
    assert_eq!(
        planning,
        planlens::model::summary::Planning::Several {
            plans: 2,
            projects: Vec::new()
        }
    );
    assert!(
        planning
            .sentence()
            .unwrap()
            .starts_with("Plan incomplete: this text holds 2 plans"),
        "{planning:?}"
    );
    assert!(
        planlens::Summary::of(&doc)
            .headline(&doc)
            .ends_with("Read from 2 plans as one: open each on its own.")
    );
    assert_ne!(
        evaluate(&doc).verdict,
        planlens::model::findings::Verdict::Pass
    );
    // No warning compares the last of its `Plan:` lines with the changes of all the plans: two
    // plans of one create each read as 2 to add, against the last line's 1.
    let one = |address: &str| {
        format!(
            "Terraform will perform the following actions:\n\n  # {address} will be created\n  \
             + resource \"null_resource\" \"x\" {{\n      + id = (known after apply)\n    }}\n\n\
             Plan: 1 to add, 0 to change, 0 to destroy.\n\n"
        )
    };
    let text = one("null_resource.a") + &one("null_resource.b");
    let two = planlens::load::load_plan_text(text, "run-all.txt").unwrap();
    assert_eq!(
        planlens::model::summary::Planning::of(&two),
        planlens::model::summary::Planning::Several {
            plans: 2,
            projects: Vec::new()
        }
    );
    assert!(
        !two.warnings.iter().any(|w| w.contains("`Plan:` line says")),
        "{:?}",
        two.warnings
    );
    // A PR comment that repeats its plan's `Plan:` line before the plan (tfcmt) holds one plan.
    let tfcmt = own("tfcmt_comment.md");
    assert_eq!(
        planlens::model::summary::Planning::of(&tfcmt),
        planlens::model::summary::Planning::Complete
    );
    let Source::TextPlan(facts) = &tfcmt.source else {
        panic!("not a text plan")
    };
    assert_eq!(facts.plans, 1);
}
