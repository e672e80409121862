//! A loaded plan: the file's text, the typed [`Plan`] borrowing from it, and an index of rows that
//! the list, the filters and the CLI share.
//!
//! Rows index each change's module, type, provider and its move, import and drift marks as small
//! integers; they are grouped by module, root first, in plan order within a module.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashSet};

// Row indexing hashes every address, module, type and provider of a plan: FxHash is several
// times faster than the default SipHash there (no hash-flooding concern: the keys are the
// plan's own).
use rustc_hash::{FxHashMap, FxHashSet};

use serde::Deserialize;

use serde_json::value::RawValue;

use super::action::Action;
use super::address::Address;
use super::plan::{Mode, Plan, ResourceChange};
use super::source::Source;

self_cell::self_cell!(
    /// The file text and the plan parsed from it, kept together so the plan can borrow.
    struct PlanCell {
        owner: String,
        #[covariant]
        dependent: Plan,
    }
);

/// Where a row's change comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowSource {
    /// `resource_changes[i]`.
    Planned(u32),
    /// `deferred_changes[i].resource_change`.
    Deferred(u32),
    /// `resource_drift[i]`, for a drifted resource the plan has no change for (refresh-only plans,
    /// driftctl reports, resources deleted outside Terraform). Its row's action is no-op: the plan
    /// does nothing to it.
    Drift(u32),
}

/// One resource instance in the list: indices into the document's tables, no copies of text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceRow {
    /// Which change this row shows.
    pub source: RowSource,
    /// The planned action.
    pub action: Action,
    /// Index into [`Document::modules`]; 0 is the root module.
    pub module: u32,
    /// Index into [`Document::resource_types`].
    pub resource_type: u32,
    /// Index into [`Document::providers`].
    pub provider: u32,
    /// True for data sources.
    pub is_data: bool,
    /// True when the change moves the resource (`previous_address` differs from `address`).
    pub is_move: bool,
    /// True when the resource is being imported.
    pub is_import: bool,
    /// True when the resource also appears in `resource_drift` (or is a drift-only row).
    pub is_drifted: bool,
}

/// A parsed plan with its index.
pub struct Document {
    cell: PlanCell,
    /// The file name it came from (or "pasted plan", or a sample's name).
    pub name: String,
    /// Things the user should know about how the file was read.
    pub warnings: Vec<String>,
    /// What was undone before the file could be read (decompressed, decoded from UTF-16, GitHub
    /// Actions lines removed: `load::decode`): information, not a warning.
    pub notes: Vec<String>,
    /// What kind of input this was, with what it said that the plan model cannot hold.
    pub source: Source,
    /// The file's own text when it was converted (plan logs, driftctl reports, redacted links);
    /// `text()` is then the equivalent plan.
    pub original: Option<String>,
    /// Set when the document came from a redacted share link: it has no attribute values, and its
    /// graph, drift and findings are the ones the link carries.
    pub redacted: Option<Box<super::redaction::Redaction>>,
    /// The secret-name mask the document was loaded with, and what it masked
    /// (`load::mask::apply`).
    pub masking: super::mask::Masking,
    /// Every resource change and deferred change, grouped by module (root first, then by module
    /// path), in the plan's order within a module.
    pub rows: Vec<ResourceRow>,
    /// Module paths as Terraform writes them; index 0 is the root module, written "".
    pub modules: Vec<String>,
    /// Distinct resource types, sorted.
    pub resource_types: Vec<String>,
    /// Distinct providers, shortened (`hashicorp/aws`), sorted.
    pub providers: Vec<String>,
}

impl std::fmt::Debug for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Document")
            .field("name", &self.name)
            .field("rows", &self.rows.len())
            .finish()
    }
}

/// A plan parsed but not yet indexed ([`Document::parse_only`]): the page parses a large plan's
/// index in one task and indexes its rows in the next, so neither holds the page for long.
pub struct Parsed(Document);

impl Parsed {
    /// The document, its rows indexed.
    pub fn index(mut self) -> Document {
        self.0.index();
        self.0
    }
}

impl Document {
    /// Parses `text` as a plan and indexes it. On a parse error, gives the text back with the error
    /// so the caller can explain it.
    pub fn parse(text: String, name: String) -> Result<Document, (String, serde_json::Error)> {
        Document::parse_only(text, name).map(Parsed::index)
    }

    /// [`Document::parse`] without indexing the rows yet.
    pub fn parse_only(text: String, name: String) -> Result<Parsed, (String, serde_json::Error)> {
        let cell = PlanCell::try_new_or_recover(text, |text| serde_json::from_str::<Plan>(text))?;
        let doc = Document {
            cell,
            name,
            warnings: Vec::new(),
            notes: Vec::new(),
            source: Source::Plan,
            original: None,
            redacted: None,
            masking: Default::default(),
            rows: Vec::new(),
            modules: Vec::new(),
            resource_types: Vec::new(),
            providers: Vec::new(),
        };
        Ok(Parsed(doc))
    }

