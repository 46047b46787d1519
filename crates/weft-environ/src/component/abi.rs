//! The layout side of the canonical ABI (`CanonicalABI.md`), as pure
//! functions over the types of a [`ComponentTypes`] registry: `despecialize`,
//! `alignment`, `elem_size`, `discriminant_type`, the flags layout,
//! `flatten_type` and `flatten_functype`.
//!
//! The functions are total: a type index that is not in the registry counts
//! as an empty record (size 0, alignment 1, no flat values), and `flags` with
//! more than 32 labels (which validation rejects) are laid out as the
//! previous version of the spec did, in `ceil(n / 32)` 32-bit words, so that
//! no input makes them panic. Sizes saturate at `u32::MAX`.

use super::types::{ComponentTypes, DefinedType, FuncType, InterfaceType};

use super::layout::flags_words;
pub use super::layout::{
    align_to, discriminant_size, flags_alignment, flags_size, join, DefinedAbi, FlatType, Layout, PtrType, ValueAbi,
    FLAT_KEPT, MAX_FLAT_ASYNC_PARAMS, MAX_FLAT_PARAMS, MAX_FLAT_RESULTS,
};

/// `MAX_STRING_BYTE_LENGTH`: the longest string, in bytes of its encoding,
/// that lifting accepts (and lowering of host strings accepts, in UTF-8).
pub const MAX_STRING_BYTE_LENGTH: u32 = (1 << 28) - 1;
/// `MAX_LIST_BYTE_LENGTH`: the largest list, in bytes, that lifting accepts.
/// Lists of zero-sized elements are also limited to this many elements.
pub const MAX_LIST_BYTE_LENGTH: u32 = (1 << 28) - 1;

/// The options of `flatten_functype`: what the canonical options decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AbiOptions {
    /// The pointer type of the memory.
    pub ptr: PtrType,
    /// The `async` option.
    pub is_async: bool,
    /// Whether a `callback` option is present (async lifts only).
    pub callback: bool,
}

/// Whether a signature is flattened for `canon lift` or `canon lower`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Context {
    /// The core function is lifted: results spill to memory it returns a
    /// pointer to.
    Lift,
    /// The core function is lowered: results spill to memory the caller
    /// passes a pointer to.
    Lower,
}

/// A value type with the specialized types (tuple, enum, option, result)
/// replaced by the record or variant they stand for, as `despecialize`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Despecialized {
    /// A record of these field types (a tuple's fields are named `0`, `1`...).
    Record(Vec<InterfaceType>),
    /// A variant of these case payloads.
    Variant(Vec<Option<InterfaceType>>),
    /// A list, with its length if fixed.
    List(InterfaceType, Option<u32>),
    /// Flags with this many labels.
    Flags(usize),
    /// Any other type, unchanged (primitives, strings, handles).
    Other(InterfaceType),
}

/// `despecialize`: tuples become records, enums, options and results
/// become variants, and `map<K, V>` becomes `list<tuple<K, V>>`; `string`
/// and `flags` keep their own representations, and `stream` and `future`
/// (handles, like `own`) stay `Other` with their `Defined` index.
pub fn despecialize(types: &ComponentTypes, ty: InterfaceType) -> Despecialized {
    let InterfaceType::Defined(index) = ty else {
        return Despecialized::Other(ty);
    };
    match types.defined(index) {
        None => Despecialized::Record(Vec::new()),
        Some(DefinedType::Record(fields)) => Despecialized::Record(fields.iter().map(|f| f.ty).collect()),
        Some(DefinedType::Tuple(ts)) => Despecialized::Record(ts.to_vec()),
        Some(DefinedType::Variant(cases)) => Despecialized::Variant(cases.iter().map(|c| c.ty).collect()),
        Some(DefinedType::Enum(labels)) => Despecialized::Variant(vec![None; labels.len()]),
        Some(DefinedType::Option(t)) => Despecialized::Variant(vec![None, Some(*t)]),
        Some(DefinedType::Result { ok, err }) => Despecialized::Variant(vec![*ok, *err]),
        Some(DefinedType::List(t)) => Despecialized::List(*t, None),
        Some(DefinedType::FixedLengthList(t, n)) => Despecialized::List(*t, Some(*n)),
        Some(DefinedType::Map(k, v)) => match types.map_entry(*k, *v) {
            Some(entry) => Despecialized::List(entry, None),
            None => Despecialized::Record(Vec::new()),
        },
        Some(DefinedType::Flags(labels)) => Despecialized::Flags(labels.len()),
        // Handles to stream and future ends: `i32` indices.
        Some(DefinedType::Stream(_) | DefinedType::Future(_)) => Despecialized::Other(ty),
    }
}

/// `discriminant_type`: the integer type of the discriminant of a variant
/// with `cases` cases (`u8` up to 256 cases, `u16` up to 65536, else `u32`).
pub fn discriminant_type(cases: usize) -> InterfaceType {
    match cases {
        0..=0x100 => InterfaceType::U8,
        0x101..=0x1_0000 => InterfaceType::U16,
        _ => InterfaceType::U32,
    }
}

