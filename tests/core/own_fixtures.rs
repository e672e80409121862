//! Our own small fixtures, for what the real corpus lacks: forget, deferred changes, deposed
//! objects, keys with quotes and brackets, nested sensitive and unknown values, hostile strings,
//! unknown format versions and every kind of bad input.

use crate::common;

use common::{builtin_evaluation, load_own, own_fixture};
use planlens::diff::{DiffNode, NodeChange, PathKey, Side, diff_change};
use planlens::load::{LoadError, MAX_FILE_BYTES, NotAPlan};
use planlens::model::text::visible;
use planlens::model::{Action, Address, ReplaceOrder, RowSource};
use planlens::outputs::output_rows;
use planlens::{Summary, load_plan, load_plan_text};

/// The sentence the manifest gives for a fixture (its `summary`).
fn manifest_sentence(f: &common::Fixture) -> &str {
    (f.summary.as_deref()).unwrap_or_else(|| panic!("the manifest gives no summary for {}", f.path))
}

#[test]
fn summary_sentences_of_our_plans() {
    for name in [
        // Its providers are Terraform's registry's: Terraform's line counts no forgets.
        "forget.json",
        "deferred.json",
        "deposed.json",
        "tricky_keys.json",
        "nested_sensitive_unknown.json",
        "hostile.json",
        "unknown_format.json",
        "outputs_only.json",
        "import_move_read.json",
        "action_invocations.json",
    ] {
        let f = common::fixture(&format!("tests/fixtures/{name}"));
        let sentence = Summary::of(&load_own(name)).sentence();
        assert_eq!(sentence, manifest_sentence(&f), "{name}");
    }
}

#[test]
fn samples_shipped_with_the_app_load() {
    let samples: Vec<common::Fixture> = (common::fixtures().into_iter())
        .filter(|f| f.path.starts_with("samples/"))
        .collect();
    assert_eq!(samples.len(), 4, "{samples:?}");
    for f in &samples {
        let name = f.name();
        let doc = load_plan(f.bytes(), name).unwrap();
        assert!(doc.warnings.is_empty(), "{name}: {:?}", doc.warnings);
        let sentence = if f.kind == "driftctl" {
            let planlens::model::Source::Driftctl(facts) = &doc.source else {
                panic!("the driftctl sample was not read as a driftctl report");
            };
            let drift = planlens::drift::Drift::of(&doc);
            assert_eq!((drift.structural, drift.minor), (2, 1), "{name}");
            facts.sentence()
        } else {
            Summary::of(&doc).sentence()
        };
        assert_eq!(sentence, manifest_sentence(f), "{name}");
    }
    let driftctl = samples.iter().filter(|f| f.kind == "driftctl");
    assert_eq!(driftctl.count(), 1, "the driftctl sample");
}

#[test]
fn forget_and_create_then_forget_are_their_own_actions() {
    let doc = load_own("forget.json");
    let actions: Vec<Action> = doc.rows.iter().map(|r| r.action).collect();
    assert!(actions.contains(&Action::Forget));
    assert!(actions.contains(&Action::Replace(ReplaceOrder::CreateThenForget)));
    assert_eq!(Action::Forget.symbol(), ".");
    assert_eq!(
        Action::Replace(ReplaceOrder::CreateThenForget).symbol(),
        "+/."
    );
    assert!(Action::Forget.is_destructive());
}

#[test]
fn deferred_changes_are_listed_and_counted() {
    let doc = load_own("deferred.json");
    let s = Summary::of(&doc);
    assert_eq!(s.deferred, 3);
    assert_eq!(doc.plan().complete, Some(false));
    let deferred: Vec<_> = doc
        .rows
        .iter()
        .filter(|r| matches!(r.source, RowSource::Deferred(_)))
        .collect();
    assert_eq!(deferred.len(), 3);
    let unknown_index = deferred
        .iter()
        .filter(|r| doc.change(r).index_unknown)
        .count();
    assert_eq!(unknown_index, 2);
    let addr = Address::parse("aws_instance.web[*]").unwrap();
    assert!(
        deferred
            .iter()
            .any(|r| Address::parse(&doc.change(r).address).unwrap() == addr)
    );
}

