//! The component model's async ABI at run time (feature
//! `component-model-async`).
//!
//! `weft-tasks` owns the state and the rules; this module binds them to the
//! store, to fibers and to canonical-ABI calls:
//! - `sched`: running threads. A task of an `async`-typed function runs its
//!   threads on fibers of the engine's pool and suspends them when they
//!   wait; a task of a synchronous function type runs on its caller's stack
//!   and may not block before it returns (while it waits, other ready
//!   threads of its instance run, as `canon_lift` says, else it traps). The
//!   host's calls drive the waiting threads until their own call resolves,
//!   and trap with "deadlock detected" when nothing can run.
//! - `calls`: calls into lifted functions (`canon lift`: backpressure, the
//!   callback loop) and through lowered ones (`canon lower`: subtasks).
//! - `builtins`: the async and thread built-ins as core functions.
//! - `copy`: the bytes of stream and future copies.
//! - `streams`, `buffers`, `readers`: host streams and futures (producers,
//!   consumers, their buffers, and the host's readable ends);
//!   `host_streams` and `drivers` run them against the guest's copies.

// Import loop kept on purpose: instantiation (instance.rs) makes the async
// ABI's built-ins here, from the items of the instance being made.
#[cfg(not(feature = "component-model-async"))]
use super::{instance::InstantiationItems, store::ComponentInstanceRef, Component};
#[cfg(not(feature = "component-model-async"))]
use crate::StoreContextMut;
#[cfg(not(feature = "component-model-async"))]
use weft_environ::component::Builtin;

#[cfg(feature = "component-model-async")]
mod accessor;
#[cfg(feature = "component-model-async")]
mod buffers;
#[cfg(feature = "component-model-async")]
mod builtins;
#[cfg(feature = "component-model-async")]
mod call_concurrent;
#[cfg(feature = "component-model-async")]
mod calls;
#[cfg(feature = "component-model-async")]
mod copy;
#[cfg(feature = "component-model-async")]
mod dense_map;
#[cfg(feature = "component-model-async")]
mod drivers;
#[cfg(feature = "component-model-async")]
mod hold;
#[cfg(feature = "component-model-async")]
mod hooks;
#[cfg(feature = "component-model-async")]
mod host;
#[cfg(feature = "component-model-async")]
mod host_streams;
#[cfg(feature = "component-model-async")]
mod readers;
#[cfg(feature = "component-model-async")]
mod sched;
#[cfg(feature = "component-model-async")]
mod streams;
#[cfg(feature = "component-model-async")]
mod values;

#[cfg(feature = "component-model-async")]
pub use accessor::{Access, Accessor, AccessorTask, AsAccessor, JoinHandle};
#[cfg(feature = "component-model-async")]
pub use buffers::{ReadBuffer, VecBuffer, WriteBuffer};
#[cfg(feature = "component-model-async")]
pub(in crate::component) use builtins::builtin;
#[cfg(feature = "component-model-async")]
pub use call_concurrent::{FuncCallConcurrent, GuestTaskId, TypedFuncCallConcurrent};
#[cfg(feature = "component-model-async")]
pub(crate) use calls::{
    call_async_typed, call_lowered, enter_task, exit_innermost_task, exit_task, is_async_typed, AsyncAdapter,
};
#[cfg(feature = "component-model-async")]
pub(crate) use hold::block_on_store;
#[cfg(feature = "component-model-async")]
pub(crate) use hooks::around_call;
#[cfg(feature = "component-model-async")]
pub use hooks::{TaskGroupHook, TaskGroupId};
#[cfg(feature = "component-model-async")]
pub(crate) use host::{call_host, start_detached, HostFuture};
#[cfg(feature = "component-model-async")]
pub(crate) use host_streams::HostStreams;
#[cfg(feature = "component-model-async")]
pub use readers::{ErrorContext, FutureReader, GuardedFutureReader, GuardedStreamReader, StreamReader};
#[cfg(feature = "component-model-async")]
pub(crate) use sched::{cancel_all, current_stack, yield_thread, Sched};
#[cfg(feature = "component-model-async")]
pub use streams::{
    Destination, DirectDestination, DirectSource, FutureConsumer, FutureProducer, Source, StreamConsumer,
    StreamProducer, StreamResult,
};
#[cfg(feature = "component-model-async")]
pub(crate) use values::{lift_async_value, lower_async_value, transfer_async_value};

