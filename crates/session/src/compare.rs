//! Two plans compared with their rules' findings: what changed since the last review
//! ([`compare_judged`]), and how a pull-request comment ([`markdown_since`], put under the
//! comment's title by [`comment_with_since`]) and a terminal ([`text_since`]) say it. The comparison itself is `planlens_changes::compare`; this adds the
//! findings (which need the rules) and the verdict before → after.
//!
//! A redacted link's findings are the ones it carries (as everywhere, `Analysis::evaluate`), so a
//! redacted older plan is compared by addresses, actions, drift and findings only, and the texts
//! say so. Nothing here renders a value: the attribute values shown are the comparison's, which
//! never holds a sensitive one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use planlens_changes::compare::{Comparison, compare};
use planlens_model::Document;
use planlens_model::findings::{Evaluation, Verdict};
use planlens_model::text::{count, visible};
use planlens_rules::RuleSet;

use crate::analysis::Analysis;
use crate::share::GITHUB_COMMENT_LIMIT;
use crate::share::markdown::{code, escape};

/// Two plans compared, with the findings and verdict of each.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgedComparison {
    /// What the plans change differently.
    #[serde(flatten)]
    pub comparison: Comparison,
    /// Findings of the newer plan the older one did not have (the same finding: the same rule id,
    /// address and message, whatever its severity).
    pub findings_added: Vec<FindingRef>,
    /// Findings of the older plan the newer one no longer has.
    pub findings_resolved: Vec<FindingRef>,
    /// The verdict on each plan.
    pub verdict: VerdictChange,
}

/// How one resource changed since the older plan, as the list and the graph mark it (in the
/// model, so that the graph, which does not know the session, can draw it).
pub use planlens_model::since::SinceMark;

impl JudgedComparison {
    /// The mark of every address that changed since (new before action changed before values
    /// changed), for a list to look its rows up in.
    pub fn marks(&self) -> std::collections::HashMap<String, SinceMark> {
        let c = &self.comparison;
        let mut marks = std::collections::HashMap::new();
        for v in &c.values_changed {
            marks.insert(v.address.clone(), SinceMark::ValuesChanged);
        }
        for a in &c.action_changed {
            marks.insert(a.address.clone(), SinceMark::ActionChanged);
        }
        for p in &c.added {
            marks.insert(p.address.clone(), SinceMark::New);
        }
        marks
    }

    /// True when nothing differs: no change, no finding and the same verdict.
    pub fn is_empty(&self) -> bool {
        self.comparison.is_empty()
            && self.findings_added.is_empty()
            && self.findings_resolved.is_empty()
            && self.verdict.before == self.verdict.after
    }
}

/// One finding, by what identifies it across two plans.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FindingRef {
    /// The rule's id.
    pub rule_id: String,
    /// The rule's severity key (`info`, `warn`, `deny`).
    pub severity: String,
    /// The resource it is about; `None` for a plan-level finding.
    pub address: Option<String>,
    /// The rule's message (sensitive values already masked by the rules).
    pub message: String,
}

/// The verdict before → after, as [`Verdict::key`]s (`pass`, `needs-approval`, …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictChange {
    /// The older plan's verdict.
    pub before: String,
    /// The newer plan's verdict.
    pub after: String,
}

/// Compares `old` (the plan last reviewed) with `new`, and the findings of `rules` with `labels`
/// on each.
pub fn compare_judged(
    old: &Document,
    new: &Document,
    rules: &RuleSet,
    labels: &BTreeMap<String, String>,
) -> JudgedComparison {
    let evaluation = |doc: &Document| Analysis::of(doc).evaluate(doc, rules, labels);
    judged(old, &evaluation(old), new, &evaluation(new))
}

