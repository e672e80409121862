//! The fleet: one row per tf-controller workspace, sorted by what needs a person first, with its
//! drift, pending plan, staleness, failures and lock read from the Terraform objects, and links to
//! the plans and states given beside them; filters, search, and `planlens fleet`'s table and exit
//! codes. Fixtures: tests/fixtures/kube (written from the controller's API types by make.py).

use crate::common;
use crate::run::{planlens, planlens_line};

use planlens::Summary;
use planlens::fleet::{Attention, Fleet, FleetFilter, Link, reason_words};
use planlens::load::Direct;
use planlens::model::Source;
use planlens::model::mask::Mask;

fn file(name: &str) -> (String, Vec<u8>) {
    (
        name.to_string(),
        common::own_fixture(&format!("kube/{name}")),
    )
}

fn fleet(names: &[&str]) -> Fleet {
    Fleet::read(names.iter().map(|n| file(n)).collect())
}

/// The Terraform list with only the named workspaces.
fn only(names: &[&str]) -> (String, Vec<u8>) {
    let mut list: serde_json::Value =
        serde_json::from_slice(&common::own_fixture("kube/terraforms.json")).unwrap();
    list["items"]
        .as_array_mut()
        .unwrap()
        .retain(|w| names.contains(&w["metadata"]["name"].as_str().unwrap()));
    ("some.json".to_string(), serde_json::to_vec(&list).unwrap())
}

fn row<'a>(fleet: &'a Fleet, id: &str) -> &'a planlens::fleet::Row {
    fleet
        .rows
        .iter()
        .find(|r| r.id() == id)
        .unwrap_or_else(|| panic!("no row {id}"))
}

#[test]
fn rows_are_sorted_by_what_needs_a_person_first() {
    let f = fleet(&["terraforms.json"]);
    let order: Vec<(String, &str)> = f.rows.iter().map(|r| (r.id(), r.attention.key())).collect();
    let expected = [
        ("team-c/cache", "failing"),
        ("team-c/db", "failing"),
        ("team-e/monitoring", "failing"),
        ("team-b/edge", "drifted"),
        ("team-c/storage", "locked"),
        ("team-b/queue", "stale"),
        ("team-a/web", "awaiting-approval"),
        ("team-d/sandbox", "awaiting-approval"),
        ("team-a/api", "pending"),
        ("team-d/audit", "pending"),
        ("team-e/batch", "pending"),
        ("team-e/fresh", "pending"),
        ("legacy/billing", "suspended"),
        ("flux-system/dns", "ready"),
        ("flux-system/iam", "ready"),
        ("flux-system/network", "ready"),
    ];
    assert_eq!(
        order,
        expected
            .iter()
            .map(|(id, a)| (id.to_string(), *a))
            .collect::<Vec<_>>()
    );
}

#[test]
fn yaml_gives_the_same_fleet_as_json() {
    assert_eq!(
        fleet(&["terraforms.json"]).rows,
        fleet(&["terraforms.yaml"]).rows
    );
}

#[test]
fn ready_reasons_are_said_in_plain_words() {
    let f = fleet(&["terraforms.json"]);
    let words = |id: &str| row(&f, id).ready.words.clone();
    assert_eq!(words("team-c/cache"), "Gave up: retry limit reached");
    assert_eq!(words("team-c/db"), "terraform plan failed");
    assert_eq!(words("team-c/storage"), "State locked by another process");
    assert_eq!(words("flux-system/network"), "No drift");
    assert_eq!(words("flux-system/dns"), "Planned: no changes");
    assert_eq!(words("team-e/fresh"), "Not reconciled yet");
    for reason in [
        "DriftDetected",
        "NoDrift",
        "TerraformPlannedWithChanges",
        "TerraformPlannedNoChanges",
        "TFExecPlanFailed",
        "RetryLimitReached",
        "LockHeld",
        "TFExecApplyFailed",
        "ArtifactFailed",
        "DependencyNotReady",
    ] {
        assert_ne!(reason_words(reason), reason, "{reason}");
    }
    assert_eq!(reason_words("SomethingNew"), "SomethingNew");
}

#[test]
fn a_pending_plan_awaits_approval_unless_approved_auto_or_plan_only() {
    let f = fleet(&["terraforms.json"]);
    let pending = |id: &str| row(&f, id).pending.clone().expect(id);
    let web = pending("team-a/web");
    assert_eq!(web.plan_id, "plan-main-9f8e7d6c5b");
    assert!(web.awaits_approval);
    // approvePlan equals the pending id: approved.
    assert!(!pending("team-a/api").awaits_approval);
    // Plan-only workspaces never apply, so they never wait for approval.
    assert!(!pending("team-d/audit").awaits_approval);
    assert!(row(&f, "team-d/audit").plan_only);
    let sandbox = row(&f, "team-d/sandbox");
    assert!(sandbox.destroy && sandbox.pending.as_ref().unwrap().destroy);
    assert!(row(&f, "flux-system/network").pending.is_none());
}

