//! `weft/component/val.h`: component values (`weft_component_val_t`), their
//! vectors, and resources held by the host (`weft_component_resource_any_t`,
//! `weft_component_resource_host_t`).

use crate::error::{catch_err, weft_error_t};
use crate::guard;
use crate::store::weft_context_t;
use crate::vec::{declare_vec, name_from_str, wasm_name_t, CVec, VecElem};
use std::mem::{ManuallyDrop, MaybeUninit};
use weft::component::{ResourceAny, ResourceDynamic, Val};

/// `weft_component_valkind_t`.
pub type weft_component_valkind_t = u8;

/// The value kinds (`WEFT_COMPONENT_BOOL`, ...).
pub(crate) mod kind {
    pub const BOOL: u8 = 0;
    pub const S8: u8 = 1;
    pub const U8: u8 = 2;
    pub const S16: u8 = 3;
    pub const U16: u8 = 4;
    pub const S32: u8 = 5;
    pub const U32: u8 = 6;
    pub const S64: u8 = 7;
    pub const U64: u8 = 8;
    pub const F32: u8 = 9;
    pub const F64: u8 = 10;
    pub const CHAR: u8 = 11;
    pub const STRING: u8 = 12;
    pub const LIST: u8 = 13;
    pub const RECORD: u8 = 14;
    pub const TUPLE: u8 = 15;
    pub const VARIANT: u8 = 16;
    pub const ENUM: u8 = 17;
    pub const OPTION: u8 = 18;
    pub const RESULT: u8 = 19;
    pub const FLAGS: u8 = 20;
    pub const RESOURCE: u8 = 21;
    pub const MAP: u8 = 22;
}

/// `weft_component_vallist_t` (also `weft_component_valtuple_t`).
pub type weft_component_vallist_t = CVec<weft_component_val_t>;
/// `weft_component_valtuple_t`.
pub type weft_component_valtuple_t = CVec<weft_component_val_t>;
/// `weft_component_valrecord_t`.
pub type weft_component_valrecord_t = CVec<weft_component_valrecord_entry_t>;
/// `weft_component_valflags_t`.
pub type weft_component_valflags_t = CVec<wasm_name_t>;
/// `weft_component_valmap_t`.
pub type weft_component_valmap_t = CVec<weft_component_valmap_entry_t>;

/// `weft_component_valvariant_t`: a case name and an optional payload.
#[repr(C)]
pub struct weft_component_valvariant_t {
    /// The case's name.
    pub discriminant: wasm_name_t,
    /// The payload (from `weft_component_val_new`), or null.
    pub val: *mut weft_component_val_t,
}

/// `weft_component_valresult_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct weft_component_valresult_t {
    /// `ok` or `err`.
    pub is_ok: bool,
    /// The payload (from `weft_component_val_new`), or null.
    pub val: *mut weft_component_val_t,
}

/// `weft_component_valunion_t`.
#[repr(C)]
pub union weft_component_valunion_t {
    /// `bool`.
    pub boolean: bool,
    /// `s8`.
    pub s8: i8,
    /// `u8`.
    pub u8: u8,
    /// `s16`.
    pub s16: i16,
    /// `u16`.
    pub u16: u16,
    /// `s32`.
    pub s32: i32,
    /// `u32`.
    pub u32: u32,
    /// `s64`.
    pub s64: i64,
    /// `u64`.
    pub u64: u64,
    /// `f32`.
    pub f32: f32,
    /// `f64`.
    pub f64: f64,
    /// `char`.
    pub character: u32,
    /// `string`.
    pub string: ManuallyDrop<wasm_name_t>,
    /// `list`.
    pub list: ManuallyDrop<weft_component_vallist_t>,
    /// `record`.
    pub record: ManuallyDrop<weft_component_valrecord_t>,
    /// `tuple`.
    pub tuple: ManuallyDrop<weft_component_valtuple_t>,
    /// `variant`.
    pub variant: ManuallyDrop<weft_component_valvariant_t>,
    /// `enum`.
    pub enumeration: ManuallyDrop<wasm_name_t>,
    /// `option`.
    pub option: *mut weft_component_val_t,
    /// `result`.
    pub result: weft_component_valresult_t,
    /// `flags`.
    pub flags: ManuallyDrop<weft_component_valflags_t>,
    /// `map`.
    pub map: ManuallyDrop<weft_component_valmap_t>,
    /// A resource.
    pub resource: *mut weft_component_resource_any_t,
}

