//! `planlens compare OLD NEW` and `--since URL`: what changed since the last review, as text, JSON
//! or the Markdown paragraph for the top of a PR comment. Exit 0 when nothing differs, 1 when
//! something does, 3 when an input cannot be read, 64 on wrong usage.
//!
//! OLD may be a Planlens share link: a full link opens the plan it carries; a redacted link is
//! compared by what it carries (addresses, actions, drift, findings) and the output says so. The
//! comparison and its texts are the core's (`planlens_changes::compare`,
//! `planlens_session::compare`); this file reads arguments and prints.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;
use std::sync::OnceLock;

use serde_json::{Value, json};

use planlens_load::fragment::Fragment;
use planlens_model::Document;
use planlens_model::mask::Mask;
use planlens_model::text::visible;
use planlens_readers::Direct;
use planlens_rules::{Evaluation, RuleSet};
use planlens_session::compare::{
    JudgedComparison, compare_judged, markdown_since, match_members, match_sets, named, text_since,
};

use crate::{finish, mask_for, open_or_report, rule_set, usage};

/// `--since URL`, taken out of the arguments before a subcommand reads them (`compare` and
/// `summary --format markdown` read it).
static SINCE: OnceLock<Option<String>> = OnceLock::new();

/// Splits `--since URL` off the arguments; `None` when `--since` has no value or is given twice.
pub fn take_since(args: Vec<String>) -> Option<Vec<String>> {
    let (mut rest, mut since) = (Vec::new(), None);
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        if arg == "--since" {
            let url = it.next().filter(|u| !u.trim().is_empty())?;
            if since.replace(url).is_some() {
                return None;
            }
        } else {
            rest.push(arg);
        }
    }
    SINCE.get_or_init(|| since);
    Some(rest)
}

pub fn since() -> Option<&'static str> {
    SINCE.get().and_then(Option::as_deref)
}

/// True when `arg` is a Planlens link rather than a file path.
fn is_link(arg: &str) -> bool {
    arg.starts_with("https://") || arg.starts_with("http://") || arg.contains("#p=")
}

/// Opens the plan a share link carries: a full link's plan, or a redacted link's values-free one.
fn open_link(url: &str, mask: &Mask) -> Result<Document, ExitCode> {
    let fail = |message: String| {
        eprintln!("planlens: {message}");
        ExitCode::from(3)
    };
    let Some((_, hash)) = url.split_once('#') else {
        return Err(fail(format!(
            "{url}: not a Planlens link that carries a plan (no #fragment)"
        )));
    };
    let fragment = Fragment::parse(hash);
    let Some(payload) = fragment.plan else {
        return Err(fail(
            "the link carries no plan (`p=`): a `?url=` or roll-up link cannot be compared; \
             give the plan file instead"
                .to_string(),
        ));
    };
    let text = planlens_load::link::decode(&payload).map_err(|e| fail(e.to_string()))?;
    let name = fragment
        .name
        .unwrap_or_else(|| "the last plan (link)".into());
    planlens_load::load_plan_text_with(text, &name, mask, &Direct)
        .map_err(|e| fail(format!("the link's plan: {e}")))
}

pub fn open_either(arg: &str, mask: &Mask) -> Result<Document, ExitCode> {
    if is_link(arg) {
        open_link(arg, mask)
    } else {
        open_or_report(arg, mask)
    }
}

struct CompareOptions {
    old: String,
    new: String,
    format: String,
    rules: Option<String>,
    labels: BTreeMap<String, String>,
}

