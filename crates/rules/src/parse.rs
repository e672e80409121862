//! Rule files: TOML text → compiled [`Rule`]s, or every problem found with its line and column.
//!
//! The TOML is read as a spanned tree (`toml::de::DeTable`) and walked by hand rather than through
//! serde derives: serde stops at the first problem, while a user fixing a rule file wants all of
//! them at once, each pointing at the key or value at fault.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

use regex_lite::Regex;
use serde_json::Value;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::condition::{
    ACTION_NAMES, ActionSet, AttributeOp, AttributeTest, CountTest, DriftFilter, Glob, GlobList,
    OPERATORS, Op, Selectors, VariableTest,
};
use super::path::{parse_bare, parse_sided};
use super::template::Template;
use super::{Rule, RuleError, RuleSeverity};
use planlens_model::Mode;

/// Keys a `[[rule]]` table accepts, as error messages list them.
const RULE_KEYS: &str = "id, severity, message, description, actions, mode, type, address, \
     module, provider, drift, attribute, variable, count";

/// A parsed file, before it is merged with the built-in pack.
pub(crate) struct ParsedFile {
    /// The rules, in file order.
    pub(crate) rules: Vec<Rule>,
    /// Where each rule's id is written, for errors found when merging.
    pub(crate) id_spans: Vec<Range<usize>>,
    /// `include_builtin`, true unless the file turns it off.
    pub(crate) include_builtin: bool,
    /// `[mask] patterns`: the file's own secret-name patterns.
    pub(crate) mask_patterns: Vec<String>,
    /// `[mask] builtin`: false turns the built-in secret-name patterns off.
    pub(crate) mask_builtin: bool,
    /// `[[plans]]`: labels for the plans of a set whose name matches a pattern.
    pub(crate) plan_labels: Vec<(String, BTreeMap<String, String>)>,
}

/// Errors found so far, each with its byte offset for sorting and locating.
pub(crate) struct Errors<'t> {
    text: &'t str,
    list: Vec<(usize, RuleError)>,
}

