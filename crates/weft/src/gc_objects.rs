//! Structs and arrays from the host, as in Wasmtime 48: their types
//! ([`StructType`], [`ArrayType`], [`FieldType`](crate::FieldType), [`StorageType`],
//! [`Mutability`]), allocators ([`StructRefPre`], [`ArrayRefPre`]), the
//! references ([`StructRef`], [`ArrayRef`]) with field and element access,
//! and [`WasmTy`] for the `any` hierarchy's references, so typed functions
//! take and return them.
//!
//! A `Rooted<StructRef>` or `Rooted<ArrayRef>` holds the object's heap word
//! like a `Rooted<AnyRef>` (see `gc_refs.rs`); every access checks that the
//! word is a live object of the store's heap and of the right kind.

use crate::func::WasmTy;
use crate::store::{AsContext, AsContextMut, StoreOpaque};
use crate::types::{ArrayType, GcType, HeapType, Mutability, RefType, StorageType, StructType, ValType};
use crate::values::{Rooted, Val};
use crate::AnyRef;
use std::marker::PhantomData;
use weft_environ::{array_layout, struct_layout, CompositeKind};
use weft_runtime::ValRaw;
use weft_types::VMSharedTypeIndex;

/// Makes `store` able to allocate and trace objects of type `ty`.
fn register_in(ty: &GcType, store: &StoreOpaque) {
    let display = ty.engine.inner.types.supertypes(ty.id).unwrap_or_default();
    let info = weft_runtime::gc::GcTypeInfo::new(&ty.sub, display.iter().map(|t| t.0).collect());
    store.objects.context().register_gc_type(ty.id.0, info);
}

/// An allocator of structs of one type in one store.
#[derive(Debug)]
pub struct StructRefPre {
    store: crate::store::StoreId,
    ty: StructType,
}

impl StructRefPre {
    /// An allocator of structs of type `ty` in `store`.
    pub fn new(mut store: impl AsContextMut, ty: StructType) -> StructRefPre {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        register_in(&ty.0, opaque);
        StructRefPre { store: opaque.id(), ty }
    }
    /// The type of the structs.
    pub fn ty(&self) -> &StructType {
        &self.ty
    }
}

/// An allocator of arrays of one type in one store.
#[derive(Debug)]
pub struct ArrayRefPre {
    store: crate::store::StoreId,
    ty: ArrayType,
}

impl ArrayRefPre {
    /// An allocator of arrays of type `ty` in `store`.
    pub fn new(mut store: impl AsContextMut, ty: ArrayType) -> ArrayRefPre {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        register_in(&ty.0, opaque);
        ArrayRefPre { store: opaque.id(), ty }
    }
    /// The type of the arrays.
    pub fn ty(&self) -> &ArrayType {
        &self.ty
    }
}

/// A struct of a store's GC heap.
#[derive(Debug)]
pub struct StructRef {
    _private: (),
}

/// An array of a store's GC heap.
#[derive(Debug)]
pub struct ArrayRef {
    _private: (),
}

/// A reference of the `eq` hierarchy: a struct, an array or an `i31ref`.
#[derive(Debug)]
pub struct EqRef {
    _private: (),
}

/// The bytes of `value` stored as `ty`, checking its type.
fn store_bytes(store: &StoreOpaque, ty: &StorageType, value: &Val, what: &str) -> crate::Result<Vec<u8>> {
    let unpacked = ty.unpack();
    let matches = match &unpacked {
        ValType::Ref(r) => value.ref_matches(store, r)?,
        other => value.ty_opaque().matches(other),
    };
    if !matches {
        crate::bail!(
            "{what}: a value of type {:?} where {unpacked:?} is expected",
            value.ty_opaque()
        );
    }
    let raw = value.to_raw(store, &unpacked)?.get_v128().to_le_bytes();
    let n = match ty {
        StorageType::I8 => 1,
        StorageType::I16 => 2,
        StorageType::ValType(ValType::I32 | ValType::F32) => 4,
        StorageType::ValType(ValType::I64 | ValType::F64) => 8,
        StorageType::ValType(ValType::V128) => 16,
        StorageType::ValType(ValType::Ref(r)) if r.heap_type().is_any_hierarchy() => 4,
        StorageType::ValType(ValType::Ref(_)) => 8,
    };
    Ok(raw[..n].to_vec())
}

