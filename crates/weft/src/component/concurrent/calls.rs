//! Calls into lifted functions (`canon lift`) and through lowered ones
//! (`canon lower`) when a task may block: the task of an `async`-typed
//! function runs on a fiber, its caller gets a subtask (an `async` lower)
//! or waits for it (a synchronous lower, or the host).

// Import loop kept on purpose: the files of `concurrent/` are one event
// loop split by size (threads in sched.rs, tasks in calls.rs, host tasks in
// host.rs, built-ins and copies); a resumed thread runs calls that wait in
// the loop, so each part calls the others.
use super::hooks;
use super::sched::{self, Running};
use crate::component::call::{
    call_core_flat, core_to_flat, flat_core_args, lift_args_from_core, lift_async_args, lift_call_results, lifted_func,
    lifted_ref, lower_async_results, lower_call_args, lower_sync_results, post_return,
};
use crate::component::handles::{enter_call, exit_call, lift_resources};
use crate::component::store::{ComponentInstanceRef, Options};
use crate::component::{trap, trap_on_throw, Val};
use crate::StoreContextMut;
use std::sync::Arc;
use weft_environ::component::{ComponentTypes, InterfaceType, TypeFuncIndex};
use weft_tasks::{EntryId, Event, InstanceId, SubtaskStatus, TaskError, ThreadId, WaitFor};

/// `CallbackCode.EXIT`.
const CALLBACK_EXIT: u32 = 0;
/// `CallbackCode.YIELD`.
const CALLBACK_YIELD: u32 = 1;
/// `CallbackCode.WAIT`.
const CALLBACK_WAIT: u32 = 2;

/// What the facade keeps of a task.
pub(crate) struct TaskData {
    /// The lifted function called (store index).
    pub(crate) func: u32,
    /// Who called it.
    caller: Caller,
    /// The values it returned, until its caller takes them.
    result: Option<TaskResult>,
    /// The resource scope of its call (its borrows), once started.
    scope: Option<usize>,
    /// The host's call future waiting for the result (`call_concurrent`).
    pub(crate) waker: Option<std::task::Waker>,
    /// The task group it belongs to (when a hook is installed).
    pub(crate) group: Option<hooks::TaskGroupId>,
    /// The task of its guest caller (none for the host's calls).
    parent: Option<EntryId>,
    /// The trap that ended it or one of its subtasks' tasks, for the
    /// host's call (which fails with it).
    error: Option<crate::Error>,
    /// Whether the host dropped its call or took its answer (a trap of the
    /// task then reaches nobody).
    pub(crate) abandoned: bool,
    /// The flat result a fused adapter's `return` made for a caller that
    /// lowered the call synchronously, until it takes it.
    core_result: Option<Vec<crate::Val>>,
}

/// The caller of a task.
enum Caller {
    /// The host (or a synchronous call on the caller's stack): the
    /// arguments, until the task starts.
    Host(Option<HostCallArgs>),
    /// A guest, through a lowered function.
    Guest(Box<GuestCaller>),
}

/// A guest's call through a lowered function, as its callee's task needs
/// it: to lift the arguments when it starts and lower the results when it
/// returns.
struct GuestCaller {
    types: Arc<ComponentTypes>,
    ty: TypeFuncIndex,
    options: Options,
    /// The core arguments of the lowered function.
    params: Vec<crate::Val>,
    /// The call's resource scope.
    scope: usize,
    /// The fused adapter moving the arguments and the result, for a call
    /// between two components (else the host lifts and lowers them).
    adapter: Option<AsyncAdapter>,
}

/// The `start` and `return` functions of the instance of a fused adapter of
/// an `async` call between two components (`weft_environ`'s
/// `adapter::START` and `adapter::RETURN`): they move the call's arguments
/// when the callee's task starts and its result when it returns.
#[derive(Clone, Copy)]
pub(crate) struct AsyncAdapter {
    /// `(caller's core arguments..., scope) -> callee's core arguments`.
    pub(crate) start: crate::Func,
    /// `(callee's flat result..., caller's core arguments...) -> flat
    /// result of a synchronous lower`.
    pub(crate) ret: crate::Func,
}

/// A task's arguments when it starts: lifted values (the host lowers them
/// into the callee), the host's flat values of scalar parameters, or the
/// callee's core arguments a fused adapter made.
enum StartArgs {
    Lifted(Vec<Val>),
    Flat(FlatArgs),
    Core(Vec<crate::Val>),
}

/// The arguments of the host's call of an `async`-typed function.
pub(crate) enum HostCallArgs {
    /// Component values, lowered when the task starts.
    Vals(Vec<Val>),
    /// The flat values of parameters that are all integers or `bool`s
    /// (see [`host_call_args`]): the core arguments as they are.
    Flat(FlatArgs),
}

/// Flat values of scalar parameters, one per parameter.
#[derive(Clone, Copy)]
pub(crate) struct FlatArgs {
    pub(crate) len: usize,
    pub(crate) vals: [u64; MAX_HOST_FLAT_ARGS],
}

/// The most parameters the host passes flat ([`HostCallArgs::Flat`]): a
/// task keeps them until it starts, so they are kept few (calls with more
/// pass component values).
pub(crate) const MAX_HOST_FLAT_ARGS: usize = 4;

