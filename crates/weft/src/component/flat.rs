//! Lifting values from and lowering values to flat core values
//! (`CanonicalABI.md`, "Flat Lifting", "Flat Lowering" and "Lifting and
//! Lowering Values"). See the module documentation of
//! [`crate::component`] for the representation of flat values.

use super::load_store::{
    canonicalize_f32, canonicalize_f64, check_fixed_length, convert_i32_to_char, defined, load_fields,
    load_list_from_range, load_map_from_range, load_string_from_range, pack_flags, realloc, record_layout,
    store_fields, store_list_into_range, store_map_into_range, store_string_into_range, unpack_flags,
};
use super::val::{case_count, case_payload, make_variant, match_case};
use super::{check_aligned, mismatch, range, ComponentTypes, InterfaceType, LiftContext, LowerContext, Val};
use crate::Result;
use weft_environ::component::abi::{
    flatten_functype, AbiOptions, Context, FlatFuncType, MAX_FLAT_PARAMS, MAX_FLAT_RESULTS,
};
use weft_environ::component::{DefinedType, FuncType};

/// The number of flat core values of `ty` (`len(flatten_type(ty))`),
/// saturating, as the registry worked it out.
pub(crate) fn flat_count(types: &ComponentTypes, ty: InterfaceType) -> usize {
    types.value_abi(ty).flat_count()
}

/// The flat values being lifted, in order (`CoreValueIter`). Not a
/// stable API: the direct methods of [`super::Lift`] take it.
#[doc(hidden)]
pub struct FlatIter<'a> {
    values: &'a [u64],
}

impl<'a> FlatIter<'a> {
    /// The iterator over `values`.
    pub(crate) fn new(values: &'a [u64]) -> Self {
        FlatIter { values }
    }

    /// Whether every value was read.
    pub(crate) fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    pub(crate) fn next(&mut self) -> Result<u64> {
        let (first, rest) = self
            .values
            .split_first()
            .ok_or_else(|| anyhow::anyhow!("type mismatch: too few flat values"))?;
        self.values = rest;
        Ok(*first)
    }

    /// The next `n` values, as a slice.
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u64]> {
        if n > self.values.len() {
            return Err(anyhow::anyhow!("type mismatch: too few flat values"));
        }
        let (taken, rest) = self.values.split_at(n);
        self.values = rest;
        Ok(taken)
    }

    pub(crate) fn next_i32(&mut self) -> Result<u32> {
        // The low 32 bits: an `i32`, or an `i64` wrapped to one.
        Ok(self.next()? as u32)
    }
}

/// `lift_flat`: the value of type `ty` made of the flat values `flat`,
/// which must be exactly `flatten_type(ty)` many.
pub fn lift_flat(cx: &LiftContext<'_>, ty: InterfaceType, flat: &[u64]) -> Result<Val> {
    let mut vi = FlatIter { values: flat };
    let val = lift(cx, ty, &mut vi)?;
    if !vi.values.is_empty() {
        return Err(anyhow::anyhow!("type mismatch: too many flat values for {ty:?}"));
    }
    Ok(val)
}