/// The value stored as `ty` in `bytes`.
fn load_value(store: &StoreOpaque, ty: &StorageType, bytes: &[u8]) -> Val {
    let mut raw = [0u8; 16];
    raw[..bytes.len()].copy_from_slice(bytes);
    Val::from_raw(store, ValRaw::v128(u128::from_le_bytes(raw)), &ty.unpack())
}

fn object_word<T>(store: &StoreOpaque, r: &Rooted<T>, kind: CompositeKind, what: &str) -> crate::Result<(u32, u32)> {
    store.check(r.store, what)?;
    let word = u32::try_from(r.index).map_err(|_| crate::format_err!("{what} to no object of the store"))?;
    let Some(Some((ty, _))) = store.objects.context().with_gc_heap(|h| h.header(word)) else {
        crate::bail!("{what} to no live object of the store's GC heap (its root scope ended?)");
    };
    if store.gc_kind(ty) != Some(kind) {
        crate::bail!("{what} to an object that is not one");
    }
    Ok((word, ty))
}

fn handle<T>(store: &StoreOpaque, word: u32) -> Rooted<T> {
    store.objects.context().push_host_root(u64::from(word));
    Rooted {
        store: store.id(),
        index: word as usize,
        _marker: PhantomData,
    }
}

fn alloc(store: &StoreOpaque, id: VMSharedTypeIndex, size: u64) -> crate::Result<u32> {
    store
        .objects
        .context()
        .gc_alloc(id.0, size)
        .map_err(|e| crate::Error::new(crate::GcHeapOutOfMemory::new((), e.requested)))
}

impl StructRef {
    /// A new struct of `pre`'s type with `fields`.
    pub fn new(mut store: impl AsContextMut, pre: &StructRefPre, fields: &[Val]) -> crate::Result<Rooted<StructRef>> {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        opaque.check(pre.store, "struct allocator")?;
        let st = pre.ty.wasm().ok_or_else(|| crate::format_err!("not a struct type"))?;
        if fields.len() != st.fields.len() {
            crate::bail!("a struct of {} fields given {} values", st.fields.len(), fields.len());
        }
        if st.descriptor.is_some() {
            // Its objects need a descriptor, which only wasm can give
            // (`struct.new_desc`).
            crate::bail!("the host cannot allocate a struct whose type has a descriptor type");
        }
        let layout = struct_layout(st);
        let mut bytes = Vec::with_capacity(fields.len());
        for (i, (f, v)) in pre.ty.fields().zip(fields).enumerate() {
            bytes.push(store_bytes(opaque, &f.element_type, v, &format!("field {i}"))?);
        }
        let word = alloc(opaque, pre.ty.0.id, u64::from(layout.size))?;
        opaque.objects.context().with_gc_heap(|heap| {
            for (offset, b) in layout.field_offsets.iter().zip(&bytes) {
                if let Some(dst) = heap.object_bytes_mut(word, *offset, b.len() as u32) {
                    dst.copy_from_slice(b);
                }
            }
        });
        Ok(handle(opaque, word))
    }
}

fn struct_of(store: &StoreOpaque, r: &Rooted<StructRef>) -> crate::Result<(u32, StructType)> {
    let (word, ty) = object_word(store, r, CompositeKind::Struct, "structref")?;
    Ok((word, StructType(GcType::lookup(&store.engine, ty)?)))
}

fn array_of(store: &StoreOpaque, r: &Rooted<ArrayRef>) -> crate::Result<(u32, ArrayType)> {
    let (word, ty) = object_word(store, r, CompositeKind::Array, "arrayref")?;
    Ok((word, ArrayType(GcType::lookup(&store.engine, ty)?)))
}

