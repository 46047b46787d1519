//! Globals, tables, memories and externs of `wasm.h`.

use crate::guard;
use crate::r#ref::{wasm_extern_t, wasm_global_t, wasm_memory_t, wasm_ref_t, wasm_table_t, Entity};
use crate::store::{wasm_store_t, StoreShared};
use crate::types::{
    wasm_externtype_t, wasm_globaltype_t, wasm_memorytype_t, wasm_tabletype_t, CExternType, CMemoryType,
};
use crate::val::wasm_val_t;
use crate::vec::{declare_vec, CVec};
use std::mem::MaybeUninit;
use std::rc::Rc;
use weft::{ExternType, Global, Memory, Ref, Table, Val};

/// `wasm_extern_vec_t`.
pub type wasm_extern_vec_t = CVec<Option<Box<wasm_extern_t>>>;

declare_vec!(
    wasm_extern_vec_t,
    Option<Box<wasm_extern_t>>,
    wasm_extern_vec_new_empty,
    wasm_extern_vec_new_uninitialized,
    wasm_extern_vec_new,
    wasm_extern_vec_copy,
    wasm_extern_vec_delete
);

/// Declares `wasm_X_as_extern` and `wasm_extern_as_X` (and `_const`).
macro_rules! declare_as_extern {
    ($name:literal, $check:ident, $as_ext:ident, $as_ext_const:ident, $ext_as:ident, $ext_as_const:ident) => {
        #[doc = concat!("The `wasm_", $name, "_t` as an extern (the same pointer).")]
        #[no_mangle]
        pub extern "C" fn $as_ext(r: *mut wasm_ref_t) -> *mut wasm_ref_t {
            r
        }

        #[doc = concat!("The `wasm_", $name, "_t` as an extern (the same pointer).")]
        #[no_mangle]
        pub extern "C" fn $as_ext_const(r: *const wasm_ref_t) -> *const wasm_ref_t {
            r
        }

        #[doc = concat!("The extern as a `wasm_", $name, "_t` (null if it is not one).")]
        #[no_mangle]
        pub extern "C" fn $ext_as(r: Option<&mut wasm_ref_t>) -> *mut wasm_ref_t {
            match r {
                Some(r) if r.$check().is_some() => r,
                _ => std::ptr::null_mut(),
            }
        }

        #[doc = concat!("The extern as a `wasm_", $name, "_t` (null if it is not one).")]
        #[no_mangle]
        pub extern "C" fn $ext_as_const(r: Option<&wasm_ref_t>) -> *const wasm_ref_t {
            match r {
                Some(r) if r.$check().is_some() => r,
                _ => std::ptr::null(),
            }
        }
    };
}

declare_as_extern!(
    "func",
    func,
    wasm_func_as_extern,
    wasm_func_as_extern_const,
    wasm_extern_as_func,
    wasm_extern_as_func_const
);
declare_as_extern!(
    "global",
    global,
    wasm_global_as_extern,
    wasm_global_as_extern_const,
    wasm_extern_as_global,
    wasm_extern_as_global_const
);
declare_as_extern!(
    "table",
    table,
    wasm_table_as_extern,
    wasm_table_as_extern_const,
    wasm_extern_as_table,
    wasm_extern_as_table_const
);
declare_as_extern!(
    "memory",
    memory,
    wasm_memory_as_extern,
    wasm_memory_as_extern_const,
    wasm_extern_as_memory,
    wasm_extern_as_memory_const
);

/// The kind of an extern (`WASM_EXTERN_FUNC`, ...).
#[no_mangle]
pub extern "C" fn wasm_extern_kind(e: Option<&wasm_extern_t>) -> u8 {
    match e.and_then(|e| e.as_entity()) {
        Some((_, Entity::Global(_))) => 1,
        Some((_, Entity::Table(_))) => 2,
        Some((_, Entity::Memory(_))) => 3,
        Some((_, Entity::Tag(_))) => 4,
        _ => 0,
    }
}

