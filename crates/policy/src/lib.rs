//! Rego policies — conftest, Spacelift, Scalr and plain OPA files — evaluated on a plan, giving
//! the same findings and verdict model as the TOML rules.
//!
//! Pipeline: policy files → [`prepare`] (each file's [`Shape`] from its package, or the user's
//! choice; one input text per shape, composed around the plan's text) → [`engine::run`] (the only
//! part that needs the Rego engine: plain serde data in and out, so the browser can run it in a
//! separate wasm module and worker) → [`findings`] (each value of `deny`/`violation`/`warn` as a
//! [`Finding`], linked to the resource its message or object names).
//!
//! Both Rego syntaxes work, detected per file ([`Syntax::guess`], then the engine tries the
//! other). Every file is parsed and every rule checked before any rule runs, so a policy that
//! OPA refuses to compile gives errors (file:line:column, OPA's codes) and no verdict.
//!
//! The plan a policy sees is the document's plan text ([`Document::text`]): the file as given,
//! or the plan a log or report was converted into, with values under secret-like names marked
//! sensitive in `before_sensitive`/`after_sensitive` (marks only: values are unchanged, and a
//! policy's message may print them as it would in conftest).
//!
//! # Assumptions about regorus
//!
//! regorus is pinned exactly (`=`, in the workspace's Cargo.toml): this crate walks its
//! `unstable` syntax tree, and relies on the following, which it does not promise. Each is
//! guarded by a test in `assumptions.rs` that fails when an update breaks it.
//!
//! - **Key and set order.** The engine orders an object's keys as Rust orders strings (bytes)
//!   and compares two objects key by key in that order, a key before its value; so the cut keeps
//!   a set element's keys up to `address` verbatim (`prune::cut`), and a set comes out in the
//!   same order cut or whole: `objects_are_ordered_key_by_key_in_byte_order`,
//!   `a_set_of_cut_elements_keeps_its_order`. Of repeated keys it keeps the last, as serde's
//!   maps do (`prune::cut` reads an address so, `reads::pruned` rewrites the top level through a
//!   map): `a_repeated_key_keeps_its_last_value`. A rule's set is written as an array in the
//!   engine's order, which is the findings' order ([`RuleValue`]):
//!   `a_set_is_written_in_the_engines_order`.
//! - **serde_json's private number key.** The engine reads an object under
//!   `$serde_json::private::Number` as a number, so the cut refuses an input holding that key
//!   (`prune::cut`'s `NUMBER_KEY`); serde_json is built without `arbitrary_precision`, so numbers
//!   reach the cut as numbers: `the_private_number_key_is_read_as_a_number`.
//! - **Numbers between serde_json and the engine.** The engine reads JSON numbers through
//!   serde_json, so a number the cut writes as serde_json's shortest text reads (and prints) as
//!   the same value: `numbers_read_the_same_from_the_cut_as_from_the_plan`; a rule's value
//!   comes out to serde_json with each number's value kept (an integral float as an integer):
//!   `rule_values_keep_their_numbers`.
//! - **Regular expressions.** regorus asks for `regex` without its Unicode and Perl classes; this
//!   crate asks for them, so `regex.match` with `\d`, `\w`, `\p{L}` or `(?i)` reads as OPA reads
//!   it in the CLI as in the browser: `regex_classes_read_as_opa_reads_them`.
//!
//! # Where
//!
//! `engine::run(&Request, &[&str]) -> Result<Outcome, Vec<PolicyError>>` is the one call into the
//! engine, `run_json` the same for a worker, `verify` runs `test_` rules; a group's rules run in
//! one query, all under the time limit. The input is cut down to what the policies can observe
//! (`prune`; else the plan keys they name, `reads`). Only `engine.rs`, `check.rs`, `negation.rs`,
//! `reads.rs`, `prune/`, `walk.rs` and `sprintf.rs` use regorus, and the engine's input and output
//! are serde data, so the browser runs it as its own lazily loaded module. `findings` turns values
//! into `Finding`s linked to rows; `combine` and `judge` join them with the TOML rules' (the page's
//! session and the CLI call the same `judge`). Any error means no findings. Checked against OPA by
//! `scripts/opa_diff.py`; tests/core/policy.rs compares cut and whole inputs on every plan (a cut
//! never changes a value).

#[cfg(test)]
mod assumptions;
pub mod check;
pub mod engine;
pub mod error;
mod negation;
mod prune;
mod reads;
pub mod shape;
pub mod source;
mod sprintf;
mod walk;

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};

pub use engine::{FileReport, Outcome, Request, RuleValue, TestResult};
pub use error::PolicyError;
pub use shape::{Context, DEFAULT_NAMESPACE, Shape};
pub use source::{PolicyFile, Syntax};

use planlens_model::Document;
use planlens_model::findings::{Evaluation, Finding, RuleSeverity, Verdict};

