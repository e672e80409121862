//! Message templates: text with `{placeholders}`, checked when the rule file is parsed so that a
//! typo is an error on its line, not a finding that reads "{adress}".

use super::path::{PathRoot, Step, parse_sided};

/// One piece of a message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Piece {
    Text(String),
    Address,
    Type,
    Name,
    Module,
    Provider,
    Action,
    Drift,
    DriftAttributes,
    Count,
    Var(String),
    Value(PathRoot, Vec<Step>),
}

impl Piece {
    /// True for placeholders that describe one resource (meaningless in an aggregate).
    fn is_per_resource(&self) -> bool {
        !matches!(self, Piece::Text(_) | Piece::Count | Piece::Var(_))
    }
}

/// A parsed message template.
#[derive(Debug, Clone)]
pub(crate) struct Template {
    pub(crate) pieces: Vec<Piece>,
}

/// The placeholders, as error messages list them.
pub(crate) const PLACEHOLDERS: &str = "{address}, {type}, {name}, {module}, {provider}, {action}, \
     {drift}, {drift.attributes}, {count}, {var.NAME}, {before.PATH}, {after.PATH}";

impl Template {
    /// Parses `text`. `aggregate`: the rule has `count`, so only `{count}` and `{var.NAME}` make
    /// sense. Errors carry the byte offset in `text` of the offending placeholder.
    pub(crate) fn parse(text: &str, aggregate: bool) -> Result<Template, Vec<(usize, String)>> {
        let mut pieces = Vec::new();
        let mut errors = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        let mut offset = 0;
        while let Some(at) = rest.find(['{', '}']) {
            literal.push_str(&rest[..at]);
            let tail = &rest[at..];
            // `{{` and `}}` are literal braces; a lone `}` is kept as it is.
            if tail.starts_with("{{") || tail.starts_with("}}") {
                literal.push_str(&tail[..1]);
                rest = &tail[2..];
                offset += at + 2;
                continue;
            }
            if let Some(after) = tail.strip_prefix('}') {
                literal.push('}');
                rest = after;
                offset += at + 1;
                continue;
            }
            let Some(close) = tail.find('}') else {
                errors.push((
                    offset + at,
                    "unclosed \"{\" in the message (write {{ for a literal brace)".to_string(),
                ));
                rest = "";
                break;
            };
            let name = &tail[1..close];
            match placeholder(name) {
                Ok(piece) => {
                    if aggregate && piece.is_per_resource() {
                        errors.push((
                            offset + at,
                            format!(
                                "{{{name}}} describes one resource, but this rule counts resources \
                                 (count = …); an aggregate message may use {{count}} and {{var.NAME}}"
                            ),
                        ));
                    } else if !aggregate && piece == Piece::Count {
                        errors.push((
                            offset + at,
                            "{count} only has a value in aggregate rules (with count = { … })"
                                .to_string(),
                        ));
                    }
                    if !literal.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut literal)));
                    }
                    pieces.push(piece);
                }
                Err(msg) => errors.push((offset + at, msg)),
            }
            rest = &tail[close + 1..];
            offset += at + close + 1;
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            pieces.push(Piece::Text(literal));
        }
        if errors.is_empty() {
            Ok(Template { pieces })
        } else {
            Err(errors)
        }
    }
}

fn placeholder(name: &str) -> Result<Piece, String> {
    Ok(match name {
        "address" => Piece::Address,
        "type" => Piece::Type,
        "name" => Piece::Name,
        "module" => Piece::Module,
        "provider" => Piece::Provider,
        "action" => Piece::Action,
        "drift" => Piece::Drift,
        "drift.attributes" => Piece::DriftAttributes,
        "count" => Piece::Count,
        _ if name.starts_with("var.") => {
            let var = &name[4..];
            if var.is_empty() {
                return Err("{var.} needs a variable name: {var.environment}".to_string());
            }
            Piece::Var(var.to_string())
        }
        _ if name.starts_with("before") || name.starts_with("after") => {
            let (side, steps) = parse_sided(name)
                .map_err(|(_, msg)| format!("in placeholder {{{name}}}: {msg}"))?;
            Piece::Value(side, steps)
        }
        _ => {
            return Err(format!(
                "unknown placeholder {{{name}}}; expected one of {PLACEHOLDERS}"
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_and_braces() {
        let t = Template::parse(
            "Instance {address} of {{type}} {after.tags[\"a.b\"]}}",
            false,
        )
        .unwrap();
        assert_eq!(
            t.pieces,
            vec![
                Piece::Text("Instance ".into()),
                Piece::Address,
                Piece::Text(" of {type} ".into()),
                Piece::Value(
                    PathRoot::After,
                    vec![Step::Key("tags".into()), Step::Key("a.b".into())]
                ),
                Piece::Text("}".into()),
            ]
        );
    }

    #[test]
    fn errors_point_at_the_placeholder() {
        let e = Template::parse("ok {address} then {adress} and {var.}", false).unwrap_err();
        assert_eq!(
            e.iter().map(|(at, _)| *at).collect::<Vec<_>>(),
            vec![18, 31]
        );
        assert!(
            e[0].1.contains("unknown placeholder {adress}"),
            "{}",
            e[0].1
        );
        let e = Template::parse("More than {count}: {address}", true).unwrap_err();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].0, 19);
        let e = Template::parse("{count}", false).unwrap_err();
        assert_eq!(e[0].0, 0);
        let e = Template::parse("abc {address", false).unwrap_err();
        assert_eq!(e[0].0, 4);
        assert!(Template::parse("{count} {var.env}", true).is_ok());
    }
}
