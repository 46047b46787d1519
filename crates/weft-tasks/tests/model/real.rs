//! The driver: each step done to a real `Tasks` through its public API,
//! composed as the runtime (`weft`'s `component/concurrent`) composes it.

use crate::ops::*;
use weft_tasks::{Buffer, CancelAction, EntryId, InstanceId, Kind, TaskError, Tasks, ThreadId, WaitFor, EVENT_SUBTASK};

pub struct Real {
    pub tasks: Tasks,
    pub insts: Vec<InstanceId>,
    /// The real thread of each model thread number.
    pub threads: Vec<Option<ThreadId>>,
    /// The tasks of the host's calls.
    pub host: Vec<Option<EntryId>>,
    /// The values the host holds.
    pub held: Vec<Option<EntryId>>,
    /// The task and subtask the last call made.
    pub last_call: Option<(EntryId, Option<EntryId>)>,
}

/// A `TaskError` as a trap; `Stale` (a bug of the table or of this driver,
/// never a trap of the spec) is marked.
fn err(e: TaskError) -> String {
    match e {
        TaskError::Stale => format!("STALE: {e}"),
        e => e.to_string(),
    }
}

type R<T> = Result<T, String>;

impl Real {
    pub fn new(instances: usize) -> Real {
        let mut tasks = Tasks::new();
        let insts = (0..instances).map(|_| tasks.new_instance()).collect();
        Real {
            tasks,
            insts,
            threads: Vec::new(),
            host: Vec::new(),
            held: Vec::new(),
            last_call: None,
        }
    }

    pub fn tid(&self, th: ThreadId) -> Tid {
        self.threads
            .iter()
            .position(|t| *t == Some(th))
            .expect("driver: a thread it does not know")
    }

    fn th(&self, tid: Tid) -> ThreadId {
        self.threads[tid].expect("driver: a dead thread")
    }

    fn task_of(&self, tid: Tid) -> R<EntryId> {
        Ok(self.tasks.thread(self.th(tid)).map_err(err)?.task)
    }

    /// `Thread.wait_until` when the thread blocks: a pending cancellation
    /// first (`true`), else the thread waits and stops running.
    fn wait_until(&mut self, tid: Tid, wait: WaitFor, cancellable: bool) -> R<bool> {
        let th = self.th(tid);
        let task = self.task_of(tid)?;
        if self.tasks.deliver_pending_cancel(task, cancellable).map_err(err)? {
            return Ok(true);
        }
        self.tasks.start_waiting(th, wait, cancellable).map_err(err)?;
        self.tasks.set_running(th, false).map_err(err)?;
        Ok(false)
    }

    /// `wait_for_event` of the runtime: a synchronous wait for one waitable.
    fn wait_for_event(&mut self, tid: Tid, w: EntryId) -> R<()> {
        self.tasks.set_sync_waiter(w, true).map_err(err)?;
        let cancelled = self.wait_until(tid, WaitFor::Waitable(w), false)?;
        assert!(!cancelled);
        Ok(())
    }

    /// Resumes a thread that a cancellation request chose, as the runtime's
    /// code after the wait does.
    fn resume_cancelled(&mut self, th: ThreadId) -> R<()> {
        let state = self.tasks.thread(th).map_err(err)?.clone();
        self.tasks.stop_waiting(th).map_err(err)?;
        self.tasks.set_running(th, true).map_err(err)?;
        match state.wait {
            Some(WaitFor::Enter) => {
                self.tasks.set_waiting_to_enter(state.task, false).map_err(err)?;
                self.tasks.cancel_unstarted(state.task).map_err(err)?;
                self.tasks.exit_thread(th).map_err(err)?;
                let tid = self.tid(th);
                self.threads[tid] = None;
            }
            Some(WaitFor::Set { set, not_exclusive }) => {
                self.tasks.set_waiting(set, false).map_err(err)?;
                if not_exclusive {
                    self.tasks.set_exclusive(th).map_err(err)?;
                }
            }
            Some(WaitFor::NotExclusive) => self.tasks.set_exclusive(th).map_err(err)?,
            _ => {}
        }
        Ok(())
    }

