//! Plans made from `arbitrary` values for the structured target: actions (replace pairs, forget,
//! read), nested values with sensitive and unknown mirrors, values under secret-like names,
//! odd addresses and keys (dots, quotes, brackets), modules, drift entries, outputs and the
//! configuration's references — serialized as `terraform show -json` writes a plan, with what
//! was generated beside it ([`Case`]) for the target's oracles. Plain bytes rarely get past the
//! JSON parser; these get to the analyses and writers.
//!
//! Strings that must stay hidden are made here (`§S<n>§`, never produced otherwise: the `§` of any
//! free text is replaced), so the oracles know them exactly.

use std::collections::BTreeSet;

use arbitrary::Arbitrary;
use serde_json::{Map, Value, json};

use crate::targets::{Case, CaseChange};

const TYPES: &[&str] = &[
    "aws_instance",
    "aws_s3_bucket",
    "aws_db_instance",
    "aws_iam_role",
    "google_compute_instance",
    "kubernetes_secret",
    "null_resource",
    "random_password",
];
const NAMES: &[&str] = &["this", "main", "web", "db", "a", "b", "logs", "x"];
const PLAIN_KEYS: &[&str] = &[
    "id",
    "name",
    "tags",
    "ami",
    "instance_type",
    "arn",
    "count",
    "enabled",
    "policy",
    "ingress",
];
const SECRET_KEYS: &[&str] = &[
    "password",
    "db_password",
    "token",
    "auth_token",
    "secret",
    "client_secret",
    "private_key",
    "access_key",
    "api_key",
    "connection_string",
    "kubeconfig",
    "credentials",
];

/// Free text from the fuzzer, never containing the secrets' marker.
#[derive(Debug, Arbitrary)]
pub struct Text(String);

impl Text {
    fn get(&self) -> String {
        self.0.replace('§', "_").chars().take(40).collect()
    }
}

/// A name: mostly Terraform-like, sometimes anything (dots, quotes, brackets, spaces…).
#[derive(Debug, Arbitrary)]
pub enum Name {
    Plain(u8),
    Odd(Text),
}

impl Name {
    fn get(&self, list: &[&str]) -> String {
        match self {
            Name::Plain(i) => list[*i as usize % list.len()].to_string(),
            Name::Odd(t) => t.get(),
        }
    }
}

/// An attribute's or map's key.
#[derive(Debug, Arbitrary)]
pub enum Key {
    Plain(u8),
    Secret(u8),
    Odd(Text),
    /// A key with the characters addresses and paths give meaning to.
    Tricky(u8),
}

impl Key {
    fn get(&self) -> (String, bool) {
        match self {
            Key::Plain(i) => (
                PLAIN_KEYS[*i as usize % PLAIN_KEYS.len()].to_string(),
                false,
            ),
            Key::Secret(i) => (
                SECRET_KEYS[*i as usize % SECRET_KEYS.len()].to_string(),
                true,
            ),
            Key::Odd(t) => (t.get(), false),
            Key::Tricky(i) => {
                const TRICKY: &[&str] = &[
                    "a.b",
                    "a\"b",
                    "[0]",
                    "x[\"k\"]",
                    "",
                    "..",
                    "tags.Name",
                    "a\\b",
                    "kubernetes.io/role",
                ];
                (TRICKY[*i as usize % TRICKY.len()].to_string(), false)
            }
        }
    }
}

/// A value without children.
#[derive(Debug, Arbitrary)]
pub enum Leaf {
    Null,
    Bool(bool),
    Int(i64),
    Float(i32, u8),
    Str(Text),
    Empty,
}

/// One level of nesting.
#[derive(Debug, Arbitrary)]
pub enum Inner {
    Leaf(Leaf),
    List(Vec<(Leaf, bool)>),
    Map(Vec<(Key, Leaf, bool)>),
}

