//! The translated form of a module: everything but the function bodies.

use crate::gc_types::*;
use crate::types::*;

/// An index into one of a module's index spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum EntityIndex {
    /// A function index (imports first).
    Function(u32),
    /// A table index (imports first).
    Table(u32),
    /// A memory index (imports first).
    Memory(u32),
    /// A global index (imports first).
    Global(u32),
    /// A tag index (imports first).
    Tag(u32),
}

/// The type of something imported or exported.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum EntityType {
    /// A function of the given module type index.
    Function(u32),
    /// A table.
    Table(Table),
    /// A memory.
    Memory(Memory),
    /// A global.
    Global(Global),
    /// A tag whose parameters are those of the given module function type
    /// index (its results are empty).
    Tag(u32),
}

/// One import of a module.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Import {
    /// The module name of the import.
    pub module: String,
    /// The field name of the import.
    pub field: String,
    /// Where the import lands in the module's index spaces.
    pub index: EntityIndex,
}

/// One export of a module.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Export {
    /// The export's name.
    pub name: String,
    /// What is exported.
    pub index: EntityIndex,
}

/// One instruction of a constant expression.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ConstOp {
    /// `i32.const`.
    I32Const(i32),
    /// `i64.const`.
    I64Const(i64),
    /// `f32.const` (bits).
    F32Const(u32),
    /// `f64.const` (bits).
    F64Const(u64),
    /// `v128.const`.
    V128Const(u128),
    /// `global.get`.
    GlobalGet(u32),
    /// `ref.null` of the given heap type.
    RefNull(WasmHeapType),
    /// `ref.func`.
    RefFunc(u32),
    /// `i32.add`.
    I32Add,
    /// `i32.sub`.
    I32Sub,
    /// `i32.mul`.
    I32Mul,
    /// `i64.add`.
    I64Add,
    /// `i64.sub`.
    I64Sub,
    /// `i64.mul`.
    I64Mul,
    /// `ref.i31` (the GC proposal).
    RefI31,
    /// `struct.new` of a module type.
    StructNew(u32),
    /// `struct.new_default` of a module type.
    StructNewDefault(u32),
    /// `struct.new_desc` of a module type (custom descriptors): the fields,
    /// then the descriptor.
    StructNewDesc(u32),
    /// `struct.new_default_desc` of a module type (custom descriptors).
    StructNewDefaultDesc(u32),
    /// `array.new` of a module type.
    ArrayNew(u32),
    /// `array.new_default` of a module type.
    ArrayNewDefault(u32),
    /// `array.new_fixed` of a module type, with its number of elements.
    ArrayNewFixed(u32, u32),
    /// `any.convert_extern`.
    AnyConvertExtern,
    /// `extern.convert_any`.
    ExternConvertAny,
}

/// A constant expression, evaluated at instantiation.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ConstExpr {
    /// The instructions, in order, without the final `end`.
    pub ops: Vec<ConstOp>,
}

/// Where a data segment goes.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum DataKind {
    /// Copied into a memory at instantiation.
    Active {
        /// The memory index.
        memory: u32,
        /// The offset expression.
        offset: ConstExpr,
    },
    /// Used by `memory.init`.
    Passive,
}

/// A data segment: its bytes, and where an active one is copied.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DataSegment {
    /// Active or passive.
    pub kind: DataKind,
    /// The bytes.
    #[cfg_attr(feature = "serde", serde(with = "byte_string"))]
    pub data: Box<[u8]>,
}

/// Where an element segment goes.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ElemKind {
    /// Copied into a table at instantiation.
    Active {
        /// The table index.
        table: u32,
        /// The offset expression.
        offset: ConstExpr,
    },
    /// Used by `table.init`.
    Passive,
    /// Only declares functions for `ref.func`; dropped at instantiation.
    Declared,
}

/// The items of an element segment.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ElemItems {
    /// Function indices.
    Functions(Vec<u32>),
    /// Constant expressions.
    Expressions(Vec<ConstExpr>),
}

impl ElemItems {
    /// The number of items.
    pub fn len(&self) -> usize {
        match self {
            ElemItems::Functions(f) => f.len(),
            ElemItems::Expressions(e) => e.len(),
        }
    }

