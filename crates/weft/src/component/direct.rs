//! The direct path of typed host functions
//! ([`LinkerInstance::func_wrap`](super::LinkerInstance::func_wrap)): the
//! arguments are lifted from the caller's core values and memory straight
//! into Rust values, and the results lowered straight back, with no [`Val`]
//! in between. Scalars, strings, lists, options, results, tuples and host
//! resources ([`Resource<T>`](super::Resource)) take this path; a value of
//! any other type (records, variants and the like made by the derive
//! macros) goes through a [`Val`] for its part only.
//!
//! The checks and traps are those of the [`Val`] path (flat.rs,
//! load_store.rs, handles.rs), in the same order for each value.

// Import loop kept on purpose: the helpers here are generic over `Lift`
// and `Lower`, whose implementations (typed.rs) call them; this file is the
// direct path of those traits, split off by size.
use super::typed::{Lift, Lower};

use super::call::StoreMemory;
use super::flat::{lift_flat_iter, lower_flat_values, results_spill, total_flat_count, FlatIter};
use super::handles::{implemented_by, lift_resources, lower_resources};
use super::load_store::{
    allocate_list, canonicalize_f32, canonicalize_f64, check_list_range, convert_i32_to_char, load,
    load_string_from_range, record_layout, store, store_string_into_range, RecordWalk,
};
use super::store::Options;
use super::types::ResourceType;
use super::{add, check_aligned, range, trap, LiftContext, LowerContext, LowerMemory, Val};
use crate::{Result, StoreContextMut};
use weft_environ::component::abi::{PtrType, MAX_FLAT_PARAMS, MAX_FLAT_RESULTS};
use weft_environ::component::{
    ComponentTypes, DefinedType, FuncType, InterfaceType, StringEncoding, TypeResourceIndex,
};

/// A call of a typed host function in progress: the store, the caller's
/// canonical options and the call's scope. The direct methods of
/// [`Lift`](Lift) and [`Lower`](Lower) lift and lower
/// through it. Not a stable API.
#[doc(hidden)]
pub struct HostCall<'a, 's, U: 'static> {
    mem: StoreMemory<'a, 's, U>,
    types: &'a ComponentTypes,
    encoding: StringEncoding,
    scope: usize,
}

/// The flat core values of a direct lift, read in order. Not a stable API.
#[doc(hidden)]
pub type FlatValues<'a> = FlatIter<'a>;