/// The Weft extern of a store object.
pub(crate) fn to_extern(e: Entity) -> Option<weft::Extern> {
    Some(match e {
        Entity::Func(f) => f.into(),
        Entity::Global(g) => g.into(),
        Entity::Table(t) => t.into(),
        Entity::Memory(m) => m.into(),
        Entity::Tag(t) => t.into(),
        Entity::Instance(_) => return None,
    })
}

/// The store object of a Weft extern.
pub(crate) fn from_extern(e: weft::Extern) -> Option<Entity> {
    Some(match e {
        weft::Extern::Func(f) => Entity::Func(f),
        weft::Extern::Global(g) => Entity::Global(g),
        weft::Extern::Table(t) => Entity::Table(t),
        weft::Extern::Memory(m) => Entity::Memory(m),
        weft::Extern::Tag(t) => Entity::Tag(t),
        // `wasm.h` has no shared memories.
        weft::Extern::SharedMemory(_) => return None,
    })
}

/// The type of an extern.
#[no_mangle]
pub extern "C" fn wasm_extern_type(e: Option<&wasm_extern_t>) -> Option<Box<wasm_externtype_t>> {
    guard(
        || None,
        || {
            let (store, ent) = e?.as_entity()?;
            let ext = to_extern(ent)?;
            // SAFETY: the only context in use in this function.
            let ty: ExternType = ext.ty(&unsafe { store.ctx() });
            Some(Box::new(wasm_externtype_t::new(&ty)))
        },
    )
}

