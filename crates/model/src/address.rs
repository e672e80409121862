//! Resource instance addresses: `module.a["k"].module.b[0].data.aws_ami.x["a.b"]`.
//!
//! Instance keys may be strings holding dots, spaces, quotes (escaped as `\"`), brackets or any other
//! text, so addresses are parsed, never split on `.`.
//!
//! `split_module` cuts an address, as written, into its module path and the rest. Display
//! round-trips: an address prints as it was parsed.

use std::fmt;

/// The key of one instance of a `count` or `for_each` resource or module.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InstanceKey {
    /// `[3]` from `count`.
    Int(i64),
    /// `["name"]` from `for_each`, unescaped.
    Str(String),
    /// `[*]`: not known yet (deferred changes).
    Unknown,
}

impl fmt::Display for InstanceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstanceKey::Int(i) => write!(f, "[{i}]"),
            InstanceKey::Unknown => f.write_str("[*]"),
            InstanceKey::Str(s) => {
                f.write_str("[\"")?;
                for c in s.chars() {
                    match c {
                        '"' => f.write_str("\\\"")?,
                        '\\' => f.write_str("\\\\")?,
                        '\n' => f.write_str("\\n")?,
                        c => write!(f, "{c}")?,
                    }
                }
                f.write_str("\"]")
            }
        }
    }
}

/// One `module.NAME[KEY]` step of a module path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModuleStep {
    /// The module call's name.
    pub name: String,
    /// The instance key when the module call has `count` or `for_each`.
    pub key: Option<InstanceKey>,
}

/// A parsed absolute resource instance address.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Address {
    /// Module instances from the root down; empty for the root module.
    pub module: Vec<ModuleStep>,
    /// True for `data.` addresses.
    pub is_data: bool,
    /// Resource type, e.g. `aws_instance`.
    pub resource_type: String,
    /// Resource name.
    pub name: String,
    /// Instance key, if the resource has `count` or `for_each`.
    pub key: Option<InstanceKey>,
}

/// Why an address could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressError {
    /// The address as given.
    pub address: String,
    /// What is wrong, with the byte offset.
    pub message: String,
}

impl fmt::Display for AddressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot read address {:?}: {}",
            self.address, self.message
        )
    }
}

impl std::error::Error for AddressError {}

impl Address {
    /// Parses an absolute instance address as Terraform writes it.
    pub fn parse(text: &str) -> Result<Address, AddressError> {
        let mut p = Parser::new(text);
        p.address().map_err(|message| AddressError {
            address: text.to_string(),
            message,
        })
    }

    /// The module path as Terraform writes it (`module.a["k"].module.b`), empty for the root.
    pub fn module_path(&self) -> String {
        module_path_string(&self.module)
    }

    /// The resource's address without its instance key, e.g. `module.a.aws_instance.web`.
    pub fn resource_path(&self) -> String {
        let mut s = self.module_path();
        if !s.is_empty() {
            s.push('.');
        }
        if self.is_data {
            s.push_str("data.");
        }
        s.push_str(&self.resource_type);
        s.push('.');
        s.push_str(&self.name);
        s
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.resource_path())?;
        if let Some(key) = &self.key {
            write!(f, "{key}")?;
        }
        Ok(())
    }
}

/// Splits an instance address, as written, into its module path and what follows it:
/// `module.a["k.1"].aws_x.y["q\"]"]` → (`module.a["k.1"]`, `aws_x.y["q\"]"]`). The text is cut, never
/// rewritten, so both parts read exactly as Terraform wrote them. A root-module address, or one that
/// does not parse, has no module part: it is all rest.
pub fn split_module(text: &str) -> (&str, &str) {
    let mut p = Parser::new(text);
    match p.address() {
        Ok(a) if !a.module.is_empty() => (&text[..p.module_end], &text[p.module_end + 1..]),
        _ => ("", text),
    }
}

/// Writes module steps as Terraform does: `module.a["k"].module.b`.
pub fn module_path_string(steps: &[ModuleStep]) -> String {
    let mut s = String::new();
    for (i, step) in steps.iter().enumerate() {
        if i > 0 {
            s.push('.');
        }
        s.push_str("module.");
        s.push_str(&step.name);
        if let Some(key) = &step.key {
            s.push_str(&key.to_string());
        }
    }
    s
}

struct Parser<'t> {
    text: &'t str,
    pos: usize,
    /// Where the module path ends (the `.` after its last step), once read.
    module_end: usize,
}

impl<'t> Parser<'t> {
    fn new(text: &'t str) -> Self {
        Parser {
            text,
            pos: 0,
            module_end: 0,
        }
    }

    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn eat(&mut self, prefix: &str) -> bool {
        if self.rest().starts_with(prefix) {
            self.pos += prefix.len();
            true
        } else {
            false
        }
    }

    fn identifier(&mut self, what: &str) -> Result<String, String> {
        let len = self
            .rest()
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(self.rest().len());
        if len == 0 {
            return Err(format!("expected {what} at byte {}", self.pos));
        }
        let id = self.rest()[..len].to_string();
        self.pos += len;
        Ok(id)
    }