    pub fn apply(&mut self, op: &Op) -> R<Out> {
        self.last_call = None;
        let t = &mut self.tasks;
        let inst = |i: Inst| self.insts[i];
        match *op {
            Op::SetNew { inst: i } => Ok(Out::Word(t.waitable_set_new(inst(i)).map_err(err)?)),
            Op::SetDrop { inst: i, i: idx } => {
                t.waitable_set_drop(inst(i), idx).map_err(err)?;
                Ok(Out::Unit)
            }
            Op::Join { inst: i, w, s } => {
                t.waitable_join(inst(i), w, s).map_err(err)?;
                Ok(Out::Unit)
            }
            Op::Poll { inst: i, s } => {
                let (c, x, p) = t.waitable_set_poll(inst(i), s).map_err(err)?;
                Ok(Out::Event(c, x, p))
            }
            Op::StreamNew { inst: i, ty } => {
                let (r, w) = t.stream_new(inst(i), ty, numeric(ty)).map_err(err)?;
                Ok(Out::Pair(r, w))
            }
            Op::FutureNew { inst: i, ty } => {
                let (r, w) = t.future_new(inst(i), ty, numeric(ty)).map_err(err)?;
                Ok(Out::Pair(r, w))
            }
            Op::Copy {
                inst: i,
                i: idx,
                kind,
                ty,
                sync,
                cx,
                ptr,
                len,
            } => {
                let buffer = Buffer {
                    cx,
                    ptr,
                    len,
                    progress: 0,
                    elem_size: elem_size(ty),
                };
                let started = t
                    .copy(inst(i), idx, kind.real(), ty, sync.is_none(), buffer)
                    .map_err(err)?;
                let transfer = started.transfer.map(|x| (x.src.0, x.src.1, x.dst.0, x.dst.1, x.n));
                if !t.has_pending_event(started.end) {
                    if let Some(th) = sync {
                        self.wait_for_event(th, started.end)?;
                    }
                    return Ok(Out::Copied { transfer, result: None });
                }
                let ev = t.take_event(started.end).map_err(err)?;
                Ok(Out::Copied {
                    transfer,
                    result: Some(ev.payload),
                })
            }
            Op::CancelCopy {
                inst: i,
                i: idx,
                kind,
                ty,
                sync,
            } => {
                let end = t
                    .cancel_copy(inst(i), idx, kind.real(), ty, sync.is_none())
                    .map_err(err)?;
                if !t.has_pending_event(end) {
                    if let Some(th) = sync {
                        self.wait_for_event(th, end)?;
                    }
                    return Ok(Out::Copied {
                        transfer: None,
                        result: None,
                    });
                }
                let ev = t.take_event(end).map_err(err)?;
                Ok(Out::Copied {
                    transfer: None,
                    result: Some(ev.payload),
                })
            }
            Op::DropEnd {
                inst: i,
                i: idx,
                kind,
                ty,
            } => {
                t.drop_end(inst(i), idx, kind.real(), ty).map_err(err)?;
                Ok(Out::Unit)
            }
            Op::ErrNew { inst: i, msg } => Ok(Out::Word(
                t.error_context_new(inst(i), format!("message {msg}")).map_err(err)?,
            )),
            Op::ErrMsg { inst: i, i: idx } => Ok(Out::Str(
                t.error_context_message(inst(i), idx).map_err(err)?.to_string(),
            )),
            Op::ErrDrop { inst: i, i: idx } => {
                t.error_context_drop(inst(i), idx).map_err(err)?;
                Ok(Out::Unit)
            }
            Op::LiftEnd {
                inst: i,
                i: idx,
                kind,
                ty,
            } => {
                let id = t.lift_end(inst(i), idx, kind.real(), ty).map_err(err)?;
                self.held.push(Some(id));
                Ok(Out::Unit)
            }
            Op::LiftErr { inst: i, i: idx } => {
                let id = t.lift_error_context(inst(i), idx).map_err(err)?;
                self.held.push(Some(id));
                Ok(Out::Unit)
            }
            Op::Lower { slot, inst: i, ty } => {
                let id = self.held[slot].take().expect("driver: lowering nothing");
                Ok(Out::Word(self.tasks.lower_handle(self.insts[i], id, ty).map_err(err)?))
            }
            Op::ReleaseErr { slot } => {
                let id = self.held[slot].take().expect("driver: releasing nothing");
                t.release(id).map_err(err)?;
                Ok(Out::Unit)
            }
            Op::Transfer { from, i: idx, to } => Ok(Out::Word(t.transfer(inst(from), idx, inst(to)).map_err(err)?)),
            Op::Backpressure { inst: i, inc } => {
                t.backpressure(inst(i), inc).map_err(err)?;
                Ok(Out::Unit)
            }
            Op::SubtaskDrop { inst: i, i: idx } => {
                t.subtask_drop(inst(i), idx).map_err(err)?;
                Ok(Out::Unit)
            }
            Op::SubtaskCancel { inst: i, i: idx, sync } => {
                let (s, callee) = t.subtask_cancel_begin(inst(i), idx, sync.is_none()).map_err(err)?;
                let mut resumed = None;
                if let Some(task) = callee {
                    match self.tasks.request_cancellation(task).map_err(err)? {
                        CancelAction::NotStarted(th) | CancelAction::Deliver(th) => {
                            resumed = Some(self.tid(th));
                            self.resume_cancelled(th)?;
                        }
                        CancelAction::Pending | CancelAction::Resolved => {}
                    }
                }
                if !self.tasks.subtask_state(s).map_err(err)?.status.resolved() {
                    if let Some(th) = sync {
                        self.wait_for_event(th, s)?;
                    }
                    return Ok(Out::Cancel { resumed, result: None });
                }
                let t = &mut self.tasks;
                let ev = t.take_event(s).map_err(err)?;
                let status = t.subtask_state(s).map_err(err)?.status;
                if ev.code != EVENT_SUBTASK {
                    t.deliver_resolve(s).map_err(err)?;
                }
                Ok(Out::Cancel {
                    resumed,
                    result: Some(status as u32),
                })
            }
            Op::Call {
                callee,
                is_async,
                callback,
                caller,
                at_once,
            } => self.call(callee, is_async, callback, caller, at_once),
            Op::Tick => self.tick(),
            Op::Yield { th, cancellable } => {
                if self.wait_until(th, WaitFor::Nothing, cancellable)? {
                    return Ok(Out::Word(1));
                }
                Ok(Out::Blocked)
            }
            Op::Suspend { th, cancellable } => {
                let task = self.task_of(th)?;
                let t = &mut self.tasks;
                if t.deliver_pending_cancel(task, cancellable).map_err(err)? {
                    return Ok(Out::Word(1));
                }
                let rth = self.th(th);
                let t = &mut self.tasks;
                t.start_suspended(rth, cancellable).map_err(err)?;
                t.set_running(rth, false).map_err(err)?;
                Ok(Out::Blocked)
            }
            Op::Switch {
                th,
                index,
                yielding,
                promote,
                cancellable,
            } => {
                let rth = self.th(th);
                let state = self.tasks.thread(rth).map_err(err)?.clone();
                let t = &mut self.tasks;
                let other = t.thread_at(state.instance, index).map_err(err)?;
                if !promote && !t.is_suspended(other) {
                    return Err("the thread to resume is not suspended".into());
                }
                if t.deliver_pending_cancel(state.task, cancellable).map_err(err)? {
                    return Ok(Out::Word(1));
                }
                let go = !promote || t.is_ready(other);
                if yielding {
                    t.start_waiting(rth, WaitFor::Nothing, cancellable).map_err(err)?;
                } else {
                    t.start_suspended(rth, cancellable).map_err(err)?;
                }
                t.set_running(rth, false).map_err(err)?;
                if go {
                    return self.wake(other);
                }
                Ok(Out::Blocked)
            }
            Op::ResumeLater { inst: i, index } => {
                let other = t.thread_at(inst(i), index).map_err(err)?;
                if !t.is_suspended(other) {
                    return Err("`thread.resume-later` of a thread that is not suspended".into());
                }
                t.start_waiting(other, WaitFor::Nothing, false).map_err(err)?;
                Ok(Out::Unit)
            }
            Op::WaitSet { th, s, cancellable } => {
                let rth = self.th(th);
                let state = self.tasks.thread(rth).map_err(err)?.clone();
                let t = &mut self.tasks;
                let set = t.waitable_set(state.instance, s).map_err(err)?;
                if t.deliver_pending_cancel(state.task, cancellable).map_err(err)? {
                    return Ok(Out::Event(weft_tasks::EVENT_TASK_CANCELLED, 0, 0));
                }
                if t.set_has_pending_event(set) {
                    let e = t.take_set_event(set).map_err(err)?;
                    return Ok(Out::Event(e.code, e.index, e.payload));
                }
                t.set_waiting(set, true).map_err(err)?;
                t.start_waiting(
                    rth,
                    WaitFor::Set {
                        set,
                        not_exclusive: false,
                    },
                    cancellable,
                )
                .map_err(err)?;
                t.set_running(rth, false).map_err(err)?;
                Ok(Out::Blocked)
            }
            Op::CallbackYield { th } => {
                let rth = self.th(th);
                let task = self.task_of(th)?;
                let t = &mut self.tasks;
                t.release_exclusive(rth).map_err(err)?;
                if t.deliver_pending_cancel(task, true).map_err(err)? {
                    t.set_exclusive(rth).map_err(err)?;
                    return Ok(Out::Event(weft_tasks::EVENT_TASK_CANCELLED, 0, 0));
                }
                t.start_waiting(rth, WaitFor::NotExclusive, true).map_err(err)?;
                t.set_running(rth, false).map_err(err)?;
                Ok(Out::Blocked)
            }
            Op::CallbackWait { th, s } => {
                let rth = self.th(th);
                let state = self.tasks.thread(rth).map_err(err)?.clone();
                let t = &mut self.tasks;
                let set = t.waitable_set(state.instance, s).map_err(err)?;
                t.release_exclusive(rth).map_err(err)?;
                if t.deliver_pending_cancel(state.task, true).map_err(err)? {
                    t.set_exclusive(rth).map_err(err)?;
                    return Ok(Out::Event(weft_tasks::EVENT_TASK_CANCELLED, 0, 0));
                }
                t.set_waiting(set, true).map_err(err)?;
                t.start_waiting(
                    rth,
                    WaitFor::Set {
                        set,
                        not_exclusive: true,
                    },
                    true,
                )
                .map_err(err)?;
                t.set_running(rth, false).map_err(err)?;
                Ok(Out::Blocked)
            }
            Op::TaskReturn { th } => {
                let task = self.task_of(th)?;
                self.tasks.task_return(task).map_err(err)?;
                Ok(Out::Unit)
            }
            Op::TaskCancel { th } => {
                let task = self.task_of(th)?;
                self.tasks.task_cancel(task).map_err(err)?;
                Ok(Out::Unit)
            }
            Op::Exit { th } => {
                let rth = self.th(th);
                // The thread is gone whether or not this traps.
                self.threads[th] = None;
                self.tasks.exit_thread(rth).map_err(err)?;
                Ok(Out::Unit)
            }
            Op::Spawn { th } => {
                let task = self.task_of(th)?;
                let new = self.tasks.new_thread(task, false).map_err(err)?;
                self.threads.push(Some(new));
                Ok(Out::Word(self.tasks.thread(new).map_err(err)?.index))
            }
            Op::ThreadIndex { th } => Ok(Out::Word(self.tasks.thread(self.th(th)).map_err(err)?.index)),
            Op::ContextGet { th, slot } => Ok(Out::Word(self.tasks.context_get(self.th(th), slot).map_err(err)?)),
            Op::ContextSet { th, slot, value } => {
                let rth = self.th(th);
                self.tasks.context_set(rth, slot, value).map_err(err)?;
                Ok(Out::Unit)
            }
            Op::HostCancel { slot } => {
                let task = self.host[slot].expect("driver: cancelling a released call");
                let mut resumed = None;
                match self.tasks.request_cancellation(task).map_err(err)? {
                    CancelAction::NotStarted(th) | CancelAction::Deliver(th) => {
                        resumed = Some(self.tid(th));
                        self.resume_cancelled(th)?;
                    }
                    CancelAction::Pending | CancelAction::Resolved => {}
                }
                Ok(Out::Cancel { resumed, result: None })
            }
            Op::HostRelease { slot } => {
                let task = self.host[slot].take().expect("driver: releasing a released call");
                self.tasks.release(task).map_err(err)?;
                Ok(Out::Unit)
            }
            Op::Abort { th } => self.abort(th),
        }
    }

