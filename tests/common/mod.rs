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

/// One file of the fixture manifest (tests/fixtures/manifest.json): the one list of fixtures that
/// the Rust tests and the browser tests (tests/e2e/app.spec.mjs) read.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Fixture {
    /// Relative to the repository root; the real corpus's are under `../shared/fixtures/real/`.
    pub path: String,
    /// What the loader makes of it (`plan`, `plan_log`, `text_plan`, `state`, `driftctl`, `kube`,
    /// `not_a_plan`) or what else it is (`policy`, `rules`, `doc`).
    pub kind: String,
    /// What it is for, in one line.
    pub exercises: String,
    /// The sentence the summary strip shows for it (`Summary::headline`), where the tests know it.
    pub summary: Option<String>,
}

/// Where the real corpus's entries of the manifest are, relative to the repository root.
pub const REAL_PREFIX: &str = "../shared/fixtures/real/";

impl Fixture {
    /// Its path from tests/fixtures (`states/modules.tfstate`), or its file name for the samples
    /// and the real corpus: the name the tests have always given it.
    pub fn name(&self) -> &str {
        (self.path.strip_prefix("tests/fixtures/"))
            .or_else(|| self.path.strip_prefix("samples/"))
            .or_else(|| self.path.strip_prefix(REAL_PREFIX))
            .unwrap_or(&self.path)
    }

    /// Whether it is one of the real corpus's, beside the repository in `../shared`.
    pub fn is_real(&self) -> bool {
        self.path.starts_with(REAL_PREFIX)
    }

    /// Where it is on disk.
    pub fn file(&self) -> PathBuf {
        repo_dir().join(&self.path)
    }

    /// Its bytes.
    pub fn bytes(&self) -> Vec<u8> {
        let path = self.file();
        std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
    }
}

/// Every entry of the manifest, in its order, whether or not `../shared` is there.
pub fn manifest() -> Vec<Fixture> {
    #[derive(serde::Deserialize)]
    struct Manifest {
        fixtures: Vec<Fixture>,
    }
    let path = repo_dir().join("tests/fixtures/manifest.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let manifest: Manifest =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    manifest.fixtures
}

/// The manifest's entry for `path` (relative to the repository root).
pub fn fixture(path: &str) -> Fixture {
    (manifest().into_iter())
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("{path} is not in tests/fixtures/manifest.json"))
}

/// Every fixture there is to test on: ours and the samples, and the real corpus when `../shared`
/// is beside the repository (otherwise SKIPPED, or a failure with `CI=true`: [`shared`]).
pub fn fixtures() -> Vec<Fixture> {
    let real = real_fixtures_dir().is_some();
    manifest()
        .into_iter()
        .filter(|f| real || !f.is_real())
        .collect()
}

/// The kinds of file the loader opens as a document of its own (a plan, a plan log, a text plan, a
/// state, a driftctl report): what the tests mean by "every input".
pub const INPUT_KINDS: [&str; 5] = ["plan", "plan_log", "text_plan", "state", "driftctl"];

/// Every fixture there is to test on (see [`fixtures`]) of one of `kinds`, in the manifest's
/// order.
pub fn fixtures_of(kinds: &[&str]) -> Vec<Fixture> {
    (fixtures().into_iter())
        .filter(|f| kinds.contains(&f.kind.as_str()))
        .collect()
}

/// Every input there is to test on, as (name, bytes), in the manifest's order: each fixture of the
/// [`INPUT_KINDS`] (the real corpus's when `../shared` is beside the repository), and each
/// Kubernetes object file that holds one (a plan or state Secret, a plan ConfigMap: the loader
/// opens it as that document; tests/core/kube.rs says which do).
pub fn inputs() -> Vec<(String, Vec<u8>)> {
    (input_fixtures().iter())
        .map(|f| (f.name().to_string(), f.bytes()))
        .collect()
}

/// The fixtures of [`inputs`].
pub fn input_fixtures() -> Vec<Fixture> {
    let kinds = [&INPUT_KINDS[..], &["kube"]].concat();
    let inputs: Vec<Fixture> = (fixtures_of(&kinds).into_iter())
        .filter(|f| f.kind != "kube" || planlens::load_plan(f.bytes(), f.name()).is_ok())
        .collect();
    let held = inputs.iter().filter(|f| f.kind == "kube").count();
    assert!(
        held >= 3,
        "the Kubernetes files holding a plan or state: {held}"
    );
    inputs
}

/// The real corpus's `.json` files (the manifest's entries under `../shared/fixtures/real`), sorted
/// by name; empty (with the SKIPPED line) when `../shared` is not beside the repository.
pub fn real_fixture_paths() -> Vec<PathBuf> {
    if real_fixtures_dir().is_none() {
        return Vec::new();
    }
    let mut paths: Vec<PathBuf> = (manifest().iter())
        .filter(|f| f.is_real())
        .map(Fixture::file)
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

/// The built-in pack's evaluation of a document, with no labels: what `planlens check` gives it.
pub fn builtin_evaluation(doc: &planlens::Document) -> planlens::rules::Evaluation {
    planlens::analysis::Analysis::of(doc).evaluate(
        doc,
        &planlens::rules::RuleSet::builtin(),
        &Default::default(),
    )
}
