//! Component types as the API shows them: [`Type`] for value types,
//! [`ComponentFunc`] for function types, [`Component`] and
//! [`ComponentInstance`] for the imports and exports of components, as in
//! Wasmtime's `component::types`.
//!
//! Every type holds the registry of its component (shared, cheap to clone)
//! and an index into it. The engine registers each component's types in its
//! engine-wide registry ([`weft_types::component::ComponentTypeRegistry`]),
//! so two types are equal when they have the same engine id: structurally
//! equal types are equal even when they come from different components, and
//! the comparison is one integer compare. Types that name resources are
//! equal only within one component (resources are identities).

use std::sync::Arc;
use weft_environ::component::{self as env, ComponentTypes, DefinedType, InterfaceType};
use weft_types::component::RegisteredTypes;

/// The types of one compiled component with their engine ids. Dropping it
/// releases the ids.
pub(crate) struct TypeSpace {
    engine: crate::Engine,
    types: Arc<ComponentTypes>,
    ids: RegisteredTypes,
}

impl TypeSpace {
    /// Registers `types` with `engine`'s component type registry.
    pub(crate) fn new(engine: &crate::Engine, types: Arc<ComponentTypes>) -> TypeSpace {
        let ids = engine.inner.component_types.register(&types);
        TypeSpace {
            engine: engine.clone(),
            types,
            ids,
        }
    }

    /// The engine ids of the types.
    pub(crate) fn ids(&self) -> &RegisteredTypes {
        &self.ids
    }
}

impl std::fmt::Debug for TypeSpace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypeSpace").finish_non_exhaustive()
    }
}

impl Drop for TypeSpace {
    fn drop(&mut self) {
        self.engine.inner.component_types.unregister(&self.ids);
    }
}

impl std::ops::Deref for TypeSpace {
    type Target = ComponentTypes;
    fn deref(&self) -> &ComponentTypes {
        &self.types
    }
}

/// A type index that has an engine id.
trait EngineIndex: Copy + PartialEq {
    fn engine(self, ids: &RegisteredTypes) -> Option<Self>;
}

macro_rules! engine_index {
    ($($index:ident => $lookup:ident;)*) => {$(
        impl EngineIndex for env::$index {
            fn engine(self, ids: &RegisteredTypes) -> Option<Self> {
                ids.$lookup(self)
            }
        }
    )*};
}

engine_index! {
    TypeDefinedIndex => defined;
    TypeFuncIndex => funcs;
    TypeInstanceIndex => instances;
    TypeModuleIndex => modules;
}

/// A handle to a type of a registry.
#[derive(Clone)]
struct Handle<I> {
    types: Arc<TypeSpace>,
    index: I,
}

impl<I: EngineIndex> PartialEq for Handle<I> {
    fn eq(&self, other: &Self) -> bool {
        if Arc::ptr_eq(&self.types, &other.types) {
            return self.index == other.index;
        }
        match (self.index.engine(&self.types.ids), other.index.engine(&other.types.ids)) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        }
    }
}

impl<I: EngineIndex> Eq for Handle<I> {}

impl<I: std::fmt::Debug> std::fmt::Debug for Handle<I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.index.fmt(f)
    }
}

impl<I: Copy> Handle<I> {
    fn ty(&self, ty: InterfaceType) -> Type {
        Type::new(&self.types, ty)
    }
}

impl Handle<env::TypeDefinedIndex> {
    fn defined(&self) -> Option<&DefinedType> {
        self.types.defined(self.index)
    }
}

macro_rules! defined_types {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $name(Handle<env::TypeDefinedIndex>);
    )*};
}

defined_types! {
    /// A `list<T>` type.
    List;
    /// A `map<K, V>` type.
    Map;
    /// A `list<T, N>` type.
    FixedLengthList;
    /// A `record` type.
    Record;
    /// A `tuple` type.
    Tuple;
    /// A `variant` type.
    Variant;
    /// An `enum` type.
    Enum;
    /// An `option<T>` type.
    OptionType;
    /// A `result<T, E>` type.
    ResultType;
    /// A `flags` type.
    Flags;
    /// A `future<T>` type (the component-model async ABI).
    FutureType;
    /// A `stream<T>` type (the component-model async ABI).
    StreamType;
}

