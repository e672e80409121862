//! What the loader needs to know of Flux's Terraform controller's Kubernetes objects without
//! reading them: whether JSON's keys are a Kubernetes object's ([`is_kube_keys`]) and what the
//! readers give back for one file's objects ([`Unpacked`]), which the loader opens. The reading
//! (objects, chunks, stored plans and states) is `planlens_readers::kube`.

use crate::decode::Decoded;

/// True when JSON's top-level keys (from the loader's look at an object that is not a plan) are
/// those of a Kubernetes object or list.
pub fn is_kube_keys(keys: &[String]) -> bool {
    keys.iter().any(|k| k == "apiVersion") && keys.iter().any(|k| k == "kind")
}

/// What a stored thing (`planlens_readers::kube::Stored`) holds, decoded: the text for the
/// matching reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Plan JSON (gzip undone, with its notes).
    Plan(Decoded),
    /// A human-readable plan.
    TextPlan(String),
    /// A state (gzip undone, with its notes).
    State(Decoded),
}

/// A stored thing unpacked: its decoded [`Content`] with what the opened document says about
/// where it came from. What the readers' part gives back for Kubernetes objects
/// ([`crate::Readers::kube`]), so the first-visit module needs none of the reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpacked {
    /// The stored thing's label (`Stored::label`).
    pub label: String,
    /// The note on where it came from (`Stored::note`).
    pub note: String,
    /// Its content (`Stored::content`).
    pub content: Content,
}