impl CompareOptions {
    fn parse(args: &[&str]) -> Option<CompareOptions> {
        let (mut paths, mut format, mut rules, mut labels) =
            (Vec::new(), None, None, BTreeMap::new());
        let mut it = args.iter();
        while let Some(&arg) = it.next() {
            match arg {
                "--format" => {
                    let f = *it.next()?;
                    if !["text", "json", "markdown"].contains(&f) || format.is_some() {
                        return None;
                    }
                    format = Some(f.to_string());
                }
                "--rules" => {
                    if rules.replace(it.next()?.to_string()).is_some() {
                        return None;
                    }
                }
                "--label" => {
                    let (k, v) = it.next()?.split_once('=')?;
                    labels.insert(k.trim().to_string(), v.trim().to_string());
                }
                "-" => paths.push(arg.to_string()),
                a if a.starts_with("--") => return None,
                a => paths.push(a.to_string()),
            }
        }
        let (old, new) = match (since(), paths.as_slice()) {
            (Some(url), [new]) => (url.to_string(), new.clone()),
            (None, [old, new]) => (old.clone(), new.clone()),
            _ => return None,
        };
        Some(CompareOptions {
            old,
            new,
            format: format.unwrap_or_else(|| "text".into()),
            rules,
            labels,
        })
    }
}

/// `planlens compare OLD NEW [--format text|json|markdown] [--rules FILE] [--label K=V]…`, OLD
/// also as `--since URL`.
pub fn run(args: &[&str]) -> ExitCode {
    let Some(o) = CompareOptions::parse(args) else {
        return usage();
    };
    let (rules, _) = match rule_set(o.rules.as_deref()) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let mask = mask_for(Some(&rules));
    // A link that carries several plans (`s=`) against NEW's plans, matched by name.
    if is_link(&o.old) {
        match link_set(&o.old) {
            Ok(None) => {}
            Ok(Some(LinkSet::Plans(old))) => {
                return match crate::set::gather(std::slice::from_ref(&o.new)) {
                    Ok(crate::set::Gathered::Set(new, _)) => {
                        compare_sets(&old, &new, &o, &rules, &mask)
                    }
                    Ok(crate::set::Gathered::One(_)) => {
                        eprintln!(
                            "planlens: the link carries {} plans and {} is one: compare a set \
                             with a set (matched by name)",
                            old.len(),
                            o.new
                        );
                        ExitCode::from(64)
                    }
                    Err(code) => code,
                };
            }
            Ok(Some(LinkSet::Rows(_))) => {
                eprintln!(
                    "planlens: the link is a redacted roll-up: it carries rows, not plans. \
                     `planlens summary --format markdown --since URL PLANS…` compares its plans' \
                     addresses and actions; give the older plans' files to compare them whole"
                );
                return ExitCode::from(3);
            }
            Err(code) => return code,
        }
    }
    // Two sets of plans (folders, archives, several plans in a text): matched by name.
    if !is_link(&o.old) && o.old != "-" && o.new != "-" {
        let gathered = (
            crate::set::gather(std::slice::from_ref(&o.old)),
            crate::set::gather(std::slice::from_ref(&o.new)),
        );
        match gathered {
            (Err(code), _) | (_, Err(code)) => return code,
            (Ok(crate::set::Gathered::Set(old, _)), Ok(crate::set::Gathered::Set(new, _))) => {
                return compare_sets(&old, &new, &o, &rules, &mask);
            }
            (Ok(crate::set::Gathered::Set(..)), _) | (_, Ok(crate::set::Gathered::Set(..))) => {
                eprintln!(
                    "planlens: one side is several plans and the other one plan: compare a set \
                     with a set (matched by name), or one plan with one plan"
                );
                return ExitCode::from(64);
            }
            _ => {}
        }
    }
    let (old, new) = match (open_either(&o.old, &mask), open_either(&o.new, &mask)) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let judged = compare_judged(&old, &new, &rules, &o.labels);
    let text = match o.format.as_str() {
        "json" => json_of(&judged).to_string() + "\n",
        "markdown" => markdown_since(&judged),
        _ => text_since(&judged),
    };
    match finish(std::io::stdout().lock().write_all(text.as_bytes())) {
        code if code != ExitCode::SUCCESS => code,
        _ if judged.is_empty() => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    }
}

