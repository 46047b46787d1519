//! The component model: `weft/component/*.h` (components, export indices,
//! instances, functions, linkers, values, resources and types), over
//! `weft::component`.
//!
//! A component instance or function given to C is a plain value: the id of
//! its store and an index into the store's table of them
//! ([`crate::store::StoreData::component_instances`],
//! [`crate::store::StoreData::component_funcs`]); each use checks both.

pub mod linker;
pub mod types;
pub mod val;

use crate::async_::weft_call_future_t;
use crate::config::wasm_engine_t;
use crate::error::{catch_err, weft_error_t};
use crate::guard;
use crate::store::{weft_context_t, StoreData};
use crate::vec::{wasm_byte_vec_t, CVec};
use crate::weft_api::str_arg;
use std::ffi::{c_char, CStr};
use std::mem::MaybeUninit;
use types::{weft_component_func_type_t, weft_component_type_t};
use val::{from_val, to_val, weft_component_val_t};
use weft::component::types::ComponentItem;
use weft::component::{Component, ComponentExportIndex, Func, Instance, Val};
use weft::StoreContextMut;

/// `weft_component_t`: a compiled component.
pub struct weft_component_t {
    pub(crate) component: Component,
}

/// `weft_component_export_index_t`: an export, named by the path of export
/// names that leads to it from the root of a component (or instance).
#[derive(Clone)]
pub struct weft_component_export_index_t {
    pub(crate) path: Vec<String>,
}

/// `weft_component_instance_t`: an instance of a component in a store.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct weft_component_instance_t {
    /// The store's id.
    pub store_id: u64,
    /// The index of the instance in the store's table.
    pub private: u32,
}

/// The first part of `weft_component_func_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct weft_component_func_head {
    /// The store's id.
    pub store_id: u64,
    /// The index of the function in the store's table.
    pub private1: u32,
}

/// `weft_component_func_t`: a function of a component instance.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct weft_component_func_t {
    /// The store's id and the function's index.
    pub head: weft_component_func_head,
    /// Unused (0).
    pub private2: u32,
}

/// The compiled component of `bytes` (binary or text).
fn compile(engine: &wasm_engine_t, bytes: &[u8]) -> anyhow::Result<Box<weft_component_t>> {
    let component = Component::new(&engine.engine, bytes)?;
    Ok(Box::new(weft_component_t { component }))
}

/// # Safety
///
/// `buf` points to `len` readable bytes (or is null with `len` 0).
unsafe fn bytes_arg<'a>(buf: *const u8, len: usize) -> anyhow::Result<&'a [u8]> {
    if buf.is_null() {
        if len == 0 {
            return Ok(&[]);
        }
        return Err(crate::null_error("buf"));
    }
    // SAFETY: the caller gives `len` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(buf, len) })
}

/// Compiles a component.
///
/// # Safety
///
/// `buf` points to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_component_new(
    engine: Option<&wasm_engine_t>,
    buf: *const u8,
    len: usize,
    component_out: Option<&mut MaybeUninit<Box<weft_component_t>>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let engine = engine.ok_or_else(|| crate::null_error("engine"))?;
        let out = component_out.ok_or_else(|| crate::null_error("component_out"))?;
        // SAFETY: the caller's contract.
        let bytes = unsafe { bytes_arg(buf, len) }?;
        out.write(compile(engine, bytes)?);
        Ok(())
    })
}

/// The component in the form `weft_component_deserialize` reads
/// (`Component::serialize`: its compiled code and translation).
#[no_mangle]
pub extern "C" fn weft_component_serialize(
    component: Option<&weft_component_t>,
    ret: Option<&mut MaybeUninit<wasm_byte_vec_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let c = component.ok_or_else(|| crate::null_error("component"))?;
        let ret = ret.ok_or_else(|| crate::null_error("ret"))?;
        ret.write(CVec::from_vec(c.component.serialize()?));
        Ok(())
    })
}

/// # Safety
///
/// `bytes` were written by `weft_component_serialize` (or
/// `Component::serialize`) and not changed since: their code is mapped and
/// run as written (the contract of `Component::deserialize`, which the C
/// caller takes on, as with Wasmtime's `wasmtime_component_deserialize`).
unsafe fn deserialize(engine: &wasm_engine_t, bytes: &[u8]) -> anyhow::Result<Box<weft_component_t>> {
    // SAFETY: the caller's contract, passed on.
    let component = unsafe { Component::deserialize(&engine.engine, bytes) }?;
    Ok(Box::new(weft_component_t { component }))
}

