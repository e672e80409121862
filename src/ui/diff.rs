//! The attribute diff of the selected resource, and the tree renderer the outputs panel shares.

use leptos::prelude::*;

use super::AppState;
use crate::diff::{DiffError, DiffNode, NodeChange, Side, diff_change};
use crate::model::text::visible;
use crate::model::{RowSource, reason};

/// The selected resource's header and attribute diff.
#[component]
pub fn DiffPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let show_unchanged = RwSignal::new(false);
    move || {
        let loaded = state.loaded.get()?;
        let Some(r) = state.selected.get() else {
            return Some(
                view! {
                    <aside class="diff-pane empty-pane" data-testid="diff-empty">
                        <p>"Select a resource to see what changes."</p>
                        <p class="fine">"j / k or ↑ / ↓ move through the list, Enter opens, / searches."</p>
                    </aside>
                }
                .into_any(),
            );
        };
        let doc = &loaded.doc;
        let row = doc.rows.get(r as usize)?;
        let change = doc.change(row);
        let action = row.action;
        let mut facts: Vec<(&'static str, String)> = Vec::new();
        if let Some(reason) = &change.action_reason {
            facts.push(("reason", reason::describe(reason)));
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
                    "Changed outside Terraform ({} drift). {}{}",
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
        let has_values = doc.has_values();
        if let Some(reason) = doc.missing_values() {
            facts.push(("no-values", reason.to_string()));
        }
        let tree = diff_change(&change.change);
        let module = doc.module_of(row);
        let provider = &doc.providers[row.provider as usize];
        Some(
            view! {
                <aside class="diff-pane" data-testid="diff-panel" aria-label="Attribute diff">
                    <header class=format!("diff-head a-{}", action.key())>
                        <span class="sym big">{action.symbol()}</span>
                        <div>
                            <h2 class="diff-address" data-testid="diff-address">{visible(&change.address)}</h2>
                            <p class="diff-sub">
                                <span class="action-label">{action.label()}</span>
                                " · " {visible(&doc.resource_types[row.resource_type as usize])}
                                " · " {visible(provider)}
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
                    {has_values.then(|| view! { <ToggledDiff tree show_unchanged what="change" /> })}
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

/// A before → after tree. Unchanged attributes are folded unless `show_unchanged`.
#[component]
pub fn DiffTree(tree: DiffNode, show_unchanged: RwSignal<bool>) -> impl IntoView {
    move || {
        let show = show_unchanged.get();
        let mut lines = Vec::new();
        if tree.children.is_empty() {
            // A scalar at the root (outputs): one line.
            lines.push(line(&tree, 0, "value"));
        } else {
            render_children(&tree, 0, show, &mut lines);
        }
        view! { <div class="diff-tree" data-testid="diff-tree">{lines}</div> }
    }
}

fn render_children(node: &DiffNode, depth: usize, show_unchanged: bool, out: &mut Vec<AnyView>) {
    let mut hidden = 0;
    for child in &node.children {
        if child.change == NodeChange::Unchanged && !show_unchanged {
            hidden += 1;
            continue;
        }
        out.push(line(child, depth, ""));
        if !child.children.is_empty() && !matches!(child.after, Side::Sensitive | Side::Unknown) {
            render_children(child, depth + 1, show_unchanged, out);
        }
    }
    if hidden > 0 {
        let text = format!(
            "# ({hidden} unchanged {} hidden)",
            if hidden == 1 {
                "attribute"
            } else {
                "attributes"
            }
        );
        out.push(
            view! { <div class="dn folded" style:padding-left=indent(depth)>{text}</div> }
                .into_any(),
        );
    }
}

fn indent(depth: usize) -> String {
    format!("{}rem", 0.5 + depth as f64 * 1.25)
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

fn line(node: &DiffNode, depth: usize, root_key: &'static str) -> AnyView {
    let (mark, class) = match node.change {
        NodeChange::Added => ("+", "added"),
        NodeChange::Removed => ("-", "removed"),
        NodeChange::Modified => ("~", "modified"),
        NodeChange::Unchanged => (" ", "unchanged"),
    };
    let key = if node.key.is_none() {
        root_key.to_string()
    } else {
        node.key_label()
    };
    let values = match node.change {
        NodeChange::Added => side_view(&node.after, "after"),
        NodeChange::Removed => side_view(&node.before, "before"),
        NodeChange::Unchanged => side_view(&node.after, "same"),
        NodeChange::Modified => {
            let containers = matches!(
                (&node.before, &node.after),
                (Side::Object(_), Side::Object(_)) | (Side::List(_), Side::List(_))
            );
            if containers {
                ().into_any()
            } else {
                view! {
                    {side_view(&node.before, "before")}
                    <span class="arrow">" → "</span>
                    {side_view(&node.after, "after")}
                }
                .into_any()
            }
        }
    };
    let forces = node
        .forces_replacement
        .then(|| view! { <span class="forces" data-testid="forces-replacement">"# forces replacement"</span> });
    view! {
        <div class=format!("dn {class}") style:padding-left=indent(depth)>
            <span class="dn-mark">{mark}</span>
            <span class="dn-key">{visible(&key)}</span>
            <span class="eq">" = "</span>
            {values}
            {forces}
        </div>
    }
    .into_any()
}
