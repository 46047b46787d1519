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
//! **Collection.** A non-moving mark-sweep collector. Allocation takes a
//! block of the exact size class from the free lists, else a large free
//! block (first fit), else bumps a pointer up to the heap's current
//! *capacity*. When nothing fits, the store collects (see
//! `VMStoreContext::gc_alloc`): it marks from the roots (the stack maps of
//! the wasm frames on the stack, globals, tables, the pending exception and
//! the host's roots, then the payloads of the exceptions found reachable), traces every marked object through its type's layout
//! ([`GcTrace`]), and sweeps: every gap between live objects becomes a free
//! block. Cycles are freed like anything else unreachable. After a
//! collection that leaves the heap more than half full, the capacity doubles,
//! up to the heap's limit; past the limit allocation fails
//! ([`GcHeapOutOfMemory`]) and the allocating instruction traps.
//!
//! A side bitmap records where objects start, so a root word that is not the
//! start of a live object (an integer a conservative root source holds, or a
//! stale host handle) is never followed.

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

/// Where the references of a type's objects are.
#[derive(Debug, Clone, Default)]
pub enum GcTrace {
    /// The objects hold no reference.
    #[default]
    Nothing,
    /// Struct fields holding references: their offset and width (4: a heap
    /// word, 8: a reference word of another hierarchy).
    Struct(Box<[(u32, u8)]>),
    /// Array elements holding references.
    Array {
        /// The offset of element 0.
        elems_offset: u32,
        /// The size of an element: 4 (heap words) or 8.
        elem_size: u32,
    },
}

/// What the casts and the collector need to know of a type of GC objects.
#[derive(Debug, Clone)]
pub struct GcTypeInfo {
    /// Struct or array (or function).
    pub kind: weft_environ::CompositeKind,
    /// The type's supertype display: its supertypes from the root down to
    /// itself (engine ids), so that a subtype test is one comparison at the
    /// target's depth.
    pub display: Box<[u32]>,
    /// Where its objects hold references.
    pub trace: GcTrace,
}

/// The width of a stored reference of `ty` inside an object, if it is one.
fn ref_width(ty: weft_environ::WasmStorageType) -> Option<u8> {
    match ty {
        weft_environ::WasmStorageType::Val(v) if v.is_gc_ref() => Some(4),
        weft_environ::WasmStorageType::Val(weft_environ::WasmValType::Ref(_)) => Some(8),
        _ => None,
    }
}

impl GcTypeInfo {
    /// The information of `ty` with supertype display `display`.
    pub fn new(ty: &weft_environ::WasmSubType, display: Box<[u32]>) -> GcTypeInfo {
        let trace = if let Some(st) = ty.as_struct() {
            let layout = weft_environ::struct_layout(st);
            // The descriptor (custom descriptors), a GC heap word, first.
            let descriptor = layout
                .descriptor_offset
                .map(|off| (off, weft_environ::GC_REF_SIZE as u8));
            let refs: Box<[(u32, u8)]> = descriptor
                .into_iter()
                .chain(
                    st.fields
                        .iter()
                        .zip(layout.field_offsets.iter())
                        .filter_map(|(f, off)| ref_width(f.element_type).map(|w| (*off, w))),
                )
                .collect();
            if refs.is_empty() {
                GcTrace::Nothing
            } else {
                GcTrace::Struct(refs)
            }
        } else if let Some(at) = ty.as_array() {
            match ref_width(at.0.element_type) {
                Some(_) => {
                    let layout = weft_environ::array_layout(at);
                    GcTrace::Array {
                        elems_offset: layout.elems_offset,
                        elem_size: layout.elem_size,
                    }
                }
                None => GcTrace::Nothing,
            }
        } else {
            GcTrace::Nothing
        };
        GcTypeInfo {
            kind: ty.composite.kind(),
            display,
            trace,
        }
    }
}

/// The largest block size kept in an exact-size free list.
const SMALL_MAX: u32 = 512;

