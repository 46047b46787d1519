//! `weft/component/types/*.h`: the types of components, their functions,
//! instances, modules, resources and values.

use crate::config::wasm_engine_t;
use crate::guard;
use std::ffi::c_char;
use std::mem::MaybeUninit;
use weft::component::types::{self as t, ComponentItem, Type};
use weft::component::ResourceType;

/// Writes `s` to a name out-pair (pointing into the type).
fn write_name(s: &str, name: Option<&mut *const c_char>, len: Option<&mut usize>) {
    if let Some(n) = name {
        *n = s.as_ptr().cast();
    }
    if let Some(l) = len {
        *l = s.len();
    }
}

macro_rules! opaque_type {
    ($(#[$doc:meta])* $c:ident, $rust:ty, $clone:ident, $delete:ident $(, $equal:ident)?) => {
        $(#[$doc])*
        pub struct $c {
            pub(crate) ty: $rust,
        }

        /// A copy of the type.
        #[no_mangle]
        pub extern "C" fn $clone(ty: Option<&$c>) -> Option<Box<$c>> {
            guard(|| None, || Some(Box::new($c { ty: ty?.ty.clone() })))
        }

        /// Deletes the type.
        #[no_mangle]
        pub extern "C" fn $delete(ty: Option<Box<$c>>) {
            guard(|| (), || drop(ty))
        }

        $(
            /// Whether the two types are the same.
            #[no_mangle]
            pub extern "C" fn $equal(a: Option<&$c>, b: Option<&$c>) -> bool {
                guard(|| false, || match (a, b) {
                    (Some(a), Some(b)) => a.ty == b.ty,
                    _ => false,
                })
            }
        )?
    };
}

opaque_type!(
    /// `weft_component_type_t`: a component's type.
    weft_component_type_t, t::Component, weft_component_type_clone, weft_component_type_delete
);
opaque_type!(
    /// `weft_component_func_type_t`: a component function's type.
    weft_component_func_type_t, t::ComponentFunc, weft_component_func_type_clone, weft_component_func_type_delete
);
opaque_type!(
    /// `weft_component_instance_type_t`: a component instance's type.
    weft_component_instance_type_t, t::ComponentInstance, weft_component_instance_type_clone,
    weft_component_instance_type_delete
);
opaque_type!(
    /// `weft_module_type_t`: a core module's type (as a component sees it).
    weft_module_type_t, t::Module, weft_module_type_clone, weft_module_type_delete
);
opaque_type!(
    /// `weft_component_resource_type_t`: a resource type.
    weft_component_resource_type_t, ResourceType, weft_component_resource_type_clone,
    weft_component_resource_type_delete, weft_component_resource_type_equal
);
opaque_type!(
    /// `weft_component_list_type_t`.
    weft_component_list_type_t, ListLike, weft_component_list_type_clone, weft_component_list_type_delete,
    weft_component_list_type_equal
);
opaque_type!(
    /// `weft_component_record_type_t`.
    weft_component_record_type_t, t::Record, weft_component_record_type_clone, weft_component_record_type_delete,
    weft_component_record_type_equal
);
opaque_type!(
    /// `weft_component_tuple_type_t`.
    weft_component_tuple_type_t, t::Tuple, weft_component_tuple_type_clone, weft_component_tuple_type_delete,
    weft_component_tuple_type_equal
);
opaque_type!(
    /// `weft_component_variant_type_t`.
    weft_component_variant_type_t, t::Variant, weft_component_variant_type_clone,
    weft_component_variant_type_delete, weft_component_variant_type_equal
);
opaque_type!(
    /// `weft_component_enum_type_t`.
    weft_component_enum_type_t, t::Enum, weft_component_enum_type_clone, weft_component_enum_type_delete,
    weft_component_enum_type_equal
);
opaque_type!(
    /// `weft_component_option_type_t`.
    weft_component_option_type_t, t::OptionType, weft_component_option_type_clone,
    weft_component_option_type_delete, weft_component_option_type_equal
);
opaque_type!(
    /// `weft_component_result_type_t`.
    weft_component_result_type_t, t::ResultType, weft_component_result_type_clone,
    weft_component_result_type_delete, weft_component_result_type_equal
);
opaque_type!(
    /// `weft_component_flags_type_t`.
    weft_component_flags_type_t, t::Flags, weft_component_flags_type_clone, weft_component_flags_type_delete,
    weft_component_flags_type_equal
);
opaque_type!(
    /// `weft_component_future_type_t`.
    weft_component_future_type_t, t::FutureType, weft_component_future_type_clone,
    weft_component_future_type_delete, weft_component_future_type_equal
);
opaque_type!(
    /// `weft_component_stream_type_t`.
    weft_component_stream_type_t, t::StreamType, weft_component_stream_type_clone,
    weft_component_stream_type_delete, weft_component_stream_type_equal
);
opaque_type!(
    /// `weft_component_map_type_t`.
    weft_component_map_type_t, t::Map, weft_component_map_type_clone, weft_component_map_type_delete,
    weft_component_map_type_equal
);

/// A `list<T>` or a `list<T, N>` (the C API has one list type).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListLike {
    /// `list<T>`.
    List(t::List),
    /// `list<T, N>`.
    Fixed(t::FixedLengthList),
}

/// `weft_component_valtype_union_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union weft_component_valtype_union_t {
    /// `list`.
    pub list: *mut weft_component_list_type_t,
    /// `record`.
    pub record: *mut weft_component_record_type_t,
    /// `tuple`.
    pub tuple: *mut weft_component_tuple_type_t,
    /// `variant`.
    pub variant: *mut weft_component_variant_type_t,
    /// `enum`.
    pub enum_: *mut weft_component_enum_type_t,
    /// `option`.
    pub option: *mut weft_component_option_type_t,
    /// `result`.
    pub result: *mut weft_component_result_type_t,
    /// `flags`.
    pub flags: *mut weft_component_flags_type_t,
    /// `own`.
    pub own: *mut weft_component_resource_type_t,
    /// `borrow`.
    pub borrow: *mut weft_component_resource_type_t,
    /// `future`.
    pub future: *mut weft_component_future_type_t,
    /// `stream`.
    pub stream: *mut weft_component_stream_type_t,
    /// `map`.
    pub map: *mut weft_component_map_type_t,
}

