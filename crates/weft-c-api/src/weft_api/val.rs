//! `weft/val.h` and `weft/extern.h`: the plain-value handles of store
//! objects, `weft_extern_t`, `weft_val_t` and `weft_val_raw_t`.

use super::sharedmemory::weft_sharedmemory_t;
use super::{entity_at, handle_of};
use crate::guard;
use crate::r#ref::Entity;
use crate::store::{StoreData, StoreShared};
use crate::types::wasm_externtype_t;
use std::ffi::c_void;
use weft::{StoreContextMut, Val, ValType, V128};

/// `weft_func_t`: a function of a store (`store_id` 0: a null funcref).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct weft_func_t {
    /// The store's id.
    pub store_id: u64,
    /// The index of the function in the store's handle table.
    pub private: *mut c_void,
}

/// The first part of a table, memory or tag handle.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct weft_handle_head {
    /// The store's id.
    pub store_id: u64,
    /// The index of the object in the store's handle table.
    pub private1: u32,
}

/// `weft_table_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct weft_table_t {
    /// The store and index.
    pub head: weft_handle_head,
    /// Unused.
    pub private2: u32,
}

/// `weft_memory_t`.
pub type weft_memory_t = weft_table_t;
/// `weft_tag_t`.
pub type weft_tag_t = weft_table_t;

/// `weft_global_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct weft_global_t {
    /// The store's id.
    pub store_id: u64,
    /// The index of the global in the store's handle table.
    pub private1: u32,
    /// Unused.
    pub private2: u32,
    /// Unused.
    pub private3: u32,
}

/// `weft_instance_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct weft_instance_t {
    /// The store's id.
    pub store_id: u64,
    /// The index of the instance in the store's handle table.
    pub private: usize,
}

/// `weft_extern_union_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union weft_extern_union_t {
    /// `WEFT_EXTERN_FUNC`.
    pub func: weft_func_t,
    /// `WEFT_EXTERN_GLOBAL`.
    pub global: weft_global_t,
    /// `WEFT_EXTERN_TABLE`.
    pub table: weft_table_t,
    /// `WEFT_EXTERN_MEMORY`.
    pub memory: weft_memory_t,
    /// `WEFT_EXTERN_SHAREDMEMORY`: owned when Weft returns the extern.
    pub sharedmemory: *mut weft_sharedmemory_t,
    /// `WEFT_EXTERN_TAG`.
    pub tag: weft_tag_t,
}

/// `weft_extern_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct weft_extern_t {
    /// `WEFT_EXTERN_*`.
    pub kind: u8,
    /// The object.
    pub of: weft_extern_union_t,
}

/// `WEFT_EXTERN_FUNC`.
pub const WEFT_EXTERN_FUNC: u8 = 0;
/// `WEFT_EXTERN_GLOBAL`.
pub const WEFT_EXTERN_GLOBAL: u8 = 1;
/// `WEFT_EXTERN_TABLE`.
pub const WEFT_EXTERN_TABLE: u8 = 2;
/// `WEFT_EXTERN_MEMORY`.
pub const WEFT_EXTERN_MEMORY: u8 = 3;
/// `WEFT_EXTERN_SHAREDMEMORY`.
pub const WEFT_EXTERN_SHAREDMEMORY: u8 = 4;
/// `WEFT_EXTERN_TAG`.
pub const WEFT_EXTERN_TAG: u8 = 5;

/// A GC reference handle (`weft_anyref_t`, `weft_externref_t`,
/// `weft_exnref_t`): externrefs (see `externref.rs`) and null references.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct weft_gcref_t {
    /// The store's id (0: null).
    pub store_id: u64,
    /// Private.
    pub private1: u32,
    /// Private.
    pub private2: u32,
    /// Private.
    pub private3: *mut c_void,
}

/// `weft_valunion_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union weft_valunion_t {
    /// `WEFT_I32`.
    pub i32: i32,
    /// `WEFT_I64`.
    pub i64: i64,
    /// `WEFT_F32`.
    pub f32: f32,
    /// `WEFT_F64`.
    pub f64: f64,
    /// `WEFT_ANYREF`, `WEFT_EXTERNREF`, `WEFT_EXNREF`.
    pub gcref: weft_gcref_t,
    /// `WEFT_FUNCREF`.
    pub funcref: weft_func_t,
    /// `WEFT_V128`, little-endian.
    pub v128: [u8; 16],
}

/// `weft_val_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct weft_val_t {
    /// `WEFT_I32`, ...
    pub kind: u8,
    /// The value.
    pub of: weft_valunion_t,
}

