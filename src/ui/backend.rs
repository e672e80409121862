//! The page's side of the session (`crate::session`): plans are read, parsed and analysed in a
//! Web Worker running this same WebAssembly module (`src/worker.rs`, part of the `planlens-web` binary), so the page stays
//! responsive while they open; the page keeps only the values-free index and asks for values
//! when a view needs them ([`ask`]).
//!
//! Each plan is opened in a new worker. The previous plan's worker keeps answering until the new
//! plan has opened, so a failed or cancelled open leaves the open plan as it was; then it is
//! stopped. Cancel stops the opening worker at once, wherever it is. If a worker cannot be
//! started (a browser without module workers), the session runs on the page itself.
//!
//! Messages are plain objects: to the worker `{id, kind: "open", options, file | bytes | text}`
//! and `{id, kind: "ask", request}` (JSON text of `session::Request`; `{kind: "compare", request,
//! file}` hands over the last plan's `File` with it); back `{id, kind:
//! "progress", phase, done, total}` and `{id, kind: "done", response, plan?}` (JSON text of
//! `session::Response`; an opened index's plan text travels beside it, unescaped).
//!
//! Where the worker's files are: the glue's URL from `window.planlensGlueUrl` or the module
//! preload, the script from `window.planlensWorkerUrl` or `worker.js` beside it, the parts' from
//! `window.planlensPartUrls` or `part-NAME.js` / `part-NAME_bg.wasm` beside the glue. `open`
//! reports progress and gives a plan, or a fleet whose worker is kept for `fleet_file`;
//! `policy_inputs` asks for the Rego engine's inputs; `ask_part` runs a part in a worker of its
//! own, started on first use and stopped after a time limit. A dying worker fails every question
//! still waiting.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect};
use leptos::prelude::window;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::js::{error_message, field as get};
use crate::readers_part::PartReaders;
use crate::session::{Index, OpenOptions, Request, Response, Session};

/// What to open.
pub enum Input {
    /// A file chosen or dropped: the worker reads it.
    File(web_sys::File),
    /// Bytes fetched by the page (`?url=`).
    Bytes(Vec<u8>),
    /// Text: pasted, a sample, a kept plan, a link's plan.
    Text(String),
    /// Several files chosen or dropped together (a fleet of tf-controller workspaces, a set of
    /// plans), each with its path in a dropped folder (empty: its name).
    Files(Vec<(web_sys::File, String)>),
}

/// What an open gave.
pub enum Opened {
    /// A plan (or state, …): its values-free index; the worker holding it is the open plan's.
    Plan(Box<Index>),
    /// A fleet of workspaces; the worker holding it answers [`fleet_file`].
    Fleet(Box<crate::fleet::FleetIndex>),
    /// Several plans, not yet read: their names, texts (UTF-8) and the files skipped; [`rows`]
    /// reads them.
    Set {
        names: Vec<String>,
        texts: Vec<js_sys::Uint8Array>,
        problems: Vec<(String, String)>,
    },
}

/// How far an open has got.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// Reading the file: bytes done of total.
    Reading { done: f64, total: f64 },
    /// Decoding, parsing and analysing `bytes` bytes.
    Parsing { bytes: f64 },
    /// Fetching a lazily loaded part of the app the file needs (`yaml`).
    Part { name: String },
    /// Opening a set's plans: `done` of `total` read.
    Plans { done: f64, total: f64 },
    /// A set's plan was read: its roll-up row (JSON), sent with the count that includes it.
    Row(String),
}

type OnProgress = Rc<dyn Fn(Progress)>;

