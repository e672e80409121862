use super::*;

fn run(sizes: &[(f32, f32)], edges: &[(u32, u32)], groups: &[u32]) -> Layout {
    layout(&LayoutInput {
        sizes,
        edges,
        groups,
        modules: &[],
    })
}

/// Like [`run`] for `n` boxes drawn in a module tree.
fn run_in(modules: &[Module], n: usize, edges: &[(u32, u32)], groups: &[u32]) -> Layout {
    layout(&LayoutInput {
        sizes: &boxes(n),
        edges,
        groups,
        modules,
    })
}

fn boxes(n: usize) -> Vec<(f32, f32)> {
    vec![(120.0, 40.0); n]
}

/// Every pair of boxes that share a horizontal band is checked (a sweep down the page, so
/// it stays quick on 10k nodes).
fn assert_no_overlap(l: &Layout) {
    let mut by_top: Vec<usize> = (0..l.nodes.len()).collect();
    by_top.sort_by(|&a, &b| l.nodes[a].y.total_cmp(&l.nodes[b].y));
    for (k, &i) in by_top.iter().enumerate() {
        let a = l.nodes[i];
        for &j in &by_top[k + 1..] {
            let b = l.nodes[j];
            if b.y >= a.y + a.h - 1e-3 {
                break;
            }
            let apart = a.x + a.w <= b.x + 1e-3 || b.x + b.w <= a.x + 1e-3;
            assert!(apart, "nodes {i} {a:?} and {j} {b:?} overlap");
        }
    }
}

fn assert_in_bounds(l: &Layout) {
    for r in &l.nodes {
        assert!(r.x >= -1e-3 && r.y >= -1e-3, "{r:?} starts before 0,0");
        assert!(r.x + r.w <= l.width + 1e-3 && r.y + r.h <= l.height + 1e-3);
    }
}

/// Each edge starts at the bottom-centre of its dependency's box and ends at the top-centre of
/// its dependent's.
fn assert_edges_run_from_dependency_to_dependent(l: &Layout, edges: &[(u32, u32)]) {
    for (line, &(u, v)) in l.edges.iter().zip(edges) {
        let (from, to) = (l.nodes[u as usize], l.nodes[v as usize]);
        assert_eq!(
            line.first(),
            Some(&(from.x + from.w / 2.0, from.y + from.h))
        );
        assert_eq!(line.last(), Some(&(to.x + to.w / 2.0, to.y)));
    }
}

#[test]
fn a_chain_reads_top_down() {
    let l = run(&boxes(3), &[(0, 1), (1, 2)], &[0; 3]);
    assert!(l.nodes[0].y < l.nodes[1].y && l.nodes[1].y < l.nodes[2].y);
    assert_eq!(l.layers, 3);
    assert_eq!(l.edges[0].first(), Some(&(60.0, 40.0)));
    assert_no_overlap(&l);
    assert_in_bounds(&l);
}

#[test]
fn a_diamond_has_no_crossings() {
    let l = run(&boxes(4), &[(0, 1), (0, 2), (1, 3), (2, 3)], &[0; 4]);
    assert_eq!(l.crossings, 0);
    assert_eq!(l.layers, 3);
    assert_no_overlap(&l);
}

#[test]
fn a_cycle_lays_out_with_distinct_boxes() {
    let l = run(&boxes(3), &[(0, 1), (1, 2), (2, 0)], &[0; 3]);
    assert_eq!(l.nodes.len(), 3);
    assert_eq!(l.edges.iter().filter(|e| e.len() >= 2).count(), 3);
    for i in 0..3 {
        for j in i + 1..3 {
            assert_ne!(l.nodes[i], l.nodes[j]);
        }
    }
    assert_no_overlap(&l);
}

#[test]
fn a_reversed_edge_still_runs_from_dependency_to_dependent() {
    // d→a closes the cycle and spans three layers once reversed: it must climb from d.
    let edges = [(0, 1), (1, 0), (1, 2), (2, 3), (3, 0)];
    let l = run(&boxes(4), &edges, &[0; 4]);
    assert_edges_run_from_dependency_to_dependent(&l, &edges);
    let climb = &l.edges[4];
    assert!(climb.len() >= 4, "{climb:?}");
    let bends = &climb[1..climb.len() - 1];
    assert!(
        bends.windows(2).all(|p| p[0].1 >= p[1].1),
        "goes upward: {climb:?}"
    );
    assert_no_overlap(&l);
}

