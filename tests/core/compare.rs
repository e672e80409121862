//! Two plans compared (`changes::compare`, `session::compare`): a real plan and an edited copy
//! (tests/fixtures/compare/) differ by a create added, a destroy removed, an update turned
//! replace, a value changed, drift moved to another resource, a sensitive value and a
//! secret-named one changed; their timestamp, resource order, set element order and unknowns are
//! noise. No sensitive or secret-named value is ever in the answer or its texts.

use crate::common;

use planlens::Document;
use planlens::model::Action;
use planlens::model::action::ReplaceOrder;
use planlens::session::compare::{
    JudgedComparison, comment_with_since, compare_judged, markdown_since, text_since,
};
use planlens_changes::compare::{Comparison, compare};

/// Every value the fixtures hold under a sensitive mark or a secret-like name.
const SECRETS: [&str; 4] = [
    "hunter2-OLD-compare-secret",
    "hunter2-NEW-compare-secret",
    "OLD-SENSITIVE-compare-policy",
    "NEW-SENSITIVE-compare-policy",
];

fn pair() -> (Document, Document) {
    (
        common::load_own("compare/before.json"),
        common::load_own("compare/after.json"),
    )
}

fn plan(text: &str) -> Document {
    planlens::load_plan_text(text.to_string(), "inline.json").expect("inline plan")
}

/// The comparison under the built-in pack, with no labels: what `planlens compare` gives.
fn builtin_judged(old: &Document, new: &Document) -> JudgedComparison {
    compare_judged(
        old,
        new,
        &planlens::rules::RuleSet::builtin(),
        &Default::default(),
    )
}

fn addresses(list: &[planlens_changes::compare::Planned]) -> Vec<&str> {
    list.iter().map(|p| p.address.as_str()).collect()
}

#[test]
fn a_create_added_and_a_destroy_removed() {
    let (old, new) = pair();
    let c = compare(&old, &new);
    assert_eq!(addresses(&c.added), ["aws_s3_bucket.added_bucket"]);
    assert_eq!(c.added[0].action, Action::Create);
    assert_eq!(addresses(&c.removed), ["aws_s3_bucket.delete_bucket"]);
    assert_eq!(c.removed[0].action, Action::Delete);
}

#[test]
fn an_update_turned_replace_with_its_reason_and_paths() {
    let (old, new) = pair();
    let c = compare(&old, &new);
    assert_eq!(c.action_changed.len(), 1, "{:?}", c.action_changed);
    let a = &c.action_changed[0];
    assert_eq!(a.address, "aws_s3_bucket.update_bucket");
    assert_eq!(a.before, Action::Update);
    assert_eq!(a.after, Action::Replace(ReplaceOrder::DeleteThenCreate));
    assert_eq!(a.replace_paths, ["bucket"]);
    assert_eq!(
        a.action_reason.as_deref(),
        Some("replace_because_cannot_update")
    );
}

#[test]
fn values_changed_by_path_with_sensitive_and_secret_named_values_hidden() {
    let (old, new) = pair();
    let c = compare(&old, &new);
    assert!(c.values_compared);
    assert_eq!(c.values_changed.len(), 1, "{:#?}", c.values_changed);
    let v = &c.values_changed[0];
    assert_eq!(v.address, "aws_s3_bucket.create_bucket");
    let paths: Vec<(&str, &str, &str)> = v
        .attributes
        .iter()
        .map(|a| (a.path.as_str(), a.before.as_str(), a.after.as_str()))
        .collect();
    // The grant set's elements (and the permissions inside one) were reordered: not a change.
    assert_eq!(
        paths,
        [
            ("password", "(sensitive value)", "(sensitive value)"),
            ("policy", "(sensitive value)", "(sensitive value)"),
            ("tags.team", "\"storage\"", "\"data\""),
        ]
    );
}

#[test]
fn drift_appeared_and_gone_and_the_rest_unchanged() {
    let (old, new) = pair();
    let c = compare(&old, &new);
    assert_eq!(c.drift_appeared, ["aws_s3_bucket.update_bucket"]);
    assert_eq!(c.drift_gone, ["aws_s3_bucket.noop_bucket"]);
    // kept_bucket: created the same in both, unknowns and all.
    assert_eq!(c.unchanged, 1);
    assert!(c.moved.is_empty());
}

