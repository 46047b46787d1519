//! The GC heap of a store (the GC proposal's structs and arrays).
//!
//! **References.** A reference of the `any` hierarchy is a 32-bit *heap
//! word*:
//! - `0` is null;
//! - a word with its low bit set is an `i31ref`: the 31-bit value in the
//!   upper bits (`(value << 1) | 1`), with no allocation;
//! - any other word is the offset of an object from the start of the heap
//!   (objects are 8-byte aligned, so the low bit is free).
//!
//! Inside GC objects a reference field takes these 4 bytes. In wasm values
//! (locals, parameters, globals, table elements, `ValRaw`) it is, like every
//! Weft reference, a pointer-sized word holding the heap word zero-extended,
//! so nothing outside GC code changes.
//!
//! **Objects.** Every object starts with a header of 8 bytes: its engine
//! type id (`u32`, the canonical `VMSharedTypeIndex` of its struct or array
//! type) and its size in bytes (`u32`). Struct fields and array elements
//! follow at the offsets of `weft_environ::struct_layout` and
//! `array_layout` (an array's length, `u32`, right after the header).
//!
//! **Memory.** The heap is one reservation of address space that never
//! moves, so compiled code can reach an object at `base + word` (the base is
//! in the store context, `weft_environ::vmstore::GC_HEAP_BASE`). Pages are
//! made accessible as allocation reaches them, and fresh pages are zero,
//! which is every field's default. The heap is made on the store's first
//! allocation; a store that never allocates pays nothing.
//!
//! **Collection.** This is the null collector (Wasmtime's
//! `Collector::Null`): objects are allocated by bumping a pointer and never
//! freed. When the heap's limit is reached, allocation fails
//! ([`GcHeapOutOfMemory`]) and the allocating instruction traps; nothing
//! crashes. A tracing collector can replace the bump allocator behind the
//! same interface: every object's header gives its type and size, so a heap
//! walk and the type's layout find every reference an object holds.

use crate::mmap::{page_size, round_up, Mmap};
use std::fmt;

/// The most address space a GC heap reserves: heap words are 32-bit
/// offsets.
pub const GC_HEAP_MAX_RESERVATION: usize = 1 << 32;

/// The default limit of a store's GC heap: 1 GiB.
pub const DEFAULT_GC_HEAP_LIMIT: u64 = 1 << 30;

/// The granularity in which a heap makes its pages accessible.
const COMMIT_CHUNK: usize = 1 << 16;

/// The first offset handed out: offset 0 is null, and the rest of the first
/// object slot stays unused.
const FIRST_OBJECT: u32 = weft_environ::GC_OBJECT_ALIGN;

/// An allocation did not fit in the GC heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcHeapOutOfMemory {
    /// The size of the object that did not fit, in bytes.
    pub requested: u64,
    /// The bytes in use when it was asked for.
    pub used: u64,
    /// The heap's limit.
    pub limit: u64,
}

impl fmt::Display for GcHeapOutOfMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GC heap out of memory: an object of {} bytes does not fit ({} of {} bytes in use)",
            self.requested, self.used, self.limit
        )
    }
}

impl std::error::Error for GcHeapOutOfMemory {}

/// The `i31ref` heap word of `value` (its upper bit dropped).
pub fn i31_word(value: i32) -> u32 {
    ((value as u32) << 1) | 1
}

/// Whether `word` is an `i31ref`.
pub fn is_i31(word: u32) -> bool {
    word & 1 == 1
}

/// The value of the `i31ref` `word`, sign-extended from 31 bits.
pub fn i31_get_s(word: u32) -> i32 {
    (word as i32) >> 1
}

/// The value of the `i31ref` `word`, zero-extended from 31 bits.
pub fn i31_get_u(word: u32) -> u32 {
    word >> 1
}

/// What the casts need to know of a type of GC objects.
#[derive(Debug, Clone)]
pub struct GcTypeInfo {
    /// Struct or array (or function).
    pub kind: weft_environ::CompositeKind,
    /// The type's supertype display: its supertypes from the root down to
    /// itself (engine ids), so that a subtype test is one comparison at the
    /// target's depth.
    pub display: Box<[u32]>,
}

/// One store's GC heap (see the module docs).
pub struct GcHeap {
    mmap: Mmap,
    /// The end of the accessible pages.
    accessible: usize,
    /// The next free offset.
    next: u32,
    /// The most bytes the heap may use.
    limit: u32,
    /// The number of objects allocated.
    objects: u64,
}

impl fmt::Debug for GcHeap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GcHeap")
            .field("used", &self.next)
            .field("limit", &self.limit)
            .field("objects", &self.objects)
            .finish()
    }
}

