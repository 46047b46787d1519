//! The typed host API, as Wasmtime's `wasmtime::component`: Rust types
//! that stand for component types ([`ComponentType`]) and convert to and
//! from component values ([`Lift`], [`Lower`]), typed functions
//! ([`TypedFunc`]) and the helpers the derive macros expand to.
//!
//! A typed value is converted to or from a [`Val`], which the canonical ABI
//! then lowers or lifts; the arguments and results of a typed host function
//! called from a synchronous `canon lower` go straight between Rust values
//! and the caller's flat values and memory instead (direct.rs), through the
//! hidden `*_direct` methods, whose defaults take the [`Val`] way. The type check
//! happens once, when a [`TypedFunc`] is made or when a component whose
//! imports a [`LinkerInstance::func_wrap`](super::LinkerInstance::func_wrap)
//! function satisfies is instantiated.
//!
//! # Resources
//!
//! [`Resource<T>`] and [`ResourceAny`] type check against any `own` or
//! `borrow` type: the identity of the resource type is checked when a value
//! is converted ([`Resource::try_from_resource_any`]) or moved between
//! handle tables, not by the type check.
//!
//! # Unit payloads
//!
//! `()` stands for `tuple<>` on its own, and for an absent payload as the
//! `ok` or `error` type of a [`Result`] (`result<_, E>` is
//! `Result<(), E>`).

use super::direct::{self, Case, FlatValues, HostCall};
use super::flat::ScalarFlat;
use super::types::TypeSpace;
use super::ResourceType;
use super::{ComponentTypes, Func, Instance, InstanceExportLookup, InterfaceType, Resource, ResourceAny, Val};
use crate::{AsContext, AsContextMut, Result, StoreContextMut};
use anyhow::{anyhow, Context as _};
use std::marker::PhantomData;
use weft_environ::component::{DefinedType, FuncType, TypeResourceIndex};

/// A Rust type that stands for a component type.
pub trait ComponentType {
    /// Whether this is `()`, which also stands for an absent payload of a
    /// `result`.
    const IS_UNIT: bool = false;

    /// Checks that `ty`, a type of `types`, is this Rust type's component
    /// type; the error names the mismatch.
    fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> Result<()>;
}

/// A Rust type whose values can be made from component values.
pub trait Lift: ComponentType + Sized {
    /// Converts `val` to `Self`. `store` holds the resources that `val`
    /// refers to. Fails when `val` is not of this type.
    fn lift<U: 'static>(store: &mut StoreContextMut<'_, U>, val: Val) -> Result<Self>;

    /// `Self` from the flat core values at the start of `flat` when it is
    /// an integer or `bool` (or a tuple of them), with the count used;
    /// `None` for other types. Typed calls whose results are all such
    /// scalars take them from the core results directly.
    #[doc(hidden)]
    fn lift_scalars(flat: &[u64]) -> Option<(Self, usize)> {
        let _ = flat;
        None
    }

    /// `Self` as a value of type `ty` made of the next flat values of a
    /// typed host function's arguments. The default lifts a [`Val`] and
    /// converts it.
    #[doc(hidden)]
    fn lift_direct<U: 'static>(
        cx: &mut HostCall<'_, '_, U>,
        ty: InterfaceType,
        src: &mut FlatValues<'_>,
    ) -> Result<Self> {
        let val = cx.lift_flat_val(ty, src)?;
        Self::lift(cx.store(), val)
    }

    /// `Self` as a value of type `ty` stored at `ptr` in the memory of a
    /// typed host function's caller. The default loads a [`Val`] and
    /// converts it.
    #[doc(hidden)]
    fn load_direct<U: 'static>(cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<Self> {
        let val = cx.load_val(ty, ptr)?;
        Self::lift(cx.store(), val)
    }

    /// `Self` as the parameters of a typed host function of type `ty`,
    /// lifted from its flat core arguments `flat`. The default lifts a
    /// [`Val`] of each and converts their tuple.
    #[doc(hidden)]
    fn lift_params_direct<U: 'static>(cx: &mut HostCall<'_, '_, U>, ty: &FuncType, flat: &[u64]) -> Result<Self> {
        let vals = cx.lift_params_val(ty, flat)?;
        Self::lift(cx.store(), Val::Tuple(vals))
    }

    /// The values of a list of elements of type `elem` whose bytes are
    /// `bytes`, when they are their plain little-endian bytes (integers);
    /// `None` for other types, whose elements are then loaded one by one.
    #[doc(hidden)]
    fn load_plain(elem: InterfaceType, bytes: &[u8]) -> Option<Vec<Self>> {
        let _ = (elem, bytes);
        None
    }
}

/// A Rust type whose values can be turned into component values.
pub trait Lower: ComponentType {
    /// Converts `self` to a [`Val`]. Resources are put into `store`'s host
    /// table.
    fn lower<U: 'static>(&self, store: &mut StoreContextMut<'_, U>) -> Result<Val>;

    /// Writes `items` into `out` (exactly `items.len()` times the size of
    /// one) as the canonical ABI stores consecutive values of this type,
    /// when that is their plain little-endian bytes, as for integers; `false`
    /// (and nothing written) for other types, whose items are then lowered
    /// one by one. Streams of bytes move through it in bulk.
    #[doc(hidden)]
    fn store_plain(items: &[Self], out: &mut [u8]) -> bool
    where
        Self: Sized,
    {
        let _ = (items, out);
        false
    }

    /// Writes the flat core values of `self` to the start of `out` when it
    /// is an integer or `bool` (or a tuple of them), and returns their
    /// count; `None` (and nothing meaningful written) for other types or
    /// when `out` is too short. Typed calls whose parameters are all such
    /// scalars pass them as the core arguments directly.
    #[doc(hidden)]
    fn lower_scalars(&self, out: &mut [u64]) -> Option<usize> {
        let _ = out;
        None
    }

    /// Pushes the flat values of `self` as a value of type `ty` for a
    /// typed host function's caller to `out`. The default goes through a
    /// [`Val`].
    #[doc(hidden)]
    fn lower_direct<U: 'static>(
        &self,
        cx: &mut HostCall<'_, '_, U>,
        ty: InterfaceType,
        out: &mut Vec<u64>,
    ) -> Result<()> {
        let val = self.lower(cx.store())?;
        cx.lower_flat_val(ty, val, out)
    }

    /// Stores `self` as a value of type `ty` at `ptr` in the memory of a
    /// typed host function's caller. The default goes through a [`Val`].
    #[doc(hidden)]
    fn store_direct<U: 'static>(&self, cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<()> {
        let val = self.lower(cx.store())?;
        cx.store_val(ty, val, ptr)
    }

    /// Lowers `self` as the results of a typed host function of type `ty`:
    /// flat values pushed to `out`, or stored at `out_param` when they do
    /// not fit. The default goes through a [`Val`] of each.
    #[doc(hidden)]
    fn lower_results_direct<U: 'static>(
        &self,
        cx: &mut HostCall<'_, '_, U>,
        ty: &FuncType,
        out_param: Option<u32>,
        out: &mut Vec<u64>,
    ) -> Result<()> {
        let vals = tuple_vals(self.lower(cx.store())?, ty.result.iter().count())?;
        cx.lower_results_val(ty, vals, out_param, out)
    }
}

