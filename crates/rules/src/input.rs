//! What the rules look at: one entry per resource instance, kept close to the plan JSON.
//!
//! The shape mirrors `resource_changes` (address, mode, type, name, values before and after with
//! their sensitivity mirrors) so that a Rego engine could later receive the same input. Values stay
//! raw JSON slices borrowed from the plan's text; the evaluator parses only what a condition asks for.

use std::collections::BTreeMap;

use serde_json::value::RawValue;

use planlens_changes::drift::Severity;
use planlens_model::{Action, Mode};

/// Everything a rule set is evaluated against: the plan's resources and its variables.
#[derive(Debug, Clone, Default)]
pub struct Input<'a> {
    /// Resource instances, in the order findings should refer to them (a finding's `resource` is an
    /// index into this list).
    pub resources: Vec<Resource<'a>>,
    /// Root module variable values from the plan, name → value. Labels the user sets are passed to
    /// [`evaluate`](super::evaluate) separately and take precedence over these.
    pub variables: BTreeMap<String, serde_json::Value>,
    /// Whether Terraform finished planning; a failed plan's verdict is "planning failed".
    pub planning: planlens_model::summary::Planning,
    /// True when the document shows only some attribute values (a text plan hides unchanged
    /// ones) or none (a plan log): a missing value may be one the input did not show, so a rule
    /// that reads it says what it could not check instead of passing.
    pub values_partial: bool,
    /// The plan's failing checks and conditions, said in one sentence
    /// ([`planlens_changes::checks::failing_sentence`]); `None` when none fails.
    pub failing_checks: Option<String>,
}

/// One resource instance: what the plan does to it and whether it drifted.
#[derive(Debug, Clone)]
pub struct Resource<'a> {
    /// Absolute instance address, e.g. `module.sg["web"].aws_security_group.this`.
    pub address: &'a str,
    /// Managed resource or data source.
    pub mode: Mode,
    /// Resource type, e.g. `aws_instance`.
    pub resource_type: &'a str,
    /// Resource name in configuration.
    pub name: &'a str,
    /// Module instance address, e.g. `module.a["x"]`; "" for the root module.
    pub module: &'a str,
    /// Provider, shortened: `hashicorp/aws`.
    pub provider: &'a str,
    /// The planned action; [`Action::NoOp`] for a resource that only drifted.
    pub action: Action,
    /// True when the plan imports the resource.
    pub is_import: bool,
    /// True when the plan moves the resource to a new address.
    pub is_move: bool,
    /// The value before the change (absent for creates).
    pub before: Option<&'a RawValue>,
    /// The value after the change, without the parts known only after apply (absent for deletes).
    pub after: Option<&'a RawValue>,
    /// Mirror of `before`: `true` where the value is sensitive.
    pub before_sensitive: Option<&'a RawValue>,
    /// Mirror of `after`: `true` where the value is sensitive.
    pub after_sensitive: Option<&'a RawValue>,
    /// Set when the resource changed outside Terraform.
    pub drift: Option<DriftFacts<'a>>,
}

/// How a resource drifted, as the drift analysis classified it.
#[derive(Debug, Clone, Copy)]
pub struct DriftFacts<'a> {
    /// Minor (tags only), structural, or not relevant to the plan.
    pub severity: Severity,
    /// The drifted attribute paths, e.g. `tags.Name`, `instance_type`.
    pub attributes: &'a [String],
    /// For an object deleted outside Terraform, what it was (type and id).
    pub deleted: Option<&'a planlens_changes::drift::DeletedObject>,
    /// True when the object was deleted outside Terraform (with or without `deleted`).
    pub removed: bool,
    /// False when the input carries no values (a plan log): the attributes are not known.
    pub values_known: bool,
}
