//! The attribute diff of one change: a tree of before → after with sensitive values masked.
//!
//! Invariant: a value marked sensitive (`before_sensitive`/`after_sensitive`, at any depth, or an
//! output marked sensitive as a whole) never reaches a [`DiffNode`]; only [`Side::Sensitive`] does.
//! Everything downstream (UI, CLI, share links) can therefore show any node without checking again.

use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::plan::Change as PlanChange;
use crate::model::text::quoted;

/// One step of an attribute path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathKey {
    /// An object attribute or map key.
    Attr(String),
    /// A list, set or tuple index.
    Index(usize),
}

/// One side (before or after) of a node, as it may be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Side {
    /// No value on this side (created, or destroyed).
    Absent,
    /// A scalar, already written as text (strings quoted and escaped).
    Scalar(String),
    /// An object or map with this many entries (entries are children).
    Object(usize),
    /// A list, set or tuple with this many elements (elements are children).
    List(usize),
    /// Marked sensitive: the value is not here.
    Sensitive,
    /// Known only after apply.
    Unknown,
}

impl Side {
    /// How the side reads in a diff.
    pub fn display(&self) -> String {
        match self {
            Side::Absent => String::new(),
            Side::Scalar(s) => s.clone(),
            Side::Object(0) => "{}".to_string(),
            Side::Object(n) => format!("{{ {n} {} }}", if *n == 1 { "entry" } else { "entries" }),
            Side::List(0) => "[]".to_string(),
            Side::List(n) => format!("[ {n} {} ]", if *n == 1 { "element" } else { "elements" }),
            Side::Sensitive => "(sensitive value)".to_string(),
            Side::Unknown => "(known after apply)".to_string(),
        }
    }
}

/// How a node changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeChange {
    /// Only an after value.
    Added,
    /// Only a before value.
    Removed,
    /// Both, different (or the after value is not known yet).
    Modified,
    /// Both, equal.
    Unchanged,
}

/// One attribute (or element) in the diff tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffNode {
    /// The key under its parent; `None` for the root.
    pub key: Option<PathKey>,
    /// The value before.
    pub before: Side,
    /// The value after.
    pub after: Side,
    /// How it changes.
    pub change: NodeChange,
    /// True when this path is in `replace_paths`: changing it forces replacement.
    pub forces_replacement: bool,
    /// Attributes or elements, for objects and lists.
    pub children: Vec<DiffNode>,
}

impl DiffNode {
    /// The key as shown (`ami`, `[0]`, `"quoted key"` for keys that are not identifiers).
    pub fn key_label(&self) -> String {
        match &self.key {
            None => String::new(),
            Some(PathKey::Index(i)) => format!("[{i}]"),
            Some(PathKey::Attr(k)) => {
                let plain = !k.is_empty()
                    && k.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                if plain { k.clone() } else { quoted(k) }
            }
        }
    }

    /// Number of unchanged direct children (folded by default).
    pub fn unchanged_children(&self) -> usize {
        self.children
            .iter()
            .filter(|c| c.change == NodeChange::Unchanged)
            .count()
    }
}

/// Why a diff could not be built (the plan's values are not valid JSON of the expected shape).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffError(pub String);

impl std::fmt::Display for DiffError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn parse(raw: Option<&RawValue>, what: &str) -> Result<Option<Value>, DiffError> {
    match raw {
        None => Ok(None),
        Some(r) => serde_json::from_str::<Value>(r.get())
            .map(|v| if v.is_null() { None } else { Some(v) })
            .map_err(|e| DiffError(format!("{what} is not valid JSON: {e}"))),
    }
}

/// Builds the diff tree of one change (of a resource or of an output).
pub fn diff_change(change: &PlanChange) -> Result<DiffNode, DiffError> {
    let before = parse(change.before, "before")?;
    let after = parse(change.after, "after")?;
    let after_unknown = parse(change.after_unknown, "after_unknown")?;
    let before_sensitive = parse(change.before_sensitive, "before_sensitive")?;
    let after_sensitive = parse(change.after_sensitive, "after_sensitive")?;
    let replace_paths = parse(change.replace_paths, "replace_paths")?;
    let replace_paths: Vec<Vec<Value>> = match replace_paths {
        Some(Value::Array(paths)) => paths
            .into_iter()
            .filter_map(|p| match p {
                Value::Array(steps) => Some(steps),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let ctx = Ctx {
        replace_paths: &replace_paths,
    };
    let mut path = Vec::new();
    Ok(ctx.node(
        None,
        Masked::new(before.as_ref(), before_sensitive.as_ref()),
        Masked::new(after.as_ref(), after_sensitive.as_ref()),
        after_unknown.as_ref(),
        &mut path,
    ))
}

/// A value together with its sensitivity mirror.
#[derive(Clone, Copy)]
struct Masked<'v> {
    value: Option<&'v Value>,
    sensitive: Option<&'v Value>,
}

impl<'v> Masked<'v> {
    fn new(value: Option<&'v Value>, sensitive: Option<&'v Value>) -> Self {
        Masked { value, sensitive }
    }

    fn is_sensitive(&self) -> bool {
        matches!(self.sensitive, Some(Value::Bool(true)))
    }

    fn child(&self, key: &PathKey) -> Masked<'v> {
        Masked {
            value: child(self.value, key),
            sensitive: child(self.sensitive, key),
        }
    }

    /// The side as shown; `unknown` only for the after side.
    fn side(&self, unknown: bool) -> Side {
        if unknown {
            return Side::Unknown;
        }
        if self.is_sensitive() {
            return if self.value.is_some() {
                Side::Sensitive
            } else {
                Side::Absent
            };
        }
        match self.value {
            None => Side::Absent,
            Some(Value::Object(m)) => Side::Object(m.len()),
            Some(Value::Array(a)) => Side::List(a.len()),
            Some(Value::String(s)) => Side::Scalar(quoted(s)),
            Some(Value::Null) => Side::Scalar("null".to_string()),
            Some(v) => Side::Scalar(v.to_string()),
        }
    }
}

fn child<'v>(v: Option<&'v Value>, key: &PathKey) -> Option<&'v Value> {
    match (v?, key) {
        (Value::Object(m), PathKey::Attr(k)) => m.get(k),
        (Value::Array(a), PathKey::Index(i)) => a.get(*i),
        // A mask of `true` covers everything under it.
        (t @ Value::Bool(true), _) => Some(t),
        _ => None,
    }
}

