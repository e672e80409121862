//! A pull request's plans opened together (issue 28, its first pieces): the names a reviewer
//! recognises them by, and the plans one text holds one after another.

use crate::common;

use planlens::load::archive::{self, Budget};
use planlens::load::set::{Expanded, Member, expand, names, split_documents};
use planlens::load::{ArchiveLimit, Direct, LoadError, load_plan_text_with};
use planlens::load_plan_text;
use planlens::model::Document;
use planlens::model::mask::Mask;
use planlens::model::summary::Planning;

#[test]
fn names_drop_what_every_path_shares() {
    // A Terragrunt --json-out-dir tree: every unit's plan has the same file name.
    assert_eq!(
        names(&[
            "out/live/prod/network/tfplan.json",
            "out/live/prod/db/tfplan.json",
            "out/live/dev/network/tfplan.json",
        ]),
        ["prod/network", "prod/db", "dev/network"]
    );
    // Files side by side: their names without the extensions.
    assert_eq!(
        names(&["plans/staging.json", "plans/production.json.gz"]),
        ["staging", "production"]
    );
    // Windows paths, a single file, a path with `./`.
    assert_eq!(
        names(&[r"C:\ci\stacks\a\plan.json", r"C:\ci\stacks\b\plan.json"]),
        ["a", "b"]
    );
    assert_eq!(names(&["artifacts/plan.json"]), ["plan"]);
    assert_eq!(names(&["./x/plan.json", "./y/plan.json"]), ["x", "y"]);
    // Different depths keep what tells them apart.
    assert_eq!(
        names(&["stacks/prod/plan.json", "stacks/prod/eu/plan.json"]),
        ["prod", "prod/eu"]
    );
}

#[test]
fn the_same_name_twice_is_numbered() {
    assert_eq!(
        names(&["a/plan.json", "b/x/plan.json", "b/x/plan.json"]),
        ["a", "b/x", "b/x (2)"]
    );
    assert_eq!(names(&["plan.json", "plan.json"]), ["plan", "plan (2)"]);
}

/// Two real plans (or our own when ../shared is absent).
fn two_plans() -> (String, String) {
    let read = |path: &str| String::from_utf8(common::fixture(path).bytes()).unwrap();
    (
        read("samples/web-app-replace.json"),
        read("tests/fixtures/blast_radius.json"),
    )
}

#[test]
fn plans_one_after_another_are_found_each_whole() {
    let (a, b) = two_plans();
    // Concatenated as written (pretty-printed, a newline between), and as JSON Lines.
    let compact = |t: &str| {
        serde_json::from_str::<serde_json::Value>(t)
            .unwrap()
            .to_string()
    };
    for text in [
        format!("{a}\n{b}"),
        format!("{}\n{}\n", compact(&a), compact(&b)),
        format!("  {a}{b}  "),
    ] {
        let ranges = split_documents(&text).expect("two plans");
        assert_eq!(ranges.len(), 2);
        for (range, name) in ranges.iter().zip(["a.json", "b.json"]) {
            let doc = load_plan_text(text[range.clone()].to_string(), name).unwrap();
            assert!(!doc.rows.is_empty(), "{name}");
        }
    }
}

#[test]
fn one_plan_a_plan_log_or_other_json_is_not_split() {
    let (a, _) = two_plans();
    assert_eq!(split_documents(&a), None);
    let log = String::from_utf8(common::fixture("tests/fixtures/plan_log.jsonl").bytes()).unwrap();
    assert_eq!(split_documents(&log), None);
    assert_eq!(split_documents("[1, 2] [3]"), None);
    assert_eq!(split_documents(&format!("{a} not json")), None);
    assert_eq!(
        split_documents(&format!("{a}\n{{\"format_version\": \"1.0\"}}")),
        None
    );
}

/// The bytes of a file under tests/fixtures/sets.
fn set_file(path: &str) -> Vec<u8> {
    common::fixture(&format!("tests/fixtures/sets/{path}")).bytes()
}

/// `expand` of files under tests/fixtures/sets, each given by its path there.
fn expand_sets(paths: &[&str]) -> Expanded {
    let files = paths.iter().map(|p| (p.to_string(), set_file(p))).collect();
    expand(files).unwrap_or_else(|e| panic!("{paths:?}: {e}"))
}

