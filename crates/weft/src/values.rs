//! Values, references and host references.

use crate::gc_refs::{AnyRef, GcWord};
use crate::store::{AsContext, AsContextMut, StoreId, StoreOpaque};
use crate::types::{HeapType, RefType, ValType};
// Import loop kept on purpose: a `Val` holds a `Func` or an exception's
// `Tag`, and functions and externals take and give `Val`s.
use crate::{Func, Tag};
use std::any::Any;
use std::marker::PhantomData;
use weft_runtime::{FuncRefPtr, ValRaw};

/// A WebAssembly value.
#[derive(Debug, Clone)]
pub enum Val {
    /// An `i32`.
    I32(i32),
    /// An `i64`.
    I64(i64),
    /// An `f32`, by its bits.
    F32(u32),
    /// An `f64`, by its bits.
    F64(u64),
    /// A `v128`.
    V128(V128),
    /// A `funcref`: a function, or `None` for null.
    FuncRef(Option<Func>),
    /// An `externref`: a rooted host reference, or `None` for null.
    ExternRef(Option<Rooted<ExternRef>>),
    /// An `exnref`: a rooted caught exception, or `None` for null.
    ExnRef(Option<Rooted<ExnRef>>),
    /// An `anyref` (the GC proposal): a struct, an array, an `i31ref` or an
    /// internalized host reference, or `None` for null.
    AnyRef(Option<Rooted<AnyRef>>),
}

/// A 128-bit vector value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct V128(u128);

impl V128 {
    /// The bits as an integer.
    pub fn as_u128(&self) -> u128 {
        self.0
    }
}

impl From<u128> for V128 {
    fn from(v: u128) -> Self {
        V128(v)
    }
}

impl From<V128> for u128 {
    fn from(v: V128) -> u128 {
        v.0
    }
}

impl From<V128> for Val {
    fn from(v: V128) -> Val {
        Val::V128(v)
    }
}

impl From<i32> for Val {
    fn from(v: i32) -> Val {
        Val::I32(v)
    }
}
impl From<i64> for Val {
    fn from(v: i64) -> Val {
        Val::I64(v)
    }
}
impl From<f32> for Val {
    fn from(v: f32) -> Val {
        Val::F32(v.to_bits())
    }
}
impl From<f64> for Val {
    fn from(v: f64) -> Val {
        Val::F64(v.to_bits())
    }
}
impl From<Func> for Val {
    fn from(v: Func) -> Val {
        Val::FuncRef(Some(v))
    }
}
impl From<Rooted<ExternRef>> for Val {
    fn from(v: Rooted<ExternRef>) -> Val {
        Val::ExternRef(Some(v))
    }
}
impl From<Ref> for Val {
    fn from(r: Ref) -> Val {
        match r {
            Ref::Func(f) => Val::FuncRef(f),
            Ref::Extern(e) => Val::ExternRef(e),
            Ref::Exn(e) => Val::ExnRef(e),
            Ref::Any(a) => Val::AnyRef(a),
        }
    }
}

