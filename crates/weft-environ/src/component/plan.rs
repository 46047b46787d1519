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

use super::abi::FlatType;
use super::types::{
    DefinedResourceIndex, ImportedResourceIndex, InterfaceType, ItemType, TypeFuncIndex, TypeResourceIndex,
};
use crate::{EntityIndex, WasmValType};

macro_rules! indices {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, serde::Serialize, serde::Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
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

/// The `string-encoding` canonical option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
pub enum StringEncoding {
    /// `string-encoding=utf8` (the default): lengths count bytes.
    #[default]
    Utf8,
    /// `string-encoding=utf16`: lengths count 16-bit code units, little
    /// endian, 2-aligned.
    Utf16,
    /// `string-encoding=latin1+utf16`: Latin-1 bytes, or UTF-16 code units
    /// when the length has the tag bit (`1 << 31` in 32-bit memories) set;
    /// 2-aligned either way.
    CompactUtf16,
}

/// The canonical options of a `canon lift` or `canon lower`, with every
/// core item resolved to a [`CoreItemIndex`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
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
    /// `async`: the function is lifted or lowered with the async ABI.
    pub is_async: bool,
    /// `callback` of an async lift: the core function called with each
    /// event until the task exits.
    pub callback: Option<CoreItemIndex>,
}

/// The core module a [`Step::InstantiateModule`] instantiates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ModuleRef {
    /// A module found in the component's bytes.
    Static(StaticModuleIndex),
    /// A module the embedder supplies through the root's imports.
    Import(RuntimeImportIndex),
}

/// What a [`Step::Lower`] lowers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Step {
    /// Instantiates a core module, pushing a core instance.
    InstantiateModule {
        /// The new instance (the length of the instance table).
        instance: CoreInstanceIndex,
        /// The module to instantiate: static, or an import of the component.
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
        /// The core instance whose export it is.
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
        /// The canonical options of the lift (memory, realloc, encoding, post-return).
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
        /// The resource type of the handles it makes.
        resource: TypeResourceIndex,
        /// The calling component instance (its handle table).
        instance: ComponentInstanceIndex,
    },
    /// `canon resource.drop`: pushes a core function `(handle)`.
    ResourceDrop {
        /// The new core function.
        item: CoreItemIndex,
        /// The resource type of the handles it drops.
        resource: TypeResourceIndex,
        /// The calling component instance (its handle table).
        instance: ComponentInstanceIndex,
    },
    /// A canonical built-in of the async ABI or of threads: pushes a core
    /// function of type [`Builtin::signature`].
    Builtin {
        /// The new core function.
        item: CoreItemIndex,
        /// The built-in.
        builtin: Builtin,
        /// The calling component instance (its flags and tables).
        instance: ComponentInstanceIndex,
    },
    /// `canon resource.rep`: pushes a core function `(handle) -> rep`.
    ResourceRep {
        /// The new core function.
        item: CoreItemIndex,
        /// The resource type of the handles whose representation it reads.
        resource: TypeResourceIndex,
        /// The calling component instance (its handle table).
        instance: ComponentInstanceIndex,
    },
}

