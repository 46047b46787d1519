//! `weft/linker.h`.

use super::func::{checked_closure, functype, unchecked_closure, weft_func_callback_t, weft_func_unchecked_callback_t};
use super::instance::{finish_instantiate, weft_instance_pre_t};
use super::module::weft_module_t;
use super::str_arg;
use super::val::{extern_of, extern_to_weft, func_handle, weft_extern_t, weft_func_t, weft_instance_t};
use crate::config::wasm_engine_t;
use crate::error::{catch_err, weft_error_t};
use crate::guard;
use crate::host_env::Finalizer;
use crate::host_env::HostEnv;
use crate::r#ref::wasm_trap_t;
use crate::store::{StoreData, StoreShared};
use crate::types::wasm_functype_t;
use std::collections::HashSet;
use std::ffi::{c_char, c_void};
use std::mem::MaybeUninit;
use weft::{ExternType, Linker};

/// `weft_linker_t`: definitions by name, to instantiate modules with.
#[derive(Clone)]
pub struct weft_linker_t {
    pub(crate) linker: Linker<StoreData>,
    /// The names defined, to find a module's unknown imports.
    defined: HashSet<(String, String)>,
    /// Whether `weft_linker_define_wasi` defined WASI preview1.
    wasi: bool,
}

impl weft_linker_t {
    pub(crate) fn note(&mut self, module: &str, name: &str) {
        self.defined.insert((module.to_string(), name.to_string()));
    }

    /// Fails, naming the first, if an import of `module` is not defined.
    pub(crate) fn check_imports(&self, module: &weft::Module) -> anyhow::Result<()> {
        for import in module.imports() {
            if !self.is_defined(import.module(), import.name()) {
                anyhow::bail!(
                    "unknown import: `{}::{}` has not been defined",
                    import.module(),
                    import.name()
                );
            }
        }
        Ok(())
    }

    /// The imports of `module` not defined here whose type passes `keep`.
    fn unknown_imports(&self, module: &weft::Module, keep: impl Fn(&ExternType) -> bool) -> Vec<(String, String)> {
        module
            .imports()
            .filter(|i| !self.is_defined(i.module(), i.name()) && keep(&i.ty()))
            .map(|i| (i.module().to_string(), i.name().to_string()))
            .collect()
    }

    /// Notes each of `names` as defined.
    fn note_all(&mut self, names: Vec<(String, String)>) {
        self.defined.extend(names);
    }

    fn is_defined(&self, module: &str, name: &str) -> bool {
        (self.wasi && module == "wasi_snapshot_preview1")
            || self.defined.contains(&(module.to_string(), name.to_string()))
    }
}

/// A new linker for `engine`.
#[no_mangle]
pub extern "C" fn weft_linker_new(engine: Option<&wasm_engine_t>) -> Option<Box<weft_linker_t>> {
    guard(
        || None,
        || {
            Some(Box::new(weft_linker_t {
                linker: Linker::new(&engine?.engine),
                defined: HashSet::new(),
                wasi: false,
            }))
        },
    )
}

/// A copy of the linker.
#[no_mangle]
pub extern "C" fn weft_linker_clone(linker: Option<&weft_linker_t>) -> Option<Box<weft_linker_t>> {
    guard(|| None, || Some(Box::new(linker?.clone())))
}

/// Deletes a linker.
#[no_mangle]
pub extern "C" fn weft_linker_delete(linker: Option<Box<weft_linker_t>>) {
    guard(|| (), || drop(linker))
}

/// Whether a new definition may replace one of the same name.
#[no_mangle]
pub extern "C" fn weft_linker_allow_shadowing(linker: Option<&mut weft_linker_t>, allow_shadowing: bool) {
    guard(
        || (),
        || {
            if let Some(l) = linker {
                l.linker.allow_shadowing(allow_shadowing);
            }
        },
    )
}

/// Defines every function import of `module` not yet defined as a function
/// that traps (`Linker::define_unknown_imports_as_traps`).
#[no_mangle]
pub extern "C" fn weft_linker_define_unknown_imports_as_traps(
    linker: Option<&mut weft_linker_t>,
    module: Option<&weft_module_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let linker = linker.ok_or_else(|| crate::null_error("linker"))?;
        let module = module.ok_or_else(|| crate::null_error("module"))?;
        let unknown = linker.unknown_imports(&module.module, |ty| matches!(ty, ExternType::Func(_)));
        linker.linker.define_unknown_imports_as_traps(&module.module)?;
        linker.note_all(unknown);
        Ok(())
    })
}

