//! Tasks, their threads and subtasks, and the rules that decide when a
//! waiting thread may run (CanonicalABI.md, *Threads*, *Tasks*, *Subtask
//! State*).

use crate::table::{Pending, State, Tasks, WaitableState};
use crate::{EntryId, InstanceId, Kind, SubtaskStatus, TaskError, CONTEXT_SLOTS};
use std::fmt::Write as _;

/// A thread: stable for the thread's life, reused once it exits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ThreadId(pub(crate) u32);

impl ThreadId {
    /// The thread's store-wide index.
    pub fn index(self) -> u32 {
        self.0
    }
}

/// The phases of a task (`Task.State`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskPhase {
    /// Waiting to start (backpressure).
    Initial,
    /// Its arguments were lowered; running.
    Started,
    /// Its caller asked to cancel it; not told yet.
    PendingCancel,
    /// Told of the cancellation request.
    CancelDelivered,
    /// Returned a value or cancelled.
    Resolved,
}

/// The state of a task: a call into a lifted function.
#[derive(Debug, Clone)]
pub struct TaskState {
    /// The component instance running it.
    pub instance: InstanceId,
    /// Whether the function's type is `async`.
    pub async_type: bool,
    /// Whether the function is lifted `async`: only then may it call
    /// `task.return` or `task.cancel`.
    pub is_async: bool,
    /// Whether it is lifted with a `callback`.
    pub callback: bool,
    /// Its phase.
    pub phase: TaskPhase,
    /// Its live threads.
    pub threads: Vec<ThreadId>,
    /// The thread that runs the lifted core function.
    pub implicit: Option<ThreadId>,
    /// The subtask of a guest caller, told when the task starts and
    /// resolves (holding one reference to it until it resolves).
    pub subtask: Option<EntryId>,
}

impl TaskState {
    /// Whether the task's implicit thread must run alone among such threads
    /// of its instance (`Task.needs_exclusive`): lifted without `async`, or
    /// with a `callback`.
    pub fn needs_exclusive(&self) -> bool {
        !self.is_async || self.callback
    }

    /// Whether the task returned or was cancelled.
    pub fn resolved(&self) -> bool {
        self.phase == TaskPhase::Resolved
    }
}

/// The state of a subtask: a call out of a component, seen by the caller.
#[derive(Debug, Clone)]
pub struct SubtaskState {
    /// Its status.
    pub status: SubtaskStatus,
    /// Whether the caller was told of its resolution.
    pub resolve_delivered: bool,
    /// Whether the caller asked to cancel it.
    pub cancellation_requested: bool,
    /// The callee's task, when the callee is a guest (one reference).
    pub callee: Option<EntryId>,
    pub(crate) waitable: WaitableState,
}

impl SubtaskState {
    /// Whether changes are reported as events: the subtask has a handle
    /// (the call was lowered `async` and did not finish at once).
    pub fn reports(&self) -> bool {
        self.waitable.index != 0
    }
}

/// What a waiting thread waits for (`Thread.ready_func`, as data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitFor {
    /// Nothing: ready at once (`thread.yield`, `thread.resume-later`).
    Nothing,
    /// No thread of its instance running exclusively (a callback's
    /// `YIELD`).
    NotExclusive,
    /// An event in a waitable set; with `not_exclusive`, also no exclusive
    /// thread in the instance (a callback's `WAIT`).
    Set {
        /// The waitable set waited on.
        set: EntryId,
        /// Also wait for the instance to have no exclusive thread.
        not_exclusive: bool,
    },
    /// An event of one waitable (a synchronous copy or cancellation).
    Waitable(EntryId),
    /// The resolution of a subtask (a synchronous call).
    Resolved(EntryId),
    /// The end of backpressure, to start the task.
    Enter,
}

/// The state of a thread.
#[derive(Debug, Clone)]
pub struct ThreadState {
    /// Its task (one reference).
    pub task: EntryId,
    /// Its task's instance.
    pub instance: InstanceId,
    /// Its index in the instance's thread table (0 until it is registered:
    /// see [`Tasks::new_thread`]).
    pub index: u32,
    /// `context.get`/`context.set` storage.
    pub context: [u32; CONTEXT_SLOTS],
    /// What it waits for, while waiting.
    pub wait: Option<WaitFor>,
    /// Whether its current suspension may be cancelled.
    pub cancellable: bool,
    /// Whether it runs now.
    pub running: bool,
}

