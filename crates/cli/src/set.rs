//! Several plans at once: `summary`, `check`, `drift`, `link` and `report` given several files,
//! a folder, an archive or a text of several plans (an Atlantis or digger comment, a Terragrunt
//! log, plans one after another). The files are expanded and named by `load::set::expand`; each
//! plan is opened and judged by the one-plan path on its own (`session::set`), on every core;
//! the roll-up's order, headline and combined verdict are `fleet::plans`'.
//!
//! One plan given alone keeps the one-plan output byte for byte: [`gather`] says
//! [`Gathered::One`] for it.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use planlens_fleet::PlanRow;
use planlens_fleet::plans;
use planlens_load::set::Member;
use planlens_model::findings::Verdict;
use planlens_model::text::visible;
use planlens_readers::Direct;
use planlens_rules::RuleSet;
use planlens_session::OpenOptions;
use planlens_session::set::row_of;

use crate::policies::{self, PolicyArgs};

/// What the paths on the command line hold.
pub enum Gathered {
    /// One plan (one file that holds one plan, or `-`): the one-plan commands read it.
    One(String),
    /// Several plans, named, and the files skipped (name, why).
    Set(Vec<Member>, Vec<(String, String)>),
}

/// Folders never read into a set: Terraform's and Terragrunt's caches, version control.
const SKIPPED_DIRS: [&str; 4] = [".terraform", ".terragrunt-cache", ".git", "node_modules"];

/// Every file under `dir`, in path order, with its path as given (`dir/sub/file`).
fn walk(dir: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        if path.is_dir() {
            if !SKIPPED_DIRS.contains(&name.as_str()) {
                walk(&path, out)?;
            }
        } else if !name.starts_with('.') {
            out.push(path.to_string_lossy().to_string());
        }
    }
    Ok(())
}

/// Reads the paths (files, folders, `-`): one plan, or the set they hold. Exit code 3 with a
/// message when one cannot be read or none holds a plan.
pub fn gather(paths: &[String]) -> Result<Gathered, ExitCode> {
    let fail = |message: String| {
        eprintln!("planlens: {message}");
        ExitCode::from(3)
    };
    let mut files = Vec::new();
    for path in paths {
        if path != "-" && Path::new(path).is_dir() {
            let mut found = Vec::new();
            walk(Path::new(path), &mut found)
                .map_err(|e| fail(format!("cannot read {path}: {e}")))?;
            if found.is_empty() {
                return Err(fail(format!("{path}: the folder holds no file")));
            }
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    let mut read = Vec::new();
    for path in &files {
        read.push((path.clone(), crate::read_input(path).map_err(fail)?));
    }
    if let [(path, bytes)] = read.as_slice()
        && !planlens_session::set::may_hold_several(bytes)
    {
        return Ok(Gathered::One(path.clone()));
    }
    let single = (files.len() == 1 && paths.len() == 1 && !Path::new(&paths[0]).is_dir())
        .then(|| files[0].clone());
    let expanded = planlens_load::set::expand(read).map_err(|e| fail(e.to_string()))?;
    match (expanded.members.len(), single) {
        (0, _) => Err(fail(format!(
            "no plan in {}{}",
            paths.join(", "),
            (expanded.problems.iter())
                .map(|(n, why)| format!("; {n}: {why}"))
                .collect::<String>()
        ))),
        (1, Some(path)) if expanded.problems.is_empty() => Ok(Gathered::One(path)),
        _ => Ok(Gathered::Set(expanded.members, expanded.problems)),
    }
}

/// One plan of a set, opened and judged.
pub struct Judged {
    /// Its roll-up row.
    pub row: PlanRow,
    /// What a full link carries of it (sensitive values removed); only when asked for.
    pub shareable: Option<String>,
    /// Its `check --format json` entry's findings, diagnostics and planning sentence.
    pub check: serde_json::Value,
}

/// Opens and judges every member on every core (rules, their `[[plans]]` labels, policies),
/// in roll-up order. `shareable`: also keep each plan's link text.
pub fn judge(
    members: &[Member],
    rules: &RuleSet,
    labels: &BTreeMap<String, String>,
    policy: &PolicyArgs,
    shareable: bool,
) -> Result<Vec<Judged>, ExitCode> {
    let options = OpenOptions {
        name: String::new(),
        mask_builtin: rules.mask().uses_builtin(),
        mask_user: crate::mask_for(Some(rules)).user_patterns().to_vec(),
        rules: None,
        labels: labels.clone(),
    };
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<Result<Judged, ExitCode>>>> =
        Mutex::new((0..members.len()).map(|_| None).collect());
    // WASI (the npm package's CLI) has no threads: one after the other there.
    let threads = if cfg!(target_family = "wasm") {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(members.len())
            .max(1)
    };
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(member) = members.get(i) else {
                break;
            };
            let judged = judge_one(member, i, &options, rules, labels, policy, shareable);
            if let Ok(mut out) = out.lock() {
                out[i] = Some(judged);
            }
        }
    };
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(work);
            }
        });
    }
    let mut by_member = Vec::new();
    for item in out.into_inner().unwrap_or_default() {
        by_member.push(Some(item.unwrap_or(Err(ExitCode::from(3)))?));
    }
    let mut order: Vec<PlanRow> = (by_member.iter().flatten())
        .map(|j| j.row.clone())
        .collect();
    plans::sort(&mut order);
    Ok((order.iter())
        .filter_map(|r| by_member.get_mut(r.member).and_then(Option::take))
        .collect())
}

