//! Page-granular virtual memory: reserve, commit and release.

use std::io;
use std::ptr::NonNull;

/// Bytes of address space reserved for every 32-bit memory, guard included
/// (a linear memory's and a pooling allocator slot's reservation).
pub const MEMORY_RESERVATION: usize = 8 << 30;

/// A mapping of anonymous memory owned by this value; unmapped on drop.
#[derive(Debug)]
pub struct Mmap {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is plain memory owned by this value; sharing the
// pointer between threads is as safe as sharing a `Box<[u8]>`.
unsafe impl Send for Mmap {}
// SAFETY: see `Send`; all mutation goes through `&mut self` or raw pointers
// whose users uphold their own synchronization.
unsafe impl Sync for Mmap {}

/// The size of a page of the host.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if size <= 0 {
        4096
    } else {
        size as usize
    }
}

impl Mmap {
    /// Reserves `len` bytes of inaccessible address space (rounded up to
    /// pages).
    pub fn reserve(len: usize) -> io::Result<Mmap> {
        let len = round_up(len.max(1), page_size());
        // SAFETY: an anonymous private mapping at an address of the kernel's
        // choosing aliases nothing.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ptr = NonNull::new(ptr.cast::<u8>()).ok_or_else(|| io::Error::other("mmap returned null"))?;
        Ok(Mmap { ptr, len })
    }

    /// Makes `[start, start + len)` readable and writable.
    pub fn make_accessible(&mut self, start: usize, len: usize) -> io::Result<()> {
        self.protect(start, len, libc::PROT_READ | libc::PROT_WRITE)
    }

