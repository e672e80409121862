//! The attribute diff of the selected resource, and the tree renderer the outputs panel shares.
//! The open plan's values are in its session (a Web Worker): a diff is asked for when a view
//! shows it ([`SessionDiff`]), and the drift detail asks the same way.
//!
//! The diff is a tab stop of its own; `PageUp`/`PageDown` scroll it from anywhere outside fields.

use std::sync::Arc;

use leptos::prelude::*;

use super::{AppState, Loaded};
use crate::diff::{Container, DiffError, DiffNode, Form, Line, NodeChange, PathKey, Side};
use crate::model::text::visible;
use crate::model::{RowSource, reason};
use crate::session::{Request, Response};

/// A shown detail (a resource's diff, a drift entry's, a prior-state node's): the box that
/// scrolls. An empty pane (nothing selected) is not one.
pub const DETAIL_PANE: &str = ".diff-pane:not(.empty-pane)";

/// Scrolls the detail on screen as PageDown, PageUp, Home or End would with the focus in it;
/// false when no detail is shown (or the key is none of these).
pub fn scroll_detail(key: &str) -> bool {
    let Ok(panes) = document().query_selector_all(DETAIL_PANE) else {
        return false;
    };
    // The one on screen: a tab's hidden detail sheet (a phone's, closed) has no height.
    let Some(pane) = (0..panes.length())
        .filter_map(|i| panes.get(i))
        .filter_map(|n| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(n).ok())
        .find(|el| el.client_height() > 0)
    else {
        return false;
    };
    let (top, page) = (pane.scroll_top(), pane.client_height());
    // As the browser pages: a little less than the box, so a line is kept for context.
    let step = (page - 40).max(page * 7 / 8).max(1);
    let to = match key {
        "PageDown" => top + step,
        "PageUp" => top - step,
        "Home" => 0,
        "End" => pane.scroll_height(),
        _ => return false,
    };
    pane.set_scroll_top(to);
    true
}

/// Which diff to ask the session for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffOf {
    /// The change of a row.
    Row(u32),
    /// A drift entry (`resource_drift[i]`).
    Drift(u32),
}

/// A diff of one open plan. The plan is told apart by its `Loaded`'s address: opening a plan, or
/// reading it again with another mask, makes a new `Loaded` while the old one is still held, so
/// two plans one after the other never share it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiffKey {
    plan: usize,
    of: DiffOf,
}

impl DiffKey {
    /// The diff `of` in `loaded`.
    pub fn of(loaded: &Arc<Loaded>, of: DiffOf) -> DiffKey {
        DiffKey {
            plan: Arc::as_ptr(loaded) as usize,
            of,
        }
    }

    fn request(self) -> Request {
        match self.of {
            DiffOf::Row(row) => Request::Diff { row },
            DiffOf::Drift(entry) => Request::DriftDiff { entry },
        }
    }
}

/// The session's answer: `Ok(None)` when it holds no values for it, `Err` why nothing answered.
type Answer = Result<Option<Result<DiffNode, DiffError>>, String>;

/// The diff a view shows, asked of the open plan's session whenever the view's key changes.
/// Only the answer for the current key is kept: one for a row or plan no longer shown is dropped.
#[derive(Clone, Copy)]
pub struct SessionDiff {
    key: Memo<Option<DiffKey>>,
    answer: RwSignal<Option<(DiffKey, Answer)>, LocalStorage>,
}

impl SessionDiff {
    /// Asks for the diff `key` names (none while it is `None`).
    pub fn new(key: Memo<Option<DiffKey>>) -> SessionDiff {
        let answer = RwSignal::new_local(None);
        Effect::new(move |_| {
            answer.set(None);
            let Some(k) = key.get() else {
                return;
            };
            leptos::task::spawn_local(async move {
                let got = match super::backend::ask(k.request()).await {
                    Ok(Response::Diff(diff)) => Ok(diff),
                    Ok(_) => Err("the plan's session answered another question".to_string()),
                    Err(message) => Err(message),
                };
                // The view may have moved on, or gone, while the session worked.
                if key.try_get_untracked().flatten() == Some(k) {
                    let _ = answer.try_set(Some((k, got)));
                }
            });
        });
        SessionDiff { key, answer }
    }
}

