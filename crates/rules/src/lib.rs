//! Guardrail rules: a small rule language in TOML, a built-in pack with the team's policies, and
//! one [`evaluate`] that the browser UI and the CLI both call, so they give the same verdict.
//!
//! Pipeline: rule file text → [`RuleSet::parse`] (every problem as a [`RuleError`] with line and
//! column) → [`evaluate`] against an [`Input`] built from the plan → [`Evaluation`] (findings and a
//! [`Verdict`]). A rule file that does not parse yields no `RuleSet`, and `evaluate` takes only a
//! `RuleSet`, so a broken file can never be mistaken for a passing one.
//!
//! Invariants: nothing here touches the filesystem, threads or the clock (it runs in WebAssembly);
//! a value marked sensitive never appears in a finding's message.
//!
//! # Rule file format
//!
//! ```toml
//! include_builtin = true     # optional, default true: also run the built-in pack
//!
//! [mask]                     # optional: more attribute names whose values are secrets
//! patterns = ["*_pin", "license"]   # case-insensitive globs on the whole key
//! builtin = true             # optional, default true: keep the built-in patterns (password, …)
//!
//! [[plans]]                  # optional, any number: labels for plans opened together, by name
//! match = "prod/*"           # a plan's name in the set; `*` matches anything, `/` included
//! labels = { environment = "prod" }   # a later match wins; the user's labels and the plan's
//!                                     # own variables of the same name win over these
//!
//! [[rule]]
//! id = "large-instance-outside-prod"   # required, unique, letters, digits, _ - .
//! severity = "deny"                    # required: deny | warn | info
//! message = "Instance {address} of type {after.instance_type} not allowed outside prod"  # required
//! description = "optional longer text"
//!
//! # Resource selectors, all optional, all must hold:
//! actions = ["create", "update"]
//! mode = "managed"                     # managed | data
//! type = "aws_instance"                # glob, or a list of globs (any may match)
//! address = "module.prod.*"            # glob or list
//! module = "module.network*"           # glob or list; "" is the root module only
//! provider = "hashicorp/aws"           # glob or list (short form, without the registry host)
//! drift = "structural"                 # any | minor | structural | not-relevant | none
//!
//! [[rule.attribute]]                   # conditions on values, all must hold
//! path = "after.instance_type"
//! regex = '\.([4-9]|[1-9][0-9]+)xlarge$'
//!
//! [[rule.variable]]                    # conditions on plan variables and labels, all must hold
//! name = "environment"
//! not_in = ["prod", "production"]
//!
//! # count = { gt = 5 }                 # makes the rule an aggregate (see below)
//! ```
//!
//! Unknown keys anywhere are errors, so a misspelt key never silently weakens a rule.
//!
//! ## Actions
//!
//! `actions` lists any of `create`, `update`, `delete`, `replace`, `read`, `no-op`, `forget`,
//! `import`, `move`; a resource matches when its planned action is one of them:
//!
//! | name | matches |
//! |---|---|
//! | `create` | creates and every replace (each creates a new object) |
//! | `update` | in-place updates |
//! | `delete` | deletes and both replace orders (delete-then-create, create-then-delete) |
//! | `replace` | every replace, including create-then-forget |
//! | `read` | data source reads |
//! | `no-op` | no change (also resources that only drifted) |
//! | `forget` | forgets and create-then-forget replaces |
//! | `import` | resources being imported, whatever their action |
//! | `move` | resources moved to a new address, whatever their action |
//!
//! A create-then-forget replace leaves the old object alone, so it is not a `delete`.
//!
//! ## Globs
//!
//! `type`, `address`, `module` and `provider` take globs: `*` is any run of characters, `?` one
//! character, and everything else — `[`, `]`, quotes, dots — is literal, so instance addresses need
//! no escaping: `address = 'module.sg["a"].*'`. A glob must match the whole text.
//!
//! ## Conditions
//!
//! A `[[rule.attribute]]` has a `path` and exactly one operator. The path starts with `before.` or
//! `after.` and continues with attribute names separated by dots, list indexes `[0]` and quoted
//! keys `["kubernetes.io/role"]` for keys with dots or other odd characters:
//! `after.node[0].size`, `after.tags["kubernetes.io/role"]`.
//!
//! A `[[rule.variable]]` has a `name` and exactly one operator. It reads the plan's root
//! variable, unless the user set a label of that name (e.g. `environment=prod`), which wins.
//! Labels are strings. Variable conditions are about the plan as a whole: when one fails, the rule
//! produces nothing.
//!
//! | operator | operand | holds when the value… |
//! |---|---|---|
//! | `equals` | any value | equals it (numbers by value: `3` = `3.0`) |
//! | `not_equals` | any value | does not equal it |
//! | `in` | array | equals one of its elements |
//! | `not_in` | array | equals none of them |
//! | `lt` `gt` `le` `ge` | number | is a number `<` `>` `≤` `≥` it |
//! | `regex` | string | is a string the regex matches somewhere (anchor with `^…$`) |
//! | `exists` | bool | is present (`true`) or missing (`false`) |
//! | `changed` | bool | (attributes only) differs between before and after (`true`), or not |
//!
//! `changed` takes its path without `before.`/`after.` (`path = "tags.Name"`) and compares the
//! two sides itself; a value present on one side only has changed.
//!
//! Values compare as JSON: a TOML string matches a JSON string, numbers compare by value, booleans
//! match booleans; nothing is converted (the string `"3"` is not the number `3`). Regexes use the
//! `regex-lite` syntax and match strings only.
//!
//! **Missing values.** A value is missing when its key is absent, when it is `null`, or when it is
//! known only after apply (Terraform leaves it out of `after`). On a missing value `equals`, `in`,
//! `lt`, `gt`, `le`, `ge` and `regex` are false; `not_equals` and `not_in` are true; `exists = false`
//! is true. So "environment not in prod" holds when the environment is not known: a guardrail
//! should fire when it cannot tell.
//!
//! **Sensitive values.** Conditions read values marked sensitive like any other, so a rule can
//! check a secret's shape; messages never print them (see below).
//!
//! ## Aggregates
//!
//! `count = { gt = 5 }` (one of `gt`, `ge`, `lt`, `le`, `equals`, with a whole number) turns the
//! rule into an aggregate: it counts the resources that pass its selectors and attribute
//! conditions, and gives one plan-level finding when the count satisfies the comparison. Its
//! message may use `{count}` and `{var.NAME}` only.
//!
//! ## Messages
//!
//! Placeholders in `message`, checked when the file is parsed:
//!
//! | placeholder | prints |
//! |---|---|
//! | `{address}` `{type}` `{name}` `{provider}` | the resource's |
//! | `{module}` | its module address, or `(root)` |
//! | `{action}` | `create`, `update`, `delete`, `replace`, `read`, `no-op` or `forget` |
//! | `{drift}` | `minor`, `structural`, `not-relevant`, or `(none)` |
//! | `{drift.attributes}` | the drifted attributes, comma-separated; for an object deleted outside Terraform, `deleted outside Terraform: TYPE, id ID` (or `deleted outside Terraform`); for an input without values (a plan log), `attributes not in the input`; else `(none)` |
//! | `{count}` | aggregates only: the number of matching resources |
//! | `{var.NAME}` | the label or variable `NAME` |
//! | `{before.PATH}` `{after.PATH}` | a value of the resource |
//!
//! Strings print without quotes, lists and objects as compact JSON. A missing value prints
//! `(unknown)`. A value marked sensitive — on either side, at that path, above it or anywhere
//! inside it — prints `(sensitive)`. Write `{{` and `}}` for literal braces.
//!
//! ## Results
//!
//! Findings come plan-level first (aggregates), then deny, warn, info; within those in rule order
//! (built-in rules first), then in resource order, so a rule's findings are adjacent
//! ([`Evaluation::groups`]). The verdict is [`Verdict::of`] the plan's planning status and the
//! findings: `planning failed` when Terraform's planning failed (whatever the findings), else
//! `needs approval` if any finding denies, else `plan incomplete` when the plan is incomplete,
//! else `warn` if any warns, else `pass` (info findings do not change it). Every count shown of an
//! evaluation comes from [`Evaluation::tally`].
//!
//! ## Errors
//!
//! Every problem the parser can find is reported at once, each with its line and column and the
//! rule's id: TOML syntax errors (one error, the parse stops there), unknown keys and operators,
//! unknown `severity`/`actions`/`mode`/`drift` values, a missing `id`/`severity`/`message`/`path`/
//! `name`, zero or two operators in one condition, operands of the wrong type, bad regexes, bad
//! paths, unknown placeholders, duplicate ids and ids that clash with the built-in pack.
//!
//! ## Built-in pack
//!
//! [`BUILTIN_TOML`]: `destroy-needs-approval`, `too-many-destroys`, `security-group-changed`,
//! `large-instance-outside-prod`, `aks-node-pool-min-count`, `structural-drift`, `minor-drift`.
//!
//! # Where
//!
//! `rule.rs` is one compiled rule and a rule-file error; `parse.rs` the TOML format (spanned, every
//! error with line:column and rule id); `condition.rs` and `path.rs` conditions and paths;
//! `template.rs` message templates; `builtin.toml` the built-in pack; `input.rs` the input (close
//! to `resource_changes`), which `document.rs` builds with resource i = row i; `eval.rs`
//! `evaluate`, which `session::Analysis::evaluate` calls for the UI and the CLI. The result types
//! are in `planlens_model::findings`: `Verdict::of(planning, findings)` decides every verdict (a
//! state: not a plan, no verdict > planning failed > needs approval > plan incomplete > warn >
//! pass), `Evaluation::tally` gives every count (badge, heading, verdict lines) and `groups` the
//! per-rule groups. On an input with only some values (a text plan) or none (a plan log), a rule
//! that reads a value the input may not show gives one plan-level "Not checked on N resources"
//! finding (warn at most), never a silent pass. Messages never print sensitive values, nor
//! sensitive variables, which are left out of the input.

