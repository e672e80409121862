//! Share links: the payload codec, full links (the plan without sensitive values) and redacted
//! links (no values at all) over every real file and our own fixtures: each reopens to the same
//! summary, list, graph, drift and verdict; no sensitive value is in any link, and no attribute
//! value is in a redacted one. Damaged and edited links are refused with a message.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use planlens::analysis::Analysis;
use planlens::diff::diff_change;
use planlens::drift::Drift;
use planlens::load::fragment::{Fragment, LinkView};
use planlens::load::link::{LinkError, decode, encode};
use planlens::model::Document;
use planlens::rules::{Evaluation, RuleSet};
use planlens::share::{full_link, redacted_link, strip};
use planlens::{Summary, load_plan_text};

const BASE: &str = "https://example.github.io/planlens/";

/// Every input we have: the real corpus (when present) and our own fixtures.
fn inputs() -> Vec<(String, String)> {
    (common::inputs().into_iter())
        .map(|(name, bytes)| (name, String::from_utf8(bytes).unwrap()))
        .collect()
}

/// A loaded input with what the views derive from it.
struct Opened {
    doc: Document,
    analysis: Analysis,
    evaluation: Evaluation,
}

fn open(text: String, name: &str) -> Opened {
    let doc = load_plan_text(text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let analysis = Analysis::of(&doc);
    let evaluation = analysis.evaluate(&doc, &RuleSet::builtin(), &BTreeMap::new());
    Opened {
        doc,
        analysis,
        evaluation,
    }
}

/// The redacted link of an opened input, with the built-in rules.
fn redacted(o: &Opened, view: &LinkView) -> String {
    redacted_link(
        BASE,
        &o.doc,
        &o.analysis,
        &RuleSet::builtin(),
        &BTreeMap::new(),
        view,
        None,
    )
}

/// Follows a link the way the browser does: fragment → payload → text → document.
fn follow(link: &str, name: &str) -> (Fragment, Opened) {
    let hash = &link[link.find('#').expect("a fragment")..];
    let fragment = Fragment::parse(hash);
    let payload = fragment.plan.as_deref().expect("a plan in the link");
    let text = decode(payload).unwrap_or_else(|e| panic!("{name}: {e}"));
    (fragment, open(text, name))
}

/// Address, action, marks (data, move, import, drift), module/type/provider, name, mode.
type Row = (String, String, [bool; 4], [u32; 3], String, String);

/// What the list shows of each row (and filters by).
fn rows(doc: &Document) -> Vec<Row> {
    doc.rows
        .iter()
        .map(|r| {
            let c = doc.change(r);
            (
                c.address.to_string(),
                r.action.key().to_string(),
                [r.is_data, r.is_move, r.is_import, r.is_drifted],
                [r.module, r.resource_type, r.provider],
                c.name.to_string(),
                format!("{:?}", c.mode),
            )
        })
        .collect()
}

/// The graph as sets of nodes and edges, by address.
fn graph(o: &Opened) -> (BTreeSet<String>, BTreeSet<(String, String, String)>) {
    let g = o.analysis.graph(&o.doc);
    let nodes = g
        .graph
        .node_weights()
        .map(|n| {
            format!(
                "{} {} {:?} {} {}{}{}{}{}",
                n.address,
                n.action.key(),
                n.row,
                g.module_instances[n.module as usize].path,
                n.is_data,
                n.is_import,
                n.is_move,
                n.is_drifted,
                n.is_deposed
            )
        })
        .collect();
    let edges = g
        .graph
        .raw_edges()
        .iter()
        .map(|e| {
            (
                g.graph[e.source()].address.clone(),
                g.graph[e.target()].address.clone(),
                e.weight.key().to_string(),
            )
        })
        .collect();
    (nodes, edges)
}

fn drift_view(drift: &Drift) -> Vec<String> {
    drift
        .resources
        .iter()
        .map(|r| {
            format!(
                "{} {:?} {} {} {:?}",
                r.address,
                r.rows,
                r.severity.key(),
                r.effect.key(),
                r.paths
            )
        })
        .collect()
}

fn findings(e: &Evaluation, with_messages: bool) -> Vec<String> {
    e.findings
        .iter()
        .map(|f| {
            format!(
                "{} {} {:?} {}",
                f.rule_id,
                f.severity.key(),
                f.resource,
                if with_messages { &f.message } else { "" }
            )
        })
        .collect()
}

fn assert_same_views(name: &str, a: &Opened, b: &Opened) {
    assert_eq!(Summary::of(&a.doc), Summary::of(&b.doc), "{name}: summary");
    assert_eq!(
        Summary::of(&a.doc).headline(&a.doc),
        Summary::of(&b.doc).headline(&b.doc),
        "{name}: headline"
    );
    assert_eq!(rows(&a.doc), rows(&b.doc), "{name}: rows");
    assert_eq!(a.doc.modules, b.doc.modules, "{name}: modules");
    assert_eq!(a.doc.resource_types, b.doc.resource_types, "{name}: types");
    assert_eq!(a.doc.providers, b.doc.providers, "{name}: providers");
    assert_eq!(graph(a), graph(b), "{name}: graph");
    assert_eq!(
        drift_view(&a.analysis.drift),
        drift_view(&b.analysis.drift),
        "{name}: drift"
    );
    assert_eq!(
        a.analysis.drift.note(),
        b.analysis.drift.note(),
        "{name}: drift note"
    );
    assert_eq!(
        a.evaluation.verdict, b.evaluation.verdict,
        "{name}: verdict"
    );
    assert_eq!(
        findings(&a.evaluation, false),
        findings(&b.evaluation, false),
        "{name}: findings"
    );
}

#[test]
fn full_links_reopen_every_input_with_the_same_views_and_diffs() {
    let mut sizes = (0, 0);
    for (name, text) in inputs() {
        let original = open(text.clone(), &name);
        let view = LinkView {
            tab: Some("graph".to_string()),
            address: original
                .doc
                .rows
                .first()
                .map(|r| original.doc.change(r).address.to_string()),
            ..LinkView::default()
        };
        let link = full_link(BASE, &original.doc, &view, &planlens::load::Direct);
        assert!(link.starts_with(&format!("{BASE}#tab=graph")), "{name}");
        sizes = (sizes.0 + text.len(), sizes.1 + link.len());
        let (fragment, shared) = follow(&link, &name);
        assert_eq!(fragment.view, view, "{name}: view");
        assert_same_views(&name, &original, &shared);
        // Messages too: a value a message prints is not sensitive (sensitive ones print masked).
        assert_eq!(
            findings(&original.evaluation, true),
            findings(&shared.evaluation, true),
            "{name}: messages"
        );
        assert!(shared.doc.redacted.is_none(), "{name}");
        assert_eq!(
            shared.doc.source, original.doc.source,
            "{name}: source facts"
        );
        // Every diff reads the same: sensitive values were masked before, and still are.
        for (ra, rb) in original.doc.rows.iter().zip(&shared.doc.rows) {
            assert_eq!(
                diff_change(&original.doc.change(ra).change),
                diff_change(&shared.doc.change(rb).change),
                "{name}: diff of {}",
                original.doc.change(ra).address
            );
        }
    }
    // Plans compress well, and the parts Planlens does not show are left out.
    assert!(
        sizes.1 * 4 < sizes.0,
        "links {} for {} bytes",
        sizes.1,
        sizes.0
    );
}

#[test]
fn redacted_links_reopen_every_input_with_the_same_views() {
    for (name, text) in inputs() {
        let original = open(text, &name);
        let view = LinkView {
            tab: Some("drift".to_string()),
            ..LinkView::default()
        };
        let link = redacted(&original, &view);
        let (fragment, shared) = follow(&link, &name);
        assert_eq!(fragment.view, view, "{name}: view");
        assert!(shared.doc.redacted.is_some(), "{name}: read as redacted");
        assert!(!shared.doc.has_values(), "{name}");
        assert!(shared.doc.missing_values().is_some(), "{name}");
        assert_same_views(&name, &original, &shared);
        // Sharing it again gives the same link.
        assert_eq!(redacted(&shared, &view), link, "{name}: re-shared");
    }
}

/// Every key anywhere under `value`.
fn keys(value: &serde_json::Value, out: &mut BTreeSet<String>) {
    match value {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                out.insert(k.clone());
                keys(v, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|v| keys(v, out)),
        _ => {}
    }
}

#[test]
fn redacted_links_carry_no_attribute_values() {
    for (name, text) in inputs() {
        let original = open(text, &name);
        let link = redacted(&original, &LinkView::default());
        let payload = Fragment::parse(&link[link.find('#').unwrap()..])
            .plan
            .unwrap();
        let json: serde_json::Value = serde_json::from_str(&decode(&payload).unwrap()).unwrap();
        // The plan inside has no place for a value left: only identities and actions. Outputs
        // keep their actions and whether they are sensitive as a whole.
        for (output, change) in json["plan"]["output_changes"]
            .as_object()
            .into_iter()
            .flatten()
        {
            for (k, v) in change.as_object().unwrap() {
                assert!(
                    k == "actions" || (k.ends_with("_sensitive") && v.is_boolean()),
                    "{name}: output {output} keeps {k}"
                );
            }
        }
        let mut without_outputs = json["plan"].clone();
        without_outputs
            .as_object_mut()
            .unwrap()
            .remove("output_changes");
        let mut plan_keys = BTreeSet::new();
        keys(&without_outputs, &mut plan_keys);
        for forbidden in [
            "before",
            "after",
            "after_unknown",
            "before_sensitive",
            "after_sensitive",
            "replace_paths",
            "id",
            "generated_config",
            "variables",
            "configuration",
            "prior_state",
            "planned_values",
            "relevant_attributes",
            "values",
            "problems",
            "index",
        ] {
            // Terraform 1.0.0's unchanged drift entries keep equal empty objects, nothing more.
            if forbidden == "before" || forbidden == "after" {
                for entry in json["plan"]["resource_drift"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    if let Some(v) = entry["change"].get(forbidden) {
                        assert_eq!(v, &serde_json::json!({}), "{name}: drift {forbidden}");
                    }
                }
                for c in json["plan"]["resource_changes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    assert!(c["change"].get(forbidden).is_none(), "{name}: {forbidden}");
                }
                continue;
            }
            assert!(!plan_keys.contains(forbidden), "{name}: key {forbidden}");
        }
        let top: BTreeSet<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            top,
            BTreeSet::from([
                "planlens_redacted",
                "name",
                "source",
                "warnings",
                "plan",
                "graph",
                "drift",
                "evaluation",
                "labels"
            ]),
            "{name}"
        );
    }
}

