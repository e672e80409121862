//! The bodies of the fuzz targets, one function each, shared by the cargo-fuzz binaries
//! (`fuzz/fuzz_targets/*.rs`, nightly) and the regression replay (`tests/core/fuzz_regressions.rs` in
//! the root package, stable, which includes this file with `#[path]`): a crash found by fuzzing is
//! replayed by the very code that found it. Only the root package's dependencies may be used here.
//!
//! Every target opens its input the way the app and the CLI do (`Session::open_bytes`, i.e.
//! `load::load_plan_with` with the built-in mask) and then asserts what must hold, not only that
//! nothing panics (the oracles are written next to each target).

use std::collections::BTreeMap;
use std::io::Write;

use serde::{Deserialize, Serialize};

use planlens::Summary;
use planlens::analysis::Analysis;
use planlens::load::Direct;
use planlens::model::mask::Mask;
use planlens::model::{Document, RowSource};
use planlens::rules::RuleSet;
use planlens::session::{Index, OpenOptions, Session};
use planlens::share::markdown::{self, CommentLink, choose_link, full_link_for_comment};

/// Every target, by the name of its cargo-fuzz binary.
pub const TARGETS: &[&str] = &[
    "load",
    "wrapped",
    "diff",
    "graph",
    "markdown",
    "link",
    "redacted",
    "rules",
    "rego",
    "structured",
];

/// Runs target `name` on `data` (the replay's entry; the structured target's regression files
/// are [`Case`] JSON, not the raw bytes `arbitrary` read).
pub fn run(name: &str, data: &[u8]) {
    match name {
        "load" => load(data),
        "wrapped" => wrapped(data),
        "diff" => diff(data),
        "graph" => graph(data),
        "markdown" => markdown(data),
        "link" => link(data),
        "redacted" => redacted(data),
        "rules" => rules(data),
        "rego" => rego(data),
        "structured" => {
            let case: Case = serde_json::from_slice(data).expect("a structured case's JSON");
            structured(&case)
        }
        other => panic!("no fuzz target {other}"),
    }
}

const BASE: &str = "https://planlens.test/";

fn options() -> OpenOptions {
    OpenOptions {
        name: "fuzz.json".to_string(),
        mask_builtin: true,
        mask_user: Vec::new(),
        rules: None,
        labels: labels(),
    }
}

/// The built-in rule pack, parsed once (the session parses it again where the app does).
fn builtin() -> &'static RuleSet {
    static BUILTIN: std::sync::OnceLock<RuleSet> = std::sync::OnceLock::new();
    BUILTIN.get_or_init(RuleSet::builtin)
}

fn labels() -> BTreeMap<String, String> {
    BTreeMap::from([("environment".to_string(), "prod".to_string())])
}

/// Opens bytes as the app does (the one entry point the CLI and the session use).
fn open(data: &[u8]) -> Option<Session> {
    Session::open_bytes(data.to_vec(), &options(), &Direct).ok()
}

/// What the list shows of every row: address, action, where it comes from.
fn rows(doc: &Document) -> Vec<String> {
    doc.rows
        .iter()
        .map(|r| {
            let source = match r.source {
                RowSource::Planned(_) => "planned",
                RowSource::Deferred(_) => "deferred",
                RowSource::Drift(_) => "drift",
            };
            format!("{} {} {source}", doc.change(r).address, r.action.key())
        })
        .collect()
}

/// Everything the page derives from an open document, and the session's index read back as the
/// page reads it (through JSON), which must show the same rows and counts.
fn views(session: &Session) {
    let doc = session.document();
    let summary = Summary::of(doc);
    let _ = summary.headline(doc);
    let _ = planlens::checks::check_rows(doc);
    let _ = planlens::outputs::output_rows(doc);
    let _ = planlens::drift::Drift::of(doc);
    let index = session.index(None, &labels());
    let json = serde_json::to_string(&index).expect("an index writes as JSON");
    let back: Index = serde_json::from_str(&json).expect("an index reads back from its JSON");
    let slim = back.document().expect("a session's own index opens");
    assert_eq!(rows(doc), rows(&slim), "the index shows other rows");
    assert_eq!(summary, Summary::of(&slim), "the index counts otherwise");
}

