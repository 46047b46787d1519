//! The shim through which compiled code calls host functions.

use crate::instance::Instance;
use crate::traps::{record_host_failure, UnwindReason};
use crate::vm::{Answer, Interrupt, InterruptFn, VMFuncRef, VMStoreContext, ValRaw};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// The closure behind a host function: gets the store, the calling instance
/// and the values array (arguments in, results out).
pub type HostFn<S> = dyn Fn(&mut S, HostCaller, &mut [ValRaw]) -> anyhow::Result<()> + Send + Sync;

/// What a host function knows about its caller.
#[derive(Debug, Clone, Copy)]
pub struct HostCaller {
    /// The store handle of the calling instance.
    pub instance: u32,
    /// The word the function was made with ([`HostFunc::with_data`]): lets
    /// one closure serve many functions, each finding its own state by it.
    pub data: usize,
}

/// The host context of a host function, which its `VMFuncRef`'s `vmctx`
/// points at: the shim first (where the trampoline finds it), then the
/// function reference itself and the closure.
#[repr(C)]
pub(crate) struct HostFuncContextHeader<S: 'static> {
    pub(crate) shim: usize,
    pub(crate) func_ref: VMFuncRef,
    pub(crate) func: Arc<HostFn<S>>,
    pub(crate) data: usize,
}

/// A host function's closure with the shim compiled code enters it
/// through: [`HostFunc::new`] pairs a closure with a shim made for its own
/// type, which calls it directly (no dynamic call, the closure inlined).
pub struct HostFunc<S: 'static> {
    func: Arc<HostFn<S>>,
    /// The shim for `func`'s concrete type (`typed_shim::<S, F>`).
    shim: usize,
    /// The word `func` gets as [`HostCaller::data`].
    data: usize,
}

impl<S: 'static> Clone for HostFunc<S> {
    fn clone(&self) -> Self {
        HostFunc {
            func: self.func.clone(),
            shim: self.shim,
            data: self.data,
        }
    }
}

impl<S: crate::VMStore> HostFunc<S> {
    /// The host function running `f`.
    pub fn new<F>(f: F) -> HostFunc<S>
    where
        F: Fn(&mut S, HostCaller, &mut [ValRaw]) -> anyhow::Result<()> + Send + Sync + 'static,
    {
        HostFunc {
            func: Arc::new(f),
            shim: typed_shim::<S, F> as *const () as usize,
            data: 0,
        }
    }
}

impl<S: 'static> HostFunc<S> {
    /// The same closure as another function, which gets `data` as
    /// [`HostCaller::data`] (0 unless set): functions made this way share
    /// one allocation.
    pub fn with_data(&self, data: usize) -> HostFunc<S> {
        HostFunc {
            func: self.func.clone(),
            shim: self.shim,
            data,
        }
    }

    /// Calls the closure from the host (not through compiled code), for a
    /// caller in the store instance `instance`.
    pub fn call(&self, store: &mut S, instance: u32, values: &mut [ValRaw]) -> anyhow::Result<()> {
        let caller = HostCaller {
            instance,
            data: self.data,
        };
        (self.func)(store, caller, values)
    }

    pub(crate) fn into_parts(self) -> (usize, Arc<HostFn<S>>, usize) {
        (self.shim, self.func, self.data)
    }

    /// The host function of `parts`, which came from [`HostFunc::into_parts`].
    pub(crate) fn from_parts(shim: usize, func: Arc<HostFn<S>>, data: usize) -> HostFunc<S> {
        HostFunc { func, shim, data }
    }
}

