//! Human-readable plans: every text/JSON pair of Terraform's equivalence tests gives the same
//! summary and the same action per address; our own texts cover OpenTofu wording, drift, CI logs
//! with colour and timestamps, PR comments, a cut tf-controller message, values as the text shows
//! them, the rules' honesty about values a text does not show.

use std::collections::BTreeMap;
use std::path::PathBuf;

use planlens::load::text_plan;
use planlens::model::source::Source;
use planlens::model::summary::Summary;
use planlens::model::{Action, Document};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/text_plans")
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
    assert!(pairs.len() >= 12, "only {} pairs", pairs.len());
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
        // Moves and imports, reasons: the same too.
        for (t, j) in text
            .plan()
            .resource_changes
            .iter()
            .zip(json.plan().resource_changes.iter().filter(|_| true))
        {
            let j = json
                .plan()
                .resource_changes
                .iter()
                .find(|c| c.address == t.address)
                .unwrap_or(j);
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
