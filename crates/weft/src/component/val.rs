//! [`Val`], and the mapping between variant-like values (variants, enums,
//! options, results) and their case index and payload.

use super::{mismatch, trap, InterfaceType};
use crate::Result;
use weft_environ::component::DefinedType;

/// A dynamically typed component value, as Wasmtime's
/// `wasmtime::component::Val`.
///
/// A value has no type of its own: it is lifted or lowered as an
/// [`InterfaceType`] and must match it (for example a [`Val::Record`] must
/// have the record type's fields, by name and in order).
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// A `bool`.
    Bool(bool),
    /// An `s8`.
    S8(i8),
    /// A `u8`.
    U8(u8),
    /// An `s16`.
    S16(i16),
    /// A `u16`.
    U16(u16),
    /// An `s32`.
    S32(i32),
    /// A `u32`.
    U32(u32),
    /// An `s64`.
    S64(i64),
    /// A `u64`.
    U64(u64),
    /// An `f32`. NaNs are canonical after lifting.
    Float32(f32),
    /// An `f64`. NaNs are canonical after lifting.
    Float64(f64),
    /// A `char`: a Unicode scalar value.
    Char(char),
    /// A `string`.
    String(String),
    /// A `list<T>` or `list<T, N>`: its elements.
    List(Vec<Val>),
    /// A `map<K, V>`: its entries as `(key, value)`, in order. Lifted and
    /// lowered as the `list<tuple<K, V>>` it despecializes to, so duplicate
    /// keys are kept.
    Map(Vec<(Val, Val)>),
    /// A `record`: its fields as `(label, value)`, in the type's order.
    Record(Vec<(String, Val)>),
    /// A `tuple`: its fields, in order.
    Tuple(Vec<Val>),
    /// A `variant`: the label of the case and its payload, if the case has
    /// one.
    Variant(String, Option<Box<Val>>),
    /// An `enum`: the label of the case.
    Enum(String),
    /// An `option<T>`.
    Option(Option<Box<Val>>),
    /// A `result<T, E>`: the payload of `ok` or `error`, absent when that
    /// side of the type has none.
    Result(Result<Option<Box<Val>>, Option<Box<Val>>>),
    /// A `flags`: the labels of the flags that are set.
    Flags(Vec<String>),
    /// An `own` or `borrow` handle of a resource.
    Resource(super::ResourceAny),
    /// The readable end of a `stream`.
    Stream(super::StreamAny),
    /// The readable end of a `future`.
    Future(super::FutureAny),
    /// An `error-context`.
    ErrorContext(super::ErrorContextAny),
}

impl Val {
    /// A short name of the kind of the value, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Val::Bool(_) => "bool",
            Val::S8(_) => "s8",
            Val::U8(_) => "u8",
            Val::S16(_) => "s16",
            Val::U16(_) => "u16",
            Val::S32(_) => "s32",
            Val::U32(_) => "u32",
            Val::S64(_) => "s64",
            Val::U64(_) => "u64",
            Val::Float32(_) => "f32",
            Val::Float64(_) => "f64",
            Val::Char(_) => "char",
            Val::String(_) => "string",
            Val::List(_) => "list",
            Val::Map(_) => "map",
            Val::Record(_) => "record",
            Val::Tuple(_) => "tuple",
            Val::Variant(..) => "variant",
            Val::Enum(_) => "enum",
            Val::Option(_) => "option",
            Val::Result(_) => "result",
            Val::Flags(_) => "flags",
            Val::Resource(_) => "resource",
            Val::Stream(_) => "stream",
            Val::Future(_) => "future",
            Val::ErrorContext(_) => "error-context",
        }
    }
}

/// The number of cases of the variant-like type `def` (variant, enum,
/// option or result); `None` for other types.
pub(crate) fn case_count(def: &DefinedType) -> Option<usize> {
    Some(match def {
        DefinedType::Variant(cases) => cases.len(),
        DefinedType::Enum(labels) => labels.len(),
        DefinedType::Option(_) | DefinedType::Result { .. } => 2,
        _ => return None,
    })
}

/// The payload type of case `index` of the variant-like type `def`: `None`
/// when `def` is not variant-like or has no such case, `Some(None)` for a
/// case without a payload.
pub(crate) fn case_payload(def: &DefinedType, index: usize) -> Option<Option<InterfaceType>> {
    match def {
        DefinedType::Variant(cases) => cases.get(index).map(|c| c.ty),
        DefinedType::Enum(labels) => (index < labels.len()).then_some(None),
        DefinedType::Option(t) => [None, Some(*t)].get(index).copied(),
        DefinedType::Result { ok, err } => [*ok, *err].get(index).copied(),
        _ => None,
    }
}

/// The value of case `index` of the variant-like type `def` with `payload`.
/// `index` is in range of [`case_count`].
pub(crate) fn make_variant(def: &DefinedType, index: u32, payload: Option<Val>) -> Result<Val> {
    let payload = payload.map(Box::new);
    let label = |labels: &mut dyn Iterator<Item = &String>| {
        labels
            .nth(index as usize)
            .cloned()
            .ok_or_else(|| trap(format_args!("case index {index} out of range")))
    };
    Ok(match def {
        DefinedType::Variant(cases) => Val::Variant(label(&mut cases.iter().map(|c| &c.name))?, payload),
        DefinedType::Enum(labels) => Val::Enum(label(&mut labels.iter())?),
        DefinedType::Option(_) => Val::Option(if index == 0 { None } else { payload }),
        DefinedType::Result { .. } => Val::Result(if index == 0 { Ok(payload) } else { Err(payload) }),
        _ => return Err(trap("not a variant type")),
    })
}

/// The case index and payload of `val` as a value of the variant-like type
/// `def` (the type `ty`), checking that the payload's presence matches the
/// case.
pub(crate) fn match_case<'v>(
    ty: InterfaceType,
    def: &DefinedType,
    val: &'v Val,
) -> Result<(u32, Option<InterfaceType>, Option<&'v Val>)> {
    case_count(def).ok_or_else(|| mismatch(ty, val))?;
    let find = |labels: &mut dyn Iterator<Item = &String>, name: &str| {
        labels
            .enumerate()
            .find(|(_, l)| *l == name)
            .map(|(i, _)| i)
            .ok_or_else(|| anyhow::anyhow!("type mismatch: no case `{name}` in {ty:?}"))
    };
    let (index, payload) = match (def, val) {
        (DefinedType::Variant(cs), Val::Variant(name, payload)) => {
            (find(&mut cs.iter().map(|c| &c.name), name)?, payload.as_deref())
        }
        (DefinedType::Enum(labels), Val::Enum(name)) => (find(&mut labels.iter(), name)?, None),
        (DefinedType::Option(_), Val::Option(None)) => (0, None),
        (DefinedType::Option(_), Val::Option(Some(v))) => (1, Some(&**v)),
        (DefinedType::Result { .. }, Val::Result(Ok(v))) => (0, v.as_deref()),
        (DefinedType::Result { .. }, Val::Result(Err(v))) => (1, v.as_deref()),
        _ => return Err(mismatch(ty, val)),
    };
    let case_ty = case_payload(def, index).flatten();
    if case_ty.is_some() != payload.is_some() {
        return Err(anyhow::anyhow!(
            "type mismatch: the payload of case {index} of {ty:?} is {}",
            if case_ty.is_some() { "missing" } else { "unexpected" }
        ));
    }
    let index = u32::try_from(index).map_err(|_| mismatch(ty, val))?;
    Ok((index, case_ty, payload))
}