    /// Whether there are no items.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An element segment.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ElemSegment {
    /// Active, passive or declared.
    pub kind: ElemKind,
    /// The type of the elements.
    pub ty: WasmRefType,
    /// The elements.
    pub items: ElemItems,
}

/// The function names of a module's name section, by function index. One
/// string holds every name, so that a module of thousands of named functions
/// holds two allocations rather than one per name (and reads back from
/// precompiled bytes as fast).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FuncNames {
    /// Every name, one after another.
    text: String,
    /// `(function index, end of its name in text)`, sorted by index, each
    /// index once; a name starts where the one before it ends.
    ends: Vec<(u32, u32)>,
}

impl FuncNames {
    /// The name of function `index`, if it has one.
    pub fn get(&self, index: u32) -> Option<&str> {
        self.name_at(self.ends.binary_search_by_key(&index, |e| e.0).ok()?)
    }

    /// The name of the `at`th named function.
    fn name_at(&self, at: usize) -> Option<&str> {
        let start = if at == 0 { 0 } else { self.ends[at - 1].1 };
        // `get`, not indexing: names read back from precompiled bytes are
        // not trusted to end on character boundaries.
        self.text.get(start as usize..self.ends.get(at)?.1 as usize)
    }

    /// Names function `index` `name`, replacing any name it had.
    pub fn insert(&mut self, index: u32, name: &str) {
        if self.ends.last().is_none_or(|last| last.0 < index) {
            self.text.push_str(name);
            self.ends.push((index, self.text.len() as u32));
            return;
        }
        // Out of order (the name section lists functions in increasing
        // order, so only a malformed or repeated section gets here).
        let mut all: Vec<(u32, String)> = self.iter().map(|(i, n)| (i, n.to_string())).collect();
        match all.binary_search_by_key(&index, |e| e.0) {
            Ok(at) => all[at].1 = name.to_string(),
            Err(at) => all.insert(at, (index, name.to_string())),
        }
        *self = FuncNames::default();
        for (i, n) in &all {
            self.insert(*i, n);
        }
    }

    /// The number of named functions.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether no function is named.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Each named function's index and name, by increasing index.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &str)> + '_ {
        (0..self.ends.len()).filter_map(|at| Some((self.ends[at].0, self.name_at(at)?)))
    }
}

/// A translated module: all declarations, with function bodies kept apart
/// in [`crate::ModuleTranslation`].
#[derive(Debug, Clone, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Module {
    /// The module's name from the name section.
    pub name: Option<String>,
    /// Function types by module type index.
    pub types: Vec<WasmFuncType>,
    /// The explicit recursion groups of more than one type, as ranges of
    /// type indices; every other type is a group of its own. Weft supports
    /// groups of final function types without supertypes: such a type is
    /// distinct from every type outside its group, however alike.
    pub rec_groups: Vec<std::ops::Range<u32>>,
    /// Every type as the GC proposal declares it (a function type, or a
    /// struct or array type, with `final` and its supertype), by module type
    /// index. For a struct or array type, [`Module::types`] holds an empty
    /// function type that nothing reads (validation keeps function
    /// positions from naming other types).
    pub sub_types: Vec<WasmSubType>,
    /// Every recursion group, implicit ones (a single type) included, as
    /// ranges of type indices, in order.
    pub all_rec_groups: Vec<std::ops::Range<u32>>,
    /// Imports in order.
    pub imports: Vec<Import>,
    /// Exports in order.
    pub exports: Vec<Export>,
    /// The type index of each function (imports first).
    pub functions: Vec<u32>,
    /// Tables (imports first).
    pub tables: Vec<Table>,
    /// Initializer expressions of the defined tables (`None`: null).
    pub table_inits: Vec<Option<ConstExpr>>,
    /// Memories (imports first).
    pub memories: Vec<Memory>,
    /// Globals (imports first).
    pub globals: Vec<Global>,
    /// Initializer expressions of the defined globals.
    pub global_inits: Vec<ConstExpr>,
    /// Number of imported functions.
    pub num_imported_funcs: u32,
    /// The imported functions declared exact (`(func exact (type $t))`, the
    /// custom descriptors proposal), by function index in increasing order:
    /// their import must be of type `$t` itself, not of a subtype.
    pub exact_func_imports: Vec<u32>,
    /// Number of imported tables.
    pub num_imported_tables: u32,
    /// Number of imported memories.
    pub num_imported_memories: u32,
    /// Number of imported globals.
    pub num_imported_globals: u32,
    /// The function type index of each tag (imports first).
    pub tags: Vec<u32>,
    /// Number of imported tags.
    pub num_imported_tags: u32,
    /// Data segments.
    pub data: Vec<DataSegment>,
    /// Element segments.
    pub elems: Vec<ElemSegment>,
    /// The start function.
    pub start: Option<u32>,
    /// Function names from the name section.
    pub func_names: FuncNames,
}

