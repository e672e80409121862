//! Archives of plans (zip, tar, tar.gz), unpacked in memory into their files' paths and bytes, for
//! a set of plans opened together (`set::expand`).
//!
//! What an archive is comes from its content, never its name: a zip starts with a local file
//! header (`PK\x03\x04`), a tar has `ustar` at offset 257, a tar.gz is gzip whose first 512
//! inflated bytes are such a tar header. Directories, macOS's `__MACOSX/` and `._*` AppleDouble
//! files and `.terraform/` folders are left out without a word.
//!
//! Never writes anything anywhere, and never holds more than [`MAX_UNPACKED`] of entries or reads
//! more than [`MAX_ENTRIES`] of them, whatever the headers say: an entry's declared size is
//! checked before it is read, and it is read with one byte more than what is left, so a header
//! that lies cannot make it hold more. Passing a limit is a [`LoadError::ArchiveTooLarge`] that
//! says which limit and the figures; nothing of the archive is opened then. Never unpacks an
//! archive found inside another: `set::expand` decides that (one level at most).

use std::io::{Cursor, Read};

use crate::LoadError;
use crate::error::ArchiveLimit;

/// The most entries one archive may have (files, directories and links alike).
pub const MAX_ENTRIES: usize = 2_000;

/// The most bytes all archives opened together may unpack to (512 MiB).
pub const MAX_UNPACKED: u64 = 512 * 1024 * 1024;

/// What kind of archive some bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A zip archive.
    Zip,
    /// A tar archive (POSIX ustar or GNU).
    Tar,
    /// A gzip-compressed tar archive (`.tar.gz`, `.tgz`).
    TarGz,
}

impl Kind {
    /// The extensions an archive of this kind is usually saved under, longest first.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Kind::Zip => &[".zip"],
            Kind::Tar => &[".tar"],
            Kind::TarGz => &[".tar.gz", ".tgz"],
        }
    }
}

/// The first bytes of a zip archive that holds at least one entry.
const ZIP_MAGIC: [u8; 4] = *b"PK\x03\x04";
/// The first bytes of a gzip member.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// Where a ustar header says `ustar`.
const USTAR_AT: usize = 257;

/// The kind of archive `bytes` are, when they are one.
pub fn kind(bytes: &[u8]) -> Option<Kind> {
    if bytes.starts_with(&ZIP_MAGIC) {
        Some(Kind::Zip)
    } else if is_tar_header(bytes) {
        Some(Kind::Tar)
    } else if bytes.starts_with(&GZIP_MAGIC) {
        let mut head = Vec::with_capacity(512);
        // Only the first header is inflated; a damaged stream is simply not a tar.gz here.
        let _ = flate2::read::MultiGzDecoder::new(bytes)
            .take(512)
            .read_to_end(&mut head);
        is_tar_header(&head).then_some(Kind::TarGz)
    } else {
        None
    }
}

fn is_tar_header(bytes: &[u8]) -> bool {
    bytes.len() >= 512 && bytes[USTAR_AT..].starts_with(b"ustar")
}

/// One file of an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its path in the archive, with `/` between parts and no `./`.
    pub path: String,
    /// Its bytes, as stored (a `.gz` inside stays compressed).
    pub bytes: Vec<u8>,
}

/// What is left to unpack of the archives opened together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Bytes that may still be unpacked.
    pub left: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { left: MAX_UNPACKED }
    }
}

/// The files of the archive `bytes` (named `name`, for messages), in path order, within a budget of
/// its own ([`MAX_UNPACKED`]). Bytes that are not an archive give no entries.
pub fn unpack(bytes: &[u8], name: &str) -> Result<Vec<Entry>, LoadError> {
    unpack_within(bytes, name, &mut Budget::default())
}

/// The files of the archive `bytes`, in path order, taking what they unpack to from `budget`
/// (shared by the archives opened together). Bytes that are not an archive give no entries.
pub fn unpack_within(
    bytes: &[u8],
    name: &str,
    budget: &mut Budget,
) -> Result<Vec<Entry>, LoadError> {
    let mut entries = match kind(bytes) {
        Some(Kind::Zip) => unzip(bytes, name, budget)?,
        Some(Kind::Tar) => untar(bytes, bytes.len() as u64, name, budget)?,
        Some(Kind::TarGz) => {
            // The inflated stream is capped too: a tar's headers and padding cost up to three
            // blocks an entry, and a long name or extended header read into memory is bounded.
            let cap = budget.left + (MAX_ENTRIES as u64 + 1) * 3 * 512 + 1024 * 1024;
            let inflated = Capped {
                inner: flate2::read::MultiGzDecoder::new(bytes),
                left: cap,
            };
            untar(inflated, bytes.len() as u64, name, budget)?
        }
        None => Vec::new(),
    };
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(entries)
}

/// A path with `/` between parts, without empty parts and `.`; `None` for what is left out:
/// `__MACOSX/`, `._*` AppleDouble files, anything under `.terraform/`.
fn clean_path(raw: &str) -> Option<String> {
    let parts: Vec<&str> = raw
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let (file, dirs) = parts.split_last()?;
    if file.starts_with("._") || dirs.iter().any(|d| *d == "__MACOSX" || *d == ".terraform") {
        return None;
    }
    Some(parts.join("/"))
}

