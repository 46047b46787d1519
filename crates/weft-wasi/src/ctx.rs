//! The WASI state of one store: arguments, environment, and the table of
//! file descriptors with their rights.

use crate::errno::{Errno, Result};
use crate::stdio::{StdinStream, StdoutStream};
use crate::types::rights;
use std::collections::BTreeMap;
use std::net::{TcpListener, TcpStream};

/// The most file descriptors a guest may have open at once.
const MAX_FDS: usize = 1 << 16;

/// The WASI preview1 state a store holds for its guest: arguments,
/// environment variables, standard streams, preopened directories and
/// sockets, and every file descriptor the guest has opened. Built by
/// [`crate::WasiCtxBuilder::build_p1`]; hand it to
/// [`crate::preview1::add_to_linker_sync`] through the store's data.
pub struct WasiP1Ctx {
    pub(crate) args: Vec<String>,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) table: FdTable,
}

impl std::fmt::Debug for WasiP1Ctx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasiP1Ctx")
            .field("args", &self.args)
            .field("env", &self.env)
            .field("fds", &self.table.entries.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// An open file descriptor: what it refers to, its rights and its flags.
pub(crate) struct Entry {
    pub(crate) kind: Kind,
    /// Rights of operations on this descriptor.
    pub(crate) base: u64,
    /// Rights that descriptors opened through this one may have.
    pub(crate) inheriting: u64,
    /// `fdflags` (append, nonblock, sync, ...).
    pub(crate) flags: u16,
}

/// What a file descriptor refers to.
pub(crate) enum Kind {
    Stdin(Box<dyn StdinStream>),
    Stdout(Box<dyn StdoutStream>),
    File(std::fs::File),
    Dir(DirDesc),
    Listener(TcpListener),
    Socket(TcpStream),
}

/// An open directory: every path operation resolves inside `dir`.
pub(crate) struct DirDesc {
    pub(crate) dir: cap_std::fs::Dir,
    /// The guest's name for a preopened directory.
    pub(crate) preopen: Option<String>,
    /// Entries listed by the last `fd_readdir` from cookie 0.
    pub(crate) listing: Option<Vec<DirListEntry>>,
}

/// One entry of a directory listing.
pub(crate) struct DirListEntry {
    pub(crate) name: Vec<u8>,
    pub(crate) filetype: u8,
    pub(crate) ino: u64,
}

/// File descriptors by number.
#[derive(Default)]
pub(crate) struct FdTable {
    pub(crate) entries: BTreeMap<u32, Entry>,
}

impl FdTable {
    /// Adds `entry` at the lowest free descriptor.
    pub(crate) fn push(&mut self, entry: Entry) -> Result<u32> {
        if self.entries.len() >= MAX_FDS {
            return Err(Errno::Nfile.into());
        }
        let mut fd = 0u32;
        for &used in self.entries.keys() {
            if used != fd {
                break;
            }
            fd += 1;
        }
        self.entries.insert(fd, entry);
        Ok(fd)
    }

    /// The entry `fd`, which must have every right in `required`: without
    /// the right to read or write it is `badf`, as POSIX has it for a
    /// descriptor not open for reading or writing; without another right it
    /// is `notcapable`.
    pub(crate) fn get(&mut self, fd: u32, required: u64) -> Result<&mut Entry> {
        let entry = self.entries.get_mut(&fd).ok_or(Errno::Badf)?;
        let missing = required & !entry.base;
        if missing & (rights::FD_READ | rights::FD_WRITE) != 0 {
            return Err(Errno::Badf.into());
        }
        if missing != 0 {
            return Err(Errno::Notcapable.into());
        }
        Ok(entry)
    }

    /// The directory `fd`, which must have every right in `required`.
    pub(crate) fn dir(&mut self, fd: u32, required: u64) -> Result<&mut DirDesc> {
        let entry = self.entries.get_mut(&fd).ok_or(Errno::Badf)?;
        let Kind::Dir(dir) = &mut entry.kind else {
            return Err(Errno::Notdir.into());
        };
        if entry.base & required != required {
            return Err(Errno::Notcapable.into());
        }
        Ok(dir)
    }

    /// The directory `fd` and the rights descriptors opened through it may
    /// have.
    pub(crate) fn dir_with_inheriting(&mut self, fd: u32, required: u64) -> Result<(&cap_std::fs::Dir, u64)> {
        let entry = self.entries.get_mut(&fd).ok_or(Errno::Badf)?;
        let Kind::Dir(dir) = &entry.kind else {
            return Err(Errno::Notdir.into());
        };
        if entry.base & required != required {
            return Err(Errno::Notcapable.into());
        }
        Ok((&dir.dir, entry.inheriting))
    }
}

impl WasiP1Ctx {
    /// The arguments the guest sees.
    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// The environment variables the guest sees.
    pub fn env(&self) -> &[(String, String)] {
        &self.env
    }
}
