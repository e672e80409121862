//! The HTML around the Graph tab's canvas: the toolbar, the note on missing edges, the legend, the
//! status line and the pane beside the graph. Reads and sets the view state; draws nothing.
//!
//! The toolbar holds the search bar; on phones the side pane is a full-screen sheet.

use std::sync::Arc;

use leptos::prelude::*;
use petgraph::graph::NodeIndex;

use super::export::{download, svg_for_export, svg_to_png};
use super::state::Fetch;
use crate::graph::EdgeSource;
use crate::graph::export::gone_words;
use crate::graph::style::{LIT, Palette, Theme, since_badge};
use crate::graph::view::{Highlight, ViewNodeKind};
use crate::model::since::SinceMark;
use crate::model::text::{count, noun};
use crate::ui::{AppState, diff};

/// The toolbar: search (given as `children`), fit and zoom, folding, highlights and export. On a
/// phone the zoom buttons (fingers pinch), folding, highlight and export tools fold behind a
/// "More" button.
#[component]
pub(super) fn GraphToolbar(
    /// What is lit, drawn into the exported SVG and PNG.
    highlight: Memo<Option<Arc<Highlight>>>,
    /// Frames the whole graph.
    fit: impl Fn() + Copy + 'static,
    /// Zooms about the middle of the canvas by a factor.
    zoom_button: impl Fn(f64) + Copy + 'static,
    /// The search bar.
    children: Children,
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
    // The options in effect: the opening ones until the user changes something (they show the
    // full graph when nothing changes, as for a state).
    let show_unchanged = move || {
        gs.options
            .get()
            .or_else(|| gs.graph.get().map(|g| g.0.opening_options()))
            .is_some_and(|o| o.show_unchanged)
    };
    let more = RwSignal::new(false);

    view! {
        <div class="graph-toolbar" class:more-open=move || more.get() role="toolbar" aria-label="Graph tools">
            {children()}
            <div class="graph-view-tools">
                <button class="button" data-testid="graph-fit" title="Fit to screen (0)" on:click=move |_| fit()>"Fit"</button>
                <button class="button graph-zoom" data-testid="graph-zoom-in" title="Zoom in (+)" aria-label="Zoom in" on:click=move |_| zoom_button(1.25)>"+"</button>
                <button class="button graph-zoom" data-testid="graph-zoom-out" title="Zoom out (−)" aria-label="Zoom out" on:click=move |_| zoom_button(0.8)>"−"</button>
                <button class="button graph-more-toggle" data-testid="graph-more"
                    aria-expanded=move || more.get().to_string()
                    on:click=move |_| more.update(|m| *m = !*m)>"More"</button>
            </div>
            <div class="graph-tools" class:open=move || more.get() data-testid="graph-tools">
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
                <label class="toggle" title="Light everything that depends on a delete, replace or forget">
                    <input type="checkbox" data-testid="graph-destructive" prop:checked=move || gs.destructive.get() on:change=toggle(gs.destructive) />
                    " Blast radius of destructive changes"
                </label>
                <span class="toolbar-sep"></span>
                <button class="button" data-testid="graph-export-svg" on:click=export_svg>"Export SVG"</button>
                <button class="button" data-testid="graph-export-png" on:click=export_png>"Export PNG"</button>
            </div>
        </div>
    }
}