#[test]
fn a_deposed_object_and_its_replacement_share_an_address() {
    let doc = load_own("deposed.json");
    let web: Vec<_> = doc
        .rows
        .iter()
        .filter(|r| doc.change(r).address == "aws_instance.web")
        .collect();
    assert_eq!(web.len(), 2);
    assert!(web.iter().any(
        |r| doc.change(r).deposed.as_deref() == Some("00000001") && r.action == Action::Delete
    ));
    assert!(
        web.iter()
            .any(|r| r.action == Action::Replace(ReplaceOrder::CreateThenDelete))
    );
    assert_eq!(
        Action::Replace(ReplaceOrder::CreateThenDelete).symbol(),
        "+/-"
    );
}

#[test]
fn every_tricky_address_parses_to_its_index_and_module() {
    let doc = load_own("tricky_keys.json");
    let raw: serde_json::Value = serde_json::from_slice(&own_fixture("tricky_keys.json")).unwrap();
    let mut checked = 0;
    for rc in raw["resource_changes"].as_array().unwrap() {
        let address = rc["address"].as_str().unwrap();
        let parsed = Address::parse(address).unwrap_or_else(|e| panic!("{e}"));
        // Writing the address back and reading it again gives the same address.
        assert_eq!(
            Address::parse(&parsed.to_string()).unwrap(),
            parsed,
            "{address}"
        );
        match (&rc["index"], &parsed.key) {
            (serde_json::Value::String(s), Some(planlens::model::InstanceKey::Str(k))) => {
                assert_eq!(s, k, "{address}")
            }
            (serde_json::Value::Number(n), Some(planlens::model::InstanceKey::Int(i))) => {
                assert_eq!(n.as_i64(), Some(*i), "{address}")
            }
            (serde_json::Value::Null, None) => {}
            (index, key) => panic!("{address}: index {index} but parsed key {key:?}"),
        }
        let module = rc["module_address"].as_str().unwrap_or("");
        assert_eq!(parsed.module_path(), module, "{address}");
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} addresses");
    // Grouping by module keeps keys with dots and brackets apart.
    assert!(
        doc.modules
            .iter()
            .any(|m| m == r#"module.outer["a.b"].module.inner["c]d"]"#),
        "{:?}",
        doc.modules
    );
}

fn find<'t>(node: &'t DiffNode, path: &[PathKey]) -> &'t DiffNode {
    path.iter().fold(node, |n, key| {
        n.children
            .iter()
            .find(|c| c.key.as_ref() == Some(key))
            .unwrap_or_else(|| panic!("no {key:?} under {:?}", n.key))
    })
}

fn attr(s: &str) -> PathKey {
    PathKey::Attr(s.to_string())
}

#[test]
fn nested_sensitive_and_unknown_values_are_masked_in_the_diff() {
    let doc = load_own("nested_sensitive_unknown.json");
    let plan = doc.plan();
    let rc = plan
        .resource_changes
        .iter()
        .find(|c| c.address == "appconfig_environment.main")
        .unwrap();
    let tree = diff_change(&rc.change).unwrap();
    let password = find(&tree, &[attr("users"), PathKey::index(1), attr("password")]);
    assert_eq!(
        (&password.before, &password.after),
        (&Side::Sensitive, &Side::Sensitive)
    );
    let other_user = find(&tree, &[attr("users"), PathKey::index(0)]);
    assert!(
        matches!(other_user.before, Side::Object(_)),
        "only element 1 is sensitive"
    );
    assert_eq!(
        find(&tree, &[attr("tags"), attr("Version")]).after,
        Side::Unknown
    );
    assert_eq!(find(&tree, &[attr("user_data")]).after, Side::Sensitive);
    let ips = find(&tree, &[attr("allowed_ips")]);
    assert_eq!(ips.after, Side::Unknown);
    let pool = find(
        &tree,
        &[
            attr("settings"),
            attr("database"),
            attr("pool"),
            attr("max_connections"),
        ],
    );
    assert_eq!(
        (pool.before.display(), pool.after.display(), pool.change),
        ("20".into(), "40".into(), NodeChange::Modified)
    );

    let app = plan
        .resource_changes
        .iter()
        .find(|c| c.address == "aws_instance.app")
        .unwrap();
    let tree = diff_change(&app.change).unwrap();
    let forced = find(
        &tree,
        &[
            attr("ebs_block_device"),
            PathKey::index(0),
            attr("volume_size"),
        ],
    );
    assert!(forced.forces_replacement);
    assert!(!find(&tree, &[attr("ebs_block_device")]).forces_replacement);
}

