//! Value, reference and function types, independent of any parser.

use std::fmt;

/// The index of a function type: in a module's type index space while the
/// module is translated, or the engine-wide canonical id once its types are
/// registered.
///
/// Types of one module only ever hold `Module` indices; the types that the
/// public API and the runtime compare across modules only hold `Engine` ids,
/// so that two structurally equal types of different modules are equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum EngineOrModuleTypeIndex {
    /// An index into the module's types.
    Module(u32),
    /// An engine-wide canonical type id.
    Engine(u32),
    /// A reference from a type to itself (a recursive type), in canonical
    /// form: it cannot be named by an engine id before it is registered.
    RecSelf,
    /// A reference to the type at this position of the same explicit
    /// recursion group, in canonical form (members of a group are
    /// registered together and cannot name each other by engine ids).
    RecGroup(u32),
}

/// The heap type of a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum WasmHeapType {
    /// Any function: `func`.
    Func,
    /// Any host reference: `extern`.
    Extern,
    /// The bottom of the function hierarchy: `nofunc`.
    NoFunc,
    /// The bottom of the extern hierarchy: `noextern`.
    NoExtern,
    /// Any exception: `exn`.
    Exn,
    /// The bottom of the exception hierarchy: `noexn`.
    NoExn,
    /// The functions of one function type: `(ref $t)`.
    ConcreteFunc(EngineOrModuleTypeIndex),
    /// Any internal (GC) reference: `any` (the GC proposal).
    Any,
    /// References that `ref.eq` can compare: `eq`.
    Eq,
    /// Unboxed 31-bit integers: `i31`.
    I31,
    /// Any struct: `struct`.
    Struct,
    /// Any array: `array`.
    Array,
    /// The bottom of the `any` hierarchy: `none`.
    None,
    /// The structs of one struct type: `(ref $t)` where `$t` is a struct
    /// type.
    ConcreteStruct(EngineOrModuleTypeIndex),
    /// The arrays of one array type: `(ref $t)` where `$t` is an array type.
    ConcreteArray(EngineOrModuleTypeIndex),
}

impl WasmHeapType {
    /// Whether values of this heap type are function references.
    pub fn is_func(self) -> bool {
        matches!(
            self,
            WasmHeapType::Func | WasmHeapType::NoFunc | WasmHeapType::ConcreteFunc(_)
        )
    }

    /// Whether values of this heap type live in the `any` hierarchy (the
    /// GC proposal's internal references), stored as 32-bit GC heap words.
    pub fn is_gc_heap_word(self) -> bool {
        use WasmHeapType::*;
        matches!(
            self,
            Any | Eq | I31 | Struct | Array | None | ConcreteStruct(_) | ConcreteArray(_)
        )
    }

    /// The top type of the hierarchy this heap type belongs to: `func`,
    /// `extern`, `exn` or `any`.
    pub fn top(self) -> WasmHeapType {
        use WasmHeapType::*;
        match self {
            Func | NoFunc | ConcreteFunc(_) => Func,
            Extern | NoExtern => Extern,
            Exn | NoExn => Exn,
            Any | Eq | I31 | Struct | Array | None | ConcreteStruct(_) | ConcreteArray(_) => Any,
        }
    }

    /// The bottom type of the hierarchy this heap type belongs to.
    pub fn bottom(self) -> WasmHeapType {
        match self.top() {
            WasmHeapType::Func => WasmHeapType::NoFunc,
            WasmHeapType::Extern => WasmHeapType::NoExtern,
            WasmHeapType::Exn => WasmHeapType::NoExn,
            _ => WasmHeapType::None,
        }
    }

    /// The concrete type index, if this is a concrete heap type.
    pub fn concrete_index(self) -> Option<EngineOrModuleTypeIndex> {
        match self {
            WasmHeapType::ConcreteFunc(i) | WasmHeapType::ConcreteStruct(i) | WasmHeapType::ConcreteArray(i) => Some(i),
            _ => Option::None,
        }
    }

    /// Whether `self` is a subtype of `other`, concrete types compared by
    /// `concrete(a, b)` (declared subtyping needs the registry of the types;
    /// see `weft_types::TypeRegistry::is_subtype`).
    pub fn matches_with(
        self,
        other: WasmHeapType,
        concrete: &mut impl FnMut(EngineOrModuleTypeIndex, EngineOrModuleTypeIndex) -> bool,
    ) -> bool {
        use WasmHeapType::*;
        if self == other {
            return true;
        }
        match (self, other) {
            (ConcreteFunc(a), ConcreteFunc(b))
            | (ConcreteStruct(a), ConcreteStruct(b))
            | (ConcreteArray(a), ConcreteArray(b)) => concrete(a, b),
            (ConcreteFunc(_), Func) => true,
            (ConcreteStruct(_), Struct | Eq | Any) => true,
            (ConcreteArray(_), Array | Eq | Any) => true,
            (I31 | Struct | Array, Eq | Any) => true,
            (Eq, Any) => true,
            (NoFunc | NoExtern | NoExn | None, b) => self.top() == b.top(),
            _ => false,
        }
    }