impl Val {
    /// The null reference of `heap_type`.
    pub fn null_ref(heap_type: &HeapType) -> Val {
        Ref::null(heap_type).into()
    }
    /// A null function reference.
    pub const fn null_func_ref() -> Val {
        Val::FuncRef(None)
    }
    /// A null extern reference.
    pub const fn null_extern_ref() -> Val {
        Val::ExternRef(None)
    }
    /// The default value of a type (zero or null), if it has one.
    pub fn default_for_ty(ty: &ValType) -> Option<Val> {
        Some(match ty {
            ValType::I32 => Val::I32(0),
            ValType::I64 => Val::I64(0),
            ValType::F32 => Val::F32(0),
            ValType::F64 => Val::F64(0),
            ValType::V128 => Val::V128(V128(0)),
            ValType::Ref(r) if r.is_nullable() => Val::null_ref(r.heap_type()),
            ValType::Ref(_) => return None,
        })
    }
    /// The value's type (for a function, `(ref $t)` of its own type).
    pub fn ty(&self, store: impl AsContext) -> ValType {
        let store = store.as_context();
        if let Val::FuncRef(Some(f)) = self {
            if let Ok(ty) = f.func_ty(store.0.opaque()) {
                return ValType::Ref(RefType::new(false, HeapType::ConcreteFunc((**ty).clone())));
            }
        }
        self.ty_opaque()
    }
    pub(crate) fn ty_opaque(&self) -> ValType {
        match self {
            Val::I32(_) => ValType::I32,
            Val::I64(_) => ValType::I64,
            Val::F32(_) => ValType::F32,
            Val::F64(_) => ValType::F64,
            Val::V128(_) => ValType::V128,
            Val::FuncRef(Some(_)) => ValType::Ref(RefType::new(false, HeapType::Func)),
            Val::FuncRef(None) => ValType::NULLFUNCREF,
            Val::ExternRef(Some(_)) => ValType::Ref(RefType::new(false, HeapType::Extern)),
            Val::ExternRef(None) => ValType::NULLEXTERNREF,
            Val::ExnRef(Some(_)) => ValType::Ref(RefType::new(false, HeapType::Exn)),
            Val::ExnRef(None) => ValType::Ref(RefType::new(true, HeapType::NoExn)),
            Val::AnyRef(Some(_)) => ValType::Ref(RefType::new(false, HeapType::Any)),
            Val::AnyRef(None) => ValType::Ref(RefType::new(true, HeapType::None)),
        }
    }
    /// Whether the value is of type `ty`.
    pub fn matches_ty(&self, store: impl AsContext, ty: &ValType) -> crate::Result<bool> {
        let store = store.as_context();
        match ty {
            ValType::Ref(r) => self.ref_matches(store.0.opaque(), r),
            _ => Ok(self.ty_opaque().matches(ty)),
        }
    }

