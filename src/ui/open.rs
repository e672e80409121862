//! Opening plans in the browser: files (with progress), samples, pasted text and reloads; timing
//! marks for benchmarks (`performance.measure("planlens:open")`).

use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::{AppState, Loaded, PlanSource, Status, Tab, url};
use crate::checks::check_rows;
use crate::load::{
    LoadError, MAX_FILE_BYTES, error::megabytes, load_plan_text_with, load_plan_with,
};
use crate::model::text::visible;
use crate::outputs::output_rows;

/// What the file pickers offer: plans, plan logs, driftctl reports, CI logs saved as text and
/// gzip-compressed copies of any of them (`load::decode` reads them all). Drops are not filtered.
pub const PLAN_FILE_TYPES: &str =
    ".json,.jsonl,.log,.txt,.gz,application/json,text/plain,application/gzip";

/// Files are read in slices this large so the progress bar moves and the tab stays responsive.
const READ_CHUNK: usize = 32 * 1024 * 1024;
/// Files above this size get a painted "Parsing…" state before the (blocking) parse starts.
const SHOW_PARSING_ABOVE: usize = 8 * 1024 * 1024;
/// Plans up to this many bytes are kept in sessionStorage so a reload of the tab reopens them.
const KEEP_FOR_RELOAD_BELOW: usize = 4 * 1024 * 1024;

const START_MARK: &str = "planlens:open-start";
const MEASURE: &str = "planlens:open";

/// The samples shipped in `samples/` (file stem, title, what it shows).
pub const SAMPLES: &[(&str, &str, &str)] = &[
    (
        "web-app-replace",
        "AWS web app",
        "Replaces (AMI change, tainted), a destroy, a move, an import, sensitive DB password.",
    ),
    (
        "drift-refresh",
        "AKS with drift",
        "Changes made outside Terraform: tags-only and a node pool scaled down by hand.",
    ),
    (
        "driftctl-scan",
        "driftctl scan",
        "A driftctl report: an SSH port opened by hand, tags changed, a deleted role, unmanaged resources.",
    ),
    (
        "modules-for-each",
        "Modules with for_each",
        "Module instances by key, nested modules, a failing check and sensitive outputs.",
    ),
];

fn performance() -> Option<web_sys::Performance> {
    window().performance()
}

fn mark_start() {
    if let Some(p) = performance() {
        p.clear_marks_with_mark_name(START_MARK);
        p.clear_measures_with_measure_name(MEASURE);
        let _ = p.mark(START_MARK);
    }
}

/// Records `planlens:open` after the browser has rendered the opened plan.
fn measure_after_paint() {
    request_animation_frame(move || {
        set_timeout(
            move || {
                if let Some(p) = performance() {
                    let _ = p.measure_with_start_mark(MEASURE, START_MARK);
                }
            },
            std::time::Duration::ZERO,
        );
    });
}

/// Resolves after the browser has had a chance to paint.
pub(super) async fn next_paint() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        request_animation_frame(move || {
            set_timeout(
                move || drop(resolve.call0(&JsValue::NULL)),
                std::time::Duration::ZERO,
            );
        });
    });
    let _ = JsFuture::from(promise).await;
}

/// For a large input, paints "Parsing…" before the (blocking) parse starts.
async fn show_parsing(state: AppState, name: &str, bytes: usize) {
    if bytes > SHOW_PARSING_ABOVE {
        state.status.set(Status::Parsing {
            name: name.to_string(),
            bytes: bytes as f64,
        });
        next_paint().await;
    }
}

/// Opens a file chosen in the file input or dropped on the page.
pub fn open_file(state: AppState, file: web_sys::File) {
    mark_start();
    leptos::task::spawn_local(async move {
        let name = file.name();
        let size = file.size() as usize;
        if size > MAX_FILE_BYTES {
            fail(
                state,
                LoadError::TooLarge {
                    bytes: size,
                    limit: MAX_FILE_BYTES,
                }
                .to_string(),
            );
            return;
        }
        let bytes = match read_file(state, &file, &name, size).await {
            Ok(bytes) => bytes,
            Err(message) => return fail(state, message),
        };
        show_parsing(state, &name, size).await;
        let result = load_plan_with(bytes, &name, &super::mask::current(state));
        finish(state, result, PlanSource::Local);
    });
}

