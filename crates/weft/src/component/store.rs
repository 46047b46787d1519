//! What a store keeps of the component instances in it.

use super::{Component, StringEncoding};
use std::sync::Arc;
use weft_environ::component::{ComponentTypes, TypeFuncIndex};

/// The component-model state of a store: lifted functions and component
/// instances, found by index from [`super::Func`] and [`super::Instance`].
#[derive(Default)]
pub(crate) struct ComponentStore {
    pub(crate) funcs: Vec<LiftedFunc>,
    pub(crate) instances: Vec<ComponentInstanceData>,
}

/// The canonical options of a lift or lower, with their core items
/// resolved in the store.
#[derive(Clone)]
pub(crate) struct Options {
    pub(crate) memory: Option<crate::Memory>,
    pub(crate) realloc: Option<crate::Func>,
    pub(crate) post_return: Option<crate::Func>,
    pub(crate) encoding: StringEncoding,
    /// The store's component instance and, in it, the plan's component
    /// instance that lifts or lowers (whose flags are checked).
    pub(crate) flags: FlagsRef,
}

/// The flags of one component instance of a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FlagsRef {
    pub(crate) instance: u32,
    pub(crate) component_instance: u32,
}

/// The `may_enter` and `may_leave` flags of a component instance.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Flags {
    /// Cleared while a call into the instance is running: a call that
    /// would enter it again traps.
    pub(crate) may_enter: bool,
    /// Cleared while the instance runs `realloc` or `post-return` for a
    /// lift or lower: calling out of it then traps.
    pub(crate) may_leave: bool,
}

impl Default for Flags {
    fn default() -> Self {
        Flags {
            may_enter: true,
            may_leave: true,
        }
    }
}

/// A function made by `canon lift`.
#[derive(Clone)]
pub(crate) struct LiftedFunc {
    pub(crate) core: crate::Func,
    pub(crate) ty: TypeFuncIndex,
    pub(crate) types: Arc<ComponentTypes>,
    pub(crate) options: Options,
}

/// An export of a component instance.
#[derive(Clone)]
pub(crate) enum ExportItem {
    /// A lifted function (or a host function exported again), by store
    /// index.
    Func(u32),
    /// An instance of exports.
    Instance(Vec<(String, ExportItem)>),
    /// A core module.
    Module(crate::Module),
    /// A type (nothing to call).
    Type,
}

/// An instance of a component in a store.
pub(crate) struct ComponentInstanceData {
    #[allow(dead_code)]
    pub(crate) component: Component,
    pub(crate) exports: Vec<(String, ExportItem)>,
    /// The flags of each component instance of the plan.
    pub(crate) flags: Vec<Flags>,
}

impl ComponentStore {
    pub(crate) fn flags(&self, r: FlagsRef) -> crate::Result<Flags> {
        self.instances
            .get(r.instance as usize)
            .and_then(|i| i.flags.get(r.component_instance as usize))
            .copied()
            .ok_or_else(|| crate::format_err!("component instance not found in store"))
    }

    pub(crate) fn flags_mut(&mut self, r: FlagsRef) -> crate::Result<&mut Flags> {
        self.instances
            .get_mut(r.instance as usize)
            .and_then(|i| i.flags.get_mut(r.component_instance as usize))
            .ok_or_else(|| crate::format_err!("component instance not found in store"))
    }
}