impl FutureType {
    /// The type of the future's value, if it has one.
    pub fn ty(&self) -> Option<Type> {
        match self.0.defined() {
            Some(DefinedType::Future(t)) => t.map(|t| self.0.ty(t)),
            _ => None,
        }
    }
}

impl StreamType {
    /// The type of the stream's elements, if it has any.
    pub fn ty(&self) -> Option<Type> {
        match self.0.defined() {
            Some(DefinedType::Stream(t)) => t.map(|t| self.0.ty(t)),
            _ => None,
        }
    }
}

/// A field of a [`Record`].
#[derive(Clone, Debug)]
pub struct Field<'a> {
    /// The field's label.
    pub name: &'a str,
    /// The field's type.
    pub ty: Type,
}

/// A case of a [`Variant`].
#[derive(Clone, Debug)]
pub struct Case<'a> {
    /// The case's label.
    pub name: &'a str,
    /// The payload's type, if the case has one.
    pub ty: Option<Type>,
}

impl List {
    /// The element type.
    pub fn ty(&self) -> Type {
        match self.0.defined() {
            Some(DefinedType::List(t)) => self.0.ty(*t),
            _ => Type::Bool,
        }
    }
}

impl Map {
    /// The key type.
    pub fn key(&self) -> Type {
        match self.0.defined() {
            Some(DefinedType::Map(k, _)) => self.0.ty(*k),
            _ => Type::Bool,
        }
    }

    /// The value type.
    pub fn value(&self) -> Type {
        match self.0.defined() {
            Some(DefinedType::Map(_, v)) => self.0.ty(*v),
            _ => Type::Bool,
        }
    }
}

impl FixedLengthList {
    /// The element type.
    pub fn ty(&self) -> Type {
        match self.0.defined() {
            Some(DefinedType::FixedLengthList(t, _)) => self.0.ty(*t),
            _ => Type::Bool,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> u32 {
        match self.0.defined() {
            Some(DefinedType::FixedLengthList(_, n)) => *n,
            _ => 0,
        }
    }

    /// Whether the list type has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Record {
    /// The fields, in order.
    pub fn fields(&self) -> impl ExactSizeIterator<Item = Field<'_>> {
        let fields: &[env::Field] = match self.0.defined() {
            Some(DefinedType::Record(fields)) => fields,
            _ => &[],
        };
        fields.iter().map(|f| Field {
            name: &f.name,
            ty: self.0.ty(f.ty),
        })
    }
}

impl Tuple {
    /// The element types, in order.
    pub fn types(&self) -> impl ExactSizeIterator<Item = Type> + '_ {
        let tys: &[InterfaceType] = match self.0.defined() {
            Some(DefinedType::Tuple(tys)) => tys,
            _ => &[],
        };
        tys.iter().map(|t| self.0.ty(*t))
    }
}

impl Variant {
    /// The cases, in order.
    pub fn cases(&self) -> impl ExactSizeIterator<Item = Case<'_>> {
        let cases: &[env::Case] = match self.0.defined() {
            Some(DefinedType::Variant(cases)) => cases,
            _ => &[],
        };
        cases.iter().map(|c| Case {
            name: &c.name,
            ty: c.ty.map(|t| self.0.ty(t)),
        })
    }
}

impl Enum {
    /// The case names, in order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        let names: &[String] = match self.0.defined() {
            Some(DefinedType::Enum(names)) => names,
            _ => &[],
        };
        names.iter().map(String::as_str)
    }
}

impl Flags {
    /// The flag names, in order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        let names: &[String] = match self.0.defined() {
            Some(DefinedType::Flags(names)) => names,
            _ => &[],
        };
        names.iter().map(String::as_str)
    }
}

impl OptionType {
    /// The payload type.
    pub fn ty(&self) -> Type {
        match self.0.defined() {
            Some(DefinedType::Option(t)) => self.0.ty(*t),
            _ => Type::Bool,
        }
    }
}

impl ResultType {
    /// The payload type of `ok`, if any.
    pub fn ok(&self) -> Option<Type> {
        match self.0.defined() {
            Some(DefinedType::Result { ok, .. }) => ok.map(|t| self.0.ty(t)),
            _ => None,
        }
    }