impl<'a, 's, U: 'static> HostCall<'a, 's, U> {
    pub(crate) fn new(
        store: &'a mut StoreContextMut<'s, U>,
        types: &'a ComponentTypes,
        options: &Options,
        scope: usize,
    ) -> Self {
        HostCall {
            mem: StoreMemory {
                store,
                memory: options.memory,
                realloc: options.realloc,
                flags: options.flags,
            },
            types,
            encoding: options.encoding,
            scope,
        }
    }

    /// The store.
    pub(crate) fn store(&mut self) -> &mut StoreContextMut<'s, U> {
        self.mem.store
    }

    /// The component types the values' types belong to.
    pub(crate) fn types(&self) -> &'a ComponentTypes {
        self.types
    }

    fn lift_cx(&mut self) -> LiftContext<'_> {
        LiftContext {
            types: self.types,
            memory: self.mem.memory(),
            encoding: self.encoding,
        }
    }

    fn lower_cx(&mut self) -> LowerContext<'_> {
        LowerContext {
            types: self.types,
            memory: &mut self.mem,
            encoding: self.encoding,
        }
    }

    /// The value of type `ty` made of the next flat values, through a
    /// [`Val`], with its handles moved to the host.
    pub(crate) fn lift_flat_val(&mut self, ty: InterfaceType, src: &mut FlatValues<'_>) -> Result<Val> {
        let mut val = super::flat::lift(&self.lift_cx(), ty, src)?;
        self.lift_handles(ty, &mut val)?;
        Ok(val)
    }

    /// The value of type `ty` at `ptr`, through a [`Val`], with its handles
    /// moved to the host.
    pub(crate) fn load_val(&mut self, ty: InterfaceType, ptr: u32) -> Result<Val> {
        let mut val = load(&self.lift_cx(), ty, ptr)?;
        self.lift_handles(ty, &mut val)?;
        Ok(val)
    }

    fn lift_handles(&mut self, ty: InterfaceType, val: &mut Val) -> Result<()> {
        let (flags, scope) = (self.mem.flags, self.scope);
        lift_resources(
            self.mem.store,
            self.types,
            [ty],
            std::slice::from_mut(val),
            flags,
            scope,
        )
    }

    fn lower_handles(&mut self, ty: InterfaceType, val: &mut Val) -> Result<()> {
        let flags = self.mem.flags;
        lower_resources(
            self.mem.store,
            self.types,
            &[ty],
            std::slice::from_mut(val),
            flags,
            None,
        )
    }

    /// Lowers `val` of type `ty` to flat values at the end of `out`, its
    /// handles moved to the caller first.
    pub(crate) fn lower_flat_val(&mut self, ty: InterfaceType, mut val: Val, out: &mut Vec<u64>) -> Result<()> {
        self.lower_handles(ty, &mut val)?;
        super::flat::lower(&mut self.lower_cx(), &val, ty, out)
    }

    /// Stores `val` of type `ty` at `ptr`, its handles moved to the caller
    /// first.
    pub(crate) fn store_val(&mut self, ty: InterfaceType, mut val: Val, ptr: u32) -> Result<()> {
        self.lower_handles(ty, &mut val)?;
        store(&mut self.lower_cx(), &val, ty, ptr)
    }

    /// The parameters of a function of type `ty` from its flat core
    /// arguments `flat`, through [`Val`]s, with their handles moved to the
    /// host.
    pub(crate) fn lift_params_val(&mut self, ty: &FuncType, flat: &[u64]) -> Result<Vec<Val>> {
        let mut vals = lift_flat_iter(&self.lift_cx(), MAX_FLAT_PARAMS, ty.param_types(), flat)?;
        let (flags, scope) = (self.mem.flags, self.scope);
        lift_resources(self.mem.store, self.types, ty.param_types(), &mut vals, flags, scope)?;
        Ok(vals)
    }

    /// Lowers the results `vals` of a function of type `ty`, their handles
    /// moved to the caller: flat values pushed to `out`, or stored at
    /// `out_param`.
    pub(crate) fn lower_results_val(
        &mut self,
        ty: &FuncType,
        mut vals: Vec<Val>,
        out_param: Option<u32>,
        out: &mut Vec<u64>,
    ) -> Result<()> {
        let tys = ty.result.as_slice();
        let flags = self.mem.flags;
        lower_resources(self.mem.store, self.types, tys, &mut vals, flags, None)?;
        let flat = lower_flat_values(&mut self.lower_cx(), MAX_FLAT_RESULTS, &vals, tys, out_param)?;
        out.extend(flat);
        Ok(())
    }

    /// The `N` bytes at `ptr`, which must be aligned to `align`.
    pub(crate) fn read<const N: usize>(&mut self, ptr: u32, align: u32) -> Result<[u8; N]> {
        check_aligned(ptr, align)?;
        super::load_store::read(self.mem.memory(), ptr)
    }

    /// Writes `bytes` at `ptr`, which must be aligned to `align`.
    pub(crate) fn write(&mut self, ptr: u32, align: u32, bytes: &[u8]) -> Result<()> {
        check_aligned(ptr, align)?;
        super::load_store::write(self.mem.memory(), ptr, bytes)
    }

    /// The string at `ptr` of `units` code units.
    pub(crate) fn string(&mut self, ptr: u32, units: u32) -> Result<String> {
        load_string_from_range(&self.lift_cx(), ptr, units)
    }

    /// Allocates and stores `s`: its pointer and (tagged) code units.
    pub(crate) fn put_string(&mut self, s: &str) -> Result<(u32, u32)> {
        store_string_into_range(&mut self.lower_cx(), s)
    }

    /// Checks the list of `length` elements of type `elem` at `ptr` (its
    /// length, alignment and bounds, as lifting a list does); the size of
    /// an element.
    pub(crate) fn check_list(&mut self, ptr: u32, length: u32, elem: InterfaceType) -> Result<u32> {
        check_list_range(&self.lift_cx(), ptr, length, elem)
    }

    /// The bytes `ptr..ptr + len`.
    pub(crate) fn bytes(&mut self, ptr: u32, len: u32) -> Result<&[u8]> {
        let memory = self.mem.memory();
        let r = range(memory.len(), ptr, len)?;
        Ok(memory.get(r).unwrap_or_default())
    }

    /// The bytes `ptr..ptr + len`, writable (after [`HostCall::alloc_list`]).
    pub(crate) fn bytes_mut(&mut self, ptr: u32, len: u32) -> Result<&mut [u8]> {
        let memory = self.mem.memory();
        let r = range(memory.len(), ptr, len)?;
        Ok(memory.get_mut(r).unwrap_or_default())
    }

    /// Allocates room for `len` elements of type `elem`: the pointer, the
    /// length and the size of an element.
    pub(crate) fn alloc_list(&mut self, len: usize, elem: InterfaceType) -> Result<(u32, u32, u32)> {
        allocate_list(&mut self.lower_cx(), len, elem)
    }

    /// The representation of the handle `index` of the caller's table,
    /// lifted as an `own` (taken out of the table) or a `borrow` (lent for
    /// the call) of the component's resource type `r`, which must be
    /// `expected`.
    pub(crate) fn lift_handle(
        &mut self,
        r: TypeResourceIndex,
        index: u32,
        own: bool,
        expected: ResourceType,
        name: &str,
    ) -> Result<u32> {
        let from = self.mem.flags;
        let scope = self.scope;
        let components = self.mem.store.components_mut();
        let ty = components.resource_type(from.instance, r)?;
        let mut table = components.handles(from)?;
        let h = table.get_of(index, ty)?;
        if ty != expected {
            crate::bail!("the resource is not a `{name}`");
        }
        if own {
            if h.num_lends != 0 {
                return Err(trap("cannot remove owned resource while borrowed"));
            }
            if !h.own {
                return Err(trap("cannot move a borrowed handle as an owned one"));
            }
            table.remove(index)?;
        } else {
            table.get_mut(index)?.num_lends += 1;
            let call = components
                .calls
                .get_mut(scope)
                .ok_or_else(|| crate::format_err!("no call in progress"))?;
            call.lenders.push((Some(from), index));
        }
        Ok(h.rep)
    }

    /// The index in the caller's table of the host resource `rep` of type
    /// `ty`, lowered as the component's resource type `r` (`own` or
    /// `borrow`: a borrow can only be a result when the caller implements
    /// the resource, and is then its representation).
    pub(crate) fn lower_handle(
        &mut self,
        r: TypeResourceIndex,
        own_type: bool,
        (rep, own, ty): (u32, bool, ResourceType),
    ) -> Result<u32> {
        let to = self.mem.flags;
        let components = self.mem.store.components_mut();
        let expected = components.resource_type(to.instance, r)?;
        if ty != expected {
            crate::bail!("type mismatch: the resource is of another resource type");
        }
        if own_type {
            if !own {
                crate::bail!("a borrowed resource cannot be passed as an owned one");
            }
            components.handles(to)?.add(super::resources::Handle::owned(ty, rep))
        } else if implemented_by(components, ty, to)? {
            Ok(rep)
        } else {
            crate::bail!("a borrow can only be passed as an argument")
        }
    }
}