/// [`compare_judged`] with the evaluations already made (the CLI adds its Rego policies' findings
/// to them).
pub fn judged(
    old: &Document,
    old_evaluation: &Evaluation,
    new: &Document,
    new_evaluation: &Evaluation,
) -> JudgedComparison {
    let (before, after) = (findings(old, old_evaluation), findings(new, new_evaluation));
    // The same finding: same rule, same resource, same message (a rule whose severity changed
    // is not a new finding).
    let missing = |from: &BTreeMap<Identity, FindingRef>,
                   other: &BTreeMap<Identity, FindingRef>| {
        (from.iter())
            .filter(|(k, _)| !other.contains_key(*k))
            .map(|(_, f)| f.clone())
            .collect()
    };
    JudgedComparison {
        comparison: compare(old, new),
        findings_added: missing(&after, &before),
        findings_resolved: missing(&before, &after),
        verdict: VerdictChange {
            before: old_evaluation.verdict.key().to_string(),
            after: new_evaluation.verdict.key().to_string(),
        },
    }
}

/// What makes two findings the same: rule id, address, message.
type Identity = (String, Option<String>, String);

fn findings(doc: &Document, evaluation: &Evaluation) -> BTreeMap<Identity, FindingRef> {
    evaluation
        .findings
        .iter()
        .map(|f| FindingRef {
            rule_id: f.rule_id.clone(),
            severity: f.severity.key().to_string(),
            address: f
                .resource
                .and_then(|i| doc.rows.get(i))
                .map(|r| doc.change(r).address.to_string()),
            message: f.message.clone(),
        })
        .map(|f| ((f.rule_id.clone(), f.address.clone(), f.message.clone()), f))
        .collect()
}

/// At most this many addresses are named per kind of difference in the paragraph; the rest are
/// counted.
pub const MAX_NAMED: usize = 5;

/// A verdict's words from its key (as `VerdictChange` holds it).
pub fn verdict_label(key: &str) -> &'static str {
    [
        Verdict::NotAPlan,
        Verdict::Pass,
        Verdict::Warn,
        Verdict::Incomplete,
        Verdict::NeedsApproval,
        Verdict::PlanningFailed,
    ]
    .into_iter()
    .find(|v| v.key() == key)
    .map_or("unknown", Verdict::label)
}

/// Up to [`MAX_NAMED`] items, then "and N more".
pub fn named(items: Vec<String>) -> String {
    let more = items.len().saturating_sub(MAX_NAMED);
    let mut shown: Vec<String> = items.into_iter().take(MAX_NAMED).collect();
    if more > 0 {
        shown.push(format!("and {more} more"));
    }
    shown.join(", ")
}

/// The one-paragraph summary for the top of a pull-request comment: "**Since the last plan:** 1
/// new change (`aws_s3_bucket.logs`: create), 1 action changed (`aws_db_instance.main`: update →
/// replace), …". Addresses are escaped for code spans; no value is ever in it.
pub fn markdown_since(judged: &JudgedComparison) -> String {
    paragraph(judged, false)
}

/// [`markdown_since`] as plain text, for the page: the same words, addresses as they are, no
/// Markdown.
pub fn plain_since(judged: &JudgedComparison) -> String {
    paragraph(judged, true)
}