/// What a task returned, as its caller takes it.
pub(crate) enum TaskResult {
    /// Lifted values.
    Vals(Vec<Val>),
    /// The flat value of a result that is an integer or `bool` (or none),
    /// kept as it is for a host caller, which lifts it itself.
    Flat(Option<u64>),
}

impl TaskResult {
    /// The result as component values, for the lifted function `f` that
    /// returned it.
    pub(crate) fn into_vals(self, f: &crate::component::store::LiftedFunc) -> crate::Result<Vec<Val>> {
        match self {
            TaskResult::Vals(v) => Ok(v),
            TaskResult::Flat(None) => Ok(Vec::new()),
            TaskResult::Flat(Some(bits)) => {
                let ty = f.types.func(f.ty).and_then(|t| t.result);
                match ty.and_then(|t| crate::component::flat::flat_to_val(&t, bits)) {
                    Some(v) => Ok(vec![v]),
                    None => crate::bail!("internal error: a flat result of a function whose result is not a scalar"),
                }
            }
        }
    }
}

/// The host's arguments `params` for a call of the lifted function
/// `index`: flat values when the function is `async`-typed and every
/// parameter is an integer or `bool` given as such (no component value
/// is lowered when the task starts), else the values themselves.
pub(crate) fn host_call_args<T>(store: &StoreContextMut<'_, T>, index: u32, params: &[Val]) -> HostCallArgs {
    if let Some(f) = store.components().funcs.get(index as usize) {
        if f.sig.params_scalar
            && params.len() == f.sig.params.len()
            && params.len() <= MAX_HOST_FLAT_ARGS
            && is_async_typed(store, index)
        {
            let mut flat = FlatArgs {
                len: params.len(),
                vals: [0; MAX_HOST_FLAT_ARGS],
            };
            let converted = params
                .iter()
                .zip(&f.sig.params[..])
                .zip(&mut flat.vals)
                .all(|((v, t), out)| match crate::component::flat::val_to_flat(v, t) {
                    Some(bits) => {
                        *out = bits;
                        true
                    }
                    None => false,
                });
            if converted {
                return HostCallArgs::Flat(flat);
            }
        }
    }
    HostCallArgs::Vals(params.to_vec())
}

/// Whether the host may pass `n` flat values to the lifted function
/// `index` ([`HostCallArgs::Flat`]).
pub(crate) fn takes_flat_args<T>(store: &StoreContextMut<'_, T>, index: u32, n: usize) -> bool {
    store
        .components()
        .funcs
        .get(index as usize)
        .is_some_and(|f| f.sig.params_scalar && f.sig.params.len() == n && n <= MAX_HOST_FLAT_ARGS)
        && is_async_typed(store, index)
}

/// Room for the results of the core function `f` (numbers only).
fn result_slots<T>(store: &StoreContextMut<'_, T>, f: &crate::Func) -> crate::Result<Vec<crate::Val>> {
    f.ty(store)
        .results()
        .map(|t| crate::Val::default_for_ty(&t))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| crate::format_err!("internal error: a core function of a component call returns a reference"))
}

/// Calls the adapter function `f` with `args`: its results.
fn call_adapter<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    f: &crate::Func,
    args: &[crate::Val],
) -> crate::Result<Vec<crate::Val>> {
    let mut out = result_slots(store, f)?;
    f.call(&mut *store, args, &mut out)?;
    Ok(out)
}

/// The task table of the component instance `flags`.
pub(crate) fn task_instance<T>(
    store: &StoreContextMut<'_, T>,
    flags: ComponentInstanceRef,
) -> crate::Result<InstanceId> {
    store.components().task_table(flags)
}

/// Whether the lifted function at store index `index` has an `async` type
/// (its task runs on a fiber and may block).
pub(crate) fn is_async_typed<T>(store: &StoreContextMut<'_, T>, index: u32) -> bool {
    store
        .components()
        .funcs
        .get(index as usize)
        .and_then(|f| f.types.func(f.ty).map(|t| t.is_async))
        .unwrap_or(false)
}

/// The values `task` returned, taken for its caller.
fn take_result<T>(store: &mut StoreContextMut<'_, T>, task: EntryId) -> Option<TaskResult> {
    let data = store.components_mut().sched.task_data.get_mut(&task)?;
    data.result.take()
}

/// Hands the trap `e` of a thread of `task` to the host's call that led
/// to it (the root of its chain of callers), which fails with it, so the
/// event loop goes on with the other calls. When nobody waits for it (the
/// host dropped its call or has its answer, or the caller's task is gone)
/// the trap only leaves its instance unentered, as it already did. Whether
/// the root call took the error.
pub(crate) fn route_trap<T>(store: &mut StoreContextMut<'_, T>, task: EntryId, e: crate::Error) -> bool {
    let data = &mut store.components_mut().sched.task_data;
    let mut root = task;
    for _ in 0..data.len() {
        match data.get(&root).and_then(|d| d.parent) {
            Some(p) if data.contains_key(&p) => root = p,
            _ => break,
        }
    }
    let Some(d) = data.get_mut(&root) else {
        return false;
    };
    if !matches!(d.caller, Caller::Host(_)) || d.abandoned || d.error.is_some() {
        return false;
    }
    d.error = Some(e);
    if let Some(w) = d.waker.take() {
        w.wake();
    }
    true
}

