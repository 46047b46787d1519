//! The component type registry: every component type of one translation,
//! hash-consed so that structurally equal types share an index.
//!
//! Value types that carry no structure of their own (`bool`, `u32`,
//! `string`, `own<R>`, ...) are an [`InterfaceType`] directly; every other
//! type lives in one table of [`ComponentTypes`] and is named by a typed
//! index. Interning happens bottom up (a type only names types interned
//! before it), so two types are equal exactly when their indices are equal,
//! and a type check between types of the same registry is an index compare.
//!
//! Resource types are the exception to structural equality: each has an
//! identity, given by [`ResourceType`]. A resource that the root component
//! imports is [`ResourceType::Imported`]; a resource that a component defines
//! (`(type (resource ...))`) is [`ResourceType::Defined`], one per definition
//! *per instantiation* of the defining component inside the plan, and fresh
//! for each instantiation of the root at run time; a resource declared inside
//! a type (`(export "r" (type (sub resource)))` in an instance or component
//! type) is [`ResourceType::Abstract`], a variable bound by that type.

use super::layout::{DefinedAbi, FlatType, ValueAbi};
use crate::{Global, Memory, Table, WasmFuncType};
use std::collections::HashMap;
use std::hash::Hash;

macro_rules! indices {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        pub struct $name(pub u32);
    )*};
}

indices! {
    /// A defined value type (record, variant, list, ...) in [`ComponentTypes`].
    TypeDefinedIndex;
    /// A component function type in [`ComponentTypes`].
    TypeFuncIndex;
    /// A component instance type in [`ComponentTypes`].
    TypeInstanceIndex;
    /// A component type in [`ComponentTypes`].
    TypeComponentIndex;
    /// A core module type in [`ComponentTypes`].
    TypeModuleIndex;
    /// A resource type (an identity) in [`ComponentTypes`].
    TypeResourceIndex;
    /// A resource defined by a component of the plan: the runtime makes a
    /// fresh resource type for each one at each instantiation of the root.
    DefinedResourceIndex;
    /// A resource reached through the imports of the root component, found
    /// at [`crate::component::Component::imported_resources`].
    ImportedResourceIndex;
    /// A resource variable bound by an instance or component type.
    AbstractResourceIndex;
}

/// A component value type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum InterfaceType {
    /// `bool`.
    Bool,
    /// `s8`.
    S8,
    /// `u8`.
    U8,
    /// `s16`.
    S16,
    /// `u16`.
    U16,
    /// `s32`.
    S32,
    /// `u32`.
    U32,
    /// `s64`.
    S64,
    /// `u64`.
    U64,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `char`: a Unicode scalar value.
    Char,
    /// `string`.
    String,
    /// `error-context`.
    ErrorContext,
    /// A record, variant, list, tuple, flags, enum, option or result.
    Defined(TypeDefinedIndex),
    /// `own<R>`: an owned handle to a resource.
    Own(TypeResourceIndex),
    /// `borrow<R>`: a borrowed handle to a resource.
    Borrow(TypeResourceIndex),
}

/// A named field of a record.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Field {
    /// The field's label.
    pub name: String,
    /// The field's type.
    pub ty: InterfaceType,
}

/// A case of a variant.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Case {
    /// The case's label.
    pub name: String,
    /// The payload type, if the case carries one.
    pub ty: Option<InterfaceType>,
}

