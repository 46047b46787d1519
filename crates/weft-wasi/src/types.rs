//! Constants of `wasi_snapshot_preview1`: rights, file types, flags and the
//! layouts of the structures exchanged with the guest.

/// Rights of a file descriptor (`rights` bit set).
pub(crate) mod rights {
    pub const FD_DATASYNC: u64 = 1 << 0;
    pub const FD_READ: u64 = 1 << 1;
    pub const FD_SEEK: u64 = 1 << 2;
    pub const FD_FDSTAT_SET_FLAGS: u64 = 1 << 3;
    pub const FD_SYNC: u64 = 1 << 4;
    pub const FD_TELL: u64 = 1 << 5;
    pub const FD_WRITE: u64 = 1 << 6;
    pub const FD_ADVISE: u64 = 1 << 7;
    pub const FD_ALLOCATE: u64 = 1 << 8;
    pub const PATH_CREATE_DIRECTORY: u64 = 1 << 9;
    pub const PATH_CREATE_FILE: u64 = 1 << 10;
    pub const PATH_LINK_SOURCE: u64 = 1 << 11;
    pub const PATH_LINK_TARGET: u64 = 1 << 12;
    pub const PATH_OPEN: u64 = 1 << 13;
    pub const FD_READDIR: u64 = 1 << 14;
    pub const PATH_READLINK: u64 = 1 << 15;
    pub const PATH_RENAME_SOURCE: u64 = 1 << 16;
    pub const PATH_RENAME_TARGET: u64 = 1 << 17;
    pub const PATH_FILESTAT_GET: u64 = 1 << 18;
    pub const PATH_FILESTAT_SET_SIZE: u64 = 1 << 19;
    pub const PATH_FILESTAT_SET_TIMES: u64 = 1 << 20;
    pub const FD_FILESTAT_GET: u64 = 1 << 21;
    pub const FD_FILESTAT_SET_SIZE: u64 = 1 << 22;
    pub const FD_FILESTAT_SET_TIMES: u64 = 1 << 23;
    pub const PATH_SYMLINK: u64 = 1 << 24;
    pub const PATH_REMOVE_DIRECTORY: u64 = 1 << 25;
    pub const PATH_UNLINK_FILE: u64 = 1 << 26;
    pub const POLL_FD_READWRITE: u64 = 1 << 27;
    pub const SOCK_SHUTDOWN: u64 = 1 << 28;
    pub const SOCK_ACCEPT: u64 = 1 << 29;

    /// Rights that write to a file.
    pub const FILE_WRITE: u64 = FD_DATASYNC | FD_WRITE | FD_ALLOCATE | FD_FILESTAT_SET_SIZE | FD_FILESTAT_SET_TIMES;
    /// Rights that read a file.
    pub const FILE_READ: u64 = FD_READ | FD_READDIR;
    /// Every right a regular file can have.
    pub const FILE: u64 = FD_DATASYNC
        | FD_READ
        | FD_SEEK
        | FD_FDSTAT_SET_FLAGS
        | FD_SYNC
        | FD_TELL
        | FD_WRITE
        | FD_ADVISE
        | FD_ALLOCATE
        | FD_FILESTAT_GET
        | FD_FILESTAT_SET_SIZE
        | FD_FILESTAT_SET_TIMES
        | POLL_FD_READWRITE;
    /// Rights of a directory that change what it contains.
    pub const DIR_MUTATE: u64 = PATH_CREATE_DIRECTORY
        | PATH_CREATE_FILE
        | PATH_LINK_SOURCE
        | PATH_LINK_TARGET
        | PATH_RENAME_SOURCE
        | PATH_RENAME_TARGET
        | PATH_FILESTAT_SET_SIZE
        | PATH_FILESTAT_SET_TIMES
        | PATH_SYMLINK
        | PATH_REMOVE_DIRECTORY
        | PATH_UNLINK_FILE
        | FD_FILESTAT_SET_TIMES;
    /// Every right a directory can have.
    pub const DIR: u64 = FD_FDSTAT_SET_FLAGS
        | FD_SYNC
        | FD_ADVISE
        | PATH_OPEN
        | FD_READDIR
        | PATH_READLINK
        | PATH_FILESTAT_GET
        | FD_FILESTAT_GET
        | POLL_FD_READWRITE
        | DIR_MUTATE;
    /// Rights of standard input.
    pub const STDIN: u64 = FD_READ | FD_FDSTAT_SET_FLAGS | FD_FILESTAT_GET | POLL_FD_READWRITE;
    /// Rights of standard output and error.
    pub const STDOUT: u64 = FD_WRITE | FD_FDSTAT_SET_FLAGS | FD_FILESTAT_GET | POLL_FD_READWRITE;
    /// Rights of a connected socket.
    pub const SOCKET: u64 =
        FD_READ | FD_WRITE | FD_FDSTAT_SET_FLAGS | FD_FILESTAT_GET | POLL_FD_READWRITE | SOCK_SHUTDOWN;
    /// Rights of a listening socket.
    pub const LISTENER: u64 = FD_FDSTAT_SET_FLAGS | FD_FILESTAT_GET | POLL_FD_READWRITE | SOCK_ACCEPT;
}

