//! The core-wasm functions of `weft/async.h`: async calls, async host
//! functions and async instantiation, polled from C through
//! `weft_call_future_t`, and the fuel and epoch yields of async calls.

use super::func::{functype, split_error, weft_caller_t};
use super::instance::{instance_handle, weft_instance_pre_t};
use super::linker::weft_linker_t;
use super::module::weft_module_t;
use super::str_arg;
use super::val::{func_of, val_from_weft, val_taken_to_weft, val_to_weft, weft_func_t, weft_instance_t, weft_val_t};
use crate::async_::{weft_async_continuation_t, weft_call_future_t, Continuation};
use crate::error::{catch_err, weft_error_t};
use crate::func::trap_into_error;
use crate::guard;
use crate::host_env::{Finalizer, HostEnv};
use crate::r#ref::wasm_trap_t;
use crate::store::{shared_of, CallerScope, StoreData, StoreShared};
use crate::types::wasm_functype_t;
use crate::AssertSendSync;
use std::ffi::{c_char, c_void};
use std::mem::MaybeUninit;
use weft::{Caller, Val};

/// `weft_func_async_callback_t`.
pub type weft_func_async_callback_t = Option<
    unsafe extern "C" fn(
        env: *mut c_void,
        caller: *mut weft_caller_t,
        args: *const weft_val_t,
        nargs: usize,
        results: *mut weft_val_t,
        nresults: usize,
        trap_ret: *mut Option<Box<wasm_trap_t>>,
        continuation_ret: *mut weft_async_continuation_t,
    ),
>;

/// Writes the outcome `r` of an async call to the host's trap and error
/// out-parameters (a trap where the sync call would give one).
fn set_outcome(
    trap_ret: *mut Option<Box<wasm_trap_t>>,
    error_ret: *mut Option<Box<weft_error_t>>,
    r: anyhow::Result<()>,
) {
    // SAFETY: the C API's contract: both pointers are writable and outlive
    // the future (null ones are skipped).
    let trap = unsafe { trap_ret.cast::<MaybeUninit<Option<Box<wasm_trap_t>>>>().as_mut() };
    let err = match r {
        Ok(()) => {
            if let Some(t) = trap {
                t.write(None);
            }
            None
        }
        Err(e) => {
            let mut trap = trap;
            if let Some(t) = trap.as_deref_mut() {
                t.write(None);
            }
            split_error(e, trap)
        }
    };
    if !error_ret.is_null() {
        // SAFETY: as above.
        unsafe { error_ret.write(err) };
    }
}

/// Starts an async call of `func`, polled with `weft_call_future_poll`;
/// when it completes, `*trap_ret` and `*error_ret` tell its outcome as
/// `weft_func_call` would.
///
/// # Safety
///
/// As `weft_func_call`; every argument outlives the future.
#[no_mangle]
pub unsafe extern "C" fn weft_func_call_async(
    context: Option<&StoreShared>,
    func: Option<&weft_func_t>,
    args: *const weft_val_t,
    nargs: usize,
    results: *mut weft_val_t,
    nresults: usize,
    trap_ret: *mut Option<Box<wasm_trap_t>>,
    error_ret: *mut Option<Box<weft_error_t>>,
) -> Option<Box<weft_call_future_t>> {
    guard(
        || None,
        || {
            let store: *const StoreShared = context?;
            let func = *func?;
            let future = async move {
                let r: anyhow::Result<()> = async {
                    // SAFETY: the C API's contract: the context outlives the
                    // future, which alone uses the store meanwhile.
                    let store = unsafe { &*store };
                    let args = if nargs == 0 {
                        &[][..]
                    } else {
                        if args.is_null() {
                            return Err(crate::null_error("args"));
                        }
                        // SAFETY: the caller gives `nargs` values.
                        unsafe { std::slice::from_raw_parts(args, nargs) }
                    };
                    if nresults != 0 && results.is_null() {
                        return Err(crate::null_error("results"));
                    }
                    // SAFETY: the only context in use while the future runs
                    // (host functions go through their callers).
                    let mut cx = unsafe { store.ctx() };
                    // A root scope for the call, as `weft_func_call`'s: the
                    // GC references of the results are rooted here only
                    // until `val_from_weft` gives C its own roots.
                    let mut scope = weft::RootScope::new(&mut cx);
                    let mut cx = weft::AsContextMut::as_context_mut(&mut scope);
                    let f = func_of(store, &cx, &func)?;
                    let params = args
                        .iter()
                        .map(|a| val_to_weft(store, &cx, a))
                        .collect::<anyhow::Result<Vec<_>>>()?;
                    let ty = f.ty(&cx);
                    if ty.results().len() != nresults {
                        anyhow::bail!("expected {} results, got {}", ty.results().len(), nresults);
                    }
                    let mut out: Vec<Val> = ty.results().map(|_| Val::I32(0)).collect();
                    f.call_async(&mut cx, &params, &mut out).await?;
                    for (i, v) in out.iter().enumerate() {
                        let c = val_from_weft(store, &mut cx, v)?;
                        // SAFETY: the caller gives `nresults` writable values.
                        unsafe { results.add(i).write(c) };
                    }
                    Ok(())
                }
                .await;
                set_outcome(trap_ret, error_ret, r);
            };
            Some(weft_call_future_t::new(future))
        },
    )
}

