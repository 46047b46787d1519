//! `weft-runtime` is the unsafe core of Weft.
//!
//! It owns everything compiled code touches at run time: executable code
//! memory ([`CodeMemory`]), linear memories reserved with guard regions
//! ([`LinearMemory`]), tables ([`Table`]), the per-instance `VMContext` and
//! the objects of a store ([`StoreObjects`], tags and thrown exceptions
//! included), the builtins compiled code calls,
//! the trap signal handlers, and the entry into compiled code ([`invoke`]).
//!
//! It never parses wasm and never generates code. Each `unsafe` block says
//! why it is sound. Layouts follow `weft_environ::VMOffsets` exactly.
//!
//! **Internal to Weft.** This crate is not published (`publish = false`)
//! and its API is the facade's (`weft`) and no one else's. Some of its
//! safe functions rely on contracts that only the facade keeps; they are
//! `#[doc(hidden)]`, and code outside Weft must not call them:
//!
//! - `invoke` runs the code that `trampoline` and `callee` point to;
//! - `FuncRefPtr::from_word` trusts a word that came from a table or global
//!   of the store, and `FuncRefPtr::store_index` and `FuncRefPtr::type_id`
//!   read through the reference, which must belong to a live store;
//! - `Instance::func_ref` trusts that `index` is a function of the instance;
//! - `CodeMemory::new` makes the bytes it is given executable (and
//!   `CodeMemory::from_mapped_file` the range of a file it is given), and
//!   `CodeMemory::ptr_at` hands out pointers into them;
//! - `MappedFile::map` trusts that no one changes or truncates the file
//!   while it is mapped (its bytes are handed out as a `&[u8]`);
//! - `StoreObjects::add_host_func` trusts its type, trampoline and store
//!   type, `StoreObjects::instantiate` the type ids, code pointers and
//!   imports it is given, and `StoreObjects::set_interrupt_handler` that
//!   its `S` is the store type given to `invoke`;
//! - `StoreObjects::add_global` and `StoreObjects::global_set`, and
//!   `Table::new`, `Table::set`, `Table::grow` and `Table::elements_mut`,
//!   store raw words that compiled code reads as references;
//! - `replace_call_state` and `StackState::swap` install the chain of calls
//!   and the stack fields that the trap handler follows, and the
//!   `stack_limit` and `last_wasm_*` fields of `VMStoreContext` are the
//!   frame pointers that backtraces walk.
//!
//! The facade (`#![deny(unsafe_code)]`) upholds these contracts for every
//! value its public API lets through, so no safe path leads from `weft`'s
//! public API to undefined behaviour. (The alternative, making them
//! `unsafe fn`, would need `unsafe` blocks in the facade.)

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod backtrace;
mod builtins;
mod builtins_gc;
mod code;
mod exn;
pub mod gc;
mod gc_root_set;
mod gc_roots;
mod host;
mod instance;
mod memory;
mod memory_image;
mod mmap;
mod parking;
mod pool;
mod store;
mod table;
mod traps;
mod unwind;
mod vm;

pub use code::{is_wasm_pc, trap_record, CodeMemory, CodePtr, TrapTable, TRAP_RECORD};
pub use host::{HostCaller, HostFn, HostFunc};
pub use instance::Instance;
pub use memory::{
    max_pages, HostLinearMemory, HostMemoryCreator, HostMemorySpec, LinearMemory, SharedAccessError,
    SharedLinearMemory, MAX_PAGES_32, MEMORY_RESERVATION,
};
pub use memory_image::{ImageContents, MemoryImage};
pub use mmap::{page_size, MappedFile};
pub use parking::WaitResult;
pub use pool::{InstancePool, PoolLimits};
pub use store::{
    GlobalId, HostFuncSlot, InstanceEntities, InstanceId, InstanceImports, MemoryId, StoreObjects, TableId, TagId,
};
pub use table::{Table, MAX_TABLE_ELEMENTS};
pub use traps::{current_call_state, init_signal_handlers, replace_call_state, CallState, StackState, UnwindReason};
pub use vm::{FuncRefPtr, Interrupt, InterruptFn, VMStoreContext, VMTagDefinition, ValRaw};