pub(crate) fn lift(cx: &LiftContext<'_>, ty: InterfaceType, vi: &mut FlatIter<'_>) -> Result<Val> {
    use InterfaceType as T;
    Ok(match ty {
        T::Bool => Val::Bool(vi.next_i32()? != 0),
        T::S8 => Val::S8(vi.next_i32()? as u8 as i8),
        T::U8 => Val::U8(vi.next_i32()? as u8),
        T::S16 => Val::S16(vi.next_i32()? as u16 as i16),
        T::U16 => Val::U16(vi.next_i32()? as u16),
        T::S32 => Val::S32(vi.next_i32()? as i32),
        T::U32 => Val::U32(vi.next_i32()?),
        T::S64 => Val::S64(vi.next()? as i64),
        T::U64 => Val::U64(vi.next()?),
        // An `f32` carried as an `i32` or `i64` (a joined variant payload)
        // is the same low 32 bits.
        T::F32 => Val::Float32(canonicalize_f32(f32::from_bits(vi.next_i32()?))),
        T::F64 => Val::Float64(canonicalize_f64(f64::from_bits(vi.next()?))),
        T::Char => Val::Char(convert_i32_to_char(vi.next_i32()?)?),
        T::String => {
            let ptr = vi.next_i32()?;
            let units = vi.next_i32()?;
            Val::String(load_string_from_range(cx, ptr, units)?)
        }
        T::Own(_) => Val::Resource(super::ResourceAny::raw(vi.next_i32()?, true)),
        T::Borrow(_) => Val::Resource(super::ResourceAny::raw(vi.next_i32()?, false)),
        T::ErrorContext => Val::ErrorContext(super::ErrorContextAny::raw(vi.next_i32()?)),
        T::Defined(index) => {
            let def = defined(cx.types, index)?;
            match def {
                DefinedType::List(t) => {
                    let ptr = vi.next_i32()?;
                    let length = vi.next_i32()?;
                    Val::List(load_list_from_range(cx, ptr, length, *t)?)
                }
                DefinedType::Map(k, v) => {
                    let ptr = vi.next_i32()?;
                    let length = vi.next_i32()?;
                    Val::Map(load_map_from_range(cx, ptr, length, *k, *v)?)
                }
                DefinedType::FixedLengthList(t, n) => {
                    check_fixed_length(*n)?;
                    let mut elems = Vec::new();
                    for _ in 0..*n {
                        elems.push(lift(cx, *t, vi)?);
                    }
                    Val::List(elems)
                }
                DefinedType::Record(fields) => Val::Record(
                    fields
                        .iter()
                        .map(|f| Ok((f.name.clone(), lift(cx, f.ty, vi)?)))
                        .collect::<Result<_>>()?,
                ),
                DefinedType::Tuple(tys) => Val::Tuple(tys.iter().map(|t| lift(cx, *t, vi)).collect::<Result<_>>()?),
                DefinedType::Flags(labels) => {
                    let mut bytes = Vec::new();
                    for _ in 0..labels.len().div_ceil(32) {
                        bytes.extend_from_slice(&vi.next_i32()?.to_le_bytes());
                    }
                    unpack_flags(&bytes, labels)
                }
                DefinedType::Stream(_) => Val::Stream(super::StreamAny::raw(vi.next_i32()?)),
                DefinedType::Future(_) => Val::Future(super::FutureAny::raw(vi.next_i32()?)),
                _ => {
                    // `lift_flat_variant`: the payload is read from the
                    // joined payload values, all of which are consumed.
                    let case = vi.next_i32()?;
                    let payload_values = vi.take(flat_count(cx.types, ty).saturating_sub(1))?;
                    let Some(payload_ty) = case_payload(def, case as usize) else {
                        return Err(super::trap(format_args!(
                            "discriminant {case} out of range for {} cases",
                            case_count(def).unwrap_or_default()
                        )));
                    };
                    let payload = match payload_ty {
                        Some(t) => Some(lift(cx, t, &mut FlatIter { values: payload_values })?),
                        None => None,
                    };
                    make_variant(def, case, payload)?
                }
            }
        }
    })
}

/// `lower_flat`: the flat values of `val` as a value of type `ty`,
/// allocating with `realloc` for strings and lists.
pub fn lower_flat(cx: &mut LowerContext<'_>, val: &Val, ty: InterfaceType) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    lower(cx, val, ty, &mut out)?;
    Ok(out)
}

