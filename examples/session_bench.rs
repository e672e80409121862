//! How long the worker's part of opening a plan takes, natively, step by step: load (decode,
//! parse, mask), the analysis, the dependency graph, the values-free index and its JSON, the
//! first evaluation. `cargo run --release --example session_bench -- PLAN.json`
use std::collections::BTreeMap;
use std::time::Instant;

use planlens::load::Direct;
use planlens::session::{OpenOptions, Session};

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: session_bench PLAN.json");
    let bytes = std::fs::read(&path).expect("read the plan");
    let options = OpenOptions {
        name: path.clone(),
        mask_builtin: true,
        mask_user: Vec::new(),
        rules: None,
        labels: BTreeMap::new(),
    };
    let t = Instant::now();
    let session = Session::open_bytes(bytes, &options, &Direct).expect("open");
    let opened = t.elapsed();
    let d = session.document();
    println!(
        "masking added marks (a second, marked text is kept): {}; text {} bytes, source {} bytes",
        d.original.is_some(),
        d.text().len(),
        d.source_text().len()
    );
    let t = Instant::now();
    let plan = planlens::session::index::plan_text(session.document());
    let plan_ms = t.elapsed();
    let t = Instant::now();
    let index = session.index(None, &BTreeMap::new());
    let index_ms = t.elapsed();
    let t = Instant::now();
    let json = serde_json::to_string(&index).unwrap();
    let json_ms = t.elapsed();
    let t = Instant::now();
    let doc = index.document().unwrap();
    let read_ms = t.elapsed();
    println!(
        "open (decode, parse, mask, analysis) {opened:?}; index plan text {plan_ms:?} ({} bytes); whole index (graph, drift, outputs, evaluation) {index_ms:?}; JSON {json_ms:?} ({} bytes); read back {read_ms:?} ({} rows)",
        plan.len(),
        json.len(),
        doc.rows.len()
    );
}