fn member_names(expanded: &Expanded) -> Vec<&str> {
    expanded.members.iter().map(|m| m.name.as_str()).collect()
}

/// A member opened by the one-plan path, as the session opens it.
fn open(member: &Member) -> Document {
    load_plan_text_with(member.text.clone(), &member.name, &Mask::default(), &Direct)
        .unwrap_or_else(|e| panic!("{}: {e}", member.name))
}

/// Every member opens as one plan (never as several run together), none failed.
fn all_open_as_one_plan(expanded: &Expanded) -> Vec<Document> {
    (expanded.members.iter())
        .map(|m| {
            let doc = open(m);
            let planning = Planning::of(&doc);
            assert!(
                !matches!(planning, Planning::Several { .. } | Planning::Failed { .. }),
                "{}: {planning:?}",
                m.name
            );
            doc
        })
        .collect()
}

/// The Terragrunt tree's five units, as the folder was dropped.
const TREE: [&str; 5] = [
    "terragrunt/dev/app/tfplan.json",
    "terragrunt/dev/network/tfplan.json",
    "terragrunt/prod/app/tfplan.json",
    "terragrunt/prod/db/tfplan.json",
    "terragrunt/prod/network/tfplan.json",
];
const TREE_NAMES: [&str; 5] = [
    "dev/app",
    "dev/network",
    "prod/app",
    "prod/db",
    "prod/network",
];

#[test]
fn a_terragrunt_folder_opens_as_one_plan_per_unit() {
    let expanded = expand_sets(&TREE);
    assert_eq!(member_names(&expanded), TREE_NAMES);
    assert!(expanded.problems.is_empty(), "{:?}", expanded.problems);
    let docs = all_open_as_one_plan(&expanded);
    let sentences: Vec<String> = docs
        .iter()
        .map(|d| planlens::Summary::of(d).sentence())
        .collect();
    // One unit without changes, one that replaces, one that drifted.
    assert_eq!(sentences[0], "No changes.", "{sentences:?}");
    assert!(
        docs[4]
            .rows
            .iter()
            .any(|r| matches!(r.action, planlens::model::Action::Replace(_))),
        "{sentences:?}"
    );
    assert!(!docs[2].plan().resource_drift.is_empty());
}

#[test]
fn the_tree_zipped_or_tarred_gives_the_same_plans_as_the_folder() {
    let folder = expand_sets(&TREE);
    for archive in ["terragrunt.zip", "terragrunt.tar.gz"] {
        let expanded = expand_sets(&[archive]);
        assert_eq!(expanded.members, folder.members, "{archive}");
    }
    // What a zipped working copy holds besides plans: the README and the lock file are named as
    // problems; `.terraform/` and `__MACOSX/` are left out without a word.
    let zipped = expand_sets(&["terragrunt.zip"]);
    let problems: Vec<&str> = zipped.problems.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        problems,
        [
            "terragrunt/terragrunt/README.md",
            "terragrunt/terragrunt/dev/network/.terraform.lock.hcl"
        ]
    );
    assert!(
        zipped.problems[1].1.contains("lock file"),
        "{:?}",
        zipped.problems
    );
    // Named by content, not by name.
    let renamed = expand(vec![("artifact.bin".into(), set_file("terragrunt.tar.gz"))]).unwrap();
    assert_eq!(renamed.members, folder.members);
}

#[test]
fn an_archive_beside_other_files_keeps_its_name_as_a_folder() {
    let files = vec![
        ("ci/terragrunt.zip".to_string(), set_file("terragrunt.zip")),
        (
            "ci/extra.json".to_string(),
            set_file("terragrunt/prod/db/tfplan.json"),
        ),
    ];
    let expanded = expand(files).unwrap();
    assert_eq!(
        member_names(&expanded),
        // File names differ now (`tfplan`, `extra`): each keeps its stem.
        [
            "terragrunt/terragrunt/dev/app/tfplan",
            "terragrunt/terragrunt/dev/network/tfplan",
            "terragrunt/terragrunt/prod/app/tfplan",
            "terragrunt/terragrunt/prod/db/tfplan",
            "terragrunt/terragrunt/prod/network/tfplan",
            "extra",
        ]
    );
}

