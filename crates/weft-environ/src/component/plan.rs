//! The instantiation plan of a component: plain data, indices into tables.
//!
//! Translation resolves nested components, component instances and aliases
//! ("inlining"), so that instantiating the root component is a flat list of
//! [`Step`]s over core items. A runtime executes the steps in order,
//! keeping, per instantiation of the root:
//!
//! - a table of core instances ([`CoreInstanceIndex`]), pushed by
//!   [`Step::InstantiateModule`];
//! - a table of core items ([`CoreItemIndex`]: functions, tables, memories,
//!   globals), pushed by [`Step::AliasExport`] (an export of a core instance)
//!   and by the steps that make a function the runtime provides
//!   ([`Step::Lower`], [`Step::ResourceNew`], [`Step::ResourceDrop`],
//!   [`Step::ResourceRep`]);
//! - a table of lifted functions ([`LiftedFuncIndex`]), pushed by
//!   [`Step::Lift`];
//! - a table of resource types ([`DefinedResourceIndex`]), pushed by
//!   [`Step::DefineResource`], each a fresh runtime type.
//!
//! Every index a step names was pushed by an earlier step, and each step
//! says which index it pushes (always the current length of its table).
//! The [`Component::exports`] then name lifted functions, instances of
//! exports, core modules and types.

use super::types::{DefinedResourceIndex, ImportedResourceIndex, ItemType, TypeFuncIndex, TypeResourceIndex};
use crate::{EntityIndex, WasmValType};

macro_rules! indices {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $name(pub u32);
    )*};
}

indices! {
    /// A core module found in the component's bytes
    /// ([`crate::component::ComponentTranslation::modules`]).
    StaticModuleIndex;
    /// A core instance created by a [`Step::InstantiateModule`].
    CoreInstanceIndex;
    /// A core item (function, table, memory, global) of the plan.
    CoreItemIndex;
    /// A function lifted by a [`Step::Lift`].
    LiftedFuncIndex;
    /// An import of the root component ([`Component::imports`]).
    ImportIndex;
    /// A function, instance or other item reached through an import of the
    /// root ([`Component::runtime_imports`]).
    RuntimeImportIndex;
    /// A component instance of the plan: 0 is the root, every instantiation
    /// of a nested component gets the next one. The runtime keeps the
    /// component-instance flags (`may_leave`, `may_enter`) per index.
    ComponentInstanceIndex;
}

/// The kind of a core item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CoreItemKind {
    /// A function.
    Func,
    /// A table.
    Table,
    /// A memory.
    Memory,
    /// A global.
    Global,
    /// An exception tag.
    Tag,
}

/// The string encoding of canonical options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StringEncoding {
    /// `string-encoding=utf8` (the default).
    #[default]
    Utf8,
    /// `string-encoding=utf16`.
    Utf16,
    /// `string-encoding=latin1+utf16`.
    CompactUtf16,
}

/// The canonical options of a `canon lift` or `canon lower`, with every
/// core item resolved to a [`CoreItemIndex`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct CanonicalOptions {
    /// The component instance that lifts or lowers.
    pub instance: ComponentInstanceIndex,
    /// `memory`: the memory strings, lists and spilled values live in.
    pub memory: Option<CoreItemIndex>,
    /// `realloc`: the allocator of the lifting or lowering side.
    pub realloc: Option<CoreItemIndex>,
    /// `post-return`: called after a lifted function's results are read.
    pub post_return: Option<CoreItemIndex>,
    /// `string-encoding`.
    pub string_encoding: StringEncoding,
    /// `async` (recorded; the async ABI is not supported yet).
    pub is_async: bool,
    /// `callback` of an async lift (recorded only).
    pub callback: Option<CoreItemIndex>,
}

/// The core module a [`Step::InstantiateModule`] instantiates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModuleRef {
    /// A module found in the component's bytes.
    Static(StaticModuleIndex),
    /// A module the embedder supplies through the root's imports.
    Import(RuntimeImportIndex),
}

/// What a [`Step::Lower`] lowers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LowerCallee {
    /// A function the host supplies through the root's imports: the runtime
    /// lowers in Rust behind a compiled trampoline.
    Import(RuntimeImportIndex),
    /// A function lifted by a component of the same plan: a
    /// component-to-component call, which needs a fused adapter (lower with
    /// the caller's options, lift with the callee's).
    Lifted {
        /// The lifted function.
        func: LiftedFuncIndex,
        /// The core function the lift wraps.
        core_func: CoreItemIndex,
        /// The callee's options (those of the lift).
        options: CanonicalOptions,
    },
}

