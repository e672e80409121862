//! Planned actions: the `actions` array of a change, as one enum.
//!
//! `Replace(order)` stands for the three replace pairs. An action list this build does not know is
//! a load error, never a guess.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};

/// In which order a replace creates the new object and gets rid of the old one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReplaceOrder {
    /// `["delete", "create"]`: the default replace.
    DeleteThenCreate,
    /// `["create", "delete"]`: `create_before_destroy`.
    CreateThenDelete,
    /// `["create", "forget"]`: the new object is created, the old one only dropped from state (1.7+).
    CreateThenForget,
}

/// What Terraform will do to one resource instance (or output).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// `["no-op"]`: nothing (possibly a move or an import without changes).
    NoOp,
    /// `["create"]`.
    Create,
    /// `["read"]`: a data source read during apply.
    Read,
    /// `["update"]`: changed in place.
    Update,
    /// A replace pair.
    Replace(ReplaceOrder),
    /// `["delete"]`.
    Delete,
    /// `["forget"]`: removed from state, the real object left alone (Terraform 1.7+).
    Forget,
}

/// Every action, in the order filters and legends list them.
pub const ALL_ACTIONS: [Action; 9] = [
    Action::Create,
    Action::Update,
    Action::Replace(ReplaceOrder::DeleteThenCreate),
    Action::Replace(ReplaceOrder::CreateThenDelete),
    Action::Replace(ReplaceOrder::CreateThenForget),
    Action::Delete,
    Action::Forget,
    Action::Read,
    Action::NoOp,
];

impl Action {
    /// Builds the action from the JSON `actions` array, or says why it cannot.
    pub fn from_names(names: &[&str]) -> Result<Action, String> {
        Ok(match names {
            ["no-op"] => Action::NoOp,
            ["create"] => Action::Create,
            ["read"] => Action::Read,
            ["update"] => Action::Update,
            ["delete"] => Action::Delete,
            ["forget"] => Action::Forget,
            ["delete", "create"] => Action::Replace(ReplaceOrder::DeleteThenCreate),
            ["create", "delete"] => Action::Replace(ReplaceOrder::CreateThenDelete),
            ["create", "forget"] => Action::Replace(ReplaceOrder::CreateThenForget),
            other => return Err(format!("unknown actions {other:?}")),
        })
    }

    /// The JSON `actions` array this action was read from.
    pub fn names(self) -> &'static [&'static str] {
        match self {
            Action::NoOp => &["no-op"],
            Action::Create => &["create"],
            Action::Read => &["read"],
            Action::Update => &["update"],
            Action::Replace(ReplaceOrder::DeleteThenCreate) => &["delete", "create"],
            Action::Replace(ReplaceOrder::CreateThenDelete) => &["create", "delete"],
            Action::Replace(ReplaceOrder::CreateThenForget) => &["create", "forget"],
            Action::Delete => &["delete"],
            Action::Forget => &["forget"],
        }
    }

    /// Terraform's symbol for the action in plan output.
    pub fn symbol(self) -> &'static str {
        match self {
            Action::NoOp => " ",
            Action::Create => "+",
            Action::Read => "<=",
            Action::Update => "~",
            Action::Replace(ReplaceOrder::DeleteThenCreate) => "-/+",
            Action::Replace(ReplaceOrder::CreateThenDelete) => "+/-",
            Action::Replace(ReplaceOrder::CreateThenForget) => "+/.",
            Action::Delete => "-",
            Action::Forget => ".",
        }
    }

    /// A short lowercase name, stable for CSS classes, filters and URLs.
    pub fn key(self) -> &'static str {
        match self {
            Action::NoOp => "no-op",
            Action::Create => "create",
            Action::Read => "read",
            Action::Update => "update",
            Action::Replace(ReplaceOrder::DeleteThenCreate) => "replace",
            Action::Replace(ReplaceOrder::CreateThenDelete) => "replace-cbd",
            Action::Replace(ReplaceOrder::CreateThenForget) => "replace-forget",
            Action::Delete => "delete",
            Action::Forget => "forget",
        }
    }

    /// The action from its [`Action::key`].
    pub fn from_key(key: &str) -> Option<Action> {
        ALL_ACTIONS.into_iter().find(|a| a.key() == key)
    }

    /// How a person would say it.
    pub fn label(self) -> &'static str {
        match self {
            Action::NoOp => "no-op",
            Action::Create => "create",
            Action::Read => "read",
            Action::Update => "update in-place",
            Action::Replace(ReplaceOrder::DeleteThenCreate) => "replace (destroy, then create)",
            Action::Replace(ReplaceOrder::CreateThenDelete) => "replace (create, then destroy)",
            Action::Replace(ReplaceOrder::CreateThenForget) => "replace (create, then forget)",
            Action::Delete => "destroy",
            Action::Forget => "forget",
        }
    }

    /// True when the action removes an existing object from Terraform's management:
    /// deletes, both replace orders and forgets.
    pub fn is_destructive(self) -> bool {
        matches!(self, Action::Delete | Action::Forget | Action::Replace(_))
    }
}

/// Serde for an action as its [`Action::key`] (`replace-cbd`), in Planlens's own formats.
pub mod by_key {
    use serde::{Deserialize, Deserializer, Serializer, de};

    use super::Action;

    /// Writes the key.
    pub fn serialize<S: Serializer>(action: &Action, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(action.key())
    }

    /// Reads a key.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Action, D::Error> {
        let key = std::borrow::Cow::<str>::deserialize(d)?;
        Action::from_key(&key).ok_or_else(|| de::Error::custom(format!("unknown action {key:?}")))
    }
}

impl<'de> Deserialize<'de> for Action {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ActionsVisitor;
        impl<'de> Visitor<'de> for ActionsVisitor {
            type Value = Action;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of action names such as [\"delete\", \"create\"]")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Action, A::Error> {
                // Real plans have at most two names; read them into a fixed array, no allocation.
                let mut names: [std::borrow::Cow<'de, str>; 3] = Default::default();
                let mut n = 0;
                while let Some(name) = seq.next_element::<std::borrow::Cow<'de, str>>()? {
                    if n == names.len() {
                        return Err(de::Error::custom("too many actions in one change"));
                    }
                    names[n] = name;
                    n += 1;
                }
                let names: [&str; 3] = [&names[0], &names[1], &names[2]];
                Action::from_names(&names[..n]).map_err(de::Error::custom)
            }
        }
        deserializer.deserialize_seq(ActionsVisitor)
    }
}
