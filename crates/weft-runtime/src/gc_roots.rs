//! Roots of the GC heap and the collection of a store (see `crate::gc`):
//! the host's extern references, the host's root handles, the store's
//! globals and tables, and the wasm frames on the stack, read through the
//! stack maps of their calls.
//!
//! Root words are reference words as wasm values hold them: a GC heap word
//! zero-extended, an extern reference word (`index + 1` into the store's
//! extern references, or a heap word tagged with
//! `weft_environ::EXTERN_HOLDS_ANY`), or 0. Globals, tables and exception
//! payloads are read without their types: a word that is neither the start
//! of a live object nor an extern reference is ignored, and an integer that
//! happens to look like one only keeps that object alive a little longer.

use crate::gc::{GcHeap, GcHeapOutOfMemory, GcStats};
use crate::gc_root_set::ExternData;
use crate::table::Table;
use crate::vm::{VMStoreContext, ValRaw};
use std::any::Any;
use std::cell::UnsafeCell;

impl VMStoreContext {
    /// Allocates a GC object of `size` bytes of type `type_id` in the
    /// store's GC heap, making the heap first if there is none, and returns
    /// its heap word. When the heap is full it collects, then raises the
    /// heap's capacity, and fails only at the heap's limit.
    pub fn gc_alloc(&self, type_id: u32, size: u64) -> Result<u32, GcHeapOutOfMemory> {
        let limit = self.gc_heap_limit.get();
        let failed = GcHeapOutOfMemory {
            requested: size,
            used: 0,
            limit,
        };
        {
            let mut slot = self.gc_heap.borrow_mut();
            if slot.is_none() {
                let made = GcHeap::new(limit).map_err(|_| failed)?;
                self.gc_heap_base.set(made.base());
                *slot = Some(made);
            }
            let Some(heap) = slot.as_mut() else {
                return Err(failed);
            };
            match heap.alloc(type_id, size) {
                Ok(word) => return Ok(word),
                Err(_) if self.gc_roots.collecting.get() => {}
                Err(e) if e.requested > heap.limit() => return Err(e),
                Err(_) => {}
            }
        }
        if !self.gc_roots.collecting.get() {
            self.collect_garbage();
        }
        let grow = self.with_gc_heap(|heap| match heap.alloc(type_id, size) {
            Ok(word) => Err(Ok(word)),
            // Still no room: grow to fit, at least doubling, within the
            // limit.
            Err(e) => {
                let want = heap.capacity().saturating_mul(2).max(heap.used().saturating_add(size));
                let want = want.min(heap.limit());
                if want <= heap.capacity() {
                    Err(Err(e))
                } else {
                    Ok((heap.capacity(), want))
                }
            }
        });
        let (current, desired) = match grow {
            Some(Ok(sizes)) => sizes,
            Some(Err(done)) => return done,
            None => return Err(failed),
        };
        if !self.may_grow_gc_heap(current, desired) {
            return Err(GcHeapOutOfMemory {
                requested: size,
                used: current,
                limit,
            });
        }
        self.with_gc_heap(|heap| {
            heap.grow_capacity(desired);
            heap.alloc(type_id, size)
        })
        .unwrap_or(Err(failed))
    }

    /// Asks the store (its `ResourceLimiter`'s `memory_growing`, as
    /// Wasmtime does for GC heaps) whether the heap may grow from
    /// `current` to `desired` bytes. Without wasm running there is no
    /// store to ask, and the heap grows up to its limit.
    fn may_grow_gc_heap(&self, current: u64, desired: u64) -> bool {
        let store = self.store_ptr.get();
        match self.interrupt.get() {
            Some(h) if !store.is_null() => {
                let why = crate::vm::Interrupt::MemoryGrowing {
                    current: current as usize,
                    desired: desired as usize,
                    maximum: Some(self.gc_heap_limit.get() as usize),
                };
                (h.shim)(store, h.handler, why) == crate::vm::Answer::Proceed
            }
            _ => true,
        }
    }

