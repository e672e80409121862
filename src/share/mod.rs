//! What leaves Planlens for other people to read: the Markdown summary for a PR comment.

pub mod markdown;