impl<'t> Errors<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        Errors {
            text,
            list: Vec::new(),
        }
    }

    /// Records an error at byte `offset` of the text.
    pub(crate) fn push(&mut self, offset: usize, rule_id: Option<&str>, message: String) {
        let (line, column) = line_column(self.text, offset);
        self.list.push((
            offset,
            RuleError {
                line,
                column,
                rule_id: rule_id.map(str::to_string),
                message,
            },
        ));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    fn len(&self) -> usize {
        self.list.len()
    }

    /// The errors in the order they appear in the file.
    pub(crate) fn into_sorted(mut self) -> Vec<RuleError> {
        planlens_model::sort::by_key(&mut self.list, |(offset, _)| *offset);
        self.list.into_iter().map(|(_, e)| e).collect()
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// The byte offset in the file of byte `at` of a string value's decoded text. Exact when the
/// string is written without escapes (the usual case); otherwise the start of the value, since
/// escapes make the two texts differ in length.
fn offset_in_string(text: &str, span: &Range<usize>, decoded: &str, at: usize) -> usize {
    let Some(raw) = text.get(span.clone()) else {
        return span.start;
    };
    let delim = if raw.starts_with("\"\"\"") || raw.starts_with("'''") {
        3
    } else {
        1
    };
    if raw.len() < 2 * delim {
        return span.start;
    }
    let inner = &raw[delim..raw.len() - delim];
    // A multi-line string drops a newline right after its opening delimiter.
    let skipped = if delim == 3 {
        inner.len()
            - inner
                .strip_prefix("\r\n")
                .or_else(|| inner.strip_prefix('\n'))
                .unwrap_or(inner)
                .len()
    } else {
        0
    };
    if &inner[skipped..] == decoded {
        span.start + delim + skipped + at
    } else {
        span.start
    }
}

type Entry<'a, 'i> = (&'a Spanned<Cow<'i, str>>, &'a Spanned<DeValue<'i>>);

/// A table's entries in the order they are written (the table itself keeps them sorted by key).
fn entries<'a, 'i>(table: &'a DeTable<'i>) -> Vec<Entry<'a, 'i>> {
    let mut list: Vec<Entry<'a, 'i>> = table.iter().collect();
    planlens_model::sort::by_key(&mut list, |(k, _)| k.span().start);
    list
}

/// A TOML value's kind, for "must be a string, found an integer".
fn kind(value: &DeValue) -> &'static str {
    match value {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a datetime",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

/// Parses one rule file. `builtin_pack`: the built-in rules a user's file runs alongside (their ids
/// are taken); `None` when `text` is the built-in pack itself.
pub(crate) fn parse_file<'t>(
    text: &'t str,
    builtin_pack: Option<&[Rule]>,
) -> Result<ParsedFile, Errors<'t>> {
    let builtin = builtin_pack.is_none();
    let mut p = Parser {
        text,
        errors: Errors::new(text),
        rule_id: None,
    };
    let root = match DeTable::parse(text) {
        Ok(root) => root,
        Err(e) => {
            // A syntax error leaves no tree to check further: it is the one error.
            let offset = e.span().map_or(0, |s| s.start);
            p.errors.push(offset, None, e.message().trim().to_string());
            return Err(p.errors);
        }
    };
    let mut file = ParsedFile {
        rules: Vec::new(),
        id_spans: Vec::new(),
        include_builtin: true,
        mask_patterns: Vec::new(),
        mask_builtin: true,
        plan_labels: Vec::new(),
    };
    for (key, value) in entries(root.get_ref()) {
        match key.get_ref().as_ref() {
            "include_builtin" => match value.get_ref() {
                DeValue::Boolean(b) => file.include_builtin = *b,
                other => p.error(
                    value.span().start,
                    format!(
                        "include_builtin must be true or false, found {}",
                        kind(other)
                    ),
                ),
            },
            "rule" => match value.get_ref() {
                DeValue::Array(items) => {
                    for item in items.iter() {
                        match item.get_ref() {
                            DeValue::Table(table) => {
                                let parsed = p.rule(item.span(), table, builtin);
                                p.rule_id = None;
                                if let Some((rule, id_span)) = parsed {
                                    file.rules.push(rule);
                                    file.id_spans.push(id_span);
                                }
                            }
                            other => p.error(
                                item.span().start,
                                format!("each rule must be a table, found {}", kind(other)),
                            ),
                        }
                    }
                }
                _ => p.error(
                    value.span().start,
                    "rules are an array of tables: write [[rule]] with double brackets".to_string(),
                ),
            },
            "mask" => p.mask(value, &mut file),
            "plans" => p.plans(value, &mut file),
            other => p.error(
                key.span().start,
                format!(
                    "unknown key \"{other}\"; expected include_builtin, [mask], [[plans]] or \
                     [[rule]]"
                ),
            ),
        }
    }
    check_duplicates(&file, &mut p.errors);
    if let (true, Some(pack)) = (file.include_builtin, builtin_pack) {
        for (rule, span) in file.rules.iter().zip(&file.id_spans) {
            if pack.iter().any(|b| b.id == rule.id) || rule.id == super::rule::FAILING_CHECKS {
                p.errors.push(
                    span.start,
                    Some(&rule.id),
                    format!(
                        "rule id \"{}\" is taken by the built-in pack; rename the rule, or set \
                         include_builtin = false to replace the pack",
                        rule.id
                    ),
                );
            }
        }
    }
    if p.errors.is_empty() {
        Ok(file)
    } else {
        Err(p.errors)
    }
}

fn check_duplicates(file: &ParsedFile, errors: &mut Errors) {
    for (i, rule) in file.rules.iter().enumerate() {
        if let Some(first) = file.rules[..i].iter().position(|r| r.id == rule.id) {
            let (line, _) = line_column(errors.text, file.id_spans[first].start);
            errors.push(
                file.id_spans[i].start,
                Some(&rule.id),
                format!(
                    "duplicate rule id \"{}\" (first used on line {line})",
                    rule.id
                ),
            );
        }
    }
}

struct Parser<'t> {
    text: &'t str,
    errors: Errors<'t>,
    /// The id of the rule being read, attached to its errors.
    rule_id: Option<String>,
}