    /// Whether `self` is a subtype of `other`. Without the registry of the
    /// types, two concrete types match when they are the same (indices of
    /// the same space); see [`WasmHeapType::matches_with`].
    pub fn matches(self, other: WasmHeapType) -> bool {
        self.matches_with(other, &mut |a, b| a == b)
    }

    /// The heap type with every type index mapped by `f`.
    pub fn map_index(self, f: &mut impl FnMut(EngineOrModuleTypeIndex) -> EngineOrModuleTypeIndex) -> WasmHeapType {
        match self {
            WasmHeapType::ConcreteFunc(i) => WasmHeapType::ConcreteFunc(f(i)),
            WasmHeapType::ConcreteStruct(i) => WasmHeapType::ConcreteStruct(f(i)),
            WasmHeapType::ConcreteArray(i) => WasmHeapType::ConcreteArray(f(i)),
            other => other,
        }
    }
}

impl fmt::Display for WasmHeapType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WasmHeapType::Func => f.write_str("func"),
            WasmHeapType::Extern => f.write_str("extern"),
            WasmHeapType::NoFunc => f.write_str("nofunc"),
            WasmHeapType::NoExtern => f.write_str("noextern"),
            WasmHeapType::Exn => f.write_str("exn"),
            WasmHeapType::NoExn => f.write_str("noexn"),
            WasmHeapType::Any => f.write_str("any"),
            WasmHeapType::Eq => f.write_str("eq"),
            WasmHeapType::I31 => f.write_str("i31"),
            WasmHeapType::Struct => f.write_str("struct"),
            WasmHeapType::Array => f.write_str("array"),
            WasmHeapType::None => f.write_str("none"),
            WasmHeapType::ConcreteFunc(i) | WasmHeapType::ConcreteStruct(i) | WasmHeapType::ConcreteArray(i) => match i
            {
                EngineOrModuleTypeIndex::Module(i) => write!(f, "{i}"),
                EngineOrModuleTypeIndex::Engine(i) => write!(f, "(engine {i})"),
                EngineOrModuleTypeIndex::RecSelf => f.write_str("(rec 0)"),
                EngineOrModuleTypeIndex::RecGroup(i) => write!(f, "(rec {i})"),
            },
        }
    }
}

/// A reference type: a heap type and whether `null` is a value of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WasmRefType {
    /// Whether the reference may be null.
    pub nullable: bool,
    /// What the reference points to.
    pub heap_type: WasmHeapType,
    /// Whether the reference is exact (`(ref exact $t)`, the custom
    /// descriptors proposal): it points to values of the concrete type
    /// `$t` itself, never of one of its declared subtypes. Only concrete
    /// heap types are exact.
    pub exact: bool,
}

impl WasmRefType {
    /// `funcref`.
    pub const FUNCREF: WasmRefType = WasmRefType {
        nullable: true,
        heap_type: WasmHeapType::Func,
        exact: false,
    };
    /// `exnref`.
    pub const EXNREF: WasmRefType = WasmRefType {
        nullable: true,
        heap_type: WasmHeapType::Exn,
        exact: false,
    };
    /// `externref`.
    pub const EXTERNREF: WasmRefType = WasmRefType {
        nullable: true,
        heap_type: WasmHeapType::Extern,
        exact: false,
    };

    /// A reference type that is not exact.
    pub fn new(nullable: bool, heap_type: WasmHeapType) -> WasmRefType {
        WasmRefType {
            nullable,
            heap_type,
            exact: false,
        }
    }

    /// Whether `self` is a subtype of `other`. Without the registry of the
    /// types, two concrete types match when they are the same (indices of
    /// the same space); see [`WasmRefType::matches_with`].
    pub fn matches(&self, other: &WasmRefType) -> bool {
        self.matches_with(other, &mut |a, b| a == b)
    }

