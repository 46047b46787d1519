//! Functions of `wasm.h`: `wasm_func_new`, `wasm_func_new_with_env`,
//! `wasm_func_call` and the function's type.

use crate::guard;
use crate::host_env::{Finalizer, HostEnv};
use crate::r#ref::{wasm_func_t, wasm_ref_t, wasm_trap_t, Entity, RefKind};
use crate::store::{shared_of, wasm_store_t, CallerScope, StoreData, StoreShared};
use crate::types::{wasm_externtype_t, wasm_functype_t, CExternType, CFuncType};
use crate::val::{wasm_val_t, wasm_val_vec_t};
use crate::vec::CVec;
use std::ffi::c_void;
use std::rc::Rc;
use weft::{Caller, Func, Val};

/// `wasm_func_callback_t`.
pub type wasm_func_callback_t =
    Option<unsafe extern "C" fn(args: *const wasm_val_vec_t, results: *mut wasm_val_vec_t) -> Option<Box<wasm_trap_t>>>;

/// `wasm_func_callback_with_env_t`.
pub type wasm_func_callback_with_env_t = Option<
    unsafe extern "C" fn(
        env: *mut c_void,
        args: *const wasm_val_vec_t,
        results: *mut wasm_val_vec_t,
    ) -> Option<Box<wasm_trap_t>>,
>;

/// The error a trap returned by a host function becomes.
pub(crate) fn trap_into_error(trap: wasm_trap_t) -> anyhow::Error {
    match trap.r {
        RefKind::Trap(t) => match Rc::try_unwrap(t) {
            Ok(t) => t.error,
            // A trap still shared keeps its error: a copy of the thrown
            // exception's (which throws it), else its message.
            Err(t) => match t.error.downcast_ref::<weft::ThrownException>() {
                Some(thrown) => anyhow::Error::new(thrown.clone()),
                None => anyhow::anyhow!("{}", crate::error::format_error(&t.error)),
            },
        },
        _ => anyhow::anyhow!("host function returned a reference that is not a trap"),
    }
}

/// Calls a `wasm.h` host callback for a Weft host function.
fn call_wasm_callback(
    mut caller: Caller<'_, StoreData>,
    params: &[Val],
    results: &mut [Val],
    call: impl FnOnce(*const wasm_val_vec_t, *mut wasm_val_vec_t) -> Option<Box<wasm_trap_t>>,
) -> anyhow::Result<()> {
    let store = shared_of(&caller).ok_or_else(|| anyhow::anyhow!("store is gone"))?;
    let _scope = CallerScope::enter(&store, &mut caller);
    let args = {
        // SAFETY: the only context in use; the caller is not used directly.
        let mut cx = unsafe { store.ctx() };
        params
            .iter()
            .map(|p| wasm_val_t::from_weft(p, &store, &mut cx))
            .collect::<anyhow::Result<Vec<_>>>()?
    };
    let args = CVec::from_vec(args);
    let mut out: wasm_val_vec_t = CVec::from_vec((0..results.len()).map(|_| wasm_val_t::zero()).collect());
    let trap = call(&args, &mut out);
    drop(args);
    if let Some(trap) = trap {
        return Err(trap_into_error(*trap));
    }
    // SAFETY: the only context in use.
    let mut cx = unsafe { store.ctx() };
    for (slot, v) in results.iter_mut().zip(out.as_slice()) {
        *slot = v.to_weft(&store, &mut cx)?;
    }
    Ok(())
}

