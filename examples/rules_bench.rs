//! Native timings of drift analysis and the built-in rule pack: `cargo run --release --example
//! rules_bench -- PLAN.json…`. Prints figures; the browser figures come from scripts/bench.mjs.

use std::collections::BTreeMap;
use std::time::Instant;

use planlens::drift::Drift;
use planlens::rules::{Input, RuleSet, evaluate};

fn main() {
    let rules = RuleSet::builtin();
    for path in std::env::args().skip(1) {
        let doc = match planlens::load_plan(std::fs::read(&path).unwrap_or_default(), &path) {
            Ok(doc) => doc,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        let t = Instant::now();
        let drift = Drift::of(&doc);
        let drift_ms = t.elapsed().as_secs_f64() * 1e3;
        let mut best = f64::MAX;
        let mut findings = 0;
        for _ in 0..5 {
            let t = Instant::now();
            let input = Input::from_document(&doc, &drift);
            let ev = evaluate(&input, &rules, &BTreeMap::new());
            best = best.min(t.elapsed().as_secs_f64() * 1e3);
            findings = ev.findings.len();
        }
        println!(
            "{path}: {} rows, drift {drift_ms:.1} ms, built-in pack {best:.1} ms (best of 5, input included), {findings} findings",
            doc.rows.len()
        );
    }
}