/// A worker and its pending questions.
struct Conn {
    worker: web_sys::Worker,
    pending: Pending,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

/// Where the open plan's session lives.
enum Backend {
    Worker(Conn),
    /// No worker could be started: the session runs here.
    Local(Box<Session>),
}

thread_local! {
    /// The open plan's session.
    static CURRENT: RefCell<Option<Backend>> = const { RefCell::new(None) };
    /// A worker opening the next plan (what Cancel stops).
    static OPENING: RefCell<Option<(web_sys::Worker, Pending)>> = const { RefCell::new(None) };
    /// The number of the newest open: only it may replace the open plan. Cancel bumps it too.
    static LATEST: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// A worker started ahead, idle, for the next plan: opening then does not wait for a worker
    /// to start.
    static SPARE: RefCell<Option<Conn>> = const { RefCell::new(None) };
    static PREPARING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static NEXT_ID: std::cell::Cell<u32> = const { std::cell::Cell::new(1) };
    /// The worker holding the open fleet, if any (it stays while plans are opened from it).
    static FLEET: RefCell<Option<Conn>> = const { RefCell::new(None) };
    /// Workers reading a set's plans (what Cancel stops).
    static POOL: RefCell<Vec<(web_sys::Worker, Pending)>> = const { RefCell::new(Vec::new()) };
    /// Lazily loaded parts running in workers of their own (the Rego engine), once started.
    static PART_WORKERS: RefCell<HashMap<&'static str, Rc<Conn>>> = RefCell::new(HashMap::new());
}

fn next_id() -> u32 {
    NEXT_ID.with(|n| {
        let id = n.get();
        n.set(id.wrapping_add(1));
        id
    })
}

/// The URL of this app's JavaScript glue: set by the boot script or a report file, else the link
/// `scripts/csp-boot.mjs` leaves in the page.
fn glue_url() -> Option<String> {
    let global = get(&window(), "planlensGlueUrl");
    if let Some(url) = global.as_string() {
        return Some(url);
    }
    let link = window()
        .document()?
        .query_selector("link[rel=planlens-glue]")
        .ok()??;
    link.get_attribute("href").and_then(|href| {
        web_sys::Url::new_with_base(&href, &window().location().href().ok()?)
            .ok()
            .map(|u| u.href())
    })
}

/// The worker script: set by a report file, else `worker.js` beside the glue.
fn worker_url(glue: &str) -> Option<String> {
    if let Some(url) = get(&window(), "planlensWorkerUrl").as_string() {
        return Some(url);
    }
    web_sys::Url::new_with_base("worker.js", glue)
        .ok()
        .map(|u| u.href())
}

/// The lazily loaded parts of the app, each a Cargo package of its own (`crates/part-<name>`)
/// whose binary Trunk builds as a worker module (`part-<name>.js` and `part-<name>_bg.wasm` beside the glue; index.html): fetched only
/// when something first needs one, then kept by the service worker.
pub const PARTS: [&str; 3] = ["yaml", "rego", "readers"];

/// Where the parts are, for a worker's first message: `{name: {glue, wasm}}`. A report file sets
/// `window.planlensPartUrls` itself (its parts are inside it, or it has none).
fn part_urls(glue: &str) -> JsValue {
    let global = get(&window(), "planlensPartUrls");
    if global.is_object() {
        return global;
    }
    let parts = Object::new();
    for name in PARTS {
        let url = |file: String| {
            web_sys::Url::new_with_base(&file, glue)
                .map(|u| JsValue::from_str(&u.href()))
                .unwrap_or(JsValue::UNDEFINED)
        };
        let part = Object::new();
        let _ = Reflect::set(&part, &"glue".into(), &url(format!("part-{name}.js")));
        let _ = Reflect::set(&part, &"wasm".into(), &url(format!("part-{name}_bg.wasm")));
        let _ = Reflect::set(&parts, &JsValue::from_str(name), &part);
    }
    parts.into()
}

/// Starts a worker and waits until it has instantiated this module, or (`part`) a lazily
/// loaded part of the app in a worker of its own.
async fn start_worker(part: Option<&str>) -> Result<Conn, String> {
    let glue = glue_url().ok_or("the page does not say where its script is")?;
    let script = worker_url(&glue).ok_or("the page does not say where its worker is")?;
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(&script, &options).map_err(error_message)?;
    let pending: Pending = Rc::default();
    let ready = Promise::new(&mut |resolve, reject| {
        let reject_error = reject.clone();
        let on_first =
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                let data = e.data();
                if get(&data, "kind").as_string().as_deref() == Some("ready") {
                    let _ = resolve.call0(&JsValue::NULL);
                } else {
                    let _ = reject.call1(&JsValue::NULL, &get(&data, "message"));
                }
            });
        worker.set_onmessage(Some(on_first.as_ref().unchecked_ref()));
        on_first.forget();
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            let message = e
                .dyn_ref::<web_sys::ErrorEvent>()
                .map(|e| e.message())
                .unwrap_or_else(|| "the worker did not start".to_string());
            let _ = reject_error.call1(&JsValue::NULL, &JsValue::from_str(&message));
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        on_error.forget();
    });
    let hello = Object::new();
    let _ = Reflect::set(&hello, &"glue".into(), &JsValue::from_str(&glue));
    let _ = Reflect::set(&hello, &"module".into(), &wasm_bindgen::module());
    let _ = Reflect::set(&hello, &"parts".into(), &part_urls(&glue));
    if let Some(part) = part {
        let _ = Reflect::set(&hello, &"part".into(), &JsValue::from_str(part));
    }
    worker.post_message(&hello).map_err(error_message)?;
    JsFuture::from(ready).await.map_err(error_message)?;
    let table = pending.clone();
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let data = e.data();
            let Some(id) = get(&data, "id").as_f64().map(|id| id as u32) else {
                return;
            };
            match get(&data, "kind").as_string().as_deref() {
                Some("progress") => {
                    let on = table.borrow().get(&id).and_then(|(_, on)| on.clone());
                    if let Some(on) = on {
                        let done = get(&data, "done").as_f64().unwrap_or(0.0);
                        let total = get(&data, "total").as_f64().unwrap_or(0.0);
                        on(match get(&data, "phase").as_string().as_deref() {
                            Some("reading") => Progress::Reading { done, total },
                            Some(phase) if phase.starts_with("part:") => Progress::Part {
                                name: phase["part:".len()..].to_string(),
                            },
                            Some("plans") => {
                                if let Some(row) = get(&data, "row").as_string() {
                                    on(Progress::Row(row));
                                }
                                Progress::Plans { done, total }
                            }
                            _ => Progress::Parsing { bytes: total },
                        });
                    }
                }
                _ => {
                    if let Some((resolve, _)) = table.borrow_mut().remove(&id) {
                        let _ = resolve.call1(&JsValue::NULL, &data);
                    }
                }
            }
        });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // A worker that dies (out of memory, a panic) answers nothing more: every question still
    // waiting gets a message saying so, instead of waiting forever.
    let table = pending.clone();
    let part = part.map(|p| -> &'static str {
        PARTS
            .into_iter()
            .find(|known| *known == p)
            .unwrap_or("unknown")
    });
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
        let why = e
            .dyn_ref::<web_sys::ErrorEvent>()
            .map(|e| e.message())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| "it stopped".to_string());
        if let Some(part) = part {
            // The next question starts the part again.
            PART_WORKERS.with(|p| p.borrow_mut().remove(part));
            fail_all(
                &table,
                format!("The {part} part of Planlens stopped ({why})."),
            );
            return;
        }
        fail_all(
            &table,
            format!("The worker holding this plan failed ({why}): open the plan again."),
        );
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    Ok(Conn {
        worker,
        pending,
        _on_message: on_message,
        _on_error: on_error,
    })
}