/// The smallest capacity a heap starts with.
const MIN_CAPACITY: u32 = 1 << 18;

/// The granule of the side bitmaps (one bit per aligned 8 bytes).
const GRANULE: u32 = weft_environ::GC_OBJECT_ALIGN;

/// What one collection did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GcStats {
    /// Objects freed.
    pub freed_objects: u64,
    /// Bytes of live objects left.
    pub live_bytes: u64,
}

fn bit(bits: &[u64], word: u32) -> bool {
    let g = (word / GRANULE) as usize;
    bits.get(g / 64).is_some_and(|w| w & (1 << (g % 64)) != 0)
}

fn set_bit(bits: &mut Vec<u64>, word: u32, on: bool) {
    let g = (word / GRANULE) as usize;
    if bits.len() <= g / 64 {
        bits.resize(g / 64 + 1, 0);
    }
    if on {
        bits[g / 64] |= 1 << (g % 64);
    } else {
        bits[g / 64] &= !(1 << (g % 64));
    }
}

/// One store's GC heap (see the module docs).
pub struct GcHeap {
    mmap: Mmap,
    /// The end of the accessible pages.
    accessible: usize,
    /// The end of the bump region: every byte from here on is zero.
    next: u32,
    /// The most bytes the heap may use.
    limit: u32,
    /// The bytes the heap may use before it collects.
    capacity: u32,
    /// The number of live (or not yet collected) objects.
    objects: u64,
    /// The bytes of those objects.
    object_bytes: u64,
    /// Where objects start.
    starts: Vec<u64>,
    /// Marks of the collection running.
    marks: Vec<u64>,
    /// Free blocks by size class (`size / GRANULE`), up to `SMALL_MAX`.
    small_free: Vec<Vec<u32>>,
    /// Larger free blocks: offset and size.
    large_free: Vec<(u32, u32)>,
    /// Collections so far.
    collections: u64,
}