/// A value type with structure, interned in [`ComponentTypes`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum DefinedType {
    /// `record`: named fields, in order.
    Record(Box<[Field]>),
    /// `variant`: named cases, in order.
    Variant(Box<[Case]>),
    /// `list<T>`.
    List(InterfaceType),
    /// `list<T, N>`: a list of exactly `N` elements.
    FixedLengthList(InterfaceType, u32),
    /// `tuple<...>`.
    Tuple(Box<[InterfaceType]>),
    /// `map<K, V>`: the key and value types. Its canonical ABI is that of
    /// `list<tuple<K, V>>`; interning a map also interns that tuple (see
    /// [`ComponentTypes::map_entry`]).
    Map(InterfaceType, InterfaceType),
    /// `flags`: named bits.
    Flags(Box<[String]>),
    /// `enum`: named cases without payloads.
    Enum(Box<[String]>),
    /// `option<T>`.
    Option(InterfaceType),
    /// `result<T, E>`, either side possibly absent.
    Result {
        /// The payload of `ok`.
        ok: Option<InterfaceType>,
        /// The payload of `error`.
        err: Option<InterfaceType>,
    },
    /// `stream<T>` (or `stream` without elements): a handle to a stream
    /// end, an `i32` in the canonical ABI.
    Stream(Option<InterfaceType>),
    /// `future<T>` (or `future` without a value): a handle to a future
    /// end, an `i32` in the canonical ABI.
    Future(Option<InterfaceType>),
}

impl DefinedType {
    /// Whether `f` holds for a value type this type names directly.
    pub fn any_type(&self, mut f: impl FnMut(InterfaceType) -> bool) -> bool {
        match self {
            DefinedType::Record(fields) => fields.iter().any(|field| f(field.ty)),
            DefinedType::Variant(cases) => cases.iter().filter_map(|c| c.ty).any(f),
            DefinedType::Tuple(ts) => ts.iter().copied().any(f),
            DefinedType::List(t) | DefinedType::FixedLengthList(t, _) | DefinedType::Option(t) => f(*t),
            DefinedType::Map(k, v) => f(*k) || f(*v),
            DefinedType::Result { ok, err } => ok.is_some_and(&mut f) || err.is_some_and(f),
            DefinedType::Stream(t) | DefinedType::Future(t) => t.is_some_and(f),
            DefinedType::Flags(_) | DefinedType::Enum(_) => false,
        }
    }

    /// This type with `f` applied to each value type it names directly.
    pub fn map_types(&self, f: &mut impl FnMut(InterfaceType) -> InterfaceType) -> DefinedType {
        match self {
            DefinedType::Record(fields) => DefinedType::Record(
                fields
                    .iter()
                    .map(|field| Field {
                        name: field.name.clone(),
                        ty: f(field.ty),
                    })
                    .collect(),
            ),
            DefinedType::Variant(cases) => DefinedType::Variant(
                cases
                    .iter()
                    .map(|c| Case {
                        name: c.name.clone(),
                        ty: c.ty.map(&mut *f),
                    })
                    .collect(),
            ),
            DefinedType::List(t) => DefinedType::List(f(*t)),
            DefinedType::FixedLengthList(t, n) => DefinedType::FixedLengthList(f(*t), *n),
            DefinedType::Tuple(ts) => DefinedType::Tuple(ts.iter().map(|t| f(*t)).collect()),
            DefinedType::Map(k, v) => DefinedType::Map(f(*k), f(*v)),
            DefinedType::Option(t) => DefinedType::Option(f(*t)),
            DefinedType::Result { ok, err } => DefinedType::Result {
                ok: ok.map(&mut *f),
                err: err.map(&mut *f),
            },
            DefinedType::Stream(t) => DefinedType::Stream(t.map(&mut *f)),
            DefinedType::Future(t) => DefinedType::Future(t.map(&mut *f)),
            flags_or_enum @ (DefinedType::Flags(_) | DefinedType::Enum(_)) => flags_or_enum.clone(),
        }
    }
}

/// A component function type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FuncType {
    /// Whether the function is `async`.
    pub is_async: bool,
    /// Named parameters, in order.
    pub params: Box<[(String, InterfaceType)]>,
    /// The result, if any.
    pub result: Option<InterfaceType>,
}

impl FuncType {
    /// The parameter types, in order.
    pub fn param_types(&self) -> impl ExactSizeIterator<Item = InterfaceType> + Clone + '_ {
        self.params.iter().map(|(_, t)| *t)
    }
}

/// What a type index of a component denotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum AnyType {
    /// A value type.
    Value(InterfaceType),
    /// A function type.
    Func(TypeFuncIndex),
    /// An instance type.
    Instance(TypeInstanceIndex),
    /// A component type.
    Component(TypeComponentIndex),
    /// A resource type.
    Resource(TypeResourceIndex),
}

