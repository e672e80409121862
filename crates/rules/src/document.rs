//! The rules' input built from a loaded document: one resource per document row (so a finding's
//! resource index is a row index), with its drift, and the plan's non-sensitive variables.

use std::collections::BTreeMap;

use super::input::{DriftFacts, Input, Resource};
use planlens_changes::drift::Drift;
use planlens_model::Document;
use planlens_model::summary::Planning;

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
                        removed: d.action == planlens_model::Action::Delete,
                        values_known: d.values_known,
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
            values_partial: !doc.source.values_complete(),
            failing_checks: planlens_changes::checks::failing_sentence(
                &planlens_changes::checks::check_rows(doc),
            ),
        }
    }
}