/// Fails the host's calls whose tasks can never go on: tasks of an
/// instance that trapped (or that nothing running holds unenterable), not
/// resolved. Whether any call was failed.
pub(crate) fn fail_stranded<T>(store: &mut StoreContextMut<'_, T>) -> bool {
    let components = store.components();
    let top = components.sched.running.is_empty();
    let mut stranded: Vec<EntryId> = components
        .sched
        .task_data
        .iter()
        .filter(|(task, d)| {
            d.error.is_none()
                && !components.tasks.task(**task).is_ok_and(|t| t.resolved())
                && components
                    .funcs
                    .get(d.func as usize)
                    .and_then(|f| components.flags(f.options.flags).ok())
                    .is_some_and(|fl| fl.trapped || (top && !fl.may_enter))
        })
        .map(|(task, _)| *task)
        .collect();
    stranded.sort_by_key(|t| t.index());
    let mut failed = false;
    for task in stranded {
        failed |= route_trap(store, task, stranded_trap());
    }
    failed
}

/// The error of a host call whose instance trapped before it returned.
fn stranded_trap() -> crate::Error {
    trap("cannot enter component instance: it trapped while this call was in progress")
}

/// The running task and its guest callers' tasks, innermost first.
pub(crate) fn call_stack<T>(store: &StoreContextMut<'_, T>) -> Vec<EntryId> {
    let sched = &store.components().sched;
    let mut out = Vec::new();
    let mut next = sched.current().map(|r| r.task);
    while let Some(task) = next {
        if out.contains(&task) || out.len() > sched.task_data.len() {
            break;
        }
        out.push(task);
        next = sched.task_data.get(&task).and_then(|d| d.parent);
    }
    out
}

/// Forgets the facade's data of tasks the table freed (before their ids
/// are given out again: `new_task` calls this first).
///
/// A host call's task freed before it started still holds the component
/// values of its arguments: the handles the host made for them
/// (`Handle::lowered`) are released, as the task would have once it had
/// lowered them.
pub(crate) fn collect<T>(store: &mut StoreContextMut<'_, T>) {
    while let Some(task) = store.components_mut().tasks.pop_freed_task() {
        let data = store.components_mut().sched.task_data.remove(&task);
        if let Some(TaskData {
            caller: Caller::Host(Some(HostCallArgs::Vals(args))),
            ..
        }) = data
        {
            crate::component::handles::release_lowered(store, &args);
        }
    }
}

/// Starts the task of a call on the caller's stack into a lifted function
/// of a synchronous type (or through a fused adapter): it gets a thread for
/// its `context.*` slots; returns the depth of the running threads to go
/// back to when the call ends.
pub(crate) fn enter_task<T>(store: &mut StoreContextMut<'_, T>, func: u32) -> crate::Result<usize> {
    let (task, thread) = new_task(store, func, false, Caller::Host(None), None)?;
    let components = store.components_mut();
    components.tasks.set_running(thread, true).map_err(trap)?;
    let depth = components.sched.running.len();
    components.sched.running.push(Running { thread, task, func });
    Ok(depth)
}

/// A task of a call into the lifted function `func` (of an `async` type or
/// not) with its implicit thread; the caller holds the task's reference.
fn new_task<T>(
    store: &mut StoreContextMut<'_, T>,
    func: u32,
    async_type: bool,
    caller: Caller,
    subtask: Option<EntryId>,
) -> crate::Result<(EntryId, ThreadId)> {
    // A guest's call joins its caller's group; the host's call gets its
    // group from its starter (`set_group`).
    let (group, parent) = match caller {
        Caller::Guest(_) => (
            hooks::current_group(store),
            store.components().sched.current().map(|r| r.task),
        ),
        Caller::Host(_) => (None, None),
    };
    let (flags, is_async, callback) = {
        let f = lifted_ref(store, func)?;
        (f.options.flags, f.options.is_async, f.options.callback.is_some())
    };
    let inst = task_instance(store, flags)?;
    collect(store);
    let components = store.components_mut();
    let tasks = &mut components.tasks;
    let task = tasks
        .new_task(inst, async_type, is_async, callback, subtask)
        .map_err(trap)?;
    let thread = tasks.new_thread(task, true).map_err(trap)?;
    let data = TaskData {
        func,
        caller,
        result: None,
        scope: None,
        waker: None,
        group,
        parent,
        error: None,
        abandoned: false,
        core_result: None,
    };
    components.sched.task_data.insert(task, data);
    Ok((task, thread))
}

/// Ends the task [`enter_task`] started at `depth`, and any above it that a
/// call unwound by a panic left behind.
pub(crate) fn exit_task<T>(store: &mut StoreContextMut<'_, T>, depth: usize) -> crate::Result<()> {
    let components = store.components_mut();
    while components.sched.running.len() > depth {
        let Some(run) = components.sched.running.pop() else {
            break;
        };
        let tasks = &mut components.tasks;
        if !tasks.task(run.task).is_ok_and(|t| t.resolved()) {
            // A synchronous call returns when its core function does (or
            // it trapped, which ends it all the same).
            let _ = tasks.task_return(run.task);
        }
        let exited = tasks.exit_thread(run.thread);
        let released = tasks.release(run.task);
        exited.and(released).map_err(trap)?;
    }
    collect(store);
    Ok(())
}

/// Ends the innermost task (that of a fused adapter's call).
pub(crate) fn exit_innermost_task<T>(store: &mut StoreContextMut<'_, T>) -> crate::Result<()> {
    let depth = store.components().sched.running.len().saturating_sub(1);
    exit_task(store, depth)
}