#[test]
fn no_secret_reaches_any_diff_or_output_of_our_fixtures() {
    for name in [
        "nested_sensitive_unknown.json",
        "hostile.json",
        "forget.json",
        "deposed.json",
    ] {
        let doc = load_own(name);
        let plan = doc.plan();
        let mut shown = String::new();
        for rc in plan.resource_changes.iter() {
            shown.push_str(&format!("{:?}", diff_change(&rc.change).unwrap()));
        }
        for o in output_rows(&doc) {
            shown.push_str(&format!("{o:?}"));
        }
        assert!(
            !shown.contains("SECRET"),
            "{name}: a secret reached the diff"
        );
        if name == "nested_sensitive_unknown.json" {
            assert!(
                shown.contains("Sensitive"),
                "the walk must have met masked values"
            );
        }
    }
}

/// Terraform before 0.15 marks no output change, but declares sensitive outputs (`sensitive:
/// true` in `planned_values`, `prior_state` and `configuration`): each is masked whole, in every
/// view and link, like a 0.15+ plan's.
#[test]
fn outputs_an_old_plan_declares_sensitive_are_masked_whole() {
    let doc = load_own("tf0_12_sensitive_outputs.json");
    let rows = output_rows(&doc);
    let sensitive: Vec<(&str, bool)> = rows
        .iter()
        .map(|r| (r.name.as_str(), r.sensitive))
        .collect();
    assert_eq!(
        sensitive,
        [
            ("bootstrap", true),
            ("cluster_ca", true),
            ("endpoint", false)
        ]
    );
    for row in &rows {
        let shown = format!("{:?}", row.diff);
        assert!(!shown.contains("SECRET"), "{}: {shown}", row.name);
    }
    assert!(format!("{:?}", rows[2].diff).contains("k8s.internal"));
    // Its resource values carry no marks: the note about names stays.
    assert!(!doc.masking.plan_has_marks);
}

#[test]
fn sensitive_outputs_are_masked_as_a_whole() {
    let doc = load_own("nested_sensitive_unknown.json");
    let token = output_rows(&doc)
        .into_iter()
        .find(|o| o.name == "admin_token")
        .unwrap();
    assert!(token.sensitive);
    assert_eq!(token.diff.unwrap().after, Side::Sensitive);
}

#[test]
fn hostile_strings_load_as_data_and_display_visibly() {
    let doc = load_own("hostile.json");
    let addresses: Vec<String> = doc
        .rows
        .iter()
        .map(|r| visible(&doc.change(r).address))
        .collect();
    assert!(
        addresses
            .iter()
            .any(|a| a.contains("<script>window.__pwned=1</script>"))
    );
    assert!(
        addresses.iter().any(|a| a.contains("\\u{202e}")),
        "bidi override shown as an escape"
    );
    assert!(
        addresses
            .iter()
            .all(|a| !a.contains('\u{202e}') && !a.contains('\0'))
    );
    for rc in &doc.plan().resource_changes {
        diff_change(&rc.change).unwrap();
    }
    let checks = planlens::checks::check_rows(&doc);
    assert!(checks.iter().any(|c| {
        c.messages
            .iter()
            .any(|m| m.contains("<script>window.__pwned=7</script>"))
    }));
}

#[test]
fn a_plan_with_an_unknown_format_version_loads_with_a_warning() {
    let doc = load_own("unknown_format.json");
    assert_eq!(doc.warnings.len(), 1);
    assert!(
        doc.warnings[0].contains("format_version is 9.9"),
        "{}",
        doc.warnings[0]
    );
}

