//! The resource list: filter bar and a virtual list that keeps only the visible rows in the DOM,
//! so 50,000 rows scroll as smoothly as 50.
//!
//! The line height is read from the style sheet's `--row-h` (28 px; 40 px on phones and touch
//! screens). The list is one tab stop: a listbox whose keyboard cursor is `aria-activedescendant`.

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::AppState;
use super::state::Entries;
use crate::list::{ActionGroup, ListEntry, ListFilter};
use crate::model::Document;
use crate::model::text::visible;
use crate::session::glance::{RowLine, module_label};

/// Height of one list line in pixels until the style sheet says otherwise (`--row-h` in
/// style/main.css, taller on touch screens and phones, is read by [`row_height`]).
const DEFAULT_ROW_HEIGHT: f64 = 28.0;
/// Rows rendered above and below the visible ones.
const OVERSCAN: usize = 12;

const SEARCH_ID: &str = "resource-search";

/// Puts the keyboard focus in the search box.
pub fn focus_search() {
    if let Some(el) = document()
        .get_element_by_id(SEARCH_ID)
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

/// The list itself: one tab stop, whose keyboard cursor is its active row.
const LIST_ID: &str = "resource-list";

/// Puts the keyboard focus on the list (its cursor row is the active one).
pub fn focus_list() {
    if let Some(el) = document()
        .get_element_by_id(LIST_ID)
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

/// The id of row `r`'s line, for the list's `aria-activedescendant`.
fn row_id(r: u32) -> String {
    format!("resource-row-{r}")
}

/// True when `el` is the list's search box.
pub fn is_search(el: &web_sys::HtmlElement) -> bool {
    el.id() == SEARCH_ID
}

/// When a filter change hides the selected row, the selection is dropped, so the detail never
/// shows a resource the list no longer has (and the URL and share links do not carry it); the
/// keyboard cursor goes too when hidden. A row selected while already hidden (from the graph, the
/// Drift or Rules tab) stays selected: only the change that hides a shown row drops it.
pub fn drop_hidden_selection(state: AppState) {
    Effect::new(move |before: Option<(Option<usize>, Entries)>| {
        let entries = state.entries.get();
        let plan = state
            .loaded
            .with(|l| l.as_ref().map(|l| std::sync::Arc::as_ptr(l) as usize));
        let shows = |e: &Entries, r: u32| e.0.contains(&ListEntry::Resource(r));
        // Only a filter change in the same plan: a newly opened plan chooses its own selection.
        if let Some((_, before)) = before.filter(|(p, _)| *p == plan) {
            if let Some(r) = state.selected.get_untracked()
                && shows(&before, r)
                && !shows(&entries, r)
            {
                state.select(None);
            }
            if let Some(c) = state.cursor.get_untracked()
                && !shows(&entries, c)
            {
                state.cursor.set(None);
            }
        }
        (plan, entries)
    });
}

/// Filter bar and list.
#[component]
pub fn ResourceList() -> impl IntoView {
    view! {
        <section class="list-pane" aria-label="Resources">
            <FilterBar />
            <VirtualList />
        </section>
    }
}

#[component]
fn FilterBar() -> impl IntoView {
    let state = expect_context::<AppState>();
    let counts = Memo::new(move |_| {
        state.loaded.with(|l| {
            l.as_ref()
                .map(|l| state.filter.with(|f| f.group_counts(&l.doc)))
                .unwrap_or_default()
        })
    });
    // On a phone the action chips and the selects fold behind a "Filters" button, so the list
    // keeps the screen; wider screens always show them (the button is hidden there).
    let more_open = RwSignal::new(false);
    let active = move || {
        state.filter.with(|f| {
            f.actions.len()
                + [f.module, f.provider, f.resource_type]
                    .iter()
                    .filter(|x| x.is_some())
                    .count()
                + usize::from(f.show_no_ops)
        })
    };
    view! {
        <div class="filters">
            <div class="search-row">
                <input
                    id=SEARCH_ID
                    type="search"
                    data-testid="search"
                    placeholder="Search addresses  ( / )"
                    aria-label="Search addresses"
                    autocomplete="off"
                    spellcheck="false"
                    prop:value=move || state.filter.with(|f| f.search.clone())
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        state.filter.update(|f| f.search = v);
                    }
                />
                <button
                    class="button button-quiet more-filters"
                    data-testid="more-filters"
                    aria-expanded=move || more_open.get().to_string()
                    aria-controls="filter-more"
                    on:click=move |_| more_open.update(|o| *o = !*o)
                >
                    {move || match active() {
                        0 => "Filters".to_string(),
                        n => format!("Filters ({n})"),
                    }}
                </button>
            </div>
            <div id="filter-more" class="filter-more" class:folded=move || !more_open.get()>
                <div class="action-chips" role="group" aria-label="Filter by action">
                    {move || {
                        // A state has no actions to filter by: its rows are what exists.
                        let state_open = state.loaded.with(|l| l.as_ref().is_some_and(|l| l.doc.source.is_state()));
                        counts
                            .get()
                            .into_iter()
                            .filter(move |_| !state_open)
                            .filter(|(g, n)| *n > 0 || *g == ActionGroup::NoOp)
                            .map(|(group, n)| {
                                let active = move || state.filter.with(|f| f.actions.contains(&group));
                                view! {
                                    <button
                                        class=format!("action-chip a-{}", group.key())
                                        data-testid=format!("filter-{}", group.key())
                                        aria-pressed=move || active().to_string()
                                        on:click=move |_| {
                                            state.filter.update(|f| {
                                                if let Some(i) = f.actions.iter().position(|g| *g == group) {
                                                    f.actions.remove(i);
                                                } else {
                                                    f.actions.push(group);
                                                    crate::sort::natural(&mut f.actions);
                                                }
                                            })
                                        }
                                    >
                                        {group.key()}
                                        " "
                                        <span class="n">{n}</span>
                                    </button>
                                }
                            })
                            .collect_view()
                    }}
                </div>
                <div class="selects">
                    <FilterSelect table=NameTable::Module />
                    <FilterSelect table=NameTable::Provider />
                    <FilterSelect table=NameTable::Type />
                    <label class="toggle" style:display=move || if state.loaded.with(|l| l.as_ref().is_some_and(|l| l.doc.source.is_state())) { "none" } else { "" }>
                        <input
                            type="checkbox"
                            data-testid="show-no-ops"
                            prop:checked=move || state.filter.with(|f| f.show_no_ops)
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                state.filter.update(|f| f.show_no_ops = on);
                            }
                        />
                        " Show unchanged"
                    </label>
                </div>
            </div>
            <p class="list-count" data-testid="list-count">
                {move || {
                    let shown = state.entries.with(|e| e.0.iter().filter(|e| matches!(e, ListEntry::Resource(_))).count());
                    let total = state.loaded.with(|l| l.as_ref().map_or(0, |l| l.analysis.summary.instances));
                    format!("{shown} of {}", crate::model::summary::count(total, "resource instance", "resource instances"))
                }}
            </p>
        </div>
    }
}

