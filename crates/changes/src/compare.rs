//! Two plans of the same configuration compared: what changed since the last review. The plans
//! are matched resource by resource (by address, following `previous_address` moves), and the
//! answer says which changes are new, which are no longer planned, whose action changed, whose
//! planned values changed, and where drift appeared or went away ([`compare`]).
//!
//! Noise is not a difference: the plans' timestamps, the order of resources, the order of array
//! elements (Terraform writes sets as JSON arrays in no meaningful order, and without the schema a
//! set cannot be told from a list, so every array is compared as a multiset), and values unknown
//! in both plans.
//!
//! Invariant: a sensitive value never reaches a [`ValueChange`]. A value is sensitive when either
//! plan marks it (`after_sensitive`, at any depth) or when its attribute name, or a name above it,
//! is secret-like under either document's mask (`doc.masking`); both sides are then written
//! `(sensitive value)`, even the side that is not marked, since it may be the same secret unmarked.
//! A full share link carries a placeholder instead of each sensitive value, so against a link's
//! plan a sensitive value is not compared (a change to it cannot be seen).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use planlens_model::mask::Mask;
use planlens_model::text::quoted;
use planlens_model::{Action, Document, ResourceChange, RowSource, sort};

use crate::diff::{Side, has_true};
use crate::drift::Drift;

/// What changed between an older plan (the one last reviewed) and a newer one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comparison {
    /// Changes the newer plan makes that the older one did not (a no-op is not a change).
    pub added: Vec<Planned>,
    /// Changes the older plan made that the newer one no longer makes.
    pub removed: Vec<Planned>,
    /// Resources both plans change, with a different action.
    pub action_changed: Vec<ActionChanged>,
    /// Resources both plans change with the same action, whose planned values differ.
    pub values_changed: Vec<ValuesChanged>,
    /// Resources planned in both whose address changed between them (a `moved` block added or
    /// taken back), by their address in each plan.
    pub moved: Vec<Moved>,
    /// Addresses that drifted in the newer plan and not in the older.
    pub drift_appeared: Vec<String>,
    /// Addresses that drifted in the older plan and no longer in the newer.
    pub drift_gone: Vec<String>,
    /// Changes planned the same in both plans: same action, same planned values (not counting
    /// no-ops).
    pub unchanged: usize,
    /// True when planned values were compared; false when either plan carries none (a redacted
    /// link, a plan log): then only addresses, actions and drift were compared.
    pub values_compared: bool,
    /// True when the older plan came from a redacted link (addresses, actions, drift and findings
    /// only).
    pub old_is_redacted: bool,
}

impl Comparison {
    /// True when nothing differs between the two plans (noise aside).
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.action_changed.is_empty()
            && self.values_changed.is_empty()
            && self.moved.is_empty()
            && self.drift_appeared.is_empty()
            && self.drift_gone.is_empty()
    }
}

/// A change one plan makes: its address and action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Planned {
    /// The resource instance's address (with ` (deposed KEY)` for a deposed object).
    pub address: String,
    /// What that plan does to it.
    #[serde(with = "planlens_model::action::by_key")]
    pub action: Action,
}

/// A resource whose planned action changed, e.g. update → replace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionChanged {
    /// Its address in the newer plan.
    pub address: String,
    /// The older plan's action.
    #[serde(with = "planlens_model::action::by_key")]
    pub before: Action,
    /// The newer plan's action.
    #[serde(with = "planlens_model::action::by_key")]
    pub after: Action,
    /// The newer plan's `replace_paths`, each written as an attribute path (`ami`,
    /// `network_interface[0].subnet_id`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replace_paths: Vec<String>,
    /// The newer plan's `action_reason`, as Terraform writes it (`replace_because_tainted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_reason: Option<String>,
}

/// A resource planned with the same action in both plans whose planned values differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValuesChanged {
    /// Its address in the newer plan.
    pub address: String,
    /// The action both plans plan.
    #[serde(with = "planlens_model::action::by_key")]
    pub action: Action,
    /// The attributes whose planned value differs, by path.
    pub attributes: Vec<ValueChange>,
}