/// An attribute's value: up to three levels, each element or entry possibly marked sensitive.
#[derive(Debug, Arbitrary)]
pub enum Val {
    Inner(Inner),
    List(Vec<(Inner, bool)>),
    Map(Vec<(Key, Inner, bool)>),
}

/// An attribute of a resource's object.
#[derive(Debug, Arbitrary)]
pub struct Attr {
    key: Key,
    value: Val,
    sensitive: bool,
    unknown: bool,
}

/// The actions of a change.
#[derive(Debug, Arbitrary, Clone, Copy)]
pub enum Actions {
    NoOp,
    Create,
    Read,
    Update,
    DeleteCreate,
    CreateDelete,
    CreateForget,
    Delete,
    Forget,
}

impl Actions {
    fn names(self) -> &'static [&'static str] {
        match self {
            Actions::NoOp => &["no-op"],
            Actions::Create => &["create"],
            Actions::Read => &["read"],
            Actions::Update => &["update"],
            Actions::DeleteCreate => &["delete", "create"],
            Actions::CreateDelete => &["create", "delete"],
            Actions::CreateForget => &["create", "forget"],
            Actions::Delete => &["delete"],
            Actions::Forget => &["forget"],
        }
    }

    fn has_before(self) -> bool {
        !matches!(self, Actions::Create | Actions::Read)
    }

    fn has_after(self) -> bool {
        !matches!(self, Actions::Delete | Actions::Forget)
    }
}

/// An instance key.
#[derive(Debug, Arbitrary)]
pub enum InstanceKey {
    Int(u8),
    Str(Name),
}

/// A module call on the path to a resource.
#[derive(Debug, Arbitrary)]
pub struct ModuleStep {
    name: Name,
    key: Option<InstanceKey>,
}

/// A resource change.
#[derive(Debug, Arbitrary)]
pub struct GenChange {
    modules: Vec<ModuleStep>,
    data: bool,
    resource_type: Name,
    name: Name,
    key: Option<InstanceKey>,
    actions: Actions,
    before: Vec<Attr>,
    after: Vec<Attr>,
    moved_from: Option<Name>,
    importing: bool,
    reason: Option<u8>,
    /// Changes (by position) this one's configuration refers to.
    references: Vec<u8>,
}

/// A drift entry: of a change above (by position) or of a resource the plan does not change.
#[derive(Debug, Arbitrary)]
pub struct GenDrift {
    of: Option<u8>,
    name: Name,
    delete: bool,
    before: Vec<Attr>,
    after: Vec<Attr>,
}

/// An output change.
#[derive(Debug, Arbitrary)]
pub struct GenOutput {
    name: Key,
    actions: u8,
    before: Inner,
    after: Inner,
    sensitive: bool,
}

/// A whole plan.
#[derive(Debug, Arbitrary)]
pub struct GenPlan {
    changes: Vec<GenChange>,
    drift: Vec<GenDrift>,
    outputs: Vec<GenOutput>,
    errored: bool,
    complete: Option<bool>,
    version: u8,
}

/// Builds values and their mirrors, recording every string that must stay hidden.
struct Writer {
    secrets: Vec<String>,
}

impl Writer {
    fn secret(&mut self) -> Value {
        let s = format!("§S{}§", self.secrets.len());
        self.secrets.push(s.clone());
        Value::String(s)
    }

    /// A leaf; `hidden`: it is under a secret name or a mark, so its strings are secrets.
    fn leaf(&mut self, leaf: &Leaf, hidden: bool) -> Value {
        match leaf {
            Leaf::Str(_) | Leaf::Empty if hidden => self.secret(),
            Leaf::Null => Value::Null,
            Leaf::Bool(b) => json!(b),
            Leaf::Int(i) => json!(i),
            Leaf::Float(m, e) => json!(f64::from(*m) / f64::from(u32::from(*e) + 1)),
            Leaf::Str(t) => Value::String(t.get()),
            Leaf::Empty => Value::String(String::new()),
        }
    }

