//! Drift: plans with `resource_drift` (refresh-only too), `terraform plan -json` logs and driftctl
//! reports, graded by the team's policy (tags/labels only = minor), with what the plan does about it.

use crate::common;

use std::collections::BTreeMap;

use planlens::analysis::Analysis;
use planlens::drift::{
    AttributeEffect, Drift, DriftedResource, PlanEffect, Severity, is_refresh_only,
};
use planlens::model::source::Source;
use planlens::model::{Action, RowSource};
use planlens::rules::{Input, RuleSet, Verdict, evaluate_redacted};
use planlens::{Document, Summary, load_plan, load_plan_text};
use serde_json::{Value, json};

fn real(name: &str) -> Option<Document> {
    let dir = common::real_fixtures_dir()?;
    let bytes = std::fs::read(dir.join(name)).unwrap();
    Some(load_plan(bytes, name).unwrap_or_else(|e| panic!("{name}: {e}")))
}

/// (path, relevant, effect) of a drifted resource's attributes.
fn attributes(r: &DriftedResource) -> Vec<(&str, bool, AttributeEffect)> {
    r.attributes
        .iter()
        .map(|a| (a.path.as_str(), a.relevant, a.effect))
        .collect()
}

/// (address, severity, effect) of every drifted resource.
fn graded(drift: &Drift) -> Vec<(&str, Severity, PlanEffect)> {
    drift
        .resources
        .iter()
        .map(|r| (r.address.as_str(), r.severity, r.effect))
        .collect()
}

#[test]
fn every_driftctl_report_loads_with_its_figures() {
    let Some(dir) = common::real_fixtures_dir() else {
        return;
    };
    // (file, format, total, managed, unmanaged, missing, changed, coverage, alerts, drifted rows)
    type Expect = (
        &'static str,
        &'static str,
        u64,
        u64,
        u64,
        u64,
        Option<u64>,
        u64,
        usize,
        usize,
    );
    let cases: [Expect; 5] = [
        (
            "driftctl__scan_json_access_denied_alerts.json",
            "v0.40+",
            0,
            0,
            0,
            0,
            None,
            0,
            3,
            0,
        ),
        (
            "driftctl__scan_json_v0_39_computed_fields_alerts.json",
            "v0.8–v0.39",
            1,
            1,
            0,
            0,
            Some(1),
            100,
            1,
            1,
        ),
        (
            "driftctl__scan_json_v0_39_with_differences.json",
            "v0.8–v0.39",
            6,
            2,
            2,
            2,
            Some(2),
            33,
            0,
            4,
        ),
        (
            "driftctl__scan_json_v0_40_current.json",
            "v0.40+",
            6,
            2,
            2,
            2,
            None,
            33,
            0,
            2,
        ),
        (
            "driftctl__scan_json_v0_7_legacy.json",
            "v0.7",
            6,
            2,
            2,
            2,
            Some(1),
            33,
            0,
            3,
        ),
    ];
    // A case for every driftctl report of the real corpus.
    let reports: Vec<common::Fixture> = (common::fixtures_of(&["driftctl"]).into_iter())
        .filter(common::Fixture::is_real)
        .collect();
    let mut named: Vec<&str> = cases.iter().map(|case| case.0).collect();
    named.sort();
    assert_eq!(named, reports.iter().map(|f| f.name()).collect::<Vec<_>>());
    for (name, format, total, managed, unmanaged, missing, changed, coverage, alerts, rows) in cases
    {
        let doc = load_plan(std::fs::read(dir.join(name)).unwrap(), name)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let Source::Driftctl(facts) = &doc.source else {
            panic!("{name} was not read as a driftctl report");
        };
        assert_eq!(facts.format, format, "{name}");
        assert_eq!(
            (
                facts.total_resources,
                facts.managed,
                facts.unmanaged,
                facts.missing
            ),
            (total, managed, unmanaged, missing),
            "{name}"
        );
        assert_eq!(facts.changed, changed, "{name}");
        assert_eq!(facts.coverage, coverage, "{name}");
        assert_eq!(facts.alerts.len(), alerts, "{name}");
        assert_eq!(facts.unmanaged_resources.len() as u64, unmanaged, "{name}");
        assert_eq!(doc.rows.len(), rows, "{name}");
        assert!(
            doc.rows
                .iter()
                .all(|r| r.is_drifted && r.action == Action::NoOp)
        );
        assert_eq!(Summary::of(&doc).sentence(), "No changes.", "{name}");
        // Every missing or changed resource is structural drift; a report has no plan.
        let drift = Drift::of(&doc);
        assert_eq!(drift.resources.len(), rows, "{name}");
        assert!(
            drift
                .resources
                .iter()
                .all(|r| r.severity == Severity::Structural && r.effect == PlanEffect::NoPlan)
        );
    }
}

