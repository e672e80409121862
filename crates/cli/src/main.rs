//! `planlens`: the command line for CI jobs, a thin shell over the core.
//!
//! ```text
//! planlens summary PLAN.json                     summary sentence, then one line per change
//! planlens graph PLAN.json [--format dot|json|svg] the dependency graph (default: dot)
//! planlens drift FILE [--format text|json]         what changed outside Terraform, with severity
//! planlens check PLAN.json [--rules FILE]          guardrail rules, verdict as exit code
//! planlens check PLAN.json --policy DIR          Rego policies (conftest, Spacelift, Scalr, OPA) too
//! planlens link PLAN.json --base URL [--redacted]  a share link that opens the plan in Planlens
//! planlens report PLAN.json -o report.html [--app DIR]  one HTML file: the app and the plan
//! planlens compare OLD NEW [--format text|json|markdown]  what changed since the last review
//! planlens fleet FILE… [--format text|json]       Flux's Terraform controller's workspaces
//! ```
//! Exit codes: 0 success, 3 the input (or the built app, for `report`) could not be read, 64 wrong
//! usage; `check`: 0 pass, 1 warn or plan incomplete, 2 needs approval, 4 planning failed;
//! `drift`: 0, or 1 when drift cannot be ruled out (an incomplete input, a Terraform before
//! 0.15.4) and 4 when planning failed.
//!
//! `fleet` is `fleet.rs`, `--policy` and `--verify` are `policies.rs`, `report` is `report/`. A
//! log's diagnostics go to stderr as Terraform prints them.

mod compare;
mod fleet;
mod policies;
mod report;
mod set;
mod wasi;

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;

use planlens_changes::drift::Drift;
use planlens_graph::EdgeSource;
use planlens_graph::export::opening_svg;
use planlens_load::fragment::LinkView;
use planlens_load::load_plan_with;
use planlens_model::findings::Verdict;
use planlens_model::mask::Mask;
use planlens_model::source::{DriftctlFacts, Source};
use planlens_model::summary::Summary;
use planlens_model::text::visible;
use planlens_model::{Action, Document, RowSource, reason};
use planlens_readers::Direct;
use planlens_rules::{Evaluation, RuleSet};
use planlens_session::analysis::Analysis;
use planlens_session::share::markdown::{CommentLink, choose_link, full_link_for_comment};

const USAGE: &str = "usage:
  planlens summary PLAN.json [--format text|markdown|json] [--rules FILE] [--label K=V]…
                 [--base URL [--plan-url URL]]   summary sentence, then one line per change
                 [--since URL]                   (markdown: what changed since the plan in URL
                                                 first, as `compare` says it)
                                                 (markdown: a PR comment with the rules' verdict,
                                                 what is destroyed, replaced or forgotten, drift;
                                                 with --base, a link to the plan in Planlens at
                                                 URL)
  planlens link PLAN.json --base URL [--redacted | --plan-url URL] [--rules FILE] [--label K=V]…
                                                 a share link: the plan (without sensitive values)
                                                 in the link's #fragment; --redacted: addresses,
                                                 actions, edges and findings only; --plan-url: a
                                                 short link that fetches the plan from where it
                                                 is published (?url=, the server must allow CORS)
  planlens check PLAN.json [--rules FILE] [--label K=V]… [--format text|json]
                                                 guardrail rules; exit 0 pass, 1 warn or plan
                                                 incomplete, 2 needs approval, 4 planning failed
                                                 (Terraform reported an error: the plan cannot
                                                 be judged)
       [--policy FILE_OR_DIR]… [--namespace NS]… [--input conftest|spacelift|scalr|opa]
                                                 Rego policies beside the rules: deny and
                                                 violation need approval, warn warns; the input
                                                 shape comes from each file's package unless
                                                 --input; a policy that does not compile: exit 3
  planlens check --verify --policy FILE_OR_DIR…  the policies' test_ rules, PASS or FAIL (exit 1
                                                 when one fails), like conftest verify
  planlens graph PLAN.json [--format dot|json|svg]
                                                 dependency graph, edges from dependency to
                                                 dependent; svg: the picture the Graph tab opens
                                                 with, as its SVG export (nodes carry
                                                 data-address, module boxes data-module)
  planlens drift FILE [--format text|json]       what changed outside Terraform, minor or structural
                                                 (exit 1 when drift cannot be ruled out: an
                                                 incomplete plan, a Terraform before 0.15.4;
                                                 4 when planning failed)
  planlens compare OLD NEW [--format text|json|markdown] [--rules FILE] [--label K=V]…
  planlens compare --since URL NEW …             what changed since the last review: changes new
                                                 or no longer planned, actions and planned values
                                                 changed, drift, findings, verdict; OLD may be a
                                                 Planlens link (redacted: no values compared);
                                                 exit 0 no difference, 1 differences
  planlens fleet FILE… [--format text|json]      Flux tf-controller workspaces (`kubectl get terraform
                                                 -A -o json|yaml`, with their plan and state
                                                 Secrets), most urgent first; exit 0 all ready, 1 a
                                                 plan awaits approval or is stale, 2 drift or a
                                                 failing or locked workspace, 3 bad input
  planlens report PLAN.json -o report.html [--app DIR] [--rules FILE] [--label K=V]…
                                                 one self-contained HTML file, the app with the
                                                 plan inside (sensitive values removed as in a
                                                 full link), for CI artifacts: it opens from disk
                                                 and fetches nothing. The app's files come from
                                                 its build (trunk build --release): --app DIR,
                                                 else $PLANLENS_APP, else ./dist