/// How many of a filter select's options are made in one task.
const OPTIONS_PER_TASK: usize = 300;

/// The document's name tables the list filters by, each with a select of its own.
#[derive(Clone, Copy)]
enum NameTable {
    Module,
    Provider,
    Type,
}

impl NameTable {
    /// The select's test id, its label, its "all" option, and how the empty name (the root
    /// module) reads, if it can occur.
    fn words(
        self,
    ) -> (
        &'static str,
        &'static str,
        &'static str,
        Option<&'static str>,
    ) {
        match self {
            NameTable::Module => (
                "filter-module",
                "Module",
                "All modules",
                Some("(root module)"),
            ),
            NameTable::Provider => ("filter-provider", "Provider", "All providers", None),
            NameTable::Type => ("filter-type", "Resource type", "All types", None),
        }
    }

    /// The table's names in a document.
    fn names(self) -> fn(&Document) -> &Vec<String> {
        match self {
            NameTable::Module => |doc| &doc.modules,
            NameTable::Provider => |doc| &doc.providers,
            NameTable::Type => |doc| &doc.resource_types,
        }
    }

    /// The filter's choice in this table (an index into [`NameTable::names`]).
    fn field(self) -> fn(&mut ListFilter) -> &mut Option<u32> {
        match self {
            NameTable::Module => |filter| &mut filter.module,
            NameTable::Provider => |filter| &mut filter.provider,
            NameTable::Type => |filter| &mut filter.resource_type,
        }
    }
}