/// Defines every import of `module` not yet defined as an item of default
/// contents made in `store` (`Linker::define_unknown_imports_as_default_values`:
/// functions returning zeros and nulls, globals of those, tables of nulls,
/// memories of their minimum size, tags).
#[no_mangle]
pub extern "C" fn weft_linker_define_unknown_imports_as_default_values(
    linker: Option<&mut weft_linker_t>,
    store: Option<&StoreShared>,
    module: Option<&weft_module_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let linker = linker.ok_or_else(|| crate::null_error("linker"))?;
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        let module = module.ok_or_else(|| crate::null_error("module"))?;
        let unknown = linker.unknown_imports(&module.module, |_| true);
        // SAFETY: the only context in use in this function.
        let mut cx = unsafe { store.ctx() };
        linker
            .linker
            .define_unknown_imports_as_default_values(&mut cx, &module.module)?;
        linker.note_all(unknown);
        Ok(())
    })
}

/// Defines `module::name` as `item`.
///
/// # Safety
///
/// `module` and `name` point to `module_len` and `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_linker_define(
    linker: Option<&mut weft_linker_t>,
    store: Option<&StoreShared>,
    module: *const c_char,
    module_len: usize,
    name: *const c_char,
    name_len: usize,
    item: Option<&weft_extern_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let linker = linker.ok_or_else(|| crate::null_error("linker"))?;
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        // SAFETY: the caller gives the names' bytes.
        let (m, n) = unsafe { (str_arg(module, module_len)?, str_arg(name, name_len)?) };
        // SAFETY: the only context in use in this function.
        let cx = unsafe { store.ctx() };
        let e = extern_to_weft(store, &cx, item.ok_or_else(|| crate::null_error("item"))?)?;
        linker.linker.define(&cx, m, n, e)?;
        linker.note(m, n);
        Ok(())
    })
}

/// Defines `module::name` as a host function usable in any store.
///
/// # Safety
///
/// `module` and `name` point to `module_len` and `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_linker_define_func(
    linker: Option<&mut weft_linker_t>,
    module: *const c_char,
    module_len: usize,
    name: *const c_char,
    name_len: usize,
    ty: Option<&wasm_functype_t>,
    cb: weft_func_callback_t,
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
        linker.linker.func_new(m, n, ft, checked_closure(cb, env))?;
        linker.note(m, n);
        Ok(())
    })
}

/// Like `weft_linker_define_func`, with a callback on raw values.
///
/// # Safety
///
/// `module` and `name` point to `module_len` and `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_linker_define_func_unchecked(
    linker: Option<&mut weft_linker_t>,
    module: *const c_char,
    module_len: usize,
    name: *const c_char,
    name_len: usize,
    ty: Option<&wasm_functype_t>,
    cb: weft_func_unchecked_callback_t,
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
            .func_new(m, n, ft.clone(), unchecked_closure(cb, env, ft))?;
        linker.note(m, n);
        Ok(())
    })
}

/// Defines WASI preview1 (`wasi_snapshot_preview1`), using the WASI
/// context of the store that calls it (`weft_context_set_wasi`; a store
/// without one gets an empty context).
#[no_mangle]
pub extern "C" fn weft_linker_define_wasi(linker: Option<&mut weft_linker_t>) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let l = linker.ok_or_else(|| crate::null_error("linker"))?;
        weft_wasi::p1::add_to_linker_sync(&mut l.linker, |d: &mut StoreData| {
            d.wasi
                .get_or_insert_with(|| weft_wasi::WasiCtxBuilder::new().build_p1())
        })?;
        l.wasi = true;
        Ok(())
    })
}

/// Defines every export of `instance` under the module name `name`.
///
/// # Safety
///
/// `name` points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_linker_define_instance(
    linker: Option<&mut weft_linker_t>,
    store: Option<&StoreShared>,
    name: *const c_char,
    name_len: usize,
    instance: Option<&weft_instance_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let linker = linker.ok_or_else(|| crate::null_error("linker"))?;
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        // SAFETY: the caller gives the name's bytes.
        let n = unsafe { str_arg(name, name_len)? };
        let instance = instance.ok_or_else(|| crate::null_error("instance"))?;
        // SAFETY: the only context in use in this function.
        let mut cx = unsafe { store.ctx() };
        let i = match super::entity_at(store, &cx, instance.store_id, instance.private)? {
            crate::r#ref::Entity::Instance(i) => i,
            _ => anyhow::bail!("handle is not an instance"),
        };
        let names: Vec<String> = i.exports(&mut cx).map(|e| e.name().to_string()).collect();
        linker.linker.instance(&mut cx, n, i)?;
        for export in names {
            linker.note(n, &export);
        }
        Ok(())
    })
}