PLAN.json comes from `terraform show -json PLANFILE`; FILE may also be a `terraform plan -json` log
or a driftctl JSON report; - reads standard input. summary, check, drift, graph, link and report
take several PLANs too — files, folders (a Terragrunt --json-out-dir tree), .zip/.tar.gz archives,
plans one after another, an Atlantis or digger comment, a Terragrunt run --all log — and speak of
the set: one row per plan, what needs a person first (summary --format json: {plans: […]};
markdown: ONE comment for every plan; check: the worst plan's exit code; link: every plan, or the
redacted roll-up; report: one file that opens on the roll-up). A rule file's [[plans]] tables
give labels by plan name (README, Many plans). --rules adds a TOML rule file to the built-in
pack (see README, Guardrail rules); --label environment=prod sets a value rules can test (and
Spacelift policies see the stack label env:prod; README, Rego policies).
Values under secret-like attribute names (password, secret, token, private_key, access_key, …)
are masked like the values the plan marks sensitive; --mask PATTERN (repeatable, every
subcommand; a case-insensitive glob on attribute names, e.g. --mask '*_pin') masks more, and so
does a [mask] table in the rule file.
Exit codes: 3 the input, the rule file or (report) the built app could not be read, 64 wrong
usage (and for check: 0, 1, 2, 4 as above).";

/// `--mask PATTERN` options, taken out of the arguments before a subcommand reads them.
static CLI_MASK: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();

/// The secret-name mask for opening a plan: the rule file's (`[mask]`, or the built-in patterns
/// without a rule file) plus every `--mask PATTERN`.
fn mask_for(rules: Option<&RuleSet>) -> Mask {
    let base = rules.map_or_else(Mask::default, |r| r.mask().clone());
    base.with_patterns(CLI_MASK.get().map_or(&[][..], Vec::as_slice))
}

/// Splits `--mask PATTERN` pairs off the arguments; `None` when a `--mask` has no pattern.
fn take_mask_options(args: Vec<String>) -> Option<(Vec<String>, Vec<String>)> {
    let (mut rest, mut patterns) = (Vec::new(), Vec::new());
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        if arg == "--mask" {
            patterns.push(it.next().filter(|p| !p.trim().is_empty())?);
        } else {
            rest.push(arg);
        }
    }
    Some((rest, patterns))
}

fn main() -> ExitCode {
    wasi::enter_working_directory();
    let Some((args, patterns)) = take_mask_options(std::env::args().skip(1).collect()) else {
        return usage();
    };
    CLI_MASK.get_or_init(|| patterns);
    let Some(args) = compare::take_since(args) else {
        return usage();
    };
    // `--since` is read by three commands; anywhere else it would be silently ignored.
    if compare::since().is_some() {
        let command = args.first().map(String::as_str).unwrap_or_default();
        let markdown = args
            .windows(2)
            .any(|w| w[0] == "--format" && w[1] == "markdown");
        if !(matches!(command, "compare" | "link") || command == "summary" && markdown) {
            eprintln!(
                "planlens: --since is read by `compare`, `link` and `summary --format markdown`, \
                 not by `{command}`"
            );
            return ExitCode::from(64);
        }
    }
    // `planlens summary --help` asks for help, not for a file named `--help`.
    if args.len() > 1 && args[1..].iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["summary", rest @ ..] => match Options::parse(rest, &["text", "markdown", "json"]) {
            Ok(o) if o.redacted => usage(),
            Ok(o) => with_plans(o, |o, gathered| match gathered {
                Plans::Set(members, problems) => summary_set(o, &members, &problems),
                Plans::One if o.format.as_deref() == Some("markdown") => markdown(o),
                Plans::One if o.format.as_deref() == Some("json") => match one_member(&o.path) {
                    Ok(members) => summary_set(o, &members, &[]),
                    Err(code) => code,
                },
                Plans::One
                    if o.rules.is_none()
                        && o.labels.is_empty()
                        && o.base.is_none()
                        && o.plan_url.is_none() =>
                {
                    summary(&o.path)
                }
                Plans::One => usage(),
            }),
            _ => usage(),
        },
        ["check", rest @ ..] => match Options::parse(rest, &["text", "json"]) {
            Ok(o) if o.policy.verify && o.path.is_empty() => {
                policies::verify(&o.policy, o.format.as_deref() == Some("json"))
            }
            Ok(o)
                if o.base.is_none()
                    && !o.redacted
                    && o.plan_url.is_none()
                    && !o.path.is_empty() =>
            {
                with_plans(o, |o, gathered| match gathered {
                    Plans::Set(members, _) => check_set(o, &members),
                    Plans::One => check(o),
                })
            }
            _ => usage(),
        },
        ["link", rest @ ..] => match Options::parse(rest, &[]) {
            Ok(o) if o.base.is_some() && !(o.redacted && o.plan_url.is_some()) => {
                with_plans(o, |o, gathered| match gathered {
                    Plans::Set(members, _) if o.plan_url.is_none() => link_set(o, &members),
                    Plans::Set(..) => {
                        eprintln!("planlens: --plan-url links one plan; give one file");
                        ExitCode::from(64)
                    }
                    Plans::One => link(o),
                })
            }
            _ => usage(),
        },
        ["graph", rest @ ..] => match Options::parse(rest, &["dot", "json", "svg"]) {
            Ok(o)
                if o.rules.is_none() && o.base.is_none() && !o.redacted && o.plan_url.is_none() =>
            {
                let format = match o.format.as_deref() {
                    Some("json") => GraphFormat::Json,
                    Some("svg") => GraphFormat::Svg,
                    _ => GraphFormat::Dot,
                };
                with_plans(o, move |o, gathered| match gathered {
                    Plans::One => graph(&o.path, format),
                    Plans::Set(members, _) => graph_set(&members, format),
                })
            }
            _ => usage(),
        },
        ["drift", rest @ ..] => match Options::parse(rest, &["text", "json"]) {
            Ok(o)
                if o.rules.is_none() && o.base.is_none() && !o.redacted && o.plan_url.is_none() =>
            {
                let json = o.format.as_deref() == Some("json");
                with_plans(o, move |o, gathered| match gathered {
                    Plans::One => drift(&o.path, json),
                    Plans::Set(members, _) => drift_set(&members, json),
                })
            }
            _ => usage(),
        },
        ["compare", rest @ ..] => compare::run(rest),
        ["fleet", rest @ ..] => fleet::run(rest),
        ["report", rest @ ..] => match ReportOptions::parse(rest) {
            Some(r) => report(&r),
            None => usage(),
        },
        ["open", ..] => {
            eprintln!(
                "planlens: `open` serves the app on this machine, which the npm package carries \
                 (npx planlens open PLAN…); this build has no app inside: `planlens report PLAN \
                 -o report.html --app DIR` writes one file that opens from disk"
            );
            ExitCode::from(64)
        }
        ["--help" | "-h" | "help"] => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => usage(),
    }
}