/// What a cancellation request found (see [`Tasks::request_cancellation`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelAction {
    /// The task had not started: it is resolved as cancelled before
    /// starting; resume its implicit thread cancelled so it exits.
    NotStarted(ThreadId),
    /// Resume this thread, cancelled (it expects cancellation).
    Deliver(ThreadId),
    /// Nobody can take it now; delivered at the next cancellable wait.
    Pending,
    /// The task already resolved.
    Resolved,
}

impl Tasks {
    // Tasks.

    /// A new task of `instance` (held by the caller: one reference).
    pub fn new_task(
        &mut self,
        instance: InstanceId,
        async_type: bool,
        is_async: bool,
        callback: bool,
        subtask: Option<EntryId>,
    ) -> Result<EntryId, TaskError> {
        self.instance(instance)?;
        if let Some(s) = subtask {
            self.acquire(s)?;
        }
        let threads = self.spare_thread_lists.pop().unwrap_or_default();
        Ok(self.new_entry(State::Task(TaskState {
            instance,
            async_type,
            is_async,
            callback,
            phase: TaskPhase::Initial,
            threads,
            implicit: None,
            subtask,
        })))
    }

    /// The state of task `id`.
    pub fn task(&self, id: EntryId) -> Result<&TaskState, TaskError> {
        match &self.entry(id)?.state {
            State::Task(t) => Ok(t),
            _ => Err(TaskError::Stale),
        }
    }

    fn task_mut(&mut self, id: EntryId) -> Result<&mut TaskState, TaskError> {
        match &mut self.entry_mut(id)?.state {
            State::Task(t) => Ok(t),
            _ => Err(TaskError::Stale),
        }
    }

    /// `backpressure.inc` (`inc`) or `backpressure.dec` on `inst`.
    pub fn backpressure(&mut self, inst: InstanceId, inc: bool) -> Result<(), TaskError> {
        let i = self.instance_mut(inst)?;
        i.backpressure = if inc {
            i.backpressure
                .checked_add(1)
                .filter(|c| *c < 1 << 16)
                .ok_or(TaskError::Trap("backpressure counter overflow"))?
        } else {
            i.backpressure
                .checked_sub(1)
                .ok_or(TaskError::Trap("backpressure counter underflow"))?
        };
        Ok(())
    }

    /// Lifts what holds tasks back from entering `inst` (its backpressure
    /// counter and its exclusive thread), for an instance that trapped: it
    /// is never entered again, and the runtime ends the tasks that waited
    /// to enter it instead of leaving them waiting for good.
    pub fn end_backpressure(&mut self, inst: InstanceId) -> Result<(), TaskError> {
        let i = self.instance_mut(inst)?;
        i.backpressure = 0;
        i.exclusive = None;
        Ok(())
    }

    /// Whether new `async` work of `task` must wait (`has_backpressure`).
    pub fn has_backpressure(&self, task: EntryId) -> Result<bool, TaskError> {
        let t = self.task(task)?;
        let inst = self.instance(t.instance)?;
        Ok(inst.backpressure > 0 || (t.needs_exclusive() && inst.exclusive.is_some()))
    }

    /// Whether `task` must wait before it starts (`enter_implicit_thread`):
    /// backpressure, or other tasks already waiting to enter.
    pub fn must_wait_to_enter(&self, task: EntryId) -> Result<bool, TaskError> {
        let t = self.task(task)?;
        Ok(t.async_type && (self.has_backpressure(task)? || self.instance(t.instance)?.num_waiting_to_enter > 0))
    }

    /// Counts `task` as waiting to enter its instance, or one less.
    pub fn set_waiting_to_enter(&mut self, task: EntryId, waiting: bool) -> Result<(), TaskError> {
        let inst = self.task(task)?.instance;
        let i = self.instance_mut(inst)?;
        i.num_waiting_to_enter = if waiting {
            i.num_waiting_to_enter.saturating_add(1)
        } else {
            i.num_waiting_to_enter.saturating_sub(1)
        };
        Ok(())
    }