/// `weft_component_val_t`: a kind and its payload.
#[repr(C)]
pub struct weft_component_val_t {
    /// The kind.
    pub kind: weft_component_valkind_t,
    /// The payload.
    pub of: weft_component_valunion_t,
}

/// `weft_component_valrecord_entry_t`.
#[repr(C)]
pub struct weft_component_valrecord_entry_t {
    /// The field's name.
    pub name: wasm_name_t,
    /// Its value.
    pub val: weft_component_val_t,
}

/// `weft_component_valmap_entry_t`.
#[repr(C)]
pub struct weft_component_valmap_entry_t {
    /// The key.
    pub key: weft_component_val_t,
    /// The value.
    pub value: weft_component_val_t,
}

impl weft_component_val_t {
    /// `false`, the value C code initializes results with.
    pub(crate) fn default_bool() -> weft_component_val_t {
        weft_component_val_t {
            kind: kind::BOOL,
            of: weft_component_valunion_t { boolean: false },
        }
    }

    /// Frees what the value owns and leaves it `false`.
    pub(crate) fn release(&mut self) {
        let old = std::mem::replace(self, weft_component_val_t::default_bool());
        drop_contents(old);
    }
}

/// Frees what `v` owns.
fn drop_contents(v: weft_component_val_t) {
    // SAFETY: each arm reads the union field its kind names, which the
    // C API's contract (and this library, for values it made) keeps
    // initialized; the value is consumed, so each is released once.
    unsafe {
        let of = v.of;
        match v.kind {
            kind::STRING => drop(ManuallyDrop::into_inner(of.string)),
            kind::ENUM => drop(ManuallyDrop::into_inner(of.enumeration)),
            kind::LIST => drop(ManuallyDrop::into_inner(of.list)),
            kind::TUPLE => drop(ManuallyDrop::into_inner(of.tuple)),
            kind::RECORD => drop(ManuallyDrop::into_inner(of.record)),
            kind::FLAGS => drop(ManuallyDrop::into_inner(of.flags)),
            kind::MAP => drop(ManuallyDrop::into_inner(of.map)),
            kind::VARIANT => {
                let var = ManuallyDrop::into_inner(of.variant);
                free_boxed(var.val);
                drop(var.discriminant);
            }
            kind::OPTION => free_boxed(of.option),
            kind::RESULT => free_boxed(of.result.val),
            kind::RESOURCE if !of.resource.is_null() => drop(Box::from_raw(of.resource)),
            _ => {}
        }
    }
}

/// Frees a value made by `weft_component_val_new` (or null).
fn free_boxed(p: *mut weft_component_val_t) {
    if p.is_null() {
        return;
    }
    // SAFETY: payload pointers are boxes of this library
    // (`weft_component_val_new` or `boxed`), owned by the value holding them.
    let b = unsafe { Box::from_raw(p) };
    drop_contents(*b);
}

fn boxed(v: weft_component_val_t) -> *mut weft_component_val_t {
    Box::into_raw(Box::new(v))
}

fn opt_boxed(v: Option<weft_component_val_t>) -> *mut weft_component_val_t {
    v.map_or(std::ptr::null_mut(), boxed)
}

impl VecElem for weft_component_val_t {
    fn zero() -> Self {
        weft_component_val_t::default_bool()
    }
    fn clone_elem(&self) -> Self {
        clone_val(self)
    }
    fn drop_elem(self) {
        drop_contents(self)
    }
}

impl VecElem for weft_component_valrecord_entry_t {
    fn zero() -> Self {
        weft_component_valrecord_entry_t {
            name: CVec::empty(),
            val: weft_component_val_t::default_bool(),
        }
    }
    fn clone_elem(&self) -> Self {
        weft_component_valrecord_entry_t {
            name: self.name.copy(),
            val: clone_val(&self.val),
        }
    }
    fn drop_elem(self) {
        drop_contents(self.val)
    }
}

