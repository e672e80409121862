//! The fleet: every workspace Flux's Terraform controller runs, at a glance.
//!
//! [`Fleet::read`] takes the files a user opened together (`kubectl get terraform -A -o json`,
//! plan and state Secrets, plan ConfigMaps, as JSON or YAML; `planlens_readers::kube` reads them) and makes
//! one [`Row`] per `Terraform` object: Ready and its reason in plain words, drift (when, and the
//! drifted resources read from the `Ready` message, which is the human-readable plan), the pending
//! plan and whether it waits for approval, a stale plan, plan-only and destroy plans, failures,
//! the lock, interval and revisions, and links to the plan, text plan and state stored for it in
//! the same files. Rows are sorted by what needs a human first ([`Attention`]); [`FleetFilter`]
//! narrows and searches them. Pure: no clock, no I/O.
//!
//! Reading the files is not part of the browser's first-visit module, so a session reads them
//! with the [`FleetReaders`] its caller gives ([`read_files`]): natively [`Direct`], which reads
//! them here and keeps the [`Fleet`] for its links ([`LinkFiles`]); in the browser the app's
//! readers, which ask the readers' part, where the fleet is kept. Either way the session gets the
//! rows ([`FleetIndex`]) and, on request, a row's plan or state as a file
//! ([`OpenFleet::link_file`]).
//!
//! Ready's reason is put in plain words by `reason_words`. A pending plan awaits approval by the
//! controller's rule: unless `approvePlan` is `auto` or the plan's id (or a beginning of it), or
//! `force` is on — and never in a plan-only workspace. `Attention` orders the rows: failing,
//! drifted, locked, stale, awaiting approval, pending, suspended, ready. `Fleet::exit_code` is the
//! CLI's; `FleetFilter` narrows by attention, namespace and search; `FleetIndex` is what the page
//! shows; `link_file` and `open` give a row's plan or state.
//!
//! A file that cannot be read is a problem beside the rows, never fatal; rows carry addresses,
//! never attribute values; there is no transport and no state between calls. `Fleet::read` and
//! `Fleet::of` run natively or in `part-readers` only: the page's fleet view needs only `Row`,
//! `FleetIndex` and `FleetFilter`.

pub mod plans;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use plans::PlanRow;

use planlens_load::decode;
use planlens_load::kube::Unpacked;
use planlens_load::{self, LoadError, Readers};
use planlens_model::mask::Mask;
use planlens_model::source::TextSummary;
use planlens_model::{Action, Document};
use planlens_readers::Direct;
use planlens_readers::kube::{self, Objects, PlanFormat, Stored, Terraform};

/// What a row of the roll-up needs, most urgent first: the order of its rows. A workspace
/// (tf-controller) and a plan (opened with others) are two sources of rows of one roll-up; each
/// uses its own values, and together they keep both orders: a workspace's failing, drifted,
/// locked, stale, awaiting approval, pending, suspended, ready; a plan's failed, needs approval,
/// destroys, drift, warn, changes, no changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Attention {
    /// A plan's planning failed, or the file could not be read as a plan at all.
    Failed,
    /// Ready is False for a failure (planning, applying, retries used up, …).
    Failing,
    /// A plan's rules or policies found a deny: it needs approval.
    NeedsApproval,
    /// A plan destroys, replaces or forgets something.
    Destroys,
    /// The controller found drift (Ready's reason `DriftDetected`, or the pending plan was made
    /// to undo drift); or a plan found resources changed outside Terraform.
    Drifted,
    /// Another process holds the state lock.
    Locked,
    /// The pending plan was made for an older spec (`lastPlannedGeneration` ≠ `generation`):
    /// approving it is pointless, the controller plans again.
    Stale,
    /// A plan waits for someone to set `approvePlan` to its id.
    AwaitingApproval,
    /// A plan's rules found a warning, or its planning left work for later (incomplete).
    Warn,
    /// A plan with changes and nothing else to look at first.
    Changes,
    /// No verdict yet: reconciling, never reconciled, or a plan-only workspace's changes.
    Pending,
    /// Reconciliation is suspended.
    Suspended,
    /// A plan with no changes; or a state, which changes nothing.
    NoChanges,
    /// Ready, nothing to do.
    Ready,
}

impl Attention {
    /// Every value a workspace can have, most urgent first.
    pub const ALL: [Attention; 8] = [
        Attention::Failing,
        Attention::Drifted,
        Attention::Locked,
        Attention::Stale,
        Attention::AwaitingApproval,
        Attention::Pending,
        Attention::Suspended,
        Attention::Ready,
    ];

    /// Every value a plan can have, most urgent first.
    pub const PLANS: [Attention; 7] = [
        Attention::Failed,
        Attention::NeedsApproval,
        Attention::Destroys,
        Attention::Drifted,
        Attention::Warn,
        Attention::Changes,
        Attention::NoChanges,
    ];

