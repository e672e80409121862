//! The Markdown summary of a plan for a pull-request comment: Terraform's sentence, the guardrail
//! verdict with its findings, destructive changes, drift, the other changes folded away, and a
//! share link. Plan text inside it is escaped, so an address cannot turn into a link, an image or
//! HTML, and it always fits in one GitHub comment.
//!
//! Also: failing checks when no finding names them, Terraform's diagnostics (each snippet in a
//! fence longer than any backtick run in it), per-rule counts when findings are many, what is
//! forgotten, and the link `choose_link` picks (full, else redacted, else a note that none fits).
//! At most 65,536 bytes: each section gets a share of the room, and cuts are counted in a note and
//! never made inside a line.

use super::GITHUB_COMMENT_LIMIT;
use crate::analysis::Analysis;
use planlens_changes::list::is_plain_no_op;
use planlens_model::reason::describe;
use planlens_model::source::Diagnostic;
use planlens_model::summary::count;
use planlens_model::text::visible;
use planlens_model::{Document, ResourceRow, RowSource, Source};
use planlens_rules::{Evaluation, Verdict};

/// At most this many findings are listed; the rest are counted.
pub const MAX_FINDINGS: usize = 100;

/// Escapes text for a Markdown table cell or line: Markdown punctuation gets a backslash, HTML
/// angle brackets become entities, line breaks become spaces, and hidden characters are shown.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in visible(text).chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            '\\' | '`' | '*' | '_' | '{' | '}' | '[' | ']' | '(' | ')' | '#' | '+' | '!' | '|'
            | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// The verdict line: `⛔ **Verdict: needs approval** · 2 deny, 1 warn, 0 info (7 rules)`; for an
/// incomplete plan the reason follows the verdict. (A failed plan's reason is the comment's
/// title already.)
pub fn verdict_line(evaluation: &Evaluation) -> String {
    if evaluation.verdict == Verdict::NotAPlan {
        // A state: no verdict, no counts of rules that did not run.
        let why = evaluation.planning.sentence().unwrap_or_default();
        return format!("ℹ️ **No verdict** · {}", escape(&why));
    }
    let icon = match evaluation.verdict {
        Verdict::NotAPlan => "ℹ️",
        Verdict::Pass => "✅",
        Verdict::Warn | Verdict::Incomplete => "⚠️",
        Verdict::NeedsApproval => "⛔",
        Verdict::PlanningFailed => "❌",
    };
    let tally = evaluation.tally();
    let reason = match (&evaluation.planning, evaluation.planning.sentence()) {
        (p, Some(sentence)) if p.is_incomplete() => {
            format!(" · {}", escape(&sentence))
        }
        _ => String::new(),
    };
    format!(
        "{icon} **Verdict: {}**{reason} · {} ({})",
        evaluation.verdict.label(),
        tally.severities(),
        tally.rules()
    )
}

/// At most this many of Terraform's diagnostics are written out; the rest are counted.
pub const MAX_DIAGNOSTICS: usize = 10;

/// Terraform's diagnostics as Markdown: each with its severity and summary, `file:line`, the
/// detail, and the configuration snippet in a code block with the highlighted part marked by
/// carets underneath. Plan text is escaped, and a code block's fence is longer than any run of
/// backticks inside it, so a snippet cannot end it early.
pub fn diagnostics(list: &[Diagnostic]) -> Vec<String> {
    list.iter()
        .take(MAX_DIAGNOSTICS)
        .map(|d| {
            let mut out = format!("**{}: {}**", d.heading(), escape(&d.summary));
            if let Some(location) = &d.location {
                out.push_str(&format!(" · `{}`", code(location)));
            }
            if let Some(address) = &d.address {
                out.push_str(&format!(" · `{}`", code(address)));
            }
            out.push('\n');
            if !d.detail.is_empty() {
                for paragraph in d.detail.split("\n\n") {
                    out.push_str(&format!("\n{}\n", escape(paragraph.trim())));
                }
            }
            if let Some(snippet) = &d.snippet {
                let text = snippet.to_text();
                let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
                let fence = "`".repeat((longest + 1).max(3));
                out.push_str(&format!("\n{fence}\n{text}{fence}\n"));
            }
            out
        })
        .collect()
}

/// The link at the end of a comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommentLink {
    /// A link with the plan (without its sensitive values).
    Full(String),
    /// A redacted link: addresses, actions and findings only.
    Redacted(String),
    /// A `?url=` link: the plan is fetched from where it was published.
    Address(String),
    /// Even the redacted link is too long for a comment: the comment says so.
    TooLong,
}

