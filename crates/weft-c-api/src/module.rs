//! Modules of `wasm.h`: compilation, validation, imports and exports,
//! serialization and shared modules.

use crate::guard;
use crate::r#ref::{wasm_module_t, wasm_ref_t, ModuleShared, RefKind};
use crate::store::wasm_store_t;
use crate::types::{module_exports, module_imports, wasm_exporttype_vec_t, wasm_importtype_vec_t};
use crate::vec::{wasm_byte_vec_t, write_out, CVec};
use std::cell::RefCell;
use std::mem::MaybeUninit;
use std::rc::Rc;

/// `wasm_shared_module_t`: a module that may move to another thread.
pub struct wasm_shared_module_t {
    module: weft::Module,
}

/// A `wasm_module_t` for `module`.
pub(crate) fn module_ref(module: weft::Module) -> Box<wasm_module_t> {
    Box::new(wasm_ref_t {
        r: RefKind::Module(Rc::new(ModuleShared {
            module,
            host_info: RefCell::new(None),
        })),
    })
}

/// Compiles `binary` with the store's engine (null if invalid).
#[no_mangle]
pub extern "C" fn wasm_module_new(
    store: Option<&wasm_store_t>,
    binary: Option<&wasm_byte_vec_t>,
) -> Option<Box<wasm_module_t>> {
    guard(
        || None,
        || {
            let engine = store?.store.engine();
            let m = weft::Module::from_binary(&engine, binary?.as_slice()).ok()?;
            Some(module_ref(m))
        },
    )
}

/// Whether `binary` is a valid module for the store's engine.
#[no_mangle]
pub extern "C" fn wasm_module_validate(store: Option<&wasm_store_t>, binary: Option<&wasm_byte_vec_t>) -> bool {
    guard(
        || false,
        || {
            let (Some(store), Some(binary)) = (store, binary) else {
                return false;
            };
            weft::Module::validate(&store.store.engine(), binary.as_slice()).is_ok()
        },
    )
}

/// The module's imports.
#[no_mangle]
pub extern "C" fn wasm_module_imports(m: Option<&wasm_module_t>, out: Option<&mut MaybeUninit<wasm_importtype_vec_t>>) {
    guard(
        || (),
        || {
            let v = m.and_then(|m| m.module()).map(|m| module_imports(&m.module));
            write_out(out, v.unwrap_or_default());
        },
    )
}

/// The module's exports.
#[no_mangle]
pub extern "C" fn wasm_module_exports(m: Option<&wasm_module_t>, out: Option<&mut MaybeUninit<wasm_exporttype_vec_t>>) {
    guard(
        || (),
        || {
            let v = m.and_then(|m| m.module()).map(|m| module_exports(&m.module));
            write_out(out, v.unwrap_or_default());
        },
    )
}

/// The module's precompiled form (empty on failure).
#[no_mangle]
pub extern "C" fn wasm_module_serialize(m: Option<&wasm_module_t>, out: Option<&mut MaybeUninit<wasm_byte_vec_t>>) {
    guard(
        || (),
        || {
            let bytes = m
                .and_then(|m| m.module())
                .and_then(|m| m.module.serialize().ok())
                .unwrap_or_default();
            write_out(out, CVec::from_vec(bytes));
        },
    )
}

/// A module from the output of `wasm_module_serialize` (null if refused).
///
/// # Safety
///
/// The bytes come from `wasm_module_serialize` (or `weft_module_serialize`)
/// of a trusted source: they are mapped as machine code.
#[no_mangle]
pub unsafe extern "C" fn wasm_module_deserialize(
    store: Option<&wasm_store_t>,
    bytes: Option<&wasm_byte_vec_t>,
) -> Option<Box<wasm_module_t>> {
    guard(
        || None,
        || {
            let engine = store?.store.engine();
            // SAFETY: the caller vouches that the bytes are Weft's trusted
            // output (this function's contract, as `Module::deserialize`'s).
            let m = unsafe { weft::Module::deserialize(&engine, bytes?.as_slice()) }.ok()?;
            Some(module_ref(m))
        },
    )
}

/// A shareable handle to the module.
#[no_mangle]
pub extern "C" fn wasm_module_share(m: Option<&wasm_module_t>) -> Option<Box<wasm_shared_module_t>> {
    guard(
        || None,
        || {
            Some(Box::new(wasm_shared_module_t {
                module: m?.module()?.module.clone(),
            }))
        },
    )
}

/// The shared module as a module of `store` (null if of another engine).
#[no_mangle]
pub extern "C" fn wasm_module_obtain(
    store: Option<&wasm_store_t>,
    shared: Option<&wasm_shared_module_t>,
) -> Option<Box<wasm_module_t>> {
    guard(
        || None,
        || {
            let engine = store?.store.engine();
            let m = &shared?.module;
            if !weft::Engine::same(&engine, m.engine()) {
                return None;
            }
            Some(module_ref(m.clone()))
        },
    )
}

/// Deletes a shared module.
#[no_mangle]
pub extern "C" fn wasm_shared_module_delete(m: Option<Box<wasm_shared_module_t>>) {
    guard(|| (), || drop(m))
}
