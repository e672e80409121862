//! What a policy file says about itself, read from its text without a Rego parser: its package and
//! the syntax it is most likely written in. Shape and syntax choices are made here, outside the
//! engine, so the page can say what each file was given before the engine module has loaded.

use serde::{Deserialize, Serialize};

/// A policy file: its name (shown in errors, `file:line:column`) and its Rego text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyFile {
    /// The file's name, e.g. `policies/deny_destroy.rego`.
    pub name: String,
    /// The Rego source.
    pub text: String,
}

impl PolicyFile {
    /// A policy file from its name and text.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> PolicyFile {
        PolicyFile {
            name: name.into(),
            text: text.into(),
        }
    }

    /// True for a test file: `*_test.rego`, as `opa test` and `conftest verify` name them.
    pub fn is_test(&self) -> bool {
        self.name.ends_with("_test.rego")
    }
}

/// Which Rego syntax a file is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Syntax {
    /// Rego v1, the default since OPA 1.0: `deny contains msg if { … }`.
    V1,
    /// Rego v0, still what Spacelift's docs and most policy libraries show: `deny[msg] { … }`.
    V0,
}

impl Syntax {
    /// `v1` or `v0`.
    pub fn key(self) -> &'static str {
        match self {
            Syntax::V1 => "v1",
            Syntax::V0 => "v0",
        }
    }

    /// The syntax a file most likely uses: v1 when it imports `rego.v1` or uses `if`/`contains`
    /// as keywords; v0 when it imports `future.keywords` (only v0 needs them) or has a rule head
    /// followed directly by `{` (v1 requires `if` there); v1 otherwise. The engine parses in this
    /// syntax first and tries the other when that fails, so this only decides which error a
    /// broken file reports.
    pub fn guess(text: &str) -> Syntax {
        let mut v0_head = false;
        for line in code_lines(text) {
            let line = line.trim();
            if line.starts_with("import rego.v1") {
                return Syntax::V1;
            }
            if line.starts_with("import future.keywords") {
                return Syntax::V0;
            }
            v0_head |= is_v0_rule_head(line);
        }
        if uses_v1_keywords(text) {
            Syntax::V1
        } else if v0_head {
            Syntax::V0
        } else {
            Syntax::V1
        }
    }
}

/// True when the text uses `if` or `contains` as keywords (not `contains(…)`, the builtin)
/// without importing them from `future.keywords` or `rego.v1`: such a file is Rego v1, and
/// OPA's v0 parser refuses it.
pub fn uses_v1_keywords(text: &str) -> bool {
    let mut uses = false;
    for line in code_lines(text) {
        let trimmed = line.trim();
        if trimmed.starts_with("import future.keywords") || trimmed.starts_with("import rego.v1") {
            return false;
        }
        let code = without_strings(line);
        let words: Vec<&str> = code
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '('))
            .collect();
        uses |= words.iter().any(|w| *w == "if" || *w == "contains");
    }
    uses
}

/// The line with the contents of its strings removed (`"a if b"` → `""`).
fn without_strings(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let (mut in_string, mut escaped, mut raw) = (false, false, false);
    for c in line.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' if !raw => {
                in_string = !in_string;
                out.push(c);
            }
            '`' if !in_string => {
                raw = !raw;
                out.push(c);
            }
            _ if in_string || raw => {}
            _ => out.push(c),
        }
    }
    out
}

/// True for a line that opens a rule body without `if`: `deny[msg] {`, `allow {`,
/// `f(x) = y {`, `p := 1 {`. Lines inside bodies start with expressions that rarely end a head
/// this way; a false guess only changes which syntax is tried first.
fn is_v0_rule_head(line: &str) -> bool {
    let Some(head) = line.strip_suffix('{').or_else(|| {
        let at = line.find('{')?;
        // `deny[msg] { msg := "x" }` on one line.
        line.ends_with('}').then(|| &line[..at])
    }) else {
        return false;
    };
    let head = head.trim_end();
    let name_len = head
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(head.len());
    if name_len == 0 || head.starts_with(|c: char| c.is_ascii_digit()) {
        return false;
    }
    let (name, rest) = head.split_at(name_len);
    if matches!(
        name,
        "if" | "else" | "not" | "some" | "every" | "package" | "import" | "default"
    ) {
        return false;
    }
    let rest = rest.trim_start();
    let words: Vec<&str> = rest.split_whitespace().collect();
    if words.iter().any(|w| *w == "if" || *w == "contains") {
        return false;
    }
    // `x := {` and `x = [` open a literal, not a body.
    let assigns_literal = rest
        .strip_prefix(":=")
        .or_else(|| rest.strip_prefix('='))
        .is_some_and(|value| {
            value.trim().is_empty() || value.trim_end().ends_with(['[', ',', '('])
        });
    !assigns_literal
        && (rest.is_empty()
            || rest.starts_with('[')
            || rest.starts_with('(')
            || rest.starts_with('=')
            || rest.starts_with(":="))
}

