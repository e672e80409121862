//! The typed plan: the JSON format's structs, addresses, actions and reasons, and the loaded
//! document that owns the file text they borrow from.

pub mod action;
pub mod address;
pub mod document;
pub mod drifted;
pub mod findings;
pub mod mask;
pub mod plan;
pub mod planning;
pub mod reason;
pub mod redaction;
pub mod since;
pub mod sort;
pub mod source;
pub mod summary;
pub mod text;

pub use action::{Action, ReplaceOrder};
pub use address::{Address, InstanceKey, ModuleStep};
pub use document::{Document, ResourceRow, RowSource};
pub use plan::{Mode, Plan, ResourceChange};
pub use source::Source;