/// The element type of the list type `ty`.
pub(crate) fn list_elem(types: &ComponentTypes, ty: InterfaceType) -> Result<InterfaceType> {
    match ty {
        InterfaceType::Defined(d) => match types.defined(d) {
            Some(DefinedType::List(t)) => Ok(*t),
            _ => crate::bail!("type mismatch: expected a list"),
        },
        _ => crate::bail!("type mismatch: expected a list"),
    }
}

/// The element types of the tuple type `ty`.
pub(crate) fn tuple_elems(types: &ComponentTypes, ty: InterfaceType) -> Result<&[InterfaceType]> {
    match ty {
        InterfaceType::Defined(d) => match types.defined(d) {
            Some(DefinedType::Tuple(tys)) => Ok(tys),
            _ => crate::bail!("type mismatch: expected a tuple"),
        },
        _ => crate::bail!("type mismatch: expected a tuple"),
    }
}

/// The cases of the option type (`is_option`) or result type `ty`: an
/// option's are `none` and `some`, a result's `ok` and `error`.
pub(crate) fn cases(types: &ComponentTypes, ty: InterfaceType, is_option: bool) -> Result<CaseTypes> {
    let InterfaceType::Defined(d) = ty else {
        crate::bail!("type mismatch: expected an option or result")
    };
    let abi = types.defined_abi(d);
    let payload_offset = abi.map_or(0, |a| a.payload_offset(PtrType::I32));
    let flat_count = abi.map_or(0, |a| a.value.flat_count());
    let payloads = match (types.defined(d), is_option) {
        (Some(DefinedType::Option(t)), true) => [None, Some(*t)],
        (Some(DefinedType::Result { ok, err }), false) => [*ok, *err],
        _ => crate::bail!("type mismatch: expected an option or result"),
    };
    Ok(CaseTypes {
        payloads,
        payload_offset,
        payload_flat: flat_count.saturating_sub(1),
    })
}