/// The C values of an async host call, kept until its continuation is done.
/// The arguments are lent to the callback and the results given to Weft:
/// the GC roots of both are released when the call ends, whichever way
/// (the results' are moved into the host call's root scope first when the
/// call succeeds; a result already taken is null, and unrooting it again
/// does nothing).
struct HostCallValues {
    args: Vec<weft_val_t>,
    results: Vec<weft_val_t>,
}

impl Drop for HostCallValues {
    fn drop(&mut self) {
        for v in self.args.iter_mut().chain(self.results.iter_mut()) {
            super::val::weft_val_unroot(Some(v));
        }
    }
}

/// Defines `module::name` as an async host function of type `ty`: `cb`
/// starts the call and gives a continuation, polled until done (the wasm
/// caller meanwhile yields to the host's poll loop).
///
/// # Safety
///
/// `module` and `name` point to `module_len` and `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_linker_define_async_func(
    linker: Option<&mut weft_linker_t>,
    module: *const c_char,
    module_len: usize,
    name: *const c_char,
    name_len: usize,
    ty: Option<&wasm_functype_t>,
    cb: weft_func_async_callback_t,
    data: *mut c_void,
    finalizer: Finalizer,
) -> Option<Box<weft_error_t>> {
    let env = HostEnv::new(data, finalizer);
    catch_err(|| {
        let linker = linker.ok_or_else(|| crate::null_error("linker"))?;
        // SAFETY: the caller gives the names' bytes.
        let (m, n) = unsafe { (str_arg(module, module_len)?, str_arg(name, name_len)?) };
        let ft = functype(ty.ok_or_else(|| crate::null_error("type"))?, linker.linker.engine())?;
        let cb = cb.ok_or_else(|| crate::null_error("callback"))?;
        linker
            .linker
            .func_new_async(m, n, ft, move |mut caller: Caller<'_, StoreData>, params, results| {
                let started = (|| {
                    let store = shared_of(&caller).ok_or_else(|| anyhow::anyhow!("store is gone"))?;
                    let scope = CallerScope::enter(&store, &mut caller);
                    let mut vals = {
                        // SAFETY: the only context in use; the caller is
                        // not used directly while the scope lives.
                        let mut cx = unsafe { store.ctx() };
                        HostCallValues {
                            args: params
                                .iter()
                                .map(|p| val_from_weft(&store, &mut cx, p))
                                .collect::<anyhow::Result<Vec<_>>>()?,
                            results: results
                                .iter()
                                .map(|_| weft_val_t {
                                    kind: super::val::WEFT_I32,
                                    of: super::val::weft_valunion_t { v128: [0; 16] },
                                })
                                .collect(),
                        }
                    };
                    let mut c = weft_caller_t::new(&store);
                    let mut trap: Option<Box<wasm_trap_t>> = None;
                    let mut cont = weft_async_continuation_t::empty();
                    // SAFETY: the host's callback with its data, a caller
                    // valid for the call, argument and result arrays of the
                    // type's sizes (kept alive until the continuation is
                    // done) and two out-params.
                    unsafe {
                        cb(
                            env.data(),
                            &mut c,
                            vals.args.as_ptr(),
                            vals.args.len(),
                            vals.results.as_mut_ptr(),
                            vals.results.len(),
                            &mut trap,
                            &mut cont,
                        )
                    };
                    drop(scope);
                    let cont = Continuation(cont);
                    if let Some(t) = trap {
                        return Err(trap_into_error(*t));
                    }
                    Ok((AssertSendSync((store, vals)), cont))
                })();
                Box::new(async move {
                    let (mut held, cont) = started?;
                    cont.await;
                    let (store, vals) = &mut held.0;
                    let _scope = CallerScope::enter(store, &mut caller);
                    // SAFETY: the only context in use; the caller is not
                    // used directly while the scope lives.
                    let mut cx = unsafe { store.ctx() };
                    // The results are given to Weft: an `anyref`'s root is
                    // moved into the host call's root scope (alive until
                    // wasm has the value), as for sync host functions.
                    for (slot, v) in results.iter_mut().zip(vals.results.iter_mut()) {
                        *slot = val_taken_to_weft(store, &mut cx, v)?;
                    }
                    Ok(())
                })
            })?;
        linker.note(m, n);
        Ok(())
    })
}

