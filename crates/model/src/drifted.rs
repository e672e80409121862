//! What a drift analysis finds: drifted resources, their grade and what the plan does about
//! them. Plain data: `drift` makes it from a plan, a redacted link carries it.
//!
//! No logic that reads a plan: `PlanEffect::of` stays in `drift`; here are only its words.

use serde::{Deserialize, Serialize};

use super::Action;

/// How a drifted resource must be remediated, per the team's policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// Only tags or labels (`tags`, `tags_all`, `labels`) changed: auto-remediate.
    Minor,
    /// Any other attribute changed, or the object was deleted: alert, a human decides.
    Structural,
    /// Every drifted attribute is outside the plan's `relevant_attributes`: the plan does not
    /// depend on it (Terraform does not show it). Listed last, never a reason to deny.
    NotRelevant,
}

impl Severity {
    /// Stable name for text output, JSON, CSS and rules (`drift = "not-relevant"`).
    pub fn key(self) -> &'static str {
        match self {
            Severity::Minor => "minor",
            Severity::Structural => "structural",
            Severity::NotRelevant => "not-relevant",
        }
    }

    /// The grade as the drift view writes it.
    pub fn label(self) -> &'static str {
        match self {
            Severity::Minor => "minor",
            Severity::Structural => "structural",
            Severity::NotRelevant => "not relevant",
        }
    }
}

/// What the plan does about one drifted attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttributeEffect {
    /// The planned value is the value from before the drift: applying undoes it.
    Reverted,
    /// The planned value is the drifted one: applying keeps it.
    Kept,
    /// The plan sets a third value.
    Changed,
    /// The planned value is known only after apply, or the plan does not update the object.
    Unknown,
}

impl AttributeEffect {
    /// The attribute table's words for it ("" when not known).
    pub fn label(self) -> &'static str {
        match self {
            AttributeEffect::Reverted => "reverted by the plan",
            AttributeEffect::Kept => "kept by the plan",
            AttributeEffect::Changed => "set to another value by the plan",
            AttributeEffect::Unknown => "",
        }
    }
}

/// One drifted attribute path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftedAttribute {
    /// The path as Terraform writes it: `tags.Owner`, `ingress[0].cidr_blocks`,
    /// `tags["kubernetes.io/role"]`.
    pub path: String,
    /// Its first step (the resource's attribute).
    pub top: String,
    /// True when the path is inside tags or labels (`tags`, `tags_all` or `labels` at any depth,
    /// so the tags of a nested block such as `root_block_device[0].tags` count too).
    pub is_tag: bool,
    /// True when `relevant_attributes` says this attribute matters to the plan.
    pub relevant: bool,
    /// What the plan does about it.
    pub effect: AttributeEffect,
    /// True when driftctl marks the path as computed: possibly a false positive.
    pub computed: bool,
}

/// What the plan does about a drifted resource as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlanEffect {
    /// Every drifted attribute goes back to its value from before the drift.
    Reverts,
    /// The plan keeps the drifted values (configuration matches them, or `ignore_changes`).
    Keeps,
    /// The plan sets every drifted attribute to a third value.
    Changes,
    /// Some drifted attributes go back, others do not.
    Partly,
    /// None goes back: the plan keeps some drifted values and sets others to a third value.
    KeepsPart,
    /// The plan replaces the object.
    Replaces,
    /// The plan destroys (or forgets) the object.
    Destroys,
    /// The object was deleted outside Terraform and the plan creates it again.
    Recreates,
    /// The plan has no change for it (refresh-only plans and drift reports), or a no-op for an
    /// object deleted outside Terraform: "plan does not change it" (not "not in plan": a no-op
    /// row may be in the plan).
    NotInPlan,
    /// The input has no values to compare (plan logs), or the planned values are unknown.
    Unknown,
    /// The input is a drift report with no plan (driftctl): what a plan would do is not said.
    NoPlan,
}