fn usage() -> ExitCode {
    eprintln!("{USAGE}");
    ExitCode::from(64)
}

/// Options of `check`, `summary` and `link`: one path, `--format`, `--rules`, repeated
/// `--label K=V`, `--base URL`, `--redacted`.
struct Options {
    /// The first path (the one plan of the one-plan commands).
    path: String,
    /// Every path given: files, folders, archives, `-`.
    paths: Vec<String>,
    format: Option<String>,
    rules: Option<String>,
    labels: BTreeMap<String, String>,
    base: Option<String>,
    redacted: bool,
    /// Where the plan file is published (read by the browser through `?url=`).
    plan_url: Option<String>,
    /// `--policy`, `--namespace`, `--input`, `--verify` (Rego policies).
    policy: policies::PolicyArgs,
}

impl Options {
    fn parse(args: &[&str], formats: &[&str]) -> Result<Options, ()> {
        let (mut paths, mut format, mut rules, mut labels) =
            (Vec::<String>::new(), None, None, BTreeMap::new());
        let (mut base, mut redacted, mut plan_url) = (None, false, None);
        let mut policy = policies::PolicyArgs::default();
        let mut it = args.iter();
        while let Some(&arg) = it.next() {
            match arg {
                "--format" => {
                    let f = it.next().ok_or(())?;
                    if !formats.contains(f) || format.replace(f.to_string()).is_some() {
                        return Err(());
                    }
                }
                "--rules" => {
                    if rules.replace(it.next().ok_or(())?.to_string()).is_some() {
                        return Err(());
                    }
                }
                "--base" => {
                    if base.replace(it.next().ok_or(())?.to_string()).is_some() {
                        return Err(());
                    }
                }
                "--redacted" => redacted = true,
                "--plan-url" => {
                    if plan_url.replace(it.next().ok_or(())?.to_string()).is_some() {
                        return Err(());
                    }
                }
                "--label" => {
                    let (k, v) = it.next().ok_or(())?.split_once('=').ok_or(())?;
                    labels.insert(k.trim().to_string(), v.trim().to_string());
                }
                a if a.starts_with("--") => policy.take(a, &mut it).ok_or(())??,
                a => paths.push(a.to_string()),
            }
        }
        Ok(Options {
            // `check --verify` reads policies only.
            path: (paths.first().cloned())
                .or_else(|| policy.verify.then(String::new))
                .ok_or(())?,
            paths,
            format,
            rules,
            labels,
            base,
            redacted,
            plan_url,
            policy,
        })
    }
}

/// The rule set for `--rules FILE` (the built-in pack plus the file's rules) with the file's
/// text, or the built-in pack.
fn rule_set(path: Option<&str>) -> Result<(RuleSet, Option<String>), ExitCode> {
    let Some(path) = path else {
        return Ok((RuleSet::builtin(), None));
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("planlens: cannot read rule file {path}: {e}");
            return Err(ExitCode::from(3));
        }
    };
    let rules = RuleSet::parse(&text).map_err(|errors| {
        // A rule file that does not parse never counts as passing.
        for e in &errors {
            eprintln!("planlens: {path}: {e}");
        }
        eprintln!(
            "planlens: {path}: {} error{}; no rules were evaluated",
            errors.len(),
            if errors.len() == 1 { "" } else { "s" }
        );
        ExitCode::from(3)
    })?;
    Ok((rules, Some(text)))
}

/// A plan opened, with its analysis and the rules' verdict.
struct Checked {
    doc: Document,
    analysis: Analysis,
    evaluation: Evaluation,
    rules: RuleSet,
    /// The rule file's text, for links.
    rules_text: Option<String>,
}

/// Opens the plan and evaluates the rules: the one path `check`, `summary --format markdown` and
/// `link` share with the browser.
fn evaluated(o: &Options) -> Result<Checked, ExitCode> {
    let (rules, rules_text) = rule_set(o.rules.as_deref())?;
    let doc = open_or_report(&o.path, &mask_for(Some(&rules)))?;
    let analysis = Analysis::of(&doc);
    let evaluation = analysis.evaluate(&doc, &rules, &o.labels);
    let evaluation = policies::apply(&o.policy, &doc, evaluation, &o.labels)?;
    Ok(Checked {
        doc,
        analysis,
        evaluation,
        rules,
        rules_text,
    })
}

impl Checked {
    /// What a link carries besides the plan: the rule file and the `environment` label.
    fn view(&self, labels: &BTreeMap<String, String>) -> LinkView {
        LinkView {
            rules: self.rules_text.as_deref().map(planlens_load::link::encode),
            environment: labels.get("environment").cloned(),
            ..LinkView::default()
        }
    }

    /// The full link to `base`.
    fn full_link(&self, base: &str, labels: &BTreeMap<String, String>) -> String {
        planlens_session::share::full_link(base, &self.doc, &self.view(labels), &Direct)
    }

    /// The `?url=` link to `base` for a plan published at `plan_url`.
    fn address_link(
        &self,
        base: &str,
        plan_url: &str,
        labels: &BTreeMap<String, String>,
    ) -> String {
        planlens_session::share::fragment::url_link(base, plan_url, &self.view(labels))
    }