/// The diff `key` names once the session has answered (`what` as in [`ToggledDiff`]); until
/// then a line saying it is on its way.
#[component]
pub fn AskedDiff(
    diff: SessionDiff,
    key: DiffKey,
    show_unchanged: RwSignal<bool>,
    what: &'static str,
    /// Every attribute, no toggle: a state's resource, whose values are what exists, not a change.
    #[prop(optional)]
    attributes: bool,
) -> impl IntoView {
    move || {
        let current = diff.key.get() == Some(key);
        let answer = diff.answer.with(|a| match a {
            Some((k, answer)) if current && *k == key => Some(answer.clone()),
            _ => None,
        });
        match answer {
            Some(Ok(Some(Ok(tree)))) if attributes => {
                view! { <DiffTree tree show_unchanged=RwSignal::new(true) /> }.into_any()
            }
            Some(Ok(Some(tree))) => view! { <ToggledDiff tree show_unchanged what /> }.into_any(),
            Some(Ok(None)) => ().into_any(),
            Some(Err(message)) => view! {
                <p class="load-error" data-testid="diff-error">
                    {format!("Cannot show this {what}: {message}")}
                </p>
            }
            .into_any(),
            None => view! {
                <p class="fine diff-loading" role="status" data-testid="diff-loading">
                    "Loading the diff…"
                </p>
            }
            .into_any(),
        }
    }
}

/// The diff of row `r`, when the plan has values to show (a redacted link and a plan log have
/// none: the facts say why).
fn row_key(loaded: &Arc<Loaded>, r: u32) -> Option<DiffKey> {
    (loaded.doc.has_values() && (r as usize) < loaded.doc.rows.len())
        .then(|| DiffKey::of(loaded, DiffOf::Row(r)))
}

/// The selected resource's header and attribute diff.
#[component]
pub fn DiffPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let show_unchanged = RwSignal::new(false);
    // The selected row's diff, asked of the session.
    let key = Memo::new(move |_| row_key(&state.loaded.get()?, state.selected.get()?));
    let diff = SessionDiff::new(key);
    move || {
        let loaded = state.loaded.get()?;
        let Some(r) = state.selected.get() else {
            return Some(
                view! {
                    <aside class="diff-pane empty-pane" data-testid="diff-empty">
                        <p>{if state.loaded.with(|l| l.as_ref().is_some_and(|l| l.doc.source.is_state())) {
                            "Select a resource to see its attributes."
                        } else {
                            "Select a resource to see what changes."
                        }}</p>
                        <p class="fine">"j / k or ↑ / ↓ move through the list, Enter opens, / searches."</p>
                    </aside>
                }
                .into_any(),
            );
        };
        let doc = &loaded.doc;
        let row = doc.rows.get(r as usize)?;
        let change = doc.change(row);
        let since_address = change.address.to_string();
        let action = row.action;
        let mut facts: Vec<(&'static str, String)> = Vec::new();
        if let Some(reason) = &change.action_reason {
            facts.push(("reason", reason::describe(reason, action)));
        }
        if let (true, Some(prev)) = (row.is_move, &change.previous_address) {
            facts.push(("moved", format!("Moved from {}", visible(prev))));
        }
        if let Some(importing) = &change.change.importing {
            facts.push((
                "import",
                match &importing.id {
                    Some(id) => format!("Imported, id {}", visible(id)),
                    None if importing.identity.is_some() => {
                        "Imported by resource identity".to_string()
                    }
                    None => "Imported".to_string(),
                },
            ));
        }
        if let Some(deposed) = &change.deposed {
            facts.push((
                "deposed",
                format!(
                    "Deposed object {} (left over from a create-before-destroy)",
                    visible(deposed)
                ),
            ));
        }
        if let RowSource::Deferred(i) = row.source {
            let why = &doc.plan().deferred_changes[i as usize].reason;
            facts.push(("deferred", format!("Deferred: {}", visible(why))));
        }
        if change.index_unknown {
            facts.push(("deferred", "The instance key is not known yet.".to_string()));
        }
        let drift_only = matches!(row.source, RowSource::Drift(_));
        if let Some(d) = loaded.analysis.drift.for_row(r as usize) {
            facts.push((
                "drift",
                format!(
                    "Changed outside {} ({} drift). {}{}",
                    crate::model::summary::Tool::of(doc).name(),
                    d.severity.label(),
                    if drift_only { "" } else { d.effect.sentence() },
                    " See the Drift tab."
                ),
            ));
        }
        if drift_only {
            facts.push((
                "drift-only",
                "The plan does not change this resource; below is what changed outside Terraform."
                    .to_string(),
            ));
        }
        if let Some(reason) = doc.missing_values() {
            facts.push(("no-values", reason.to_string()));
        }
        // A text plan: the diff is only what the text showed.
        if let crate::model::Source::TextPlan(f) = &doc.source {
            let unread = f.unread.iter().any(|a| *a == change.address);
            facts.push((
                "text-plan",
                if unread {
                    "Read from text: the text did not show this resource's attributes (or showed them in a form Planlens cannot read), so only its action is known.".to_string()
                } else {
                    // The tool that wrote the text, when its wording says (an OpenTofu plan
                    // must not read "Terraform hides").
                    let hides = match crate::model::summary::Tool::of(doc) {
                        crate::model::summary::Tool::Unknown => "Terraform and OpenTofu hide".to_string(),
                        tool => format!("{} hides", tool.name()),
                    };
                    format!("Read from text: only the attributes the text shows are here. {hides} unchanged ones (\"# (3 unchanged attributes hidden)\"); they are not in this diff.")
                },
            ));
        }
        // A state's resource: its attributes as recorded, never a before → after.
        let in_state = doc.source.is_state();
        if in_state {
            facts.insert(
                0,
                (
                    "state",
                    "Recorded in the state: the attributes Terraform stored after its last apply \
                     (sensitive values masked). Nothing here is a change."
                        .to_string(),
                ),
            );
        }
        if let crate::model::Source::State(f) = &doc.source
            && f.is_tainted(&change.address)
            && change.deposed.is_none()
        {
            facts.push((
                "tainted",
                "Tainted: Terraform will replace it at the next apply.".to_string(),
            ));
        }
        let (symbol, action_label) = if in_state {
            ("", "in the state")
        } else {
            (action.symbol(), action.label())
        };
        let tree = row_key(&loaded, r);
        let module = doc.module_of(row);
        let provider = &doc.providers[row.provider as usize];
        Some(
            view! {
                // A tab stop of its own, so the keyboard scrolls a long diff.
                <aside
                    class="diff-pane"
                    data-testid="diff-panel"
                    tabindex="0"
                    aria-label=format!("{} of {}", if in_state { "Attributes" } else { "Attribute diff" }, visible(&change.address))
                >
                    <header class=format!("diff-head a-{}", action.key())>
                        <span class="sym big">{symbol}</span>
                        <div>
                            <h2 class="diff-address" data-testid="diff-address">{visible(&change.address)}</h2>
                            <p class="diff-sub">
                                <span class="action-label" data-testid="diff-action">{action_label}</span>
                                " · " {visible(&doc.resource_types[row.resource_type as usize])}
                                // A text plan names no provider: no empty part.
                                {(!provider.is_empty()).then(|| format!(" · {}", visible(provider)))}
                                " · " {if module.is_empty() { "root module".to_string() } else { visible(module) }}
                            </p>
                        </div>
                    </header>
                    <ul class="facts">
                        {facts
                            .into_iter()
                            .map(|(k, text)| view! { <li class=format!("fact fact-{k}") data-testid=format!("fact-{k}")>{text}</li> })
                            .collect_view()}
                    </ul>
                    <super::since::SinceInDiff address=since_address />
                    {tree.map(|key| view! { <AskedDiff diff key show_unchanged what="change" attributes=in_state /> })}
                </aside>
            }
            .into_any(),
        )
    }
}