    /// A short lowercase name for filters, CSS classes and JSON.
    pub fn key(self) -> &'static str {
        match self {
            Attention::Failed => "failed",
            Attention::Failing => "failing",
            Attention::NeedsApproval => "needs-approval",
            Attention::Destroys => "destroys",
            Attention::Drifted => "drifted",
            Attention::Locked => "locked",
            Attention::AwaitingApproval => "awaiting-approval",
            Attention::Stale => "stale",
            Attention::Warn => "warn",
            Attention::Changes => "changes",
            Attention::Pending => "pending",
            Attention::Suspended => "suspended",
            Attention::NoChanges => "no-changes",
            Attention::Ready => "ready",
        }
    }

    /// How a person would say it.
    pub fn label(self) -> &'static str {
        match self {
            Attention::Failed => "failed",
            Attention::Failing => "failing",
            Attention::NeedsApproval => "needs approval",
            Attention::Destroys => "destroys",
            Attention::Drifted => "drift",
            Attention::Locked => "locked",
            Attention::AwaitingApproval => "awaiting approval",
            Attention::Stale => "stale plan",
            Attention::Warn => "warn",
            Attention::Changes => "changes",
            Attention::Pending => "no verdict yet",
            Attention::Suspended => "suspended",
            Attention::NoChanges => "no changes",
            Attention::Ready => "ready",
        }
    }

    /// True when a person has to act.
    pub fn needs_human(self) -> bool {
        self <= Attention::AwaitingApproval
    }
}

/// The `Ready` condition, read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ready {
    /// `True`, `False`, `Unknown`, or empty when the object has no Ready condition yet.
    pub status: String,
    /// The controller's reason (`DriftDetected`, `TFExecPlanFailed`, …).
    pub reason: String,
    /// The reason in plain words ([`reason_words`]).
    pub words: String,
    /// The message's first line (for drift, the whole message is the plan: see [`DriftInfo`]).
    pub message: String,
}

/// What drifted in a workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftInfo {
    /// `status.lastDriftDetectedAt`.
    pub detected_at: Option<String>,
    /// The resources the drift plan names, read from the Ready message (empty when there is
    /// none or it cannot be read).
    pub resources: Vec<DriftPlanResource>,
    /// The drift plan's summary line (`Plan: 1 to add, 1 to change, 0 to destroy.`).
    pub summary: Option<String>,
    /// Why the message could not be read as a plan, when it could not.
    pub unreadable: Option<String>,
    /// The message stops before the plan's end (the controller cuts it at 20,000 characters):
    /// the list may be incomplete.
    pub cut: bool,
}

/// One resource of a drift plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftPlanResource {
    /// Its address.
    pub address: String,
    /// What the plan does to it (`Action::key`: `update`, `create`, `no-op`, …).
    pub action: String,
    /// What happened to it outside of Terraform (the plan's "Objects have changed outside of
    /// Terraform"): `changed` or `deleted`; `None` when only the plan names it.
    pub outside: Option<String>,
}

/// The plan waiting to be applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    /// Its id (`plan-main-0a1b2c3d4e`).
    pub plan_id: String,
    /// `approvePlan` is neither `auto` nor this id (or its beginning, which the controller
    /// accepts) and `force` is off: a person must approve it (never for plan-only workspaces,
    /// which never apply).
    pub awaits_approval: bool,
    /// It destroys everything.
    pub destroy: bool,
    /// It was made because drift was found.
    pub drift_detection: bool,
}

/// Source revisions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revisions {
    /// Last applied.
    pub applied: String,
    /// Last planned.
    pub planned: String,
    /// Last attempted.
    pub attempted: String,
}

/// Something stored for a workspace that opens as a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "index", rename_all = "kebab-case")]
pub enum Link {
    /// `Objects::plans[i]`: the plan JSON Secret.
    Plan(usize),
    /// `Objects::text_plans[i]`: the plan ConfigMap.
    TextPlan(usize),
    /// `Objects::states[i]`: the state Secret.
    State(usize),
    /// `Objects::workspaces[i]`'s Ready message: the drift plan.
    DriftMessage(usize),
}

