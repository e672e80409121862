//! The Kubernetes objects Planlens reads, typed: a `Terraform` object's spec and status (from
//! the controller's `api/v1alpha2`), Secrets and ConfigMaps by name and data, others only named.
//! Plain data with the controller's own naming rules; never reads a file or decodes data.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

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
    /// A Secret (any: [`Objects::collect`](super::Objects::collect) decides whether the controller or Terraform wrote it).
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

/// A null where Kubernetes output has one (`labels: null`, `approvePlan:` in YAML) reads as the
/// field's default.
pub(super) fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
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
}
