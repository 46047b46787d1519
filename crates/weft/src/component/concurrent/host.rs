//! Host tasks and the store's event loop.
//!
//! A host task is a future the store owns and polls: the call of a
//! concurrent host function by a guest (its caller holds a subtask), or a
//! task spawned by the host. Each has its own waker, which puts the task on
//! the store's ready queue and wakes whoever sleeps on the loop: the future
//! of [`StoreContextMut::run_concurrent`], the fiber of a `call_async`, or
//! the thread of a synchronous call. Futures are polled with the store lent
//! to them (`weft_fiber::lend_store`), so that an [`Accessor`] reaches it.
//!
//! One turn of the loop ([`step`]) runs every guest thread that is ready
//! and polls every host task that was woken.

// Import loop kept on purpose: the files of `concurrent/` are one event
// loop split by size (threads in sched.rs, tasks in calls.rs, host tasks in
// host.rs, built-ins and copies); a resumed thread runs calls that wait in
// the loop, so each part calls the others.
use super::accessor::{Accessor, AccessorTask, HasData, JoinHandle, JoinState};
use super::sched;
use super::{calls, hold, hooks, host_streams};
use crate::component::call::{lift_args_from_core, lift_async_args, lower_async_results, lower_sync_results};
use crate::component::handles::lift_resources;
use crate::component::lock;
use crate::component::store::Options;
use crate::component::{trap, Val};
use crate::id_map::IdMap;
use crate::store::StoreInner;
use crate::{Store, StoreContextMut};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use weft_environ::component::{ComponentTypes, InterfaceType, TypeFuncIndex};
use weft_tasks::{EntryId, SubtaskStatus, WaitFor};

/// The future of a host task: the results of a host function (none for a
/// spawned task).
pub(crate) type HostFuture = Pin<Box<dyn Future<Output = crate::Result<Vec<Val>>> + Send>>;

/// The store's host tasks.
pub(crate) struct HostTasks {
    tasks: IdMap<u64, HostTask>,
    next_id: u64,
    queue: Arc<ReadyQueue>,
    /// The results of host calls whose caller waits synchronously, by
    /// subtask, until the caller takes them.
    finished: IdMap<EntryId, crate::Result<Vec<Val>>>,
    /// How many polls of `run_concurrent` are running: a synchronous wait
    /// inside one cannot sleep (it would block the executor).
    in_run_concurrent: u32,
    /// Task references whose holders were dropped outside the store (call
    /// futures), to be released when the store runs next.
    pub(crate) dropped: Arc<Mutex<Vec<EntryId>>>,
}

impl Default for HostTasks {
    fn default() -> Self {
        HostTasks {
            tasks: IdMap::default(),
            next_id: 1,
            queue: Arc::new(ReadyQueue::default()),
            finished: IdMap::default(),
            in_run_concurrent: 0,
            dropped: Arc::new(Mutex::new(Vec::new())),
        }
    }
}

impl HostTasks {
    /// How many host tasks are pending.
    pub(crate) fn len(&self) -> usize {
        self.tasks.len()
    }

    /// The subtasks the pending host calls hold a reference to.
    pub(crate) fn held_subtasks(&self) -> impl Iterator<Item = EntryId> + '_ {
        self.tasks.values().filter_map(|t| match &t.kind {
            HostKind::Call(c) => Some(c.subtask),
            HostKind::Spawned(_) => None,
        })
    }

    /// The task references of dropped call futures, not released yet.
    pub(crate) fn dropped_holds(&self) -> Vec<EntryId> {
        lock(&self.dropped).clone()
    }

    /// Lines naming the pending host tasks, for the deadlock report and
    /// the state dump.
    pub(crate) fn describe(&self) -> String {
        let mut ids: Vec<_> = self.tasks.iter().collect();
        ids.sort_by_key(|(id, _)| **id);
        let mut out = String::new();
        for (id, t) in ids {
            let what = match &t.kind {
                HostKind::Call(c) => format!("a concurrent host function called through subtask {:?}", c.subtask),
                HostKind::Spawned(_) => "a spawned task".to_string(),
            };
            out.push_str(&format!("host task {id}: {what}\n"));
        }
        out
    }
}

