//! `weft/types/*.h`: heap, reference and value types of the full type
//! system (`weft_heaptype_t`, `weft_reftype_t`, `weft_valtype_t`), and the
//! GC proposal's storage, field, struct and array types and the exception
//! types (`weft_exn_type_t`).
//!
//! Struct and array types are `weft::StructType`/`weft::ArrayType`,
//! registered in an engine. Weft's `weft::HeapType` has no concrete struct,
//! array or exception types: converting a `weft_heaptype_t` of kind
//! `CONCRETE_STRUCT`, `CONCRETE_ARRAY` or `CONCRETE_EXN` to a
//! `wasm_valtype_t` gives the abstract `struct`, `array` or `exn` (which is
//! what the facade sees such types as), while reflecting a reference
//! (`weft_anyref_type`, `weft_structref_type`, ...) gives the concrete
//! type.

use crate::config::wasm_engine_t;
use crate::error::{catch_err, weft_error_t};
use crate::guard;
use crate::types::{wasm_externtype_t, wasm_functype_t, wasm_tagtype_t, wasm_valtype_t, wasm_valtype_vec_t};
use std::ffi::c_void;
use std::mem::MaybeUninit;
use weft::{
    ArrayType, ExternType, FieldType, FuncType, HeapType, Mutability, RefType, StorageType, StructType, TagType,
    ValType,
};

/// `weft_heaptype_kind_t` values.
pub const WEFT_HEAPTYPE_KIND_EXTERN: u8 = 0;
/// `noextern`.
pub const WEFT_HEAPTYPE_KIND_NOEXTERN: u8 = 1;
/// `func`.
pub const WEFT_HEAPTYPE_KIND_FUNC: u8 = 2;
/// A concrete function type.
pub const WEFT_HEAPTYPE_KIND_CONCRETE_FUNC: u8 = 3;
/// `nofunc`.
pub const WEFT_HEAPTYPE_KIND_NOFUNC: u8 = 4;
/// `any`.
pub const WEFT_HEAPTYPE_KIND_ANY: u8 = 5;
/// `none`.
pub const WEFT_HEAPTYPE_KIND_NONE: u8 = 6;
/// `eq`.
pub const WEFT_HEAPTYPE_KIND_EQ: u8 = 7;
/// `i31`.
pub const WEFT_HEAPTYPE_KIND_I31: u8 = 8;
/// `array`.
pub const WEFT_HEAPTYPE_KIND_ARRAY: u8 = 9;
/// A concrete array type.
pub const WEFT_HEAPTYPE_KIND_CONCRETE_ARRAY: u8 = 10;
/// `struct`.
pub const WEFT_HEAPTYPE_KIND_STRUCT: u8 = 11;
/// A concrete struct type.
pub const WEFT_HEAPTYPE_KIND_CONCRETE_STRUCT: u8 = 12;
/// `exn`.
pub const WEFT_HEAPTYPE_KIND_EXN: u8 = 13;
/// A concrete exception type.
pub const WEFT_HEAPTYPE_KIND_CONCRETE_EXN: u8 = 14;
/// `noexn`.
pub const WEFT_HEAPTYPE_KIND_NOEXN: u8 = 15;

/// `weft_valtype_kind_t`: `i32`.
pub const WEFT_VALTYPE_KIND_I32: u8 = 0;
/// `i64`.
pub const WEFT_VALTYPE_KIND_I64: u8 = 1;
/// `f32`.
pub const WEFT_VALTYPE_KIND_F32: u8 = 2;
/// `f64`.
pub const WEFT_VALTYPE_KIND_F64: u8 = 3;
/// `v128`.
pub const WEFT_VALTYPE_KIND_V128: u8 = 4;
/// A reference type.
pub const WEFT_VALTYPE_KIND_REF: u8 = 5;

/// `weft_storage_type_kind_t`: `i8`.
pub const WEFT_STORAGE_TYPE_KIND_I8: u8 = 0;
/// `i16`.
pub const WEFT_STORAGE_TYPE_KIND_I16: u8 = 1;
/// A value type.
pub const WEFT_STORAGE_TYPE_KIND_VALTYPE: u8 = 2;