/// Runs `f` on the context of `store`.
fn with_cx<R>(store: &StoreShared, f: impl FnOnce(&mut weft::StoreContextMut<'_, crate::store::StoreData>) -> R) -> R {
    // SAFETY: the only context in use while `f` runs.
    let mut cx = unsafe { store.ctx() };
    f(&mut cx)
}

/// A new global of type `ty` holding `val` (null on a type mismatch).
#[no_mangle]
pub extern "C" fn wasm_global_new(
    store: Option<&wasm_store_t>,
    ty: Option<&wasm_globaltype_t>,
    val: Option<&wasm_val_t>,
) -> Option<Box<wasm_global_t>> {
    guard(
        || None,
        || {
            let store = &store?.store;
            let gt = ty?.global()?.to_weft();
            let g = with_cx(store, |cx| {
                let v = val?.to_weft(store, cx).ok()?;
                Global::new(cx, gt, v).ok()
            })?;
            Some(wasm_ref_t::entity(store, Entity::Global(g)))
        },
    )
}

/// The global's type.
#[no_mangle]
pub extern "C" fn wasm_global_type(g: Option<&wasm_global_t>) -> Option<Box<wasm_globaltype_t>> {
    guard(
        || None,
        || {
            let (store, g) = g?.global()?;
            let ty = with_cx(store, |cx| g.ty(&*cx));
            Some(Box::new(wasm_externtype_t::new(&ExternType::Global(ty))))
        },
    )
}

/// Writes the global's value to `out`.
#[no_mangle]
pub extern "C" fn wasm_global_get(g: Option<&wasm_global_t>, out: Option<&mut MaybeUninit<wasm_val_t>>) {
    guard(
        || (),
        || {
            let (Some((store, g)), Some(out)) = (g.and_then(|g| g.global()), out) else {
                return;
            };
            let v = with_cx(store, |cx| {
                let v = g.get(&mut *cx);
                wasm_val_t::from_weft(&v, store, cx).unwrap_or_else(|_| wasm_val_t::zero())
            });
            out.write(v);
        },
    )
}

/// Sets the global's value (nothing on a type mismatch or a constant global).
#[no_mangle]
pub extern "C" fn wasm_global_set(g: Option<&wasm_global_t>, val: Option<&wasm_val_t>) {
    guard(
        || (),
        || {
            let (Some((store, g)), Some(val)) = (g.and_then(|g| g.global()), val) else {
                return;
            };
            with_cx(store, |cx| {
                if let Ok(v) = val.to_weft(store, cx) {
                    let _ = g.set(&mut *cx, v);
                }
            })
        },
    )
}

/// The Weft reference of a `wasm_ref_t` for an element of type `elem`.
pub(crate) fn ref_to_weft(
    r: Option<&wasm_ref_t>,
    store: &StoreShared,
    elem: &weft::RefType,
    cx: &mut weft::StoreContextMut<'_, crate::store::StoreData>,
) -> anyhow::Result<Ref> {
    let kind = if elem.heap_type().is_extern() {
        crate::types::WASM_EXTERNREF
    } else {
        crate::types::WASM_FUNCREF
    };
    let v = wasm_val_t {
        kind,
        of: crate::val::wasm_val_union {
            ref_: r.map_or(std::ptr::null_mut(), |r| r as *const wasm_ref_t as *mut wasm_ref_t),
        },
    };
    let val = v.to_weft(store, cx)?;
    val.ref_().ok_or_else(|| anyhow::anyhow!("not a reference"))
}

/// The `wasm_ref_t` of a Weft reference (None for null).
pub(crate) fn ref_from_weft(
    r: Ref,
    store: &Rc<StoreShared>,
    cx: &mut weft::StoreContextMut<'_, crate::store::StoreData>,
) -> Option<Box<wasm_ref_t>> {
    let v = wasm_val_t::from_weft(&Val::from(r), store, cx).ok()?;
    // SAFETY: `from_weft` of a reference makes a reference value, whose
    // reference is taken over here (`wasm_val_t` has no destructor).
    let ptr = unsafe { v.of.ref_ };
    if ptr.is_null() {
        None
    } else {
        // SAFETY: the reference was boxed by `from_weft` and is owned here.
        Some(unsafe { Box::from_raw(ptr) })
    }
}

/// A new table of type `ty`, its elements `init` (null: null references).
#[no_mangle]
pub extern "C" fn wasm_table_new(
    store: Option<&wasm_store_t>,
    ty: Option<&wasm_tabletype_t>,
    init: Option<&wasm_ref_t>,
) -> Option<Box<wasm_table_t>> {
    guard(
        || None,
        || {
            let store = &store?.store;
            let tt = ty?.table()?.to_weft().ok()?;
            let t = with_cx(store, |cx| {
                let init = ref_to_weft(init, store, tt.element(), cx).ok()?;
                Table::new(cx, tt, init).ok()
            })?;
            Some(wasm_ref_t::entity(store, Entity::Table(t)))
        },
    )
}

/// The table's type.
#[no_mangle]
pub extern "C" fn wasm_table_type(t: Option<&wasm_table_t>) -> Option<Box<wasm_tabletype_t>> {
    guard(
        || None,
        || {
            let (store, t) = t?.table()?;
            let ty = with_cx(store, |cx| t.ty(&*cx));
            Some(Box::new(wasm_externtype_t::new(&ExternType::Table(ty))))
        },
    )
}

/// The element at `index` (null if null or out of bounds).
#[no_mangle]
pub extern "C" fn wasm_table_get(t: Option<&wasm_table_t>, index: u32) -> Option<Box<wasm_ref_t>> {
    guard(
        || None,
        || {
            let (store, t) = t?.table()?;
            with_cx(store, |cx| {
                let r = t.get(&*cx, index as u64)?;
                ref_from_weft(r, store, cx)
            })
        },
    )
}

/// Sets the element at `index`; false if out of bounds or mistyped.
#[no_mangle]
pub extern "C" fn wasm_table_set(t: Option<&wasm_table_t>, index: u32, r: Option<&wasm_ref_t>) -> bool {
    guard(
        || false,
        || {
            let Some((store, t)) = t.and_then(|t| t.table()) else {
                return false;
            };
            with_cx(store, |cx| {
                let ty = t.ty(&*cx);
                match ref_to_weft(r, store, ty.element(), cx) {
                    Ok(v) => t.set(&mut *cx, index as u64, v).is_ok(),
                    Err(_) => false,
                }
            })
        },
    )
}

/// The table's size.
#[no_mangle]
pub extern "C" fn wasm_table_size(t: Option<&wasm_table_t>) -> u32 {
    guard(
        || 0,
        || {
            let Some((store, t)) = t.and_then(|t| t.table()) else {
                return 0;
            };
            with_cx(store, |cx| t.size(&*cx)).min(u32::MAX as u64) as u32
        },
    )
}

/// Grows the table by `delta` elements set to `init`; false on failure.
#[no_mangle]
pub extern "C" fn wasm_table_grow(t: Option<&wasm_table_t>, delta: u32, init: Option<&wasm_ref_t>) -> bool {
    guard(
        || false,
        || {
            let Some((store, t)) = t.and_then(|t| t.table()) else {
                return false;
            };
            with_cx(store, |cx| {
                let ty = t.ty(&*cx);
                match ref_to_weft(init, store, ty.element(), cx) {
                    Ok(v) => t.grow(&mut *cx, delta as u64, v).is_ok(),
                    Err(_) => false,
                }
            })
        },
    )
}

/// A new memory of type `ty`.
#[no_mangle]
pub extern "C" fn wasm_memory_new(
    store: Option<&wasm_store_t>,
    ty: Option<&wasm_memorytype_t>,
) -> Option<Box<wasm_memory_t>> {
    guard(
        || None,
        || {
            let store = &store?.store;
            let CMemoryType { ty, .. } = ty?.memory()?.clone();
            let m = with_cx(store, |cx| Memory::new(cx, ty).ok())?;
            Some(wasm_ref_t::entity(store, Entity::Memory(m)))
        },
    )
}

/// The memory's type.
#[no_mangle]
pub extern "C" fn wasm_memory_type(m: Option<&wasm_memory_t>) -> Option<Box<wasm_memorytype_t>> {
    guard(
        || None,
        || {
            let (store, m) = m?.memory()?;
            let ty = with_cx(store, |cx| m.ty(&*cx));
            Some(Box::new(wasm_externtype_t {
                which: CExternType::Memory(match wasm_externtype_t::new(&ExternType::Memory(ty)).which {
                    CExternType::Memory(m) => m,
                    _ => return None,
                }),
            }))
        },
    )
}

/// The memory's bytes (valid until it grows).
#[no_mangle]
pub extern "C" fn wasm_memory_data(m: Option<&wasm_memory_t>) -> *mut u8 {
    guard(std::ptr::null_mut, || {
        let Some((store, m)) = m.and_then(|m| m.memory()) else {
            return std::ptr::null_mut();
        };
        with_cx(store, |cx| m.data_ptr(&*cx))
    })
}

/// The memory's size in bytes.
#[no_mangle]
pub extern "C" fn wasm_memory_data_size(m: Option<&wasm_memory_t>) -> usize {
    guard(
        || 0,
        || {
            let Some((store, m)) = m.and_then(|m| m.memory()) else {
                return 0;
            };
            with_cx(store, |cx| m.data_size(&*cx))
        },
    )
}

/// The memory's size in pages.
#[no_mangle]
pub extern "C" fn wasm_memory_size(m: Option<&wasm_memory_t>) -> u32 {
    guard(
        || 0,
        || {
            let Some((store, m)) = m.and_then(|m| m.memory()) else {
                return 0;
            };
            with_cx(store, |cx| m.size(&*cx)).min(u32::MAX as u64) as u32
        },
    )
}

/// Grows the memory by `delta` pages; false on failure.
#[no_mangle]
pub extern "C" fn wasm_memory_grow(m: Option<&wasm_memory_t>, delta: u32) -> bool {
    guard(
        || false,
        || {
            let Some((store, m)) = m.and_then(|m| m.memory()) else {
                return false;
            };
            with_cx(store, |cx| m.grow(&mut *cx, delta as u64).is_ok())
        },
    )
}