/// A host task: a future the event loop polls (a concurrent host call or a spawned task).
struct HostTask {
    /// `None` while it is being polled (further up this stack).
    future: Option<HostFuture>,
    waker: Waker,
    kind: HostKind,
}

enum HostKind {
    /// A guest's call of a concurrent host function.
    Call(HostCall),
    /// A task spawned by the host.
    Spawned(Arc<JoinState>),
}

/// A guest's call of a concurrent host function, as its end needs it.
pub(crate) struct HostCall {
    /// The caller's subtask (this task holds one reference).
    subtask: EntryId,
    /// The caller's task group.
    group: Option<hooks::TaskGroupId>,
    /// The caller's task and instance, which a failed call traps.
    caller: Option<(EntryId, crate::component::store::ComponentInstanceRef)>,
    /// Where the results go when the caller lowered the call `async`.
    lower: Option<AsyncLower>,
}

/// The results' way into the memory of a caller that lowered `async`.
struct AsyncLower {
    types: Arc<ComponentTypes>,
    ty: TypeFuncIndex,
    options: Options,
    retptr: Option<u32>,
}

/// The woken host tasks, and who sleeps on them.
#[derive(Default)]
struct ReadyQueue {
    ids: Mutex<Vec<u64>>,
    sleeper: Mutex<Option<Waker>>,
}

impl ReadyQueue {
    fn push(&self, id: u64) {
        lock(&self.ids).push(id);
        let sleeper = lock(&self.sleeper).clone();
        if let Some(w) = sleeper {
            w.wake();
        }
    }

    fn take(&self) -> Vec<u64> {
        std::mem::take(&mut *lock(&self.ids))
    }

    /// Takes `id` out of the queue; whether it was woken.
    fn take_id(&self, id: u64) -> bool {
        let mut ids = lock(&self.ids);
        let before = ids.len();
        ids.retain(|i| *i != id);
        ids.len() != before
    }

    fn contains(&self, id: u64) -> bool {
        lock(&self.ids).contains(&id)
    }

    fn is_empty(&self) -> bool {
        lock(&self.ids).is_empty()
    }

    fn set_sleeper(&self, waker: &Waker) {
        let mut s = lock(&self.sleeper);
        if !s.as_ref().is_some_and(|w| w.will_wake(waker)) {
            *s = Some(waker.clone());
        }
    }
}

/// Host tasks taken off the ready queue for one turn. Those not polled
/// when it is dropped (the turn failed, or a host function's panic
/// unwinds through it) go back on the queue: they stay woken, or their
/// wake-ups would be lost and what waits on them would hang.
struct Woken {
    ids: Vec<u64>,
    queue: Arc<ReadyQueue>,
}

impl Woken {
    /// Takes the woken tasks of `queue`.
    fn take(queue: &Arc<ReadyQueue>) -> Woken {
        Woken {
            ids: queue.take(),
            queue: queue.clone(),
        }
    }
}

impl Drop for Woken {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            self.queue.push(id);
        }
    }
}

/// The waker of one host task.
struct TaskWaker {
    id: u64,
    queue: Arc<ReadyQueue>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.queue.push(self.id);
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.queue.push(self.id);
    }
}

/// Wakes a parked thread.
struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

fn host<'a, T>(store: &'a mut StoreContextMut<'_, T>) -> &'a mut HostTasks {
    &mut store.components_mut().sched.host
}

/// Fails unless the engine allows the concurrent API.
pub(crate) fn check_concurrency_support<T>(store: &StoreContextMut<'_, T>) -> crate::Result<()> {
    if !store.0.opaque().engine.get_concurrency_support() {
        crate::bail!("concurrency support is not enabled (`Config::concurrency_support`)");
    }
    Ok(())
}

/// Whether `run_concurrent` is driving the store now.
pub(crate) fn in_run_concurrent<T>(store: &mut StoreContextMut<'_, T>) -> bool {
    host(store).in_run_concurrent > 0
}

