//! The browser shell: Leptos components over the core. Holds signals, events and rendering only;
//! every question about the plan is answered by the core (`load`, `summary`, `list`, `diff`, …).
//!
//! State lives in one place, [`AppState`] (`state.rs`, over the open plan in `loaded.rs` and the
//! graph's and rules' view states), provided as context by [`App`]; components read what they
//! render and derive the rest. Files use each other one way: `loaded`, `timing` and `backend` →
//! the view states (`graph/state.rs`, `rules/state.rs`) → `state` → helpers (`mask`, `url`,
//! `open`) → components → this file, which mounts them.
//!
//! `Enter` is left to whatever focused control acts on it; `PageUp`/`PageDown` scroll the diff from
//! anywhere outside fields. Below 800 px wide the page is one column: the detail is a full-screen
//! sheet over the list (`AppState::detail_open`: selecting opens it, Back closes it and keeps the
//! selection), and the filters fold behind *Filters*. Plan data is rendered as text nodes or inert
//! `data-*` attributes, never HTML.

mod backend;
mod diff;
mod drift;
mod fleet;
mod folder;
pub mod glance;
mod graph;
pub mod js;
mod landing;
mod list;
mod loaded;
mod mask;
mod open;
mod panels;
mod report;
mod rules;
mod set_since;
mod share;
mod since;
mod state;
mod summary;
mod timing;
mod url;

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

pub use loaded::{Loaded, PlanSource};
pub use state::{AppState, Status, Tab};

/// The whole app.
#[component]
pub fn App() -> impl IntoView {
    let state = AppState::new();
    provide_context(state);

    url::sync_fragment(state);
    open::follow_mask(state);
    open::restore_from_url(state);
    // A worker for the first plan starts now, while the user looks at the page.
    backend::prepare();
    open::follow_pasted_links(state);
    open::rejudge_sets(state);
    install_keyboard(state);
    let home = url::follow_history(state);
    list::drop_hidden_selection(state);
    follow_glance(state);

    let has_plan = move || state.loaded.with(Option::is_some);
    let dragging = RwSignal::new(false);

    view! {
        <div
            class="app"
            class:dragging=move || dragging.get()
            on:dragover=move |ev: ev::DragEvent| {
                ev.prevent_default();
                dragging.set(true);
            }
            on:dragleave=move |ev: ev::DragEvent| {
                // Only when the pointer leaves the window, not when it crosses child elements.
                if ev.related_target().is_none() {
                    dragging.set(false);
                }
            }
            on:drop=move |ev: ev::DragEvent| {
                ev.prevent_default();
                dragging.set(false);
                // A folder (a Terragrunt --json-out-dir tree, a CI layout): every plan in it.
                if let Some(entries) = ev.data_transfer().as_ref().and_then(folder::entries).filter(|e| folder::has_folder(e)) {
                    open::open_folder(state, entries);
                    return;
                }
                let files = ev.data_transfer().and_then(|dt| dt.files());
                // Rego policies dropped anywhere join the Rules tab's policies.
                if let Some(files) = files.as_ref().filter(|f| rules::policies::all_policies(f)) {
                    rules::policies::add_files(state.rules, files.clone());
                    state.tab.set(Tab::Rules);
                    return;
                }
                open::open_chosen(state, files);
            }
        >
            <header class="topbar">
                // With a plan open, the logo shows the landing page (samples, paste) over it; the
                // landing page leads back to the plan as it was.
                <a
                    class="brand"
                    href="./"
                    title="Planlens home: open another plan, a sample or pasted JSON"
                    on:click=move |ev: ev::MouseEvent| {
                        let new_tab = ev.ctrl_key() || ev.meta_key() || ev.shift_key() || ev.button() != 0;
                        if !new_tab && state.loaded.with_untracked(Option::is_some) {
                            ev.prevent_default();
                            home.show();
                        }
                    }
                >
                    <span class="brand-mark" aria-hidden="true">"◆"</span>
                    " Planlens"
                </a>
                <span class="doc-name">
                    {move || state.loaded.with(|l| l.as_ref().map(|l| crate::model::text::visible(&l.doc.name)))}
                </span>
                <label class="button open-button">
                    "Open plan…"
                    <input
                        type="file"
                        data-testid="plan-file"
                        multiple
                        accept=open::PLAN_FILE_TYPES
                        class="visually-hidden"
                        on:change=move |ev| {
                            let input: web_sys::HtmlInputElement = event_target(&ev);
                            open::open_chosen(state, input.files());
                            // Let the same file be chosen again after an edit.
                            input.set_value("");
                        }
                    />
                </label>
                <Show when=has_plan>
                    <button
                        class="button share-button"
                        data-testid="share"
                        title="Share this view: a link with the plan inside, a redacted link, or a Markdown summary"
                        on:click=move |_| state.sharing.set(true)
                    >
                        "Share…"
                    </button>
                </Show>
                <span class="kbd-help" title="Keyboard: j/k or arrows move, Enter opens, / searches, Esc clears">
                    "j k ↵ / Esc"
                </span>
            </header>
            <open::Progress />
            <open::ErrorBanner />
            <Show when=move || state.fleet.with(Option::is_some) && !state.showing_fleet.get() && has_plan() && !state.home.get()>
                <button class="link-button fleet-back" data-testid="fleet-back" on:click=move |_| fleet::back(state)>
                    {move || state.fleet.with(|f| f.as_ref().map(|f| if f.plans.is_empty() {
                        format!("← Back to the fleet ({})", crate::model::text::count(f.rows.len(), "workspace", "workspaces"))
                    } else {
                        format!("← Back to the roll-up ({})", crate::model::text::count(f.plans.len(), "plan", "plans"))
                    }))}
                </button>
            </Show>
            <Show
                when=move || state.showing_fleet.get() && state.fleet.with(Option::is_some) && !state.home.get()
                fallback=move || view! {
                    <Show when=move || has_plan() && !state.home.get() fallback=|| view! { <landing::Landing /> }>
                        <summary::SummaryPanel />
                        <since::SincePanel />
                        <Tabs />
                    </Show>
                }
            >
                <fleet::FleetView />
            </Show>
            <Show when=move || state.sharing.get() && has_plan()>
                <share::ShareDialog />
            </Show>
            <div class="drop-overlay" aria-hidden="true">"Drop a plan to open it"</div>
        </div>
    }
}

