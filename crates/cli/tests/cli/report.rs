//! `planlens report`: one HTML page with the app inline and the full link's plan, without secrets;
//! refused for bad input, a missing app or a plan larger than a link can carry.

use crate::common;
use crate::run::{planlens, planlens_line, planlens_with};

/// `planlens report PLAN [MORE…] -o OUT --app APP`.
fn report(
    plan: &str,
    out: &std::path::Path,
    app: &std::path::Path,
    more: &[&str],
) -> (i32, String, String) {
    let (out, app) = (out.to_str().unwrap(), app.to_str().unwrap());
    let mut args = vec!["report", plan];
    args.extend_from_slice(more);
    args.extend(["-o", out, "--app", app]);
    planlens(&args)
}

/// A directory shaped like a release build of the app (index.html naming its style sheet, glue and
/// WebAssembly as `scripts/csp-boot.mjs` leaves them, beside the first paint's module preload, at
/// the site's sub-path as GitHub Pages serves a fork), so the report can be tested without
/// building the app.
fn fake_app(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("planlens-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("index.html"),
        r#"<!doctype html><html><head>
<script type="module" src="/planlens/boot-1.js"></script>
<link rel="stylesheet" href="/planlens/main-1.css" integrity="sha384-x"/>
<link rel="planlens-glue" href="/planlens/planlens-web-1.js"><link rel="modulepreload" href="/planlens/planlens-glance.js"><link rel="planlens-wasm" href="/planlens/planlens-web-1_bg.wasm"></head><body></body></html>"#,
    )
    .unwrap();
    std::fs::write(dir.join("main-1.css"), "body { color: FAKE-CSS; }").unwrap();
    std::fs::write(
        dir.join("planlens-web-1.js"),
        "export default async () => {};",
    )
    .unwrap();
    std::fs::write(dir.join("planlens-web-1_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    dir
}

/// The payload and attributes of a report's plan element.
fn report_plan(page: &str) -> (String, String) {
    let start = page
        .find(r#"<script type="application/octet-stream" id="planlens-report""#)
        .expect("the plan element");
    let open_end = start + page[start..].find('>').unwrap();
    let close = open_end + page[open_end..].find("</script>").unwrap();
    (
        page[open_end + 1..close].to_string(),
        page[start..open_end].to_string(),
    )
}

/// The `p=` payload of a link `planlens link` prints for the same arguments.
fn link_payload(args: &[&str]) -> String {
    let mut all = vec!["link", "--base", "https://example.org/"];
    all.extend_from_slice(args);
    let (code, out, err) = planlens(&all);
    assert_eq!(code, 0, "{err}");
    let fragment =
        planlens::load::fragment::Fragment::parse(&out.trim_end()[out.find('#').unwrap()..]);
    fragment.plan.unwrap()
}

#[test]
fn report_is_one_page_with_the_app_inline_and_the_full_links_plan_without_secrets() {
    let app = fake_app("report");
    for fixture in ["share_secrets.json", "tf0_14_unmarked_secrets.json"] {
        let path = format!("tests/fixtures/{fixture}");
        let out = app.join(format!("{fixture}.html"));
        let (code, stdout, err) = report(&path, &out, &app, &[]);
        assert_eq!(code, 0, "{err}");
        assert!(stdout.is_empty());
        assert!(
            err.contains(" KB (the plan ") && err.contains("sensitive values removed"),
            "{err}"
        );
        let page = std::fs::read_to_string(&out).unwrap();
        // The secrets are nowhere in the file, and the plan is exactly a full link's.
        assert!(
            !page.contains("SECRET-"),
            "a secret in the report of {fixture}"
        );
        let (payload, attributes) = report_plan(&page);
        assert_eq!(payload, link_payload(&[&path]), "{fixture}");
        assert!(
            attributes.ends_with(&format!(r#" data-name="{fixture}""#)),
            "{attributes}"
        );
        let text = planlens::load::link::decode(&payload).unwrap();
        assert!(
            !text.contains("SECRET-") && text.contains("(sensitive 1)"),
            "{text}"
        );
        let shared = planlens::load_plan_text(text, fixture).unwrap();
        let original = planlens::load_plan(
            std::fs::read(common::repo_dir().join(&path)).unwrap(),
            fixture,
        )
        .unwrap();
        assert_eq!(
            planlens::Summary::of(&shared),
            planlens::Summary::of(&original)
        );
        // Nothing to fetch: the style inline, no src, no href but the empty data: icon, and a
        // policy that allows no connection.
        assert!(page.contains("<style>body { color: FAKE-CSS; }</style>"));
        assert!(!page.contains(" src="), "{page}");
        assert_eq!(page.matches(" href=").count(), 1);
        assert!(page.contains(r#"<link rel="icon" href="data:,">"#));
        assert!(page.contains("connect-src 'none'") && page.contains("default-src 'none'"));
        assert!(page.contains(r#"id="planlens-glue">"#) && page.contains(r#"id="planlens-wasm">"#));
        assert!(page.contains("<title>") && page.contains(&format!("{fixture} — Planlens report")));
    }
    // Rules and the environment label travel as a link's do.
    let out = app.join("rules.html");
    let rules = "tests/fixtures/rules/warn_only.toml";
    let (code, _, err) = report(
        "samples/web-app-replace.json",
        &out,
        &app,
        &["--rules", rules, "--label", "environment=prod"],
    );
    assert_eq!(code, 0, "{err}");
    let (_, attributes) = report_plan(&std::fs::read_to_string(&out).unwrap());
    let carried = attributes
        .split(" data-rules=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("data-rules");
    assert_eq!(
        planlens::load::link::decode(carried).unwrap(),
        std::fs::read_to_string(common::repo_dir().join(rules)).unwrap()
    );
    assert!(attributes.ends_with(r#" data-env="prod""#), "{attributes}");
    // The app's directory may also come from PLANLENS_APP.
    let out2 = app.join("env.html");
    let args = [
        "report",
        "samples/web-app-replace.json",
        "-o",
        out2.to_str().unwrap(),
    ];
    let (code, _, _) = planlens_with(&args, |command| {
        command.env("PLANLENS_APP", &app);
    });
    assert!(code == 0 && out2.exists());
    std::fs::remove_dir_all(&app).unwrap();
}

#[test]
fn report_of_bad_input_exits_3_and_writes_nothing() {
    let app = fake_app("bad");
    let out = app.join("report.html");
    let (code, _, err) = report("tests/fixtures/not_json.txt", &out, &app, &[]);
    assert_eq!(code, 3);
    assert!(err.contains("This is not JSON"), "{err}");
    assert!(!out.exists());
    // Without -o, or with options that make no sense for a file: usage.
    assert_eq!(planlens_line("report samples/web-app-replace.json").0, 64);
    let sample = "samples/web-app-replace.json";
    let (code, _, _) = planlens(&["report", sample, "-o", out.to_str().unwrap(), "--redacted"]);
    assert_eq!(code, 64);
    std::fs::remove_dir_all(&app).unwrap();
}

#[test]
fn report_without_a_built_app_says_how_to_build_it() {
    let app = fake_app("missing");
    let out = app.join("report.html");
    let missing = app.join("no-dist");
    let (code, _, err) = report("samples/web-app-replace.json", &out, &missing, &[]);
    assert_eq!(code, 3);
    assert!(
        err.contains("no built Planlens app in")
            && err.contains("build the app first: trunk build --release")
            && err.contains("--app DIR"),
        "{err}"
    );
    assert!(!out.exists());
    // A directory that is not a build of the app.
    std::fs::remove_file(app.join("planlens-web-1_bg.wasm")).unwrap();
    let (code, _, err) = report("samples/web-app-replace.json", &out, &app, &[]);
    assert_eq!(code, 3);
    assert!(
        err.contains("planlens-web-1_bg.wasm") && err.contains("trunk build --release"),
        "{err}"
    );
    std::fs::write(app.join("index.html"), "<html></html>").unwrap();
    let (code, _, err) = report("samples/web-app-replace.json", &out, &app, &[]);
    assert_eq!(code, 3);
    assert!(err.contains("links no style sheet"), "{err}");
    assert!(!out.exists());
    std::fs::remove_dir_all(&app).unwrap();
}

#[test]
fn report_of_a_plan_larger_than_a_link_can_carry_is_refused() {
    // One value of 65 MiB: more than the app decodes from a link's (and a report's) payload.
    let app = fake_app("large");
    let plan = app.join("large.json");
    let value = "x".repeat(planlens::load::link::MAX_DECODED_BYTES + 1024 * 1024);
    std::fs::write(
        &plan,
        format!(
            r#"{{"format_version":"1.2","terraform_version":"1.6.6","resource_changes":[{{"address":"aws_s3_object.big","mode":"managed","type":"aws_s3_object","name":"big","provider_name":"registry.terraform.io/hashicorp/aws","change":{{"actions":["create"],"before":null,"after":{{"content":"{value}"}},"after_unknown":{{}},"before_sensitive":false,"after_sensitive":{{}}}}}}]}}"#
        ),
    )
    .unwrap();
    drop(value);
    let out = app.join("report.html");
    let (code, _, err) = report(plan.to_str().unwrap(), &out, &app, &[]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains(
            "the plan is still 65 MB, more than the 64 MB a report (like a link) can carry"
        ),
        "{err}"
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&app).unwrap();
}
