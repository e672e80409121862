//! The resource list: filters, search, and grouping by module, computed over the document's rows.
//!
//! Filters by action, module, provider, type, search text and no-ops. `address_in_group` gives a
//! row's text under its heading (the address without the module path the heading shows);
//! `ListFilter::from_view` and `write_view` read and write a link's view by name, never by index.
//! Pure functions over `Document`.

use planlens_load::fragment::LinkView;
use planlens_model::address::split_module;
pub use planlens_model::text::contains_ignore_case;
use planlens_model::{Action, Document, ResourceRow};

/// The action groups a user filters by (all replace orders are one group).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ActionGroup {
    /// Creates.
    Create,
    /// In-place updates.
    Update,
    /// Replaces, any order.
    Replace,
    /// Deletes.
    Delete,
    /// Forgets.
    Forget,
    /// Data source reads.
    Read,
    /// No-ops.
    NoOp,
}

/// The groups in the order the filter bar shows them.
pub const ACTION_GROUPS: [ActionGroup; 7] = [
    ActionGroup::Create,
    ActionGroup::Update,
    ActionGroup::Replace,
    ActionGroup::Delete,
    ActionGroup::Forget,
    ActionGroup::Read,
    ActionGroup::NoOp,
];

impl ActionGroup {
    /// The group an action belongs to.
    pub fn of(action: Action) -> ActionGroup {
        match action {
            Action::Create => ActionGroup::Create,
            Action::Update => ActionGroup::Update,
            Action::Replace(_) => ActionGroup::Replace,
            Action::Delete => ActionGroup::Delete,
            Action::Forget => ActionGroup::Forget,
            Action::Read => ActionGroup::Read,
            Action::NoOp => ActionGroup::NoOp,
        }
    }

    /// Stable lowercase name (filters in URLs, CSS, test hooks).
    pub fn key(self) -> &'static str {
        match self {
            ActionGroup::Create => "create",
            ActionGroup::Update => "update",
            ActionGroup::Replace => "replace",
            ActionGroup::Delete => "delete",
            ActionGroup::Forget => "forget",
            ActionGroup::Read => "read",
            ActionGroup::NoOp => "no-op",
        }
    }

    /// The group for a [`ActionGroup::key`].
    pub fn from_key(key: &str) -> Option<ActionGroup> {
        ACTION_GROUPS.into_iter().find(|g| g.key() == key)
    }
}

/// What the list shows. The default hides plain no-ops and filters nothing else.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListFilter {
    /// Only these action groups; empty means all.
    pub actions: Vec<ActionGroup>,
    /// Only this module (index into [`Document::modules`]).
    pub module: Option<u32>,
    /// Only this provider (index into [`Document::providers`]).
    pub provider: Option<u32>,
    /// Only this resource type (index into [`Document::resource_types`]).
    pub resource_type: Option<u32>,
    /// Case-insensitive text to find in addresses.
    pub search: String,
    /// Show plain no-ops (those that neither move nor import).
    pub show_no_ops: bool,
    /// Only the rows of these addresses (the list's *only what changed since* filter); `None`:
    /// every address. Never written into a link.
    pub addresses: Option<std::sync::Arc<std::collections::BTreeSet<String>>>,
}

/// One line of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListEntry {
    /// A module heading, with how many of its rows pass the filter.
    Module {
        /// Index into [`Document::modules`].
        module: u32,
        /// Rows under it.
        count: u32,
    },
    /// A resource: index into [`Document::rows`].
    Resource(u32),
}

/// True when a row is a no-op that Terraform would not list (no move, no import) and that did not
/// drift (drifted resources are worth seeing even when the plan leaves them alone).
pub fn is_plain_no_op(row: &ResourceRow) -> bool {
    row.action == Action::NoOp && !row.is_move && !row.is_import && !row.is_drifted
}

impl ListFilter {
    /// The list filter a link's view names in `doc` (filters travel by name: indices mean nothing
    /// in another document); names the document lacks are dropped.
    pub fn from_view(view: &LinkView, doc: &Document) -> ListFilter {
        let index = |names: &[String], name: &Option<String>| {
            name.as_ref()
                .and_then(|n| names.iter().position(|x| x == n))
                .map(|i| i as u32)
        };
        ListFilter {
            actions: view
                .actions
                .iter()
                .filter_map(|k| ActionGroup::from_key(k))
                .collect(),
            module: index(&doc.modules, &view.module),
            provider: index(&doc.providers, &view.provider),
            resource_type: index(&doc.resource_types, &view.resource_type),
            search: view.search.clone().unwrap_or_default(),
            show_no_ops: view.show_no_ops,
            addresses: None,
        }
    }

    /// Writes this filter into a link's view, by name.
    pub fn write_view(&self, doc: &Document, view: &mut LinkView) {
        view.actions = self.actions.iter().map(|g| g.key().to_string()).collect();
        view.module = self
            .module
            .and_then(|m| doc.modules.get(m as usize))
            .cloned();
        view.provider = self
            .provider
            .and_then(|p| doc.providers.get(p as usize))
            .cloned();
        view.resource_type = self
            .resource_type
            .and_then(|t| doc.resource_types.get(t as usize))
            .cloned();
        view.search = Some(self.search.clone()).filter(|s| !s.is_empty());
        view.show_no_ops = self.show_no_ops;
    }