/// Reads a component written by `weft_component_serialize`, without
/// compiling it.
///
/// # Safety
///
/// `buf` points to `len` readable bytes, written by
/// `weft_component_serialize` and not changed since (their code is run as
/// written).
#[no_mangle]
pub unsafe extern "C" fn weft_component_deserialize(
    engine: Option<&wasm_engine_t>,
    buf: *const u8,
    len: usize,
    component_out: Option<&mut MaybeUninit<Box<weft_component_t>>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let engine = engine.ok_or_else(|| crate::null_error("engine"))?;
        let out = component_out.ok_or_else(|| crate::null_error("component_out"))?;
        // SAFETY: the caller's contract.
        let bytes = unsafe { bytes_arg(buf, len) }?;
        // SAFETY: the caller's contract: the bytes are Weft's output.
        out.write(unsafe { deserialize(engine, bytes) }?);
        Ok(())
    })
}

/// Reads a component written by `weft_component_serialize` from a file,
/// without compiling it.
///
/// # Safety
///
/// `path` is a NUL-terminated string naming a file written by
/// `weft_component_serialize` and not changed since (its code is run as
/// written).
#[no_mangle]
pub unsafe extern "C" fn weft_component_deserialize_file(
    engine: Option<&wasm_engine_t>,
    path: *const c_char,
    component_out: Option<&mut MaybeUninit<Box<weft_component_t>>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let engine = engine.ok_or_else(|| crate::null_error("engine"))?;
        let out = component_out.ok_or_else(|| crate::null_error("component_out"))?;
        if path.is_null() {
            return Err(crate::null_error("path"));
        }
        // SAFETY: the caller passes a NUL-terminated string.
        let path = unsafe { CStr::from_ptr(path) }
            .to_str()
            .map_err(|_| anyhow::anyhow!("input was not valid utf-8"))?;
        // SAFETY: the caller's contract: the file is Weft's output.
        let component = unsafe { Component::deserialize_file(&engine.engine, path) }?;
        out.write(Box::new(weft_component_t { component }));
        Ok(())
    })
}

/// A new reference to the component.
#[no_mangle]
pub extern "C" fn weft_component_clone(component: Option<&weft_component_t>) -> Option<Box<weft_component_t>> {
    let c = component?;
    Some(Box::new(weft_component_t {
        component: c.component.clone(),
    }))
}

/// The component's type.
#[no_mangle]
pub extern "C" fn weft_component_type(component: Option<&weft_component_t>) -> Option<Box<weft_component_type_t>> {
    guard(
        || None,
        || {
            Some(Box::new(weft_component_type_t {
                ty: component?.component.component_type(),
            }))
        },
    )
}

/// Deletes the component.
#[no_mangle]
pub extern "C" fn weft_component_delete(component: Option<Box<weft_component_t>>) {
    guard(|| (), || drop(component))
}

/// The export `name` of the component (inside the exported instance
/// `instance_export_index`, if not null), or null if there is none.
///
/// # Safety
///
/// `name` points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_component_get_export_index(
    component: Option<&weft_component_t>,
    instance_export_index: Option<&weft_component_export_index_t>,
    name: *const c_char,
    name_len: usize,
) -> Option<Box<weft_component_export_index_t>> {
    guard(
        || None,
        || {
            let c = component?;
            // SAFETY: the caller's contract.
            let name = unsafe { str_arg(name, name_len) }.ok()?;
            let engine = c.component.engine();
            let ty = c.component.component_type();
            let mut path: Vec<String> = instance_export_index.map(|i| i.path.clone()).unwrap_or_default();
            let mut item: Option<ComponentItem> = None;
            for p in path.iter().map(String::as_str).chain([name]) {
                item = Some(match item {
                    None => ty.get_export(engine, p)?,
                    Some(ComponentItem::ComponentInstance(i)) => i.get_export(p)?,
                    Some(_) => return None,
                });
            }
            path.push(name.to_string());
            Some(Box::new(weft_component_export_index_t { path }))
        },
    )
}

/// A copy of the export index.
#[no_mangle]
pub extern "C" fn weft_component_export_index_clone(
    index: Option<&weft_component_export_index_t>,
) -> Option<Box<weft_component_export_index_t>> {
    Some(Box::new(index?.clone()))
}

/// Deletes the export index.
#[no_mangle]
pub extern "C" fn weft_component_export_index_delete(index: Option<Box<weft_component_export_index_t>>) {
    guard(|| (), || drop(index))
}

