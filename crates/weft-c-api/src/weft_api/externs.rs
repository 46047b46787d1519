//! `weft/global.h`, `weft/table.h`, `weft/memory.h`.

use super::entity_at;
use super::val::{
    global_handle, table_handle, val_from_weft, val_to_weft, weft_global_t, weft_memory_t, weft_table_t, weft_tag_t,
    weft_val_t,
};
use crate::error::{catch_err, weft_error_t};
use crate::guard;
use crate::r#ref::Entity;
use crate::store::{StoreData, StoreShared};
use crate::types::{wasm_externtype_t, wasm_globaltype_t, wasm_memorytype_t, wasm_tabletype_t, wasm_tagtype_t};
use std::mem::MaybeUninit;
use weft::{ExternType, Global, Memory, Ref, StoreContextMut, Table, Tag};

fn global_of(store: &StoreShared, cx: &StoreContextMut<'_, StoreData>, g: &weft_global_t) -> anyhow::Result<Global> {
    match entity_at(store, cx, g.store_id, g.private1 as usize)? {
        Entity::Global(g) => Ok(g),
        _ => anyhow::bail!("handle is not a global"),
    }
}

fn table_of(store: &StoreShared, cx: &StoreContextMut<'_, StoreData>, t: &weft_table_t) -> anyhow::Result<Table> {
    match entity_at(store, cx, t.head.store_id, t.head.private1 as usize)? {
        Entity::Table(t) => Ok(t),
        _ => anyhow::bail!("handle is not a table"),
    }
}

fn memory_of(store: &StoreShared, cx: &StoreContextMut<'_, StoreData>, m: &weft_memory_t) -> anyhow::Result<Memory> {
    match entity_at(store, cx, m.head.store_id, m.head.private1 as usize)? {
        Entity::Memory(m) => Ok(m),
        _ => anyhow::bail!("handle is not a memory"),
    }
}

/// A value as a reference for a table.
fn ref_of(store: &StoreShared, cx: &StoreContextMut<'_, StoreData>, v: &weft_val_t) -> anyhow::Result<Ref> {
    val_to_weft(store, cx, v)?
        .ref_()
        .ok_or_else(|| anyhow::anyhow!("value is not a reference"))
}

/// A new global of type `ty` holding `val`, written to `ret`.
#[no_mangle]
pub extern "C" fn weft_global_new(
    store: Option<&StoreShared>,
    ty: Option<&wasm_globaltype_t>,
    val: Option<&weft_val_t>,
    ret: Option<&mut MaybeUninit<weft_global_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        let gt = ty
            .and_then(|t| t.global())
            .ok_or_else(|| crate::null_error("type"))?
            .to_weft();
        let val = val.ok_or_else(|| crate::null_error("val"))?;
        let ret = ret.ok_or_else(|| crate::null_error("ret"))?;
        // SAFETY: the only context in use in this function.
        let mut cx = unsafe { store.ctx() };
        let v = val_to_weft(store, &cx, val)?;
        let g = Global::new(&mut cx, gt, v)?;
        ret.write(global_handle(store, &mut cx, g));
        Ok(())
    })
}

/// The global's type.
#[no_mangle]
pub extern "C" fn weft_global_type(
    store: Option<&StoreShared>,
    g: Option<&weft_global_t>,
) -> Option<Box<wasm_globaltype_t>> {
    guard(
        || None,
        || {
            let store = store?;
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            let g = global_of(store, &cx, g?).ok()?;
            Some(Box::new(wasm_externtype_t::new(&ExternType::Global(g.ty(&cx)))))
        },
    )
}