/// `weft_val_raw_t`: a value without its type (`*_unchecked` functions).
#[repr(C)]
#[derive(Clone, Copy)]
pub union weft_val_raw_t {
    /// `i32`.
    pub i32: i32,
    /// `i64`.
    pub i64: i64,
    /// `f32`.
    pub f32: f32,
    /// `f64`.
    pub f64: f64,
    /// `v128`, little-endian.
    pub v128: [u8; 16],
    /// An `anyref` or `exnref`: 0 for null, else a value of `weft_anyref_to_raw`/`weft_exnref_to_raw`.
    pub anyref: u32,
    /// An `externref`: 0 for null, else a value of `weft_externref_to_raw`.
    pub externref: u32,
    /// A function: null, or a value of `weft_func_to_raw`.
    pub funcref: *mut c_void,
}

/// The kinds of `weft_val_t`.
pub const WEFT_I32: u8 = 0;
/// `WEFT_I64`.
pub const WEFT_I64: u8 = 1;
/// `WEFT_F32`.
pub const WEFT_F32: u8 = 2;
/// `WEFT_F64`.
pub const WEFT_F64: u8 = 3;
/// `WEFT_V128`.
pub const WEFT_V128: u8 = 4;
/// `WEFT_FUNCREF`.
pub const WEFT_FUNCREF: u8 = 5;
/// `WEFT_EXTERNREF`.
pub const WEFT_EXTERNREF: u8 = 6;
/// `WEFT_ANYREF`.
pub const WEFT_ANYREF: u8 = 7;
/// `WEFT_EXNREF`.
pub const WEFT_EXNREF: u8 = 8;

const NULL_GCREF: weft_gcref_t = weft_gcref_t {
    store_id: 0,
    private1: 0,
    private2: 0,
    private3: std::ptr::null_mut(),
};

/// The C handle of a function.
pub(crate) fn func_handle(store: &StoreShared, cx: &mut StoreContextMut<'_, StoreData>, f: weft::Func) -> weft_func_t {
    weft_func_t {
        store_id: store.id(),
        private: handle_of(cx, Entity::Func(f)) as *mut c_void,
    }
}

/// The function of a C handle.
pub(crate) fn func_of(
    store: &StoreShared,
    cx: &StoreContextMut<'_, StoreData>,
    f: &weft_func_t,
) -> anyhow::Result<weft::Func> {
    match entity_at(store, cx, f.store_id, f.private as usize)? {
        Entity::Func(f) => Ok(f),
        _ => anyhow::bail!("handle is not a function"),
    }
}

/// The C handle of a table/memory/tag-shaped object.
pub(crate) fn table_handle(store: &StoreShared, cx: &mut StoreContextMut<'_, StoreData>, e: Entity) -> weft_table_t {
    weft_table_t {
        head: weft_handle_head {
            store_id: store.id(),
            private1: handle_of(cx, e) as u32,
        },
        private2: 0,
    }
}

/// The C handle of a global.
pub(crate) fn global_handle(
    store: &StoreShared,
    cx: &mut StoreContextMut<'_, StoreData>,
    g: weft::Global,
) -> weft_global_t {
    weft_global_t {
        store_id: store.id(),
        private1: handle_of(cx, Entity::Global(g)) as u32,
        private2: 0,
        private3: 0,
    }
}

/// The C extern of a Weft extern.
pub(crate) fn extern_of(
    store: &StoreShared,
    cx: &mut StoreContextMut<'_, StoreData>,
    e: weft::Extern,
) -> anyhow::Result<weft_extern_t> {
    Ok(match e {
        weft::Extern::Func(f) => weft_extern_t {
            kind: WEFT_EXTERN_FUNC,
            of: weft_extern_union_t {
                func: func_handle(store, cx, f),
            },
        },
        weft::Extern::Global(g) => weft_extern_t {
            kind: WEFT_EXTERN_GLOBAL,
            of: weft_extern_union_t {
                global: global_handle(store, cx, g),
            },
        },
        weft::Extern::Table(t) => weft_extern_t {
            kind: WEFT_EXTERN_TABLE,
            of: weft_extern_union_t {
                table: table_handle(store, cx, Entity::Table(t)),
            },
        },
        weft::Extern::Memory(m) => weft_extern_t {
            kind: WEFT_EXTERN_MEMORY,
            of: weft_extern_union_t {
                memory: table_handle(store, cx, Entity::Memory(m)),
            },
        },
        weft::Extern::Tag(t) => weft_extern_t {
            kind: WEFT_EXTERN_TAG,
            of: weft_extern_union_t {
                tag: table_handle(store, cx, Entity::Tag(t)),
            },
        },
        weft::Extern::SharedMemory(memory) => weft_extern_t {
            kind: WEFT_EXTERN_SHAREDMEMORY,
            of: weft_extern_union_t {
                sharedmemory: Box::into_raw(Box::new(weft_sharedmemory_t { memory })),
            },
        },
    })
}

