//! Types of values and entities, as in Wasmtime's API.

use crate::Engine;
use std::fmt;
use std::sync::Arc;
use weft_environ::{
    EngineOrModuleTypeIndex, WasmArrayType, WasmCompositeType, WasmFieldType, WasmFuncType, WasmHeapType, WasmRefType,
    WasmStorageType, WasmStructType, WasmSubType, WasmValType,
};
use weft_types::VMSharedTypeIndex;

/// The heap type of a reference.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HeapType {
    /// `func`: any function.
    Func,
    /// `extern`: any host reference.
    Extern,
    /// `nofunc`: the bottom function type.
    NoFunc,
    /// `noextern`: the bottom extern type.
    NoExtern,
    /// `exn`: any exception.
    Exn,
    /// `noexn`: the bottom exception type.
    NoExn,
    /// The functions of one function type: `(ref $t)`.
    ConcreteFunc(FuncType),
    /// `any`: any internal reference (the GC proposal).
    Any,
    /// `eq`: references `ref.eq` compares.
    Eq,
    /// `i31`: unboxed 31-bit integers.
    I31,
    /// `struct`: any struct.
    Struct,
    /// The structs of one struct type and its subtypes: `(ref $t)`.
    ConcreteStruct(StructType),
    /// `array`: any array.
    Array,
    /// The arrays of one array type and its subtypes: `(ref $t)`.
    ConcreteArray(ArrayType),
    /// `none`: the bottom of the `any` hierarchy.
    None,
}

impl HeapType {
    /// The heap type of a canonical `WasmHeapType` of `engine` (concrete
    /// types named by engine ids). A concrete type that is not registered
    /// (which canonical types never contain) becomes its abstract type.
    pub(crate) fn from_wasm(engine: &Engine, h: WasmHeapType) -> Self {
        match h {
            WasmHeapType::Func => HeapType::Func,
            WasmHeapType::Extern => HeapType::Extern,
            WasmHeapType::NoFunc => HeapType::NoFunc,
            WasmHeapType::NoExtern => HeapType::NoExtern,
            WasmHeapType::Exn => HeapType::Exn,
            WasmHeapType::NoExn => HeapType::NoExn,
            WasmHeapType::ConcreteFunc(EngineOrModuleTypeIndex::Engine(i)) => {
                match FuncType::from_shared_index(engine, VMSharedTypeIndex(i)) {
                    Some(ty) => HeapType::ConcreteFunc(ty),
                    None => HeapType::Func,
                }
            }
            WasmHeapType::ConcreteFunc(_) => HeapType::Func,
            WasmHeapType::Any => HeapType::Any,
            WasmHeapType::Eq => HeapType::Eq,
            WasmHeapType::I31 => HeapType::I31,
            WasmHeapType::ConcreteStruct(EngineOrModuleTypeIndex::Engine(i)) => match GcType::lookup(engine, i) {
                Ok(ty) => HeapType::ConcreteStruct(StructType(ty)),
                Err(_) => HeapType::Struct,
            },
            WasmHeapType::ConcreteArray(EngineOrModuleTypeIndex::Engine(i)) => match GcType::lookup(engine, i) {
                Ok(ty) => HeapType::ConcreteArray(ArrayType(ty)),
                Err(_) => HeapType::Array,
            },
            WasmHeapType::Struct | WasmHeapType::ConcreteStruct(_) => HeapType::Struct,
            WasmHeapType::Array | WasmHeapType::ConcreteArray(_) => HeapType::Array,
            WasmHeapType::None => HeapType::None,
        }
    }
    pub(crate) fn to_wasm(&self) -> WasmHeapType {
        match self {
            HeapType::Func => WasmHeapType::Func,
            HeapType::Extern => WasmHeapType::Extern,
            HeapType::NoFunc => WasmHeapType::NoFunc,
            HeapType::NoExtern => WasmHeapType::NoExtern,
            HeapType::Exn => WasmHeapType::Exn,
            HeapType::NoExn => WasmHeapType::NoExn,
            HeapType::ConcreteFunc(ty) => {
                WasmHeapType::ConcreteFunc(EngineOrModuleTypeIndex::Engine(ty.registered.index.0))
            }
            HeapType::Any => WasmHeapType::Any,
            HeapType::Eq => WasmHeapType::Eq,
            HeapType::I31 => WasmHeapType::I31,
            HeapType::Struct => WasmHeapType::Struct,
            HeapType::ConcreteStruct(ty) => WasmHeapType::ConcreteStruct(EngineOrModuleTypeIndex::Engine(ty.0.id.0)),
            HeapType::Array => WasmHeapType::Array,
            HeapType::ConcreteArray(ty) => WasmHeapType::ConcreteArray(EngineOrModuleTypeIndex::Engine(ty.0.id.0)),
            HeapType::None => WasmHeapType::None,
        }
    }

