//! The component model's async ABI at run time (feature
//! `component-model-async`): the async and thread built-ins as core
//! functions, the current task of each call into a lifted function, `async`
//! lifts (the results come from `task.return`) and `async` lowers (the
//! callee runs to completion, then the caller gets `RETURNED` and the
//! results in its memory).
//!
//! Every built-in first checks the calling instance's `may_leave` flag
//! (except `backpressure.inc`/`dec` and `context.get`/`set`, which
//! CanonicalABI.md lets a `post-return` function call). The state lives in
//! the store's `weft_tasks::Tasks`. Nothing here suspends a task yet: an
//! operation that would have to (waiting with nothing pending, copying
//! through a stream or future, a new thread) fails with an error that
//! starts with `not supported yet: `, leaving the store usable.

use super::instance::Tables;
use super::store::FlagsRef;
use super::Component;
use crate::StoreContextMut;
use weft_environ::component::Builtin;

/// The core function of a canonical built-in called by the component
/// instance `at`.
#[cfg(not(feature = "component-model-async"))]
pub(super) fn builtin<T: 'static>(
    _store: &mut StoreContextMut<'_, T>,
    _component: &Component,
    _t: &Tables,
    _at: FlagsRef,
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

/// The results of an `async` lift (never made without the feature).
#[cfg(not(feature = "component-model-async"))]
pub(crate) fn async_results<T>(
    _store: &mut StoreContextMut<'_, T>,
    _has_callback: bool,
    _core_results: &[crate::Val],
) -> crate::Result<Vec<super::Val>> {
    crate::bail!("unsupported: `async` lifts need Weft's `component-model-async` feature")
}

#[cfg(feature = "component-model-async")]
pub(crate) use imp::*;

#[cfg(feature = "component-model-async")]
mod imp {
    use super::*;
    use crate::component::call::{check_may_leave, core_val, slot};
    use crate::component::instance::resolve_options;
    use crate::component::store::CurrentTask;
    use crate::component::store::Options;
    use crate::component::{lift_flat_values, trap, InterfaceType, LiftContext, Val};
    use crate::{AsContextMut, Extern, ValType};
    use std::sync::Arc;
    use weft_environ::component::abi::{FlatType, MAX_FLAT_PARAMS};
    use weft_environ::component::ComponentTypes;
    use weft_tasks::{InstanceId, Kind, TaskError};

    /// `CallbackCode.EXIT`: an async callback's "the task is done".
    const CALLBACK_EXIT: u32 = 0;

    fn not_yet(what: impl std::fmt::Display) -> crate::Error {
        crate::format_err!("not supported yet: {what} (the component model async ABI cannot suspend a task yet)")
    }

    fn task_trap(e: TaskError) -> crate::Error {
        trap(e)
    }

    fn core_ty(t: &FlatType) -> ValType {
        match t {
            FlatType::I32 => ValType::I32,
            FlatType::I64 => ValType::I64,
            FlatType::F32 => ValType::F32,
            FlatType::F64 => ValType::F64,
        }
    }

    /// What a built-in needs of its options, resolved in the store.
    #[derive(Clone)]
    struct Resolved {
        options: Option<Options>,
        memory: Option<crate::Memory>,
    }