/// A new id of the ready queue that belongs to no host task, and the waker
/// that puts it on the queue (for a hold, see `hold.rs`).
pub(crate) fn new_wake_id<T>(store: &mut StoreContextMut<'_, T>) -> (u64, Waker) {
    let host = host(store);
    let id = host.next_id;
    host.next_id += 1;
    let waker = Waker::from(Arc::new(TaskWaker {
        id,
        queue: host.queue.clone(),
    }));
    (id, waker)
}

/// Takes the id of [`new_wake_id`] off the ready queue; whether it was on
/// (also how an id no longer used is forgotten).
pub(crate) fn take_wake_id<T>(store: &mut StoreContextMut<'_, T>, id: u64) -> bool {
    host(store).queue.take_id(id)
}

/// Sleeps until the id of [`new_wake_id`] is woken (see [`sleep_until`]).
pub(crate) fn sleep_for_wake<T: 'static>(store: &mut StoreContextMut<'_, T>, id: u64) -> crate::Result<()> {
    sleep_until(store, |queue| queue.contains(id))
}

/// Sleeps until `woken` holds of the ready queue: suspends the fiber of a
/// `call_async` when it is the innermost, else parks the thread.
fn sleep_until<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    woken: impl Fn(&ReadyQueue) -> bool,
) -> crate::Result<()> {
    let queue = host(store).queue.clone();
    if woken(&queue) {
        return Ok(());
    }
    let async_cx = store.0.opaque().async_state.as_ref().map(|s| s.parts());
    if let Some((cx, entry)) = async_cx.filter(|(cx, _)| cx.can_suspend()) {
        let mut ready = std::future::poll_fn(|c| {
            queue.set_sleeper(c.waker());
            if woken(&queue) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        });
        return crate::async_support::block_on(&cx, entry, Pin::new(&mut ready));
    }
    queue.set_sleeper(&Waker::from(Arc::new(Unpark(std::thread::current()))));
    while !woken(&queue) {
        std::thread::park();
    }
    Ok(())
}

/// Adds a host task and returns its id.
fn insert<T>(store: &mut StoreContextMut<'_, T>, future: HostFuture, kind: HostKind) -> u64 {
    let host = host(store);
    let id = host.next_id;
    host.next_id += 1;
    let waker = Waker::from(Arc::new(TaskWaker {
        id,
        queue: host.queue.clone(),
    }));
    if let HostKind::Spawned(join) = &kind {
        join.set_task_waker(waker.clone());
    }
    host.tasks.insert(
        id,
        HostTask {
            future: Some(future),
            waker,
            kind,
        },
    );
    id
}

/// Spawns `task` on the store's event loop (it is first polled on the
/// loop's next turn).
pub(crate) fn spawn<T: 'static, D: HasData + ?Sized>(
    store: &mut StoreContextMut<'_, T>,
    get: fn(&mut T) -> D::Data<'_>,
    task: impl AccessorTask<T, D>,
) -> crate::Result<JoinHandle> {
    check_concurrency_support(store)?;
    let future: HostFuture = Box::pin(async move {
        let accessor = Accessor::<T>::new_self().with_getter::<D>(get);
        task.run(&accessor).await.map(|()| Vec::new())
    });
    let join = Arc::new(JoinState::default());
    let id = insert(store, future, HostKind::Spawned(join.clone()));
    host(store).queue.push(id);
    Ok(JoinHandle { state: join })
}

/// Starts `future` as a host task that nobody waits for (the destructor
/// of a `resource_concurrent`), polling it once at once.
pub(crate) fn start_detached<T: 'static>(store: &mut StoreContextMut<'_, T>, future: HostFuture) -> crate::Result<()> {
    check_concurrency_support(store)?;
    let id = insert(store, future, HostKind::Spawned(Arc::new(JoinState::default())));
    poll_task(store, id).map(drop)
}

/// Starts `future` as a host task that nobody joins (a stream driver):
/// first polled on the event loop's next turn. Its id.
pub(crate) fn start_task<T>(store: &mut StoreContextMut<'_, T>, future: HostFuture) -> crate::Result<u64> {
    check_concurrency_support(store)?;
    let id = insert(store, future, HostKind::Spawned(Arc::new(JoinState::default())));
    host(store).queue.push(id);
    Ok(id)
}

