//! `planlens compare OLD NEW` and `--since URL`: a real plan and its edited copy
//! (tests/fixtures/compare/) as JSON, text and the comment's paragraph; exit 0 with no
//! difference, 1 with some, 3 for bad input, 64 for wrong usage; a full link compares fully, a
//! redacted one by what it carries; no sensitive or secret-named value in any output.

use crate::run::{planlens, planlens_line};

const OLD: &str = "tests/fixtures/compare/before.json";
const NEW: &str = "tests/fixtures/compare/after.json";
const SECRETS: [&str; 4] = [
    "hunter2-OLD-compare-secret",
    "hunter2-NEW-compare-secret",
    "OLD-SENSITIVE-compare-policy",
    "NEW-SENSITIVE-compare-policy",
];

fn assert_no_secret(out: &str) {
    for secret in SECRETS {
        assert!(!out.contains(secret), "{secret} in {out}");
    }
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn compare_json_says_each_difference() {
    let (code, out, err) = planlens_line(&format!("compare {OLD} {NEW} --format json"));
    assert_eq!(code, 1, "{err}");
    assert_no_secret(&out);
    let j = json(&out);
    assert_eq!(
        j["added"],
        serde_json::json!(["aws_s3_bucket.added_bucket"])
    );
    assert_eq!(
        j["removed"],
        serde_json::json!(["aws_s3_bucket.delete_bucket"])
    );
    let a = &j["action_changed"][0];
    assert_eq!(
        (
            a["address"].as_str(),
            a["before"].as_str(),
            a["after"].as_str()
        ),
        (
            Some("aws_s3_bucket.update_bucket"),
            Some("update"),
            Some("replace")
        )
    );
    let v = &j["values_changed"][0];
    assert_eq!(v["address"], "aws_s3_bucket.create_bucket");
    let attrs: Vec<(&str, &str, &str)> = v["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["path"].as_str().unwrap(),
                a["before"].as_str().unwrap(),
                a["after"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        attrs,
        [
            ("password", "(sensitive value)", "(sensitive value)"),
            ("policy", "(sensitive value)", "(sensitive value)"),
            ("tags.team", "\"storage\"", "\"data\""),
        ]
    );
    assert_eq!(
        j["drift_appeared"],
        serde_json::json!(["aws_s3_bucket.update_bucket"])
    );
    assert_eq!(
        j["drift_gone"],
        serde_json::json!(["aws_s3_bucket.noop_bucket"])
    );
    assert_eq!(j["unchanged"], 1);
    assert_eq!(j["old_is_redacted"], false);
    assert!(j["verdict"]["before"].is_string() && j["verdict"]["after"].is_string());
    assert!(
        j["findings_added"]
            .as_array()
            .is_some_and(|f| !f.is_empty())
    );
    assert!(
        j["findings_resolved"]
            .as_array()
            .is_some_and(|f| !f.is_empty())
    );
}

#[test]
fn compare_text_and_markdown_hide_secrets() {
    let (code, text, err) = planlens_line(&format!("compare {OLD} {NEW}"));
    assert_eq!(code, 1, "{err}");
    assert_no_secret(&text);
    assert!(
        text.contains("aws_s3_bucket.update_bucket: update in-place → replace"),
        "{text}"
    );
    assert!(text.contains("tags.team: \"storage\" → \"data\""), "{text}");
    let (code, md, _) = planlens_line(&format!("compare {OLD} {NEW} --format markdown"));
    assert_eq!(code, 1);
    assert_no_secret(&md);
    assert!(
        md.starts_with("**Since the last plan:** 1 new change"),
        "{md}"
    );
}

#[test]
fn compare_a_plan_with_itself_exits_0() {
    let (code, out, err) = planlens_line(&format!("compare {OLD} {OLD}"));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("No difference since the last plan"), "{out}");
}

#[test]
fn compare_bad_input_and_wrong_usage() {
    assert_eq!(
        planlens_line(&format!("compare {OLD} tests/fixtures/not_json.txt")).0,
        3
    );
    assert_eq!(
        planlens_line(&format!("compare {OLD} no/such/file.json")).0,
        3
    );
    assert_eq!(planlens_line(&format!("compare {OLD}")).0, 64);
    assert_eq!(
        planlens_line(&format!("compare {OLD} {NEW} --format dot")).0,
        64
    );
    assert_eq!(planlens_line(&format!("compare {OLD} {NEW} --since")).0, 64);
    assert_eq!(
        planlens(&["compare", "--since", "https://x.example/#p=!!!", NEW]).0,
        3
    );
}

fn link(args: &str) -> String {
    let (code, out, err) = planlens_line(&format!("link {OLD} --base https://x.example/ {args}"));
    assert_eq!(code, 0, "{err}");
    out.trim_end().to_string()
}

#[test]
fn compare_since_a_full_link_compares_fully() {
    let url = link("");
    let (code, out, err) = planlens(&["compare", "--since", &url, NEW, "--format", "json"]);
    assert_eq!(code, 1, "{err}");
    assert_no_secret(&out);
    let j = json(&out);
    assert_eq!(j["old_is_redacted"], false);
    assert_eq!(
        j["added"],
        serde_json::json!(["aws_s3_bucket.added_bucket"])
    );
    assert_eq!(j["action_changed"][0]["after"], "replace");
    // The link has no sensitive values: the secret-named and sensitive ones still differ,
    // hidden, and the plain one is shown.
    let paths: Vec<&str> = j["values_changed"][0]["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"tags.team"), "{paths:?}");
}

#[test]
fn compare_since_a_link_of_the_same_plan_has_no_difference() {
    // The link's placeholders for sensitive values are not taken for changed secrets.
    let url = link("");
    let (code, out, err) = planlens(&["compare", "--since", &url, OLD]);
    assert_eq!(code, 0, "{err}{out}");
}

#[test]
fn compare_since_a_redacted_link_compares_what_it_carries() {
    let url = link("--redacted");
    let (code, out, err) = planlens(&["compare", "--since", &url, NEW, "--format", "json"]);
    assert_eq!(code, 1, "{err}");
    let j = json(&out);
    assert_eq!(j["old_is_redacted"], true);
    assert_eq!(j["values_compared"], false);
    assert_eq!(
        j["added"],
        serde_json::json!(["aws_s3_bucket.added_bucket"])
    );
    assert_eq!(
        j["removed"],
        serde_json::json!(["aws_s3_bucket.delete_bucket"])
    );
    assert_eq!(j["values_changed"], serde_json::json!([]));
    let (_, text, _) = planlens(&["compare", "--since", &url, NEW]);
    assert!(text.contains("redacted link"), "{text}");
    let (_, md, _) = planlens(&["compare", "--since", &url, NEW, "--format", "markdown"]);
    assert!(md.contains("redacted link"), "{md}");
}

#[test]
fn summary_markdown_since_puts_the_paragraph_at_the_top() {
    let url = link("");
    let (code, md, err) = planlens(&["summary", NEW, "--format", "markdown", "--since", &url]);
    assert!(code == 0, "{err}");
    assert_no_secret(&md);
    let (title, rest) = md.split_once("\n\n").unwrap();
    assert!(title.starts_with("### Planlens:"), "{md}");
    assert!(
        rest.starts_with("**Since the last plan:** 1 new change"),
        "{md}"
    );
}

/// Two sets of plans in folders, as CI writes them: `prod/app` planned again (the fixture pair),
/// `dev/old` gone and `dev/new` new.
fn two_sets(test: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let root = std::env::temp_dir().join(format!("planlens-since-{test}-{}", std::process::id()));
    let repo = crate::common::repo_dir();
    let put = |side: &str, name: &str, fixture: &str| {
        let dir = root.join(side).join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(repo.join(fixture), dir.join("plan.json")).unwrap();
    };
    put("old", "prod/app", OLD);
    put("old", "dev/old", "tests/fixtures/plan_errored.json");
    put("new", "prod/app", NEW);
    put("new", "dev/new", "tests/fixtures/import_move_read.json");
    (root.join("old"), root.join("new"))
}

#[test]
fn since_a_set_link_compares_the_plans_by_name() {
    let (old, new) = two_sets("set");
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    let (code, url, err) = planlens(&["link", old, "--base", "https://x.example/"]);
    assert_eq!(code, 0, "{err}");
    let url = url.trim_end();
    assert!(url.contains("#s="), "{url}");

    let (code, md, err) = planlens(&["summary", new, "--format", "markdown", "--since", url]);
    assert_eq!(code, 0, "{err}");
    assert_no_secret(&md);
    let (title, rest) = md.split_once("\n\n").unwrap();
    assert!(title.starts_with("### Planlens: 2 plans"), "{md}");
    assert!(
        rest.starts_with(
            "**Since the last plans:** 1 new plan (`dev/new`), 1 plan gone (`dev/old`), 1 plan \
             changed; 0 plans as before."
        ),
        "{md}"
    );
    assert!(
        md.contains("- `prod/app`: 1 new change (`aws_s3_bucket.added_bucket`: create)"),
        "{md}"
    );

    let (code, out, err) = planlens(&["compare", "--since", url, new, "--format", "json"]);
    assert_eq!(code, 1, "{err}");
    assert_no_secret(&out);
    let j = json(&out);
    assert_eq!(j["plans_added"], serde_json::json!(["dev/new"]));
    assert_eq!(j["plans_removed"], serde_json::json!(["dev/old"]));
    assert_eq!(j["plans"][0]["name"], "prod/app");
    // A set link against one plan is a usage error, said as such.
    let (code, _, err) = planlens(&["compare", "--since", url, NEW]);
    assert_eq!(code, 64, "{err}");
}

#[test]
fn since_a_redacted_roll_up_compares_addresses_and_actions() {
    let (old, new) = two_sets("rollup");
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    let (code, url, err) = planlens(&["link", old, "--redacted", "--base", "https://x.example/"]);
    assert_eq!(code, 0, "{err}");
    let url = url.trim_end();
    assert!(url.contains("#ru="), "{url}");
    let (code, md, err) = planlens(&["summary", new, "--format", "markdown", "--since", url]);
    assert_eq!(code, 0, "{err}");
    assert!(md.contains("redacted roll-up"), "{md}");
    assert!(
        md.contains("1 action changed (`aws_s3_bucket.update_bucket`: update → replace)"),
        "{md}"
    );
    // `compare` needs plans: a roll-up's rows are refused, saying what does read them.
    let (code, _, err) = planlens(&["compare", "--since", url, new]);
    assert_eq!(code, 3);
    assert!(err.contains("redacted roll-up"), "{err}");
    // A link of one plan against several plans: said, not compared.
    let one = link("");
    let (code, md, err) = planlens(&["summary", new, "--format", "markdown", "--since", &one]);
    assert_eq!(code, 0, "{err}");
    assert!(
        md.contains("carries one plan and these are 2 plans"),
        "{md}"
    );
}

#[test]
fn since_is_refused_where_it_would_be_ignored() {
    let url = link("");
    for args in [
        vec!["check", NEW, "--since", &url],
        vec!["drift", NEW, "--since", &url],
        vec!["summary", NEW, "--since", &url],
        vec!["summary", NEW, "--format", "json", "--since", &url],
        vec!["graph", NEW, "--since", &url],
    ] {
        let (code, _, err) = planlens(&args);
        assert_eq!(code, 64, "{args:?}: {err}");
        assert!(err.contains("--since is read by"), "{err}");
    }
    let (old, _) = two_sets("refused");
    let (code, _, err) = planlens(&["link", old.to_str().unwrap(), "--since", &url]);
    assert_eq!(code, 64, "{err}");
}