#[test]
fn a_beginning_of_the_plan_id_approves_it_as_the_controller_accepts() {
    let mut list: serde_json::Value = serde_json::from_slice(&only(&["web"]).1).unwrap();
    list["items"][0]["spec"]["approvePlan"] = "plan-main-9f8e".into();
    let f = Fleet::read(vec![("w.json".into(), serde_json::to_vec(&list).unwrap())]);
    assert!(!f.rows[0].pending.as_ref().unwrap().awaits_approval);
    assert_eq!(f.rows[0].attention, Attention::Pending);
    list["items"][0]["spec"]["approvePlan"] = "plan-main-0a1b".into();
    let f = Fleet::read(vec![("w.json".into(), serde_json::to_vec(&list).unwrap())]);
    assert!(f.rows[0].pending.as_ref().unwrap().awaits_approval);
}

#[test]
fn a_plan_made_for_an_older_generation_is_stale() {
    let f = fleet(&["terraforms.json"]);
    let queue = row(&f, "team-b/queue");
    assert_eq!(queue.stale, Some((6, 7)));
    assert_eq!(queue.attention, Attention::Stale);
    assert!(
        queue.notes.iter().any(|n| n.contains("generation 6")),
        "{:?}",
        queue.notes
    );
    assert_eq!(row(&f, "team-a/web").stale, None);
}

#[test]
fn drift_says_when_and_which_resources_from_the_ready_message() {
    let f = fleet(&["terraforms.json"]);
    let edge = row(&f, "team-b/edge");
    let drift = edge.drift.as_ref().unwrap();
    assert_eq!(drift.detected_at.as_deref(), Some("2026-11-24T19:42:10Z"));
    assert_eq!(
        drift.summary.as_deref(),
        Some("Plan: 1 to add, 1 to change, 0 to destroy.")
    );
    let resources: Vec<(&str, &str, Option<&str>)> = drift
        .resources
        .iter()
        .map(|r| (r.address.as_str(), r.action.as_str(), r.outside.as_deref()))
        .collect();
    assert_eq!(
        resources,
        [
            ("aws_security_group.web", "update", Some("changed")),
            ("aws_s3_bucket.logs", "create", Some("deleted")),
        ]
    );
    assert!(!drift.cut);
    assert!(
        edge.ready.message.is_empty(),
        "the plan text is not a one-line message"
    );
    assert!(row(&f, "flux-system/network").drift.is_none());
}

#[test]
fn failures_and_the_lock_are_shown() {
    let f = fleet(&["terraforms.json"]);
    assert_eq!(row(&f, "team-c/cache").failures, 10);
    assert_eq!(row(&f, "team-c/db").failures, 4);
    assert!(
        row(&f, "team-c/db")
            .ready
            .message
            .starts_with("error running Plan")
    );
    assert_eq!(
        row(&f, "team-c/storage").lock.as_deref(),
        Some("f2ab685b-f84d-ac0b-a125-378a22877e8d")
    );
    let billing = row(&f, "legacy/billing");
    assert!(billing.suspended);
    assert_eq!(billing.api_version, "infra.contrib.fluxcd.io/v1alpha1");
    assert_eq!(
        billing.revisions.applied,
        "main/0a1b2c3d4e5f67890123456789abcdef01234567"
    );
    assert_eq!(row(&f, "team-a/web").interval, "5m");
}

#[test]
fn a_row_links_to_the_plan_and_state_given_with_it_and_opens_them() {
    let f = fleet(&["terraforms.json", "team-a.json", "configmap-text-plan.json"]);
    let web = row(&f, "team-a/web");
    let kinds: Vec<Link> = web.links.iter().map(|(l, _)| *l).collect();
    assert!(
        matches!(kinds.as_slice(), [Link::Plan(_), Link::State(_)]),
        "{:?}",
        web.links
    );
    assert!(web.links[0].1.contains("(4 chunks)"), "{:?}", web.links);
    let plan = f.open(kinds[0], &Mask::default(), &Direct).unwrap();
    let direct = common::load_own("blast_radius.json");
    assert_eq!(
        Summary::of(&plan).sentence(),
        Summary::of(&direct).sentence()
    );
    let state = f.open(kinds[1], &Mask::default(), &Direct).unwrap();
    assert!(matches!(state.source, Source::State(_)));

    let edge = row(&f, "team-b/edge");
    let kinds: Vec<Link> = edge.links.iter().map(|(l, _)| *l).collect();
    assert!(
        matches!(kinds.as_slice(), [Link::TextPlan(_), Link::DriftMessage(_)]),
        "{:?}",
        edge.links
    );
    let drift = f.open(kinds[1], &Mask::default(), &Direct).unwrap();
    assert!(matches!(drift.source, Source::TextPlan(_)));
    assert_eq!(drift.rows.len(), 2);
    assert!(f.unclaimed.is_empty(), "{:?}", f.unclaimed);
    assert!(row(&f, "flux-system/network").links.is_empty());
}

