//! `wasi:filesystem`: descriptors, directory listings and preopens.
//!
//! The sandbox is preview1's: every path is resolved by `cap-std` inside
//! the handle of a directory descriptor (never by code of ours), so `..`
//! above it, absolute paths and symlinks leading out are refused
//! (`not-permitted`), and renames and hard links need both ends inside.
//! Host I/O errors become error codes through preview1's errno mapping.
//!
//! Each descriptor method that touches the disk is split as Wasmtime 48's:
//! the checks that need the resource table run on the calling thread and
//! make a [`Work`] closure owning what it touches, which [`run_blocking`]
//! runs on weft-wasi's blocking pool (or on the calling thread when the
//! context allows it). The async bindings await it; the sync flavour
//! (`filesystem_sync.rs`) and WASI 0.3 (`p3/filesystem_impl.rs`) reuse the
//! same halves. The file streams (`read-via-stream`, ...) read and write a
//! job at a time on the same pool (`file_streams.rs`).

use super::bindings::wasi::clocks::wall_clock::Datetime;
use super::bindings::wasi::filesystem::{preopens, types};
use super::file_streams::{DirLister, FileInputStream, FileOutputStream, FileReader, FileWriter};
use super::io::{DynInputStream, DynOutputStream, IoError};
use super::TrappableError;
use crate::errno::Errno;
use crate::filesystem::WasiFilesystemCtxView;
use crate::perms::FsPerms;
use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt, OpenOptionsMaybeDirExt};
use std::os::unix::fs::FileExt;
use std::sync::Arc;
use types::{
    Advice, DescriptorFlags, DescriptorStat, DescriptorType, DirectoryEntry, ErrorCode, Filesize, MetadataHashValue,
    NewTimestamp, OpenFlags, PathFlags,
};
use weft::component::{Resource, ResourceTableError};

/// The error of a `wasi:filesystem` function: an error code for the guest
/// or a trap.
pub type FsError = TrappableError<ErrorCode>;
/// The result of a `wasi:filesystem` function.
pub type FsResult<T> = Result<T, FsError>;

impl From<std::io::Error> for FsError {
    fn from(e: std::io::Error) -> FsError {
        error_code(Errno::from(&e)).into()
    }
}

impl From<ResourceTableError> for FsError {
    fn from(e: ResourceTableError) -> FsError {
        FsError::trap(e)
    }
}

/// How a descriptor was opened: for reading, writing, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OpenMode {
    read: bool,
    write: bool,
}

impl OpenMode {
    /// Open for reading.
    pub const READ: OpenMode = OpenMode {
        read: true,
        write: false,
    };
    /// Open for writing.
    pub const WRITE: OpenMode = OpenMode {
        read: false,
        write: true,
    };

    /// Whether every mode of `other` is in `self`.
    pub const fn contains(self, other: OpenMode) -> bool {
        (self.read || !other.read) && (self.write || !other.write)
    }
}

impl std::ops::BitOr for OpenMode {
    type Output = OpenMode;
    fn bitor(self, o: OpenMode) -> OpenMode {
        OpenMode {
            read: self.read || o.read,
            write: self.write || o.write,
        }
    }
}

/// An open file.
#[derive(Clone)]
pub struct File {
    /// The host's file.
    pub file: Arc<std::fs::File>,
    /// What the guest may do with it.
    pub perms: FsPerms,
    /// Whether it was opened for reading, writing or both.
    pub open_mode: OpenMode,
    /// Whether its disk work runs on the calling thread.
    allow_blocking_current_thread: bool,
}

impl File {
    /// A descriptor of `file` for a guest (Wasmtime 48's `File::new`):
    /// what it may do with it, the mode it was opened in, and whether its
    /// disk work runs on the thread that calls the host function
    /// (`allow_blocking_current_thread`) or on weft-wasi's blocking pool.
    pub fn new(file: std::fs::File, perms: FsPerms, open_mode: OpenMode, allow_blocking_current_thread: bool) -> File {
        File {
            file: Arc::new(file),
            perms,
            open_mode,
            allow_blocking_current_thread,
        }
    }

    /// What the guest may do with the file.
    pub fn perms(&self) -> FsPerms {
        self.perms
    }

    /// Whether it was opened for reading, writing or both.
    pub fn open_mode(&self) -> OpenMode {
        self.open_mode
    }
}

/// An open directory: every path below it is resolved inside `dir`.
#[derive(Clone)]
pub struct Dir {
    pub(crate) dir: Arc<cap_std::fs::Dir>,
    /// What the guest may do in it (and with the files it opens there).
    pub perms: FsPerms,
    /// Whether its entries may be read only, or changed too.
    pub open_mode: OpenMode,
    /// Whether its disk work (and that of what is opened in it) runs on
    /// the calling thread.
    allow_blocking_current_thread: bool,
}

impl Dir {
    /// A descriptor of the directory `dir` (a directory opened as a
    /// `std::fs::File`) for a guest (Wasmtime 48's `Dir::new`): every path
    /// the guest names below it is resolved inside it. `perms` and
    /// `open_mode` say what the guest may do there;
    /// `allow_blocking_current_thread` whether its disk work runs on the
    /// thread that calls the host function or on weft-wasi's blocking pool
    /// (what the guest opens in it inherits this).
    pub fn new(dir: std::fs::File, perms: FsPerms, open_mode: OpenMode, allow_blocking_current_thread: bool) -> Dir {
        Dir {
            dir: Arc::new(cap_std::fs::Dir::from_std_file(dir)),
            perms,
            open_mode,
            allow_blocking_current_thread,
        }
    }