impl GcHeap {
    /// A heap that may use up to `limit` bytes (at most 4 GiB minus a
    /// page). Only address space is reserved here.
    pub fn new(limit: u64) -> std::io::Result<GcHeap> {
        let max = (GC_HEAP_MAX_RESERVATION - page_size()) as u64;
        let limit = limit.clamp(u64::from(FIRST_OBJECT), max) as u32;
        let mmap = Mmap::reserve(round_up(limit as usize, page_size()))?;
        Ok(GcHeap {
            mmap,
            accessible: 0,
            next: FIRST_OBJECT,
            limit,
            objects: 0,
        })
    }

    /// The address of offset 0, which compiled code adds heap words to.
    pub fn base(&self) -> *mut u8 {
        self.mmap.as_ptr()
    }

    /// The bytes allocated so far (the first unused slot included).
    pub fn used(&self) -> u64 {
        u64::from(self.next)
    }

    /// The most bytes the heap may use.
    pub fn limit(&self) -> u64 {
        u64::from(self.limit)
    }

    /// The number of objects allocated so far.
    pub fn objects(&self) -> u64 {
        self.objects
    }

    /// Allocates an object of `size` bytes (header included) of type
    /// `type_id`, with its header written and every other byte zero, and
    /// returns its heap word.
    pub fn alloc(&mut self, type_id: u32, size: u64) -> Result<u32, GcHeapOutOfMemory> {
        let oom = GcHeapOutOfMemory {
            requested: size,
            used: self.used(),
            limit: self.limit(),
        };
        let align = u64::from(weft_environ::GC_OBJECT_ALIGN);
        let size = size.max(u64::from(weft_environ::GC_HEADER_SIZE));
        let size = size.checked_next_multiple_of(align).ok_or(oom)?;
        let end = u64::from(self.next) + size;
        if end > u64::from(self.limit) {
            return Err(oom);
        }
        let end = end as usize;
        if end > self.accessible {
            let new_accessible = round_up(end, COMMIT_CHUNK).min(round_up(self.limit as usize, page_size()));
            self.mmap
                .make_accessible(self.accessible, new_accessible - self.accessible)
                .map_err(|_| oom)?;
            self.accessible = new_accessible;
        }
        let word = self.next;
        self.next = end as u32;
        self.objects += 1;
        self.write_u32(word, weft_environ::GC_HEADER_TYPE_OFFSET, type_id);
        self.write_u32(word, weft_environ::GC_HEADER_SIZE_OFFSET, size as u32);
        Ok(word)
    }

    /// Whether `word` is the heap word of an object of this heap: not null,
    /// not an `i31ref`, aligned and below the allocation pointer. (Every
    /// word compiled code or the host holds is one; this keeps the host's
    /// accessors sound on any input.)
    pub fn is_object(&self, word: u32) -> bool {
        word >= FIRST_OBJECT && word < self.next && word.is_multiple_of(weft_environ::GC_OBJECT_ALIGN)
    }

    /// The bytes `[word + offset, word + offset + len)`, if they lie inside
    /// the object `word`.
    pub fn object_bytes(&self, word: u32, offset: u32, len: u32) -> Option<&[u8]> {
        let range = self.object_range(word, offset, len)?;
        // SAFETY: `object_range` checked that the range lies in allocated,
        // hence accessible, memory of the mapping, which lives as long as
        // `self`; `&self` excludes writers through this heap.
        Some(unsafe { std::slice::from_raw_parts(self.base().add(range.start), range.len()) })
    }

    /// The bytes `[word + offset, word + offset + len)` for writing, if they
    /// lie inside the object `word`.
    pub fn object_bytes_mut(&mut self, word: u32, offset: u32, len: u32) -> Option<&mut [u8]> {
        let range = self.object_range(word, offset, len)?;
        // SAFETY: as in `object_bytes`, with `&mut self` for exclusivity.
        Some(unsafe { std::slice::from_raw_parts_mut(self.base().add(range.start), range.len()) })
    }

    /// The length of array `word` (the `u32` after its header), if `word`
    /// is an object.
    pub fn array_len(&self, word: u32) -> Option<u32> {
        let bytes = self.object_bytes(word, weft_environ::GC_ARRAY_LENGTH_OFFSET, 4)?;
        Some(u32::from_le_bytes(bytes.try_into().ok()?))
    }

    /// Sets the length of the new array `word`.
    pub fn set_array_len(&mut self, word: u32, len: u32) {
        if let Some(bytes) = self.object_bytes_mut(word, weft_environ::GC_ARRAY_LENGTH_OFFSET, 4) {
            bytes.copy_from_slice(&len.to_le_bytes());
        }
    }