impl Rooted<StructRef> {
    /// The struct's type.
    pub fn ty(&self, store: impl AsContext) -> crate::Result<StructType> {
        Ok(struct_of(store.as_context().0.opaque(), self)?.1)
    }
    /// The value of field `index`.
    pub fn field(&self, mut store: impl AsContextMut, index: usize) -> crate::Result<Val> {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        let (word, ty) = struct_of(opaque, self)?;
        let field = ty
            .field(index)
            .ok_or_else(|| crate::format_err!("field {index} out of bounds"))?;
        let layout = struct_layout(ty.wasm().ok_or_else(|| crate::format_err!("not a struct type"))?);
        let width = field_width(&field.element_type);
        let bytes = opaque
            .objects
            .context()
            .with_gc_heap(|h| {
                h.object_bytes(word, layout.field_offsets[index], width)
                    .map(<[u8]>::to_vec)
            })
            .flatten()
            .ok_or_else(|| crate::format_err!("field {index} lies outside the object"))?;
        Ok(load_value(opaque, &field.element_type, &bytes))
    }
    /// The values of every field.
    pub fn fields(&self, mut store: impl AsContextMut) -> crate::Result<Vec<Val>> {
        let n = self.ty(&store)?.fields().len();
        (0..n).map(|i| self.field(&mut store, i)).collect()
    }
    /// Sets field `index` (which must be mutable) to `value`.
    pub fn set_field(&self, mut store: impl AsContextMut, index: usize, value: Val) -> crate::Result<()> {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        let (word, ty) = struct_of(opaque, self)?;
        let field = ty
            .field(index)
            .ok_or_else(|| crate::format_err!("field {index} out of bounds"))?;
        if field.mutability != Mutability::Var {
            crate::bail!("field {index} is immutable");
        }
        let bytes = store_bytes(opaque, &field.element_type, &value, &format!("field {index}"))?;
        let layout = struct_layout(ty.wasm().ok_or_else(|| crate::format_err!("not a struct type"))?);
        opaque.objects.context().with_gc_heap(|h| {
            if let Some(dst) = h.object_bytes_mut(word, layout.field_offsets[index], bytes.len() as u32) {
                dst.copy_from_slice(&bytes);
            }
        });
        Ok(())
    }
    /// The struct as an `anyref`.
    pub fn to_anyref(self) -> Rooted<AnyRef> {
        Rooted {
            store: self.store,
            index: self.index,
            _marker: PhantomData,
        }
    }
    /// The struct as an `eqref`.
    pub fn to_eqref(self) -> Rooted<EqRef> {
        Rooted {
            store: self.store,
            index: self.index,
            _marker: PhantomData,
        }
    }
}

fn field_width(ty: &StorageType) -> u32 {
    match ty {
        StorageType::I8 => 1,
        StorageType::I16 => 2,
        StorageType::ValType(ValType::I32 | ValType::F32) => 4,
        StorageType::ValType(ValType::I64 | ValType::F64) => 8,
        StorageType::ValType(ValType::V128) => 16,
        StorageType::ValType(ValType::Ref(r)) if r.heap_type().is_any_hierarchy() => 4,
        StorageType::ValType(ValType::Ref(_)) => 8,
    }
}

impl ArrayRef {
    /// A new array of `pre`'s type of `len` elements set to `elem`.
    pub fn new(
        mut store: impl AsContextMut,
        pre: &ArrayRefPre,
        elem: &Val,
        len: u32,
    ) -> crate::Result<Rooted<ArrayRef>> {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        opaque.check(pre.store, "array allocator")?;
        let bytes = store_bytes(opaque, &pre.ty.element_type(), elem, "array element")?;
        new_array(opaque, pre, len, |_| bytes.clone())
    }
    /// A new array of `pre`'s type holding `elems`.
    pub fn new_fixed(
        mut store: impl AsContextMut,
        pre: &ArrayRefPre,
        elems: &[Val],
    ) -> crate::Result<Rooted<ArrayRef>> {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        opaque.check(pre.store, "array allocator")?;
        let ty = pre.ty.element_type();
        let bytes = elems
            .iter()
            .enumerate()
            .map(|(i, v)| store_bytes(opaque, &ty, v, &format!("array element {i}")))
            .collect::<crate::Result<Vec<_>>>()?;
        let len = u32::try_from(bytes.len()).map_err(|_| crate::format_err!("too many array elements"))?;
        new_array(opaque, pre, len, |i| bytes[i].clone())
    }
}