    /// Whether this reference value is of type `ty` (`false` for numbers
    /// and vectors). A function matches a concrete type exactly when its
    /// own type is that type.
    pub(crate) fn ref_matches(&self, store: &StoreOpaque, ty: &RefType) -> crate::Result<bool> {
        Ok(match self {
            Val::FuncRef(Some(f)) => match ty.heap_type() {
                HeapType::Func => true,
                HeapType::ConcreteFunc(want) => **f.func_ty(store)? == *want,
                _ => false,
            },
            Val::FuncRef(None) => ty.is_nullable() && ty.heap_type().is_func(),
            Val::ExternRef(Some(_)) => matches!(ty.heap_type(), HeapType::Extern),
            Val::ExternRef(None) => ty.is_nullable() && ty.heap_type().is_extern(),
            Val::ExnRef(Some(e)) => {
                store.check(e.store, "exception reference")?;
                if store.objects.exception(e.index.wrapping_add(1)).is_none() {
                    crate::bail!(
                        "exception reference to no exception of the store (used after its root scope ended \
                         and its exception was collected?)"
                    );
                }
                matches!(ty.heap_type(), HeapType::Exn)
            }
            Val::ExnRef(None) => ty.is_nullable() && ty.heap_type().is_exn(),
            Val::AnyRef(None) => ty.is_nullable() && ty.heap_type().is_any_hierarchy(),
            Val::AnyRef(Some(a)) => {
                let word = store.gc_word(a)?;
                match (ty.heap_type(), word) {
                    (HeapType::Any, _) => true,
                    (HeapType::Eq, GcWord::I31(_)) | (HeapType::I31, GcWord::I31(_)) => true,
                    (HeapType::Eq, GcWord::Object(t)) => t != weft_environ::GC_EXTERN_BOX_TYPE,
                    (HeapType::Struct, GcWord::Object(t)) => {
                        store.gc_kind(t) == Some(weft_environ::CompositeKind::Struct)
                    }
                    (HeapType::Array, GcWord::Object(t)) => {
                        store.gc_kind(t) == Some(weft_environ::CompositeKind::Array)
                    }
                    // A concrete type: the object's type must be it or
                    // one of its declared subtypes (its layout starts with
                    // the target's fields).
                    (HeapType::ConcreteStruct(want), GcWord::Object(t)) => store.is_gc_subtype(t, &want.0),
                    (HeapType::ConcreteArray(want), GcWord::Object(t)) => store.is_gc_subtype(t, &want.0),
                    _ => false,
                }
            }
            _ => false,
        })
    }
    /// The `anyref`, if this is one.
    pub fn any_ref(&self) -> Option<Option<&Rooted<AnyRef>>> {
        match self {
            Val::AnyRef(a) => Some(a.as_ref()),
            _ => None,
        }
    }
    /// The `i32`, if this is one.
    pub fn i32(&self) -> Option<i32> {
        match self {
            Val::I32(v) => Some(*v),
            _ => None,
        }
    }
    /// The `i64`, if this is one.
    pub fn i64(&self) -> Option<i64> {
        match self {
            Val::I64(v) => Some(*v),
            _ => None,
        }
    }
    /// The `f32`, if this is one.
    pub fn f32(&self) -> Option<f32> {
        match self {
            Val::F32(v) => Some(f32::from_bits(*v)),
            _ => None,
        }
    }
    /// The `f64`, if this is one.
    pub fn f64(&self) -> Option<f64> {
        match self {
            Val::F64(v) => Some(f64::from_bits(*v)),
            _ => None,
        }
    }
    /// The `v128`, if this is one.
    pub fn v128(&self) -> Option<V128> {
        match self {
            Val::V128(v) => Some(*v),
            _ => None,
        }
    }
    /// The function reference, if this is one.
    pub fn func_ref(&self) -> Option<Option<&Func>> {
        match self {
            Val::FuncRef(f) => Some(f.as_ref()),
            _ => None,
        }
    }
    /// The exception reference, if this is one.
    pub fn exn_ref(&self) -> Option<Option<&Rooted<ExnRef>>> {
        match self {
            Val::ExnRef(e) => Some(e.as_ref()),
            _ => None,
        }
    }
    /// The extern reference, if this is one.
    pub fn extern_ref(&self) -> Option<Option<&Rooted<ExternRef>>> {
        match self {
            Val::ExternRef(e) => Some(e.as_ref()),
            _ => None,
        }
    }
    /// The `funcref`, if this is one (Wasmtime's other name for
    /// [`Val::func_ref`]).
    pub fn funcref(&self) -> Option<Option<&Func>> {
        self.func_ref()
    }
    /// The `externref`, if this is one (Wasmtime's other name for
    /// [`Val::extern_ref`]).
    pub fn externref(&self) -> Option<Option<&Rooted<ExternRef>>> {
        self.extern_ref()
    }
    /// The `anyref`, if this is one (Wasmtime's other name for
    /// [`Val::any_ref`]).
    pub fn anyref(&self) -> Option<Option<&Rooted<AnyRef>>> {
        self.any_ref()
    }
    /// The `exnref`, if this is one (Wasmtime's name for [`Val::exn_ref`]).
    pub fn exnref(&self) -> Option<Option<&Rooted<ExnRef>>> {
        self.exn_ref()
    }
    /// The reference, if this is one.
    pub fn ref_(self) -> Option<Ref> {
        match self {
            Val::FuncRef(f) => Some(Ref::Func(f)),
            Val::ExternRef(e) => Some(Ref::Extern(e)),
            Val::ExnRef(e) => Some(Ref::Exn(e)),
            Val::AnyRef(a) => Some(Ref::Any(a)),
            _ => None,
        }
    }

    /// Lowers the value, checking that it belongs to `store` and has type
    /// `ty`.
    pub(crate) fn to_raw(&self, store: &StoreOpaque, ty: &ValType) -> crate::Result<ValRaw> {
        let raw = match (self, ty) {
            (Val::I32(v), ValType::I32) => ValRaw::i32(*v),
            (Val::I64(v), ValType::I64) => ValRaw::i64(*v),
            (Val::F32(v), ValType::F32) => ValRaw::f32(*v),
            (Val::F64(v), ValType::F64) => ValRaw::f64(*v),
            (Val::V128(v), ValType::V128) => ValRaw::v128(v.0),
            (Val::FuncRef(_) | Val::ExternRef(_) | Val::ExnRef(_) | Val::AnyRef(_), ValType::Ref(r)) => {
                if !self.ref_matches(store, r)? {
                    crate::bail!("type mismatch: expected {ty}, found {}", describe(store, self));
                }
                match self {
                    Val::FuncRef(Some(f)) => ValRaw::word(store.func_ref(f)?.to_word()),
                    Val::ExternRef(Some(e)) => ValRaw::word(store.externref_word(e)?),
                    Val::ExnRef(Some(e)) => ValRaw::word(e.index + 1),
                    // Checked by `ref_matches`: an i31ref or an object of
                    // the store's heap.
                    Val::AnyRef(Some(a)) => ValRaw::word(a.index),
                    _ => ValRaw::word(0),
                }
            }
            _ => crate::bail!("type mismatch: expected {ty}, found {}", self.ty_opaque()),
        };
        Ok(raw)
    }

