//! The `terraform show -json` plan format, one struct per concept, borrowing from the file's text.
//!
//! Mirrors hashicorp/terraform-json's `plan.go`. Every field is optional or defaulted so that older
//! format versions load, and keys this build does not know are skipped (serde's default), so newer
//! Terraform versions load too. Attribute values (`before`, `after`, …) stay raw JSON slices until a
//! diff is asked for: parsing them up front would cost more time and memory than the rest of the plan.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::action::Action;

/// A whole plan as `terraform show -json PLANFILE` prints it (format_version 0.1 – 1.2).
#[derive(Debug, Deserialize)]
pub struct Plan<'a> {
    /// Version of the JSON format: "0.1" (Terraform 0.12) … "1.2" (1.5+).
    #[serde(borrow, default)]
    pub format_version: Option<Cow<'a, str>>,
    /// Terraform (or OpenTofu) version that wrote the plan; absent in some test outputs.
    #[serde(borrow, default)]
    pub terraform_version: Option<Cow<'a, str>>,
    /// Root module input variables: name → `{ "value": … }`.
    #[serde(borrow, default)]
    pub variables: BTreeMap<Cow<'a, str>, Variable<'a>>,
    /// Every resource instance Terraform plans to act on, no-ops included.
    #[serde(borrow, default)]
    pub resource_changes: Vec<ResourceChange<'a>>,
    /// Changes detected outside Terraform during refresh (format 0.2+, Terraform 1.0+).
    #[serde(borrow, default)]
    pub resource_drift: Vec<ResourceChange<'a>>,
    /// Changes Terraform could not plan yet (Terraform 1.9+ with deferred actions).
    #[serde(borrow, default)]
    pub deferred_changes: Vec<DeferredChange<'a>>,
    /// Provider actions the apply will invoke (`action` blocks triggered by a change or by
    /// `-invoke`, Terraform 1.14+). Only their identity is read; their `config_values` are not.
    #[serde(borrow, default)]
    pub action_invocations: Vec<ActionInvocation<'a>>,
    /// Root module outputs and how they change.
    #[serde(borrow, default)]
    pub output_changes: BTreeMap<Cow<'a, str>, Change<'a>>,
    /// Results of check blocks, preconditions and postconditions (Terraform 1.5+).
    #[serde(default)]
    pub checks: Vec<CheckResult>,
    /// Condition results of Terraform 1.2 – 1.3, replaced by `checks` in 1.4.
    #[serde(default)]
    pub condition_results: Vec<ConditionResult>,
    /// The configuration the plan was made from; kept raw for the dependency graph.
    #[serde(borrow, default)]
    pub configuration: Option<&'a RawValue>,
    /// State before the plan; kept raw for the dependency graph.
    #[serde(borrow, default)]
    pub prior_state: Option<&'a RawValue>,
    /// Which drifted attributes matter to the plan; kept raw for the drift view.
    #[serde(borrow, default)]
    pub relevant_attributes: Option<&'a RawValue>,
    /// When the plan was made (RFC 3339), Terraform 1.5+.
    #[serde(borrow, default)]
    pub timestamp: Option<Cow<'a, str>>,
    /// Whether `terraform apply` could apply this plan (Terraform 1.8+).
    #[serde(default)]
    pub applyable: Option<bool>,
    /// False when some changes are deferred or a `-target` left work out (Terraform 1.8+).
    #[serde(default)]
    pub complete: Option<bool>,
    /// True when planning stopped on an error; the plan is then partial (Terraform 1.8+).
    #[serde(default)]
    pub errored: bool,
    // Keys of other formats, kept (as raw slices, at no parse cost) only so the loader can say what
    // a file that is not a plan looks like. A flattened catch-all map would buffer the whole file.
    /// State files: `"version": 4`.
    #[serde(borrow, default)]
    pub version: Option<&'a RawValue>,
    /// State files.
    #[serde(borrow, default)]
    pub lineage: Option<&'a RawValue>,
    /// State files (and `terraform show -json` of a state: `values`).
    #[serde(borrow, default)]
    pub resources: Option<&'a RawValue>,
    /// State shown with `terraform show -json` (no plan file).
    #[serde(borrow, default)]
    pub values: Option<&'a RawValue>,
    /// Plan-only key: the values after apply.
    #[serde(borrow, default)]
    pub planned_values: Option<&'a RawValue>,
    /// driftctl reports.
    #[serde(borrow, default)]
    pub summary: Option<&'a RawValue>,
    /// driftctl reports.
    #[serde(borrow, default)]
    pub coverage: Option<&'a RawValue>,
    /// driftctl reports.
    #[serde(borrow, default)]
    pub managed: Option<&'a RawValue>,
    /// driftctl reports (v0.39 and older).
    #[serde(borrow, default)]
    pub differences: Option<&'a RawValue>,
    /// `terraform plan -json` log lines.
    #[serde(rename = "@level", borrow, default)]
    pub log_level: Option<&'a RawValue>,
    /// `terraform providers schema -json`.
    #[serde(borrow, default)]
    pub provider_schemas: Option<&'a RawValue>,
    /// A state Planlens converted to a plan (`planlens_load::state::MARKER`): its facts.
    #[serde(borrow, default)]
    pub planlens_state: Option<&'a RawValue>,
    /// A text plan Planlens converted to a plan (`planlens_load::text_plan::MARKER`): its facts.
    #[serde(borrow, default)]
    pub planlens_text_plan: Option<&'a RawValue>,
}