/// The "Show unchanged attributes" toggle over a diff tree, or why the tree cannot be shown
/// ("Cannot show this {what}: …").
#[component]
pub fn ToggledDiff(
    tree: Result<DiffNode, DiffError>,
    show_unchanged: RwSignal<bool>,
    what: &'static str,
) -> impl IntoView {
    view! {
        <label class="toggle">
            <input
                type="checkbox"
                data-testid="show-unchanged-attrs"
                prop:checked=move || show_unchanged.get()
                on:change=move |ev| show_unchanged.set(event_target_checked(&ev))
            />
            " Show unchanged attributes"
        </label>
        {match tree {
            Ok(tree) => view! { <DiffTree tree show_unchanged /> }.into_any(),
            Err(e) => view! { <p class="load-error">{format!("Cannot show this {what}: {e}")}</p> }.into_any(),
        }}
    }
}

/// A before → after tree, read as `terraform show` prints it: objects and lists in braces and
/// brackets, JSON held in strings as `jsonencode(…)`, multi-line strings as heredocs. Unchanged
/// attributes, elements and lines are folded unless `show_unchanged`.
#[component]
pub fn DiffTree(tree: DiffNode, show_unchanged: RwSignal<bool>) -> impl IntoView {
    move || {
        let show = show_unchanged.get();
        let mut rows = Vec::new();
        if tree.form == Form::Object {
            // A resource (or an object output): its attributes, without braces around them.
            render_children(&tree, 0, show, &mut rows);
        } else {
            render_node(&tree, 0, show, &mut rows);
        }
        view! { <div class="diff-tree" data-testid="diff-tree">{rows}</div> }
    }
}

