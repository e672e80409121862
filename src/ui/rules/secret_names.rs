//! The Secret names section of the Rules tab: what is masked by name, the user's own patterns
//! (edited here, kept by `ui::mask`), and what the open plan had masked. Applying opens the plan
//! again with the new mask.

use leptos::prelude::*;

use crate::model::mask::{DEFAULT_EXEMPT, DEFAULT_PATTERNS};
use crate::model::text::visible;
use crate::ui::AppState;
use crate::ui::mask::{current, split_patterns, store_patterns, stored_patterns};
use crate::ui::open::remask;

/// The Secret names section (in the Rules tab): what is masked, the user's patterns, and what the
/// open plan had masked by name.
#[component]
pub fn MaskSettings() -> impl IntoView {
    let state = expect_context::<AppState>();
    let draft = RwSignal::new(stored_patterns().join("\n"));
    let saved = RwSignal::new(String::new());
    let apply = move || {
        let patterns = split_patterns(&draft.get_untracked());
        let text = patterns.join("\n");
        let kept = store_patterns(&text);
        draft.set(text);
        remask(state, current(state));
        saved.set(match (kept, patterns.len()) {
            (false, _) => "Applied. This browser refused to store the patterns: they last until the page is closed.".to_string(),
            (true, 0) => "Saved: the built-in names only.".to_string(),
            (true, 1) => "Saved: 1 pattern of yours.".to_string(),
            (true, n) => format!("Saved: {n} patterns of yours."),
        });
    };
    let from_rules = move || {
        state.rules.parsed.with(|p| match p.0.as_ref() {
            Ok(rules) => {
                let mask = rules.mask();
                let mut parts = Vec::new();
                if !mask.user_patterns().is_empty() {
                    parts.push(format!(
                        "your rules add {}",
                        mask.user_patterns().join(", ")
                    ));
                }
                if !mask.uses_builtin() {
                    parts.push("your rules turn the built-in names off".to_string());
                }
                (!parts.is_empty()).then(|| format!("[mask] in the rules: {}.", parts.join("; ")))
            }
            Err(_) => None,
        })
    };
    let this_plan = move || {
        state.loaded.with(|l| {
            l.as_ref().and_then(|l| {
                let m = &l.doc.masking;
                if l.doc.values_dropped() {
                    return None;
                }
                let masked = match m.masked_by_name {
                    0 => "no value needed masking by name".to_string(),
                    1 => "1 value is masked by name".to_string(),
                    n => format!("{n} values are masked by name"),
                };
                Some(if m.plan_has_marks {
                    format!("In this plan, {masked} (besides those the plan marks sensitive).")
                } else {
                    format!(
                        "This plan marks no resource value sensitive (Terraform before 0.15 marked only outputs declared sensitive): {masked}, and any secret under another name is shown as it is."
                    )
                })
            })
        })
    };
    view! {
        <section class="mask-settings" data-testid="mask-settings" aria-labelledby="mask-title">
            <h3 id="mask-title">"Secret names"</h3>
            <p class="fine">
                "Values under these attribute names are hidden like values the plan marks sensitive: in the diff, drift, outputs, rule messages, both share links and the Markdown comment. Built in (case-insensitive, "
                <code>"*"</code>
                " matches anything): "
                <code data-testid="mask-builtin">{DEFAULT_PATTERNS.join(" ")}</code>
                ", except names ending in "
                <code>{DEFAULT_EXEMPT.iter().map(|p| p.trim_start_matches('*')).collect::<Vec<_>>().join(" ")}</code>
                ". Only text is hidden: numbers and true/false stay visible."
            </p>
            {move || this_plan().map(|t| view! { <p class="fine" data-testid="mask-this-plan">{t}</p> })}
            {move || from_rules().map(|t| view! { <p class="fine" data-testid="mask-from-rules">{visible(&t)}</p> })}
            <label class="mask-field">
                <span>"Your own patterns (one per line, e.g. " <code>"*_pin"</code> "), kept in this browser"</span>
                <textarea
                    rows="3"
                    spellcheck="false"
                    data-testid="mask-patterns"
                    prop:value=move || draft.get()
                    on:input=move |ev| draft.set(event_target_value(&ev))
                    on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                        if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                            ev.prevent_default();
                            apply();
                        }
                    }
                ></textarea>
            </label>
            <div class="share-row">
                <button class="button" data-testid="mask-apply" on:click=move |_| apply()>
                    "Apply and save"
                </button>
                <span class="fine" role="status" data-testid="mask-status">{move || saved.get()}</span>
            </div>
        </section>
    }
}
