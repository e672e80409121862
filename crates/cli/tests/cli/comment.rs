//! `planlens summary --format markdown`: the pull request comment, with the verdict, the findings,
//! the plan's text escaped, a link to open it, and what fits in one GitHub comment.

use crate::link::follow;
use crate::run::{planlens_line, planlens_line_and};

#[test]
fn summary_markdown_has_the_verdict_and_escapes_plan_text() {
    let (code, out, err) =
        planlens_line("summary --format markdown tests/fixtures/rules/guardrails.json");
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
    let (_, out, _) = planlens_line("summary tests/fixtures/forget.json --format markdown");
    assert!(out.contains("✅ **Verdict: pass**"), "{out}");
}

#[test]
fn summary_markdown_is_a_whole_pr_comment_with_a_link() {
    let base = "https://example.github.io/planlens/";
    let (code, out, err) = planlens_line(&format!(
        "summary --format markdown samples/web-app-replace.json --base {base}"
    ));
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
                "[Open in Planlens](<{base}#n=web-app-replace.json&g="
            ))
    );
    let link = &out[at("(<") + 2..at(">)")];
    assert!(link.contains("&p="), "the plan follows its glance: {link}");
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
    let (p, base) = (
        path.to_str().unwrap(),
        "https://example.github.io/planlens/",
    );
    let (code, out, err) = planlens_line_and("summary --format markdown", &[p, "--base", base]);
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
    let url = "https://ci.example/runs/7/plan.json";
    let more = [p, "--base", base, "--plan-url", url];
    let (code, out, _) = planlens_line_and("summary --format markdown", &more);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(code, 0);
    assert!(out.len() <= planlens::share::GITHUB_COMMENT_LIMIT);
    assert!(out.trim_end().ends_with(
        "[Open in Planlens](<https://example.github.io/planlens/?url=https%3A%2F%2Fci.example%2Fruns%2F7%2Fplan.json>) (the page fetches the plan from the address it was published at)"
    ), "{}", &out[out.len() - 300..]);
}

#[test]
fn summary_and_comment_name_failing_checks() {
    let (code, out, _) = planlens_line("summary tests/fixtures/hostile.json");
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
    let (_, md, _) = planlens_line("summary --format markdown tests/fixtures/hostile.json");
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
    let markdown = "summary --format markdown tests/fixtures/hostile.json --rules";
    let (_, md, _) = planlens_line_and(markdown, &[rules.to_str().unwrap()]);
    assert!(md.contains("**1 check failing: check.hostile.**"), "{md}");
    assert!(!md.contains("failing-checks"), "{md}");
    // `check` lists the warning first (plan-level), beside the pack's deny findings.
    let (code, out, _) = planlens_line("check tests/fixtures/hostile.json");
    assert_eq!(code, 2, "{out}");
    assert!(
        out.starts_with("warn  failing-checks: 1 check failing: check.hostile.\n"),
        "{out}"
    );
    // A plan whose checks pass says nothing of them.
    let (_, out, _) = planlens_line("summary tests/fixtures/forget.json");
    assert!(!out.contains("failing"), "{out}");
}
