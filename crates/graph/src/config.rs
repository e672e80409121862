//! The parts of a plan's `configuration` and `prior_state` that say what depends on what, read
//! from the raw JSON slices the plan keeps.
//!
//! Only names, `references`, `depends_on`, `count`/`for_each` expressions, module calls and outputs
//! are read; constant values and attribute values are skipped without allocating.
//!
//! Every `references` string is read at any depth, but not inside `constant_value`, and parsed.
//! Borrowed: no values are kept. Terraform 0.12's relative state addresses and separate `index` are
//! made absolute.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use planlens_model::Mode;

/// `configuration`: the module tree the plan was made from.
#[derive(Debug, Default, Deserialize)]
pub struct Configuration<'a> {
    /// The root module.
    #[serde(borrow, default)]
    pub root_module: ConfigModule<'a>,
}

/// One module's configuration (the root module, or the `module` of a module call).
#[derive(Debug, Default, Deserialize)]
pub struct ConfigModule<'a> {
    /// `resource` and `data` blocks, addressed relative to this module.
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub resources: Vec<ConfigResource<'a>>,
    /// `module` blocks by call name.
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub module_calls: BTreeMap<Cow<'a, str>, ModuleCall<'a>>,
    /// `output` blocks by name.
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub outputs: BTreeMap<Cow<'a, str>, ConfigOutput<'a>>,
}

/// A `resource` or `data` block.
#[derive(Debug, Deserialize)]
pub struct ConfigResource<'a> {
    /// Module-relative address, e.g. `aws_instance.web` or `data.aws_ami.ubuntu`.
    #[serde(borrow)]
    pub address: Cow<'a, str>,
    /// Managed resource or data source.
    #[serde(default)]
    pub mode: Mode,
    /// Every reference made by the block's arguments and nested blocks.
    #[serde(borrow, default)]
    pub expressions: References<'a>,
    /// References made by `count`.
    #[serde(borrow, default)]
    pub count_expression: References<'a>,
    /// References made by `for_each`.
    #[serde(borrow, default)]
    pub for_each_expression: References<'a>,
    /// `depends_on`, module-relative (`aws_iam_role.x`, `module.net`).
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub depends_on: Vec<Cow<'a, str>>,
}

/// A `module` block.
#[derive(Debug, Default, Deserialize)]
pub struct ModuleCall<'a> {
    /// Input variables by name, each with the references of its expression.
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub expressions: BTreeMap<Cow<'a, str>, References<'a>>,
    /// References made by `count`.
    #[serde(borrow, default)]
    pub count_expression: References<'a>,
    /// References made by `for_each`.
    #[serde(borrow, default)]
    pub for_each_expression: References<'a>,
    /// `depends_on`, relative to the calling module.
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub depends_on: Vec<Cow<'a, str>>,
    /// The called module's own configuration.
    #[serde(borrow, default)]
    pub module: ConfigModule<'a>,
}

/// An `output` block.
#[derive(Debug, Default, Deserialize)]
pub struct ConfigOutput<'a> {
    /// References made by `value`.
    #[serde(borrow, default)]
    pub expression: References<'a>,
    /// `depends_on`, module-relative.
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub depends_on: Vec<Cow<'a, str>>,
}

/// `prior_state`: the state the plan started from.
#[derive(Debug, Default, Deserialize)]
pub struct PriorState<'a> {
    /// The state's values; absent for an empty state.
    #[serde(borrow, default)]
    pub values: Option<StateValues<'a>>,
}

/// `prior_state.values`.
#[derive(Debug, Default, Deserialize)]
pub struct StateValues<'a> {
    /// The root module's resources and child modules.
    #[serde(borrow, default)]
    pub root_module: StateModule<'a>,
}

/// One module instance in the state.
#[derive(Debug, Default, Deserialize)]
pub struct StateModule<'a> {
    /// The module instance's address; absent for the root module.
    #[serde(borrow, default)]
    pub address: Option<Cow<'a, str>>,
    /// Resource instances in this module instance.
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub resources: Vec<StateResource<'a>>,
    /// Module instances called from this one.
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub child_modules: Vec<StateModule<'a>>,
}

/// One resource instance in the state.
#[derive(Debug, Deserialize)]
pub struct StateResource<'a> {
    /// Absolute instance address.
    #[serde(borrow)]
    pub address: Cow<'a, str>,
    /// Managed resource or data source.
    #[serde(default)]
    pub mode: Mode,
    /// Set for deposed objects.
    #[serde(borrow, default)]
    pub deposed_key: Option<Cow<'a, str>>,
    /// The instance key as JSON (`0`, `"a"`); Terraform 0.12 left it out of `address`.
    #[serde(borrow, default)]
    pub index: Option<&'a serde_json::value::RawValue>,
    /// What this instance depended on when last applied: absolute resource or module addresses
    /// without instance keys (`module.net.aws_subnet.a`).
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub depends_on: Vec<Cow<'a, str>>,
}

