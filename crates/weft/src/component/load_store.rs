//! Loading values from and storing values to linear memory
//! (`CanonicalABI.md`, "Loading" and "Storing"), strings in the three
//! encodings included.

use super::val::{case_count, case_payload, make_variant, match_case};
use super::{
    add, check_aligned, mismatch, range, range_named, trap, ComponentTypes, InterfaceType, LiftContext, LowerContext,
    StringEncoding, Val, MAX_LIST_BYTE_LENGTH, MAX_STRING_BYTE_LENGTH, UTF16_TAG,
};
use crate::Result;
use weft_environ::component::abi::{align_to, discriminant_size, flags_size, PtrType};
use weft_environ::component::{DefinedType, TypeDefinedIndex};

const PTR: PtrType = PtrType::I32;

/// The definition of the defined type `index`.
pub(crate) fn defined(types: &ComponentTypes, index: TypeDefinedIndex) -> Result<&DefinedType> {
    types
        .defined(index)
        .ok_or_else(|| anyhow::anyhow!("type mismatch: type index {} is not in the registry", index.0))
}

/// The alignment of `ty` in a 32-bit memory.
pub(crate) fn align_of(types: &ComponentTypes, ty: InterfaceType) -> u32 {
    types.value_abi(ty).layout(PTR).align
}

/// The size of `ty` in a 32-bit memory.
pub(crate) fn size_of(types: &ComponentTypes, ty: InterfaceType) -> u32 {
    types.value_abi(ty).layout(PTR).size
}

/// The offsets of the fields of the record or tuple type `index` in a
/// 32-bit memory, as the registry worked them out.
fn field_offsets(types: &ComponentTypes, index: TypeDefinedIndex) -> &[u32] {
    types.defined_abi(index).map_or(&[], |abi| abi.field_offsets(PTR))
}

/// The offset of the payload of the variant-like type `index` from its
/// start, in a 32-bit memory.
fn payload_offset(types: &ComponentTypes, index: TypeDefinedIndex) -> u32 {
    types.defined_abi(index).map_or(0, |abi| abi.payload_offset(PTR))
}

/// A record's layout worked out field by field, as the registry lays out
/// a record type (`ValueAbi::record` of weft-environ), without allocating.
#[derive(Default)]
pub(crate) struct RecordWalk {
    /// The end of the last field placed.
    end: u32,
    /// The largest alignment so far.
    align: u32,
}

impl RecordWalk {
    /// Places a field of type `ty` after the ones before: its offset.
    pub(crate) fn field(&mut self, types: &ComponentTypes, ty: InterfaceType) -> u32 {
        let l = types.value_abi(ty).layout(PTR);
        self.align = self.align.max(l.align);
        let offset = align_to(self.end, l.align);
        self.end = offset.saturating_add(l.size);
        offset
    }
}

/// The alignment and size of a record of fields of types `tys` in a
/// 32-bit memory, laid out as the registry lays out a record type.
pub(crate) fn record_layout(types: &ComponentTypes, tys: impl IntoIterator<Item = InterfaceType>) -> (u32, u32) {
    let mut walk = RecordWalk::default();
    for t in tys {
        walk.field(types, t);
    }
    let align = walk.align.max(1);
    (align, align_to(walk.end, align))
}

pub(crate) fn read<const N: usize>(memory: &[u8], ptr: u32) -> Result<[u8; N]> {
    let r = range(memory.len(), ptr, N as u32)?;
    let mut out = [0; N];
    if let Some(bytes) = memory.get(r) {
        out.copy_from_slice(bytes);
    }
    Ok(out)
}

fn read_u32(memory: &[u8], ptr: u32) -> Result<u32> {
    Ok(u32::from_le_bytes(read(memory, ptr)?))
}

pub(crate) fn write(memory: &mut [u8], ptr: u32, bytes: &[u8]) -> Result<()> {
    let len = u32::try_from(bytes.len()).map_err(|_| trap("write larger than the address space"))?;
    let r = range(memory.len(), ptr, len)?;
    if let Some(dst) = memory.get_mut(r) {
        dst.copy_from_slice(bytes);
    }
    Ok(())
}

/// `canonicalize_nan32`.
pub(crate) fn canonicalize_f32(f: f32) -> f32 {
    if f.is_nan() {
        f32::from_bits(0x7fc0_0000)
    } else {
        f
    }
}

