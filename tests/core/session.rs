//! The session a browser worker runs: over every real file and our own fixtures, the values-free
//! index it hands the views — sent as JSON, as between threads — reads back into a document with
//! the same rows, counts, graph, drift, outputs, checks and findings as the full plan, and the
//! diffs it gives on request are the full plan's.

use crate::common;

use std::collections::BTreeMap;

use planlens::analysis::Analysis;
use planlens::checks::check_rows;
use planlens::diff::diff_change;
use planlens::load::Direct;
use planlens::load::fragment::LinkView;
use planlens::outputs::output_rows;
use planlens::rules::RuleSet;
use planlens::session::{Index, OpenOptions, Request, Response, Session};
use planlens::{Document, Summary};

fn options(name: &str) -> OpenOptions {
    OpenOptions {
        name: name.to_string(),
        mask_builtin: true,
        mask_user: Vec::new(),
        rules: None,
        labels: BTreeMap::new(),
    }
}

/// Every input we have, as bytes: the real corpus (when present) and our own fixtures.
fn inputs() -> Vec<(String, Vec<u8>)> {
    common::inputs()
}

/// What the list shows and filters by, per row.
fn rows(doc: &Document) -> Vec<String> {
    doc.rows
        .iter()
        .map(|r| {
            let c = doc.change(r);
            format!(
                "{} {} {:?} {} {} {} {} {} {} {} {:?} {:?} {:?} {}",
                c.address,
                r.action.key(),
                r.source,
                doc.modules[r.module as usize],
                doc.resource_types[r.resource_type as usize],
                doc.providers[r.provider as usize],
                r.is_data,
                r.is_move,
                r.is_import,
                r.is_drifted,
                c.action_reason,
                c.previous_address,
                c.change.importing.as_ref().map(|i| &i.id),
                c.index_unknown,
            )
        })
        .collect()
}

/// Sends the index as the worker does (JSON) and reads it back.
fn through_json(index: &Index) -> Index {
    serde_json::from_str(&serde_json::to_string(index).unwrap()).unwrap()
}

