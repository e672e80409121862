//! What a converted change carries besides its values: the text's own order of list elements
//! ([`ELEMENTS`]), the paths `# forces replacement` marks, and how many items the text hid.

use serde_json::{Map, Value, json};

use super::lines::Sigil;
use super::values::{Item, Val, When};

pub use planlens_load::text_plan::ELEMENTS;

/// The [`ELEMENTS`] mirror of a value, when it holds a list.
pub(super) fn elements_of(item: &Item) -> Option<Value> {
    if item.new.is_some() {
        // `[…] -> null`, `{…} -> (known after apply)`: two values, no elements to pair.
        return None;
    }
    match &item.old {
        Val::Obj(items, false) => body_elements(items),
        Val::List(items) => {
            let items: Vec<&Item> = items.iter().collect();
            list_elements(&items, items.iter().any(|i| i.hides_places()))
        }
        _ => None,
    }
}

/// The [`ELEMENTS`] mirror of an object or block body: its lists by attribute name, its blocks
/// without labels as one list per name (as [`project`] gathers them), labelled ones by label.
pub(super) fn body_elements(items: &[Item]) -> Option<Value> {
    let blocks_hidden = items.iter().any(Item::hides_places);
    let mut out = Map::new();
    let mut blocks: Vec<(&str, Vec<&Item>)> = Vec::new();
    for item in items {
        let Some(key) = &item.key else { continue };
        if item.hidden > 0 || !(item.on(When::Before) || item.on(When::After)) {
            continue;
        }
        if item.block {
            match blocks.iter_mut().find(|(k, _)| k == key) {
                Some((_, list)) => list.push(item),
                None => blocks.push((key, vec![item])),
            }
        } else if let Some(e) = elements_of(item) {
            out.insert(key.clone(), e);
        }
    }
    for (key, list) in blocks {
        if list.iter().all(|b| b.label.is_some()) {
            let by_label: Map<String, Value> = list
                .iter()
                .filter_map(|b| Some((b.label.clone()?, elements_of(b)?)))
                .collect();
            if !by_label.is_empty() {
                out.insert(key.to_string(), Value::Object(by_label));
            }
        } else {
            if let Some(e) = list_elements(&list, blocks_hidden) {
                out.insert(key.to_string(), e);
            }
        }
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// The [`ELEMENTS`] mirror of a list: one row per element shown, in the text's order.
pub(super) fn list_elements(items: &[&Item], hidden: bool) -> Option<Value> {
    let (mut b, mut a) = (0usize, 0usize);
    let mut rows = Vec::new();
    for item in items.iter().filter(|i| i.hidden == 0) {
        let mut row = Map::new();
        if item.on(When::Before) {
            row.insert("before".into(), json!(b));
            b += 1;
        }
        if item.on(When::After) {
            row.insert("after".into(), json!(a));
            a += 1;
        }
        if row.is_empty() {
            continue;
        }
        if let Some(e) = elements_of(item) {
            row.insert("in".into(), e);
        }
        rows.push(Value::Object(row));
    }
    if rows.is_empty() && !hidden {
        return None;
    }
    let mut list = Map::new();
    list.insert("rows".into(), Value::Array(rows));
    if hidden {
        list.insert("hidden".into(), Value::Bool(true));
    }
    Some(Value::Object(list))
}

/// The paths marked `# forces replacement`, as the plan's `replace_paths` writes them. Where the
/// text hid elements of a list (or blocks of an object) their indexes are unknown, since Terraform
/// prints the hidden count apart from their places: the path then stops at the list.
pub(super) fn forced_paths(items: &[Item], path: &mut Vec<Value>, out: &mut Vec<Value>) {
    let some_hidden = items.iter().any(|i| i.hidden > 0);
    let mut index = 0usize;
    let mut block_index: std::collections::HashMap<&str, usize> = Default::default();
    for item in items {
        if item.hidden > 0 {
            continue;
        }
        let step = match (&item.key, item.block) {
            (Some(k), true) => {
                let n = block_index.entry(k.as_str()).or_insert(0);
                let step = match (&item.label, some_hidden) {
                    (Some(l), _) => vec![json!(k), json!(l)],
                    (None, false) => vec![json!(k), json!(*n)],
                    (None, true) => vec![json!(k)],
                };
                if item.sigil != Sigil::Add {
                    *n += 1;
                }
                step
            }
            (Some(k), false) => vec![json!(k)],
            (None, _) => {
                let step = if some_hidden {
                    Vec::new()
                } else {
                    vec![json!(index)]
                };
                if item.sigil != Sigil::Add {
                    index += 1;
                }
                step
            }
        };
        // A block without a label among hidden blocks has no index we know.
        let exact = !(step.is_empty() || item.block && item.label.is_none() && some_hidden);
        let depth = path.len();
        path.extend(step);
        if exact {
            if item.forces {
                out.push(Value::Array(path.clone()));
            }
            for v in [Some(&item.old), item.new.as_ref()].into_iter().flatten() {
                if let Val::Obj(inner, _) | Val::List(inner) = v {
                    forced_paths(inner, path, out);
                }
            }
        } else if forces_somewhere(item) && !path.is_empty() {
            let p = Value::Array(path.clone());
            if !out.contains(&p) {
                out.push(p);
            }
        }
        path.truncate(depth);
    }
}

/// True when the item or anything inside it is marked `# forces replacement`.
pub(super) fn forces_somewhere(item: &Item) -> bool {
    item.forces
        || [Some(&item.old), item.new.as_ref()]
            .into_iter()
            .flatten()
            .any(|v| match v {
                Val::Obj(inner, _) | Val::List(inner) => inner.iter().any(forces_somewhere),
                _ => false,
            })
}

pub(super) fn hidden_count(items: &[Item]) -> usize {
    items
        .iter()
        .map(|i| {
            i.hidden
                + [Some(&i.old), i.new.as_ref()]
                    .into_iter()
                    .flatten()
                    .map(|v| match v {
                        Val::Obj(inner, _) | Val::List(inner) => hidden_count(inner),
                        Val::Json(inner) => match inner.as_ref() {
                            Val::Obj(inner, _) | Val::List(inner) => hidden_count(inner),
                            _ => 0,
                        },
                        _ => 0,
                    })
                    .sum::<usize>()
        })
        .sum()
}
