//! `planlens fleet FILE… [--format text|json]`: every workspace of Flux's Terraform controller in
//! the files (`kubectl get terraform -A -o json|yaml`, plan and state Secrets), most urgent first.
//! Exit codes: 0 every workspace ready with no drift, 1 a plan waits for approval or is stale (or a
//! workspace has no verdict yet), 2 drift or a failing or locked workspace, 3 bad input, 64 usage.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

use planlens_fleet::{Attention, Fleet, Row};
use planlens_model::text::visible;

/// Runs `planlens fleet` with the arguments after `fleet`.
pub fn run(args: &[&str]) -> ExitCode {
    let mut json = false;
    let mut paths = Vec::new();
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        match arg {
            "--format" => match it.next() {
                Some(&"json") => json = true,
                Some(&"text") => json = false,
                _ => return super::usage(),
            },
            a if a.starts_with("--") => return super::usage(),
            a => paths.push(a),
        }
    }
    if paths.is_empty() {
        return super::usage();
    }
    let mut files = Vec::new();
    for path in &paths {
        match super::read_input(path) {
            Ok(bytes) => files.push((path.to_string(), bytes)),
            Err(message) => {
                eprintln!("planlens: {message}");
                return ExitCode::from(3);
            }
        }
    }
    let fleet = Fleet::read(files);
    for (name, message) in &fleet.problems {
        eprintln!("planlens: {name}: {message}");
    }
    if fleet.rows.is_empty() && fleet.problems.is_empty() {
        eprintln!(
            "planlens: no tf-controller Terraform objects in {}: give the output of `kubectl get \
             terraform -A -o json` (or -o yaml).",
            paths.join(", ")
        );
    }
    let out = if json {
        json_report(&fleet)
    } else {
        text_report(&fleet)
    };
    match super::finish(std::io::stdout().lock().write_all(out.as_bytes())) {
        code if code == ExitCode::SUCCESS => ExitCode::from(fleet.exit_code()),
        code => code,
    }
}

/// The JSON form: counts, the exit code and every row as the core has it.
fn json_report(fleet: &Fleet) -> String {
    let counts: serde_json::Map<String, serde_json::Value> = fleet
        .counts()
        .into_iter()
        .map(|(a, n)| (a.key().to_string(), n.into()))
        .collect();
    let value = serde_json::json!({
        "workspaces": fleet.rows,
        "counts": counts,
        "exit_code": fleet.exit_code(),
        "problems": fleet.problems.iter().map(|(f, m)| serde_json::json!({"file": f, "message": m})).collect::<Vec<_>>(),
        "unclaimed": fleet.unclaimed,
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// The text form: a headline, a table, then what each workspace that needs a person needs.
fn text_report(fleet: &Fleet) -> String {
    let mut out = String::new();
    let counts = fleet.counts();
    let n = fleet.rows.len();
    let parts: Vec<String> = Attention::ALL
        .iter()
        .filter_map(|a| counts.get(a).map(|c| format!("{c} {}", a.label())))
        .collect();
    let _ = writeln!(
        out,
        "Fleet: {n} workspace{}{}{}",
        if n == 1 { "" } else { "s" },
        if parts.is_empty() { "" } else { " — " },
        parts.join(", ")
    );
    if n == 0 {
        return out;
    }
    let header = [
        "NEEDS",
        "WORKSPACE",
        "READY",
        "PLAN",
        "FAILURES",
        "EVERY",
        "APPLIED",
    ];
    let rows: Vec<[String; 7]> = fleet.rows.iter().map(cells).collect();
    let mut widths = header.map(str::len);
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut l = String::new();
        for (i, (c, w)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == cells.len() {
                l.push_str(c);
            } else {
                let _ = write!(l, "{c}{}  ", " ".repeat(w - c.chars().count()));
            }
        }
        l.trim_end().to_string()
    };
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", line(&header.map(String::from)));
    for r in &rows {
        let _ = writeln!(out, "{}", line(r));
    }
    for row in fleet.rows.iter().filter(|r| r.attention.needs_human()) {
        let _ = writeln!(out);
        details(&mut out, row);
    }
    if !fleet.unclaimed.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "Stored for no workspace in these files: {}",
            fleet.unclaimed.join(", ")
        );
    }
    out
}