impl<'a> StateModule<'a> {
    /// Every resource instance of this module instance and the ones below it, with its absolute
    /// address. (Terraform 0.12 wrote child modules' resource addresses relative to the module.)
    pub fn all_resources(&self) -> Vec<(Cow<'_, str>, &StateResource<'a>)> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(m) = stack.pop() {
            for r in &m.resources {
                let mut address = match m.address.as_deref() {
                    Some(module)
                        if !module.is_empty()
                            && !r
                                .address
                                .strip_prefix(module)
                                .is_some_and(|rest| rest.starts_with('.')) =>
                    {
                        Cow::Owned(format!("{module}.{}", r.address))
                    }
                    _ => Cow::Borrowed(&*r.address),
                };
                if let Some(index) = r.index.map(|i| i.get())
                    && index != "null"
                    && !address.ends_with(']')
                {
                    address = Cow::Owned(format!("{address}[{index}]"));
                }
                out.push((address, r));
            }
            stack.extend(m.child_modules.iter());
        }
        out
    }
}

/// Every `references` string inside an expression (or a map of expressions, or nested blocks), in
/// document order. Terraform lists both the long and the short form (`aws_vpc.main.id`,
/// `aws_vpc.main`); both are kept, callers resolve them to the same resource.
#[derive(Debug, Default)]
pub struct References<'a>(pub Vec<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for References<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut out = Vec::new();
        deserializer.deserialize_any(Collect {
            out: &mut out,
            in_references: false,
        })?;
        Ok(References(out))
    }
}

/// Walks any JSON value, keeping strings found under a `references` key and skipping
/// `constant_value`s (user data that may itself hold a key named "references").
struct Collect<'o, 'a> {
    out: &'o mut Vec<Cow<'a, str>>,
    in_references: bool,
}

impl<'de: 'a, 'a> DeserializeSeed<'de> for Collect<'_, 'a> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for Collect<'_, 'a> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an expression")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<(), E> {
        if self.in_references {
            self.out.push(Cow::Borrowed(v));
        }
        Ok(())
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        if self.in_references {
            self.out.push(Cow::Owned(v.to_owned()));
        }
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq
            .next_element_seed(Collect {
                out: &mut *self.out,
                in_references: self.in_references,
            })?
            .is_some()
        {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key_seed(KeyKind)? {
            match key {
                Key::ConstantValue => {
                    map.next_value::<IgnoredAny>()?;
                }
                key => map.next_value_seed(Collect {
                    out: &mut *self.out,
                    in_references: key == Key::References,
                })?,
            }
        }
        Ok(())
    }
}

#[derive(PartialEq)]
enum Key {
    References,
    ConstantValue,
    Other,
}

/// Reads a map key as one of the few names [`Collect`] cares about, without allocating.
struct KeyKind;

impl<'de> DeserializeSeed<'de> for KeyKind {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyKind {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
        Ok(match v {
            "references" => Key::References,
            "constant_value" => Key::ConstantValue,
            _ => Key::Other,
        })
    }
}

/// Some writers put `null` where a list or map is empty.
fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// What a reference string names, as far as dependencies go.
#[derive(Debug, PartialEq, Eq)]
pub enum Reference<'r> {
    /// A resource or data source in the same module: `aws_vpc.main`, `data.aws_ami.x`.
    Resource(String),
    /// An input variable of the module: `var.NAME`.
    Variable(&'r str),
    /// A module call's output (`module.NAME.OUTPUT`) or all of its outputs (`module.NAME`).
    Module {
        /// The call's name.
        call: &'r str,
        /// The output, when one is named.
        output: Option<&'r str>,
    },
    /// Anything with no resource behind it in the configuration JSON: `local.*` (locals are not
    /// in the JSON), `count.*`, `each.*`, `path.*`, `terraform.*`, `self.*`.
    Other,
}

/// Reads the leading name steps of a reference such as `module.net["a"].subnet_ids[0]`, skipping
/// index brackets (whose keys may hold dots and brackets inside quotes).
pub fn parse_reference(text: &str) -> Reference<'_> {
    let steps = name_steps(text, 3);
    match steps.as_slice() {
        ["var", name, ..] => Reference::Variable(name),
        ["module", call] => Reference::Module { call, output: None },
        ["module", call, output, ..] => Reference::Module {
            call,
            output: Some(output),
        },
        ["data", kind, name, ..] => Reference::Resource(format!("data.{kind}.{name}")),
        [
            "local" | "count" | "each" | "path" | "terraform" | "self" | "data" | "var",
            ..,
        ] => Reference::Other,
        [kind, name, ..] => Reference::Resource(format!("{kind}.{name}")),
        _ => Reference::Other,
    }
}