    /// Takes the instance's exclusivity for `task`'s implicit thread when
    /// the task needs it (after the backpressure gate).
    pub fn take_exclusive(&mut self, task: EntryId) -> Result<(), TaskError> {
        let t = self.task(task)?;
        if t.async_type && t.needs_exclusive() {
            let (inst, thread) = (t.instance, t.implicit);
            self.instance_mut(inst)?.exclusive = thread;
        }
        Ok(())
    }

    /// Gives the instance's exclusivity up if `thread` holds it.
    pub fn release_exclusive(&mut self, thread: ThreadId) -> Result<(), TaskError> {
        let inst = self.thread(thread)?.instance;
        let i = self.instance_mut(inst)?;
        if i.exclusive == Some(thread) {
            i.exclusive = None;
        }
        Ok(())
    }

    /// Makes `thread` the exclusive thread of its instance (a callback
    /// loop calling its callback again).
    pub fn set_exclusive(&mut self, thread: ThreadId) -> Result<(), TaskError> {
        let inst = self.thread(thread)?.instance;
        self.instance_mut(inst)?.exclusive = Some(thread);
        Ok(())
    }

    /// The exclusive thread of `inst`.
    pub fn exclusive(&self, inst: InstanceId) -> Option<ThreadId> {
        self.instance(inst).ok().and_then(|i| i.exclusive)
    }

    /// `Task.start`: the task's arguments are about to be lowered; its
    /// implicit thread is registered if it was not (see
    /// [`Tasks::new_thread`]) and its caller's subtask is told it started.
    pub fn task_start(&mut self, task: EntryId) -> Result<(), TaskError> {
        let t = self.task_mut(task)?;
        if t.phase == TaskPhase::Initial {
            t.phase = TaskPhase::Started;
        }
        if let Some(th) = t.implicit.filter(|th| !t.threads.contains(th)) {
            self.register_thread(task, th)?;
        }
        let t = self.task_mut(task)?;
        if let Some(s) = t.subtask {
            let sub = self.subtask_state_mut(s)?;
            if sub.status == SubtaskStatus::Starting {
                sub.status = SubtaskStatus::Started;
                if sub.reports() {
                    sub.waitable.pending = Some(Pending::Subtask);
                }
            }
        }
        Ok(())
    }

    /// `task.return` (or the return of a synchronous lift): resolves the
    /// task; traps if it resolved already.
    pub fn task_return(&mut self, task: EntryId) -> Result<(), TaskError> {
        if self.task(task)?.resolved() {
            return Err(TaskError::TaskResolved);
        }
        self.resolve_task(task, SubtaskStatus::Returned)
    }

    /// `task.cancel`: traps unless cancellation was delivered.
    pub fn task_cancel(&mut self, task: EntryId) -> Result<(), TaskError> {
        let t = self.task(task)?;
        if t.phase != TaskPhase::CancelDelivered {
            return Err(TaskError::Trap(
                "`task.cancel` called without a pending cancellation request",
            ));
        }
        let status = match t.subtask.map(|s| self.subtask_state(s)).transpose()? {
            Some(s) if s.status == SubtaskStatus::Starting => SubtaskStatus::CancelledBeforeStarted,
            _ => SubtaskStatus::CancelledBeforeReturned,
        };
        self.resolve_task(task, status)
    }

    /// Resolves `task` (its caller is told `status`). A task that returned
    /// no longer keeps its instance to itself: other tasks may start while
    /// it goes on (as the reference tests expect, sync-streams.wast).
    fn resolve_task(&mut self, task: EntryId, status: SubtaskStatus) -> Result<(), TaskError> {
        let t = self.task_mut(task)?;
        t.phase = TaskPhase::Resolved;
        let (inst, implicit) = (t.instance, t.implicit);
        if let Ok(i) = self.instance_mut(inst) {
            if implicit.is_some() && i.exclusive == implicit {
                i.exclusive = None;
            }
        }
        let t = self.task_mut(task)?;
        let Some(s) = t.subtask.take() else {
            return Ok(());
        };
        let sub = self.subtask_state_mut(s)?;
        if !sub.status.resolved() {
            sub.status = status;
            if sub.reports() {
                sub.waitable.pending = Some(Pending::Subtask);
            }
        }
        self.release(s)
    }

