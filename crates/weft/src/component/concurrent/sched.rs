//! Running threads: fibers for the threads of `async`-typed tasks, the
//! stack of running threads, waiting, and the loop that drives waiting
//! threads for the host.

// Import loop kept on purpose: the files of `concurrent/` are one event
// loop split by size (threads in sched.rs, tasks in calls.rs, host tasks in
// host.rs, built-ins and copies); a resumed thread runs calls that wait in
// the loop, so each part calls the others.
use super::calls::TaskData;
use super::dense_map::DenseMap;
use super::{copy, hold, hooks, host};
use crate::component::trap;
use crate::store::StoreInner;
use crate::StoreContextMut;
use std::any::Any;
use weft_fiber::{StoreFiber, Suspender};
use weft_runtime::StackState;
use weft_tasks::{EntryId, Event, ThreadId, WaitFor};

/// The body of a thread, as its fiber runs it.
type ThreadBody<T> = Box<dyn FnOnce(&mut StoreInner<T>, Suspender) + Send>;

/// How many idle fibers a store keeps for its next threads.
const MAX_IDLE_FIBERS: usize = 4;

/// A thread that runs on a fiber.
struct ThreadFiber {
    /// The `StoreFiber<StoreInner<T>>` (for the store's `T`); `None` while
    /// the thread runs.
    fiber: Option<Box<dyn Any + Send>>,
    /// The runtime's view of the fiber's stack while it is not running.
    stack: StackState,
    /// Suspends the fiber (used by the thread itself).
    suspender: Suspender,
    /// The call-hook transitions open on the fiber when it suspended.
    hooks: Vec<crate::CallHook>,
}

/// A running thread.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Running {
    pub(crate) thread: ThreadId,
    pub(crate) task: EntryId,
    /// The lifted function the task calls (store index).
    pub(crate) func: u32,
}

/// The store's scheduling state (beside `weft_tasks::Tasks`).
#[derive(Default)]
pub(crate) struct Sched {
    /// The running threads, innermost last: the last is the current thread
    /// of the built-ins.
    pub(crate) running: Vec<Running>,
    fibers: DenseMap<ThreadId, ThreadFiber>,
    /// Fibers whose thread returned, kept to run the next threads (each a
    /// `StoreFiber<StoreInner<T>>`, idle): a new fiber costs more than a
    /// reused one.
    idle: Vec<Box<dyn Any + Send>>,
    /// What the facade keeps of each task (its function, its caller).
    pub(crate) task_data: DenseMap<EntryId, TaskData>,
    /// Whether the thread being resumed is resumed to be cancelled.
    resumed_cancelled: bool,
    /// The thread a suspending thread asks its resumer to run next.
    switch_to: Option<ThreadId>,
    /// The error a fiber's body ended with, for its resumer.
    failure: Option<crate::Error>,
    /// The options of the copy built-ins, by the index their buffers carry.
    pub(crate) copy_cx: Vec<copy::CopyCx>,
    /// The host tasks and the ready queue of the event loop.
    pub(crate) host: host::HostTasks,
    /// The seeded pick of replayable scheduling, once made.
    schedule: Option<Schedule>,
    /// The store's own schedule seed, over the engine's.
    pub(crate) seed_override: Option<Option<u64>>,
    /// The embedder's task group hook.
    pub(crate) hooks: hooks::Hooks,
    /// Set when a thread yielded to the executor (a fuel or epoch yield):
    /// the event loop gives the executor a turn.
    pub(crate) yielded: bool,
    /// The hold of a host function whose future holds the store (see
    /// `hold.rs`).
    pub(crate) hold: Option<hold::Hold>,
    /// The depth of the running threads where the event loop's own turn
    /// resumes a thread (see `host::step`), while it does.
    pub(crate) loop_depth: Option<usize>,
}

/// The pseudo-random pick of replayable scheduling
/// (`Config::concurrency_schedule_seed`): xorshift64*, so that a seed
/// gives the same sequence on every platform.
#[derive(Debug, Clone)]
pub(crate) struct Schedule(u64);

impl Schedule {
    fn new(seed: u64) -> Schedule {
        // Zero is xorshift's fixed point: mix the seed first.
        Schedule(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A pick among `n` choices (`n > 0`).
    pub(crate) fn pick(&mut self, n: usize) -> usize {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1) as u64) as usize
    }
}