#[test]
fn driftctl_changelogs_become_attribute_diffs() {
    let Some(doc) = real("driftctl__scan_json_v0_39_with_differences.json") else {
        return;
    };
    let drift = Drift::of(&doc);
    let changed = drift
        .resources
        .iter()
        .find(|r| r.address == "module.module.aws_diff_resource.name")
        .expect("the difference with a state source is addressed by it");
    assert_eq!(changed.action, Action::Update);
    assert_eq!(changed.attribute_paths(), ["a", "new", "updated.field"]);
    let by_id = drift
        .resources
        .iter()
        .find(|r| r.address == "aws_diff_resource[\"diff-id-2\"]")
        .expect("a difference without source is addressed by its cloud id");
    assert_eq!(by_id.attribute_paths(), ["updated.field"]);
    let missing: Vec<&str> = drift
        .resources
        .iter()
        .filter(|r| r.action == Action::Delete)
        .map(|r| r.address.as_str())
        .collect();
    assert_eq!(
        missing,
        [
            "aws_deleted_resource[\"deleted-id-2\"]",
            "module.module.aws_deleted_resource.name"
        ]
    );
    let Source::Driftctl(facts) = &doc.source else {
        unreachable!()
    };
    assert_eq!(
        facts.unmanaged_resources,
        [
            (
                "aws_unmanaged_resource".to_string(),
                "unmanaged-id-1".to_string()
            ),
            (
                "aws_unmanaged_resource".to_string(),
                "unmanaged-id-2".to_string()
            )
        ]
    );

    let Some(doc) = real("driftctl__scan_json_v0_39_computed_fields_alerts.json") else {
        return;
    };
    let Source::Driftctl(facts) = &doc.source else {
        unreachable!()
    };
    assert_eq!(facts.computed.len(), 4, "{:?}", facts.computed);
    assert!(
        facts.alerts[0]
            .1
            .starts_with("You have diffs on computed fields")
    );
    let drift = Drift::of(&doc);
    assert_eq!(
        drift.resources[0].attribute_paths(),
        [
            "a",
            "new",
            "struct[0].array[0]",
            "struct[0].string",
            "updated.field"
        ]
    );
}

#[test]
fn a_refresh_only_plan_has_only_drift_and_lists_it() {
    let Some(doc) = real("terraform__equiv_drift_refresh_only.json") else {
        return;
    };
    assert!(is_refresh_only(&doc));
    assert_eq!(doc.rows.len(), 1);
    assert!(matches!(doc.rows[0].source, RowSource::Drift(0)));
    assert_eq!(doc.rows[0].action, Action::NoOp);
    assert!(doc.rows[0].is_drifted);
    let drift = Drift::of(&doc);
    assert_eq!(
        drift.note().as_deref(),
        Some("Note: 1 resource has changed outside of Terraform.")
    );
    assert_eq!(
        graded(&drift),
        [(
            "tfcoremock_simple_resource.drift",
            Severity::Structural,
            PlanEffect::NotInPlan
        )]
    );
    assert_eq!(drift.resources[0].attribute_paths(), ["string"]);
    assert_eq!(drift.for_row(0).map(|r| r.entry), Some(0));
    // A drift-only row keeps the refreshed values on both sides.
    let (before, after) = doc.values(&doc.rows[0]);
    assert_eq!(before.map(|v| v.get()), after.map(|v| v.get()));
}

#[test]
fn relevant_attributes_and_partial_reverts_of_real_plans() {
    let Some(doc) = real("terraform__equiv_drift_relevant_attributes.json") else {
        return;
    };
    let drift = Drift::of(&doc);
    let r = &drift.resources[0];
    assert_eq!(r.address, "tfcoremock_simple_resource.base");
    assert_eq!(r.effect, PlanEffect::Partly);
    assert_eq!(
        attributes(r),
        [
            ("number", false, AttributeEffect::Reverted),
            ("string", true, AttributeEffect::Changed)
        ]
    );
}

