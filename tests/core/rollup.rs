//! The roll-up of plans opened together (issue 28): one row per plan made by the one-plan path,
//! sorted by what needs a person, the peers' headline, the worst verdict, a search across every
//! plan, labels per plan name from the rule file, ONE comment within GitHub's limit, and the
//! links that carry the set.

use std::collections::BTreeMap;

use crate::common;

use planlens::fleet::plans::{self, PlanCounts, PlanRow, headline, search_changes, worst_verdict};
use planlens::fleet::{Attention, FleetFilter, FleetIndex};
use planlens::load::Direct;
use planlens::load::fragment::{Fragment, LinkView};
use planlens::load::set::{Member, read_payload};
use planlens::model::findings::Verdict;
use planlens::rules::RuleSet;
use planlens::session::set::{row_of, rows};
use planlens::session::share::GITHUB_COMMENT_LIMIT;
use planlens::session::share::markdown::CommentLink;
use planlens::session::share::set::{comment, rollup_link, set_link};
use planlens::session::{OpenOptions, Opened, Session};

fn options() -> OpenOptions {
    OpenOptions {
        name: String::new(),
        mask_builtin: true,
        mask_user: Vec::new(),
        rules: None,
        labels: BTreeMap::new(),
    }
}

fn member(name: &str, fixture: &str) -> Member {
    Member {
        name: name.to_string(),
        text: String::from_utf8(common::own_fixture(fixture)).unwrap(),
    }
}

/// Three plans as a monorepo PR carries them: one failed, one destroys, one only drifted.
fn three() -> Vec<Member> {
    vec![
        member("prod/network", "drift_set_and_deleted.json"),
        member("prod/db", "plan_errored.json"),
        member("dev/app", "noop_with_delete_reason.json"),
    ]
}

#[test]
fn each_plan_is_a_row_made_by_the_one_plan_path() {
    let members = three();
    let rows = rows(&members, &options(), &RuleSet::builtin(), &Direct);
    assert_eq!(rows.len(), 3);
    for row in &rows {
        let m = &members[row.member];
        assert_eq!(row.name, m.name);
        // The row says what the plan opened alone says: its headline and its verdict.
        let session = Session::open_text(m.text.clone(), &options(), &Direct).unwrap();
        let doc = session.document();
        let analysis = planlens::analysis::Analysis::of(doc);
        assert_eq!(row.summary, analysis.summary.headline(doc), "{}", row.name);
        let evaluation = analysis.evaluate(doc, &RuleSet::builtin(), &BTreeMap::new());
        assert_eq!(row.verdict, Some(evaluation.verdict), "{}", row.name);
        assert_eq!(
            row.findings.len(),
            evaluation.findings.len(),
            "{}",
            row.name
        );
    }
    // What needs a person first: the failed plan, then by need.
    assert_eq!(rows[0].name, "prod/db");
    assert_eq!(rows[0].attention, Attention::Failed);
    assert!(
        rows.windows(2).all(|w| w[0].attention <= w[1].attention),
        "{:?}",
        rows.iter()
            .map(|r| (&r.name, r.attention))
            .collect::<Vec<_>>()
    );
    assert_eq!(worst_verdict(&rows), Some(Verdict::PlanningFailed));
}

#[test]
fn a_file_that_is_no_plan_is_a_failed_row_saying_why() {
    let members = [
        member("a", "plan_errored.json"),
        Member {
            name: "notes".to_string(),
            text: "just some words".to_string(),
        },
    ];
    let (row, session) = row_of(&members[1], 1, &options(), &RuleSet::builtin(), &Direct);
    assert!(session.is_none());
    assert_eq!(row.attention, Attention::Failed);
    assert!(row.error.as_deref().unwrap_or_default().len() > 10);
    assert_eq!(worst_verdict(&[row]), Some(Verdict::PlanningFailed));
}

fn row(name: &str, attention: Attention, verdict: Option<Verdict>) -> PlanRow {
    let mut r = PlanRow::unreadable(name.to_string(), 0, String::new());
    r.error = None;
    r.verdict = verdict;
    r.kind = "plan".to_string();
    r.attention = attention;
    // What the attention says it does (a plan with no changes changes nothing).
    if !matches!(attention, Attention::NoChanges | Attention::Failed) {
        r.counts.change = 1;
    }
    r
}

