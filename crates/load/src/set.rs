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
//!
//! [`expand`] is the one entry point for files opened together: it unpacks archives
//! (`crate::archive`, one archive inside another at most), decodes each file as the one-plan path
//! does (`crate::decode`), splits a text that holds several plans (plan JSON documents one after
//! another, an Atlantis or digger PR comment of several projects, a Terragrunt `run --all plan`
//! log whose lines name their unit) and names every plan. It never reads a plan: each
//! [`Member`] is then opened by the one-plan path, which judges it with its precise errors. What
//! is clearly not a plan (binary, an image, Terraform configuration, a lock file, a README in an
//! archive) is a problem, with a short reason, never a member.

use std::ops::Range;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use crate::archive::{self, Budget};
use crate::decode::{self, CiCleaning, clean_ci_line};
use crate::error::ArchiveLimit;
use crate::{LoadError, plan_log, text_plan, yaml};

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
    /// The name a reviewer knows it by: its path without what all share ([`names`]), or the
    /// project or unit a comment or log names it by.
    pub name: String,
    /// Its text, decoded (gzip, UTF-16, CI wrappers undone); a section of a text that holds
    /// several plans.
    pub text: String,
}

/// What files opened together hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expanded {
    /// The plans, in the order the files were given; an archive's in path order.
    pub members: Vec<Member>,
    /// What was left out as clearly not a plan: (file or entry name, why it was skipped).
    pub problems: Vec<(String, String)>,
}

/// A file (or archive entry) that may hold plans, before it is named.
struct Found {
    path: String,
    text: String,
}

/// Opens files given together, each `(path as the user gave it, bytes)`: unpacks archives,
/// decodes each file, splits a text that holds several plans and names every plan (see the module
/// documentation). Members keep the order the files were given in, an archive's entries their
/// path order. A text of one plan is one member named after its file; a section of a text is
/// named `FILE/SECTION` when several files hold plans, else `SECTION`.
///
/// Fails only when an archive passes a limit of what is unpacked in memory
/// ([`LoadError::ArchiveTooLarge`]): then nothing is opened. A damaged archive, a binary or an
/// empty file is a problem, not a failure.
pub fn expand(files: Vec<(String, Vec<u8>)>) -> Result<Expanded, LoadError> {
    expand_with(files, &archive::unpack_within)
}

/// How an archive is unpacked: [`archive::unpack_within`], or (in the browser) the readers'
/// part doing it (`Readers::unpack`).
pub type Unpack<'u> =
    &'u dyn Fn(&[u8], &str, &mut Budget) -> Result<Vec<archive::Entry>, LoadError>;

/// [`expand`] with archives unpacked by `unpack`.
pub fn expand_with(files: Vec<(String, Vec<u8>)>, unpack: Unpack) -> Result<Expanded, LoadError> {
    let mut budget = Budget::default();
    let alone = files.len() == 1;
    let mut found = Vec::new();
    let mut problems = Vec::new();
    for (path, bytes) in files {
        let mut gather = Gather {
            unpack,
            budget: &mut budget,
            found: &mut found,
            problems: &mut problems,
            alone,
        };
        gather.file(path, bytes, 0)?;
    }
    let paths: Vec<&str> = found.iter().map(|f| f.path.as_str()).collect();
    let file_names = names(&paths);
    let several = found.len() > 1;
    let mut members = Vec::new();
    for (f, file_name) in found.into_iter().zip(file_names) {
        match sections(&f.text) {
            Some(sections) => members.extend(sections.into_iter().map(|(section, text)| Member {
                name: if several {
                    format!("{file_name}/{section}")
                } else {
                    section
                },
                text,
            })),
            None => members.push(Member {
                name: file_name,
                text: f.text,
            }),
        }
    }
    number_twins(members.iter_mut().map(|m| &mut m.name));
    Ok(Expanded { members, problems })
}

/// The state of one [`expand`].
struct Gather<'a> {
    unpack: Unpack<'a>,
    budget: &'a mut Budget,
    found: &'a mut Vec<Found>,
    problems: &'a mut Vec<(String, String)>,
    /// One file given, and not an archive: whatever text it is, the one-plan path says what.
    alone: bool,
}

