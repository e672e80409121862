//! Reading texts: Terraform's equivalence pairs, OpenTofu's wording and drift section, CI logs and
//! PR comments, a cut message, every version's words, deep or damaged bodies.

use super::*;

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
