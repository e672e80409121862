//! What this crate assumes of regorus (and of serde_json under it) that neither promises: each
//! test fails when an update breaks an assumption, and names the code that relies on it. The
//! list is in the crate's documentation ("Assumptions about regorus").

use regorus::Value;

use super::engine::{self, Group, Request};
use super::prune::{NUMBER_KEY, cut, needs};
use super::shape::Shape;
use super::source::PolicyFile;

fn value(json: &str) -> Value {
    Value::from_json_str(json).expect("JSON")
}

/// The values of `data.main.deny` under `policy` on `input`, cut (when `expect_cut`, checked to
/// be) and whole.
fn deny(policy: &str, input: &str, expect_cut: bool) -> (serde_json::Value, serde_json::Value) {
    let request = Request {
        policies: vec![PolicyFile::new("p.rego", policy)],
        groups: vec![Group {
            shape: Shape::Conftest,
            packages: vec!["main".to_string()],
        }],
        time_limit_ms: None,
    };
    let of = |outcome: engine::Outcome| {
        outcome
            .results
            .into_iter()
            .find(|r| r.rule == "data.main.deny")
            .map(|r| r.value)
            .expect("deny is defined")
    };
    let cut_input = engine::run(&request, &[input]).expect("runs");
    if expect_cut {
        assert!(cut_input.input_bytes[0] < input.len(), "the input was cut");
    }
    let whole = engine::run_whole(&request, &[input]).expect("runs");
    (of(cut_input), of(whole))
}

