//! How the graph looks, shared by the canvas in the browser and the SVG export: colours per action
//! and the legend. Every action also has its own symbol and border, so nothing depends on colour.

use crate::model::{Action, ReplaceOrder};

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

/// The style of a node for an action.
pub fn node_style(action: Action) -> NodeStyle {
    let (fill, stroke, border, dash): (_, _, _, &'static [f32]) = match action {
        Action::Create => ("#e3f6e8", "#1e7b34", 1.5, &[]),
        Action::Update => ("#fff3d1", "#9a6700", 1.5, &[]),
        Action::Replace(ReplaceOrder::DeleteThenCreate) => ("#fde2e1", "#b42318", 3.0, &[]),
        Action::Replace(_) => ("#fde8d7", "#b42318", 3.0, &[6.0, 3.0]),
        Action::Delete => ("#fbd5d2", "#b42318", 3.0, &[]),
        Action::Forget => ("#f3e5f5", "#7b1fa2", 3.0, &[2.0, 2.0]),
        Action::Read => ("#e6f0ff", "#1f5fbf", 1.5, &[2.0, 2.0]),
        Action::NoOp => ("#f4f5f7", "#8892a0", 1.0, &[]),
    };
    NodeStyle {
        fill,
        stroke,
        border,
        dash,
    }
}

/// Fill of a badge segment keyed like [`super::view::ActionMix::segments`].
pub fn segment_fill(key: &str) -> &'static str {
    match key {
        "create" => "#1e7b34",
        "update" => "#9a6700",
        "replace" | "delete" => "#b42318",
        "forget" => "#7b1fa2",
        "read" => "#1f5fbf",
        _ => "#8892a0",
    }
}

/// Colours for highlights and structure.
pub mod colour {
    /// Flag of a resource a deny rule flags.
    pub const FINDING_DENY: &str = "#b42318";
    /// Flag of a resource a warn rule flags.
    pub const FINDING_WARN: &str = "#b54708";
    /// Edges.
    pub const EDGE: &str = "#9aa4b2";
    /// Edges on the highlighted blast radius.
    pub const EDGE_HOT: &str = "#d92d20";
    /// Ring around nodes in the blast radius.
    pub const BLAST: &str = "#f04438";
    /// Ring around nodes a selection depends on.
    pub const UPSTREAM: &str = "#2e90fa";
    /// Ring around the selected node.
    pub const SELECTED: &str = "#101828";
    /// Module cluster fill and border.
    pub const CLUSTER_FILL: &str = "rgba(99, 112, 140, 0.06)";
    /// Module cluster border.
    pub const CLUSTER_STROKE: &str = "#b9c0cc";
    /// Text.
    pub const TEXT: &str = "#101828";
    /// Faded text of context-only nodes.
    pub const TEXT_FADED: &str = "#667085";
    /// Ring around search matches.
    pub const MATCH: &str = "#f79009";
    /// Drifted mark.
    pub const DRIFT: &str = "#c11574";
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
