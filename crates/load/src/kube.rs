//! What Flux's Terraform controller (flux-iac/tofu-controller, formerly weaveworks/tf-controller)
//! stores in Kubernetes, read from `kubectl get … -o json` or `-o yaml`.
//!
//! - `Terraform` objects (`infra.contrib.fluxcd.io/v1alpha2` or `v1alpha1`), one per workspace:
//!   their spec and status ([`Terraform`]), read by the fleet view. When the controller finds
//!   drift, the `Ready` condition's message is the human-readable plan.
//! - Plan Secrets `tfplan-<workspace>-<name>.json` (`storeReadablePlan: json`): `data.tfplan` is
//!   base64 (Kubernetes' encoding of `data`) of the gzip of the plan JSON. Over 1 MB the gzip is
//!   cut into Secrets `…-0`, `…-1`, … with the annotation `infra.contrib.fluxcd.io/plan-chunk` and
//!   the labels `infra.contrib.fluxcd.io/plan-name` / `plan-workspace`; they are joined here in
//!   chunk order ([`StoredPlan`]). `tfplan-<workspace>-<name>` without `.json` is Terraform's own
//!   binary plan file, which only Terraform reads: it is recognised and refused plainly.
//! - ConfigMaps `tfplan-<workspace>-<name>` (`storeReadablePlan: human`): `data.tfplan` is the
//!   `terraform show` text, chunked the same way ([`TextPlanMap`]).
//! - State Secrets `tfstate-<workspace>-<suffix>` written by Terraform's `kubernetes` backend:
//!   `data.tfstate` is base64 of the gzip of the state ([`StateSecret`]).
//!
//! [`read`] turns one file's text into [`Object`]s; [`Objects::collect`] sorts the objects of one
//! or several files into workspaces and stored plans and states (chunks may come from different
//! files); [`Objects::single`] picks the one thing a single opened file holds. Other Secrets are
//! never decoded: they may hold real secrets, and Planlens has no business reading them.

use std::collections::BTreeMap;
use std::io::Read;

use base64::Engine;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

use super::LoadError;
use super::decode::{self, Decoded};
use super::yaml;

/// The API group of the controller's objects.
pub const GROUP: &str = "infra.contrib.fluxcd.io";
/// The annotation a chunk of a stored plan carries: its index, from 0.
pub const PLAN_CHUNK_ANNOTATION: &str = "infra.contrib.fluxcd.io/plan-chunk";
/// The label naming the plan a stored plan's Secrets and ConfigMaps belong to (`<name>` for the
/// binary plan and ConfigMap, `<name>.json` for the JSON plan).
pub const PLAN_NAME_LABEL: &str = "infra.contrib.fluxcd.io/plan-name";
/// The label naming the workspace of a stored plan.
pub const PLAN_WORKSPACE_LABEL: &str = "infra.contrib.fluxcd.io/plan-workspace";
/// The annotation holding the plan id (`plan-main-0a1b2c3d4e`) a stored plan was made as.
pub const SAVED_PLAN_ANNOTATION: &str = "savedPlan";
/// The largest condition message the controller writes, in characters; longer text is cut and
/// ends in `...`.
pub const MAX_CONDITION_MESSAGE: usize = 20_000;

/// `metadata` of any Kubernetes object: the parts Planlens reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Metadata {
    /// The object's name.
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    /// Its namespace (empty when the output left it out).
    #[serde(deserialize_with = "nullable")]
    pub namespace: String,
    /// Bumped by the API server on every change of the spec.
    pub generation: Option<i64>,
    /// Labels.
    #[serde(deserialize_with = "nullable")]
    pub labels: BTreeMap<String, String>,
    /// Annotations.
    #[serde(deserialize_with = "nullable")]
    pub annotations: BTreeMap<String, String>,
}

impl Metadata {
    /// `namespace/name`, or the name alone when the namespace is not known.
    pub fn id(&self) -> String {
        if self.namespace.is_empty() {
            self.name.clone()
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }
}

/// A `Terraform` object: one workspace the controller plans and applies.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Terraform {
    /// `infra.contrib.fluxcd.io/v1alpha2` or `…/v1alpha1`.
    #[serde(rename = "apiVersion")]
    pub api_version: String,
    /// Name, namespace, generation.
    pub metadata: Metadata,
    /// What the user asked for.
    pub spec: TerraformSpec,
    /// What the controller last saw and did.
    pub status: TerraformStatus,
}

