//! The tool that made the plan: its own `Plan:` line, its own name.

use super::*;

#[test]
fn an_opentofu_forget_is_read_and_counted_as_opentofu_counts_it() {
    use planlens::model::summary::{Planning, Tool};
    let doc = own("opentofu_forget.txt");
    assert_eq!(Tool::of(&doc), Tool::OpenTofu);
    assert_eq!(
        actions(&doc),
        BTreeMap::from([("aws_iam_role.legacy".to_string(), Action::Forget)])
    );
    assert_eq!(
        Summary::of(&doc).sentence(),
        "Plan: 0 to add, 0 to change, 0 to destroy, 1 to forget."
    );
    assert_eq!(Planning::of(&doc), Planning::Complete);
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
}

#[test]
fn a_terraform_forget_gets_terraforms_line_and_the_forget_apart_from_it() {
    use planlens::model::summary::Tool;
    let doc = own("terraform_forget.txt");
    assert_eq!(Tool::of(&doc), Tool::Terraform);
    assert_eq!(
        actions(&doc),
        BTreeMap::from([("aws_iam_role.legacy".to_string(), Action::Forget)])
    );
    let sentence = Summary::of(&doc).sentence();
    // Terraform's own line, word for word, as the text printed it.
    assert!(
        sentence.starts_with("Plan: 0 to add, 0 to change, 0 to destroy. "),
        "{sentence}"
    );
    assert!(!sentence.contains(", 1 to forget"), "{sentence}");
    assert!(sentence.contains("1 to forget"), "{sentence}");
    // Terraform's warning box lists the forgotten ` - aws_iam_role.legacy`: a diagnostic's
    // line, never Terraform 0.11's destroy line.
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    let findings = evaluate(&doc);
    assert!(
        findings
            .findings
            .iter()
            .all(|f| f.rule_id != "destroy-needs-approval"),
        "{:?}",
        findings.findings
    );
}

#[test]
fn a_failed_text_plan_says_its_own_error_not_that_terraform_marked_it() {
    use planlens::model::summary::Planning;
    let doc = own("plan_failed.txt");
    let planning = Planning::of(&doc);
    assert_eq!(
        planning.sentence().unwrap(),
        "Planning failed: Reference to undeclared resource."
    );
    let headline = Summary::of(&doc).headline(&doc);
    assert!(
        !headline.contains("marked this plan as errored"),
        "{headline}"
    );
}

/// Terraform's text prints only the outside changes that may affect the plan, so a text without
/// a drift section cannot say "No drift" (Terraform's own drift_simple pair: the JSON has drift
/// the text does not print). The note names the tool that made the plan.
#[test]
fn a_text_plan_never_claims_no_drift_and_names_its_tool() {
    use planlens::model::summary::Planning;
    let text = load(&dir().join("terraform-1.5.7/drift_simple/plan"));
    let json = load(&dir().join("terraform-1.5.7/drift_simple/plan.json"));
    assert!(!planlens::drift::Drift::of(&json).resources.is_empty());
    assert!(planlens::drift::Drift::of(&text).resources.is_empty());
    let said = planlens::drift::incompleteness(&text, &Planning::of(&text), 0);
    assert_eq!(
        said.as_deref(),
        Some(
            "Drift not known: a human-readable plan shows only what changed outside Terraform \
             that may affect the plan. Open the plan's JSON (`show -json`) to see all drift."
        )
    );
    let drift = planlens::drift::Drift::of(&own("opentofu_drift.txt"));
    assert_eq!(
        drift.note().as_deref(),
        Some("Note: 2 resources have changed outside of OpenTofu.")
    );
}