    /// A call: `canon_lift` (the runtime's `start_task` and the start of
    /// `implicit_thread`), then the caller's side (`call_lowered`, or the
    /// host keeping the task).
    fn call(&mut self, callee: Inst, is_async: bool, callback: bool, caller: Caller, at_once: bool) -> R<Out> {
        let t = &mut self.tasks;
        let sub = (caller != Caller::Host).then(|| t.new_subtask());
        let task = t
            .new_task(self.insts[callee], true, is_async, callback, sub)
            .map_err(err)?;
        let th = t.new_thread(task, true).map_err(err)?;
        self.threads.push(Some(th));
        self.last_call = Some((task, sub));
        let t = &mut self.tasks;
        if t.must_wait_to_enter(task).map_err(err)? {
            t.set_waiting_to_enter(task, true).map_err(err)?;
            if t.deliver_pending_cancel(task, true).map_err(err)? {
                return Err("STALE: a new task was cancelled".into());
            }
            t.start_waiting(th, WaitFor::Enter, true).map_err(err)?;
        } else {
            t.take_exclusive(task).map_err(err)?;
            t.task_start(task).map_err(err)?;
            t.set_running(th, true).map_err(err)?;
            if at_once {
                t.task_return(task).map_err(err)?;
                t.exit_thread(th).map_err(err)?;
                let tid = self.tid(th);
                self.threads[tid] = None;
            }
        }
        let Some(sub) = sub else {
            self.host.push(Some(task));
            return Ok(Out::Unit);
        };
        let t = &mut self.tasks;
        t.set_subtask_callee(sub, task).map_err(err)?;
        t.release(task).map_err(err)?;
        let status = t.subtask_state(sub).map_err(err)?.status;
        match caller {
            Caller::Async(i) => {
                if status.resolved() {
                    t.deliver_resolve(sub).map_err(err)?;
                    t.release(sub).map_err(err)?;
                    return Ok(Out::Word(weft_tasks::SubtaskStatus::Returned as u32));
                }
                let index = t.subtask_handle(self.insts[i], sub).map_err(err)?;
                t.release(sub).map_err(err)?;
                Ok(Out::Word(status as u32 | index << 4))
            }
            Caller::Sync(cth) => {
                if status.resolved() {
                    t.deliver_resolve(sub).map_err(err)?;
                    t.release(sub).map_err(err)?;
                    return Ok(Out::Unit);
                }
                let cancelled = self.wait_until(cth, WaitFor::Resolved(sub), false)?;
                assert!(!cancelled);
                Ok(Out::Blocked)
            }
            Caller::Host => unreachable!(),
        }
    }