/// `spec` of a `Terraform` object (the fields the fleet view reads).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TerraformSpec {
    /// `auto` (apply every plan), a plan id to apply that plan, or empty (apply nothing).
    #[serde(deserialize_with = "nullable")]
    pub approve_plan: String,
    /// The plan destroys everything.
    pub destroy: bool,
    /// The Terraform workspace; empty means `default`.
    #[serde(deserialize_with = "nullable")]
    pub workspace: String,
    /// How often the controller reconciles (`5m`).
    #[serde(deserialize_with = "nullable")]
    pub interval: String,
    /// Path to the configuration in the source.
    #[serde(deserialize_with = "nullable")]
    pub path: String,
    /// Where the configuration comes from.
    pub source_ref: Option<SourceRef>,
    /// Reconciliation is suspended.
    pub suspend: bool,
    /// Re-plan and apply without approval.
    pub force: bool,
    /// Drift detection is off.
    pub disable_drift_detection: bool,
    /// Stop after planning: never apply.
    pub plan_only: bool,
    /// `none`, `json` (a plan Secret `tfplan-<ws>-<name>.json`) or `human` (a ConfigMap).
    #[serde(deserialize_with = "nullable")]
    pub store_readable_plan: String,
    /// The `kubernetes` backend's settings (its `secretSuffix` names the state Secret).
    pub backend_config: Option<BackendConfig>,
}

/// `spec.sourceRef`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SourceRef {
    /// `GitRepository`, `OCIRepository`, `Bucket`.
    #[serde(deserialize_with = "nullable")]
    pub kind: String,
    /// Its name.
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    /// Its namespace, when another.
    #[serde(deserialize_with = "nullable")]
    pub namespace: String,
}

/// `spec.backendConfig`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BackendConfig {
    /// The state is not kept in a Kubernetes Secret.
    pub disable: bool,
    /// `tfstate-<workspace>-<secretSuffix>`; the object's name when empty.
    #[serde(deserialize_with = "nullable")]
    pub secret_suffix: String,
    /// A backend configured by hand (then the state is elsewhere).
    #[serde(deserialize_with = "nullable")]
    pub custom_configuration: String,
}

/// `status` of a `Terraform` object.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TerraformStatus {
    /// The generation the controller last reconciled.
    pub observed_generation: Option<i64>,
    /// `Ready`, `Plan`, `Apply`, `StateLocked`, `HealthCheck`, `Output`, …
    #[serde(deserialize_with = "nullable")]
    pub conditions: Vec<Condition>,
    /// The source revision last applied (`main@sha1:…` or `main/…`).
    #[serde(deserialize_with = "nullable")]
    pub last_applied_revision: String,
    /// The revision of the last attempt.
    #[serde(deserialize_with = "nullable")]
    pub last_attempted_revision: String,
    /// The revision of the last plan.
    #[serde(deserialize_with = "nullable")]
    pub last_planned_revision: String,
    /// `metadata.generation` when the last plan was made: a pending plan made for another
    /// generation is stale (the spec changed since).
    pub last_planned_generation: Option<i64>,
    /// When the last plan was made.
    pub last_plan_at: Option<String>,
    /// When drift was last found.
    pub last_drift_detected_at: Option<String>,
    /// When a drift-detection plan was last applied.
    pub last_applied_by_drift_detection_at: Option<String>,
    /// The pending plan and what was last applied.
    pub plan: PlanStatus,
    /// The state lock.
    pub lock: LockStatus,
    /// Failed reconciliations since the last success or change.
    pub reconciliation_failures: i64,
}

/// `status.plan`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PlanStatus {
    /// The id of the plan last applied.
    #[serde(deserialize_with = "nullable")]
    pub last_applied: String,
    /// The id of the plan waiting to be applied (`plan-main-0a1b2c3d4e`), empty when none.
    #[serde(deserialize_with = "nullable")]
    pub pending: String,
    /// The pending plan destroys everything.
    pub is_destroy_plan: bool,
    /// The pending plan was made because drift was found.
    pub is_drift_detection_plan: bool,
}

/// `status.lock`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LockStatus {
    /// The lock id last force-unlocked.
    #[serde(deserialize_with = "nullable")]
    pub last_applied: String,
    /// The id of a lock someone else holds (to force-unlock with `spec.tfstate.lockIdentifier`).
    #[serde(deserialize_with = "nullable")]
    pub pending: String,
}

/// One of `status.conditions` (Kubernetes' `metav1.Condition`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Condition {
    /// `Ready`, `Plan`, `Apply`, `StateLocked`, …
    #[serde(rename = "type", deserialize_with = "nullable")]
    pub condition_type: String,
    /// `True`, `False` or `Unknown`.
    #[serde(deserialize_with = "nullable")]
    pub status: String,
    /// `DriftDetected`, `TerraformPlannedWithChanges`, `TFExecPlanFailed`, …
    #[serde(deserialize_with = "nullable")]
    pub reason: String,
    /// Free text; for `DriftDetected` the human-readable plan.
    #[serde(deserialize_with = "nullable")]
    pub message: String,
    /// When `status` last changed.
    pub last_transition_time: Option<String>,
}