/// The type of an import or export of a component or instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ItemType {
    /// A core module.
    Module(TypeModuleIndex),
    /// A function.
    Func(TypeFuncIndex),
    /// A value (`cm_values`; never produced by translation, which rejects
    /// values).
    Value(InterfaceType),
    /// A type.
    Type(AnyType),
    /// An instance.
    Instance(TypeInstanceIndex),
    /// A component.
    Component(TypeComponentIndex),
}

/// An instance type: its exports, in declaration order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
pub struct InstanceType {
    /// Exports by name, in order.
    pub exports: Box<[(String, ItemType)]>,
}

impl InstanceType {
    /// The type of the export called `name`.
    pub fn export(&self, name: &str) -> Option<ItemType> {
        self.exports.iter().find(|(n, _)| n == name).map(|(_, t)| *t)
    }
}

/// A component type: its imports and exports, in declaration order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
pub struct ComponentType {
    /// Imports by name, in order.
    pub imports: Box<[(String, ItemType)]>,
    /// Exports by name, in order.
    pub exports: Box<[(String, ItemType)]>,
}

/// The type of a core item, as found in a core module type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum CoreItemType {
    /// A function.
    Func(WasmFuncType),
    /// A table.
    Table(Table),
    /// A memory.
    Memory(Memory),
    /// A global.
    Global(Global),
    /// An exception tag of the given function type.
    Tag(WasmFuncType),
}

/// A core module type: imports and exports, in order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
pub struct ModuleType {
    /// Imports as (module, name, type).
    pub imports: Box<[(String, String, CoreItemType)]>,
    /// Exports as (name, type).
    pub exports: Box<[(String, CoreItemType)]>,
}

impl ModuleType {
    /// The type of a translated core module: its imports and exports, in
    /// order, each with the type of what it names.
    pub fn of_module(module: &crate::module::Module) -> ModuleType {
        let item = |index: crate::module::EntityIndex| {
            use crate::module::EntityType as E;
            match module.entity_type(index) {
                E::Function(t) => CoreItemType::Func(module.types[t as usize].clone()),
                E::Table(t) => CoreItemType::Table(t),
                E::Memory(m) => CoreItemType::Memory(m),
                E::Global(g) => CoreItemType::Global(g),
                E::Tag(t) => CoreItemType::Tag(module.types[t as usize].clone()),
            }
        };
        ModuleType {
            imports: module
                .imports
                .iter()
                .map(|i| (i.module.clone(), i.field.clone(), item(i.index)))
                .collect(),
            exports: module.exports.iter().map(|e| (e.name.clone(), item(e.index))).collect(),
        }
    }
}

/// The identity of a resource type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ResourceType {
    /// A resource that reaches the root component through its imports.
    Imported(ImportedResourceIndex),
    /// A resource defined by a component of the plan (its
    /// [`crate::component::Step::DefineResource`]).
    Defined(DefinedResourceIndex),
    /// A resource variable of an instance or component type. Each
    /// declaration of a resource inside a type gets its own variable, so two
    /// separately declared types that bind resources are not merged.
    Abstract(AbstractResourceIndex),
}

/// A table of interned values: equal values get the same index.
#[derive(Debug, Clone)]
struct Interner<T> {
    items: Vec<T>,
    map: HashMap<T, u32>,
}

impl<T> Default for Interner<T> {
    fn default() -> Self {
        Interner {
            items: Vec::new(),
            map: HashMap::new(),
        }
    }
}

/// Only the items are written: the map is made again when read.
impl<T: serde::Serialize> serde::Serialize for Interner<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.items.serialize(serializer)
    }
}

impl<'de, T: serde::Deserialize<'de> + Clone + Eq + Hash> serde::Deserialize<'de> for Interner<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let items = Vec::<T>::deserialize(deserializer)?;
        let map = items.iter().enumerate().map(|(i, t)| (t.clone(), i as u32)).collect();
        Ok(Interner { items, map })
    }
}