    /// Collects the store's garbage: every GC object, extern reference
    /// and exception no root reaches is freed (the host data of an extern
    /// reference is dropped). Exceptions are reached from the same roots
    /// as GC objects, from the pending exception, from GC object fields
    /// and from the payloads of reachable exceptions. Returns what the
    /// heap's collection did (nothing without a heap).
    ///
    /// With wasm frames on the stack, the collector reads their references
    /// from the stack maps of their calls, starting from the exit that the
    /// wasm-to-host, collecting-builtin, fuel and epoch trampolines
    /// record. When wasm runs but no exit is recorded (host code reached
    /// another way), for the current activation or one below it, the
    /// frames cannot be walked and nothing is collected.
    pub fn collect_garbage(&self) -> GcStats {
        let roots = &self.gc_roots;
        let unwalkable = (self.wasm_active() && self.last_wasm_exit_fp.get() == 0)
            || roots.outer_exits.borrow().iter().any(|(fp, _)| *fp == 0);
        if roots.null_collector.get() || unwalkable {
            return GcStats::default();
        }
        if roots.collecting.replace(true) {
            return GcStats::default();
        }
        let mut words = Vec::new();
        self.stack_roots(&mut words);
        words.extend(roots.host.borrow().iter().copied());
        {
            let mut owned = roots.owned.borrow_mut();
            owned.retain(|(alive, _)| alive.strong_count() > 0);
            words.extend(owned.iter().map(|(_, w)| *w));
        }
        for g in roots.globals.borrow().iter() {
            // SAFETY: globals are boxed by the store that owns this context
            // and live as long as it (a `ValRaw`: 16 bytes, the value
            // little-endian at offset 0, 16-byte aligned); no wasm runs on
            // this thread while the collector reads them (it runs inside a
            // call from wasm or from the host, never beside one).
            words.push(unsafe { g.read() });
        }
        for t in roots.tables.borrow().iter() {
            // SAFETY: as for globals: tables are boxed by the store.
            let table = unsafe { &**t };
            words.extend(table.elements().iter().map(|w| *w as u64));
        }
        for e in roots.elements.borrow().iter() {
            // SAFETY: as for globals: the segments are a field of an
            // instance boxed by the store.
            for seg in unsafe { &**e } {
                words.extend(seg.iter().map(|w| *w as u64));
            }
        }
        words.push(self.pending_exn.get() as u64);
        let num_externs = self.externs_len();
        let mut extern_marks = vec![false; num_externs];
        let types = self.gc_types.borrow();
        let exceptions = self.exceptions.borrow();
        let mut exn_marks = vec![false; exceptions.num_slots()];
        // Marks the exception a word names, if any, and roots its payload.
        let mut mark_exn = |w: u64, found: &mut Vec<u64>| {
            if let Some(slot) = exceptions.slot_of(w) {
                if !exn_marks[slot] {
                    exn_marks[slot] = true;
                    if let Some(e) = exceptions.in_slot(slot) {
                        found.extend(e.values.iter().map(|v| v.get_word() as u64));
                    }
                }
            }
        };
        let stats = {
            let mut heap = self.gc_heap.borrow_mut();
            match heap.as_mut() {
                Some(heap) => heap.collect(&types, words.iter().copied(), &mut extern_marks, &mut mark_exn),
                None => {
                    while let Some(w) = words.pop() {
                        if w & weft_environ::EXTERN_HOLDS_ANY == 0 {
                            if let Some(m) = w.checked_sub(1).and_then(|i| extern_marks.get_mut(i as usize)) {
                                *m = true;
                            }
                        }
                        mark_exn(w, &mut words);
                    }
                    GcStats::default()
                }
            }
        };
        drop(exceptions);
        let dead_exceptions = self.exceptions.borrow_mut().sweep(&exn_marks);
        drop(dead_exceptions);
        drop(types);
        let dead = self.sweep_externs(&extern_marks);
        // Host data is dropped last, when the collector's borrows are
        // released: its destructor may use the store context.
        drop(dead);
        // A heap still more than half full after a collection grows (if
        // the store allows), so that collections stay rare.
        let grow = self.with_gc_heap(|heap| {
            let desired = heap.capacity().saturating_mul(2).min(heap.limit());
            (stats.live_bytes.saturating_mul(2) > heap.capacity() && desired > heap.capacity())
                .then_some((heap.capacity(), desired))
        });
        if let Some(Some((current, desired))) = grow {
            if self.may_grow_gc_heap(current, desired) {
                self.with_gc_heap(|heap| heap.grow_capacity(desired));
            }
        }
        roots.collecting.set(false);
        let mut exceptions = self.exceptions.borrow_mut();
        exceptions.next_collect = next_exception_collection(exceptions.live());
        stats
    }

