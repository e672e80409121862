//! Building the dependency graph: configuration references resolved to instance addresses.
//!
//! Resolution happens once per configuration resource, at the configuration level, giving
//! [`Target`]s that are relative to the referring instance's module instance ("go up `up` module
//! levels, then take the instances of this configuration resource below there"). Each instance then
//! turns its targets into edges. That keeps instances of `count`/`for_each` modules apart: a resource
//! in `module.app[0]` depends on `module.app[0]`'s subnet, not on `module.app[1]`'s.
//!
//! One petgraph node per resource change, at the same index as its row, plus resources only in the
//! prior state. Edges come from references, `depends_on`, module call inputs (`var.x` → the
//! caller's expression) and outputs (`module.m.o` → the resources behind `o`), `count`/`for_each`,
//! calls' `depends_on`, and the state's `depends_on`. One edge per pair (a reference before
//! `depends_on` before the state); no self-loops; building never fails.

use std::collections::HashMap;

use petgraph::graph::{DiGraph, NodeIndex};

use super::config::{
    ConfigModule, ConfigResource, Configuration, ModuleCall, PriorState, Reference,
    parse_reference, read_configuration, read_prior_state, split_config_address,
};
use super::{DepGraph, EdgeKind, EdgeSource, ModuleInstance, Node};
use planlens_model::address::module_path_string;
use planlens_model::{Action, Address, Document, Mode, ModuleStep};

/// Module calls nest at most this deep through inputs and outputs before we stop following them;
/// Terraform rejects cycles, so only a malformed configuration gets here.
const MAX_RESOLVE_DEPTH: u32 = 64;

/// A module of the configuration (call names only, no instance keys).
struct CfgModule<'c, 'a> {
    parent: Option<u32>,
    children: HashMap<String, u32>,
    /// Module indices from the root down to this one.
    ancestors: Vec<u32>,
    config: Option<&'c ConfigModule<'a>>,
    call: Option<&'c ModuleCall<'a>>,
}

/// What a configuration resource depends on, relative to one of its instances.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Target {
    /// How many module levels above the instance's module instance the fixed part ends; below it
    /// every instance key matches.
    up: u32,
    /// The configuration module the dependency is in.
    module: u32,
    /// The resource (interned key); `None` for everything in `module` and below (`depends_on` a
    /// whole module).
    resource: Option<u32>,
    kind: EdgeKind,
}

struct Builder<'c, 'a> {
    cfg: Vec<CfgModule<'c, 'a>>,
    resource_keys: HashMap<String, u32>,
    config_resources: HashMap<(u32, u32), &'c ConfigResource<'a>>,
    inherited: Vec<Option<Vec<Target>>>,
    key_buffer: String,
}

impl<'c, 'a> Builder<'c, 'a> {
    fn new() -> Self {
        Builder {
            cfg: vec![CfgModule {
                parent: None,
                children: HashMap::new(),
                ancestors: vec![0],
                config: None,
                call: None,
            }],
            resource_keys: HashMap::new(),
            config_resources: HashMap::new(),
            inherited: Vec::new(),
            key_buffer: String::new(),
        }
    }

    fn child(&mut self, parent: u32, name: &str) -> u32 {
        if let Some(&c) = self.cfg[parent as usize].children.get(name) {
            return c;
        }
        let id = self.cfg.len() as u32;
        let mut ancestors = self.cfg[parent as usize].ancestors.clone();
        ancestors.push(id);
        self.cfg.push(CfgModule {
            parent: Some(parent),
            children: HashMap::new(),
            ancestors,
            config: None,
            call: None,
        });
        self.cfg[parent as usize]
            .children
            .insert(name.to_string(), id);
        id
    }

    /// The interned key of `[data.]TYPE.NAME`, built in a reused buffer.
    fn resource_key_of(&mut self, is_data: bool, kind: &str, name: &str) -> u32 {
        let mut key = std::mem::take(&mut self.key_buffer);
        key.clear();
        if is_data {
            key.push_str("data.");
        }
        key.push_str(kind);
        key.push('.');
        key.push_str(name);
        let k = self.resource_key(&key);
        self.key_buffer = key;
        k
    }

