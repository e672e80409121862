//! Terraform states → a document every view reads and nothing judges.
//!
//! Entry points, for other readers too (the Terraform controller's state Secret, once its
//! `data.tfstate` is decoded and decompressed):
//! - [`read_state`]`(text, name) -> Result<Document, LoadError>`: a state's text, raw `.tfstate`
//!   v4 or `terraform show -json` of a state, → a document with [`Source::State`], **not masked
//!   yet**: pass it to [`planlens_load::mask::apply`] (the one masking pass), or call
//!   [`planlens_load::load_plan_text_with`], which recognises states and masks them.
//! - [`is_state_text`]`(text)`: true for a state's text (either form), without reading it all.
//!
//! A state is converted on load into the text of an equivalent plan, as plan logs and driftctl
//! reports are, so the list, graph, detail pane and outputs need no second code path: each
//! resource instance becomes a `no-op` resource change whose `before` and `after` are its
//! attributes (so the detail shows values, never arrows), with `before_sensitive` /
//! `after_sensitive` from the state's own marks (`sensitive_attributes` paths of a raw state,
//! `sensitive_values` of a shown one) that the masking pass then widens by secret-like names;
//! each instance's `dependencies` / `depends_on` go into a values-free `prior_state`, where the
//! graph reads state edges; root outputs become `no-op` output changes, sensitive ones marked.
//! What only a state knows (serial, lineage, counts) travels as [`StateFacts`], also written
//! into the converted text under `planlens_state`, so a share link's stripped copy of it opens
//! as a state again, never as a plan with "No changes.".
//!
//! A state is never judged: [`Source::State`] makes `Planning::of` say `Planning::State`, whose
//! verdict is `Verdict::NotAPlan` (no badge on the page, exit 3 from `planlens check`).
//!
//! A raw state's `attributes_flat` are read as strings, and deposed and tainted objects are kept.
//! States of format version 3 and older are refused with a message. Nothing judges a state: no
//! badge, no pass, `planlens check` exits 3, and `Analysis::evaluate` runs no rules on it. The
//! facts under `planlens_state` are read back by `planlens_load::state::converted_facts`.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::converted::{
    Change, ConvertedPlan, Json, Keys, PriorResource, PriorState, ResourceChange,
};
use planlens_load::LoadError;
// Detection is the loader's; re-exported so this module reads as the whole of states.
pub use planlens_load::state::{MARKER, converted_facts, is_state_text};
use planlens_model::source::StateFacts;
use planlens_model::{Document, Source};

/// Longest list index a `sensitive_attributes` path may name: an edited state cannot make the
/// marks allocate without bound.
const MAX_INDEX: u64 = 1 << 20;

/// Reads a state's text (raw `.tfstate` v4, or `terraform show -json` of a state) into an
/// unmasked document whose source is [`Source::State`]; see the module documentation.
pub fn read_state(text: String, name: &str) -> Result<Document, LoadError> {
    let (plan_text, facts) = convert(&text)?;
    let mut doc = Document::parse(plan_text, name.to_string()).map_err(|(_, e)| {
        failed(format!(
            "Planlens could not convert it ({e}); please report this"
        ))
    })?;
    doc.source = Source::State(facts);
    doc.original = Some(text);
    Ok(doc)
}

fn failed(message: String) -> LoadError {
    LoadError::InvalidReport {
        what: "Terraform state".to_string(),
        line: 0,
        column: 0,
        message,
    }
}

fn shape(e: serde_json::Error) -> LoadError {
    let message = e.to_string();
    let message = match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    };
    LoadError::InvalidReport {
        what: "Terraform state".to_string(),
        line: e.line(),
        column: e.column(),
        message,
    }
}

/// One resource instance object of a state, whichever form it came in.
struct Instance<'a> {
    address: String,
    module: String,
    mode: &'static str,
    resource_type: String,
    name: String,
    provider_name: String,
    deposed: Option<String>,
    tainted: bool,
    /// The attribute values: the state's own JSON, or a legacy flat map (`attributes_flat`, from
    /// states upgraded from Terraform 0.11) rebuilt as an object of strings.
    attributes: Json<'a>,
    sensitive: Value,
    depends_on: Vec<String>,
}

/// One root output.
struct Output<'a> {
    name: String,
    value: Option<&'a RawValue>,
    sensitive: bool,
}