fn new_array(
    opaque: &StoreOpaque,
    pre: &ArrayRefPre,
    len: u32,
    elem: impl Fn(usize) -> Vec<u8>,
) -> crate::Result<Rooted<ArrayRef>> {
    let at = pre.ty.wasm().ok_or_else(|| crate::format_err!("not an array type"))?;
    let layout = array_layout(at);
    let size = layout
        .size_for_len(len)
        .ok_or_else(|| crate::format_err!("an array of {len} elements is too large"))?;
    let word = alloc(opaque, pre.ty.0.id, u64::from(size))?;
    opaque.objects.context().with_gc_heap(|heap| {
        heap.set_array_len(word, len);
        for i in 0..len {
            let b = elem(i as usize);
            let offset = layout.elems_offset + i * layout.elem_size;
            if let Some(dst) = heap.object_bytes_mut(word, offset, b.len() as u32) {
                dst.copy_from_slice(&b);
            }
        }
    });
    Ok(handle(opaque, word))
}

impl Rooted<ArrayRef> {
    /// The array's type.
    pub fn ty(&self, store: impl AsContext) -> crate::Result<ArrayType> {
        Ok(array_of(store.as_context().0.opaque(), self)?.1)
    }
    /// The number of elements.
    pub fn len(&self, store: impl AsContext) -> crate::Result<u32> {
        let store = store.as_context();
        let opaque = store.0.opaque();
        let (word, _) = array_of(opaque, self)?;
        opaque
            .objects
            .context()
            .with_gc_heap(|h| h.array_len(word))
            .flatten()
            .ok_or_else(|| crate::format_err!("arrayref to no array"))
    }
    /// Whether it has no element.
    pub fn is_empty(&self, store: impl AsContext) -> crate::Result<bool> {
        Ok(self.len(store)? == 0)
    }
    fn elem_at(&self, opaque: &StoreOpaque, index: u32) -> crate::Result<(u32, ArrayType, u32)> {
        let (word, ty) = array_of(opaque, self)?;
        let len = opaque
            .objects
            .context()
            .with_gc_heap(|h| h.array_len(word))
            .flatten()
            .unwrap_or(0);
        if index >= len {
            crate::bail!("array index {index} out of bounds (length {len})");
        }
        let layout = array_layout(ty.wasm().ok_or_else(|| crate::format_err!("not an array type"))?);
        Ok((word, ty, layout.elems_offset + index * layout.elem_size))
    }
    /// Element `index`.
    pub fn get(&self, mut store: impl AsContextMut, index: u32) -> crate::Result<Val> {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        let (word, ty, offset) = self.elem_at(opaque, index)?;
        let elem = ty.element_type();
        let bytes = opaque
            .objects
            .context()
            .with_gc_heap(|h| h.object_bytes(word, offset, field_width(&elem)).map(<[u8]>::to_vec))
            .flatten()
            .ok_or_else(|| crate::format_err!("element {index} lies outside the object"))?;
        Ok(load_value(opaque, &elem, &bytes))
    }
    /// Sets element `index` (of a mutable array type) to `value`.
    pub fn set(&self, mut store: impl AsContextMut, index: u32, value: Val) -> crate::Result<()> {
        let store = store.as_context_mut();
        let opaque = store.0.opaque();
        let (word, ty, offset) = self.elem_at(opaque, index)?;
        if ty.field_type().mutability != Mutability::Var {
            crate::bail!("the array's elements are immutable");
        }
        let bytes = store_bytes(opaque, &ty.element_type(), &value, &format!("array element {index}"))?;
        opaque.objects.context().with_gc_heap(|h| {
            if let Some(dst) = h.object_bytes_mut(word, offset, bytes.len() as u32) {
                dst.copy_from_slice(&bytes);
            }
        });
        Ok(())
    }
    /// The array as an `anyref`.
    pub fn to_anyref(self) -> Rooted<AnyRef> {
        Rooted {
            store: self.store,
            index: self.index,
            _marker: PhantomData,
        }
    }
    /// The array as an `eqref`.
    pub fn to_eqref(self) -> Rooted<EqRef> {
        Rooted {
            store: self.store,
            index: self.index,
            _marker: PhantomData,
        }
    }
}