    /// The engine of a concrete type.
    fn engine(&self) -> Option<&Engine> {
        match self {
            HeapType::ConcreteFunc(ty) => Some(&ty.registered.engine),
            HeapType::ConcreteStruct(ty) => Some(&ty.0.engine),
            HeapType::ConcreteArray(ty) => Some(&ty.0.engine),
            _ => None,
        }
    }
    /// Whether this is a function heap type.
    pub fn is_func(&self) -> bool {
        self.to_wasm().is_func()
    }
    /// Whether this is an extern heap type.
    pub fn is_extern(&self) -> bool {
        matches!(self, HeapType::Extern | HeapType::NoExtern)
    }
    /// Whether this heap type is of the `any` hierarchy (the GC
    /// proposal's internal references).
    pub fn is_any_hierarchy(&self) -> bool {
        self.to_wasm().is_gc_heap_word()
    }
    /// Whether this is an exception heap type.
    pub fn is_exn(&self) -> bool {
        matches!(self, HeapType::Exn | HeapType::NoExn)
    }
    /// Whether this is a concrete (indexed) type.
    pub fn is_concrete(&self) -> bool {
        matches!(
            self,
            HeapType::ConcreteFunc(_) | HeapType::ConcreteStruct(_) | HeapType::ConcreteArray(_)
        )
    }
    /// The struct type, if this is a concrete struct type.
    pub fn as_concrete_struct(&self) -> Option<&StructType> {
        match self {
            HeapType::ConcreteStruct(ty) => Some(ty),
            _ => None,
        }
    }
    /// The array type, if this is a concrete array type.
    pub fn as_concrete_array(&self) -> Option<&ArrayType> {
        match self {
            HeapType::ConcreteArray(ty) => Some(ty),
            _ => None,
        }
    }
    /// The function type, if this is a concrete function type.
    pub fn as_concrete_func(&self) -> Option<&FuncType> {
        match self {
            HeapType::ConcreteFunc(ty) => Some(ty),
            _ => None,
        }
    }
    /// Whether `self` is a subtype of `other` (for concrete types, by the
    /// engine's declared subtyping).
    pub fn matches(&self, other: &HeapType) -> bool {
        let Some(engine) = self.engine().or(other.engine()) else {
            return self.to_wasm().matches(other.to_wasm());
        };
        let same_engine = match (self.engine(), other.engine()) {
            (Some(a), Some(b)) => Engine::same(a, b),
            _ => true,
        };
        self.to_wasm()
            .matches_with(other.to_wasm(), &mut |a, b| same_engine && index_matches(engine, a, b))
    }
}

/// Whether type index `a` names a subtype of the type `b` names: for
/// canonical (engine) indices by `engine`'s declared subtyping, otherwise
/// when they are the same index.
pub(crate) fn index_matches(engine: &Engine, a: EngineOrModuleTypeIndex, b: EngineOrModuleTypeIndex) -> bool {
    match (a, b) {
        (EngineOrModuleTypeIndex::Engine(a), EngineOrModuleTypeIndex::Engine(b)) => engine
            .inner
            .types
            .is_subtype(VMSharedTypeIndex(a), VMSharedTypeIndex(b)),
        (a, b) => a == b,
    }
}

impl fmt::Display for HeapType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeapType::Func => f.write_str("func"),
            HeapType::Extern => f.write_str("extern"),
            HeapType::NoFunc => f.write_str("nofunc"),
            HeapType::NoExtern => f.write_str("noextern"),
            HeapType::Exn => f.write_str("exn"),
            HeapType::NoExn => f.write_str("noexn"),
            HeapType::ConcreteFunc(ty) => ty.fmt(f),
            HeapType::Any => f.write_str("any"),
            HeapType::Eq => f.write_str("eq"),
            HeapType::I31 => f.write_str("i31"),
            HeapType::Struct => f.write_str("struct"),
            HeapType::ConcreteStruct(ty) => write!(f, "(struct {})", ty.0.id.0),
            HeapType::Array => f.write_str("array"),
            HeapType::ConcreteArray(ty) => write!(f, "(array {})", ty.0.id.0),
            HeapType::None => f.write_str("none"),
        }
    }
}

/// A reference type: nullability and heap type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RefType {
    nullable: bool,
    heap_type: HeapType,
}

impl RefType {
    /// `funcref`.
    pub const FUNCREF: RefType = RefType {
        nullable: true,
        heap_type: HeapType::Func,
    };
    /// `externref`.
    pub const EXTERNREF: RefType = RefType {
        nullable: true,
        heap_type: HeapType::Extern,
    };
    /// `nullfuncref`.
    pub const NULLFUNCREF: RefType = RefType {
        nullable: true,
        heap_type: HeapType::NoFunc,
    };
    /// `nullexternref`.
    pub const NULLEXTERNREF: RefType = RefType {
        nullable: true,
        heap_type: HeapType::NoExtern,
    };

