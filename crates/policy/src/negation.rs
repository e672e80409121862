//! OPA evaluates some parts of a negated expression before the negation; the engine evaluates all
//! of it inside. This file rewrites a policy's text so the engine evaluates the same parts first,
//! and maps positions in the rewritten text back to the user's.
//!
//! Why it matters: `not in_list(allowed[env], "m5.large")` with no `allowed[env]` is *undefined*
//! in OPA (the argument is evaluated before `not`, and an undefined expression makes the body
//! undefined) but *true* when the whole call is evaluated inside the negation (the call is
//! undefined, so `not` holds). Measured with OPA 1.20 (the `opa-golib-python-bindings` wheel
//! `scripts/opa_diff.py` uses) and read in OPA's compiler (`v1/ast/compile.go`); the fixtures in
//! `tests/fixtures/policies/negation` pin each case against OPA.

use std::collections::HashSet;

use regorus::unstable::{
    AssignOp, BoolOp, Expr, Literal, LiteralStmt, Module, Rule, RuleHead, Span,
};

use super::walk::{Visit, walk_statement};

/// A policy text with hoisted expressions inserted, and the way back to the original positions.
#[derive(Debug, Clone)]
pub(super) struct Rewritten {
    /// The text the engine parses.
    pub(super) text: String,
    /// The original text, for positions.
    original: String,
    /// Consecutive pieces of `text`, in order.
    pieces: Vec<Piece>,
}

/// A run of the rewritten text: `len` bytes starting at `at` in it, copied from the original at
/// `from` (`Some`) or inserted with nothing to copy (`None`: positions map to `anchor`).
#[derive(Debug, Clone, Copy)]
struct Piece {
    at: usize,
    len: usize,
    from: Option<usize>,
    anchor: usize,
}

impl Rewritten {
    /// The original text's (line, column) of a (line, column) in the rewritten text (both 1-based;
    /// columns counted as the engine counts them: a character each, a tab 4). Lines are never added or removed, so
    /// only columns move; an inserted `__planlens_…__ := ` or `; ` maps to the negation it was
    /// hoisted for, a copied expression to the expression it was copied from.
    pub(super) fn original_position(&self, line: u32, column: u32) -> (u32, u32) {
        let Some(line_start) = line_start(&self.text, line) else {
            return (line, column);
        };
        let mut offset = line_start;
        let mut at = 1;
        for c in self.text[line_start..].chars() {
            if at >= column || c == '\n' {
                break;
            }
            at += width(c);
            offset += c.len_utf8();
        }
        let piece = self.pieces.iter().rev().find(|p| p.at <= offset).copied();
        let original = match piece {
            Some(Piece {
                at,
                from: Some(from),
                len,
                ..
            }) => from + (offset - at).min(len),
            Some(Piece { anchor, .. }) => anchor,
            None => offset,
        };
        position_of(&self.original, original.min(self.original.len()))
    }
}

/// How many columns the engine counts for a character: a tab is 4, a carriage return none.
fn width(c: char) -> u32 {
    match c {
        '\t' => 4,
        '\r' => 0,
        _ => 1,
    }
}

fn line_start(text: &str, line: u32) -> Option<usize> {
    if line == 0 {
        return None;
    }
    if line == 1 {
        return Some(0);
    }
    text.match_indices('\n')
        .nth(line as usize - 2)
        .map(|(i, _)| i + 1)
}

fn position_of(text: &str, offset: usize) -> (u32, u32) {
    let mut offset = offset;
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column: u32 = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .map(width)
        .sum();
    (u32::try_from(line).unwrap_or(u32::MAX), column + 1)
}

