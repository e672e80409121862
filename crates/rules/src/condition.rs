//! Compiled conditions: selectors on a resource's identity, operators on values, the count of an
//! aggregate. Everything here is decided at parse time so that evaluation only compares.

use regex_lite::Regex;
use serde_json::Value;
use wildmatch::WildMatch;

use super::path::{PathRoot, Step};
use planlens_changes::drift::Severity as DriftSeverity;
use planlens_model::{Action, Mode, ReplaceOrder};

/// The names `actions = [...]` accepts, in the order error messages list them.
pub(crate) const ACTION_NAMES: [&str; 9] = [
    "create", "update", "delete", "replace", "read", "no-op", "forget", "import", "move",
];

/// A set of planned actions as bits, plus the import and move flags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ActionSet {
    bits: u16,
    import: bool,
    moves: bool,
}

fn bit(action: Action) -> u16 {
    1 << match action {
        Action::NoOp => 0,
        Action::Create => 1,
        Action::Read => 2,
        Action::Update => 3,
        Action::Replace(ReplaceOrder::DeleteThenCreate) => 4,
        Action::Replace(ReplaceOrder::CreateThenDelete) => 5,
        Action::Replace(ReplaceOrder::CreateThenForget) => 6,
        Action::Delete => 7,
        Action::Forget => 8,
    }
}

impl ActionSet {
    /// Adds the actions one name stands for; false for an unknown name.
    pub(crate) fn add(&mut self, name: &str) -> bool {
        use Action::*;
        use ReplaceOrder::*;
        let actions: &[Action] = match name {
            // Every replace creates a new object.
            "create" => &[
                Create,
                Replace(DeleteThenCreate),
                Replace(CreateThenDelete),
                Replace(CreateThenForget),
            ],
            "update" => &[Update],
            // Both replace orders destroy the old object; create-then-forget leaves it alone in
            // the cloud, so it is a forget, not a delete.
            "delete" => &[Delete, Replace(DeleteThenCreate), Replace(CreateThenDelete)],
            "replace" => &[
                Replace(DeleteThenCreate),
                Replace(CreateThenDelete),
                Replace(CreateThenForget),
            ],
            "read" => &[Read],
            "no-op" => &[NoOp],
            "forget" => &[Forget, Replace(CreateThenForget)],
            "import" => {
                self.import = true;
                &[]
            }
            "move" => {
                self.moves = true;
                &[]
            }
            _ => return false,
        };
        for a in actions {
            self.bits |= bit(*a);
        }
        true
    }

    /// True when the resource's action (or its import/move flag) is in the set.
    pub(crate) fn matches(&self, action: Action, is_import: bool, is_move: bool) -> bool {
        self.bits & bit(action) != 0 || (self.import && is_import) || (self.moves && is_move)
    }
}

/// A `*`/`?` glob, with the common shapes matched without the general algorithm.
#[derive(Debug, Clone)]
pub(crate) enum Glob {
    /// No wildcard: the whole string.
    Exact(String),
    /// `prefix*`.
    Prefix(String),
    /// Anything else.
    Wild(WildMatch),
}

impl Glob {
    /// Compiles a pattern; `[` and `]` are literal, so addresses need no escaping.
    pub(crate) fn new(pattern: &str) -> Glob {
        let wild = |c: char| c == '*' || c == '?';
        match pattern.find(wild) {
            None => Glob::Exact(pattern.to_string()),
            Some(at) if at == pattern.len() - 1 && pattern.ends_with('*') => {
                Glob::Prefix(pattern[..at].to_string())
            }
            Some(_) => Glob::Wild(WildMatch::new(pattern)),
        }
    }

    /// True when `text` matches the whole pattern.
    pub(crate) fn matches(&self, text: &str) -> bool {
        match self {
            Glob::Exact(s) => s == text,
            Glob::Prefix(p) => text.starts_with(p.as_str()),
            Glob::Wild(w) => w.matches(text),
        }
    }
}

/// Globs of one selector: a resource matches when any of them does.
#[derive(Debug, Clone, Default)]
pub(crate) struct GlobList(pub(crate) Vec<Glob>);

impl GlobList {
    /// True when no selector was given or one pattern matches.
    pub(crate) fn matches(&self, text: &str) -> bool {
        self.0.is_empty() || self.0.iter().any(|g| g.matches(text))
    }
}

/// The `drift` selector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DriftFilter {
    /// Drifted, either severity.
    Any,
    /// Only the given severity.
    Exactly(DriftSeverity),
    /// Not drifted.
    None,
}

impl DriftFilter {
    /// The names `drift = …` accepts.
    pub(crate) const NAMES: [&str; 5] = ["any", "minor", "structural", "not-relevant", "none"];