    /// A new reference type.
    pub fn new(nullable: bool, heap_type: HeapType) -> RefType {
        RefType { nullable, heap_type }
    }
    /// Whether null is a value of this type.
    pub fn is_nullable(&self) -> bool {
        self.nullable
    }
    /// The type of the values it refers to (without nullability).
    pub fn heap_type(&self) -> &HeapType {
        &self.heap_type
    }
    /// Whether `self` is a subtype of `other`.
    pub fn matches(&self, other: &RefType) -> bool {
        self.to_wasm().matches(&other.to_wasm())
    }
    /// Whether the two types are the same.
    #[allow(clippy::should_implement_trait, reason = "Wasmtime's name and signature")]
    pub fn eq(a: &RefType, b: &RefType) -> bool {
        a == b
    }
    pub(crate) fn from_wasm(engine: &Engine, r: WasmRefType) -> Self {
        RefType {
            nullable: r.nullable,
            heap_type: HeapType::from_wasm(engine, r.heap_type),
        }
    }
    pub(crate) fn to_wasm(&self) -> WasmRefType {
        WasmRefType::new(self.nullable, self.heap_type.to_wasm())
    }
}

impl fmt::Display for RefType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.nullable, &self.heap_type) {
            (true, HeapType::ConcreteFunc(ty)) => write!(f, "(ref null {ty})"),
            (true, heap) => write!(f, "{heap}ref"),
            (false, heap) => write!(f, "(ref {heap})"),
        }
    }
}

/// A value type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ValType {
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `v128`.
    V128,
    /// A reference.
    Ref(RefType),
}

impl ValType {
    /// `funcref`.
    pub const FUNCREF: ValType = ValType::Ref(RefType::FUNCREF);
    /// `externref`.
    pub const EXTERNREF: ValType = ValType::Ref(RefType::EXTERNREF);
    /// `nullfuncref`.
    pub const NULLFUNCREF: ValType = ValType::Ref(RefType::NULLFUNCREF);
    /// `nullexternref`.
    pub const NULLEXTERNREF: ValType = ValType::Ref(RefType::NULLEXTERNREF);

    /// Whether this is a number type.
    pub fn is_num(&self) -> bool {
        matches!(self, ValType::I32 | ValType::I64 | ValType::F32 | ValType::F64)
    }
    /// Whether this is `i32`.
    pub fn is_i32(&self) -> bool {
        matches!(self, ValType::I32)
    }
    /// Whether this is `i64`.
    pub fn is_i64(&self) -> bool {
        matches!(self, ValType::I64)
    }
    /// Whether this is `f32`.
    pub fn is_f32(&self) -> bool {
        matches!(self, ValType::F32)
    }
    /// Whether this is `f64`.
    pub fn is_f64(&self) -> bool {
        matches!(self, ValType::F64)
    }
    /// Whether this is `v128`.
    pub fn is_v128(&self) -> bool {
        matches!(self, ValType::V128)
    }
    /// Whether this is a reference type.
    pub fn is_ref(&self) -> bool {
        matches!(self, ValType::Ref(_))
    }
    /// The reference type, if this is one.
    pub fn as_ref(&self) -> Option<&RefType> {
        match self {
            ValType::Ref(r) => Some(r),
            _ => None,
        }
    }
    /// Whether `self` is a subtype of `other`.
    pub fn matches(&self, other: &ValType) -> bool {
        self.to_wasm().matches(&other.to_wasm())
    }
    /// Whether the two types are the same.
    #[allow(clippy::should_implement_trait, reason = "Wasmtime's name and signature")]
    pub fn eq(a: &ValType, b: &ValType) -> bool {
        a == b
    }
    pub(crate) fn from_wasm(engine: &Engine, t: WasmValType) -> Self {
        match t {
            WasmValType::I32 => ValType::I32,
            WasmValType::I64 => ValType::I64,
            WasmValType::F32 => ValType::F32,
            WasmValType::F64 => ValType::F64,
            WasmValType::V128 => ValType::V128,
            WasmValType::Ref(r) => ValType::Ref(RefType::from_wasm(engine, r)),
        }
    }
    pub(crate) fn to_wasm(&self) -> WasmValType {
        match self {
            ValType::I32 => WasmValType::I32,
            ValType::I64 => WasmValType::I64,
            ValType::F32 => WasmValType::F32,
            ValType::F64 => WasmValType::F64,
            ValType::V128 => WasmValType::V128,
            ValType::Ref(r) => WasmValType::Ref(r.to_wasm()),
        }
    }
}

