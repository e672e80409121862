//! A stored plan's chunks, one way for Secrets and ConfigMaps: over 1 MB the controller cuts a
//! plan into objects `…-0`, `…-1`, … annotated `plan-chunk`; [`Chunks`] gathers them (from one
//! or several files) and joins each plan's data in chunk order, or says what is missing or mixed.
//! Also decodes a Secret's base64. Never decompresses: `stored.rs` does, through `decode`.

use std::collections::BTreeMap;

use base64::Engine;

use super::collect::PlanObjects;
use super::objects::{DataObject, Metadata};
use super::{PLAN_CHUNK_ANNOTATION, PLAN_NAME_LABEL, PLAN_WORKSPACE_LABEL, SAVED_PLAN_ANNOTATION};
use planlens_load::LoadError;

/// The data key of a stored plan's objects.
const KEY: &str = "tfplan";

/// Plan Secrets or plan ConfigMaps gathered by namespace and name (without a chunk's `-N`).
#[derive(Default)]
pub(super) struct Chunks(BTreeMap<(String, String), Vec<Chunk>>);

/// One stored plan's objects with their data joined.
pub(super) struct Joined {
    /// Where the plan is kept, from its first object.
    pub objects: PlanObjects,
    /// `Secret NAMESPACE/NAME` or `ConfigMap NAMESPACE/NAME`, for messages.
    pub label: String,
    /// `(object name and key, data)` in chunk order, or why the chunks do not make one plan.
    pub parts: Result<Vec<(String, String)>, LoadError>,
}

impl Chunks {
    /// Adds one object of a stored plan.
    pub fn add(&mut self, o: DataObject) {
        let chunk = Chunk::of(o);
        self.0
            .entry((chunk.meta.namespace.clone(), chunk.base.clone()))
            .or_default()
            .push(chunk);
    }

    /// Each stored plan, by namespace and name, its chunks joined; `kind` (`Secret`, `ConfigMap`)
    /// names its objects in messages.
    pub fn join(self, kind: &str) -> impl Iterator<Item = Joined> {
        self.0.into_iter().map(move |((namespace, name), chunks)| {
            let first = &chunks[0].meta;
            let label = format!("{kind} {namespace}/{name}");
            let objects = PlanObjects {
                workspace: first.labels.get(PLAN_WORKSPACE_LABEL).cloned(),
                plan_name: first.labels.get(PLAN_NAME_LABEL).cloned(),
                plan_id: first.annotations.get(SAVED_PLAN_ANNOTATION).cloned(),
                chunks: chunks.len(),
                sources: chunks.iter().map(|c| c.source.clone()).collect(),
                namespace,
                name,
            };
            Joined {
                parts: join(&label, chunks, KEY),
                objects,
                label,
            }
        })
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
            data: data.remove(KEY).unwrap_or_default(),
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
/// Decodes a Secret's `data` value (standard base64; line breaks and spaces, which a copy may add,
/// are ignored).
pub(super) fn base64_of(label: &str, key: &str, text: &str) -> Result<Vec<u8>, LoadError> {
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