    fn resource_key(&mut self, key: &str) -> u32 {
        if let Some(&k) = self.resource_keys.get(key) {
            return k;
        }
        let k = self.resource_keys.len() as u32;
        self.resource_keys.insert(key.to_string(), k);
        k
    }

    fn add_config(&mut self, module: u32, config: &'c ConfigModule<'a>) {
        self.cfg[module as usize].config = Some(config);
        for resource in &config.resources {
            let key = self.resource_key(&resource.address);
            self.config_resources.insert((module, key), resource);
        }
        for (name, call) in &config.module_calls {
            let child = self.child(module, name);
            self.cfg[child as usize].call = Some(call);
            self.add_config(child, &call.module);
        }
    }

    /// Resolves one reference made in configuration module `scope`. `up`/`below` track where the
    /// fixed instance prefix ends: going down into a module call adds to `below` (any instance of
    /// the call matches), going up through `var.` first undoes those steps, then adds to `up`.
    #[allow(clippy::too_many_arguments)]
    fn resolve(
        &self,
        scope: u32,
        up: u32,
        below: u32,
        reference: &str,
        kind: EdgeKind,
        whole_module: bool,
        out: &mut Vec<Target>,
        depth: u32,
    ) {
        if depth > MAX_RESOLVE_DEPTH {
            return;
        }
        let module = &self.cfg[scope as usize];
        match parse_reference(reference) {
            Reference::Resource(key) => {
                if let Some(&resource) = self.resource_keys.get(&key) {
                    out.push(Target {
                        up,
                        module: scope,
                        resource: Some(resource),
                        kind,
                    });
                }
            }
            Reference::Variable(name) => {
                let (Some(parent), Some(call)) = (module.parent, module.call) else {
                    return;
                };
                let Some(input) = call.expressions.get(name) else {
                    return;
                };
                let (up, below) = if below > 0 {
                    (up, below - 1)
                } else {
                    (up + 1, 0)
                };
                for r in &input.0 {
                    self.resolve(parent, up, below, r, kind, false, out, depth + 1);
                }
            }
            Reference::Module { call, output } => {
                let Some(&child) = module.children.get(call) else {
                    return;
                };
                if whole_module && output.is_none() {
                    out.push(Target {
                        up,
                        module: child,
                        resource: None,
                        kind,
                    });
                    return;
                }
                let Some(config) = self.cfg[child as usize].config else {
                    return;
                };
                let outputs: Vec<_> = match output {
                    Some(name) => config.outputs.get(name).into_iter().collect(),
                    None => config.outputs.values().collect(),
                };
                for o in outputs {
                    for r in &o.expression.0 {
                        self.resolve(child, up, below + 1, r, kind, false, out, depth + 1);
                    }
                    for d in &o.depends_on {
                        let kind = EdgeKind::DependsOn;
                        self.resolve(child, up, below + 1, d, kind, true, out, depth + 1);
                    }
                }
            }
            Reference::Other => {}
        }
    }

    /// What every instance of a configuration resource depends on through its own block.
    fn resource_targets(&self, module: u32, resource: &ConfigResource) -> Vec<Target> {
        let mut out = Vec::new();
        let expressions = resource.expressions.0.iter();
        let repetition = resource.count_expression.0.iter();
        for r in expressions
            .chain(repetition)
            .chain(&resource.for_each_expression.0)
        {
            self.resolve(module, 0, 0, r, EdgeKind::Reference, false, &mut out, 0);
        }
        for d in &resource.depends_on {
            self.resolve(module, 0, 0, d, EdgeKind::DependsOn, true, &mut out, 0);
        }
        out
    }

