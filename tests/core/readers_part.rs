//! The readers' part (`planlens::readers_part`, the browser's `part-readers` module): over every
//! file of ours and of the real corpus, opening it the browser's way — the loader detects, the
//! part's function (text in, text out) converts, the app's readers open its answer — gives the
//! same document as the readers called directly (`load::Direct`, natively): text (so values and sensitive marks), rows, source
//! facts, notes, warnings, the original text, masking, the index the page gets (drift, findings,
//! outputs, checks), a remask; the same message for every file a reader refuses (Kubernetes
//! objects included: the part unpacks them); and the same fleet for Kubernetes files opened
//! together (rows, problems, what files without a workspace open as, every row's link file).

use crate::common;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::Write;
use std::rc::Rc;

use planlens::Document;
use planlens::fleet::{self, FleetReaders, Link};
use planlens::load::{self, Direct, Readers};
use planlens::model::mask::Mask;
use planlens::readers_part::{self, PartReaders};
use planlens::session::{OpenOptions, Request, Response, Session};

/// Files a reader refuses, written here: an old state, a driftctl report of the wrong shape, a
/// text with plan words but no plan, a plan log whose lines are all unknown.
fn refused() -> Vec<(String, Vec<u8>)> {
    [
        (
            "v3.tfstate",
            r#"{"version": 3, "serial": 1, "lineage": "x", "modules": []}"#,
        ),
        (
            "bad_driftctl.json",
            r#"{"summary": {"total_resources": "many"}, "coverage": 3}"#,
        ),
        (
            "bad_shown_state.json",
            r#"{"format_version": "1.0", "values": {"root_module": {"resources": 7}}}"#,
        ),
        (
            "heading.txt",
            "Terraform will perform the following actions:\n",
        ),
    ]
    .into_iter()
    .map(|(name, text)| (name.to_string(), text.as_bytes().to_vec()))
    .collect()
}

/// Every fixture of the manifest, whatever its kind (the real corpus's SKIPPED when absent), and
/// the refused files above, each also gzipped (a CI artifact), so notes of the file's decoding
/// meet the reader's.
fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut all: Vec<(String, Vec<u8>)> = (common::fixtures().iter())
        .map(|f| (f.name().to_string(), f.bytes()))
        .collect();
    all.extend(refused());
    let gzipped: Vec<(String, Vec<u8>)> = (all.iter())
        .filter(|(_, bytes)| bytes.len() < 512 * 1024)
        .map(|(name, bytes)| {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(bytes).unwrap();
            (format!("{name}.gz"), gz.finish().unwrap())
        })
        .collect();
    all.extend(gzipped);
    all
}

/// The part's calls, in the order of [`loaded_part`]'s counts.
const CALLS: [&str; 8] = [
    "text_plan",
    "state",
    "plan_log",
    "driftctl",
    "kube",
    "fleet",
    "fleet_link",
    "unpack",
];

/// Readers with the part loaded as the browser's worker loads it, with the part's own function
/// (what crates/part-readers exports to the part), counting calls per reader.
fn loaded_part() -> (PartReaders, Rc<Cell<[usize; 8]>>) {
    let calls = Rc::new(Cell::new([0; 8]));
    let counted = calls.clone();
    let part = PartReaders::new();
    part.load(Box::new(move |reader: &str, name: &str, text: &str| {
        let mut c = counted.get();
        let i = (CALLS.iter())
            .position(|r| *r == reader)
            .expect("a known reader");
        c[i] += 1;
        counted.set(c);
        Ok(readers_part::answer(reader, name, text))
    }));
    (part, calls)
}

/// Reads `bytes` as the loader does, with the built-in mask and `readers`.
fn load_with(
    bytes: Vec<u8>,
    name: &str,
    readers: &dyn Readers,
) -> Result<Document, load::LoadError> {
    load::load_plan_with(bytes, name, &Mask::default(), readers)
}

fn options(name: &str, user: &[&str]) -> OpenOptions {
    OpenOptions {
        name: name.to_string(),
        mask_builtin: true,
        mask_user: user.iter().map(|s| s.to_string()).collect(),
        rules: None,
        labels: BTreeMap::new(),
    }
}