    /// Lifts a raw value of type `ty` produced by code of `store`.
    pub(crate) fn from_raw(store: &StoreOpaque, raw: ValRaw, ty: &ValType) -> Val {
        match ty {
            ValType::I32 => Val::I32(raw.get_i32()),
            ValType::I64 => Val::I64(raw.get_i64()),
            ValType::F32 => Val::F32(raw.get_f32()),
            ValType::F64 => Val::F64(raw.get_f64()),
            ValType::V128 => Val::V128(V128(raw.get_v128())),
            ValType::Ref(r) => Ref::from_word(store, raw.get_word(), r.heap_type()).into(),
        }
    }
}

/// The type of a value for messages: precise for functions of `store`.
fn describe(store: &StoreOpaque, v: &Val) -> String {
    match v {
        Val::FuncRef(Some(f)) => match f.func_ty(store) {
            Ok(ty) => format!("(ref {ty})"),
            Err(_) => v.ty_opaque().to_string(),
        },
        _ => v.ty_opaque().to_string(),
    }
}

/// A reference value.
#[derive(Debug, Clone)]
pub enum Ref {
    /// A `funcref`: a function, or `None` for null.
    Func(Option<Func>),
    /// An `externref`: a rooted host reference, or `None` for null.
    Extern(Option<Rooted<ExternRef>>),
    /// An `exnref`: a rooted caught exception, or `None` for null.
    Exn(Option<Rooted<ExnRef>>),
    /// An `anyref` (the GC proposal).
    Any(Option<Rooted<AnyRef>>),
}

impl From<Func> for Ref {
    fn from(f: Func) -> Ref {
        Ref::Func(Some(f))
    }
}
impl From<Option<Func>> for Ref {
    fn from(f: Option<Func>) -> Ref {
        Ref::Func(f)
    }
}
impl From<Rooted<ExternRef>> for Ref {
    fn from(e: Rooted<ExternRef>) -> Ref {
        Ref::Extern(Some(e))
    }
}
impl From<Option<Rooted<ExternRef>>> for Ref {
    fn from(e: Option<Rooted<ExternRef>>) -> Ref {
        Ref::Extern(e)
    }
}

impl Ref {
    /// The null reference of `heap_type`.
    pub fn null(heap_type: &HeapType) -> Ref {
        if heap_type.is_func() {
            Ref::Func(None)
        } else if heap_type.is_exn() {
            Ref::Exn(None)
        } else if heap_type.is_any_hierarchy() {
            Ref::Any(None)
        } else {
            Ref::Extern(None)
        }
    }
    /// Whether this is null.
    pub fn is_null(&self) -> bool {
        matches!(
            self,
            Ref::Func(None) | Ref::Extern(None) | Ref::Exn(None) | Ref::Any(None)
        )
    }
    /// Whether this is not null.
    pub fn is_non_null(&self) -> bool {
        !self.is_null()
    }
    /// The function reference, if this is one.
    pub fn as_func(&self) -> Option<Option<&Func>> {
        match self {
            Ref::Func(f) => Some(f.as_ref()),
            _ => None,
        }
    }
    /// The extern reference, if this is one.
    pub fn as_extern(&self) -> Option<Option<&Rooted<ExternRef>>> {
        match self {
            Ref::Extern(e) => Some(e.as_ref()),
            _ => None,
        }
    }
    /// The `anyref` (of the `any` hierarchy), if this is one.
    pub fn as_any(&self) -> Option<Option<&Rooted<AnyRef>>> {
        match self {
            Ref::Any(a) => Some(a.as_ref()),
            _ => None,
        }
    }
    /// The exception reference, if this is one.
    pub fn as_exn(&self) -> Option<Option<&Rooted<ExnRef>>> {
        match self {
            Ref::Exn(e) => Some(e.as_ref()),
            _ => None,
        }
    }
    /// Whether this is a function reference (null or not).
    pub fn is_func(&self) -> bool {
        matches!(self, Ref::Func(_))
    }
    /// Whether this is an extern reference (null or not).
    pub fn is_extern(&self) -> bool {
        matches!(self, Ref::Extern(_))
    }
    /// Whether this is a reference of the `any` hierarchy (null or not).
    pub fn is_any(&self) -> bool {
        matches!(self, Ref::Any(_))
    }
    /// Whether this is an exception reference (null or not).
    pub fn is_exn(&self) -> bool {
        matches!(self, Ref::Exn(_))
    }
    /// Whether the reference is of type `ty`.
    pub fn matches_ty(&self, store: impl AsContext, ty: &RefType) -> crate::Result<bool> {
        let store = store.as_context();
        Val::from(self.clone()).ref_matches(store.0.opaque(), ty)
    }

