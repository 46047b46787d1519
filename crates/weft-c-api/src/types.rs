//! The types of `wasm.h`: value, function, global, table, memory, tag,
//! extern, import and export types, and their vectors; with
//! `weft_memorytype_*` of `weft/memory.h`.
//!
//! Function, global, table, memory and tag types are all
//! [`wasm_externtype_t`], so that `wasm_X_as_externtype` is the identity.

use crate::error::{catch_err, weft_error_t};
use crate::guard;
use crate::vec::{declare_vec, name_from_str, wasm_name_t, CVec};
use std::mem::MaybeUninit;
use weft::{ExternType, FuncType, GlobalType, HeapType, MemoryType, Mutability, TableType, TagType, ValType};

/// `wasm_valkind_t`.
pub type wasm_valkind_t = u8;
/// `WASM_I32`.
pub const WASM_I32: u8 = 0;
/// `WASM_I64`.
pub const WASM_I64: u8 = 1;
/// `WASM_F32`.
pub const WASM_F32: u8 = 2;
/// `WASM_F64`.
pub const WASM_F64: u8 = 3;
/// `WASM_V128` (Wasmtime's extension of `wasm.h`'s kinds).
pub const WASM_V128: u8 = 4;
/// `WASM_EXTERNREF`.
pub const WASM_EXTERNREF: u8 = 128;
/// `WASM_FUNCREF`.
pub const WASM_FUNCREF: u8 = 129;
/// `WEFT_WASM_ANYREF` (`weft/types/val.h`): the kind of the reference
/// types of the `any` hierarchy, for which `wasm.h` has none.
pub const WEFT_WASM_ANYREF: u8 = 130;
/// `WEFT_WASM_EXNREF` (`weft/types/val.h`): the kind of the reference
/// types of the `exn` hierarchy.
pub const WEFT_WASM_EXNREF: u8 = 131;

/// `wasm_valtype_t`.
#[derive(Clone)]
pub struct wasm_valtype_t {
    pub(crate) ty: ValType,
}

/// `wasm_limits_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct wasm_limits_t {
    /// The minimum.
    pub min: u32,
    /// The maximum (`0xffffffff`: none).
    pub max: u32,
}

/// A function type.
#[derive(Clone)]
pub struct CFuncType {
    pub(crate) params: wasm_valtype_vec_t,
    pub(crate) results: wasm_valtype_vec_t,
}

/// A global type.
#[derive(Clone)]
pub struct CGlobalType {
    pub(crate) content: Box<wasm_valtype_t>,
    pub(crate) mutability: u8,
}

/// A table type.
#[derive(Clone)]
pub struct CTableType {
    pub(crate) element: Box<wasm_valtype_t>,
    pub(crate) limits: wasm_limits_t,
    pub(crate) ty: Option<TableType>,
}

/// A memory type.
#[derive(Clone)]
pub struct CMemoryType {
    pub(crate) limits: wasm_limits_t,
    pub(crate) ty: MemoryType,
}

/// A tag type.
#[derive(Clone)]
pub struct CTagType {
    pub(crate) functype: Box<wasm_externtype_t>,
}

/// The kinds of extern type.
#[derive(Clone)]
pub enum CExternType {
    /// A function type.
    Func(CFuncType),
    /// A global type.
    Global(CGlobalType),
    /// A table type.
    Table(CTableType),
    /// A memory type.
    Memory(CMemoryType),
    /// A tag type.
    Tag(CTagType),
}

/// `wasm_externtype_t`, and the function, global, table, memory and tag
/// types that are one.
#[derive(Clone)]
pub struct wasm_externtype_t {
    pub(crate) which: CExternType,
}

/// `wasm_functype_t`.
pub type wasm_functype_t = wasm_externtype_t;
/// `wasm_globaltype_t`.
pub type wasm_globaltype_t = wasm_externtype_t;
/// `wasm_tabletype_t`.
pub type wasm_tabletype_t = wasm_externtype_t;
/// `wasm_memorytype_t`.
pub type wasm_memorytype_t = wasm_externtype_t;
/// `wasm_tagtype_t`.
pub type wasm_tagtype_t = wasm_externtype_t;

