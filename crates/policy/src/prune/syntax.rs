//! What the analysis reads of the syntax tree: a package's path, a rule's head, a reference
//! chain's steps, and where a rule's variables may be bound.

use std::collections::HashMap;

use regorus::unstable::{Expr, LiteralStmt, Module, Rule, RuleHead, WithModifier};

use crate::check::ref_path;
use crate::walk::{Statement, Visit, walk_expr, walk_statement};

/// A package's name as a path under `data`.
pub(super) fn package_path(module: &Module) -> Option<Vec<String>> {
    let mut path = vec!["data".to_string()];
    path.extend(ref_path(&module.package.refr)?);
    Some(path)
}

/// A reference chain as its head and its steps (`a.b[c]` → `a`, [`b`, `c`]).
pub(super) enum Access<'e> {
    Key(String),
    Index(&'e Expr),
}

pub(super) fn flatten(expr: &Expr) -> (&Expr, Vec<Access<'_>>) {
    match expr {
        Expr::RefDot { refr, field, .. } => {
            let (head, mut steps) = flatten(refr);
            steps.push(Access::Key(field.0.text().to_string()));
            (head, steps)
        }
        Expr::RefBrack { refr, index, .. } => {
            let (head, mut steps) = flatten(refr);
            match index.as_ref() {
                Expr::String { value, .. } | Expr::RawString { value, .. }
                    if value.as_string().is_ok() =>
                {
                    let key = value.as_string().map(|s| s.to_string()).unwrap_or_default();
                    steps.push(Access::Key(key));
                }
                other => steps.push(Access::Index(other)),
            }
            (head, steps)
        }
        other => (other, Vec::new()),
    }
}

pub(super) fn var_name(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Var { span, .. } => Some(span.text()),
        _ => None,
    }
}

pub(super) fn string_literal(expr: &Expr) -> Option<String> {
    match expr {
        Expr::String { value, .. } | Expr::RawString { value, .. } => {
            value.as_string().ok().map(|s| s.to_string())
        }
        _ => None,
    }
}

/// How often each variable of `rule` appears where it may be bound: an index, a side of an
/// assignment, a `some … in`, an argument. More than once means a later one may compare.
pub(super) fn binders(rule: &Rule) -> HashMap<String, usize> {
    let mut binders = Binders(HashMap::new());
    if let Rule::Spec {
        head: RuleHead::Func { args, .. },
        ..
    } = rule
    {
        for a in args {
            binders.count(var_name(a));
        }
    }
    binders.rule(rule);
    binders.0
}

/// The walk of [`binders`]: `with` modifiers are read for their values only.
struct Binders(HashMap<String, usize>);

impl Binders {
    fn count(&mut self, name: Option<&str>) {
        if let Some(name) = name {
            *self.0.entry(name.to_string()).or_default() += 1;
        }
    }
}

impl Visit for Binders {
    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::RefBrack { index, .. } => self.count(var_name(index)),
            Expr::AssignExpr { lhs, rhs, .. } => {
                self.count(var_name(lhs));
                self.count(var_name(rhs));
            }
            _ => {}
        }
        walk_expr(self, e);
    }

    fn statement(&mut self, stmt: &LiteralStmt) {
        match Statement::of(&stmt.literal) {
            Statement::SomeIn(some) => {
                for e in some.key.into_iter().chain([some.value]) {
                    self.count(var_name(e));
                }
            }
            Statement::Every(every) => {
                for span in every.key.into_iter().chain([every.value]) {
                    self.count(Some(span.text()));
                }
            }
            Statement::Test(_) | Statement::Declare => {}
        }
        walk_statement(self, stmt);
    }

    fn with(&mut self, with: &WithModifier) {
        self.expr(&with.r#as);
    }
}
