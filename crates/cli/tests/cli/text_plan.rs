//! Human-readable plans: every text/JSON pair of Terraform's equivalence tests gives the same
//! summary and the same action per address; our own texts cover OpenTofu wording, drift, CI logs
//! with colour and timestamps, PR comments, a cut tf-controller message, values as the text shows
//! them, the rules' honesty about values a text does not show.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::builtin_evaluation as evaluate;
use planlens::load::Direct;
use planlens::load::text_plan;
use planlens::model::source::Source;
use planlens::model::summary::Summary;
use planlens::model::{Action, Document};

fn dir() -> PathBuf {
    common::repo_dir().join("tests/fixtures/text_plans")
}

fn load(path: &std::path::Path) -> Document {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    planlens::load::load_plan(bytes, &path.display().to_string())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn own(name: &str) -> Document {
    load(&dir().join(name))
}

fn own_text(name: &str) -> String {
    std::fs::read_to_string(dir().join(name)).unwrap()
}

/// Address (with the deposed key) → action, of the planned changes a text can show: a plain
/// no-op (nothing moved or imported) is never printed.
fn actions(doc: &Document) -> BTreeMap<String, Action> {
    doc.plan()
        .resource_changes
        .iter()
        .filter(|c| c.change.actions != Action::NoOp || c.is_move() || c.change.importing.is_some())
        .map(|c| {
            let key = match &c.deposed {
                Some(d) => format!("{} (deposed {d})", c.address),
                None => c.address.to_string(),
            };
            (key, c.change.actions)
        })
        .collect()
}

/// The counts Terraform's sentence is made of, and the sentence.
fn counts(
    s: &Summary,
) -> (
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    String,
) {
    (
        s.add,
        s.change,
        s.destroy,
        s.import,
        s.replace,
        s.forget,
        s.reads,
        s.moves,
        s.sentence(),
    )
}

fn pairs() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir().join("terraform-1.5.7"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

#[test]
fn every_pair_gives_the_same_summary_and_actions_as_its_json() {
    let pairs = pairs();
    assert!(pairs.len() >= 15, "only {} pairs", pairs.len());
    for pair in pairs {
        let text = load(&pair.join("plan"));
        let json = load(&pair.join("plan.json"));
        let name = pair.file_name().unwrap().to_string_lossy().to_string();
        assert!(
            matches!(text.source, Source::TextPlan(_)),
            "{name}: read as {:?}",
            text.source.kind()
        );
        assert!(matches!(json.source, Source::Plan), "{name}");
        assert_eq!(actions(&text), actions(&json), "{name}: actions differ");
        assert_eq!(
            counts(&Summary::of(&text)),
            counts(&Summary::of(&json)),
            "{name}: summaries differ"
        );
        // Moves, imports and reasons: the same too.
        for t in &text.plan().resource_changes {
            let j = json
                .plan()
                .resource_changes
                .iter()
                .find(|c| c.address == t.address && c.deposed == t.deposed)
                .unwrap_or_else(|| panic!("{name}: {} not in the JSON", t.address));
            assert_eq!(
                t.previous_address, j.previous_address,
                "{name}: {}",
                t.address
            );
            assert_eq!(t.action_reason, j.action_reason, "{name}: {}", t.address);
            assert_eq!(
                t.change.importing.is_some(),
                j.change.importing.is_some(),
                "{name}: {}",
                t.address
            );
        }
        let Source::TextPlan(facts) = &text.source else {
            unreachable!()
        };
        assert_eq!(facts.skipped_lines, 0, "{name}: lines skipped");
        assert!(!facts.cut, "{name}: read as cut");
        assert!(facts.unread.is_empty(), "{name}: unread {:?}", facts.unread);
        assert!(text.warnings.is_empty(), "{name}: {:?}", text.warnings);
        // Drift the text shows is drift the JSON has.
        for d in &text.plan().resource_drift {
            let j = json
                .plan()
                .resource_drift
                .iter()
                .find(|j| j.address == d.address)
                .unwrap_or_else(|| panic!("{name}: drift of {} not in the JSON", d.address));
            assert_eq!(d.change.actions, j.change.actions, "{name}: {}", d.address);
        }
        // Output changes: the same names and actions.
        let outs = |doc: &Document| -> BTreeMap<String, Action> {
            doc.plan()
                .output_changes
                .iter()
                .filter(|(_, c)| c.actions != Action::NoOp)
                .map(|(k, c)| (k.to_string(), c.actions))
                .collect()
        };
        assert_eq!(outs(&text), outs(&json), "{name}: outputs differ");
    }
}

fn facts(doc: &Document) -> &planlens::model::source::TextPlanFacts {
    match &doc.source {
        Source::TextPlan(f) => f,
        other => panic!("read as {}", other.kind()),
    }
}

fn change<'d>(doc: &'d Document, address: &str) -> &'d planlens::model::ResourceChange<'d> {
    doc.plan()
        .resource_changes
        .iter()
        .find(|c| c.address == address)
        .unwrap_or_else(|| panic!("no change for {address}"))
}

fn json(raw: Option<&serde_json::value::RawValue>) -> serde_json::Value {
    raw.map_or(serde_json::Value::Null, |r| {
        serde_json::from_str(r.get()).unwrap()
    })
}

#[test]
fn opentofu_wording_every_header_and_the_drift_section_are_read() {
    let doc = own("opentofu_drift.txt");
    let f = facts(&doc);
    assert_eq!(f.tool.as_deref(), Some("OpenTofu"));
    assert_eq!((f.skipped_lines, f.cut), (0, false));
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    use planlens::model::ReplaceOrder::*;
    let want = [
        ("aws_instance.web[0]", Action::Create, None),
        ("aws_db_instance.main", Action::Update, None),
        ("aws_iam_policy.deploy", Action::Update, None),
        (
            "aws_launch_template.app",
            Action::Replace(CreateThenDelete),
            Some("replace_because_cannot_update"),
        ),
        (
            "aws_instance.bastion",
            Action::Replace(DeleteThenCreate),
            Some("replace_because_tainted"),
        ),
        ("aws_instance.old", Action::Delete, None),
        (
            "module.net.aws_subnet.private[\"b\"]",
            Action::Delete,
            Some("delete_because_each_key"),
        ),
        ("aws_route53_record.www", Action::NoOp, None),
        ("aws_iam_role.legacy", Action::Forget, None),
        (
            "data.aws_iam_policy_document.assume",
            Action::Read,
            Some("read_because_dependency_pending"),
        ),
    ];
    assert_eq!(doc.plan().resource_changes.len(), want.len());
    for (address, action, reason) in want {
        let c = change(&doc, address);
        assert_eq!(c.change.actions, action, "{address}");
        assert_eq!(c.action_reason.as_deref(), reason, "{address}");
    }
    assert_eq!(
        change(&doc, "aws_instance.old").deposed.as_deref(),
        Some("2f8a1c3b")
    );
    assert!(
        change(&doc, "aws_route53_record.www")
            .change
            .importing
            .is_some()
    );
    assert_eq!(
        change(&doc, "module.net.aws_subnet.private[\"b\"]")
            .module_address
            .as_deref(),
        Some("module.net")
    );
    // The summary agrees with the text's own line (forget aside, which it counts apart).
    let s = Summary::of(&doc);
    assert_eq!(
        (s.import, s.add, s.change, s.destroy, s.forget),
        (1, 3, 2, 4, 1)
    );
    // "Objects have changed outside of OpenTofu": has changed / has been deleted.
    let drift: Vec<(String, Action)> = doc
        .plan()
        .resource_drift
        .iter()
        .map(|d| (d.address.to_string(), d.change.actions))
        .collect();
    assert_eq!(
        drift,
        [
            ("aws_security_group.web".to_string(), Action::Update),
            ("aws_s3_bucket.logs".to_string(), Action::Delete)
        ]
    );
    let outputs: Vec<(String, Action)> = doc
        .plan()
        .output_changes
        .iter()
        .map(|(k, c)| (k.to_string(), c.actions))
        .collect();
    assert_eq!(
        outputs,
        [
            ("db_endpoint".to_string(), Action::Update),
            ("db_password".to_string(), Action::Create),
            ("legacy_arn".to_string(), Action::Delete),
        ]
    );
}

#[test]
fn values_are_only_what_the_text_shows() {
    let doc = own("opentofu_drift.txt");
    // A create: its values, unknowns as after_unknown, a heredoc whose lines start with "- ".
    let web = change(&doc, "aws_instance.web[0]");
    let after = json(web.change.after);
    assert_eq!(after["instance_type"], "m5.24xlarge");
    assert_eq!(after["tags"]["Name"], "web-0");
    assert_eq!(
        after["user_data"],
        "#!/bin/bash\n- echo \"a list item in a script\"\necho \"done\""
    );
    assert_eq!(after["root_block_device"][0]["volume_size"], 50);
    assert!(
        after.get("arn").is_none(),
        "an unknown value is not in after"
    );
    assert_eq!(json(web.change.after_unknown)["arn"], true);
    assert_eq!(json(web.change.before), serde_json::Value::Null);
    // An update: changed and shown attributes only; the hidden 40 are not invented.
    let db = change(&doc, "aws_db_instance.main");
    let (before, after) = (json(db.change.before), json(db.change.after));
    assert_eq!(before["instance_class"], "db.t3.medium");
    assert_eq!(after["instance_class"], "db.r5.large");
    assert_eq!(before.as_object().unwrap().len(), 4, "{before}");
    // (sensitive value): a mark, never a value; a changed one differs by a placeholder that says
    // so, so the diff shows the change the text names.
    assert_eq!(after["password"], text_plan::SENSITIVE_AFTER);
    assert_eq!(before["password"], text_plan::SENSITIVE_BEFORE);
    assert_eq!(json(db.change.after_sensitive)["password"], true);
    assert_eq!(json(db.change.before_sensitive)["password"], true);
    // # forces replacement → replace_paths.
    let lt = change(&doc, "aws_launch_template.app");
    assert_eq!(
        json(lt.change.replace_paths),
        serde_json::json!([["image_id"]])
    );
    assert_eq!(json(lt.change.after_unknown)["latest_version"], true);
    // jsonencode(…) with hidden parts: the parts shown, as the structure they are.
    let policy = change(&doc, "aws_iam_policy.deploy");
    assert_eq!(
        json(policy.change.after)["policy"]["Statement"][0]["Action"],
        serde_json::json!(["s3:*"])
    );
    // A complete jsonencode(…) is the JSON string it encodes (Terraform's pair).
    let pair = load(&dir().join("terraform-1.5.7/local_provider_delete/plan"));
    let c = change(&pair, "local_file.local_file");
    assert_eq!(json(c.change.before)["content"], "{\"hello\":\"world\"}");
    // A heredoc diff: each side's lines.
    let pair = load(&dir().join("terraform-1.5.7/basic_multiline_string_update/plan"));
    let c = change(&pair, "tfcoremock_simple_resource.multiline");
    assert_eq!(
        json(c.change.before)["string"],
        "one\ntwo\nthree\nfour\nfive"
    );
    assert_eq!(
        json(c.change.after)["string"],
        "one\nthree\ntwo\nfour\nsix\nseven"
    );
    // Sensitive outputs stay marks.
    let out = &doc.plan().output_changes["db_password"];
    assert_eq!(json(out.after_sensitive), true);
    assert_eq!(json(out.after), serde_json::Value::Null);
    // No configuration: no dependency edges, whatever the text.
    let analysis = planlens::analysis::Analysis::of(&doc);
    assert_eq!(analysis.graph(&doc).graph.edge_count(), 0);
}

#[test]
fn a_ci_log_with_colour_timestamps_and_markers_reads_like_the_plain_text() {
    let doc = own("ci_log_github_actions.txt");
    let f = facts(&doc);
    assert_eq!(
        f.cleaned,
        ["colour codes", "log timestamps", "CI log markers"]
    );
    assert_eq!(
        actions(&doc),
        BTreeMap::from([
            ("aws_s3_bucket.assets".to_string(), Action::Update),
            ("aws_sqs_queue.jobs".to_string(), Action::Create),
        ])
    );
    assert_eq!(
        json(change(&doc, "aws_s3_bucket.assets").change.after)["tags"]["CostCenter"],
        "42"
    );
    assert_eq!(f.hidden, 9);
    // `terraform plan`, `shell: …` and `Initializing the backend...` are not the plan.
    assert_eq!(f.skipped_lines, 3);
    assert!(
        doc.warnings
            .iter()
            .any(|w| w.contains("3 lines of the text"))
    );
    assert_eq!(
        Summary::of(&doc).sentence(),
        "Plan: 1 to add, 1 to change, 0 to destroy."
    );
}

#[test]
fn atlantis_and_tfcmt_comments_open() {
    let doc = own("atlantis_comment.md");
    assert!(facts(&doc).cleaned.iter().any(|c| c.contains("PR comment")));
    assert_eq!(
        actions(&doc),
        BTreeMap::from([
            ("aws_instance.app".to_string(), Action::Update),
            ("aws_s3_bucket.assets".to_string(), Action::Create),
        ])
    );
    // Atlantis writes `~` as `!` and moves the symbols to the first column.
    let app = change(&doc, "aws_instance.app");
    assert_eq!(json(app.change.after)["instance_type"], "t3.large");
    assert_eq!(json(app.change.before)["instance_type"], "t3.small");

    let doc = own("tfcmt_comment.md");
    assert_eq!(
        actions(&doc),
        BTreeMap::from([
            ("aws_sqs_queue.jobs".to_string(), Action::Create),
            ("aws_sqs_queue.old".to_string(), Action::Delete),
        ])
    );
    assert_eq!(
        change(&doc, "aws_sqs_queue.old").action_reason.as_deref(),
        Some("delete_because_no_resource_config")
    );
    assert!(
        doc.warnings
            .iter()
            .all(|w| !w.contains("`Plan:` line says"))
    );
}

#[test]
fn a_tf_controller_message_cut_at_20000_characters_says_it_was_cut() {
    let text = own_text("tf_controller_drift_message_cut.txt");
    assert_eq!(text.chars().count(), 20_000);
    // The API the fleet view reads: drifted resources and changes, and whether the text was cut.
    let read = text_plan::read(&text).unwrap();
    assert!(read.facts.cut);
    assert!(read.facts.summary_line.is_none());
    let drifted: Vec<&str> = read.drift.iter().map(|d| d.address.as_str()).collect();
    assert_eq!(
        drifted,
        [
            "aws_security_group.team[0]",
            "aws_security_group.team[1]",
            "aws_security_group.team[2]"
        ]
    );
    assert!(read.drift.iter().all(|d| d.action == Action::Update));
    assert_eq!(read.changes.len(), 27);
    // Opened, it is never judged as a whole plan: its planning status says it was cut, the
    // headline that there may be more, the verdict is "plan incomplete", never "pass".
    let doc = own("tf_controller_drift_message_cut.txt");
    assert!(facts(&doc).cut);
    let planning = planlens::model::summary::Planning::of(&doc);
    assert_eq!(planning, planlens::model::summary::Planning::Cut);
    assert!(planning.sentence().unwrap().contains("it was cut"));
    assert_eq!(
        Summary::of(&doc).headline(&doc),
        "Plan: 24 to add, 3 to change, 0 to destroy. The text was cut: there may be more changes."
    );
    assert_eq!(
        evaluate(&doc).verdict,
        planlens::model::findings::Verdict::Incomplete
    );
    // A text cut inside a resource's body keeps that resource, with no values.
    let whole = own_text("opentofu_drift.txt");
    let at = whole.find("      ~ password").unwrap();
    let read = text_plan::read(&whole[..at]).unwrap();
    assert!(read.facts.cut);
    assert_eq!(read.facts.unread, ["aws_db_instance.main"]);
    assert_eq!(read.changes.last().unwrap().action, Action::Update);
}

#[test]
fn a_text_without_a_plan_is_refused_plainly_and_a_failed_plan_is_failed() {
    let err = planlens::load::load_plan(std::fs::read(dir().join("no_plan.txt")).unwrap(), "x")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("human-readable plan") && err.contains("no plan in it"),
        "{err}"
    );
    assert!(text_plan::read("hello\nworld\n").is_err());
    // Plain text with no plan markers stays "not JSON".
    let err = planlens::load::load_plan(b"just some notes".to_vec(), "x").unwrap_err();
    assert!(err.to_string().starts_with("This is not JSON"), "{err}");

    let doc = own("plan_failed.txt");
    assert_eq!(facts(&doc).errors, ["Reference to undeclared resource"]);
    assert!(planlens::model::summary::Planning::of(&doc).failed());
}

