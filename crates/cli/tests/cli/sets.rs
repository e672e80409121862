//! Several plans at once (issue 28): `summary`, `check` and `link` given several files or a
//! folder judge each plan by the one-plan path and say the set in one output; one plan given
//! alone keeps its output byte for byte.

use crate::run::{planlens, planlens_line};

const THREE: &str = "tests/fixtures/plan_errored.json tests/fixtures/drift_set_and_deleted.json \
                     tests/fixtures/noop_with_delete_reason.json";

#[test]
fn summary_of_several_files_is_the_roll_up_then_each_plans_changes() {
    let (code, out, err) = planlens_line(&format!("summary {THREE}"));
    assert_eq!(code, 0, "{err}");
    let mut lines = out.lines();
    assert!(lines.next().unwrap().starts_with("3 plans: "), "{out}");
    assert_eq!(
        lines.next(),
        Some("Verdict: planning failed (the worst of the plans)")
    );
    // The failed plan first, named without the folder they share.
    assert!(
        lines
            .next()
            .unwrap()
            .contains("failed         plan_errored"),
        "{out}"
    );
    assert!(out.contains("== drift_set_and_deleted =="), "{out}");
}

#[test]
fn summary_json_has_one_entry_per_plan_in_roll_up_order() {
    let (code, out, err) = planlens_line(&format!("summary --format json {THREE}"));
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let plans = json["plans"].as_array().unwrap();
    assert_eq!(plans.len(), 3);
    assert_eq!(plans[0]["name"], "plan_errored");
    assert_eq!(plans[0]["verdict"], "planning-failed");
    assert_eq!(json["verdict"], "planning-failed");
    for p in plans {
        assert!(p["summary"].as_str().unwrap().len() > 5, "{p}");
        assert!(p["counts"]["add"].is_number());
    }
    // One plan in JSON: the same shape, one entry, with the one-plan summary sentence.
    let (code, one, _) = planlens_line("summary --format json tests/fixtures/plan_errored.json");
    assert_eq!(code, 0);
    let one: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(one["plans"].as_array().unwrap().len(), 1);
    assert_eq!(one["plans"][0]["summary"], plans[0]["summary"]);
}

#[test]
fn one_plan_alone_keeps_its_output() {
    let (_, alone, _) = planlens_line("summary tests/fixtures/drift_set_and_deleted.json");
    assert!(alone.starts_with("Plan: "), "{alone}");
    assert!(!alone.contains("plans:"));
}

#[test]
fn check_exits_with_the_worst_plans_code_and_lists_findings_per_plan() {
    let (code, out, _) = planlens_line(&format!("check {THREE}"));
    assert_eq!(code, 4, "{out}");
    assert!(out.contains("== plan_errored: planning failed =="), "{out}");
    assert!(
        out.ends_with(")\n") && out.contains("Verdict: planning failed"),
        "{out}"
    );
    let (code, out, _) = planlens_line(
        "check --format json tests/fixtures/drift_set_and_deleted.json \
         tests/fixtures/noop_with_delete_reason.json",
    );
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let worst = json["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| match p["verdict"].as_str().unwrap() {
            "needs-approval" => 2,
            "warn" | "incomplete" => 1,
            "planning-failed" => 4,
            _ => 0,
        })
        .max()
        .unwrap();
    assert_eq!(code, worst, "{out}");
    assert!(json["plans"][0]["name"].is_string());
}