/// Lines of context kept around a changed line of a multi-line string when unchanged ones fold.
const LINE_CONTEXT: usize = 3;

fn render_node(node: &DiffNode, depth: usize, show_unchanged: bool, out: &mut Vec<AnyView>) {
    // Children under a value that is not shown are not listed (a sensitive or unknown list).
    let expanded = !matches!(node.after, Side::Sensitive | Side::Unknown);
    let (open, close) = match &node.form {
        Form::Object => ("{", "}"),
        Form::List => ("[", "]"),
        Form::Json(Container::Object) => ("jsonencode({", "})"),
        Form::Json(Container::Array) => ("jsonencode([", "])"),
        Form::Lines(_) => ("<<-EOT", "EOT"),
        Form::Scalar => ("", ""),
    };
    let empty = match &node.form {
        Form::Lines(lines) => lines.is_empty(),
        _ => node.children.is_empty(),
    };
    if !expanded || node.form == Form::Scalar {
        out.push(row(node, depth, scalar_values(node)));
        return;
    }
    let whitespace = node.change == NodeChange::Modified
        && match &node.form {
            Form::Json(_) => node
                .children
                .iter()
                .all(|c| c.change == NodeChange::Unchanged),
            Form::Lines(lines) => lines.iter().all(|l| l.change == NodeChange::Unchanged),
            _ => false,
        };
    let note = whitespace.then(|| view! { <span class="dn-note">" # whitespace changes"</span> });
    if empty {
        // `{}`, `[]`, `jsonencode({})` on one line.
        let body = view! { {prefix(node)}<span class="punct">{format!("{open}{close}")}</span>{suffix(node)}{note} };
        out.push(row(node, depth, body.into_any()));
        return;
    }
    let body = view! { {prefix(node)}<span class="punct">{open}</span>{note} };
    out.push(row(node, depth, body.into_any()));
    match &node.form {
        Form::Lines(lines) => render_lines(lines, node.change, depth + 1, show_unchanged, out),
        _ => render_children(node, depth + 1, show_unchanged, out),
    }
    let (_, class) = mark(node.change);
    out.push(
        view! {
            <div class=format!("dn {class} dn-close") style:padding-left=indent(depth)>
                <span class="dn-mark">"  "</span>
                <span class="punct">{close}</span>
                {suffix(node)}
            </div>
        }
        .into_any(),
    );
}

fn render_children(node: &DiffNode, depth: usize, show_unchanged: bool, out: &mut Vec<AnyView>) {
    let mut hidden = 0;
    for child in &node.children {
        if child.change == NodeChange::Unchanged && !show_unchanged {
            hidden += 1;
            continue;
        }
        render_node(child, depth, show_unchanged, out);
    }
    if hidden > 0 {
        let noun = match node.form {
            Form::List | Form::Json(Container::Array) => "element",
            _ => "attribute",
        };
        let text = format!(
            "# ({hidden} unchanged {noun}{} hidden)",
            if hidden == 1 { "" } else { "s" }
        );
        out.push(folded(depth, text));
    }
}

/// The lines of a heredoc; runs of unchanged lines away from any change fold unless shown.
fn render_lines(
    lines: &[Line],
    change: NodeChange,
    depth: usize,
    show_unchanged: bool,
    out: &mut Vec<AnyView>,
) {
    let changed: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.change != NodeChange::Unchanged)
        .map(|(i, _)| i)
        .collect();
    // A new, removed or unchanged string is shown whole; a changed one around its changes.
    let fold = !show_unchanged && change == NodeChange::Modified && !changed.is_empty();
    let near = |i: usize| {
        let at = changed.partition_point(|&c| c < i);
        let after = changed.get(at).is_some_and(|&c| c - i <= LINE_CONTEXT);
        let before = at > 0 && i - changed[at - 1] <= LINE_CONTEXT;
        after || before
    };
    let mut hidden = 0;
    for (i, line) in lines.iter().enumerate() {
        if fold && line.change == NodeChange::Unchanged && !near(i) {
            hidden += 1;
            continue;
        }
        if hidden > 0 {
            out.push(folded(depth, lines_hidden(hidden)));
            hidden = 0;
        }
        let (mark, class) = mark(line.change);
        let side = match line.change {
            NodeChange::Added => "after",
            NodeChange::Removed => "before",
            _ => "same",
        };
        out.push(
            view! {
                <div class=format!("dn {class} dn-line") style:padding-left=indent(depth)>
                    <span class="dn-mark">{mark}</span>
                    <span class=side>{visible(&line.text)}</span>
                </div>
            }
            .into_any(),
        );
    }
    if hidden > 0 {
        out.push(folded(depth, lines_hidden(hidden)));
    }
}