    /// The payload type of `error`, if any.
    pub fn err(&self) -> Option<Type> {
        match self.0.defined() {
            Some(DefinedType::Result { err, .. }) => err.map(|t| self.0.ty(t)),
            _ => None,
        }
    }
}

/// A component value type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
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
    Float32,
    /// `f64`.
    Float64,
    /// `char`: a Unicode scalar value.
    Char,
    /// `string`.
    String,
    /// `list<T>`: its element type.
    List(List),
    /// `map<K, V>`: its key and value types.
    Map(Map),
    /// `list<T, N>`: its element type and length.
    FixedLengthList(FixedLengthList),
    /// A `record`: its named fields.
    Record(Record),
    /// A `tuple`: its field types.
    Tuple(Tuple),
    /// A `variant`: its cases, each with an optional payload type.
    Variant(Variant),
    /// An `enum`: its case names.
    Enum(Enum),
    /// `option<T>`: its payload type.
    Option(OptionType),
    /// `result<T, E>`: its `ok` and `error` payload types, each optional.
    Result(ResultType),
    /// `flags`: its flag names.
    Flags(Flags),
    /// `own<R>`: an owned handle to a resource of this type.
    Own(ResourceType),
    /// `borrow<R>`: a borrowed handle to a resource of this type.
    Borrow(ResourceType),
    /// `error-context`.
    ErrorContext,
    /// `future<T>`.
    Future(FutureType),
    /// `stream<T>`.
    Stream(StreamType),
}

/// The resource type of a component's type, before instantiation gives it
/// a runtime identity.
pub(crate) fn static_resource(types: &Arc<TypeSpace>, index: env::TypeResourceIndex) -> ResourceType {
    // Engine resource ids are never reused, so they identify the resource
    // among every component of the engine.
    ResourceType(ResourceKind::Static {
        engine: Arc::as_ptr(&types.engine.inner) as usize,
        index: types.ids.resources(index).map_or(u32::MAX, |r| r.0),
    })
}

impl Type {
    pub(crate) fn new(types: &Arc<TypeSpace>, ty: InterfaceType) -> Type {
        use InterfaceType as I;
        let handle = |index| Handle {
            types: types.clone(),
            index,
        };
        match ty {
            I::Bool => Type::Bool,
            I::S8 => Type::S8,
            I::U8 => Type::U8,
            I::S16 => Type::S16,
            I::U16 => Type::U16,
            I::S32 => Type::S32,
            I::U32 => Type::U32,
            I::S64 => Type::S64,
            I::U64 => Type::U64,
            I::F32 => Type::Float32,
            I::F64 => Type::Float64,
            I::Char => Type::Char,
            I::String => Type::String,
            I::ErrorContext => Type::ErrorContext,
            I::Own(r) => Type::Own(static_resource(types, r)),
            I::Borrow(r) => Type::Borrow(static_resource(types, r)),
            I::Defined(d) => match types.defined(d) {
                Some(DefinedType::Record(_)) => Type::Record(Record(handle(d))),
                Some(DefinedType::Variant(_)) => Type::Variant(Variant(handle(d))),
                Some(DefinedType::List(_)) => Type::List(List(handle(d))),
                Some(DefinedType::Map(..)) => Type::Map(Map(handle(d))),
                Some(DefinedType::FixedLengthList(..)) => Type::FixedLengthList(FixedLengthList(handle(d))),
                Some(DefinedType::Tuple(_)) => Type::Tuple(Tuple(handle(d))),
                Some(DefinedType::Flags(_)) => Type::Flags(Flags(handle(d))),
                Some(DefinedType::Enum(_)) => Type::Enum(Enum(handle(d))),
                Some(DefinedType::Option(_)) => Type::Option(OptionType(handle(d))),
                Some(DefinedType::Result { .. }) => Type::Result(ResultType(handle(d))),
                Some(DefinedType::Future(_)) => Type::Future(FutureType(handle(d))),
                Some(DefinedType::Stream(_)) => Type::Stream(StreamType(handle(d))),
                None => Type::ErrorContext,
            },
        }
    }
}

