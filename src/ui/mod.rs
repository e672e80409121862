//! The browser shell: Leptos components over the core. Holds signals, events and rendering only;
//! every question about the plan is answered by the core (`load`, `summary`, `list`, `diff`, …).
//!
//! State lives in one place, [`AppState`], provided as context by [`App`]; components read what
//! they render and derive the rest.

mod diff;
mod drift;
mod graph;
mod landing;
mod list;
mod mask;
mod open;
mod panels;
mod rules;
mod share;
mod summary;
mod timing;
mod url;

use std::sync::Arc;

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::checks::CheckRow;
use crate::list::{ListEntry, ListFilter};
use crate::model::Document;
use crate::outputs::OutputRow;

/// What the file pickers offer: plans, plan logs, driftctl reports, CI logs saved as text and
/// gzip-compressed copies of any of them (`load::decode` reads them all). Drops are not filtered.
const PLAN_FILE_TYPES: &str =
    ".json,.jsonl,.log,.txt,.gz,application/json,text/plain,application/gzip";

/// A plan with everything derived from it once, when it is opened.
pub struct Loaded {
    /// The parsed plan and its row index.
    pub doc: Document,
    /// Output changes, masked.
    pub outputs: Vec<OutputRow>,
    /// Check results.
    pub checks: Vec<CheckRow>,
    /// Its analysis (counts, planning, drift, graph, findings): computed, or carried by a
    /// redacted link.
    pub analysis: crate::analysis::Analysis,
    /// Where it came from, for the URL fragment.
    pub source: PlanSource,
}

/// Where the open plan came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanSource {
    /// A sample shipped with the app, by file stem.
    Sample(String),
    /// A file the user chose or dropped, or text they pasted.
    Local,
    /// A share link: the plan was in the fragment (this payload), and stays there.
    Link(Arc<str>),
    /// Fetched from `?url=` (this address).
    Url(String),
}

/// What the app is doing with a file.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Nothing in progress.
    Idle,
    /// Reading a file: bytes done of total.
    Reading { name: String, done: f64, total: f64 },
    /// Parsing and indexing.
    Parsing { name: String, bytes: f64 },
}

/// Which panel the main area shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// The resource list and diff.
    Resources,
    /// The dependency graph.
    Graph,
    /// What changed outside Terraform.
    Drift,
    /// Output changes.
    Outputs,
    /// Check results.
    Checks,
    /// Guardrail rules: verdict, findings, the user's rules.
    Rules,
}

impl Tab {
    fn key(self) -> &'static str {
        match self {
            Tab::Resources => "resources",
            Tab::Graph => "graph",
            Tab::Drift => "drift",
            Tab::Outputs => "outputs",
            Tab::Checks => "checks",
            Tab::Rules => "rules",
        }
    }

    fn from_key(key: &str) -> Tab {
        match key {
            "graph" => Tab::Graph,
            "drift" => Tab::Drift,
            "outputs" => Tab::Outputs,
            "checks" => Tab::Checks,
            "rules" => Tab::Rules,
            _ => Tab::Resources,
        }
    }
}

/// The list's entries, compared by identity (recomputed only when the plan or filter changes).
#[derive(Clone)]
pub struct Entries(pub Arc<Vec<ListEntry>>);

impl PartialEq for Entries {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// All of the app's state; cheap to copy (signals are handles).
#[derive(Clone, Copy)]
pub struct AppState {
    /// The open plan, if any.
    pub loaded: RwSignal<Option<Arc<Loaded>>, LocalStorage>,
    /// Reading/parsing progress.
    pub status: RwSignal<Status>,
    /// The last load error, shown until the next successful load.
    pub error: RwSignal<Option<String>>,
    /// List filters.
    pub filter: RwSignal<ListFilter>,
    /// The selected row (index into `doc.rows`): its diff is shown and its address is in the URL.
    pub selected: RwSignal<Option<u32>>,
    /// The row under the keyboard cursor.
    pub cursor: RwSignal<Option<u32>>,
    /// The visible tab.
    pub tab: RwSignal<Tab>,
    /// The view a link or reload asked for, applied once the plan it names is open (its address
    /// is selected, its filters set).
    pub pending_view: RwSignal<Option<crate::share::fragment::View>>,
    /// The fragment this app last wrote, to tell its own updates from a link pasted into the
    /// address bar.
    pub written_hash: StoredValue<String>,
    /// The Share dialog is open.
    pub sharing: RwSignal<bool>,
    /// The list's entries for the current plan and filter.
    pub entries: Memo<Entries>,
    /// The dependency graph and how it is shown.
    pub graph: graph::GraphState,
    /// Guardrail rules and their evaluation.
    pub rules: rules::RulesState,
}

impl AppState {
    fn new() -> Self {
        let loaded: RwSignal<Option<Arc<Loaded>>, LocalStorage> = RwSignal::new_local(None);
        let filter = RwSignal::new(ListFilter::default());
        let entries = Memo::new(move |_| {
            let entries = loaded.with(|l| match l {
                Some(l) => filter.with(|f| f.entries(&l.doc)),
                None => Vec::new(),
            });
            Entries(Arc::new(entries))
        });
        AppState {
            loaded,
            status: RwSignal::new(Status::Idle),
            error: RwSignal::new(None),
            filter,
            selected: RwSignal::new(None),
            cursor: RwSignal::new(None),
            tab: RwSignal::new(Tab::Resources),
            pending_view: RwSignal::new(None),
            written_hash: StoredValue::new(String::new()),
            sharing: RwSignal::new(false),
            entries,
            graph: graph::GraphState::new(loaded),
            rules: rules::RulesState::new(loaded),
        }
    }