impl Terraform {
    /// The Terraform workspace (`default` when the spec leaves it empty, as the controller does).
    pub fn workspace(&self) -> &str {
        if self.spec.workspace.is_empty() {
            "default"
        } else {
            &self.spec.workspace
        }
    }

    /// The condition of this type, if the status has one.
    pub fn condition(&self, condition_type: &str) -> Option<&Condition> {
        self.status
            .conditions
            .iter()
            .find(|c| c.condition_type == condition_type)
    }

    /// The `Ready` condition's message when it is the human-readable plan of found drift
    /// (reason `DriftDetected`).
    pub fn drift_text(&self) -> Option<&str> {
        self.condition("Ready")
            .filter(|c| c.reason == "DriftDetected" && !c.message.trim().is_empty())
            .map(|c| c.message.as_str())
    }

    /// The name the controller gives this workspace's plan Secrets and ConfigMap:
    /// `tfplan-<workspace>-<name>`.
    pub fn plan_object_name(&self) -> String {
        format!("tfplan-{}-{}", self.workspace(), self.metadata.name)
    }

    /// The name of the state Secret Terraform's `kubernetes` backend writes for it:
    /// `tfstate-<workspace>-<secretSuffix or name>`.
    pub fn state_secret_name(&self) -> String {
        let suffix = self
            .spec
            .backend_config
            .as_ref()
            .map(|b| b.secret_suffix.as_str())
            .filter(|s| !s.is_empty())
            .unwrap_or(&self.metadata.name);
        format!("tfstate-{}-{}", self.workspace(), suffix)
    }
}

/// A Secret's or ConfigMap's name, labels, annotations and `data`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataObject {
    /// Name, namespace, labels, annotations.
    pub metadata: Metadata,
    /// `data` (base64 for a Secret, text for a ConfigMap).
    pub data: BTreeMap<String, String>,
}

/// One Kubernetes object of an opened file.
#[derive(Debug, Clone, PartialEq)]
pub enum Object {
    /// A tf-controller `Terraform` object.
    Terraform(Box<Terraform>),
    /// A Secret (any: [`Objects::collect`] decides whether the controller or Terraform wrote it).
    Secret(DataObject),
    /// A ConfigMap.
    ConfigMap(DataObject),
    /// Another kind of object, only named.
    Other {
        /// `Pod`, `GitRepository`, …
        kind: String,
        /// `namespace/name`.
        name: String,
    },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawObject<'a> {
    #[serde(default, deserialize_with = "nullable")]
    api_version: String,
    #[serde(default, deserialize_with = "nullable")]
    kind: String,
    #[serde(default, deserialize_with = "nullable")]
    metadata: Metadata,
    #[serde(default, deserialize_with = "nullable")]
    items: Vec<RawObject<'a>>,
    #[serde(default, deserialize_with = "nullable")]
    data: BTreeMap<String, Option<String>>,
    #[serde(default, borrow)]
    spec: Option<&'a RawValue>,
    #[serde(default, borrow)]
    status: Option<&'a RawValue>,
}

/// A null where Kubernetes output has one (`labels: null`, `approvePlan:` in YAML) reads as the
/// field's default.
fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// True when JSON's top-level keys (from the loader's look at an object that is not a plan) are
/// those of a Kubernetes object or list.
pub fn is_kube_keys(keys: &[String]) -> bool {
    keys.iter().any(|k| k == "apiVersion") && keys.iter().any(|k| k == "kind")
}

/// Reads one file's text — a Kubernetes object, a `List` (`kubectl get … -o json`), a JSON array
/// of objects, or the same as YAML (also several `---` documents) — into its objects, `List`s
/// flattened.
pub fn read(text: &str) -> Result<Vec<Object>, LoadError> {
    if yaml::looks_like_kube_yaml(text) {
        let json = yaml_to_json(text)?;
        return read_json(&json, "YAML");
    }
    read_json(text, "JSON")
}

#[cfg(not(target_arch = "wasm32"))]
fn yaml_to_json(text: &str) -> Result<String, LoadError> {
    yaml::yaml_to_json(text).map_err(|e| LoadError::InvalidReport {
        what: "Kubernetes YAML file".to_string(),
        line: e.line,
        column: e.column,
        message: if e.line == 0 {
            format!("it cannot be read: {}", e.message)
        } else {
            e.message
        },
    })
}