#[test]
fn imports_moves_and_reads_print_the_plan_line_with_zeros() {
    let s = Summary::of(&load_own("import_move_read.json"));
    assert_eq!((s.import, s.moves, s.reads, s.shown), (1, 1, 1, 3));
}

#[test]
fn a_plan_that_only_invokes_an_action_is_not_no_changes() {
    let doc = load_own("action_invocations.json");
    let s = Summary::of(&doc);
    assert_eq!((s.shown, s.actions), (0, 1));
    assert_ne!(s.sentence(), "No changes.");
    // No change carries values, so no mark could be missing: no "before 0.15" note.
    assert_eq!(doc.masking.unmarked_note(), None);
    // A plan of Terraform 0.14 with values and no marks keeps its note.
    let old = load_own("tf0_14_unmarked_secrets.json");
    assert!(
        old.masking
            .unmarked_note()
            .is_some_and(|n| n.contains("before 0.15")),
        "{:?}",
        old.masking.unmarked_note()
    );
}

/// A resource removed from the configuration whose object was already deleted outside Terraform:
/// the plan lists it as a no-op that keeps its `delete_because_no_resource_config` reason. The
/// row's reason said "Destroyed because …" beside a Drift tab saying the plan does not change it.
#[test]
fn a_no_ops_reason_never_says_it_is_destroyed() {
    let doc = load_own("noop_with_delete_reason.json");
    let row = &doc.rows[doc.find_row("aws_ssm_parameter.sg_id").unwrap()];
    assert_eq!(row.action, Action::NoOp);
    let reason = doc.change(row).action_reason.as_deref().unwrap();
    let sentence = planlens::model::reason::describe(reason, row.action);
    assert!(
        sentence.starts_with("Not destroyed: the plan does not change it"),
        "{sentence}"
    );
    let drift = planlens::drift::Drift::of(&doc);
    assert_eq!(drift.resources.len(), 1);
    assert_eq!(
        drift.resources[0].effect.sentence(),
        "The plan does not change this resource.",
        "the Drift tab and the reason agree"
    );
}

/// A policy whose JSON text was only reformatted outside Terraform (the diff says "# whitespace
/// changes") is not drift; it was graded structural and made a "No changes." plan need approval.
/// A real edit of the same kind of string still is.
#[test]
fn reformatted_json_in_a_string_is_not_drift() {
    let doc = load_own("drift_json_whitespace.json");
    let drift = planlens::drift::Drift::of(&doc);
    let drifted: Vec<&str> = drift.resources.iter().map(|r| r.address.as_str()).collect();
    assert_eq!(drifted, ["aws_iam_policy.deploy"]);
    assert_eq!(drift.resources[0].paths, ["policy"]);
    let assets = doc.find_row("aws_s3_bucket_policy.assets").unwrap();
    assert!(!doc.rows[assets].is_drifted);
    let evaluation = builtin_evaluation(&doc);
    assert!(
        evaluation
            .findings
            .iter()
            .all(|f| !f.message.contains("assets")),
        "{:?}",
        evaluation.findings
    );
}

#[test]
fn a_move_listed_with_the_drift_is_not_drift() {
    // Terraform lists a resource a moved block renamed in `resource_drift` as a no-op with its
    // previous address and equal values: nothing changed outside Terraform.
    let doc = load_own("moved_refresh_only.json");
    let drift = planlens::drift::Drift::of(&doc);
    assert!(drift.resources.is_empty(), "{:?}", drift.resources);
    assert!(doc.rows.iter().all(|r| !r.is_drifted));
    let evaluation = builtin_evaluation(&doc);
    assert!(evaluation.findings.is_empty(), "{:?}", evaluation.findings);
    assert!(doc.rows.iter().any(|r| r.is_move));
}