async fn read_file(
    state: AppState,
    file: &web_sys::File,
    name: &str,
    size: usize,
) -> Result<Vec<u8>, String> {
    let cannot = |e: JsValue| format!("Cannot read {name}: {}", js_message(&e));
    let mut bytes = Vec::with_capacity(size);
    let mut offset = 0;
    state.status.set(Status::Reading {
        name: name.to_string(),
        done: 0.0,
        total: size as f64,
    });
    while offset < size {
        let end = (offset + READ_CHUNK).min(size);
        let blob = file
            .slice_with_f64_and_f64(offset as f64, end as f64)
            .map_err(cannot)?;
        let buffer = JsFuture::from(blob.array_buffer()).await.map_err(cannot)?;
        let chunk = js_sys::Uint8Array::new(&buffer);
        let at = bytes.len();
        bytes.resize(at + chunk.length() as usize, 0);
        chunk.copy_to(&mut bytes[at..]);
        offset = end;
        state.status.set(Status::Reading {
            name: name.to_string(),
            done: offset as f64,
            total: size as f64,
        });
    }
    Ok(bytes)
}

fn js_message(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".to_string())
}

/// Opens pasted text.
pub fn open_text(state: AppState, text: String) {
    mark_start();
    let result = load_plan_text_with(text, "pasted plan", &super::mask::current(state));
    finish(state, result, PlanSource::Local);
}

/// Opens one of the shipped samples (fetched from this site, like any of its files).
pub fn open_sample(state: AppState, stem: String) {
    mark_start();
    leptos::task::spawn_local(async move {
        let name = format!("{stem}.json");
        state.status.set(Status::Reading {
            name: name.clone(),
            done: 0.0,
            total: 0.0,
        });
        match fetch_text(&format!("samples/{name}")).await {
            Ok(text) => finish(
                state,
                load_plan_text_with(text, &name, &super::mask::current(state)),
                PlanSource::Sample(stem),
            ),
            Err(e) => fail(state, format!("Cannot load the sample {name}: {e}")),
        }
    });
}

async fn fetch_text(path: &str) -> Result<String, String> {
    let response = JsFuture::from(window().fetch_with_str(path))
        .await
        .map_err(|e| js_message(&e))?;
    let response: web_sys::Response = response.unchecked_into();
    if !response.ok() {
        return Err(format!("HTTP {}", response.status()));
    }
    let text = JsFuture::from(response.text().map_err(|e| js_message(&e))?)
        .await
        .map_err(|e| js_message(&e))?;
    text.as_string().ok_or_else(|| "not text".to_string())
}

fn fail(state: AppState, message: String) {
    state.status.set(Status::Idle);
    state.error.set(Some(message));
}

/// Everything the views derive from a document once, when it is opened.
fn analyse(doc: crate::model::Document, source: PlanSource) -> Loaded {
    super::timing::mark("planlens:drift-start");
    let analysis = crate::analysis::Analysis::of(&doc);
    super::timing::measure("planlens:drift", "planlens:drift-start");
    Loaded {
        analysis,
        outputs: output_rows(&doc),
        checks: check_rows(&doc),
        doc,
        source,
    }
}

/// Opens the plan again whenever the rules' `[mask]` changes what is masked.
pub fn follow_mask(state: AppState) {
    Effect::new(move |_| {
        state.rules.parsed.track();
        let mask = super::mask::current(state);
        remask(state, mask);
    });
}

/// Opens the open plan again with another secret-name mask (the user changed their patterns, or
/// their rules' `[mask]`), keeping its tab, selection and filters: the rows are the same.
pub fn remask(state: AppState, mask: crate::model::mask::Mask) {
    let Some(loaded) = state.loaded.get_untracked() else {
        return;
    };
    let doc = &loaded.doc;
    if doc.redacted.is_some() || doc.masking.mask == mask {
        return;
    }
    match load_plan_text_with(doc.source_text().to_string(), &doc.name, &mask) {
        Ok(mut new) => {
            // What decoding the file did is still true of it.
            if new.notes.is_empty() {
                new.notes = doc.notes.clone();
            }
            let selected = state.selected.get_untracked();
            let detail_open = state.detail_open.get_untracked();
            state
                .loaded
                .set(Some(Arc::new(analyse(new, loaded.source.clone()))));
            // The same view: the selection, and its detail (a phone's sheet) open or closed.
            state.select(selected);
            state.detail_open.set(detail_open);
        }
        Err(e) => fail(state, e.to_string()),
    }
}