fn cells(row: &Row) -> [String; 7] {
    let ready = if row.ready.status.is_empty() {
        row.ready.words.clone()
    } else {
        format!("{}: {}", row.ready.status, row.ready.words)
    };
    let mut plan = match &row.pending {
        Some(p) => {
            let mut s = p.plan_id.clone();
            if p.awaits_approval {
                s.push_str(" (awaits approval)");
            }
            s
        }
        None => "-".to_string(),
    };
    for word in row.plan_flags() {
        plan.push_str(&format!(" [{word}]"));
    }
    [
        row.attention.label().to_string(),
        visible(&row.id()),
        visible(&ready),
        plan,
        row.failures.to_string(),
        visible(&row.interval),
        visible(&short_revision(&row.revisions.applied)),
    ]
}

/// `main@sha1:0a1b2c3d4e5f…` → `main@sha1:0a1b2c3`: enough to recognise it.
fn short_revision(rev: &str) -> String {
    if rev.is_empty() {
        return "-".to_string();
    }
    let (head, hash) = match rev.rsplit_once(':').or_else(|| rev.rsplit_once('/')) {
        Some((h, hash)) => (h, hash),
        None => return rev.to_string(),
    };
    let sep = &rev[head.len()..head.len() + 1];
    format!("{head}{sep}{}", hash.chars().take(7).collect::<String>())
}

/// What a workspace that needs a person needs, in a few lines.
fn details(out: &mut String, row: &Row) {
    let _ = writeln!(out, "{} — {}", visible(&row.id()), row.attention.label());
    if !row.ready.message.is_empty() {
        let _ = writeln!(out, "  Ready: {}", visible(&row.ready.message));
    }
    if row.failures > 0 {
        let _ = writeln!(
            out,
            "  {} failed reconciliation{} since the last success",
            row.failures,
            if row.failures == 1 { "" } else { "s" }
        );
    }
    if let Some(lock) = &row.lock {
        let _ = writeln!(
            out,
            "  State lock held{}",
            if lock.is_empty() {
                String::new()
            } else {
                format!(
                    ": {} (force-unlock with spec.tfstate.lockIdentifier)",
                    visible(lock)
                )
            }
        );
    }
    if let Some(drift) = &row.drift {
        let _ = writeln!(
            out,
            "  Drift detected{}{}",
            drift
                .detected_at
                .as_deref()
                .map_or(String::new(), |at| format!(" at {}", visible(at))),
            drift
                .summary
                .as_deref()
                .map_or(String::new(), |s| format!("; {s}"))
        );
        for r in &drift.resources {
            let planned = if r.action == "no-op" {
                "the plan leaves it".to_string()
            } else {
                format!("plan: {}", r.action)
            };
            let _ = writeln!(
                out,
                "    {}  {}",
                visible(&r.address),
                match &r.outside {
                    Some(what) => format!("{what} outside Terraform; {planned}"),
                    None => planned,
                }
            );
        }
        if drift.cut {
            let _ = writeln!(
                out,
                "    … the controller cut its message: more resources may have drifted"
            );
        }
        if let Some(why) = &drift.unreadable {
            let _ = writeln!(out, "    the drift plan could not be read: {why}");
        }
    }
    if let Some(p) = &row.pending
        && p.awaits_approval
    {
        let _ = writeln!(
            out,
            "  Approve with: kubectl patch terraform {} -n {} --type merge -p '{{\"spec\":{{\"approvePlan\":\"{}\"}}}}'",
            visible(&row.name),
            visible(&row.namespace),
            visible(&p.plan_id)
        );
    }
    for note in &row.notes {
        let _ = writeln!(out, "  {}", visible(note));
    }
    for (_, label) in &row.links {
        let _ = writeln!(out, "  Stored with it: {}", visible(label));
    }
}