#[test]
fn a_plan_compared_with_itself_reordered_and_restamped_has_no_difference() {
    let (old, _) = pair();
    let mut json: serde_json::Value = serde_json::from_str(old.source_text()).unwrap();
    json["timestamp"] = "2030-01-01T00:00:00Z".into();
    json["resource_changes"].as_array_mut().unwrap().reverse();
    let again = plan(&json.to_string());
    let c = compare(&old, &again);
    assert!(c.is_empty(), "{c:#?}");
    assert_eq!(c.unchanged, 4);
}

#[test]
fn a_moved_resource_is_the_same_resource() {
    let before = r#"{"format_version":"1.2","resource_changes":[{"address":"aws_instance.a",
        "mode":"managed","type":"aws_instance","name":"a","provider_name":"aws",
        "change":{"actions":["update"],"before":{"ami":"x"},"after":{"ami":"y"}}}]}"#;
    let after = r#"{"format_version":"1.2","resource_changes":[{"address":"aws_instance.b",
        "previous_address":"aws_instance.a","mode":"managed","type":"aws_instance","name":"b",
        "provider_name":"aws",
        "change":{"actions":["update"],"before":{"ami":"x"},"after":{"ami":"z"}}}]}"#;
    let c = compare(&plan(before), &plan(after));
    assert!(c.added.is_empty() && c.removed.is_empty(), "{c:#?}");
    assert_eq!(c.moved.len(), 1);
    assert_eq!(
        (c.moved[0].from.as_str(), c.moved[0].to.as_str()),
        ("aws_instance.a", "aws_instance.b")
    );
    assert_eq!(c.values_changed[0].address, "aws_instance.b");
    assert_eq!(c.values_changed[0].attributes[0].path, "ami");
    assert_eq!(c.values_changed[0].attributes[0].after, "\"z\"");
}

#[test]
fn sets_are_multisets_and_the_same_unknowns_are_equal() {
    let doc = |ingress: &str, unknown: &str| {
        plan(&format!(
            r#"{{"format_version":"1.2","resource_changes":[{{"address":"aws_security_group.s",
            "mode":"managed","type":"aws_security_group","name":"s","provider_name":"aws",
            "change":{{"actions":["create"],"before":null,"after":{{"ingress":{ingress}}},
            "after_unknown":{unknown}}}}}]}}"#
        ))
    };
    let a = doc(
        r#"[{"cidr":["10.0.0.0/8","10.1.0.0/16"],"port":22},{"cidr":[],"port":443}]"#,
        r#"{"id":true}"#,
    );
    let b = doc(
        r#"[{"port":443,"cidr":[]},{"port":22,"cidr":["10.1.0.0/16","10.0.0.0/8"]}]"#,
        r#"{"id":true}"#,
    );
    assert!(compare(&a, &b).is_empty());
    // A port changed in one element: one path, the element's index in the newer plan.
    let c = doc(
        r#"[{"port":443,"cidr":[]},{"port":2222,"cidr":["10.1.0.0/16","10.0.0.0/8"]}]"#,
        r#"{"id":true}"#,
    );
    let changed = compare(&a, &c);
    let attrs = &changed.values_changed[0].attributes;
    assert_eq!(attrs.len(), 1, "{attrs:#?}");
    assert_eq!(
        (
            attrs[0].path.as_str(),
            attrs[0].before.as_str(),
            attrs[0].after.as_str()
        ),
        ("ingress[1].port", "22", "2222")
    );
    // Known now where it was unknown: a difference, the unknown side said as such.
    let d = doc(r#"[]"#, r#"{"ingress":true}"#);
    let e = doc(r#"[]"#, r#"{}"#);
    let known = compare(&d, &e);
    assert_eq!(
        known.values_changed[0].attributes[0].before,
        "(known after apply)"
    );
}

#[test]
fn a_value_marked_sensitive_in_one_plan_only_is_hidden_on_both_sides() {
    let doc = |value: &str, marks: &str| {
        plan(&format!(
            r#"{{"format_version":"1.2","resource_changes":[{{"address":"x_thing.t",
            "mode":"managed","type":"x_thing","name":"t","provider_name":"x",
            "change":{{"actions":["update"],"before":{{}},"after":{{"token_value":"{value}"}},
            "after_sensitive":{marks}}}}}]}}"#
        ))
    };
    let c = compare(
        &doc("plain-but-secret-1", "{}"),
        &doc("marked-secret-2", r#"{"token_value":true}"#),
    );
    let json = serde_json::to_string(&c).unwrap();
    assert!(!json.contains("plain-but-secret-1") && !json.contains("marked-secret-2"));
    assert_eq!(
        c.values_changed[0].attributes[0].before,
        "(sensitive value)"
    );
}