/// `weft_struct_type_t`: a struct type registered in an engine.
#[derive(Clone)]
pub struct weft_struct_type_t {
    pub(crate) ty: StructType,
}

/// `weft_array_type_t`: an array type registered in an engine.
#[derive(Clone)]
pub struct weft_array_type_t {
    pub(crate) ty: ArrayType,
}

/// `weft_exn_type_t`: the type of an exception, its tag's payload.
#[derive(Clone)]
pub struct weft_exn_type_t {
    pub(crate) ty: TagType,
}

/// `weft_heaptype_t`: a kind and, for the concrete kinds, an owned type
/// (`wasm_functype_t`, `weft_array_type_t`, `weft_struct_type_t` or
/// `weft_exn_type_t`, by kind; the union of pointers of the header).
#[repr(C)]
pub struct weft_heaptype_t {
    /// `WEFT_HEAPTYPE_KIND_*`.
    pub kind: u8,
    /// The concrete type (owned), or null.
    pub of: *mut c_void,
}

/// `weft_reftype_t`.
#[repr(C)]
pub struct weft_reftype_t {
    /// Whether `null` is a value of the type.
    pub nullable: bool,
    /// The heap type.
    pub heaptype: weft_heaptype_t,
}

/// `weft_valtype_t`.
#[repr(C)]
pub struct weft_valtype_t {
    /// `WEFT_VALTYPE_KIND_*`.
    pub kind: u8,
    /// The reference type (for `WEFT_VALTYPE_KIND_REF` only).
    pub reftype: weft_reftype_t,
}

/// `weft_storage_type_t`.
#[repr(C)]
pub struct weft_storage_type_t {
    /// `WEFT_STORAGE_TYPE_KIND_*`.
    pub kind: u8,
    /// The value type (owned), for `WEFT_STORAGE_TYPE_KIND_VALTYPE`.
    pub valtype: Option<Box<wasm_valtype_t>>,
}

/// `weft_field_type_t`.
#[repr(C)]
pub struct weft_field_type_t {
    /// Whether the field may be changed.
    pub mutable_: bool,
    /// What it stores.
    pub storage: weft_storage_type_t,
}

const NULL_HEAPTYPE: weft_heaptype_t = weft_heaptype_t {
    kind: WEFT_HEAPTYPE_KIND_ANY,
    of: std::ptr::null_mut(),
};

/// The C heap type of a concrete struct type.
pub(crate) fn heaptype_of_struct(ty: StructType) -> weft_heaptype_t {
    weft_heaptype_t {
        kind: WEFT_HEAPTYPE_KIND_CONCRETE_STRUCT,
        of: Box::into_raw(Box::new(weft_struct_type_t { ty })).cast(),
    }
}

/// The C heap type of a concrete array type.
pub(crate) fn heaptype_of_array(ty: ArrayType) -> weft_heaptype_t {
    weft_heaptype_t {
        kind: WEFT_HEAPTYPE_KIND_CONCRETE_ARRAY,
        of: Box::into_raw(Box::new(weft_array_type_t { ty })).cast(),
    }
}

/// The C heap type of a plain heap type kind.
pub(crate) fn heaptype_of_kind(kind: u8) -> weft_heaptype_t {
    weft_heaptype_t {
        kind,
        of: std::ptr::null_mut(),
    }
}

/// The C heap type of a Weft heap type.
pub(crate) fn heaptype_of(h: &HeapType) -> weft_heaptype_t {
    let kind = match h {
        HeapType::Func => WEFT_HEAPTYPE_KIND_FUNC,
        HeapType::Extern => WEFT_HEAPTYPE_KIND_EXTERN,
        HeapType::NoFunc => WEFT_HEAPTYPE_KIND_NOFUNC,
        HeapType::NoExtern => WEFT_HEAPTYPE_KIND_NOEXTERN,
        HeapType::Exn => WEFT_HEAPTYPE_KIND_EXN,
        HeapType::NoExn => WEFT_HEAPTYPE_KIND_NOEXN,
        HeapType::Any => WEFT_HEAPTYPE_KIND_ANY,
        HeapType::Eq => WEFT_HEAPTYPE_KIND_EQ,
        HeapType::I31 => WEFT_HEAPTYPE_KIND_I31,
        HeapType::Struct => WEFT_HEAPTYPE_KIND_STRUCT,
        HeapType::Array => WEFT_HEAPTYPE_KIND_ARRAY,
        HeapType::None => WEFT_HEAPTYPE_KIND_NONE,
        HeapType::ConcreteFunc(ft) => {
            return weft_heaptype_t {
                kind: WEFT_HEAPTYPE_KIND_CONCRETE_FUNC,
                of: Box::into_raw(Box::new(wasm_externtype_t::new(&ExternType::Func(ft.clone())))).cast(),
            }
        }
        HeapType::ConcreteStruct(st) => return heaptype_of_struct(st.clone()),
        HeapType::ConcreteArray(at) => return heaptype_of_array(at.clone()),
    };
    heaptype_of_kind(kind)
}

