//! A resource's or output's body, read line by line: attributes, blocks, list elements, maps,
//! heredocs, `jsonencode(…)`, quoted strings with Terraform's escapes. Gives up on a body (never
//! panics) when the text ends inside it, a header interrupts it or it nests too deep.

use serde_json::Value;

use super::lines::{Sigil, header, hidden_marker, split_sigil};
use super::reader::{Cursor, MAX_DEPTH, Stop};
use super::values::{Item, Val};

impl Cursor<'_> {
    /// Reads items until the closing `}` or `]` (left as the current line); returns the items
    /// and the text after the bracket.
    pub(super) fn entries(&mut self, in_list: bool) -> Result<(Vec<Item>, String), Stop> {
        // Terraform nests values a few levels deep; an edited text must not exhaust the stack.
        if self.depth >= MAX_DEPTH {
            return Err(Stop::TooDeep);
        }
        self.depth += 1;
        let read = self.entries_at_depth(in_list);
        self.depth -= 1;
        read
    }

    fn entries_at_depth(&mut self, in_list: bool) -> Result<(Vec<Item>, String), Stop> {
        let mut items = Vec::new();
        let mut hidden_contents = false;
        loop {
            let Some(line) = self.line() else {
                return Err(Stop::End);
            };
            let (_, sigil, rest) = split_sigil(line);
            let rest = rest.to_string();
            if rest.is_empty() {
                self.pos += 1;
                continue;
            }
            if sigil == Sigil::None && (rest.starts_with('}') || rest.starts_with(']')) {
                let trailing = rest[1..].to_string();
                if hidden_contents {
                    // Terraform said the block's contents are sensitive: one marker item.
                    items.push(Item {
                        key: Some(String::new()),
                        ..Item::of(Sigil::None, Val::Obj(Vec::new(), true))
                    });
                }
                return Ok((items, trailing));
            }
            if sigil == Sigil::None && rest.starts_with('#') {
                if let Some(c) = rest.strip_prefix("# ")
                    && header(c).is_some()
                {
                    return Err(Stop::Header);
                }
                if let Some((n, attributes_only)) = hidden_marker(&rest) {
                    items.push(Item::hidden(n, attributes_only));
                } else if rest.contains("sensitive, so its contents will not be displayed")
                    || rest.contains("(or was) sensitive")
                {
                    hidden_contents = true;
                }
                self.pos += 1;
                continue;
            }
            match self.item(sigil, &rest, in_list)? {
                Some(item) => items.push(item),
                // Not an attribute, element or block: the line goes, and with it a value.
                None => items.push(Item {
                    sigil,
                    ..Item::hidden(1, false)
                }),
            }
            // Every item leaves the reader on its last line.
            self.pos += 1;
        }
    }

    /// Reads one attribute, entry, block or element starting on the current line; leaves the
    /// reader on the item's last line.
    pub(super) fn item(
        &mut self,
        sigil: Sigil,
        rest: &str,
        in_list: bool,
    ) -> Result<Option<Item>, Stop> {
        let mut item = Item::of(sigil, Val::Opaque);
        let value_text: String;
        if in_list {
            value_text = rest.to_string();
        } else {
            let Some((key, after)) = key_of(rest) else {
                return Ok(None);
            };
            item.key = Some(key);
            let after = after.trim_start();
            if let Some(v) = after.strip_prefix('=') {
                value_text = v.trim_start().to_string();
            } else {
                // A block: `name {`, `name "label" {`, `name {}`.
                let (label, after) = if after.starts_with('"') {
                    let Some((l, a)) = lex_string(after) else {
                        return Ok(None);
                    };
                    (Some(l), a.trim_start())
                } else {
                    (None, after)
                };
                item.block = true;
                item.label = label;
                let after = after.trim_end();
                if after.starts_with("{}") {
                    item.old = Val::Obj(Vec::new(), false);
                    return Ok(Some(item));
                }
                if !after.starts_with('{') {
                    return Ok(None);
                }
                self.pos += 1;
                let (items, trailing) = self.entries(false)?;
                item.old = Val::Obj(items, false);
                item.forces = trailing.contains("# forces replacement");
                return Ok(Some(item));
            }
        }
        let Some((old, trailing)) = self.value(&value_text)? else {
            return Ok(None);
        };
        item.old = old;
        let (arrow, forces) = after_value(&trailing);
        item.forces = forces;
        if let Some(next) = arrow {
            match self.value(&next)? {
                Some((new, trailing)) => {
                    item.new = Some(new);
                    item.forces |= after_value(&trailing).1;
                }
                None => item.new = Some(Val::Opaque),
            }
        }
        Ok(Some(item))
    }

    /// Reads a value starting with `text` on the current line; returns it and the text after it
    /// on the line where it ends (the reader is left on that line).
    fn value(&mut self, text: &str) -> Result<Option<(Val, String)>, Stop> {
        let text = text.trim_start();
        if text.starts_with('"') {
            return Ok(
                lex_string(text).map(|(s, rest)| (Val::Lit(Value::String(s)), rest.to_string()))
            );
        }
        for (word, val) in [
            ("(known after apply)", Val::Unknown),
            ("(sensitive value)", Val::Sensitive),
            ("(sensitive)", Val::Sensitive),
            ("(sensitive data)", Val::Sensitive),
            ("null", Val::Lit(Value::Null)),
            ("true", Val::Lit(Value::Bool(true))),
            ("false", Val::Lit(Value::Bool(false))),
            ("[]", Val::List(Vec::new())),
            ("{}", Val::Obj(Vec::new(), false)),
        ] {
            if let Some(rest) = text.strip_prefix(word)
                && ends_token(rest)
            {
                return Ok(Some((val, rest.to_string())));
            }
        }
        if text.starts_with('[') && text[1..].trim().is_empty() {
            self.pos += 1;
            let (items, trailing) = self.entries(true)?;
            return Ok(Some((Val::List(items), trailing)));
        }
        if text.starts_with('{') && text[1..].trim().is_empty() {
            self.pos += 1;
            let (items, trailing) = self.entries(false)?;
            return Ok(Some((Val::Obj(items, false), trailing)));
        }
        if let Some(after) = text.strip_prefix("<<") {
            let after = after.trim_start_matches(['-', '~']);
            let delimiter: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !delimiter.is_empty() {
                return self.heredoc(&delimiter).map(Some);
            }
        }
        if let Some(after) = text.strip_prefix("jsonencode(") {
            return self.jsonencode(after).map(Some);
        }
        // A number.
        let end = text
            .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')))
            .unwrap_or(text.len());
        if end > 0
            && let Ok(n) = serde_json::from_str::<serde_json::Number>(&text[..end])
        {
            return Ok(Some((Val::Lit(Value::Number(n)), text[end..].to_string())));
        }
        if end > 0
            && let Ok(f) = text[..end].parse::<f64>()
            && let Some(n) = serde_json::Number::from_f64(f)
        {
            return Ok(Some((Val::Lit(Value::Number(n)), text[end..].to_string())));
        }
        Ok(None)
    }

    /// A heredoc: the lines up to the delimiter, each with its symbol (two columns left of the
    /// text, as Terraform indents them).
    fn heredoc(&mut self, delimiter: &str) -> Result<(Val, String), Stop> {
        let from = self.pos + 1;
        let mut end = from;
        while let Some(line) = self.lines.get(end) {
            let t = line.trim_start();
            if let Some(after) = t.strip_prefix(delimiter)
                && (after.trim().is_empty() || after.trim_start().starts_with("->"))
            {
                break;
            }
            end += 1;
        }
        let Some(close) = self.lines.get(end) else {
            self.pos = self.lines.len();
            return Err(Stop::End);
        };
        let close_indent = close.len() - close.trim_start().len();
        let trailing = close.trim_start()[delimiter.len()..].to_string();
        let mut lines = Vec::new();
        for line in &self.lines[from..end] {
            let sigil_at = close_indent + 2;
            let text_at = close_indent + 4;
            let (sigil, text) = match line.get(sigil_at..sigil_at + 2) {
                Some("+ ") => (Sigil::Add, line.get(text_at..).unwrap_or("")),
                Some("- ") => (Sigil::Remove, line.get(text_at..).unwrap_or("")),
                _ => (
                    Sigil::None,
                    line.get(text_at..).unwrap_or(line.trim_start()),
                ),
            };
            lines.push((sigil, text.to_string()));
        }
        self.pos = end;
        Ok((Val::Heredoc(lines), trailing))
    }

    /// `jsonencode(` and the value inside, up to the closing `)`.
    fn jsonencode(&mut self, after: &str) -> Result<(Val, String), Stop> {
        let after = after.trim();
        if !after.is_empty() {
            // On one line: `jsonencode("x")`, `jsonencode({}) -> null`.
            let close = after.rfind(')').unwrap_or(after.len());
            let trailing = after.get(close + 1..).unwrap_or("").to_string();
            return Ok(match self.value(&after[..close])? {
                Some((v, rest)) if rest.trim().is_empty() => (Val::Json(Box::new(v)), trailing),
                _ => (Val::Opaque, trailing),
            });
        }
        self.pos += 1;
        while self.line().is_some_and(|l| l.trim().is_empty()) {
            self.pos += 1;
        }
        let Some(line) = self.line() else {
            return Err(Stop::End);
        };
        let (_, _, rest) = split_sigil(line);
        let rest = rest.to_string();
        let inner = self.value(&rest)?;
        self.pos += 1;
        while self.line().is_some_and(|l| l.trim().is_empty()) {
            self.pos += 1;
        }
        let Some(line) = self.line() else {
            return Err(Stop::End);
        };
        match inner {
            Some((v, _)) if line.trim_start().starts_with(')') => {
                let trailing = line.trim_start()[1..].to_string();
                Ok((Val::Json(Box::new(v)), trailing))
            }
            // Not what Terraform writes: the value is lost, the line stays for the caller.
            _ => {
                self.pos -= 1;
                Ok((Val::Opaque, String::new()))
            }
        }
    }
}

