//! The one part of policies that needs the Rego engine (`regorus`): policy texts and input texts
//! in, the values of the rules asked for (or test results, or errors) out, all plain serde data.
//! In the browser this runs in its own lazily loaded wasm module and worker; everything else of
//! [`super`] (shapes, input text, findings) is usable without it.
//!
//! Order of work, so that a broken policy never yields a verdict: every file is parsed (in the
//! syntax its text suggests, then in the other), every rule of every file is checked
//! ([`super::check`]: unsafe variables, undefined functions, arity, literal type errors, as OPA's
//! compiler reports them) and the engine prepares its schedule — all before any rule is
//! evaluated. What OPA's compiler evaluates before a `not` is moved before it in the text the
//! engine evaluates (the crate's private `negation` module); the checks read the text as written,
//! and every error of the engine is mapped back to it. Only then are the requested rules
//! evaluated, each group against its own input, under one time limit for the whole run.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::num::{NonZeroU32, NonZeroUsize};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use regorus::unstable::{Expr, Module, Ref};
use regorus::utils::limits::{ExecutionTimerConfig, TimeSource, set_time_source};
use regorus::{Engine, PolicyLengthConfig};
use serde::{Deserialize, Serialize};

use super::error::{PolicyError, from_engine};
use super::negation::{Rewritten, hoist_negated_operands};
use super::shape::Shape;
use super::source::{PolicyFile, Syntax};

/// What to evaluate: the policy files, and one group per input text (passed beside the request,
/// in the same order), each naming the packages whose rules it reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// Every policy file (libraries and tests included: they are parsed and checked too).
    pub policies: Vec<PolicyFile>,
    /// One group per input text.
    pub groups: Vec<Group>,
    /// Stop evaluating after this long (milliseconds, the whole run); `None`: no limit.
    pub time_limit_ms: Option<u64>,
}

/// Rules read against one input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    /// The input's shape: decides which rule names give findings ([`Shape::reads_rule`]).
    pub shape: Shape,
    /// Packages whose rules are read, as written after `package` (`main`, `spacelift`).
    pub packages: Vec<String>,
}

/// What the engine found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// Each policy file as the engine read it, in request order.
    pub files: Vec<FileReport>,
    /// The value of every rule read, in group, package and rule order; rules whose value is
    /// undefined are left out.
    pub results: Vec<RuleValue>,
    /// How many rules were read (defined or not).
    pub rules_read: usize,
    /// Test results ([`verify`] only).
    pub tests: Vec<TestResult>,
    /// For each group, the plan's top-level keys its input was cut down to (the only ones a
    /// policy can name, `super::reads`; none when the group has no rule to read, and its input
    /// is not read at all); `None`: the whole plan.
    #[serde(default)]
    pub plan_keys: Vec<Option<Vec<String>>>,
    /// For each group, the length of the input text the engine read (0: none was needed).
    #[serde(default)]
    pub input_bytes: Vec<usize>,
    /// Where the time went, when a clock is registered ([`use_clock`]; natively always).
    #[serde(default)]
    pub timings: Option<Timings>,
}

/// Where [`run`]'s time went, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Parsing and checking every policy file and preparing the engine.
    pub compile_ms: f64,
    /// Reading the input texts into the engine's values (cutting them down included).
    pub input_ms: f64,
    /// Of [`Timings::input_ms`], cutting the texts down to what the policies can read.
    #[serde(default)]
    pub cut_ms: f64,
    /// Evaluating the rules.
    pub eval_ms: f64,
}

/// Milliseconds on the registered clock, if there is one.
fn now_ms() -> Option<f64> {
    CLOCK
        .get()
        .and_then(|c| c.now())
        .map(|d| d.as_secs_f64() * 1000.0)
}

/// How a policy file was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileReport {
    /// The file's name.
    pub name: String,
    /// The syntax it parsed in.
    pub syntax: Syntax,
    /// Its package, as written (`main`, `terraform.analysis`).
    pub package: String,
}

/// The value of one rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleValue {
    /// Index of the group (and input) it was evaluated against.
    pub group: usize,
    /// The rule's full path, e.g. `data.spacelift.deny`.
    pub rule: String,
    /// Its value as JSON (a set is written as an array, sorted as the engine orders sets).
    pub value: serde_json::Value,
}