#[test]
fn terraform_0_12_wording_reads() {
    let doc = own("terraform_0_12.txt");
    let f = facts(&doc);
    assert_eq!((f.skipped_lines, f.cut), (0, false));
    assert_eq!(
        actions(&doc),
        BTreeMap::from([
            ("aws_subnet.a".to_string(), Action::Create),
            ("aws_vpc.old".to_string(), Action::Delete),
        ])
    );
    assert_eq!(
        json(change(&doc, "aws_vpc.old").change.before)["tags"]["Name"],
        "old"
    );
}

#[test]
fn rules_that_read_values_the_text_hides_say_so_instead_of_passing() {
    use planlens::model::findings::{RuleSeverity, Verdict};
    // The bucket's update shows only its tags, but a bucket can never have an instance type: the
    // rule, which names the types it reads, says nothing about it (it warned "Not checked").
    let doc = own("ci_log_github_actions.txt");
    let ev = evaluate(&doc);
    assert!(ev.findings.is_empty(), "{:?}", ev.findings);
    assert_eq!(ev.verdict, Verdict::Pass);
    // An instance's update that hides its type is not checked, and says so; a null_resource's
    // beside it is not counted.
    let doc = own("instance_type_hidden.txt");
    let ev = evaluate(&doc);
    let unchecked: Vec<_> = ev
        .findings
        .iter()
        .filter(|f| f.message.starts_with("Not checked on"))
        .collect();
    assert_eq!(unchecked.len(), 1, "{:?}", ev.findings);
    assert_eq!(unchecked[0].rule_id, "large-instance-outside-prod");
    assert_eq!(unchecked[0].severity, RuleSeverity::Warn);
    assert_eq!(unchecked[0].resource, None);
    assert!(
        unchecked[0].message.contains("1 resource:"),
        "{}",
        unchecked[0].message
    );
    assert_eq!(ev.verdict, Verdict::Warn);
    // Where the text shows the value, the rule decides: a large create is denied, a small
    // update shown in full is not "not checked", and a create's values are whole.
    let doc = own("opentofu_drift.txt");
    let ev = evaluate(&doc);
    let rows: Vec<String> = ev
        .findings
        .iter()
        .filter(|f| f.rule_id == "large-instance-outside-prod")
        .map(|f| match f.resource {
            Some(i) => doc.change(&doc.rows[i]).address.to_string(),
            None => f.message.clone(),
        })
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.contains(&"aws_instance.web[0]".to_string()));
    assert!(
        rows.iter()
            .any(|r| r.starts_with("Not checked on 1 resource:")),
        "{rows:?}"
    );
    let doc = own("atlantis_comment.md");
    assert_eq!(
        evaluate(&doc).verdict,
        Verdict::Pass,
        "{:?}",
        evaluate(&doc).findings
    );
    // Rules on actions and addresses run as on a plan.
    let doc = own("tfcmt_comment.md");
    let ev = evaluate(&doc);
    assert!(
        ev.findings
            .iter()
            .any(|f| f.rule_id == "destroy-needs-approval"
                && f.message == "Destroy needs approval: aws_sqs_queue.old")
    );
    assert_eq!(ev.verdict, Verdict::NeedsApproval);
}