/// `canonicalize_nan64`.
pub(crate) fn canonicalize_f64(f: f64) -> f64 {
    if f.is_nan() {
        f64::from_bits(0x7ff8_0000_0000_0000)
    } else {
        f
    }
}

/// `convert_i32_to_char`: traps on surrogates and values past `0x10FFFF`.
pub(crate) fn convert_i32_to_char(i: u32) -> Result<char> {
    char::from_u32(i).ok_or_else(|| trap(format_args!("invalid `char` bit pattern {i:#x}")))
}

/// `unpack_flags_from_int`, over the little-endian bytes of the flags.
pub(crate) fn unpack_flags(bytes: &[u8], labels: &[String]) -> Val {
    let set = labels
        .iter()
        .enumerate()
        .filter(|(i, _)| bytes.get(i / 8).is_some_and(|b| b >> (i % 8) & 1 == 1))
        .map(|(_, l)| l.clone())
        .collect();
    Val::Flags(set)
}

/// `pack_flags_into_int`, as little-endian bytes (`flags_size` of them).
pub(crate) fn pack_flags(ty: InterfaceType, val: &Val, labels: &[String]) -> Result<Vec<u8>> {
    let Val::Flags(set) = val else {
        return Err(mismatch(ty, val));
    };
    let mut bytes = vec![0u8; flags_size(labels.len()) as usize];
    for name in set {
        let i = labels
            .iter()
            .position(|l| l == name)
            .ok_or_else(|| anyhow::anyhow!("type mismatch: no flag `{name}` in {ty:?}"))?;
        if let Some(b) = bytes.get_mut(i / 8) {
            *b |= 1 << (i % 8);
        }
    }
    Ok(bytes)
}

/// `load`: the value of type `ty` at `ptr`. Traps unless `ptr` is aligned
/// for `ty` and the whole value is in bounds.
pub fn load(cx: &LiftContext<'_>, ty: InterfaceType, ptr: u32) -> Result<Val> {
    use InterfaceType as T;
    let mem = cx.memory;
    check_aligned(ptr, align_of(cx.types, ty))?;
    range(mem.len(), ptr, size_of(cx.types, ty))?;
    Ok(match ty {
        T::Bool => Val::Bool(read::<1>(mem, ptr)?[0] != 0),
        T::S8 => Val::S8(i8::from_le_bytes(read(mem, ptr)?)),
        T::U8 => Val::U8(u8::from_le_bytes(read(mem, ptr)?)),
        T::S16 => Val::S16(i16::from_le_bytes(read(mem, ptr)?)),
        T::U16 => Val::U16(u16::from_le_bytes(read(mem, ptr)?)),
        T::S32 => Val::S32(i32::from_le_bytes(read(mem, ptr)?)),
        T::U32 => Val::U32(u32::from_le_bytes(read(mem, ptr)?)),
        T::S64 => Val::S64(i64::from_le_bytes(read(mem, ptr)?)),
        T::U64 => Val::U64(u64::from_le_bytes(read(mem, ptr)?)),
        T::F32 => Val::Float32(canonicalize_f32(f32::from_le_bytes(read(mem, ptr)?))),
        T::F64 => Val::Float64(canonicalize_f64(f64::from_le_bytes(read(mem, ptr)?))),
        T::Char => Val::Char(convert_i32_to_char(read_u32(mem, ptr)?)?),
        T::String => {
            let begin = read_u32(mem, ptr)?;
            let units = read_u32(mem, add(ptr, 4)?)?;
            Val::String(load_string_from_range(cx, begin, units)?)
        }
        T::Own(_) => Val::Resource(super::ResourceAny::raw(read_u32(mem, ptr)?, true)),
        T::Borrow(_) => Val::Resource(super::ResourceAny::raw(read_u32(mem, ptr)?, false)),
        T::ErrorContext => Val::ErrorContext(super::ErrorContextAny::raw(read_u32(mem, ptr)?)),
        T::Defined(index) => {
            let def = defined(cx.types, index)?;
            match def {
                DefinedType::List(t) => {
                    let begin = read_u32(mem, ptr)?;
                    let length = read_u32(mem, add(ptr, 4)?)?;
                    Val::List(load_list_from_range(cx, begin, length, *t)?)
                }
                DefinedType::Map(k, v) => {
                    let begin = read_u32(mem, ptr)?;
                    let length = read_u32(mem, add(ptr, 4)?)?;
                    Val::Map(load_map_from_range(cx, begin, length, *k, *v)?)
                }
                DefinedType::FixedLengthList(t, n) => {
                    check_fixed_length(*n)?;
                    let size = size_of(cx.types, *t);
                    let mut elems = Vec::new();
                    for i in 0..*n {
                        elems.push(load(cx, *t, add(ptr, i.saturating_mul(size))?)?);
                    }
                    Val::List(elems)
                }
                DefinedType::Record(fields) => {
                    let offsets = field_offsets(cx.types, index);
                    let vals = load_fields_at(cx, fields.iter().map(|f| f.ty), offsets, ptr)?;
                    Val::Record(fields.iter().map(|f| f.name.clone()).zip(vals).collect())
                }
                DefinedType::Tuple(tys) => {
                    let offsets = field_offsets(cx.types, index);
                    Val::Tuple(load_fields_at(cx, tys.iter().copied(), offsets, ptr)?)
                }
                DefinedType::Flags(labels) => {
                    let r = range(mem.len(), ptr, flags_size(labels.len()))?;
                    unpack_flags(mem.get(r).unwrap_or_default(), labels)
                }
                DefinedType::Stream(_) => Val::Stream(super::StreamAny::raw(read_u32(mem, ptr)?)),
                DefinedType::Future(_) => Val::Future(super::FutureAny::raw(read_u32(mem, ptr)?)),
                DefinedType::Variant(_)
                | DefinedType::Enum(_)
                | DefinedType::Option(_)
                | DefinedType::Result { .. } => {
                    let cases = case_count(def).unwrap_or_default();
                    let case = match discriminant_size(cases) {
                        1 => u32::from(read::<1>(mem, ptr)?[0]),
                        2 => u32::from(u16::from_le_bytes(read(mem, ptr)?)),
                        _ => read_u32(mem, ptr)?,
                    };
                    let Some(payload_ty) = case_payload(def, case as usize) else {
                        return Err(trap(format_args!("discriminant {case} out of range for {cases} cases")));
                    };
                    let payload = match payload_ty {
                        Some(t) => Some(load(cx, t, add(ptr, payload_offset(cx.types, index))?)?),
                        None => None,
                    };
                    make_variant(def, case, payload)?
                }
            }
        }
    })
}