impl PlanEffect {
    /// Stable lowercase name for JSON, CSS and tests.
    pub fn key(self) -> &'static str {
        match self {
            PlanEffect::Reverts => "reverts",
            PlanEffect::Keeps => "keeps",
            PlanEffect::Changes => "changes",
            PlanEffect::Partly => "partly",
            PlanEffect::KeepsPart => "keeps-part",
            PlanEffect::Replaces => "replaces",
            PlanEffect::Destroys => "destroys",
            PlanEffect::Recreates => "recreates",
            PlanEffect::NotInPlan => "not-in-plan",
            PlanEffect::Unknown => "unknown",
            PlanEffect::NoPlan => "no-plan",
        }
    }

    /// A sentence for the drift view's header, the CLI and the PR comment.
    pub fn sentence(self) -> &'static str {
        match self {
            PlanEffect::Reverts => "The plan reverts this drift.",
            PlanEffect::Keeps => "The plan keeps the drifted values.",
            PlanEffect::Changes => "The plan sets the drifted attributes to other values.",
            PlanEffect::Partly => "The plan reverts part of this drift.",
            PlanEffect::KeepsPart => {
                "The plan keeps part of this drift and sets the rest to other values."
            }
            PlanEffect::Replaces => "The plan replaces this resource.",
            PlanEffect::Destroys => "The plan destroys this resource.",
            PlanEffect::Recreates => "The plan creates it again.",
            PlanEffect::NotInPlan => "The plan does not change this resource.",
            PlanEffect::Unknown => "Whether the plan reverts this drift is not known.",
            PlanEffect::NoPlan => "A drift report has no plan: what a plan would do is not known.",
        }
    }

    /// A few words for the drift list.
    pub fn label(self) -> &'static str {
        match self {
            PlanEffect::Reverts => "plan reverts it",
            PlanEffect::Keeps => "plan keeps it",
            PlanEffect::Changes => "plan sets other values",
            PlanEffect::Partly => "plan reverts part",
            PlanEffect::KeepsPart => "plan keeps part",
            PlanEffect::Replaces => "plan replaces it",
            PlanEffect::Destroys => "plan destroys it",
            PlanEffect::Recreates => "plan recreates it",
            PlanEffect::NotInPlan => "plan does not change it",
            PlanEffect::Unknown => "effect unknown",
            PlanEffect::NoPlan => "no plan",
        }
    }
}

/// What an object deleted outside Terraform was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeletedObject {
    /// Its resource type, e.g. `aws_s3_bucket`.
    pub resource_type: String,
    /// Its `id` before the deletion, when the input has it and it is not sensitive. An attribute
    /// value: never written into a redacted link.
    #[serde(skip)]
    pub id: Option<String>,
}

impl DeletedObject {
    /// `deleted outside Terraform: aws_s3_bucket, id acme-logs`; the id only when `with_id`
    /// (redacted findings carry no value).
    pub fn sentence(&self, with_id: bool) -> String {
        match self.id.as_deref().filter(|_| with_id) {
            Some(id) => format!("deleted outside Terraform: {}, id {id}", self.resource_type),
            None => format!("deleted outside Terraform: {}", self.resource_type),
        }
    }
}

/// One resource that changed outside Terraform.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriftedResource {
    /// Index into the plan's `resource_drift`.
    pub entry: u32,
    /// Its address (for Terraform 1.0.0's address-less entries, the resource address).
    pub address: String,
    /// The document rows it concerns (its planned change, or its own drift-only row).
    pub rows: Vec<u32>,
    /// What happened outside Terraform: `Update`, or `Delete` for an object deleted outside.
    #[serde(with = "crate::action::by_key")]
    pub action: Action,
    /// Minor (tags only), structural, or not relevant to the plan.
    pub severity: Severity,
    /// Drifted attribute paths, at most `drift::MAX_PATHS`; empty for deletes and for inputs without
    /// values. Changes between `null` and an empty value are not among them.
    pub attributes: Vec<DriftedAttribute>,
    /// Paths left out beyond `drift::MAX_PATHS`.
    pub more_attributes: usize,
    /// The attributes' paths alone (what rules and JSON output see).
    pub paths: Vec<String>,
    /// False when the input carries no values (plan logs): the attributes are not known.
    pub values_known: bool,
    /// True when the plan says which attributes are relevant (`relevant_attributes`), so an
    /// attribute whose `relevant` is false is not relevant to this plan.
    #[serde(default)]
    pub relevance_known: bool,
    /// For an object deleted outside Terraform, what it was.
    #[serde(default)]
    pub deleted: Option<DeletedObject>,
    /// What the plan does about it.
    pub effect: PlanEffect,
}