    /// The descriptor of a preopened directory.
    pub(crate) fn preopen(dir: cap_std::fs::Dir, perms: FsPerms, allow_blocking_current_thread: bool) -> Dir {
        let mut open_mode = OpenMode::READ;
        if !perms.write_not_permitted() {
            open_mode = open_mode | OpenMode::WRITE;
        }
        Dir {
            dir: Arc::new(dir),
            perms,
            open_mode,
            allow_blocking_current_thread,
        }
    }
}

/// The host value of `wasi:filesystem/types.descriptor`.
#[derive(Clone)]
pub enum Descriptor {
    /// A file.
    File(File),
    /// A directory.
    Dir(Dir),
}

impl Descriptor {
    /// Whether the descriptor's disk work runs on the calling thread.
    pub(crate) fn allow_blocking_current_thread(&self) -> bool {
        match self {
            Descriptor::File(f) => f.allow_blocking_current_thread,
            Descriptor::Dir(d) => d.allow_blocking_current_thread,
        }
    }
}

/// The host value of `wasi:filesystem/types.directory-entry-stream`: the
/// entries of a directory (in the host's order, without `.` and `..`),
/// listed when it was opened.
pub struct ReaddirIterator(std::vec::IntoIter<FsResult<DirectoryEntry>>);

impl Iterator for ReaddirIterator {
    type Item = FsResult<DirectoryEntry>;
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next()
    }
}

/// The WASI 0.2 error code of a preview1 errno.
pub(crate) fn error_code(e: Errno) -> ErrorCode {
    use ErrorCode as C;
    match e {
        Errno::Acces => C::Access,
        Errno::Again => C::WouldBlock,
        Errno::Already => C::Already,
        Errno::Badf => C::BadDescriptor,
        Errno::Busy => C::Busy,
        Errno::Deadlk => C::Deadlock,
        Errno::Dquot => C::Quota,
        Errno::Exist => C::Exist,
        Errno::Fbig => C::FileTooLarge,
        Errno::Ilseq => C::IllegalByteSequence,
        Errno::Inprogress => C::InProgress,
        Errno::Intr => C::Interrupted,
        Errno::Inval => C::Invalid,
        Errno::Isdir => C::IsDirectory,
        Errno::Loop => C::Loop,
        Errno::Mlink => C::TooManyLinks,
        Errno::Msgsize => C::MessageSize,
        Errno::Nametoolong => C::NameTooLong,
        Errno::Nodev => C::NoDevice,
        Errno::Noent => C::NoEntry,
        Errno::Nolck => C::NoLock,
        Errno::Nomem => C::InsufficientMemory,
        Errno::Nospc => C::InsufficientSpace,
        Errno::Nosys | Errno::Notsup => C::Unsupported,
        Errno::Notdir => C::NotDirectory,
        Errno::Notempty => C::NotEmpty,
        Errno::Notrecoverable => C::NotRecoverable,
        Errno::Notty => C::NoTty,
        Errno::Nxio => C::NoSuchDevice,
        Errno::Overflow => C::Overflow,
        Errno::Perm => C::NotPermitted,
        Errno::Pipe => C::Pipe,
        Errno::Rofs => C::ReadOnly,
        Errno::Spipe => C::InvalidSeek,
        Errno::Txtbsy => C::TextFileBusy,
        Errno::Xdev => C::CrossDevice,
        _ => C::Io,
    }
}

fn fail<T>(code: ErrorCode) -> FsResult<T> {
    Err(code.into())
}

/// What `stat` reports, from either kind of metadata.
struct Stat {
    ty: DescriptorType,
    nlink: u64,
    size: u64,
    dev: u64,
    ino: u64,
    atime: (i64, i64),
    mtime: (i64, i64),
    ctime: (i64, i64),
}

fn descriptor_type(t: &cap_std::fs::FileType) -> DescriptorType {
    use cap_std::fs::FileTypeExt;
    if t.is_dir() {
        DescriptorType::Directory
    } else if t.is_file() {
        DescriptorType::RegularFile
    } else if t.is_symlink() {
        DescriptorType::SymbolicLink
    } else if t.is_block_device() {
        DescriptorType::BlockDevice
    } else if t.is_char_device() {
        DescriptorType::CharacterDevice
    } else if t.is_fifo() {
        DescriptorType::Fifo
    } else if t.is_socket() {
        DescriptorType::Socket
    } else {
        DescriptorType::Unknown
    }
}

impl Stat {
    fn of(m: &cap_std::fs::Metadata) -> Stat {
        use cap_std::fs::MetadataExt;
        Stat {
            ty: descriptor_type(&m.file_type()),
            nlink: m.nlink(),
            size: m.len(),
            dev: m.dev(),
            ino: m.ino(),
            atime: (m.atime(), m.atime_nsec()),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        }
    }