    /// Whether `self` is a subtype of `other`, concrete types compared by
    /// `concrete(a, b)` (declared subtyping). An exact reference type only
    /// has the exact reference to the same type, the inexact one and their
    /// supertypes above it, and the bottom type of its hierarchy below.
    pub fn matches_with(
        &self,
        other: &WasmRefType,
        concrete: &mut impl FnMut(EngineOrModuleTypeIndex, EngineOrModuleTypeIndex) -> bool,
    ) -> bool {
        if self.nullable && !other.nullable {
            return false;
        }
        if other.exact {
            let bottom = self.heap_type == self.heap_type.bottom();
            return bottom && self.heap_type.top() == other.heap_type.top()
                || self.exact
                    && match (self.heap_type.concrete_index(), other.heap_type.concrete_index()) {
                        (Some(a), Some(b)) => a == b || concrete(a, b) && concrete(b, a),
                        _ => false,
                    };
        }
        self.heap_type.matches_with(other.heap_type, concrete)
    }
}

impl fmt::Display for WasmRefType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.nullable, self.heap_type) {
            (true, h) if self.exact => write!(f, "(ref null (exact {h}))"),
            (false, h) if self.exact => write!(f, "(ref (exact {h}))"),
            (true, h) if h.concrete_index().is_some() => write!(f, "(ref null {})", self.heap_type),
            (true, WasmHeapType::None) => f.write_str("nullref"),
            (true, heap) => write!(f, "{heap}ref"),
            (false, heap) => write!(f, "(ref {heap})"),
        }
    }
}

/// A WebAssembly value type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum WasmValType {
    /// 32-bit integer.
    I32,
    /// 64-bit integer.
    I64,
    /// 32-bit float.
    F32,
    /// 64-bit float.
    F64,
    /// 128-bit vector.
    V128,
    /// A reference.
    Ref(WasmRefType),
}

impl WasmValType {
    /// Whether a value of type `self` may be used where `other` is expected.
    pub fn matches(&self, other: &WasmValType) -> bool {
        match (self, other) {
            (WasmValType::Ref(a), WasmValType::Ref(b)) => a.matches(b),
            (a, b) => a == b,
        }
    }

    /// The type with every type index mapped by `f`.
    pub fn map_index(self, f: &mut impl FnMut(EngineOrModuleTypeIndex) -> EngineOrModuleTypeIndex) -> WasmValType {
        match self {
            WasmValType::Ref(r) => WasmValType::Ref(WasmRefType {
                nullable: r.nullable,
                heap_type: r.heap_type.map_index(f),
                exact: r.exact,
            }),
            other => other,
        }
    }

    /// Whether this is a reference of the `any` hierarchy (a 32-bit GC heap
    /// word inside GC objects).
    pub fn is_gc_ref(&self) -> bool {
        matches!(self, WasmValType::Ref(r) if r.heap_type.is_gc_heap_word())
    }

    /// Whether every value of this type has a default (zero or null).
    pub fn is_defaultable(&self) -> bool {
        !matches!(self, WasmValType::Ref(r) if !r.nullable)
    }
}

impl fmt::Display for WasmValType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WasmValType::I32 => f.write_str("i32"),
            WasmValType::I64 => f.write_str("i64"),
            WasmValType::F32 => f.write_str("f32"),
            WasmValType::F64 => f.write_str("f64"),
            WasmValType::V128 => f.write_str("v128"),
            WasmValType::Ref(r) => r.fmt(f),
        }
    }
}

/// A function type: parameters and results.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WasmFuncType {
    /// Parameter types, in order.
    pub params: Box<[WasmValType]>,
    /// Result types, in order.
    pub results: Box<[WasmValType]>,
}

impl WasmFuncType {
    /// A new function type.
    pub fn new(params: impl Into<Box<[WasmValType]>>, results: impl Into<Box<[WasmValType]>>) -> Self {
        WasmFuncType {
            params: params.into(),
            results: results.into(),
        }
    }
}

impl WasmFuncType {
    /// The type with every type index of its parameters and results mapped
    /// by `f`.
    pub fn map_index(&self, mut f: impl FnMut(EngineOrModuleTypeIndex) -> EngineOrModuleTypeIndex) -> WasmFuncType {
        WasmFuncType {
            params: self.params.iter().map(|t| t.map_index(&mut f)).collect(),
            results: self.results.iter().map(|t| t.map_index(&mut f)).collect(),
        }
    }
}

impl fmt::Display for WasmFuncType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(func")?;
        if !self.params.is_empty() {
            f.write_str(" (param")?;
            for p in self.params.iter() {
                write!(f, " {p}")?;
            }
            f.write_str(")")?;
        }
        if !self.results.is_empty() {
            f.write_str(" (result")?;
            for r in self.results.iter() {
                write!(f, " {r}")?;
            }
            f.write_str(")")?;
        }
        f.write_str(")")
    }
}