#[test]
fn the_cli_summarises_and_checks_a_text_plan() {
    let path = dir().join("ci_log_github_actions.txt");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_planlens"))
        .args(["summary", path.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("Plan: 1 to add, 1 to change, 0 to destroy."),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Read from a human-readable plan"),
        "{stderr}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_planlens"))
        .args(["check", dir().join("tfcmt_comment.md").to_str().unwrap()])
        .output()
        .unwrap();
    // Needs approval: the destroy.
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_planlens"))
        .args(["check", path.to_str().unwrap()])
        .output()
        .unwrap();
    // Pass: nothing the text shows breaks a rule, and no rule reads what a bucket cannot have.
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let hidden = dir().join("instance_type_hidden.txt");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_planlens"))
        .args(["check", hidden.to_str().unwrap()])
        .output()
        .unwrap();
    // Warn: the instance's type is hidden by the text.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Not checked on 1 resource"));
}

#[test]
fn the_session_index_carries_the_text_plan_facts() {
    // The page reads the worker's index: the source and its facts must survive it.
    let bytes = std::fs::read(dir().join("opentofu_drift.txt")).unwrap();
    let options = planlens::session::OpenOptions {
        name: "opentofu_drift.txt".to_string(),
        mask_builtin: true,
        mask_user: Vec::new(),
        rules: None,
        labels: BTreeMap::new(),
    };
    let session = planlens::session::Session::open_bytes(bytes, &options, &Direct).unwrap();
    let index = session.index(None, &BTreeMap::new());
    let index: planlens::session::Index =
        serde_json::from_str(&serde_json::to_string(&index).unwrap()).unwrap();
    let page = index.document().unwrap();
    let Source::TextPlan(f) = &page.source else {
        panic!("the index lost the source: {}", page.source.kind())
    };
    assert_eq!(f.tool.as_deref(), Some("OpenTofu"));
    assert!(f.hidden > 0);
}

