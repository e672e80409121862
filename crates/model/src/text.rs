//! Plan text made safe to show: invisible and direction-changing characters become visible escapes.
//!
//! Plans are untrusted input. Rendering as text (never HTML) stops markup from running; this stops
//! text from hiding itself: a NUL, a right-to-left override (U+202E) or a zero-width space in an
//! address or value is shown as `\u{202e}`, so what a reviewer reads is what the plan says.
//!
//! Every address, key and value the shells show goes through it.

/// True for characters that would be invisible or would reorder the text around them.
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200b}'..='\u{200f}'   // zero-width space/joiners, LRM, RLM
            | '\u{2028}' | '\u{2029}' // line/paragraph separators
            | '\u{202a}'..='\u{202e}' // bidi embeddings and overrides
            | '\u{2060}'..='\u{2064}' // word joiner, invisible operators
            | '\u{2066}'..='\u{2069}' // bidi isolates
            | '\u{feff}'              // zero-width no-break space
        )
}

/// The text with hidden characters written as `\u{…}` (newlines and tabs as `\n`, `\t`).
pub fn visible(s: &str) -> String {
    if !s.chars().any(is_hidden) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if is_hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Multi-line text (a rule file) with each line made [`visible`]; the line breaks stay.
pub fn visible_lines(s: &str) -> String {
    s.split('\n').map(visible).collect::<Vec<_>>().join("\n")
}

/// A string value as a quoted literal, with `"` and `\` escaped and hidden characters visible.
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if is_hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `1 dependency`, `2 dependencies`: a count with its noun, singular for exactly one. Every
/// count-with-noun text of the core, the page and the CLI goes through here.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", noun(n, one, many))
}

/// A reader's warning that it skipped lines: `3 lines of the log are not a resource change
/// Planlens reads and were skipped.` (`of` names the input, `not_what` what the lines are not).
pub fn skipped_lines(n: usize, of: &str, not_what: &str) -> String {
    format!(
        "{} of the {of} {} {not_what} and {} skipped.",
        count(n, "line", "lines"),
        noun(n, "is", "are"),
        noun(n, "was", "were"),
    )
}

/// The noun alone for a count of `n`: `one` for exactly one, else `many`.
pub fn noun<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// `s` cut to at most `max` bytes, on a character boundary, with `…` in place of what was cut;
/// `s` itself when it fits. For text of the file's that goes into one sentence (an error's
/// summary in a headline), which a real file keeps short and a broken one may not.
pub fn clipped(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if s.len() <= max {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!("{}…", &s[..end]))
}

/// Case-insensitive (Unicode-aware for ASCII-only needles, exact otherwise) substring test without
/// allocating for the common ASCII case.
pub fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    if needle.is_ascii() {
        let n = needle.as_bytes();
        haystack
            .as_bytes()
            .windows(n.len())
            .any(|w| w.eq_ignore_ascii_case(n))
    } else {
        haystack.to_lowercase().contains(&needle.to_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_lines_read_as_a_sentence_for_one_and_for_many() {
        assert_eq!(
            skipped_lines(1, "log", "not a resource change Planlens reads"),
            "1 line of the log is not a resource change Planlens reads and was skipped."
        );
        assert_eq!(
            skipped_lines(3, "text", "not part of the plan Planlens reads"),
            "3 lines of the text are not part of the plan Planlens reads and were skipped."
        );
    }

    #[test]
    fn lines_stay_lines() {
        assert_eq!(
            visible_lines("a = 1\nb\u{202e} = 2\n"),
            "a = 1\nb\\u{202e} = 2\n"
        );
    }

    #[test]
    fn hidden_characters_become_visible() {
        assert_eq!(visible("plain.address"), "plain.address");
        assert_eq!(visible("a\u{0}b"), "a\\u{0}b");
        assert_eq!(visible("evil\u{202e}txt.exe"), "evil\\u{202e}txt.exe");
        assert_eq!(visible("\u{2066}x\u{2069}"), "\\u{2066}x\\u{2069}");
        assert_eq!(quoted("say \"hi\"\n"), "\"say \\\"hi\\\"\\n\"");
    }
}
