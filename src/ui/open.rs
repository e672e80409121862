//! Opening plans in the browser: files (with progress), samples, pasted text and reloads; timing
//! marks for benchmarks (`performance.measure("planlens:open")`).
//!
//! A link's plan opens with `open_link` (timed `planlens:link-decode`); `?url=` with `open_url`:
//! fetched without credentials, streamed with progress, CORS, HTTP and scheme errors explained.
//! `remask` opens the plan again with another mask (`follow_mask` runs it when the rules change);
//! `open_fleet_link` opens a fleet row's link.

use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::backend::{self, Input, Progress};
use super::{AppState, Loaded, PlanSource, Status, Tab, url};
use crate::load::{LoadError, MAX_FILE_BYTES, error::megabytes};
use crate::model::text::visible;
use crate::session::{Index, OpenOptions, Request, Response};

/// What the file pickers offer: every input the loader reads ([`crate::load::FILE_TYPES`]).
/// Drops are not filtered.
pub const PLAN_FILE_TYPES: &str = crate::load::FILE_TYPES;

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
                    let _ = p.measure_with_start_mark("planlens:render", "planlens:render-start");
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

thread_local! {
    /// Bumped by every open and by Cancel: an open whose number is no longer current was
    /// cancelled or overtaken, and its result is dropped.
    static GENERATION: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn next_generation() -> u64 {
    GENERATION.with(|g| {
        g.set(g.get() + 1);
        g.get()
    })
}

/// The open in progress (or the last one): work that must not outlive the next open.
fn current_generation() -> u64 {
    GENERATION.with(|g| g.get())
}

fn is_current(generation: u64) -> bool {
    GENERATION.with(|g| g.get() == generation)
}

/// Stops opening a plan: the worker reading it is stopped, the open plan (if any) stays.
pub fn cancel(state: AppState) {
    next_generation();
    backend::cancel();
    state.status.set(Status::Idle);
}

/// How plans are opened now: the name, the secret-name mask, the rules and their labels.
fn options(state: AppState, name: &str) -> OpenOptions {
    let mask = super::mask::current(state);
    OpenOptions {
        name: name.to_string(),
        mask_builtin: mask.uses_builtin(),
        mask_user: mask.user_patterns().to_vec(),
        rules: state.rules.text_in_use(),
        labels: state.rules.labels(),
    }
}

/// Opens `input` in a new session (a Web Worker), showing its progress, and installs it.
async fn open_input(state: AppState, input: Input, name: String, source: PlanSource) {
    let generation = next_generation();
    let shown = name.clone();
    let on_progress = move |p: Progress| {
        if !is_current(generation) {
            return;
        }
        state.status.set(match p {
            Progress::Reading { done, total } => Status::Reading {
                name: shown.clone(),
                done,
                total,
            },
            Progress::Parsing { bytes } => Status::Parsing {
                name: shown.clone(),
                bytes,
            },
            Progress::Part { name } => Status::LoadingPart {
                name: shown.clone(),
                part: name,
            },
            Progress::Plans { done, total } => Status::Plans { done, total },
            Progress::Row(_) => return,
        });
    };
    let options = options(state, &name);
    let asked = (options.rules.clone(), options.labels.clone());
    let result = backend::open(input, options, on_progress).await;
    // Reading the index and rendering it are separate tasks, so the page can paint in between.
    super::timing::next_task().await;
    if !is_current(generation) {
        return;
    }
    let result = match result {
        Ok(backend::Opened::Fleet(fleet)) => {
            state.status.set(Status::Idle);
            state.error.set(None);
            state.fleet_filter.set(Default::default());
            SET.with(|s| s.borrow_mut().clear());
            state.fleet.set(Some(Arc::new(*fleet)));
            state.showing_fleet.set(true);
            state.home.set(false);
            return;
        }
        Ok(backend::Opened::Set {
            names,
            texts,
            problems,
        }) => {
            SET_LINK.with(|l| l.borrow_mut().take());
            open_set(state, generation, names, texts, problems, None).await;
            return;
        }
        Ok(backend::Opened::Plan(index)) => Ok(*index),
        Err(e) => Err(e),
    };
    // Parsing the plan and indexing its rows are separate tasks too (each tens of milliseconds
    // for a large plan).
    let read = match result {
        Ok(mut index) => {
            let kept = index.kept.take();
            super::timing::mark("planlens:index-read-start");
            match index.take_parsed() {
                Ok(parsed) => {
                    super::timing::next_task().await;
                    if !is_current(generation) {
                        return;
                    }
                    let read = index.document_of(parsed).map_err(|e| e.to_string());
                    let loaded = read.map(|doc| install(doc, index, source, asked));
                    super::timing::measure("planlens:index-read", "planlens:index-read-start");
                    loaded.map(|loaded| (loaded, kept))
                }
                Err(e) => Err(e.to_string()),
            }
        }
        Err(e) => Err(e),
    };
    super::timing::next_task().await;
    if is_current(generation) {
        finish(state, read);
    }
}

thread_local! {
    /// The payload of the set link the open set came from (`s=`), if it came from one.
    static SET_LINK: std::cell::RefCell<Option<Arc<str>>> = const { std::cell::RefCell::new(None) };
    /// The open set's plans (name, UTF-8 text), kept on the page so a row opens its plan.
    static SET: std::cell::RefCell<Vec<(String, js_sys::Uint8Array)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// What the open set's rows were judged with (`RulesState::set_judging_key`), and whether
    /// they are being judged again now.
    static SET_JUDGED: std::cell::RefCell<(String, bool)> =
        const { std::cell::RefCell::new((String::new(), false)) };
    /// The last review's set the open set was compared with (name, UTF-8 text): a row's plan
    /// opens compared with its namesake.
    static OLDER_SET: std::cell::RefCell<Vec<(String, js_sys::Uint8Array)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Compares the open set with the last review's set (`files`, with their paths in a dropped
/// folder, or as `Err` its set link), in a worker: the rows since go to `AppState::set_since`, and the older plans are kept
/// for the rows to open compared. The set's texts stay on the page.
pub async fn compare_set(
    state: AppState,
    older: Result<Vec<(web_sys::File, String)>, String>,
) -> Result<(), String> {
    let (names, texts) = take_set("compare")?;
    let (result, back) = backend::compare_set(&names, texts, older, &options(state, "")).await;
    keep_set(names, back);
    let (rows, older) = result?;
    OLDER_SET.with(|o| *o.borrow_mut() = older);
    state.set_since.set(Some(Arc::new(rows)));
    Ok(())
}

/// Stops comparing the open set with the last review's.
pub fn stop_comparing_set(state: AppState) {
    OLDER_SET.with(|o| o.borrow_mut().clear());
    state.set_since.set(None);
    state.set_since_only.set(false);
}

/// A set's rows, its plans read and judged in workers under the rules, label and Rego policies
/// in use, with progress (`n of N plans`) while `generation` is current; the texts handed back.
async fn judge_set(
    state: AppState,
    generation: u64,
    names: &[String],
    texts: Vec<js_sys::Uint8Array>,
) -> Result<(Vec<crate::fleet::PlanRow>, Vec<js_sys::Uint8Array>), String> {
    state.status.set(Status::Plans {
        done: 0.0,
        total: names.len() as f64,
    });
    let on = move |p: Progress| {
        if let (true, Progress::Plans { done, total }) = (is_current(generation), p) {
            state.status.set(Status::Plans { done, total });
        }
    };
    let policies = state.rules.set_policies();
    backend::rows(names, texts, &options(state, ""), policies.as_ref(), on).await
}

/// The open set's plans, taken from the page for a worker to read (they come back with its
/// answer: [`keep_set`]); `Err(why)` when no plans are open (`doing`: what needed them).
fn take_set(doing: &str) -> Result<(Vec<String>, Vec<js_sys::Uint8Array>), String> {
    let (names, texts): (Vec<String>, Vec<js_sys::Uint8Array>) = SET
        .with(|s| std::mem::take(&mut *s.borrow_mut()))
        .into_iter()
        .unzip();
    if names.is_empty() {
        return Err(format!(
            "No plans are open: open them again to {doing} them."
        ));
    }
    Ok((names, texts))
}

/// Puts the set's plans back on the page once a worker handed them back.
fn keep_set(names: Vec<String>, texts: Vec<js_sys::Uint8Array>) {
    SET.with(|s| *s.borrow_mut() = names.into_iter().zip(texts).collect());
}

/// Reads a set's plans in workers (with progress: `n of N plans`) and shows the roll-up; keeps
/// their texts for the rows to open. `member`: a plan to open at once (a row's deep link).
async fn open_set(
    state: AppState,
    generation: u64,
    names: Vec<String>,
    texts: Vec<js_sys::Uint8Array>,
    problems: Vec<(String, String)>,
    member: Option<usize>,
) {
    let judged = untrack(|| state.rules.set_judging_key());
    let rows = judge_set(state, generation, &names, texts).await;
    if !is_current(generation) {
        return;
    }
    match rows {
        Ok((plans, texts)) => {
            SET_JUDGED.with(|j| *j.borrow_mut() = (judged, false));
            keep_set(names, texts);
            // A comparison belongs to the set it was made for.
            stop_comparing_set(state);
            state.fleet_filter.set(Default::default());
            state.fleet_place.set_value(None);
            state.status.set(Status::Idle);
            state.error.set(None);
            state.fleet.set(Some(Arc::new(crate::fleet::FleetIndex {
                plans,
                problems,
                ..Default::default()
            })));
            state.showing_fleet.set(true);
            state.home.set(false);
            measure_after_paint();
            if let Some(member) = member {
                open_member(state, member, None);
            }
        }
        Err(e) => fail(state, e),
    }
}

/// The links and the comment of the open set (full link, redacted roll-up link, comment, whether
/// the built-in pack stood in for rules that do not parse); the set's texts stay on the page.
pub async fn share_set(state: AppState) -> Result<(String, String, String, bool), String> {
    let (names, texts) = take_set("share")?;
    let policies = state.rules.set_policies();
    let (result, back) = backend::share_set(
        &names,
        texts,
        &options(state, ""),
        policies.as_ref(),
        &url::site_base(),
    )
    .await;
    keep_set(names, back);
    result
}

/// Judges the open set's plans again whenever the rules, the label or the Rego policies change
/// while its roll-up shows (or when it shows again after they changed): its rows always say
/// what the rules and policies in use say. The filter and place are kept; the plans stay on the
/// page (copies go to the workers), so a row still opens while its plans are judged.
pub fn rejudge_sets(state: AppState) {
    Effect::new(move |_| {
        let key = state.rules.set_judging_key();
        // Rows judged again come back through `fleet`: then a change made meanwhile is seen.
        state.fleet.track();
        if !state.showing_fleet.get() || !set_has_plans() {
            return;
        }
        let (judged, busy) = SET_JUDGED.with(|j| j.borrow().clone());
        if busy || judged == key {
            return;
        }
        SET_JUDGED.with(|j| j.borrow_mut().1 = true);
        let (names, texts): (Vec<String>, Vec<js_sys::Uint8Array>) = SET.with(|s| {
            (s.borrow().iter())
                .map(|(name, text)| (name.clone(), text.slice(0, text.length())))
                .unzip()
        });
        let generation = current_generation();
        leptos::task::spawn_local(async move {
            let rows = judge_set(state, generation, &names, texts).await;
            SET_JUDGED.with(|j| j.borrow_mut().1 = false);
            if !is_current(generation) {
                return;
            }
            state.status.set(Status::Idle);
            match rows {
                Ok((plans, _)) => {
                    SET_JUDGED.with(|j| j.borrow_mut().0 = key);
                    let problems = state
                        .fleet
                        .with_untracked(|f| f.as_ref().map(|f| f.problems.clone()))
                        .unwrap_or_default();
                    state.fleet.set(Some(Arc::new(crate::fleet::FleetIndex {
                        plans,
                        problems,
                        ..Default::default()
                    })));
                }
                Err(e) => state.error.set(Some(e)),
            }
        });
    });
}

/// The payload of the set link the open roll-up came from, if it came from one.
pub fn set_link_payload() -> Option<Arc<str>> {
    SET_LINK.with(|l| l.borrow().clone())
}

/// True when the open roll-up's plans are on the page (not a redacted roll-up's rows only).
pub fn set_has_plans() -> bool {
    SET.with(|s| !s.borrow().is_empty())
}

/// Opens plan `member` of the open set with every view, `address` selected when given; the
/// roll-up stays for the way back.
pub fn open_member(state: AppState, member: usize, address: Option<String>) {
    let Some((name, text)) = SET.with(|s| s.borrow().get(member).cloned()) else {
        return fail(state, "That plan is not in the open set.".to_string());
    };
    mark_start();
    state.showing_fleet.set(false);
    state
        .pending_view
        .set(address.map(|a| crate::load::fragment::LinkView {
            address: Some(a),
            ..Default::default()
        }));
    state.status.set(Status::Parsing {
        name: name.clone(),
        bytes: f64::from(text.length()),
    });
    // Compared with the last review's set: the plan opens compared with its namesake there,
    // whose text is handed to the plan's worker as a file (never read on the page).
    let older = OLDER_SET.with(|o| {
        o.borrow()
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.clone())
    });
    if let Some(older) = older {
        let parts = js_sys::Array::of1(&older);
        if let Ok(file) = web_sys::File::new_with_u8_array_sequence(&parts, &name) {
            super::since::compare_when_open(name.clone(), file);
        }
    }
    // A plan of a set a link carried keeps the set in the address bar: a row's deep link.
    let source = match set_link_payload() {
        Some(set) => PlanSource::Member(set, member),
        None => PlanSource::Local,
    };
    leptos::task::spawn_local(open_input(state, Input::Bytes(text.to_vec()), name, source));
}

/// Opens the plans a set link carries (`s=`, decoded to `[{name, text}]`), as a roll-up;
/// `member` opens one of them at once.
pub fn open_set_link(state: AppState, payload: String, member: Option<usize>) {
    mark_start();
    let generation = next_generation();
    state.status.set(Status::Parsing {
        name: "the shared plans".to_string(),
        bytes: payload.len() as f64,
    });
    leptos::task::spawn_local(async move {
        next_paint().await;
        let members = crate::load::link::decode(&payload)
            .map_err(|e| e.to_string())
            .and_then(|json| crate::load::set::read_payload(&json).map_err(|e| e.to_string()));
        match members {
            Ok(members) => {
                SET_LINK.with(|l| *l.borrow_mut() = Some(payload.as_str().into()));
                let (names, texts) = members
                    .into_iter()
                    .map(|m| (m.name, js_sys::Uint8Array::from(m.text.as_bytes())))
                    .unzip();
                open_set(state, generation, names, texts, Vec::new(), member).await;
            }
            Err(e) => fail(state, format!("This link's plans cannot be read: {e}")),
        }
    });
}

/// Shows the redacted roll-up a link carries (`ru=`): the rows, whose plans are not in it.
pub fn open_rollup_link(state: AppState, payload: String) {
    let rows = crate::load::link::decode(&payload)
        .map_err(|e| e.to_string())
        .and_then(|json| {
            serde_json::from_str::<Vec<crate::fleet::PlanRow>>(&json).map_err(|e| e.to_string())
        });
    match rows {
        Ok(mut plans) => {
            crate::fleet::plans::sort(&mut plans);
            SET.with(|s| s.borrow_mut().clear());
            SET_LINK.with(|l| l.borrow_mut().take());
            state.fleet_filter.set(Default::default());
            state.fleet.set(Some(Arc::new(crate::fleet::FleetIndex {
                plans,
                ..Default::default()
            })));
            state.showing_fleet.set(true);
            state.home.set(false);
        }
        Err(e) => fail(state, format!("This link's roll-up cannot be read: {e}")),
    }
}

/// Opens what was chosen in the file input or dropped on the page: one file as a plan, several
/// together as a set of plans or a fleet (Terraform objects, their plans and states); none does
/// nothing.
pub fn open_chosen(state: AppState, files: Option<web_sys::FileList>) {
    let files = files.map(|f| super::js::files(&f)).unwrap_or_default();
    match files.len() {
        0 => {}
        1 => open_file(state, files[0].clone()),
        _ => open_files(
            state,
            (files.into_iter())
                .map(|f| {
                    let path = super::folder::relative_path(&f);
                    (f, path)
                })
                .collect(),
        ),
    }
}

/// Opens every file of the folders (and files) dropped together, named by their paths.
pub fn open_folder(state: AppState, entries: Vec<JsValue>) {
    mark_start();
    state.status.set(Status::Reading {
        name: "the folder".to_string(),
        done: 0.0,
        total: 0.0,
    });
    leptos::task::spawn_local(async move {
        match super::folder::walk(entries).await {
            Ok(files) if files.is_empty() => fail(state, "The folder holds no file.".to_string()),
            Ok(files) => open_files(state, files),
            Err(e) => fail(state, e),
        }
    });
}

/// Opens several files chosen or dropped together (each with its path in a dropped folder, or
/// empty): plans as a set, tf-controller objects with the plans and states stored beside them as
/// a fleet.
pub fn open_files(state: AppState, files: Vec<(web_sys::File, String)>) {
    mark_start();
    let name = format!("{} files", files.len());
    state.status.set(Status::Reading {
        name: name.clone(),
        done: 0.0,
        total: 0.0,
    });
    leptos::task::spawn_local(open_input(
        state,
        Input::Files(files),
        name,
        PlanSource::Local,
    ));
}

/// Opens a fleet row's plan or state (`link`), as a file, with every view.
pub fn open_fleet_link(state: AppState, link: crate::fleet::Link) {
    leptos::task::spawn_local(async move {
        match backend::fleet_file(link).await {
            Ok((name, text)) => {
                mark_start();
                state.showing_fleet.set(false);
                state.status.set(Status::Parsing {
                    name: name.clone(),
                    bytes: text.len() as f64,
                });
                open_input(state, Input::Text(text), name, PlanSource::Local).await;
            }
            Err(e) => fail(state, e),
        }
    });
}

/// Opens a file chosen in the file input or dropped on the page: the worker reads it.
pub fn open_file(state: AppState, file: web_sys::File) {
    mark_start();
    let name = file.name();
    let size = file.size() as usize;
    if size > MAX_FILE_BYTES {
        return fail(
            state,
            LoadError::TooLarge {
                bytes: size,
                limit: MAX_FILE_BYTES,
            }
            .to_string(),
        );
    }
    state.status.set(Status::Reading {
        name: name.clone(),
        done: 0.0,
        total: size as f64,
    });
    leptos::task::spawn_local(open_input(
        state,
        Input::File(file),
        name,
        PlanSource::Local,
    ));
}

/// Opens pasted text.
pub fn open_text(state: AppState, text: String) {
    mark_start();
    let name = "pasted plan".to_string();
    leptos::task::spawn_local(open_input(
        state,
        Input::Text(text),
        name,
        PlanSource::Local,
    ));
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
            Ok(text) => open_input(state, Input::Text(text), name, PlanSource::Sample(stem)).await,
            Err(e) => fail(state, format!("Cannot load the sample {name}: {e}")),
        }
    });
}