/// `filetype`.
pub(crate) mod filetype {
    pub const UNKNOWN: u8 = 0;
    pub const BLOCK_DEVICE: u8 = 1;
    pub const CHARACTER_DEVICE: u8 = 2;
    pub const DIRECTORY: u8 = 3;
    pub const REGULAR_FILE: u8 = 4;
    pub const SOCKET_STREAM: u8 = 6;
    pub const SYMBOLIC_LINK: u8 = 7;
}

/// `fdflags`.
pub(crate) mod fdflags {
    pub const APPEND: u16 = 1 << 0;
    pub const DSYNC: u16 = 1 << 1;
    pub const NONBLOCK: u16 = 1 << 2;
    pub const RSYNC: u16 = 1 << 3;
    pub const SYNC: u16 = 1 << 4;
    pub const ALL: u16 = APPEND | DSYNC | NONBLOCK | RSYNC | SYNC;
}

/// `oflags`.
pub(crate) mod oflags {
    pub const CREAT: u16 = 1 << 0;
    pub const DIRECTORY: u16 = 1 << 1;
    pub const EXCL: u16 = 1 << 2;
    pub const TRUNC: u16 = 1 << 3;
    pub const ALL: u16 = CREAT | DIRECTORY | EXCL | TRUNC;
}

/// `lookupflags`.
pub(crate) const LOOKUP_SYMLINK_FOLLOW: u32 = 1;

/// `fstflags`.
pub(crate) mod fstflags {
    pub const ATIM: u16 = 1 << 0;
    pub const ATIM_NOW: u16 = 1 << 1;
    pub const MTIM: u16 = 1 << 2;
    pub const MTIM_NOW: u16 = 1 << 3;
}

/// `clockid`.
pub(crate) mod clockid {
    pub const REALTIME: u32 = 0;
    pub const MONOTONIC: u32 = 1;
    pub const PROCESS_CPUTIME_ID: u32 = 2;
    pub const THREAD_CPUTIME_ID: u32 = 3;
}

/// `whence`.
pub(crate) mod whence {
    pub const SET: u32 = 0;
    pub const CUR: u32 = 1;
    pub const END: u32 = 2;
}

/// `eventtype`.
pub(crate) mod eventtype {
    pub const CLOCK: u8 = 0;
    pub const FD_READ: u8 = 1;
    pub const FD_WRITE: u8 = 2;
}

/// `subclockflags`: the timeout is an absolute time of the clock.
pub(crate) const SUBSCRIPTION_CLOCK_ABSTIME: u16 = 1;
/// `eventrwflags`: the peer hung up.
pub(crate) const EVENT_FD_READWRITE_HANGUP: u16 = 1;

/// `riflags`.
pub(crate) mod riflags {
    pub const RECV_PEEK: u16 = 1 << 0;
    pub const RECV_WAITALL: u16 = 1 << 1;
}

/// `roflags`: the message was truncated (datagrams only, never set here).
pub(crate) const ROFLAGS_NONE: u16 = 0;

/// `sdflags`.
pub(crate) mod sdflags {
    pub const RD: u32 = 1 << 0;
    pub const WR: u32 = 1 << 1;
}

/// `advice`: the largest valid value (`noreuse`).
pub(crate) const ADVICE_MAX: u32 = 5;

/// The size of `filestat`.
pub(crate) const FILESTAT_SIZE: u32 = 64;
/// The size of a `dirent` header (the name follows it).
pub(crate) const DIRENT_SIZE: usize = 24;
/// The size of a `subscription`.
pub(crate) const SUBSCRIPTION_SIZE: u32 = 48;
/// The size of an `event`.
pub(crate) const EVENT_SIZE: u32 = 32;
