//! Terraform states open as a state view that is never judged: raw `.tfstate` v4 and
//! `terraform show -json` of a state become resources by module with their attributes (sensitive
//! ones masked by the state's own marks and by secret-like names), the dependency graph from
//! `dependencies` / `depends_on`, and outputs; the headline says "State: N resources in M modules
//! (Terraform X.Y)", and no verdict, rule finding, "No changes." or pass reaches any view, link,
//! comment or CLI output.

use crate::common;
use crate::run::planlens;

use std::collections::BTreeMap;

use planlens::analysis::Analysis;
use planlens::diff::{DiffNode, NodeChange, Side, diff_change};
use planlens::graph::DepGraph;
use planlens::load::state::{is_state_text, read_state};
use planlens::load::{Direct, load_plan, load_plan_text};
use planlens::model::findings::Verdict;
use planlens::model::source::StateFacts;
use planlens::model::summary::Planning;
use planlens::model::{Document, Source};
use planlens::outputs::output_rows;
use planlens::rules::RuleSet;
use planlens::session::{OpenOptions, Session};
use planlens::share::markdown;
use planlens::{Summary, load::link};

const MODULES: &str = "states/modules.tfstate";

/// Every secret in `states/modules.tfstate` and `shown_state.json`: marked by the state, or only
/// named like a secret (`tags.deploy_token`).
const SECRETS: [&str; 8] = [
    "SECRET-STATE-OUTPUT-PASSWORD-2468",
    "SECRET-STATE-RANDOM-RESULT-1357",
    "SECRET-STATE-BCRYPT-HASH-9753",
    "SECRET-STATE-DEPLOY-TOKEN-BLUE-1122",
    "SECRET-STATE-DEPLOY-TOKEN-GREEN-3344",
    "SECRET-STATE-DB-PASSWORD-8642",
    "SECRET-STATE-MARKED-PARAMETER-5511",
    "SECRET-STATE-PASSWORD-1357",
];

fn facts(doc: &Document) -> &StateFacts {
    match &doc.source {
        Source::State(f) => f,
        other => panic!("not a state: {other:?}"),
    }
}

fn addresses(doc: &Document) -> Vec<String> {
    doc.rows
        .iter()
        .map(|r| doc.change(r).address.to_string())
        .collect()
}

fn no_secret(what: &str, text: &str) {
    for s in SECRETS {
        assert!(!text.contains(s), "{what} shows {s}");
    }
}

/// The node at `path` (attribute keys and `[i]`) of a diff tree.
fn at<'a>(node: &'a DiffNode, path: &[&str]) -> &'a DiffNode {
    path.iter().fold(node, |n, key| {
        n.children
            .iter()
            .find(|c| c.key_label() == *key)
            .unwrap_or_else(|| panic!("no {key} under {:?}", n.key))
    })
}

/// The dependency graph's edges, as `from -> to` by address, sorted.
fn edges(doc: &Document) -> Vec<String> {
    let g = DepGraph::build(doc);
    let mut edges: Vec<String> = (g.graph.edge_indices())
        .map(|e| {
            let (a, b) = g.graph.edge_endpoints(e).unwrap();
            format!("{} -> {}", g.graph[a].address, g.graph[b].address)
        })
        .collect();
    edges.sort();
    edges
}

fn all_unchanged(node: &DiffNode) -> bool {
    node.change == NodeChange::Unchanged && node.children.iter().all(all_unchanged)
}