/// `weft_component_valtype_t`.
#[repr(C)]
pub struct weft_component_valtype_t {
    /// `WEFT_COMPONENT_VALTYPE_*`.
    pub kind: u8,
    /// The payload of composite kinds.
    pub of: weft_component_valtype_union_t,
}

fn bx<T>(v: T) -> *mut T {
    Box::into_raw(Box::new(v))
}

const NULL_UNION: weft_component_valtype_union_t = weft_component_valtype_union_t {
    list: std::ptr::null_mut(),
};

/// The C form of `ty` (owned by the caller).
pub(crate) fn valtype_of(ty: &Type) -> weft_component_valtype_t {
    use weft_component_valtype_union_t as U;
    let (kind, of) = match ty {
        Type::Bool => (0, NULL_UNION),
        Type::S8 => (1, NULL_UNION),
        Type::S16 => (2, NULL_UNION),
        Type::S32 => (3, NULL_UNION),
        Type::S64 => (4, NULL_UNION),
        Type::U8 => (5, NULL_UNION),
        Type::U16 => (6, NULL_UNION),
        Type::U32 => (7, NULL_UNION),
        Type::U64 => (8, NULL_UNION),
        Type::Float32 => (9, NULL_UNION),
        Type::Float64 => (10, NULL_UNION),
        Type::Char => (11, NULL_UNION),
        Type::String => (12, NULL_UNION),
        Type::List(l) => (
            13,
            U {
                list: bx(weft_component_list_type_t {
                    ty: ListLike::List(l.clone()),
                }),
            },
        ),
        Type::FixedLengthList(l) => (
            13,
            U {
                list: bx(weft_component_list_type_t {
                    ty: ListLike::Fixed(l.clone()),
                }),
            },
        ),
        Type::Record(r) => (
            14,
            U {
                record: bx(weft_component_record_type_t { ty: r.clone() }),
            },
        ),
        Type::Tuple(r) => (
            15,
            U {
                tuple: bx(weft_component_tuple_type_t { ty: r.clone() }),
            },
        ),
        Type::Variant(r) => (
            16,
            U {
                variant: bx(weft_component_variant_type_t { ty: r.clone() }),
            },
        ),
        Type::Enum(r) => (
            17,
            U {
                enum_: bx(weft_component_enum_type_t { ty: r.clone() }),
            },
        ),
        Type::Option(r) => (
            18,
            U {
                option: bx(weft_component_option_type_t { ty: r.clone() }),
            },
        ),
        Type::Result(r) => (
            19,
            U {
                result: bx(weft_component_result_type_t { ty: r.clone() }),
            },
        ),
        Type::Flags(r) => (
            20,
            U {
                flags: bx(weft_component_flags_type_t { ty: r.clone() }),
            },
        ),
        Type::Own(r) => (
            21,
            U {
                own: bx(weft_component_resource_type_t { ty: *r }),
            },
        ),
        Type::Borrow(r) => (
            22,
            U {
                borrow: bx(weft_component_resource_type_t { ty: *r }),
            },
        ),
        Type::Future(r) => (
            23,
            U {
                future: bx(weft_component_future_type_t { ty: r.clone() }),
            },
        ),
        Type::Stream(r) => (
            24,
            U {
                stream: bx(weft_component_stream_type_t { ty: r.clone() }),
            },
        ),
        Type::ErrorContext => (25, NULL_UNION),
        Type::Map(r) => (
            26,
            U {
                map: bx(weft_component_map_type_t { ty: r.clone() }),
            },
        ),
    };
    weft_component_valtype_t { kind, of }
}

