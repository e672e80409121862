//! The one masking pass: values under secret-like keys become sensitive, as if the plan had marked
//! them.
//!
//! Every view (diff, drift, outputs), every rule message, both share links and the Markdown comment
//! already hide what `before_sensitive` / `after_sensitive` mark. So instead of teaching each of them
//! about secret names, the loader adds marks: for each resource change, drift entry, deferred change
//! and output change, it walks the values' keys with a [`Mask`] and, where a non-empty string under
//! a matching key is not marked yet, writes the widened mirror into the document's text (a splice
//! at the mirror, or a new `before_sensitive` key next to `before`) and parses it again. A plan that
//! needs no new mark is not copied or parsed again; the walk reads keys and skips the rest without
//! building values.
//!
//! The user's text is kept as [`Document::original`] when marks were added, so a reload or a new
//! mask starts from what the user opened.
//!
//! Plan-log diagnostics lose the secrets they quote. Outputs a plan of Terraform before 0.15
//! declares sensitive (in `planned_values`, `prior_state` or `configuration`; its output changes
//! carry no mirror) are marked sensitive whole. If the widened text ever failed to parse, the plan
//! would be refused, never shown unmasked.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::LoadError;
use planlens_model::mask::{CachedMask, Mask, Masking, SENSITIVE_STATEMENT};
use planlens_model::source::Snippet;
use planlens_model::{Document, Source};

/// Marks a walk found: which parts of a value the mask hides.
#[derive(Debug, Clone, PartialEq)]
enum Marks {
    /// The whole value.
    All,
    /// Some keys of an object.
    Object(Vec<(String, Marks)>),
    /// Some items of a list, by position.
    Array(Vec<Option<Marks>>),
}

impl Marks {
    /// How many values it hides.
    fn count(&self) -> usize {
        match self {
            Marks::All => 1,
            Marks::Object(entries) => entries.iter().map(|(_, m)| m.count()).sum(),
            Marks::Array(items) => items.iter().flatten().map(Marks::count).sum(),
        }
    }

    /// True when `mirror` (a sensitivity mirror) already hides everything these marks hide.
    fn covered_by(&self, mirror: &Value) -> bool {
        if mirror == &Value::Bool(true) {
            return true;
        }
        match (self, mirror) {
            (Marks::Object(entries), Value::Object(m)) => entries
                .iter()
                .all(|(k, marks)| m.get(k).is_some_and(|v| marks.covered_by(v))),
            (Marks::Array(items), Value::Array(m)) => items.iter().enumerate().all(|(i, marks)| {
                marks
                    .as_ref()
                    .is_none_or(|marks| m.get(i).is_some_and(|v| marks.covered_by(v)))
            }),
            _ => false,
        }
    }

    /// Counts what `mirror` does not hide yet.
    fn uncovered(&self, mirror: &Value) -> usize {
        if mirror == &Value::Bool(true) {
            return 0;
        }
        match (self, mirror) {
            (Marks::Object(entries), Value::Object(m)) => entries
                .iter()
                .map(|(k, marks)| m.get(k).map_or(marks.count(), |v| marks.uncovered(v)))
                .sum(),
            (Marks::Array(items), Value::Array(m)) => items
                .iter()
                .enumerate()
                .filter_map(|(i, marks)| {
                    marks
                        .as_ref()
                        .map(|marks| m.get(i).map_or(marks.count(), |v| marks.uncovered(v)))
                })
                .sum(),
            _ => self.count(),
        }
    }

    /// Widens `mirror` with these marks.
    fn merge_into(&self, mirror: &mut Value) {
        if mirror == &Value::Bool(true) {
            return;
        }
        match self {
            Marks::All => *mirror = Value::Bool(true),
            Marks::Object(entries) => {
                if !mirror.is_object() {
                    *mirror = Value::Object(Default::default());
                }
                if let Value::Object(m) = mirror {
                    for (k, marks) in entries {
                        marks.merge_into(m.entry(k.clone()).or_insert(Value::Bool(false)));
                    }
                }
            }
            Marks::Array(items) => {
                if !mirror.is_array() {
                    *mirror = Value::Array(Vec::new());
                }
                if let Value::Array(m) = mirror {
                    if m.len() < items.len() {
                        m.resize(items.len(), Value::Bool(false));
                    }
                    for (slot, marks) in m.iter_mut().zip(items) {
                        if let Some(marks) = marks {
                            marks.merge_into(slot);
                        }
                    }
                }
            }
        }
    }
}