pub(crate) fn lower(cx: &mut LowerContext<'_>, val: &Val, ty: InterfaceType, out: &mut Vec<u64>) -> Result<()> {
    use InterfaceType as T;
    let i32 = |x: u32| u64::from(x);
    let v = match (ty, val) {
        (T::Bool, Val::Bool(b)) => u64::from(*b),
        (T::S8, Val::S8(v)) => i32(i32::from(*v) as u32),
        (T::U8, Val::U8(v)) => u64::from(*v),
        (T::S16, Val::S16(v)) => i32(i32::from(*v) as u32),
        (T::U16, Val::U16(v)) => u64::from(*v),
        (T::S32, Val::S32(v)) => i32(*v as u32),
        (T::U32, Val::U32(v)) => u64::from(*v),
        (T::S64, Val::S64(v)) => *v as u64,
        (T::U64, Val::U64(v)) => *v,
        (T::F32, Val::Float32(v)) => i32(canonicalize_f32(*v).to_bits()),
        (T::F64, Val::Float64(v)) => canonicalize_f64(*v).to_bits(),
        (T::Char, Val::Char(c)) => u64::from(*c),
        (T::String, Val::String(s)) => {
            let (ptr, units) = store_string_into_range(cx, s)?;
            out.extend([i32(ptr), i32(units)]);
            return Ok(());
        }
        (T::Own(_) | T::Borrow(_), Val::Resource(r)) => i32(r.index),
        (T::ErrorContext, Val::ErrorContext(e)) => i32(e.0.raw_index()),
        (T::ErrorContext, _) => return Err(mismatch(ty, val)),
        (T::Defined(index), _) => {
            let def = defined(cx.types, index)?;
            match (def, val) {
                (DefinedType::List(t), Val::List(elems)) => {
                    let (ptr, length) = store_list_into_range(cx, elems, *t)?;
                    out.extend([i32(ptr), i32(length)]);
                }
                (DefinedType::Map(k, v), Val::Map(pairs)) => {
                    let (ptr, length) = store_map_into_range(cx, pairs, *k, *v)?;
                    out.extend([i32(ptr), i32(length)]);
                }
                (DefinedType::FixedLengthList(t, n), Val::List(elems)) => {
                    if elems.len() != *n as usize {
                        return Err(mismatch(ty, val));
                    }
                    for e in elems {
                        lower(cx, e, *t, out)?;
                    }
                }
                (DefinedType::Record(fields), Val::Record(vals)) => {
                    if fields.len() != vals.len() || fields.iter().zip(vals).any(|(f, (n, _))| f.name != *n) {
                        return Err(mismatch(ty, val));
                    }
                    for (f, (_, v)) in fields.iter().zip(vals) {
                        lower(cx, v, f.ty, out)?;
                    }
                }
                (DefinedType::Tuple(tys), Val::Tuple(vals)) => {
                    if tys.len() != vals.len() {
                        return Err(mismatch(ty, val));
                    }
                    for (t, v) in tys.iter().zip(vals) {
                        lower(cx, v, *t, out)?;
                    }
                }
                (DefinedType::Flags(labels), _) => {
                    let mut bytes = pack_flags(ty, val, labels)?;
                    bytes.resize(bytes.len().div_ceil(4) * 4, 0);
                    for word in bytes.chunks_exact(4) {
                        out.push(i32(<[u8; 4]>::try_from(word).map_or(0, u32::from_le_bytes)));
                    }
                }
                (DefinedType::Stream(_), Val::Stream(e)) => out.push(i32(e.0.raw_index())),
                (DefinedType::Future(_), Val::Future(e)) => out.push(i32(e.0.raw_index())),
                (DefinedType::Stream(_) | DefinedType::Future(_), _) => return Err(mismatch(ty, val)),
                _ => {
                    // `lower_flat_variant`: the payload's values are padded
                    // with zeros to the joined payload's length. The
                    // coercions to joined types are the identity on 64-bit
                    // slots.
                    let (index, case_ty, payload) = match_case(ty, def, val)?;
                    out.push(i32(index));
                    let start = out.len();
                    if let (Some(t), Some(v)) = (case_ty, payload) {
                        lower(cx, v, t, out)?;
                    }
                    let end = start.saturating_add(flat_count(cx.types, ty).saturating_sub(1));
                    if out.len() > end {
                        return Err(mismatch(ty, val));
                    }
                    out.resize(end, 0);
                }
            }
            return Ok(());
        }
        _ => return Err(mismatch(ty, val)),
    };
    out.push(v);
    Ok(())
}