/// Two sets compared plan by plan, matched by name (`session::compare::match_members`, which the
/// page's roll-up uses too): the plans only in NEW, the plans gone, and
/// each plan in both compared as two plans are (`{"plans_added", "plans_removed", "plans":
/// [{name, …one comparison…}]}`; text and markdown one section per plan that differs).
fn compare_sets(
    old: &[planlens_load::set::Member],
    new: &[planlens_load::set::Member],
    o: &CompareOptions,
    rules: &RuleSet,
    mask: &Mask,
) -> ExitCode {
    let open = |m: &planlens_load::set::Member| {
        planlens_load::load_plan_text_with(m.text.clone(), &m.name, mask, &Direct).map_err(|e| {
            eprintln!("planlens: {}: {e}", m.name);
            ExitCode::from(3)
        })
    };
    let matched = match_members(old, new);
    let added: Vec<&str> = (matched.added.iter())
        .map(|&i| new[i].name.as_str())
        .collect();
    let removed: Vec<&str> = (matched.removed.iter())
        .map(|&i| old[i].name.as_str())
        .collect();
    let mut plans = Vec::new();
    let mut sections = String::new();
    let mut differs = !added.is_empty() || !removed.is_empty();
    for &(m, n) in &matched.pairs {
        let (m, n) = (&old[m], &new[n]);
        let (old_doc, new_doc) = match (open(m), open(n)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(code), _) | (_, Err(code)) => return code,
        };
        let judged = compare_judged(&old_doc, &new_doc, rules, &o.labels);
        if judged.is_empty() {
            continue;
        }
        differs = true;
        let mut entry = json_of(&judged);
        entry["name"] = n.name.clone().into();
        plans.push(entry);
        match o.format.as_str() {
            "markdown" => sections.push_str(&format!(
                "**{}** — {}\n",
                planlens_session::share::markdown::escape(&n.name),
                markdown_since(&judged).trim_end()
            )),
            "json" => {}
            _ => sections.push_str(&format!(
                "== {} ==\n{}",
                visible(&n.name),
                text_since(&judged)
            )),
        }
    }
    let same = new.len() - added.len() - plans.len();
    let text = match o.format.as_str() {
        "json" => {
            json!({ "plans_added": added, "plans_removed": removed, "plans": plans, "plans_unchanged": same })
                .to_string()
                + "\n"
        }
        _ => {
            let mut head = String::new();
            for name in &added {
                head.push_str(&format!("+ new plan            {}\n", visible(name)));
            }
            for name in &removed {
                head.push_str(&format!("- plan gone           {}\n", visible(name)));
            }
            head.push_str(&sections);
            head.push_str(&format!(
                "{} of {} plans as before.\n",
                same,
                new.len()
            ));
            head
        }
    };
    match finish(std::io::stdout().lock().write_all(text.as_bytes())) {
        code if code != ExitCode::SUCCESS => code,
        _ if differs => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    }
}

/// The JSON the README documents: addresses for what was added or removed, and the rest as the
/// comparison holds it.
fn json_of(judged: &JudgedComparison) -> Value {
    let c = &judged.comparison;
    let addresses = |list: &[planlens_changes::compare::Planned]| -> Vec<String> {
        list.iter().map(|p| p.address.clone()).collect()
    };
    json!({
        "added": addresses(&c.added),
        "removed": addresses(&c.removed),
        "action_changed": c.action_changed,
        "values_changed": c.values_changed,
        "moved": c.moved,
        "drift_appeared": c.drift_appeared,
        "drift_gone": c.drift_gone,
        "findings_added": judged.findings_added,
        "findings_resolved": judged.findings_resolved,
        "verdict": judged.verdict,
        "unchanged": c.unchanged,
        "values_compared": c.values_compared,
        "old_is_redacted": c.old_is_redacted,
    })
}

/// For `summary --format markdown --since URL`: the paragraph comparing the link's plan with
/// `doc` (already evaluated), or nothing without `--since`.
pub fn since_paragraph(
    doc: &Document,
    evaluation: &Evaluation,
    rules: &RuleSet,
    labels: &BTreeMap<String, String>,
) -> Result<Option<String>, ExitCode> {
    let Some(url) = since() else {
        return Ok(None);
    };
    let old = open_either(url, &mask_for(Some(rules)))?;
    let old_evaluation =
        planlens_session::analysis::Analysis::of(&old).evaluate(&old, rules, labels);
    let judged = planlens_session::compare::judged(&old, &old_evaluation, doc, evaluation);
    Ok(Some(markdown_since(&judged)))
}