/// In the browser the YAML reader is not part of the first-visit module: the caller loads it,
/// turns the text into JSON with it and opens the JSON.
#[cfg(target_arch = "wasm32")]
fn yaml_to_json(_text: &str) -> Result<String, LoadError> {
    Err(LoadError::NeedsYamlReader)
}

fn read_json(text: &str, format: &str) -> Result<Vec<Object>, LoadError> {
    let shape = |e: serde_json::Error| LoadError::InvalidReport {
        what: format!("Kubernetes {format} file"),
        line: e.line(),
        column: e.column(),
        message: {
            let s = e.to_string();
            match s.rfind(" at line ") {
                Some(i) => s[..i].to_string(),
                None => s,
            }
        },
    };
    let raws: Vec<RawObject> = if text.trim_start().starts_with('[') {
        serde_json::from_str(text).map_err(shape)?
    } else {
        vec![serde_json::from_str(text).map_err(shape)?]
    };
    let mut out = Vec::new();
    for raw in raws {
        flatten(raw, &mut out, format)?;
    }
    Ok(out)
}

fn flatten(raw: RawObject, out: &mut Vec<Object>, format: &str) -> Result<(), LoadError> {
    let RawObject {
        api_version,
        kind,
        metadata,
        items,
        data,
        spec,
        status,
    } = raw;
    if kind.ends_with("List") && !items.is_empty() || kind == "List" {
        for item in items {
            flatten(item, out, format)?;
        }
        return Ok(());
    }
    let group = api_version.split('/').next().unwrap_or_default();
    let data = || {
        data.into_iter()
            .map(|(k, v)| (k, v.unwrap_or_default()))
            .collect()
    };
    out.push(match kind.as_str() {
        "Terraform" if group == GROUP => {
            let id = metadata.id();
            Object::Terraform(Box::new(Terraform {
                spec: part(spec, &id, "spec")?,
                status: part(status, &id, "status")?,
                api_version,
                metadata,
            }))
        }
        "Secret" if api_version == "v1" => Object::Secret(DataObject {
            metadata,
            data: data(),
        }),
        "ConfigMap" if api_version == "v1" => Object::ConfigMap(DataObject {
            metadata,
            data: data(),
        }),
        _ => Object::Other {
            kind: if kind.is_empty() {
                format!("an object without a kind ({format})")
            } else {
                kind
            },
            name: metadata.id(),
        },
    });
    Ok(())
}

/// A `Terraform` object's spec or status, typed (its default when absent).
fn part<T: for<'de> Deserialize<'de> + Default>(
    raw: Option<&RawValue>,
    id: &str,
    what: &str,
) -> Result<T, LoadError> {
    raw.map_or_else(
        || Ok(T::default()),
        |r| {
            serde_json::from_str(r.get()).map_err(|e| LoadError::InvalidReport {
                what: format!("tf-controller Terraform object ({id})"),
                line: 0,
                column: 0,
                message: format!("its {what} cannot be read: {e}"),
            })
        },
    )
}

/// The controller's plan JSON, kept in one Secret or joined from its chunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPlan {
    /// The namespace.
    pub namespace: String,
    /// The Secret's name, without a chunk's `-N` (`tfplan-default-web.json`).
    pub name: String,
    /// The `plan-workspace` label, when present.
    pub workspace: Option<String>,
    /// The `plan-name` label, when present (`web.json`).
    pub plan_name: Option<String>,
    /// The plan id of the `savedPlan` annotation.
    pub plan_id: Option<String>,
    /// How many Secrets it was joined from (1 when not chunked).
    pub chunks: usize,
    /// JSON (`…​.json`) or Terraform's binary plan file.
    pub format: PlanFormat,
    /// The joined gzip bytes, or why they cannot be had (bad base64, a missing chunk).
    pub bytes: Result<Vec<u8>, LoadError>,
    /// The Secrets as read ([`Stored::source_json`]).
    pub sources: Vec<DataObject>,
}

/// What a plan Secret holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanFormat {
    /// `terraform show -json` of the plan.
    Json,
    /// Terraform's binary plan file (a zip): only `terraform show` reads it.
    Binary,
}

/// The controller's human-readable plan, kept in a ConfigMap (or joined from its chunks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextPlanMap {
    /// The namespace.
    pub namespace: String,
    /// The ConfigMap's name without a chunk's `-N` (`tfplan-default-web`).
    pub name: String,
    /// The `plan-workspace` label, when present.
    pub workspace: Option<String>,
    /// The `plan-name` label, when present.
    pub plan_name: Option<String>,
    /// The plan id of the `savedPlan` annotation.
    pub plan_id: Option<String>,
    /// How many ConfigMaps it was joined from.
    pub chunks: usize,
    /// The `terraform show` text, or why it cannot be had.
    pub text: Result<String, LoadError>,
    /// The ConfigMaps as read ([`Stored::source_json`]).
    pub sources: Vec<DataObject>,
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

