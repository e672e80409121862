//! Human-readable plans: every text/JSON pair of Terraform's equivalence tests gives the same
//! summary and the same action per address; our own texts cover OpenTofu wording, drift, CI logs
//! with colour and timestamps, PR comments, a cut tf-controller message, values as the text shows
//! them, the rules' honesty about values a text does not show.

use crate::common;
use crate::run::{planlens, planlens_line};

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::builtin_evaluation as evaluate;
use planlens::load::Direct;
use planlens::load::text_plan;
use planlens::model::source::Source;
use planlens::model::summary::Summary;
use planlens::model::{Action, Document};

mod judging;
mod positions;
mod reading;
mod tool;

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