impl fmt::Display for ValType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_wasm().fmt(f)
    }
}

/// A function type, registered in its engine's canonical type registry
/// (for as long as the value lives): two function types of one engine are
/// equal exactly when they are the same type.
#[derive(Clone)]
pub struct FuncType {
    ty: Arc<WasmFuncType>,
    registered: RegisteredType,
}

/// One use of a canonical type of an engine.
struct RegisteredType {
    engine: Engine,
    index: VMSharedTypeIndex,
}

impl Clone for RegisteredType {
    fn clone(&self) -> Self {
        self.engine.inner.types.add_use(self.index);
        RegisteredType {
            engine: self.engine.clone(),
            index: self.index,
        }
    }
}

impl Drop for RegisteredType {
    fn drop(&mut self) {
        self.engine.inner.types.release(self.index);
    }
}

impl PartialEq for FuncType {
    fn eq(&self, other: &FuncType) -> bool {
        self.ty == other.ty
    }
}

impl Eq for FuncType {}

impl std::hash::Hash for FuncType {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.ty.hash(state)
    }
}

impl fmt::Debug for FuncType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FuncType")
            .field("params", &self.ty.params)
            .field("results", &self.ty.results)
            .finish()
    }
}

impl FuncType {
    /// A function type with the given parameters and results, registered
    /// in `engine`.
    pub fn new(
        engine: &Engine,
        params: impl IntoIterator<Item = ValType>,
        results: impl IntoIterator<Item = ValType>,
    ) -> FuncType {
        let params: Vec<_> = params.into_iter().map(|t| t.to_wasm()).collect();
        let results: Vec<_> = results.into_iter().map(|t| t.to_wasm()).collect();
        FuncType::from_wasm(engine, &WasmFuncType::new(params, results))
    }
    /// The parameter types.
    pub fn params(&self) -> impl ExactSizeIterator<Item = ValType> + '_ {
        self.ty
            .params
            .iter()
            .map(|t| ValType::from_wasm(&self.registered.engine, *t))
    }
    /// The result types.
    pub fn results(&self) -> impl ExactSizeIterator<Item = ValType> + '_ {
        self.ty
            .results
            .iter()
            .map(|t| ValType::from_wasm(&self.registered.engine, *t))
    }
    /// The `i`th parameter type.
    pub fn param(&self, i: usize) -> Option<ValType> {
        self.ty
            .params
            .get(i)
            .map(|t| ValType::from_wasm(&self.registered.engine, *t))
    }
    /// The `i`th result type.
    pub fn result(&self, i: usize) -> Option<ValType> {
        self.ty
            .results
            .get(i)
            .map(|t| ValType::from_wasm(&self.registered.engine, *t))
    }
    /// Whether a function of type `self` may be used where `other` is
    /// expected.
    pub fn matches(&self, other: &FuncType) -> bool {
        self.ty == other.ty
    }
    /// Whether the two types are the same.
    #[allow(clippy::should_implement_trait, reason = "Wasmtime's name and signature")]
    pub fn eq(a: &FuncType, b: &FuncType) -> bool {
        a.ty == b.ty
    }
    /// The engine this type is registered in.
    pub fn engine(&self) -> &Engine {
        &self.registered.engine
    }
    /// Registers the canonical type `ty` (concrete types named by engine
    /// ids of `engine`).
    pub(crate) fn from_wasm(engine: &Engine, ty: &WasmFuncType) -> FuncType {
        let index = engine.inner.types.register(ty);
        FuncType {
            ty: Arc::new(ty.clone()),
            registered: RegisteredType {
                engine: engine.clone(),
                index,
            },
        }
    }
    /// The registered type `index` of `engine`, if it is registered.
    pub(crate) fn from_shared_index(engine: &Engine, index: VMSharedTypeIndex) -> Option<FuncType> {
        let ty = engine.inner.types.lookup(index)?;
        if !engine.inner.types.add_use(index) {
            return None;
        }
        Some(FuncType {
            ty,
            registered: RegisteredType {
                engine: engine.clone(),
                index,
            },
        })
    }
    /// The canonical type.
    /// The engine-wide canonical id of the type.
    pub(crate) fn type_index(&self) -> u32 {
        self.registered.index.0
    }
    pub(crate) fn as_wasm(&self) -> &WasmFuncType {
        &self.ty
    }
}

impl fmt::Display for FuncType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.ty.fmt(f)
    }
}

/// Whether a global may be changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mutability {
    /// Immutable.
    Const,
    /// Mutable.
    Var,
}

/// The type of a global.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GlobalType {
    content: ValType,
    mutability: Mutability,
}