/// What the page would get of a document: its index as JSON (rows' identities and actions,
/// source, warnings, notes, drift, outputs, checks, findings under the built-in rules, the text
/// kept for a reload).
fn index_json(doc: Document, name: &str) -> String {
    let session = Session::of(doc);
    let index = session.index(None, &options(name, &[]).labels);
    serde_json::to_string(&index).unwrap()
}

/// Everything a document carries that a view or a link reads.
fn facts(doc: &Document) -> String {
    format!(
        "name {:?}\ntext {}\nsource {:?}\nwarnings {:?}\nnotes {:?}\noriginal {:?}\nmasking {:?}\nrows {}\nmodules {:?}\ntypes {:?}\nproviders {:?}",
        doc.name,
        doc.text(),
        doc.source,
        doc.warnings,
        doc.notes,
        doc.original,
        doc.masking,
        doc.rows.len(),
        doc.modules,
        doc.resource_types,
        doc.providers,
    )
}

/// Opens `bytes` as a session, then remasks it with a user pattern (which reads the file's text
/// again through the loader): the new index.
fn remasked(bytes: Vec<u8>, name: &str, readers: &dyn Readers) -> Option<String> {
    let mut session = Session::open_bytes(bytes, &options(name, &[]), readers).ok()?;
    let remask = Request::Remask(Box::new(options(name, &["*name*"])));
    match session.answer(remask, readers) {
        Response::Opened(index) => Some(serde_json::to_string(&index).unwrap()),
        Response::Failed(e) => Some(format!("failed: {e}")),
        _ => None,
    }
}

#[test]
fn every_file_opens_the_same_through_the_part() {
    let mut through_part = 0;
    let mut refused = 0;
    let mut per_reader = [0usize; 7];
    for (name, bytes) in inputs() {
        let direct = load_with(bytes.clone(), &name, &Direct);
        let direct_remask = remasked(bytes.clone(), &name, &Direct);
        let (part, calls) = loaded_part();
        let via = load_with(bytes.clone(), &name, &part);
        let used = calls.get();
        let via_remask = remasked(bytes.clone(), &name, &part);
        if used.iter().sum::<usize>() == 0 {
            continue;
        }
        through_part += 1;
        for (total, n) in per_reader.iter_mut().zip(used) {
            *total += n;
        }
        match (direct, via) {
            (Ok(direct), Ok(via)) => {
                assert_eq!(facts(&via), facts(&direct), "{name}: the document differs");
                assert_eq!(
                    index_json(via, &name),
                    index_json(direct, &name),
                    "{name}: the page's index differs"
                );
                assert_eq!(via_remask, direct_remask, "{name}: a remask differs");
            }
            (Err(direct), Err(via)) => {
                refused += 1;
                assert_eq!(
                    via.to_string(),
                    direct.to_string(),
                    "{name}: the message differs"
                );
            }
            (direct, via) => panic!(
                "{name}: directly {:?}, through the part {:?}",
                direct.map(|d| d.name),
                via.map(|d| d.name)
            ),
        }
    }
    eprintln!(
        "{through_part} files read through the part ({refused} refused); calls per reader \
         {CALLS:?}: {per_reader:?}"
    );
    // Each reader that moved was exercised, documents and refusals alike.
    for (i, n) in per_reader[..5].iter().enumerate() {
        assert!(*n > 0, "reader {} was never called", CALLS[i]);
    }
    assert!(
        refused >= 5,
        "only {refused} refusals went through the part"
    );
    assert!(
        through_part >= 40,
        "only {through_part} files went through the part"
    );
}

/// The Kubernetes fixtures (the manifest's of kind `kube`), as (name, bytes).
fn kube_files() -> Vec<(String, Vec<u8>)> {
    (common::fixtures_of(&["kube"]).iter())
        .map(|f| (f.name().to_string(), f.bytes()))
        .collect()
}