/// The future of an async instantiation of `module` by `linker`.
///
/// # Safety
///
/// As `weft_linker_instantiate_async`.
unsafe fn instantiate_future(
    linker: *const weft_linker_t,
    store: *const StoreShared,
    module: weft::Module,
    instance: *mut weft_instance_t,
    trap_ret: *mut Option<Box<wasm_trap_t>>,
    error_ret: *mut Option<Box<weft_error_t>>,
) -> Box<weft_call_future_t> {
    weft_call_future_t::new(async move {
        let r = async {
            // SAFETY: the C API's contract: the arguments outlive the
            // future, which alone uses the store meanwhile.
            let (linker, store) = unsafe { (&*linker, &*store) };
            linker.check_imports(&module)?;
            // SAFETY: the only context in use while the future runs.
            let mut cx = unsafe { store.ctx() };
            let i = linker.linker.instantiate_async(&mut cx, &module).await?;
            let h = instance_handle(store, &mut cx, i);
            if !instance.is_null() {
                // SAFETY: the host's writable out-parameter.
                unsafe { instance.write(h) };
            }
            Ok(())
        }
        .await;
        set_outcome(trap_ret, error_ret, r);
    })
}

/// Starts an async instantiation of `module` by the linker.
///
/// # Safety
///
/// Every argument outlives the future; `instance`, `trap_ret` and
/// `error_ret` are writable.
#[no_mangle]
pub unsafe extern "C" fn weft_linker_instantiate_async(
    linker: Option<&weft_linker_t>,
    store: Option<&StoreShared>,
    module: Option<&weft_module_t>,
    instance: *mut weft_instance_t,
    trap_ret: *mut Option<Box<wasm_trap_t>>,
    error_ret: *mut Option<Box<weft_error_t>>,
) -> Option<Box<weft_call_future_t>> {
    guard(
        || None,
        || {
            let (linker, store, module) = (linker?, store?, module?);
            // SAFETY: the caller's contract, passed on.
            Some(unsafe { instantiate_future(linker, store, module.module.clone(), instance, trap_ret, error_ret) })
        },
    )
}

/// Starts an async instantiation of the pre-linked module.
///
/// # Safety
///
/// As `weft_linker_instantiate_async`.
#[no_mangle]
pub unsafe extern "C" fn weft_instance_pre_instantiate_async(
    instance_pre: Option<&weft_instance_pre_t>,
    store: Option<&StoreShared>,
    instance: *mut weft_instance_t,
    trap_ret: *mut Option<Box<wasm_trap_t>>,
    error_ret: *mut Option<Box<weft_error_t>>,
) -> Option<Box<weft_call_future_t>> {
    guard(
        || None,
        || {
            let (p, store) = (instance_pre?, store?);
            // SAFETY: the caller's contract, passed on.
            Some(unsafe { instantiate_future(&p.linker, store, p.module.clone(), instance, trap_ret, error_ret) })
        },
    )
}

/// With async calls, hands fuel to wasm in slices of `interval` and yields
/// between slices (0: never yields).
#[no_mangle]
pub extern "C" fn weft_context_fuel_async_yield_interval(
    context: Option<&StoreShared>,
    interval: u64,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let c = context.ok_or_else(|| crate::null_error("context"))?;
        // SAFETY: no context of this store is in use in this function.
        let store = unsafe { c.store_mut() }
            .ok_or_else(|| anyhow::anyhow!("the fuel yield interval cannot be set from inside a host function"))?;
        store.fuel_async_yield_interval((interval != 0).then_some(interval))
    })
}

/// At the epoch deadline, async calls yield and continue with a deadline
/// `delta` ticks later.
#[no_mangle]
pub extern "C" fn weft_context_epoch_deadline_async_yield_and_update(
    context: Option<&StoreShared>,
    delta: u64,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let c = context.ok_or_else(|| crate::null_error("context"))?;
        // SAFETY: no context of this store is in use in this function.
        let store = unsafe { c.store_mut() }
            .ok_or_else(|| anyhow::anyhow!("the epoch behaviour cannot be set from inside a host function"))?;
        store.epoch_deadline_async_yield_and_update(delta);
        Ok(())
    })
}