mod condition;
mod document;
mod eval;
mod input;
mod parse;
mod path;
mod rule;
mod template;

pub use eval::{REDACTED, evaluate, evaluate_redacted};
pub use input::{DriftFacts, Input, Resource};
pub use planlens_model::findings::{
    Evaluation, Finding, FindingGroup, RuleSeverity, Tally, Verdict,
};
pub use rule::{FAILING_CHECKS, Rule, RuleError};

use parse::{Errors, parse_file};
use planlens_model::mask::Mask;
use std::collections::BTreeMap;

/// The labels rules are evaluated with when a user or a link names only an `environment` (the
/// page's label field, a link's `env=`): none when it is blank, else that one, trimmed.
pub fn environment_labels(environment: &str) -> std::collections::BTreeMap<String, String> {
    let e = environment.trim();
    if e.is_empty() {
        std::collections::BTreeMap::new()
    } else {
        std::collections::BTreeMap::from([("environment".to_string(), e.to_string())])
    }
}

/// True when `text` fits `pattern`, where `*` stands for any run of characters (`/` included)
/// and the rest must be equal.
fn wildcard(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, rest) = parts.split_first().unwrap_or((&"", &[]));
    let Some(mut left) = text.strip_prefix(first) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return left.is_empty();
    };
    for part in middle {
        match left.find(part) {
            Some(at) => left = &left[at + part.len()..],
            None => return false,
        }
    }
    left.len() >= last.len() && left.ends_with(last)
}