impl GlobalType {
    /// A new global type.
    pub fn new(content: ValType, mutability: Mutability) -> GlobalType {
        GlobalType { content, mutability }
    }
    /// The type of the value.
    pub fn content(&self) -> &ValType {
        &self.content
    }
    /// Whether the global is mutable.
    pub fn mutability(&self) -> Mutability {
        self.mutability
    }
    /// Whether the global is mutable.
    pub fn is_mutable(&self) -> bool {
        self.mutability == Mutability::Var
    }
    /// The type of a global declared with the canonical type `g`.
    pub(crate) fn from_wasm(engine: &Engine, g: &weft_environ::Global) -> Self {
        GlobalType {
            content: ValType::from_wasm(engine, g.ty),
            mutability: if g.mutable { Mutability::Var } else { Mutability::Const },
        }
    }
}

impl fmt::Display for GlobalType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mutability {
            Mutability::Const => write!(f, "(global {})", self.content),
            Mutability::Var => write!(f, "(global (mut {}))", self.content),
        }
    }
}

/// The type of a table.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TableType {
    element: RefType,
    minimum: u64,
    maximum: Option<u64>,
    table64: bool,
}

impl TableType {
    /// A 32-bit table of `element`s with the given limits.
    pub fn new(element: RefType, min: u32, max: Option<u32>) -> TableType {
        TableType {
            element,
            minimum: min.into(),
            maximum: max.map(Into::into),
            table64: false,
        }
    }
    /// A 64-bit table (indexed with `i64`) of `element`s with the given
    /// limits.
    pub fn new64(element: RefType, min: u64, max: Option<u64>) -> TableType {
        TableType {
            element,
            minimum: min,
            maximum: max,
            table64: true,
        }
    }
    /// The element type.
    pub fn element(&self) -> &RefType {
        &self.element
    }
    /// The minimum size in elements.
    pub fn minimum(&self) -> u64 {
        self.minimum
    }
    /// The maximum size in elements, if any.
    pub fn maximum(&self) -> Option<u64> {
        self.maximum
    }
    /// Whether the table is indexed with `i64`.
    pub fn is_64(&self) -> bool {
        self.table64
    }
    /// The type of a table declared with the canonical type `t`.
    pub(crate) fn from_wasm(engine: &Engine, t: &weft_environ::Table) -> Self {
        TableType {
            element: RefType::from_wasm(engine, t.element),
            minimum: t.minimum,
            maximum: t.maximum,
            table64: t.table64,
        }
    }
}

impl fmt::Display for TableType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.table64 { "(table i64 " } else { "(table " })?;
        write!(f, "{}", self.minimum)?;
        if let Some(m) = self.maximum {
            write!(f, " {m}")?;
        }
        write!(f, " {})", self.element)
    }
}

/// The type of a linear memory.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MemoryType {
    minimum: u64,
    maximum: Option<u64>,
    memory64: bool,
    shared: bool,
    page_size_log2: u8,
}

impl MemoryType {
    /// A 32-bit memory with the given limits in pages.
    pub fn new(minimum: u32, maximum: Option<u32>) -> MemoryType {
        MemoryType {
            minimum: minimum.into(),
            maximum: maximum.map(Into::into),
            memory64: false,
            shared: false,
            page_size_log2: weft_environ::WASM_PAGE_SIZE_LOG2,
        }
    }
    /// A 64-bit memory (indexed with `i64`) with the given limits in pages.
    pub fn new64(minimum: u64, maximum: Option<u64>) -> MemoryType {
        MemoryType {
            minimum,
            maximum,
            memory64: true,
            shared: false,
            page_size_log2: weft_environ::WASM_PAGE_SIZE_LOG2,
        }
    }
    /// A shared 32-bit memory (the threads proposal) with the given limits
    /// in pages; shared memories have a maximum.
    pub fn shared(minimum: u32, maximum: u32) -> MemoryType {
        MemoryType {
            minimum: minimum.into(),
            maximum: Some(maximum.into()),
            memory64: false,
            shared: true,
            page_size_log2: weft_environ::WASM_PAGE_SIZE_LOG2,
        }
    }
    /// This type with the minimum `minimum` (the current size of a memory).
    pub(crate) fn with_minimum(&self, minimum: u64) -> MemoryType {
        MemoryType {
            minimum,
            ..self.clone()
        }
    }
    /// The minimum size in pages.
    pub fn minimum(&self) -> u64 {
        self.minimum
    }
    /// The maximum size in pages, if any.
    pub fn maximum(&self) -> Option<u64> {
        self.maximum
    }
    /// Whether the memory is indexed with `i64`.
    pub fn is_64(&self) -> bool {
        self.memory64
    }
    /// Whether the memory is shared.
    pub fn is_shared(&self) -> bool {
        self.shared
    }
    /// The size of a page in bytes: 65536, or 1 with the custom page sizes
    /// proposal.
    pub fn page_size(&self) -> u64 {
        1 << self.page_size_log2
    }
    /// `log2` of the page size in bytes (16, or 0).
    pub fn page_size_log2(&self) -> u8 {
        self.page_size_log2
    }
    pub(crate) fn from_wasm(m: &weft_environ::Memory) -> Self {
        MemoryType {
            minimum: m.minimum,
            maximum: m.maximum,
            memory64: m.memory64,
            shared: m.shared,
            page_size_log2: m.page_size_log2,
        }
    }
}