#[test]
fn a_full_link_of_a_text_plan_carries_no_secret_and_opens_as_a_text_plan_again() {
    let text = "Terraform will perform the following actions:\n\n  \
                # aws_db_instance.main will be created\n  \
                + resource \"aws_db_instance\" \"main\" {\n      \
                + engine   = \"postgres\"\n      \
                + password = \"hunter2-from-the-text\"\n    \
                }\n\nPlan: 1 to add, 0 to change, 0 to destroy.\n";
    let doc = planlens::load::load_plan_text(text.to_string(), "pasted").unwrap();
    assert!(matches!(doc.source, Source::TextPlan(_)));
    // Masked by name like any plan's value.
    let c = change(&doc, "aws_db_instance.main");
    assert_eq!(json(c.change.after_sensitive)["password"], true);
    let shared = planlens::share::strip::shareable_text(&doc);
    assert!(!shared.contains("hunter2"), "{shared}");
    assert!(shared.contains("postgres"));
    let again = planlens::load::load_plan_text(shared, "link").unwrap();
    let Source::TextPlan(f) = &again.source else {
        panic!("reopened as {}", again.source.kind())
    };
    assert_eq!(f, facts(&doc));
    assert_eq!(actions(&again), actions(&doc));
}

#[test]
fn the_pr_comment_says_the_plan_was_read_from_text() {
    let doc = own("ci_log_github_actions.txt");
    let analysis = planlens::analysis::Analysis::of(&doc);
    let ev = evaluate(&doc);
    let comment = planlens::share::markdown::summary(&doc, &analysis, &ev, None);
    assert!(
        comment.contains("Read from a human-readable plan"),
        "{comment}"
    );
    let doc = own("tf_controller_drift_message_cut.txt");
    let analysis = planlens::analysis::Analysis::of(&doc);
    let comment = planlens::share::markdown::summary(&doc, &analysis, &evaluate(&doc), None);
    assert!(comment.contains("The text was cut"), "{comment}");
}

