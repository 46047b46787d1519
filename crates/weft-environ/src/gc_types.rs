//! The types of the GC proposal (WebAssembly 3.0): struct and array types,
//! their fields, the composite type a type index names (function, struct or
//! array), subtype declarations (`sub`, `final`, a supertype), and the layout
//! of GC objects in a store's GC heap.
//!
//! Function types keep their own representation ([`WasmFuncType`]) for the
//! code that only knows functions; a [`WasmSubType`] wraps every type of a
//! module, function types included, with what the GC proposal adds.

use crate::types::{convert_val_type, EngineOrModuleTypeIndex, WasmFuncType, WasmValType};
use std::fmt;

/// The type of a field or array element: a value type, or a packed integer
/// that is stored in fewer bits and read with `_s`/`_u` extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum WasmStorageType {
    /// A packed 8-bit integer (`i8`), read as an `i32`.
    I8,
    /// A packed 16-bit integer (`i16`), read as an `i32`.
    I16,
    /// A full value.
    Val(WasmValType),
}

impl WasmStorageType {
    /// The value type a `get` of this storage type pushes (`i32` for packed
    /// types).
    pub fn unpacked(self) -> WasmValType {
        match self {
            WasmStorageType::I8 | WasmStorageType::I16 => WasmValType::I32,
            WasmStorageType::Val(v) => v,
        }
    }

    /// Whether this is a packed integer type.
    pub fn is_packed(self) -> bool {
        matches!(self, WasmStorageType::I8 | WasmStorageType::I16)
    }

    /// The size in bytes of a value of this type in a GC object. References
    /// are 32-bit GC heap words (see [`GC_REF_SIZE`]).
    pub fn byte_size(self) -> u32 {
        match self {
            WasmStorageType::I8 => 1,
            WasmStorageType::I16 => 2,
            WasmStorageType::Val(WasmValType::I32 | WasmValType::F32) => 4,
            WasmStorageType::Val(WasmValType::I64 | WasmValType::F64) => 8,
            WasmStorageType::Val(WasmValType::V128) => 16,
            WasmStorageType::Val(WasmValType::Ref(r)) if r.heap_type.is_gc_heap_word() => GC_REF_SIZE,
            // Function, extern and exception references are pointer-sized
            // words, as everywhere else in Weft.
            WasmStorageType::Val(WasmValType::Ref(_)) => 8,
        }
    }

    /// The storage type with every type index mapped by `f`.
    pub fn map_index(self, f: &mut impl FnMut(EngineOrModuleTypeIndex) -> EngineOrModuleTypeIndex) -> WasmStorageType {
        match self {
            WasmStorageType::Val(v) => WasmStorageType::Val(v.map_index(f)),
            packed => packed,
        }
    }
}

impl fmt::Display for WasmStorageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WasmStorageType::I8 => f.write_str("i8"),
            WasmStorageType::I16 => f.write_str("i16"),
            WasmStorageType::Val(v) => v.fmt(f),
        }
    }
}

/// A field of a struct, or the element of an array: its storage type and
/// whether it may be set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WasmFieldType {
    /// What the field holds.
    pub element_type: WasmStorageType,
    /// Whether `struct.set`/`array.set` may change it.
    pub mutable: bool,
}

impl WasmFieldType {
    /// The field type with every type index mapped by `f`.
    pub fn map_index(self, f: &mut impl FnMut(EngineOrModuleTypeIndex) -> EngineOrModuleTypeIndex) -> WasmFieldType {
        WasmFieldType {
            element_type: self.element_type.map_index(f),
            mutable: self.mutable,
        }
    }

    /// Whether a field of type `self` may be where a field of type `other`
    /// is expected (immutable fields are covariant, mutable ones invariant),
    /// concrete types compared by `heap_matches`.
    pub fn matches(
        &self,
        other: &WasmFieldType,
        heap_matches: &mut impl FnMut(&WasmValType, &WasmValType) -> bool,
    ) -> bool {
        if self.mutable != other.mutable {
            return false;
        }
        match (self.element_type, other.element_type) {
            (WasmStorageType::Val(a), WasmStorageType::Val(b)) => {
                if self.mutable {
                    heap_matches(&a, &b) && heap_matches(&b, &a)
                } else {
                    heap_matches(&a, &b)
                }
            }
            (a, b) => a == b,
        }
    }
}

impl fmt::Display for WasmFieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.mutable {
            write!(f, "(mut {})", self.element_type)
        } else {
            self.element_type.fmt(f)
        }
    }
}

