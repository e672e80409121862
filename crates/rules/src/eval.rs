//! Evaluation: a [`RuleSet`] against an [`Input`] → findings and a verdict.
//!
//! Cost is kept proportional to what the rules ask for. Selectors (action, mode, drift, globs) are
//! compared first; a resource's `before`/`after` JSON is read only when it passed them and an
//! attribute condition or a message needs a value. Even then only the top level is indexed (once
//! per resource and side, cached for the whole evaluation) and only the attribute asked for is
//! parsed, so a 2 KB resource with a long `user_data` costs one scan, not a tree of allocations.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BTreeMap;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::condition::{AttributeOp, json_eq};
use super::input::{Input, Resource};
use super::path::{self, PathRoot, Step};
use super::template::Piece;
use super::{Rule, RuleSet};
use planlens_model::Action;
use planlens_model::findings::{Evaluation, Finding, Verdict};

/// Runs every rule of `rules` against `input`. `labels` are values the user set for this plan
/// (e.g. `environment` = `prod`); they override plan variables of the same name.
pub fn evaluate(
    input: &Input<'_>,
    rules: &RuleSet,
    labels: &BTreeMap<String, String>,
) -> Evaluation {
    run(input, rules, labels, false)
}

/// What a redacted share link shows of the findings: [`evaluate`]'s findings, with every value a
/// message would print (`{before.…}`, `{after.…}`, `{var.…}`) written as [`REDACTED`].
pub fn evaluate_redacted(
    input: &Input<'_>,
    rules: &RuleSet,
    labels: &BTreeMap<String, String>,
) -> Evaluation {
    run(input, rules, labels, true)
}

/// A value left out of a redacted finding's message.
pub const REDACTED: &str = "(redacted)";

fn run(
    input: &Input<'_>,
    rules: &RuleSet,
    labels: &BTreeMap<String, String>,
    redact: bool,
) -> Evaluation {
    let mut ev = Evaluator {
        input,
        labels,
        values: Vec::new(),
        redact,
    };
    let mut findings = Vec::new();
    for rule in rules.rules() {
        let plan_holds = rule
            .variables
            .iter()
            .all(|v| v.op.test(ev.variable(&v.name).as_deref()));
        if !plan_holds {
            continue;
        }
        match rule.count {
            Some(test) => {
                let n = (0..input.resources.len())
                    .filter(|&i| ev.matches(rule, i))
                    .count();
                if test.holds(n as u64) {
                    findings.push(Finding {
                        rule_id: rule.id.clone(),
                        severity: rule.severity,
                        message: ev.render(rule, None, n),
                        resource: None,
                    });
                }
            }
            None => {
                for i in 0..input.resources.len() {
                    if ev.matches(rule, i) {
                        findings.push(Finding {
                            rule_id: rule.id.clone(),
                            severity: rule.severity,
                            message: ev.render(rule, Some(i), 0),
                            resource: Some(i),
                        });
                    }
                }
            }
        }
    }
    if input.values_partial {
        findings.extend(unchecked(&mut ev, rules));
    }
    // Terraform applies a plan whose checks fail (a failing `check` block, or a condition in a
    // refresh-only plan, is a warning to it), but a reviewer must look first: with the built-in
    // pack, one plan-level warning names them, so such a plan never passes.
    if let (true, Some(sentence)) = (rules.includes_builtin(), &input.failing_checks) {
        findings.push(Finding {
            rule_id: super::rule::FAILING_CHECKS.to_string(),
            severity: planlens_model::findings::RuleSeverity::Warn,
            message: sentence.clone(),
            resource: None,
        });
    }
    // Plan-level findings first: one aggregate finding ("more than 5 destroys") must not drown
    // among thousands about single resources. Stable: rule order, then resource order, stays
    // within each part.
    planlens_model::sort::by_key(&mut findings, |f| {
        (f.resource.is_some(), Reverse(f.severity))
    });
    Evaluation {
        verdict: Verdict::of(&input.planning, &findings),
        findings,
        rules_run: rules.rules().len(),
        planning: input.planning.clone(),
    }
}