/// Rewrites `module` (parsed from `text`) so that the engine evaluates, before each `not`, the
/// parts of the negated expression that OPA's compiler moves out of it; `None` when there is
/// nothing to move. `globals` are the names that OPA resolves to references: the package's rules
/// (across its files), the file's import aliases, `input` and `data`.
///
/// It mirrors two stages of OPA's compiler (`v1/ast/compile.go`), which run on every body (rule
/// and `else` bodies, function bodies, comprehension and `every` bodies) and do not look at
/// `Expr.Negated`, so what they move out of a negated expression lands before the negation:
///
/// 1. `RewriteExprTerms` (`rewriteExprTermsInBody` → `expandExpr` → `expandExprTerm`): for a
///    call expression (a call, a comparison, `=`/`==`, `x in xs`) each operand, and for any other
///    expression the term itself, is expanded: every nested call (builtin or function, operators
///    such as `+` and `==` included) is moved out, innermost first, and so are the calls inside a
///    reference (`m[object.get(…)]`, `expandExprRef`) and a reference's subject when it is an
///    array, object, set or comprehension; arrays, objects and sets are expanded element by
///    element; comprehensions keep their own body. The values of `with` modifiers are expanded
///    first (their calls are moved without the `with`).
/// 2. `RewriteDynamicTerms` (`rewriteDynamics`; after `RewriteEquals` has turned `==` into `=`):
///    for `=`/`==` (`rewriteDynamicsEqExpr`) and for an expression that is a single term
///    (`rewriteDynamicsTermExpr`), a reference is kept but the references, arrays/objects/sets
///    holding references, and comprehensions in its brackets are moved out
///    (`rewriteDynamicsInTerm`); for any other call expression (`rewriteDynamicsCallExpr`)
///    every operand that is a reference — `input.x`, `rc.type`, `m[k]`, or a rule or import name,
///    which OPA has resolved to `data.…`/`input.…` — or a comprehension is moved out whole, and
///    the elements of arrays, objects and sets likewise (`rewriteDynamicsOne`).
///
/// Each moved expression becomes `__planlens_localN__ := <its text> [with …]; ` inserted just
/// before the `not` (moved expressions carry the negation's `with` modifiers, as OPA's generated
/// expressions do), in OPA's order: stage 1's, then stage 2's. The negated expression itself is
/// left as written: re-evaluating an expression already known to be defined gives the same value,
/// so only the definedness (and which error comes first) changes, as in OPA. A negation that is a
/// rule's whole body after `if` is wrapped in `{ … }`. Lines never move: a moved expression that
/// spans lines is copied onto one (its line breaks and comments become spaces), and one holding
/// a multi-line raw string is not moved (the only case left as the engine evaluates it).
pub(super) fn hoist_negated_operands(
    module: &Module,
    text: &str,
    globals: &HashSet<String>,
) -> Option<Rewritten> {
    let mut finder = Finder {
        globals,
        found: Vec::new(),
    };
    for rule in &module.policy {
        match rule.as_ref() {
            Rule::Spec { head, bodies, .. } => {
                match head {
                    RuleHead::Compr { assign, .. } | RuleHead::Func { assign, .. } => {
                        if let Some(a) = assign {
                            finder.expr(&a.value);
                        }
                    }
                    RuleHead::Set { key, .. } => {
                        if let Some(k) = key {
                            finder.expr(k);
                        }
                    }
                }
                for body in bodies {
                    finder.query(&body.query);
                    if let Some(a) = &body.assign {
                        finder.expr(&a.value);
                    }
                }
            }
            Rule::Default { value, .. } => finder.expr(value),
        }
    }
    if finder.found.is_empty() {
        return None;
    }
    // Each negation's insertion, and the closing brace of a wrapped one, in text order (a
    // negation can sit inside another's statement, in a comprehension).
    let mut events: Vec<(usize, u8, usize)> = Vec::new();
    for (i, negation) in finder.found.iter().enumerate() {
        events.push((negation.at, 0, i));
        if negation.wrap {
            events.push((negation.end, 1, i));
        }
    }
    events.sort_unstable();
    let mut out = Builder {
        original: text,
        text: String::with_capacity(text.len() + 64 * finder.found.len()),
        pieces: Vec::new(),
        copied_to: 0,
        local: 0,
    };
    let mut skipped = HashSet::new();
    for (offset, kind, i) in events {
        let negation = &finder.found[i];
        out.copy_to(offset);
        if kind == 1 {
            if !skipped.contains(&i) {
                out.insert(" }", negation.end);
            }
            continue;
        }
        let Some(moved) = negation
            .moved
            .iter()
            .map(|(start, end, with)| {
                let value = one_line(&text[*start..*end])?;
                let with = match (with, negation.with) {
                    (true, Some((ws, we))) => Some((ws, one_line(&text[ws..we])?)),
                    _ => None,
                };
                Some((*start, value, with))
            })
            .collect::<Option<Vec<_>>>()
        else {
            skipped.insert(i);
            continue;
        };
        if negation.wrap {
            out.insert("{ ", negation.at);
        }
        for (start, value, with) in moved {
            let name = format!("__planlens_local{}__ := ", out.local);
            out.local += 1;
            out.insert(&name, negation.at);
            out.copy_of(start, &value);
            if let Some((with_start, with_text)) = with {
                out.insert(" ", negation.at);
                out.copy_of(with_start, &with_text);
            }
            out.insert("; ", negation.at);
        }
    }
    out.copy_to(text.len());
    Some(Rewritten {
        text: out.text,
        original: text.to_string(),
        pieces: out.pieces,
    })
}