/// A call from the host into the `async`-typed lifted function `index`
/// (its result count and `may_enter` checked by `call_lifted`): its task
/// runs on a fiber, and the waiting threads of the store run until it
/// returns (or nothing can run: a deadlock).
pub(crate) fn call_async_typed<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    index: u32,
    args: &[Val],
    results: &mut [Val],
) -> crate::Result<()> {
    let args = HostCallArgs::Vals(args.to_vec());
    let task = start_task(store, index, Caller::Host(Some(args)), None, None)?;
    // A host function's panic goes on to the caller, after the task's
    // reference is given back.
    let driven = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        sched::run_until(store, |s| {
            let components = &s.components();
            components.tasks.task(task).is_ok_and(|t| t.resolved())
                || components.sched.task_data.get(&task).is_some_and(|d| d.error.is_some())
        })
    }));
    let answer = answer_host_call(store, task);
    let driven = driven.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    driven?;
    let Some(result) = answer? else {
        return Err(trap("the call was cancelled"));
    };
    let result = result.into_vals(lifted_ref(store, index)?)?;
    for (r, v) in results.iter_mut().zip(result) {
        *r = v;
    }
    Ok(())
}

/// Starts a call from the host into the `async`-typed lifted function
/// `index` for `call_concurrent`: its task runs until it blocks; the caller
/// gets it with one reference and polls [`poll_host_call`].
pub(crate) fn start_host_call<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    index: u32,
    args: HostCallArgs,
    group: Option<hooks::TaskGroupId>,
) -> crate::Result<EntryId> {
    start_task(store, index, Caller::Host(Some(args)), None, group)
}

/// Starts a call from the host into the lifted function `index` of a
/// synchronous type for `call_concurrent`: unlike a synchronous `call`, its
/// task runs on a fiber, which the event loop resumes (so an async host
/// function it calls may wait without blocking the executor), and it may
/// not block in the guest's own waits before it returns. The caller gets
/// the task with one reference and polls [`poll_host_call`].
pub(crate) fn start_sync_host_call<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    index: u32,
    args: Vec<Val>,
    group: Option<hooks::TaskGroupId>,
) -> crate::Result<EntryId> {
    let (task, thread) = new_task(store, index, false, Caller::Host(Some(HostCallArgs::Vals(args))), None)?;
    if let Some(d) = store.components_mut().sched.task_data.get_mut(&task) {
        d.group = group;
    }
    let spawned = sched::spawn(store, thread, move |store| {
        let r = implicit_thread(store, index, task, thread);
        let exited = exit_thread(store, thread);
        r.and(exited)
    });
    // The event loop starts it, as a ready thread.
    let ready = spawned.and_then(|()| {
        let tasks = &mut store.components_mut().tasks;
        tasks.start_waiting(thread, WaitFor::Nothing, false).map_err(trap)
    });
    if let Err(e) = ready {
        let _ = exit_thread(store, thread);
        let _ = store.components_mut().tasks.release(task);
        collect(store);
        return Err(e);
    }
    Ok(task)
}

/// Whether the host's call `task` has its answer ([`answer_host_call`]:
/// then given up). Pending, with `waker` woken at its resolution,
/// otherwise.
pub(crate) fn poll_host_call<T>(
    store: &mut StoreContextMut<'_, T>,
    task: EntryId,
    waker: &std::task::Waker,
) -> std::task::Poll<crate::Result<Option<TaskResult>>> {
    let components = store.components_mut();
    let answered = match components.tasks.task(task) {
        Ok(t) => t.resolved() || components.sched.task_data.get(&task).is_some_and(|d| d.error.is_some()),
        Err(e) => return std::task::Poll::Ready(Err(trap(e))),
    };
    if answered {
        return std::task::Poll::Ready(answer_host_call(store, task));
    }
    if let Some(d) = components.sched.task_data.get_mut(&task) {
        d.waker = Some(waker.clone());
    }
    std::task::Poll::Pending
}

/// The host's answer from its call `task`, which it gives up: the trap
/// routed to it, else the task's results (`None` when it was cancelled).
/// The host's reference is released, and a later trap of the task reaches
/// nobody.
fn answer_host_call<T>(store: &mut StoreContextMut<'_, T>, task: EntryId) -> crate::Result<Option<TaskResult>> {
    let error = store.components_mut().sched.task_data.get_mut(&task).and_then(|d| {
        d.abandoned = true;
        d.error.take()
    });
    let result = take_result(store, task);
    let released = store.components_mut().tasks.release(task).map_err(trap);
    collect(store);
    match error {
        Some(e) => Err(e),
        None => released.map(|()| result),
    }
}

/// Makes the task and implicit thread of a call into the lifted function
/// `index` and runs the thread until it returns or blocks (`canon_lift`'s
/// tail). The task is returned with one reference for the caller.
fn start_task<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    index: u32,
    caller: Caller,
    subtask: Option<EntryId>,
    group: Option<hooks::TaskGroupId>,
) -> crate::Result<EntryId> {
    let (task, thread) = new_task(store, index, true, caller, subtask)?;
    if group.is_some() {
        if let Some(d) = store.components_mut().sched.task_data.get_mut(&task) {
            d.group = group;
        }
    }
    let spawned = sched::spawn(store, thread, move |store| {
        let r = implicit_thread(store, index, task, thread);
        let exited = exit_thread(store, thread);
        r.and(exited)
    });
    if let Err(e) = spawned {
        let _ = exit_thread(store, thread);
        return Err(e);
    }
    if let Err(e) = sched::resume(store, thread, false) {
        // The caller never gets the task: give its reference back.
        let _ = store.components_mut().tasks.release(task);
        collect(store);
        return Err(e);
    }
    Ok(task)
}

