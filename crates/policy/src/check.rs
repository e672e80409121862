//! Compile-time checks over every rule of every policy file, before anything is evaluated: the
//! errors OPA's compiler refuses a policy for and that the engine would report only when (and if)
//! the offending expression runs.
//!
//! - `rego_unsafe_var_error: var X is unsafe` — a variable inside `not` that nothing else in the
//!   body binds, and every `_` inside `not` (OPA gives each its own variable, which a negation
//!   cannot bind). Conservative: a variable that appears anywhere else in the body (outside `not`)
//!   counts as bound, so this never refuses a policy OPA accepts.
//! - `rego_type_error: undefined function F` — a call to neither a builtin of the engine nor a
//!   function of any policy file (through the package, `data.…` or an import).
//! - `rego_type_error: F: arity mismatch` — a builtin called with a wrong number of arguments
//!   (n, or n + 1 with the last as the output, are allowed).
//! - `rego_type_error: plus: invalid argument(s)` (and minus, mul, div, rem) — arithmetic on a
//!   literal that is not a number (or a set, for `-`).

use std::collections::{HashMap, HashSet};

use regorus::unstable::{
    ArithOp, BUILTINS, Expr, Import, Literal, Module, Query, Ref, Rule, RuleHead, Span,
    WithModifier,
};

use super::error::PolicyError;
use super::walk::{Statement, Visit, children, walk_expr};

/// OPA builtin namespaces the engine is built without (Cargo.toml says why): a call to one is
/// reported as undefined with this said, so the user knows OPA itself would accept it.
const LEFT_OUT: [&str; 14] = [
    "semver.",
    "time.",
    "base64.",
    "base64url.",
    "hex.",
    "urlquery.",
    "net.",
    "uuid.",
    "http.",
    "yaml.",
    "crypto.",
    "io.jwt.",
    "rego.",
    "opa.",
];

