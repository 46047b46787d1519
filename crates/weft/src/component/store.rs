//! What a store keeps of the component instances in it.

// Import loop kept on purpose: the component state of a store holds the
// data of the component objects (instances, lifted functions, handle
// tables, tasks), whose code takes a store, as `crate::store` does.
#[cfg(feature = "component-model-async")]
use super::concurrent::{HostStreams, Sched};
use super::resources::{HandleTable, Handles, HostHandleTable};
use super::types::{ResourceType, TypeSpace};
use super::{trap, Component, StringEncoding};
use std::any::Any;
use std::sync::Arc;
use weft_environ::component::TypeFuncIndex;

/// The component-model state of a store: lifted functions and component
/// instances, found by index from [`super::Func`] and [`super::Instance`].
#[derive(Default)]
pub(crate) struct ComponentStore {
    pub(crate) funcs: Vec<LiftedFunc>,
    pub(crate) instances: Vec<ComponentInstanceData>,
    /// The options of the typed host functions lowered in this store,
    /// indexed by their functions' words (see `instance::lowered_host`).
    pub(crate) lowered_options: Vec<Options>,
    /// The `own` and `borrow` handles the host holds ([`super::ResourceAny`]).
    pub(crate) host_handles: HostHandleTable,
    /// The destructors of host resource types, each a
    /// `linker::HostDtor<T>` for the store's `T`.
    pub(crate) host_dtors: crate::id_map::IdMap<ResourceType, Arc<dyn Any + Send + Sync>>,
    /// The calls into lifted functions in progress: the borrows each has
    /// lent out and received.
    pub(crate) calls: CallScopes,
    /// The async ABI's table of tasks, subtasks, waitable sets, streams,
    /// futures and error contexts.
    #[cfg(feature = "component-model-async")]
    pub(crate) tasks: weft_tasks::Tasks,
    /// The threads on fibers, the running threads and what each task's
    /// caller waits for.
    #[cfg(feature = "component-model-async")]
    pub(crate) sched: Sched,
    /// Set when an instance trapped since the event loop last failed the
    /// host calls that this strands.
    pub(crate) newly_trapped: bool,
    /// The references the host holds in `tasks` (streams, futures, error
    /// contexts) and the drivers of host streams and futures.
    #[cfg(feature = "component-model-async")]
    pub(crate) host_streams: HostStreams,
}

/// The calls in progress, by a scope index that stays put while the call
/// lasts (calls of different tasks end in any order). Each belongs to the
/// stack it was made on (a fiber's thread, or the host's stack: `None`);
/// on one stack calls nest.
#[derive(Default, Debug)]
pub(crate) struct CallScopes {
    /// Each scope with the stack it was made on.
    slots: weft_slab::Slab<(CallScope, Option<u32>)>,
    /// Live scopes in the order they were made.
    order: Vec<usize>,
}

impl CallScopes {
    /// A new scope on `stack`.
    pub(crate) fn push(&mut self, stack: Option<u32>) -> usize {
        // More than 2^32 live calls cannot be made: the stacks run out
        // long before.
        let i = self
            .slots
            .insert((CallScope::default(), stack))
            .map_or(usize::MAX, |i| i as usize);
        self.order.push(i);
        i
    }

    pub(crate) fn get(&self, i: usize) -> Option<&CallScope> {
        self.slots.get(u32::try_from(i).ok()?).map(|(c, _)| c)
    }

    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut CallScope> {
        self.slots.get_mut(u32::try_from(i).ok()?).map(|(c, _)| c)
    }

    /// Ends scope `i` and the scopes made after it on its stack (left by a
    /// call that a panic unwound), innermost first.
    pub(crate) fn end(&mut self, i: usize) -> impl Iterator<Item = CallScope> {
        // The usual case, with nothing to allocate: the scope is the newest.
        if self.order.last() == Some(&i) {
            self.order.pop();
            let call = u32::try_from(i).ok().and_then(|i| self.slots.remove(i)).map(|(c, _)| c);
            return call.into_iter().chain(Vec::new());
        }
        let mut ended = Vec::new();
        let Some(stack) = self.stack_of(i) else {
            return None.into_iter().chain(ended);
        };
        let Some(at) = self.order.iter().position(|x| *x == i) else {
            return None.into_iter().chain(ended);
        };
        let mut k = self.order.len();
        while k > at {
            k -= 1;
            let j = self.order[k];
            if j == i || self.stack_of(j) == Some(stack) {
                self.order.remove(k);
                if let Some((call, _)) = u32::try_from(j).ok().and_then(|j| self.slots.remove(j)) {
                    ended.push(call);
                }
            }
        }
        None.into_iter().chain(ended)
    }