#[test]
fn no_sensitive_or_secret_named_value_in_any_output() {
    let (old, new) = pair();
    let judged = builtin_judged(&old, &new);
    let outputs = [
        serde_json::to_string(&judged).unwrap(),
        text_since(&judged),
        markdown_since(&judged),
    ];
    for out in &outputs {
        for secret in SECRETS {
            assert!(!out.contains(secret), "{secret} in {out}");
        }
    }
    // The secrets are in the fixtures: the check is not vacuous.
    let text = String::from_utf8(common::own_fixture("compare/after.json")).unwrap();
    assert!(text.contains(SECRETS[1]) && text.contains(SECRETS[3]));
}

#[test]
fn findings_and_verdict_before_and_after() {
    let (old, new) = pair();
    let judged = builtin_judged(&old, &new);
    let before = common::builtin_evaluation(&old);
    let after = common::builtin_evaluation(&new);
    assert_eq!(judged.verdict.before, before.verdict.key());
    assert_eq!(judged.verdict.after, after.verdict.key());
    // The replace is a finding of the built-in pack the older plan did not have.
    assert!(
        judged
            .findings_added
            .iter()
            .any(|f| f.address.as_deref() == Some("aws_s3_bucket.update_bucket")),
        "{:#?}",
        judged.findings_added
    );
    // The destroy's finding is resolved with the destroy.
    assert!(
        judged
            .findings_resolved
            .iter()
            .any(|f| f.address.as_deref() == Some("aws_s3_bucket.delete_bucket")),
        "{:#?}",
        judged.findings_resolved
    );
}

#[test]
fn the_paragraph_for_the_comment() {
    let (old, new) = pair();
    let judged = builtin_judged(&old, &new);
    let md = markdown_since(&judged);
    assert!(md.starts_with("**Since the last plan:** 1 new change (`aws_s3_bucket.added_bucket`: create), 1 change no longer planned (`aws_s3_bucket.delete_bucket`: delete), 1 action changed (`aws_s3_bucket.update_bucket`: update → replace)"), "{md}");
    assert!(
        md.contains(
            "planned values changed on 1 resource (`aws_s3_bucket.create_bucket`: 3 attributes)"
        ),
        "{md}"
    );
    assert!(!md.trim_end().contains('\n'), "one paragraph: {md}");
    let same = builtin_judged(&old, &old);
    assert!(same.is_empty());
    assert!(markdown_since(&same).starts_with("**Since the last plan:** nothing changed."));
}

#[test]
fn an_address_is_escaped_in_the_paragraph() {
    let c = Comparison {
        added: vec![planlens_changes::compare::Planned {
            address: "x.y[\"a`b|c\"]".to_string(),
            action: Action::Create,
        }],
        ..Comparison::default()
    };
    let judged = JudgedComparison {
        comparison: c,
        findings_added: vec![],
        findings_resolved: vec![],
        verdict: planlens::session::compare::VerdictChange {
            before: "pass".into(),
            after: "pass".into(),
        },
    };
    let md = markdown_since(&judged);
    assert!(md.contains("`x.y[\"a'b\\|c\"]`"), "{md}");
}

#[test]
fn the_paragraph_goes_under_the_comment_title_within_githubs_limit() {
    let paragraph = "**Since the last plan:** 1 new change.\n";
    let comment = "### Planlens: Plan: 1 to add.\n\nBody\n".to_string();
    assert_eq!(
        comment_with_since(comment, paragraph),
        "### Planlens: Plan: 1 to add.\n\n**Since the last plan:** 1 new change.\n\nBody\n"
    );
    let limit = planlens::share::GITHUB_COMMENT_LIMIT;
    let long = format!("### T\n\n{}\n", "x".repeat(limit - 200));
    let long_paragraph = format!("**Since the last plan:** {}\n", "y".repeat(500));
    let put = comment_with_since(long.clone(), &long_paragraph);
    assert!(
        put.len() <= limit && put.contains("the plans differ"),
        "{}",
        put.len()
    );
    let full = format!("### T\n\n{}\n", "x".repeat(limit - 20));
    assert_eq!(comment_with_since(full.clone(), &long_paragraph), full);
}

