//! The builtin functions compiled code calls, in the order of
//! `weft_environ::BuiltinFunction::ALL`. Each takes the calling vmctx first.
//! Status results: 0 on success, 1 when compiled code must trap.

use crate::exn::ExnObject;
use crate::instance::Instance;
use crate::memory::VMMemoryDefinition;
use crate::vm::{Answer, Interrupt, VMStoreContext, VMTagDefinition, ValRaw};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The builtins array every vmctx points to.
pub(crate) static BUILTINS: Builtins = Builtins([
    // In the order of `weft_environ::BuiltinFunction::ALL`.
    memory_grow as *const (),
    memory_fill as *const (),
    memory_copy as *const (),
    memory_init as *const (),
    data_drop as *const (),
    table_grow as *const (),
    table_fill as *const (),
    table_copy as *const (),
    table_init as *const (),
    elem_drop as *const (),
    out_of_fuel as *const (),
    new_epoch as *const (),
    fma_f32 as *const (),
    fma_f64 as *const (),
    throw as *const (),
    throw_ref as *const (),
    exn_catch as *const (),
    unwind as *const (),
    memory_atomic_wait32 as *const (),
    memory_atomic_wait64 as *const (),
    memory_atomic_notify as *const (),
    crate::builtins_gc::gc_alloc as *const (),
    crate::builtins_gc::gc_array_copy as *const (),
    crate::builtins_gc::gc_array_new_segment as *const (),
    crate::builtins_gc::gc_array_init_segment as *const (),
    crate::builtins_gc::gc_ref_test as *const (),
    crate::builtins_gc::gc_any_convert_extern as *const (),
    crate::builtins_gc::gc_extern_convert_any as *const (),
]);

/// The addresses of the builtins.
pub(crate) struct Builtins(pub(crate) [*const (); 28]);

// SAFETY: function addresses are immutable and valid on every thread.
unsafe impl Sync for Builtins {}

const _: () = assert!(BUILTINS.0.len() == weft_environ::BuiltinFunction::ALL.len());

pub(crate) fn instance<'a>(vmctx: *mut u8) -> &'a mut Instance {
    // SAFETY: builtins are only called by compiled code, which passes its
    // own live vmctx.
    unsafe { Instance::from_vmctx(vmctx) }
}

fn range(start: u64, len: u64, size: usize) -> Option<std::ops::Range<usize>> {
    let end = start.checked_add(len)?;
    if end > size as u64 {
        return None;
    }
    Some(start as usize..end as usize)
}

/// `memory.atomic.wait32` and `wait64`: `expected` is the value of `size`
/// bytes, the address is aligned (compiled code checked it).
fn memory_atomic_wait(vmctx: *mut u8, memory: u32, addr: u64, expected: u64, size: usize, timeout: i64) -> u32 {
    let instance = instance(vmctx);
    let Some(mem) = instance.memory(memory) else {
        return weft_environ::ATOMIC_OUT_OF_BOUNDS;
    };
    if range(addr, size as u64, mem.byte_size()).is_none() {
        return weft_environ::ATOMIC_OUT_OF_BOUNDS;
    }
    let Some(spot) = mem.parking_spot() else {
        return weft_environ::ATOMIC_WAIT_NOT_SHARED;
    };
    let timeout = u64::try_from(timeout).ok().map(std::time::Duration::from_nanos);
    let current = || mem.atomic_load(addr, size) == Some(expected);
    spot.wait(addr, current, timeout) as u32
}

extern "C" fn memory_atomic_wait32(vmctx: *mut u8, memory: u32, addr: u64, expected: u32, timeout: i64) -> u32 {
    memory_atomic_wait(vmctx, memory, addr, u64::from(expected), 4, timeout)
}

extern "C" fn memory_atomic_wait64(vmctx: *mut u8, memory: u32, addr: u64, expected: u64, timeout: i64) -> u32 {
    memory_atomic_wait(vmctx, memory, addr, expected, 8, timeout)
}

extern "C" fn memory_atomic_notify(vmctx: *mut u8, memory: u32, addr: u64, count: u32) -> u32 {
    let instance = instance(vmctx);
    let Some(mem) = instance.memory(memory) else {
        return weft_environ::ATOMIC_OUT_OF_BOUNDS;
    };
    if range(addr, 4, mem.byte_size()).is_none() {
        return weft_environ::ATOMIC_OUT_OF_BOUNDS;
    }
    // A memory that is not shared has no waiters.
    mem.parking_spot().map_or(0, |spot| spot.notify(addr, count))
}

