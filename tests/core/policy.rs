//! Rego policies: conftest, Spacelift, Scalr and OPA files on our fixtures, both syntaxes, errors
//! as OPA reports them, the time limit, findings linked to resources, and the CLI.
//! (Sameness with OPA itself is scripts/opa_diff.py, run by scripts/test.sh.)

use crate::common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use planlens::model::findings::RuleSeverity;
use planlens::policy::{self, Context, Options, PolicyFile, Shape, Syntax, engine};

const POLICIES: &str = "tests/fixtures/policies";

fn policy_files(dir: &str) -> Vec<PolicyFile> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(POLICIES)
        .join(dir);
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("a policy fixture directory")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rego"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let name = p
                .strip_prefix(env!("CARGO_MANIFEST_DIR"))
                .expect("under the crate")
                .to_string_lossy()
                .into_owned();
            PolicyFile::new(name, std::fs::read_to_string(&p).expect("readable"))
        })
        .collect()
}

fn one_file(path: &str) -> Vec<PolicyFile> {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(POLICIES)
        .join(path);
    vec![PolicyFile::new(
        format!("{POLICIES}/{path}"),
        std::fs::read_to_string(full).expect("readable"),
    )]
}

fn labels(environment: &str) -> BTreeMap<String, String> {
    BTreeMap::from([("environment".to_string(), environment.to_string())])
}

fn guardrails() -> planlens::Document {
    common::load_own("rules/guardrails.json")
}

/// Each test rule that `verify` ran, and whether it passed.
fn test_results(outcome: &engine::Outcome) -> Vec<(&str, bool)> {
    (outcome.tests.iter())
        .map(|t| (t.rule.as_str(), t.passed))
        .collect()
}

/// The errors that refuse (or stop) `files` on `doc` in `environment`, and how long that took.
fn refused(
    files: &[PolicyFile],
    doc: &planlens::Document,
    environment: &str,
    options: &Options,
) -> (Vec<policy::PolicyError>, Duration) {
    let started = Instant::now();
    let errors = policy::evaluate(files, doc, &labels(environment), options).expect_err("refused");
    (errors, started.elapsed())
}

/// (rule, severity, message, address) of each finding.
fn findings_of(
    files: &[PolicyFile],
    doc: &planlens::Document,
    environment: &str,
) -> Vec<(String, RuleSeverity, String, Option<String>)> {
    let (_, found) = policy::evaluate(files, doc, &labels(environment), &Options::default())
        .unwrap_or_else(|e| panic!("{e:?}"));
    found
        .into_iter()
        .map(|f| {
            let address = f
                .resource
                .map(|i| doc.change(&doc.rows[i]).address.to_string());
            (f.rule_id, f.severity, f.message, address)
        })
        .collect()
}

#[test]
fn each_file_gets_its_shape_from_its_package_unless_the_user_chooses() {
    let mut files = policy_files("conftest_v1");
    files.extend(policy_files("spacelift_v1"));
    files.extend(policy_files("scalr"));
    files.extend(policy_files("opa"));
    let names: Vec<&str> = files
        .iter()
        .map(|f| f.name.rsplit('/').next().unwrap())
        .collect();
    let doc = guardrails();
    let labels = labels("staging");
    let context = Context {
        labels: &labels,
        name: "guardrails.json",
    };
    let prepared = policy::prepare(&files, doc.text(), &context, &Options::default());
    let shapes: Vec<(&str, Option<Shape>)> =
        names.iter().copied().zip(prepared.shapes.clone()).collect();
    assert_eq!(
        shapes,
        [
            ("guardrails.rego", Some(Shape::Conftest)),
            ("guardrails_test.rego", None),
            ("lib.rego", Some(Shape::Opa)),
            ("plan.rego", Some(Shape::Spacelift)),
            ("instance_types.rego", Some(Shape::Scalr)),
            ("terraform.rego", Some(Shape::Opa)),
        ]
    );
    // One input per shape, each the plan under its shape's key; conftest and OPA's are the
    // plan's own text, not a copy.
    for (group, input) in prepared.request.groups.iter().zip(&prepared.inputs) {
        let value: serde_json::Value = serde_json::from_str(input).expect("JSON");
        let plan = match group.shape {
            Shape::Spacelift => &value["terraform"],
            Shape::Scalr => &value["tfplan"],
            _ => {
                assert!(matches!(input, std::borrow::Cow::Borrowed(_)));
                &value
            }
        };
        assert_eq!(
            plan["resource_changes"][0]["address"],
            "aws_db_instance.main"
        );
        if group.shape == Shape::Spacelift {
            assert_eq!(
                value["spacelift"]["stack"]["labels"],
                serde_json::json!(["env:staging"])
            );
        }
        if group.shape == Shape::Scalr {
            assert_eq!(value["tfrun"]["workspace"]["environment_type"], "staging");
        }
    }
    // --input conftest: every file is conftest's, and only the namespaces are read.
    let forced = Options {
        shape: Some(Shape::Conftest),
        namespaces: vec!["main".into(), "spacelift".into()],
        ..Options::default()
    };
    let prepared = policy::prepare(&files, doc.text(), &context, &forced);
    assert_eq!(prepared.request.groups.len(), 1);
    assert_eq!(prepared.request.groups[0].packages, ["main", "spacelift"]);
}

