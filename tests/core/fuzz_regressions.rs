//! Replays what fuzzing found, on stable, through the fuzz targets' own bodies
//! (`fuzz/src/targets.rs`, included here): every file under `tests/fuzz_regressions/<target>/`
//! — minimised crash and timeout inputs (`cargo fuzz tmin`), and a few seeds so the replay is
//! never empty — is run by its target, within the time limit the fuzzer enforces.

#[path = "../../fuzz/src/targets.rs"]
#[allow(dead_code)]
mod targets;

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The fuzzer's `-timeout`: an input slower than this is a finding. Debug builds are slower than
/// the fuzzer's optimised ones, so the replay allows more.
const LIMIT: Duration = Duration::from_secs(if cfg!(debug_assertions) { 20 } else { 1 });

fn regressions() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions")
}

/// Every regression file, as (target, path), sorted.
fn files() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(regressions()).expect("tests/fuzz_regressions") {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let target = dir.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            targets::TARGETS.contains(&target.as_str()),
            "tests/fuzz_regressions/{target}: no such fuzz target"
        );
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            if f.is_file() {
                out.push((target.clone(), f));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_regression_file_replays_through_its_fuzz_target() {
    let files = files();
    let mut failed = Vec::new();
    for (target, path) in &files {
        let data = std::fs::read(path).unwrap();
        let started = Instant::now();
        let result = std::panic::catch_unwind(|| targets::run(target, &data));
        let took = started.elapsed();
        let name = path.strip_prefix(regressions()).unwrap().display();
        if result.is_err() {
            failed.push(format!("{name}: panicked"));
        } else if took > LIMIT {
            failed.push(format!("{name}: took {took:?}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    // Seeds of every target, so a replay that silently finds nothing cannot pass.
    for target in targets::TARGETS {
        assert!(
            files.iter().any(|(t, _)| t == target),
            "no regression file for {target}"
        );
    }
}

#[test]
fn the_replay_fails_on_an_input_that_breaks_an_oracle() {
    // A structured case whose generated counts disagree with its plan: the target must panic.
    let case = targets::Case {
        plan: r#"{"format_version":"1.2","resource_changes":[{"address":"a_b.c","mode":"managed",
            "type":"a_b","name":"c","provider_name":"p","change":{"actions":["create"],
            "before":null,"after":{}}}]}"#
            .to_string(),
        changes: Vec::new(),
        drift_entries: 0,
        output_actions: Vec::new(),
        secrets: Vec::new(),
    };
    let data = serde_json::to_vec(&case).unwrap();
    assert!(std::panic::catch_unwind(|| targets::run("structured", &data)).is_err());
}

/// Every file under `dir`, recursively.
fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Writes the fuzzers' seed corpora into `$PLANLENS_FUZZ_SEEDS/<target>/` from the fixtures
/// (tests/fixtures, ../shared/fixtures/real when present, samples/): the files as they are for
/// the loader's targets, wrapped for `wrapped`, as link payloads for `link`, as redacted links'
/// JSON for `redacted`, rule files for `rules` and policies for `rego`. Run by `scripts/fuzz.sh`;
/// ignored otherwise.
#[test]
#[ignore = "writes the fuzz seeds; run by scripts/fuzz.sh"]
fn write_fuzz_seeds() {
    use planlens::analysis::Analysis;
    use planlens::rules::RuleSet;
    let out = PathBuf::from(std::env::var("PLANLENS_FUZZ_SEEDS").expect("PLANLENS_FUZZ_SEEDS"));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    for dir in ["tests/fixtures", "../shared/fixtures/real", "samples"] {
        walk(&root.join(dir), &mut paths);
    }
    paths.retain(|p| std::fs::metadata(p).is_ok_and(|m| m.len() < 1024 * 1024));
    paths.sort();
    let mut written = 0;
    let mut write = |target: &str, name: String, bytes: &[u8]| {
        let dir = out.join(target);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(name), bytes).unwrap();
        written += 1;
    };
    let rules = RuleSet::builtin();
    let labels = Default::default();
    for (i, path) in paths.iter().enumerate() {
        let bytes = std::fs::read(path).unwrap();
        let stem = format!("{i:03}-{}", path.file_name().unwrap().to_string_lossy());
        match path.extension().and_then(|e| e.to_str()) {
            Some("rego") => write("rego", stem.clone(), &bytes),
            Some("toml") => write("rules", stem.clone(), &bytes),
            _ => {}
        }
        for target in ["load", "diff", "graph", "markdown"] {
            write(target, stem.clone(), &bytes);
        }
        if bytes.len() < 64 * 1024 {
            for how in 0..targets::WRAPS {
                let mut wrapped = vec![how];
                wrapped.extend_from_slice(&bytes);
                write("wrapped", format!("{stem}.{how}"), &wrapped);
            }
        }
        let Ok(doc) = planlens::load::load_plan(bytes, &stem) else {
            continue;
        };
        write(
            "link",
            stem.clone(),
            planlens::share::full_payload(&doc).as_bytes(),
        );
        let analysis = Analysis::of(&doc);
        let redacted = planlens::share::redacted::write(&doc, &analysis, &rules, &labels);
        write("redacted", stem.clone(), redacted.as_bytes());
    }
    write(
        "rules",
        "builtin.toml".to_string(),
        include_bytes!("../../crates/rules/src/builtin.toml"),
    );
    write("structured", "empty".to_string(), b"");
    assert!(written > 100, "only {written} seeds");
}