/// The store's seeded pick, when the engine has a schedule seed.
pub(crate) fn schedule<'a, T>(store: &'a mut StoreContextMut<'_, T>) -> Option<&'a mut Schedule> {
    let seed = seed(store)?;
    let sched = &mut store.components_mut().sched;
    Some(sched.schedule.get_or_insert_with(|| Schedule::new(seed)))
}

/// The schedule seed in force: the store's, else the engine's.
fn seed<T>(store: &StoreContextMut<'_, T>) -> Option<u64> {
    let opaque = store.0.opaque();
    opaque
        .components
        .sched
        .seed_override
        .unwrap_or(opaque.engine.config().concurrency_schedule_seed)
}

impl<T: 'static> crate::Store<T> {
    /// Sets this store's schedule seed (see
    /// [`Config::concurrency_schedule_seed`](crate::Config::concurrency_schedule_seed)),
    /// over the engine's: `None` for the fast default order. (Weft's own,
    /// for tests that try many interleavings with one compiled component.)
    pub fn set_concurrency_schedule_seed(&mut self, seed: Option<u64>) {
        let sched = &mut crate::AsContextMut::as_context_mut(self)
            .0
            .opaque_mut()
            .components
            .sched;
        sched.seed_override = Some(seed);
        sched.schedule = seed.map(Schedule::new);
    }
}

impl Sched {
    /// The current thread, if any.
    pub(crate) fn current(&self) -> Option<Running> {
        self.running.last().copied()
    }

    /// How many threads have a fiber.
    pub(crate) fn fiber_count(&self) -> usize {
        self.fibers.len()
    }

    /// Whether `thread` runs on a fiber.
    pub(crate) fn has_fiber(&self, thread: ThreadId) -> bool {
        self.fibers.contains_key(&thread)
    }

    /// The suspender of `thread`'s fiber.
    pub(crate) fn suspender(&self, thread: ThreadId) -> Option<Suspender> {
        self.fibers.get(&thread).map(|f| f.suspender.clone())
    }
}

/// The stack code runs on now: the innermost running thread on a fiber, or
/// `None` for the host's stack (calls on one stack nest).
pub(crate) fn current_stack<T>(store: &StoreContextMut<'_, T>) -> Option<u32> {
    let sched = &store.components().sched;
    sched
        .running
        .iter()
        .rev()
        .find(|r| sched.has_fiber(r.thread))
        .map(|r| r.thread.index())
}

/// The current thread, or a trap naming the built-in `what`.
pub(crate) fn current<T>(store: &StoreContextMut<'_, T>, what: &str) -> crate::Result<Running> {
    store
        .components()
        .sched
        .current()
        .ok_or_else(|| trap(format_args!("`{what}` called with no current task")))
}

/// `Task.may_block`: a task of a function type without `async` may not
/// block before it returns, and code running outside any task (a start
/// function) may not block at all.
pub(crate) fn check_may_block<T>(store: &StoreContextMut<'_, T>) -> crate::Result<()> {
    let components = store.components();
    let blocked = match components.sched.current() {
        None => true,
        Some(cur) => components
            .tasks
            .task(cur.task)
            .map_or(true, |t| !t.async_type && !t.resolved()),
    };
    if blocked {
        return Err(trap("cannot block a synchronous task before returning"));
    }
    Ok(())
}

/// The check before a synchronous call of an `async` function: a task of a
/// synchronous type that has not returned may make it only when another
/// thread of its instance is ready to run meanwhile (the callee may block);
/// code outside any task never may.
pub(crate) fn check_may_call_blocking<T>(store: &StoreContextMut<'_, T>) -> crate::Result<()> {
    if check_may_block(store).is_ok() {
        return Ok(());
    }
    let components = store.components();
    let sched = &components.sched;
    if let Some(cur) = sched.current() {
        let tasks = &components.tasks;
        if let Ok(inst) = tasks.thread(cur.thread).map(|t| t.instance) {
            if tasks
                .next_ready(|t, s| t != cur.thread && may_run_during_sync_call(components, inst, t, s))
                .is_some()
            {
                return Ok(());
            }
        }
    }
    Err(trap("cannot block a synchronous task before returning"))
}

