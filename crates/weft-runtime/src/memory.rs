//! Linear memories: a 4 GiB reservation plus a 4 GiB guard region, so that
//! compiled code needs no bounds checks for 32-bit addresses with 32-bit
//! offsets. Growing only changes page protections; the base never moves.
//!
//! 64-bit memories get the same reservation and the same 4 GiB limit; their
//! index space is far larger than any guard region, so compiled code checks
//! every access against the current length instead.
//!
//! A shared memory (the threads proposal) is a [`SharedLinearMemory`]: the
//! same reservation behind an `Arc`, usable from several stores on several
//! threads at once. Its length only grows, under a lock, and is published
//! with an atomic store; its waiters park in one [`ParkingSpot`] whichever
//! store they run in.

use crate::memory_image::MemoryImage;
pub use crate::mmap::MEMORY_RESERVATION;
use crate::mmap::{page_size, Mmap};
use crate::parking::{ParkingSpot, WaitResult};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The largest number of 64 KiB pages of a 32-bit memory.
pub const MAX_PAGES_32: u64 = 1 << 16;

/// The largest number of pages of size `2^page_size_log2` of a memory: 4 GiB
/// of 64 KiB pages, or 4 GiB less one byte of 1-byte pages (the custom page
/// sizes proposal's limit).
pub fn max_pages(page_size_log2: u8) -> u64 {
    if page_size_log2 >= 16 {
        MAX_PAGES_32
    } else {
        (1u64 << 32) - 1
    }
}

/// What compiled code reads: `{ base, current_length }`.
#[repr(C)]
#[derive(Debug)]
pub struct VMMemoryDefinition {
    /// The first byte of the memory.
    pub base: *mut u8,
    /// The accessible length in bytes.
    pub current_length: usize,
}

/// The definition of a shared memory: the layout of [`VMMemoryDefinition`],
/// with a length that other threads may update while compiled code reads
/// it.
#[repr(C)]
#[derive(Debug)]
struct VMSharedMemoryDefinition {
    base: *mut u8,
    current_length: AtomicUsize,
}

/// The limits and shape of a memory, fixed at creation.
#[derive(Debug, Clone, Copy)]
struct Shape {
    maximum_pages: u64,
    memory64: bool,
    declared_maximum: Option<u64>,
    page_size_log2: u8,
}

impl Shape {
    fn new(minimum: u64, maximum: Option<u64>, memory64: bool, page_size_log2: u8) -> anyhow::Result<Shape> {
        if page_size_log2 != 0 && page_size_log2 != 16 {
            anyhow::bail!("a page size of 2^{page_size_log2} bytes is not supported (only 1 and 65536)");
        }
        let limit = max_pages(page_size_log2);
        let maximum_pages = maximum.unwrap_or(limit).min(limit);
        if minimum > maximum_pages {
            anyhow::bail!("memory minimum size of {minimum} pages exceeds the limit of {maximum_pages} pages");
        }
        Ok(Shape {
            maximum_pages,
            memory64,
            declared_maximum: maximum,
            page_size_log2,
        })
    }

    /// Reserves the whole address range of a memory and makes its first
    /// `minimum` pages accessible.
    fn reserve(&self, minimum: u64) -> anyhow::Result<(Mmap, usize)> {
        let mut mmap = crate::mmap::take_reservation()
            .map_err(|e| anyhow::anyhow!("failed to reserve address space for a linear memory: {e}"))?;
        let len = (minimum << self.page_size_log2) as usize;
        mmap.make_accessible(0, len)
            .map_err(|e| anyhow::anyhow!("failed to commit {len} bytes of linear memory: {e}"))?;
        Ok((mmap, len))
    }

    /// Makes the memory of `mmap` `delta` pages longer than `old_len`
    /// bytes; returns the old size in pages and the new length in bytes.
    fn grow(&self, mmap: &mut Mmap, old_len: usize, delta: u64) -> Option<(u64, usize)> {
        let old = old_len as u64 >> self.page_size_log2;
        let new = old.checked_add(delta)?;
        if new > self.maximum_pages {
            return None;
        }
        let new_len = (new << self.page_size_log2) as usize;
        // With 1-byte pages the old end may fall inside a host page, which
        // is accessible already: protection changes start at its page.
        let start = old_len / page_size() * page_size();
        mmap.make_accessible(start, new_len - start).ok()?;
        Some((old, new_len))
    }
}