/// One step of the instantiation of a component, executed in order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Step {
    /// Instantiates a core module, pushing a core instance.
    InstantiateModule {
        /// The new instance (the length of the instance table).
        instance: CoreInstanceIndex,
        /// The module.
        module: ModuleRef,
        /// One core item per import of the module, in the module's import
        /// order (for an imported module, the order of its module type).
        args: Box<[CoreItemIndex]>,
        /// The component instance the core instance belongs to.
        component_instance: ComponentInstanceIndex,
    },
    /// Pushes an export of a core instance as a core item.
    AliasExport {
        /// The new item.
        item: CoreItemIndex,
        /// The instance.
        instance: CoreInstanceIndex,
        /// The export's name.
        name: String,
        /// The export's index in its module, when the module is static
        /// (an imported module's export is found by name).
        index: Option<EntityIndex>,
        /// The kind of item.
        kind: CoreItemKind,
    },
    /// `canon lower`: pushes a core function that calls a component
    /// function with the caller's options.
    Lower {
        /// The new core function.
        item: CoreItemIndex,
        /// The function called.
        callee: LowerCallee,
        /// The component function type.
        ty: TypeFuncIndex,
        /// The caller's (lowering) options.
        options: CanonicalOptions,
    },
    /// `canon lift`: pushes a component function that calls a core function
    /// with the callee's options.
    Lift {
        /// The new lifted function.
        func: LiftedFuncIndex,
        /// The core function.
        core_func: CoreItemIndex,
        /// The component function type.
        ty: TypeFuncIndex,
        /// The options.
        options: CanonicalOptions,
    },
    /// Defines a resource type: the runtime makes a fresh type for it at
    /// each instantiation of the root.
    DefineResource {
        /// The new resource.
        resource: DefinedResourceIndex,
        /// Its identity in the type registry.
        ty: TypeResourceIndex,
        /// Its representation (`i32`).
        rep: WasmValType,
        /// Its destructor, a core function `(func (param i32))`.
        dtor: Option<CoreItemIndex>,
        /// The component instance that defines it (the only one allowed to
        /// use `resource.new` and `resource.rep` on it).
        instance: ComponentInstanceIndex,
    },
    /// `canon resource.new`: pushes a core function `(rep) -> handle`.
    ResourceNew {
        /// The new core function.
        item: CoreItemIndex,
        /// The resource.
        resource: TypeResourceIndex,
        /// The calling component instance (its handle table).
        instance: ComponentInstanceIndex,
    },
    /// `canon resource.drop`: pushes a core function `(handle)`.
    ResourceDrop {
        /// The new core function.
        item: CoreItemIndex,
        /// The resource.
        resource: TypeResourceIndex,
        /// The calling component instance (its handle table).
        instance: ComponentInstanceIndex,
    },
    /// `canon resource.rep`: pushes a core function `(handle) -> rep`.
    ResourceRep {
        /// The new core function.
        item: CoreItemIndex,
        /// The resource.
        resource: TypeResourceIndex,
        /// The calling component instance (its handle table).
        instance: ComponentInstanceIndex,
    },
}

/// An import of the root component.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Import {
    /// The import's name.
    pub name: String,
    /// Its type; resources it declares are [`super::ResourceType::Imported`].
    pub ty: ItemType,
}

/// An item reached through an import of the root: the import, then a path
/// of export names through nested instances.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RuntimeImport {
    /// The import.
    pub import: ImportIndex,
    /// Export names, outermost first (empty: the import itself).
    pub path: Box<[String]>,
}

/// A resource type reached through the root's imports.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ImportedResource {
    /// Where the embedder's resource type is found.
    pub at: RuntimeImport,
    /// Its identity in the type registry.
    pub ty: TypeResourceIndex,
}

/// An export of the root component (or of an instance it exports).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Export {
    /// A lifted function.
    LiftedFunction {
        /// The function.
        func: LiftedFuncIndex,
        /// Its type.
        ty: TypeFuncIndex,
    },
    /// A function of the imports, exported again.
    ImportedFunction {
        /// Where it comes from.
        import: RuntimeImportIndex,
        /// Its type.
        ty: TypeFuncIndex,
    },
    /// An instance made of exports.
    Instance(Box<[(String, Export)]>),
    /// An instance of the imports, exported again.
    ImportedInstance(RuntimeImportIndex),
    /// A core module.
    Module(ModuleRef),
    /// A type.
    Type(super::types::AnyType),
}

/// The translated root component: imports, the instantiation plan and
/// exports.
#[derive(Debug, Clone, Default)]
pub struct Component {
    /// The imports of the root, in order.
    pub imports: Vec<Import>,
    /// The items reached through the imports that the plan uses.
    pub runtime_imports: Vec<RuntimeImport>,
    /// The resource types reached through the imports, by
    /// [`ImportedResourceIndex`].
    pub imported_resources: Vec<ImportedResource>,
    /// The steps of an instantiation, in order.
    pub steps: Vec<Step>,
    /// The exports of the root, in order.
    pub exports: Vec<(String, Export)>,
    /// The number of core instances the steps create.
    pub num_core_instances: u32,
    /// The number of core items the steps push.
    pub num_core_items: u32,
    /// The number of lifted functions.
    pub num_lifted_funcs: u32,
    /// The number of resources the steps define.
    pub num_defined_resources: u32,
    /// The number of component instances (the root included).
    pub num_component_instances: u32,
}

impl Component {
    /// The [`ImportedResource`] at `index`.
    pub fn imported_resource(&self, index: ImportedResourceIndex) -> Option<&ImportedResource> {
        self.imported_resources.get(index.0 as usize)
    }

    /// The [`Step::Lift`] that pushed `func`.
    pub fn lift(&self, func: LiftedFuncIndex) -> Option<&Step> {
        self.steps
            .iter()
            .find(|s| matches!(s, Step::Lift { func: f, .. } if *f == func))
    }
}
