//! `weft/func.h`: host functions, calls and callers.

use super::val::{
    extern_of, func_handle, func_of, raw_from_weft, raw_to_weft, val_from_weft, val_to_weft, weft_extern_t,
    weft_func_t, weft_val_raw_t, weft_val_t,
};
use crate::error::weft_error_t;
use crate::func::trap_into_error;
use crate::guard;
use crate::host_env::{Finalizer, HostEnv};
use crate::r#ref::{wasm_ref_t, wasm_trap_t};
use crate::store::{shared_of, CallerScope, StoreData, StoreShared};
use crate::types::{wasm_externtype_t, wasm_functype_t, CExternType, CFuncType};
use std::ffi::{c_char, c_void};
use std::mem::MaybeUninit;
use weft::{Caller, Func, FuncType, Val};

/// `weft_caller_t`: the caller of a host function, valid during its call.
pub struct weft_caller_t {
    store: *const StoreShared,
}

impl weft_caller_t {
    /// The caller of a host function running in `store`.
    pub(crate) fn new(store: &StoreShared) -> weft_caller_t {
        weft_caller_t { store }
    }
}

/// `weft_func_callback_t`.
pub type weft_func_callback_t = Option<
    unsafe extern "C" fn(
        env: *mut c_void,
        caller: *mut weft_caller_t,
        args: *const weft_val_t,
        nargs: usize,
        results: *mut weft_val_t,
        nresults: usize,
    ) -> Option<Box<wasm_trap_t>>,
>;

/// `weft_func_unchecked_callback_t`.
pub type weft_func_unchecked_callback_t = Option<
    unsafe extern "C" fn(
        env: *mut c_void,
        caller: *mut weft_caller_t,
        args_and_results: *mut weft_val_raw_t,
        num_args_and_results: usize,
    ) -> Option<Box<wasm_trap_t>>,
>;