/// The pointer payload of a valtype, if its kind has one.
fn valtype_ptr(ty: &weft_component_valtype_t) -> Option<*mut ()> {
    // SAFETY: every pointer field of the union has the same layout; which
    // one is set is told by the kind.
    let p = unsafe { ty.of.list }.cast::<()>();
    matches!(ty.kind, 13..=24 | 26).then_some(p).filter(|p| !p.is_null())
}

macro_rules! with_payload {
    ($ty:expr, $f:ident) => {{
        let ty: &weft_component_valtype_t = $ty;
        // SAFETY: the union field named by the kind is the one set
        // (`valtype_of` made it, or a copy of it).
        unsafe {
            match ty.kind {
                13 => $f!(ty.of.list),
                14 => $f!(ty.of.record),
                15 => $f!(ty.of.tuple),
                16 => $f!(ty.of.variant),
                17 => $f!(ty.of.enum_),
                18 => $f!(ty.of.option),
                19 => $f!(ty.of.result),
                20 => $f!(ty.of.flags),
                21 => $f!(ty.of.own),
                22 => $f!(ty.of.borrow),
                23 => $f!(ty.of.future),
                24 => $f!(ty.of.stream),
                26 => $f!(ty.of.map),
                _ => {}
            }
        }
    }};
}

/// Copies `*ty` into `*out`.
#[no_mangle]
pub extern "C" fn weft_component_valtype_clone(
    ty: Option<&weft_component_valtype_t>,
    out: Option<&mut MaybeUninit<weft_component_valtype_t>>,
) {
    guard(
        || (),
        || {
            let (Some(ty), Some(out)) = (ty, out) else { return };
            let mut copy = weft_component_valtype_t {
                kind: ty.kind,
                of: NULL_UNION,
            };
            if valtype_ptr(ty).is_some() {
                use weft_component_valtype_union_t as U;
                macro_rules! c {
                    ($f:ident, $w:ident) => {
                        U {
                            $f: bx($w {
                                ty: (*ty.of.$f).ty.clone(),
                            }),
                        }
                    };
                }
                // SAFETY: the union field named by the kind is the one set,
                // a live box of this library (checked non-null above).
                copy.of = unsafe {
                    match ty.kind {
                        13 => c!(list, weft_component_list_type_t),
                        14 => c!(record, weft_component_record_type_t),
                        15 => c!(tuple, weft_component_tuple_type_t),
                        16 => c!(variant, weft_component_variant_type_t),
                        17 => c!(enum_, weft_component_enum_type_t),
                        18 => c!(option, weft_component_option_type_t),
                        19 => c!(result, weft_component_result_type_t),
                        20 => c!(flags, weft_component_flags_type_t),
                        21 => c!(own, weft_component_resource_type_t),
                        22 => c!(borrow, weft_component_resource_type_t),
                        23 => c!(future, weft_component_future_type_t),
                        24 => c!(stream, weft_component_stream_type_t),
                        26 => c!(map, weft_component_map_type_t),
                        _ => NULL_UNION,
                    }
                };
            }
            out.write(copy);
        },
    )
}

/// Whether two value types are the same.
#[no_mangle]
pub extern "C" fn weft_component_valtype_equal(
    a: Option<&weft_component_valtype_t>,
    b: Option<&weft_component_valtype_t>,
) -> bool {
    guard(
        || false,
        || {
            let (Some(a), Some(b)) = (a, b) else { return false };
            if a.kind != b.kind {
                return false;
            }
            let (Some(pa), Some(pb)) = (valtype_ptr(a), valtype_ptr(b)) else {
                return valtype_ptr(a).is_none() && valtype_ptr(b).is_none();
            };
            // SAFETY: both payloads are of the type their (equal) kinds
            // name, made by this library.
            unsafe {
                match a.kind {
                    13 => {
                        (*pa.cast::<weft_component_list_type_t>()).ty == (*pb.cast::<weft_component_list_type_t>()).ty
                    }
                    14 => {
                        (*pa.cast::<weft_component_record_type_t>()).ty
                            == (*pb.cast::<weft_component_record_type_t>()).ty
                    }
                    15 => {
                        (*pa.cast::<weft_component_tuple_type_t>()).ty == (*pb.cast::<weft_component_tuple_type_t>()).ty
                    }
                    16 => {
                        (*pa.cast::<weft_component_variant_type_t>()).ty
                            == (*pb.cast::<weft_component_variant_type_t>()).ty
                    }
                    17 => {
                        (*pa.cast::<weft_component_enum_type_t>()).ty == (*pb.cast::<weft_component_enum_type_t>()).ty
                    }
                    18 => {
                        (*pa.cast::<weft_component_option_type_t>()).ty
                            == (*pb.cast::<weft_component_option_type_t>()).ty
                    }
                    19 => {
                        (*pa.cast::<weft_component_result_type_t>()).ty
                            == (*pb.cast::<weft_component_result_type_t>()).ty
                    }
                    20 => {
                        (*pa.cast::<weft_component_flags_type_t>()).ty == (*pb.cast::<weft_component_flags_type_t>()).ty
                    }
                    21 | 22 => {
                        (*pa.cast::<weft_component_resource_type_t>()).ty
                            == (*pb.cast::<weft_component_resource_type_t>()).ty
                    }
                    23 => {
                        (*pa.cast::<weft_component_future_type_t>()).ty
                            == (*pb.cast::<weft_component_future_type_t>()).ty
                    }
                    24 => {
                        (*pa.cast::<weft_component_stream_type_t>()).ty
                            == (*pb.cast::<weft_component_stream_type_t>()).ty
                    }
                    26 => (*pa.cast::<weft_component_map_type_t>()).ty == (*pb.cast::<weft_component_map_type_t>()).ty,
                    _ => false,
                }
            }
        },
    )
}