#[test]
fn a_folder_is_every_plan_in_it() {
    let dir = std::env::temp_dir().join(format!("planlens-set-{}", std::process::id()));
    for unit in ["live/prod/network", "live/dev/network", "live/prod/db"] {
        std::fs::create_dir_all(dir.join(unit)).unwrap();
        std::fs::copy(
            crate::common::repo_dir().join("tests/fixtures/drift_set_and_deleted.json"),
            dir.join(unit).join("tfplan.json"),
        )
        .unwrap();
    }
    // Terraform's cache is never read.
    std::fs::create_dir_all(dir.join("live/prod/db/.terraform")).unwrap();
    std::fs::write(dir.join("live/prod/db/.terraform/x.json"), "{}").unwrap();
    let (code, out, err) = planlens(&["summary", "--format", "json", dir.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut names: Vec<&str> = (json["plans"].as_array().unwrap().iter())
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["dev/network", "prod/db", "prod/network"]);
}

#[test]
fn one_comment_and_one_link_for_the_whole_set() {
    let (code, out, err) = planlens_line(&format!(
        "summary --format markdown --base https://o.github.io/planlens/ {THREE}"
    ));
    assert_eq!(code, 0, "{err}");
    assert!(out.len() <= 65_536);
    assert!(out.starts_with("### Planlens: 3 plans"), "{out}");
    assert!(out.contains("| `plan_errored` |"), "{out}");
    assert!(
        out.contains("[Open all 3 plans in Planlens](<https://o.github.io/planlens/#s="),
        "{out}"
    );
    let (code, link, _) = planlens_line(&format!(
        "link --base https://o.github.io/planlens/ {THREE}"
    ));
    assert_eq!(code, 0);
    let fragment =
        planlens::load::fragment::Fragment::parse(link.trim().split_once('#').unwrap().1);
    let json = planlens::load::link::decode(&fragment.set.unwrap()).unwrap();
    let members = planlens::load::set::read_payload(&json).unwrap();
    assert_eq!(members.len(), 3);
    let (_, redacted, _) = planlens_line(&format!(
        "link --redacted --base https://o.github.io/planlens/ {THREE}"
    ));
    assert!(redacted.contains("#ru="), "{redacted}");
}

#[test]
fn a_rule_file_labels_plans_by_name() {
    let dir = std::env::temp_dir().join(format!("planlens-labels-{}", std::process::id()));
    for unit in ["prod/network", "dev/network"] {
        std::fs::create_dir_all(dir.join(unit)).unwrap();
        std::fs::copy(
            crate::common::repo_dir().join("tests/fixtures/plan_errored.json"),
            dir.join(unit).join("tfplan.json"),
        )
        .unwrap();
    }
    let rules = std::env::temp_dir().join(format!("planlens-labels-{}.toml", std::process::id()));
    std::fs::write(
        &rules,
        r#"
[[plans]]
match = "prod/*"
labels = { environment = "prod" }

[[rule]]
id = "prod-is-watched"
severity = "warn"
message = "{address} changes in prod"
actions = ["create"]
[[rule.variable]]
name = "environment"
equals = "prod"
"#,
    )
    .unwrap();
    let (_, out, err) = planlens(&[
        "check",
        "--format",
        "json",
        "--rules",
        rules.to_str().unwrap(),
        dir.to_str().unwrap(),
    ]);
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&rules).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|_| panic!("{out}{err}"));
    let fired = |name: &str| {
        (json["plans"].as_array().unwrap().iter())
            .find(|p| p["name"] == name)
            .unwrap()["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "prod-is-watched")
    };
    assert!(fired("prod/network"), "{out}");
    assert!(!fired("dev/network"), "{out}");
}

#[test]
fn two_sets_are_compared_plan_by_plan_matched_by_name() {
    let root = std::env::temp_dir().join(format!("planlens-set-compare-{}", std::process::id()));
    let repo = crate::common::repo_dir();
    let put = |set: &str, unit: &str, fixture: &str| {
        let dir = root.join(set).join(unit);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(repo.join(fixture), dir.join("tfplan.json")).unwrap();
    };
    put("old", "prod/app", "tests/fixtures/compare/before.json");
    put("new", "prod/app", "tests/fixtures/compare/after.json");
    put("old", "dev/app", "tests/fixtures/plan_errored.json");
    put("new", "dev/app", "tests/fixtures/plan_errored.json");
    put("old", "dev/gone", "tests/fixtures/plan_errored.json");
    put("new", "dev/added", "tests/fixtures/plan_errored.json");
    let (old, new) = (root.join("old"), root.join("new"));
    let (code, out, err) = planlens(&[
        "compare",
        "--format",
        "json",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
    ]);
    let (same_code, _, _) = planlens(&["compare", old.to_str().unwrap(), old.to_str().unwrap()]);
    std::fs::remove_dir_all(&root).unwrap();
    assert_eq!(code, 1, "{err}");
    assert_eq!(same_code, 0);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["plans_added"], serde_json::json!(["dev/added"]));
    assert_eq!(json["plans_removed"], serde_json::json!(["dev/gone"]));
    let plans = json["plans"].as_array().unwrap();
    assert_eq!(plans.len(), 1, "only the plan that differs: {out}");
    assert_eq!(plans[0]["name"], "prod/app");
    assert_eq!(
        plans[0]["added"],
        serde_json::json!(["aws_s3_bucket.added_bucket"])
    );
    assert_eq!(json["plans_unchanged"], 1);
}
