//! Helpers shared by the native test files.
#![allow(dead_code)]

use std::path::PathBuf;

/// The repository's root (where Trunk.toml is): the root package's folder, or two levels above a
/// crate's under `crates/`.
pub fn repo_dir() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .find(|dir| dir.join("Trunk.toml").is_file())
        .unwrap_or_else(|| panic!("no Trunk.toml above {}", here.display()))
        .to_path_buf()
}

/// `../shared/fixtures/real` beside the repository, when it is there (a user's clone has none).
pub fn real_fixtures_dir() -> Option<PathBuf> {
    shared("fixtures/real").filter(|dir| dir.is_dir())
}

/// `../shared/WHAT` beside the repository, when it is there. A user's clone has no `../shared`:
/// the test says SKIPPED and goes on without it. CI has it beside the clone, so with `CI=true` a
/// missing `../shared` is a failure, never a silent pass.
pub fn shared(what: &str) -> Option<PathBuf> {
    let path = repo_dir().join("../shared").join(what);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var("CI").map_or(true, |ci| ci != "true"),
        "../shared/{what} is not beside the repository, and CI=true needs it (the real corpus \
         and the plan generator are ../shared's)"
    );
    eprintln!(
        "SKIPPED: ../shared/{what} is not beside the repository; the tests that need it skip."
    );
    None
}

/// The real corpus's `.json` files, sorted by name; empty (with the SKIPPED line) when
/// `../shared` is not beside the repository.
pub fn real_fixture_paths() -> Vec<PathBuf> {
    let Some(dir) = real_fixtures_dir() else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
}

/// A fixture of ours, under tests/fixtures.
pub fn own_fixture(name: &str) -> Vec<u8> {
    let path = repo_dir().join("tests/fixtures").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Loads one of our fixtures as a plan, failing the test with the loader's message.
pub fn load_own(name: &str) -> planlens::Document {
    planlens::load_plan(own_fixture(name), name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The real corpus (when present: at least its 37 files) and then these fixtures of ours, as
/// (file name, bytes).
pub fn real_and_own(own: &[&str]) -> Vec<(String, Vec<u8>)> {
    let paths = real_fixture_paths();
    assert!(
        paths.is_empty() || paths.len() >= 37,
        "the real corpus has {} files",
        paths.len()
    );
    let mut out: Vec<(String, Vec<u8>)> = paths
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    out.extend(own.iter().map(|name| (name.to_string(), own_fixture(name))));
    out
}

/// The built-in pack's evaluation of a document, with no labels: what `planlens check` gives it.
pub fn builtin_evaluation(doc: &planlens::Document) -> planlens::rules::Evaluation {
    planlens::analysis::Analysis::of(doc).evaluate(
        doc,
        &planlens::rules::RuleSet::builtin(),
        &Default::default(),
    )
}