/// A struct type: its fields in order, and its `descriptor`/`describes`
/// clauses (the custom descriptors proposal).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WasmStructType {
    /// The fields, in declaration order.
    pub fields: Box<[WasmFieldType]>,
    /// The type of this type's descriptors (`(descriptor $d)`): each object
    /// of this type holds a reference to its descriptor, an object of that
    /// type, given when it is allocated (`struct.new_desc`).
    pub descriptor: Option<EngineOrModuleTypeIndex>,
    /// The type this type is the descriptor of (`(describes $t)`).
    pub describes: Option<EngineOrModuleTypeIndex>,
    /// With a descriptor type: how many of the leading fields come before
    /// the reference to the descriptor in the objects' layout. Those are
    /// the fields of the nearest supertype without a descriptor type (a
    /// type may have one when its supertype has none, never the reverse),
    /// so that every field stays at the offset its supertypes give it, and
    /// the descriptor at the offset of every supertype with a descriptor
    /// type. Derived from the supertypes at translation
    /// (`weft_environ::translate`); 0 without a descriptor type.
    pub fields_before_descriptor: u32,
}

/// An array type: the type of its elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WasmArrayType(pub WasmFieldType);

/// What a type index names: a function, struct or array type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum WasmCompositeType {
    /// A function type.
    Func(WasmFuncType),
    /// A struct type.
    Struct(WasmStructType),
    /// An array type.
    Array(WasmArrayType),
}

/// The kind of a composite type, without its contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum CompositeKind {
    /// A function type.
    Func,
    /// A struct type.
    Struct,
    /// An array type.
    Array,
}

impl WasmCompositeType {
    /// Its kind.
    pub fn kind(&self) -> CompositeKind {
        match self {
            WasmCompositeType::Func(_) => CompositeKind::Func,
            WasmCompositeType::Struct(_) => CompositeKind::Struct,
            WasmCompositeType::Array(_) => CompositeKind::Array,
        }
    }

    /// The composite type with every type index mapped by `f`.
    pub fn map_index(
        &self,
        mut f: impl FnMut(EngineOrModuleTypeIndex) -> EngineOrModuleTypeIndex,
    ) -> WasmCompositeType {
        match self {
            WasmCompositeType::Func(t) => WasmCompositeType::Func(t.map_index(f)),
            WasmCompositeType::Struct(s) => WasmCompositeType::Struct(WasmStructType {
                fields: s.fields.iter().map(|field| field.map_index(&mut f)).collect(),
                descriptor: s.descriptor.map(&mut f),
                describes: s.describes.map(&mut f),
                fields_before_descriptor: s.fields_before_descriptor,
            }),
            WasmCompositeType::Array(a) => WasmCompositeType::Array(WasmArrayType(a.0.map_index(&mut f))),
        }
    }

    /// Every type index the composite type names.
    pub fn indices(&self) -> Vec<EngineOrModuleTypeIndex> {
        let mut out = Vec::new();
        let _ = self.map_index(|i| {
            out.push(i);
            i
        });
        out
    }
}

impl fmt::Display for WasmCompositeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WasmCompositeType::Func(t) => t.fmt(f),
            WasmCompositeType::Struct(s) => {
                if let Some(d) = s.describes {
                    write!(f, "(describes {}) ", crate::WasmHeapType::ConcreteStruct(d))?;
                }
                if let Some(d) = s.descriptor {
                    write!(f, "(descriptor {}) ", crate::WasmHeapType::ConcreteStruct(d))?;
                }
                f.write_str("(struct")?;
                for field in s.fields.iter() {
                    write!(f, " (field {field})")?;
                }
                f.write_str(")")
            }
            WasmCompositeType::Array(a) => write!(f, "(array {})", a.0),
        }
    }
}

/// A type of the type section as the GC proposal declares it: a composite
/// type, whether it is `final` (may have no subtypes), and its declared
/// supertype, if any.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WasmSubType {
    /// Whether no type may declare this one as its supertype.
    pub is_final: bool,
    /// The declared supertype (always a type defined before this one).
    pub supertype: Option<EngineOrModuleTypeIndex>,
    /// The type itself.
    pub composite: WasmCompositeType,
}

impl WasmSubType {
    /// A final function type without a supertype: the only kind of type
    /// there is without the GC proposal.
    pub fn func(ty: WasmFuncType) -> WasmSubType {
        WasmSubType {
            is_final: true,
            supertype: None,
            composite: WasmCompositeType::Func(ty),
        }
    }

