//! The async and thread built-ins as core functions.
//!
//! Every built-in first checks the calling instance's `may_leave` flag
//! (except `backpressure.inc`/`dec` and `context.get`/`set`, which
//! CanonicalABI.md lets a `post-return` function call). The state lives in
//! the store's `weft_tasks::Tasks`; each built-in follows its `canon_*`
//! definition in CanonicalABI.md.

// Import loop kept on purpose: the files of `concurrent/` are one event
// loop split by size (threads in sched.rs, tasks in calls.rs, host tasks in
// host.rs, built-ins and copies); a resumed thread runs calls that wait in
// the loop, so each part calls the others.
use super::calls::{resolve, task_instance};
use super::copy::{self, CopyCx};
use super::sched::{self, check_may_block, current};
use crate::component::call::check_may_leave;
use crate::component::instance::{resolve_options, InstantiationItems};
use crate::component::store::{ComponentInstanceRef, Options};
use crate::component::{lift_flat_values, trap, Component, InterfaceType, LiftContext, Val};
use crate::{Extern, StoreContextMut, ValType};
use std::sync::Arc;
use weft_environ::component::abi::{FlatType, MAX_FLAT_PARAMS};
use weft_environ::component::{Builtin, ComponentTypes};
use weft_tasks::{CancelAction, EntryId, InstanceId, Kind, WaitFor};

/// `BLOCKED`: a copy or cancellation that did not finish at once.
pub(crate) const BLOCKED: u32 = 0xffff_ffff;

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
    /// The copy context of a `stream.read`/`write`, `future.read`/`write`.
    copy_cx: u32,
    /// The table of `thread.new-indirect`.
    table: Option<crate::Table>,
}

/// The core function of a canonical built-in called by the component
/// instance `at`.
pub(in crate::component) fn builtin<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    component: &Component,
    t: &InstantiationItems,
    at: ComponentInstanceRef,
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
    let copy_cx = match (builtin, &options) {
        (
            Builtin::StreamRead(ty, _)
            | Builtin::StreamWrite(ty, _)
            | Builtin::FutureRead(ty, _)
            | Builtin::FutureWrite(ty, _),
            Some(o),
        ) => copy::register(store, &types, *ty, o.clone())?,
        _ => 0,
    };
    let table = match builtin {
        Builtin::ThreadNewIndirect { table } => match t.item(*table)? {
            Extern::Table(t) => Some(t),
            _ => crate::bail!("the table of `thread.new-indirect` is not a table"),
        },
        _ => None,
    };
    let resolved = Resolved {
        options,
        memory,
        copy_cx,
        table,
    };
    let builtin = builtin.clone();
    Ok(crate::func::new_flat_host(store.0, ty, move |mut store, args| {
        if !matches!(
            builtin,
            Builtin::BackpressureInc | Builtin::BackpressureDec | Builtin::ContextGet(_) | Builtin::ContextSet(_)
        ) {
            check_may_leave(&store, at)?;
        }
        run_builtin(&mut store, &types, at, &builtin, &resolved, args)
    }))
}

fn arg(args: &[u64], i: usize) -> u32 {
    args.get(i).copied().unwrap_or(0) as u32
}

/// The stream or future type a built-in names, as the tag the task table
/// checks ends against.
pub(crate) fn type_tag(ty: &InterfaceType) -> u32 {
    match ty {
        InterfaceType::Defined(d) => d.0,
        _ => u32::MAX,
    }
}

/// Writes the `u32`s `values` at `ptr` in `memory` (4-aligned, in bounds,
/// else a trap).
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