/// The `lower_scalars` of a type of one flat value (`plain` integers and
/// `flat` bool), or nothing (`other`).
macro_rules! lower_scalars {
    (other) => {};
    ($kind:ident) => {
        fn lower_scalars(&self, out: &mut [u64]) -> Option<usize> {
            *out.first_mut()? = ScalarFlat::to_flat(self);
            Some(1)
        }
    };
}

/// The `lift_scalars` of a type of one flat value, as [`lower_scalars!`].
macro_rules! lift_scalars {
    (other) => {};
    ($kind:ident) => {
        fn lift_scalars(flat: &[u64]) -> Option<(Self, usize)> {
            Some((ScalarFlat::from_flat(*flat.first()?), 1))
        }
    };
}

/// The `store_plain` of an integer type (`plain`), or nothing (`other`,
/// `flat`).
macro_rules! store_plain {
    (flat $t:ty) => {};
    (plain $t:ty) => {
        fn store_plain(items: &[Self], out: &mut [u8]) -> bool {
            const SIZE: usize = std::mem::size_of::<$t>();
            if out.len() != items.len() * SIZE {
                return false;
            }
            for (slot, item) in out.chunks_exact_mut(SIZE).zip(items) {
                slot.copy_from_slice(&item.to_le_bytes());
            }
            true
        }
    };
    (other $t:ty) => {};
}

/// The `load_plain` of an integer type (`plain`), or nothing (`other`,
/// `flat`).
macro_rules! load_plain {
    (flat $t:ty) => {};
    (plain $t:ty) => {
        fn load_plain(elem: InterfaceType, bytes: &[u8]) -> Option<Vec<Self>> {
            const SIZE: usize = std::mem::size_of::<$t>();
            if elem != <$t as direct::DirectScalar<SIZE>>::TY {
                return None;
            }
            let (items, rest) = bytes.as_chunks::<SIZE>();
            rest.is_empty()
                .then(|| items.iter().map(|b| <$t>::from_le_bytes(*b)).collect())
        }
    };
    (other $t:ty) => {};
}

/// The `lift_direct` and `load_direct` of a type that direct.rs lifts with
/// `$lift` and loads with `$load`.
macro_rules! lift_direct_with {
    ($lift:path, $load:path) => {
        fn lift_direct<U: 'static>(
            cx: &mut HostCall<'_, '_, U>,
            ty: InterfaceType,
            src: &mut FlatValues<'_>,
        ) -> Result<Self> {
            $lift(cx, ty, src)
        }

        fn load_direct<U: 'static>(cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<Self> {
            $load(cx, ty, ptr)
        }
    };
}

/// The `lower_direct` and `store_direct` of a type that direct.rs lowers
/// with `$lower` and stores with `$store`.
macro_rules! lower_direct_with {
    ($lower:path, $store:path) => {
        fn lower_direct<U: 'static>(
            &self,
            cx: &mut HostCall<'_, '_, U>,
            ty: InterfaceType,
            out: &mut Vec<u64>,
        ) -> Result<()> {
            $lower(cx, ty, self, out)
        }

        fn store_direct<U: 'static>(&self, cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<()> {
            $store(cx, ty, self, ptr)
        }
    };
}

/// A list of parameters or results: a tuple of up to 16 elements.
///
/// As a parameter list a tuple matches the parameters of a function type in
/// order; as a result list `()` matches no result and `(R,)` one result of
/// type `R`. Values of a list convert as a [`Val::Tuple`].
pub trait ComponentNamedList: ComponentType {
    /// The number of elements.
    const LEN: usize;

    /// Checks that `tys` are the types of the elements, in order.
    fn typecheck_list(tys: &[InterfaceType], types: &InstanceType<'_>) -> Result<()>;
}

/// A short description of `ty`, for error messages.
pub(crate) fn describe(ty: &InterfaceType, types: &ComponentTypes) -> String {
    let name = match ty {
        InterfaceType::Bool => "bool",
        InterfaceType::S8 => "s8",
        InterfaceType::U8 => "u8",
        InterfaceType::S16 => "s16",
        InterfaceType::U16 => "u16",
        InterfaceType::S32 => "s32",
        InterfaceType::U32 => "u32",
        InterfaceType::S64 => "s64",
        InterfaceType::U64 => "u64",
        InterfaceType::F32 => "f32",
        InterfaceType::F64 => "f64",
        InterfaceType::Char => "char",
        InterfaceType::String => "string",
        InterfaceType::ErrorContext => "error-context",
        InterfaceType::Own(_) => "own",
        InterfaceType::Borrow(_) => "borrow",
        InterfaceType::Defined(d) => match types.defined(*d) {
            Some(DefinedType::Record(_)) => "record",
            Some(DefinedType::Variant(_)) => "variant",
            Some(DefinedType::List(_)) => "list",
            Some(DefinedType::FixedLengthList(..)) => "fixed-length list",
            Some(DefinedType::Tuple(_)) => "tuple",
            Some(DefinedType::Flags(_)) => "flags",
            Some(DefinedType::Enum(_)) => "enum",
            Some(DefinedType::Option(_)) => "option",
            Some(DefinedType::Result { .. }) => "result",
            Some(DefinedType::Map(..)) => "map",
            Some(DefinedType::Future(_)) => "future",
            Some(DefinedType::Stream(_)) => "stream",
            None => "unknown type",
        },
    };
    name.to_string()
}

/// The error of a type check: `expected` (a component type's kind) is not
/// `found`.
pub(crate) fn expected(expected: &str, found: &InterfaceType, types: &ComponentTypes) -> crate::Error {
    anyhow!(
        "type mismatch: expected `{expected}`, found `{}`",
        describe(found, types)
    )
}

/// The error of a conversion from a [`Val`] of the wrong kind.
pub(crate) fn wrong_val(expected: &str, found: &Val) -> crate::Error {
    anyhow!(
        "type mismatch: expected a value of type `{expected}`, found a `{}`",
        found.kind()
    )
}

/// The defined type `ty`; an error saying `what` was expected when `ty` is
/// not a defined type.
fn defined<'a>(ty: &InterfaceType, types: &'a ComponentTypes, what: &str) -> Result<&'a DefinedType> {
    match ty {
        InterfaceType::Defined(d) => types.defined(*d).ok_or_else(|| anyhow!("type {} not found", d.0)),
        other => Err(expected(what, other, types)),
    }
}