/// An input variable's value as given to the plan.
#[derive(Debug, Deserialize)]
pub struct Variable<'a> {
    /// The value, any JSON.
    #[serde(borrow, default)]
    pub value: Option<&'a RawValue>,
}

/// Whether a resource is managed (`resource`) or a data source (`data`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// A `resource` block.
    #[default]
    Managed,
    /// A `data` block.
    Data,
}

/// One resource instance and what the plan does to it (an entry of `resource_changes` or
/// `resource_drift`).
#[derive(Debug, Deserialize)]
pub struct ResourceChange<'a> {
    /// Absolute instance address, e.g. `module.sg["web"].aws_security_group.this[0]`.
    /// (Terraform 1.0.0 wrote `resource_drift` entries without it.)
    #[serde(borrow, default)]
    pub address: Cow<'a, str>,
    /// Address of the containing module instance; absent for the root module.
    #[serde(borrow, default)]
    pub module_address: Option<Cow<'a, str>>,
    /// Managed resource or data source.
    #[serde(default)]
    pub mode: Mode,
    /// Resource type, e.g. `aws_instance`.
    #[serde(borrow, rename = "type", default)]
    pub resource_type: Cow<'a, str>,
    /// Resource name in configuration.
    #[serde(borrow, default)]
    pub name: Cow<'a, str>,
    /// Provider source address, e.g. `registry.terraform.io/hashicorp/aws` (0.12: just `aws`).
    #[serde(borrow, default)]
    pub provider_name: Cow<'a, str>,
    /// Set when this change is for a deposed object (left over by create_before_destroy).
    #[serde(borrow, default)]
    pub deposed: Option<Cow<'a, str>>,
    /// The address before a `moved` block (Terraform 1.1+).
    #[serde(borrow, default)]
    pub previous_address: Option<Cow<'a, str>>,
    /// True when the instance key is not known yet (deferred changes, Terraform 1.9+).
    #[serde(default)]
    pub index_unknown: bool,
    /// Why Terraform chose this action (Terraform 0.15.3+); see [`super::reason`].
    #[serde(borrow, default)]
    pub action_reason: Option<Cow<'a, str>>,
    /// The change itself.
    #[serde(borrow)]
    pub change: Change<'a>,
}

impl ResourceChange<'_> {
    /// True when the change moves the resource (`previous_address` set and different).
    pub fn is_move(&self) -> bool {
        self.previous_address
            .as_deref()
            .is_some_and(|p| p != self.address)
    }

    /// True when Terraform lists this change in its plan output: everything but plain no-ops
    /// (neither moved nor imported) and deletes of data sources.
    pub fn is_shown(&self) -> bool {
        match self.change.actions {
            Action::NoOp => self.is_move() || self.change.importing.is_some(),
            Action::Delete => self.mode != Mode::Data,
            _ => true,
        }
    }
}

/// The planned action and the values before and after it.
#[derive(Debug, Deserialize)]
pub struct Change<'a> {
    /// The action, from the `actions` array.
    pub actions: Action,
    /// Value before the change; `None` for creates.
    #[serde(borrow, default)]
    pub before: Option<&'a RawValue>,
    /// Value after the change, with unknown parts left out; `None` for deletes.
    #[serde(borrow, default)]
    pub after: Option<&'a RawValue>,
    /// Mirror of `after` with `true` where the value is known only after apply.
    #[serde(borrow, default)]
    pub after_unknown: Option<&'a RawValue>,
    /// Mirror of `before` with `true` where the value is sensitive (format 0.2+).
    #[serde(borrow, default)]
    pub before_sensitive: Option<&'a RawValue>,
    /// Mirror of `after` with `true` where the value is sensitive (format 0.2+).
    #[serde(borrow, default)]
    pub after_sensitive: Option<&'a RawValue>,
    /// Attribute paths that force replacement, e.g. `[["ami"]]`.
    #[serde(borrow, default)]
    pub replace_paths: Option<&'a RawValue>,
    /// Non-null when the resource is being imported (Terraform 1.5+).
    #[serde(borrow, default)]
    pub importing: Option<Importing<'a>>,
    /// HCL that `-generate-config-out` would write for an import.
    #[serde(borrow, default)]
    pub generated_config: Option<Cow<'a, str>>,
    /// Planlens' own key, only in a plan converted from a text plan: the text's order of list
    /// elements, which its `before`/`after` arrays cannot say
    /// (`planlens_load::text_plan::ELEMENTS`).
    #[serde(borrow, default)]
    pub planlens_elements: Option<&'a RawValue>,
}