    pub(crate) fn to_word(&self, store: &StoreOpaque, ty: &RefType) -> crate::Result<usize> {
        Ok(Val::from(self.clone())
            .to_raw(store, &ValType::Ref(ty.clone()))?
            .get_word())
    }

    pub(crate) fn from_word(store: &StoreOpaque, word: usize, heap_type: &HeapType) -> Ref {
        if heap_type.is_func() {
            Ref::Func(FuncRefPtr::from_word(word).map(|p| Func::from_store_index(store.id(), p.store_index())))
        } else if heap_type.is_exn() {
            store.objects.context().push_host_root(word as u64);
            Ref::Exn((word != 0).then(|| Rooted {
                store: store.id(),
                index: word - 1,
                _marker: PhantomData,
            }))
        } else if heap_type.is_any_hierarchy() {
            store.objects.context().push_host_root(word as u64);
            Ref::Any((word != 0).then(|| Rooted {
                store: store.id(),
                index: word,
                _marker: PhantomData,
            }))
        } else if word == 0 {
            Ref::Extern(None)
        } else {
            store.objects.context().push_host_root(word as u64);
            Ref::Extern(Some(Rooted {
                store: store.id(),
                index: word - 1,
                _marker: PhantomData,
            }))
        }
    }
}

/// A reference to host data, owned by a store.
#[derive(Debug)]
pub struct ExternRef {
    _private: (),
}

/// A rooted handle to a garbage-collected object of a store.
///
/// A handle roots its object until the innermost [`RootScope`] it was made
/// in ends (the store itself is the outermost scope; each call of a host
/// function from wasm is a scope of its own). Using a handle after its
/// scope ended is an error when the collector has freed its object since.
///
/// [`RootScope`]: crate::RootScope
pub struct Rooted<T> {
    pub(crate) store: StoreId,
    pub(crate) index: usize,
    pub(crate) _marker: PhantomData<fn() -> T>,
}

impl<T> Clone for Rooted<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Rooted<T> {}

impl<T> std::fmt::Debug for Rooted<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rooted").field("index", &self.index).finish()
    }
}

impl<T> Rooted<T> {
    /// Whether two handles refer to the same object.
    pub fn ref_eq(_store: impl AsContext, a: &Rooted<T>, b: &Rooted<T>) -> crate::Result<bool> {
        Ok(a.store == b.store && a.index == b.index)
    }
}

/// The error of an allocation that the GC heap could not satisfy.
#[derive(Debug)]
pub struct GcHeapOutOfMemory<T> {
    value: T,
    bytes_needed: u64,
}