/// Converts a state's text to the text of an equivalent plan and the state's facts.
pub fn convert(text: &str) -> Result<(String, StateFacts), LoadError> {
    #[derive(Deserialize)]
    struct Probe<'a> {
        #[serde(borrow, default)]
        values: Option<&'a RawValue>,
        #[serde(default)]
        format_version: Option<String>,
    }
    let probe: Probe = serde_json::from_str(text).map_err(shape)?;
    let (facts, instances, outputs) = if probe.values.is_some() || probe.format_version.is_some() {
        read_shown(text)?
    } else {
        read_raw(text)?
    };
    Ok(write(&facts, &instances, &outputs))
}

type Read<'a> = (StateFacts, Vec<Instance<'a>>, Vec<Output<'a>>);

// ---- raw `.tfstate` v4 (Terraform's states/statefile/version4.go) ----

#[derive(Deserialize)]
struct RawState<'a> {
    #[serde(default)]
    version: Option<Value>,
    #[serde(default)]
    terraform_version: Option<String>,
    #[serde(default)]
    serial: Option<u64>,
    #[serde(default)]
    lineage: Option<String>,
    #[serde(borrow, default)]
    outputs: Option<BTreeMap<String, RawOutput<'a>>>,
    #[serde(borrow, default)]
    resources: Option<Vec<RawResource<'a>>>,
    /// Version 3 and older states list modules instead of resources.
    #[serde(borrow, default)]
    modules: Option<&'a RawValue>,
    /// OpenTofu's encrypted states hold everything in here.
    #[serde(borrow, default)]
    encrypted_data: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct RawOutput<'a> {
    #[serde(borrow, default)]
    value: Option<&'a RawValue>,
    #[serde(default)]
    sensitive: bool,
}

#[derive(Deserialize)]
struct RawResource<'a> {
    #[serde(default)]
    module: Option<String>,
    #[serde(default)]
    mode: Option<String>,
    #[serde(rename = "type", default)]
    resource_type: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    provider: Option<String>,
    #[serde(borrow, default)]
    instances: Option<Vec<RawInstance<'a>>>,
}

#[derive(Deserialize)]
struct RawInstance<'a> {
    #[serde(default)]
    index_key: Option<Value>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    deposed: Option<String>,
    #[serde(borrow, default)]
    attributes: Option<&'a RawValue>,
    #[serde(default)]
    attributes_flat: Option<BTreeMap<String, String>>,
    #[serde(default)]
    sensitive_attributes: Option<Value>,
    #[serde(default)]
    dependencies: Option<Vec<String>>,
    /// Terraform 0.12's early v4 states named dependencies `depends_on`.
    #[serde(default)]
    depends_on: Option<Vec<String>>,
}

fn read_raw(text: &str) -> Result<Read<'_>, LoadError> {
    let state: RawState = serde_json::from_str(text).map_err(shape)?;
    // Never "0 resources" for a state whose resources Planlens cannot see.
    if state.encrypted_data.is_some() {
        return Err(failed(
            "it is encrypted (OpenTofu state encryption), so its resources cannot be read: open \
             the output of `tofu show -json` instead"
                .to_string(),
        ));
    }
    let version = state.version.as_ref().and_then(Value::as_u64);
    if state.modules.is_some() || version.is_some_and(|v| v < 4) {
        return Err(failed(format!(
            "it is a version {} state (Terraform 0.11 or older), which Planlens does not read: \
             Planlens reads version 4 states (Terraform 0.12 and later) and `terraform show \
             -json` of a state",
            version.map_or("3".to_string(), |v| v.to_string())
        )));
    }
    if version.is_some_and(|v| v > 4) {
        return Err(failed(format!(
            "it is a version {} state, newer than the version 4 Planlens reads",
            version.unwrap_or_default()
        )));
    }
    let mut instances = Vec::new();
    for r in state.resources.unwrap_or_default() {
        let mode = match r.mode.as_deref() {
            Some("data") => "data",
            _ => "managed",
        };
        let module = r.module.unwrap_or_default();
        let provider_name = provider_name(r.provider.as_deref().unwrap_or(""));
        for i in r.instances.unwrap_or_default() {
            let mut address = String::new();
            if !module.is_empty() {
                address.push_str(&module);
                address.push('.');
            }
            if mode == "data" {
                address.push_str("data.");
            }
            address.push_str(&format!("{}.{}", r.resource_type, r.name));
            match &i.index_key {
                Some(Value::Number(n)) => address.push_str(&format!("[{n}]")),
                Some(key @ Value::String(_)) => address.push_str(&format!("[{key}]")),
                _ => {}
            }
            let attributes = match (i.attributes, i.attributes_flat) {
                (Some(raw), _) if raw.get() != "null" => Json::Raw(raw),
                (_, Some(flat)) => Json::Built(Value::Object(
                    flat.into_iter()
                        .map(|(k, v)| (k, Value::String(v)))
                        .collect(),
                )),
                _ => Json::Built(Value::Object(Map::new())),
            };
            instances.push(Instance {
                address,
                module: module.clone(),
                mode,
                resource_type: r.resource_type.clone(),
                name: r.name.clone(),
                provider_name: provider_name.clone(),
                deposed: i.deposed.filter(|d| !d.is_empty()),
                tainted: i.status.as_deref() == Some("tainted"),
                attributes,
                sensitive: i
                    .sensitive_attributes
                    .as_ref()
                    .map(sensitive_mirror)
                    .unwrap_or(Value::Object(Map::new())),
                depends_on: i.dependencies.or(i.depends_on).unwrap_or_default(),
            });
        }
    }
    let outputs = root_outputs(state.outputs);
    let facts = StateFacts {
        format: "tfstate v4".to_string(),
        terraform_version: state.terraform_version,
        serial: state.serial,
        lineage: state.lineage,
        ..StateFacts::default()
    };
    Ok((facts, instances, outputs))
}