/// The Weft heap type of a C heap type (concrete exception types become
/// `exn`: see the module documentation).
fn heaptype_to_weft(h: &weft_heaptype_t, engine: &weft::Engine) -> anyhow::Result<HeapType> {
    Ok(match h.kind {
        WEFT_HEAPTYPE_KIND_EXTERN => HeapType::Extern,
        WEFT_HEAPTYPE_KIND_NOEXTERN => HeapType::NoExtern,
        WEFT_HEAPTYPE_KIND_FUNC => HeapType::Func,
        WEFT_HEAPTYPE_KIND_CONCRETE_FUNC => {
            // SAFETY: a concrete function heap type holds a live
            // `wasm_functype_t` (the header's contract).
            let ft = unsafe { h.of.cast::<wasm_functype_t>().as_ref() }
                .and_then(|t| t.func())
                .ok_or_else(|| anyhow::anyhow!("concrete function heap type without a function type"))?;
            HeapType::ConcreteFunc(ft.to_weft(engine)?)
        }
        WEFT_HEAPTYPE_KIND_NOFUNC => HeapType::NoFunc,
        WEFT_HEAPTYPE_KIND_ANY => HeapType::Any,
        WEFT_HEAPTYPE_KIND_NONE => HeapType::None,
        WEFT_HEAPTYPE_KIND_EQ => HeapType::Eq,
        WEFT_HEAPTYPE_KIND_I31 => HeapType::I31,
        WEFT_HEAPTYPE_KIND_ARRAY => HeapType::Array,
        WEFT_HEAPTYPE_KIND_STRUCT => HeapType::Struct,
        WEFT_HEAPTYPE_KIND_CONCRETE_STRUCT => {
            // SAFETY: a concrete struct heap type holds a live
            // `weft_struct_type_t` (the header's contract).
            let st = unsafe { h.of.cast::<weft_struct_type_t>().as_ref() }
                .ok_or_else(|| anyhow::anyhow!("concrete struct heap type without a struct type"))?;
            HeapType::ConcreteStruct(st.ty.clone())
        }
        WEFT_HEAPTYPE_KIND_CONCRETE_ARRAY => {
            // SAFETY: a concrete array heap type holds a live
            // `weft_array_type_t` (the header's contract).
            let at = unsafe { h.of.cast::<weft_array_type_t>().as_ref() }
                .ok_or_else(|| anyhow::anyhow!("concrete array heap type without an array type"))?;
            HeapType::ConcreteArray(at.ty.clone())
        }
        WEFT_HEAPTYPE_KIND_EXN | WEFT_HEAPTYPE_KIND_CONCRETE_EXN => HeapType::Exn,
        WEFT_HEAPTYPE_KIND_NOEXN => HeapType::NoExn,
        k => anyhow::bail!("unknown heap type kind {k}"),
    })
}

/// A copy of `h` (its concrete type cloned).
fn heaptype_clone(h: &weft_heaptype_t) -> weft_heaptype_t {
    if h.of.is_null() {
        return heaptype_of_kind(h.kind);
    }
    // SAFETY: a non-null `of` is the owned type its kind names (the
    // header's contract).
    unsafe {
        match h.kind {
            WEFT_HEAPTYPE_KIND_CONCRETE_FUNC => {
                let t = (*h.of.cast::<wasm_externtype_t>()).clone();
                weft_heaptype_t {
                    kind: h.kind,
                    of: Box::into_raw(Box::new(t)).cast(),
                }
            }
            WEFT_HEAPTYPE_KIND_CONCRETE_STRUCT => heaptype_of_struct((*h.of.cast::<weft_struct_type_t>()).ty.clone()),
            WEFT_HEAPTYPE_KIND_CONCRETE_ARRAY => heaptype_of_array((*h.of.cast::<weft_array_type_t>()).ty.clone()),
            WEFT_HEAPTYPE_KIND_CONCRETE_EXN => weft_heaptype_t {
                kind: h.kind,
                of: Box::into_raw(Box::new((*h.of.cast::<weft_exn_type_t>()).clone())).cast(),
            },
            _ => heaptype_of_kind(h.kind),
        }
    }
}