/// Walks a JSON value's keys without building it, and returns what the mask hides in it.
struct Walk<'m, 'c> {
    mask: &'c mut CachedMask<'m>,
    /// True inside an object whose key matched: every non-empty string here is a secret.
    under: bool,
}

impl<'de> DeserializeSeed<'de> for Walk<'_, '_> {
    type Value = Option<Marks>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_, '_> {
    type Value = Option<Marks>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok((self.under && !s.is_empty()).then_some(Marks::All))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        let mut any = false;
        while let Some(marks) = seq.next_element_seed(Walk {
            mask: &mut *self.mask,
            under: self.under,
        })? {
            any |= marks.is_some();
            items.push(marks);
        }
        Ok(any.then_some(Marks::Array(items)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let under = self.under || self.mask.matches(&key);
            if let Some(marks) = map.next_value_seed(Walk {
                mask: &mut *self.mask,
                under,
            })? {
                entries.push((key.into_owned(), marks));
            }
        }
        Ok((!entries.is_empty()).then_some(Marks::Object(entries)))
    }
}

/// What the mask hides in `value`; `under` when the value itself sits under a matching name.
fn walk(value: &RawValue, under: bool, mask: &mut CachedMask) -> Option<Marks> {
    let mut de = serde_json::Deserializer::from_str(value.get());
    Walk { mask, under }.deserialize(&mut de).ok().flatten()
}

/// One change to make to the text: replace `start..end` with `with`.
struct Edit {
    start: usize,
    end: usize,
    with: String,
}

/// The byte offset of a raw value inside the document text.
fn offset_in(text: &str, raw: &RawValue) -> Option<usize> {
    let start = (raw.get().as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    (start + raw.get().len() <= text.len()).then_some(start)
}

/// Where the key `"name"` whose value starts at `value_start` begins (the opening quote), when the
/// text between is exactly `"name"`, optional whitespace, `:` and optional whitespace.
fn key_start(text: &str, value_start: usize, name: &str) -> Option<usize> {
    let before = text[..value_start].trim_end();
    let before = before.strip_suffix(':')?.trim_end();
    let quoted = format!("\"{name}\"");
    before
        .ends_with(&quoted)
        .then(|| before.len() - quoted.len())
}

/// The edits that widen one change's mirrors; `under` when the whole change sits under a matching
/// name (an output called `db_password`).
fn edits_for(
    text: &str,
    change: &planlens_model::plan::Change,
    under: bool,
    mask: &mut CachedMask,
    masked: &mut usize,
    edits: &mut Vec<Edit>,
) -> Result<(), ()> {
    for (value, mirror, value_key, mirror_key) in sides(change) {
        let Some(value) = value else { continue };
        if !under && !mask.may_match_in(value.get()) {
            continue;
        }
        let Some(marks) = walk(value, under, mask) else {
            continue;
        };
        let mut existing: Value = match mirror {
            Some(m) => serde_json::from_str(m.get()).unwrap_or(Value::Bool(false)),
            None => Value::Bool(false),
        };
        if marks.covered_by(&existing) {
            continue;
        }
        *masked += marks.uncovered(&existing);
        marks.merge_into(&mut existing);
        edits.push(mirror_edit(
            text,
            (value, mirror),
            (value_key, mirror_key),
            existing.to_string(),
        )?);
    }
    Ok(())
}

/// A change's two sides: each value, its sensitivity mirror, and their keys.
#[allow(clippy::type_complexity)]
fn sides<'a>(
    change: &planlens_model::plan::Change<'a>,
) -> [(
    Option<&'a RawValue>,
    Option<&'a RawValue>,
    &'static str,
    &'static str,
); 2] {
    [
        (
            change.before,
            change.before_sensitive,
            "before",
            "before_sensitive",
        ),
        (
            change.after,
            change.after_sensitive,
            "after",
            "after_sensitive",
        ),
    ]
}

/// The edit that makes `widened` a value's mirror: written over the mirror it has, or as a new
/// `"before_sensitive":…,` key just before the value's key.
fn mirror_edit(
    text: &str,
    (value, mirror): (&RawValue, Option<&RawValue>),
    (value_key, mirror_key): (&str, &str),
    widened: String,
) -> Result<Edit, ()> {
    Ok(match mirror {
        Some(m) => {
            let start = offset_in(text, m).ok_or(())?;
            Edit {
                start,
                end: start + m.get().len(),
                with: widened,
            }
        }
        None => {
            let value_start = offset_in(text, value).ok_or(())?;
            let at = key_start(text, value_start, value_key).ok_or(())?;
            Edit {
                start: at,
                end: at,
                with: format!("\"{mirror_key}\":{widened},"),
            }
        }
    })
}