#[test]
fn real_drift_of_only_null_becoming_empty_is_not_drift() {
    // Both files' only drift is `tags: null → {}` (and `root_block_device[0].tags` likewise):
    // providers writing an empty map for "no tags", which Terraform does not report.
    for name in [
        "infracost__fv0_2_plan_with_target_drift.json",
        "policy-engine__fv1_1_mixed_changes_drift.json",
    ] {
        let Some(doc) = real(name) else {
            return;
        };
        assert_eq!(doc.plan().resource_drift.len(), 1, "{name}");
        let drift = Drift::of(&doc);
        assert!(drift.resources.is_empty(), "{name}: {:?}", graded(&drift));
        assert_eq!(drift.note(), None, "{name}");
        assert!(doc.rows.iter().all(|r| !r.is_drifted), "{name}");
        let evaluation = Analysis::of(&doc).evaluate(&doc, &RuleSet::builtin(), &BTreeMap::new());
        assert!(
            evaluation
                .findings
                .iter()
                .all(|f| !f.rule_id.ends_with("-drift")),
            "{name}: {:?}",
            evaluation.findings
        );
    }
}

#[test]
fn tag_only_drift_is_minor_even_in_nested_blocks() {
    let plan = |before: Value, after: Value| {
        json!({
            "format_version": "1.2",
            "terraform_version": "1.9.5",
            "resource_drift": [drift_entry("aws_instance.web", "update", before, after)],
            "resource_changes": [planned("aws_instance.web", "no-op", json!({}))],
        })
    };
    let doc = load_json(plan(
        json!({"ami": "ami-1", "root_block_device": [{"tags": {"Backup": "daily"}}], "tags": {"Owner": "a"}}),
        json!({"ami": "ami-1", "root_block_device": [{"tags": {"Backup": "weekly"}}], "tags": {"Owner": "b"}}),
    ));
    let drift = Drift::of(&doc);
    assert_eq!(
        graded(&drift),
        [("aws_instance.web", Severity::Minor, PlanEffect::Keeps)]
    );
    assert_eq!(
        drift.resources[0].attribute_paths(),
        ["root_block_device[0].tags.Backup", "tags.Owner"]
    );
}

#[test]
fn terraform_1_0_0s_unchanged_drift_entries_are_not_drift() {
    let Some(doc) = real("terraform-compliance__tf1_0_drift_and_deletes.json") else {
        return;
    };
    let drift = Drift::of(&doc);
    // 15 entries, 9 of them updates with equal values; the 6 deletes are real drift.
    assert_eq!(doc.plan().resource_drift.len(), 15);
    assert_eq!(drift.resources.len(), 6);
    assert!(drift.resources.iter().all(|r| r.action == Action::Delete));
    assert_eq!((drift.structural, drift.minor), (6, 0));
    // Entries have no address in 1.0.0: they are matched to the instances of their resource.
    let sg = drift
        .resources
        .iter()
        .find(|r| r.address == "aws_security_group.lambda_sg")
        .unwrap();
    assert_eq!(sg.effect, PlanEffect::Recreates);
    let row = &doc.rows[sg.rows[0] as usize];
    assert_eq!(doc.change(row).address, "aws_security_group.lambda_sg");
    assert!(row.is_drifted);
    assert_eq!(doc.rows.iter().filter(|r| r.is_drifted).count(), 6);
}

#[test]
fn our_drift_plan_grades_severity_and_effect() {
    let doc = common::load_own("drift_effects.json");
    let drift = Drift::of(&doc);
    assert_eq!(
        graded(&drift),
        [
            (
                "aws_db_instance.main",
                Severity::Structural,
                PlanEffect::Reverts
            ),
            ("aws_instance.web", Severity::Structural, PlanEffect::Partly),
            ("aws_s3_bucket.logs", Severity::Minor, PlanEffect::Reverts),
            (
                "google_compute_instance.vm",
                Severity::Minor,
                PlanEffect::NotInPlan
            ),
        ]
    );
    assert_eq!(drift.totals(), "2 structural, 2 minor");
    assert_eq!(drift.resources[0].attribute_paths(), ["password"]);
    let web = &drift.resources[1];
    // `tags.Owner` is not in relevant_attributes: shown as such, and the grade comes from
    // `instance_type` alone.
    assert!(web.relevance_known);
    assert_eq!(
        attributes(web),
        [
            ("instance_type", true, AttributeEffect::Reverted),
            ("tags.Owner", false, AttributeEffect::Kept)
        ]
    );
    // The drift-only resource has its own row, marked drifted, shown in the list by default.
    let vm = doc.find_row("google_compute_instance.vm").unwrap();
    assert!(matches!(doc.rows[vm].source, RowSource::Drift(_)));
    let entries = planlens::list::ListFilter::default().entries(&doc);
    assert!(entries.contains(&planlens::list::ListEntry::Resource(vm as u32)));
    // The sentence counts planned changes only.
    assert_eq!(
        Summary::of(&doc).sentence(),
        "Plan: 0 to add, 3 to change, 0 to destroy."
    );
}