/// What lifting and lowering an option or result needs of its type.
pub(crate) struct CaseTypes {
    /// The payload type of each of the two cases, if it has one.
    pub(crate) payloads: [Option<InterfaceType>; 2],
    /// The offset of the payload from the discriminant, in memory.
    pub(crate) payload_offset: u32,
    /// The number of flat values of the (joined) payload.
    pub(crate) payload_flat: usize,
}

/// The place of the parameters or results of a typed host function:
/// flat values, or a record in memory at a pointer.
pub(crate) enum Place<'v> {
    /// The flat values.
    Flat(FlatValues<'v>),
    /// The pointer to the record.
    Memory(u32, RecordWalk),
}

/// The place of the parameters `tys` given as the flat core values `flat`:
/// the flat values, or (more than `MAX_FLAT_PARAMS` of them) the record
/// at the pointer they are, checked for alignment and bounds.
pub(crate) fn params_place<'v, U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    ty: &FuncType,
    flat: &'v [u64],
) -> Result<ParamsPlace<'v>> {
    let mut src = FlatIter::new(flat);
    if total_flat_count(cx.types, ty.param_types()) <= MAX_FLAT_PARAMS {
        return Ok(ParamsPlace(Place::Flat(src)));
    }
    let ptr = src.next_i32()?;
    let (align, size) = record_layout(cx.types, ty.param_types());
    check_aligned(ptr, align)?;
    range(cx.mem.memory().len(), ptr, size)?;
    Ok(ParamsPlace(Place::Memory(ptr, RecordWalk::default())))
}

/// Where the parameters of a typed host function are.
pub(crate) struct ParamsPlace<'v>(pub(crate) Place<'v>);

/// Where the results of a typed host function go.
pub(crate) struct ResultsPlace<'o> {
    pub(crate) out: &'o mut Vec<u64>,
    pub(crate) ptr: Option<(u32, RecordWalk)>,
}

/// The place of the results `ty.result`: flat values pushed to `out`, or
/// (more than `MAX_FLAT_RESULTS` of them) the record at `out_param`,
/// checked for alignment and bounds.
pub(crate) fn results_place<'o, U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    ty: &FuncType,
    out_param: Option<u32>,
    out: &'o mut Vec<u64>,
) -> Result<ResultsPlace<'o>> {
    let tys = ty.result.as_slice();
    if !results_spill(cx.types, ty) {
        return Ok(ResultsPlace { out, ptr: None });
    }
    let Some(ptr) = out_param else {
        crate::bail!("the lowered function has no pointer for its results");
    };
    let (align, size) = record_layout(cx.types, tys.iter().copied());
    check_aligned(ptr, align)?;
    range(cx.mem.memory().len(), ptr, size)?;
    Ok(ResultsPlace {
        out,
        ptr: Some((ptr, RecordWalk::default())),
    })
}

impl ParamsPlace<'_> {
    /// Lifts the next parameter, of type `ty`.
    pub(crate) fn next<T: Lift, U: 'static>(&mut self, cx: &mut HostCall<'_, '_, U>, ty: InterfaceType) -> Result<T> {
        match &mut self.0 {
            Place::Flat(src) => T::lift_direct(cx, ty, src),
            Place::Memory(ptr, walk) => {
                let at = add(*ptr, walk.field(cx.types, ty))?;
                T::load_direct(cx, ty, at)
            }
        }
    }

    /// Checks that every flat value was used.
    pub(crate) fn finish(self) -> Result<()> {
        match self.0 {
            Place::Flat(src) if !src.is_empty() => crate::bail!("type mismatch: too many flat values"),
            _ => Ok(()),
        }
    }
}

impl ResultsPlace<'_> {
    /// Lowers the next result, `v` of type `ty`.
    pub(crate) fn next<T: Lower + ?Sized, U: 'static>(
        &mut self,
        cx: &mut HostCall<'_, '_, U>,
        ty: InterfaceType,
        v: &T,
    ) -> Result<()> {
        match &mut self.ptr {
            None => v.lower_direct(cx, ty, self.out),
            Some((ptr, walk)) => {
                let at = add(*ptr, walk.field(cx.types, ty))?;
                v.store_direct(cx, ty, at)
            }
        }
    }
}

/// The type of the `i`-th parameter of `ty`.
pub(crate) fn param_type(ty: &FuncType, i: usize) -> Result<InterfaceType> {
    ty.params
        .get(i)
        .map(|(_, t)| *t)
        .ok_or_else(|| crate::format_err!("type mismatch: the function has no parameter {i}"))
}