/// Installs a loaded plan (or shows why it could not be loaded; the previous plan stays open).
fn finish(state: AppState, result: Result<crate::model::Document, LoadError>, source: PlanSource) {
    state.status.set(Status::Idle);
    let doc = match result {
        Ok(doc) => doc,
        Err(e) => return fail(state, e.to_string()),
    };
    if source == PlanSource::Local {
        keep_for_reload(&doc);
    } else {
        forget_kept();
    }
    // Rules that came with a link belong to that link's plan.
    if !matches!(source, PlanSource::Link(_)) {
        state.rules.forget_link_rules();
    }
    // Drift reports and refresh-only plans are about drift: open them there.
    let drift_first = matches!(doc.source, crate::model::Source::Driftctl(_))
        || crate::drift::is_refresh_only(&doc);
    let loaded = analyse(doc, source);
    // A view from the address bar applies to the first plan opened after it (a local file
    // reopened after a reload too), and only then.
    let pending = state.pending_view.get_untracked();
    let selected = pending
        .as_ref()
        .and_then(|v| v.address.as_deref())
        .and_then(|a| loaded.doc.find_row(a))
        .map(|i| i as u32);
    if selected.is_some() || !matches!(loaded.source, PlanSource::Local) {
        state.pending_view.set(None);
    }
    state.error.set(None);
    state.filter.set(
        pending
            .as_ref()
            .map(|v| crate::list::ListFilter::from_view(v, &loaded.doc))
            .unwrap_or_default(),
    );
    state.graph.reset();
    // A label belongs to the plan it was set for.
    state.rules.environment.set(
        pending
            .as_ref()
            .and_then(|v| v.environment.clone())
            .unwrap_or_default(),
    );
    state.loaded.set(Some(Arc::new(loaded)));
    state.select(selected);
    if let Some(tab) = pending.as_ref().and_then(|v| v.tab.as_deref()) {
        state.tab.set(Tab::from_key(tab));
    } else if selected.is_none() && pending.is_none() {
        // The graph stays when it is showing; otherwise a plan opens on its resources, and drift
        // reports and refresh-only plans on their drift.
        match state.tab.get_untracked() {
            Tab::Graph => {}
            _ if drift_first => state.tab.set(Tab::Drift),
            _ => state.tab.set(Tab::Resources),
        }
    }
    measure_after_paint();
}

fn session_storage() -> Option<web_sys::Storage> {
    window().session_storage().ok().flatten()
}

/// Keeps a small local plan in this tab's sessionStorage (never sent anywhere; gone when the tab
/// closes) so that a reload shows the same plan and selection.
fn keep_for_reload(doc: &crate::model::Document) {
    let Some(storage) = session_storage() else {
        return;
    };
    if doc.source_text().len() <= KEEP_FOR_RELOAD_BELOW
        && storage.set_item("planlens:plan", doc.source_text()).is_ok()
        && storage.set_item("planlens:name", &doc.name).is_ok()
    {
        return;
    }
    forget_kept();
}

fn forget_kept() {
    if let Some(storage) = session_storage() {
        let _ = storage.remove_item("planlens:plan");
        let _ = storage.remove_item("planlens:name");
    }
}