#[test]
fn a_raw_state_opens_with_its_resources_by_module_and_its_facts() {
    let doc = common::load_own(MODULES);
    assert_eq!(
        Summary::of(&doc).headline(&doc),
        "State: 9 resources in 4 modules (Terraform 1.9.5)."
    );
    let f = facts(&doc);
    assert_eq!(f.format, "tfstate v4");
    assert_eq!(
        (f.serial, f.lineage.as_deref()),
        (Some(42), Some("8d3c1f7e-52a0-4b6e-9c1d-3e7f0a9b2c41"))
    );
    assert_eq!(
        (f.resources, f.data_sources, f.deposed, f.tainted, f.outputs),
        (9, 1, 1, 1, 3)
    );
    assert_eq!(
        f.tainted_addresses,
        ["module.app[\"green\"].aws_instance.web"]
    );
    // Grouped by module, root first; count and for_each keys as Terraform writes them.
    assert_eq!(
        doc.modules,
        [
            "",
            "module.app[\"blue\"]",
            "module.app[\"green\"]",
            "module.db"
        ]
    );
    assert_eq!(
        addresses(&doc),
        [
            "data.aws_ami.ubuntu",
            "aws_subnet.private[0]",
            "aws_subnet.private[1]",
            "aws_vpc.main",
            "random_password.db",
            "module.app[\"blue\"].aws_instance.web",
            "module.app[\"blue\"].aws_instance.web",
            "module.app[\"green\"].aws_instance.web",
            "module.db.aws_db_instance.main",
            "module.db.aws_db_subnet_group.main",
        ]
    );
    let deposed: Vec<_> = doc
        .rows
        .iter()
        .filter_map(|r| doc.change(r).deposed.as_deref().map(str::to_string))
        .collect();
    assert_eq!(deposed, ["a1b2c3d4"]);
    assert_eq!(
        doc.providers,
        ["hashicorp/aws", "hashicorp/random"],
        "providers named as in plans"
    );
    assert!(doc.rows[0].is_data);
}

#[test]
fn a_resource_shows_its_attributes_not_a_change_and_secrets_are_masked() {
    let doc = common::load_own(MODULES);
    let mut shown = String::new();
    for row in &doc.rows {
        let tree = diff_change(&doc.change(row).change).expect("a state's attributes read");
        assert!(
            all_unchanged(&tree),
            "{}: a state's detail has no change",
            doc.change(row).address
        );
        shown += &format!("{tree:?}");
    }
    no_secret("the detail pane", &shown);
    let row = |address: &str| {
        let i = addresses(&doc).iter().position(|a| a == address).unwrap();
        diff_change(&doc.change(&doc.rows[i]).change).unwrap()
    };
    let db = row("module.db.aws_db_instance.main");
    // Marked by the state's sensitive_attributes: a whole attribute, and a path into a list.
    assert_eq!(at(&db, &["password"]).after, Side::Sensitive);
    assert_eq!(
        at(&db, &["parameters", "[1]", "value"]).after,
        Side::Sensitive
    );
    assert_eq!(
        at(&db, &["parameters", "[0]", "value"]).after,
        Side::Scalar("\"500\"".to_string())
    );
    assert_eq!(
        at(&db, &["engine"]).after,
        Side::Scalar("\"postgres\"".to_string())
    );
    // Not marked by the state, masked by its secret-like name.
    let web = row("module.app[\"blue\"].aws_instance.web");
    assert_eq!(at(&web, &["tags", "deploy_token"]).after, Side::Sensitive);
    assert!(doc.masking.masked_by_name >= 2);
    assert_eq!(
        at(&row("random_password.db"), &["result"]).after,
        Side::Sensitive
    );
}

#[test]
fn outputs_are_listed_with_sensitive_ones_masked() {
    let doc = common::load_own(MODULES);
    let outputs = output_rows(&doc);
    let names: Vec<_> = outputs.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["app_urls", "db_admin_password", "vpc_id"]);
    let password = &outputs[1];
    assert!(password.sensitive);
    assert_eq!(password.diff.as_ref().unwrap().after, Side::Sensitive);
    no_secret("the outputs", &format!("{outputs:?}"));
    assert!(format!("{outputs:?}").contains("vpc-0a1b2c3d4e5f60718"));
}