#[test]
fn a_secret_name_hides_the_value_even_without_the_loaders_marks() {
    // Parsed without the loader's masking pass: only the names say these are secrets.
    let doc = |password: &str, key: &str| {
        Document::parse(
            format!(
                r#"{{"format_version":"1.2","resource_changes":[{{"address":"aws_db_instance.main",
                "mode":"managed","type":"aws_db_instance","name":"main","provider_name":"aws",
                "change":{{"actions":["update"],"before":{{}},
                "after":{{"password":"{password}","settings":[{{"api_token":"{key}","port":1}}]}}}}}}]}}"#
            ),
            "unmasked.json".to_string(),
        )
        .map_err(|(_, e)| e)
        .unwrap()
    };
    let c = compare(&doc("pw-one-1", "tok-one-1"), &doc("pw-two-2", "tok-two-2"));
    let json = serde_json::to_string(&c).unwrap();
    for secret in ["pw-one-1", "tok-one-1", "pw-two-2", "tok-two-2"] {
        assert!(!json.contains(secret), "{secret} in {json}");
    }
    let paths: Vec<&str> = (c.values_changed[0].attributes.iter())
        .map(|a| a.path.as_str())
        .collect();
    assert_eq!(paths, ["password", "settings[0].api_token"]);
}

#[test]
fn a_no_op_that_becomes_a_change_is_new_and_the_reverse_no_longer_planned() {
    let doc = |action: &str| {
        plan(&format!(
            r#"{{"format_version":"1.2","resource_changes":[{{"address":"aws_instance.a",
            "mode":"managed","type":"aws_instance","name":"a","provider_name":"aws",
            "change":{{"actions":["{action}"],"before":{{"ami":"x"}},"after":{{"ami":"x"}}}}}}]}}"#
        ))
    };
    let c = compare(&doc("no-op"), &doc("update"));
    assert_eq!(addresses(&c.added), ["aws_instance.a"]);
    let c = compare(&doc("update"), &doc("no-op"));
    assert_eq!(addresses(&c.removed), ["aws_instance.a"]);
    assert!(compare(&doc("no-op"), &doc("no-op")).is_empty());
}

/// The page hands the last plan's file to the plan's worker as bytes (`Request::CompareFile`,
/// `Session::compare_bytes`): gzip'd, it compares as its text does through `Request::Compare`,
/// and the share link then carries it (`since_compared`) as it carries a link's plan.
#[test]
fn the_last_plans_file_as_bytes_compares_as_its_text_and_the_link_carries_it() {
    use std::io::Write;

    use planlens::load::Direct;
    use planlens::session::{OpenOptions, Request, Response, Session};

    let options = OpenOptions {
        name: "after.json".to_string(),
        mask_builtin: true,
        mask_user: Vec::new(),
        rules: None,
        labels: Default::default(),
    };
    let after = common::own_fixture("compare/after.json");
    let before = common::own_fixture("compare/before.json");
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(&before).unwrap();
    let gzip = gzip.finish().unwrap();

    let mut by_text = Session::open_bytes(after.clone(), &options, &Direct).unwrap();
    let Response::Compared(from_text) = by_text.answer(
        Request::Compare {
            other: String::from_utf8(before).unwrap(),
            rules: None,
            labels: Default::default(),
        },
        &Direct,
    ) else {
        panic!("no comparison from the text");
    };
    let mut by_bytes = Session::open_bytes(after, &options, &Direct).unwrap();
    let Response::Compared(from_bytes) =
        by_bytes.compare_bytes(gzip, None, &Default::default(), &Direct)
    else {
        panic!("no comparison from the bytes");
    };
    assert_eq!(from_bytes, from_text);
    assert_eq!(from_bytes.comparison.added.len(), 1);

    let share = |session: &mut Session, since_compared: bool| {
        let request = Request::Share {
            base: "https://example.com/planlens/".to_string(),
            view: Box::default(),
            rules: None,
            labels: Default::default(),
            by_address: None,
            policies: None,
            since: None,
            since_compared,
        };
        match session.answer(request, &Direct) {
            Response::Share { full, .. } => full,
            _ => panic!("no links"),
        }
    };
    assert!(share(&mut by_bytes, true).contains("was="));
    // Stopped comparing: the link carries the plan alone.
    assert!(!share(&mut by_bytes, false).contains("was="));
    // A file that is not a plan says so.
    let Response::Failed(message) =
        by_bytes.compare_bytes(b"not a plan".to_vec(), None, &Default::default(), &Direct)
    else {
        panic!("a text that is no plan compared");
    };
    assert!(!message.is_empty());
}