type Pending = Rc<RefCell<HashMap<u32, (Function, Option<OnProgress>)>>>;

/// Posts `message` (given an `id`) to `worker` and waits for its answer.
async fn call(
    worker: &web_sys::Worker,
    pending: &Pending,
    message: Object,
    on: Option<OnProgress>,
    transfer: Option<&js_sys::Array>,
) -> Result<JsValue, String> {
    let id = next_id();
    let _ = Reflect::set(&message, &"id".into(), &JsValue::from(id));
    let answered = Promise::new(&mut |resolve, _| {
        pending.borrow_mut().insert(id, (resolve, on.clone()));
    });
    let posted = match transfer {
        Some(t) => worker.post_message_with_transfer(&message, t),
        None => worker.post_message(&message),
    };
    posted.map_err(error_message)?;
    JsFuture::from(answered).await.map_err(error_message)
}

/// Records the worker's steps of an open (`read=12.5,load=80,…`, milliseconds) as
/// `planlens:worker-<step>` measures ending now, one after the other.
fn record_timings(timings: &str) {
    let Some(performance) = window().performance() else {
        return;
    };
    let steps: Vec<(&str, f64)> = timings
        .split(',')
        .filter_map(|s| s.split_once('='))
        .filter_map(|(name, ms)| Some((name, ms.parse().ok()?)))
        .collect();
    let measure = get(&performance, "measure").dyn_into::<Function>().ok();
    let mut start = performance.now() - steps.iter().map(|(_, ms)| ms).sum::<f64>();
    for (name, ms) in steps {
        let options = Object::new();
        let _ = Reflect::set(&options, &"start".into(), &start.into());
        let _ = Reflect::set(&options, &"duration".into(), &ms.into());
        if let Some(measure) = &measure {
            let _ = measure.call2(
                &performance,
                &format!("planlens:worker-{name}").into(),
                &options,
            );
        }
        start += ms;
    }
}

fn decode(data: &JsValue) -> Result<Response, String> {
    let mut response = decode_answer(data)?;
    add_plan(&mut response, data)?;
    Ok(response)
}

/// The plan text of an opened index (sent beside its JSON, as bytes), put into it.
fn add_plan(response: &mut Response, data: &JsValue) -> Result<(), String> {
    if let Response::Opened(index) = response {
        index.plan = utf8(&get(data, "plan_bytes"))?;
    }
    Ok(())
}

/// The worker's answer without an opened index's plan text ([`add_plan`]).
fn decode_answer(data: &JsValue) -> Result<Response, String> {
    // An opened index comes as UTF-8 bytes (src/worker.rs, `reply`), other answers as text.
    let bytes = get(data, "response_bytes");
    let text = if bytes.is_object() {
        utf8(&bytes)?
    } else {
        get(data, "response")
            .as_string()
            .ok_or("the worker gave no answer")?
    };
    let response: Response = serde_json::from_str(&text)
        .map_err(|e| format!("the worker's answer does not read: {e}"))?;
    if let Response::Opened(_) = &response {
        record_timings(&get(data, "timings").as_string().unwrap_or_default());
    }
    Ok(response)
}

/// The text in a `Uint8Array` of UTF-8.
fn utf8(bytes: &JsValue) -> Result<String, String> {
    let bytes = bytes
        .dyn_ref::<js_sys::Uint8Array>()
        .ok_or("the worker's answer has no bytes")?;
    String::from_utf8(bytes.to_vec()).map_err(|_| "the worker's answer is not UTF-8".to_string())
}

/// Opens `input` in a new session and returns its index; the open plan's session is replaced
/// only when this succeeds. `Err` is a message for the user ("cancelled" included).
pub async fn open(
    input: Input,
    options: OpenOptions,
    on: impl Fn(Progress) + 'static,
) -> Result<Opened, String> {
    let on: OnProgress = Rc::new(on);
    // Numbered before anything waits, so opens are numbered in the order they were asked for.
    let ticket = LATEST.with(|l| {
        l.set(l.get() + 1);
        l.get()
    });
    let spare = SPARE.with(|s| s.borrow_mut().take());
    let conn = match spare {
        Some(conn) => Ok(conn),
        None => start_worker(None).await,
    };
    let result = open_in(ticket, conn, input, options, on).await;
    prepare();
    result
}

/// Starts a spare worker for the next plan, unless one is ready or starting.
pub fn prepare() {
    let busy = PREPARING.with(|p| p.get()) || SPARE.with(|s| s.borrow().is_some());
    if busy {
        return;
    }
    PREPARING.with(|p| p.set(true));
    wasm_bindgen_futures::spawn_local(async {
        if let Ok(conn) = start_worker(None).await {
            SPARE.with(|s| *s.borrow_mut() = Some(conn));
        }
        PREPARING.with(|p| p.set(false));
    });
}

/// True while no open was asked for after open `ticket`, and it was not cancelled.
fn is_latest(ticket: u64) -> bool {
    LATEST.with(|l| l.get() == ticket)
}

/// Stops the worker of the open in progress, if any: its answer will not be used.
fn stop_opening() {
    if let Some((worker, pending)) = OPENING.with(|o| o.borrow_mut().take()) {
        worker.terminate();
        // The stopped worker will not answer: end the open waiting for it.
        fail_all(&pending, "cancelled".to_string());
    }
}