/// The result of one `test_` rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestResult {
    /// The test's full path, e.g. `data.spacelift.test_deny_destroy`.
    pub rule: String,
    /// The file that declares it.
    pub file: String,
    /// True when the rule's value is `true`, as `opa test` passes a test.
    pub passed: bool,
    /// Why it failed with an error (not just false or undefined), with file:line:column.
    pub error: Option<String>,
}

/// Evaluates the rules `request` asks for. `inputs[i]` is the JSON text of group `i`'s input.
/// Every error (parse, compile, evaluation, time limit) comes back with its file, line and column;
/// with any error there are no results at all.
pub fn run(request: &Request, inputs: &[&str]) -> Result<Outcome, Vec<PolicyError>> {
    run_with(request, inputs, true)
}

/// [`run`] with every input given to the engine whole, not cut down to what the policies can
/// read: the same results, slower (tests compare the two).
pub fn run_whole(request: &Request, inputs: &[&str]) -> Result<Outcome, Vec<PolicyError>> {
    run_with(request, inputs, false)
}

fn run_with(request: &Request, inputs: &[&str], cut: bool) -> Result<Outcome, Vec<PolicyError>> {
    if inputs.len() != request.groups.len() {
        return Err(vec![PolicyError::general(format!(
            "{} input texts for {} groups",
            inputs.len(),
            request.groups.len()
        ))]);
    }
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    use_clock(native_now);
    let started = now_ms();
    let mut loaded = Loaded::new(&request.policies, request.time_limit_ms)?;
    let mut outcome = Outcome {
        files: loaded.files.clone(),
        ..Outcome::default()
    };
    let mut timings = Timings::default();
    let mut mark = now_ms();
    if let (Some(a), Some(b)) = (started, mark) {
        timings.compile_ms = b - a;
    }
    let mut lap = |into: &mut f64| {
        let now = now_ms();
        if let (Some(a), Some(b)) = (mark, now) {
            *into += b - a;
        }
        mark = now;
    };
    // Inputs already read into the engine's values, by text: the conftest and OPA groups read the
    // same plan, and a value is shared, not read twice.
    let mut values: Vec<(Cow<str>, regorus::Value)> = Vec::new();
    for (g, (group, input)) in request.groups.iter().zip(inputs).enumerate() {
        let mut read = BTreeSet::new();
        let rules: Vec<Declared> = group
            .packages
            .iter()
            .flat_map(|package| loaded.rules_of(package))
            .filter(|rule| group.shape.reads_rule(&rule.name) && read.insert(rule.path.clone()))
            .collect();
        outcome.rules_read += rules.len();
        if rules.is_empty() {
            // Nothing of this group is read (a library's package): its input is not needed.
            outcome.plan_keys.push(Some(Vec::new()));
            outcome.input_bytes.push(0);
            continue;
        }
        let cut_started = now_ms();
        let (text, keys) = if cut {
            loaded.cut(group.shape, input)
        } else {
            (Cow::Borrowed(*input), None)
        };
        if let (Some(a), Some(b)) = (cut_started, now_ms()) {
            timings.cut_ms += b - a;
        }
        outcome
            .plan_keys
            .push(keys.map(|k| k.into_iter().collect()));
        outcome.input_bytes.push(text.len());
        let value = match values.iter().find(|(t, _)| *t == text) {
            Some((_, value)) => value.clone(),
            None => {
                let value = regorus::Value::from_json_str(&text).map_err(|e| {
                    vec![PolicyError::general(format!("the input is not JSON: {e}"))]
                })?;
                values.push((text, value.clone()));
                value
            }
        };
        loaded.engine.set_input(value);
        lap(&mut timings.input_ms);
        for (rule, value) in rules.iter().zip(loaded.eval_all(&rules)?) {
            if let Some(value) = value {
                outcome.results.push(RuleValue {
                    group: g,
                    rule: rule.path.clone(),
                    value,
                });
            }
        }
        lap(&mut timings.eval_ms);
    }
    outcome.timings = started.map(|_| timings);
    Ok(outcome)
}