    /// Whether this type can be expressed without the GC proposal: a final
    /// function type without a supertype.
    pub fn is_plain_func(&self) -> bool {
        self.is_final && self.supertype.is_none() && matches!(self.composite, WasmCompositeType::Func(_))
    }

    /// The function type, if this is one.
    pub fn as_func(&self) -> Option<&WasmFuncType> {
        match &self.composite {
            WasmCompositeType::Func(f) => Some(f),
            _ => None,
        }
    }

    /// The struct type, if this is one.
    pub fn as_struct(&self) -> Option<&WasmStructType> {
        match &self.composite {
            WasmCompositeType::Struct(s) => Some(s),
            _ => None,
        }
    }

    /// The array type, if this is one.
    pub fn as_array(&self) -> Option<&WasmArrayType> {
        match &self.composite {
            WasmCompositeType::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The sub type with every type index (of the composite type and of the
    /// supertype) mapped by `f`.
    pub fn map_index(&self, mut f: impl FnMut(EngineOrModuleTypeIndex) -> EngineOrModuleTypeIndex) -> WasmSubType {
        WasmSubType {
            is_final: self.is_final,
            supertype: self.supertype.map(&mut f),
            composite: self.composite.map_index(f),
        }
    }
}

impl fmt::Display for WasmSubType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_plain_func() {
            return self.composite.fmt(f);
        }
        f.write_str("(sub")?;
        if self.is_final {
            f.write_str(" final")?;
        }
        if let Some(s) = self.supertype {
            write!(f, " {}", crate::WasmHeapType::ConcreteFunc(s))?;
        }
        write!(f, " {})", self.composite)
    }
}

/// The size in bytes of a reference into a GC heap stored in a GC object
/// (a 32-bit heap word, see `weft_runtime::gc`).
pub const GC_REF_SIZE: u32 = 4;

/// The size in bytes of every GC object's header: the object's engine type
/// id (`u32`) then its size in bytes (`u32`).
pub const GC_HEADER_SIZE: u32 = 8;

/// The offset of the type id in a GC object's header.
pub const GC_HEADER_TYPE_OFFSET: u32 = 0;

/// The offset of the object's size in bytes in its header.
pub const GC_HEADER_SIZE_OFFSET: u32 = 4;

/// The offset of an array's length (`u32`), just after the header.
pub const GC_ARRAY_LENGTH_OFFSET: u32 = GC_HEADER_SIZE;

/// The alignment of every GC object (so that the low bit of an object's
/// heap word is free to tag `i31ref`s).
pub const GC_OBJECT_ALIGN: u32 = 8;

/// Where the fields of a struct live in its objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GcStructLayout {
    /// The size of an object, header included, rounded up to
    /// [`GC_OBJECT_ALIGN`].
    pub size: u32,
    /// The offset of each field from the start of the object.
    pub field_offsets: Box<[u32]>,
    /// The offset of the reference to the object's descriptor (a GC heap
    /// word), if its type has a descriptor type (custom descriptors).
    pub descriptor_offset: Option<u32>,
}

/// Where the elements of an array live in its objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcArrayLayout {
    /// The offset of element 0 from the start of the object.
    pub elems_offset: u32,
    /// The size of one element.
    pub elem_size: u32,
}

impl GcArrayLayout {
    /// The offset of element 0 of arrays whose elements are `elem_size`
    /// bytes.
    pub fn elems_offset_for(elem_size: u32) -> u32 {
        (GC_ARRAY_LENGTH_OFFSET + 4).next_multiple_of(elem_size.clamp(1, 8))
    }

    /// The size of an array object of `len` elements, header included and
    /// rounded up to [`GC_OBJECT_ALIGN`]; `None` when it exceeds `u32`.
    pub fn size_for_len(&self, len: u32) -> Option<u32> {
        let bytes = u64::from(self.elem_size) * u64::from(len) + u64::from(self.elems_offset);
        let aligned = bytes.checked_next_multiple_of(u64::from(GC_OBJECT_ALIGN))?;
        u32::try_from(aligned).ok()
    }
}