/// Writes the global's value to `out`.
#[no_mangle]
pub extern "C" fn weft_global_get(
    store: Option<&StoreShared>,
    g: Option<&weft_global_t>,
    out: Option<&mut MaybeUninit<weft_val_t>>,
) {
    guard(
        || (),
        || {
            let (Some(store), Some(g), Some(out)) = (store, g, out) else {
                return;
            };
            // SAFETY: the only context in use in this function.
            let mut cx = unsafe { store.ctx() };
            // A root scope: GC references read here are rooted only until
            // C has its own roots for them.
            let mut scope = weft::RootScope::new(&mut cx);
            let mut cx = weft::AsContextMut::as_context_mut(&mut scope);
            let Ok(g) = global_of(store, &cx, g) else { return };
            let v = g.get(&mut cx);
            if let Ok(v) = val_from_weft(store, &mut cx, &v) {
                out.write(v);
            }
        },
    )
}

/// Sets the global's value (an error if it is constant or mistyped).
#[no_mangle]
pub extern "C" fn weft_global_set(
    store: Option<&StoreShared>,
    g: Option<&weft_global_t>,
    val: Option<&weft_val_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        // SAFETY: the only context in use in this function.
        let mut cx = unsafe { store.ctx() };
        let g = global_of(store, &cx, g.ok_or_else(|| crate::null_error("global"))?)?;
        let v = val_to_weft(store, &cx, val.ok_or_else(|| crate::null_error("val"))?)?;
        g.set(&mut cx, v)
    })
}

/// A new table of type `ty`, its elements `init`, written to `ret`.
#[no_mangle]
pub extern "C" fn weft_table_new(
    store: Option<&StoreShared>,
    ty: Option<&wasm_tabletype_t>,
    init: Option<&weft_val_t>,
    ret: Option<&mut MaybeUninit<weft_table_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        let tt = ty
            .and_then(|t| t.table())
            .ok_or_else(|| crate::null_error("type"))?
            .to_weft()?;
        let ret = ret.ok_or_else(|| crate::null_error("ret"))?;
        // SAFETY: the only context in use in this function.
        let mut cx = unsafe { store.ctx() };
        let init = ref_of(store, &cx, init.ok_or_else(|| crate::null_error("init"))?)?;
        let t = Table::new(&mut cx, tt, init)?;
        ret.write(table_handle(store, &mut cx, Entity::Table(t)));
        Ok(())
    })
}

/// The table's type.
#[no_mangle]
pub extern "C" fn weft_table_type(
    store: Option<&StoreShared>,
    t: Option<&weft_table_t>,
) -> Option<Box<wasm_tabletype_t>> {
    guard(
        || None,
        || {
            let store = store?;
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            let t = table_of(store, &cx, t?).ok()?;
            Some(Box::new(wasm_externtype_t::new(&ExternType::Table(t.ty(&cx)))))
        },
    )
}

/// The element at `index` in `val`; false if out of bounds.
#[no_mangle]
pub extern "C" fn weft_table_get(
    store: Option<&StoreShared>,
    t: Option<&weft_table_t>,
    index: u64,
    val: Option<&mut MaybeUninit<weft_val_t>>,
) -> bool {
    guard(
        || false,
        || {
            let (Some(store), Some(t), Some(val)) = (store, t, val) else {
                return false;
            };
            // SAFETY: the only context in use in this function.
            let mut cx = unsafe { store.ctx() };
            // A root scope: GC references read here are rooted only until
            // C has its own roots for them.
            let mut scope = weft::RootScope::new(&mut cx);
            let mut cx = weft::AsContextMut::as_context_mut(&mut scope);
            let Ok(t) = table_of(store, &cx, t) else { return false };
            let Some(r) = t.get(&cx, index) else { return false };
            match val_from_weft(store, &mut cx, &r.into()) {
                Ok(v) => {
                    val.write(v);
                    true
                }
                Err(_) => false,
            }
        },
    )
}

