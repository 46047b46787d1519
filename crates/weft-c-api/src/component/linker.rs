//! `weft/component/linker.h`: component linkers and the instances being
//! defined in them.

use super::types::{weft_component_func_type_t, weft_component_resource_type_t};
use super::val::{from_val, to_val, weft_component_val_t};
use super::{instance_handle, weft_component_instance_t, weft_component_t};
use crate::async_::{weft_async_continuation_t, weft_call_future_t, Continuation};
use crate::config::wasm_engine_t;
use crate::error::{catch_err, weft_error_t};
use crate::guard;
use crate::host_env::Finalizer;
use crate::host_env::HostEnv;
use crate::store::{weft_context_t, CallerScope, StoreData};
use crate::weft_api::module::weft_module_t;
use crate::weft_api::str_arg;
use std::ffi::{c_char, c_void};
use std::sync::Arc;
use weft::component::types::ComponentFunc;
use weft::component::{Linker, LinkerInstance, Val};
use weft::StoreContextMut;

/// `weft_component_linker_t`.
pub struct weft_component_linker_t {
    pub(crate) linker: Linker<StoreData>,
}

/// `weft_component_linker_instance_t`: an instance of a linker being
/// defined, named by its path from the root. It has exclusive use of its
/// linker while it lives (the C API's contract).
pub struct weft_component_linker_instance_t {
    linker: *mut weft_component_linker_t,
    path: Vec<String>,
}

/// `weft_component_func_callback_t`.
pub type weft_component_func_callback_t = Option<
    unsafe extern "C" fn(
        data: *mut c_void,
        context: *mut weft_context_t,
        ty: *const weft_component_func_type_t,
        args: *mut weft_component_val_t,
        nargs: usize,
        results: *mut weft_component_val_t,
        nresults: usize,
    ) -> Option<Box<weft_error_t>>,
>;

/// `weft_component_resource_destructor_t`.
pub type weft_component_resource_destructor_t = Option<
    unsafe extern "C" fn(data: *mut c_void, context: *mut weft_context_t, rep: u32) -> Option<Box<weft_error_t>>,
>;

/// `weft_component_func_async_callback_t`.
pub type weft_component_func_async_callback_t = Option<
    unsafe extern "C" fn(
        env: *mut c_void,
        context: *mut weft_context_t,
        ty: *const weft_component_func_type_t,
        args: *mut weft_component_val_t,
        nargs: usize,
        results: *mut weft_component_val_t,
        nresults: usize,
        error_ret: *mut Option<Box<weft_error_t>>,
        continuation_ret: *mut weft_async_continuation_t,
    ),
>;

/// A new linker for components of `engine`.
#[no_mangle]
pub extern "C" fn weft_component_linker_new(engine: Option<&wasm_engine_t>) -> Option<Box<weft_component_linker_t>> {
    guard(
        || None,
        || {
            Some(Box::new(weft_component_linker_t {
                linker: Linker::new(&engine?.engine),
            }))
        },
    )
}

/// Whether later definitions may replace earlier ones (default false).
#[no_mangle]
pub extern "C" fn weft_component_linker_allow_shadowing(linker: Option<&mut weft_component_linker_t>, allow: bool) {
    guard(
        || (),
        || {
            if let Some(l) = linker {
                l.linker.allow_shadowing(allow);
            }
        },
    )
}

/// The root instance of the linker (exclusive use of the linker until it is
/// deleted).
#[no_mangle]
pub extern "C" fn weft_component_linker_root(
    linker: Option<&mut weft_component_linker_t>,
) -> Option<Box<weft_component_linker_instance_t>> {
    let l = linker?;
    Some(Box::new(weft_component_linker_instance_t {
        linker: l,
        path: Vec::new(),
    }))
}

/// Instantiates `component` in the store; traps come back as the error.
#[no_mangle]
pub extern "C" fn weft_component_linker_instantiate(
    linker: Option<&weft_component_linker_t>,
    context: Option<&weft_context_t>,
    component: Option<&weft_component_t>,
    instance_out: Option<&mut weft_component_instance_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let linker = linker.ok_or_else(|| crate::null_error("linker"))?;
        let store = context.ok_or_else(|| crate::null_error("context"))?;
        let component = component.ok_or_else(|| crate::null_error("component"))?;
        let out = instance_out.ok_or_else(|| crate::null_error("instance_out"))?;
        // SAFETY: the only context in use in this function.
        let mut cx = unsafe { store.ctx() };
        let inst = linker.linker.instantiate(&mut cx, &component.component)?;
        *out = instance_handle(&mut cx, store.id(), inst);
        Ok(())
    })
}