/// A canonical built-in of the async ABI (and of threads), as a core
/// function a runtime provides. Each names the types and options it needs;
/// [`Builtin::signature`] is its core function type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Builtin {
    /// `task.return`: lifts the current task's result from its core
    /// arguments, with `options` (only `memory` and `string-encoding`).
    TaskReturn {
        /// The result type the built-in was defined with.
        result: Option<InterfaceType>,
        /// Its options.
        options: CanonicalOptions,
    },
    /// `task.cancel`.
    TaskCancel,
    /// `context.get i32 slot`.
    ContextGet(u32),
    /// `context.set i32 slot`.
    ContextSet(u32),
    /// `backpressure.inc`.
    BackpressureInc,
    /// `backpressure.dec`.
    BackpressureDec,
    /// `thread.yield`.
    ThreadYield,
    /// `thread.index`.
    ThreadIndex,
    /// `thread.new-indirect`: a new thread running a function of `table`.
    ThreadNewIndirect {
        /// The table of functions.
        table: CoreItemIndex,
    },
    /// `thread.resume-later`.
    ThreadResumeLater,
    /// `thread.suspend`.
    ThreadSuspend,
    /// `thread.suspend-then-resume`.
    ThreadSuspendThenResume,
    /// `thread.yield-then-resume`.
    ThreadYieldThenResume,
    /// `thread.suspend-then-promote`.
    ThreadSuspendThenPromote,
    /// `thread.yield-then-promote`.
    ThreadYieldThenPromote,
    /// `waitable-set.new`.
    WaitableSetNew,
    /// `waitable-set.wait` with the memory events are written to.
    WaitableSetWait(CoreItemIndex),
    /// `waitable-set.poll` with the memory events are written to.
    WaitableSetPoll(CoreItemIndex),
    /// `waitable-set.drop`.
    WaitableSetDrop,
    /// `waitable.join`.
    WaitableJoin,
    /// `subtask.cancel`, `async` or not.
    SubtaskCancel(bool),
    /// `subtask.drop`.
    SubtaskDrop,
    /// `stream.new` of a `stream` type.
    StreamNew(InterfaceType),
    /// `stream.read` with its options.
    StreamRead(InterfaceType, CanonicalOptions),
    /// `stream.write` with its options.
    StreamWrite(InterfaceType, CanonicalOptions),
    /// `stream.cancel-read`, `async` or not.
    StreamCancelRead(InterfaceType, bool),
    /// `stream.cancel-write`, `async` or not.
    StreamCancelWrite(InterfaceType, bool),
    /// `stream.drop-readable`.
    StreamDropReadable(InterfaceType),
    /// `stream.drop-writable`.
    StreamDropWritable(InterfaceType),
    /// `future.new` of a `future` type.
    FutureNew(InterfaceType),
    /// `future.read` with its options.
    FutureRead(InterfaceType, CanonicalOptions),
    /// `future.write` with its options.
    FutureWrite(InterfaceType, CanonicalOptions),
    /// `future.cancel-read`, `async` or not.
    FutureCancelRead(InterfaceType, bool),
    /// `future.cancel-write`, `async` or not.
    FutureCancelWrite(InterfaceType, bool),
    /// `future.drop-readable`.
    FutureDropReadable(InterfaceType),
    /// `future.drop-writable`.
    FutureDropWritable(InterfaceType),
    /// `error-context.new` with its options.
    ErrorContextNew(CanonicalOptions),
    /// `error-context.debug-message` with its options.
    ErrorContextDebugMessage(CanonicalOptions),
    /// `error-context.drop`.
    ErrorContextDrop,
}