#[test]
fn a_plan_log_loads_with_actions_reasons_drift_and_diagnostics() {
    let doc = common::load_own("plan_log_drift.jsonl");
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    let Source::PlanLog(facts) = &doc.source else {
        panic!("not read as a plan log");
    };
    assert_eq!(facts.terraform_version.as_deref(), Some("1.9.5"));
    assert_eq!(facts.diagnostics.len(), 1);
    assert_eq!(facts.diagnostics[0].summary, "Argument is deprecated");
    assert_eq!(facts.diagnostics[0].location.as_deref(), Some("main.tf:12"));
    assert_eq!(facts.skipped_lines, 0);
    assert_eq!(
        Summary::of(&doc).sentence(),
        "Plan: 1 to import, 2 to add, 1 to change, 2 to destroy."
    );
    let change = |address: &str| {
        let row = &doc.rows[doc.find_row(address).unwrap_or_else(|| panic!("{address}"))];
        (row.action, doc.change(row))
    };
    let (action, c) = change("aws_instance.app[0]");
    assert!(matches!(action, Action::Replace(_)));
    assert_eq!(c.action_reason.as_deref(), Some("replace_because_tainted"));
    assert_eq!(change("module.db.aws_db_instance.this").0, Action::Delete);
    assert_eq!(
        doc.module_of(&doc.rows[doc.find_row("module.db.aws_db_instance.this").unwrap()]),
        "module.db"
    );
    let (action, c) = change("aws_iam_role.ci");
    assert_eq!(action, Action::NoOp);
    assert_eq!(
        c.change.importing.as_ref().and_then(|i| i.id.as_deref()),
        Some("ci-role")
    );
    let (_, c) = change("aws_route53_record.www");
    assert_eq!(
        c.previous_address.as_deref(),
        Some("aws_route53_record.web")
    );
    assert_eq!(change("data.aws_ami.ubuntu").0, Action::Read);

    let drift = Drift::of(&doc);
    assert_eq!(
        drift.note().as_deref(),
        Some("Note: 2 resources have changed outside of Terraform.")
    );
    assert_eq!(
        graded(&drift),
        [
            (
                "aws_s3_bucket.old",
                Severity::Structural,
                PlanEffect::Recreates
            ),
            (
                "aws_security_group.web",
                Severity::Structural,
                PlanEffect::Unknown
            ),
        ]
    );
    assert!(drift.resources.iter().all(|r| !r.values_known));
    // The built-in pack's message says what a log does not, never "(none)".
    let messages: Vec<String> = common::builtin_evaluation(&doc)
        .findings
        .iter()
        .filter(|f| f.rule_id == "structural-drift")
        .map(|f| f.message.clone())
        .collect();
    assert_eq!(
        messages,
        [
            "Structural drift on aws_s3_bucket.old needs a human: deleted outside Terraform: aws_s3_bucket",
            "Structural drift on aws_security_group.web needs a human: attributes not in the input",
        ]
    );
}

#[test]
fn a_plan_log_that_disagrees_with_its_summary_or_has_junk_says_so() {
    let log = String::from_utf8(common::own_fixture("plan_log_drift.jsonl")).unwrap();
    // Cut the log before the delete: Terraform's own summary no longer matches.
    let cut: String = log
        .lines()
        .filter(|l| !l.contains("Plan to delete"))
        .chain(["not json at all"])
        .map(|l| format!("{l}\n"))
        .collect();
    let doc = planlens::load_plan_text(cut, "cut.jsonl").unwrap();
    assert_eq!(doc.warnings.len(), 2, "{:?}", doc.warnings);
    assert!(doc.warnings[0].starts_with("1 line of the log is not"));
    assert!(doc.warnings[1].contains("says 2 to add, 1 to change, 2 to destroy, 1 to import"));
    assert!(doc.warnings[1].contains("give 2 to add, 1 to change, 1 to destroy, 1 to import"));
}

#[test]
fn our_older_small_log_and_driftctl_report_load() {
    let doc = common::load_own("plan_log.jsonl");
    assert_eq!(
        Summary::of(&doc).sentence(),
        "Plan: 1 to add, 0 to change, 0 to destroy."
    );
    let doc = common::load_own("driftctl.json");
    let Source::Driftctl(facts) = &doc.source else {
        panic!("not read as driftctl")
    };
    assert_eq!(
        (
            facts.managed,
            facts.unmanaged,
            facts.missing,
            facts.coverage
        ),
        (2, 2, 1, 40)
    );
}