/// A share link's first paint (`glance`) covers the page until the plan is open, or has failed to
/// open; then it goes, in the same task as the plan renders, and the row chosen there is selected.
fn follow_glance(state: AppState) {
    if !glance::showing() {
        return;
    }
    Effect::new(move |_| {
        let done = state.loaded.with(Option::is_some) || state.error.with(Option::is_some);
        if !done || !glance::showing() {
            return;
        }
        let chosen = glance::take_over();
        let row = chosen.and_then(|address| {
            state
                .loaded
                .with_untracked(|l| l.as_ref().and_then(|l| l.doc.find_row(&address)))
        });
        if let Some(row) = row {
            state.select(Some(row as u32));
        }
    });
}

/// The tab bar and the tab it shows.
#[component]
fn Tabs() -> impl IntoView {
    let state = expect_context::<AppState>();
    let count =
        move |f: fn(&Loaded) -> usize| state.loaded.with(|l| l.as_ref().map_or(0, |l| f(l)));
    let tab_button = move |tab: Tab, label: &'static str, n: Option<Signal<Option<usize>>>| {
        view! {
            <button
                class="tab"
                role="tab"
                data-testid=format!("tab-{}", tab.key())
                aria-selected=move || (state.tab.get() == tab).to_string()
                on:click=move |_| state.tab.set(tab)
            >
                {label}
                {n.map(|n| move || n.get().map(|n| view! { <span class="tab-count">{n}</span> }))}
            </button>
        }
    };
    // The tab shown, changed only when another is chosen: the keys set the tab they act in
    // (j/k show the list), and setting the same one again must not build the list anew, which
    // would take the keyboard focus from it.
    let shown = Memo::new(move |_| state.tab.get());
    view! {
        <nav class="tabs" role="tablist">
            {tab_button(Tab::Resources, "Resources", None)}
            {tab_button(Tab::Graph, "Graph", None)}
            // A state cannot show drift, and a failed, partial or old plan may not show it: no
            // count of 0, which would read as "no drift" (the tab says why).
            {tab_button(Tab::Drift, "Drift", Some(Signal::derive(move || {
                let unknown = state.loaded.with(|l| l.as_ref().is_some_and(|l| {
                    l.doc.source.is_state()
                        || (l.analysis.drift.resources.is_empty()
                            && crate::drift::incompleteness(&l.doc, &l.analysis.planning, 0).is_some())
                }));
                (!unknown).then(|| count(|l| l.analysis.drift.resources.len()))
            })))}
            {tab_button(Tab::Rules, "Rules", Some(Signal::derive(move || {
                // The same count as the Rules tab's heading: both read Evaluation::tally.
                Some(state.rules.checked.with(|c| c.as_ref().map_or(0, |c| c.0.evaluation.tally().total())))
            })))}
            {tab_button(Tab::Outputs, "Outputs", Some(Signal::derive(move || Some(count(|l| l.outputs.len())))))}
            {tab_button(Tab::Checks, "Checks", Some(Signal::derive(move || Some(count(|l| l.checks.len())))))}
        </nav>
        {move || match shown.get() {
            // On a phone the detail is a full-screen sheet over the list, opened by selecting a
            // row; its Back button (hidden on wider screens) closes it and keeps the selection.
            Tab::Resources => view! {
                <div class="workspace" class:detail-open=move || state.showing_detail()>
                    <list::ResourceList />
                    <div class="detail-sheet" data-testid="detail-sheet">
                        <button class="sheet-back" data-testid="sheet-back" on:click=move |_| state.detail_open.set(false)>
                            "← Back to the list"
                        </button>
                        <diff::DiffPanel />
                    </div>
                </div>
            }.into_any(),
            Tab::Graph => view! { <graph::GraphPanel /> }.into_any(),
            Tab::Drift => view! { <drift::DriftPanel /> }.into_any(),
            Tab::Outputs => view! { <panels::OutputsPanel /> }.into_any(),
            Tab::Checks => view! { <panels::ChecksPanel /> }.into_any(),
            Tab::Rules => view! { <rules::RulesPanel /> }.into_any(),
        }}
    }
}