/// Frees what the value type owns.
#[no_mangle]
pub extern "C" fn weft_component_valtype_delete(ty: Option<&mut weft_component_valtype_t>) {
    guard(
        || (),
        || {
            let Some(ty) = ty else { return };
            if valtype_ptr(ty).is_some() {
                macro_rules! free {
                    ($p:expr) => {
                        drop(Box::from_raw($p))
                    };
                }
                with_payload!(ty, free);
            }
            ty.kind = 0;
            ty.of = NULL_UNION;
        },
    )
}

fn write_valtype(out: Option<&mut MaybeUninit<weft_component_valtype_t>>, ty: &Type) {
    if let Some(o) = out {
        o.write(valtype_of(ty));
    }
}

/// The element type of a list.
#[no_mangle]
pub extern "C" fn weft_component_list_type_element(
    ty: Option<&weft_component_list_type_t>,
    type_ret: Option<&mut MaybeUninit<weft_component_valtype_t>>,
) {
    guard(
        || (),
        || {
            let Some(ty) = ty else { return };
            let el = match &ty.ty {
                ListLike::List(l) => l.ty(),
                ListLike::Fixed(l) => l.ty(),
            };
            write_valtype(type_ret, &el);
        },
    )
}

/// The number of fields of a record.
#[no_mangle]
pub extern "C" fn weft_component_record_type_field_count(ty: Option<&weft_component_record_type_t>) -> usize {
    guard(|| 0, || ty.map_or(0, |t| t.ty.fields().len()))
}

/// The field `nth` of a record; false past the last.
#[no_mangle]
pub extern "C" fn weft_component_record_type_field_nth(
    ty: Option<&weft_component_record_type_t>,
    nth: usize,
    name_ret: Option<&mut *const c_char>,
    name_len_ret: Option<&mut usize>,
    type_ret: Option<&mut MaybeUninit<weft_component_valtype_t>>,
) -> bool {
    guard(
        || false,
        || {
            let Some(ty) = ty else { return false };
            let Some(f) = ty.ty.fields().nth(nth) else { return false };
            write_name(f.name, name_ret, name_len_ret);
            write_valtype(type_ret, &f.ty);
            true
        },
    )
}

/// The number of types of a tuple.
#[no_mangle]
pub extern "C" fn weft_component_tuple_type_types_count(ty: Option<&weft_component_tuple_type_t>) -> usize {
    guard(|| 0, || ty.map_or(0, |t| t.ty.types().len()))
}

/// The type `nth` of a tuple; false past the last.
#[no_mangle]
pub extern "C" fn weft_component_tuple_type_types_nth(
    ty: Option<&weft_component_tuple_type_t>,
    nth: usize,
    type_ret: Option<&mut MaybeUninit<weft_component_valtype_t>>,
) -> bool {
    guard(
        || false,
        || {
            let Some(ty) = ty.and_then(|t| t.ty.types().nth(nth)) else {
                return false;
            };
            write_valtype(type_ret, &ty);
            true
        },
    )
}

/// The number of cases of a variant.
#[no_mangle]
pub extern "C" fn weft_component_variant_type_case_count(ty: Option<&weft_component_variant_type_t>) -> usize {
    guard(|| 0, || ty.map_or(0, |t| t.ty.cases().len()))
}

/// The case `nth` of a variant; false past the last.
#[no_mangle]
pub extern "C" fn weft_component_variant_type_case_nth(
    ty: Option<&weft_component_variant_type_t>,
    nth: usize,
    name_ret: Option<&mut *const c_char>,
    name_len_ret: Option<&mut usize>,
    has_payload_ret: Option<&mut bool>,
    payload_ret: Option<&mut MaybeUninit<weft_component_valtype_t>>,
) -> bool {
    guard(
        || false,
        || {
            let Some(ty) = ty else { return false };
            let Some(c) = ty.ty.cases().nth(nth) else { return false };
            write_name(c.name, name_ret, name_len_ret);
            if let Some(h) = has_payload_ret {
                *h = c.ty.is_some();
            }
            if let Some(p) = &c.ty {
                write_valtype(payload_ret, p);
            }
            true
        },
    )
}

