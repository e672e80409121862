//! Attribute paths inside a resource's values: `instance_type`, `node[0].size`,
//! `tags["kubernetes.io/role"]`.

use serde_json::Value;

/// One step of an attribute path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// An object attribute or map key.
    Key(String),
    /// A list or tuple index.
    Index(usize),
}

/// Which value of a change a path reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathRoot {
    /// `before.…`
    Before,
    /// `after.…`
    After,
}

/// Splits `before.X` / `after.X` into the side and the steps of `X` (`after` alone is the whole
/// value). On error: the byte offset in `text` and what is wrong.
pub(crate) fn parse_sided(text: &str) -> Result<(PathRoot, Vec<Step>), (usize, String)> {
    let (side, rest) = if let Some(rest) = text.strip_prefix("before") {
        (PathRoot::Before, rest)
    } else if let Some(rest) = text.strip_prefix("after") {
        (PathRoot::After, rest)
    } else {
        return Err((
            0,
            format!("path \"{text}\" must start with \"before.\" or \"after.\""),
        ));
    };
    if !(rest.is_empty() || rest.starts_with('.') || rest.starts_with('[')) {
        return Err((
            0,
            format!("path \"{text}\" must start with \"before.\" or \"after.\""),
        ));
    }
    let offset = text.len() - rest.len();
    let steps = parse_steps(rest, false).map_err(|(at, msg)| (offset + at, msg))?;
    Ok((side, steps))
}

/// Parses a path without a side (`tags.Name`, `node[0]`), as `changed` takes it.
pub(crate) fn parse_bare(text: &str) -> Result<Vec<Step>, (usize, String)> {
    if text.is_empty() {
        return Err((0, "the path is empty".to_string()));
    }
    parse_steps(text, true)
}

/// Parses steps. `bare_first`: the first key has no leading dot.
fn parse_steps(text: &str, bare_first: bool) -> Result<Vec<Step>, (usize, String)> {
    let bytes = text.as_bytes();
    let mut steps = Vec::new();
    let mut i = 0;
    let mut expect_bare = bare_first;
    while i < bytes.len() || expect_bare {
        if expect_bare {
            expect_bare = false;
            if bytes.get(i) == Some(&b'[') {
                continue;
            }
            let (key, next) = key_at(text, i)?;
            steps.push(Step::Key(key));
            i = next;
            continue;
        }
        match bytes[i] {
            b'.' => {
                let (key, next) = key_at(text, i + 1)?;
                steps.push(Step::Key(key));
                i = next;
            }
            b'[' => {
                let (step, next) = bracket_at(text, i)?;
                steps.push(step);
                i = next;
            }
            _ => {
                return Err((i, "expected \".\" or \"[\" in the path".to_string()));
            }
        }
    }
    Ok(steps)
}

/// A plain key starting at `start`: up to the next `.` or `[`.
fn key_at(text: &str, start: usize) -> Result<(String, usize), (usize, String)> {
    let rest = &text[start..];
    let len = rest
        .find(|c: char| c == '.' || c == '[' || c == ']' || c == '"' || c.is_whitespace())
        .unwrap_or(rest.len());
    if len == 0 {
        return Err((
            start,
            "expected an attribute name in the path (quote odd keys: [\"a.b\"])".to_string(),
        ));
    }
    Ok((rest[..len].to_string(), start + len))
}

/// `[3]` or `["key"]` starting at the `[` at `start`.
fn bracket_at(text: &str, start: usize) -> Result<(Step, usize), (usize, String)> {
    let inner = start + 1;
    let rest = &text[inner..];
    if let Some(quoted) = rest.strip_prefix('"') {
        // A quoted key: `\"` and `\\` are the only escapes, as in Terraform's own addresses.
        let mut key = String::new();
        let mut chars = quoted.char_indices();
        while let Some((at, c)) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some((_, e @ ('"' | '\\'))) => key.push(e),
                    _ => {
                        return Err((
                            inner + 1 + at,
                            "only \\\" and \\\\ may be escaped in a quoted key".to_string(),
                        ));
                    }
                },
                '"' => {
                    let close = inner + 1 + at + 1;
                    if text.as_bytes().get(close) != Some(&b']') {
                        return Err((close, "expected \"]\" after the quoted key".to_string()));
                    }
                    return Ok((Step::Key(key), close + 1));
                }
                c => key.push(c),
            }
        }
        return Err((start, "unclosed quoted key in the path".to_string()));
    }
    let len = rest
        .find(']')
        .ok_or((start, "unclosed \"[\" in the path".to_string()))?;
    let index = rest[..len].parse::<usize>().map_err(|_| {
        (
            inner,
            format!(
                "\"[{}]\" is neither an index nor a quoted key (write [0] or [\"key\"])",
                &rest[..len]
            ),
        )
    })?;
    Ok((Step::Index(index), inner + len + 1))
}

/// The value at `steps` under `root`, if there is one.
pub(crate) fn lookup<'v>(root: &'v Value, steps: &[Step]) -> Option<&'v Value> {
    steps.iter().try_fold(root, |v, step| child(v, step))
}

