//! Planlens's side of the differential test against OPA (`scripts/opa_diff.py`), not a test by
//! itself: reads a job (JSON on stdin), opens every plan as the CLI does, evaluates every policy
//! set on it and prints, as one JSON document, each plan's text (what policies see) and each
//! set's groups, findings (rule, severity, message, address), errors and test results.
//!
//! Job: `{"plans": [PATH…], "sets": [{"name", "files": [PATH…], "namespaces": [NS…],
//! "shape": null|"conftest"|…}], "labels": {"environment": "staging"}, "time_limit_ms": 10000}`.

use std::collections::BTreeMap;
use std::io::Read;

use planlens::load::Direct;
use planlens::policy::{self, Options, PolicyFile, Shape};
use serde_json::{Value, json};

#[derive(serde::Deserialize)]
struct Job {
    plans: Vec<String>,
    sets: Vec<Set>,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    time_limit_ms: Option<u64>,
}

#[derive(serde::Deserialize)]
struct Set {
    name: String,
    files: Vec<String>,
    #[serde(default)]
    namespaces: Vec<String>,
    shape: Option<String>,
}

fn main() {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .expect("a job on stdin");
    let job: Job = serde_json::from_str(&text).expect("a job as JSON");
    let sets: Vec<(&Set, Vec<PolicyFile>)> = job
        .sets
        .iter()
        .map(|s| {
            let files = s
                .files
                .iter()
                .map(|p| {
                    let text = std::fs::read_to_string(p).expect("a readable policy file");
                    PolicyFile::new(p.clone(), text)
                })
                .collect();
            (s, files)
        })
        .collect();
    let mut plans = Vec::new();
    for path in &job.plans {
        let bytes = std::fs::read(path).expect("a readable plan");
        let name = std::path::Path::new(path)
            .file_name()
            .map_or(path.clone(), |n| n.to_string_lossy().into_owned());
        let doc = match planlens::load::load_plan_with(
            bytes,
            &name,
            &planlens::model::mask::Mask::default(),
            &Direct,
        ) {
            Ok(doc) => doc,
            Err(e) => {
                plans.push(json!({"plan": path, "load_error": e.to_string()}));
                continue;
            }
        };
        let mut results = Vec::new();
        for (set, files) in &sets {
            let options = Options {
                namespaces: set.namespaces.clone(),
                shape: set.shape.as_deref().and_then(Shape::from_key),
                time_limit_ms: job.time_limit_ms,
            };
            let context = policy::Context {
                labels: &job.labels,
                name: &doc.name,
            };
            let prepared = policy::prepare(files, doc.text(), &context, &options);
            let groups = serde_json::to_value(&prepared.request.groups).expect("serialises");
            let mut entry = json!({"set": set.name, "groups": groups});
            match policy::engine::run(&prepared.request, &prepared.input_refs()) {
                Ok(outcome) => {
                    let findings: Vec<Value> = policy::findings(&outcome, &doc)
                        .iter()
                        .map(|f| {
                            json!({
                                "rule": f.rule_id,
                                "severity": f.severity.key(),
                                "message": f.message,
                                "address": f.resource.map(|i| doc.change(&doc.rows[i]).address.to_string()),
                            })
                        })
                        .collect();
                    entry["findings"] = Value::Array(findings);
                    entry["files"] = serde_json::to_value(&outcome.files).expect("serialises");
                }
                Err(errors) => {
                    entry["errors"] = serde_json::to_value(&errors).expect("serialises");
                }
            }
            results.push(entry);
        }
        plans.push(json!({
            "plan": path,
            "name": doc.name,
            "text": doc.text(),
            "results": results,
        }));
    }
    let tests: Vec<Value> = sets
        .iter()
        .map(
            |(set, files)| match policy::engine::verify(files, job.time_limit_ms) {
                Ok(outcome) => json!({"set": set.name, "tests": outcome.tests}),
                Err(errors) => json!({"set": set.name, "errors": errors}),
            },
        )
        .collect();
    println!("{}", json!({"plans": plans, "tests": tests}));
}