/// `wasm_importtype_t`.
#[derive(Clone)]
pub struct wasm_importtype_t {
    pub(crate) module: wasm_name_t,
    pub(crate) name: wasm_name_t,
    pub(crate) ty: Box<wasm_externtype_t>,
}

/// `wasm_exporttype_t`.
#[derive(Clone)]
pub struct wasm_exporttype_t {
    pub(crate) name: wasm_name_t,
    pub(crate) ty: Box<wasm_externtype_t>,
}

/// `wasm_valtype_vec_t`.
pub type wasm_valtype_vec_t = CVec<Option<Box<wasm_valtype_t>>>;
/// `wasm_functype_vec_t`.
pub type wasm_functype_vec_t = CVec<Option<Box<wasm_functype_t>>>;
/// `wasm_globaltype_vec_t`.
pub type wasm_globaltype_vec_t = CVec<Option<Box<wasm_globaltype_t>>>;
/// `wasm_tabletype_vec_t`.
pub type wasm_tabletype_vec_t = CVec<Option<Box<wasm_tabletype_t>>>;
/// `wasm_memorytype_vec_t`.
pub type wasm_memorytype_vec_t = CVec<Option<Box<wasm_memorytype_t>>>;
/// `wasm_tagtype_vec_t`.
pub type wasm_tagtype_vec_t = CVec<Option<Box<wasm_tagtype_t>>>;
/// `wasm_externtype_vec_t`.
pub type wasm_externtype_vec_t = CVec<Option<Box<wasm_externtype_t>>>;
/// `wasm_importtype_vec_t`.
pub type wasm_importtype_vec_t = CVec<Option<Box<wasm_importtype_t>>>;
/// `wasm_exporttype_vec_t`.
pub type wasm_exporttype_vec_t = CVec<Option<Box<wasm_exporttype_t>>>;

declare_vec!(
    wasm_valtype_vec_t,
    Option<Box<wasm_valtype_t>>,
    wasm_valtype_vec_new_empty,
    wasm_valtype_vec_new_uninitialized,
    wasm_valtype_vec_new,
    wasm_valtype_vec_copy,
    wasm_valtype_vec_delete
);
declare_vec!(
    wasm_functype_vec_t,
    Option<Box<wasm_functype_t>>,
    wasm_functype_vec_new_empty,
    wasm_functype_vec_new_uninitialized,
    wasm_functype_vec_new,
    wasm_functype_vec_copy,
    wasm_functype_vec_delete
);
declare_vec!(
    wasm_globaltype_vec_t,
    Option<Box<wasm_globaltype_t>>,
    wasm_globaltype_vec_new_empty,
    wasm_globaltype_vec_new_uninitialized,
    wasm_globaltype_vec_new,
    wasm_globaltype_vec_copy,
    wasm_globaltype_vec_delete
);
declare_vec!(
    wasm_tabletype_vec_t,
    Option<Box<wasm_tabletype_t>>,
    wasm_tabletype_vec_new_empty,
    wasm_tabletype_vec_new_uninitialized,
    wasm_tabletype_vec_new,
    wasm_tabletype_vec_copy,
    wasm_tabletype_vec_delete
);
declare_vec!(
    wasm_memorytype_vec_t,
    Option<Box<wasm_memorytype_t>>,
    wasm_memorytype_vec_new_empty,
    wasm_memorytype_vec_new_uninitialized,
    wasm_memorytype_vec_new,
    wasm_memorytype_vec_copy,
    wasm_memorytype_vec_delete
);
declare_vec!(
    wasm_tagtype_vec_t,
    Option<Box<wasm_tagtype_t>>,
    wasm_tagtype_vec_new_empty,
    wasm_tagtype_vec_new_uninitialized,
    wasm_tagtype_vec_new,
    wasm_tagtype_vec_copy,
    wasm_tagtype_vec_delete
);
declare_vec!(
    wasm_externtype_vec_t,
    Option<Box<wasm_externtype_t>>,
    wasm_externtype_vec_new_empty,
    wasm_externtype_vec_new_uninitialized,
    wasm_externtype_vec_new,
    wasm_externtype_vec_copy,
    wasm_externtype_vec_delete
);
declare_vec!(
    wasm_importtype_vec_t,
    Option<Box<wasm_importtype_t>>,
    wasm_importtype_vec_new_empty,
    wasm_importtype_vec_new_uninitialized,
    wasm_importtype_vec_new,
    wasm_importtype_vec_copy,
    wasm_importtype_vec_delete
);
declare_vec!(
    wasm_exporttype_vec_t,
    Option<Box<wasm_exporttype_t>>,
    wasm_exporttype_vec_new_empty,
    wasm_exporttype_vec_new_uninitialized,
    wasm_exporttype_vec_new,
    wasm_exporttype_vec_copy,
    wasm_exporttype_vec_delete
);