/// Elements that do something of their own on Enter (and Space): the page's keys leave Enter to
/// them, so a focused tab, button, link or disclosure still works with a resource selected.
const ACTS_ON_ENTER: &str = "a[href], button, input, select, textarea, summary, [contenteditable], \
     [role=tab], [role=button], [role=link], [role=menuitem], [role=checkbox], [role=switch], [role=radio]";

/// j/k and arrows move, Enter opens the diff, `/` focuses search, Esc clears search, then selection;
/// in the search box, Enter opens the first match and ↓ moves into the list. Enter on anything
/// that acts on it ([`ACTS_ON_ENTER`]) is left to it. PageUp/PageDown (and Home/End outside the
/// list) scroll the detail (the selected resource's diff) wherever the focus is, unless it is in a
/// field or in the detail itself, where every scrolling key is the browser's; j/k still move.
fn install_keyboard(state: AppState) {
    let handle = window_event_listener(ev::keydown, move |ev: web_sys::KeyboardEvent| {
        // The fleet view has keys of its own (`fleet.rs`): none of these act on the plan behind it.
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() || state.showing_fleet.get_untracked() {
            return;
        }
        let target = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok());
        let in_field = target
            .as_ref()
            .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
        let key = ev.key();
        let inside = |selector: &str| {
            target
                .as_ref()
                .is_some_and(|el| el.closest(selector).ok().flatten().is_some())
        };
        // From the search box, Enter opens the first match and ↓ steps into the list (the cursor
        // on the first match, the focus on the list); either way the box lets go of the keys, so
        // j/k/Enter work next.
        if let Some(search) = target.as_ref().filter(|el| list::is_search(el))
            && matches!(key.as_str(), "Enter" | "ArrowDown")
        {
            if let Some(first) = state.visible_rows().first().copied() {
                ev.prevent_default();
                if key == "Enter" {
                    state.select(Some(first));
                    let _ = search.blur();
                } else {
                    state.cursor.set(Some(first));
                    list::focus_list();
                }
            }
            return;
        }
        if key == "Enter" && inside(ACTS_ON_ENTER) {
            return;
        }
        if key == "Escape" {
            if !state.filter.with_untracked(|f| f.search.is_empty()) {
                state.filter.update(|f| f.search.clear());
            } else if !in_field {
                state.selected.set(None);
            }
            if let Some(el) = document()
                .active_element()
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
            {
                let _ = el.blur();
            }
            return;
        }
        // The landing page (the logo was clicked) has no list to move through.
        if in_field || state.loaded.with_untracked(Option::is_none) || state.home.get_untracked() {
            return;
        }
        // In the detail, arrows, Page keys, Home and End scroll it, as in any scrolling box.
        let scrolling = matches!(
            key.as_str(),
            "ArrowDown" | "ArrowUp" | "PageDown" | "PageUp" | "Home" | "End"
        );
        if scrolling && inside(diff::DETAIL_PANE) {
            return;
        }
        match key.as_str() {
            // Scrolls the detail, if one is shown.
            "PageDown" | "PageUp" | "Home" | "End" if diff::scroll_detail(&key) => {
                ev.prevent_default();
            }
            "/" => {
                ev.prevent_default();
                state.tab.set(Tab::Resources);
                list::focus_search();
            }
            "j" | "ArrowDown" | "k" | "ArrowUp" => {
                ev.prevent_default();
                let delta = if matches!(key.as_str(), "j" | "ArrowDown") {
                    1
                } else {
                    -1
                };
                // In the Drift tab, j/k walk the drifted resources and select as they go.
                if state.tab.get_untracked() == Tab::Drift {
                    state.move_in_drift(delta);
                    return;
                }
                // In the graph, j/k walk the resources in list order and select as they go.
                if state.tab.get_untracked() == Tab::Graph {
                    state.move_cursor(delta);
                    state.select(state.cursor.get_untracked());
                } else {
                    state.tab.set(Tab::Resources);
                    state.move_cursor(delta);
                }
            }
            "Enter" => {
                if let Some(c) = state.cursor.get_untracked() {
                    ev.prevent_default();
                    if state.tab.get_untracked() != Tab::Graph {
                        state.tab.set(Tab::Resources);
                    }
                    state.select(Some(c));
                }
            }
            _ => {}
        }
    });
    on_cleanup(move || handle.remove());
}