    /// Collects when the number of live exceptions has reached the
    /// threshold that the last collection set (twice the exceptions it
    /// left, at least `exn::MIN_COLLECT_THRESHOLD`). Called where a new
    /// exception was just made and rooted (the `throw` builtin, through its
    /// trampoline; `StoreObjects::new_exception`). A collection that cannot
    /// run (frames not walkable, null collector, one already running) is
    /// not retried before the number doubles again.
    pub(crate) fn maybe_collect_exceptions(&self) {
        let live = self.exceptions.borrow().live();
        if live < self.exceptions.borrow().next_collect {
            return;
        }
        self.collect_garbage();
        let mut exceptions = self.exceptions.borrow_mut();
        exceptions.next_collect = exceptions
            .next_collect
            .max(next_exception_collection(exceptions.live()));
    }

    /// Makes the store's collector the null one (Wasmtime's
    /// `Collector::Null`): nothing is collected, the heap grows to its
    /// limit and allocation then traps.
    pub fn set_null_collector(&self) {
        self.gc_roots.null_collector.set(true);
    }

    /// Whether wasm runs on this store (its frames are on the stack).
    pub fn wasm_active(&self) -> bool {
        self.stack_limit.get() != 0
    }

    /// Reads the roots of the wasm frames on this thread's stack (every
    /// activation of this store), through the stack maps of their calls.
    ///
    /// Each activation starts at an exit (the frame pointer of the
    /// trampoline wasm called and its return address); the walk follows
    /// frame pointers while return addresses lie in compiled code.
    fn stack_roots(&self, out: &mut Vec<u64>) {
        let mut exits = vec![(self.last_wasm_exit_fp.get(), self.last_wasm_exit_pc.get())];
        exits.extend(self.gc_roots.outer_exits.borrow().iter().rev().copied());
        for (exit_fp, exit_pc) in exits {
            if exit_fp == 0 {
                continue;
            }
            // The exit trampoline's frame: its caller's stack pointer at the
            // call is 16 bytes above its frame pointer (the saved frame
            // pointer and return address), on x86_64 and aarch64 alike.
            let mut callee_fp = exit_fp;
            let mut pc = exit_pc;
            while crate::code::is_wasm_pc(pc) {
                let sp = callee_fp + 16;
                // SAFETY: `callee_fp` is the frame pointer of a frame called
                // by a wasm frame (compiled code keeps frame pointers), so
                // `[callee_fp]` is the wasm frame's own frame pointer.
                let fp = unsafe { *(callee_fp as *const usize) };
                crate::code::for_each_stack_slot(pc, |offset| {
                    // SAFETY: the stack map of the call returning to `pc`
                    // names 8-byte slots of this live frame, at offsets from
                    // its stack pointer at the call.
                    out.push(unsafe { *((sp + offset as usize) as *const u64) });
                });
                if fp == 0 {
                    break;
                }
                // SAFETY: frames of compiled code keep frame pointers:
                // `[fp + 8]` is the return address into the caller.
                pc = unsafe { *((fp + 8) as *const usize) };
                callee_fp = fp;
            }
        }
    }

    fn externs_len(&self) -> usize {
        // SAFETY: a short read; no reference into the slots is live (see
        // `externref`).
        unsafe { (*self.gc_roots.externs.get()).slots.len() }
    }

    fn sweep_externs(&self, marks: &[bool]) -> Vec<ExternData> {
        // SAFETY: collections run inside a call from wasm or from the host
        // with the store borrowed mutably, so no reference handed out by
        // `externref` is alive now.
        let externs = unsafe { &mut *self.gc_roots.externs.get() };
        let mut dead = Vec::new();
        for (i, slot) in externs.slots.iter_mut().enumerate() {
            if slot.is_some() && !marks.get(i).copied().unwrap_or(true) {
                dead.extend(slot.take());
                externs.free.push(i);
            }
        }
        dead
    }

    /// Adds an extern reference holding `data` and returns its word
    /// (`index + 1`), rooted by the host until the current root scope ends.
    pub fn new_externref(&self, data: ExternData) -> usize {
        // SAFETY: no reference into the slots is live while the store is
        // borrowed mutably, as it is when the host makes a reference.
        let externs = unsafe { &mut *self.gc_roots.externs.get() };
        let index = match externs.free.pop() {
            Some(i) => {
                externs.slots[i] = Some(data);
                i
            }
            None => {
                externs.slots.push(Some(data));
                externs.slots.len() - 1
            }
        };
        self.push_host_root(index as u64 + 1);
        index + 1
    }

