//! The attribute diff of one change: a tree of before → after with sensitive values masked, read
//! as `terraform show` reads a plan: list elements aligned by longest common subsequence
//! ([`align`](align::align)), JSON held in a string diffed as the JSON it encodes, multi-line
//! strings diffed line by line ([`string`]).
//!
//! Invariant: a value marked sensitive (`before_sensitive`/`after_sensitive`, at any depth, or an
//! output marked sensitive as a whole) never reaches a [`DiffNode`]; only [`Side::Sensitive`] does.
//! Everything downstream (UI, CLI, share links) can therefore show any node without checking again.
//!
//! Attributes null on both sides are left out, as Terraform leaves them out; a container's count is
//! the number of its children. Unknowns become `Side::Unknown`. A list with a sensitive or unknown
//! side pairs by index, never aligned through hidden values. `replace_paths` are marked (an element
//! by its index before the change). A text plan's lists pair as its `-`/`+`/`~` say
//! (`planlens_elements`): in a list whose elements the text hid, elements have no position
//! (`PathKey::Unpositioned`, no label) and the list's sides are `Side::Shown(n)`, never a length or
//! an absence; a plan without the key aligns as before.

mod align;
mod string;

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;
use serde_json::value::RawValue;

use planlens_model::plan::Change as PlanChange;
use planlens_model::text::quoted;

use align::Pair;

/// One step of an attribute path.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PathKey {
    /// An object attribute or map key.
    Attr(String),
    /// A list, set or tuple element, by its index before and after: `None` on the side it is not
    /// on, and the two differ when elements before it were added or removed.
    Index {
        /// Its index in the list before.
        before: Option<usize>,
        /// Its index in the list after.
        after: Option<usize>,
    },
    /// An element whose position the input does not say: a text plan prints no indexes and
    /// hides unchanged elements, so in a list it hid some of, an element is only removed, added
    /// or changed in place (its `change`), never "the element at index 1".
    Unpositioned,
}

impl PathKey {
    /// The element at index `i` on both sides.
    pub fn index(i: usize) -> PathKey {
        PathKey::Index {
            before: Some(i),
            after: Some(i),
        }
    }
}

/// One side (before or after) of a node, as it may be shown.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Side {
    /// No value on this side (created, or destroyed).
    Absent,
    /// A scalar, already written as text (strings quoted and escaped).
    Scalar(String),
    /// An object or map with this many entries (each one a child, unknown ones included).
    Object(usize),
    /// A list, set or tuple with this many elements (each one a child, unknown ones included).
    List(usize),
    /// A list read from a text plan that hid some of its elements (or blocks): this many of
    /// them are shown on this side, each one a child. Not its length, and with none shown not
    /// an empty list: the text does not say how many there are.
    Shown(usize),
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
            Side::Shown(0) => "[ none shown ]".to_string(),
            Side::Shown(n) => format!(
                "[ {n} {} shown ]",
                if *n == 1 { "element" } else { "elements" }
            ),
            Side::Sensitive => "(sensitive value)".to_string(),
            Side::Unknown => "(known after apply)".to_string(),
        }
    }

    /// True for JSON `null` (an attribute that is set to nothing).
    pub fn is_null(&self) -> bool {
        matches!(self, Side::Scalar(s) if s == "null")
    }
}

/// How a node changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// Which kind of container JSON held in a string encodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Container {
    /// A JSON object: the children are its attributes.
    Object,
    /// A JSON array: the children are its elements.
    Array,
}

/// What a node holds beneath it, so that a view can show it the way Terraform does.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Form {
    /// A scalar, a value that is not shown (sensitive, unknown) or values of different types
    /// before and after: no children.
    Scalar,
    /// An object or map: `children` are its attributes, sorted by name.
    Object,
    /// A list, set or tuple: `children` are its elements, aligned (removed, added, changed in
    /// place, unchanged).
    List,
    /// A string holding JSON on every side that has a value (Terraform prints `jsonencode(…)`):
    /// `children` are the diff of the object's attributes or the array's elements it encodes.
    Json(Container),
    /// A string with line breaks on a side (Terraform prints a heredoc): its lines, aligned.
    Lines(Vec<Line>),
}