impl fmt::Debug for GcHeap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GcHeap")
            .field("used", &self.next)
            .field("capacity", &self.capacity)
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
            capacity: MIN_CAPACITY.min(limit),
            objects: 0,
            object_bytes: 0,
            starts: Vec::new(),
            marks: Vec::new(),
            small_free: vec![Vec::new(); (SMALL_MAX / GRANULE + 1) as usize],
            large_free: Vec::new(),
            collections: 0,
        })
    }

    /// The address of offset 0, which compiled code adds heap words to.
    pub fn base(&self) -> *mut u8 {
        self.mmap.as_ptr()
    }

    /// The extent of the heap in use: the end of its bump region (live and
    /// free blocks below it).
    pub fn used(&self) -> u64 {
        u64::from(self.next)
    }

    /// The bytes the heap may use before its next collection.
    pub fn capacity(&self) -> u64 {
        u64::from(self.capacity)
    }

    /// The bytes held by objects not yet freed.
    pub fn object_bytes_in_use(&self) -> u64 {
        self.object_bytes
    }

    /// The most bytes the heap may use.
    pub fn limit(&self) -> u64 {
        u64::from(self.limit)
    }

    /// The number of objects not yet freed.
    pub fn objects(&self) -> u64 {
        self.objects
    }

    /// The number of collections so far.
    pub fn collections(&self) -> u64 {
        self.collections
    }

    /// Raises the capacity to at least `bytes` (at most the limit); returns
    /// whether it changed.
    pub fn grow_capacity(&mut self, bytes: u64) -> bool {
        let new = bytes.min(u64::from(self.limit)) as u32;
        if new > self.capacity {
            self.capacity = new;
            true
        } else {
            false
        }
    }

    fn oom(&self, size: u64) -> GcHeapOutOfMemory {
        GcHeapOutOfMemory {
            requested: size,
            used: self.object_bytes,
            limit: self.limit(),
        }
    }

    /// Allocates an object of `size` bytes (header included) of type
    /// `type_id`, with its header written and every other byte zero, and
    /// returns its heap word. Fails when no free block fits and the bump
    /// region has reached the capacity: the caller may collect, or raise
    /// the capacity, and try again.
    pub fn alloc(&mut self, type_id: u32, size: u64) -> Result<u32, GcHeapOutOfMemory> {
        let oom = self.oom(size);
        let align = u64::from(GRANULE);
        let size = size.max(u64::from(weft_environ::GC_HEADER_SIZE));
        let size = size.checked_next_multiple_of(align).ok_or(oom)?;
        if size > u64::from(self.limit) {
            return Err(oom);
        }
        let size32 = size as u32;
        let word = match self.take_free(size32) {
            Some(word) => {
                // SAFETY: free blocks lie below `next`, in accessible memory
                // of the mapping; `&mut self` makes this the only access.
                unsafe { std::ptr::write_bytes(self.base().add(word as usize), 0, size as usize) };
                word
            }
            None => {
                let end = u64::from(self.next) + size;
                if end > u64::from(self.capacity) {
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
                word
            }
        };
        self.objects += 1;
        self.object_bytes += size;
        set_bit(&mut self.starts, word, true);
        self.write_u32(word, weft_environ::GC_HEADER_TYPE_OFFSET, type_id);
        self.write_u32(word, weft_environ::GC_HEADER_SIZE_OFFSET, size32);
        Ok(word)
    }

    fn take_free(&mut self, size: u32) -> Option<u32> {
        if size <= SMALL_MAX {
            if let Some(word) = self.small_free[(size / GRANULE) as usize].pop() {
                return Some(word);
            }
        }
        let i = self.large_free.iter().position(|(_, s)| *s >= size)?;
        let (word, block) = self.large_free[i];
        let rest = block - size;
        if rest == 0 {
            self.large_free.swap_remove(i);
        } else {
            self.large_free.swap_remove(i);
            self.add_free(word + size, rest);
        }
        Some(word)
    }

    fn add_free(&mut self, word: u32, size: u32) {
        if size == 0 {
            return;
        }
        if size <= SMALL_MAX {
            self.small_free[(size / GRANULE) as usize].push(word);
        } else {
            self.large_free.push((word, size));
        }
    }

    /// Whether `word` is the heap word of a live object of this heap: not
    /// null, not an `i31ref`, and where an object starts. (Every word
    /// compiled code or the host holds is one; this keeps the host's
    /// accessors and the collector's conservative roots sound on any input.)
    pub fn is_object(&self, word: u32) -> bool {
        word >= FIRST_OBJECT && word < self.next && word.is_multiple_of(GRANULE) && bit(&self.starts, word)
    }

    /// Collects: marks every object reachable from `roots` (reference
    /// words: heap words, or extern reference words, see
    /// `weft_environ::EXTERN_HOLDS_ANY`) through the layouts of `types`,
    /// and frees the others. `extern_marks` gets `true` at `index` for
    /// every extern reference word `index + 1` found reachable.
    ///
    /// `other` sees every non-null word found reachable (roots and fields
    /// alike, whatever they turn out to be) and may push more root words
    /// (the store marks exceptions this way, and roots their payloads).
    pub fn collect(
        &mut self,
        types: &std::collections::HashMap<u32, GcTypeInfo>,
        roots: impl IntoIterator<Item = u64>,
        extern_marks: &mut [bool],
        other: &mut dyn FnMut(u64, &mut Vec<u64>),
    ) -> GcStats {
        self.collections += 1;
        self.marks.clear();
        self.marks.resize(self.starts.len(), 0);
        let mut work = Vec::new();
        let mut found: Vec<u64> = roots.into_iter().collect();
        loop {
            while let Some(w) = found.pop() {
                if w != 0 {
                    self.mark_word(w, &mut work, extern_marks);
                    other(w, &mut found);
                }
            }
            let Some(word) = work.pop() else { break };
            let Some((ty, _)) = self.header(word) else { continue };
            if ty == weft_environ::GC_EXTERN_BOX_TYPE {
                found.push(self.read_u64(word, 8));
                continue;
            }
            match types.get(&ty).map(|t| &t.trace) {
                Some(GcTrace::Struct(refs)) => {
                    for &(offset, width) in refs.iter() {
                        let w = if width == 4 {
                            u64::from(self.read_u32(word, offset))
                        } else {
                            self.read_u64(word, offset)
                        };
                        found.push(w);
                    }
                }
                Some(GcTrace::Array {
                    elems_offset,
                    elem_size,
                }) => {
                    let len = self.read_u32(word, weft_environ::GC_ARRAY_LENGTH_OFFSET);
                    for i in 0..len {
                        let offset = elems_offset + i * elem_size;
                        let w = if *elem_size == 4 {
                            u64::from(self.read_u32(word, offset))
                        } else {
                            self.read_u64(word, offset)
                        };
                        found.push(w);
                    }
                }
                _ => {}
            }
        }
        self.sweep()
    }

    fn mark_word(&mut self, w: u64, work: &mut Vec<u32>, extern_marks: &mut [bool]) {
        if w == 0 {
            return;
        }
        let heap_word = if w & weft_environ::EXTERN_HOLDS_ANY != 0 {
            Some(w as u32)
        } else {
            if let Some(m) = usize::try_from(w - 1).ok().and_then(|i| extern_marks.get_mut(i)) {
                *m = true;
            }
            u32::try_from(w).ok()
        };
        if let Some(word) = heap_word {
            if self.is_object(word) && !bit(&self.marks, word) {
                set_bit(&mut self.marks, word, true);
                work.push(word);
            }
        }
    }

    fn sweep(&mut self) -> GcStats {
        for list in &mut self.small_free {
            list.clear();
        }
        self.large_free.clear();
        let mut freed = 0;
        let mut live_bytes = 0u64;
        let mut live = 0u64;
        let mut cursor = FIRST_OBJECT;
        for i in 0..self.starts.len() {
            let mut bits = self.starts[i];
            while bits != 0 {
                let b = bits.trailing_zeros();
                bits &= bits - 1;
                let word = (i as u32 * 64 + b) * GRANULE;
                let size = self.read_u32(word, weft_environ::GC_HEADER_SIZE_OFFSET);
                if self.marks.get(i).is_some_and(|m| m & (1 << b) != 0) {
                    self.add_free(cursor, word - cursor);
                    cursor = word + size;
                    live += 1;
                    live_bytes += u64::from(size);
                } else {
                    self.starts[i] &= !(1 << b);
                    freed += 1;
                }
            }
        }
        // Everything after the last live object goes back to the bump
        // region, zeroed as that region must be.
        if cursor < self.next {
            // SAFETY: `[cursor, next)` lies in accessible memory of the
            // mapping; `&mut self` makes this the only access.
            unsafe { std::ptr::write_bytes(self.base().add(cursor as usize), 0, (self.next - cursor) as usize) };
            self.next = cursor;
        }
        self.starts.truncate((self.next / GRANULE) as usize / 64 + 1);
        self.objects = live;
        self.object_bytes = live_bytes;
        GcStats {
            freed_objects: freed,
            live_bytes,
        }
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
        assert!(at + 4 <= self.next as usize, "GC heap read out of bounds");
        // SAFETY: the offset lies below `next` (checked), which is
        // accessible memory of the mapping.
        unsafe { self.base().add(at).cast::<u32>().read_unaligned() }
    }

    fn read_u64(&self, word: u32, offset: u32) -> u64 {
        let at = word as usize + offset as usize;
        assert!(at + 8 <= self.next as usize, "GC heap read out of bounds");
        // SAFETY: as in `read_u32`.
        unsafe { self.base().add(at).cast::<u64>().read_unaligned() }
    }

    fn write_u32(&mut self, word: u32, offset: u32, value: u32) {
        let at = word as usize + offset as usize;
        assert!(at + 4 <= self.next as usize, "GC heap write out of bounds");
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