macro_rules! primitives {
    ($($t:ty => $it:ident, $val:ident, $name:literal, $kind:ident;)*) => {$(
        impl ComponentType for $t {
            fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> Result<()> {
                match ty {
                    InterfaceType::$it => Ok(()),
                    other => Err(expected($name, other, types)),
                }
            }
        }

        impl Lift for $t {
            fn lift<U: 'static>(_store: &mut StoreContextMut<'_, U>, val: Val) -> Result<Self> {
                match val {
                    Val::$val(v) => Ok(v),
                    other => Err(wrong_val($name, &other)),
                }
            }

            lift_scalars!($kind);
            load_plain!($kind $t);

            fn lift_direct<U: 'static>(_cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, src: &mut FlatValues<'_>) -> Result<Self> {
                direct::lift_scalar::<$t, { std::mem::size_of::<$t>() }>(ty, src)
            }

            fn load_direct<U: 'static>(cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<Self> {
                direct::load_scalar::<$t, { std::mem::size_of::<$t>() }, U>(cx, ty, ptr)
            }
        }

        impl Lower for $t {
            fn lower<U: 'static>(&self, _store: &mut StoreContextMut<'_, U>) -> Result<Val> {
                Ok(Val::$val(*self))
            }

            store_plain!($kind $t);
            lower_scalars!($kind);

            fn lower_direct<U: 'static>(&self, _cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, out: &mut Vec<u64>) -> Result<()> {
                direct::lower_scalar::<$t, { std::mem::size_of::<$t>() }>(self, ty, out)
            }

            fn store_direct<U: 'static>(&self, cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<()> {
                direct::store_scalar::<$t, { std::mem::size_of::<$t>() }, U>(self, cx, ty, ptr)
            }
        }
    )*};
}

primitives! {
    bool => Bool, Bool, "bool", flat;
    i8 => S8, S8, "s8", plain;
    u8 => U8, U8, "u8", plain;
    i16 => S16, S16, "s16", plain;
    u16 => U16, U16, "u16", plain;
    i32 => S32, S32, "s32", plain;
    u32 => U32, U32, "u32", plain;
    i64 => S64, S64, "s64", plain;
    u64 => U64, U64, "u64", plain;
    f32 => F32, Float32, "f32", other;
    f64 => F64, Float64, "f64", other;
    char => Char, Char, "char", other;
}

impl ComponentType for str {
    fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> Result<()> {
        match ty {
            InterfaceType::String => Ok(()),
            other => Err(expected("string", other, types)),
        }
    }
}

impl Lower for str {
    fn lower<U: 'static>(&self, _store: &mut StoreContextMut<'_, U>) -> Result<Val> {
        Ok(Val::String(self.to_string()))
    }

    lower_direct_with!(direct::lower_string, direct::store_string);
}

impl ComponentType for String {
    fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> Result<()> {
        str::typecheck(ty, types)
    }
}

impl Lift for String {
    fn lift<U: 'static>(_store: &mut StoreContextMut<'_, U>, val: Val) -> Result<Self> {
        match val {
            Val::String(s) => Ok(s),
            other => Err(wrong_val("string", &other)),
        }
    }

    lift_direct_with!(direct::lift_string, direct::load_string);
}

impl Lower for String {
    fn lower<U: 'static>(&self, _store: &mut StoreContextMut<'_, U>) -> Result<Val> {
        Ok(Val::String(self.clone()))
    }

    lower_direct_with!(direct::lower_string, direct::store_string);
}

impl<T: ComponentType + ?Sized> ComponentType for &T {
    const IS_UNIT: bool = T::IS_UNIT;

    fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> Result<()> {
        T::typecheck(ty, types)
    }
}

impl<T: Lower + ?Sized> Lower for &T {
    fn lower<U: 'static>(&self, store: &mut StoreContextMut<'_, U>) -> Result<Val> {
        T::lower(self, store)
    }

    fn lower_scalars(&self, out: &mut [u64]) -> Option<usize> {
        T::lower_scalars(self, out)
    }

    fn lower_direct<U: 'static>(
        &self,
        cx: &mut HostCall<'_, '_, U>,
        ty: InterfaceType,
        out: &mut Vec<u64>,
    ) -> Result<()> {
        T::lower_direct(self, cx, ty, out)
    }

    fn store_direct<U: 'static>(&self, cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<()> {
        T::store_direct(self, cx, ty, ptr)
    }
}

impl<T: ComponentType> ComponentType for [T] {
    fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> Result<()> {
        match defined(ty, types, "list")? {
            DefinedType::List(t) | DefinedType::FixedLengthList(t, _) => {
                T::typecheck(t, types).context("type mismatch in the elements of a list")
            }
            _ => Err(expected("list", ty, types)),
        }
    }
}

/// `Lower::lower` behind a `dyn`, so that values of different types can be
/// lowered in one loop (`lower_each`, for tuples, lists and the records of
/// `#[derive(Lower)]`).
pub trait LowerVal<U> {
    /// [`Lower::lower`] of `self`.
    fn lower_val(&self, store: &mut StoreContextMut<'_, U>) -> Result<Val>;
}

impl<U: 'static, T: Lower + ?Sized> LowerVal<U> for T {
    fn lower_val(&self, store: &mut StoreContextMut<'_, U>) -> Result<Val> {
        self.lower(store)
    }
}