/// A select over one of the document's name tables (modules, providers, types); "" means all.
#[component]
fn FilterSelect(table: NameTable) -> impl IntoView {
    let (testid, label, all, root) = table.words();
    let (names, field) = (table.names(), table.field());
    let state = expect_context::<AppState>();
    // A large plan has thousands of modules: their options are made OPTIONS_PER_TASK at a time,
    // each batch in a task of its own after the plan is on screen, so no task holds the page for
    // long. Using the select (or a filter already chosen) makes them all at once.
    let batches = RwSignal::new(0usize);
    let count = move || {
        state
            .loaded
            .with(|l| l.as_ref().map_or(0, |l| names(&l.doc).len()))
    };
    let everything = move || batches.set(count().div_ceil(OPTIONS_PER_TASK));
    Effect::new(move |_| {
        state.loaded.track();
        batches.set(0);
        leptos::task::spawn_local(async move {
            loop {
                crate::ui::timing::next_task().await;
                let Some(done) = batches.try_get_untracked() else {
                    return;
                };
                if done * OPTIONS_PER_TASK >= count() {
                    return;
                }
                batches.set(done + 1);
            }
        });
    });
    Effect::new(move |_| {
        if state.filter.with(|f| field(&mut f.clone()).is_some()) {
            everything();
        }
    });
    let options = move || {
        (0..count().div_ceil(OPTIONS_PER_TASK))
            .map(|batch| {
                let shown = Memo::new(move |_| batches.get() > batch);
                move || {
                    shown.get().then(|| {
                        state.loaded.with_untracked(|l| {
                            l.as_ref().map(|l| {
                                let names = names(&l.doc);
                                let start = batch * OPTIONS_PER_TASK;
                                let end = (start + OPTIONS_PER_TASK).min(names.len());
                                (start..end)
                                    .map(|i| {
                                        let name = &names[i];
                                        let text = match (name.is_empty(), root) {
                                            (true, Some(root)) => root.to_string(),
                                            _ => visible(name),
                                        };
                                        view! { <option value=i.to_string()>{text}</option> }
                                    })
                                    .collect_view()
                            })
                        })
                    })
                }
            })
            .collect_view()
    };
    view! {
        <select
            data-testid=testid
            aria-label=label
            on:focus=move |_| everything()
            on:pointerdown=move |_| everything()
            on:change=move |ev| {
                let choice = event_target_value(&ev).parse::<u32>().ok();
                state.filter.update(|f| *field(f) = choice);
            }
            prop:value=move || {
                state.filter.with(|f| field(&mut f.clone()).map(|i| i.to_string()).unwrap_or_default())
            }
        >
            <option value="">{all}</option>
            {options}
        </select>
    }
}

/// True when the selection's detail is a sheet over the list (a phone): its Back button shows.
fn detail_covers_list() -> bool {
    document()
        .query_selector("[data-testid=sheet-back]")
        .ok()
        .flatten()
        .and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok())
        .is_some_and(|b| b.offset_width() > 0)
}

/// The height of one list line as the style sheet sets it (`--row-h` on the list), in pixels.
fn row_height(el: &web_sys::Element) -> f64 {
    window()
        .get_computed_style(el)
        .ok()
        .flatten()
        .and_then(|style| style.get_property_value("--row-h").ok())
        .and_then(|v| v.trim().trim_end_matches("px").parse::<f64>().ok())
        .filter(|h| *h >= 1.0)
        .unwrap_or(DEFAULT_ROW_HEIGHT)
}