/// On start: opens what the address names — a plan carried in the link, `?url=`, a sample — or
/// the plan this tab had open.
pub fn restore_from_url(state: AppState) {
    let hash = url::current_hash();
    let frag = url::Fragment::parse(&hash);
    state.written_hash.set_value(hash);
    if let Some(tab) = &frag.view.tab {
        state.tab.set(Tab::from_key(tab));
    }
    let has_view = frag.view != url::View::default();
    state.pending_view.set(has_view.then(|| frag.view.clone()));
    if let Some(rules) = &frag.view.rules
        && let Err(e) = state.rules.use_link_rules(rules)
    {
        // A link whose rules were damaged would show a different verdict: refuse it whole.
        return fail(
            state,
            format!("This link cannot be opened: its rules are damaged. {e}"),
        );
    }
    if let Some(payload) = frag.plan {
        open_link(state, payload, frag.name);
        return;
    }
    if let Some(address) = url::url_parameter() {
        open_url(state, address);
        return;
    }
    if let Some(sample) = frag
        .sample
        .filter(|s| SAMPLES.iter().any(|(stem, _, _)| stem == s))
    {
        open_sample(state, sample);
        return;
    }
    let Some(storage) = session_storage() else {
        return;
    };
    if let (Ok(Some(text)), Ok(Some(name))) = (
        storage.get_item("planlens:plan"),
        storage.get_item("planlens:name"),
    ) {
        mark_start();
        finish(
            state,
            load_plan_text_with(text, &name, &super::mask::current(state)),
            PlanSource::Local,
        );
    }
}

/// A link pasted into the address bar of an open tab changes only the fragment, which does not
/// reload the page: open what it names.
pub fn follow_pasted_links(state: AppState) {
    let handle = window_event_listener(leptos::ev::hashchange, move |_| {
        if url::current_hash() != state.written_hash.get_value() {
            restore_from_url(state);
        }
    });
    on_cleanup(move || handle.remove());
}

/// Opens the plan a share link carries (the `p=` payload of its fragment).
pub fn open_link(state: AppState, payload: String, name: Option<String>) {
    mark_start();
    let name = name.unwrap_or_else(|| "shared plan".to_string());
    state.status.set(Status::Parsing {
        name: name.clone(),
        bytes: payload.len() as f64,
    });
    leptos::task::spawn_local(async move {
        next_paint().await;
        super::timing::mark("planlens:link-decode-start");
        let decoded = crate::load::link::decode(&payload);
        super::timing::measure("planlens:link-decode", "planlens:link-decode-start");
        match decoded {
            Ok(text) => finish(
                state,
                load_plan_text_with(text, &name, &super::mask::current(state)),
                PlanSource::Link(payload.into()),
            ),
            Err(e) => fail(state, format!("This link cannot be opened. {e}")),
        }
    });
}

/// Opens a plan from `?url=`: fetched by this page (never with cookies or other credentials), with
/// progress. Only https addresses, this site's own files and http on this machine are allowed
/// (the Content-Security-Policy says the same).
pub fn open_url(state: AppState, address: String) {
    mark_start();
    leptos::task::spawn_local(async move {
        let url = match web_sys::Url::new_with_base(&address, &url::site_base()) {
            Ok(url) => url,
            Err(_) => {
                return fail(
                    state,
                    format!("?url= is not a web address: {}", visible(&address)),
                );
            }
        };
        let same_site = url.origin() == window().location().origin().unwrap_or_default();
        let local = matches!(url.hostname().as_str(), "localhost" | "127.0.0.1" | "[::1]");
        if !(same_site || url.protocol() == "https:" || (url.protocol() == "http:" && local)) {
            return fail(
                state,
                format!(
                    "Planlens fetches plans only over https (or http from this machine); {} is not. \
                     Download the file and open it instead.",
                    visible(&url.href())
                ),
            );
        }
        let href = url.href();
        let name = url
            .pathname()
            .rsplit('/')
            .find(|s| !s.is_empty())
            .map(|s| js_sys::decode_uri_component(s).map_or(s.to_string(), String::from))
            .unwrap_or_else(|| url.host());
        match fetch_with_progress(state, &href, &name).await {
            Ok(bytes) => {
                show_parsing(state, &name, bytes.len()).await;
                finish(
                    state,
                    load_plan_with(bytes, &name, &super::mask::current(state)),
                    PlanSource::Url(href),
                );
            }
            Err(message) => fail(state, message),
        }
    });
}