/// Whether the ready thread `t` of instance `inst` may run while a task of
/// a synchronous function type of `inst` waits on its caller's stack: a
/// thread on a fiber that does not need the instance's stack to itself (the
/// implicit thread of a task lifted without `async` or with a `callback`
/// does, as does the thread holding the instance's exclusivity).
fn may_run_during_sync_call(
    components: &crate::component::store::ComponentStore,
    inst: weft_tasks::InstanceId,
    t: ThreadId,
    s: &weft_tasks::ThreadState,
) -> bool {
    let tasks = &components.tasks;
    let needs_stack = tasks
        .task(s.task)
        .is_ok_and(|task| task.async_type && task.needs_exclusive() && task.implicit == Some(t));
    s.instance == inst && components.sched.has_fiber(t) && tasks.exclusive(inst) != Some(t) && !needs_stack
}

/// Puts `thread` (registered in the task table, not running) on a new
/// fiber that runs `body` when first resumed. An error `body` returns ends
/// the resume that ran it.
pub(crate) fn spawn<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    thread: ThreadId,
    body: impl FnOnce(&mut StoreContextMut<'_, T>) -> crate::Result<()> + Send + 'static,
) -> crate::Result<()> {
    let job: ThreadBody<T> = Box::new(move |inner, _suspender| {
        let mut store = StoreContextMut(inner);
        if let Err(e) = body(&mut store) {
            store.components_mut().sched.failure = Some(e);
        }
    });
    // An idle fiber of this store takes the body, else a new one.
    let mut job = job;
    let fiber = loop {
        let Some(idle) = store.components_mut().sched.idle.pop() else {
            let pool = store.0.opaque().engine.inner.fiber_pool.clone();
            break Box::new(StoreFiber::<StoreInner<T>>::new(&pool, job)?);
        };
        // Idle fibers that cannot be reused are dropped (they hold no
        // frames).
        if let Ok(mut idle) = idle.downcast::<StoreFiber<StoreInner<T>>>() {
            match idle.reuse(job) {
                Ok(()) => break idle,
                Err(back) => job = back,
            }
        }
    };
    let suspender = fiber.suspender();
    store.components_mut().sched.fibers.insert(
        thread,
        ThreadFiber {
            fiber: Some(fiber),
            stack: StackState::default(),
            suspender,
            hooks: Vec::new(),
        },
    );
    Ok(())
}

/// Runs `thread` (on its fiber) until it waits or returns; `cancelled`
/// tells a cancellable wait it was cancelled. A thread the resumed one
/// switches to runs next, and so on. An error of a body (a trap) is
/// returned, and a panic continues here.
pub(crate) fn resume<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    thread: ThreadId,
    cancelled: bool,
) -> crate::Result<()> {
    let mut next = Some((thread, cancelled));
    while let Some((thread, cancelled)) = next.take() {
        if !store.components().sched.has_fiber(thread) {
            // A thread on a caller's stack, blocked below: it goes on when
            // control gets back to it.
            let tasks = &mut store.components_mut().tasks;
            tasks.stop_waiting(thread).map_err(trap)?;
            tasks.set_running(thread, true).map_err(trap)?;
            break;
        }
        resume_one(store, thread, cancelled)?;
        next = store.components_mut().sched.switch_to.take().map(|t| (t, false));
    }
    Ok(())
}

fn resume_one<T: 'static>(store: &mut StoreContextMut<'_, T>, thread: ThreadId, cancelled: bool) -> crate::Result<()> {
    let task = store.components().tasks.thread(thread).map_err(trap)?.task;
    let Some(group) = hooks::group_of(store, task) else {
        return resume_fiber(store, thread, task, cancelled);
    };
    if let Err(e) = hooks::enter(store, group) {
        return Err(hooks::abort(store, task, e));
    }
    let r = resume_fiber(store, thread, task, cancelled);
    let exited = hooks::exit(store, group).map_err(|e| hooks::abort(store, task, e));
    r.and(exited)
}