/// The `wasm_valkind_t` of a value type: `wasm.h`'s kinds, with `v128`
/// as Wasmtime's `WASM_V128`, and Weft's reference kinds (above
/// `WASM_FUNCREF`, so `wasm_valkind_is_ref` holds) for the `any` and `exn`
/// hierarchies, which `wasm.h` cannot name (Wasmtime aborts on them). The
/// kind says nothing of nullability or concrete types.
pub(crate) fn valkind_of(ty: &ValType) -> u8 {
    match ty {
        ValType::I32 => WASM_I32,
        ValType::I64 => WASM_I64,
        ValType::F32 => WASM_F32,
        ValType::F64 => WASM_F64,
        ValType::V128 => WASM_V128,
        ValType::Ref(r) => {
            let h = r.heap_type();
            if h.is_extern() {
                WASM_EXTERNREF
            } else if h.is_exn() {
                WEFT_WASM_EXNREF
            } else if h.is_func() {
                WASM_FUNCREF
            } else {
                WEFT_WASM_ANYREF
            }
        }
    }
}

/// The value type of a `wasm_valkind_t`.
pub(crate) fn valtype_of_kind(kind: u8) -> Option<ValType> {
    Some(match kind {
        WASM_I32 => ValType::I32,
        WASM_I64 => ValType::I64,
        WASM_F32 => ValType::F32,
        WASM_F64 => ValType::F64,
        WASM_V128 => ValType::V128,
        WASM_EXTERNREF => ValType::EXTERNREF,
        WASM_FUNCREF => ValType::FUNCREF,
        WEFT_WASM_ANYREF => ValType::Ref(weft::RefType::new(true, HeapType::Any)),
        WEFT_WASM_EXNREF => ValType::Ref(weft::RefType::new(true, HeapType::Exn)),
        _ => return None,
    })
}

impl CFuncType {
    /// The C form of `ty`.
    pub(crate) fn new(ty: &FuncType) -> CFuncType {
        let vt = |t: ValType| Some(Box::new(wasm_valtype_t { ty: t }));
        CFuncType {
            params: CVec::from_vec(ty.params().map(vt).collect()),
            results: CVec::from_vec(ty.results().map(vt).collect()),
        }
    }

    /// The parameter types.
    pub(crate) fn params(&self) -> anyhow::Result<Vec<ValType>> {
        valtypes(&self.params)
    }

    /// The result types.
    pub(crate) fn results(&self) -> anyhow::Result<Vec<ValType>> {
        valtypes(&self.results)
    }

    /// The Weft function type, registered with `engine`.
    pub(crate) fn to_weft(&self, engine: &weft::Engine) -> anyhow::Result<FuncType> {
        Ok(FuncType::new(engine, self.params()?, self.results()?))
    }
}

/// The types of a valtype vector (an error for a null element).
fn valtypes(v: &wasm_valtype_vec_t) -> anyhow::Result<Vec<ValType>> {
    v.as_slice()
        .iter()
        .map(|t| {
            t.as_ref()
                .map(|t| t.ty.clone())
                .ok_or_else(|| crate::null_error("valtype"))
        })
        .collect()
}

/// Limits from optional 64-bit bounds (saturated to 32 bits).
fn limits(min: u64, max: Option<u64>) -> wasm_limits_t {
    wasm_limits_t {
        min: min.min(u32::MAX as u64) as u32,
        max: max.map_or(u32::MAX, |m| m.min(u32::MAX as u64) as u32),
    }
}