#[test]
fn deeply_nested_or_damaged_bodies_keep_their_resource_and_never_panic() {
    let mut text = String::from(
        "Terraform will perform the following actions:\n\n  # aws_x.deep will be created\n  \
         + resource \"aws_x\" \"deep\" {\n",
    );
    for _ in 0..100_000 {
        text.push_str("      + a = [\n");
    }
    text.push_str(
        "\n  # aws_x.next will be destroyed\n  - resource \"aws_x\" \"next\" {\n      \
                   - id = \"n\" -> null\n    }\n\nPlan: 1 to add, 0 to change, 1 to destroy.\n",
    );
    let read = text_plan::read(&text).unwrap();
    assert_eq!(
        read.changes
            .iter()
            .map(|c| (c.address.as_str(), c.action))
            .collect::<Vec<_>>(),
        [
            ("aws_x.deep", Action::Create),
            ("aws_x.next", Action::Delete)
        ]
    );
    assert_eq!(read.facts.unread, ["aws_x.deep"]);
    // Garbage inside a body: the resource stays, the lines are not invented into values.
    let text = "  # aws_x.y will be updated in-place\n  ~ resource \"aws_x\" \"y\" {\n      \
                ~ tags = {\n          %%% not terraform %%%\n        }\n    }\n\n\
                Plan: 0 to add, 1 to change, 0 to destroy.\n";
    let read = text_plan::read(text).unwrap();
    assert_eq!(read.changes[0].action, Action::Update);
    let plan: serde_json::Value = serde_json::from_str(&read.plan_json).unwrap();
    assert_eq!(
        plan["resource_changes"][0]["change"]["after"]["tags"],
        serde_json::json!({})
    );
}

#[test]
fn no_changes_in_every_version_s_words_is_a_plan_with_no_changes() {
    for text in [
        // Terraform 0.12 – 0.14.
        "aws_vpc.main: Refreshing state... [id=vpc-1]\n\nNo changes. Infrastructure is up-to-date.\n\n\
         This means that Terraform did not detect any differences between your\n\
         configuration and real physical resources that exist. As a result, no\n\
         actions need to be performed.\n",
        // Terraform 1.x and OpenTofu.
        "No changes. Your infrastructure matches the configuration.\n\nOpenTofu has compared your \
         real infrastructure against your configuration\nand found no differences, so no changes \
         are needed.\n",
    ] {
        let doc = planlens::load::load_plan_text(text.to_string(), "x").unwrap();
        let f = facts(&doc);
        assert!(f.no_changes && !f.cut, "{text}");
        assert_eq!(f.skipped_lines, 0, "{text}");
        assert_eq!(Summary::of(&doc).headline(&doc), "No changes.");
        assert_eq!(
            evaluate(&doc).verdict,
            planlens::model::findings::Verdict::Pass
        );
    }
}

#[test]
fn a_text_whose_changes_do_not_add_up_to_its_plan_line_never_passes() {
    // One resource's block is missing (a CI step filtered it out): the text's own `Plan:` line
    // says 2 to add, so the plan is judged incomplete, and its headline gives both counts.
    let doc = own("plan_line_disagrees.txt");
    let planning = planlens::model::summary::Planning::of(&doc);
    assert_eq!(planning, planlens::model::summary::Planning::TextShort);
    let headline = planlens::Summary::of(&doc).headline(&doc);
    assert_eq!(
        headline,
        "The text's `Plan:` line says 2 to add, 0 to change, 0 to destroy; the changes read from \
         it: Plan: 1 to add, 0 to change, 0 to destroy."
    );
    assert_eq!(
        evaluate(&doc).verdict,
        planlens::model::findings::Verdict::Incomplete
    );
    // A text whose changes add up stays a complete plan.
    let whole = own("terraform_0_12.txt");
    assert_eq!(
        planlens::model::summary::Planning::of(&whole),
        planlens::model::summary::Planning::Complete
    );
}

