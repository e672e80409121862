//! The URL fragment: `#tab=graph&r=ADDRESS&a=delete,replace&…&p=PLAN`. It says what to open (a
//! shipped sample, or a plan carried in the link itself) and how to show it (tab, selection, list
//! filters, rules, labels). Browsers never send the fragment to a server.
//!
//! The browser writes it as the user moves around, the Share dialog and `planlens link` write it
//! for other people, and the browser reads it on start: one format, written by this module only.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

use crate::list::{ActionGroup, ListFilter};
use crate::model::Document;

/// What `encodeURIComponent` leaves alone: letters, digits and `-_.!~*'()`.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// How a plan is shown: everything a link carries besides the plan.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct View {
    /// The tab, when not the resource list (`graph`, `drift`, `rules`, …).
    pub tab: Option<String>,
    /// The selected resource's address.
    pub address: Option<String>,
    /// List filter: action groups ([`ActionGroup::key`]); empty means all.
    pub actions: Vec<String>,
    /// List filter: a module path (`""` is the root module).
    pub module: Option<String>,
    /// List filter: a provider as the list shows it (`hashicorp/aws`).
    pub provider: Option<String>,
    /// List filter: a resource type.
    pub resource_type: Option<String>,
    /// List filter: text to find in addresses.
    pub search: Option<String>,
    /// List filter: show plain no-ops too.
    pub show_no_ops: bool,
    /// The rule file, as a link payload ([`crate::load::link::encode`]); absent for the built-in pack.
    pub rules: Option<String>,
    /// The `environment` label, when the user set one.
    pub environment: Option<String>,
}

/// Everything a fragment says.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Fragment {
    /// A shipped sample to open, by file stem.
    pub sample: Option<String>,
    /// A plan carried in the link: a payload of [`crate::load::link`].
    pub plan: Option<String>,
    /// The name of the file the carried plan came from.
    pub name: Option<String>,
    /// How to show it.
    pub view: View,
}

fn encode(s: &str) -> String {
    utf8_percent_encode(s, COMPONENT).to_string()
}

fn decode(s: &str) -> String {
    percent_decode_str(s).decode_utf8_lossy().into_owned()
}

impl Fragment {
    /// Reads a fragment, with or without its leading `#`. Unknown keys are ignored, so links made
    /// by newer versions still open what this one understands.
    pub fn parse(hash: &str) -> Fragment {
        let mut f = Fragment::default();
        for pair in hash.strip_prefix('#').unwrap_or(hash).split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = decode(value);
            let v = &mut f.view;
            match key {
                "sample" => f.sample = Some(value),
                "p" => f.plan = Some(value),
                "n" => f.name = Some(value),
                "tab" => v.tab = Some(value),
                "r" => v.address = Some(value),
                "a" => {
                    v.actions = value
                        .split(',')
                        .filter(|k| !k.is_empty())
                        .map(str::to_string)
                        .collect()
                }
                "m" => v.module = Some(value),
                "pv" => v.provider = Some(value),
                "t" => v.resource_type = Some(value),
                "q" => v.search = Some(value),
                "noop" => v.show_no_ops = value == "1",
                "rules" => v.rules = Some(value),
                "env" => v.environment = Some(value),
                _ => {}
            }
        }
        f
    }

    /// The fragment with its `#`, or `""` when there is nothing to say. The plan comes last, so
    /// the view stays readable at the start of a long link.
    pub fn to_hash(&self) -> String {
        let v = &self.view;
        let mut parts: Vec<String> = Vec::new();
        let mut put = |key: &str, value: &str| parts.push(format!("{key}={}", encode(value)));
        if let Some(s) = &self.sample {
            put("sample", s);
        }
        if let Some(t) = &v.tab {
            put("tab", t);
        }
        if let Some(a) = &v.address {
            put("r", a);
        }
        if !v.actions.is_empty() {
            put("a", &v.actions.join(","));
        }
        if let Some(m) = &v.module {
            put("m", m);
        }
        if let Some(p) = &v.provider {
            put("pv", p);
        }
        if let Some(t) = &v.resource_type {
            put("t", t);
        }
        if let Some(q) = v.search.as_deref().filter(|q| !q.is_empty()) {
            put("q", q);
        }
        if v.show_no_ops {
            put("noop", "1");
        }
        if let Some(e) = v.environment.as_deref().filter(|e| !e.is_empty()) {
            put("env", e);
        }
        if let Some(r) = &v.rules {
            put("rules", r);
        }
        if let Some(n) = &self.name {
            put("n", n);
        }
        if let Some(p) = &self.plan {
            put("p", p);
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("#{}", parts.join("&"))
        }
    }
}

