//! The summary strip: Terraform's sentence, the counts behind it, versions, banners and warnings.

use leptos::prelude::*;

use super::AppState;
use crate::checks::CheckStatus;
use crate::model::Source;
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
            let terraform = plan
                .terraform_version
                .as_deref()
                .map_or("Terraform version not recorded".to_string(), |v| format!("Terraform {}", visible(v)));
            let version = match &l.doc.source {
                Source::Plan => format!(
                    "{terraform} · format {}",
                    plan.format_version.as_deref().map_or("?".to_string(), visible),
                ),
                Source::PlanLog(_) => format!("{terraform} · terraform plan -json log (no attribute values)"),
                Source::Driftctl(f) => format!("driftctl report, {}", f.format),
            };
            let sentence = s.headline(&l.doc);
            let diagnostics = match &l.doc.source {
                Source::PlanLog(f) => f
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity != "error")
                    .map(|d| {
                        let at = d.location.as_deref().map(|l| format!(" ({})", visible(l))).unwrap_or_default();
                        view! {
                            <div class="banner banner-info" data-testid="log-diagnostic">
                                {format!("Terraform {}: {}{at}", d.severity, visible(&d.summary))}
                            </div>
                        }
                    })
                    .collect_view()
                    .into_any(),
                _ => ().into_any(),
            };
            let drift = &l.drift;
            let drift_note = drift.note().map(|note| view! {
                <p class="drift-note" data-testid="summary-drift-note">
                    {note}
                    " "
                    <button class="link-button" data-testid="open-drift" on:click=move |_| state.tab.set(super::Tab::Drift)>
                        {format!("{} →", drift.totals())}
                    </button>
                </p>
            });
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
            // What was undone to read the file (gzip, UTF-16, CI wrapper lines): information.
            let notes = l
                .doc
                .notes
                .iter()
                .map(|n| view! { <div class="banner banner-info" data-testid="load-note">{n.clone()}</div> })
                .collect_view();
            view! {
                <section class="summary" aria-label="Plan summary">
                    {errored}
                    {incomplete}
                    {warnings}
                    {notes}
                    {diagnostics}
                    <div class="summary-main">
                        <p class="sentence" data-testid="plan-summary">{sentence}</p>
                        <super::rules::VerdictBadge />
                        {l.doc.redacted.is_some().then(|| view! {
                            <span
                                class="chip chip-muted"
                                data-testid="redacted-badge"
                                title="Opened from a redacted link: addresses, actions, edges and findings, no attribute values"
                            >
                                "redacted: no values"
                            </span>
                        })}
                        <span class="versions" data-testid="plan-versions">{version}</span>
                    </div>
                    {drift_note}
                    <div class="chips">
                        {chip(s.replace, "to replace", "replace")}
                        {chip(s.moves, "moved", "move")}
                        {chip(s.import, "to import", "import")}
                        {chip(s.reads, "data reads", "read")}
                        {chip(s.deferred, "deferred", "deferred")}
                        {chip(s.output_changes, "output changes", "output")}
                        {chip(failing_checks, "checks failing", "check-fail")}
                        {(!matches!(l.doc.source, Source::Driftctl(_))).then(|| view! {
                            <span class="chip chip-muted">
                                {format!("{} resource instances in plan", s.resources)}
                            </span>
                        })}
                    </div>
                </section>
            }
        })
    }
}