/// Root outputs a plan declares sensitive: `sensitive: true` under `planned_values.outputs`,
/// `prior_state.values.outputs` or `configuration.root_module.outputs`. Terraform before 0.15
/// writes no `before_sensitive`/`after_sensitive` on output changes, only these, so they are read
/// (three small parses) only when an output change carries no mirror at all.
fn declared_sensitive_outputs(plan: &planlens_model::Plan) -> Vec<String> {
    let unmarked = plan
        .output_changes
        .values()
        .any(|o| o.before_sensitive.is_none() && o.after_sensitive.is_none());
    if !unmarked {
        return Vec::new();
    }
    // `Value`, not typed structs: its deserializer is in the module already (no new code), and
    // only old plans get here.
    let outputs = |raw: Option<&RawValue>, pointer: &str| -> Vec<String> {
        let Some(value) = raw.and_then(|r| serde_json::from_str::<Value>(r.get()).ok()) else {
            return Vec::new();
        };
        match value.pointer(pointer) {
            Some(Value::Object(outputs)) => outputs
                .iter()
                .filter(|(_, o)| o.get("sensitive") == Some(&Value::Bool(true)))
                .map(|(name, _)| name.clone())
                .collect(),
            _ => Vec::new(),
        }
    };
    let mut names = outputs(plan.planned_values, "/outputs");
    for name in outputs(plan.prior_state, "/values/outputs")
        .into_iter()
        .chain(outputs(plan.configuration, "/root_module/outputs"))
    {
        // A plan has a few outputs: no sort (a new one would be compiled for it).
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The edits that mark an output change declared sensitive as sensitive whole, as Terraform 0.15+
/// writes it (`before_sensitive`/`after_sensitive` `true` beside each value that is not null).
fn mark_whole(
    text: &str,
    change: &planlens_model::plan::Change,
    edits: &mut Vec<Edit>,
) -> Result<(), ()> {
    for (value, mirror, value_key, mirror_key) in sides(change) {
        // A null value (`Option` reads it as `None`) and a mirror already `true` need nothing.
        let Some(value) = value else { continue };
        if mirror.is_some_and(|m| m.get() == "true") {
            continue;
        }
        edits.push(mirror_edit(
            text,
            (value, mirror),
            (value_key, mirror_key),
            "true".to_string(),
        )?);
    }
    Ok(())
}

/// Applies `mask` to a loaded document: adds sensitivity marks for secret-like keys (see the
/// module documentation). Redacted documents carry no values and are returned as they are.
/// Fails only if the widened text does not parse, which would be a bug: the plan is then refused
/// rather than shown unmasked.
pub fn apply(mut doc: Document, mask: &Mask) -> Result<Document, LoadError> {
    doc.masking = Masking {
        mask: mask.clone(),
        plan_has_marks: false,
        masked_by_name: 0,
    };
    if doc.redacted.is_some() {
        return Ok(doc);
    }
    let plan = doc.plan();
    let text = doc.text();
    let mut cached = mask.cached();
    let mut edits = Vec::new();
    let mut masked = 0;
    let mut has_marks = false;
    let mut has_values = !plan.variables.is_empty();
    let mut spliced = true;
    {
        let mut visit = |change: &planlens_model::plan::Change, under: bool| {
            has_marks |= change.before_sensitive.is_some() || change.after_sensitive.is_some();
            has_values |= change.before.is_some() || change.after.is_some();
            if spliced
                && edits_for(text, change, under, &mut cached, &mut masked, &mut edits).is_err()
            {
                spliced = false;
            }
        };
        for c in plan
            .resource_changes
            .iter()
            .chain(&plan.resource_drift)
            .chain(plan.deferred_changes.iter().map(|d| &d.resource_change))
        {
            visit(&c.change, false);
        }
        for (name, o) in &plan.output_changes {
            visit(o, mask.matches(name));
        }
    }
    // Outputs a plan of Terraform before 0.15 declares sensitive, marked whole.
    let declared = declared_sensitive_outputs(plan);
    for (name, o) in &plan.output_changes {
        if spliced && declared.iter().any(|d| d == name) && mark_whole(text, o, &mut edits).is_err()
        {
            spliced = false;
        }
    }
    // A plan with no values at all (no changes, no variables: a failed plan, one that only
    // invokes actions) has nothing a mark could cover: it is not a plan without marks.
    let plan_has_marks = has_marks || !has_values;
    // A plan log has no values but its diagnostics can quote some: snippet values
    // (`var.db_password is "…"`) and configuration lines (`password = "…"`).
    let mut in_diagnostics = 0;
    if let Source::PlanLog(facts) = &mut doc.source {
        for snippet in facts
            .diagnostics
            .iter_mut()
            .filter_map(|d| d.snippet.as_mut())
        {
            in_diagnostics += mask_snippet(snippet, mask);
        }
    }
    let text = doc.text();
    // Converted inputs (plan logs, driftctl reports) never carry marks of their own; only a plan
    // file can say it has none.
    let plan_has_marks = plan_has_marks || !matches!(doc.source, Source::Plan);
    if edits.is_empty() && spliced {
        doc.masking.plan_has_marks = plan_has_marks;
        doc.masking.masked_by_name = in_diagnostics;
        return Ok(doc);
    }
    let new_text = if spliced {
        edits.sort_by_key(|e| e.start);
        let extra: usize = edits.iter().map(|e| e.with.len()).sum();
        let mut out = String::with_capacity(text.len() + extra);
        let mut at = 0;
        for e in &edits {
            out.push_str(&text[at..e.start]);
            out.push_str(&e.with);
            at = e.end;
        }
        out.push_str(&text[at..]);
        Some(out)
    } else {
        widen_by_value(text, mask, &declared)
    };
    // Neither can fail on a document that parsed; if one ever does, the plan is not shown rather
    // than shown without its masks.
    let refused = || LoadError::InvalidPlan {
        line: 0,
        column: 0,
        message: "Planlens could not mask its secret-like values, so it does not show it; \
                  please report this"
            .to_string(),
    };
    let mut doc = doc
        .with_text(new_text.ok_or_else(refused)?)
        .map_err(|_| refused())?;
    doc.masking.plan_has_marks = plan_has_marks;
    doc.masking.masked_by_name = masked + in_diagnostics;
    Ok(doc)
}

/// Masks what a diagnostic's snippet quotes under secret names: the statements of secret-named
/// references, and string literals assigned to secret-named keys in its code (the highlighted
/// range is moved with the text). Returns how many were masked.
pub fn mask_snippet(snippet: &mut Snippet, mask: &Mask) -> usize {
    let mut count = 0;
    for v in &mut snippet.values {
        if v.statement != SENSITIVE_STATEMENT && mask.matches_reference(&v.traversal) {
            v.statement = SENSITIVE_STATEMENT.to_string();
            count += 1;
        }
    }
    let masked = mask.mask_code(&snippet.code);
    if masked != snippet.code {
        // Map byte offsets line by line: a changed line keeps its start, and an offset inside it
        // stays within its new length.
        let old_lines: Vec<&str> = snippet.code.split('\n').collect();
        let new_lines: Vec<&str> = masked.split('\n').collect();
        count += old_lines
            .iter()
            .zip(&new_lines)
            .filter(|(a, b)| a != b)
            .count();
        let map = |offset: usize| {
            let (mut old_start, mut new_start) = (0, 0);
            for (o, n) in old_lines.iter().zip(&new_lines) {
                if offset <= old_start + o.len() {
                    return new_start + (offset - old_start).min(n.len());
                }
                old_start += o.len() + 1;
                new_start += n.len() + 1;
            }
            masked.len()
        };
        snippet.highlight_start_offset = map(snippet.highlight_start_offset);
        snippet.highlight_end_offset = map(snippet.highlight_end_offset);
        snippet.code = masked;
    }
    count
}

/// The slow path, for a text the splices cannot edit (keys written with escapes, say): widens the
/// marks on a parsed `Value` and writes the whole plan again.
fn widen_by_value(text: &str, mask: &Mask, declared: &[String]) -> Option<String> {
    let mut plan: Value = serde_json::from_str(text).ok()?;
    let mut cached = mask.cached();
    let mut widen = |change: &mut Value, under: bool| {
        let Some(c) = change.as_object_mut() else {
            return;
        };
        for (value, mirror) in [("before", "before_sensitive"), ("after", "after_sensitive")] {
            let Some(v) = c.get(value) else { continue };
            let raw = serde_json::value::to_raw_value(v).ok();
            let Some(marks) = raw.and_then(|r| walk(&r, under, &mut cached)) else {
                continue;
            };
            let m = c.entry(mirror).or_insert(Value::Bool(false));
            marks.merge_into(m);
        }
    };
    for key in ["resource_changes", "resource_drift"] {
        if let Some(Value::Array(changes)) = plan.get_mut(key) {
            for c in changes {
                if let Some(change) = c.get_mut("change") {
                    widen(change, false);
                }
            }
        }
    }
    if let Some(Value::Array(deferred)) = plan.get_mut("deferred_changes") {
        for d in deferred {
            if let Some(change) = d.pointer_mut("/resource_change/change") {
                widen(change, false);
            }
        }
    }
    if let Some(Value::Object(outputs)) = plan.get_mut("output_changes") {
        for (name, o) in outputs.iter_mut() {
            let under = mask.matches(name);
            widen(o, under);
            if declared.contains(name)
                && let Some(c) = o.as_object_mut()
            {
                for (value, mirror) in
                    [("before", "before_sensitive"), ("after", "after_sensitive")]
                {
                    if c.get(value).is_some_and(|v| !v.is_null()) {
                        c.insert(mirror.to_string(), Value::Bool(true));
                    }
                }
            }
        }
    }
    Some(plan.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Document {
        apply(
            Document::parse(text.to_string(), "t".into()).unwrap(),
            &Mask::default(),
        )
        .unwrap()
    }

    #[test]
    fn an_unmarked_password_gets_a_mark_next_to_its_value() {
        let doc = load(
            r#"{"format_version":"0.1","resource_changes":[{"address":"aws_db_instance.db","type":"aws_db_instance","name":"db","change":{"actions":["create"],"before":null,"after":{"password":"hunter2","port":5432,"tags":{"api_token":"t0k3n"}}}}]}"#,
        );
        let c = &doc.plan().resource_changes[0].change;
        let marks: Value = serde_json::from_str(c.after_sensitive.unwrap().get()).unwrap();
        assert_eq!(
            marks,
            serde_json::json!({"password": true, "tags": {"api_token": true}})
        );
        assert!(c.before_sensitive.is_none(), "no before, no mark");
        assert!(!doc.masking.plan_has_marks);
        assert_eq!(doc.masking.masked_by_name, 2);
        assert!(
            doc.source_text().contains("hunter2"),
            "the user's text is kept"
        );
    }

    #[test]
    fn existing_marks_are_widened_in_place_and_kept() {
        let doc = load(
            r#"{"format_version":"1.2","resource_changes":[{"address":"a.b","type":"a","name":"b","change":{"actions":["update"],"before":{"secret":"old","list":[{"token":"x"},{"n":1}]},"after":{"secret":"new","list":[]},"before_sensitive":{"list":[false,false]},"after_sensitive":{"other":true}}}]}"#,
        );
        let c = &doc.plan().resource_changes[0].change;
        let before: Value = serde_json::from_str(c.before_sensitive.unwrap().get()).unwrap();
        let after: Value = serde_json::from_str(c.after_sensitive.unwrap().get()).unwrap();
        assert_eq!(
            before,
            serde_json::json!({"list": [{"token": true}, false], "secret": true})
        );
        assert_eq!(after, serde_json::json!({"other": true, "secret": true}));
        assert!(doc.masking.plan_has_marks);
    }

    #[test]
    fn a_plan_whose_marks_cover_every_secret_is_not_copied() {
        let text = r#"{"format_version":"1.2","resource_changes":[{"address":"a.b","type":"a","name":"b","change":{"actions":["create"],"before":null,"after":{"password":"p","password_length":16,"get_password_data":false,"password_data":""},"after_sensitive":{"password":true}}}]}"#;
        let doc = load(text);
        assert!(doc.original.is_none());
        assert_eq!(doc.text(), text);
        assert_eq!(doc.masking.masked_by_name, 0);
    }

    #[test]
    fn outputs_named_like_secrets_are_masked_whole() {
        let doc = load(
            r#"{"format_version":"0.1","output_changes":{"db_password":{"actions":["create"],"before":null,"after":"pw"},"db_password_length":{"actions":["create"],"before":null,"after":16},"endpoint":{"actions":["create"],"before":null,"after":"db.example"}}}"#,
        );
        let outs = &doc.plan().output_changes;
        assert_eq!(outs["db_password"].after_sensitive.unwrap().get(), "true");
        assert!(outs["db_password_length"].after_sensitive.is_none());
        assert!(outs["endpoint"].after_sensitive.is_none());
    }

    #[test]
    fn keys_written_with_escapes_fall_back_to_the_slow_path() {
        let doc = load(
            r#"{"format_version":"0.1","resource_changes":[{"address":"a.b","type":"a","name":"b","change":{"actions":["create"],"\u0062efore":null,"\u0061fter":{"password":"hunter2"}}}]}"#,
        );
        let c = &doc.plan().resource_changes[0].change;
        assert_eq!(
            c.after_sensitive.map(|m| m.get().to_string()),
            Some(r#"{"password":true}"#.to_string())
        );
    }
}