    /// The redacted link to `base`.
    fn redacted_link(&self, base: &str, labels: &BTreeMap<String, String>) -> String {
        planlens_session::share::redacted_link(
            base,
            &self.doc,
            &self.analysis,
            &self.rules,
            labels,
            &self.view(labels),
            None,
        )
    }
}

fn link(o: &Options) -> ExitCode {
    let checked = match evaluated(o) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let base = o.base.as_deref().unwrap_or_default();
    let url = match (&o.plan_url, o.redacted, compare::since()) {
        (Some(plan_url), _, _) => checked.address_link(base, plan_url, &o.labels),
        (None, true, _) => checked.redacted_link(base, &o.labels),
        (None, false, None) => checked.full_link(base, &o.labels),
        // --since URL: the link carries the plan last reviewed too, and reopens the comparison.
        (None, false, Some(older)) => {
            let older = match compare::open_either(older, &checked.doc.masking.mask) {
                Ok(doc) => doc,
                Err(code) => return code,
            };
            planlens_session::share::full_link_since(
                base,
                &checked.doc,
                &checked.view(&o.labels),
                &Direct,
                Some(&older),
            )
        }
    };
    if let Some(warning) = planlens_session::share::LinkFit::of(url.len()).warning(o.redacted) {
        eprintln!("planlens: the link is {} characters. {warning}", url.len());
    }
    finish(
        std::io::stdout()
            .lock()
            .write_all(format!("{url}\n").as_bytes()),
    )
}

/// Options of `report`: where to write, where the built app is, and the options `link` takes
/// besides `--base`.
struct ReportOptions {
    output: String,
    app: Option<String>,
    plan: Options,
}

impl ReportOptions {
    fn parse(args: &[&str]) -> Option<ReportOptions> {
        let (mut output, mut app, mut rest) = (None, None, Vec::new());
        let mut it = args.iter();
        while let Some(&arg) = it.next() {
            let slot = match arg {
                "-o" | "--output" => &mut output,
                "--app" => &mut app,
                _ => {
                    rest.push(arg);
                    continue;
                }
            };
            if slot.replace(it.next()?.to_string()).is_some() {
                return None;
            }
        }
        let plan = Options::parse(&rest, &[]).ok()?;
        if plan.base.is_some() || plan.redacted || plan.plan_url.is_some() {
            return None;
        }
        Some(ReportOptions {
            output: output?,
            app,
            plan,
        })
    }
}

/// A size for people: `840 KB`, `2.4 MB`.
fn size(bytes: usize) -> String {
    if bytes < 1_000_000 {
        format!("{} KB", bytes.div_ceil(1000))
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

fn report(r: &ReportOptions) -> ExitCode {
    let dir = report::app_dir(r.app.as_deref());
    let app = match report::App::read(&dir) {
        Ok(app) => app,
        Err(message) => {
            eprintln!("planlens: {message}");
            return ExitCode::from(3);
        }
    };
    if !(r.plan.paths.len() == 1 && r.plan.paths[0] == "-") {
        match set::gather(&r.plan.paths) {
            Ok(set::Gathered::Set(members, _)) => return report_set(r, &app, &dir, &members),
            Ok(set::Gathered::One(_)) => {}
            Err(code) => return code,
        }
    }
    let checked = match evaluated(&r.plan) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let view = checked.view(&r.plan.labels);
    // Exactly what a full link carries (`share::full_payload`): the one stripping of sensitive
    // values, then the link encoding. The app opens a payload only up to the link limit, so a
    // larger report would never open: say so instead of writing it.
    let text = planlens_session::share::strip::shareable_text(&checked.doc);
    let limit = planlens_load::link::MAX_DECODED_BYTES;
    if text.len() > limit {
        eprintln!(
            "planlens: {}: without its sensitive values the plan is still {}, more than the {} a \
             report (like a link) can carry; attach the plan file itself and open it in Planlens",
            r.plan.path,
            planlens_load::error::megabytes(text.len()),
            planlens_load::error::megabytes(limit),
        );
        return ExitCode::from(3);
    }
    let payload = planlens_load::link::encode(&text);
    drop(text);
    let page = report::html(
        &app,
        &report::Plan {
            payload: &payload,
            name: &checked.doc.name,
            rules: view.rules.as_deref(),
            environment: view.environment.as_deref(),
            set: false,
        },
    );
    write_report(r, &page, "the plan", payload.len(), &dir)
}

fn check(o: &Options) -> ExitCode {
    let Checked {
        doc, evaluation, ..
    } = match evaluated(o) {
        Ok(x) => x,
        Err(code) => return code,
    };
    // A state is not a plan: no CI job may read it as a pass (exit 3, as any input that is not a
    // plan), and nothing on stdout looks like a verdict.
    if evaluation.verdict == Verdict::NotAPlan && o.format.as_deref() != Some("json") {
        eprintln!(
            "planlens: {}: {}",
            o.path,
            visible(&evaluation.planning.sentence().unwrap_or_default())
        );
        return ExitCode::from(evaluation.verdict.exit_code());
    }
    let text = if o.format.as_deref() == Some("json") {
        check_json(&doc, &evaluation, None).to_string() + "\n"
    } else {
        let mut out = String::new();
        for f in &evaluation.findings {
            out.push_str(&finding_line(f.severity.key(), &f.rule_id, &f.message));
        }
        if let Some(sentence) = evaluation.planning.sentence() {
            out.push_str(&format!("{}\n", visible(&sentence)));
        }
        let tally = evaluation.tally();
        out.push_str(&format!(
            "Verdict: {} ({}; {})\n",
            evaluation.verdict.label(),
            tally.severities(),
            tally.rules()
        ));
        out
    };
    match finish(std::io::stdout().lock().write_all(text.as_bytes())) {
        code if code != ExitCode::SUCCESS => code,
        _ => ExitCode::from(evaluation.verdict.exit_code()),
    }
}

fn markdown(o: &Options) -> ExitCode {
    let checked = match evaluated(o) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let link: Option<CommentLink> = o.base.as_deref().map(|base| {
        choose_link(
            full_link_for_comment(&checked.doc, checked.full_link(base, &o.labels)),
            o.plan_url
                .as_deref()
                .map(|p| checked.address_link(base, p, &o.labels)),
            checked.redacted_link(base, &o.labels),
        )
    });
    if link == Some(CommentLink::TooLong) {
        eprintln!(
            "planlens: even the redacted link is too long for a comment; the comment has no link"
        );
    }
    let since = match compare::since_paragraph(
        &checked.doc,
        &checked.evaluation,
        &checked.rules,
        &o.labels,
    ) {
        Ok(since) => since,
        Err(code) => return code,
    };
    let text = planlens_session::share::markdown::summary(
        &checked.doc,
        &checked.analysis,
        &checked.evaluation,
        link.as_ref(),
    );
    let text = compare::put_on_top(since, text);
    finish(std::io::stdout().lock().write_all(text.as_bytes()))
}

fn read_input(path: &str) -> Result<Vec<u8>, String> {
    if path == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))
    }
}

