//! What Flux's Terraform controller stores in Kubernetes opens like the plan or state it holds:
//! plan Secrets (whole, chunked, YAML), plan ConfigMaps, state Secrets, a Terraform object's drift
//! message; lists of workspaces, missing chunks and corrupt data are refused with a message that
//! says what to do. Fixtures: tests/fixtures/kube (made by its make.py from our own fixtures), and
//! Secrets made here at run time from every real plan (gzip + base64, whole and chunked).

use crate::common;

use std::io::Write;

use base64::Engine;
use planlens::load::kube::{self, Objects, Stored};
use planlens::model::Source;
use planlens::{Document, LoadError, Summary, load_plan, load_plan_text};

fn kube_fixture(name: &str) -> Vec<u8> {
    common::own_fixture(&format!("kube/{name}"))
}

fn open(name: &str) -> Result<Document, LoadError> {
    load_plan(kube_fixture(name), name)
}

fn open_ok(name: &str) -> Document {
    open(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn message(name: &str) -> String {
    match open(name) {
        Ok(doc) => panic!("{name} opened as {:?}", doc.source.kind()),
        Err(e) => e.to_string(),
    }
}

/// What the list shows: address and action per row, in order.
fn rows(doc: &Document) -> Vec<String> {
    doc.rows
        .iter()
        .map(|r| format!("{} {}", doc.change(r).address, r.action.key()))
        .collect()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn b64(data: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(data)
}

/// The Secrets the controller writes for a plan JSON: one, or chunks of `chunk` gzip bytes.
fn plan_secrets(plan: &[u8], chunk: Option<usize>) -> Vec<serde_json::Value> {
    let data = gzip(plan);
    let pieces: Vec<(String, Option<usize>, &[u8])> = match chunk {
        None => vec![("tfplan-default-app.json".into(), None, &data[..])],
        Some(n) => data
            .chunks(n)
            .enumerate()
            .map(|(i, c)| (format!("tfplan-default-app.json-{i}"), Some(i), c))
            .collect(),
    };
    pieces
        .into_iter()
        .map(|(name, index, piece)| {
            let mut annotations =
                serde_json::json!({"encoding": "gzip", "savedPlan": "plan-main-abc"});
            if let Some(i) = index {
                annotations["infra.contrib.fluxcd.io/plan-chunk"] = i.to_string().into();
            }
            serde_json::json!({
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": {
                    "name": name,
                    "namespace": "apps",
                    "annotations": annotations,
                    "labels": {
                        "infra.contrib.fluxcd.io/plan-name": "app.json",
                        "infra.contrib.fluxcd.io/plan-workspace": "default"
                    }
                },
                "type": "Opaque",
                "data": {"tfplan": b64(piece)}
            })
        })
        .collect()
}

fn list(items: Vec<serde_json::Value>) -> Vec<u8> {
    serde_json::to_vec_pretty(
        &serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}),
    )
    .unwrap()
}

#[test]
fn a_plan_secret_opens_as_its_plan() {
    let direct = common::load_own("blast_radius.json");
    for name in [
        "plan-secret.json",
        "plan-secret.yaml",
        "plan-secret-chunked.json",
    ] {
        let doc = open_ok(name);
        assert_eq!(doc.source, Source::Plan, "{name}");
        assert_eq!(rows(&doc), rows(&direct), "{name}");
        assert_eq!(
            Summary::of(&doc).sentence(),
            Summary::of(&direct).sentence(),
            "{name}"
        );
        assert!(
            doc.notes[0].contains("Secret team-a/tfplan-default-web.json"),
            "{name}: {:?}",
            doc.notes
        );
    }
    // The chunked list is written out of order (chunk 1 first): joined by the annotation.
    let chunked = open_ok("plan-secret-chunked.json");
    assert!(
        chunked.notes[0].contains("(4 chunks)"),
        "{:?}",
        chunked.notes
    );
}

#[test]
fn every_real_plan_opens_the_same_from_a_secret_whole_chunked_and_as_yaml() {
    let paths = common::real_fixture_paths();
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(path).unwrap();
        let Ok(direct) = load_plan(bytes.clone(), &name) else {
            continue;
        };
        let gz_len = gzip(&bytes).len();
        let mut chunked = plan_secrets(&bytes, Some(gz_len.div_ceil(3).max(1)));
        chunked.reverse();
        let secret = &plan_secrets(&bytes, None)[0];
        let yaml = format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: tfplan-default-app.json\n  \
             namespace: apps\ntype: Opaque\ndata:\n  tfplan: {}\n",
            secret["data"]["tfplan"].as_str().unwrap()
        );
        for (how, input) in [
            ("whole", serde_json::to_vec(secret).unwrap()),
            ("chunked", list(chunked.clone())),
            ("yaml", yaml.into_bytes()),
        ] {
            let doc = load_plan(input, &name).unwrap_or_else(|e| panic!("{name} ({how}): {e}"));
            assert_eq!(doc.source.kind(), direct.source.kind(), "{name} ({how})");
            assert_eq!(rows(&doc), rows(&direct), "{name} ({how})");
            assert_eq!(
                Summary::of(&doc).sentence(),
                Summary::of(&direct).sentence(),
                "{name} ({how})"
            );
        }
    }
    if !paths.is_empty() {
        eprintln!("{} real files opened from Secrets", paths.len());
    }
}