/// A new host function in `store` from a C function type.
fn new_host_func(
    store: &Rc<StoreShared>,
    ty: &wasm_functype_t,
    f: impl Fn(Caller<'_, StoreData>, &[Val], &mut [Val]) -> anyhow::Result<()> + Send + Sync + 'static,
) -> anyhow::Result<Func> {
    let cty = ty.func().ok_or_else(|| anyhow::anyhow!("not a function type"))?;
    let ft = cty.to_weft(&store.engine())?;
    // SAFETY: the only context in use in this function.
    let mut cx = unsafe { store.ctx() };
    Ok(Func::new(&mut cx, ft, f))
}

/// A new host function calling `callback`.
#[no_mangle]
pub extern "C" fn wasm_func_new(
    store: Option<&wasm_store_t>,
    ty: Option<&wasm_functype_t>,
    callback: wasm_func_callback_t,
) -> Option<Box<wasm_func_t>> {
    guard(
        || None,
        || {
            let store = &store?.store;
            let cb = callback?;
            let f = new_host_func(store, ty?, move |caller, params, results| {
                call_wasm_callback(caller, params, results, |a, r| {
                    // SAFETY: the host's callback, with an argument vector
                    // and a result vector of the function type's sizes, both
                    // alive across the call.
                    unsafe { cb(a, r) }
                })
            })
            .ok()?;
            Some(wasm_ref_t::entity(store, Entity::Func(f)))
        },
    )
}

/// A new host function calling `callback` with `env` (finalized with the
/// store).
#[no_mangle]
pub extern "C" fn wasm_func_new_with_env(
    store: Option<&wasm_store_t>,
    ty: Option<&wasm_functype_t>,
    callback: wasm_func_callback_with_env_t,
    env: *mut c_void,
    finalizer: Finalizer,
) -> Option<Box<wasm_func_t>> {
    guard(
        || None,
        || {
            let env = HostEnv::new(env, finalizer);
            let store = &store?.store;
            let cb = callback?;
            let f = new_host_func(store, ty?, move |caller, params, results| {
                let env = &env;
                call_wasm_callback(caller, params, results, |a, r| {
                    // SAFETY: as in `wasm_func_new`, with the host's data.
                    unsafe { cb(env.data(), a, r) }
                })
            })
            .ok()?;
            Some(wasm_ref_t::entity(store, Entity::Func(f)))
        },
    )
}

/// The function's type.
#[no_mangle]
pub extern "C" fn wasm_func_type(func: Option<&wasm_func_t>) -> Option<Box<wasm_functype_t>> {
    guard(
        || None,
        || {
            let (store, f) = func?.func()?;
            // SAFETY: the only context in use in this function.
            let ty = f.ty(&unsafe { store.ctx() });
            Some(Box::new(wasm_externtype_t {
                which: CExternType::Func(CFuncType::new(&ty)),
            }))
        },
    )
}

/// The number of parameters.
#[no_mangle]
pub extern "C" fn wasm_func_param_arity(func: Option<&wasm_func_t>) -> usize {
    guard(
        || 0,
        || {
            let Some((store, f)) = func.and_then(|f| f.func()) else {
                return 0;
            };
            // SAFETY: the only context in use in this function.
            f.ty(&unsafe { store.ctx() }).params().len()
        },
    )
}

/// The number of results.
#[no_mangle]
pub extern "C" fn wasm_func_result_arity(func: Option<&wasm_func_t>) -> usize {
    guard(
        || 0,
        || {
            let Some((store, f)) = func.and_then(|f| f.func()) else {
                return 0;
            };
            // SAFETY: the only context in use in this function.
            f.ty(&unsafe { store.ctx() }).results().len()
        },
    )
}

/// Calls the function with `args`, writing its results to `results` (which
/// must have the result arity); a trap on failure.
///
/// # Safety
///
/// `results` points to a vector of `size` writable values (their old
/// contents are overwritten, not released).
#[no_mangle]
pub unsafe extern "C" fn wasm_func_call(
    func: Option<&wasm_func_t>,
    args: Option<&wasm_val_vec_t>,
    results: *mut wasm_val_vec_t,
) -> Option<Box<wasm_trap_t>> {
    let r = crate::guard_result(|| {
        let (store, f) = func.and_then(|f| f.func()).ok_or_else(|| crate::null_error("func"))?;
        // SAFETY: the only context in use here (host functions called by
        // `call` go through their caller).
        let mut cx = unsafe { store.ctx() };
        let params = match args {
            Some(a) => a
                .as_slice()
                .iter()
                .map(|v| v.to_weft(store, &mut cx))
                .collect::<anyhow::Result<Vec<_>>>()?,
            None => Vec::new(),
        };
        let ty = f.ty(&cx);
        let mut out: Vec<Val> = ty.results().map(|_| Val::I32(0)).collect();
        // SAFETY: the caller passes null or a valid vector.
        let results = unsafe { results.as_mut() };
        let size = results.as_ref().map_or(0, |r| r.size);
        if size != out.len() {
            anyhow::bail!("expected {} results, got {}", out.len(), size);
        }
        f.call(&mut cx, &params, &mut out)?;
        if let Some(results) = results {
            for (i, v) in out.iter().enumerate() {
                let c = wasm_val_t::from_weft(v, store, &mut cx)?;
                // SAFETY: `results` has `size == out.len()` writable slots
                // (caller's contract); the old value is overwritten.
                unsafe { results.data.add(i).write(c) };
            }
        }
        Ok(())
    });
    match r {
        Ok(()) => None,
        Err(e) => Some(wasm_ref_t::trap(e)),
    }
}
