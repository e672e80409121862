//! Bytes → text: what is undone before a file is read as JSON.
//!
//! Real files arrive gzip-compressed (a CI artifact `plan.json.gz`), as UTF-16 (PowerShell's `>`
//! writes it), with a byte order mark, or between the lines GitHub's `hashicorp/setup-terraform`
//! wrapper writes around Terraform's output. [`decode`] undoes each of these and says what it did,
//! and every input goes through it: a chosen or dropped file, a `?url=` download, pasted text, a
//! reload, a link. It never changes a byte of the JSON itself.
//!
//! Inflating gzip stops at `MAX_FILE_BYTES` of output. UTF-16 little- and big-endian and byte order
//! marks are undone. The wrapper's lines are GitHub Actions' `[command]…` and `::debug::…` lines
//! around the output; `ci_log::workflow_command` is the one check for the latter.

mod ci_log;

use std::io::Read;

pub use ci_log::CiCleaning;
pub(crate) use ci_log::{clean_ci_line, workflow_command};

use super::error::megabytes;
use super::{LoadError, MAX_FILE_BYTES};

/// Text ready to be read as JSON, and what was done to get it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The text. When wrapper lines were removed before the JSON, each became an empty line, so
    /// line numbers in messages still match the file.
    pub text: String,
    /// One sentence per step taken, for the user ("Decompressed gzip (1.2 MB → 9.8 MB).").
    pub notes: Vec<String>,
}

/// Turns a file's bytes into text: decompresses gzip (refusing more than [`MAX_FILE_BYTES`] of
/// output, and stopping there), decodes UTF-16 (with a byte order mark, or recognised by the NUL
/// byte of every ASCII character), drops a UTF-8 byte order mark, and removes the GitHub Actions
/// lines around the JSON. Text that needs none of this comes back as it was, with no notes.
pub fn decode(bytes: Vec<u8>) -> Result<Decoded, LoadError> {
    decode_within(bytes, MAX_FILE_BYTES)
}

fn decode_within(bytes: Vec<u8>, limit: usize) -> Result<Decoded, LoadError> {
    let mut notes = Vec::new();
    let bytes = if bytes.starts_with(&GZIP_MAGIC) {
        let inflated = gunzip(&bytes, limit)?;
        notes.push(format!(
            "Decompressed gzip ({} → {}).",
            size(bytes.len()),
            size(inflated.len())
        ));
        // The compressed copy is not needed while the text is read.
        drop(bytes);
        inflated
    } else {
        bytes
    };
    let text = to_text(bytes, &mut notes)?;
    let text = strip_workflow_lines(text, &mut notes)?;
    Ok(Decoded { text, notes })
}

/// The first two bytes of every gzip member (RFC 1952). Valid UTF-8 text never starts with them
/// (0x8b is a continuation byte), so text is never mistaken for gzip.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Inflates every member of a gzip file, reading at most `limit + 1` bytes of output so that a
/// small file that inflates to gigabytes is refused after `limit` bytes, not after all of them.
fn gunzip(bytes: &[u8], limit: usize) -> Result<Vec<u8>, LoadError> {
    // The trailer's ISIZE (size mod 2^32 of the last member) is only a hint; deflate cannot
    // expand more than ~1032:1, which bounds what a forged trailer can make us reserve.
    let claimed = bytes
        .len()
        .checked_sub(4)
        .map(|at| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]))
        .map_or(0, |n| n as usize);
    let capacity = claimed.min(limit).min(bytes.len().saturating_mul(1032));
    let mut out = Vec::with_capacity(capacity);
    flate2::read::MultiGzDecoder::new(bytes)
        .take(limit as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| LoadError::BadGzip {
            message: e.to_string(),
        })?;
    if out.len() > limit {
        return Err(LoadError::GzipTooLarge {
            compressed: bytes.len(),
            limit,
        });
    }
    Ok(out)
}

/// Byte order of UTF-16 text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ByteOrder {
    Little,
    Big,
}

impl ByteOrder {
    fn name(self) -> &'static str {
        match self {
            ByteOrder::Little => "UTF-16 LE",
            ByteOrder::Big => "UTF-16 BE",
        }
    }
}