impl CommentLink {
    fn url(&self) -> Option<&str> {
        match self {
            CommentLink::Full(url) | CommentLink::Redacted(url) | CommentLink::Address(url) => {
                Some(url)
            }
            CommentLink::TooLong => None,
        }
    }
}

/// The full link, when a comment may carry it: not for a plan without any sensitivity marks
/// (Terraform before 0.15), whose secrets only their names give away; a comment then links the
/// redacted form (or the plan's address) instead.
pub fn full_link_for_comment(doc: &Document, full: String) -> Option<String> {
    doc.masking.plan_has_marks.then_some(full)
}

/// A comment keeps at least this much room for its content; a longer link is left out.
const ROOM_FOR_CONTENT: usize = 8_000;

/// Picks the link for a comment: the full link when it leaves room for the content, else a
/// `?url=` link to where the plan was published (when there is one: it shows the whole plan),
/// else the redacted link, else [`CommentLink::TooLong`]. `full` is `None` when a full link must
/// not go into a comment: for a plan without sensitivity marks ([`full_link_for_comment`]).
pub fn choose_link(full: Option<String>, address: Option<String>, redacted: String) -> CommentLink {
    let fits = |url: &String| url.len() + ROOM_FOR_CONTENT <= GITHUB_COMMENT_LIMIT;
    if let Some(full) = full.filter(fits) {
        CommentLink::Full(full)
    } else if let Some(address) = address.filter(fits) {
        CommentLink::Address(address)
    } else if fits(&redacted) {
        CommentLink::Redacted(redacted)
    } else {
        CommentLink::TooLong
    }
}

/// Lines added while they fit in a budget; the rest are counted.
struct Budget {
    left: usize,
    /// The comment ends with a link (notes about cut rows point to it).
    link_below: bool,
}

impl Budget {
    /// Adds `lines` to `out` while they fit in `share` of what is left (keeping `reserve` bytes
    /// free for what follows); returns how many were left out.
    fn fill(&mut self, out: &mut String, lines: &[String], share: f64, reserve: usize) -> usize {
        let mut room = ((self.left.saturating_sub(reserve)) as f64 * share) as usize;
        for (i, line) in lines.iter().enumerate() {
            if line.len() + 1 > room {
                return lines.len() - i;
            }
            out.push_str(line);
            out.push('\n');
            self.left -= line.len() + 1;
            room -= line.len() + 1;
        }
        0
    }

    /// A table's rows as [`Budget::fill`] fits them, then a note counting what did not fit and
    /// the `earlier` rows already left out, then a blank line.
    fn rows(
        &mut self,
        out: &mut String,
        lines: &[String],
        share: f64,
        reserve: usize,
        earlier: usize,
        what: [&str; 2],
    ) {
        let left_out = self.fill(out, lines, share, reserve) + earlier;
        if left_out > 0 {
            let note = cut_note(left_out, what, self.link_below);
            self.push(out, &note);
        }
        self.push(out, "\n");
    }

    /// A table folded in `<details>` under `summary (N)`, with `columns` as its head; nothing
    /// when `lines` is empty. `what` names one row and several, for the cut note.
    fn folded(
        &mut self,
        out: &mut String,
        summary: &str,
        columns: &[&str],
        lines: &[String],
        what: [&str; 2],
    ) {
        if lines.is_empty() {
            return;
        }
        let head = format!("| {} |", columns.join(" | "));
        let rule = format!("|{}", "---|".repeat(columns.len()));
        let n = lines.len();
        self.push(
            out,
            &format!("<details>\n<summary>{summary} ({n})</summary>\n\n{head}\n{rule}\n"),
        );
        self.rows(out, lines, 1.0, SECTION_RESERVE, 0, what);
        self.push(out, "</details>\n");
    }

    /// Adds `text`, cut (with `…`) to what is left if it is longer: the comment never passes
    /// GitHub's limit, whatever a file put into a sentence.
    fn push(&mut self, out: &mut String, text: &str) {
        let text = planlens_model::text::clipped(text, self.left);
        out.push_str(&text);
        self.left = self.left.saturating_sub(text.len());
    }
}

/// Room kept for a section's closing lines and truncation note.
const SECTION_RESERVE: usize = 600;

fn cut_note(left_out: usize, what: [&str; 2], link_below: bool) -> String {
    let see = if link_below {
        "open the plan in Planlens (link below) for all of them"
    } else {
        "open the plan in Planlens for all of them"
    };
    let [one, many] = what;
    let more = count(left_out, &format!("more {one}"), &format!("more {many}"));
    format!(
        "\n…and {more}, left out: a GitHub comment holds at most \
         {GITHUB_COMMENT_LIMIT} characters; {see}.\n"
    )
}

