//! `FsPerms`: what a guest may do below a preopened directory (its own
//! file, below both the builder and the WASI 0.2 file system that use it).

/// What a guest may do with a preopened directory, the directories below
/// it and their files (Wasmtime 48's `wasmtime_wasi::filesystem::FsPerms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FsPerms {
    /// List, open, stat and read; nothing may be created, removed, renamed,
    /// linked, written, truncated or have its times changed.
    ReadOnly,
    /// Everything `ReadOnly` allows, and changing entries and files.
    ReadWrite,
}

impl FsPerms {
    /// Whether writing is refused (`ReadOnly`).
    pub fn write_not_permitted(&self) -> bool {
        *self == FsPerms::ReadOnly
    }
}