/// A linear memory of a store: its own reservation (with guard pages) and
/// size, or a handle of a [`SharedLinearMemory`].
#[derive(Debug)]
pub struct LinearMemory {
    shape: Shape,
    storage: Storage,
}

#[derive(Debug)]
enum Storage {
    Owned {
        mmap: Mmap,
        definition: Box<VMMemoryDefinition>,
    },
    Shared(SharedLinearMemory),
    /// A slot of a pooling allocator: a reservation like `Owned`'s, given
    /// back to the pool (reset) when the memory is dropped.
    Pooled {
        slot: crate::pool::PoolSlot,
        definition: Box<VMMemoryDefinition>,
    },
    /// Memory an embedder's [`HostMemoryCreator`] made.
    Host {
        memory: HostMemory,
        definition: Box<VMMemoryDefinition>,
    },
}

impl Drop for LinearMemory {
    fn drop(&mut self) {
        // An owned reservation goes back to the spares; the pages it made
        // accessible (its current length: memories never shrink) are reset.
        if let Storage::Owned { mmap, definition } = &mut self.storage {
            let used = definition.current_length;
            crate::mmap::give_back_reservation(mmap, used);
        }
    }
}

/// Memory an embedder provides for a linear memory (Wasmtime's
/// `LinearMemory`), made by a [`HostMemoryCreator`].
///
/// # Safety
///
/// The implementer guarantees that `as_ptr() .. as_ptr() + byte_size()` is
/// memory readable and writable by any thread, owned by this value and used
/// by nothing but it (and the wasm it is given to) while it lives; that
/// `grow_to(n)`, when it succeeds, makes `byte_size()` at least `n` with the
/// bytes past the old size zeroed; and that `as_ptr()` never changes as
/// long as `byte_size()` stays within the reservation the memory was made
/// with ([`HostMemorySpec::reserved_size_in_bytes`]): compiled code keeps the
/// base of a memory across calls.
pub unsafe trait HostLinearMemory: Send + Sync + 'static {
    /// The accessible size in bytes.
    fn byte_size(&self) -> usize;
    /// The size the memory may grow to without moving.
    fn byte_capacity(&self) -> usize;
    /// Grows the accessible size to `new_size` bytes (zeroing the new
    /// bytes), or fails.
    fn grow_to(&mut self, new_size: usize) -> anyhow::Result<()>;
    /// The first byte of the memory.
    fn as_ptr(&self) -> *mut u8;
}

/// What a [`HostMemoryCreator`] is asked for.
#[derive(Debug, Clone, Copy)]
pub struct HostMemorySpec {
    /// The memory's minimum (initial) size, in pages.
    pub minimum_pages: u64,
    /// Its declared maximum, in pages.
    pub maximum_pages: Option<u64>,
    /// Whether it is indexed with `i64`.
    pub memory64: bool,
    /// `log2` of its page size in bytes.
    pub page_size_log2: u8,
    /// The initial size in bytes.
    pub minimum_bytes: usize,
    /// The most bytes it may grow to (`None`: no limit but Weft's 4 GiB).
    pub maximum_bytes: Option<usize>,
    /// The bytes the memory must reserve, and never move within: the most
    /// it may ever grow to.
    pub reserved_size_in_bytes: Option<usize>,
    /// The inaccessible bytes that must follow the reservation: always 0
    /// (code compiled for host memories checks every access's bounds).
    pub guard_size_in_bytes: usize,
}

/// Makes the memory of linear memories in memory the embedder provides
/// (behind Wasmtime's `MemoryCreator`).
pub trait HostMemoryCreator: Send + Sync {
    /// A memory as `spec` describes.
    fn new_memory(&self, spec: &HostMemorySpec) -> anyhow::Result<Box<dyn HostLinearMemory>>;
}

/// A boxed [`HostLinearMemory`].
struct HostMemory(Box<dyn HostLinearMemory>);

impl std::fmt::Debug for HostMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostMemory")
            .field("byte_size", &self.0.byte_size())
            .finish_non_exhaustive()
    }
}