impl DriftedResource {
    /// The attribute paths as plain strings (for rules and JSON output).
    pub fn attribute_paths(&self) -> Vec<String> {
        self.paths.clone()
    }

    /// What changed, in a line: the drifted paths (and how many more), what a deleted object was,
    /// or that a plan log does not say.
    pub fn what(&self) -> String {
        if let Some(deleted) = &self.deleted {
            return deleted.sentence(true);
        }
        if self.action == Action::Delete {
            return "deleted outside Terraform".to_string();
        }
        if !self.values_known {
            return "attributes not in the log".to_string();
        }
        let mut paths = self.paths.clone();
        if self.more_attributes > 0 {
            paths.push(format!("{} more", self.more_attributes));
        }
        paths.join(", ")
    }
}

impl Severity {
    /// The grade of a drifted resource. `relevance_known`: the plan has `relevant_attributes`, so
    /// an attribute outside them does not count.
    pub fn of(
        action: Action,
        values_known: bool,
        relevance_known: bool,
        attributes: &[DriftedAttribute],
        more_attributes: usize,
    ) -> Severity {
        if action == Action::Delete || !values_known || more_attributes > 0 {
            return Severity::Structural;
        }
        // Tag-only needs a changed tag: an entry whose values differ where no attribute path
        // shows it is not called minor.
        if attributes.is_empty() && !relevance_known {
            return Severity::Structural;
        }
        let mut counted = attributes.iter().filter(|a| a.relevant || !relevance_known);
        match counted.next() {
            None if relevance_known => Severity::NotRelevant,
            Some(first) if !first.is_tag || counted.any(|a| !a.is_tag) => Severity::Structural,
            _ => Severity::Minor,
        }
    }
}

impl PlanEffect {
    /// What the plan does about a drifted resource: from its planned action (`None`: the plan has
    /// no change for it), what happened outside Terraform, and, for an update or a no-op, what it
    /// does about each drifted attribute. The one place the drift header, the list and the
    /// attribute table take their words from, so they cannot disagree.
    pub fn of(
        planned: Option<Action>,
        drift: Action,
        values_known: bool,
        attributes: impl IntoIterator<Item = AttributeEffect>,
    ) -> PlanEffect {
        match planned {
            None => return PlanEffect::NotInPlan,
            Some(Action::Replace(_)) => return PlanEffect::Replaces,
            Some(Action::Delete | Action::Forget) => return PlanEffect::Destroys,
            Some(Action::Create) if drift == Action::Delete => return PlanEffect::Recreates,
            // Nothing of a deleted object is kept or reverted: the plan just leaves it be.
            Some(Action::NoOp) if drift == Action::Delete => return PlanEffect::NotInPlan,
            // The configuration matches what refresh found (every attribute is kept), values or
            // not.
            Some(Action::NoOp) => return PlanEffect::Keeps,
            Some(_) if !values_known => return PlanEffect::Unknown,
            Some(_) => {}
        }
        let [mut reverted, mut kept, mut changed] = [0usize; 3];
        for effect in attributes {
            match effect {
                AttributeEffect::Reverted => reverted += 1,
                AttributeEffect::Kept => kept += 1,
                AttributeEffect::Changed => changed += 1,
                AttributeEffect::Unknown => return PlanEffect::Unknown,
            }
        }
        match (reverted, kept, changed) {
            (0, 0, 0) => PlanEffect::Unknown,
            (_, 0, 0) => PlanEffect::Reverts,
            (0, _, 0) => PlanEffect::Keeps,
            (0, 0, _) => PlanEffect::Changes,
            (0, _, _) => PlanEffect::KeepsPart,
            _ => PlanEffect::Partly,
        }
    }
}