impl<T: Clone + Eq + Hash> Interner<T> {
    fn intern(&mut self, item: T) -> u32 {
        if let Some(&i) = self.map.get(&item) {
            return i;
        }
        let i = self.items.len() as u32;
        self.items.push(item.clone());
        self.map.insert(item, i);
        i
    }

    fn get(&self, i: u32) -> Option<&T> {
        self.items.get(i as usize)
    }
}

/// The defined value types of a registry, with the canonical-ABI facts of
/// each, worked out as it is interned from the facts of its parts (which are
/// interned before it, having indices below its own). Only the types are
/// written; the facts are worked out again when they are read.
#[derive(Debug, Clone, Default)]
struct DefinedTable {
    types: Interner<DefinedType>,
    abi: Vec<DefinedAbi>,
}

impl serde::Serialize for DefinedTable {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.types.serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for DefinedTable {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut table = DefinedTable {
            types: Interner::deserialize(deserializer)?,
            abi: Vec::new(),
        };
        table.complete_abi();
        Ok(table)
    }
}

impl DefinedTable {
    fn intern(&mut self, ty: DefinedType) -> u32 {
        let index = self.types.intern(ty);
        self.complete_abi();
        index
    }

    /// Works out the facts of the types that have none yet, in order.
    fn complete_abi(&mut self) {
        while let Some(def) = self.types.items.get(self.abi.len()) {
            let abi = self.compute_abi(def);
            self.abi.push(abi);
        }
    }

    fn value_abi(&self, ty: InterfaceType) -> ValueAbi {
        use InterfaceType as T;
        match ty {
            T::Bool | T::S8 | T::U8 => ValueAbi::scalar(1, FlatType::I32),
            T::S16 | T::U16 => ValueAbi::scalar(2, FlatType::I32),
            T::S32 | T::U32 | T::Char | T::ErrorContext | T::Own(_) | T::Borrow(_) => {
                ValueAbi::scalar(4, FlatType::I32)
            }
            T::F32 => ValueAbi::scalar(4, FlatType::F32),
            T::S64 | T::U64 => ValueAbi::scalar(8, FlatType::I64),
            T::F64 => ValueAbi::scalar(8, FlatType::F64),
            T::String => ValueAbi::pointer_pair(),
            // A part not worked out yet (only in a corrupt registry, where a
            // type names a later one) counts as an empty record.
            T::Defined(d) => self.abi.get(d.0 as usize).map_or(ValueAbi::EMPTY, |a| a.value),
        }
    }

    /// The facts of `def` (`despecialize`d as [`crate::component::abi::despecialize`]
    /// does), from those of its parts.
    fn compute_abi(&self, def: &DefinedType) -> DefinedAbi {
        let record = |fields: &mut dyn Iterator<Item = InterfaceType>| {
            let fields: Vec<ValueAbi> = fields.map(|t| self.value_abi(t)).collect();
            let (value, field_offsets) = ValueAbi::record(&fields);
            DefinedAbi::record(value, field_offsets)
        };
        let variant = |cases: &mut dyn Iterator<Item = Option<InterfaceType>>| {
            let cases: Vec<Option<ValueAbi>> = cases.map(|t| t.map(|t| self.value_abi(t))).collect();
            let (value, payload_offset) = ValueAbi::variant(&cases);
            DefinedAbi::variant(value, payload_offset)
        };
        match def {
            DefinedType::Record(fields) => record(&mut fields.iter().map(|f| f.ty)),
            DefinedType::Tuple(tys) => record(&mut tys.iter().copied()),
            DefinedType::Variant(cases) => variant(&mut cases.iter().map(|c| c.ty)),
            DefinedType::Enum(labels) => variant(&mut std::iter::repeat_n(None, labels.len())),
            DefinedType::Option(t) => variant(&mut [None, Some(*t)].into_iter()),
            DefinedType::Result { ok, err } => variant(&mut [*ok, *err].into_iter()),
            DefinedType::List(_) | DefinedType::Map(..) => DefinedAbi::plain(ValueAbi::pointer_pair()),
            DefinedType::FixedLengthList(t, n) => DefinedAbi::plain(ValueAbi::fixed_list(&self.value_abi(*t), *n)),
            DefinedType::Flags(labels) => DefinedAbi::plain(ValueAbi::flags(labels.len())),
            DefinedType::Stream(_) | DefinedType::Future(_) => DefinedAbi::plain(ValueAbi::scalar(4, FlatType::I32)),
        }
    }
}

