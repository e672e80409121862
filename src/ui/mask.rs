//! Secret names in the page: the user's own patterns (kept in this browser's localStorage) and the
//! rules' `[mask]` table. Plans are opened with [`current`]; when either changes, the open plan is
//! opened again with the new mask (`open::remask`, from `open::follow_mask` and the Rules tab's
//! Secret names section), so every view, link and comment follows the one masking pass in the
//! core.

use leptos::prelude::*;

use super::AppState;
use crate::model::mask::Mask;

const STORAGE_KEY: &str = "planlens:mask";

fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

/// The user's own patterns, one per line in storage.
pub fn stored_patterns() -> Vec<String> {
    storage()
        .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
        .map(|t| split_patterns(&t))
        .unwrap_or_default()
}

/// Patterns from a text field: one per line or separated by commas; blanks dropped.
pub fn split_patterns(text: &str) -> Vec<String> {
    text.split(['\n', ','])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// The mask plans are opened with: the rules' (`[mask]`, or the built-in patterns when the rules
/// have errors or none) plus the user's stored patterns.
pub fn current(state: AppState) -> Mask {
    let parsed = state.rules.parsed.get_untracked();
    let base = match parsed.0.as_ref() {
        Ok(rules) => rules.mask().clone(),
        Err(_) => Mask::default(),
    };
    base.with_patterns(&stored_patterns())
}

/// Keeps the user's patterns (one per line; none removes them). `false` when this browser
/// refused to store them: they then last until the page is closed.
pub fn store_patterns(text: &str) -> bool {
    storage().is_some_and(|s| {
        if text.is_empty() {
            s.remove_item(STORAGE_KEY).is_ok()
        } else {
            s.set_item(STORAGE_KEY, text).is_ok()
        }
    })
}
