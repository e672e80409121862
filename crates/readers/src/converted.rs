//! The plan a converting reader writes: one typed writer for every input that is not plan JSON.
//!
//! Text plans, plan logs, driftctl reports and states are each converted into the text of an
//! equivalent `terraform show -json` plan, so that every view reads one format. [`ConvertedPlan`]
//! is that plan, one struct per concept of Terraform's format (only what a converter can fill),
//! and [`Mirrored`] a value built together with its `after_unknown` and `*_sensitive` mirrors.
//! This module reads nothing and judges nothing: the readers fill it, [`ConvertedPlan::text`]
//! writes it.
//!
//! `ConvertedPlan` holds `resource_changes`, `resource_drift`, `output_changes`, a values-free
//! `prior_state` and the readers' markers (`planlens_state`, `planlens_text_plan`), with
//! `ResourceChange` and `Change` under them. Its text keeps each reader's values byte for byte:
//! `Keys::Sorted` writes maps as serde_json writes them, `Keys::Declared` keeps a state's own
//! order, whose values stay its own JSON text.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use planlens_model::source::{StateFacts, TextPlanFacts};

/// How the keys of a converted plan's text are ordered. The text travels as it is (into the
/// document, through the readers' part, into links), so each reader keeps the order its text has
/// always had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keys {
    /// Every object's keys sorted, as serde_json writes a map (text plans, plan logs, driftctl
    /// reports).
    Sorted,
    /// In the order the structs below declare them, which is Terraform's (states: their values
    /// stay the state's own JSON text, never parsed again).
    Declared,
}

/// A converted plan: the top level of `terraform show -json`, with what a converter fills.
#[derive(Serialize)]
pub(crate) struct ConvertedPlan<'a> {
    /// `1.2` ([`ConvertedPlan::new`]): the format the converted text follows.
    pub format_version: &'static str,
    /// The version the input names: `Some(None)` is written as `null` (a plan log without a
    /// `version` message), `None` not at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terraform_version: Option<Option<String>>,
    /// A state's facts (`state::MARKER`), so a stripped copy opens as a state again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub planlens_state: Option<&'a StateFacts>,
    /// A text plan's facts (`text_plan::MARKER`), so a stripped copy opens as a text plan again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub planlens_text_plan: Option<&'a TextPlanFacts>,
    /// True when planning failed (an error diagnostic, `Planning failed.`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errored: Option<bool>,
    /// Changes made outside Terraform.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_drift: Option<Vec<ResourceChange<'a>>>,
    /// The planned resource changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_changes: Option<Vec<ResourceChange<'a>>>,
    /// Root output changes, by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_changes: Option<BTreeMap<String, Change<'a>>>,
    /// The state before the plan: here only identities and dependencies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prior_state: Option<PriorState<'a>>,
}

impl<'a> ConvertedPlan<'a> {
    /// A plan with nothing in it but its format version.
    pub fn new() -> ConvertedPlan<'a> {
        ConvertedPlan {
            format_version: "1.2",
            terraform_version: None,
            planlens_state: None,
            planlens_text_plan: None,
            errored: None,
            resource_drift: None,
            resource_changes: None,
            output_changes: None,
            prior_state: None,
        }
    }

    /// The plan's JSON text, its keys ordered as `keys` says.
    pub fn text(&self, keys: Keys) -> String {
        // Serializing built values and the input's own JSON text cannot fail.
        match keys {
            Keys::Declared => serde_json::to_string(self).unwrap_or_default(),
            Keys::Sorted => serde_json::to_value(self)
                .map(|v| v.to_string())
                .unwrap_or_default(),
        }
    }
}

/// One entry of `resource_changes` or `resource_drift`.
#[derive(Serialize)]
pub(crate) struct ResourceChange<'a> {
    /// The instance address, e.g. `module.net.aws_subnet.a["x"]`.
    pub address: String,
    /// The address it moved from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_address: Option<String>,
    /// The module path; empty (and not written) in the root module.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub module_address: String,
    /// `managed` or `data`.
    pub mode: &'static str,
    /// The resource type.
    #[serde(rename = "type")]
    pub resource_type: String,
    /// The resource name.
    pub name: String,
    /// The instance key (a number or a string).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<Value>,
    /// The provider; empty when the input does not name it.
    pub provider_name: String,
    /// The deposed object's key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deposed: Option<String>,
    /// Why Terraform chose the action (`replace_because_tainted`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action_reason: Option<String>,
    /// What changes.
    pub change: Change<'a>,
}

/// A change (of a resource or an output): actions, the values on each side and their marks.
#[derive(Serialize)]
pub(crate) struct Change<'a> {
    /// Terraform's `actions` array.
    pub actions: &'static [&'static str],
    /// The value before; not written when the input has no values at all (a plan log).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Json<'a>>,
    /// The value after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Json<'a>>,
    /// The mirror of `after` marking what is known only after apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_unknown: Option<Value>,
    /// The mirror of `before` marking sensitive values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_sensitive: Option<Value>,
    /// The mirror of `after` marking sensitive values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_sensitive: Option<Value>,
    /// The paths that force a replace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replace_paths: Option<Vec<Value>>,
    /// Set when the plan imports the object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub importing: Option<Importing>,
    /// A text plan's order of list elements (`text_plan::ELEMENTS`).
    #[serde(rename = "planlens_elements", skip_serializing_if = "Option::is_none")]
    pub elements: Option<Value>,
}