    /// What every resource in a configuration module depends on through the module calls above it
    /// (`depends_on`, `count`, `for_each` of each call), relative to an instance directly in it.
    fn inherited_targets(&mut self, module: u32) -> Vec<Target> {
        if self.inherited.len() < self.cfg.len() {
            self.inherited.resize(self.cfg.len(), None);
        }
        if let Some(done) = &self.inherited[module as usize] {
            return done.clone();
        }
        let mut out = Vec::new();
        if let (Some(parent), Some(call)) = (
            self.cfg[module as usize].parent,
            self.cfg[module as usize].call,
        ) {
            let repetition = call.count_expression.0.iter();
            for r in repetition.chain(&call.for_each_expression.0) {
                self.resolve(parent, 1, 0, r, EdgeKind::Reference, false, &mut out, 0);
            }
            for d in &call.depends_on {
                self.resolve(parent, 1, 0, d, EdgeKind::DependsOn, true, &mut out, 0);
            }
            out.extend(
                self.inherited_targets(parent)
                    .into_iter()
                    .map(|t| Target { up: t.up + 1, ..t }),
            );
        }
        self.inherited[module as usize] = Some(out.clone());
        out
    }
}

/// What a resource change says about where it sits, so its address need not be parsed.
#[derive(Clone, Copy)]
struct Known<'k> {
    module: &'k str,
    is_data: bool,
    kind: &'k str,
    name: &'k str,
}

/// Per-node facts the builder needs besides the [`Node`] itself.
struct Placed {
    cfg_module: u32,
    resource: Option<u32>,
}

/// The nodes being added, with the module instances they live in.
struct Nodes {
    graph: DiGraph<Node, EdgeKind, u32>,
    instances: Vec<ModuleInstance>,
    instance_ix: HashMap<String, u32>,
    /// Per module instance, its configuration module.
    instance_cfg: Vec<u32>,
    /// Module instance indices from the root down, per module instance.
    instance_ancestors: Vec<Vec<u32>>,
    /// Per node, where it sits in the configuration.
    placed: Vec<Placed>,
    /// Current (not deposed) objects by address.
    address_ix: HashMap<String, NodeIndex>,
}

impl Nodes {
    fn new(capacity: usize) -> Self {
        Nodes {
            graph: DiGraph::with_capacity(capacity, 0),
            instances: vec![ModuleInstance {
                path: String::new(),
                parent: None,
                depth: 0,
            }],
            instance_ix: HashMap::from([(String::new(), 0)]),
            instance_cfg: vec![0],
            instance_ancestors: vec![vec![0]],
            placed: Vec::with_capacity(capacity),
            address_ix: HashMap::with_capacity(capacity),
        }
    }

    /// The module instance for the first `depth` steps of an address, created on first sight.
    fn module_instance(&mut self, parent: u32, steps: &[ModuleStep], cfg_module: u32) -> u32 {
        let path = module_path_string(steps);
        if let Some(&i) = self.instance_ix.get(&path) {
            return i;
        }
        self.instance_cfg.push(cfg_module);
        let i = self.instances.len() as u32;
        let mut ancestors = self.instance_ancestors[parent as usize].clone();
        ancestors.push(i);
        self.instance_ancestors.push(ancestors);
        self.instances.push(ModuleInstance {
            path: path.clone(),
            parent: Some(parent),
            depth: steps.len() as u32,
        });
        self.instance_ix.insert(path, i);
        i
    }