fn judge_one(
    member: &Member,
    index: usize,
    options: &OpenOptions,
    rules: &RuleSet,
    labels: &BTreeMap<String, String>,
    policy: &PolicyArgs,
    shareable: bool,
) -> Result<Judged, ExitCode> {
    let (row, session) = row_of(member, index, options, rules, &Direct);
    let Some(session) = session else {
        let check = serde_json::json!({
            "name": member.name,
            "verdict": Verdict::PlanningFailed.key(),
            "planning": row.error,
            "findings": [],
            "rules": 0,
            "diagnostics": [],
        });
        return Ok(Judged {
            row,
            shareable: None,
            check,
        });
    };
    let doc = session.document();
    let plan_labels = session.plan_labels(&member.name, rules, labels);
    let evaluation = session.analysis().evaluate(doc, rules, &plan_labels);
    let evaluation = policies::apply(policy, doc, evaluation, &plan_labels)?;
    let mut row = session.plan_row_with(&member.name, index, &evaluation);
    row.labels = plan_labels;
    let check = crate::check_json(doc, &evaluation, Some(&member.name));
    Ok(Judged {
        row,
        shareable: shareable.then(|| planlens_session::share::strip::shareable_text(doc)),
        check,
    })
}

/// Rows of judged plans.
fn rows(judged: &[Judged]) -> Vec<PlanRow> {
    judged.iter().map(|j| j.row.clone()).collect()
}

/// `summary` of a set: the headline, then one line per plan, then each plan's changes.
pub fn summary_text(judged: &[Judged], problems: &[(String, String)]) -> String {
    let rows = rows(judged);
    let mut out = format!("{}\n", plans::headline(&rows));
    if let Some(v) = plans::worst_verdict(&rows) {
        out.push_str(&format!(
            "Verdict: {} (the worst of the plans)\n",
            v.label()
        ));
    }
    let width = rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0);
    for r in &rows {
        out.push_str(&format!(
            "  {:<14} {:<width$}  {}\n",
            r.attention.label(),
            visible(&r.name),
            visible(r.error.as_deref().unwrap_or(&r.summary)),
        ));
    }
    for (name, why) in problems {
        out.push_str(&format!(
            "  {:<14} {:<width$}  {}\n",
            "skipped",
            visible(name),
            visible(why)
        ));
    }
    for r in rows
        .iter()
        .filter(|r| !r.changes.is_empty() || !r.drift.is_empty())
    {
        out.push_str(&format!("\n== {} ==\n", visible(&r.name)));
        for c in &r.changes {
            let symbol = planlens_model::Action::from_key(&c.action).map_or("?", |a| a.symbol());
            out.push_str(&format!("{symbol:>3} {}\n", visible(&c.address)));
        }
        for d in &r.drift {
            out.push_str(&format!("    {} (changed outside Terraform)\n", visible(d)));
        }
    }
    out
}