    /// Copies `len` bytes from heap offset `src` to heap offset `dst` (the
    /// ranges may overlap); nothing when a range leaves the allocated part
    /// of the heap.
    pub fn copy_within(&mut self, src: usize, dst: usize, len: usize) {
        let used = self.next as usize;
        if src.checked_add(len).is_none_or(|end| end > used) || dst.checked_add(len).is_none_or(|end| end > used) {
            return;
        }
        // SAFETY: both ranges lie in the allocated, accessible part of the
        // mapping (checked above); `copy` allows overlap; `&mut self` makes
        // this the only access through the heap.
        unsafe { std::ptr::copy(self.base().add(src), self.base().add(dst), len) }
    }

    /// The type id and size in the header of object `word`.
    pub fn header(&self, word: u32) -> Option<(u32, u32)> {
        if !self.is_object(word) {
            return None;
        }
        Some((
            self.read_u32(word, weft_environ::GC_HEADER_TYPE_OFFSET),
            self.read_u32(word, weft_environ::GC_HEADER_SIZE_OFFSET),
        ))
    }

    fn object_range(&self, word: u32, offset: u32, len: u32) -> Option<std::ops::Range<usize>> {
        let (_, size) = self.header(word)?;
        let end = offset.checked_add(len)?;
        if end > size {
            return None;
        }
        let start = word as usize + offset as usize;
        Some(start..start + len as usize)
    }

    fn read_u32(&self, word: u32, offset: u32) -> u32 {
        let at = word as usize + offset as usize;
        debug_assert!(at + 4 <= self.next as usize);
        // SAFETY: callers pass the offset of a header field of an object
        // below `next`, which is accessible memory of the mapping.
        unsafe { self.base().add(at).cast::<u32>().read_unaligned() }
    }

    fn write_u32(&mut self, word: u32, offset: u32, value: u32) {
        let at = word as usize + offset as usize;
        debug_assert!(at + 4 <= self.next as usize);
        // SAFETY: as in `read_u32`, with `&mut self` for exclusivity.
        unsafe { self.base().add(at).cast::<u32>().write_unaligned(value) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i31_words_round_trip_and_are_never_objects() {
        for v in [0, 1, -1, (1 << 30) - 1, -(1 << 30), i32::MAX, i32::MIN] {
            let w = i31_word(v);
            assert!(is_i31(w));
            assert_eq!(i31_get_s(w), (v << 1) >> 1);
            assert_eq!(i31_get_u(w), (v as u32) & 0x7fff_ffff);
        }
        assert_eq!(i31_get_s(i31_word(-1)), -1);
        assert_eq!(i31_get_u(i31_word(-1)), 0x7fff_ffff);
        let heap = GcHeap::new(1 << 20).unwrap();
        assert!(!heap.is_object(i31_word(4)));
    }

    #[test]
    fn objects_are_zeroed_with_their_header() {
        let mut heap = GcHeap::new(1 << 20).unwrap();
        let a = heap.alloc(7, 20).unwrap();
        let b = heap.alloc(9, 8).unwrap();
        assert_eq!(a, FIRST_OBJECT);
        assert_eq!(b, a + 24);
        assert_eq!(heap.header(a), Some((7, 24)));
        assert_eq!(heap.header(b), Some((9, 8)));
        assert_eq!(heap.object_bytes(a, 8, 16), Some(&[0u8; 16][..]));
        heap.object_bytes_mut(a, 8, 4).unwrap().copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(heap.object_bytes(a, 8, 4), Some(&[1u8, 2, 3, 4][..]));
        // Out of the object, null, i31 and misaligned words are refused.
        assert!(heap.object_bytes(a, 20, 8).is_none());
        assert!(heap.object_bytes(0, 0, 1).is_none());
        assert!(heap.header(a + 4).is_none());
        assert!(heap.header(b + 8).is_none());
        assert_eq!(heap.objects(), 2);
    }

    #[test]
    fn running_out_is_an_error_not_a_crash() {
        let mut heap = GcHeap::new(1 << 17).unwrap();
        let mut n = 0u64;
        let err = loop {
            match heap.alloc(1, 1000) {
                Ok(w) => {
                    // Every byte of every object is writable.
                    heap.object_bytes_mut(w, 8, 1000 - 8).unwrap().fill(0xff);
                    n += 1;
                }
                Err(e) => break e,
            }
        };
        assert_eq!(n, ((1 << 17) - u64::from(FIRST_OBJECT)) / 1000);
        assert_eq!(err.requested, 1000);
        assert!(err.to_string().contains("GC heap out of memory"));
        assert!(heap.alloc(1, u64::MAX).is_err());
        assert!(heap.used() <= heap.limit());
    }
}