/// The Weft extern of a C extern.
pub(crate) fn extern_to_weft(
    store: &StoreShared,
    cx: &StoreContextMut<'_, StoreData>,
    e: &weft_extern_t,
) -> anyhow::Result<weft::Extern> {
    if e.kind == WEFT_EXTERN_SHAREDMEMORY {
        // SAFETY: the union field read is the one `kind` names.
        let ptr = unsafe { e.of.sharedmemory };
        // SAFETY: a non-null shared memory pointer of an extern comes from
        // `weft_sharedmemory_new`/`_clone` or from an extern Weft returned,
        // and is live until deleted (the header's contract).
        let memory = unsafe { ptr.as_ref() }.ok_or_else(|| crate::null_error("shared memory"))?;
        return Ok(weft::Extern::SharedMemory(memory.memory.clone()));
    }
    // SAFETY: the union field read is the one `kind` names.
    let (store_id, index) = unsafe {
        match e.kind {
            WEFT_EXTERN_FUNC => (e.of.func.store_id, e.of.func.private as usize),
            WEFT_EXTERN_GLOBAL => (e.of.global.store_id, e.of.global.private1 as usize),
            WEFT_EXTERN_TABLE | WEFT_EXTERN_MEMORY | WEFT_EXTERN_TAG => {
                (e.of.table.head.store_id, e.of.table.head.private1 as usize)
            }
            k => anyhow::bail!("unsupported extern kind {k}"),
        }
    };
    let ent = entity_at(store, cx, store_id, index)?;
    let ok = matches!(
        (e.kind, ent),
        (WEFT_EXTERN_FUNC, Entity::Func(_))
            | (WEFT_EXTERN_GLOBAL, Entity::Global(_))
            | (WEFT_EXTERN_TABLE, Entity::Table(_))
            | (WEFT_EXTERN_MEMORY, Entity::Memory(_))
            | (WEFT_EXTERN_TAG, Entity::Tag(_))
    );
    if !ok {
        anyhow::bail!("extern handle does not match its kind");
    }
    crate::extern_::to_extern(ent).ok_or_else(|| anyhow::anyhow!("not an extern"))
}

/// The Weft value of a C value.
pub(crate) fn val_to_weft(
    store: &StoreShared,
    cx: &StoreContextMut<'_, StoreData>,
    v: &weft_val_t,
) -> anyhow::Result<Val> {
    // SAFETY: the union field read is the one `kind` names.
    Ok(unsafe {
        match v.kind {
            WEFT_I32 => Val::I32(v.of.i32),
            WEFT_I64 => Val::I64(v.of.i64),
            WEFT_F32 => Val::F32(v.of.f32.to_bits()),
            WEFT_F64 => Val::F64(v.of.f64.to_bits()),
            WEFT_V128 => Val::V128(V128::from(u128::from_le_bytes(v.of.v128))),
            WEFT_FUNCREF => {
                if v.of.funcref.store_id == 0 {
                    Val::FuncRef(None)
                } else {
                    Val::FuncRef(Some(func_of(store, cx, &v.of.funcref)?))
                }
            }
            WEFT_EXTERNREF => Val::ExternRef(super::externref::externref_of(store, cx, &v.of.gcref)?),
            WEFT_ANYREF => Val::AnyRef(super::gc::anyref_of(store, &v.of.gcref)?),
            WEFT_EXNREF => Val::ExnRef(super::gc::exnref_of(store, cx, &v.of.gcref)?),
            k => anyhow::bail!("unknown value kind {k}"),
        }
    })
}

/// The Weft value of a C value whose GC root is given to Weft: an
/// `anyref`'s or `exnref`'s root moves into the current root scope (the C
/// handle is unrooted); other values as `val_to_weft`.
pub(crate) fn val_taken_to_weft(
    store: &StoreShared,
    cx: &mut StoreContextMut<'_, StoreData>,
    v: &mut weft_val_t,
) -> anyhow::Result<Val> {
    if v.kind == WEFT_EXNREF {
        // SAFETY: the union field read is the one `kind` names.
        let h = unsafe { &mut v.of.gcref };
        let r = super::gc::exnref_into_scope(store, cx, h);
        super::gc::unroot_exn_handle(h);
        return Ok(Val::ExnRef(r?));
    }
    if v.kind != WEFT_ANYREF {
        return val_to_weft(store, cx, v);
    }
    // SAFETY: the union field read is the one `kind` names.
    let h = unsafe { &mut v.of.gcref };
    let r = super::gc::anyref_into_scope(store, cx, h);
    super::gc::unroot_handle(h);
    Ok(Val::AnyRef(r?))
}