/// Fixed-length lists of zero-sized elements take no memory but one `Val`
/// each: their length is limited like that of other lists.
pub(crate) fn check_fixed_length(n: u32) -> Result<()> {
    if n > MAX_LIST_BYTE_LENGTH {
        return Err(trap(format_args!("list of {n} elements is too long")));
    }
    Ok(())
}

/// `load_record`: the fields of types `tys` of a record at `ptr`.
pub(crate) fn load_fields(
    cx: &LiftContext<'_>,
    tys: impl IntoIterator<Item = InterfaceType>,
    ptr: u32,
) -> Result<Vec<Val>> {
    let mut walk = RecordWalk::default();
    tys.into_iter()
        .map(|t| load(cx, t, add(ptr, walk.field(cx.types, t))?))
        .collect()
}

/// The fields of types `tys` at `offsets` from `ptr`.
fn load_fields_at(
    cx: &LiftContext<'_>,
    tys: impl ExactSizeIterator<Item = InterfaceType>,
    offsets: &[u32],
    ptr: u32,
) -> Result<Vec<Val>> {
    check_offsets(tys.len(), offsets)?;
    tys.zip(offsets).map(|(t, o)| load(cx, t, add(ptr, *o)?)).collect()
}

/// Fails unless there is an offset for each of `fields` fields (there is in
/// a registry whose parts come before the types made of them).
fn check_offsets(fields: usize, offsets: &[u32]) -> Result<()> {
    if fields != offsets.len() {
        return Err(anyhow::anyhow!(
            "type mismatch: a record of {fields} fields has a layout of {} fields",
            offsets.len()
        ));
    }
    Ok(())
}

/// `load_list_from_range`.
pub(crate) fn load_list_from_range(
    cx: &LiftContext<'_>,
    ptr: u32,
    length: u32,
    elem: InterfaceType,
) -> Result<Vec<Val>> {
    let size = check_list_range(cx, ptr, length, elem)?;
    let mut elems = Vec::with_capacity(length.min(1024) as usize);
    for i in 0..length {
        elems.push(load(cx, elem, add(ptr, i.saturating_mul(size))?)?);
    }
    Ok(elems)
}