    /// The same document over a new text (the loader's masking pass writes marks into it): parsed
    /// and indexed again, everything else kept. The user's text stays the [`Document::source_text`].
    /// On a parse error the document is given back unchanged.
    pub fn with_text(mut self, text: String) -> Result<Document, Box<Document>> {
        let cell = match PlanCell::try_new(text, |text| serde_json::from_str::<Plan>(text)) {
            Ok(cell) => cell,
            Err(_) => return Err(Box::new(self)),
        };
        let old = std::mem::replace(&mut self.cell, cell);
        if self.original.is_none() {
            self.original = Some(old.into_owner());
        }
        self.index();
        Ok(self)
    }

    /// The typed plan.
    pub fn plan(&self) -> &Plan<'_> {
        self.cell.borrow_dependent()
    }

    /// The file's text.
    pub fn text(&self) -> &str {
        self.cell.borrow_owner()
    }

    /// The text as the user gave it (to keep for a reload, or to share).
    pub fn source_text(&self) -> &str {
        self.original.as_deref().unwrap_or(self.text())
    }

    /// True when the document has attribute values to show: not for plan logs, which carry none,
    /// nor for redacted links, which left them out.
    pub fn has_values(&self) -> bool {
        !self.values_dropped() && self.source.has_values()
    }

    /// True for a redacted link's document: its values were left out for good. (A session's
    /// values-free index has values: the session gives them out on request.)
    pub fn values_dropped(&self) -> bool {
        self.redacted
            .as_ref()
            .is_some_and(|r| r.carrier == super::redaction::Carrier::Link)
    }

    /// True when values are not in this document but held by the session that opened the plan.
    pub fn values_in_session(&self) -> bool {
        self.redacted
            .as_ref()
            .is_some_and(|r| r.carrier == super::redaction::Carrier::Session)
    }

    /// Why the document has no attribute values to show, when it has none.
    pub fn missing_values(&self) -> Option<&'static str> {
        if self.values_dropped() {
            Some(
                "Values were redacted: this link carries addresses, actions and findings only. \
                 Ask for the full link, or open the plan file, to see the diff.",
            )
        } else if !self.source.has_values() {
            Some(
                "A plan log names the action but carries no attribute values: open \
                 `terraform show -json` of the saved plan for the diff.",
            )
        } else {
            None
        }
    }

    /// Names of root module variables whose values are never shown, put in a rule message, or
    /// shared: those the configuration declares `sensitive = true`, and those named like secrets
    /// ([`super::mask::Mask`]).
    pub fn sensitive_variables(&self) -> HashSet<String> {
        #[derive(Deserialize)]
        struct Configuration {
            #[serde(default)]
            root_module: RootModule,
        }
        #[derive(Deserialize, Default)]
        struct RootModule {
            #[serde(default)]
            variables: BTreeMap<String, VariableConfig>,
        }
        #[derive(Deserialize)]
        struct VariableConfig {
            #[serde(default)]
            sensitive: bool,
        }
        let mut names: HashSet<String> = self
            .plan()
            .configuration
            .and_then(|c| serde_json::from_str::<Configuration>(c.get()).ok())
            .map(|c| {
                c.root_module
                    .variables
                    .into_iter()
                    .filter(|(_, v)| v.sensitive)
                    .map(|(k, _)| k)
                    .collect()
            })
            .unwrap_or_default();
        let mask = &self.masking.mask;
        names.extend(
            self.plan()
                .variables
                .keys()
                .filter(|name| mask.matches(name))
                .map(|name| name.to_string()),
        );
        names
    }

    /// The change a row shows.
    pub fn change(&self, row: &ResourceRow) -> &ResourceChange<'_> {
        let plan = self.plan();
        match row.source {
            RowSource::Planned(i) => &plan.resource_changes[i as usize],
            RowSource::Deferred(i) => &plan.deferred_changes[i as usize].resource_change,
            RowSource::Drift(i) => &plan.resource_drift[i as usize],
        }
    }

    /// The row's values as the plan leaves them: `(before, after)` of its planned change. A
    /// drift-only row has no planned change; the object stays as refresh found it, so both sides
    /// are the drift's `after` (`None` for an object deleted outside Terraform).
    pub fn values(&self, row: &ResourceRow) -> (Option<&RawValue>, Option<&RawValue>) {
        let change = &self.change(row).change;
        match row.source {
            RowSource::Drift(_) => (change.after, change.after),
            _ => (change.before, change.after),
        }
    }

    /// The sensitivity mirrors matching [`Document::values`].
    pub fn sensitivity(&self, row: &ResourceRow) -> (Option<&RawValue>, Option<&RawValue>) {
        let change = &self.change(row).change;
        match row.source {
            RowSource::Drift(_) => (change.after_sensitive, change.after_sensitive),
            _ => (change.before_sensitive, change.after_sensitive),
        }
    }

    /// The module path of a row ("" for the root module).
    pub fn module_of(&self, row: &ResourceRow) -> &str {
        &self.modules[row.module as usize]
    }

    /// The index of the row for `address`, if the plan has one.
    pub fn find_row(&self, address: &str) -> Option<usize> {
        self.rows
            .iter()
            .position(|r| self.change(r).address == address)
    }

    fn index(&mut self) {
        let plan = self.cell.borrow_dependent();
        // Terraform 1.0.0 wrote drift entries without `address` (and without instance keys): those
        // match every instance of the resource.
        let mut drifted: FxHashSet<Cow<str>> = FxHashSet::default();
        let mut drifted_resources: FxHashSet<Cow<str>> = FxHashSet::default();
        // Decided once per entry: the check may parse both values.
        let unchanged: Vec<bool> = plan.resource_drift.iter().map(is_unchanged_drift).collect();
        for (_, d) in plan
            .resource_drift
            .iter()
            .enumerate()
            .filter(|(i, _)| !unchanged[*i])
        {
            if d.address.is_empty() {
                drifted_resources.insert(drift_address(d));
            } else {
                drifted.insert(Cow::Borrowed(&*d.address));
            }
        }
        let planned: FxHashSet<&str> = plan.resource_changes.iter().map(|c| &*c.address).collect();
        let is_drifted = |c: &ResourceChange| {
            drifted.contains(&*c.address)
                || (!drifted_resources.is_empty()
                    && Address::parse(&c.address)
                        .is_ok_and(|a| drifted_resources.contains(a.resource_path().as_str())))
        };
        // Drifted resources the plan does nothing to get rows of their own. (An address-less 1.0.0
        // entry without a planned instance has no address to show; the drift view lists it.)
        let drift_only = plan.resource_drift.iter().enumerate().filter(|(i, d)| {
            !d.address.is_empty() && !planned.contains(&*d.address) && !unchanged[*i]
        });

        let changes = plan
            .resource_changes
            .iter()
            .enumerate()
            .map(|(i, c)| (RowSource::Planned(i as u32), c))
            .chain(
                plan.deferred_changes
                    .iter()
                    .enumerate()
                    .map(|(i, d)| (RowSource::Deferred(i as u32), &d.resource_change)),
            )
            .chain(drift_only.map(|(i, d)| (RowSource::Drift(i as u32), d)));

        let module_of = |c: &ResourceChange| -> String {
            match &c.module_address {
                Some(m) => m.to_string(),
                // Old formats may omit module_address; the address says it too.
                None if c.address.starts_with("module.") => Address::parse(&c.address)
                    .map(|a| a.module_path())
                    .unwrap_or_default(),
                None => String::new(),
            }
        };

        let mut module_names: BTreeSet<String> = BTreeSet::new();
        let mut type_names: BTreeSet<&str> = BTreeSet::new();
        let mut provider_names: BTreeSet<&str> = BTreeSet::new();
        let mut staged =
            Vec::with_capacity(plan.resource_changes.len() + plan.deferred_changes.len());
        for (source, c) in changes {
            let module = module_of(c);
            // Rows come grouped by module (the plan is sorted by address): most are the last one's.
            if staged
                .last()
                .is_none_or(|(_, _, last): &(_, _, String)| *last != module)
            {
                module_names.insert(module.clone());
            }
            type_names.insert(&c.resource_type);
            provider_names.insert(short_provider(&c.provider_name));
            staged.push((source, c, module));
        }

        // Root first ("" sorts first), then module paths in order.
        module_names.insert(String::new());
        let modules: Vec<String> = module_names.into_iter().collect();
        let module_ix: FxHashMap<&str, u32> = modules
            .iter()
            .enumerate()
            .map(|(i, m)| (m.as_str(), i as u32))
            .collect();
        let types: Vec<String> = type_names.iter().map(|s| s.to_string()).collect();
        let type_ix: FxHashMap<&str, u32> = type_names
            .iter()
            .enumerate()
            .map(|(i, t)| (*t, i as u32))
            .collect();
        let providers: Vec<String> = provider_names.iter().map(|s| s.to_string()).collect();
        let provider_ix: FxHashMap<&str, u32> = provider_names
            .iter()
            .enumerate()
            .map(|(i, p)| (*p, i as u32))
            .collect();

        let mut rows: Vec<ResourceRow> = staged
            .iter()
            .map(|(source, c, module)| ResourceRow {
                source: *source,
                action: match source {
                    RowSource::Drift(_) => Action::NoOp,
                    _ => c.change.actions,
                },
                module: module_ix[module.as_str()],
                resource_type: type_ix[&*c.resource_type],
                provider: provider_ix[short_provider(&c.provider_name)],
                is_data: c.mode == Mode::Data,
                is_move: c.is_move(),
                is_import: c.change.importing.is_some(),
                is_drifted: matches!(source, RowSource::Drift(_)) || is_drifted(c),
            })
            .collect();
        // Stable: keeps the plan's own order (sorted by address) within each module.
        crate::sort::by_key(&mut rows, |r| r.module);

        self.rows = rows;
        self.modules = modules;
        self.resource_types = types;
        self.providers = providers;
    }
}