/// For an input that shows only some values (a text plan) or none (a plan log): one plan-level
/// finding per rule that reads values and could not be decided on some resources — those its
/// selectors pick whose conditions failed on a value the input does not show. Never above warn
/// (nothing was found, something was not checked), so such a plan never silently passes.
fn unchecked(ev: &mut Evaluator<'_, '_>, rules: &RuleSet) -> Vec<Finding> {
    let input = ev.input;
    let mut out = Vec::new();
    for rule in rules.rules() {
        if rule.attributes.is_empty() {
            continue;
        }
        let n = (0..input.resources.len())
            .filter(|&i| {
                selected(rule, &input.resources[i])
                    && !ev.matches(rule, i)
                    && ev.reads_missing(rule, i)
            })
            .count();
        if n == 0 {
            continue;
        }
        out.push(Finding {
            rule_id: rule.id.clone(),
            severity: rule
                .severity
                .min(planlens_model::findings::RuleSeverity::Warn),
            message: format!(
                "Not checked on {}: this rule reads attribute values the input does not show \
                 (a text plan shows only changed attributes, a plan log none). Open the plan's \
                 JSON (`terraform show -json`) to check {}.",
                planlens_model::text::count(n, "resource", "resources"),
                if n == 1 { "it" } else { "them" }
            ),
            resource: None,
        });
    }
    out
}

/// A resource's `before` or `after`, as far as it has been read.
enum Parsed<'a> {
    /// No value (or `null`).
    Absent,
    /// An object: its top-level keys with their values still raw.
    Object(Vec<(Cow<'a, str>, &'a RawValue)>),
    /// Anything else (rare: values are objects for every resource type).
    Other(Value),
}