/// The values of `items`, lowered in order; when one fails, the handles
/// made for those before it are released (`handles::release_lowered`)
/// rather than left in the host table.
fn lower_each<'a, U: 'static>(
    store: &mut StoreContextMut<'_, U>,
    items: impl IntoIterator<Item = &'a dyn LowerVal<U>>,
) -> Result<Vec<Val>> {
    let mut vals = Vec::new();
    for item in items {
        match item.lower_val(store) {
            Ok(v) => vals.push(v),
            Err(e) => {
                crate::component::handles::release_lowered(store, &vals);
                return Err(e);
            }
        }
    }
    Ok(vals)
}

impl<T: Lower> Lower for [T] {
    fn lower<U: 'static>(&self, store: &mut StoreContextMut<'_, U>) -> Result<Val> {
        Ok(Val::List(lower_each(
            store,
            self.iter().map(|v| v as &dyn LowerVal<U>),
        )?))
    }

    lower_direct_with!(direct::lower_list, direct::store_list);
}

impl<T: ComponentType> ComponentType for Vec<T> {
    fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> Result<()> {
        <[T]>::typecheck(ty, types)
    }
}

impl<T: Lift> Lift for Vec<T> {
    fn lift<U: 'static>(store: &mut StoreContextMut<'_, U>, val: Val) -> Result<Self> {
        match val {
            Val::List(vs) => vs.into_iter().map(|v| T::lift(store, v)).collect(),
            other => Err(wrong_val("list", &other)),
        }
    }

    lift_direct_with!(direct::lift_list, direct::load_list);
}

impl<T: Lower> Lower for Vec<T> {
    fn lower<U: 'static>(&self, store: &mut StoreContextMut<'_, U>) -> Result<Val> {
        self[..].lower(store)
    }

    lower_direct_with!(direct::lower_list, direct::store_list);
}

impl<T: ComponentType> ComponentType for Box<[T]> {
    fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> Result<()> {
        <[T]>::typecheck(ty, types)
    }
}

impl<T: Lift> Lift for Box<[T]> {
    fn lift<U: 'static>(store: &mut StoreContextMut<'_, U>, val: Val) -> Result<Self> {
        Vec::<T>::lift(store, val).map(Vec::into_boxed_slice)
    }
}

impl<T: Lower> Lower for Box<[T]> {
    fn lower<U: 'static>(&self, store: &mut StoreContextMut<'_, U>) -> Result<Val> {
        self[..].lower(store)
    }
}

impl<T: ComponentType> ComponentType for Option<T> {
    fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> Result<()> {
        match defined(ty, types, "option")? {
            DefinedType::Option(t) => T::typecheck(t, types).context("type mismatch in the payload of an option"),
            _ => Err(expected("option", ty, types)),
        }
    }
}

impl<T: Lift> Lift for Option<T> {
    fn lift<U: 'static>(store: &mut StoreContextMut<'_, U>, val: Val) -> Result<Self> {
        match val {
            Val::Option(None) => Ok(None),
            Val::Option(Some(v)) => Ok(Some(T::lift(store, *v)?)),
            other => Err(wrong_val("option", &other)),
        }
    }

    fn lift_direct<U: 'static>(
        cx: &mut HostCall<'_, '_, U>,
        ty: InterfaceType,
        src: &mut FlatValues<'_>,
    ) -> Result<Self> {
        Ok(match direct::lift_cases::<(), T, U>(cx, ty, true, src)? {
            Case::First(()) => None,
            Case::Second(v) => Some(v),
        })
    }

    fn load_direct<U: 'static>(cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<Self> {
        Ok(match direct::load_cases::<(), T, U>(cx, ty, true, ptr)? {
            Case::First(()) => None,
            Case::Second(v) => Some(v),
        })
    }
}

impl<T: Lower> Lower for Option<T> {
    fn lower<U: 'static>(&self, store: &mut StoreContextMut<'_, U>) -> Result<Val> {
        Ok(Val::Option(match self {
            None => None,
            Some(v) => Some(Box::new(v.lower(store)?)),
        }))
    }

    fn lower_direct<U: 'static>(
        &self,
        cx: &mut HostCall<'_, '_, U>,
        ty: InterfaceType,
        out: &mut Vec<u64>,
    ) -> Result<()> {
        direct::lower_cases(cx, ty, true, option_case(self), out)
    }

    fn store_direct<U: 'static>(&self, cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<()> {
        direct::store_cases(cx, ty, true, ptr, option_case(self))
    }
}

/// An option as the two cases of the canonical ABI (`none`, `some`).
fn option_case<T>(v: &Option<T>) -> Case<&(), &T> {
    match v {
        None => Case::First(&()),
        Some(v) => Case::Second(v),
    }
}

/// A result as the two cases of the canonical ABI (`ok`, `error`).
fn result_case<T, E>(v: &std::result::Result<T, E>) -> Case<&T, &E> {
    match v {
        Ok(v) => Case::First(v),
        Err(e) => Case::Second(e),
    }
}

/// Checks the payload `ty` of a `result` against `T` (`()` matching an
/// absent payload).
fn typecheck_payload<T: ComponentType>(ty: Option<&InterfaceType>, types: &InstanceType<'_>, side: &str) -> Result<()> {
    match (ty, T::IS_UNIT) {
        (None, true) => Ok(()),
        (None, false) => Err(anyhow!("type mismatch: the `{side}` case of the result has no payload")),
        (Some(t), false) => T::typecheck(t, types).with_context(|| format!("type mismatch in the `{side}` case")),
        (Some(t), true) => Err(anyhow!(
            "type mismatch: the `{side}` case of the result has a payload of type `{}`, not none",
            describe(t, types)
        )),
    }
}

fn lift_payload<T: Lift, U: 'static>(store: &mut StoreContextMut<'_, U>, payload: Option<Box<Val>>) -> Result<T> {
    let val = match payload {
        Some(v) => *v,
        None if T::IS_UNIT => Val::Tuple(Vec::new()),
        None => return Err(anyhow!("type mismatch: a payload is missing")),
    };
    T::lift(store, val)
}

fn lower_payload<T: Lower, U: 'static>(v: &T, store: &mut StoreContextMut<'_, U>) -> Result<Option<Box<Val>>> {
    if T::IS_UNIT {
        Ok(None)
    } else {
        Ok(Some(Box::new(v.lower(store)?)))
    }
}

impl<T: ComponentType, E: ComponentType> ComponentType for std::result::Result<T, E> {
    fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> Result<()> {
        match defined(ty, types, "result")? {
            DefinedType::Result { ok, err } => {
                typecheck_payload::<T>(ok.as_ref(), types, "ok")?;
                typecheck_payload::<E>(err.as_ref(), types, "error")
            }
            _ => Err(expected("result", ty, types)),
        }
    }
}