impl wasm_externtype_t {
    /// The C form of `ty`.
    pub(crate) fn new(ty: &ExternType) -> wasm_externtype_t {
        let which = match ty {
            ExternType::Func(f) => CExternType::Func(CFuncType::new(f)),
            ExternType::Global(g) => CExternType::Global(CGlobalType {
                content: Box::new(wasm_valtype_t {
                    ty: g.content().clone(),
                }),
                mutability: g.is_mutable() as u8,
            }),
            ExternType::Table(t) => CExternType::Table(CTableType {
                element: Box::new(wasm_valtype_t {
                    ty: ValType::Ref(t.element().clone()),
                }),
                limits: limits(t.minimum(), t.maximum()),
                ty: Some(t.clone()),
            }),
            ExternType::Memory(m) => CExternType::Memory(CMemoryType {
                limits: limits(m.minimum(), m.maximum()),
                ty: m.clone(),
            }),
            ExternType::Tag(t) => CExternType::Tag(CTagType {
                functype: Box::new(wasm_externtype_t {
                    which: CExternType::Func(CFuncType::new(t.ty())),
                }),
            }),
        };
        wasm_externtype_t { which }
    }

    /// The function type, if this is one.
    pub(crate) fn func(&self) -> Option<&CFuncType> {
        match &self.which {
            CExternType::Func(f) => Some(f),
            _ => None,
        }
    }

    /// The global type, if this is one.
    pub(crate) fn global(&self) -> Option<&CGlobalType> {
        match &self.which {
            CExternType::Global(g) => Some(g),
            _ => None,
        }
    }

    /// The table type, if this is one.
    pub(crate) fn table(&self) -> Option<&CTableType> {
        match &self.which {
            CExternType::Table(t) => Some(t),
            _ => None,
        }
    }

    /// The memory type, if this is one.
    pub(crate) fn memory(&self) -> Option<&CMemoryType> {
        match &self.which {
            CExternType::Memory(m) => Some(m),
            _ => None,
        }
    }

    /// The tag type, if this is one.
    pub(crate) fn tag(&self) -> Option<&CTagType> {
        match &self.which {
            CExternType::Tag(t) => Some(t),
            _ => None,
        }
    }
}

impl CGlobalType {
    /// The Weft global type.
    pub(crate) fn to_weft(&self) -> GlobalType {
        let m = if self.mutability == 1 {
            Mutability::Var
        } else {
            Mutability::Const
        };
        GlobalType::new(self.content.ty.clone(), m)
    }
}

impl CTableType {
    /// The Weft table type.
    pub(crate) fn to_weft(&self) -> anyhow::Result<TableType> {
        if let Some(t) = &self.ty {
            return Ok(t.clone());
        }
        let ValType::Ref(r) = &self.element.ty else {
            anyhow::bail!("table elements must be references");
        };
        let max = (self.limits.max != u32::MAX).then_some(self.limits.max);
        Ok(TableType::new(r.clone(), self.limits.min, max))
    }
}

/// A new value type of kind `kind` (null for an unknown kind).
#[no_mangle]
pub extern "C" fn wasm_valtype_new(kind: wasm_valkind_t) -> Option<Box<wasm_valtype_t>> {
    guard(
        || None,
        || valtype_of_kind(kind).map(|ty| Box::new(wasm_valtype_t { ty })),
    )
}

/// The kind of a value type.
#[no_mangle]
pub extern "C" fn wasm_valtype_kind(ty: Option<&wasm_valtype_t>) -> wasm_valkind_t {
    ty.map_or(WASM_I32, |t| valkind_of(&t.ty))
}

/// Deletes a value type.
#[no_mangle]
pub extern "C" fn wasm_valtype_delete(ty: Option<Box<wasm_valtype_t>>) {
    guard(|| (), || drop(ty))
}

/// A copy of a value type.
#[no_mangle]
pub extern "C" fn wasm_valtype_copy(ty: Option<&wasm_valtype_t>) -> Option<Box<wasm_valtype_t>> {
    guard(|| None, || ty.map(|t| Box::new(t.clone())))
}

/// A new function type, taking the contents of `params` and `results`.
#[no_mangle]
pub extern "C" fn wasm_functype_new(
    params: Option<&mut wasm_valtype_vec_t>,
    results: Option<&mut wasm_valtype_vec_t>,
) -> Option<Box<wasm_functype_t>> {
    guard(
        || None,
        || {
            let params = CVec::from_vec(params?.take());
            let results = CVec::from_vec(results?.take());
            Some(Box::new(wasm_externtype_t {
                which: CExternType::Func(CFuncType { params, results }),
            }))
        },
    )
}