#[test]
fn an_atlantis_comment_of_three_projects_opens_as_three_plans() {
    let expanded = expand_sets(&["atlantis_three_projects.md"]);
    assert_eq!(
        member_names(&expanded),
        ["live/network", "api-prod", "live/database (staging)"]
    );
    let docs: Vec<Document> = expanded.members.iter().map(open).collect();
    let planning: Vec<Planning> = docs.iter().map(Planning::of).collect();
    assert_eq!(
        planlens::Summary::of(&docs[0]).sentence(),
        "Plan: 1 to add, 1 to change, 0 to destroy."
    );
    assert_eq!(planlens::Summary::of(&docs[1]).sentence(), "No changes.");
    assert!(
        !matches!(
            planning[0],
            Planning::Several { .. } | Planning::Failed { .. }
        ),
        "{planning:?}"
    );
    // The failed project reads as a failed plan, with Terraform's error.
    let Planning::Failed { error, .. } = &planning[2] else {
        panic!("{:?}", planning[2]);
    };
    assert_eq!(error.as_deref(), Some("Unsupported argument"));
}

#[test]
fn a_digger_comment_of_three_projects_opens_as_three_plans() {
    let expanded = expand_sets(&["digger_comment.md"]);
    assert_eq!(
        member_names(&expanded),
        ["network", "payments-prod", "observability"]
    );
    let docs = all_open_as_one_plan(&expanded);
    let sentences: Vec<String> = docs
        .iter()
        .map(|d| planlens::Summary::of(d).sentence())
        .collect();
    assert_eq!(
        sentences,
        [
            "Plan: 1 to add, 0 to change, 0 to destroy.",
            "Plan: 1 to add, 1 to change, 1 to destroy.",
            "No changes."
        ]
    );
    // Older digger comments: `Plan for <b>LOCK</b>`, the lock naming the repository too.
    let older = ["api", "worker"]
        .iter()
        .map(|p| {
            format!(
                "<details ><summary>Plan for <b>acme/infra#{p}</b></summary>\n\n```terraform\n\
                 No changes. Your infrastructure matches the configuration.\n```\n</details>\n"
            )
        })
        .collect::<String>();
    let expanded = expand(vec![("comment.md".into(), older.into_bytes())]).unwrap();
    assert_eq!(member_names(&expanded), ["api", "worker"]);
    all_open_as_one_plan(&expanded);
}

