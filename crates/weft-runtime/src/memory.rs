//! Linear memories: a 4 GiB reservation plus a 4 GiB guard region, so that
//! compiled code needs no bounds checks for 32-bit addresses with 32-bit
//! offsets. Growing only changes page protections; the base never moves.
//!
//! 64-bit memories get the same reservation and the same 4 GiB limit; their
//! index space is far larger than any guard region, so compiled code checks
//! every access against the current length instead.

use crate::memory_image::MemoryImage;
use crate::mmap::{page_size, Mmap};
use crate::parking::ParkingSpot;

/// Bytes of address space reserved for every 32-bit memory, guard included.
pub const MEMORY_RESERVATION: usize = 8 << 30;

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

/// A linear memory: its reservation (with guard pages) and its size.
#[derive(Debug)]
pub struct LinearMemory {
    mmap: Mmap,
    definition: Box<VMMemoryDefinition>,
    maximum_pages: u64,
    memory64: bool,
    declared_maximum: Option<u64>,
    page_size_log2: u8,
    /// The waiters of a shared memory (none for one that is not shared).
    parking: Option<Box<ParkingSpot>>,
}

// SAFETY: the definition only points into our own mapping.
unsafe impl Send for LinearMemory {}
// SAFETY: as for `Send`; mutation requires `&mut self`.
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
        if page_size_log2 != 0 && page_size_log2 != 16 {
            anyhow::bail!("a page size of 2^{page_size_log2} bytes is not supported (only 1 and 65536)");
        }
        let limit = max_pages(page_size_log2);
        let maximum_pages = maximum.unwrap_or(limit).min(limit);
        if minimum > maximum_pages {
            anyhow::bail!("memory minimum size of {minimum} pages exceeds the limit of {maximum_pages} pages");
        }
        let mut mmap = Mmap::reserve(MEMORY_RESERVATION)
            .map_err(|e| anyhow::anyhow!("failed to reserve address space for a linear memory: {e}"))?;
        let len = (minimum << page_size_log2) as usize;
        mmap.make_accessible(0, len)
            .map_err(|e| anyhow::anyhow!("failed to commit {len} bytes of linear memory: {e}"))?;
        let mapped = image.is_some_and(|image| image.map_at(mmap.as_ptr(), len).is_ok());
        let definition = Box::new(VMMemoryDefinition {
            base: mmap.as_ptr(),
            current_length: len,
        });
        let memory = LinearMemory {
            mmap,
            definition,
            maximum_pages,
            memory64,
            declared_maximum: maximum,
            page_size_log2,
            parking: None,
        };
        Ok((memory, mapped))
    }

    /// Whether the memory is indexed with `i64`.
    pub fn is_64(&self) -> bool {
        self.memory64
    }

    /// Makes the memory a shared one (the threads proposal): atomic waits
    /// on it sleep instead of trapping. Shared memories are used by one
    /// store only so far.
    pub fn set_shared(&mut self) {
        if self.parking.is_none() {
            self.parking = Some(Box::default());
        }
    }

    /// Whether the memory is shared.
    pub fn is_shared(&self) -> bool {
        self.parking.is_some()
    }

    /// The waiters of a shared memory.
    pub(crate) fn parking_spot(&self) -> Option<&ParkingSpot> {
        self.parking.as_deref()
    }

    /// The little-endian value of the `size` bytes (4 or 8) at `addr`, read
    /// atomically; `None` when out of bounds or misaligned.
    pub(crate) fn atomic_load(&self, addr: u64, size: usize) -> Option<u64> {
        let end = addr.checked_add(size as u64)?;
        if end > self.definition.current_length as u64 || !addr.is_multiple_of(size as u64) {
            return None;
        }
        // SAFETY: `[addr, addr + size)` lies inside the accessible part of
        // the memory (checked above) and is aligned to `size`; wasm reads
        // and writes it with atomic or plain accesses of its own.
        unsafe {
            let p = self.definition.base.add(addr as usize);
            Some(match size {
                4 => u64::from((*p.cast::<std::sync::atomic::AtomicU32>()).load(std::sync::atomic::Ordering::SeqCst)),
                8 => (*p.cast::<std::sync::atomic::AtomicU64>()).load(std::sync::atomic::Ordering::SeqCst),
                _ => return None,
            })
        }
    }

    /// The size in pages.
    pub fn pages(&self) -> u64 {
        self.definition.current_length as u64 >> self.page_size_log2
    }

    /// `log2` of the page size in bytes (16, or 0 for 1-byte pages).
    pub fn page_size_log2(&self) -> u8 {
        self.page_size_log2
    }

    /// The page size in bytes.
    pub fn page_size(&self) -> u64 {
        1 << self.page_size_log2
    }

    /// The size in bytes.
    pub fn byte_size(&self) -> usize {
        self.definition.current_length
    }

    /// The largest size in pages this memory may grow to.
    pub fn maximum_pages(&self) -> u64 {
        self.maximum_pages
    }

    /// The maximum the memory declares, in pages.
    pub fn declared_maximum(&self) -> Option<u64> {
        self.declared_maximum
    }

    /// Grows by `delta` pages; returns the old size in pages, or `None` when
    /// the memory cannot grow that far.
    pub fn grow(&mut self, delta: u64) -> Option<u64> {
        let old = self.pages();
        let new = old.checked_add(delta)?;
        if new > self.maximum_pages {
            return None;
        }
        let old_len = self.definition.current_length;
        let new_len = (new << self.page_size_log2) as usize;
        // With 1-byte pages the old end may fall inside a host page, which
        // is accessible already: protection changes start at its page.
        let start = old_len / page_size() * page_size();
        self.mmap.make_accessible(start, new_len - start).ok()?;
        self.definition.current_length = new_len;
        Some(old)
    }

    /// The contents.
    pub fn data(&self) -> &[u8] {
        // SAFETY: `[base, base + current_length)` is mapped read-write and
        // owned by this memory; the borrow of `self` keeps it alive.
        unsafe { std::slice::from_raw_parts(self.definition.base, self.definition.current_length) }
    }

    /// The contents, writable.
    pub fn data_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `data`, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.definition.base, self.definition.current_length) }
    }

    /// The first byte of the memory.
    pub fn base(&self) -> *mut u8 {
        self.definition.base
    }

    /// The address of the definition read by compiled code.
    pub(crate) fn definition_ptr(&mut self) -> *mut VMMemoryDefinition {
        &mut *self.definition
    }
}