/// The parameter types (owned by the function type).
#[no_mangle]
pub extern "C" fn wasm_functype_params(ty: Option<&wasm_functype_t>) -> *const wasm_valtype_vec_t {
    match ty.and_then(|t| t.func()) {
        Some(f) => &f.params,
        None => std::ptr::null(),
    }
}

/// The result types (owned by the function type).
#[no_mangle]
pub extern "C" fn wasm_functype_results(ty: Option<&wasm_functype_t>) -> *const wasm_valtype_vec_t {
    match ty.and_then(|t| t.func()) {
        Some(f) => &f.results,
        None => std::ptr::null(),
    }
}

/// A new global type, taking `content`.
#[no_mangle]
pub extern "C" fn wasm_globaltype_new(
    content: Option<Box<wasm_valtype_t>>,
    mutability: u8,
) -> Option<Box<wasm_globaltype_t>> {
    guard(
        || None,
        || {
            if mutability > 1 {
                return None;
            }
            Some(Box::new(wasm_externtype_t {
                which: CExternType::Global(CGlobalType {
                    content: content?,
                    mutability,
                }),
            }))
        },
    )
}

/// The type of the global's value (owned by the global type).
#[no_mangle]
pub extern "C" fn wasm_globaltype_content(ty: Option<&wasm_globaltype_t>) -> *const wasm_valtype_t {
    match ty.and_then(|t| t.global()) {
        Some(g) => &*g.content,
        None => std::ptr::null(),
    }
}

/// Whether the global is mutable (`WASM_VAR`) or not (`WASM_CONST`).
#[no_mangle]
pub extern "C" fn wasm_globaltype_mutability(ty: Option<&wasm_globaltype_t>) -> u8 {
    ty.and_then(|t| t.global()).map_or(0, |g| g.mutability)
}

/// A new table type, taking `element`.
#[no_mangle]
pub extern "C" fn wasm_tabletype_new(
    element: Option<Box<wasm_valtype_t>>,
    limits: Option<&wasm_limits_t>,
) -> Option<Box<wasm_tabletype_t>> {
    guard(
        || None,
        || {
            let element = element?;
            if !element.ty.is_ref() {
                return None;
            }
            Some(Box::new(wasm_externtype_t {
                which: CExternType::Table(CTableType {
                    element,
                    limits: *limits?,
                    ty: None,
                }),
            }))
        },
    )
}

/// The element type (owned by the table type).
#[no_mangle]
pub extern "C" fn wasm_tabletype_element(ty: Option<&wasm_tabletype_t>) -> *const wasm_valtype_t {
    match ty.and_then(|t| t.table()) {
        Some(t) => &*t.element,
        None => std::ptr::null(),
    }
}

/// The limits (owned by the table type).
#[no_mangle]
pub extern "C" fn wasm_tabletype_limits(ty: Option<&wasm_tabletype_t>) -> *const wasm_limits_t {
    match ty.and_then(|t| t.table()) {
        Some(t) => &t.limits,
        None => std::ptr::null(),
    }
}

/// A new memory type.
#[no_mangle]
pub extern "C" fn wasm_memorytype_new(limits: Option<&wasm_limits_t>) -> Option<Box<wasm_memorytype_t>> {
    guard(
        || None,
        || {
            let l = *limits?;
            let max = (l.max != u32::MAX).then_some(l.max);
            Some(Box::new(wasm_externtype_t {
                which: CExternType::Memory(CMemoryType {
                    limits: l,
                    ty: MemoryType::new(l.min, max),
                }),
            }))
        },
    )
}

/// The limits (owned by the memory type).
#[no_mangle]
pub extern "C" fn wasm_memorytype_limits(ty: Option<&wasm_memorytype_t>) -> *const wasm_limits_t {
    match ty.and_then(|t| t.memory()) {
        Some(m) => &m.limits,
        None => std::ptr::null(),
    }
}