    /// Cancels a task that never started (its caller cancelled it while it
    /// waited to enter).
    pub fn cancel_unstarted(&mut self, task: EntryId) -> Result<(), TaskError> {
        self.resolve_task(task, SubtaskStatus::CancelledBeforeStarted)
    }

    /// `Task.deliver_pending_cancel`: at a cancellable wait, takes a pending
    /// cancellation request.
    pub fn deliver_pending_cancel(&mut self, task: EntryId, cancellable: bool) -> Result<bool, TaskError> {
        let t = self.task_mut(task)?;
        if cancellable && t.phase == TaskPhase::PendingCancel {
            t.phase = TaskPhase::CancelDelivered;
            return Ok(true);
        }
        Ok(false)
    }

    /// `Task.request_cancellation`: what to do with a request to cancel
    /// `task` (the runtime checks that the instance may be entered before
    /// delivering, and calls [`Tasks::pend_cancel`] when it may not).
    pub fn request_cancellation(&mut self, task: EntryId) -> Result<CancelAction, TaskError> {
        let t = self.task(task)?;
        match t.phase {
            TaskPhase::Resolved => return Ok(CancelAction::Resolved),
            TaskPhase::Initial => {
                let Some(thread) = t.implicit else {
                    return Err(TaskError::Stale);
                };
                self.task_mut(task)?.phase = TaskPhase::CancelDelivered;
                return Ok(CancelAction::NotStarted(thread));
            }
            _ => {}
        }
        let exclusive = self.instance(t.instance)?.exclusive;
        let candidate = t.threads.iter().copied().find(|th| {
            let Ok(state) = self.thread(*th) else { return false };
            if !state.cancellable || state.running {
                return false;
            }
            !(Some(*th) == t.implicit && t.needs_exclusive() && exclusive.is_some_and(|e| e != *th))
        });
        match candidate {
            Some(th) => {
                self.task_mut(task)?.phase = TaskPhase::CancelDelivered;
                Ok(CancelAction::Deliver(th))
            }
            None => {
                self.pend_cancel(task)?;
                Ok(CancelAction::Pending)
            }
        }
    }

    /// Leaves a cancellation request pending.
    pub fn pend_cancel(&mut self, task: EntryId) -> Result<(), TaskError> {
        let t = self.task_mut(task)?;
        if !matches!(t.phase, TaskPhase::Resolved | TaskPhase::CancelDelivered) {
            t.phase = TaskPhase::PendingCancel;
        }
        Ok(())
    }

    // Threads.

    /// A new thread of `task`, suspended, registered in its instance's
    /// thread table (`Task.register_thread`); it holds a reference to the
    /// task. The implicit thread of an `async`-typed task that has not
    /// started is registered only when it starts ([`Tasks::task_start`]),
    /// past backpressure, as `Task.enter_implicit_thread` registers it: until
    /// then it has no index (0), and a task cancelled before it started
    /// never takes one.
    pub fn new_thread(&mut self, task: EntryId, implicit: bool) -> Result<ThreadId, TaskError> {
        let t = self.task(task)?;
        let (inst, register) = (t.instance, !(implicit && t.async_type && t.phase == TaskPhase::Initial));
        self.acquire(task)?;
        let Some(id) = self.threads.insert(ThreadState {
            task,
            instance: inst,
            index: 0,
            context: [0; CONTEXT_SLOTS],
            wait: None,
            cancellable: false,
            running: false,
        }) else {
            self.release(task)?;
            return Err(TaskError::TableFull);
        };
        let id = ThreadId(id);
        if register {
            self.register_thread(task, id)?;
        }
        if implicit {
            self.task_mut(task)?.implicit = Some(id);
        }
        Ok(id)
    }