/// Drops the host task `id` unless it is being polled further up this
/// stack; whether it was dropped.
pub(crate) fn drop_task<T>(store: &mut StoreContextMut<'_, T>, id: u64) -> bool {
    let host = host(store);
    if host.tasks.get(&id).is_some_and(|t| t.future.is_some()) {
        drop(host.tasks.remove(&id));
        return true;
    }
    false
}

/// Ends the host call `id` whose task group hook failed: its subtask
/// never resolves, and the caller's instance is not entered again (the
/// group is aborted). The error to report.
fn abort_call<T>(store: &mut StoreContextMut<'_, T>, id: u64, e: crate::Error) -> crate::Error {
    let mut caller = None;
    if let Some(HostKind::Call(call)) = host(store).tasks.remove(&id).map(|t| t.kind) {
        let _ = store.components_mut().tasks.release(call.subtask);
        caller = call.caller.map(|(_, flags)| flags);
    }
    hooks::abort_instance(store, caller, e)
}

/// Polls the host task `id` once, if it is pending and not being polled
/// already; ends it when it is ready. Whether it was polled.
fn poll_task<T: 'static>(store: &mut StoreContextMut<'_, T>, id: u64) -> crate::Result<bool> {
    let Some(task) = host(store).tasks.get_mut(&id) else {
        return Ok(false);
    };
    if let HostKind::Spawned(join) = &task.kind {
        if join.is_aborted() {
            let join = join.clone();
            drop(host(store).tasks.remove(&id));
            join.finish();
            return Ok(true);
        }
    }
    let group = match &task.kind {
        HostKind::Call(c) => c.group,
        HostKind::Spawned(_) => None,
    };
    let Some(mut future) = task.future.take() else {
        return Ok(false);
    };
    let waker = task.waker.clone();
    if let Some(g) = group {
        if let Err(e) = hooks::enter(store, g) {
            drop(future);
            return Err(abort_call(store, id, e));
        }
    }
    let mut cx = Context::from_waker(&waker);
    let polled = weft_fiber::lend_store(&mut *store.0, || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| future.as_mut().poll(&mut cx)))
    });
    if let Some(g) = group {
        if let Err(e) = hooks::exit(store, g) {
            drop(future);
            return Err(abort_call(store, id, e));
        }
    }
    match polled {
        Ok(Poll::Pending) => {
            if let Some(task) = host(store).tasks.get_mut(&id) {
                task.future = Some(future);
            }
            Ok(true)
        }
        Ok(Poll::Ready(result)) => {
            drop(future);
            end_task(store, id, result)?;
            Ok(true)
        }
        Err(panic) => {
            // The host's own panic goes on to the host, after the task is
            // ended as if it failed (the store stays usable).
            drop(future);
            let _ = end_task(store, id, Err(trap("a host function panicked")));
            std::panic::resume_unwind(panic)
        }
    }
}

/// Ends host task `id` with `result`: a spawned task's joiners wake; a
/// host call resolves its subtask, its results lowered into the memory of
/// a caller that lowered `async` or kept for a caller that waits.
fn end_task<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    id: u64,
    result: crate::Result<Vec<Val>>,
) -> crate::Result<()> {
    let Some(task) = host(store).tasks.remove(&id) else {
        return Ok(());
    };
    let call = match task.kind {
        HostKind::Spawned(join) => {
            join.finish();
            // A spawned task's error ends the loop that runs it.
            return result.map(drop);
        }
        HostKind::Call(call) => call,
    };
    let subtask = call.subtask;
    let outcome = match (call.lower, result) {
        (Some(lower), Ok(mut vals)) => lower_host_async_results(store, &lower, &mut vals),
        (Some(_), Err(e)) => Err(e),
        (None, result) => {
            host(store).finished.insert(subtask, result);
            Ok(())
        }
    };
    let tasks = &mut store.components_mut().tasks;
    let Err(e) = outcome else {
        let resolved = tasks.resolve_subtask(subtask, SubtaskStatus::Returned);
        let released = tasks.release(subtask);
        return resolved.and(released).map_err(trap);
    };
    // The call failed where its caller cannot hear of it (it lowered the
    // call `async`): the caller traps as if the error were its own; its
    // subtask stays unresolved in its instance, which is not entered again.
    let released = tasks.release(subtask).map_err(trap);
    let Some((task, flags)) = call.caller else {
        return Err(e);
    };
    let _ = crate::component::call::poison_instance(store, flags);
    calls::route_trap(store, task, e);
    released
}