/// A condition table split into its subject (`path`/`name`) and its one operator.
struct Condition<'a, 'i> {
    subject: &'a str,
    subject_span: Range<usize>,
    operator: &'a str,
    operand: &'a Spanned<DeValue<'i>>,
}

/// What a condition table holds: attribute (`path`, may use `changed`) or variable (`name`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum ConditionKind {
    Attribute,
    Variable,
}

impl ConditionKind {
    fn subject(self) -> &'static str {
        match self {
            ConditionKind::Attribute => "path",
            ConditionKind::Variable => "name",
        }
    }

    fn table(self) -> &'static str {
        match self {
            ConditionKind::Attribute => "[[rule.attribute]]",
            ConditionKind::Variable => "[[rule.variable]]",
        }
    }

    fn operators(self) -> &'static [&'static str] {
        match self {
            ConditionKind::Attribute => &OPERATORS,
            // `changed` compares before and after; a variable has only one value.
            ConditionKind::Variable => &OPERATORS[..OPERATORS.len() - 1],
        }
    }
}

impl<'t> Parser<'t> {
    /// `[mask]`: `patterns = ["*_pin", …]` (globs on attribute names, added to the built-in
    /// secret-name patterns) and `builtin = false` (turns those off).
    /// `[[plans]]`: `match = "prod/*"` (a plan name; `*` matches anything, `/` included) and
    /// `labels = { environment = "prod" }`.
    fn plans(&mut self, value: &Spanned<DeValue>, file: &mut ParsedFile) {
        let DeValue::Array(items) = value.get_ref() else {
            return self.error(
                value.span().start,
                "plans are an array of tables: write [[plans]] with double brackets".to_string(),
            );
        };
        for item in items.iter() {
            let DeValue::Table(table) = item.get_ref() else {
                self.error(
                    item.span().start,
                    format!(
                        "each [[plans]] must be a table, found {}",
                        kind(item.get_ref())
                    ),
                );
                continue;
            };
            let (mut pattern, mut labels) = (None, BTreeMap::new());
            for (key, value) in entries(table) {
                match key.get_ref().as_ref() {
                    "match" => pattern = self.string(value, "plans match").map(str::to_string),
                    "labels" => match value.get_ref() {
                        DeValue::Table(t) => {
                            for (k, v) in entries(t) {
                                if let Some(v) = self.string(v, "a label's value") {
                                    labels.insert(k.get_ref().to_string(), v.to_string());
                                }
                            }
                        }
                        other => self.error(
                            value.span().start,
                            format!(
                                "plans labels are a table ({{ environment = \"prod\" }}), found {}",
                                kind(other)
                            ),
                        ),
                    },
                    other => self.error(
                        key.span().start,
                        format!("unknown key \"{other}\" in [[plans]]; expected match or labels"),
                    ),
                }
            }
            match pattern {
                Some(pattern) if !pattern.trim().is_empty() => {
                    file.plan_labels.push((pattern.trim().to_string(), labels))
                }
                _ => self.error(
                    item.span().start,
                    "[[plans]] needs match = \"a plan name pattern\", such as \"prod/*\""
                        .to_string(),
                ),
            }
        }
    }