#[test]
fn every_real_plan_with_drift_grades_it() {
    let real = (common::fixtures_of(&common::INPUT_KINDS).into_iter()).filter(|f| f.is_real());
    for f in real {
        let name = f.name();
        let doc = load_plan(f.bytes(), name).unwrap();
        let drift = Drift::of(&doc);
        assert_eq!(
            drift.minor + drift.structural,
            drift.resources.len(),
            "{name}"
        );
        // Every drifted resource is marked on at least one row, and every marked row has a drift.
        for r in &drift.resources {
            assert!(!r.rows.is_empty(), "{name}: {} has no row", r.address);
        }
        for (i, row) in doc.rows.iter().enumerate() {
            assert_eq!(row.is_drifted, drift.for_row(i).is_some(), "{name} row {i}");
        }
    }
}

#[test]
fn driftctl_computed_fields_are_marked_on_their_attributes() {
    let Some(doc) = real("driftctl__scan_json_v0_39_computed_fields_alerts.json") else {
        return;
    };
    let drift = Drift::of(&doc);
    let computed: Vec<(&str, bool)> = drift.resources[0]
        .attributes
        .iter()
        .map(|a| (a.path.as_str(), a.computed))
        .collect();
    assert_eq!(
        computed,
        [
            ("a", true),
            ("new", false),
            ("struct[0].array[0]", true),
            ("struct[0].string", true),
            ("updated.field", true)
        ]
    );
}

/// A `resource_drift` entry of an AWS resource.
fn drift_entry(address: &str, action: &str, before: Value, after: Value) -> Value {
    let (kind, name) = address.split_once('.').unwrap();
    json!({
        "address": address, "mode": "managed", "type": kind, "name": name,
        "provider_name": "registry.terraform.io/hashicorp/aws",
        "change": {
            "actions": [action], "before": before, "after": after, "after_unknown": {},
            "before_sensitive": {}, "after_sensitive": {}
        }
    })
}

/// A planned change whose `after` is `after` (before it: nothing this test looks at).
fn planned(address: &str, action: &str, after: Value) -> Value {
    let mut c = drift_entry(address, action, json!({}), after);
    c["change"]["before"] = c["change"]["after"].clone();
    c
}

fn load_json(plan: Value) -> Document {
    load_plan_text(plan.to_string(), "inline.json").unwrap()
}

/// Every input (common::inputs: our own fixtures and every real file): what the checks over
/// "every file" run on.
fn every_file() -> Vec<(String, Document)> {
    (common::inputs().into_iter())
        .map(|(name, bytes)| {
            let doc = load_plan(bytes, &name).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, doc)
        })
        .collect()
}

/// The test's own reading of "not set": `null`, `[]`, `{}` and `""` become `null`, and object
/// keys that are then `null` are dropped (an absent key is `null`); a string holding a JSON object
/// or array reads as that JSON, so one only reformatted is the same (Terraform's "# whitespace
/// changes", drift_json_whitespace.json). Written apart from the code under test, so the two can be
/// compared.
fn without_empty(v: &Value) -> Value {
    match v {
        Value::String(s) if s.is_empty() => Value::Null,
        Value::String(s) if s.trim_start().starts_with(['{', '[']) => {
            (serde_json::from_str::<Value>(s)).map_or_else(|_| v.clone(), |j| json!({ "JSON": j }))
        }
        Value::Array(a) if a.is_empty() => Value::Null,
        Value::Object(o) if o.is_empty() => Value::Null,
        Value::Array(a) => Value::Array(a.iter().map(without_empty).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), without_empty(v)))
                .filter(|(_, v)| !v.is_null())
                .collect(),
        ),
        v => v.clone(),
    }
}

fn raw(v: Option<&serde_json::value::RawValue>) -> Value {
    v.map_or(Value::Null, |v| serde_json::from_str(v.get()).unwrap())
}

