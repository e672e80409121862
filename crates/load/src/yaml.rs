//! YAML → JSON text, for `kubectl get … -o yaml` (one object, a `List`, or several documents
//! separated by `---`).
//!
//! The YAML parser (saphyr) is a large part of a wasm build and only people opening YAML need it,
//! so everything that uses it is one function with text in and text out, [`yaml_to_json`]: native
//! builds (the CLI, `cargo test`) call it directly; in the browser it is the `part-yaml` binary
//! (crates/part-yaml), a wasm module of its own that the worker fetches the first time a YAML
//! file is opened (src/worker.rs), so the first-visit module never calls it and does not carry it. Recognising YAML
//! ([`looks_like_kube_yaml`]) needs no parser and is always built.
//!
//! Several `---` documents become one JSON array. `looks_like_kube_yaml` looks for top-level
//! `apiVersion:` and `kind:` keys in the first document. Natively `readers::kube` calls
//! `yaml_to_json`; on wasm32 it answers `LoadError::NeedsYamlReader` instead, and the plan's worker
//! turns the YAML into JSON through `part-yaml` first.

use std::fmt;

/// YAML that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// 1-based line (0 when the error is about the whole text).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong, in the parser's words or ours.
    pub message: String,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(
                f,
                "{} at line {}, column {}",
                self.message, self.line, self.column
            )
        }
    }
}

impl std::error::Error for YamlError {}

/// True when `text` is YAML as `kubectl … -o yaml` prints it: before the first document ends,
/// `apiVersion:` and `kind:` are keys at the start of a line (every Kubernetes object and `List`
/// has both). Comments, `---` and blank lines may come first. Reads only that first document, and
/// never mistakes JSON (which starts with `{` or `[`) or a human-readable plan (whose lines are
/// sentences and `# resource` headings, never both keys) for YAML.
pub fn looks_like_kube_yaml(text: &str) -> bool {
    // JSON is told at once: its first line may be the whole file (a plan of many megabytes).
    if text.trim_start().starts_with(['{', '[']) {
        return false;
    }
    let (mut api_version, mut kind, mut started) = (false, false, false);
    for line in text.lines() {
        let trimmed = line.trim_end();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if trimmed == "---" || trimmed.starts_with("--- ") {
            if started {
                break;
            }
            continue;
        }
        if trimmed == "..." {
            break;
        }
        // An indented line belongs to the value of the key above it.
        if line.starts_with([' ', '\t', '-']) {
            if !started {
                return false;
            }
            continue;
        }
        let Some(key) = top_level_key(trimmed) else {
            return false;
        };
        started = true;
        api_version |= key == "apiVersion";
        kind |= key == "kind";
        if api_version && kind {
            return true;
        }
    }
    false
}

/// `key` of a `key: value` or `key:` line, for plain keys made of letters, digits, `_` and `-`.
fn top_level_key(line: &str) -> Option<&str> {
    let colon = line.find(':')?;
    let key = &line[..colon];
    let after = &line[colon + 1..];
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    (plain && (after.is_empty() || after.starts_with(' '))).then_some(key)
}

/// Reads YAML and writes the same data as JSON text: one document as itself, several (separated
/// by `---`) as a Kubernetes `List` of them when every one is a Kubernetes object (has
/// `apiVersion` and `kind`: what `kubectl get` prints is then read like its `-o json`), else as a
/// JSON array; empty documents are left out. Mapping keys that are numbers
/// or booleans become strings (JSON keys are strings); infinite and NaN floats, which JSON cannot
/// write, become strings too. Aliases are expanded (with the parser's limit against alias bombs);
/// duplicate keys are an error, as the YAML specification says.
pub fn yaml_to_json(text: &str) -> Result<String, YamlError> {
    use saphyr::{LoadableYamlNode, Yaml};

    let docs = Yaml::load_from_str(text).map_err(|e| YamlError {
        line: e.marker().line(),
        column: e.marker().col() + 1,
        message: e.info().to_string(),
    })?;
    let mut values = Vec::with_capacity(docs.len());
    for doc in &docs {
        let value = to_json(doc, 0)?;
        if !value.is_null() {
            values.push(value);
        }
    }
    let json = match values.len() {
        0 => {
            return Err(YamlError {
                line: 0,
                column: 0,
                message: "The YAML holds no document (only comments or `---`)".to_string(),
            });
        }
        1 => values.pop().unwrap_or_default(),
        _ if values
            .iter()
            .all(|v| v.get("apiVersion").is_some() && v.get("kind").is_some()) =>
        {
            serde_json::json!({"apiVersion": "v1", "kind": "List", "items": values})
        }
        _ => serde_json::Value::Array(values),
    };
    Ok(json.to_string())
}

/// Nesting deeper than this is refused rather than risking the stack (Kubernetes objects nest a
/// dozen levels at most).
const MAX_DEPTH: usize = 256;

