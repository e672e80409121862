//! A component made acyclic and layered: cycles broken at DFS back edges, layers by longest path,
//! and long edges split into dummy nodes, one per layer crossed, so every edge joins adjacent
//! layers.

/// Width reserved for an edge passing through a layer, and for a port.
pub(super) const DUMMY_WIDTH: f64 = 8.0;
/// Dummy nodes a component may get per real node and edge. Dependency graphs have short edges,
/// but a graph with many very long edges would otherwise grow millions of dummies; past this
/// budget the longest edges are drawn as straight lines and ignored by the ordering.
const DUMMIES_PER_ELEMENT: usize = 4;

/// Compressed adjacency lists: the neighbours of `v` are `adj[start[v]..start[v + 1]]`.
pub(super) struct Csr {
    start: Vec<u32>,
    adj: Vec<u32>,
}

impl Csr {
    /// Builds the lists from (from, to) pairs; each list keeps the pairs' order.
    fn new(n: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Self {
        let mut start = vec![0u32; n + 1];
        for (from, _) in pairs.clone() {
            start[from as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut adj = vec![0u32; start[n] as usize];
        for (from, to) in pairs {
            adj[fill[from as usize] as usize] = to;
            fill[from as usize] += 1;
        }
        Csr { start, adj }
    }

    pub(super) fn of(&self, v: u32) -> &[u32] {
        &self.adj[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }
}

/// Which links to reverse so the graph becomes acyclic: the back edges of an iterative DFS
/// (recursion would overflow the small wasm stack on long chains). Starting from the sources
/// keeps the natural dependency direction for most edges.
pub(super) fn break_cycles(n: usize, links: &[(u32, u32)]) -> Vec<bool> {
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let out = Csr::new(
        n,
        links.iter().enumerate().map(|(li, &(u, _))| (u, li as u32)),
    );
    let mut indegree = vec![0u32; n];
    for &(_, v) in links {
        indegree[v as usize] += 1;
    }
    let roots = (0..n as u32)
        .filter(|&v| indegree[v as usize] == 0)
        .chain(0..n as u32);
    let mut reversed = vec![false; links.len()];
    let mut state = vec![NEW; n];
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for root in roots {
        if state[root as usize] != NEW {
            continue;
        }
        state[root as usize] = OPEN;
        stack.push((root, out.start[root as usize]));
        while let Some(top) = stack.last_mut() {
            let (v, cursor) = *top;
            if cursor == out.start[v as usize + 1] {
                state[v as usize] = DONE;
                stack.pop();
                continue;
            }
            top.1 += 1;
            let li = out.adj[cursor as usize];
            let w = links[li as usize].1;
            match state[w as usize] {
                NEW => {
                    state[w as usize] = OPEN;
                    stack.push((w, out.start[w as usize]));
                }
                OPEN => reversed[li as usize] = true,
                _ => {}
            }
        }
    }
    reversed
}

/// Layer of each node of an acyclic graph: longest path from the sources, then every node with
/// more dependents than dependencies moved down next to its highest dependent, which shortens
/// its edges (and saves dummy nodes) without lengthening any other. The entry port, if any, gets
/// the first layer and the exit port the last, each alone there.
pub(super) fn assign_layers(n: usize, dag: &[(u32, u32)], ports: [Option<u32>; 2]) -> Vec<u32> {
    let is_port = |v: u32| ports.contains(&Some(v));
    let inner = dag
        .iter()
        .copied()
        .filter(|&(u, v)| !is_port(u) && !is_port(v));
    let out = Csr::new(n, inner.clone());
    let mut indegree = vec![0u32; n];
    for (_, v) in inner {
        indegree[v as usize] += 1;
    }
    let mut remaining = indegree.clone();
    let mut topo: Vec<u32> = (0..n as u32)
        .filter(|&v| indegree[v as usize] == 0)
        .collect();
    let mut layer = vec![0u32; n];
    let mut next = 0;
    while next < topo.len() {
        let v = topo[next];
        next += 1;
        for &w in out.of(v) {
            layer[w as usize] = layer[w as usize].max(layer[v as usize] + 1);
            remaining[w as usize] -= 1;
            if remaining[w as usize] == 0 {
                topo.push(w);
            }
        }
    }
    debug_assert_eq!(topo.len(), n, "the graph handed to layering has a cycle");
    // Dependents are final before their dependencies are looked at.
    for &v in topo.iter().rev() {
        let succ = out.of(v);
        if succ.len() > indegree[v as usize] as usize {
            let highest = succ.iter().map(|&w| layer[w as usize]).min();
            if let Some(highest) = highest {
                layer[v as usize] = layer[v as usize].max(highest - 1);
            }
        }
    }
    let min = (0..n as u32)
        .filter(|&v| !is_port(v))
        .map(|v| layer[v as usize])
        .min()
        .unwrap_or(0);
    let shift = u32::from(ports[0].is_some());
    for (v, l) in layer.iter_mut().enumerate() {
        *l = *l - min.min(*l) + shift;
        if is_port(v as u32) {
            *l = 0;
        }
    }
    if let Some(exit) = ports[1] {
        let deepest = (0..n as u32)
            .filter(|&v| !is_port(v))
            .map(|v| layer[v as usize])
            .max();
        layer[exit as usize] = deepest.map_or(shift, |l| l + 1);
    }
    layer
}

/// The "proper" layered graph: real nodes first, then one dummy node per layer a long edge
/// crosses, with edges only between adjacent layers.
pub(super) struct Layered {
    /// Number of real nodes; ids from here on are dummies.
    real: usize,
    pub(super) layer_count: usize,
    pub(super) layer_of: Vec<u32>,
    /// Box width of each node (dummies are narrow; real nodes' are set before placing).
    pub(super) width: Vec<f64>,
    /// Per real node: a module box, which keeps its neighbours further off.
    boxed: Vec<bool>,
    /// Neighbours in the layer above.
    pub(super) up: Csr,
    /// Neighbours in the layer below.
    pub(super) down: Csr,
    /// Per acyclic edge: first dummy id and number of dummies (ids are consecutive, top down).
    pub(super) chains: Vec<(u32, u32)>,
}

impl Layered {
    pub(super) fn build(boxed: Vec<bool>, layer_of: &[u32], dag: &[(u32, u32)]) -> Self {
        let real = boxed.len();
        let span = |&(u, v): &(u32, u32)| (layer_of[v as usize] - layer_of[u as usize]) as usize;
        let needed: usize = dag.iter().map(|e| span(e) - 1).sum();
        let budget = DUMMIES_PER_ELEMENT * (real + dag.len());
        // Over budget, the shortest edges get their dummies first: they are the ones a reader
        // follows, and each costs little.
        let mut routed = vec![true; dag.len()];
        if needed > budget {
            let mut by_span: Vec<u32> = (0..dag.len() as u32).collect();
            planlens_model::sort::by_key(&mut by_span, |&e| (span(&dag[e as usize]), e));
            let mut spent = 0;
            for e in by_span {
                let cost = span(&dag[e as usize]) - 1;
                if spent + cost > budget {
                    routed[e as usize] = false;
                } else {
                    spent += cost;
                }
            }
        }

        let layer_count = layer_of.iter().copied().max().map_or(0, |m| m as usize + 1);
        let mut all_layers = layer_of.to_vec();
        let mut width: Vec<f64> = vec![0.0; real];
        let mut chains = vec![(0u32, 0u32); dag.len()];
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(dag.len());
        for (e, &(u, v)) in dag.iter().enumerate() {
            if !routed[e] {
                continue;
            }
            let count = span(&(u, v)) as u32 - 1;
            let first = all_layers.len() as u32;
            chains[e] = (first, count);
            let mut prev = u;
            for i in 0..count {
                let d = first + i;
                all_layers.push(layer_of[u as usize] + 1 + i);
                width.push(DUMMY_WIDTH);
                pairs.push((prev, d));
                prev = d;
            }
            pairs.push((prev, v));
        }
        let total = all_layers.len();
        Layered {
            real,
            layer_count,
            layer_of: all_layers,
            width,
            boxed,
            up: Csr::new(total, pairs.iter().map(|&(a, b)| (b, a))),
            down: Csr::new(total, pairs.iter().copied()),
            chains,
        }
    }

    /// Node plus edge count: what one sweep or pass costs.
    pub(super) fn work(&self) -> usize {
        self.layer_of.len() + self.down.adj.len()
    }

    pub(super) fn is_dummy(&self, v: u32) -> bool {
        v as usize >= self.real
    }

    pub(super) fn is_box(&self, v: u32) -> bool {
        self.boxed.get(v as usize).copied().unwrap_or(false)
    }
}
