//! The Markdown summary of a plan for a pull-request comment: Terraform's sentence, the guardrail
//! verdict with its findings, and the drift note. Plan text inside it is escaped, so an address
//! cannot turn into a link, an image or HTML.

use crate::drift::Drift;
use crate::model::Document;
use crate::model::text::visible;
use crate::rules::{Evaluation, Verdict};
use crate::summary::Summary;

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

/// The verdict line: `**Verdict: needs approval** · 2 deny, 1 warn, 0 info`.
pub fn verdict_line(evaluation: &Evaluation) -> String {
    let icon = match evaluation.verdict {
        Verdict::Pass => "✅",
        Verdict::Warn => "⚠️",
        Verdict::NeedsApproval => "⛔",
    };
    let (counts, rules) = evaluation.tally();
    format!(
        "{icon} **Verdict: {}** · {counts} ({rules})",
        evaluation.verdict.label()
    )
}

/// The comment body.
pub fn summary(doc: &Document, drift: &Drift, evaluation: &Evaluation) -> String {
    let mut out = String::new();
    let sentence = Summary::of(doc).headline(doc);
    out.push_str(&format!("### Planlens: {}\n\n", escape(&sentence)));
    out.push_str(&verdict_line(evaluation));
    out.push_str("\n\n");
    if !evaluation.findings.is_empty() {
        out.push_str("| Severity | Rule | Finding |\n|---|---|---|\n");
        for f in evaluation.findings.iter().take(MAX_FINDINGS) {
            out.push_str(&format!(
                "| {} | `{}` | {} |\n",
                f.severity.key(),
                f.rule_id.replace('`', "'"),
                escape(&f.message)
            ));
        }
        if evaluation.findings.len() > MAX_FINDINGS {
            out.push_str(&format!(
                "\n…and {} more findings.\n",
                evaluation.findings.len() - MAX_FINDINGS
            ));
        }
        out.push('\n');
    }
    if let Some(note) = drift.note() {
        out.push_str(&format!("{note} ({})\n", drift.totals()));
    }
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
