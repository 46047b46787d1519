//! Host values of the GC proposal's references: [`AnyRef`] and [`I31`], as
//! in Wasmtime 48 (a subset: no `StructRef`/`ArrayRef` accessors yet), the
//! host's roots ([`RootScope`]) and `Store::gc`.
//!
//! A `Rooted<AnyRef>` holds the reference's 32-bit heap word (see
//! `weft_runtime::gc`); making one also pushes the word on the store's list
//! of host roots, which a [`RootScope`] truncates when it ends. A word that
//! is not an `i31ref` or a live object of the store's heap (a handle used
//! after its scope ended and its object was collected) is refused wherever
//! a handle is used.

use crate::store::{AsContext, AsContextMut, StoreOpaque};
// Import loop kept on purpose: a `Val` (values.rs) holds an `AnyRef`, and
// an `AnyRef` lives in a `Rooted` handle and converts to and from an
// `ExternRef`, as in Wasmtime, where all of them share one module.
use crate::values::{ExternRef, Rooted};
use std::marker::PhantomData;
use weft_environ::{CompositeKind, GC_EXTERN_BOX_TYPE};
use weft_types::VMSharedTypeIndex;

/// A reference of the `any` hierarchy: a struct, an array, an `i31ref`, or a
/// host reference made internal (`any.convert_extern`).
#[derive(Debug)]
pub struct AnyRef {
    _private: (),
}

/// An unboxed 31-bit integer, the value of an `i31ref`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct I31(u32);

impl I31 {
    /// The `i31` of `value`, if it fits in 31 signed bits.
    pub fn new_i32(value: i32) -> Option<I31> {
        ((value << 1) >> 1 == value).then(|| I31::wrapping_i32(value))
    }
    /// The `i31` of `value`, if it fits in 31 unsigned bits.
    pub fn new_u32(value: u32) -> Option<I31> {
        (value >> 31 == 0).then_some(I31(value))
    }
    /// The `i31` of `value` with its top bit dropped.
    pub fn wrapping_i32(value: i32) -> I31 {
        I31((value as u32) & 0x7fff_ffff)
    }
    /// The `i31` of `value` with its top bit dropped.
    pub fn wrapping_u32(value: u32) -> I31 {
        I31(value & 0x7fff_ffff)
    }
    /// The value, sign-extended.
    pub fn get_i32(&self) -> i32 {
        ((self.0 << 1) as i32) >> 1
    }
    /// The value, zero-extended.
    pub fn get_u32(&self) -> u32 {
        self.0
    }
}

/// What a heap word is, as far as the host API cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GcWord {
    I31(I31),
    /// An object: its engine type id.
    Object(u32),
}

impl StoreOpaque {
    /// Classifies the heap word of `r`, failing if `r` is of another store
    /// or names no object of this store's GC heap.
    pub(crate) fn gc_word(&self, r: &Rooted<AnyRef>) -> crate::Result<GcWord> {
        self.check(r.store, "anyref")?;
        let word = u32::try_from(r.index).map_err(|_| crate::format_err!("anyref to no object of the store"))?;
        if weft_runtime::gc::is_i31(word) {
            return Ok(GcWord::I31(I31(weft_runtime::gc::i31_get_u(word))));
        }
        match self.objects.context().with_gc_heap(|heap| heap.header(word)) {
            Some(Some((ty, _))) => Ok(GcWord::Object(ty)),
            _ => crate::bail!("anyref to no object of the store's GC heap"),
        }
    }

    /// Whether the `any`-hierarchy word `word` (0: null) is a value of the
    /// reference type `ty`, which is concrete struct or array type.
    pub(crate) fn gc_word_is_of(&self, word: u64, ty: &crate::RefType) -> bool {
        let Ok(word) = u32::try_from(word) else {
            return false;
        };
        if word == 0 {
            return ty.is_nullable();
        }
        let want = match ty.heap_type() {
            crate::HeapType::ConcreteStruct(s) => &s.0,
            crate::HeapType::ConcreteArray(a) => &a.0,
            _ => return false,
        };
        if weft_runtime::gc::is_i31(word) {
            return false;
        }
        match self.objects.context().with_gc_heap(|heap| heap.header(word)) {
            Some(Some((t, _))) => self.is_gc_subtype(t, want),
            _ => false,
        }
    }

