//! The dependency graph: edges checked by hand against each fixture's `configuration` and
//! `prior_state`, blast radius sets, and the fallback to state edges.

use crate::common;

use planlens::graph::{DepGraph, EdgeKind, EdgeSource};
use planlens::load_plan;

fn real(name: &str) -> Option<DepGraph> {
    let dir = common::real_fixtures_dir()?;
    let bytes = std::fs::read(dir.join(name)).expect("read fixture");
    let doc = load_plan(bytes, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    Some(DepGraph::build(&doc))
}

/// Every edge as `from -> to (kind)`, sorted.
fn edges(g: &DepGraph) -> Vec<String> {
    let mut out: Vec<String> = g
        .graph
        .edge_indices()
        .map(|e| {
            let (a, b) = g.graph.edge_endpoints(e).unwrap();
            format!(
                "{} -> {} ({})",
                g.graph[a].address,
                g.graph[b].address,
                g.graph[e].key()
            )
        })
        .collect();
    out.sort();
    out
}

fn has(g: &DepGraph, from: &str, to: &str, kind: EdgeKind) -> bool {
    let (Some(a), Some(b)) = (g.find(from), g.find(to)) else {
        return false;
    };
    g.graph.find_edge(a, b).is_some_and(|e| g.graph[e] == kind)
}

fn addresses(g: &DepGraph, nodes: &[petgraph::graph::NodeIndex]) -> Vec<String> {
    let mut out: Vec<String> = nodes.iter().map(|&n| g.graph[n].address.clone()).collect();
    out.sort();
    out
}

#[test]
fn a_module_calls_depends_on_reaches_every_resource_inside_the_module() {
    // module "foo" { depends_on = [null_resource.bar] }; the resources inside only read inputs
    // that the call does not set, so depends_on is all there is.
    let Some(g) = real("terraform-json__013_module_depends_on.json") else {
        return;
    };
    assert_eq!(g.source, EdgeSource::Configuration);
    assert_eq!(
        edges(&g),
        [
            "null_resource.bar -> module.foo.data.null_data_source.data (depends_on)",
            "null_resource.bar -> module.foo.null_resource.resource (depends_on)",
        ]
    );
    let bar = g.find("null_resource.bar").unwrap();
    assert_eq!(
        addresses(&g, &g.dependents(&[bar])),
        [
            "module.foo.data.null_data_source.data",
            "module.foo.null_resource.resource"
        ]
    );
}

#[test]
fn a_resources_depends_on_is_one_edge_and_the_replace_ripples_nowhere() {
    // null_resource.bar { depends_on = [null_resource.foo] }; prior_state says the same, and the
    // edge keeps the configuration's kind.
    let Some(g) = real("terraform-json__config_resource_depends_on.json") else {
        return;
    };
    assert_eq!(
        edges(&g),
        ["null_resource.foo -> null_resource.bar (depends_on)"]
    );
    let foo = g.find("null_resource.foo").unwrap();
    let bar = g.find("null_resource.bar").unwrap();
    assert_eq!(addresses(&g, &g.dependents(&[foo])), ["null_resource.bar"]);
    assert_eq!(
        addresses(&g, &g.dependencies(&[bar])),
        ["null_resource.foo"]
    );
    // bar is the replace; nothing depends on it.
    assert_eq!(g.destructive(), vec![bar]);
    assert!(g.dependents(&g.destructive()).is_empty());
}

#[test]
fn module_inputs_without_references_give_no_edges() {
    // Both modules' resources read var.test_var, set to a constant or defaulted: no dependencies.
    let Some(g) = real("terraform__showjson_modules.json") else {
        return;
    };
    assert_eq!(g.graph.node_count(), 4);
    assert!(edges(&g).is_empty(), "{:?}", edges(&g));
    // Provider aliasing: ten resources in nested modules, none referring to another.
    let Some(g) = real("terraform__showjson_provider_aliasing.json") else {
        return;
    };
    assert_eq!(g.graph.node_count(), 10);
    assert!(edges(&g).is_empty(), "{:?}", edges(&g));
    assert_eq!(
        g.module_instances.len(),
        5,
        "root, child, sibling, 2 grandchildren"
    );
}

#[test]
fn count_and_for_each_modules_keep_their_instances_apart() {
    let Some(g) = real("terraform-compliance__module_count_for_each_tree.json") else {
        return;
    };
    // Inside each module instance, aws_instance.ecr_repository reads data.aws_ami.ubuntu of the
    // same instance only.
    let data = "module.ecr_repository_with_count[1].data.aws_ami.ubuntu";
    assert!(has(
        &g,
        data,
        "module.ecr_repository_with_count[1].aws_instance.ecr_repository",
        EdgeKind::Reference
    ));
    assert!(g.find(data).is_some());
    assert!(!has(
        &g,
        data,
        "module.ecr_repository_with_count[0].aws_instance.ecr_repository",
        EdgeKind::Reference
    ));
    // aws_iam_role.test_iam_role refers to the whole module.ecr_repository_with_for: every
    // output, so the repository behind output ecr_name in both for_each instances.
    for key in ["repository_1", "repository_2"] {
        for role in ["repository_1", "repository_2"] {
            assert!(has(
                &g,
                &format!(
                    "module.ecr_repository_with_for[\"{key}\"].aws_ecr_repository.ecr_repository"
                ),
                &format!("aws_iam_role.test_iam_role[\"{role}\"]"),
                EdgeKind::Reference
            ));
        }
    }
    // 13 module instances × (data → instance) + 2 × 2 whole-module references.
    assert_eq!(g.graph.edge_count(), 17, "{:#?}", edges(&g));
}

#[test]
fn module_inputs_carry_references_from_the_caller() {
    // module "sg" { for_each = local.names, vpc_id = data.aws_vpc.sandbox.id }, and the security
    // group inside reads var.vpc_id.
    let Some(g) = real("checkov__for_each_modules_tf1_9.json") else {
        return;
    };
    for key in ["awful_example", "bad_example", "terrible_example"] {
        assert!(has(
            &g,
            "data.aws_vpc.sandbox",
            &format!("module.sg[\"{key}\"].aws_security_group.bad"),
            EdgeKind::Reference
        ));
    }
    assert!(has(
        &g,
        "data.aws_vpc.sandbox",
        "data.aws_subnet.private",
        EdgeKind::Reference
    ));
    // The data sources are only in prior_state, and still nodes.
    let vpc = g.find("data.aws_vpc.sandbox").unwrap();
    assert_eq!(g.graph[vpc].row, None);
    assert_eq!(g.dependents(&[vpc]).len(), 4);
}

#[test]
fn terraform_0_12_state_addresses_are_made_absolute() {
    // 0.12 wrote child-module state addresses relative to the module and the index apart.
    let Some(g) = real("infracost__terraform_v0_12_plan.json") else {
        return;
    };
    assert!(has(
        &g,
        "module.db.aws_default_vpc.default",
        "module.db.module.db_1.module.db_subnet_group.aws_db_subnet_group.this[0]",
        EdgeKind::State
    ));
    assert!(has(
        &g,
        "module.db.module.db_1.module.db_instance.aws_iam_role.enhanced_monitoring[0]",
        "module.db.module.db_1.module.db_instance.aws_iam_role_policy_attachment.enhanced_monitoring[0]",
        EdgeKind::Reference
    ));
    assert!(g.find("aws_db_subnet_group.this").is_none());
}

#[test]
fn the_blast_radius_of_destructive_changes_follows_the_edges() {
    // The frequent alert's event rule is replaced (count index change); its target reads it.
    let Some(g) = real("terraform-compliance__tf1_0_drift_and_deletes.json") else {
        return;
    };
    let destructive = addresses(&g, &g.destructive());
    assert_eq!(
        destructive,
        [
            "aws_cloudwatch_event_rule.Metricos_custom_alert_schedule_frequent[0]",
            "aws_cloudwatch_event_target.Metricos_custom_alert_event_target_frequent[0]",
        ]
    );
    assert!(has(
        &g,
        "aws_iam_role.lambda_execution_role",
        "aws_lambda_function.lambda",
        EdgeKind::Reference
    ));
    let role = g.find("aws_iam_role.lambda_execution_role").unwrap();
    let ripple = addresses(&g, &g.dependents(&[role]));
    assert!(ripple.contains(&"aws_lambda_function.lambda".to_string()));
    assert!(ripple.contains(
        &"aws_cloudwatch_event_target.Metricos_custom_alert_event_target_frequent[0]".to_string()
    ));
}

#[test]
fn without_configuration_the_graph_uses_state_edges_and_survives_a_cycle() {
    let doc = common::load_own("state-only-cycle.json");
    let g = DepGraph::build(&doc);
    assert_eq!(g.source, EdgeSource::StateOnly);
    assert_eq!(
        edges(&g),
        [
            "aws_route_table.a -> aws_vpc.main (state)",
            "aws_subnet.a -> aws_route_table.a (state)",
            "aws_vpc.main -> aws_subnet.a (state)",
        ]
    );
    assert_eq!(
        g.graph.node_count(),
        4,
        "the data source only in state is a node"
    );
    let vpc = g.find("aws_vpc.main").unwrap();
    // Through the cycle, everything else depends on the VPC; the VPC is not its own dependent.
    assert_eq!(
        addresses(&g, &g.dependents(&[vpc])),
        ["aws_route_table.a", "aws_subnet.a"]
    );
}

#[test]
fn every_real_plan_builds_a_graph_whose_edges_join_known_nodes() {
    for f in common::fixtures_of(&["plan"])
        .iter()
        .filter(|f| f.is_real())
    {
        let name = f.name();
        let doc = load_plan(f.bytes(), name).unwrap();
        let g = DepGraph::build(&doc);
        // Every row has its node, at the same index.
        for (i, row) in doc.rows.iter().enumerate() {
            let node = &g.graph[petgraph::graph::NodeIndex::new(i)];
            assert_eq!(node.row, Some(i as u32), "{name}");
            assert_eq!(node.address, doc.change(row).address, "{name}");
        }
        for e in g.graph.edge_indices() {
            let (a, b) = g.graph.edge_endpoints(e).unwrap();
            assert_ne!(a, b, "{name}: self-loop");
        }
        let json: serde_json::Value = serde_json::from_str(&g.to_json()).unwrap();
        assert_eq!(
            json["edges"].as_array().unwrap().len(),
            g.graph.edge_count(),
            "{name}"
        );
        assert!(g.to_dot().starts_with("digraph planlens {"), "{name}");
    }
}

#[test]
fn the_blast_radius_of_a_replaced_vpc_reaches_through_a_module_input() {
    let doc = common::load_own("blast_radius.json");
    let g = DepGraph::build(&doc);
    assert_eq!(
        addresses(&g, &g.destructive()),
        ["aws_s3_bucket.logs", "aws_vpc.main"]
    );
    assert_eq!(
        addresses(&g, &g.dependents(&g.destructive())),
        [
            "aws_instance.app",
            "aws_subnet.a[0]",
            "aws_subnet.a[1]",
            "module.dns.aws_route53_record.app"
        ]
    );
    let record = g.find("module.dns.aws_route53_record.app").unwrap();
    assert_eq!(
        addresses(&g, &g.dependencies(&[record])),
        [
            "aws_instance.app",
            "aws_subnet.a[0]",
            "aws_subnet.a[1]",
            "aws_vpc.main"
        ]
    );
}

#[test]
fn a_collapsed_module_is_one_box_with_its_action_mix_and_keeps_its_edges() {
    use planlens::graph::view::{HighlightOptions, ViewNodeKind, ViewOptions};
    let doc = common::load_own("blast_radius.json");
    let g = DepGraph::build(&doc);
    // Small plans open fully expanded.
    assert!(g.default_collapsed().is_empty());

    let dns = g
        .module_instances
        .iter()
        .position(|m| m.path == "module.dns")
        .unwrap() as u32;
    let view = g.view(&ViewOptions {
        collapsed: [dns].into(),
        show_unchanged: false,
    });
    // aws_iam_role.ci is unchanged and next to nothing that changes: folded away.
    assert_eq!(view.hidden_unchanged, 1);
    assert_eq!(view.nodes.len(), 6);
    let module_box = view
        .nodes
        .iter()
        .position(|n| matches!(n.kind, ViewNodeKind::Module { .. }))
        .unwrap();
    let ViewNodeKind::Module { mix, .. } = &view.nodes[module_box].kind else {
        unreachable!()
    };
    assert_eq!(mix.create, 1);
    assert_eq!(mix.segments(), [("create", "1 +".to_string())]);
    let instance = view.node_of[g.find("aws_instance.app").unwrap().index()].unwrap();
    assert!(view.edges.contains(&(instance, module_box as u32)));
    // The unchanged instance is only there as a neighbour of changes.
    assert!(view.nodes[instance as usize].context_only);

    // Every box has its own place; dependencies sit above their dependents.
    for (i, a) in view.layout.nodes.iter().enumerate() {
        for b in &view.layout.nodes[i + 1..] {
            let apart =
                a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
            assert!(apart, "{a:?} overlaps {b:?}");
        }
    }
    for &(from, to) in &view.edges {
        assert!(view.layout.nodes[from as usize].y < view.layout.nodes[to as usize].y);
    }

    let lit = view.highlight(
        &g,
        &HighlightOptions {
            selected: None,
            upstream: false,
            destructive: true,
        },
    );
    assert_eq!((lit.destructive, lit.destructive_dependents), (2, 4));
    assert!(
        lit.downstream[module_box],
        "the collapsed module is in the blast radius"
    );
    assert!(lit.hot_edges.iter().filter(|h| **h).count() >= 4);

    // The full graph brings the unrelated role back.
    let full = g.view(&ViewOptions {
        collapsed: Default::default(),
        show_unchanged: true,
    });
    assert_eq!(full.nodes.len(), 7);
    assert_eq!(full.hidden_unchanged, 0);
}

#[test]
fn the_svg_export_has_the_legend_and_escapes_addresses() {
    use planlens::graph::export::view_to_svg;
    use planlens::graph::view::{HighlightOptions, ViewOptions};
    let doc = common::load_own("tricky_keys.json");
    let g = DepGraph::build(&doc);
    let view = g.view(&ViewOptions {
        collapsed: Default::default(),
        show_unchanged: true,
    });
    let lit = view.highlight(&g, &HighlightOptions::default());
    let svg = view_to_svg(&g, &view, &lit, "tricky <keys>");
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.contains("<title>tricky &lt;keys&gt;</title>"));
    assert!(svg.contains("replace (destroy, then create)"), "legend");
    assert!(svg.contains("aws_s3_bucket.b[&quot;quote\\&quot;]inside&quot;]"));
    assert!(!svg.contains("<keys>"));
}

