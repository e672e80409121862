//! A pull request's plans opened together (issue 28, its first pieces): the names a reviewer
//! recognises them by, and the plans one text holds one after another.

use crate::common;

use planlens::load::set::{names, split_documents};
use planlens::load_plan_text;

#[test]
fn names_drop_what_every_path_shares() {
    // A Terragrunt --json-out-dir tree: every unit's plan has the same file name.
    assert_eq!(
        names(&[
            "out/live/prod/network/tfplan.json",
            "out/live/prod/db/tfplan.json",
            "out/live/dev/network/tfplan.json",
        ]),
        ["prod/network", "prod/db", "dev/network"]
    );
    // Files side by side: their names without the extensions.
    assert_eq!(
        names(&["plans/staging.json", "plans/production.json.gz"]),
        ["staging", "production"]
    );
    // Windows paths, a single file, a path with `./`.
    assert_eq!(
        names(&[r"C:\ci\stacks\a\plan.json", r"C:\ci\stacks\b\plan.json"]),
        ["a", "b"]
    );
    assert_eq!(names(&["artifacts/plan.json"]), ["plan"]);
    assert_eq!(names(&["./x/plan.json", "./y/plan.json"]), ["x", "y"]);
    // Different depths keep what tells them apart.
    assert_eq!(
        names(&["stacks/prod/plan.json", "stacks/prod/eu/plan.json"]),
        ["prod", "prod/eu"]
    );
}

#[test]
fn the_same_name_twice_is_numbered() {
    assert_eq!(
        names(&["a/plan.json", "b/x/plan.json", "b/x/plan.json"]),
        ["a", "b/x", "b/x (2)"]
    );
    assert_eq!(names(&["plan.json", "plan.json"]), ["plan", "plan (2)"]);
}

/// Two real plans (or our own when ../shared is absent).
fn two_plans() -> (String, String) {
    let read = |path: &str| String::from_utf8(common::fixture(path).bytes()).unwrap();
    (
        read("samples/web-app-replace.json"),
        read("tests/fixtures/blast_radius.json"),
    )
}

#[test]
fn plans_one_after_another_are_found_each_whole() {
    let (a, b) = two_plans();
    // Concatenated as written (pretty-printed, a newline between), and as JSON Lines.
    let compact = |t: &str| {
        serde_json::from_str::<serde_json::Value>(t)
            .unwrap()
            .to_string()
    };
    for text in [
        format!("{a}\n{b}"),
        format!("{}\n{}\n", compact(&a), compact(&b)),
        format!("  {a}{b}  "),
    ] {
        let ranges = split_documents(&text).expect("two plans");
        assert_eq!(ranges.len(), 2);
        for (range, name) in ranges.iter().zip(["a.json", "b.json"]) {
            let doc = load_plan_text(text[range.clone()].to_string(), name).unwrap();
            assert!(!doc.rows.is_empty(), "{name}");
        }
    }
}

#[test]
fn one_plan_a_plan_log_or_other_json_is_not_split() {
    let (a, _) = two_plans();
    assert_eq!(split_documents(&a), None);
    let log = String::from_utf8(common::fixture("tests/fixtures/plan_log.jsonl").bytes()).unwrap();
    assert_eq!(split_documents(&log), None);
    assert_eq!(split_documents("[1, 2] [3]"), None);
    assert_eq!(split_documents(&format!("{a} not json")), None);
    assert_eq!(
        split_documents(&format!("{a}\n{{\"format_version\": \"1.0\"}}")),
        None
    );
}