impl Change<'_> {
    /// A change of these actions with nothing else known.
    pub fn of(actions: &'static [&'static str]) -> Self {
        Change {
            actions,
            before: None,
            after: None,
            after_unknown: None,
            before_sensitive: None,
            after_sensitive: None,
            replace_paths: None,
            importing: None,
            elements: None,
        }
    }

    /// Sets both sides from their values with mirrors. A side that is `None` (the action has
    /// none: a create's `before`) is `null` with no marks; an unmarked mirror is written as
    /// `unmarked` (`{}` for a resource, `false` for an output). Only `after` has `after_unknown`.
    pub fn with_sides(
        mut self,
        before: Option<Mirrored>,
        after: Option<Mirrored>,
        unmarked: &Value,
    ) -> Self {
        let value = |side: &Option<Mirrored>| {
            let value = side.as_ref().and_then(|m| m.value.clone());
            Some(Json::Built(value.unwrap_or(Value::Null)))
        };
        let mark = |mirror: Option<Value>| Some(mirror.unwrap_or_else(|| unmarked.clone()));
        self.before = value(&before);
        self.after = value(&after);
        if let Some(b) = before {
            self.before_sensitive = mark(b.sensitive);
        }
        if let Some(a) = after {
            self.after_sensitive = mark(a.sensitive);
            self.after_unknown = mark(a.unknown);
        }
        self
    }
}

/// `change.importing`.
#[derive(Serialize)]
pub(crate) struct Importing {
    /// The import id, when the input names it (`null` otherwise).
    pub id: Option<String>,
}

/// A value of the converted plan: built by the reader, or the input's own JSON text.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub(crate) enum Json<'a> {
    /// A value the reader built.
    Built(Value),
    /// A value as the input wrote it (a state's attributes), numbers and all.
    Raw(&'a RawValue),
}

impl From<Value> for Json<'_> {
    fn from(value: Value) -> Self {
        Json::Built(value)
    }
}

/// `prior_state`, values-free: what the graph reads of a state.
#[derive(Serialize)]
pub(crate) struct PriorState<'a> {
    /// Always `1.0`.
    format_version: &'static str,
    values: PriorValues<'a>,
}

impl<'a> PriorState<'a> {
    /// A prior state of these resources, all in `root_module` (their addresses say the module).
    pub fn of(resources: Vec<PriorResource<'a>>) -> Self {
        PriorState {
            format_version: "1.0",
            values: PriorValues {
                root_module: PriorModule { resources },
            },
        }
    }
}

#[derive(Serialize)]
struct PriorValues<'a> {
    root_module: PriorModule<'a>,
}

#[derive(Serialize)]
struct PriorModule<'a> {
    resources: Vec<PriorResource<'a>>,
}

/// A state resource in `prior_state` with its identity and dependencies only (no values: the
/// graph reads nothing else, and a share link strips nothing it does not hold).
#[derive(Serialize)]
pub(crate) struct PriorResource<'a> {
    /// The instance address.
    pub address: &'a str,
    /// `managed` or `data`.
    pub mode: &'static str,
    /// The resource type.
    #[serde(rename = "type")]
    pub resource_type: &'a str,
    /// The resource name.
    pub name: &'a str,
    /// The deposed object's key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deposed_key: Option<&'a str>,
    /// The addresses it depends on.
    pub depends_on: &'a [String],
}

/// A value on one side of a change with its two mirrors: `unknown` (for `after_unknown`) and
/// `sensitive` (for `*_sensitive`). `None` is an absent value (an unknown one has none) or a
/// mirror with nothing marked.
#[derive(Debug, Clone, Default)]
pub(crate) struct Mirrored {
    /// The value.
    pub value: Option<Value>,
    /// `true` where the value is unknown.
    pub unknown: Option<Value>,
    /// `true` where the value is sensitive.
    pub sensitive: Option<Value>,
}

impl Mirrored {
    /// A list of these elements: an absent element is `null`, its marks `false`; a mirror with
    /// nothing marked is `None`.
    pub fn list(elements: impl IntoIterator<Item = Mirrored>) -> Mirrored {
        let (mut values, mut unknown, mut sensitive) = (Vec::new(), Vec::new(), Vec::new());
        for e in elements {
            values.push(e.value.unwrap_or(Value::Null));
            unknown.push(e.unknown.unwrap_or(Value::Bool(false)));
            sensitive.push(e.sensitive.unwrap_or(Value::Bool(false)));
        }
        let marked = |list: Vec<Value>| {
            list.iter()
                .any(|m| m != &Value::Bool(false))
                .then_some(Value::Array(list))
        };
        Mirrored {
            value: Some(Value::Array(values)),
            unknown: marked(unknown),
            sensitive: marked(sensitive),
        }
    }

    /// An object of these entries: an absent value or mirror leaves its key out (a later entry of
    /// the same key replaces what it has); a mirror with nothing marked is `None`.
    pub fn object(entries: impl IntoIterator<Item = (String, Mirrored)>) -> Mirrored {
        let (mut values, mut unknown, mut sensitive) = (Map::new(), Map::new(), Map::new());
        for (key, e) in entries {
            if let Some(v) = e.value {
                values.insert(key.clone(), v);
            }
            if let Some(u) = e.unknown {
                unknown.insert(key.clone(), u);
            }
            if let Some(s) = e.sensitive {
                sensitive.insert(key, s);
            }
        }
        let marked = |map: Map<String, Value>| (!map.is_empty()).then_some(Value::Object(map));
        Mirrored {
            value: Some(Value::Object(values)),
            unknown: marked(unknown),
            sensitive: marked(sensitive),
        }
    }
}
