//! `weft/instance.h`.

use super::func::split_error;
// Import loop kept on purpose: a `weft_instance_pre_t` keeps the linker that
// resolved its imports, and the linker's functions make instances.
use super::linker::weft_linker_t;
use super::module::weft_module_t;
use super::val::{extern_of, extern_to_weft, weft_extern_t, weft_instance_t};
use super::{entity_at, handle_of};
use crate::error::weft_error_t;
use crate::guard;
use crate::r#ref::{wasm_trap_t, Entity};
use crate::store::{StoreData, StoreShared};
use std::ffi::c_char;
use std::mem::MaybeUninit;
use weft::StoreContextMut;

/// The C handle of an instance.
pub(crate) fn instance_handle(
    store: &StoreShared,
    cx: &mut StoreContextMut<'_, StoreData>,
    i: weft::Instance,
) -> weft_instance_t {
    weft_instance_t {
        store_id: store.id(),
        private: handle_of(cx, Entity::Instance(i)),
    }
}

fn instance_of(
    store: &StoreShared,
    cx: &StoreContextMut<'_, StoreData>,
    i: &weft_instance_t,
) -> anyhow::Result<weft::Instance> {
    match entity_at(store, cx, i.store_id, i.private)? {
        Entity::Instance(i) => Ok(i),
        _ => anyhow::bail!("handle is not an instance"),
    }
}

/// Writes the outcome of an instantiation: the instance, a trap (the start
/// function trapped) or an error (anything else).
pub(crate) fn finish_instantiate(
    store: &StoreShared,
    r: anyhow::Result<anyhow::Result<weft::Instance>>,
    instance: Option<&mut MaybeUninit<weft_instance_t>>,
    trap: Option<&mut MaybeUninit<Option<Box<wasm_trap_t>>>>,
) -> Option<Box<weft_error_t>> {
    let mut trap = trap;
    if let Some(t) = trap.as_deref_mut() {
        t.write(None);
    }
    match r {
        Ok(Ok(i)) => {
            // SAFETY: the only context in use in this block.
            let mut cx = unsafe { store.ctx() };
            let h = instance_handle(store, &mut cx, i);
            if let Some(out) = instance {
                out.write(h);
            }
            None
        }
        Ok(Err(e)) => split_error(e, trap),
        Err(e) => Some(Box::new(weft_error_t { error: e })),
    }
}

/// Instantiates `module` with `imports` (in the module's import order).
///
/// # Safety
///
/// `imports` points to `nimports` externs (or is null with `nimports` 0).
#[no_mangle]
pub unsafe extern "C" fn weft_instance_new(
    store: Option<&StoreShared>,
    module: Option<&weft_module_t>,
    imports: *const weft_extern_t,
    nimports: usize,
    instance: Option<&mut MaybeUninit<weft_instance_t>>,
    trap: Option<&mut MaybeUninit<Option<Box<wasm_trap_t>>>>,
) -> Option<Box<weft_error_t>> {
    let Some(s) = store else {
        return Some(Box::new(weft_error_t {
            error: crate::null_error("store"),
        }));
    };
    let r = crate::guard_result(|| {
        let module = module.ok_or_else(|| crate::null_error("module"))?;
        let imports = if nimports == 0 {
            &[][..]
        } else {
            if imports.is_null() {
                return Err(crate::null_error("imports"));
            }
            // SAFETY: the caller gives `nimports` externs.
            unsafe { std::slice::from_raw_parts(imports, nimports) }
        };
        // SAFETY: the only context in use here (a start function's host
        // calls go through their caller).
        let mut cx = unsafe { s.ctx() };
        let externs = imports
            .iter()
            .map(|e| extern_to_weft(s, &cx, e))
            .collect::<anyhow::Result<Vec<_>>>()?;
        if externs.len() != module.module.imports().len() {
            anyhow::bail!(
                "expected {} imports, found {}",
                module.module.imports().len(),
                externs.len()
            );
        }
        let r = weft::Instance::new(&mut cx, &module.module, &externs);
        Ok(r)
    });
    finish_instantiate(s, r, instance, trap)
}