pub(crate) fn total_flat_count(types: &ComponentTypes, tys: impl IntoIterator<Item = InterfaceType>) -> usize {
    tys.into_iter().fold(0, |n, t| n.saturating_add(flat_count(types, t)))
}

/// `lift_flat_values`: the values of types `tys` from the flat values
/// `flat`. When `tys` flatten to more than `max_flat` values (e.g.
/// `MAX_FLAT_PARAMS` or `MAX_FLAT_RESULTS` of
/// `weft_environ::component::abi`), `flat` is a single pointer to them
/// stored as a tuple in memory.
pub fn lift_flat_values(
    cx: &LiftContext<'_>,
    max_flat: usize,
    tys: &[InterfaceType],
    flat: &[u64],
) -> Result<Vec<Val>> {
    lift_flat_iter(cx, max_flat, tys.iter().copied(), flat)
}

/// [`lift_flat_values`] of types given one by one.
pub(crate) fn lift_flat_iter(
    cx: &LiftContext<'_>,
    max_flat: usize,
    tys: impl Iterator<Item = InterfaceType> + Clone,
    flat: &[u64],
) -> Result<Vec<Val>> {
    let mut vi = FlatIter { values: flat };
    let vals = if total_flat_count(cx.types, tys.clone()) > max_flat {
        let ptr = vi.next_i32()?;
        let (align, size) = record_layout(cx.types, tys.clone());
        check_aligned(ptr, align)?;
        range(cx.memory.len(), ptr, size)?;
        load_fields(cx, tys, ptr)?
    } else {
        tys.map(|t| lift(cx, t, &mut vi)).collect::<Result<_>>()?
    };
    if !vi.values.is_empty() {
        return Err(anyhow::anyhow!("type mismatch: too many flat values"));
    }
    Ok(vals)
}

/// `lower_flat_values`: the flat values of `vals` of types `tys`. When
/// `tys` flatten to more than `max_flat` values, the values are stored as a
/// tuple in memory instead: at `out_param` if given (and the result is
/// empty), else in memory allocated with `realloc` (and the result is the
/// pointer).
pub fn lower_flat_values(
    cx: &mut LowerContext<'_>,
    max_flat: usize,
    vals: &[Val],
    tys: &[InterfaceType],
    out_param: Option<u32>,
) -> Result<Vec<u64>> {
    if vals.len() != tys.len() {
        return Err(anyhow::anyhow!(
            "type mismatch: {} values for {} types",
            vals.len(),
            tys.len()
        ));
    }
    let count = total_flat_count(cx.types, tys.iter().copied());
    if count <= max_flat {
        let mut out = Vec::with_capacity(count);
        for (v, t) in vals.iter().zip(tys) {
            lower(cx, v, *t, &mut out)?;
        }
        return Ok(out);
    }
    let (align, size) = record_layout(cx.types, tys.iter().copied());
    let (ptr, out) = match out_param {
        Some(ptr) => (ptr, Vec::new()),
        None => {
            let ptr = realloc(cx, 0, 0, align, size)?;
            (ptr, vec![u64::from(ptr)])
        }
    };
    check_aligned(ptr, align)?;
    range(cx.memory.memory().len(), ptr, size)?;
    store_fields(cx, vals.iter().zip(tys.iter().copied()), ptr)?;
    Ok(out)
}