/// What a link of several plans carries: the plans (`s=`), or a redacted roll-up's rows (`ru=`).
pub enum LinkSet {
    Plans(Vec<planlens_load::set::Member>),
    Rows(Vec<planlens_fleet::PlanRow>),
}

/// The plans a set link carries, or `None` for a link of one plan (or none).
pub fn link_set(url: &str) -> Result<Option<LinkSet>, ExitCode> {
    let fail = |message: String| {
        eprintln!("planlens: the --since link: {message}");
        ExitCode::from(3)
    };
    let Some((_, hash)) = url.split_once('#') else {
        return Ok(None);
    };
    let fragment = Fragment::parse(hash);
    if let Some(payload) = fragment.set {
        let json = planlens_load::link::decode(&payload).map_err(|e| fail(e.to_string()))?;
        let members = planlens_load::set::read_payload(&json).map_err(|e| fail(e.to_string()))?;
        return Ok(Some(LinkSet::Plans(members)));
    }
    if let Some(payload) = fragment.rollup {
        let json = planlens_load::link::decode(&payload).map_err(|e| fail(e.to_string()))?;
        let rows = serde_json::from_str(&json).map_err(|e| fail(e.to_string()))?;
        return Ok(Some(LinkSet::Rows(rows)));
    }
    Ok(None)
}

/// For `summary --format markdown --since URL` of several plans: the paragraph saying what
/// changed since the plans the link carries, matched by name — with a set link each plan is
/// compared whole (as `planlens compare` does); with a redacted roll-up, each plan's changes by
/// address and action and its verdict, and the paragraph says so. Nothing without `--since`.
pub fn since_set_paragraph(
    new: &[planlens_load::set::Member],
    rows: &[planlens_fleet::PlanRow],
    rules: &RuleSet,
    labels: &BTreeMap<String, String>,
) -> Result<Option<String>, ExitCode> {
    let Some(url) = since() else {
        return Ok(None);
    };
    match link_set(url)? {
        None => Ok(Some(format!(
            "**Since the last plan:** the last comment's link carries one plan and these are {} \
             plans, so they were not compared.\n",
            new.len()
        ))),
        Some(LinkSet::Plans(old)) => {
            let mask = mask_for(Some(rules));
            let open = |m: &planlens_load::set::Member| {
                planlens_load::load_plan_text_with(m.text.clone(), &m.name, &mask, &Direct)
            };
            let matched = match_members(&old, new);
            let mut lines = Vec::new();
            for &(o, n) in &matched.pairs {
                let name = code_name(&new[n].name);
                let (Ok(a), Ok(b)) = (open(&old[o]), open(&new[n])) else {
                    lines.push(format!(
                        "- {name}: could not be compared (one side does not open)"
                    ));
                    continue;
                };
                let judged = compare_judged(&a, &b, rules, labels);
                if !judged.is_empty() {
                    let text = markdown_since(&judged);
                    let text = text.trim_end();
                    let text = text
                        .strip_prefix("**Since the last plan:** ")
                        .unwrap_or(text);
                    lines.push(format!("- {name}: {text}"));
                }
            }
            let names = |set: &[planlens_load::set::Member]| -> Vec<String> {
                set.iter().map(|m| m.name.clone()).collect()
            };
            Ok(Some(set_paragraph(&names(&old), &names(new), lines, None)))
        }
        Some(LinkSet::Rows(old)) => {
            let names = |set: &[planlens_fleet::PlanRow]| -> Vec<String> {
                set.iter().map(|r| r.name.clone()).collect()
            };
            let (old_names, new_names) = (names(&old), names(rows));
            let matched = match_sets(&strs(&old_names), &strs(&new_names));
            let lines = (matched.pairs.iter())
                .filter_map(|&(o, n)| row_since(&old[o], &rows[n]))
                .collect();
            Ok(Some(set_paragraph(
                &old_names,
                &new_names,
                lines,
                Some(
                    "_The last link is a redacted roll-up: each plan's addresses, actions and \
                     verdict were compared, not values._",
                ),
            )))
        }
    }
}