    /// Rows (indices into `doc.rows`) in list order, as the keyboard walks them.
    fn visible_rows(&self) -> Vec<u32> {
        self.entries.with(|e| {
            e.0.iter()
                .filter_map(|e| match e {
                    ListEntry::Resource(r) => Some(*r),
                    ListEntry::Module { .. } => None,
                })
                .collect()
        })
    }

    /// Moves the keyboard cursor by `delta` rows in list order.
    fn move_cursor(&self, delta: i64) {
        let current = self
            .cursor
            .get_untracked()
            .or(self.selected.get_untracked());
        if let Some(next) = step(&self.visible_rows(), current, delta) {
            self.cursor.set(Some(next));
        }
    }

    /// Selects the next (`delta` > 0) or previous drifted resource, in the Drift tab's order.
    fn move_in_drift(&self, delta: i64) {
        let rows: Vec<u32> = self.loaded.with_untracked(|l| {
            l.as_ref().map_or(Vec::new(), |l| {
                l.analysis
                    .drift
                    .resources
                    .iter()
                    .filter_map(|r| r.rows.first().copied())
                    .collect()
            })
        });
        if let Some(next) = step(&rows, self.selected.get_untracked(), delta) {
            self.select(Some(next));
        }
    }

    /// Selects a row: its diff opens, the graph centres on it and its address goes into the URL.
    pub fn select(&self, row: Option<u32>) {
        if row.is_some() {
            self.graph.state_only.set(None);
        }
        self.selected.set(row);
        self.cursor.set(row);
    }
}

/// The row `delta` places after `current` in `rows` (clamped to the ends); from nowhere, the first
/// row going forward and the last going back. `None` when there are no rows.
fn step(rows: &[u32], current: Option<u32>, delta: i64) -> Option<u32> {
    let last = rows.len().checked_sub(1)?;
    let at = current.and_then(|c| rows.iter().position(|r| *r == c));
    let next = match at {
        None if delta > 0 => 0,
        None => last,
        Some(i) => (i as i64 + delta).clamp(0, last as i64) as usize,
    };
    Some(rows[next])
}

/// The whole app.
#[component]
pub fn App() -> impl IntoView {
    let state = AppState::new();
    provide_context(state);

    url::sync_fragment(state);
    mask::follow_rules(state);
    open::restore_from_url(state);
    open::follow_pasted_links(state);
    install_keyboard(state);

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
                let file = ev.data_transfer().and_then(|dt| dt.files()).and_then(|f| f.get(0));
                if let Some(file) = file {
                    open::open_file(state, file);
                }
            }
        >
            <header class="topbar">
                <a class="brand" href="./" title="Planlens home">
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
                        accept=PLAN_FILE_TYPES
                        class="visually-hidden"
                        on:change=move |ev| {
                            let input: web_sys::HtmlInputElement = event_target(&ev);
                            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                                open::open_file(state, file);
                            }
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
            <Show when=has_plan fallback=|| view! { <landing::Landing /> }>
                <summary::SummaryPanel />
                <Tabs />
            </Show>
            <Show when=move || state.sharing.get() && has_plan()>
                <share::ShareDialog />
            </Show>
            <div class="drop-overlay" aria-hidden="true">"Drop a plan to open it"</div>
        </div>
    }
}

/// The tab bar and the tab it shows.
#[component]
fn Tabs() -> impl IntoView {
    let state = expect_context::<AppState>();
    let count =
        move |f: fn(&Loaded) -> usize| state.loaded.with(|l| l.as_ref().map_or(0, |l| f(l)));
    let tab_button = move |tab: Tab, label: &'static str, n: Option<Signal<usize>>| {
        view! {
            <button
                class="tab"
                role="tab"
                data-testid=format!("tab-{}", tab.key())
                aria-selected=move || (state.tab.get() == tab).to_string()
                on:click=move |_| state.tab.set(tab)
            >
                {label}
                {n.map(|n| view! { <span class="tab-count">{move || n.get()}</span> })}
            </button>
        }
    };
    view! {
        <nav class="tabs" role="tablist">
            {tab_button(Tab::Resources, "Resources", None)}
            {tab_button(Tab::Graph, "Graph", None)}
            {tab_button(Tab::Drift, "Drift", Some(Signal::derive(move || count(|l| l.analysis.drift.resources.len()))))}
            {tab_button(Tab::Rules, "Rules", Some(Signal::derive(move || {
                // The same count as the Rules tab's heading: both read Evaluation::tally.
                state.rules.checked.with(|c| c.as_ref().map_or(0, |c| c.0.evaluation.tally().total()))
            })))}
            {tab_button(Tab::Outputs, "Outputs", Some(Signal::derive(move || count(|l| l.outputs.len()))))}
            {tab_button(Tab::Checks, "Checks", Some(Signal::derive(move || count(|l| l.checks.len()))))}
        </nav>
        {move || match state.tab.get() {
            Tab::Resources => view! {
                <div class="workspace">
                    <list::ResourceList />
                    <diff::DiffPanel />
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

/// j/k and arrows move, Enter opens the diff, `/` focuses search, Esc clears search, then selection.
fn install_keyboard(state: AppState) {
    let handle = window_event_listener(ev::keydown, move |ev: web_sys::KeyboardEvent| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        let in_field = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
            .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
        let key = ev.key();
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
        if in_field || state.loaded.with_untracked(Option::is_none) {
            return;
        }
        match key.as_str() {
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