impl Module {
    /// The number of functions defined (not imported) by the module.
    pub fn num_defined_funcs(&self) -> u32 {
        self.functions.len() as u32 - self.num_imported_funcs
    }

    /// The function type of function `index`.
    pub fn func_type(&self, index: u32) -> &WasmFuncType {
        &self.types[self.functions[index as usize] as usize]
    }

    /// Whether function `index` is imported.
    pub fn is_imported_func(&self, index: u32) -> bool {
        index < self.num_imported_funcs
    }

    /// Whether imported function `index` is declared exact: it matches a
    /// function of its type only, not one of a declared subtype.
    pub fn is_exact_func_import(&self, index: u32) -> bool {
        self.exact_func_imports.binary_search(&index).is_ok()
    }

    /// The type of an entity of this module.
    pub fn entity_type(&self, index: EntityIndex) -> EntityType {
        match index {
            EntityIndex::Function(i) => EntityType::Function(self.functions[i as usize]),
            EntityIndex::Table(i) => EntityType::Table(self.tables[i as usize]),
            EntityIndex::Memory(i) => EntityType::Memory(self.memories[i as usize]),
            EntityIndex::Global(i) => EntityType::Global(self.globals[i as usize]),
            EntityIndex::Tag(i) => EntityType::Tag(self.tags[i as usize]),
        }
    }

    /// The function type of tag `index`: the tag's parameters are the
    /// exception's payload.
    pub fn tag_type(&self, index: u32) -> &WasmFuncType {
        &self.types[self.tags[index as usize] as usize]
    }

    /// Whether the module uses exception handling: it declares or imports
    /// tags.
    pub fn uses_tags(&self) -> bool {
        !self.tags.is_empty()
    }

    /// Per module type: whether a defined function of that type may be
    /// called from the host, so that it needs a host-to-wasm trampoline.
    /// Those are the start function and the functions a reference can be
    /// made of: exported ones and those named in element segments and in
    /// the initializers of globals and tables (validation refuses a
    /// `ref.func` in code of any other function).
    pub fn host_callable_types(&self) -> Vec<bool> {
        let mut callable = vec![false; self.types.len()];
        let mut mark = |func: u32| {
            if func >= self.num_imported_funcs {
                if let Some(slot) = self
                    .functions
                    .get(func as usize)
                    .and_then(|ty| callable.get_mut(*ty as usize))
                {
                    *slot = true;
                }
            }
        };
        let mark_expr = |expr: &ConstExpr, mark: &mut dyn FnMut(u32)| {
            for op in &expr.ops {
                if let ConstOp::RefFunc(func) = op {
                    mark(*func);
                }
            }
        };
        if let Some(start) = self.start {
            mark(start);
        }
        for export in &self.exports {
            if let EntityIndex::Function(func) = export.index {
                mark(func);
            }
        }
        for elem in &self.elems {
            match &elem.items {
                ElemItems::Functions(funcs) => funcs.iter().for_each(|f| mark(*f)),
                ElemItems::Expressions(exprs) => exprs.iter().for_each(|e| mark_expr(e, &mut mark)),
            }
        }
        for expr in self.global_inits.iter().chain(self.table_inits.iter().flatten()) {
            mark_expr(expr, &mut mark);
        }
        callable
    }