#[component]
fn VirtualList() -> impl IntoView {
    let state = expect_context::<AppState>();
    let viewport = NodeRef::<html::Div>::new();
    let scroll_top = RwSignal::new(0.0f64);
    let height = RwSignal::new(600.0f64);
    let row_h = RwSignal::new(DEFAULT_ROW_HEIGHT);

    let measure = move || {
        if let Some(el) = viewport.get_untracked() {
            height.set(el.client_height().max(1) as f64);
            let h = row_height(&el);
            if h != row_h.get_untracked() {
                row_h.set(h);
            }
        }
    };
    // Measured when the browser has laid the list out (a ResizeObserver calls back after layout):
    // reading the height as soon as the list is in the page would make the browser lay out the
    // whole new page inside the task that rendered it (about 45 ms for 50,000 resources).
    // The observer also follows the window and the page around the list.
    let on_resize = wasm_bindgen::closure::Closure::<dyn Fn()>::new(measure);
    if let Ok(observer) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()) {
        let watched = StoredValue::new_local((observer, on_resize));
        Effect::new(move |_| {
            if let Some(el) = viewport.get() {
                watched.with_value(|(observer, _)| observer.observe(&el));
            }
        });
        on_cleanup(move || watched.with_value(|(observer, _)| observer.disconnect()));
    }

    // A new filter result starts at the top. (Not when the list first appears: it is at the top,
    // and setting the scroll position would make the browser lay the page out at once.)
    Effect::new(move |first: Option<()>| {
        state.entries.track();
        if first.is_some() {
            if let Some(el) = viewport.get_untracked() {
                el.set_scroll_top(0);
            }
            scroll_top.set(0.0);
        }
    });

    // Keep the keyboard cursor in view.
    Effect::new(move |_| {
        let Some(row) = state.cursor.get() else {
            return;
        };
        let Some(at) = state
            .entries
            .with_untracked(|e| e.0.iter().position(|x| *x == ListEntry::Resource(row)))
        else {
            return;
        };
        let Some(el) = viewport.get_untracked() else {
            return;
        };
        let row_h = row_h.get_untracked();
        let top = at as f64 * row_h;
        let view_top = el.scroll_top() as f64;
        let view_h = el.client_height() as f64;
        if top < view_top {
            el.set_scroll_top(top as i32);
        } else if top + row_h > view_top + view_h {
            el.set_scroll_top((top + row_h - view_h) as i32);
        }
    });

    let window_rows = move || {
        let (top, h, row_h) = (scroll_top.get(), height.get(), row_h.get());
        // Which plan the rows are of: row i of another plan is another row, so a line is never
        // kept with the previous plan's address (the list is no longer built anew per plan).
        let plan = state
            .loaded
            .with(|l| l.as_ref().map_or(0, |l| Arc::as_ptr(l) as usize));
        state.entries.with(|e| {
            let n = e.0.len();
            let first = ((top / row_h) as usize).saturating_sub(OVERSCAN).min(n);
            let last = (first + (h / row_h) as usize + 2 * OVERSCAN + 1).min(n);
            (first..last)
                .map(|i| (i, e.0[i], row_h, plan))
                .collect::<Vec<_>>()
        })
    };

    // The rows of one page, for PageUp/PageDown.
    let page = move || ((height.get_untracked() / row_h.get_untracked()) as i64 - 1).max(1);
    // The list's own keys; j/k, arrows and Enter are the page's (`install_keyboard`), which
    // PageUp/PageDown are too while a detail is shown: then they scroll it.
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        // On a phone the detail is a sheet over the list: the keys are the detail's.
        if state.showing_detail() && detail_covers_list() {
            return;
        }
        let rows = state.visible_rows();
        let (Some(first), Some(last)) = (rows.first().copied(), rows.last().copied()) else {
            return;
        };
        match ev.key().as_str() {
            "Home" => state.cursor.set(Some(first)),
            "End" => state.cursor.set(Some(last)),
            "PageDown" if !state.showing_detail() => state.move_cursor(page()),
            "PageUp" if !state.showing_detail() => state.move_cursor(-page()),
            // Space opens the row under the cursor, as Enter does.
            " " => match state.cursor.get_untracked() {
                Some(c) => state.select(Some(c)),
                None => return,
            },
            _ => return,
        }
        ev.prevent_default();
        ev.stop_propagation();
    };
    // Reached by Tab with no cursor yet: the selected row, else the first, becomes the active one.
    let on_focus = move |_| {
        // Only a keyboard focus places the cursor: a click focuses the list on mousedown, and
        // moving the cursor (which scrolls to it) would move the row under the pointer before
        // the click lands.
        let by_keyboard = viewport
            .get_untracked()
            .is_some_and(|el| el.matches(":focus-visible").unwrap_or(true));
        if !by_keyboard || state.cursor.get_untracked().is_some() {
            return;
        }
        let rows = state.visible_rows();
        let selected = state.selected.get_untracked().filter(|s| rows.contains(s));
        if let Some(r) = selected.or_else(|| rows.first().copied()) {
            state.cursor.set(Some(r));
        }
    };
    view! {
        <div
            class="list-viewport"
            node_ref=viewport
            id=LIST_ID
            data-testid="resource-list"
            tabindex="0"
            role="listbox"
            aria-label="Resources: j / k or ↑ / ↓ move, Enter opens"
            aria-activedescendant=move || state.cursor.get().map(row_id)
            on:keydown=on_key
            on:focus=on_focus
            on:scroll=move |_| {
                if let Some(el) = viewport.get_untracked() {
                    scroll_top.set(el.scroll_top() as f64);
                }
            }
        >
            <div
                class="list-spacer"
                style:height=move || format!("{}px", state.entries.with(|e| e.0.len()) as f64 * row_h.get())
            >
                <For each=window_rows key=|(i, e, h, plan)| (*i, *e, h.to_bits(), *plan) let:item>
                    <ListLine index=item.0 entry=item.1 row_h=item.2 />
                </For>
            </div>
            {move || {
                state.entries.with(|e| e.0.is_empty()).then(|| view! {
                    <p class="empty" data-testid="list-empty">
                        {move || if let Some(tool) = state.loaded.with(|l| l.as_ref().and_then(|l| {
                            (l.doc.rows.is_empty() && l.analysis.planning.failed())
                                .then(|| crate::model::summary::Tool::of(&l.doc).name())
                        })) {
                            // Not "no changes": Terraform stopped before it planned any.
                            format!("Planning failed before {tool} planned any change: there is nothing to list.")
                        } else if state.loaded.with(|l| l.as_ref().is_some_and(|l| l.doc.rows.is_empty() && l.doc.source.is_state())) {
                            "This state holds no resources.".to_string()
                        } else if state.filter.with(|f| *f == Default::default())
                            && state.loaded.with(|l| l.as_ref().is_some_and(|l| l.analysis.planning.is_incomplete()))
                        {
                            // Not "no changes": the input is not the whole plan (the banner says why).
                            "No resource change was read, but this is not the whole plan (see why above): \
                             it may have changes that are not shown here."
                                .to_string()
                        } else if state.filter.with(|f| *f == Default::default()) {
                            "No resource changes in this plan. Tick “Show unchanged” to list no-ops.".to_string()
                        } else {
                            "Nothing matches these filters.".to_string()
                        }}
                    </p>
                })
            }}
        </div>
    }
}

