//! The analysis: each value that comes from the input followed through every rule, to what the
//! policies can observe of the input (a [`Need`]).

use std::collections::{BTreeSet, HashMap, HashSet};

use regorus::unstable::{AssignOp, Expr, Module, Query, Ref, Rule, RuleHead};

use super::syntax::{Access, binders, flatten, package_path, string_literal, var_name};
use super::{MAX_DEPTH, Need, Path, Step};
use crate::check::{head_ref, imports_of, ref_path};
use crate::shape::Shape;
use crate::walk::{Statement, children};

/// What an expression may hold that comes from the input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Flow {
    /// The value at one of these paths.
    at: BTreeSet<Path>,
    /// A collection (a set or array built by a rule or comprehension) of the values at these.
    elements: BTreeSet<Path>,
    /// It may also be an array, set or object not taken from the input (written in the policy,
    /// built by a comprehension or a builtin), which a cut-down element could come to equal.
    foreign: bool,
}

impl Flow {
    fn union(&mut self, other: &Flow) -> bool {
        let before = (self.at.len(), self.elements.len(), self.foreign);
        self.at.extend(other.at.iter().cloned());
        self.elements.extend(other.elements.iter().cloned());
        self.foreign |= other.foreign;
        before != (self.at.len(), self.elements.len(), self.foreign)
    }

    /// What the keys of a collection this holds may be (a set's keys are its elements), or its
    /// elements as a variable binds them.
    fn members(&self) -> Flow {
        Flow {
            at: self.elements.clone(),
            elements: BTreeSet::new(),
            foreign: self.foreign,
        }
    }

    /// A value that may be an array, set or object not taken from the input.
    fn foreign() -> Flow {
        Flow {
            foreign: true,
            ..Flow::default()
        }
    }
}

pub(super) struct ValueFlow {
    /// Each module's package path and import aliases (name → path from `input` or `data`).
    packages: Vec<Vec<String>>,
    aliases: Vec<HashMap<String, Vec<String>>>,
    /// Every rule's path (`data.lib.managed_changes`) → what its value may hold.
    rules: HashMap<Vec<String>, Flow>,
    /// Paths that lead to rules without being one (`data.lib`): reading one reads many rules.
    prefixes: HashSet<Vec<String>>,
    /// Rules named `test_…`: only `--verify` runs them.
    tests: HashSet<Vec<String>>,
    /// Rules whose values give findings (`deny`, `warn_x`, … under any shape): used whole.
    outputs: HashSet<Vec<String>>,
    functions: HashSet<Vec<String>>,
    /// Each function's number of parameters.
    arity: HashMap<Vec<String>, usize>,
    params: HashMap<(Vec<String>, usize), Flow>,
    returns: HashMap<Vec<String>, Flow>,
    /// Each rule's variables (by module, rule and name), over all its bodies.
    vars: HashMap<(usize, usize, String), Flow>,
    /// Per rule, how often each variable appears where it could be bound.
    binders: HashMap<(usize, usize), HashMap<String, usize>>,
    /// The origins of the elements of each set built (by rule path or comprehension position).
    sets: HashMap<String, BTreeSet<Path>>,
    /// The sets built that may also hold values not taken from the input.
    foreign_sets: HashSet<String>,
    whole: BTreeSet<Path>,
    touched: BTreeSet<Path>,
    identity: BTreeSet<Path>,
    changed: bool,
    /// Set when something cannot be followed: nothing is cut below the top level.
    pub(super) gave_up: bool,
}

/// Where a rule is analysed: its module and index, its package.
#[derive(Clone, Copy)]
struct Place {
    module: usize,
    rule: usize,
    test: bool,
}