/// Bytes → a `String`: UTF-16 is decoded, a UTF-8 byte order mark dropped, anything else must be
/// UTF-8.
fn to_text(mut bytes: Vec<u8>, notes: &mut Vec<String>) -> Result<String, LoadError> {
    let utf16 = if bytes.starts_with(&[0xFF, 0xFE]) {
        Some((ByteOrder::Little, 2))
    } else if bytes.starts_with(&[0xFE, 0xFF]) {
        Some((ByteOrder::Big, 2))
    } else {
        utf16_without_bom(&bytes).map(|order| (order, 0))
    };
    if let Some((order, bom)) = utf16 {
        let text = from_utf16(&bytes[bom..], order)?;
        notes.push(if bom > 0 {
            format!(
                "Decoded {} text (PowerShell's `>` writes UTF-16).",
                order.name()
            )
        } else {
            format!(
                "Decoded {} text: it has no byte order mark, but every other byte is NUL.",
                order.name()
            )
        });
        return Ok(text);
    }
    if bytes.starts_with(UTF8_BOM) {
        // In place: no second copy of a large file.
        bytes.drain(..UTF8_BOM.len());
    }
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let (line, column) = line_col(&e.as_bytes()[..offset]);
        LoadError::NotUtf8 { line, column }
    })
}

const UTF8_BOM: &[u8] = &[0xEF, 0xBB, 0xBF];

/// UTF-16 without a byte order mark, recognised only where that is certain: the text starts
/// (after whitespace) with `{` or `[` and its first characters are all ASCII, so every other byte
/// is NUL. UTF-8 JSON never holds a NUL byte (JSON escapes control characters), so such bytes
/// cannot be UTF-8 JSON.
fn utf16_without_bom(bytes: &[u8]) -> Option<ByteOrder> {
    const UNITS: usize = 32;
    let head = &bytes[..bytes.len().min(UNITS * 2)];
    if head.len() < 4 {
        return None;
    }
    let units = head.chunks_exact(2);
    let ascii = |b: u8| b != 0 && b.is_ascii();
    let order = if units.clone().all(|u| ascii(u[0]) && u[1] == 0) {
        ByteOrder::Little
    } else if units.clone().all(|u| u[0] == 0 && ascii(u[1])) {
        ByteOrder::Big
    } else {
        return None;
    };
    let first = head
        .chunks_exact(2)
        .map(|u| {
            if order == ByteOrder::Little {
                u[0]
            } else {
                u[1]
            }
        })
        .find(|b| !b.is_ascii_whitespace());
    matches!(first, Some(b'{' | b'[')).then_some(order)
}

fn from_utf16(bytes: &[u8], order: ByteOrder) -> Result<String, LoadError> {
    if !bytes.len().is_multiple_of(2) {
        return Err(LoadError::Utf16);
    }
    let units = bytes.chunks_exact(2).map(|u| match order {
        ByteOrder::Little => u16::from_le_bytes([u[0], u[1]]),
        ByteOrder::Big => u16::from_be_bytes([u[0], u[1]]),
    });
    // ASCII halves in size; reserve for that and let the rest grow.
    let mut text = String::with_capacity(bytes.len() / 2);
    for c in char::decode_utf16(units) {
        text.push(c.map_err(|_| LoadError::Utf16)?);
    }
    // A byte order mark written twice, or one the BOM check above could not see (no-BOM path).
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}

/// What one removed line was, for the note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Noise<'a> {
    /// `[command]/path/terraform-bin show -json plan.out`: `@actions/exec` echoing the command.
    Command,
    /// `::debug::…`, `::set-output name=stdout::…`, … : a GitHub Actions workflow command, by
    /// name, and whether it had properties (`name=stdout`).
    Workflow(&'a str, bool),
}