/// One attribute whose planned value differs between the plans.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueChange {
    /// The attribute path: `tags.team`, `grant[1].permissions[0]`, `labels["app.kubernetes.io"]`.
    pub path: String,
    /// The older plan's planned value as the diff writes it (`"text"`, `3`, `null`, `{ 2 entries
    /// }`, `(sensitive value)`, `(known after apply)`).
    pub before: String,
    /// The newer plan's planned value, written the same way.
    pub after: String,
}

/// A resource both plans change whose address differs between them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moved {
    /// Its address in the older plan.
    pub from: String,
    /// Its address in the newer plan.
    pub to: String,
}

/// At most this many attribute paths are listed per resource; a comparison of two very different
/// plans stays readable and small.
pub const MAX_PATHS: usize = 50;

/// One planned or deferred change of a document, with the key it is matched by.
struct Entry<'d> {
    key: String,
    change: &'d ResourceChange<'d>,
    action: Action,
}

fn entries(doc: &Document) -> Vec<Entry<'_>> {
    doc.rows
        .iter()
        .filter(|r| !matches!(r.source, RowSource::Drift(_)))
        .map(|r| {
            let change = doc.change(r);
            Entry {
                key: key(&change.address, change.deposed.as_deref()),
                change,
                action: r.action,
            }
        })
        .collect()
}

fn key(address: &str, deposed: Option<&str>) -> String {
    match deposed {
        Some(d) => format!("{address} (deposed {d})"),
        None => address.to_string(),
    }
}

/// Compares the plan last reviewed (`old`) with a newer one (`new`); see the module
/// documentation for what counts as a difference.
pub fn compare(old: &Document, new: &Document) -> Comparison {
    let old_entries = entries(old);
    let new_entries = entries(new);
    let old_by_key: BTreeMap<&str, &Entry> =
        old_entries.iter().map(|e| (e.key.as_str(), e)).collect();
    let values_compared = old.has_values() && new.has_values();
    let masks = [&old.masking.mask, &new.masking.mask];

    let mut out = Comparison {
        values_compared,
        old_is_redacted: old.values_dropped(),
        ..Comparison::default()
    };
    let mut matched: BTreeSet<&str> = BTreeSet::new();
    for n in &new_entries {
        // The same resource: at the same address, or at the address it moved from.
        let found = old_by_key.get(n.key.as_str()).or_else(|| {
            let previous = n.change.previous_address.as_deref()?;
            old_by_key.get(key(previous, n.change.deposed.as_deref()).as_str())
        });
        let Some(o) = found.filter(|o| !matched.contains(o.key.as_str())) else {
            if n.action != Action::NoOp {
                out.added.push(planned(n));
            }
            continue;
        };
        matched.insert(&o.key);
        match (o.action, n.action) {
            (Action::NoOp, Action::NoOp) => continue,
            (Action::NoOp, _) => {
                out.added.push(planned(n));
                continue;
            }
            (_, Action::NoOp) => {
                out.removed.push(planned(o));
                continue;
            }
            _ => {}
        }
        if o.key != n.key {
            out.moved.push(Moved {
                from: o.key.clone(),
                to: n.key.clone(),
            });
        }
        if o.action != n.action {
            out.action_changed.push(ActionChanged {
                address: n.key.clone(),
                before: o.action,
                after: n.action,
                replace_paths: replace_paths(n.change.change.replace_paths),
                action_reason: n.change.action_reason.as_deref().map(str::to_string),
            });
            continue;
        }
        let attributes = if values_compared {
            planned_values_differ(o.change, n.change, masks)
        } else {
            Vec::new()
        };
        if attributes.is_empty() {
            out.unchanged += 1;
        } else {
            out.values_changed.push(ValuesChanged {
                address: n.key.clone(),
                action: n.action,
                attributes,
            });
        }
    }
    for o in &old_entries {
        if !matched.contains(o.key.as_str()) && o.action != Action::NoOp {
            out.removed.push(planned(o));
        }
    }

    let (old_drift, new_drift) = (drifted(old), drifted(new));
    out.drift_appeared = new_drift.difference(&old_drift).cloned().collect();
    out.drift_gone = old_drift.difference(&new_drift).cloned().collect();

    // Resource order is noise: the answer reads in address order whatever either plan's order.
    sort::by_key(&mut out.added, |p| p.address.clone());
    sort::by_key(&mut out.removed, |p| p.address.clone());
    sort::by_key(&mut out.action_changed, |a| a.address.clone());
    sort::by_key(&mut out.values_changed, |v| v.address.clone());
    sort::by_key(&mut out.moved, |m| m.to.clone());
    out
}