/// Instantiates `module` with the linker's definitions.
#[no_mangle]
pub extern "C" fn weft_linker_instantiate(
    linker: Option<&weft_linker_t>,
    store: Option<&StoreShared>,
    module: Option<&weft_module_t>,
    instance: Option<&mut MaybeUninit<weft_instance_t>>,
    trap: Option<&mut MaybeUninit<Option<Box<wasm_trap_t>>>>,
) -> Option<Box<weft_error_t>> {
    let Some(s) = store else {
        return Some(Box::new(weft_error_t {
            error: crate::null_error("store"),
        }));
    };
    let r = crate::guard_result(|| {
        let linker = linker.ok_or_else(|| crate::null_error("linker"))?;
        let module = module.ok_or_else(|| crate::null_error("module"))?;
        linker.check_imports(&module.module)?;
        // SAFETY: the only context in use here.
        let mut cx = unsafe { s.ctx() };
        Ok(linker.linker.instantiate(&mut cx, &module.module))
    });
    finish_instantiate(s, r, instance, trap)
}

/// Instantiates `module` (running `_initialize` if it exports one) and
/// defines its exports under `name`.
///
/// # Safety
///
/// `name` points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_linker_module(
    linker: Option<&mut weft_linker_t>,
    store: Option<&StoreShared>,
    name: *const c_char,
    name_len: usize,
    module: Option<&weft_module_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let linker = linker.ok_or_else(|| crate::null_error("linker"))?;
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        // SAFETY: the caller gives the name's bytes.
        let n = unsafe { str_arg(name, name_len)? };
        let module = module.ok_or_else(|| crate::null_error("module"))?;
        // SAFETY: the only context in use in this function.
        let mut cx = unsafe { store.ctx() };
        linker.linker.module(&mut cx, n, &module.module)?;
        let names: Vec<String> = module.module.exports().map(|e| e.name().to_string()).collect();
        for export in names {
            linker.note(n, &export);
        }
        Ok(())
    })
}

/// The default function of module `name` (its export `""`, else `_start`).
///
/// # Safety
///
/// `name` points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_linker_get_default(
    linker: Option<&weft_linker_t>,
    store: Option<&StoreShared>,
    name: *const c_char,
    name_len: usize,
    func: Option<&mut MaybeUninit<weft_func_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let linker = linker.ok_or_else(|| crate::null_error("linker"))?;
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        // SAFETY: the caller gives the name's bytes.
        let n = unsafe { str_arg(name, name_len)? };
        let out = func.ok_or_else(|| crate::null_error("func"))?;
        // SAFETY: the only context in use in this function.
        let mut cx = unsafe { store.ctx() };
        let f = linker.linker.get_default(&mut cx, n)?;
        out.write(func_handle(store, &mut cx, f));
        Ok(())
    })
}

/// The definition of `module::name` in `item`; false if there is none.
///
/// # Safety
///
/// `module` and `name` point to `module_len` and `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_linker_get(
    linker: Option<&weft_linker_t>,
    store: Option<&StoreShared>,
    module: *const c_char,
    module_len: usize,
    name: *const c_char,
    name_len: usize,
    item: Option<&mut MaybeUninit<weft_extern_t>>,
) -> bool {
    guard(
        || false,
        || {
            let (Some(linker), Some(store), Some(item)) = (linker, store, item) else {
                return false;
            };
            // SAFETY: the caller gives the names' bytes.
            let (Ok(m), Ok(n)) = (unsafe { str_arg(module, module_len) }, unsafe {
                str_arg(name, name_len)
            }) else {
                return false;
            };
            // SAFETY: the only context in use in this function.
            let mut cx = unsafe { store.ctx() };
            let Some(e) = linker.linker.get(&mut cx, m, n) else {
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

/// Resolves `module`'s imports in the linker, for instantiation in any
/// store later (`weft_instance_pre_instantiate`).
#[no_mangle]
pub extern "C" fn weft_linker_instantiate_pre(
    linker: Option<&weft_linker_t>,
    module: Option<&weft_module_t>,
    instance_pre: Option<&mut MaybeUninit<Option<Box<weft_instance_pre_t>>>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let linker = linker.ok_or_else(|| crate::null_error("linker"))?;
        let module = module.ok_or_else(|| crate::null_error("module"))?;
        let out = instance_pre.ok_or_else(|| crate::null_error("instance_pre"))?;
        for import in module.module.imports() {
            if !linker.is_defined(import.module(), import.name()) {
                anyhow::bail!(
                    "unknown import: `{}::{}` has not been defined",
                    import.module(),
                    import.name()
                );
            }
        }
        out.write(Some(Box::new(weft_instance_pre_t {
            linker: linker.clone(),
            module: module.module.clone(),
        })));
        Ok(())
    })
}