/// Fetches `href` without credentials, reading the body in chunks so the progress bar moves.
async fn fetch_with_progress(state: AppState, href: &str, name: &str) -> Result<Vec<u8>, String> {
    let shown = visible(href);
    state.status.set(Status::Reading {
        name: name.to_string(),
        done: 0.0,
        total: 0.0,
    });
    let init = web_sys::RequestInit::new();
    init.set_method("GET");
    init.set_mode(web_sys::RequestMode::Cors);
    init.set_credentials(web_sys::RequestCredentials::Omit);
    init.set_referrer_policy(web_sys::ReferrerPolicy::NoReferrer);
    let response = JsFuture::from(window().fetch_with_str_and_init(href, &init))
        .await
        .map_err(|_| {
            format!(
                "Cannot load {shown}: the browser blocked the request or the network failed. If \
                 the server is reachable, it does not allow other sites to read the file (CORS: \
                 its response needs an Access-Control-Allow-Origin header). Download the file \
                 and open it instead."
            )
        })?;
    let response: web_sys::Response = response.unchecked_into();
    if !response.ok() {
        let status = response.status();
        let text = response.status_text();
        return Err(format!(
            "Cannot load {shown}: the server answered HTTP {status}{}{}.",
            if text.is_empty() { "" } else { " " },
            text
        ));
    }
    let total = response
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.0);
    if total > MAX_FILE_BYTES as f64 {
        return Err(LoadError::TooLarge {
            bytes: total as usize,
            limit: MAX_FILE_BYTES,
        }
        .to_string());
    }
    let Some(body) = response.body() else {
        return Ok(Vec::new());
    };
    let reader: web_sys::ReadableStreamDefaultReader = body
        .get_reader()
        .dyn_into()
        .map_err(|_| format!("Cannot read {shown}."))?;
    let mut bytes: Vec<u8> = Vec::with_capacity(total as usize);
    loop {
        let chunk = JsFuture::from(reader.read())
            .await
            .map_err(|e| format!("Cannot load {shown}: {}", js_message(&e)))?;
        let done = js_sys::Reflect::get(&chunk, &JsValue::from_str("done"))
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true);
        if done {
            break;
        }
        if let Ok(value) = js_sys::Reflect::get(&chunk, &JsValue::from_str("value")) {
            let array = js_sys::Uint8Array::new(&value);
            let at = bytes.len();
            bytes.resize(at + array.length() as usize, 0);
            array.copy_to(&mut bytes[at..]);
        }
        if bytes.len() > MAX_FILE_BYTES {
            let _ = reader.cancel();
            return Err(LoadError::TooLarge {
                bytes: bytes.len(),
                limit: MAX_FILE_BYTES,
            }
            .to_string());
        }
        // Without a length (or with a compressed one, smaller than the text) the bar follows
        // what has arrived.
        state.status.set(Status::Reading {
            name: name.to_string(),
            done: bytes.len() as f64,
            total: if total > 0.0 {
                total.max(bytes.len() as f64)
            } else {
                0.0
            },
        });
    }
    Ok(bytes)
}

/// The reading/parsing progress bar.
#[component]
pub fn Progress() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || match state.status.get() {
        Status::Idle => None,
        Status::Reading { name, done, total } => {
            let label = if total > 0.0 {
                format!(
                    "Reading {} — {} of {}",
                    crate::model::text::visible(&name),
                    megabytes(done as usize),
                    megabytes(total as usize)
                )
            } else if done > 0.0 {
                format!(
                    "Loading {} — {} so far…",
                    crate::model::text::visible(&name),
                    megabytes(done as usize)
                )
            } else {
                format!("Loading {}…", crate::model::text::visible(&name))
            };
            let fraction = if total > 0.0 { done / total } else { 0.0 };
            Some(
                view! {
                    <div class="progress" role="status" data-testid="load-progress">
                        <span>{label}</span>
                        <progress max="1" value=fraction></progress>
                    </div>
                }
                .into_any(),
            )
        }
        Status::Parsing { name, bytes } => Some(
            view! {
                <div class="progress" role="status" data-testid="load-progress">
                    <span>
                        {format!(
                            "Parsing {} ({})…",
                            crate::model::text::visible(&name),
                            megabytes(bytes as usize)
                        )}
                    </span>
                    <progress></progress>
                </div>
            }
            .into_any(),
        ),
    }
}

/// The load error, until the next successful load.
#[component]
pub fn ErrorBanner() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        state.error.get().map(|message| {
            view! {
                <div class="load-error" role="alert">
                    <span data-testid="load-error">{message}</span>
                    <button class="link" on:click=move |_| state.error.set(None) aria-label="Dismiss">
                        "×"
                    </button>
                </div>
            }
        })
    }
}
