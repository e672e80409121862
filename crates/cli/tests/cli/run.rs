//! Running the `planlens` binary as a CI job does, from the repository's root (the fixtures'
//! paths are relative to it): one way for every test of the binary.

use std::process::Command;

use crate::common;

/// `planlens ARGS…`: its exit code (-1 when a signal ended it), standard output and standard
/// error.
pub fn planlens(args: &[&str]) -> (i32, String, String) {
    planlens_with(args, |_| {})
}

/// `planlens` with the words of `line` (split at white space) as its arguments: the fixed
/// commands most tests run, one line each.
pub fn planlens_line(line: &str) -> (i32, String, String) {
    planlens_line_and(line, &[])
}

/// `planlens` with the words of `line` and then `more` (a temporary file's path, which may hold
/// white space) as its arguments.
pub fn planlens_line_and(line: &str, more: &[&str]) -> (i32, String, String) {
    let mut args: Vec<&str> = line.split_whitespace().collect();
    args.extend_from_slice(more);
    planlens(&args)
}

/// `planlens ARGS…` after `setup` has changed the command (standard input, environment).
pub fn planlens_with(args: &[&str], setup: impl FnOnce(&mut Command)) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_planlens"));
    command.args(args).current_dir(common::repo_dir());
    setup(&mut command);
    let out = command.output().expect("run planlens");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("planlens prints UTF-8"),
        String::from_utf8(out.stderr).expect("planlens prints UTF-8"),
    )
}
