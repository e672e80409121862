//! Secrets stay hidden on real-world files: over every real fixture and every fixture of ours, no
//! value under a secret-like key (the built-in patterns of `model::mask`), nor any value the plan
//! marks sensitive (a state: by its `sensitive_attributes` / `sensitive_values`), appears in what
//! Planlens shows or writes: the diff of every row, drift entry and
//! output, rule messages (including a rule that tries to print secrets), both share links (decoded),
//! the Markdown comment (and any link inside it, decoded), and the CLI's summary, check, drift and
//! graph output.

use crate::common;
use crate::run::planlens;

use std::path::PathBuf;

use planlens::analysis::Analysis;
use planlens::load::Direct;
use planlens::model::mask::Mask;
use serde_json::Value;

/// Every string a file holds under a secret-like key, or marked sensitive by the plan, longer than
/// three characters (shorter ones would match by chance anywhere).
fn secrets_in(text: &str) -> Vec<String> {
    let mask = Mask::default();
    let mut out = Vec::new();
    let values: Vec<Value> = match serde_json::from_str::<Value>(text) {
        Ok(v) => vec![v],
        // JSON Lines (plan logs).
        Err(_) => text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
    };
    for v in &values {
        collect(v, false, &mask, &mut out);
        marked(v, &mut out);
        driftctl_changelog(v, &mask, &mut out);
        state_marked(v, &mut out);
        declared_outputs(v, &mut out);
    }
    out.retain(|s| s.len() > 3);
    out.sort();
    out.dedup();
    out
}

fn collect(v: &Value, under: bool, mask: &Mask, out: &mut Vec<String>) {
    // A diagnostic's snippet quotes values: `var.db_password` `is "…"`, and code lines.
    if let (Some(Value::String(t)), Some(Value::String(statement))) =
        (v.get("traversal"), v.get("statement"))
        && mask.matches_reference(t)
    {
        out.extend(statement.split('"').nth(1).map(str::to_string));
    }
    if let Some(Value::String(code)) = v.get("code") {
        for line in code.lines() {
            if let Some((key, rest)) = line.split_once('=')
                && mask.matches(key.trim())
            {
                out.extend(rest.split('"').nth(1).map(str::to_string));
            }
        }
    }
    match v {
        Value::String(s) if under => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|i| collect(i, under, mask, out)),
        Value::Object(map) => {
            for (k, v) in map {
                // A configuration's `references` name other objects, an output change's
                // `actions` say what happens to it, and driftctl's `alerts` are keyed by resource
                // type (`aws_iam_access_key`), and a variable's `description` is prose: none of
                // them is a value.
                if !matches!(
                    k.as_str(),
                    "references" | "actions" | "alerts" | "description"
                ) {
                    collect(v, under || mask.matches(k), mask, out);
                }
            }
        }
        _ => {}
    }
}

/// Every string inside `v`, at any depth.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|i| strings(i, out)),
        Value::Object(map) => map.values().for_each(|i| strings(i, out)),
        _ => {}
    }
}

/// Every string of `value` where its mirror `marks` (as `after_sensitive` mirrors `after`) says
/// `true`: a key or an element the mirror leaves out, or marks `false`, is not sensitive.
fn under_marks(value: &Value, marks: &Value, out: &mut Vec<String>) {
    match marks {
        Value::Bool(true) => strings(value, out),
        Value::Object(m) => (m.iter())
            .filter_map(|(k, mark)| Some((value.get(k)?, mark)))
            .for_each(|(x, mark)| under_marks(x, mark, out)),
        Value::Array(m) => (m.iter().enumerate())
            .filter_map(|(i, mark)| Some((value.get(i)?, mark)))
            .for_each(|(x, mark)| under_marks(x, mark, out)),
        _ => {}
    }
}