/// The layout of a struct's objects: the header, then each field in
/// declaration order at the next offset aligned to its size (at most 8);
/// with a descriptor type, the reference to the descriptor (a GC heap word)
/// comes before field [`WasmStructType::fields_before_descriptor`] (after
/// the fields inherited from supertypes without a descriptor type), so
/// that supertypes and subtypes agree on every offset.
pub fn struct_layout(ty: &WasmStructType) -> GcStructLayout {
    let mut offset = GC_HEADER_SIZE;
    let mut descriptor_offset = None;
    let mut field_offsets = Vec::with_capacity(ty.fields.len());
    for (i, field) in ty.fields.iter().enumerate() {
        if ty.descriptor.is_some() && i as u32 == ty.fields_before_descriptor {
            offset = offset.next_multiple_of(GC_REF_SIZE);
            descriptor_offset = Some(offset);
            offset += GC_REF_SIZE;
        }
        let size = field.element_type.byte_size();
        offset = offset.next_multiple_of(size.min(8));
        field_offsets.push(offset);
        offset += size;
    }
    if ty.descriptor.is_some() && descriptor_offset.is_none() {
        // After every field.
        offset = offset.next_multiple_of(GC_REF_SIZE);
        descriptor_offset = Some(offset);
        offset += GC_REF_SIZE;
    }
    GcStructLayout {
        size: offset.next_multiple_of(GC_OBJECT_ALIGN),
        field_offsets: field_offsets.into(),
        descriptor_offset,
    }
}

/// The layout of an array's objects: the header, the length (`u32`), then
/// the elements, the first aligned to the element's size (at most 8).
pub fn array_layout(ty: &WasmArrayType) -> GcArrayLayout {
    let elem_size = ty.0.element_type.byte_size();
    GcArrayLayout {
        elems_offset: GcArrayLayout::elems_offset_for(elem_size),
        elem_size,
    }
}

/// Converts a wasmparser storage type (a field's or an array element's).
pub(crate) fn convert_storage_type(ty: wasmparser::StorageType) -> Result<WasmStorageType, String> {
    Ok(match ty {
        wasmparser::StorageType::I8 => WasmStorageType::I8,
        wasmparser::StorageType::I16 => WasmStorageType::I16,
        wasmparser::StorageType::Val(v) => WasmStorageType::Val(convert_val_type(v)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{WasmHeapType, WasmRefType};

    fn field(element_type: WasmStorageType) -> WasmFieldType {
        WasmFieldType {
            element_type,
            mutable: true,
        }
    }

    #[test]
    fn struct_fields_are_aligned_after_the_header() {
        let anyref = WasmStorageType::Val(WasmValType::Ref(WasmRefType::new(true, WasmHeapType::Any)));
        let ty = WasmStructType {
            fields: vec![
                field(WasmStorageType::I8),
                field(WasmStorageType::Val(WasmValType::I64)),
                field(WasmStorageType::I16),
                field(anyref),
                field(WasmStorageType::I8),
            ]
            .into(),
            ..WasmStructType::default()
        };
        let layout = struct_layout(&ty);
        assert_eq!(&*layout.field_offsets, &[8, 16, 24, 28, 32]);
        assert_eq!(layout.size, 40);
        assert_eq!(layout.descriptor_offset, None);
        assert_eq!(struct_layout(&WasmStructType::default()).size, GC_HEADER_SIZE);
        // With a descriptor type, the descriptor comes first.
        let described = WasmStructType {
            descriptor: Some(crate::EngineOrModuleTypeIndex::Module(1)),
            ..ty
        };
        let layout = struct_layout(&described);
        assert_eq!(layout.descriptor_offset, Some(GC_HEADER_SIZE));
        assert_eq!(&*layout.field_offsets, &[12, 16, 24, 28, 32]);
        assert_eq!(layout.size, 40);
        // A descriptor type added by a subtype: after the inherited fields,
        // which keep their offsets.
        let below = WasmStructType {
            fields_before_descriptor: 2,
            ..described.clone()
        };
        let layout = struct_layout(&below);
        assert_eq!(layout.descriptor_offset, Some(24));
        assert_eq!(&*layout.field_offsets, &[8, 16, 28, 32, 36]);
        assert_eq!(layout.size, 40);
        let after_all = WasmStructType {
            fields_before_descriptor: 5,
            ..described
        };
        let layout = struct_layout(&after_all);
        assert_eq!(layout.descriptor_offset, Some(36));
        assert_eq!(&*layout.field_offsets, &[8, 16, 24, 28, 32]);
    }

    #[test]
    fn array_elements_follow_the_length() {
        let bytes = array_layout(&WasmArrayType(field(WasmStorageType::I8)));
        assert_eq!(bytes.elems_offset, 12);
        assert_eq!(bytes.size_for_len(5), Some(24));
        let longs = array_layout(&WasmArrayType(field(WasmStorageType::Val(WasmValType::F64))));
        assert_eq!(longs.elems_offset, 16);
        assert_eq!(longs.size_for_len(2), Some(32));
        assert_eq!(longs.size_for_len(u32::MAX), None);
    }
}
