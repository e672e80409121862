//! The `planlens` command line, as CI jobs call it.

use std::process::Command;

fn planlens(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_planlens"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run planlens");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn summary_prints_the_sentence_then_one_line_per_change() {
    let (code, out, err) = planlens(&["summary", "samples/web-app-replace.json"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "Plan: 1 to import, 8 to add, 9 to change, 3 to destroy."
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("-/+ aws_instance.bastion — Replaced because")),
        "{out}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("aws_security_group_rule.app_from_alb (moved from")),
        "{out}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("  ~ aws_s3_bucket.assets (import id")),
        "{out}"
    );
    // The changes Terraform would list, one line each: 8 adds + 9 changes + 3 destroys, less the 2
    // replaces counted in both, plus 1 move-only no-op (the import is one of the changes).
    assert_eq!(lines.len() - 1, 8 + 9 + 3 - 2 + 1, "{out}");
}

#[test]
fn summary_masks_nothing_it_should_not_print_and_shows_hidden_characters() {
    let (code, out, _) = planlens(&["summary", "tests/fixtures/hostile.json"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("\\u{202e}") && !out.contains('\u{202e}'),
        "{out}"
    );
    assert!(!out.contains("SECRET"));
}

#[test]
fn summary_reads_standard_input() {
    let out = Command::new(env!("CARGO_BIN_EXE_planlens"))
        .args(["summary", "-"])
        .stdin(
            std::fs::File::open(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/forget.json"
            ))
            .unwrap(),
        )
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .starts_with("Plan: 2 to add, 0 to change, 0 to destroy, 2 to forget.\n")
    );
}

#[test]
fn bad_input_exits_3_with_the_same_message_as_the_browser() {
    let (code, out, err) = planlens(&["summary", "tests/fixtures/not_json.txt"]);
    assert_eq!(code, 3);
    assert!(out.is_empty());
    assert_eq!(
        err.trim(),
        "planlens: tests/fixtures/not_json.txt: This is not JSON: key must be a string at line 3, column 5."
    );
    let (code, _, err) = planlens(&["summary", "tests/fixtures/state.json"]);
    assert_eq!(code, 3);
    assert!(
        err.contains("This looks like a Terraform state file, not a plan."),
        "{err}"
    );
    let (code, _, err) = planlens(&["summary", "tests/fixtures/no-such-file.json"]);
    assert_eq!(code, 3);
    assert!(
        err.contains("cannot read tests/fixtures/no-such-file.json"),
        "{err}"
    );
}

#[test]
fn warnings_go_to_stderr_and_do_not_fail() {
    let (code, out, err) = planlens(&["summary", "tests/fixtures/unknown_format.json"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("Plan: 1 to add, 1 to change, 0 to destroy."));
    assert!(
        err.contains("warning: This plan's format_version is 9.9"),
        "{err}"
    );
}

#[test]
fn wrong_usage_exits_64() {
    let (code, _, err) = planlens(&["frobnicate"]);
    assert_eq!(code, 64);
    assert!(err.starts_with("usage:"), "{err}");
    assert!(err.contains("planlens summary PLAN.json"), "{err}");
    assert!(
        err.contains("planlens graph PLAN.json [--format dot|json]"),
        "{err}"
    );
    let (code, _, _) = planlens(&["graph", "samples/web-app-replace.json", "--format", "svg"]);
    assert_eq!(code, 64, "unknown graph format");
}

#[test]
fn graph_prints_dot_with_module_clusters_and_json_with_edges_from_dependency_to_dependent() {
    let (code, dot, err) = planlens(&["graph", "tests/fixtures/blast_radius.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(dot.starts_with("digraph planlens {"), "{dot}");
    assert!(dot.contains("label=\"module.dns\";"), "{dot}");
    assert!(
        dot.contains("\"aws_vpc.main\" -> \"aws_subnet.a[0]\";"),
        "{dot}"
    );
    assert!(
        dot.contains("\"aws_instance.app\" -> \"module.dns.aws_route53_record.app\";"),
        "{dot}"
    );

    let (code, json, err) = planlens(&[
        "graph",
        "tests/fixtures/blast_radius.json",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["edges_from"], "configuration");
    assert_eq!(v["nodes"].as_array().unwrap().len(), 7);
    let record = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["address"] == "module.dns.aws_route53_record.app")
        .unwrap();
    assert_eq!(record["action"], "create");
    assert_eq!(record["module"], "module.dns");
    let vpc = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["address"] == "aws_vpc.main")
        .unwrap();
    assert_eq!(vpc["actions"], serde_json::json!(["delete", "create"]));
    assert!(v["edges"].as_array().unwrap().contains(&serde_json::json!(
        {"from": "aws_vpc.main", "to": "aws_subnet.a[1]", "kind": "reference"}
    )));
    assert_eq!(v["edges"].as_array().unwrap().len(), 5);

    // Without configuration: state edges, and a warning on stderr.
    let (code, json, err) = planlens(&[
        "graph",
        "--format",
        "json",
        "tests/fixtures/state-only-cycle.json",
    ]);
    assert_eq!(code, 0);
    assert!(
        err.contains("edges come from the prior state's depends_on only"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["edges_from"], "state");
    assert!(
        v["edges"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["kind"] == "state")
    );

    let (code, _, err) = planlens(&["graph", "tests/fixtures/state.json"]);
    assert_eq!(code, 3, "{err}");
}