    fn mask(&mut self, value: &Spanned<DeValue>, file: &mut ParsedFile) {
        let DeValue::Table(table) = value.get_ref() else {
            return self.error(
                value.span().start,
                format!(
                    "mask must be a table ([mask]), found {}",
                    kind(value.get_ref())
                ),
            );
        };
        for (key, value) in entries(table) {
            match key.get_ref().as_ref() {
                "patterns" => match value.get_ref() {
                    DeValue::Array(items) => {
                        for item in items.iter() {
                            if let Some(p) = self.string(item, "each mask pattern") {
                                if p.trim().is_empty() {
                                    self.error(
                                        item.span().start,
                                        "a mask pattern must not be empty".to_string(),
                                    );
                                } else {
                                    file.mask_patterns.push(p.trim().to_string());
                                }
                            }
                        }
                    }
                    other => self.error(
                        value.span().start,
                        format!("mask patterns are a list of strings, found {}", kind(other)),
                    ),
                },
                "builtin" => match value.get_ref() {
                    DeValue::Boolean(b) => file.mask_builtin = *b,
                    other => self.error(
                        value.span().start,
                        format!("mask builtin must be true or false, found {}", kind(other)),
                    ),
                },
                other => self.error(
                    key.span().start,
                    format!("unknown key \"{other}\" in [mask]; expected patterns or builtin"),
                ),
            }
        }
    }

    fn error(&mut self, offset: usize, message: String) {
        let id = self.rule_id.clone();
        self.errors.push(offset, id.as_deref(), message);
    }