impl Gather<'_> {
    /// One file or archive entry, `depth` archives deep.
    fn file(&mut self, path: String, bytes: Vec<u8>, depth: usize) -> Result<(), LoadError> {
        if left_out(&path) {
            return Ok(());
        }
        if let Some(kind) = archive::kind(&bytes) {
            return self.archive(path, &bytes, kind, depth);
        }
        if let Some(why) = not_a_plan_by_name(&path).or_else(|| not_text(&bytes)) {
            self.problems.push((path, why.to_string()));
            return Ok(());
        }
        let stored = bytes.len();
        let text = match decode::decode(bytes) {
            Ok(decoded) => decoded.text,
            Err(LoadError::NotUtf8 { .. }) => {
                self.problems
                    .push((path, "binary, not text: not a plan".to_string()));
                return Ok(());
            }
            Err(e) => {
                self.problems.push((path, e.to_string()));
                return Ok(());
            }
        };
        if depth > 0 {
            // A `.gz` in an archive inflates outside the archive's own figures: it counts too.
            let grown = (text.len() as u64).saturating_sub(stored as u64);
            if grown > self.budget.left {
                return Err(LoadError::ArchiveTooLarge {
                    archive: path.clone(),
                    limit: ArchiveLimit::Bytes {
                        entry: path,
                        size: grown,
                        lied: false,
                        left: self.budget.left,
                        limit: archive::MAX_UNPACKED,
                        compressed: stored as u64,
                    },
                });
            }
            self.budget.left -= grown;
        }
        if text.trim().is_empty() {
            self.problems
                .push((path, "empty: it holds no plan".to_string()));
            return Ok(());
        }
        let alone = self.alone && depth == 0;
        if !alone
            && let Some(why) = not_a_plan_text(&text)
            && sections(&text).is_none()
        {
            self.problems.push((path, why));
            return Ok(());
        }
        self.found.push(Found { path, text });
        Ok(())
    }

    /// An archive: its entries, each as a file of a folder named after the archive.
    fn archive(
        &mut self,
        path: String,
        bytes: &[u8],
        kind: archive::Kind,
        depth: usize,
    ) -> Result<(), LoadError> {
        if depth >= 2 {
            let why = LoadError::ArchiveTooLarge {
                archive: path.clone(),
                limit: ArchiveLimit::Nesting {
                    entry: path.clone(),
                },
            };
            self.problems.push((path, why.to_string()));
            return Ok(());
        }
        let entries = match (self.unpack)(bytes, &path, self.budget) {
            Ok(entries) => entries,
            Err(e @ LoadError::BadArchive { .. }) => {
                self.problems.push((path, e.to_string()));
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        // Terraform's binary plan file is a zip of its own: say what it is, not what it holds.
        if kind == archive::Kind::Zip
            && entries.iter().any(|e| e.path == "tfplan")
            && entries.iter().any(|e| e.path.starts_with("tfstate"))
        {
            self.problems.push((
                path,
                "Terraform's binary plan file: open the output of `terraform show -json \
                 PLANFILE` instead"
                    .to_string(),
            ));
            return Ok(());
        }
        if entries.is_empty() {
            self.problems
                .push((path, "an archive with no files in it".to_string()));
            return Ok(());
        }
        let folder = without_extension(&path, kind).to_string();
        for entry in entries {
            self.file(format!("{folder}/{}", entry.path), entry.bytes, depth + 1)?;
        }
        Ok(())
    }
}

/// A path left out without a word: macOS's `__MACOSX/` and `._*` files, `.terraform/` folders.
fn left_out(path: &str) -> bool {
    let parts: Vec<&str> = path.split(['/', '\\']).collect();
    let Some((file, dirs)) = parts.split_last() else {
        return true;
    };
    file.starts_with("._") || dirs.iter().any(|d| *d == "__MACOSX" || *d == ".terraform")
}

/// An archive's path without its kind's extension (`plans.tar.gz` → `plans`).
fn without_extension(path: &str, kind: archive::Kind) -> &str {
    kind.extensions()
        .iter()
        .find_map(|ext| {
            let cut = path.len().checked_sub(ext.len())?;
            (path.is_char_boundary(cut) && path[cut..].eq_ignore_ascii_case(ext))
                .then(|| &path[..cut])
        })
        .filter(|p| !p.is_empty())
        .unwrap_or(path)
}

/// Why a file is not a plan, when its name says so.
fn not_a_plan_by_name(path: &str) -> Option<&'static str> {
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let file = file.to_ascii_lowercase();
    if file == ".terraform.lock.hcl" {
        Some("Terraform's provider lock file, not a plan")
    } else if file.ends_with(".tf") || file.ends_with(".tf.json") || file.ends_with(".tofu") {
        Some("Terraform configuration, not a plan")
    } else if file.ends_with(".tfvars") || file.ends_with(".tfvars.json") {
        Some("Terraform variables, not a plan")
    } else if file.ends_with(".hcl") {
        Some("HCL configuration (terragrunt.hcl and the like), not a plan")
    } else {
        None
    }
}