impl<T: Lift, E: Lift> Lift for std::result::Result<T, E> {
    fn lift<U: 'static>(store: &mut StoreContextMut<'_, U>, val: Val) -> Result<Self> {
        match val {
            Val::Result(Ok(p)) => Ok(Ok(lift_payload(store, p)?)),
            Val::Result(Err(p)) => Ok(Err(lift_payload(store, p)?)),
            other => Err(wrong_val("result", &other)),
        }
    }

    fn lift_direct<U: 'static>(
        cx: &mut HostCall<'_, '_, U>,
        ty: InterfaceType,
        src: &mut FlatValues<'_>,
    ) -> Result<Self> {
        Ok(match direct::lift_cases::<T, E, U>(cx, ty, false, src)? {
            Case::First(v) => Ok(v),
            Case::Second(e) => Err(e),
        })
    }

    fn load_direct<U: 'static>(cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<Self> {
        Ok(match direct::load_cases::<T, E, U>(cx, ty, false, ptr)? {
            Case::First(v) => Ok(v),
            Case::Second(e) => Err(e),
        })
    }
}

impl<T: Lower, E: Lower> Lower for std::result::Result<T, E> {
    fn lower<U: 'static>(&self, store: &mut StoreContextMut<'_, U>) -> Result<Val> {
        Ok(Val::Result(match self {
            Ok(v) => Ok(lower_payload(v, store)?),
            Err(e) => Err(lower_payload(e, store)?),
        }))
    }

    fn lower_direct<U: 'static>(
        &self,
        cx: &mut HostCall<'_, '_, U>,
        ty: InterfaceType,
        out: &mut Vec<u64>,
    ) -> Result<()> {
        direct::lower_cases(cx, ty, false, result_case(self), out)
    }

    fn store_direct<U: 'static>(&self, cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<()> {
        direct::store_cases(cx, ty, false, ptr, result_case(self))
    }
}

impl<R: 'static> ComponentType for Resource<R> {
    /// An `own` or `borrow` of the host resource type of `R`, when the
    /// resource's identity is known (imported from the linker, or bound by
    /// instantiation); a resource the component defines is never one.
    fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> Result<()> {
        match ty {
            InterfaceType::Own(r) | InterfaceType::Borrow(r) => match types.resource_type(*r) {
                Some(found) if found != ResourceType::host::<R>() => Err(anyhow!(
                    "type mismatch: expected a handle to the host resource `{}`, found a handle to another resource type",
                    std::any::type_name::<R>()
                )),
                _ => Ok(()),
            },
            other => Err(expected("own or borrow", other, types)),
        }
    }
}

impl<R: 'static> Lift for Resource<R> {
    fn lift<U: 'static>(store: &mut StoreContextMut<'_, U>, val: Val) -> Result<Self> {
        match val {
            Val::Resource(r) => Resource::try_from_resource_any(r, store),
            other => Err(wrong_val("own or borrow", &other)),
        }
    }

    fn lift_direct<U: 'static>(
        cx: &mut HostCall<'_, '_, U>,
        ty: InterfaceType,
        src: &mut FlatValues<'_>,
    ) -> Result<Self> {
        let index = src.next_i32()?;
        direct::lift_resource(cx, ty, index)
    }

    fn load_direct<U: 'static>(cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<Self> {
        let index = u32::from_le_bytes(cx.read::<4>(ptr, 4)?);
        direct::lift_resource(cx, ty, index)
    }
}

impl<R: 'static> Lower for Resource<R> {
    fn lower<U: 'static>(&self, store: &mut StoreContextMut<'_, U>) -> Result<Val> {
        // A handle made for this call's values (`Handle::lowered`): the
        // call removes what it leaves of it.
        Ok(Val::Resource(self.lower_to_resource_any(store)?))
    }

    fn lower_direct<U: 'static>(
        &self,
        cx: &mut HostCall<'_, '_, U>,
        ty: InterfaceType,
        out: &mut Vec<u64>,
    ) -> Result<()> {
        let index = direct::lower_resource(cx, ty, self)?;
        out.push(u64::from(index));
        Ok(())
    }

    fn store_direct<U: 'static>(&self, cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<()> {
        // The place is checked before the handle moves.
        cx.read::<4>(ptr, 4)?;
        let index = direct::lower_resource(cx, ty, self)?;
        cx.write(ptr, 4, &index.to_le_bytes())
    }
}

impl ComponentType for ResourceAny {
    /// Any `own` or `borrow`.
    fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> Result<()> {
        match ty {
            InterfaceType::Own(_) | InterfaceType::Borrow(_) => Ok(()),
            other => Err(expected("own or borrow", other, types)),
        }
    }
}

impl Lift for ResourceAny {
    fn lift<U: 'static>(_store: &mut StoreContextMut<'_, U>, val: Val) -> Result<Self> {
        match val {
            Val::Resource(r) => Ok(r),
            other => Err(wrong_val("own or borrow", &other)),
        }
    }
}

impl Lower for ResourceAny {
    fn lower<U: 'static>(&self, _store: &mut StoreContextMut<'_, U>) -> Result<Val> {
        Ok(Val::Resource(*self))
    }
}

/// The `n` values of a [`Val::Tuple`] (or of a list of parameters or
/// results).
pub(crate) fn tuple_vals(val: Val, n: usize) -> Result<Vec<Val>> {
    match val {
        Val::Tuple(vs) if vs.len() == n => Ok(vs),
        Val::Tuple(vs) => Err(anyhow!("type mismatch: expected {n} values, found {}", vs.len())),
        other => Err(wrong_val("tuple", &other)),
    }
}

fn typecheck_tuple_len(n: usize, found: usize, what: &str) -> Result<()> {
    if n != found {
        return Err(anyhow!("type mismatch: expected {n} {what}, found {found}"));
    }
    Ok(())
}