/// One attribute (or element) in the diff tree.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    /// What it holds beneath it, and how `children` are to be read.
    pub form: Form,
    /// Attributes or elements, for objects, lists and JSON strings.
    pub children: Vec<DiffNode>,
}

impl DiffNode {
    /// The key as shown (`ami`, `[0]`, `"quoted key"` for keys that are not identifiers). An
    /// element is labelled by its index after the change, or before it when it is removed; one
    /// whose position is not known ([`PathKey::Unpositioned`]) has no label, as in Terraform's
    /// text.
    pub fn key_label(&self) -> String {
        match &self.key {
            None | Some(PathKey::Unpositioned) => String::new(),
            Some(PathKey::Index { before, after }) => match after.or(*before) {
                Some(i) => format!("[{i}]"),
                None => "[]".to_string(),
            },
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
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    // Only a text plan's conversion writes it; a damaged one is ignored, never an error.
    let elements = change
        .planlens_elements
        .and_then(|r| serde_json::from_str::<Value>(r.get()).ok());
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
        skip_nulls: true,
    };
    let mut path = Vec::new();
    let sides = Sides {
        before: Masked::new(before.as_ref(), before_sensitive.as_ref()),
        after: Masked::new(after.as_ref(), after_sensitive.as_ref()),
        unknown: after_unknown.as_ref(),
    };
    Ok(ctx.node(None, sides, elements.as_ref(), &mut path))
}

/// One step into a value on one side.
#[derive(Clone, Copy)]
enum Step<'k> {
    Attr(&'k str),
    Index(usize),
}

/// Both sides of one node: the values with their sensitivity mirrors, and the node's
/// `after_unknown`.
#[derive(Clone, Copy)]
struct Sides<'v> {
    before: Masked<'v>,
    after: Masked<'v>,
    unknown: Option<&'v Value>,
}

impl<'v> Sides<'v> {
    /// The child at `before` on the before side and `after` on the after side (its unknowns
    /// follow the after side).
    fn at(&self, before: Option<Step>, after: Option<Step>) -> Sides<'v> {
        Sides {
            before: self.before.at(before),
            after: self.after.at(after),
            unknown: after.and_then(|s| child(self.unknown, s)),
        }
    }
}

/// A value together with its sensitivity mirror.
#[derive(Clone, Copy, Default)]
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

    /// The child at `step`; nothing when the element is not on this side.
    fn at(&self, step: Option<Step>) -> Masked<'v> {
        match step {
            None => Masked::default(),
            Some(step) => Masked {
                value: child(self.value, step),
                sensitive: child(self.sensitive, step),
            },
        }
    }

    /// The side as shown; `unknown` only for the after side. `entries`: how many children this
    /// side has in the tree, when the node's children are its entries.
    fn side(&self, unknown: bool, entries: Option<usize>) -> Side {
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
            Some(Value::Object(m)) => Side::Object(entries.unwrap_or(m.len())),
            Some(Value::Array(a)) => Side::List(entries.unwrap_or(a.len())),
            Some(Value::String(s)) => Side::Scalar(quoted(s)),
            Some(Value::Null) => Side::Scalar("null".to_string()),
            Some(v) => Side::Scalar(v.to_string()),
        }
    }
}

fn child<'v>(v: Option<&'v Value>, step: Step) -> Option<&'v Value> {
    match (v?, step) {
        (Value::Object(m), Step::Attr(k)) => m.get(k),
        (Value::Array(a), Step::Index(i)) => a.get(i),
        // A mask of `true` covers everything under it.
        (t @ Value::Bool(true), _) => Some(t),
        _ => None,
    }
}

/// The kind of the values shown on the open sides, when they agree (`null` agrees with any).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Object,
    List,
    String,
    Other,
}

