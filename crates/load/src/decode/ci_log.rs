//! CI-log lines → the lines a tool printed: what a CI log, a PR comment or a copy from a
//! terminal adds around a command's output, removed line by line.
//!
//! GitHub Actions, GitLab and Jenkins prefix each line with a timestamp and add their own marker
//! lines (`##[group]`, `[command]…`, workflow commands such as `::debug::`); a terminal copy keeps
//! colour codes; a PR comment wraps the output in Markdown fences and `<details>` tags.
//! [`clean_ci_line`] undoes these for one line and [`CiCleaning`] says what it undid. It knows
//! nothing of what the lines hold: the text-plan reader cleans with it, then reads the plan.
//!
//! `workflow_command` is the one check for `::name::` lines: the wrapper-line removal in `decode`
//! uses it too.

/// What the cleaning of CI log lines removed, for the notes (the text plan reader reports it).
#[derive(Debug, Default)]
pub struct CiCleaning {
    ansi: bool,
    timestamps: bool,
    markers: bool,
    markdown: bool,
}

impl CiCleaning {
    /// What was removed, in words (`colour codes`, `log timestamps`, …), in a fixed order.
    pub fn notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.ansi {
            out.push("colour codes".to_string());
        }
        if self.timestamps {
            out.push("log timestamps".to_string());
        }
        if self.markers {
            out.push("CI log markers".to_string());
        }
        if self.markdown {
            out.push("Markdown and HTML of a PR comment".to_string());
        }
        out
    }
}

/// One line without its line end, colour codes and log timestamp; `None` for a line that is only
/// a CI marker (`##[…]`, `[command]…`, a workflow command) or Markdown/HTML around the output
/// (a fence, `<details>`, `<summary>`, `<br>`).
pub(crate) fn clean_ci_line(raw: &str, c: &mut CiCleaning) -> Option<String> {
    let mut line = raw.trim_end_matches(['\r', '\n']).to_string();
    if line.contains('\u{1b}') || line.contains("[0m") {
        let stripped = strip_ansi(&line);
        if stripped != line {
            c.ansi = true;
            line = stripped;
        }
    }
    if let Some(rest) = strip_timestamp(&line) {
        c.timestamps = true;
        line = rest.to_string();
    }
    let trimmed = line.trim();
    if trimmed.starts_with("##[")
        || trimmed.starts_with("[command]")
        || workflow_command(trimmed).is_some()
    {
        c.markers = true;
        return None;
    }
    if trimmed.starts_with("```")
        || trimmed.starts_with("<details")
        || trimmed.starts_with("</details")
        || trimmed.starts_with("<summary")
        || trimmed.starts_with("</summary")
        || trimmed == "<br>"
        || trimmed == "<br/>"
    {
        c.markdown = true;
        return None;
    }
    Some(line)
}

/// A GitHub Actions workflow command, `::name::message` or `::name key=value,…::message`: its
/// name and whether it has properties. Properties are escaped by the toolkit (`:` as `%3A`), so
/// the first `::` after the name closes the command.
pub(crate) fn workflow_command(line: &str) -> Option<(&str, bool)> {
    let rest = line.strip_prefix("::")?;
    let head = &rest[..rest.find("::")?];
    let (name, properties) = head.split_once(' ').unwrap_or((head, ""));
    let valid = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    valid.then_some((name, !properties.is_empty()))
}

