//! Rego policies through the CLI: `planlens check --policy` findings and exit codes, and
//! `planlens check --verify` (moved from tests/core/policy.rs, which tests the policy layer itself).

use crate::run::{planlens, planlens_line};

#[test]
fn check_with_policies_gives_findings_and_exit_codes() {
    let plan = "tests/fixtures/rules/guardrails.json";
    let dir = std::env::temp_dir().join(format!("planlens-policy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let no_rules = dir.join("none.toml");
    std::fs::write(&no_rules, "include_builtin = false\n").unwrap();
    let no_rules = no_rules.to_str().unwrap();
    // `planlens check` of the plan with the words of `more` after the first ones.
    let check = |first: &[&str], more: &str| {
        let mut args = vec!["check", plan];
        args.extend_from_slice(first);
        args.extend(more.split_whitespace());
        planlens(&args)
    };
    let without_rules = ["--rules", no_rules];

    // No rules, no policies: pass; a warn-only policy: warn (1); conftest guardrails: 2.
    let (code, _, err) = planlens(&["check", plan, "--rules", no_rules]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = check(&without_rules, "--policy tests/fixtures/policies/opa");
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("warn  data.terraform.analysis.warn: aws_iam_role.ci deletes ci"),
        "{out}"
    );
    assert!(
        err.contains("opa/terraform.rego: OPA input, Rego v1, package terraform.analysis"),
        "{err}"
    );
    let (code, out, err) = check(
        &without_rules,
        "--policy tests/fixtures/policies/conftest_v1 --format json",
    );
    assert_eq!(code, 2, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["verdict"], "needs-approval");
    assert!(
        json["findings"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!({
                "rule": "data.main.deny",
                "severity": "deny",
                "message": "Destroy needs approval: aws_iam_role.ci",
                "address": "aws_iam_role.ci",
            })),
        "{out}"
    );
    // Beside the built-in TOML pack: both rule sets' findings.
    let (code, out, _) = check(
        &[],
        "--policy tests/fixtures/policies/spacelift_v0/plan.rego --format json",
    );
    assert_eq!(code, 2);
    let rules: Vec<String> = serde_json::from_str::<serde_json::Value>(&out).unwrap()["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect();
    assert!(rules.contains(&"destroy-needs-approval".to_string()));
    assert!(rules.contains(&"data.spacelift.deny".to_string()));
    // The environment label reaches Spacelift policies as the stack label env:prod.
    let (_, out, _) = check(
        &without_rules,
        "--policy tests/fixtures/policies/spacelift_v0 --label environment=prod",
    );
    assert!(
        !out.contains("Large instances need the env:prod label"),
        "{out}"
    );
    // --input chooses the shape: conftest's input has no `terraform` or `spacelift` key, so the
    // Spacelift policy finds nothing.
    let (code, _, err) = check(
        &without_rules,
        "--policy tests/fixtures/policies/spacelift_v0/plan.rego --input conftest --namespace spacelift",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("conftest input, Rego v0, package spacelift"),
        "{err}"
    );
    // A refused policy: exit 3, OPA's error with the column, no verdict.
    let (code, out, err) = check(
        &[],
        "--policy tests/fixtures/policies/refused/unsafe_not.rego",
    );
    assert_eq!(code, 3);
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(
            "tests/fixtures/policies/refused/unsafe_not.rego:11:47: rego_unsafe_var_error: var _ is unsafe"
        ),
        "{err}"
    );
    // Wrong usage.
    for bad in [
        &["check", plan, "--input", "sentinel", "--policy", "x.rego"][..],
        &["check", plan, "--policy"],
    ] {
        assert_eq!(planlens(bad).0, 64, "{bad:?}");
    }
    let (code, _, err) = planlens(&["check", plan, "--policy", "tests/fixtures/nothing-here"]);
    assert_eq!(code, 3, "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn check_verify_runs_the_policies_tests() {
    let (code, out, err) =
        planlens_line("check --verify --policy tests/fixtures/policies/spacelift_v0");
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        out,
        "PASS tests/fixtures/policies/spacelift_v0/plan_test.rego: data.spacelift.test_delete_is_denied\n\
         PASS tests/fixtures/policies/spacelift_v0/plan_test.rego: data.spacelift.test_prod_label_allows_large_instances\n\
         2 tests, 2 passed, 0 failed\n"
    );
    let (code, out, _) =
        planlens_line("check --verify --policy tests/fixtures/policies/conftest_v1");
    assert_eq!(code, 1);
    assert!(
        out.contains("FAIL tests/fixtures/policies/conftest_v1/guardrails_test.rego: data.main.test_security_group_denies"),
        "{out}"
    );
    assert!(out.ends_with("3 tests, 2 passed, 1 failed\n"), "{out}");
    // No tests at all is not a pass.
    let (code, _, err) = planlens_line("check --verify --policy tests/fixtures/policies/opa");
    assert_eq!(code, 3, "{err}");
}