/// The search box, how many resources match, and buttons (and Enter, Shift+Enter) that step
/// through them.
#[component]
pub(super) fn SearchBar(
    /// The resources that match, in plan order.
    found: Memo<Arc<Vec<NodeIndex>>>,
    /// The selected node: when it is a match, the count says which one it is.
    selected: Memo<Option<NodeIndex>>,
    /// Selects the next (`1`) or previous (`-1`) match.
    step: impl Fn(i64) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let state = expect_context::<AppState>();
    let searching = move || state.filter.with(|f| !f.search.trim().is_empty());
    let none = move || found.with(|f| f.is_empty());
    let count_text = move || {
        let n = found.with(|f| f.len());
        if n == 0 {
            return "No matches".to_string();
        }
        let total = count(n, "match", "matches");
        let at = selected
            .get()
            .and_then(|s| found.with(|f| f.iter().position(|m| *m == s)));
        match at {
            Some(i) => format!("{} of {total}", i + 1),
            None => total,
        }
    };
    view! {
        <div class="graph-find" role="search">
            <input
                type="search"
                class="search graph-search"
                data-testid="graph-search"
                placeholder="Find in graph…"
                aria-label="Find a resource in the graph; Enter steps to the next match, Shift+Enter to the previous one"
                prop:value=move || state.filter.with(|f| f.search.clone())
                on:input=move |ev| {
                    let value = event_target_value(&ev);
                    state.filter.update(|f| f.search = value);
                }
                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                    if ev.key() == "Enter" {
                        ev.prevent_default();
                        step(if ev.shift_key() { -1 } else { 1 });
                    }
                }
            />
            <Show when=searching>
                <div class="graph-steps">
                    <span class="graph-match-count" data-testid="graph-match-count" aria-live="polite">{count_text}</span>
                    <button class="button graph-step" data-testid="graph-match-prev" title="Previous match (Shift+Enter)"
                        aria-label="Previous match" disabled=none on:click=move |_| step(-1)>"‹"</button>
                    <button class="button graph-step" data-testid="graph-match-next" title="Next match (Enter)"
                        aria-label="Next match" disabled=none on:click=move |_| step(1)>"›"</button>
                </div>
            </Show>
        </div>
    }
}