/// Sets the element at `index` (an error if out of bounds or mistyped).
#[no_mangle]
pub extern "C" fn weft_table_set(
    store: Option<&StoreShared>,
    t: Option<&weft_table_t>,
    index: u64,
    value: Option<&weft_val_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        // SAFETY: the only context in use in this function.
        let mut cx = unsafe { store.ctx() };
        let t = table_of(store, &cx, t.ok_or_else(|| crate::null_error("table"))?)?;
        let r = ref_of(store, &cx, value.ok_or_else(|| crate::null_error("value"))?)?;
        t.set(&mut cx, index, r)
    })
}

/// The table's size in elements.
#[no_mangle]
pub extern "C" fn weft_table_size(store: Option<&StoreShared>, t: Option<&weft_table_t>) -> u64 {
    guard(
        || 0,
        || {
            let (Some(store), Some(t)) = (store, t) else { return 0 };
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            table_of(store, &cx, t).map_or(0, |t| t.size(&cx))
        },
    )
}

/// Grows the table by `delta` elements set to `init`; the old size in
/// `prev_size`.
#[no_mangle]
pub extern "C" fn weft_table_grow(
    store: Option<&StoreShared>,
    t: Option<&weft_table_t>,
    delta: u64,
    init: Option<&weft_val_t>,
    prev_size: Option<&mut u64>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        // SAFETY: the only context in use in this function.
        let mut cx = unsafe { store.ctx() };
        let t = table_of(store, &cx, t.ok_or_else(|| crate::null_error("table"))?)?;
        let r = ref_of(store, &cx, init.ok_or_else(|| crate::null_error("init"))?)?;
        let prev = t.grow(&mut cx, delta, r)?;
        if let Some(p) = prev_size {
            *p = prev;
        }
        Ok(())
    })
}

/// A new memory of type `ty`, written to `ret`.
#[no_mangle]
pub extern "C" fn weft_memory_new(
    store: Option<&StoreShared>,
    ty: Option<&wasm_memorytype_t>,
    ret: Option<&mut MaybeUninit<weft_memory_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        let mt = ty
            .and_then(|t| t.memory())
            .ok_or_else(|| crate::null_error("type"))?
            .ty
            .clone();
        let ret = ret.ok_or_else(|| crate::null_error("ret"))?;
        // SAFETY: the only context in use in this function.
        let mut cx = unsafe { store.ctx() };
        let m = Memory::new(&mut cx, mt)?;
        ret.write(table_handle(store, &mut cx, Entity::Memory(m)));
        Ok(())
    })
}

/// The memory's type.
#[no_mangle]
pub extern "C" fn weft_memory_type(
    store: Option<&StoreShared>,
    m: Option<&weft_memory_t>,
) -> Option<Box<wasm_memorytype_t>> {
    guard(
        || None,
        || {
            let store = store?;
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            let m = memory_of(store, &cx, m?).ok()?;
            Some(Box::new(wasm_externtype_t::new(&ExternType::Memory(m.ty(&cx)))))
        },
    )
}

/// The memory's base address (valid until it grows; null if invalid).
#[no_mangle]
pub extern "C" fn weft_memory_data(store: Option<&StoreShared>, m: Option<&weft_memory_t>) -> *mut u8 {
    guard(std::ptr::null_mut, || {
        let (Some(store), Some(m)) = (store, m) else {
            return std::ptr::null_mut();
        };
        // SAFETY: the only context in use in this function.
        let cx = unsafe { store.ctx() };
        memory_of(store, &cx, m).map_or(std::ptr::null_mut(), |m| m.data_ptr(&cx))
    })
}

/// The memory's size in bytes.
#[no_mangle]
pub extern "C" fn weft_memory_data_size(store: Option<&StoreShared>, m: Option<&weft_memory_t>) -> usize {
    guard(
        || 0,
        || {
            let (Some(store), Some(m)) = (store, m) else { return 0 };
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            memory_of(store, &cx, m).map_or(0, |m| m.data_size(&cx))
        },
    )
}