fn paragraph(judged: &JudgedComparison, plain: bool) -> String {
    let c = &judged.comparison;
    let addr = |a: &str| {
        if plain {
            planlens_model::text::visible(a).to_string()
        } else {
            format!("`{}`", code(a))
        }
    };
    let n = |len: usize, one: &str, many: &str| count(len, one, many);
    let action = |p: &planlens_changes::compare::Planned| {
        format!("{}: {}", addr(&p.address), p.action.key())
    };
    // Each kind of difference: how many, then the first few named.
    let kinds: [(String, Vec<String>); 7] = [
        (
            n(c.added.len(), "new change", "new changes"),
            c.added.iter().map(action).collect(),
        ),
        (
            n(c.removed.len(), "change", "changes") + " no longer planned",
            c.removed.iter().map(action).collect(),
        ),
        (
            n(c.action_changed.len(), "action", "actions") + " changed",
            (c.action_changed.iter())
                .map(|a| {
                    format!(
                        "{}: {} → {}",
                        addr(&a.address),
                        a.before.key(),
                        a.after.key()
                    )
                })
                .collect(),
        ),
        (
            "planned values changed on ".to_string()
                + &n(c.values_changed.len(), "resource", "resources"),
            (c.values_changed.iter())
                .map(|v| {
                    format!(
                        "{}: {}",
                        addr(&v.address),
                        n(v.attributes.len(), "attribute", "attributes")
                    )
                })
                .collect(),
        ),
        (
            n(c.moved.len(), "address changed", "addresses changed"),
            (c.moved.iter())
                .map(|m| format!("{} → {}", addr(&m.from), addr(&m.to)))
                .collect(),
        ),
        (
            "drift appeared on ".to_string() + &n(c.drift_appeared.len(), "resource", "resources"),
            c.drift_appeared.iter().map(|a| addr(a)).collect(),
        ),
        (
            "drift gone from ".to_string() + &n(c.drift_gone.len(), "resource", "resources"),
            c.drift_gone.iter().map(|a| addr(a)).collect(),
        ),
    ];
    let mut parts: Vec<String> = (kinds.into_iter())
        .filter(|(_, items)| !items.is_empty())
        .map(|(sentence, items)| format!("{sentence} ({})", named(items)))
        .collect();
    if !judged.findings_added.is_empty() {
        parts.push(count(
            judged.findings_added.len(),
            "new finding",
            "new findings",
        ));
    }
    if !judged.findings_resolved.is_empty() {
        parts.push(format!(
            "{} resolved",
            count(judged.findings_resolved.len(), "finding", "findings")
        ));
    }
    let v = &judged.verdict;
    if v.before != v.after {
        parts.push(format!(
            "verdict {} → {}",
            verdict_label(&v.before),
            verdict_label(&v.after)
        ));
    }
    let (lead, em) = if plain {
        ("Since the last plan:", "")
    } else {
        ("**Since the last plan:**", "_")
    };
    let mut out = if parts.is_empty() {
        format!("{lead} nothing changed")
    } else {
        format!("{lead} {}", parts.join(", "))
    };
    out.push('.');
    if c.old_is_redacted {
        out.push_str(&format!(
            " {em}The last plan is a redacted link: addresses, actions, drift and findings were \
             compared, not values.{em}"
        ));
    } else if !c.values_compared {
        out.push_str(&format!(
            " {em}One of the plans carries no values: values were not compared.{em}"
        ));
    }
    if c.unchanged > 0 {
        let unchanged = count(c.unchanged, "change", "changes");
        out.push_str(&format!(
            " {} as before.",
            if plain { unchanged } else { escape(&unchanged) }
        ));
    }
    if !plain {
        out.push('\n');
    }
    out
}

/// The PR comment (`share::markdown::summary`) with the [`markdown_since`] paragraph under its
/// title line. The comment stays within [`GITHUB_COMMENT_LIMIT`] bytes: when the paragraph does
/// not fit, a short sentence counting the differences takes its place, and with no room for that
/// either the comment is left as it was.
pub fn comment_with_since(comment: String, paragraph: &str) -> String {
    let (title, rest) = comment.split_once("\n\n").unwrap_or(("", comment.as_str()));
    let room = GITHUB_COMMENT_LIMIT.saturating_sub(comment.len() + 2);
    let short = "**Since the last plan:** the plans differ; `planlens compare` lists how.\n";
    let paragraph = if paragraph.len() <= room {
        paragraph
    } else if short.len() <= room {
        short
    } else {
        return comment;
    };
    if title.is_empty() {
        format!("{paragraph}\n{rest}")
    } else {
        format!("{title}\n\n{paragraph}\n{rest}")
    }
}