#[test]
fn a_plan_log_missing_lines_is_an_incomplete_plan() {
    let doc = load_own("plan_log_missing_lines.jsonl");
    let planning = planlens::model::summary::Planning::of(&doc);
    assert_eq!(planning, planlens::model::summary::Planning::LogShort);
    assert!(
        Summary::of(&doc)
            .headline(&doc)
            .ends_with("The log is missing lines: there may be more changes."),
        "{}",
        Summary::of(&doc).headline(&doc)
    );
    let evaluation = builtin_evaluation(&doc);
    assert_eq!(
        evaluation.verdict,
        planlens::model::findings::Verdict::Incomplete
    );
    // A whole log (its changes add up to its summary) stays a complete plan.
    let whole = load_own("plan_log.jsonl");
    assert_eq!(
        planlens::model::summary::Planning::of(&whole),
        planlens::model::summary::Planning::Complete
    );
}

#[test]
fn apply_logs_are_refused_as_not_a_plan() {
    for name in ["apply_log.jsonl", "destroy_log_summary_only.jsonl"] {
        let err = load_error(name);
        assert_eq!(err, LoadError::NotAPlan(NotAPlan::ApplyLog), "{name}");
        let message = err.to_string();
        assert!(
            message.starts_with("This is the log of `terraform apply -json`")
                && message.contains("no summary and no verdict")
                && message.contains("terraform plan -json"),
            "{name}: {message}"
        );
    }
}

/// OpenTofu's `tofu plan -json` reads data sources while planning and logs the reads as
/// `apply_start`/`apply_complete` of action `read`; its change summary says `"operation": "plan"`.
/// It is a plan log (it was refused as an apply's, and `check` exited 3).
#[test]
fn a_plan_log_with_data_source_reads_is_a_plan_not_an_apply() {
    let doc = load_own("plan_log_data_reads_removed.jsonl");
    assert!(
        matches!(doc.source, planlens::model::Source::PlanLog(_)),
        "{:?}",
        doc.source
    );
    let actions: Vec<(String, Action)> = doc
        .plan()
        .resource_changes
        .iter()
        .map(|c| (c.address.to_string(), c.change.actions))
        .collect();
    assert_eq!(
        actions,
        [
            ("aws_iam_role.legacy_ci".to_string(), Action::Forget),
            ("aws_sns_topic.alerts".to_string(), Action::Create),
        ]
    );
    assert_eq!(doc.plan().terraform_version.as_deref(), Some("1.8.3"));
    // OpenTofu's version message names it: the Plan: line is OpenTofu's, with its forget count.
    assert_eq!(
        planlens::model::summary::Tool::of(&doc),
        planlens::model::summary::Tool::OpenTofu
    );
    assert_eq!(
        Summary::of(&doc).sentence(),
        "Plan: 1 to add, 0 to change, 0 to destroy, 1 to forget."
    );
    // A log has no values; the instance rule names its types, so it says nothing of a topic or
    // a role (it warned "Not checked on 1 resource").
    let evaluation = builtin_evaluation(&doc);
    assert!(evaluation.findings.is_empty(), "{:?}", evaluation.findings);
    assert_eq!(evaluation.verdict, planlens::model::findings::Verdict::Pass);
    // Without a change summary, a hook that changes something still marks an apply's log.
    let log = String::from_utf8(own_fixture("apply_log.jsonl")).unwrap();
    let cut: String = log
        .lines()
        .filter(|l| !l.contains("\"change_summary\""))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        load_plan_text(cut, "apply.jsonl").unwrap_err(),
        LoadError::NotAPlan(NotAPlan::ApplyLog)
    );
}

/// A plan log's `outputs` message lists the outputs the plan changes (actions and sensitivity,
/// no values): they reach the outputs, the summary and the comment.
#[test]
fn a_plan_logs_outputs_are_its_output_changes() {
    let doc = load_own("plan_log_outputs.jsonl");
    let rows = output_rows(&doc);
    let named: Vec<(&str, Action, bool)> = rows
        .iter()
        .map(|o| (o.name.as_str(), o.action, o.sensitive))
        .collect();
    assert_eq!(
        named,
        [
            ("bucket_arn", Action::Create, false),
            ("bucket_name", Action::Create, false),
            ("deploy_hook_url", Action::Create, true),
        ]
    );
    assert_eq!(Summary::of(&doc).output_changes, 3);
    let analysis = planlens::analysis::Analysis::of(&doc);
    let evaluation = builtin_evaluation(&doc);
    let comment = planlens::share::markdown::summary(&doc, &analysis, &evaluation, None);
    assert!(
        comment.contains("<summary>Output changes (3)</summary>")
            && comment.contains("| + create | `deploy_hook_url` (sensitive) |"),
        "{comment}"
    );
}