/// True for a drift entry whose values did not change, or changed only between `null` and an
/// empty value ([`same_ignoring_empty`]): such entries are not drift. Terraform 1.0.0 listed every
/// refreshed resource in `resource_drift` (1.0.1 stopped), providers write `[]`, `{}` or `""`
/// for what the state holds as `null`, and a resource a `moved` block renamed is listed as a
/// `no-op` with its `previous_address` and the same values on both sides (the move is the plan's,
/// not a change made outside Terraform).
pub fn is_unchanged_drift(d: &ResourceChange) -> bool {
    if !matches!(d.change.actions, Action::Update | Action::NoOp) {
        return false;
    }
    match (d.change.before, d.change.after) {
        (Some(b), Some(a)) => {
            b.get() == a.get()
                || match (
                    serde_json::from_str::<serde_json::Value>(b.get()),
                    serde_json::from_str::<serde_json::Value>(a.get()),
                ) {
                    (Ok(b), Ok(a)) => same_ignoring_empty(&b, &a),
                    _ => false,
                }
        }
        // No values (a plan log): nothing says it did not change.
        _ => false,
    }
}

/// True when two values are equal once `null`, `[]`, `{}` and `""` count as one "not set", at any
/// depth (an absent object key is `null`). Terraform does not report such differences: it
/// normalises a legacy provider's null or empty nested blocks to empty collections
/// (`objchange.NormalizeObjectFromLegacySDK`) and renders its empty strings as null.
pub fn same_ignoring_empty(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    fn is_empty(v: &Value) -> bool {
        match v {
            Value::Null => true,
            Value::String(s) => s.is_empty(),
            Value::Array(a) => a.is_empty(),
            Value::Object(o) => o.is_empty(),
            _ => false,
        }
    }
    if a == b || (is_empty(a) && is_empty(b)) {
        return true;
    }
    match (a, b) {
        // A string holding JSON (a policy document) that only was reformatted: Terraform's diff
        // says "# whitespace changes" and providers suppress it; not a difference.
        (Value::String(x), Value::String(y)) => same_json_text(x, y),
        (Value::Object(x), Value::Object(y)) => {
            x.iter()
                .all(|(k, v)| same_ignoring_empty(v, y.get(k).unwrap_or(&Value::Null)))
                && y.iter()
                    .all(|(k, v)| x.contains_key(k) || same_ignoring_empty(&Value::Null, v))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same_ignoring_empty(v, w))
        }
        _ => false,
    }
}