/// Checks the list of `length` elements of type `elem` at `ptr` before
/// it is loaded: its length, alignment and bounds. The size of an element.
pub(crate) fn check_list_range(cx: &LiftContext<'_>, ptr: u32, length: u32, elem: InterfaceType) -> Result<u32> {
    let size = size_of(cx.types, elem);
    let bytes = u64::from(length) * u64::from(size);
    // Zero-sized elements take no memory but one `Val` each: limit their
    // count like the byte length of other lists.
    if bytes > u64::from(MAX_LIST_BYTE_LENGTH) || length > MAX_LIST_BYTE_LENGTH {
        return Err(trap(format_args!("list of {length} elements is too long")));
    }
    check_aligned(ptr, align_of(cx.types, elem))?;
    // `bytes` fits in `u32` as it is at most `MAX_LIST_BYTE_LENGTH`.
    let what = "list pointer/length out of bounds of memory";
    range_named(what, cx.memory.len(), ptr, bytes as u32)?;
    Ok(size)
}

/// The entry type `tuple<K, V>` of `map<K, V>`, the element type of the
/// list the map is lifted and lowered as.
pub(crate) fn map_entry(types: &ComponentTypes, key: InterfaceType, value: InterfaceType) -> Result<InterfaceType> {
    types.map_entry(key, value).ok_or_else(|| {
        anyhow::anyhow!("type mismatch: the entry type of map<{key:?}, {value:?}> is not in the registry")
    })
}

/// `load_list_from_range` of the `list<tuple<K, V>>` a `map<K, V>`
/// despecializes to: the map's entries, in order (duplicate keys kept).
pub(crate) fn load_map_from_range(
    cx: &LiftContext<'_>,
    ptr: u32,
    length: u32,
    key: InterfaceType,
    value: InterfaceType,
) -> Result<Vec<(Val, Val)>> {
    let entry = map_entry(cx.types, key, value)?;
    load_list_from_range(cx, ptr, length, entry)?
        .into_iter()
        .map(|e| match e {
            Val::Tuple(kv) => match <[Val; 2]>::try_from(kv) {
                Ok([k, v]) => Ok((k, v)),
                Err(_) => Err(anyhow::anyhow!("type mismatch: a map entry is not a pair")),
            },
            _ => Err(anyhow::anyhow!("type mismatch: a map entry is not a pair")),
        })
        .collect()
}

/// Allocates, with the destination's `realloc`, room for `len` elements of
/// type `elem`; returns the pointer, the length as a `u32` and the element
/// size. A list too large for a 32-bit memory traps.
pub(crate) fn allocate_list(cx: &mut LowerContext<'_>, len: usize, elem: InterfaceType) -> Result<(u32, u32, u32)> {
    let size = size_of(cx.types, elem);
    let length = u32::try_from(len).map_err(|_| trap("list too long for a 32-bit memory"))?;
    let bytes =
        u32::try_from(u64::from(length) * u64::from(size)).map_err(|_| trap("list too large for a 32-bit memory"))?;
    let align = align_of(cx.types, elem);
    let ptr = realloc(cx, 0, 0, align, bytes)?;
    Ok((ptr, length, size))
}

/// `store_list_into_range` of the `list<tuple<K, V>>` a `map<K, V>`
/// despecializes to: allocates and stores the entries `pairs`, returning
/// the pointer and length.
pub(crate) fn store_map_into_range(
    cx: &mut LowerContext<'_>,
    pairs: &[(Val, Val)],
    key: InterfaceType,
    value: InterfaceType,
) -> Result<(u32, u32)> {
    let entry = map_entry(cx.types, key, value)?;
    let (ptr, length, size) = allocate_list(cx, pairs.len(), entry)?;
    for (i, (k, v)) in (0u32..).zip(pairs) {
        store_fields(cx, [(k, key), (v, value)], add(ptr, i.saturating_mul(size))?)?;
    }
    Ok((ptr, length))
}