/// The built-in pack's rule file, as shipped (shown in the UI, a starting point for teams).
pub const BUILTIN_TOML: &str = include_str!("builtin.toml");

/// A parsed, valid set of rules, ready to evaluate. The only ways to get one are
/// [`RuleSet::parse`] (which fails on any error) and [`RuleSet::builtin`].
#[derive(Debug, Clone)]
pub struct RuleSet {
    rules: Vec<Rule>,
    includes_builtin: bool,
    /// The file's `[mask]` table: which attribute names hold secrets.
    mask: Mask,
    /// The file's `[[plans]]`: (plan name pattern, labels).
    plan_labels: Vec<(String, BTreeMap<String, String>)>,
}

impl RuleSet {
    /// The built-in pack alone: what runs when the user has no rule file.
    pub fn builtin() -> RuleSet {
        match parse_file(BUILTIN_TOML, None) {
            Ok(file) => RuleSet {
                rules: file.rules,
                includes_builtin: true,
                mask: Mask::default(),
                plan_labels: Vec::new(),
            },
            // The pack is part of the source and a unit test parses it.
            Err(errors) => panic!("builtin.toml does not parse: {:?}", errors.into_sorted()),
        }
    }

    /// Parses a user's rule file. Unless it sets `include_builtin = false`, the result runs the
    /// built-in pack first, then the file's rules. On failure, every problem found, in file order.
    pub fn parse(text: &str) -> Result<RuleSet, Vec<RuleError>> {
        let builtin = RuleSet::builtin();
        let file = parse_file(text, Some(&builtin.rules)).map_err(Errors::into_sorted)?;
        let mask = Mask::new(file.mask_builtin, &file.mask_patterns);
        if file.include_builtin {
            let mut rules = builtin.rules;
            rules.extend(file.rules);
            Ok(RuleSet {
                rules,
                includes_builtin: true,
                mask,
                plan_labels: file.plan_labels,
            })
        } else {
            Ok(RuleSet {
                rules: file.rules,
                includes_builtin: false,
                mask,
                plan_labels: file.plan_labels,
            })
        }
    }