#[test]
fn terraform_0_11_plans_are_read_with_their_actions() {
    // 0.11 has no `# … will be …` headers: a symbol, the address and notes, then `name: value`
    // lines, which are not read (the resources are listed as unread, never with invented values).
    let doc = own("terraform_0_11_plan.txt");
    assert_eq!(
        planlens::model::summary::Planning::of(&doc),
        planlens::model::summary::Planning::Complete
    );
    assert_eq!(
        planlens::Summary::of(&doc).sentence(),
        "Plan: 3 to add, 1 to change, 3 to destroy."
    );
    let rows: Vec<(String, Action, Option<String>)> = doc
        .rows
        .iter()
        .map(|r| {
            let c = doc.change(r);
            (
                c.address.to_string(),
                r.action,
                c.action_reason.as_deref().map(str::to_string),
            )
        })
        .collect();
    let replace = Action::Replace(planlens::model::ReplaceOrder::DeleteThenCreate);
    let reason = |r: &str| Some(r.to_string());
    // In the text's order.
    assert_eq!(
        rows,
        [
            (
                "data.aws_iam_policy_document.assume".to_string(),
                Action::Read,
                None
            ),
            ("aws_iam_role.app".to_string(), Action::Create, None),
            (
                "aws_instance.web".to_string(),
                replace,
                reason("replace_because_tainted")
            ),
            ("aws_security_group.web".to_string(), Action::Update, None),
            (
                "module.queue.aws_sqs_queue.jobs".to_string(),
                Action::Delete,
                None
            ),
            (
                "module.queue.aws_sqs_queue.dead_letter[0]".to_string(),
                replace,
                reason("replace_because_cannot_update")
            ),
        ]
    );
    assert!(
        doc.warnings
            .iter()
            .any(|w| w.starts_with("The attributes of 6 resources could not be read")),
        "{:?}",
        doc.warnings
    );
    // Its destroys need approval: a 0.11 destroy plan no longer reads as "No changes.".
    assert_eq!(
        evaluate(&doc).verdict,
        planlens::model::findings::Verdict::NeedsApproval
    );
    let destroy = own("terraform_0_11_destroy.txt");
    assert_eq!(
        planlens::Summary::of(&destroy).sentence(),
        "Plan: 0 to add, 0 to change, 1 to destroy."
    );
    assert_eq!(
        evaluate(&destroy).verdict,
        planlens::model::findings::Verdict::NeedsApproval
    );
}

#[test]
fn an_atlantis_comment_with_several_projects_is_never_judged_as_one_plan() {
    // Two workspaces of one directory plan the same address: read as one plan, one of the two
    // changes is lost, so the plan is judged incomplete and says which projects it holds.
    let doc = own("atlantis_two_projects.md");
    let planning = planlens::model::summary::Planning::of(&doc);
    let projects = vec![
        "dir: `envs` workspace: `staging`".to_string(),
        "dir: `envs` workspace: `production`".to_string(),
    ];
    assert_eq!(
        planning,
        planlens::model::summary::Planning::Several {
            plans: 2,
            projects: projects.clone()
        }
    );
    assert!(planning.is_incomplete());
    let sentence = planning.sentence().unwrap();
    assert!(
        sentence.starts_with("Plan incomplete: this Atlantis comment holds the plans of 2 projects (dir: `envs` workspace: `staging`; dir: `envs` workspace: `production`)"),
        "{sentence}"
    );
    let headline = planlens::Summary::of(&doc).headline(&doc);
    assert!(
        headline
            .ends_with("Read from 2 plans of one Atlantis comment as one: open each on its own."),
        "{headline}"
    );
    // Its destroy still needs approval; without it, the comment would be incomplete, not a pass.
    assert_eq!(
        evaluate(&doc).verdict,
        planlens::model::findings::Verdict::NeedsApproval
    );
    // A comment of one project stays a complete plan.
    let one = own("atlantis_comment.md");
    assert_eq!(
        planlens::model::summary::Planning::of(&one),
        planlens::model::summary::Planning::Complete
    );
}

#[test]
fn a_text_of_several_plans_is_never_judged_as_one() {
    // A terragrunt run-all of two modules: each plans `aws_s3_bucket.this` (one creates it, one
    // destroys it). Read as one plan, only one of the two shows: judged incomplete, saying so.
    let doc = own("terragrunt_run_all.txt");
    let planning = planlens::model::summary::Planning::of(&doc);
    assert_eq!(
        planning,
        planlens::model::summary::Planning::Several {
            plans: 2,
            projects: Vec::new()
        }
    );
    assert!(
        planning
            .sentence()
            .unwrap()
            .starts_with("Plan incomplete: this text holds 2 plans"),
        "{planning:?}"
    );
    assert!(
        planlens::Summary::of(&doc)
            .headline(&doc)
            .ends_with("Read from 2 plans as one: open each on its own.")
    );
    assert_ne!(
        evaluate(&doc).verdict,
        planlens::model::findings::Verdict::Pass
    );
    // No warning compares the last of its `Plan:` lines with the changes of all the plans: two
    // plans of one create each read as 2 to add, against the last line's 1.
    let one = |address: &str| {
        format!(
            "Terraform will perform the following actions:\n\n  # {address} will be created\n  \
             + resource \"null_resource\" \"x\" {{\n      + id = (known after apply)\n    }}\n\n\
             Plan: 1 to add, 0 to change, 0 to destroy.\n\n"
        )
    };
    let text = one("null_resource.a") + &one("null_resource.b");
    let two = planlens::load::load_plan_text(text, "run-all.txt").unwrap();
    assert_eq!(
        planlens::model::summary::Planning::of(&two),
        planlens::model::summary::Planning::Several {
            plans: 2,
            projects: Vec::new()
        }
    );
    assert!(
        !two.warnings.iter().any(|w| w.contains("`Plan:` line says")),
        "{:?}",
        two.warnings
    );
    // A PR comment that repeats its plan's `Plan:` line before the plan (tfcmt) holds one plan.
    let tfcmt = own("tfcmt_comment.md");
    assert_eq!(
        planlens::model::summary::Planning::of(&tfcmt),
        planlens::model::summary::Planning::Complete
    );
    let Source::TextPlan(facts) = &tfcmt.source else {
        panic!("not a text plan")
    };
    assert_eq!(facts.plans, 1);
}