/// `ESC` a copy lost (`[32m`, `[0m`).
fn strip_ansi(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        let ch = chars[i];
        if ch == '\u{1b}' {
            match chars.get(i + 1) {
                Some('[') => {
                    let mut j = i + 2;
                    while j < chars.len() && !('\u{40}'..='\u{7e}').contains(&chars[j]) {
                        j += 1;
                    }
                    i = j + 1;
                }
                Some(']') => {
                    let mut j = i + 2;
                    while j < chars.len() && chars[j] != '\u{7}' && chars[j] != '\u{1b}' {
                        j += 1;
                    }
                    // ESC \ ends it too.
                    i = if chars.get(j) == Some(&'\u{1b}') {
                        j + 2
                    } else {
                        j + 1
                    };
                }
                Some(_) => i += 2,
                None => i += 1,
            }
            continue;
        }
        if ch == '[' {
            // A lost-ESC SGR: `[` digits and `;`, then `m`, short.
            let mut j = i + 1;
            while j < chars.len() && j - i <= 12 && (chars[j].is_ascii_digit() || chars[j] == ';') {
                j += 1;
            }
            if j > i + 1 && chars.get(j) == Some(&'m') {
                i = j + 1;
                continue;
            }
        }
        out.push(ch);
        i += 1;
    }
    out
}

/// The line after a log timestamp (`2024-05-01T10:00:00.1234567Z `, `[2024-05-01 10:00:00] `,
/// GitLab's `2024-05-01T10:00:00.123456Z 00O `, Jenkins' `[10:00:00] `), or `None` without one.
fn strip_timestamp(line: &str) -> Option<&str> {
    let b = line.as_bytes();
    let digits = |from: usize, n: usize| {
        b.len() >= from + n && b[from..from + n].iter().all(u8::is_ascii_digit)
    };
    let mut i = usize::from(b.first() == Some(&b'['));
    let bracket = i == 1;
    let mut dated = false;
    if digits(i, 4)
        && b.get(i + 4) == Some(&b'-')
        && digits(i + 5, 2)
        && b.get(i + 7) == Some(&b'-')
    {
        if !digits(i + 8, 2) {
            return None;
        }
        i += 10;
        dated = true;
        if matches!(b.get(i), Some(b'T') | Some(b' ')) {
            i += 1;
        } else {
            return None;
        }
    }
    // HH:MM:SS
    if !(digits(i, 2)
        && b.get(i + 2) == Some(&b':')
        && digits(i + 3, 2)
        && b.get(i + 5) == Some(&b':')
        && digits(i + 6, 2))
    {
        return None;
    }
    i += 8;
    if matches!(b.get(i), Some(b'.') | Some(b',')) {
        i += 1;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    if b.get(i) == Some(&b'Z') {
        i += 1;
    } else if matches!(b.get(i), Some(b'+') | Some(b'-')) && digits(i + 1, 2) {
        i += 3;
        if b.get(i) == Some(&b':') {
            i += 1;
        }
        if digits(i, 2) {
            i += 2;
        }
    }
    if bracket {
        if b.get(i) != Some(&b']') {
            return None;
        }
        i += 1;
    }
    // A bare time needs the bracket or a date to be taken for a timestamp.
    if !dated && !bracket {
        return None;
    }
    let mut rest = &line[i..];
    // GitLab's stream marker: `00O `, `01E+`.
    let r = rest.trim_start_matches(' ').as_bytes();
    if r.len() >= 3
        && r[0].is_ascii_digit()
        && r[1].is_ascii_digit()
        && (r[2] == b'O' || r[2] == b'E')
        && matches!(r.get(3), None | Some(b' ') | Some(b'+'))
    {
        let skip = rest.len() - r.len() + 3 + usize::from(r.get(3) == Some(&b'+'));
        rest = &rest[skip..];
    }
    Some(rest.strip_prefix(' ').unwrap_or(rest))
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_and_markers_are_cut_from_lines() {
        assert_eq!(
            strip_timestamp("2024-05-01T10:00:00.1234567Z   # aws_x.y will be created"),
            Some("  # aws_x.y will be created")
        );
        assert_eq!(
            strip_timestamp("2024-05-01T10:00:00.123456Z 00O Plan: 1 to add"),
            Some("Plan: 1 to add")
        );
        assert_eq!(strip_timestamp("[10:00:01] + create"), Some("+ create"));
        assert_eq!(strip_timestamp("10:00:01 not a log"), None);
        assert_eq!(strip_ansi("\u{1b}[1m  # x\u{1b}[0m will"), "  # x will");
        assert_eq!(strip_ansi("[32m+[0m create"), "+ create");
    }
}
