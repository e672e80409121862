//! What the analysis reads of the syntax tree: a package's path, a rule's head, a reference
//! chain's steps, and where a rule's variables may be bound.

use std::collections::HashMap;

use regorus::unstable::{Expr, Literal, Module, Query, Rule, RuleHead};

use crate::check::ref_path;

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
    fn expr(e: &Expr, counts: &mut HashMap<String, usize>) {
        match e {
            Expr::RefBrack { index, .. } => {
                if let Some(name) = var_name(index) {
                    *counts.entry(name.to_string()).or_default() += 1;
                }
            }
            Expr::AssignExpr { lhs, rhs, .. } => {
                for side in [lhs, rhs] {
                    if let Some(name) = var_name(side) {
                        *counts.entry(name.to_string()).or_default() += 1;
                    }
                }
            }
            _ => {}
        }
        crate::check::children(e, &mut |c| expr(c, counts));
        match e {
            Expr::ArrayCompr { query, .. }
            | Expr::SetCompr { query, .. }
            | Expr::ObjectCompr { query, .. } => q(query, counts),
            _ => {}
        }
    }
    fn q(query: &Query, counts: &mut HashMap<String, usize>) {
        for stmt in &query.stmts {
            match &stmt.literal {
                Literal::Expr { expr: e, .. } | Literal::NotExpr { expr: e, .. } => expr(e, counts),
                Literal::SomeIn {
                    key,
                    value,
                    collection,
                    ..
                } => {
                    for e in key.iter().chain([value]) {
                        if let Some(name) = var_name(e) {
                            *counts.entry(name.to_string()).or_default() += 1;
                        }
                        expr(e, counts);
                    }
                    expr(collection, counts);
                }
                Literal::SomeVars { .. } => {}
                Literal::Every {
                    key,
                    value,
                    domain,
                    query,
                    ..
                } => {
                    for span in key.iter().chain([value]) {
                        *counts.entry(span.text().to_string()).or_default() += 1;
                    }
                    expr(domain, counts);
                    q(query, counts);
                }
            }
            for w in &stmt.with_mods {
                expr(&w.r#as, counts);
            }
        }
    }
    let mut counts = HashMap::new();
    match rule {
        Rule::Spec { head, bodies, .. } => {
            match head {
                RuleHead::Compr { refr, assign, .. } => {
                    expr(refr, &mut counts);
                    if let Some(a) = assign {
                        expr(&a.value, &mut counts);
                    }
                }
                RuleHead::Set { refr, key, .. } => {
                    expr(refr, &mut counts);
                    if let Some(k) = key {
                        expr(k, &mut counts);
                    }
                }
                RuleHead::Func { args, assign, .. } => {
                    for a in args {
                        if let Some(name) = var_name(a) {
                            *counts.entry(name.to_string()).or_default() += 1;
                        }
                        expr(a, &mut counts);
                    }
                    if let Some(a) = assign {
                        expr(&a.value, &mut counts);
                    }
                }
            }
            for body in bodies {
                if let Some(a) = &body.assign {
                    expr(&a.value, &mut counts);
                }
                q(&body.query, &mut counts);
            }
        }
        Rule::Default { args, value, .. } => {
            for a in args {
                expr(a, &mut counts);
            }
            expr(value, &mut counts);
        }
    }
    counts
}
