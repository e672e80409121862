//! Which parts of the plan the policies can read, so the engine is given only those: its input
//! is parsed into a tree of values, the largest cost of a run (a 10k plan: `resource_changes` is
//! 56 % of the text, `prior_state` 35 %, `configuration` 8 %).
//!
//! Every use of `input` in every file is read as a path of static keys (`input.resource_changes`,
//! `input["variables"]`, an import alias such as `tfplan` for `input.tfplan`,
//! `object.get(input, ["variables", "environment"], d)`). Any other use — `input` alone
//! (`walk(input)`, `object.get(input, k, d)` with `k` computed), a key computed at run time —
//! means the whole input. `with input as …` replaces the input rather than reading it and is left
//! out. So a plan key no policy can name is never read, and pruning it cannot change a result.
//! This is the fallback of [`super::prune`], which cuts below the top level when it can follow
//! the policies.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use regorus::unstable::{Expr, Module, Ref, WithModifier};
use serde_json::value::RawValue;

use super::check::{head_ref, import_alias, ref_path};
use super::shape::Shape;
use super::walk::{Visit, walk_expr};

/// The static paths under `input` the policies read; `None` when one reads the input as a whole
/// or through a key computed at run time.
pub(super) fn input_paths(modules: &[Ref<Module>]) -> Option<Vec<Vec<String>>> {
    let mut paths = Vec::new();
    for module in modules {
        let mut aliases = HashMap::new();
        aliases.insert("input".to_string(), Vec::new());
        for import in &module.imports {
            let Some(path) = ref_path(&import.refr) else {
                continue;
            };
            if path.first().map(String::as_str) == Some("input") {
                aliases.insert(import_alias(import).unwrap_or_default(), path[1..].to_vec());
            }
        }
        let mut reader = ReadsWalk {
            aliases: &aliases,
            paths: &mut paths,
            whole: false,
            builtin_object_get: !shadows_object(module),
        };
        for rule in &module.policy {
            reader.rule(rule);
        }
        if reader.whole {
            return None;
        }
    }
    Some(paths)
}

struct ReadsWalk<'r> {
    aliases: &'r HashMap<String, Vec<String>>,
    paths: &'r mut Vec<Vec<String>>,
    whole: bool,
    /// `object.get` is the builtin in this module (no import or rule is named `object`).
    builtin_object_get: bool,
}

/// True when `object` in `module` may name something else than the builtins' namespace: an
/// import or a rule of that name (`import data.object`, `object.get(x) := …`).
fn shadows_object(module: &Module) -> bool {
    let imported = module
        .imports
        .iter()
        .any(|import| import_alias(import).as_deref() == Some("object"));
    imported
        || module.policy.iter().any(|rule| {
            ref_path(head_ref(rule))
                .and_then(|p| p.into_iter().next())
                .as_deref()
                == Some("object")
        })
}

impl Visit for ReadsWalk<'_> {
    fn expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Var { span, .. } => {
                if let Some(base) = self.aliases.get(span.text()) {
                    if base.is_empty() {
                        self.whole = true;
                    } else {
                        self.paths.push(base.clone());
                    }
                }
            }
            Expr::RefDot { .. } | Expr::RefBrack { .. } => {
                let (head, keys) = static_prefix(expr);
                if let Expr::Var { span, .. } = head
                    && let Some(base) = self.aliases.get(span.text())
                {
                    let mut path = base.clone();
                    path.extend(keys);
                    if path.is_empty() {
                        self.whole = true;
                    } else {
                        self.paths.push(path);
                    }
                    // The indexes of the ref may read the input too (`input.a[input.b]`).
                    indexes(expr, &mut |e| self.expr(e));
                    return;
                }
                walk_expr(self, expr);
            }
            Expr::Call { fcn, params, .. }
                if self.builtin_object_get
                    && params.len() == 3
                    && ref_path(fcn).is_some_and(|p| p == ["object", "get"]) =>
            {
                self.object_get(&params[0], &params[1]);
                self.expr(&params[2]);
            }
            other => walk_expr(self, other),
        }
    }

    /// `with input as …` replaces the input: only its value is read.
    fn with(&mut self, with: &WithModifier) {
        self.expr(&with.r#as);
    }
}

