//! Plain structures shared with compiled code: values, function references
//! and the store context.

use std::cell::{Cell, RefCell};

/// One value in the values array of trampolines, and the storage of a global:
/// 16 bytes, the value little-endian at offset 0.
#[repr(C, align(16))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ValRaw([u8; 16]);

impl ValRaw {
    /// An `i32`.
    #[inline]
    pub fn i32(v: i32) -> Self {
        Self::u128(v as u32 as u128)
    }
    /// An `i64`.
    #[inline]
    pub fn i64(v: i64) -> Self {
        Self::u128(v as u64 as u128)
    }
    /// An `f32` by its bits.
    #[inline]
    pub fn f32(bits: u32) -> Self {
        Self::u128(bits as u128)
    }
    /// An `f64` by its bits.
    #[inline]
    pub fn f64(bits: u64) -> Self {
        Self::u128(bits as u128)
    }
    /// A `v128`.
    #[inline]
    pub fn v128(v: u128) -> Self {
        Self::u128(v)
    }
    /// A reference word (0 for null).
    #[inline]
    pub fn word(v: usize) -> Self {
        Self::u128(v as u128)
    }
    #[inline]
    fn u128(v: u128) -> Self {
        ValRaw(v.to_le_bytes())
    }
    /// Writes an `i32` into the slot's first 4 bytes, leaving the others as
    /// they are: compiled code and the getters read a slot at its value's
    /// width, so a list of arguments costs one narrow store per value
    /// rather than a 16-byte one.
    #[inline]
    pub fn set_i32(&mut self, v: i32) {
        self.0[..4].copy_from_slice(&v.to_le_bytes());
    }
    /// Writes an `i64` into the slot's first 8 bytes (see [`Self::set_i32`]).
    #[inline]
    pub fn set_i64(&mut self, v: i64) {
        self.0[..8].copy_from_slice(&v.to_le_bytes());
    }
    /// Writes `f32` bits into the slot's first 4 bytes (see
    /// [`Self::set_i32`]).
    #[inline]
    pub fn set_f32(&mut self, bits: u32) {
        self.0[..4].copy_from_slice(&bits.to_le_bytes());
    }
    /// Writes `f64` bits into the slot's first 8 bytes (see
    /// [`Self::set_i32`]).
    #[inline]
    pub fn set_f64(&mut self, bits: u64) {
        self.0[..8].copy_from_slice(&bits.to_le_bytes());
    }
    /// As an `i32`.
    #[inline]
    pub fn get_i32(&self) -> i32 {
        self.get_u32() as i32
    }
    /// As an `i64`.
    #[inline]
    pub fn get_i64(&self) -> i64 {
        self.get_u64() as i64
    }
    /// As `f32` bits.
    #[inline]
    pub fn get_f32(&self) -> u32 {
        self.get_u32()
    }
    /// As `f64` bits.
    #[inline]
    pub fn get_f64(&self) -> u64 {
        self.get_u64()
    }
    /// As a `v128`.
    #[inline]
    pub fn get_v128(&self) -> u128 {
        self.get_u128()
    }
    /// As a reference word.
    #[inline]
    pub fn get_word(&self) -> usize {
        self.get_u64() as usize
    }
    #[inline]
    fn get_u128(&self) -> u128 {
        u128::from_le_bytes(self.0)
    }
    // Narrow values are read at their own width: compiled code writes only
    // that many bytes of a slot, and a wider read of a just-written narrow
    // value stalls the processor's store forwarding.
    #[inline]
    fn get_u32(&self) -> u32 {
        u32::from_le_bytes([self.0[0], self.0[1], self.0[2], self.0[3]])
    }
    #[inline]
    fn get_u64(&self) -> u64 {
        let mut b = [0; 8];
        b.copy_from_slice(&self.0[..8]);
        u64::from_le_bytes(b)
    }
}

/// A function reference as compiled code sees it (see
/// `weft_environ::vmfuncref`).
#[repr(C)]
#[derive(Debug)]
pub struct VMFuncRef {
    /// Entry point with the wasm calling convention.
    pub code: usize,
    /// The callee vmctx to pass.
    pub vmctx: *mut u8,
    /// Canonical type id.
    pub type_id: u32,
    /// The store's handle of the function.
    pub store_index: u32,
}

/// A handle to a live `VMFuncRef` of a store. Valid while its store lives;
/// only the runtime creates them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FuncRefPtr(pub(crate) *const VMFuncRef);

// SAFETY: a `FuncRefPtr` is an address; reading through it is only done by
// the runtime while the owning store is borrowed.
unsafe impl Send for FuncRefPtr {}
// SAFETY: as for `Send`.
unsafe impl Sync for FuncRefPtr {}

impl FuncRefPtr {
    /// The word stored in tables and globals for this reference.
    pub fn to_word(self) -> usize {
        self.0 as usize
    }

    #[doc(hidden)]
    /// The reference stored as `word` in a table or global of the same store
    /// (`None` for null).
    pub fn from_word(word: usize) -> Option<FuncRefPtr> {
        if word == 0 {
            None
        } else {
            Some(FuncRefPtr(word as *const VMFuncRef))
        }
    }

