//! The worker's side of the session (browser only): `worker.js` instantiates this module in a
//! Web Worker and calls [`worker_start`]; from then on the worker reads, decodes, parses, masks
//! and analyses the plan the page sends, keeps its [`Session`], and answers the page's requests
//! (`ui::backend` describes the messages). Nothing here renders.
//!
//! `worker.js` imports the page's glue and instantiates the module the page sent (or, when the
//! first message names a `part`, that part), and loads parts on request (`self.planlensPart(name)`,
//! once). `open` reads one `File` in slices with progress, several `files`, bytes or text; kubectl
//! YAML goes through the YAML part; `Session::open_files` gives a plan's session or a fleet
//! (`fleet::OpenFleet`, whose links the part that read it answers). The session reads with the
//! worker's `readers_part::PartReaders`: when an open missed the readers' part
//! (`PartReaders::take_missed`), the worker loads it into them and opens the files again, so plan
//! JSON never waits for it. `ask` messages go to the one `Session` (or the fleet: `FleetLink`). It
//! reads JavaScript values with `ui::js`.
//! A `compare` message hands over the file of the plan last reviewed, read here as `open` reads
//! a file, so the comparison never goes through the page as text.
//!
//! An opened index and the Rego engine's inputs travel as transferred UTF-8 buffers (the plan text
//! beside the JSON, unescaped); the steps of an open come back as `timings`, which the page records
//! as `planlens:worker-*` measures.

use std::cell::RefCell;

