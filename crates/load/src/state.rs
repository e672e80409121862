//! What the loader needs to know of Terraform states without reading one: whether a text is a
//! state ([`is_state_text`]) and the facts a state converted by Planlens carries ([`MARKER`],
//! [`converted_facts`]). The reading is `planlens_readers::state`.

use std::collections::BTreeMap;

use serde_json::value::RawValue;

use planlens_model::source::StateFacts;

/// The key under which the converted text carries its [`StateFacts`].
pub const MARKER: &str = "planlens_state";

/// True when `text` is a state: a raw state (`lineage`, or `version` with `resources`, at the
/// top) or `terraform show -json` of one (`format_version` with `values`, or with nothing but
/// versions: what Terraform prints when there is no state), and none of a plan's keys. The loader
/// decides from its own parse first; this is the final word, and for readers holding only text.
pub fn is_state_text(text: &str) -> bool {
    let Ok(top) = serde_json::from_str::<BTreeMap<&str, &RawValue>>(text) else {
        return false;
    };
    let has = |k: &str| top.contains_key(k);
    if has("resource_changes") || has("planned_values") || has("configuration") {
        return false;
    }
    let only_versions = top
        .keys()
        .all(|k| *k == "format_version" || *k == "terraform_version");
    has("lineage")
        || (has("version") && has("resources"))
        || (has("format_version") && (has("values") || only_versions))
}

/// The facts a converted state carries ([`MARKER`], read with the plan at no extra cost), when
/// it is one: such a text (a share link's copy of a state) opens as a state again.
pub fn converted_facts(plan: &planlens_model::Plan) -> Option<StateFacts> {
    serde_json::from_str(plan.planlens_state?.get()).ok()
}
