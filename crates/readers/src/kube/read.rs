//! One file's text (JSON or YAML; an object, a `List`, an array, several documents) → its
//! [`Object`]s, `List`s flattened. Never decodes a Secret's data.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::GROUP;
use super::objects::{DataObject, Metadata, Object, Terraform, nullable};
use planlens_load::LoadError;
pub use planlens_load::kube::is_kube_keys;
use planlens_load::yaml;

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

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
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
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
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

#[cfg(test)]
mod tests {
    use super::*;

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