/// The C value of a Weft value.
pub(crate) fn val_from_weft(
    store: &StoreShared,
    cx: &mut StoreContextMut<'_, StoreData>,
    v: &Val,
) -> anyhow::Result<weft_val_t> {
    Ok(match v {
        Val::I32(i) => weft_val_t {
            kind: WEFT_I32,
            of: weft_valunion_t { i32: *i },
        },
        Val::I64(i) => weft_val_t {
            kind: WEFT_I64,
            of: weft_valunion_t { i64: *i },
        },
        Val::F32(b) => weft_val_t {
            kind: WEFT_F32,
            of: weft_valunion_t {
                f32: f32::from_bits(*b),
            },
        },
        Val::F64(b) => weft_val_t {
            kind: WEFT_F64,
            of: weft_valunion_t {
                f64: f64::from_bits(*b),
            },
        },
        Val::V128(x) => weft_val_t {
            kind: WEFT_V128,
            of: weft_valunion_t {
                v128: x.as_u128().to_le_bytes(),
            },
        },
        Val::FuncRef(f) => weft_val_t {
            kind: WEFT_FUNCREF,
            of: weft_valunion_t {
                funcref: match f {
                    Some(f) => func_handle(store, cx, *f),
                    None => weft_func_t {
                        store_id: 0,
                        private: std::ptr::null_mut(),
                    },
                },
            },
        },
        Val::ExternRef(None) => weft_val_t {
            kind: WEFT_EXTERNREF,
            of: weft_valunion_t { gcref: NULL_GCREF },
        },
        Val::ExnRef(None) => weft_val_t {
            kind: WEFT_EXNREF,
            of: weft_valunion_t { gcref: NULL_GCREF },
        },
        Val::ExternRef(Some(r)) => weft_val_t {
            kind: WEFT_EXTERNREF,
            of: weft_valunion_t {
                gcref: super::externref::externref_handle(store, cx, *r)?,
            },
        },
        Val::ExnRef(Some(e)) => weft_val_t {
            kind: WEFT_EXNREF,
            of: weft_valunion_t {
                gcref: super::gc::exnref_handle(store, cx, *e)?,
            },
        },
        Val::AnyRef(a) => weft_val_t {
            kind: WEFT_ANYREF,
            of: weft_valunion_t {
                gcref: match a {
                    Some(a) => super::gc::anyref_handle(store, cx, *a)?,
                    None => NULL_GCREF,
                },
            },
        },
    })
}

/// The Weft value of a raw value of type `ty`.
pub(crate) fn raw_to_weft(
    store: &StoreShared,
    cx: &StoreContextMut<'_, StoreData>,
    raw: &weft_val_raw_t,
    ty: &ValType,
) -> anyhow::Result<Val> {
    // SAFETY: every field of the raw union is plain data of at most its
    // 16 bytes; the one read is the one `ty` names (the caller's contract
    // for unchecked calls).
    Ok(unsafe {
        match ty {
            ValType::I32 => Val::I32(raw.i32),
            ValType::I64 => Val::I64(raw.i64),
            ValType::F32 => Val::F32(raw.f32.to_bits()),
            ValType::F64 => Val::F64(raw.f64.to_bits()),
            ValType::V128 => Val::V128(V128::from(u128::from_le_bytes(raw.v128))),
            ValType::Ref(r) if r.heap_type().is_extern() => {
                let h = weft_gcref_t {
                    store_id: if raw.externref == 0 { 0 } else { store.id() },
                    private1: raw.externref,
                    ..NULL_GCREF
                };
                Val::ExternRef(super::externref::externref_of(store, cx, &h)?)
            }
            ValType::Ref(r) if r.heap_type().is_exn() => Val::ExnRef(super::gc::exnref_of_raw(cx, raw.anyref)?),
            ValType::Ref(r) if r.heap_type().is_any_hierarchy() => {
                let mut h = super::gc::anyref_from_raw(store, raw.anyref)?;
                let v = super::gc::anyref_of(store, &h)?;
                // The raw table keeps the object alive: the handle made
                // for the lookup is not needed.
                super::gc::unroot_handle(&mut h);
                Val::AnyRef(v)
            }
            ValType::Ref(_) => {
                let p = raw.funcref as usize;
                if p == 0 {
                    Val::FuncRef(None)
                } else {
                    let f = weft_func_t {
                        store_id: store.id(),
                        private: (p - 1) as *mut c_void,
                    };
                    Val::FuncRef(Some(func_of(store, cx, &f)?))
                }
            }
        }
    })
}

