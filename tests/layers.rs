//! The layers of `src/`, read from its imports: `sort` (a utility) → `model` → `load` → the
//! analyses → `analysis` → `share` → the shells. A file may use a module of its own layer or a
//! lower layer, never a higher one, and no two files of `src/` (the browser shell's included) use
//! each other in a cycle.
//!
//! Imports are read from the source text: `crate::…`, `super::…` and `self::…` paths (also inside
//! `{…}` groups) and a parent's `child::…` paths; a path through a `pub use` re-export counts as a
//! use of the file the item is defined in. Test modules and comments are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each top-level module's layer: a module may use only lower layers (and itself).
const LAYERS: [(&str, u32); 17] = [
    // A utility below everything: it uses no module of `src/`.
    ("sort", 0),
    ("model", 1),
    ("load", 2),
    ("diff", 3),
    ("list", 3),
    ("checks", 3),
    ("graph", 3),
    ("drift", 3),
    ("fleet", 3),
    ("outputs", 4),
    ("rules", 4),
    ("policy", 4),
    ("analysis", 5),
    ("share", 6),
    ("session", 7),
    ("ui", 8),
    ("worker", 8),
];

type Module = Vec<String>;

struct Source {
    text: String,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/load/mod.rs` → `["load"]`, `src/model/plan.rs` → `["model", "plan"]`, `src/lib.rs` → `[]`.
fn module_of(path: &Path, src: &Path) -> Module {
    let rel = path.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The text without `//` comments, without a trailing `#[cfg(test)] mod tests`, and without the
/// paths of `pub(in …)` visibilities (they name where an item may be used, not a use).
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    let mut code = text
        .lines()
        .map(|line| match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n");
    while let Some(at) = code.find("pub(in ") {
        let end = code[at..].find(')').map_or(code.len(), |e| at + e + 1);
        code.replace_range(at..end, "pub");
    }
    code
}

/// The text with each `use` statement on one line: rustfmt breaks a long `use a::{…}` group over
/// several lines, and the statements are read line by line.
fn joined_uses(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_use = false;
    for line in text.lines() {
        let t = line.trim_start();
        let starts = ["use ", "pub use ", "pub(crate) use "]
            .iter()
            .any(|p| t.starts_with(p));
        if in_use {
            out.push(' ');
            out.push_str(line.trim());
        } else {
            out.push('\n');
            out.push_str(line);
        }
        in_use = (in_use || starts) && !line.trim_end().ends_with(';');
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every `a::b::c` path in `text` starting with one of `roots`, with `{…}` groups expanded.
fn paths(text: &str, roots: &BTreeSet<String>) -> Vec<Vec<String>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts =
            is_ident(chars[i]) && (i == 0 || !(is_ident(chars[i - 1]) || chars[i - 1] == ':'));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() && is_ident(chars[j]) {
            j += 1;
        }
        let first: String = chars[i..j].iter().collect();
        if !roots.contains(&first) || !text_at(&chars, j, "::") {
            i = j;
            continue;
        }
        let (prefixes, end) = path_at(&chars, i);
        out.extend(prefixes);
        i = end.max(j);
    }
    out
}

fn text_at(chars: &[char], at: usize, s: &str) -> bool {
    s.chars()
        .enumerate()
        .all(|(k, c)| chars.get(at + k) == Some(&c))
}

/// The paths of the use tree starting at `at` (`a::b::{c, d::e}` → `a::b::c`, `a::b::d::e`).
fn path_at(chars: &[char], mut at: usize) -> (Vec<Vec<String>>, usize) {
    let mut segs = Vec::new();
    loop {
        let start = at;
        while at < chars.len() && is_ident(chars[at]) {
            at += 1;
        }
        if at > start {
            segs.push(chars[start..at].iter().collect::<String>());
        }
        if text_at(chars, at, "::") {
            at += 2;
            if chars.get(at) == Some(&'{') {
                at += 1;
                let mut all = Vec::new();
                loop {
                    while chars
                        .get(at)
                        .is_some_and(|c| c.is_whitespace() || *c == ',')
                    {
                        at += 1;
                    }
                    if at >= chars.len() || chars[at] == '}' {
                        break;
                    }
                    let before = at;
                    let (inner, end) = path_at(chars, at);
                    all.extend(inner.into_iter().map(|p| [segs.clone(), p].concat()));
                    at = end;
                    // Skip `as name` and anything else up to the next item.
                    while at < chars.len() && !matches!(chars[at], ',' | '}') {
                        at += 1;
                    }
                    if at == before {
                        at += 1;
                    }
                }
                return (all, at + 1);
            }
            continue;
        }
        return (vec![segs], at);
    }
}

struct Tree {
    files: BTreeMap<Module, Source>,
    /// Per module: names it re-exports (`pub use x::y::Name`) → the path they come from.
    reexports: BTreeMap<Module, BTreeMap<String, Vec<String>>>,
}

impl Tree {
    fn read(src: &Path) -> Tree {
        let mut found = Vec::new();
        rust_files(src, &mut found);
        let mut files = BTreeMap::new();
        for path in found {
            let rel = path.strip_prefix(src).expect("under src");
            // The shells' entry points are not modules of the library.
            if rel.starts_with("bin") || rel == Path::new("main.rs") {
                continue;
            }
            let text = code(&std::fs::read_to_string(&path).expect("readable"));
            files.insert(module_of(&path, src), Source { text });
        }
        let mut reexports = BTreeMap::new();
        for (module, source) in &files {
            let mut names = BTreeMap::new();
            for line in source.text.split(';') {
                let Some(rest) = line.trim().strip_prefix("pub use ") else {
                    continue;
                };
                let roots: BTreeSet<String> = rest
                    .split("::")
                    .next()
                    .map(|r| r.trim().to_string())
                    .into_iter()
                    .collect();
                for p in paths(rest, &roots) {
                    if let Some(name) = p.last() {
                        names.insert(name.clone(), p[..p.len() - 1].to_vec());
                    }
                }
            }
            reexports.insert(module.clone(), names);
        }
        Tree { files, reexports }
    }