async fn open_in(
    ticket: u64,
    conn: Result<Conn, String>,
    input: Input,
    options: OpenOptions,
    on: OnProgress,
) -> Result<Opened, String> {
    match conn {
        Ok(conn) => {
            // Overtaken by a later open (or cancelled) while its worker started: never register,
            // so it cannot stop the later one's worker.
            if !is_latest(ticket) {
                conn.worker.terminate();
                return Err("cancelled".to_string());
            }
            // An earlier open still running is overtaken: stop it.
            stop_opening();
            OPENING.with(|o| *o.borrow_mut() = Some((conn.worker.clone(), conn.pending.clone())));
            let message = Object::new();
            let _ = Reflect::set(&message, &"kind".into(), &"open".into());
            let options_json = serde_json::to_string(&options).unwrap_or_default();
            let _ = Reflect::set(&message, &"options".into(), &options_json.into());
            let mut transfer = None;
            match input {
                Input::File(file) => {
                    let _ = Reflect::set(&message, &"file".into(), &file);
                }
                Input::Bytes(bytes) => {
                    let buffer = js_sys::Uint8Array::from(bytes.as_slice()).buffer();
                    let _ = Reflect::set(&message, &"bytes".into(), &buffer);
                    transfer = Some(js_sys::Array::of1(&buffer));
                }
                Input::Text(text) => {
                    let _ = Reflect::set(&message, &"text".into(), &text.into());
                }
                Input::Files(files) => {
                    let (list, paths) = (js_sys::Array::new(), js_sys::Array::new());
                    for (file, path) in files {
                        list.push(&file);
                        paths.push(&JsValue::from_str(&path));
                    }
                    let _ = Reflect::set(&message, &"files".into(), &list);
                    let _ = Reflect::set(&message, &"paths".into(), &paths);
                }
            }
            let answer = call(
                &conn.worker,
                &conn.pending,
                message,
                Some(on),
                transfer.as_ref(),
            )
            .await;
            // Cancelled, or overtaken by a later open: this plan must not replace the open one.
            if !is_latest(ticket) {
                conn.worker.terminate();
                return Err("cancelled".to_string());
            }
            OPENING.with(|o| o.borrow_mut().take());
            super::timing::mark("planlens:index-decode-start");
            // The answer's JSON and the plan's text (megabytes) are decoded in separate tasks,
            // so neither holds the page for long.
            let answer_data = answer.clone().unwrap_or(JsValue::UNDEFINED);
            let response = match answer.and_then(|data| Ok((decode_answer(&data)?, data))) {
                Ok((mut response, data)) => {
                    if matches!(response, Response::Opened(_)) {
                        super::timing::next_task().await;
                        if !is_latest(ticket) {
                            conn.worker.terminate();
                            return Err("cancelled".to_string());
                        }
                    }
                    add_plan(&mut response, &data).map(|()| response)
                }
                Err(message) => Err(message),
            };
            super::timing::measure("planlens:index-decode", "planlens:index-decode-start");
            let failure = match response {
                Ok(Response::Opened(index)) => {
                    install(Backend::Worker(conn));
                    return Ok(Opened::Plan(index));
                }
                Ok(Response::Set { names, problems }) => {
                    conn.worker.terminate();
                    let texts = js_sys::Array::from(&get(&answer_data, "inputs"))
                        .iter()
                        .map(|t| t.unchecked_into::<js_sys::Uint8Array>())
                        .collect();
                    return Ok(Opened::Set {
                        names,
                        texts,
                        problems,
                    });
                }
                Ok(Response::Fleet(index)) => {
                    // The open plan (if any) stays; this worker answers the fleet's rows.
                    if let Some(old) = FLEET.with(|f| f.borrow_mut().replace(conn)) {
                        old.worker.terminate();
                    }
                    return Ok(Opened::Fleet(index));
                }
                Ok(Response::Failed(message)) | Err(message) => message,
                _ => "the worker answered something else".to_string(),
            };
            conn.worker.terminate();
            Err(failure)
        }
        Err(_) => open_here(ticket, input, options, on).await,
    }
}

/// Opens on the page itself, when no worker can be started.
async fn open_here(
    ticket: u64,
    input: Input,
    options: OpenOptions,
    on: OnProgress,
) -> Result<Opened, String> {
    // The readers' part is loaded only in a worker: here a file that needs it is refused.
    let readers = PartReaders::new();
    let session = match input {
        Input::File(file) => {
            let size = file.size();
            on(Progress::Reading {
                done: 0.0,
                total: size,
            });
            let buffer = JsFuture::from(file.array_buffer())
                .await
                .map_err(error_message)?;
            on(Progress::Parsing { bytes: size });
            // Let the page paint "Parsing…" before the (blocking) parse.
            let painted = Promise::new(&mut |resolve, _| {
                let _ = window().request_animation_frame(&resolve);
            });
            let _ = JsFuture::from(painted).await;
            Session::open_bytes(
                js_sys::Uint8Array::new(&buffer).to_vec(),
                &options,
                &readers,
            )
        }
        Input::Bytes(bytes) => Session::open_bytes(bytes, &options, &readers),
        Input::Text(text) => Session::open_text(text, &options, &readers),
        Input::Files(_) => {
            return Err(
                "Opening several files at once needs a Web Worker, which this browser \
                        did not start."
                    .to_string(),
            );
        }
    }
    .map_err(|e| e.to_string())?;
    if !is_latest(ticket) {
        return Err("cancelled".to_string());
    }
    let index = session.index(options.rules.as_deref(), &options.labels);
    install(Backend::Local(Box::new(session)));
    Ok(Opened::Plan(Box::new(index)))
}

