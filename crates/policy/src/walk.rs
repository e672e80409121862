//! Walking the engine's syntax tree, one way for every walk of the crate: an expression's direct
//! parts ([`children`]), a statement's ([`Statement`]), and a visitor over every expression of a
//! query, comprehension and `every` bodies included ([`Visit`]), so that each walk states only
//! what it does differently.

use regorus::unstable::{Expr, Literal, LiteralStmt, Query, Rule, RuleHead, Span, WithModifier};

/// Calls `f` on each direct sub-expression of `expr` (not on comprehension queries, nor on a
/// call's function name or a field name).
pub(crate) fn children(expr: &Expr, f: &mut dyn FnMut(&Expr)) {
    match expr {
        Expr::Array { items, .. } | Expr::Set { items, .. } => items.iter().for_each(|e| f(e)),
        Expr::Object { fields, .. } => {
            for (_, k, v) in fields {
                f(k);
                f(v);
            }
        }
        Expr::ArrayCompr { term, .. } | Expr::SetCompr { term, .. } => f(term),
        Expr::ObjectCompr { key, value, .. } => {
            f(key);
            f(value);
        }
        Expr::Call { params, .. } => params.iter().for_each(|e| f(e)),
        Expr::UnaryExpr { expr, .. } => f(expr),
        Expr::RefDot { refr, .. } => f(refr),
        Expr::RefBrack { refr, index, .. } => {
            f(refr);
            f(index);
        }
        Expr::BinExpr { lhs, rhs, .. }
        | Expr::BoolExpr { lhs, rhs, .. }
        | Expr::ArithExpr { lhs, rhs, .. }
        | Expr::AssignExpr { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        Expr::Membership {
            key,
            value,
            collection,
            ..
        } => {
            if let Some(k) = key {
                f(k);
            }
            f(value);
            f(collection);
        }
        _ => {}
    }
}

/// A query's statement with its parts named.
pub(crate) enum Statement<'q> {
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
pub(crate) struct SomeIn<'q> {
    pub(crate) key: Option<&'q Expr>,
    pub(crate) value: &'q Expr,
    pub(crate) collection: &'q Expr,
}

/// `every key, value in domain { query }`.
pub(crate) struct Every<'q> {
    pub(crate) key: Option<&'q Span>,
    pub(crate) value: &'q Span,
    pub(crate) domain: &'q Expr,
    pub(crate) query: &'q Query,
}

impl<'q> Statement<'q> {
    pub(crate) fn of(literal: &'q Literal) -> Statement<'q> {
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

    /// The expressions the statement holds, in source order: the one tested, `some … in`'s key,
    /// value and collection, `every`'s domain (its body is a query of its own, not walked here).
    pub(crate) fn exprs(&self) -> Vec<&'q Expr> {
        match self {
            Statement::Test(expr) => vec![expr],
            Statement::SomeIn(some) => some
                .key
                .into_iter()
                .chain([some.value, some.collection])
                .collect(),
            Statement::Declare => Vec::new(),
            Statement::Every(every) => vec![every.domain],
        }
    }
}

/// A walk over every expression of a query (or an expression), into comprehensions and `every`
/// bodies. Each method's default walks on below (through [`walk_expr`] and [`walk_statement`]);
/// a walk overrides the ones where it does something, and calls those to go on.
pub(crate) trait Visit {
    fn rule(&mut self, rule: &Rule) {
        walk_rule(self, rule);
    }

    fn expr(&mut self, expr: &Expr) {
        walk_expr(self, expr);
    }

    fn query(&mut self, query: &Query) {
        for stmt in &query.stmts {
            self.statement(stmt);
        }
    }

    fn statement(&mut self, stmt: &LiteralStmt) {
        walk_statement(self, stmt);
    }

    /// A statement's `with` modifier: its target, then its value.
    fn with(&mut self, with: &WithModifier) {
        self.expr(&with.refr);
        self.expr(&with.r#as);
    }
}

/// Walks on below `rule`: its head's reference (a function's: its arguments) and value or key,
/// then each body's value and query; a default rule's arguments and value.
pub(crate) fn walk_rule<V: Visit + ?Sized>(visit: &mut V, rule: &Rule) {
    match rule {
        Rule::Spec { head, bodies, .. } => {
            match head {
                RuleHead::Compr { refr, assign, .. } => {
                    visit.expr(refr);
                    if let Some(a) = assign {
                        visit.expr(&a.value);
                    }
                }
                RuleHead::Set { refr, key, .. } => {
                    visit.expr(refr);
                    if let Some(k) = key {
                        visit.expr(k);
                    }
                }
                RuleHead::Func { args, assign, .. } => {
                    for a in args {
                        visit.expr(a);
                    }
                    if let Some(a) = assign {
                        visit.expr(&a.value);
                    }
                }
            }
            for body in bodies {
                if let Some(a) = &body.assign {
                    visit.expr(&a.value);
                }
                visit.query(&body.query);
            }
        }
        Rule::Default { args, value, .. } => {
            for a in args {
                visit.expr(a);
            }
            visit.expr(value);
        }
    }
}

/// Walks on below `expr`: a comprehension's term (or key and value), then its query; any other
/// expression's [`children`].
pub(crate) fn walk_expr<V: Visit + ?Sized>(visit: &mut V, expr: &Expr) {
    match expr {
        Expr::ArrayCompr { term, query, .. } | Expr::SetCompr { term, query, .. } => {
            visit.expr(term);
            visit.query(query);
        }
        Expr::ObjectCompr {
            key, value, query, ..
        } => {
            visit.expr(key);
            visit.expr(value);
            visit.query(query);
        }
        other => children(other, &mut |e| visit.expr(e)),
    }
}

/// Walks on below `stmt`: its expressions ([`Statement::exprs`]), an `every`'s body, then its
/// `with` modifiers.
pub(crate) fn walk_statement<V: Visit + ?Sized>(visit: &mut V, stmt: &LiteralStmt) {
    let statement = Statement::of(&stmt.literal);
    for expr in statement.exprs() {
        visit.expr(expr);
    }
    if let Statement::Every(every) = statement {
        visit.query(every.query);
    }
    for with in &stmt.with_mods {
        visit.with(with);
    }
}