fn resource_cell(doc: &Document, row: &ResourceRow) -> String {
    let change = doc.change(row);
    let mut cell = format!("`{}`", code(&change.address));
    if row.is_import {
        cell.push_str(" (import)");
    }
    if row.is_move
        && let Some(from) = &change.previous_address
    {
        cell.push_str(&format!(" (moved from `{}`)", code(from)));
    }
    cell
}

/// Text inside a code span in a table cell: backticks cannot be escaped there, pipes must be.
pub fn code(text: &str) -> String {
    visible(text)
        .replace('`', "'")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

/// The comment body for a pull request: Terraform's sentence, the verdict and findings, the
/// destructive changes, drift, every other change folded in `<details>`, and the share link.
/// Never longer than [`GITHUB_COMMENT_LIMIT`] bytes (so never more characters either): what does
/// not fit is counted in a note.
pub fn summary(
    doc: &Document,
    analysis: &Analysis,
    evaluation: &Evaluation,
    link: Option<&CommentLink>,
) -> String {
    let footer = match link {
        Some(CommentLink::Redacted(url)) => format!(
            "\n[Open in Planlens](<{url}>) (redacted link: addresses, actions and findings, no \
             values; the full plan is too large for a comment)\n"
        ),
        Some(CommentLink::Full(url)) => format!(
            "\n[Open in Planlens](<{url}>) (the plan is in the link; sensitive values are not)\n"
        ),
        Some(CommentLink::Address(url)) => format!(
            "\n[Open in Planlens](<{url}>) (the page fetches the plan from the address it was \
             published at)\n"
        ),
        Some(CommentLink::TooLong) => {
            "\n_No link: this plan is too large for a link in a comment, \
             even redacted. Open the plan file in Planlens, or publish it where a browser can \
             fetch it and open Planlens with `?url=` and its address._\n"
                .to_string()
        }
        None => String::new(),
    };
    let drift = &analysis.drift;
    let mut out = String::new();
    let mut budget = Budget {
        left: GITHUB_COMMENT_LIMIT - footer.len(),
        link_below: link.and_then(CommentLink::url).is_some(),
    };
    let sentence = analysis.summary.headline(doc);
    budget.push(
        &mut out,
        &format!("### Planlens: {}\n\n", escape(&sentence)),
    );
    if doc.redacted.is_some() {
        budget.push(
            &mut out,
            "_From a redacted link: attribute values are not included._\n\n",
        );
    }
    if let Source::TextPlan(facts) = &doc.source {
        budget.push(&mut out, &format!("_{}_\n\n", escape(&facts.sentence())));
    }
    budget.push(&mut out, &format!("{}\n\n", verdict_line(evaluation)));
    // Said by the built-in pack's finding when it ran; else here, so a comment is never silent
    // about them.
    let said = (evaluation.findings.iter()).any(|f| f.rule_id == planlens_rules::FAILING_CHECKS);
    if let (false, Some(failing)) = (
        said,
        planlens_changes::checks::failing_sentence(&planlens_changes::checks::check_rows(doc)),
    ) {
        budget.push(&mut out, &format!("**{}**\n\n", escape(&failing)));
    }

    // driftctl's alerts say what its scan left out or may have got wrong (a missing permission,
    // diffs on computed fields that may be false positives): said, never dropped.
    if let Source::Driftctl(facts) = &doc.source
        && !facts.alerts.is_empty()
    {
        budget.push(&mut out, "#### driftctl's alerts\n\n");
        let lines: Vec<String> = (facts.alerts.iter())
            .map(|(about, message)| match about.is_empty() {
                true => format!("- {}", escape(message)),
                false => format!("- `{}`: {}", code(about), escape(message)),
            })
            .collect();
        budget.rows(
            &mut out,
            &lines,
            0.2,
            SECTION_RESERVE,
            0,
            ["alert", "alerts"],
        );
    }

    if let Source::PlanLog(facts) = &doc.source
        && !facts.diagnostics.is_empty()
    {
        budget.push(&mut out, "#### Terraform's errors and warnings\n\n");
        let blocks = diagnostics(&facts.diagnostics);
        let beyond = facts.diagnostics.len() - blocks.len();
        let what = ["error or warning", "errors and warnings"];
        budget.rows(&mut out, &blocks, 0.3, SECTION_RESERVE * 4, beyond, what);
    }

    if !evaluation.findings.is_empty() {
        let groups = evaluation.groups(|_| true);
        if groups.len() > 1 && evaluation.findings.len() > groups.len() {
            // With many findings the table is cut; the count per rule says what each rule found.
            let per_rule: Vec<String> = groups
                .iter()
                .map(|g| {
                    format!(
                        "`{}` {} {}{}",
                        code(g.rule_id),
                        g.findings.len(),
                        g.severity.key(),
                        if g.plan_level { " (whole plan)" } else { "" }
                    )
                })
                .collect();
            budget.push(
                &mut out,
                &format!("Findings by rule: {}\n\n", per_rule.join(" · ")),
            );
        }
        budget.push(&mut out, "| Severity | Rule | Finding |\n|---|---|---|\n");
        let lines: Vec<String> = evaluation
            .findings
            .iter()
            .take(MAX_FINDINGS)
            .map(|f| {
                format!(
                    "| {} | `{}` | {} |",
                    f.severity.key(),
                    code(&f.rule_id),
                    escape(&f.message)
                )
            })
            .collect();
        let beyond = evaluation.findings.len().saturating_sub(MAX_FINDINGS);
        budget.rows(
            &mut out,
            &lines,
            0.3,
            SECTION_RESERVE * 3,
            beyond,
            ["finding", "findings"],
        );
    }

    let destructive: Vec<String> = doc
        .rows
        .iter()
        .filter(|r| r.action.is_destructive())
        .map(|r| {
            let reason = doc
                .change(r)
                .action_reason
                .as_deref()
                .map(|reason| escape(&describe(reason, r.action)))
                .unwrap_or_default();
            format!(
                "| {} {} | {} | {reason} |",
                r.action.symbol(),
                r.action.label(),
                resource_cell(doc, r)
            )
        })
        .collect();
    if !destructive.is_empty() {
        budget.push(
            &mut out,
            &format!(
                "#### Destroyed, replaced or forgotten ({})\n\n| Action | Resource | Why \
                 |\n|---|---|---|\n",
                destructive.len()
            ),
        );
        let what = [
            "destroyed, replaced or forgotten resource",
            "destroyed, replaced or forgotten resources",
        ];
        budget.rows(&mut out, &destructive, 0.6, SECTION_RESERVE * 2, 0, what);
    }

    if let Some(note) = drift.note() {
        budget.push(
            &mut out,
            &format!("#### Drift\n\n{note} ({})\n\n", drift.totals()),
        );
        let lines: Vec<String> = drift
            .resources
            .iter()
            .map(|r| {
                let attributes: Vec<String> =
                    r.paths.iter().map(|p| format!("`{}`", code(p))).collect();
                let attributes = attributes.join(", ");
                format!(
                    "| {} | `{}` | {attributes} | {} |",
                    r.severity.key(),
                    code(&r.address),
                    escape(r.effect.sentence())
                )
            })
            .collect();
        budget.push(
            &mut out,
            "| Severity | Resource | Attributes | Plan |\n|---|---|---|---|\n",
        );
        let what = ["drifted resource", "drifted resources"];
        budget.rows(&mut out, &lines, 0.5, SECTION_RESERVE * 2, 0, what);
    }

    // A state's rows are resources as recorded, not changes: listed as such, without actions.
    let state = doc.source.is_state();
    let others: Vec<String> = doc
        .rows
        .iter()
        .filter(|r| {
            state
                || (!r.action.is_destructive()
                    && !is_plain_no_op(r)
                    && !matches!(r.source, RowSource::Drift(_)))
        })
        .map(|r| match state {
            true => format!("| {} |", resource_cell(doc, r)),
            false => format!(
                "| {} {} | {} |",
                r.action.symbol(),
                r.action.label(),
                resource_cell(doc, r)
            ),
        })
        .collect();
    match state {
        true => budget.folded(
            &mut out,
            "Resources in the state",
            &["Resource"],
            &others,
            ["resource", "resources"],
        ),
        false => budget.folded(
            &mut out,
            "Other changes",
            &["Action", "Resource"],
            &others,
            ["change", "changes"],
        ),
    }

    // Output changes by name and action (never a value: a log has none, a plan's may be secret).
    let outputs: Vec<String> = (doc.plan().output_changes.iter())
        .filter(|(_, o)| !state && o.actions != planlens_model::Action::NoOp)
        .map(|(name, o)| {
            let sensitive = [o.before_sensitive, o.after_sensitive]
                .into_iter()
                .flatten()
                .any(|raw| raw.get() != "false");
            format!(
                "| {} {} | `{}`{} |",
                o.actions.symbol(),
                o.actions.label(),
                code(name),
                if sensitive { " (sensitive)" } else { "" }
            )
        })
        .collect();
    budget.folded(
        &mut out,
        "Output changes",
        &["Action", "Output"],
        &outputs,
        ["output change", "output changes"],
    );
    out.push_str(&footer);
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn plan_text_cannot_become_markup() {
        assert_eq!(
            escape("aws_s3_bucket.b[\"<img src=x>\"] | *x*"),
            "aws\\_s3\\_bucket.b\\[\"&lt;img src=x&gt;\"\\] \\| \\*x\\*"
        );
    }
}
