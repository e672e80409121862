//! One compiled rule and a problem in a rule file: what `parse` makes and `eval` runs.

use std::fmt;

use super::condition::{AttributeTest, CountTest, Selectors, VariableTest};
use super::template::Template;
use planlens_model::findings::RuleSeverity;

/// The id of the built-in pack's plan-level warning about failing checks and conditions (not a
/// rule of its file: checks are not resources).
pub const FAILING_CHECKS: &str = "failing-checks";

/// A problem in a rule file, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// The id of the rule the problem is in, when it has one.
    pub rule_id: Option<String>,
    /// What is wrong, and what was expected.
    pub message: String,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)?;
        if let Some(id) = &self.rule_id {
            write!(f, " (rule \"{id}\")")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for RuleError {}

/// One compiled rule.
#[derive(Debug, Clone)]
pub struct Rule {
    pub(super) id: String,
    pub(super) severity: RuleSeverity,
    pub(super) message: String,
    pub(super) template: Template,
    pub(super) description: Option<String>,
    pub(super) selectors: Selectors,
    pub(super) attributes: Vec<AttributeTest>,
    pub(super) variables: Vec<VariableTest>,
    pub(super) count: Option<CountTest>,
    pub(super) builtin: bool,
}

impl Rule {
    /// The rule's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// How bad a finding of this rule is.
    pub fn severity(&self) -> RuleSeverity {
        self.severity
    }

    /// The message template as written, placeholders included.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The longer explanation, if the rule has one.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// True for rules of the built-in pack.
    pub fn is_builtin(&self) -> bool {
        self.builtin
    }

    /// True for aggregate rules (`count = …`), whose findings are about the whole plan.
    pub fn is_aggregate(&self) -> bool {
        self.count.is_some()
    }
}