/// The number of names of an enum.
#[no_mangle]
pub extern "C" fn weft_component_enum_type_names_count(ty: Option<&weft_component_enum_type_t>) -> usize {
    guard(|| 0, || ty.map_or(0, |t| t.ty.names().len()))
}

/// The name `nth` of an enum; false past the last.
#[no_mangle]
pub extern "C" fn weft_component_enum_type_names_nth(
    ty: Option<&weft_component_enum_type_t>,
    nth: usize,
    name_ret: Option<&mut *const c_char>,
    name_len_ret: Option<&mut usize>,
) -> bool {
    guard(
        || false,
        || {
            let Some(n) = ty.and_then(|t| t.ty.names().nth(nth)) else {
                return false;
            };
            write_name(n, name_ret, name_len_ret);
            true
        },
    )
}

/// The payload type of an option.
#[no_mangle]
pub extern "C" fn weft_component_option_type_ty(
    ty: Option<&weft_component_option_type_t>,
    type_ret: Option<&mut MaybeUninit<weft_component_valtype_t>>,
) {
    guard(
        || (),
        || {
            if let Some(ty) = ty {
                write_valtype(type_ret, &ty.ty.ty());
            }
        },
    )
}

/// The `ok` payload type of a result; false if it has none.
#[no_mangle]
pub extern "C" fn weft_component_result_type_ok(
    ty: Option<&weft_component_result_type_t>,
    type_ret: Option<&mut MaybeUninit<weft_component_valtype_t>>,
) -> bool {
    guard(
        || false,
        || match ty.and_then(|t| t.ty.ok()) {
            Some(t) => {
                write_valtype(type_ret, &t);
                true
            }
            None => false,
        },
    )
}

/// The `err` payload type of a result; false if it has none.
#[no_mangle]
pub extern "C" fn weft_component_result_type_err(
    ty: Option<&weft_component_result_type_t>,
    type_ret: Option<&mut MaybeUninit<weft_component_valtype_t>>,
) -> bool {
    guard(
        || false,
        || match ty.and_then(|t| t.ty.err()) {
            Some(t) => {
                write_valtype(type_ret, &t);
                true
            }
            None => false,
        },
    )
}

/// The number of names of a flags type.
#[no_mangle]
pub extern "C" fn weft_component_flags_type_names_count(ty: Option<&weft_component_flags_type_t>) -> usize {
    guard(|| 0, || ty.map_or(0, |t| t.ty.names().len()))
}

/// The name `nth` of a flags type; false past the last.
#[no_mangle]
pub extern "C" fn weft_component_flags_type_names_nth(
    ty: Option<&weft_component_flags_type_t>,
    nth: usize,
    name_ret: Option<&mut *const c_char>,
    name_len_ret: Option<&mut usize>,
) -> bool {
    guard(
        || false,
        || {
            let Some(n) = ty.and_then(|t| t.ty.names().nth(nth)) else {
                return false;
            };
            write_name(n, name_ret, name_len_ret);
            true
        },
    )
}

/// The payload type of a future; false if it has none.
#[no_mangle]
pub extern "C" fn weft_component_future_type_ty(
    ty: Option<&weft_component_future_type_t>,
    type_ret: Option<&mut MaybeUninit<weft_component_valtype_t>>,
) -> bool {
    guard(
        || false,
        || match ty.and_then(|t| t.ty.ty()) {
            Some(t) => {
                write_valtype(type_ret, &t);
                true
            }
            None => false,
        },
    )
}

/// The element type of a stream; false if it has none.
#[no_mangle]
pub extern "C" fn weft_component_stream_type_ty(
    ty: Option<&weft_component_stream_type_t>,
    type_ret: Option<&mut MaybeUninit<weft_component_valtype_t>>,
) -> bool {
    guard(
        || false,
        || match ty.and_then(|t| t.ty.ty()) {
            Some(t) => {
                write_valtype(type_ret, &t);
                true
            }
            None => false,
        },
    )
}

/// The key type of a map.
#[no_mangle]
pub extern "C" fn weft_component_map_type_key(
    ty: Option<&weft_component_map_type_t>,
    type_ret: Option<&mut MaybeUninit<weft_component_valtype_t>>,
) {
    guard(
        || (),
        || {
            if let Some(ty) = ty {
                write_valtype(type_ret, &ty.ty.key());
            }
        },
    )
}

/// The value type of a map.
#[no_mangle]
pub extern "C" fn weft_component_map_type_value(
    ty: Option<&weft_component_map_type_t>,
    type_ret: Option<&mut MaybeUninit<weft_component_valtype_t>>,
) {
    guard(
        || (),
        || {
            if let Some(ty) = ty {
                write_valtype(type_ret, &ty.ty.value());
            }
        },
    )
}

/// A host resource type named by `ty`.
#[no_mangle]
pub extern "C" fn weft_component_resource_type_new_host(ty: u32) -> Option<Box<weft_component_resource_type_t>> {
    Some(Box::new(weft_component_resource_type_t {
        ty: ResourceType::host_dynamic(ty),
    }))
}