macro_rules! tuples {
    ($($n:literal: ($($t:ident $i:tt),*);)*) => {$(
        impl<$($t: ComponentType),*> ComponentType for ($($t,)*) {
            const IS_UNIT: bool = $n == 0;

            fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> Result<()> {
                match defined(ty, types, "tuple")? {
                    DefinedType::Tuple(tys) => Self::typecheck_list(tys, types),
                    _ => Err(expected("tuple", ty, types)),
                }
            }
        }

        impl<$($t: ComponentType),*> ComponentNamedList for ($($t,)*) {
            const LEN: usize = $n;

            #[allow(unused_variables, reason = "the macro expands for every arity, zero included")]
            fn typecheck_list(tys: &[InterfaceType], types: &InstanceType<'_>) -> Result<()> {
                typecheck_tuple_len($n, tys.len(), "types")?;
                $(
                    if let Some(t) = tys.get($i) {
                        $t::typecheck(t, types).with_context(|| format!("type mismatch in element {}", $i))?;
                    }
                )*
                Ok(())
            }
        }

        impl<$($t: Lift),*> Lift for ($($t,)*) {
            #[allow(unused_variables, unused_mut, clippy::unused_unit, reason = "the macro expands for every arity, zero included")]
            fn lift<U: 'static>(store: &mut StoreContextMut<'_, U>, val: Val) -> Result<Self> {
                let mut vals = tuple_vals(val, $n)?.into_iter();
                Ok(($($t::lift(store, next(&mut vals)?)?,)*))
            }

            #[allow(unused_mut, unused_variables, clippy::unused_unit, reason = "the macro expands for every arity, zero included")]
            fn lift_scalars(flat: &[u64]) -> Option<(Self, usize)> {
                let mut used = 0;
                Some((
                    ($({
                        let (v, n) = $t::lift_scalars(flat.get(used..)?)?;
                        used += n;
                        v
                    },)*),
                    used,
                ))
            }

            #[allow(unused_variables, clippy::unused_unit, reason = "the macro expands for every arity, zero included")]
            fn lift_direct<U: 'static>(cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, src: &mut FlatValues<'_>) -> Result<Self> {
                let tys = direct::tuple_of(cx.types(), ty, $n)?;
                Ok(($($t::lift_direct(cx, direct::elem(tys, $i)?, src)?,)*))
            }

            #[allow(unused_variables, unused_mut, clippy::unused_unit, reason = "the macro expands for every arity, zero included")]
            fn load_direct<U: 'static>(cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<Self> {
                let tys = direct::tuple_of(cx.types(), ty, $n)?;
                let mut walk = direct::tuple_place(cx, ty, ptr)?;
                Ok(($({
                    let t = direct::elem(tys, $i)?;
                    let at = direct::field_at(cx, &mut walk, ptr, t)?;
                    $t::load_direct(cx, t, at)?
                },)*))
            }

            #[allow(unused_variables, unused_mut, clippy::unused_unit, reason = "the macro expands for every arity, zero included")]
            fn lift_params_direct<U: 'static>(cx: &mut HostCall<'_, '_, U>, ty: &FuncType, flat: &[u64]) -> Result<Self> {
                typecheck_tuple_len($n, ty.params.len(), "parameters")?;
                let mut place = direct::params_place(cx, ty, flat)?;
                let params = ($(place.next::<$t, U>(cx, direct::param_type(ty, $i)?)?,)*);
                place.finish()?;
                Ok(params)
            }
        }

        impl<$($t: Lower),*> Lower for ($($t,)*) {
            #[allow(unused_variables, reason = "the macro expands for every arity, zero included")]
            fn lower<U: 'static>(&self, store: &mut StoreContextMut<'_, U>) -> Result<Val> {
                Ok(Val::Tuple(lower_each(store, [$(&self.$i as &dyn LowerVal<U>),*])?))
            }

            #[allow(unused_mut, unused_variables, reason = "the macro expands for every arity, zero included")]
            fn lower_scalars(&self, out: &mut [u64]) -> Option<usize> {
                let mut used = 0;
                $(used += self.$i.lower_scalars(out.get_mut(used..)?)?;)*
                Some(used)
            }

            #[allow(unused_variables, reason = "the macro expands for every arity, zero included")]
            fn lower_direct<U: 'static>(&self, cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, out: &mut Vec<u64>) -> Result<()> {
                let tys = direct::tuple_of(cx.types(), ty, $n)?;
                $(self.$i.lower_direct(cx, direct::elem(tys, $i)?, out)?;)*
                Ok(())
            }

            #[allow(unused_variables, unused_mut, reason = "the macro expands for every arity, zero included")]
            fn store_direct<U: 'static>(&self, cx: &mut HostCall<'_, '_, U>, ty: InterfaceType, ptr: u32) -> Result<()> {
                let tys = direct::tuple_of(cx.types(), ty, $n)?;
                let mut walk = direct::tuple_place(cx, ty, ptr)?;
                $({
                    let t = direct::elem(tys, $i)?;
                    let at = direct::field_at(cx, &mut walk, ptr, t)?;
                    self.$i.store_direct(cx, t, at)?;
                })*
                Ok(())
            }

            #[allow(unused_variables, unused_mut, reason = "the macro expands for every arity, zero included")]
            fn lower_results_direct<U: 'static>(
                &self,
                cx: &mut HostCall<'_, '_, U>,
                ty: &FuncType,
                out_param: Option<u32>,
                out: &mut Vec<u64>,
            ) -> Result<()> {
                typecheck_tuple_len($n, ty.result.iter().count(), "results")?;
                let mut place = direct::results_place(cx, ty, out_param, out)?;
                $(place.next(cx, direct::result_type(ty, $i)?, &self.$i)?;)*
                Ok(())
            }
        }
    )*};
}

/// The next value of a list whose length was checked.
fn next(vals: &mut std::vec::IntoIter<Val>) -> Result<Val> {
    vals.next().ok_or_else(|| anyhow!("type mismatch: too few values"))
}