fn planned(e: &Entry) -> Planned {
    Planned {
        address: e.key.clone(),
        action: e.action,
    }
}

/// The addresses that drifted: found in the plan, or carried by a redacted link.
fn drifted(doc: &Document) -> BTreeSet<String> {
    match &doc.redacted {
        Some(carried) => carried.drift.iter().map(|d| d.address.clone()).collect(),
        None => Drift::of(doc)
            .resources
            .into_iter()
            .map(|d| d.address)
            .collect(),
    }
}

fn replace_paths(raw: Option<&RawValue>) -> Vec<String> {
    let Some(Value::Array(paths)) = raw.and_then(|r| serde_json::from_str(r.get()).ok()) else {
        return Vec::new();
    };
    paths
        .iter()
        .filter_map(|p| p.as_array())
        .map(|steps| {
            let mut path = String::new();
            for step in steps {
                match step {
                    Value::String(s) => push_attr(&mut path, s),
                    Value::Number(n) => path.push_str(&format!("[{n}]")),
                    other => path.push_str(&format!("[{other}]")),
                }
            }
            path
        })
        .collect()
}

fn push_attr(path: &mut String, name: &str) {
    let plain = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(name);
    } else {
        path.push('[');
        path.push_str(&quoted(name));
        path.push(']');
    }
}

fn parse(raw: Option<&RawValue>) -> Option<Value> {
    raw.and_then(|r| serde_json::from_str(r.get()).ok())
}

/// The attribute paths whose planned (`after`) values differ between two changes with the same
/// action, with both values as they may be shown.
fn planned_values_differ(
    old: &ResourceChange,
    new: &ResourceChange,
    masks: [&Mask; 2],
) -> Vec<ValueChange> {
    let values = |c: &ResourceChange| {
        [
            parse(c.change.after),
            parse(c.change.after_sensitive),
            parse(c.change.after_unknown),
        ]
    };
    let [ov, os, ou] = values(old);
    let [nv, ns, nu] = values(new);
    let a = Node {
        value: ov.as_ref(),
        sensitive: os.as_ref(),
        unknown: ou.as_ref(),
        secret: false,
    };
    let b = Node {
        value: nv.as_ref(),
        sensitive: ns.as_ref(),
        unknown: nu.as_ref(),
        secret: false,
    };
    let mut out = Vec::new();
    Walk {
        masks,
        out: &mut out,
    }
    .node(&mut String::new(), a, b);
    out
}

/// One side of an attribute: its value, its sensitivity and unknown mirrors, and whether a
/// secret-like name is on its path.
#[derive(Clone, Copy, Default)]
struct Node<'v> {
    value: Option<&'v Value>,
    sensitive: Option<&'v Value>,
    unknown: Option<&'v Value>,
    secret: bool,
}

enum Step<'k> {
    Attr(&'k str),
    Index(usize),
}

