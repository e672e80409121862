//! The rules' input built from a loaded document: one resource per document row (so a finding's
//! resource index is a row index), with its drift, and the plan's non-sensitive variables.

use std::collections::BTreeMap;

use super::input::{DriftFacts, Input, Resource};
use super::{Evaluation, RuleSet, evaluate};
use crate::drift::Drift;
use crate::model::Document;
use crate::summary::Planning;

/// Evaluates `rules` on a loaded document. A redacted document has no values to run rules on: it
/// carries the findings made when its link was made, and those are returned whatever the rules,
/// judged again with the planning status of the plan it carries.
pub fn evaluate_document(
    doc: &Document,
    drift: &Drift,
    rules: &RuleSet,
    labels: &BTreeMap<String, String>,
) -> Evaluation {
    match &doc.redacted {
        Some(r) => r.evaluation.clone().with_planning(Planning::of(doc)),
        None => evaluate(&Input::from_document(doc, drift), rules, labels),
    }
}

impl<'a> Input<'a> {
    /// Builds the input for `doc`: resource `i` is `doc.rows[i]`. Variables the configuration marks
    /// `sensitive` are left out, so no message template can print them.
    pub fn from_document(doc: &'a Document, drift: &'a Drift) -> Input<'a> {
        let resources = doc
            .rows
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let change = doc.change(row);
                let (before, after) = doc.values(row);
                let (before_sensitive, after_sensitive) = doc.sensitivity(row);
                Resource {
                    address: &change.address,
                    mode: change.mode,
                    resource_type: &change.resource_type,
                    name: &change.name,
                    module: doc.module_of(row),
                    provider: &doc.providers[row.provider as usize],
                    action: row.action,
                    is_import: row.is_import,
                    is_move: row.is_move,
                    before,
                    after,
                    before_sensitive,
                    after_sensitive,
                    drift: drift.for_row(i).map(|d| DriftFacts {
                        severity: d.severity,
                        attributes: &d.paths,
                        deleted: d.deleted.as_ref(),
                    }),
                }
            })
            .collect();
        let plan = doc.plan();
        let sensitive = doc.sensitive_variables();
        let variables = plan
            .variables
            .iter()
            .filter(|(name, _)| !sensitive.contains(name.as_ref()))
            .filter_map(|(name, v)| {
                let value = serde_json::from_str(v.value?.get()).ok()?;
                Some((name.to_string(), value))
            })
            .collect::<BTreeMap<_, _>>();
        Input {
            resources,
            variables,
            planning: Planning::of(doc),
        }
    }
}