/// A new memory type with 64-bit limits (`weft/memory.h`): shared (with a
/// maximum) and with pages of 1 or 65536 bytes as the builder checks.
#[no_mangle]
pub extern "C" fn weft_memorytype_new(
    min: u64,
    max_present: bool,
    max: u64,
    is_64: bool,
    shared: bool,
    page_size_log2: u8,
    ret: Option<&mut MaybeUninit<Option<Box<wasm_memorytype_t>>>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let max = max_present.then_some(max);
        let ty = weft::MemoryTypeBuilder::new()
            .min(min)
            .max(max)
            .memory64(is_64)
            .shared(shared)
            .page_size_log2(page_size_log2)
            .build()?;
        let ret = ret.ok_or_else(|| crate::null_error("ret"))?;
        ret.write(Some(Box::new(wasm_externtype_t {
            which: CExternType::Memory(CMemoryType {
                limits: limits(min, max),
                ty,
            }),
        })));
        Ok(())
    })
}

/// The minimum size in pages.
#[no_mangle]
pub extern "C" fn weft_memorytype_minimum(ty: Option<&wasm_memorytype_t>) -> u64 {
    ty.and_then(|t| t.memory()).map_or(0, |m| m.ty.minimum())
}

/// The maximum size in pages, if any.
#[no_mangle]
pub extern "C" fn weft_memorytype_maximum(ty: Option<&wasm_memorytype_t>, max: Option<&mut u64>) -> bool {
    match ty.and_then(|t| t.memory()).and_then(|m| m.ty.maximum()) {
        Some(m) => {
            if let Some(out) = max {
                *out = m;
            }
            true
        }
        None => false,
    }
}

/// Whether the memory is 64-bit.
#[no_mangle]
pub extern "C" fn weft_memorytype_is64(ty: Option<&wasm_memorytype_t>) -> bool {
    ty.and_then(|t| t.memory()).is_some_and(|m| m.ty.is_64())
}

/// Whether the memory is shared.
#[no_mangle]
pub extern "C" fn weft_memorytype_isshared(ty: Option<&wasm_memorytype_t>) -> bool {
    ty.and_then(|t| t.memory()).is_some_and(|m| m.ty.is_shared())
}

/// The page size in bytes.
#[no_mangle]
pub extern "C" fn weft_memorytype_page_size(ty: Option<&wasm_memorytype_t>) -> u64 {
    ty.and_then(|t| t.memory()).map_or(65536, |m| m.ty.page_size())
}

/// The base-2 logarithm of the page size.
#[no_mangle]
pub extern "C" fn weft_memorytype_page_size_log2(ty: Option<&wasm_memorytype_t>) -> u8 {
    weft_memorytype_page_size(ty).trailing_zeros() as u8
}

/// A new tag type, taking `functype`.
#[no_mangle]
pub extern "C" fn wasm_tagtype_new(functype: Option<Box<wasm_functype_t>>) -> Option<Box<wasm_tagtype_t>> {
    guard(
        || None,
        || {
            let f = functype?;
            f.func()?;
            Some(Box::new(wasm_externtype_t {
                which: CExternType::Tag(CTagType { functype: f }),
            }))
        },
    )
}

/// The function type of a tag type (owned by the tag type).
#[no_mangle]
pub extern "C" fn wasm_tagtype_functype(ty: Option<&wasm_tagtype_t>) -> *const wasm_functype_t {
    match ty.and_then(|t| t.tag()) {
        Some(t) => &*t.functype,
        None => std::ptr::null(),
    }
}

/// The kind of an extern type.
#[no_mangle]
pub extern "C" fn wasm_externtype_kind(ty: Option<&wasm_externtype_t>) -> u8 {
    match ty.map(|t| &t.which) {
        Some(CExternType::Global(_)) => 1,
        Some(CExternType::Table(_)) => 2,
        Some(CExternType::Memory(_)) => 3,
        Some(CExternType::Tag(_)) => 4,
        _ => 0,
    }
}