/// Starts an async instantiation, polled with `weft_call_future_poll`.
///
/// # Safety
///
/// Every argument outlives the future; `error_ret` is writable.
#[no_mangle]
pub unsafe extern "C" fn weft_component_linker_instantiate_async(
    linker: Option<&weft_component_linker_t>,
    context: Option<&weft_context_t>,
    component: Option<&weft_component_t>,
    instance_out: *mut weft_component_instance_t,
    error_ret: *mut Option<Box<weft_error_t>>,
) -> Option<Box<weft_call_future_t>> {
    guard(
        || None,
        || {
            let linker: *const weft_component_linker_t = linker?;
            let store: *const weft_context_t = context?;
            let component: *const weft_component_t = component?;
            let future = async move {
                let r: anyhow::Result<()> = async {
                    // SAFETY: the C API's contract: the arguments outlive
                    // the future, and nothing else uses the store meanwhile.
                    let (linker, store, component) = unsafe { (&*linker, &*store, &*component) };
                    if instance_out.is_null() {
                        return Err(crate::null_error("instance_out"));
                    }
                    // SAFETY: the only context in use while the future runs.
                    let mut cx = unsafe { store.ctx() };
                    let inst = linker.linker.instantiate_async(&mut cx, &component.component).await?;
                    let h = instance_handle(&mut cx, store.id(), inst);
                    // SAFETY: checked non-null; the host's writable out-param.
                    unsafe { instance_out.write(h) };
                    Ok(())
                }
                .await;
                crate::async_::set_error(error_ret, r);
            };
            Some(weft_call_future_t::new(future))
        },
    )
}

/// Defines every import of `component` that the linker lacks as a function
/// that traps.
#[no_mangle]
pub extern "C" fn weft_component_linker_define_unknown_imports_as_traps(
    linker: Option<&mut weft_component_linker_t>,
    component: Option<&weft_component_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let linker = linker.ok_or_else(|| crate::null_error("linker"))?;
        let component = component.ok_or_else(|| crate::null_error("component"))?;
        linker.linker.define_unknown_imports_as_traps(&component.component)
    })
}

/// Deletes the linker.
#[no_mangle]
pub extern "C" fn weft_component_linker_delete(linker: Option<Box<weft_component_linker_t>>) {
    guard(|| (), || drop(linker))
}

/// Adds every import of WASI 0.2's `wasi:cli/command` world, served by the
/// WASI 0.2 context of the calling store (`weft_context_set_wasi`; a store
/// without one gives the guest an empty context).
#[no_mangle]
pub extern "C" fn weft_component_linker_add_wasip2(
    linker: Option<&mut weft_component_linker_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let l = linker.ok_or_else(|| crate::null_error("linker"))?;
        weft_wasi::p2::add_to_linker_sync(&mut l.linker)
    })
}

/// Adds `wasi:http/types` and `wasi:http/outgoing-handler`, served by the
/// calling store's `wasi:http` context (`weft_context_set_wasi_http`) over
/// its WASI 0.2 table; WASI 0.2 itself comes from
/// `weft_component_linker_add_wasip2`.
#[no_mangle]
pub extern "C" fn weft_component_linker_add_wasi_http(
    linker: Option<&mut weft_component_linker_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let l = linker.ok_or_else(|| crate::null_error("linker"))?;
        weft_wasi_http::p2::add_only_http_to_linker_sync(&mut l.linker)
    })
}

/// Adds WASI 0.2 for guests called asynchronously
/// (`weft_component_func_call_async`, `weft_component_linker_instantiate_async`),
/// as `weft_component_linker_add_wasip2` does for synchronous calls.
#[no_mangle]
pub extern "C" fn weft_component_linker_add_wasip2_async(
    linker: Option<&mut weft_component_linker_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let l = linker.ok_or_else(|| crate::null_error("linker"))?;
        weft_wasi::p2::add_to_linker_async(&mut l.linker)
    })
}

/// Adds `wasi:http` for guests called asynchronously, as
/// `weft_component_linker_add_wasi_http` does for synchronous calls.
#[no_mangle]
pub extern "C" fn weft_component_linker_add_wasi_http_async(
    linker: Option<&mut weft_component_linker_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let l = linker.ok_or_else(|| crate::null_error("linker"))?;
        weft_wasi_http::p2::add_only_http_to_linker_async(&mut l.linker)
    })
}

