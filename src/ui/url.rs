//! The address bar: the fragment (`#tab=…&r=ADDRESS&…&p=PLAN`, format in `share::fragment`) and
//! `?url=`. What a reload, a pasted link or a shared link reopens. The fragment is never sent to a
//! server.

use leptos::prelude::*;

use super::{AppState, PlanSource, Tab};
pub use crate::load::fragment::{Fragment, View};

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
pub fn current_view(state: AppState) -> View {
    state.loaded.with(|l| {
        let mut view = View::default();
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
        let frag = state.loaded.with(|l| {
            let l = l.as_ref()?;
            let (sample, plan, name) = match &l.source {
                PlanSource::Sample(s) => (Some(s.clone()), None, None),
                PlanSource::Link(payload) => {
                    (None, Some(payload.to_string()), Some(l.doc.name.clone()))
                }
                PlanSource::Local | PlanSource::Url(_) => (None, None, None),
            };
            let keep_query = matches!(l.source, PlanSource::Url(_));
            Some((
                Fragment {
                    sample,
                    plan,
                    name,
                    view: View::default(),
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
        let location = window().location();
        if location.hash().unwrap_or_default() != hash {
            // `?url=` stays only while its plan is the one open.
            let search = if keep_query {
                location.search().unwrap_or_default()
            } else {
                String::new()
            };
            let url = format!("{}{search}{hash}", location.pathname().unwrap_or_default());
            let _ = window().history().and_then(|h| {
                h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
            });
        }
        state.written_hash.set_value(hash);
    });
}
