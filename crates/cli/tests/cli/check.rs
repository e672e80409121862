//! `planlens check`: the verdict's exit codes (0 pass, 1 warn or incomplete, 2 needs approval,
//! 3 bad input or not a plan, 4 planning failed), its JSON, and plan-level findings first.

use crate::run::{planlens, planlens_line};

#[test]
fn check_exits_0_pass_1_warn_2_needs_approval_3_bad_input() {
    let (code, out, err) = planlens_line("check tests/fixtures/forget.json");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "Verdict: pass (0 deny, 0 warn, 0 info; 7 rules)\n");

    let (code, out, _) = planlens_line(
        "check tests/fixtures/rules/guardrails.json --rules tests/fixtures/rules/warn_only.toml",
    );
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        out,
        "warn  sg-review: Review the security group module.sg[\"a\"].aws_security_group.this\n\
         Verdict: warn (0 deny, 1 warn, 0 info; 1 rule)\n"
    );

    let (code, out, _) = planlens_line("check tests/fixtures/rules/guardrails.json");
    assert_eq!(code, 2, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "deny  destroy-needs-approval: Destroy needs approval: aws_db_instance.main"
    );
    assert!(lines.contains(
        &"deny  large-instance-outside-prod: Instance aws_instance.api of type m5.8xlarge not allowed outside prod"
    ));
    assert_eq!(
        *lines.last().unwrap(),
        "Verdict: needs approval (5 deny, 1 warn, 1 info; 7 rules)"
    );
    assert!(!out.contains("SECRET-DB-PASSWORD-42"));

    // A label makes the environment prod: the instance rule no longer fires.
    let (_, out, _) =
        planlens_line("check tests/fixtures/rules/guardrails.json --label environment=prod");
    assert!(!out.contains("large-instance-outside-prod"), "{out}");

    // A rule file that does not parse is bad input, never a pass.
    let (code, out, err) =
        planlens_line("check tests/fixtures/forget.json --rules tests/fixtures/rules/broken.toml");
    assert_eq!(code, 3);
    assert!(out.is_empty());
    assert!(
        err.contains(
            "broken.toml: line 8, column 1 (rule \"typo\"): unknown operator \"grater_than\""
        ),
        "{err}"
    );
    assert!(err.contains("no rules were evaluated"), "{err}");

    let (code, out, err) = planlens_line("check tests/fixtures/state.json");
    assert_eq!(code, 3);
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("is a Terraform state, not a plan"), "{err}");
    assert_eq!(planlens_line("check").0, 64);
    assert_eq!(planlens_line("check a.json --format yaml").0, 64);
}

#[test]
fn check_json_names_rule_severity_and_address() {
    let (code, out, _) = planlens_line("check tests/fixtures/rules/guardrails.json --format json");
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["verdict"], "needs-approval");
    assert_eq!(v["findings"][0]["rule"], "destroy-needs-approval");
    assert_eq!(v["findings"][0]["address"], "aws_db_instance.main");
    let aggregate = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["address"].is_null())
        .count();
    assert_eq!(aggregate, 0, "two destroys are not more than five");
}

#[test]
fn check_exits_3_on_a_shown_state_and_a_raw_state_and_summary_prints_the_state_line() {
    for (path, line) in [
        (
            "tests/fixtures/shown_state.json",
            "State: 4 resources in 2 modules (Terraform 1.9.5).",
        ),
        (
            "tests/fixtures/state.json",
            "State: 1 resource in 1 module (Terraform 1.6.6).",
        ),
    ] {
        let (code, out, err) = planlens(&["check", path]);
        assert_eq!(code, 3, "check {path}: {out}{err}");
        assert!(out.is_empty(), "check {path}: {out}");
        assert!(
            err.starts_with(&format!(
                "planlens: {path}: This is a Terraform state, not a plan"
            )),
            "{err}"
        );
        assert!(!err.contains("SECRET"), "{err}");
        let (code, out, err) = planlens(&["summary", path]);
        assert_eq!(code, 0, "summary {path}: {err}");
        assert_eq!(out.lines().next(), Some(line), "{out}");
        assert!(!out.contains("SECRET"), "{out}");
    }
}

// ---------------------------------------------------------------------------------------------
// A failed or incomplete plan is never a pass; plan-level findings come first.

const ERROR_LOG: &str = "tests/fixtures/plan_log_error_only.jsonl";

#[test]
fn check_exits_4_when_planning_failed_and_prints_terraforms_error() {
    let (code, out, err) = planlens(&["check", ERROR_LOG]);
    assert_eq!(code, 4, "{out}{err}");
    assert_eq!(
        out,
        "Planning failed: Reference to undeclared resource.\n\
         Verdict: planning failed (0 deny, 0 warn, 0 info; 7 rules)\n"
    );
    // The diagnostic as Terraform prints it: summary, place, snippet with the highlight, detail.
    for part in [
        "Error: Reference to undeclared resource",
        "on network.tf line 12, in resource \"aws_subnet\" \"private\":",
        "12:   vpc_id     = aws_vpc.mian.id\n",
        "                     ^^^^^^^^^^^^\n",
        "A managed resource \"aws_vpc\" \"mian\" has not been declared in the root module.",
    ] {
        assert!(err.contains(part), "{part:?} not in {err}");
    }
    assert!(!err.contains("was it made by"), "{err}");

    // An errored `terraform show -json` plan: the partial plan's deny does not decide.
    let (code, out, _) = planlens_line("check tests/fixtures/plan_errored.json");
    assert_eq!(code, 4, "{out}");
    assert!(
        out.ends_with("Verdict: planning failed (1 deny, 0 warn, 0 info; 7 rules)\n"),
        "{out}"
    );

    let (code, out, _) = planlens(&["check", "--format", "json", ERROR_LOG]);
    assert_eq!(code, 4);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["verdict"], "planning-failed");
    assert_eq!(
        json["planning"],
        "Planning failed: Reference to undeclared resource."
    );
    let d = &json["diagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["location"], "network.tf:12");
    assert_eq!(d["range"]["start"]["column"], 16);
    assert_eq!(d["snippet"]["code"], "  vpc_id     = aws_vpc.mian.id");
}