/// The type of the `i`-th result of `ty`.
pub(crate) fn result_type(ty: &FuncType, i: usize) -> Result<InterfaceType> {
    ty.result
        .filter(|_| i == 0)
        .ok_or_else(|| crate::format_err!("type mismatch: the function has no result {i}"))
}

/// Checks that `ty` is `expected` (a scalar type).
pub(crate) fn check_type(ty: InterfaceType, expected: InterfaceType) -> Result<()> {
    if ty != expected {
        crate::bail!("type mismatch: expected {expected:?}, found {ty:?}");
    }
    Ok(())
}

/// Checks that a value of type `ty` at `ptr` is aligned and in bounds.
fn check_place<U: 'static>(cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<()> {
    let layout = cx.types.value_abi(ty).layout(PtrType::I32);
    check_aligned(ptr, layout.align)?;
    range(cx.mem.memory().len(), ptr, layout.size).map(|_| ())
}

/// A scalar type of `N` bytes in memory (its alignment too).
pub(crate) trait DirectScalar<const N: usize>: Sized {
    /// Its component type.
    const TY: InterfaceType;
    /// The value of the flat value `bits`.
    fn from_bits(bits: u64) -> Result<Self>;
    /// Its flat value.
    fn to_bits(&self) -> u64;
    /// The value of the little-endian `bytes`.
    fn from_le(bytes: [u8; N]) -> Result<Self>;
    /// Its little-endian bytes.
    fn to_le(&self) -> [u8; N];
}

macro_rules! int_scalars {
    ($($t:ty => $it:ident;)*) => {$(
        impl DirectScalar<{ std::mem::size_of::<$t>() }> for $t {
            const TY: InterfaceType = InterfaceType::$it;
            fn from_bits(bits: u64) -> Result<Self> {
                Ok(<$t as super::flat::ScalarFlat>::from_flat(bits))
            }
            fn to_bits(&self) -> u64 {
                super::flat::ScalarFlat::to_flat(self)
            }
            fn from_le(bytes: [u8; std::mem::size_of::<$t>()]) -> Result<Self> {
                Ok(<$t>::from_le_bytes(bytes))
            }
            fn to_le(&self) -> [u8; std::mem::size_of::<$t>()] {
                self.to_le_bytes()
            }
        }
    )*};
}

int_scalars! {
    u8 => U8;
    i8 => S8;
    u16 => U16;
    i16 => S16;
    u32 => U32;
    i32 => S32;
    u64 => U64;
    i64 => S64;
}

impl DirectScalar<1> for bool {
    const TY: InterfaceType = InterfaceType::Bool;
    fn from_bits(bits: u64) -> Result<Self> {
        Ok(bits as u32 != 0)
    }
    fn to_bits(&self) -> u64 {
        u64::from(*self)
    }
    fn from_le(bytes: [u8; 1]) -> Result<Self> {
        Ok(bytes[0] != 0)
    }
    fn to_le(&self) -> [u8; 1] {
        [u8::from(*self)]
    }
}

impl DirectScalar<4> for f32 {
    const TY: InterfaceType = InterfaceType::F32;
    fn from_bits(bits: u64) -> Result<Self> {
        // The low 32 bits, also when carried in a joined `i64`.
        Ok(canonicalize_f32(f32::from_bits(bits as u32)))
    }
    fn to_bits(&self) -> u64 {
        u64::from(canonicalize_f32(*self).to_bits())
    }
    fn from_le(bytes: [u8; 4]) -> Result<Self> {
        Ok(canonicalize_f32(f32::from_le_bytes(bytes)))
    }
    fn to_le(&self) -> [u8; 4] {
        canonicalize_f32(*self).to_le_bytes()
    }
}

impl DirectScalar<8> for f64 {
    const TY: InterfaceType = InterfaceType::F64;
    fn from_bits(bits: u64) -> Result<Self> {
        Ok(canonicalize_f64(f64::from_bits(bits)))
    }
    fn to_bits(&self) -> u64 {
        canonicalize_f64(*self).to_bits()
    }
    fn from_le(bytes: [u8; 8]) -> Result<Self> {
        Ok(canonicalize_f64(f64::from_le_bytes(bytes)))
    }
    fn to_le(&self) -> [u8; 8] {
        canonicalize_f64(*self).to_le_bytes()
    }
}

impl DirectScalar<4> for char {
    const TY: InterfaceType = InterfaceType::Char;
    fn from_bits(bits: u64) -> Result<Self> {
        convert_i32_to_char(bits as u32)
    }
    fn to_bits(&self) -> u64 {
        u64::from(u32::from(*self))
    }
    fn from_le(bytes: [u8; 4]) -> Result<Self> {
        convert_i32_to_char(u32::from_le_bytes(bytes))
    }
    fn to_le(&self) -> [u8; 4] {
        u32::from(*self).to_le_bytes()
    }
}