/// `load_string_from_range`: the string of `tagged_code_units` code units
/// at `ptr`, in the encoding of `cx`.
pub(crate) fn load_string_from_range(cx: &LiftContext<'_>, ptr: u32, tagged_code_units: u32) -> Result<String> {
    enum Enc {
        Utf8,
        Utf16,
        Latin1,
    }
    let (align, byte_length, enc) = match cx.encoding {
        StringEncoding::Utf8 => (1, u64::from(tagged_code_units), Enc::Utf8),
        StringEncoding::Utf16 => (2, 2 * u64::from(tagged_code_units), Enc::Utf16),
        StringEncoding::CompactUtf16 if tagged_code_units & UTF16_TAG != 0 => {
            (2, 2 * u64::from(tagged_code_units ^ UTF16_TAG), Enc::Utf16)
        }
        StringEncoding::CompactUtf16 => (2, u64::from(tagged_code_units), Enc::Latin1),
    };
    if byte_length > u64::from(MAX_STRING_BYTE_LENGTH) {
        return Err(trap(format_args!("string of {byte_length} bytes is too long")));
    }
    check_aligned(ptr, align)?;
    // At most `MAX_STRING_BYTE_LENGTH`.
    let what = "string pointer/length out of bounds of memory";
    let r = range_named(what, cx.memory.len(), ptr, byte_length as u32)?;
    let bytes = cx.memory.get(r).unwrap_or_default();
    match enc {
        Enc::Utf8 => std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|e| trap(format_args!("invalid UTF-8: {e}"))),
        Enc::Utf16 => {
            let units = bytes
                .chunks_exact(2)
                .map(|c| <[u8; 2]>::try_from(c).map_or(0, u16::from_le_bytes));
            char::decode_utf16(units)
                .collect::<Result<String, _>>()
                .map_err(|e| trap(format_args!("invalid UTF-16: {e}")))
        }
        Enc::Latin1 => Ok(bytes.iter().map(|b| char::from(*b)).collect()),
    }
}

/// `store`: writes `val` as a value of type `ty` at `ptr`, allocating with
/// `realloc` for strings and lists. Traps unless `ptr` is aligned for `ty`
/// and the whole value is in bounds.
pub fn store(cx: &mut LowerContext<'_>, val: &Val, ty: InterfaceType, ptr: u32) -> Result<()> {
    use InterfaceType as T;
    let types = cx.types;
    check_aligned(ptr, align_of(types, ty))?;
    range(cx.memory.memory().len(), ptr, size_of(types, ty))?;
    let (bytes, len) = match (ty, val) {
        (T::Bool, Val::Bool(b)) => le([u8::from(*b)]),
        (T::S8, Val::S8(v)) => le(v.to_le_bytes()),
        (T::U8, Val::U8(v)) => le(v.to_le_bytes()),
        (T::S16, Val::S16(v)) => le(v.to_le_bytes()),
        (T::U16, Val::U16(v)) => le(v.to_le_bytes()),
        (T::S32, Val::S32(v)) => le(v.to_le_bytes()),
        (T::U32, Val::U32(v)) => le(v.to_le_bytes()),
        (T::S64, Val::S64(v)) => le(v.to_le_bytes()),
        (T::U64, Val::U64(v)) => le(v.to_le_bytes()),
        (T::F32, Val::Float32(v)) => le(canonicalize_f32(*v).to_le_bytes()),
        (T::F64, Val::Float64(v)) => le(canonicalize_f64(*v).to_le_bytes()),
        (T::Char, Val::Char(c)) => le(u32::from(*c).to_le_bytes()),
        (T::String, Val::String(s)) => {
            let (begin, units) = store_string_into_range(cx, s)?;
            pair(begin, units)
        }
        (T::Own(_) | T::Borrow(_), Val::Resource(r)) => le(r.index.to_le_bytes()),
        (T::ErrorContext, Val::ErrorContext(e)) => le(e.0.raw_index().to_le_bytes()),
        (T::ErrorContext, _) => return Err(super::mismatch(ty, val)),
        (T::Defined(index), _) => {
            let def = defined(types, index)?;
            match (def, val) {
                (DefinedType::List(t), Val::List(elems)) => {
                    let (begin, length) = store_list_into_range(cx, elems, *t)?;
                    pair(begin, length)
                }
                (DefinedType::Map(k, v), Val::Map(pairs)) => {
                    let (begin, length) = store_map_into_range(cx, pairs, *k, *v)?;
                    pair(begin, length)
                }
                (DefinedType::FixedLengthList(t, n), Val::List(elems)) => {
                    if elems.len() != *n as usize {
                        return Err(anyhow::anyhow!(
                            "type mismatch: {ty:?} has {n} elements, found {}",
                            elems.len()
                        ));
                    }
                    let size = size_of(types, *t);
                    for (i, e) in (0u32..).zip(elems) {
                        store(cx, e, *t, add(ptr, i.saturating_mul(size))?)?;
                    }
                    return Ok(());
                }
                (DefinedType::Record(fields), Val::Record(vals)) => {
                    if fields.len() != vals.len() || fields.iter().zip(vals).any(|(f, (n, _))| f.name != *n) {
                        return Err(mismatch(ty, val));
                    }
                    let offsets = field_offsets(types, index);
                    let fields = vals.iter().map(|(_, v)| v).zip(fields.iter().map(|f| f.ty));
                    return store_fields_at(cx, fields, offsets, ptr);
                }
                (DefinedType::Tuple(tys), Val::Tuple(vals)) => {
                    if tys.len() != vals.len() {
                        return Err(mismatch(ty, val));
                    }
                    let offsets = field_offsets(types, index);
                    return store_fields_at(cx, vals.iter().zip(tys.iter().copied()), offsets, ptr);
                }
                (DefinedType::Flags(labels), _) => {
                    return write(cx.memory.memory(), ptr, &pack_flags(ty, val, labels)?)
                }
                (DefinedType::Stream(_), Val::Stream(e)) => le(e.0.raw_index().to_le_bytes()),
                (DefinedType::Future(_), Val::Future(e)) => le(e.0.raw_index().to_le_bytes()),
                (DefinedType::Stream(_) | DefinedType::Future(_), _) => return Err(super::mismatch(ty, val)),
                _ => {
                    let (case, case_ty, payload) = match_case(ty, def, val)?;
                    let disc = case.to_le_bytes();
                    let disc_size = discriminant_size(case_count(def).unwrap_or_default()) as usize;
                    write(cx.memory.memory(), ptr, disc.get(..disc_size).unwrap_or(&disc))?;
                    if let (Some(t), Some(v)) = (case_ty, payload) {
                        store(cx, v, t, add(ptr, payload_offset(types, index))?)?;
                    }
                    return Ok(());
                }
            }
        }
        _ => return Err(mismatch(ty, val)),
    };
    write(cx.memory.memory(), ptr, bytes.get(..len).unwrap_or(&bytes))
}