    /// The stack scope `i` was made on.
    fn stack_of(&self, i: usize) -> Option<Option<u32>> {
        self.slots.get(u32::try_from(i).ok()?).map(|(_, s)| *s)
    }
}

/// The resource bookkeeping of one call into a lifted function.
#[derive(Default, Debug)]
pub(crate) struct CallScope {
    /// Borrow handles created for the callee that it has not dropped yet.
    pub(crate) num_borrows: u32,
    /// Handles lent for the call: (store instance, plan component instance,
    /// handle index), or the host table when the instance is `None`.
    pub(crate) lenders: Vec<(Option<ComponentInstanceRef>, u32)>,
    /// Borrow entries of the host table made for the call (removed at its
    /// end).
    pub(crate) host_borrows: Vec<u32>,
}

/// A resource type defined by a component instance of a plan.
#[derive(Clone, Debug)]
pub(crate) struct DefinedResource {
    /// The plan's component instance that defines it (`rt.impl`).
    pub(crate) component_instance: u32,
    /// Its destructor, if any.
    pub(crate) dtor: Option<crate::Func>,
}

/// The canonical options of a lift or lower, with their core items
/// resolved in the store.
#[derive(Clone)]
pub(crate) struct Options {
    pub(crate) memory: Option<crate::Memory>,
    pub(crate) realloc: Option<crate::Func>,
    pub(crate) post_return: Option<crate::Func>,
    pub(crate) encoding: StringEncoding,
    /// `async`.
    pub(crate) is_async: bool,
    /// `callback` (async lifts).
    pub(crate) callback: Option<crate::Func>,
    /// The store's component instance and, in it, the plan's component
    /// instance that lifts or lowers (whose flags are checked).
    pub(crate) flags: ComponentInstanceRef,
}

/// One component instance of a store: the store's instance (an index into
/// `ComponentStore::instances`) and, in its plan, the component instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ComponentInstanceRef {
    /// The index of the store's component instance.
    pub(crate) instance: u32,
    /// The component instance of that instance's plan.
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
    /// Set when the instance trapped: it is never entered again (its
    /// `may_enter` stays clear).
    pub(crate) trapped: bool,
}

impl Default for Flags {
    fn default() -> Self {
        Flags {
            may_enter: true,
            may_leave: true,
            trapped: false,
        }
    }
}

/// A function made by `canon lift`.
#[derive(Clone)]
pub(crate) struct LiftedFunc {
    pub(crate) core: crate::Func,
    pub(crate) ty: TypeFuncIndex,
    pub(crate) types: Arc<TypeSpace>,
    pub(crate) options: Options,
    /// What each call needs of its type, worked out when it was lifted.
    pub(crate) sig: Arc<LiftSig>,
}

/// The parts of a lifted function's type every call uses: its core
/// signature under its options, its parameter types, and whether any value
/// may hold a handle (calls move handles only then).
pub(crate) struct LiftSig {
    /// The core signature (`flatten_functype` with the lift's options).
    pub(crate) flat: weft_environ::component::abi::FlatFuncType,
    /// The parameters' types.
    pub(crate) params: Box<[weft_environ::component::InterfaceType]>,
    /// Whether no parameter may hold a handle.
    pub(crate) params_plain: bool,
    /// Whether the result may not hold a handle.
    pub(crate) result_plain: bool,
    /// Whether a synchronous call may pass the flat values of its
    /// parameters and result as the core arguments and result as they are
    /// (a synchronous lift whose parameters and result are integers or
    /// `bool`s, each one core value): `TypedFunc::call`'s fast path.
    pub(crate) scalars: bool,
    /// Whether every parameter is an integer or `bool`, each one core
    /// value (whatever the lift's options): the host's calls of an `async`
    /// function pass them flat.
    #[cfg_attr(
        not(feature = "component-model-async"),
        allow(dead_code, reason = "read by the async calls only")
    )]
    pub(crate) params_scalar: bool,
}

/// An export of a component instance.
#[derive(Clone)]
pub(crate) enum ExportItem {
    /// A lifted function (or a host function exported again), by store
    /// index.
    Func(u32),
    /// A nested instance: its exports by name.
    Instance(Vec<(String, ExportItem)>),
    /// A core module exported as is.
    Module(crate::Module),
    /// A type (nothing to call).
    Type,
}