/// A link to `base` (the site's address; any fragment it has is replaced) with this fragment.
pub fn link(base: &str, fragment: &Fragment) -> String {
    let base = base.split_once('#').map_or(base, |(b, _)| b);
    format!("{base}{}", fragment.to_hash())
}

/// A link to `base` that fetches the plan from `plan_url` (`?url=`) and shows `view`: short,
/// whatever the plan's size, but it works only while that address is reachable.
pub fn url_link(base: &str, plan_url: &str, view: &View) -> String {
    let base = base.split(['?', '#']).next().unwrap_or(base);
    let fragment = Fragment {
        view: view.clone(),
        ..Fragment::default()
    };
    format!("{base}?url={}{}", encode(plan_url), fragment.to_hash())
}

impl View {
    /// Writes a list filter as names (indices mean nothing in another document).
    pub fn set_filter(&mut self, doc: &Document, filter: &ListFilter) {
        self.actions = filter.actions.iter().map(|g| g.key().to_string()).collect();
        self.module = filter
            .module
            .and_then(|m| doc.modules.get(m as usize))
            .cloned();
        self.provider = filter
            .provider
            .and_then(|p| doc.providers.get(p as usize))
            .cloned();
        self.resource_type = filter
            .resource_type
            .and_then(|t| doc.resource_types.get(t as usize))
            .cloned();
        self.search = Some(filter.search.clone()).filter(|s| !s.is_empty());
        self.show_no_ops = filter.show_no_ops;
    }

    /// The list filter these names describe in `doc`; names the document lacks are dropped.
    pub fn filter(&self, doc: &Document) -> ListFilter {
        let index = |names: &[String], name: &Option<String>| {
            name.as_ref()
                .and_then(|n| names.iter().position(|x| x == n))
                .map(|i| i as u32)
        };
        ListFilter {
            actions: self
                .actions
                .iter()
                .filter_map(|k| ActionGroup::from_key(k))
                .collect(),
            module: index(&doc.modules, &self.module),
            provider: index(&doc.providers, &self.provider),
            resource_type: index(&doc.resource_types, &self.resource_type),
            search: self.search.clone().unwrap_or_default(),
            show_no_ops: self.show_no_ops,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_field() {
        let f = Fragment {
            sample: None,
            plan: Some("AXic".to_string()),
            name: Some("plan (1).json".to_string()),
            view: View {
                tab: Some("graph".to_string()),
                address: Some("module.a[\"x y\"].aws_instance.b[0]".to_string()),
                actions: vec!["delete".to_string(), "replace".to_string()],
                module: Some(String::new()),
                provider: Some("hashicorp/aws".to_string()),
                resource_type: Some("aws_instance".to_string()),
                search: Some("web & db #1".to_string()),
                show_no_ops: true,
                rules: Some("AXrules".to_string()),
                environment: Some("prod".to_string()),
            },
        };
        let hash = f.to_hash();
        assert!(hash.ends_with("&p=AXic"), "{hash}");
        assert!(!hash[1..].contains('#') && !hash.contains(' '), "{hash}");
        assert_eq!(Fragment::parse(&hash), f);
    }

    #[test]
    fn reads_old_links_and_ignores_unknown_keys() {
        let f = Fragment::parse("#sample=web-app-replace&tab=drift&r=aws_db.x&future=1");
        assert_eq!(f.sample.as_deref(), Some("web-app-replace"));
        assert_eq!(f.view.tab.as_deref(), Some("drift"));
        assert_eq!(f.view.address.as_deref(), Some("aws_db.x"));
        assert_eq!(Fragment::parse(""), Fragment::default());
        assert_eq!(Fragment::default().to_hash(), "");
    }

    #[test]
    fn url_links_carry_the_address_and_the_view() {
        let view = View {
            tab: Some("graph".to_string()),
            ..View::default()
        };
        assert_eq!(
            url_link(
                "https://o.github.io/planlens/?url=old#x",
                "https://ci.example/a b/plan.json?x=1&y=2",
                &view
            ),
            "https://o.github.io/planlens/?url=https%3A%2F%2Fci.example%2Fa%20b%2Fplan.json%3Fx%3D1%26y%3D2#tab=graph"
        );
    }

    #[test]
    fn link_replaces_the_base_fragment() {
        let f = Fragment {
            plan: Some("AX".to_string()),
            name: None,
            ..Fragment::default()
        };
        assert_eq!(
            link("https://o.github.io/planlens/#old", &f),
            "https://o.github.io/planlens/#p=AX"
        );
    }
}