impl VecElem for weft_component_valmap_entry_t {
    fn zero() -> Self {
        weft_component_valmap_entry_t {
            key: weft_component_val_t::default_bool(),
            value: weft_component_val_t::default_bool(),
        }
    }
    fn clone_elem(&self) -> Self {
        weft_component_valmap_entry_t {
            key: clone_val(&self.key),
            value: clone_val(&self.value),
        }
    }
    fn drop_elem(self) {
        drop_contents(self.key);
        drop_contents(self.value);
    }
}

impl VecElem for wasm_name_t {
    fn zero() -> Self {
        CVec::empty()
    }
    fn clone_elem(&self) -> Self {
        self.copy()
    }
}

/// A deep copy of `v`.
pub(crate) fn clone_val(v: &weft_component_val_t) -> weft_component_val_t {
    let clone_ptr = |p: *mut weft_component_val_t| -> *mut weft_component_val_t {
        if p.is_null() {
            std::ptr::null_mut()
        } else {
            // SAFETY: a non-null payload pointer points to a live value
            // (the value holding it owns it).
            boxed(clone_val(unsafe { &*p }))
        }
    };
    // SAFETY: each arm reads the union field its kind names (see
    // `drop_contents`); plain fields are copied as they are.
    let of = unsafe {
        match v.kind {
            kind::STRING => weft_component_valunion_t {
                string: ManuallyDrop::new(v.of.string.copy()),
            },
            kind::ENUM => weft_component_valunion_t {
                enumeration: ManuallyDrop::new(v.of.enumeration.copy()),
            },
            kind::LIST => weft_component_valunion_t {
                list: ManuallyDrop::new(v.of.list.copy()),
            },
            kind::TUPLE => weft_component_valunion_t {
                tuple: ManuallyDrop::new(v.of.tuple.copy()),
            },
            kind::RECORD => weft_component_valunion_t {
                record: ManuallyDrop::new(v.of.record.copy()),
            },
            kind::FLAGS => weft_component_valunion_t {
                flags: ManuallyDrop::new(v.of.flags.copy()),
            },
            kind::MAP => weft_component_valunion_t {
                map: ManuallyDrop::new(v.of.map.copy()),
            },
            kind::VARIANT => weft_component_valunion_t {
                variant: ManuallyDrop::new(weft_component_valvariant_t {
                    discriminant: v.of.variant.discriminant.copy(),
                    val: clone_ptr(v.of.variant.val),
                }),
            },
            kind::OPTION => weft_component_valunion_t {
                option: clone_ptr(v.of.option),
            },
            kind::RESULT => weft_component_valunion_t {
                result: weft_component_valresult_t {
                    is_ok: v.of.result.is_ok,
                    val: clone_ptr(v.of.result.val),
                },
            },
            kind::RESOURCE => weft_component_valunion_t {
                resource: if v.of.resource.is_null() {
                    std::ptr::null_mut()
                } else {
                    Box::into_raw(Box::new(weft_component_resource_any_t {
                        resource: (*v.of.resource).resource,
                    }))
                },
            },
            _ => weft_component_valunion_t { u64: v.of.u64 },
        }
    };
    weft_component_val_t { kind: v.kind, of }
}

fn name_str(n: &wasm_name_t) -> anyhow::Result<String> {
    String::from_utf8(n.as_slice().to_vec())
        .map_err(|_| anyhow::anyhow!("a component value's name was not valid utf-8"))
}