impl<'v> Node<'v> {
    fn at(&self, step: &Step, masks: [&Mask; 2]) -> Node<'v> {
        Node {
            value: child(self.value, step),
            sensitive: child(self.sensitive, step),
            unknown: child(self.unknown, step),
            secret: self.secret
                || matches!(step, Step::Attr(k) if masks.iter().any(|m| m.matches(k))),
        }
    }

    fn is_sensitive(&self) -> bool {
        self.secret || matches!(self.sensitive, Some(Value::Bool(true)))
    }

    fn is_unknown(&self) -> bool {
        matches!(self.unknown, Some(Value::Bool(true)))
    }

    fn is_null(&self) -> bool {
        self.value.is_none_or(Value::is_null)
    }

    /// How the side reads, through the diff's own [`Side`]; `hide`: the other side is sensitive.
    fn shown(&self, hide: bool) -> String {
        let side = if self.is_unknown() {
            Side::Unknown
        } else if self.is_null() {
            Side::Scalar("null".to_string())
        } else if hide || self.is_sensitive() {
            Side::Sensitive
        } else {
            match self.value {
                Some(Value::Object(m)) => Side::Object(m.len()),
                Some(Value::Array(a)) => Side::List(a.len()),
                Some(Value::String(s)) => Side::Scalar(quoted(s)),
                Some(v) => Side::Scalar(v.to_string()),
                None => Side::Scalar("null".to_string()),
            }
        };
        side.display()
    }

    /// A canonical text of the side, equal for equal values with equal marks: object keys sorted,
    /// array elements sorted (arrays are compared as multisets).
    fn canonical(&self) -> String {
        format!(
            "{}\u{0}{}\u{0}{}",
            self.value.map(canonical).unwrap_or_default(),
            self.sensitive.map(marks).unwrap_or_default(),
            self.unknown.map(marks).unwrap_or_default(),
        )
    }
}

/// How a full share link writes a sensitive value it left out: `(sensitive 1)`, `(sensitive 2)`,
/// … (`planlens_session::share::strip::SENSITIVE`, a layer above this one).
fn has_placeholder(v: &Value) -> bool {
    match v {
        Value::String(s) => s
            .strip_prefix("(sensitive ")
            .and_then(|rest| rest.strip_suffix(')'))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
        Value::Object(m) => m.values().any(has_placeholder),
        Value::Array(a) => a.iter().any(has_placeholder),
        _ => false,
    }
}

fn child<'v>(v: Option<&'v Value>, step: &Step) -> Option<&'v Value> {
    match (v?, step) {
        (Value::Object(m), Step::Attr(k)) => m.get(*k),
        (Value::Array(a), Step::Index(i)) => a.get(*i),
        // A mirror of `true` covers everything under it.
        (t @ Value::Bool(true), _) => Some(t),
        _ => None,
    }
}