/// How long policies may run before they are stopped, unless the caller says otherwise.
pub const DEFAULT_TIME_LIMIT_MS: u64 = 10_000;

/// What the user chose for a set of policies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// conftest namespaces (`--namespace`); empty means `main`.
    pub namespaces: Vec<String>,
    /// The shape for every file (`--input`), instead of each file's own.
    pub shape: Option<Shape>,
    /// The time limit in milliseconds; `None`: [`DEFAULT_TIME_LIMIT_MS`].
    pub time_limit_ms: Option<u64>,
}

/// An evaluation ready for the engine: the request and its input texts.
#[derive(Debug, Clone)]
pub struct Prepared<'p> {
    /// What [`engine::run`] is asked.
    pub request: Request,
    /// The input text of each of the request's groups.
    pub inputs: Vec<Cow<'p, str>>,
    /// The shape each policy file was given, in file order (`None` for a `*_test.rego` file,
    /// which only `--verify` runs).
    pub shapes: Vec<Option<Shape>>,
}

impl Prepared<'_> {
    /// The input texts as the engine takes them.
    pub fn input_refs(&self) -> Vec<&str> {
        self.inputs.iter().map(|i| i.as_ref()).collect()
    }
}

/// Chooses each file's shape and builds one input per shape in use around `plan` (the plan's
/// JSON text). conftest reads its namespaces; every other shape reads the packages of its files.
pub fn prepare<'p>(
    policies: &[PolicyFile],
    plan: &'p str,
    context: &Context<'_>,
    options: &Options,
) -> Prepared<'p> {
    let namespaces: Vec<String> = if options.namespaces.is_empty() {
        vec![DEFAULT_NAMESPACE.to_string()]
    } else {
        options.namespaces.clone()
    };
    let shapes: Vec<Option<Shape>> = policies
        .iter()
        .map(|f| (!f.is_test()).then(|| shape::shape_of(f, &namespaces, options.shape)))
        .collect();
    let mut groups: BTreeMap<Shape, Vec<String>> = BTreeMap::new();
    for (file, shape) in policies.iter().zip(&shapes) {
        let Some(shape) = *shape else { continue };
        let packages = groups.entry(shape).or_default();
        let wanted = match shape {
            Shape::Conftest => namespaces.clone(),
            _ => source::package_of(&file.text).into_iter().collect(),
        };
        for p in wanted {
            if !packages.contains(&p) {
                packages.push(p);
            }
        }
    }
    let inputs = groups
        .keys()
        .map(|&shape| shape::input_text(shape, plan, context))
        .collect();
    let request = Request {
        policies: policies.to_vec(),
        groups: groups
            .into_iter()
            .map(|(shape, packages)| engine::Group { shape, packages })
            .collect(),
        time_limit_ms: Some(options.time_limit_ms.unwrap_or(DEFAULT_TIME_LIMIT_MS)),
    };
    Prepared {
        request,
        inputs,
        shapes,
    }
}

/// The severity of a rule's findings: `warn…` warns, `deny…` and `violation…` need approval.
pub fn severity_of(rule: &str) -> RuleSeverity {
    let name = rule.rsplit('.').next().unwrap_or(rule);
    if name.starts_with("warn") {
        RuleSeverity::Warn
    } else {
        RuleSeverity::Deny
    }
}

/// The messages of one rule's value, each with the object it came from when there is one: a set
/// (or array) gives one per element, a string one, `true` one (`data.main.deny is true`), and
/// `false`, `null` or an empty set none. An element is its string, or an object's `msg`; any
/// other value is written as JSON.
pub fn messages<'v>(
    rule: &str,
    value: &'v serde_json::Value,
) -> Vec<(
    String,
    Option<&'v serde_json::Map<String, serde_json::Value>>,
)> {
    use serde_json::Value;
    let one = |v: &'v Value| match v {
        Value::String(s) => (s.clone(), None),
        Value::Object(o) => match o.get("msg") {
            Some(Value::String(s)) => (s.clone(), Some(o)),
            _ => (v.to_string(), Some(o)),
        },
        other => (other.to_string(), None),
    };
    match value {
        Value::Array(items) => items.iter().map(one).collect(),
        Value::Bool(true) => vec![(format!("{rule} is true"), None)],
        Value::Bool(false) | Value::Null => Vec::new(),
        other => vec![one(other)],
    }
}

/// Resource addresses of a document, for linking findings to rows.
pub struct Addresses<'d> {
    rows: HashMap<&'d str, usize>,
}