    /// Whether an object of GC type `id` is of type `want` (it or one of
    /// its declared subtypes) in this store's engine.
    pub(crate) fn is_gc_subtype(&self, id: u32, want: &crate::types::GcType) -> bool {
        crate::Engine::same(&self.engine, &want.engine)
            && self.engine.inner.types.is_subtype(VMSharedTypeIndex(id), want.id)
    }

    /// The kind of the GC type `id` (struct or array), if it is one.
    pub(crate) fn gc_kind(&self, id: u32) -> Option<CompositeKind> {
        self.engine
            .inner
            .types
            .lookup_sub(VMSharedTypeIndex(id))
            .map(|t| t.composite.kind())
    }

    fn any_handle(&self, word: u32) -> Rooted<AnyRef> {
        self.objects.context().push_host_root(u64::from(word));
        Rooted {
            store: self.id(),
            index: word as usize,
            _marker: PhantomData,
        }
    }
}

impl AnyRef {
    /// The `i31ref` of `value`.
    pub fn from_i31(store: impl AsContextMut, value: I31) -> Rooted<AnyRef> {
        let mut store = store;
        let store = store.as_context_mut();
        store.0.opaque().any_handle(weft_runtime::gc::i31_word(value.get_i32()))
    }

    /// `any.convert_extern`: the host reference as an internal one (boxed
    /// in the store's GC heap).
    pub fn convert_extern(mut store: impl AsContextMut, e: Rooted<ExternRef>) -> crate::Result<Rooted<AnyRef>> {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        let word = opaque.externref_word(&e)?;
        let any = opaque.objects.context().any_convert_extern(word)?;
        Ok(opaque.any_handle(any))
    }
}

impl ExternRef {
    /// `extern.convert_any`: the internal reference as an external one.
    pub fn convert_any(mut store: impl AsContextMut, a: Rooted<AnyRef>) -> crate::Result<Rooted<ExternRef>> {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        opaque.gc_word(&a)?;
        let word = opaque.objects.context().extern_convert_any(a.index as u32);
        opaque.objects.context().push_host_root(word as u64);
        Ok(Rooted {
            store: opaque.id(),
            index: word.wrapping_sub(1),
            _marker: PhantomData,
        })
    }
}

impl Rooted<AnyRef> {
    /// Whether this is an `i31ref`.
    pub fn is_i31(&self, store: impl AsContext) -> crate::Result<bool> {
        Ok(matches!(store.as_context().0.opaque().gc_word(self)?, GcWord::I31(_)))
    }
    /// The `i31`, if this is an `i31ref`.
    pub fn as_i31(&self, store: impl AsContext) -> crate::Result<Option<I31>> {
        Ok(match store.as_context().0.opaque().gc_word(self)? {
            GcWord::I31(v) => Some(v),
            GcWord::Object(_) => None,
        })
    }
    /// The `i31`; an error if this is not an `i31ref`.
    pub fn unwrap_i31(&self, store: impl AsContext) -> crate::Result<I31> {
        self.as_i31(store)?
            .ok_or_else(|| crate::format_err!("the anyref is not an i31ref"))
    }
    /// Whether this is a struct.
    pub fn is_struct(&self, store: impl AsContext) -> crate::Result<bool> {
        self.is_kind(store, CompositeKind::Struct)
    }
    /// Whether this is an array.
    pub fn is_array(&self, store: impl AsContext) -> crate::Result<bool> {
        self.is_kind(store, CompositeKind::Array)
    }
    /// Whether this is an `eqref`: anything but a host reference made
    /// internal.
    pub fn is_eqref(&self, store: impl AsContext) -> crate::Result<bool> {
        Ok(match store.as_context().0.opaque().gc_word(self)? {
            GcWord::I31(_) => true,
            GcWord::Object(ty) => ty != GC_EXTERN_BOX_TYPE,
        })
    }
    fn is_kind(&self, store: impl AsContext, kind: CompositeKind) -> crate::Result<bool> {
        let store = store.as_context();
        let opaque = store.0.opaque();
        Ok(match opaque.gc_word(self)? {
            GcWord::Object(ty) => opaque.gc_kind(ty) == Some(kind),
            GcWord::I31(_) => false,
        })
    }
}

impl StoreOpaque {
    /// `Store::gc`: collects, then makes room for the allocation `why`
    /// failed for.
    pub(crate) fn gc(&mut self, why: Option<&crate::GcHeapOutOfMemory<()>>) -> crate::Result<()> {
        let ctx = self.objects.context();
        ctx.collect_garbage();
        if let Some(why) = why {
            ctx.with_gc_heap(|heap| {
                let want = heap.used().saturating_add(why.bytes_needed());
                heap.grow_capacity(want);
            });
        }
        Ok(())
    }
}