/// Two sets of plans are matched by name, the same way for the CLI and the page's roll-up: the
/// plans only in the newer set, the plans gone, and the pairs in the newer set's order.
#[test]
fn two_sets_are_matched_by_name() {
    use planlens::session::compare::{SetMatch, match_sets};
    let m = match_sets(&["net", "app", "old", "app"], &["db", "app", "net"]);
    assert_eq!(
        m,
        SetMatch {
            added: vec![0],
            removed: vec![2],
            pairs: vec![(1, 1), (0, 2)],
        }
    );
    assert_eq!(match_sets(&[], &[]), SetMatch::default());
    let m = match_sets(&["a"], &[]);
    assert_eq!((m.added.len(), m.removed, m.pairs.len()), (0, vec![0], 0));
}

/// The roll-up's rows since the last review: each plan of the newer set new or compared with its
/// namesake (how many changes differ, the verdict before → after), then the plans gone.
#[test]
fn a_set_compared_with_the_last_reviews_set_plan_by_plan() {
    use planlens::load::Direct;
    use planlens::load::set::Member;
    use planlens::session::compare::{SinceOfPlan, sets_since};
    let text = |name: &str| String::from_utf8(common::own_fixture(name)).unwrap();
    let member = |name: &str, file: &str| Member {
        name: name.to_string(),
        text: text(file),
    };
    let old = [
        member("prod/app", "compare/before.json"),
        member("prod/dns", "compare/after.json"),
        member("prod/old", "compare/before.json"),
    ];
    let new = [
        member("prod/app", "compare/after.json"),
        member("prod/dns", "compare/after.json"),
        member("prod/db", "compare/before.json"),
    ];
    let rows = sets_since(
        &old,
        &new,
        &planlens::rules::RuleSet::builtin(),
        &Default::default(),
        &Default::default(),
        &Direct,
    );
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["prod/app", "prod/dns", "prod/db", "prod/old"]);
    let (before, after) = pair();
    let judged = builtin_judged(&before, &after);
    assert_eq!(
        rows[0].since,
        SinceOfPlan::Compared {
            changes: judged.changes(),
            other: judged.other_differences(),
            verdict: judged.verdict.clone(),
        }
    );
    assert!(judged.changes() >= 3);
    assert!(matches!(
        rows[1].since,
        SinceOfPlan::Compared {
            changes: 0,
            other: 0,
            ..
        }
    ));
    assert_eq!(rows[2].since, SinceOfPlan::New);
    assert_eq!(rows[3].since, SinceOfPlan::Gone);
}

/// A plan whose only differences are a move, drift and findings (a real pair from Terraform's
/// own test data) is not "unchanged since" in a set's comparison.
#[test]
fn a_plan_that_only_moved_is_not_unchanged_since() {
    use planlens::load::Direct;
    use planlens::load::set::Member;
    use planlens::session::compare::{SinceOfPlan, sets_since};
    let Some(real) = common::real_fixtures_dir() else {
        eprintln!("SKIPPED: ../shared/fixtures/real is absent");
        return;
    };
    let read = |f: &str| Member {
        name: "net".to_string(),
        text: std::fs::read_to_string(real.join(f)).unwrap(),
    };
    let rows = sets_since(
        &[read("terraform__showjson_drift.json")],
        &[read("terraform__showjson_moved_drift.json")],
        &planlens::rules::RuleSet::builtin(),
        &Default::default(),
        &Default::default(),
        &Direct,
    );
    match &rows[0].since {
        SinceOfPlan::Compared { changes, other, .. } => {
            assert_eq!(*changes, 0);
            assert!(*other >= 3, "a move, drift appeared and gone: {other}");
        }
        other => panic!("{other:?}"),
    }
}
