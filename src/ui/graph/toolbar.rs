//! The HTML around the Graph tab's canvas: the toolbar, the note on missing edges, the legend, the
//! status line and the pane beside the graph. Reads and sets the view state; draws nothing.

use std::sync::Arc;

use leptos::prelude::*;
use petgraph::graph::NodeIndex;

use super::export::{download, svg_for_export, svg_to_png};
use crate::graph::EdgeSource;
use crate::graph::view::{Highlight, ViewNodeKind};
use crate::model::text::{count, noun};
use crate::ui::{AppState, diff};

/// The toolbar: search, fit and zoom, folding, highlights and export.
#[component]
pub(super) fn GraphToolbar(
    /// What is lit, drawn into the exported SVG and PNG.
    highlight: Memo<Option<Arc<Highlight>>>,
    /// Frames the whole graph.
    fit: impl Fn() + Copy + 'static,
    /// Zooms about the middle of the canvas by a factor.
    zoom_button: impl Fn(f64) + Copy + 'static,
) -> impl IntoView {
    let state = expect_context::<AppState>();
    let gs = state.graph;
    let export_svg = move |_| {
        let hl = highlight.get_untracked();
        if let Some((svg, name)) = hl.and_then(|hl| svg_for_export(state, &hl)) {
            download(&svg, "image/svg+xml", &format!("{name}.svg"));
        }
    };
    let export_png = move |_| {
        let hl = highlight.get_untracked();
        if let Some((svg, name)) = hl.and_then(|hl| svg_for_export(state, &hl)) {
            svg_to_png(svg, format!("{name}.png"));
        }
    };

    let toggle = move |sig: RwSignal<bool>| move |_| sig.update(|b| *b = !*b);
    let show_unchanged = move || gs.options.get().map(|o| o.show_unchanged).unwrap_or(false);

    view! {
        <div class="graph-toolbar" role="toolbar" aria-label="Graph tools">
            <input
                type="search"
                class="search graph-search"
                data-testid="graph-search"
                placeholder="Find in graph…"
                aria-label="Find a resource in the graph"
                prop:value=move || state.filter.with(|f| f.search.clone())
                on:input=move |ev| {
                    let value = event_target_value(&ev);
                    state.filter.update(|f| f.search = value);
                }
            />
            <button class="button" data-testid="graph-fit" title="Fit to screen (0)" on:click=move |_| fit()>"Fit"</button>
            <button class="button" title="Zoom in (+)" aria-label="Zoom in" on:click=move |_| zoom_button(1.25)>"+"</button>
            <button class="button" title="Zoom out (−)" aria-label="Zoom out" on:click=move |_| zoom_button(0.8)>"−"</button>
            <span class="toolbar-sep"></span>
            <button class="button" data-testid="graph-collapse-all" title="Draw every module as one node"
                on:click=move |_| gs.update_options(|o| {
                    if let Some(g) = gs.graph.get_untracked() {
                        o.collapsed = (1..g.0.module_instances.len() as u32).collect();
                    }
                })>"Collapse modules"</button>
            <button class="button" data-testid="graph-expand-all" title="Show every module's resources"
                on:click=move |_| gs.update_options(|o| o.collapsed.clear())>"Expand all"</button>
            <label class="toggle">
                <input type="checkbox" data-testid="graph-full"
                    prop:checked=show_unchanged
                    on:change=move |_| gs.update_options(|o| o.show_unchanged = !o.show_unchanged) />
                " Full graph"
            </label>
            <span class="toolbar-sep"></span>
            <label class="toggle" title="Also light what the selected resource depends on">
                <input type="checkbox" data-testid="graph-upstream" prop:checked=move || gs.upstream.get() on:change=toggle(gs.upstream) />
                " Depends on"
            </label>
            <label class="toggle danger" title="Light everything that depends on a delete, replace or forget">
                <input type="checkbox" data-testid="graph-destructive" prop:checked=move || gs.destructive.get() on:change=toggle(gs.destructive) />
                " Blast radius of destructive changes"
            </label>
            <span class="toolbar-sep"></span>
            <button class="button" data-testid="graph-export-svg" on:click=export_svg>"Export SVG"</button>
            <button class="button" data-testid="graph-export-png" on:click=export_png>"Export PNG"</button>
        </div>
    }
}

/// Says when edges may be missing.
#[component]
pub(super) fn EdgeNote() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        let g = state.graph.graph.get()?;
        let text = match g.0.source {
            EdgeSource::Configuration => return None,
            EdgeSource::StateOnly => {
                "This plan has no configuration, so edges come only from the prior state's depends_on: they may be incomplete."
            }
            EdgeSource::Nothing => {
                "This plan has neither configuration nor prior state: no dependencies can be shown."
            }
        };
        Some(view! { <p class="graph-note" role="note" data-testid="graph-note">{text}</p> })
    }
}