/// The instance `instance` of the store of `cx`.
pub(crate) fn instance_of(
    cx: &StoreContextMut<'_, StoreData>,
    store_id: u64,
    instance: &weft_component_instance_t,
) -> anyhow::Result<Instance> {
    if instance.store_id != store_id {
        anyhow::bail!("component instance used with the wrong store");
    }
    cx.data()
        .component_instances
        .get(instance.private as usize)
        .copied()
        .ok_or_else(|| anyhow::anyhow!("invalid component instance handle"))
}

/// The C handle of `instance` (added to the store's table).
pub(crate) fn instance_handle(
    cx: &mut StoreContextMut<'_, StoreData>,
    store_id: u64,
    instance: Instance,
) -> weft_component_instance_t {
    let list = &mut cx.data_mut().component_instances;
    let i = match list.iter().position(|x| *x == instance) {
        Some(i) => i,
        None => {
            list.push(instance);
            list.len() - 1
        }
    };
    weft_component_instance_t {
        store_id,
        private: i as u32,
    }
}

/// The function `func` of the store of `cx`.
pub(crate) fn func_of(
    cx: &StoreContextMut<'_, StoreData>,
    store_id: u64,
    func: &weft_component_func_t,
) -> anyhow::Result<Func> {
    if func.head.store_id != store_id {
        anyhow::bail!("component function used with the wrong store");
    }
    cx.data()
        .component_funcs
        .get(func.head.private1 as usize)
        .copied()
        .ok_or_else(|| anyhow::anyhow!("invalid component function handle"))
}

/// The Weft export index of `path` in `instance`.
fn resolve(
    cx: &mut StoreContextMut<'_, StoreData>,
    instance: Instance,
    path: &[String],
) -> Option<ComponentExportIndex> {
    let mut idx: Option<ComponentExportIndex> = None;
    for name in path {
        idx = Some(instance.get_export_index(&mut *cx, idx.as_ref(), name)?);
    }
    idx
}

/// The export `name` of the instance (inside `instance_export_index`, if
/// not null), or null.
///
/// # Safety
///
/// `name` points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_component_instance_get_export_index(
    instance: Option<&weft_component_instance_t>,
    context: Option<&weft_context_t>,
    instance_export_index: Option<&weft_component_export_index_t>,
    name: *const c_char,
    name_len: usize,
) -> Option<Box<weft_component_export_index_t>> {
    guard(
        || None,
        || {
            let (instance, store) = (instance?, context?);
            // SAFETY: the caller's contract.
            let name = unsafe { str_arg(name, name_len) }.ok()?;
            // SAFETY: the only context in use in this function.
            let mut cx = unsafe { store.ctx() };
            let inst = instance_of(&cx, store.id(), instance).ok()?;
            let mut path: Vec<String> = instance_export_index.map(|i| i.path.clone()).unwrap_or_default();
            path.push(name.to_string());
            resolve(&mut cx, inst, &path)?;
            Some(Box::new(weft_component_export_index_t { path }))
        },
    )
}

/// The function at `export_index` of the instance, in `*func_out`; false if
/// that export is not a function.
#[no_mangle]
pub extern "C" fn weft_component_instance_get_func(
    instance: Option<&weft_component_instance_t>,
    context: Option<&weft_context_t>,
    export_index: Option<&weft_component_export_index_t>,
    func_out: Option<&mut MaybeUninit<weft_component_func_t>>,
) -> bool {
    guard(
        || false,
        || {
            let (Some(instance), Some(store), Some(index), Some(out)) = (instance, context, export_index, func_out)
            else {
                return false;
            };
            // SAFETY: the only context in use in this function.
            let mut cx = unsafe { store.ctx() };
            let Ok(inst) = instance_of(&cx, store.id(), instance) else {
                return false;
            };
            let Some(idx) = resolve(&mut cx, inst, &index.path) else {
                return false;
            };
            let Some(func) = inst.get_func(&mut cx, &idx) else {
                return false;
            };
            let list = &mut cx.data_mut().component_funcs;
            let i = match list.iter().position(|f| *f == func) {
                Some(i) => i,
                None => {
                    list.push(func);
                    list.len() - 1
                }
            };
            out.write(weft_component_func_t {
                head: weft_component_func_head {
                    store_id: store.id(),
                    private1: i as u32,
                },
                private2: 0,
            });
            true
        },
    )
}

/// The function's type (null for a function of another store).
#[no_mangle]
pub extern "C" fn weft_component_func_type(
    func: Option<&weft_component_func_t>,
    context: Option<&weft_context_t>,
) -> Option<Box<weft_component_func_type_t>> {
    guard(
        || None,
        || {
            let (func, store) = (func?, context?);
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            let f = func_of(&cx, store.id(), func).ok()?;
            Some(Box::new(weft_component_func_type_t { ty: f.ty(&cx)? }))
        },
    )
}