/// `thread.new-indirect`: a new thread of `task`, suspended, that calls
/// `func` with `arg` when first resumed (on a fiber); it is unregistered
/// when the function returns.
pub(crate) fn new_thread<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    task: EntryId,
    func: crate::Func,
    arg: u32,
    at: ComponentInstanceRef,
) -> crate::Result<ThreadId> {
    let thread = store.components_mut().tasks.new_thread(task, false).map_err(trap)?;
    let spawned = sched::spawn(store, thread, move |store| {
        let called = func.call(&mut *store, &[crate::Val::I32(arg as i32)], &mut []);
        let called = trap_on_throw(store, called);
        let r = poison_on_trap(store, at, called);
        let exited = exit_thread(store, thread);
        r.and(exited)
    });
    if let Err(e) = spawned {
        let _ = exit_thread(store, thread);
        return Err(e);
    }
    Ok(thread)
}

/// Removes a thread that returned (trapping if it was its task's last and
/// the task did not resolve).
fn exit_thread<T>(store: &mut StoreContextMut<'_, T>, thread: ThreadId) -> crate::Result<()> {
    let r = store.components_mut().tasks.exit_thread(thread).map_err(|e| match e {
        TaskError::Trap(_) => trap("async-lifted export failed to produce a result"),
        e => trap(e),
    });
    collect(store);
    r
}

/// The component instance whose code `task` runs (the one its lifted
/// function belongs to), if the task and its function are known.
pub(crate) fn task_component_instance(
    components: &crate::component::store::ComponentStore,
    task: EntryId,
) -> Option<crate::component::store::ComponentInstanceRef> {
    let d = components.sched.task_data.get(&task)?;
    components.funcs.get(d.func as usize).map(|f| f.options.flags)
}

/// Whether `task` is the host's call of an instance that trapped, and has
/// not started: it never will, and its thread runs only to end it (see
/// `sched::runnable` and [`implicit_thread`]).
pub(crate) fn stranded_before_start(components: &crate::component::store::ComponentStore, task: EntryId) -> bool {
    components
        .sched
        .task_data
        .get(&task)
        .is_some_and(|d| matches!(d.caller, Caller::Host(_)))
        && task_component_instance(components, task)
            .and_then(|r| components.flags(r).ok())
            .is_some_and(|fl| fl.trapped)
        && components
            .tasks
            .task(task)
            .is_ok_and(|t| t.phase == weft_tasks::TaskPhase::Initial)
}

/// The body of a task's implicit thread (`canon_lift`'s `thread_func`).
fn implicit_thread<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    index: u32,
    task: EntryId,
    thread: ThreadId,
) -> crate::Result<()> {
    // Backpressure.
    let tasks = &mut store.components_mut().tasks;
    if tasks.must_wait_to_enter(task).map_err(trap)? {
        tasks.set_waiting_to_enter(task, true).map_err(trap)?;
        let cancelled = sched::wait_until(store, WaitFor::Enter, true);
        let tasks = &mut store.components_mut().tasks;
        tasks.set_waiting_to_enter(task, false).map_err(trap)?;
        if cancelled? {
            store.components_mut().tasks.cancel_unstarted(task).map_err(trap)?;
            return Ok(());
        }
    }
    // The host's call of an instance that trapped before the call started
    // (it may have waited to enter above) fails as `fail_stranded` fails
    // it, and the task ends here without entering the instance, so that it
    // and its arguments (the handles the host made for them, see
    // `collect`) are freed.
    if stranded_before_start(store.components(), task) {
        route_trap(store, task, stranded_trap());
        return store.components_mut().tasks.cancel_unstarted(task).map_err(trap);
    }
    let tasks = &mut store.components_mut().tasks;
    tasks.take_exclusive(task).map_err(trap)?;
    let f = lifted_func(store, index)?;
    let scope = enter_call(store);
    if let Some(d) = store.components_mut().sched.task_data.get_mut(&task) {
        d.scope = Some(scope);
    }
    let r = on_start(store, task, scope).and_then(|args| run_core(store, &f, task, thread, args, scope));
    let exited = exit_call(store, scope, false);
    r.and(exited)
}

