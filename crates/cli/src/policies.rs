//! `--policy FILE_OR_DIR…` of `planlens check` (and the subcommands that share its evaluation):
//! Rego policy files read from disk, evaluated beside the TOML rules, and `--verify` (their
//! `test_` rules, like `conftest verify` / `opa test`). A thin shell over `planlens_policy`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use planlens_model::Document;
use planlens_policy::{self as policy, PolicyError, PolicyFile, Shape};
use planlens_rules::Evaluation;

/// What the command line says about policies.
#[derive(Debug, Default)]
pub struct PolicyArgs {
    /// `--policy FILE_OR_DIR`, repeated.
    pub paths: Vec<String>,
    /// `--namespace NS`, repeated (conftest's namespaces; default `main`).
    pub namespaces: Vec<String>,
    /// `--input conftest|spacelift|scalr|opa`.
    pub input: Option<String>,
    /// `--verify`: run the policies' tests instead of a plan.
    pub verify: bool,
}

impl PolicyArgs {
    /// Takes the option `arg` (reading its value from `rest`) when it is a policy option;
    /// `Some(Err(()))` for one that is malformed, `None` for another option.
    pub fn take(
        &mut self,
        arg: &str,
        rest: &mut std::slice::Iter<'_, &str>,
    ) -> Option<Result<(), ()>> {
        let value = match arg {
            "--policy" | "--namespace" | "--input" => rest.next().map(|v| v.to_string()),
            "--verify" => {
                self.verify = true;
                return Some(Ok(()));
            }
            _ => return None,
        };
        let Some(value) = value else {
            return Some(Err(()));
        };
        match arg {
            "--policy" => self.paths.push(value),
            "--namespace" => self.namespaces.push(value),
            _ if Shape::from_key(&value).is_none() || self.input.replace(value).is_some() => {
                return Some(Err(()));
            }
            _ => {}
        }
        Some(Ok(()))
    }

    fn options(&self) -> policy::Options {
        policy::Options {
            namespaces: self.namespaces.clone(),
            shape: self.input.as_deref().and_then(Shape::from_key),
            time_limit_ms: None,
        }
    }
}

/// Every `.rego` file of the paths: a file as given, a directory's files (recursively) in name
/// order. Exit code 3 with a message when one cannot be read.
fn read(paths: &[String]) -> Result<Vec<PolicyFile>, ExitCode> {
    fn walk(path: &Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
        if path.is_dir() {
            let mut entries: Vec<_> = std::fs::read_dir(path)?
                .map(|e| e.map(|e| e.path()))
                .collect::<Result<_, _>>()?;
            entries.sort();
            for entry in entries {
                if entry.is_dir() || entry.extension().is_some_and(|e| e == "rego") {
                    walk(&entry, out)?;
                }
            }
        } else {
            out.push(path.to_path_buf());
        }
        Ok(())
    }
    let mut files = Vec::new();
    for path in paths {
        let mut found = Vec::new();
        if let Err(e) = walk(Path::new(path), &mut found) {
            eprintln!("planlens: cannot read policy {path}: {e}");
            return Err(ExitCode::from(3));
        }
        if found.is_empty() {
            eprintln!("planlens: {path}: no .rego files");
            return Err(ExitCode::from(3));
        }
        for file in found {
            match std::fs::read_to_string(&file) {
                Ok(text) => files.push(PolicyFile::new(file.to_string_lossy(), text)),
                Err(e) => {
                    eprintln!("planlens: cannot read policy {}: {e}", file.display());
                    return Err(ExitCode::from(3));
                }
            }
        }
    }
    Ok(files)
}

/// Prints policy errors, as OPA prints them with the column added; a policy that does not
/// compile never counts as passing (exit code 3).
fn report(errors: &[PolicyError]) -> ExitCode {
    for e in errors {
        eprintln!("planlens: {e}");
    }
    let compile = errors.iter().any(PolicyError::is_compile_error);
    eprintln!(
        "planlens: {} policy error{}; {}",
        errors.len(),
        if errors.len() == 1 { "" } else { "s" },
        if compile {
            "no policy was evaluated"
        } else {
            "the policies gave no verdict"
        }
    );
    ExitCode::from(3)
}

/// `evaluation` with the findings of the policies on `doc` added (none asked: unchanged).
pub fn apply(
    args: &PolicyArgs,
    doc: &Document,
    evaluation: Evaluation,
    labels: &BTreeMap<String, String>,
) -> Result<Evaluation, ExitCode> {
    if args.paths.is_empty() {
        return Ok(evaluation);
    }
    let files = read(&args.paths)?;
    let options = args.options();
    let context = policy::Context {
        labels,
        name: &doc.name,
    };
    let prepared = policy::prepare(&files, doc.text(), &context, &options);
    let outcome =
        policy::engine::run(&prepared.request, &prepared.input_refs()).map_err(|e| report(&e))?;
    for (report, shape) in outcome.files.iter().zip(&prepared.shapes) {
        if let Some(shape) = shape {
            eprintln!(
                "planlens: note: {}: {} input, Rego {}, package {}",
                report.name,
                shape.label(),
                report.syntax.key(),
                report.package
            );
        }
    }
    Ok(policy::judge(evaluation, &outcome, doc))
}

/// `planlens check --verify --policy …`: every `test_` rule, PASS or FAIL; exit 0 when all pass,
/// 1 when one fails, 3 when a policy does not compile or there are no tests.
pub fn verify(args: &PolicyArgs, json: bool) -> ExitCode {
    let files = match read(&args.paths) {
        Ok(files) => files,
        Err(code) => return code,
    };
    let outcome = match policy::engine::verify(&files, args.options().time_limit_ms) {
        Ok(outcome) => outcome,
        Err(errors) => return report(&errors),
    };
    let failed = outcome.tests.iter().filter(|t| !t.passed).count();
    if json {
        println!(
            "{}",
            serde_json::json!({"tests": outcome.tests, "passed": outcome.tests.len() - failed, "failed": failed})
        );
    } else {
        for t in &outcome.tests {
            let status = if t.passed { "PASS" } else { "FAIL" };
            println!("{status} {}: {}", t.file, t.rule);
            if let Some(error) = &t.error {
                println!("     {error}");
            }
        }
        println!(
            "{} tests, {} passed, {} failed",
            outcome.tests.len(),
            outcome.tests.len() - failed,
            failed
        );
    }
    if outcome.tests.is_empty() {
        eprintln!("planlens: no test_ rules in the policies");
        ExitCode::from(3)
    } else if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
