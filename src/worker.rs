//! The worker's side of the session (browser only): `worker.js` instantiates this module in a
//! Web Worker and calls [`worker_start`]; from then on the worker reads, decodes, parses, masks
//! and analyses the plan the page sends, keeps its [`Session`], and answers the page's requests
//! (`ui::backend` describes the messages). Nothing here renders.

use std::cell::RefCell;

use js_sys::{Object, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::load::{LoadError, MAX_FILE_BYTES};
use crate::session::{OpenOptions, Request, Response, Session};

/// Files are read in slices this large so the page's progress bar moves.
const READ_CHUNK: f64 = 16.0 * 1024.0 * 1024.0;

thread_local! {
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
}

fn scope() -> web_sys::DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
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

/// Sends an answer; an opened index's plan text goes beside the JSON, so it is not escaped.
fn reply(id: f64, mut response: Response) {
    let plan = match &mut response {
        Response::Opened(index) => Some(std::mem::take(&mut index.plan)),
        _ => None,
    };
    let json = serde_json::to_string(&response).unwrap_or_default();
    let mut fields = vec![
        ("id", JsValue::from(id)),
        ("kind", "done".into()),
        ("response", json.into()),
    ];
    if let Some(plan) = plan {
        fields.push(("plan", plan.into()));
    }
    post(&fields);
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
                Some("ask") => {
                    let request = get(&data, "request").as_string().unwrap_or_default();
                    let response = match serde_json::from_str::<Request>(&request) {
                        Ok(request) => SESSION.with(|s| match &mut *s.borrow_mut() {
                            Some(session) => session.answer(request),
                            None => Response::Failed("no plan is open".to_string()),
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
    let file = get(data, "file");
    let bytes = get(data, "bytes");
    let session = if let Some(file) = file.dyn_ref::<web_sys::File>() {
        let bytes = read_file(id, file).await?;
        progress(id, "parsing", 0.0, bytes.len() as f64);
        Session::open_bytes(bytes, &options)
    } else if let Some(buffer) = bytes.dyn_ref::<js_sys::ArrayBuffer>() {
        let bytes = js_sys::Uint8Array::new(buffer).to_vec();
        progress(id, "parsing", 0.0, bytes.len() as f64);
        Session::open_bytes(bytes, &options)
    } else {
        let text = get(data, "text").as_string().unwrap_or_default();
        progress(id, "parsing", 0.0, text.len() as f64);
        Session::open_text(text, &options)
    }
    .map_err(|e| e.to_string())?;
    let index = session.index(options.rules.as_deref(), &options.labels);
    SESSION.with(|s| *s.borrow_mut() = Some(session));
    Ok(Response::Opened(Box::new(index)))
}

/// Reads a file in slices, saying how far it got.
async fn read_file(id: f64, file: &web_sys::File) -> Result<Vec<u8>, String> {
    let size = file.size();
    if size > MAX_FILE_BYTES as f64 {
        return Err(LoadError::TooLarge {
            bytes: size as usize,
            limit: MAX_FILE_BYTES,
        }
        .to_string());
    }
    let name = file.name();
    let cannot = |e: JsValue| {
        let why = e
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_else(|| "unknown error".to_string());
        format!("Cannot read {name}: {why}")
    };
    let mut bytes = Vec::with_capacity(size as usize);
    let mut offset = 0.0;
    progress(id, "reading", 0.0, size);
    while offset < size {
        let end = (offset + READ_CHUNK).min(size);
        let blob = file.slice_with_f64_and_f64(offset, end).map_err(cannot)?;
        let buffer = JsFuture::from(blob.array_buffer()).await.map_err(cannot)?;
        let chunk = js_sys::Uint8Array::new(&buffer);
        let at = bytes.len();
        bytes.resize(at + chunk.length() as usize, 0);
        chunk.copy_to(&mut bytes[at..]);
        offset = end;
        progress(id, "reading", offset, size);
    }
    Ok(bytes)
}