#[test]
fn no_secret_reaches_any_link_and_no_value_a_redacted_one() {
    let original = open(
        String::from_utf8(common::own_fixture("share_secrets.json")).unwrap(),
        "share_secrets.json",
    );
    // The fixture's findings print a value: the instance type.
    assert!(
        original
            .evaluation
            .findings
            .iter()
            .any(|f| f.message.contains("m5.8xlarge"))
    );
    let full = full_link(
        BASE,
        &original.doc,
        &LinkView::default(),
        &planlens::load::Direct,
    );
    let full_text = decode(
        &Fragment::parse(&full[full.find('#').unwrap()..])
            .plan
            .unwrap(),
    )
    .unwrap();
    assert!(
        !full_text.contains("SECRET-"),
        "a secret in the full link: {full_text}"
    );
    for kept in [
        "VALUE-db.r6g.16xlarge",
        "VALUE-owner-a",
        "VALUE-import-id",
        "m5.8xlarge",
    ] {
        assert!(
            full_text.contains(kept),
            "{kept} is a plain value and stays"
        );
    }
    let redacted = redacted_link(
        BASE,
        &original.doc,
        &original.analysis,
        &RuleSet::builtin(),
        &BTreeMap::new(),
        &LinkView::default(),
        None,
    );
    let redacted_text = decode(
        &Fragment::parse(&redacted[redacted.find('#').unwrap()..])
            .plan
            .unwrap(),
    )
    .unwrap();
    for marker in ["SECRET-", "VALUE-", "m5.8xlarge"] {
        assert!(
            !redacted_text.contains(marker),
            "{marker} in the redacted link: {redacted_text}"
        );
    }
    assert!(redacted_text.contains("of type (redacted) not allowed outside prod"));
    // Secrets became placeholders: three before, three after, one of them unchanged.
    let shared = follow(&full, "share_secrets.json").1;
    let change = &shared.doc.change(&shared.doc.rows[0]).change;
    assert_eq!(
        change
            .before
            .unwrap()
            .get()
            .matches(strip::SENSITIVE)
            .count(),
        3
    );
    assert_eq!(
        change
            .after
            .unwrap()
            .get()
            .matches(strip::SENSITIVE)
            .count(),
        3
    );
}

