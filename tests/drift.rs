//! Drift: plans with `resource_drift` (refresh-only too), `terraform plan -json` logs and driftctl
//! reports, graded by the team's policy (tags/labels only = minor), with what the plan does about it.

mod common;

use planlens::drift::{
    AttributeEffect, Drift, DriftedResource, PlanEffect, Severity, is_refresh_only,
};
use planlens::model::source::Source;
use planlens::model::{Action, RowSource};
use planlens::{Document, Summary, load_plan};

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
        // Every missing or changed resource is structural drift the plan does not touch.
        let drift = Drift::of(&doc);
        assert_eq!(drift.resources.len(), rows, "{name}");
        assert!(
            drift
                .resources
                .iter()
                .all(|r| r.severity == Severity::Structural && r.effect == PlanEffect::NotInPlan)
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
fn tag_only_drift_is_minor_even_in_nested_blocks() {
    let Some(doc) = real("infracost__fv0_2_plan_with_target_drift.json") else {
        return;
    };
    let drift = Drift::of(&doc);
    assert_eq!(
        graded(&drift),
        [("aws_instance.web_app_1", Severity::Minor, PlanEffect::Keeps)]
    );
    assert_eq!(
        drift.resources[0].attribute_paths(),
        ["root_block_device[0].tags", "tags"]
    );
    let Some(doc) = real("policy-engine__fv1_1_mixed_changes_drift.json") else {
        return;
    };
    assert_eq!((Drift::of(&doc).minor, Drift::of(&doc).structural), (1, 0));
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
    let Some(dir) = common::real_fixtures_dir() else {
        return;
    };
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let doc = load_plan(std::fs::read(&path).unwrap(), &name).unwrap();
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