/// The graph marks what changed since the last plan (the marks come from the comparison, as
/// data): each marked node carries a badge saying which in words, the legend says what the badges
/// mean and how many changes are gone (they cannot be nodes); without a comparison the export is
/// what it always was.
#[test]
fn the_svg_export_marks_what_changed_since_the_last_plan() {
    use planlens::graph::export::{Since, view_to_svg, view_to_svg_since};
    use planlens::graph::view::{HighlightOptions, ViewOptions};
    use planlens::session::compare::compare_judged;

    let (before, after) = (
        common::load_own("compare/before.json"),
        common::load_own("compare/after.json"),
    );
    let judged = compare_judged(
        &before,
        &after,
        &planlens::rules::RuleSet::builtin(),
        &Default::default(),
    );
    let marks = judged.marks();
    let g = DepGraph::build(&after);
    let view = g.view(&ViewOptions {
        collapsed: Default::default(),
        show_unchanged: true,
    });
    let lit = view.highlight(&g, &HighlightOptions::default());
    let since = Since {
        marks: &marks,
        gone: judged.comparison.removed.len(),
    };
    let svg = view_to_svg_since(&g, &view, &lit, "after", Some(&since));
    for (address, key) in [
        ("aws_s3_bucket.added_bucket", "new"),
        ("aws_s3_bucket.update_bucket", "action"),
        ("aws_s3_bucket.create_bucket", "values"),
    ] {
        let node = svg
            .lines()
            .find(|l| l.contains(&format!("data-address=\"{address}\"")))
            .unwrap_or_else(|| panic!("{address} is not drawn"));
        assert!(
            node.contains(&format!("data-since=\"{key}\""))
                && node.contains(&format!(">{key}</text>")),
            "{address}: {node}"
        );
    }
    let unmarked = svg
        .lines()
        .find(|l| l.contains("data-address=\"aws_s3_bucket.noop_bucket\""));
    assert!(unmarked.is_none_or(|l| !l.contains("data-since")));
    assert!(svg.contains("Since the last plan:"));
    assert!(svg.contains("its action changed since the last plan"));
    assert!(svg.contains("1 change no longer planned (not in this graph)"));
    // Without a comparison, the export is byte for byte what it was.
    assert_eq!(
        view_to_svg_since(&g, &view, &lit, "after", None),
        view_to_svg(&g, &view, &lit, "after")
    );
    assert!(!view_to_svg(&g, &view, &lit, "after").contains("data-since"));
}