#[test]
fn v0_and_v1_files_are_detected_per_file_and_agree() {
    let doc = guardrails();
    let mut both = policy_files("conftest_v0");
    both.extend(policy_files("spacelift_v1"));
    let (outcome, _) =
        policy::evaluate(&both, &doc, &labels("staging"), &Options::default()).unwrap();
    let syntaxes: Vec<Syntax> = outcome.files.iter().map(|f| f.syntax).collect();
    assert_eq!(syntaxes, [Syntax::V0, Syntax::V1]);
    // The same guardrails in both syntaxes give the same destroy findings.
    let destroys = |dir: &str| -> Vec<String> {
        findings_of(&policy_files(dir), &doc, "staging")
            .into_iter()
            .filter(|f| f.2.starts_with("Destroy needs approval"))
            .map(|f| f.2)
            .collect()
    };
    assert_eq!(destroys("conftest_v0"), destroys("conftest_v1"));
    assert_eq!(destroys("spacelift_v0"), destroys("spacelift_v1"));
    assert_eq!(destroys("conftest_v1").len(), 2);
}

#[test]
fn the_five_guardrails_in_rego_find_what_the_toml_pack_finds() {
    let doc = guardrails();
    let analysis = planlens::analysis::Analysis::of(&doc);
    let toml = analysis.evaluate(
        &doc,
        &planlens::rules::RuleSet::builtin(),
        &labels("staging"),
    );
    let toml_addresses: Vec<(RuleSeverity, String)> = toml
        .findings
        .iter()
        .filter(|f| !f.rule_id.ends_with("drift"))
        .filter_map(|f| {
            let i = f.resource?;
            Some((f.severity, doc.change(&doc.rows[i]).address.to_string()))
        })
        .collect();
    for dir in ["conftest_v1", "spacelift_v1"] {
        let mut rego: Vec<(RuleSeverity, String)> =
            findings_of(&policy_files(dir), &doc, "staging")
                .into_iter()
                .filter_map(|(_, severity, _, address)| Some((severity, address?)))
                .collect();
        let mut expected = toml_addresses.clone();
        rego.sort();
        expected.sort();
        assert_eq!(rego, expected, "{dir}");
    }
    // In prod the large instance is allowed, by the variable (conftest) and by the stack label
    // env:prod (Spacelift).
    for dir in ["conftest_v1", "spacelift_v1"] {
        let mut doc_prod = findings_of(&policy_files(dir), &doc, "prod");
        if dir == "conftest_v1" {
            // conftest reads the plan's variable, which says staging.
            assert!(
                doc_prod
                    .iter()
                    .any(|f| f.2.contains("not allowed outside prod"))
            );
        } else {
            doc_prod.retain(|f| f.2.contains("not allowed outside prod"));
            assert!(doc_prod.is_empty(), "{doc_prod:?}");
        }
    }
}