/// Runs the async ABI built-in `builtin` of the instance `at` with its
/// flat `args`; returns its flat result, if it has one.
fn run_builtin<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    types: &Arc<ComponentTypes>,
    at: ComponentInstanceRef,
    builtin: &Builtin,
    resolved: &Resolved,
    args: &[u64],
) -> crate::Result<Option<u64>> {
    use Builtin as B;
    let name = builtin.name();
    let inst = task_instance(store, at)?;
    let u = |v: u32| Some(u64::from(v));
    match builtin {
        B::TaskReturn { result, .. } => {
            task_return(store, types, at, *result, resolved, args)?;
            Ok(None)
        }
        B::TaskCancel => {
            let cur = current(store, name)?;
            let f = store.components().funcs.get(cur.func as usize).cloned();
            if !f.is_some_and(|f| f.options.is_async) {
                return Err(trap("`task.cancel` called by a function lifted without `async`"));
            }
            let phase = store.components().tasks.task(cur.task).map_err(trap)?.phase;
            if phase != weft_tasks::TaskPhase::CancelDelivered {
                return Err(trap("`task.cancel` called by task which has not been cancelled"));
            }
            resolve(store, cur.task, None)?;
            Ok(None)
        }
        B::ContextGet(i) => {
            let cur = current(store, name)?;
            let tasks = &store.components().tasks;
            Ok(u(tasks.context_get(cur.thread, *i).map_err(trap)?))
        }
        B::ContextSet(i) => {
            let cur = current(store, name)?;
            let tasks = &mut store.components_mut().tasks;
            tasks.context_set(cur.thread, *i, arg(args, 0)).map_err(trap)?;
            Ok(None)
        }
        B::BackpressureInc | B::BackpressureDec => {
            let tasks = &mut store.components_mut().tasks;
            tasks
                .backpressure(inst, matches!(builtin, B::BackpressureInc))
                .map_err(trap)?;
            Ok(None)
        }
        B::ThreadYield => {
            let cur = current(store, name)?;
            let cancelled = if store.components().sched.has_fiber(cur.thread) {
                sched::wait_until(store, WaitFor::Nothing, false)?
            } else {
                false
            };
            Ok(u(u32::from(cancelled)))
        }
        B::ThreadIndex => {
            let cur = current(store, name)?;
            Ok(u(store.components().tasks.thread(cur.thread).map_err(trap)?.index))
        }
        B::ThreadNewIndirect { .. } => {
            let Some(table) = resolved.table else {
                crate::bail!("`{name}` has no table");
            };
            let cur = current(store, name)?;
            let func = match table.get(&mut *store, u64::from(arg(args, 0))) {
                Some(crate::Ref::Func(Some(f))) => f,
                Some(crate::Ref::Func(None)) => {
                    return Err(trap("the start function index points to an uninitialized function"))
                }
                _ => {
                    return Err(trap(format_args!(
                        "thread start function index {} out of bounds",
                        arg(args, 0)
                    )))
                }
            };
            let ty = func.ty(&*store);
            if ty.params().collect::<Vec<_>>() != [ValType::I32] || ty.results().len() != 0 {
                return Err(trap(
                    "start function does not match expected type (currently only `(i32) -> ()` is supported)",
                ));
            }
            let thread = super::calls::new_thread(store, cur.task, func, arg(args, 1), at)?;
            Ok(u(store.components().tasks.thread(thread).map_err(trap)?.index))
        }
        B::ThreadResumeLater => {
            let other = store.components().tasks.thread_at(inst, arg(args, 0)).map_err(trap)?;
            let tasks = &mut store.components_mut().tasks;
            if !tasks.is_suspended(other) {
                return Err(trap("`thread.resume-later` of a thread that is not suspended"));
            }
            tasks.start_waiting(other, WaitFor::Nothing, false).map_err(trap)?;
            Ok(None)
        }
        B::ThreadSuspend => {
            let cur = current(store, name)?;
            let tasks = &mut store.components_mut().tasks;
            if tasks.deliver_pending_cancel(cur.task, false).map_err(trap)? {
                return Ok(u(1));
            }
            tasks.start_suspended(cur.thread, false).map_err(trap)?;
            Ok(u(u32::from(sched::block(store)?)))
        }
        B::ThreadSuspendThenResume
        | B::ThreadYieldThenResume
        | B::ThreadSuspendThenPromote
        | B::ThreadYieldThenPromote => switch_thread(store, builtin, inst, arg(args, 0)).map(u),
        B::WaitableSetNew => {
            let tasks = &mut store.components_mut().tasks;
            Ok(u(tasks.waitable_set_new(inst).map_err(trap)?))
        }
        B::WaitableSetWait(_) => {
            check_may_block(store)?;
            let tasks = &store.components().tasks;
            let set = tasks.waitable_set(inst, arg(args, 0)).map_err(trap)?;
            let event = if tasks.set_has_pending_event(set) {
                store.components_mut().tasks.take_set_event(set).map_err(trap)?
            } else {
                sched::wait_for_set_event(store, set, false, false)?
            };
            store_u32s(store, resolved.memory, arg(args, 1), &[event.index, event.payload])?;
            Ok(u(event.code))
        }
        B::WaitableSetPoll(_) => {
            let tasks = &mut store.components_mut().tasks;
            let (code, index, payload) = tasks.waitable_set_poll(inst, arg(args, 0)).map_err(trap)?;
            store_u32s(store, resolved.memory, arg(args, 1), &[index, payload])?;
            Ok(u(code))
        }
        B::WaitableSetDrop => {
            let tasks = &mut store.components_mut().tasks;
            tasks.waitable_set_drop(inst, arg(args, 0)).map_err(trap)?;
            Ok(None)
        }
        B::WaitableJoin => {
            let tasks = &mut store.components_mut().tasks;
            tasks.waitable_join(inst, arg(args, 0), arg(args, 1)).map_err(trap)?;
            Ok(None)
        }
        B::SubtaskCancel(is_async) => {
            if !is_async {
                check_may_block(store)?;
            }
            subtask_cancel(store, inst, arg(args, 0), *is_async).map(u)
        }
        B::SubtaskDrop => {
            let tasks = &mut store.components_mut().tasks;
            tasks.subtask_drop(inst, arg(args, 0)).map_err(trap)?;
            Ok(None)
        }
        B::StreamNew(ty) | B::FutureNew(ty) => {
            let numeric = copy::is_numeric(types, *ty);
            let tasks = &mut store.components_mut().tasks;
            let (r, w) = if matches!(builtin, B::StreamNew(_)) {
                tasks.stream_new(inst, type_tag(ty), numeric)
            } else {
                tasks.future_new(inst, type_tag(ty), numeric)
            }
            .map_err(trap)?;
            Ok(Some(u64::from(r) | u64::from(w) << 32))
        }
        B::StreamRead(ty, o) | B::StreamWrite(ty, o) | B::FutureRead(ty, o) | B::FutureWrite(ty, o) => {
            if !o.is_async {
                check_may_block(store)?;
            }
            let is_stream = matches!(builtin, B::StreamRead(..) | B::StreamWrite(..));
            let len = if is_stream { arg(args, 2) } else { 1 };
            let copy = CopyCx::request(resolved.copy_cx, arg(args, 1), len);
            copy::start(
                store,
                inst,
                arg(args, 0),
                end_kind(builtin),
                type_tag(ty),
                o.is_async,
                copy,
            )
            .map(u)
        }
        B::StreamCancelRead(ty, is_async)
        | B::StreamCancelWrite(ty, is_async)
        | B::FutureCancelRead(ty, is_async)
        | B::FutureCancelWrite(ty, is_async) => {
            if !is_async {
                check_may_block(store)?;
            }
            copy::cancel(store, inst, arg(args, 0), end_kind(builtin), type_tag(ty), *is_async).map(u)
        }
        B::StreamDropReadable(ty)
        | B::StreamDropWritable(ty)
        | B::FutureDropReadable(ty)
        | B::FutureDropWritable(ty) => {
            let kind = end_kind(builtin);
            let driven = super::host_streams::driven_shared(store, inst, arg(args, 0));
            let tasks = &mut store.components_mut().tasks;
            tasks.drop_end(inst, arg(args, 0), kind, type_tag(ty)).map_err(trap)?;
            if let Some(shared) = driven {
                super::host_streams::peer_dropped(store, shared)?;
            }
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
            let tasks = &mut store.components_mut().tasks;
            Ok(u(tasks.error_context_new(inst, message).map_err(trap)?))
        }
        B::ErrorContextDebugMessage(_) => {
            let Some(options) = resolved.options.clone() else {
                crate::bail!("`error-context.debug-message` has no options");
            };
            let tasks = &store.components().tasks;
            let message = tasks
                .error_context_message(inst, arg(args, 0))
                .map_err(trap)?
                .to_string();
            copy::store_string_at(store, types, &options, &message, arg(args, 1))?;
            Ok(None)
        }
        B::ErrorContextDrop => {
            let tasks = &mut store.components_mut().tasks;
            tasks.error_context_drop(inst, arg(args, 0)).map_err(trap)?;
            Ok(None)
        }
    }
}

