//! What leaves Planlens about a set of plans: ONE pull-request comment for the whole set (the
//! roll-up table, then each plan's destructive changes and findings in `<details>`), and the
//! links that reopen the roll-up — the plans themselves (`s=`, each stripped as a full link
//! strips it) when they fit, else the redacted roll-up (`ru=`, its rows: names, counts,
//! addresses, actions, findings; no value).
//!
//! The comment is never over [`GITHUB_COMMENT_LIMIT`]: the table always comes first; plans are
//! detailed in roll-up order (what needs a person first) while they fit, and the ones left out
//! are counted, saying where to see them.

use planlens_fleet::Attention;
use planlens_fleet::plans::{self, PlanRow};
use planlens_load::set::Member;
use planlens_model::findings::{RuleSeverity, Verdict};

use super::GITHUB_COMMENT_LIMIT;
use super::fragment::{self, Fragment, LinkView};
use super::markdown::{CommentLink, code, escape};

/// At most this many changes and findings are listed in one plan's details.
const DETAIL_LINES: usize = 40;

/// The icon of a verdict, as the one-plan comment shows it.
fn icon(verdict: Option<Verdict>) -> &'static str {
    match verdict {
        Some(Verdict::Pass) => "✅",
        Some(Verdict::Warn | Verdict::Incomplete) => "⚠️",
        Some(Verdict::NeedsApproval) => "⛔",
        Some(Verdict::PlanningFailed) => "❌",
        Some(Verdict::NotAPlan) | None => "ℹ️",
    }
}

/// One row of the roll-up table.
fn table_row(row: &PlanRow) -> String {
    let verdict = match (&row.error, row.verdict) {
        (Some(_), _) => "❌ could not be read".to_string(),
        (None, Some(v)) => format!("{} {}", icon(Some(v)), v.label()),
        (None, None) if row.policy_error.is_some() => "⚠️ no verdict: policies failed".to_string(),
        (None, None) => "ℹ️ no verdict".to_string(),
    };
    let destructive = (row.changes.iter()).filter(|c| c.is_destructive()).count();
    let findings = row.finding_counts();
    format!(
        "| `{}` | {} | {} | {} | {} | {} |",
        code(&row.name),
        verdict,
        escape(&row.summary),
        if destructive == 0 {
            String::new()
        } else {
            destructive.to_string()
        },
        if row.drift.is_empty() {
            String::new()
        } else {
            row.drift.len().to_string()
        },
        findings,
    )
}