/// The result of `memory.grow` and `table.grow` builtins when the store's
/// handler failed: compiled code traps with `HostError`.
pub const GROW_ERROR: u64 = weft_environ::GROW_ERROR;

extern "C" fn memory_grow(vmctx: *mut u8, memory: u32, delta: u64) -> u64 {
    let instance = instance(vmctx);
    let Some(mem) = instance.memory(memory) else {
        return u64::MAX;
    };
    let page = mem.page_size();
    let current = mem.byte_size();
    let desired = (mem.pages().saturating_add(delta)).saturating_mul(page);
    let maximum = mem.declared_maximum().map(|m| m.saturating_mul(page) as usize);
    let why = Interrupt::MemoryGrowing {
        current,
        desired: desired.min(usize::MAX as u64) as usize,
        maximum,
    };
    match ask(vmctx, why) {
        Answer::Proceed => {}
        Answer::Refuse => return u64::MAX,
        Answer::Fail => return GROW_ERROR,
    }
    instance
        .memory_mut(memory)
        .and_then(|m| m.grow(delta))
        .unwrap_or(u64::MAX)
}

/// The base and accessible length of a memory, read from the definition its
/// compiled code reads (which that code's memory accesses keep in cache),
/// not through the instance's `LinearMemory`.
///
/// # Safety
///
/// `def` is a definition pointer compiled code loaded from its vmctx: a live
/// `VMMemoryDefinition`, or a shared memory's definition, which has the same
/// layout.
unsafe fn memory_view(def: *const VMMemoryDefinition) -> (*mut u8, usize) {
    // SAFETY: `def` is live (the caller's contract). A base never changes;
    // the length of a shared memory may grow on another thread, so it is
    // read atomically (the grower updates it atomically too), which for
    // other memories is an ordinary read.
    unsafe {
        let len = AtomicUsize::from_ptr(std::ptr::addr_of!((*def).current_length).cast_mut());
        ((*def).base, len.load(Ordering::Acquire))
    }
}

/// `memory.fill` of the memory whose definition is `def`.
///
/// # Safety
///
/// Called by compiled code only, with a definition pointer from its vmctx
/// (see [`memory_view`]).
unsafe extern "C" fn memory_fill(
    _vmctx: *mut u8,
    def: *const VMMemoryDefinition,
    dst: u64,
    value: u32,
    len: u64,
) -> u32 {
    // SAFETY: as this function's contract.
    let (base, size) = unsafe { memory_view(def) };
    match range(dst, len, size) {
        Some(r) => {
            // SAFETY: the range is inside the accessible memory. Raw writes,
            // not a `&mut [u8]`: a shared memory may be in use by other
            // threads.
            unsafe { std::ptr::write_bytes(base.add(r.start), value as u8, r.len()) };
            0
        }
        None => 1,
    }
}

/// `memory.copy` between the memories whose definitions are `dst_def` and
/// `src_def` (the same one for a copy inside a memory).
///
/// # Safety
///
/// Called by compiled code only, with definition pointers from its vmctx
/// (see [`memory_view`]).
unsafe extern "C" fn memory_copy(
    _vmctx: *mut u8,
    dst_def: *const VMMemoryDefinition,
    dst: u64,
    src_def: *const VMMemoryDefinition,
    src: u64,
    len: u64,
) -> u32 {
    // SAFETY: as this function's contract.
    let ((dst_base, dst_len), (src_base, src_len)) = unsafe { (memory_view(dst_def), memory_view(src_def)) };
    let (Some(dr), Some(sr)) = (range(dst, len, dst_len), range(src, len, src_len)) else {
        return 1;
    };
    // SAFETY: both ranges are inside their accessible memories; `copy`
    // allows overlap.
    unsafe { std::ptr::copy(src_base.add(sr.start), dst_base.add(dr.start), dr.len()) };
    0
}