#[test]
fn in_every_file_a_change_between_null_and_empty_is_not_drift() {
    for (name, doc) in every_file() {
        if !doc.has_values() {
            continue;
        }
        let drift = Drift::of(&doc);
        for (i, d) in doc.plan().resource_drift.iter().enumerate() {
            if d.change.actions != Action::Update {
                continue;
            }
            let same = without_empty(&raw(d.change.before)) == without_empty(&raw(d.change.after));
            let listed = drift.resources.iter().find(|r| r.entry == i as u32);
            assert_eq!(
                listed.is_some(),
                !same,
                "{name}: resource_drift[{i}] {} listed as drift: {listed:?}",
                d.address
            );
            // Nor is a resource graded by an empty value: its grade is what its other drifted
            // attributes make it.
            if let Some(r) = listed {
                assert!(!r.attributes.is_empty(), "{name}: {}", r.address);
            }
        }
        // The list's marks, the drift view and the rules read the same decision.
        for (i, row) in doc.rows.iter().enumerate() {
            assert_eq!(row.is_drifted, drift.for_row(i).is_some(), "{name} row {i}");
        }
    }
}

#[test]
fn in_every_file_the_drift_header_says_what_its_attributes_say() {
    for (name, doc) in every_file() {
        for r in &Drift::of(&doc).resources {
            let effects: Vec<AttributeEffect> = r.attributes.iter().map(|a| a.effect).collect();
            let count = |e: AttributeEffect| effects.iter().filter(|&&x| x == e).count();
            let (reverted, kept, changed, unknown) = (
                count(AttributeEffect::Reverted),
                count(AttributeEffect::Kept),
                count(AttributeEffect::Changed),
                count(AttributeEffect::Unknown),
            );
            let n = effects.len();
            let at = format!("{name}: {} {:?} {effects:?}", r.address, r.effect);
            // Each resource-level effect means one thing about its attributes' effects.
            match r.effect {
                PlanEffect::Reverts => assert!(n > 0 && reverted == n, "{at}"),
                PlanEffect::Keeps => assert!(kept == n && r.action != Action::Delete, "{at}"),
                PlanEffect::Changes => assert!(n > 0 && changed == n, "{at}"),
                PlanEffect::Partly => {
                    assert!(reverted > 0 && reverted < n && unknown == 0, "{at}")
                }
                PlanEffect::KeepsPart => {
                    assert!(
                        reverted == 0 && kept > 0 && changed > 0 && unknown == 0,
                        "{at}"
                    )
                }
                PlanEffect::Unknown => assert!(unknown > 0 || !r.values_known || n == 0, "{at}"),
                PlanEffect::Replaces
                | PlanEffect::Destroys
                | PlanEffect::Recreates
                | PlanEffect::NotInPlan => {
                    assert!(reverted + kept + changed == 0, "{at}")
                }
                // A drift report has no plan, so no effect to check against.
                PlanEffect::NoPlan => {
                    assert!(
                        matches!(doc.source, planlens::model::Source::Driftctl(_)),
                        "{at}"
                    );
                    continue;
                }
            }
            // And it is the one function's answer.
            let planned = r
                .rows
                .iter()
                .map(|&i| &doc.rows[i as usize])
                .find(|row| !matches!(row.source, RowSource::Drift(_)))
                .map(|row| row.action);
            assert_eq!(
                PlanEffect::of(planned, r.action, r.values_known, effects.iter().copied()),
                r.effect,
                "{at}"
            );
        }
    }
}

#[test]
fn a_real_plan_that_sets_a_third_value_does_not_say_it_keeps_the_drift() {
    let Some(doc) = real("terraform__showjson_drift.json") else {
        return;
    };
    let drift = Drift::of(&doc);
    let r = &drift.resources[0];
    assert_eq!(attributes(r), [("ami", false, AttributeEffect::Changed)]);
    assert_eq!(r.effect, PlanEffect::Changes);
    assert_eq!(
        r.effect.sentence(),
        "The plan sets the drifted attributes to other values."
    );
    assert_eq!(
        AttributeEffect::Changed.label(),
        "set to another value by the plan"
    );
}

