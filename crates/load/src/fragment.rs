//! The URL fragment, read: `#tab=graph&r=ADDRESS&a=delete,replace&…&g=GLANCE&p=PLAN`. It says what to open
//! (a shipped sample, or a plan carried in the link itself) and how to show it (tab, selection,
//! list filters, rules, labels). Browsers never send the fragment to a server.
//!
//! The browser reads it on start and when a link is pasted into the address bar; `share::fragment`
//! writes it (the browser as the user moves around, the Share dialog and `planlens link` for other
//! people). The list filter a view names is `list::ListFilter::from_view`.
//!
//! `Fragment` holds the sample, the plan payload and the file name; `LinkView` the tab, the
//! address, list filters by name, the rules payload and the environment; `Fragment::parse` reads
//! them. Unknown keys are ignored; filters go by name, never by index.

use percent_encoding::percent_decode_str;

/// How a plan is shown: everything a link carries besides the plan.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LinkView {
    /// The tab, when not the resource list (`graph`, `drift`, `rules`, …).
    pub tab: Option<String>,
    /// The selected resource's address.
    pub address: Option<String>,
    /// List filter: action groups (`list::ActionGroup::key`); empty means all.
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
    /// The rule file, as a link payload ([`crate::link::encode`]); absent for the built-in pack.
    pub rules: Option<String>,
    /// The `environment` label, when the user set one.
    pub environment: Option<String>,
}

/// Everything a fragment says.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Fragment {
    /// A shipped sample to open, by file stem.
    pub sample: Option<String>,
    /// A plan carried in the link: a payload of [`crate::link`].
    pub plan: Option<String>,
    /// The name of the file the carried plan came from.
    pub name: Option<String>,
    /// What the plan's first screen shows, as text (`session::glance`), painted before the app
    /// has opened the plan: a payload of [`crate::link`].
    pub glance: Option<String>,
    /// Several plans carried in the link, reopened as a roll-up: a payload of [`crate::link`]
    /// holding `[{"name", "text"}, …]` (`set::read_payload`).
    pub set: Option<String>,
    /// A redacted roll-up carried in the link: a payload of [`crate::link`] holding its rows.
    pub rollup: Option<String>,
    /// Which plan of a carried set to open (its place in the set), for a row's deep link.
    pub member: Option<usize>,
    /// The plan last reviewed, carried beside the plan (a payload of [`crate::link`]): the link
    /// reopens the comparison (*since the last review*).
    pub was: Option<String>,
    /// How to show it.
    pub view: LinkView,
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
                "g" => f.glance = Some(value),
                "s" => f.set = Some(value),
                "ru" => f.rollup = Some(value),
                "pl" => f.member = value.parse().ok(),
                "was" => f.was = Some(value),
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
}