/// One workspace: one `Terraform` object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// The Terraform workspace.
    pub workspace: String,
    /// `infra.contrib.fluxcd.io/v1alpha2` or `…/v1alpha1`.
    pub api_version: String,
    /// What it needs, for sorting and the headline.
    pub attention: Attention,
    /// The Ready condition.
    pub ready: Ready,
    /// Found drift, when there is.
    pub drift: Option<DriftInfo>,
    /// The pending plan, when there is.
    pub pending: Option<Pending>,
    /// `(lastPlannedGeneration, generation)` when they differ while a plan is pending.
    pub stale: Option<(i64, i64)>,
    /// `spec.planOnly`.
    pub plan_only: bool,
    /// `spec.destroy` or the pending plan is a destroy plan.
    pub destroy: bool,
    /// `spec.suspend`.
    pub suspended: bool,
    /// `status.reconciliationFailures`.
    pub failures: i64,
    /// The id of a state lock held by another process.
    pub lock: Option<String>,
    /// `spec.interval`.
    pub interval: String,
    /// `approvePlan` as written.
    pub approve_plan: String,
    /// Source revisions.
    pub revisions: Revisions,
    /// What the same files hold for it, with a label each ("plan Secret team-a/tfplan-…").
    pub links: Vec<(Link, String)>,
    /// Things worth knowing ("the stored plan is plan-…, not the pending plan-…").
    pub notes: Vec<String>,
}

impl Row {
    /// `namespace/name`.
    pub fn id(&self) -> String {
        if self.namespace.is_empty() {
            self.name.clone()
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }

    /// The words of the flags set on its plan, in the order the CLI's table and the Fleet view
    /// show them: `stale`, `destroy`, `plan-only`, `suspended`.
    pub fn plan_flags(&self) -> impl Iterator<Item = &'static str> {
        [
            (self.stale.is_some(), "stale"),
            (self.destroy, "destroy"),
            (self.plan_only, "plan-only"),
            (self.suspended, "suspended"),
        ]
        .into_iter()
        .filter_map(|(set, word)| set.then_some(word))
    }
}

/// The fleet of the opened files.
#[derive(Debug, Clone, Default)]
pub struct Fleet {
    /// One per `Terraform` object, most urgent first.
    pub rows: Vec<Row>,
    /// Everything the files held, sorted (links index into it).
    pub objects: Objects,
    /// Files that could not be read: (file name, message).
    pub problems: Vec<(String, String)>,
    /// Stored plans and states no workspace of the files claims (labels).
    pub unclaimed: Vec<String>,
}

/// How many workspaces need what.
pub type Counts = BTreeMap<Attention, usize>;

/// What the page shows of a fleet (sent from the worker that holds the [`Fleet`]): the rows, and
/// what could not be read. No attribute values: a row names resources, never their values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetIndex {
    /// One per workspace, most urgent first.
    pub rows: Vec<Row>,
    /// One per plan of plans opened together, most urgent first (`plans::sort`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plans: Vec<PlanRow>,
    /// Files that could not be read: (file name, message).
    pub problems: Vec<(String, String)>,
    /// Stored plans and states no workspace claims.
    pub unclaimed: Vec<String>,
}

/// Files opened together, decoded (gzip, UTF-16, …): (name, text or why it cannot be read).
/// Decoding stays in the first-visit module; the texts are what the part reads.
pub type Decoded = Vec<(String, Result<String, String>)>;

/// Decodes files (name, bytes) opened together.
pub fn decode_files(files: Vec<(String, Vec<u8>)>) -> Decoded {
    (files.into_iter())
        .map(|(name, bytes)| {
            let text = decode::decode(bytes).and_then(|d| {
                if d.text.trim().is_empty() {
                    Err(LoadError::Empty)
                } else {
                    Ok(d.text)
                }
            });
            (name, text.map_err(|e| e.to_string()))
        })
        .collect()
}

impl Fleet {
    /// Reads files (name, bytes) opened together: each is decoded (gzip, UTF-16, …) and read as
    /// Kubernetes objects; a file that is not one is a problem, and the others still read.
    pub fn read(files: Vec<(String, Vec<u8>)>) -> Fleet {
        Fleet::read_decoded(decode_files(files))
    }

    /// [`Fleet::read`] after [`decode_files`].
    pub fn read_decoded(files: Decoded) -> Fleet {
        let mut all = Vec::new();
        let mut problems = Vec::new();
        for (name, text) in files {
            match text.and_then(|text| kube::read(&text).map_err(|e| e.to_string())) {
                Ok(objects) => all.extend(objects),
                Err(e) => problems.push((name, e)),
            }
        }
        let mut fleet = Fleet::of(Objects::collect(all));
        fleet.problems = problems;
        fleet
    }

    /// What files without a workspace open as, when every one of them read: the one plan, text
    /// plan or state they hold ([`Objects::single`]), unpacked, or why it does not unpack; `None`
    /// when there are workspaces, problems, or not exactly one thing to open.
    pub fn single(&self) -> Option<Result<Unpacked, LoadError>> {
        if !self.rows.is_empty() || !self.problems.is_empty() {
            return None;
        }
        self.objects.single().ok().map(|stored| stored.unpack())
    }