/// A scalar lifted from the next flat value.
pub(crate) fn lift_scalar<S: DirectScalar<N>, const N: usize>(
    ty: InterfaceType,
    src: &mut FlatValues<'_>,
) -> Result<S> {
    check_type(ty, S::TY)?;
    S::from_bits(src.next()?)
}

/// A scalar loaded from `ptr`.
pub(crate) fn load_scalar<S: DirectScalar<N>, const N: usize, U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    ty: InterfaceType,
    ptr: u32,
) -> Result<S> {
    check_type(ty, S::TY)?;
    S::from_le(cx.read::<N>(ptr, N as u32)?)
}

/// A scalar lowered to a flat value.
pub(crate) fn lower_scalar<S: DirectScalar<N>, const N: usize>(
    s: &S,
    ty: InterfaceType,
    out: &mut Vec<u64>,
) -> Result<()> {
    check_type(ty, S::TY)?;
    out.push(s.to_bits());
    Ok(())
}

/// A scalar stored at `ptr`.
pub(crate) fn store_scalar<S: DirectScalar<N>, const N: usize, U: 'static>(
    s: &S,
    cx: &mut HostCall<'_, '_, U>,
    ty: InterfaceType,
    ptr: u32,
) -> Result<()> {
    check_type(ty, S::TY)?;
    cx.write(ptr, N as u32, &s.to_le())
}

/// A pointer and a length (or count) in memory.
fn read_pair<U: 'static>(cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<(u32, u32)> {
    check_place(cx, ty, ptr)?;
    let b = cx.read::<8>(ptr, 4)?;
    let (p, n) = b.split_at(4);
    let word = |s: &[u8]| s.try_into().map(u32::from_le_bytes).unwrap_or_default();
    Ok((word(p), word(n)))
}

fn write_pair<U: 'static>(cx: &mut HostCall<'_, '_, U>, ptr: u32, (a, b): (u32, u32)) -> Result<()> {
    let mut bytes = [0; 8];
    bytes[..4].copy_from_slice(&a.to_le_bytes());
    bytes[4..].copy_from_slice(&b.to_le_bytes());
    cx.write(ptr, 4, &bytes)
}

/// A string lifted from a pointer and a length in flat values.
pub(crate) fn lift_string<U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    ty: InterfaceType,
    src: &mut FlatValues<'_>,
) -> Result<String> {
    check_type(ty, InterfaceType::String)?;
    let ptr = src.next_i32()?;
    let units = src.next_i32()?;
    cx.string(ptr, units)
}

/// A string loaded from `ptr`.
pub(crate) fn load_string<U: 'static>(cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<String> {
    check_type(ty, InterfaceType::String)?;
    let (p, units) = read_pair(cx, ty, ptr)?;
    cx.string(p, units)
}

/// A string lowered to a pointer and a length.
pub(crate) fn lower_string<U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    ty: InterfaceType,
    s: &str,
    out: &mut Vec<u64>,
) -> Result<()> {
    check_type(ty, InterfaceType::String)?;
    let (p, units) = cx.put_string(s)?;
    out.extend([u64::from(p), u64::from(units)]);
    Ok(())
}

/// A string stored at `ptr`.
pub(crate) fn store_string<U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    ty: InterfaceType,
    s: &str,
    ptr: u32,
) -> Result<()> {
    check_type(ty, InterfaceType::String)?;
    check_place(cx, ty, ptr)?;
    let pair = cx.put_string(s)?;
    write_pair(cx, ptr, pair)
}

/// The list of `length` elements at `ptr`.
fn list_at<T: Lift, U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    elem: InterfaceType,
    ptr: u32,
    length: u32,
) -> Result<Vec<T>> {
    let size = cx.check_list(ptr, length, elem)?;
    if let Some(items) = T::load_plain(elem, cx.bytes(ptr, length.saturating_mul(size))?) {
        return Ok(items);
    }
    let mut items = Vec::with_capacity(length.min(1024) as usize);
    for i in 0..length {
        items.push(T::load_direct(cx, elem, add(ptr, i.saturating_mul(size))?)?);
    }
    Ok(items)
}

/// A list lifted from a pointer and a length in flat values.
pub(crate) fn lift_list<T: Lift, U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    ty: InterfaceType,
    src: &mut FlatValues<'_>,
) -> Result<Vec<T>> {
    let elem = list_elem(cx.types, ty)?;
    let ptr = src.next_i32()?;
    let length = src.next_i32()?;
    list_at(cx, elem, ptr, length)
}