#[test]
fn every_edge_of_an_acyclic_graph_points_down() {
    let mut seed = 7u32;
    let mut next = move |m: u32| {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) % m
    };
    let edges: Vec<(u32, u32)> = (1..300u32)
        .flat_map(|v| [(next(v), v), (next(v), v)])
        .collect();
    let groups: Vec<u32> = (0..300).map(|v| v % 5).collect();
    let l = run(&boxes(300), &edges, &groups);
    for &(u, v) in &edges {
        let (a, b) = (l.nodes[u as usize], l.nodes[v as usize]);
        assert!(a.y + a.h < b.y, "{u} {a:?} is not above {v} {b:?}");
    }
    assert_no_overlap(&l);
    assert_in_bounds(&l);
}

#[test]
fn a_long_edge_bends_through_the_layers_it_crosses() {
    let l = run(&boxes(4), &[(0, 1), (1, 2), (2, 3), (0, 3)], &[0; 4]);
    let long = &l.edges[3];
    assert!(long.len() >= 4, "{long:?}");
    assert!(
        long.windows(2).all(|p| p[0].1 <= p[1].1),
        "goes downward: {long:?}"
    );
    // The bends sit beside b and c, not through them.
    for &(x, y) in &long[1..long.len() - 1] {
        for r in &l.nodes[1..3] {
            let inside = x > r.x && x < r.x + r.w && y > r.y && y < r.y + r.h;
            assert!(!inside, "bend {x},{y} inside {r:?}");
        }
    }
    assert_no_overlap(&l);
}

#[test]
fn a_crossing_that_can_be_undone_is_undone() {
    // a,b above c,d with a→d, b→c first: in input order the edges cross.
    let l = run(&boxes(4), &[(0, 3), (1, 2)], &[0; 4]);
    assert_eq!(l.crossings, 0);
    // K(2,2) plus a third edge pair that forces a choice.
    let l = run(
        &boxes(6),
        &[(0, 4), (1, 3), (2, 5), (0, 5), (2, 3)],
        &[0; 6],
    );
    assert!(l.crossings <= 1, "{}", l.crossings);
    assert_no_overlap(&l);
}

fn inside(a: &Rect, b: &Rect) -> bool {
    a.x >= b.x - 1e-3
        && a.y >= b.y - 1e-3
        && a.x + a.w <= b.x + b.w + 1e-3
        && a.y + a.h <= b.y + b.h + 1e-3
}

fn meet(a: &Rect, b: &Rect) -> bool {
    a.x + 1e-3 < b.x + b.w
        && b.x + 1e-3 < a.x + a.w
        && a.y + 1e-3 < b.y + b.h
        && b.y + 1e-3 < a.y + a.h
}

/// Each node inside the box of its module and of every module around it and outside every
/// other box; each box inside its parent's; boxes not nested apart; title strips clear of
/// nodes and of each other.
fn assert_true_to_the_tree(l: &Layout, groups: &[u32], modules: &[Module]) {
    let around = |m: u32| {
        let mut out = Vec::new();
        let mut at = Some(m);
        while let Some(i) = at {
            let Some(module) = modules.get(i as usize) else {
                break;
            };
            if module.parent.is_some() {
                out.push(i);
            }
            at = module.parent;
        }
        out
    };
    let title = |r: &Rect| Rect {
        h: TITLE_HEIGHT,
        ..*r
    };
    for (v, r) in l.nodes.iter().enumerate() {
        let own = around(groups[v]);
        for (m, b) in l.modules.iter().enumerate() {
            let Some(b) = b else { continue };
            if own.contains(&(m as u32)) {
                assert!(inside(r, b), "node {v} {r:?} outside its module {m} {b:?}");
            } else {
                assert!(!meet(r, b), "node {v} {r:?} inside module {m} {b:?}");
            }
            assert!(!meet(r, &title(b)), "node {v} under the title of {m}");
        }
        for &m in &own {
            assert!(
                l.modules[m as usize].is_some(),
                "module {m} of {v} has no box"
            );
        }
    }
    for (m, a) in l.modules.iter().enumerate() {
        let Some(a) = a else { continue };
        let up = around(m as u32);
        if let Some(&p) = up.get(1) {
            let parent = l.modules[p as usize].expect("parent box");
            assert!(inside(a, &parent), "module {m} sticks out of {p}");
        }
        for (k, b) in l.modules.iter().enumerate().skip(m + 1) {
            let Some(b) = b else { continue };
            let nested = up.contains(&(k as u32)) || around(k as u32).contains(&(m as u32));
            assert!(nested || !meet(a, b), "modules {m} and {k} overlap");
            assert!(!meet(&title(a), &title(b)), "titles of {m} and {k} overlap");
        }
    }
}