/// What is wrong with where a view put things, measured against the module tree: each node inside
/// its own module's box and every enclosing one, outside every other box; each module box inside
/// its parent's; boxes of modules that are not nested disjoint; title strips clear of each other
/// and of every node. Empty when the drawing is true to the tree.
fn containment_errors(g: &DepGraph, view: &planlens::graph::view::View) -> Vec<String> {
    use planlens::graph::layout::Rect;
    use planlens::graph::view::CLUSTER_TITLE;
    // A hair of tolerance for float rounding; boxes that only touch do not overlap.
    const EPS: f32 = 0.01;
    let inside = |a: &Rect, b: &Rect| {
        a.x >= b.x - EPS
            && a.y >= b.y - EPS
            && a.x + a.w <= b.x + b.w + EPS
            && a.y + a.h <= b.y + b.h + EPS
    };
    let overlap = |a: &Rect, b: &Rect| {
        a.x + EPS < b.x + b.w
            && b.x + EPS < a.x + a.w
            && a.y + EPS < b.y + b.h
            && b.y + EPS < a.y + a.h
    };
    let path = |m: u32| g.module_instances[m as usize].path.as_str();
    // Module m and every module enclosing it, root excluded.
    let ancestors = |m: u32| {
        let mut out = Vec::new();
        let mut at = Some(m);
        while let Some(i) = at.filter(|&i| i != 0) {
            out.push(i);
            at = g.module_instances[i as usize].parent;
        }
        out
    };
    let mut box_of = std::collections::HashMap::new();
    for c in &view.clusters {
        assert!(
            box_of.insert(c.module, c.rect).is_none(),
            "{} has two boxes",
            path(c.module)
        );
    }
    let title = |r: &Rect| Rect {
        h: CLUSTER_TITLE,
        ..*r
    };
    let mut errors = Vec::new();
    for (node, r) in view.nodes.iter().zip(&view.layout.nodes) {
        let own = ancestors(node.cluster);
        for &m in &own {
            match box_of.get(&m) {
                None => errors.push(format!("{}: no box for {}", node.label, path(m))),
                Some(b) if !inside(r, b) => errors.push(format!(
                    "{} {r:?} sticks out of its module {} {b:?}",
                    node.label,
                    path(m)
                )),
                Some(_) => {}
            }
        }
        for c in &view.clusters {
            if !own.contains(&c.module) && overlap(r, &c.rect) {
                errors.push(format!(
                    "{} (in {}) is drawn inside {}",
                    node.label,
                    path(node.cluster),
                    path(c.module)
                ));
            }
            if overlap(r, &title(&c.rect)) {
                errors.push(format!(
                    "{} is under the title of {}",
                    node.label,
                    path(c.module)
                ));
            }
        }
    }
    for (i, a) in view.clusters.iter().enumerate() {
        let up = ancestors(a.module);
        if let Some(&parent) = up.get(1) {
            match box_of.get(&parent) {
                Some(p) if inside(&a.rect, p) => {}
                Some(_) => errors.push(format!(
                    "{} sticks out of its parent {}",
                    path(a.module),
                    path(parent)
                )),
                None => errors.push(format!("{}: no box for its parent", path(a.module))),
            }
        }
        for b in &view.clusters[i + 1..] {
            let nested = up.contains(&b.module) || ancestors(b.module).contains(&a.module);
            if !nested && overlap(&a.rect, &b.rect) {
                errors.push(format!("{} and {} overlap", path(a.module), path(b.module)));
            }
            if overlap(&title(&a.rect), &title(&b.rect)) {
                errors.push(format!(
                    "the titles of {} and {} overlap",
                    path(a.module),
                    path(b.module)
                ));
            }
        }
    }
    errors
}