fn install(backend: Backend) {
    // Where the open plan's session runs, for tests and for anyone checking with DevTools.
    let here = match backend {
        Backend::Worker(_) => "worker",
        Backend::Local(_) => "page",
    };
    if let Some(root) = window().document().and_then(|d| d.document_element()) {
        let _ = root.set_attribute("data-session", here);
    }
    let old = CURRENT.with(|c| c.borrow_mut().replace(backend));
    if let Some(Backend::Worker(conn)) = old {
        conn.worker.terminate();
    }
}

/// Stops the plan being opened; the open plan stays.
pub fn cancel() {
    LATEST.with(|l| l.set(l.get() + 1));
    stop_opening();
    stop_pool();
}

/// Stops the workers reading a set's plans, if any.
fn stop_pool() {
    stop_pool_saying("cancelled");
}

/// Stops the workers reading a set's plans, answering what they were asked with `message`.
fn stop_pool_saying(message: &str) {
    for (worker, pending) in POOL.with(|p| std::mem::take(&mut *p.borrow_mut())) {
        worker.terminate();
        fail_all(&pending, message.to_string());
    }
}

/// How long the set's workers may send nothing while Rego policies judge its plans: the
/// engine's own time limit for one plan, and time to read a large plan into it.
const POLICY_SILENCE_MS: i32 = 20_000;

/// Stops the set's workers when none has said anything for `limit` ms (a policy that loops
/// where the engine's own limit cannot reach); each plan read rearms it.
#[derive(Clone)]
struct Watchdog(Rc<WatchdogInner>);

struct WatchdogInner {
    limit: i32,
    timer: Cell<Option<i32>>,
    fire: Closure<dyn FnMut()>,
}

impl Watchdog {
    fn start(limit: i32) -> Watchdog {
        let fire = Closure::<dyn FnMut()>::new(move || {
            stop_pool_saying(&format!(
                "Stopped after {} s without a plan judged: a Rego policy may loop or be far too \
                 slow. Remove or mend it in the Rules tab, then open the plans again.",
                limit / 1000
            ));
        });
        let watchdog = Watchdog(Rc::new(WatchdogInner {
            limit,
            timer: Cell::new(None),
            fire,
        }));
        watchdog.rearm();
        watchdog
    }

    fn rearm(&self) {
        self.stop();
        let timer = window().set_timeout_with_callback_and_timeout_and_arguments_0(
            self.0.fire.as_ref().unchecked_ref(),
            self.0.limit,
        );
        self.0.timer.set(timer.ok());
    }

    fn stop(&self) {
        if let Some(timer) = self.0.timer.take() {
            window().clear_timeout_with_handle(timer);
        }
    }
}

