//! Task group hooks (as Wasmtime's `TaskGroupHook`): a task group is one
//! call from the host into a component and every task it leads to (guest
//! subtasks, calls of concurrent host functions). The embedder's hook
//! hears when a group starts, each time the event loop enters and leaves
//! code of the group, and when the group's call has finished. A hook's
//! error aborts its group: the call fails with the error, and a group whose
//! `handle_enter` or `handle_exit` failed is not run again (its instance is
//! left as a trap leaves it), so the store stays usable.

use crate::{Store, StoreContextMut};
use weft_tasks::EntryId;

/// The id of a task group (see [`TaskGroupHook`]).
#[derive(Debug, Copy, Clone, Ord, PartialOrd, Eq, PartialEq, Hash)]
pub struct TaskGroupId(u64);

/// What the embedder hears of task groups (as Wasmtime's
/// `TaskGroupHook`). Each method may fail, which aborts the group.
pub trait TaskGroupHook: Send + 'static {
    /// A call from the host starts a new group.
    fn handle_start(&mut self, _group: TaskGroupId) -> crate::Result<()> {
        Ok(())
    }
    /// The event loop is about to run code of `group`.
    fn handle_enter(&mut self, _group: TaskGroupId) -> crate::Result<()> {
        Ok(())
    }
    /// The event loop stopped running code of `group`.
    fn handle_exit(&mut self, _group: TaskGroupId) -> crate::Result<()> {
        Ok(())
    }
    /// The group's call returned its result to the host.
    fn handle_finish(&mut self, _group: TaskGroupId) -> crate::Result<()> {
        Ok(())
    }
}

/// The store's hook and the next group id.
#[derive(Default)]
pub(crate) struct Hooks {
    hook: Option<Box<dyn TaskGroupHook>>,
    next: u64,
}

impl<T: 'static> Store<T> {
    /// Installs `hook` to hear of the store's task groups (replacing any
    /// earlier one).
    pub fn task_group_hook(&mut self, hook: impl TaskGroupHook) {
        crate::AsContextMut::as_context_mut(self)
            .0
            .opaque_mut()
            .components
            .sched
            .hooks
            .hook = Some(Box::new(hook));
    }
}

fn hooks<'a, T>(store: &'a mut StoreContextMut<'_, T>) -> &'a mut Hooks {
    &mut store.components_mut().sched.hooks
}

/// Starts a group for a call from the host, when a hook is installed.
pub(crate) fn start<T>(store: &mut StoreContextMut<'_, T>) -> crate::Result<Option<TaskGroupId>> {
    let hooks = hooks(store);
    let Some(hook) = hooks.hook.as_mut() else {
        return Ok(None);
    };
    hooks.next += 1;
    let group = TaskGroupId(hooks.next);
    hook.handle_start(group)?;
    Ok(Some(group))
}

/// Calls one hook method for `group`, if there is a hook.
fn call<T>(
    store: &mut StoreContextMut<'_, T>,
    group: TaskGroupId,
    f: impl FnOnce(&mut dyn TaskGroupHook, TaskGroupId) -> crate::Result<()>,
) -> crate::Result<()> {
    match hooks(store).hook.as_mut() {
        Some(hook) => f(hook.as_mut(), group),
        None => Ok(()),
    }
}

/// The event loop enters code of `group`.
pub(crate) fn enter<T>(store: &mut StoreContextMut<'_, T>, group: TaskGroupId) -> crate::Result<()> {
    call(store, group, |h, g| h.handle_enter(g))
}

/// The event loop left code of `group`.
pub(crate) fn exit<T>(store: &mut StoreContextMut<'_, T>, group: TaskGroupId) -> crate::Result<()> {
    call(store, group, |h, g| h.handle_exit(g))
}

/// The group's call returned its result to the host.
pub(crate) fn finish<T>(store: &mut StoreContextMut<'_, T>, group: TaskGroupId) -> crate::Result<()> {
    call(store, group, |h, g| h.handle_finish(g))
}

/// Runs `f`, a synchronous call from the host, as a task group of its own
/// when a hook is installed: started, entered, left and finished around
/// it.
pub(crate) fn around_call<T, R>(
    store: &mut StoreContextMut<'_, T>,
    f: impl FnOnce(&mut StoreContextMut<'_, T>) -> crate::Result<R>,
) -> crate::Result<R> {
    if hooks(store).hook.is_none() {
        return f(store);
    }
    let Some(group) = start(store)? else {
        return f(store);
    };
    enter(store, group)?;
    let r = f(store);
    let exited = exit(store, group);
    let finished = finish(store, group);
    let r = r?;
    exited.and(finished)?;
    Ok(r)
}

/// The group of `task`, if it has one.
pub(crate) fn group_of<T>(store: &StoreContextMut<'_, T>, task: EntryId) -> Option<TaskGroupId> {
    store.components().sched.task_data.get(&task).and_then(|d| d.group)
}

/// The group of the task running now (new subtasks and host calls join
/// it).
pub(crate) fn current_group<T>(store: &StoreContextMut<'_, T>) -> Option<TaskGroupId> {
    let sched = &store.components().sched;
    let cur = sched.current()?;
    sched.task_data.get(&cur.task).and_then(|d| d.group)
}

/// Aborts the group of a task whose hook failed: its instance is not
/// entered again, so its threads are not run again.
pub(crate) fn abort<T>(store: &mut StoreContextMut<'_, T>, task: EntryId, e: crate::Error) -> crate::Error {
    let flags = super::calls::task_component_instance(store.components(), task);
    abort_instance(store, flags, e)
}

/// Aborts a group whose hook failed, leaving the component instance
/// `flags` (the one its code runs in, if known) unentered: the error to
/// report.
pub(crate) fn abort_instance<T>(
    store: &mut StoreContextMut<'_, T>,
    flags: Option<crate::component::store::ComponentInstanceRef>,
    e: crate::Error,
) -> crate::Error {
    if let Some(flags) = flags {
        let _ = crate::component::call::poison_instance(store, flags);
    }
    e.context("a task group hook failed: the group is aborted")
}