/// The view the Graph tab opens with and the one with every module expanded and every resource
/// shown, both checked against the module tree.
fn assert_true_to_the_module_tree(name: &str, g: &DepGraph) {
    use planlens::graph::view::ViewOptions;
    let opening = ViewOptions {
        collapsed: g.default_collapsed(),
        show_unchanged: false,
    };
    let everything = ViewOptions {
        collapsed: Default::default(),
        show_unchanged: true,
    };
    for (which, options) in [("opening", opening), ("full", everything)] {
        let view = g.view(&options);
        let errors = containment_errors(g, &view);
        assert!(
            errors.is_empty(),
            "{name} ({which} view): {} problems, first: {:#?}",
            errors.len(),
            &errors[..errors.len().min(8)]
        );
    }
}

#[test]
fn every_module_box_holds_exactly_its_module_on_every_fixture() {
    let mut checked = 0;
    for (name, bytes) in common::inputs() {
        let doc = load_plan(bytes, &name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_true_to_the_module_tree(&name, &DepGraph::build(&doc));
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} fixtures loaded");
}

#[test]
fn every_module_box_holds_exactly_its_module_in_the_generated_10k_plan() {
    let Some(tool) = common::shared("tools/gen_plan.py") else {
        return;
    };
    let out = std::process::Command::new("python3")
        .arg(&tool)
        .args(["--resources", "10000", "--seed", "1"])
        .output()
        .expect("run python3 gen_plan.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = load_plan(out.stdout, "p10k.json").unwrap();
    assert_true_to_the_module_tree("generated 10k plan", &DepGraph::build(&doc));
}

/// The Graph tab's canvas at 1400×860 (the side pane beside it, the legend's strip over its top)
/// and at 390×844 (a phone: the whole width, the toolbar and counts above and below).
fn canvases() -> [planlens::graph::camera::Canvas; 2] {
    use planlens::graph::camera::Canvas;
    [
        Canvas {
            top: 40.0,
            ..Canvas::new(951.0, 660.0)
        },
        Canvas {
            top: 52.0,
            ..Canvas::new(390.0, 600.0)
        },
    ]
}

#[test]
fn the_graph_opens_readable_and_fit_shows_all_of_it_on_every_real_plan() {
    use planlens::graph::camera::{Camera, READABLE};
    for path in common::real_fixture_paths() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let g = real(&name).unwrap();
        let v = g.view(&g.opening_options());
        let all = v.drawing();
        // The drawing's bounds hold every box, module box and edge: a camera showing them cuts
        // nothing off.
        let inside = |r: &planlens::graph::layout::Rect| {
            r.x >= all.x && r.y >= all.y && r.x + r.w <= all.x + all.w && r.y + r.h <= all.y + all.h
        };
        for r in v
            .layout
            .nodes
            .iter()
            .chain(v.clusters.iter().map(|c| &c.rect))
        {
            assert!(inside(r), "{name}: {r:?} outside {all:?}");
        }
        for line in &v.layout.edges {
            for &(x, y) in line {
                assert!(
                    inside(&planlens::graph::layout::Rect {
                        x,
                        y,
                        w: 0.0,
                        h: 0.0
                    }),
                    "{name}: edge at ({x}, {y})"
                );
            }
        }
        for canvas in canvases() {
            let fit = Camera::fit(&all, &canvas);
            assert!(
                fit.shows(&all, &canvas),
                "{name}: Fit cuts {:?}",
                fit.to_screen(&all)
            );
            let changed = v.changed_boxes();
            let open = Camera::opening(&all, &changed, &canvas, 100.0);
            if open.shows(&all, &canvas) {
                continue;
            }
            // Too big to show readably: a readable zoom, on some of its changes (or, with none,
            // on its start).
            assert!(open.scale >= READABLE, "{name}: opens at {}", open.scale);
            if changed.is_empty() {
                let s = open.to_screen(&all);
                assert!(
                    s.x >= 0.0 && s.y >= 0.0,
                    "{name}: the start is off screen at {s:?}"
                );
            } else {
                assert!(
                    open.count_shown(&changed, &canvas) > 0,
                    "{name}: no change in view"
                );
            }
        }
    }
}

#[test]
fn a_400_kb_nested_module_plan_opens_on_its_largest_group_of_changes_with_labels() {
    use planlens::graph::camera::{Camera, READABLE};
    let Some(g) = real("infracost__terraform_v0_12_plan.json") else {
        return;
    };
    let v = g.view(&g.opening_options());
    let all = v.drawing();
    let changed = v.changed_boxes();
    assert_eq!(changed.len(), 13, "12 creates and an update");
    for canvas in canvases() {
        let open = Camera::opening(&all, &changed, &canvas, 100.0);
        if open.shows(&all, &canvas) {
            continue;
        }
        assert!(open.scale >= READABLE, "{canvas:?}: {open:?}");
        // module.db_2's six creates are together: the first view holds most of them.
        assert!(
            open.count_shown(&changed, &canvas) >= 5,
            "{canvas:?}: {}",
            open.count_shown(&changed, &canvas)
        );
        let fit = Camera::fit(&all, &canvas);
        assert!(fit.shows(&all, &canvas));
    }
}