    #[doc(hidden)]
    /// The store's handle of the function.
    pub fn store_index(self) -> u32 {
        // SAFETY: function reference words of a store always point to live
        // `VMFuncRef`s owned by that store.
        unsafe { (*self.0).store_index }
    }

    #[doc(hidden)]
    /// The canonical type id of the function.
    pub fn type_id(self) -> u32 {
        // SAFETY: as in `store_index`.
        unsafe { (*self.0).type_id }
    }
}

/// The per-store context compiled code reads (see `weft_environ::vmstore`).
#[repr(C)]
#[derive(Debug)]
pub struct VMStoreContext {
    #[doc(hidden)]
    /// Lowest stack address wasm may use; 0 while no wasm runs.
    pub stack_limit: Cell<usize>,
    /// Fuel consumed, negative while fuel remains.
    pub fuel_consumed: Cell<i64>,
    /// The epoch at which compiled code calls the interrupt handler.
    pub epoch_deadline: Cell<u64>,
    #[doc(hidden)]
    /// Frame pointer of the last wasm-to-host trampoline.
    pub last_wasm_exit_fp: Cell<usize>,
    #[doc(hidden)]
    /// Return address of the last wasm-to-host call.
    pub last_wasm_exit_pc: Cell<usize>,
    #[doc(hidden)]
    /// Frame pointer of the entry trampoline.
    pub last_wasm_entry_fp: Cell<usize>,
    /// The store running wasm now (type-erased).
    pub(crate) store_ptr: Cell<*mut u8>,
    /// The engine's epoch counter.
    pub(crate) epoch_ptr: Cell<*const u64>,
    /// The exception being thrown: an exnref word, 0 when none.
    pub(crate) pending_exn: Cell<usize>,
    /// The tag identity (`*const VMTagDefinition`) of the pending exception.
    pub(crate) pending_exn_tag: Cell<usize>,
    /// The base of `gc_heap`'s reservation, null while it has none.
    pub(crate) gc_heap_base: Cell<*mut u8>,
    /// Called by the `OutOfFuel` and `NewEpoch` builtins (not read by
    /// compiled code).
    pub(crate) interrupt: Cell<Option<InterruptHandler>>,
    /// The live exceptions of this store (not read by compiled code; see
    /// `exn.rs` for their words), freed by collections.
    pub(crate) exceptions: RefCell<crate::exn::ExnTable>,
    /// The store's GC heap, made at its first allocation (not read by
    /// compiled code, which uses `gc_heap_base`).
    pub(crate) gc_heap: RefCell<Option<crate::gc::GcHeap>>,
    /// The most bytes the GC heap may use.
    pub(crate) gc_heap_limit: Cell<u64>,
    /// The GC types of the store's modules by engine id, for casts.
    pub(crate) gc_types: RefCell<std::collections::HashMap<u32, crate::gc::GcTypeInfo>>,
    /// What the collector finds roots in and frees besides the heap (see
    /// `gc_roots.rs`).
    pub(crate) gc_roots: crate::gc_root_set::GcRoots,
}

/// A tag of a store. Its address is the tag's identity, compared by
/// compiled code (see `weft_environ::VMOffsets::vmctx_tag`).
#[repr(C)]
#[derive(Debug)]
pub struct VMTagDefinition {
    /// The canonical type id of the tag's function type.
    pub type_id: u32,
    /// The store's handle of the tag.
    pub store_index: u32,
}

/// Why compiled code stopped to ask the store what to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupt {
    /// The fuel counter is no longer negative.
    OutOfFuel,
    /// The engine's epoch reached the store's deadline.
    EpochDeadline,
    /// `memory.grow` wants to grow a memory (sizes in bytes).
    MemoryGrowing {
        /// The current size.
        current: usize,
        /// The size asked for.
        desired: usize,
        /// The memory's maximum, if it declares one.
        maximum: Option<usize>,
    },
    /// `table.grow` wants to grow a table (sizes in elements).
    TableGrowing {
        /// The current size.
        current: usize,
        /// The size asked for.
        desired: usize,
        /// The table's maximum, if it declares one.
        maximum: Option<usize>,
    },
}

/// What the store answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// Continue (or allow the growth).
    Proceed,
    /// Refuse the growth (`-1`).
    Refuse,
    /// Stop the call with the error the handler recorded.
    Fail,
}

/// The handler of a store: `Ok(true)` to continue or allow, `Ok(false)` to
/// refuse a growth, `Err` to stop the call with that error.
pub type InterruptFn<S> = fn(&mut S, Interrupt) -> anyhow::Result<bool>;

/// A type-erased interrupt handler: the shim for the store type and the
/// store's own handler.
#[derive(Debug, Clone, Copy)]
pub(crate) struct InterruptHandler {
    pub(crate) shim: fn(*mut u8, usize, Interrupt) -> Answer,
    pub(crate) handler: usize,
}

