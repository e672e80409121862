//! Real-world copies of a plan open as the plan itself: UTF-16 (PowerShell's `>`), UTF-8 with a
//! byte order mark, gzip, and the output of GitHub's setup-terraform wrapper, each with a note
//! saying what was undone. A state (`terraform show -json` without a plan file) opens as a state in
//! every encoding, never as a plan with "No changes.". Damaged gzip and gzip bombs are refused with a message.

use crate::common;

use std::io::Write;

use planlens::load::fragment::{Fragment, LinkView};
use planlens::load::{LoadError, MAX_FILE_BYTES, NotAPlan};
use planlens::model::Document;
use planlens::{Summary, load_plan, load_plan_text};

/// Every input of ours and of the real corpus (when present) as Terraform or driftctl writes it,
/// as text: the plans, plan logs, states and driftctl reports of the manifest, less the wrapper's
/// outputs (`.txt`: already one of the forms the test makes).
fn inputs() -> Vec<(String, String)> {
    (common::fixtures_of(&["plan", "plan_log", "state", "driftctl"]).iter())
        .filter(|f| !f.path.ends_with(".txt"))
        .map(|f| (f.name().to_string(), String::from_utf8(f.bytes()).unwrap()))
        .collect()
}

fn utf16(text: &str, little_endian: bool, bom: bool) -> Vec<u8> {
    let units = bom
        .then_some(0xFEFF_u16)
        .into_iter()
        .chain(text.encode_utf16());
    units
        .flat_map(|u| {
            if little_endian {
                u.to_le_bytes()
            } else {
                u.to_be_bytes()
            }
        })
        .collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// `@actions/core`'s escaping of a workflow command's message.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// What GitHub's setup-terraform wrapper (v1, `terraform_wrapper: true`) writes to stdout around
/// a Terraform command: `@actions/exec` echoes the command as `[command]…`, Terraform's stdout
/// passes through, then `core.debug` and `core.setOutput` (before `$GITHUB_OUTPUT`, a newline then
/// `::set-output`) print workflow commands with escaped copies of the output.
fn wrap(stdout: &str, args: &str, uuid: &str) -> String {
    let escaped = escape_data(stdout);
    format!(
        "[command]/home/runner/work/_temp/{uuid}/terraform-bin {args}\n{stdout}\
         ::debug::Terraform exited with code 0.\n\
         ::debug::stdout: {escaped}\n\
         ::debug::stderr: \n\
         ::debug::exitcode: 0\n\
         \n::set-output name=stdout::{escaped}\n\
         \n::set-output name=stderr::\n\
         \n::set-output name=exitcode::0\n"
    )
}

/// Address, action and marks of each row: what the list shows.
fn rows(doc: &Document) -> Vec<(String, String, [bool; 4])> {
    doc.rows
        .iter()
        .map(|r| {
            (
                doc.change(r).address.to_string(),
                r.action.key().to_string(),
                [r.is_data, r.is_move, r.is_import, r.is_drifted],
            )
        })
        .collect()
}

fn open(bytes: Vec<u8>, name: &str) -> Document {
    load_plan(bytes, name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_input_opens_the_same_utf16_with_a_bom_gzip_or_wrapped() {
    for (name, text) in inputs() {
        let original = open(text.clone().into_bytes(), &name);
        assert!(original.notes.is_empty(), "{name}: {:?}", original.notes);
        let stdout = if text.ends_with('\n') {
            text.clone()
        } else {
            format!("{text}\n")
        };
        let wrapped = wrap(&stdout, "show -json plan.out", "0d9e2f6a");
        let mut bom = vec![0xEF, 0xBB, 0xBF];
        bom.extend(text.as_bytes());
        let variants: [(&str, Vec<u8>, &[&str]); 7] = [
            (
                "UTF-16 LE",
                utf16(&text, true, true),
                &["Decoded UTF-16 LE"],
            ),
            (
                "UTF-16 BE",
                utf16(&text, false, true),
                &["Decoded UTF-16 BE"],
            ),
            (
                "UTF-16 LE without BOM",
                utf16(&text, true, false),
                &["Decoded UTF-16 LE text: it has no byte order mark"],
            ),
            ("UTF-8 with BOM", bom, &[]),
            ("gzip", gzip(text.as_bytes()), &["Decompressed gzip ("]),
            (
                "wrapped",
                wrapped.clone().into_bytes(),
                &["Removed 1 line before the JSON (`[command]…`) and 7 lines after it"],
            ),
            (
                // PowerShell on a Windows runner, then uploaded as a gzip artifact.
                "gzip of UTF-16 of wrapped",
                gzip(&utf16(&wrapped, true, true)),
                &[
                    "Decompressed gzip (",
                    "Decoded UTF-16 LE",
                    "Removed 1 line before",
                ],
            ),
        ];
        for (how, bytes, notes) in variants {
            let doc = open(bytes, &format!("{name} ({how})"));
            assert_eq!(
                Summary::of(&doc),
                Summary::of(&original),
                "{name} ({how}): summary"
            );
            assert_eq!(
                Summary::of(&doc).headline(&doc),
                Summary::of(&original).headline(&original),
                "{name} ({how})"
            );
            assert_eq!(rows(&doc), rows(&original), "{name} ({how}): rows");
            assert_eq!(doc.warnings, original.warnings, "{name} ({how}): warnings");
            assert_eq!(doc.source, original.source, "{name} ({how}): source facts");
            assert_eq!(
                doc.notes.len(),
                notes.len(),
                "{name} ({how}): {:?}",
                doc.notes
            );
            for (note, start) in doc.notes.iter().zip(notes) {
                assert!(note.starts_with(start), "{name} ({how}): {note}");
            }
            // What a reload keeps and a link carries is the decoded plan: the same text, less
            // the wrapper's lines (those before the JSON left as empty lines).
            assert!(
                doc.source_text().trim() == original.source_text().trim(),
                "{name} ({how}): source text"
            );
        }
    }
}

#[test]
fn the_wrapper_fixture_is_what_the_wrapper_writes_and_opens_with_a_note() {
    let fixture = String::from_utf8(common::own_fixture("wrapper_setup_terraform.txt")).unwrap();
    // The fixture is the wrapper's output for the compact (`terraform show -json`) form of
    // import_move_read.json.
    let stdout = format!("{}\n", fixture.lines().nth(1).unwrap());
    let plan: serde_json::Value =
        serde_json::from_slice(&common::own_fixture("import_move_read.json")).unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&stdout).unwrap(),
        plan
    );
    assert!(
        fixture
            == wrap(
                &stdout,
                "show -json plan.out",
                "5e0c7d2a-91f4-4b8e-a3d6-0f2b7c9e4a11"
            ),
        "the fixture is not what wrap() writes"
    );

    // The paste path reads it too.
    for doc in [
        load_plan(fixture.clone().into_bytes(), "plan.txt").unwrap(),
        load_plan_text(fixture.clone(), "pasted plan").unwrap(),
    ] {
        assert_eq!(
            Summary::of(&doc).headline(&doc),
            "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy."
        );
        assert_eq!(
            doc.notes,
            [
                "Removed 1 line before the JSON (`[command]…`) and 7 lines after it (`::debug::`, \
              `::set-output …::`): written by GitHub's setup-terraform wrapper \
              (`terraform_wrapper: false` turns it off). The JSON itself is unchanged."
            ]
        );
        assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
        assert_eq!(doc.source_text(), format!("\n{stdout}"));
    }
}

#[test]
fn a_wrapped_plan_log_opens_as_the_log_does() {
    let plain = load_plan(common::own_fixture("plan_log.jsonl"), "plan_log.jsonl").unwrap();
    let doc = load_plan(
        common::own_fixture("wrapper_plan_log.txt"),
        "wrapper_plan_log.txt",
    )
    .unwrap();
    assert!(matches!(doc.source, planlens::model::Source::PlanLog(_)));
    assert_eq!(doc.source, plain.source);
    assert_eq!(
        Summary::of(&doc).headline(&doc),
        "Plan: 1 to add, 0 to change, 0 to destroy."
    );
    assert_eq!(rows(&doc), rows(&plain));
    // Nothing of the wrapper reached the log reader (it would have counted skipped lines).
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    assert_eq!(doc.notes.len(), 1);
    assert!(
        doc.notes[0].starts_with("Removed 1 line before the JSON (`[command]…`) and 7 lines after"),
        "{:?}",
        doc.notes
    );
}

/// Follows a full share link the way the browser does, back to the text it carries.
fn link_text(doc: &Document) -> String {
    let link = planlens::share::full_link(
        "https://example.org/",
        doc,
        &LinkView::default(),
        &planlens::load::Direct,
    );
    let fragment = Fragment::parse(&link[link.find('#').unwrap()..]);
    planlens::load::link::decode(fragment.plan.as_deref().unwrap()).unwrap()
}

#[test]
fn links_and_reloads_of_a_decoded_file_carry_the_clean_plan() {
    let fixture = common::own_fixture("wrapper_setup_terraform.txt");
    let wrapped = String::from_utf8(fixture).unwrap();
    for (how, bytes) in [
        ("wrapped", wrapped.clone().into_bytes()),
        ("UTF-16 gzip", gzip(&utf16(&wrapped, true, true))),
    ] {
        let doc = open(bytes, how);
        let carried = link_text(&doc);
        assert!(!carried.contains("[command]") && !carried.contains("::debug::"));
        let reopened = load_plan_text(carried, how).unwrap();
        assert_eq!(rows(&reopened), rows(&doc), "{how}");
        // A reload reopens what sessionStorage kept: the decoded text, with nothing to undo.
        let reloaded = load_plan_text(doc.source_text().to_string(), how).unwrap();
        assert!(reloaded.notes.is_empty(), "{how}: {:?}", reloaded.notes);
        assert_eq!(rows(&reloaded), rows(&doc), "{how}");
    }
}

#[test]
fn a_shown_state_opens_as_a_state_in_every_encoding_never_as_a_plan() {
    use planlens::Summary;
    use planlens::model::summary::Planning;
    let state = common::own_fixture("shown_state.json");
    let text = String::from_utf8(state.clone()).unwrap();
    for (how, bytes) in [
        ("plain", state.clone()),
        ("gzip", gzip(&state)),
        ("UTF-16", utf16(&text, true, true)),
        ("wrapped", wrap(&text, "show -json", "77").into_bytes()),
    ] {
        let doc = load_plan(bytes, "state.json").unwrap_or_else(|e| panic!("{how}: {e}"));
        assert!(doc.source.is_state(), "{how}");
        assert_eq!(Planning::of(&doc), Planning::State, "{how}");
        assert_eq!(
            Summary::of(&doc).headline(&doc),
            "State: 4 resources in 2 modules (Terraform 1.9.5).",
            "{how}"
        );
    }
    // What `terraform show -json` prints when there is no state at all: an empty state.
    for empty in [
        r#"{"format_version":"1.0"}"#,
        r#"{"format_version":"1.0","terraform_version":"1.9.5"}"#,
    ] {
        let doc = load_plan_text(empty.into(), "x").unwrap();
        assert!(doc.source.is_state(), "{empty}");
        assert!(doc.rows.is_empty());
        assert!(
            Summary::of(&doc)
                .headline(&doc)
                .starts_with("State: 0 resources"),
            "{empty}"
        );
    }
    // `terraform providers schema -json` has a format_version too.
    assert_eq!(
        load_plan_text(
            r#"{"format_version":"1.0","provider_schemas":{}}"#.into(),
            "x"
        )
        .unwrap_err(),
        LoadError::NotAPlan(NotAPlan::ProviderSchemas)
    );
    let err = load_plan_text(r#"{"format_version":"1.0","hello":1}"#.into(), "x").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("This is JSON, but not a Terraform plan: it has a format_version but none of a plan's keys (it has: format_version, hello)."),
        "{err}"
    );
    // A raw state file opens as a state too.
    let doc = load_plan(common::own_fixture("state.json"), "terraform.tfstate").unwrap();
    assert!(doc.source.is_state());
}

#[test]
fn plans_with_nothing_in_them_still_open() {
    // Terraform omits empty lists; a plan of nothing still has planned_values and configuration,
    // and one written by hand with only empty lists is still a plan.
    for text in [
        r#"{"format_version":"1.2","planned_values":{"root_module":{}},"configuration":{"root_module":{}}}"#,
        r#"{"format_version":"1.0","resource_changes":[]}"#,
        r#"{"format_version":"1.2","applyable":false,"complete":true,"errored":false}"#,
    ] {
        let doc = load_plan_text(text.into(), "x").unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(Summary::of(&doc).headline(&doc), "No changes.");
    }
}

#[test]
fn damaged_gzip_and_utf16_get_clear_messages() {
    let text = common::own_fixture("forget.json");
    let mut cut = gzip(&text);
    cut.truncate(cut.len() / 2);
    let err = load_plan(cut, "plan.json.gz").unwrap_err();
    assert!(matches!(err, LoadError::BadGzip { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("The file is gzip-compressed but cannot be decompressed ("),
        "{err}"
    );
    assert!(err.to_string().contains("cut off"), "{err}");

    let mut odd = utf16(std::str::from_utf8(&text).unwrap(), true, true);
    odd.pop();
    let err = load_plan(odd, "plan.json").unwrap_err();
    assert_eq!(err, LoadError::Utf16);
    assert!(err.to_string().contains("UTF-16"), "{err}");
}

#[test]
fn a_file_of_wrapper_lines_only_says_terraform_printed_nothing() {
    let text = "[command]/home/runner/work/_temp/1/terraform-bin show -json plan.out\n\
                ::debug::Terraform exited with code 1.\n\
                ::debug::stdout: \n\
                ::debug::stderr: %0AError: Failed to read the given file as a state or plan file%0A\n\
                ::debug::exitcode: 1\n";
    let err = load_plan(text.as_bytes().to_vec(), "plan.json").unwrap_err();
    assert_eq!(err, LoadError::OnlyWrapperLines { exit_code: Some(1) });
    assert!(err.to_string().contains("(exit code 1)"), "{err}");
}

/// A gzip member that inflates to `blocks` MiB of zeros, small on disk: one fully flushed
/// deflate block of 1 MiB of zeros, byte-aligned so it can be repeated, then an empty final
/// block. The trailer's CRC-32 is deliberately wrong: a reader that inflated to the end would
/// report a damaged file, not one that is too large.
fn gzip_bomb(blocks: usize) -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress};
    let zeros = vec![0u8; 1 << 20];
    let mut c = Compress::new(Compression::best(), false);
    let mut block = Vec::with_capacity(8 << 10);
    c.compress_vec(&zeros, &mut block, FlushCompress::Full)
        .unwrap();
    assert_eq!(c.total_in(), zeros.len() as u64);
    let mut end = Vec::with_capacity(64);
    c.compress_vec(&[], &mut end, FlushCompress::Finish)
        .unwrap();
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    for _ in 0..blocks {
        out.extend_from_slice(&block);
    }
    out.extend_from_slice(&end);
    out.extend_from_slice(&0xDEAD_BEEF_u32.to_le_bytes());
    out.extend_from_slice(&((blocks << 20) as u32).to_le_bytes());
    out
}

#[test]
fn a_gzip_bomb_is_refused_without_inflating_it_all() {
    // 4 GiB of zeros in a few megabytes.
    let bomb = gzip_bomb(4096);
    assert!(bomb.len() < 8 << 20, "{}", bomb.len());
    let err = load_plan(bomb.clone(), "plan.json.gz").unwrap_err();
    assert_eq!(
        err,
        LoadError::GzipTooLarge {
            compressed: bomb.len(),
            limit: MAX_FILE_BYTES
        }
    );
    assert!(
        err.to_string()
            .contains("decompresses to more than 300 MB, the most Planlens opens"),
        "{err}"
    );
    // The bomb is well formed up to its trailer: a small one inflates (and then fails only on
    // the CRC it was given), so the refusal above is the size limit's.
    assert!(matches!(
        load_plan(gzip_bomb(1), "small.json.gz").unwrap_err(),
        LoadError::BadGzip { .. }
    ));
}

#[test]
fn the_file_pickers_offer_every_kind_of_file_that_opens() {
    // The `accept` list is only a hint to the system dialog, but a file it leaves out is greyed
    // out there: every file of ours and of the real corpus that opens must match it, or have no
    // extension at all (a text plan saved as `plan`, offered under the dialog's "All files").
    let extensions: Vec<&str> = planlens::load::FILE_TYPES
        .split(',')
        .filter(|t| t.starts_with('.'))
        .collect();
    let mut opened = Vec::new();
    // The documentation and the scripts that write fixtures are not inputs (one quotes a plan it
    // writes).
    for f in common::fixtures().iter().filter(|f| f.kind != "doc") {
        let path = f.file();
        let name = path.file_name().unwrap().to_string_lossy().to_lowercase();
        if load_plan(f.bytes(), &name).is_err() {
            continue;
        }
        let offered = !name.contains('.') || extensions.iter().any(|e| name.ends_with(e));
        assert!(
            offered,
            "{} opens, but the pickers grey it out",
            path.display()
        );
        opened.push(name);
    }
    // The kinds the README promises are among them.
    for kind in [".tfstate", ".yaml", ".md", ".jsonl", ".txt", ".json"] {
        assert!(
            opened.iter().any(|n| n.ends_with(kind)),
            "no {kind} file opened"
        );
    }
    for kind in [".backup", ".yml", ".log", ".gz"] {
        assert!(extensions.contains(&kind), "{kind} is not offered");
    }
}