struct Evaluator<'i, 'a> {
    input: &'i Input<'a>,
    labels: &'i BTreeMap<String, String>,
    /// Per resource, per side: the parsed top level, filled on first use. Empty until a rule
    /// needs a value, so selector-only rule sets allocate nothing per resource.
    values: Vec<[Option<Parsed<'a>>; 2]>,
    /// Messages print [`REDACTED`] in place of values.
    redact: bool,
}

impl<'a> Evaluator<'_, 'a> {
    /// The label or variable `name`; `None` when missing (absent or null).
    fn variable(&self, name: &str) -> Option<Cow<'_, Value>> {
        if let Some(label) = self.labels.get(name) {
            return Some(Cow::Owned(Value::String(label.clone())));
        }
        self.input
            .variables
            .get(name)
            .filter(|v| !v.is_null())
            .map(Cow::Borrowed)
    }

    /// True when resource `i` passes the rule's selectors and attribute conditions.
    fn matches(&mut self, rule: &Rule, i: usize) -> bool {
        let input = self.input;
        let r = &input.resources[i];
        selected(rule, r)
            && rule.attributes.iter().all(|a| {
                let probe = a.probe.as_deref();
                match &a.test {
                    AttributeOp::Value { side, op } => {
                        op.test(self.value(i, *side, &a.steps, probe).as_ref())
                    }
                    AttributeOp::Changed(want) => {
                        let before = self.value(i, PathRoot::Before, &a.steps, probe);
                        let after = self.value(i, PathRoot::After, &a.steps, probe);
                        let changed = match (&before, &after) {
                            (None, None) => false,
                            (Some(b), Some(a)) => !json_eq(b, a),
                            _ => true,
                        };
                        changed == *want
                    }
                }
            })
    }

    /// True when a value the rule's conditions read is missing (or null) on resource `i` and may
    /// be one the input did not show. A create's or read's `after`, when there is one, is whole:
    /// Terraform's text prints every attribute of a new object, leaving out only null ones.
    fn reads_missing(&mut self, rule: &Rule, i: usize) -> bool {
        let r = &self.input.resources[i];
        let after_whole = matches!(r.action, Action::Create | Action::Read) && r.after.is_some();
        rule.attributes.iter().any(|a| {
            let probe = a.probe.as_deref();
            match &a.test {
                AttributeOp::Value { side, .. } => {
                    !(after_whole && *side == PathRoot::After)
                        && self.value(i, *side, &a.steps, probe).is_none()
                }
                AttributeOp::Changed(_) => {
                    !after_whole
                        && (self.value(i, PathRoot::Before, &a.steps, probe).is_none()
                            || self.value(i, PathRoot::After, &a.steps, probe).is_none())
                }
            }
        })
    }

    /// The value at `steps` on one side of resource `i`; `None` when missing or null. `probe`:
    /// the first key's literal JSON text, if a search for it is exact (see `AttributeTest::probe`).
    fn value(
        &mut self,
        i: usize,
        side: PathRoot,
        steps: &[Step],
        probe: Option<&str>,
    ) -> Option<Value> {
        let input = self.input;
        let resource = &input.resources[i];
        let raw = match side {
            PathRoot::Before => resource.before,
            PathRoot::After => resource.after,
        };
        if steps.is_empty() {
            // The whole value: nothing to gain from the index.
            return parse_value(raw?);
        }
        if self.values.is_empty() {
            self.values = (0..self.input.resources.len())
                .map(|_| [None, None])
                .collect();
        }
        let slot = &mut self.values[i][side as usize];
        if slot.is_none() && probe.is_some_and(|p| !raw.is_some_and(|r| r.get().contains(p))) {
            // Most resources lack the attribute (an `instance_type` rule looks at every
            // resource): a text search is several times cheaper than indexing the object.
            return None;
        }
        let parsed = slot.get_or_insert_with(|| index(raw));
        match parsed {
            Parsed::Absent => None,
            Parsed::Object(entries) => {
                let first = match &steps[0] {
                    Step::Key(k) => Cow::Borrowed(k.as_str()),
                    Step::Index(n) => Cow::Owned(n.to_string()),
                };
                // JSON objects with a repeated key keep the last one, as serde_json does.
                let (_, raw) = entries.iter().rev().find(|(k, _)| *k == first)?;
                let v = parse_value(raw)?;
                path::take(v, &steps[1..]).filter(|v| !v.is_null())
            }
            Parsed::Other(v) => path::lookup(v, steps).filter(|v| !v.is_null()).cloned(),
        }
    }

    /// Fills in a rule's message for resource `i` (or, for aggregates, the plan and its count).
    fn render(&mut self, rule: &Rule, i: Option<usize>, count: usize) -> String {
        let mut out = String::new();
        // Sensitivity mirrors are parsed only if the message prints a value.
        let mut mirrors: Option<[Option<Value>; 2]> = None;
        for piece in &rule.template.pieces {
            if let Piece::Text(t) = piece {
                out.push_str(t);
                continue;
            }
            if let Piece::Count = piece {
                out.push_str(&count.to_string());
                continue;
            }
            if let Piece::Var(name) = piece {
                if self.redact {
                    out.push_str(REDACTED);
                } else {
                    push_value(&mut out, self.variable(name).as_deref());
                }
                continue;
            }
            // Parsing checked that aggregates use only the pieces above.
            let Some(i) = i else { continue };
            let input = self.input;
            let r = &input.resources[i];
            match piece {
                Piece::Address => out.push_str(r.address),
                Piece::Type => out.push_str(r.resource_type),
                Piece::Name => out.push_str(r.name),
                Piece::Module if r.module.is_empty() => out.push_str("(root)"),
                Piece::Module => out.push_str(r.module),
                Piece::Provider => out.push_str(r.provider),
                Piece::Action => out.push_str(action_name(r.action)),
                Piece::Drift => out.push_str(r.drift.map_or("(none)", |d| d.severity.key())),
                Piece::DriftAttributes => match r.drift {
                    Some(d) if !d.attributes.is_empty() => out.push_str(&d.attributes.join(", ")),
                    // What a deleted object was; its id is a value, left out of redacted findings.
                    Some(d) if let Some(o) = d.deleted => out.push_str(&o.sentence(!self.redact)),
                    Some(d) if d.removed => out.push_str("deleted outside Terraform"),
                    // A plan log names what drifted, not which attributes: never "(none)".
                    Some(d) if !d.values_known => out.push_str("attributes not in the input"),
                    _ => out.push_str("(none)"),
                },
                Piece::Value(..) if self.redact => out.push_str(REDACTED),
                Piece::Value(side, steps) => {
                    let [before, after] = mirrors.get_or_insert_with(|| {
                        [
                            r.before_sensitive.and_then(parse_value),
                            r.after_sensitive.and_then(parse_value),
                        ]
                    });
                    // Either side's mark hides the value: Terraform marks both, but a value
                    // must not leak because one mirror is missing.
                    if path::is_sensitive(before.as_ref(), steps)
                        || path::is_sensitive(after.as_ref(), steps)
                    {
                        out.push_str("(sensitive)");
                    } else {
                        let v = self.value(i, *side, steps, None);
                        push_value(&mut out, v.as_ref());
                    }
                }
                Piece::Text(_) | Piece::Count | Piece::Var(_) => {}
            }
        }
        out
    }
}