/// The Weft value of the C value `v` (borrowed).
pub(crate) fn to_val(v: &weft_component_val_t) -> anyhow::Result<Val> {
    let payload = |p: *mut weft_component_val_t| -> anyhow::Result<Option<Box<Val>>> {
        if p.is_null() {
            Ok(None)
        } else {
            // SAFETY: a non-null payload pointer points to a live value.
            Ok(Some(Box::new(to_val(unsafe { &*p })?)))
        }
    };
    // SAFETY: each arm reads the union field its kind names (see
    // `drop_contents`).
    unsafe {
        Ok(match v.kind {
            kind::BOOL => Val::Bool(v.of.boolean),
            kind::S8 => Val::S8(v.of.s8),
            kind::U8 => Val::U8(v.of.u8),
            kind::S16 => Val::S16(v.of.s16),
            kind::U16 => Val::U16(v.of.u16),
            kind::S32 => Val::S32(v.of.s32),
            kind::U32 => Val::U32(v.of.u32),
            kind::S64 => Val::S64(v.of.s64),
            kind::U64 => Val::U64(v.of.u64),
            kind::F32 => Val::Float32(v.of.f32),
            kind::F64 => Val::Float64(v.of.f64),
            kind::CHAR => Val::Char(
                char::from_u32(v.of.character)
                    .ok_or_else(|| anyhow::anyhow!("{:#x} is not a Unicode scalar value", v.of.character))?,
            ),
            kind::STRING => Val::String(name_str(&v.of.string)?),
            kind::ENUM => Val::Enum(name_str(&v.of.enumeration)?),
            kind::LIST => Val::List(v.of.list.as_slice().iter().map(to_val).collect::<anyhow::Result<_>>()?),
            kind::TUPLE => Val::Tuple(
                v.of.tuple
                    .as_slice()
                    .iter()
                    .map(to_val)
                    .collect::<anyhow::Result<_>>()?,
            ),
            kind::RECORD => Val::Record(
                v.of.record
                    .as_slice()
                    .iter()
                    .map(|e| Ok((name_str(&e.name)?, to_val(&e.val)?)))
                    .collect::<anyhow::Result<_>>()?,
            ),
            kind::FLAGS => Val::Flags(
                v.of.flags
                    .as_slice()
                    .iter()
                    .map(name_str)
                    .collect::<anyhow::Result<_>>()?,
            ),
            kind::MAP => Val::Map(
                v.of.map
                    .as_slice()
                    .iter()
                    .map(|e| Ok((to_val(&e.key)?, to_val(&e.value)?)))
                    .collect::<anyhow::Result<_>>()?,
            ),
            kind::VARIANT => Val::Variant(name_str(&v.of.variant.discriminant)?, payload(v.of.variant.val)?),
            kind::OPTION => Val::Option(payload(v.of.option)?),
            kind::RESULT => {
                let p = payload(v.of.result.val)?;
                Val::Result(if v.of.result.is_ok { Ok(p) } else { Err(p) })
            }
            kind::RESOURCE => {
                if v.of.resource.is_null() {
                    anyhow::bail!("null resource in a component value");
                }
                Val::Resource((*v.of.resource).resource)
            }
            k => anyhow::bail!("unknown component value kind {k}"),
        })
    }
}