#[test]
fn the_headline_speaks_the_peers_words() {
    let mut rows = vec![
        row("a", Attention::Changes, Some(Verdict::Pass)),
        row("b", Attention::Destroys, Some(Verdict::Pass)),
        row("c", Attention::NoChanges, Some(Verdict::Pass)),
        row("d", Attention::Failed, Some(Verdict::PlanningFailed)),
        row("e", Attention::Warn, Some(Verdict::Warn)),
        row("f", Attention::NeedsApproval, Some(Verdict::NeedsApproval)),
        row("g", Attention::Drifted, Some(Verdict::Pass)),
    ];
    assert_eq!(
        headline(&rows),
        "7 plans: 5 with changes, 1 with no changes, 1 failed"
    );
    // A plan that only drifted (its drift needs a person) changes nothing: it is not counted as
    // one with changes.
    let mut drift_only = row("h", Attention::Drifted, Some(Verdict::NeedsApproval));
    drift_only.counts = PlanCounts {
        drifted: 1,
        ..PlanCounts::default()
    };
    assert_eq!(headline(&[drift_only]), "1 plan: 1 with no changes");
    plans::sort(&mut rows);
    let order: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(order, ["d", "f", "b", "g", "e", "a", "c"]);
    assert_eq!(worst_verdict(&rows), Some(Verdict::PlanningFailed));
    rows.retain(|r| r.name != "d");
    assert_eq!(worst_verdict(&rows), Some(Verdict::NeedsApproval));
}

#[test]
fn names_sort_in_their_natural_order() {
    let mut rows: Vec<PlanRow> = ["unit-10", "unit-2", "Unit-1"]
        .iter()
        .map(|n| row(n, Attention::Changes, Some(Verdict::Pass)))
        .collect();
    plans::sort(&mut rows);
    let order: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(order, ["Unit-1", "unit-2", "unit-10"]);
}

#[test]
fn attention_is_judged_from_what_the_plan_holds() {
    let mut r = row("x", Attention::NoChanges, Some(Verdict::Pass));
    r.judge();
    assert_eq!(r.attention, Attention::NoChanges);
    r.counts = PlanCounts {
        change: 1,
        ..PlanCounts::default()
    };
    r.judge();
    assert_eq!(r.attention, Attention::Changes);
    r.verdict = Some(Verdict::Warn);
    r.judge();
    assert_eq!(r.attention, Attention::Warn);
    r.counts.drifted = 1;
    r.judge();
    assert_eq!(r.attention, Attention::Drifted);
    r.counts.replace = 1;
    r.judge();
    assert_eq!(r.attention, Attention::Destroys);
    r.verdict = Some(Verdict::NeedsApproval);
    r.judge();
    assert_eq!(r.attention, Attention::NeedsApproval);
    r.verdict = Some(Verdict::PlanningFailed);
    r.judge();
    assert_eq!(r.attention, Attention::Failed);
    // A person acts on everything up to destroys and drift; not on a warning.
    assert!(Attention::Drifted.needs_human());
    assert!(!Attention::Warn.needs_human());
    // The fleet's own order is kept among the plans' values.
    assert!(Attention::Failing < Attention::Drifted && Attention::Drifted < Attention::Locked);
    assert!(
        Attention::AwaitingApproval < Attention::Pending && Attention::Suspended < Attention::Ready
    );
}

#[test]
fn a_search_across_every_plan_names_each_hit_and_its_action() {
    let members = three();
    let rows = rows(&members, &options(), &RuleSet::builtin(), &Direct);
    let all: usize = rows.iter().map(|r| r.changes.len()).sum();
    assert!(all > 0);
    // "delete" finds deletes (and replaces: they destroy too) and nothing else.
    let hits = search_changes(&rows, "destroyed");
    assert!(!hits.is_empty());
    for h in &hits {
        let c = &rows[h.plan].changes[h.change];
        assert!(
            c.action == "delete" || c.action.starts_with("replace"),
            "{c:?}"
        );
    }
    // An address word narrows to the plans that change it.
    let first = &rows[0].changes[0];
    let word = first.address.split('.').next().unwrap();
    let hits = search_changes(&rows, word);
    assert!(
        hits.iter()
            .all(|h| rows[h.plan].changes[h.change].address.contains(word))
    );
    assert!(search_changes(&rows, "  ").is_empty());
    // The rows' filter keeps every plan with a hit, so the list and the hits agree.
    let index = FleetIndex {
        plans: rows.clone(),
        ..FleetIndex::default()
    };
    let filter = FleetFilter {
        search: "destroyed".to_string(),
        ..FleetFilter::default()
    };
    let shown: Vec<usize> = (filter.entries(&index).into_iter())
        .filter_map(|e| match e {
            planlens::fleet::Entry::Plan(i) => Some(i),
            _ => None,
        })
        .collect();
    for h in search_changes(&rows, "destroyed") {
        assert!(shown.contains(&h.plan));
    }
}