fn lower_host_async_results<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    lower: &AsyncLower,
    vals: &mut [Val],
) -> crate::Result<()> {
    let Some(fty) = lower.types.func(lower.ty) else {
        crate::bail!("function type {} not found", lower.ty.0);
    };
    check_result_count(fty, vals)?;
    lower_async_results(store, &lower.types, fty, &lower.options, lower.retptr, vals)
}

/// Fails unless a host function gave as many results as its type has.
fn check_result_count(fty: &weft_environ::component::FuncType, vals: &[Val]) -> crate::Result<()> {
    if vals.len() != usize::from(fty.result.is_some()) {
        crate::bail!("the host function's results do not match its type");
    }
    Ok(())
}

/// Cancels the host call of `subtask` (`subtask.cancel`): its future is
/// dropped and the subtask resolves as cancelled. Whether there was one.
pub(crate) fn cancel_call<T>(store: &mut StoreContextMut<'_, T>, subtask: EntryId) -> crate::Result<bool> {
    let host = host(store);
    let Some(id) = host
        .tasks
        .iter()
        .find(|(_, t)| matches!(&t.kind, HostKind::Call(c) if c.subtask == subtask))
        .map(|(id, _)| *id)
    else {
        return Ok(false);
    };
    if host.tasks.get(&id).is_some_and(|t| t.future.is_none()) {
        // Being polled further up this stack: it cannot be dropped now.
        return Ok(false);
    }
    drop(host.tasks.remove(&id));
    let tasks = &mut store.components_mut().tasks;
    let resolved = tasks.resolve_subtask(subtask, SubtaskStatus::CancelledBeforeReturned);
    let released = tasks.release(subtask);
    resolved.and(released).map_err(trap)?;
    Ok(true)
}

/// Makes the future of a concurrent host function's call from the lifted
/// arguments and the number of results.
pub(crate) type MakeHostFuture<'a, T> =
    dyn Fn(&mut StoreContextMut<'_, T>, Vec<Val>, usize) -> crate::Result<HostFuture> + 'a;

/// A call of a concurrent host function, lowered by a guest with
/// `options`: a host task runs `future` for the caller's subtask. Lowered
/// `async`, the caller gets `RETURNED` (the future was ready at once) or
/// `STARTED` and a subtask handle; lowered synchronously, it waits for the
/// results (suspending its thread, or running others meanwhile).
#[allow(
    clippy::too_many_arguments,
    reason = "canon_lower's inputs: the caller's types, options, core arguments and results, and the host function"
)]
pub(crate) fn call_host<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    types: &Arc<ComponentTypes>,
    ty: TypeFuncIndex,
    options: &Options,
    func: &MakeHostFuture<'_, T>,
    params: &[crate::Val],
    results: &mut [crate::Val],
    scope: usize,
) -> crate::Result<()> {
    let Some(fty) = types.func(ty) else {
        crate::bail!("function type {} not found", ty.0);
    };
    if !options.is_async && fty.is_async {
        // A synchronous call of an `async` function may block.
        sched::check_may_call_blocking(store)?;
    }
    let (mut args, retptr) = if options.is_async {
        lift_async_args(store, types, fty, options, params)?
    } else {
        (lift_args_from_core(store, types, fty, options, params)?, None)
    };
    let param_tys: Vec<InterfaceType> = fty.param_types().collect();
    lift_resources(store, types, param_tys.iter().copied(), &mut args, options.flags, scope)?;
    let future = func(store, args, usize::from(fty.result.is_some()))?;
    let caller_inst = calls::task_instance(store, options.flags)?;
    let tasks = &mut store.components_mut().tasks;
    let subtask = tasks.new_subtask();
    tasks.resolve_subtask(subtask, SubtaskStatus::Started).map_err(trap)?;
    // The caller's own reference while it looks at the subtask.
    tasks.acquire(subtask).map_err(trap)?;
    let lower = options.is_async.then(|| AsyncLower {
        types: types.clone(),
        ty,
        options: options.clone(),
        retptr,
    });
    let group = hooks::current_group(store);
    let caller = store.components().sched.current().map(|r| (r.task, options.flags));
    let call = HostCall {
        subtask,
        group,
        caller,
        lower,
    };
    let id = insert(store, future, HostKind::Call(call));
    let polled = poll_task(store, id);
    let r = polled.and_then(|_| finish_host_call(store, types, fty, options, caller_inst, subtask, params, results));
    let _ = host(store).finished.remove(&subtask);
    let released = store.components_mut().tasks.release(subtask).map_err(trap);
    r.and(released)
}