#[test]
fn a_link_as_a_file_opens_the_same_document() {
    let f = fleet(&["terraforms.json", "team-a.json", "configmap-text-plan.json"]);
    let mut seen = 0;
    for row in &f.rows {
        for (link, _) in &row.links {
            let direct = f.open(*link, &Mask::default(), &Direct).unwrap();
            let (name, text) = f.link_file(*link).unwrap();
            let doc = planlens::load_plan(text.clone().into_bytes(), &name).unwrap();
            assert_eq!(doc.source.kind(), direct.source.kind(), "{link:?}");
            assert_eq!(doc.rows, direct.rows, "{link:?}");
            // A drift plan is its message's text: no Kubernetes object around it to name.
            if !matches!(link, Link::DriftMessage(_)) {
                assert_eq!(doc.notes[0], direct.notes[0], "{link:?}");
            }
            // Opened alone, a link's file is never a fleet again.
            let again = Fleet::read(vec![(name.clone(), text.into_bytes())]);
            assert!(again.rows.is_empty(), "{link:?}");
            seen += 1;
        }
    }
    assert_eq!(seen, 4);
}

#[test]
fn chunks_given_in_different_files_are_joined() {
    let chunked: serde_json::Value =
        serde_json::from_slice(&common::own_fixture("kube/plan-secret-chunked.json")).unwrap();
    let items = chunked["items"].as_array().unwrap();
    let files: Vec<(String, Vec<u8>)> = items
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("chunk{i}.json"), serde_json::to_vec(s).unwrap()))
        .chain([only(&["web"])])
        .collect();
    let f = Fleet::read(files);
    let (link, label) = &f.rows[0].links[0];
    assert!(label.contains("(4 chunks)"), "{label}");
    let doc = f.open(*link, &Mask::default(), &Direct).unwrap();
    assert_eq!(
        doc.rows.len(),
        common::load_own("blast_radius.json").rows.len()
    );
}

#[test]
fn stored_plans_no_workspace_claims_are_listed() {
    let f = Fleet::read(vec![only(&["network"]), file("plan-secret.json")]);
    assert_eq!(f.unclaimed, ["Secret team-a/tfplan-default-web.json"]);
}

#[test]
fn exit_codes_follow_the_worst_workspace() {
    let code = |files: Vec<(String, Vec<u8>)>| Fleet::read(files).exit_code();
    assert_eq!(code(vec![file("terraforms.json")]), 2);
    assert_eq!(code(vec![only(&["network", "dns", "iam", "billing"])]), 0);
    assert_eq!(code(vec![only(&["network", "web"])]), 1);
    assert_eq!(code(vec![only(&["network", "queue"])]), 1);
    assert_eq!(code(vec![only(&["network", "edge"])]), 2);
    assert_eq!(code(vec![only(&["network", "storage"])]), 2);
    assert_eq!(code(vec![only(&["network", "cache"])]), 2);
    // Bad input: a file that is not Kubernetes objects, or no workspace at all.
    assert_eq!(
        code(vec![
            only(&["network"]),
            ("x.json".into(), b"{\"a\":".to_vec())
        ]),
        3
    );
    assert_eq!(code(vec![file("plan-secret.json")]), 3);
}

#[test]
fn a_file_that_cannot_be_read_is_a_problem_and_the_rest_still_reads() {
    let f = Fleet::read(vec![
        file("terraforms.json"),
        ("notes.txt".into(), b"hello".to_vec()),
    ]);
    assert_eq!(f.rows.len(), 16);
    assert_eq!(f.problems.len(), 1);
    assert_eq!(f.problems[0].0, "notes.txt");
}