/// The memory's size in pages.
#[no_mangle]
pub extern "C" fn weft_memory_size(store: Option<&StoreShared>, m: Option<&weft_memory_t>) -> u64 {
    guard(
        || 0,
        || {
            let (Some(store), Some(m)) = (store, m) else { return 0 };
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            memory_of(store, &cx, m).map_or(0, |m| m.size(&cx))
        },
    )
}

/// Grows the memory by `delta` pages; the old size in `prev_size`.
#[no_mangle]
pub extern "C" fn weft_memory_grow(
    store: Option<&StoreShared>,
    m: Option<&weft_memory_t>,
    delta: u64,
    prev_size: Option<&mut u64>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        // SAFETY: the only context in use in this function.
        let mut cx = unsafe { store.ctx() };
        let m = memory_of(store, &cx, m.ok_or_else(|| crate::null_error("memory"))?)?;
        let prev = m.grow(&mut cx, delta)?;
        if let Some(p) = prev_size {
            *p = prev;
        }
        Ok(())
    })
}

/// The memory's page size in bytes.
#[no_mangle]
pub extern "C" fn weft_memory_page_size(store: Option<&StoreShared>, m: Option<&weft_memory_t>) -> u64 {
    guard(
        || 65536,
        || {
            let (Some(store), Some(m)) = (store, m) else {
                return 65536;
            };
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            memory_of(store, &cx, m).map_or(65536, |m| m.ty(&cx).page_size())
        },
    )
}

/// The base-2 logarithm of the memory's page size.
#[no_mangle]
pub extern "C" fn weft_memory_page_size_log2(store: Option<&StoreShared>, m: Option<&weft_memory_t>) -> u8 {
    weft_memory_page_size(store, m).trailing_zeros() as u8
}

fn tag_of(store: &StoreShared, cx: &StoreContextMut<'_, StoreData>, t: &weft_tag_t) -> anyhow::Result<Tag> {
    match entity_at(store, cx, t.head.store_id, t.head.private1 as usize)? {
        Entity::Tag(t) => Ok(t),
        _ => anyhow::bail!("handle is not a tag"),
    }
}

/// A new tag of type `tt`, written to `ret`.
#[no_mangle]
pub extern "C" fn weft_tag_new(
    store: Option<&StoreShared>,
    tt: Option<&wasm_tagtype_t>,
    ret: Option<&mut MaybeUninit<weft_tag_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        let tt = tt.and_then(|t| t.tag()).ok_or_else(|| crate::null_error("type"))?;
        let ty = crate::types::tag_type(tt, &store.engine())?;
        let ret = ret.ok_or_else(|| crate::null_error("ret"))?;
        // SAFETY: the only context in use in this function.
        let mut cx = unsafe { store.ctx() };
        let t = Tag::new(&mut cx, &ty)?;
        ret.write(table_handle(store, &mut cx, Entity::Tag(t)));
        Ok(())
    })
}

/// The tag's type.
#[no_mangle]
pub extern "C" fn weft_tag_type(store: Option<&StoreShared>, t: Option<&weft_tag_t>) -> Option<Box<wasm_tagtype_t>> {
    guard(
        || None,
        || {
            let store = store?;
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            let t = tag_of(store, &cx, t?).ok()?;
            Some(Box::new(wasm_externtype_t::new(&ExternType::Tag(t.ty(&cx)))))
        },
    )
}

/// Whether two tags are the same definition.
#[no_mangle]
pub extern "C" fn weft_tag_eq(store: Option<&StoreShared>, a: Option<&weft_tag_t>, b: Option<&weft_tag_t>) -> bool {
    guard(
        || false,
        || {
            let (Some(store), Some(a), Some(b)) = (store, a, b) else {
                return false;
            };
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            match (tag_of(store, &cx, a), tag_of(store, &cx, b)) {
                (Ok(a), Ok(b)) => Tag::eq(&a, &b, &cx),
                _ => false,
            }
        },
    )
}