#[test]
fn a_terraform_1_14_plan_whose_drift_is_only_empty_values_passes() {
    let doc = common::load_own("drift_noise_tf1_14.json");
    assert_eq!(
        Summary::of(&doc).sentence(),
        "Plan: 1 to add, 1 to change, 0 to destroy."
    );
    assert_eq!(doc.plan().resource_drift.len(), 6);
    let drift = Drift::of(&doc);
    // Five entries change only null into [], {} or ""; the log group's retention really changed,
    // but no planned change depends on it.
    assert_eq!(
        graded(&drift),
        [(
            "aws_cloudwatch_log_group.api",
            Severity::NotRelevant,
            PlanEffect::Keeps
        )]
    );
    let log_group = &drift.resources[0];
    assert!(log_group.relevance_known);
    assert_eq!(
        attributes(log_group),
        [("retention_in_days", false, AttributeEffect::Kept)]
    );
    // Terraform would not mention it at all; the note says it does not matter.
    assert_eq!(
        drift.note().as_deref(),
        Some("Note: 1 resource changed outside of Terraform in ways that do not affect this plan.")
    );
    assert_eq!(drift.totals(), "0 structural, 0 minor, 1 not relevant");
    assert_eq!(
        (drift.structural, drift.minor, drift.not_relevant),
        (0, 0, 1)
    );
    let drifted: Vec<&str> = doc
        .rows
        .iter()
        .filter(|r| r.is_drifted)
        .map(|r| &*doc.change(r).address)
        .collect();
    assert_eq!(drifted, ["aws_cloudwatch_log_group.api"]);

    let evaluation = Analysis::of(&doc).evaluate(&doc, &RuleSet::builtin(), &BTreeMap::new());
    assert!(evaluation.findings.is_empty(), "{:?}", evaluation.findings);
    assert_eq!(evaluation.verdict, Verdict::Pass);
}

#[test]
fn drift_outside_relevant_attributes_counts_for_nothing() {
    let plan = |relevant: Value, changes: Value| {
        json!({
            "format_version": "1.2",
            "terraform_version": "1.14.0",
            "resource_drift": [drift_entry(
                "aws_instance.web",
                "update",
                json!({"instance_type": "t3.small", "tags": {"Owner": "a"}, "user_data": null}),
                json!({"instance_type": "t3.large", "tags": {"Owner": "b"}, "user_data": ""}),
            )],
            "resource_changes": changes,
            "relevant_attributes": relevant,
        })
    };
    let no_op = json!([planned(
        "aws_instance.web",
        "no-op",
        json!({"instance_type": "t3.large", "tags": {"Owner": "b"}, "user_data": ""})
    )]);
    let grade = |doc: &Document| {
        let drift = Drift::of(doc);
        let r = &drift.resources[0];
        (
            r.severity,
            attributes(r).iter().map(|a| a.1).collect::<Vec<_>>(),
        )
    };
    // Only the tag matters to the plan: the resized instance does not make it structural.
    let doc = load_json(plan(
        json!([{"resource": "aws_instance.web", "attribute": ["tags", "Owner"]}]),
        no_op.clone(),
    ));
    assert_eq!(grade(&doc), (Severity::Minor, vec![false, true]));
    // Nothing of it matters: not relevant, and no rule fires on it.
    let doc = load_json(plan(
        json!([{"resource": "aws_instance.other", "attribute": ["id"]}]),
        no_op.clone(),
    ));
    assert_eq!(grade(&doc), (Severity::NotRelevant, vec![false, false]));
    let evaluation = Analysis::of(&doc).evaluate(&doc, &RuleSet::builtin(), &BTreeMap::new());
    assert!(evaluation.findings.is_empty(), "{:?}", evaluation.findings);
    // The whole attribute named: relevant.
    let doc = load_json(plan(
        json!([{"resource": "aws_instance.web", "attribute": ["instance_type"]}]),
        no_op,
    ));
    assert_eq!(grade(&doc), (Severity::Structural, vec![true, false]));
    // A refresh-only plan shows all its drift, as Terraform does: relevance does not apply.
    let doc = load_json(plan(
        json!([{"resource": "aws_instance.other", "attribute": ["id"]}]),
        json!([]),
    ));
    assert!(is_refresh_only(&doc));
    assert_eq!(grade(&doc), (Severity::Structural, vec![false, false]));
    assert!(!Drift::of(&doc).resources[0].relevance_known);
}

#[test]
fn drift_the_plan_keeps_sets_or_partly_keeps_says_so_in_every_place() {
    let doc = common::load_own("drift_set_and_deleted.json");
    let drift = Drift::of(&doc);
    assert_eq!(
        graded(&drift),
        [
            (
                "aws_autoscaling_group.web",
                Severity::Structural,
                PlanEffect::Keeps
            ),
            (
                "aws_instance.app",
                Severity::Structural,
                PlanEffect::Changes
            ),
            (
                "aws_instance.batch",
                Severity::Structural,
                PlanEffect::KeepsPart
            ),
            (
                "aws_s3_bucket.logs",
                Severity::Structural,
                PlanEffect::Recreates
            ),
        ]
    );
    assert_eq!(
        attributes(&drift.resources[0]),
        [("desired_capacity", false, AttributeEffect::Kept)]
    );
    assert_eq!(
        attributes(&drift.resources[1]),
        [("instance_type", false, AttributeEffect::Changed)]
    );
    assert_eq!(
        attributes(&drift.resources[2]),
        [
            ("ebs_optimized", false, AttributeEffect::Kept),
            ("instance_type", false, AttributeEffect::Changed)
        ]
    );
    // No relevant_attributes in this plan: nothing is marked either way.
    assert!(drift.resources.iter().all(|r| !r.relevance_known));
}