impl ReadsWalk<'_> {
    /// `object.get(object, key, default)`: with `object` the input (or a reference into it by
    /// static keys) and `key` a string or an array of strings written in the policy, only the
    /// path object + key is read (`object.get(input, ["variables", "environment", "value"], "")`
    /// reads `input.variables.environment.value`); otherwise each argument is read as any
    /// expression. An array's leading strings are used up to its first other item (a number
    /// indexes an array; a computed item may be any key), and what lies below is read whole.
    fn object_get(&mut self, object: &Expr, key: &Expr) {
        let base = match object {
            Expr::Var { span, .. } => self.aliases.get(span.text()).cloned(),
            Expr::RefDot { .. } | Expr::RefBrack { .. } => {
                let (head, keys) = static_prefix(object);
                match head {
                    Expr::Var { span, .. } if keys.len() == depth(object) => {
                        self.aliases.get(span.text()).map(|base| {
                            let mut path = base.clone();
                            path.extend(keys);
                            path
                        })
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let Some(mut path) = base else {
            self.expr(object);
            self.expr(key);
            return;
        };
        let literal = |e: &Expr| match e {
            Expr::String { value, .. } | Expr::RawString { value, .. } => {
                value.as_string().ok().map(|s| s.to_string())
            }
            _ => None,
        };
        match key {
            Expr::Array { items, .. } => {
                path.extend(items.iter().map_while(|item| literal(item)));
                // A computed item may itself read the input.
                items.iter().for_each(|item| self.expr(item));
            }
            other => match literal(other) {
                Some(k) => path.push(k),
                None => self.expr(other),
            },
        }
        if path.is_empty() {
            self.whole = true;
        } else {
            self.paths.push(path);
        }
    }
}

/// The head of a reference chain and its static keys from the head on, up to the first key
/// computed at run time (`input.a[x].b` → `input` and `["a"]`).
fn static_prefix(expr: &Expr) -> (&Expr, Vec<String>) {
    match expr {
        Expr::RefDot { refr, field, .. } => {
            let (head, mut keys) = static_prefix(refr);
            if keys.len() == depth(refr) {
                keys.push(field.0.text().to_string());
            }
            (head, keys)
        }
        Expr::RefBrack { refr, index, .. } => {
            let (head, mut keys) = static_prefix(refr);
            if keys.len() == depth(refr)
                && let Expr::String { value, .. } | Expr::RawString { value, .. } = index.as_ref()
                && let Ok(s) = value.as_string()
            {
                keys.push(s.to_string());
            }
            (head, keys)
        }
        other => (other, Vec::new()),
    }
}

/// The number of keys after the head of a reference chain.
fn depth(expr: &Expr) -> usize {
    match expr {
        Expr::RefDot { refr, .. } | Expr::RefBrack { refr, .. } => depth(refr) + 1,
        _ => 0,
    }
}

/// Calls `f` on every bracket index of a reference chain.
fn indexes(expr: &Expr, f: &mut dyn FnMut(&Expr)) {
    match expr {
        Expr::RefDot { refr, .. } => indexes(refr, f),
        Expr::RefBrack { refr, index, .. } => {
            indexes(refr, f);
            f(index);
        }
        _ => {}
    }
}

/// The top-level keys of the plan that a group of `shape` may read, given the policies' input
/// paths; `None`: the whole plan.
pub(super) fn plan_keys(shape: Shape, paths: &[Vec<String>]) -> Option<BTreeSet<String>> {
    let under = match shape {
        Shape::Conftest | Shape::Opa => None,
        Shape::Spacelift => Some("terraform"),
        Shape::Scalr => Some("tfplan"),
    };
    let mut keys = BTreeSet::new();
    for path in paths {
        let key = match under {
            None => path.first(),
            Some(top) if path.first().map(String::as_str) == Some(top) => {
                if path.len() == 1 {
                    return None; // the plan as a whole
                }
                path.get(1)
            }
            Some(_) => continue, // stack, run: not the plan
        };
        keys.insert(key?.clone());
    }
    Some(keys)
}

/// The input text with the plan cut down to `keys` (the plan at the top for conftest and OPA,
/// under `terraform` or `tfplan` otherwise); `None` when the text cannot be cut (a key with
/// escapes, a plan that is not an object), and the input is used as it is.
pub(super) fn pruned(input: &str, shape: Shape, keys: &BTreeSet<String>) -> Option<String> {
    fn cut(plan: &str, keys: &BTreeSet<String>) -> Option<String> {
        let top: BTreeMap<&str, &RawValue> = serde_json::from_str(plan).ok()?;
        let mut out = String::with_capacity(plan.len() / 2);
        out.push('{');
        for (key, value) in top.iter().filter(|(k, _)| keys.contains(**k)) {
            if out.len() > 1 {
                out.push(',');
            }
            out.push_str(&serde_json::to_string(key).ok()?);
            out.push(':');
            out.push_str(value.get());
        }
        out.push('}');
        Some(out)
    }
    let under = match shape {
        Shape::Conftest | Shape::Opa => return cut(input, keys),
        Shape::Spacelift => "terraform",
        Shape::Scalr => "tfplan",
    };
    let top: BTreeMap<&str, &RawValue> = serde_json::from_str(input).ok()?;
    let mut out = String::with_capacity(input.len() / 2);
    out.push('{');
    for (key, value) in &top {
        if out.len() > 1 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(key).ok()?);
        out.push(':');
        if *key == under {
            out.push_str(&cut(value.get(), keys)?);
        } else {
            out.push_str(value.get());
        }
    }
    out.push('}');
    Some(out)
}
