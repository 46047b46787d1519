//! Linear memories: a 4 GiB reservation plus a 4 GiB guard region, so that
//! compiled code needs no bounds checks for 32-bit addresses with 32-bit
//! offsets. Growing only changes page protections; the base never moves.
//!
//! 64-bit memories get the same reservation and the same 4 GiB limit; their
//! index space is far larger than any guard region, so compiled code checks
//! every access against the current length instead.

use crate::memory_image::MemoryImage;
use crate::mmap::Mmap;
use weft_environ::WASM_PAGE_SIZE;

/// Bytes of address space reserved for every 32-bit memory, guard included.
pub const MEMORY_RESERVATION: usize = 8 << 30;

/// The largest number of pages of a 32-bit memory.
pub const MAX_PAGES_32: u64 = 1 << 16;

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
}

// SAFETY: the definition only points into our own mapping.
unsafe impl Send for LinearMemory {}
// SAFETY: as for `Send`; mutation requires `&mut self`.
unsafe impl Sync for LinearMemory {}

impl LinearMemory {
    /// A memory of `minimum` pages that may grow to `maximum` pages (at most
    /// 4 GiB), indexed with `i64` when `memory64` is set.
    pub fn new(minimum: u64, maximum: Option<u64>, memory64: bool) -> anyhow::Result<LinearMemory> {
        Ok(Self::with_image(minimum, maximum, memory64, None)?.0)
    }

    /// A memory as [`LinearMemory::new`] makes, whose initial contents are
    /// mapped from `image` when one is given. Returns whether the image was
    /// mapped; when it was not (the host refused the mapping), the memory is
    /// zeroed and the caller copies the data segments instead.
    pub fn with_image(
        minimum: u64,
        maximum: Option<u64>,
        memory64: bool,
        image: Option<&MemoryImage>,
    ) -> anyhow::Result<(LinearMemory, bool)> {
        let maximum_pages = maximum.unwrap_or(MAX_PAGES_32).min(MAX_PAGES_32);
        if minimum > maximum_pages {
            anyhow::bail!("memory minimum size of {minimum} pages exceeds the limit of {maximum_pages} pages");
        }
        let mut mmap = Mmap::reserve(MEMORY_RESERVATION)
            .map_err(|e| anyhow::anyhow!("failed to reserve address space for a linear memory: {e}"))?;
        let len = (minimum * WASM_PAGE_SIZE) as usize;
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
        };
        Ok((memory, mapped))
    }

    /// Whether the memory is indexed with `i64`.
    pub fn is_64(&self) -> bool {
        self.memory64
    }

    /// The size in pages.
    pub fn pages(&self) -> u64 {
        self.definition.current_length as u64 / WASM_PAGE_SIZE
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
        let new_len = (new * WASM_PAGE_SIZE) as usize;
        self.mmap.make_accessible(old_len, new_len - old_len).ok()?;
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