/// Whether the function is an `async func`.
#[no_mangle]
pub extern "C" fn weft_component_func_type_async(ty: Option<&weft_component_func_type_t>) -> bool {
    guard(|| false, || ty.is_some_and(|t| t.ty.async_()))
}

/// The number of parameters.
#[no_mangle]
pub extern "C" fn weft_component_func_type_param_count(ty: Option<&weft_component_func_type_t>) -> usize {
    guard(|| 0, || ty.map_or(0, |t| t.ty.params().len()))
}

/// The parameter `nth`; false past the last.
#[no_mangle]
pub extern "C" fn weft_component_func_type_param_nth(
    ty: Option<&weft_component_func_type_t>,
    nth: usize,
    name_ret: Option<&mut *const c_char>,
    name_len_ret: Option<&mut usize>,
    type_ret: Option<&mut MaybeUninit<weft_component_valtype_t>>,
) -> bool {
    guard(
        || false,
        || {
            let Some(ty) = ty else { return false };
            let Some((n, t)) = ty.ty.params().nth(nth) else {
                return false;
            };
            write_name(n, name_ret, name_len_ret);
            write_valtype(type_ret, &t);
            true
        },
    )
}

/// The result type; false if the function has none.
#[no_mangle]
pub extern "C" fn weft_component_func_type_result(
    ty: Option<&weft_component_func_type_t>,
    type_ret: Option<&mut MaybeUninit<weft_component_valtype_t>>,
) -> bool {
    guard(
        || false,
        || match ty.and_then(|t| t.ty.results().next()) {
            Some(t) => {
                write_valtype(type_ret, &t);
                true
            }
            None => false,
        },
    )
}

/// `weft_component_item_union_t`.
#[repr(C)]
pub union weft_component_item_union_t {
    /// `WEFT_COMPONENT_ITEM_COMPONENT`.
    pub component: *mut weft_component_type_t,
    /// `WEFT_COMPONENT_ITEM_COMPONENT_INSTANCE`.
    pub component_instance: *mut weft_component_instance_type_t,
    /// `WEFT_COMPONENT_ITEM_MODULE`.
    pub module: *mut weft_module_type_t,
    /// `WEFT_COMPONENT_ITEM_COMPONENT_FUNC`.
    pub component_func: *mut weft_component_func_type_t,
    /// `WEFT_COMPONENT_ITEM_RESOURCE`.
    pub resource: *mut weft_component_resource_type_t,
    /// `WEFT_COMPONENT_ITEM_CORE_FUNC` (never given by Weft).
    pub core_func: *mut crate::types::wasm_functype_t,
    /// `WEFT_COMPONENT_ITEM_TYPE`.
    pub type_: std::mem::ManuallyDrop<weft_component_valtype_t>,
}

/// `weft_component_item_t`.
#[repr(C)]
pub struct weft_component_item_t {
    /// `WEFT_COMPONENT_ITEM_*`.
    pub kind: u8,
    /// The item's type.
    pub of: weft_component_item_union_t,
}

fn item_of(item: ComponentItem) -> weft_component_item_t {
    use weft_component_item_union_t as U;
    let (kind, of) = match item {
        ComponentItem::Component(c) => (
            0,
            U {
                component: bx(weft_component_type_t { ty: c }),
            },
        ),
        ComponentItem::ComponentInstance(c) => (
            1,
            U {
                component_instance: bx(weft_component_instance_type_t { ty: c }),
            },
        ),
        ComponentItem::Module(c) => (
            2,
            U {
                module: bx(weft_module_type_t { ty: c }),
            },
        ),
        ComponentItem::ComponentFunc(c) => (
            3,
            U {
                component_func: bx(weft_component_func_type_t { ty: c }),
            },
        ),
        ComponentItem::Resource(c) => (
            4,
            U {
                resource: bx(weft_component_resource_type_t { ty: c }),
            },
        ),
        ComponentItem::Type(t) => (
            6,
            U {
                type_: std::mem::ManuallyDrop::new(valtype_of(&t)),
            },
        ),
    };
    weft_component_item_t { kind, of }
}

fn write_item(out: Option<&mut MaybeUninit<weft_component_item_t>>, item: ComponentItem) {
    if let Some(o) = out {
        o.write(item_of(item));
    }
}