/// A state's root outputs, by name.
fn root_outputs(outputs: Option<BTreeMap<String, RawOutput<'_>>>) -> Vec<Output<'_>> {
    outputs
        .unwrap_or_default()
        .into_iter()
        .map(|(name, o)| Output {
            name,
            value: o.value,
            sensitive: o.sensitive,
        })
        .collect()
}

/// `provider["registry.terraform.io/hashicorp/aws"].west` (or `module.m.provider[…]`, or a
/// legacy `provider.aws`) → `registry.terraform.io/hashicorp/aws`, as plans name providers.
fn provider_name(config: &str) -> String {
    if let Some(start) = config.find("provider[\"") {
        let rest = &config[start + "provider[\"".len()..];
        if let Some(end) = rest.find("\"]") {
            return rest[..end].to_string();
        }
    }
    match config.rfind("provider.") {
        Some(i) => config[i + "provider.".len()..]
            .split('.')
            .next()
            .unwrap_or("")
            .to_string(),
        None => config.to_string(),
    }
}

/// A raw state's `sensitive_attributes` as the mirror a plan's `*_sensitive` is: `true` at each
/// marked path, objects and lists around it. Paths are lists of steps
/// (`{"type":"get_attr","value":"password"}`, `{"type":"index","value":{"value":0,"type":"number"}}`);
/// a value already in mirror form (an object or `true`) is taken as it is.
pub fn sensitive_mirror(marks: &Value) -> Value {
    let mut mirror = Value::Object(Map::new());
    match marks {
        Value::Array(paths) => {
            for path in paths {
                if let Value::Array(steps) = path {
                    let steps: Option<Vec<Step>> = steps.iter().map(step).collect();
                    // A path with a step Planlens cannot read marks what it can reach: the whole
                    // value above the unreadable step, never less.
                    let steps = steps.unwrap_or_else(|| readable_prefix(path));
                    mark(&mut mirror, &steps);
                }
            }
        }
        Value::Object(_) | Value::Bool(true) => mirror = marks.clone(),
        _ => {}
    }
    mirror
}

enum Step {
    Key(String),
    Index(u64),
}

fn step(s: &Value) -> Option<Step> {
    let value = s.get("value")?;
    match s.get("type")?.as_str()? {
        "get_attr" => Some(Step::Key(value.as_str()?.to_string())),
        "index" => {
            // cty's JSON of a dynamic value: {"value": …, "type": "number" | "string"}.
            let key = value.get("value").unwrap_or(value);
            match key {
                Value::Number(n) => n.as_u64().filter(|&n| n <= MAX_INDEX).map(Step::Index),
                Value::String(k) => Some(Step::Key(k.clone())),
                _ => None,
            }
        }
        _ => None,
    }
}

fn readable_prefix(path: &Value) -> Vec<Step> {
    path.as_array()
        .map(|steps| steps.iter().map_while(step).collect())
        .unwrap_or_default()
}

fn mark(mirror: &mut Value, steps: &[Step]) {
    let Some((first, rest)) = steps.split_first() else {
        *mirror = Value::Bool(true);
        return;
    };
    if *mirror == Value::Bool(true) {
        return;
    }
    match first {
        Step::Key(key) => {
            if !mirror.is_object() {
                *mirror = Value::Object(Map::new());
            }
            if let Value::Object(map) = mirror {
                mark(map.entry(key.clone()).or_insert(Value::Bool(false)), rest);
            }
        }
        Step::Index(i) => {
            if !mirror.is_array() {
                *mirror = Value::Array(Vec::new());
            }
            if let Value::Array(list) = mirror {
                let i = *i as usize;
                if list.len() <= i {
                    list.resize(i + 1, Value::Bool(false));
                }
                mark(&mut list[i], rest);
            }
        }
    }
}

// ---- `terraform show -json` of a state (Terraform's command/jsonstate) ----

#[derive(Deserialize)]
struct Shown<'a> {
    #[serde(default)]
    format_version: Option<String>,
    #[serde(default)]
    terraform_version: Option<String>,
    #[serde(borrow, default)]
    values: Option<ShownValues<'a>>,
}