/// How an import finds the remote object.
#[derive(Debug, Deserialize)]
pub struct Importing<'a> {
    /// The import ID, when importing by ID.
    #[serde(borrow, default)]
    pub id: Option<Cow<'a, str>>,
    /// The resource identity, when importing by identity (Terraform 1.12+).
    #[serde(borrow, default)]
    pub identity: Option<&'a RawValue>,
    /// True when the import target is not known yet.
    #[serde(default)]
    pub unknown: bool,
}

/// A provider action the apply will invoke (Terraform 1.14+ `action_invocations`).
#[derive(Debug, Deserialize)]
pub struct ActionInvocation<'a> {
    /// The action's address, e.g. `action.aws_lambda_invoke.notify`.
    #[serde(borrow, default)]
    pub address: Cow<'a, str>,
    /// The action type, e.g. `aws_lambda_invoke`.
    #[serde(rename = "type", borrow, default)]
    pub action_type: Cow<'a, str>,
    /// The action's name in its block.
    #[serde(borrow, default)]
    pub name: Cow<'a, str>,
    /// The provider that runs it.
    #[serde(borrow, default)]
    pub provider_name: Cow<'a, str>,
}

/// A change Terraform postponed (Terraform 1.9+).
#[derive(Debug, Deserialize)]
pub struct DeferredChange<'a> {
    /// Why it was deferred, e.g. `resource_config_unknown`.
    #[serde(borrow, default)]
    pub reason: Cow<'a, str>,
    /// The change as far as it is known.
    #[serde(borrow)]
    pub resource_change: ResourceChange<'a>,
}

/// Result of one checkable object: a check block, or a resource/output with conditions.
#[derive(Debug, Deserialize)]
pub struct CheckResult {
    /// What is being checked.
    pub address: CheckAddress,
    /// `pass`, `fail`, `error` or `unknown`.
    #[serde(default)]
    pub status: String,
    /// Per-instance results, for objects with count/for_each.
    #[serde(default)]
    pub instances: Vec<CheckInstance>,
}

/// The static address of a checkable object.
#[derive(Debug, Deserialize)]
pub struct CheckAddress {
    /// `resource`, `output_value`, `check` or `var`.
    #[serde(default)]
    pub kind: String,
    /// The address as Terraform displays it.
    #[serde(default)]
    pub to_display: String,
}

/// Result of one instance of a checkable object.
#[derive(Debug, Deserialize)]
pub struct CheckInstance {
    /// The instance address.
    pub address: CheckInstanceAddress,
    /// `pass`, `fail`, `error` or `unknown`.
    #[serde(default)]
    pub status: String,
    /// Failure messages.
    #[serde(default)]
    pub problems: Vec<CheckProblem>,
}

/// The address of one checked instance.
#[derive(Debug, Deserialize)]
pub struct CheckInstanceAddress {
    /// The address as Terraform displays it.
    #[serde(default)]
    pub to_display: String,
}

/// A failed condition's message.
#[derive(Debug, Deserialize)]
pub struct CheckProblem {
    /// The `error_message` of the failing condition.
    #[serde(default)]
    pub message: String,
}

/// A precondition/postcondition result as Terraform 1.2 – 1.3 wrote it.
#[derive(Debug, Deserialize)]
pub struct ConditionResult {
    /// Address of the object the condition belongs to.
    #[serde(default)]
    pub address: String,
    /// `ResourcePrecondition`, `ResourcePostcondition` or `OutputPrecondition`.
    #[serde(default)]
    pub condition_type: String,
    /// The result, when known.
    #[serde(default)]
    pub result: Option<bool>,
    /// True when the result is not known until apply.
    #[serde(default)]
    pub unknown: bool,
    /// The message shown when the condition fails.
    #[serde(default)]
    pub error_message: Option<String>,
}

/// Calls `f` with every resource change of a plan as JSON, the list it is in and its index there:
/// `resource_drift`, `resource_changes`, then each `deferred_changes[].resource_change`.
pub fn each_change(
    plan: &mut serde_json::Value,
    mut f: impl FnMut(&str, usize, &mut serde_json::Value),
) {
    for key in ["resource_drift", "resource_changes"] {
        if let Some(serde_json::Value::Array(changes)) = plan.get_mut(key) {
            for (i, c) in changes.iter_mut().enumerate() {
                f(key, i, c);
            }
        }
    }
    if let Some(serde_json::Value::Array(deferred)) = plan.get_mut("deferred_changes") {
        for (i, d) in deferred.iter_mut().enumerate() {
            if let Some(c) = d.get_mut("resource_change") {
                f("deferred_changes", i, c);
            }
        }
    }
}