#[test]
fn a_missing_chunk_is_named() {
    let m = message("plan-secret-chunk-missing.json");
    assert!(m.contains("chunk 1 is missing"), "{m}");
    assert!(m.contains("tfplan-default-web.json-1"), "{m}");
    assert!(m.contains("chunks 0, 2, 3"), "{m}");
}

#[test]
fn chunks_of_different_plans_are_refused() {
    let m = message("plan-secret-chunks-mixed.json");
    assert!(m.contains("different plans"), "{m}");
    assert!(m.contains("plan-main-0a1b2c3d4e: chunks 1"), "{m}");
}

#[test]
fn a_last_chunk_missing_is_suspected_when_the_gzip_stops_early() {
    let plan = common::own_fixture("blast_radius.json");
    let mut chunks = plan_secrets(&plan, Some(200));
    chunks.pop();
    let m = load_plan(list(chunks), "cut.json").unwrap_err().to_string();
    assert!(m.contains("not valid gzip"), "{m}");
    assert!(
        m.contains("a chunk after the last one given may be missing"),
        "{m}"
    );
}

#[test]
fn corrupt_base64_and_gzip_get_clear_messages() {
    let m = message("plan-secret-bad-base64.json");
    assert!(m.contains("Secret team-a/tfplan-default-web.json"), "{m}");
    assert!(m.contains("not valid base64"), "{m}");
    assert!(m.contains("'!' at position 41"), "{m}");
    let m = message("plan-secret-bad-gzip.json");
    assert!(m.contains("Secret team-a/tfplan-default-web.json"), "{m}");
    assert!(m.contains("not valid gzip"), "{m}");
}

#[test]
fn the_binary_plan_secret_is_refused_with_what_to_open_instead() {
    let m = message("plan-secret-binary.json");
    assert!(m.contains("binary plan file"), "{m}");
    assert!(m.contains("storeReadablePlan: json"), "{m}");
    assert!(m.contains("tfplan-default-web.json"), "{m}");
}

#[test]
fn a_state_secret_opens_as_the_state() {
    let doc = open_ok("state-secret.json");
    assert!(
        matches!(doc.source, Source::State(_)),
        "{:?}",
        doc.source.kind()
    );
    let direct = common::load_own("state.json");
    assert_eq!(rows(&doc), rows(&direct));
    assert!(
        doc.notes[0].contains("Secret team-a/tfstate-default-web"),
        "{:?}",
        doc.notes
    );
}

#[test]
fn a_plan_configmap_opens_as_a_text_plan() {
    let doc = open_ok("configmap-text-plan.json");
    assert!(
        matches!(doc.source, Source::TextPlan(_)),
        "{:?}",
        doc.source.kind()
    );
    assert_eq!(
        rows(&doc),
        [
            "aws_s3_bucket.logs delete",
            "aws_subnet.a[0] update",
            "aws_vpc.main replace",
            "module.dns.aws_route53_record.app create"
        ]
    );
    assert!(
        doc.notes[0].contains("ConfigMap team-b/tfplan-default-edge"),
        "{:?}",
        doc.notes
    );
}

#[test]
fn a_drifted_terraform_object_opens_its_drift_plan() {
    let doc = open_ok("terraform-drift.json");
    assert!(matches!(doc.source, Source::TextPlan(_)));
    assert_eq!(
        rows(&doc),
        ["aws_s3_bucket.logs create", "aws_security_group.web update"]
    );
    assert!(
        doc.notes[0].contains("Ready condition's message of Terraform team-b/edge")
            && doc.notes[0].contains("2026-11-24T19:42:10Z"),
        "{:?}",
        doc.notes
    );
}

#[test]
fn a_list_of_workspaces_points_to_the_fleet() {
    for name in ["terraforms.json", "terraforms.yaml"] {
        let m = message(name);
        assert!(
            m.contains("16 tf-controller Terraform objects"),
            "{name}: {m}"
        );
        assert!(m.contains("planlens fleet"), "{name}: {m}");
    }
}