/// The rest of [`call_host`] once the host task was polled once.
#[allow(
    clippy::too_many_arguments,
    reason = "canon_lower's inputs: the caller's types, options, core arguments and results"
)]
fn finish_host_call<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    types: &Arc<ComponentTypes>,
    fty: &weft_environ::component::FuncType,
    options: &Options,
    caller_inst: weft_tasks::InstanceId,
    subtask: EntryId,
    params: &[crate::Val],
    results: &mut [crate::Val],
) -> crate::Result<()> {
    let tasks = &mut store.components_mut().tasks;
    let status = tasks.subtask_state(subtask).map_err(trap)?.status;
    if options.is_async {
        return calls::async_lower_result(tasks, caller_inst, subtask, status, results);
    }
    if !status.resolved() {
        sched::wait_until(store, WaitFor::Resolved(subtask), false)?;
    }
    let tasks = &mut store.components_mut().tasks;
    let _ = tasks.deliver_resolve(subtask);
    let mut out = match host(store).finished.remove(&subtask) {
        Some(r) => r?,
        None => return Err(trap("the host call ended without a result")),
    };
    check_result_count(fty, &out)?;
    lower_sync_results(store, types, fty, options, params, &mut out, results)
}

/// Releases the task references of call futures, and the references of
/// host-held streams, futures and error contexts, dropped since the store
/// last ran.
pub(crate) fn release_dropped<T: 'static>(store: &mut StoreContextMut<'_, T>) {
    host_streams::release_dropped(store);
    let dropped = std::mem::take(&mut *lock(&host(store).dropped));
    if dropped.is_empty() {
        return;
    }
    let components = store.components_mut();
    for task in dropped {
        if let Some(d) = components.sched.task_data.get_mut(&task) {
            d.abandoned = true;
        }
        let _ = components.tasks.release(task);
    }
    calls::collect(store);
}

/// One turn of the event loop: runs the guest threads that are ready and
/// may run, and polls the host tasks that were woken. Whether anything
/// happened.
pub(crate) fn step<T: 'static>(store: &mut StoreContextMut<'_, T>) -> crate::Result<bool> {
    // While a thread holds the store, it is all that may run.
    if let Some(r) = hold::step_held(store) {
        return r;
    }
    release_dropped(store);
    if std::mem::take(&mut store.components_mut().newly_trapped) && calls::fail_stranded(store) {
        return Ok(true);
    }
    if sched::schedule(store).is_some() {
        return step_seeded(store);
    }
    let mut progress = false;
    while let Some(t) = sched::next_runnable(store) {
        resume_from_loop(store, t)?;
        progress = true;
        if store.components().sched.yielded || hold::active(store).is_some() {
            // The executor's turn first (or the holding thread's wake-up).
            break;
        }
    }
    if poll_woken(store)? || progress {
        return Ok(true);
    }
    Ok(calls::fail_stranded(store))
}

