//! One stored thing opened: its label and note, its objects given back as a file, and its
//! content decoded for the matching reader (base64 and gzip undone through `decode`, Terraform's
//! binary plan and objects inside Secrets refused). Never reads the plan or state itself.

use std::io::Read;

use serde::Deserialize;

use super::MAX_CONDITION_MESSAGE;
use super::collect::{Content, PlanFormat, Stored, StoredPlan, Unpacked};
use super::objects::DataObject;
use planlens_load::LoadError;
use planlens_load::decode::{self, Decoded};
use planlens_load::yaml;

pub(super) fn binary_plan_error(plan: &StoredPlan) -> LoadError {
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