    fn of_file(f: &std::fs::File) -> std::io::Result<Stat> {
        Ok(Stat::of(&cap_std::fs::Metadata::from_file(f)?))
    }

    fn to_wit(&self) -> DescriptorStat {
        let dt = |(s, ns): (i64, i64)| -> Option<Datetime> {
            Some(Datetime {
                seconds: u64::try_from(s).ok()?,
                nanoseconds: u32::try_from(ns).ok()?,
            })
        };
        DescriptorStat {
            type_: self.ty,
            link_count: self.nlink,
            size: self.size,
            data_access_timestamp: dt(self.atime),
            data_modification_timestamp: dt(self.mtime),
            status_change_timestamp: dt(self.ctime),
        }
    }

    fn hash(&self) -> MetadataHashValue {
        use std::hash::{Hash, Hasher};
        let h = |salt: u8| {
            let mut s = std::collections::hash_map::DefaultHasher::new();
            (salt, self.dev, self.ino).hash(&mut s);
            s.finish()
        };
        MetadataHashValue {
            lower: h(0),
            upper: h(1),
        }
    }
}

/// The time a guest asks to set; a time the host cannot represent is
/// `overflow`, a nanosecond count of a second or more is `invalid`.
fn time_spec(t: NewTimestamp) -> FsResult<Option<crate::filestat::TimeSpec>> {
    use crate::filestat::TimeSpec;
    Ok(match t {
        NewTimestamp::NoChange => None,
        NewTimestamp::Now => Some(TimeSpec::Now),
        NewTimestamp::Timestamp(d) => {
            if d.nanoseconds >= 1_000_000_000 {
                return fail(ErrorCode::Invalid);
            }
            let at = std::time::SystemTime::UNIX_EPOCH
                .checked_add(std::time::Duration::new(d.seconds, d.nanoseconds))
                .ok_or_else(|| FsError::from(ErrorCode::Overflow))?;
            Some(TimeSpec::At(at))
        }
    })
}

impl WasiFilesystemCtxView<'_> {
    fn descriptor(&self, d: &Resource<Descriptor>) -> FsResult<&Descriptor> {
        Ok(self.table.get(d)?)
    }

    fn file(&self, d: &Resource<Descriptor>) -> FsResult<&File> {
        match self.descriptor(d)? {
            Descriptor::File(f) => Ok(f),
            Descriptor::Dir(_) => fail(ErrorCode::IsDirectory),
        }
    }

    fn dir(&self, d: &Resource<Descriptor>) -> FsResult<&Dir> {
        match self.descriptor(d)? {
            Descriptor::Dir(d) => Ok(d),
            Descriptor::File(_) => fail(ErrorCode::NotDirectory),
        }
    }

    /// The directory `d`, which may be read (list, open, stat): every
    /// directory may.
    fn dir_read(&self, d: &Resource<Descriptor>) -> FsResult<&Dir> {
        self.dir(d)
    }

    /// The directory `d`, whose entries may be changed.
    fn dir_mutate(&self, d: &Resource<Descriptor>) -> FsResult<&Dir> {
        let dir = self.dir(d)?;
        if dir.perms.write_not_permitted() || !dir.open_mode.contains(OpenMode::WRITE) {
            return fail(ErrorCode::NotPermitted);
        }
        Ok(dir)
    }

    /// The file `d`, open for `mode`.
    fn file_mode(&self, d: &Resource<Descriptor>, mode: OpenMode) -> FsResult<&File> {
        let f = self.file(d)?;
        if !f.open_mode.contains(mode) {
            return fail(ErrorCode::BadDescriptor);
        }
        Ok(f)
    }

    /// A reader of the file `d` (open for reading) from `offset` on.
    pub(crate) fn file_reader(&self, d: &Resource<Descriptor>, offset: Filesize) -> FsResult<FileReader> {
        let f = self.file_mode(d, OpenMode::READ)?;
        Ok(FileReader::new(f.file.clone(), offset, f.allow_blocking_current_thread))
    }

    /// A lister of the directory `d`, a batch of entries at a time.
    #[cfg_attr(
        not(feature = "p3"),
        allow(dead_code, reason = "WASI 0.3's read-directory lists with it")
    )]
    pub(crate) fn dir_lister(&self, d: &Resource<Descriptor>) -> FsResult<DirLister<FsResult<DirectoryEntry>>> {
        let dir = self.dir_read(d)?;
        Ok(DirLister::new(
            dir.dir.clone(),
            dir.allow_blocking_current_thread,
            entry_of,
        ))
    }

    /// A writer of the file `d` (open for writing) at `offset` on, or at
    /// its end (`None`).
    pub(crate) fn file_writer(&self, d: &Resource<Descriptor>, offset: Option<Filesize>) -> FsResult<FileWriter> {
        let f = self.file_mode(d, OpenMode::WRITE)?;
        Ok(FileWriter::new(f.file.clone(), offset, f.allow_blocking_current_thread))
    }
}

impl types::Host for WasiFilesystemCtxView<'_> {
    fn convert_error_code(&mut self, err: FsError) -> anyhow::Result<ErrorCode> {
        err.downcast()
    }
    fn filesystem_error_code(&mut self, err: Resource<IoError>) -> anyhow::Result<Option<ErrorCode>> {
        let err = self.table.get(&err)?;
        if let Some(e) = err.downcast_ref::<std::io::Error>() {
            return Ok(Some(error_code(Errno::from(e))));
        }
        Ok(err.downcast_ref::<ErrorCode>().copied())
    }
}