/// A negation to rewrite: where its statement starts and ends, what to move before it (original
/// byte ranges, and whether the statement's `with` modifiers go along), its `with` modifiers'
/// range, and whether it must be wrapped in braces (a body after `if` without them).
struct Negation {
    at: usize,
    end: usize,
    moved: Vec<(usize, usize, bool)>,
    with: Option<(usize, usize)>,
    wrap: bool,
}

struct Finder<'g> {
    globals: &'g HashSet<String>,
    found: Vec<Negation>,
}

/// Every negation in every query (comprehension and `every` bodies included), each before what
/// it holds.
impl Visit for Finder<'_> {
    fn statement(&mut self, stmt: &LiteralStmt) {
        if let Literal::NotExpr { expr, .. } = &stmt.literal {
            self.negation(stmt, expr);
        }
        walk_statement(self, stmt);
    }
}

impl Finder<'_> {
    /// Records what OPA moves out of the negated `expr` (the statement `stmt`), if anything.
    fn negation(&mut self, stmt: &LiteralStmt, expr: &Expr) {
        let mut moved = Vec::new();
        // Stage 1: `expandExpr`.
        for w in &stmt.with_mods {
            expand(&w.r#as, &mut |e| moved.push((e, false)));
        }
        let operands = operands(expr);
        match &operands {
            Some(list) => {
                for operand in list {
                    expand(operand, &mut |e| moved.push((e, true)));
                }
            }
            None => expand(expr, &mut |e| moved.push((e, true))),
        }
        // Stage 2: `rewriteDynamics`.
        let is_equality = matches!(
            expr,
            Expr::BoolExpr { op: BoolOp::Eq, .. }
                | Expr::AssignExpr {
                    op: AssignOp::Eq,
                    ..
                }
        );
        let mut dynamic = |e: &Expr| moved.push((range(e.span()), true));
        match &operands {
            Some(list) if !is_equality => {
                for operand in list {
                    self.dynamic_one(operand, &mut dynamic);
                }
            }
            Some(list) => {
                for operand in list {
                    self.dynamic_in_term(operand, &mut dynamic);
                }
            }
            None => self.dynamic_in_term(expr, &mut dynamic),
        }
        if moved.is_empty() {
            return;
        }
        let (at, end) = range(&stmt.span);
        let with = match (stmt.with_mods.first(), stmt.with_mods.last()) {
            (Some(first), Some(last)) => Some((range(&first.span).0, range(&last.span).1)),
            _ => None,
        };
        let text = stmt.span.source.contents();
        self.found.push(Negation {
            at,
            end,
            moved: moved
                .into_iter()
                .map(|((start, end), with)| (start, end, with))
                .collect(),
            with,
            wrap: after_if(&text[..at]),
        });
    }

    /// `rewriteDynamicsInTerm`: a reference stays, what its brackets hold is moved; a
    /// comprehension keeps its body; anything else as [`Finder::dynamic_one`].
    fn dynamic_in_term(&self, expr: &Expr, out: &mut dyn FnMut(&Expr)) {
        match expr {
            Expr::RefDot { .. } | Expr::RefBrack { .. } => {
                for index in ref_indices(expr) {
                    self.dynamic_one(index, out);
                }
            }
            Expr::Var { .. }
            | Expr::ArrayCompr { .. }
            | Expr::SetCompr { .. }
            | Expr::ObjectCompr { .. } => {}
            other => self.dynamic_one(other, out),
        }
    }

    /// `rewriteDynamicsOne`: references (rule and import names included) and comprehensions are
    /// moved whole; arrays, objects and sets element by element. Calls were moved in stage 1.
    fn dynamic_one(&self, expr: &Expr, out: &mut dyn FnMut(&Expr)) {
        match expr {
            Expr::RefDot { .. }
            | Expr::RefBrack { .. }
            | Expr::ArrayCompr { .. }
            | Expr::SetCompr { .. }
            | Expr::ObjectCompr { .. } => out(expr),
            Expr::Var { span, .. } if self.globals.contains(span.text()) => out(expr),
            Expr::Array { items, .. } | Expr::Set { items, .. } => {
                for item in items {
                    self.dynamic_one(item, out);
                }
            }
            Expr::Object { fields, .. } => {
                for (_, key, value) in fields {
                    self.dynamic_one(key, out);
                    self.dynamic_one(value, out);
                }
            }
            _ => {}
        }
    }
}