/// Counts under the graph: what is drawn, what is folded, and the blast radius.
#[component]
pub(super) fn GraphStatus(
    highlight: Memo<Option<Arc<Highlight>>>,
    selected: Memo<Option<NodeIndex>>,
) -> impl IntoView {
    let state = expect_context::<AppState>();
    let gs = state.graph;
    let text = move || {
        let g = gs.graph.get()?;
        let v = gs.view.get()?;
        let (g, v) = (&g.0, &v.0);
        let modules = v
            .nodes
            .iter()
            .filter(|n| matches!(n.kind, ViewNodeKind::Module { .. }))
            .count();
        // Instances are counted as the summary and the list count them (one per row); the
        // graph's other nodes are resources only in the prior state.
        let instances = state
            .loaded
            .with(|l| l.as_ref().map_or(0, |l| l.analysis.summary.instances));
        let state_only = g.graph.node_count().saturating_sub(instances);
        let mut parts = vec![count(instances, "resource instance", "resource instances")];
        if state_only > 0 {
            parts.push(format!("{state_only} only in the prior state"));
        }
        parts.push(count(g.graph.edge_count(), "dependency", "dependencies"));
        parts.push(format!("showing {}", count(v.nodes.len(), "node", "nodes")));
        if modules > 0 {
            parts.push(count(modules, "collapsed module", "collapsed modules"));
        }
        if v.hidden_unchanged > 0 {
            parts.push(format!("{} unchanged hidden", v.hidden_unchanged));
        }
        Some(parts.join(" · "))
    };
    let blast = move || {
        let h = highlight.get()?;
        let g = gs.graph.get()?;
        let mut parts = Vec::new();
        if let Some(n) = selected.get() {
            let address = crate::model::text::visible(&g.0.graph[n].address);
            parts.push(format!(
                "{address}: {} on it",
                count(h.dependents, "resource depends", "resources depend")
            ));
            if gs.upstream.get() {
                parts.push(format!("it depends on {}", h.dependencies));
            }
        }
        if gs.destructive.get() {
            parts.push(format!(
                "{}, {} on {}",
                count(h.destructive, "destructive change", "destructive changes"),
                count(
                    h.destructive_dependents,
                    "resource depends",
                    "resources depend"
                ),
                noun(h.destructive, "it", "them")
            ));
        }
        (!parts.is_empty()).then(|| parts.join(" · "))
    };
    view! {
        <p class="graph-status" data-testid="graph-status" aria-live="polite">
            <span data-testid="graph-counts">{text}</span>
            {move || blast().map(|b| view! { <span class="blast" data-testid="graph-blast">{b}</span> })}
        </p>
    }
}

/// The legend: action symbols and borders, and the marks.
#[component]
pub(super) fn Legend() -> impl IntoView {
    let items = crate::graph::style::legend()
        .into_iter()
        .map(|(action, symbol, label)| {
            view! {
                <li>
                    <span class=format!("legend-swatch action-{}", action.key())>{if symbol.is_empty() { "=" } else { symbol }}</span>
                    {label}
                </li>
            }
        })
        .collect_view();
    let marks = crate::graph::style::MARKS
        .iter()
        .map(|(m, meaning)| view! { <li><span class="legend-mark">{*m}</span>{*meaning}</li> })
        .collect_view();
    view! {
        <details class="graph-legend">
            <summary>"Legend"</summary>
            <ul>
                {items}
                {marks}
                <li><span class="legend-flag sev-deny">"deny"</span>"a deny rule flags it"</li>
                <li><span class="legend-flag sev-warn">"warn"</span>"a warn rule flags it"</li>
            </ul>
            <p class="fine">"Arrows point from a dependency to what depends on it. Click a module to expand it, its title to collapse it."</p>
        </details>
    }
}

/// Beside the graph: the diff of the selected resource, or a note for a node only in state.
#[component]
pub(super) fn GraphSide() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || match (state.graph.state_only.get(), state.graph.graph.get()) {
        (Some(n), Some(g)) => {
            let node = &g.0.graph[NodeIndex::new(n as usize)];
            let address = crate::model::text::visible(&node.address);
            view! {
                <aside class="diff-pane" data-testid="graph-state-only">
                    <h2 class="diff-address">{address}</h2>
                    <p>"Only in the prior state: the plan has no change for it. It is shown because other resources depend on it."</p>
                </aside>
            }
            .into_any()
        }
        _ => view! { <diff::DiffPanel /> }.into_any(),
    }
}