fn to_json(node: &saphyr::Yaml<'_>, depth: usize) -> Result<serde_json::Value, YamlError> {
    use saphyr::{Scalar, Yaml};
    use serde_json::Value;

    if depth > MAX_DEPTH {
        return Err(whole(format!(
            "The YAML nests more than {MAX_DEPTH} levels deep"
        )));
    }
    Ok(match node {
        Yaml::Value(scalar) => match scalar {
            Scalar::Null => Value::Null,
            Scalar::Boolean(b) => Value::Bool(*b),
            Scalar::Integer(i) => Value::from(*i),
            Scalar::FloatingPoint(f) => serde_json::Number::from_f64(f.into_inner())
                .map_or_else(|| Value::String(f.to_string()), Value::Number),
            Scalar::String(s) => Value::String(s.to_string()),
        },
        // Left unresolved only when the loader is told to; the text is what was written.
        Yaml::Representation(s, _, _) => Value::String(s.to_string()),
        Yaml::Sequence(items) => Value::Array(
            items
                .iter()
                .map(|item| to_json(item, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Yaml::Mapping(map) => {
            let mut object = serde_json::Map::with_capacity(map.len());
            for (key, value) in map {
                object.insert(key_text(key)?, to_json(value, depth + 1)?);
            }
            Value::Object(object)
        }
        // `!!binary`, `!!str` and custom tags: the value as written.
        Yaml::Tagged(_, inner) => to_json(inner, depth + 1)?,
        Yaml::Alias(_) => return Err(whole("The YAML has an alias (*name) to no anchor".into())),
        Yaml::BadValue => {
            return Err(whole(
                "The YAML has a value that does not fit its tag (e.g. `!!int abc`)".into(),
            ));
        }
    })
}

/// A mapping key as JSON's string key.
fn key_text(key: &saphyr::Yaml<'_>) -> Result<String, YamlError> {
    use saphyr::{Scalar, Yaml};
    match key {
        Yaml::Value(Scalar::String(s)) | Yaml::Representation(s, _, _) => Ok(s.to_string()),
        Yaml::Value(Scalar::Null) => Ok("null".to_string()),
        Yaml::Value(Scalar::Boolean(b)) => Ok(b.to_string()),
        Yaml::Value(Scalar::Integer(i)) => Ok(i.to_string()),
        Yaml::Value(Scalar::FloatingPoint(f)) => Ok(f.to_string()),
        Yaml::Tagged(_, inner) => key_text(inner),
        _ => Err(whole(
            "The YAML has a mapping or sequence as a key (`? …`), which JSON cannot hold".into(),
        )),
    }
}

fn whole(message: String) -> YamlError {
    YamlError {
        line: 0,
        column: 0,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kube_yaml_is_recognised_and_plans_are_not() {
        assert!(looks_like_kube_yaml(
            "apiVersion: v1\nkind: List\nitems: []\n"
        ));
        assert!(looks_like_kube_yaml(
            "# from kubectl\n---\napiVersion: infra.contrib.fluxcd.io/v1alpha2\nkind: Terraform\n"
        ));
        assert!(looks_like_kube_yaml(
            "items:\n- apiVersion: x\n  kind: y\napiVersion: v1\nkind: List\n"
        ));
        assert!(!looks_like_kube_yaml(
            "{\"apiVersion\": \"v1\", \"kind\": \"List\"}"
        ));
        assert!(!looks_like_kube_yaml(
            "Terraform will perform the following actions:\n\n  # aws_instance.web will be created\n"
        ));
        assert!(!looks_like_kube_yaml("kind: x\n---\napiVersion: v1\n"));
        assert!(!looks_like_kube_yaml(
            "aws_instance.web: Refreshing state... [id=i-1]\n"
        ));
    }

    #[test]
    fn documents_become_json() {
        let one = yaml_to_json("apiVersion: v1\nkind: Secret\ndata:\n  tfplan: H4sI\n").unwrap();
        assert_eq!(
            one,
            r#"{"apiVersion":"v1","data":{"tfplan":"H4sI"},"kind":"Secret"}"#
        );
        let several = yaml_to_json("---\na: 1\n---\n---\nb: [true, null, 2.5, \"3\"]\n").unwrap();
        assert_eq!(several, r#"[{"a":1},{"b":[true,null,2.5,"3"]}]"#);
        let objects =
            yaml_to_json("---\napiVersion: v1\nkind: Secret\n---\napiVersion: v1\nkind: Pod\n")
                .unwrap();
        assert_eq!(
            objects,
            r#"{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Secret"},{"apiVersion":"v1","kind":"Pod"}],"kind":"List"}"#
        );
        let keys = yaml_to_json("1: a\ntrue: b\n").unwrap();
        assert_eq!(keys, r#"{"1":"a","true":"b"}"#);
    }

    #[test]
    fn bad_yaml_says_where() {
        let e = yaml_to_json("a: 1\nb: [1, 2\n").unwrap_err();
        assert!(e.line >= 2, "{e:?}");
        let e = yaml_to_json("a: 1\na: 2\n").unwrap_err();
        assert!(e.to_string().contains("line"), "{e}");
        assert!(yaml_to_json("# nothing\n").is_err());
    }
}