/// The C value of `v` (owned by the caller).
pub(crate) fn from_val(v: &Val) -> anyhow::Result<weft_component_val_t> {
    let mk = |k: u8, of: weft_component_valunion_t| weft_component_val_t { kind: k, of };
    let payload = |p: &Option<Box<Val>>| -> anyhow::Result<*mut weft_component_val_t> {
        Ok(opt_boxed(p.as_deref().map(from_val).transpose()?))
    };
    Ok(match v {
        Val::Bool(b) => mk(kind::BOOL, weft_component_valunion_t { boolean: *b }),
        Val::S8(x) => mk(kind::S8, weft_component_valunion_t { s8: *x }),
        Val::U8(x) => mk(kind::U8, weft_component_valunion_t { u8: *x }),
        Val::S16(x) => mk(kind::S16, weft_component_valunion_t { s16: *x }),
        Val::U16(x) => mk(kind::U16, weft_component_valunion_t { u16: *x }),
        Val::S32(x) => mk(kind::S32, weft_component_valunion_t { s32: *x }),
        Val::U32(x) => mk(kind::U32, weft_component_valunion_t { u32: *x }),
        Val::S64(x) => mk(kind::S64, weft_component_valunion_t { s64: *x }),
        Val::U64(x) => mk(kind::U64, weft_component_valunion_t { u64: *x }),
        Val::Float32(x) => mk(kind::F32, weft_component_valunion_t { f32: *x }),
        Val::Float64(x) => mk(kind::F64, weft_component_valunion_t { f64: *x }),
        Val::Char(c) => mk(kind::CHAR, weft_component_valunion_t { character: *c as u32 }),
        Val::String(s) => mk(
            kind::STRING,
            weft_component_valunion_t {
                string: ManuallyDrop::new(name_from_str(s)),
            },
        ),
        Val::Enum(s) => mk(
            kind::ENUM,
            weft_component_valunion_t {
                enumeration: ManuallyDrop::new(name_from_str(s)),
            },
        ),
        Val::List(l) => mk(
            kind::LIST,
            weft_component_valunion_t {
                list: ManuallyDrop::new(CVec::from_vec(l.iter().map(from_val).collect::<anyhow::Result<_>>()?)),
            },
        ),
        Val::Tuple(l) => mk(
            kind::TUPLE,
            weft_component_valunion_t {
                tuple: ManuallyDrop::new(CVec::from_vec(l.iter().map(from_val).collect::<anyhow::Result<_>>()?)),
            },
        ),
        Val::Record(fields) => mk(
            kind::RECORD,
            weft_component_valunion_t {
                record: ManuallyDrop::new(CVec::from_vec(
                    fields
                        .iter()
                        .map(|(n, v)| {
                            Ok(weft_component_valrecord_entry_t {
                                name: name_from_str(n),
                                val: from_val(v)?,
                            })
                        })
                        .collect::<anyhow::Result<_>>()?,
                )),
            },
        ),
        Val::Flags(names) => mk(
            kind::FLAGS,
            weft_component_valunion_t {
                flags: ManuallyDrop::new(CVec::from_vec(names.iter().map(|n| name_from_str(n)).collect())),
            },
        ),
        Val::Map(entries) => mk(
            kind::MAP,
            weft_component_valunion_t {
                map: ManuallyDrop::new(CVec::from_vec(
                    entries
                        .iter()
                        .map(|(k, v)| {
                            Ok(weft_component_valmap_entry_t {
                                key: from_val(k)?,
                                value: from_val(v)?,
                            })
                        })
                        .collect::<anyhow::Result<_>>()?,
                )),
            },
        ),
        Val::Variant(name, p) => mk(
            kind::VARIANT,
            weft_component_valunion_t {
                variant: ManuallyDrop::new(weft_component_valvariant_t {
                    discriminant: name_from_str(name),
                    val: payload(p)?,
                }),
            },
        ),
        Val::Option(p) => mk(kind::OPTION, weft_component_valunion_t { option: payload(p)? }),
        Val::Result(r) => {
            let (is_ok, p) = match r {
                Ok(p) => (true, p),
                Err(p) => (false, p),
            };
            mk(
                kind::RESULT,
                weft_component_valunion_t {
                    result: weft_component_valresult_t {
                        is_ok,
                        val: payload(p)?,
                    },
                },
            )
        }
        Val::Resource(r) => mk(
            kind::RESOURCE,
            weft_component_valunion_t {
                resource: Box::into_raw(Box::new(weft_component_resource_any_t { resource: *r })),
            },
        ),
        other => anyhow::bail!(
            "a component value of kind `{}` has no C representation in Weft 48's C API",
            other.kind()
        ),
    })
}

declare_vec!(
    weft_component_vallist_t,
    weft_component_val_t,
    weft_component_vallist_new_empty,
    weft_component_vallist_new_uninit,
    weft_component_vallist_new,
    weft_component_vallist_copy,
    weft_component_vallist_delete
);

/// Sets `out` to an empty tuple.
#[no_mangle]
pub extern "C" fn weft_component_valtuple_new_empty(out: Option<&mut MaybeUninit<weft_component_valtuple_t>>) {
    weft_component_vallist_new_empty(out)
}

/// Sets `out` to a tuple of `size` `false` values.
#[no_mangle]
pub extern "C" fn weft_component_valtuple_new_uninit(
    out: Option<&mut MaybeUninit<weft_component_valtuple_t>>,
    size: usize,
) {
    weft_component_vallist_new_uninit(out, size)
}

/// Sets `out` to a tuple of the `size` values at `data`, taking them.
///
/// # Safety
///
/// `data` points to `size` valid values (or is null with `size` 0).
#[no_mangle]
pub unsafe extern "C" fn weft_component_valtuple_new(
    out: Option<&mut MaybeUninit<weft_component_valtuple_t>>,
    size: usize,
    data: *const weft_component_val_t,
) {
    // SAFETY: the caller's contract, passed on.
    unsafe { weft_component_vallist_new(out, size, data) }
}

