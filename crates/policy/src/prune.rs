//! Which parts of the input the policies can observe, below the top level, and the input's text
//! cut down to them. [`super::reads`] keeps the plan keys a policy names; this goes into the
//! values: a guardrail that reads `rc.type`, `rc.address`, `rc.change.actions` and
//! `rc.change.after.instance_type` of each `input.resource_changes` element never sees `before`,
//! `after_unknown` or the other attributes of `after`, which are most of a plan's text — so the
//! engine's tree of values is a tenth of the size, and faster to walk.
//!
//! **The analysis** follows each value that comes from the input through every rule: variables
//! (`some rc in input.resource_changes`, `rc := input.a[_]`, `input.a[i]`), rules (a set whose
//! elements are input values, a complete rule's value), comprehensions, and user functions
//! (arguments to parameters, return values, v0's output argument). A value is *observed whole*
//! by any use other than reading a field with a key written in the policy (also through
//! `object.get` with a path written in it), iterating, binding it to a variable, putting it into
//! a set, counting a collection, testing its kind (`is_object`…) or testing it as a statement
//! (defined and not `false`): a comparison, a builtin's argument (`sprintf`, `startswith`,
//! `json.marshal`, `walk`…), an object or array written in the policy, a rule's value that gives
//! findings, a key computed at run time is a use of the whole. Whatever the analysis cannot follow
//! makes it give up (no cutting below the top level): `data` as a whole or indexed at run time, a
//! package's rules read as one object, `with` on anything but the input (tests excepted), a rule
//! that reads a test.
//!
//! **The cut** keeps every value on a path the policies touch with its kind (an object stays an
//! object, an array keeps every element, a scalar reads back as the same value) and whatever is
//! observed whole verbatim; keys no path reaches are dropped. Elements put into a set are compared
//! with each other whole by the engine (to order the set and to tell them apart), so such an
//! element is cut only when it is an object with a string `address` that no other element of
//! that set's origin has, and it keeps, verbatim, every key up to `address` in the engine's order:
//! two elements compare the same way before and after the cut, because their comparison is
//! decided by the time it reaches `address`. Scalars and arrays are kept as they are, which
//! compare as before too; an object without a string address, or two sharing one (a deposed
//! object), mean nothing is cut below the top level. Elements of two origins in one set (changes
//! and drift entries), or input values and values the policy builds (an object written in it),
//! are kept whole. A complete rule's or a function's values are compared the same way (two
//! different values are a conflict), so they are treated as a set's elements.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;

use regorus::unstable::{AssignOp, Expr, Literal, Module, Query, Ref, Rule, RuleHead};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::check::{imports_of, ref_path};
use super::shape::Shape;

/// One step of a path under `input`: a key written in a policy, or any key or element.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Step {
    Key(String),
    Any,
}

type Path = Vec<Step>;

