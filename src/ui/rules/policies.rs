//! The Rules tab's Rego policies: add `.rego` files (pick several, drop them anywhere on the page,
//! or paste one), see how each was read (its input shape — conftest, Spacelift, Scalr, OPA — its
//! Rego syntax and package), choose the shape or the conftest namespaces, run the files' `test_`
//! rules, remove files. The policies are kept in this browser (`RulesState::policies`); their
//! findings join the rules' in the findings list, the verdict, the list and graph marks and the
//! comment. The engine is a lazily loaded part of the app (`part-rego`), fetched the first time.
//!
//! The engine's answer becomes findings only in the session (`policy::judge`, the CLI's function
//! too); a policy error is no verdict.

use leptos::prelude::*;

use super::state::{PolicyStatus, RulesState};
use crate::model::text::{visible, visible_lines};
use crate::policy::{PolicyFile, Shape, TestResult};
use crate::ui::AppState;

/// Adds `files` (`.rego` files chosen or dropped) to the policies, replacing any of the same name.
pub fn add_files(rules: RulesState, files: web_sys::FileList) {
    let files = crate::ui::js::files(&files);
    leptos::task::spawn_local(async move {
        let mut added = Vec::new();
        for file in files {
            let text = wasm_bindgen_futures::JsFuture::from(file.text()).await;
            if let Some(text) = text.ok().and_then(|t| t.as_string()) {
                added.push(PolicyFile::new(file.name(), text));
            }
        }
        add(rules, added);
    });
}

fn add(rules: RulesState, added: Vec<PolicyFile>) {
    rules.policies.update(|policies| {
        for file in added {
            match policies.iter_mut().find(|p| p.name == file.name) {
                Some(same) => *same = file,
                None => policies.push(file),
            }
        }
    });
}

/// True when every file of a drop is a policy (the app adds them instead of opening a plan).
pub fn all_policies(files: &web_sys::FileList) -> bool {
    files.length() > 0
        && crate::ui::js::files(files)
            .iter()
            .all(|f| f.name().to_ascii_lowercase().ends_with(".rego"))
}

const SHAPES: [(&str, &str); 5] = [
    ("", "from each file's package"),
    ("conftest", "conftest (the plan)"),
    ("spacelift", "Spacelift plan policy"),
    ("scalr", "Scalr (tfplan, tfrun)"),
    ("opa", "OPA (the plan)"),
];

