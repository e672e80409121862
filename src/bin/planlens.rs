//! `planlens`: the command line for CI jobs, a thin shell over the core.
//!
//! ```text
//! planlens summary PLAN.json                     summary sentence, then one line per change
//! planlens graph PLAN.json [--format dot|json]    the dependency graph (default: dot)
//! ```
//! Exit codes: 0 success, 3 the input could not be read as a plan, 64 wrong usage.

use std::io::Write;
use std::process::ExitCode;

use planlens::graph::{DepGraph, EdgeSource};
use planlens::model::text::visible;
use planlens::model::{Document, RowSource, reason};
use planlens::{Summary, load_plan};

const USAGE: &str = "usage:
  planlens summary PLAN.json                     summary sentence, then one line per change
  planlens graph PLAN.json [--format dot|json]   dependency graph, edges from dependency to dependent
PLAN.json comes from `terraform show -json PLANFILE`; - reads standard input.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["summary", path] => summary(path),
        ["graph", path]
        | ["graph", path, "--format", "dot"]
        | ["graph", "--format", "dot", path] => graph(path, GraphFormat::Dot),
        ["graph", path, "--format", "json"] | ["graph", "--format", "json", path] => {
            graph(path, GraphFormat::Json)
        }
        ["--help" | "-h" | "help"] => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(64)
        }
    }
}

fn read_input(path: &str) -> Result<Vec<u8>, String> {
    if path == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))
    }
}

fn open(path: &str) -> Result<Document, String> {
    let bytes = read_input(path)?;
    let name = std::path::Path::new(path)
        .file_name()
        .map_or(path.into(), |n| n.to_string_lossy());
    load_plan(bytes, &name).map_err(|e| format!("{path}: {e}"))
}

/// Opens a plan for a subcommand, printing what went wrong (exit code 3) or the load warnings.
fn open_or_report(path: &str) -> Result<Document, ExitCode> {
    match open(path) {
        Ok(doc) => {
            for warning in &doc.warnings {
                eprintln!("planlens: warning: {warning}");
            }
            Ok(doc)
        }
        Err(message) => {
            eprintln!("planlens: {message}");
            Err(ExitCode::from(3))
        }
    }
}

/// Maps the result of writing to stdout to an exit code.
fn finish(result: std::io::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`planlens summary plan.json | head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("planlens: {e}");
            ExitCode::from(1)
        }
    }
}

enum GraphFormat {
    Dot,
    Json,
}

fn graph(path: &str, format: GraphFormat) -> ExitCode {
    let doc = match open_or_report(path) {
        Ok(doc) => doc,
        Err(code) => return code,
    };
    let graph = DepGraph::build(&doc);
    if graph.source != EdgeSource::Configuration {
        eprintln!(
            "planlens: warning: the plan has no configuration; edges come from the prior state's depends_on only and may be incomplete"
        );
    }
    let text = match format {
        GraphFormat::Dot => graph.to_dot(),
        GraphFormat::Json => graph.to_json() + "\n",
    };
    finish(std::io::stdout().lock().write_all(text.as_bytes()))
}

fn summary(path: &str) -> ExitCode {
    let doc = match open_or_report(path) {
        Ok(doc) => doc,
        Err(code) => return code,
    };
    let mut out = std::io::stdout().lock();
    let result = (|| -> std::io::Result<()> {
        writeln!(out, "{}", Summary::of(&doc).sentence())?;
        for row in &doc.rows {
            let change = doc.change(row);
            if !change.is_shown() {
                continue;
            }
            let mut line = format!("{:>3} {}", row.action.symbol(), visible(&change.address));
            if let Some(deposed) = &change.deposed {
                line.push_str(&format!(" (deposed object {})", visible(deposed)));
            }
            if let (true, Some(prev)) = (row.is_move, &change.previous_address) {
                line.push_str(&format!(" (moved from {})", visible(prev)));
            }
            if let Some(importing) = &change.change.importing {
                match &importing.id {
                    Some(id) => line.push_str(&format!(" (import id {})", visible(id))),
                    None => line.push_str(" (import)"),
                }
            }
            if matches!(row.source, RowSource::Deferred(_)) {
                line.push_str(" (deferred)");
            }
            if let Some(r) = &change.action_reason {
                line.push_str(&format!(" — {}", reason::describe(r)));
            }
            writeln!(out, "{line}")?;
        }
        Ok(())
    })();
    finish(result)
}