/// A table declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Table {
    /// The type of the elements.
    pub element: WasmRefType,
    /// Initial size in elements.
    pub minimum: u64,
    /// Maximum size in elements, if bounded.
    pub maximum: Option<u64>,
    /// Whether the table is indexed with `i64`.
    pub table64: bool,
}

/// A linear memory declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Memory {
    /// Initial size in pages.
    pub minimum: u64,
    /// Maximum size in pages, if bounded.
    pub maximum: Option<u64>,
    /// Whether the memory is indexed with `i64`.
    pub memory64: bool,
    /// Whether the memory is shared between threads.
    pub shared: bool,
    /// `log2` of the page size in bytes: 16 (64 KiB pages), or 0 (1-byte
    /// pages, the custom page sizes proposal).
    pub page_size_log2: u8,
}

impl Memory {
    /// The page size in bytes.
    pub fn page_size(&self) -> u64 {
        1 << self.page_size_log2
    }
}

/// The size of a WebAssembly page in bytes.
pub const WASM_PAGE_SIZE: u64 = 65536;

/// `log2` of [`WASM_PAGE_SIZE`].
pub const WASM_PAGE_SIZE_LOG2: u8 = 16;

/// A global declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Global {
    /// The type of the value.
    pub ty: WasmValType,
    /// Whether `global.set` may change it.
    pub mutable: bool,
}

/// Converts a wasmparser value type, rejecting what Weft does not support.
pub(crate) fn convert_val_type(ty: wasmparser::ValType) -> Result<WasmValType, String> {
    Ok(match ty {
        wasmparser::ValType::I32 => WasmValType::I32,
        wasmparser::ValType::I64 => WasmValType::I64,
        wasmparser::ValType::F32 => WasmValType::F32,
        wasmparser::ValType::F64 => WasmValType::F64,
        wasmparser::ValType::V128 => WasmValType::V128,
        wasmparser::ValType::Ref(r) => WasmValType::Ref(convert_ref_type(r)?),
    })
}

/// Converts a wasmparser reference type, rejecting what Weft does not support.
pub(crate) fn convert_ref_type(ty: wasmparser::RefType) -> Result<WasmRefType, String> {
    let (heap_type, exact) = convert_heap_type(ty.heap_type())?;
    Ok(WasmRefType {
        nullable: ty.is_nullable(),
        heap_type,
        exact,
    })
}

/// Converts a wasmparser heap type, and whether it is exact (`(exact $t)`,
/// the custom descriptors proposal), rejecting what Weft does not support.
pub(crate) fn convert_heap_type(heap: wasmparser::HeapType) -> Result<(WasmHeapType, bool), String> {
    use wasmparser::{AbstractHeapType as A, HeapType as H};
    let heap_type = match heap {
        H::Abstract {
            shared: false,
            ty: A::Func,
        } => WasmHeapType::Func,
        H::Abstract {
            shared: false,
            ty: A::Extern,
        } => WasmHeapType::Extern,
        H::Abstract {
            shared: false,
            ty: A::NoFunc,
        } => WasmHeapType::NoFunc,
        H::Abstract {
            shared: false,
            ty: A::NoExtern,
        } => WasmHeapType::NoExtern,
        H::Abstract {
            shared: false,
            ty: A::Exn,
        } => WasmHeapType::Exn,
        H::Abstract {
            shared: false,
            ty: A::NoExn,
        } => WasmHeapType::NoExn,
        H::Abstract {
            shared: false,
            ty: A::Any,
        } => WasmHeapType::Any,
        H::Abstract {
            shared: false,
            ty: A::Eq,
        } => WasmHeapType::Eq,
        H::Abstract {
            shared: false,
            ty: A::I31,
        } => WasmHeapType::I31,
        H::Abstract {
            shared: false,
            ty: A::Struct,
        } => WasmHeapType::Struct,
        H::Abstract {
            shared: false,
            ty: A::Array,
        } => WasmHeapType::Array,
        H::Abstract {
            shared: false,
            ty: A::None,
        } => WasmHeapType::None,
        // The kind of the type is not known here: the translation resolves
        // concrete struct and array types afterwards
        // (`Module::resolve_heap_type`).
        H::Concrete(wasmparser::UnpackedIndex::Module(i)) => {
            WasmHeapType::ConcreteFunc(EngineOrModuleTypeIndex::Module(i))
        }
        H::Exact(wasmparser::UnpackedIndex::Module(i)) => {
            return Ok((WasmHeapType::ConcreteFunc(EngineOrModuleTypeIndex::Module(i)), true))
        }
        other => return Err(format!("unsupported reference type: {other:?}")),
    };
    Ok((heap_type, false))
}