    /// The runtime resumes the next ready thread and finishes its wait.
    fn tick(&mut self) -> R<Out> {
        let Some(th) = self.tasks.next_ready(|_, _| true) else {
            return Ok(Out::Unit);
        };
        self.wake(th)
    }

    /// Resumes `th` (waiting and ready, or suspended) and finishes its wait
    /// as the runtime's code after the wait does.
    fn wake(&mut self, th: ThreadId) -> R<Out> {
        let t = &mut self.tasks;
        let state = t.thread(th).map_err(err)?.clone();
        t.stop_waiting(th).map_err(err)?;
        t.set_running(th, true).map_err(err)?;
        let event = match state.wait {
            Some(WaitFor::Nothing) | None => None,
            Some(WaitFor::NotExclusive) => {
                t.set_exclusive(th).map_err(err)?;
                Some((weft_tasks::EVENT_NONE, 0, 0))
            }
            Some(WaitFor::Set { set, not_exclusive }) => {
                t.set_waiting(set, false).map_err(err)?;
                let e = t.take_set_event(set).map_err(err)?;
                if not_exclusive {
                    t.set_exclusive(th).map_err(err)?;
                }
                Some((e.code, e.index, e.payload))
            }
            Some(WaitFor::Waitable(w)) => {
                t.set_sync_waiter(w, false).map_err(err)?;
                let e = t.take_event(w).map_err(err)?;
                Some((e.code, e.index, e.payload))
            }
            Some(WaitFor::Resolved(s)) => {
                t.deliver_resolve(s).map_err(err)?;
                t.release(s).map_err(err)?;
                None
            }
            Some(WaitFor::Enter) => {
                t.set_waiting_to_enter(state.task, false).map_err(err)?;
                t.take_exclusive(state.task).map_err(err)?;
                t.task_start(state.task).map_err(err)?;
                None
            }
        };
        Ok(Out::Woke {
            th: self.tid(th),
            event,
        })
    }