/// Little-endian bytes of a scalar, in a buffer of 8 with their count.
fn le<const N: usize>(bytes: [u8; N]) -> ([u8; 8], usize) {
    let mut buf = [0; 8];
    if let Some(dst) = buf.get_mut(..N) {
        dst.copy_from_slice(&bytes);
    }
    (buf, N)
}

fn pair(a: u32, b: u32) -> ([u8; 8], usize) {
    let mut buf = [0; 8];
    buf[..4].copy_from_slice(&a.to_le_bytes());
    buf[4..].copy_from_slice(&b.to_le_bytes());
    (buf, 8)
}

/// `store_record`: the `fields` of a record at `ptr`, each a value with
/// its type (the caller has checked that there is a value for each type).
pub(crate) fn store_fields<'v>(
    cx: &mut LowerContext<'_>,
    fields: impl IntoIterator<Item = (&'v Val, InterfaceType)>,
    ptr: u32,
) -> Result<()> {
    let mut walk = RecordWalk::default();
    for (v, t) in fields {
        let offset = walk.field(cx.types, t);
        store(cx, v, t, add(ptr, offset)?)?;
    }
    Ok(())
}

/// Stores each field value with its type at its offset from `ptr`.
fn store_fields_at<'v>(
    cx: &mut LowerContext<'_>,
    fields: impl ExactSizeIterator<Item = (&'v Val, InterfaceType)>,
    offsets: &[u32],
    ptr: u32,
) -> Result<()> {
    check_offsets(fields.len(), offsets)?;
    for ((v, t), o) in fields.zip(offsets) {
        store(cx, v, t, add(ptr, *o)?)?;
    }
    Ok(())
}

/// `realloc` followed by the checks of the spec: the result must be aligned
/// and the allocation in bounds.
pub(crate) fn realloc(
    cx: &mut LowerContext<'_>,
    old_ptr: u32,
    old_size: u32,
    align: u32,
    new_size: u32,
) -> Result<u32> {
    let ptr = cx.memory.realloc(old_ptr, old_size, align, new_size)?;
    if !ptr.is_multiple_of(align.max(1)) {
        return Err(trap(format_args!(
            "realloc return: result not aligned ({ptr:#x}, not aligned to {align})"
        )));
    }
    let what = "realloc return: beyond end of memory";
    range_named(what, cx.memory.memory().len(), ptr, new_size)?;
    Ok(ptr)
}

