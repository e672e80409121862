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
//!
//! The parts: [`syntax`] reads what the analysis needs of the syntax tree, [`analysis`] follows
//! the values to a [`Need`], [`cut`](mod@cut) writes the input's text as a [`Need`] says.

mod analysis;
mod cut;
mod syntax;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use regorus::unstable::{Module, Ref};

use super::shape::Shape;

use analysis::ValueFlow;
#[cfg(test)]
pub(crate) use cut::NUMBER_KEY;
pub(crate) use cut::cut;

/// One step of a path under `input`: a key written in a policy, or any key or element.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Step {
    Key(String),
    Any,
}

type Path = Vec<Step>;

/// Paths deeper than this are taken whole (no policy reads that deep; it bounds the analysis).
const MAX_DEPTH: usize = 16;

/// A set whose elements come from the input: a node of a [`Need`], numbered once the tree is
/// final (a stable key for the cut's addresses, where a node's address in memory was one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct SetId(usize);

/// What the policies need of the input: a tree of the paths they touch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Need {
    /// Observed whole: kept verbatim.
    whole: bool,
    /// Put into a set: kept so that elements compare as before (see the module's notes).
    identity: bool,
    /// When `identity`, the set this node's values are elements of, for the cut to tell its
    /// addresses from other sets' (given by [`Need::number_sets`]; one set per node).
    set: Option<SetId>,
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

    /// Gives every node that is a set's elements its own [`SetId`], once the tree is final.
    fn number_sets(&mut self, next: &mut usize) {
        if self.identity {
            self.set = Some(SetId(*next));
            *next += 1;
        }
        for child in self.keys.values_mut() {
            child.number_sets(next);
        }
        if let Some(any) = self.any.as_deref_mut() {
            any.number_sets(next);
        }
    }

    /// The top-level keys of the plan this keeps for a group of `shape` (`None`: every key).
    pub(crate) fn plan_keys(&self, shape: Shape) -> Option<BTreeSet<String>> {
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
pub(crate) fn needs(modules: &[Ref<Module>]) -> Option<Need> {
    let mut analysis = ValueFlow::new(modules)?;
    // Every set only grows, so this ends; the bound is a guard, not a limit ever met.
    for _ in 0..64 {
        let changed = analysis.round(modules);
        if analysis.gave_up {
            return None;
        }
        if !changed {
            return Some(analysis.finish());
        }
    }
    None
}