/// Why bytes are not text at all, when their first bytes say so.
fn not_text(bytes: &[u8]) -> Option<&'static str> {
    const KNOWN: [(&[u8], &str); 7] = [
        (b"\x89PNG", "an image (PNG), not a plan"),
        (b"\xFF\xD8\xFF", "an image (JPEG), not a plan"),
        (b"GIF8", "an image (GIF), not a plan"),
        (b"%PDF", "a PDF document, not a plan"),
        (b"\x7FELF", "a program (ELF), not a plan"),
        (b"\xCF\xFA\xED\xFE", "a program (Mach-O), not a plan"),
        (b"MZ", "a program (Windows), not a plan"),
    ];
    KNOWN
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic))
        .map(|(_, why)| *why)
}

/// Why a text that is not the only file given is not a plan: it holds nothing the one-plan path
/// reads (JSON of any kind, a plan log, Kubernetes YAML, a text plan, a redacted link), or says
/// what else it is (an apply's output, another Atlantis command's comment).
fn not_a_plan_text(text: &str) -> Option<String> {
    let start = text.trim_start();
    if start.starts_with(['{', '['])
        || plan_log::looks_like_plan_log(text)
        || planlens_model::redaction::looks_redacted(text)
        || yaml::looks_like_kube_yaml(text)
        || text_plan::looks_like_text_plan(text)
    {
        return None;
    }
    Some(match text_plan::other_text(text) {
        Some(what) => LoadError::NotAPlan(what).to_string(),
        None => "no plan in it: no plan JSON, plan log or plan text".to_string(),
    })
}

/// Numbers names that repeat: the second `prod` becomes `prod (2)` (or the next number free, when
/// a name such as `prod (2)` is already taken).
fn number_twins<'a>(names: impl Iterator<Item = &'a mut String>) {
    let names: Vec<&mut String> = names.collect();
    let mut taken: std::collections::HashSet<String> =
        names.iter().map(|n| n.to_string()).collect();
    let mut seen = std::collections::HashSet::<String>::new();
    for name in names {
        if seen.insert(name.clone()) {
            continue;
        }
        let free = (2..)
            .map(|n| format!("{name} ({n})"))
            .find(|candidate| !taken.contains(candidate))
            .unwrap_or_default();
        taken.insert(free.clone());
        seen.insert(free.clone());
        *name = free;
    }
}

/// The plans a text holds, each `(section name, text)`, when it holds more than one: plan JSON
/// documents one after another, an Atlantis or digger comment of several projects, a Terragrunt
/// log whose lines name their unit.
fn sections(text: &str) -> Option<Vec<(String, String)>> {
    if let Some(ranges) = split_documents(text) {
        return Some(
            ranges
                .into_iter()
                .enumerate()
                .map(|(i, r)| (format!("plan {}", i + 1), text[r].to_string()))
                .collect(),
        );
    }
    if text.trim_start().starts_with(['{', '[']) {
        return None;
    }
    [atlantis_projects, digger_projects, terragrunt_units]
        .iter()
        .find_map(|split| split(text).filter(|s| s.len() > 1))
}