/// The error for an entry of `size` bytes (declared, or read when `lied`) with `budget` left.
fn too_large(
    name: &str,
    entry: &str,
    size: u64,
    lied: bool,
    left: u64,
    compressed: u64,
) -> LoadError {
    LoadError::ArchiveTooLarge {
        archive: name.to_string(),
        limit: ArchiveLimit::Bytes {
            entry: entry.to_string(),
            size,
            lied,
            left,
            limit: MAX_UNPACKED,
            compressed,
        },
    }
}

fn too_many(name: &str, found: usize) -> LoadError {
    LoadError::ArchiveTooLarge {
        archive: name.to_string(),
        limit: ArchiveLimit::Entries {
            found,
            limit: MAX_ENTRIES,
        },
    }
}

fn damaged(name: &str, e: impl std::fmt::Display) -> LoadError {
    LoadError::BadArchive {
        archive: name.to_string(),
        message: e.to_string(),
    }
}

/// Reads one entry of `declared` bytes from `reader`, within the budget.
fn read_entry(
    reader: impl Read,
    declared: u64,
    name: &str,
    path: &str,
    compressed: u64,
    budget: &mut Budget,
) -> Result<Vec<u8>, LoadError> {
    if declared > budget.left {
        return Err(too_large(
            name,
            path,
            declared,
            false,
            budget.left,
            compressed,
        ));
    }
    // The header is only a claim: read one byte past what is left to see it lie.
    let mut bytes = Vec::with_capacity(declared as usize);
    reader
        .take(budget.left + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| damaged(name, format!("{path}: {e}")))?;
    let read = bytes.len() as u64;
    if read > budget.left {
        return Err(too_large(name, path, read, true, budget.left, compressed));
    }
    budget.left -= read;
    Ok(bytes)
}

fn unzip(bytes: &[u8], name: &str, budget: &mut Budget) -> Result<Vec<Entry>, LoadError> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| damaged(name, e))?;
    if zip.len() > MAX_ENTRIES {
        return Err(too_many(name, zip.len()));
    }
    let mut entries = Vec::new();
    for i in 0..zip.len() {
        let file = zip.by_index(i).map_err(|e| damaged(name, e))?;
        if file.is_dir() {
            continue;
        }
        let raw = file.name().map_err(|e| damaged(name, e))?.into_owned();
        let Some(path) = clean_path(&raw) else {
            continue;
        };
        let declared = file.size();
        let bytes = read_entry(file, declared, name, &path, bytes.len() as u64, budget)?;
        entries.push(Entry { path, bytes });
    }
    Ok(entries)
}

fn untar(
    reader: impl Read,
    compressed: u64,
    name: &str,
    budget: &mut Budget,
) -> Result<Vec<Entry>, LoadError> {
    let mut archive = tar::Archive::new(reader);
    let mut entries = Vec::new();
    let mut seen = 0;
    for entry in archive.entries().map_err(|e| damaged(name, e))? {
        let entry = entry.map_err(|e| over_cap_or_damaged(name, e, compressed, budget))?;
        seen += 1;
        if seen > MAX_ENTRIES {
            return Err(too_many(name, seen));
        }
        let path = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        // Skipping an entry still reads (and, in a tar.gz, inflates) its data: it counts too.
        let declared = entry.header().entry_size().map_err(|e| damaged(name, e))?;
        let keep = entry.header().entry_type().is_file();
        let Some(path) = clean_path(&path).filter(|_| keep) else {
            if declared > budget.left {
                return Err(too_large(
                    name,
                    &path,
                    declared,
                    false,
                    budget.left,
                    compressed,
                ));
            }
            budget.left -= declared;
            continue;
        };
        let bytes = read_entry(entry, declared, name, &path, compressed, budget)?;
        entries.push(Entry { path, bytes });
    }
    Ok(entries)
}

/// A tar read error: the capped tar.gz stream running out is its size, not damage.
fn over_cap_or_damaged(
    name: &str,
    e: std::io::Error,
    compressed: u64,
    budget: &Budget,
) -> LoadError {
    if e.kind() == std::io::ErrorKind::FileTooLarge {
        too_large(
            name,
            "(its headers)",
            budget.left + 1,
            true,
            budget.left,
            compressed,
        )
    } else {
        damaged(name, e)
    }
}

/// A reader that fails with `FileTooLarge` after `left` bytes, where `take` would end quietly.
struct Capped<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            // Reaching the end is fine; being asked for more is not.
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => Err(std::io::Error::new(
                    std::io::ErrorKind::FileTooLarge,
                    "the archive unpacks to more than Planlens reads",
                )),
            };
        }
        let want = buf.len().min(self.left.min(usize::MAX as u64) as usize);
        let n = self.inner.read(&mut buf[..want])?;
        self.left -= n as u64;
        Ok(n)
    }
}