/// Frees the concrete type of `h`, leaving it abstract.
fn heaptype_free(h: &mut weft_heaptype_t) {
    let of = std::mem::replace(&mut h.of, std::ptr::null_mut());
    if of.is_null() {
        return;
    }
    // SAFETY: a non-null `of` is the owned `Box` its kind names (the
    // header's contract), freed once: the field was cleared above.
    unsafe {
        match h.kind {
            WEFT_HEAPTYPE_KIND_CONCRETE_FUNC => drop(Box::from_raw(of.cast::<wasm_externtype_t>())),
            WEFT_HEAPTYPE_KIND_CONCRETE_STRUCT => drop(Box::from_raw(of.cast::<weft_struct_type_t>())),
            WEFT_HEAPTYPE_KIND_CONCRETE_ARRAY => drop(Box::from_raw(of.cast::<weft_array_type_t>())),
            WEFT_HEAPTYPE_KIND_CONCRETE_EXN => drop(Box::from_raw(of.cast::<weft_exn_type_t>())),
            _ => {}
        }
    }
}

/// Copies the heap type `ty` to `out` (the concrete type, if any, cloned).
#[no_mangle]
pub extern "C" fn weft_heaptype_clone(ty: Option<&weft_heaptype_t>, out: Option<&mut MaybeUninit<weft_heaptype_t>>) {
    guard(
        || (),
        || {
            if let (Some(ty), Some(out)) = (ty, out) {
                out.write(heaptype_clone(ty));
            }
        },
    )
}

/// Frees the concrete type of `ty` (nothing for abstract heap types).
#[no_mangle]
pub extern "C" fn weft_heaptype_delete(ty: Option<&mut weft_heaptype_t>) {
    guard(|| (), || ty.map_or((), heaptype_free))
}

/// Copies the reference type `ty` to `out`.
#[no_mangle]
pub extern "C" fn weft_reftype_clone(ty: Option<&weft_reftype_t>, out: Option<&mut MaybeUninit<weft_reftype_t>>) {
    guard(
        || (),
        || {
            if let (Some(ty), Some(out)) = (ty, out) {
                out.write(weft_reftype_t {
                    nullable: ty.nullable,
                    heaptype: heaptype_clone(&ty.heaptype),
                });
            }
        },
    )
}

/// Frees the concrete heap type of `ty`.
#[no_mangle]
pub extern "C" fn weft_reftype_delete(ty: Option<&mut weft_reftype_t>) {
    guard(|| (), || ty.map_or((), |t| heaptype_free(&mut t.heaptype)))
}

/// The C value type of a Weft value type.
fn valtype_of(ty: &ValType) -> weft_valtype_t {
    let (kind, reftype) = match ty {
        ValType::I32 => (WEFT_VALTYPE_KIND_I32, None),
        ValType::I64 => (WEFT_VALTYPE_KIND_I64, None),
        ValType::F32 => (WEFT_VALTYPE_KIND_F32, None),
        ValType::F64 => (WEFT_VALTYPE_KIND_F64, None),
        ValType::V128 => (WEFT_VALTYPE_KIND_V128, None),
        ValType::Ref(r) => (
            WEFT_VALTYPE_KIND_REF,
            Some(weft_reftype_t {
                nullable: r.is_nullable(),
                heaptype: heaptype_of(r.heap_type()),
            }),
        ),
    };
    weft_valtype_t {
        kind,
        reftype: reftype.unwrap_or(weft_reftype_t {
            nullable: false,
            heaptype: NULL_HEAPTYPE,
        }),
    }
}