fn run_core<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    f: &crate::component::store::LiftedFunc,
    task: EntryId,
    thread: ThreadId,
    args: StartArgs,
    scope: usize,
) -> crate::Result<()> {
    if let (StartArgs::Flat(args), true) = (&args, f.options.is_async) {
        // The host's scalars go to the core function as they are.
        let mut first = None;
        let called = args
            .vals
            .get(..args.len)
            .ok_or_else(|| crate::format_err!("internal error: too many flat arguments"))
            .and_then(|vals| call_core_flat(store, &f.core, &f.sig.flat, vals))
            .map(|r| first = r);
        let called = trap_on_throw(store, called);
        poison_on_trap(store, f.options.flags, called)?;
        return run_callbacks(store, f, thread, first.unwrap_or(0) as u32);
    }
    let (core_args, mut core_results) = match args {
        StartArgs::Lifted(args) => {
            let lowered = lower_call_args(store, f, &args, scope);
            // The host table keeps nothing of the handles the host made
            // for these values (`Handle::lowered`): a borrow is lent to the
            // callee by now, an own moved or refused.
            crate::component::handles::release_lowered(store, &args);
            lowered?
        }
        StartArgs::Flat(args) => flat_core_args(f, args.vals.get(..args.len).unwrap_or(&[]))?,
        StartArgs::Core(core_args) => (core_args, result_slots(store, &f.core)?),
    };
    let called = f.core.call(&mut *store, &core_args, &mut core_results);
    let called = trap_on_throw(store, called);
    poison_on_trap(store, f.options.flags, called)?;
    if !f.options.is_async {
        if has_adapter(store, task) {
            resolve_through_adapter(store, task, core_results.clone())?;
        } else {
            let lifted = lift_call_results(store, f, &core_results, scope)?;
            resolve(store, task, Some(lifted))?;
        }
        let r = post_return(store, f, &core_results);
        return poison_on_trap(store, f.options.flags, r);
    }
    let packed = core_results.first().map(core_to_flat).transpose()?.unwrap_or(0) as u32;
    run_callbacks(store, f, thread, packed)
}

/// The callback loop of a task lifted `async` with a `callback`, after its
/// core function returned `packed` (`canon_lift`'s tail): waits as each
/// code says and calls the callback with the event, until `EXIT`. A
/// stackful lift (no callback) is done.
fn run_callbacks<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    f: &crate::component::store::LiftedFunc,
    thread: ThreadId,
    mut packed: u32,
) -> crate::Result<()> {
    let Some(callback) = f.options.callback else {
        return Ok(());
    };
    if packed & 0xf == CALLBACK_EXIT {
        return Ok(());
    }
    let inst = task_instance(store, f.options.flags)?;
    loop {
        let (code, si) = (packed & 0xf, packed >> 4);
        if code == CALLBACK_EXIT {
            break;
        }
        let tasks = &mut store.components_mut().tasks;
        tasks.release_exclusive(thread).map_err(trap)?;
        let event = match code {
            CALLBACK_YIELD => {
                if sched::wait_until(store, WaitFor::NotExclusive, true)? {
                    Event::CANCELLED
                } else {
                    Event::NONE
                }
            }
            CALLBACK_WAIT => {
                let set = tasks.waitable_set(inst, si).map_err(trap)?;
                sched::wait_for_set_event(store, set, true, true)?
            }
            _ => return poison(store, f.options.flags, trap("unsupported callback code")),
        };
        store.components_mut().tasks.set_exclusive(thread).map_err(trap)?;
        let args = [event.code, event.index, event.payload].map(|v| crate::Val::I32(v as i32));
        let mut out = [crate::Val::I32(0)];
        let called = callback.call(&mut *store, &args, &mut out);
        let called = trap_on_throw(store, called);
        poison_on_trap(store, f.options.flags, called)?;
        packed = core_to_flat(&out[0])? as u32;
    }
    Ok(())
}

/// A trap leaves the component instance unenterable (the spec's rule: only
/// that instance); a host error does not.
fn poison_on_trap<T>(
    store: &mut StoreContextMut<'_, T>,
    flags: ComponentInstanceRef,
    r: crate::Result<()>,
) -> crate::Result<()> {
    match r {
        Err(e) if crate::component::is_trap(&e) => poison(store, flags, e),
        r => r,
    }
}

fn poison<T>(store: &mut StoreContextMut<'_, T>, flags: ComponentInstanceRef, e: crate::Error) -> crate::Result<()> {
    let _ = crate::component::call::poison_instance(store, flags);
    Err(e)
}

/// `OnStart`: the task's arguments, from its caller (lifted from a guest
/// caller's memory, its handles moved out of the caller's instance, or
/// moved by the call's fused adapter into the callee's core arguments,
/// its borrows lent for the callee's call `scope`); the caller's subtask
/// is told the task started.
fn on_start<T: 'static>(store: &mut StoreContextMut<'_, T>, task: EntryId, scope: usize) -> crate::Result<StartArgs> {
    let components = store.components_mut();
    components.tasks.task_start(task).map_err(trap)?;
    let Some(data) = components.sched.task_data.get_mut(&task) else {
        crate::bail!("internal error: task data not found");
    };
    let g = match &mut data.caller {
        Caller::Host(args) => {
            return Ok(match args.take() {
                Some(HostCallArgs::Vals(v)) => StartArgs::Lifted(v),
                Some(HostCallArgs::Flat(f)) => StartArgs::Flat(f),
                None => StartArgs::Lifted(Vec::new()),
            })
        }
        Caller::Guest(g) => {
            if let Some(adapter) = &g.adapter {
                let start = adapter.start;
                let mut args = g.params.clone();
                args.push(crate::Val::I32(scope as i32));
                return call_adapter(store, &start, &args).map(StartArgs::Core);
            }
            (g.types.clone(), g.ty, g.options.clone(), g.params.clone(), g.scope)
        }
    };
    let (types, ty, options, params, scope) = g;
    let Some(fty) = types.func(ty) else {
        crate::bail!("function type {} not found", ty.0);
    };
    let mut args = if options.is_async {
        lift_async_args(store, &types, fty, &options, &params)?.0
    } else {
        lift_args_from_core(store, &types, fty, &options, &params)?
    };
    let param_tys: Vec<InterfaceType> = fty.param_types().collect();
    lift_resources(
        store,
        &types,
        param_tys.iter().copied(),
        &mut args,
        options.flags,
        scope,
    )?;
    Ok(StartArgs::Lifted(args))
}