/// [`resume_routed`] as the event loop's own turn: a thread that suspends
/// holding the store leaves the loop to wait for its wake-up (see
/// `hold.rs`).
pub(crate) fn resume_from_loop<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    t: weft_tasks::ThreadId,
) -> crate::Result<()> {
    let depth = store.components().sched.running.len();
    let outer = store.components_mut().sched.loop_depth.replace(depth);
    let r = resume_routed(store, t);
    store.components_mut().sched.loop_depth = outer;
    r
}

/// Resumes the ready thread `t` for the event loop: a trap goes to the
/// host's call that led to the thread's task (or stays with its instance
/// when none waits for it); any other error ends the loop.
pub(crate) fn resume_routed<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    t: weft_tasks::ThreadId,
) -> crate::Result<()> {
    let task = store.components().tasks.thread(t).map(|s| s.task);
    match (sched::resume(store, t, false), task) {
        (Ok(()), _) => Ok(()),
        (Err(e), Ok(task)) if crate::component::is_trap(&e) => {
            calls::route_trap(store, task, e);
            Ok(())
        }
        (Err(e), _) => Err(e),
    }
}

/// [`step`] under replayable scheduling: the seeded pick chooses each
/// time between the ready threads and the host tasks woken before the
/// turn began.
fn step_seeded<T: 'static>(store: &mut StoreContextMut<'_, T>) -> crate::Result<bool> {
    // Tasks not polled when this returns or unwinds stay woken.
    let mut woken = Woken::take(&host(store).queue);
    let mut progress = false;
    loop {
        let threads = sched::next_runnable(store);
        let choices = usize::from(threads.is_some()) + woken.ids.len();
        if choices == 0 {
            return Ok(progress || calls::fail_stranded(store));
        }
        progress = true;
        let k = sched::schedule(store).map_or(0, |s| s.pick(choices));
        match (threads, k) {
            (Some(t), 0) => {
                resume_from_loop(store, t)?;
                if store.components().sched.yielded || hold::active(store).is_some() {
                    // The executor's turn first (or the holding thread's
                    // wake-up).
                    return Ok(true);
                }
            }
            (t, k) => {
                let id = woken.ids.swap_remove(k - usize::from(t.is_some()));
                poll_task(store, id)?;
            }
        }
    }
}

/// Polls the host tasks that were woken; whether there were any.
pub(crate) fn poll_woken<T: 'static>(store: &mut StoreContextMut<'_, T>) -> crate::Result<bool> {
    let mut progress = false;
    // On an error or a panic, the others stay woken for the next turn.
    let mut woken = Woken::take(&host(store).queue);
    woken.ids.reverse();
    while let Some(id) = woken.ids.pop() {
        progress |= poll_task(store, id)?;
    }
    Ok(progress)
}

/// Sleeps until a host task is woken: suspends the fiber of a `call_async`,
/// or parks the thread of a synchronous call. Fails when there is no host
/// task to wait for, and inside `run_concurrent` (a synchronous call there
/// must not block the executor).
pub(crate) fn sleep<T: 'static>(store: &mut StoreContextMut<'_, T>) -> crate::Result<()> {
    if hold::active(store).is_some() {
        // Only the holding thread's wake-up counts.
        return match hold::hold_id(store) {
            Some(id) => sleep_for_wake(store, id),
            None => Ok(()),
        };
    }
    let host = host(store);
    if !host.queue.is_empty() {
        return Ok(());
    }
    if host.tasks.is_empty() {
        crate::bail!("internal error: no host task to wait for");
    }
    if host.in_run_concurrent > 0 {
        crate::bail!(
            "a synchronous call cannot wait for a concurrent host function inside `run_concurrent` \
             (it would block the executor): call it with `call_concurrent`"
        );
    }
    sleep_until(store, |queue| !queue.is_empty())
}

/// Whether the store has no host task (other than the one polling) and
/// no guest thread ready.
pub(crate) fn is_idle<T: 'static>(store: &mut StoreContextMut<'_, T>, cx: &mut Context<'_>) -> bool {
    let host = host(store);
    host.queue.set_sleeper(cx.waker());
    let busy = host.tasks.values().filter(|t| t.future.is_some()).count();
    busy == 0 && !sched::has_runnable(store)
}