fn kind(values: &[Option<&Value>]) -> Option<Kind> {
    let mut found = None;
    for v in values.iter().flatten() {
        let k = match v {
            Value::Null => continue,
            Value::Object(_) => Kind::Object,
            Value::Array(_) => Kind::List,
            Value::String(_) => Kind::String,
            _ => Kind::Other,
        };
        match found {
            None => found = Some(k),
            Some(f) if f == k => {}
            Some(_) => return Some(Kind::Other),
        }
    }
    found
}

struct Ctx<'p> {
    replace_paths: &'p [Vec<Value>],
    /// Leave out attributes that are null (or absent) before and after, as Terraform does for
    /// the attributes of resources and their objects ("we don't even count these as unchanged").
    /// JSON held in a string keeps them: there a `null` was written on purpose.
    skip_nulls: bool,
}

/// For JSON held in strings: nothing inside it is in `replace_paths`, and nulls are shown.
const IN_STRING: Ctx<'static> = Ctx {
    replace_paths: &[],
    skip_nulls: false,
};

impl Ctx<'_> {
    fn forces_replacement(&self, path: &[PathKey]) -> bool {
        !path.is_empty()
            && self.replace_paths.iter().any(|rp| {
                rp.len() == path.len()
                    && rp.iter().zip(path).all(|(step, key)| match (step, key) {
                        (Value::String(s), PathKey::Attr(k)) => s == k,
                        // Terraform matches an element by its index before the change, or after
                        // it for an element that is new.
                        (step, PathKey::Index { before, after }) => {
                            let i = before.or(*after);
                            match step {
                                Value::Number(n) => i.is_some_and(|i| n.as_u64() == Some(i as u64)),
                                Value::String(s) => {
                                    i.is_some_and(|i| s.parse::<usize>().ok() == Some(i))
                                }
                                _ => false,
                            }
                        }
                        // No index to match: the path stops at the list (`planlens_readers::text_plan`).
                        (_, PathKey::Unpositioned) => false,
                        _ => false,
                    })
            })
    }

    /// `elements`: the text's order of the lists under this value ([`ELEMENTS`](planlens_load::text_plan::ELEMENTS)).
    fn node(
        &self,
        key: Option<PathKey>,
        sides: Sides,
        elements: Option<&Value>,
        path: &mut Vec<PathKey>,
    ) -> DiffNode {
        let Sides {
            before,
            after,
            unknown,
        } = sides;
        let after_unknown = matches!(unknown, Some(Value::Bool(true)));

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
        // A side with a value that may not be shown cannot be aligned with the other: its
        // children pair up by index, each shown as `(sensitive value)` or `(known after apply)`.
        let closed = (before.is_sensitive() && before.value.is_some())
            || (after.is_sensitive() && after.value.is_some())
            || after_unknown;
        let shown = if after_open.is_none() {
            [
                before_open,
                unknown_open.filter(|u| u.is_object() || u.is_array()),
            ]
        } else {
            [before_open, after_open]
        };

        // A list read from a text that hid some of its elements: see `Side::Shown`.
        let mut partial = false;
        let (form, children) = match kind(&shown) {
            Some(Kind::Object) => (
                Form::Object,
                self.attributes(
                    sides,
                    [before_open, after_open, unknown_open],
                    elements,
                    path,
                ),
            ),
            Some(Kind::List) => {
                let (children, hidden) = self.elements(
                    sides,
                    [before_open, after_open, unknown_open],
                    closed,
                    elements,
                    path,
                );
                partial = hidden;
                (Form::List, children)
            }
            Some(Kind::String) if !closed => string_form(before_open, after_open),
            _ => (Form::Scalar, Vec::new()),
        };

        // The count on each side is the number of its children: an attribute Terraform leaves out
        // of `after` because it is unknown (named only in `after_unknown`) is an entry too.
        let entries = |side: fn(&DiffNode) -> &Side| {
            matches!(form, Form::Object | Form::List)
                .then(|| children.iter().filter(|c| *side(c) != Side::Absent).count())
        };
        let (before_side, after_side) = if partial {
            let shown = |side: fn(&DiffNode) -> &Side| {
                Side::Shown(children.iter().filter(|c| *side(c) != Side::Absent).count())
            };
            (shown(|c| &c.before), shown(|c| &c.after))
        } else {
            (
                before.side(false, entries(|c| &c.before)),
                after.side(after_unknown, entries(|c| &c.after)),
            )
        };

        let change = match (&before_side, &after_side) {
            (Side::Absent, Side::Absent) => NodeChange::Unchanged,
            (Side::Absent, _) => NodeChange::Added,
            (_, Side::Absent) => NodeChange::Removed,
            (_, Side::Unknown) => NodeChange::Modified,
            (Side::Object(_), Side::Object(_))
            | (Side::List(_), Side::List(_))
            | (Side::Shown(_), Side::Shown(_)) => {
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
            form,
            children,
        }
    }

    fn child_node(
        &self,
        key: PathKey,
        sides: Sides,
        elements: Option<&Value>,
        path: &mut Vec<PathKey>,
    ) -> DiffNode {
        path.push(key.clone());
        let node = self.node(Some(key), sides, elements, path);
        path.pop();
        node
    }

    /// An object's attributes: the keys of the shown sides (and of `after_unknown`), sorted.
    fn attributes(
        &self,
        sides: Sides,
        open: [Option<&Value>; 3],
        elements: Option<&Value>,
        path: &mut Vec<PathKey>,
    ) -> Vec<DiffNode> {
        let mut keys: BTreeSet<&str> = BTreeSet::new();
        for v in open.into_iter().flatten() {
            if let Value::Object(m) = v {
                keys.extend(m.keys().map(String::as_str));
            }
        }
        keys.into_iter()
            .filter_map(|k| {
                let step = Some(Step::Attr(k));
                let inner = sides.at(step, step);
                let (b, a, u) = (inner.before, inner.after, inner.unknown);
                // Nothing on either side, nothing unknown, nothing marked: not an attribute to show.
                let nothing = |m: &Masked| {
                    m.value.is_none_or(Value::is_null) && m.sensitive.is_none_or(|s| !has_true(s))
                };
                if self.skip_nulls && nothing(&b) && nothing(&a) && !u.is_some_and(has_true) {
                    return None;
                }
                let e = elements.and_then(|e| e.get(k));
                Some(self.child_node(PathKey::Attr(k.to_string()), inner, e, path))
            })
            .collect()
    }

    /// A list's elements, aligned as Terraform aligns them; by index when a side is closed; as
    /// a text plan printed them when its conversion says how (`elements`), and then without
    /// positions (true in the answer) when the text hid some of them.
    fn elements(
        &self,
        sides: Sides,
        [before_open, after_open, unknown_open]: [Option<&Value>; 3],
        closed: bool,
        elements: Option<&Value>,
        path: &mut Vec<PathKey>,
    ) -> (Vec<DiffNode>, bool) {
        fn items(v: Option<&Value>) -> &[Value] {
            match v {
                Some(Value::Array(a)) => a.as_slice(),
                _ => &[],
            }
        }
        if !closed
            && let Some((rows, hidden)) =
                text_rows(elements, items(before_open).len(), items(after_open).len())
        {
            let children = rows
                .into_iter()
                .map(|(p, inner)| {
                    let (b, a) = (p.before.map(Step::Index), p.after.map(Step::Index));
                    let key = if hidden {
                        PathKey::Unpositioned
                    } else {
                        PathKey::Index {
                            before: p.before,
                            after: p.after,
                        }
                    };
                    self.child_node(key, sides.at(b, a), inner, path)
                })
                .collect();
            return (children, hidden);
        }
        let pairs: Vec<Pair> = if closed {
            let n = [before_open, after_open, unknown_open]
                .map(|v| items(v).len())
                .into_iter()
                .max()
                .unwrap_or(0);
            (0..n)
                .map(|i| Pair {
                    before: Some(i),
                    after: Some(i),
                })
                .collect()
        } else {
            let (b, a) = (items(before_open), items(after_open));
            let (b_ids, a_ids) = element_ids(
                b,
                sides.before.sensitive,
                a,
                sides.after.sensitive,
                sides.unknown,
            );
            align::align(&b_ids, &a_ids, |x, y| b[x].is_object() && a[y].is_object())
        };
        let children = pairs
            .into_iter()
            .map(|p| {
                let (b, a) = (p.before.map(Step::Index), p.after.map(Step::Index));
                let key = PathKey::Index {
                    before: p.before,
                    after: p.after,
                };
                self.child_node(key, sides.at(b, a), None, path)
            })
            .collect();
        (children, false)
    }
}