#[test]
fn check_exits_1_for_an_incomplete_plan() {
    let (code, out, _) = planlens_line("check tests/fixtures/deferred.json");
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        out,
        "Plan incomplete: 3 changes were deferred to a later plan; plan again after applying this one.\n\
         Verdict: plan incomplete (0 deny, 0 warn, 0 info; 7 rules)\n"
    );
}

#[test]
fn the_summary_and_comment_of_a_failed_plan_say_planning_failed() {
    let (code, out, _) = planlens(&["summary", ERROR_LOG]);
    assert_eq!(code, 0);
    assert_eq!(out, "Planning failed: Reference to undeclared resource.\n");

    let (code, md, _) = planlens(&["summary", "--format", "markdown", ERROR_LOG]);
    assert_eq!(code, 0);
    assert!(
        md.starts_with("### Planlens: Planning failed: Reference to undeclared resource.\n"),
        "{md}"
    );
    assert!(
        md.contains("❌ **Verdict: planning failed** · 0 deny, 0 warn, 0 info (7 rules)"),
        "{md}"
    );
    assert!(!md.contains("No changes"), "{md}");
    assert!(!md.contains("Verdict: pass"), "{md}");
    assert!(
        md.contains("**Error: Reference to undeclared resource** · `network.tf:12`"),
        "{md}"
    );
    assert!(
        md.contains(
            "A managed resource \"aws\\_vpc\" \"mian\" has not been declared in the root module."
        ),
        "{md}"
    );
    assert!(
        md.contains("```\n  12:   vpc_id     = aws_vpc.mian.id\n      ")
            && md.contains("^^^^^^^^^^^^\n```"),
        "{md}"
    );
}

#[test]
fn a_snippet_cannot_break_out_of_its_code_block() {
    let line = |text: &str| {
        format!(
            "{{\"@level\":\"error\",\"@message\":\"Error: x\",\"diagnostic\":{{\"severity\":\"error\",\
             \"summary\":\"Bad <img src=x> [a](b)\",\"detail\":\"\",\"snippet\":{{\"context\":null,\
             \"code\":{},\"start_line\":3,\"highlight_start_offset\":0,\"highlight_end_offset\":4,\
             \"values\":null}}}},\"type\":\"diagnostic\"}}\n",
            serde_json::to_string(text).unwrap()
        )
    };
    let path = std::env::temp_dir().join(format!("planlens-fence-{}.jsonl", std::process::id()));
    std::fs::write(&path, line("````\n</details><script>x</script>")).unwrap();
    let (code, md, _) = planlens(&["summary", "--format", "markdown", path.to_str().unwrap()]);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(code, 0);
    assert!(
        md.contains("**Error: Bad &lt;img src=x&gt; \\[a\\]\\(b\\)**"),
        "{md}"
    );
    // The fence is longer than the snippet's own run of backticks.
    assert!(md.contains("`````\n  3: ````\n"), "{md}");
}

/// A plan that deletes `n` buckets, written to a temporary file.
fn plan_deleting(n: usize) -> std::path::PathBuf {
    let changes: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            serde_json::json!({
                "address": format!("aws_s3_bucket.b{i:02}"),
                "mode": "managed",
                "type": "aws_s3_bucket",
                "name": format!("b{i:02}"),
                "provider_name": "registry.terraform.io/hashicorp/aws",
                "change": { "actions": ["delete"], "before": {}, "after": null },
            })
        })
        .collect();
    let plan = serde_json::json!({
        "format_version": "1.2",
        "terraform_version": "1.9.5",
        "resource_changes": changes,
    });
    let path =
        std::env::temp_dir().join(format!("planlens-deletes-{n}-{}.json", std::process::id()));
    std::fs::write(&path, plan.to_string()).unwrap();
    path
}

#[test]
fn plan_level_findings_come_first_in_check_and_the_comment() {
    let path = plan_deleting(150);
    let p = path.to_str().unwrap();
    let (code, out, _) = planlens(&["check", p]);
    let (_, json, _) = planlens(&["check", "--format", "json", p]);
    let (_, md, _) = planlens(&["summary", "--format", "markdown", p]);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(code, 2);
    assert_eq!(
        out.lines().next(),
        Some("deny  too-many-destroys: More than 5 destroys in one plan (150)")
    );
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["findings"][0]["rule"], "too-many-destroys");
    assert_eq!(json["findings"][0]["address"], serde_json::Value::Null);
    assert_eq!(json["findings"].as_array().unwrap().len(), 151);
    // The comment lists 100 findings: the plan-level one is among them, first; the per-rule
    // counts and the cut note count the same 151.
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| deny |")).collect();
    assert_eq!(
        rows[0],
        "| deny | `too-many-destroys` | More than 5 destroys in one plan \\(150\\) |"
    );
    assert!(
        md.contains(
            "Findings by rule: `too-many-destroys` 1 deny (whole plan) · `destroy-needs-approval` 150 deny\n"
        ),
        "{md}"
    );
    assert!(md.contains("⛔ **Verdict: needs approval** · 151 deny, 0 warn, 0 info (7 rules)"));
    assert!(md.contains("…and 51 more findings, left out"), "{md}");
}