    /// The fleet of sorted objects.
    pub fn of(objects: Objects) -> Fleet {
        let mut rows: Vec<Row> = objects
            .workspaces
            .iter()
            .enumerate()
            .map(|(i, t)| row(i, t, &objects))
            .collect();
        rows.sort_by(|a, b| {
            a.attention
                .cmp(&b.attention)
                .then(b.failures.cmp(&a.failures))
                .then_with(|| a.namespace.cmp(&b.namespace))
                .then_with(|| a.name.cmp(&b.name))
        });
        let claimed: Vec<Link> = rows
            .iter()
            .flat_map(|r| r.links.iter().map(|(l, _)| *l))
            .collect();
        let mut unclaimed = Vec::new();
        for (i, p) in objects.plans.iter().enumerate() {
            if p.format == PlanFormat::Json && !claimed.contains(&Link::Plan(i)) {
                unclaimed.push(Stored::Plan(p).label());
            }
        }
        for (i, t) in objects.text_plans.iter().enumerate() {
            if !claimed.contains(&Link::TextPlan(i)) {
                unclaimed.push(Stored::TextPlan(t).label());
            }
        }
        for (i, s) in objects.states.iter().enumerate() {
            if !claimed.contains(&Link::State(i)) {
                unclaimed.push(Stored::State(s).label());
            }
        }
        Fleet {
            rows,
            objects,
            problems: Vec::new(),
            unclaimed,
        }
    }

    /// The values-free part the page shows.
    pub fn index(&self) -> FleetIndex {
        FleetIndex {
            rows: self.rows.clone(),
            plans: Vec::new(),
            problems: self.problems.clone(),
            unclaimed: self.unclaimed.clone(),
        }
    }

    /// How many rows need each kind of attention.
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::new();
        for row in &self.rows {
            *counts.entry(row.attention).or_default() += 1;
        }
        counts
    }

    /// The CLI's exit code: 3 when a file could not be read or there is no workspace, 2 when a
    /// workspace is failing, drifted or locked, 1 when a plan waits for approval or is stale or a
    /// workspace has no verdict yet, 0 when every workspace is ready with no drift (suspended
    /// ones included).
    pub fn exit_code(&self) -> u8 {
        if !self.problems.is_empty() || self.rows.is_empty() {
            return 3;
        }
        let worst = self
            .rows
            .iter()
            .map(|r| r.attention)
            .min()
            .unwrap_or(Attention::Ready);
        match worst {
            Attention::Failing | Attention::Drifted | Attention::Locked => 2,
            Attention::AwaitingApproval | Attention::Stale | Attention::Pending => 1,
            Attention::Suspended | Attention::Ready => 0,
            // Plans' values: a fleet's rows never have them.
            Attention::Failed | Attention::NeedsApproval | Attention::Destroys => 2,
            Attention::Warn | Attention::Changes => 1,
            Attention::NoChanges => 0,
        }
    }

    /// What a link points at.
    pub fn stored(&self, link: Link) -> Option<Stored<'_>> {
        match link {
            Link::Plan(i) => self.objects.plans.get(i).map(Stored::Plan),
            Link::TextPlan(i) => self.objects.text_plans.get(i).map(Stored::TextPlan),
            Link::State(i) => self.objects.states.get(i).map(Stored::State),
            Link::DriftMessage(i) => self
                .objects
                .workspaces
                .get(i)
                .filter(|t| t.drift_text().is_some())
                .map(Stored::DriftMessage),
        }
    }

    /// A row's link as a file to open: the page sends it to a plan worker like any file, so the
    /// plan or state opens with every view. A plan, text plan or state is the JSON of the
    /// Kubernetes objects it was read from ([`Stored::source_json`]: the same notes); a drift
    /// plan is the Ready message's text itself, since its `Terraform` object alone would open as
    /// a fleet of one.
    pub fn link_file(&self, link: Link) -> Option<(String, String)> {
        let stored = self.stored(link)?;
        let text = match stored {
            Stored::DriftMessage(t) => t.drift_text().unwrap_or_default().to_string(),
            _ => stored.source_json(),
        };
        Some((link_name(stored), text))
    }

    /// Opens a row's link as a document, with the secret-name mask (a text plan or state
    /// converted by `readers`), for every view.
    pub fn open(
        &self,
        link: Link,
        mask: &Mask,
        readers: &dyn Readers,
    ) -> Result<Document, LoadError> {
        let stored = self.stored(link).ok_or_else(|| LoadError::Controller {
            message: "That plan or state is not among the opened files.".to_string(),
        })?;
        planlens_readers::load_stored_with(stored, &link_name(stored), mask, readers)
    }
}