fn resume_fiber<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    thread: ThreadId,
    task: EntryId,
    cancelled: bool,
) -> crate::Result<()> {
    let components = store.components_mut();
    let Some(run) = components.sched.fibers.get_mut(&thread) else {
        crate::bail!("internal error: thread {thread:?} has no fiber to resume");
    };
    let Some(fiber) = run.fiber.take() else {
        crate::bail!("internal error: thread {thread:?} is running already");
    };
    let mut fiber = match fiber.downcast::<StoreFiber<StoreInner<T>>>() {
        Ok(fiber) => fiber,
        Err(other) => {
            run.fiber = Some(other);
            crate::bail!("internal error: a fiber of another store type");
        }
    };
    let mut stack = std::mem::take(&mut run.stack);
    let hooks = std::mem::take(&mut run.hooks);
    let tasks = &mut components.tasks;
    tasks.stop_waiting(thread).map_err(trap)?;
    tasks.set_running(thread, true).map_err(trap)?;
    let func = components.sched.task_data.get(&task).map_or(u32::MAX, |d| d.func);
    let depth = components.sched.running.len();
    components.sched.running.push(Running { thread, task, func });
    // The synchronous calls above the thread's own when it suspended
    // holding the store run on.
    if let Some(h) = components.sched.hold.as_mut().filter(|h| h.thread == thread) {
        let above = std::mem::take(&mut h.above);
        components.sched.running.extend(above);
    }
    components.sched.resumed_cancelled = cancelled;
    // The call hook hears the fiber's transitions open again, and close
    // when it suspends (a hook's error at these points is not reported:
    // there is no call to fail).
    let hook_depth = store.0.call_hook_depth();
    let _ = store.0.resume_call_hooks(hooks);
    stack.swap(store.0.opaque().objects.context());
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fiber.resume(&mut *store.0)));
    stack.swap(store.0.opaque().objects.context());
    let hooks = store.0.suspend_call_hooks(hook_depth).unwrap_or_default();
    let holding = hold::active(store) == Some(thread);
    if holding {
        // Suspended in a host function holding the store: the calls above
        // the thread's own are set aside until it resumes.
        let sched = &mut store.components_mut().sched;
        let above = sched.running.split_off((depth + 1).min(sched.running.len()));
        if let Some(h) = sched.hold.as_mut() {
            h.above = above;
        }
    } else {
        // Calls on the fiber's stack that a trap cut short left their tasks
        // above the fiber's own: end them (a fiber only suspends from the
        // top otherwise).
        let _ = super::calls::exit_task(store, depth + 1);
    }
    let components = store.components_mut();
    components.sched.running.truncate(depth);
    let _ = components.tasks.set_running(thread, false);
    let done = match outcome {
        Ok(done) => done,
        Err(panic) => {
            components.sched.fibers.remove(&thread);
            let _ = components.tasks.exit_thread(thread);
            std::panic::resume_unwind(panic)
        }
    };
    if done {
        components.sched.fibers.remove(&thread);
        if components.sched.idle.len() < MAX_IDLE_FIBERS {
            components.sched.idle.push(fiber);
        }
    } else if let Some(run) = components.sched.fibers.get_mut(&thread) {
        run.fiber = Some(fiber);
        run.stack = stack;
        run.hooks = hooks;
    }
    let failure = components.sched.failure.take();
    // A resumer other than the event loop's turn goes on only once the
    // store is free again.
    if holding && components.sched.loop_depth != Some(depth) {
        hold::wait_in_place(store, thread)?;
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Waits on the current thread until `wait` holds (`Thread.wait_until`);
/// `Ok(true)` when the wait was cancelled. See [`block`].
pub(crate) fn wait_until<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    wait: WaitFor,
    cancellable: bool,
) -> crate::Result<bool> {
    let cur = current(store, "a blocking built-in")?;
    let tasks = &mut store.components_mut().tasks;
    if tasks.deliver_pending_cancel(cur.task, cancellable).map_err(trap)? {
        return Ok(true);
    }
    tasks.start_waiting(cur.thread, wait, cancellable).map_err(trap)?;
    block(store)
}