/// Says when edges may be missing.
#[component]
pub(super) fn EdgeNote() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        let g = state.graph.graph.get()?;
        // A state's edges are the dependencies Terraform recorded for each resource.
        let in_state = state
            .loaded
            .with(|l| l.as_ref().is_some_and(|l| l.doc.source.is_state()));
        let text = match g.0.source {
            _ if in_state => {
                "Edges are the dependencies Terraform recorded in the state for each resource when it was last applied."
            }
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

/// While the plan's session builds the graph: that it does, or why it could not.
#[component]
pub(super) fn FetchNote() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || match state.graph.fetch.get() {
        Fetch::Idle => None,
        Fetch::Asking => Some(
            view! {
                <p class="graph-note" role="status" data-testid="graph-building">
                    "Building the dependency graph…"
                </p>
            }
            .into_any(),
        ),
        Fetch::Failed(message) => Some(
            view! {
                <p class="graph-note graph-failed" role="alert" data-testid="graph-failed">
                    {format!("The dependency graph could not be built: {message}")}
                </p>
            }
            .into_any(),
        ),
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
    // While the plan is compared with the last one: how many resources are marked, and how many
    // changes are gone (not in this plan, so not in its graph; the since paragraph lists them).
    let since = move || {
        let since = state.since.get()?;
        let marked = state.since_marks.with(|m| m.len());
        Some(format!(
            "{} since the last plan · {}",
            count(marked, "resource marked", "resources marked"),
            gone_words(since.comparison.removed.len())
        ))
    };
    view! {
        <p class="graph-status" data-testid="graph-status" aria-live="polite">
            <span class="graph-counts" data-testid="graph-counts">{text}</span>
            {move || since().map(|s| view! { <span class="graph-since" data-testid="graph-since">{s}</span> })}
            {move || blast().map(|b| view! { <span class="blast" data-testid="graph-blast">{b}</span> })}
        </p>
    }
}

/// The legend, drawn from the same palette as the canvas (in the page's theme): what each
/// action's box looks like, the marks, the flags of findings, the badges of what changed since
/// the last plan (while a comparison is open) and the rings of highlights.
#[component]
pub(super) fn Legend(theme: RwSignal<Theme>) -> impl IntoView {
    let state = expect_context::<AppState>();
    // Only while a comparison is open: the badges of what changed since the last plan, and how
    // many changes are gone (they cannot be drawn).
    let since = move || {
        let gone = state
            .since
            .with(|s| s.as_ref().map(|s| s.comparison.removed.len()))?;
        let p = Palette::of(theme.get());
        let badges = SinceMark::ALL
            .into_iter()
            .map(|mark| {
                let (word, _) = since_badge(mark);
                view! {
                    <li data-testid=format!("legend-since-{}", mark.key())>
                        <svg class="legend-swatch" width="44" height="18" viewBox="0 0 44 18" aria-hidden="true">
                            <rect x="1" y="2" width="42" height="14" rx="3" fill=p.since />
                            <text x="22" y="13" text-anchor="middle" font-size="10" fill=p.on_fill font-weight="bold">{word}</text>
                        </svg>
                        {mark.words()}
                    </li>
                }
            })
            .collect_view();
        Some(view! {
            {badges}
            <li data-testid="legend-since-gone">{gone_words(gone)}</li>
        })
    };
    let actions = move || {
        let p = Palette::of(theme.get());
        crate::graph::style::legend()
            .into_iter()
            .map(|(action, symbol, label)| {
                let st = p.node(action);
                view! {
                    <li data-testid=format!("legend-action-{}", action.key())>
                        <svg class="legend-swatch" width="30" height="18" viewBox="0 0 30 18" aria-hidden="true">
                            <rect x="1.5" y="1.5" width="27" height="15" rx="2" fill=st.fill stroke=st.stroke
                                stroke-width=st.border.min(2.5).to_string() stroke-dasharray=dash(st.dash) />
                            <text x="15" y="13" text-anchor="middle" fill=st.stroke>{if symbol.is_empty() { "=" } else { symbol }}</text>
                        </svg>
                        {label}
                    </li>
                }
            })
            .collect_view()
    };
    let marks = crate::graph::style::MARKS
        .iter()
        .map(|(m, meaning)| view! { <li><span class="legend-mark">{*m}</span>{*meaning}</li> })
        .collect_view();
    let flags = move || {
        let p = Palette::of(theme.get());
        [(true, "deny", "a deny rule flags it"), (false, "warn", "a warn rule flags it")]
            .into_iter()
            .map(|(deny, word, meaning)| {
                let (fill, stroke, ink) = p.flag(deny);
                view! {
                    <li data-testid=format!("legend-finding-{word}")>
                        <svg class="legend-swatch" width="30" height="18" viewBox="0 0 30 18" aria-hidden="true">
                            <rect x="1" y="2" width="28" height="14" fill=fill stroke=stroke stroke-width="1.5" />
                            <text x="15" y="13" text-anchor="middle" fill=ink font-weight="bold">{word}</text>
                        </svg>
                        {meaning}
                    </li>
                }
            })
            .collect_view()
    };
    let rings = move || {
        let p = Palette::of(theme.get());
        LIT.iter()
            .map(|&lit| {
                let r = p.ring(lit);
                let node = p.node(crate::model::Action::NoOp);
                view! {
                    <li data-testid=format!("legend-lit-{}", lit.key())>
                        <svg class="legend-swatch" width="30" height="18" viewBox="0 0 30 18" aria-hidden="true">
                            <rect x="3" y="3" width="24" height="12" rx="2" fill="none" stroke=r.colour
                                stroke-width=r.width.min(4.0).to_string() stroke-opacity=r.alpha.to_string()
                                stroke-dasharray=dash(r.dash) />
                            <rect x="7" y="6.5" width="16" height="5" fill=node.fill stroke=node.stroke stroke-width="1" />
                        </svg>
                        {lit.meaning()}
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <details class="graph-legend" data-testid="graph-legend">
            <summary>"Legend"</summary>
            <ul>
                {actions}
                {marks}
                {flags}
                {since}
                {rings}
            </ul>
            <p class="fine">"Red is a destructive change and nothing else. Arrows point from a dependency to what depends on it. Click a module to expand it, its title to collapse it."</p>
        </details>
    }
}

/// An SVG dash array, or nothing for a solid line.
fn dash(pattern: &[f32]) -> Option<String> {
    (!pattern.is_empty()).then(|| {
        pattern
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// Beside the graph: the diff of the selected resource, or a note for a node only in state. On a
/// phone it is a full-screen sheet, opened by tapping a node (`open`) and closed by its Back
/// button, which keeps the selection lit in the graph.
#[component]
pub(super) fn GraphSide(open: RwSignal<bool>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let content = move || match (state.graph.state_only.get(), state.graph.graph.get()) {
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
    };
    view! {
        <div class="graph-side" class:open=move || open.get() data-testid="graph-side">
            <button class="graph-side-back" data-testid="graph-side-back" on:click=move |_| open.set(false)>
                "← Back to the graph"
            </button>
            {content}
        </div>
    }
}
