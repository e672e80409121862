//! Every real plan in ../shared/fixtures/real loads, and its summary sentence is Terraform's.
//!
//! The expected sentences (in the fixture manifest) were worked out by hand from each file's resource_changes (actions,
//! importing, previous_address, mode) and output_changes, following Terraform's renderer.

use crate::common;

use planlens::diff::{DiffNode, Side, diff_change};
use planlens::{Summary, load_plan};
use serde_json::Value;

/// The real plans and their summary sentences, worked out by hand (the fixture manifest,
/// tests/fixtures/manifest.json, holds them: the browser tests check the same sentences).
fn expected() -> Vec<(String, String)> {
    (common::manifest().into_iter())
        .filter(|f| f.is_real() && f.kind == "plan")
        .map(|f| {
            let sentence = (f.summary.clone())
                .unwrap_or_else(|| panic!("{}: the manifest gives no summary", f.path));
            (f.name().to_string(), sentence)
        })
        .collect()
}

/// The real driftctl reports (tests/core/drift.rs checks their figures).
fn driftctl() -> Vec<String> {
    (common::manifest().into_iter())
        .filter(|f| f.is_real() && f.kind == "driftctl")
        .map(|f| f.name().to_string())
        .collect()
}

#[test]
fn every_real_file_is_covered_by_an_expectation() {
    let Some(dir) = common::real_fixtures_dir() else {
        return;
    };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    let mut covered: Vec<String> = (expected().into_iter())
        .map(|(n, _)| n)
        .chain(driftctl())
        .collect();
    covered.sort();
    assert_eq!(
        names, covered,
        "a real fixture was added or removed; give it an expectation"
    );
}

#[test]
fn every_real_plan_loads_with_terraforms_summary_sentence() {
    let Some(dir) = common::real_fixtures_dir() else {
        return;
    };
    for (name, sentence) in &expected() {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let doc = load_plan(bytes, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            doc.warnings.is_empty(),
            "{name}: unexpected warnings {:?}",
            doc.warnings
        );
        assert_eq!(Summary::of(&doc).sentence(), *sentence, "{name}");
    }
}

#[test]
fn counts_beyond_the_sentence_match_the_plans() {
    let Some(dir) = common::real_fixtures_dir() else {
        return;
    };
    let summary = |name: &str| {
        let doc = load_plan(std::fs::read(dir.join(name)).unwrap(), name).unwrap();
        Summary::of(&doc)
    };
    let s = summary("checkov__data_reads_action_reasons.json");
    assert_eq!(s.reads, 4);
    let s = summary("terraform-json__moved_block.json");
    assert_eq!((s.moves, s.shown), (1, 1));
    let s = summary("terraform-compliance__tf1_0_drift_and_deletes.json");
    assert_eq!(s.drifted, 15);
    assert_eq!(s.resources, 15);
    let s = summary("terraform__showjson_requires_replace.json");
    assert_eq!(s.replace, 1);
    let s = summary("terraform__import_generated_config_tf1_5.json");
    assert_eq!(s.import, 1);
    let s = summary("terraform__equiv_drift_refresh_only.json");
    assert_eq!((s.drifted, s.resources), (1, 0));
}

/// Walks a diff tree beside the plan's sensitivity mirror and checks that every side marked
/// sensitive is shown as `(sensitive value)` and nothing else.
fn assert_masked(
    node: &DiffNode,
    before_mask: Option<&Value>,
    after_mask: Option<&Value>,
    at: &str,
) {
    let is_true = |m: Option<&Value>| matches!(m, Some(Value::Bool(true)));
    if is_true(before_mask) {
        assert!(
            matches!(node.before, Side::Sensitive | Side::Absent),
            "{at}: before leaked as {:?}",
            node.before
        );
    }
    if is_true(after_mask) {
        assert!(
            matches!(node.after, Side::Sensitive | Side::Absent | Side::Unknown),
            "{at}: after leaked as {:?}",
            node.after
        );
    }
    for child in &node.children {
        // An element has its own index on each side (lists are aligned, not compared by index).
        let step = |m: Option<&Value>, after_side: bool| -> Option<Value> {
            match (m?, &child.key) {
                (Value::Bool(true), _) => Some(Value::Bool(true)),
                (Value::Object(o), Some(planlens::diff::PathKey::Attr(k))) => o.get(k).cloned(),
                (Value::Array(a), Some(planlens::diff::PathKey::Index { before, after })) => {
                    (if after_side { *after } else { *before }).and_then(|i| a.get(i).cloned())
                }
                _ => None,
            }
        };
        let (b, a) = (step(before_mask, false), step(after_mask, true));
        assert_masked(
            child,
            b.as_ref(),
            a.as_ref(),
            &format!("{at}.{}", child.key_label()),
        );
    }
}

#[test]
fn sensitive_values_never_reach_the_diff_of_any_real_plan() {
    let Some(dir) = common::real_fixtures_dir() else {
        return;
    };
    let mut masked_sides = 0;
    for (name, _) in &expected() {
        let doc = load_plan(std::fs::read(dir.join(name)).unwrap(), name).unwrap();
        let plan = doc.plan();
        let changes = plan
            .resource_changes
            .iter()
            .chain(plan.resource_drift.iter());
        for rc in changes {
            let tree =
                diff_change(&rc.change).unwrap_or_else(|e| panic!("{name} {}: {e}", rc.address));
            let mask = |raw: Option<&serde_json::value::RawValue>| {
                raw.map(|r| serde_json::from_str::<Value>(r.get()).unwrap())
            };
            let (b, a) = (
                mask(rc.change.before_sensitive),
                mask(rc.change.after_sensitive),
            );
            masked_sides += count_sensitive(&tree);
            assert_masked(
                &tree,
                b.as_ref(),
                a.as_ref(),
                &format!("{name} {}", rc.address),
            );
        }
    }
    assert!(
        masked_sides > 0,
        "the corpus has sensitive values; the walk must have met some"
    );
}

fn count_sensitive(node: &DiffNode) -> usize {
    usize::from(node.before == Side::Sensitive)
        + usize::from(node.after == Side::Sensitive)
        + node.children.iter().map(count_sensitive).sum::<usize>()
}