/// The runtime identity, in the instance whose resources are `resources`,
/// of `ty`, a static resource type of the component whose types are
/// `space`.
pub(crate) fn runtime_resource(
    ty: &ResourceType,
    space: &Arc<TypeSpace>,
    resources: &[Option<ResourceType>],
) -> Option<ResourceType> {
    (0..resources.len()).find_map(|i| {
        let index = env::TypeResourceIndex(i as u32);
        (static_resource(space, index) == *ty).then(|| resources[i]).flatten()
    })
}

/// A component function type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentFunc(Handle<env::TypeFuncIndex>);

impl ComponentFunc {
    pub(crate) fn new(types: &Arc<TypeSpace>, index: env::TypeFuncIndex) -> ComponentFunc {
        ComponentFunc(Handle {
            types: types.clone(),
            index,
        })
    }

    fn func(&self) -> Option<&env::FuncType> {
        self.0.types.func(self.0.index)
    }

    /// The engine id of this function type.
    pub(crate) fn engine_id(&self) -> Option<env::TypeFuncIndex> {
        self.0.types.ids.funcs(self.0.index)
    }

    /// Whether the function is `async`.
    pub fn async_(&self) -> bool {
        self.func().is_some_and(|f| f.is_async)
    }

    /// The parameters' names and types, in order.
    pub fn params(&self) -> impl ExactSizeIterator<Item = (&str, Type)> + '_ {
        let params: &[(String, InterfaceType)] = self.func().map(|f| &f.params[..]).unwrap_or(&[]);
        params.iter().map(|(n, t)| (n.as_str(), self.0.ty(*t)))
    }

    /// The result types (none or one).
    pub fn results(&self) -> impl ExactSizeIterator<Item = Type> + '_ {
        let result = self.func().and_then(|f| f.result);
        result.into_iter().map(|t| self.0.ty(t))
    }
}

/// The public type of a core item of a component's module type.
fn core_extern_type(engine: &crate::Engine, t: &env::CoreItemType) -> crate::ExternType {
    use crate::{ExternType, FuncType, GlobalType, MemoryType, TableType, TagType};
    match t {
        env::CoreItemType::Func(f) => ExternType::Func(FuncType::from_wasm(engine, f)),
        env::CoreItemType::Table(t) => ExternType::Table(TableType::from_wasm(engine, t)),
        env::CoreItemType::Memory(m) => ExternType::Memory(MemoryType::from_wasm(m)),
        env::CoreItemType::Global(g) => ExternType::Global(GlobalType::from_wasm(engine, g)),
        env::CoreItemType::Tag(f) => ExternType::Tag(TagType::new(FuncType::from_wasm(engine, f))),
    }
}

/// A core module type, as a component imports or exports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module(Handle<env::TypeModuleIndex>);

impl Module {
    fn module(&self) -> Option<&env::ModuleType> {
        self.0.types.module(self.0.index)
    }

    /// The imports' module and field names, in order.
    pub fn imports(&self) -> impl ExactSizeIterator<Item = (&str, &str)> + '_ {
        let imports: &[(String, String, env::CoreItemType)] = self.module().map(|m| &m.imports[..]).unwrap_or(&[]);
        imports.iter().map(|(m, n, _)| (m.as_str(), n.as_str()))
    }

    /// The exports' names, in order.
    pub fn exports(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        let exports: &[(String, env::CoreItemType)] = self.module().map(|m| &m.exports[..]).unwrap_or(&[]);
        exports.iter().map(|(n, _)| n.as_str())
    }

    /// The module's imports with their types: module name, name and type,
    /// in order (Wasmtime 48's `ModuleType::imports` gives these).
    pub fn import_types<'a>(
        &'a self,
        engine: &'a crate::Engine,
    ) -> impl ExactSizeIterator<Item = (&'a str, &'a str, crate::ExternType)> + 'a {
        let imports: &[(String, String, env::CoreItemType)] = self.module().map(|m| &m.imports[..]).unwrap_or(&[]);
        imports
            .iter()
            .map(move |(m, n, t)| (m.as_str(), n.as_str(), core_extern_type(engine, t)))
    }

    /// The module's exports with their types, in order (Wasmtime 48's
    /// `ModuleType::exports` gives these).
    pub fn export_types<'a>(
        &'a self,
        engine: &'a crate::Engine,
    ) -> impl ExactSizeIterator<Item = (&'a str, crate::ExternType)> + 'a {
        let exports: &[(String, env::CoreItemType)] = self.module().map(|m| &m.exports[..]).unwrap_or(&[]);
        exports
            .iter()
            .map(move |(n, t)| (n.as_str(), core_extern_type(engine, t)))
    }
}