/// The arguments of a call, converted.
///
/// # Safety
///
/// `args` points to `n` valid values (or is null with `n` 0).
pub(crate) unsafe fn args_of(args: *const weft_component_val_t, n: usize) -> anyhow::Result<Vec<Val>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if args.is_null() {
        return Err(crate::null_error("args"));
    }
    // SAFETY: the caller gives `n` valid values.
    let args = unsafe { std::slice::from_raw_parts(args, n) };
    args.iter().map(to_val).collect()
}

/// Writes `vals` over the C results (dropping what they held).
///
/// # Safety
///
/// `results` points to `vals.len()` valid values.
pub(crate) unsafe fn write_results(results: *mut weft_component_val_t, vals: &[Val]) -> anyhow::Result<()> {
    let converted = vals.iter().map(from_val).collect::<anyhow::Result<Vec<_>>>()?;
    if converted.is_empty() {
        return Ok(());
    }
    // SAFETY: the caller gives `vals.len()` valid, writable values.
    let out = unsafe { std::slice::from_raw_parts_mut(results, vals.len()) };
    for (slot, v) in out.iter_mut().zip(converted) {
        slot.release();
        *slot = v;
    }
    Ok(())
}

/// Checks the result array of a call.
fn check_results(results: *mut weft_component_val_t, n: usize, expected: usize) -> anyhow::Result<()> {
    if n != expected {
        anyhow::bail!("expected {expected} results, got {n}");
    }
    if n != 0 && results.is_null() {
        return Err(crate::null_error("results"));
    }
    Ok(())
}

/// Calls the function; a trap comes back as the error.
///
/// # Safety
///
/// `args` points to `args_size` valid values and `results` to
/// `results_size` valid, writable values.
#[no_mangle]
pub unsafe extern "C" fn weft_component_func_call(
    func: Option<&weft_component_func_t>,
    context: Option<&weft_context_t>,
    args: *const weft_component_val_t,
    args_size: usize,
    results: *mut weft_component_val_t,
    results_size: usize,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let func = func.ok_or_else(|| crate::null_error("func"))?;
        let store = context.ok_or_else(|| crate::null_error("context"))?;
        // SAFETY: the caller's contract.
        let params = unsafe { args_of(args, args_size) }?;
        // SAFETY: the only context in use in this function.
        let mut cx = unsafe { store.ctx() };
        let f = func_of(&cx, store.id(), func)?;
        check_results(results, results_size, f.results(&cx).len())?;
        let mut out = vec![Val::Bool(false); results_size];
        f.call(&mut cx, &params, &mut out)?;
        // SAFETY: the caller's contract (checked count).
        unsafe { write_results(results, &out) }
    })
}

/// Does nothing (calls run `post-return` themselves); returns null.
#[no_mangle]
pub extern "C" fn weft_component_func_post_return(
    _func: Option<&weft_component_func_t>,
    _context: Option<&weft_context_t>,
) -> Option<Box<weft_error_t>> {
    None
}

/// Starts an async call of the function, to be polled with
/// `weft_call_future_poll`; on failure `*error_ret` is set when the future
/// completes.
///
/// # Safety
///
/// As `weft_component_func_call`, and every argument outlives the future.
#[no_mangle]
pub unsafe extern "C" fn weft_component_func_call_async(
    func: Option<&weft_component_func_t>,
    context: Option<&weft_context_t>,
    args: *const weft_component_val_t,
    args_size: usize,
    results: *mut weft_component_val_t,
    results_size: usize,
    error_ret: *mut Option<Box<weft_error_t>>,
) -> Option<Box<weft_call_future_t>> {
    guard(
        || None,
        || {
            let func = *func?;
            let store: *const weft_context_t = context?;
            let future = async move {
                let r: anyhow::Result<()> = async {
                    // SAFETY: the C API's contract: the context outlives
                    // the future, and nothing else uses the store while it
                    // lives.
                    let store = unsafe { &*store };
                    // SAFETY: as above.
                    let params = unsafe { args_of(args, args_size) }?;
                    // SAFETY: the only context in use while the future runs.
                    let mut cx = unsafe { store.ctx() };
                    let f = func_of(&cx, store.id(), &func)?;
                    check_results(results, results_size, f.results(&cx).len())?;
                    let mut out = vec![Val::Bool(false); results_size];
                    f.call_async(&mut cx, &params, &mut out).await?;
                    // SAFETY: the caller's contract (checked count).
                    unsafe { write_results(results, &out) }
                }
                .await;
                crate::async_::set_error(error_ret, r);
            };
            Some(weft_call_future_t::new(future))
        },
    )
}