    /// The file an absolute path (`["model", "plan", "Plan"]`) is defined in, following re-exports.
    fn resolve(&self, segs: &[String], depth: u32) -> Option<Module> {
        let n = (0..=segs.len())
            .rev()
            .find(|&n| self.files.contains_key(&segs[..n]))?;
        let module = segs[..n].to_vec();
        if let (Some(name), true) = (segs.get(n), depth < 8)
            && let Some(from) = self.reexports.get(&module).and_then(|r| r.get(name))
        {
            let target = self.absolute(&module, from);
            let full = [target, segs[n..].to_vec()].concat();
            if let Some(found) = self.resolve(&full, depth + 1) {
                return Some(found);
            }
        }
        Some(module)
    }

    /// A path as written in `module`'s file → an absolute one.
    fn absolute(&self, module: &Module, path: &[String]) -> Vec<String> {
        let Some((first, rest)) = path.split_first() else {
            return Vec::new();
        };
        // `super` and a child's name start from the module itself, for `mod.rs`/`lib.rs` and
        // leaf files alike (a leaf file's children would be in a folder of its name).
        let mut base = module.clone();
        let mut rest = rest;
        match first.as_str() {
            "crate" => base.clear(),
            "self" => {}
            "super" => {
                base.pop();
                while let Some(("super", more)) = rest.split_first().map(|(a, b)| (a.as_str(), b)) {
                    base.pop();
                    rest = more;
                }
            }
            _ => return [base, path.to_vec()].concat(),
        }
        [base, rest.to_vec()].concat()
    }