/// Paths deeper than this are taken whole (no policy reads that deep; it bounds the analysis).
const MAX_DEPTH: usize = 16;

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

    fn at(paths: impl IntoIterator<Item = Path>) -> Flow {
        Flow {
            at: paths.into_iter().collect(),
            ..Flow::default()
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

/// What the policies need of the input: a tree of the paths they touch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Need {
    /// Observed whole: kept verbatim.
    whole: bool,
    /// Put into a set: kept so that elements compare as before (see the module's notes).
    identity: bool,
    /// Keys written in the policies.
    keys: BTreeMap<String, Need>,
    /// Every key or element.
    any: Option<Box<Need>>,
}

impl Need {
    fn at(&mut self, path: &[Step]) -> &mut Need {
        let mut node = self;
        for step in path {
            node = match step {
                Step::Key(k) => node.keys.entry(k.clone()).or_default(),
                Step::Any => node.any.get_or_insert_with(Box::default),
            };
        }
        node
    }

    fn merge(&mut self, other: &Need) {
        self.whole |= other.whole;
        self.identity |= other.identity;
        for (k, child) in &other.keys {
            self.keys.entry(k.clone()).or_default().merge(child);
        }
        if let Some(any) = &other.any {
            self.any.get_or_insert_with(Box::default).merge(any);
        }
    }

    /// Folds what every key needs into each key written: `input.a[_].x` and `input.a.b.y` both
    /// apply to `input.a.b`.
    fn normalize(&mut self) {
        if let Some(any) = self.any.as_deref().cloned() {
            for child in self.keys.values_mut() {
                // Whether values are compared as a set's elements is the `any` node's to say,
                // for every key alike (one set of addresses per node, see `Cut`).
                let identity = child.identity;
                child.merge(&any);
                child.identity = identity;
            }
        }
        for child in self.keys.values_mut() {
            child.normalize();
        }
        if let Some(any) = self.any.as_deref_mut() {
            any.normalize();
        }
    }

    /// The top-level keys of the plan this keeps for a group of `shape` (`None`: every key).
    pub(super) fn plan_keys(&self, shape: Shape) -> Option<BTreeSet<String>> {
        let plan = match shape {
            Shape::Conftest | Shape::Opa => Some(self),
            Shape::Spacelift => self.keys.get("terraform"),
            Shape::Scalr => self.keys.get("tfplan"),
        };
        match plan {
            Some(plan) if plan.whole || plan.any.is_some() || self.whole || self.any.is_some() => {
                None
            }
            Some(plan) => Some(plan.keys.keys().cloned().collect()),
            None if self.whole || self.any.is_some() => None,
            None => Some(BTreeSet::new()),
        }
    }
}

/// What `modules` can observe of the input; `None` when the analysis cannot follow them.
pub(super) fn needs(modules: &[Ref<Module>]) -> Option<Need> {
    let mut analysis = Analysis::new(modules)?;
    // Every set only grows, so this ends; the bound is a guard, not a limit ever met.
    for _ in 0..64 {
        analysis.changed = false;
        for (m, module) in modules.iter().enumerate() {
            for (r, rule) in module.policy.iter().enumerate() {
                analysis.rule(m, r, rule);
            }
        }
        let outputs: Vec<Flow> = analysis
            .outputs
            .iter()
            .filter_map(|path| analysis.rules.get(path).cloned())
            .collect();
        for flow in &outputs {
            analysis.consume(flow);
        }
        if analysis.gave_up {
            return None;
        }
        if !analysis.changed {
            return Some(analysis.finish());
        }
    }
    None
}

/// A package's name as a path under `data`.
fn package_path(module: &Module) -> Option<Vec<String>> {
    let mut path = vec!["data".to_string()];
    path.extend(ref_path(&module.package.refr)?);
    Some(path)
}

fn head_of(rule: &Rule) -> &Ref<Expr> {
    match rule {
        Rule::Spec { head, .. } => match head {
            RuleHead::Compr { refr, .. }
            | RuleHead::Set { refr, .. }
            | RuleHead::Func { refr, .. } => refr,
        },
        Rule::Default { refr, .. } => refr,
    }
}

/// A reference chain as its head and its steps (`a.b[c]` → `a`, [`b`, `c`]).
enum Access<'e> {
    Key(String),
    Index(&'e Expr),
}

fn flatten(expr: &Expr) -> (&Expr, Vec<Access<'_>>) {
    match expr {
        Expr::RefDot { refr, field, .. } => {
            let (head, mut steps) = flatten(refr);
            steps.push(Access::Key(field.0.text().to_string()));
            (head, steps)
        }
        Expr::RefBrack { refr, index, .. } => {
            let (head, mut steps) = flatten(refr);
            match index.as_ref() {
                Expr::String { value, .. } | Expr::RawString { value, .. }
                    if value.as_string().is_ok() =>
                {
                    let key = value.as_string().map(|s| s.to_string()).unwrap_or_default();
                    steps.push(Access::Key(key));
                }
                other => steps.push(Access::Index(other)),
            }
            (head, steps)
        }
        other => (other, Vec::new()),
    }
}

fn var_name(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Var { span, .. } => Some(span.text()),
        _ => None,
    }
}

fn string_literal(expr: &Expr) -> Option<String> {
    match expr {
        Expr::String { value, .. } | Expr::RawString { value, .. } => {
            value.as_string().ok().map(|s| s.to_string())
        }
        _ => None,
    }
}

struct Analysis {
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
    gave_up: bool,
}

/// Where a rule is analysed: its module and index, its package.
#[derive(Clone, Copy)]
struct Place {
    module: usize,
    rule: usize,
    test: bool,
}