/// The registry of the component types of one translation.
///
/// Lookups take an index and return `None` for an index of another
/// registry that is out of range here; indices produced by this registry
/// are always valid in it.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct ComponentTypes {
    defined: DefinedTable,
    funcs: Interner<FuncType>,
    instances: Interner<InstanceType>,
    components: Interner<ComponentType>,
    modules: Interner<ModuleType>,
    resources: Interner<ResourceType>,
    next_abstract: u32,
}

macro_rules! table {
    ($intern:ident, $get:ident, $field:ident, $ty:ty, $index:ident, $what:literal) => {
        #[doc = concat!("Interns ", $what, " and returns its index.")]
        pub fn $intern(&mut self, ty: $ty) -> $index {
            $index(self.$field.intern(ty))
        }

        #[doc = concat!("The ", $what, " at `index`.")]
        pub fn $get(&self, index: $index) -> Option<&$ty> {
            self.$field.get(index.0)
        }
    };
}

impl ComponentTypes {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Interns a defined value type and returns its index. Interning a
    /// `map<K, V>` first interns its entry type `tuple<K, V>`, so that
    /// [`ComponentTypes::map_entry`] finds it.
    pub fn intern_defined(&mut self, ty: DefinedType) -> TypeDefinedIndex {
        if let DefinedType::Map(k, v) = ty {
            self.defined.intern(DefinedType::Tuple(Box::new([k, v])));
        }
        TypeDefinedIndex(self.defined.intern(ty))
    }

    /// The canonical-ABI facts of values of `ty` (layout and flat types),
    /// worked out when its type was interned. A type index that is not in
    /// the registry has the facts of an empty record.
    pub fn value_abi(&self, ty: InterfaceType) -> ValueAbi {
        self.defined.value_abi(ty)
    }

    /// The canonical-ABI facts of the defined type at `index`, with the
    /// offsets of its fields or payload.
    pub fn defined_abi(&self, index: TypeDefinedIndex) -> Option<&DefinedAbi> {
        self.defined.abi.get(index.0 as usize)
    }

    /// Whether values of `ty` hold a stream, a future or an error context
    /// (CanonicalABI.md's `contains_async_value`).
    pub fn contains_async_value(&self, ty: InterfaceType) -> bool {
        match ty {
            InterfaceType::ErrorContext => true,
            InterfaceType::Defined(d) => match self.defined(d) {
                Some(DefinedType::Stream(_) | DefinedType::Future(_)) => true,
                Some(def) => def.any_type(|t| self.contains_async_value(t)),
                None => false,
            },
            _ => false,
        }
    }

    /// The defined value type at `index`.
    pub fn defined(&self, index: TypeDefinedIndex) -> Option<&DefinedType> {
        self.defined.types.get(index.0)
    }

    /// The entry type `tuple<K, V>` of the map type `map<K, V>`: the element
    /// type of the `list<tuple<K, V>>` a map despecializes to. `None` if the
    /// tuple is not in this registry, which cannot happen for a map interned
    /// here.
    pub fn map_entry(&self, key: InterfaceType, value: InterfaceType) -> Option<InterfaceType> {
        let tuple = DefinedType::Tuple(Box::new([key, value]));
        self.defined
            .types
            .map
            .get(&tuple)
            .map(|i| InterfaceType::Defined(TypeDefinedIndex(*i)))
    }
    table!(intern_func, func, funcs, FuncType, TypeFuncIndex, "a function type");
    table!(
        intern_instance,
        instance,
        instances,
        InstanceType,
        TypeInstanceIndex,
        "an instance type"
    );
    table!(
        intern_component,
        component,
        components,
        ComponentType,
        TypeComponentIndex,
        "a component type"
    );
    table!(
        intern_module,
        module,
        modules,
        ModuleType,
        TypeModuleIndex,
        "a core module type"
    );
    table!(
        intern_resource,
        resource,
        resources,
        ResourceType,
        TypeResourceIndex,
        "a resource identity"
    );