/// The Weft value type of a C value type.
fn valtype_to_weft(ty: &weft_valtype_t, engine: &weft::Engine) -> anyhow::Result<ValType> {
    Ok(match ty.kind {
        WEFT_VALTYPE_KIND_I32 => ValType::I32,
        WEFT_VALTYPE_KIND_I64 => ValType::I64,
        WEFT_VALTYPE_KIND_F32 => ValType::F32,
        WEFT_VALTYPE_KIND_F64 => ValType::F64,
        WEFT_VALTYPE_KIND_V128 => ValType::V128,
        WEFT_VALTYPE_KIND_REF => ValType::Ref(RefType::new(
            ty.reftype.nullable,
            heaptype_to_weft(&ty.reftype.heaptype, engine)?,
        )),
        k => anyhow::bail!("unknown value type kind {k}"),
    })
}

/// The `weft_valtype_t` of the `wasm_valtype_t` `ty`, in `out`.
#[no_mangle]
pub extern "C" fn weft_valtype_new(ty: Option<&wasm_valtype_t>, out: Option<&mut MaybeUninit<weft_valtype_t>>) {
    guard(
        || (),
        || {
            if let (Some(ty), Some(out)) = (ty, out) {
                out.write(valtype_of(&ty.ty));
            }
        },
    )
}

/// Copies the value type `ty` to `out`.
#[no_mangle]
pub extern "C" fn weft_valtype_clone(ty: Option<&weft_valtype_t>, out: Option<&mut MaybeUninit<weft_valtype_t>>) {
    guard(
        || (),
        || {
            if let (Some(ty), Some(out)) = (ty, out) {
                out.write(weft_valtype_t {
                    kind: ty.kind,
                    reftype: weft_reftype_t {
                        nullable: ty.reftype.nullable,
                        heaptype: if ty.kind == WEFT_VALTYPE_KIND_REF {
                            heaptype_clone(&ty.reftype.heaptype)
                        } else {
                            NULL_HEAPTYPE
                        },
                    },
                });
            }
        },
    )
}

/// Frees the concrete heap type of a reference value type.
#[no_mangle]
pub extern "C" fn weft_valtype_delete(ty: Option<&mut weft_valtype_t>) {
    guard(
        || (),
        || {
            if let Some(ty) = ty {
                if ty.kind == WEFT_VALTYPE_KIND_REF {
                    heaptype_free(&mut ty.reftype.heaptype);
                }
            }
        },
    )
}

/// The `wasm_valtype_t` of `ty` (caller-owned), or NULL if `ty` is
/// malformed.
#[no_mangle]
pub extern "C" fn weft_valtype_to_wasm(
    engine: Option<&wasm_engine_t>,
    ty: Option<&weft_valtype_t>,
) -> Option<Box<wasm_valtype_t>> {
    guard(
        || None,
        || {
            let ty = valtype_to_weft(ty?, &engine?.engine).ok()?;
            Some(Box::new(wasm_valtype_t { ty }))
        },
    )
}

/// The `v128` value type (caller-owned).
#[no_mangle]
pub extern "C" fn weft_wasm_valtype_v128() -> Box<wasm_valtype_t> {
    Box::new(wasm_valtype_t { ty: ValType::V128 })
}

/// Whether both value types are the same type (false if either is NULL).
#[no_mangle]
pub extern "C" fn weft_wasm_valtype_equal(a: Option<&wasm_valtype_t>, b: Option<&wasm_valtype_t>) -> bool {
    guard(
        || false,
        || match (a, b) {
            (Some(a), Some(b)) => ValType::eq(&a.ty, &b.ty),
            _ => false,
        },
    )
}

/// The C storage type of a Weft one.
fn storage_of(s: &StorageType) -> weft_storage_type_t {
    match s {
        StorageType::I8 => weft_storage_type_t {
            kind: WEFT_STORAGE_TYPE_KIND_I8,
            valtype: None,
        },
        StorageType::I16 => weft_storage_type_t {
            kind: WEFT_STORAGE_TYPE_KIND_I16,
            valtype: None,
        },
        StorageType::ValType(v) => weft_storage_type_t {
            kind: WEFT_STORAGE_TYPE_KIND_VALTYPE,
            valtype: Some(Box::new(wasm_valtype_t { ty: v.clone() })),
        },
    }
}

