//! The Rego engine as a lazily loaded part of the browser app (`part-rego.js` and
//! `part-rego_bg.wasm`, built by Trunk as a worker module, index.html): fetched the first time a
//! policy is added, it runs in a worker of its own (`worker.js` starts it with `part_start`), so a
//! runaway policy never blocks the page or the plan's worker, and the page can stop it
//! (`ui::backend::ask_part`). The first-visit module never contains the engine. Natively this
//! binary does nothing: the CLI calls `planlens_policy` itself. It depends on the policy crate and
//! the JavaScript bindings only.
//!
//! A plan's worker judging a set's plans loads this part into itself and calls `run_policies`
//! for each plan (the roll-up's rows), with the same request and inputs as a message carries.
//!
//! Messages: `{id, kind: "ask", task: "run" | "verify", request, inputs}` — `request` the JSON
//! text of `policy::engine::Request`, `inputs` one `Uint8Array` of UTF-8 JSON per group — answered
//! with `{id, kind: "done", answer}`, the JSON text of `policy::engine::answer_json`.
//!
//! It reads JavaScript values with a small helper of its own (it does not link the app's `ui::js`),
//! and never links the app's library; natively it exits 64.

#[cfg(target_arch = "wasm32")]
mod part {
    use std::time::Duration;

    use js_sys::{Object, Reflect};
    use planlens_policy::PolicyError;
    use planlens_policy::engine::{self, Request};
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::*;

    /// `value[key]`, or `undefined` when it cannot be read.
    fn get(value: &JsValue, key: &str) -> JsValue {
        Reflect::get(value, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    }

    /// The worker's `performance.now()`, for the engine's time limit.
    fn now() -> Option<Duration> {
        let performance = get(&js_sys::global(), "performance");
        let now = get(&performance, "now")
            .dyn_into::<js_sys::Function>()
            .ok()?;
        let ms = now.call0(&performance).ok()?.as_f64()?;
        Some(Duration::from_secs_f64(ms / 1000.0))
    }

    fn answer(data: &JsValue) -> String {
        let task = get(data, "task").as_string();
        let request = get(data, "request").as_string().unwrap_or_default();
        answer_to(task.as_deref(), &request, &get(data, "inputs"))
    }

    /// The engine's answer to `task` (`"verify"`, else run) for `request` (the JSON text of
    /// `policy::engine::Request`) on `inputs` (an array of one `Uint8Array` of UTF-8 JSON per
    /// group; `verify` has none).
    fn answer_to(task: Option<&str>, request: &str, inputs: &JsValue) -> String {
        let request = match serde_json::from_str::<Request>(request) {
            Ok(request) => request,
            Err(e) => {
                return engine::answer_json(Err(vec![PolicyError::general(format!(
                    "bad request: {e}"
                ))]));
            }
        };
        if task == Some("verify") {
            return engine::answer_json(engine::verify(&request.policies, request.time_limit_ms));
        }
        let Some(arrays) = inputs.dyn_ref::<js_sys::Array>() else {
            return engine::answer_json(Err(vec![PolicyError::general(
                "no plan was given to the policies",
            )]));
        };
        let mut inputs = Vec::with_capacity(arrays.length() as usize);
        for array in arrays.iter() {
            let bytes = js_sys::Uint8Array::new(&array).to_vec();
            match String::from_utf8(bytes) {
                Ok(text) => inputs.push(text),
                Err(_) => {
                    return engine::answer_json(Err(vec![PolicyError::general(
                        "the plan given to the policies is not UTF-8 text",
                    )]));
                }
            }
        }
        let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
        engine::answer_json(engine::run(&request, &inputs))
    }

    /// Runs `request` on `inputs` where the part was loaded into another worker rather than
    /// started in its own: a plan worker judging a set's plans one after the other calls it for
    /// each (`src/worker.rs`). The same answer as a `run` message.
    #[wasm_bindgen]
    pub fn run_policies(request: String, inputs: js_sys::Array) -> String {
        engine::use_clock(now);
        answer_to(None, &request, &inputs.into())
    }

    /// Called by `worker.js` once this part is instantiated in its worker.
    #[wasm_bindgen]
    pub fn part_start() {
        engine::use_clock(now);
        let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let on_message =
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                let data = e.data();
                let message = Object::new();
                let _ = Reflect::set(&message, &"id".into(), &get(&data, "id"));
                let _ = Reflect::set(&message, &"kind".into(), &"done".into());
                let _ = Reflect::set(&message, &"answer".into(), &answer(&data).into());
                let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
                let _ = scope.post_message(&message);
            });
        scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        // The handler lives as long as the worker.
        on_message.forget();
        let ready = Object::new();
        let _ = Reflect::set(&ready, &"kind".into(), &"ready".into());
        let _ = scope.post_message(&ready);
    }
}

fn main() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        eprintln!("part-rego is a part of the browser app, built by Trunk (see index.html).");
        std::process::exit(64);
    }
}