/// A list loaded from `ptr`.
pub(crate) fn load_list<T: Lift, U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    ty: InterfaceType,
    ptr: u32,
) -> Result<Vec<T>> {
    let elem = list_elem(cx.types, ty)?;
    let (p, length) = read_pair(cx, ty, ptr)?;
    list_at(cx, elem, p, length)
}

/// Allocates and stores `items`: their pointer and count.
fn put_list<T: Lower, U: 'static>(cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, items: &[T]) -> Result<(u32, u32)> {
    let elem = list_elem(cx.types, ty)?;
    let (ptr, length, size) = cx.alloc_list(items.len(), elem)?;
    if T::store_plain(items, cx.bytes_mut(ptr, length.saturating_mul(size))?) {
        return Ok((ptr, length));
    }
    for (i, item) in (0u32..).zip(items) {
        item.store_direct(cx, elem, add(ptr, i.saturating_mul(size))?)?;
    }
    Ok((ptr, length))
}

/// A list lowered to a pointer and a length.
pub(crate) fn lower_list<T: Lower, U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    ty: InterfaceType,
    items: &[T],
    out: &mut Vec<u64>,
) -> Result<()> {
    let (p, n) = put_list(cx, ty, items)?;
    out.extend([u64::from(p), u64::from(n)]);
    Ok(())
}

/// A list stored at `ptr`.
pub(crate) fn store_list<T: Lower, U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    ty: InterfaceType,
    items: &[T],
    ptr: u32,
) -> Result<()> {
    check_place(cx, ty, ptr)?;
    let pair = put_list(cx, ty, items)?;
    write_pair(cx, ptr, pair)
}

/// The payload of a case of type `payload` (`None`: no payload, which
/// only `()` stands for).
fn lift_case<T: Lift, U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    payload: Option<InterfaceType>,
    f: impl FnOnce(&mut HostCall<'_, '_, U>, InterfaceType) -> Result<T>,
) -> Result<T> {
    match payload {
        Some(t) => f(cx, t),
        None if T::IS_UNIT => T::lift(cx.store(), Val::Tuple(Vec::new())),
        None => crate::bail!("type mismatch: a payload is missing"),
    }
}

/// The trap of a discriminant out of range of two cases.
fn bad_case(case: u32) -> crate::Error {
    trap(format_args!("discriminant {case} out of range for 2 cases"))
}

/// Case 0 or case 1 of an option or result, with its payload's value
/// (`()` for a case without one).
pub(crate) enum Case<A, B> {
    /// Case 0: `none`, or `ok`.
    First(A),
    /// Case 1: `some`, or `error`.
    Second(B),
}

/// An option or result lifted from flat values: its case, with the
/// payload lifted as `A` (case 0) or `B` (case 1).
pub(crate) fn lift_cases<A: Lift, B: Lift, U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    ty: InterfaceType,
    is_option: bool,
    src: &mut FlatValues<'_>,
) -> Result<Case<A, B>> {
    let c = cases(cx.types, ty, is_option)?;
    let case = src.next_i32()?;
    let mut payload = FlatIter::new(src.take(c.payload_flat)?);
    match case {
        0 => Ok(Case::First(lift_case(cx, c.payloads[0], |cx, t| {
            A::lift_direct(cx, t, &mut payload)
        })?)),
        1 => Ok(Case::Second(lift_case(cx, c.payloads[1], |cx, t| {
            B::lift_direct(cx, t, &mut payload)
        })?)),
        case => Err(bad_case(case)),
    }
}

/// An option or result loaded from `ptr`, as [`lift_cases`].
pub(crate) fn load_cases<A: Lift, B: Lift, U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    ty: InterfaceType,
    is_option: bool,
    ptr: u32,
) -> Result<Case<A, B>> {
    let c = cases(cx.types, ty, is_option)?;
    check_place(cx, ty, ptr)?;
    let case = u32::from(cx.read::<1>(ptr, 1)?[0]);
    let at = add(ptr, c.payload_offset)?;
    match case {
        0 => Ok(Case::First(lift_case(cx, c.payloads[0], |cx, t| {
            A::load_direct(cx, t, at)
        })?)),
        1 => Ok(Case::Second(lift_case(cx, c.payloads[1], |cx, t| {
            B::load_direct(cx, t, at)
        })?)),
        case => Err(bad_case(case)),
    }
}