/// The flat signature of `ty` in `context`, with the error of an async
/// function (not supported yet).
fn sync_signature(cx_types: &ComponentTypes, ty: &FuncType, context: Context) -> Result<FlatFuncType> {
    if ty.is_async {
        return Err(anyhow::anyhow!(
            "unsupported: lifting and lowering the values of async functions"
        ));
    }
    Ok(flatten_functype(cx_types, ty, AbiOptions::default(), context))
}

fn check_count(what: &str, expected: usize, found: usize) -> Result<()> {
    if expected != found {
        return Err(anyhow::anyhow!(
            "type mismatch: expected {expected} flat {what}, found {found}"
        ));
    }
    Ok(())
}

/// The arguments of a call to a lifted (guest) function of type `ty`: its
/// core parameters, as `flatten_functype(ty, Context::Lift)` has them.
/// Past [`MAX_FLAT_PARAMS`] flat values, the arguments are stored in memory
/// allocated with `realloc` and the core parameter is the pointer.
pub fn lower_params(cx: &mut LowerContext<'_>, ty: &FuncType, args: &[Val]) -> Result<Vec<u64>> {
    let sig = sync_signature(cx.types, ty, Context::Lift)?;
    let tys: Vec<_> = ty.param_types().collect();
    let flat = lower_flat_values(cx, MAX_FLAT_PARAMS, args, &tys, None)?;
    check_count("parameters", sig.params.len(), flat.len())?;
    Ok(flat)
}

/// The result of a call to a lifted (guest) function of type `ty`, from its
/// core results (`flatten_functype(ty, Context::Lift)`): past
/// [`MAX_FLAT_RESULTS`] flat values, the core result is a pointer to the
/// result in memory.
pub fn lift_results(cx: &LiftContext<'_>, ty: &FuncType, flat: &[u64]) -> Result<Option<Val>> {
    let sig = sync_signature(cx.types, ty, Context::Lift)?;
    check_count("results", sig.results.len(), flat.len())?;
    let tys: Vec<_> = ty.result.into_iter().collect();
    Ok(lift_flat_values(cx, MAX_FLAT_RESULTS, &tys, flat)?.pop())
}

/// Whether the results of `ty` are returned through a pointer parameter
/// when it is lowered.
pub(crate) fn results_spill(types: &ComponentTypes, ty: &FuncType) -> bool {
    total_flat_count(types, ty.result) > MAX_FLAT_RESULTS
}

/// The arguments of a call to a lowered (host) function of type `ty`, from
/// its core parameters (`flatten_functype(ty, Context::Lower)`): past
/// [`MAX_FLAT_PARAMS`] flat values they are in memory at the first core
/// parameter, and when the result spills the last core parameter is the
/// pointer to store it at (see [`lower_results`]).
pub fn lift_params(cx: &LiftContext<'_>, ty: &FuncType, flat: &[u64]) -> Result<Vec<Val>> {
    let sig = sync_signature(cx.types, ty, Context::Lower)?;
    check_count("parameters", sig.params.len(), flat.len())?;
    let params = match results_spill(cx.types, ty) {
        true => flat.split_last().map_or(flat, |(_, rest)| rest),
        false => flat,
    };
    let tys: Vec<_> = ty.param_types().collect();
    lift_flat_values(cx, MAX_FLAT_PARAMS, &tys, params)
}

/// The core results of a lowered (host) function of type `ty` that
/// returns `result`, given the core parameters `flat_params` it was called
/// with: past [`MAX_FLAT_RESULTS`] flat values the result is stored at the
/// pointer in the last core parameter, and there are no core results.
pub fn lower_results(
    cx: &mut LowerContext<'_>,
    ty: &FuncType,
    result: Option<&Val>,
    flat_params: &[u64],
) -> Result<Vec<u64>> {
    let sig = sync_signature(cx.types, ty, Context::Lower)?;
    check_count("parameters", sig.params.len(), flat_params.len())?;
    let tys: Vec<_> = ty.result.into_iter().collect();
    let vals: Vec<Val> = result.into_iter().cloned().collect();
    let out_param = match results_spill(cx.types, ty) {
        true => flat_params.last().map(|p| *p as u32),
        false => None,
    };
    let flat = lower_flat_values(cx, MAX_FLAT_RESULTS, &vals, &tys, out_param)?;
    check_count("results", sig.results.len(), flat.len())?;
    Ok(flat)
}

