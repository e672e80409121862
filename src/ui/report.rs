//! A report file (`planlens report`, written by `crates/cli/src/report`): the page itself carries
//! the plan, as a full link's payload in an inert element, so the report opens its own plan from
//! disk without a request. The address's fragment still says how to show it (tab, selection, filters).
//!
//! ```html
//! <script type="application/octet-stream" id="planlens-report" data-name="plan.json"
//!   data-rules="…" data-env="prod">PAYLOAD</script>
//! ```
//!
//! A report of several plans carries a set link's payload and `data-kind="set"`: the roll-up
//! opens, each row with its plan.

use leptos::prelude::*;

use crate::load::fragment::Fragment;

/// The element's id; `crates/cli/src/report` writes it.
const ELEMENT_ID: &str = "planlens-report";

/// What a report page carries.
struct Embedded {
    /// A full link's payload (`load::link`).
    payload: String,
    /// The plan file's name.
    name: String,
    /// The rule file, as a link payload.
    rules: Option<String>,
    /// The `environment` label.
    environment: Option<String>,
    /// The payload holds several plans (`data-kind="set"`): the roll-up opens.
    set: bool,
}

/// The plan this page carries, if it is a report.
fn embedded() -> Option<Embedded> {
    let element = document().get_element_by_id(ELEMENT_ID)?;
    let payload = element.text_content()?.trim().to_string();
    let attribute = |name: &str| element.get_attribute(name).filter(|v| !v.is_empty());
    Some(Embedded {
        payload,
        name: attribute("data-name").unwrap_or_else(|| "report".to_string()),
        rules: attribute("data-rules"),
        environment: attribute("data-env"),
        set: attribute("data-kind").as_deref() == Some("set"),
    })
}

/// True when this page is a report file.
pub fn is_report() -> bool {
    document().get_element_by_id(ELEMENT_ID).is_some()
}

/// `fragment` with the report's plan, when this page is a report: a report shows its own plan
/// whatever the fragment names (its view is still read). The report's rules and label apply
/// until the fragment carries the plan with its own (the app writes them there once it is open).
pub fn with_embedded(mut fragment: Fragment) -> Fragment {
    let Some(report) = embedded() else {
        return fragment;
    };
    if fragment.plan.as_deref() != Some(report.payload.as_str()) {
        fragment.view.rules = fragment.view.rules.or(report.rules);
        fragment.view.environment = fragment.view.environment.or(report.environment);
    }
    fragment.sample = None;
    if report.set {
        fragment.plan = None;
        fragment.set = Some(report.payload);
        return fragment;
    }
    fragment.plan = Some(report.payload);
    fragment.name = Some(report.name);
    fragment
}