/// Runs `f` on the Weft linker instance `li` names.
fn with_instance(
    li: Option<&mut weft_component_linker_instance_t>,
    f: impl FnOnce(LinkerInstance<'_, StoreData>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let li = li.ok_or_else(|| crate::null_error("linker_instance"))?;
    // SAFETY: the C API's contract: the linker outlives its linker
    // instances, which have exclusive use of it while they live.
    let linker = unsafe { &mut *li.linker };
    let mut inst = linker.linker.root();
    for p in &li.path {
        inst = inst.into_instance(p)?;
    }
    f(inst)
}

/// Defines (or opens) the instance `name` inside this one; the parent must
/// not be used until the child is deleted.
///
/// # Safety
///
/// `name` points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_component_linker_instance_add_instance(
    linker_instance: Option<&mut weft_component_linker_instance_t>,
    name: *const c_char,
    name_len: usize,
    linker_instance_out: Option<&mut std::mem::MaybeUninit<Box<weft_component_linker_instance_t>>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, name_len) }?.to_string();
        let out = linker_instance_out.ok_or_else(|| crate::null_error("linker_instance_out"))?;
        let li = linker_instance.ok_or_else(|| crate::null_error("linker_instance"))?;
        let (linker, mut path) = (li.linker, li.path.clone());
        with_instance(Some(li), |mut i| i.instance(&name).map(drop))?;
        path.push(name);
        out.write(Box::new(weft_component_linker_instance_t { linker, path }));
        Ok(())
    })
}

/// Defines `name` as a core module.
///
/// # Safety
///
/// `name` points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_component_linker_instance_add_module(
    linker_instance: Option<&mut weft_component_linker_instance_t>,
    name: *const c_char,
    name_len: usize,
    module: Option<&weft_module_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, name_len) }?;
        let module = module.ok_or_else(|| crate::null_error("module"))?;
        with_instance(linker_instance, |mut i| i.module(name, &module.module))
    })
}

/// The C values of `args`, and `n` `false` results.
fn c_call_values(args: &[Val], n: usize) -> anyhow::Result<(Vec<weft_component_val_t>, Vec<weft_component_val_t>)> {
    let a = args.iter().map(from_val).collect::<anyhow::Result<Vec<_>>>()?;
    let r = (0..n).map(|_| weft_component_val_t::default_bool()).collect();
    Ok((a, r))
}

/// Moves the C results into `results` and frees the C values.
fn take_c_results(
    mut a: Vec<weft_component_val_t>,
    mut r: Vec<weft_component_val_t>,
    results: &mut [Val],
) -> anyhow::Result<()> {
    let out = r.iter().map(to_val).collect::<anyhow::Result<Vec<_>>>();
    for v in a.iter_mut().chain(r.iter_mut()) {
        v.release();
    }
    for (slot, v) in results.iter_mut().zip(out?) {
        *slot = v;
    }
    Ok(())
}

/// The `StoreShared` of a host call's context.
fn shared_of(cx: &StoreContextMut<'_, StoreData>) -> anyhow::Result<std::rc::Rc<crate::store::StoreShared>> {
    cx.data()
        .this
        .upgrade()
        .ok_or_else(|| anyhow::anyhow!("the store is gone"))
}

/// Defines `name` as a host function calling `callback`; an error it
/// returns becomes a trap.
///
/// # Safety
///
/// `name` points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_component_linker_instance_add_func(
    linker_instance: Option<&mut weft_component_linker_instance_t>,
    name: *const c_char,
    name_len: usize,
    callback: weft_component_func_callback_t,
    data: *mut c_void,
    finalizer: Finalizer,
) -> Option<Box<weft_error_t>> {
    let env = HostEnv::new(data, finalizer);
    catch_err(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, name_len) }?;
        let cb = callback.ok_or_else(|| crate::null_error("callback"))?;
        let env = Arc::new(env);
        with_instance(linker_instance, |mut i| {
            i.func_new_with_func_type(
                name,
                move |mut cx: StoreContextMut<'_, StoreData>, ty: &ComponentFunc, args: &[Val], results: &mut [Val]| {
                    let shared = shared_of(&cx)?;
                    let (mut a, mut r) = c_call_values(args, results.len())?;
                    let cty = weft_component_func_type_t { ty: ty.clone() };
                    let scope = CallerScope::enter_context(&shared, &mut cx);
                    // SAFETY: the host's callback with its data, a context
                    // valid for the call (through the scope), the type, and
                    // argument and result arrays of the type's sizes.
                    let err = unsafe {
                        cb(
                            env.data(),
                            std::rc::Rc::as_ptr(&shared).cast_mut(),
                            &cty,
                            a.as_mut_ptr(),
                            a.len(),
                            r.as_mut_ptr(),
                            r.len(),
                        )
                    };
                    drop(scope);
                    if let Some(e) = err {
                        for v in a.iter_mut().chain(r.iter_mut()) {
                            v.release();
                        }
                        return Err(e.error);
                    }
                    take_c_results(a, r, results)
                },
            )
        })
    })
}

