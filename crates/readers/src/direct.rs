//! [`Direct`]: the readers called directly, behind the loader's port
//! ([`planlens_load::Readers`]). The CLI and the tests read with it, and the browser's
//! `part-readers` module runs it inside the part (crates/part-readers); the first-visit module
//! never does.

use planlens_load::LoadError;
use planlens_load::kube::Unpacked;
use planlens_load::readers::{Reader, Readers};
use planlens_model::{Document, Source};

/// The readers called directly: the CLI's and the tests', and what the readers' part runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Direct;

impl Readers for Direct {
    fn document(&self, reader: Reader, text: String, name: &str) -> Result<Document, LoadError> {
        match reader {
            Reader::State => crate::state::read_state(text, name),
            Reader::PlanLog => load_plan_log(text, name),
            Reader::Driftctl => load_driftctl(text, name),
            Reader::TextPlan => crate::text_plan::document(&text, name),
        }
    }

    fn kube(&self, text: &str, _name: &str) -> Result<Unpacked, LoadError> {
        crate::kube::Objects::collect(crate::kube::read(text)?)
            .single()?
            .unpack()
    }

    fn unpack(
        &self,
        bytes: &[u8],
        name: &str,
        budget: &mut planlens_load::archive::Budget,
    ) -> Result<Vec<planlens_load::archive::Entry>, LoadError> {
        planlens_load::archive::unpack_within(bytes, name, budget)
    }
}

/// Parses the plan text a converter made; a failure is a bug in the converter, reported plainly.
fn parse_converted(text: String, name: &str, what: &str) -> Result<Document, LoadError> {
    Document::parse(text, name.to_string()).map_err(|(_, e)| LoadError::InvalidReport {
        what: what.to_string(),
        line: 0,
        column: 0,
        message: format!("Planlens could not convert it ({e}); please report this"),
    })
}

fn load_plan_log(text: String, name: &str) -> Result<Document, LoadError> {
    let (plan_text, facts) = crate::plan_log::convert(&text)?;
    let mut doc = parse_converted(plan_text, name, "terraform plan -json log")?;
    let mut warnings = Vec::new();
    if facts.skipped_lines > 0 {
        warnings.push(planlens_model::text::skipped_lines(
            facts.skipped_lines,
            "log",
            "not a resource change Planlens reads",
        ));
    }
    let plan = doc.plan();
    // A log with Terraform's diagnostics is one (a failed plan has nothing else): the question
    // is only right for a log with nothing recognisable at all.
    if plan.resource_changes.is_empty()
        && plan.resource_drift.is_empty()
        && facts.change_summary.is_none()
        && facts.diagnostics.is_empty()
    {
        warnings.push(
            "This log has no planned_change, resource_drift or change_summary messages: was it \
             made by `terraform plan -json`?"
                .to_string(),
        );
    }
    if let Some(said) = facts.change_summary {
        let ours = planlens_model::summary::Summary::of(&doc);
        if ours.disagrees_with(&facts) {
            warnings.push(format!(
                "Terraform's change summary in the log says {} to add, {} to change, {} to \
                 destroy, {} to import; the log's planned changes give {} to add, {} to change, \
                 {} to destroy, {} to import. Lines of the log are missing, so it is judged as an \
                 incomplete plan.",
                said.add,
                said.change,
                said.remove,
                said.import,
                ours.add,
                ours.change,
                ours.destroy,
                ours.import
            ));
        }
    }
    doc.warnings = warnings;
    doc.source = Source::PlanLog(facts);
    doc.original = Some(text);
    Ok(doc)
}

fn load_driftctl(text: String, name: &str) -> Result<Document, LoadError> {
    let (plan_text, facts) =
        crate::driftctl::convert(&text).map_err(|e| LoadError::InvalidReport {
            what: "driftctl report".to_string(),
            line: e.line(),
            column: e.column(),
            message: planlens_load::error::strip_position(&e),
        })?;
    let mut doc = parse_converted(plan_text, name, "driftctl report")?;
    doc.source = Source::Driftctl(facts);
    doc.original = Some(text);
    Ok(doc)
}