/// A host closure calling a `weft_func_callback_t`.
pub(crate) fn checked_closure(
    cb: unsafe extern "C" fn(
        *mut c_void,
        *mut weft_caller_t,
        *const weft_val_t,
        usize,
        *mut weft_val_t,
        usize,
    ) -> Option<Box<wasm_trap_t>>,
    env: HostEnv,
) -> impl Fn(Caller<'_, StoreData>, &[Val], &mut [Val]) -> anyhow::Result<()> + Send + Sync + 'static {
    move |mut caller, params, results| {
        let store = shared_of(&caller).ok_or_else(|| anyhow::anyhow!("store is gone"))?;
        let _scope = CallerScope::enter(&store, &mut caller);
        let mut args = {
            // SAFETY: the only context in use; the caller is not used
            // directly while the scope lives.
            let mut cx = unsafe { store.ctx() };
            params
                .iter()
                .map(|p| val_from_weft(&store, &mut cx, p))
                .collect::<anyhow::Result<Vec<_>>>()?
        };
        let mut out: Vec<weft_val_t> = results
            .iter()
            .map(|_| weft_val_t {
                kind: super::val::WEFT_I32,
                of: super::val::weft_valunion_t { v128: [0; 16] },
            })
            .collect();
        let mut c = weft_caller_t { store: &*store };
        // SAFETY: the host's callback with its data, a caller valid for the
        // call, and argument and result arrays of the function type's sizes.
        let trap = unsafe {
            cb(
                env.data(),
                &mut c,
                args.as_ptr(),
                args.len(),
                out.as_mut_ptr(),
                out.len(),
            )
        };
        // The arguments are lent to the callback: their GC roots are
        // released now (the callback clones what it keeps).
        for a in &mut args {
            super::val::weft_val_unroot(Some(a));
        }
        if let Some(trap) = trap {
            return Err(trap_into_error(*trap));
        }
        // SAFETY: the only context in use.
        let mut cx = unsafe { store.ctx() };
        // The results are given to Weft: an `anyref`'s root is moved into
        // the host call's root scope (alive until wasm has the value).
        let mut r = Ok(());
        for (slot, v) in results.iter_mut().zip(&mut out) {
            if r.is_err() {
                super::val::weft_val_unroot(Some(v));
                continue;
            }
            match super::val::val_taken_to_weft(&store, &mut cx, v) {
                Ok(val) => *slot = val,
                Err(e) => r = Err(e),
            }
        }
        r
    }
}

/// A host closure calling a `weft_func_unchecked_callback_t`.
pub(crate) fn unchecked_closure(
    cb: unsafe extern "C" fn(*mut c_void, *mut weft_caller_t, *mut weft_val_raw_t, usize) -> Option<Box<wasm_trap_t>>,
    env: HostEnv,
    ty: FuncType,
) -> impl Fn(Caller<'_, StoreData>, &[Val], &mut [Val]) -> anyhow::Result<()> + Send + Sync + 'static {
    let result_types: Vec<_> = ty.results().collect();
    move |mut caller, params, results| {
        let store = shared_of(&caller).ok_or_else(|| anyhow::anyhow!("store is gone"))?;
        let _scope = CallerScope::enter(&store, &mut caller);
        let len = params.len().max(results.len());
        let mut buf = vec![weft_val_raw_t { v128: [0; 16] }; len];
        {
            // SAFETY: the only context in use.
            let mut cx = unsafe { store.ctx() };
            for (slot, p) in buf.iter_mut().zip(params) {
                *slot = raw_from_weft(&store, &mut cx, p)?;
            }
        }
        let mut c = weft_caller_t { store: &*store };
        // SAFETY: the host's callback with its data, a caller valid for the
        // call, and a buffer of max(params, results) raw values.
        let trap = unsafe { cb(env.data(), &mut c, buf.as_mut_ptr(), buf.len()) };
        if let Some(trap) = trap {
            return Err(trap_into_error(*trap));
        }
        // SAFETY: the only context in use.
        let cx = unsafe { store.ctx() };
        for ((slot, raw), ty) in results.iter_mut().zip(&buf).zip(&result_types) {
            *slot = raw_to_weft(&store, &cx, raw, ty)?;
        }
        Ok(())
    }
}

/// The Weft function type of a C one, for `store`'s engine.
pub(crate) fn functype(ty: &wasm_functype_t, engine: &weft::Engine) -> anyhow::Result<FuncType> {
    ty.func()
        .ok_or_else(|| anyhow::anyhow!("not a function type"))?
        .to_weft(engine)
}

/// A new host function of type `ty` in the store, calling `callback` with
/// `env` (finalized with the store); written to `ret`.
#[no_mangle]
pub extern "C" fn weft_func_new(
    store: Option<&StoreShared>,
    ty: Option<&wasm_functype_t>,
    callback: weft_func_callback_t,
    env: *mut c_void,
    finalizer: Finalizer,
    ret: Option<&mut MaybeUninit<weft_func_t>>,
) {
    guard(
        || (),
        || {
            let env = HostEnv::new(env, finalizer);
            let (Some(store), Some(ty), Some(cb), Some(ret)) = (store, ty, callback, ret) else {
                return;
            };
            let Ok(ft) = functype(ty, &store.engine()) else { return };
            // SAFETY: the only context in use in this function.
            let mut cx = unsafe { store.ctx() };
            let f = Func::new(&mut cx, ft, checked_closure(cb, env));
            ret.write(func_handle(store, &mut cx, f));
        },
    )
}

/// Like `weft_func_new`, with a callback on raw values.
#[no_mangle]
pub extern "C" fn weft_func_new_unchecked(
    store: Option<&StoreShared>,
    ty: Option<&wasm_functype_t>,
    callback: weft_func_unchecked_callback_t,
    env: *mut c_void,
    finalizer: Finalizer,
    ret: Option<&mut MaybeUninit<weft_func_t>>,
) {
    guard(
        || (),
        || {
            let env = HostEnv::new(env, finalizer);
            let (Some(store), Some(ty), Some(cb), Some(ret)) = (store, ty, callback, ret) else {
                return;
            };
            let Ok(ft) = functype(ty, &store.engine()) else { return };
            // SAFETY: the only context in use in this function.
            let mut cx = unsafe { store.ctx() };
            let f = Func::new(&mut cx, ft.clone(), unchecked_closure(cb, env, ft));
            ret.write(func_handle(store, &mut cx, f));
        },
    )
}

/// The function's type (null for a function of another store).
#[no_mangle]
pub extern "C" fn weft_func_type(
    store: Option<&StoreShared>,
    func: Option<&weft_func_t>,
) -> Option<Box<wasm_functype_t>> {
    guard(
        || None,
        || {
            let store = store?;
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            let f = func_of(store, &cx, func?).ok()?;
            Some(Box::new(wasm_externtype_t {
                which: CExternType::Func(CFuncType::new(&f.ty(&cx))),
            }))
        },
    )
}

/// Splits a failed call into an error or a trap, as Wasmtime does: wasm
/// traps (with a code) and uncaught exceptions are traps, the rest errors.
pub(crate) fn split_error(
    e: anyhow::Error,
    trap: Option<&mut MaybeUninit<Option<Box<wasm_trap_t>>>>,
) -> Option<Box<weft_error_t>> {
    let is_trap = crate::trap::error_trap_code(&e).is_some() || e.downcast_ref::<weft::ThrownException>().is_some();
    match trap {
        Some(t) if is_trap => {
            t.write(Some(wasm_ref_t::trap(e)));
            None
        }
        _ => Some(Box::new(weft_error_t { error: e })),
    }
}

/// Calls `func` with `nargs` arguments, writing `nresults` results. Returns
/// an error for misuse (wrong count or types, objects of another store),
/// sets `*trap` if wasm trapped, and returns null with `*trap` null on
/// success.
///
/// # Safety
///
/// `args` points to `nargs` values and `results` to `nresults` writable
/// values (either may be null when its length is 0).
#[no_mangle]
pub unsafe extern "C" fn weft_func_call(
    store: Option<&StoreShared>,
    func: Option<&weft_func_t>,
    args: *const weft_val_t,
    nargs: usize,
    results: *mut weft_val_t,
    nresults: usize,
    trap: Option<&mut MaybeUninit<Option<Box<wasm_trap_t>>>>,
) -> Option<Box<weft_error_t>> {
    let mut trap = trap;
    if let Some(t) = trap.as_deref_mut() {
        t.write(None);
    }
    let r = crate::guard_result(|| {
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        let func = func.ok_or_else(|| crate::null_error("func"))?;
        let args = if nargs == 0 {
            &[][..]
        } else {
            if args.is_null() {
                return Err(crate::null_error("args"));
            }
            // SAFETY: the caller gives `nargs` values at `args`.
            unsafe { std::slice::from_raw_parts(args, nargs) }
        };
        if nresults != 0 && results.is_null() {
            return Err(crate::null_error("results"));
        }
        // SAFETY: the only context in use here (host functions called by
        // `call` go through their caller).
        let mut cx = unsafe { store.ctx() };
        // A root scope for the call: the GC references of the results are
        // rooted here only until `val_from_weft` gives C its own roots.
        let mut scope = weft::RootScope::new(&mut cx);
        let mut cx = weft::AsContextMut::as_context_mut(&mut scope);
        let f = func_of(store, &cx, func)?;
        let params = args
            .iter()
            .map(|a| val_to_weft(store, &cx, a))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let ty = f.ty(&cx);
        if ty.results().len() != nresults {
            anyhow::bail!("expected {} results, got {}", ty.results().len(), nresults);
        }
        let mut out: Vec<Val> = ty.results().map(|_| Val::I32(0)).collect();
        Ok(match f.call(&mut cx, &params, &mut out) {
            Ok(()) => {
                for (i, v) in out.iter().enumerate() {
                    let c = val_from_weft(store, &mut cx, v)?;
                    // SAFETY: the caller gives `nresults` writable values.
                    unsafe { results.add(i).write(c) };
                }
                Ok(())
            }
            // The call ran: its failure is the callee's, a trap or error.
            Err(e) => Err(e),
        })
    });
    match r {
        Ok(Ok(())) => None,
        Ok(Err(e)) => split_error(e, trap),
        Err(e) => Some(Box::new(weft_error_t { error: e })),
    }
}

/// Calls `func` with raw values: the arguments at the start of
/// `args_and_results`, overwritten by the results.
///
/// # Safety
///
/// `args_and_results` points to `args_and_results_len` values, at least
/// max(params, results) of the function, the arguments of its types.
#[no_mangle]
pub unsafe extern "C" fn weft_func_call_unchecked(
    store: Option<&StoreShared>,
    func: Option<&weft_func_t>,
    args_and_results: *mut weft_val_raw_t,
    args_and_results_len: usize,
    trap: Option<&mut MaybeUninit<Option<Box<wasm_trap_t>>>>,
) -> Option<Box<weft_error_t>> {
    let mut trap = trap;
    if let Some(t) = trap.as_deref_mut() {
        t.write(None);
    }
    let r = crate::guard_result(|| {
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        let func = func.ok_or_else(|| crate::null_error("func"))?;
        // SAFETY: the only context in use here.
        let mut cx = unsafe { store.ctx() };
        // A root scope for the call (see `weft_func_call`): raw results
        // keep their objects in the store's raw table instead.
        let mut scope = weft::RootScope::new(&mut cx);
        let mut cx = weft::AsContextMut::as_context_mut(&mut scope);
        let f = func_of(store, &cx, func)?;
        let ty = f.ty(&cx);
        let needed = ty.params().len().max(ty.results().len());
        if args_and_results_len < needed || (needed > 0 && args_and_results.is_null()) {
            anyhow::bail!("the buffer holds {args_and_results_len} values, the function needs {needed}");
        }
        let buf = if needed == 0 {
            &mut [][..]
        } else {
            // SAFETY: the caller gives `args_and_results_len >= needed`
            // values.
            unsafe { std::slice::from_raw_parts_mut(args_and_results, needed) }
        };
        let params = ty
            .params()
            .zip(buf.iter())
            .map(|(t, raw)| raw_to_weft(store, &cx, raw, &t))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let mut out: Vec<Val> = ty.results().map(|_| Val::I32(0)).collect();
        Ok(match f.call(&mut cx, &params, &mut out) {
            Ok(()) => {
                for (slot, v) in buf.iter_mut().zip(&out) {
                    *slot = raw_from_weft(store, &mut cx, v)?;
                }
                Ok(())
            }
            Err(e) => Err(e),
        })
    });
    match r {
        Ok(Ok(())) => None,
        Ok(Err(e)) => split_error(e, trap),
        Err(e) => Some(Box::new(weft_error_t { error: e })),
    }
}

/// The export `name` of the calling instance; false if there is none.
///
/// # Safety
///
/// `name` points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_caller_export_get(
    caller: Option<&mut weft_caller_t>,
    name: *const c_char,
    name_len: usize,
    item: Option<&mut MaybeUninit<weft_extern_t>>,
) -> bool {
    guard(
        || false,
        || {
            let (Some(caller), Some(item)) = (caller, item) else {
                return false;
            };
            // SAFETY: the caller gives `name_len` readable bytes.
            let Ok(name) = (unsafe { super::str_arg(name, name_len) }) else {
                return false;
            };
            // SAFETY: a caller is only handed to C during its host call, in
            // which its store is alive.
            let store = unsafe { &*caller.store };
            let Some(c) = CallerScope::caller(store) else {
                return false;
            };
            // SAFETY: the running host function's caller (see
            // `StoreShared::ctx`); no context of the store is in use here.
            let found = unsafe { (*c).get_export(name) };
            let Some(e) = found else { return false };
            // SAFETY: the only context in use in this block.
            let mut cx = unsafe { store.ctx() };
            match extern_of(store, &mut cx, e) {
                Ok(x) => {
                    item.write(x);
                    true
                }
                Err(_) => false,
            }
        },
    )
}

/// The store context of the caller.
#[no_mangle]
pub extern "C" fn weft_caller_context(caller: Option<&weft_caller_t>) -> *const StoreShared {
    caller.map_or(std::ptr::null(), |c| c.store)
}

/// The function of a raw funcref value (`ret` untouched if invalid).
#[no_mangle]
pub extern "C" fn weft_func_from_raw(
    store: Option<&StoreShared>,
    raw: *mut c_void,
    ret: Option<&mut MaybeUninit<weft_func_t>>,
) {
    guard(
        || (),
        || {
            let (Some(store), Some(ret)) = (store, ret) else { return };
            if raw.is_null() {
                return;
            }
            let f = weft_func_t {
                store_id: store.id(),
                private: (raw as usize - 1) as *mut c_void,
            };
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            if func_of(store, &cx, &f).is_ok() {
                ret.write(f);
            }
        },
    )
}

/// The raw funcref value of a function (null for one of another store).
#[no_mangle]
pub extern "C" fn weft_func_to_raw(store: Option<&StoreShared>, func: Option<&weft_func_t>) -> *mut c_void {
    guard(std::ptr::null_mut, || {
        let (Some(store), Some(func)) = (store, func) else {
            return std::ptr::null_mut();
        };
        // SAFETY: the only context in use in this function.
        let cx = unsafe { store.ctx() };
        match func_of(store, &cx, func) {
            Ok(_) => (func.private as usize + 1) as *mut c_void,
            Err(_) => std::ptr::null_mut(),
        }
    })
}