impl fmt::Display for MemoryType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.memory64 { "(memory i64 " } else { "(memory " })?;
        write!(f, "{}", self.minimum)?;
        if let Some(m) = self.maximum {
            write!(f, " {m}")?;
        }
        if self.shared {
            f.write_str(" shared")?;
        }
        if self.page_size_log2 != weft_environ::WASM_PAGE_SIZE_LOG2 {
            write!(f, " (pagesize {})", self.page_size())?;
        }
        f.write_str(")")
    }
}

/// A builder of [`MemoryType`]s, as Wasmtime's: limits, index type,
/// sharing and page size, checked by [`MemoryTypeBuilder::build`].
#[derive(Debug, Clone)]
pub struct MemoryTypeBuilder {
    ty: MemoryType,
}

impl Default for MemoryTypeBuilder {
    fn default() -> Self {
        MemoryTypeBuilder {
            ty: MemoryType::new(0, None),
        }
    }
}

impl MemoryTypeBuilder {
    /// A builder of a 32-bit memory of 0 pages of 64 KiB, unbounded.
    pub fn new() -> MemoryTypeBuilder {
        MemoryTypeBuilder::default()
    }
    /// The minimum size in pages.
    pub fn min(&mut self, minimum: u64) -> &mut Self {
        self.ty.minimum = minimum;
        self
    }
    /// The maximum size in pages, if any.
    pub fn max(&mut self, maximum: Option<u64>) -> &mut Self {
        self.ty.maximum = maximum;
        self
    }
    /// Whether the memory is indexed with `i64`.
    pub fn memory64(&mut self, memory64: bool) -> &mut Self {
        self.ty.memory64 = memory64;
        self
    }
    /// Whether the memory is shared between threads.
    pub fn shared(&mut self, shared: bool) -> &mut Self {
        self.ty.shared = shared;
        self
    }
    /// `log2` of the page size in bytes: 16 (the default) or 0.
    pub fn page_size_log2(&mut self, page_size_log2: u8) -> &mut Self {
        self.ty.page_size_log2 = page_size_log2;
        self
    }
    /// The type, or an error naming what is wrong: a page size other than
    /// 1 or 65536 bytes, a maximum below the minimum, or limits past what
    /// the index type can address.
    pub fn build(&self) -> crate::Result<MemoryType> {
        let ty = &self.ty;
        if ty.page_size_log2 != 0 && ty.page_size_log2 != weft_environ::WASM_PAGE_SIZE_LOG2 {
            crate::bail!(
                "invalid page size of 2^{} bytes: only 1 and 65536 are supported",
                ty.page_size_log2
            );
        }
        if ty.shared && ty.maximum.is_none() {
            crate::bail!("a shared memory must have a maximum size");
        }
        if ty.maximum.is_some_and(|m| m < ty.minimum) {
            crate::bail!(
                "memory maximum of {:?} pages is below its minimum of {}",
                ty.maximum,
                ty.minimum
            );
        }
        // The most pages the index type can address.
        let index_bits: u32 = if ty.memory64 { 64 } else { 32 };
        let limit = if ty.page_size_log2 == 0 {
            u64::MAX >> (64 - index_bits)
        } else {
            1u64 << (index_bits - u32::from(ty.page_size_log2))
        };
        if ty.minimum > limit || ty.maximum.is_some_and(|m| m > limit) {
            crate::bail!("memory size must be at most {limit} pages");
        }
        Ok(ty.clone())
    }
}

/// The type of an exception tag: a function type whose parameters are the
/// exception's payload and whose results are empty.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TagType {
    ty: FuncType,
}

impl TagType {
    /// The tag type with the parameters of `ty` as payload. Tags of
    /// WebAssembly 3.0 have no results; a tag made from a type with results
    /// is refused by [`crate::Tag::new`].
    pub fn new(ty: FuncType) -> TagType {
        TagType { ty }
    }
    /// The function type of the tag.
    pub fn ty(&self) -> &FuncType {
        &self.ty
    }
}

impl fmt::Display for TagType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(tag {})", self.ty)
    }
}

