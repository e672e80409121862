//! The payload of a share link: bytes → version byte + zlib → URL-safe base64, and back. Links
//! are an input like any file, so the format lives here; `share` calls [`encode`] to write one.
//!
//! The text travels in the URL fragment, which browsers never send to a server. The first byte
//! says how the rest is encoded, so links made today still open after the format changes. zlib's
//! Adler-32 checksum catches a link that was cut or edited; decoding stops at
//! [`MAX_DECODED_BYTES`], so a small link cannot expand into gigabytes (a decompression bomb).
//!
//! Version 1 is zlib at level 9. `MAX_DECODED_BYTES` is 64 MiB. A damaged payload (Adler-32) or one
//! of an unknown version is refused with a message.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use miniz_oxide::inflate::TINFLStatus;

/// Version 1: the payload is UTF-8 text compressed with zlib at level 9.
pub const VERSION_ZLIB: u8 = 1;

/// The most a link may decode to. Far above what fits in any URL a browser accepts (a few MB of
/// link text expands to at most tens of MB of plan), far below what would hurt the tab.
pub const MAX_DECODED_BYTES: usize = 64 * 1024 * 1024;

/// Why a link's payload could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkError {
    /// Nothing after the key.
    Empty,
    /// A character that is not URL-safe base64, at this 0-based position.
    NotBase64 {
        /// Where in the payload.
        position: usize,
    },
    /// A version this build does not know (made by a newer Planlens?).
    UnknownVersion(u8),
    /// The compressed data is damaged: cut short or edited.
    Damaged,
    /// It would decode to more than [`MAX_DECODED_BYTES`].
    TooLarge,
    /// It decoded, but not to UTF-8 text.
    NotText,
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::Empty => write!(
                f,
                "The link carries no plan: it ends where the plan should start."
            ),
            LinkError::NotBase64 { position } => write!(
                f,
                "The link is damaged: character {} of its plan is not one a Planlens link uses. \
                 Was it changed or wrapped when it was pasted?",
                position + 1
            ),
            LinkError::UnknownVersion(v) => write!(
                f,
                "The link was made by a newer Planlens (link format {v}); this one reads format \
                 {VERSION_ZLIB}. Open it with the newer version."
            ),
            LinkError::Damaged => write!(
                f,
                "The link is damaged: its plan does not decompress (the link was probably cut \
                 short or edited). Ask for the link again."
            ),
            LinkError::TooLarge => write!(
                f,
                "The link's plan would be larger than {} MB once decompressed; Planlens does not \
                 open it.",
                MAX_DECODED_BYTES / (1024 * 1024)
            ),
            LinkError::NotText => write!(f, "The link is damaged: its plan is not text."),
        }
    }
}

impl std::error::Error for LinkError {}

/// Encodes text as a link payload: version byte, zlib, URL-safe base64 without padding.
pub fn encode(text: &str) -> String {
    let mut bytes = vec![VERSION_ZLIB];
    bytes.extend(miniz_oxide::deflate::compress_to_vec_zlib(
        text.as_bytes(),
        9,
    ));
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Decodes a link payload made by [`encode`] (this or an earlier version).
pub fn decode(payload: &str) -> Result<String, LinkError> {
    let payload = payload.trim();
    if payload.is_empty() {
        return Err(LinkError::Empty);
    }
    if let Some(position) = payload
        .bytes()
        .position(|b| !(b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
    {
        return Err(LinkError::NotBase64 { position });
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(payload)
        // Only a bad length is left (one stray character at the end): the link was cut.
        .map_err(|_| LinkError::Damaged)?;
    let (&version, body) = bytes.split_first().ok_or(LinkError::Empty)?;
    match version {
        VERSION_ZLIB => {
            let text =
                miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(body, MAX_DECODED_BYTES)
                    .map_err(|e| match e.status {
                        TINFLStatus::HasMoreOutput => LinkError::TooLarge,
                        _ => LinkError::Damaged,
                    })?;
            String::from_utf8(text).map_err(|_| LinkError::NotText)
        }
        other => Err(LinkError::UnknownVersion(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_and_compresses() {
        let text = r#"{"format_version":"1.2","resource_changes":[]}"#.repeat(200);
        let link = encode(&text);
        assert!(
            link.len() < text.len() / 10,
            "{} vs {}",
            link.len(),
            text.len()
        );
        assert!(
            link.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
        assert_eq!(decode(&link).unwrap(), text);
    }

    #[test]
    fn damaged_links_are_refused_plainly() {
        let link = encode("{\"format_version\":\"1.2\"}");
        assert_eq!(decode(""), Err(LinkError::Empty));
        assert_eq!(decode("ab c"), Err(LinkError::NotBase64 { position: 2 }));
        // Cut short, or one character changed: the checksum or the stream says so.
        assert_eq!(decode(&link[..link.len() - 3]), Err(LinkError::Damaged));
        let mut edited = link.clone().into_bytes();
        let i = edited.len() - 4;
        edited[i] = if edited[i] == b'A' { b'B' } else { b'A' };
        assert_eq!(
            decode(std::str::from_utf8(&edited).unwrap()),
            Err(LinkError::Damaged)
        );
        // A version from the future.
        let future = URL_SAFE_NO_PAD.encode([9u8, 1, 2, 3]);
        assert_eq!(decode(&future), Err(LinkError::UnknownVersion(9)));
        assert!(
            LinkError::UnknownVersion(9)
                .to_string()
                .contains("newer Planlens")
        );
    }

    #[test]
    fn a_decompression_bomb_stops_at_the_limit() {
        // 65 MB of zeros compress to about 64 KB of link.
        let zeros = vec![0u8; MAX_DECODED_BYTES + 1024 * 1024];
        let mut bytes = vec![VERSION_ZLIB];
        bytes.extend(miniz_oxide::deflate::compress_to_vec_zlib(&zeros, 9));
        let link = URL_SAFE_NO_PAD.encode(bytes);
        assert!(link.len() < 200_000);
        assert_eq!(decode(&link), Err(LinkError::TooLarge));
    }

    #[test]
    fn binary_that_is_not_text_is_refused() {
        let mut bytes = vec![VERSION_ZLIB];
        bytes.extend(miniz_oxide::deflate::compress_to_vec_zlib(
            &[0xff, 0xfe, 0x00],
            9,
        ));
        assert_eq!(
            decode(&URL_SAFE_NO_PAD.encode(bytes)),
            Err(LinkError::NotText)
        );
    }
}
