//! How the graph looks, shared by the canvas in the browser and the SVG export: a palette per
//! theme, node styles per action, highlight rings and the legend.
//!
//! One colour per meaning: red is a destructive change (delete, replace), and only that; a rule's
//! finding is a magenta flag; the blast radius of a selection is teal, what it depends on indigo,
//! search matches an amber halo, the selection itself a ring in the text colour; what changed
//! since the last plan reviewed is a blue badge on the box's other corner. Each also reads
//! without colour: actions by symbol and border (thick, dashed, dotted), findings by a flag with
//! the word `deny` or `warn` (filled or outlined), marks since the last plan by a badge with the
//! word `new`, `action` or `values`, highlights by the ring's dash.
//!
//! Two themes, light and dark (`Palette::of`); highlights are `Lit` states drawn as `Ring`s. The
//! SVG export always uses the light palette.

use planlens_model::since::SinceMark;
use planlens_model::{Action, ReplaceOrder};

/// Fill, border colour and border width of a node box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeStyle {
    /// Background.
    pub fill: &'static str,
    /// Border and symbol colour.
    pub stroke: &'static str,
    /// Border width in px: destructive changes are drawn thick.
    pub border: f32,
    /// Border dash pattern (px on, px off); empty for solid. Reads are dotted.
    pub dash: &'static [f32],
}

/// Light or dark: the page's colour scheme, which the canvas follows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Theme {
    /// Dark text on a light background.
    #[default]
    Light,
    /// Light text on a dark background.
    Dark,
}

/// What a ring around a node says. Each has its own colour and its own dash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lit {
    /// The selected resource: a solid ring in the text colour.
    Selected,
    /// Depends on the selection (or on a destructive change): its blast radius. Dashed, teal.
    Dependent,
    /// The selection depends on it. Dash-dot, indigo.
    Dependency,
    /// Matches the search: a wide amber halo.
    Match,
}

impl Lit {
    /// What the legend says the ring means.
    pub fn meaning(self) -> &'static str {
        match self {
            Lit::Selected => "selected",
            Lit::Dependent => "depends on the selection",
            Lit::Dependency => "the selection depends on it",
            Lit::Match => "matches the search",
        }
    }

    /// A key for class names and tests: `selected`, `dependent`, `dependency`, `match`.
    pub fn key(self) -> &'static str {
        match self {
            Lit::Selected => "selected",
            Lit::Dependent => "dependent",
            Lit::Dependency => "dependency",
            Lit::Match => "match",
        }
    }
}

/// Every ring, in the legend's order.
pub const LIT: [Lit; 4] = [Lit::Selected, Lit::Dependent, Lit::Dependency, Lit::Match];

/// How a ring is drawn around a node box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ring {
    /// Stroke colour.
    pub colour: &'static str,
    /// Stroke width in px.
    pub width: f32,
    /// Dash pattern (px on, px off); empty for solid.
    pub dash: &'static [f32],
    /// Gap between the box and the ring, in px.
    pub gap: f32,
    /// Opacity of the stroke (the search halo is translucent, like a highlighter).
    pub alpha: f32,
}

/// The colours of one theme. Node borders, widths and dashes are the same in every theme.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Palette {
    /// Canvas background.
    pub background: &'static str,
    /// Labels.
    pub text: &'static str,
    /// Cluster titles and faded text.
    pub text_faded: &'static str,
    /// Text on a filled badge or flag.
    pub on_fill: &'static str,
    /// Edges.
    pub edge: &'static str,
    /// Module cluster fill.
    pub cluster_fill: &'static str,
    /// Module cluster border.
    pub cluster_stroke: &'static str,
    /// Fill of a collapsed module's box.
    pub module_fill: &'static str,
    /// Border of a collapsed module's box with nothing destructive inside.
    pub module_stroke: &'static str,
    /// Per action group: fill and stroke of create, update, destructive (delete and
    /// destroy-then-create), create-then-destroy replace, forget, read, no-op.
    actions: [(&'static str, &'static str); 7],
    /// The selection's ring and the minimap's viewport.
    pub selected: &'static str,
    /// The blast radius: rings and lit edges of what depends on the selection.
    pub dependent: &'static str,
    /// Rings and lit edges of what the selection depends on.
    pub dependency: &'static str,
    /// The search halo.
    pub matched: &'static str,
    /// A rule's finding: the flag on a node.
    pub finding: &'static str,
    /// What changed since the last plan reviewed: the badge on a node.
    pub since: &'static str,
}

impl Palette {
    /// Light theme; also what the SVG export always uses.
    pub const LIGHT: Palette = Palette {
        background: "#ffffff",
        text: "#101828",
        text_faded: "#667085",
        on_fill: "#ffffff",
        edge: "#9aa4b2",
        cluster_fill: "rgba(99, 112, 140, 0.06)",
        cluster_stroke: "#b9c0cc",
        module_fill: "#eef1f6",
        module_stroke: "#475467",
        actions: [
            ("#e3f6e8", "#1e7b34"),
            ("#fff3d1", "#9a6700"),
            ("#fde2e1", "#b42318"),
            ("#fde8d7", "#b42318"),
            ("#f3e5f5", "#7b1fa2"),
            ("#e6f0ff", "#1f5fbf"),
            ("#f4f5f7", "#8892a0"),
        ],
        selected: "#101828",
        dependent: "#0f766e",
        dependency: "#4f46e5",
        matched: "#f59e0b",
        finding: "#a21caf",
        since: "#0369a1",
    };