/// Reads a set's plans (`names[i]`, `texts[i]`) in workers, one per core at most, each given
/// plans of about the same total size, and gives their roll-up rows in the roll-up's order with
/// the texts; `on` hears how many are done. The texts are handed to the workers (not copied) and
/// handed back with their answers, so a row can open its plan later. Cancel stops every worker
/// (and the texts are gone with them).
pub async fn rows(
    names: &[String],
    texts: Vec<js_sys::Uint8Array>,
    options: &OpenOptions,
    policies: Option<&crate::session::set::SetPolicies>,
    on: impl Fn(Progress) + 'static,
) -> Result<(Vec<crate::fleet::PlanRow>, Vec<js_sys::Uint8Array>), String> {
    let ticket = LATEST.with(|l| l.get());
    let cores = window().navigator().hardware_concurrency().max(1.0) as usize;
    let count = cores.min(names.len()).max(1);
    // Largest first, each to the least loaded worker.
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(texts[i].length()));
    let mut shares: Vec<(u64, Vec<usize>)> = vec![(0, Vec::new()); count];
    for i in order {
        if let Some(least) = shares.iter_mut().min_by_key(|(size, _)| *size) {
            least.0 += u64::from(texts[i].length());
            least.1.push(i);
        }
    }
    let mut conns = Vec::new();
    for _ in 0..count {
        let spare = SPARE.with(|s| s.borrow_mut().take());
        let conn = match spare {
            Some(conn) => conn,
            None => start_worker(None).await?,
        };
        POOL.with(|p| {
            p.borrow_mut()
                .push((conn.worker.clone(), conn.pending.clone()))
        });
        conns.push(conn);
    }
    prepare();
    if !is_latest(ticket) {
        stop_pool();
        return Err("cancelled".to_string());
    }
    let total = names.len() as f64;
    let done_by: Rc<RefCell<Vec<f64>>> = Rc::new(RefCell::new(vec![0.0; count]));
    let rows: Rc<RefCell<Vec<crate::fleet::PlanRow>>> = Rc::default();
    let failed: Rc<RefCell<Option<String>>> = Rc::default();
    let on: OnProgress = Rc::new(on);
    let options_json = serde_json::to_string(options).unwrap_or_default();
    let policies_json = policies.map(|p| serde_json::to_string(p).unwrap_or_default());
    // A policy the engine cannot interrupt would hold a worker for ever: with policies in use,
    // workers that send nothing for as long as a policy may take are stopped, saying why.
    let watchdog = policies.map(|_| Watchdog::start(POLICY_SILENCE_MS));
    let promises = js_sys::Array::new();
    for (w, (conn, (_, share))) in conns.iter().zip(&shares).enumerate() {
        let message = Object::new();
        let _ = Reflect::set(&message, &"kind".into(), &"rows".into());
        let _ = Reflect::set(&message, &"options".into(), &options_json.clone().into());
        if let Some(json) = &policies_json {
            let _ = Reflect::set(&message, &"policies".into(), &json.clone().into());
        }
        let (list_names, list_members, list_texts, transfer) = (
            js_sys::Array::new(),
            js_sys::Array::new(),
            js_sys::Array::new(),
            js_sys::Array::new(),
        );
        for &i in share {
            list_names.push(&JsValue::from_str(&names[i]));
            list_members.push(&JsValue::from(i as u32));
            transfer.push(&texts[i].buffer());
            list_texts.push(&texts[i]);
        }
        let _ = Reflect::set(&message, &"names".into(), &list_names);
        let _ = Reflect::set(&message, &"members".into(), &list_members);
        let _ = Reflect::set(&message, &"texts".into(), &list_texts);
        let (done_by, on) = (done_by.clone(), on.clone());
        let (rows, failed) = (rows.clone(), failed.clone());
        let watchdog = watchdog.clone();
        let heard: OnProgress = Rc::new(move |p: Progress| match p {
            Progress::Row(json) => match serde_json::from_str(&json) {
                Ok(row) => rows.borrow_mut().push(row),
                Err(e) => *failed.borrow_mut() = Some(format!("a plan's row does not read: {e}")),
            },
            Progress::Plans { done, .. } => {
                if let Some(watchdog) = &watchdog {
                    watchdog.rearm();
                }
                done_by.borrow_mut()[w] = done;
                let done = done_by.borrow().iter().sum();
                on(Progress::Plans { done, total });
            }
            other => on(other),
        });
        let (worker, pending) = (conn.worker.clone(), conn.pending.clone());
        promises.push(&wasm_bindgen_futures::future_to_promise(async move {
            call(&worker, &pending, message, Some(heard), Some(&transfer))
                .await
                .map_err(|e| JsValue::from_str(&e))
        }));
    }
    let answers = JsFuture::from(Promise::all(&promises))
        .await
        .map_err(error_message);
    if let Some(watchdog) = &watchdog {
        watchdog.stop();
    }
    POOL.with(|p| p.borrow_mut().clear());
    for conn in &conns {
        conn.worker.terminate();
    }
    if !is_latest(ticket) {
        return Err("cancelled".to_string());
    }
    let mut back: Vec<Option<js_sys::Uint8Array>> = vec![None; names.len()];
    for (data, (_, share)) in js_sys::Array::from(&answers?).iter().zip(&shares) {
        match decode_answer(&data)? {
            Response::Rows(_) => {}
            Response::Failed(message) => return Err(message),
            _ => return Err("the worker answered something else".to_string()),
        }
        let returned = js_sys::Array::from(&get(&data, "texts"));
        for (k, &i) in share.iter().enumerate() {
            back[i] = Some(returned.get(k as u32).unchecked_into());
        }
    }
    let texts: Vec<js_sys::Uint8Array> = back.into_iter().flatten().collect();
    if texts.len() != names.len() {
        return Err("the workers did not give the plans back".to_string());
    }
    if let Some(message) = failed.borrow_mut().take() {
        return Err(message);
    }
    let mut rows = std::mem::take(&mut *rows.borrow_mut());
    if rows.len() != names.len() {
        return Err(format!("{} of {} plans were read", rows.len(), names.len()));
    }
    crate::fleet::plans::sort(&mut rows);
    Ok((rows, texts))
}

/// Answers every question still waiting on `pending` with a failure saying `message`.
fn fail_all(pending: &Pending, message: String) {
    let failed = Object::new();
    let _ = Reflect::set(&failed, &"kind".into(), &"done".into());
    let response = serde_json::to_string(&Response::Failed(message)).unwrap_or_default();
    let _ = Reflect::set(&failed, &"response".into(), &response.into());
    for (_, (resolve, _)) in pending.borrow_mut().drain() {
        let _ = resolve.call1(&JsValue::NULL, &failed);
    }
}

/// Sends `request` to a session's worker (`{kind: "ask", request}`) and waits for the message
/// that answers it (read it with [`decode`]).
async fn ask_worker(
    worker: &web_sys::Worker,
    pending: &Pending,
    request: &Request,
) -> Result<JsValue, String> {
    let message = Object::new();
    let _ = Reflect::set(&message, &"kind".into(), &"ask".into());
    let json = serde_json::to_string(request).map_err(|e| e.to_string())?;
    let _ = Reflect::set(&message, &"request".into(), &json.into());
    call(worker, pending, message, None, None).await
}

/// Asks the open plan's session. `Err` says why there is no answer.
pub async fn ask(request: Request) -> Result<Response, String> {
    let worker = CURRENT.with(|c| match &*c.borrow() {
        Some(Backend::Worker(conn)) => Some(Ok((conn.worker.clone(), conn.pending.clone()))),
        Some(Backend::Local(_)) => None,
        None => Some(Err("no plan is open".to_string())),
    });
    match worker {
        None => CURRENT.with(|c| match &mut *c.borrow_mut() {
            Some(Backend::Local(session)) => Ok(session.answer(request, &PartReaders::new())),
            _ => Err("no plan is open".to_string()),
        }),
        Some(Err(message)) => Err(message),
        Some(Ok((worker, pending))) => {
            let data = ask_worker(&worker, &pending, &request).await?;
            decode(&data)
        }
    }
}