/// Runs every `test_` rule of every file, as `opa test` and `conftest verify` do (no input unless
/// a test sets one `with input as …`): a test passes when its value is `true`.
pub fn verify(
    policies: &[PolicyFile],
    time_limit_ms: Option<u64>,
) -> Result<Outcome, Vec<PolicyError>> {
    let mut loaded = Loaded::new(policies, time_limit_ms)?;
    let mut outcome = Outcome {
        files: loaded.files.clone(),
        ..Outcome::default()
    };
    let tests: Vec<Declared> = loaded
        .rules
        .iter()
        .filter(|r| r.name.starts_with("test_"))
        .cloned()
        .collect();
    let mut seen = BTreeSet::new();
    for test in tests {
        if !seen.insert(test.path.clone()) {
            continue;
        }
        let (passed, error) = match loaded.eval(&test) {
            Ok(value) => (value == Some(serde_json::Value::Bool(true)), None),
            Err(errors) => (
                false,
                Some(
                    errors
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("\n"),
                ),
            ),
        };
        outcome.tests.push(TestResult {
            rule: test.path,
            file: test.file,
            passed,
            error,
        });
    }
    Ok(outcome)
}

/// [`run`] with its request and answer as JSON text, for a caller across a worker boundary:
/// the answer is `{"ok": Outcome}` or `{"errors": [PolicyError, …]}`.
pub fn run_json(request: &str, inputs: &[&str]) -> String {
    let answer = match serde_json::from_str::<Request>(request) {
        Ok(request) => run(&request, inputs),
        Err(e) => Err(vec![PolicyError::general(format!("bad request: {e}"))]),
    };
    answer_json(answer)
}

/// The JSON form of an answer: `{"ok": Outcome}` or `{"errors": [PolicyError, …]}` (read back by
/// [`super::read_answer`]).
pub fn answer_json(answer: Result<Outcome, Vec<PolicyError>>) -> String {
    let value = match answer {
        Ok(outcome) => serde_json::json!({ "ok": outcome }),
        Err(errors) => serde_json::json!({ "errors": errors }),
    };
    value.to_string()
}

/// A clock for the time limit: where `std::time::Instant` works (natively) it is used on first
/// need; in the browser, the module that hosts the engine registers one (`performance.now()`)
/// with [`use_clock`]. Without a clock the time limit is not enforced by the engine.
struct FnClock(fn() -> Option<Duration>);

impl TimeSource for FnClock {
    fn now(&self) -> Option<Duration> {
        (self.0)()
    }
}

static CLOCK: std::sync::OnceLock<FnClock> = std::sync::OnceLock::new();

/// Registers the clock the time limit reads (once per process; later calls are ignored):
/// `now` returns the time since any fixed instant.
pub fn use_clock(now: fn() -> Option<Duration>) {
    let clock = CLOCK.get_or_init(|| FnClock(now));
    // A second registration is refused by the engine and harmless: the first clock stays.
    let _ = set_time_source(clock);
}

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn native_now() -> Option<Duration> {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    Some(START.get_or_init(std::time::Instant::now).elapsed())
}

/// A rule declared in a package.
#[derive(Debug, Clone)]
struct Declared {
    /// Its package, as written.
    package: String,
    /// Its name in the package (the first part of its head's reference).
    name: String,
    /// `data.PACKAGE.NAME`.
    path: String,
    /// Where it is declared first.
    file: String,
    line: u32,
    column: u32,
}

/// The engine with every policy parsed, checked and prepared.
struct Loaded {
    engine: Engine,
    files: Vec<FileReport>,
    rules: Vec<Declared>,
    /// The static paths under `input` the policies read (`None`: the whole input).
    input_paths: Option<Vec<Vec<String>>>,
    /// What the policies can observe of the input, below the top level (`None`: the analysis
    /// could not follow them, and only [`Loaded::input_paths`] cuts).
    need: Option<super::prune::Need>,
    time_limit: Option<Duration>,
    started: Option<Duration>,
    /// The files the engine evaluates rewritten ([`super::negation`]), by name.
    rewritten: HashMap<String, Rewritten>,
    /// Which rule of [`Loaded::eval_all`]'s query the engine has reached (its marker's count).
    reached: Arc<AtomicUsize>,
}