    /// The files each file uses, with the path that says so.
    fn edges(&self) -> BTreeMap<Module, BTreeMap<Module, String>> {
        let mut edges: BTreeMap<Module, BTreeMap<Module, String>> = BTreeMap::new();
        for (module, source) in &self.files {
            let children: BTreeSet<String> = source
                .text
                .lines()
                .filter_map(|l| {
                    let l = l.trim();
                    let l = l
                        .strip_prefix("pub ")
                        .or_else(|| l.strip_prefix("pub(crate) "))
                        .unwrap_or(l);
                    let name = l.strip_prefix("mod ")?.strip_suffix(';')?;
                    Some(name.trim().to_string())
                })
                .collect();
            let mut roots: BTreeSet<String> = ["crate", "super", "self"]
                .map(String::from)
                .into_iter()
                .collect();
            roots.extend(children.iter().cloned());
            for statement in joined_uses(&source.text).split(['\n', ';']) {
                // A parent's re-export of a child's item is not a use of it.
                let reexport = statement.trim().starts_with("pub use ");
                for p in paths(statement, &roots) {
                    if reexport && children.contains(&p[0]) {
                        continue;
                    }
                    let abs = self.absolute(module, &p);
                    if let Some(target) = self.resolve(&abs, 0)
                        && target != *module
                    {
                        edges
                            .entry(module.clone())
                            .or_default()
                            .entry(target)
                            .or_insert_with(|| p.join("::"));
                    }
                }
            }
        }
        edges
    }
}

fn layer(module: &Module) -> Option<u32> {
    let top = module.first()?;
    LAYERS.iter().find(|(name, _)| name == top).map(|(_, l)| *l)
}

fn name(module: &Module) -> String {
    if module.is_empty() {
        "lib".to_string()
    } else {
        module.join("/")
    }
}

/// Strongly connected groups of more than one file (Tarjan).
fn cycles(
    edges: &BTreeMap<Module, BTreeMap<Module, String>>,
    nodes: &[Module],
) -> Vec<Vec<Module>> {
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeMap<Module, String>>,
        index: BTreeMap<Module, usize>,
        low: BTreeMap<Module, usize>,
        stack: Vec<Module>,
        on_stack: BTreeSet<Module>,
        next: usize,
        found: Vec<Vec<Module>>,
    }
    fn visit(s: &mut State<'_>, v: &Module) {
        s.index.insert(v.clone(), s.next);
        s.low.insert(v.clone(), s.next);
        s.next += 1;
        s.stack.push(v.clone());
        s.on_stack.insert(v.clone());
        let targets: Vec<Module> = s
            .edges
            .get(v)
            .map(|e| e.keys().cloned().collect())
            .unwrap_or_default();
        for w in targets {
            if !s.index.contains_key(&w) {
                visit(s, &w);
                let low = s.low[v].min(s.low[&w]);
                s.low.insert(v.clone(), low);
            } else if s.on_stack.contains(&w) {
                let low = s.low[v].min(s.index[&w]);
                s.low.insert(v.clone(), low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(&w);
                let done = w == *v;
                group.push(w);
                if done {
                    break;
                }
            }
            if group.len() > 1 {
                s.found.push(group);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for n in nodes {
        if !s.index.contains_key(n) {
            visit(&mut s, n);
        }
    }
    s.found
}

fn src_tree() -> Tree {
    Tree::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

#[test]
fn every_module_of_the_core_has_a_layer() {
    let tree = src_tree();
    let tops: BTreeSet<&String> = tree.files.keys().filter_map(|m| m.first()).collect();
    for top in tops {
        assert!(
            LAYERS.iter().any(|(name, _)| name == top),
            "src/{top} has no layer in tests/layers.rs: say where it belongs"
        );
    }
}

#[test]
fn no_file_uses_a_higher_layer() {
    let tree = src_tree();
    let mut upward = Vec::new();
    for (from, targets) in tree.edges() {
        for (to, path) in targets {
            let (Some(a), Some(b)) = (layer(&from), layer(&to)) else {
                continue;
            };
            if from.first() != to.first() && b >= a {
                upward.push(format!("src/{} uses {} ({path})", name(&from), name(&to)));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports against the layers:\n{}",
        upward.join("\n")
    );
}

#[test]
fn no_import_cycle_among_the_files_of_src() {
    let tree = src_tree();
    let edges = tree.edges();
    let nodes: Vec<Module> = tree.files.keys().cloned().collect();
    let found: Vec<String> = cycles(&edges, &nodes)
        .into_iter()
        .map(|group| {
            let members: BTreeSet<&Module> = group.iter().collect();
            let mut lines = vec![format!(
                "cycle: {}",
                group.iter().map(name).collect::<Vec<_>>().join(", ")
            )];
            for m in &group {
                for (to, path) in edges.get(m).into_iter().flatten() {
                    if members.contains(to) {
                        lines.push(format!("  src/{} uses {} ({path})", name(m), name(to)));
                    }
                }
            }
            lines.join("\n")
        })
        .collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The checker itself: it must see the kinds of imports the layers are made of.
#[test]
fn the_checker_sees_use_groups_re_exports_and_super() {
    let roots: BTreeSet<String> = ["crate", "super"].map(String::from).into_iter().collect();
    assert_eq!(
        paths("use crate::model::{Action, plan::Plan as P};", &roots),
        vec![
            vec!["crate", "model", "Action"],
            vec!["crate", "model", "plan", "Plan"],
        ]
    );
    // rustfmt's multi-line groups are one statement.
    let joined = joined_uses("use crate::model::{\n    Action,\n    plan::Plan,\n};\nfn f() {}");
    let statement = joined
        .split(['\n', ';'])
        .find(|s| s.contains("use "))
        .unwrap();
    assert_eq!(paths(statement, &roots).len(), 2, "{joined}");
    let tree = src_tree();
    let edges = tree.edges();
    let uses = |from: &[&str], to: &[&str]| {
        let from: Module = from.iter().map(|s| s.to_string()).collect();
        let to: Module = to.iter().map(|s| s.to_string()).collect();
        edges.get(&from).is_some_and(|e| e.contains_key(&to))
    };
    // `use super::LoadError` in load/redacted.rs reaches load/error.rs through load's re-export.
    assert!(uses(&["load", "redacted"], &["load", "error"]));
    // share/redacted.rs writes what model/redaction.rs defines.
    assert!(uses(&["share", "redacted"], &["model", "redaction"]));
    // The drift analysis reads documents.
    assert!(uses(&["drift"], &["model", "document"]));
}