/// Declares a type's delete and copy functions and its conversions to and
/// from `wasm_externtype_t`.
macro_rules! declare_externtype {
    ($name:literal, $check:ident, $delete:ident, $copy:ident,
     $as_ext:ident, $as_ext_const:ident, $ext_as:ident, $ext_as_const:ident) => {
        #[doc = concat!("Deletes a `wasm_", $name, "_t`.")]
        #[no_mangle]
        pub extern "C" fn $delete(ty: Option<Box<wasm_externtype_t>>) {
            guard(|| (), || drop(ty))
        }

        #[doc = concat!("A copy of a `wasm_", $name, "_t`.")]
        #[no_mangle]
        pub extern "C" fn $copy(ty: Option<&wasm_externtype_t>) -> Option<Box<wasm_externtype_t>> {
            guard(|| None, || ty.map(|t| Box::new(t.clone())))
        }

        #[doc = concat!("The `wasm_", $name, "_t` as an extern type (the same pointer).")]
        #[no_mangle]
        pub extern "C" fn $as_ext(ty: *mut wasm_externtype_t) -> *mut wasm_externtype_t {
            ty
        }

        #[doc = concat!("The `wasm_", $name, "_t` as an extern type (the same pointer).")]
        #[no_mangle]
        pub extern "C" fn $as_ext_const(ty: *const wasm_externtype_t) -> *const wasm_externtype_t {
            ty
        }

        #[doc = concat!("The extern type as a `wasm_", $name, "_t` (null if it is not one).")]
        #[no_mangle]
        pub extern "C" fn $ext_as(ty: Option<&mut wasm_externtype_t>) -> *mut wasm_externtype_t {
            match ty {
                Some(t) if t.$check().is_some() => t,
                _ => std::ptr::null_mut(),
            }
        }

        #[doc = concat!("The extern type as a `wasm_", $name, "_t` (null if it is not one).")]
        #[no_mangle]
        pub extern "C" fn $ext_as_const(ty: Option<&wasm_externtype_t>) -> *const wasm_externtype_t {
            match ty {
                Some(t) if t.$check().is_some() => t,
                _ => std::ptr::null(),
            }
        }
    };
}

declare_externtype!(
    "functype",
    func,
    wasm_functype_delete,
    wasm_functype_copy,
    wasm_functype_as_externtype,
    wasm_functype_as_externtype_const,
    wasm_externtype_as_functype,
    wasm_externtype_as_functype_const
);
declare_externtype!(
    "globaltype",
    global,
    wasm_globaltype_delete,
    wasm_globaltype_copy,
    wasm_globaltype_as_externtype,
    wasm_globaltype_as_externtype_const,
    wasm_externtype_as_globaltype,
    wasm_externtype_as_globaltype_const
);
declare_externtype!(
    "tabletype",
    table,
    wasm_tabletype_delete,
    wasm_tabletype_copy,
    wasm_tabletype_as_externtype,
    wasm_tabletype_as_externtype_const,
    wasm_externtype_as_tabletype,
    wasm_externtype_as_tabletype_const
);
declare_externtype!(
    "memorytype",
    memory,
    wasm_memorytype_delete,
    wasm_memorytype_copy,
    wasm_memorytype_as_externtype,
    wasm_memorytype_as_externtype_const,
    wasm_externtype_as_memorytype,
    wasm_externtype_as_memorytype_const
);
declare_externtype!(
    "tagtype",
    tag,
    wasm_tagtype_delete,
    wasm_tagtype_copy,
    wasm_tagtype_as_externtype,
    wasm_tagtype_as_externtype_const,
    wasm_externtype_as_tagtype,
    wasm_externtype_as_tagtype_const
);

/// Deletes an extern type.
#[no_mangle]
pub extern "C" fn wasm_externtype_delete(ty: Option<Box<wasm_externtype_t>>) {
    guard(|| (), || drop(ty))
}

/// A copy of an extern type.
#[no_mangle]
pub extern "C" fn wasm_externtype_copy(ty: Option<&wasm_externtype_t>) -> Option<Box<wasm_externtype_t>> {
    guard(|| None, || ty.map(|t| Box::new(t.clone())))
}

/// A new import type, taking the names and the type.
#[no_mangle]
pub extern "C" fn wasm_importtype_new(
    module: Option<&mut wasm_name_t>,
    name: Option<&mut wasm_name_t>,
    ty: Option<Box<wasm_externtype_t>>,
) -> Option<Box<wasm_importtype_t>> {
    guard(
        || None,
        || {
            Some(Box::new(wasm_importtype_t {
                module: CVec::from_vec(module?.take()),
                name: CVec::from_vec(name?.take()),
                ty: ty?,
            }))
        },
    )
}