/// How deeply square brackets and braces, together, may nest in a policy. The engine's parser
/// takes time exponential in the depth (fuzzing found a 60-byte policy that never finished: 22
/// levels of `[` took 3.5 s; then 21 levels of `{` took 4.4 s, and `{[` alternating is as slow:
/// each level doubles it); real policies nest a few levels (a rule's body, a comprehension, an
/// object in it). Parentheses are not counted: their depth costs the parser nothing.
pub const MAX_BRACKET_DEPTH: usize = 16;

/// Where (1-based line and column) square brackets and braces in `text`'s code (not its strings or
/// comments) first nest deeper than [`MAX_BRACKET_DEPTH`], if they do.
pub fn too_deep(text: &str) -> Option<(u32, u32)> {
    let mut depth = 0usize;
    for (n, line) in code_lines(text).enumerate() {
        let code = without_strings(line);
        for (i, c) in code.chars().enumerate() {
            match c {
                '[' | '{' => depth += 1,
                ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth > MAX_BRACKET_DEPTH {
                return Some((n as u32 + 1, i as u32 + 1));
            }
        }
    }
    None
}

/// The lines of `text` with `#` comments removed (a `#` inside a string is kept).
fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(|line| {
        let mut in_string = false;
        let mut escaped = false;
        for (i, c) in line.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' if in_string => escaped = true,
                '"' => in_string = !in_string,
                '#' if !in_string => return &line[..i],
                _ => {}
            }
        }
        line
    })
}

/// The file's package as written after `package` (`main`, `spacelift`, `terraform.analysis`),
/// or `None` when the file has no package statement (the engine then reports it).
pub fn package_of(text: &str) -> Option<String> {
    code_lines(text).find_map(|line| {
        let rest = line.trim().strip_prefix("package")?;
        if !rest.starts_with(char::is_whitespace) {
            return None;
        }
        let package: String = rest.chars().filter(|c| !c.is_whitespace()).collect();
        (!package.is_empty()).then_some(package)
    })
}

/// True when the file reads `input.tfplan` or `input.tfrun`: Scalr's input.
pub fn reads_scalr_input(text: &str) -> bool {
    code_lines(text).any(|line| line.contains("input.tfplan") || line.contains("input.tfrun"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_nested_too_deeply_are_found_outside_strings_and_comments() {
        // The rule's brace is the first level: the 16th bracket is the 17th level.
        let deep = format!("package main\n\nx = e {{\n\te{} := 1\n}}\n", "[".repeat(17));
        assert_eq!(too_deep(&deep), Some((4, 18)));
        let braces = format!("package main\n\nx := {}\n", "{".repeat(21));
        assert_eq!(too_deep(&braces), Some((3, 22)));
        let mixed = format!("package main\n\nx := {}\n", "{[".repeat(9));
        assert_eq!(too_deep(&mixed), Some((3, 22)));
        let real = "package main\n\ndeny contains msg if {\n\tsome rc in input.resource_changes\n\
                    \tnames := {n | n := [rc.change.after.tags[k] | some k in {\"a\"}][_]}\n\
                    \tmsg := sprintf(\"%v\", [{\"names\": names}])\n}\n";
        assert_eq!(too_deep(real), None);
        let fine = format!(
            "package main\n# {}\nx := \"{}\"\n",
            "[".repeat(40),
            "[".repeat(40)
        );
        assert_eq!(too_deep(&fine), None);
        assert_eq!(too_deep(&"[]".repeat(100)), None);
    }

    #[test]
    fn syntax_and_package_from_text() {
        for (text, syntax) in [
            (
                "package main\n\ndeny[msg] {\n  msg := \"x\"\n}\n",
                Syntax::V0,
            ),
            (
                "package main\ndeny contains msg if {\n msg := \"x\"\n}\n",
                Syntax::V1,
            ),
            ("package main\nimport rego.v1\nallow {\n}\n", Syntax::V1),
            (
                "package main\nimport future.keywords.if\nallow if { true }\n",
                Syntax::V0,
            ),
            ("package x\nallow { true }\n", Syntax::V0),
            // An object literal is not a v0 body; `if` makes it v1.
            ("package x\np := {\"a\": [{\n}]}\nt if { p }\n", Syntax::V1),
        ] {
            assert_eq!(Syntax::guess(text), syntax, "{text}");
        }
        assert!(uses_v1_keywords("deny contains msg {\n}"));
        assert!(!uses_v1_keywords(
            "deny[msg] { contains(x, \"if contains\") }"
        ));
        assert_eq!(
            package_of("# a comment\npackage  terraform.analysis # why\n").as_deref(),
            Some("terraform.analysis")
        );
        assert_eq!(package_of("packages main"), None);
        assert!(reads_scalr_input(
            "deny[r] { input.tfrun.workspace.name == \"x\" }"
        ));
        assert!(!reads_scalr_input("# input.tfplan\n"));
    }
}