#[test]
fn findings_link_to_the_resource_their_message_or_object_names() {
    let doc = guardrails();
    let found = findings_of(&policy_files("conftest_v0"), &doc, "staging");
    let by_message = |m: &str| {
        found
            .iter()
            .find(|f| f.2.starts_with(m))
            .unwrap_or_else(|| panic!("{m} in {found:?}"))
            .clone()
    };
    // An object's `resource`, a message's address with quotes and brackets, none for the plan.
    assert_eq!(
        by_message("Destroy needs approval: aws_db_instance.main"),
        (
            "data.main.deny".to_string(),
            RuleSeverity::Deny,
            "Destroy needs approval: aws_db_instance.main".to_string(),
            Some("aws_db_instance.main".to_string())
        )
    );
    assert_eq!(
        by_message("Security group changed").3.as_deref(),
        Some("module.sg[\"a\"].aws_security_group.this")
    );
    assert_eq!(
        by_message("Security group changed").0,
        "data.main.warn_security_group"
    );
    assert_eq!(by_message("Security group changed").1, RuleSeverity::Warn);
    assert_eq!(by_message("6 resources change").3, None);
    assert_eq!(by_message("Node pool").0, "data.main.violation");
    assert_eq!(by_message("Node pool").1, RuleSeverity::Deny);
}

#[test]
fn a_policy_opa_refuses_is_reported_before_any_rule_runs_with_file_line_and_column() {
    // A plan without deletes on a prod stack: the unsafe rule would never reach its `not`, and
    // the others never reach their mistakes either — the errors come from checking every rule.
    let doc = common::load_own("outputs_only.json");
    let cases = [
        (
            "refused/unsafe_not.rego",
            "tests/fixtures/policies/refused/unsafe_not.rego:11:47: rego_unsafe_var_error: var _ is unsafe",
        ),
        (
            "refused/unknown_function.rego",
            "tests/fixtures/policies/refused/unknown_function.rego:9:13: rego_type_error: undefined function is_large",
        ),
        (
            "refused/type_error.rego",
            "tests/fixtures/policies/refused/type_error.rego:10:35: rego_type_error: plus: invalid argument(s)",
        ),
        (
            "refused/arity.rego",
            "tests/fixtures/policies/refused/arity.rego:8:15: rego_type_error: startswith: arity mismatch",
        ),
    ];
    for (file, expected) in cases {
        let errors = policy::evaluate(&one_file(file), &doc, &labels("prod"), &Options::default())
            .expect_err(file);
        let printed: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(printed, [expected], "{file}");
        assert!(errors[0].is_compile_error());
    }
    // Neither syntax: the v1 parser's error (the file uses `contains`).
    let mix = one_file("refused/parse_v0_v1_mix.rego");
    let (errors, _) = refused(&mix, &doc, "prod", &Options::default());
    assert_eq!(errors[0].code, "rego_parse_error");
    assert_eq!((errors[0].line, errors[0].column), (5, 19));
    // Two values for one rule: no verdict either, in OPA's words.
    let conflict = one_file("refused/conflict.rego");
    let (errors, _) = refused(&conflict, &doc, "prod", &Options::default());
    assert_eq!(
        errors[0].to_string(),
        "tests/fixtures/policies/refused/conflict.rego:8:1: eval_conflict_error: complete rules \
         must not produce multiple outputs"
    );
    // An OPA builtin the engine is built without says so.
    let semver = PolicyFile::new(
        "semver.rego",
        "package main\nimport rego.v1\ndeny contains \"old\" if semver.compare(\"1.0.0\", \"2.0.0\") < 0\n",
    );
    let errors =
        policy::evaluate(&[semver], &doc, &labels("prod"), &Options::default()).unwrap_err();
    assert!(
        errors[0]
            .message
            .contains("undefined function semver.compare (an OPA builtin"),
        "{errors:?}"
    );
}