/// Any bytes through the loader: plan JSON, plan logs, text plans, states, driftctl reports,
/// Kubernetes JSON and YAML, gzip, UTF-16, CI wrapper lines (detection decides); and the same text
/// split into the plans it holds one after another (`load::set`).
pub fn load(data: &[u8]) {
    if let Some(session) = open(data) {
        views(&session);
    }
    // The same text as a set of plans one after another. Oracle: the documents found are in
    // order, do not overlap, and each is a plan's JSON on its own.
    if let Some(ranges) = planlens::load::set::split_documents(&String::from_utf8_lossy(data)) {
        let text = String::from_utf8_lossy(data);
        assert!(ranges.len() > 1, "one document is not a set");
        for pair in ranges.windows(2) {
            assert!(
                pair[0].end <= pair[1].start,
                "documents overlap: {ranges:?}"
            );
        }
        for range in ranges {
            serde_json::from_str::<serde_json::Value>(&text[range])
                .expect("a document found is JSON on its own");
        }
    }
    // The bytes as files opened together (an archive, a comment of several projects, a log of
    // several units). Oracle: never a panic; a failure is only an archive's limit; every member
    // has a name, and no two the same.
    match planlens::load::set::expand(vec![("fuzz/input".to_string(), data.to_vec())]) {
        Ok(expanded) => {
            let mut names: Vec<&str> = expanded.members.iter().map(|m| m.name.as_str()).collect();
            assert!(
                names.iter().all(|n| !n.is_empty()),
                "a member without a name"
            );
            names.sort_unstable();
            let count = names.len();
            names.dedup();
            assert_eq!(names.len(), count, "two members of one name");
        }
        Err(e) => assert!(
            matches!(e, planlens::load::LoadError::ArchiveTooLarge { .. }),
            "expand failed other than on a limit: {e}"
        ),
    }
}

/// The loader's decodings made reachable: the first byte chooses how the rest is wrapped (gzip,
/// UTF-16 LE/BE with a BOM, GitHub Actions wrapper lines, a tf-controller plan Secret as JSON or
/// YAML, or a plan log line), so mutations of a plain plan reach the readers behind them.
pub fn wrapped(data: &[u8]) {
    let Some((&how, rest)) = data.split_first() else {
        return;
    };
    if let Some(session) = open(&wrap(how, rest)) {
        views(&session);
    }
}

/// The ways [`wrapped`] wraps its input, by its first byte (modulo their number).
pub const WRAPS: u8 = 7;

/// Wraps `rest` the way [`wrapped`]'s first byte `how` says.
pub fn wrap(how: u8, rest: &[u8]) -> Vec<u8> {
    use base64::Engine;
    let gzip = |bytes: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(bytes).expect("gzip into memory");
        e.finish().expect("gzip into memory")
    };
    let text = String::from_utf8_lossy(rest);
    match how % WRAPS {
        0 => gzip(rest),
        1 => {
            let mut out = vec![0xFF, 0xFE];
            out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
            out
        }
        2 => {
            let mut out = vec![0xFE, 0xFF];
            out.extend(text.encode_utf16().flat_map(u16::to_be_bytes));
            out
        }
        3 => format!(
            "[command]/home/runner/work/_temp/abc/terraform-bin show -json tfplan\n{text}\n\
             ::debug::Terraform exited with code 0.\n::debug::stdout: {}\n::set-output name=exitcode::0\n",
            text.lines().next().unwrap_or_default()
        )
        .into_bytes(),
        4 | 5 => {
            let data = base64::engine::general_purpose::STANDARD.encode(gzip(rest));
            if how % WRAPS == 4 {
                serde_json::json!({
                    "apiVersion": "v1",
                    "kind": "Secret",
                    "metadata": {
                        "annotations": {"encoding": "gzip", "savedPlan": "plan-main-1"},
                        "labels": {
                            "infra.contrib.fluxcd.io/plan-name": "fuzz.json",
                            "infra.contrib.fluxcd.io/plan-workspace": "default"
                        },
                        "name": "tfplan-default-fuzz.json",
                        "namespace": "fuzz"
                    },
                    "type": "Opaque",
                    "data": {"tfplan": data}
                })
                .to_string()
                .into_bytes()
            } else {
                format!(
                    "apiVersion: v1\nkind: Secret\nmetadata:\n  annotations:\n    encoding: gzip\n    \
                     savedPlan: plan-main-1\n  labels:\n    infra.contrib.fluxcd.io/plan-name: fuzz.json\n    \
                     infra.contrib.fluxcd.io/plan-workspace: default\n  name: tfplan-default-fuzz.json\n  \
                     namespace: fuzz\ntype: Opaque\ndata:\n  tfplan: {data}\n"
                )
                .into_bytes()
            }
        }
        _ => {
            // A plan log: a version line then the rest as one more message line.
            let mut out = br#"{"@level":"info","@message":"Terraform 1.9.5","@module":"terraform.ui","@timestamp":"2024-01-01T00:00:00Z","terraform":"1.9.5","type":"version","ui":"1.2"}"#.to_vec();
            out.push(b'\n');
            out.extend_from_slice(rest);
            out
        }
    }
}