/// A span's byte range in its source, quotes included: the engine's spans leave out the quotes of
/// a string that begins or ends an expression (no expression is directly preceded or followed by
/// a quote otherwise).
fn range(span: &Span) -> (usize, usize) {
    let text = span.source.contents().as_bytes();
    let (mut start, mut end) = (span.start as usize, span.end as usize);
    if start > 0 && matches!(text.get(start - 1), Some(b'"' | b'`')) {
        start -= 1;
    }
    if matches!(text.get(end), Some(b'"' | b'`')) {
        end += 1;
    }
    (start, end)
}

/// The operands of an expression OPA parses as a call expression (`[]*Term`): a call's
/// arguments, both sides of a comparison, `=`, `==` or an operator, `x in xs`'s parts; `None`
/// for an expression that is one term.
fn operands(expr: &Expr) -> Option<Vec<&Expr>> {
    match expr {
        Expr::Call { params, .. } => Some(params.iter().map(|p| p.as_ref()).collect()),
        Expr::BoolExpr { lhs, rhs, .. }
        | Expr::ArithExpr { lhs, rhs, .. }
        | Expr::BinExpr { lhs, rhs, .. }
        | Expr::AssignExpr { lhs, rhs, .. } => Some(vec![lhs.as_ref(), rhs.as_ref()]),
        Expr::Membership {
            key,
            value,
            collection,
            ..
        } => Some(
            key.iter()
                .map(|k| k.as_ref())
                .chain([value.as_ref(), collection.as_ref()])
                .collect(),
        ),
        _ => None,
    }
}

/// `expandExprTerm`: calls `out` with the range of every call to move out of `expr`, innermost
/// and leftmost first.
fn expand(expr: &Expr, out: &mut dyn FnMut((usize, usize))) {
    match expr {
        Expr::Call { params, span, .. } => {
            for p in params {
                expand(p, out);
            }
            out(range(span));
        }
        Expr::BoolExpr { span, .. }
        | Expr::ArithExpr { span, .. }
        | Expr::BinExpr { span, .. }
        | Expr::Membership { span, .. } => {
            for operand in operands(expr).unwrap_or_default() {
                expand(operand, out);
            }
            out(range(span));
        }
        Expr::UnaryExpr {
            expr: inner, span, ..
        } if !matches!(inner.as_ref(), Expr::Number { .. }) => {
            expand(inner, out);
            out(range(span));
        }
        Expr::RefDot { .. } | Expr::RefBrack { .. } => {
            // `expandExprRef`: the subject and every bracket, then the subject itself when it is
            // a composite value.
            let subject = ref_subject(expr);
            expand(subject, out);
            for index in ref_indices(expr) {
                expand(index, out);
            }
            if matches!(
                subject,
                Expr::Array { .. }
                    | Expr::Object { .. }
                    | Expr::Set { .. }
                    | Expr::ArrayCompr { .. }
                    | Expr::SetCompr { .. }
                    | Expr::ObjectCompr { .. }
            ) {
                out(range(subject.span()));
            }
        }
        Expr::Array { items, .. } | Expr::Set { items, .. } => {
            for item in items {
                expand(item, out);
            }
        }
        Expr::Object { fields, .. } => {
            for (_, key, value) in fields {
                expand(key, out);
                expand(value, out);
            }
        }
        _ => {}
    }
}