fn open(path: &str, mask: &Mask) -> Result<Document, String> {
    let bytes = read_input(path)?;
    let name = std::path::Path::new(path)
        .file_name()
        .map_or(path.into(), |n| n.to_string_lossy());
    load_plan_with(bytes, &name, mask, &Direct).map_err(|e| format!("{path}: {e}"))
}

/// Opens a plan for a subcommand, printing what went wrong (exit code 3) or the load warnings.
fn open_or_report(path: &str, mask: &Mask) -> Result<Document, ExitCode> {
    match open(path, mask) {
        Ok(doc) => {
            for note in doc.notes.iter().cloned().chain(doc.masking.unmarked_note()) {
                eprintln!("planlens: note: {note}");
            }
            for warning in &doc.warnings {
                eprintln!("planlens: warning: {warning}");
            }
            // A text plan: what reading it from text leaves out.
            if let Source::TextPlan(facts) = &doc.source {
                eprintln!("planlens: note: {}", facts.sentence());
            }
            // Terraform's own errors and warnings, as Terraform prints them.
            if let Source::PlanLog(facts) = &doc.source {
                let tool = planlens_model::summary::Tool::of(&doc).name();
                for d in &facts.diagnostics {
                    eprintln!("planlens: {tool} reported:\n{}", d.to_text());
                }
            }
            Ok(doc)
        }
        Err(message) => {
            eprintln!("planlens: {message}");
            Err(ExitCode::from(3))
        }
    }
}

