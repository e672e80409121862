//! The summary strip: Terraform's sentence, the counts behind it, versions, banners and warnings.

use leptos::prelude::*;

use super::AppState;
use crate::checks::CheckStatus;
use crate::model::text::visible;

/// Summary of the open plan.
#[component]
pub fn SummaryPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        state.loaded.get().map(|l| {
            let s = &l.summary;
            let failing_checks = l
                .checks
                .iter()
                .filter(|c| matches!(c.status, CheckStatus::Fail | CheckStatus::Error))
                .count();
            let plan = l.doc.plan();
            let chip = |n: usize, label: &'static str, key: &'static str| {
                (n > 0).then(|| {
                    view! {
                        <span class=format!("chip chip-{key}") data-testid=format!("count-{key}")>
                            <b>{n}</b> " " {label}
                        </span>
                    }
                })
            };
            let version = format!(
                "{} · format {}",
                plan.terraform_version
                    .as_deref()
                    .map_or("Terraform version not recorded".to_string(), |v| format!("Terraform {}", visible(v))),
                plan.format_version.as_deref().map_or("?".to_string(), visible),
            );
            let errored = plan.errored.then(|| view! {
                <div class="banner banner-danger" data-testid="banner-errored">
                    "Planning errored: this plan is partial and cannot be applied. Fix the errors and plan again."
                </div>
            });
            let incomplete = (plan.complete == Some(false)).then(|| view! {
                <div class="banner banner-warn" data-testid="banner-incomplete">
                    "This plan is incomplete: some changes were deferred or left out (-target). Another plan and apply will be needed."
                </div>
            });
            let warnings = l
                .doc
                .warnings
                .iter()
                .map(|w| view! { <div class="banner banner-warn" data-testid="load-warning">{w.clone()}</div> })
                .collect_view();
            view! {
                <section class="summary" aria-label="Plan summary">
                    {errored}
                    {incomplete}
                    {warnings}
                    <div class="summary-main">
                        <p class="sentence" data-testid="plan-summary">{s.sentence()}</p>
                        <span class="versions" data-testid="plan-versions">{version}</span>
                    </div>
                    <div class="chips">
                        {chip(s.replace, "to replace", "replace")}
                        {chip(s.moves, "moved", "move")}
                        {chip(s.import, "to import", "import")}
                        {chip(s.reads, "data reads", "read")}
                        {chip(s.deferred, "deferred", "deferred")}
                        {chip(s.drifted, "drifted outside Terraform", "drift")}
                        {chip(s.output_changes, "output changes", "output")}
                        {chip(failing_checks, "checks failing", "check-fail")}
                        <span class="chip chip-muted">
                            {format!("{} resource instances in plan", s.resources)}
                        </span>
                    </div>
                </section>
            }
        })
    }
}