/// The C values of an async host call, kept alive until its continuation
/// is done.
struct AsyncCallValues {
    args: Vec<weft_component_val_t>,
    results: Vec<weft_component_val_t>,
    /// The type given to the callback (which may keep it until done).
    ty: Box<weft_component_func_type_t>,
}

// SAFETY: the C API's contract: an async host call's values are used only
// from the thread that polls the store's future.
unsafe impl Send for AsyncCallValues {}

/// Defines `name` as an async host function: `callback` starts the call and
/// gives a continuation, polled until done (the guest's call meanwhile
/// yields to the host's poll loop).
///
/// # Safety
///
/// `name` points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_component_linker_instance_add_func_async(
    linker_instance: Option<&mut weft_component_linker_instance_t>,
    name: *const c_char,
    name_len: usize,
    callback: weft_component_func_async_callback_t,
    data: *mut c_void,
    finalizer: Finalizer,
) -> Option<Box<weft_error_t>> {
    let env = HostEnv::new(data, finalizer);
    catch_err(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, name_len) }?;
        let cb = callback.ok_or_else(|| crate::null_error("callback"))?;
        let env = Arc::new(env);
        with_instance(linker_instance, |mut i| {
            i.func_new_async(name, move |mut cx, ty, args, results| {
                let started = (|| {
                    let shared = shared_of(&cx)?;
                    let (a, r) = c_call_values(args, results.len())?;
                    let mut vals = AsyncCallValues {
                        args: a,
                        results: r,
                        ty: Box::new(weft_component_func_type_t { ty }),
                    };
                    let mut err: Option<Box<weft_error_t>> = None;
                    let mut cont = weft_async_continuation_t::empty();
                    let scope = CallerScope::enter_context(&shared, &mut cx);
                    // SAFETY: the host's callback with its data, a context
                    // valid for the call, the type, argument and result
                    // arrays of the type's sizes (kept alive until the
                    // continuation is done) and two out-params.
                    unsafe {
                        cb(
                            env.data(),
                            std::rc::Rc::as_ptr(&shared).cast_mut(),
                            &*vals.ty,
                            vals.args.as_mut_ptr(),
                            vals.args.len(),
                            vals.results.as_mut_ptr(),
                            vals.results.len(),
                            &mut err,
                            &mut cont,
                        )
                    };
                    drop(scope);
                    if let Some(e) = err {
                        drop(Continuation(cont));
                        for v in vals.args.iter_mut().chain(vals.results.iter_mut()) {
                            v.release();
                        }
                        return Err(e.error);
                    }
                    Ok((vals, Continuation(cont)))
                })();
                Box::new(async move {
                    let (vals, cont) = started?;
                    cont.await;
                    take_c_results(vals.args, vals.results, results)
                })
            })
        })
    })
}

/// Defines `name` as a host resource type; `destructor` (may be null) runs
/// when the guest drops an `own` handle.
///
/// # Safety
///
/// `name` points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_component_linker_instance_add_resource(
    linker_instance: Option<&mut weft_component_linker_instance_t>,
    name: *const c_char,
    name_len: usize,
    resource: Option<&weft_component_resource_type_t>,
    destructor: weft_component_resource_destructor_t,
    data: *mut c_void,
    finalizer: Finalizer,
) -> Option<Box<weft_error_t>> {
    let env = HostEnv::new(data, finalizer);
    catch_err(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, name_len) }?;
        let ty = resource.ok_or_else(|| crate::null_error("resource"))?.ty;
        with_instance(linker_instance, |mut i| {
            i.resource(name, ty, move |mut cx, rep| {
                let Some(dtor) = destructor else { return Ok(()) };
                let shared = shared_of(&cx)?;
                let scope = CallerScope::enter_context(&shared, &mut cx);
                // SAFETY: the host's destructor with its data, a context
                // valid for the call, and the representation.
                let err = unsafe { dtor(env.data(), std::rc::Rc::as_ptr(&shared).cast_mut(), rep) };
                drop(scope);
                match err {
                    Some(e) => Err(e.error),
                    None => Ok(()),
                }
            })
        })
    })
}

/// Deletes the linker instance (giving its parent back).
#[no_mangle]
pub extern "C" fn weft_component_linker_instance_delete(li: Option<Box<weft_component_linker_instance_t>>) {
    guard(|| (), || drop(li))
}