/// The comparison for a terminal: one line per difference, values as the comparison writes them
/// (never a sensitive one).
pub fn text_since(judged: &JudgedComparison) -> String {
    let c = &judged.comparison;
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    if c.old_is_redacted {
        line(
            "The older plan is a redacted link: addresses, actions, drift and findings were \
             compared, not values."
                .to_string(),
        );
    } else if !c.values_compared {
        line("One of the plans carries no values: values were not compared.".to_string());
    }
    if judged.is_empty() {
        line(format!(
            "No difference since the last plan ({} as before).",
            count(c.unchanged, "change", "changes")
        ));
        return out;
    }
    for p in &c.added {
        line(format!(
            "+ new change          {} ({})",
            visible(&p.address),
            p.action.label()
        ));
    }
    for p in &c.removed {
        line(format!(
            "- no longer planned    {} ({})",
            visible(&p.address),
            p.action.label()
        ));
    }
    for a in &c.action_changed {
        let mut s = format!(
            "~ action changed      {}: {} → {}",
            visible(&a.address),
            a.before.label(),
            a.after.label()
        );
        if !a.replace_paths.is_empty() {
            s.push_str(&format!(
                " (forced by {})",
                visible(&a.replace_paths.join(", "))
            ));
        }
        if let Some(reason) = &a.action_reason {
            s.push_str(&format!(
                "; {}",
                planlens_model::reason::describe(reason, a.after)
            ));
        }
        line(s);
    }
    for v in &c.values_changed {
        line(format!(
            "~ values changed      {} ({})",
            visible(&v.address),
            v.action.label()
        ));
        for a in &v.attributes {
            line(format!(
                "      {}: {} → {}",
                visible(&a.path),
                visible(&a.before),
                visible(&a.after)
            ));
        }
    }
    for m in &c.moved {
        line(format!(
            "~ address changed     {} → {}",
            visible(&m.from),
            visible(&m.to)
        ));
    }
    for a in &c.drift_appeared {
        line(format!("! drift appeared      {}", visible(a)));
    }
    for a in &c.drift_gone {
        line(format!("  drift gone          {}", visible(a)));
    }
    let finding = |f: &FindingRef| {
        let about = f.address.as_deref().map(visible).unwrap_or_default();
        format!(
            "[{}] {}{}{}: {}",
            f.severity,
            visible(&f.rule_id),
            if about.is_empty() { "" } else { " on " },
            about,
            visible(&f.message)
        )
    };
    for f in &judged.findings_added {
        line(format!("+ new finding         {}", finding(f)));
    }
    for f in &judged.findings_resolved {
        line(format!("- finding resolved    {}", finding(f)));
    }
    let v = &judged.verdict;
    let verdict = if v.before == v.after {
        format!("{} (as before)", verdict_label(&v.after))
    } else {
        format!("{} → {}", verdict_label(&v.before), verdict_label(&v.after))
    };
    line(format!(
        "Verdict: {verdict}; {} as before.",
        count(c.unchanged, "change", "changes")
    ));
    out
}

/// The plan to compare with, from what a user gave: a Planlens link (the plan its `p=` carries,
/// full or redacted) or a file's text (any input the loader reads), read with `mask`.
pub fn open_other(
    other: String,
    mask: &planlens_model::mask::Mask,
    readers: &dyn planlens_load::Readers,
) -> Result<Document, planlens_load::LoadError> {
    let trimmed = other.trim();
    let is_link = (trimmed.starts_with("https://") || trimmed.starts_with("http://"))
        && !trimmed.contains(char::is_whitespace);
    if !is_link {
        return planlens_load::load_plan_text_with(other, "the last plan", mask, readers);
    }
    let fragment = planlens_load::fragment::Fragment::parse(
        trimmed.split_once('#').map_or("", |(_, hash)| hash),
    );
    let Some(payload) = fragment.plan else {
        return Err(planlens_load::LoadError::Reader {
            message: "This link carries no plan (p=): a ?url= or roll-up link cannot be compared; \
                      open the plan file instead."
                .to_string(),
        });
    };
    let text =
        planlens_load::link::decode(&payload).map_err(|e| planlens_load::LoadError::Reader {
            message: format!("The link's plan cannot be read: {e}"),
        })?;
    let name = fragment
        .name
        .unwrap_or_else(|| "the last plan (link)".into());
    planlens_load::load_plan_text_with(text, &name, mask, readers)
}

/// Two sets of plans matched by name (the last review's and this one's): what `planlens compare`
/// prints for two sets and what the roll-up says per row.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetMatch {
    /// Plans only in the newer set: their places in it, in its order.
    pub added: Vec<usize>,
    /// Plans only in the older set: their places in it, in its order.
    pub removed: Vec<usize>,
    /// Plans in both, in the newer set's order: (place in the older set, place in the newer).
    pub pairs: Vec<(usize, usize)>,
}