/// The type of an import or export.
#[derive(Debug, Clone)]
pub enum ExternType {
    /// A function.
    Func(FuncType),
    /// A global.
    Global(GlobalType),
    /// A table.
    Table(TableType),
    /// A memory.
    Memory(MemoryType),
    /// An exception tag.
    Tag(TagType),
}

impl ExternType {
    /// The tag type, if this is one.
    pub fn tag(&self) -> Option<&TagType> {
        match self {
            ExternType::Tag(t) => Some(t),
            _ => None,
        }
    }
    /// The function type, if this is one.
    pub fn func(&self) -> Option<&FuncType> {
        match self {
            ExternType::Func(t) => Some(t),
            _ => None,
        }
    }
    /// The global type, if this is one.
    pub fn global(&self) -> Option<&GlobalType> {
        match self {
            ExternType::Global(t) => Some(t),
            _ => None,
        }
    }
    /// The table type, if this is one.
    pub fn table(&self) -> Option<&TableType> {
        match self {
            ExternType::Table(t) => Some(t),
            _ => None,
        }
    }
    /// The memory type, if this is one.
    pub fn memory(&self) -> Option<&MemoryType> {
        match self {
            ExternType::Memory(t) => Some(t),
            _ => None,
        }
    }
    pub(crate) fn desc(&self) -> &'static str {
        match self {
            ExternType::Func(_) => "function",
            ExternType::Global(_) => "global",
            ExternType::Table(_) => "table",
            ExternType::Memory(_) => "memory",
            ExternType::Tag(_) => "tag",
        }
    }
}

impl fmt::Display for ExternType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExternType::Func(t) => t.fmt(f),
            ExternType::Global(t) => t.fmt(f),
            ExternType::Table(t) => t.fmt(f),
            ExternType::Memory(t) => t.fmt(f),
            ExternType::Tag(t) => t.fmt(f),
        }
    }
}

/// An import of a module.
#[derive(Debug, Clone)]
pub struct ImportType<'module> {
    pub(crate) module: &'module str,
    pub(crate) name: &'module str,
    pub(crate) ty: ExternType,
}

impl<'module> ImportType<'module> {
    /// The module name.
    pub fn module(&self) -> &'module str {
        self.module
    }
    /// The field name.
    pub fn name(&self) -> &'module str {
        self.name
    }
    /// The expected type.
    pub fn ty(&self) -> ExternType {
        self.ty.clone()
    }
}

/// An export of a module.
#[derive(Debug, Clone)]
pub struct ExportType<'module> {
    pub(crate) name: &'module str,
    pub(crate) ty: ExternType,
}

impl<'module> ExportType<'module> {
    /// The export's name.
    pub fn name(&self) -> &'module str {
        self.name
    }
    /// The exported type.
    pub fn ty(&self) -> ExternType {
        self.ty.clone()
    }
}

// ---- The GC proposal's composite types (as Wasmtime 48's) ----

/// What a field or array element stores: a packed integer or a value.
#[derive(Debug, Clone, PartialEq)]
pub enum StorageType {
    /// An 8-bit integer, read as an `i32`.
    I8,
    /// A 16-bit integer, read as an `i32`.
    I16,
    /// A value of a value type.
    ValType(ValType),
}

impl StorageType {
    /// The value type its values are read as.
    pub fn unpack(&self) -> ValType {
        match self {
            StorageType::I8 | StorageType::I16 => ValType::I32,
            StorageType::ValType(v) => v.clone(),
        }
    }
    pub(crate) fn to_wasm(&self) -> WasmStorageType {
        match self {
            StorageType::I8 => WasmStorageType::I8,
            StorageType::I16 => WasmStorageType::I16,
            StorageType::ValType(v) => WasmStorageType::Val(v.to_wasm()),
        }
    }
    pub(crate) fn from_wasm(engine: &Engine, ty: WasmStorageType) -> StorageType {
        match ty {
            WasmStorageType::I8 => StorageType::I8,
            WasmStorageType::I16 => StorageType::I16,
            WasmStorageType::Val(v) => StorageType::ValType(ValType::from_wasm(engine, v)),
        }
    }
}

/// The type of a struct field or of array elements.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldType {
    pub(crate) mutability: Mutability,
    pub(crate) element_type: StorageType,
}

impl FieldType {
    /// A field of `element_type`.
    pub fn new(mutability: Mutability, element_type: StorageType) -> FieldType {
        FieldType {
            mutability,
            element_type,
        }
    }
    /// Whether it may be changed.
    pub fn mutability(&self) -> Mutability {
        self.mutability
    }
    /// What it stores.
    pub fn element_type(&self) -> &StorageType {
        &self.element_type
    }
    pub(crate) fn to_wasm(&self) -> WasmFieldType {
        WasmFieldType {
            element_type: self.element_type.to_wasm(),
            mutable: self.mutability == Mutability::Var,
        }
    }
    pub(crate) fn from_wasm(engine: &Engine, f: &WasmFieldType) -> FieldType {
        FieldType {
            mutability: if f.mutable { Mutability::Var } else { Mutability::Const },
            element_type: StorageType::from_wasm(engine, f.element_type),
        }
    }
}