/// How a session reads files opened together as a fleet (and, through [`Readers`], a file that
/// is a document): natively [`Direct`], in the browser the app's readers, which ask the readers'
/// part (crates/part-readers). Every implementation gives the same rows, problems, link files and
/// messages (tests/core/readers_part.rs).
pub trait FleetReaders: Readers {
    /// Decoded files → their fleet, and what they open as when they hold no workspace. Files
    /// that cannot be read are problems in the fleet, never an error.
    fn fleet(&self, files: Decoded) -> Result<FleetRead, LoadError>;
}

impl FleetReaders for Direct {
    fn fleet(&self, files: Decoded) -> Result<FleetRead, LoadError> {
        let fleet = Fleet::read_decoded(files);
        Ok(FleetRead {
            single: fleet.single(),
            fleet: OpenFleet {
                index: fleet.index(),
                files: Box::new(fleet),
            },
        })
    }
}

/// Where the files of a fleet's links come from: the [`Fleet`] itself, or whatever keeps it (in
/// the browser, the readers' part).
pub trait LinkFiles {
    /// A row's link as a file to open ([`Fleet::link_file`]); `None` when the fleet has no such
    /// link.
    fn link_file(&self, link: Link) -> Result<Option<(String, String)>, LoadError>;
}

impl LinkFiles for Fleet {
    fn link_file(&self, link: Link) -> Result<Option<(String, String)>, LoadError> {
        Ok(Fleet::link_file(self, link))
    }
}

/// A fleet opened by a session: the rows the page shows, and where its rows' files come from.
pub struct OpenFleet {
    /// The rows and problems.
    pub index: FleetIndex,
    /// Where its links' files come from.
    pub files: Box<dyn LinkFiles>,
}

impl std::fmt::Debug for OpenFleet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenFleet")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl OpenFleet {
    /// A row's link as a file to open ([`Fleet::link_file`]); `None` when the fleet has no
    /// such link.
    pub fn link_file(&self, link: Link) -> Result<Option<(String, String)>, LoadError> {
        self.files.link_file(link)
    }
}

/// [`FleetReaders::fleet`]'s answer: the fleet, and what the files open as when they hold no
/// workspace.
#[derive(Debug)]
pub struct FleetRead {
    /// The fleet (no rows when the files hold no workspace).
    pub fleet: OpenFleet,
    /// [`Fleet::single`].
    pub single: Option<Result<Unpacked, LoadError>>,
}

/// Reads files (name, bytes) opened together as a fleet with `readers`: decoded here (gzip,
/// UTF-16, …), read by `readers`.
pub fn read_files(
    files: Vec<(String, Vec<u8>)>,
    readers: &dyn FleetReaders,
) -> Result<FleetRead, LoadError> {
    readers.fleet(decode_files(files))
}

/// The name a link's document is shown as.
fn link_name(stored: Stored) -> String {
    match stored {
        Stored::Plan(p) => p.name.clone(),
        Stored::TextPlan(t) => t.name.clone(),
        Stored::State(s) => s.name.clone(),
        Stored::DriftMessage(t) => format!("{} (drift)", t.metadata.id()),
    }
}

