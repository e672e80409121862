//! How a string value reads in a diff, as Terraform's renderer decides (`evaluatePrimitiveString`):
//! a string that starts with `{` or `[` and parses as JSON is shown as the JSON it encodes
//! (`jsonencode(…)`), a string with line breaks line by line (a heredoc), any other as one quoted
//! value. What the reading becomes in the tree is decided in `diff` (`Form`).

use serde_json::Value;

/// What a string holds, for showing it.
pub(crate) enum Reading<'s> {
    /// JSON text of an object or array (IAM policies, `jsonencode`), parsed.
    Json(Value),
    /// Several lines (user data, scripts, certificates): the lines of the trimmed text.
    Lines(Vec<&'s str>),
    /// One line.
    Plain,
}

/// Reads one string. Terraform trims a multi-line string before splitting it, so a trailing
/// newline adds no empty line; a `\r` before a line break is dropped with it.
pub(crate) fn read(s: &str) -> Reading<'_> {
    if (s.starts_with('{') || s.starts_with('['))
        && let Ok(v @ (Value::Object(_) | Value::Array(_))) = serde_json::from_str::<Value>(s)
    {
        return Reading::Json(v);
    }
    if s.contains('\n') {
        return Reading::Lines(
            s.trim()
                .split('\n')
                .map(|l| l.strip_suffix('\r').unwrap_or(l))
                .collect(),
        );
    }
    Reading::Plain
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_read_as_terraform_reads_them() {
        assert!(matches!(
            read(r#"{"Version":"2012-10-17"}"#),
            Reading::Json(_)
        ));
        assert!(matches!(read("[1, 2]"), Reading::Json(_)));
        // Not JSON after all, or JSON that is not an object or array: plain or lines.
        assert!(matches!(read("{not json"), Reading::Plain));
        assert!(matches!(read("\"quoted\""), Reading::Plain));
        assert!(matches!(read(" {\"a\":1}"), Reading::Plain));
        match read("#!/bin/bash\r\necho hi\n") {
            Reading::Lines(lines) => assert_eq!(lines, ["#!/bin/bash", "echo hi"]),
            _ => panic!("a script reads as lines"),
        }
    }
}