/// Each line of `text` with the byte offset it starts at.
fn lines_at(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    text.split_inclusive('\n').map(move |line| {
        let start = at;
        at += line.len();
        (start, line.trim_end_matches(['\n', '\r']))
    })
}

/// The projects of an Atlantis comment: each from its heading (`### 1. project: `p` dir: `d`
/// workspace: `w``) to the next, without the `---` rule after it and what follows (the footer).
/// Named by the project's name, else its directory and, when not `default`, its workspace.
fn atlantis_projects(text: &str) -> Option<Vec<(String, String)>> {
    let heads: Vec<(usize, String)> = lines_at(text)
        .filter_map(|(at, line)| atlantis_heading(line).map(|name| (at, name)))
        .collect();
    Some(cut_at(text, heads, |section| {
        // The template closes each project with a `---` line; the footer follows the last one.
        let mut end = section.len();
        for (at, line) in lines_at(section) {
            if line.trim() == "---" {
                end = at;
            }
        }
        &section[..end]
    }))
}

/// The name of an Atlantis project heading, `### N. [project: `P` ]dir: `D` workspace: `W``.
fn atlantis_heading(line: &str) -> Option<String> {
    let rest = line.trim().strip_prefix("### ")?;
    let (number, rest) = rest.split_once(". ")?;
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let field = |key: &str| -> Option<&str> {
        let from = rest.find(&format!("{key}: `"))? + key.len() + 3;
        let len = rest[from..].find('`')?;
        Some(&rest[from..from + len])
    };
    let dir = field("dir");
    if let Some(project) = field("project").filter(|p| !p.is_empty()) {
        return Some(project.to_string());
    }
    let dir = dir.filter(|d| !d.is_empty())?;
    Some(match field("workspace") {
        Some(ws) if ws != "default" && !ws.is_empty() => format!("{dir} ({ws})"),
        _ => dir.to_string(),
    })
}

/// The projects of a digger comment: each `<details><summary>Plan for PROJECT</summary>` (also
/// `Plan for <b>PROJECT</b>`, `**PROJECT**`, and `plan for PROJECT 2025-01-02 10:00:00 (UTC)`)
/// to the next, up to the end of the first code block after it (the plan's output).
fn digger_projects(text: &str) -> Option<Vec<(String, String)>> {
    let heads: Vec<(usize, String)> = lines_at(text)
        .filter_map(|(at, line)| digger_heading(line).map(|name| (at, name)))
        .collect();
    Some(cut_at(text, heads, |section| {
        let mut fences = 0;
        for (at, line) in lines_at(section) {
            if line.trim_start().starts_with("```") {
                fences += 1;
                if fences == 2 {
                    return &section[..at + line.len()];
                }
            }
        }
        section
    }))
}

/// The project a digger `<summary>` line names, when it is a plan's.
fn digger_heading(line: &str) -> Option<String> {
    let from = line.find("<summary>")? + "<summary>".len();
    let to = from + line[from..].find("</summary>")?;
    let summary = line[from..to]
        .replace("<b>", "")
        .replace("</b>", "")
        .replace("**", "");
    let summary = summary.trim();
    let project = summary
        .get(..9)
        .filter(|head| head.eq_ignore_ascii_case("plan for "))
        .map(|_| &summary[9..])?;
    // The run's time follows the name in newer comments: `plan for api 2025-01-02 10:00:00 (UTC)`.
    let words: Vec<&str> = project.split(' ').collect();
    let date = |w: &str| {
        w.len() == 10
            && w.as_bytes()[4] == b'-'
            && w.bytes().filter(u8::is_ascii_digit).count() == 8
    };
    let end = words.iter().position(|w| date(w)).unwrap_or(words.len());
    let name = words[..end].join(" ");
    // A lock id names the repository too: `org/repo#project`.
    let name = name
        .rsplit_once('#')
        .map_or(name.as_str(), |(_, p)| p)
        .trim();
    (!name.is_empty()).then(|| name.to_string())
}