#[test]
fn the_graph_is_the_recorded_dependencies() {
    let doc = common::load_own(MODULES);
    let g = DepGraph::build(&doc);
    let edges = edges(&doc);
    for expected in [
        "aws_vpc.main -> aws_subnet.private[0]",
        "aws_vpc.main -> aws_subnet.private[1]",
        "aws_subnet.private[0] -> module.db.aws_db_subnet_group.main",
        "module.db.aws_db_subnet_group.main -> module.db.aws_db_instance.main",
        "random_password.db -> module.db.aws_db_instance.main",
        "data.aws_ami.ubuntu -> module.app[\"green\"].aws_instance.web",
    ] {
        assert!(
            edges.contains(&expected.to_string()),
            "{expected} in {edges:?}"
        );
    }
    // One node per row (the deposed object included), nothing else.
    assert_eq!(g.graph.node_count(), doc.rows.len());
    // Nothing changes in a state, so the graph opens showing every resource (not an empty view
    // of "changes and their neighbours").
    let opening = g.opening_options();
    assert!(opening.show_unchanged);
    let view = g.view(&opening);
    assert_eq!(view.hidden_unchanged, 0);
    // The shown form's depends_on too.
    let shown = common::load_own("shown_state.json");
    let g = DepGraph::build(&shown);
    assert_eq!(g.graph.edge_count(), 1);
}

#[test]
fn a_state_is_never_judged_even_by_a_rule_that_fires_on_everything() {
    let everything = RuleSet::parse(
        "[[rule]]\nid = \"everything\"\nseverity = \"deny\"\nmessage = \"{address}\"\n",
    )
    .expect("the rule parses");
    // The same rule on a plan needs approval: it would fire if rules ran on states.
    let plan = common::load_own("nested_modules.json");
    let on_plan = Analysis::of(&plan).evaluate(&plan, &everything, &BTreeMap::new());
    assert_eq!(on_plan.verdict, Verdict::NeedsApproval);
    for name in [MODULES, "shown_state.json", "state.json"] {
        let doc = common::load_own(name);
        let analysis = Analysis::of(&doc);
        assert_eq!(analysis.planning, Planning::State, "{name}");
        for rules in [RuleSet::builtin(), everything.clone()] {
            let e = analysis.evaluate(&doc, &rules, &BTreeMap::new());
            assert_eq!(e.verdict, Verdict::NotAPlan, "{name}");
            assert!(e.findings.is_empty() && e.rules_run == 0, "{name}");
            assert_eq!(e.verdict.exit_code(), 3);
        }
        let headline = Summary::of(&doc).headline(&doc);
        assert!(headline.starts_with("State: "), "{headline}");
        // The comment: the state's line, no verdict, no pass, no changes.
        let e = analysis.evaluate(&doc, &RuleSet::builtin(), &BTreeMap::new());
        let comment = markdown::summary(&doc, &analysis, &e, None);
        assert!(comment.starts_with("### Planlens: State: "), "{comment}");
        assert!(comment.contains("**No verdict**"), "{comment}");
        for never in [
            "Verdict",
            "✅",
            "No changes",
            "needs approval",
            "#### Drift",
        ] {
            assert!(!comment.contains(never), "{name}: {never} in {comment}");
        }
        no_secret("the comment", &comment);
    }
    // The verdict decision itself: a state's findings never make a verdict.
    let finding = planlens::model::findings::Finding {
        rule_id: "x".into(),
        severity: planlens::model::findings::RuleSeverity::Deny,
        message: String::new(),
        resource: None,
    };
    assert_eq!(Verdict::of(&Planning::State, &[finding]), Verdict::NotAPlan);
    assert_eq!(Verdict::of(&Planning::State, &[]), Verdict::NotAPlan);
}

#[test]
fn a_full_link_of_a_state_opens_as_the_state_without_its_secrets() {
    for name in [MODULES, "shown_state.json"] {
        let doc = common::load_own(name);
        let text = link::decode(&planlens::share::full_payload(&doc)).unwrap();
        no_secret("the full link", &text);
        let back = load_plan_text(text, name).unwrap();
        assert_eq!(back.source, doc.source, "{name}: still a state");
        assert_eq!(
            Summary::of(&back).headline(&back),
            Summary::of(&doc).headline(&doc)
        );
        assert_eq!(addresses(&back), addresses(&doc));
        assert_eq!(
            Analysis::of(&back).planning,
            Planning::State,
            "{name}: never judged after the link"
        );
        // The redacted link too.
        let analysis = Analysis::of(&doc);
        let redacted = link::decode(&planlens::share::redacted_payload(
            &doc,
            &analysis,
            &RuleSet::builtin(),
            &BTreeMap::new(),
        ))
        .unwrap();
        no_secret("the redacted link", &redacted);
        let back = load_plan_text(redacted, name).unwrap();
        assert!(back.source.is_state(), "{name}: redacted");
        assert_eq!(Analysis::of(&back).planning, Planning::State);
    }
}