/// Whether `task` was called through a fused adapter.
pub(crate) fn has_adapter<T>(store: &StoreContextMut<'_, T>, task: EntryId) -> bool {
    matches!(
        store.components().sched.task_data.get(&task).map(|d| &d.caller),
        Some(Caller::Guest(g)) if g.adapter.is_some()
    )
}

/// `task.return` of `task`, called through a fused adapter, with the core
/// arguments `raw` (the flat result, or the pointer to it).
pub(crate) fn task_return_through_adapter<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    task: EntryId,
    raw: &[u64],
) -> crate::Result<()> {
    let ret = match store.components().sched.task_data.get(&task).map(|d| &d.caller) {
        Some(Caller::Guest(g)) => g.adapter.as_ref().map(|a| a.ret),
        _ => None,
    };
    let Some(ret) = ret else {
        crate::bail!("internal error: the task has no fused adapter");
    };
    use weft_environ::component::abi::FlatType;
    let ty = ret.ty(&*store);
    let mut result = Vec::with_capacity(raw.len());
    for (t, v) in ty.params().zip(raw) {
        let flat = match t {
            crate::ValType::I32 => FlatType::I32,
            crate::ValType::I64 => FlatType::I64,
            crate::ValType::F32 => FlatType::F32,
            crate::ValType::F64 => FlatType::F64,
            _ => crate::bail!("internal error: a fused adapter takes a reference"),
        };
        result.push(crate::component::call::flat_to_core(flat, *v));
    }
    if result.len() != raw.len() {
        crate::bail!("internal error: `task.return` does not match its fused adapter");
    }
    resolve_through_adapter(store, task, result)
}

/// Resolves `task`, called through a fused adapter, with the callee's flat
/// result `result` (`task.return`'s core arguments, or a synchronous
/// lift's core results): the adapter's `return` moves it to the caller at
/// once (`OnResolve`), through its return pointer or as the flat result a
/// synchronous caller takes when it resumes.
pub(crate) fn resolve_through_adapter<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    task: EntryId,
    result: Vec<crate::Val>,
) -> crate::Result<()> {
    check_resolvable(store, task)?;
    let (ret, params) = match store.components().sched.task_data.get(&task).map(|d| &d.caller) {
        Some(Caller::Guest(g)) => match &g.adapter {
            Some(a) => (a.ret, g.params.clone()),
            None => crate::bail!("internal error: the task has no fused adapter"),
        },
        _ => crate::bail!("internal error: the task has no fused adapter"),
    };
    let mut args = result;
    args.extend(params);
    let out = call_adapter(store, &ret, &args)?;
    finish_resolve(store, task, Some(TaskResult::Vals(Vec::new())), Some(out))
}

/// Traps when `task` resolved already, or when its callee still holds a
/// borrow it was lent (it gives every one back before it returns).
fn check_resolvable<T>(store: &mut StoreContextMut<'_, T>, task: EntryId) -> crate::Result<()> {
    let tasks = &mut store.components_mut().tasks;
    if tasks.task(task).map_err(trap)?.resolved() {
        return Err(trap(
            "`task.return` or `task.cancel` called more than once for current task",
        ));
    }
    if let Some(scope) = store.components().sched.task_data.get(&task).and_then(|d| d.scope) {
        crate::component::call::check_borrows_returned(store, scope)?;
    }
    Ok(())
}

/// Marks `task` returned (`result` given) or cancelled, keeps its result
/// (and a synchronous lower's flat result `core_result`) for its caller and
/// wakes the host's call waiting for it.
fn finish_resolve<T>(
    store: &mut StoreContextMut<'_, T>,
    task: EntryId,
    result: Option<TaskResult>,
    core_result: Option<Vec<crate::Val>>,
) -> crate::Result<()> {
    let tasks = &mut store.components_mut().tasks;
    match &result {
        Some(_) => tasks.task_return(task),
        None => tasks.task_cancel(task),
    }
    .map_err(trap)?;
    if let Some(d) = store.components_mut().sched.task_data.get_mut(&task) {
        d.result = result;
        d.core_result = core_result;
        if let Some(w) = d.waker.take() {
            w.wake();
        }
    }
    Ok(())
}

/// Resolves `task` with its result (`task.return`, or the return of a
/// synchronous lift) or, with `None`, as cancelled (`task.cancel`), and
/// passes the result on (`OnResolve`): a guest caller that lowered the call
/// `async` gets it in its memory at once; others take it when they resume.
pub(crate) fn resolve<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    task: EntryId,
    result: Option<Vec<Val>>,
) -> crate::Result<()> {
    check_resolvable(store, task)?;
    let guest = match store.components().sched.task_data.get(&task).map(|d| &d.caller) {
        Some(Caller::Guest(g)) if g.options.is_async => {
            Some((g.types.clone(), g.ty, g.options.clone(), g.params.clone()))
        }
        _ => None,
    };
    let mut result = result;
    if let (Some((types, ty, options, params)), Some(vals)) = (guest, result.as_mut()) {
        let Some(fty) = types.func(ty) else {
            crate::bail!("function type {} not found", ty.0);
        };
        let retptr = match (fty.result.is_some(), params.last()) {
            (false, _) => None,
            (true, Some(p)) => Some(core_to_flat(p)? as u32),
            (true, None) => crate::bail!("an async lowered call has no result pointer"),
        };
        lower_async_results(store, &types, fty, &options, retptr, vals)?;
    }
    finish_resolve(store, task, result.map(TaskResult::Vals), None)
}