#[test]
fn the_index_reads_back_to_the_same_views_for_every_input() {
    let inputs = inputs();
    if common::real_fixtures_dir().is_none() {
        eprintln!("SKIPPED the real corpus (../shared/fixtures/real is absent); own fixtures only");
    }
    for (name, bytes) in inputs {
        let mut session = Session::open_bytes(bytes, &options(&name), &Direct)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let graph: Response = serde_json::from_str(
            &serde_json::to_string(&session.answer(Request::Graph, &Direct)).unwrap(),
        )
        .unwrap();
        let full = session.document();
        let analysis = Analysis::of(full);
        let index = through_json(&session.index(None, &BTreeMap::new()));
        let slim = index.document().unwrap_or_else(|e| panic!("{name}: {e}"));
        let slim_analysis = Analysis::of(&slim);
        assert!(slim.values_in_session() && !slim.values_dropped(), "{name}");
        assert_eq!(rows(full), rows(&slim), "{name}: rows");
        assert_eq!(full.modules, slim.modules, "{name}: modules");
        assert_eq!(Summary::of(full), Summary::of(&slim), "{name}: summary");
        assert_eq!(
            Summary::of(full).headline(full),
            Summary::of(&slim).headline(&slim),
            "{name}: headline"
        );
        assert_eq!(
            analysis.planning, slim_analysis.planning,
            "{name}: planning"
        );
        assert_eq!(full.source, slim.source, "{name}: source facts");
        assert_eq!(full.warnings, slim.warnings, "{name}: warnings");
        assert_eq!(full.has_values(), slim.has_values(), "{name}: has values");
        assert_eq!(full.masking, slim.masking, "{name}: masking");
        assert_eq!(
            analysis.drift.resources, slim_analysis.drift.resources,
            "{name}: drift"
        );
        assert_eq!(
            analysis.drift.note(),
            slim_analysis.drift.note(),
            "{name}: drift note"
        );
        // The index carries no graph: the views ask the session for it.
        assert!(
            index.analyses.graph.is_none(),
            "{name}: a graph in the index"
        );
        assert!(slim_analysis.graph_in_session() && slim_analysis.graph_ready().is_none());
        let Response::Graph(carried) = graph else {
            panic!("{name}: no graph");
        };
        let (g, h) = (
            analysis.graph(full),
            (slim_analysis.receive_graph(&slim, &carried))
                .unwrap_or_else(|e| panic!("{name}: {e}")),
        );
        assert_eq!(g.graph.node_count(), h.graph.node_count(), "{name}: nodes");
        assert_eq!(g.graph.edge_count(), h.graph.edge_count(), "{name}: edges");
        let edges = |g: &planlens::graph::DepGraph| {
            (g.graph.edge_indices())
                .map(|e| {
                    let (a, b) = g.graph.edge_endpoints(e).unwrap();
                    (g.graph[a].address.clone(), g.graph[b].address.clone())
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(edges(g), edges(h), "{name}: edges");
        // The evaluation is sent once when it is the one the document carries.
        assert!(index.carried.is_none(), "{name}: the findings twice");
        assert_eq!(index.analyses.outputs, output_rows(full), "{name}: outputs");
        assert_eq!(index.analyses.checks, check_rows(full), "{name}: checks");
        let builtin = analysis.evaluate(full, &RuleSet::builtin(), &BTreeMap::new());
        assert_eq!(
            index.evaluation.as_ref().ok(),
            Some(&builtin),
            "{name}: findings"
        );
        assert_eq!(
            slim_analysis.evaluate(&slim, &RuleSet::builtin(), &BTreeMap::new()),
            builtin,
            "{name}: carried findings"
        );
    }
}

#[test]
fn diffs_come_on_request_and_match_the_full_plan() {
    for (name, bytes) in inputs() {
        let mut session = Session::open_bytes(bytes, &options(&name), &Direct).unwrap();
        let expected: Vec<_> = {
            let doc = session.document();
            doc.rows
                .iter()
                .map(|r| doc.has_values().then(|| diff_change(&doc.change(r).change)))
                .collect()
        };
        for (row, want) in expected.into_iter().enumerate() {
            let answer: Response = serde_json::from_str(
                &serde_json::to_string(&session.answer(Request::Diff { row: row as u32 }, &Direct))
                    .unwrap(),
            )
            .unwrap();
            match answer {
                Response::Diff(got) => assert_eq!(got, want, "{name}: row {row}"),
                other => panic!("{name}: {other:?}"),
            }
        }
    }
}

#[test]
fn rules_are_evaluated_again_on_request_and_errors_come_back_as_text() {
    let bytes = common::own_fixture("share_secrets.json");
    let mut session = Session::open_bytes(bytes, &options("share_secrets.json"), &Direct).unwrap();
    let rules = r#"
[[rule]]
id = "no-deletes"
severity = "deny"
actions = ["delete"]
message = "{address} is deleted"
"#;
    let expected = {
        let doc = session.document();
        Analysis::of(doc).evaluate(doc, &RuleSet::parse(rules).unwrap(), &BTreeMap::new())
    };
    match session.answer(
        Request::Evaluate {
            rules: Some(rules.to_string()),
            labels: BTreeMap::new(),
            policies: None,
        },
        &Direct,
    ) {
        Response::Evaluation(Ok(e)) => assert_eq!(e, expected),
        other => panic!("{other:?}"),
    }
    match session.answer(
        Request::Evaluate {
            rules: Some("[[rule]]\nid = 3".to_string()),
            labels: BTreeMap::new(),
            policies: None,
        },
        &Direct,
    ) {
        Response::Evaluation(Err(message)) => assert!(message.contains("line"), "{message}"),
        other => panic!("{other:?}"),
    }
    // An index opened with rules that do not parse carries the built-in pack's findings (sent
    // beside the errors; otherwise the evaluation itself is what the document carries).
    let index = through_json(&session.index(Some("[[rule]]\nid = 3"), &BTreeMap::new()));
    let builtin = {
        let doc = session.document();
        Analysis::of(doc).evaluate(doc, &RuleSet::builtin(), &BTreeMap::new())
    };
    assert!(index.evaluation.is_err());
    assert_eq!(index.carried.as_ref(), Some(&builtin));
    assert_eq!(
        index.document().unwrap().redacted.unwrap().evaluation,
        builtin
    );
}

/// A share link followed as the browser follows it: fragment → payload → text → a session.
/// The share dialog's request: links from `base` to the opening view, with these labels and the
/// Rego engine's answer for the policies in use.
fn share(base: &str, labels: BTreeMap<String, String>, policies: Option<String>) -> Request {
    Request::Share {
        base: base.to_string(),
        view: Box::default(),
        rules: None,
        labels,
        by_address: None,
        policies,
        since: None,
        since_compared: false,
    }
}

/// The redacted link a session answers the share dialog with.
fn redacted_link(session: &mut Session, request: Request) -> String {
    let Response::Share { redacted, .. } = session.answer(request, &Direct) else {
        panic!("no links");
    };
    redacted
}

fn open_link(link: &str, name: &str) -> Session {
    let fragment = planlens::load::fragment::Fragment::parse(&link[link.find('#').unwrap()..]);
    let text = planlens::load::link::decode(fragment.plan.as_deref().unwrap()).unwrap();
    Session::open_text(text, &options(name), &Direct).unwrap()
}

#[test]
fn share_links_are_made_by_the_session_as_the_core_makes_them() {
    let bytes = common::own_fixture("share_secrets.json");
    let mut session = Session::open_bytes(bytes, &options("share_secrets.json"), &Direct).unwrap();
    let base = "https://example.github.io/planlens/";
    let expected = planlens::share::full_link(
        base,
        session.document(),
        &LinkView::default(),
        &planlens::load::Direct,
    );
    match session.answer(share(base, BTreeMap::new(), None), &Direct) {
        Response::Share {
            full,
            redacted,
            markdown,
            builtin_fallback,
        } => {
            assert_eq!(full, expected);
            assert!(redacted.starts_with(base) && redacted != full);
            assert!(markdown.contains("Planlens") || !markdown.is_empty());
            assert!(!builtin_fallback);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn remasking_opens_the_same_text_with_other_patterns() {
    let bytes = common::own_fixture("share_secrets.json");
    let mut session = Session::open_bytes(bytes, &options("share_secrets.json"), &Direct).unwrap();
    let before = session.document().masking.masked_by_name;
    let mut other = options("share_secrets.json");
    other.mask_builtin = false;
    match session.answer(Request::Remask(Box::new(other)), &Direct) {
        Response::Opened(index) => {
            let doc = index.document().unwrap();
            assert!(!doc.masking.mask.uses_builtin());
            assert!(doc.masking.masked_by_name < before || before == 0);
        }
        other => panic!("{other:?}"),
    }
    assert!(!session.document().masking.mask.uses_builtin());
}

#[test]
fn a_redacted_link_opened_in_a_session_stays_a_redacted_link() {
    let bytes = common::own_fixture("drift_effects.json");
    let mut session = Session::open_bytes(bytes, &options("drift_effects.json"), &Direct).unwrap();
    let base = "https://example.github.io/planlens/";
    let redacted = redacted_link(&mut session, share(base, BTreeMap::new(), None));
    // Followed as the browser follows it: fragment → payload → text → a session.
    let mut link = open_link(&redacted, "drift_effects.json");
    let index = through_json(&link.index(None, &BTreeMap::new()));
    let slim = index.document().unwrap();
    // The views say "redacted" and ask for no diff; the findings are the link's.
    assert!(slim.values_dropped() && !slim.values_in_session());
    assert!(!slim.has_values() && slim.missing_values().is_some());
    assert!(Analysis::of(&slim).findings_carried());
    assert!(matches!(
        link.answer(Request::Diff { row: 0 }, &Direct),
        Response::Diff(None)
    ));
}

/// Rego policies as the browser runs them: the session prepares the engine's request and inputs,
/// the engine (the lazily loaded part; here called natively) answers, and the session's
/// evaluation with that answer is the CLI's (`policy::evaluate` then `policy::judge`).
#[test]
fn policies_are_evaluated_through_the_session_as_the_cli_evaluates_them() {
    use planlens::policy::{self, PolicyFile};
    let bytes = common::own_fixture("blast_radius.json");
    let mut session = Session::open_bytes(bytes, &options("blast_radius.json"), &Direct).unwrap();
    let policies = vec![PolicyFile::new(
        "deny_delete.rego",
        "package main\n\ndeny contains msg if {\n  some rc in input.resource_changes\n  \"delete\" in rc.change.actions\n  msg := sprintf(\"%s is deleted\", [rc.address])\n}\n",
    )];
    let labels = BTreeMap::from([("environment".to_string(), "prod".to_string())]);
    let Response::PolicyInputs {
        request,
        inputs,
        shapes,
    } = session.answer(
        Request::PolicyInputs {
            policies: policies.clone(),
            labels: labels.clone(),
            namespaces: Vec::new(),
            shape: None,
        },
        &Direct,
    )
    else {
        panic!("no inputs");
    };
    assert_eq!(shapes, vec![Some(policy::Shape::Conftest)]);
    let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    let answer = policy::engine::run_json(&request, &inputs);
    let Response::Evaluation(Ok(evaluation)) = session.answer(
        Request::Evaluate {
            rules: None,
            labels: labels.clone(),
            policies: Some(answer.clone()),
        },
        &Direct,
    ) else {
        panic!("no evaluation");
    };
    let doc = session.document();
    let (outcome, _) =
        policy::evaluate(&policies, doc, &labels, &policy::Options::default()).unwrap();
    let expected = policy::judge(
        Analysis::of(doc).evaluate(doc, &RuleSet::builtin(), &labels),
        &outcome,
        doc,
    );
    assert_eq!(evaluation, expected);
    let ours: Vec<_> = (evaluation.findings.iter())
        .filter(|f| f.rule_id == "data.main.deny")
        .collect();
    assert!(!ours.is_empty() && ours.iter().all(|f| f.resource.is_some()));

    // The share dialog's redacted link carries the policies' findings (their verdict is the
    // page's) without their messages, which may hold values.
    let base = "https://example.github.io/planlens/";
    let redacted = redacted_link(&mut session, share(base, labels.clone(), Some(answer)));
    let link = open_link(&redacted, "blast_radius.json");
    let carried = (link.index(None, &BTreeMap::new()))
        .carried_evaluation()
        .expect("a link carries its findings");
    let in_link: Vec<_> = (carried.findings.iter())
        .filter(|f| f.rule_id == "data.main.deny")
        .collect();
    assert_eq!(in_link.len(), ours.len());
    assert!(in_link.iter().all(|f| !f.message.contains(" is deleted")));
    assert_eq!(carried.verdict, evaluation.verdict);
}

/// A policy that does not compile gives no evaluation (no verdict), with the file and line.
#[test]
fn a_policy_that_does_not_compile_gives_errors_and_no_evaluation() {
    use planlens::policy::{self, PolicyFile};
    let bytes = common::own_fixture("blast_radius.json");
    let mut session = Session::open_bytes(bytes, &options("blast_radius.json"), &Direct).unwrap();
    let policies = vec![PolicyFile::new(
        "unsafe.rego",
        "package main\n\ndeny contains msg if {\n  not startswith(x, \"a\")\n  msg := \"m\"\n}\n",
    )];
    let Response::PolicyInputs {
        request, inputs, ..
    } = session.answer(
        Request::PolicyInputs {
            policies,
            labels: BTreeMap::new(),
            namespaces: Vec::new(),
            shape: None,
        },
        &Direct,
    )
    else {
        panic!("no inputs");
    };
    let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    let answer = policy::engine::run_json(&request, &inputs);
    match session.answer(
        Request::Evaluate {
            rules: None,
            labels: BTreeMap::new(),
            policies: Some(answer),
        },
        &Direct,
    ) {
        Response::Evaluation(Err(message)) => {
            assert!(message.contains("unsafe.rego:4"), "{message}")
        }
        other => panic!("{other:?}"),
    }
}

/// Policies never run on a state (it is not a plan) nor on a redacted link (no values).
#[test]
fn policies_are_not_run_on_a_state_or_a_redacted_link() {
    use planlens::policy::PolicyFile;
    let ask = |session: &mut Session| {
        session.answer(
            Request::PolicyInputs {
                policies: vec![PolicyFile::new("p.rego", "package main\n")],
                labels: BTreeMap::new(),
                namespaces: Vec::new(),
                shape: None,
            },
            &Direct,
        )
    };
    let mut state = Session::open_bytes(
        common::own_fixture("state.json"),
        &options("state.json"),
        &Direct,
    )
    .unwrap();
    assert!(matches!(ask(&mut state), Response::Failed(m) if m.contains("state")));
    let mut plan = Session::open_bytes(
        common::own_fixture("drift_effects.json"),
        &options("d.json"),
        &Direct,
    )
    .unwrap();
    let base = "https://example.github.io/planlens/";
    let redacted = redacted_link(&mut plan, share(base, BTreeMap::new(), None));
    let mut link = open_link(&redacted, "d.json");
    assert!(matches!(ask(&mut link), Response::Failed(m) if m.contains("redacted")));
}

/// Files opened together: tf-controller objects open as a fleet (its rows' plans and states as
/// files the page opens again), one plan file as its document, files with no workspace refused.
#[test]
fn files_open_as_a_fleet_or_as_one_document() {
    use planlens::session::{Opened, answer_fleet};
    let kube = |name: &str| {
        let path = format!("tests/fixtures/kube/{name}");
        (
            name.to_string(),
            std::fs::read(&path).expect("a kube fixture"),
        )
    };
    let opened = Session::open_files(
        vec![
            kube("terraforms.json"),
            kube("plan-secret.json"),
            kube("state-secret.json"),
        ],
        &options("fleet"),
        &Direct,
    )
    .unwrap();
    let Opened::Fleet(fleet) = opened else {
        panic!("not a fleet");
    };
    assert!(!fleet.index.rows.is_empty() && fleet.index.problems.is_empty());
    let (link, _) = (fleet.index.rows.iter())
        .flat_map(|r| r.links.iter())
        .find(|(l, _)| matches!(l, planlens::fleet::Link::Plan(_)))
        .expect("a row links its plan Secret")
        .clone();
    let Response::FleetFile { name, text } = answer_fleet(&fleet, Request::FleetLink { link })
    else {
        panic!("no file");
    };
    // The file opens as the plan it holds, like any file.
    let plan = Session::open_text(text, &options(&name), &Direct).unwrap();
    assert!(!plan.document().rows.is_empty());

    // One Terraform object list alone is a fleet too; one plan file is its document.
    assert!(matches!(
        Session::open_files(vec![kube("terraforms.json")], &options("t"), &Direct).unwrap(),
        Opened::Fleet(_)
    ));
    assert!(matches!(
        Session::open_files(vec![kube("plan-secret.json")], &options("p"), &Direct).unwrap(),
        Opened::Plan(_)
    ));
    let plan = (
        "blast_radius.json".to_string(),
        common::own_fixture("blast_radius.json"),
    );
    assert!(matches!(
        Session::open_files(vec![plan.clone()], &options("r"), &Direct).unwrap(),
        Opened::Plan(_)
    ));
    // A plan Secret and its state Secret in two files open as the plan, as one file holding
    // both does.
    let Opened::Plan(both) = Session::open_files(
        vec![kube("plan-secret.json"), kube("state-secret.json")],
        &options("b"),
        &Direct,
    )
    .unwrap() else {
        panic!("a plan and its state did not open as the plan");
    };
    assert!(!both.document().source.is_state());
    // Two plans are no fleet: they are a set of plans, each named (issue 28).
    let Ok(Opened::Set(set)) =
        Session::open_files(vec![plan.clone(), plan], &options("r"), &Direct)
    else {
        panic!("two plans did not open as a set");
    };
    let names: Vec<&str> = set.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["blast_radius", "blast_radius (2)"]);
    // A plan beside Kubernetes objects is a set too, never left out without a word: each is a
    // member, read by the one-plan path (which opens a plan Secret as its plan).
    let Ok(Opened::Set(set)) = Session::open_files(
        vec![
            kube("plan-secret.json"),
            (
                "blast_radius.json".to_string(),
                common::own_fixture("blast_radius.json"),
            ),
        ],
        &options("m"),
        &Direct,
    ) else {
        panic!("a plan beside a Secret did not open as a set");
    };
    assert_eq!(set.members.len(), 2);
}