impl Builtin {
    /// The built-in's name in the text format (`waitable-set.new`).
    pub fn name(&self) -> &'static str {
        use Builtin as B;
        match self {
            B::TaskReturn { .. } => "task.return",
            B::TaskCancel => "task.cancel",
            B::ContextGet(_) => "context.get",
            B::ContextSet(_) => "context.set",
            B::BackpressureInc => "backpressure.inc",
            B::BackpressureDec => "backpressure.dec",
            B::ThreadYield => "thread.yield",
            B::ThreadIndex => "thread.index",
            B::ThreadNewIndirect { .. } => "thread.new-indirect",
            B::ThreadResumeLater => "thread.resume-later",
            B::ThreadSuspend => "thread.suspend",
            B::ThreadSuspendThenResume => "thread.suspend-then-resume",
            B::ThreadYieldThenResume => "thread.yield-then-resume",
            B::ThreadSuspendThenPromote => "thread.suspend-then-promote",
            B::ThreadYieldThenPromote => "thread.yield-then-promote",
            B::WaitableSetNew => "waitable-set.new",
            B::WaitableSetWait(_) => "waitable-set.wait",
            B::WaitableSetPoll(_) => "waitable-set.poll",
            B::WaitableSetDrop => "waitable-set.drop",
            B::WaitableJoin => "waitable.join",
            B::SubtaskCancel(_) => "subtask.cancel",
            B::SubtaskDrop => "subtask.drop",
            B::StreamNew(_) => "stream.new",
            B::StreamRead(..) => "stream.read",
            B::StreamWrite(..) => "stream.write",
            B::StreamCancelRead(..) => "stream.cancel-read",
            B::StreamCancelWrite(..) => "stream.cancel-write",
            B::StreamDropReadable(_) => "stream.drop-readable",
            B::StreamDropWritable(_) => "stream.drop-writable",
            B::FutureNew(_) => "future.new",
            B::FutureRead(..) => "future.read",
            B::FutureWrite(..) => "future.write",
            B::FutureCancelRead(..) => "future.cancel-read",
            B::FutureCancelWrite(..) => "future.cancel-write",
            B::FutureDropReadable(_) => "future.drop-readable",
            B::FutureDropWritable(_) => "future.drop-writable",
            B::ErrorContextNew(_) => "error-context.new",
            B::ErrorContextDebugMessage(_) => "error-context.debug-message",
            B::ErrorContextDrop => "error-context.drop",
        }
    }

    /// The core function type of the built-in (32-bit memories), as
    /// CanonicalABI.md gives it. `task.return` needs the registry to
    /// flatten its result.
    pub fn signature(&self, types: &super::types::ComponentTypes) -> (Vec<FlatType>, Vec<FlatType>) {
        use Builtin as B;
        use FlatType::{I32, I64};
        match self {
            B::TaskReturn { result, .. } => {
                let mut params = Vec::new();
                if let Some(t) = result {
                    params = super::abi::flatten_type(types, *t, super::abi::PtrType::I32);
                }
                if params.len() > super::abi::MAX_FLAT_PARAMS {
                    params = vec![I32];
                }
                (params, vec![])
            }
            B::TaskCancel | B::BackpressureInc | B::BackpressureDec => (vec![], vec![]),
            B::ContextGet(_) => (vec![], vec![I32]),
            B::ContextSet(_) => (vec![I32], vec![]),
            B::ThreadYield | B::ThreadIndex | B::ThreadSuspend | B::WaitableSetNew => (vec![], vec![I32]),
            B::ThreadNewIndirect { .. } => (vec![I32, I32], vec![I32]),
            B::ThreadResumeLater
            | B::WaitableSetDrop
            | B::SubtaskDrop
            | B::StreamDropReadable(_)
            | B::StreamDropWritable(_)
            | B::FutureDropReadable(_)
            | B::FutureDropWritable(_)
            | B::ErrorContextDrop => (vec![I32], vec![]),
            B::ThreadSuspendThenResume
            | B::ThreadYieldThenResume
            | B::ThreadSuspendThenPromote
            | B::ThreadYieldThenPromote
            | B::SubtaskCancel(_)
            | B::StreamCancelRead(..)
            | B::StreamCancelWrite(..)
            | B::FutureCancelRead(..)
            | B::FutureCancelWrite(..) => (vec![I32], vec![I32]),
            B::WaitableSetWait(_) | B::WaitableSetPoll(_) | B::FutureRead(..) | B::FutureWrite(..) => {
                (vec![I32, I32], vec![I32])
            }
            B::WaitableJoin | B::ErrorContextDebugMessage(_) => (vec![I32, I32], vec![]),
            B::ErrorContextNew(_) => (vec![I32, I32], vec![I32]),
            B::StreamNew(_) | B::FutureNew(_) => (vec![], vec![I64]),
            B::StreamRead(..) | B::StreamWrite(..) => (vec![I32, I32, I32], vec![I32]),
        }
    }
}

/// An import of the root component.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Import {
    /// The import's name.
    pub name: String,
    /// Its type; resources it declares are [`super::ResourceType::Imported`].
    pub ty: ItemType,
}

/// An item reached through an import of the root: the import, then a path
/// of export names through nested instances.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct RuntimeImport {
    /// The component import it starts from.
    pub import: ImportIndex,
    /// Export names, outermost first (empty: the import itself).
    pub path: Box<[String]>,
}

/// A resource type reached through the root's imports.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ImportedResource {
    /// Where the embedder's resource type is found.
    pub at: RuntimeImport,
    /// Its identity in the type registry.
    pub ty: TypeResourceIndex,
}

/// An export of the root component (or of an instance it exports).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
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
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
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
    /// The parent of each component instance (`None` for the root): the
    /// component instance whose `instance` definition made it.
    pub parents: Vec<Option<ComponentInstanceIndex>>,
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
