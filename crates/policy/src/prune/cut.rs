//! The cut: an input's text written again with only what a [`Need`] keeps.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::{Need, SetId};

/// `text` (an input's JSON) cut down to `need`; `None` when it cannot be cut soundly (not JSON,
/// a key the engine reads specially, elements of a set without distinct addresses, a number that
/// would not read back the same), and the caller keeps more.
pub(crate) fn cut(text: &str, need: &Need) -> Option<String> {
    let cut = Cut {
        out: RefCell::new(String::with_capacity(text.len() / 8)),
        addresses: RefCell::new(HashMap::new()),
        failed: RefCell::new(false),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    Node {
        cut: &cut,
        need,
        set: None,
    }
    .deserialize(&mut de)
    .ok()?;
    de.end().ok()?;
    if *cut.failed.borrow() {
        return None;
    }
    Some(cut.out.into_inner())
}

/// The state of one [`cut`]: the text written so far, and each set's addresses seen.
struct Cut {
    out: RefCell<String>,
    addresses: RefCell<HashMap<SetId, HashSet<String>>>,
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

/// One value to write as `need` says; when `set` names one, an element of that set (its
/// address must be distinct from the set's others').
struct Node<'c> {
    cut: &'c Cut,
    need: &'c Need,
    set: Option<SetId>,
}

/// A key as written, borrowed when it has no escapes.
#[derive(serde::Deserialize)]
#[serde(transparent)]
struct Key<'a>(#[serde(borrow)] std::borrow::Cow<'a, str>);

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

/// The key serde_json (and so the engine) reads as a number written out in full.
pub(crate) const NUMBER_KEY: &str = "$serde_json::private::Number";

/// Scalars are written as they read; an array or object as the need says. An element of a set
/// is cut only when it is an object with a string `address` (an object without one refuses the
/// cut), keeping every key up to `address` verbatim; its arrays are written as they are, which
/// compare as before too.
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
            let more = if self.set.is_some() {
                seq.next_element::<&'de RawValue>()?
                    .map(|raw| self.cut.push(raw.get()))
            } else {
                seq.next_element_seed(Node {
                    cut: self.cut,
                    need: element,
                    set: element.set,
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
        // One pass. An element keeps its keys up to `address` verbatim; one without a string
        // address, or with one seen before in its set, refuses the whole cut.
        let any = self.need.any.as_deref();
        // The values of an element are not compared as a set's elements (they are cut as the
        // need says); those of any other object are when its `any` node says so.
        let set = match self.set {
            Some(_) => None,
            None => any.and_then(|a| a.set),
        };
        let mut address = None;
        self.cut.push("{");
        let mut first = true;
        while let Some(key) = map.next_key::<Key<'de>>()? {
            if key.0 == NUMBER_KEY {
                return Err(self.cut.fail());
            }
            let verbatim = self.set.is_some() && key.0.as_ref() <= "address";
            let child = self.need.keys.get(key.0.as_ref()).or(any);
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
                    set,
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
        let Some(set) = self.set else {
            return Ok(());
        };
        let Some(address) = address else {
            return Err(self.cut.fail());
        };
        if !self
            .cut
            .addresses
            .borrow_mut()
            .entry(set)
            .or_default()
            .insert(address)
        {
            return Err(self.cut.fail());
        }
        Ok(())
    }
}
