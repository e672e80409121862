//! The glance a share link carries (`g=`, painted before the app has opened the plan) says what
//! the app says once it has: for every real file and our own fixtures, full and redacted links'
//! glances equal the glance of the document the link opens to, under the link's rules and label.

use crate::common;

use std::collections::BTreeMap;

use planlens::analysis::Analysis;
use planlens::checks::check_rows;
use planlens::load::fragment::{Fragment, LinkView};
use planlens::load::link::{decode, encode};
use planlens::model::Document;
use planlens::rules::RuleSet;
use planlens::session::glance::{Glance, Line, MAX_ROWS};
use planlens::share::{full_link, redacted_link};
use planlens::{load_plan, load_plan_text};

const BASE: &str = "https://example.github.io/planlens/";

/// The link's fragment, and the document its plan opens to (as the browser opens it).
fn follow(link: &str) -> (Fragment, Document) {
    let fragment = Fragment::parse(&link[link.find('#').expect("a fragment")..]);
    let name = fragment.name.clone().unwrap_or_default();
    let text = decode(fragment.plan.as_deref().expect("a plan")).unwrap();
    let doc = load_plan_text(text, &name).unwrap_or_else(|e| panic!("{name}: {e}"));
    (fragment, doc)
}

/// What the app shows once it has opened `doc` from a link with `view`.
fn shown(doc: &Document, view: &LinkView) -> Glance {
    let analysis = Analysis::of(doc);
    let labels: BTreeMap<String, String> = view
        .environment
        .iter()
        .map(|e| ("environment".to_string(), e.clone()))
        .collect();
    let rules = match &view.rules {
        Some(payload) => RuleSet::parse(&decode(payload).unwrap()).unwrap(),
        None => RuleSet::builtin(),
    };
    let evaluation = analysis.evaluate(doc, &rules, &labels);
    Glance::of(doc, &analysis, &check_rows(doc), &evaluation, view)
}

fn carried(fragment: &Fragment) -> Glance {
    Glance::read(fragment.glance.as_deref().expect("a glance in the link")).unwrap()
}

#[test]
fn every_link_carries_the_glance_of_what_it_opens_to() {
    let inputs = common::inputs();
    assert!(inputs.len() > 20);
    for (name, bytes) in inputs {
        let doc = load_plan(bytes, &name).unwrap_or_else(|e| panic!("{name}: {e}"));
        let analysis = Analysis::of(&doc);
        let view = LinkView::default();

        let (fragment, opened) = follow(&full_link(BASE, &doc, &view, &planlens::load::Direct));
        assert_eq!(
            carried(&fragment),
            shown(&opened, &fragment.view),
            "{name}: full link"
        );

        let redacted = redacted_link(
            BASE,
            &doc,
            &analysis,
            &RuleSet::builtin(),
            &BTreeMap::new(),
            &view,
            None,
        );
        let fragment = Fragment::parse(&redacted[redacted.find('#').unwrap()..]);
        let text = decode(fragment.plan.as_deref().unwrap()).unwrap();
        let opened = load_plan_text(text, &name).unwrap();
        let glance = carried(&fragment);
        assert!(glance.fixed && glance.strip.redacted, "{name}");
        assert_eq!(
            glance,
            shown(&opened, &fragment.view),
            "{name}: redacted link"
        );
    }
}

#[test]
fn the_glance_follows_the_links_rules_label_and_filter() {
    let bytes = common::fixture("tests/fixtures/blast_radius.json").bytes();
    let doc = load_plan(bytes, "plan.json").unwrap();
    let rules = "[[rule]]\nid = \"no-deletes-in-prod\"\nseverity = \"deny\"\nmessage = \"deleted\"\n\
                 actions = [\"delete\"]\n[[rule.variable]]\nname = \"environment\"\nin = [\"prod\"]\n";
    let view = LinkView {
        rules: Some(encode(rules)),
        environment: Some("prod".to_string()),
        actions: vec!["delete".to_string()],
        ..LinkView::default()
    };
    let (fragment, opened) = follow(&full_link(BASE, &doc, &view, &planlens::load::Direct));
    let glance = carried(&fragment);
    assert_eq!(glance, shown(&opened, &fragment.view));
    assert_eq!(glance.environment.as_deref(), Some("prod"));
    assert!(!glance.fixed);
    let rows: Vec<_> = glance
        .lines
        .iter()
        .filter_map(|l| match l {
            Line::Row(r) => Some(r),
            Line::Module { .. } => None,
        })
        .collect();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r.action == "delete"), "{rows:?}");
    assert!(
        rows.iter().all(|r| r.finding.as_deref() == Some("deny")),
        "{rows:?}"
    );
    assert_eq!(
        glance.verdict.as_ref().map(|v| v.key.as_str()),
        Some("needs-approval")
    );
}

#[test]
fn a_large_plans_glance_stops_at_its_row_limit() {
    let resources: Vec<String> = (0..MAX_ROWS + 40)
        .map(|i| {
            format!(
                r#"{{"address":"null_resource.n[{i}]","mode":"managed","type":"null_resource","name":"n","index":{i},"provider_name":"registry.terraform.io/hashicorp/null","change":{{"actions":["create"],"before":null,"after":{{}},"after_unknown":{{"id":true}}}}}}"#
            )
        })
        .collect();
    let text = format!(
        r#"{{"format_version":"1.2","terraform_version":"1.9.0","resource_changes":[{}]}}"#,
        resources.join(",")
    );
    let doc = load_plan_text(text, "big.json").unwrap();
    let (fragment, _) = follow(&full_link(
        BASE,
        &doc,
        &LinkView::default(),
        &planlens::load::Direct,
    ));
    let glance = carried(&fragment);
    let rows = glance
        .lines
        .iter()
        .filter(|l| matches!(l, Line::Row(_)))
        .count();
    assert_eq!((rows, glance.more), (MAX_ROWS, 40));
}

#[test]
fn a_damaged_glance_is_refused_with_a_message() {
    let err = Glance::read("AXicq").unwrap_err();
    assert!(err.contains("link"), "{err}");
    let err = Glance::read(&encode("{\"name\":1}")).unwrap_err();
    assert!(err.contains("glance"), "{err}");
}
