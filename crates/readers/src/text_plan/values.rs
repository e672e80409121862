//! A value as the text shows it ([`Val`], [`Item`]), and one side of it projected into the plan's
//! `before` or `after` with its unknown and sensitive mirrors ([`project`]). Values the text hides
//! are never invented: a hidden part makes the projection incomplete.

use serde_json::Value;

use super::lines::Sigil;
use crate::converted::Mirrored;

/// A value as the text shows it.
#[derive(Debug, Clone)]
pub(super) enum Val {
    Lit(Value),
    Unknown,
    Sensitive,
    /// An object, map or block body; `sensitive` when Terraform said its contents are hidden.
    Obj(Vec<Item>, bool),
    List(Vec<Item>),
    Heredoc(Vec<(Sigil, String)>),
    Json(Box<Val>),
    /// Something this reader does not know: no value on either side.
    Opaque,
}

/// An attribute, map entry, block or list element, with its symbol.
#[derive(Debug, Clone)]
pub(super) struct Item {
    pub(super) sigil: Sigil,
    /// The attribute or key; `None` for a list element.
    pub(super) key: Option<String>,
    /// A nested block (`name {`, or `name "label" {` with the label in `label`).
    pub(super) block: bool,
    pub(super) label: Option<String>,
    /// The value, or the one before `->`.
    pub(super) old: Val,
    /// The value after `->`.
    pub(super) new: Option<Val>,
    pub(super) forces: bool,
    /// `# (N unchanged … hidden)`: this item stands for N hidden ones.
    pub(super) hidden: usize,
    /// True when what is hidden are only attributes (`# (2 unchanged attributes hidden)`), so
    /// the blocks beside it are all shown; hidden blocks, elements or an unreadable line may
    /// stand for elements of a list, whose positions are then not known.
    pub(super) hides_attributes_only: bool,
}

impl Item {
    /// An item with this symbol and value, and nothing else known yet.
    pub(super) fn of(sigil: Sigil, old: Val) -> Item {
        Item {
            sigil,
            key: None,
            block: false,
            label: None,
            old,
            new: None,
            forces: false,
            hidden: 0,
            hides_attributes_only: false,
        }
    }

    /// `# (N unchanged … hidden)`, or a line that could not be read (N = 1).
    pub(super) fn hidden(n: usize, attributes_only: bool) -> Item {
        Item {
            hidden: n,
            hides_attributes_only: attributes_only,
            ..Item::of(Sigil::None, Val::Opaque)
        }
    }

    /// True when this item may stand for hidden elements of a list or blocks of a body.
    pub(super) fn hides_places(&self) -> bool {
        self.hidden > 0 && !self.hides_attributes_only
    }

    pub(super) fn on(&self, side: When) -> bool {
        self.hidden == 0
            && match self.sigil {
                Sigil::Add => side == When::After,
                Sigil::Remove => side == When::Before,
                _ => true,
            }
    }

    /// This item's value on one side. A sensitive value the text marks as changed (`~ password =
    /// (sensitive value)`) gets a placeholder per side that says it is not the value: the marks
    /// hide both from every view, and the diff shows the change the text names instead of
    /// folding it as unchanged.
    pub(super) fn project(&self, side: When) -> Projected {
        let mut p = project(self.value(side), side);
        let sensitive_change = self.sigil == Sigil::Change
            && matches!(self.old, Val::Sensitive)
            && matches!(self.new, None | Some(Val::Sensitive));
        if sensitive_change {
            p.tree.value = Some(Value::String(match side {
                When::Before => SENSITIVE_BEFORE.to_string(),
                When::After => SENSITIVE_AFTER.to_string(),
            }));
        }
        p
    }

    pub(super) fn value(&self, side: When) -> &Val {
        match (&self.new, side) {
            (Some(new), When::After) => new,
            _ => &self.old,
        }
    }
}

/// What a changed sensitive value is before the change, in place of the value the text hides.
pub const SENSITIVE_BEFORE: &str = "(sensitive value before the change; not in the text)";
/// What a changed sensitive value is after the change, in place of the value the text hides.
pub const SENSITIVE_AFTER: &str = "(sensitive value after the change; not in the text)";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum When {
    Before,
    After,
}