/// The cheap selectors, compared before any value is read.
fn selected(rule: &Rule, r: &Resource) -> bool {
    let s = &rule.selectors;
    s.actions
        .is_none_or(|a| a.matches(r.action, r.is_import, r.is_move))
        && s.mode.is_none_or(|m| m == r.mode)
        && s.drift
            .is_none_or(|d| d.matches(r.drift.map(|d| d.severity)))
        && s.types.matches(r.resource_type)
        && s.modules.matches(r.module)
        && s.providers.matches(r.provider)
        && s.addresses.matches(r.address)
}

/// The action in the vocabulary of `actions = [...]`: every replace order is `replace`.
fn action_name(action: Action) -> &'static str {
    match action {
        Action::Replace(_) => "replace",
        other => other.key(),
    }
}

fn push_value(out: &mut String, value: Option<&Value>) {
    match value {
        None | Some(Value::Null) => out.push_str("(unknown)"),
        Some(Value::String(s)) => out.push_str(s),
        Some(v) => out.push_str(&v.to_string()),
    }
}

/// A raw value parsed; `None` for `null` or (never in a loaded plan) invalid JSON.
fn parse_value(raw: &RawValue) -> Option<Value> {
    serde_json::from_str::<Value>(raw.get())
        .ok()
        .filter(|v| !v.is_null())
}

/// Indexes a value's top level without parsing what is under each key.
fn index(raw: Option<&RawValue>) -> Parsed<'_> {
    let Some(raw) = raw else {
        return Parsed::Absent;
    };
    match serde_json::from_str::<TopLevel>(raw.get()) {
        Ok(TopLevel(entries)) => Parsed::Object(entries),
        // Not an object: parse it whole (null and invalid JSON become absent).
        Err(_) => parse_value(raw).map_or(Parsed::Absent, Parsed::Other),
    }
}

/// An object's top-level entries with their values left raw.
struct TopLevel<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> Deserialize<'de> for TopLevel<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TopVisitor;
        impl<'de> Visitor<'de> for TopVisitor {
            type Value = TopLevel<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<TopLevel<'de>, M::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(16));
                while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
                    entries.push((k, map.next_value::<&'de RawValue>()?));
                }
                Ok(TopLevel(entries))
            }
        }
        deserializer.deserialize_map(TopVisitor)
    }
}

/// An object key, borrowed from the text unless it has escapes.
#[derive(serde::Deserialize)]
#[serde(transparent)]
struct Key<'a>(#[serde(borrow)] Cow<'a, str>);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_index_keeps_values_raw() {
        let raw: Box<RawValue> =
            serde_json::from_str(r#"{"a": {"deep": [1, 2]}, "b\"q": "x", "a": 3}"#).unwrap();
        let Parsed::Object(entries) = index(Some(&raw)) else {
            panic!("not indexed as an object");
        };
        let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_ref()).collect();
        assert_eq!(keys, ["a", "b\"q", "a"]);
        assert_eq!(entries[0].1.get(), r#"{"deep": [1, 2]}"#);
        let null: Box<RawValue> = serde_json::from_str("null").unwrap();
        assert!(matches!(index(Some(&null)), Parsed::Absent));
        let list: Box<RawValue> = serde_json::from_str("[1]").unwrap();
        assert!(matches!(index(Some(&list)), Parsed::Other(_)));
    }

    #[test]
    fn keys_are_borrowed_unless_they_have_escapes() {
        let raw: Box<RawValue> = serde_json::from_str(r#"{"plain": 1, "b\"q": 2}"#).unwrap();
        let Parsed::Object(entries) = index(Some(&raw)) else {
            panic!("not indexed as an object");
        };
        assert!(matches!(entries[0].0, Cow::Borrowed("plain")));
        assert!(matches!(&entries[1].0, Cow::Owned(k) if k == "b\"q"));
    }
}