impl ValueFlow {
    pub(super) fn new(modules: &[Ref<Module>]) -> Option<ValueFlow> {
        let mut analysis = ValueFlow {
            packages: Vec::new(),
            aliases: Vec::new(),
            rules: HashMap::new(),
            prefixes: HashSet::new(),
            tests: HashSet::new(),
            outputs: HashSet::new(),
            functions: HashSet::new(),
            arity: HashMap::new(),
            params: HashMap::new(),
            returns: HashMap::new(),
            vars: HashMap::new(),
            binders: HashMap::new(),
            sets: HashMap::new(),
            foreign_sets: HashSet::new(),
            whole: BTreeSet::new(),
            touched: BTreeSet::new(),
            identity: BTreeSet::new(),
            changed: false,
            gave_up: false,
        };
        for (m, module) in modules.iter().enumerate() {
            let package = package_path(module)?;
            let aliases = imports_of(module);
            for (r, rule) in module.policy.iter().enumerate() {
                let head = head_ref(rule);
                let (root, steps) = flatten(head);
                let name = var_name(root)?;
                let mut path = package.clone();
                path.push(name.to_string());
                for step in steps {
                    match step {
                        Access::Key(k) => path.push(k),
                        Access::Index(_) => break,
                    }
                }
                for n in package.len()..path.len() {
                    analysis.prefixes.insert(path[..n].to_vec());
                }
                for n in 1..package.len() {
                    analysis.prefixes.insert(package[..n].to_vec());
                }
                if name.starts_with("test_") {
                    analysis.tests.insert(path.clone());
                }
                if Shape::ALL.iter().any(|shape| shape.reads_rule(name)) {
                    analysis.outputs.insert(path.clone());
                }
                if let Rule::Spec {
                    head: RuleHead::Func { args, .. },
                    ..
                } = rule.as_ref()
                {
                    analysis.functions.insert(path.clone());
                    analysis.arity.insert(path.clone(), args.len());
                }
                analysis.rules.entry(path).or_default();
                analysis.binders.insert((m, r), binders(rule));
            }
            analysis.packages.push(package);
            analysis.aliases.push(aliases);
        }
        // A path that is a rule and also leads to others (`a := …` and `a.b := …`) is read as a
        // prefix: the whole object.
        let rules: Vec<Vec<String>> = analysis.rules.keys().cloned().collect();
        for path in rules {
            if analysis.prefixes.contains(&path) {
                return None;
            }
        }
        Some(analysis)
    }

    pub(super) fn finish(self) -> Need {
        let mut need = Need::default();
        for path in &self.touched {
            need.at(path);
        }
        for path in &self.whole {
            need.at(path).whole = true;
        }
        // A set built of values of two origins, or of input values and values built otherwise,
        // compares them with each other: whole.
        let mut identity = self.identity.clone();
        for (site, origins) in &self.sets {
            if origins.len() > 1 || self.foreign_sets.contains(site) {
                for path in origins {
                    need.at(path).whole = true;
                    identity.remove(path);
                }
            }
        }
        for path in &identity {
            if path.last() == Some(&Step::Any) {
                need.at(path).identity = true;
            } else {
                need.at(path).whole = true;
            }
        }
        need.normalize();
        need.number_sets(&mut 0);
        need
    }

    /// One pass over every rule, then the rules whose values give findings used whole; true
    /// when anything grew.
    pub(super) fn round(&mut self, modules: &[Ref<Module>]) -> bool {
        self.changed = false;
        for (m, module) in modules.iter().enumerate() {
            for (r, rule) in module.policy.iter().enumerate() {
                self.rule(m, r, rule);
            }
        }
        let outputs: Vec<Flow> = self
            .outputs
            .iter()
            .filter_map(|path| self.rules.get(path).cloned())
            .collect();
        for flow in &outputs {
            self.consume(flow);
        }
        self.changed
    }

    fn grow_whole(&mut self, path: &Path) {
        if self.whole.insert(path.clone()) {
            self.changed = true;
        }
        self.touch(path);
    }

    fn touch(&mut self, path: &Path) {
        if self.touched.insert(path.clone()) {
            self.changed = true;
        }
    }

    /// A use of the whole of what `flow` holds.
    fn consume(&mut self, flow: &Flow) {
        for path in flow.at.iter().chain(&flow.elements) {
            self.grow_whole(path);
        }
    }

    fn grow_var(&mut self, at: Place, name: &str, flow: &Flow) {
        if name == "_" {
            return;
        }
        let entry = self
            .vars
            .entry((at.module, at.rule, name.to_string()))
            .or_default();
        if entry.union(flow) {
            self.changed = true;
        }
    }

    fn grow(map: &mut HashMap<Vec<String>, Flow>, key: &[String], flow: &Flow) -> bool {
        map.entry(key.to_vec()).or_default().union(flow)
    }

    /// Records the elements of a set (by `site`) and asks that they keep comparing as before.
    fn set_of(&mut self, site: String, flow: &Flow) -> Flow {
        // A set of collections: their elements are compared whole.
        for path in &flow.elements {
            self.grow_whole(path);
        }
        self.compared(site, flow.at.iter(), flow.foreign);
        Flow {
            at: BTreeSet::new(),
            elements: flow.at.clone(),
            foreign: flow.foreign,
        }
    }

