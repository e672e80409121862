//! `planlens link`: a link that reopens the plan (with its rules and labels, or redacted), or a
//! short one to a published plan.

use crate::common;
use crate::run::planlens_line;

/// Opens a link printed by `planlens link` the way the browser does.
pub fn follow(link: &str) -> (planlens::share::fragment::Fragment, planlens::Document) {
    let hash = &link[link.find('#').expect("a fragment")..];
    let fragment = planlens::load::fragment::Fragment::parse(hash);
    let text = planlens::load::link::decode(fragment.plan.as_deref().unwrap()).unwrap();
    let doc = planlens::load_plan_text(text, "link").unwrap();
    (fragment, doc)
}

#[test]
fn link_prints_a_link_that_reopens_the_plan_with_its_rules() {
    let base = "https://example.github.io/planlens/";
    let (code, out, err) = planlens_line(&format!(
        "link samples/web-app-replace.json --base {base} \
         --rules tests/fixtures/rules/warn_only.toml --label environment=prod"
    ));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 1);
    assert!(out.starts_with(&format!("{base}#env=prod&rules=")), "{out}");
    let (fragment, doc) = follow(out.trim_end());
    assert_eq!(
        planlens::load::link::decode(fragment.view.rules.as_deref().unwrap()).unwrap(),
        std::fs::read_to_string(common::repo_dir().join("tests/fixtures/rules/warn_only.toml"))
            .unwrap()
    );
    let sample = planlens::load_plan(
        std::fs::read(common::repo_dir().join("samples/web-app-replace.json")).unwrap(),
        "sample",
    )
    .unwrap();
    assert_eq!(planlens::Summary::of(&doc), planlens::Summary::of(&sample));
    assert!(doc.redacted.is_none());

    let (code, out, _) = planlens_line(&format!(
        "link samples/web-app-replace.json --base {base} --redacted"
    ));
    assert_eq!(code, 0);
    let (fragment, doc) = follow(out.trim_end());
    assert!(doc.redacted.is_some() && fragment.view.rules.is_none());
    assert_eq!(planlens::Summary::of(&doc), planlens::Summary::of(&sample));
    // Without --base there is nothing to link to.
    assert_eq!(planlens_line("link samples/web-app-replace.json").0, 64);
    assert_eq!(
        planlens_line("check samples/web-app-replace.json --redacted").0,
        64
    );
}

#[test]
fn link_to_a_published_plan_is_short() {
    let (code, out, err) = planlens_line(
        "link samples/web-app-replace.json --base https://example.github.io/planlens/ \
         --plan-url https://ci.example/plan.json --label environment=prod",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "https://example.github.io/planlens/?url=https%3A%2F%2Fci.example%2Fplan.json#env=prod\n"
    );
    let both = "link samples/web-app-replace.json --base https://x/ --redacted \
                --plan-url https://ci.example/plan.json";
    assert_eq!(planlens_line(both).0, 64);
}
