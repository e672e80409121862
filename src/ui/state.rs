//! The app's state in one place, [`AppState`], provided as context by `App`: components read
//! what they render and derive the rest. It holds the open plan ([`Loaded`]), the list filter
//! and selection, the visible tab, and the graph's and rules' view states.

use std::collections::HashMap;
use std::sync::Arc;

use leptos::prelude::*;

use super::graph::GraphState;
use super::loaded::Loaded;
use super::rules::RulesState;
use crate::list::{ListEntry, ListFilter};

/// What the app is doing with a file.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Nothing in progress.
    Idle,
    /// Reading a file: bytes done of total.
    Reading { name: String, done: f64, total: f64 },
    /// Parsing and indexing.
    Parsing { name: String, bytes: f64 },
    /// Fetching a lazily loaded part of the app the file needs (`part`: `yaml`).
    LoadingPart { name: String, part: String },
    /// Reading the plans of a set: `done` of `total`.
    Plans { done: f64, total: f64 },
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
    pub(super) fn key(self) -> &'static str {
        match self {
            Tab::Resources => "resources",
            Tab::Graph => "graph",
            Tab::Drift => "drift",
            Tab::Outputs => "outputs",
            Tab::Checks => "checks",
            Tab::Rules => "rules",
        }
    }

    pub(super) fn from_key(key: &str) -> Tab {
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
    pub pending_view: RwSignal<Option<crate::load::fragment::LinkView>>,
    /// The fragment this app last wrote, to tell its own updates from a link pasted into the
    /// address bar.
    pub written_hash: StoredValue<String>,
    /// The Share dialog is open.
    pub sharing: RwSignal<bool>,
    /// The selection's detail is open: on a phone, the full-screen sheet over the list. Selecting
    /// opens it; its Back button closes it and keeps the selection.
    pub detail_open: RwSignal<bool>,
    /// The landing page shows although a plan is open (the logo was clicked); the plan, its tab,
    /// selection and filters stay as they were for the way back.
    pub home: RwSignal<bool>,
    /// The list's entries for the current plan and filter.
    pub entries: Memo<Entries>,
    /// The dependency graph and how it is shown.
    pub graph: GraphState,
    /// Guardrail rules and their evaluation.
    pub rules: RulesState,
    /// The open fleet of tf-controller workspaces, if files of them were opened.
    pub fleet: RwSignal<Option<Arc<crate::fleet::FleetIndex>>>,
    /// The fleet view shows (over the open plan, which stays for the way back).
    pub showing_fleet: RwSignal<bool>,
    /// The open plan compared with the plan last reviewed (*Compare with…*), until another plan
    /// opens.
    pub since: RwSignal<Option<Arc<crate::session::compare::JudgedComparison>>>,
    /// The marks of the addresses that changed since (`JudgedComparison::marks`), derived once
    /// per comparison for the list's rows to look up.
    pub since_marks: Memo<Arc<HashMap<String, crate::session::compare::SinceMark>>>,
    /// The older plan a link carried (`was=`), compared with once the link's plan is open.
    pub pending_since: StoredValue<Option<String>>,
    /// The open roll-up compared with the last review's set, plan by plan (*Compare with the
    /// last plans…*), until another set opens.
    pub set_since: RwSignal<Option<Arc<Vec<crate::session::compare::PlanSince>>>>,
    /// *Only plans that changed since*, in the roll-up.
    pub set_since_only: RwSignal<bool>,
    /// The roll-up's filter and search, kept while a row's plan is open.
    pub fleet_filter: RwSignal<crate::fleet::FleetFilter>,
    /// Where the roll-up was left when a row's plan opened (the row's id, the page's scroll),
    /// so the way back lands there.
    pub fleet_place: StoredValue<Option<(String, f64)>>,
}

impl AppState {
    pub(super) fn new() -> Self {
        let loaded: RwSignal<Option<Arc<Loaded>>, LocalStorage> = RwSignal::new_local(None);
        let filter = RwSignal::new(ListFilter::default());
        let since: RwSignal<Option<Arc<crate::session::compare::JudgedComparison>>> =
            RwSignal::new(None);
        let since_marks = Memo::new(move |_| {
            Arc::new(since.with(|s| s.as_ref().map(|s| s.marks()).unwrap_or_default()))
        });
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
            detail_open: RwSignal::new(false),
            home: RwSignal::new(false),
            entries,
            graph: GraphState::new(loaded),
            rules: RulesState::new(loaded),
            fleet: RwSignal::new(None),
            showing_fleet: RwSignal::new(false),
            since,
            since_marks,
            pending_since: StoredValue::new(None),
            set_since: RwSignal::new(None),
            set_since_only: RwSignal::new(false),
            fleet_filter: RwSignal::new(crate::fleet::FleetFilter::default()),
            fleet_place: StoredValue::new(None),
        }
    }

    /// Rows (indices into `doc.rows`) in list order, as the keyboard walks them.
    pub(super) fn visible_rows(&self) -> Vec<u32> {
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
    pub(super) fn move_cursor(&self, delta: i64) {
        let current = self
            .cursor
            .get_untracked()
            .or(self.selected.get_untracked());
        if let Some(next) = step(&self.visible_rows(), current, delta) {
            self.cursor.set(Some(next));
        }
    }

    /// Selects the next (`delta` > 0) or previous drifted resource, in the Drift tab's order.
    pub(super) fn move_in_drift(&self, delta: i64) {
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
        self.detail_open.set(row.is_some());
    }

    /// True while the selection's detail is open (on a phone, the sheet over the list).
    pub fn showing_detail(&self) -> bool {
        self.detail_open.get() && self.selected.with(Option::is_some)
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