/// Runs the blocking file-system work `f` (Wasmtime 48's
/// `run_blocking`): on the calling thread when `allow_blocking_current_thread`
/// is set, else on a thread of the blocking pool of weft-wasi's tokio
/// runtime, awaiting its end, so the thread that polls the guest (an
/// executor's) is free meanwhile. If that runtime cannot be started, `f`
/// runs on the calling thread. A panic of `f` is an error, not a panic.
pub(crate) async fn run_blocking<R, F>(allow_blocking_current_thread: bool, f: F) -> anyhow::Result<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    if allow_blocking_current_thread {
        return Ok(f());
    }
    match crate::runtime::handle() {
        Ok(h) => {
            let mut task = crate::runtime::AbortOnDropJoinHandle::from(h.spawn_blocking(f));
            Ok(task.join().await?)
        }
        Err(_) => Ok(f()),
    }
}

/// The entries of `dir`, each or its error (the work of `read-directory`).
fn list(dir: &cap_std::fs::Dir) -> FsResult<Vec<FsResult<DirectoryEntry>>> {
    Ok(dir.entries()?.map(entry_of).collect())
}

/// A directory entry as WASI sees it, or why it cannot be listed.
pub(crate) fn entry_of(entry: std::io::Result<cap_std::fs::DirEntry>) -> FsResult<DirectoryEntry> {
    let entry = entry?;
    let name = entry
        .file_name()
        .into_string()
        .map_err(|_| FsError::from(ErrorCode::IllegalByteSequence))?;
    Ok(DirectoryEntry {
        type_: descriptor_type(&entry.file_type()?),
        name,
    })
}

/// The stat of a descriptor.
fn stat_of(d: &Descriptor) -> std::io::Result<Stat> {
    match d {
        Descriptor::File(f) => Stat::of_file(&f.file),
        Descriptor::Dir(d) => Ok(Stat::of(&d.dir.dir_metadata()?)),
    }
}

/// The stat of `path` below `dir`, following a last symlink if asked.
fn stat_path(dir: &cap_std::fs::Dir, path_flags: PathFlags, path: &str) -> std::io::Result<Stat> {
    let m = if path_flags.contains(PathFlags::SYMLINK_FOLLOW) {
        dir.metadata(path)?
    } else {
        dir.symlink_metadata(path)?
    };
    Ok(Stat::of(&m))
}

/// The blocking work of a `wasi:filesystem/types.descriptor` method, made
/// by the `*_work` functions below after the checks that need the table
/// (handles, modes, permissions): a closure that owns what it touches, so
/// it can run on another thread ([`run_blocking`]).
pub(crate) trait Work<R>: FnOnce() -> FsResult<R> + Send + 'static {}
impl<R, F: FnOnce() -> FsResult<R> + Send + 'static> Work<R> for F {}