/// True when two strings both hold a JSON object or array and are equal as JSON (key order and
/// whitespace aside).
fn same_json_text(a: &str, b: &str) -> bool {
    let holds_json = |s: &str| s.trim_start().starts_with(['{', '[']);
    if !holds_json(a) || !holds_json(b) {
        return false;
    }
    match (
        serde_json::from_str::<serde_json::Value>(a),
        serde_json::from_str::<serde_json::Value>(b),
    ) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// The address of a drift entry; for Terraform 1.0.0's entries without one, the resource address
/// (no instance key) made from module, mode, type and name.
pub fn drift_address<'c>(d: &'c ResourceChange) -> Cow<'c, str> {
    if !d.address.is_empty() {
        return Cow::Borrowed(&d.address);
    }
    let mut s = String::new();
    if let Some(m) = d.module_address.as_deref().filter(|m| !m.is_empty()) {
        s.push_str(m);
        s.push('.');
    }
    if d.mode == Mode::Data {
        s.push_str("data.");
    }
    s.push_str(&d.resource_type);
    s.push('.');
    s.push_str(&d.name);
    Cow::Owned(s)
}

/// `registry.terraform.io/hashicorp/aws` → `hashicorp/aws`; other registries keep their host.
pub fn short_provider(name: &str) -> &str {
    name.strip_prefix("registry.terraform.io/")
        .or_else(|| name.strip_prefix("registry.opentofu.org/"))
        .unwrap_or(name)
}