impl Noise<'_> {
    fn of(line: &str) -> Option<Noise<'_>> {
        let line = line.trim_end();
        if line.starts_with("[command]") {
            return Some(Noise::Command);
        }
        let (name, properties) = workflow_command(line)?;
        Some(Noise::Workflow(name, properties))
    }

    fn label(self) -> String {
        match self {
            Noise::Command => "`[command]…`".to_string(),
            Noise::Workflow(name, false) => format!("`::{name}::`"),
            Noise::Workflow(name, true) => format!("`::{name} …::`"),
        }
    }
}

/// Removes the lines GitHub Actions tools write before and after a command's output: the
/// `[command]…` echo of `@actions/exec` and workflow commands (`::debug::`, `::set-output …::`,
/// `::group::`, …) that `@actions/core` prints, as GitHub's setup-terraform wrapper does around
/// `terraform show -json` and `terraform plan -json` (see `hashicorp/setup-terraform`,
/// `wrapper/terraform.js`). Only whole lines before the first and after the last line of
/// Terraform's output go: no JSON text starts with `[command]` or `::`, so nothing that is JSON
/// is ever removed. The escaped copy of the output in `::set-output name=stdout::…` goes with its
/// line.
fn strip_workflow_lines(mut text: String, notes: &mut Vec<String>) -> Result<String, LoadError> {
    // Cheap refusal for the usual case: neither end can hold wrapper lines.
    let starts = text.trim_start().starts_with("[command]") || text.trim_start().starts_with("::");
    let ends = text
        .trim_end()
        .rsplit('\n')
        .next()
        .is_some_and(|l| l.trim_start().starts_with("::"));
    if !starts && !ends {
        return Ok(text);
    }

    let mut before: Vec<Noise> = Vec::new();
    let mut start = 0;
    let mut newlines_before = 0;
    for line in text.split_inclusive('\n') {
        if line.trim().is_empty() {
        } else if let Some(noise) = Noise::of(line) {
            before.push(noise);
        } else {
            break;
        }
        start += line.len();
        newlines_before += usize::from(line.ends_with('\n'));
    }
    if start == text.len() {
        return if before.is_empty() {
            Ok(text)
        } else {
            Err(LoadError::OnlyWrapperLines {
                exit_code: exit_code(&text),
            })
        };
    }

    let mut after: Vec<Noise> = Vec::new();
    let mut end = text.len();
    loop {
        let body = &text[start..end];
        let body = body.strip_suffix('\n').unwrap_or(body);
        let line_start = body.rfind('\n').map_or(0, |i| i + 1);
        let line = &body[line_start..];
        if line.trim().is_empty() {
        } else if let Some(noise) = Noise::of(line) {
            after.push(noise);
        } else {
            break;
        }
        // The leading loop stopped at a line of output, so this never passes `start`.
        end = start + line_start;
    }
    if before.is_empty() && after.is_empty() {
        return Ok(text);
    }
    after.reverse();

    let wrapper = before.contains(&Noise::Command);
    let note = note(&before, &after, wrapper);
    text.truncate(end);
    // Removed lines before the JSON become empty lines, so a JSON error's line number is the
    // file's.
    text.replace_range(..start, &"\n".repeat(newlines_before));
    notes.push(note);
    Ok(text)
}

fn note(before: &[Noise], after: &[Noise], wrapper: bool) -> String {
    let lines = |n: usize| format!("{n} line{}", if n == 1 { "" } else { "s" });
    let kinds = |noise: &[Noise]| {
        let mut labels: Vec<String> = Vec::new();
        for n in noise {
            let label = n.label();
            if !labels.contains(&label) {
                labels.push(label);
            }
        }
        labels.join(", ")
    };
    let mut parts = Vec::new();
    if !before.is_empty() {
        parts.push(format!(
            "{} before the JSON ({})",
            lines(before.len()),
            kinds(before)
        ));
    }
    if !after.is_empty() {
        parts.push(format!(
            "{} after it ({})",
            lines(after.len()),
            kinds(after)
        ));
    }
    let who = if wrapper {
        "written by GitHub's setup-terraform wrapper (`terraform_wrapper: false` turns it off)"
    } else {
        "GitHub Actions workflow commands"
    };
    format!(
        "Removed {}: {who}. The JSON itself is unchanged.",
        parts.join(" and ")
    )
}