/// `WaitableSet.wait_for_event_and`: waits (counted as a waiter of `set`)
/// until a member of `set` has an event and, with `not_exclusive`, the
/// instance has no exclusive thread; the event taken, or `TASK_CANCELLED`.
pub(crate) fn wait_for_set_event<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    set: EntryId,
    not_exclusive: bool,
    cancellable: bool,
) -> crate::Result<Event> {
    let tasks = &mut store.components_mut().tasks;
    tasks.set_waiting(set, true).map_err(trap)?;
    let waited = wait_until(store, WaitFor::Set { set, not_exclusive }, cancellable);
    let tasks = &mut store.components_mut().tasks;
    tasks.set_waiting(set, false).map_err(trap)?;
    if waited? {
        Ok(Event::CANCELLED)
    } else {
        tasks.take_set_event(set).map_err(trap)
    }
}

/// Blocks the current thread, whose wait (or suspension) is recorded, until
/// it is ready or resumed; `Ok(true)` when resumed to be cancelled. A
/// thread on a fiber suspends; a thread on its caller's stack (a task of a
/// synchronous function type) runs the other ready threads of its instance
/// meanwhile, and traps when there are none ("cannot block a synchronous
/// task before returning").
pub(crate) fn block<T: 'static>(store: &mut StoreContextMut<'_, T>) -> crate::Result<bool> {
    let cur = current(store, "a blocking built-in")?;
    if store.components().sched.has_fiber(cur.thread) {
        return suspend_current(store);
    }
    let tasks = &mut store.components_mut().tasks;
    let inst = tasks.thread(cur.thread).map_err(trap)?.instance;
    tasks.set_running(cur.thread, false).map_err(trap)?;
    let result = loop {
        let tasks = &store.components().tasks;
        // Another thread switched back to this one, or its wait is over.
        if tasks.thread(cur.thread).is_ok_and(|t| t.running) || tasks.is_ready(cur.thread) {
            break Ok(false);
        }
        let components = store.components();
        let next = tasks.next_ready(|t, s| may_run_during_sync_call(components, inst, t, s));
        match next {
            Some(t) => {
                if let Err(e) = resume(store, t, false) {
                    break Err(e);
                }
            }
            // A host task may end the wait.
            None if store.components().sched.host.len() > 0 => {
                let woken = host::poll_woken(store);
                if let Err(e) = woken.and_then(|polled| if polled { Ok(()) } else { host::sleep(store) }) {
                    break Err(e);
                }
            }
            // Threads are ready but none may run on this stack: nothing
            // can make progress.
            None if store.components().tasks.next_ready(|t, _| t != cur.thread).is_some() => {
                break Err(trap("deadlock detected: event loop cannot make further progress"))
            }
            None => break Err(trap("cannot block a synchronous task before returning")),
        }
    };
    let tasks = &mut store.components_mut().tasks;
    let _ = tasks.stop_waiting(cur.thread);
    let _ = tasks.set_running(cur.thread, true);
    result
}

/// Suspends the current thread, which runs on a fiber and has its wait
/// recorded (or is suspended for an explicit resume): back to its resumer.
/// `Ok(true)` when resumed to be cancelled.
pub(crate) fn suspend_current<T: 'static>(store: &mut StoreContextMut<'_, T>) -> crate::Result<bool> {
    let cur = current(store, "a blocking built-in")?;
    let sched = &store.components().sched;
    let Some(suspender) = sched.fibers.get(&cur.thread).map(|f| f.suspender.clone()) else {
        crate::bail!("internal error: the current thread has no fiber");
    };
    suspender
        .suspend(&mut *store.0)
        .map_err(|e| crate::format_err!("{e}"))?;
    Ok(std::mem::take(&mut store.components_mut().sched.resumed_cancelled))
}

/// A fuel or epoch yield of wasm running in a component-model task: a
/// thread on a fiber suspends, ready at once, and the event loop gives
/// the executor a turn before it resumes it. `None` when no such thread
/// runs (the yield is the call's own); a yield where the fiber cannot
/// suspend (a task of a synchronous type on top of it) is skipped.
pub(crate) fn yield_thread<T: 'static>(inner: &mut StoreInner<T>) -> Option<crate::Result<()>> {
    let mut store = StoreContextMut(inner);
    current_stack(&store)?;
    let sched = &store.components().sched;
    let cur = sched.current()?;
    if !sched.has_fiber(cur.thread) {
        return Some(Ok(()));
    }
    let components = store.components_mut();
    if let Err(e) = components.tasks.start_waiting(cur.thread, WaitFor::Nothing, false) {
        return Some(Err(trap(e)));
    }
    components.sched.yielded = true;
    Some(suspend_current(&mut store).map(drop))
}

