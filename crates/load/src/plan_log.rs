//! What the loader needs to know of `terraform plan -json` logs without reading one: whether a
//! text starts like one ([`looks_like_plan_log`]). The reading is `planlens_readers::plan_log`.

/// True when the text starts like a plan log: its first line is a UI message. Looks only at the
/// start of the first line, so a one-line plan of many megabytes costs nothing here.
pub fn looks_like_plan_log(text: &str) -> bool {
    let first = text.trim_start();
    let mut end = first.len().min(512);
    while !first.is_char_boundary(end) {
        end -= 1;
    }
    let head = &first[..end];
    head.starts_with('{') && (head.contains("\"@level\"") || head.contains("\"@message\""))
}