#[test]
fn damaged_and_edited_links_are_refused_with_a_message() {
    let original = open(
        String::from_utf8(common::own_fixture("share_secrets.json")).unwrap(),
        "share_secrets.json",
    );
    let link = full_link(
        BASE,
        &original.doc,
        &LinkView::default(),
        &planlens::load::Direct,
    );
    let payload = Fragment::parse(&link[link.find('#').unwrap()..])
        .plan
        .unwrap();
    // Cut short, a character changed, a character that is not base64, a future version.
    assert_eq!(
        decode(&payload[..payload.len() / 2]),
        Err(LinkError::Damaged)
    );
    let mut edited = payload.clone().into_bytes();
    let mid = edited.len() / 2;
    edited[mid] = if edited[mid] == b'A' { b'B' } else { b'A' };
    assert!(decode(&String::from_utf8(edited).unwrap()).is_err());
    assert!(matches!(
        decode(&format!("{}%", &payload[..10])),
        Err(LinkError::NotBase64 { .. })
    ));

    // A redacted document whose finding points past its resources is refused, not shown.
    let redacted = planlens::share::redacted::write(
        &original.doc,
        &original.analysis,
        &RuleSet::builtin(),
        &BTreeMap::new(),
    );
    let mut json: serde_json::Value = serde_json::from_str(&redacted).unwrap();
    json["evaluation"]["findings"][0]["resource"] = serde_json::json!(99);
    let err = load_plan_text(json.to_string(), "edited").unwrap_err();
    assert!(err.to_string().contains("does not have"), "{err}");
    let mut json: serde_json::Value = serde_json::from_str(&redacted).unwrap();
    json["graph"]["edges"][1] = serde_json::json!(100_000);
    assert!(load_plan_text(json.to_string(), "edited").is_err());
    let mut json: serde_json::Value = serde_json::from_str(&redacted).unwrap();
    json["planlens_redacted"] = serde_json::json!(99);
    let err = load_plan_text(json.to_string(), "edited").unwrap_err();
    assert!(err.to_string().contains("newer Planlens"), "{err}");
}