/// The first `max` dot-separated names of a traversal, with `[…]` index parts dropped.
fn name_steps(text: &str, max: usize) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut steps = Vec::with_capacity(max.min(8));
    let mut i = 0;
    while i < bytes.len() && steps.len() < max {
        let start = i;
        while i < bytes.len() && bytes[i] != b'.' && bytes[i] != b'[' {
            i += 1;
        }
        steps.push(&text[start..i]);
        // Skip any index parts: `[0]`, `["a.b]"]`, `[*]`.
        while i < bytes.len() && bytes[i] == b'[' {
            let mut in_string = false;
            i += 1;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' if in_string => i += 1,
                    b'"' => in_string = !in_string,
                    b']' if !in_string => break,
                    _ => {}
                }
                i += 1;
            }
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'.' {
            i += 1;
        } else {
            break;
        }
    }
    steps
}

/// Splits an absolute configuration address without instance keys (as in state `depends_on`:
/// `module.a.module.b.aws_x.y`, `module.a`, `data.aws_ami.u`) into module call names and the
/// resource part (`None` when the address names a whole module).
pub fn split_config_address(text: &str) -> (Vec<&str>, Option<String>) {
    let steps = name_steps(text, usize::MAX);
    let mut modules = Vec::new();
    let mut i = 0;
    while i + 1 < steps.len() && steps[i] == "module" {
        modules.push(steps[i + 1]);
        i += 2;
    }
    let resource = match &steps[i..] {
        ["data", kind, name, ..] => Some(format!("data.{kind}.{name}")),
        [kind, name, ..] => Some(format!("{kind}.{name}")),
        _ => None,
    };
    (modules, resource)
}

/// Parses `configuration`; a malformed one counts as absent (the graph then says its edges may be
/// incomplete) rather than failing the whole plan.
pub fn read_configuration<'a>(raw: &'a serde_json::value::RawValue) -> Option<Configuration<'a>> {
    let mut de = serde_json::Deserializer::from_str(raw.get());
    Configuration::deserialize(&mut de).ok()
}

/// Parses `prior_state`; a malformed one counts as absent.
pub fn read_prior_state<'a>(raw: &'a serde_json::value::RawValue) -> Option<PriorState<'a>> {
    let mut de = serde_json::Deserializer::from_str(raw.get());
    PriorState::deserialize(&mut de).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_collected_from_nested_blocks_but_not_constants() {
        let json = r#"{"a":{"references":["aws_vpc.main.id","aws_vpc.main"]},
            "ingress":[{"cidr":{"references":["var.cidr"]}}],
            "tags":{"constant_value":{"references":["not.a_reference"]}}}"#;
        let refs: References = serde_json::from_str(json).unwrap();
        assert_eq!(refs.0, ["aws_vpc.main.id", "aws_vpc.main", "var.cidr"]);
    }

    #[test]
    fn references_name_what_they_point_at() {
        assert_eq!(
            parse_reference("aws_vpc.main.id"),
            Reference::Resource("aws_vpc.main".into())
        );
        assert_eq!(
            parse_reference("aws_instance.web[0].id"),
            Reference::Resource("aws_instance.web".into())
        );
        assert_eq!(
            parse_reference("data.aws_ami.ubuntu"),
            Reference::Resource("data.aws_ami.ubuntu".into())
        );
        assert_eq!(parse_reference("var.vpc_id"), Reference::Variable("vpc_id"));
        assert_eq!(
            parse_reference("module.net[\"a.b]\"].ids"),
            Reference::Module {
                call: "net",
                output: Some("ids")
            }
        );
        assert_eq!(
            parse_reference("module.net"),
            Reference::Module {
                call: "net",
                output: None
            }
        );
        assert_eq!(parse_reference("local.names"), Reference::Other);
        assert_eq!(parse_reference("each.key"), Reference::Other);
        assert_eq!(parse_reference("count.index"), Reference::Other);
    }

    #[test]
    fn state_depends_on_addresses_split_into_modules_and_resource() {
        assert_eq!(
            split_config_address("module.a.module.b.aws_x.y"),
            (vec!["a", "b"], Some("aws_x.y".to_string()))
        );
        assert_eq!(split_config_address("module.a"), (vec!["a"], None));
        assert_eq!(
            split_config_address("data.aws_ami.u"),
            (vec![], Some("data.aws_ami.u".to_string()))
        );
    }
}