/// Text that is neither JSON nor a plan says what it is (an apply's output, an Atlantis comment
/// of another command, driftctl's text output), not "This is not JSON".
#[test]
fn text_that_is_not_a_plan_says_what_it_is() {
    let cases: [(&str, NotAPlan, &str); 4] = [
        (
            "not_plans/atlantis_apply_comment.md",
            NotAPlan::AtlantisComment {
                command: "Apply".to_string(),
            },
            "This is an Atlantis comment of `apply` (\"Ran Apply for …\"), not of `atlantis plan`",
        ),
        (
            "not_plans/atlantis_policy_check_comment.md",
            NotAPlan::AtlantisComment {
                command: "Policy Check".to_string(),
            },
            "This is an Atlantis comment of `policy check`",
        ),
        (
            "not_plans/driftctl_text_output.txt",
            NotAPlan::DriftctlText,
            "This is driftctl's text output; Planlens reads its JSON report.",
        ),
        (
            "not_plans/terraform_0_11_apply.log",
            NotAPlan::ApplyOutput,
            "This is the output of `terraform apply` (or `destroy`)",
        ),
    ];
    for (name, what, start) in cases {
        let err = load_error(name);
        assert_eq!(err, LoadError::NotAPlan(what), "{name}");
        let message = err.to_string();
        assert!(message.starts_with(start), "{name}: {message}");
        assert!(!message.contains("not JSON"), "{name}: {message}");
    }
    // An apply's output that prints its plan first is read as that plan, saying it was applied.
    let apply = common::fixture("tests/fixtures/text_plans/apply_with_its_plan.txt");
    let doc = load_own(apply.name());
    assert_eq!(Summary::of(&doc).sentence(), manifest_sentence(&apply));
    assert!(
        doc.warnings
            .iter()
            .any(|w| w.contains("these changes were already applied")),
        "{:?}",
        doc.warnings
    );
}

fn load_error(name: &str) -> LoadError {
    load_plan(own_fixture(name), name).expect_err(name)
}

#[test]
fn bad_inputs_get_clear_messages() {
    let cases: [(&str, &str); 5] = [
        (
            "empty.json",
            "The file is empty. Planlens opens the output of `terraform show -json PLANFILE`, `terraform plan -json` logs and driftctl JSON reports.",
        ),
        (
            "not_json.txt",
            "This is not JSON: key must be a string at line 3, column 5.",
        ),
        (
            "truncated.json",
            "The file ends too early, at line 97, column 21: it looks truncated. Was the download or copy cut off?",
        ),
        (
            "random.json",
            "This is JSON, but not a Terraform plan: it has no format_version and none of a plan's keys (it has: hello).",
        ),
        (
            "array.json",
            "This is JSON, but not a Terraform plan: the top level is an array, not an object.",
        ),
    ];
    for (name, message) in cases {
        let err = load_error(name).to_string();
        assert!(err.starts_with(message), "{name}: {err}");
    }
}

#[test]
fn whitespace_only_text_is_empty() {
    assert_eq!(
        load_plan_text(" \n\t".into(), "pasted").unwrap_err(),
        LoadError::Empty
    );
}

#[test]
fn a_file_over_the_limit_is_refused_before_parsing() {
    let err = load_plan(vec![b' '; MAX_FILE_BYTES + 1], "huge.json").unwrap_err();
    assert!(matches!(err, LoadError::TooLarge { .. }));
    assert!(
        err.to_string()
            .contains("Planlens opens plans up to 300 MB"),
        "{err}"
    );
}