    fn key(&mut self) -> Result<Option<InstanceKey>, String> {
        if !self.eat("[") {
            return Ok(None);
        }
        let key = if self.eat("*") {
            InstanceKey::Unknown
        } else if self.eat("\"") {
            let mut s = String::new();
            let mut chars = self.rest().char_indices();
            loop {
                match chars.next() {
                    None => return Err(format!("unterminated string key at byte {}", self.pos)),
                    Some((i, '"')) => {
                        self.pos += i + 1;
                        break;
                    }
                    Some((_, '\\')) => match chars.next() {
                        Some((_, 'n')) => s.push('\n'),
                        Some((_, 't')) => s.push('\t'),
                        Some((_, 'r')) => s.push('\r'),
                        Some((_, u @ ('u' | 'U'))) => {
                            let digits = if u == 'u' { 4 } else { 8 };
                            let hex: String = chars.by_ref().take(digits).map(|(_, c)| c).collect();
                            let c = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                            s.push(c.ok_or_else(|| format!("bad \\{u} escape in a string key"))?);
                        }
                        Some((_, c)) => s.push(c),
                        None => return Err("string key ends in a backslash".to_string()),
                    },
                    // Template escapes: Terraform writes `${` as `$${` and `%{` as `%%{`.
                    Some((_, c @ ('$' | '%'))) if chars.as_str().starts_with(&format!("{c}{{")) => {
                        chars.next();
                        s.push(c);
                    }
                    Some((_, c)) => s.push(c),
                }
            }
            InstanceKey::Str(s)
        } else {
            let len = self
                .rest()
                .find(|c: char| !(c.is_ascii_digit() || c == '-'))
                .unwrap_or(self.rest().len());
            let n = self.rest()[..len]
                .parse::<i64>()
                .map_err(|_| format!("expected an index or a quoted key at byte {}", self.pos))?;
            self.pos += len;
            InstanceKey::Int(n)
        };
        if !self.eat("]") {
            return Err(format!("expected ] at byte {}", self.pos));
        }
        Ok(Some(key))
    }

    fn address(&mut self) -> Result<Address, String> {
        let mut module = Vec::new();
        while self.eat("module.") {
            let name = self.identifier("a module name")?;
            let key = self.key()?;
            module.push(ModuleStep { name, key });
            self.module_end = self.pos;
            if !self.eat(".") {
                return Err(format!("expected . after module at byte {}", self.pos));
            }
        }
        let is_data = self.eat("data.");
        let resource_type = self.identifier("a resource type")?;
        if !self.eat(".") {
            return Err(format!(
                "expected . after the resource type at byte {}",
                self.pos
            ));
        }
        let name = self.identifier("a resource name")?;
        let key = self.key()?;
        if !self.rest().is_empty() {
            return Err(format!("unexpected text at byte {}", self.pos));
        }
        Ok(Address {
            module,
            is_data,
            resource_type,
            name,
            key,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_keys_with_dots_quotes_and_brackets() {
        let a = Address::parse(
            r#"module.sg["bad.example"].module.x[0].aws_s3_bucket.b["quote\"]inside"]"#,
        )
        .unwrap();
        assert_eq!(a.module.len(), 2);
        assert_eq!(
            a.module[0].key,
            Some(InstanceKey::Str("bad.example".into()))
        );
        assert_eq!(a.module[1].key, Some(InstanceKey::Int(0)));
        assert_eq!(a.key, Some(InstanceKey::Str("quote\"]inside".into())));
        assert_eq!(a.module_path(), r#"module.sg["bad.example"].module.x[0]"#);
        assert_eq!(
            a.resource_path(),
            r#"module.sg["bad.example"].module.x[0].aws_s3_bucket.b"#
        );
        assert_eq!(
            a.to_string(),
            r#"module.sg["bad.example"].module.x[0].aws_s3_bucket.b["quote\"]inside"]"#
        );
    }

    #[test]
    fn splits_the_module_path_from_the_resource_as_written() {
        assert_eq!(
            split_module(r#"module.a["k.1"].aws_x.y["q\"]"]"#),
            (r#"module.a["k.1"]"#, r#"aws_x.y["q\"]"]"#)
        );
        // A key that looks like more module steps is still one key.
        assert_eq!(
            split_module(r#"module.a["x\"].module.b"].data.aws_ami.u[0]"#),
            (r#"module.a["x\"].module.b"]"#, "data.aws_ami.u[0]")
        );
        assert_eq!(
            split_module("module.db.module.db_1.module.db_instance.aws_db_instance.this[0]"),
            (
                "module.db.module.db_1.module.db_instance",
                "aws_db_instance.this[0]"
            )
        );
        // Escapes stay as written (`$${` is not turned into `${`).
        assert_eq!(
            split_module(r#"module.m["$${x}"].aws_x.y"#),
            (r#"module.m["$${x}"]"#, "aws_x.y")
        );
        assert_eq!(
            split_module(r#"aws_x.y["module.a.b"]"#),
            ("", r#"aws_x.y["module.a.b"]"#)
        );
        assert_eq!(
            split_module("module.a.not an address"),
            ("", "module.a.not an address")
        );
    }

    #[test]
    fn reads_terraform_escapes_in_keys() {
        let a = Address::parse(r#"aws_s3_bucket.b["nul\u0000byte"]"#).unwrap();
        assert_eq!(a.key, Some(InstanceKey::Str("nul\0byte".into())));
        let a = Address::parse(r#"aws_s3_bucket.b["$${x}"]"#).unwrap();
        assert_eq!(a.key, Some(InstanceKey::Str("${x}".into())));
    }

    #[test]
    fn parses_data_sources_and_unknown_keys() {
        let a = Address::parse("data.aws_ami.ubuntu").unwrap();
        assert!(a.is_data);
        assert_eq!(a.resource_type, "aws_ami");
        let b = Address::parse("aws_instance.web[*]").unwrap();
        assert_eq!(b.key, Some(InstanceKey::Unknown));
    }

    #[test]
    fn rejects_broken_addresses_with_a_position() {
        let e = Address::parse(r#"aws_instance.web["open"#).unwrap_err();
        assert!(e.message.contains("unterminated"), "{e}");
        let e = Address::parse("aws_instance").unwrap_err();
        assert!(e.message.contains("byte 12"), "{e}");
    }
}