impl Loaded {
    fn new(
        policies: &[PolicyFile],
        time_limit_ms: Option<u64>,
    ) -> Result<Loaded, Vec<PolicyError>> {
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        use_clock(native_now);
        let reached = Arc::new(AtomicUsize::new(0));
        let mut engine = new_engine(&reached);
        let mut files = Vec::new();
        let mut errors = Vec::new();
        for file in policies {
            match add(&mut engine, file) {
                Ok(report) => files.push(report),
                Err(e) => errors.push(e),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let modules: Vec<Ref<Module>> = engine.get_modules().clone();
        let errors = super::check::check(&modules);
        if !errors.is_empty() {
            return Err(errors);
        }
        let rules = declared(&modules);
        let input_paths = super::reads::input_paths(&modules);
        let need = super::prune::needs(&modules);
        let rewritten: HashMap<String, Rewritten> = modules
            .iter()
            .zip(super::check::globals(&modules))
            .filter_map(|(module, globals)| {
                let source = &module.package.refr.span().source;
                hoist_negated_operands(module, source.contents(), &globals)
                    .map(|r| (source.file().clone(), r))
            })
            .collect();
        if !rewritten.is_empty() {
            engine = rewritten_engine(policies, &files, &rewritten, &reached)?;
        }
        // Preparing (the engine's own analysis and schedule) may refuse a policy too.
        engine.eval_query("true".to_string(), false).map_err(|e| {
            vec![original_place(
                &rewritten,
                from_engine(&e, "rego_compile_error"),
            )]
        })?;
        let time_limit = time_limit_ms.map(Duration::from_millis);
        let started = time_limit.and_then(|_| CLOCK.get().and_then(|c| c.now()));
        Ok(Loaded {
            engine,
            files,
            rules,
            input_paths,
            need,
            time_limit,
            started,
            rewritten,
            reached,
        })
    }

    /// The input text the engine is given for a group of `shape`: cut down to what the
    /// policies can observe ([`super::prune`]), else to the plan keys they can name
    /// ([`super::reads`]), else whole; with the plan's top-level keys kept (`None`: all).
    fn cut<'i>(&self, shape: Shape, input: &'i str) -> (Cow<'i, str>, Option<BTreeSet<String>>) {
        if let Some(need) = &self.need
            && let Some(text) = super::prune::cut(input, need)
        {
            return (Cow::Owned(text), need.plan_keys(shape));
        }
        let keys = self
            .input_paths
            .as_ref()
            .and_then(|paths| super::reads::plan_keys(shape, paths));
        match keys
            .as_ref()
            .and_then(|keys| super::reads::pruned(input, shape, keys))
        {
            Some(text) => (Cow::Owned(text), keys),
            None => (Cow::Borrowed(input), None),
        }
    }

    fn rules_of(&self, package: &str) -> Vec<Declared> {
        self.rules
            .iter()
            .filter(|r| r.package == package)
            .cloned()
            .collect()
    }

    /// Arms the engine's timer with what is left of the time limit; `false` when nothing is.
    fn arm_timer(&mut self) -> bool {
        if let (Some(limit), Some(started)) = (self.time_limit, self.started) {
            let now = CLOCK.get().and_then(|c| c.now()).unwrap_or(started);
            let left = limit.saturating_sub(now.saturating_sub(started));
            if left.is_zero() {
                return false;
            }
            // The engine reads the clock once per this many steps: in the browser a read is a
            // call into JavaScript, and every 64 steps cost thousands of them on a 10k plan;
            // 1,024 steps still take well under a millisecond.
            self.engine
                .set_execution_timer_config(ExecutionTimerConfig {
                    limit: left,
                    check_interval: NonZeroU32::new(1024).expect("non-zero"),
                });
        }
        true
    }

    /// The error for `rule` stopped by the time limit.
    fn stopped(&self, rule: &Declared) -> Vec<PolicyError> {
        vec![PolicyError {
            file: rule.file.clone(),
            line: rule.line,
            column: rule.column,
            code: "eval_cancel_error".to_string(),
            message: format!(
                "{} was stopped: the policies ran longer than the time limit of {} ms",
                rule.path,
                self.time_limit.map_or(0, |d| d.as_millis())
            ),
        }]
    }

    /// The error for an engine's error while evaluating `rule`, in the text as written.
    fn failed(&self, rule: &Declared, error: &anyhow::Error) -> Vec<PolicyError> {
        if error.to_string().contains("exceeded time limit") {
            self.stopped(rule)
        } else {
            vec![original_place(
                &self.rewritten,
                from_engine(error, "eval_error"),
            )]
        }
    }

    /// The rule's value, evaluated on its own (a test: each starts afresh); `None` when undefined.
    fn eval(&mut self, rule: &Declared) -> Result<Option<serde_json::Value>, Vec<PolicyError>> {
        if !self.arm_timer() {
            return Err(self.stopped(rule));
        }
        let results = self
            .engine
            .eval_query(rule.path.clone(), false)
            .map_err(|e| self.failed(rule, &e))?;
        let value = results
            .result
            .into_iter()
            .next()
            .and_then(|r| r.expressions.into_iter().next())
            .map(|e| e.value)
            .unwrap_or(regorus::Value::Undefined);
        json_of(rule, value)
    }

    /// The values of `rules` (`None`: undefined), evaluated in order in one query, so the rules
    /// they share (a library's `managed_changes`) are evaluated once for all of them: each
    /// `eval_query` starts from a clean state. Each rule's value is collected as
    /// `[v | v := data.p.rule]` (empty when undefined, so the query itself always holds), and a
    /// marker before each says which rule the engine was in when it failed or was stopped.
    fn eval_all(
        &mut self,
        rules: &[Declared],
    ) -> Result<Vec<Option<serde_json::Value>>, Vec<PolicyError>> {
        let Some(first) = rules.first() else {
            return Ok(Vec::new());
        };
        if !self.arm_timer() {
            return Err(self.stopped(first));
        }
        let mut query = String::new();
        for (i, rule) in rules.iter().enumerate() {
            query.push_str(&format!(
                "{REACHED}({i})\nx{i} := [v | v := {}]\n",
                rule.path
            ));
        }
        self.reached.store(0, Ordering::Relaxed);
        let results = self.engine.eval_query(query, false).map_err(|e| {
            let at = self.reached.load(Ordering::Relaxed).min(rules.len() - 1);
            self.failed(&rules[at], &e)
        })?;
        let Some(bindings) = results.result.into_iter().next().map(|r| r.bindings) else {
            return Err(vec![PolicyError::general(format!(
                "{}: the engine gave no result",
                first.path
            ))]);
        };
        rules
            .iter()
            .enumerate()
            .map(|(i, rule)| {
                let collected = &bindings[&regorus::Value::from(format!("x{i}"))];
                let value = match collected.as_array() {
                    Ok(values) => values.first().cloned().unwrap_or(regorus::Value::Undefined),
                    Err(_) => regorus::Value::Undefined,
                };
                json_of(rule, value)
            })
            .collect()
    }
}

/// The name of the marker [`Loaded::eval_all`] calls before each rule (an extension of the
/// engine; no policy can declare a function of that name in the query's package).
const REACHED: &str = "__planlens_reached";

/// A fresh engine with Planlens's extensions: Go's `sprintf`, and the marker that records in
/// `reached` which rule of a query the engine has reached.
fn new_engine(reached: &Arc<AtomicUsize>) -> Engine {
    let mut engine = Engine::new();
    super::sprintf::register(&mut engine);
    let reached = Arc::clone(reached);
    let mark = move |args: Vec<regorus::Value>| -> anyhow::Result<regorus::Value> {
        let at = args
            .first()
            .and_then(|a| a.as_u64().ok())
            .and_then(|a| usize::try_from(a).ok())
            .unwrap_or(0);
        reached.store(at, Ordering::Relaxed);
        Ok(regorus::Value::from(true))
    };
    // Registering twice on one engine is the only failure, and each engine registers once.
    let _ = engine.add_extension(REACHED.to_string(), 1, Box::new(mark));
    engine
}

/// A rule's value as JSON; `None` when undefined.
fn json_of(
    rule: &Declared,
    value: regorus::Value,
) -> Result<Option<serde_json::Value>, Vec<PolicyError>> {
    if value == regorus::Value::Undefined {
        return Ok(None);
    }
    serde_json::to_value(&value)
        .map(Some)
        .map_err(|e| vec![PolicyError::general(format!("{}: {e}", rule.path))])
}

/// An engine holding the files as [`super::negation`] rewrote them (the others as written), each
/// in the syntax it parsed in. The rewritten lines may be longer than the engine's default limit,
/// which the files as written have already passed.
fn rewritten_engine(
    policies: &[PolicyFile],
    files: &[FileReport],
    rewritten: &HashMap<String, Rewritten>,
    reached: &Arc<AtomicUsize>,
) -> Result<Engine, Vec<PolicyError>> {
    let mut engine = new_engine(reached);
    let longest = rewritten.values().map(|r| r.text.len()).max().unwrap_or(0);
    let defaults = PolicyLengthConfig::default();
    engine.set_policy_length_config(PolicyLengthConfig {
        max_col: NonZeroU32::new(u32::try_from(longest).unwrap_or(u32::MAX).max(1))
            .map_or(defaults.max_col, |n| n.max(defaults.max_col)),
        max_file_bytes: NonZeroUsize::new(longest)
            .map_or(defaults.max_file_bytes, |n| n.max(defaults.max_file_bytes)),
        max_lines: defaults.max_lines,
    });
    for (file, report) in policies.iter().zip(files) {
        engine.set_rego_v0(report.syntax == Syntax::V0);
        let text = rewritten.get(&file.name).map_or(&file.text, |r| &r.text);
        engine
            .add_policy(file.name.clone(), text.clone())
            .map_err(|e| {
                vec![original_place(
                    rewritten,
                    from_engine(&e, "rego_parse_error"),
                )]
            })?;
    }
    Ok(engine)
}

/// `error` with its line and column in the file as written, when the engine read it rewritten.
fn original_place(rewritten: &HashMap<String, Rewritten>, mut error: PolicyError) -> PolicyError {
    if let Some(r) = rewritten.get(&error.file) {
        (error.line, error.column) = r.original_position(error.line, error.column);
    }
    error
}

/// Parses `file` in the syntax its text suggests, else in the other; a file that parses in
/// neither reports the suggested syntax's error. A file that uses `if`/`contains` as keywords
/// without importing them is v1 whatever the engine's lenient v0 parser says, as OPA's v0 parser
/// would refuse it.
fn add(engine: &mut Engine, file: &PolicyFile) -> Result<FileReport, PolicyError> {
    if let Some((line, column)) = super::source::too_deep(&file.text) {
        return Err(PolicyError {
            file: file.name.clone(),
            line,
            column,
            code: "rego_parse_error".to_string(),
            message: format!(
                "brackets nested more than {} deep: Planlens does not read such a policy (the \
                 engine would take too long to parse it)",
                super::source::MAX_BRACKET_DEPTH
            ),
        });
    }
    let first = Syntax::guess(&file.text);
    let second = match first {
        Syntax::V1 => Syntax::V0,
        Syntax::V0 => Syntax::V1,
    };
    let v1_only = super::source::uses_v1_keywords(&file.text);
    let mut errors: Vec<(Syntax, PolicyError)> = Vec::new();
    for syntax in [first, second] {
        if syntax == Syntax::V0 && v1_only {
            continue;
        }
        engine.set_rego_v0(syntax == Syntax::V0);
        match engine.add_policy(file.name.clone(), file.text.clone()) {
            Ok(_) => {
                return Ok(FileReport {
                    name: file.name.clone(),
                    syntax,
                    package: super::source::package_of(&file.text).unwrap_or_default(),
                });
            }
            Err(e) => errors.push((syntax, from_engine(&e, "rego_parse_error"))),
        }
    }
    let at = errors
        .iter()
        .position(|(syntax, _)| *syntax == first)
        .unwrap_or(0);
    Err(errors.swap_remove(at).1)
}

/// Every rule declared in `modules`, in file and declaration order.
fn declared(modules: &[Ref<Module>]) -> Vec<Declared> {
    let mut rules = Vec::new();
    for module in modules {
        let package = super::check::package_of(module);
        for rule in &module.policy {
            let refr = super::check::head_ref(rule);
            let Some(name) = super::check::ref_path(refr).and_then(|p| p.into_iter().next()) else {
                continue;
            };
            let span = head_span(refr);
            rules.push(Declared {
                path: format!("data.{package}.{name}"),
                package: package.clone(),
                name,
                file: span.source.file().clone(),
                line: span.line,
                column: span.col,
            });
        }
    }
    rules
}

fn head_span(refr: &Expr) -> &regorus::unstable::Span {
    refr.span()
}