// SAFETY: the definition only points into our own mapping (or into the
// shared memory, or the host memory, which are `Send + Sync` themselves).
unsafe impl Send for LinearMemory {}
// SAFETY: as for `Send`; mutation of an owned memory requires `&mut self`.
unsafe impl Sync for LinearMemory {}

impl LinearMemory {
    /// A memory of `minimum` pages that may grow to `maximum` pages (at most
    /// 4 GiB), indexed with `i64` when `memory64` is set, its pages
    /// `2^page_size_log2` bytes (16 or 0).
    pub fn new(minimum: u64, maximum: Option<u64>, memory64: bool, page_size_log2: u8) -> anyhow::Result<LinearMemory> {
        Ok(Self::with_image(minimum, maximum, memory64, page_size_log2, None)?.0)
    }

    /// A memory as [`LinearMemory::new`] makes, whose initial contents are
    /// mapped from `image` when one is given. Returns whether the image was
    /// mapped; when it was not (the host refused the mapping), the memory is
    /// zeroed and the caller copies the data segments instead.
    pub fn with_image(
        minimum: u64,
        maximum: Option<u64>,
        memory64: bool,
        page_size_log2: u8,
        image: Option<&MemoryImage>,
    ) -> anyhow::Result<(LinearMemory, bool)> {
        let shape = Shape::new(minimum, maximum, memory64, page_size_log2)?;
        let (mmap, len) = shape.reserve(minimum)?;
        let mapped = image.is_some_and(|image| image.map_at(mmap.as_ptr(), len).is_ok());
        let definition = Box::new(VMMemoryDefinition {
            base: mmap.as_ptr(),
            current_length: len,
        });
        let storage = Storage::Owned { mmap, definition };
        Ok((LinearMemory { shape, storage }, mapped))
    }

    /// A memory of `minimum` pages that may grow to `maximum` pages (as
    /// [`LinearMemory::new`] takes them) in memory `creator` makes. Code
    /// using it must check the bounds of every access (the engine compiles
    /// so when it has a creator): it has no guard region.
    pub fn from_host(
        creator: &dyn HostMemoryCreator,
        minimum: u64,
        maximum: Option<u64>,
        memory64: bool,
        page_size_log2: u8,
    ) -> anyhow::Result<LinearMemory> {
        let shape = Shape::new(minimum, maximum, memory64, page_size_log2)?;
        let minimum_bytes = usize::try_from(minimum << page_size_log2)?;
        let most = usize::try_from(shape.maximum_pages << page_size_log2)?;
        let spec = HostMemorySpec {
            minimum_pages: minimum,
            maximum_pages: maximum,
            memory64,
            page_size_log2,
            minimum_bytes,
            maximum_bytes: maximum.map(|_| most),
            reserved_size_in_bytes: Some(most),
            guard_size_in_bytes: 0,
        };
        let memory = creator.new_memory(&spec).map_err(|e| {
            e.context(format!(
                "the host memory creator failed to make a memory of {minimum_bytes} bytes"
            ))
        })?;
        let (base, len) = (memory.as_ptr(), memory.byte_size());
        if base.is_null() {
            anyhow::bail!("the host memory creator gave a memory at address 0");
        }
        if len != minimum_bytes {
            anyhow::bail!("the host memory creator gave a memory of {len} bytes where {minimum_bytes} were asked");
        }
        let definition = Box::new(VMMemoryDefinition {
            base,
            current_length: len,
        });
        Ok(LinearMemory {
            shape,
            storage: Storage::Host {
                memory: HostMemory(memory),
                definition,
            },
        })
    }