use js_sys::{Object, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use planlens::load::{LoadError, MAX_FILE_BYTES};
use planlens::readers_part::PartReaders;
use planlens::session::{OpenOptions, Opened, Request, Response, Session, answer_fleet};
use planlens::ui::js::{append, error_message, field as get};

/// Files are read in slices this large so the page's progress bar moves.
const READ_CHUNK: f64 = 16.0 * 1024.0 * 1024.0;

thread_local! {
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
    /// The fleet this worker opened, if it opened one (then it holds no plan).
    static FLEET: RefCell<Option<planlens::fleet::OpenFleet>> = const { RefCell::new(None) };
    /// The last open's steps, sent with its answer.
    static TIMINGS: RefCell<Vec<(&'static str, f64)>> = const { RefCell::new(Vec::new()) };
    /// The readers the session reads with: the readers' part, once loaded ([`load_readers`]).
    static READERS: PartReaders = PartReaders::new();
    /// The texts of the plans an open found several of, sent beside its `Set` answer.
    static SET_TEXTS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// The Rego part's `run_policies`, once a set's plans needed it.
    static REGO: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
}

fn scope() -> web_sys::DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(fields: &[(&str, JsValue)]) {
    let message = Object::new();
    for (key, value) in fields {
        let _ = Reflect::set(&message, &JsValue::from_str(key), value);
    }
    let _ = scope().post_message(&message);
}

fn progress(id: f64, phase: &str, done: f64, total: f64) {
    post(&[
        ("id", id.into()),
        ("kind", "progress".into()),
        ("phase", phase.into()),
        ("done", done.into()),
        ("total", total.into()),
    ]);
}

/// Sends an answer. An opened index (megabytes for a large plan) goes as UTF-8 bytes in buffers
/// handed over to the page (transferred, not copied, and never turned into a JavaScript string
/// and back), its plan text beside the JSON so it is not escaped; other answers are small and go
/// as JSON text.
fn reply(id: f64, mut response: Response) {
    let plan = match &mut response {
        Response::Opened(index) => Some(std::mem::take(&mut index.plan)),
        _ => None,
    };
    // The Rego engine's inputs (the plan's text, megabytes) go as bytes too, and so do the
    // texts of a set's plans.
    let inputs = match &mut response {
        Response::PolicyInputs { inputs, .. } => std::mem::take(inputs),
        Response::Set { .. } => SET_TEXTS.with(|t| std::mem::take(&mut *t.borrow_mut())),
        _ => Vec::new(),
    };
    let started = js_sys::Date::now();
    let json = serde_json::to_string(&response).unwrap_or_default();
    let message = Object::new();
    let set = |key: &str, value: &JsValue| {
        let _ = Reflect::set(&message, &JsValue::from_str(key), value);
    };
    set("id", &id.into());
    set("kind", &"done".into());
    let Some(plan) = plan else {
        set("response", &json.into());
        let buffers = js_sys::Array::new();
        let arrays = js_sys::Array::new();
        for input in &inputs {
            let bytes = js_sys::Uint8Array::from(input.as_bytes());
            buffers.push(&bytes.buffer());
            arrays.push(&bytes);
        }
        set("inputs", &arrays);
        let _ = scope().post_message_with_transfer(&message, &buffers);
        return;
    };
    let json = js_sys::Uint8Array::from(json.as_bytes());
    let plan = js_sys::Uint8Array::from(plan.as_bytes());
    let mut timings = TIMINGS.with(|t| std::mem::take(&mut *t.borrow_mut()));
    timings.push(("json", js_sys::Date::now() - started));
    let timings = timings
        .iter()
        .map(|(name, ms)| format!("{name}={ms}"))
        .collect::<Vec<_>>()
        .join(",");
    set("response_bytes", &json);
    set("plan_bytes", &plan);
    set("timings", &timings.into());
    let transfer = js_sys::Array::of2(&json.buffer(), &plan.buffer());
    let _ = scope().post_message_with_transfer(&message, &transfer);
}

/// Answers a task over a set's plans: `response` as JSON, the set's texts the message carried
/// handed back (transferred, not copied), and `older` plans (a compared set's) beside them.
fn reply_with_texts(
    id: f64,
    response: &Response,
    data: &JsValue,
    older: &[planlens::load::set::Member],
) {
    let texts = js_sys::Array::from(&get(data, "texts"));
    let buffers = js_sys::Array::new();
    for t in texts.iter() {
        buffers.push(&js_sys::Uint8Array::from(t).buffer());
    }
    let json = serde_json::to_string(response).unwrap_or_default();
    let message = Object::new();
    let set = |key: &str, value: &JsValue| {
        let _ = Reflect::set(&message, &JsValue::from_str(key), value);
    };
    set("id", &id.into());
    set("kind", &"done".into());
    set("response", &json.into());
    set("texts", &texts);
    let (older_names, older_texts) = (js_sys::Array::new(), js_sys::Array::new());
    for m in older {
        let bytes = js_sys::Uint8Array::from(m.text.as_bytes());
        buffers.push(&bytes.buffer());
        older_names.push(&JsValue::from_str(&m.name));
        older_texts.push(&bytes);
    }
    set("older_names", &older_names);
    set("older_texts", &older_texts);
    let _ = scope().post_message_with_transfer(&message, &buffers);
}

/// Called by `worker.js` once this module is instantiated in the worker.
#[wasm_bindgen]
pub fn worker_start() {
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|e: web_sys::MessageEvent| {
            let data = e.data();
            let id = get(&data, "id").as_f64().unwrap_or(0.0);
            match get(&data, "kind").as_string().as_deref() {
                Some("open") => wasm_bindgen_futures::spawn_local(async move {
                    let response = match open(id, &data).await {
                        Ok(response) => response,
                        Err(message) => Response::Failed(message),
                    };
                    reply(id, response);
                }),
                Some("rows") | Some("share_set") => wasm_bindgen_futures::spawn_local(async move {
                    let response = match get(&data, "kind").as_string().as_deref() {
                        Some("share_set") => share_set(id, &data).await,
                        _ => rows(id, &data).await,
                    };
                    let response = match response {
                        Ok(response) => response,
                        Err(message) => Response::Failed(message),
                    };
                    // The plans' texts go back to the page (handed over, not copied): it keeps
                    // them for the rows to open.
                    reply_with_texts(id, &response, &data, &[]);
                }),
                Some("compare_set") => wasm_bindgen_futures::spawn_local(async move {
                    let (response, older) = match compare_set(id, &data).await {
                        Ok((rows, older)) => (Response::SetSince(rows), older),
                        Err(message) => (Response::Failed(message), Vec::new()),
                    };
                    // The set's texts go back to the page (handed over, not copied), and the
                    // older set's plans with them, for its rows to open compared.
                    reply_with_texts(id, &response, &data, &older);
                }),
                Some("compare") => wasm_bindgen_futures::spawn_local(async move {
                    let response = compare_file(id, &data)
                        .await
                        .unwrap_or_else(Response::Failed);
                    reply(id, response);
                }),
                Some("ask") => {
                    let request = get(&data, "request").as_string().unwrap_or_default();
                    let response = match serde_json::from_str::<Request>(&request) {
                        Ok(request) => SESSION.with(|s| match &mut *s.borrow_mut() {
                            Some(session) => READERS.with(|r| session.answer(request, r)),
                            None => FLEET.with(|f| match &*f.borrow() {
                                Some(fleet) => answer_fleet(fleet, request),
                                None => Response::Failed("no plan is open".to_string()),
                            }),
                        }),
                        Err(e) => Response::Failed(format!("a request does not read: {e}")),
                    };
                    reply(id, response);
                }
                _ => {}
            }
        });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    post(&[("kind", "ready".into())]);
}

/// Reads, parses and analyses what `data` carries.
async fn open(id: f64, data: &JsValue) -> Result<Response, String> {
    let options: OpenOptions =
        serde_json::from_str(&get(data, "options").as_string().unwrap_or_default())
            .map_err(|e| format!("the page's options do not read: {e}"))?;
    let mut clock = Clock::start();
    // Only this open's own readers count (an earlier request may have missed them).
    READERS.with(PartReaders::take_missed);
    let files = read_all(id, data, &options, &mut clock).await?;
    let size = files.iter().map(|(_, b)| b.len()).sum::<usize>();
    progress(id, "parsing", 0.0, size as f64);
    let mut opened = READERS.with(|r| Session::open_files(files, &options, r));
    // A text plan, a state, a plan log or a driftctl report: its reader is a part of its own,
    // loaded now (once per worker), and the file is opened again. Plan JSON never gets here.
    if READERS.with(PartReaders::take_missed) {
        progress(id, "part:readers", 0.0, 0.0);
        load_readers().await?;
        clock.lap("readers");
        let files = read_all(id, data, &options, &mut clock).await?;
        opened = READERS.with(|r| Session::open_files(files, &options, r));
    }
    let session = match opened.map_err(|e| e.to_string())? {
        Opened::Plan(session) => *session,
        Opened::Fleet(fleet) => {
            let index = fleet.index.clone();
            FLEET.with(|f| *f.borrow_mut() = Some(*fleet));
            return Ok(Response::Fleet(Box::new(index)));
        }
        // Several plans: the page has them opened by as many workers as it has cores.
        Opened::Set(set) => {
            let names = set.members.iter().map(|m| m.name.clone()).collect();
            let texts = set.members.into_iter().map(|m| m.text).collect();
            SET_TEXTS.with(|t| *t.borrow_mut() = texts);
            return Ok(Response::Set {
                names,
                problems: set.problems,
            });
        }
    };
    clock.lap("load");
    let index = session.index(options.rules.as_deref(), &options.labels);
    clock.lap("index");
    SESSION.with(|s| *s.borrow_mut() = Some(session));
    TIMINGS.with(|t| *t.borrow_mut() = clock.laps);
    Ok(Response::Opened(Box::new(index)))
}

/// Compares the open plan with the last plan's `file` (a `File` the page handed over, read here
/// like an opened file: the page never reads it), under the `request`'s rules and labels
/// (`Request::CompareFile`). A file that needs the readers' part waits for it, once.
async fn compare_file(id: f64, data: &JsValue) -> Result<Response, String> {
    let request = get(data, "request").as_string().unwrap_or_default();
    let Ok(Request::CompareFile { rules, labels }) = serde_json::from_str(&request) else {
        return Err("the comparison's request does not read".to_string());
    };
    let file: web_sys::File = get(data, "file")
        .dyn_into()
        .map_err(|_| "the last plan's file was not sent".to_string())?;
    let compare = |bytes| {
        SESSION.with(|s| match &mut *s.borrow_mut() {
            Some(session) => {
                READERS.with(|r| session.compare_bytes(bytes, rules.as_deref(), &labels, r))
            }
            None => Response::Failed("no plan is open".to_string()),
        })
    };
    READERS.with(PartReaders::take_missed);
    let bytes = from_yaml(id, read_file(id, &file, 0.0, file.size()).await?).await?;
    let answer = compare(bytes);
    if !READERS.with(PartReaders::take_missed) {
        return Ok(answer);
    }
    progress(id, "part:readers", 0.0, 0.0);
    load_readers().await?;
    let bytes = from_yaml(id, read_file(id, &file, 0.0, file.size()).await?).await?;
    Ok(compare(bytes))
}

/// Compares the set `data` carries (`names`, `texts`: the open roll-up's plans) with the last
/// review's set, given as its `files` (read here as an open reads them: folders, archives, several
/// plans in a text) or its set `link` (`s=`), plan by plan (`session::compare::sets_since`). Gives the rows and the older
/// set's plans.
async fn compare_set(
    id: f64,
    data: &JsValue,
) -> Result<
    (
        Vec<planlens::session::compare::PlanSince>,
        Vec<planlens::load::set::Member>,
    ),
    String,
> {
    let options: OpenOptions =
        serde_json::from_str(&get(data, "options").as_string().unwrap_or_default())
            .map_err(|e| format!("the page's options do not read: {e}"))?;
    let rules = planlens::session::set::rule_set(options.rules.as_deref())
        .unwrap_or_else(|_| planlens::rules::RuleSet::builtin());
    let older = match get(data, "link").as_string() {
        Some(link) => set_link_members(&link)?,
        None => read_older(id, data, &options).await?,
    };
    let names = js_sys::Array::from(&get(data, "names"));
    let texts = js_sys::Array::from(&get(data, "texts"));
    let newer: Vec<_> = (0..names.length())
        .map(|i| member(&names, &texts, i))
        .collect();
    let mask = options.mask();
    let rows = READERS.with(|r| {
        planlens::session::compare::sets_since(&older, &newer, &rules, &options.labels, &mask, r)
    });
    Ok((rows, older))
}

/// The plans a Planlens set link carries (`s=`); a redacted roll-up (`ru=`) carries none.
fn set_link_members(link: &str) -> Result<Vec<planlens::load::set::Member>, String> {
    let fragment =
        planlens::load::fragment::Fragment::parse(link.split_once('#').map_or("", |(_, h)| h));
    if fragment.rollup.is_some() {
        return Err(
            "A redacted roll-up link (ru=) carries no plans to compare: use the full \
                    link of the plans (s=) or their files."
                .to_string(),
        );
    }
    let payload = fragment.set.ok_or_else(|| {
        "This link carries no set of plans (s=): give the last review's set link or its files."
            .to_string()
    })?;
    planlens::load::link::decode(&payload)
        .map_err(|e| e.to_string())
        .and_then(|json| planlens::load::set::read_payload(&json).map_err(|e| e.to_string()))
        .map_err(|e| format!("This link's plans cannot be read: {e}"))
}

/// The last review's set from the `files` a message carries, read as an open reads them.
async fn read_older(
    id: f64,
    data: &JsValue,
    options: &OpenOptions,
) -> Result<Vec<planlens::load::set::Member>, String> {
    let mut clock = Clock::start();
    let open_older = |files| READERS.with(|r| Session::open_files(files, options, r));
    READERS.with(PartReaders::take_missed);
    let mut older = open_older(read_all(id, data, options, &mut clock).await?);
    if READERS.with(PartReaders::take_missed) {
        load_readers().await?;
        older = open_older(read_all(id, data, options, &mut clock).await?);
    }
    Ok(match older.map_err(|e| e.to_string())? {
        Opened::Set(set) => set.members,
        Opened::Plan(session) => vec![planlens::load::set::Member {
            name: session.document().name.clone(),
            text: session.document().source_text().to_string(),
        }],
        Opened::Fleet(_) => {
            return Err(
                "These files are tf-controller workspaces, not the plans of a review.".to_string(),
            );
        }
    })
}

/// Opens the plans of a set `data` carries (`names`, `members` — their places in the set —
/// and `texts`, UTF-8 bytes) one after the other, sending each one's roll-up row with the
/// progress that counts it (`row`, JSON), then an empty `Rows` answer. A plan that needs the
/// readers' part waits for it, once.
async fn rows(id: f64, data: &JsValue) -> Result<Response, String> {
    let options: OpenOptions =
        serde_json::from_str(&get(data, "options").as_string().unwrap_or_default())
            .map_err(|e| format!("the page's options do not read: {e}"))?;
    // Rules that do not parse judge with the built-in pack here; the Rules tab shows why.
    let rules = planlens::session::set::rule_set(options.rules.as_deref())
        .unwrap_or_else(|_| planlens::rules::RuleSet::builtin());
    let policies = set_policies(data)?;
    let names = js_sys::Array::from(&get(data, "names"));
    let members = js_sys::Array::from(&get(data, "members"));
    let texts = js_sys::Array::from(&get(data, "texts"));
    let total = names.length() as f64;
    for i in 0..names.length() {
        let member = member(&names, &texts, i);
        let index = members.get(i).as_f64().unwrap_or(0.0) as usize;
        let (row, _) = judge_member(id, &member, index, &options, &rules, &policies).await?;
        // Each row goes to the page as it is made: the page reads one small row at a time, never
        // all of a large set's rows in one task.
        post(&[
            ("id", id.into()),
            ("kind", "progress".into()),
            ("phase", "plans".into()),
            ("done", (i as f64 + 1.0).into()),
            ("total", total.into()),
            (
                "row",
                serde_json::to_string(&row).unwrap_or_default().into(),
            ),
        ]);
    }
    Ok(Response::Rows(Vec::new()))
}

/// Plan `i` of the set a message carries (`names`, `texts` as UTF-8 bytes).
fn member(names: &js_sys::Array, texts: &js_sys::Array, i: u32) -> planlens::load::set::Member {
    planlens::load::set::Member {
        name: names.get(i).as_string().unwrap_or_default(),
        text: String::from_utf8_lossy(&js_sys::Uint8Array::new(&texts.get(i)).to_vec())
            .into_owned(),
    }
}

/// The Rego policies a set's plans are judged with (`policies`, JSON of
/// `session::set::SetPolicies`; none when absent).
fn set_policies(data: &JsValue) -> Result<planlens::session::set::SetPolicies, String> {
    match get(data, "policies").as_string() {
        Some(json) => {
            serde_json::from_str(&json).map_err(|e| format!("the page's policies do not read: {e}"))
        }
        None => Ok(Default::default()),
    }
}

/// Opens a set's plan and makes its row as [`read_member`] does, then, with Rego policies in
/// use, has the engine judge it (the Rego part, loaded into this worker once, called for each
/// plan): the row's findings and verdict are the rules' and the policies', as the CLI's are.
async fn judge_member(
    id: f64,
    member: &planlens::load::set::Member,
    index: usize,
    options: &OpenOptions,
    rules: &planlens::rules::RuleSet,
    policies: &planlens::session::set::SetPolicies,
) -> Result<(planlens::fleet::PlanRow, Option<Session>), String> {
    let (row, session) = read_member(id, member, index, options, rules).await?;
    let Some(session) = session else {
        return Ok((row, None));
    };
    let Some(prepared) = session.set_policy_inputs(&member.name, rules, &options.labels, policies)
    else {
        return Ok((row, Some(session)));
    };
    let request = serde_json::to_string(&prepared.request).unwrap_or_default();
    let inputs = js_sys::Array::new();
    for input in &prepared.inputs {
        inputs.push(&js_sys::Uint8Array::from(input.as_bytes()));
    }
    drop(prepared);
    let answer = run_policies(id, request, inputs).await?;
    let row = session.plan_row_judged(&member.name, index, rules, &options.labels, &answer);
    Ok((row, Some(session)))
}

/// The Rego engine's answer for `request` on `inputs`, from the Rego part loaded into this
/// worker (the first time, with a progress message saying so).
async fn run_policies(id: f64, request: String, inputs: js_sys::Array) -> Result<String, String> {
    let loaded = REGO.with(|r| r.borrow().clone());
    let run = match loaded {
        Some(run) => run,
        None => {
            progress(id, "part:rego", 0.0, 0.0);
            let bindings = part("rego").await?;
            let run = get(&bindings, "run_policies")
                .dyn_into::<js_sys::Function>()
                .map_err(|_| "the Rego part cannot judge plans here".to_string())?;
            REGO.with(|r| *r.borrow_mut() = Some(run.clone()));
            run
        }
    };
    run.call2(&JsValue::NULL, &JsValue::from_str(&request), &inputs)
        .map_err(error_message)?
        .as_string()
        .ok_or_else(|| "the Rego part's answer is not text".to_string())
}

/// Opens a set's plan (`index`: its place in the set) with the worker's readers and makes its
/// row (`session::set::row_of`); a plan that needs the readers' part waits for it, once.
async fn read_member(
    id: f64,
    member: &planlens::load::set::Member,
    index: usize,
    options: &OpenOptions,
    rules: &planlens::rules::RuleSet,
) -> Result<(planlens::fleet::PlanRow, Option<Session>), String> {
    let read =
        || READERS.with(|r| planlens::session::set::row_of(member, index, options, rules, r));
    READERS.with(PartReaders::take_missed);
    let read_once = read();
    if !READERS.with(PartReaders::take_missed) {
        return Ok(read_once);
    }
    progress(id, "part:readers", 0.0, 0.0);
    load_readers().await?;
    Ok(read())
}

/// The links and the comment of a set `data` carries (`names`, `texts`, `base`, `options`):
/// every plan opened and stripped as a full link strips it, then `share::set`'s link of the
/// plans (or the redacted roll-up when that is too long for a comment) and its ONE comment.
async fn share_set(id: f64, data: &JsValue) -> Result<Response, String> {
    use planlens::session::share::markdown::choose_link;
    use planlens::session::share::set as share;
    let options: OpenOptions =
        serde_json::from_str(&get(data, "options").as_string().unwrap_or_default())
            .map_err(|e| format!("the page's options do not read: {e}"))?;
    let base = get(data, "base").as_string().unwrap_or_default();
    let (rules, builtin_fallback) = match planlens::session::set::rule_set(options.rules.as_deref())
    {
        Ok(rules) => (rules, false),
        Err(_) => (planlens::rules::RuleSet::builtin(), true),
    };
    let policies = set_policies(data)?;
    let names = js_sys::Array::from(&get(data, "names"));
    let texts = js_sys::Array::from(&get(data, "texts"));
    let mut rows = Vec::new();
    let mut stripped = Vec::new();
    for i in 0..names.length() {
        let member = member(&names, &texts, i);
        let (row, session) =
            judge_member(id, &member, i as usize, &options, &rules, &policies).await?;
        let text = session
            .as_ref()
            .map(|s| planlens::share::strip::shareable_text(s.document()))
            .unwrap_or(member.text);
        stripped.push(planlens::load::set::Member {
            name: member.name,
            text,
        });
        rows.push(row);
    }
    planlens::fleet::plans::sort(&mut rows);
    let view = planlens::load::fragment::LinkView {
        rules: options.rules.as_deref().map(planlens::load::link::encode),
        environment: options.labels.get("environment").cloned(),
        ..Default::default()
    };
    let full = share::set_link(&base, &stripped, &view);
    let redacted = share::rollup_link(&base, &rows, &view);
    let link = choose_link(Some(full.clone()), None, redacted.clone());
    let markdown = share::comment(&rows, &[], Some(&link));
    Ok(Response::Share {
        full,
        redacted,
        markdown,
        builtin_fallback,
    })
}

/// The files `data` carries (name, bytes), YAML made JSON.
async fn read_all(
    id: f64,
    data: &JsValue,
    options: &OpenOptions,
    clock: &mut Clock,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let file = get(data, "file");
    let bytes = get(data, "bytes");
    let files = get(data, "files");
    let mut read = Vec::new();
    if let Some(list) = files.dyn_ref::<js_sys::Array>() {
        // Several files chosen or dropped together (a fleet, a set of plans, a folder): read
        // one after the other, each under its path in the folder when it has one.
        let paths = js_sys::Array::from(&get(data, "paths"));
        let all: f64 = (list.iter())
            .filter_map(|f| f.dyn_ref::<web_sys::File>().map(|f| f.size()))
            .sum();
        let mut before = 0.0;
        for (i, file) in list.iter().enumerate() {
            if let Some(file) = file.dyn_ref::<web_sys::File>() {
                let name = paths
                    .get(i as u32)
                    .as_string()
                    .filter(|p| !p.is_empty())
                    .unwrap_or_else(|| file.name());
                read.push((name, read_file(id, file, before, all).await?));
                before += file.size();
            }
        }
    } else if let Some(file) = file.dyn_ref::<web_sys::File>() {
        read.push((
            options.name.clone(),
            read_file(id, file, 0.0, file.size()).await?,
        ));
    } else if let Some(buffer) = bytes.dyn_ref::<js_sys::ArrayBuffer>() {
        read.push((
            options.name.clone(),
            js_sys::Uint8Array::new(buffer).to_vec(),
        ));
    } else {
        let text = get(data, "text").as_string().unwrap_or_default();
        read.push((options.name.clone(), text.into_bytes()));
    }
    clock.lap("read");
    let mut files = Vec::with_capacity(read.len());
    for (name, bytes) in read {
        files.push((name, from_yaml(id, bytes).await?));
    }
    clock.lap("yaml");
    Ok(files)
}

/// Loads the readers' part (`part-readers`) into this worker's readers ([`READERS`]), which call
/// its export synchronously from then on.
async fn load_readers() -> Result<(), String> {
    let bindings = part("readers").await?;
    let read = get(&bindings, "read")
        .dyn_into::<js_sys::Function>()
        .map_err(|_| "the readers' part has no reader".to_string())?;
    let part = Box::new(move |reader: &str, name: &str, text: &str| {
        let args = js_sys::Array::of3(
            &JsValue::from_str(reader),
            &JsValue::from_str(name),
            &JsValue::from_str(text),
        );
        read.apply(&JsValue::NULL, &args)
            .map_err(error_message)?
            .as_string()
            .ok_or_else(|| "its answer is not text".to_string())
    });
    READERS.with(|r| r.load(part));
    Ok(())
}

/// Milliseconds spent in each step of an open, sent with the answer so the page can record them
/// (`planlens:worker-*` measures, read by scripts/bench.mjs).
struct Clock {
    at: f64,
    laps: Vec<(&'static str, f64)>,
}

impl Clock {
    fn start() -> Clock {
        Clock {
            at: js_sys::Date::now(),
            laps: Vec::new(),
        }
    }

    fn lap(&mut self, name: &'static str) {
        let now = js_sys::Date::now();
        self.laps.push((name, now - self.at));
        self.at = now;
    }
}

/// Kubernetes objects as YAML (`kubectl get … -o yaml`) become the same objects as JSON, through
/// the YAML part, fetched the first time it is needed (the page shows "Loading the YAML reader…").
/// Anything else is returned as it is. Only plain text is looked at: the YAML of a compressed file
/// is not recognised here, and the reader then says YAML must be opened uncompressed.
async fn from_yaml(id: f64, bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    // The start is enough to tell (a plan's first line is `{`); a 100 MB plan is not scanned.
    let start = &bytes[..bytes.len().min(64 * 1024)];
    let start = match std::str::from_utf8(start) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&start[..e.valid_up_to()]).unwrap_or_default(),
    };
    if !planlens::load::yaml::looks_like_kube_yaml(start) {
        return Ok(bytes);
    }
    progress(id, "part:yaml", 0.0, 0.0);
    let bindings = part("yaml").await?;
    let convert = get(&bindings, "yaml_to_json")
        .dyn_into::<js_sys::Function>()
        .map_err(|_| "the YAML part has no reader".to_string())?;
    let text = String::from_utf8(bytes).map_err(|_| {
        "This YAML is not UTF-8 text: save it as UTF-8 and open it again.".to_string()
    })?;
    let json = convert
        .call1(&JsValue::NULL, &JsValue::from_str(&text))
        .map_err(|e| format!("This YAML does not read: {}", error_message(e)))?;
    Ok(json.as_string().unwrap_or_default().into_bytes())
}