/// The blocking halves of the descriptor methods, shared by the async
/// host functions of WASI 0.2 (and, through them, the synchronous ones)
/// and by WASI 0.3's.
impl WasiFilesystemCtxView<'_> {
    /// Whether the disk work of descriptor `d` runs on the calling thread:
    /// as `d` was made (a preopen as the context, what is opened as the
    /// directory it is opened in); the context's setting if `d` is gone.
    pub(crate) fn allow_blocking(&self, d: &Resource<Descriptor>) -> bool {
        self.descriptor(d).map_or(self.ctx.allow_blocking_current_thread, |d| {
            d.allow_blocking_current_thread()
        })
    }

    /// Runs `work` for descriptor `d` as `d` says ([`run_blocking`]).
    pub(crate) fn run<R: Send + 'static>(
        &self,
        d: &Resource<Descriptor>,
        work: impl Work<R>,
    ) -> impl std::future::Future<Output = FsResult<R>> + Send + 'static {
        let allow = self.allow_blocking(d);
        async move { run_blocking(allow, work).await.map_err(FsError::trap)? }
    }

    pub(crate) fn advise_work(&self, d: &Resource<Descriptor>) -> FsResult<impl Work<()>> {
        // Advice is a hint; the file must exist.
        self.file(d)?;
        Ok(|| Ok(()))
    }

    pub(crate) fn sync_data_work(&self, d: &Resource<Descriptor>) -> FsResult<impl Work<()>> {
        let desc = self.descriptor(d)?.clone();
        Ok(move || {
            match desc {
                Descriptor::File(f) => f.file.sync_data()?,
                Descriptor::Dir(d) => d.dir.open(".")?.sync_data()?,
            }
            Ok(())
        })
    }

    pub(crate) fn get_flags_work(&self, d: &Resource<Descriptor>) -> FsResult<impl Work<DescriptorFlags>> {
        let mut flags = DescriptorFlags::empty();
        match self.descriptor(d)? {
            Descriptor::File(f) => {
                if f.open_mode.contains(OpenMode::READ) {
                    flags |= DescriptorFlags::READ;
                }
                if f.open_mode.contains(OpenMode::WRITE) {
                    flags |= DescriptorFlags::WRITE;
                }
            }
            Descriptor::Dir(d) => {
                flags |= DescriptorFlags::READ;
                if d.open_mode.contains(OpenMode::WRITE) {
                    flags |= DescriptorFlags::MUTATE_DIRECTORY;
                }
            }
        }
        Ok(move || Ok(flags))
    }

    pub(crate) fn get_type_work(&self, d: &Resource<Descriptor>) -> FsResult<impl Work<DescriptorType>> {
        let desc = self.descriptor(d)?.clone();
        Ok(move || {
            Ok(match desc {
                Descriptor::File(f) => Stat::of_file(&f.file)?.ty,
                Descriptor::Dir(_) => DescriptorType::Directory,
            })
        })
    }

    pub(crate) fn set_size_work(&self, d: &Resource<Descriptor>, size: Filesize) -> FsResult<impl Work<()>> {
        let f = self.file_mode(d, OpenMode::WRITE)?.clone();
        Ok(move || Ok(f.file.set_len(size)?))
    }

    pub(crate) fn set_times_work(
        &self,
        d: &Resource<Descriptor>,
        data_access_timestamp: NewTimestamp,
        data_modification_timestamp: NewTimestamp,
    ) -> FsResult<impl Work<()>> {
        let (a, m) = (
            time_spec(data_access_timestamp)?,
            time_spec(data_modification_timestamp)?,
        );
        let desc = match self.descriptor(d)? {
            Descriptor::File(f) => {
                if !f.open_mode.contains(OpenMode::WRITE) {
                    return fail(ErrorCode::NotPermitted);
                }
                Descriptor::File(f.clone())
            }
            Descriptor::Dir(_) => Descriptor::Dir(self.dir_mutate(d)?.clone()),
        };
        Ok(move || {
            match desc {
                Descriptor::File(f) => {
                    use fs_set_times::SetTimes;
                    f.file.set_times(a.map(|t| t.for_file()), m.map(|t| t.for_file()))?;
                }
                Descriptor::Dir(d) => d.dir.set_times(".", a.map(|t| t.for_path()), m.map(|t| t.for_path()))?,
            }
            Ok(())
        })
    }

    pub(crate) fn read_work(
        &self,
        d: &Resource<Descriptor>,
        length: Filesize,
        offset: Filesize,
    ) -> FsResult<impl Work<(Vec<u8>, bool)>> {
        let f = self.file_mode(d, OpenMode::READ)?.clone();
        Ok(move || {
            let len = length.min(1 << 20) as usize;
            let mut buf = vec![0; len];
            let mut got = 0;
            while got < len {
                match f.file.read_at(&mut buf[got..], offset.saturating_add(got as u64))? {
                    0 => break,
                    n => got += n,
                }
            }
            buf.truncate(got);
            let eof = got < len || (len > 0 && got == 0);
            Ok((buf, eof))
        })
    }

    pub(crate) fn write_work(
        &self,
        d: &Resource<Descriptor>,
        buffer: Vec<u8>,
        offset: Filesize,
    ) -> FsResult<impl Work<Filesize>> {
        let f = self.file_mode(d, OpenMode::WRITE)?.clone();
        Ok(move || Ok(f.file.write_at(&buffer, offset)? as u64))
    }

    /// The listing of a directory; [`WasiFilesystemCtxView::run`] it, then
    /// push a [`ReaddirIterator`] of it.
    pub(crate) fn read_directory_work(
        &self,
        d: &Resource<Descriptor>,
    ) -> FsResult<impl Work<Vec<FsResult<DirectoryEntry>>>> {
        let dir = self.dir_read(d)?.dir.clone();
        Ok(move || list(&dir))
    }

    pub(crate) fn sync_work(&self, d: &Resource<Descriptor>) -> FsResult<impl Work<()>> {
        let desc = self.descriptor(d)?.clone();
        Ok(move || {
            match desc {
                Descriptor::File(f) => f.file.sync_all()?,
                Descriptor::Dir(d) => d.dir.open(".")?.sync_all()?,
            }
            Ok(())
        })
    }

    pub(crate) fn create_directory_at_work(&self, d: &Resource<Descriptor>, path: String) -> FsResult<impl Work<()>> {
        let dir = self.dir_mutate(d)?.dir.clone();
        Ok(move || Ok(dir.create_dir(path)?))
    }

    pub(crate) fn stat_work(&self, d: &Resource<Descriptor>) -> FsResult<impl Work<DescriptorStat>> {
        let desc = self.descriptor(d)?.clone();
        Ok(move || Ok(stat_of(&desc)?.to_wit()))
    }

    pub(crate) fn stat_at_work(
        &self,
        d: &Resource<Descriptor>,
        path_flags: PathFlags,
        path: String,
    ) -> FsResult<impl Work<DescriptorStat>> {
        let dir = self.dir_read(d)?.dir.clone();
        Ok(move || Ok(stat_path(&dir, path_flags, &path)?.to_wit()))
    }

    pub(crate) fn set_times_at_work(
        &self,
        d: &Resource<Descriptor>,
        path_flags: PathFlags,
        path: String,
        data_access_timestamp: NewTimestamp,
        data_modification_timestamp: NewTimestamp,
    ) -> FsResult<impl Work<()>> {
        let dir = self.dir_mutate(d)?.dir.clone();
        let a = time_spec(data_access_timestamp)?.map(|t| t.for_path());
        let m = time_spec(data_modification_timestamp)?.map(|t| t.for_path());
        Ok(move || {
            if path_flags.contains(PathFlags::SYMLINK_FOLLOW) {
                dir.set_times(path, a, m)?;
            } else {
                dir.set_symlink_times(path, a, m)?;
            }
            Ok(())
        })
    }

    pub(crate) fn link_at_work(
        &self,
        d: &Resource<Descriptor>,
        old_path_flags: PathFlags,
        old_path: String,
        new_descriptor: &Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<impl Work<()>> {
        if old_path_flags.contains(PathFlags::SYMLINK_FOLLOW) {
            return fail(ErrorCode::Invalid);
        }
        let from = self.dir_mutate(d)?.dir.clone();
        let to = self.dir_mutate(new_descriptor)?.dir.clone();
        Ok(move || Ok(from.hard_link(old_path, &to, new_path)?))
    }

    /// The opening of a descriptor; [`WasiFilesystemCtxView::run`] it,
    /// then push the descriptor.
    pub(crate) fn open_at_work(
        &self,
        d: &Resource<Descriptor>,
        path_flags: PathFlags,
        path: String,
        open_flags: OpenFlags,
        flags: DescriptorFlags,
    ) -> FsResult<impl Work<Descriptor>> {
        let d = self.dir_read(d)?.clone();
        let create = open_flags.contains(OpenFlags::CREATE);
        let truncate = open_flags.contains(OpenFlags::TRUNCATE);
        let write = flags.contains(DescriptorFlags::WRITE);
        let changes = create || write || truncate || flags.contains(DescriptorFlags::MUTATE_DIRECTORY);
        if changes && d.perms.write_not_permitted() {
            return fail(ErrorCode::NotPermitted);
        }
        if open_flags.contains(OpenFlags::DIRECTORY) && (create || truncate || write) {
            return fail(if write {
                ErrorCode::IsDirectory
            } else {
                ErrorCode::Invalid
            });
        }
        Ok(move || {
            let follow = if path_flags.contains(PathFlags::SYMLINK_FOLLOW) {
                FollowSymlinks::Yes
            } else {
                FollowSymlinks::No
            };
            let child_dir = |dir: cap_std::fs::Dir| {
                let mut open_mode = OpenMode::READ;
                if flags.contains(DescriptorFlags::MUTATE_DIRECTORY) {
                    open_mode = open_mode | OpenMode::WRITE;
                }
                Descriptor::Dir(Dir {
                    dir: Arc::new(dir),
                    perms: d.perms,
                    open_mode,
                    allow_blocking_current_thread: d.allow_blocking_current_thread,
                })
            };
            if open_flags.contains(OpenFlags::DIRECTORY) {
                let opened = match follow {
                    FollowSymlinks::Yes => d.dir.open_dir(&path)?,
                    FollowSymlinks::No => d.dir.open_dir_nofollow(&path)?,
                };
                return Ok(child_dir(opened));
            }
            let mut opts = cap_std::fs::OpenOptions::new();
            let file_write = write || truncate;
            opts.read(!file_write || flags.contains(DescriptorFlags::READ))
                .write(file_write)
                .follow(follow)
                .maybe_dir(true);
            if create {
                if open_flags.contains(OpenFlags::EXCLUSIVE) {
                    opts.create_new(true);
                } else {
                    opts.create(true);
                }
            }
            if truncate {
                opts.truncate(true);
            }
            let file = d.dir.open_with(&path, &opts)?;
            if file.metadata()?.is_dir() {
                if file_write {
                    return fail(ErrorCode::IsDirectory);
                }
                return Ok(child_dir(cap_std::fs::Dir::from_std_file(file.into_std())));
            }
            let mut open_mode = OpenMode::default();
            if flags.contains(DescriptorFlags::READ) {
                open_mode = open_mode | OpenMode::READ;
            }
            if write {
                open_mode = open_mode | OpenMode::WRITE;
            }
            Ok(Descriptor::File(File {
                file: Arc::new(file.into_std()),
                perms: d.perms,
                open_mode,
                allow_blocking_current_thread: d.allow_blocking_current_thread,
            }))
        })
    }

    pub(crate) fn readlink_at_work(&self, d: &Resource<Descriptor>, path: String) -> FsResult<impl Work<String>> {
        let dir = self.dir_read(d)?.dir.clone();
        Ok(move || {
            dir.read_link(path)?
                .into_os_string()
                .into_string()
                .map_err(|_| ErrorCode::IllegalByteSequence.into())
        })
    }

    pub(crate) fn remove_directory_at_work(&self, d: &Resource<Descriptor>, path: String) -> FsResult<impl Work<()>> {
        let dir = self.dir_mutate(d)?.dir.clone();
        Ok(move || Ok(dir.remove_dir(path)?))
    }

    pub(crate) fn rename_at_work(
        &self,
        d: &Resource<Descriptor>,
        old_path: String,
        new_descriptor: &Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<impl Work<()>> {
        let from = self.dir_mutate(d)?.dir.clone();
        let to = self.dir_mutate(new_descriptor)?.dir.clone();
        Ok(move || Ok(from.rename(old_path, &to, new_path)?))
    }

    pub(crate) fn symlink_at_work(
        &self,
        d: &Resource<Descriptor>,
        old_path: String,
        new_path: String,
    ) -> FsResult<impl Work<()>> {
        let dir = self.dir_mutate(d)?.dir.clone();
        Ok(move || Ok(dir.symlink(old_path, new_path)?))
    }

    pub(crate) fn unlink_file_at_work(&self, d: &Resource<Descriptor>, path: String) -> FsResult<impl Work<()>> {
        let dir = self.dir_mutate(d)?.dir.clone();
        Ok(move || Ok(dir.remove_file(path)?))
    }

    /// Whether two descriptors are the same file; a missing descriptor is
    /// a trap (the function has no error code).
    pub(crate) fn is_same_object_work(
        &self,
        a: &Resource<Descriptor>,
        b: &Resource<Descriptor>,
    ) -> anyhow::Result<impl FnOnce() -> anyhow::Result<bool> + Send + 'static> {
        let a = self.table.get(a)?.clone();
        let b = self.table.get(b)?.clone();
        Ok(move || {
            let (a, b) = (stat_of(&a)?, stat_of(&b)?);
            Ok((a.dev, a.ino) == (b.dev, b.ino))
        })
    }

    pub(crate) fn metadata_hash_work(&self, d: &Resource<Descriptor>) -> FsResult<impl Work<MetadataHashValue>> {
        let desc = self.descriptor(d)?.clone();
        Ok(move || Ok(stat_of(&desc)?.hash()))
    }

    pub(crate) fn metadata_hash_at_work(
        &self,
        d: &Resource<Descriptor>,
        path_flags: PathFlags,
        path: String,
    ) -> FsResult<impl Work<MetadataHashValue>> {
        let dir = self.dir_read(d)?.dir.clone();
        Ok(move || Ok(stat_path(&dir, path_flags, &path)?.hash()))
    }
}