    fn protect(&mut self, start: usize, len: usize, prot: libc::c_int) -> io::Result<()> {
        if len == 0 {
            return Ok(());
        }
        let end = start.checked_add(len).filter(|e| *e <= self.len);
        if end.is_none() || !start.is_multiple_of(page_size()) {
            return Err(io::Error::other("protection range outside the mapping"));
        }
        let len = round_up(len, page_size()).min(self.len - start);
        // SAFETY: the range lies inside our own mapping (checked above).
        let r = unsafe { libc::mprotect(self.ptr.as_ptr().add(start).cast(), len, prot) };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Replaces the whole mapping with fresh inaccessible anonymous memory
    /// at the same address: every page written, and anything mapped over
    /// it, is dropped, so that the mapping reads as zeros once made
    /// accessible again.
    pub fn reset(&mut self) -> io::Result<()> {
        self.reset_prefix(self.len)
    }

    /// Replaces the first `len` bytes of the mapping (rounded up to pages)
    /// with fresh inaccessible anonymous memory, as [`Mmap::reset`] does
    /// the whole: for a mapping only whose prefix was ever accessible or
    /// mapped over, which this leaves as it was when reserved.
    fn reset_prefix(&mut self, len: usize) -> io::Result<()> {
        let len = round_up(len, page_size()).min(self.len);
        if len == 0 {
            return Ok(());
        }
        // SAFETY: `MAP_FIXED` over the first `len` bytes of our own mapping
        // (`len` is at most its length), which nothing else uses now
        // (`&mut self`): it replaces our pages and no one else's.
        let ptr = unsafe {
            libc::mmap(
                self.ptr.as_ptr().cast(),
                len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// A mapping of nothing, which dropping leaves alone: what is left of
    /// a mapping moved out of a value being dropped.
    fn empty() -> Mmap {
        Mmap {
            ptr: NonNull::dangling(),
            len: 0,
        }
    }

    /// The first byte of the mapping.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Drop for Mmap {
    fn drop(&mut self) {
        if self.len == 0 {
            return;
        }
        // SAFETY: we own the mapping and nothing refers to it any more.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len);
        }
    }
}

/// How many released linear-memory reservations the process keeps for
/// reuse (each is [`MEMORY_RESERVATION`] bytes of address space, none of
/// it memory).
const SPARE_RESERVATIONS: usize = 8;

/// Reservations of dropped linear memories, reset to inaccessible and
/// unpopulated: the next memory takes one instead of mapping anew, and
/// dropping a memory resets the pages it used instead of unmapping the
/// whole reservation (both of which cost the kernel a walk of it).
static SPARE: std::sync::Mutex<Vec<Mmap>> = std::sync::Mutex::new(Vec::new());

/// A reservation of [`MEMORY_RESERVATION`] bytes, inaccessible: a spare
/// one if there is one, or a new one.
pub(crate) fn take_reservation() -> io::Result<Mmap> {
    let spare = SPARE.lock().unwrap_or_else(|e| e.into_inner()).pop();
    match spare {
        Some(map) => Ok(map),
        None => Mmap::reserve(MEMORY_RESERVATION),
    }
}

/// Gives back a reservation from [`take_reservation`] of which at most the
/// first `used` bytes were made accessible or mapped over, leaving an empty
/// mapping in its place: it is reset and kept as a spare, or unmapped if
/// there are enough spares (or the reset fails).
pub(crate) fn give_back_reservation(map: &mut Mmap, used: usize) {
    let mut map = std::mem::replace(map, Mmap::empty());
    if map.len != round_up(MEMORY_RESERVATION, page_size()) || map.reset_prefix(used).is_err() {
        return;
    }
    let mut spare = SPARE.lock().unwrap_or_else(|e| e.into_inner());
    if spare.len() < SPARE_RESERVATIONS {
        spare.push(map);
    }
}

/// Rounds `n` up to a multiple of `to` (a power of two).
pub fn round_up(n: usize, to: usize) -> usize {
    (n + to - 1) & !(to - 1)
}

/// A file mapped read-only and private (copy-on-write), for reading
/// precompiled code where it lies ([`crate::CodeMemory::from_mapped_file`]);
/// unmapped on drop.
///
/// The mapping reflects the file: a file changed or truncated while it is
/// mapped changes or (past its new end) faults what the mapping reads, so
/// [`MappedFile::bytes`] is only sound for files no one changes while they
/// are mapped. Like [`crate::CodeMemory`], whose code is trusted, this is
/// for the facade's `unsafe` `Module::deserialize_file`, whose contract
/// (the file is Weft's output, kept where no one else can change it) is
/// what upholds that; it is hidden from the documentation for that reason.
#[doc(hidden)]
#[derive(Debug)]
pub struct MappedFile {
    map: Mmap,
    len: usize,
    /// The file, kept open so that memory images can map parts of it
    /// ([`crate::MemoryImage::from_file`]).
    file: std::sync::Arc<std::fs::File>,
}

impl MappedFile {
    /// Maps the whole of `file`, which must not be empty, and keeps it
    /// open.
    pub fn map(file: std::fs::File) -> io::Result<MappedFile> {
        let len = usize::try_from(file.metadata()?.len()).map_err(|_| io::Error::other("the file is too large"))?;
        if len == 0 {
            return Err(io::Error::other("the file is empty"));
        }
        use std::os::fd::AsRawFd;
        // SAFETY: a private read-only mapping of a file we hold open, at an
        // address of the kernel's choosing: it aliases no memory of ours.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ptr = NonNull::new(ptr.cast::<u8>()).ok_or_else(|| io::Error::other("mmap returned null"))?;
        Ok(MappedFile {
            map: Mmap {
                ptr,
                len: round_up(len, page_size()),
            },
            len,
            file: std::sync::Arc::new(file),
        })
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the first `len` bytes of the mapping are the file's,
        // mapped readable for as long as `self` lives; nothing writes
        // through this mapping (it is read-only, or read-execute where
        // `make_executable` made it so).
        unsafe { std::slice::from_raw_parts(self.map.ptr.as_ptr(), self.len) }
    }

    /// The mapped file.
    pub fn file(&self) -> &std::sync::Arc<std::fs::File> {
        &self.file
    }

    /// Makes `[start, start + len)` of the mapping readable and executable
    /// (`start` a multiple of the page size). Fails where the file's
    /// mount forbids executing its contents (`noexec`).
    pub(crate) fn make_executable(&mut self, start: usize, len: usize) -> io::Result<()> {
        self.map.protect(start, len, libc::PROT_READ | libc::PROT_EXEC)
    }
}