#[test]
fn filters_and_search_narrow_the_rows() {
    let f = fleet(&["terraforms.json"]);
    let ids = |filter: &FleetFilter| -> Vec<String> {
        filter
            .apply(&f.rows)
            .into_iter()
            .map(|i| f.rows[i].id())
            .collect()
    };
    let human = FleetFilter {
        needs_human: true,
        ..FleetFilter::default()
    };
    assert_eq!(ids(&human).len(), 8);
    let drifted_address = FleetFilter {
        search: "AWS_SECURITY_GROUP.web".into(),
        ..FleetFilter::default()
    };
    assert_eq!(ids(&drifted_address), ["team-b/edge"]);
    let by_id = FleetFilter {
        search: "team-c/st".into(),
        ..FleetFilter::default()
    };
    assert_eq!(ids(&by_id), ["team-c/storage"]);
    let plan_id = FleetFilter {
        search: "plan-main-9f8e".into(),
        namespace: "team-d".into(),
        ..FleetFilter::default()
    };
    assert_eq!(ids(&plan_id), ["team-d/sandbox", "team-d/audit"]);
    let failing = FleetFilter {
        attention: vec![Attention::Failing, Attention::Locked],
        ..FleetFilter::default()
    };
    assert_eq!(
        ids(&failing),
        [
            "team-c/cache",
            "team-c/db",
            "team-e/monitoring",
            "team-c/storage"
        ]
    );
    assert_eq!(
        planlens::fleet::namespaces(&f.rows),
        [
            "flux-system",
            "legacy",
            "team-a",
            "team-b",
            "team-c",
            "team-d",
            "team-e"
        ]
    );
}

#[test]
fn the_fleet_json_round_trips() {
    let f = fleet(&["terraforms.json"]);
    let json = serde_json::to_string(&f.rows).unwrap();
    let back: Vec<planlens::fleet::Row> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, f.rows);
}

#[test]
fn cli_prints_the_table_and_exits_with_the_worst_workspace() {
    let (code, out, _) =
        planlens_line("fleet tests/fixtures/kube/terraforms.yaml tests/fixtures/kube/team-a.json");
    assert_eq!(code, 2, "{out}");
    assert!(
        out.starts_with("Fleet: 16 workspaces — 3 failing, 1 drift, 1 locked"),
        "{out}"
    );
    assert!(out.contains("NEEDS"), "{out}");
    let web = out
        .lines()
        .find(|l| l.contains("team-a/web") && l.starts_with("awaiting"))
        .unwrap();
    assert!(
        web.contains("plan-main-9f8e7d6c5b (awaits approval)"),
        "{web}"
    );
    assert!(
        out.contains("aws_s3_bucket.logs  deleted outside Terraform; plan: create"),
        "{out}"
    );
    assert!(
        out.contains("\"approvePlan\":\"plan-main-9f8e7d6c5b\""),
        "{out}"
    );
    assert!(out.contains("Stored with it: plan Secret team-a/tfplan-default-web.json (4 chunks)"));
}

#[test]
fn cli_json_and_exit_codes() {
    let (code, out, _) = planlens_line("fleet tests/fixtures/kube/terraforms.json --format json");
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["workspaces"].as_array().unwrap().len(), 16);
    assert_eq!(v["counts"]["failing"], 3);
    assert_eq!(v["exit_code"], 2);
    assert_eq!(v["workspaces"][0]["attention"], "failing");

    let dir = std::env::temp_dir().join(format!("planlens-fleet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, bytes: Vec<u8>| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_string_lossy().into_owned()
    };
    let ready = write("ready.json", only(&["network", "dns"]).1);
    let waiting = write("waiting.json", only(&["network", "web"]).1);
    assert_eq!(planlens(&["fleet", &ready]).0, 0);
    assert_eq!(planlens(&["fleet", &waiting]).0, 1);
    let (code, _, err) = planlens(&["fleet", &ready, "tests/fixtures/not_json.txt"]);
    assert_eq!(code, 3);
    assert!(err.contains("not_json.txt"), "{err}");
    assert_eq!(
        planlens_line("fleet tests/fixtures/kube/plan-secret.json").0,
        3
    );
    assert_eq!(planlens(&["fleet", "--format", "xml", &ready]).0, 64);
    assert_eq!(planlens_line("fleet").0, 64);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cli_summary_and_check_accept_plan_secrets() {
    let (code, out, err) = planlens_line("summary tests/fixtures/kube/plan-secret-chunked.json");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("Plan: 2 to add, 2 to change, 2 to destroy."),
        "{out}"
    );
    assert!(
        err.contains("Read the plan from Secret team-a/tfplan-default-web.json (4 chunks)"),
        "{err}"
    );
    let direct = planlens_line("check tests/fixtures/blast_radius.json");
    let secret = planlens_line("check tests/fixtures/kube/plan-secret.yaml");
    assert_eq!(secret.0, direct.0);
    assert_eq!(secret.1, direct.1);
    let (code, _, err) =
        planlens_line("summary tests/fixtures/kube/plan-secret-chunk-missing.json");
    assert_eq!(code, 3);
    assert!(err.contains("chunk 1 is missing"), "{err}");
}