#[test]
fn the_page_gets_a_state_through_the_worker_index() {
    let options = OpenOptions {
        name: "terraform.tfstate".into(),
        mask_builtin: true,
        mask_user: Vec::new(),
        rules: None,
        labels: BTreeMap::new(),
    };
    let session = Session::open_bytes(common::own_fixture(MODULES), &options, &Direct).unwrap();
    let mut index = session.index(None, &BTreeMap::new());
    // The file itself comes back for a reload (as a plan's does); everything else is values-free.
    assert!(index.kept.take().is_some());
    let json = serde_json::to_string(&index).unwrap();
    no_secret("the index", &json);
    let index: planlens::session::Index = serde_json::from_str(&json).unwrap();
    let slim = index.document().unwrap();
    assert!(slim.source.is_state());
    assert_eq!(
        Summary::of(&slim).headline(&slim),
        "State: 9 resources in 4 modules (Terraform 1.9.5)."
    );
    let analysis = Analysis::of(&slim);
    assert_eq!(analysis.planning, Planning::State);
    assert_eq!(
        index.evaluation.as_ref().unwrap().verdict,
        Verdict::NotAPlan
    );
    assert_eq!(
        analysis
            .evaluate(&slim, &RuleSet::builtin(), &BTreeMap::new())
            .verdict,
        Verdict::NotAPlan
    );
}

#[test]
fn read_state_is_the_entry_point_for_other_readers() {
    let text = String::from_utf8(common::own_fixture(MODULES)).unwrap();
    assert!(is_state_text(&text));
    assert!(is_state_text(
        &String::from_utf8(common::own_fixture("shown_state.json")).unwrap()
    ));
    assert!(!is_state_text(
        &String::from_utf8(common::own_fixture("nested_modules.json")).unwrap()
    ));
    let doc = read_state(text.clone(), "tfstate-default-app").unwrap();
    assert!(doc.source.is_state());
    assert_eq!(
        doc.source_text(),
        text,
        "the user's text is kept for reloads"
    );
    // Unmasked until the one masking pass runs.
    let masked = planlens::load::mask::apply(doc, &Default::default()).unwrap();
    assert!(masked.masking.masked_by_name >= 2);
}

#[test]
fn old_and_future_state_versions_are_refused_with_a_message() {
    let v3 = r#"{"version":3,"terraform_version":"0.11.14","serial":1,"lineage":"x","modules":[{"path":["root"],"resources":{}}]}"#;
    let err = load_plan_text(v3.into(), "old.tfstate")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("This looks like a Terraform state, but it is a version 3 state"),
        "{err}"
    );
    // An encrypted OpenTofu state is never shown as an empty one.
    let encrypted = r#"{"serial":1,"lineage":"x","meta":{"key_provider.pbkdf2.state":"e30="},"encrypted_data":"AAAA","encryption_version":"v0"}"#;
    let err = load_plan_text(encrypted.into(), "enc.tfstate")
        .unwrap_err()
        .to_string();
    assert!(err.contains("it is encrypted"), "{err}");
    let v5 = r#"{"version":5,"lineage":"x","resources":[]}"#;
    let err = load_plan_text(v5.into(), "new.tfstate")
        .unwrap_err()
        .to_string();
    assert!(err.contains("version 5 state"), "{err}");
    // A legacy flat map (a state upgraded from 0.11) still reads, as strings.
    let flat = r#"{"version":4,"terraform_version":"0.12.0","serial":0,"lineage":"y","outputs":{},"resources":[{"mode":"managed","type":"null_resource","name":"bar","provider":"provider.null","instances":[{"schema_version":0,"attributes_flat":{"id":"5388","triggers.%":"1"}}]}]}"#;
    let doc = load_plan_text(flat.into(), "flat.tfstate").unwrap();
    assert_eq!(addresses(&doc), ["null_resource.bar"]);
    let tree = diff_change(&doc.change(&doc.rows[0]).change).unwrap();
    assert_eq!(at(&tree, &["id"]).after, Side::Scalar("\"5388\"".into()));
    assert_eq!(doc.providers, ["null"]);
}