    /// A new resource variable, distinct from every other one.
    pub fn fresh_abstract_resource(&mut self) -> TypeResourceIndex {
        let index = AbstractResourceIndex(self.next_abstract);
        self.next_abstract += 1;
        self.intern_resource(ResourceType::Abstract(index))
    }

    /// The number of defined value types, function, instance, component,
    /// module and resource types, in that order.
    pub fn counts(&self) -> [usize; 6] {
        [
            self.defined.types.items.len(),
            self.funcs.items.len(),
            self.instances.items.len(),
            self.components.items.len(),
            self.modules.items.len(),
            self.resources.items.len(),
        ]
    }

    /// `ty` with every resource of `map` replaced by its image, re-interned.
    /// Used to give the resources an imported instance type declares the
    /// identities of the import.
    pub fn substitute_any(&mut self, ty: AnyType, map: &HashMap<TypeResourceIndex, TypeResourceIndex>) -> AnyType {
        match ty {
            AnyType::Value(t) => AnyType::Value(self.substitute_value(t, map)),
            AnyType::Func(f) => AnyType::Func(self.substitute_func(f, map)),
            AnyType::Instance(i) => AnyType::Instance(self.substitute_instance(i, map)),
            AnyType::Component(c) => AnyType::Component(self.substitute_component(c, map)),
            AnyType::Resource(r) => AnyType::Resource(map.get(&r).copied().unwrap_or(r)),
        }
    }

    fn substitute_item(&mut self, ty: ItemType, map: &HashMap<TypeResourceIndex, TypeResourceIndex>) -> ItemType {
        match ty {
            ItemType::Module(m) => ItemType::Module(m),
            ItemType::Func(f) => ItemType::Func(self.substitute_func(f, map)),
            ItemType::Value(v) => ItemType::Value(self.substitute_value(v, map)),
            ItemType::Type(t) => ItemType::Type(self.substitute_any(t, map)),
            ItemType::Instance(i) => ItemType::Instance(self.substitute_instance(i, map)),
            ItemType::Component(c) => ItemType::Component(self.substitute_component(c, map)),
        }
    }

    /// `ty` with every resource of `map` replaced by its image.
    pub fn substitute_value(
        &mut self,
        ty: InterfaceType,
        map: &HashMap<TypeResourceIndex, TypeResourceIndex>,
    ) -> InterfaceType {
        let sub = |t: InterfaceType, me: &mut Self| me.substitute_value(t, map);
        match ty {
            InterfaceType::Own(r) => InterfaceType::Own(map.get(&r).copied().unwrap_or(r)),
            InterfaceType::Borrow(r) => InterfaceType::Borrow(map.get(&r).copied().unwrap_or(r)),
            InterfaceType::Defined(d) => {
                let Some(def) = self.defined(d).cloned() else { return ty };
                let def = def.map_types(&mut |t| sub(t, self));
                InterfaceType::Defined(self.intern_defined(def))
            }
            primitive => primitive,
        }
    }

    /// `ty` with every resource of `map` replaced by its image.
    pub fn substitute_func(
        &mut self,
        ty: TypeFuncIndex,
        map: &HashMap<TypeResourceIndex, TypeResourceIndex>,
    ) -> TypeFuncIndex {
        let Some(f) = self.func(ty).cloned() else { return ty };
        let f = FuncType {
            is_async: f.is_async,
            params: f
                .params
                .iter()
                .map(|(n, t)| (n.clone(), self.substitute_value(*t, map)))
                .collect(),
            result: f.result.map(|t| self.substitute_value(t, map)),
        };
        self.intern_func(f)
    }