#[test]
fn non_utf8_and_utf16_files_are_named_as_such() {
    let err = load_plan(b"{\n \"a\": \"\xff\"}".to_vec(), "x.json").unwrap_err();
    assert_eq!(err, LoadError::NotUtf8 { line: 2, column: 8 });
    // UTF-16 opens (tests/core/inputs.rs); damaged UTF-16 (an odd number of bytes) is named.
    let err = load_plan(vec![0xFF, 0xFE, b'{', 0, b'}'], "x.json").unwrap_err();
    assert_eq!(err, LoadError::Utf16);
}

#[test]
fn json_of_the_wrong_shape_says_where() {
    let err = load_plan_text(
        r#"{"format_version": "1.2", "resource_changes": 7}"#.into(),
        "x",
    )
    .unwrap_err();
    assert!(
        matches!(err, LoadError::InvalidPlan { line: 1, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("invalid type: integer `7`"),
        "{err}"
    );
    let err = load_plan_text(r#"{"format_version": "1.2", "resource_changes": [{"address": "a.b", "change": {"actions": ["explode"]}}]}"#.into(), "x")
        .unwrap_err();
    assert!(
        err.to_string().contains("unknown actions [\"explode\"]"),
        "{err}"
    );
    // `values` alone is no state (`terraform show -json` always writes format_version): it is
    // refused, never opened as an empty state.
    assert_eq!(
        load_plan_text(r#"{"values": {}}"#.into(), "x").unwrap_err(),
        LoadError::NotAPlan(NotAPlan::OtherJson {
            keys: vec!["values".into()]
        })
    );
}

#[test]
fn the_summary_line_is_the_one_the_plans_tool_prints() {
    use planlens::model::summary::Tool;
    // forget.json's providers come from registry.terraform.io; the same plan made by OpenTofu
    // names registry.opentofu.org, and OpenTofu's line counts the forgets.
    let text = String::from_utf8(own_fixture("forget.json")).unwrap();
    let terraform = load_plan_text(text.clone(), "forget.json").unwrap();
    assert_eq!(Tool::of(&terraform), Tool::Terraform);
    let tofu = text.replace("registry.terraform.io/", "registry.opentofu.org/");
    let tofu = load_plan_text(tofu, "forget-tofu.json").unwrap();
    assert_eq!(Tool::of(&tofu), Tool::OpenTofu);
    assert_eq!(
        Summary::of(&tofu).sentence(),
        "Plan: 2 to add, 0 to change, 0 to destroy, 2 to forget."
    );
    // A plan that names neither registry keeps the form that loses nothing.
    let neither = text.replace("registry.terraform.io/", "example.com/");
    let neither = load_plan_text(neither, "forget-unknown.json").unwrap();
    assert_eq!(Tool::of(&neither), Tool::Unknown);
    assert_eq!(
        Summary::of(&neither).sentence(),
        "Plan: 2 to add, 0 to change, 0 to destroy, 2 to forget."
    );
}

/// Found by fuzzing: a text plan whose `Error:` line was 80 KB long put all of it into the
/// headline and the verdict line, and the PR comment grew past GitHub's 65,536 bytes. The
/// sentence keeps the first 300 bytes of an error's summary; the comment never passes the limit.
#[test]
fn an_endless_error_summary_is_clipped_in_the_headline_and_the_comment() {
    let long = "A".repeat(100_000);
    let text = format!(
        "Planning failed. Terraform encountered an error while generating this plan.\n\n╷\n│ \
         Error: {long}\n│ \n╵\n"
    );
    let doc = load_plan_text(text, "long_error.txt").unwrap();
    let headline = Summary::of(&doc).headline(&doc);
    assert!(headline.starts_with("Planning failed: AAAA"), "{headline}");
    assert!(headline.len() < 400, "{} bytes", headline.len());
    assert!(headline.contains('…'), "{headline}");
    let analysis = planlens::analysis::Analysis::of(&doc);
    let evaluation = builtin_evaluation(&doc);
    let comment = planlens::share::markdown::summary(&doc, &analysis, &evaluation, None);
    assert!(
        comment.len() < 5_000,
        "a comment of {} bytes",
        comment.len()
    );
    assert!(comment.len() <= planlens::share::GITHUB_COMMENT_LIMIT);
}
