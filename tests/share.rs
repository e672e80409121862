//! Share-link payloads: every real file and every fixture of ours survives encode → decode, and
//! opens to the same summary.

mod common;

use planlens::Summary;
use planlens::share::link::{decode, encode};

#[test]
fn every_real_file_round_trips_through_a_link() {
    let Some(dir) = common::real_fixtures_dir() else {
        return;
    };
    let mut total = (0usize, 0usize);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let link = encode(&text);
        total = (total.0 + text.len(), total.1 + link.len());
        let back = decode(&link).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, text, "{name}");
        let a = planlens::load_plan_text(text, &name).unwrap();
        let b = planlens::load_plan_text(back, &name).unwrap();
        assert_eq!(Summary::of(&a), Summary::of(&b), "{name}");
    }
    // Plans compress well: the links are a fraction of the files.
    assert!(
        total.1 * 4 < total.0,
        "links {} bytes for {} bytes of plans",
        total.1,
        total.0
    );
}

#[test]
fn our_fixtures_and_logs_round_trip() {
    for name in [
        "plan_log_drift.jsonl",
        "drift_effects.json",
        "hostile.json",
        "tricky_keys.json",
    ] {
        let text = String::from_utf8(common::own_fixture(name)).unwrap();
        assert_eq!(decode(&encode(&text)).unwrap(), text, "{name}");
    }
}