fn lines_hidden(n: usize) -> String {
    format!(
        "# ({n} unchanged line{} hidden)",
        if n == 1 { "" } else { "s" }
    )
}

fn folded(depth: usize, text: String) -> AnyView {
    view! { <div class="dn folded" style:padding-left=indent(depth)>{text}</div> }.into_any()
}

/// The indentation of a line; the step per level is `--diff-indent` (narrower on a phone).
fn indent(depth: usize) -> String {
    format!("calc(0.5rem + {depth} * var(--diff-indent))")
}

/// The mark (with the space after it, so copied text reads as Terraform prints it) and the class.
fn mark(change: NodeChange) -> (&'static str, &'static str) {
    match change {
        NodeChange::Added => ("+ ", "added"),
        NodeChange::Removed => ("- ", "removed"),
        NodeChange::Modified => ("~ ", "modified"),
        NodeChange::Unchanged => ("  ", "unchanged"),
    }
}

fn side_view(side: &Side, class: &'static str) -> AnyView {
    match side {
        Side::Absent => ().into_any(),
        Side::Sensitive => {
            view! { <span class=format!("{class} sensitive")>"(sensitive value)"</span> }.into_any()
        }
        Side::Unknown => {
            view! { <span class=format!("{class} unknown")>"(known after apply)"</span> }.into_any()
        }
        other => view! { <span class=class>{other.display()}</span> }.into_any(),
    }
}

/// True when `side` is the kind of value the node's braces, brackets or heredoc stand for.
fn holds(side: &Side, form: &Form) -> bool {
    match form {
        Form::Object => matches!(side, Side::Object(_)),
        Form::List => matches!(side, Side::List(_) | Side::Shown(_)),
        Form::Json(_) | Form::Lines(_) => matches!(side, Side::Scalar(_)) && !side.is_null(),
        Form::Scalar => false,
    }
}

/// `null → ` (or `(sensitive value) → `) before the braces of a value that was something else.
fn prefix(node: &DiffNode) -> Option<AnyView> {
    (node.change == NodeChange::Modified
        && node.before != Side::Absent
        && !holds(&node.before, &node.form))
    .then(|| {
        view! { {side_view(&node.before, "before")}<span class="arrow">" → "</span> }.into_any()
    })
}

/// ` → null` after the closing brace of a value that becomes something else.
fn suffix(node: &DiffNode) -> Option<AnyView> {
    (node.change == NodeChange::Modified
        && node.after != Side::Absent
        && !holds(&node.after, &node.form))
    .then(|| view! { <span class="arrow">" → "</span>{side_view(&node.after, "after")} }.into_any())
}

/// The value part of a one-line node.
fn scalar_values(node: &DiffNode) -> AnyView {
    match node.change {
        NodeChange::Added => side_view(&node.after, "after"),
        NodeChange::Removed => side_view(&node.before, "before"),
        NodeChange::Unchanged => side_view(&node.after, "same"),
        NodeChange::Modified => view! {
            {side_view(&node.before, "before")}
            <span class="arrow">" → "</span>
            {side_view(&node.after, "after")}
        }
        .into_any(),
    }
}

/// One line with the node's mark and key: `~ key = <body>`. A list element is labelled by its
/// index; one that moved says where it was; one whose place a text plan did not say has none.
fn row(node: &DiffNode, depth: usize, body: AnyView) -> AnyView {
    let (mark, class) = mark(node.change);
    let key = if node.key.is_none() {
        "value".to_string()
    } else {
        node.key_label()
    };
    let moved = match node.key {
        Some(PathKey::Index {
            before: Some(b),
            after: Some(a),
        }) if a != b => Some(format!("[{b}] before the change")),
        _ => None,
    };
    let forces = node.forces_replacement.then(|| view! { <span class="forces" data-testid="forces-replacement">"# forces replacement"</span> });
    // An element whose position the text plan did not say: no key, as Terraform prints it.
    let key = (node.key != Some(PathKey::Unpositioned)).then(|| {
        view! {
            <span class="dn-key" title=moved>{visible(&key)}</span>
            <span class="eq">" = "</span>
        }
    });
    let unplaced = (node.key == Some(PathKey::Unpositioned))
        .then_some("The text does not say where in the list this element is.");
    view! {
        <div class=format!("dn {class}") style:padding-left=indent(depth) title=unplaced>
            <span class="dn-mark">{mark}</span>
            {key}
            {body}
            {forces}
        </div>
    }
    .into_any()
}