/// `terraform show -json` of a Terraform 1.5 state whose resources are all in modules (the root
/// module has only `child_modules`) and which carries `checks`: a plan-like key, but `values` says
/// state. It was headlined "No changes." and passed.
const MODULES_AND_CHECKS: &str = "states/shown_state_modules_checks.json";

#[test]
fn a_shown_state_with_only_child_modules_and_checks_is_a_state_never_judged() {
    let doc = common::load_own(MODULES_AND_CHECKS);
    assert!(doc.source.is_state(), "{:?}", doc.source);
    assert_eq!(
        addresses(&doc),
        [
            "module.web.aws_s3_bucket.site",
            "module.web.random_password.admin"
        ]
    );
    let path = format!("tests/fixtures/{MODULES_AND_CHECKS}");
    let (code, out, err) = planlens(&["check", &path]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(!out.contains("pass"), "{out}");
    assert!(
        err.contains("This is a Terraform state, not a plan"),
        "{err}"
    );
    let (code, out, err) = planlens(&["summary", &path]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("State: 2 resources in 1 module (Terraform 1.5.7)."),
        "{out}"
    );
    assert!(!out.contains("SECRET-STATE-CHECKS-RESULT-4242"), "{out}");
}

#[test]
fn the_cli_prints_the_state_and_check_never_passes_it() {
    let path = "tests/fixtures/states/modules.tfstate";
    let (code, out, err) = planlens(&["summary", path]);
    assert_eq!(code, 0, "{err}");
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("State: 9 resources in 4 modules (Terraform 1.9.5).")
    );
    assert_eq!(lines.next(), Some("    data.aws_ami.ubuntu"));
    assert!(out.contains("(deposed object a1b2c3d4)"), "{out}");
    assert!(
        out.contains("    module.app[\"green\"].aws_instance.web (tainted)\n"),
        "{out}"
    );
    let (code, out, err) = planlens(&["check", path]);
    assert_eq!(code, 3);
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("This is a Terraform state, not a plan"),
        "{err}"
    );
    let (code, out, _) = planlens(&["check", path, "--format", "json"]);
    assert_eq!(code, 3);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["verdict"], "not-a-plan");
    assert_eq!(v["rules"], 0);
    let (code, out, _) = planlens(&["summary", path, "--format", "markdown"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("### Planlens: State: 9 resources"), "{out}");
    assert!(!out.contains("Verdict"), "{out}");
    let (code, out, err) = planlens(&["graph", path]);
    assert_eq!(code, 0);
    assert!(err.is_empty(), "no warning about configuration: {err}");
    assert!(
        out.contains("\"aws_vpc.main\" -> \"aws_subnet.private[0]\""),
        "{out}"
    );
    // Rego policies do not run on a state either: one that denies everything finds nothing.
    let policy = std::env::temp_dir().join(format!("planlens-always-{}.rego", std::process::id()));
    std::fs::write(
        &policy,
        "package main\n\ndeny contains msg if {\n\tmsg := \"always\"\n}\n",
    )
    .unwrap();
    let policy = policy.to_str().unwrap();
    let nested = "tests/fixtures/nested_modules.json";
    let (code, out, _) = planlens(&["check", nested, "--policy", policy, "--format", "json"]);
    assert_eq!(code, 2, "the policy denies on a plan: {out}");
    let (code, out, _) = planlens(&["check", path, "--policy", policy, "--format", "json"]);
    assert_eq!(code, 3);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["verdict"], "not-a-plan");
    assert_eq!(v["findings"], serde_json::json!([]));
    assert_eq!(v["rules"], 0);
    std::fs::remove_file(policy).ok();
    // Drift: a state cannot say, and never says "No drift".
    let (code, out, err) = planlens(&["drift", path]);
    assert_eq!(code, 3);
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("A state cannot show drift"), "{err}");
    for command in ["summary", "check", "graph", "drift"] {
        let (_, out, err) = planlens(&[command, path]);
        no_secret(command, &(out + &err));
    }
    // A state in a gzip file, as the controller's Secret holds it once decoded.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, &common::own_fixture(MODULES)).unwrap();
    let doc = load_plan(gz.finish().unwrap(), "tfstate.gz").unwrap();
    assert!(doc.source.is_state());
}