#[derive(Deserialize)]
struct ShownValues<'a> {
    #[serde(borrow, default)]
    outputs: Option<BTreeMap<String, RawOutput<'a>>>,
    #[serde(borrow, default)]
    root_module: Option<ShownModule<'a>>,
}

#[derive(Deserialize)]
struct ShownModule<'a> {
    #[serde(default)]
    address: Option<String>,
    #[serde(borrow, default)]
    resources: Option<Vec<ShownResource<'a>>>,
    #[serde(borrow, default)]
    child_modules: Option<Vec<ShownModule<'a>>>,
}

#[derive(Deserialize)]
struct ShownResource<'a> {
    #[serde(default)]
    address: String,
    #[serde(default)]
    mode: Option<String>,
    #[serde(rename = "type", default)]
    resource_type: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    index: Option<Value>,
    #[serde(default)]
    provider_name: Option<String>,
    #[serde(borrow, default)]
    values: Option<&'a RawValue>,
    #[serde(default)]
    sensitive_values: Option<Value>,
    #[serde(default)]
    depends_on: Option<Vec<String>>,
    #[serde(default)]
    tainted: bool,
    #[serde(default)]
    deposed_key: Option<String>,
}

fn read_shown(text: &str) -> Result<Read<'_>, LoadError> {
    let shown: Shown = serde_json::from_str(text).map_err(shape)?;
    let mut instances = Vec::new();
    let mut outputs = Vec::new();
    if let Some(values) = shown.values {
        if let Some(root) = values.root_module {
            let mut stack = vec![root];
            while let Some(m) = stack.pop() {
                let module = m.address.unwrap_or_default();
                for r in m.resources.unwrap_or_default() {
                    // Terraform 0.12 wrote child modules' addresses relative to the module and
                    // the instance key apart.
                    let mode = match r.mode.as_deref() {
                        Some("data") => "data",
                        _ => "managed",
                    };
                    // An edited file without an address: it is made from the parts, as a raw
                    // state's is.
                    let own = if r.address.is_empty() {
                        let data = if mode == "data" { "data." } else { "" };
                        format!("{data}{}.{}", r.resource_type, r.name)
                    } else {
                        r.address
                    };
                    let mut address = match module.as_str() {
                        "" => own,
                        m if own
                            .strip_prefix(m)
                            .is_some_and(|rest| rest.starts_with('.')) =>
                        {
                            own
                        }
                        m => format!("{m}.{own}"),
                    };
                    if let Some(index) = r.index.as_ref().filter(|i| !i.is_null())
                        && !address.ends_with(']')
                    {
                        address.push_str(&format!("[{index}]"));
                    }
                    instances.push(Instance {
                        address,
                        module: module.clone(),
                        mode,
                        resource_type: r.resource_type,
                        name: r.name,
                        provider_name: r.provider_name.unwrap_or_default(),
                        deposed: r.deposed_key.filter(|d| !d.is_empty()),
                        tainted: r.tainted,
                        attributes: match r.values {
                            Some(raw) if raw.get() != "null" => Json::Raw(raw),
                            _ => Json::Built(Value::Object(Map::new())),
                        },
                        sensitive: r
                            .sensitive_values
                            .filter(|v| v.is_object() || *v == Value::Bool(true))
                            .unwrap_or(Value::Object(Map::new())),
                        depends_on: r.depends_on.unwrap_or_default(),
                    });
                }
                // Children after their parent, in the order Terraform lists them.
                stack.extend(m.child_modules.unwrap_or_default().into_iter().rev());
            }
        }
        outputs = root_outputs(values.outputs);
    }
    let facts = StateFacts {
        format: format!(
            "terraform show -json (format {})",
            shown.format_version.as_deref().unwrap_or("?")
        ),
        terraform_version: shown.terraform_version,
        ..StateFacts::default()
    };
    Ok((facts, instances, outputs))
}