/// The error of a call that did not return: an exception that reached the
/// entry trampoline (its `UncaughtException` trap) becomes the call's
/// result, taken out of the store context; any other reason is kept, and a
/// pending exception it interrupted is dropped.
#[cold]
#[inline(never)]
fn uncaught_exception(ctx: &VMStoreContext, reason: UnwindReason) -> Result<(), UnwindReason> {
    let pending = ctx.pending_exn.replace(0);
    ctx.pending_exn_tag.set(0);
    match reason {
        UnwindReason::Trap {
            trap: weft_environ::Trap::UncaughtException,
            ..
        } if pending != 0 => {
            let tag = ctx.exception_tag_index(pending).unwrap_or(u32::MAX);
            // The host may take it (`Store::take_pending_exception`): a
            // word of it now lives outside the store context, so a catch
            // may no longer free it at once.
            if let Some(e) = ctx.exceptions.borrow_mut().get_mut(pending) {
                e.exposed = true;
            }
            Err(UnwindReason::UncaughtException { tag, exn: pending })
        }
        other => Err(other),
    }
}

/// A store that can run wasm: gives the runtime its objects.
pub trait VMStore: 'static {
    /// The store's objects.
    fn objects(&self) -> &StoreObjects;

    /// Called as compiled code enters (`entering`) and leaves a host
    /// function of this store (the embedder's call hook); an error fails
    /// the call as the host function's own error would.
    fn host_call_hook(&mut self, entering: bool) -> anyhow::Result<()> {
        let _ = entering;
        Ok(())
    }

    /// Called when a host function that compiled code called failed with
    /// `error`: the exception (an exnref word of this store) to throw into
    /// the wasm caller instead of trapping, if the error is the host
    /// throwing one (the store takes it out of its own record). The wasm
    /// caller must check for a pending exception after the call (compiled
    /// code does when exception handling is on).
    fn host_throw(&mut self, error: &anyhow::Error) -> Option<usize> {
        let _ = error;
        None
    }
}

#[doc(hidden)]
/// Calls the function `callee` through the array-call `trampoline` of its
/// type, with `values` holding the arguments and receiving the results.
///
/// `values` must have at least as many slots as the function has parameters
/// and results, `trampoline` must be the array-call trampoline of the
/// callee's type, and `callee` must belong to `store`. Host functions of the
/// callee's instance get `store` back as `&mut S`.
pub fn invoke<S: VMStore>(
    store: &mut S,
    callee: FuncRefPtr,
    trampoline: CodePtr,
    values: &mut [ValRaw],
    max_wasm_stack: usize,
) -> Result<(), UnwindReason> {
    let ctx: *const VMStoreContext = store.objects().context();
    let store_ptr: *mut S = store;
    // SAFETY: the context is boxed inside the store, which outlives this
    // call; from here until the end of the call the store is only reached
    // through `store_ptr` (by host functions).
    let ctx = unsafe { &*ctx };
    let prev_store = ctx.store_ptr.replace(store_ptr.cast());
    let prev_limit = ctx.stack_limit.get();
    if prev_limit == 0 {
        let here = &prev_limit as *const usize as usize;
        ctx.stack_limit.set(here.saturating_sub(max_wasm_stack));
    }
    let prev_exit = (ctx.last_wasm_exit_fp.get(), ctx.last_wasm_exit_pc.get());
    // A call made while wasm runs (from a host function that wasm called):
    // the collector walks the outer wasm frames from that exit. An exit of
    // 0 (host code reached without a trampoline) tells the collector that
    // frames it cannot walk are below.
    let nested = prev_limit != 0;
    if nested {
        ctx.push_outer_exit(prev_exit);
        ctx.last_wasm_exit_fp.set(0);
    }
    // SAFETY: `callee` points to a live `VMFuncRef` of this store.
    let (code, vmctx) = unsafe { ((*callee.0).code, (*callee.0).vmctx) };
    // SAFETY: `trampoline` is compiled code with this signature.
    let tramp: extern "C" fn(*mut u8, *mut u8, usize, *mut ValRaw) = unsafe { std::mem::transmute(trampoline.0) };
    // The closure captures one reference to the arguments, so that
    // `catch_traps` moves a single word instead of re-reading four words
    // just written (a store-forwarding stall on every call).
    let args = &(tramp, vmctx, code, values.as_mut_ptr());
    let result = traps::catch_traps(move || {
        let (tramp, vmctx, code, vals) = *args;
        tramp(vmctx, vmctx, code, vals)
    });
    ctx.stack_limit.set(prev_limit);
    ctx.store_ptr.set(prev_store);
    if nested {
        ctx.pop_outer_exit();
    }
    ctx.last_wasm_exit_fp.set(prev_exit.0);
    ctx.last_wasm_exit_pc.set(prev_exit.1);
    // Returned as made, in each arm: the common `Ok` is one byte written,
    // not a copy of the whole result read back right after that byte.
    match result {
        Ok(()) => Ok(()),
        // An exception no wasm handler caught makes the entry trampoline
        // trap with `UncaughtException`: only then is the pending exception
        // read.
        Err(reason) => uncaught_exception(ctx, reason),
    }
}