/// Copies an item into `*out`.
#[no_mangle]
pub extern "C" fn weft_component_item_clone(
    item: Option<&weft_component_item_t>,
    out: Option<&mut MaybeUninit<weft_component_item_t>>,
) {
    guard(
        || (),
        || {
            let (Some(item), Some(out)) = (item, out) else { return };
            use weft_component_item_union_t as U;
            // SAFETY: the union field named by the kind is the one set, by
            // this library.
            let of = unsafe {
                match item.kind {
                    0 => U {
                        component: bx(weft_component_type_t {
                            ty: (*item.of.component).ty.clone(),
                        }),
                    },
                    1 => U {
                        component_instance: bx(weft_component_instance_type_t {
                            ty: (*item.of.component_instance).ty.clone(),
                        }),
                    },
                    2 => U {
                        module: bx(weft_module_type_t {
                            ty: (*item.of.module).ty.clone(),
                        }),
                    },
                    3 => U {
                        component_func: bx(weft_component_func_type_t {
                            ty: (*item.of.component_func).ty.clone(),
                        }),
                    },
                    4 => U {
                        resource: bx(weft_component_resource_type_t {
                            ty: (*item.of.resource).ty,
                        }),
                    },
                    6 => {
                        let mut t = MaybeUninit::uninit();
                        weft_component_valtype_clone(Some(&item.of.type_), Some(&mut t));
                        U {
                            type_: std::mem::ManuallyDrop::new(t.assume_init()),
                        }
                    }
                    _ => U {
                        component: std::ptr::null_mut(),
                    },
                }
            };
            out.write(weft_component_item_t { kind: item.kind, of });
        },
    )
}

/// Frees what the item owns.
#[no_mangle]
pub extern "C" fn weft_component_item_delete(item: Option<&mut weft_component_item_t>) {
    guard(
        || (),
        || {
            let Some(item) = item else { return };
            // SAFETY: as in `weft_component_item_clone`; each pointer is a
            // box of this library, freed once (the item is reset after).
            unsafe {
                match item.kind {
                    0 => drop(Box::from_raw(item.of.component)),
                    1 => drop(Box::from_raw(item.of.component_instance)),
                    2 => drop(Box::from_raw(item.of.module)),
                    3 => drop(Box::from_raw(item.of.component_func)),
                    4 => drop(Box::from_raw(item.of.resource)),
                    6 => weft_component_valtype_delete(Some(&mut item.of.type_)),
                    _ => {}
                }
            }
            item.kind = 6;
            item.of = weft_component_item_union_t {
                type_: std::mem::ManuallyDrop::new(weft_component_valtype_t {
                    kind: 0,
                    of: NULL_UNION,
                }),
            };
        },
    )
}

/// # Safety
///
/// `name` points to `len` readable bytes.
unsafe fn name_arg<'a>(name: *const c_char, len: usize) -> Option<&'a str> {
    // SAFETY: the caller's contract.
    unsafe { crate::weft_api::str_arg(name, len) }.ok()
}

/// The number of imports of a component type.
#[no_mangle]
pub extern "C" fn weft_component_type_import_count(
    ty: Option<&weft_component_type_t>,
    engine: Option<&wasm_engine_t>,
) -> usize {
    guard(
        || 0,
        || match (ty, engine) {
            (Some(t), Some(e)) => t.ty.imports(&e.engine).len(),
            _ => 0,
        },
    )
}

/// The import `name` of a component type; false if there is none.
///
/// # Safety
///
/// `name` points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_component_type_import_get(
    ty: Option<&weft_component_type_t>,
    engine: Option<&wasm_engine_t>,
    name: *const c_char,
    name_len: usize,
    ret: Option<&mut MaybeUninit<weft_component_item_t>>,
) -> bool {
    guard(
        || false,
        || {
            let (Some(t), Some(e)) = (ty, engine) else { return false };
            // SAFETY: the caller's contract.
            let Some(name) = (unsafe { name_arg(name, name_len) }) else {
                return false;
            };
            match t.ty.get_import(&e.engine, name) {
                Some(item) => {
                    write_item(ret, item);
                    true
                }
                None => false,
            }
        },
    )
}

/// The import `nth` of a component type; false past the last.
#[no_mangle]
pub extern "C" fn weft_component_type_import_nth(
    ty: Option<&weft_component_type_t>,
    engine: Option<&wasm_engine_t>,
    nth: usize,
    name_ret: Option<&mut *const c_char>,
    name_len_ret: Option<&mut usize>,
    type_ret: Option<&mut MaybeUninit<weft_component_item_t>>,
) -> bool {
    guard(
        || false,
        || {
            let (Some(t), Some(e)) = (ty, engine) else { return false };
            let Some((n, item)) = t.ty.imports(&e.engine).nth(nth) else {
                return false;
            };
            write_name(n, name_ret, name_len_ret);
            write_item(type_ret, item);
            true
        },
    )
}

/// The number of exports of a component type.
#[no_mangle]
pub extern "C" fn weft_component_type_export_count(
    ty: Option<&weft_component_type_t>,
    engine: Option<&wasm_engine_t>,
) -> usize {
    guard(
        || 0,
        || match (ty, engine) {
            (Some(t), Some(e)) => t.ty.exports(&e.engine).len(),
            _ => 0,
        },
    )
}

/// The export `name` of a component type; false if there is none.
///
/// # Safety
///
/// `name` points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_component_type_export_get(
    ty: Option<&weft_component_type_t>,
    engine: Option<&wasm_engine_t>,
    name: *const c_char,
    name_len: usize,
    ret: Option<&mut MaybeUninit<weft_component_item_t>>,
) -> bool {
    guard(
        || false,
        || {
            let (Some(t), Some(e)) = (ty, engine) else { return false };
            // SAFETY: the caller's contract.
            let Some(name) = (unsafe { name_arg(name, name_len) }) else {
                return false;
            };
            match t.ty.get_export(&e.engine, name) {
                Some(item) => {
                    write_item(ret, item);
                    true
                }
                None => false,
            }
        },
    )
}