    /// Dark theme.
    pub const DARK: Palette = Palette {
        background: "#151a22",
        text: "#e6e9ef",
        text_faded: "#9aa4b5",
        on_fill: "#151a22",
        edge: "#5d6778",
        cluster_fill: "rgba(160, 174, 200, 0.07)",
        cluster_stroke: "#3b4453",
        module_fill: "#222a36",
        module_stroke: "#9aa4b5",
        actions: [
            ("#123222", "#4cc46a"),
            ("#33290f", "#e3b341"),
            ("#3f1715", "#ff7b72"),
            ("#3f2012", "#ff7b72"),
            ("#2e1836", "#c58af9"),
            ("#132840", "#79b8ff"),
            ("#1f2530", "#7d8696"),
        ],
        selected: "#f5f7fa",
        dependent: "#2dd4bf",
        dependency: "#a5b4fc",
        matched: "#fbbf24",
        finding: "#f0abfc",
        since: "#7dd3fc",
    };

    /// The palette of a theme.
    pub fn of(theme: Theme) -> &'static Palette {
        match theme {
            Theme::Light => &Palette::LIGHT,
            Theme::Dark => &Palette::DARK,
        }
    }

    /// The style of a node for an action.
    pub fn node(&self, action: Action) -> NodeStyle {
        let (group, border, dash): (usize, f32, &'static [f32]) = match action {
            Action::Create => (0, 1.5, &[]),
            Action::Update => (1, 1.5, &[]),
            Action::Replace(ReplaceOrder::DeleteThenCreate) => (2, 3.0, &[]),
            Action::Replace(_) => (3, 3.0, &[6.0, 3.0]),
            Action::Delete => (2, 3.0, &[]),
            Action::Forget => (4, 3.0, &[2.0, 2.0]),
            Action::Read => (5, 1.5, &[2.0, 2.0]),
            Action::NoOp => (6, 1.0, &[]),
        };
        let (fill, stroke) = self.actions[group];
        NodeStyle {
            fill,
            stroke,
            border,
            dash,
        }
    }

    /// Fill of a badge segment keyed like [`super::view::ActionMix::segments`].
    pub fn segment(&self, key: &str) -> &'static str {
        let group = match key {
            "create" => 0,
            "update" => 1,
            "replace" | "delete" => 2,
            "forget" => 4,
            "read" => 5,
            _ => 6,
        };
        self.actions[group].1
    }

    /// Border colour and width of a collapsed module's box: red and thick when something inside
    /// is destroyed, replaced or forgotten, like a destructive resource.
    pub fn module_border(&self, destructive: bool) -> (&'static str, f32) {
        if destructive {
            (self.actions[2].1, 3.0)
        } else {
            (self.module_stroke, 1.5)
        }
    }

    /// How a ring is drawn.
    pub fn ring(&self, lit: Lit) -> Ring {
        match lit {
            Lit::Selected => Ring {
                colour: self.selected,
                width: 3.0,
                dash: &[],
                gap: 4.0,
                alpha: 1.0,
            },
            Lit::Dependent => Ring {
                colour: self.dependent,
                width: 2.5,
                dash: &[7.0, 4.0],
                gap: 4.0,
                alpha: 1.0,
            },
            Lit::Dependency => Ring {
                colour: self.dependency,
                width: 2.5,
                dash: &[8.0, 3.0, 2.0, 3.0],
                gap: 4.0,
                alpha: 1.0,
            },
            Lit::Match => Ring {
                colour: self.matched,
                width: 6.0,
                dash: &[],
                gap: 5.0,
                alpha: 0.55,
            },
        }
    }

    /// How a finding's flag is drawn: fill, border and text colours. A deny flag is filled, a
    /// warn flag outlined; both say their severity in words.
    pub fn flag(&self, deny: bool) -> (&'static str, &'static str, &'static str) {
        if deny {
            (self.finding, self.finding, self.on_fill)
        } else {
            (self.background, self.finding, self.finding)
        }
    }
}

/// A node's badge for what changed since the last plan: its word (the canvas, the SVG and the
/// legend draw it) and its width in px at 10 px bold. Filled in [`Palette::since`], the word in
/// [`Palette::on_fill`].
pub fn since_badge(mark: SinceMark) -> (&'static str, f32) {
    let word = mark.key();
    (word, 10.0 + 6.5 * word.len() as f32)
}

/// The style of a node for an action, in the light palette.
pub fn node_style(action: Action) -> NodeStyle {
    Palette::LIGHT.node(action)
}