/// The first part of a reference: `input` in `input.a[b]`.
fn ref_subject(expr: &Expr) -> &Expr {
    match expr {
        Expr::RefDot { refr, .. } | Expr::RefBrack { refr, .. } => ref_subject(refr),
        other => other,
    }
}

/// What a reference's brackets hold, left to right (`b` in `input.a[b]`; field names are
/// strings, which nothing moves).
fn ref_indices(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::RefDot { refr, .. } => ref_indices(refr),
        Expr::RefBrack { refr, index, .. } => {
            let mut list = ref_indices(refr);
            list.push(index);
            list
        }
        _ => Vec::new(),
    }
}

/// True when the text before a statement ends with the keyword `if`: the statement is a rule's
/// whole body, written without braces.
fn after_if(before: &str) -> bool {
    let trimmed = before.trim_end();
    trimmed.strip_suffix("if").is_some_and(|rest| {
        !rest
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// `text` on one line, byte for byte as long: line breaks and comments become spaces. `None` when
/// a raw string holds a line break (it cannot be moved onto one line without changing it).
fn one_line(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push(c);
                while let Some(s) = chars.next() {
                    out.push(s);
                    if s == '\\' {
                        if let Some(escaped) = chars.next() {
                            out.push(escaped);
                        }
                    } else if s == '"' {
                        break;
                    }
                }
            }
            '`' => {
                out.push(c);
                for s in chars.by_ref() {
                    if s == '\n' || s == '\r' {
                        return None;
                    }
                    out.push(s);
                    if s == '`' {
                        break;
                    }
                }
            }
            '#' => {
                out.push(' ');
                for s in chars.by_ref() {
                    if s == '\n' {
                        out.push(' ');
                        break;
                    }
                    out.extend(std::iter::repeat_n(' ', s.len_utf8()));
                }
            }
            '\n' | '\r' => out.push(' '),
            other => out.push(other),
        }
    }
    Some(out)
}

/// The rewritten text under construction, with its pieces.
struct Builder<'t> {
    original: &'t str,
    text: String,
    pieces: Vec<Piece>,
    /// How far the original has been copied.
    copied_to: usize,
    local: usize,
}