    /// Adds a node. `known` gives the module path, mode, type and name straight from the resource
    /// change, which saves parsing the address for every node of a module instance seen before.
    fn add(
        &mut self,
        b: &mut Builder<'_, '_>,
        address: &str,
        known: Option<Known<'_>>,
        mut node: Node,
    ) -> NodeIndex {
        let fast = known.and_then(|k| {
            let &instance = self.instance_ix.get(k.module)?;
            let cfg_module = self.instance_cfg[instance as usize];
            Some((
                instance,
                cfg_module,
                Some(b.resource_key_of(k.is_data, k.kind, k.name)),
            ))
        });
        let (module, cfg_module, resource) = match fast {
            Some(placed) => placed,
            None => match Address::parse(address) {
                Ok(parsed) => {
                    let mut instance = 0u32;
                    let mut cfg_module = 0u32;
                    for depth in 1..=parsed.module.len() {
                        cfg_module = b.child(cfg_module, &parsed.module[depth - 1].name);
                        instance =
                            self.module_instance(instance, &parsed.module[..depth], cfg_module);
                    }
                    let key =
                        b.resource_key_of(parsed.is_data, &parsed.resource_type, &parsed.name);
                    (instance, cfg_module, Some(key))
                }
                // An address we cannot read still gets a node (in the root module), just no edges.
                Err(_) => (0, 0, None),
            },
        };
        node.module = module;
        let is_deposed = node.is_deposed;
        let ix = self.graph.add_node(node);
        if !is_deposed {
            self.address_ix.entry(address.to_string()).or_insert(ix);
        }
        self.placed.push(Placed {
            cfg_module,
            resource,
        });
        ix
    }
}