/// Compares the open plan with the last plan's `file` (`request` is a `Request::CompareFile`):
/// the `File` is handed to the plan's worker, which reads it (nothing of it is read or copied on
/// the page, and the request's JSON stays small). Where the session runs on the page, the page
/// reads it.
pub async fn compare_file(file: web_sys::File, request: &Request) -> Result<Response, String> {
    let worker = CURRENT.with(|c| match &*c.borrow() {
        Some(Backend::Worker(conn)) => Some((conn.worker.clone(), conn.pending.clone())),
        _ => None,
    });
    let Some((worker, pending)) = worker else {
        let buffer = JsFuture::from(file.array_buffer())
            .await
            .map_err(error_message)?;
        let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
        let Request::CompareFile { rules, labels } = request else {
            return Err("not a comparison with a file".to_string());
        };
        return CURRENT.with(|c| match &mut *c.borrow_mut() {
            Some(Backend::Local(session)) => {
                Ok(session.compare_bytes(bytes, rules.as_deref(), labels, &PartReaders::new()))
            }
            _ => Err("no plan is open".to_string()),
        });
    };
    let message = Object::new();
    let _ = Reflect::set(&message, &"kind".into(), &"compare".into());
    let json = serde_json::to_string(request).map_err(|e| e.to_string())?;
    let _ = Reflect::set(&message, &"request".into(), &json.into());
    let _ = Reflect::set(&message, &"file".into(), &file);
    decode(&call(&worker, &pending, message, None, None).await?)
}

/// Asks a lazily loaded part of the app that runs in a worker of its own (the Rego engine):
/// `fields` are the message's (the part defines them), `transfer` the buffers handed over with
/// it; the answer is the part's `answer` text. The part is fetched and started the first time
/// (`on_loading(true)` is called first and `on_loading(false)` once it has started, so the page
/// can say so). A question not answered within
/// `limit_ms` stops the part's worker — a runaway policy cannot be interrupted any other way —
/// and fails with a message; the next question starts the part again.
pub async fn ask_part(
    name: &'static str,
    fields: &[(&str, JsValue)],
    transfer: &js_sys::Array,
    limit_ms: i32,
    on_loading: impl Fn(bool),
) -> Result<String, String> {
    let running = PART_WORKERS.with(|p| p.borrow().get(name).cloned());
    let conn = match running {
        Some(conn) => conn,
        None => {
            on_loading(true);
            let started = start_worker(Some(name)).await;
            on_loading(false);
            let conn = Rc::new(started.map_err(|e| {
                format!(
                    "The {name} part of Planlens could not be loaded ({e}); reload the page to \
                     try again."
                )
            })?);
            PART_WORKERS.with(|p| p.borrow_mut().insert(name, conn.clone()));
            conn
        }
    };
    let message = Object::new();
    let _ = Reflect::set(&message, &"kind".into(), &"ask".into());
    for (key, value) in fields {
        let _ = Reflect::set(&message, &JsValue::from_str(key), value);
    }
    let pending = conn.pending.clone();
    let timer = window().set_timeout_with_callback_and_timeout_and_arguments_0(
        Closure::once_into_js(move || {
            // Too long: stop the part where it is and answer the question with why.
            if let Some(conn) = PART_WORKERS.with(|p| p.borrow_mut().remove(name)) {
                conn.worker.terminate();
            }
            fail_all(
                &pending,
                format!(
                    "Stopped after {} s without an answer: a policy may loop or be far too slow. \
                     The engine was restarted.",
                    limit_ms / 1000
                ),
            );
        })
        .unchecked_ref(),
        limit_ms,
    );
    let data = call(&conn.worker, &conn.pending, message, None, Some(transfer)).await;
    if let Ok(timer) = timer {
        window().clear_timeout_with_handle(timer);
    }
    // The part answers `{id, kind: "done", answer}`; a stopped one is failed like a session.
    let data = data?;
    if let Some(answer) = get(&data, "answer").as_string() {
        return Ok(answer);
    }
    match decode(&data)? {
        Response::Failed(message) => Err(message),
        _ => Err(format!("the {name} part gave no answer")),
    }
}

/// Runs one task (`kind`) over a set's plans in a worker of its own: the message carries the
/// options and the plans (`names`, `texts`, handed over), `add` puts the task's own fields in; the
/// worker's answer, and the texts it handed back (none when the worker failed).
async fn set_task(
    kind: &str,
    names: &[String],
    texts: Vec<js_sys::Uint8Array>,
    options: &OpenOptions,
    add: impl FnOnce(&Object),
) -> (Result<JsValue, String>, Vec<js_sys::Uint8Array>) {
    let conn = match SPARE.with(|s| s.borrow_mut().take()) {
        Some(conn) => Ok(conn),
        None => start_worker(None).await,
    };
    prepare();
    let conn = match conn {
        Ok(conn) => conn,
        Err(e) => return (Err(e), texts),
    };
    let message = Object::new();
    let _ = Reflect::set(&message, &"kind".into(), &JsValue::from_str(kind));
    let options_json = serde_json::to_string(options).unwrap_or_default();
    let _ = Reflect::set(&message, &"options".into(), &options_json.into());
    let (list_names, list_texts, transfer) = (
        js_sys::Array::new(),
        js_sys::Array::new(),
        js_sys::Array::new(),
    );
    for (name, text) in names.iter().zip(&texts) {
        list_names.push(&JsValue::from_str(name));
        list_texts.push(text);
        transfer.push(&text.buffer());
    }
    let _ = Reflect::set(&message, &"names".into(), &list_names);
    let _ = Reflect::set(&message, &"texts".into(), &list_texts);
    add(&message);
    let answer = call(&conn.worker, &conn.pending, message, None, Some(&transfer)).await;
    conn.worker.terminate();
    match answer {
        Ok(data) => {
            let back = (js_sys::Array::from(&get(&data, "texts")).iter())
                .map(|t| t.unchecked_into())
                .collect();
            (Ok(data), back)
        }
        Err(e) => (Err(e), Vec::new()),
    }
}