    /// `(value, sensitivity mirror)`; the mirror is `false` where nothing is marked.
    fn inner(&mut self, inner: &Inner, hidden: bool) -> (Value, Value) {
        match inner {
            Inner::Leaf(l) => (self.leaf(l, hidden), json!(false)),
            Inner::List(items) => {
                let (values, marks): (Vec<Value>, Vec<Value>) = (items.iter().take(6))
                    .map(|(l, s)| (self.leaf(l, hidden || *s), json!(*s)))
                    .unzip();
                (Value::Array(values), Value::Array(marks))
            }
            Inner::Map(entries) => {
                let mut values = Map::new();
                let mut marks = Map::new();
                for (k, l, s) in entries.iter().take(6) {
                    let (key, secret_name) = k.get();
                    if values.contains_key(&key) {
                        continue;
                    }
                    values.insert(key.clone(), self.leaf(l, hidden || *s || secret_name));
                    if *s {
                        marks.insert(key, json!(true));
                    }
                }
                (Value::Object(values), Value::Object(marks))
            }
        }
    }

    fn val(&mut self, val: &Val, hidden: bool) -> (Value, Value) {
        match val {
            Val::Inner(i) => self.inner(i, hidden),
            Val::List(items) => {
                let (values, marks): (Vec<Value>, Vec<Value>) = (items.iter().take(4))
                    .map(|(i, s)| {
                        let (v, m) = self.inner(i, hidden || *s);
                        (v, if *s { json!(true) } else { m })
                    })
                    .unzip();
                (Value::Array(values), Value::Array(marks))
            }
            Val::Map(entries) => {
                let mut values = Map::new();
                let mut marks = Map::new();
                for (k, i, s) in entries.iter().take(4) {
                    let (key, secret_name) = k.get();
                    if values.contains_key(&key) {
                        continue;
                    }
                    let (v, m) = self.inner(i, hidden || *s || secret_name);
                    values.insert(key.clone(), v);
                    if *s {
                        marks.insert(key, json!(true));
                    } else if m != json!(false) {
                        marks.insert(key, m);
                    }
                }
                (Value::Object(values), Value::Object(marks))
            }
        }
    }

    /// An object with its sensitivity and unknown mirrors (`unknown`: the after side, where an
    /// unknown attribute has no value).
    fn object(&mut self, attrs: &[Attr], unknown: bool) -> (Value, Value, Value) {
        let mut values = Map::new();
        let mut marks = Map::new();
        let mut unknowns = Map::new();
        for a in attrs.iter().take(8) {
            let (key, secret_name) = a.key.get();
            if values.contains_key(&key) || unknowns.contains_key(&key) {
                continue;
            }
            if unknown && a.unknown {
                unknowns.insert(key, json!(true));
                continue;
            }
            let (v, m) = self.val(&a.value, a.sensitive || secret_name);
            values.insert(key.clone(), v);
            if a.sensitive {
                marks.insert(key, json!(true));
            } else if m != json!(false) {
                marks.insert(key, m);
            }
        }
        (
            Value::Object(values),
            Value::Object(marks),
            Value::Object(unknowns),
        )
    }

    /// A `change` object for `actions`.
    fn change(&mut self, actions: Actions, before: &[Attr], after: &[Attr]) -> Value {
        let mut c = Map::new();
        c.insert("actions".into(), json!(actions.names()));
        if actions.has_before() {
            let (v, m, _) = self.object(before, false);
            c.insert("before".into(), v);
            c.insert("before_sensitive".into(), m);
        } else {
            c.insert("before".into(), Value::Null);
            c.insert("before_sensitive".into(), json!(false));
        }
        if actions.has_after() {
            let (v, m, u) = self.object(after, true);
            c.insert("after".into(), v);
            c.insert("after_sensitive".into(), m);
            c.insert("after_unknown".into(), u);
        } else {
            c.insert("after".into(), Value::Null);
            c.insert("after_sensitive".into(), json!(false));
            c.insert("after_unknown".into(), json!({}));
        }
        Value::Object(c)
    }
}