#[test]
fn a_resource_deleted_outside_terraform_says_what_it_was() {
    let doc = common::load_own("drift_set_and_deleted.json");
    let drift = Drift::of(&doc);
    let logs = drift
        .resources
        .iter()
        .find(|r| r.address == "aws_s3_bucket.logs")
        .unwrap();
    assert_eq!(logs.action, Action::Delete);
    let deleted = logs.deleted.as_ref().unwrap();
    assert_eq!(
        (deleted.resource_type.as_str(), deleted.id.as_deref()),
        ("aws_s3_bucket", Some("acme-prod-logs"))
    );
    assert_eq!(
        logs.what(),
        "deleted outside Terraform: aws_s3_bucket, id acme-prod-logs"
    );
    assert_eq!(logs.effect.sentence(), "The plan creates it again.");

    // The structural-drift finding says so too, instead of "(none)".
    let labels = BTreeMap::new();
    let evaluation = Analysis::of(&doc).evaluate(&doc, &RuleSet::builtin(), &labels);
    let message = |e: &planlens::rules::Evaluation| {
        e.findings
            .iter()
            .find(|f| f.rule_id == "structural-drift" && f.message.contains("aws_s3_bucket.logs"))
            .map(|f| f.message.clone())
            .unwrap()
    };
    assert_eq!(
        message(&evaluation),
        "Structural drift on aws_s3_bucket.logs needs a human: deleted outside Terraform: \
         aws_s3_bucket, id acme-prod-logs"
    );
    // A redacted link's finding keeps the type, not the id (a value).
    let redacted = evaluate_redacted(
        &Input::from_document(&doc, &drift),
        &RuleSet::builtin(),
        &labels,
    );
    assert_eq!(
        message(&redacted),
        "Structural drift on aws_s3_bucket.logs needs a human: deleted outside Terraform: \
         aws_s3_bucket"
    );
    // The id is not carried into a redacted link's drift.
    let carried: planlens::drift::DriftedResource =
        serde_json::from_str(&serde_json::to_string(logs).unwrap()).unwrap();
    assert_eq!(carried.deleted.unwrap().id, None);

    // A sensitive id is not shown.
    let mut entry = drift_entry(
        "aws_ssm_parameter.token",
        "delete",
        json!({"id": "/prod/token", "value": "x"}),
        Value::Null,
    );
    entry["change"]["before_sensitive"] = json!({"id": true, "value": true});
    let doc = load_json(json!({
        "format_version": "1.2",
        "resource_drift": [entry],
        "resource_changes": [],
    }));
    let drift = Drift::of(&doc);
    assert_eq!(
        drift.resources[0].what(),
        "deleted outside Terraform: aws_ssm_parameter"
    );
}

/// A driftctl report whose alerts say it left resource types out (it was not allowed to list
/// them) cannot rule drift out: it was "No drift" and a pass. Shaped like driftctl's own
/// access-denied output.
#[test]
fn a_driftctl_scan_that_left_types_out_is_incomplete_and_says_so() {
    use planlens::model::summary::Planning;
    let doc = common::load_own("driftctl_access_denied.json");
    let planning = Planning::of(&doc);
    assert_eq!(
        planning,
        Planning::ScanPartial {
            ignored: vec!["aws_iam_role".to_string(), "aws_kms_key".to_string()]
        }
    );
    assert!(planning.is_incomplete());
    assert_eq!(
        common::builtin_evaluation(&doc).verdict,
        planlens::model::findings::Verdict::Incomplete
    );
    let said = planlens::drift::incompleteness(&doc, &planning, 0).unwrap();
    assert!(said.starts_with("Drift not known: driftctl left"), "{said}");
    let analysis = planlens::analysis::Analysis::of(&doc);
    let comment = planlens::share::markdown::summary(
        &doc,
        &analysis,
        &common::builtin_evaluation(&doc),
        None,
    );
    assert!(
        comment.contains("#### driftctl's alerts")
            && comment.contains("aws\\_kms\\_key is forbidden"),
        "{comment}"
    );
}