/// `subtask.cancel`.
fn subtask_cancel<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    inst: InstanceId,
    index: u32,
    is_async: bool,
) -> crate::Result<u32> {
    let tasks = &mut store.components_mut().tasks;
    let (subtask, callee) = tasks.subtask_cancel_begin(inst, index, is_async).map_err(trap)?;
    if let Some(task) = callee {
        match tasks.request_cancellation(task).map_err(trap)? {
            CancelAction::NotStarted(thread) | CancelAction::Deliver(thread) => {
                sched::resume(store, thread, true)?;
            }
            CancelAction::Pending | CancelAction::Resolved => {}
        }
    } else {
        // A call of a concurrent host function: its future is dropped.
        super::host::cancel_call(store, subtask)?;
    }
    let tasks = &mut store.components_mut().tasks;
    if !tasks.subtask_state(subtask).map_err(trap)?.status.resolved() {
        if is_async {
            return Ok(BLOCKED);
        }
        wait_for_event(store, subtask)?;
    }
    let tasks = &mut store.components_mut().tasks;
    let event = tasks.take_event(subtask).map_err(trap)?;
    let status = tasks.subtask_state(subtask).map_err(trap)?.status;
    if event.code != weft_tasks::EVENT_SUBTASK {
        // Resolved without a pending event: report its state.
        tasks.deliver_resolve(subtask).map_err(trap)?;
    }
    Ok(status as u32)
}

