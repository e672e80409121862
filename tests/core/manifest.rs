//! The fixture manifest (tests/fixtures/manifest.json) is the one list of fixtures: it names every
//! file on disk, and every summary it gives is what the summary strip shows for that file.

use std::path::Path;

use crate::common;

use planlens::{Summary, load_plan};

/// The kinds the manifest's `kinds` lists; each entry has one of them.
const KINDS: [&str; 11] = [
    "plan",
    "plan_log",
    "text_plan",
    "state",
    "driftctl",
    "kube",
    "not_a_plan",
    "set",
    "policy",
    "rules",
    "doc",
];

/// Every file under `dir`, as paths relative to the repository root, with `/` between parts.
fn files_under(root: &Path, dir: &str, out: &mut Vec<String>) {
    let mut stack = vec![root.join(dir)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap();
                let parts: Vec<String> = (rel.components())
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push(parts.join("/"));
            }
        }
    }
}

#[test]
fn the_manifest_lists_exactly_the_fixture_files() {
    let root = common::repo_dir();
    let mut on_disk = Vec::new();
    files_under(&root, "tests/fixtures", &mut on_disk);
    files_under(&root, "samples", &mut on_disk);
    on_disk.retain(|p| p != "tests/fixtures/manifest.json");
    if let Some(dir) = common::real_fixtures_dir() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".json") {
                on_disk.push(format!("{}{name}", common::REAL_PREFIX));
            }
        }
    }
    on_disk.sort();
    let mut listed: Vec<String> = (common::fixtures().into_iter()).map(|f| f.path).collect();
    listed.sort();
    let missing: Vec<&String> = on_disk.iter().filter(|p| !listed.contains(p)).collect();
    let gone: Vec<&String> = listed.iter().filter(|p| !on_disk.contains(p)).collect();
    assert!(
        missing.is_empty() && gone.is_empty(),
        "tests/fixtures/manifest.json must list every fixture: not listed {missing:?}, listed but \
         not on disk {gone:?}"
    );
    let mut dedup = listed.clone();
    dedup.dedup();
    assert_eq!(dedup, listed, "a file is listed twice");
}

#[test]
fn every_entry_has_a_known_kind_and_says_what_it_exercises() {
    for f in common::manifest() {
        assert!(
            KINDS.contains(&f.kind.as_str()),
            "{}: kind {}",
            f.path,
            f.kind
        );
        assert!(
            !f.exercises.trim().is_empty(),
            "{}: exercises nothing",
            f.path
        );
    }
}

#[test]
fn every_fixture_opens_with_the_summary_the_manifest_gives() {
    let mut checked = 0;
    for f in common::fixtures() {
        let Some(summary) = &f.summary else {
            continue;
        };
        let name = f.name();
        let doc = load_plan(f.bytes(), name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(Summary::of(&doc).headline(&doc), *summary, "{}", f.path);
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} summaries checked");
}