tuples! {
    0: ();
    1: (A 0);
    2: (A 0, B 1);
    3: (A 0, B 1, C 2);
    4: (A 0, B 1, C 2, D 3);
    5: (A 0, B 1, C 2, D 3, E 4);
    6: (A 0, B 1, C 2, D 3, E 4, F 5);
    7: (A 0, B 1, C 2, D 3, E 4, F 5, G 6);
    8: (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
    9: (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
    10: (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
    11: (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
    12: (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
    13: (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12);
    14: (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13);
    15: (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13, O 14);
    16: (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13, O 14, P 15);
}

/// What a typed value's type is checked against, as Wasmtime's
/// `InstanceType`: the type registry of a component and, as far as they are
/// known, the runtime identities of its resource types (bound by the
/// linker's definitions or by instantiation), so that [`Resource<T>`] only
/// matches handles to `T`.
pub struct InstanceType<'a> {
    space: &'a TypeSpace,
    resources: &'a [Option<ResourceType>],
}

impl<'a> InstanceType<'a> {
    pub(crate) fn new(space: &'a TypeSpace, resources: &'a [Option<ResourceType>]) -> Self {
        InstanceType { space, resources }
    }

    pub(crate) fn space(&self) -> &'a TypeSpace {
        self.space
    }

    /// The runtime identity of the component's resource type `index`, if
    /// it is known.
    pub fn resource_type(&self, index: TypeResourceIndex) -> Option<ResourceType> {
        self.resources.get(index.0 as usize).copied().flatten()
    }
}

impl std::ops::Deref for InstanceType<'_> {
    type Target = ComponentTypes;
    fn deref(&self) -> &ComponentTypes {
        self.space
    }
}

/// Checks a function type against parameter and result lists.
pub(crate) fn typecheck_func<P: ComponentNamedList, R: ComponentNamedList>(
    ty: &FuncType,
    types: &InstanceType<'_>,
) -> Result<()> {
    let params: Vec<InterfaceType> = ty.param_types().collect();
    P::typecheck_list(&params, types).context("type mismatch with parameters")?;
    let results: Vec<InterfaceType> = ty.result.into_iter().collect();
    R::typecheck_list(&results, types).context("type mismatch with results")
}

/// A component function with parameters `Params` and results `Results`
/// (tuples: see [`ComponentNamedList`]), type checked when it was made
/// ([`Func::typed`], [`Instance::get_typed_func`]).
pub struct TypedFunc<Params, Results> {
    func: Func,
    _marker: PhantomData<fn(Params) -> Results>,
}

impl<P, R> Clone for TypedFunc<P, R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P, R> Copy for TypedFunc<P, R> {}

impl<P, R> std::fmt::Debug for TypedFunc<P, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedFunc").field("func", &self.func).finish()
    }
}

impl<Params, Results> TypedFunc<Params, Results>
where
    Params: ComponentNamedList + Lower,
    Results: ComponentNamedList + Lift,
{
    /// The `Func` this typed view calls.
    pub fn func(&self) -> &Func {
        &self.func
    }

    /// Calls the function with `params` and returns its results (then runs
    /// its `post-return` function, as [`Func::call`] does).
    ///
    /// Fails when the function belongs to another store, when a resource
    /// of `params` is of another store or already given away, when the
    /// callee's instance may not be entered, or when the call traps.
    pub fn call(&self, mut store: impl AsContextMut, params: Params) -> Result<Results> {
        let mut store = store.as_context_mut();
        // Integer and `bool` parameters and results are the core values
        // themselves: no component value is made of them.
        let mut flat = [0u64; crate::component::call::MAX_SCALARS];
        if Results::lift_scalars(&flat).is_some() {
            if let Some(n) = params.lower_scalars(&mut flat) {
                let mut out = [0u64; 1];
                if let Some(k) = self.func.call_scalars(&mut store, &flat[..n], &mut out)? {
                    return match Results::lift_scalars(&out[..k]) {
                        Some((results, used)) if used == k => Ok(results),
                        _ => Err(anyhow!("type mismatch: the results do not match the function's")),
                    };
                }
            }
        }
        let args = tuple_vals(params.lower(&mut store)?, Params::LEN)?;
        let mut results = vec![Val::Bool(false); Results::LEN];
        let called = self.func.call(&mut store, &args, &mut results);
        // The host table keeps nothing of the handles made for the
        // parameters: a borrow was lent for the call only, and an own the
        // call failed to take is no one's.
        crate::component::handles::release_lowered(&mut store, &args);
        called?;
        Results::lift(&mut store, Val::Tuple(results))
    }

    /// Does nothing: [`TypedFunc::call`] runs the `post-return` function
    /// itself. Kept so that programs written for Wasmtime compile.
    pub fn post_return(&self, _store: impl AsContextMut) -> Result<()> {
        Ok(())
    }
}

impl Func {
    /// This function as a [`TypedFunc`] with parameters `Params` and results
    /// `Results`, after checking that they are its type ("type mismatch with
    /// parameters" or "type mismatch with results" otherwise, with the
    /// mismatch as the cause).
    pub fn typed<Params, Results>(&self, store: impl AsContext) -> Result<TypedFunc<Params, Results>>
    where
        Params: ComponentNamedList + Lower,
        Results: ComponentNamedList + Lift,
    {
        let store = store.as_context();
        let opaque = store.0.opaque();
        opaque.check(self.store, "component function")?;
        let f = opaque
            .components
            .funcs
            .get(self.index as usize)
            .ok_or_else(|| anyhow!("component function not found in store"))?;
        let ty = f
            .types
            .func(f.ty)
            .ok_or_else(|| anyhow!("component function type not found"))?;
        let resources = opaque
            .components
            .instance(f.options.flags.instance)
            .map(|i| &i.resource_types[..])
            .unwrap_or(&[]);
        typecheck_func::<Params, Results>(ty, &InstanceType::new(&f.types, resources))?;
        Ok(TypedFunc {
            func: *self,
            _marker: PhantomData,
        })
    }
}

impl Instance {
    /// The exported function `name` as a [`TypedFunc`]: fails with "failed
    /// to find function export" when there is none, and with "failed to
    /// convert function to given type" (the mismatch as the cause) when its
    /// type is not `Params -> Results`.
    pub fn get_typed_func<Params, Results>(
        &self,
        mut store: impl AsContextMut,
        name: impl InstanceExportLookup,
    ) -> Result<TypedFunc<Params, Results>>
    where
        Params: ComponentNamedList + Lower,
        Results: ComponentNamedList + Lift,
    {
        let f = self
            .get_func(&mut store, name)
            .ok_or_else(|| anyhow!("failed to find function export"))?;
        f.typed::<Params, Results>(&store)
            .context("failed to convert function to given type")
    }
}

/// Helpers for the code that `#[derive(ComponentType, Lift, Lower)]` and
/// `flags!` expand to. Not a stable API.
#[doc(hidden)]
pub mod __internal {
    pub use super::super::direct::{FlatValues, HostCall};
    pub use super::super::{ComponentType, ComponentTypes, InterfaceType, Lift, Lower, Val};
    use super::{defined, expected, lower_each, next, wrong_val};
    pub use super::{InstanceType, LowerVal};
    pub use crate::{Error, Result, StoreContextMut};
    use anyhow::{anyhow, Context as _};
    use weft_environ::component::DefinedType;