/// A random acyclic graph over nodes spread across a module tree: root 0, modules 1–4 in
/// it, 5–8 inside 1, 2 and 3, 9 inside 5; edges within and across modules.
fn nested(n: u32) -> (Vec<(u32, u32)>, Vec<u32>, Vec<Module>) {
    let mut seed = 11u32;
    let mut next = move |m: u32| {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) % m
    };
    let parents = [
        None,
        Some(0),
        Some(0),
        Some(0),
        Some(0),
        Some(1),
        Some(1),
        Some(2),
        Some(3),
        Some(5),
    ];
    let modules: Vec<Module> = parents
        .iter()
        .map(|&parent| Module {
            parent,
            min_width: 150.0,
        })
        .collect();
    let groups: Vec<u32> = (0..n).map(|v| (v * 7 + v / 3) % 10).collect();
    let edges: Vec<(u32, u32)> = (1..n).flat_map(|v| [(next(v), v), (next(v), v)]).collect();
    (edges, groups, modules)
}

#[test]
fn modules_are_boxes_holding_exactly_their_members() {
    let (edges, groups, modules) = nested(200);
    let l = run_in(&modules, 200, &edges, &groups);
    assert_true_to_the_tree(&l, &groups, &modules);
    assert_no_overlap(&l);
    assert_in_bounds(&l);
    // The root module has no box; every other module has members, so a box.
    assert!(l.modules[0].is_none());
    assert!(l.modules[1..].iter().all(Option::is_some));
    assert_edges_run_from_dependency_to_dependent(&l, &edges);
}

#[test]
fn a_cycle_across_modules_and_one_module_per_node_stay_true_to_the_tree() {
    // Every edge goes back and forth between two sibling modules, and a chain of modules
    // each holding one node.
    let modules: Vec<Module> = [None, Some(0), Some(0), Some(2), Some(3)]
        .into_iter()
        .map(|parent| Module {
            parent,
            min_width: 0.0,
        })
        .collect();
    let groups = [1, 2, 1, 2, 3, 4, 0];
    let edges = [
        (0, 1),
        (1, 2),
        (2, 3),
        (3, 0),
        (4, 5),
        (5, 6),
        (6, 4),
        (0, 5),
    ];
    let l = run_in(&modules, 7, &edges, &groups);
    assert_true_to_the_tree(&l, &groups, &modules);
    assert_no_overlap(&l);
    assert!(l.edges.iter().all(|e| e.len() >= 2));
}

#[test]
fn an_edge_enters_a_box_through_its_top_and_leaves_through_its_bottom() {
    // Root node 0 feeds node 2 deep inside module 1 (under node 1); node 2 feeds root
    // node 3.
    let modules = [
        Module::default(),
        Module {
            parent: Some(0),
            min_width: 0.0,
        },
    ];
    let groups = [0, 1, 1, 0];
    let edges = [(0, 2), (1, 2), (2, 3)];
    let l = run_in(&modules, 4, &edges, &groups);
    assert_true_to_the_tree(&l, &groups, &modules);
    let b = l.modules[1].expect("module 1 has a box");
    let into = &l.edges[0];
    assert!(
        into.iter().any(|&(_, y)| y == b.y),
        "enters at the top: {into:?}"
    );
    let out_of = &l.edges[2];
    assert!(
        out_of.iter().any(|&(_, y)| y == b.y + b.h),
        "leaves at the bottom: {out_of:?}"
    );
    // Inside the box, the entering edge passes beside node 1, not through it.
    let n1 = l.nodes[1];
    for &(x, y) in &into[1..into.len() - 1] {
        let through = x > n1.x && x < n1.x + n1.w && y > n1.y && y < n1.y + n1.h;
        assert!(!through, "bend {x},{y} inside node 1 {n1:?}");
    }
}

#[test]
fn a_broken_module_tree_is_drawn_without_panicking() {
    // Module 1 and 2 are each other's parents; module 3's parent does not exist.
    let modules = [
        Module::default(),
        Module {
            parent: Some(2),
            min_width: 0.0,
        },
        Module {
            parent: Some(1),
            min_width: 0.0,
        },
        Module {
            parent: Some(99),
            min_width: f32::NAN,
        },
    ];
    let groups = [0, 1, 2, 3, 7];
    let l = run_in(&modules, 5, &[(0, 1), (1, 2), (2, 3), (3, 4)], &groups);
    assert_no_overlap(&l);
    assert_in_bounds(&l);
    assert!(l.modules[1].is_none() && l.modules[2].is_none());
    let b = l.modules[3].expect("module 3 is drawn at the top level");
    assert!(inside(&l.nodes[3], &b));
}