    /// The host data of extern reference word `word`, if it names a live
    /// one.
    ///
    /// The reference is valid while the store is borrowed: collections
    /// free extern references only through a mutable borrow of the store
    /// (a call into wasm, `Store::gc`).
    pub fn externref(&self, word: usize) -> Option<&(dyn Any + Send + Sync)> {
        // SAFETY: see above: the slots are changed only under a mutable
        // borrow of the store, which the returned reference's borrow of
        // the store excludes.
        let externs = unsafe { &*self.gc_roots.externs.get() };
        externs.slots.get(word.checked_sub(1)?)?.as_deref()
    }

    /// The number of live extern references.
    pub fn live_externrefs(&self) -> usize {
        // SAFETY: a short read, as in `externs_len`.
        unsafe {
            (*self.gc_roots.externs.get())
                .slots
                .iter()
                .filter(|s| s.is_some())
                .count()
        }
    }

    /// Roots reference word `word` for the host until the current root
    /// scope ends.
    pub fn push_host_root(&self, word: u64) {
        if word != 0 {
            self.gc_roots.host.borrow_mut().push(word);
        }
    }

    /// Roots reference word `word` for as long as the returned token (or a
    /// clone of it) lives.
    pub fn push_owned_root(&self, word: u64) -> std::sync::Arc<()> {
        let token = std::sync::Arc::new(());
        let mut owned = self.gc_roots.owned.borrow_mut();
        // Forget dropped handles now and then, so the list stays as long as
        // the handles alive.
        if owned.len() >= 64 && owned.len().is_power_of_two() {
            owned.retain(|(alive, _)| alive.strong_count() > 0);
        }
        owned.push((std::sync::Arc::downgrade(&token), word));
        token
    }

    /// The depth of the host's root list, to truncate back to.
    pub fn host_roots_depth(&self) -> usize {
        self.gc_roots.host.borrow().len()
    }

    /// Ends a root scope: drops the host roots made since `depth`.
    pub fn truncate_host_roots(&self, depth: usize) {
        self.gc_roots.host.borrow_mut().truncate(depth);
    }

    /// The GC heap's statistics: bytes of live objects (or not yet
    /// collected), the heap's capacity, and the number of collections.
    pub fn gc_heap_stats(&self) -> Option<(u64, u64, u64)> {
        self.with_gc_heap(|h| (h.object_bytes_in_use(), h.capacity(), h.collections()))
    }

    pub(crate) fn register_global_root(&self, global: *const UnsafeCell<ValRaw>) {
        self.gc_roots.globals.borrow_mut().push(global.cast::<u64>());
    }

    /// Roots the element segments of an instance (a field of the boxed
    /// instance, so its address is stable).
    pub(crate) fn register_elements_root(&self, elements: *const Vec<Vec<usize>>) {
        self.gc_roots.elements.borrow_mut().push(elements);
    }

    /// Keeps collections from running until the guard is dropped (while
    /// the runtime holds references in no root, as when it initializes an
    /// instance); allocations grow the heap instead.
    pub(crate) fn inhibit_gc(&self) -> InhibitGc<'_> {
        InhibitGc {
            ctx: self,
            was: self.gc_roots.collecting.replace(true),
        }
    }

    pub(crate) fn register_table_root(&self, table: *const Table) {
        self.gc_roots.tables.borrow_mut().push(table);
    }

    /// Records the exit of the activation a new call into wasm nests in.
    pub(crate) fn push_outer_exit(&self, exit: (usize, usize)) {
        self.gc_roots.outer_exits.borrow_mut().push(exit);
    }

    /// Forgets the exit recorded by the matching `push_outer_exit`.
    pub(crate) fn pop_outer_exit(&self) {
        self.gc_roots.outer_exits.borrow_mut().pop();
    }
}

/// The number of live exceptions at which the next automatic collection
/// runs, after one that left `live`.
fn next_exception_collection(live: usize) -> usize {
    live.saturating_mul(2).max(crate::exn::MIN_COLLECT_THRESHOLD)
}

/// See [`VMStoreContext::inhibit_gc`].
pub(crate) struct InhibitGc<'a> {
    ctx: &'a VMStoreContext,
    was: bool,
}

impl Drop for InhibitGc<'_> {
    fn drop(&mut self) {
        self.ctx.gc_roots.collecting.set(self.was);
    }
}
