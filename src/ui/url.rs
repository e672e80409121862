//! The URL fragment (`#sample=…&tab=…&r=ADDRESS`): what a reload or a pasted link reopens.
//! The fragment is never sent to a server.

use leptos::prelude::*;

use super::{AppState, PlanSource, Tab};

/// The view state carried in the fragment.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Fragment {
    /// A shipped sample to open.
    pub sample: Option<String>,
    /// The selected resource's address.
    pub address: Option<String>,
    /// The tab, when not the resource list.
    pub tab: Option<String>,
}

fn decode(s: &str) -> Option<String> {
    js_sys::decode_uri_component(s).ok().map(String::from)
}

fn encode(s: &str) -> String {
    String::from(js_sys::encode_uri_component(s))
}

impl Fragment {
    /// Reads `location.hash`.
    pub fn current() -> Fragment {
        let hash = window().location().hash().unwrap_or_default();
        let mut frag = Fragment::default();
        for pair in hash.trim_start_matches('#').split('&') {
            let Some((k, v)) = pair.split_once('=') else {
                continue;
            };
            let Some(v) = decode(v) else { continue };
            match k {
                "sample" => frag.sample = Some(v),
                "r" => frag.address = Some(v),
                "tab" => frag.tab = Some(v),
                _ => {}
            }
        }
        frag
    }

    fn to_hash(&self) -> String {
        let mut parts = Vec::new();
        if let Some(s) = &self.sample {
            parts.push(format!("sample={}", encode(s)));
        }
        if let Some(t) = &self.tab {
            parts.push(format!("tab={}", encode(t)));
        }
        if let Some(a) = &self.address {
            parts.push(format!("r={}", encode(a)));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("#{}", parts.join("&"))
        }
    }
}

/// Keeps the fragment in step with the open plan, the tab and the selection (replacing the
/// history entry, so moving through the list does not fill the back button).
pub fn sync_fragment(state: AppState) {
    Effect::new(move |_| {
        let frag = state.loaded.with(|l| {
            let l = l.as_ref()?;
            let sample = match &l.source {
                PlanSource::Sample(s) => Some(s.clone()),
                PlanSource::Local => None,
            };
            let address = state
                .selected
                .get()
                .and_then(|i| l.doc.rows.get(i as usize))
                .map(|row| l.doc.change(row).address.to_string());
            let tab = state.tab.get();
            let tab = (tab != Tab::Resources).then(|| tab.key().to_string());
            Some(Fragment {
                sample,
                address,
                tab,
            })
        });
        // Before a plan is open, keep what the URL asked for (a reopened file will use it).
        let Some(frag) = frag else { return };
        let hash = frag.to_hash();
        let location = window().location();
        if location.hash().unwrap_or_default() != hash {
            let url = format!(
                "{}{}{}",
                location.pathname().unwrap_or_default(),
                location.search().unwrap_or_default(),
                hash
            );
            let _ = window().history().and_then(|h| {
                h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
            });
        }
    });
}
