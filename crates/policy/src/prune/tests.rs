use super::{Need, cut, needs};

fn need(policies: &[&str]) -> Option<Need> {
    let mut engine = regorus::Engine::new();
    for (i, text) in policies.iter().enumerate() {
        engine
            .add_policy(format!("p{i}.rego"), text.to_string())
            .expect("parses");
    }
    needs(engine.get_modules())
}

const GUARDRAIL: &str = r#"package main
import rego.v1
managed contains rc if {
	some rc in input.resource_changes
	rc.mode == "managed"
}
deny contains sprintf("%s: %s", [rc.address, rc.change.after.instance_type]) if {
	some rc in managed
	"create" in rc.change.actions
}
"#;

#[test]
fn a_change_keeps_what_is_read_and_what_orders_it() {
    let need = need(&[GUARDRAIL]).expect("followed");
    let plan = r#"{"format_version":"1.2","resource_changes":[
            {"action_reason":"x","address":"a.b","mode":"managed","type":"a","name":"b",
             "change":{"actions":["create"],"before":null,"after":{"instance_type":"t3.micro",
             "tags":{"k":"v"},"size":1.5},"after_unknown":{"id":true}}},
            {"address":"a.c","mode":"data","type":"a","change":{"actions":["read"],"after":null}}
        ],"prior_state":{"values":{}}}"#;
    assert_eq!(
        cut(plan, &need).expect("cut"),
        r#"{"resource_changes":[{"action_reason":"x","address":"a.b","mode":"managed","change":{"actions":["create"],"after":{"instance_type":"t3.micro"}}},{"address":"a.c","mode":"data","change":{"actions":["read"],"after":null}}]}"#
    );
}

#[test]
fn elements_of_a_set_sharing_an_address_are_not_cut() {
    let need = need(&[GUARDRAIL]).expect("followed");
    let deposed = r#"{"resource_changes":[
            {"address":"a.b","deposed":"01","mode":"managed","change":{"actions":["delete"]}},
            {"address":"a.b","mode":"managed","change":{"actions":["create"]}}]}"#;
    assert_eq!(cut(deposed, &need), None);
    // Scalars and arrays are kept as they are; an object without an address refuses.
    let odd = r#"{"resource_changes":[1,[{"a":1}],{"address":"a","y":2}]}"#;
    assert_eq!(
        cut(odd, &need).expect("cut"),
        r#"{"resource_changes":[1,[{"a":1}],{"address":"a"}]}"#
    );
    let no_address = r#"{"resource_changes":[{"mode":"managed","x":[1]}]}"#;
    assert_eq!(cut(no_address, &need), None);
}

#[test]
fn what_cannot_be_followed_is_not_cut() {
    // A package's rules read as one object, `data` indexed at run time, `with` on data.
    for policy in [
        "package main\nimport rego.v1\nimport data.lib\nwarn contains x if { some x in lib }\n",
        "package main\nimport rego.v1\nwarn contains k if { some k in [\"a\"]; data[k] }\n",
        "package main\nimport rego.v1\nx := 1\nwarn contains \"w\" if { x == 2 with data.main.x as 2 }\n",
    ] {
        let lib = "package lib\nimport rego.v1\nchanges contains rc if some rc in input.resource_changes\n";
        assert_eq!(need(&[policy, lib]), None, "{policy}");
    }
    // Observed whole: a builtin's argument, a comparison, a key computed at run time.
    for (policy, whole) in [
        ("json.marshal(rc) != \"\"", true),
        ("rc == {}", true),
        ("rc[k] == 1", true),
        ("rc.type == \"x\"", false),
    ] {
        let text = format!(
            "package main\nimport rego.v1\nwarn contains \"w\" if {{ some rc in input.resource_changes; some k in [\"type\"]; {policy} }}\n"
        );
        let need = need(&[&text]).expect("followed");
        let element = need.keys["resource_changes"]
            .any
            .as_deref()
            .expect("elements");
        let kept_whole = element.whole || element.any.as_deref().is_some_and(|a| a.whole);
        assert_eq!(kept_whole, whole, "{policy}");
    }
}

#[test]
fn numbers_and_strings_read_back_the_same() {
    let need = need(&["package main\nimport rego.v1\nwarn contains x if { some x in input.a }\n"])
        .expect("followed");
    let text = r#"{"a":[1.5,-0,1e300,12345678901234567890,"\u00e9\"",0.1],"b":1}"#;
    let out = cut(text, &need).expect("cut");
    let before: serde_json::Value = serde_json::from_str(text).unwrap();
    let after: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(before["a"], after["a"]);
    assert!(after.get("b").is_none());
}