    /// `Task.register_thread`: gives `thread` an index in its instance's
    /// thread table and counts it among its task's threads.
    fn register_thread(&mut self, task: EntryId, thread: ThreadId) -> Result<(), TaskError> {
        let inst = self.task(task)?.instance;
        let index = self
            .instance_mut(inst)?
            .threads
            .insert(thread)
            .ok_or(TaskError::TableFull)?;
        self.thread_mut(thread)?.index = index;
        self.task_mut(task)?.threads.push(thread);
        Ok(())
    }

    /// The state of `thread`.
    pub fn thread(&self, thread: ThreadId) -> Result<&ThreadState, TaskError> {
        self.threads.get(thread.0).ok_or(TaskError::Stale)
    }

    fn thread_mut(&mut self, thread: ThreadId) -> Result<&mut ThreadState, TaskError> {
        self.threads.get_mut(thread.0).ok_or(TaskError::Stale)
    }

    /// The thread at `index` of `inst`'s thread table.
    pub fn thread_at(&self, inst: InstanceId, index: u32) -> Result<ThreadId, TaskError> {
        self.instance(inst)?
            .threads
            .get(index)
            .copied()
            .ok_or(TaskError::Trap("unknown thread index"))
    }

    /// Removes a thread that returned (`Task.unregister_thread`); traps when
    /// it was its task's last thread and the task has not resolved. The
    /// thread's reference to its task is released either way.
    pub fn exit_thread(&mut self, thread: ThreadId) -> Result<(), TaskError> {
        let Some(state) = self.threads.remove(thread.0) else {
            return Err(TaskError::Stale);
        };
        self.waiting.retain(|t| *t != thread);
        if let Ok(inst) = self.instance_mut(state.instance) {
            inst.threads.remove(state.index);
            if inst.exclusive == Some(thread) {
                inst.exclusive = None;
            }
        }
        let mut unresolved = false;
        if let Ok(t) = self.task_mut(state.task) {
            t.threads.retain(|th| *th != thread);
            if t.implicit == Some(thread) {
                t.implicit = None;
            }
            unresolved = t.threads.is_empty() && t.phase != TaskPhase::Resolved;
        }
        self.release(state.task)?;
        if unresolved {
            return Err(TaskError::Trap("the task's last thread exited before it returned"));
        }
        Ok(())
    }

    /// `context.get`.
    pub fn context_get(&self, thread: ThreadId, slot: u32) -> Result<u32, TaskError> {
        self.thread(thread)?
            .context
            .get(slot as usize)
            .copied()
            .ok_or(TaskError::ContextSlot(slot))
    }

    /// `context.set`.
    pub fn context_set(&mut self, thread: ThreadId, slot: u32, value: u32) -> Result<(), TaskError> {
        let s = self
            .thread_mut(thread)?
            .context
            .get_mut(slot as usize)
            .ok_or(TaskError::ContextSlot(slot))?;
        *s = value;
        Ok(())
    }

    /// Marks `thread` running or not.
    pub fn set_running(&mut self, thread: ThreadId, running: bool) -> Result<(), TaskError> {
        self.thread_mut(thread)?.running = running;
        Ok(())
    }

    /// `Thread.start_waiting_internal`: `thread` waits for `wait`.
    pub fn start_waiting(&mut self, thread: ThreadId, wait: WaitFor, cancellable: bool) -> Result<(), TaskError> {
        let t = self.thread_mut(thread)?;
        t.wait = Some(wait);
        t.cancellable = cancellable;
        if !self.waiting.contains(&thread) {
            self.waiting.push(thread);
        }
        Ok(())
    }

    /// Marks `thread` suspended without a condition (`thread.suspend`): only
    /// an explicit resume or a cancellation wakes it.
    pub fn start_suspended(&mut self, thread: ThreadId, cancellable: bool) -> Result<(), TaskError> {
        let t = self.thread_mut(thread)?;
        t.wait = None;
        t.cancellable = cancellable;
        Ok(())
    }

    /// `Thread.stop_waiting_internal`.
    pub fn stop_waiting(&mut self, thread: ThreadId) -> Result<(), TaskError> {
        let t = self.thread_mut(thread)?;
        t.wait = None;
        t.cancellable = false;
        self.waiting.retain(|t| *t != thread);
        Ok(())
    }