/// The descriptor methods of the async bindings: the checks on the calling
/// thread, then the blocking work as `run_blocking` says (another thread
/// unless `allow_blocking_current_thread`), as Wasmtime 48's. Creating the
/// file streams and dropping blocks nothing and is synchronous.
impl types::HostDescriptor for WasiFilesystemCtxView<'_> {
    fn read_via_stream(&mut self, self_: Resource<Descriptor>, offset: Filesize) -> FsResult<Resource<DynInputStream>> {
        let s: DynInputStream = Box::new(FileInputStream::new(self.file_reader(&self_, offset)?));
        Ok(self.table.push(s)?)
    }
    fn write_via_stream(
        &mut self,
        self_: Resource<Descriptor>,
        offset: Filesize,
    ) -> FsResult<Resource<DynOutputStream>> {
        let s: DynOutputStream = Box::new(FileOutputStream::new(self.file_writer(&self_, Some(offset))?));
        Ok(self.table.push(s)?)
    }
    fn append_via_stream(&mut self, self_: Resource<Descriptor>) -> FsResult<Resource<DynOutputStream>> {
        let s: DynOutputStream = Box::new(FileOutputStream::new(self.file_writer(&self_, None)?));
        Ok(self.table.push(s)?)
    }
    async fn advise(
        &mut self,
        self_: Resource<Descriptor>,
        _offset: Filesize,
        _length: Filesize,
        _advice: Advice,
    ) -> FsResult<()> {
        let work = self.advise_work(&self_)?;
        self.run(&self_, work).await
    }
    async fn sync_data(&mut self, self_: Resource<Descriptor>) -> FsResult<()> {
        let work = self.sync_data_work(&self_)?;
        self.run(&self_, work).await
    }
    async fn get_flags(&mut self, self_: Resource<Descriptor>) -> FsResult<DescriptorFlags> {
        // Read from the descriptor itself: nothing to wait for.
        self.get_flags_work(&self_)?()
    }
    async fn get_type(&mut self, self_: Resource<Descriptor>) -> FsResult<DescriptorType> {
        let work = self.get_type_work(&self_)?;
        self.run(&self_, work).await
    }
    async fn set_size(&mut self, self_: Resource<Descriptor>, size: Filesize) -> FsResult<()> {
        let work = self.set_size_work(&self_, size)?;
        self.run(&self_, work).await
    }
    async fn set_times(
        &mut self,
        self_: Resource<Descriptor>,
        data_access_timestamp: NewTimestamp,
        data_modification_timestamp: NewTimestamp,
    ) -> FsResult<()> {
        let work = self.set_times_work(&self_, data_access_timestamp, data_modification_timestamp)?;
        self.run(&self_, work).await
    }
    async fn read(
        &mut self,
        self_: Resource<Descriptor>,
        length: Filesize,
        offset: Filesize,
    ) -> FsResult<(Vec<u8>, bool)> {
        let work = self.read_work(&self_, length, offset)?;
        self.run(&self_, work).await
    }
    async fn write(&mut self, self_: Resource<Descriptor>, buffer: Vec<u8>, offset: Filesize) -> FsResult<Filesize> {
        let work = self.write_work(&self_, buffer, offset)?;
        self.run(&self_, work).await
    }
    async fn read_directory(&mut self, self_: Resource<Descriptor>) -> FsResult<Resource<ReaddirIterator>> {
        let work = self.read_directory_work(&self_)?;
        let entries = self.run(&self_, work).await?;
        Ok(self.table.push(ReaddirIterator(entries.into_iter()))?)
    }
    async fn sync(&mut self, self_: Resource<Descriptor>) -> FsResult<()> {
        let work = self.sync_work(&self_)?;
        self.run(&self_, work).await
    }
    async fn create_directory_at(&mut self, self_: Resource<Descriptor>, path: String) -> FsResult<()> {
        let work = self.create_directory_at_work(&self_, path)?;
        self.run(&self_, work).await
    }
    async fn stat(&mut self, self_: Resource<Descriptor>) -> FsResult<DescriptorStat> {
        let work = self.stat_work(&self_)?;
        self.run(&self_, work).await
    }
    async fn stat_at(
        &mut self,
        self_: Resource<Descriptor>,
        path_flags: PathFlags,
        path: String,
    ) -> FsResult<DescriptorStat> {
        let work = self.stat_at_work(&self_, path_flags, path)?;
        self.run(&self_, work).await
    }
    async fn set_times_at(
        &mut self,
        self_: Resource<Descriptor>,
        path_flags: PathFlags,
        path: String,
        data_access_timestamp: NewTimestamp,
        data_modification_timestamp: NewTimestamp,
    ) -> FsResult<()> {
        let work = self.set_times_at_work(
            &self_,
            path_flags,
            path,
            data_access_timestamp,
            data_modification_timestamp,
        )?;
        self.run(&self_, work).await
    }
    async fn link_at(
        &mut self,
        self_: Resource<Descriptor>,
        old_path_flags: PathFlags,
        old_path: String,
        new_descriptor: Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<()> {
        let work = self.link_at_work(&self_, old_path_flags, old_path, &new_descriptor, new_path)?;
        self.run(&self_, work).await
    }
    async fn open_at(
        &mut self,
        self_: Resource<Descriptor>,
        path_flags: PathFlags,
        path: String,
        open_flags: OpenFlags,
        flags: DescriptorFlags,
    ) -> FsResult<Resource<Descriptor>> {
        let work = self.open_at_work(&self_, path_flags, path, open_flags, flags)?;
        let desc = self.run(&self_, work).await?;
        Ok(self.table.push(desc)?)
    }
    async fn readlink_at(&mut self, self_: Resource<Descriptor>, path: String) -> FsResult<String> {
        let work = self.readlink_at_work(&self_, path)?;
        self.run(&self_, work).await
    }
    async fn remove_directory_at(&mut self, self_: Resource<Descriptor>, path: String) -> FsResult<()> {
        let work = self.remove_directory_at_work(&self_, path)?;
        self.run(&self_, work).await
    }
    async fn rename_at(
        &mut self,
        self_: Resource<Descriptor>,
        old_path: String,
        new_descriptor: Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<()> {
        let work = self.rename_at_work(&self_, old_path, &new_descriptor, new_path)?;
        self.run(&self_, work).await
    }
    async fn symlink_at(&mut self, self_: Resource<Descriptor>, old_path: String, new_path: String) -> FsResult<()> {
        let work = self.symlink_at_work(&self_, old_path, new_path)?;
        self.run(&self_, work).await
    }
    async fn unlink_file_at(&mut self, self_: Resource<Descriptor>, path: String) -> FsResult<()> {
        let work = self.unlink_file_at_work(&self_, path)?;
        self.run(&self_, work).await
    }
    async fn is_same_object(
        &mut self,
        self_: Resource<Descriptor>,
        other: Resource<Descriptor>,
    ) -> anyhow::Result<bool> {
        let work = self.is_same_object_work(&self_, &other)?;
        run_blocking(self.allow_blocking(&self_), work).await?
    }
    async fn metadata_hash(&mut self, self_: Resource<Descriptor>) -> FsResult<MetadataHashValue> {
        let work = self.metadata_hash_work(&self_)?;
        self.run(&self_, work).await
    }
    async fn metadata_hash_at(
        &mut self,
        self_: Resource<Descriptor>,
        path_flags: PathFlags,
        path: String,
    ) -> FsResult<MetadataHashValue> {
        let work = self.metadata_hash_at_work(&self_, path_flags, path)?;
        self.run(&self_, work).await
    }
    fn drop(&mut self, rep: Resource<Descriptor>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl types::HostDirectoryEntryStream for WasiFilesystemCtxView<'_> {
    /// The next entry of the listing `read-directory` made (nothing to
    /// wait for; async as in Wasmtime 48's bindings).
    async fn read_directory_entry(&mut self, self_: Resource<ReaddirIterator>) -> FsResult<Option<DirectoryEntry>> {
        self.table.get_mut(&self_)?.next().transpose()
    }
    fn drop(&mut self, rep: Resource<ReaddirIterator>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl preopens::Host for WasiFilesystemCtxView<'_> {
    fn get_directories(&mut self) -> anyhow::Result<Vec<(Resource<Descriptor>, String)>> {
        let mut out = Vec::new();
        for (d, name) in &self.ctx.preopens {
            out.push((self.table.push(d.clone())?, name.clone()));
        }
        Ok(out)
    }
}