impl<T> GcHeapOutOfMemory<T> {
    /// The error for `value`, whose allocation needed `bytes_needed` bytes.
    pub fn new(value: T, bytes_needed: u64) -> Self {
        GcHeapOutOfMemory { value, bytes_needed }
    }
    /// The value that could not be allocated.
    pub fn inner(&self) -> &T {
        &self.value
    }
    /// Takes back the value that could not be allocated.
    pub fn into_inner(self) -> T {
        self.value
    }
    /// The bytes the allocation needed.
    pub fn bytes_needed(&self) -> u64 {
        self.bytes_needed
    }
    /// Takes back the value, leaving the error without it (for
    /// [`Store::gc`](crate::Store::gc)).
    pub fn take_inner(self) -> (T, GcHeapOutOfMemory<()>) {
        (
            self.value,
            GcHeapOutOfMemory {
                value: (),
                bytes_needed: self.bytes_needed,
            },
        )
    }
}

impl<T> std::fmt::Display for GcHeapOutOfMemory<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GC heap out of memory")
    }
}

impl<T: std::fmt::Debug> std::error::Error for GcHeapOutOfMemory<T> {}

impl ExternRef {
    /// Allocates a new extern reference holding `value` in the store.
    pub fn new<T: Any + Send + Sync + 'static>(
        mut store: impl AsContextMut,
        value: T,
    ) -> crate::Result<Rooted<ExternRef>> {
        let store = store.as_context_mut().0.opaque_mut();
        store.new_externref(Box::new(value))
    }
}

impl Rooted<ExternRef> {
    /// The host data of the reference.
    pub fn data<'a, T: 'static + 'a>(
        &self,
        store: impl Into<crate::store::StoreContext<'a, T>>,
    ) -> crate::Result<Option<&'a (dyn Any + Send + Sync)>> {
        let store = store.into();
        Ok(Some(store.0.opaque().externref_data(self)?))
    }
}

impl From<Option<Func>> for Val {
    fn from(v: Option<Func>) -> Val {
        Val::FuncRef(v)
    }
}

impl From<Rooted<AnyRef>> for Val {
    fn from(v: Rooted<AnyRef>) -> Val {
        Val::AnyRef(Some(v))
    }
}

impl From<Option<Rooted<AnyRef>>> for Val {
    fn from(v: Option<Rooted<AnyRef>>) -> Val {
        Val::AnyRef(v)
    }
}

impl From<Option<Rooted<ExnRef>>> for Val {
    fn from(v: Option<Rooted<ExnRef>>) -> Val {
        Val::ExnRef(v)
    }
}

/// An exception: thrown by wasm and caught with `catch_ref` or
/// `catch_all_ref` (or escaped to the host), or made by the host with
/// [`ExnRef::new`] and thrown with [`crate::Store::throw`]. Exceptions are
/// collected like GC objects: a `Rooted<ExnRef>` keeps its exception alive
/// until its root scope ends, an `OwnedRooted<ExnRef>` until it is dropped,
/// and wasm keeps alive what its locals, operands, globals, tables, GC
/// objects and reachable exceptions' payloads hold. A handle used after
/// its exception was collected is refused with an error (it never names
/// another exception).
#[derive(Debug)]
pub struct ExnRef {
    _private: (),
}

impl Rooted<ExnRef> {
    /// The tag the exception was thrown with.
    pub fn tag(&self, store: impl AsContext) -> crate::Result<Tag> {
        let store = store.as_context();
        let opaque = store.0.opaque();
        opaque.check(self.store, "exception reference")?;
        let (tag, _) = opaque
            .objects
            .exception(self.index + 1)
            .ok_or_else(|| crate::format_err!("no such exception in the store"))?;
        Ok(Tag {
            store: self.store,
            id: tag,
        })
    }

    /// The exception's payload, one value per parameter of its tag's type.
    pub fn fields(&self, store: impl AsContext) -> crate::Result<Vec<Val>> {
        let store = store.as_context();
        let opaque = store.0.opaque();
        opaque.check(self.store, "exception reference")?;
        let (tag, values) = opaque
            .objects
            .exception(self.index + 1)
            .ok_or_else(|| crate::format_err!("no such exception in the store"))?;
        let ty = opaque.tag_type(tag);
        Ok(ty
            .ty()
            .params()
            .zip(values)
            .map(|(t, raw)| Val::from_raw(opaque, raw, &t))
            .collect())
    }
}

impl From<Option<Rooted<ExternRef>>> for Val {
    fn from(v: Option<Rooted<ExternRef>>) -> Val {
        Val::ExternRef(v)
    }
}