impl DepGraph {
    /// Builds the dependency graph of a loaded plan. Never fails: what cannot be resolved is left
    /// out, and [`DepGraph::source`] says what the edges came from.
    pub fn build(doc: &Document) -> DepGraph {
        let plan = doc.plan();
        let configuration: Option<Configuration> = plan.configuration.and_then(read_configuration);
        let prior_state: Option<PriorState> = plan.prior_state.and_then(read_prior_state);
        let state_resources = prior_state
            .as_ref()
            .and_then(|s| s.values.as_ref())
            .map(|v| v.root_module.all_resources())
            .unwrap_or_default();

        let mut b = Builder::new();
        if let Some(config) = &configuration {
            b.add_config(0, &config.root_module);
        }

        let mut nodes = Nodes::new(doc.rows.len() + state_resources.len());
        for (i, row) in doc.rows.iter().enumerate() {
            let change = doc.change(row);
            let node = Node {
                address: change.address.to_string(),
                action: row.action,
                row: Some(i as u32),
                module: 0,
                is_data: row.is_data,
                is_import: row.is_import,
                is_move: row.is_move,
                is_drifted: row.is_drifted,
                is_deposed: change.deposed.is_some(),
            };
            let known = Known {
                module: doc.module_of(row),
                is_data: row.is_data,
                kind: &change.resource_type,
                name: &change.name,
            };
            // Deferred changes may have `[*]` keys and old plans lack some fields: parse those.
            let known =
                (!change.resource_type.is_empty() && !change.name.is_empty()).then_some(known);
            nodes.add(&mut b, &change.address, known, node);
        }
        // Instances only in the prior state (data sources read earlier, mostly) are dependencies
        // too; they have no change, so they are no-ops.
        for (address, resource) in &state_resources {
            if resource.deposed_key.is_some() || nodes.address_ix.contains_key(&**address) {
                continue;
            }
            let node = Node {
                address: address.to_string(),
                action: Action::NoOp,
                row: None,
                module: 0,
                is_data: resource.mode == Mode::Data,
                is_import: false,
                is_move: false,
                is_drifted: false,
                is_deposed: false,
            };
            nodes.add(&mut b, address, None, node);
        }

        let Nodes {
            mut graph,
            instances,
            instance_ancestors,
            placed,
            address_ix,
            ..
        } = nodes;

        // Current (not deposed) instances by configuration resource and by configuration module.
        let mut by_resource: HashMap<(u32, u32), Vec<NodeIndex>> = HashMap::new();
        let mut by_module: Vec<Vec<NodeIndex>> = vec![Vec::new(); b.cfg.len()];
        for ix in graph.node_indices() {
            if graph[ix].is_deposed {
                continue;
            }
            let p = &placed[ix.index()];
            if let Some(resource) = p.resource {
                by_resource
                    .entry((p.cfg_module, resource))
                    .or_default()
                    .push(ix);
            }
            by_module[p.cfg_module as usize].push(ix);
        }

        let mut edges: Vec<(u32, u32, EdgeKind)> = Vec::new();
        let connect = |edges: &mut Vec<(u32, u32, EdgeKind)>,
                       b: &Builder<'_, '_>,
                       node: NodeIndex,
                       target: &Target| {
            let ancestors = &instance_ancestors[graph[node].module as usize];
            let Some(base_depth) = (ancestors.len() as u32 - 1).checked_sub(target.up) else {
                return;
            };
            let base = ancestors[base_depth as usize];
            let mut consider = |candidates: &[NodeIndex]| {
                for &c in candidates {
                    let theirs = &instance_ancestors[graph[c].module as usize];
                    if theirs.get(base_depth as usize) == Some(&base) && c != node {
                        edges.push((c.index() as u32, node.index() as u32, target.kind));
                    }
                }
            };
            match target.resource {
                Some(resource) => {
                    if let Some(candidates) = by_resource.get(&(target.module, resource)) {
                        consider(candidates);
                    }
                }
                None => {
                    let mut stack = vec![target.module];
                    while let Some(m) = stack.pop() {
                        consider(&by_module[m as usize]);
                        stack.extend(b.cfg[m as usize].children.values());
                    }
                }
            }
        };

        if configuration.is_some() {
            let mut per_resource: HashMap<(u32, u32), Vec<Target>> = HashMap::new();
            for ix in graph.node_indices() {
                let p = &placed[ix.index()];
                let Some(resource) = p.resource else { continue };
                let own = per_resource
                    .entry((p.cfg_module, resource))
                    .or_insert_with(|| match b.config_resources.get(&(p.cfg_module, resource)) {
                        Some(r) => b.resource_targets(p.cfg_module, r),
                        None => Vec::new(),
                    })
                    .clone();
                let inherited = b.inherited_targets(p.cfg_module);
                for target in own.iter().chain(&inherited) {
                    connect(&mut edges, &b, ix, target);
                }
            }
        }

        let mut dep_cache: HashMap<&str, Option<(u32, Option<u32>)>> = HashMap::new();
        for (address, resource) in &state_resources {
            if resource.deposed_key.is_some() || resource.depends_on.is_empty() {
                continue;
            }
            let Some(&ix) = address_ix.get(&**address) else {
                continue;
            };
            let mine = &b.cfg[placed[ix.index()].cfg_module as usize].ancestors;
            for dep in &resource.depends_on {
                // The same few addresses recur across the state: resolve each once.
                let resolved = *dep_cache.entry(dep).or_insert_with(|| {
                    let (modules, key) = split_config_address(dep);
                    let mut module = 0u32;
                    for name in modules {
                        module = *b.cfg[module as usize].children.get(name)?;
                    }
                    match key {
                        Some(k) => Some((module, Some(*b.resource_keys.get(&k)?))),
                        None => Some((module, None)),
                    }
                });
                let Some((module, resource_key)) = resolved else {
                    continue;
                };
                let theirs = &b.cfg[module as usize].ancestors;
                let common = mine.iter().zip(theirs).take_while(|(a, b)| a == b).count() as u32;
                let target = Target {
                    up: mine.len() as u32 - common,
                    module,
                    resource: resource_key,
                    kind: EdgeKind::State,
                };
                connect(&mut edges, &b, ix, &target);
            }
        }

        // One edge per pair, the most telling kind first (reference before depends_on before state).
        planlens_model::sort::natural(&mut edges);
        edges.dedup_by_key(|e| (e.0, e.1));
        for (from, to, kind) in edges {
            graph.add_edge(
                NodeIndex::new(from as usize),
                NodeIndex::new(to as usize),
                kind,
            );
        }

        let source = if configuration.is_some() {
            EdgeSource::Configuration
        } else if prior_state.is_some() {
            EdgeSource::StateOnly
        } else {
            EdgeSource::Nothing
        };
        DepGraph {
            graph,
            module_instances: instances,
            source,
        }
    }
}