#[component]
fn ListLine(index: usize, entry: ListEntry, row_h: f64) -> impl IntoView {
    let state = expect_context::<AppState>();
    let top = format!("{}px", index as f64 * row_h);
    let Some(loaded) = state.loaded.get_untracked() else {
        return ().into_any();
    };
    match entry {
        ListEntry::Module { module, count } => {
            let label = module_label(&loaded.doc, module);
            view! {
                <div class="row module-head" style:top=top data-testid="module-heading" role="presentation">
                    {super::glance::module_head_body(label, count as usize)}
                </div>
            }
            .into_any()
        }
        ListEntry::Resource(r) => {
            // What the row says is the core's (`session::glance::RowLine`, which a share link's
            // first paint shows too); the finding mark follows the rules as they change.
            let line = RowLine::of(&loaded.doc, &loaded.analysis, r as usize, None);
            let address = line.address.clone();
            let address_for_mark = line.address.clone();
            let action_key = line.shown_action.0.clone();
            let class = format!("row resource a-{}", line.action);
            let destructive = line.destructive;
            let finding = move || {
                state
                    .rules
                    .worst(r as usize)
                    .filter(|s| *s != crate::rules::RuleSeverity::Info)
                    .map(|s| super::glance::finding_mark(s.key().to_string()))
            };
            view! {
                <div
                    class=class
                    class:destructive=destructive
                    class:selected=move || state.selected.get() == Some(r)
                    class:cursor=move || state.cursor.get() == Some(r)
                    style:top=top
                    id=row_id(r)
                    role="option"
                    aria-selected=move || (state.selected.get() == Some(r)).to_string()
                    data-testid="resource-row"
                    data-address=address
                    data-action=action_key
                    on:click=move |_| state.select(Some(r))
                >
                    {super::glance::row_body(line, finding)}
                    {super::since::row_mark(state, address_for_mark)}
                </div>
            }
            .into_any()
        }
    }
}