/// The Rego policies section of the Rules tab.
#[component]
pub fn Policies() -> impl IntoView {
    let state = expect_context::<AppState>();
    let rs = state.rules;
    let paste_name = RwSignal::new(String::new());
    let paste_text = RwSignal::new(String::new());
    let tests: RwSignal<Option<Result<Vec<TestResult>, String>>> = RwSignal::new(None);
    let testing = RwSignal::new(false);
    let pick = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(files) = input.files() {
            add_files(rs, files);
        }
        input.set_value("");
    };
    let add_pasted = move |_| {
        let text = paste_text.get_untracked();
        if text.trim().is_empty() {
            return;
        }
        let name = paste_name.get_untracked();
        let name = match name.trim() {
            "" => format!("pasted-{}.rego", rs.policies.with_untracked(Vec::len) + 1),
            n if n.ends_with(".rego") => n.to_string(),
            n => format!("{n}.rego"),
        };
        add(rs, vec![PolicyFile::new(name, text)]);
        paste_text.set(String::new());
        paste_name.set(String::new());
    };
    let run_tests = move |_| {
        testing.set(true);
        let policies = rs.policies.get_untracked();
        leptos::task::spawn_local(async move {
            tests.set(Some(verify(policies).await));
            testing.set(false);
        });
    };
    let shape_of = move |name: &str| {
        rs.policy_status.with(|s| match s {
            PolicyStatus::Done { files, .. } => files.iter().find(|f| f.name == name).map(|f| {
                let shape = f.shape.map_or(
                    "test file: run with “Run policy tests”".to_string(),
                    |s| format!("{} input", s.label()),
                );
                format!("{shape} · Rego {} · package {}", f.syntax, f.package)
            }),
            _ => None,
        })
    };
    view! {
        <section class="policies" data-testid="policies">
            <h3>"Rego policies"</h3>
            <p class="fine">
                "Your conftest, Spacelift, Scalr or OPA policies (.rego), evaluated beside the rules: "
                <code>"deny"</code>" and "<code>"violation"</code>" need approval, "<code>"warn"</code>
                " warns. Add several files at once, drop them anywhere on this page, or paste one. "
                "They are kept in this browser only. The Rego engine is loaded the first time."
            </p>
            <div class="policy-actions">
                <label class="button">
                    "Add .rego files…"
                    <input
                        type="file"
                        multiple
                        accept=".rego,text/plain"
                        class="visually-hidden"
                        data-testid="policy-files"
                        on:change=pick
                    />
                </label>
                <label>
                    "input "
                    <select
                        data-testid="policy-shape"
                        on:change=move |ev| rs.policy_shape.set(Shape::from_key(&event_target_value(&ev)))
                    >
                        {SHAPES.into_iter().map(|(key, label)| view! {
                            <option value=key selected=move || rs.policy_shape.get().map_or("", Shape::key) == key>
                                {label}
                            </option>
                        }).collect_view()}
                    </select>
                </label>
                <label>
                    "conftest namespaces "
                    <input
                        type="text"
                        data-testid="policy-namespaces"
                        spellcheck="false"
                        placeholder="main"
                        prop:value=move || rs.namespaces.get()
                        on:change=move |ev| rs.namespaces.set(event_target_value(&ev))
                    />
                </label>
            </div>
            <PolicyStatusLine />
            <ul class="policy-files" data-testid="policy-list">
                {move || rs.policies.get().into_iter().map(|file| {
                    let name = file.name.clone();
                    let remove = name.clone();
                    let how = shape_of(&name);
                    view! {
                        <li data-testid="policy-file" data-name=name.clone()>
                            <span class="policy-name">{visible(&name)}</span>
                            <span class="fine" data-testid="policy-shape-read">{how}</span>
                            <button
                                class="link-button remove"
                                aria-label=format!("Remove {}", visible(&name))
                                data-testid="policy-remove"
                                on:click=move |_| rs.policies.update(|p| p.retain(|f| f.name != remove))
                            >"×"</button>
                        </li>
                    }
                }).collect_view()}
            </ul>
            <Show when=move || rs.policies.with(|p| !p.is_empty())>
                <button
                    class="button"
                    data-testid="policy-run-tests"
                    disabled=move || testing.get()
                    on:click=run_tests
                >
                    {move || if testing.get() { "Running the tests…" } else { "Run policy tests" }}
                </button>
            </Show>
            {move || tests.get().map(|t| match t {
                Ok(results) if results.is_empty() => view! {
                    <p class="fine" data-testid="policy-tests">"No test_ rules in these files."</p>
                }.into_any(),
                Ok(results) => {
                    let failed = results.iter().filter(|r| !r.passed).count();
                    view! {
                        <div data-testid="policy-tests">
                            <p class="fine">{format!("{} passed, {failed} failed", results.len() - failed)}</p>
                            <ul class="policy-tests">
                                {results.into_iter().map(|r| view! {
                                    <li data-testid="policy-test" data-passed=r.passed.to_string()>
                                        <span class=if r.passed { "test-pass" } else { "test-fail" }>
                                            {if r.passed { "PASS " } else { "FAIL " }}
                                        </span>
                                        {visible(&r.rule)}
                                        {r.error.map(|e| view! { <pre class="policy-error">{visible_lines(&e)}</pre> })}
                                    </li>
                                }).collect_view()}
                            </ul>
                        </div>
                    }.into_any()
                }
                Err(e) => view! {
                    <pre class="policy-error" role="alert" data-testid="policy-tests">{visible_lines(&e)}</pre>
                }.into_any(),
            })}
            <details class="policy-paste">
                <summary>"Paste a policy"</summary>
                <input
                    type="text"
                    data-testid="policy-paste-name"
                    placeholder="name.rego"
                    spellcheck="false"
                    prop:value=move || paste_name.get()
                    on:input=move |ev| paste_name.set(event_target_value(&ev))
                />
                <textarea
                    data-testid="policy-paste-text"
                    spellcheck="false"
                    rows="8"
                    placeholder="package main\n\ndeny contains msg if { … }"
                    prop:value=move || paste_text.get()
                    on:input=move |ev| paste_text.set(event_target_value(&ev))
                ></textarea>
                <button class="button" data-testid="policy-paste-add" on:click=add_pasted>"Add"</button>
            </details>
        </section>
    }
}

/// Where the policies stand: loading the engine, evaluating, how long it took, or the errors.
#[component]
fn PolicyStatusLine() -> impl IntoView {
    let state = expect_context::<AppState>();
    let rs = state.rules;
    move || {
        match rs.policy_status.get() {
        PolicyStatus::Idle => None,
        PolicyStatus::LoadingEngine => Some(view! {
            <p class="fine policy-status" role="status" data-testid="policy-status">
                <span class="spinner" aria-hidden="true"></span>
                "Loading the Rego engine (once; it is kept for next time)…"
            </p>
        }.into_any()),
        PolicyStatus::Running => Some(view! {
            <p class="fine policy-status" role="status" data-testid="policy-status">
                <span class="spinner" aria-hidden="true"></span>
                "Evaluating the policies…"
            </p>
        }.into_any()),
        PolicyStatus::Done { files, ms } => Some(view! {
            <p class="fine policy-status" data-testid="policy-status">
                {format!(
                    "{} evaluated in {ms:.0} ms.",
                    crate::model::text::count(files.iter().filter(|f| f.shape.is_some()).count(), "policy file", "policy files"),
                )}
            </p>
        }.into_any()),
        PolicyStatus::Failed(message) => Some(view! {
            <div class="banner banner-danger" role="alert" data-testid="policy-errors">
                <p>"The policies were not evaluated, so there is no verdict:"</p>
                <pre class="policy-error">{visible_lines(&message)}</pre>
            </div>
        }.into_any()),
    }
    }
}

/// Runs the policies' `test_` rules in the engine.
async fn verify(policies: Vec<PolicyFile>) -> Result<Vec<TestResult>, String> {
    let request = crate::policy::Request {
        policies,
        groups: Vec::new(),
        time_limit_ms: Some(crate::policy::DEFAULT_TIME_LIMIT_MS),
    };
    let request = serde_json::to_string(&request).map_err(|e| e.to_string())?;
    let answer = crate::ui::backend::ask_part(
        "rego",
        &[("task", "verify".into()), ("request", request.into())],
        &js_sys::Array::new(),
        20_000,
        |_| {},
    )
    .await?;
    crate::policy::read_answer(&answer)
        .map(|o| o.tests)
        .map_err(|errors| {
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        })
}