impl<T: 'static> crate::Store<T> {
    #[doc(hidden)]
    /// The GC heap's bytes in live (or not yet collected) objects, its
    /// capacity and its number of collections; `None` before its first
    /// allocation. (Not in Wasmtime's API: for tests and measurements.)
    pub fn gc_heap_stats(&self) -> Option<(u64, u64, u64)> {
        self.as_context().0.opaque().objects.context().gc_heap_stats()
    }

    #[doc(hidden)]
    /// The number of live extern references of the store.
    pub fn live_externrefs(&self) -> usize {
        self.as_context().0.opaque().objects.context().live_externrefs()
    }

    #[doc(hidden)]
    /// The number of live exceptions of the store (thrown or made by the
    /// host, and not freed yet). (Not in Wasmtime's API: for tests.)
    pub fn live_exceptions(&self) -> usize {
        self.as_context().0.opaque().objects.num_exceptions()
    }
}

/// A scope for the host's GC roots: every [`Rooted`] handle made through it
/// (or while it lives) stops rooting its object when the scope is dropped,
/// as in Wasmtime.
pub struct RootScope<C: AsContextMut> {
    store: C,
    depth: usize,
}

impl<C: AsContextMut> RootScope<C> {
    /// A new scope over `store`.
    pub fn new(mut store: C) -> RootScope<C> {
        let depth = store.as_context_mut().0.opaque().objects.context().host_roots_depth();
        RootScope { store, depth }
    }
    /// Makes room for `additional` roots (a hint).
    pub fn reserve(&mut self, additional: usize) {
        let _ = additional;
    }
}

impl<C: AsContextMut> AsContext for RootScope<C> {
    type Data = C::Data;
    fn as_context(&self) -> crate::StoreContext<'_, Self::Data> {
        self.store.as_context()
    }
}

impl<C: AsContextMut> AsContextMut for RootScope<C> {
    fn as_context_mut(&mut self) -> crate::StoreContextMut<'_, Self::Data> {
        self.store.as_context_mut()
    }
}

impl<C: AsContextMut> Drop for RootScope<C> {
    fn drop(&mut self) {
        let depth = self.depth;
        self.store
            .as_context_mut()
            .0
            .opaque()
            .objects
            .context()
            .truncate_host_roots(depth);
    }
}

/// A handle that roots its object until it is dropped, whatever the root
/// scopes (Wasmtime's `OwnedRooted`). Clones share the root.
pub struct OwnedRooted<T> {
    store: crate::store::StoreId,
    index: usize,
    _liveness: std::sync::Arc<()>,
    _marker: PhantomData<fn() -> T>,
}

impl<T> Clone for OwnedRooted<T> {
    fn clone(&self) -> Self {
        OwnedRooted {
            store: self.store,
            index: self.index,
            _liveness: self._liveness.clone(),
            _marker: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for OwnedRooted<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnedRooted").field("index", &self.index).finish()
    }
}

/// The reference word a handle of `T` stands for (see `Ref::from_word`):
/// extern references and exceptions keep their word minus one, GC
/// references their heap word.
fn root_word<T: 'static>(index: usize) -> u64 {
    let t = std::any::TypeId::of::<T>();
    if t == std::any::TypeId::of::<ExternRef>() || t == std::any::TypeId::of::<crate::ExnRef>() {
        index as u64 + 1
    } else {
        index as u64
    }
}

impl<T: 'static> Rooted<T> {
    /// An owned handle to the same object, rooting it until dropped.
    pub fn to_owned_rooted(&self, mut store: impl AsContextMut) -> crate::Result<OwnedRooted<T>> {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        opaque.check(self.store, "rooted reference")?;
        let token = opaque.objects.context().push_owned_root(root_word::<T>(self.index));
        Ok(OwnedRooted {
            store: self.store,
            index: self.index,
            _liveness: token,
            _marker: PhantomData,
        })
    }
}

impl<T: 'static> OwnedRooted<T> {
    /// A handle in the current root scope to the same object.
    pub fn to_rooted(&self, mut store: impl AsContextMut) -> crate::Result<Rooted<T>> {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        opaque.check(self.store, "owned rooted reference")?;
        opaque.objects.context().push_host_root(root_word::<T>(self.index));
        Ok(Rooted {
            store: self.store,
            index: self.index,
            _marker: PhantomData,
        })
    }
}