#[test]
fn a_terragrunt_log_whose_lines_name_their_unit_opens_per_unit() {
    let expanded = expand_sets(&["terragrunt_run_all_units.log"]);
    assert_eq!(
        member_names(&expanded),
        ["dev/network", "prod/network", "prod/app"]
    );
    let docs = all_open_as_one_plan(&expanded);
    let sentences: Vec<String> = docs
        .iter()
        .map(|d| planlens::Summary::of(d).sentence())
        .collect();
    assert_eq!(
        sentences,
        [
            "Plan: 1 to add, 0 to change, 0 to destroy.",
            "No changes.",
            "Plan: 0 to add, 1 to change, 0 to destroy."
        ]
    );
    // The same lines without the time (`--log-format` presets differ) split the same way.
    let text = String::from_utf8(set_file("terragrunt_run_all_units.log")).unwrap();
    let untimed: String = text
        .lines()
        .map(|l| {
            l.split_once(' ')
                .filter(|(t, _)| t.contains(':'))
                .map_or(l, |(_, r)| r)
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let again = expand(vec![("run.log".into(), untimed.into_bytes())]).unwrap();
    assert_eq!(again.members, expanded.members);
}

#[test]
fn a_terragrunt_log_without_unit_prefixes_stays_one_plan() {
    // Before 0.67 the units' outputs are interleaved without saying whose they are.
    let bytes =
        std::fs::read(common::repo_dir().join("tests/fixtures/text_plans/terragrunt_run_all.txt"))
            .unwrap();
    let expanded = expand(vec![("terragrunt_run_all.txt".into(), bytes)]).unwrap();
    assert_eq!(member_names(&expanded), ["terragrunt_run_all"]);
}

#[test]
fn plans_one_after_another_in_one_file_are_numbered() {
    let expanded = expand_sets(&["plans_concatenated.json"]);
    assert_eq!(member_names(&expanded), ["plan 1", "plan 2", "plan 3"]);
    all_open_as_one_plan(&expanded);
    let lines = expand_sets(&["plans.jsonl"]);
    assert_eq!(member_names(&lines), ["plan 1", "plan 2"]);
    all_open_as_one_plan(&lines);
    // With other files, a section is named after its file too.
    let both = expand_sets(&["plans.jsonl", "digger_comment.md"]);
    assert_eq!(
        member_names(&both),
        [
            "plans/plan 1",
            "plans/plan 2",
            "digger_comment/network",
            "digger_comment/payments-prod",
            "digger_comment/observability"
        ]
    );
}

#[test]
fn one_plan_stays_one_member_named_after_its_file() {
    let expanded = expand_sets(&["terragrunt/prod/db/tfplan.json"]);
    assert_eq!(member_names(&expanded), ["tfplan"]);
    let text = expand(vec![(
        "atlantis_comment.md".into(),
        std::fs::read(common::repo_dir().join("tests/fixtures/text_plans/atlantis_comment.md"))
            .unwrap(),
    )])
    .unwrap();
    assert_eq!(member_names(&text), ["atlantis_comment"]);
    // The only file given stays a member whatever it is: the one-plan path says what it is.
    let alone = expand(vec![("notes.txt".into(), b"hello".to_vec())]).unwrap();
    assert_eq!(member_names(&alone), ["notes"]);
}

#[test]
fn what_is_clearly_not_a_plan_is_a_problem_with_a_reason() {
    let files = vec![
        (
            "pr/plan.json".to_string(),
            set_file("terragrunt/prod/db/tfplan.json"),
        ),
        (
            "pr/main.tf".to_string(),
            b"resource \"null_resource\" \"x\" {}\n".to_vec(),
        ),
        (
            "pr/.terraform.lock.hcl".to_string(),
            b"provider \"x\" {}\n".to_vec(),
        ),
        (
            "pr/diagram.png".to_string(),
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec(),
        ),
        (
            "pr/notes.md".to_string(),
            b"# Notes\n\nNothing to see.\n".to_vec(),
        ),
        ("pr/empty.json".to_string(), Vec::new()),
        (
            "pr/tool".to_string(),
            vec![0xC3, 0x28, 0x00, 0xFF, 0xFE, 0x01],
        ),
        (
            "pr/.terraform/providers/aws".to_string(),
            b"\x7FELF".to_vec(),
        ),
        (
            "pr/state.json".to_string(),
            common::fixture("tests/fixtures/state.json").bytes(),
        ),
    ];
    let expanded = expand(files).unwrap();
    // A state may be opened (the one-plan path reads it): it is a member.
    assert_eq!(member_names(&expanded), ["plan", "state"]);
    let problems: Vec<&str> = expanded.problems.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        problems,
        [
            "pr/main.tf",
            "pr/.terraform.lock.hcl",
            "pr/diagram.png",
            "pr/notes.md",
            "pr/empty.json",
            "pr/tool"
        ]
    );
    for (name, why) in &expanded.problems {
        assert!(!why.is_empty() && why.len() < 200, "{name}: {why}");
    }
    assert!(expanded.problems[2].1.contains("image"));
}

#[test]
fn a_zip_bomb_is_refused_with_the_limit_and_its_figures() {
    let e = expand(vec![("bomb.zip".into(), set_file("zip_bomb.zip"))]).unwrap_err();
    let LoadError::ArchiveTooLarge {
        limit: ArchiveLimit::Bytes { size, .. },
        ..
    } = &e
    else {
        panic!("{e:?}");
    };
    assert_eq!(*size, 3 << 30);
    let message = e.to_string();
    assert!(
        message.contains("bomb.zip") && message.contains("512 MB"),
        "{message}"
    );
    assert!(
        message.contains("3072 MB") && message.contains("plan.json"),
        "{message}"
    );
}

#[test]
fn an_entry_that_holds_more_than_its_header_says_is_never_read_past_the_budget() {
    // Its headers say 1 KiB; it inflates to 1 MiB. Within 64 KiB it must stop, never panic.
    let bytes = set_file("zip_liar.zip");
    let result = archive::unpack_within(&bytes, "liar.zip", &mut Budget { left: 64 * 1024 });
    match result {
        Err(LoadError::ArchiveTooLarge { .. } | LoadError::BadArchive { .. }) => {}
        other => panic!("{other:?}"),
    }
    // Within the whole budget it is refused as damaged or read whole, never more.
    if let Ok(entries) = archive::unpack(&bytes, "liar.zip") {
        assert!(entries.iter().all(|e| e.bytes.len() <= 1 << 20));
    }
}

#[test]
fn an_archive_of_too_many_files_is_refused() {
    let e = expand(vec![(
        "many.tar.gz".into(),
        set_file("too_many_entries.tar.gz"),
    )])
    .unwrap_err();
    assert!(
        matches!(
            e,
            LoadError::ArchiveTooLarge {
                limit: ArchiveLimit::Entries { limit: 2000, .. },
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("2000 files"), "{e}");
}

#[test]
fn archives_opened_together_share_one_budget() {
    let tree = set_file("terragrunt.tar.gz");
    let mut budget = Budget { left: 20_000 };
    assert!(archive::unpack_within(&tree, "a.tar.gz", &mut budget).is_ok());
    let e = archive::unpack_within(&tree, "b.tar.gz", &mut budget).unwrap_err();
    assert!(matches!(e, LoadError::ArchiveTooLarge { .. }), "{e:?}");
}

#[test]
fn an_archive_in_an_archive_opens_and_one_deeper_does_not() {
    let inner = set_file("terragrunt.zip");
    let outer = zip_of(&[("inner.zip", &inner)]);
    let expanded = expand(vec![("outer.zip".into(), outer.clone())]).unwrap();
    assert_eq!(member_names(&expanded), TREE_NAMES);
    let deepest = zip_of(&[("outer.zip", &outer)]);
    let expanded = expand(vec![("deepest.zip".into(), deepest)]).unwrap();
    assert!(expanded.members.is_empty());
    assert_eq!(expanded.problems.len(), 1, "{:?}", expanded.problems);
    assert!(expanded.problems[0].1.contains("archive inside an archive"));
}

#[test]
fn damaged_archives_and_random_bytes_never_panic() {
    let zip = set_file("terragrunt.zip");
    let tgz = set_file("terragrunt.tar.gz");
    for cut in [10, 100, zip.len() / 2, zip.len() - 10] {
        let _ = expand(vec![("cut.zip".into(), zip[..cut].to_vec())]);
    }
    for cut in [20, 300, tgz.len() / 2, tgz.len() - 4] {
        let _ = expand(vec![("cut.tgz".into(), tgz[..cut].to_vec())]);
    }
    let damaged = expand(vec![("cut.zip".into(), zip[..zip.len() / 2].to_vec())]).unwrap();
    assert_eq!(damaged.problems.len(), 1, "{damaged:?}");
}

/// A stored (uncompressed) zip of `files`, written by hand: enough for the nesting test.
fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let crc = |data: &[u8]| {
        let mut h = flate2::Crc::new();
        h.update(data);
        h.sum()
    };
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in files {
        let offset = out.len() as u32;
        let (crc, size, name_len) = (crc(data), data.len() as u32, name.len() as u16);
        let header = |sig: u32, central: bool| {
            let mut h = Vec::new();
            h.extend(sig.to_le_bytes());
            if central {
                h.extend(20u16.to_le_bytes());
            }
            h.extend([20u16, 0, 0, 0, 0].iter().flat_map(|v| v.to_le_bytes()));
            h.extend(crc.to_le_bytes());
            h.extend(size.to_le_bytes());
            h.extend(size.to_le_bytes());
            h.extend(name_len.to_le_bytes());
            h.extend(0u16.to_le_bytes());
            if central {
                h.extend([0u16, 0, 0].iter().flat_map(|v| v.to_le_bytes()));
                h.extend(0u32.to_le_bytes());
                h.extend(offset.to_le_bytes());
            }
            h.extend(name.as_bytes());
            h
        };
        out.extend(header(0x0403_4b50, false));
        out.extend(*data);
        central.extend(header(0x0201_4b50, true));
    }
    let at = out.len() as u32;
    let n = files.len() as u16;
    out.extend(&central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0u16, 0, n, n].iter().flat_map(|v| v.to_le_bytes()));
    out.extend((central.len() as u32).to_le_bytes());
    out.extend(at.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}