#[test]
fn the_filter_takes_plans_and_workspaces_alike() {
    let members = three();
    let index = FleetIndex {
        plans: rows(&members, &options(), &RuleSet::builtin(), &Direct),
        ..FleetIndex::default()
    };
    let all = FleetFilter::default().entries(&index);
    assert_eq!(all.len(), 3);
    let prod = FleetFilter {
        namespace: "prod".to_string(),
        ..FleetFilter::default()
    };
    assert_eq!(prod.entries(&index).len(), 2);
    assert_eq!(index.groups(), ["dev", "prod"]);
    let failed = FleetFilter {
        attention: vec![Attention::Failed],
        ..FleetFilter::default()
    };
    assert_eq!(failed.entries(&index).len(), 1);
    assert!(index.headline().starts_with("3 plans: "));
}

#[test]
fn the_rule_file_gives_labels_per_plan_name_and_a_plans_variables_still_win() {
    let rules = RuleSet::parse(
        r#"
[[plans]]
match = "prod/*"
labels = { environment = "prod" }

[[plans]]
match = "*/db"
labels = { tier = "data", environment = "prod-db" }
"#,
    )
    .unwrap();
    let none = BTreeMap::new();
    assert_eq!(
        rules.labels_for("prod/network", &none, &[]),
        BTreeMap::from([("environment".to_string(), "prod".to_string())])
    );
    // A later table wins; an unmatched name gets nothing.
    assert_eq!(
        rules.labels_for("prod/db", &none, &[])["environment"],
        "prod-db"
    );
    assert!(rules.labels_for("dev/network", &none, &[]).is_empty());
    // The plan's own variable and the user's label win over the file's mapping.
    assert!(
        !rules
            .labels_for("prod/network", &none, &["environment"])
            .contains_key("environment")
    );
    let mine = BTreeMap::from([("environment".to_string(), "staging".to_string())]);
    assert_eq!(
        rules.labels_for("prod/network", &mine, &[])["environment"],
        "staging"
    );
    // A broken table is an error with its place, never a silent pass.
    let errors = RuleSet::parse("[[plans]]\nlabels = { a = 1 }\n").unwrap_err();
    assert!(
        errors.iter().any(|e| e.to_string().contains("match")),
        "{errors:?}"
    );
}

#[test]
fn one_comment_for_the_whole_set_fits_github() {
    // 400 plans, each with findings and destroys: the table comes first, the details of those
    // that need a person least are cut, counted and pointed to.
    let members = three();
    let base = rows(&members, &options(), &RuleSet::builtin(), &Direct);
    let mut many = Vec::new();
    for i in 0..400 {
        let mut r = base[i % base.len()].clone();
        r.name = format!("stacks/unit-{i}/with-a-rather-long-name");
        r.member = i;
        many.push(r);
    }
    plans::sort(&mut many);
    let link = CommentLink::Redacted("https://example.org/planlens/#ru=AAAA".to_string());
    let text = comment(&many, &[], Some(&link));
    assert!(text.len() <= GITHUB_COMMENT_LIMIT, "{}", text.len());
    assert!(text.starts_with("### Planlens: 400 plans:"));
    assert!(text.contains("| Plan | Verdict |"));
    assert!(text.contains("need a person least"), "no cut note");
    assert!(text.contains("https://example.org/planlens/#ru=AAAA"));
    // A small set is whole: every plan in the table, each detail in <details>.
    let small = comment(
        &base,
        &[("README.md".to_string(), "not a plan".to_string())],
        None,
    );
    for r in &base {
        assert!(small.contains(&format!("`{}`", r.name)), "{}", r.name);
    }
    assert!(small.contains("<details>"));
    assert!(small.contains("README.md"));
    assert!(!small.contains("need a person least"));
}

#[test]
fn a_set_link_carries_every_plan_and_a_redacted_one_only_the_rows() {
    let members = three();
    let url = set_link(
        "https://o.github.io/planlens/",
        &members,
        &LinkView::default(),
    );
    let fragment = Fragment::parse(url.split_once('#').unwrap().1);
    let json = planlens::load::link::decode(&fragment.set.unwrap()).unwrap();
    assert_eq!(read_payload(&json).unwrap(), members);
    let rows = rows(&members, &options(), &RuleSet::builtin(), &Direct);
    let url = rollup_link("https://o.github.io/planlens/", &rows, &LinkView::default());
    let fragment = Fragment::parse(url.split_once('#').unwrap().1);
    assert!(fragment.set.is_none() && fragment.plan.is_none());
    let json = planlens::load::link::decode(&fragment.rollup.unwrap()).unwrap();
    let back: Vec<PlanRow> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, rows);
}