/// An instance of a component in a store.
pub(crate) struct ComponentInstanceData {
    pub(crate) component: Component,
    pub(crate) exports: Vec<(String, ExportItem)>,
    /// The flags of each component instance of the plan.
    pub(crate) flags: Vec<Flags>,
    /// The handle table of each component instance of the plan.
    pub(crate) handles: Vec<HandleTable>,
    /// The runtime type of each resource of the component's type registry
    /// (`None` for resource variables of types, never met at run time).
    pub(crate) resource_types: Vec<Option<ResourceType>>,
    /// The resources defined by this instantiation, by
    /// `DefinedResourceIndex`.
    pub(crate) defined: Vec<DefinedResource>,
    /// The async ABI's handle table of each component instance of the plan.
    #[cfg(feature = "component-model-async")]
    pub(crate) task_tables: Vec<weft_tasks::InstanceId>,
}

impl ComponentStore {
    /// Traps when a call from the component instance `caller` into `callee`
    /// would enter an instance it is inside of or that is inside of it
    /// (the same instance, an ancestor or a descendant): those share the
    /// caller's state, so such a call is a re-entrance.
    pub(crate) fn check_enter(&self, caller: ComponentInstanceRef, callee: ComponentInstanceRef) -> crate::Result<()> {
        if caller.instance != callee.instance {
            return Ok(());
        }
        let parents = &self.instance(caller.instance)?.component.inner.plan.parents;
        let is_ancestor = |a: u32, mut b: u32| loop {
            if a == b {
                return true;
            }
            match parents.get(b as usize).copied().flatten() {
                Some(p) => b = p.0,
                None => return false,
            }
        };
        let (a, b) = (caller.component_instance, callee.component_instance);
        if is_ancestor(a, b) || is_ancestor(b, a) {
            return Err(trap("cannot enter component instance"));
        }
        Ok(())
    }

    pub(crate) fn flags(&self, r: ComponentInstanceRef) -> crate::Result<Flags> {
        self.instances
            .get(r.instance as usize)
            .and_then(|i| i.flags.get(r.component_instance as usize))
            .copied()
            .ok_or_else(|| crate::format_err!("component instance not found in store"))
    }

    pub(crate) fn instance(&self, index: u32) -> crate::Result<&ComponentInstanceData> {
        self.instances
            .get(index as usize)
            .ok_or_else(|| crate::format_err!("component instance not found in store"))
    }

    /// The handle table of the component instance `r`.
    pub(crate) fn handles(&mut self, r: ComponentInstanceRef) -> crate::Result<Handles<'_>> {
        #[cfg(feature = "component-model-async")]
        let inst = self.task_table(r)?;
        let table = self
            .instances
            .get_mut(r.instance as usize)
            .and_then(|i| i.handles.get_mut(r.component_instance as usize))
            .ok_or_else(|| crate::format_err!("component instance not found in store"))?;
        Ok(Handles {
            table,
            #[cfg(feature = "component-model-async")]
            index_space: (&mut self.tasks, inst),
        })
    }

    /// The async ABI's table (in [`ComponentStore::tasks`]) of the component
    /// instance `r`.
    #[cfg(feature = "component-model-async")]
    pub(crate) fn task_table(&self, r: ComponentInstanceRef) -> crate::Result<weft_tasks::InstanceId> {
        self.instance(r.instance)?
            .task_tables
            .get(r.component_instance as usize)
            .copied()
            .ok_or_else(|| crate::format_err!("component instance not found in store"))
    }

    /// The runtime type of resource `index` of the store instance `instance`.
    pub(crate) fn resource_type(
        &self,
        instance: u32,
        index: weft_environ::component::TypeResourceIndex,
    ) -> crate::Result<ResourceType> {
        self.instance(instance)?
            .resource_types
            .get(index.0 as usize)
            .copied()
            .flatten()
            .ok_or_else(|| crate::format_err!("resource type {} has no runtime identity", index.0))
    }

    pub(crate) fn flags_mut(&mut self, r: ComponentInstanceRef) -> crate::Result<&mut Flags> {
        self.instances
            .get_mut(r.instance as usize)
            .and_then(|i| i.flags.get_mut(r.component_instance as usize))
            .ok_or_else(|| crate::format_err!("component instance not found in store"))
    }
}