struct Ctx<'p> {
    replace_paths: &'p [Vec<Value>],
}

impl Ctx<'_> {
    fn forces_replacement(&self, path: &[PathKey]) -> bool {
        !path.is_empty()
            && self.replace_paths.iter().any(|rp| {
                rp.len() == path.len()
                    && rp.iter().zip(path).all(|(step, key)| match (step, key) {
                        (Value::String(s), PathKey::Attr(k)) => s == k,
                        (Value::Number(n), PathKey::Index(i)) => n.as_u64() == Some(*i as u64),
                        (Value::String(s), PathKey::Index(i)) => {
                            s.parse::<usize>().ok() == Some(*i)
                        }
                        _ => false,
                    })
            })
    }

    fn node(
        &self,
        key: Option<PathKey>,
        before: Masked,
        after: Masked,
        unknown: Option<&Value>,
        path: &mut Vec<PathKey>,
    ) -> DiffNode {
        let after_unknown = matches!(unknown, Some(Value::Bool(true)));
        let before_side = before.side(false);
        let after_side = after.side(after_unknown);

        // Children come only from sides that may be shown: never enumerate a sensitive or unknown
        // container (its keys can be as secret as its values).
        let before_open = if before.is_sensitive() {
            None
        } else {
            before.value
        };
        let after_open = if after.is_sensitive() || after_unknown {
            None
        } else {
            after.value
        };
        let unknown_open = if after.is_sensitive() { None } else { unknown };
        let keys = child_keys(before_open, after_open, unknown_open);

        let children: Vec<DiffNode> = keys
            .into_iter()
            .map(|k| {
                path.push(k.clone());
                let n = self.node(
                    Some(k.clone()),
                    before.child(&k),
                    after.child(&k),
                    child(unknown, &k),
                    path,
                );
                path.pop();
                n
            })
            .collect();

        let change = match (&before_side, &after_side) {
            (Side::Absent, Side::Absent) => NodeChange::Unchanged,
            (Side::Absent, _) => NodeChange::Added,
            (_, Side::Absent) => NodeChange::Removed,
            (_, Side::Unknown) => NodeChange::Modified,
            (Side::Object(_), Side::Object(_)) | (Side::List(_), Side::List(_)) => {
                if children.iter().all(|c| c.change == NodeChange::Unchanged) {
                    NodeChange::Unchanged
                } else {
                    NodeChange::Modified
                }
            }
            // Sensitive on either side: compare the real values, show neither (as Terraform does).
            _ => {
                if before.value == after.value && before.is_sensitive() == after.is_sensitive() {
                    NodeChange::Unchanged
                } else {
                    NodeChange::Modified
                }
            }
        };

        DiffNode {
            forces_replacement: self.forces_replacement(path),
            key,
            before: before_side,
            after: after_side,
            change,
            children,
        }
    }
}

/// Keys of the children to show: object keys (sorted) or list indices.
fn child_keys(
    before: Option<&Value>,
    after: Option<&Value>,
    unknown: Option<&Value>,
) -> Vec<PathKey> {
    let mut attrs: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    let mut list_len: Option<usize> = None;
    for v in [before, after, unknown].into_iter().flatten() {
        match v {
            Value::Object(m) => attrs.extend(m.keys().map(String::as_str)),
            Value::Array(a) => list_len = Some(list_len.unwrap_or(0).max(a.len())),
            _ => {}
        }
    }
    match list_len {
        Some(n) if attrs.is_empty() => (0..n).map(PathKey::Index).collect(),
        _ => attrs
            .into_iter()
            .map(|k| PathKey::Attr(k.to_string()))
            .collect(),
    }
}
