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
//!
//! The files follow that path: [`objects`](self) types what is read (`objects.rs`), `read.rs` reads
//! a file into objects, `collect.rs` sorts them, `chunks.rs` joins a stored plan's chunks and
//! `stored.rs` decodes one stored thing for its reader.
//!
//! `Objects::single` prefers a plan Secret, then a plan ConfigMap (a text plan), then a state
//! Secret, then one `Terraform` object's drift message. `Stored::unpack` gives the decoded content
//! with the document's label and note (`planlens_load::kube::Unpacked`, what crosses from the
//! readers' part), which `planlens_load::load_unpacked_with` opens (`crate::load_stored_with`);
//! `Stored::source_json` gives the objects back as a file. Plan Secrets and plan ConfigMaps share
//! one chunk handler (`Chunks`; their common fields are one `PlanObjects`). A missing chunk, mixed
//! plan ids, bad base64 or gzip, Terraform's binary plan file and a Secret inside a Secret are
//! `LoadError`s naming the object.
//!
//! Only detection and the port's types are in the browser's first-visit module
//! (`planlens_load::kube`: `is_kube_keys`, `Unpacked`, `Content`;
//! `planlens_load::yaml::looks_like_kube_yaml`): the reading runs natively or in `part-readers`
//! (`load::Readers::kube`).

mod chunks;
mod collect;
mod objects;
mod read;
mod stored;

pub use collect::{
    Content, Objects, PlanFormat, PlanObjects, StateSecret, Stored, StoredPlan, TextPlanMap,
    Unpacked,
};
pub use objects::{
    BackendConfig, Condition, DataObject, LockStatus, Metadata, Object, PlanStatus, SourceRef,
    Terraform, TerraformSpec, TerraformStatus,
};
pub use read::{is_kube_keys, read};

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
