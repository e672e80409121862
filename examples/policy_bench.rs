//! Native timings of Rego policies beside the TOML pack (not a test): `cargo run --release
//! --example policy_bench [PLAN.json]` (default `bench-data/plan-10000.json`; make it with
//! `python3 ../shared/tools/gen_plan.py --resources 10000 --seed 1 > bench-data/plan-10000.json`).
//! The policies are the BRIEF's five guardrails in Rego (tests/fixtures/policies: conftest v1
//! with a library, conftest v0, Spacelift v1). Each run: building the input text (outside the
//! engine), then inside the engine compiling the policies, reading the input into its values and
//! evaluating; best of 5, the engine's phases in CPU time where Linux gives it. Peak memory is the
//! process's high-water mark (VmHWM) before and after.

use std::collections::BTreeMap;
use std::time::Instant;

use planlens::analysis::Analysis;
use planlens::policy::{self, Context, Options, PolicyFile};
use planlens::rules::RuleSet;

fn policies(dir: &str) -> Vec<PolicyFile> {
    let mut paths: Vec<_> = std::fs::read_dir(format!("tests/fixtures/policies/{dir}"))
        .expect("run from the repository root")
        .map(|e| e.expect("an entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "rego")
                && !p.to_string_lossy().ends_with("_test.rego")
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            PolicyFile::new(
                p.to_string_lossy(),
                std::fs::read_to_string(&p).expect("readable"),
            )
        })
        .collect()
}

/// The process's peak resident memory in MB (Linux), if known.
fn peak_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// This thread's CPU time (Linux: `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`): on a machine shared
/// with other jobs, wall-clock figures mostly measure the others. The engine's time limit reads
/// the same clock every few dozen steps, so it must be cheap (reading
/// /proc/thread-self/schedstat, as this did before, cost about a third of the evaluation).
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn cpu_now() -> Option<std::time::Duration> {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    unsafe extern "C" {
        fn clock_gettime(clock: i32, now: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec for the call's duration (std links libc).
    let ok = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut now) } == 0;
    ok.then(|| {
        std::time::Duration::new(
            u64::try_from(now.tv_sec).unwrap_or(0),
            u32::try_from(now.tv_nsec).unwrap_or(0),
        )
    })
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
fn cpu_now() -> Option<std::time::Duration> {
    None
}

fn main() {
    // The engine's timings (and its time limit) read this thread's CPU time.
    let cpu = cpu_now().is_some();
    if cpu {
        policy::engine::use_clock(cpu_now);
    }
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "bench-data/plan-10000.json".to_string());
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!(
            "{path} is missing: python3 ../shared/tools/gen_plan.py --resources 10000 --seed 1 > {path}"
        );
        return;
    };
    let size_mb = bytes.len() as f64 / 1e6;
    let t = Instant::now();
    let doc = planlens::load_plan(bytes, &path).expect("a plan");
    println!(
        "{path}: {} rows, {size_mb:.1} MB, loaded in {:.0} ms",
        doc.rows.len(),
        t.elapsed().as_secs_f64() * 1e3
    );
    let labels = BTreeMap::from([("environment".to_string(), "staging".to_string())]);
    let analysis = Analysis::of(&doc);
    let rules = RuleSet::builtin();
    let mut best = f64::MAX;
    let mut findings = 0;
    for _ in 0..5 {
        let t = Instant::now();
        let ev = analysis.evaluate(&doc, &rules, &labels);
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        findings = ev.findings.len();
    }
    println!("  TOML built-in pack: {best:.1} ms, {findings} findings");
    let before = peak_mb();
    // `POLICY_BENCH_SETS=conftest_v1` runs only those sets (to profile one).
    let only = std::env::var("POLICY_BENCH_SETS").unwrap_or_default();
    for set in ["conftest_v1", "conftest_v0", "spacelift_v1"] {
        if !only.is_empty() && !only.split(',').any(|s| s == set) {
            continue;
        }
        let files = policies(set);
        let context = Context {
            labels: &labels,
            name: &doc.name,
        };
        let (mut build, mut compile, mut input, mut eval, mut total, mut cut) =
            (f64::MAX, f64::MAX, f64::MAX, f64::MAX, f64::MAX, f64::MAX);
        let mut found = 0;
        let mut bytes = Vec::new();
        for _ in 0..5 {
            let t = Instant::now();
            let prepared = policy::prepare(&files, doc.text(), &context, &Options::default());
            build = build.min(t.elapsed().as_secs_f64() * 1e3);
            let outcome = policy::engine::run(&prepared.request, &prepared.input_refs())
                .unwrap_or_else(|e| panic!("{set}: {e:?}"));
            found = policy::findings(&outcome, &doc).len();
            bytes.clone_from(&outcome.input_bytes);
            total = total.min(t.elapsed().as_secs_f64() * 1e3);
            let timings = outcome.timings.expect("a native clock");
            compile = compile.min(timings.compile_ms);
            input = input.min(timings.input_ms);
            cut = cut.min(timings.cut_ms);
            eval = eval.min(timings.eval_ms);
        }
        println!(
            "  Rego {set:<13} input text {build:.1} ms · compile {compile:.1} ms · input into \
             the engine {input:.0} ms (cutting it {cut:.0}) · evaluation {eval:.0} ms · total {total:.0} ms (best of 5), \
             {found} findings; the engine read {} of the input's text",
            bytes
                .iter()
                .filter(|b| **b > 0)
                .map(|b| format!("{:.1} MB", *b as f64 / 1e6))
                .collect::<Vec<_>>()
                .join(" + ")
        );
    }
    println!(
        "  (input into the engine, evaluation: {} time)",
        if cpu { "CPU" } else { "wall-clock" }
    );
    if let (Some(a), Some(b)) = (before, peak_mb()) {
        println!(
            "  peak memory: {a:.0} MB before the policies, {b:.0} MB after ({:.1}× the file for \
             the engine's input and evaluation)",
            (b - a) / size_mb
        );
    }
}