/// Values the plan itself marks sensitive (`before`/`after` against their `*_sensitive` mirrors).
fn marked(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (value, marks) in [
                ("before", "before_sensitive"),
                ("after", "after_sensitive"),
                // An action invocation's configuration (Terraform 1.14+).
                ("config_values", "config_sensitive"),
            ] {
                if let (Some(value), Some(marks)) = (map.get(value), map.get(marks)) {
                    under_marks(value, marks, out);
                }
            }
            map.values().for_each(|x| marked(x, out));
        }
        Value::Array(items) => items.iter().for_each(|x| marked(x, out)),
        _ => {}
    }
}

/// Values a Terraform state marks sensitive: a raw state's `sensitive_attributes` paths over an
/// instance's `attributes`, a shown state's `sensitive_values` over `values`, and outputs with
/// `sensitive: true` (either form).
fn state_marked(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            if let (Some(attributes), Some(paths)) =
                (map.get("attributes"), map.get("sensitive_attributes"))
            {
                let marks = planlens::load::state::sensitive_mirror(paths);
                under_marks(attributes, &marks, out);
            }
            if let (Some(values), Some(marks)) = (map.get("values"), map.get("sensitive_values")) {
                under_marks(values, marks, out);
            }
            if map.get("sensitive") == Some(&Value::Bool(true))
                && let Some(value) = map.get("value")
            {
                strings(value, out);
            }
            map.values().for_each(|x| state_marked(x, out));
        }
        Value::Array(items) => items.iter().for_each(|x| state_marked(x, out)),
        _ => {}
    }
}

/// The values of outputs a plan declares sensitive in its configuration (`sensitive: true`
/// beside an expression, no value): Terraform before 0.15 marks nothing on their output changes.
fn declared_outputs(v: &Value, out: &mut Vec<String>) {
    let Some(Value::Object(declared)) = v.pointer("/configuration/root_module/outputs") else {
        return;
    };
    for (name, output) in declared {
        if output.get("sensitive") == Some(&Value::Bool(true))
            && let Some(change) = v.pointer(&format!("/output_changes/{name}"))
        {
            for side in ["before", "after"] {
                if let Some(value) = change.get(side) {
                    strings(value, out);
                }
            }
        }
    }
}

/// driftctl changelogs name the attribute by path, not by key.
fn driftctl_changelog(v: &Value, mask: &Mask, out: &mut Vec<String>) {
    for d in v
        .get("differences")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for c in d
            .get("changelog")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let secret = c
                .get("path")
                .and_then(Value::as_array)
                .is_some_and(|p| p.iter().filter_map(Value::as_str).any(|k| mask.matches(k)));
            if secret {
                for side in ["from", "to"] {
                    if let Some(v) = c.get(side) {
                        collect(v, true, mask, out);
                    }
                }
            }
        }
    }
}

/// Every input we have (common::inputs: the real corpus when it is beside the repository, and our
/// fixtures), with its path; not the README's samples, whose secrets' names (`secrets =
/// ["DATABASE_URL"]`) are also resources' keys and variable names, which `secrets_in` cannot tell
/// from values.
fn inputs() -> Vec<(String, PathBuf)> {
    (common::input_fixtures().iter())
        .filter(|f| !f.path.starts_with("samples/"))
        .map(|f| (f.name().to_string(), f.file()))
        .collect()
}

/// A rule that tries to print every secret-like attribute of every change.
const PRINTING_RULE: &str = r#"
[[rule]]
id = "print-secrets"
severity = "warn"
message = "{address}: {after.password} {before.password} {after.secret_string} {after.environment} {before.environment} {after.master_password} {var.db_password}"
"#;

/// What `planlens ARGS…` prints, standard output then standard error.
fn printed(args: &[&str]) -> String {
    let (_, out, err) = planlens(args);
    format!("{out}\n{err}")
}