/// (a) The engine orders an object's keys as Rust orders strings (bytes: `B` < `a` < `address`),
/// and compares two objects key by key in that order, a key before its value. `prune::cut`
/// keeps a set element's keys up to `address` verbatim because of it: the comparison of two
/// elements with distinct addresses is decided by then, before and after the cut.
#[test]
fn objects_are_ordered_key_by_key_in_byte_order() {
    let keys = value(r#"{"b":1,"é":1,"address":1,"a b":1,"B":1,"a":1}"#);
    let keys: Vec<&str> = keys
        .as_object()
        .expect("an object")
        .keys()
        .map(|k| k.as_string().expect("a string key").as_ref())
        .collect();
    assert_eq!(keys, ["B", "a", "a b", "address", "b", "é"]);
    // `B` decides before `address`; a missing key before a later one.
    assert!(value(r#"{"B":1,"address":"z"}"#) < value(r#"{"B":2,"address":"a"}"#));
    assert!(value(r#"{"Zed":1,"address":"z"}"#) < value(r#"{"address":"a"}"#));
    assert!(value(r#"{"action":1,"address":"z"}"#) < value(r#"{"address":"a","b":0}"#));
}

/// (a) A set of input objects comes out in the same order with the input cut (keys after
/// `address` dropped) as whole, and in the engine's order of (a) above.
#[test]
fn a_set_of_cut_elements_keeps_its_order() {
    let policy = "package main\nimport rego.v1\n\
        changes contains rc if some rc in input.resource_changes\n\
        deny := [rc.address | some rc in changes]\n";
    let input = r#"{"resource_changes":[
        {"address":"b","mode":"managed","type":"a"},
        {"address":"a","mode":"managed","type":"z"},
        {"action_reason":"x","address":"c","mode":"managed"},
        {"Zed":1,"address":"d","mode":"data"}],"other":1}"#;
    let (cut, whole) = deny(policy, input, true);
    assert_eq!(whole, serde_json::json!(["d", "c", "a", "b"]));
    assert_eq!(cut, whole);
}

/// (a) Of repeated keys the engine keeps the last, as serde's maps do: `prune::cut` reads an
/// element's address that way, and `reads::pruned` rewrites the top level through a map.
#[test]
fn a_repeated_key_keeps_its_last_value() {
    let v = value(r#"{"address":"a","x":1,"address":"b"}"#);
    assert_eq!(v["address"], Value::from("b"));
}

/// (a) A rule's set is written as an array in the engine's order ([`engine::RuleValue`]), which
/// is the order of the findings and of the CLI's output: strings by bytes, numbers by value.
#[test]
fn a_set_is_written_in_the_engines_order() {
    let policy = "package main\nimport rego.v1\n\
        deny contains x if some x in input.xs\n\
        deny contains rc.address if some rc in input.resource_changes\n";
    let input = r#"{"xs":[10,1.5,2,"b","a",null,true],"resource_changes":[{"address":"B"}]}"#;
    let (_, whole) = deny(policy, input, false);
    assert_eq!(
        whole,
        serde_json::json!([null, true, 1.5, 2, 10, "B", "a", "b"])
    );
}

/// (b) The engine reads an object whose first key is serde_json's private number key as the
/// number written in it: `prune::cut` refuses an input holding that key anywhere ([`NUMBER_KEY`]
/// must be the key the engine reads). And serde_json is built without `arbitrary_precision`,
/// so numbers reach the cut as numbers, not as objects under that key.
#[test]
fn the_private_number_key_is_read_as_a_number() {
    let v = value(&format!(r#"{{"{NUMBER_KEY}":"12.5"}}"#));
    assert_eq!(v, value("12.5"));
    let n: serde_json::Value = serde_json::from_str("1.0e0").expect("JSON");
    assert_eq!(
        n.to_string(),
        "1.0",
        "serde_json keeps numbers as f64/u64/i64"
    );
    let need = needs(&modules(&[
        "package main\nimport rego.v1\nwarn contains \"w\" if { some x in input.a; is_number(x) }\n",
    ]))
    .expect("followed");
    assert_eq!(
        cut(r#"{"a":[1.5,2]}"#, &need).as_deref(),
        Some(r#"{"a":[1.5,2]}"#)
    );
    let hidden = format!(r#"{{"a":[{{"{NUMBER_KEY}":"1"}}]}}"#);
    assert_eq!(cut(&hidden, &need), None);
}

fn modules(policies: &[&str]) -> Vec<regorus::unstable::Ref<regorus::unstable::Module>> {
    let mut engine = regorus::Engine::new();
    for (i, text) in policies.iter().enumerate() {
        engine
            .add_policy(format!("p{i}.rego"), text.to_string())
            .expect("parses");
    }
    engine.get_modules().to_vec()
}

/// (c) The engine reads a number written by `prune::cut` (serde_json's shortest text of the
/// f64, an integer as written) as the same number it reads from the plan's own text — it reads
/// JSON through serde_json — and prints it the same.
#[test]
fn numbers_read_the_same_from_the_cut_as_from_the_plan() {
    let need = needs(&modules(&[
        "package main\nimport rego.v1\nwarn contains \"w\" if { some x in input.a; is_number(x) }\n",
    ]))
    .expect("followed");
    for number in [
        "1.5",
        "-0",
        "-0.0",
        "1.0",
        "1E2",
        "0.1",
        "1e300",
        "5e-324",
        "1.7976931348623157e308",
        "12345678901234567890",
        "123456789012345678901234567890",
        "-9223372036854775808",
        "0.30000000000000004",
    ] {
        let text = format!(r#"{{"a":[{number}],"b":1}}"#);
        let out = cut(&text, &need).expect("cut");
        assert_ne!(out, text, "{number}: cut");
        let (plan, cut) = (value(&text)["a"].clone(), value(&out)["a"].clone());
        assert_eq!(plan, cut, "{number}");
        assert_eq!(format!("{plan:?}"), format!("{cut:?}"), "{number}");
        // (The engine cannot write f64::MAX back out, cut or not.)
        let written = |v: &Value| serde_json::to_string(v).ok();
        assert_eq!(written(&plan), written(&cut), "{number}");
    }
}

/// (c) A rule's value goes from the engine to serde_json ([`engine::RuleValue`], what the CLI
/// prints) with each number's value kept; an integral float comes out as an integer.
#[test]
fn rule_values_keep_their_numbers() {
    let policy = "package main\nimport rego.v1\ndeny := input.a\n";
    let input = r#"{"a":[1.5,100,1.0,-5,0.1,1e300,12345678901234567890,-0.0]}"#;
    let (_, whole) = deny(policy, input, false);
    assert_eq!(
        whole.to_string(),
        "[1.5,100,1,-5,0.1,1e+300,12345678901234567890,-0.0]"
    );
}

/// (d) `regex.match` reads Perl and Unicode classes and case folding (`\d`, `\w`, `\p{L}`, `(?i)`)
/// as OPA does, in every build: regorus asks for `regex` without them, and this crate's
/// Cargo.toml turns them on.
#[test]
fn regex_classes_read_as_opa_reads_them() {
    let policy = r#"package main
import rego.v1
deny contains name if {
    some name in input.names
    regex.match(`^\d+-\w+-\p{L}+$`, name)
}
deny contains "folded" if regex.match(`(?i)^WEB$`, "web")
"#;
    let input = r#"{"names":["12-app_1-été","x-app-1","12-app-"]}"#;
    let (_, whole) = deny(policy, input, false);
    assert_eq!(whole.to_string(), r#"["12-app_1-été","folded"]"#);
}