/// The sections of `text` from each heading (start, name) to the next, each cut by `keep`.
fn cut_at(
    text: &str,
    heads: Vec<(usize, String)>,
    keep: impl Fn(&str) -> &str,
) -> Vec<(String, String)> {
    let ends: Vec<usize> = heads
        .iter()
        .skip(1)
        .map(|(at, _)| *at)
        .chain([text.len()])
        .collect();
    heads
        .into_iter()
        .zip(ends)
        .map(|((at, name), end)| (name, keep(&text[at..end]).trim_end().to_string()))
        .collect()
}

/// The units of a Terragrunt `run --all plan` log whose lines name their unit: Terragrunt 0.67 and
/// later (`14:20:38.431 STDOUT [dev/network] terraform: …`, with or without the time, `tofu` or a
/// path to the binary), and earlier ones with `--terragrunt-include-module-prefix`
/// (`[/repo/live/dev/network] …`). Each unit's text is its own lines, in order; Terragrunt's own
/// messages (`INFO`, `WARN`, …) are left out. Named by the unit's path without what all share. A
/// log without unit prefixes cannot be told apart (its units' outputs are interleaved): it stays
/// one plan.
fn terragrunt_units(text: &str) -> Option<Vec<(String, String)>> {
    let mut units: Vec<(String, String)> = Vec::new();
    let mut cleaning = CiCleaning::default();
    let mut read = 0;
    for raw in text.lines() {
        let Some(line) = clean_ci_line(raw, &mut cleaning) else {
            continue;
        };
        let Some((unit, message)) = terragrunt_line(&line) else {
            continue;
        };
        read += 1;
        let at = match units.iter().position(|(u, _)| u == unit) {
            Some(at) => at,
            None => {
                units.push((unit.to_string(), String::new()));
                units.len() - 1
            }
        };
        let out = &mut units[at].1;
        out.push_str(message);
        out.push('\n');
    }
    if units.len() < 2 || read < 4 {
        return None;
    }
    // Names: the units' paths without the directories all share.
    let paths: Vec<String> = units.iter().map(|(u, _)| format!("{u}/plan")).collect();
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    Some(
        names(&paths)
            .into_iter()
            .zip(units)
            .map(|(name, (_, text))| (name, text))
            .collect(),
    )
}

/// The unit and message of a line of a Terragrunt log that is a unit's Terraform output.
fn terragrunt_line(line: &str) -> Option<(&str, &str)> {
    let mut rest = line.trim_start();
    // The time, `14:20:38.431`.
    if let Some((word, after)) = rest.split_once(' ')
        && word.contains(':')
        && word
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b':' || b == b'.')
    {
        rest = after.trim_start();
    }
    let mut level = None;
    if let Some((word, after)) = rest.split_once(' ')
        && [
            "STDOUT", "STDERR", "INFO", "WARN", "ERROR", "DEBUG", "TRACE",
        ]
        .iter()
        .any(|l| l.eq_ignore_ascii_case(word))
    {
        level = Some(word.to_ascii_uppercase());
        rest = after.trim_start();
    }
    let rest = rest.strip_prefix('[')?;
    let close = rest.find(']')?;
    let unit = &rest[..close];
    if unit.is_empty() || unit.contains(' ') {
        return None;
    }
    let rest = &rest[close + 1..];
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    // The binary that wrote the line: `terraform:`, `tofu:`, `/usr/bin/terraform:`.
    let (binary, message) = match rest.split_once(':') {
        Some((word, after)) if is_binary(word) => (true, after.strip_prefix(' ').unwrap_or(after)),
        _ => (false, rest),
    };
    match level.as_deref() {
        Some("STDOUT" | "STDERR") => Some((unit, message)),
        // Terragrunt's own messages.
        Some(_) => None,
        // Without a level: a unit's output only when a binary or a directory says so (a
        // Markdown link, `[text](url)`, is neither).
        None => {
            (binary || (unit.contains('/') && !rest.starts_with('('))).then_some((unit, message))
        }
    }
}

/// Whether a word is the path of Terraform's or OpenTofu's binary.
fn is_binary(word: &str) -> bool {
    if word.contains(' ') {
        return false;
    }
    let file = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let file = file.strip_suffix(".exe").unwrap_or(file);
    matches!(file, "terraform" | "tofu" | "terraform-bin")
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