    /// Whether the module declares a type that only the GC proposal can
    /// express: a struct or array type, a type that is not final, or one
    /// with a supertype.
    pub fn has_gc_types(&self) -> bool {
        self.sub_types.iter().any(|t| !t.is_plain_func())
    }

    /// The heap type with its concrete type index (which translation first
    /// reads as a function type) resolved to the kind of the type it names.
    pub fn resolve_heap_type(&self, heap: WasmHeapType) -> WasmHeapType {
        match heap {
            WasmHeapType::ConcreteFunc(EngineOrModuleTypeIndex::Module(i)) => {
                match self.sub_types.get(i as usize).map(|t| t.composite.kind()) {
                    Some(CompositeKind::Struct) => WasmHeapType::ConcreteStruct(EngineOrModuleTypeIndex::Module(i)),
                    Some(CompositeKind::Array) => WasmHeapType::ConcreteArray(EngineOrModuleTypeIndex::Module(i)),
                    _ => heap,
                }
            }
            other => other,
        }
    }

    /// Converts a reference type of an operator's immediate, its concrete
    /// type index resolved as [`Module::resolve_heap_type`] does.
    pub fn convert_ref_type(&self, ty: wasmparser::RefType) -> Result<WasmRefType, String> {
        let r = crate::types::convert_ref_type(ty)?;
        Ok(WasmRefType {
            nullable: r.nullable,
            heap_type: self.resolve_heap_type(r.heap_type),
            exact: r.exact,
        })
    }

    /// [`Module::resolve_heap_type`] for a value type.
    pub fn resolve_val_type(&self, ty: WasmValType) -> WasmValType {
        match ty {
            WasmValType::Ref(r) => WasmValType::Ref(WasmRefType {
                nullable: r.nullable,
                heap_type: self.resolve_heap_type(r.heap_type),
                exact: r.exact,
            }),
            other => other,
        }
    }

    /// The export called `name`.
    pub fn export(&self, name: &str) -> Option<EntityIndex> {
        self.exports.iter().find(|e| e.name == name).map(|e| e.index)
    }
}

/// Writes bytes as one byte string rather than a sequence of bytes (serde's
/// default for a slice), so that formats such as `postcard` read them back
/// with one copy instead of a call per byte.
#[cfg(feature = "serde")]
mod byte_string {
    use serde::de::{Deserializer, SeqAccess, Visitor};
    use serde::Serializer;

    pub(super) fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(bytes)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<[u8]>, D::Error> {
        struct Bytes;
        impl<'de> Visitor<'de> for Bytes {
            type Value = Box<[u8]>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Box<[u8]>, E> {
                Ok(v.into())
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Box<[u8]>, E> {
                Ok(v.into_boxed_slice())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Box<[u8]>, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
                while let Some(b) = seq.next_element()? {
                    out.push(b);
                }
                Ok(out.into_boxed_slice())
            }
        }
        d.deserialize_bytes(Bytes)
    }
}

#[cfg(test)]
mod tests {
    /// A type gets a host entry when a function of it is exported, the
    /// start function, in an element segment (by index or by expression)
    /// or in a global's initializer; not for imports or functions reached
    /// from wasm only.
    #[test]
    fn host_callable_types_follow_the_ways_a_function_escapes() {
        let wasm = wat::parse_str(
            r#"(module
                (type $import (func (param i64)))
                (type $export (func (result i32)))
                (type $start (func))
                (type $elem (func (param i32)))
                (type $expr (func (param f32)))
                (type $global (func (param f64)))
                (type $hidden (func (param i32 i32)))
                (type $unused (func (param i64 i64)))
                (import "m" "f" (func (type $import)))
                (func (export "e") (type $export) (i32.const 0))
                (func $start (type $start))
                (start $start)
                (func $elem (type $elem))
                (func $expr (type $expr))
                (func $global (type $global))
                (func $hidden (type $hidden))
                (table 1 funcref)
                (elem (i32.const 0) func $elem)
                (elem declare funcref (ref.func $expr))
                (global funcref (ref.func $global)))"#,
        )
        .unwrap();
        let translation = crate::translate_module(&wasm, crate::supported_features()).unwrap();
        assert_eq!(
            translation.module.host_callable_types(),
            [false, true, true, true, true, true, false, false]
        );
    }
}
