//! Load errors, each with a message that says what the file is and what to do.

use std::fmt;

/// The largest file Planlens opens. Parsing keeps the text and its index in memory (about twice the
/// file size in WebAssembly, which never gives memory back), so a hard limit protects the tab.
pub const MAX_FILE_BYTES: usize = 300 * 1024 * 1024;

/// What a JSON file that is not a plan looks like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotAPlan {
    /// A `terraform plan -json` machine-readable log (JSON Lines): a detection result the loader
    /// acts on by converting the log; never returned to callers.
    PlanLog,
    /// A driftctl `scan --output json://` report: converted like [`NotAPlan::PlanLog`].
    Driftctl,
    /// A `terraform apply -json` (or `destroy -json`) log: what an apply did, not a plan to
    /// review. Refused, never read as a plan: its `apply_*` messages are not planned changes, so
    /// it would read as "No changes." and pass.
    ApplyLog,
    /// The human-readable output of `terraform apply` or `destroy` ("Apply complete! Resources:
    /// …"): what an apply did. Refused like [`NotAPlan::ApplyLog`].
    ApplyOutput,
    /// An Atlantis comment of another command than `plan` ("Ran Apply for …", "Ran Policy Check
    /// for …"): it holds no plan to review.
    AtlantisComment {
        /// The command, as the comment names it ("Apply", "Policy Check").
        command: String,
    },
    /// driftctl's text output ("Found missing resources:", "Found resources not covered by
    /// IaC:"): Planlens reads its JSON report.
    DriftctlText,
    /// A raw state file (`terraform.tfstate`).
    State,
    /// `terraform show -json` without a plan file: the current state.
    ShownState,
    /// `terraform providers schema -json`.
    ProviderSchemas,
    /// Plan keys present but no format_version: accepted with a warning, never an error.
    PlanWithoutVersion,
    /// The top level is not an object.
    NotAnObject {
        /// "an array", "a string", …
        found: &'static str,
    },
    /// An object with none of the keys we know.
    OtherJson {
        /// Its top-level keys.
        keys: Vec<String>,
    },
}

/// The limit an archive passed ([`LoadError::ArchiveTooLarge`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArchiveLimit {
    /// More entries than Planlens unpacks.
    Entries {
        /// How many it has (or, for a tar read as a stream, how many were read before stopping).
        found: usize,
        /// The limit.
        limit: usize,
    },
    /// An entry that would take the unpacked total past the limit.
    Bytes {
        /// The entry's path in the archive.
        entry: String,
        /// Its size as its header declares it, or, when `lied`, what was read of it before
        /// stopping (more than its header said).
        size: u64,
        /// Whether the entry held more than its header declared.
        lied: bool,
        /// Bytes still allowed when it was reached.
        left: u64,
        /// The limit on all entries together.
        limit: u64,
        /// The archive's own size.
        compressed: u64,
    },
    /// An archive inside an archive inside an archive.
    Nesting {
        /// The innermost archive's path.
        entry: String,
    },
}