async fn fetch_text(path: &str) -> Result<String, String> {
    let response = JsFuture::from(window().fetch_with_str(path))
        .await
        .map_err(super::js::error_message)?;
    let response: web_sys::Response = response.unchecked_into();
    if !response.ok() {
        return Err(format!("HTTP {}", response.status()));
    }
    let text = JsFuture::from(response.text().map_err(super::js::error_message)?)
        .await
        .map_err(super::js::error_message)?;
    text.as_string().ok_or_else(|| "not text".to_string())
}

fn fail(state: AppState, message: String) {
    state.status.set(Status::Idle);
    state.error.set(Some(message));
}

/// The views' form of an opened plan: its values-free document and the analyses it carries.
fn install(
    doc: crate::model::Document,
    index: Index,
    source: PlanSource,
    (rules, labels): (Option<String>, std::collections::BTreeMap<String, String>),
) -> Loaded {
    let analysis = crate::analysis::Analysis::of(&doc);
    let a = index.analyses;
    Loaded {
        analysis,
        outputs: a.outputs,
        checks: a.checks,
        environment: a.environment,
        first_evaluation: (rules, labels, index.evaluation),
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
    if doc.values_dropped() || doc.masking.mask == mask {
        return;
    }
    let options = options(state, &doc.name);
    let asked = (options.rules.clone(), options.labels.clone());
    let source = loaded.source.clone();
    leptos::task::spawn_local(async move {
        match backend::ask(Request::Remask(Box::new(options))).await {
            Ok(Response::Opened(mut index)) => match index.take_document() {
                Ok(doc) => {
                    let new = install(doc, *index, source, asked);
                    let selected = state.selected.get_untracked();
                    let detail_open = state.detail_open.get_untracked();
                    state.loaded.set(Some(Arc::new(new)));
                    // The same view: the selection, and its detail (a phone's sheet) open or closed.
                    state.select(selected);
                    state.detail_open.set(detail_open);
                }
                Err(e) => fail(state, e.to_string()),
            },
            Ok(Response::Failed(e)) | Err(e) => fail(state, e),
            Ok(_) => {}
        }
    });
}

/// Installs an opened plan (or shows why it could not be opened; the previous plan stays open).
fn finish(state: AppState, result: Result<(Loaded, Option<String>), String>) {
    state.status.set(Status::Idle);
    let (loaded, kept) = match result {
        Ok(read) => read,
        Err(e) => return fail(state, e),
    };
    match (&loaded.source, kept) {
        (PlanSource::Local, Some(text)) => keep_for_reload(&text, &loaded.doc.name),
        _ => forget_kept(),
    }
    // Rules that came with a link belong to that link's plan.
    if !matches!(loaded.source, PlanSource::Link(_)) {
        state.rules.forget_link_rules();
    }
    // Drift reports and refresh-only plans are about drift: open them there.
    let drift_first = matches!(loaded.doc.source, crate::model::Source::Driftctl(_))
        || crate::drift::is_refresh_only(&loaded.doc);
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
    // A comparison belongs to the plan it was made for.
    state.since.set(None);
    // A label belongs to the plan it was set for.
    state.rules.environment.set(
        pending
            .as_ref()
            .and_then(|v| v.environment.clone())
            .unwrap_or_default(),
    );
    super::timing::mark("planlens:render-start");
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
fn keep_for_reload(text: &str, name: &str) {
    let Some(storage) = session_storage() else {
        return;
    };
    if storage.set_item("planlens:plan", text).is_ok()
        && storage.set_item("planlens:name", name).is_ok()
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
    // A report file carries its own plan in the page (`report`).
    let frag = super::report::with_embedded(url::Fragment::parse(&hash));
    state.written_hash.set_value(hash);
    if let Some(tab) = &frag.view.tab {
        state.tab.set(Tab::from_key(tab));
    }
    let has_view = frag.view != url::LinkView::default();
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
        // The plan last reviewed, when the link carries it: compared with once the plan is open.
        state
            .pending_since
            .set_value(frag.was.and_then(|w| crate::load::link::decode(&w).ok()));
        open_link(state, payload, frag.name);
        return;
    }
    if let Some(payload) = frag.set {
        open_set_link(state, payload, frag.member);
        return;
    }
    if let Some(payload) = frag.rollup {
        open_rollup_link(state, payload);
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
        // A reload of the landing page keeps showing it: the plan reopens behind it.
        if url::on_landing_entry() {
            state.home.set(true);
        }
        leptos::task::spawn_local(open_input(
            state,
            Input::Text(text),
            name,
            PlanSource::Local,
        ));
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
            Ok(text) => {
                open_input(
                    state,
                    Input::Text(text),
                    name,
                    PlanSource::Link(payload.into()),
                )
                .await
            }
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
            Ok(bytes) => open_input(state, Input::Bytes(bytes), name, PlanSource::Url(href)).await,
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
            .map_err(|e| format!("Cannot load {shown}: {}", super::js::error_message(e)))?;
        let done = js_sys::Reflect::get(&chunk, &JsValue::from_str("done"))
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true);
        if done {
            break;
        }
        if let Ok(value) = js_sys::Reflect::get(&chunk, &JsValue::from_str("value")) {
            super::js::append(&mut bytes, &js_sys::Uint8Array::new(&value));
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
                        <CancelButton />
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
                            "Parsing and analysing {} ({})…",
                            crate::model::text::visible(&name),
                            megabytes(bytes as usize)
                        )}
                    </span>
                    <progress></progress>
                    <CancelButton />
                </div>
            }
            .into_any(),
        ),
        Status::Plans { done, total } => Some({
            let fraction = if total > 0.0 { done / total } else { 0.0 };
            view! {
                <div class="progress" role="status" data-testid="load-progress">
                    <span>{format!("Reading the plans: {done} of {total}…")}</span>
                    <progress max="1" value=fraction></progress>
                    <CancelButton />
                </div>
            }
            .into_any()
        }),
        Status::LoadingPart { name, part } => Some(
            view! {
                <div class="progress" role="status" data-testid="load-progress">
                    <span>
                        {format!(
                            "Loading {} for {} (once; it is kept for next time)…",
                            part_name(&part),
                            crate::model::text::visible(&name),
                        )}
                    </span>
                    <progress></progress>
                    <CancelButton />
                </div>
            }
            .into_any(),
        ),
    }
}

/// A lazily loaded part of the app, in words.
pub fn part_name(part: &str) -> &'static str {
    match part {
        "yaml" => "the YAML reader",
        "rego" => "the Rego engine",
        "readers" => {
            "the reader of text plans, states, plan logs, driftctl reports and Kubernetes objects"
        }
        _ => "a part of Planlens",
    }
}

/// Stops the open in progress; the plan open before (if any) stays.
#[component]
fn CancelButton() -> impl IntoView {
    let state = expect_context::<AppState>();
    view! {
        <button class="cancel" data-testid="load-cancel" on:click=move |_| cancel(state)>
            "Cancel"
        </button>
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
