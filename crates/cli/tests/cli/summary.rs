//! `planlens summary`, as CI jobs call it: the sentence and one line per change, what drifted
//! apart from the changes, the inputs it reads (standard input, gzip, wrapper output), what it says
//! of bad input and wrong usage.

use crate::common;
use crate::run::{planlens, planlens_line, planlens_with};

#[test]
fn summary_prints_the_sentence_then_one_line_per_change() {
    let (code, out, err) = planlens_line("summary samples/web-app-replace.json");
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
    let (code, out, _) = planlens_line("summary tests/fixtures/hostile.json");
    assert_eq!(code, 0);
    assert!(
        out.contains("\\u{202e}") && !out.contains('\u{202e}'),
        "{out}"
    );
    assert!(!out.contains("SECRET"));
}

#[test]
fn summary_reads_standard_input() {
    let plan = std::fs::File::open(common::repo_dir().join("tests/fixtures/forget.json")).unwrap();
    let (code, out, _) = planlens_with(&["summary", "-"], |command| {
        command.stdin(plan);
    });
    assert_eq!(code, 0);
    // forget.json's providers are Terraform's registry's: Terraform's line, forgets apart.
    assert!(out.starts_with("Plan: 2 to add, 0 to change, 0 to destroy. Also 2 to forget"));
}

#[test]
fn bad_input_exits_3_with_the_same_message_as_the_browser() {
    let (code, out, err) = planlens_line("summary tests/fixtures/not_json.txt");
    assert_eq!(code, 3);
    assert!(out.is_empty());
    assert_eq!(
        err.trim(),
        "planlens: tests/fixtures/not_json.txt: This is not JSON: key must be a string at line 3, column 5."
    );
    // A state is not bad input: it opens as a state (crates/cli/tests/cli/state.rs).
    let (code, out, _) = planlens_line("summary tests/fixtures/state.json");
    assert_eq!(code, 0);
    assert!(
        out.starts_with("State: 1 resource in 1 module (Terraform 1.6.6)."),
        "{out}"
    );
    let (code, _, err) = planlens_line("summary tests/fixtures/no-such-file.json");
    assert_eq!(code, 3);
    assert!(
        err.contains("cannot read tests/fixtures/no-such-file.json"),
        "{err}"
    );
}

#[test]
fn warnings_go_to_stderr_and_do_not_fail() {
    let (code, out, err) = planlens_line("summary tests/fixtures/unknown_format.json");
    assert_eq!(code, 0);
    assert!(out.starts_with("Plan: 1 to add, 1 to change, 0 to destroy."));
    assert!(
        err.contains("warning: This plan's format_version is 9.9"),
        "{err}"
    );
}

#[test]
fn wrong_usage_exits_64() {
    let (code, _, err) = planlens_line("frobnicate");
    assert_eq!(code, 64);
    assert!(err.starts_with("usage:"), "{err}");
    assert!(err.contains("planlens summary PLAN.json"), "{err}");
    assert!(
        err.contains("planlens graph PLAN.json [--format dot|json|svg]"),
        "{err}"
    );
    let (code, _, _) = planlens_line("graph samples/web-app-replace.json --format png");
    assert_eq!(code, 64, "unknown graph format");
}

/// Drift is said apart from the plan's changes: a note under the headline, and a resource only
/// changed outside Terraform is listed as such, never as an unlabelled change.
#[test]
fn summary_says_what_drifted_apart_from_the_changes() {
    let (code, out, _) = planlens_line("summary tests/fixtures/drift_effects.json");
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
    let (_, out, _) = planlens_line("summary tests/fixtures/plan_log_drift.jsonl");
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
    let (code, out, _) = planlens_line("summary tests/fixtures/driftctl.json");
    assert_eq!(code, 0);
    assert_eq!(
        out.lines().next(),
        Some("driftctl: 5 resources, 2 managed, 2 unmanaged, 1 missing, 1 changed; coverage 40 %.")
    );
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

    let (code, out, err) = planlens_line("summary tests/fixtures/wrapper_setup_terraform.txt");
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.\n"));
    assert!(
        err.starts_with(
            "planlens: note: Removed 1 line before the JSON (`[command]…`) and 7 lines after it"
        ),
        "{err}"
    );
}

#[test]
fn usage_documents_exit_code_4() {
    let (code, out, _) = planlens_line("--help");
    assert_eq!(code, 0);
    assert!(out.contains("4 planning failed"), "{out}");
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