/// Why a file could not be opened as a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// Zero bytes, or only whitespace.
    Empty,
    /// Over [`MAX_FILE_BYTES`].
    TooLarge {
        /// The file's size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// Text that starts as UTF-16 (PowerShell's `>` redirect writes it) but is not valid UTF-16:
    /// an odd number of bytes, or half of a surrogate pair.
    Utf16,
    /// A gzip file that could not be decompressed (damaged, or cut off).
    BadGzip {
        /// The decompressor's words.
        message: String,
    },
    /// A gzip file that decompresses to more than [`MAX_FILE_BYTES`]; decompression stopped
    /// there.
    GzipTooLarge {
        /// The compressed file's size.
        compressed: usize,
        /// The limit on the decompressed size.
        limit: usize,
    },
    /// Only the lines GitHub's setup-terraform wrapper writes around a command's output, and no
    /// output: Terraform printed nothing (it failed).
    OnlyWrapperLines {
        /// The exit code the wrapper reported, when it did.
        exit_code: Option<i32>,
    },
    /// Not UTF-8 text.
    NotUtf8 {
        /// 1-based line of the first bad byte.
        line: usize,
        /// 1-based column of the first bad byte.
        column: usize,
    },
    /// Not JSON.
    NotJson {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's words.
        message: String,
    },
    /// JSON that stops in the middle.
    Truncated {
        /// 1-based line where the text ends.
        line: usize,
        /// 1-based column where the text ends.
        column: usize,
    },
    /// Valid JSON, but something other than a plan.
    NotAPlan(NotAPlan),
    /// A plan log or driftctl report whose contents do not have that format's shape.
    InvalidReport {
        /// "driftctl report", …
        what: String,
        /// 1-based line (0 when unknown).
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's words.
        message: String,
    },
    /// Kubernetes objects of Flux's Terraform controller that do not open as one document (a list
    /// of workspaces, several plans, a missing chunk, bad base64 or gzip in a Secret,
    /// Terraform's binary plan file): `planlens_readers::kube` says what and why.
    Controller {
        /// The whole message.
        message: String,
    },
    /// tf-controller `Terraform` objects without a plan to open: the status of workspaces, which
    /// the fleet view shows (`fleet::Fleet`). The page opens such a file as a fleet.
    Workspaces {
        /// `namespace/name` of each object.
        ids: Vec<String>,
        /// For one object: what its Ready condition says and where its plan would be.
        detail: String,
    },
    /// YAML in the browser, whose first-visit module has no YAML reader: the worker turns plain
    /// YAML text into JSON with the lazily loaded `part-yaml` (`load::yaml::yaml_to_json`) before
    /// loading, so this is left for YAML it did not recognise (compressed, UTF-16). Native builds
    /// never return it.
    NeedsYamlReader,
    /// In the browser, a file one of the readers of `load::readers` reads (a text plan, a state,
    /// a plan log, a driftctl report, Kubernetes objects, files opened as a fleet) while the
    /// lazily loaded `part-readers` is not loaded: the app's readers return it, and the plan's
    /// worker then loads the part and opens the file again, so a user sees this only where the
    /// part cannot be loaded. `planlens_readers::Direct` never returns it.
    NeedsReaders {
        /// What the file is, e.g. "a Terraform state".
        what: &'static str,
    },
    /// A reader's refusal as the `part-readers` module wrote it: the message of the [`LoadError`]
    /// the reader gave, word for word (the app's readers, crates/part-readers).
    Reader {
        /// The whole message.
        message: String,
    },
    /// An archive (zip, tar, tar.gz) that passes a limit of what Planlens unpacks in memory
    /// (`load::archive`): nothing of it is opened.
    ArchiveTooLarge {
        /// The archive's name as the user gave it.
        archive: String,
        /// Which limit, and the figures.
        limit: ArchiveLimit,
    },
    /// An archive that cannot be unpacked (damaged, cut off, or a kind of zip entry Planlens does
    /// not read).
    BadArchive {
        /// The archive's name as the user gave it.
        archive: String,
        /// The unpacker's words.
        message: String,
    },
    /// A plan whose contents do not have the format's shape.
    InvalidPlan {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's words.
        message: String,
    },
}

const OPEN_A_PLAN: &str = "Save a plan with `terraform plan -out=plan.out` and open the output of \
                           `terraform show -json plan.out`.";