/// One side of a value: the value with its mirrors ([`Mirrored`]; the value is `None` when
/// absent, as an unknown value is from `after`), and whether all of it was shown.
pub(super) struct Projected {
    pub(super) tree: Mirrored,
    /// False when a part of it was hidden or unreadable.
    pub(super) complete: bool,
}

pub(super) fn project(v: &Val, side: When) -> Projected {
    let whole = |value, unknown, sensitive| Projected {
        tree: Mirrored {
            value,
            unknown,
            sensitive,
        },
        complete: true,
    };
    let unknown = || (side == When::After).then_some(Value::Bool(true));
    match v {
        Val::Lit(x) => whole(Some(x.clone()), None, None),
        Val::Unknown => whole(None, unknown(), None),
        Val::Sensitive => whole(Some(Value::Null), None, Some(Value::Bool(true))),
        Val::Opaque => Projected {
            tree: Mirrored::default(),
            complete: false,
        },
        Val::Heredoc(lines) => {
            let text: Vec<&str> = lines
                .iter()
                .filter(|(s, _)| match s {
                    Sigil::Add => side == When::After,
                    Sigil::Remove => side == When::Before,
                    _ => true,
                })
                .map(|(_, l)| l.as_str())
                .collect();
            whole(Some(Value::String(text.join("\n"))), None, None)
        }
        Val::Json(inner) => {
            let p = project(inner, side);
            let (value, unknown, sensitive) = if p.tree.sensitive.is_some() {
                (Some(Value::Null), None, Some(Value::Bool(true)))
            } else if p.tree.unknown.is_some() {
                (None, unknown(), None)
            } else {
                return match p.tree.value {
                    // The string is only what it was when nothing of it was hidden.
                    Some(v) if p.complete => whole(Some(Value::String(v.to_string())), None, None),
                    value => Projected {
                        tree: Mirrored {
                            value,
                            ..Mirrored::default()
                        },
                        complete: false,
                    },
                };
            };
            Projected {
                tree: Mirrored {
                    value,
                    unknown,
                    sensitive,
                },
                complete: p.complete,
            }
        }
        Val::List(items) => {
            let mut complete = !hides_any(items);
            let mut elements = Vec::new();
            for item in items.iter().filter(|i| i.on(side)) {
                let p = item.project(side);
                complete &= p.complete;
                elements.push(p.tree);
            }
            Projected {
                tree: Mirrored::list(elements),
                complete,
            }
        }
        Val::Obj(items, hidden_contents) => {
            if *hidden_contents {
                return Projected {
                    tree: Mirrored {
                        value: Some(Value::Null),
                        unknown: None,
                        sensitive: Some(Value::Bool(true)),
                    },
                    complete: false,
                };
            }
            let mut entries = Vec::new();
            let mut complete = !hides_any(items);
            // Blocks of one name are gathered into a list (or a map by label), in order.
            let mut blocks: Vec<(String, Vec<Block>)> = Vec::new();
            for item in items.iter().filter(|i| i.on(side)) {
                let Some(key) = &item.key else { continue };
                let p = item.project(side);
                complete &= p.complete;
                if item.block {
                    let block = (p.tree, item.label.clone());
                    match blocks.iter_mut().find(|(k, _)| k == key) {
                        Some((_, list)) => list.push(block),
                        None => blocks.push((key.clone(), vec![block])),
                    }
                } else {
                    entries.push((key.clone(), p.tree));
                }
            }
            for (key, list) in blocks {
                let tree = if list.iter().all(|(_, label)| label.is_some()) {
                    // A labelled block with no value is there all the same.
                    Mirrored::object(list.into_iter().map(|(tree, label)| {
                        let value = Some(tree.value.unwrap_or(Value::Null));
                        (label.unwrap_or_default(), Mirrored { value, ..tree })
                    }))
                } else {
                    Mirrored::list(list.into_iter().map(|(tree, _)| tree))
                };
                entries.push((key, tree));
            }
            Projected {
                tree: Mirrored::object(entries),
                complete,
            }
        }
    }
}

/// True when some of these items stand for ones the text hid: what they make is incomplete.
fn hides_any(items: &[Item]) -> bool {
    items.iter().any(|i| i.hidden > 0)
}

/// One block's side and its label, gathered with the other blocks of its name.
type Block = (Mirrored, Option<String>);