/// The raw value of a Weft value.
pub(crate) fn raw_from_weft(
    store: &StoreShared,
    cx: &mut StoreContextMut<'_, StoreData>,
    v: &Val,
) -> anyhow::Result<weft_val_raw_t> {
    let mut raw = weft_val_raw_t { v128: [0; 16] };
    match v {
        Val::I32(i) => raw.i32 = *i,
        Val::I64(i) => raw.i64 = *i,
        Val::F32(b) => raw.f32 = f32::from_bits(*b),
        Val::F64(b) => raw.f64 = f64::from_bits(*b),
        Val::V128(x) => raw.v128 = x.as_u128().to_le_bytes(),
        Val::FuncRef(None) | Val::ExternRef(None) | Val::ExnRef(None) | Val::AnyRef(None) => {}
        Val::FuncRef(Some(f)) => {
            raw.funcref = (func_handle(store, cx, *f).private as usize + 1) as *mut c_void;
        }
        Val::ExternRef(Some(r)) => {
            raw.externref = super::externref::externref_handle(store, cx, *r)?.private1;
        }
        Val::ExnRef(Some(e)) => {
            raw.anyref = super::gc::exnref_to_raw(cx, *e)?;
        }
        Val::AnyRef(Some(a)) => {
            raw.anyref = super::gc::anyref_to_raw(cx, *a)?;
        }
    }
    Ok(raw)
}

/// Releases the GC root of a value (an `anyref`'s or an `exnref`'s; extern
/// references need none).
#[no_mangle]
pub extern "C" fn weft_val_unroot(val: Option<&mut weft_val_t>) {
    guard(
        || (),
        || {
            if let Some(v) = val {
                if v.kind == WEFT_ANYREF {
                    // SAFETY: the union field read is the one `kind` names.
                    super::gc::unroot_handle(unsafe { &mut v.of.gcref });
                } else if v.kind == WEFT_EXNREF {
                    // SAFETY: as above.
                    super::gc::unroot_exn_handle(unsafe { &mut v.of.gcref });
                }
            }
        },
    )
}

/// Copies `src` to `dst`, with a new root for an `anyref` or an `exnref`.
#[no_mangle]
pub extern "C" fn weft_val_clone(src: Option<&weft_val_t>, dst: Option<&mut std::mem::MaybeUninit<weft_val_t>>) {
    guard(
        || (),
        || {
            if let (Some(s), Some(d)) = (src, dst) {
                let mut v = *s;
                if v.kind == WEFT_ANYREF {
                    // SAFETY: the union field read is the one `kind` names.
                    v.of.gcref = super::gc::clone_handle(unsafe { &s.of.gcref });
                } else if v.kind == WEFT_EXNREF {
                    // SAFETY: as above.
                    v.of.gcref = super::gc::clone_exn_handle(unsafe { &s.of.gcref });
                }
                d.write(v);
            }
        },
    )
}

/// Releases an extern (only shared memories own anything: their handle is
/// released and the pointer set to NULL).
#[no_mangle]
pub extern "C" fn weft_extern_delete(val: Option<&mut weft_extern_t>) {
    guard(
        || (),
        || {
            let Some(val) = val else { return };
            if val.kind != WEFT_EXTERN_SHAREDMEMORY {
                return;
            }
            // SAFETY: the union field read is the one `kind` names.
            let ptr = unsafe { val.of.sharedmemory };
            if !ptr.is_null() {
                // SAFETY: an extern's shared memory pointer is an owned
                // `Box` (the header's contract), released once: the field
                // is cleared below.
                drop(unsafe { Box::from_raw(ptr) });
            }
            val.of.sharedmemory = std::ptr::null_mut();
        },
    )
}

/// The type of an extern.
#[no_mangle]
pub extern "C" fn weft_extern_type(
    context: Option<&StoreShared>,
    val: Option<&weft_extern_t>,
) -> Option<Box<wasm_externtype_t>> {
    guard(
        || None,
        || {
            let store = context?;
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            let e = extern_to_weft(store, &cx, val?).ok()?;
            Some(Box::new(wasm_externtype_t::new(&e.ty(&cx))))
        },
    )
}