    fn string<'v>(&mut self, value: &'v Spanned<DeValue>, what: &str) -> Option<&'v str> {
        match value.get_ref() {
            DeValue::String(s) => Some(s.as_ref()),
            other => {
                self.error(
                    value.span().start,
                    format!("{what} must be a string, found {}", kind(other)),
                );
                None
            }
        }
    }

    /// A string or an array of strings, each with its span.
    fn strings<'v>(
        &mut self,
        value: &'v Spanned<DeValue>,
        what: &str,
    ) -> Option<Vec<(&'v str, Range<usize>)>> {
        match value.get_ref() {
            DeValue::String(s) => Some(vec![(s.as_ref(), value.span())]),
            DeValue::Array(items) => {
                if items.is_empty() {
                    self.error(
                        value.span().start,
                        format!("{what} is an empty list, which matches nothing; leave it out to match everything"),
                    );
                    return None;
                }
                let mut out = Vec::with_capacity(items.len());
                for item in items.iter() {
                    out.push((self.string(item, what)?, item.span()));
                }
                Some(out)
            }
            other => {
                self.error(
                    value.span().start,
                    format!(
                        "{what} must be a string or an array of strings, found {}",
                        kind(other)
                    ),
                );
                None
            }
        }
    }

    fn globs(&mut self, value: &Spanned<DeValue>, what: &str) -> GlobList {
        GlobList(
            self.strings(value, what)
                .unwrap_or_default()
                .into_iter()
                .map(|(s, _)| Glob::new(s))
                .collect(),
        )
    }

    /// One `[[rule]]` table; `None` when it has errors (they are recorded).
    fn rule(
        &mut self,
        span: Range<usize>,
        table: &DeTable,
        builtin: bool,
    ) -> Option<(Rule, Range<usize>)> {
        let errors_before = self.errors.len();
        let entries = entries(table);

        // The id first, so that every other error can name the rule.
        self.rule_id = None;
        let mut id_span = span.clone();
        let id_entry = entries.iter().find(|(k, _)| k.get_ref() == "id");
        match id_entry {
            Some((_, value)) => {
                id_span = value.span();
                if let Some(id) = self.string(value, "id") {
                    self.rule_id = Some(id.to_string());
                    let valid = !id.is_empty()
                        && id
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
                    if !valid {
                        self.error(
                            value.span().start,
                            format!("rule id \"{id}\" may only use letters, digits, _, - and ."),
                        );
                    }
                }
            }
            None => self.error(span.start, "the rule has no id".to_string()),
        }

        let mut severity = None;
        let mut message: Option<(&str, Range<usize>)> = None;
        let mut description = None;
        let mut selectors = Selectors::default();
        let mut attributes = Vec::new();
        let mut variables = Vec::new();
        let mut count = None;

        for (key, value) in &entries {
            match key.get_ref().as_ref() {
                "id" => {}
                "severity" => {
                    if let Some(s) = self.string(value, "severity") {
                        severity = RuleSeverity::from_key(s);
                        if severity.is_none() {
                            self.error(
                                value.span().start,
                                format!(
                                    "unknown severity \"{s}\"; expected one of deny, warn, info"
                                ),
                            );
                        }
                    }
                }
                "message" => {
                    message = self.string(value, "message").map(|s| (s, value.span()));
                }
                "description" => {
                    description = self.string(value, "description").map(str::to_string);
                }
                "actions" => {
                    let mut set = ActionSet::default();
                    for (name, at) in self.strings(value, "actions").unwrap_or_default() {
                        if !set.add(name) {
                            self.error(
                                at.start,
                                format!(
                                    "unknown action \"{name}\"; expected one of {}",
                                    ACTION_NAMES.join(", ")
                                ),
                            );
                        }
                    }
                    selectors.actions = Some(set);
                }
                "mode" => {
                    if let Some(s) = self.string(value, "mode") {
                        selectors.mode = match s {
                            "managed" => Some(Mode::Managed),
                            "data" => Some(Mode::Data),
                            _ => {
                                self.error(
                                    value.span().start,
                                    format!("unknown mode \"{s}\"; expected managed or data"),
                                );
                                None
                            }
                        };
                    }
                }
                "type" => selectors.types = self.globs(value, "type"),
                "address" => selectors.addresses = self.globs(value, "address"),
                "module" => selectors.modules = self.globs(value, "module"),
                "provider" => selectors.providers = self.globs(value, "provider"),
                "drift" => {
                    if let Some(s) = self.string(value, "drift") {
                        selectors.drift = DriftFilter::from_name(s);
                        if selectors.drift.is_none() {
                            self.error(
                                value.span().start,
                                format!(
                                    "unknown drift \"{s}\"; expected one of {}",
                                    DriftFilter::NAMES.join(", ")
                                ),
                            );
                        }
                    }
                }
                "attribute" => {
                    for (at, t) in self.condition_tables(value, "attribute") {
                        if let Some(test) = self.attribute(at, t) {
                            attributes.push(test);
                        }
                    }
                }
                "variable" => {
                    for (at, t) in self.condition_tables(value, "variable") {
                        if let Some(test) = self.variable(at, t) {
                            variables.push(test);
                        }
                    }
                }
                "count" => count = self.count(value),
                // TOML puts every key after a [[rule]] header into that rule.
                "include_builtin" => self.error(
                    key.span().start,
                    "include_builtin belongs at the top of the file, before the first [[rule]]"
                        .to_string(),
                ),
                other => self.error(
                    key.span().start,
                    format!("unknown key \"{other}\" in [[rule]]; expected one of {RULE_KEYS}"),
                ),
            }
        }

        if severity.is_none() && !entries.iter().any(|(k, _)| k.get_ref() == "severity") {
            self.error(
                span.start,
                "the rule has no severity; add severity = \"deny\", \"warn\" or \"info\""
                    .to_string(),
            );
        }
        let template = match &message {
            Some((text, at)) => match Template::parse(text, count.is_some()) {
                Ok(t) => Some(t),
                Err(problems) => {
                    for (offset, msg) in problems {
                        let offset = offset_in_string(self.text, at, text, offset);
                        self.error(offset, msg);
                    }
                    None
                }
            },
            None => {
                if !entries.iter().any(|(k, _)| k.get_ref() == "message") {
                    self.error(span.start, "the rule has no message".to_string());
                }
                None
            }
        };

        if self.errors.len() > errors_before {
            return None;
        }
        // Every field checked above: an error was recorded for anything missing.
        Some((
            Rule {
                id: self.rule_id.clone()?,
                severity: severity?,
                message: message?.0.to_string(),
                template: template?,
                description,
                selectors,
                attributes,
                variables,
                count,
                builtin,
            },
            id_span,
        ))
    }

    /// `[[rule.attribute]]` tables (or an inline array of tables, or a single table).
    fn condition_tables<'v, 'i>(
        &mut self,
        value: &'v Spanned<DeValue<'i>>,
        what: &str,
    ) -> Vec<(Range<usize>, &'v DeTable<'i>)> {
        match value.get_ref() {
            DeValue::Table(t) => vec![(value.span(), t)],
            DeValue::Array(items) => {
                let mut out = Vec::new();
                for item in items.iter() {
                    match item.get_ref() {
                        DeValue::Table(t) => out.push((item.span(), t)),
                        other => self.error(
                            item.span().start,
                            format!(
                                "each {what} condition must be a table, found {}",
                                kind(other)
                            ),
                        ),
                    }
                }
                out
            }
            other => {
                self.error(
                    value.span().start,
                    format!(
                        "{what} must be written as [[rule.{what}]] tables, found {}",
                        kind(other)
                    ),
                );
                Vec::new()
            }
        }
    }

    /// Splits a condition table into subject and operator, reporting unknown keys, a missing
    /// subject, and zero or several operators.
    fn condition<'a, 'i>(
        &mut self,
        span: Range<usize>,
        table: &'a DeTable<'i>,
        kind_: ConditionKind,
    ) -> Option<Condition<'a, 'i>> {
        let subject_key = kind_.subject();
        let mut subject = None;
        let mut subject_seen = false;
        let mut operators: Vec<(&'a str, Range<usize>, &'a Spanned<DeValue<'i>>)> = Vec::new();
        let mut ok = true;
        let mut unknown_seen = false;
        for (key, value) in entries(table) {
            let name: &str = key.get_ref();
            if name == subject_key {
                subject_seen = true;
                subject = self.string(value, subject_key).map(|s| (s, value.span()));
            } else if kind_.operators().contains(&name) {
                operators.push((name, key.span(), value));
            } else {
                ok = false;
                unknown_seen = true;
                let msg = match (kind_, name) {
                    (ConditionKind::Variable, "changed") => {
                        "changed only applies to [[rule.attribute]] (a variable has one value)"
                            .to_string()
                    }
                    (ConditionKind::Variable, "path") => {
                        "a [[rule.variable]] names its variable with name = \"…\", not path"
                            .to_string()
                    }
                    (ConditionKind::Attribute, "name") => {
                        "a [[rule.attribute]] takes path = \"after.…\", not name".to_string()
                    }
                    _ => format!(
                        "unknown operator \"{name}\"; expected one of {}",
                        kind_.operators().join(", ")
                    ),
                };
                self.error(key.span().start, msg);
            }
        }
        if !subject_seen {
            ok = false;
            self.error(
                span.start,
                format!("the {} condition has no {subject_key}", kind_.table()),
            );
        }
        match operators.as_slice() {
            // An unknown key is most likely the operator, misspelt: that error says enough.
            [] if unknown_seen => {}
            [] => {
                ok = false;
                self.error(
                    span.start,
                    format!(
                        "the {} condition has no operator; add one of {}",
                        kind_.table(),
                        kind_.operators().join(", ")
                    ),
                );
            }
            [_] => {}
            [(first, _, _), (second, at, _), ..] => {
                ok = false;
                self.error(
                    at.start,
                    format!(
                        "a condition takes exactly one operator, but this one has \"{first}\" and \
                         \"{second}\"; write a separate {} for each",
                        kind_.table()
                    ),
                );
            }
        }
        let (subject, subject_span) = subject?;
        let (operator, _, operand) = operators.first()?;
        ok.then_some(Condition {
            subject,
            subject_span,
            operator,
            operand,
        })
    }

    fn attribute(&mut self, span: Range<usize>, table: &DeTable) -> Option<AttributeTest> {
        let c = self.condition(span, table, ConditionKind::Attribute)?;
        let path_error = |p: &mut Self, at: usize, msg: String| {
            let offset = offset_in_string(p.text, &c.subject_span, c.subject, at);
            p.error(offset, msg);
        };
        if c.operator == "changed" {
            let want = self.boolean(c.operand, "changed")?;
            if c.subject.starts_with("before") || c.subject.starts_with("after") {
                path_error(
                    self,
                    0,
                    format!(
                        "changed compares before and after itself: write the path without \
                         \"before.\"/\"after.\" (path = \"{}\")",
                        c.subject
                            .trim_start_matches("before")
                            .trim_start_matches("after")
                            .trim_start_matches('.')
                    ),
                );
                return None;
            }
            return match parse_bare(c.subject) {
                Ok(steps) => Some(AttributeTest::new(steps, AttributeOp::Changed(want))),
                Err((at, msg)) => {
                    path_error(self, at, msg);
                    None
                }
            };
        }
        let op = self.operator(c.operator, c.operand);
        match parse_sided(c.subject) {
            Ok((side, steps)) => Some(AttributeTest::new(
                steps,
                AttributeOp::Value { side, op: op? },
            )),
            Err((at, msg)) => {
                path_error(self, at, msg);
                None
            }
        }
    }

    fn variable(&mut self, span: Range<usize>, table: &DeTable) -> Option<VariableTest> {
        let c = self.condition(span, table, ConditionKind::Variable)?;
        if c.subject.is_empty() {
            self.error(
                c.subject_span.start,
                "the variable name is empty".to_string(),
            );
            return None;
        }
        Some(VariableTest {
            name: c.subject.to_string(),
            op: self.operator(c.operator, c.operand)?,
        })
    }

    fn boolean(&mut self, value: &Spanned<DeValue>, what: &str) -> Option<bool> {
        match value.get_ref() {
            DeValue::Boolean(b) => Some(*b),
            other => {
                self.error(
                    value.span().start,
                    format!("{what} takes true or false, found {}", kind(other)),
                );
                None
            }
        }
    }

    fn number(&mut self, value: &Spanned<DeValue>, what: &str) -> Option<f64> {
        let n = match value.get_ref() {
            DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
                .ok()
                .map(|i| i as f64),
            DeValue::Float(f) => f.as_str().parse::<f64>().ok(),
            _ => None,
        };
        match n {
            Some(n) if n.is_finite() => Some(n),
            Some(_) => {
                self.error(
                    value.span().start,
                    format!("{what} needs a finite number (not nan or inf)"),
                );
                None
            }
            None => {
                self.error(
                    value.span().start,
                    format!(
                        "{what} compares numbers: it needs a number, found {}",
                        kind(value.get_ref())
                    ),
                );
                None
            }
        }
    }

    /// The operand of a value operator (every operator but `changed`).
    fn operator(&mut self, name: &str, value: &Spanned<DeValue>) -> Option<Op> {
        Some(match name {
            "equals" => Op::Equals(self.json(value)?),
            "not_equals" => Op::NotEquals(self.json(value)?),
            "in" | "not_in" => {
                let DeValue::Array(items) = value.get_ref() else {
                    self.error(
                        value.span().start,
                        format!(
                            "{name} takes an array of values, e.g. {name} = [\"a\", \"b\"]; found {}",
                            kind(value.get_ref())
                        ),
                    );
                    return None;
                };
                let set = items
                    .iter()
                    .map(|item| self.json(item))
                    .collect::<Option<Vec<_>>>()?;
                if name == "in" {
                    Op::In(set)
                } else {
                    Op::NotIn(set)
                }
            }
            "lt" => Op::Lt(self.number(value, name)?),
            "gt" => Op::Gt(self.number(value, name)?),
            "le" => Op::Le(self.number(value, name)?),
            "ge" => Op::Ge(self.number(value, name)?),
            "regex" => {
                let pattern = self.string(value, "regex")?;
                match Regex::new(pattern) {
                    Ok(re) => Op::Regex(re),
                    Err(e) => {
                        self.error(value.span().start, format!("invalid regex: {e}"));
                        return None;
                    }
                }
            }
            "exists" => Op::Exists(self.boolean(value, "exists")?),
            // `condition` lets through only the names above.
            other => unreachable!("operator {other} passed the condition check"),
        })
    }

    /// A TOML operand as the JSON value it is compared with.
    fn json(&mut self, value: &Spanned<DeValue>) -> Option<Value> {
        Some(match value.get_ref() {
            DeValue::String(s) => Value::String(s.to_string()),
            DeValue::Boolean(b) => Value::Bool(*b),
            DeValue::Integer(i) => match i64::from_str_radix(i.as_str(), i.radix()) {
                Ok(n) => Value::from(n),
                Err(_) => {
                    self.error(value.span().start, "the integer is too large".to_string());
                    return None;
                }
            },
            DeValue::Float(_) => Value::from(self.number(value, "the operand")?),
            DeValue::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|item| self.json(item))
                    .collect::<Option<Vec<_>>>()?,
            ),
            DeValue::Table(t) => {
                let mut map = serde_json::Map::new();
                for (k, v) in entries(t) {
                    map.insert(k.get_ref().to_string(), self.json(v)?);
                }
                Value::Object(map)
            }
            DeValue::Datetime(_) => {
                self.error(
                    value.span().start,
                    "datetimes are not compared; write the value as a string".to_string(),
                );
                return None;
            }
        })
    }

    /// `count = { gt = 5 }`.
    fn count(&mut self, value: &Spanned<DeValue>) -> Option<CountTest> {
        let DeValue::Table(table) = value.get_ref() else {
            self.error(
                value.span().start,
                format!(
                    "count takes one comparison, e.g. count = {{ gt = 5 }}; found {}",
                    kind(value.get_ref())
                ),
            );
            return None;
        };
        let mut tests = Vec::new();
        let mut ok = true;
        for (key, v) in entries(table) {
            let name: &str = key.get_ref();
            if !CountTest::NAMES.contains(&name) {
                ok = false;
                self.error(
                    key.span().start,
                    format!(
                        "unknown operator \"{name}\" in count; expected one of {}",
                        CountTest::NAMES.join(", ")
                    ),
                );
                continue;
            }
            let n = match v.get_ref() {
                DeValue::Integer(i) => u64::from_str_radix(i.as_str(), i.radix()).ok(),
                _ => None,
            };
            match n {
                Some(n) => tests.push((key.span(), CountTest::new(name, n)?)),
                None => {
                    ok = false;
                    self.error(
                        v.span().start,
                        format!(
                            "count {name} needs a whole number of resources, found {}",
                            kind(v.get_ref())
                        ),
                    );
                }
            }
        }
        match tests.as_slice() {
            [(_, test)] if ok => Some(*test),
            [] if ok => {
                self.error(
                    value.span().start,
                    format!(
                        "count needs one comparison: one of {}",
                        CountTest::NAMES.join(", ")
                    ),
                );
                None
            }
            [_, (at, _), ..] => {
                self.error(
                    at.start,
                    "count takes exactly one comparison; write a separate rule for each"
                        .to_string(),
                );
                None
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_characters() {
        let text = "ab\nçd = 1\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 3), (2, 1));
        // "ç" is two bytes, one column.
        assert_eq!(line_column(text, 5), (2, 2));
        assert_eq!(line_column(text, 100), (3, 1));
    }

    #[test]
    fn offsets_inside_strings() {
        let text = r#"m = "a {x}" "#;
        assert_eq!(offset_in_string(text, &(4..11), "a {x}", 2), 7);
        let text = "m = \"a\\t{x}\"";
        assert_eq!(offset_in_string(text, &(4..12), "a\t{x}", 2), 4);
        let text = "m = '''\n{x}'''";
        assert_eq!(offset_in_string(text, &(4..14), "{x}", 0), 8);
    }
}