extern "C" fn memory_init(vmctx: *mut u8, memory: u32, data: u32, dst: u64, src: u32, len: u32) -> u32 {
    let instance = instance(vmctx);
    let module = instance.module.clone();
    let bytes: &[u8] = match (module.data.get(data as usize), instance.dropped_data.get(data as usize)) {
        (Some(seg), Some(false)) => &seg.data,
        _ => &[],
    };
    let Some(mem) = instance.memory(memory) else {
        return 1;
    };
    let (Some(dr), Some(sr)) = (
        range(dst, len as u64, mem.byte_size()),
        range(src as u64, len as u64, bytes.len()),
    ) else {
        return 1;
    };
    // SAFETY: the destination is inside the accessible memory and the
    // source inside the segment, which is not wasm memory; raw writes as in
    // `memory_fill`.
    unsafe { std::ptr::copy_nonoverlapping(bytes[sr].as_ptr(), mem.base().add(dr.start), dr.len()) };
    0
}

extern "C" fn data_drop(vmctx: *mut u8, data: u32) {
    if let Some(d) = instance(vmctx).dropped_data.get_mut(data as usize) {
        *d = true;
    }
}

extern "C" fn table_grow(vmctx: *mut u8, table: u32, delta: u64, init: usize) -> u64 {
    let instance = instance(vmctx);
    let Some(t) = instance.table(table) else {
        return u64::MAX;
    };
    let current = t.size() as usize;
    let desired = t.size().saturating_add(delta).min(usize::MAX as u64) as usize;
    let maximum = t.declared_maximum().map(|m| m as usize);
    match ask(
        vmctx,
        Interrupt::TableGrowing {
            current,
            desired,
            maximum,
        },
    ) {
        Answer::Proceed => {}
        Answer::Refuse => return u64::MAX,
        Answer::Fail => return GROW_ERROR,
    }
    instance
        .table_mut(table)
        .and_then(|t| t.grow(delta, init))
        .unwrap_or(u64::MAX)
}

extern "C" fn table_fill(vmctx: *mut u8, table: u32, dst: u64, value: usize, len: u64) -> u32 {
    let Some(table) = instance(vmctx).table_mut(table) else {
        return 1;
    };
    let elements = table.elements_mut();
    match range(dst, len, elements.len()) {
        Some(r) => {
            elements[r].fill(value);
            0
        }
        None => 1,
    }
}

extern "C" fn table_copy(vmctx: *mut u8, dst_table: u32, src_table: u32, dst: u64, src: u64, len: u64) -> u32 {
    let instance = instance(vmctx);
    let Some(s) = instance.table(src_table) else { return 1 };
    let Some(sr) = range(src, len, s.elements().len()) else {
        return 1;
    };
    let words: Vec<usize> = s.elements()[sr].to_vec();
    let Some(d) = instance.table_mut(dst_table) else {
        return 1;
    };
    let elements = d.elements_mut();
    match range(dst, len, elements.len()) {
        Some(dr) => {
            elements[dr].copy_from_slice(&words);
            0
        }
        None => 1,
    }
}

extern "C" fn table_init(vmctx: *mut u8, table: u32, elem: u32, dst: u64, src: u32, len: u32) -> u32 {
    let instance = instance(vmctx);
    let words: Vec<usize> = match instance.elements.get(elem as usize) {
        Some(words) => match range(src as u64, len as u64, words.len()) {
            Some(r) => words[r].to_vec(),
            None => return 1,
        },
        None => return 1,
    };
    let Some(t) = instance.table_mut(table) else { return 1 };
    let elements = t.elements_mut();
    match range(dst, len as u64, elements.len()) {
        Some(dr) => {
            elements[dr].copy_from_slice(&words);
            0
        }
        None => 1,
    }
}

extern "C" fn elem_drop(vmctx: *mut u8, elem: u32) {
    if let Some(words) = instance(vmctx).elements.get_mut(elem as usize) {
        *words = Vec::new();
    }
}

/// Asks the store's handler; without one (or outside a call), fuel and
/// epochs trap and growth proceeds.
fn ask(vmctx: *mut u8, why: Interrupt) -> Answer {
    // SAFETY: every vmctx points at its store's live context.
    let ctx = unsafe { &*(*(vmctx.add(8) as *const *const VMStoreContext)) };
    match ctx.interrupt.get() {
        Some(h) if !ctx.store_ptr.get().is_null() => (h.shim)(ctx.store_ptr.get(), h.handler, why),
        _ => {
            let trap = match why {
                Interrupt::OutOfFuel => weft_environ::Trap::OutOfFuel,
                Interrupt::EpochDeadline => weft_environ::Trap::Interrupt,
                Interrupt::MemoryGrowing { .. } | Interrupt::TableGrowing { .. } => return Answer::Proceed,
            };
            crate::traps::record_host_failure(crate::traps::UnwindReason::Trap { trap, pcs: Vec::new() });
            Answer::Fail
        }
    }
}