/// `task.return` of a scalar result (or none), given as its flat value,
/// when the task's caller is the host: kept flat for the host to lift
/// ([`TaskResult::Flat`]). `false` (nothing done) for a guest caller,
/// whose result is lifted and lowered as usual.
pub(crate) fn resolve_flat_for_host<T>(
    store: &mut StoreContextMut<'_, T>,
    task: EntryId,
    flat: Option<u64>,
) -> crate::Result<bool> {
    let for_host = matches!(
        store.components().sched.task_data.get(&task).map(|d| &d.caller),
        Some(Caller::Host(_))
    );
    if !for_host {
        return Ok(false);
    }
    check_resolvable(store, task)?;
    finish_resolve(store, task, Some(TaskResult::Flat(flat)), None)?;
    Ok(true)
}

/// Writes the core result of an `async` lower whose subtask is in
/// `status`: `RETURNED` when it resolved (its resolution delivered at once),
/// else the status with a new handle of the subtask in the caller's
/// instance `caller_inst`.
pub(crate) fn async_lower_result(
    tasks: &mut weft_tasks::Tasks,
    caller_inst: InstanceId,
    subtask: EntryId,
    status: SubtaskStatus,
    results: &mut [crate::Val],
) -> crate::Result<()> {
    let code = if status.resolved() {
        tasks.deliver_resolve(subtask).map_err(trap)?;
        SubtaskStatus::Returned as u32
    } else {
        status as u32 | tasks.subtask_handle(caller_inst, subtask).map_err(trap)? << 4
    };
    match results.first_mut() {
        Some(r) => *r = crate::Val::I32(code as i32),
        None => crate::bail!("an async lowered function returns its status"),
    }
    Ok(())
}

/// `canon_lower` of a call from the component instance `options.flags` to
/// the `async`-typed lifted function `callee` (or any call lowered
/// `async`): a subtask tracks the callee's task. Lowered `async`, the core
/// result is `RETURNED` or the subtask's state and handle; lowered
/// synchronously, the caller waits for the result.
#[allow(
    clippy::too_many_arguments,
    reason = "canon_lower's inputs: the caller's types, options, core arguments and results"
)]
pub(crate) fn call_lowered<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    types: &Arc<ComponentTypes>,
    ty: TypeFuncIndex,
    options: &Options,
    callee: u32,
    params: &[crate::Val],
    results: &mut [crate::Val],
    scope: usize,
    adapter: Option<AsyncAdapter>,
) -> crate::Result<()> {
    let f = lifted_func(store, callee)?;
    if !options.is_async {
        // A synchronous call of an `async` function may block.
        sched::check_may_call_blocking(store)?;
    }
    if f.options.flags == options.flags || !store.components().flags(f.options.flags)?.may_enter {
        return Err(trap("cannot enter component instance"));
    }
    let caller_inst = task_instance(store, options.flags)?;
    let subtask = store.components_mut().tasks.new_subtask();
    let guest = GuestCaller {
        types: types.clone(),
        ty,
        options: options.clone(),
        params: params.to_vec(),
        scope,
        adapter,
    };
    let task = match start_task(store, callee, Caller::Guest(Box::new(guest)), Some(subtask), None) {
        Ok(t) => t,
        Err(e) => {
            let _ = store.components_mut().tasks.release(subtask);
            collect(store);
            return Err(e);
        }
    };
    let tasks = &mut store.components_mut().tasks;
    let linked = tasks.set_subtask_callee(subtask, task);
    let released = tasks.release(task);
    linked.and(released).map_err(trap)?;
    let status = tasks.subtask_state(subtask).map_err(trap)?.status;
    if options.is_async {
        let written = async_lower_result(tasks, caller_inst, subtask, status, results);
        let released = tasks.release(subtask).map_err(trap);
        collect(store);
        return written.and(released);
    }
    // A synchronous caller waits for the result.
    let waited = if status.resolved() {
        Ok(false)
    } else {
        sched::wait_until(store, WaitFor::Resolved(subtask), false)
    };
    let tasks = &mut store.components_mut().tasks;
    let _ = tasks.deliver_resolve(subtask);
    let out = take_result(store, task);
    let core_out = store
        .components_mut()
        .sched
        .task_data
        .get_mut(&task)
        .and_then(|d| d.core_result.take());
    let released = store.components_mut().tasks.release(subtask).map_err(trap);
    collect(store);
    waited?;
    released?;
    let Some(out) = out else {
        return Err(trap("the synchronous call was cancelled"));
    };
    let mut out = out.into_vals(&f)?;
    if let Some(core_out) = core_out {
        // The fused adapter moved the result already.
        for (r, v) in results.iter_mut().zip(core_out) {
            *r = v;
        }
        return Ok(());
    }
    let Some(fty) = types.func(ty) else {
        crate::bail!("function type {} not found", ty.0);
    };
    lower_sync_results(store, types, fty, options, params, &mut out, results)
}