const SHOW_JSON: &str = "Planlens opens the output of `terraform show -json PLANFILE`, \
                         `terraform plan -json` logs and driftctl JSON reports";

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Empty => write!(f, "The file is empty. {SHOW_JSON}."),
            LoadError::TooLarge { bytes, limit } => write!(
                f,
                "The file is {}; Planlens opens plans up to {}. Split the plan (for example with \
                 -target) or use `planlens summary` on the command line.",
                megabytes(*bytes),
                megabytes(*limit)
            ),
            LoadError::Utf16 => write!(
                f,
                "The file starts as UTF-16 text (PowerShell's `>` writes that) but is damaged: an \
                 odd number of bytes or a broken character. Write it again, for example with \
                 `terraform show -json plan.out | Out-File -Encoding utf8 plan.json`."
            ),
            LoadError::BadGzip { message } => write!(
                f,
                "The file is gzip-compressed but cannot be decompressed ({message}): it is damaged \
                 or cut off. Was the download or copy complete? `gzip -t FILE` checks it."
            ),
            LoadError::GzipTooLarge { compressed, limit } => write!(
                f,
                "The file is gzip-compressed ({}) and decompresses to more than {}, the most \
                 Planlens opens. Split the plan (for example with -target).",
                megabytes(*compressed),
                megabytes(*limit)
            ),
            LoadError::OnlyWrapperLines { exit_code } => write!(
                f,
                "The file holds only the lines GitHub's setup-terraform wrapper writes around a \
                 command's output ([command]…, ::debug::…), and no output: Terraform printed \
                 nothing{}. Its error is in the workflow step's log.",
                exit_code.map_or(String::new(), |c| format!(" (exit code {c})"))
            ),
            LoadError::NotUtf8 { line, column } => write!(
                f,
                "The file is not UTF-8 text (first bad byte at line {line}, column {column}). \
                 {SHOW_JSON}."
            ),
            LoadError::NotJson {
                line,
                column,
                message,
            } => {
                write!(
                    f,
                    "This is not JSON: {message} at line {line}, column {column}."
                )
            }
            LoadError::Truncated { line, column } => write!(
                f,
                "The file ends too early, at line {line}, column {column}: it looks truncated. \
                 Was the download or copy cut off?"
            ),
            LoadError::NotAPlan(what) => match what {
                NotAPlan::PlanLog => write!(
                    f,
                    "This looks like a `terraform plan -json` log (JSON Lines), but it could not be \
                     read as one."
                ),
                NotAPlan::Driftctl => write!(
                    f,
                    "This looks like a driftctl scan report, but it could not be read as one."
                ),
                NotAPlan::ApplyLog => write!(
                    f,
                    "This is the log of `terraform apply -json` (or `destroy -json`): it records \
                     what an apply did, not a plan to review, so Planlens gives it no summary and \
                     no verdict. Open the log of `terraform plan -json`, or {}",
                    OPEN_A_PLAN.replacen("Save", "save", 1)
                ),
                NotAPlan::ApplyOutput => write!(
                    f,
                    "This is the output of `terraform apply` (or `destroy`): it says what an apply \
                     did (\"Apply complete!\"), not what a plan would change, so Planlens gives it \
                     no summary and no verdict. Open the output of `terraform plan`, or {}",
                    OPEN_A_PLAN.replacen("Save", "save", 1)
                ),
                NotAPlan::AtlantisComment { command } => write!(
                    f,
                    "This is an Atlantis comment of `{}` (\"Ran {command} for …\"), not of `atlantis \
                     plan`: it holds no plan to review. Open the comment that says \"Ran Plan for …\", \
                     or {}",
                    command.to_lowercase(),
                    OPEN_A_PLAN.replacen("Save", "save", 1)
                ),
                NotAPlan::DriftctlText => write!(
                    f,
                    "This is driftctl's text output; Planlens reads its JSON report. Run `driftctl \
                     scan --output json://report.json` and open report.json."
                ),
                NotAPlan::State => write!(
                    f,
                    "This looks like a Terraform state file, not a plan. A state records what \
                     exists, not what a plan would change, and Planlens does not show states yet. \
                     {OPEN_A_PLAN}"
                ),
                NotAPlan::ShownState => write!(
                    f,
                    "This is `terraform show -json` of a state, not of a plan (no plan file was \
                     given): it lists what exists, not what a plan would change, and Planlens does \
                     not show states yet. {OPEN_A_PLAN}"
                ),
                NotAPlan::ProviderSchemas => write!(
                    f,
                    "This looks like `terraform providers schema -json` output, not a plan. {SHOW_JSON}."
                ),
                NotAPlan::PlanWithoutVersion => {
                    write!(f, "This plan has no format_version.")
                }
                NotAPlan::NotAnObject { found } => write!(
                    f,
                    "This is JSON, but not a Terraform plan: the top level is {found}, not an object. \
                     {SHOW_JSON}."
                ),
                NotAPlan::OtherJson { keys } => {
                    let mut listed: Vec<&str> = keys.iter().take(8).map(String::as_str).collect();
                    if keys.len() > 8 {
                        listed.push("…");
                    }
                    write!(
                        f,
                        "This is JSON, but not a Terraform plan: it has {} none of a plan's keys \
                         (it has: {}). {SHOW_JSON}.",
                        if keys.iter().any(|k| k == "format_version") {
                            "a format_version but"
                        } else {
                            "no format_version and"
                        },
                        if listed.is_empty() {
                            "no keys".to_string()
                        } else {
                            listed.join(", ")
                        }
                    )
                }
            },
            LoadError::InvalidReport {
                what,
                line,
                column,
                message,
            } => {
                if *line == 0 {
                    write!(f, "This looks like a {what}, but {message}.")
                } else {
                    write!(
                        f,
                        "This looks like a {what}, but it does not have that format's shape: \
                         {message} at line {line}, column {column}."
                    )
                }
            }
            LoadError::Controller { message } => write!(f, "{message}"),
            LoadError::Workspaces { ids, detail } => match ids.as_slice() {
                [one] => write!(
                    f,
                    "This is the tf-controller Terraform object {one}: it holds the controller's \
                     status, not a plan{detail}. Open it as a fleet (`planlens fleet FILE`, or \
                     the Fleet view)."
                ),
                _ => write!(
                    f,
                    "This is a list of {} tf-controller Terraform objects: the status of {} \
                     workspaces, not one plan. Open it as a fleet (`planlens fleet FILE`, or the \
                     Fleet view) to see them all.",
                    ids.len(),
                    ids.len()
                ),
            },
            LoadError::NeedsYamlReader => write!(
                f,
                "This is Kubernetes YAML. The page reads YAML from an uncompressed UTF-8 file or \
                 pasted text (its YAML reader is loaded then): open it uncompressed, or use \
                 `kubectl … -o json`."
            ),
            LoadError::NeedsReaders { what } => write!(
                f,
                "This is {what}. Planlens reads it with a part of the app loaded when such a file \
                 is opened, and that part could not be loaded here: reload the page (online) and \
                 open the file again."
            ),
            LoadError::Reader { message } => write!(f, "{message}"),
            LoadError::ArchiveTooLarge { archive, limit } => match limit {
                ArchiveLimit::Entries { found, limit } => write!(
                    f,
                    "{archive} holds {found} or more files; Planlens unpacks archives of up to \
                     {limit} files. Put only the plans in the archive (for example `zip -r \
                     plans.zip . -i '*.json'`), or open the plans' folder."
                ),
                ArchiveLimit::Bytes {
                    entry,
                    size,
                    lied,
                    left,
                    limit,
                    compressed,
                } => write!(
                    f,
                    "{archive} ({}) unpacks to more than {}, the most Planlens unpacks from \
                     archives opened together: {entry} alone is {}{}, with {} left. It may be a \
                     zip bomb; if you trust it, unpack it yourself and open the plans in it.",
                    megabytes(*compressed as usize),
                    megabytes(*limit as usize),
                    if *lied { "more than " } else { "" },
                    megabytes(*size as usize),
                    megabytes(*left as usize),
                ),
                ArchiveLimit::Nesting { entry } => write!(
                    f,
                    "{archive} holds {entry}, an archive inside an archive inside an archive; \
                     Planlens unpacks one archive inside another at most. Unpack it and open the \
                     plans in it."
                ),
            },
            LoadError::BadArchive { archive, message } => write!(
                f,
                "{archive} looks like an archive but cannot be unpacked ({message}): it is \
                 damaged or cut off. Was the download complete?"
            ),
            LoadError::InvalidPlan {
                line,
                column,
                message,
            } => write!(
                f,
                "This looks like a plan, but it does not have the plan format's shape: {message} at \
                 line {line}, column {column}."
            ),
        }
    }
}

impl std::error::Error for LoadError {}

/// "12.3 MB".
pub fn megabytes(bytes: usize) -> String {
    let mb = bytes as f64 / (1024.0 * 1024.0);
    if mb >= 10.0 {
        format!("{mb:.0} MB")
    } else {
        format!("{mb:.1} MB")
    }
}

/// serde_json appends " at line L column C"; we print the position our own way.
pub fn strip_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}
