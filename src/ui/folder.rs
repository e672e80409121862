//! Folders dropped on the page or chosen with the folder picker: every file in them, each with
//! its path inside (`live/prod/network/tfplan.json`), which names its plan in a set
//! (`load::set::names`). A drop's entries must be taken while the drop event runs
//! ([`entries`]); walking them ([`walk`]) is asynchronous. Hidden files and the folders Terraform,
//! Terragrunt and git keep their caches in are skipped.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::js::field as get;

/// Folders never read: Terraform's and Terragrunt's caches, version control, packages.
const SKIPPED: [&str; 4] = [".terraform", ".terragrunt-cache", ".git", "node_modules"];

/// The entries of a drop (`webkitGetAsEntry`), taken while its event runs; `None` when the browser
/// gives none (then the drop's files are used as they are).
pub fn entries(data: &web_sys::DataTransfer) -> Option<Vec<JsValue>> {
    let items = data.items();
    let mut out = Vec::new();
    for i in 0..items.length() {
        let item = items.get(i)?;
        let get_entry = get(&item, "webkitGetAsEntry").dyn_into::<Function>().ok()?;
        let entry = get_entry.call0(&item).ok()?;
        if !entry.is_null() && !entry.is_undefined() {
            out.push(entry);
        }
    }
    (!out.is_empty()).then_some(out)
}

/// True when a drop's entries include a folder.
pub fn has_folder(entries: &[JsValue]) -> bool {
    entries
        .iter()
        .any(|e| get(e, "isDirectory").as_bool() == Some(true))
}

/// Calls `target.method(resolve, reject)` and waits for the callback's value.
async fn callback(target: &JsValue, method: &str) -> Result<JsValue, String> {
    let f = get(target, method)
        .dyn_into::<Function>()
        .map_err(|_| format!("this browser cannot read dropped folders ({method})"))?;
    let target = target.clone();
    let promise = Promise::new(&mut |resolve, reject| {
        let _ = f.call2(&target, &resolve, &reject);
    });
    JsFuture::from(promise)
        .await
        .map_err(super::js::error_message)
}

/// Every file under the entries, in path order, each with its path (`folder/sub/file.json`).
pub async fn walk(entries: Vec<JsValue>) -> Result<Vec<(web_sys::File, String)>, String> {
    let mut out = Vec::new();
    let mut stack: Vec<JsValue> = entries.into_iter().rev().collect();
    while let Some(entry) = stack.pop() {
        let name = get(&entry, "name").as_string().unwrap_or_default();
        let path = get(&entry, "fullPath")
            .as_string()
            .unwrap_or_else(|| name.clone());
        let path = path.trim_start_matches('/').to_string();
        if get(&entry, "isDirectory").as_bool() == Some(true) {
            if SKIPPED.contains(&name.as_str()) {
                continue;
            }
            let reader = get(&entry, "createReader")
                .dyn_into::<Function>()
                .map_err(|_| "this browser cannot read dropped folders".to_string())?
                .call0(&entry)
                .map_err(super::js::error_message)?;
            // readEntries gives a batch at a time (100 in Chromium) until an empty one.
            let mut children = Vec::new();
            loop {
                let batch = js_sys::Array::from(&callback(&reader, "readEntries").await?);
                if batch.length() == 0 {
                    break;
                }
                children.extend(batch.iter());
            }
            children.sort_by_key(|c| get(c, "name").as_string().unwrap_or_default());
            stack.extend(children.into_iter().rev());
        } else if !name.starts_with('.') {
            let file = callback(&entry, "file").await?;
            if let Ok(file) = file.dyn_into::<web_sys::File>() {
                out.push((file, path));
            }
        }
    }
    Ok(out)
}

/// The path of a file chosen with a folder picker (`webkitRelativePath`), or empty.
pub fn relative_path(file: &web_sys::File) -> String {
    Reflect::get(file, &JsValue::from_str("webkitRelativePath"))
        .ok()
        .and_then(|p| p.as_string())
        .unwrap_or_default()
}