/// An `action_reason`: one Terraform documents, or (the last choice) one a newer version might add.
fn reason(r: u8) -> &'static str {
    let documented = planlens::model::reason::DOCUMENTED;
    documented
        .get(r as usize % (documented.len() + 1))
        .copied()
        .unwrap_or("something_new")
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).expect("a string")
}

fn instance_key(key: &Option<InstanceKey>) -> (String, Value) {
    match key {
        None => (String::new(), Value::Null),
        Some(InstanceKey::Int(i)) => (format!("[{i}]"), json!(i)),
        Some(InstanceKey::Str(n)) => {
            let s = n.get(NAMES);
            (format!("[{}]", quote(&s)), json!(s))
        }
    }
}

impl GenPlan {
    /// The plan's JSON and what was generated.
    pub fn case(&self) -> Case {
        let mut w = Writer {
            secrets: Vec::new(),
        };
        let mut seen = BTreeSet::new();
        let mut changes = Vec::new();
        let mut case_changes: Vec<CaseChange> = Vec::new();
        let mut config_resources: Vec<Value> = Vec::new();
        for c in self.changes.iter().take(24) {
            let module = (c.modules.iter().take(3))
                .map(|m| {
                    let name: String = (m.name.get(NAMES).chars())
                        .filter(|ch| ch.is_ascii_alphanumeric() || *ch == '_' || *ch == '-')
                        .collect();
                    let name = if name.is_empty() {
                        "m".to_string()
                    } else {
                        name
                    };
                    format!("module.{name}{}", instance_key(&m.key).0)
                })
                .collect::<Vec<_>>()
                .join(".");
            let resource_type = c.resource_type.get(TYPES);
            let name = c.name.get(NAMES);
            let (key, index) = instance_key(&c.key);
            let prefix = if module.is_empty() {
                String::new()
            } else {
                format!("{module}.")
            };
            let data = if c.data { "data." } else { "" };
            let address = format!("{prefix}{data}{resource_type}.{name}{key}");
            if !seen.insert(address.clone()) {
                continue;
            }
            let mut rc = Map::new();
            rc.insert("address".into(), json!(address));
            if !module.is_empty() {
                rc.insert("module_address".into(), json!(module));
            }
            rc.insert(
                "mode".into(),
                json!(if c.data { "data" } else { "managed" }),
            );
            rc.insert("type".into(), json!(resource_type));
            rc.insert("name".into(), json!(name));
            if !index.is_null() {
                rc.insert("index".into(), index);
            }
            rc.insert(
                "provider_name".into(),
                json!(format!(
                    "registry.terraform.io/hashicorp/{}",
                    resource_type.split('_').next().unwrap_or("null")
                )),
            );
            let previous_address = c
                .moved_from
                .as_ref()
                .map(|n| format!("{prefix}{data}{resource_type}.{}{key}", n.get(NAMES)));
            if let Some(p) = &previous_address {
                rc.insert("previous_address".into(), json!(p));
            }
            let mut change = w.change(c.actions, &c.before, &c.after);
            if c.importing {
                change["importing"] = json!({"id": format!("import-{}", changes.len())});
            }
            rc.insert("change".into(), change);
            if let Some(r) = c.reason {
                rc.insert(
                    "action_reason".into(),
                    json!(reason(r)),
                );
            }
            if module.is_empty() && !c.data {
                config_resources.push(json!({
                    "address": format!("{resource_type}.{name}"),
                    "mode": "managed",
                    "type": resource_type,
                    "name": name,
                    "references": c.references,
                }));
            }
            changes.push(Value::Object(rc));
            case_changes.push(CaseChange {
                address,
                actions: c.actions.names().iter().map(|s| s.to_string()).collect(),
                data: c.data,
                importing: c.importing,
                previous_address,
            });
        }
        // The configuration: root resources referring to each other by position.
        let addresses: Vec<String> = (config_resources.iter())
            .map(|r| r["address"].as_str().unwrap_or_default().to_string())
            .collect();
        let resources: Vec<Value> = (config_resources.iter())
            .map(|r| {
                let refs: Vec<String> = (r["references"].as_array().into_iter().flatten())
                    .filter_map(|i| i.as_u64())
                    .filter(|_| !addresses.is_empty())
                    .map(|i| addresses[i as usize % addresses.len()].clone())
                    .collect();
                json!({
                    "address": r["address"],
                    "mode": "managed",
                    "type": r["type"],
                    "name": r["name"],
                    "provider_config_key": "aws",
                    "expressions": {"x": {"references": refs}},
                    "schema_version": 0,
                })
            })
            .collect();
        let mut drift = Vec::new();
        for d in self.drift.iter().take(6) {
            let (address, resource_type, name) = match d.of {
                Some(i) if !case_changes.is_empty() => {
                    let c = &changes[i as usize % changes.len()];
                    (
                        c["address"].as_str().unwrap_or_default().to_string(),
                        c["type"].clone(),
                        c["name"].clone(),
                    )
                }
                _ => {
                    let name = d.name.get(NAMES);
                    (
                        format!("aws_instance.drift_{name}"),
                        json!("aws_instance"),
                        json!(format!("drift_{name}")),
                    )
                }
            };
            let actions = if d.delete {
                Actions::Delete
            } else {
                Actions::Update
            };
            drift.push(json!({
                "address": address,
                "mode": "managed",
                "type": resource_type,
                "name": name,
                "provider_name": "registry.terraform.io/hashicorp/aws",
                "change": w.change(actions, &d.before, &d.after),
            }));
        }
        let mut outputs = Map::new();
        let mut output_actions = Vec::new();
        for o in self.outputs.iter().take(6) {
            let (name, secret_name) = o.name.get();
            if outputs.contains_key(&name) {
                continue;
            }
            let actions = [
                Actions::Create,
                Actions::Update,
                Actions::Delete,
                Actions::NoOp,
            ][o.actions as usize % 4];
            let hidden = o.sensitive || secret_name;
            // An output's mirror is `true` when the output is sensitive, else its elements' marks.
            let mut side = |present: bool, inner: &Inner| match present {
                false => (Value::Null, json!(o.sensitive)),
                true => {
                    let (v, m) = w.inner(inner, hidden);
                    (v, if o.sensitive { json!(true) } else { m })
                }
            };
            let (before, before_sensitive) = side(actions.has_before(), &o.before);
            let (after, after_sensitive) = side(actions.has_after(), &o.after);
            outputs.insert(
                name,
                json!({
                    "actions": actions.names(),
                    "before": before,
                    "after": after,
                    "after_unknown": false,
                    "before_sensitive": before_sensitive,
                    "after_sensitive": after_sensitive,
                }),
            );
            output_actions.push(actions.names().iter().map(|s| s.to_string()).collect());
        }
        let format_version = ["1.2", "1.0", "0.2", "1.1"][self.version as usize % 4];
        let mut plan = json!({
            "format_version": format_version,
            "terraform_version": "1.9.5",
            "planned_values": {"root_module": {}},
            "resource_changes": changes,
            "output_changes": outputs,
            "configuration": {"root_module": {"resources": resources}},
            "timestamp": "2024-01-01T00:00:00Z",
            "applyable": true,
            "errored": self.errored,
        });
        if !drift.is_empty() {
            plan["resource_drift"] = Value::Array(drift);
        }
        if let Some(complete) = self.complete {
            plan["complete"] = json!(complete);
        }
        Case {
            plan: serde_json::to_string_pretty(&plan).expect("a plan writes"),
            changes: case_changes,
            drift_entries: plan["resource_drift"].as_array().map_or(0, Vec::len),
            output_actions,
            secrets: w.secrets,
        }
    }
}