/// Text inside HTML (a `<summary>`'s `<code>`): the characters HTML reads escaped.
fn html(text: &str) -> String {
    planlens_model::text::visible(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace(['\n', '\r'], " ")
}

/// One plan's `<details>`: its findings, then what it destroys, replaces or forgets.
fn details(row: &PlanRow) -> Option<String> {
    let mut lines = Vec::new();
    if let Some(error) = &row.error {
        lines.push(format!("- ❌ {}", escape(error)));
    }
    if let Some(error) = &row.policy_error {
        let first = error.lines().next().unwrap_or_default();
        lines.push(format!(
            "- ⚠️ Rego policies could not run: {}",
            escape(first)
        ));
    }
    for f in (row.findings.iter()).filter(|f| f.severity != RuleSeverity::Info) {
        let mark = if f.severity == RuleSeverity::Deny {
            "⛔"
        } else {
            "⚠️"
        };
        let on = f
            .address
            .as_deref()
            .map_or(String::new(), |a| format!(" `{}`", code(a)));
        lines.push(format!(
            "- {mark} **{}**{on}: {}",
            escape(&f.rule),
            escape(&f.message)
        ));
    }
    for c in row.changes.iter().filter(|c| c.is_destructive()) {
        lines.push(format!(
            "- `{}` {}",
            code(&c.address),
            match c.action.as_str() {
                "delete" => "will be destroyed",
                "forget" => "will be forgotten (removed from the state)",
                "replace-forget" => "will be replaced, the old object forgotten",
                _ => "will be replaced",
            }
        ));
    }
    for address in &row.drift {
        lines.push(format!("- `{}` changed outside Terraform", code(address)));
    }
    if lines.is_empty() {
        return None;
    }
    let more = lines.len().saturating_sub(DETAIL_LINES);
    lines.truncate(DETAIL_LINES);
    if more > 0 {
        lines.push(format!("- … and {more} more: open the plan in Planlens"));
    }
    Some(format!(
        "<details><summary><code>{}</code> — {}</summary>\n\n{}\n\n</details>\n",
        html(&row.name),
        html(&row.summary),
        lines.join("\n")
    ))
}

/// The one comment for a set: headline, combined verdict, the roll-up table, each plan's details
/// (what needs a person first), files skipped, and the link. Rows must be in roll-up order.
pub fn comment(
    rows: &[PlanRow],
    problems: &[(String, String)],
    link: Option<&CommentLink>,
) -> String {
    let worst = plans::worst_verdict(rows);
    let mut head = format!("### Planlens: {}\n\n", escape(&plans::headline(rows)));
    head.push_str(&match worst {
        Some(v) => format!(
            "{} **Verdict: {}** (the worst of the plans)\n\n",
            icon(Some(v)),
            v.label()
        ),
        None => "ℹ️ **No verdict**: none of these is a plan\n\n".to_string(),
    });
    let footer = match link {
        Some(CommentLink::Full(url)) => format!(
            "\n[Open all {} plans in Planlens](<{url}>) (the plans are in the link; sensitive \
             values are not)\n",
            rows.len()
        ),
        Some(CommentLink::Redacted(url)) | Some(CommentLink::Address(url)) => format!(
            "\n[Open the roll-up in Planlens](<{url}>) (redacted: names, counts, addresses, \
             actions and findings, no values; the plans are too large for a comment)\n"
        ),
        Some(CommentLink::TooLong) => {
            "\n_No link: even the redacted roll-up is too long for a comment._\n".to_string()
        }
        None => String::new(),
    };
    let skipped = (!problems.is_empty()).then(|| {
        let mut s = format!("\n{} skipped:\n", problems.len());
        for (name, why) in problems.iter().take(20) {
            s.push_str(&format!("- `{}`: {}\n", code(name), escape(why)));
        }
        s
    });
    let skipped = skipped.unwrap_or_default();
    let limit = GITHUB_COMMENT_LIMIT;
    let mut out = head;
    let mut table = String::from(
        "| Plan | Verdict | Summary | Destroys / replaces | Drift | Findings |\n|---|---|---|---|---|---|\n",
    );
    let reserve = footer.len() + skipped.len() + 400;
    let mut cut_rows = 0;
    for (i, row) in rows.iter().enumerate() {
        let line = table_row(row) + "\n";
        if out.len() + table.len() + line.len() + reserve > limit {
            cut_rows = rows.len() - i;
            break;
        }
        table.push_str(&line);
    }
    out.push_str(&table);
    if cut_rows > 0 {
        out.push_str(&format!(
            "\n_{cut_rows} more plans (those that need a person least) are not in this table: {}._\n",
            where_else(link)
        ));
    }
    out.push('\n');
    let mut cut_details = 0;
    let detailed: Vec<String> = rows[..rows.len() - cut_rows]
        .iter()
        .filter(|r| r.attention != Attention::NoChanges)
        .filter_map(details)
        .collect();
    for (i, d) in detailed.iter().enumerate() {
        if out.len() + d.len() + reserve > limit {
            cut_details = detailed.len() - i;
            break;
        }
        out.push_str(d);
    }
    if cut_details > 0 {
        out.push_str(&format!(
            "\n_The details of {cut_details} more plans (those that need a person least) are \
             left out to fit one comment: {}._\n",
            where_else(link)
        ));
    }
    out.push_str(&skipped);
    out.push_str(&footer);
    out
}

/// Where the rest can be seen, for a note about what a comment left out.
fn where_else(link: Option<&CommentLink>) -> &'static str {
    match link {
        Some(CommentLink::Full(_) | CommentLink::Redacted(_) | CommentLink::Address(_)) => {
            "the link below shows every plan"
        }
        _ => "`planlens report` writes every plan into one file",
    }
}

/// The payload of a set link: every plan (name and text, each already stripped as a full link
/// strips it) as JSON, encoded as a link payload.
pub fn set_payload(plans: &[Member]) -> String {
    let list: Vec<serde_json::Value> = (plans.iter())
        .map(|m| serde_json::json!({ "name": m.name, "text": m.text }))
        .collect();
    planlens_load::link::encode(&serde_json::Value::Array(list).to_string())
}

/// A link to `base` that reopens the roll-up with every plan (`s=`).
pub fn set_link(base: &str, plans: &[Member], view: &LinkView) -> String {
    fragment::link(
        base,
        &Fragment {
            set: Some(set_payload(plans)),
            view: view.clone(),
            ..Fragment::default()
        },
    )
}

/// A link to `base` that reopens the redacted roll-up: the rows only (`ru=`).
pub fn rollup_link(base: &str, rows: &[PlanRow], view: &LinkView) -> String {
    let json = serde_json::to_string(rows).unwrap_or_default();
    fragment::link(
        base,
        &Fragment {
            rollup: Some(planlens_load::link::encode(&json)),
            view: LinkView {
                rules: None,
                ..view.clone()
            },
            ..Fragment::default()
        },
    )
}