/// A component type: its imports and exports.
#[derive(Clone, Debug)]
pub struct Component {
    types: Arc<TypeSpace>,
    imports: Arc<[(String, env::ItemType)]>,
    exports: Arc<[(String, env::ItemType)]>,
}

impl PartialEq for Component {
    fn eq(&self, other: &Self) -> bool {
        let engine_items = |c: &Component, items: &[(String, env::ItemType)]| -> Option<Vec<(String, env::ItemType)>> {
            items
                .iter()
                .map(|(n, t)| Some((n.clone(), c.types.ids.item(*t)?)))
                .collect()
        };
        if Arc::ptr_eq(&self.types, &other.types) {
            return self.imports == other.imports && self.exports == other.exports;
        }
        let (Some(a), Some(b), Some(c), Some(d)) = (
            engine_items(self, &self.imports),
            engine_items(other, &other.imports),
            engine_items(self, &self.exports),
            engine_items(other, &other.exports),
        ) else {
            return false;
        };
        a == b && c == d
    }
}

impl Eq for Component {}

/// A component instance type: its exports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentInstance(Handle<env::TypeInstanceIndex>);

/// The type of an import or export of a component or instance.
#[derive(Clone, Debug)]
pub enum ComponentItem {
    /// A function, with its parameter and result types.
    ComponentFunc(ComponentFunc),
    /// A core module, with its imports and exports.
    Module(Module),
    /// A component, with its imports and exports.
    Component(Component),
    /// An instance of a component, with its exports.
    ComponentInstance(ComponentInstance),
    /// A value type (`type` import or export).
    Type(Type),
    /// A resource type (`type (sub resource)`).
    Resource(ResourceType),
}

impl ComponentItem {
    fn new(types: &Arc<TypeSpace>, ty: env::ItemType) -> ComponentItem {
        match ty {
            env::ItemType::Func(f) => ComponentItem::ComponentFunc(ComponentFunc::new(types, f)),
            env::ItemType::Module(m) => ComponentItem::Module(Module(Handle {
                types: types.clone(),
                index: m,
            })),
            env::ItemType::Component(c) => ComponentItem::Component(Component::of(types, c)),
            env::ItemType::Instance(i) => ComponentItem::ComponentInstance(ComponentInstance(Handle {
                types: types.clone(),
                index: i,
            })),
            env::ItemType::Value(t) => ComponentItem::Type(Type::new(types, t)),
            env::ItemType::Type(env::AnyType::Value(t)) => ComponentItem::Type(Type::new(types, t)),
            env::ItemType::Type(env::AnyType::Resource(r)) => ComponentItem::Resource(static_resource(types, r)),
            env::ItemType::Type(env::AnyType::Func(f)) => ComponentItem::ComponentFunc(ComponentFunc::new(types, f)),
            env::ItemType::Type(env::AnyType::Instance(i)) => {
                ComponentItem::ComponentInstance(ComponentInstance(Handle {
                    types: types.clone(),
                    index: i,
                }))
            }
            env::ItemType::Type(env::AnyType::Component(c)) => ComponentItem::Component(Component::of(types, c)),
        }
    }
}

impl ComponentInstance {
    /// The exports' names and types, in order.
    pub fn exports(&self) -> impl ExactSizeIterator<Item = (&str, ComponentItem)> + '_ {
        let exports: &[(String, env::ItemType)] = self
            .0
            .types
            .instance(self.0.index)
            .map(|i| &i.exports[..])
            .unwrap_or(&[]);
        exports
            .iter()
            .map(|(n, t)| (n.as_str(), ComponentItem::new(&self.0.types, *t)))
    }

    /// The type of the export `name`.
    pub fn get_export(&self, name: &str) -> Option<ComponentItem> {
        self.exports().find(|(n, _)| *n == name).map(|(_, t)| t)
    }
}