/// Moves the value at `steps` out of `root`, so a parsed subtree need not be cloned.
pub(crate) fn take(root: Value, steps: &[Step]) -> Option<Value> {
    let mut v = root;
    for step in steps {
        v = match (v, step) {
            (Value::Object(mut m), Step::Key(k)) => m.remove(k)?,
            (Value::Object(mut m), Step::Index(i)) => m.remove(&i.to_string())?,
            (Value::Array(mut a), step) => {
                let i = index_of(step)?;
                if i >= a.len() {
                    return None;
                }
                a.swap_remove(i)
            }
            _ => return None,
        };
    }
    Some(v)
}

fn child<'v>(v: &'v Value, step: &Step) -> Option<&'v Value> {
    match (v, step) {
        (Value::Object(m), Step::Key(k)) => m.get(k),
        (Value::Object(m), Step::Index(i)) => m.get(&i.to_string()),
        (Value::Array(a), step) => a.get(index_of(step)?),
        _ => None,
    }
}

/// An index step, or a key that is a number (`node.0.size`, as HCL would write it).
fn index_of(step: &Step) -> Option<usize> {
    match step {
        Step::Index(i) => Some(*i),
        Step::Key(k) => k.parse().ok(),
    }
}

/// True when a sensitivity mirror marks the value at `steps` — or anything above it, or anything
/// inside it — as sensitive. A container with one secret inside cannot be printed whole.
pub(crate) fn is_sensitive(mirror: Option<&Value>, steps: &[Step]) -> bool {
    let Some(mut node) = mirror else {
        return false;
    };
    for step in steps {
        if node == &Value::Bool(true) {
            return true;
        }
        match child(node, step) {
            Some(next) => node = next,
            None => return false,
        }
    }
    contains_true(node)
}

fn contains_true(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Array(a) => a.iter().any(contains_true),
        Value::Object(m) => m.values().any(contains_true),
        _ => false,
    }
}

/// Writes a path back as the user would (for messages).
#[cfg(test)]
pub(crate) fn display(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(k: &str) -> Step {
        Step::Key(k.to_string())
    }

    #[test]
    fn paths_with_indexes_and_quoted_keys() {
        assert_eq!(
            parse_sided("after.node[0].size").unwrap(),
            (
                PathRoot::After,
                vec![key("node"), Step::Index(0), key("size")]
            )
        );
        assert_eq!(
            parse_sided(r#"before.tags["kubernetes.io/role"]"#).unwrap(),
            (
                PathRoot::Before,
                vec![key("tags"), key("kubernetes.io/role")]
            )
        );
        assert_eq!(
            parse_sided(r#"after.m["a\"b\\c"]"#).unwrap().1,
            vec![key("m"), key(r#"a"b\c"#)]
        );
        assert_eq!(parse_sided("after").unwrap(), (PathRoot::After, vec![]));
        assert_eq!(
            parse_bare("tags.Name").unwrap(),
            vec![key("tags"), key("Name")]
        );
        assert_eq!(parse_bare("[2]").unwrap(), vec![Step::Index(2)]);
        assert_eq!(display(&parse_bare("a[1].b").unwrap()), ".a[1].b");
    }

    #[test]
    fn bad_paths_say_where() {
        assert_eq!(parse_sided("afterwards.x").unwrap_err().0, 0);
        assert_eq!(parse_sided("during.x").unwrap_err().0, 0);
        assert_eq!(parse_sided("after.").unwrap_err().0, 6);
        assert_eq!(parse_sided("after.a[x]").unwrap_err().0, 8);
        assert_eq!(parse_sided("after.a[1").unwrap_err().0, 7);
        assert_eq!(parse_sided(r#"after.a["x"y"#).unwrap_err().0, 11);
        assert_eq!(parse_bare("").unwrap_err().0, 0);
        assert_eq!(parse_bare("a..b").unwrap_err().0, 2);
    }

    #[test]
    fn lookup_and_take_agree() {
        let v = json!({"node": [{"size": 3}], "tags": {"a.b": "x"}, "m": {"0": "zero"}});
        for (path, want) in [
            ("node[0].size", Some(json!(3))),
            ("node.0.size", Some(json!(3))),
            (r#"tags["a.b"]"#, Some(json!("x"))),
            ("m[0]", Some(json!("zero"))),
            ("node[1]", None),
            ("tags.a", None),
        ] {
            let steps = parse_bare(path).unwrap();
            assert_eq!(lookup(&v, &steps).cloned(), want, "{path}");
            assert_eq!(take(v.clone(), &steps), want, "{path}");
        }
    }

    #[test]
    fn sensitivity_covers_ancestors_and_descendants() {
        let mirror = json!({"password": true, "users": [{"secret": true}], "plain": {}});
        let s = |p: &str| is_sensitive(Some(&mirror), &parse_bare(p).unwrap());
        assert!(s("password"));
        assert!(s("password.inner"));
        assert!(s("users"));
        assert!(s("users[0]"));
        assert!(!s("plain"));
        assert!(!s("other"));
        assert!(is_sensitive(Some(&json!(true)), &[]));
        assert!(!is_sensitive(None, &[key("x")]));
    }
}
