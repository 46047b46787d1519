//! Streams, futures and error contexts crossing a component boundary:
//! lifting takes a stream or future's readable end out of the lifting
//! instance (`lift_async_value`) and shares an error context
//! (`lift_error_context`); lowering puts them in the destination's table.

use super::builtins::type_tag;
use super::calls::{task_instance, task_trap};
use crate::component::async_values::AsyncHandle;
use crate::component::handles::for_each_handle;
use crate::component::store::ComponentInstanceRef;
use crate::component::{InterfaceType, Val};
use crate::StoreContextMut;
use weft_environ::component::ComponentTypes;
use weft_tasks::{EntryId, Kind};

/// Moves the streams, futures and error contexts of `vals` (lifted from
/// the component instance `from` as raw indices) to the store.
pub(crate) fn lift_async_values<T>(
    store: &mut StoreContextMut<'_, T>,
    types: &ComponentTypes,
    tys: &[InterfaceType],
    vals: &mut [Val],
    from: ComponentInstanceRef,
) -> crate::Result<()> {
    if !tys.iter().any(|t| types.contains_async_value(*t)) {
        return Ok(());
    }
    let inst = task_instance(store, from)?;
    let tasks = &mut store.0.opaque_mut().components.tasks;
    for (t, v) in tys.iter().zip(vals.iter_mut()) {
        for_each_handle(types, *t, v, &mut |ty, v| {
            let (handle, kind) = match v {
                Val::Stream(s) => (&mut s.0, Kind::ReadableStream),
                Val::Future(f) => (&mut f.0, Kind::ReadableFuture),
                Val::ErrorContext(e) => (&mut e.0, Kind::ErrorContext),
                _ => return Ok(()),
            };
            let AsyncHandle::Raw(index) = *handle else {
                return Ok(());
            };
            let id = if kind == Kind::ErrorContext {
                tasks.lift_error_context(inst, index)
            } else {
                tasks.lift_end(inst, index, kind, type_tag(&ty))
            }
            .map_err(task_trap)?;
            *handle = AsyncHandle::Host(id.index());
            Ok(())
        })?;
    }
    Ok(())
}

/// Moves the streams, futures and error contexts of `vals` (held by the
/// store) into the table of the component instance `to`, as raw indices.
pub(crate) fn lower_async_values<T>(
    store: &mut StoreContextMut<'_, T>,
    types: &ComponentTypes,
    tys: &[InterfaceType],
    vals: &mut [Val],
    to: ComponentInstanceRef,
) -> crate::Result<()> {
    if !tys.iter().any(|t| types.contains_async_value(*t)) {
        return Ok(());
    }
    let inst = task_instance(store, to)?;
    let tasks = &mut store.0.opaque_mut().components.tasks;
    for (t, v) in tys.iter().zip(vals.iter_mut()) {
        for_each_handle(types, *t, v, &mut |ty, v| {
            let handle = match v {
                Val::Stream(s) => &mut s.0,
                Val::Future(f) => &mut f.0,
                Val::ErrorContext(e) => &mut e.0,
                _ => return Ok(()),
            };
            let AsyncHandle::Host(id) = *handle else {
                crate::bail!("a stream, future or error context lifted from a component instance was used twice");
            };
            let index = tasks
                .lower_handle(inst, EntryId::from_index(id), type_tag(&ty))
                .map_err(task_trap)?;
            *handle = AsyncHandle::Raw(index);
            Ok(())
        })?;
    }
    Ok(())
}
