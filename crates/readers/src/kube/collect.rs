//! The objects of one or several files sorted into what they are: workspaces (`Terraform`
//! objects), plan Secrets and ConfigMaps (chunks joined, through `chunks.rs`), state Secrets, and
//! the rest, only named; and which one thing a single file opens as. Other Secrets are never
//! decoded.

use std::ops::Deref;

use super::chunks::{Chunks, Joined, base64_of};
use super::objects::{DataObject, Object, Terraform};
use super::stored::binary_plan_error;
use super::{PLAN_NAME_LABEL, SAVED_PLAN_ANNOTATION};
use planlens_load::LoadError;
pub use planlens_load::kube::{Content, Unpacked};

/// What the objects of a stored plan say alike, whether Secrets or ConfigMaps: where it is
/// kept, how it is labelled, how many chunks it was joined from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanObjects {
    /// The namespace.
    pub namespace: String,
    /// The objects' name without a chunk's `-N` (`tfplan-default-web.json` for a plan Secret,
    /// `tfplan-default-web` for a ConfigMap).
    pub name: String,
    /// The `plan-workspace` label, when present.
    pub workspace: Option<String>,
    /// The `plan-name` label, when present (`web.json` for a plan Secret).
    pub plan_name: Option<String>,
    /// The plan id of the `savedPlan` annotation.
    pub plan_id: Option<String>,
    /// How many objects it was joined from (1 when not chunked).
    pub chunks: usize,
    /// The objects as read ([`Stored::source_json`]).
    pub sources: Vec<DataObject>,
}

/// The controller's plan JSON, kept in one Secret or joined from its chunks. Its
/// [`PlanObjects`] read as its own fields (`plan.plan_id`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPlan {
    /// The Secrets.
    pub objects: PlanObjects,
    /// JSON (`…​.json`) or Terraform's binary plan file.
    pub format: PlanFormat,
    /// The joined gzip bytes, or why they cannot be had (bad base64, a missing chunk).
    pub bytes: Result<Vec<u8>, LoadError>,
}

impl Deref for StoredPlan {
    type Target = PlanObjects;
    fn deref(&self) -> &PlanObjects {
        &self.objects
    }
}

/// What a plan Secret holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanFormat {
    /// `terraform show -json` of the plan.
    Json,
    /// Terraform's binary plan file (a zip): only `terraform show` reads it.
    Binary,
}

/// The controller's human-readable plan, kept in a ConfigMap (or joined from its chunks). Its
/// [`PlanObjects`] read as its own fields (`map.plan_id`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextPlanMap {
    /// The ConfigMaps.
    pub objects: PlanObjects,
    /// The `terraform show` text, or why it cannot be had.
    pub text: Result<String, LoadError>,
}

impl Deref for TextPlanMap {
    type Target = PlanObjects;
    fn deref(&self) -> &PlanObjects {
        &self.objects
    }
}

/// A state Secret of Terraform's `kubernetes` backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateSecret {
    /// The namespace.
    pub namespace: String,
    /// `tfstate-<workspace>-<suffix>`.
    pub name: String,
    /// The `tfstateWorkspace` label, when present.
    pub workspace: Option<String>,
    /// The `tfstateSecretSuffix` label, when present.
    pub suffix: Option<String>,
    /// The gzip bytes of the state, or why they cannot be had.
    pub bytes: Result<Vec<u8>, LoadError>,
    /// The Secret as read ([`Stored::source_json`]).
    pub source: DataObject,
}

/// The objects of one or several files, sorted: workspaces, and what the controller and
/// Terraform stored for them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Objects {
    /// `Terraform` objects, in the order given.
    pub workspaces: Vec<Terraform>,
    /// Plan Secrets (chunks joined), JSON and binary.
    pub plans: Vec<StoredPlan>,
    /// Plan ConfigMaps (chunks joined).
    pub text_plans: Vec<TextPlanMap>,
    /// State Secrets.
    pub states: Vec<StateSecret>,
    /// Objects that are none of these (`Pod flux-system/x`, `Secret default/db`), named only.
    pub skipped: Vec<String>,
}

