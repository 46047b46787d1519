//! Types of values and entities, as in Wasmtime's API.

use crate::Engine;
use std::fmt;
use weft_environ::{WasmFuncType, WasmHeapType, WasmRefType, WasmValType};

/// The heap type of a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HeapType {
    /// `func`: any function.
    Func,
    /// `extern`: any host reference.
    Extern,
    /// `nofunc`: the bottom function type.
    NoFunc,
    /// `noextern`: the bottom extern type.
    NoExtern,
}

impl HeapType {
    pub(crate) fn from_wasm(h: WasmHeapType) -> Self {
        match h {
            WasmHeapType::Func => HeapType::Func,
            WasmHeapType::Extern => HeapType::Extern,
            WasmHeapType::NoFunc => HeapType::NoFunc,
            WasmHeapType::NoExtern => HeapType::NoExtern,
        }
    }
    pub(crate) fn to_wasm(self) -> WasmHeapType {
        match self {
            HeapType::Func => WasmHeapType::Func,
            HeapType::Extern => WasmHeapType::Extern,
            HeapType::NoFunc => WasmHeapType::NoFunc,
            HeapType::NoExtern => WasmHeapType::NoExtern,
        }
    }
    /// Whether this is a function heap type.
    pub fn is_func(&self) -> bool {
        self.to_wasm().is_func()
    }
    /// Whether this is an extern heap type.
    pub fn is_extern(&self) -> bool {
        !self.is_func()
    }
}

impl fmt::Display for HeapType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HeapType::Func => "func",
            HeapType::Extern => "extern",
            HeapType::NoFunc => "nofunc",
            HeapType::NoExtern => "noextern",
        })
    }
}

/// A reference type: nullability and heap type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
    /// The heap type.
    pub fn heap_type(&self) -> &HeapType {
        &self.heap_type
    }
    /// Whether `self` is a subtype of `other`.
    pub fn matches(&self, other: &RefType) -> bool {
        self.to_wasm().matches(&other.to_wasm())
    }
    /// Whether the two types are the same.
    #[allow(clippy::should_implement_trait)]
    pub fn eq(a: &RefType, b: &RefType) -> bool {
        a == b
    }
    pub(crate) fn from_wasm(r: WasmRefType) -> Self {
        RefType {
            nullable: r.nullable,
            heap_type: HeapType::from_wasm(r.heap_type),
        }
    }
    pub(crate) fn to_wasm(self) -> WasmRefType {
        WasmRefType {
            nullable: self.nullable,
            heap_type: self.heap_type.to_wasm(),
        }
    }
}

impl fmt::Display for RefType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_wasm().fmt(f)
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
    #[allow(clippy::should_implement_trait)]
    pub fn eq(a: &ValType, b: &ValType) -> bool {
        a == b
    }
    pub(crate) fn from_wasm(t: WasmValType) -> Self {
        match t {
            WasmValType::I32 => ValType::I32,
            WasmValType::I64 => ValType::I64,
            WasmValType::F32 => ValType::F32,
            WasmValType::F64 => ValType::F64,
            WasmValType::V128 => ValType::V128,
            WasmValType::Ref(r) => ValType::Ref(RefType::from_wasm(r)),
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

/// A function type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FuncType {
    ty: WasmFuncType,
}

impl FuncType {
    /// A function type with the given parameters and results. The engine is
    /// taken for compatibility with Wasmtime; function types are engine-free
    /// values in Weft and are registered when used.
    pub fn new(
        _engine: &Engine,
        params: impl IntoIterator<Item = ValType>,
        results: impl IntoIterator<Item = ValType>,
    ) -> FuncType {
        let params: Vec<_> = params.into_iter().map(|t| t.to_wasm()).collect();
        let results: Vec<_> = results.into_iter().map(|t| t.to_wasm()).collect();
        FuncType {
            ty: WasmFuncType::new(params, results),
        }
    }
    /// The parameter types.
    pub fn params(&self) -> impl ExactSizeIterator<Item = ValType> + '_ {
        self.ty.params.iter().map(|t| ValType::from_wasm(*t))
    }
    /// The result types.
    pub fn results(&self) -> impl ExactSizeIterator<Item = ValType> + '_ {
        self.ty.results.iter().map(|t| ValType::from_wasm(*t))
    }
    /// The `i`th parameter type.
    pub fn param(&self, i: usize) -> Option<ValType> {
        self.ty.params.get(i).map(|t| ValType::from_wasm(*t))
    }
    /// The `i`th result type.
    pub fn result(&self, i: usize) -> Option<ValType> {
        self.ty.results.get(i).map(|t| ValType::from_wasm(*t))
    }
    /// Whether a function of type `self` may be used where `other` is
    /// expected.
    pub fn matches(&self, other: &FuncType) -> bool {
        self.ty == other.ty
    }
    /// Whether the two types are the same.
    #[allow(clippy::should_implement_trait)]
    pub fn eq(a: &FuncType, b: &FuncType) -> bool {
        a.ty == b.ty
    }
    pub(crate) fn from_wasm(ty: WasmFuncType) -> Self {
        FuncType { ty }
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
    pub(crate) fn from_wasm(g: &weft_environ::Global) -> Self {
        GlobalType {
            content: ValType::from_wasm(g.ty),
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
    pub(crate) fn from_wasm(t: &weft_environ::Table) -> Self {
        TableType {
            element: RefType::from_wasm(t.element),
            minimum: t.minimum,
            maximum: t.maximum,
            table64: t.table64,
        }
    }
}

impl fmt::Display for TableType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(table {}", self.minimum)?;
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
}

impl MemoryType {
    /// A 32-bit memory with the given limits in pages.
    pub fn new(minimum: u32, maximum: Option<u32>) -> MemoryType {
        MemoryType {
            minimum: minimum.into(),
            maximum: maximum.map(Into::into),
            memory64: false,
            shared: false,
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
    /// The size of a page in bytes.
    pub fn page_size(&self) -> u64 {
        weft_environ::WASM_PAGE_SIZE
    }
    pub(crate) fn from_wasm(m: &weft_environ::Memory) -> Self {
        MemoryType {
            minimum: m.minimum,
            maximum: m.maximum,
            memory64: m.memory64,
            shared: m.shared,
        }
    }
}

impl fmt::Display for MemoryType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(memory {}", self.minimum)?;
        if let Some(m) = self.maximum {
            write!(f, " {m}")?;
        }
        f.write_str(")")
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
}

impl ExternType {
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
    pub(crate) fn from_entity(module: &weft_environ::Module, ty: &weft_environ::EntityType) -> Self {
        match ty {
            weft_environ::EntityType::Function(i) => {
                ExternType::Func(FuncType::from_wasm(module.types[*i as usize].clone()))
            }
            weft_environ::EntityType::Table(t) => ExternType::Table(TableType::from_wasm(t)),
            weft_environ::EntityType::Memory(m) => ExternType::Memory(MemoryType::from_wasm(m)),
            weft_environ::EntityType::Global(g) => ExternType::Global(GlobalType::from_wasm(g)),
        }
    }
    pub(crate) fn desc(&self) -> &'static str {
        match self {
            ExternType::Func(_) => "function",
            ExternType::Global(_) => "global",
            ExternType::Table(_) => "table",
            ExternType::Memory(_) => "memory",
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