/// `Waitable.wait_for_pending_event`: a synchronous wait for one waitable.
pub(crate) fn wait_for_event<T: 'static>(store: &mut StoreContextMut<'_, T>, w: EntryId) -> crate::Result<()> {
    check_may_block(store)?;
    let tasks = &mut store.components_mut().tasks;
    tasks.set_sync_waiter(w, true).map_err(trap)?;
    let waited = sched::wait_until(store, WaitFor::Waitable(w), false);
    let _ = store.components_mut().tasks.set_sync_waiter(w, false);
    waited.map(drop)
}

/// `thread.{suspend,yield}-then-{resume,promote}`.
fn switch_thread<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    builtin: &Builtin,
    inst: InstanceId,
    index: u32,
) -> crate::Result<u32> {
    use Builtin as B;
    let cur = current(store, builtin.name())?;
    let tasks = &mut store.components_mut().tasks;
    let other = tasks.thread_at(inst, index).map_err(trap)?;
    let promote = matches!(builtin, B::ThreadSuspendThenPromote | B::ThreadYieldThenPromote);
    let yielding = matches!(builtin, B::ThreadYieldThenResume | B::ThreadYieldThenPromote);
    if !promote && !tasks.is_suspended(other) {
        return Err(trap("the thread to resume is not suspended"));
    }
    if tasks.deliver_pending_cancel(cur.task, false).map_err(trap)? {
        return Ok(1);
    }
    let go = !promote || tasks.is_ready(other);
    if yielding {
        tasks.start_waiting(cur.thread, WaitFor::Nothing, false).map_err(trap)?;
    } else {
        tasks.start_suspended(cur.thread, false).map_err(trap)?;
    }
    if store.components().sched.has_fiber(cur.thread) {
        if go {
            sched::switch_to(store, other);
        }
    } else if go {
        // This thread cannot leave its caller's stack: run the other one
        // from here; it comes back here when it blocks or switches back.
        let tasks = &mut store.components_mut().tasks;
        tasks.set_running(cur.thread, false).map_err(trap)?;
        sched::resume(store, other, false)?;
        let tasks = &mut store.components_mut().tasks;
        if tasks.thread(cur.thread).is_ok_and(|t| t.running) {
            // The other thread switched back to this one.
            return Ok(0);
        }
    }
    Ok(u32::from(sched::block(store)?))
}

/// `canon task.return`: checks the current task (lifted `async` by the
/// calling instance, with this result type and the same options), lifts
/// the result and resolves the task with it.
fn task_return<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    types: &Arc<ComponentTypes>,
    at: ComponentInstanceRef,
    result: Option<InterfaceType>,
    resolved: &Resolved,
    args: &[u64],
) -> crate::Result<()> {
    let cur = current(store, "task.return")?;
    let Some(f) = store.components().funcs.get(cur.func as usize) else {
        crate::bail!("component function not found in store");
    };
    if !f.options.is_async {
        return Err(trap("`task.return` called by a function lifted without `async`"));
    }
    if f.options.flags != at {
        return Err(trap("invalid `task.return` signature and/or options for current task"));
    }
    let task_result = f.types.func(f.ty).and_then(|t| t.result);
    if !std::ptr::eq::<ComponentTypes>(&**f.types, &**types) || task_result != result {
        return Err(trap("invalid `task.return` signature and/or options for current task"));
    }
    let (lift_memory, lift_encoding) = (f.options.memory, f.options.encoding);
    let Some(options) = &resolved.options else {
        crate::bail!("`task.return` has no options");
    };
    // A `task.return` without a `memory` matches any lift (the reference
    // tests return nothing through one from a lift that has a memory for
    // its parameters); with one, it must be the lift's.
    if (options.memory.is_some() && options.memory != lift_memory) || options.encoding != lift_encoding {
        return Err(trap("invalid `task.return` signature and/or options for current task"));
    }
    if super::calls::has_adapter(store, cur.task) {
        return super::calls::task_return_through_adapter(store, cur.task, args);
    }
    // An integer or `bool` result (or none) for the host stays flat: the
    // host lifts it as it takes it.
    let flat = match &result {
        None => Some(None),
        Some(t) => args
            .first()
            .filter(|bits| crate::component::flat::flat_to_val(t, **bits).is_some())
            .map(|bits| Some(*bits)),
    };
    if let Some(flat) = flat {
        if super::calls::resolve_flat_for_host(store, cur.task, flat)? {
            return Ok(());
        }
    }
    let tys = result.as_slice();
    let mut vals = {
        let cx = LiftContext {
            types,
            memory: options.memory.map_or(&[][..], |m| m.data(&*store)),
            encoding: options.encoding,
        };
        lift_flat_values(&cx, MAX_FLAT_PARAMS, tys, args)?
    };
    crate::component::handles::lift_resources(store, types, tys.iter().copied(), &mut vals, at, usize::MAX)?;
    resolve(store, cur.task, Some(vals))
}