/// The import's module name (owned by the import type).
#[no_mangle]
pub extern "C" fn wasm_importtype_module(ty: Option<&wasm_importtype_t>) -> *const wasm_name_t {
    ty.map_or(std::ptr::null(), |t| &t.module)
}

/// The import's name (owned by the import type).
#[no_mangle]
pub extern "C" fn wasm_importtype_name(ty: Option<&wasm_importtype_t>) -> *const wasm_name_t {
    ty.map_or(std::ptr::null(), |t| &t.name)
}

/// The import's type (owned by the import type).
#[no_mangle]
pub extern "C" fn wasm_importtype_type(ty: Option<&wasm_importtype_t>) -> *const wasm_externtype_t {
    ty.map_or(std::ptr::null(), |t| &*t.ty)
}

/// Deletes an import type.
#[no_mangle]
pub extern "C" fn wasm_importtype_delete(ty: Option<Box<wasm_importtype_t>>) {
    guard(|| (), || drop(ty))
}

/// A copy of an import type.
#[no_mangle]
pub extern "C" fn wasm_importtype_copy(ty: Option<&wasm_importtype_t>) -> Option<Box<wasm_importtype_t>> {
    guard(|| None, || ty.map(|t| Box::new(t.clone())))
}

/// A new export type, taking the name and the type.
#[no_mangle]
pub extern "C" fn wasm_exporttype_new(
    name: Option<&mut wasm_name_t>,
    ty: Option<Box<wasm_externtype_t>>,
) -> Option<Box<wasm_exporttype_t>> {
    guard(
        || None,
        || {
            Some(Box::new(wasm_exporttype_t {
                name: CVec::from_vec(name?.take()),
                ty: ty?,
            }))
        },
    )
}

/// The export's name (owned by the export type).
#[no_mangle]
pub extern "C" fn wasm_exporttype_name(ty: Option<&wasm_exporttype_t>) -> *const wasm_name_t {
    ty.map_or(std::ptr::null(), |t| &t.name)
}

/// The export's type (owned by the export type).
#[no_mangle]
pub extern "C" fn wasm_exporttype_type(ty: Option<&wasm_exporttype_t>) -> *const wasm_externtype_t {
    ty.map_or(std::ptr::null(), |t| &*t.ty)
}

/// Deletes an export type.
#[no_mangle]
pub extern "C" fn wasm_exporttype_delete(ty: Option<Box<wasm_exporttype_t>>) {
    guard(|| (), || drop(ty))
}

/// A copy of an export type.
#[no_mangle]
pub extern "C" fn wasm_exporttype_copy(ty: Option<&wasm_exporttype_t>) -> Option<Box<wasm_exporttype_t>> {
    guard(|| None, || ty.map(|t| Box::new(t.clone())))
}

/// The import types of a Weft module.
pub(crate) fn module_imports(m: &weft::Module) -> wasm_importtype_vec_t {
    CVec::from_vec(
        m.imports()
            .map(|i| {
                Some(Box::new(wasm_importtype_t {
                    module: name_from_str(i.module()),
                    name: name_from_str(i.name()),
                    ty: Box::new(wasm_externtype_t::new(&i.ty())),
                }))
            })
            .collect(),
    )
}

/// The export types of a Weft module.
pub(crate) fn module_exports(m: &weft::Module) -> wasm_exporttype_vec_t {
    CVec::from_vec(
        m.exports()
            .map(|e| {
                Some(Box::new(wasm_exporttype_t {
                    name: name_from_str(e.name()),
                    ty: Box::new(wasm_externtype_t::new(&e.ty())),
                }))
            })
            .collect(),
    )
}

/// The Weft tag type of a C tag type, registered with `engine`.
pub(crate) fn tag_type(t: &CTagType, engine: &weft::Engine) -> anyhow::Result<TagType> {
    let f = t
        .functype
        .func()
        .ok_or_else(|| anyhow::anyhow!("not a function type"))?;
    Ok(TagType::new(f.to_weft(engine)?))
}