/// The attribute diff of every row and every drift entry of a loaded document.
pub fn diff(data: &[u8]) {
    let Some(session) = open(data) else { return };
    let doc = session.document();
    for row in &doc.rows {
        let _ = planlens::diff::diff_change(&doc.change(row).change);
    }
    for d in &doc.plan().resource_drift {
        let _ = planlens::diff::diff_change(&d.change);
    }
}

/// The dependency graph: built, folded into the opening view and every-resource view, laid out,
/// and exported as SVG, DOT and JSON.
pub fn graph(data: &[u8]) {
    let Some(session) = open(data) else { return };
    let doc = session.document();
    draw(doc);
}

fn draw(doc: &Document) {
    use planlens::graph::view::{HighlightOptions, ViewOptions};
    let analysis = Analysis::of(doc);
    let g = analysis.graph(doc);
    let _ = planlens::graph::export::opening_svg(g, &doc.name);
    let _ = g.to_dot();
    let _ = g.to_json();
    let all = ViewOptions {
        collapsed: Default::default(),
        show_unchanged: true,
    };
    let view = g.view(&all);
    let lit = view.highlight(
        g,
        &HighlightOptions {
            selected: g.graph.node_indices().next(),
            upstream: true,
            destructive: true,
        },
    );
    let _ = planlens::graph::export::view_to_svg(g, &view, &lit, "fuzz");
    let folded = g.view(&ViewOptions {
        collapsed: g.default_collapsed(),
        show_unchanged: false,
    });
    assert!(
        folded.layout.width.is_finite() && folded.layout.height.is_finite(),
        "a layout of infinite size"
    );
}

/// The PR comment with its link, as `planlens summary --format markdown --base …` writes it.
/// Oracle: never longer than GitHub accepts.
pub fn markdown(data: &[u8]) {
    let Some(session) = open(data) else { return };
    let text = comment(session.document(), builtin());
    assert!(
        text.len() <= planlens::share::GITHUB_COMMENT_LIMIT,
        "a comment of {} bytes",
        text.len()
    );
}

/// The comment and the link it carries, as the CLI chooses it.
fn comment(doc: &Document, rules: &RuleSet) -> String {
    let analysis = Analysis::of(doc);
    let labels = labels();
    let evaluation = analysis.evaluate(doc, rules, &labels);
    let view = Default::default();
    let full = planlens::share::full_link(BASE, doc, &view, &Direct);
    let redacted =
        planlens::share::redacted_link(BASE, doc, &analysis, rules, &labels, &view, None);
    let link: CommentLink = choose_link(full_link_for_comment(doc, full), None, redacted);
    markdown::summary(doc, &analysis, &evaluation, Some(&link))
}