#[test]
fn duplicates_self_loops_and_bad_edges_are_harmless() {
    let l = run(
        &boxes(3),
        &[(0, 1), (0, 1), (1, 1), (1, 9), (1, 2)],
        &[0; 3],
    );
    assert_eq!(l.edges[0], l.edges[1]);
    assert!(l.edges[2].is_empty() && l.edges[3].is_empty());
    assert!(!l.edges[4].is_empty());
    assert_eq!(l.layers, 3);
    assert_no_overlap(&l);
}

#[test]
fn components_and_isolated_nodes_are_packed_apart() {
    let mut edges = Vec::new();
    for c in 0..12u32 {
        edges.extend([
            (4 * c, 4 * c + 1),
            (4 * c, 4 * c + 2),
            (4 * c + 2, 4 * c + 3),
        ]);
    }
    let mut sizes = boxes(48 + 30);
    sizes[50] = (300.0, 90.0);
    let l = run(&sizes, &edges, &[]);
    assert_no_overlap(&l);
    assert_in_bounds(&l);
    let aspect = l.width / l.height;
    assert!(aspect > 0.8 && aspect < 3.2, "aspect {aspect}");
}

#[test]
fn no_input_gives_an_empty_layout() {
    let l = run(&[], &[], &[]);
    assert!(l.nodes.is_empty() && l.width == 0.0 && l.height == 0.0);
}

/// Node sizes, edges and groups of a generated graph.
type Generated = (Vec<(f32, f32)>, Vec<(u32, u32)>, Vec<u32>);

/// A Terraform-shaped graph: each resource depends on a few recent ones, modules of 25,
/// a sprinkle of edges pointing back up to make cycles.
fn big_graph(n: u32) -> Generated {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |m: u32| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) % u64::from(m)) as u32
    };
    let mut edges = Vec::new();
    for v in 1..n {
        edges.push((v - 1 - next(v.min(40)), v));
        for _ in 0..2 {
            edges.push((v - 1 - next(v.min(400)), v));
        }
        if next(50) == 0 {
            edges.push((v, v - 1 - next(v.min(400))));
        }
    }
    let sizes = (0..n)
        .map(|v| (80.0 + (v % 7) as f32 * 20.0, 36.0))
        .collect();
    let groups = (0..n).map(|v| v / 25).collect();
    (sizes, edges, groups)
}

#[test]
fn ten_thousand_nodes_in_one_component_finish() {
    let (sizes, edges, groups) = big_graph(10_000);
    let l = run(&sizes, &edges, &groups);
    assert_eq!(l.nodes.len(), 10_000);
    assert_eq!(l.edges.len(), edges.len());
    assert!(l.edges.iter().all(|e| e.len() >= 2));
    assert!(l.width.is_finite() && l.height.is_finite() && l.layers > 1);
    // Every edge ends where its dependent's box begins.
    for (&(_, v), line) in edges.iter().zip(&l.edges) {
        let r = l.nodes[v as usize];
        assert_eq!(line.last(), Some(&(r.x + r.w / 2.0, r.y)));
    }
    assert_no_overlap(&l);
    assert_in_bounds(&l);
}

#[test]
fn many_small_components_and_loose_nodes_pack_without_overlap() {
    // Plan-shaped: 300 modules of a dozen resources, plus 200 resources with no edges.
    let mut edges = Vec::new();
    for m in 0..300u32 {
        let base = m * 12;
        edges.extend((1..12).map(|i| (base + (i - 1) / 3, base + i)));
    }
    let n = 300 * 12 + 200;
    let sizes: Vec<(f32, f32)> = (0..n)
        .map(|v| (60.0 + (v % 9) as f32 * 15.0, 30.0))
        .collect();
    let groups: Vec<u32> = (0..n).map(|v| v / 12).collect();
    let l = run(&sizes, &edges, &groups);
    assert_no_overlap(&l);
    assert_in_bounds(&l);
    let aspect = l.width / l.height;
    assert!(aspect > 1.0 && aspect < 2.6, "aspect {aspect}");
}