    /// Whether `thread` waits and its condition holds (`Thread.ready`).
    pub fn is_ready(&self, thread: ThreadId) -> bool {
        let Ok(t) = self.thread(thread) else { return false };
        let Some(wait) = t.wait else { return false };
        if t.running {
            return false;
        }
        let exclusive_free = || self.exclusive(t.instance).is_none();
        match wait {
            WaitFor::Nothing => true,
            WaitFor::NotExclusive => exclusive_free(),
            WaitFor::Set { set, not_exclusive } => {
                (!not_exclusive || exclusive_free()) && self.set_has_pending_event(set)
            }
            WaitFor::Waitable(w) => self.has_pending_event(w),
            WaitFor::Resolved(s) => self.subtask_state(s).is_ok_and(|s| s.status.resolved()),
            WaitFor::Enter => !self.has_backpressure(t.task).unwrap_or(true),
        }
    }

    /// Whether `thread` is suspended: neither running nor waiting.
    pub fn is_suspended(&self, thread: ThreadId) -> bool {
        self.thread(thread).is_ok_and(|t| !t.running && t.wait.is_none())
    }

    /// The first waiting thread that is ready, for which `filter` holds.
    pub fn next_ready(&self, filter: impl FnMut(ThreadId, &ThreadState) -> bool) -> Option<ThreadId> {
        self.ready_threads(filter).next()
    }

