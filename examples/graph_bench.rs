//! Native timings of the dependency graph: `cargo run --release --example graph_bench -- PLAN.json…`
//! (scripts/bench.mjs runs it on the generated plans). Prints one line per plan; a benchmark, not a
//! test.

use std::time::Instant;

use planlens::graph::DepGraph;
use planlens::graph::view::ViewOptions;
use planlens::load_plan;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let runs = 5;
    println!(
        "{:<28} {:>7} {:>7} {:>9} {:>13} {:>8} {:>14} {:>9}",
        "plan", "nodes", "edges", "build ms", "default ms", "boxes", "full ms", "crossings"
    );
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let doc = load_plan(bytes, &path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let (mut build, mut default, mut full) = (Vec::new(), Vec::new(), Vec::new());
        let mut last = None;
        for _ in 0..runs {
            let t = Instant::now();
            let g = DepGraph::build(&doc);
            build.push(t.elapsed().as_secs_f64() * 1000.0);

            let t = Instant::now();
            let options = ViewOptions {
                collapsed: g.default_collapsed(),
                show_unchanged: false,
            };
            let v = g.view(&options);
            default.push(t.elapsed().as_secs_f64() * 1000.0);

            let t = Instant::now();
            let all = g.view(&ViewOptions {
                collapsed: Default::default(),
                show_unchanged: true,
            });
            full.push(t.elapsed().as_secs_f64() * 1000.0);
            last = Some((g, v, all));
        }
        let (g, v, all) = last.expect("at least one run");
        let name = std::path::Path::new(&path)
            .file_name()
            .map_or(path.clone(), |n| n.to_string_lossy().into_owned());
        println!(
            "{:<28} {:>7} {:>7} {:>9.1} {:>13.1} {:>8} {:>14.1} {:>9}",
            name,
            g.graph.node_count(),
            g.graph.edge_count(),
            median(build),
            median(default),
            v.nodes.len(),
            median(full),
            all.layout.crossings,
        );
    }
    println!(
        "median of {runs}; default = the view the Graph tab opens with (collapse + layout), full = every resource expanded"
    );
}
