//! How one resource changed since the plan last reviewed, as the list and the graph mark it. The
//! comparison that decides it is `planlens_changes::compare` (read by
//! `planlens_session::compare::JudgedComparison::marks`); this is only its answer per address, so
//! that the graph can draw it without knowing the session.

/// How one resource changed since the older plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SinceMark {
    /// Planned now, not then.
    New,
    /// Planned then with another action.
    ActionChanged,
    /// The same action, other planned values.
    ValuesChanged,
}

impl SinceMark {
    /// Every mark, in the legend's order.
    pub const ALL: [SinceMark; 3] = [
        SinceMark::New,
        SinceMark::ActionChanged,
        SinceMark::ValuesChanged,
    ];

    /// A key for class names and tests: `new`, `action`, `values`.
    pub fn key(self) -> &'static str {
        match self {
            SinceMark::New => "new",
            SinceMark::ActionChanged => "action",
            SinceMark::ValuesChanged => "values",
        }
    }

    /// What the mark says, after a resource's address.
    pub fn words(self) -> &'static str {
        match self {
            SinceMark::New => "new since the last plan",
            SinceMark::ActionChanged => "its action changed since the last plan",
            SinceMark::ValuesChanged => "its planned values changed since the last plan",
        }
    }
}