impl Analysis {
    fn new(modules: &[Ref<Module>]) -> Option<Analysis> {
        let mut analysis = Analysis {
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
                let head = head_of(rule);
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

    fn finish(self) -> Need {
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
        need
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
        let (root, steps) = flatten(head_of(rule));
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
                            match var_name(arg) {
                                Some(name) => self.grow_var(at, name, &flow),
                                // A pattern or a literal compares the argument.
                                None => {
                                    self.consume(&flow);
                                    let pattern = self.value(at, arg);
                                    self.consume(&pattern);
                                }
                            }
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
            match &stmt.literal {
                Literal::Expr { expr, .. } | Literal::NotExpr { expr, .. } => {
                    let flow = self.statement(at, expr);
                    // Tested for being defined and not false: kept with its kind, which is
                    // what touching does.
                    for path in flow.at.iter().chain(&flow.elements) {
                        self.touch(path);
                    }
                }
                Literal::SomeIn {
                    key,
                    value,
                    collection,
                    ..
                } => {
                    let collection = self.value(at, collection);
                    let items = self.iterate(&collection);
                    match var_name(value) {
                        Some(name) => self.grow_var(at, name, &items),
                        None => {
                            self.consume(&items);
                            let pattern = self.value(at, value);
                            self.consume(&pattern);
                        }
                    }
                    if let Some(key) = key {
                        // A set's keys are its elements; an array's or object's are indexes
                        // and keys, all kept under `Any`.
                        let mut keys = Flow::at(collection.elements.iter().cloned());
                        keys.foreign = collection.foreign;
                        match var_name(key) {
                            Some(name) => self.grow_var(at, name, &keys),
                            None => {
                                self.consume(&keys);
                                let pattern = self.value(at, key);
                                self.consume(&pattern);
                            }
                        }
                    }
                }
                Literal::SomeVars { .. } => {}
                Literal::Every {
                    key,
                    value,
                    domain,
                    query,
                    ..
                } => {
                    let domain = self.value(at, domain);
                    let items = self.iterate(&domain);
                    self.grow_var(at, value.text(), &items);
                    if let Some(key) = key {
                        let mut keys = Flow::at(domain.elements.iter().cloned());
                        keys.foreign = domain.foreign;
                        self.grow_var(at, key.text(), &keys);
                    }
                    self.query(at, query);
                }
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
                let keys = Flow::at(collection.elements.iter().cloned());
                self.consume(&keys);
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
                super::check::children(other, &mut |part| {
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
                    match var_name(p) {
                        Some(name) => self.grow_var(at, name, &returned),
                        None => {
                            self.consume(&returned);
                            let flow = self.value(at, p);
                            self.consume(&flow);
                        }
                    }
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
                        let mut elements = Flow::at(flow.elements.iter().cloned());
                        elements.foreign = flow.foreign;
                        self.grow_var(at, name, &elements);
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

/// How often each variable of `rule` appears where it may be bound: an index, a side of an
/// assignment, a `some … in`, an argument. More than once means a later one may compare.
fn binders(rule: &Rule) -> HashMap<String, usize> {
    fn expr(e: &Expr, counts: &mut HashMap<String, usize>) {
        match e {
            Expr::RefBrack { index, .. } => {
                if let Some(name) = var_name(index) {
                    *counts.entry(name.to_string()).or_default() += 1;
                }
            }
            Expr::AssignExpr { lhs, rhs, .. } => {
                for side in [lhs, rhs] {
                    if let Some(name) = var_name(side) {
                        *counts.entry(name.to_string()).or_default() += 1;
                    }
                }
            }
            _ => {}
        }
        super::check::children(e, &mut |c| expr(c, counts));
        match e {
            Expr::ArrayCompr { query, .. }
            | Expr::SetCompr { query, .. }
            | Expr::ObjectCompr { query, .. } => q(query, counts),
            _ => {}
        }
    }
    fn q(query: &Query, counts: &mut HashMap<String, usize>) {
        for stmt in &query.stmts {
            match &stmt.literal {
                Literal::Expr { expr: e, .. } | Literal::NotExpr { expr: e, .. } => expr(e, counts),
                Literal::SomeIn {
                    key,
                    value,
                    collection,
                    ..
                } => {
                    for e in key.iter().chain([value]) {
                        if let Some(name) = var_name(e) {
                            *counts.entry(name.to_string()).or_default() += 1;
                        }
                        expr(e, counts);
                    }
                    expr(collection, counts);
                }
                Literal::SomeVars { .. } => {}
                Literal::Every {
                    key,
                    value,
                    domain,
                    query,
                    ..
                } => {
                    for span in key.iter().chain([value]) {
                        *counts.entry(span.text().to_string()).or_default() += 1;
                    }
                    expr(domain, counts);
                    q(query, counts);
                }
            }
            for w in &stmt.with_mods {
                expr(&w.r#as, counts);
            }
        }
    }
    let mut counts = HashMap::new();
    match rule {
        Rule::Spec { head, bodies, .. } => {
            match head {
                RuleHead::Compr { refr, assign, .. } => {
                    expr(refr, &mut counts);
                    if let Some(a) = assign {
                        expr(&a.value, &mut counts);
                    }
                }
                RuleHead::Set { refr, key, .. } => {
                    expr(refr, &mut counts);
                    if let Some(k) = key {
                        expr(k, &mut counts);
                    }
                }
                RuleHead::Func { args, assign, .. } => {
                    for a in args {
                        if let Some(name) = var_name(a) {
                            *counts.entry(name.to_string()).or_default() += 1;
                        }
                        expr(a, &mut counts);
                    }
                    if let Some(a) = assign {
                        expr(&a.value, &mut counts);
                    }
                }
            }
            for body in bodies {
                if let Some(a) = &body.assign {
                    expr(&a.value, &mut counts);
                }
                q(&body.query, &mut counts);
            }
        }
        Rule::Default { args, value, .. } => {
            for a in args {
                expr(a, &mut counts);
            }
            expr(value, &mut counts);
        }
    }
    counts
}

/// `text` (an input's JSON) cut down to `need`; `None` when it cannot be cut soundly (not JSON,
/// a key the engine reads specially, elements of a set without distinct addresses, a number that
/// would not read back the same), and the caller keeps more.
pub(super) fn cut(text: &str, need: &Need) -> Option<String> {
    let cut = Cut {
        out: RefCell::new(String::with_capacity(text.len() / 8)),
        addresses: RefCell::new(HashMap::new()),
        failed: RefCell::new(false),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    Node { cut: &cut, need }.deserialize(&mut de).ok()?;
    de.end().ok()?;
    if *cut.failed.borrow() {
        return None;
    }
    Some(cut.out.into_inner())
}

/// The state of one [`cut`]: the text written so far, and each set node's addresses seen.
struct Cut {
    out: RefCell<String>,
    addresses: RefCell<HashMap<*const Need, HashSet<String>>>,
    failed: RefCell<bool>,
}

impl Cut {
    fn push(&self, s: &str) {
        self.out.borrow_mut().push_str(s);
    }

    fn string(&self, s: &str) {
        // Writing a string to a String cannot fail.
        let _ = serde_json::to_writer(StringWriter(&mut self.out.borrow_mut()), s);
    }

    fn fail<E: de::Error>(&self) -> E {
        *self.failed.borrow_mut() = true;
        E::custom("cannot be cut")
    }
}

struct StringWriter<'s>(&'s mut String);

impl std::io::Write for StringWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // serde_json writes UTF-8 only.
        self.0
            .push_str(std::str::from_utf8(buf).map_err(std::io::Error::other)?);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One value to write as `need` says.
struct Node<'c> {
    cut: &'c Cut,
    need: &'c Need,
}

/// One value that is an element of a set (`set`: its node, whose addresses must be distinct).
struct Element<'c> {
    cut: &'c Cut,
    need: &'c Need,
    set: *const Need,
}

/// A key as written, borrowed when it has no escapes.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.need.whole {
            let raw: &RawValue = de::Deserialize::deserialize(d)?;
            self.cut.push(raw.get());
            return Ok(());
        }
        d.deserialize_any(self)
    }
}

impl<'de> DeserializeSeed<'de> for Element<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.need.whole {
            let raw: &RawValue = de::Deserialize::deserialize(d)?;
            self.cut.push(raw.get());
            return Ok(());
        }
        d.deserialize_any(self)
    }
}

/// An element is cut down when it is an object with a string `address` (an object without one
/// refuses the cut); scalars and arrays are written as they are, which compare as before too.
impl<'de> Visitor<'de> for Element<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        Node::visit_bool(self.node(), v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        Node::visit_i64(self.node(), v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        Node::visit_u64(self.node(), v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        Node::visit_f64(self.node(), v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        Node::visit_str(self.node(), v)
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Node::visit_unit(self.node())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.cut.push("[");
        let mut first = true;
        while let Some(raw) = seq.next_element::<&'de RawValue>()? {
            if !first {
                self.cut.push(",");
            }
            first = false;
            self.cut.push(raw.get());
        }
        self.cut.push("]");
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        // One pass: keys up to `address` verbatim, the others as the need says; an element
        // without a string address, or with one seen before, refuses the whole cut.
        let mut address = None;
        self.cut.push("{");
        let mut first = true;
        while let Some(key) = map.next_key::<Key<'de>>()? {
            if key.0 == NUMBER_KEY {
                return Err(self.cut.fail());
            }
            let verbatim = key.0.as_ref() <= "address";
            let child = self
                .need
                .keys
                .get(key.0.as_ref())
                .or(self.need.any.as_deref());
            if !verbatim && child.is_none() {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            if !first {
                self.cut.push(",");
            }
            first = false;
            self.cut.string(&key.0);
            self.cut.push(":");
            match child {
                Some(child) if !verbatim => map.next_value_seed(Node {
                    cut: self.cut,
                    need: child,
                })?,
                _ => {
                    let raw: &'de RawValue = map.next_value()?;
                    self.cut.push(raw.get());
                    if key.0 == "address" {
                        // The engine keeps the last of repeated keys.
                        address = serde_json::from_str::<String>(raw.get()).ok();
                    }
                }
            }
        }
        self.cut.push("}");
        let Some(address) = address else {
            return Err(self.cut.fail());
        };
        if !self
            .cut
            .addresses
            .borrow_mut()
            .entry(self.set)
            .or_default()
            .insert(address)
        {
            return Err(self.cut.fail());
        }
        Ok(())
    }
}

impl<'c> Element<'c> {
    fn node(&self) -> Node<'c> {
        Node {
            cut: self.cut,
            need: self.need,
        }
    }
}

/// The key serde_json (and so the engine) reads as a number written out in full.
const NUMBER_KEY: &str = "$serde_json::private::Number";

impl<'de> Visitor<'de> for Node<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.cut.push(if v { "true" } else { "false" });
        Ok(())
    }

    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.cut.push(&v.to_string());
        Ok(())
    }

    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.cut.push(&v.to_string());
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        // Written as the shortest text that reads back as the same number through the same
        // parser the engine uses; otherwise the cut is refused.
        let text = serde_json::to_string(&v).map_err(|_| self.cut.fail::<E>())?;
        if serde_json::from_str::<f64>(&text).ok() != Some(v) {
            return Err(self.cut.fail());
        }
        self.cut.push(&text);
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.cut.string(v);
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.cut.push("null");
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let empty = Need::default();
        let element = self.need.any.as_deref().unwrap_or(&empty);
        self.cut.push("[");
        let mut first = true;
        loop {
            // A comma is written before reading the next element, and taken back at the end.
            let written = self.cut.out.borrow().len();
            if !first {
                self.cut.push(",");
            }
            let more = if element.identity {
                seq.next_element_seed(Element {
                    cut: self.cut,
                    need: element,
                    set: element as *const Need,
                })?
            } else {
                seq.next_element_seed(Node {
                    cut: self.cut,
                    need: element,
                })?
            };
            if more.is_none() {
                self.cut.out.borrow_mut().truncate(written);
                break;
            }
            first = false;
        }
        self.cut.push("]");
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.cut.push("{");
        let mut first = true;
        while let Some(key) = map.next_key::<Key<'de>>()? {
            if key.0 == NUMBER_KEY {
                return Err(self.cut.fail());
            }
            let any = self.need.any.as_deref();
            let child = self.need.keys.get(key.0.as_ref()).or(any);
            let Some(child) = child else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if !first {
                self.cut.push(",");
            }
            first = false;
            self.cut.string(&key.0);
            self.cut.push(":");
            match any {
                Some(any) if any.identity => map.next_value_seed(Element {
                    cut: self.cut,
                    need: child,
                    set: any as *const Need,
                })?,
                _ => map.next_value_seed(Node {
                    cut: self.cut,
                    need: child,
                })?,
            }
        }
        self.cut.push("}");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn need(policies: &[&str]) -> Option<Need> {
        let mut engine = regorus::Engine::new();
        for (i, text) in policies.iter().enumerate() {
            engine
                .add_policy(format!("p{i}.rego"), text.to_string())
                .expect("parses");
        }
        needs(engine.get_modules())
    }

    const GUARDRAIL: &str = r#"package main
