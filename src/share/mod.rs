//! What leaves Planlens for other people to read: share-link payloads and the Markdown summary
//! for a PR comment.

pub mod link;
pub mod markdown;