/// `alignment`: the alignment in bytes of a value of `ty` in memory.
pub fn alignment(types: &ComponentTypes, ty: InterfaceType, ptr: PtrType) -> u32 {
    types.value_abi(ty).layout(ptr).align
}

/// `elem_size`: the size in bytes of a value of `ty` stored in memory (as
/// an element of a list).
pub fn elem_size(types: &ComponentTypes, ty: InterfaceType, ptr: PtrType) -> u32 {
    types.value_abi(ty).layout(ptr).size
}

/// `flatten_type`: the core values a value of `ty` is passed as.
pub fn flatten_type(types: &ComponentTypes, ty: InterfaceType, ptr: PtrType) -> Vec<FlatType> {
    let mut out = Vec::new();
    flatten_into(types, ty, ptr, usize::MAX, &mut out);
    out
}

/// Appends the flattening of `ty` to `out`, stopping once `out` holds more
/// than `limit` values (callers only need to know that the limit is passed).
fn flatten_into(types: &ComponentTypes, ty: InterfaceType, ptr: PtrType, limit: usize, out: &mut Vec<FlatType>) {
    use InterfaceType as T;
    if out.len() > limit {
        return;
    }
    // The registry keeps the first `FLAT_KEPT` flat types of every type:
    // all of them, or enough to pass any limit below `FLAT_KEPT`.
    let abi = types.value_abi(ty);
    let kept = abi.flat(ptr);
    if abi.flat_count() <= kept.len() || limit < FLAT_KEPT {
        out.extend_from_slice(kept);
        return;
    }
    match despecialize(types, ty) {
        Despecialized::Other(t) => match t {
            T::S64 | T::U64 => out.push(FlatType::I64),
            T::F32 => out.push(FlatType::F32),
            T::F64 => out.push(FlatType::F64),
            T::String => out.extend([ptr.flat(), ptr.flat()]),
            _ => out.push(FlatType::I32),
        },
        Despecialized::List(t, Some(n)) => {
            for _ in 0..n {
                if out.len() > limit {
                    break;
                }
                flatten_into(types, t, ptr, limit, out);
            }
        }
        Despecialized::List(_, None) => out.extend([ptr.flat(), ptr.flat()]),
        Despecialized::Record(fields) => {
            for t in fields {
                flatten_into(types, t, ptr, limit, out);
            }
        }
        Despecialized::Variant(cases) => {
            flatten_into(types, discriminant_type(cases.len()), ptr, limit, out);
            let mut payload: Vec<FlatType> = Vec::new();
            let payload_limit = limit.saturating_sub(out.len());
            for t in cases.iter().flatten() {
                let mut case = Vec::new();
                flatten_into(types, *t, ptr, payload_limit, &mut case);
                for (i, ft) in case.into_iter().enumerate() {
                    match payload.get_mut(i) {
                        Some(slot) => *slot = join(*slot, ft),
                        None => payload.push(ft),
                    }
                }
            }
            out.extend(payload);
        }
        Despecialized::Flags(n) => out.extend(std::iter::repeat_n(FlatType::I32, flags_words(n) as usize)),
    }
}

/// A core function signature made of flat types.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FlatFuncType {
    /// Core parameter types.
    pub params: Vec<FlatType>,
    /// Core result types.
    pub results: Vec<FlatType>,
}

/// `flatten_functype`: the core signature of a component function lifted
/// or lowered with `options`. Parameters beyond [`MAX_FLAT_PARAMS`] (or
/// [`MAX_FLAT_ASYNC_PARAMS`]) and results beyond [`MAX_FLAT_RESULTS`] are
/// passed in memory through a pointer.
pub fn flatten_functype(types: &ComponentTypes, ty: &FuncType, options: AbiOptions, context: Context) -> FlatFuncType {
    let ptr = options.ptr;
    let mut params = Vec::new();
    for t in ty.param_types() {
        flatten_into(types, t, ptr, MAX_FLAT_PARAMS, &mut params);
    }
    let mut results = Vec::new();
    if let Some(t) = ty.result {
        flatten_into(types, t, ptr, MAX_FLAT_RESULTS, &mut results);
    }
    if !options.is_async {
        if params.len() > MAX_FLAT_PARAMS {
            params = vec![ptr.flat()];
        }
        if results.len() > MAX_FLAT_RESULTS {
            match context {
                Context::Lift => results = vec![ptr.flat()],
                Context::Lower => {
                    params.push(ptr.flat());
                    results.clear();
                }
            }
        }
        return FlatFuncType { params, results };
    }
    match context {
        Context::Lift => {
            if params.len() > MAX_FLAT_PARAMS {
                params = vec![ptr.flat()];
            }
            results = if options.callback {
                vec![FlatType::I32]
            } else {
                Vec::new()
            };
        }
        Context::Lower => {
            if params.len() > MAX_FLAT_ASYNC_PARAMS {
                params = vec![ptr.flat()];
            }
            if !results.is_empty() {
                params.push(ptr.flat());
            }
            results = vec![FlatType::I32];
        }
    }
    FlatFuncType { params, results }
}