/// The row of one `Terraform` object (`index` in `objects.workspaces`).
fn row(index: usize, t: &Terraform, objects: &Objects) -> Row {
    let ready_condition = t.condition("Ready");
    let ready = Ready {
        status: ready_condition.map_or(String::new(), |c| c.status.clone()),
        reason: ready_condition.map_or(String::new(), |c| c.reason.clone()),
        words: ready_condition.map_or("Not reconciled yet".to_string(), |c| {
            reason_words(&c.reason)
        }),
        message: ready_condition
            .filter(|c| c.reason != "DriftDetected")
            .map_or(String::new(), |c| {
                c.message.lines().next().unwrap_or_default().to_string()
            }),
    };
    let status = &t.status;
    let plan_only = t.spec.plan_only;
    let pending = (!status.plan.pending.is_empty()).then(|| Pending {
        plan_id: status.plan.pending.clone(),
        awaits_approval: !plan_only
            && !t.spec.force
            && t.spec.approve_plan != "auto"
            && !approves(&t.spec.approve_plan, &status.plan.pending),
        destroy: status.plan.is_destroy_plan,
        drift_detection: status.plan.is_drift_detection_plan,
    });
    let stale = match (
        pending.as_ref(),
        status.last_planned_generation,
        t.metadata.generation,
    ) {
        (Some(_), Some(planned), Some(generation)) if planned != generation => {
            Some((planned, generation))
        }
        _ => None,
    };
    let drifted =
        ready.reason == "DriftDetected" || pending.as_ref().is_some_and(|p| p.drift_detection);
    let drift = drifted.then(|| drift_info(t));
    let lock = (!status.lock.pending.is_empty())
        .then(|| status.lock.pending.clone())
        .or_else(|| {
            t.condition("StateLocked")
                .filter(|c| c.status == "True")
                .map(|_| String::new())
        });
    let attention = if ready.status == "False"
        && !matches!(ready.reason.as_str(), "DriftDetected" | "LockHeld")
    {
        Attention::Failing
    } else if drifted {
        Attention::Drifted
    } else if lock.is_some() || ready.reason == "LockHeld" {
        Attention::Locked
    } else if stale.is_some() {
        Attention::Stale
    } else if pending.as_ref().is_some_and(|p| p.awaits_approval) {
        Attention::AwaitingApproval
    } else if t.spec.suspend {
        Attention::Suspended
    } else if ready.status == "True" {
        Attention::Ready
    } else {
        Attention::Pending
    };
    let (links, mut notes) = links(index, t, objects);
    if let (Some(p), Some((planned, generation))) = (&pending, stale) {
        notes.push(format!(
            "The pending plan {} was made for generation {planned}; the object is at generation \
             {generation}: the spec changed since, so the plan is stale and will be made again.",
            p.plan_id
        ));
    }
    if !t.spec.approve_plan.is_empty()
        && t.spec.approve_plan != "auto"
        && pending.as_ref().is_some_and(|p| p.awaits_approval)
    {
        notes.push(format!(
            "approvePlan is \"{}\", which does not approve the pending plan.",
            t.spec.approve_plan
        ));
    }
    Row {
        namespace: t.metadata.namespace.clone(),
        name: t.metadata.name.clone(),
        workspace: t.workspace().to_string(),
        api_version: t.api_version.clone(),
        attention,
        ready,
        drift,
        destroy: t.spec.destroy || pending.as_ref().is_some_and(|p| p.destroy),
        pending,
        stale,
        plan_only,
        suspended: t.spec.suspend,
        failures: status.reconciliation_failures,
        lock,
        interval: t.spec.interval.clone(),
        approve_plan: t.spec.approve_plan.clone(),
        revisions: Revisions {
            applied: status.last_applied_revision.clone(),
            planned: status.last_planned_revision.clone(),
            attempted: status.last_attempted_revision.clone(),
        },
        links,
        notes,
    }
}

/// True when `approve_plan` approves the plan `pending`, as the controller decides: the id or
/// any beginning of it (its README: "first 8 digits of a commit hash is enough").
fn approves(approve_plan: &str, pending: &str) -> bool {
    !approve_plan.is_empty() && pending.starts_with(approve_plan)
}

/// Drift: when, and the resources the Ready message's plan names (read by `planlens_readers::text_plan`:
/// addresses and actions only, no values).
fn drift_info(t: &Terraform) -> DriftInfo {
    let mut info = DriftInfo {
        detected_at: t.status.last_drift_detected_at.clone(),
        resources: Vec::new(),
        summary: None,
        unreadable: None,
        cut: false,
    };
    let Some(text) = t.drift_text() else {
        return info;
    };
    // Run natively or in the readers' part, never in the first-visit module (see the module
    // documentation): the text plan reader is called directly.
    match planlens_readers::text_plan::read(text) {
        Ok(plan) => {
            info.cut = plan.facts.cut;
            info.summary = plan.facts.summary_line.map(|s| plan_line(&s));
            for d in &plan.drift {
                info.resources.push(DriftPlanResource {
                    address: d.address.clone(),
                    action: "no-op".to_string(),
                    outside: Some(
                        if d.action == Action::Delete {
                            "deleted"
                        } else {
                            "changed"
                        }
                        .to_string(),
                    ),
                });
            }
            for c in &plan.changes {
                match info.resources.iter_mut().find(|r| r.address == c.address) {
                    Some(r) => r.action = c.action.key().to_string(),
                    None => info.resources.push(DriftPlanResource {
                        address: c.address.clone(),
                        action: c.action.key().to_string(),
                        outside: None,
                    }),
                }
            }
        }
        Err(e) => info.unreadable = Some(e.to_string()),
    }
    info
}

/// `Plan: 1 to add, 1 to change, 0 to destroy.` as the text printed it.
fn plan_line(s: &TextSummary) -> String {
    let mut parts = Vec::new();
    if s.import > 0 {
        parts.push(format!("{} to import", s.import));
    }
    parts.push(format!("{} to add", s.add));
    parts.push(format!("{} to change", s.change));
    if let Some(replace) = s.replace {
        parts.push(format!("{replace} to replace"));
    }
    parts.push(format!("{} to destroy", s.destroy));
    if s.forget > 0 {
        parts.push(format!("{} to forget", s.forget));
    }
    format!("Plan: {}.", parts.join(", "))
}

