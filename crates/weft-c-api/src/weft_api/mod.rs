//! The functions of `weft.h` beyond `wasm.h`, for core wasm: values and
//! store handles (`weft/val.h`, `weft/extern.h`), functions and callers
//! (`weft/func.h`), globals, tables and memories, modules, instances and
//! linkers.
//!
//! A store object given to C (`weft_func_t`, `weft_global_t`, ...) is a
//! plain value: the id of its store and an index into the store's handle
//! table ([`crate::store::StoreData::handles`]), which gives each object one
//! index for the store's life. Every use checks the id against the context
//! it is used with and the index against the table, so an object of another
//! store is an error, never undefined behaviour.

pub mod async_calls;
pub mod externref;
pub mod externs;
pub mod func;
pub mod gc;
pub mod gc_types;
pub mod instance;
pub mod linker;
pub mod module;
pub mod profiling;
pub mod sharedmemory;
pub mod val;

use crate::r#ref::Entity;
use crate::store::{StoreData, StoreShared};
use weft::StoreContextMut;

/// The index of `e` in the store's handle table (added if new).
pub(crate) fn handle_of(cx: &mut StoreContextMut<'_, StoreData>, e: Entity) -> usize {
    let data = cx.data_mut();
    if let Some(&i) = data.handle_ids.get(&e) {
        return i;
    }
    let i = data.handles.len();
    data.handles.push(e);
    data.handle_ids.insert(e, i);
    i
}

/// The object at `index` of the handle table of the store `store_id`,
/// checked against `store`.
pub(crate) fn entity_at(
    store: &StoreShared,
    cx: &StoreContextMut<'_, StoreData>,
    store_id: u64,
    index: usize,
) -> anyhow::Result<Entity> {
    if store_id != store.id() {
        anyhow::bail!("object used with the wrong store");
    }
    cx.data()
        .handles
        .get(index)
        .copied()
        .ok_or_else(|| anyhow::anyhow!("invalid object handle"))
}

/// The name `(ptr, len)` as UTF-8.
///
/// # Safety
///
/// `ptr` points to `len` readable bytes (or is null with `len` 0).
pub(crate) unsafe fn str_arg<'a>(ptr: *const std::ffi::c_char, len: usize) -> anyhow::Result<&'a str> {
    if ptr.is_null() {
        if len == 0 {
            return Ok("");
        }
        return Err(crate::null_error("name"));
    }
    // SAFETY: the caller gives `len` readable bytes.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    std::str::from_utf8(bytes).map_err(|_| anyhow::anyhow!("input was not valid utf-8"))
}