/// `store_list_into_range`: allocates and stores `elems`, returning the
/// pointer and length.
pub(crate) fn store_list_into_range(
    cx: &mut LowerContext<'_>,
    elems: &[Val],
    elem: InterfaceType,
) -> Result<(u32, u32)> {
    let (ptr, length, size) = allocate_list(cx, elems.len(), elem)?;
    for (i, e) in (0u32..).zip(elems) {
        store(cx, e, elem, add(ptr, i.saturating_mul(size))?)?;
    }
    Ok((ptr, length))
}

/// `store_string_into_range` for a host string (UTF-8, its byte length as
/// the code-unit hint): allocates and stores `s` in the encoding of `cx`,
/// returning the pointer and the (tagged) number of code units.
pub(crate) fn store_string_into_range(cx: &mut LowerContext<'_>, s: &str) -> Result<(u32, u32)> {
    let units = match u32::try_from(s.len()) {
        Ok(n) if n <= MAX_STRING_BYTE_LENGTH => n,
        _ => return Err(trap(format_args!("string of {} bytes is too long", s.len()))),
    };
    store_string(cx, s, StringEncoding::Utf8, units)
}

/// The encodings a string's code units can be in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Simple {
    Utf8,
    Utf16,
    Latin1,
}

fn write_at(cx: &mut LowerContext<'_>, ptr: u32, bytes: &[u8]) -> crate::Result<()> {
    let len = u32::try_from(bytes.len()).map_err(|_| trap("write larger than the address space"))?;
    let memory = cx.memory.memory();
    let r = range(memory.len(), ptr, len)?;
    if let Some(dst) = memory.get_mut(r) {
        dst.copy_from_slice(bytes);
    }
    Ok(())
}