fn strs(names: &[String]) -> Vec<&str> {
    names.iter().map(String::as_str).collect()
}

/// A name or address as a Markdown code span.
fn code_name(name: &str) -> String {
    format!("`{}`", planlens_session::share::markdown::code(name))
}

/// One plan's line of a set's paragraph from two roll-up rows (a redacted roll-up carries no
/// plans): its changes new, no longer planned and whose action changed, by address, and the
/// verdict before → after; `None` when none of these differ.
fn row_since(before: &planlens_fleet::PlanRow, row: &planlens_fleet::PlanRow) -> Option<String> {
    use planlens_model::text::count;
    let action_of = |r: &planlens_fleet::PlanRow, a: &str| {
        (r.changes.iter())
            .find(|c| c.address == a)
            .map(|c| c.action.clone())
    };
    let added: Vec<String> = (row.changes.iter())
        .filter(|c| action_of(before, &c.address).is_none())
        .map(|c| format!("{}: {}", code_name(&c.address), c.action))
        .collect();
    let gone: Vec<String> = (before.changes.iter())
        .filter(|c| action_of(row, &c.address).is_none())
        .map(|c| format!("{}: {}", code_name(&c.address), c.action))
        .collect();
    let changed: Vec<String> = (row.changes.iter())
        .filter_map(|c| {
            let was = action_of(before, &c.address)?;
            (was != c.action).then(|| format!("{}: {was} → {}", code_name(&c.address), c.action))
        })
        .collect();
    let mut parts: Vec<String> = [
        (added, "new change", "new changes"),
        (
            gone,
            "change no longer planned",
            "changes no longer planned",
        ),
        (changed, "action changed", "actions changed"),
    ]
    .into_iter()
    .filter(|(list, ..)| !list.is_empty())
    .map(|(list, one, many)| format!("{} ({})", count(list.len(), one, many), named(list)))
    .collect();
    if before.verdict != row.verdict {
        let label =
            |v: Option<planlens_model::findings::Verdict>| v.map_or("no verdict", |v| v.label());
        parts.push(format!(
            "verdict {} → {}",
            label(before.verdict),
            label(row.verdict)
        ));
    }
    (!parts.is_empty()).then(|| format!("- {}: {}.", code_name(&row.name), parts.join(", ")))
}

/// The set's paragraph: plans new and gone (`session::compare::match_sets`), one line per plan
/// that changed, how many as before.
fn set_paragraph(old: &[String], new: &[String], lines: Vec<String>, note: Option<&str>) -> String {
    use planlens_model::text::count;
    let matched = match_sets(&strs(old), &strs(new));
    let added: Vec<String> = matched.added.iter().map(|&i| code_name(&new[i])).collect();
    let gone: Vec<String> = matched
        .removed
        .iter()
        .map(|&i| code_name(&old[i]))
        .collect();
    let mut parts = Vec::new();
    if !added.is_empty() {
        parts.push(format!(
            "{} ({})",
            count(added.len(), "new plan", "new plans"),
            added.join(", ")
        ));
    }
    if !gone.is_empty() {
        parts.push(format!(
            "{} ({})",
            count(gone.len(), "plan gone", "plans gone"),
            gone.join(", ")
        ));
    }
    if !lines.is_empty() {
        parts.push(format!("{} changed", count(lines.len(), "plan", "plans")));
    }
    let same = new.len() - added.len() - lines.len();
    let mut out = if parts.is_empty() {
        "**Since the last plans:** nothing changed".to_string()
    } else {
        format!("**Since the last plans:** {}", parts.join(", "))
    };
    out.push_str(&format!("; {} as before.", count(same, "plan", "plans")));
    if let Some(note) = note {
        out.push(' ');
        out.push_str(note);
    }
    out.push('\n');
    if !lines.is_empty() {
        out.push('\n');
        out.push_str(&lines.join("\n"));
        out.push('\n');
    }
    out
}

/// The comment with the paragraph under its title line, within GitHub's limit.
pub fn put_on_top(paragraph: Option<String>, comment: String) -> String {
    match paragraph {
        Some(p) => planlens_session::compare::comment_with_since(comment, &p),
        None => comment,
    }
}