/// The export `nth` of a component type; false past the last.
#[no_mangle]
pub extern "C" fn weft_component_type_export_nth(
    ty: Option<&weft_component_type_t>,
    engine: Option<&wasm_engine_t>,
    nth: usize,
    name_ret: Option<&mut *const c_char>,
    name_len_ret: Option<&mut usize>,
    type_ret: Option<&mut MaybeUninit<weft_component_item_t>>,
) -> bool {
    guard(
        || false,
        || {
            let (Some(t), Some(e)) = (ty, engine) else { return false };
            let Some((n, item)) = t.ty.exports(&e.engine).nth(nth) else {
                return false;
            };
            write_name(n, name_ret, name_len_ret);
            write_item(type_ret, item);
            true
        },
    )
}

/// The number of exports of an instance type.
#[no_mangle]
pub extern "C" fn weft_component_instance_type_export_count(
    ty: Option<&weft_component_instance_type_t>,
    _engine: Option<&wasm_engine_t>,
) -> usize {
    guard(|| 0, || ty.map_or(0, |t| t.ty.exports().len()))
}

/// The export `name` of an instance type; false if there is none.
///
/// # Safety
///
/// `name` points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn weft_component_instance_type_export_get(
    ty: Option<&weft_component_instance_type_t>,
    _engine: Option<&wasm_engine_t>,
    name: *const c_char,
    name_len: usize,
    ret: Option<&mut MaybeUninit<weft_component_item_t>>,
) -> bool {
    guard(
        || false,
        || {
            let Some(t) = ty else { return false };
            // SAFETY: the caller's contract.
            let Some(name) = (unsafe { name_arg(name, name_len) }) else {
                return false;
            };
            match t.ty.get_export(name) {
                Some(item) => {
                    write_item(ret, item);
                    true
                }
                None => false,
            }
        },
    )
}

/// The export `nth` of an instance type; false past the last.
#[no_mangle]
pub extern "C" fn weft_component_instance_type_export_nth(
    ty: Option<&weft_component_instance_type_t>,
    _engine: Option<&wasm_engine_t>,
    nth: usize,
    name_ret: Option<&mut *const c_char>,
    name_len_ret: Option<&mut usize>,
    type_ret: Option<&mut MaybeUninit<weft_component_item_t>>,
) -> bool {
    guard(
        || false,
        || {
            let Some(t) = ty else { return false };
            let Some((n, item)) = t.ty.exports().nth(nth) else {
                return false;
            };
            write_name(n, name_ret, name_len_ret);
            write_item(type_ret, item);
            true
        },
    )
}

/// The number of imports of a module type.
#[no_mangle]
pub extern "C" fn weft_module_type_import_count(
    ty: Option<&weft_module_type_t>,
    _engine: Option<&wasm_engine_t>,
) -> usize {
    guard(|| 0, || ty.map_or(0, |t| t.ty.imports().len()))
}

/// The number of exports of a module type.
#[no_mangle]
pub extern "C" fn weft_module_type_export_count(
    ty: Option<&weft_module_type_t>,
    _engine: Option<&wasm_engine_t>,
) -> usize {
    guard(|| 0, || ty.map_or(0, |t| t.ty.exports().len()))
}

/// The import `nth` of a module type (owned by the caller), or null past
/// the last.
#[no_mangle]
pub extern "C" fn weft_module_type_import_nth(
    ty: Option<&weft_module_type_t>,
    engine: Option<&wasm_engine_t>,
    nth: usize,
) -> Option<Box<crate::types::wasm_importtype_t>> {
    guard(
        || None,
        || {
            let (ty, engine) = (ty?, engine?);
            let (m, n, t) = ty.ty.import_types(&engine.engine).nth(nth)?;
            Some(Box::new(crate::types::wasm_importtype_t {
                module: crate::vec::name_from_str(m),
                name: crate::vec::name_from_str(n),
                ty: Box::new(crate::types::wasm_externtype_t::new(&t)),
            }))
        },
    )
}

/// The export `nth` of a module type (owned by the caller), or null past
/// the last.
#[no_mangle]
pub extern "C" fn weft_module_type_export_nth(
    ty: Option<&weft_module_type_t>,
    engine: Option<&wasm_engine_t>,
    nth: usize,
) -> Option<Box<crate::types::wasm_exporttype_t>> {
    guard(
        || None,
        || {
            let (ty, engine) = (ty?, engine?);
            let (n, t) = ty.ty.export_types(&engine.engine).nth(nth)?;
            Some(Box::new(crate::types::wasm_exporttype_t {
                name: crate::vec::name_from_str(n),
                ty: Box::new(crate::types::wasm_externtype_t::new(&t)),
            }))
        },
    )
}