/// Asks the resumer of the current thread to run `thread` next, once the
/// current one suspends (`switch_to`).
pub(crate) fn switch_to<T>(store: &mut StoreContextMut<'_, T>, thread: ThreadId) {
    store.components_mut().sched.switch_to = Some(thread);
}

/// The ready threads the host's event loop may run: those on a fiber
/// whose instance may be entered (threads of instances that trapped, or
/// that are entered further up the stack, are not run).
fn runnable<'a, T>(store: &'a StoreContextMut<'_, T>) -> impl Iterator<Item = ThreadId> + 'a {
    let components = store.components();
    let sched = &components.sched;
    let enterable = move |s: &weft_tasks::ThreadState| {
        let may_enter = super::calls::task_component_instance(components, s.task)
            .is_some_and(|r| components.flags(r).is_ok_and(|fl| fl.may_enter));
        // The host's call of an instance that trapped before the call
        // started runs only to end its task (`calls::implicit_thread`).
        may_enter || super::calls::stranded_before_start(components, s.task)
    };
    components
        .tasks
        .ready_threads(move |t, s| sched.has_fiber(t) && enterable(s))
}

/// The next ready thread the host's event loop may run: the oldest, or
/// the seeded pick among all of them.
pub(crate) fn next_runnable<T>(store: &mut StoreContextMut<'_, T>) -> Option<ThreadId> {
    if seed(store).is_none() {
        return runnable(store).next();
    }
    let ready: Vec<ThreadId> = runnable(store).collect();
    if ready.is_empty() {
        return None;
    }
    let k = schedule(store).map_or(0, |s| s.pick(ready.len()));
    ready.get(k).copied()
}

/// Whether the host's event loop has a thread it may run.
pub(crate) fn has_runnable<T>(store: &StoreContextMut<'_, T>) -> bool {
    runnable(store).next().is_some()
}

/// Runs the store's event loop for the host until `done` holds: ready
/// threads run, woken host tasks are polled, and the caller sleeps while
/// only host tasks can end the wait. Traps with "deadlock detected"
/// (naming every wait) when nothing can happen before `done`.
pub(crate) fn run_until<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    mut done: impl FnMut(&StoreContextMut<'_, T>) -> bool,
) -> crate::Result<()> {
    loop {
        if done(store) {
            return Ok(());
        }
        let stepped = host::step(store).inspect_err(|_| hold::cancel(store))?;
        if stepped {
            // A thread that yielded gives the executor a turn, when the
            // call is async.
            if std::mem::take(&mut store.components_mut().sched.yielded) && store.0.opaque().async_state.is_some() {
                store.0.async_yield()?;
            }
            continue;
        }
        if store.components().sched.host.len() > 0 || hold::active(store).is_some() {
            host::sleep(store).inspect_err(|_| hold::cancel(store))?;
            continue;
        }
        let waits = store.components().tasks.describe_waits();
        return Err(trap(format_args!(
            "deadlock detected: event loop cannot make further progress\n{}",
            waits.trim_end()
        )));
    }
}

/// Unwinds every suspended fiber (the store is going away): each wait
/// fails, the threads' wasm frames unwind, and their stacks are returned.
pub(crate) fn cancel_all<T: 'static>(store: &mut StoreInner<T>) {
    // Idle fibers hold no frames: they end without the store.
    store.opaque.components.sched.idle.clear();
    loop {
        let sched = &mut store.opaque.components.sched;
        let Some(thread) = sched.fibers.keys().next().copied() else {
            return;
        };
        let Some(mut run) = sched.fibers.remove(&thread) else {
            return;
        };
        if let Some(f) = run
            .fiber
            .as_mut()
            .and_then(|f| f.downcast_mut::<StoreFiber<StoreInner<T>>>())
        {
            run.stack.swap(store.opaque.objects.context());
            f.cancel(store);
            run.stack.swap(store.opaque.objects.context());
        }
        store.opaque.components.sched.failure = None;
    }
}