/// The links (the plans themselves; the redacted roll-up) and the ONE comment of a set, made by a
/// worker from the set's texts, which are handed over and handed back.
pub async fn share_set(
    names: &[String],
    texts: Vec<js_sys::Uint8Array>,
    options: &OpenOptions,
    policies: Option<&crate::session::set::SetPolicies>,
    base: &str,
) -> (
    Result<(String, String, String, bool), String>,
    Vec<js_sys::Uint8Array>,
) {
    let (answer, back) = set_task("share_set", names, texts, options, |message| {
        if let Some(policies) = policies {
            let json = serde_json::to_string(policies).unwrap_or_default();
            let _ = Reflect::set(message, &"policies".into(), &json.into());
        }
        let _ = Reflect::set(message, &"base".into(), &JsValue::from_str(base));
    })
    .await;
    let result = match answer.and_then(|data| decode_answer(&data)) {
        Ok(Response::Share {
            full,
            redacted,
            markdown,
            builtin_fallback,
        }) => Ok((full, redacted, markdown, builtin_fallback)),
        Ok(Response::Failed(message)) => Err(message),
        Ok(_) => Err("the worker answered something else".to_string()),
        Err(e) => Err(e),
    };
    (result, back)
}

/// What comparing a set with the last review's set gave: the rows since, and the older set's
/// plans (name, UTF-8 text) for its rows to open compared.
pub type SetSince = (
    Vec<crate::session::compare::PlanSince>,
    Vec<(String, js_sys::Uint8Array)>,
);

/// Compares the open set (`names`, `texts`, handed over and handed back) with the last review's
/// set, given as `files` (with their paths in a dropped folder) or, as `Err`, its set link
/// (`s=`), in a worker of its own: it reads the files, matches the plans by name and compares
/// each pair.
pub async fn compare_set(
    names: &[String],
    texts: Vec<js_sys::Uint8Array>,
    older: Result<Vec<(web_sys::File, String)>, String>,
    options: &OpenOptions,
) -> (Result<SetSince, String>, Vec<js_sys::Uint8Array>) {
    let (answer, back) = set_task(
        "compare_set",
        names,
        texts,
        options,
        |message| match &older {
            Ok(files) => {
                let (list_files, paths) = (js_sys::Array::new(), js_sys::Array::new());
                for (file, path) in files {
                    list_files.push(file);
                    paths.push(&JsValue::from_str(path));
                }
                let _ = Reflect::set(message, &"files".into(), &list_files);
                let _ = Reflect::set(message, &"paths".into(), &paths);
            }
            Err(link) => {
                let _ = Reflect::set(message, &"link".into(), &JsValue::from_str(link));
            }
        },
    )
    .await;
    let result = answer.and_then(|data| {
        let older: Vec<(String, js_sys::Uint8Array)> =
            (js_sys::Array::from(&get(&data, "older_names")).iter())
                .zip(js_sys::Array::from(&get(&data, "older_texts")).iter())
                .map(|(n, t)| (n.as_string().unwrap_or_default(), t.unchecked_into()))
                .collect();
        match decode_answer(&data)? {
            Response::SetSince(rows) => Ok((rows, older)),
            Response::Failed(message) => Err(message),
            _ => Err("the worker answered something else".to_string()),
        }
    });
    (result, back)
}

/// A fleet row's plan or state as a file (name, text), from the worker holding the fleet.
pub async fn fleet_file(link: crate::fleet::Link) -> Result<(String, String), String> {
    let (worker, pending) = FLEET
        .with(|f| {
            f.borrow()
                .as_ref()
                .map(|c| (c.worker.clone(), c.pending.clone()))
        })
        .ok_or("no fleet is open")?;
    let data = ask_worker(&worker, &pending, &Request::FleetLink { link }).await?;
    match decode(&data)? {
        Response::FleetFile { name, text } => Ok((name, text)),
        Response::Failed(message) => Err(message),
        _ => Err("the worker answered something else".to_string()),
    }
}

/// What the Rego engine needs for `request` (a `Request::PolicyInputs`) from the open plan's
/// session: the engine's request (JSON text), each file's shape, and the input texts as
/// `Uint8Array`s of UTF-8, kept as they came so they can be handed on to the engine's worker.
pub async fn policy_inputs(
    request: Request,
) -> Result<(String, Vec<Option<crate::policy::Shape>>, js_sys::Array), String> {
    let (worker, pending) = CURRENT
        .with(|c| match &*c.borrow() {
            Some(Backend::Worker(conn)) => Some((conn.worker.clone(), conn.pending.clone())),
            _ => None,
        })
        .ok_or("Rego policies need the plan's worker, and this page has none.")?;
    let data = ask_worker(&worker, &pending, &request).await?;
    match decode(&data)? {
        Response::PolicyInputs {
            request, shapes, ..
        } => Ok((request, shapes, js_sys::Array::from(&get(&data, "inputs")))),
        Response::Failed(message) => Err(message),
        _ => Err("the worker answered something else".to_string()),
    }
}