/// The export `name` of the instance in `item`; false if there is none.
///
/// # Safety
///
/// `name` points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_instance_export_get(
    store: Option<&StoreShared>,
    instance: Option<&weft_instance_t>,
    name: *const c_char,
    name_len: usize,
    item: Option<&mut MaybeUninit<weft_extern_t>>,
) -> bool {
    guard(
        || false,
        || {
            let (Some(store), Some(instance), Some(item)) = (store, instance, item) else {
                return false;
            };
            // SAFETY: the caller gives `name_len` readable bytes.
            let Ok(name) = (unsafe { super::str_arg(name, name_len) }) else {
                return false;
            };
            // SAFETY: the only context in use in this function.
            let mut cx = unsafe { store.ctx() };
            let Ok(i) = instance_of(store, &cx, instance) else {
                return false;
            };
            let Some(e) = i.get_export(&mut cx, name) else {
                return false;
            };
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

/// The export at `index`: its name (owned by the store) and item.
#[no_mangle]
pub extern "C" fn weft_instance_export_nth(
    store: Option<&StoreShared>,
    instance: Option<&weft_instance_t>,
    index: usize,
    name: Option<&mut *const c_char>,
    name_len: Option<&mut usize>,
    item: Option<&mut MaybeUninit<weft_extern_t>>,
) -> bool {
    guard(
        || false,
        || {
            let (Some(store), Some(instance)) = (store, instance) else {
                return false;
            };
            // SAFETY: the only context in use in this function.
            let mut cx = unsafe { store.ctx() };
            let Ok(i) = instance_of(store, &cx, instance) else {
                return false;
            };
            // The names live in the instance's module, which the store keeps
            // for its whole life.
            let found = i
                .exports(&mut cx)
                .nth(index)
                .map(|e| (e.name().as_ptr(), e.name().len(), e.into_extern()));
            let Some((ptr, len, e)) = found else { return false };
            let Ok(x) = extern_of(store, &mut cx, e) else {
                return false;
            };
            if let Some(n) = name {
                *n = ptr.cast::<c_char>();
            }
            if let Some(l) = name_len {
                *l = len;
            }
            if let Some(out) = item {
                out.write(x);
            }
            true
        },
    )
}

/// `weft_instance_pre_t`: a module with its imports resolved by a linker,
/// ready to instantiate in any store of the engine.
pub struct weft_instance_pre_t {
    pub(crate) linker: weft_linker_t,
    pub(crate) module: weft::Module,
}

/// Deletes an instance-pre.
#[no_mangle]
pub extern "C" fn weft_instance_pre_delete(p: Option<Box<weft_instance_pre_t>>) {
    guard(|| (), || drop(p))
}

/// Instantiates the pre-linked module in `store`.
#[no_mangle]
pub extern "C" fn weft_instance_pre_instantiate(
    instance_pre: Option<&weft_instance_pre_t>,
    store: Option<&StoreShared>,
    instance: Option<&mut MaybeUninit<weft_instance_t>>,
    trap: Option<&mut MaybeUninit<Option<Box<wasm_trap_t>>>>,
) -> Option<Box<weft_error_t>> {
    let Some(s) = store else {
        return Some(Box::new(weft_error_t {
            error: crate::null_error("store"),
        }));
    };
    let r = crate::guard_result(|| {
        let p = instance_pre.ok_or_else(|| crate::null_error("instance_pre"))?;
        // SAFETY: the only context in use here.
        let mut cx = unsafe { s.ctx() };
        Ok(p.linker.linker.instantiate(&mut cx, &p.module))
    });
    finish_instantiate(s, r, instance, trap)
}

/// The module of the instance-pre (a new reference).
#[no_mangle]
pub extern "C" fn weft_instance_pre_module(instance_pre: Option<&weft_instance_pre_t>) -> Option<Box<weft_module_t>> {
    guard(
        || None,
        || {
            Some(Box::new(weft_module_t {
                module: instance_pre?.module.clone(),
            }))
        },
    )
}