/// What a [`Stored`] thing holds, decoded: the text for the matching reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Plan JSON (gzip undone, with its notes).
    Plan(Decoded),
    /// A human-readable plan.
    TextPlan(String),
    /// A state (gzip undone, with its notes).
    State(Decoded),
}

/// A [`Stored`] thing unpacked: its decoded [`Content`] with what the opened document says about
/// where it came from. What the readers' part gives back for Kubernetes objects
/// (`load::readers::read_kube`), so the first-visit module needs none of this file's reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpacked {
    /// [`Stored::label`].
    pub label: String,
    /// [`Stored::note`].
    pub note: String,
    /// [`Stored::content`].
    pub content: Content,
}

impl Objects {
    /// Sorts the objects of one or more files. Chunks are grouped by namespace and name (without
    /// `-N`) and joined in the order of their `plan-chunk` annotation; a gap, a chunk given twice
    /// with other contents, or chunks of different plan ids make that plan unreadable with a
    /// message naming what is wrong (the rest still reads).
    pub fn collect(objects: Vec<Object>) -> Objects {
        let mut out = Objects::default();
        let mut plan_chunks: BTreeMap<(String, String), Vec<Chunk>> = BTreeMap::new();
        let mut map_chunks: BTreeMap<(String, String), Vec<Chunk>> = BTreeMap::new();
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
                Object::Secret(s) if is_plan_object(&s) => {
                    let chunk = Chunk::of(s);
                    plan_chunks
                        .entry((chunk.meta.namespace.clone(), chunk.base.clone()))
                        .or_default()
                        .push(chunk);
                }
                Object::ConfigMap(c) if is_plan_object(&c) => {
                    let chunk = Chunk::of(c);
                    map_chunks
                        .entry((chunk.meta.namespace.clone(), chunk.base.clone()))
                        .or_default()
                        .push(chunk);
                }
                Object::Secret(s) if is_state_secret(&s) => out.states.push(state_secret(s)),
                Object::Secret(s) => out.skipped.push(format!("Secret {}", s.metadata.id())),
                Object::ConfigMap(c) => out.skipped.push(format!("ConfigMap {}", c.metadata.id())),
                Object::Other { kind, name } => out.skipped.push(format!("{kind} {name}")),
            }
        }
        for ((namespace, name), chunks) in plan_chunks {
            let first = chunks[0].meta.clone();
            let count = chunks.len();
            let format = if name.ends_with(".json")
                || first
                    .labels
                    .get(PLAN_NAME_LABEL)
                    .is_some_and(|n| n.ends_with(".json"))
            {
                PlanFormat::Json
            } else {
                PlanFormat::Binary
            };
            let label = format!("Secret {namespace}/{name}");
            let sources = chunks.iter().map(|c| c.source.clone()).collect();
            let bytes = join(&label, chunks, "tfplan").and_then(|parts| {
                parts
                    .into_iter()
                    .map(|(key, text)| base64_of(&label, &key, &text))
                    .collect::<Result<Vec<_>, _>>()
                    .map(|v| v.concat())
            });
            out.plans.push(StoredPlan {
                workspace: first.labels.get(PLAN_WORKSPACE_LABEL).cloned(),
                plan_name: first.labels.get(PLAN_NAME_LABEL).cloned(),
                plan_id: first.annotations.get(SAVED_PLAN_ANNOTATION).cloned(),
                chunks: count,
                format,
                bytes,
                sources,
                namespace,
                name,
            });
        }
        for ((namespace, name), chunks) in map_chunks {
            let first = chunks[0].meta.clone();
            let count = chunks.len();
            let label = format!("ConfigMap {namespace}/{name}");
            let sources = chunks.iter().map(|c| c.source.clone()).collect();
            let text = join(&label, chunks, "tfplan")
                .map(|parts| parts.into_iter().map(|(_, text)| text).collect::<String>());
            out.text_plans.push(TextPlanMap {
                workspace: first.labels.get(PLAN_WORKSPACE_LABEL).cloned(),
                plan_name: first.labels.get(PLAN_NAME_LABEL).cloned(),
                plan_id: first.annotations.get(SAVED_PLAN_ANNOTATION).cloned(),
                chunks: count,
                text,
                sources,
                namespace,
                name,
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

fn binary_plan_error(plan: &StoredPlan) -> LoadError {
    LoadError::Controller {
        message: format!(
            "The Secret {}/{} holds Terraform's binary plan file, which only Terraform reads. \
             Set `storeReadablePlan: json` on the Terraform object and open the Secret `{}.json` \
             the controller then writes, or run `terraform show -json` on the plan file.",
            plan.namespace, plan.name, plan.name
        ),
    }
}

impl Stored<'_> {
    /// What it is, for messages and notes: `Secret flux-system/tfplan-default-web.json (3
    /// chunks)`.
    pub fn label(&self) -> String {
        let chunks = |n: usize| {
            if n > 1 {
                format!(" ({n} chunks)")
            } else {
                String::new()
            }
        };
        match self {
            Stored::Plan(p) => format!("Secret {}/{}{}", p.namespace, p.name, chunks(p.chunks)),
            Stored::TextPlan(t) => {
                format!("ConfigMap {}/{}{}", t.namespace, t.name, chunks(t.chunks))
            }
            Stored::State(s) => format!("Secret {}/{}", s.namespace, s.name),
            Stored::DriftMessage(t) => {
                format!("Terraform {} (its Ready message)", t.metadata.id())
            }
        }
    }

    /// The Kubernetes objects it was read from, as the JSON of a `List` (a plan's chunks, a
    /// ConfigMap, a state Secret, a `Terraform` object): opened as a file, it gives the same
    /// document. The page opens a fleet row's plan this way, in a worker of its own.
    pub fn source_json(&self) -> String {
        let data_object = |kind: &str, o: &DataObject| {
            serde_json::json!({
                "apiVersion": "v1",
                "kind": kind,
                "metadata": o.metadata,
                "data": o.data,
            })
        };
        let items: Vec<serde_json::Value> = match self {
            Stored::Plan(p) => p.sources.iter().map(|o| data_object("Secret", o)).collect(),
            Stored::TextPlan(t) => t
                .sources
                .iter()
                .map(|o| data_object("ConfigMap", o))
                .collect(),
            Stored::State(s) => vec![data_object("Secret", &s.source)],
            Stored::DriftMessage(t) => vec![serde_json::json!({
                "apiVersion": t.api_version,
                "kind": "Terraform",
                "metadata": t.metadata,
                "spec": t.spec,
                "status": t.status,
            })],
        };
        serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string()
    }

    /// A note for the opened document: where its text came from.
    pub fn note(&self) -> String {
        match self {
            Stored::Plan(_) => format!("Read the plan from {}: base64, gzip.", self.label()),
            Stored::TextPlan(_) => format!("Read the human-readable plan from {}.", self.label()),
            Stored::State(_) => format!("Read the state from {}: base64, gzip.", self.label()),
            Stored::DriftMessage(t) => {
                let mut note = format!(
                    "Read the drift plan from the Ready condition's message of Terraform {}",
                    t.metadata.id()
                );
                if let Some(at) = &t.status.last_drift_detected_at {
                    note.push_str(&format!(" (drift detected at {at})"));
                }
                note.push('.');
                if t.drift_text().is_some_and(|m| {
                    m.chars().count() > MAX_CONDITION_MESSAGE && m.ends_with("...")
                }) {
                    note.push_str(&format!(
                        " The controller cut the message at {MAX_CONDITION_MESSAGE} characters: \
                         the end of the plan is missing."
                    ));
                }
                note
            }
        }
    }

    /// [`Stored::content`] with the label and note of the document it opens as.
    pub fn unpack(&self) -> Result<Unpacked, LoadError> {
        Ok(Unpacked {
            content: self.content()?,
            label: self.label(),
            note: self.note(),
        })
    }

    /// The decoded text, for the plan, text-plan or state reader: base64 and gzip undone, chunks
    /// joined. A plan Secret holding another Kubernetes object is refused (no Secret inside a
    /// Secret), and so is Terraform's binary plan file.
    pub fn content(&self) -> Result<Content, LoadError> {
        match self {
            Stored::Plan(p) => {
                if p.format == PlanFormat::Binary {
                    return Err(binary_plan_error(p));
                }
                let bytes = p.bytes.clone()?;
                if is_zip_in_gzip(&bytes) {
                    return Err(binary_plan_error(p));
                }
                let decoded = gunzip(&self.label(), bytes, p.chunks)?;
                refuse_nested(&self.label(), &decoded.text)?;
                Ok(Content::Plan(decoded))
            }
            Stored::TextPlan(t) => t.text.clone().map(Content::TextPlan),
            Stored::State(s) => {
                let decoded = gunzip(&self.label(), s.bytes.clone()?, 1)?;
                refuse_nested(&self.label(), &decoded.text)?;
                Ok(Content::State(decoded))
            }
            Stored::DriftMessage(t) => Ok(Content::TextPlan(
                t.drift_text().unwrap_or_default().to_string(),
            )),
        }
    }
}

/// Undoes the gzip of a stored plan or state through the loader's own decoding (size limit,
/// UTF-16), with messages that name the object.
fn gunzip(label: &str, bytes: Vec<u8>, chunks: usize) -> Result<Decoded, LoadError> {
    let gzip = bytes.starts_with(&[0x1f, 0x8b]);
    // The controller always compresses; data that is plain text is read as it is.
    match decode::decode(bytes) {
        Ok(decoded) => Ok(decoded),
        Err(LoadError::BadGzip { message }) => Err(LoadError::Controller {
            message: format!(
                "The data of {label} is not valid gzip ({message}).{}",
                if chunks > 1 {
                    format!(
                        " It was joined from {chunks} chunks: a chunk after the last one given \
                         may be missing, or a chunk is damaged."
                    )
                } else {
                    " Was the Secret copied completely?".to_string()
                }
            ),
        }),
        Err(LoadError::NotUtf8 { .. }) if !gzip => Err(LoadError::Controller {
            message: format!(
                "The data of {label} is neither gzip (as the controller writes it) nor text."
            ),
        }),
        Err(e) => Err(e),
    }
}

/// True when gzip `bytes` inflate to a zip archive: Terraform's binary plan file.
fn is_zip_in_gzip(bytes: &[u8]) -> bool {
    let mut head = [0u8; 4];
    bytes.starts_with(&[0x1f, 0x8b])
        && flate2::read::GzDecoder::new(bytes)
            .read_exact(&mut head)
            .is_ok()
        && head == *b"PK\x03\x04"
}

fn refuse_nested(label: &str, text: &str) -> Result<(), LoadError> {
    let head = text.trim_start();
    let nested = yaml::looks_like_kube_yaml(text)
        || (head.starts_with('{') && {
            // Only the top level matters: plans hold `apiVersion` inside resource values.
            #[derive(Deserialize)]
            struct Keys {
                #[serde(rename = "apiVersion")]
                api_version: Option<serde::de::IgnoredAny>,
                kind: Option<serde::de::IgnoredAny>,
                format_version: Option<serde::de::IgnoredAny>,
            }
            serde_json::from_str::<Keys>(head).is_ok_and(|k| {
                k.api_version.is_some() && k.kind.is_some() && k.format_version.is_none()
            })
        });
    if nested {
        return Err(LoadError::Controller {
            message: format!(
                "The data of {label} is itself a Kubernetes object, not a plan or state: \
                 Planlens does not open objects inside Secrets."
            ),
        });
    }
    Ok(())
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

/// One Secret or ConfigMap of a stored plan, with its place among the chunks.
struct Chunk {
    /// The object as read.
    source: DataObject,
    meta: Metadata,
    /// The name without `-N` when it is a chunk.
    base: String,
    /// The `plan-chunk` index, when it is a chunk.
    index: Option<Result<usize, String>>,
    data: String,
}

impl Chunk {
    fn of(o: DataObject) -> Chunk {
        let source = o.clone();
        let DataObject { metadata, mut data } = o;
        let index = metadata
            .annotations
            .get(PLAN_CHUNK_ANNOTATION)
            .filter(|s| !s.is_empty())
            .map(|s| s.trim().parse::<usize>().map_err(|_| s.clone()));
        let base = match &index {
            Some(Ok(i)) => metadata
                .name
                .strip_suffix(&format!("-{i}"))
                .unwrap_or(&metadata.name)
                .to_string(),
            _ => metadata.name.clone(),
        };
        Chunk {
            source,
            data: data.remove("tfplan").unwrap_or_default(),
            meta: metadata,
            base,
            index,
        }
    }
}

/// Orders the chunks of one stored plan: `(object name, data)` in chunk order.
fn join(
    label: &str,
    mut chunks: Vec<Chunk>,
    key: &str,
) -> Result<Vec<(String, String)>, LoadError> {
    let problem = |message: String| Err(LoadError::Controller { message });
    if chunks.len() == 1 && chunks[0].index.is_none() {
        let chunk = chunks.remove(0);
        return Ok(vec![(key.to_string(), chunk.data)]);
    }
    let mut by_index: BTreeMap<usize, Chunk> = BTreeMap::new();
    for chunk in chunks {
        let index = match &chunk.index {
            Some(Ok(i)) => *i,
            Some(Err(bad)) => {
                return problem(format!(
                    "{label}: the chunk {} has the annotation {PLAN_CHUNK_ANNOTATION}: \"{bad}\", \
                     which is not a chunk number.",
                    chunk.meta.name
                ));
            }
            None => {
                return problem(format!(
                    "{label}: {} has no {PLAN_CHUNK_ANNOTATION} annotation but other Secrets of \
                     the same plan do: the plan is given both whole and in chunks.",
                    chunk.meta.name
                ));
            }
        };
        if let Some(before) = by_index.get(&index) {
            if before.data != chunk.data {
                return problem(format!(
                    "{label}: chunk {index} is given twice with different contents."
                ));
            }
            continue;
        }
        by_index.insert(index, chunk);
    }
    let ids: BTreeMap<&str, Vec<usize>> = by_index.iter().fold(BTreeMap::new(), |mut m, (i, c)| {
        m.entry(
            c.meta
                .annotations
                .get(SAVED_PLAN_ANNOTATION)
                .map_or("(none)", String::as_str),
        )
        .or_default()
        .push(*i);
        m
    });
    if ids.len() > 1 {
        return problem(format!(
            "{label}: the chunks belong to different plans ({}): open the chunks of one plan.",
            ids.iter()
                .map(|(id, idx)| format!("{id}: chunks {}", numbers(idx)))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    let have: Vec<usize> = by_index.keys().copied().collect();
    let last = have.last().copied().unwrap_or(0);
    let missing: Vec<usize> = (0..=last).filter(|i| !by_index.contains_key(i)).collect();
    if !missing.is_empty() {
        let base = label.split_once('/').map_or(label, |(_, n)| n);
        return problem(format!(
            "{label} is cut into chunks and {} missing ({}); the file has {}. Get them all with \
             `kubectl get secret -n NAMESPACE -l {PLAN_NAME_LABEL}=… -o json` (the Secrets \
             `{base}-0`, `{base}-1`, …).",
            if missing.len() == 1 {
                format!("chunk {} is", missing[0])
            } else {
                format!("chunks {} are", numbers(&missing))
            },
            missing
                .iter()
                .map(|i| format!("{base}-{i}"))
                .collect::<Vec<_>>()
                .join(", "),
            if have.len() == 1 {
                format!("only chunk {}", have[0])
            } else {
                format!("chunks {}", numbers(&have))
            }
        ));
    }
    Ok(by_index
        .into_values()
        .map(|c| (format!("{}, data.{key}", c.meta.name), c.data))
        .collect())
}

fn numbers(list: &[usize]) -> String {
    list.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn list_some(items: &[String]) -> String {
    let mut shown: Vec<&str> = items.iter().take(5).map(String::as_str).collect();
    if items.len() > 5 {
        shown.push("…");
    }
    shown.join(", ")
}

/// Decodes a Secret's `data` value (standard base64; line breaks and spaces, which a copy may add,
/// are ignored).
fn base64_of(label: &str, key: &str, text: &str) -> Result<Vec<u8>, LoadError> {
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .map_err(|e| {
            let what = match e {
                base64::DecodeError::InvalidByte(at, byte) => format!(
                    "the character {:?} at position {} is not one of base64's",
                    char::from(byte),
                    at + 1
                ),
                base64::DecodeError::InvalidLength(_) | base64::DecodeError::InvalidPadding => {
                    "its length or padding is wrong: it may be cut off".to_string()
                }
                base64::DecodeError::InvalidLastSymbol(at, _) => {
                    format!("it ends wrongly at position {}", at + 1)
                }
            };
            LoadError::Controller {
                message: format!(
                    "The data of {label} ({key}) is not valid base64: {what}. Kubernetes writes a \
                     Secret's data as base64; was it edited or copied incompletely?"
                ),
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_and_names_follow_the_controller() {
        let mut t = Terraform::default();
        t.metadata.name = "web".into();
        assert_eq!(t.workspace(), "default");
        assert_eq!(t.plan_object_name(), "tfplan-default-web");
        assert_eq!(t.state_secret_name(), "tfstate-default-web");
        t.spec.workspace = "prod".into();
        t.spec.backend_config = Some(BackendConfig {
            secret_suffix: "shared".into(),
            ..BackendConfig::default()
        });
        assert_eq!(t.state_secret_name(), "tfstate-prod-shared");
    }

    #[test]
    fn nulls_read_as_defaults() {
        let objects = read(
            r#"{"apiVersion":"infra.contrib.fluxcd.io/v1alpha2","kind":"Terraform",
                "metadata":{"name":"a","labels":null},"spec":{"approvePlan":null},"status":null}"#,
        )
        .unwrap();
        let Object::Terraform(t) = &objects[0] else {
            panic!("{objects:?}")
        };
        assert_eq!(t.spec.approve_plan, "");
    }
}