/// A share link's payload (the `p=` of the fragment) and a whole fragment: decoded, then opened
/// as the app opens a link's plan, and read as a glance (`g=`). Oracle: any text encodes to a payload that decodes to it.
pub fn link(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = planlens::load::fragment::Fragment::parse(&text);
    if let Ok(plan) = planlens::load::link::decode(text.trim()) {
        let _ = Session::open_text(plan, &options(), &Direct);
    }
    // The same payload as a link's glance (`g=`), which the first paint reads.
    let _ = planlens::session::glance::Glance::read(text.trim());
    let payload = planlens::load::link::encode(&text);
    assert_eq!(
        planlens::load::link::decode(&payload).as_deref(),
        Ok(text.as_ref()),
        "a payload that does not decode to its text"
    );
}

/// A redacted link's JSON through its reader, then everything a redacted document feeds: the
/// diff, the graph, the comment and a redacted link made again. Oracle: the link made
/// from it reopens with the same rows.
pub fn redacted(data: &[u8]) {
    let text = String::from_utf8_lossy(data).into_owned();
    let Ok(doc) = planlens::load::redacted::read(text, "fuzz.json") else {
        return;
    };
    for row in &doc.rows {
        let _ = planlens::diff::diff_change(&doc.change(row).change);
    }
    draw(&doc);
    let _ = comment(&doc, builtin());
    reopen_redacted(&doc);
}

/// A redacted link of `doc`, decoded and opened again: the same rows.
fn reopen_redacted(doc: &Document) -> String {
    let analysis = Analysis::of(doc);
    let payload = planlens::share::redacted_payload(doc, &analysis, builtin(), &labels());
    let text = planlens::load::link::decode(&payload).expect("a redacted payload decodes");
    let again = planlens::load::load_plan_text(text.clone(), &doc.name)
        .unwrap_or_else(|e| panic!("a redacted link does not reopen: {e}"));
    assert_eq!(
        rows(doc),
        rows(&again),
        "a redacted link reopens other rows"
    );
    text
}

/// Plans the rule and policy targets evaluate on: values under secret names, sensitivity marks,
/// drift, modules.
const PLANS: &[&str] = &[
    include_str!("../../tests/fixtures/tf0_14_unmarked_secrets.json"),
    include_str!("../../tests/fixtures/share_secrets.json"),
    include_str!("../../tests/fixtures/drift_effects.json"),
    include_str!("../../tests/fixtures/nested_modules.json"),
];

fn plans() -> &'static [(Document, Vec<String>)] {
    static PLANS_OPEN: std::sync::OnceLock<Vec<(Document, Vec<String>)>> =
        std::sync::OnceLock::new();
    PLANS_OPEN.get_or_init(|| {
        PLANS
            .iter()
            .map(|text| {
                let doc = planlens::load::load_plan(text.as_bytes().to_vec(), "fuzz.json")
                    .expect("a fixture opens");
                (doc, secrets_in(text))
            })
            .collect()
    })
}

/// Strings of a plan's JSON under secret-like keys or marked sensitive (longer than three
/// characters: shorter ones match anywhere by chance).
fn secrets_in(text: &str) -> Vec<String> {
    use serde_json::Value;
    // Keys whose values are no values (as crates/cli/tests/cli/secrets.rs): what refers to other objects, what
    // happens to an output, driftctl's alerts by type, a variable's prose.
    fn not_a_value(key: &str) -> bool {
        matches!(key, "references" | "actions" | "alerts" | "description")
    }
    fn strings(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|i| strings(i, out)),
            Value::Object(map) => (map.iter())
                .filter(|(k, _)| !not_a_value(k))
                .for_each(|(_, i)| strings(i, out)),
            _ => {}
        }
    }
    fn named(v: &Value, mask: &Mask, out: &mut Vec<String>) {
        match v {
            Value::Array(items) => items.iter().for_each(|i| named(i, mask, out)),
            Value::Object(map) => {
                for (k, v) in map.iter().filter(|(k, _)| !not_a_value(k)) {
                    if mask.matches(k) {
                        strings(v, out);
                    } else {
                        named(v, mask, out);
                    }
                }
            }
            _ => {}
        }
    }
    fn under_marks(value: &Value, marks: &Value, out: &mut Vec<String>) {
        match (value, marks) {
            (v, Value::Bool(true)) => strings(v, out),
            (Value::Object(v), Value::Object(m)) => {
                for (k, mark) in m {
                    if let Some(x) = v.get(k) {
                        under_marks(x, mark, out);
                    }
                }
            }
            (Value::Array(v), Value::Array(m)) => v
                .iter()
                .zip(m)
                .for_each(|(x, mark)| under_marks(x, mark, out)),
            _ => {}
        }
    }
    fn marked(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                for (value, marks) in [("before", "before_sensitive"), ("after", "after_sensitive")]
                {
                    if let (Some(value), Some(marks)) = (map.get(value), map.get(marks)) {
                        under_marks(value, marks, out);
                    }
                }
                map.values().for_each(|x| marked(x, out));
            }
            Value::Array(items) => items.iter().for_each(|x| marked(x, out)),
            _ => {}
        }
    }
    let v: Value = serde_json::from_str(text).expect("a fixture is JSON");
    let mut out = Vec::new();
    named(&v, &Mask::default(), &mut out);
    marked(&v, &mut out);
    out.retain(|s| s.len() > 3);
    out.sort();
    out.dedup();
    out
}