    /// Values at `paths` (and, when `foreign`, values built otherwise) that the engine compares
    /// with each other at `site`: a set's elements, a complete rule's or a function's values (two
    /// different values are a conflict). They must compare as before the cut.
    fn compared<'p>(&mut self, site: String, paths: impl Iterator<Item = &'p Path>, foreign: bool) {
        if foreign && self.foreign_sets.insert(site.clone()) {
            self.changed = true;
        }
        let paths: Vec<Path> = paths.cloned().collect();
        let origins = self.sets.entry(site).or_default();
        for path in &paths {
            if origins.insert(path.clone()) {
                self.changed = true;
            }
        }
        for path in paths {
            if self.identity.insert(path) {
                self.changed = true;
            }
        }
    }

    fn rule(&mut self, m: usize, r: usize, rule: &Rule) {
        let package = self.packages[m].clone();
        let (root, steps) = flatten(head_ref(rule));
        let mut path = package.clone();
        path.push(var_name(root).unwrap_or_default().to_string());
        let mut dynamic = Vec::new();
        for step in steps {
            match step {
                Access::Key(k) if dynamic.is_empty() => path.push(k),
                Access::Key(_) => {}
                Access::Index(e) => dynamic.push(e),
            }
        }
        let at = Place {
            module: m,
            rule: r,
            test: self.tests.contains(&path),
        };
        match rule {
            Rule::Spec { head, bodies, .. } => {
                for body in bodies {
                    self.query(at, &body.query);
                }
                // A key computed in the head (`p[k] := v`) is compared whole.
                for e in &dynamic {
                    let flow = self.value(at, e);
                    self.consume(&flow);
                }
                let mut values: Vec<&Expr> = bodies
                    .iter()
                    .filter_map(|b| b.assign.as_ref().map(|a| a.value.as_ref()))
                    .collect();
                match head {
                    RuleHead::Compr { assign, .. } => {
                        values.extend(assign.as_ref().map(|a| a.value.as_ref()));
                        for v in values {
                            let flow = self.value(at, v);
                            if dynamic.is_empty() {
                                let site = format!("value:{}", path.join("."));
                                self.compared(
                                    site,
                                    flow.at.iter().chain(&flow.elements),
                                    flow.foreign,
                                );
                                if Self::grow(&mut self.rules, &path, &flow) {
                                    self.changed = true;
                                }
                            } else {
                                self.consume(&flow);
                            }
                        }
                    }
                    RuleHead::Set { key, .. } => {
                        if let Some(k) = key {
                            let flow = self.value(at, k);
                            if !dynamic.is_empty() {
                                // Sets inside an object (`p[x] contains y`): not followed.
                                self.consume(&flow);
                                return;
                            }
                            let set = self.set_of(path.join("."), &flow);
                            if Self::grow(&mut self.rules, &path, &set) {
                                self.changed = true;
                            }
                        }
                    }
                    RuleHead::Func { args, assign, .. } => {
                        for (i, arg) in args.iter().enumerate() {
                            let flow = self
                                .params
                                .get(&(path.clone(), i))
                                .cloned()
                                .unwrap_or_default();
                            // A pattern or a literal compares the argument.
                            self.bind(at, arg, &flow);
                        }
                        values.extend(assign.as_ref().map(|a| a.value.as_ref()));
                        for v in values {
                            let flow = self.value(at, v);
                            let site = format!("return:{}", path.join("."));
                            self.compared(site, flow.at.iter().chain(&flow.elements), flow.foreign);
                            if Self::grow(&mut self.returns, &path, &flow) {
                                self.changed = true;
                            }
                        }
                    }
                }
            }
            Rule::Default { args, value, .. } => {
                for a in args {
                    let flow = self.value(at, a);
                    self.consume(&flow);
                }
                let flow = self.value(at, value);
                let into = if self.functions.contains(&path) {
                    &mut self.returns
                } else {
                    &mut self.rules
                };
                if Self::grow(into, &path, &flow) {
                    self.changed = true;
                }
            }
        }
    }

    fn query(&mut self, at: Place, query: &Query) {
        for stmt in &query.stmts {
            for w in &stmt.with_mods {
                let target = ref_path(&w.refr);
                if target.as_ref().and_then(|p| p.first()).map(String::as_str) == Some("input") {
                    let flow = self.value(at, &w.r#as);
                    self.consume(&flow);
                } else if !at.test {
                    self.gave_up = true;
                }
            }
            match Statement::of(&stmt.literal) {
                Statement::Test(expr) => {
                    let flow = self.statement(at, expr);
                    // Tested for being defined and not false: kept with its kind, which is
                    // what touching does.
                    for path in flow.at.iter().chain(&flow.elements) {
                        self.touch(path);
                    }
                }
                Statement::SomeIn(some) => {
                    let collection = self.value(at, some.collection);
                    let items = self.iterate(&collection);
                    self.bind(at, some.value, &items);
                    if let Some(key) = some.key {
                        // A set's keys are its elements; an array's or object's are indexes
                        // and keys, all kept under `Any`.
                        self.bind(at, key, &collection.members());
                    }
                }
                Statement::Declare => {}
                Statement::Every(every) => {
                    let domain = self.value(at, every.domain);
                    let items = self.iterate(&domain);
                    self.grow_var(at, every.value.text(), &items);
                    if let Some(key) = every.key {
                        self.grow_var(at, key.text(), &domain.members());
                    }
                    self.query(at, every.query);
                }
            }
        }
    }

    /// `flow` bound to `target`: a variable takes it; a pattern or a literal compares it whole.
    fn bind(&mut self, at: Place, target: &Expr, flow: &Flow) {
        match var_name(target) {
            Some(name) => self.grow_var(at, name, flow),
            None => {
                self.consume(flow);
                let pattern = self.value(at, target);
                self.consume(&pattern);
            }
        }
    }

    /// What iterating `flow` binds: every element or value of the input values, every element
    /// of a collection.
    fn iterate(&mut self, flow: &Flow) -> Flow {
        let mut items = Flow {
            foreign: flow.foreign,
            ..Flow::default()
        };
        for path in &flow.at {
            let p = self.step(path, Step::Any);
            items.at.insert(p);
        }
        items.at.extend(flow.elements.iter().cloned());
        items
    }

    /// `path` one step further (touched: it must exist as it did).
    fn step(&mut self, path: &Path, step: Step) -> Path {
        let mut p = path.clone();
        if p.len() >= MAX_DEPTH {
            self.grow_whole(&p);
            return p;
        }
        p.push(step);
        self.touch(&p);
        p
    }

    /// An expression as a statement: an assignment binds, anything else is a value tested.
    fn statement(&mut self, at: Place, expr: &Expr) -> Flow {
        match expr {
            Expr::AssignExpr { op, lhs, rhs, .. } => {
                self.assign(at, op, lhs, rhs);
                Flow::default()
            }
            other => self.value(at, other),
        }
    }

    fn assign(&mut self, at: Place, op: &AssignOp, lhs: &Expr, rhs: &Expr) {
        let fresh = |s: &Self, name: &str| s.fresh(at, name);
        match (op, var_name(lhs), var_name(rhs)) {
            (AssignOp::ColEq, Some(name), _) => {
                let flow = self.value(at, rhs);
                self.grow_var(at, name, &flow);
            }
            (AssignOp::Eq, Some(name), _) if fresh(self, name) => {
                let flow = self.value(at, rhs);
                self.grow_var(at, name, &flow);
            }
            (AssignOp::Eq, _, Some(name)) if fresh(self, name) => {
                let flow = self.value(at, lhs);
                self.grow_var(at, name, &flow);
            }
            _ => {
                // Destructuring or unification compares both sides.
                let l = self.value(at, lhs);
                self.consume(&l);
                let r = self.value(at, rhs);
                self.consume(&r);
            }
        }
    }

    /// True when `name` is bound in only one place of the rule and names nothing global (a
    /// rule, an import, `input`, `data`): there it takes every value, it compares with none.
    fn fresh(&self, at: Place, name: &str) -> bool {
        self.binders
            .get(&(at.module, at.rule))
            .and_then(|b| b.get(name))
            .is_none_or(|n| *n <= 1)
            && self.data_root(at, name).is_none()
            && self.input_root(at, name).is_none()
    }

    /// The path of a name in `data` (an import alias, `data`, or a rule of the package).
    fn data_root(&self, at: Place, name: &str) -> Option<Vec<String>> {
        if let Some(path) = self.aliases[at.module].get(name) {
            return (path.first().map(String::as_str) == Some("data")).then(|| path.clone());
        }
        if name == "data" {
            return Some(vec!["data".to_string()]);
        }
        let mut path = self.packages[at.module].clone();
        path.push(name.to_string());
        (self.rules.contains_key(&path) || self.prefixes.contains(&path)).then_some(path)
    }

    fn input_root(&self, at: Place, name: &str) -> Option<Path> {
        if name == "input" {
            return Some(Vec::new());
        }
        let path = self.aliases[at.module].get(name)?;
        (path.first().map(String::as_str) == Some("input"))
            .then(|| path[1..].iter().cloned().map(Step::Key).collect())
    }

    fn value(&mut self, at: Place, expr: &Expr) -> Flow {
        match expr {
            Expr::Var { .. } | Expr::RefDot { .. } | Expr::RefBrack { .. } => {
                self.reference(at, expr)
            }
            Expr::String { .. }
            | Expr::RawString { .. }
            | Expr::Number { .. }
            | Expr::Bool { .. }
            | Expr::Null { .. } => Flow::default(),
            Expr::ArrayCompr { term, query, .. } => {
                self.query(at, query);
                let term = self.value(at, term);
                for path in &term.elements {
                    self.grow_whole(path);
                }
                Flow {
                    at: BTreeSet::new(),
                    elements: term.at,
                    foreign: term.foreign,
                }
            }
            Expr::SetCompr {
                span, term, query, ..
            } => {
                self.query(at, query);
                let term = self.value(at, term);
                let site = format!("{}:{}:{}", span.source.file(), span.line, span.col);
                self.set_of(site, &term)
            }
            Expr::Call { fcn, params, .. } => self.call(at, fcn, params),
            Expr::AssignExpr { op, lhs, rhs, .. } => {
                self.assign(at, op, lhs, rhs);
                Flow::default()
            }
            Expr::Membership {
                key,
                value,
                collection,
                ..
            } => {
                let collection = self.value(at, collection);
                let items = self.iterate(&collection);
                self.consume(&items);
                self.consume(&collection.members());
                for e in key.iter().chain([value]) {
                    let flow = self.value(at, e);
                    self.consume(&flow);
                }
                Flow::default()
            }
            other => {
                // Literals written in the policy, comparisons, arithmetic, set operations,
                // object comprehensions: every part is used whole.
                if let Expr::ObjectCompr { query, .. } = other {
                    self.query(at, query);
                }
                children(other, &mut |part| {
                    let flow = self.value(at, part);
                    self.consume(&flow);
                });
                Flow::foreign()
            }
        }
    }

    fn call(&mut self, at: Place, fcn: &Expr, params: &[Ref<Expr>]) -> Flow {
        let Some(name) = ref_path(fcn) else {
            for p in params {
                let flow = self.value(at, p);
                self.consume(&flow);
            }
            return Flow::foreign();
        };
        // A user function: its arguments flow into its parameters, its value out.
        let mut candidates = Vec::new();
        if let Some(root) = self.data_root(at, &name[0]) {
            let mut path = root;
            path.extend(name[1..].iter().cloned());
            candidates.push(path);
        }
        if let Some(path) = candidates.into_iter().find(|p| self.functions.contains(p)) {
            if self.tests.contains(&path) && !at.test {
                self.gave_up = true;
            }
            let returned = self.returns.get(&path).cloned().unwrap_or_default();
            let arity = self.arity.get(&path).copied().unwrap_or(usize::MAX);
            for (i, p) in params.iter().enumerate() {
                if i == arity {
                    // v0's output argument, `f(x, out)`: bound to the function's value.
                    self.bind(at, p, &returned);
                    continue;
                }
                let flow = self.value(at, p);
                let entry = self.params.entry((path.clone(), i)).or_default();
                if entry.union(&flow) {
                    self.changed = true;
                }
            }
            return returned;
        }
        let builtin = name.join(".");
        match (builtin.as_str(), params) {
            // The number of a collection's elements, of an array's elements or an object's keys:
            // every element and key is kept.
            ("count", [x]) => {
                let flow = self.value(at, x);
                for path in &flow.at {
                    self.step(path, Step::Any);
                }
                Flow::default()
            }
            // A value's kind, which the cut keeps.
            (
                "is_object" | "is_array" | "is_string" | "is_number" | "is_boolean" | "is_null"
                | "is_set" | "type_name",
                [x],
            ) => {
                let flow = self.value(at, x);
                for path in flow.at.iter().chain(&flow.elements) {
                    self.touch(path);
                }
                Flow::default()
            }
            ("object.get", [object, key, default]) if !self.shadows_object(at) => {
                let object = self.value(at, object);
                for path in &object.elements {
                    self.grow_whole(path);
                }
                let mut keys = Vec::new();
                let mut computed = false;
                match key.as_ref() {
                    Expr::Array { items, .. } => {
                        for item in items {
                            match string_literal(item) {
                                Some(k) if !computed => keys.push(Step::Key(k)),
                                _ => {
                                    computed = true;
                                    let flow = self.value(at, item);
                                    self.consume(&flow);
                                }
                            }
                        }
                    }
                    other => match string_literal(other) {
                        Some(k) => keys.push(Step::Key(k)),
                        None => {
                            computed = true;
                            let flow = self.value(at, other);
                            self.consume(&flow);
                        }
                    },
                }
                if computed {
                    keys.push(Step::Any);
                }
                let mut out = self.value(at, default);
                for path in &object.at {
                    let mut p = path.clone();
                    for k in &keys {
                        p = self.step(&p, k.clone());
                    }
                    if computed {
                        // Below a computed key, anything may be read: whole.
                        self.grow_whole(&p);
                    }
                    out.at.insert(p);
                }
                out
            }
            _ => {
                for p in params {
                    let flow = self.value(at, p);
                    self.consume(&flow);
                }
                Flow::foreign()
            }
        }
    }

    /// True when `object` in this module may name something else than the builtins.
    fn shadows_object(&self, at: Place) -> bool {
        self.aliases[at.module].contains_key("object")
            || self.rules.keys().any(|p| {
                p.len() > self.packages[at.module].len()
                    && p.starts_with(&self.packages[at.module])
                    && p[self.packages[at.module].len()] == "object"
            })
    }

    fn reference(&mut self, at: Place, expr: &Expr) -> Flow {
        let (head, steps) = flatten(expr);
        let mut flow = Flow::default();
        let mut from = 0;
        match head {
            Expr::Var { span, .. } => {
                let name = span.text();
                if let Some(local) = self.vars.get(&(at.module, at.rule, name.to_string())) {
                    flow.union(&local.clone());
                }
                if let Some(root) = self.input_root(at, name) {
                    self.touch(&root);
                    flow.at.insert(root);
                }
                if let Some(root) = self.data_root(at, name) {
                    // Follow static keys until a rule; the rest applies to its value.
                    let mut path = root;
                    loop {
                        if self.rules.contains_key(&path) {
                            if self.tests.contains(&path) && !at.test {
                                self.gave_up = true;
                            }
                            if !self.functions.contains(&path) {
                                let value = self.rules.get(&path).cloned().unwrap_or_default();
                                flow.union(&value);
                            }
                            break;
                        }
                        if !self.prefixes.contains(&path) {
                            break; // not a rule: data the policies do not define
                        }
                        match steps.get(from) {
                            Some(Access::Key(k)) => {
                                path.push(k.clone());
                                from += 1;
                            }
                            // A package or `data` as a whole, or indexed at run time.
                            _ => {
                                self.gave_up = true;
                                break;
                            }
                        }
                    }
                }
            }
            other => flow = self.value(at, other),
        }
        for step in &steps[from..] {
            flow = self.access(at, &flow, step);
        }
        flow
    }

    fn access(&mut self, at: Place, flow: &Flow, step: &Access<'_>) -> Flow {
        // A part of a value built otherwise is built otherwise too.
        let mut out = Flow {
            foreign: flow.foreign,
            ..Flow::default()
        };
        match step {
            Access::Key(k) => {
                for path in &flow.at {
                    let p = self.step(path, Step::Key(k.clone()));
                    out.at.insert(p);
                }
                // A collection looked up by a key: its elements are compared.
                for path in &flow.elements {
                    self.grow_whole(path);
                }
            }
            Access::Index(index) => {
                for path in &flow.at {
                    let p = self.step(path, Step::Any);
                    out.at.insert(p);
                }
                match var_name(index) {
                    Some("_") => {
                        out.at.extend(flow.elements.iter().cloned());
                    }
                    Some(name) => {
                        if !self.fresh(at, name) {
                            // Maybe a lookup with a value from elsewhere: compared whole.
                            for path in &flow.elements {
                                self.grow_whole(path);
                            }
                        }
                        self.grow_var(at, name, &flow.members());
                        out.at.extend(flow.elements.iter().cloned());
                    }
                    None => {
                        let key = self.value(at, index);
                        self.consume(&key);
                        for path in &flow.elements {
                            self.grow_whole(path);
                        }
                        out.at.extend(flow.elements.iter().cloned());
                    }
                }
            }
        }
        out
    }
}