impl Component {
    /// The type of a compiled component's root, read from its plan.
    pub(crate) fn root(
        types: &Arc<TypeSpace>,
        plan: &env::Component,
        exports: &Arc<[(String, env::ItemType)]>,
    ) -> Component {
        Component {
            types: types.clone(),
            imports: plan.imports.iter().map(|i| (i.name.clone(), i.ty)).collect(),
            exports: exports.clone(),
        }
    }

    fn of(types: &Arc<TypeSpace>, index: env::TypeComponentIndex) -> Component {
        let (imports, exports) = match types.component(index) {
            Some(c) => (c.imports.iter().cloned().collect(), c.exports.iter().cloned().collect()),
            None => (Arc::from([]), Arc::from([])),
        };
        Component {
            types: types.clone(),
            imports,
            exports,
        }
    }

    /// The imports' names and types, in order.
    pub fn imports<'a>(
        &'a self,
        _engine: &crate::Engine,
    ) -> impl ExactSizeIterator<Item = (&'a str, ComponentItem)> + 'a {
        self.imports
            .iter()
            .map(|(n, t)| (n.as_str(), ComponentItem::new(&self.types, *t)))
    }

    /// The exports' names and types, in order (of a compiled component,
    /// every export but core modules, which have no recorded type).
    pub fn exports<'a>(
        &'a self,
        _engine: &crate::Engine,
    ) -> impl ExactSizeIterator<Item = (&'a str, ComponentItem)> + 'a {
        self.exports
            .iter()
            .map(|(n, t)| (n.as_str(), ComponentItem::new(&self.types, *t)))
    }

    /// The type of the import `name`.
    pub fn get_import(&self, engine: &crate::Engine, name: &str) -> Option<ComponentItem> {
        self.imports(engine).find(|(n, _)| *n == name).map(|(_, t)| t)
    }

    /// The type of the export `name`.
    pub fn get_export(&self, engine: &crate::Engine, name: &str) -> Option<ComponentItem> {
        if let Some((_, t)) = self.exports(engine).find(|(n, _)| *n == name) {
            return Some(t);
        }
        // A name with another compatible patch release (as Wasmtime).
        let i = super::semver::semver_match(name, self.exports(engine).map(|(n, _)| n))?;
        self.exports(engine).nth(i).map(|(_, t)| t)
    }
}

/// The runtime identity of a resource type: a host type, or a resource
/// defined by one instantiation of a component. Equality is identity, not
/// structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResourceType(pub(crate) ResourceKind);

/// What a [`ResourceType`] identifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ResourceKind {
    /// A resource the host defines with a Rust type.
    Host(std::any::TypeId),
    /// A resource the host defines at run time, named by a number
    /// ([`ResourceType::host_dynamic`]).
    HostDynamic(u32),
    /// Resource `resource` defined by the component instance `instance` of
    /// the store `store`.
    Guest {
        store: crate::store::StoreId,
        instance: u32,
        resource: u32,
    },
    /// Resource `index` of the component type registry of the engine at
    /// address `engine`: the type of a compiled component, before
    /// instantiation.
    Static { engine: usize, index: u32 },
}

impl ResourceType {
    /// The resource type of the host type `T`: [`Resource<T>`](super::Resource)
    /// values have it.
    pub fn host<T: 'static>() -> ResourceType {
        ResourceType(ResourceKind::Host(std::any::TypeId::of::<T>()))
    }

    /// The resource type of the host named by `payload`, for hosts that
    /// define their resource types at run time (as the C API does): types
    /// with different payloads differ, and differ from every
    /// [`ResourceType::host`] type. [`ResourceDynamic`](super::ResourceDynamic)
    /// values have it.
    pub fn host_dynamic(payload: u32) -> ResourceType {
        ResourceType(ResourceKind::HostDynamic(payload))
    }

    pub(crate) fn is_host(self) -> bool {
        matches!(self.0, ResourceKind::Host(_) | ResourceKind::HostDynamic(_))
    }

    /// What kind of resource this is, in trap messages.
    pub(crate) fn kind_name(self) -> &'static str {
        if self.is_host() {
            "host resource"
        } else {
            "guest-defined resource"
        }
    }
}