    /// True when the row passes the filter.
    pub fn accepts(&self, doc: &Document, row: &ResourceRow) -> bool {
        // A state's rows are what exists, not no-ops: they are always listed.
        if !self.show_no_ops
            && is_plain_no_op(row)
            && !self.actions.contains(&ActionGroup::NoOp)
            && !doc.source.is_state()
        {
            return false;
        }
        if !self.actions.is_empty() && !self.actions.contains(&ActionGroup::of(row.action)) {
            return false;
        }
        if self.module.is_some_and(|m| m != row.module)
            || self.provider.is_some_and(|p| p != row.provider)
            || self.resource_type.is_some_and(|t| t != row.resource_type)
        {
            return false;
        }
        if let Some(only) = &self.addresses
            && !only.contains(doc.change(row).address.as_ref())
        {
            return false;
        }
        let needle = self.search.trim();
        needle.is_empty() || contains_ignore_case(&doc.change(row).address, needle)
    }

    /// The list's lines: module headings, each followed by its rows that pass the filter.
    pub fn entries(&self, doc: &Document) -> Vec<ListEntry> {
        let mut out = Vec::new();
        let mut heading_at: Option<usize> = None;
        let mut current_module = u32::MAX;
        for (i, row) in doc.rows.iter().enumerate() {
            if !self.accepts(doc, row) {
                continue;
            }
            if row.module != current_module {
                current_module = row.module;
                heading_at = Some(out.len());
                out.push(ListEntry::Module {
                    module: row.module,
                    count: 0,
                });
            }
            if let Some(ListEntry::Module { count, .. }) = heading_at.map(|h| &mut out[h]) {
                *count += 1;
            }
            out.push(ListEntry::Resource(i as u32));
        }
        out
    }

    /// How many rows of each action group pass every filter but the action filter.
    pub fn group_counts(&self, doc: &Document) -> Vec<(ActionGroup, usize)> {
        let without_actions = ListFilter {
            actions: Vec::new(),
            show_no_ops: true,
            ..self.clone()
        };
        let mut counts = [0usize; ACTION_GROUPS.len()];
        for row in &doc.rows {
            if without_actions.accepts(doc, row) {
                counts[ActionGroup::of(row.action) as usize] += 1;
            }
        }
        ACTION_GROUPS
            .iter()
            .map(|g| (*g, counts[*g as usize]))
            .collect()
    }
}

/// How a row's address reads in the list, under the heading of its module: without the module path
/// the heading already shows (`aws_db_instance.this[0]` under
/// `module.db.module.db_1.module.db_instance`), so the part that tells rows apart is never the part
/// cut off. The full address stays in the row's title and the detail.
pub fn address_in_group<'d>(doc: &'d Document, row: &ResourceRow) -> &'d str {
    relative_address(&doc.change(row).address, doc.module_of(row))
}

/// `address` relative to `module` (a module path as Terraform writes it, `""` for the root): what
/// follows the module path when the address is in exactly that module, else the whole address.
/// Addresses are parsed, never split on `.`, so keys holding dots or quotes stay whole.
pub fn relative_address<'a>(address: &'a str, module: &str) -> &'a str {
    match split_module(address) {
        (path, rest) if path == module => rest,
        _ => address,
    }
}

#[cfg(test)]
mod tests {
    use super::{contains_ignore_case, relative_address};

    #[test]
    fn addresses_read_relative_to_their_module() {
        assert_eq!(
            relative_address(
                r#"module.db.module.db_1.module.db_instance.aws_db_instance.this["x"]"#,
                "module.db.module.db_1.module.db_instance"
            ),
            r#"aws_db_instance.this["x"]"#
        );
        assert_eq!(
            relative_address(r#"module.a["k.1"].aws_x.y["q\"]"]"#, r#"module.a["k.1"]"#),
            r#"aws_x.y["q\"]"]"#
        );
        assert_eq!(
            relative_address(r#"module.a["k.1"].data.aws_x.y"#, r#"module.a["k.1"]"#),
            "data.aws_x.y"
        );
        // The root module: the address is already relative.
        assert_eq!(
            relative_address(r#"aws_x.y["a.b"]"#, ""),
            r#"aws_x.y["a.b"]"#
        );
        // Not in that module (a parent, a sibling whose name starts the same, a text prefix that
        // ends inside a key): the whole address, never a wrong cut.
        for (address, module) in [
            ("module.a.module.b.aws_x.y", "module.a"),
            ("module.ab.aws_x.y", "module.a"),
            (r#"module.a["k.1"].aws_x.y"#, r#"module.a["k"#),
            ("module.a.aws_x.y", ""),
        ] {
            assert_eq!(
                relative_address(address, module),
                address,
                "{address} in {module}"
            );
        }
    }

    #[test]
    fn search_ignores_case() {
        assert!(contains_ignore_case(
            "module.DB.aws_db_instance.this",
            "db_inst"
        ));
        assert!(contains_ignore_case("aws_s3_bucket.b[\"Été\"]", "été"));
        assert!(!contains_ignore_case("aws_vpc.main", "subnet"));
    }
}
