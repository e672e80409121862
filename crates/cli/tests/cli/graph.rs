//! `planlens graph`: DOT with module clusters, JSON with edges from dependency to dependent, and the
//! Graph tab's SVG picture.

use crate::common;
use crate::run::planlens_line;

#[test]
fn graph_prints_dot_with_module_clusters_and_json_with_edges_from_dependency_to_dependent() {
    let (code, dot, err) = planlens_line("graph tests/fixtures/blast_radius.json");
    assert_eq!(code, 0, "{err}");
    assert!(dot.starts_with("digraph planlens {"), "{dot}");
    assert!(dot.contains("label=\"module.dns\";"), "{dot}");
    assert!(
        dot.contains("\"aws_vpc.main\" -> \"aws_subnet.a[0]\";"),
        "{dot}"
    );
    assert!(
        dot.contains("\"aws_instance.app\" -> \"module.dns.aws_route53_record.app\";"),
        "{dot}"
    );

    let (code, json, err) = planlens_line("graph tests/fixtures/blast_radius.json --format json");
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["edges_from"], "configuration");
    assert_eq!(v["nodes"].as_array().unwrap().len(), 7);
    let record = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["address"] == "module.dns.aws_route53_record.app")
        .unwrap();
    assert_eq!(record["action"], "create");
    assert_eq!(record["module"], "module.dns");
    let vpc = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["address"] == "aws_vpc.main")
        .unwrap();
    assert_eq!(vpc["actions"], serde_json::json!(["delete", "create"]));
    assert!(v["edges"].as_array().unwrap().contains(&serde_json::json!(
        {"from": "aws_vpc.main", "to": "aws_subnet.a[1]", "kind": "reference"}
    )));
    assert_eq!(v["edges"].as_array().unwrap().len(), 5);

    // Without configuration: state edges, and a warning on stderr.
    let (code, json, err) =
        planlens_line("graph --format json tests/fixtures/state-only-cycle.json");
    assert_eq!(code, 0);
    assert!(
        err.contains("edges come from the prior state's depends_on only"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["edges_from"], "state");
    assert!(
        v["edges"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["kind"] == "state")
    );

    // A state's graph is its recorded dependencies, without the warning about configuration.
    let (code, out, err) = planlens_line("graph tests/fixtures/state.json");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"aws_s3_bucket.assets\""), "{out}");
    assert!(err.is_empty(), "{err}");
}

/// Every `<g>` element of an SVG that has `attribute`, with the attribute's value (unescaped) and
/// the box of the first `<rect>` after it: what a tool reading the picture sees.
fn svg_boxes(svg: &str, attribute: &str) -> Vec<(String, [f32; 4])> {
    let value = |tag: &str, name: &str| -> Option<String> {
        let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        let len = tag[start..].find('"')?;
        Some(
            tag[start..start + len]
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&"),
        )
    };
    let mut out = Vec::new();
    for (at, _) in svg.match_indices("<g ") {
        let tag = &svg[at..at + svg[at..].find('>').unwrap()];
        let Some(v) = value(tag, attribute) else {
            continue;
        };
        let rect_at = at + svg[at..].find("<rect ").unwrap();
        let rect = &svg[rect_at..rect_at + svg[rect_at..].find('>').unwrap()];
        let n = |name: &str| value(rect, name).unwrap().parse::<f32>().unwrap();
        out.push((v, [n("x"), n("y"), n("width"), n("height")]));
    }
    out
}

#[test]
fn graph_svg_is_the_graph_tabs_picture_with_each_node_inside_exactly_its_modules_boxes() {
    let (code, svg, err) = planlens_line("graph --format svg tests/fixtures/nested_modules.json");
    assert_eq!(code, 0, "{err}");
    // The same function and options as the Graph tab's export of its opening view.
    let doc = planlens::load_plan(
        std::fs::read(common::repo_dir().join("tests/fixtures/nested_modules.json")).unwrap(),
        "nested_modules.json",
    )
    .unwrap();
    let g = planlens::graph::DepGraph::build(&doc);
    assert_eq!(
        svg,
        planlens::graph::export::opening_svg(&g, "nested_modules.json")
    );
    assert!(svg.contains("<title>nested_modules.json — dependency graph</title>"));

    let clusters = svg_boxes(&svg, "data-module");
    let nodes = svg_boxes(&svg, "data-address");
    let mut paths: Vec<&str> = clusters.iter().map(|(p, _)| p.as_str()).collect();
    paths.sort();
    let mut expected = vec!["module.db".to_string()];
    for set in ["db_1", "db_2"] {
        expected.push(format!("module.db.module.{set}"));
        for leaf in [
            "db_instance",
            "db_option_group",
            "db_parameter_group",
            "db_subnet_group",
        ] {
            expected.push(format!("module.db.module.{set}.module.{leaf}"));
        }
    }
    expected.sort();
    assert_eq!(paths, expected);
    // Every resource changes or neighbours a change, so all 13 are drawn.
    assert_eq!(nodes.len(), 13, "{nodes:?}");
    assert!(
        nodes
            .iter()
            .any(|(a, _)| a
                == "module.db.module.db_1.module.db_option_group.aws_db_option_group.this")
    );

    let inside = |a: &[f32; 4], b: &[f32; 4]| {
        a[0] >= b[0] && a[1] >= b[1] && a[0] + a[2] <= b[0] + b[2] && a[1] + a[3] <= b[1] + b[3]
    };
    let meet = |a: &[f32; 4], b: &[f32; 4]| {
        a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3]
    };
    // Module `m` holds whatever is addressed below it.
    let holds = |m: &str, address: &str| address.starts_with(&format!("{m}."));
    for (address, r) in &nodes {
        for (m, b) in &clusters {
            if holds(m, address) {
                assert!(inside(r, b), "{address} {r:?} is outside {m} {b:?}");
            } else {
                assert!(!meet(r, b), "{address} {r:?} is drawn inside {m} {b:?}");
            }
        }
    }
    for (i, (m, a)) in clusters.iter().enumerate() {
        for (k, b) in &clusters[i + 1..] {
            if holds(m, k) {
                assert!(inside(b, a), "{k} sticks out of {m}");
            } else if holds(k, m) {
                assert!(inside(a, b), "{m} sticks out of {k}");
            } else {
                assert!(!meet(a, b), "{m} {a:?} and {k} {b:?} overlap");
            }
        }
    }
}