/// The path of a reference (`data.lib.f` → `["data", "lib", "f"]`, `x["a"]` → `["x", "a"]`);
/// `None` for anything else.
pub(super) fn ref_path(expr: &Expr) -> Option<Vec<String>> {
    match expr {
        Expr::Var { span, .. } => Some(vec![span.text().to_string()]),
        Expr::RefDot { refr, field, .. } => {
            let mut path = ref_path(refr)?;
            path.push(field.0.text().to_string());
            Some(path)
        }
        Expr::RefBrack { refr, index, .. } => match index.as_ref() {
            Expr::String { value, .. } | Expr::RawString { value, .. } => {
                let mut path = ref_path(refr)?;
                path.push(value.as_string().ok()?.to_string());
                Some(path)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The reference a rule's head names (`deny`, `a.b[x]`, `f(x)`).
pub(super) fn head_ref(rule: &Rule) -> &Ref<Expr> {
    match rule {
        Rule::Spec { head, .. } => match head {
            RuleHead::Compr { refr, .. }
            | RuleHead::Set { refr, .. }
            | RuleHead::Func { refr, .. } => refr,
        },
        Rule::Default { refr, .. } => refr,
    }
}

/// A module's package, its path joined with dots (`main`, `terraform.analysis`).
pub(super) fn package_of(module: &Module) -> String {
    ref_path(&module.package.refr)
        .map(|p| p.join("."))
        .unwrap_or_default()
}

/// Every error of every rule of `modules`, in file and source order.
pub(super) fn check(modules: &[Ref<Module>]) -> Vec<PolicyError> {
    // Names every package declares (across its files) and every function's full path.
    let (names, functions) = declared_names(modules);
    let mut errors = Vec::new();
    for module in modules {
        let package = package_of(module);
        let imports = imports_of(module);
        let globals = globals_of(module, &names, &imports);
        let mut checker = Checker {
            package: &package,
            globals: &globals,
            imports: &imports,
            functions: &functions,
            errors: Vec::new(),
        };
        for rule in &module.policy {
            checker.rule(rule);
        }
        let mut found = checker.errors;
        planlens_model::sort::by_key(&mut found, |e| (e.line, e.column));
        errors.extend(found);
    }
    errors
}

/// The names each package declares (across its files, the first part of each rule's head) and
/// every function's full path (`data.PACKAGE.NAME`).
fn declared_names(modules: &[Ref<Module>]) -> (HashMap<String, HashSet<String>>, HashSet<String>) {
    let mut names: HashMap<String, HashSet<String>> = HashMap::new();
    let mut functions: HashSet<String> = HashSet::new();
    for module in modules {
        let package = package_of(module);
        for rule in &module.policy {
            let Some(path) = ref_path(head_ref(rule)) else {
                continue;
            };
            if let Rule::Spec {
                head: RuleHead::Func { .. },
                ..
            } = rule.as_ref()
            {
                functions.insert(format!("data.{package}.{}", path.join(".")));
            }
            if let Some(first) = path.first() {
                names
                    .entry(package.clone())
                    .or_default()
                    .insert(first.clone());
            }
        }
    }
    (names, functions)
}

/// A module's `data`/`input` imports by alias (`rego.v1` and `future.keywords` left out).
pub(super) fn imports_of(module: &Module) -> HashMap<String, Vec<String>> {
    let mut imports = HashMap::new();
    for import in &module.imports {
        let Some(path) = ref_path(&import.refr) else {
            continue;
        };
        if !matches!(path.first().map(String::as_str), Some("data" | "input")) {
            continue; // rego.v1, future.keywords
        }
        imports.insert(import_alias(import).unwrap_or_default(), path);
    }
    imports
}

/// The name an import is known by: its `as` alias, else the last part of its path
/// (`import data.lib.util` → `util`).
pub(super) fn import_alias(import: &Import) -> Option<String> {
    import
        .r#as
        .as_ref()
        .map(|s| s.text().to_string())
        .or_else(|| ref_path(&import.refr)?.pop())
}

fn globals_of(
    module: &Module,
    names: &HashMap<String, HashSet<String>>,
    imports: &HashMap<String, Vec<String>>,
) -> HashSet<String> {
    let mut globals: HashSet<String> = names.get(&package_of(module)).cloned().unwrap_or_default();
    globals.extend(imports.keys().cloned());
    globals.insert("input".to_string());
    globals.insert("data".to_string());
    globals
}

/// For each module, the names OPA resolves to references rather than variables: its package's
/// rules (across files), its import aliases, `input` and `data`.
pub(super) fn globals(modules: &[Ref<Module>]) -> Vec<HashSet<String>> {
    let (names, _) = declared_names(modules);
    modules
        .iter()
        .map(|m| globals_of(m, &names, &imports_of(m)))
        .collect()
}

struct Checker<'c> {
    package: &'c str,
    globals: &'c HashSet<String>,
    imports: &'c HashMap<String, Vec<String>>,
    functions: &'c HashSet<String>,
    errors: Vec<PolicyError>,
}

impl Checker<'_> {
    fn error(&mut self, span: &Span, code: &str, message: String) {
        self.errors.push(PolicyError {
            file: span.source.file().clone(),
            line: span.line,
            column: span.col,
            code: code.to_string(),
            message,
        });
    }

    fn rule(&mut self, rule: &Rule) {
        match rule {
            Rule::Spec { head, bodies, .. } => {
                let mut bound = HashSet::new();
                match head {
                    RuleHead::Compr { assign, .. } => {
                        if let Some(a) = assign {
                            self.walk(&a.value, &bound);
                        }
                    }
                    RuleHead::Set { key, .. } => {
                        if let Some(k) = key {
                            self.walk(k, &bound);
                        }
                    }
                    RuleHead::Func { args, assign, .. } => {
                        for arg in args {
                            vars(arg, &mut bound);
                        }
                        if let Some(a) = assign {
                            self.walk(&a.value, &bound);
                        }
                    }
                }
                for body in bodies {
                    let inner = self.query(&body.query, &bound);
                    if let Some(a) = &body.assign {
                        self.walk(&a.value, &inner);
                    }
                }
            }
            Rule::Default { value, .. } => self.walk(value, &HashSet::new()),
        }
    }

    /// Checks a query; returns the variables it may bind (with `outer`'s).
    fn query(&mut self, query: &Query, outer: &HashSet<String>) -> HashSet<String> {
        let mut bound = outer.clone();
        for stmt in &query.stmts {
            // A negation binds nothing; `every` binds only inside its body.
            if !matches!(stmt.literal, Literal::NotExpr { .. }) {
                for e in Statement::of(&stmt.literal).exprs() {
                    vars(e, &mut bound);
                }
            }
            for w in &stmt.with_mods {
                vars(&w.r#as, &mut bound);
            }
        }
        for stmt in &query.stmts {
            if let Literal::NotExpr { expr, .. } = &stmt.literal {
                let mut reported = HashSet::new();
                self.unsafe_vars(expr, &bound, &mut reported);
            }
            let statement = Statement::of(&stmt.literal);
            for e in statement.exprs() {
                self.walk(e, &bound);
            }
            if let Statement::Every(every) = statement {
                let mut inner = bound.clone();
                inner.extend(every.key.iter().map(|k| k.text().to_string()));
                inner.insert(every.value.text().to_string());
                self.query(every.query, &inner);
            }
            for w in &stmt.with_mods {
                self.walk(&w.refr, &bound);
                self.walk(&w.r#as, &bound);
            }
        }
        bound
    }

    /// Reports the variables of a negated expression that nothing binds.
    fn unsafe_vars(
        &mut self,
        expr: &Expr,
        bound: &HashSet<String>,
        reported: &mut HashSet<String>,
    ) {
        match expr {
            Expr::Var { span, .. } => {
                let name = span.text();
                let unsafe_var =
                    name == "_" || !(bound.contains(name) || self.globals.contains(name));
                if unsafe_var && reported.insert(name.to_string()) {
                    self.error(
                        span,
                        "rego_unsafe_var_error",
                        format!("var {name} is unsafe"),
                    );
                }
            }
            Expr::Call { params, .. } => {
                for p in params {
                    self.unsafe_vars(p, bound, reported);
                }
            }
            Expr::RefDot { refr, .. } => self.unsafe_vars(refr, bound, reported),
            // Comprehensions have their own scope.
            Expr::ArrayCompr { .. } | Expr::SetCompr { .. } | Expr::ObjectCompr { .. } => {}
            other => children(other, &mut |e| self.unsafe_vars(e, bound, reported)),
        }
    }

    /// Checks calls and arithmetic everywhere in `expr`, and the queries of its comprehensions.
    fn walk(&mut self, expr: &Expr, bound: &HashSet<String>) {
        match expr {
            Expr::Call {
                span, fcn, params, ..
            } => {
                self.call(span, fcn, params.len());
                for p in params {
                    self.walk(p, bound);
                }
            }
            Expr::ArithExpr {
                span, op, lhs, rhs, ..
            } => {
                let name = match op {
                    ArithOp::Add => "plus",
                    ArithOp::Sub => "minus",
                    ArithOp::Mul => "mul",
                    ArithOp::Div => "div",
                    ArithOp::Mod => "rem",
                };
                let bad = [lhs, rhs].into_iter().any(|side| {
                    literal_kind(side).is_some_and(|kind| !(*op == ArithOp::Sub && kind == "set"))
                });
                if bad {
                    self.error(
                        span,
                        "rego_type_error",
                        format!("{name}: invalid argument(s)"),
                    );
                }
                self.walk(lhs, bound);
                self.walk(rhs, bound);
            }
            Expr::ArrayCompr { term, query, .. } | Expr::SetCompr { term, query, .. } => {
                let inner = self.query(query, bound);
                self.walk(term, &inner);
            }
            Expr::ObjectCompr {
                key, value, query, ..
            } => {
                let inner = self.query(query, bound);
                self.walk(key, &inner);
                self.walk(value, &inner);
            }
            other => children(other, &mut |e| self.walk(e, bound)),
        }
    }

    fn call(&mut self, span: &Span, fcn: &Expr, args: usize) {
        let Some(path) = ref_path(fcn) else {
            return;
        };
        let name = path.join(".");
        if name == "print" {
            return;
        }
        if let Some((_, arity)) = BUILTINS.get(name.as_str()) {
            let arity = usize::from(*arity);
            if args != arity && args != arity + 1 {
                self.error(span, "rego_type_error", format!("{name}: arity mismatch"));
            }
            return;
        }
        let full = if path[0] == "data" {
            name.clone()
        } else if let Some(import) = self.imports.get(&path[0]) {
            import
                .iter()
                .chain(&path[1..])
                .cloned()
                .collect::<Vec<_>>()
                .join(".")
        } else {
            format!("data.{}.{name}", self.package)
        };
        if self.functions.contains(&full) {
            return;
        }
        let message = if LEFT_OUT.iter().any(|ns| name.starts_with(ns)) {
            format!(
                "undefined function {name} (an OPA builtin that Planlens's policy engine is built \
                 without)"
            )
        } else {
            format!("undefined function {name}")
        };
        self.error(span, "rego_type_error", message);
    }
}

/// The kind of a literal that is not a number, for arithmetic type errors.
fn literal_kind(expr: &Expr) -> Option<&'static str> {
    match expr {
        Expr::String { .. } | Expr::RawString { .. } => Some("string"),
        Expr::Bool { .. } => Some("boolean"),
        Expr::Null { .. } => Some("null"),
        Expr::Array { .. } | Expr::ArrayCompr { .. } => Some("array"),
        Expr::Object { .. } | Expr::ObjectCompr { .. } => Some("object"),
        Expr::Set { .. } | Expr::SetCompr { .. } => Some("set"),
        _ => None,
    }
}

/// Every variable name in `expr` (comprehensions included, not the `with` modifiers of their
/// queries), except `_`.
fn vars(expr: &Expr, out: &mut HashSet<String>) {
    Vars(out).expr(expr);
}

/// The walk of [`vars`].
struct Vars<'o>(&'o mut HashSet<String>);

impl Visit for Vars<'_> {
    fn expr(&mut self, expr: &Expr) {
        if let Expr::Var { span, .. } = expr
            && span.text() != "_"
        {
            self.0.insert(span.text().to_string());
        }
        walk_expr(self, expr);
    }

    fn with(&mut self, _: &WithModifier) {}
}