/// The shim of a host function whose closure is an `F` (made by
/// [`HostFunc::new`], which is the only place that pairs the two).
extern "C" fn typed_shim<S, F>(host_vmctx: *mut u8, caller_vmctx: *mut u8, values: *mut ValRaw, len: usize) -> u8
where
    S: crate::VMStore,
    F: Fn(&mut S, HostCaller, &mut [ValRaw]) -> anyhow::Result<()> + Send + Sync + 'static,
{
    // SAFETY: the trampoline passes the host context it was reached through
    // (laid out as `HostFuncContextHeader<S>`, made by `add_host_func` from a
    // `HostFunc<S>` whose shim is this one, so its closure is an `F` behind
    // the `Arc`), the live vmctx of the calling wasm instance, and a values
    // array of `len` slots on its own stack. The store pointer was set by
    // `invoke::<S>` for the duration of the outermost call into this store's
    // wasm. The closure lives in the `Arc` that the store keeps until it is
    // dropped, which cannot happen while one of its host functions runs.
    let (store, store_ctx, host_caller, values, func) = unsafe {
        let ctx = &*host_vmctx.cast::<HostFuncContextHeader<S>>();
        let caller = Instance::from_vmctx(caller_vmctx);
        let store_ctx = &*(*(caller_vmctx.add(8) as *const *const VMStoreContext));
        let store = &mut *store_ctx.store_ptr.get().cast::<S>();
        let values = std::slice::from_raw_parts_mut(values, len);
        let func = &*Arc::as_ptr(&ctx.func).cast::<F>();
        let host_caller = HostCaller {
            instance: caller.store_index,
            data: ctx.data,
        };
        (store, store_ctx, host_caller, values, func)
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        store.host_call_hook(true)?;
        let r = func(store, host_caller, values);
        let left = store.host_call_hook(false);
        r.and(left)
    }));
    match outcome {
        Ok(Ok(())) => 1,
        Ok(Err(error)) => {
            if host_error(store, store_ctx, error) {
                // SAFETY: this runs on the wasm frames' stack, under the
                // wasm-to-host trampoline whose exit the store context
                // records; nothing in this frame is left to drop (`outcome`
                // was moved out, the rest are references).
                unsafe { crate::unwind::resume_at_handler(store_ctx) };
                return uncaught_from_host();
            }
            0
        }
        other => host_failed(other),
    }
}

/// A host function's error: the exception the host threw (see
/// [`crate::VMStore::host_throw`]) becomes the pending exception, and true
/// is returned: the shim then unwinds it to its wasm handler. Any other
/// error is recorded for the trap that follows, and false is returned.
#[cold]
#[inline(never)]
fn host_error<S: crate::VMStore>(store: &mut S, ctx: &VMStoreContext, error: anyhow::Error) -> bool {
    let thrown = catch_unwind(AssertUnwindSafe(|| store.host_throw(&error)));
    match thrown {
        Ok(Some(exn)) if ctx.set_pending_exception(exn) => true,
        Ok(_) => {
            host_failed(Ok(Err(error)));
            false
        }
        Err(panic) => {
            host_failed(Err(panic));
            false
        }
    }
}

/// A host function threw an exception that no wasm frame of this call
/// into wasm handles: the trap that follows becomes `UncaughtException`,
/// which hands the pending exception to the host that called into wasm.
#[cold]
#[inline(never)]
fn uncaught_from_host() -> u8 {
    record_host_failure(UnwindReason::Trap {
        trap: weft_environ::Trap::UncaughtException,
        pcs: Vec::new(),
    });
    0
}

/// Records a host function's error or panic for the trap that follows.
#[cold]
#[inline(never)]
fn host_failed(outcome: std::thread::Result<anyhow::Result<()>>) -> u8 {
    match outcome {
        Ok(Ok(())) => 1,
        Ok(Err(error)) => {
            // The frames are taken when compiled code traps right after.
            record_host_failure(UnwindReason::HostError { error, pcs: Vec::new() });
            0
        }
        Err(panic) => {
            record_host_failure(UnwindReason::Panic(panic));
            0
        }
    }
}

/// Runs the store's interrupt handler (installed with
/// `StoreObjects::set_interrupt_handler::<S>`) for a builtin; on failure the
/// error or panic is recorded for the trap that follows.
pub(crate) fn interrupt_shim<S: 'static>(store: *mut u8, handler: usize, why: Interrupt) -> Answer {
    // SAFETY: `handler` was stored from an `InterruptFn<S>` by
    // `set_interrupt_handler::<S>`, and `store` is the `*mut S` that
    // `invoke::<S>` recorded for the running call.
    let outcome = unsafe {
        let handler: InterruptFn<S> = std::mem::transmute(handler);
        let store = &mut *store.cast::<S>();
        catch_unwind(AssertUnwindSafe(|| handler(store, why)))
    };
    match outcome {
        Ok(Ok(true)) => Answer::Proceed,
        Ok(Ok(false)) => Answer::Refuse,
        Ok(Err(error)) => {
            record_host_failure(UnwindReason::HostError { error, pcs: Vec::new() });
            Answer::Fail
        }
        Err(panic) => {
            record_host_failure(UnwindReason::Panic(panic));
            Answer::Fail
        }
    }
}
