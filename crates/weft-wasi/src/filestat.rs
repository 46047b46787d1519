//! `filestat`: file types, metadata and timestamps as the guest sees them.

use crate::errno::{Errno, Result};
use crate::types::{filetype, fstflags, FILESTAT_SIZE};
use cap_std::fs::{FileType, FileTypeExt, Metadata, MetadataExt};
use std::time::{Duration, SystemTime};

/// The WASI file type of a host file type.
pub(crate) fn filetype_of(t: &FileType) -> u8 {
    if t.is_dir() {
        filetype::DIRECTORY
    } else if t.is_file() {
        filetype::REGULAR_FILE
    } else if t.is_symlink() {
        filetype::SYMBOLIC_LINK
    } else if t.is_block_device() {
        filetype::BLOCK_DEVICE
    } else if t.is_char_device() {
        filetype::CHARACTER_DEVICE
    } else if t.is_socket() {
        filetype::SOCKET_STREAM
    } else {
        filetype::UNKNOWN
    }
}

/// Nanoseconds since the epoch from seconds and nanoseconds (0 before it).
fn nanos(secs: i64, nsec: i64) -> u64 {
    if secs < 0 {
        return 0;
    }
    (secs as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(nsec.max(0) as u64)
}

/// The 64-byte `filestat` of `m`.
pub(crate) fn encode(m: &Metadata) -> [u8; FILESTAT_SIZE as usize] {
    let mut out = [0u8; FILESTAT_SIZE as usize];
    out[0..8].copy_from_slice(&m.dev().to_le_bytes());
    out[8..16].copy_from_slice(&m.ino().to_le_bytes());
    out[16] = filetype_of(&m.file_type());
    out[24..32].copy_from_slice(&m.nlink().to_le_bytes());
    out[32..40].copy_from_slice(&m.len().to_le_bytes());
    out[40..48].copy_from_slice(&nanos(m.atime(), m.atime_nsec()).to_le_bytes());
    out[48..56].copy_from_slice(&nanos(m.mtime(), m.mtime_nsec()).to_le_bytes());
    out[56..64].copy_from_slice(&nanos(m.ctime(), m.ctime_nsec()).to_le_bytes());
    out
}

/// A `filestat` with only a file type (standard streams, sockets).
pub(crate) fn encode_empty(ft: u8) -> [u8; FILESTAT_SIZE as usize] {
    let mut out = [0u8; FILESTAT_SIZE as usize];
    out[16] = ft;
    out
}

/// A new access or modification time.
#[derive(Clone, Copy)]
pub(crate) enum TimeSpec {
    Now,
    At(SystemTime),
}

impl TimeSpec {
    /// For `fs_set_times` on an open file.
    pub(crate) fn for_file(self) -> fs_set_times::SystemTimeSpec {
        match self {
            TimeSpec::Now => fs_set_times::SystemTimeSpec::SymbolicNow,
            TimeSpec::At(t) => fs_set_times::SystemTimeSpec::Absolute(t),
        }
    }

    /// For `cap_fs_ext::DirExt` on a path.
    pub(crate) fn for_path(self) -> cap_fs_ext::SystemTimeSpec {
        match self {
            TimeSpec::Now => cap_fs_ext::SystemTimeSpec::SymbolicNow,
            TimeSpec::At(t) => cap_fs_ext::SystemTimeSpec::Absolute(cap_std::time::SystemTime::from_std(t)),
        }
    }
}

/// The times `fst_flags` asks to set; asking for a time and "now" at once
/// is `inval`.
pub(crate) fn time_specs(atim: u64, mtim: u64, fst_flags: u32) -> Result<(Option<TimeSpec>, Option<TimeSpec>)> {
    let all = (fstflags::ATIM | fstflags::ATIM_NOW | fstflags::MTIM | fstflags::MTIM_NOW) as u32;
    if fst_flags & !all != 0 {
        return Err(Errno::Inval.into());
    }
    let f = fst_flags as u16;
    let pick = |set: u16, now: u16, value: u64| -> Result<Option<TimeSpec>> {
        match (f & set != 0, f & now != 0) {
            (true, true) => Err(Errno::Inval.into()),
            (false, true) => Ok(Some(TimeSpec::Now)),
            (true, false) => Ok(Some(TimeSpec::At(SystemTime::UNIX_EPOCH + Duration::from_nanos(value)))),
            (false, false) => Ok(None),
        }
    };
    Ok((
        pick(fstflags::ATIM, fstflags::ATIM_NOW, atim)?,
        pick(fstflags::MTIM, fstflags::MTIM_NOW, mtim)?,
    ))
}