fn assert_hidden(what: &str, text: &str, secrets: &[String]) {
    for s in secrets {
        assert!(!text.contains(s.as_str()), "{what} shows the secret {s:?}");
    }
}

/// A TOML rule file: parsed, and when it parses evaluated on plans with secrets, whose findings,
/// comment and redacted link must never show a secret (rule messages may try to print them).
pub fn rules(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(rules) = RuleSet::parse(text) else {
        return;
    };
    for (doc, secrets) in plans() {
        let analysis = Analysis::of(doc);
        let evaluation = analysis.evaluate(doc, &rules, &labels());
        assert_hidden("a finding", &format!("{:?}", evaluation.findings), secrets);
        let markdown = comment(doc, &rules);
        assert_hidden("the comment", &markdown, secrets);
        let redacted = planlens::load::link::decode(&planlens::share::redacted_payload(
            doc,
            &analysis,
            &rules,
            &labels(),
        ))
        .expect("a redacted payload decodes");
        assert_hidden("the redacted link", &redacted, secrets);
    }
}

/// A Rego policy file: parsed, compiled and evaluated on a plan as `planlens check --policy` does
/// (conftest's shape unless its package names another), with a short time limit (a runaway
/// policy is stopped by it, well within the fuzzer's one second).
pub fn rego(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let files = [planlens::policy::PolicyFile::new("fuzz.rego", text)];
    let options = planlens::policy::Options {
        time_limit_ms: Some(50),
        ..Default::default()
    };
    // One plan: a runaway policy's builtins (numbers.range of a million) run before the time
    // limit is checked, and two plans' worth came near the second on the shared machine.
    for (doc, _) in &plans()[..1] {
        if let Ok((outcome, _)) = planlens::policy::evaluate(&files, doc, &labels(), &options) {
            let evaluation = Analysis::of(doc).evaluate(doc, builtin(), &labels());
            let _ = planlens::policy::judge(evaluation, &outcome, doc);
        }
    }
}

/// A plan made by the structured target from `arbitrary` values (`fuzz/src/generate.rs`),
/// serialized as `terraform show -json` writes it, with what was generated beside it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Case {
    /// The plan's JSON text.
    pub plan: String,
    /// Each resource change as generated, in order.
    pub changes: Vec<CaseChange>,
    /// Entries of `resource_drift`.
    pub drift_entries: usize,
    /// The actions of every output change.
    pub output_actions: Vec<Vec<String>>,
    /// Every string written under a secret-like name or marked sensitive.
    pub secrets: Vec<String>,
}

/// One generated resource change.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CaseChange {
    /// Its address.
    pub address: String,
    /// Its `actions` array.
    pub actions: Vec<String>,
    /// A data source.
    pub data: bool,
    /// It carries `importing`.
    pub importing: bool,
    /// Its `previous_address`.
    pub previous_address: Option<String>,
}