// ---------------------------------------------------------------------------------------------
// Positions: Terraform's text prints no element indexes and hides unchanged elements and blocks,
// so a diff read from text pairs elements as its `-`, `+` and `~` say and claims no position
// where elements were hidden.

/// The diff of the change at `address`.
fn diff_of(doc: &Document, address: &str) -> planlens::diff::DiffNode {
    planlens::diff::diff_change(&change(doc, address).change).unwrap()
}

/// Every node under `node` (itself included).
fn nodes(node: &planlens::diff::DiffNode) -> Vec<&planlens::diff::DiffNode> {
    let mut out = vec![node];
    for c in &node.children {
        out.extend(nodes(c));
    }
    out
}

fn child<'t>(node: &'t planlens::diff::DiffNode, label: &str) -> &'t planlens::diff::DiffNode {
    node.children
        .iter()
        .find(|c| c.key_label() == label)
        .unwrap_or_else(|| panic!("no {label} in {node:?}"))
}

/// No element under `node` is labelled by an index.
fn assert_no_index(node: &planlens::diff::DiffNode, what: &str) {
    use planlens::diff::PathKey;
    for n in nodes(node) {
        assert!(
            !matches!(n.key, Some(PathKey::Index { .. })),
            "{what}: {} claims a position",
            n.key_label()
        );
    }
}

#[test]
fn a_block_removed_from_the_middle_of_a_list_is_one_block_removed_at_no_position() {
    use planlens::diff::{NodeChange, PathKey, Side};
    let doc = own("list_block_removed_middle.txt");
    let tree = diff_of(&doc, "tfcoremock_multiple_blocks.rules");
    let blocks = child(&tree, "first_block");
    // The list is changed, not gone: the text hid 3 unchanged blocks.
    assert_eq!(blocks.change, NodeChange::Modified);
    assert_eq!(
        (&blocks.before, &blocks.after),
        (&Side::Shown(1), &Side::Shown(0))
    );
    assert_eq!(blocks.children.len(), 1);
    let removed = &blocks.children[0];
    assert_eq!(removed.key, Some(PathKey::Unpositioned));
    assert_eq!(removed.key_label(), "");
    assert_eq!(removed.change, NodeChange::Removed);
    assert_eq!(
        child(removed, "id").before,
        Side::Scalar("\"B7A1C2D3-0000-4E5F-8A9B-222222222222\"".to_string())
    );
    assert_no_index(&tree, "middle block");
}

#[test]
fn the_third_of_three_blocks_removed_is_not_the_whole_list_removed() {
    use planlens::diff::{NodeChange, PathKey};
    let doc = own("list_block_removed_last.txt");
    let tree = diff_of(&doc, "tfcoremock_list_blocks.routes");
    let blocks = child(&tree, "list_block");
    assert_eq!(blocks.change, NodeChange::Modified, "{blocks:?}");
    assert_eq!(blocks.before.display(), "[ 1 element shown ]");
    assert_eq!(blocks.after.display(), "[ none shown ]");
    let kinds: Vec<(Option<PathKey>, NodeChange)> = blocks
        .children
        .iter()
        .map(|c| (c.key.clone(), c.change))
        .collect();
    assert_eq!(kinds, [(Some(PathKey::Unpositioned), NodeChange::Removed)]);
}

#[test]
fn a_set_element_replaced_is_one_removed_and_one_added_never_changed_in_place() {
    use planlens::diff::NodeChange;
    let doc = own("set_element_replaced.txt");
    let tree = diff_of(&doc, "tfcoremock_set_blocks.numbers");
    let set = child(&tree, "set_block");
    let kinds: Vec<NodeChange> = set.children.iter().map(|c| c.change).collect();
    assert_eq!(kinds, [NodeChange::Removed, NodeChange::Added]);
    assert_eq!(child(&set.children[0], "number").before.display(), "1");
    assert_eq!(child(&set.children[1], "number").after.display(), "2");
    // Nowhere `number = 1 → 2`.
    assert!(
        nodes(&tree)
            .iter()
            .all(|n| !(n.change == NodeChange::Modified && n.form == planlens::diff::Form::Scalar)),
        "{tree:?}"
    );
    assert_no_index(&tree, "set");
}

#[test]
fn terraforms_own_pairs_read_from_text_claim_no_position_their_json_does_not_have() {
    use planlens::diff::NodeChange;
    // The element changed in place is element 1 of 3 (the JSON's replace path `list.1.id`); the
    // text shows it alone with `# (2 unchanged elements hidden)`.
    let pair = dir().join("terraform-1.5.7/replace_within_list");
    let text = load(&pair.join("plan"));
    let tree = diff_of(&text, "tfcoremock_list.list");
    let list = child(&tree, "list");
    assert!(list.forces_replacement, "the path stops at the list");
    assert_eq!(list.children.len(), 1);
    let element = &list.children[0];
    assert_eq!(element.change, NodeChange::Modified);
    assert_eq!(element.key_label(), "");
    assert_no_index(&tree, "replace_within_list");
    let json = load(&pair.join("plan.json"));
    let from_json = diff_of(&json, "tfcoremock_list.list");
    assert_eq!(
        child(child(&from_json, "list"), "[1]").change,
        NodeChange::Modified
    );

    // A set of lists: two removed, two added, one hidden; none paired with another.
    let text = load(&dir().join("terraform-1.5.7/nested_set_update/plan"));
    let tree = diff_of(&text, "tfcoremock_nested_set.nested_set");
    let sets = child(&tree, "sets");
    let kinds: Vec<NodeChange> = sets.children.iter().map(|c| c.change).collect();
    assert_eq!(
        kinds,
        [
            NodeChange::Removed,
            NodeChange::Removed,
            NodeChange::Added,
            NodeChange::Added
        ]
    );
    assert!(sets.children.iter().all(|c| c.key_label().is_empty()));

    // Blocks among hidden blocks: changed in place, at no position.
    let text = load(&dir().join("terraform-1.5.7/multiple_block_types_update/plan"));
    let tree = diff_of(&text, "tfcoremock_multiple_blocks.multiple_blocks");
    for name in ["first_block", "second_block"] {
        let blocks = child(&tree, name);
        assert_eq!(blocks.children.len(), 1, "{name}");
        assert_eq!(blocks.children[0].change, NodeChange::Modified, "{name}");
    }
    assert_no_index(&tree, "multiple_block_types_update");
}

