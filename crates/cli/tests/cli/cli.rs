//! The `planlens` command line, as CI jobs call it.

use crate::common;

use std::process::Command;

fn planlens(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_planlens"))
        .args(args)
        .current_dir(common::repo_dir())
        .output()
        .expect("run planlens");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `planlens report PLAN [MORE…] -o OUT --app APP`.
fn report(
    plan: &str,
    out: &std::path::Path,
    app: &std::path::Path,
    more: &[&str],
) -> (i32, String, String) {
    let (out, app) = (out.to_str().unwrap(), app.to_str().unwrap());
    let mut args = vec!["report", plan];
    args.extend_from_slice(more);
    args.extend(["-o", out, "--app", app]);
    planlens(&args)
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
        .stdin(std::fs::File::open(common::repo_dir().join("tests/fixtures/forget.json")).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            // forget.json's providers are Terraform's registry's: Terraform's line, forgets apart.
            .starts_with("Plan: 2 to add, 0 to change, 0 to destroy. Also 2 to forget")
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
    // A state is not bad input: it opens as a state (crates/cli/tests/cli/state.rs).
    let (code, out, _) = planlens(&["summary", "tests/fixtures/state.json"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("State: 1 resource in 1 module (Terraform 1.6.6)."),
        "{out}"
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
        err.contains("planlens graph PLAN.json [--format dot|json|svg]"),
        "{err}"
    );
    let (code, _, _) = planlens(&["graph", "samples/web-app-replace.json", "--format", "png"]);
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

    // A state's graph is its recorded dependencies, without the warning about configuration.
    let (code, out, err) = planlens(&["graph", "tests/fixtures/state.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"aws_s3_bucket.assets\""), "{out}");
    assert!(err.is_empty(), "{err}");
}

/// Every `<g>` element of an SVG that has `attribute`, with the attribute's value (unescaped) and
/// the box of the first `<rect>` after it: what a tool reading the picture sees.
fn svg_boxes(svg: &str, attribute: &str) -> Vec<(String, [f32; 4])> {
    let value = |tag: &str, name: &str| -> Option<String> {
        let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        let len = tag[start..].find('"')?;
        Some(
            tag[start..start + len]
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&"),
        )
    };
    let mut out = Vec::new();
    for (at, _) in svg.match_indices("<g ") {
        let tag = &svg[at..at + svg[at..].find('>').unwrap()];
        let Some(v) = value(tag, attribute) else {
            continue;
        };
        let rect_at = at + svg[at..].find("<rect ").unwrap();
        let rect = &svg[rect_at..rect_at + svg[rect_at..].find('>').unwrap()];
        let n = |name: &str| value(rect, name).unwrap().parse::<f32>().unwrap();
        out.push((v, [n("x"), n("y"), n("width"), n("height")]));
    }
    out
}

#[test]
fn graph_svg_is_the_graph_tabs_picture_with_each_node_inside_exactly_its_modules_boxes() {
    let (code, svg, err) = planlens(&[
        "graph",
        "--format",
        "svg",
        "tests/fixtures/nested_modules.json",
    ]);
    assert_eq!(code, 0, "{err}");
    // The same function and options as the Graph tab's export of its opening view.
    let doc = planlens::load_plan(
        std::fs::read(common::repo_dir().join("tests/fixtures/nested_modules.json")).unwrap(),
        "nested_modules.json",
    )
    .unwrap();
    let g = planlens::graph::DepGraph::build(&doc);
    assert_eq!(
        svg,
        planlens::graph::export::opening_svg(&g, "nested_modules.json")
    );
    assert!(svg.contains("<title>nested_modules.json — dependency graph</title>"));

    let clusters = svg_boxes(&svg, "data-module");
    let nodes = svg_boxes(&svg, "data-address");
    let mut paths: Vec<&str> = clusters.iter().map(|(p, _)| p.as_str()).collect();
    paths.sort();
    let mut expected = vec!["module.db".to_string()];
    for set in ["db_1", "db_2"] {
        expected.push(format!("module.db.module.{set}"));
        for leaf in [
            "db_instance",
            "db_option_group",
            "db_parameter_group",
            "db_subnet_group",
        ] {
            expected.push(format!("module.db.module.{set}.module.{leaf}"));
        }
    }
    expected.sort();
    assert_eq!(paths, expected);
    // Every resource changes or neighbours a change, so all 13 are drawn.
    assert_eq!(nodes.len(), 13, "{nodes:?}");
    assert!(
        nodes
            .iter()
            .any(|(a, _)| a
                == "module.db.module.db_1.module.db_option_group.aws_db_option_group.this")
    );

    let inside = |a: &[f32; 4], b: &[f32; 4]| {
        a[0] >= b[0] && a[1] >= b[1] && a[0] + a[2] <= b[0] + b[2] && a[1] + a[3] <= b[1] + b[3]
    };
    let meet = |a: &[f32; 4], b: &[f32; 4]| {
        a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3]
    };
    // Module `m` holds whatever is addressed below it.
    let holds = |m: &str, address: &str| address.starts_with(&format!("{m}."));
    for (address, r) in &nodes {
        for (m, b) in &clusters {
            if holds(m, address) {
                assert!(inside(r, b), "{address} {r:?} is outside {m} {b:?}");
            } else {
                assert!(!meet(r, b), "{address} {r:?} is drawn inside {m} {b:?}");
            }
        }
    }
    for (i, (m, a)) in clusters.iter().enumerate() {
        for (k, b) in &clusters[i + 1..] {
            if holds(m, k) {
                assert!(inside(b, a), "{k} sticks out of {m}");
            } else if holds(k, m) {
                assert!(inside(a, b), "{m} sticks out of {k}");
            } else {
                assert!(!meet(a, b), "{m} {a:?} and {k} {b:?} overlap");
            }
        }
    }
}

#[test]
fn check_exits_0_pass_1_warn_2_needs_approval_3_bad_input() {
    let (code, out, err) = planlens(&["check", "tests/fixtures/forget.json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "Verdict: pass (0 deny, 0 warn, 0 info; 7 rules)\n");

    let (code, out, _) = planlens(&[
        "check",
        "tests/fixtures/rules/guardrails.json",
        "--rules",
        "tests/fixtures/rules/warn_only.toml",
    ]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        out,
        "warn  sg-review: Review the security group module.sg[\"a\"].aws_security_group.this\n\
         Verdict: warn (0 deny, 1 warn, 0 info; 1 rule)\n"
    );

    let (code, out, _) = planlens(&["check", "tests/fixtures/rules/guardrails.json"]);
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
    let (_, out, _) = planlens(&[
        "check",
        "tests/fixtures/rules/guardrails.json",
        "--label",
        "environment=prod",
    ]);
    assert!(!out.contains("large-instance-outside-prod"), "{out}");

    // A rule file that does not parse is bad input, never a pass.
    let (code, out, err) = planlens(&[
        "check",
        "tests/fixtures/forget.json",
        "--rules",
        "tests/fixtures/rules/broken.toml",
    ]);
    assert_eq!(code, 3);
    assert!(out.is_empty());
    assert!(
        err.contains(
            "broken.toml: line 8, column 1 (rule \"typo\"): unknown operator \"grater_than\""
        ),
        "{err}"
    );
    assert!(err.contains("no rules were evaluated"), "{err}");

    let (code, out, err) = planlens(&["check", "tests/fixtures/state.json"]);
    assert_eq!(code, 3);
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("is a Terraform state, not a plan"), "{err}");
    assert_eq!(planlens(&["check"]).0, 64);
    assert_eq!(planlens(&["check", "a.json", "--format", "yaml"]).0, 64);
}

#[test]
fn check_json_names_rule_severity_and_address() {
    let (code, out, _) = planlens(&[
        "check",
        "tests/fixtures/rules/guardrails.json",
        "--format",
        "json",
    ]);
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
fn drift_prints_the_note_and_one_line_per_resource() {
    let (code, out, err) = planlens(&["drift", "tests/fixtures/drift_effects.json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "Note: 4 resources have changed outside of Terraform.\n\
         structural aws_db_instance.main (password) — The plan reverts this drift.\n\
         structural aws_instance.web (instance_type, tags.Owner) — The plan reverts part of this drift.\n\
         minor      aws_s3_bucket.logs (tags.CostCenter, tags_all.CostCenter) — The plan reverts this drift.\n\
         minor      google_compute_instance.vm (labels.env) — The plan does not change this resource.\n\
         2 structural, 2 minor\n"
    );
    assert!(!out.contains("hunter2"));

    let (code, out, _) = planlens(&[
        "drift",
        "tests/fixtures/drift_effects.json",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["minor"].as_u64(), v["structural"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(v["drifted"][1]["address"], "aws_instance.web");
    assert_eq!(v["drifted"][1]["severity"], "structural");
    assert_eq!(
        v["drifted"][1]["attributes"],
        serde_json::json!(["instance_type", "tags.Owner"])
    );
    assert!(v.get("unmanaged").is_none());

    let (code, out, _) = planlens(&["drift", "--format", "json", "tests/fixtures/driftctl.json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["unmanaged"].as_u64(), v["missing"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(v["drifted"][0]["severity"], "structural");

    let (_, out, _) = planlens(&["drift", "tests/fixtures/driftctl.json"]);
    assert!(
        out.starts_with(
            "driftctl: 5 resources, 2 managed, 2 unmanaged, 1 missing, 1 changed; coverage 40 %."
        ),
        "{out}"
    );
    assert!(out.contains(
        "structural aws_s3_bucket.logs (deleted outside Terraform: aws_s3_bucket, id acme-staging-logs)\n"
    ));
    let (code, out, _) = planlens(&["drift", "tests/fixtures/forget.json"]);
    assert_eq!(
        (code, out.as_str()),
        (0, "No drift: nothing changed outside of Terraform.\n")
    );
    assert_eq!(planlens(&["drift", "tests/fixtures/empty.json"]).0, 3);
}

/// "No drift" is said only when the plan could have shown drift: not when planning failed (exit
/// 4, as `check`), not for a plan from a Terraform that reports no drift (before 0.15.4; exit 1).
#[test]
fn drift_is_not_known_for_a_failed_or_old_plan() {
    let (code, out, _) = planlens(&["drift", "tests/fixtures/plan_errored.json"]);
    assert_eq!(
        (code, out.as_str()),
        (
            4,
            "Drift not known: planning failed, so Terraform may have stopped before it compared \
             every resource with what exists. Fix the error and plan again.\n"
        )
    );
    let (code, out, _) = planlens(&["drift", "tests/fixtures/tf0_14_unmarked_secrets.json"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("Drift not known: Terraform 0.14.11 wrote this plan"),
        "{out}"
    );
    assert!(!out.contains("No drift"), "{out}");
    let (code, out, _) = planlens(&[
        "drift",
        "--format",
        "json",
        "tests/fixtures/tf0_14_unmarked_secrets.json",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        v["incomplete"]
            .as_str()
            .is_some_and(|s| s.contains("only since 0.15.4"))
    );
    // A plan from Terraform 0.15.4 or later that lists none has none.
    let (_, out, _) = planlens(&["drift", "--format", "json", "tests/fixtures/forget.json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["incomplete"].is_null());
}

#[test]
fn summary_markdown_has_the_verdict_and_escapes_plan_text() {
    let (code, out, err) = planlens(&[
        "summary",
        "--format",
        "markdown",
        "tests/fixtures/rules/guardrails.json",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("### Planlens: Plan: "), "{out}");
    assert!(
        lines.contains(&"⛔ **Verdict: needs approval** · 5 deny, 1 warn, 1 info (7 rules)"),
        "{out}"
    );
    assert!(out.contains(
        "| deny | `destroy-needs-approval` | Destroy needs approval: aws\\_db\\_instance.main |"
    ));
    assert!(
        out.contains("module.sg\\[\"a\"\\].aws\\_security\\_group.this"),
        "{out}"
    );
    let (_, out, _) = planlens(&[
        "summary",
        "tests/fixtures/forget.json",
        "--format",
        "markdown",
    ]);
    assert!(out.contains("✅ **Verdict: pass**"), "{out}");
}

/// Drift is said apart from the plan's changes: a note under the headline, and a resource only
/// changed outside Terraform is listed as such, never as an unlabelled change.
#[test]
fn summary_says_what_drifted_apart_from_the_changes() {
    let (code, out, _) = planlens(&["summary", "tests/fixtures/drift_effects.json"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "Plan: 0 to add, 3 to change, 0 to destroy.\n\
         Note: 4 resources have changed outside of Terraform. `planlens drift` grades it.\n  \
         ~ aws_db_instance.main\n  \
         ~ aws_instance.web\n  \
         ~ aws_s3_bucket.logs\n    \
         google_compute_instance.vm (changed outside Terraform: labels.env)\n"
    );
    // A plan log: the bucket deleted outside Terraform is created again, a change of the plan.
    let (_, out, _) = planlens(&["summary", "tests/fixtures/plan_log_drift.jsonl"]);
    assert!(out.contains("\n  + aws_s3_bucket.old\n"), "{out}");
    assert!(
        out.contains("\nNote: 2 resources have changed outside of Terraform."),
        "{out}"
    );
    // No line is an address alone, with neither an action nor what it is.
    for line in out.lines().skip(1) {
        assert!(
            !line.starts_with("    ") || line.contains(" ("),
            "an unlabelled line: {line}"
        );
    }
}

#[test]
fn summary_of_a_driftctl_report_gives_its_figures() {
    let (code, out, _) = planlens(&["summary", "tests/fixtures/driftctl.json"]);
    assert_eq!(code, 0);
    assert_eq!(
        out.lines().next(),
        Some("driftctl: 5 resources, 2 managed, 2 unmanaged, 1 missing, 1 changed; coverage 40 %.")
    );
}

/// Opens a link printed by `planlens link` the way the browser does.
fn follow(link: &str) -> (planlens::share::fragment::Fragment, planlens::Document) {
    let hash = &link[link.find('#').expect("a fragment")..];
    let fragment = planlens::load::fragment::Fragment::parse(hash);
    let text = planlens::load::link::decode(fragment.plan.as_deref().unwrap()).unwrap();
    let doc = planlens::load_plan_text(text, "link").unwrap();
    (fragment, doc)
}

#[test]
fn link_prints_a_link_that_reopens_the_plan_with_its_rules() {
    let base = "https://example.github.io/planlens/";
    let (code, out, err) = planlens(&[
        "link",
        "samples/web-app-replace.json",
        "--base",
        base,
        "--rules",
        "tests/fixtures/rules/warn_only.toml",
        "--label",
        "environment=prod",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 1);
    assert!(out.starts_with(&format!("{base}#env=prod&rules=")), "{out}");
    let (fragment, doc) = follow(out.trim_end());
    assert_eq!(
        planlens::load::link::decode(fragment.view.rules.as_deref().unwrap()).unwrap(),
        std::fs::read_to_string(common::repo_dir().join("tests/fixtures/rules/warn_only.toml"))
            .unwrap()
    );
    let sample = planlens::load_plan(
        std::fs::read(common::repo_dir().join("samples/web-app-replace.json")).unwrap(),
        "sample",
    )
    .unwrap();
    assert_eq!(planlens::Summary::of(&doc), planlens::Summary::of(&sample));
    assert!(doc.redacted.is_none());

    let (code, out, _) = planlens(&[
        "link",
        "samples/web-app-replace.json",
        "--base",
        base,
        "--redacted",
    ]);
    assert_eq!(code, 0);
    let (fragment, doc) = follow(out.trim_end());
    assert!(doc.redacted.is_some() && fragment.view.rules.is_none());
    assert_eq!(planlens::Summary::of(&doc), planlens::Summary::of(&sample));
    // Without --base there is nothing to link to.
    assert_eq!(planlens(&["link", "samples/web-app-replace.json"]).0, 64);
    assert_eq!(
        planlens(&["check", "samples/web-app-replace.json", "--redacted"]).0,
        64
    );
}

#[test]
fn summary_markdown_is_a_whole_pr_comment_with_a_link() {
    let base = "https://example.github.io/planlens/";
    let (code, out, err) = planlens(&[
        "summary",
        "--format",
        "markdown",
        "samples/web-app-replace.json",
        "--base",
        base,
    ]);
    assert_eq!(code, 0, "{err}");
    let at = |needle: &str| {
        out.find(needle)
            .unwrap_or_else(|| panic!("{needle} missing from {out}"))
    };
    // Sentence, verdict and findings, destructive changes, then the rest folded, then the link.
    assert!(at("### Planlens: Plan: ") < at("**Verdict: needs approval**"));
    assert!(at("**Verdict") < at("| deny | `destroy-needs-approval`"));
    assert!(at("| deny |") < at("#### Destroyed, replaced or forgotten (3)"));
    assert!(at("#### Destroyed, replaced or forgotten") < at("<details>\n<summary>Other changes"));
    assert!(out.contains(
        "| -/+ replace (destroy, then create) | `aws_instance.bastion` | Replaced because"
    ));
    assert!(out.contains("(import)"), "imports are marked");
    assert!(
        at("</details>")
            < at(&format!(
                "[Open in Planlens](<{base}#n=web-app-replace.json&p="
            ))
    );
    let link = &out[at("(<") + 2..at(">)")];
    let (_, doc) = follow(link);
    assert!(doc.redacted.is_none(), "a small plan gets the full link");
    assert!(out.len() <= planlens::share::GITHUB_COMMENT_LIMIT);
}

#[test]
fn summary_markdown_of_a_huge_plan_fits_in_one_comment() {
    // 4,000 destroys with long addresses and 4,000 creates: far more than a comment holds.
    let changes: Vec<serde_json::Value> = (0..8000)
        .map(|i| {
            let action = if i % 2 == 0 { "delete" } else { "create" };
            serde_json::json!({
                "address": format!("module.region_{i}.module.application_with_a_long_name.aws_security_group_rule.ingress_from_the_load_balancer[{i}]"),
                "module_address": format!("module.region_{i}.module.application_with_a_long_name"),
                "mode": "managed",
                "type": "aws_security_group_rule",
                "name": "ingress_from_the_load_balancer",
                "provider_name": "registry.terraform.io/hashicorp/aws",
                "change": {"actions": [action], "before": null, "after": null}
            })
        })
        .collect();
    let plan = serde_json::json!({"format_version": "1.2", "resource_changes": changes});
    let path = std::env::temp_dir().join(format!("planlens-huge-{}.json", std::process::id()));
    std::fs::write(&path, plan.to_string()).unwrap();
    let (code, out, err) = planlens(&[
        "summary",
        "--format",
        "markdown",
        path.to_str().unwrap(),
        "--base",
        "https://example.github.io/planlens/",
    ]);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(
        out.len() <= planlens::share::GITHUB_COMMENT_LIMIT,
        "{} bytes",
        out.len()
    );
    assert!(out.len() > 50_000, "it uses the room it has");
    assert!(out.contains("#### Destroyed, replaced or forgotten (4000)"));
    assert!(out.contains(
        "more destroyed, replaced or forgotten resources, left out: a GitHub comment holds at most 65536 characters"
    ));
    assert!(out.contains("more changes, left out"));
    // The folded section is closed. Even the redacted link is too long here: the comment says
    // so instead, and so does the job's log.
    assert!(
        out.contains("</details>\n\n_No link: this plan is too large for a link in a comment"),
        "{}",
        &out[out.len() - 400..]
    );
    assert!(!out.contains("[Open in Planlens]"));
    assert!(err.contains("even the redacted link is too long"), "{err}");
    // Every table row is whole: a cut never lands inside a line.
    for line in out.lines().filter(|l| l.starts_with('|')) {
        assert!(line.ends_with('|'), "{line}");
    }
    // Published somewhere the browser can fetch it, the plan gets a short `?url=` link instead.
    std::fs::write(&path, plan.to_string()).unwrap();
    let (code, out, _) = planlens(&[
        "summary",
        "--format",
        "markdown",
        path.to_str().unwrap(),
        "--base",
        "https://example.github.io/planlens/",
        "--plan-url",
        "https://ci.example/runs/7/plan.json",
    ]);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(code, 0);
    assert!(out.len() <= planlens::share::GITHUB_COMMENT_LIMIT);
    assert!(out.trim_end().ends_with(
        "[Open in Planlens](<https://example.github.io/planlens/?url=https%3A%2F%2Fci.example%2Fruns%2F7%2Fplan.json>) (the page fetches the plan from the address it was published at)"
    ), "{}", &out[out.len() - 300..]);
}

#[test]
fn link_to_a_published_plan_is_short() {
    let (code, out, err) = planlens(&[
        "link",
        "samples/web-app-replace.json",
        "--base",
        "https://example.github.io/planlens/",
        "--plan-url",
        "https://ci.example/plan.json",
        "--label",
        "environment=prod",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "https://example.github.io/planlens/?url=https%3A%2F%2Fci.example%2Fplan.json#env=prod\n"
    );
    let both = [
        "link",
        "samples/web-app-replace.json",
        "--base",
        "https://x/",
        "--redacted",
        "--plan-url",
        "https://ci.example/plan.json",
    ];
    assert_eq!(planlens(&both).0, 64);
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

#[test]
fn a_gzip_plan_and_wrapper_output_open_with_a_note_on_stderr() {
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("planlens-cli-gz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("plan.json.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&std::fs::read(common::repo_dir().join("tests/fixtures/forget.json")).unwrap())
        .unwrap();
    std::fs::write(&path, gz.finish().unwrap()).unwrap();
    let (code, out, err) = planlens(&["check", path.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "Verdict: pass (0 deny, 0 warn, 0 info; 7 rules)\n");
    assert!(
        err.starts_with("planlens: note: Decompressed gzip ("),
        "{err}"
    );

    let (code, out, err) = planlens(&["summary", "tests/fixtures/wrapper_setup_terraform.txt"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.\n"));
    assert!(
        err.starts_with(
            "planlens: note: Removed 1 line before the JSON (`[command]…`) and 7 lines after it"
        ),
        "{err}"
    );
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
    let (code, out, _) = planlens(&["check", "tests/fixtures/plan_errored.json"]);
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
    let (code, out, _) = planlens(&["check", "tests/fixtures/deferred.json"]);
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

#[test]
fn usage_documents_exit_code_4() {
    let (code, out, _) = planlens(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("4 planning failed"), "{out}");
}

/// A directory shaped like a Trunk build of the app (index.html naming its style sheet, glue and
/// WebAssembly, at the site's sub-path as GitHub Pages serves a fork), so the report can be tested
/// without building the app.
fn fake_app(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("planlens-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("index.html"),
        r#"<!doctype html><html><head>
<script type="module" src="/planlens/boot-1.js"></script>
<link rel="stylesheet" href="/planlens/main-1.css" integrity="sha384-x"/>
<link rel="modulepreload" href="/planlens/planlens-web-1.js" crossorigin="anonymous"><link rel="preload" href="/planlens/planlens-web-1_bg.wasm" crossorigin="anonymous" as="fetch" type="application/wasm"></head><body></body></html>"#,
    )
    .unwrap();
    std::fs::write(dir.join("main-1.css"), "body { color: FAKE-CSS; }").unwrap();
    std::fs::write(
        dir.join("planlens-web-1.js"),
        "export default async () => {};",
    )
    .unwrap();
    std::fs::write(dir.join("planlens-web-1_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    dir
}

/// The payload and attributes of a report's plan element.
fn report_plan(page: &str) -> (String, String) {
    let start = page
        .find(r#"<script type="application/octet-stream" id="planlens-report""#)
        .expect("the plan element");
    let open_end = start + page[start..].find('>').unwrap();
    let close = open_end + page[open_end..].find("</script>").unwrap();
    (
        page[open_end + 1..close].to_string(),
        page[start..open_end].to_string(),
    )
}

/// The `p=` payload of a link `planlens link` prints for the same arguments.
fn link_payload(args: &[&str]) -> String {
    let mut all = vec!["link", "--base", "https://example.org/"];
    all.extend_from_slice(args);
    let (code, out, err) = planlens(&all);
    assert_eq!(code, 0, "{err}");
    let fragment =
        planlens::load::fragment::Fragment::parse(&out.trim_end()[out.find('#').unwrap()..]);
    fragment.plan.unwrap()
}

#[test]
fn report_is_one_page_with_the_app_inline_and_the_full_links_plan_without_secrets() {
    let app = fake_app("report");
    for fixture in ["share_secrets.json", "tf0_14_unmarked_secrets.json"] {
        let path = format!("tests/fixtures/{fixture}");
        let out = app.join(format!("{fixture}.html"));
        let (code, stdout, err) = report(&path, &out, &app, &[]);
        assert_eq!(code, 0, "{err}");
        assert!(stdout.is_empty());
        assert!(
            err.contains(" KB (the plan ") && err.contains("sensitive values removed"),
            "{err}"
        );
        let page = std::fs::read_to_string(&out).unwrap();
        // The secrets are nowhere in the file, and the plan is exactly a full link's.
        assert!(
            !page.contains("SECRET-"),
            "a secret in the report of {fixture}"
        );
        let (payload, attributes) = report_plan(&page);
        assert_eq!(payload, link_payload(&[&path]), "{fixture}");
        assert!(
            attributes.ends_with(&format!(r#" data-name="{fixture}""#)),
            "{attributes}"
        );
        let text = planlens::load::link::decode(&payload).unwrap();
        assert!(
            !text.contains("SECRET-") && text.contains("(sensitive 1)"),
            "{text}"
        );
        let shared = planlens::load_plan_text(text, fixture).unwrap();
        let original = planlens::load_plan(
            std::fs::read(common::repo_dir().join(&path)).unwrap(),
            fixture,
        )
        .unwrap();
        assert_eq!(
            planlens::Summary::of(&shared),
            planlens::Summary::of(&original)
        );
        // Nothing to fetch: the style inline, no src, no href but the empty data: icon, and a
        // policy that allows no connection.
        assert!(page.contains("<style>body { color: FAKE-CSS; }</style>"));
        assert!(!page.contains(" src="), "{page}");
        assert_eq!(page.matches(" href=").count(), 1);
        assert!(page.contains(r#"<link rel="icon" href="data:,">"#));
        assert!(page.contains("connect-src 'none'") && page.contains("default-src 'none'"));
        assert!(page.contains(r#"id="planlens-glue">"#) && page.contains(r#"id="planlens-wasm">"#));
        assert!(page.contains("<title>") && page.contains(&format!("{fixture} — Planlens report")));
    }
    // Rules and the environment label travel as a link's do.
    let out = app.join("rules.html");
    let rules = "tests/fixtures/rules/warn_only.toml";
    let (code, _, err) = report(
        "samples/web-app-replace.json",
        &out,
        &app,
        &["--rules", rules, "--label", "environment=prod"],
    );
    assert_eq!(code, 0, "{err}");
    let (_, attributes) = report_plan(&std::fs::read_to_string(&out).unwrap());
    let carried = attributes
        .split(" data-rules=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("data-rules");
    assert_eq!(
        planlens::load::link::decode(carried).unwrap(),
        std::fs::read_to_string(common::repo_dir().join(rules)).unwrap()
    );
    assert!(attributes.ends_with(r#" data-env="prod""#), "{attributes}");
    // The app's directory may also come from PLANLENS_APP.
    let out2 = app.join("env.html");
    let run = Command::new(env!("CARGO_BIN_EXE_planlens"))
        .args(["report", "samples/web-app-replace.json", "-o"])
        .arg(&out2)
        .env("PLANLENS_APP", &app)
        .current_dir(common::repo_dir())
        .output()
        .unwrap();
    assert!(run.status.success() && out2.exists());
    std::fs::remove_dir_all(&app).unwrap();
}

#[test]
fn report_of_bad_input_exits_3_and_writes_nothing() {
    let app = fake_app("bad");
    let out = app.join("report.html");
    let (code, _, err) = report("tests/fixtures/not_json.txt", &out, &app, &[]);
    assert_eq!(code, 3);
    assert!(err.contains("This is not JSON"), "{err}");
    assert!(!out.exists());
    // Without -o, or with options that make no sense for a file: usage.
    assert_eq!(planlens(&["report", "samples/web-app-replace.json"]).0, 64);
    let (code, _, _) = planlens(&[
        "report",
        "samples/web-app-replace.json",
        "-o",
        out.to_str().unwrap(),
        "--redacted",
    ]);
    assert_eq!(code, 64);
    std::fs::remove_dir_all(&app).unwrap();
}

#[test]
fn report_without_a_built_app_says_how_to_build_it() {
    let app = fake_app("missing");
    let out = app.join("report.html");
    let missing = app.join("no-dist");
    let (code, _, err) = report("samples/web-app-replace.json", &out, &missing, &[]);
    assert_eq!(code, 3);
    assert!(
        err.contains("no built Planlens app in")
            && err.contains("build the app first: trunk build --release")
            && err.contains("--app DIR"),
        "{err}"
    );
    assert!(!out.exists());
    // A directory that is not a build of the app.
    std::fs::remove_file(app.join("planlens-web-1_bg.wasm")).unwrap();
    let (code, _, err) = report("samples/web-app-replace.json", &out, &app, &[]);
    assert_eq!(code, 3);
    assert!(
        err.contains("planlens-web-1_bg.wasm") && err.contains("trunk build --release"),
        "{err}"
    );
    std::fs::write(app.join("index.html"), "<html></html>").unwrap();
    let (code, _, err) = report("samples/web-app-replace.json", &out, &app, &[]);
    assert_eq!(code, 3);
    assert!(err.contains("links no style sheet"), "{err}");
    assert!(!out.exists());
    std::fs::remove_dir_all(&app).unwrap();
}

#[test]
fn report_of_a_plan_larger_than_a_link_can_carry_is_refused() {
    // One value of 65 MiB: more than the app decodes from a link's (and a report's) payload.
    let app = fake_app("large");
    let plan = app.join("large.json");
    let value = "x".repeat(planlens::load::link::MAX_DECODED_BYTES + 1024 * 1024);
    std::fs::write(
        &plan,
        format!(
            r#"{{"format_version":"1.2","terraform_version":"1.6.6","resource_changes":[{{"address":"aws_s3_object.big","mode":"managed","type":"aws_s3_object","name":"big","provider_name":"registry.terraform.io/hashicorp/aws","change":{{"actions":["create"],"before":null,"after":{{"content":"{value}"}},"after_unknown":{{}},"before_sensitive":false,"after_sensitive":{{}}}}}}]}}"#
        ),
    )
    .unwrap();
    drop(value);
    let out = app.join("report.html");
    let (code, _, err) = report(plan.to_str().unwrap(), &out, &app, &[]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains(
            "the plan is still 65 MB, more than the 64 MB a report (like a link) can carry"
        ),
        "{err}"
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&app).unwrap();
}

#[test]
fn summary_and_comment_name_failing_checks() {
    let (code, out, _) = planlens(&["summary", "tests/fixtures/hostile.json"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1], "1 check failing: check.hostile.");
    assert_eq!(
        lines[2],
        "  ! check.hostile: <script>window.__pwned=7</script>"
    );
    // Bidi controls in a message are shown as escapes, never raw.
    assert!(lines[3].contains("\\u{202e}") && !lines[3].contains('\u{202e}'));
    // The comment says it once: as the built-in pack's warning, or in bold without the pack.
    let (_, md, _) = planlens(&[
        "summary",
        "--format",
        "markdown",
        "tests/fixtures/hostile.json",
    ]);
    assert_eq!(
        md.matches("1 check failing: check.hostile.").count(),
        1,
        "{md}"
    );
    assert!(
        md.contains("| warn | `failing-checks` | 1 check failing: check.hostile. |"),
        "{md}"
    );
    let rules = std::env::temp_dir().join(format!("planlens-nopack-{}.toml", std::process::id()));
    std::fs::write(&rules, "include_builtin = false\n").unwrap();
    let (_, md, _) = planlens(&[
        "summary",
        "--format",
        "markdown",
        "tests/fixtures/hostile.json",
        "--rules",
        rules.to_str().unwrap(),
    ]);
    assert!(md.contains("**1 check failing: check.hostile.**"), "{md}");
    assert!(!md.contains("failing-checks"), "{md}");
    // `check` lists the warning first (plan-level), beside the pack's deny findings.
    let (code, out, _) = planlens(&["check", "tests/fixtures/hostile.json"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.starts_with("warn  failing-checks: 1 check failing: check.hostile.\n"),
        "{out}"
    );
    // A plan whose checks pass says nothing of them.
    let (_, out, _) = planlens(&["summary", "tests/fixtures/forget.json"]);
    assert!(!out.contains("failing"), "{out}");
}

#[test]
fn help_after_a_subcommand_prints_the_usage() {
    for sub in ["summary", "check", "link"] {
        let (code, out, err) = planlens(&[sub, "--help"]);
        assert_eq!(code, 0, "{sub}: {err}");
        assert!(out.contains("planlens summary PLAN.json"), "{sub}: {out}");
        assert!(err.is_empty(), "{sub}: {err}");
    }
}