/// Matches the plans of two sets by name, exactly (the names `load::set::names` gives, which
/// are the same for the same files however they were opened). A name given twice in the older
/// set matches its first plan.
pub fn match_sets(old: &[&str], new: &[&str]) -> SetMatch {
    let in_old = |name: &str| old.iter().position(|o| *o == name);
    SetMatch {
        added: (0..new.len())
            .filter(|&i| in_old(new[i]).is_none())
            .collect(),
        removed: (0..old.len()).filter(|&i| !new.contains(&old[i])).collect(),
        pairs: (0..new.len())
            .filter_map(|i| Some((in_old(new[i])?, i)))
            .collect(),
    }
}

/// [`match_sets`] of two sets' plans, by their names.
pub fn match_members(
    old: &[planlens_load::set::Member],
    new: &[planlens_load::set::Member],
) -> SetMatch {
    fn names(set: &[planlens_load::set::Member]) -> Vec<&str> {
        set.iter().map(|m| m.name.as_str()).collect()
    }
    match_sets(&names(old), &names(new))
}

/// What changed since the last review for one plan of a set (a row of the roll-up).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanSince {
    /// The plan's name, as both sets name it.
    pub name: String,
    /// What changed since.
    pub since: SinceOfPlan,
}

/// How one plan of a set changed since the last review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SinceOfPlan {
    /// Not in the last review's set.
    New,
    /// In the last review's set only.
    Gone,
    /// In both: how many changes differ (added, no longer planned, action or values changed), how
    /// many other differences there are (addresses moved, drift appeared or gone, findings new or
    /// resolved) and the verdict before → after.
    Compared {
        changes: usize,
        #[serde(default)]
        other: usize,
        verdict: VerdictChange,
    },
    /// In both, but one of them could not be opened: why.
    Unreadable(String),
}

impl JudgedComparison {
    /// How many planned changes differ: added, no longer planned, action changed, values changed.
    pub fn changes(&self) -> usize {
        let c = &self.comparison;
        c.added.len() + c.removed.len() + c.action_changed.len() + c.values_changed.len()
    }

    /// How many other differences: addresses moved, drift appeared or gone, findings new or
    /// resolved.
    pub fn other_differences(&self) -> usize {
        let c = &self.comparison;
        c.moved.len()
            + c.drift_appeared.len()
            + c.drift_gone.len()
            + self.findings_added.len()
            + self.findings_resolved.len()
    }
}

/// Every plan of two sets, matched by name ([`match_sets`]): the newer set's plans in its order
/// (new, or compared with their older counterpart under `rules` and `labels`), then the plans
/// gone. Each plan is read with `mask` through `readers`.
pub fn sets_since(
    old: &[planlens_load::set::Member],
    new: &[planlens_load::set::Member],
    rules: &RuleSet,
    labels: &BTreeMap<String, String>,
    mask: &planlens_model::mask::Mask,
    readers: &dyn planlens_load::Readers,
) -> Vec<PlanSince> {
    let matched = match_members(old, new);
    let open = |m: &planlens_load::set::Member| {
        planlens_load::load_plan_text_with(m.text.clone(), &m.name, mask, readers)
            .map_err(|e| format!("{}: {e}", m.name))
    };
    let mut rows: Vec<PlanSince> = new
        .iter()
        .map(|m| PlanSince {
            name: m.name.clone(),
            since: SinceOfPlan::New,
        })
        .collect();
    for &(o, n) in &matched.pairs {
        rows[n].since = match (open(&old[o]), open(&new[n])) {
            (Ok(a), Ok(b)) => {
                let judged = compare_judged(&a, &b, rules, labels);
                SinceOfPlan::Compared {
                    changes: judged.changes(),
                    other: judged.other_differences(),
                    verdict: judged.verdict,
                }
            }
            (Err(e), _) | (_, Err(e)) => SinceOfPlan::Unreadable(e),
        };
    }
    rows.extend(matched.removed.iter().map(|&i| PlanSince {
        name: old[i].name.clone(),
        since: SinceOfPlan::Gone,
    }));
    rows
}