/// The C field type of a Weft one.
pub(crate) fn field_of(f: &FieldType) -> weft_field_type_t {
    weft_field_type_t {
        mutable_: f.mutability() == Mutability::Var,
        storage: storage_of(f.element_type()),
    }
}

/// The Weft field type of a C one.
fn field_to_weft(f: &weft_field_type_t) -> anyhow::Result<FieldType> {
    let storage = match f.storage.kind {
        WEFT_STORAGE_TYPE_KIND_I8 => StorageType::I8,
        WEFT_STORAGE_TYPE_KIND_I16 => StorageType::I16,
        WEFT_STORAGE_TYPE_KIND_VALTYPE => StorageType::ValType(
            f.storage
                .valtype
                .as_ref()
                .ok_or_else(|| anyhow::anyhow!("a value storage type without its value type"))?
                .ty
                .clone(),
        ),
        k => anyhow::bail!("unknown storage type kind {k}"),
    };
    let mutability = if f.mutable_ { Mutability::Var } else { Mutability::Const };
    Ok(FieldType::new(mutability, storage))
}

fn storage_clone(s: &weft_storage_type_t) -> weft_storage_type_t {
    weft_storage_type_t {
        kind: s.kind,
        valtype: s.valtype.clone(),
    }
}

/// Copies the storage type to `out`.
#[no_mangle]
pub extern "C" fn weft_storage_type_clone(
    storage: Option<&weft_storage_type_t>,
    out: Option<&mut MaybeUninit<weft_storage_type_t>>,
) {
    guard(
        || (),
        || {
            if let (Some(s), Some(out)) = (storage, out) {
                out.write(storage_clone(s));
            }
        },
    )
}

/// Frees the value type of the storage type (set to NULL).
#[no_mangle]
pub extern "C" fn weft_storage_type_delete(storage: Option<&mut weft_storage_type_t>) {
    guard(
        || (),
        || {
            if let Some(s) = storage {
                s.valtype = None;
            }
        },
    )
}

/// Copies the field type to `out`.
#[no_mangle]
pub extern "C" fn weft_field_type_clone(
    field: Option<&weft_field_type_t>,
    out: Option<&mut MaybeUninit<weft_field_type_t>>,
) {
    guard(
        || (),
        || {
            if let (Some(f), Some(out)) = (field, out) {
                out.write(weft_field_type_t {
                    mutable_: f.mutable_,
                    storage: storage_clone(&f.storage),
                });
            }
        },
    )
}

/// Frees the value type of the field's storage type.
#[no_mangle]
pub extern "C" fn weft_field_type_delete(field: Option<&mut weft_field_type_t>) {
    guard(
        || (),
        || {
            if let Some(f) = field {
                f.storage.valtype = None;
            }
        },
    )
}

/// A struct type of `nfields` fields registered in `engine` (caller-owned),
/// or NULL if an argument is invalid.
///
/// # Safety
///
/// `fields` points to `nfields` field types (or is NULL with `nfields` 0).
#[no_mangle]
pub unsafe extern "C" fn weft_struct_type_new(
    engine: Option<&wasm_engine_t>,
    fields: *const weft_field_type_t,
    nfields: usize,
) -> Option<Box<weft_struct_type_t>> {
    guard(
        || None,
        || {
            let engine = engine?;
            let fields = if nfields == 0 {
                &[][..]
            } else if fields.is_null() {
                return None;
            } else {
                // SAFETY: the caller gives `nfields` field types.
                unsafe { std::slice::from_raw_parts(fields, nfields) }
            };
            let fields = fields
                .iter()
                .map(field_to_weft)
                .collect::<anyhow::Result<Vec<_>>>()
                .ok()?;
            let ty = StructType::new(&engine.engine, fields).ok()?;
            Some(Box::new(weft_struct_type_t { ty }))
        },
    )
}

/// A copy of the struct type.
#[no_mangle]
pub extern "C" fn weft_struct_type_copy(ty: Option<&weft_struct_type_t>) -> Option<Box<weft_struct_type_t>> {
    guard(|| None, || ty.map(|t| Box::new(t.clone())))
}

/// Deletes the struct type.
#[no_mangle]
pub extern "C" fn weft_struct_type_delete(ty: Option<Box<weft_struct_type_t>>) {
    guard(|| (), || drop(ty))
}