/// Everything a session's open of `files` gives that the page or a link reads: a plan's index, or
/// a fleet's rows and problems and every row's link file, or the message.
fn opened(files: Vec<(String, Vec<u8>)>, readers: &dyn FleetReaders) -> String {
    use planlens::session::{Opened, answer_fleet};
    match Session::open_files(files, &options("opened", &[]), readers) {
        Ok(Opened::Plan(session)) => {
            let index = session.index(None, &BTreeMap::new());
            format!("plan {}", serde_json::to_string(&index).unwrap())
        }
        Ok(Opened::Fleet(open)) => {
            let mut out = format!("fleet {:?}", open.index);
            let links: Vec<Link> = (open.index.rows.iter())
                .flat_map(|r| r.links.iter().map(|(l, _)| *l))
                .collect();
            // A link no row has is refused the same way too.
            for link in links.into_iter().chain([Link::Plan(999)]) {
                let answer = answer_fleet(&open, Request::FleetLink { link });
                out.push_str(&format!(
                    "\n{link:?}: {}",
                    serde_json::to_string(&answer).unwrap()
                ));
            }
            out
        }
        Ok(Opened::Set(set)) => format!(
            "set {:?} {:?}",
            (set.members.iter())
                .map(|m| (&m.name, m.text.len()))
                .collect::<Vec<_>>(),
            set.problems
        ),
        Err(e) => format!("refused {e}"),
    }
}

/// The sets of files opened together: each Kubernetes fixture alone and gzipped, all of them, a
/// plan Secret with its state Secret, a namespace with the workspaces, and broken sets.
fn file_sets() -> Vec<Vec<(String, Vec<u8>)>> {
    let files = kube_files();
    let by = |name: &str| {
        (files.iter())
            .find(|(n, _)| n == &format!("kube/{name}"))
            .cloned()
            .unwrap_or_else(|| panic!("no fixture kube/{name}"))
    };
    let mut sets: Vec<Vec<(String, Vec<u8>)>> = files.iter().map(|f| vec![f.clone()]).collect();
    sets.push(files.clone());
    sets.push(vec![by("plan-secret.json"), by("state-secret.json")]);
    sets.push(vec![by("terraforms.json"), by("team-a.json")]);
    sets.push(vec![by("terraforms.yaml"), by("configmap-text-plan.json")]);
    sets.push(vec![
        by("plan-secret-bad-gzip.json"),
        by("state-secret.json"),
    ]);
    sets.push(vec![
        by("not-controller.json"),
        by("plan-secret-binary.json"),
    ]);
    sets.push(vec![
        by("terraforms.json"),
        ("empty.json".to_string(), Vec::new()),
        (
            "plan.json".to_string(),
            common::own_fixture("blast_radius.json"),
        ),
    ]);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&by("team-a.json").1).unwrap();
    sets.push(vec![
        ("team-a.json.gz".to_string(), gz.finish().unwrap()),
        by("terraform-drift.json"),
    ]);
    sets
}

#[test]
fn kubernetes_objects_and_fleets_open_the_same_through_the_part() {
    let mut fleets = 0;
    let mut calls = [0usize; 7];
    for files in file_sets() {
        let names: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
        let direct = opened(files.clone(), &Direct);
        let direct_read =
            fleet::read_files(files.clone(), &Direct).map(|r| (r.fleet.index, r.single));
        let (part, counted) = loaded_part();
        let via = opened(files.clone(), &part);
        let via_read = fleet::read_files(files, &part).map(|r| (r.fleet.index, r.single));
        for (total, n) in calls.iter_mut().zip(counted.get()) {
            *total += n;
        }
        fleets += usize::from(direct.starts_with("fleet"));
        assert_eq!(via, direct, "{names:?}: the session's open differs");
        match (direct_read, via_read) {
            (Ok((direct_index, direct_single)), Ok((via_index, via_single))) => {
                assert_eq!(via_index, direct_index, "{names:?}: the fleet differs");
                assert_eq!(
                    via_single.map(|s| s.map_err(|e| e.to_string())),
                    direct_single.map(|s| s.map_err(|e| e.to_string())),
                    "{names:?}: what the files open as differs"
                );
            }
            (direct, via) => panic!("{names:?}: directly {direct:?}, through the part {via:?}"),
        }
    }
    eprintln!("{fleets} fleets; calls per reader {CALLS:?}: {calls:?}");
    assert!(fleets >= 5, "only {fleets} sets opened as a fleet");
    // Objects, fleets and links all went through the part.
    for (i, n) in calls.iter().enumerate().skip(4) {
        assert!(*n > 0, "{} was never called", CALLS[i]);
    }
}