/// A lazily loaded part of the app (`worker.js` fetches and instantiates it once): its bindings.
async fn part(name: &str) -> Result<JsValue, String> {
    let load = get(&js_sys::global(), "planlensPart")
        .dyn_into::<js_sys::Function>()
        .map_err(|_| "this worker cannot load parts".to_string())?;
    let promise = load
        .call1(&JsValue::NULL, &JsValue::from_str(name))
        .map_err(error_message)?;
    JsFuture::from(js_sys::Promise::from(promise))
        .await
        .map_err(|e| {
            // Parts are downloaded the first time a file needs one and kept for offline use from
            // then on (scripts/service-worker.mjs): offline, a part never used cannot be had.
            format!(
                "The {name} part of Planlens could not be loaded ({}). It is downloaded the first \
                 time a file needs it and kept for offline use after that: connect to the network \
                 and open the file again.",
                error_message(e)
            )
        })
}

/// Reads a file in slices, saying how far it got: of several files read one after the other,
/// `before` bytes were read already and `all` is their total.
async fn read_file(
    id: f64,
    file: &web_sys::File,
    before: f64,
    all: f64,
) -> Result<Vec<u8>, String> {
    let size = file.size();
    if size > MAX_FILE_BYTES as f64 {
        return Err(LoadError::TooLarge {
            bytes: size as usize,
            limit: MAX_FILE_BYTES,
        }
        .to_string());
    }
    let name = file.name();
    let cannot = |e: JsValue| format!("Cannot read {name}: {}", error_message(e));
    let mut bytes = Vec::with_capacity(size as usize);
    let mut offset = 0.0;
    progress(id, "reading", before, all);
    while offset < size {
        let end = (offset + READ_CHUNK).min(size);
        let blob = file.slice_with_f64_and_f64(offset, end).map_err(cannot)?;
        let buffer = JsFuture::from(blob.array_buffer()).await.map_err(cannot)?;
        append(&mut bytes, &js_sys::Uint8Array::new(&buffer));
        offset = end;
        progress(id, "reading", before + offset, all);
    }
    Ok(bytes)
}