/// The exit code the wrapper reported (`::debug::exitcode: 1`, `::set-output name=exitcode::1`).
fn exit_code(text: &str) -> Option<i32> {
    text.lines().find_map(|l| {
        let l = l.trim();
        l.strip_prefix("::debug::exitcode:")
            .or_else(|| l.strip_prefix("::set-output name=exitcode::"))
            .and_then(|n| n.trim().parse().ok())
    })
}

/// "812 bytes", "3.4 KB", "12 MB".
fn size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} bytes")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    } else {
        megabytes(bytes)
    }
}

/// 1-based line and column of the end of `bytes`.
pub(super) fn line_col(bytes: &[u8]) -> (usize, usize) {
    let line = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    (line, bytes.len() - line_start + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(text: &str, order: ByteOrder, bom: bool) -> Vec<u8> {
        let mut out = Vec::new();
        let units = bom.then_some(0xFEFF).into_iter().chain(text.encode_utf16());
        for u in units {
            out.extend(match order {
                ByteOrder::Little => u.to_le_bytes(),
                ByteOrder::Big => u.to_be_bytes(),
            });
        }
        out
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    const JSON: &str = "{\"format_version\": \"1.2\", \"note\": \"naïve ключ 🙂\"}\n";

    #[test]
    fn plain_utf8_comes_back_unchanged_without_notes() {
        let d = decode(JSON.as_bytes().to_vec()).unwrap();
        assert_eq!(d.text, JSON);
        assert!(d.notes.is_empty());
    }

    #[test]
    fn utf16_with_and_without_bom_and_utf8_bom() {
        for order in [ByteOrder::Little, ByteOrder::Big] {
            for bom in [true, false] {
                let d = decode(utf16(JSON, order, bom)).unwrap();
                assert_eq!(d.text, JSON, "{order:?} bom={bom}");
                assert_eq!(d.notes.len(), 1);
                assert!(d.notes[0].contains(order.name()), "{:?}", d.notes);
            }
        }
        let mut bytes = UTF8_BOM.to_vec();
        bytes.extend(JSON.as_bytes());
        let d = decode(bytes).unwrap();
        assert_eq!(d.text, JSON);
        assert!(d.notes.is_empty());
    }

    #[test]
    fn broken_utf16_is_refused() {
        let mut odd = utf16(JSON, ByteOrder::Little, true);
        odd.push(b'x');
        assert_eq!(decode(odd).unwrap_err(), LoadError::Utf16);
        // An unpaired high surrogate.
        let mut lone = utf16("{\"a\": \"", ByteOrder::Little, true);
        lone.extend(0xD800u16.to_le_bytes());
        lone.extend(utf16("\"}", ByteOrder::Little, false));
        assert_eq!(decode(lone).unwrap_err(), LoadError::Utf16);
    }

    #[test]
    fn nul_bytes_that_are_not_utf16_json_are_not_decoded_as_utf16() {
        // Starts with a letter, not `{`: left alone (and then refused as not JSON by the loader).
        let bytes = utf16("hello world", ByteOrder::Little, false);
        assert_eq!(
            decode(bytes).unwrap().text,
            "h\0e\0l\0l\0o\0 \0w\0o\0r\0l\0d\0"
        );
    }

    #[test]
    fn gzip_is_decompressed_with_a_note_and_capped() {
        let d = decode(gzip(JSON.as_bytes())).unwrap();
        assert_eq!(d.text, JSON);
        assert_eq!(d.notes.len(), 1);
        assert!(
            d.notes[0].starts_with("Decompressed gzip ("),
            "{:?}",
            d.notes
        );
        // Exactly at the limit opens; one byte over is refused.
        let at = JSON.len();
        assert!(decode_within(gzip(JSON.as_bytes()), at).is_ok());
        assert_eq!(
            decode_within(gzip(JSON.as_bytes()), at - 1).unwrap_err(),
            LoadError::GzipTooLarge {
                compressed: gzip(JSON.as_bytes()).len(),
                limit: at - 1
            }
        );
    }

    #[test]
    fn gzip_of_utf16_is_both_decompressed_and_decoded() {
        let d = decode(gzip(&utf16(JSON, ByteOrder::Little, true))).unwrap();
        assert_eq!(d.text, JSON);
        assert_eq!(d.notes.len(), 2, "{:?}", d.notes);
    }

    #[test]
    fn concatenated_gzip_members_are_one_file() {
        let (a, b) = JSON.split_at(10);
        let mut bytes = gzip(a.as_bytes());
        bytes.extend(gzip(b.as_bytes()));
        assert_eq!(decode(bytes).unwrap().text, JSON);
    }

    #[test]
    fn damaged_gzip_is_refused_with_a_message() {
        let mut bytes = gzip(JSON.as_bytes());
        let n = bytes.len();
        bytes.truncate(n - 6);
        assert!(matches!(
            decode(bytes).unwrap_err(),
            LoadError::BadGzip { .. }
        ));
        let mut bytes = gzip(JSON.as_bytes());
        bytes[n - 8] ^= 0xFF; // the CRC-32
        assert!(matches!(
            decode(bytes).unwrap_err(),
            LoadError::BadGzip { .. }
        ));
    }

    const WRAPPED: &str = "[command]/home/runner/work/_temp/2f1c/terraform-bin show -json plan.out\n\
         {\"format_version\":\"1.2\"}\n\
         ::debug::Terraform exited with code 0.\n\
         ::debug::stdout: {\"format_version\":\"1.2\"}%0A\n\
         ::debug::stderr: \n\
         ::debug::exitcode: 0\n\
         \n\
         ::set-output name=stdout::{\"format_version\":\"1.2\"}%0A\n\
         \n\
         ::set-output name=stderr::\n\
         \n\
         ::set-output name=exitcode::0\n";

    #[test]
    fn wrapper_lines_are_removed_and_named() {
        let d = decode(WRAPPED.as_bytes().to_vec()).unwrap();
        assert_eq!(d.text, "\n{\"format_version\":\"1.2\"}\n");
        assert_eq!(
            d.notes,
            [
                "Removed 1 line before the JSON (`[command]…`) and 7 lines after it (`::debug::`, \
              `::set-output …::`): written by GitHub's setup-terraform wrapper \
              (`terraform_wrapper: false` turns it off). The JSON itself is unchanged."
            ]
        );
        // Windows line ends, and a log of several lines.
        let crlf = "[command]C:\\a\\terraform-bin.exe plan -json\r\n{\"@level\":\"info\"}\r\n{\"@level\":\"info\"}\r\n::debug::exitcode: 0\r\n";
        let d = decode(crlf.as_bytes().to_vec()).unwrap();
        assert_eq!(
            d.text,
            "\n{\"@level\":\"info\"}\r\n{\"@level\":\"info\"}\r\n"
        );
    }

    #[test]
    fn only_workflow_commands_are_named_as_such() {
        let d = decode(b"{\"a\":1}\n::debug::done\n".to_vec()).unwrap();
        assert_eq!(d.text, "{\"a\":1}\n");
        assert_eq!(
            d.notes,
            [
                "Removed 1 line after it (`::debug::`): GitHub Actions workflow commands. The JSON \
              itself is unchanged."
            ]
        );
    }

    #[test]
    fn lines_that_only_look_like_commands_are_kept() {
        for text in [
            "{\"a\":1}\n:: not a command\n",
            "{\"a\":1}\n::no end\n",
            "{\"a\":\n\"::debug::x\"}\n",
            "{\"a\":1}::debug::glued\n",
        ] {
            let d = decode(text.as_bytes().to_vec()).unwrap();
            assert_eq!(d.text, text);
            assert!(d.notes.is_empty());
        }
    }

    #[test]
    fn a_file_of_wrapper_lines_only_says_so() {
        let text = "[command]/tmp/terraform-bin show -json plan.out\n::debug::Terraform exited with code 1.\n::debug::stdout: \n::debug::stderr: Error: no plan%0A\n::debug::exitcode: 1\n";
        assert_eq!(
            decode(text.as_bytes().to_vec()).unwrap_err(),
            LoadError::OnlyWrapperLines { exit_code: Some(1) }
        );
    }
}