    /// Tears a thread down (see `Model::abort`).
    fn abort(&mut self, tid: Tid) -> R<Out> {
        let th = self.th(tid);
        let t = &mut self.tasks;
        let state = t.thread(th).map_err(err)?.clone();
        t.stop_waiting(th).map_err(err)?;
        t.set_running(th, true).map_err(err)?;
        match state.wait {
            Some(WaitFor::Set { set, .. }) => t.set_waiting(set, false).map_err(err)?,
            Some(WaitFor::Waitable(w)) => t.set_sync_waiter(w, false).map_err(err)?,
            Some(WaitFor::Enter) => {
                t.set_waiting_to_enter(state.task, false).map_err(err)?;
                t.cancel_unstarted(state.task).map_err(err)?;
            }
            Some(WaitFor::Resolved(s)) => t.release(s).map_err(err)?,
            _ => {}
        }
        if !t.task(state.task).map_err(err)?.resolved() {
            t.task_return(state.task).map_err(err)?;
        }
        self.threads[tid] = None;
        self.tasks.exit_thread(th).map_err(err)?;
        Ok(Out::Unit)
    }

    /// The kind of entry `id` as the model names it.
    pub fn kind_name(&self, id: EntryId) -> Option<&'static str> {
        Some(match self.tasks.kind_of(id)? {
            Kind::Task => "task",
            Kind::Subtask => "subtask",
            Kind::WaitableSet => "waitable set",
            Kind::Stream | Kind::Future => "shared",
            Kind::ReadableStream | Kind::WritableStream | Kind::ReadableFuture | Kind::WritableFuture => "end",
            Kind::ErrorContext => "error context",
            Kind::Resource => "resource",
        })
    }
}