/// How many turns of the event loop one poll of `run_concurrent` runs at
/// most before it yields to the executor.
const TURNS_PER_POLL: usize = 64;

/// The event loop of `run_concurrent`: polls `main` and runs the loop
/// until `main` is ready or nothing can happen without a wake-up.
fn drive<T: 'static, R>(
    inner: &mut StoreInner<T>,
    cx: &mut Context<'_>,
    mut main: Pin<&mut impl Future<Output = R>>,
) -> Poll<crate::Result<R>> {
    let mut store = StoreContextMut(inner);
    host(&mut store).in_run_concurrent += 1;
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        for _ in 0..TURNS_PER_POLL {
            host(&mut store).queue.set_sleeper(cx.waker());
            // While a thread holds the store, `main` waits too.
            let held = hold::active(&store).is_some();
            if !held {
                if let Poll::Ready(r) = weft_fiber::lend_store(&mut *store.0, || main.as_mut().poll(cx)) {
                    return Poll::Ready(Ok(r));
                }
            }
            match step(&mut store) {
                // A thread yielded: the executor gets a turn.
                Ok(true) if std::mem::take(&mut store.components_mut().sched.yielded) => break,
                Ok(true) => continue,
                Ok(false) => return Poll::Pending,
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
        // Work that keeps waking itself: give the executor its turn.
        cx.waker().wake_by_ref();
        Poll::Pending
    }));
    host(&mut store).in_run_concurrent -= 1;
    r.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// The store of a `run_concurrent`: when its future is dropped while a
/// thread holds the store, the hold is cancelled (see `hold.rs`), so the
/// store is free when the embedder gets it back.
struct Driver<'a, T: 'static>(&'a mut StoreInner<T>);

impl<T: 'static> Drop for Driver<'_, T> {
    fn drop(&mut self) {
        hold::cancel(&mut StoreContextMut(&mut *self.0));
    }
}

impl<T: 'static> StoreContextMut<'_, T> {
    /// Runs `fun` with an [`Accessor`] of this store, concurrently with the
    /// store's guest tasks, host tasks and spawned tasks (as Wasmtime's
    /// `run_concurrent`): while `fun`'s future is pending, the store's
    /// event loop runs everything else that is ready. Returns `fun`'s
    /// result; fails when a guest task traps or a spawned task fails, and
    /// when the engine has no concurrency support.
    ///
    /// Tasks still running when `fun` is done stay in the store and go on
    /// in the next event loop (another `run_concurrent`, or a call).
    pub async fn run_concurrent<R>(self, fun: impl AsyncFnOnce(&Accessor<T>) -> R) -> crate::Result<R>
    where
        T: Send,
    {
        check_concurrency_support(&self)?;
        let accessor = Accessor::<T>::new_self();
        let main = std::pin::pin!(fun(&accessor));
        let driver = Driver(self.0);
        let mut main = main;
        std::future::poll_fn(move |cx| drive(&mut *driver.0, cx, main.as_mut())).await
    }

    /// Spawns `task` on the store's event loop; it runs in the next
    /// `run_concurrent` (or call) and until it finishes or is aborted.
    pub fn spawn(mut self, task: impl AccessorTask<T>) -> crate::Result<JoinHandle> {
        spawn(&mut self, |t| t, task)
    }
}

impl<T: 'static> Store<T> {
    /// [`StoreContextMut::run_concurrent`] on this store.
    pub async fn run_concurrent<R>(&mut self, fun: impl AsyncFnOnce(&Accessor<T>) -> R) -> crate::Result<R>
    where
        T: Send,
    {
        crate::AsContextMut::as_context_mut(self).run_concurrent(fun).await
    }

    /// [`StoreContextMut::spawn`] on this store.
    pub fn spawn(&mut self, task: impl AccessorTask<T>) -> crate::Result<JoinHandle> {
        crate::AsContextMut::as_context_mut(self).spawn(task)
    }
}
