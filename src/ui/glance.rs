//! The summary strip and a resource row as the core writes them (`session::glance`), rendered
//! the same by the app (`summary.rs`, `list.rs`) and by the first paint of a share link
//! ([`GlancePage`], mounted by the `planlens-glance` binary, `src/glance.rs`), which shows the
//! glance a link carries before the app, its worker and the plan's parser have arrived.
//!
//! The first paint is inert except for its rows: a row clicked there is remembered on the page
//! (`data-selected` on `#glance`) and selected by the app when it takes over ([`take_over`]), which
//! removes the first paint in the same task as it renders the plan, so no frame shows both.
//! Nothing here reads the plan: display text only.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::session::glance::{Glance, Line, RowLine, Strip};

/// The id of the first paint's root element.
pub const GLANCE_ID: &str = "glance";

/// The summary strip: banners, the sentence with `verdict` beside it, versions, `diagnostics`
/// (a plan log's), the drift note (its totals open the Drift tab through `on_drift`; plain text
/// without it) and the counts.
pub fn strip_view(
    strip: Strip,
    verdict: impl IntoView + 'static,
    diagnostics: impl IntoView + 'static,
    on_drift: Option<Callback<()>>,
) -> impl IntoView {
    let banners = strip
        .banners
        .into_iter()
        .map(|b| {
            view! {
                <div class=format!("banner banner-{}", b.tone.key()) data-testid=banner_testid(&b.kind)>
                    {b.text}
                </div>
            }
        })
        .collect_view();
    let drift = strip.drift.map(|(note, totals)| {
        let totals = match on_drift {
            Some(open) => view! {
                <button class="link-button" data-testid="open-drift" on:click=move |_| open.run(())>
                    {totals}
                </button>
            }
            .into_any(),
            None => view! { <span class="link-button">{totals}</span> }.into_any(),
        };
        view! {
            <p class="drift-note" data-testid="summary-drift-note">{note} " " {totals}</p>
        }
    });
    let chips = strip
        .chips
        .into_iter()
        .map(|c| {
            let class = if c.muted {
                "chip chip-muted".to_string()
            } else {
                format!("chip chip-{}", c.key)
            };
            let count = c.count.map(|n| view! { <b>{n}</b> " " });
            view! {
                <span class=class data-testid=format!("count-{}", c.key) title=c.title>
                    {count}
                    {c.text}
                </span>
            }
        })
        .collect_view();
    let label = if strip.state {
        "State summary"
    } else {
        "Plan summary"
    };
    view! {
        <section class="summary" aria-label=label>
            {banners}
            <div class="summary-main">
                <p class="sentence" data-testid="plan-summary">{strip.sentence}</p>
                {verdict}
                {strip.redacted.then(|| view! {
                    <span
                        class="chip chip-muted"
                        data-testid="redacted-badge"
                        title="Opened from a redacted link: addresses, actions, edges and findings, no attribute values"
                    >
                        "redacted: no values"
                    </span>
                })}
                <span class="versions" data-testid="plan-versions">{strip.versions}</span>
            </div>
            {diagnostics}
            {drift}
            <div class="chips">{chips}</div>
        </section>
    }
}

/// A banner's test id: the kinds the core names, as the tests have always found them.
fn banner_testid(kind: &str) -> String {
    match kind {
        "load-warning" | "load-note" => kind.to_string(),
        other => format!("banner-{other}"),
    }
}

/// The finding mark of a row flagged by a rule (`key`: the worst severity's).
pub fn finding_mark(key: String) -> impl IntoView {
    let class = format!("mark mark-finding sev-{key}");
    view! {
        <span
            class=class
            data-testid="finding-mark"
            title="A guardrail rule flags this resource: see the Rules tab"
        >
            {key}
        </span>
    }
}

/// What a resource row shows, in order: the action's symbol, the address (without the module
/// path of the heading above; the full one is its title), the marks, `finding`, the type and why.
pub fn row_body(row: RowLine, finding: impl IntoView + 'static) -> impl IntoView {
    let (_, symbol, action_label) = row.shown_action;
    let full = crate::model::text::visible(&row.address);
    view! {
        <span class="sym" aria-label=action_label>{symbol}</span>
        // Too long for the row, it loses its start, not the end (`.keep-end`).
        <span class="addr keep-end" title=full>
            <span dir="ltr">{row.shown}</span>
        </span>
        {row
            .marks
            .into_iter()
            .map(|(k, label)| view! { <span class=format!("mark mark-{k}")>{label}</span> })
            .collect_view()}
        {finding}
        <span class="rtype">{row.resource_type}</span>
        <span class="reason">{row.reason}</span>
    }
}

/// A module heading's contents: the module's path and how many rows follow. A long path keeps
/// its end: the last module tells siblings apart.
pub fn module_head_body(label: String, count: usize) -> impl IntoView {
    let title = label.clone();
    view! {
        <span class="module-name keep-end" title=title>
            <span dir="ltr">{label}</span>
        </span>
        <span class="n">{count}</span>
    }
}