    pub(in crate::component) fn builtin<T: 'static>(
        store: &mut StoreContextMut<'_, T>,
        component: &Component,
        t: &Tables,
        at: FlagsRef,
        builtin: &Builtin,
    ) -> crate::Result<crate::Func> {
        let types = component.inner.types.clone();
        let (params, results) = builtin.signature(&types);
        let ty = crate::FuncType::new(store.engine(), params.iter().map(core_ty), results.iter().map(core_ty));
        let options = match builtin {
            Builtin::TaskReturn { options, .. }
            | Builtin::StreamRead(_, options)
            | Builtin::StreamWrite(_, options)
            | Builtin::FutureRead(_, options)
            | Builtin::FutureWrite(_, options)
            | Builtin::ErrorContextNew(options)
            | Builtin::ErrorContextDebugMessage(options) => Some(resolve_options(t, at.instance, options)?),
            _ => None,
        };
        let memory = match builtin {
            Builtin::WaitableSetWait(m) | Builtin::WaitableSetPoll(m) => match t.item(*m)? {
                Extern::Memory(m) => Some(m),
                _ => crate::bail!("the `memory` of `{}` is not a memory", builtin.name()),
            },
            _ => options.as_ref().and_then(|o| o.memory),
        };
        let resolved = Resolved { options, memory };
        let result_ty = results.first().copied();
        let builtin = builtin.clone();
        Ok(crate::Func::new(&mut *store, ty, move |mut caller, params, results| {
            let mut store = caller.as_context_mut();
            if !matches!(
                builtin,
                Builtin::BackpressureInc | Builtin::BackpressureDec | Builtin::ContextGet(_) | Builtin::ContextSet(_)
            ) {
                check_may_leave(&store, at)?;
            }
            let args = params.iter().map(slot).collect::<crate::Result<Vec<u64>>>()?;
            let result = run(&mut store, &types, at, &builtin, &resolved, &args)?;
            if let (Some(r), Some(t), Some(v)) = (results.first_mut(), result_ty, result) {
                *r = core_val(t, v);
            }
            Ok(())
        }))
    }

    fn arg(args: &[u64], i: usize) -> u32 {
        args.get(i).copied().unwrap_or(0) as u32
    }

    fn table<T>(store: &StoreContextMut<'_, T>, at: FlagsRef) -> crate::Result<InstanceId> {
        store
            .0
            .opaque()
            .components
            .instance(at.instance)?
            .task_tables
            .get(at.component_instance as usize)
            .copied()
            .ok_or_else(|| crate::format_err!("component instance not found in store"))
    }

    fn current<'a, T>(store: &'a mut StoreContextMut<'_, T>, name: &str) -> crate::Result<&'a mut CurrentTask> {
        match store.0.opaque_mut().components.current_tasks.last_mut() {
            Some(t) => Ok(t),
            None => Err(trap(format_args!("`{name}` called with no current task"))),
        }
    }

    /// The stream or future type a built-in names, as the tag the task
    /// table checks ends against.
    fn type_tag(ty: &InterfaceType) -> u32 {
        match ty {
            InterfaceType::Defined(d) => d.0,
            _ => u32::MAX,
        }
    }

    /// Writes the `u32`s `values` at `ptr` in `memory` (4-aligned, in
    /// bounds, else a trap).
    fn store_u32s<T>(
        store: &mut StoreContextMut<'_, T>,
        memory: Option<crate::Memory>,
        ptr: u32,
        values: &[u32],
    ) -> crate::Result<()> {
        let Some(memory) = memory else {
            crate::bail!("the built-in has no memory");
        };
        if !ptr.is_multiple_of(4) {
            return Err(trap(format_args!("unaligned pointer {ptr:#x}")));
        }
        let data = memory.data_mut(&mut *store);
        let end = u64::from(ptr) + 4 * values.len() as u64;
        if end > data.len() as u64 {
            return Err(trap(format_args!("pointer {ptr:#x} out of bounds of memory")));
        }
        for (i, v) in values.iter().enumerate() {
            let at = ptr as usize + 4 * i;
            data[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        Ok(())
    }

    /// The end kinds of a stream or future built-in: (readable, writable).
    /// The kind of end a `stream.*` or `future.*` built-in acts on (read,
    /// cancel-read and drop-readable on the readable end; the others on the
    /// writable one).
    fn end_kind(builtin: &Builtin) -> Kind {
        use Builtin as B;
        match builtin {
            B::StreamRead(..) | B::StreamCancelRead(..) | B::StreamDropReadable(_) => Kind::ReadableStream,
            B::StreamWrite(..) | B::StreamCancelWrite(..) | B::StreamDropWritable(_) => Kind::WritableStream,
            B::FutureRead(..) | B::FutureCancelRead(..) | B::FutureDropReadable(_) => Kind::ReadableFuture,
            _ => Kind::WritableFuture,
        }
    }

    fn run<T: 'static>(
        store: &mut StoreContextMut<'_, T>,
        types: &Arc<ComponentTypes>,
        at: FlagsRef,
        builtin: &Builtin,
        resolved: &Resolved,
        args: &[u64],
    ) -> crate::Result<Option<u64>> {
        use Builtin as B;
        let name = builtin.name();
        let inst = table(store, at)?;
        let u = |v: u32| Some(u64::from(v));
        match builtin {
            B::TaskReturn { result, .. } => {
                task_return(store, types, at, *result, resolved, args)?;
                Ok(None)
            }
            B::TaskCancel => {
                let func = current(store, name)?.func;
                let f = store.0.opaque().components.funcs.get(func as usize).cloned();
                if !f.is_some_and(|f| f.options.is_async) {
                    return Err(trap("`task.cancel` called by a function lifted without `async`"));
                }
                Err(trap("`task.cancel` called without a pending cancellation request"))
            }
            B::ContextGet(i) => {
                let id = current(store, name)?.id;
                let v = store
                    .0
                    .opaque()
                    .components
                    .tasks
                    .context_get(id, *i)
                    .map_err(task_trap)?;
                Ok(u(v))
            }
            B::ContextSet(i) => {
                let id = current(store, name)?.id;
                let tasks = &mut store.0.opaque_mut().components.tasks;
                tasks.context_set(id, *i, arg(args, 0)).map_err(task_trap)?;
                Ok(None)
            }
            B::BackpressureInc | B::BackpressureDec => {
                let data = store
                    .0
                    .opaque_mut()
                    .components
                    .instances
                    .get_mut(at.instance as usize)
                    .ok_or_else(|| crate::format_err!("component instance not found in store"))?;
                let Some(counter) = data.backpressure.get_mut(at.component_instance as usize) else {
                    crate::bail!("component instance not found in store");
                };
                *counter = if matches!(builtin, B::BackpressureInc) {
                    counter
                        .checked_add(1)
                        .filter(|c| *c < 1 << 16)
                        .ok_or_else(|| trap("backpressure counter overflow"))?
                } else {
                    counter
                        .checked_sub(1)
                        .ok_or_else(|| trap("backpressure counter underflow"))?
                };
                Ok(None)
            }
            // With one thread per task and no suspension, nothing else can
            // run: yielding returns at once, not cancelled.
            B::ThreadYield => Ok(u(0)),
            // A component instance runs one task at a time (no task can
            // suspend), so its thread table holds only the current thread.
            B::ThreadIndex => {
                current(store, name)?;
                Ok(u(1))
            }
            B::ThreadNewIndirect { .. }
            | B::ThreadResumeLater
            | B::ThreadSuspend
            | B::ThreadSuspendThenResume
            | B::ThreadYieldThenResume
            | B::ThreadSuspendThenPromote
            | B::ThreadYieldThenPromote => Err(not_yet(format_args!("`{name}` (threads)"))),
            B::WaitableSetNew => {
                let tasks = &mut store.0.opaque_mut().components.tasks;
                Ok(u(tasks.waitable_set_new(inst).map_err(task_trap)?))
            }
            B::WaitableSetWait(_) | B::WaitableSetPoll(_) => {
                let tasks = &mut store.0.opaque_mut().components.tasks;
                let (code, index, payload) = tasks.waitable_set_poll(inst, arg(args, 0)).map_err(task_trap)?;
                if code == weft_tasks::EVENT_NONE && matches!(builtin, B::WaitableSetWait(_)) {
                    check_may_block(store)?;
                    return Err(not_yet("`waitable-set.wait` with no event pending"));
                }
                store_u32s(store, resolved.memory, arg(args, 1), &[index, payload])?;
                Ok(u(code))
            }
            B::WaitableSetDrop => {
                let tasks = &mut store.0.opaque_mut().components.tasks;
                tasks.waitable_set_drop(inst, arg(args, 0)).map_err(task_trap)?;
                Ok(None)
            }
            B::WaitableJoin => {
                let tasks = &mut store.0.opaque_mut().components.tasks;
                tasks
                    .waitable_join(inst, arg(args, 0), arg(args, 1))
                    .map_err(task_trap)?;
                Ok(None)
            }
            B::SubtaskCancel(_) => {
                let i = arg(args, 0);
                let kind = store
                    .0
                    .opaque()
                    .components
                    .tasks
                    .handle_kind(inst, i)
                    .map_err(task_trap)?;
                if kind != Kind::Subtask {
                    return Err(trap(format_args!("handle index {i} is not a subtask")));
                }
                Err(not_yet("`subtask.cancel`"))
            }
            B::SubtaskDrop => {
                let tasks = &mut store.0.opaque_mut().components.tasks;
                tasks.subtask_drop(inst, arg(args, 0)).map_err(task_trap)?;
                Ok(None)
            }
            B::StreamNew(ty) | B::FutureNew(ty) => {
                let tasks = &mut store.0.opaque_mut().components.tasks;
                let (r, w) = if matches!(builtin, B::StreamNew(_)) {
                    tasks.stream_new(inst, type_tag(ty))
                } else {
                    tasks.future_new(inst, type_tag(ty))
                }
                .map_err(task_trap)?;
                Ok(Some(u64::from(r) | u64::from(w) << 32))
            }
            B::StreamRead(ty, _) | B::StreamWrite(ty, _) | B::FutureRead(ty, _) | B::FutureWrite(ty, _) => {
                let kind = end_kind(builtin);
                let tasks = &store.0.opaque().components.tasks;
                tasks
                    .check_end(inst, arg(args, 0), kind, type_tag(ty))
                    .map_err(task_trap)?;
                Err(not_yet(format_args!("`{name}` (copying through streams and futures)")))
            }
            B::StreamCancelRead(ty, _)
            | B::StreamCancelWrite(ty, _)
            | B::FutureCancelRead(ty, _)
            | B::FutureCancelWrite(ty, _) => {
                let kind = end_kind(builtin);
                let tasks = &store.0.opaque().components.tasks;
                tasks
                    .check_end(inst, arg(args, 0), kind, type_tag(ty))
                    .map_err(task_trap)?;
                // No copy is ever left in progress.
                Err(trap(format_args!("`{name}` with no copy in progress to cancel")))
            }
            B::StreamDropReadable(ty)
            | B::StreamDropWritable(ty)
            | B::FutureDropReadable(ty)
            | B::FutureDropWritable(ty) => {
                let kind = end_kind(builtin);
                let tasks = &mut store.0.opaque_mut().components.tasks;
                tasks
                    .drop_end(inst, arg(args, 0), kind, type_tag(ty))
                    .map_err(task_trap)?;
                Ok(None)
            }
            B::ErrorContextNew(_) => {
                let Some(options) = &resolved.options else {
                    crate::bail!("`error-context.new` has no options");
                };
                let message = {
                    let cx = LiftContext {
                        types,
                        memory: options.memory.map_or(&[][..], |m| m.data(&*store)),
                        encoding: options.encoding,
                    };
                    match lift_flat_values(&cx, MAX_FLAT_PARAMS, &[InterfaceType::String], args)?.pop() {
                        Some(Val::String(s)) => s,
                        _ => String::new(),
                    }
                };
                let tasks = &mut store.0.opaque_mut().components.tasks;
                Ok(u(tasks.error_context_new(inst, message).map_err(task_trap)?))
            }
            B::ErrorContextDebugMessage(_) => {
                let tasks = &store.0.opaque().components.tasks;
                tasks.error_context_message(inst, arg(args, 0)).map_err(task_trap)?;
                Err(not_yet("`error-context.debug-message`"))
            }
            B::ErrorContextDrop => {
                let tasks = &mut store.0.opaque_mut().components.tasks;
                tasks.error_context_drop(inst, arg(args, 0)).map_err(task_trap)?;
                Ok(None)
            }
        }
    }

    /// `Task.may_block`: a task of a function type without `async` may not
    /// block before it returns.
    fn check_may_block<T>(store: &mut StoreContextMut<'_, T>) -> crate::Result<()> {
        let (id, func) = {
            let c = current(store, "a blocking built-in")?;
            (c.id, c.func)
        };
        let components = &store.0.opaque().components;
        let returned = components.tasks.task(id).map_err(task_trap)?.returned;
        let async_type = components
            .funcs
            .get(func as usize)
            .and_then(|f| f.types.func(f.ty).map(|t| t.is_async))
            .unwrap_or(false);
        if !async_type && !returned {
            return Err(trap("cannot block a synchronous task before returning"));
        }
        Ok(())
    }

    /// `canon task.return`: checks the current task (lifted `async` by the
    /// calling instance, with this result type and the same options),
    /// lifts the result and keeps it for the call to take.
    fn task_return<T: 'static>(
        store: &mut StoreContextMut<'_, T>,
        types: &Arc<ComponentTypes>,
        at: FlagsRef,
        result: Option<InterfaceType>,
        resolved: &Resolved,
        args: &[u64],
    ) -> crate::Result<()> {
        let (id, func) = {
            let c = current(store, "task.return")?;
            (c.id, c.func)
        };
        let f = store
            .0
            .opaque()
            .components
            .funcs
            .get(func as usize)
            .cloned()
            .ok_or_else(|| crate::format_err!("component function not found in store"))?;
        if !f.options.is_async {
            return Err(trap("`task.return` called by a function lifted without `async`"));
        }
        if f.options.flags != at {
            return Err(trap(
                "`task.return` called by another component instance than the task's",
            ));
        }
        let task_result = f.types.func(f.ty).and_then(|t| t.result);
        if !std::ptr::eq::<ComponentTypes>(&**f.types, &**types) || task_result != result {
            return Err(trap(
                "`task.return` result type does not match the task's function type",
            ));
        }
        let Some(options) = &resolved.options else {
            crate::bail!("`task.return` has no options");
        };
        if options.memory != f.options.memory || options.encoding != f.options.encoding {
            return Err(trap(
                "`task.return` options differ from the task's `canon lift` options",
            ));
        }
        let tys: Vec<InterfaceType> = result.into_iter().collect();
        let vals = {
            let cx = LiftContext {
                types,
                memory: options.memory.map_or(&[][..], |m| m.data(&*store)),
                encoding: options.encoding,
            };
            lift_flat_values(&cx, MAX_FLAT_PARAMS, &tys, args)?
        };
        store
            .0
            .opaque_mut()
            .components
            .tasks
            .task_return(id)
            .map_err(task_trap)?;
        current(store, "task.return")?.result = Some(vals);
        Ok(())
    }

    /// Starts the task of a call into the lifted function `func`; returns
    /// the depth of the task stack to restore when the call ends.
    pub(crate) fn enter_task<T>(store: &mut StoreContextMut<'_, T>, func: u32) -> crate::Result<usize> {
        let components = &mut store.0.opaque_mut().components;
        let is_async = components.funcs.get(func as usize).is_some_and(|f| f.options.is_async);
        let id = components.tasks.new_task(is_async);
        let depth = components.current_tasks.len();
        components.current_tasks.push(CurrentTask { id, func, result: None });
        Ok(depth)
    }

    /// Ends the task [`enter_task`] started at `depth`, and any task above
    /// it that a call unwound by a panic left behind.
    pub(crate) fn exit_task<T>(store: &mut StoreContextMut<'_, T>, depth: usize) -> crate::Result<()> {
        let components = &mut store.0.opaque_mut().components;
        while components.current_tasks.len() > depth {
            if let Some(task) = components.current_tasks.pop() {
                components.tasks.release(task.id).map_err(task_trap)?;
            }
        }
        Ok(())
    }

    /// Ends the innermost task (that of a fused adapter's call).
    pub(crate) fn exit_innermost_task<T>(store: &mut StoreContextMut<'_, T>) -> crate::Result<()> {
        let depth = store.0.opaque().components.current_tasks.len().saturating_sub(1);
        exit_task(store, depth)
    }

    /// The results of an `async` lift's core function: with a `callback`,
    /// its first result must be `EXIT` (waiting or yielding would need to
    /// suspend); then the values `task.return` gave.
    pub(crate) fn async_results<T>(
        store: &mut StoreContextMut<'_, T>,
        has_callback: bool,
        core_results: &[crate::Val],
    ) -> crate::Result<Vec<Val>> {
        if has_callback {
            let code = core_results.first().map(slot).transpose()?.unwrap_or(0) as u32;
            if code & 0xf != CALLBACK_EXIT {
                return Err(not_yet(format_args!(
                    "an async callback that asks to wait or yield (code {code:#x})"
                )));
            }
        }
        match current(store, "the end of an async call")?.result.take() {
            Some(v) => Ok(v),
            None => Err(trap(
                "the async function's core function returned without calling `task.return`",
            )),
        }
    }
}