/// A struct or array type registered in an engine.
#[derive(Clone)]
pub(crate) struct GcType {
    pub(crate) engine: Engine,
    pub(crate) id: VMSharedTypeIndex,
    pub(crate) sub: Arc<WasmSubType>,
}

impl std::fmt::Debug for GcType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GcType").field("id", &self.id.0).finish()
    }
}

impl GcType {
    /// A final type without supertype, registered in `engine`.
    fn register(engine: &Engine, composite: WasmCompositeType) -> crate::Result<GcType> {
        let sub = WasmSubType {
            is_final: true,
            supertype: None,
            composite,
        };
        let ids = engine.inner.types.register_sub_group(std::slice::from_ref(&sub));
        let id = *ids
            .first()
            .ok_or_else(|| crate::format_err!("the engine did not register the type"))?;
        Self::lookup(engine, id.0)
    }

    pub(crate) fn lookup(engine: &Engine, id: u32) -> crate::Result<GcType> {
        let sub = engine
            .inner
            .types
            .lookup_sub(VMSharedTypeIndex(id))
            .ok_or_else(|| crate::format_err!("GC type {id} is not registered in the engine"))?;
        Ok(GcType {
            engine: engine.clone(),
            id: VMSharedTypeIndex(id),
            sub,
        })
    }
}

/// A struct type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StructType(pub(crate) GcType);

impl StructType {
    /// A final struct type with `fields`, registered in `engine`.
    pub fn new(engine: &Engine, fields: impl IntoIterator<Item = FieldType>) -> crate::Result<StructType> {
        let fields = fields.into_iter().map(|f| f.to_wasm()).collect();
        Ok(StructType(GcType::register(
            engine,
            WasmCompositeType::Struct(WasmStructType {
                fields,
                ..WasmStructType::default()
            }),
        )?))
    }
    /// The engine the type is registered in.
    pub fn engine(&self) -> &Engine {
        &self.0.engine
    }
    /// The fields.
    pub fn fields(&self) -> impl ExactSizeIterator<Item = FieldType> + '_ {
        let fields: &[WasmFieldType] = self.0.sub.as_struct().map_or(&[], |s| &s.fields);
        fields.iter().map(|f| FieldType::from_wasm(&self.0.engine, f))
    }
    /// Field `i`.
    pub fn field(&self, i: usize) -> Option<FieldType> {
        self.fields().nth(i)
    }
    /// Whether both are the same type.
    #[allow(clippy::should_implement_trait, reason = "Wasmtime's associated function")]
    pub fn eq(a: &StructType, b: &StructType) -> bool {
        a.0.id == b.0.id && Engine::same(&a.0.engine, &b.0.engine)
    }
    pub(crate) fn wasm(&self) -> Option<&WasmStructType> {
        self.0.sub.as_struct()
    }
}

/// An array type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ArrayType(pub(crate) GcType);

impl ArrayType {
    /// A final array type of elements `field`, registered in `engine`.
    pub fn new(engine: &Engine, field: FieldType) -> crate::Result<ArrayType> {
        Ok(ArrayType(GcType::register(
            engine,
            WasmCompositeType::Array(WasmArrayType(field.to_wasm())),
        )?))
    }
    /// The engine the type is registered in.
    pub fn engine(&self) -> &Engine {
        &self.0.engine
    }
    /// The type of the elements.
    pub fn field_type(&self) -> FieldType {
        match self.0.sub.as_array() {
            Some(a) => FieldType::from_wasm(&self.0.engine, &a.0),
            None => FieldType::new(Mutability::Const, StorageType::I8),
        }
    }
    /// The type of the elements.
    pub fn element_type(&self) -> StorageType {
        self.field_type().element_type
    }
    /// Whether both are the same type.
    #[allow(clippy::should_implement_trait, reason = "Wasmtime's associated function")]
    pub fn eq(a: &ArrayType, b: &ArrayType) -> bool {
        a.0.id == b.0.id && Engine::same(&a.0.engine, &b.0.engine)
    }
    pub(crate) fn wasm(&self) -> Option<&WasmArrayType> {
        self.0.sub.as_array()
    }
}

impl PartialEq for GcType {
    fn eq(&self, other: &GcType) -> bool {
        self.id == other.id && Engine::same(&self.engine, &other.engine)
    }
}

impl Eq for GcType {}

impl std::hash::Hash for GcType {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.0.hash(state)
    }
}