    /// The filter for a name.
    pub(crate) fn from_name(name: &str) -> Option<DriftFilter> {
        Some(match name {
            "any" => DriftFilter::Any,
            "minor" => DriftFilter::Exactly(DriftSeverity::Minor),
            "structural" => DriftFilter::Exactly(DriftSeverity::Structural),
            "not-relevant" => DriftFilter::Exactly(DriftSeverity::NotRelevant),
            "none" => DriftFilter::None,
            _ => return None,
        })
    }

    /// True when the resource's drift passes the filter.
    pub(crate) fn matches(self, drift: Option<DriftSeverity>) -> bool {
        match self {
            DriftFilter::Any => drift.is_some(),
            DriftFilter::Exactly(s) => drift == Some(s),
            DriftFilter::None => drift.is_none(),
        }
    }
}

/// Which resources a rule looks at; every field left unset matches everything.
#[derive(Debug, Clone, Default)]
pub(crate) struct Selectors {
    pub(crate) actions: Option<ActionSet>,
    pub(crate) mode: Option<Mode>,
    pub(crate) types: GlobList,
    pub(crate) addresses: GlobList,
    pub(crate) modules: GlobList,
    pub(crate) providers: GlobList,
    pub(crate) drift: Option<DriftFilter>,
}

/// The operators a condition may use, in the order error messages list them.
pub(crate) const OPERATORS: [&str; 11] = [
    "equals",
    "not_equals",
    "in",
    "not_in",
    "lt",
    "gt",
    "le",
    "ge",
    "regex",
    "exists",
    "changed",
];

/// One operator with its operand, tested against a value that may be missing.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    Equals(Value),
    NotEquals(Value),
    In(Vec<Value>),
    NotIn(Vec<Value>),
    Lt(f64),
    Gt(f64),
    Le(f64),
    Ge(f64),
    Regex(Regex),
    Exists(bool),
}

impl Op {
    /// Tests a value; `None` is a missing value (absent, null or known only after apply).
    /// Positive tests fail on a missing value and negative ones hold, so a guardrail such as
    /// "not in prod" fires when it cannot tell.
    pub(crate) fn test(&self, value: Option<&Value>) -> bool {
        let value = value.filter(|v| !v.is_null());
        match self {
            Op::Equals(want) => value.is_some_and(|v| json_eq(v, want)),
            Op::NotEquals(want) => !value.is_some_and(|v| json_eq(v, want)),
            Op::In(set) => value.is_some_and(|v| set.iter().any(|w| json_eq(v, w))),
            Op::NotIn(set) => !value.is_some_and(|v| set.iter().any(|w| json_eq(v, w))),
            Op::Lt(n) => number(value).is_some_and(|v| v < *n),
            Op::Gt(n) => number(value).is_some_and(|v| v > *n),
            Op::Le(n) => number(value).is_some_and(|v| v <= *n),
            Op::Ge(n) => number(value).is_some_and(|v| v >= *n),
            Op::Regex(re) => matches!(value, Some(Value::String(s)) if re.is_match(s)),
            Op::Exists(want) => value.is_some() == *want,
        }
    }
}

fn number(value: Option<&Value>) -> Option<f64> {
    value?.as_f64()
}

/// JSON equality with numbers compared by value (`3` equals `3.0`).
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(i), Some(j)) => i == j,
                _ => x.as_f64() == y.as_f64(),
            },
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, a)| y.get(k).is_some_and(|b| json_eq(a, b)))
        }
        _ => a == b,
    }
}

/// A `[[rule.attribute]]` condition.
#[derive(Debug, Clone)]
pub(crate) struct AttributeTest {
    /// The attribute path (after `before.`/`after.`).
    pub(crate) steps: Vec<Step>,
    /// The first key as it appears in the JSON text (`"instance_type"`), when it can be searched
    /// for literally: a value whose text lacks it has no such attribute, and need not be parsed.
    pub(crate) probe: Option<String>,
    /// What is tested there.
    pub(crate) test: AttributeOp,
}

/// What an attribute condition tests.
#[derive(Debug, Clone)]
pub(crate) enum AttributeOp {
    /// An operator on the `before` or `after` value.
    Value { side: PathRoot, op: Op },
    /// `changed = true/false`: before and after differ there.
    Changed(bool),
}

impl AttributeTest {
    /// A test on `steps`, with its probe.
    pub(crate) fn new(steps: Vec<Step>, test: AttributeOp) -> AttributeTest {
        // Terraform (Go's encoding/json) writes keys of these characters as they are, never as
        // `\u` escapes, so a literal search is exact for them; other keys are always parsed.
        // A number may index a list (`0.size`), where it is not written as a key at all.
        let probe = match steps.first() {
            Some(Step::Key(k))
                if k.parse::<usize>().is_err()
                    && k.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_-./: ".contains(c)) =>
            {
                Some(format!("\"{k}\""))
            }
            _ => None,
        };
        AttributeTest { steps, probe, test }
    }
}