/// Fill of a badge segment in the light palette, keyed like
/// [`super::view::ActionMix::segments`].
pub fn segment_fill(key: &str) -> &'static str {
    Palette::LIGHT.segment(key)
}

/// The light palette's colours by name, for the SVG export (which always draws in the light
/// palette); [`Palette::LIGHT`] is where they are decided.
pub mod colour {
    use super::Palette;
    /// Edges.
    pub const EDGE: &str = Palette::LIGHT.edge;
    /// Edges on the highlighted blast radius.
    pub const EDGE_HOT: &str = Palette::LIGHT.dependent;
    /// Module cluster fill.
    pub const CLUSTER_FILL: &str = Palette::LIGHT.cluster_fill;
    /// Module cluster border.
    pub const CLUSTER_STROKE: &str = Palette::LIGHT.cluster_stroke;
    /// Text.
    pub const TEXT: &str = Palette::LIGHT.text;
    /// Faded text of context-only nodes.
    pub const TEXT_FADED: &str = Palette::LIGHT.text_faded;
}

/// The legend's entries: action, its symbol, its label.
pub fn legend() -> Vec<(Action, &'static str, &'static str)> {
    [
        Action::Create,
        Action::Update,
        Action::Replace(ReplaceOrder::DeleteThenCreate),
        Action::Replace(ReplaceOrder::CreateThenDelete),
        Action::Delete,
        Action::Forget,
        Action::Read,
        Action::NoOp,
    ]
    .into_iter()
    .map(|a| (a, a.symbol().trim(), a.label()))
    .collect()
}

/// Marks drawn after the action symbol, with what they mean, for the legend.
pub const MARKS: [(&str, &str); 3] = [("⇲", "imported"), ("→", "moved"), ("≈", "drifted")];

/// The text drawn before a node's label: the action symbol, and marks for import, move and drift.
pub fn node_prefix(action: Action, is_import: bool, is_move: bool, is_drifted: bool) -> String {
    let mut s = action.symbol().trim().to_string();
    if s.is_empty() {
        s.push('=');
    }
    if is_import {
        s.push_str(" ⇲");
    }
    if is_move {
        s.push_str(" →");
    }
    if is_drifted {
        s.push_str(" ≈");
    }
    s
}

/// The arrowhead at the dependent's end of an edge's polyline: left barb, tip, right barb.
pub fn arrow_head(line: &[(f32, f32)]) -> Option<[(f32, f32); 3]> {
    let [.., (x1, y1), (x2, y2)] = *line else {
        return None;
    };
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt().max(0.001);
    let (ux, uy) = (dx / len, dy / len);
    let (bx, by) = (x2 - ux * 8.0, y2 - uy * 8.0);
    Some([
        (bx - uy * 4.0, by + ux * 4.0),
        (x2, y2),
        (bx + uy * 4.0, by - ux * 4.0),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every colour a palette draws with, named by what it means.
    fn meanings(p: &Palette) -> Vec<(&'static str, &'static str)> {
        vec![
            ("destructive", p.node(Action::Delete).stroke),
            ("finding", p.finding),
            ("since", p.since),
            ("blast radius", p.ring(Lit::Dependent).colour),
            ("dependency", p.ring(Lit::Dependency).colour),
            ("search", p.ring(Lit::Match).colour),
            ("selection", p.ring(Lit::Selected).colour),
            ("create", p.node(Action::Create).stroke),
            ("update", p.node(Action::Update).stroke),
            ("forget", p.node(Action::Forget).stroke),
            ("read", p.node(Action::Read).stroke),
            ("no-op", p.node(Action::NoOp).stroke),
        ]
    }

    #[test]
    fn each_meaning_has_its_own_colour_in_both_themes() {
        for p in [&Palette::LIGHT, &Palette::DARK] {
            let m = meanings(p);
            for (i, (a, ca)) in m.iter().enumerate() {
                for (b, cb) in &m[i + 1..] {
                    assert_ne!(ca, cb, "{a} and {b} share a colour");
                }
            }
            // Red is destructive only: every destructive action has it, nothing else does.
            let red = p.node(Action::Delete).stroke;
            for action in [
                Action::Replace(ReplaceOrder::DeleteThenCreate),
                Action::Replace(ReplaceOrder::CreateThenDelete),
            ] {
                assert_eq!(p.node(action).stroke, red);
            }
            assert_eq!(p.module_border(true).0, red);
            assert_ne!(p.module_border(false).0, red);
        }
    }

    #[test]
    fn rings_differ_without_colour() {
        let p = &Palette::LIGHT;
        let looks: Vec<_> = LIT
            .iter()
            .map(|&l| {
                let r = p.ring(l);
                (r.dash.to_vec(), r.width.to_bits())
            })
            .collect();
        for (i, a) in looks.iter().enumerate() {
            for b in &looks[i + 1..] {
                assert_ne!(a, b);
            }
        }
        // A deny flag is filled, a warn flag is not.
        assert_ne!(p.flag(true).0, p.flag(false).0);
    }
}