    /// `func` as a [`super::TypedFunc`] without a type check, for code that
    /// `bindgen!` generates (which checked the type when it loaded the
    /// export). Safe: a call whose values do not match the function's type
    /// fails with an error, as [`super::Func::call`] does.
    pub fn typed_func_unchecked<P, R>(func: super::super::Func) -> super::TypedFunc<P, R> {
        super::TypedFunc {
            func,
            _marker: std::marker::PhantomData,
        }
    }

    /// A record of the fields `fields` (names and values), lowered in
    /// order; when one fails, the handles made for those before it are
    /// released, as for the elements of a list.
    pub fn lower_record<U: 'static>(
        store: &mut StoreContextMut<'_, U>,
        fields: &[(&str, &dyn LowerVal<U>)],
    ) -> Result<Val> {
        let vals = lower_each(store, fields.iter().map(|(_, v)| *v))?;
        Ok(Val::Record(
            fields
                .iter()
                .zip(vals)
                .map(|((name, _), v)| (name.to_string(), v))
                .collect(),
        ))
    }

    /// A type check function of a field or payload.
    pub type Typecheck = for<'a> fn(&InterfaceType, &InstanceType<'a>) -> Result<()>;

    fn check_names<'a>(what: &str, found: impl ExactSizeIterator<Item = &'a str>, names: &[&str]) -> Result<()> {
        let found: Vec<&str> = found.collect();
        if found != names {
            return Err(anyhow!(
                "type mismatch: expected a {what} of {names:?}, found a {what} of {found:?}"
            ));
        }
        Ok(())
    }

    /// Checks a record type: its fields' names and types, in order.
    pub fn typecheck_record(ty: &InterfaceType, types: &InstanceType<'_>, fields: &[(&str, Typecheck)]) -> Result<()> {
        match defined(ty, types, "record")? {
            DefinedType::Record(fs) => {
                let names: Vec<&str> = fields.iter().map(|(n, _)| *n).collect();
                check_names("record", fs.iter().map(|f| f.name.as_str()), &names)?;
                for (f, (name, check)) in fs.iter().zip(fields) {
                    check(&f.ty, types).with_context(|| format!("type mismatch for field `{name}`"))?;
                }
                Ok(())
            }
            _ => Err(expected("record", ty, types)),
        }
    }

    /// Checks a variant type: its cases' names and payload types, in order.
    pub fn typecheck_variant(
        ty: &InterfaceType,
        types: &InstanceType<'_>,
        cases: &[(&str, Option<Typecheck>)],
    ) -> Result<()> {
        match defined(ty, types, "variant")? {
            DefinedType::Variant(cs) => {
                let names: Vec<&str> = cases.iter().map(|(n, _)| *n).collect();
                check_names("variant", cs.iter().map(|c| c.name.as_str()), &names)?;
                for (c, (name, check)) in cs.iter().zip(cases) {
                    match (&c.ty, check) {
                        (None, None) => {}
                        (Some(t), Some(check)) => {
                            check(t, types).with_context(|| format!("type mismatch for case `{name}`"))?
                        }
                        (None, Some(_)) => return Err(anyhow!("type mismatch: case `{name}` has no payload")),
                        (Some(_), None) => return Err(anyhow!("type mismatch: case `{name}` has a payload")),
                    }
                }
                Ok(())
            }
            _ => Err(expected("variant", ty, types)),
        }
    }

    /// Checks an enum type: its cases' names, in order.
    pub fn typecheck_enum(ty: &InterfaceType, types: &InstanceType<'_>, names: &[&str]) -> Result<()> {
        match defined(ty, types, "enum")? {
            DefinedType::Enum(cs) => check_names("enum", cs.iter().map(|c| c.as_str()), names),
            _ => Err(expected("enum", ty, types)),
        }
    }

    /// Checks a flags type: its flags' names, in order.
    pub fn typecheck_flags(ty: &InterfaceType, types: &InstanceType<'_>, names: &[&str]) -> Result<()> {
        match defined(ty, types, "flags")? {
            DefinedType::Flags(fs) => check_names("flags", fs.iter().map(|c| c.as_str()), names),
            _ => Err(expected("flags", ty, types)),
        }
    }

    /// The field values of a record value, checking their names.
    pub fn lift_record(val: Val, names: &[&str]) -> Result<std::vec::IntoIter<Val>> {
        match val {
            Val::Record(fields) => {
                check_names("record", fields.iter().map(|(n, _)| n.as_str()), names)?;
                Ok(fields.into_iter().map(|(_, v)| v).collect::<Vec<_>>().into_iter())
            }
            other => Err(wrong_val("record", &other)),
        }
    }

    /// The next field value of [`lift_record`].
    pub fn next_field(vals: &mut std::vec::IntoIter<Val>) -> Result<Val> {
        next(vals)
    }

    /// The case name and payload of a variant value.
    pub fn lift_variant(val: Val) -> Result<(String, Option<Box<Val>>)> {
        match val {
            Val::Variant(name, payload) => Ok((name, payload)),
            other => Err(wrong_val("variant", &other)),
        }
    }

    /// The payload of case `name`, which must have one.
    pub fn payload(payload: Option<Box<Val>>, name: &str) -> Result<Val> {
        payload
            .map(|v| *v)
            .ok_or_else(|| anyhow!("type mismatch: case `{name}` needs a payload"))
    }

    /// Checks that case `name` has no payload.
    pub fn no_payload(payload: Option<Box<Val>>, name: &str) -> Result<()> {
        match payload {
            None => Ok(()),
            Some(_) => Err(anyhow!("type mismatch: case `{name}` has no payload")),
        }
    }

    /// The case name of an enum value.
    pub fn lift_enum(val: Val) -> Result<String> {
        match val {
            Val::Enum(name) => Ok(name),
            other => Err(wrong_val("enum", &other)),
        }
    }

    /// The names of the flags set in a flags value.
    pub fn lift_flags(val: Val) -> Result<Vec<String>> {
        match val {
            Val::Flags(names) => Ok(names),
            other => Err(wrong_val("flags", &other)),
        }
    }

    /// The error for a case or flag `name` that the Rust type does not
    /// have.
    pub fn unknown(what: &str, name: &str) -> Error {
        anyhow!("type mismatch: unknown {what} `{name}`")
    }
}
