//! What the analysis reads of the syntax tree: a package's path, a rule's head, a reference
//! chain's steps, and where a rule's variables may be bound.

use std::collections::HashMap;

use regorus::unstable::{Expr, Literal, Module, Query, Rule, RuleHead, Span};

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

/// A query's statement with its parts named, one walk for the analysis and for [`binders`].
pub(super) enum Statement<'q> {
    /// An expression tested (or, under `not`, its negation), or an assignment.
    Test(&'q Expr),
    /// `some key, value in collection`.
    SomeIn(SomeIn<'q>),
    /// `some x, y`: declares, binds nothing.
    Declare,
    /// `every key, value in domain { query }`.
    Every(Every<'q>),
}

/// `some key, value in collection`.
pub(super) struct SomeIn<'q> {
    pub(super) key: Option<&'q Expr>,
    pub(super) value: &'q Expr,
    pub(super) collection: &'q Expr,
}

/// `every key, value in domain { query }`.
pub(super) struct Every<'q> {
    pub(super) key: Option<&'q Span>,
    pub(super) value: &'q Span,
    pub(super) domain: &'q Expr,
    pub(super) query: &'q Query,
}

impl<'q> Statement<'q> {
    pub(super) fn of(literal: &'q Literal) -> Statement<'q> {
        match literal {
            Literal::Expr { expr, .. } | Literal::NotExpr { expr, .. } => Statement::Test(expr),
            Literal::SomeIn {
                key,
                value,
                collection,
                ..
            } => Statement::SomeIn(SomeIn {
                key: key.as_deref(),
                value,
                collection,
            }),
            Literal::SomeVars { .. } => Statement::Declare,
            Literal::Every {
                key,
                value,
                domain,
                query,
                ..
            } => Statement::Every(Every {
                key: key.as_ref(),
                value,
                domain,
                query,
            }),
        }
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
            for w in &stmt.with_mods {
                expr(&w.r#as, counts);
            }
            match Statement::of(&stmt.literal) {
                Statement::Test(e) => expr(e, counts),
                Statement::SomeIn(some) => {
                    for e in some.key.into_iter().chain([some.value]) {
                        if let Some(name) = var_name(e) {
                            *counts.entry(name.to_string()).or_default() += 1;
                        }
                        expr(e, counts);
                    }
                    expr(some.collection, counts);
                }
                Statement::Declare => {}
                Statement::Every(every) => {
                    for span in every.key.into_iter().chain([every.value]) {
                        *counts.entry(span.text().to_string()).or_default() += 1;
                    }
                    expr(every.domain, counts);
                    q(every.query, counts);
                }
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