/// Sets `out` to a deep copy of `src`.
#[no_mangle]
pub extern "C" fn weft_component_valtuple_copy(
    out: Option<&mut MaybeUninit<weft_component_valtuple_t>>,
    src: Option<&weft_component_valtuple_t>,
) {
    weft_component_vallist_copy(out, src)
}

/// Deletes the tuple's values.
#[no_mangle]
pub extern "C" fn weft_component_valtuple_delete(v: Option<&mut weft_component_valtuple_t>) {
    weft_component_vallist_delete(v)
}

declare_vec!(
    weft_component_valrecord_t,
    weft_component_valrecord_entry_t,
    weft_component_valrecord_new_empty,
    weft_component_valrecord_new_uninit,
    weft_component_valrecord_new,
    weft_component_valrecord_copy,
    weft_component_valrecord_delete
);

declare_vec!(
    weft_component_valflags_t,
    wasm_name_t,
    weft_component_valflags_new_empty,
    weft_component_valflags_new_uninit,
    weft_component_valflags_new,
    weft_component_valflags_copy,
    weft_component_valflags_delete
);

declare_vec!(
    weft_component_valmap_t,
    weft_component_valmap_entry_t,
    weft_component_valmap_new_empty,
    weft_component_valmap_new_uninit,
    weft_component_valmap_new,
    weft_component_valmap_copy,
    weft_component_valmap_delete
);

/// Moves `*val` to a new heap value (for payload pointers), leaving
/// `false` in its place.
#[no_mangle]
pub extern "C" fn weft_component_val_new(val: Option<&mut weft_component_val_t>) -> *mut weft_component_val_t {
    guard(std::ptr::null_mut, || {
        let v = match val {
            Some(v) => std::mem::replace(v, weft_component_val_t::default_bool()),
            None => weft_component_val_t::default_bool(),
        };
        boxed(v)
    })
}

/// Frees a value of `weft_component_val_new`, with what it owns.
#[no_mangle]
pub extern "C" fn weft_component_val_free(ptr: *mut weft_component_val_t) {
    guard(|| (), || free_boxed(ptr))
}

/// Writes a deep copy of `src` to `dst`.
#[no_mangle]
pub extern "C" fn weft_component_val_clone(
    src: Option<&weft_component_val_t>,
    dst: Option<&mut MaybeUninit<weft_component_val_t>>,
) {
    guard(
        || (),
        || {
            if let (Some(src), Some(dst)) = (src, dst) {
                dst.write(clone_val(src));
            }
        },
    )
}

/// Frees what `value` owns (not the struct), leaving `false`.
#[no_mangle]
pub extern "C" fn weft_component_val_delete(value: Option<&mut weft_component_val_t>) {
    guard(
        || (),
        || {
            if let Some(v) = value {
                v.release();
            }
        },
    )
}

/// `weft_component_resource_any_t`: a resource handle of the store's host
/// table.
pub struct weft_component_resource_any_t {
    pub(crate) resource: ResourceAny,
}

/// `weft_component_resource_host_t`: a host resource (representation, type
/// payload, own or borrow).
pub struct weft_component_resource_host_t {
    pub(crate) resource: ResourceDynamic,
}

/// The resource's type.
#[no_mangle]
pub extern "C" fn weft_component_resource_any_type(
    resource: Option<&weft_component_resource_any_t>,
) -> Option<Box<super::types::weft_component_resource_type_t>> {
    guard(
        || None,
        || {
            Some(Box::new(super::types::weft_component_resource_type_t {
                ty: resource?.resource.ty(),
            }))
        },
    )
}

/// A new handle to the same resource.
#[no_mangle]
pub extern "C" fn weft_component_resource_any_clone(
    resource: Option<&weft_component_resource_any_t>,
) -> Option<Box<weft_component_resource_any_t>> {
    guard(
        || None,
        || {
            Some(Box::new(weft_component_resource_any_t {
                resource: resource?.resource,
            }))
        },
    )
}

