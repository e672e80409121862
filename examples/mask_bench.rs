//! Native cost of the secret-name masking pass: `cargo run --release --example mask_bench --
//! PLAN.json…`. Prints, per file, the best of five loads with the built-in patterns and the best
//! of five masking passes alone (`load::mask::apply` on a document loaded without patterns), and
//! what it masked. Prints figures; never fails.

use std::time::Instant;

use planlens::load::{Direct, load_plan_with, mask};
use planlens::model::mask::Mask;

fn main() {
    let builtin = Mask::default();
    let nothing = Mask::new(false, &[]);
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap_or_default();
        let (mut load_ms, mut pass_ms) = (f64::MAX, f64::MAX);
        let mut last = None;
        for _ in 0..5 {
            let t = Instant::now();
            let doc = load_plan_with(bytes.clone(), &path, &builtin, &Direct);
            load_ms = load_ms.min(t.elapsed().as_secs_f64() * 1e3);
            last = Some(doc);
            let Ok(plain) = load_plan_with(bytes.clone(), &path, &nothing, &Direct) else {
                continue;
            };
            let t = Instant::now();
            let masked = mask::apply(plain, &builtin);
            pass_ms = pass_ms.min(t.elapsed().as_secs_f64() * 1e3);
            drop(masked);
        }
        if let Some(Ok(doc)) = &last {
            let t = Instant::now();
            let mut hits = 0;
            for c in doc
                .plan()
                .resource_changes
                .iter()
                .chain(&doc.plan().resource_drift)
            {
                for v in [c.change.before, c.change.after].into_iter().flatten() {
                    hits += usize::from(builtin.may_match_in(v.get()));
                }
            }
            println!(
                "  prefilter alone: {:.1} ms, {hits} values to walk",
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        match last {
            Some(Ok(doc)) => println!(
                "{path}: {} bytes; load with the built-in names {load_ms:.1} ms, of which the \
                 masking pass {pass_ms:.1} ms; {} values masked by name; plan has marks: {}",
                bytes.len(),
                doc.masking.masked_by_name,
                doc.masking.plan_has_marks,
            ),
            Some(Err(e)) => eprintln!("{path}: {e}"),
            None => {}
        }
    }
}