/// One element of a text plan's list: its indexes, and the mirror of its own lists.
type TextRow<'e> = (Pair, Option<&'e Value>);

/// The rows of a text plan's list ([`ELEMENTS`](planlens_load::text_plan::ELEMENTS): `{"rows": [{"before": I, "after": J,
/// "in": …}, …], "hidden": true}`) with each row's own mirror, and whether the text hid some of
/// its elements; `None` unless the rows name every element of the two sides once, in order (a
/// side with no list names none), so an edited link falls back to aligning by value.
fn text_rows(
    elements: Option<&Value>,
    before_len: usize,
    after_len: usize,
) -> Option<(Vec<TextRow<'_>>, bool)> {
    let list = elements?.as_object()?;
    let (mut b, mut a) = (0usize, 0usize);
    let mut rows = Vec::new();
    for row in list.get("rows")?.as_array()? {
        let index = |key: &str, next: &mut usize, len: usize| -> Option<Option<usize>> {
            match row.get(key) {
                None => Some(None),
                // A side with nothing there (a value created or destroyed) names no element.
                Some(_) if len == 0 => Some(None),
                Some(i) => {
                    (i.as_u64()? == *next as u64 && *next < len).then_some(())?;
                    *next += 1;
                    Some(Some(*next - 1))
                }
            }
        };
        let pair = Pair {
            before: index("before", &mut b, before_len)?,
            after: index("after", &mut a, after_len)?,
        };
        if pair.before.is_some() || pair.after.is_some() {
            rows.push((pair, row.get("in")));
        }
    }
    (b == before_len && a == after_len).then_some(())?;
    Some((rows, list.get("hidden") == Some(&Value::Bool(true))))
}