    /// A memory as [`LinearMemory::with_image`] makes, in a slot of `pool`
    /// (which limits its size to the pool's `max_memory_size`).
    pub(crate) fn from_pool(
        pool: &Arc<crate::InstancePool>,
        minimum: u64,
        maximum: Option<u64>,
        memory64: bool,
        page_size_log2: u8,
        image: Option<&MemoryImage>,
    ) -> anyhow::Result<(LinearMemory, bool)> {
        let mut shape = Shape::new(minimum, maximum, memory64, page_size_log2)?;
        let mut slot = pool.take_memory_slot()?;
        let limit = slot.max_memory_size() as u64 >> page_size_log2;
        if minimum > limit {
            anyhow::bail!(
                "a memory of {minimum} pages is past the pooling allocator's limit `max_memory_size` ({} bytes)",
                slot.max_memory_size()
            );
        }
        shape.maximum_pages = shape.maximum_pages.min(limit);
        let len = (minimum << page_size_log2) as usize;
        let mmap = slot
            .mmap()
            .ok_or_else(|| anyhow::anyhow!("a pooled memory slot without its reservation"))?;
        mmap.make_accessible(0, len)
            .map_err(|e| anyhow::anyhow!("failed to commit {len} bytes of a pooled linear memory: {e}"))?;
        let mapped = image.is_some_and(|image| image.map_at(mmap.as_ptr(), len).is_ok());
        let definition = Box::new(VMMemoryDefinition {
            base: mmap.as_ptr(),
            current_length: len,
        });
        Ok((
            LinearMemory {
                shape,
                storage: Storage::Pooled { slot, definition },
            },
            mapped,
        ))
    }

    /// A store's handle of the shared memory `shared`.
    pub fn from_shared(shared: SharedLinearMemory) -> LinearMemory {
        LinearMemory {
            shape: shared.0.shape,
            storage: Storage::Shared(shared),
        }
    }

    /// Whether the memory is indexed with `i64`.
    pub fn is_64(&self) -> bool {
        self.shape.memory64
    }

    /// Whether the memory is shared.
    pub fn is_shared(&self) -> bool {
        matches!(self.storage, Storage::Shared(_))
    }

    /// The shared memory this handle stands for, if it is one.
    pub fn shared(&self) -> Option<&SharedLinearMemory> {
        match &self.storage {
            Storage::Shared(s) => Some(s),
            Storage::Owned { .. } | Storage::Pooled { .. } | Storage::Host { .. } => None,
        }
    }

    /// The waiters of a shared memory.
    pub(crate) fn parking_spot(&self) -> Option<&ParkingSpot> {
        self.shared().map(|s| &s.0.parking)
    }

    /// The little-endian value of the `size` bytes (4 or 8) at `addr`, read
    /// atomically; `None` when out of bounds or misaligned.
    pub(crate) fn atomic_load(&self, addr: u64, size: usize) -> Option<u64> {
        atomic_load(self.base(), self.byte_size(), addr, size)
    }

    /// The size in pages.
    pub fn pages(&self) -> u64 {
        self.byte_size() as u64 >> self.shape.page_size_log2
    }

    /// `log2` of the page size in bytes (16, or 0 for 1-byte pages).
    pub fn page_size_log2(&self) -> u8 {
        self.shape.page_size_log2
    }

    /// The page size in bytes.
    pub fn page_size(&self) -> u64 {
        1 << self.shape.page_size_log2
    }

    /// The size in bytes.
    pub fn byte_size(&self) -> usize {
        match &self.storage {
            Storage::Owned { definition, .. }
            | Storage::Pooled { definition, .. }
            | Storage::Host { definition, .. } => definition.current_length,
            Storage::Shared(s) => s.byte_size(),
        }
    }

    /// The largest size in pages this memory may grow to.
    pub fn maximum_pages(&self) -> u64 {
        self.shape.maximum_pages
    }

    /// The maximum the memory declares, in pages.
    pub fn declared_maximum(&self) -> Option<u64> {
        self.shape.declared_maximum
    }

    /// Grows by `delta` pages; returns the old size in pages, or `None` when
    /// the memory cannot grow that far.
    pub fn grow(&mut self, delta: u64) -> Option<u64> {
        match &mut self.storage {
            Storage::Owned { mmap, definition } => {
                let (old, new_len) = self.shape.grow(mmap, definition.current_length, delta)?;
                definition.current_length = new_len;
                Some(old)
            }
            Storage::Shared(s) => s.grow(delta),
            Storage::Pooled { slot, definition } => {
                let (old, new_len) = self.shape.grow(slot.mmap()?, definition.current_length, delta)?;
                definition.current_length = new_len;
                Some(old)
            }
            Storage::Host { memory, definition } => {
                let old_len = definition.current_length;
                let old = old_len as u64 >> self.shape.page_size_log2;
                let new = old.checked_add(delta)?;
                if new > self.shape.maximum_pages {
                    return None;
                }
                let new_len = usize::try_from(new << self.shape.page_size_log2).ok()?;
                if new_len != old_len {
                    memory.0.grow_to(new_len).ok()?;
                    if memory.0.byte_size() < new_len {
                        return None;
                    }
                }
                // The base stays put within the reservation (the trait's
                // contract); re-read it all the same.
                definition.base = memory.0.as_ptr();
                definition.current_length = new_len;
                Some(old)
            }
        }
    }

