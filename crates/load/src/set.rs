//! A pull request's plans, opened together: the names a reviewer recognises them by, and the plans
//! one text holds one after another. The first pieces of a set of plans (issue 28): each plan is
//! then read by the one-plan path as any file is.
//!
//! [`names`] turns the paths of files opened together (a Terragrunt `--json-out-dir` tree, a CI
//! layout such as `stacks/prod/network/plan.json`, an archive's entries) into names without what
//! they all share: the common directories, and the file name when every plan has the same one
//! (`tfplan.json`), else its extension. [`split_documents`] finds the plan JSON documents in a text
//! that holds several, concatenated or as JSON Lines; a text of one document, or of anything that
//! is not plan JSON (a plan log is JSON Lines too), is not split.

use std::ops::Range;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

/// Extensions a plan's file name loses in its name, outermost first (`plan.json.gz` → `plan`).
const EXTENSIONS: [&str; 7] = [".gz", ".json", ".jsonl", ".txt", ".log", ".md", ".tfplan"];

/// The name of each path (in order): without the directories all of them share, without the file
/// name when all have the same one, else without its extensions. A path whose name would be empty
/// (a single file) is named by its file name's stem. Paths may use `/` or `\`; names use `/`.
/// Two paths that would get the same name are told apart by a number (`prod (2)`).
pub fn names(paths: &[&str]) -> Vec<String> {
    let split: Vec<Vec<&str>> = paths
        .iter()
        .map(|p| {
            p.split(['/', '\\'])
                .filter(|c| !c.is_empty() && *c != ".")
                .collect()
        })
        .collect();
    let dirs = |parts: &Vec<&str>| parts.len().saturating_sub(1);
    // Directories every path shares, from the start.
    let common = match split.first() {
        Some(first) if split.len() > 1 => (0..dirs(first))
            .take_while(|&i| split.iter().all(|p| i < dirs(p) && p[i] == first[i]))
            .count(),
        _ => split.first().map_or(0, dirs),
    };
    let same_file = split.len() > 1
        && split
            .iter()
            .all(|p| p.last().is_some() && p.last() == split[0].last());
    // With one file name for all, each keeps at least the directory it is in.
    let common = if same_file {
        let shallowest = split.iter().map(dirs).min().unwrap_or(0);
        common.min(shallowest.saturating_sub(1))
    } else {
        common
    };
    let mut out: Vec<String> = split
        .iter()
        .map(|parts| {
            let Some((file, dir)) = parts.split_last() else {
                return String::new();
            };
            let mut kept: Vec<&str> = dir[common.min(dir.len())..].to_vec();
            let stem = stem(file);
            if !same_file || kept.is_empty() {
                kept.push(stem);
            }
            kept.join("/")
        })
        .collect();
    // The same name twice: the second is numbered, and so on.
    let mut seen = std::collections::HashMap::<String, usize>::new();
    for name in &mut out {
        let n = seen.entry(name.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            *name = format!("{name} ({n})");
        }
    }
    out
}

/// A file name without the extensions a plan's file carries.
fn stem(file: &str) -> &str {
    let mut s = file;
    for ext in EXTENSIONS {
        if s.len() > ext.len() && s.to_ascii_lowercase().ends_with(ext) {
            s = &s[..s.len() - ext.len()];
        }
    }
    s
}

/// What tells a plan's JSON from other JSON: `terraform show -json` writes `format_version` and at
/// least one of these at the top level (a state's JSON has `values`, a plan log's lines `@level`).
#[derive(Deserialize)]
struct PlanProbe {
    format_version: Option<IgnoredAny>,
    planned_values: Option<IgnoredAny>,
    resource_changes: Option<IgnoredAny>,
    prior_state: Option<IgnoredAny>,
    configuration: Option<IgnoredAny>,
    #[serde(rename = "@level")]
    level: Option<IgnoredAny>,
}

impl PlanProbe {
    fn is_plan(&self) -> bool {
        self.format_version.is_some()
            && self.level.is_none()
            && (self.planned_values.is_some()
                || self.resource_changes.is_some()
                || self.prior_state.is_some()
                || self.configuration.is_some())
    }
}

/// Where each plan JSON document of `text` is, when it holds more than one one after another
/// (concatenated, or one per line as JSON Lines), with nothing but whitespace between them; `None`
/// when it holds one, or anything that is not a plan's JSON.
pub fn split_documents(text: &str) -> Option<Vec<Range<usize>>> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<&RawValue>();
    let mut ranges = Vec::new();
    let mut start = 0;
    while let Some(next) = stream.next() {
        let raw = next.ok()?;
        let end = stream.byte_offset();
        // One document and nothing after it (a plan, the usual case): not split, not probed.
        if ranges.is_empty() && text[end..].trim().is_empty() {
            return None;
        }
        let probe: PlanProbe = serde_json::from_str(raw.get()).ok()?;
        if !probe.is_plan() {
            return None;
        }
        let begins = start + (text[start..end].len() - text[start..end].trim_start().len());
        ranges.push(begins..end);
        start = end;
    }
    (ranges.len() > 1).then_some(ranges)
}

/// One plan of a set, before it is read by the one-plan path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The name a reviewer knows it by.
    pub name: String,
    /// Its text, decoded.
    pub text: String,
}

/// What files opened together hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expanded {
    /// The plans, in the order the files were given.
    pub members: Vec<Member>,
    /// Files skipped: (name, why).
    pub problems: Vec<(String, String)>,
}

/// The plans files opened together hold: each decoded, a text of several plan JSON documents
/// split, each named ([`names`]).
pub fn expand(files: Vec<(String, Vec<u8>)>) -> Result<Expanded, crate::LoadError> {
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let named = names(&paths);
    let mut out = Expanded::default();
    let several = files.len() > 1;
    for ((path, bytes), name) in files.into_iter().zip(named) {
        let text = match crate::decode::decode(bytes) {
            Ok(d) => d.text,
            Err(e) => {
                out.problems.push((path, e.to_string()));
                continue;
            }
        };
        match split_documents(&text) {
            Some(ranges) => {
                for (i, r) in ranges.into_iter().enumerate() {
                    let section = format!("plan {}", i + 1);
                    out.members.push(Member {
                        name: if several {
                            format!("{name}/{section}")
                        } else {
                            section
                        },
                        text: text[r].to_string(),
                    });
                }
            }
            None => out.members.push(Member { name, text }),
        }
    }
    Ok(out)
}

/// The plans a set link carries (`Fragment::set`, its payload decoded): `[{"name", "text"}, …]`.
pub fn read_payload(json: &str) -> Result<Vec<Member>, crate::LoadError> {
    #[derive(Deserialize)]
    struct Carried {
        name: String,
        text: String,
    }
    let list: Vec<Carried> =
        serde_json::from_str(json).map_err(|e| crate::LoadError::InvalidReport {
            what: "set of plans".to_string(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
    Ok(list
        .into_iter()
        .map(|c| Member {
            name: c.name,
            text: c.text,
        })
        .collect())
}