#[test]
fn inside_not_the_parts_opa_evaluates_first_are_evaluated_first() {
    // What OPA 1.20 gives on this plan (scripts/opa_diff.py compares every plan): a part OPA
    // moves before the `not` that is undefined makes the body undefined — no finding — where
    // evaluating it inside the negation would make `not` hold.
    let doc = guardrails();
    let mut found: Vec<(String, String)> = findings_of(&policy_files("negation"), &doc, "staging")
        .into_iter()
        .map(|(rule, _, message, _)| (rule, message))
        .collect();
    found.sort();
    let expected = [
        (
            "data.main.deny",
            "aws_instance.api: instance type not in the allowed list",
        ),
        (
            "data.main.deny",
            "aws_instance.worker: instance type not in the allowed list",
        ),
        (
            "data.main.deny",
            "aws_s3_bucket.logs: bucket names start with corp-",
        ),
        (
            "data.main.violation",
            "aws_instance.worker: not a large instance",
        ),
        (
            "data.main.violation",
            "aws_instance.worker: not a large instance (function)",
        ),
        (
            "data.main.warn",
            "1 created resources with a team tag not starting with team-",
        ),
        (
            "data.main.warn",
            "aws_s3_bucket.logs: force_destroy is not false",
        ),
    ];
    assert_eq!(
        found,
        expected.map(|(r, m)| (r.to_string(), m.to_string())),
        "{found:#?}"
    );
    // A moved part is evaluated with the negation's `with` modifiers.
    let outcome = engine::verify(&policy_files("negation"), None).unwrap();
    assert_eq!(
        test_results(&outcome),
        [
            ("data.main.test_a_region_outside_europe", true),
            ("data.main.test_no_region_is_no_answer", true),
        ]
    );
    // An error after a moved part on the same line keeps the column of the text as written.
    let text = "package main\nimport rego.v1\ndeny contains msg if { not startswith(input.planned_values.x, \"a\"); n := to_number(\"abc\"); msg := sprintf(\"%d\", [n]) }\n";
    let file = PolicyFile::new("position.rego", text);
    let input = r#"{"planned_values": {"x": "b"}}"#;
    let request = engine::Request {
        policies: vec![file],
        groups: vec![engine::Group {
            shape: Shape::Conftest,
            packages: vec!["main".to_string()],
        }],
        time_limit_ms: None,
    };
    let errors = engine::run(&request, &[input]).expect_err("to_number fails");
    // The engine points at the argument it could not read, inside its quotes.
    let column = text.lines().nth(2).unwrap().find("abc").unwrap() + 1;
    assert_eq!(
        (
            errors[0].file.as_str(),
            errors[0].line,
            errors[0].column as usize
        ),
        ("position.rego", 3, column),
        "{errors:?}"
    );
}

#[test]
fn a_policy_with_brackets_nested_too_deeply_is_refused_at_once() {
    // Found by fuzzing (tests/fuzz_regressions/rego/): the engine's parser takes time exponential
    // in the depth of nested brackets (each level doubles it) and no time limit applies before
    // evaluation, so a short policy never finished: 24 levels take seconds, 40 would take days.
    // Refused now before the parser sees it.
    let text = format!("package main\n\nx = e {{\n\te{} := 1\n}}\n", "[".repeat(24));
    let doc = guardrails();
    let deep = [PolicyFile::new("deep.rego", text)];
    let (errors, took) = refused(&deep, &doc, "staging", &Options::default());
    assert!(took < Duration::from_secs(2), "took {took:?}");
    // The rule's brace is the first level, so the 16th bracket is the 17th.
    assert_eq!(
        (errors[0].file.as_str(), errors[0].line, errors[0].column),
        ("deep.rego", 4, 18)
    );
    assert!(errors[0].is_compile_error(), "{errors:?}");
    assert!(
        errors[0].message.contains("nested more than 16"),
        "{errors:?}"
    );
    // Braces nest as slowly (found by fuzzing too: 21 levels of `{` took 4.4 s).
    let text = format!("package main\n\nx := {}\n", "{".repeat(21));
    let braces = [PolicyFile::new("braces.rego", text)];
    let (errors, took) = refused(&braces, &doc, "staging", &Options::default());
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_eq!(
        (errors[0].file.as_str(), errors[0].line, errors[0].column),
        ("braces.rego", 3, 22)
    );
}