/// The same Terraform 1.1.0 state, raw and shown (terraform-json's testdata, MPL-2.0: see
/// tests/fixtures/states/terraform-json/NOTICE).
const REAL_RAW: &str = "states/terraform-json/110_sensitive_values.tfstate";
const REAL_SHOWN: &str = "states/terraform-json/110_sensitive_values.state.json";

#[test]
fn a_real_state_reads_the_same_raw_and_shown() {
    let raw = common::load_own(REAL_RAW);
    let shown = common::load_own(REAL_SHOWN);
    let line = "State: 7 resources in 2 modules (Terraform 1.1.0).";
    assert_eq!(Summary::of(&raw).headline(&raw), line);
    assert_eq!(Summary::of(&shown).headline(&shown), line);
    assert_eq!(facts(&raw).serial, Some(8));
    assert_eq!(facts(&shown).format, "terraform show -json (format 0.2)");
    let mut a = addresses(&raw);
    let mut b = addresses(&shown);
    a.sort();
    b.sort();
    assert_eq!(a, b);
    assert_eq!(raw.modules, shown.modules);
    assert_eq!(raw.providers, shown.providers);
    // The same attributes, row by row.
    for (r, row) in raw.rows.iter().enumerate() {
        let address = &raw.change(row).address;
        let s = shown
            .rows
            .iter()
            .find(|x| shown.change(x).address == *address)
            .unwrap();
        assert_eq!(
            format!("{:?}", diff_change(&raw.change(&raw.rows[r]).change)),
            format!("{:?}", diff_change(&shown.change(s).change)),
            "{address}"
        );
    }
    // The same graph and outputs; the sensitive output masked in both.
    assert_eq!(edges(&raw), edges(&shown));
    assert_eq!(edges(&raw).len(), 4);
    assert_eq!(output_rows(&raw), output_rows(&shown));
    let foo = output_rows(&raw)
        .into_iter()
        .find(|o| o.name == "foo")
        .unwrap();
    assert!(foo.sensitive);
    assert_eq!(foo.diff.unwrap().after, Side::Sensitive);
}

#[test]
fn edited_states_never_panic_and_bad_shapes_say_so() {
    for text in [
        r#"{"version":4,"lineage":"x","resources":[{"instances":null}]}"#,
        r#"{"version":4,"lineage":"x","resources":[{"type":"a","name":"b","instances":[{"attributes":5,"sensitive_attributes":[[{"type":"index","value":{"value":-1}}],7,{"a":1}],"index_key":true}]}]}"#,
        r#"{"version":4,"lineage":"x","resources":[{"module":"module.a[","type":"a","name":"b","mode":"other","instances":[{"attributes":{"x":1}}]}]}"#,
        r#"{"format_version":"1.0","values":{"root_module":{"resources":[{"address":"","type":"t","name":"n","values":[1,2]}],"child_modules":[{"address":"module.m","resources":[{"address":"x.y","index":{"a":1}}]}]}}}"#,
    ] {
        let doc =
            load_plan_text(text.into(), "edited.tfstate").unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(doc.source.is_state(), "{text}");
        for row in &doc.rows {
            let _ = diff_change(&doc.change(row).change);
        }
        let _ = DepGraph::build(&doc);
        assert!(!addresses(&doc).iter().any(String::is_empty), "{text}");
    }
    let err = load_plan_text(
        r#"{"version":4,"lineage":"x","resources":"x"}"#.into(),
        "bad.tfstate",
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with("This looks like a Terraform state, but it does not have that format's shape: invalid type"),
        "{err}"
    );
}