fn interrupt(vmctx: *mut u8, why: Interrupt) -> u32 {
    match ask(vmctx, why) {
        Answer::Proceed | Answer::Refuse => 0,
        Answer::Fail => 1,
    }
}

extern "C" fn out_of_fuel(vmctx: *mut u8) -> u32 {
    interrupt(vmctx, Interrupt::OutOfFuel)
}

extern "C" fn new_epoch(vmctx: *mut u8) -> u32 {
    interrupt(vmctx, Interrupt::EpochDeadline)
}

extern "C" fn fma_f32(_vmctx: *mut u8, a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

extern "C" fn fma_f64(_vmctx: *mut u8, a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

pub(crate) fn store_context<'a>(instance: &Instance) -> &'a VMStoreContext {
    let ptr = instance.read::<usize>(instance.offsets.vmctx_store_context()) as *const VMStoreContext;
    // SAFETY: every vmctx points to its store's context, boxed in the store
    // and alive while the store's instances are.
    unsafe { &*ptr }
}

/// `throw`: makes a new exception with the payload `values` the pending
/// one. Called through its trampoline (the wasm frames are walkable), so
/// when the number of live exceptions has grown enough it collects, once
/// the new exception is pending (a root).
extern "C" fn throw(vmctx: *mut u8, tag: u32, values: *const ValRaw) {
    let instance = instance(vmctx);
    if tag as usize >= instance.module.tags.len() {
        return;
    }
    let tag_ptr = instance.read::<usize>(instance.offsets.vmctx_tag(tag));
    let n = instance.module.tag_type(tag).params.len();
    let values: Box<[ValRaw]> = if n == 0 {
        Box::new([])
    } else {
        // SAFETY: compiled code passes an array of one `ValRaw` per
        // parameter of the tag's type.
        unsafe { std::slice::from_raw_parts(values, n) }.into()
    };
    let ctx = store_context(instance);
    let word = ctx.exceptions.borrow_mut().insert(ExnObject {
        tag: tag_ptr as *const VMTagDefinition,
        values,
        exposed: false,
    });
    // Without a free slot (never in practice: see `ExnTable::insert`)
    // nothing is pending, and no handler but a `catch_all` matches.
    let Some(word) = word else { return };
    ctx.pending_exn.set(word);
    ctx.pending_exn_tag.set(tag_ptr);
    ctx.maybe_collect_exceptions();
}

extern "C" fn throw_ref(vmctx: *mut u8, exn: usize) {
    let ctx = store_context(instance(vmctx));
    let tag = match ctx.exceptions.borrow().get(exn) {
        Some(e) => e.tag as usize,
        None => return,
    };
    ctx.pending_exn.set(exn);
    ctx.pending_exn_tag.set(tag);
}

/// `Unwind`: the pending exception leaves a function that has no handler
/// for it. Called through its trampoline, which records the exit; resumes
/// at the landing pad of the innermost calling frame that has one, or
/// returns (and compiled code traps with `UncaughtException`).
extern "C" fn unwind(vmctx: *mut u8) {
    let ctx = store_context(instance(vmctx));
    // SAFETY: compiled code calls this builtin through its trampoline,
    // which recorded its exit in the store context; this frame holds
    // nothing to drop.
    unsafe { crate::unwind::resume_at_handler(ctx) }
}

extern "C" fn exn_catch(vmctx: *mut u8, exn: usize, out: *mut ValRaw, keep: u32) {
    let ctx = store_context(instance(vmctx));
    let mut exceptions = ctx.exceptions.borrow_mut();
    let Some(e) = exceptions.get_mut(exn) else { return };
    if !out.is_null() {
        for (i, v) in e.values.iter().enumerate() {
            // SAFETY: compiled code passes an array of one `ValRaw` per
            // parameter of the type of the tag it matched.
            unsafe { out.add(i).write(*v) };
        }
    }
    if keep != 0 {
        e.exposed = true;
    } else {
        exceptions.release_caught(exn);
    }
}