// ---- the equivalent plan ----

fn write<'a>(
    facts: &StateFacts,
    instances: &[Instance<'a>],
    outputs: &[Output<'a>],
) -> (String, StateFacts) {
    let current = || instances.iter().filter(|i| i.deposed.is_none());
    let facts = StateFacts {
        resources: current().count(),
        data_sources: current().filter(|i| i.mode == "data").count(),
        modules: current()
            .map(|i| i.module.as_str())
            .collect::<BTreeSet<_>>()
            .len(),
        deposed: instances.len() - current().count(),
        tainted: instances.iter().filter(|i| i.tainted).count(),
        tainted_addresses: instances
            .iter()
            .filter(|i| i.tainted)
            .map(|i| i.address.clone())
            .collect(),
        outputs: outputs.len(),
        ..facts.clone()
    };
    // A `no-op` change: the same values on both sides, with the same marks.
    let unchanged = |value: Json<'a>, marks: &Value| Change {
        before: Some(value.clone()),
        after: Some(value),
        before_sensitive: Some(marks.clone()),
        after_sensitive: Some(marks.clone()),
        ..Change::of(&["no-op"])
    };
    let text = ConvertedPlan {
        terraform_version: facts.terraform_version.clone().map(Some),
        planlens_state: Some(&facts),
        resource_changes: Some(
            instances
                .iter()
                .map(|i| ResourceChange {
                    address: i.address.clone(),
                    previous_address: None,
                    module_address: i.module.clone(),
                    mode: i.mode,
                    resource_type: i.resource_type.clone(),
                    name: i.name.clone(),
                    index: None,
                    provider_name: i.provider_name.clone(),
                    deposed: i.deposed.clone(),
                    action_reason: None,
                    change: unchanged(i.attributes.clone(), &i.sensitive),
                })
                .collect(),
        ),
        output_changes: Some(
            outputs
                .iter()
                .map(|o| {
                    let value = o.value.map_or(Json::Built(Value::Null), Json::Raw);
                    (o.name.clone(), unchanged(value, &Value::Bool(o.sensitive)))
                })
                .collect(),
        ),
        prior_state: Some(PriorState::of(
            instances
                .iter()
                .map(|i| PriorResource {
                    address: &i.address,
                    mode: i.mode,
                    resource_type: &i.resource_type,
                    name: &i.name,
                    deposed_key: i.deposed.as_deref(),
                    depends_on: &i.depends_on,
                })
                .collect(),
        )),
        ..ConvertedPlan::new()
    }
    .text(Keys::Declared);
    (text, facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sensitive_paths_become_a_mirror() {
        let marks: Value = serde_json::from_str(
            r#"[[{"type":"get_attr","value":"password"}],
                [{"type":"get_attr","value":"users"},{"type":"index","value":{"value":2,"type":"number"}},{"type":"get_attr","value":"key"}],
                [{"type":"get_attr","value":"tags"},{"type":"index","value":{"value":"api-token","type":"string"}}]]"#,
        )
        .unwrap();
        assert_eq!(
            sensitive_mirror(&marks),
            serde_json::json!({
                "password": true,
                "users": [false, false, {"key": true}],
                "tags": {"api-token": true}
            })
        );
        // A step Planlens cannot read marks the whole value above it.
        let odd: Value =
            serde_json::from_str(r#"[[{"type":"get_attr","value":"a"},{"type":"??"}]]"#).unwrap();
        assert_eq!(sensitive_mirror(&odd), serde_json::json!({"a": true}));
        // A huge index is not allocated.
        let huge: Value = serde_json::from_str(
            r#"[[{"type":"get_attr","value":"l"},{"type":"index","value":{"value":99999999999,"type":"number"}}]]"#,
        )
        .unwrap();
        assert_eq!(sensitive_mirror(&huge), serde_json::json!({"l": true}));
    }

    #[test]
    fn providers_are_named_as_plans_name_them() {
        assert_eq!(
            provider_name(r#"provider["registry.terraform.io/hashicorp/aws"].west"#),
            "registry.terraform.io/hashicorp/aws"
        );
        assert_eq!(
            provider_name(r#"module.a.provider["registry.terraform.io/hashicorp/null"]"#),
            "registry.terraform.io/hashicorp/null"
        );
        assert_eq!(provider_name("provider.aws.west"), "aws");
    }
}