impl Rooted<EqRef> {
    /// The reference as an `anyref`.
    pub fn to_anyref(self) -> Rooted<AnyRef> {
        Rooted {
            store: self.store,
            index: self.index,
            _marker: PhantomData,
        }
    }
}

impl Rooted<AnyRef> {
    /// The struct, if this is one.
    pub fn as_struct(&self, store: impl AsContext) -> crate::Result<Option<Rooted<StructRef>>> {
        Ok(self.is_struct(store)?.then_some(cast(*self)))
    }
    /// The struct; an error if this is not one.
    pub fn unwrap_struct(&self, store: impl AsContext) -> crate::Result<Rooted<StructRef>> {
        self.as_struct(store)?
            .ok_or_else(|| crate::format_err!("the anyref is not a struct"))
    }
    /// The array, if this is one.
    pub fn as_array(&self, store: impl AsContext) -> crate::Result<Option<Rooted<ArrayRef>>> {
        Ok(self.is_array(store)?.then_some(cast(*self)))
    }
    /// The array; an error if this is not one.
    pub fn unwrap_array(&self, store: impl AsContext) -> crate::Result<Rooted<ArrayRef>> {
        self.as_array(store)?
            .ok_or_else(|| crate::format_err!("the anyref is not an array"))
    }
    /// The `eqref`, if this is one.
    pub fn as_eqref(&self, store: impl AsContext) -> crate::Result<Option<Rooted<EqRef>>> {
        Ok(self.is_eqref(store)?.then_some(cast(*self)))
    }
}

fn ref_valtype(nullable: bool, heap: HeapType) -> ValType {
    ValType::Ref(RefType::new(nullable, heap))
}

macro_rules! gc_wasm_ty {
    ($($t:ty => $heap:expr, $nullable:expr, |$v:ident| $to:expr, |$s:ident, $w:ident| $from:expr;)*) => {$(
        impl WasmTy for $t {
            fn valtype() -> ValType {
                ref_valtype($nullable, $heap)
            }
            fn into_raw(self, store: &StoreOpaque) -> crate::Result<ValRaw> {
                let $v = self;
                let any: Option<Rooted<AnyRef>> = $to;
                Val::AnyRef(any).to_raw(store, &Self::valtype())
            }
            fn from_raw(store: &StoreOpaque, raw: ValRaw) -> Self {
                let $s = store;
                let $w = match Val::from_raw(store, raw, &Self::valtype()) {
                    Val::AnyRef(a) => a,
                    _ => None,
                };
                $from
            }
        }
    )*};
}

fn cast<T>(a: Rooted<AnyRef>) -> Rooted<T> {
    Rooted {
        store: a.store,
        index: a.index,
        _marker: PhantomData,
    }
}

gc_wasm_ty! {
    Option<Rooted<AnyRef>> => HeapType::Any, true, |v| v, |_s, w| w;
    Rooted<AnyRef> => HeapType::Any, false, |v| Some(v), |_s, w| w.unwrap_or_else(|| cast(i31_zero(_s)));
    Option<Rooted<EqRef>> => HeapType::Eq, true, |v| v.map(|e| e.to_anyref()), |_s, w| w.map(cast);
    Option<Rooted<StructRef>> => HeapType::Struct, true, |v| v.map(|e| e.to_anyref()), |_s, w| w.map(cast);
    Rooted<StructRef> => HeapType::Struct, false, |v| Some(v.to_anyref()), |_s, w| w.map(cast).unwrap_or_else(|| cast(i31_zero(_s)));
    Option<Rooted<ArrayRef>> => HeapType::Array, true, |v| v.map(|e| e.to_anyref()), |_s, w| w.map(cast);
    Rooted<ArrayRef> => HeapType::Array, false, |v| Some(v.to_anyref()), |_s, w| w.map(cast).unwrap_or_else(|| cast(i31_zero(_s)));
}

/// A handle for a non-nullable result that wasm never gives null (its
/// validation forbids it); only reached on a corrupt value, where an
/// `i31ref` is a harmless stand-in.
fn i31_zero(store: &StoreOpaque) -> Rooted<AnyRef> {
    Rooted {
        store: store.id(),
        index: 1,
        _marker: PhantomData,
    }
}