/// Natively, reading a fleet directly and through the part are the same, and in the browser the
/// part's answer is all the first-visit module has: a link asked after the part is gone is a
/// message, not a panic.
#[test]
fn a_fleet_link_without_its_part_is_a_message() {
    let files = kube_files();
    let (part, _) = loaded_part();
    let read = fleet::read_files(files, &part).unwrap();
    part.unload();
    let link = (read.fleet.index.rows.iter())
        .flat_map(|r| r.links.iter().map(|(l, _)| *l))
        .next()
        .expect("a row with a link");
    let e = read.fleet.link_file(link).unwrap_err();
    assert!(e.to_string().contains("open the files again"), "{e}");
}

#[test]
fn a_broken_answer_is_a_message_not_a_panic() {
    // A part of another build (a stale cache) or a bug: the user is told what to do.
    let part = PartReaders::new();
    part.load(Box::new(|_: &str, _: &str, _: &str| {
        Ok("not an answer".to_string())
    }));
    let e = load_with(common::own_fixture("state.json"), "state.json", &part).unwrap_err();
    part.load(Box::new(|_: &str, _: &str, _: &str| {
        Err("it trapped".to_string())
    }));
    let failed = load_with(common::own_fixture("state.json"), "state.json", &part).unwrap_err();
    assert!(e.to_string().contains("Reload the page"), "{e}");
    assert!(
        failed
            .to_string()
            .contains("a Terraform state failed: it trapped"),
        "{failed}"
    );
}

/// Until the part is loaded, the app's readers refuse what needs it and note the miss, which the
/// worker acts on (it loads the part and opens the files again); plan JSON never needs it.
#[test]
fn without_the_part_a_file_that_needs_it_is_refused_and_the_miss_noted() {
    let part = PartReaders::new();
    let plan = load_with(common::own_fixture("blast_radius.json"), "plan.json", &part);
    assert!(plan.is_ok(), "{:?}", plan.err());
    assert!(!part.take_missed(), "plan JSON needed the part");
    let state = load_with(common::own_fixture("state.json"), "state.json", &part).unwrap_err();
    assert!(
        matches!(state, load::LoadError::NeedsReaders { .. }),
        "{state}"
    );
    assert!(part.take_missed(), "the miss was not noted");
    assert!(!part.take_missed(), "the mark was not reset");
    let fleet = fleet::read_files(kube_files(), &part).unwrap_err();
    assert!(
        matches!(fleet, load::LoadError::NeedsReaders { .. }),
        "{fleet}"
    );
    assert!(part.take_missed(), "the fleet's miss was not noted");
}

/// An archive is unpacked by the part in the browser: the same plans, names and problems as
/// natively, a damaged archive a problem of the set, a bomb refused with the same message.
#[test]
fn archives_are_unpacked_by_the_part_as_natively() {
    let (part, calls) = loaded_part();
    let sets = common::repo_dir().join("tests/fixtures/sets");
    for name in [
        "terragrunt.zip",
        "terragrunt.tar.gz",
        "zip_bomb.zip",
        "too_many_entries.tar.gz",
    ] {
        let bytes = std::fs::read(sets.join(name)).unwrap();
        let files = vec![(name.to_string(), bytes)];
        let native = planlens::load::set::expand(files.clone());
        let via_part =
            planlens::load::set::expand_with(files, &|b: &[u8], n: &str, budget: &mut _| {
                part.unpack(b, n, budget)
            });
        match (native, via_part) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{name}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{name}"),
            (a, b) => panic!("{name}: natively {a:?}, through the part {b:?}"),
        }
    }
    assert_eq!(calls.get()[7], 4, "each archive crossed once");
    // Damaged: a problem, not a failure.
    let mut bytes = std::fs::read(sets.join("terragrunt.zip")).unwrap();
    bytes.truncate(bytes.len() / 2);
    let damaged = vec![("cut.zip".to_string(), bytes)];
    let a = planlens::load::set::expand(damaged.clone()).unwrap();
    let b = planlens::load::set::expand_with(damaged, &|b: &[u8], n: &str, budget: &mut _| {
        part.unpack(b, n, budget)
    })
    .unwrap();
    assert_eq!(a, b);
}