/// The number of fields of the struct type (0 for NULL).
#[no_mangle]
pub extern "C" fn weft_struct_type_num_fields(ty: Option<&weft_struct_type_t>) -> usize {
    guard(|| 0, || ty.map_or(0, |t| t.ty.fields().len()))
}

/// Field `index` of the struct type in `out` (caller-owned); false if there
/// is no such field.
#[no_mangle]
pub extern "C" fn weft_struct_type_field(
    ty: Option<&weft_struct_type_t>,
    index: usize,
    out: Option<&mut MaybeUninit<weft_field_type_t>>,
) -> bool {
    guard(
        || false,
        || {
            let (Some(ty), Some(out)) = (ty, out) else {
                return false;
            };
            match ty.ty.field(index) {
                Some(f) => {
                    out.write(field_of(&f));
                    true
                }
                None => false,
            }
        },
    )
}

/// An array type of elements `field` registered in `engine`
/// (caller-owned), or NULL if an argument is invalid.
#[no_mangle]
pub extern "C" fn weft_array_type_new(
    engine: Option<&wasm_engine_t>,
    field: Option<&weft_field_type_t>,
) -> Option<Box<weft_array_type_t>> {
    guard(
        || None,
        || {
            let f = field_to_weft(field?).ok()?;
            let ty = ArrayType::new(&engine?.engine, f).ok()?;
            Some(Box::new(weft_array_type_t { ty }))
        },
    )
}

/// A copy of the array type.
#[no_mangle]
pub extern "C" fn weft_array_type_copy(ty: Option<&weft_array_type_t>) -> Option<Box<weft_array_type_t>> {
    guard(|| None, || ty.map(|t| Box::new(t.clone())))
}

/// Deletes the array type.
#[no_mangle]
pub extern "C" fn weft_array_type_delete(ty: Option<Box<weft_array_type_t>>) {
    guard(|| (), || drop(ty))
}

/// The type of the array's elements in `out` (caller-owned).
#[no_mangle]
pub extern "C" fn weft_array_type_element(
    ty: Option<&weft_array_type_t>,
    out: Option<&mut MaybeUninit<weft_field_type_t>>,
) {
    guard(
        || (),
        || {
            if let (Some(ty), Some(out)) = (ty, out) {
                out.write(field_of(&ty.ty.field_type()));
            }
        },
    )
}

/// The exception type with payload `params`, in `*out` (caller-owned).
#[no_mangle]
pub extern "C" fn weft_exn_type_new(
    engine: Option<&wasm_engine_t>,
    params: Option<&wasm_valtype_vec_t>,
    out: Option<&mut MaybeUninit<Box<weft_exn_type_t>>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let engine = engine.ok_or_else(|| crate::null_error("engine"))?;
        let params = params.ok_or_else(|| crate::null_error("params"))?;
        let out = out.ok_or_else(|| crate::null_error("out"))?;
        let params = params
            .as_slice()
            .iter()
            .map(|p| {
                p.as_ref()
                    .map(|p| p.ty.clone())
                    .ok_or_else(|| crate::null_error("params[i]"))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let ty = TagType::new(FuncType::new(&engine.engine, params, Vec::<ValType>::new()));
        out.write(Box::new(weft_exn_type_t { ty }));
        Ok(())
    })
}

/// Deletes the exception type.
#[no_mangle]
pub extern "C" fn weft_exn_type_delete(ty: Option<Box<weft_exn_type_t>>) {
    guard(|| (), || drop(ty))
}

/// A copy of the exception type.
#[no_mangle]
pub extern "C" fn weft_exn_type_copy(ty: Option<&weft_exn_type_t>) -> Option<Box<weft_exn_type_t>> {
    guard(|| None, || ty.map(|t| Box::new(t.clone())))
}

/// The tag type of the exception type (caller-owned).
#[no_mangle]
pub extern "C" fn weft_exn_type_tag_type(ty: Option<&weft_exn_type_t>) -> Option<Box<wasm_tagtype_t>> {
    guard(
        || None,
        || Some(Box::new(wasm_externtype_t::new(&ExternType::Tag(ty?.ty.clone())))),
    )
}