import rego.v1
managed contains rc if {
	some rc in input.resource_changes
	rc.mode == "managed"
}
deny contains sprintf("%s: %s", [rc.address, rc.change.after.instance_type]) if {
	some rc in managed
	"create" in rc.change.actions
}
"#;

    #[test]
    fn a_change_keeps_what_is_read_and_what_orders_it() {
        let need = need(&[GUARDRAIL]).expect("followed");
        let plan = r#"{"format_version":"1.2","resource_changes":[
            {"action_reason":"x","address":"a.b","mode":"managed","type":"a","name":"b",
             "change":{"actions":["create"],"before":null,"after":{"instance_type":"t3.micro",
             "tags":{"k":"v"},"size":1.5},"after_unknown":{"id":true}}},
            {"address":"a.c","mode":"data","type":"a","change":{"actions":["read"],"after":null}}
        ],"prior_state":{"values":{}}}"#;
        assert_eq!(
            cut(plan, &need).expect("cut"),
            r#"{"resource_changes":[{"action_reason":"x","address":"a.b","mode":"managed","change":{"actions":["create"],"after":{"instance_type":"t3.micro"}}},{"address":"a.c","mode":"data","change":{"actions":["read"],"after":null}}]}"#
        );
    }

    #[test]
    fn elements_of_a_set_sharing_an_address_are_not_cut() {
        let need = need(&[GUARDRAIL]).expect("followed");
        let deposed = r#"{"resource_changes":[
            {"address":"a.b","deposed":"01","mode":"managed","change":{"actions":["delete"]}},
            {"address":"a.b","mode":"managed","change":{"actions":["create"]}}]}"#;
        assert_eq!(cut(deposed, &need), None);
        // Scalars and arrays are kept as they are; an object without an address refuses.
        let odd = r#"{"resource_changes":[1,[{"a":1}],{"address":"a","y":2}]}"#;
        assert_eq!(
            cut(odd, &need).expect("cut"),
            r#"{"resource_changes":[1,[{"a":1}],{"address":"a"}]}"#
        );
        let no_address = r#"{"resource_changes":[{"mode":"managed","x":[1]}]}"#;
        assert_eq!(cut(no_address, &need), None);
    }

    #[test]
    fn what_cannot_be_followed_is_not_cut() {
        // A package's rules read as one object, `data` indexed at run time, `with` on data.
        for policy in [
            "package main\nimport rego.v1\nimport data.lib\nwarn contains x if { some x in lib }\n",
            "package main\nimport rego.v1\nwarn contains k if { some k in [\"a\"]; data[k] }\n",
            "package main\nimport rego.v1\nx := 1\nwarn contains \"w\" if { x == 2 with data.main.x as 2 }\n",
        ] {
            let lib = "package lib\nimport rego.v1\nchanges contains rc if some rc in input.resource_changes\n";
            assert_eq!(need(&[policy, lib]), None, "{policy}");
        }
        // Observed whole: a builtin's argument, a comparison, a key computed at run time.
        for (policy, whole) in [
            ("json.marshal(rc) != \"\"", true),
            ("rc == {}", true),
            ("rc[k] == 1", true),
            ("rc.type == \"x\"", false),
        ] {
            let text = format!(
                "package main\nimport rego.v1\nwarn contains \"w\" if {{ some rc in input.resource_changes; some k in [\"type\"]; {policy} }}\n"
            );
            let need = need(&[&text]).expect("followed");
            let element = need.keys["resource_changes"]
                .any
                .as_deref()
                .expect("elements");
            let kept_whole = element.whole || element.any.as_deref().is_some_and(|a| a.whole);
            assert_eq!(kept_whole, whole, "{policy}");
        }
    }

    #[test]
    fn numbers_and_strings_read_back_the_same() {
        let need =
            need(&["package main\nimport rego.v1\nwarn contains x if { some x in input.a }\n"])
                .expect("followed");
        let text = r#"{"a":[1.5,-0,1e300,12345678901234567890,"\u00e9\"",0.1],"b":1}"#;
        let out = cut(text, &need).expect("cut");
        let before: serde_json::Value = serde_json::from_str(text).unwrap();
        let after: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(before["a"], after["a"]);
        assert!(after.get("b").is_none());
    }
}
