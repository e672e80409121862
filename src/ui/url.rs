//! The address bar: the fragment (`#tab=…&r=ADDRESS&…&p=PLAN`, format in `share::fragment`) and
//! `?url=`. What a reload, a pasted link or a shared link reopens. The fragment is never sent to a
//! server.
//!
//! It keeps the fragment in step with the tab, selection, filters, label and a link's rules, and
//! follows pasted links. The landing page over an open plan is its own history entry (`Home`), so
//! Back and Forward go between them.

use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsValue;

use super::{AppState, PlanSource, Tab};
pub use crate::load::fragment::{Fragment, LinkView};

/// The current `location.hash`.
pub fn current_hash() -> String {
    window().location().hash().unwrap_or_default()
}

/// `?url=` of the current address, if any.
pub fn url_parameter() -> Option<String> {
    let search = window().location().search().ok()?;
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    params.get("url").filter(|u| !u.trim().is_empty())
}

/// The site's own address (no query, no fragment): the base of share links.
pub fn site_base() -> String {
    let location = window().location();
    format!(
        "{}{}",
        location.origin().unwrap_or_default(),
        location.pathname().unwrap_or_default()
    )
}

/// The view as the app shows it now (tab, selection, filters, environment label, link rules).
pub fn current_view(state: AppState) -> LinkView {
    state.loaded.with(|l| {
        let mut view = LinkView::default();
        let Some(l) = l.as_ref() else { return view };
        view.address = state
            .selected
            .get()
            .and_then(|i| l.doc.rows.get(i as usize))
            .map(|row| l.doc.change(row).address.to_string());
        let tab = state.tab.get();
        view.tab = (tab != Tab::Resources).then(|| tab.key().to_string());
        state.filter.with(|f| f.write_view(&l.doc, &mut view));
        view.environment = Some(state.rules.environment.get()).filter(|e| !e.trim().is_empty());
        view.rules = state
            .rules
            .from_link
            .with(|l| l.as_ref().map(|l| l.payload.clone()));
        view
    })
}

/// Keeps the address bar in step with the open plan, the tab, the selection and the filters
/// (replacing the history entry, so moving through the list does not fill the back button).
pub fn sync_fragment(state: AppState) {
    Effect::new(move |_| {
        // The landing page's entry keeps its own address (see `Home`).
        if state.home.get() {
            return;
        }
        // The roll-up of a set a link carried: the fragment is that set again.
        if state.showing_fleet.get()
            && let Some(set) = super::open::set_link_payload()
        {
            let hash = crate::share::fragment::hash(&Fragment {
                set: Some(set.to_string()),
                ..Default::default()
            });
            write_hash(&hash, false);
            state.written_hash.set_value(hash);
            return;
        }
        let frag = state.loaded.with(|l| {
            let l = l.as_ref()?;
            let (sample, plan, name) = match &l.source {
                PlanSource::Sample(s) => (Some(s.clone()), None, None),
                PlanSource::Link(payload) => {
                    (None, Some(payload.to_string()), Some(l.doc.name.clone()))
                }
                PlanSource::Local | PlanSource::Url(_) | PlanSource::Member(..) => {
                    (None, None, None)
                }
            };
            let member = match &l.source {
                PlanSource::Member(set, i) => Some((set.to_string(), *i)),
                _ => None,
            };
            let keep_query = matches!(l.source, PlanSource::Url(_));
            Some((
                Fragment {
                    sample,
                    plan,
                    name,
                    glance: None,
                    view: LinkView::default(),
                    set: member.as_ref().map(|(set, _)| set.clone()),
                    member: member.map(|(_, i)| i),
                    ..Default::default()
                },
                keep_query,
            ))
        });
        // Before a plan is open, keep what the URL asked for (a reopened file will use it).
        let Some((mut frag, keep_query)) = frag else {
            return;
        };
        frag.view = current_view(state);
        let hash = crate::share::fragment::hash(&frag);
        write_hash(&hash, keep_query);
        state.written_hash.set_value(hash);
    });
}