const _: () = assert!(std::mem::offset_of!(VMStoreContext, epoch_ptr) == weft_environ::vmstore::EPOCH_PTR as usize);
const _: () = assert!(std::mem::offset_of!(VMStoreContext, pending_exn) == weft_environ::vmstore::PENDING_EXN as usize);
const _: () =
    assert!(std::mem::offset_of!(VMStoreContext, pending_exn_tag) == weft_environ::vmstore::PENDING_EXN_TAG as usize);
const _: () =
    assert!(std::mem::offset_of!(VMStoreContext, gc_heap_base) == weft_environ::vmstore::GC_HEAP_BASE as usize);
const _: () = assert!(std::mem::offset_of!(VMStoreContext, interrupt) >= weft_environ::vmstore::SIZE as usize);
const _: () = assert!(std::mem::size_of::<VMFuncRef>() == weft_environ::vmfuncref::SIZE as usize);

impl Default for VMStoreContext {
    fn default() -> Self {
        VMStoreContext {
            stack_limit: Cell::new(0),
            fuel_consumed: Cell::new(0),
            epoch_deadline: Cell::new(u64::MAX),
            last_wasm_exit_fp: Cell::new(0),
            last_wasm_exit_pc: Cell::new(0),
            last_wasm_entry_fp: Cell::new(0),
            store_ptr: Cell::new(std::ptr::null_mut()),
            epoch_ptr: Cell::new(&NO_EPOCH),
            pending_exn: Cell::new(0),
            pending_exn_tag: Cell::new(0),
            gc_heap_base: Cell::new(std::ptr::null_mut()),
            interrupt: Cell::new(None),
            exceptions: RefCell::new(crate::exn::ExnTable::default()),
            gc_heap: RefCell::new(None),
            gc_heap_limit: Cell::new(crate::gc::DEFAULT_GC_HEAP_LIMIT),
            gc_types: RefCell::new(std::collections::HashMap::new()),
            gc_roots: crate::gc_root_set::GcRoots::default(),
        }
    }
}

impl VMStoreContext {
    /// Records the kind and supertype display of the GC type `id` (an
    /// engine id), which the store's casts read. The facade records every
    /// type of a module with GC types before instantiating it.
    pub fn register_gc_type(&self, id: u32, info: crate::gc::GcTypeInfo) {
        self.gc_types.borrow_mut().entry(id).or_insert(info);
    }

    /// Runs `f` on the store's GC heap, if it has one.
    pub fn with_gc_heap<R>(&self, f: impl FnOnce(&mut crate::gc::GcHeap) -> R) -> Option<R> {
        self.gc_heap.borrow_mut().as_mut().map(f)
    }

    /// Sets the most bytes the store's GC heap may use (before its first
    /// allocation; a heap already made keeps its limit).
    pub fn set_gc_heap_limit(&self, limit: u64) {
        self.gc_heap_limit.set(limit);
    }

    /// Makes exception `exn` (an exnref word of this store) the pending
    /// exception, as `throw_ref` does; false (and nothing pending) when
    /// there is no such exception.
    pub(crate) fn set_pending_exception(&self, exn: usize) -> bool {
        let tag = match self.exceptions.borrow().get(exn) {
            Some(e) => e.tag as usize,
            None => return false,
        };
        self.pending_exn.set(exn);
        self.pending_exn_tag.set(tag);
        true
    }

    /// The store index of the tag of exception `exn` (an exnref word).
    pub(crate) fn exception_tag_index(&self, exn: usize) -> Option<u32> {
        let exceptions = self.exceptions.borrow();
        let tag = exceptions.get(exn)?.tag;
        // SAFETY: exception tags point to tag definitions boxed in the same
        // store, which lives at least as long as `self`.
        Some(unsafe { (*tag).store_index })
    }
}

/// The epoch counter of stores not attached to an engine counter.
static NO_EPOCH: u64 = 0;

#[cfg(test)]
mod tests {
    use super::ValRaw;

    #[test]
    fn narrow_setters_write_their_width_and_read_back() {
        // A slot that held a wider value: the setters leave the bytes past
        // their width alone, and the getters of the same width ignore them.
        let mut slot = ValRaw::v128(u128::MAX);
        slot.set_i32(-2);
        assert_eq!(slot.get_i32(), -2);
        assert_eq!(slot.get_v128() >> 32, u128::MAX >> 32, "bytes 4.. are kept");
        slot.set_f32(1.5f32.to_bits());
        assert_eq!(f32::from_bits(slot.get_f32()), 1.5);
        slot.set_i64(i64::MIN + 7);
        assert_eq!(slot.get_i64(), i64::MIN + 7);
        assert_eq!(slot.get_v128() >> 64, u128::MAX >> 64, "bytes 8.. are kept");
        slot.set_f64((-0.25f64).to_bits());
        assert_eq!(f64::from_bits(slot.get_f64()), -0.25);
        // On a cleared slot, a narrow write equals the full constructor.
        let mut clear = ValRaw::default();
        clear.set_i32(-9);
        assert_eq!(clear, ValRaw::i32(-9));
    }
}