#[test]
fn a_full_link_keeps_an_unset_sensitive_value_unchanged_drift() {
    // Found by fuzzing (tests/fuzz_regressions/structured/): a drift entry whose only difference
    // is a sensitive attribute going from `[]` to absent is no drift (both are unset), but the
    // link replaced the `[]` with a placeholder, and the resource reopened as drifted.
    let plan = r#"{"format_version":"1.2","terraform_version":"1.9.5","resource_changes":[],
        "resource_drift":[{"address":"aws_instance.a","mode":"managed","type":"aws_instance",
        "name":"a","provider_name":"registry.terraform.io/hashicorp/aws","change":{
        "actions":["update"],"before":{"password":[],"note":""},
        "before_sensitive":{"password":true,"note":true},"after":{},"after_sensitive":{}}}]}"#;
    let original = open(plan.to_string(), "drift.json");
    let (_, reopened) = follow(
        &full_link(
            BASE,
            &original.doc,
            &LinkView::default(),
            &planlens::load::Direct,
        ),
        "drift.json",
    );
    assert_eq!(rows(&original.doc), rows(&reopened.doc));
    assert_eq!(Summary::of(&original.doc), Summary::of(&reopened.doc));
}

#[test]
fn a_redacted_link_whose_modules_loop_is_refused() {
    // Found by fuzzing (tests/fuzz_regressions/redacted/): a module written as its own parent made
    // every walk up the module tree loop until memory ran out.
    let original = open(
        String::from_utf8(common::own_fixture("nested_modules.json")).unwrap(),
        "nested_modules.json",
    );
    let redacted = planlens::share::redacted::write(
        &original.doc,
        &original.analysis,
        &RuleSet::builtin(),
        &BTreeMap::new(),
    );
    let json: serde_json::Value = serde_json::from_str(&redacted).unwrap();
    let modules = json["graph"]["modules"].as_array().unwrap().len();
    assert!(modules > 2, "{modules} modules");
    for (module, parent) in [(1, 1), (1, modules - 1)] {
        let mut edited = json.clone();
        edited["graph"]["modules"][module][1] = serde_json::json!(parent);
        let err = load_plan_text(edited.to_string(), "edited").unwrap_err();
        assert!(
            err.to_string().contains("modules are inconsistent"),
            "{err}"
        );
    }
}

#[test]
fn links_carry_rules_and_labels() {
    let original = open(
        String::from_utf8(common::own_fixture("share_secrets.json")).unwrap(),
        "share_secrets.json",
    );
    let rules = "[[rule]]\nid = \"x\"\nseverity = \"warn\"\nmessage = \"{address}\"\n";
    let view = LinkView {
        rules: Some(encode(rules)),
        environment: Some("prod".to_string()),
        search: Some("db".to_string()),
        actions: vec!["update".to_string()],
        ..LinkView::default()
    };
    let link = full_link(BASE, &original.doc, &view, &planlens::load::Direct);
    let (fragment, shared) = follow(&link, "share_secrets.json");
    assert_eq!(
        decode(fragment.view.rules.as_deref().unwrap()).unwrap(),
        rules
    );
    assert_eq!(fragment.view.environment.as_deref(), Some("prod"));
    let filter = planlens::list::ListFilter::from_view(&fragment.view, &shared.doc);
    assert_eq!(filter.search, "db");
    let shown: Vec<String> = filter
        .entries(&shared.doc)
        .iter()
        .filter_map(|e| match e {
            planlens::list::ListEntry::Resource(r) => Some(
                shared
                    .doc
                    .change(&shared.doc.rows[*r as usize])
                    .address
                    .to_string(),
            ),
            _ => None,
        })
        .collect();
    assert_eq!(shown, ["aws_db_instance.main"]);
}