/// The plan, text plan and state stored for `t` among `objects`, matched by the controller's
/// names and labels, and notes about them.
fn links(index: usize, t: &Terraform, objects: &Objects) -> (Vec<(Link, String)>, Vec<String>) {
    let ns = &t.metadata.namespace;
    let same_ns = |other: &str| ns.is_empty() || other.is_empty() || other == ns;
    let base = t.plan_object_name();
    let mut links = Vec::new();
    let mut notes = Vec::new();
    for (i, p) in objects.plans.iter().enumerate() {
        let named = p.name == format!("{base}.json");
        let labelled = p.plan_name.as_deref() == Some(&format!("{}.json", t.metadata.name))
            && p.workspace.as_deref() == Some(t.workspace());
        if p.format == PlanFormat::Json && same_ns(&p.namespace) && (named || labelled) {
            links.push((Link::Plan(i), format!("plan {}", Stored::Plan(p).label())));
            if let Some(id) = &p.plan_id
                && !t.status.plan.pending.is_empty()
                && *id != t.status.plan.pending
            {
                notes.push(format!(
                    "The stored plan is {id}, not the pending {}: it may be older.",
                    t.status.plan.pending
                ));
            }
        }
    }
    for (i, m) in objects.text_plans.iter().enumerate() {
        let named = m.name == base;
        let labelled = m.plan_name.as_deref() == Some(t.metadata.name.as_str())
            && m.workspace.as_deref() == Some(t.workspace());
        if same_ns(&m.namespace) && (named || labelled) {
            links.push((
                Link::TextPlan(i),
                format!("text plan {}", Stored::TextPlan(m).label()),
            ));
        }
    }
    let state_name = t.state_secret_name();
    let suffix = state_name
        .strip_prefix(&format!("tfstate-{}-", t.workspace()))
        .unwrap_or_default()
        .to_string();
    for (i, s) in objects.states.iter().enumerate() {
        let named = s.name == state_name;
        let labelled = s.suffix.as_deref() == Some(suffix.as_str())
            && s.workspace.as_deref() == Some(t.workspace());
        if same_ns(&s.namespace) && (named || labelled) {
            links.push((
                Link::State(i),
                format!("state {}", Stored::State(s).label()),
            ));
        }
    }
    if t.drift_text().is_some() {
        links.push((
            Link::DriftMessage(index),
            "drift plan (the Ready message)".to_string(),
        ));
    }
    (links, notes)
}

/// A tf-controller condition reason in plain words; an unknown reason is shown as written.
pub fn reason_words(reason: &str) -> String {
    match reason {
        "NoDrift" => "No drift",
        "TerraformPlannedNoChanges" => "Planned: no changes",
        "TerraformPlannedWithChanges" => "Planned with changes",
        "TerraformPlanSucceed" => "Planned",
        "TerraformAppliedSucceed" => "Applied",
        "TerraformOutputsWritten" => "Applied; outputs written",
        "TerraformOutputsAvailable" => "Outputs available",
        "TerraformDestroySucceed" => "Destroyed",
        "DriftDetected" => "Drift detected",
        "DriftDetectionFailed" => "Drift detection failed",
        "TFExecPlanFailed" => "terraform plan failed",
        "TFExecApplyFailed" => "terraform apply failed",
        "TerraformAppliedFail" => "terraform apply failed",
        "TFExecDestroyFailed" => "terraform destroy failed",
        "TFExecInitFailed" => "terraform init failed",
        "TFExecNewFailed" => "Terraform could not be started",
        "TFExecOutputFailed" => "terraform output failed",
        "RetryLimitReached" => "Gave up: retry limit reached",
        "LockHeld" => "State locked by another process",
        "ForceUnlock" => "Force-unlocking the state",
        "ArtifactFailed" => "Source artifact could not be fetched",
        "DependencyNotReady" => "Waiting for a dependency",
        "HealthChecksFailed" => "Health checks failed",
        "OutputsWritingFailed" => "Outputs could not be written",
        "PostPlanningWebhookFailed" => "Post-planning webhook rejected the plan",
        "TemplateGenerationFailed" => "Configuration template failed",
        "VarsGenerationFailed" => "Variables could not be generated",
        "SelectWorkspaceFailed" => "Workspace could not be selected",
        "AccessDenied" => "Access denied",
        "RunnerQuotaExhausted" => "Runner quota exhausted",
        "DeletionBlockedByDependantsReason" => "Deletion blocked by dependants",
        "ReconciliationFailed" => "Reconciliation failed",
        "Progressing" => "Reconciling",
        "ReconciliationSucceeded" => "Reconciled",
        other => return other.to_string(),
    }
    .to_string()
}

/// Which rows the fleet view shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetFilter {
    /// Only these kinds of attention (all when empty).
    pub attention: Vec<Attention>,
    /// Only rows a person must act on.
    pub needs_human: bool,
    /// Only this namespace (all when empty).
    pub namespace: String,
    /// Case-insensitive text in the name, namespace, workspace, reason, message, drifted
    /// addresses, plan id or revisions.
    pub search: String,
}