/// The core function of a canonical built-in called by the component
/// instance `at`.
#[cfg(not(feature = "component-model-async"))]
pub(super) fn builtin<T: 'static>(
    _store: &mut StoreContextMut<'_, T>,
    _component: &Component,
    _t: &InstantiationItems,
    _at: ComponentInstanceRef,
    builtin: &Builtin,
) -> crate::Result<crate::Func> {
    crate::bail!(
        "unsupported: canon `{}` needs Weft's `component-model-async` feature",
        builtin.name()
    )
}

/// Starts the task of a call into a lifted function (nothing to do
/// without the async ABI).
#[cfg(not(feature = "component-model-async"))]
pub(crate) fn enter_task<T>(_store: &mut StoreContextMut<'_, T>, _func: u32) -> crate::Result<usize> {
    Ok(0)
}

/// Ends the current task.
#[cfg(not(feature = "component-model-async"))]
pub(crate) fn exit_task<T>(_store: &mut StoreContextMut<'_, T>, _depth: usize) -> crate::Result<()> {
    Ok(())
}

/// Ends the innermost task.
#[cfg(not(feature = "component-model-async"))]
pub(crate) fn exit_innermost_task<T>(_store: &mut StoreContextMut<'_, T>) -> crate::Result<()> {
    Ok(())
}

/// The readable dump of [`crate::Store::debug_concurrent_state`].
#[cfg(feature = "component-model-async")]
pub(crate) fn describe_state(components: &super::store::ComponentStore) -> String {
    let mut out = components.tasks.describe();
    out.push_str(&components.sched.host.describe());
    out.push_str(&components.host_streams.describe());
    out
}

#[cfg(feature = "component-model-async")]
impl<T: 'static> crate::Store<T> {
    /// A readable dump of the store's component-model async state: every
    /// component instance's handles, every live task, subtask, waitable
    /// set, stream, future and error context with its reference count, and
    /// what each waiting thread waits for. (Weft's own; Wasmtime has none.)
    pub fn debug_concurrent_state(&self) -> String {
        describe_state(&self.inner().opaque.components)
    }

    /// How many entries the store's concurrent state holds: tasks,
    /// threads, subtasks, waitable sets, streams, futures, error contexts
    /// and host tasks (as Wasmtime's `concurrent_state_table_size`).
    #[doc(hidden)]
    pub fn concurrent_state_table_size(&mut self) -> usize {
        crate::AsContextMut::as_context_mut(self).concurrent_state_table_size()
    }

    /// [`StoreContextMut::assert_concurrent_state_empty`](crate::StoreContextMut::assert_concurrent_state_empty)
    /// on this store.
    #[doc(hidden)]
    pub fn assert_concurrent_state_empty(&mut self) {
        crate::AsContextMut::as_context_mut(self).assert_concurrent_state_empty();
    }

    /// Checks that the task table holds nothing but what its live handles,
    /// threads and links own: every reference count adds up. Fails with the
    /// entries that do not (a leak, or a double release). Used by
    /// `weft wast` after each script.
    #[doc(hidden)]
    pub fn check_concurrent_state(&self) -> crate::Result<()> {
        let components = &self.inner().opaque.components;
        // Call futures dropped since the store last ran still hold their
        // tasks, until the store releases them.
        let dropped_calls = components.sched.host.dropped_holds();
        let held: Vec<weft_tasks::EntryId> = components
            .sched
            .running
            .iter()
            .filter(|r| !components.sched.has_fiber(r.thread))
            .map(|r| r.task)
            .chain(components.sched.host.held_subtasks())
            .chain(components.host_streams.held())
            .chain(dropped_calls)
            .collect();
        components.tasks.check_references(&held).map_err(|problems| {
            crate::format_err!(
                "the task table does not add up:\n{problems}state:\n{}",
                components.tasks.describe()
            )
        })
    }
}
