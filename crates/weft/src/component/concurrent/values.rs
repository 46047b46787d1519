//! Streams, futures and error contexts crossing a component boundary:
//! lifting takes a stream or future's readable end out of the lifting
//! instance (`lift_async_value`) and shares an error context
//! (`lift_error_context`); lowering puts them in the destination's table.
//! `handles::lift_resources` and `lower_resources` call these for each such
//! value, in the same walk that moves resources.

// Import loop kept on purpose: the files of `concurrent/` are one event
// loop split by size (threads in sched.rs, tasks in calls.rs, host tasks in
// host.rs, built-ins and copies); a resumed thread runs calls that wait in
// the loop, so each part calls the others.
use super::builtins::type_tag;
use super::host_streams;
use crate::component::async_values::AsyncHandle;
use crate::component::store::{ComponentInstanceRef, ComponentStore};
use crate::component::{trap, InterfaceType, Val};
use crate::store::StoreId;
use weft_tasks::Kind;

/// Moves the stream, future or error context `v` (of type `ty`, lifted
/// from the component instance `from` as a raw index) to the store, held
/// for the host of the store `store`.
pub(crate) fn lift_async_value(
    components: &mut ComponentStore,
    store: StoreId,
    from: ComponentInstanceRef,
    ty: InterfaceType,
    v: &mut Val,
) -> crate::Result<()> {
    let (handle, kind) = match v {
        Val::Stream(s) => (&mut s.0, Kind::ReadableStream),
        Val::Future(f) => (&mut f.0, Kind::ReadableFuture),
        Val::ErrorContext(e) => (&mut e.0, Kind::ErrorContext),
        _ => return Ok(()),
    };
    let AsyncHandle::Raw(index) = *handle else {
        return Ok(());
    };
    let inst = components.task_table(from)?;
    let tasks = &mut components.tasks;
    let id = if kind == Kind::ErrorContext {
        tasks.lift_error_context(inst, index)
    } else {
        tasks.lift_end(inst, index, kind, type_tag(&ty))
    }
    .map_err(trap)?;
    *handle = AsyncHandle::Host(host_streams::new_hold(components, store, id, None));
    Ok(())
}

/// Moves the stream, future or error context `v` (of type `ty`, held by the
/// host of the store `store`) into the table of the component instance
/// `to`, as a raw index.
pub(crate) fn lower_async_value(
    components: &mut ComponentStore,
    store: StoreId,
    to: ComponentInstanceRef,
    ty: InterfaceType,
    v: &mut Val,
) -> crate::Result<()> {
    let handle = match v {
        Val::Stream(s) => &mut s.0,
        Val::Future(f) => &mut f.0,
        Val::ErrorContext(e) => &mut e.0,
        _ => return Ok(()),
    };
    let AsyncHandle::Host(hold) = &*handle else {
        crate::bail!("a stream, future or error context lifted from a component instance was used twice");
    };
    let hold = hold.clone();
    let id = host_streams::take(&hold, store)?;
    let lowered = components
        .task_table(to)
        .and_then(|inst| components.tasks.lower_handle(inst, id, type_tag(&ty)).map_err(trap));
    match lowered {
        Ok(index) => {
            host_streams::moved(components, id);
            *handle = AsyncHandle::Raw(index);
            Ok(())
        }
        Err(e) => {
            host_streams::put_back(&hold, id);
            Err(e)
        }
    }
}

/// Moves the stream or future readable end `index` of `from` (`kind` is
/// one of the adapter's `ASYNC_*` kinds, `tag` its type) to a new handle of
/// `to`, or shares the error context `index`, for a fused adapter: the new
/// index in `to`.
pub(crate) fn transfer_async_value(
    components: &mut ComponentStore,
    from: ComponentInstanceRef,
    to: ComponentInstanceRef,
    kind: u32,
    tag: u32,
    index: u32,
) -> crate::Result<u32> {
    use weft_environ::component::adapter::{ASYNC_ERROR_CONTEXT, ASYNC_FUTURE, ASYNC_STREAM};
    let from = components.task_table(from)?;
    let to = components.task_table(to)?;
    let tasks = &mut components.tasks;
    let id = match kind {
        ASYNC_STREAM => tasks.lift_end(from, index, Kind::ReadableStream, tag),
        ASYNC_FUTURE => tasks.lift_end(from, index, Kind::ReadableFuture, tag),
        ASYNC_ERROR_CONTEXT => tasks.lift_error_context(from, index),
        _ => crate::bail!("internal error: unknown kind {kind} of a fused adapter's value"),
    }
    .map_err(trap)?;
    tasks.lower_handle(to, id, tag).map_err(|e| {
        // The value reaches nobody: an end is dropped, a shared error
        // context released.
        let _ = if tasks.is_end(id) {
            tasks.drop_host_end(id)
        } else {
            tasks.release(id)
        };
        trap(e)
    })
}