    fn substitute_items(
        &mut self,
        items: &[(String, ItemType)],
        map: &HashMap<TypeResourceIndex, TypeResourceIndex>,
    ) -> Box<[(String, ItemType)]> {
        items
            .iter()
            .map(|(n, t)| (n.clone(), self.substitute_item(*t, map)))
            .collect()
    }

    /// `ty` with every resource of `map` replaced by its image.
    pub fn substitute_instance(
        &mut self,
        ty: TypeInstanceIndex,
        map: &HashMap<TypeResourceIndex, TypeResourceIndex>,
    ) -> TypeInstanceIndex {
        let Some(i) = self.instance(ty).cloned() else { return ty };
        let exports = self.substitute_items(&i.exports, map);
        self.intern_instance(InstanceType { exports })
    }

    /// `ty` with every resource of `map` replaced by its image.
    pub fn substitute_component(
        &mut self,
        ty: TypeComponentIndex,
        map: &HashMap<TypeResourceIndex, TypeResourceIndex>,
    ) -> TypeComponentIndex {
        let Some(c) = self.component(ty).cloned() else {
            return ty;
        };
        let imports = self.substitute_items(&c.imports, map);
        let exports = self.substitute_items(&c.exports, map);
        self.intern_component(ComponentType { imports, exports })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structurally_equal_types_share_an_index() {
        let mut types = ComponentTypes::new();
        let record = |ty| DefinedType::Record([Field { name: "a".into(), ty }].into());
        let a = types.intern_defined(record(InterfaceType::U32));
        let b = types.intern_defined(record(InterfaceType::U32));
        let c = types.intern_defined(record(InterfaceType::U64));
        assert_eq!(a, b);
        assert_ne!(a, c);
        let r1 = types.fresh_abstract_resource();
        let r2 = types.fresh_abstract_resource();
        assert_ne!(r1, r2);
        let d1 = types.intern_resource(ResourceType::Defined(DefinedResourceIndex(0)));
        assert_eq!(
            d1,
            types.intern_resource(ResourceType::Defined(DefinedResourceIndex(0)))
        );
    }

    #[test]
    fn substitution_reinterns() {
        let mut types = ComponentTypes::new();
        let abs = types.fresh_abstract_resource();
        let imp = types.intern_resource(ResourceType::Imported(ImportedResourceIndex(0)));
        let list = types.intern_defined(DefinedType::List(InterfaceType::Own(abs)));
        let f = types.intern_func(FuncType {
            is_async: false,
            params: [("x".to_string(), InterfaceType::Defined(list))].into(),
            result: Some(InterfaceType::Borrow(abs)),
        });
        let map = HashMap::from([(abs, imp)]);
        let g = types.substitute_func(f, &map);
        assert_ne!(f, g);
        let expected_list = types.intern_defined(DefinedType::List(InterfaceType::Own(imp)));
        let expected = types.intern_func(FuncType {
            is_async: false,
            params: [("x".to_string(), InterfaceType::Defined(expected_list))].into(),
            result: Some(InterfaceType::Borrow(imp)),
        });
        assert_eq!(g, expected);
    }

    #[test]
    fn substituting_a_map_interns_its_entry() {
        let mut types = ComponentTypes::new();
        let abs = types.fresh_abstract_resource();
        let imp = types.intern_resource(ResourceType::Imported(ImportedResourceIndex(0)));
        let map = types.intern_defined(DefinedType::Map(InterfaceType::String, InterfaceType::Own(abs)));
        let sub = types.substitute_value(InterfaceType::Defined(map), &HashMap::from([(abs, imp)]));
        let InterfaceType::Defined(sub) = sub else {
            panic!("{sub:?}")
        };
        assert_eq!(
            types.defined(sub),
            Some(&DefinedType::Map(InterfaceType::String, InterfaceType::Own(imp)))
        );
        assert!(types
            .map_entry(InterfaceType::String, InterfaceType::Own(imp))
            .is_some());
    }
}