impl<'d> Addresses<'d> {
    /// Every row's address (the first row of an address that appears twice, as a drifted
    /// resource's).
    pub fn of(doc: &'d Document) -> Addresses<'d> {
        let mut rows = HashMap::with_capacity(doc.rows.len());
        for (i, row) in doc.rows.iter().enumerate() {
            rows.entry(doc.change(row).address.as_ref()).or_insert(i);
        }
        Addresses { rows }
    }

    /// The row a finding is about: the object's `address` (or `resource`, `resource_address`)
    /// when it names one of the plan's resources, else the first word of the message that is
    /// one (`Destroy needs approval: aws_instance.web[0]`; quotes and punctuation around a word
    /// are ignored).
    pub fn find(
        &self,
        message: &str,
        object: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> Option<usize> {
        let named = object.into_iter().flat_map(|o| {
            ["address", "resource", "resource_address"]
                .into_iter()
                .filter_map(|k| o.get(k).and_then(|v| v.as_str()))
        });
        for address in named {
            if let Some(&i) = self.rows.get(address) {
                return Some(i);
            }
        }
        message.split_whitespace().find_map(|word| {
            let trimmed = word.trim_matches(|c: char| "'`\"“”‘’,;:()<>".contains(c));
            let trimmed = trimmed.strip_suffix('.').unwrap_or(trimmed);
            self.rows
                .get(trimmed)
                .or_else(|| self.rows.get(word))
                .copied()
        })
    }
}

/// The findings of an engine outcome on `doc`: one per message of every rule read, in the
/// engine's order, linked to the resource it names.
pub fn findings(outcome: &Outcome, doc: &Document) -> Vec<Finding> {
    let addresses = Addresses::of(doc);
    let mut out = Vec::new();
    for result in &outcome.results {
        let severity = severity_of(&result.rule);
        for (message, object) in messages(&result.rule, &result.value) {
            out.push(Finding {
                rule_id: result.rule.clone(),
                severity,
                resource: addresses.find(&message, object),
                message,
            });
        }
    }
    out
}

/// `evaluation` with policy findings added: the same order as the rules' (plan-level findings
/// first, then by severity, stable), the verdict decided again, the policy rules counted.
pub fn combine(
    mut evaluation: Evaluation,
    findings: Vec<Finding>,
    rules_read: usize,
) -> Evaluation {
    // A state is judged by nothing: no policy findings either (`Analysis::evaluate` runs no
    // rules on it), so its evaluation stays empty and its verdict `NotAPlan`.
    if evaluation.planning.is_state() {
        return evaluation;
    }
    evaluation.findings.extend(findings);
    planlens_model::sort::by_key(&mut evaluation.findings, |f| {
        (f.resource.is_some(), Reverse(f.severity))
    });
    evaluation.verdict = Verdict::of(&evaluation.planning, &evaluation.findings);
    evaluation.rules_run += rules_read;
    evaluation
}

/// The id of the plan-level finding [`judge`] adds when the policies' input lacked values.
pub const PARTIAL_INPUT_RULE: &str = "planlens.policy_input_partial";

/// `evaluation` with an engine outcome's findings on `doc` added ([`findings`], [`combine`]) —
/// what the CLI and the browser's session both call. When the document does not hold every value
/// (a plan read from text, a plan log), a policy may have found nothing only because a value was
/// missing from its input: a plan-level warning says so, so the verdict is never a plain pass.
pub fn judge(evaluation: Evaluation, outcome: &Outcome, doc: &Document) -> Evaluation {
    combine(evaluation, all_findings(outcome, doc), outcome.rules_read)
}

/// What [`judge`] adds: [`findings`], and the warning that the input lacked values when it did.
pub fn all_findings(outcome: &Outcome, doc: &Document) -> Vec<Finding> {
    let mut found = findings(outcome, doc);
    if !doc.source.values_complete() {
        found.push(Finding {
            rule_id: PARTIAL_INPUT_RULE.to_string(),
            severity: RuleSeverity::Warn,
            message: format!(
                "The Rego policies read a {} that does not hold every value: a policy may have \
                 found nothing because a value it reads was missing. Check the plan's JSON \
                 (terraform show -json) for a verdict.",
                doc.source.kind()
            ),
            resource: None,
        });
    }
    found
}

/// Everything in one call, natively: shapes, inputs, the engine and findings.
pub fn evaluate(
    policies: &[PolicyFile],
    doc: &Document,
    labels: &BTreeMap<String, String>,
    options: &Options,
) -> Result<(Outcome, Vec<Finding>), Vec<PolicyError>> {
    let context = Context {
        labels,
        name: &doc.name,
    };
    let prepared = prepare(policies, doc.text(), &context, options);
    let outcome = engine::run(&prepared.request, &prepared.input_refs())?;
    let found = findings(&outcome, doc);
    Ok((outcome, found))
}

/// Reads an answer written by [`engine::answer_json`] (across a worker boundary).
pub fn read_answer(text: &str) -> Result<Outcome, Vec<PolicyError>> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Answer {
        Ok(Outcome),
        Errors(Vec<PolicyError>),
    }
    match serde_json::from_str::<Answer>(text) {
        Ok(Answer::Ok(outcome)) => Ok(outcome),
        Ok(Answer::Errors(errors)) => Err(errors),
        Err(e) => Err(vec![PolicyError::general(format!(
            "the policy engine's answer could not be read: {e}"
        ))]),
    }
}