#[test]
fn a_runaway_policy_is_stopped_after_the_time_limit() {
    let doc = guardrails();
    let limit = Options {
        time_limit_ms: Some(300),
        ..Options::default()
    };
    let (errors, took) = refused(&policy_files("runaway"), &doc, "staging", &limit);
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].code, "eval_cancel_error");
    assert_eq!(
        errors[0].message,
        "data.main.deny was stopped: the policies ran longer than the time limit of 300 ms"
    );
    assert!(errors[0].file.ends_with("runaway/loop.rego"));
    assert!(!errors[0].is_compile_error());
    // The rules of a group are evaluated in one query; the error names the rule that was
    // running when the limit came, not the group's first.
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(POLICIES)
            .join("runaway/loop.rego"),
    )
    .unwrap()
    .replace(
        "deny contains msg",
        "deny contains \"quick\" if true\n\nwarn contains msg",
    );
    let loop_in_warn = [PolicyFile::new("loop_in_warn.rego", text)];
    let (errors, _) = refused(&loop_in_warn, &doc, "staging", &limit);
    assert_eq!(
        errors[0].message,
        "data.main.warn was stopped: the policies ran longer than the time limit of 300 ms"
    );
}

#[test]
fn sprintf_pads_and_signs_as_go_does() {
    let doc = guardrails();
    let file = PolicyFile::new(
        "fmt.rego",
        "package main\nimport rego.v1\nwarn contains sprintf(\"[%-10s|%+d|%05d|%5.1f|%-6d|%x|% d|%s]\", \
         [\"ab\", 5, 42, 3.14159, 7, 255, 3, \"z\"])\n",
    );
    let found = findings_of(&[file], &doc, "staging");
    // What OPA 1.20 gives for the same call.
    assert_eq!(found[0].2, "[ab        |+5|00042|  3.1|7     |ff| 3|z]");
}

#[test]
fn the_engine_seam_takes_and_gives_json() {
    let doc = guardrails();
    let files = policy_files("spacelift_v1");
    let labels = labels("staging");
    let context = Context {
        labels: &labels,
        name: &doc.name,
    };
    let prepared = policy::prepare(&files, doc.text(), &context, &Options::default());
    let request = serde_json::to_string(&prepared.request).unwrap();
    let answer = engine::run_json(&request, &prepared.input_refs());
    let outcome = policy::read_answer(&answer).expect("an outcome");
    let mut direct = engine::run(&prepared.request, &prepared.input_refs()).unwrap();
    assert!(
        direct
            .timings
            .is_some_and(|t| t.compile_ms > 0.0 && t.eval_ms > 0.0)
    );
    direct.timings = outcome.timings;
    assert_eq!(outcome, direct);
    assert_eq!(outcome.rules_read, 2);
    assert_eq!(policy::findings(&outcome, &doc).len(), 5);
    let errors = policy::read_answer(&engine::run_json(&request, &[])).unwrap_err();
    assert_eq!(errors[0].message, "0 input texts for 1 groups");
}