fn canonical(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<String> = m
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), canonical(v)))
                .collect();
            sort::natural(&mut entries);
            format!("{{{}}}", entries.join(","))
        }
        Value::Array(a) => {
            let mut items: Vec<String> = a.iter().map(canonical).collect();
            sort::natural(&mut items);
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

/// A mirror's canonical text, with what marks nothing (`false`, `{}`, `[]`) left out.
fn marks(mirror: &Value) -> String {
    if has_true(mirror) {
        canonical(mirror)
    } else {
        String::new()
    }
}

struct Walk<'o> {
    masks: [&'o Mask; 2],
    out: &'o mut Vec<ValueChange>,
}

impl Walk<'_> {
    fn push(&mut self, path: &str, a: Node, b: Node) {
        if self.out.len() >= MAX_PATHS {
            return;
        }
        let hide = a.is_sensitive() || b.is_sensitive();
        self.out.push(ValueChange {
            path: if path.is_empty() {
                "(the whole value)".to_string()
            } else {
                path.to_string()
            },
            before: a.shown(hide),
            after: b.shown(hide),
        });
    }

    fn node(&mut self, path: &mut String, a: Node, b: Node) {
        match (a.is_unknown(), b.is_unknown()) {
            (true, true) => return,
            (false, false) => {}
            _ => return self.push(path, a, b),
        }
        if a.is_sensitive() || b.is_sensitive() {
            // Compared, never shown; a full link's placeholder says nothing of the value it
            // stands for, so against one no change can be seen.
            if [a, b].iter().any(|n| n.value.is_some_and(has_placeholder)) {
                return;
            }
            if a.canonical() != b.canonical() || a.is_sensitive() != b.is_sensitive() {
                self.push(path, a, b);
            }
            return;
        }
        // An object or array on one side and nothing on the other reads element by element, so
        // the answer names the attributes set, not just a count.
        let empty_object = serde_json::Map::new();
        fn object<'v>(n: &Node<'v>) -> Option<&'v serde_json::Map<String, Value>> {
            match n.value {
                Some(Value::Object(m)) => Some(m),
                _ => None,
            }
        }
        fn array<'v>(n: &Node<'v>) -> Option<&'v [Value]> {
            match n.value {
                Some(Value::Array(v)) => Some(v.as_slice()),
                _ => None,
            }
        }
        let objects = match (object(&a), object(&b)) {
            (Some(x), Some(y)) => Some((x, y)),
            (Some(x), None) if b.is_null() => Some((x, &empty_object)),
            (None, Some(y)) if a.is_null() => Some((&empty_object, y)),
            _ => None,
        };
        let arrays = match (array(&a), array(&b)) {
            (Some(x), Some(y)) => Some((x, y)),
            (Some(x), None) if b.is_null() => Some((x, &[][..])),
            (None, Some(y)) if a.is_null() => Some((&[][..], y)),
            _ => None,
        };
        match (objects, arrays) {
            (Some((x, y)), _) => {
                let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                for k in keys {
                    let step = Step::Attr(k);
                    let (ca, cb) = (a.at(&step, self.masks), b.at(&step, self.masks));
                    if ca.is_null() && cb.is_null() && !ca.is_unknown() && !cb.is_unknown() {
                        continue;
                    }
                    let len = path.len();
                    push_attr(path, k);
                    self.node(path, ca, cb);
                    path.truncate(len);
                }
            }
            (None, Some((x, y))) => self.elements(path, a, b, x, y),
            (None, None) => {
                if a.is_null() && b.is_null() {
                    return;
                }
                if a.value != b.value {
                    self.push(path, a, b);
                }
            }
        }
    }

    /// Arrays as multisets: elements equal in value and marks pair off whatever their order;
    /// what is left pairs in order (and the longer side's extra elements stand alone).
    fn elements(&mut self, path: &mut String, a: Node, b: Node, x: &[Value], y: &[Value]) {
        let side = |n: Node, len: usize| -> Vec<(usize, String)> {
            (0..len)
                .map(|i| (i, n.at(&Step::Index(i), self.masks).canonical()))
                .collect()
        };
        let mut left_a = side(a, x.len());
        let mut left_b = side(b, y.len());
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for (_, c) in &left_b {
            *counts.entry(c.clone()).or_default() += 1;
        }
        let mut common: BTreeMap<String, usize> = BTreeMap::new();
        left_a.retain(|(_, c)| match counts.get_mut(c) {
            Some(n) if *n > 0 => {
                *n -= 1;
                *common.entry(c.clone()).or_default() += 1;
                false
            }
            _ => true,
        });
        left_b.retain(|(_, c)| match common.get_mut(c) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        });
        let pairs = left_a.len().max(left_b.len());
        for i in 0..pairs {
            let (ia, ib) = (left_a.get(i).map(|e| e.0), left_b.get(i).map(|e| e.0));
            let ca = ia.map_or_else(Node::default, |i| a.at(&Step::Index(i), self.masks));
            let cb = ib.map_or_else(Node::default, |i| b.at(&Step::Index(i), self.masks));
            // An extra element keeps the list's secret-name flag.
            let ca = Node {
                secret: ca.secret || a.secret,
                ..ca
            };
            let cb = Node {
                secret: cb.secret || b.secret,
                ..cb
            };
            let len = path.len();
            path.push_str(&format!("[{}]", ib.or(ia).unwrap_or(i)));
            self.node(path, ca, cb);
            path.truncate(len);
        }
    }
}