/// One thing stored in Kubernetes that opens as a document.
#[derive(Debug, Clone, Copy)]
pub enum Stored<'a> {
    /// A plan Secret.
    Plan(&'a StoredPlan),
    /// A plan ConfigMap.
    TextPlan(&'a TextPlanMap),
    /// A state Secret.
    State(&'a StateSecret),
    /// A `Terraform` object's `Ready` message holding the plan of found drift.
    DriftMessage(&'a Terraform),
}

impl Objects {
    /// Sorts the objects of one or more files. Chunks are grouped by namespace and name (without
    /// `-N`) and joined in the order of their `plan-chunk` annotation; a gap, a chunk given twice
    /// with other contents, or chunks of different plan ids make that plan unreadable with a
    /// message naming what is wrong (the rest still reads).
    pub fn collect(objects: Vec<Object>) -> Objects {
        let mut out = Objects::default();
        let mut plan_secrets = Chunks::default();
        let mut plan_maps = Chunks::default();
        for object in objects {
            match object {
                Object::Terraform(t) => {
                    // The same object from two files (or twice in one) is one workspace.
                    if !out
                        .workspaces
                        .iter()
                        .any(|w| w.metadata.id() == t.metadata.id())
                    {
                        out.workspaces.push(*t);
                    }
                }
                Object::Secret(s) if is_plan_object(&s) => plan_secrets.add(s),
                Object::ConfigMap(c) if is_plan_object(&c) => plan_maps.add(c),
                Object::Secret(s) if is_state_secret(&s) => out.states.push(state_secret(s)),
                Object::Secret(s) => out.skipped.push(format!("Secret {}", s.metadata.id())),
                Object::ConfigMap(c) => out.skipped.push(format!("ConfigMap {}", c.metadata.id())),
                Object::Other { kind, name } => out.skipped.push(format!("{kind} {name}")),
            }
        }
        for Joined {
            objects,
            label,
            parts,
        } in plan_secrets.join("Secret")
        {
            let json = |name: &str| name.ends_with(".json");
            let format = if json(&objects.name) || objects.plan_name.as_deref().is_some_and(json) {
                PlanFormat::Json
            } else {
                PlanFormat::Binary
            };
            let bytes = parts.and_then(|parts| {
                parts
                    .into_iter()
                    .map(|(key, text)| base64_of(&label, &key, &text))
                    .collect::<Result<Vec<_>, _>>()
                    .map(|v| v.concat())
            });
            out.plans.push(StoredPlan {
                objects,
                format,
                bytes,
            });
        }
        for joined in plan_maps.join("ConfigMap") {
            out.text_plans.push(TextPlanMap {
                objects: joined.objects,
                text: joined
                    .parts
                    .map(|parts| parts.into_iter().map(|(_, text)| text).collect()),
            });
        }
        out
    }

    /// Every stored thing that opens as a document, in a fixed order: JSON plans, text plans,
    /// states, then workspaces whose `Ready` message is a drift plan.
    pub fn stored(&self) -> Vec<Stored<'_>> {
        let plans = self
            .plans
            .iter()
            .filter(|p| p.format == PlanFormat::Json)
            .map(Stored::Plan);
        let texts = self.text_plans.iter().map(Stored::TextPlan);
        let states = self.states.iter().map(Stored::State);
        let drift = self
            .workspaces
            .iter()
            .filter(|w| w.drift_text().is_some())
            .map(Stored::DriftMessage);
        plans.chain(texts).chain(states).chain(drift).collect()
    }

    /// The one thing a single opened file holds: its plan Secret (chunks joined), else its plan
    /// ConfigMap, else its state Secret (a plan is what a reader of the file wants most; its
    /// workspace's state beside it does not make the file ambiguous), else the drift plan of its
    /// one `Terraform` object. Several of the same kind, several workspaces or nothing openable
    /// is an error that says what the file holds and where to open it (the fleet view).
    pub fn single(&self) -> Result<Stored<'_>, LoadError> {
        let stored: Vec<Stored> = self
            .stored()
            .into_iter()
            .filter(|s| !matches!(s, Stored::DriftMessage(_)))
            .collect();
        let kind = |s: &Stored| match s {
            Stored::Plan(_) => 0,
            Stored::TextPlan(_) => 1,
            Stored::State(_) => 2,
            Stored::DriftMessage(_) => 3,
        };
        let first_kind: Vec<Stored> = match stored.iter().map(kind).min() {
            Some(k) => stored.iter().filter(|s| kind(s) == k).copied().collect(),
            None => Vec::new(),
        };
        match first_kind.as_slice() {
            [one] => return Ok(*one),
            [] => {}
            several => {
                return Err(LoadError::Controller {
                    message: format!(
                        "The file holds {} {} ({}): open one at a time, or open them with \
                         their Terraform objects as a fleet (`planlens fleet FILE…`, or the \
                         Fleet view).",
                        several.len(),
                        match several[0] {
                            Stored::State(_) => "states",
                            _ => "plans",
                        },
                        several
                            .iter()
                            .map(Stored::label)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                });
            }
        }
        if let [one] = self.workspaces.as_slice()
            && one.drift_text().is_some()
        {
            return Ok(Stored::DriftMessage(one));
        }
        if !self.workspaces.is_empty() {
            let detail = match self.workspaces.as_slice() {
                [one] => format!(
                    " (its Ready condition: {}; with `storeReadablePlan: json` its plan is in the \
                     Secret `{}.json`)",
                    one.condition("Ready")
                        .map_or("none yet".to_string(), |c| format!(
                            "{}, {}",
                            c.status, c.reason
                        )),
                    one.plan_object_name()
                ),
                _ => String::new(),
            };
            return Err(LoadError::Workspaces {
                ids: self.workspaces.iter().map(|w| w.metadata.id()).collect(),
                detail,
            });
        }
        if let Some(binary) = self.plans.iter().find(|p| p.format == PlanFormat::Binary) {
            return Err(binary_plan_error(binary));
        }
        Err(LoadError::Controller {
            message: if self.skipped.is_empty() {
                "These are Kubernetes objects, but the file holds none (an empty List).".to_string()
            } else {
                format!(
                    "These are Kubernetes objects, but none that tf-controller or Terraform's \
                     kubernetes backend writes ({}). Planlens opens Terraform objects, plan \
                     Secrets `tfplan-<workspace>-<name>.json`, plan ConfigMaps and state Secrets \
                     `tfstate-<workspace>-<name>`.",
                    list_some(&self.skipped)
                )
            },
        })
    }
}

/// A plan Secret or ConfigMap: named `tfplan-…`, or labelled or annotated by the controller, with
/// `data.tfplan`.
fn is_plan_object(o: &DataObject) -> bool {
    o.data.contains_key("tfplan")
        && (o.metadata.name.starts_with("tfplan-")
            || o.metadata.labels.contains_key(PLAN_NAME_LABEL)
            || o.metadata.annotations.contains_key(SAVED_PLAN_ANNOTATION))
}

/// A state Secret of Terraform's `kubernetes` backend: `data.tfstate`, named `tfstate-…` or
/// labelled `tfstate: "true"`.
fn is_state_secret(o: &DataObject) -> bool {
    o.data.contains_key("tfstate")
        && (o.metadata.name.starts_with("tfstate-")
            || o.metadata
                .labels
                .get("tfstate")
                .is_some_and(|v| v == "true"))
}

fn state_secret(s: DataObject) -> StateSecret {
    let label = format!("Secret {}", s.metadata.id());
    let bytes = base64_of(
        &label,
        "tfstate",
        s.data.get("tfstate").map_or("", String::as_str),
    );
    StateSecret {
        workspace: s.metadata.labels.get("tfstateWorkspace").cloned(),
        suffix: s.metadata.labels.get("tfstateSecretSuffix").cloned(),
        namespace: s.metadata.namespace.clone(),
        name: s.metadata.name.clone(),
        bytes,
        source: s,
    }
}
fn list_some(items: &[String]) -> String {
    let mut shown: Vec<&str> = items.iter().take(5).map(String::as_str).collect();
    if items.len() > 5 {
        shown.push("…");
    }
    shown.join(", ")
}