    /// The contents. For a shared memory, other threads may write them
    /// meanwhile: only the store's own (single-threaded) setup reads them
    /// this way.
    pub fn data(&self) -> &[u8] {
        // SAFETY: `[base, base + byte_size)` is mapped read-write and owned
        // by this memory (or kept alive by its shared handle, and never
        // unmapped or shrunk while it lives, or a host memory's, whose
        // `HostLinearMemory` contract says the same); the borrow of `self`
        // keeps it alive.
        unsafe { std::slice::from_raw_parts(self.base(), self.byte_size()) }
    }

    /// The contents, writable. For a shared memory, see [`LinearMemory::data`].
    pub fn data_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `data`, and `&mut self` makes the borrow unique
        // among this store's users.
        unsafe { std::slice::from_raw_parts_mut(self.base(), self.byte_size()) }
    }

    /// The first byte of the memory.
    pub fn base(&self) -> *mut u8 {
        match &self.storage {
            Storage::Owned { definition, .. }
            | Storage::Pooled { definition, .. }
            | Storage::Host { definition, .. } => definition.base,
            Storage::Shared(s) => s.0.definition.base,
        }
    }

    /// The address of the definition read by compiled code.
    pub(crate) fn definition_ptr(&mut self) -> *mut VMMemoryDefinition {
        match &mut self.storage {
            Storage::Owned { definition, .. }
            | Storage::Pooled { definition, .. }
            | Storage::Host { definition, .. } => &mut **definition,
            // The shared definition has the same layout; compiled code only
            // reads it (the length with a plain load, which is how an
            // atomic word is read on the targets Weft supports).
            Storage::Shared(s) => {
                let def: *const VMSharedMemoryDefinition = &*s.0.definition;
                def.cast_mut().cast()
            }
        }
    }
}

/// The atomic little-endian value of `size` bytes (4 or 8) at `addr` of the
/// `len` accessible bytes at `base`.
fn atomic_load(base: *mut u8, len: usize, addr: u64, size: usize) -> Option<u64> {
    let end = addr.checked_add(size as u64)?;
    if end > len as u64 || !addr.is_multiple_of(size as u64) {
        return None;
    }
    // SAFETY: `[addr, addr + size)` lies inside the accessible part of the
    // memory (checked above) and is aligned to `size`; wasm reads and writes
    // it with atomic or plain accesses of its own.
    unsafe {
        let p = base.add(addr as usize);
        Some(match size {
            4 => u64::from((*p.cast::<AtomicU32>()).load(Ordering::SeqCst)),
            8 => (*p.cast::<AtomicU64>()).load(Ordering::SeqCst),
            _ => return None,
        })
    }
}

/// A memory shared between threads and stores (the threads proposal):
/// cloning it makes another handle of the same memory. Its whole maximum
/// is reserved up front, so its base never moves when it grows; its length
/// only grows.
#[derive(Debug, Clone)]
pub struct SharedLinearMemory(Arc<SharedInner>);

#[derive(Debug)]
struct SharedInner {
    shape: Shape,
    /// The reservation; its lock serializes growth.
    mmap: Mutex<Mmap>,
    definition: Box<VMSharedMemoryDefinition>,
    parking: ParkingSpot,
}

// SAFETY: the definition points into the mapping this value owns; the
// mapping is only changed (made accessible) under the lock, and the length
// is atomic.
unsafe impl Send for SharedInner {}
// SAFETY: as for `Send`.
unsafe impl Sync for SharedInner {}

/// Why an access of [`SharedLinearMemory`] by the host failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedAccessError {
    /// The address is not a multiple of the access size.
    Misaligned,
    /// The access reaches past the end of the memory.
    OutOfBounds,
}

