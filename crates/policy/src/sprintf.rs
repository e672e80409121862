//! `sprintf` with Go's flags. The engine's own `sprintf` reads `%5s`, `%05d` and `%.2f` but not
//! the flags `-` (pad on the right), `+` (always a sign) and ` ` (a space for the sign): it prints
//! `%-40s` as `40s`, where OPA (Go's `fmt`) left-justifies in 40 columns — a common layout in
//! policy libraries. This wraps the engine's `sprintf`: a format without flags goes to it as it
//! is; a format with flags is cut into verbs, each verb is formatted by the engine without its
//! flags and width, and the flags and width are then applied as Go applies them.

use regorus::Value;
use regorus::unstable::{BUILTINS, Expr, Ref, Source, Span};

/// Registers the wrapper as the engine's `sprintf` (extensions are looked up before builtins).
pub(super) fn register(engine: &mut regorus::Engine) {
    // Registering twice on one engine is the only failure, and each engine registers once.
    let _ = engine.add_extension("sprintf".to_string(), 2, Box::new(sprintf));
}

/// One `%…` directive of a format.
struct Verb {
    minus: bool,
    plus: bool,
    space: bool,
    zero: bool,
    width: Option<usize>,
    /// `.N`, as written (without the dot).
    precision: Option<String>,
    verb: char,
}

enum Piece {
    Text(String),
    Verb(Verb),
}

fn has_flags(format: &str) -> bool {
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c == '%' {
            match chars.next() {
                Some('-' | '+' | ' ' | '#') => return true,
                Some('0') => {
                    // `%0-5d` has flags; `%05d` the engine reads itself.
                    if matches!(chars.clone().next(), Some('-' | '+' | ' ' | '#')) {
                        return true;
                    }
                }
                _ => {}
            }
        }
    }
    false
}

/// The format's pieces; `None` when it ends inside a directive (left to the engine's error).
fn parse(format: &str) -> Option<Vec<Piece>> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            text.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            text.push('%');
            continue;
        }
        let mut v = Verb {
            minus: false,
            plus: false,
            space: false,
            zero: false,
            width: None,
            precision: None,
            verb: ' ',
        };
        while let Some(&f) = chars.peek() {
            match f {
                '-' => v.minus = true,
                '+' => v.plus = true,
                ' ' => v.space = true,
                '0' => v.zero = true,
                '#' => {}
                _ => break,
            }
            chars.next();
        }
        let mut width = String::new();
        while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            width.push(d);
            chars.next();
        }
        v.width = width.parse().ok();
        if chars.peek() == Some(&'.') {
            chars.next();
            let mut precision = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                precision.push(d);
                chars.next();
            }
            v.precision = Some(precision);
        }
        v.verb = chars.next()?;
        if !text.is_empty() {
            pieces.push(Piece::Text(std::mem::take(&mut text)));
        }
        pieces.push(Piece::Verb(v));
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Some(pieces)
}

fn sprintf(args: Vec<Value>) -> anyhow::Result<Value> {
    let builtin = BUILTINS
        .get("sprintf")
        .expect("the engine has a sprintf builtin")
        .0;
    let source = Source::from_contents("sprintf".to_string(), "sprintf".to_string())?;
    let span = Span {
        source,
        line: 1,
        col: 1,
        start: 0,
        end: 7,
    };
    let param = || {
        Ref::new(Expr::Null {
            span: span.clone(),
            value: Value::Null,
            eidx: 0,
        })
    };
    let params = [param(), param()];
    let engine = |format: String, values: Vec<Value>| {
        builtin(
            &span,
            &params,
            &[Value::from(format), Value::from(values)],
            false,
        )
    };
    let (Some(Value::String(format)), Some(Value::Array(values))) = (args.first(), args.get(1))
    else {
        return builtin(&span, &params, &args, false);
    };
    let pieces = match parse(format) {
        Some(pieces) if has_flags(format) => pieces,
        _ => return builtin(&span, &params, &args, false),
    };
    let mut out = String::new();
    let mut next = 0;
    for piece in pieces {
        match piece {
            Piece::Text(t) => out.push_str(&t),
            Piece::Verb(v) => {
                let Some(value) = values.get(next).cloned() else {
                    // Too few arguments: the engine's own error.
                    return builtin(&span, &params, &args, false);
                };
                next += 1;
                let number = matches!(value, Value::Number(_));
                // Zero padding is the engine's (`%05d`) unless `-` asks for the right side.
                let zero_width = match (v.zero && !v.minus && number, v.width) {
                    (true, Some(w)) => format!("0{w}"),
                    _ => String::new(),
                };
                let precision = v
                    .precision
                    .as_ref()
                    .map_or(String::new(), |p| format!(".{p}"));
                let one = engine(format!("%{zero_width}{precision}{}", v.verb), vec![value])?;
                let mut s = match one {
                    Value::String(s) => s.to_string(),
                    other => return Ok(other),
                };
                if number && !s.starts_with('-') {
                    if v.plus {
                        s.insert(0, '+');
                    } else if v.space {
                        s.insert(0, ' ');
                    }
                }
                let len = s.chars().count();
                if let Some(width) = v.width.filter(|w| *w > len && zero_width.is_empty()) {
                    let pad = " ".repeat(width - len);
                    if v.minus {
                        s.push_str(&pad);
                    } else {
                        s.insert_str(0, &pad);
                    }
                }
                out.push_str(&s);
            }
        }
    }
    Ok(Value::from(out))
}