impl<'v, A, B> Case<&'v A, &'v B> {
    /// The discriminant of the case (0 or 1).
    fn index(&self) -> u8 {
        match self {
            Case::First(_) => 0,
            Case::Second(_) => 1,
        }
    }
}

/// Stores `value`, an option or result seen as its case, at `ptr`: the
/// discriminant, then the payload at the payload's offset when the case has
/// a payload type.
pub(crate) fn store_cases<A: Lower, B: Lower, U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    ty: InterfaceType,
    is_option: bool,
    ptr: u32,
    value: Case<&A, &B>,
) -> Result<()> {
    let c = cases(cx.types, ty, is_option)?;
    check_place(cx, ty, ptr)?;
    let case = value.index();
    cx.write(ptr, 1, &[case])?;
    let Some(t) = c.payloads[usize::from(case)] else {
        return Ok(());
    };
    let at = add(ptr, c.payload_offset)?;
    match value {
        Case::First(a) => a.store_direct(cx, t, at),
        Case::Second(b) => b.store_direct(cx, t, at),
    }
}

/// Lowers `value`, an option or result seen as its case, to flat values:
/// the discriminant, then the payload when the case has a payload type,
/// padded with zeros to the joined payload's length.
pub(crate) fn lower_cases<A: Lower, B: Lower, U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    ty: InterfaceType,
    is_option: bool,
    value: Case<&A, &B>,
    out: &mut Vec<u64>,
) -> Result<()> {
    let c = cases(cx.types, ty, is_option)?;
    let case = value.index();
    out.push(u64::from(case));
    let end = out.len().saturating_add(c.payload_flat);
    if let Some(t) = c.payloads[usize::from(case)] {
        match value {
            Case::First(a) => a.lower_direct(cx, t, out)?,
            Case::Second(b) => b.lower_direct(cx, t, out)?,
        }
    }
    if out.len() > end {
        crate::bail!("type mismatch: a payload has more flat values than its type");
    }
    out.resize(end, 0);
    Ok(())
}

/// A host resource lifted from the handle `index` of the caller's table.
pub(crate) fn lift_resource<R: 'static, U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    ty: InterfaceType,
    index: u32,
) -> Result<super::Resource<R>> {
    let (r, own) = match ty {
        InterfaceType::Own(r) => (r, true),
        InterfaceType::Borrow(r) => (r, false),
        _ => crate::bail!("type mismatch: expected an own or borrow, found {ty:?}"),
    };
    let rep = cx.lift_handle(r, index, own, ResourceType::host::<R>(), std::any::type_name::<R>())?;
    Ok(if own {
        super::Resource::new_own(rep)
    } else {
        super::Resource::new_borrow(rep)
    })
}

/// The caller's handle of the host resource `res`, lowered as `ty`.
pub(crate) fn lower_resource<R: 'static, U: 'static>(
    cx: &mut HostCall<'_, '_, U>,
    ty: InterfaceType,
    res: &super::Resource<R>,
) -> Result<u32> {
    let (r, own_type) = match ty {
        InterfaceType::Own(r) => (r, true),
        InterfaceType::Borrow(r) => (r, false),
        _ => crate::bail!("type mismatch: expected an own or borrow, found {ty:?}"),
    };
    cx.lower_handle(r, own_type, (res.rep(), res.owned(), ResourceType::host::<R>()))
}

/// Checks that a tuple type `ty` has `n` elements: its element types.
pub(crate) fn tuple_of(types: &ComponentTypes, ty: InterfaceType, n: usize) -> Result<&[InterfaceType]> {
    let tys = tuple_elems(types, ty)?;
    if tys.len() != n {
        crate::bail!("type mismatch: expected a tuple of {n} elements, found {}", tys.len());
    }
    Ok(tys)
}

/// The `i`-th of the element types `tys`.
pub(crate) fn elem(tys: &[InterfaceType], i: usize) -> Result<InterfaceType> {
    tys.get(i)
        .copied()
        .ok_or_else(|| crate::format_err!("type mismatch: no element {i}"))
}

/// Checks that the tuple of type `ty` at `ptr` is aligned and in bounds;
/// the walk over its fields.
pub(crate) fn tuple_place<U: 'static>(cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<RecordWalk> {
    check_place(cx, ty, ptr)?;
    Ok(RecordWalk::default())
}

/// The address of the next field, of type `t`, of a tuple at `ptr`.
pub(crate) fn field_at<U: 'static>(
    cx: &HostCall<'_, '_, U>,
    walk: &mut RecordWalk,
    ptr: u32,
    t: InterfaceType,
) -> Result<u32> {
    add(ptr, walk.field(cx.types, t))
}