/// Maps the result of writing to stdout to an exit code.
fn finish(result: std::io::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`planlens summary plan.json | head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("planlens: {e}");
            ExitCode::from(1)
        }
    }
}

enum GraphFormat {
    Dot,
    Json,
    /// The Graph tab's opening picture, written by the same function as its SVG export.
    Svg,
}

fn graph(path: &str, format: GraphFormat) -> ExitCode {
    let doc = match open_or_report(path, &mask_for(None)) {
        Ok(doc) => doc,
        Err(code) => return code,
    };
    let analysis = Analysis::of(&doc);
    let graph = analysis.graph(&doc);
    if graph.source != EdgeSource::Configuration && !doc.source.is_state() {
        eprintln!(
            "planlens: warning: the plan has no configuration; edges come from the prior state's depends_on only and may be incomplete"
        );
    }
    let text = match format {
        GraphFormat::Dot => graph.to_dot(),
        GraphFormat::Json => graph.to_json() + "\n",
        GraphFormat::Svg => opening_svg(graph, &doc.name),
    };
    finish(std::io::stdout().lock().write_all(text.as_bytes()))
}

fn summary(path: &str) -> ExitCode {
    let doc = match open_or_report(path, &mask_for(None)) {
        Ok(doc) => doc,
        Err(code) => return code,
    };
    let mut out = std::io::stdout().lock();
    let result = (|| -> std::io::Result<()> {
        writeln!(out, "{}", Summary::of(&doc).headline(&doc))?;
        let checks = planlens_changes::checks::check_rows(&doc);
        if let Some(failing) = planlens_changes::checks::failing_sentence(&checks) {
            writeln!(out, "{failing}")?;
            for c in checks.iter().filter(|c| c.status.is_failing()) {
                for message in &c.messages {
                    writeln!(out, "  ! {}: {}", visible(&c.address), visible(message))?;
                }
            }
        }
        let state = doc.source.is_state();
        // What changed outside Terraform is said apart from the plan's changes, never listed as one.
        let drift = (!state).then(|| planlens_changes::drift::Drift::of(&doc));
        if let Some(note) = drift.as_ref().and_then(|d| d.note())
            && !matches!(doc.source, Source::Driftctl(_))
        {
            writeln!(out, "{note} `planlens drift` grades it.")?;
        }
        for (i, row) in doc.rows.iter().enumerate() {
            let change = doc.change(row);
            if let (RowSource::Drift(_), Some(d)) =
                (row.source, drift.as_ref().and_then(|d| d.for_row(i)))
            {
                let what = d.what();
                let what = if what.starts_with("deleted outside Terraform") {
                    what
                } else {
                    format!("changed outside Terraform: {what}")
                };
                writeln!(out, "    {} ({})", visible(&change.address), visible(&what))?;
                continue;
            }
            // A state's rows are what exists, listed without an action symbol.
            if state {
                let mut line = format!("    {}", visible(&change.address));
                if let Some(deposed) = &change.deposed {
                    line.push_str(&format!(" (deposed object {})", visible(deposed)));
                } else if let Source::State(f) = &doc.source
                    && f.is_tainted(&change.address)
                {
                    line.push_str(" (tainted)");
                }
                writeln!(out, "{line}")?;
                continue;
            }
            if !change.is_shown() {
                continue;
            }
            let mut line = format!("{:>3} {}", row.action.symbol(), visible(&change.address));
            if let Some(deposed) = &change.deposed {
                line.push_str(&format!(" (deposed object {})", visible(deposed)));
            }
            if let (true, Some(prev)) = (row.is_move, &change.previous_address) {
                line.push_str(&format!(" (moved from {})", visible(prev)));
            }
            if let Some(importing) = &change.change.importing {
                match &importing.id {
                    Some(id) => line.push_str(&format!(" (import id {})", visible(id))),
                    None => line.push_str(" (import)"),
                }
            }
            if matches!(row.source, RowSource::Deferred(_)) {
                line.push_str(" (deferred)");
            }
            if let Some(r) = &change.action_reason {
                line.push_str(&format!(" — {}", reason::describe(r, row.action)));
            }
            writeln!(out, "{line}")?;
        }
        Ok(())
    })();
    finish(result)
}

fn drift(path: &str, json: bool) -> ExitCode {
    let doc = match open_or_report(path, &mask_for(None)) {
        Ok(doc) => doc,
        Err(code) => return code,
    };
    let (text, code) = match drift_output(&doc, json) {
        Ok(out) => out,
        Err(message) => {
            eprintln!("planlens: {path}: {message}");
            return ExitCode::from(3);
        }
    };
    let text = match text {
        serde_json::Value::String(text) => text,
        json => json.to_string() + "\n",
    };
    let written = finish(std::io::stdout().lock().write_all(text.as_bytes()));
    if written == ExitCode::SUCCESS {
        ExitCode::from(code)
    } else {
        written
    }
}

/// What `drift` prints of one document (text as a JSON string, or the JSON object) and its exit
/// code; `Err` for a state, which cannot say what drifted.
fn drift_output(doc: &Document, json: bool) -> Result<(serde_json::Value, u8), String> {
    // A state cannot say what drifted: never "No drift" for it (exit 3, as for check).
    if doc.source.is_state() {
        return Err(planlens_model::planning::STATE_NO_DRIFT.to_string());
    }
    let analysis = Analysis::of(doc);
    let incomplete = planlens_changes::drift::incompleteness(
        doc,
        &analysis.planning,
        analysis.drift.resources.len(),
    );
    // As for check: 4 when planning failed, 1 when drift cannot be ruled out otherwise.
    let code = match (&incomplete, analysis.planning.failed()) {
        (None, _) => 0,
        (Some(_), true) => 4,
        (Some(_), false) => 1,
    };
    let drift = analysis.drift;
    let facts = match &doc.source {
        Source::Driftctl(facts) => Some(facts),
        _ => None,
    };
    let out = if json {
        let mut out = serde_json::json!({
            "drifted": drift.resources.iter().map(|r| serde_json::json!({
                "address": r.address,
                "severity": r.severity.key(),
                "action": r.action.names().join(","),
                "attributes": r.attribute_paths(),
                "deleted": r.deleted.as_ref().map(|d| serde_json::json!({
                    "type": d.resource_type,
                    "id": d.id,
                })),
                "plan": r.effect.key(),
            })).collect::<Vec<_>>(),
            "minor": drift.minor,
            "structural": drift.structural,
            "not_relevant": drift.not_relevant,
            "incomplete": incomplete,
        });
        if let Some(f) = facts {
            out["unmanaged"] = f.unmanaged.into();
            out["missing"] = f.missing.into();
            out["managed"] = f.managed.into();
            out["coverage"] = f.coverage.into();
            out["unmanaged_resources"] = f
                .unmanaged_resources
                .iter()
                .map(|(t, id)| serde_json::json!({ "type": t, "id": id }))
                .collect();
            out["alerts"] = f.alerts.iter().map(|(_, m)| m.clone()).collect();
        }
        out
    } else {
        serde_json::Value::String(drift_text(&drift, facts, incomplete.as_deref()))
    };
    Ok((out, code))
}

/// `drift` of several plans: each plan's drift under its name, the worst exit code.
fn drift_set(members: &[planlens_load::set::Member], json: bool) -> ExitCode {
    let mut code = 0;
    let mut text = String::new();
    let mut plans = Vec::new();
    for m in members {
        let outcome =
            planlens_load::load_plan_text_with(m.text.clone(), &m.name, &mask_for(None), &Direct)
                .map_err(|e| e.to_string())
                .and_then(|doc| drift_output(&doc, json));
        let (out, this) = match outcome {
            Ok(out) => out,
            Err(message) => (
                if json {
                    serde_json::json!({ "error": message })
                } else {
                    serde_json::Value::String(format!("{}\n", visible(&message)))
                },
                3,
            ),
        };
        code = code.max(this);
        match out {
            serde_json::Value::String(s) => {
                text.push_str(&format!("== {} ==\n{s}", visible(&m.name)));
            }
            mut object => {
                object["name"] = m.name.clone().into();
                plans.push(object);
            }
        }
    }
    if json {
        text = serde_json::json!({ "plans": plans }).to_string() + "\n";
    }
    match set::print(&text) {
        written if written != ExitCode::SUCCESS => written,
        _ => ExitCode::from(code),
    }
}

/// `graph` of several plans: one DOT graph per plan one after another (Graphviz reads them all),
/// or `{"plans": [{name, graph}]}`; an SVG draws one plan.
fn graph_set(members: &[planlens_load::set::Member], format: GraphFormat) -> ExitCode {
    if matches!(format, GraphFormat::Svg) {
        eprintln!("planlens: an SVG draws one plan: give one file, or use --format dot or json");
        return ExitCode::from(64);
    }
    let mut dot = String::new();
    let mut plans = Vec::new();
    for m in members {
        let doc = match planlens_load::load_plan_text_with(
            m.text.clone(),
            &m.name,
            &mask_for(None),
            &Direct,
        ) {
            Ok(doc) => doc,
            Err(e) => {
                eprintln!("planlens: {}: {e}", m.name);
                return ExitCode::from(3);
            }
        };
        let analysis = Analysis::of(&doc);
        let graph = analysis.graph(&doc);
        match format {
            GraphFormat::Json => {
                let graph: serde_json::Value =
                    serde_json::from_str(&graph.to_json()).unwrap_or_default();
                plans.push(serde_json::json!({ "name": m.name, "graph": graph }));
            }
            _ => {
                dot.push_str(&format!("// {}\n", visible(&m.name).replace('\n', " ")));
                dot.push_str(&graph.to_dot());
            }
        }
    }
    let text = match format {
        GraphFormat::Json => serde_json::json!({ "plans": plans }).to_string() + "\n",
        _ => dot,
    };
    set::print(&text)
}

/// `incomplete`: why the list may not be all the drift there is ([`planlens_changes::drift::incompleteness`]),
/// said in place of "No drift" or above the list.
fn drift_text(drift: &Drift, facts: Option<&DriftctlFacts>, incomplete: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(f) = facts {
        out.push_str(&format!("{} (report format {})\n", f.sentence(), f.format));
        for (_, message) in &f.alerts {
            out.push_str(&format!("alert: {}\n", visible(message)));
        }
    }
    if let Some(incomplete) = incomplete {
        out.push_str(&format!("{incomplete}\n"));
    }
    match drift.note() {
        Some(note) => out.push_str(&(note + "\n")),
        None if incomplete.is_some() => {}
        None => out.push_str(&format!(
            "No drift: nothing changed outside of {}.\n",
            drift.tool.name()
        )),
    }
    for r in &drift.resources {
        let what = if r.values_known || r.action == Action::Delete {
            format!(" ({})", visible(&r.what()))
        } else {
            String::new()
        };
        // A driftctl report has no plan to say anything about.
        let effect = match facts {
            Some(_) => String::new(),
            None => format!(" — {}", r.effect.sentence()),
        };
        out.push_str(&format!(
            "{:<10} {}{what}{effect}\n",
            r.severity.label(),
            visible(&r.address),
        ));
    }
    if let Some(f) = facts {
        for (t, id) in &f.unmanaged_resources {
            out.push_str(&format!(
                "{:<10} {} {}\n",
                "unmanaged",
                visible(t),
                visible(id)
            ));
        }
    }
    if !drift.resources.is_empty() {
        out.push_str(&format!("{}\n", drift.totals()));
    }
    out
}

/// One finding as `check` prints it: `deny  destroy-needs-approval: Destroy needs approval: …`.
fn finding_line(severity: &str, rule: &str, message: &str) -> String {
    format!("{severity:<5} {rule}: {}\n", visible(message))
}

/// `check --format json`'s object for one plan (with its `name` in a set).
fn check_json(doc: &Document, evaluation: &Evaluation, name: Option<&str>) -> serde_json::Value {
    let diagnostics = match &doc.source {
        Source::PlanLog(facts) => facts.diagnostics.as_slice(),
        _ => &[],
    };
    let findings: Vec<_> = evaluation
        .findings
        .iter()
        .map(|f| {
            serde_json::json!({
                "rule": f.rule_id,
                "severity": f.severity.key(),
                "message": f.message,
                "address": f.resource.map(|i| doc.change(&doc.rows[i]).address.to_string()),
            })
        })
        .collect();
    let mut out = serde_json::json!({
        "verdict": evaluation.verdict.key(),
        "planning": evaluation.planning.sentence(),
        "findings": findings,
        "rules": evaluation.rules_run,
        "diagnostics": diagnostics,
    });
    if let Some(name) = name {
        out["name"] = name.into();
    }
    out
}

/// What the paths of a command hold, for its one-plan or set path.
enum Plans {
    /// One plan: `Options::path`.
    One,
    /// Several: the plans and the files skipped.
    Set(Vec<planlens_load::set::Member>, Vec<(String, String)>),
}

/// Reads the command's paths and runs `run` with one plan (`o.path` set to it) or the set.
fn with_plans(mut o: Options, run: impl FnOnce(&Options, Plans) -> ExitCode) -> ExitCode {
    if o.paths.len() == 1 && o.paths[0] == "-" {
        return run(&o, Plans::One);
    }
    match set::gather(&o.paths) {
        Ok(set::Gathered::One(path)) => {
            o.path = path;
            run(&o, Plans::One)
        }
        Ok(set::Gathered::Set(members, problems)) => {
            for (name, why) in &problems {
                eprintln!("planlens: skipped {name}: {why}");
            }
            run(&o, Plans::Set(members, problems))
        }
        Err(code) => code,
    }
}

/// One plan's file as a set of one (for `summary --format json`).
fn one_member(path: &str) -> Result<Vec<planlens_load::set::Member>, ExitCode> {
    let bytes = read_input(path).map_err(|m| {
        eprintln!("planlens: {m}");
        ExitCode::from(3)
    })?;
    let mut expanded =
        planlens_load::set::expand(vec![(path.to_string(), bytes)]).map_err(|e| {
            eprintln!("planlens: {path}: {e}");
            ExitCode::from(3)
        })?;
    if let Some(m) = expanded.members.first_mut() {
        m.name = std::path::Path::new(path)
            .file_name()
            .map_or(path.into(), |n| n.to_string_lossy().to_string());
    }
    Ok(expanded.members)
}

/// Opens and judges a set under the command's rules, labels and policies.
fn judged(
    o: &Options,
    members: &[planlens_load::set::Member],
    shareable: bool,
) -> Result<Vec<set::Judged>, ExitCode> {
    let (rules, _) = rule_set(o.rules.as_deref())?;
    set::judge(members, &rules, &o.labels, &o.policy, shareable)
}

/// `summary` of several plans: text, JSON, or ONE Markdown comment for the whole set.
fn summary_set(
    o: &Options,
    members: &[planlens_load::set::Member],
    problems: &[(String, String)],
) -> ExitCode {
    let markdown = o.format.as_deref() == Some("markdown");
    let judged = match judged(o, members, markdown && o.base.is_some()) {
        Ok(j) => j,
        Err(code) => return code,
    };
    let text = match o.format.as_deref() {
        Some("json") => set::summary_json(&judged, problems),
        Some("markdown") => {
            let rows: Vec<_> = judged.iter().map(|j| j.row.clone()).collect();
            let link = o
                .base
                .as_deref()
                .map(|base| set_comment_link(o, base, &judged, members));
            let comment = planlens_session::share::set::comment(&rows, problems, link.as_ref());
            let rules = match rule_set(o.rules.as_deref()) {
                Ok((rules, _)) => rules,
                Err(code) => return code,
            };
            match compare::since_set_paragraph(members, &rows, &rules, &o.labels) {
                Ok(paragraph) => compare::put_on_top(paragraph, comment),
                Err(code) => return code,
            }
        }
        _ => set::summary_text(&judged, problems),
    };
    set::print(&text)
}

/// The link a set's comment carries: every plan when they fit, else the redacted roll-up.
fn set_comment_link(
    o: &Options,
    base: &str,
    judged: &[set::Judged],
    members: &[planlens_load::set::Member],
) -> CommentLink {
    let (full, rollup) = set_links(o, base, judged, members);
    choose_link(Some(full), None, rollup)
}

/// Both links of a set: the plans themselves, and the redacted roll-up.
fn set_links(
    o: &Options,
    base: &str,
    judged: &[set::Judged],
    members: &[planlens_load::set::Member],
) -> (String, String) {
    let view = LinkView {
        environment: o.labels.get("environment").cloned(),
        rules: o
            .rules
            .as_deref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .map(|t| planlens_load::link::encode(&t)),
        ..LinkView::default()
    };
    let rows: Vec<_> = judged.iter().map(|j| j.row.clone()).collect();
    let full =
        planlens_session::share::set::set_link(base, &set::shareable(judged, members), &view);
    let rollup = planlens_session::share::set::rollup_link(base, &rows, &view);
    (full, rollup)
}

/// `report` of several plans: one HTML file with every plan (each stripped as a full link
/// strips it), which opens on the roll-up.
fn report_set(
    r: &ReportOptions,
    app: &report::App,
    dir: &std::path::Path,
    members: &[planlens_load::set::Member],
) -> ExitCode {
    let judged = match judged(&r.plan, members, true) {
        Ok(j) => j,
        Err(code) => return code,
    };
    let shareable = set::shareable(&judged, members);
    let total: usize = shareable.iter().map(|m| m.text.len()).sum();
    let limit = planlens_load::link::MAX_DECODED_BYTES;
    if total > limit {
        eprintln!(
            "planlens: without their sensitive values the {} plans are still {}, more than the {} \
             a report (like a link) can carry; report fewer plans at a time",
            members.len(),
            planlens_load::error::megabytes(total),
            planlens_load::error::megabytes(limit),
        );
        return ExitCode::from(3);
    }
    let payload = planlens_session::share::set::set_payload(&shareable);
    let environment = r.plan.labels.get("environment").cloned();
    let rules = (r.plan.rules.as_deref())
        .and_then(|p| std::fs::read_to_string(p).ok())
        .map(|t| planlens_load::link::encode(&t));
    let name = format!("{} plans", members.len());
    let page = report::html(
        app,
        &report::Plan {
            payload: &payload,
            name: &name,
            rules: rules.as_deref(),
            environment: environment.as_deref(),
            set: true,
        },
    );
    let what = format!("{} plans", members.len());
    write_report(r, &page, &what, payload.len(), dir)
}

/// Writes a report's page where `-o` says and says what it holds (`what`: the plan, 3 plans).
fn write_report(
    r: &ReportOptions,
    page: &str,
    what: &str,
    payload: usize,
    dir: &std::path::Path,
) -> ExitCode {
    let written = if r.output == "-" {
        std::io::stdout().lock().write_all(page.as_bytes())
    } else {
        std::fs::write(&r.output, page)
    };
    if let Err(e) = written {
        eprintln!("planlens: cannot write {}: {e}", r.output);
        return ExitCode::from(1);
    }
    eprintln!(
        "planlens: wrote {}: {} ({what} {}, the app {} from {}); sensitive values removed as in \
         a full share link",
        r.output,
        size(page.len()),
        size(payload),
        size(page.len() - payload),
        dir.display()
    );
    ExitCode::SUCCESS
}

/// `check` of several plans: each plan's findings, the worst plan's exit code.
fn check_set(o: &Options, members: &[planlens_load::set::Member]) -> ExitCode {
    let judged = match judged(o, members, false) {
        Ok(j) => j,
        Err(code) => return code,
    };
    let text = if o.format.as_deref() == Some("json") {
        set::check_json(&judged)
    } else {
        set::check_text(&judged)
    };
    match set::print(&text) {
        code if code != ExitCode::SUCCESS => code,
        _ => ExitCode::from(set::exit_code(&judged)),
    }
}

/// `link` of several plans: the plans themselves when the link fits a comment (`--redacted`:
/// never), else the redacted roll-up.
fn link_set(o: &Options, members: &[planlens_load::set::Member]) -> ExitCode {
    if compare::since().is_some() {
        eprintln!(
            "planlens: a link of several plans cannot carry the last plans too; \
             `summary --format markdown --since URL` says what changed since them"
        );
        return ExitCode::from(64);
    }
    let judged = match judged(o, members, !o.redacted) {
        Ok(j) => j,
        Err(code) => return code,
    };
    let base = o.base.as_deref().unwrap_or_default();
    let (full, rollup) = set_links(o, base, &judged, members);
    let url = if o.redacted {
        rollup
    } else {
        match choose_link(Some(full.clone()), None, rollup) {
            CommentLink::Full(url) => url,
            CommentLink::Redacted(url) => {
                eprintln!(
                    "planlens: the plans make a link of {} characters, too long for a comment: \
                     this is the redacted roll-up (names, counts, addresses, findings; no values). \
                     `planlens report` writes every plan into one file.",
                    full.len()
                );
                url
            }
            _ => full,
        }
    };
    set::print(&format!("{url}\n"))
}