#[test]
fn a_list_the_text_shows_whole_keeps_its_positions() {
    use planlens::diff::{NodeChange, PathKey};
    // A created resource prints every element: its positions are the text's order.
    let doc = own("opentofu_drift.txt");
    let tree = diff_of(&doc, "aws_instance.web[0]");
    let blocks = child(&tree, "root_block_device");
    assert_eq!(
        blocks.children[0].key,
        Some(PathKey::Index {
            before: None,
            after: Some(0)
        })
    );
    assert_eq!(blocks.children[0].change, NodeChange::Added);
}

#[test]
fn a_converted_plan_without_the_elements_key_still_diffs_as_before() {
    use planlens::diff::NodeChange;
    // A share link made before the text's element order was kept: aligned by value, as then.
    let read = text_plan::read(&own_text("set_element_replaced.txt")).unwrap();
    let mut plan: serde_json::Value = serde_json::from_str(&read.plan_json).unwrap();
    let change = &mut plan["resource_changes"][0]["change"];
    assert!(change.get(text_plan::ELEMENTS).is_some());
    change.as_object_mut().unwrap().remove(text_plan::ELEMENTS);
    let doc = planlens::load_plan(plan.to_string().into_bytes(), "old-link.json").unwrap();
    let tree = diff_of(&doc, "tfcoremock_set_blocks.numbers");
    assert_eq!(
        child(&tree, "set_block").children[0].change,
        NodeChange::Modified
    );
}

// ---------------------------------------------------------------------------------------------
// The tool that made the plan: its own `Plan:` line, its own name.

#[test]
fn an_opentofu_forget_is_read_and_counted_as_opentofu_counts_it() {
    use planlens::model::summary::{Planning, Tool};
    let doc = own("opentofu_forget.txt");
    assert_eq!(Tool::of(&doc), Tool::OpenTofu);
    assert_eq!(
        actions(&doc),
        BTreeMap::from([("aws_iam_role.legacy".to_string(), Action::Forget)])
    );
    assert_eq!(
        Summary::of(&doc).sentence(),
        "Plan: 0 to add, 0 to change, 0 to destroy, 1 to forget."
    );
    assert_eq!(Planning::of(&doc), Planning::Complete);
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
}

#[test]
fn a_terraform_forget_gets_terraforms_line_and_the_forget_apart_from_it() {
    use planlens::model::summary::Tool;
    let doc = own("terraform_forget.txt");
    assert_eq!(Tool::of(&doc), Tool::Terraform);
    assert_eq!(
        actions(&doc),
        BTreeMap::from([("aws_iam_role.legacy".to_string(), Action::Forget)])
    );
    let sentence = Summary::of(&doc).sentence();
    // Terraform's own line, word for word, as the text printed it.
    assert!(
        sentence.starts_with("Plan: 0 to add, 0 to change, 0 to destroy. "),
        "{sentence}"
    );
    assert!(!sentence.contains(", 1 to forget"), "{sentence}");
    assert!(sentence.contains("1 to forget"), "{sentence}");
    // Terraform's warning box lists the forgotten ` - aws_iam_role.legacy`: a diagnostic's
    // line, never Terraform 0.11's destroy line.
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    let findings = evaluate(&doc);
    assert!(
        findings
            .findings
            .iter()
            .all(|f| f.rule_id != "destroy-needs-approval"),
        "{:?}",
        findings.findings
    );
}

#[test]
fn a_failed_text_plan_says_its_own_error_not_that_terraform_marked_it() {
    use planlens::model::summary::Planning;
    let doc = own("plan_failed.txt");
    let planning = Planning::of(&doc);
    assert_eq!(
        planning.sentence().unwrap(),
        "Planning failed: Reference to undeclared resource."
    );
    let headline = Summary::of(&doc).headline(&doc);
    assert!(
        !headline.contains("marked this plan as errored"),
        "{headline}"
    );
}

/// Terraform's text prints only the outside changes that may affect the plan, so a text without
/// a drift section cannot say "No drift" (Terraform's own drift_simple pair: the JSON has drift
/// the text does not print). The note names the tool that made the plan.
#[test]
fn a_text_plan_never_claims_no_drift_and_names_its_tool() {
    use planlens::model::summary::Planning;
    let text = load(&dir().join("terraform-1.5.7/drift_simple/plan"));
    let json = load(&dir().join("terraform-1.5.7/drift_simple/plan.json"));
    assert!(!planlens::drift::Drift::of(&json).resources.is_empty());
    assert!(planlens::drift::Drift::of(&text).resources.is_empty());
    let said = planlens::drift::incompleteness(&text, &Planning::of(&text), 0);
    assert_eq!(
        said.as_deref(),
        Some(
            "Drift not known: a human-readable plan shows only what changed outside Terraform \
             that may affect the plan. Open the plan's JSON (`show -json`) to see all drift."
        )
    );
    let drift = planlens::drift::Drift::of(&own("opentofu_drift.txt"));
    assert_eq!(
        drift.note().as_deref(),
        Some("Note: 2 resources have changed outside of OpenTofu.")
    );
}