    /// The labels for the plan named `plan` (in a set of plans): `labels` given by the user,
    /// plus those of every `[[plans]]` table whose `match` fits its name (a later table wins),
    /// except where the user's `labels` or the plan's own `variables` already name the key —
    /// those still win, as for a plan opened alone.
    pub fn labels_for(
        &self,
        plan: &str,
        labels: &BTreeMap<String, String>,
        variables: &[&str],
    ) -> BTreeMap<String, String> {
        let mut out = labels.clone();
        let mut mapped = BTreeMap::new();
        for (pattern, set) in &self.plan_labels {
            if wildcard(pattern, plan) {
                mapped.extend(set.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        for (k, v) in mapped {
            if !out.contains_key(&k) && !variables.contains(&k.as_str()) {
                out.insert(k, v);
            }
        }
        out
    }

    /// The secret-name mask the file asks for (`[mask]`): the built-in patterns unless it sets
    /// `builtin = false`, plus its `patterns`. Plans are loaded with it (`load::load_plan_with`).
    pub fn mask(&self) -> &Mask {
        &self.mask
    }

    /// The rules in evaluation order, for the UI to list.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The rule with this id.
    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// True when the built-in pack is part of the set.
    pub fn includes_builtin(&self) -> bool {
        self.includes_builtin
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_pack_parses_with_the_briefs_policies() {
        let set = RuleSet::builtin();
        let ids: Vec<&str> = set.rules().iter().map(Rule::id).collect();
        assert_eq!(
            ids,
            [
                "destroy-needs-approval",
                "too-many-destroys",
                "security-group-changed",
                "large-instance-outside-prod",
                "aks-node-pool-min-count",
                "structural-drift",
                "minor-drift",
            ]
        );
        assert!(
            set.rules()
                .iter()
                .all(|r| r.is_builtin() && r.description().is_some())
        );
        assert!(
            set.rule("too-many-destroys")
                .is_some_and(Rule::is_aggregate)
        );
    }

    #[test]
    fn the_failing_checks_warning_is_the_packs_own_id() {
        let text = "[[rule]]\nid = \"failing-checks\"\nseverity = \"info\"\nmessage = \"m\"\n";
        let errors = RuleSet::parse(text).expect_err("the id is the pack's");
        assert!(
            errors[0].message.contains("taken by the built-in pack"),
            "{errors:?}"
        );
        assert!(RuleSet::parse(&format!("include_builtin = false\n{text}")).is_ok());
    }

    #[test]
    fn user_rules_follow_the_builtin_pack() {
        let text = "[[rule]]\nid = \"mine\"\nseverity = \"info\"\nmessage = \"m\"\n";
        let set = RuleSet::parse(text).unwrap();
        assert_eq!(set.rules().len(), 8);
        assert_eq!(set.rules()[7].id(), "mine");
        assert!(!set.rules()[7].is_builtin());
        let alone = RuleSet::parse(&format!("include_builtin = false\n{text}")).unwrap();
        assert_eq!(alone.rules().len(), 1);
        assert!(!alone.includes_builtin());
    }
}