fn utf16_bytes(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// `store_string_into_range` of CanonicalABI.md for the string `s` whose
/// source was in `src_encoding` with `src_tagged_code_units` code units
/// (a host string is UTF-8, its byte length the code units); allocates
/// with the destination's `realloc`, returns the pointer and the (tagged)
/// number of code units.
pub(crate) fn store_string(
    cx: &mut LowerContext<'_>,
    s: &str,
    src_encoding: StringEncoding,
    src_tagged_code_units: u32,
) -> crate::Result<(u32, u32)> {
    let (simple, units) = match src_encoding {
        StringEncoding::CompactUtf16 if src_tagged_code_units & UTF16_TAG != 0 => {
            (Simple::Utf16, src_tagged_code_units ^ UTF16_TAG)
        }
        StringEncoding::CompactUtf16 => (Simple::Latin1, src_tagged_code_units),
        StringEncoding::Utf16 => (Simple::Utf16, src_tagged_code_units),
        StringEncoding::Utf8 => (Simple::Utf8, src_tagged_code_units),
    };
    match (cx.encoding, simple) {
        (StringEncoding::Utf8, Simple::Utf8) => copy(cx, s.as_bytes(), units, 1, 1),
        (StringEncoding::Utf8, Simple::Utf16) => to_utf8(cx, s, units, units.saturating_mul(3)),
        (StringEncoding::Utf8, Simple::Latin1) => to_utf8(cx, s, units, units.saturating_mul(2)),
        (StringEncoding::Utf16, Simple::Utf8) => utf8_to_utf16(cx, s, units),
        (StringEncoding::Utf16, _) => copy(cx, &utf16_bytes(s), units, 2, 2),
        (StringEncoding::CompactUtf16, Simple::Latin1) => {
            let latin1: Vec<u8> = s.chars().map(|c| u32::from(c) as u8).collect();
            copy(cx, &latin1, units, 1, 2)
        }
        (StringEncoding::CompactUtf16, Simple::Utf16) if src_encoding == StringEncoding::CompactUtf16 => {
            probably_utf16_to_latin1_or_utf16(cx, s, units)
        }
        (StringEncoding::CompactUtf16, _) => to_latin1_or_utf16(cx, s, units),
    }
}

/// `store_string_copy`.
fn copy(
    cx: &mut LowerContext<'_>,
    encoded: &[u8],
    units: u32,
    unit_size: u32,
    align: u32,
) -> crate::Result<(u32, u32)> {
    let byte_length = unit_size.saturating_mul(units);
    let ptr = realloc(cx, 0, 0, align, byte_length)?;
    write_at(cx, ptr, encoded)?;
    Ok((ptr, units))
}

/// `store_string_to_utf8`.
fn to_utf8(cx: &mut LowerContext<'_>, s: &str, units: u32, worst_case_size: u32) -> crate::Result<(u32, u32)> {
    let mut ptr = realloc(cx, 0, 0, 1, units)?;
    for (i, c) in s.chars().enumerate() {
        if (c as u32) < 0x80 {
            write_at(cx, ptr.saturating_add(i as u32), &[c as u8])?;
            continue;
        }
        ptr = realloc(cx, ptr, units, 1, worst_case_size)?;
        let encoded = s.as_bytes();
        write_at(cx, ptr.saturating_add(i as u32), encoded.get(i..).unwrap_or_default())?;
        let len = encoded.len() as u32;
        if worst_case_size > len {
            ptr = realloc(cx, ptr, worst_case_size, 1, len)?;
        }
        return Ok((ptr, len));
    }
    Ok((ptr, units))
}

/// `store_utf8_to_utf16`.
fn utf8_to_utf16(cx: &mut LowerContext<'_>, s: &str, units: u32) -> crate::Result<(u32, u32)> {
    let worst_case_size = units.saturating_mul(2);
    let mut ptr = realloc(cx, 0, 0, 2, worst_case_size)?;
    let encoded = utf16_bytes(s);
    write_at(cx, ptr, &encoded)?;
    let len = encoded.len() as u32;
    if len < worst_case_size {
        ptr = realloc(cx, ptr, worst_case_size, 2, len)?;
    }
    Ok((ptr, len / 2))
}

/// `store_string_to_latin1_or_utf16`.
fn to_latin1_or_utf16(cx: &mut LowerContext<'_>, s: &str, units: u32) -> crate::Result<(u32, u32)> {
    let mut ptr = realloc(cx, 0, 0, 2, units)?;
    let mut dst_byte_length = 0u32;
    for c in s.chars() {
        if let Ok(b) = u8::try_from(u32::from(c)) {
            write_at(cx, ptr.saturating_add(dst_byte_length), &[b])?;
            dst_byte_length += 1;
            continue;
        }
        let worst_case_size = units.saturating_mul(2);
        ptr = realloc(cx, ptr, units, 2, worst_case_size)?;
        // Inflate the Latin-1 prefix in place, back to front.
        let memory = cx.memory.memory();
        let r = range(memory.len(), ptr, worst_case_size)?;
        if let Some(buf) = memory.get_mut(r) {
            for j in (0..dst_byte_length as usize).rev() {
                let b = buf.get(j).copied().unwrap_or(0);
                if let Some(pair) = buf.get_mut(2 * j..2 * j + 2) {
                    pair.copy_from_slice(&[b, 0]);
                }
            }
        }
        let encoded = utf16_bytes(s);
        let rest = encoded.get(2 * dst_byte_length as usize..).unwrap_or_default();
        write_at(cx, ptr.saturating_add(2 * dst_byte_length), rest)?;
        let len = encoded.len() as u32;
        if worst_case_size > len {
            ptr = realloc(cx, ptr, worst_case_size, 2, len)?;
        }
        return Ok((ptr, (len / 2) | UTF16_TAG));
    }
    if dst_byte_length < units {
        ptr = realloc(cx, ptr, units, 2, dst_byte_length)?;
    }
    Ok((ptr, dst_byte_length))
}

/// `store_probably_utf16_to_latin1_or_utf16`.
fn probably_utf16_to_latin1_or_utf16(cx: &mut LowerContext<'_>, s: &str, units: u32) -> crate::Result<(u32, u32)> {
    let src_byte_length = units.saturating_mul(2);
    let ptr = realloc(cx, 0, 0, 2, src_byte_length)?;
    let encoded = utf16_bytes(s);
    write_at(cx, ptr, &encoded)?;
    let len = encoded.len() as u32;
    if s.chars().any(|c| u32::from(c) >= 0x100) {
        return Ok((ptr, (len / 2) | UTF16_TAG));
    }
    let latin1_size = len / 2;
    let latin1: Vec<u8> = s.chars().map(|c| u32::from(c) as u8).collect();
    write_at(cx, ptr, &latin1)?;
    let ptr = realloc(cx, ptr, src_byte_length, 1, latin1_size)?;
    Ok((ptr, latin1_size))
}