/// Identities for the elements of two lists: equal ids for elements equal in value and in which
/// parts are sensitive; an element with anything unknown in it equals nothing.
fn element_ids(
    before: &[Value],
    before_marks: Option<&Value>,
    after: &[Value],
    after_marks: Option<&Value>,
    unknown: Option<&Value>,
) -> (Vec<u32>, Vec<u32>) {
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut id = |text: String| {
        let next = u32::try_from(ids.len()).unwrap_or(u32::MAX);
        *ids.entry(text).or_insert(next)
    };
    let key = |value: &Value, marks: Option<&Value>| {
        let marks = marks
            .and_then(marked)
            .map(|m| m.to_string())
            .unwrap_or_default();
        format!("{value}\u{0}{marks}")
    };
    let b = before
        .iter()
        .enumerate()
        .map(|(i, v)| id(key(v, child(before_marks, Step::Index(i)))))
        .collect();
    let a = after
        .iter()
        .enumerate()
        .map(|(i, v)| {
            if child(unknown, Step::Index(i)).is_some_and(has_true) {
                // Not JSON text, so it equals no element's key.
                id(format!("\u{1}unknown {i}"))
            } else {
                id(key(v, child(after_marks, Step::Index(i))))
            }
        })
        .collect();
    (b, a)
}