/// The first paint of a share link: the glance it carries, inert but for its rows, until the app
/// takes over. `findings` is false when the reader has rules or policies of their own, which may
/// judge the plan otherwise: the verdict and finding marks then wait for the app. `selected`: the
/// address the link selects (`r=`), shown selected as the app will show it.
#[component]
pub fn GlancePage(glance: Glance, findings: bool, selected: Option<String>) -> impl IntoView {
    let verdict = glance.verdict.filter(|_| findings).map(|v| {
        view! {
            <span class=format!("verdict verdict-{}", v.key) data-verdict=v.key title=v.title>
                {v.label}
            </span>
        }
    });
    let lines = glance
        .lines
        .into_iter()
        .map(|line| match line {
            Line::Module { label, count } => view! {
                <div class="row module-head" role="presentation">{module_head_body(label, count)}</div>
            }
            .into_any(),
            Line::Row(row) => {
                let address = row.address.clone();
                let select_by_key = address.clone();
                let finding = row.finding.clone().filter(|_| findings).map(finding_mark);
                let class = format!("row resource a-{}", row.action);
                let destructive = row.destructive;
                let shown_action = row.shown_action.0.clone();
                let data_address = row.address.clone();
                let is_selected = selected.as_deref() == Some(row.address.as_str());
                view! {
                    <div
                        class=class
                        class:destructive=destructive
                        class:selected=is_selected
                        role="option"
                        tabindex="0"
                        aria-selected=if is_selected { "true" } else { "false" }
                        data-testid="glance-row"
                        data-address=data_address
                        data-action=shown_action
                        on:click=move |ev| choose(&ev, &address)
                        on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                            if ev.key() == "Enter" || ev.key() == " " {
                                ev.prevent_default();
                                choose(&ev, &select_by_key);
                            }
                        }
                    >
                        {row_body(*row, finding)}
                    </div>
                }
                .into_any()
            }
        })
        .collect_view();
    let more = (glance.more > 0).then(|| {
        view! {
            <p class="list-count glance-more">
                {crate::model::text::count(glance.more, "more resource", "more resources")}
                " — the whole list opens with the plan"
            </p>
        }
    });
    view! {
        // Its own class names where the app has the same element before a plan is open (its bar),
        // so that nothing on the page is found twice while the app opens the plan behind it.
        <div id=GLANCE_ID class="glance" data-testid="glance" aria-busy="true">
            <header class="topbar">
                <span class="glance-brand"><span class="brand-mark" aria-hidden="true">"◆"</span> " Planlens"</span>
                <span class="glance-doc-name">{glance.name}</span>
                <span class="glance-status" role="status">"Opening the plan…"</span>
            </header>
            {strip_view(glance.strip, verdict, (), None)}
            <div class="glance-list" role="listbox" aria-label="Resources">{lines}</div>
            {more}
        </div>
    }
}

/// Paints the glance the address's share link carries, if it carries one that this reader would
/// see the same once the plan is open: made under the same `environment` label, and, unless its
/// findings are fixed (a redacted link's), without the verdict and finding marks when this browser
/// keeps rules or policies of its own. Anything else paints nothing: the app opens the link as
/// always. Called by the `planlens-glance` binary before the app has arrived.
pub fn paint() {
    let hash = window().location().hash().unwrap_or_default();
    let fragment = crate::load::fragment::Fragment::parse(&hash);
    let (Some(payload), Some(_)) = (fragment.glance.as_deref(), fragment.plan.as_deref()) else {
        return;
    };
    let Ok(glance) = Glance::read(payload) else {
        return;
    };
    let labels = |e: &Option<String>| crate::rules::environment_labels(e.as_deref().unwrap_or(""));
    if labels(&fragment.view.environment) != labels(&glance.environment) {
        return;
    }
    let findings = glance.fixed || !super::rules::judged_locally(fragment.view.rules.is_some());
    let selected = fragment.view.address;
    leptos::mount::mount_to_body(move || view! { <GlancePage glance findings selected /> });
}

/// A row of the first paint chosen: marked selected (the one before it no longer), and its address
/// kept on the first paint's root for the app ([`take_over`]). Plain DOM, no signal: the first
/// paint's module stays small.
fn choose(ev: &web_sys::Event, address: &str) {
    let Some(root) = document().get_element_by_id(GLANCE_ID) else {
        return;
    };
    if let Ok(Some(before)) = root.query_selector(".row.selected") {
        let _ = before.class_list().remove_1("selected");
        let _ = before.set_attribute("aria-selected", "false");
    }
    if let Some(row) = ev
        .current_target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    {
        let _ = row.class_list().add_1("selected");
        let _ = row.set_attribute("aria-selected", "true");
    }
    let _ = root.set_attribute("data-selected", address);
}

/// The app has opened the plan (or failed to): the first paint goes, and the row chosen there
/// (if any) is returned for the app to select. Call it in the same task as the app renders, so
/// that no frame shows both.
pub fn take_over() -> Option<String> {
    let root = document().get_element_by_id(GLANCE_ID)?;
    let selected = root.get_attribute("data-selected");
    root.remove();
    selected
}

/// True while a first paint is on the page.
pub fn showing() -> bool {
    document().get_element_by_id(GLANCE_ID).is_some()
}