/// The text of every share payload (`p=…`) in `text`, decoded.
fn decoded_links(text: &str) -> Vec<String> {
    text.match_indices("p=")
        .filter_map(|(i, _)| {
            let rest = &text[i + 2..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(rest.len());
            planlens::load::link::decode(&rest[..end]).ok()
        })
        .collect()
}

fn assert_no_secret(file: &str, what: &str, text: &str, secrets: &[String]) {
    for s in secrets {
        assert!(
            !text.contains(s.as_str()),
            "{file}: {what} shows the secret {s:?}"
        );
    }
}

#[test]
fn no_secret_reaches_any_view_link_comment_or_cli_output() {
    let rules_path =
        std::env::temp_dir().join(format!("planlens-secrets-{}.toml", std::process::id()));
    std::fs::write(&rules_path, PRINTING_RULE).unwrap();
    let rules = planlens::rules::RuleSet::parse(PRINTING_RULE).expect("the printing rule parses");
    let mut checked = 0;
    let mut with_secrets = Vec::new();
    for (name, path) in inputs() {
        let text = std::fs::read_to_string(&path).unwrap();
        let secrets = secrets_in(&text);
        let Ok(doc) = planlens::load_plan(text.clone().into_bytes(), &name) else {
            continue;
        };
        checked += 1;
        if secrets.is_empty() {
            continue;
        }
        with_secrets.push(name.clone());

        // The page: every row's diff, every drift entry's diff, outputs, drift, checks, findings.
        let mut page = String::new();
        for row in &doc.rows {
            page += &format!("{:?}", planlens::diff::diff_change(&doc.change(row).change));
        }
        for d in &doc.plan().resource_drift {
            page += &format!("{:?}", planlens::diff::diff_change(&d.change));
        }
        page += &format!("{:?}", planlens::outputs::output_rows(&doc));
        let drift = planlens::drift::Drift::of(&doc);
        page += &format!("{drift:?}");
        page += &format!("{:?}", planlens::checks::check_rows(&doc));
        let labels = Default::default();
        let evaluation = Analysis::of(&doc).evaluate(&doc, &rules, &labels);
        page += &format!("{:?}", evaluation.findings);
        assert_no_secret(&name, "the page", &page, &secrets);

        // Both links, decoded.
        let full = planlens::load::link::decode(&planlens::share::full_payload(&doc)).unwrap();
        assert_no_secret(&name, "the full link", &full, &secrets);
        let redacted = planlens::load::link::decode(&planlens::share::redacted_payload(
            &doc,
            &Analysis::of(&doc),
            &rules,
            &labels,
        ))
        .unwrap();
        assert_no_secret(&name, "the redacted link", &redacted, &secrets);

        // The CLI, and every link it prints, decoded.
        let p = path.to_str().unwrap();
        let r = rules_path.to_str().unwrap();
        for args in [
            vec!["summary", p],
            vec![
                "summary",
                "--format",
                "markdown",
                p,
                "--base",
                "https://x.test/",
                "--rules",
                r,
            ],
            vec!["check", p, "--rules", r],
            vec!["check", p, "--rules", r, "--format", "json"],
            vec!["drift", p, "--format", "json"],
            vec!["graph", p, "--format", "json"],
            vec!["link", p, "--base", "https://x.test/", "--rules", r],
            vec!["link", p, "--base", "https://x.test/", "--redacted"],
        ] {
            let out = printed(&args);
            let what = format!("`planlens {}`", args.join(" "));
            assert_no_secret(&name, &what, &out, &secrets);
            for link in decoded_links(&out) {
                assert_no_secret(&name, &format!("a link printed by {what}"), &link, &secrets);
            }
        }
    }
    std::fs::remove_file(&rules_path).ok();
    assert!(checked >= 10, "only {checked} files loaded");
    // The test must have something to find: our 0.14 fixture, and the real infracost plan when
    // ../shared is beside the repository.
    for ours in [
        "tf0_14_unmarked_secrets.json",
        "driftctl_secrets.json",
        "plan_log_secret_diagnostic.jsonl",
        "shown_state.json",
        "states/modules.tfstate",
    ] {
        assert!(
            with_secrets.iter().any(|n| n == ours),
            "{ours}: {with_secrets:?}"
        );
    }
    if common::real_fixtures_dir().is_some() {
        assert!(
            with_secrets
                .iter()
                .any(|n| n == "infracost__terraform_v0_12_plan.json"),
            "{with_secrets:?}"
        );
    }
}

#[test]
fn a_plan_without_marks_is_known_to_have_none() {
    let doc = common::load_own("tf0_14_unmarked_secrets.json");
    assert!(!doc.masking.plan_has_marks);
    // password (before and after), DB_PASSWORD and STRIPE_API_KEY (both sides), secret_string
    // (both sides), the db_password output.
    assert_eq!(doc.masking.masked_by_name, 2 + 4 + 2 + 1);
    let marked = common::load_own("share_secrets.json");
    assert!(marked.masking.plan_has_marks);
}

#[test]
fn user_patterns_mask_more_and_the_builtin_ones_can_be_turned_off() {
    let text = common::own_fixture("tf0_14_unmarked_secrets.json");
    let mine = Mask::new(true, &["identifier".to_string()]);
    let doc = planlens::load::load_plan_with(text.clone(), "t", &mine, &Direct).unwrap();
    let row = doc
        .rows
        .iter()
        .find(|r| doc.change(r).address == "aws_db_instance.main")
        .unwrap();
    let tree = format!("{:?}", planlens::diff::diff_change(&doc.change(row).change));
    assert!(!tree.contains("orders\""), "{tree}");
    let none = Mask::new(false, &[]);
    let doc = planlens::load::load_plan_with(text, "t", &none, &Direct).unwrap();
    let tree = format!("{:?}", planlens::diff::diff_change(&doc.change(row).change));
    assert!(tree.contains("SECRET-variable-pw-0141"), "nothing masked");
}

/// A rule file printing `identifier`, with an optional `[mask]` table before it.
fn identifier_rules(mask_table: &str) -> PathBuf {
    let text = format!(
        "{mask_table}\n[[rule]]\nid = \"print-identifier\"\nseverity = \"warn\"\ntype = \"aws_db_instance\"\nmessage = \"{{address}} is {{after.identifier}}\"\n"
    );
    let path = std::env::temp_dir().join(format!(
        "planlens-mask-{}-{}.toml",
        std::process::id(),
        text.len()
    ));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn the_cli_masks_more_with_mask_options_and_a_mask_table() {
    let plan = "tests/fixtures/tf0_14_unmarked_secrets.json";
    let plain = identifier_rules("");
    let table = identifier_rules("[mask]\npatterns = [\"identifier\"]");
    let message = |args: &[&str]| {
        let out = printed(args);
        out.lines()
            .find(|l| l.contains("print-identifier"))
            .unwrap_or_else(|| panic!("no finding in {out}"))
            .to_string()
    };
    let p = plain.to_str().unwrap();
    let t = table.to_str().unwrap();
    assert!(message(&["check", plan, "--rules", p]).contains("is orders"));
    assert!(
        message(&["check", plan, "--rules", p, "--mask", "identifier"]).contains("is (sensitive)")
    );
    assert!(message(&["check", plan, "--rules", t]).contains("is (sensitive)"));
    // --mask works on every subcommand, and a --mask without a pattern is a usage error.
    let json = printed(&["drift", plan, "--format", "json", "--mask", "*_pin"]);
    assert!(!json.contains("usage:"), "{json}");
    assert_eq!(planlens(&["summary", plan, "--mask"]).0, 64);
    std::fs::remove_file(plain).ok();
    std::fs::remove_file(table).ok();
}

#[test]
fn a_mask_table_with_errors_is_refused_with_line_and_column() {
    let errors = planlens::rules::RuleSet::parse(
        "[mask]\npatterns = \"password\"\nbuiltin = 1\ncolour = 2\n",
    )
    .unwrap_err();
    let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(errors.len(), 3, "{text:?}");
    assert!(
        text[0].contains("line 2") && text[0].contains("list of strings"),
        "{text:?}"
    );
    assert!(
        text[1].contains("line 3") && text[1].contains("true or false"),
        "{text:?}"
    );
    assert!(
        text[2].contains("line 4") && text[2].contains("unknown key \"colour\" in [mask]"),
        "{text:?}"
    );
    let ok = planlens::rules::RuleSet::parse("[mask]\npatterns = [\"*_pin\"]\nbuiltin = false\n")
        .unwrap();
    assert!(ok.mask().matches("door_pin"));
    assert!(!ok.mask().matches("password"));
}