/// What follows a value on its line: the text after `->`, and whether `# forces replacement`
/// is there.
fn after_value(trailing: &str) -> (Option<String>, bool) {
    let mut t = trailing.trim();
    let forces = t.contains("# forces replacement");
    if let Some(i) = t.find("# forces replacement") {
        t = t[..i].trim_end();
    }
    let t = t.trim_end_matches(',').trim();
    match t.strip_prefix("->") {
        Some(next) => (Some(next.trim().to_string()), forces),
        None => (None, forces),
    }
}

/// True when a word is complete: followed by nothing, a space, a comma or a bracket.
fn ends_token(rest: &str) -> bool {
    rest.chars()
        .next()
        .is_none_or(|c| c == ' ' || c == ',' || c == ')' || c == ']' || c == '}')
}

/// An attribute name (`id`, `"key with spaces"`) and the text after it.
fn key_of(rest: &str) -> Option<(String, &str)> {
    if rest.starts_with('"') {
        return lex_string(rest);
    }
    let end = rest.find([' ', '=']).unwrap_or(rest.len());
    let key = &rest[..end];
    let valid = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':' | '@' | '*'));
    valid.then(|| (key.to_string(), &rest[end..]))
}

/// A quoted string as Terraform prints it (Go/HCL escapes, `$${` for `${`), and the rest.
fn lex_string(text: &str) -> Option<(String, &str)> {
    let mut chars = text.char_indices();
    if chars.next()?.1 != '"' {
        return None;
    }
    let mut out = String::new();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                let out = out.replace("$${", "${").replace("%%{", "%{");
                return Some((out, &text[i + 1..]));
            }
            '\\' => {
                let (_, e) = chars.next()?;
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    'u' | 'U' | 'x' => {
                        let n = match e {
                            'u' => 4,
                            'U' => 8,
                            _ => 2,
                        };
                        let hex: String =
                            (0..n).filter_map(|_| chars.next().map(|c| c.1)).collect();
                        let ch = u32::from_str_radix(&hex, 16)
                            .ok()
                            .and_then(char::from_u32)?;
                        out.push(ch);
                    }
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                }
            }
            c => out.push(c),
        }
    }
    None
}