    /// Every waiting thread that is ready and for which `filter` holds, in
    /// the order they started to wait.
    pub fn ready_threads<'a>(
        &'a self,
        mut filter: impl FnMut(ThreadId, &ThreadState) -> bool + 'a,
    ) -> impl Iterator<Item = ThreadId> + 'a {
        self.waiting
            .iter()
            .copied()
            .filter(move |t| self.is_ready(*t) && self.thread(*t).is_ok_and(|s| filter(*t, s)))
    }

    /// The waiting threads, in the order they started to wait.
    pub fn waiting_threads(&self) -> &[ThreadId] {
        &self.waiting
    }

    /// A readable account of every waiting thread and what it waits for
    /// (for "deadlock detected" errors).
    pub fn describe_waits(&self) -> String {
        let mut out = String::new();
        for th in &self.waiting {
            let Ok(t) = self.thread(*th) else { continue };
            let what = match t.wait {
                Some(WaitFor::Nothing) => "nothing (ready)".to_string(),
                Some(WaitFor::NotExclusive) => "the instance's exclusive thread to finish".to_string(),
                Some(WaitFor::Set { set, .. }) => {
                    let index = self.handle_index_of(t.instance, set);
                    format!("an event in waitable set {index}")
                }
                Some(WaitFor::Waitable(w)) => {
                    let kind = self.kind_of(w).map_or("waitable", |k| k.describe());
                    let index = self
                        .entries
                        .get(w.0)
                        .and_then(|e| e.state.waitable_ref())
                        .map_or(0, |w| w.index);
                    format!("an event of {kind} {index}")
                }
                Some(WaitFor::Resolved(s)) => {
                    let index = self
                        .entries
                        .get(s.0)
                        .and_then(|e| e.state.waitable_ref())
                        .map_or(0, |w| w.index);
                    if index == 0 {
                        "a synchronous call to return".to_string()
                    } else {
                        format!("subtask {index} to return")
                    }
                }
                Some(WaitFor::Enter) => "backpressure to end, to start".to_string(),
                None => "an explicit resume".to_string(),
            };
            let _ = writeln!(
                out,
                "  thread {} of component instance {} (task {}) waits for {what}",
                t.index, t.instance.0, t.task.0
            );
        }
        out
    }

    fn handle_index_of(&self, inst: InstanceId, id: EntryId) -> u32 {
        self.instance(inst)
            .ok()
            .and_then(|i| i.handles.iter().find(|(_, h)| **h == id))
            .map_or(0, |(index, _)| index)
    }

    // Subtasks.

    /// A new subtask in state `Starting`, not in any table (held by the
    /// caller: one reference).
    pub fn new_subtask(&mut self) -> EntryId {
        self.new_entry(State::Subtask(SubtaskState {
            status: SubtaskStatus::Starting,
            resolve_delivered: false,
            cancellation_requested: false,
            callee: None,
            waitable: WaitableState::default(),
        }))
    }

    /// Links subtask `s` to its callee's task (one reference, released when
    /// the subtask is freed).
    pub fn set_subtask_callee(&mut self, s: EntryId, task: EntryId) -> Result<(), TaskError> {
        self.acquire(task)?;
        self.subtask_state_mut(s)?.callee = Some(task);
        Ok(())
    }

    /// The state of subtask `s`.
    pub fn subtask_state(&self, s: EntryId) -> Result<&SubtaskState, TaskError> {
        match &self.entry(s)?.state {
            State::Subtask(sub) => Ok(sub),
            _ => Err(TaskError::Stale),
        }
    }

    fn subtask_state_mut(&mut self, s: EntryId) -> Result<&mut SubtaskState, TaskError> {
        match &mut self.entry_mut(s)?.state {
            State::Subtask(sub) => Ok(sub),
            _ => Err(TaskError::Stale),
        }
    }

    /// Resolves a subtask whose callee is the host (or finished without a
    /// task): `status` is final.
    pub fn resolve_subtask(&mut self, s: EntryId, status: SubtaskStatus) -> Result<(), TaskError> {
        let sub = self.subtask_state_mut(s)?;
        sub.status = status;
        if sub.reports() {
            sub.waitable.pending = Some(Pending::Subtask);
        }
        Ok(())
    }

    /// Gives the subtask `s` a handle in `inst` (the caller keeps its own
    /// reference) and turns on its events: the handle index.
    pub fn subtask_handle(&mut self, inst: InstanceId, s: EntryId) -> Result<u32, TaskError> {
        self.acquire(s)?;
        self.add_new_handle(inst, s)
    }

    /// Marks the resolution of subtask `s` delivered (a synchronous caller
    /// took its result).
    pub fn deliver_resolve(&mut self, s: EntryId) -> Result<(), TaskError> {
        self.subtask_state_mut(s)?.resolve_delivered = true;
        Ok(())
    }

    /// The subtask a handle of `inst` names.
    pub fn subtask_at(&self, inst: InstanceId, index: u32) -> Result<EntryId, TaskError> {
        self.handle_of(inst, index, Kind::Subtask)
    }

    /// The checks of `subtask.cancel` on handle `index`; marks the request
    /// and returns the subtask and its callee's task.
    pub fn subtask_cancel_begin(
        &mut self,
        inst: InstanceId,
        index: u32,
        is_async: bool,
    ) -> Result<(EntryId, Option<EntryId>), TaskError> {
        let s = self.subtask_at(inst, index)?;
        let sub = self.subtask_state_mut(s)?;
        if sub.resolve_delivered {
            return Err(TaskError::Trap(
                "cannot cancel a subtask whose resolution was delivered",
            ));
        }
        if sub.cancellation_requested {
            return Err(TaskError::Trap("cannot cancel a subtask twice"));
        }
        if sub.waitable.set.is_some() && !is_async {
            return Err(TaskError::SyncWaiter);
        }
        let callee = if sub.status.resolved() { None } else { sub.callee };
        if !sub.status.resolved() {
            sub.cancellation_requested = true;
        }
        Ok((s, callee))
    }

    /// Marks a waitable as having (or no longer having) a synchronous
    /// waiter.
    pub fn set_sync_waiter(&mut self, w: EntryId, waiting: bool) -> Result<(), TaskError> {
        if let Some(ws) = self.entry_mut(w)?.state.waitable() {
            ws.has_sync_waiter = waiting;
        }
        Ok(())
    }

    /// `subtask.drop`: traps unless the subtask's resolution was delivered.
    pub fn subtask_drop(&mut self, inst: InstanceId, index: u32) -> Result<(), TaskError> {
        self.drop_handle(inst, index, Kind::Subtask, |s| match s {
            State::Subtask(SubtaskState {
                resolve_delivered: true,
                ..
            }) => Ok(()),
            _ => Err(TaskError::SubtaskNotResolved),
        })
    }
}