/// Whether the handle is an `own` (else a `borrow`).
#[no_mangle]
pub extern "C" fn weft_component_resource_any_owned(resource: Option<&weft_component_resource_any_t>) -> bool {
    resource.is_some_and(|r| r.resource.owned())
}

/// Drops the resource (running its destructor for an `own`).
#[no_mangle]
pub extern "C" fn weft_component_resource_any_drop(
    ctx: Option<&weft_context_t>,
    resource: Option<&weft_component_resource_any_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let ctx = ctx.ok_or_else(|| crate::null_error("ctx"))?;
        let r = resource.ok_or_else(|| crate::null_error("resource"))?;
        // SAFETY: a context used only inside this function.
        r.resource.resource_drop(unsafe { ctx.ctx() })
    })
}

/// Frees the handle object (not the resource).
#[no_mangle]
pub extern "C" fn weft_component_resource_any_delete(resource: Option<Box<weft_component_resource_any_t>>) {
    guard(|| (), || drop(resource))
}

/// A new host resource.
#[no_mangle]
pub extern "C" fn weft_component_resource_host_new(
    owned: bool,
    rep: u32,
    ty: u32,
) -> Option<Box<weft_component_resource_host_t>> {
    let resource = if owned {
        ResourceDynamic::new_own(rep, ty)
    } else {
        ResourceDynamic::new_borrow(rep, ty)
    };
    Some(Box::new(weft_component_resource_host_t { resource }))
}

/// A copy of the host resource.
#[no_mangle]
pub extern "C" fn weft_component_resource_host_clone(
    resource: Option<&weft_component_resource_host_t>,
) -> Option<Box<weft_component_resource_host_t>> {
    Some(Box::new(weft_component_resource_host_t {
        resource: resource?.resource,
    }))
}

/// The representation.
#[no_mangle]
pub extern "C" fn weft_component_resource_host_rep(resource: Option<&weft_component_resource_host_t>) -> u32 {
    resource.map_or(0, |r| r.resource.rep())
}

/// The type payload.
#[no_mangle]
pub extern "C" fn weft_component_resource_host_type(resource: Option<&weft_component_resource_host_t>) -> u32 {
    resource.map_or(0, |r| r.resource.ty())
}

/// Whether it is an `own`.
#[no_mangle]
pub extern "C" fn weft_component_resource_host_owned(resource: Option<&weft_component_resource_host_t>) -> bool {
    resource.is_some_and(|r| r.resource.owned())
}

/// Frees the host resource object.
#[no_mangle]
pub extern "C" fn weft_component_resource_host_delete(resource: Option<Box<weft_component_resource_host_t>>) {
    guard(|| (), || drop(resource))
}

/// The host resource held by `resource` (an error for a guest resource).
#[no_mangle]
pub extern "C" fn weft_component_resource_any_to_host(
    ctx: Option<&weft_context_t>,
    resource: Option<&weft_component_resource_any_t>,
    ret: Option<&mut MaybeUninit<Box<weft_component_resource_host_t>>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let ctx = ctx.ok_or_else(|| crate::null_error("ctx"))?;
        let r = resource.ok_or_else(|| crate::null_error("resource"))?;
        let ret = ret.ok_or_else(|| crate::null_error("ret"))?;
        // SAFETY: a context used only inside this function.
        let host = ResourceDynamic::try_from_resource_any(r.resource, unsafe { ctx.ctx() })?;
        ret.write(Box::new(weft_component_resource_host_t { resource: host }));
        Ok(())
    })
}

/// `resource` as a handle of the store's host table.
#[no_mangle]
pub extern "C" fn weft_component_resource_host_to_any(
    ctx: Option<&weft_context_t>,
    resource: Option<&weft_component_resource_host_t>,
    ret: Option<&mut MaybeUninit<Box<weft_component_resource_any_t>>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let ctx = ctx.ok_or_else(|| crate::null_error("ctx"))?;
        let r = resource.ok_or_else(|| crate::null_error("resource"))?;
        let ret = ret.ok_or_else(|| crate::null_error("ret"))?;
        // SAFETY: a context used only inside this function.
        let any = r.resource.try_into_resource_any(unsafe { ctx.ctx() })?;
        ret.write(Box::new(weft_component_resource_any_t { resource: any }));
        Ok(())
    })
}
