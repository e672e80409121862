//! The URL fragment, written: the browser writes it as the user moves around, the Share dialog and
//! `planlens link` write it for other people. Its format and its reader are in `load::fragment`;
//! the plan comes last, so the view stays readable at the start of a long link.
//!
//! `hash` writes a fragment, `link` a whole link, `url_link` a `?url=` link with a view; a view's
//! list filter is written by `ListFilter::write_view`.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

pub use planlens_load::fragment::{Fragment, LinkView};

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

fn encode(s: &str) -> String {
    utf8_percent_encode(s, COMPONENT).to_string()
}

/// The fragment with its `#`, or `""` when there is nothing to say. The plan comes last, so
/// the view stays readable at the start of a long link.
pub fn hash(fragment: &Fragment) -> String {
    let v = &fragment.view;
    let mut parts: Vec<String> = Vec::new();
    let mut put = |key: &str, value: &str| parts.push(format!("{key}={}", encode(value)));
    if let Some(s) = &fragment.sample {
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
    if let Some(n) = &fragment.name {
        put("n", n);
    }
    if let Some(m) = fragment.member {
        put("pl", &m.to_string());
    }
    if let Some(r) = &fragment.rollup {
        put("ru", r);
    }
    if let Some(s) = &fragment.set {
        put("s", s);
    }
    if let Some(g) = &fragment.glance {
        put("g", g);
    }
    if let Some(w) = &fragment.was {
        put("was", w);
    }
    if let Some(p) = &fragment.plan {
        put("p", p);
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("#{}", parts.join("&"))
    }
}

/// A link to `base` (the site's address; any fragment it has is replaced) with this fragment.
pub fn link(base: &str, fragment: &Fragment) -> String {
    let base = base.split_once('#').map_or(base, |(b, _)| b);
    format!("{base}{}", hash(fragment))
}

/// A link to `base` that fetches the plan from `plan_url` (`?url=`) and shows `view`: short,
/// whatever the plan's size, but it works only while that address is reachable.
pub fn url_link(base: &str, plan_url: &str, view: &LinkView) -> String {
    let base = base.split(['?', '#']).next().unwrap_or(base);
    let fragment = Fragment {
        view: view.clone(),
        ..Fragment::default()
    };
    format!("{base}?url={}{}", encode(plan_url), hash(&fragment))
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
            glance: Some("AXid".to_string()),
            set: Some("AXie".to_string()),
            rollup: Some("AXif".to_string()),
            member: Some(2),
            was: Some("AXig".to_string()),
            view: LinkView {
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
        let text = hash(&f);
        assert!(text.ends_with("&p=AXic"), "{text}");
        assert!(!text[1..].contains('#') && !text.contains(' '), "{text}");
        assert_eq!(Fragment::parse(&text), f);
    }

    #[test]
    fn reads_old_links_and_ignores_unknown_keys() {
        let f = Fragment::parse("#sample=web-app-replace&tab=drift&r=aws_db.x&future=1");
        assert_eq!(f.sample.as_deref(), Some("web-app-replace"));
        assert_eq!(f.view.tab.as_deref(), Some("drift"));
        assert_eq!(f.view.address.as_deref(), Some("aws_db.x"));
        assert_eq!(Fragment::parse(""), Fragment::default());
        assert_eq!(hash(&Fragment::default()), "");
    }

    #[test]
    fn url_links_carry_the_address_and_the_view() {
        let view = LinkView {
            tab: Some("graph".to_string()),
            ..LinkView::default()
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