/// The marked parts of a sensitivity mirror (`false`, `{}`, `[]` mark nothing).
fn marked(mirror: &Value) -> Option<Value> {
    match mirror {
        Value::Bool(true) => Some(Value::Bool(true)),
        Value::Object(m) => {
            let kept: serde_json::Map<String, Value> = m
                .iter()
                .filter_map(|(k, v)| marked(v).map(|v| (k.clone(), v)))
                .collect();
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        Value::Array(a) => {
            let kept: Vec<Value> = a.iter().map(|v| marked(v).unwrap_or(Value::Null)).collect();
            kept.iter()
                .any(|v| !v.is_null())
                .then_some(Value::Array(kept))
        }
        _ => None,
    }
}

/// True when a sensitivity or unknown mirror marks anything (`false`, `{}`, `[]` mark nothing).
pub(crate) fn has_true(mirror: &Value) -> bool {
    match mirror {
        Value::Bool(b) => *b,
        Value::Object(m) => m.values().any(has_true),
        Value::Array(a) => a.iter().any(has_true),
        _ => false,
    }
}

/// How strings read (both sides open, each a string or nothing): as the JSON they hold when every
/// side that has one holds JSON of the same kind, line by line when one has line breaks.
fn string_form(before: Option<&Value>, after: Option<&Value>) -> (Form, Vec<DiffNode>) {
    use string::Reading;
    fn text(v: Option<&Value>) -> Option<&str> {
        match v {
            Some(Value::String(s)) => Some(s.as_str()),
            _ => None,
        }
    }
    let (b, a) = (text(before), text(after));
    let (rb, ra) = (b.map(string::read), a.map(string::read));
    match (&rb, &ra) {
        (Some(Reading::Json(x)), Some(Reading::Json(y))) if x.is_array() == y.is_array() => {
            json_form(Some(x), Some(y))
        }
        (Some(Reading::Json(x)), None) => json_form(Some(x), None),
        (None, Some(Reading::Json(y))) => json_form(None, Some(y)),
        // JSON on one side only (or of two kinds) reads as two plain strings, as in Terraform.
        (Some(Reading::Json(_)), _) | (_, Some(Reading::Json(_))) => (Form::Scalar, Vec::new()),
        (Some(Reading::Lines(_)), _) | (_, Some(Reading::Lines(_))) => {
            fn lines<'s>(s: Option<&'s str>, r: &Option<Reading<'s>>) -> Vec<&'s str> {
                match r {
                    Some(Reading::Lines(lines)) => lines.clone(),
                    _ => s.into_iter().collect(),
                }
            }
            let (lb, la) = (lines(b, &rb), lines(a, &ra));
            (Form::Lines(line_diff(&lb, &la)), Vec::new())
        }
        _ => (Form::Scalar, Vec::new()),
    }
}

/// One line of a multi-line string in the diff.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Line {
    /// Added, removed or unchanged (never modified: a changed line is one removed and one added).
    pub change: NodeChange,
    /// The line's text, as written (the UI makes hidden characters visible).
    pub text: String,
}

/// The lines of a string before and after, aligned by longest common subsequence; a side that is
/// not there contributes no lines, so a new string reads as all added.
fn line_diff(before: &[&str], after: &[&str]) -> Vec<Line> {
    align::align(before, after, |_, _| false)
        .into_iter()
        .map(|p| match (p.before, p.after) {
            (Some(b), Some(_)) => Line {
                change: NodeChange::Unchanged,
                text: before[b].to_string(),
            },
            (Some(b), None) => Line {
                change: NodeChange::Removed,
                text: before[b].to_string(),
            },
            (None, Some(a)) => Line {
                change: NodeChange::Added,
                text: after[a].to_string(),
            },
            (None, None) => unreachable!("an aligned row is on at least one side"),
        })
        .collect()
}

/// JSON held in a string: the diff of the values it encodes (no marks or unknowns inside a string).
fn json_form(before: Option<&Value>, after: Option<&Value>) -> (Form, Vec<DiffNode>) {
    let sides = Sides {
        before: Masked::new(before, None),
        after: Masked::new(after, None),
        unknown: None,
    };
    let root = IN_STRING.node(None, sides, None, &mut Vec::new());
    let container = match root.form {
        Form::Object => Container::Object,
        Form::List => Container::Array,
        _ => return (Form::Scalar, Vec::new()),
    };
    (Form::Json(container), root.children)
}
