//! A policy error: where (file, line, column) and what, in OPA's words where we know them
//! (`rego_parse_error`, `rego_unsafe_var_error`, `rego_type_error`, `eval_…`).

use serde::{Deserialize, Serialize};

/// Something wrong with a policy, found before or while evaluating it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyError {
    /// The policy file's name; empty when the error is about no file.
    pub file: String,
    /// 1-based line; 0 when unknown.
    pub line: u32,
    /// 1-based column; 0 when unknown.
    pub column: u32,
    /// OPA's error code: `rego_parse_error`, `rego_unsafe_var_error`, `rego_type_error`,
    /// `rego_compile_error`, `eval_error`, `eval_cancel_error` (time limit).
    pub code: String,
    /// The message, e.g. `var _ is unsafe`.
    pub message: String,
}

impl PolicyError {
    /// An error about no particular file (a bad request, an input that is not JSON).
    pub fn general(message: impl Into<String>) -> PolicyError {
        PolicyError {
            file: String::new(),
            line: 0,
            column: 0,
            code: "planlens_error".to_string(),
            message: message.into(),
        }
    }

    /// True for an error found before any rule ran (parsing or compiling), as OPA refuses a
    /// policy; false for errors while evaluating (including the time limit).
    pub fn is_compile_error(&self) -> bool {
        self.code.starts_with("rego_")
    }
}

impl std::fmt::Display for PolicyError {
    /// `file:line:column: code: message`, as OPA prints `file:line: code: message`, with the
    /// column added.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.file.is_empty() {
            write!(f, "{}:", self.file)?;
            if self.line > 0 {
                write!(f, "{}:{}:", self.line, self.column)?;
            }
            f.write_str(" ")?;
        }
        write!(f, "{}: {}", self.code, self.message)
    }
}

/// Reads an error of the engine, which it writes as
/// `--> file:line:col` / the source line / `error: message`, into a [`PolicyError`] with
/// `code` (the stage it happened in) unless the message names a more precise OPA code.
pub(super) fn from_engine(error: &impl std::fmt::Display, code: &str) -> PolicyError {
    let text = error.to_string();
    let (mut file, mut line, mut column) = (String::new(), 0, 0);
    let mut message = None;
    for l in text.lines() {
        let l = l.trim_start();
        if let Some(at) = l.strip_prefix("--> ") {
            let mut parts = at.rsplitn(3, ':');
            let col = parts.next().and_then(|c| c.trim().parse().ok());
            let ln = parts.next().and_then(|c| c.trim().parse().ok());
            if let (Some(col), Some(ln), Some(f)) = (col, ln, parts.next()) {
                (file, line, column) = (f.to_string(), ln, col);
            }
        } else if let Some(m) = l.strip_prefix("error: ") {
            message = Some(m.trim().to_string());
        }
    }
    let mut message = message.unwrap_or_else(|| text.trim().to_string());
    // Two values for one complete rule: OPA's words (the engine names the other rule instead).
    if message.contains("conflicts with rule") || message.contains("multiple outputs") {
        message = "complete rules must not produce multiple outputs".to_string();
    }
    let code = if code == "rego_parse_error" {
        code
    } else if message.contains("is unsafe") {
        "rego_unsafe_var_error"
    } else if message.starts_with("could not find function") {
        "rego_type_error"
    } else if message.contains("multiple outputs") || message.contains("conflict") {
        "eval_conflict_error"
    } else {
        code
    };
    PolicyError {
        file,
        line,
        column,
        code: code.to_string(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_errors_are_read_with_their_place() {
        let e = from_engine(
            &"\n--> dir/a.rego:2:11\n  |\n2 | deny[msg] { }\n  |           ^\nerror: `if` keyword is required before rule body",
            "rego_parse_error",
        );
        assert_eq!(
            e.to_string(),
            "dir/a.rego:2:11: rego_parse_error: `if` keyword is required before rule body"
        );
        assert!(e.is_compile_error());
        assert_eq!(PolicyError::general("x").to_string(), "planlens_error: x");
    }
}