/// A `[[rule.variable]]` condition.
#[derive(Debug, Clone)]
pub(crate) struct VariableTest {
    pub(crate) name: String,
    pub(crate) op: Op,
}

/// The comparison of an aggregate's `count = { … }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CountTest {
    Gt(u64),
    Ge(u64),
    Lt(u64),
    Le(u64),
    Equals(u64),
}

impl CountTest {
    /// The operators `count` accepts.
    pub(crate) const NAMES: [&str; 5] = ["gt", "ge", "lt", "le", "equals"];

    /// The comparison for an operator name.
    pub(crate) fn new(name: &str, n: u64) -> Option<CountTest> {
        Some(match name {
            "gt" => CountTest::Gt(n),
            "ge" => CountTest::Ge(n),
            "lt" => CountTest::Lt(n),
            "le" => CountTest::Le(n),
            "equals" => CountTest::Equals(n),
            _ => return None,
        })
    }

    /// True when `count` satisfies the comparison.
    pub(crate) fn holds(self, count: u64) -> bool {
        match self {
            CountTest::Gt(n) => count > n,
            CountTest::Ge(n) => count >= n,
            CountTest::Lt(n) => count < n,
            CountTest::Le(n) => count <= n,
            CountTest::Equals(n) => count == n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn action_names_cover_replace_halves() {
        let set = |names: &[&str]| {
            let mut s = ActionSet::default();
            for n in names {
                assert!(s.add(n));
            }
            s
        };
        let dtc = Action::Replace(ReplaceOrder::DeleteThenCreate);
        let ctd = Action::Replace(ReplaceOrder::CreateThenDelete);
        let ctf = Action::Replace(ReplaceOrder::CreateThenForget);
        let delete = set(&["delete"]);
        assert!(delete.matches(Action::Delete, false, false));
        assert!(delete.matches(dtc, false, false));
        assert!(delete.matches(ctd, false, false));
        assert!(!delete.matches(ctf, false, false));
        assert!(!delete.matches(Action::Forget, false, false));
        let create = set(&["create"]);
        assert!(
            [Action::Create, dtc, ctd, ctf]
                .iter()
                .all(|a| create.matches(*a, false, false))
        );
        let forget = set(&["forget"]);
        assert!(forget.matches(ctf, false, false) && forget.matches(Action::Forget, false, false));
        assert!(!forget.matches(ctd, false, false));
        let replace = set(&["replace"]);
        assert!(!replace.matches(Action::Delete, false, false));
        let import = set(&["import"]);
        assert!(import.matches(Action::NoOp, true, false));
        assert!(!import.matches(Action::NoOp, false, true));
        assert!(set(&["move"]).matches(Action::NoOp, false, true));
        assert!(!ActionSet::default().add("destroy"));
    }

    #[test]
    fn globs_keep_brackets_literal() {
        let g = Glob::new(r#"module.sg["a"].*"#);
        assert!(g.matches(r#"module.sg["a"].aws_security_group.this"#));
        assert!(!g.matches(r#"module.sg["b"].aws_security_group.this"#));
        assert!(matches!(Glob::new("aws_*"), Glob::Prefix(_)));
        assert!(Glob::new("aws_*").matches("aws_vpc"));
        assert!(Glob::new("aws_?pc").matches("aws_vpc"));
        assert!(!Glob::new("aws_vpc").matches("aws_vpc2"));
        assert!(Glob::new("").matches(""));
        assert!(!Glob::new("").matches("module.a"));
    }

    #[test]
    fn probes_only_for_keys_written_literally() {
        let probe = |k: &str| {
            AttributeTest::new(vec![Step::Key(k.to_string())], AttributeOp::Changed(true)).probe
        };
        assert_eq!(probe("instance_type").as_deref(), Some("\"instance_type\""));
        assert_eq!(
            probe("kubernetes.io/role").as_deref(),
            Some("\"kubernetes.io/role\"")
        );
        assert_eq!(probe("a<b"), None);
        assert_eq!(probe("naïve"), None);
        assert_eq!(probe("0"), None);
        let by_index = AttributeTest::new(vec![Step::Index(0)], AttributeOp::Changed(true));
        assert_eq!(by_index.probe, None);
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(json_eq(&json!(3), &json!(3.0)));
        assert!(json_eq(&json!({"a": [1]}), &json!({"a": [1.0]})));
        assert!(!json_eq(&json!("3"), &json!(3)));
        assert!(Op::Lt(3.0).test(Some(&json!(2))));
        assert!(!Op::Lt(3.0).test(Some(&json!("2"))));
        assert!(Op::NotIn(vec![json!("prod")]).test(Some(&Value::Null)));
    }
}