impl Builder<'_> {
    /// Copies the original up to `end`, unchanged.
    fn copy_to(&mut self, end: usize) {
        if end > self.copied_to {
            let from = self.copied_to;
            let original = self.original;
            self.push(&original[from..end], Some(from), from);
            self.copied_to = end;
        }
    }

    /// Inserts `text` that is not in the original; its positions map to `anchor`.
    fn insert(&mut self, text: &str, anchor: usize) {
        self.push(text, None, anchor);
    }

    /// Inserts a copy (made one line, as long as the original) of the original from `from`.
    fn copy_of(&mut self, from: usize, text: &str) {
        self.push(text, Some(from), from);
    }

    fn push(&mut self, text: &str, from: Option<usize>, anchor: usize) {
        self.pieces.push(Piece {
            at: self.text.len(),
            len: text.len(),
            from,
            anchor,
        });
        self.text.push_str(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text the engine is given for `body` (a v1 module's rules), `None` when unchanged.
    fn rewritten(rules: &str) -> Option<Rewritten> {
        let text = format!("package p\nimport rego.v1\n{rules}");
        let mut engine = regorus::Engine::new();
        engine
            .add_policy("p.rego".to_string(), text.clone())
            .unwrap();
        let modules = engine.get_modules().clone();
        let globals = super::super::check::globals(&modules);
        hoist_negated_operands(&modules[0], &text, &globals[0])
    }

    fn body(rules: &str) -> String {
        let r = rewritten(rules).expect("rewritten");
        assert_eq!(r.text.lines().count(), r.original.lines().count());
        r.text.lines().skip(2).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn calls_move_first_then_references_and_the_negation_stays_as_written() {
        assert_eq!(
            body(
                "m := {}\nf(a, b) if a == b\nr if { not f(m[object.get(input, \"k\", \"d\")], \"x\") }"
            ),
            "m := {}\nf(a, b) if a == b\nr if { __planlens_local0__ := object.get(input, \"k\", \"d\"); \
             __planlens_local1__ := m[object.get(input, \"k\", \"d\")]; \
             not f(m[object.get(input, \"k\", \"d\")], \"x\") }"
        );
        // Comparisons other than `==`, `x in xs` and nested calls.
        assert_eq!(
            body("r if { not count(input.a) > input.b }"),
            "r if { __planlens_local0__ := count(input.a); __planlens_local1__ := input.b; \
             not count(input.a) > input.b }"
        );
        assert_eq!(
            body("r if { not \"x\" in input.labels }"),
            "r if { __planlens_local0__ := input.labels; not \"x\" in input.labels }"
        );
        // A reference alone, or beside `==`, keeps its place; what its brackets hold moves.
        assert!(rewritten("r if { not input.a.b == 1; not input.c }").is_none());
        assert_eq!(
            body("r if { x := [1]; not x[input.i] == 1 }"),
            "r if { x := [1]; __planlens_local0__ := input.i; not x[input.i] == 1 }"
        );
        // Variables stay; rule names are references.
        assert!(rewritten("r if { x := 1; not startswith(x, \"a\") }").is_none());
        assert_eq!(
            body("s := \"a\"\nr if { not startswith(s, \"a\") }"),
            "s := \"a\"\nr if { __planlens_local0__ := s; not startswith(s, \"a\") }"
        );
    }

    #[test]
    fn with_modifiers_bodies_after_if_and_nested_bodies() {
        assert_eq!(
            body("r if { not startswith(input.a, \"b\") with input as {\"a\": \"c\"} }"),
            "r if { __planlens_local0__ := input.a with input as {\"a\": \"c\"}; \
             not startswith(input.a, \"b\") with input as {\"a\": \"c\"} }"
        );
        assert_eq!(
            body("r := 1 if not startswith(input.a, \"b\")\nelse := 2"),
            "r := 1 if { __planlens_local0__ := input.a; not startswith(input.a, \"b\") }\nelse := 2"
        );
        assert_eq!(
            body("r := [x | some x in input.xs; not startswith(x, input.p)]"),
            "r := [x | some x in input.xs; __planlens_local0__ := input.p; not startswith(x, input.p)]"
        );
        assert_eq!(
            body("r if { every x in input.xs { not startswith(x, input.p) } }"),
            "r if { every x in input.xs { __planlens_local0__ := input.p; not startswith(x, input.p) } }"
        );
    }

    #[test]
    fn a_moved_expression_over_lines_is_copied_onto_one() {
        let text = body(
            "r if {\n\tnot startswith(\n\t\tobject.get(input, \"a\", # the key\n\t\t\"d\"), \"b\")\n}",
        );
        assert_eq!(
            text,
            format!(
                "r if {{\n\t__planlens_local0__ := object.get(input, \"a\",{}\t\t\"d\"); \
                 not startswith(\n\t\tobject.get(input, \"a\", # the key\n\t\t\"d\"), \"b\")\n}}",
                // the space, then the comment and its line break as spaces
                " ".repeat(1 + "# the key\n".len())
            )
        );
    }

    #[test]
    fn positions_map_back_to_the_text_as_written() {
        let r = rewritten("r if {\n\tnot startswith(input.a, \"b\"); x := 1\n}").unwrap();
        let original = "\tnot startswith(input.a, \"b\"); x := 1";
        let line = r.text.lines().nth(3).unwrap();
        // Columns count a tab as 4, as the engine does.
        let column = |text: &str, needle: &str| text.find(needle).unwrap() as u32 + 4;
        // Where a place in the rewritten line maps to in the line as written.
        for (rewritten_at, original_at) in [
            // After the insertion: moved by its length.
            ("x :=", "x :="),
            // The negation itself.
            ("not", "not"),
            // In the copy: the expression it was copied from.
            ("input.a;", "input.a"),
            // In the inserted name: the negation.
            ("__planlens", "not"),
        ] {
            assert_eq!(
                r.original_position(4, column(line, rewritten_at)),
                (4, column(original, original_at)),
                "{rewritten_at}"
            );
        }
        // Other lines are unchanged.
        assert_eq!(r.original_position(3, 3), (3, 3));
    }
}