#[test]
fn the_engine_reads_only_the_plan_keys_a_policy_can_name() {
    let doc = guardrails();
    let keys = |files: Vec<PolicyFile>| {
        policy::evaluate(&files, &doc, &labels("staging"), &Options::default())
            .unwrap()
            .0
            .plan_keys
    };
    let only = |k: &[&str]| Some(k.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    // `input.terraform.resource_changes`, `tfplan.resource_changes` through an import alias.
    assert_eq!(
        keys(policy_files("spacelift_v1")),
        [only(&["resource_changes"])]
    );
    assert_eq!(keys(policy_files("scalr")), [only(&["resource_changes"])]);
    assert_eq!(
        keys(policy_files("conftest_v0")),
        [only(&["resource_changes", "variables"])]
    );
    // `object.get(input, ["variables", …], "")` reads `input.variables`; the library's own
    // group has no rule to read, so its input is not read at all.
    assert_eq!(
        keys(policy_files("conftest_v1")),
        [only(&["resource_changes", "variables"]), only(&[])]
    );
    // A key computed at run time, or the input itself as the path's object, can be any key.
    for call in [
        "object.get(input, k, 0)",
        "object.get(input, [k], 0)",
        "count(object.get(input, [], 0)) > 0",
    ] {
        let file = PolicyFile::new(
            "get.rego",
            format!(
                "package main\nimport rego.v1\nwarn contains k if {{ some k in [\"relevant_attributes\"]; {call} }}\n"
            ),
        );
        let (outcome, found) =
            policy::evaluate(&[file], &doc, &labels("staging"), &Options::default()).unwrap();
        assert_eq!(outcome.plan_keys, [None], "{call}");
        assert_eq!(found.len(), 1, "{call}");
    }
    let dynamic = PolicyFile::new(
        "dynamic.rego",
        "package main\nimport rego.v1\nwarn contains k if { some k in [\"relevant_attributes\"]; input[k] }\n",
    );
    let (outcome, found) =
        policy::evaluate(&[dynamic], &doc, &labels("staging"), &Options::default()).unwrap();
    assert_eq!(outcome.plan_keys, [None]);
    assert_eq!(found.len(), 1);
}

#[test]
fn verify_runs_test_rules_like_conftest_verify() {
    let outcome = engine::verify(&policy_files("conftest_v1"), None).unwrap();
    assert_eq!(
        test_results(&outcome),
        [
            ("data.main.test_delete_needs_approval", true),
            ("data.main.test_prod_may_use_large_instances", true),
            // Fails on purpose: a security group change only warns.
            ("data.main.test_security_group_denies", false),
        ]
    );
}

/// Every policy set on every plan we have (ours and the real corpus), with the input cut down to
/// what the policies can observe and with it whole: the same values, the same errors.
#[test]
fn cutting_the_input_changes_no_result() {
    let sets: Vec<String> = {
        let mut names: Vec<String> =
            std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(POLICIES))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| !matches!(n.as_str(), "runaway" | "refused" | "known_differences"))
                .collect();
        names.sort();
        names
    };
    let plans: Vec<(String, planlens::Document)> = (common::fixtures_of(&["plan"]).iter())
        .map(|f| {
            let doc = planlens::load_plan(f.bytes(), f.name());
            (
                f.name().to_string(),
                doc.unwrap_or_else(|e| panic!("{}: {e}", f.path)),
            )
        })
        .collect();
    assert!(plans.len() > 25, "{} plans", plans.len());
    let labels = labels("staging");
    let (mut compared, mut cut) = (0, 0);
    for set in &sets {
        let files = policy_files(set);
        for (name, doc) in &plans {
            let context = Context {
                labels: &labels,
                name: &doc.name,
            };
            let prepared = policy::prepare(&files, doc.text(), &context, &Options::default());
            let inputs = prepared.input_refs();
            let pruned = engine::run(&prepared.request, &inputs);
            let whole = engine::run_whole(&prepared.request, &inputs);
            match (&pruned, &whole) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a.results, b.results, "{set} on {name}");
                    for (x, y) in a.input_bytes.iter().zip(&b.input_bytes) {
                        cut += usize::from(x < y);
                    }
                }
                (Err(a), Err(b)) => assert_eq!(a, b, "{set} on {name}"),
                _ => panic!("{set} on {name}: {pruned:?} vs {whole:?}"),
            }
            compared += 1;
        }
    }
    assert!(compared >= sets.len() * 25);
    assert!(cut > compared / 2, "{cut} cut of {compared}");
}

/// The BRIEF's five guardrails read a few fields of each change: the engine is given a small part
/// of the plan (each change's address, mode, type, actions and the two attributes they read).
#[test]
fn the_guardrails_read_a_small_part_of_the_plan() {
    let doc = guardrails();
    for set in [
        "conftest_v1",
        "conftest_v0",
        "spacelift_v1",
        "pruning_fields",
    ] {
        let (outcome, _) = policy::evaluate(
            &policy_files(set),
            &doc,
            &labels("staging"),
            &Options::default(),
        )
        .unwrap();
        let read: usize = outcome.input_bytes.iter().sum();
        assert!(
            read * 3 < doc.text().len(),
            "{set}: {read} of {} bytes",
            doc.text().len()
        );
    }
    // Spacelift's wrapper: `terraform.resource_changes` and the stack's labels.
    let (outcome, _) = policy::evaluate(
        &policy_files("spacelift_v1"),
        &doc,
        &labels("staging"),
        &Options::default(),
    )
    .unwrap();
    assert_eq!(
        outcome.plan_keys,
        [Some(vec!["resource_changes".to_string()])]
    );
}