/// `summary --format json`: `{"headline", "verdict", "plans": [{name, summary, verdict, …}],
/// "skipped": [{name, why}]}`, plans in roll-up order.
pub fn summary_json(judged: &[Judged], problems: &[(String, String)]) -> String {
    let rows = rows(judged);
    let plans_json: Vec<serde_json::Value> = (rows.iter())
        .map(|r| {
            serde_json::json!({
                "name": r.name,
                "summary": r.summary,
                "verdict": r.verdict.map(Verdict::key),
                "attention": r.attention.key(),
                "kind": r.kind,
                "counts": {
                    "import": r.counts.import,
                    "add": r.counts.add,
                    "change": r.counts.change,
                    "destroy": r.counts.destroy,
                    "replace": r.counts.replace,
                    "forget": r.counts.forget,
                    "move": r.counts.moves,
                    "drifted": r.counts.drifted,
                    "outputs": r.counts.outputs,
                },
                "destructive": (r.changes.iter())
                    .filter(|c| c.is_destructive())
                    .map(|c| serde_json::json!({"address": c.address, "action": c.action}))
                    .collect::<Vec<_>>(),
                "drifted": r.drift,
                "findings": (r.findings.iter())
                    .map(|f| serde_json::json!({
                        "rule": f.rule,
                        "severity": f.severity.key(),
                        "message": f.message,
                        "address": f.address,
                    }))
                    .collect::<Vec<_>>(),
                "error": r.error,
            })
        })
        .collect();
    serde_json::json!({
        "headline": plans::headline(&rows),
        "verdict": plans::worst_verdict(&rows).map(Verdict::key),
        "plans": plans_json,
        "skipped": (problems.iter())
            .map(|(n, why)| serde_json::json!({"name": n, "why": why}))
            .collect::<Vec<_>>(),
    })
    .to_string()
        + "\n"
}

/// `check` of a set: each plan's findings under its name, then the combined verdict.
pub fn check_text(judged: &[Judged]) -> String {
    let mut out = String::new();
    for j in judged {
        let r = &j.row;
        let verdict = match (&r.error, r.verdict) {
            (Some(e), _) => format!("could not be read: {e}"),
            (None, Some(v)) => v.label().to_string(),
            (None, None) => "no verdict".to_string(),
        };
        out.push_str(&format!(
            "== {}: {} ==\n",
            visible(&r.name),
            visible(&verdict)
        ));
        for f in &r.findings {
            out.push_str(&crate::finding_line(f.severity.key(), &f.rule, &f.message));
        }
    }
    let rows = rows(judged);
    out.push_str(&format!(
        "Verdict: {} ({})\n",
        plans::worst_verdict(&rows).map_or("no verdict: no plan", Verdict::label),
        plans::headline(&rows)
    ));
    out
}

/// `check --format json` of a set: `{"verdict", "plans": [{name, verdict, planning, findings,
/// rules, diagnostics}]}`.
pub fn check_json(judged: &[Judged]) -> String {
    let rows = rows(judged);
    serde_json::json!({
        "verdict": plans::worst_verdict(&rows).map(Verdict::key),
        "headline": plans::headline(&rows),
        "plans": judged.iter().map(|j| j.check.clone()).collect::<Vec<_>>(),
    })
    .to_string()
        + "\n"
}

/// `check`'s exit code for a set: the worst plan's (4 planning failed, 3 not a plan, 2 needs
/// approval, 1 warn or incomplete, 0 pass).
pub fn exit_code(judged: &[Judged]) -> u8 {
    (judged.iter())
        .map(|j| {
            if j.row.error.is_some() {
                Verdict::PlanningFailed.exit_code()
            } else {
                j.row.verdict.unwrap_or(Verdict::NotAPlan).exit_code()
            }
        })
        .max()
        .unwrap_or(3)
}

/// The members as a link carries them: each plan stripped of its sensitive values.
pub fn shareable(judged: &[Judged], members: &[Member]) -> Vec<Member> {
    let mut out: Vec<(usize, Member)> = (judged.iter())
        .map(|j| {
            let m = &members[j.row.member];
            (
                j.row.member,
                Member {
                    name: m.name.clone(),
                    text: j.shareable.clone().unwrap_or_else(|| m.text.clone()),
                },
            )
        })
        .collect();
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, m)| m).collect()
}

/// Writes `text` to stdout.
pub fn print(text: &str) -> ExitCode {
    crate::finish(std::io::stdout().lock().write_all(text.as_bytes()))
}