#[test]
fn one_workspace_without_drift_says_what_it_holds() {
    let mut list: serde_json::Value =
        serde_json::from_slice(&kube_fixture("terraforms.json")).unwrap();
    let network = list["items"].as_array_mut().unwrap().remove(0);
    assert_eq!(network["metadata"]["name"], "network");
    let err = load_plan(serde_json::to_vec(&network).unwrap(), "network.json").unwrap_err();
    let LoadError::Workspaces { ids, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(ids, &["flux-system/network"]);
    let m = err.to_string();
    assert!(m.contains("True, NoDrift"), "{m}");
    assert!(m.contains("tfplan-default-network.json"), "{m}");
    let err = load_plan(kube_fixture("terraforms.yaml"), "terraforms.yaml").unwrap_err();
    assert!(
        matches!(&err, LoadError::Workspaces { ids, .. } if ids.len() == 16),
        "{err:?}"
    );
}

#[test]
fn a_namespace_dump_opens_its_plan_before_its_state() {
    let doc = open_ok("team-a.json");
    assert_eq!(doc.source, Source::Plan);
    assert_eq!(rows(&doc), rows(&common::load_own("blast_radius.json")));
}

#[test]
fn other_objects_are_named_and_never_decoded() {
    let m = message("not-controller.json");
    assert!(m.contains("Secret team-a/db-password"), "{m}");
    assert!(m.contains("Pod team-a/web-runner"), "{m}");
    assert!(!m.contains("SECRET-DB-PASSWORD"), "{m}");
}

#[test]
fn yaml_and_json_give_the_same_objects() {
    let read = |name: &str| {
        let text = String::from_utf8(kube_fixture(name)).unwrap();
        Objects::collect(kube::read(&text).unwrap_or_else(|e| panic!("{name}: {e}")))
    };
    let (json, yaml) = (read("terraforms.json"), read("terraforms.yaml"));
    assert_eq!(json.workspaces.len(), 16);
    assert_eq!(json, yaml);
    let v1 = json
        .workspaces
        .iter()
        .find(|w| w.metadata.name == "billing")
        .unwrap();
    assert_eq!(v1.api_version, "infra.contrib.fluxcd.io/v1alpha1");
    assert!(v1.spec.suspend);
}

#[test]
fn yaml_turned_into_json_as_the_browser_does_opens_the_same() {
    // The page's worker converts YAML with the lazily loaded part (`yaml_to_json`) before loading.
    for name in ["terraforms.yaml", "plan-secret.yaml"] {
        let yaml = String::from_utf8(kube_fixture(name)).unwrap();
        let json = planlens::load::yaml::yaml_to_json(&yaml).unwrap();
        match (
            load_plan(json.into_bytes(), name),
            load_plan(yaml.into_bytes(), name),
        ) {
            (Ok(a), Ok(b)) => assert_eq!(rows(&a), rows(&b), "{name}"),
            (Err(a), Err(b)) => assert_eq!(a, b, "{name}"),
            (a, b) => panic!("{name}: {:?} vs {:?}", a.map(|d| d.name), b.map(|d| d.name)),
        }
    }
    let yaml = String::from_utf8(kube_fixture("terraforms.yaml")).unwrap();
    let json = planlens::load::yaml::yaml_to_json(&yaml).unwrap();
    let err = load_plan(json.into_bytes(), "terraforms.yaml").unwrap_err();
    assert!(
        matches!(&err, LoadError::Workspaces { ids, .. } if ids.len() == 16),
        "{err:?}"
    );
}

#[test]
fn pasted_yaml_opens_too() {
    let text = String::from_utf8(kube_fixture("plan-secret.yaml")).unwrap();
    let doc = load_plan_text(text, "pasted").unwrap();
    assert_eq!(rows(&doc), rows(&common::load_own("blast_radius.json")));
}

#[test]
fn bad_yaml_says_where() {
    let m = load_plan(
        b"apiVersion: v1\nkind: Secret\nmetadata:\n  name: [x\n".to_vec(),
        "bad.yaml",
    )
    .unwrap_err()
    .to_string();
    assert!(m.contains("Kubernetes YAML file"), "{m}");
    assert!(m.contains("line"), "{m}");
}

#[test]
fn a_secret_inside_a_secret_is_refused() {
    let inner = kube_fixture("plan-secret.json");
    let mut outer = plan_secrets(&inner, None);
    let m = load_plan(serde_json::to_vec(&outer.remove(0)).unwrap(), "nested.json")
        .unwrap_err()
        .to_string();
    assert!(m.contains("itself a Kubernetes object"), "{m}");
}

#[test]
fn a_gzipped_kubectl_output_opens() {
    let doc = load_plan(gzip(&kube_fixture("plan-secret.json")), "secret.json.gz").unwrap();
    assert_eq!(rows(&doc), rows(&common::load_own("blast_radius.json")));
}

#[test]
fn stored_labels_name_what_they_are() {
    let text = String::from_utf8(kube_fixture("team-a.json")).unwrap();
    let objects = Objects::collect(kube::read(&text).unwrap());
    let labels: Vec<String> = objects.stored().iter().map(Stored::label).collect();
    assert_eq!(
        labels,
        [
            "Secret team-a/tfplan-default-web.json (4 chunks)",
            "Secret team-a/tfstate-default-web"
        ]
    );
    assert_eq!(objects.skipped, ["Secret team-a/db-password"]);
}
