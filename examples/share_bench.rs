//! Native timings of share links: `cargo run --release --example share_bench -- PLAN.json…`.
//! For each plan, the full link (strip sensitive values, compress, encode) and the redacted link
//! (graph, drift, findings, compress, encode), their lengths, and decoding each back (decompress
//! and load). Prints figures; the browser figures come from scripts/bench.mjs.

use std::collections::BTreeMap;
use std::time::Instant;

use planlens::analysis::Analysis;
use planlens::load::link;
use planlens::rules::RuleSet;
use planlens::share::fragment::LinkView;
use planlens::share::{LinkFit, full_link, redacted_link};

const BASE: &str = "https://example.github.io/planlens/";

/// The best of three runs of `f`, in milliseconds, with its last result.
fn best<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut out = None;
    for _ in 0..3 {
        let t = Instant::now();
        out = Some(f());
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    (best, out.expect("ran"))
}

fn fit(length: usize) -> &'static str {
    match LinkFit::of(length) {
        LinkFit::Anywhere => "fits a PR comment",
        LinkFit::TooLongForComment => "too long for a PR comment",
        LinkFit::TooLongForBrowsers => "too long for Chrome/Edge",
    }
}

fn main() {
    let rules = RuleSet::builtin();
    let labels = BTreeMap::new();
    println!("plan | rows | kind | encode ms | link chars | decode + load ms | fits");
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap_or_default();
        let size = bytes.len();
        let doc = match planlens::load_plan(bytes, &path) {
            Ok(doc) => doc,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        let analysis = Analysis::of(&doc);
        let (full_ms, full) =
            best(|| full_link(BASE, &doc, &LinkView::default(), &planlens::load::Direct));
        let (red_ms, red) = best(|| {
            redacted_link(
                BASE,
                &doc,
                &analysis,
                &rules,
                &labels,
                &LinkView::default(),
                None,
            )
        });
        for (kind, ms, url) in [("full", full_ms, &full), ("redacted", red_ms, &red)] {
            let payload = &url[url.find("&p=").expect("a plan") + 3..];
            let (open_ms, rows) = best(|| {
                let text = link::decode(payload).expect("decodes");
                planlens::load_plan_text(text, "link")
                    .expect("loads")
                    .rows
                    .len()
            });
            println!(
                "{path} ({:.1} MB) | {rows} | {kind} | {ms:.0} | {} | {open_ms:.0} | {}",
                size as f64 / 1e6,
                url.len(),
                fit(url.len())
            );
        }
    }
}