/// Replaces the address bar's fragment with `hash` (and its query with none, unless
/// `keep_query`), in the same history entry.
fn write_hash(hash: &str, keep_query: bool) {
    let location = window().location();
    if location.hash().unwrap_or_default() != hash {
        // `?url=` stays only while its plan is the one open.
        let search = if keep_query {
            location.search().unwrap_or_default()
        } else {
            String::new()
        };
        let url = format!("{}{search}{hash}", location.pathname().unwrap_or_default());
        let _ = window()
            .history()
            .and_then(|h| h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url)));
    }
}

/// The history state of the entry the logo pushes: the landing page over an open plan.
const LANDING: &str = "planlens:landing";

/// True when the current history entry is a landing page the logo pushed.
pub(super) fn on_landing_entry() -> bool {
    window()
        .history()
        .and_then(|h| h.state())
        .ok()
        .and_then(|s| s.as_string())
        .is_some_and(|s| s == LANDING)
}

/// The landing page shown over an open plan, in step with the browser's history: the logo pushes
/// an entry at the site's own address (no query, no fragment), so Back returns to the plan's entry
/// and Forward to the landing page again, and neither opens the plan a second time.
#[derive(Clone, Copy)]
pub struct Home {
    state: AppState,
    /// The fragment of the plan's entry when the landing page was shown: coming back to exactly
    /// it shows the plan as it was left (tab, selection, filters), without reopening it.
    left_at: StoredValue<Option<String>>,
}

impl Home {
    /// The logo was clicked: shows the landing page (samples, paste, file picker) and keeps the
    /// plan open behind it. Nothing to do when no plan is open or the landing page already shows.
    pub fn show(self) {
        let state = self.state;
        if state.home.get_untracked() || state.loaded.with_untracked(Option::is_none) {
            return;
        }
        self.left_at.set_value(Some(current_hash()));
        let path = window().location().pathname().unwrap_or_default();
        let _ = window()
            .history()
            .and_then(|h| h.push_state_with_url(&JsValue::from_str(LANDING), "", Some(&path)));
        // A pushed entry fires no hashchange; this keeps a later one from reading as a pasted link.
        state.written_hash.set_value(current_hash());
        state.home.set(true);
    }
}

/// "Back to the plan" on the landing page: the browser's Back when the logo pushed this entry (so
/// Back and Forward keep meaning the same), else simply the plan again.
pub fn back_to_plan(state: AppState) {
    if on_landing_entry() && window().history().and_then(|h| h.back()).is_ok() {
        return;
    }
    state.home.set(false);
}

/// Follows Back and Forward between an open plan and the landing page, and leaves the landing
/// page when another plan opens. (Across a reload `open::restore_from_url` keeps the landing page
/// and reopens the plan this tab kept behind it.)
pub fn follow_history(state: AppState) -> Home {
    let home = Home {
        state,
        left_at: StoredValue::new(None),
    };
    // A popstate comes before the hashchange `open::follow_pasted_links` watches: recording the
    // fragment as this app's own here tells it there is nothing to open.
    let handle = window_event_listener(leptos::ev::popstate, move |_| {
        let here = current_hash();
        if on_landing_entry() {
            if state.loaded.with_untracked(Option::is_some) {
                home.left_at.set_value(Some(state.written_hash.get_value()));
                state.written_hash.set_value(here);
                state.home.set(true);
            }
        } else if state.home.get_untracked() {
            let left_here = home.left_at.get_value().as_deref() == Some(here.as_str());
            if left_here || here == state.written_hash.get_value() {
                state.written_hash.set_value(here);
                state.home.set(false);
            }
            // Otherwise the entry names another view (the plan's entry from before a reload of
            // the landing page, say): the hashchange that follows opens it
            // (`open::follow_pasted_links`), and the landing page gives way once it is open.
        }
    });
    on_cleanup(move || handle.remove());
    // Another plan opened (from the landing page or by a pasted link) is shown at once. (The
    // first plan of a reloaded landing page opens behind it: `open::restore_from_url`.)
    Effect::new(move |before: Option<Option<usize>>| {
        let now = state
            .loaded
            .with(|l| l.as_ref().map(|l| Arc::as_ptr(l) as usize));
        if before.is_some_and(|b| b.is_some() && b != now) {
            state.home.set(false);
        }
        now
    });
    home
}