impl FleetFilter {
    /// True when `row` passes.
    pub fn matches(&self, row: &Row) -> bool {
        if !self.attention.is_empty() && !self.attention.contains(&row.attention) {
            return false;
        }
        if self.needs_human && !row.attention.needs_human() {
            return false;
        }
        if !self.namespace.is_empty() && row.namespace != self.namespace {
            return false;
        }
        let needle = self.search.trim().to_lowercase();
        needle.is_empty()
            || row.id().to_lowercase().contains(&needle)
            || haystack(row)
                .iter()
                .any(|h| h.to_lowercase().contains(&needle))
    }

    /// Indices of the rows that pass, in the fleet's order.
    pub fn apply(&self, rows: &[Row]) -> Vec<usize> {
        (0..rows.len())
            .filter(|&i| self.matches(&rows[i]))
            .collect()
    }

    /// True when the plan's row passes: its attention, the group (`namespace`, the first
    /// segment of its name), the search in its name, summary, verdict, addresses and findings.
    pub fn matches_plan(&self, row: &PlanRow) -> bool {
        if !self.attention.is_empty() && !self.attention.contains(&row.attention) {
            return false;
        }
        if self.needs_human && !row.attention.needs_human() {
            return false;
        }
        if !self.namespace.is_empty() && row.group() != self.namespace {
            return false;
        }
        let needle = self.search.trim().to_lowercase();
        needle.is_empty()
            || row.haystack().any(|h| h.to_lowercase().contains(&needle))
            || plans::has_hit(row, &self.search)
    }

    /// The roll-up's entries that pass, in its order: workspaces and plans together, most
    /// urgent first (each source keeps its own order among equals).
    pub fn entries(&self, index: &FleetIndex) -> Vec<Entry> {
        let mut out: Vec<(Attention, Entry)> = (index.rows.iter().enumerate())
            .filter(|(_, r)| self.matches(r))
            .map(|(i, r)| (r.attention, Entry::Workspace(i)))
            .chain(
                (index.plans.iter().enumerate())
                    .filter(|(_, r)| self.matches_plan(r))
                    .map(|(i, r)| (r.attention, Entry::Plan(i))),
            )
            .collect();
        out.sort_by_key(|(attention, _)| *attention);
        out.into_iter().map(|(_, e)| e).collect()
    }
}

/// One row of the roll-up: a workspace (`FleetIndex::rows[i]`) or a plan (`plans[i]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Entry {
    /// A tf-controller workspace.
    Workspace(usize),
    /// A plan opened with others.
    Plan(usize),
}

impl FleetIndex {
    /// How many rows need each kind of attention, workspaces and plans together.
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::new();
        let all =
            (self.rows.iter().map(|r| r.attention)).chain(self.plans.iter().map(|p| p.attention));
        for attention in all {
            *counts.entry(attention).or_default() += 1;
        }
        counts
    }

    /// The groups its filter offers: the workspaces' namespaces and the plans' groups.
    pub fn groups(&self) -> Vec<String> {
        let mut out = namespaces(&self.rows);
        out.extend(plans::groups(&self.plans));
        out.sort();
        out.dedup();
        out
    }

    /// The roll-up's title: `3 workspaces`, `7 plans: 5 with changes, 1 failed`, or both.
    pub fn headline(&self) -> String {
        let workspaces = (!self.rows.is_empty()).then(|| {
            format!(
                "{} workspace{}",
                self.rows.len(),
                if self.rows.len() == 1 { "" } else { "s" }
            )
        });
        let plans = (!self.plans.is_empty()).then(|| plans::headline(&self.plans));
        workspaces
            .into_iter()
            .chain(plans)
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The texts a search looks in.
fn haystack(row: &Row) -> Vec<&str> {
    let mut out = vec![
        row.namespace.as_str(),
        row.name.as_str(),
        row.workspace.as_str(),
        row.ready.reason.as_str(),
        row.ready.words.as_str(),
        row.ready.message.as_str(),
        row.attention.label(),
        row.revisions.applied.as_str(),
        row.revisions.planned.as_str(),
    ];
    if let Some(p) = &row.pending {
        out.push(p.plan_id.as_str());
    }
    if let Some(d) = &row.drift {
        out.extend(d.resources.iter().map(|r| r.address.as_str()));
    }
    out
}

/// The namespaces of the rows, sorted, each once (for the view's namespace filter).
pub fn namespaces(rows: &[Row]) -> Vec<String> {
    let mut out: Vec<String> = rows.iter().map(|r| r.namespace.clone()).collect();
    out.sort();
    out.dedup();
    out
}