impl SharedLinearMemory {
    /// A shared memory of `minimum` pages that may grow to `maximum`
    /// pages, as [`LinearMemory::new`] takes them.
    pub fn new(minimum: u64, maximum: Option<u64>, memory64: bool, page_size_log2: u8) -> anyhow::Result<Self> {
        let shape = Shape::new(minimum, maximum, memory64, page_size_log2)?;
        let (mmap, len) = shape.reserve(minimum)?;
        let definition = Box::new(VMSharedMemoryDefinition {
            base: mmap.as_ptr(),
            current_length: AtomicUsize::new(len),
        });
        Ok(SharedLinearMemory(Arc::new(SharedInner {
            shape,
            mmap: Mutex::new(mmap),
            definition,
            parking: ParkingSpot::default(),
        })))
    }

    /// Whether `self` and `other` are handles of the same memory.
    pub fn same(&self, other: &SharedLinearMemory) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// An address that identifies the memory while any handle lives.
    pub fn identity(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// The size in bytes (growth by another thread may be under way).
    pub fn byte_size(&self) -> usize {
        self.0.definition.current_length.load(Ordering::SeqCst)
    }

    /// The size in pages.
    pub fn pages(&self) -> u64 {
        self.byte_size() as u64 >> self.0.shape.page_size_log2
    }

    /// `log2` of the page size in bytes.
    pub fn page_size_log2(&self) -> u8 {
        self.0.shape.page_size_log2
    }

    /// Whether the memory is indexed with `i64`.
    pub fn is_64(&self) -> bool {
        self.0.shape.memory64
    }

    /// The maximum the memory declares, in pages.
    pub fn declared_maximum(&self) -> Option<u64> {
        self.0.shape.declared_maximum
    }

    /// The largest size in pages this memory may grow to.
    pub fn maximum_pages(&self) -> u64 {
        self.0.shape.maximum_pages
    }

    /// Grows by `delta` pages; returns the old size in pages, or `None`
    /// when the memory cannot grow that far. Concurrent growths are
    /// serialized; each sees the size the previous one left.
    pub fn grow(&self, delta: u64) -> Option<u64> {
        let mut mmap = self.0.mmap.lock().unwrap_or_else(PoisonError::into_inner);
        let len = &self.0.definition.current_length;
        let (old, new_len) = self.0.shape.grow(&mut mmap, len.load(Ordering::SeqCst), delta)?;
        len.store(new_len, Ordering::SeqCst);
        Some(old)
    }

    /// The accessible bytes, as cells other threads may write at any time.
    pub fn data(&self) -> &[UnsafeCell<u8>] {
        let base = self.0.definition.base.cast::<UnsafeCell<u8>>();
        // SAFETY: `[base, base + byte_size)` is accessible and stays so
        // while the memory lives (it never shrinks, moves or unmaps before
        // the last handle is dropped, and `&self` is one); `UnsafeCell`
        // allows the writes of other threads.
        unsafe { std::slice::from_raw_parts(base, self.byte_size()) }
    }

    /// Checks an access of `size` bytes at `addr`.
    fn check(&self, addr: u64, size: u64) -> Result<(), SharedAccessError> {
        if !addr.is_multiple_of(size) {
            return Err(SharedAccessError::Misaligned);
        }
        match addr.checked_add(size) {
            Some(end) if end <= self.byte_size() as u64 => Ok(()),
            _ => Err(SharedAccessError::OutOfBounds),
        }
    }

    /// Wakes up to `count` waiters at `addr` (which must be 4-byte aligned
    /// and in bounds); returns how many.
    pub fn atomic_notify(&self, addr: u64, count: u32) -> Result<u32, SharedAccessError> {
        self.check(addr, 4)?;
        Ok(self.0.parking.notify(addr, count))
    }

    /// Sleeps at `addr` while its `size` bytes (4 or 8) hold `expected`,
    /// until a notify or `timeout` (`None`: forever).
    pub fn atomic_wait(
        &self,
        addr: u64,
        expected: u64,
        size: usize,
        timeout: Option<Duration>,
    ) -> Result<WaitResult, SharedAccessError> {
        self.check(addr, size as u64)?;
        let base = self.0.definition.base;
        let current = || atomic_load(base, self.byte_size(), addr, size) == Some(expected);
        Ok(self.0.parking.wait(addr, current, timeout))
    }
}