#[test]
fn files_opened_together_are_a_set_and_one_plan_stays_one() {
    let files: Vec<(String, Vec<u8>)> = ["plan_errored.json", "drift_set_and_deleted.json"]
        .iter()
        .map(|f| (format!("ci/{f}"), common::own_fixture(f)))
        .collect();
    match Session::open_files(files, &options(), &Direct) {
        Ok(Opened::Set(set)) => {
            let names: Vec<&str> = set.members.iter().map(|m| m.name.as_str()).collect();
            assert_eq!(names, ["plan_errored", "drift_set_and_deleted"]);
        }
        _ => panic!("not a set"),
    }
    let one = vec![(
        "plan.json".to_string(),
        common::own_fixture("plan_errored.json"),
    )];
    assert!(matches!(
        Session::open_files(one, &options(), &Direct),
        Ok(Opened::Plan(_))
    ));
    // Two plans one after the other in one file.
    let mut both = common::own_fixture("plan_errored.json");
    both.extend(b"\n");
    both.extend(common::own_fixture("drift_set_and_deleted.json"));
    match Session::open_files(vec![("plans.json".to_string(), both)], &options(), &Direct) {
        Ok(Opened::Set(set)) => assert_eq!(set.members.len(), 2),
        _ => panic!("not a set"),
    }
}

/// Rego policies judge every plan of a set in the page, as the CLI's `--policy` does: the row's
/// findings and verdict are the rules' and the policies'; a plan they cannot judge has none.
#[test]
fn rego_policies_judge_each_row_and_a_failed_policy_leaves_no_verdict() {
    use planlens::policy::PolicyFile;
    use planlens::policy::engine;
    use planlens::session::set::SetPolicies;

    let run = |session: &Session, name: &str, files: Vec<PolicyFile>| {
        let policies = SetPolicies {
            files,
            ..Default::default()
        };
        let rules = RuleSet::builtin();
        let prepared = session
            .set_policy_inputs(name, &rules, &BTreeMap::new(), &policies)
            .expect("a plan is judged by policies");
        let answer = engine::answer_json(engine::run(&prepared.request, &prepared.input_refs()));
        session.plan_row_judged(name, 0, &rules, &BTreeMap::new(), &answer)
    };
    let plan = member("dev/app", "import_move_read.json");
    let session = Session::open_text(plan.text.clone(), &options(), &Direct).unwrap();
    let alone = session.plan_row("dev/app", 0, &RuleSet::builtin(), &BTreeMap::new());
    assert_ne!(alone.verdict, Some(Verdict::NeedsApproval));

    let deny = PolicyFile::new(
        "every_change.rego",
        "package main\n\ndeny contains msg if {\n\tsome rc in input.resource_changes\n\tmsg := sprintf(\"seen by policy: %s\", [rc.address])\n}\n",
    );
    let row = run(&session, "dev/app", vec![deny]);
    assert_eq!(row.verdict, Some(Verdict::NeedsApproval));
    assert_eq!(row.attention, Attention::NeedsApproval);
    assert!(row.policy_error.is_none());
    assert!(
        row.findings
            .iter()
            .any(|f| f.message.starts_with("seen by policy: ")),
        "{:?}",
        row.findings
    );
    // The rules' own findings stay beside the policy's.
    assert!(row.findings.len() > alone.findings.len());

    let broken = PolicyFile::new("broken.rego", "package main\n\ndeny contains msg if {\n");
    let row = run(&session, "dev/app", vec![broken]);
    assert_eq!(
        row.verdict, None,
        "a policy that did not run may have denied it"
    );
    assert!(
        row.policy_error
            .as_deref()
            .unwrap_or_default()
            .contains("broken.rego")
    );
    assert!(row.attention <= Attention::Warn, "{:?}", row.attention);
    assert_eq!(worst_verdict(std::slice::from_ref(&row)), None);
    // The redacted roll-up carries why.
    let json = serde_json::to_string(&row).unwrap();
    let back: PlanRow = serde_json::from_str(&json).unwrap();
    assert_eq!(back.policy_error, row.policy_error);

    // A state is never judged, by rules or policies.
    let state = Session::open_text(
        String::from_utf8(common::own_fixture("state.json")).unwrap(),
        &options(),
        &Direct,
    )
    .unwrap();
    let policies = SetPolicies {
        files: vec![PolicyFile::new("p.rego", "package main\n")],
        ..Default::default()
    };
    assert!(
        state
            .set_policy_inputs("s", &RuleSet::builtin(), &BTreeMap::new(), &policies)
            .is_none()
    );
}

#[test]
fn the_comment_says_a_plan_policies_could_not_judge_has_no_verdict() {
    let mut judged = row("prod/app", Attention::Changes, Some(Verdict::Pass));
    let mut unjudged = row("prod/db", Attention::Warn, None);
    unjudged.policy_error = Some("broken.rego:4:1: rego_parse_error: expecting expression".into());
    unjudged.judge();
    judged.judge();
    let text = comment(&[unjudged, judged], &[], None);
    assert!(
        text.contains("| `prod/db` | ⚠️ no verdict: policies failed |"),
        "{text}"
    );
    assert!(
        text.contains("- ⚠️ Rego policies could not run: broken.rego:4:1: rego\\_parse\\_error"),
        "{text}"
    );
}