/// `lower_scalars` and `lift_scalars` of the integer types and `bool`: the
/// canonical ABI's flat `i32` (zero- or sign-extended from the narrow
/// types) or `i64`, kept as bits in a `u64`; lifted by truncation, as
/// `lift_flat_unsigned`/`lift_flat_signed` do.
macro_rules! scalars {
    ($($t:ty => |$v:ident| $lower:expr, |$b:ident| $lift:expr;)*) => {$(
        impl ScalarFlat for $t {
            fn to_flat(&self) -> u64 {
                let $v = *self;
                $lower
            }

            fn from_flat($b: u64) -> Self {
                $lift
            }
        }
    )*};
}

/// A type whose values are one flat core value (see [`scalars!`]).
pub(crate) trait ScalarFlat: Sized {
    /// The flat value of `self`.
    fn to_flat(&self) -> u64;
    /// The value whose flat value is `bits`.
    fn from_flat(bits: u64) -> Self;
}

scalars! {
    bool => |v| u64::from(v), |b| b as u32 != 0;
    u8 => |v| u64::from(v), |b| b as u8;
    u16 => |v| u64::from(v), |b| b as u16;
    u32 => |v| u64::from(v), |b| b as u32;
    u64 => |v| v, |b| b;
    i8 => |v| u64::from(v as i32 as u32), |b| b as u8 as i8;
    i16 => |v| u64::from(v as i32 as u32), |b| b as u16 as i16;
    i32 => |v| u64::from(v as u32), |b| b as u32 as i32;
    i64 => |v| v as u64, |b| b as i64;
}

/// The flat value of `v` when it is a value of the scalar type `t` (an
/// integer or `bool`), as `lower_scalars` makes it.
#[cfg(feature = "component-model-async")]
pub(crate) fn val_to_flat(v: &Val, t: &InterfaceType) -> Option<u64> {
    use InterfaceType as I;
    Some(match (t, v) {
        (I::Bool, Val::Bool(x)) => x.to_flat(),
        (I::U8, Val::U8(x)) => x.to_flat(),
        (I::U16, Val::U16(x)) => x.to_flat(),
        (I::U32, Val::U32(x)) => x.to_flat(),
        (I::U64, Val::U64(x)) => x.to_flat(),
        (I::S8, Val::S8(x)) => x.to_flat(),
        (I::S16, Val::S16(x)) => x.to_flat(),
        (I::S32, Val::S32(x)) => x.to_flat(),
        (I::S64, Val::S64(x)) => x.to_flat(),
        _ => return None,
    })
}

/// The value of the scalar type `t` whose flat value is `bits`, lifted as
/// `lift_scalars` lifts it; `None` for other types.
#[cfg(feature = "component-model-async")]
pub(crate) fn flat_to_val(t: &InterfaceType, bits: u64) -> Option<Val> {
    use InterfaceType as I;
    Some(match t {
        I::Bool => Val::Bool(ScalarFlat::from_flat(bits)),
        I::U8 => Val::U8(ScalarFlat::from_flat(bits)),
        I::U16 => Val::U16(ScalarFlat::from_flat(bits)),
        I::U32 => Val::U32(ScalarFlat::from_flat(bits)),
        I::U64 => Val::U64(ScalarFlat::from_flat(bits)),
        I::S8 => Val::S8(ScalarFlat::from_flat(bits)),
        I::S16 => Val::S16(ScalarFlat::from_flat(bits)),
        I::S32 => Val::S32(ScalarFlat::from_flat(bits)),
        I::S64 => Val::S64(ScalarFlat::from_flat(bits)),
        _ => return None,
    })
}