/// The counts of a generated plan, counted here from the generated actions, apart from
/// `Summary::of`: Terraform's own rules (`Plan: N to import, N to add, …`).
fn expected_summary(case: &Case, doc: &Document) -> Summary {
    let mut s = Summary {
        // The tool decides only which `Plan:` line is written, not a count: taken as the
        // document says (the counts below are the oracle).
        tool: planlens::model::summary::Tool::of(doc),
        drifted: case.drift_entries,
        resources: case.changes.len(),
        instances: doc.rows.len(),
        output_changes: (case.output_actions.iter())
            .filter(|a| a.as_slice() != ["no-op"])
            .count(),
        ..Summary::default()
    };
    for c in &case.changes {
        let moved = c.previous_address.as_ref().is_some_and(|p| *p != c.address);
        s.moves += usize::from(moved);
        let actions: Vec<&str> = c.actions.iter().map(String::as_str).collect();
        // Terraform lists everything but plain no-ops and deletes of data sources.
        let listed = match actions.as_slice() {
            ["no-op"] => moved || c.importing,
            ["delete"] => !c.data,
            _ => true,
        };
        if !listed {
            continue;
        }
        s.shown += 1;
        s.import += usize::from(c.importing);
        match actions.as_slice() {
            ["create"] => s.add += 1,
            ["read"] => s.reads += 1,
            ["update"] => s.change += 1,
            ["delete"] => s.destroy += 1,
            ["forget"] => s.forget += 1,
            ["delete", "create"] | ["create", "delete"] => {
                s.replace += 1;
                s.add += 1;
                s.destroy += 1;
            }
            ["create", "forget"] => {
                s.replace += 1;
                s.add += 1;
                s.forget += 1;
            }
            _ => {}
        }
    }
    s
}

fn planned_rows(doc: &Document) -> Vec<String> {
    let mut rows: Vec<String> = (doc.rows.iter())
        .filter(|r| matches!(r.source, RowSource::Planned(_)))
        .map(|r| format!("{} {}", doc.change(r).address, r.action.key()))
        .collect();
    rows.sort();
    rows
}

/// The structured target: a generated plan opens with the generated rows and counts; no secret
/// reaches the full link, the redacted link or the comment; the full link reopens as the same
/// plan and the redacted link with the same rows; every analysis and writer runs.
pub fn structured(case: &Case) {
    let session = Session::open_bytes(case.plan.clone().into_bytes(), &options(), &Direct)
        .unwrap_or_else(|e| panic!("a generated plan is refused: {e}\n{}", case.plan));
    let doc = session.document();
    let mut generated: Vec<String> = (case.changes.iter())
        .map(|c| {
            let names: Vec<&str> = c.actions.iter().map(String::as_str).collect();
            let action = planlens::model::Action::from_names(&names).expect("generated actions");
            format!("{} {}", c.address, action.key())
        })
        .collect();
    generated.sort();
    assert_eq!(planned_rows(doc), generated, "rows other than generated");
    assert_eq!(Summary::of(doc), expected_summary(case, doc), "counts");
    views(&session);
    for row in &doc.rows {
        let _ = planlens::diff::diff_change(&doc.change(row).change);
    }
    for d in &doc.plan().resource_drift {
        let _ = planlens::diff::diff_change(&d.change);
    }
    draw(doc);

    let full = planlens::load::link::decode(&planlens::share::full_payload(doc))
        .expect("a full payload decodes");
    assert_hidden("the full link", &full, &case.secrets);
    let again = planlens::load::load_plan_text(full, &doc.name)
        .unwrap_or_else(|e| panic!("a full link does not reopen: {e}"));
    assert_eq!(
        planned_rows(doc),
        planned_rows(&again),
        "a full link's rows"
    );
    assert_eq!(
        Summary::of(doc),
        Summary::of(&again),
        "a full link's counts"
    );

    let redacted = reopen_redacted(doc);
    assert_hidden("the redacted link", &redacted, &case.secrets);
    let text = comment(doc, builtin());
    assert_hidden("the comment", &text, &case.secrets);
    assert!(text.len() <= planlens::share::GITHUB_COMMENT_LIMIT);
}
