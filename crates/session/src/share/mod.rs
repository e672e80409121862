//! What leaves Planlens for other people to read: share links (the plan, stripped of sensitive
//! values, or its redacted shape, in the URL fragment) and the Markdown summary for a PR comment.
//! The browser and the CLI make both with these functions, so their output is the same.
//!
//! `full_link` and `redacted_link` are what the Share dialog and `planlens link` both call; each
//! link carries the glance of the plan it opens to (`crate::glance`, `g=`), painted first;
//! `LinkFit` says where a link of a length fits (a GitHub comment, Chromium's limit).

pub mod fragment;
pub mod markdown;
pub mod redacted;
pub mod set;
pub mod strip;

use std::collections::BTreeMap;

use crate::analysis::Analysis;
use crate::glance::Glance;
use planlens_model::Document;
use planlens_rules::RuleSet;

/// The longest comment GitHub accepts, in characters (a link longer than this cannot be pasted
/// into a pull-request comment).
pub const GITHUB_COMMENT_LIMIT: usize = 65_536;

/// The longest URL Chromium-based browsers (Chrome, Edge) open: 2 MiB.
pub const CHROMIUM_URL_LIMIT: usize = 2 * 1024 * 1024;

/// The payload of a full link: the plan without sensitive values ([`strip`]).
pub fn full_payload(doc: &Document) -> String {
    planlens_load::link::encode(&strip::shareable_text(doc))
}

/// The payload of a redacted link ([`redacted`]): findings of `rules` with `labels`.
pub fn redacted_payload(
    doc: &Document,
    analysis: &Analysis,
    rules: &RuleSet,
    labels: &BTreeMap<String, String>,
) -> String {
    planlens_load::link::encode(&redacted::write(doc, analysis, rules, labels))
}

/// What a link's length means for where it can go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkFit {
    /// Fits in a GitHub comment and in every browser.
    Anywhere,
    /// Too long for a GitHub comment; browsers open it.
    TooLongForComment,
    /// Longer than Chromium-based browsers accept.
    TooLongForBrowsers,
}

impl LinkFit {
    /// Where a link of `length` characters fits.
    pub fn of(length: usize) -> LinkFit {
        if length > CHROMIUM_URL_LIMIT {
            LinkFit::TooLongForBrowsers
        } else if length > GITHUB_COMMENT_LIMIT {
            LinkFit::TooLongForComment
        } else {
            LinkFit::Anywhere
        }
    }

    /// A warning to show with the link, if any (`redacted`: the link is already redacted, so
    /// there is no smaller one to suggest).
    pub fn warning(self, redacted: bool) -> Option<&'static str> {
        match (self, redacted) {
            (LinkFit::Anywhere, _) => None,
            (LinkFit::TooLongForComment, false) => Some(
                "Longer than a GitHub comment can hold (65,536 characters): paste it elsewhere, \
                 share the redacted link, or publish the plan and share ?url= instead.",
            ),
            (LinkFit::TooLongForComment, true) => Some(
                "Longer than a GitHub comment can hold (65,536 characters): paste it elsewhere, \
                 or publish the plan and share ?url= instead.",
            ),
            (LinkFit::TooLongForBrowsers, false) => Some(
                "Longer than Chrome and Edge open (2 MB): use the redacted link, or publish the \
                 plan where the browser can fetch it and share ?url= instead.",
            ),
            (LinkFit::TooLongForBrowsers, true) => Some(
                "Longer than Chrome and Edge open (2 MB): publish the plan where the browser can \
                 fetch it and share ?url= instead.",
            ),
        }
    }
}

/// A full link to `base` showing `view`, with the glance of the plan it opens to (read back with
/// `readers`, as the browser reads it: what decoding the file undid and what a reader warned
/// about the original text may not apply to the link's).
pub fn full_link(
    base: &str,
    doc: &Document,
    view: &fragment::LinkView,
    readers: &dyn planlens_load::Readers,
) -> String {
    full_link_since(base, doc, view, readers, None)
}

/// [`full_link`] that also carries `older`, the plan last reviewed (stripped the same way), so
/// the link reopens the comparison with it (`was=`).
pub fn full_link_since(
    base: &str,
    doc: &Document,
    view: &fragment::LinkView,
    readers: &dyn planlens_load::Readers,
    older: Option<&Document>,
) -> String {
    let text = strip::shareable_text(doc);
    let glance =
        planlens_load::load_plan_text_with(text.clone(), &doc.name, &doc.masking.mask, readers)
            .ok()
            .map(|opened| Glance::for_link(&opened, view).payload());
    fragment::link(
        base,
        &fragment::Fragment {
            sample: None,
            plan: Some(planlens_load::link::encode(&text)),
            name: Some(doc.name.clone()),
            glance,
            view: view.clone(),
            was: older.map(|o| planlens_load::link::encode(&strip::shareable_text(o))),
            ..Default::default()
        },
    )
}

/// A redacted link to `base` showing `view` (its rules are left out: the findings travel in the
/// link), carrying Rego policies' findings beside the rules' when `policies` is given (the
/// browser's session, when policies are in use).
pub fn redacted_link(
    base: &str,
    doc: &Document,
    analysis: &Analysis,
    rules: &RuleSet,
    labels: &BTreeMap<String, String>,
    view: &fragment::LinkView,
    policies: Option<&redacted::PolicyFindings>,
) -> String {
    let text = redacted::write_with(doc, analysis, rules, labels, policies);
    let view = fragment::LinkView {
        rules: None,
        ..view.clone()
    };
    // The glance of the document the link opens to: the redacted one, read back.
    let glance = planlens_load::redacted::read(text.clone(), &doc.name)
        .ok()
        .map(|redacted| Glance::for_link(&redacted, &view).payload());
    fragment::link(
        base,
        &fragment::Fragment {
            sample: None,
            plan: Some(planlens_load::link::encode(&text)),
            name: Some(doc.name.clone()),
            glance,
            view,
            ..Default::default()
        },
    )
}
