//! Backpressure, subtasks (`canon_lower`'s side of a call), tasks and
//! threads (`Task`, `Thread`, `canon_lift`, the `thread.*` built-ins, the
//! callback loop's waits) and cancellation.

use super::*;

impl Model {
    // Backpressure.

    pub fn backpressure(&mut self, inst: Inst, inc: bool) -> R<Out> {
        let i = &mut self.insts[inst];
        if inc {
            i.backpressure += 1;
            trap_if(i.backpressure == 1 << 16, "backpressure overflow")?;
        } else {
            trap_if(i.backpressure == 0, "backpressure underflow")?;
            i.backpressure -= 1;
        }
        Ok(Out::Unit)
    }

    // Subtasks.

    pub fn subtask_drop(&mut self, inst: Inst, i: u32) -> R<Out> {
        let s = self.insts[inst].handles.get(i)?;
        let Obj::Subtask { delivered, .. } = self.obj(s) else {
            return trap("not a subtask");
        };
        trap_if(!*delivered, "subtask not resolved")?;
        self.insts[inst].handles.remove(i)?;
        self.drop_waitable(s);
        Ok(Out::Unit)
    }

    /// `on_start` of a subtask.
    fn subtask_on_start(&mut self, s: Id) {
        let (state, _, _, index, w) = self.subtask_mut(s);
        if index.is_some() {
            w.pending = Some(Pending::Subtask);
        }
        assert_eq!(*state, STARTING);
        *state = STARTED;
    }

    /// `on_resolve` of a subtask (`None`: cancelled).
    fn subtask_on_resolve(&mut self, s: Id, returned: bool) {
        let (state, _, cancel_requested, index, w) = self.subtask_mut(s);
        if index.is_some() {
            w.pending = Some(Pending::Subtask);
        }
        *state = if returned {
            assert_eq!(*state, STARTED);
            RETURNED
        } else {
            assert!(*cancel_requested);
            if *state == STARTING {
                CANCELLED_BEFORE_STARTED
            } else {
                assert_eq!(*state, STARTED);
                CANCELLED_BEFORE_RETURNED
            }
        };
    }

    pub fn subtask_cancel(&mut self, inst: Inst, i: u32, sync: Option<Tid>, choice: &Choice) -> R<Out> {
        let s = self.insts[inst].handles.get(i)?;
        let Obj::Subtask {
            state,
            delivered,
            cancel_requested,
            callee,
            w,
            ..
        } = self.obj(s).clone()
        else {
            return trap("not a subtask");
        };
        trap_if(delivered, "subtask resolution delivered")?;
        trap_if(cancel_requested, "subtask cancelled twice")?;
        trap_if(
            w.wset.is_some() && sync.is_some(),
            "synchronous cancel of a subtask in a set",
        )?;
        let mut resumed = None;
        if state >= RETURNED {
            assert!(self.has_pending_event(s));
        } else {
            *self.subtask_mut(s).2 = true;
            resumed = self.request_cancellation(callee.expect("model: subtask without a callee"), choice);
            if *self.subtask_mut(s).0 < RETURNED {
                if let Some(th) = sync {
                    self.wait_for_pending_event(th, s);
                }
                return Ok(Out::Cancel { resumed, result: None });
            }
        }
        let (code, index, payload) = self.get_pending_event(s);
        assert!(code == EV_SUBTASK && index == i);
        Ok(Out::Cancel {
            resumed,
            result: Some(payload),
        })
    }

    // Tasks and threads.

    fn needs_exclusive(&self, task: Id) -> bool {
        let (_, is_async, callback, ..) = self.task(task);
        !is_async || callback
    }

    /// `has_backpressure` of `enter_implicit_thread`.
    pub fn has_backpressure(&self, task: Id) -> bool {
        let inst = &self.insts[self.task(task).0];
        inst.backpressure > 0 || (self.needs_exclusive(task) && inst.exclusive.is_some())
    }

    /// Whether a new call of `task` waits before it starts.
    pub fn must_wait_to_enter(&self, task: Id) -> bool {
        self.has_backpressure(task) || self.insts[self.task(task).0].num_waiting_to_enter > 0
    }

    /// `Thread.ready`.
    pub fn ready(&self, th: Tid) -> bool {
        let t = self.thread(th);
        let Some(wait) = t.wait else { return false };
        if t.running {
            return false;
        }
        let no_exclusive = self.insts[t.inst].exclusive.is_none();
        match wait {
            Wait::Nothing => true,
            Wait::NotExclusive => no_exclusive,
            Wait::Set { set, not_exclusive } => (!not_exclusive || no_exclusive) && self.set_has_pending_event(set),
            Wait::Waitable(w) => self.has_pending_event(w),
            Wait::Resolved(s) => matches!(self.obj(s), Obj::Subtask { state, .. } if *state >= RETURNED),
            Wait::Enter => !self.has_backpressure(t.task),
        }
    }

    /// `Thread.suspended`.
    pub fn suspended(&self, th: Tid) -> bool {
        let t = self.thread(th);
        !t.running && t.wait.is_none()
    }

    /// `Task.deliver_pending_cancel`.
    fn deliver_pending_cancel(&mut self, task: Id, cancellable: bool) -> bool {
        let phase = self.phase_mut(task);
        if cancellable && *phase == Phase::PendingCancel {
            *phase = Phase::CancelDelivered;
            return true;
        }
        false
    }

    /// `Thread.wait_until` when the thread blocks (`start_waiting_internal`
    /// and `block_internal`). The runtime always blocks, which the spec
    /// allows even when the condition holds already.
    pub(super) fn wait_until(&mut self, th: Tid, wait: Wait, cancellable: bool) {
        let t = self.thread_mut(th);
        assert!(t.running && t.wait.is_none());
        t.wait = Some(wait);
        t.cancellable = cancellable;
        t.running = false;
    }

    /// `Task.register_thread`.
    fn register_thread(&mut self, task: Id, th: Tid) {
        let inst = self.task(task).0;
        let index = self.insts[inst].threads.add(th);
        self.thread_mut(th).index = Some(index);
        if let Obj::Task { threads, .. } = self.obj_mut(task) {
            threads.push(th);
        }
    }

    /// `Task.start` and `on_start`.
    fn task_start(&mut self, task: Id) {
        let phase = self.phase_mut(task);
        assert_eq!(*phase, Phase::Initial);
        *phase = Phase::Started;
        if let Some(s) = self.task(task).6 {
            self.subtask_on_start(s);
        }
    }

    /// `on_resolve` and the task's state.
    fn task_resolve(&mut self, task: Id, returned: bool) {
        *self.phase_mut(task) = Phase::Resolved;
        let (inst, .., implicit, _) = self.task(task);
        if RESOLVING_ENDS_EXCLUSIVITY && implicit.is_some() && self.insts[inst].exclusive == implicit {
            self.insts[inst].exclusive = None;
        }
        if let Some(s) = self.task(task).6 {
            self.subtask_on_resolve(s, returned);
        }
    }

    /// `canon_lift` up to where the call returns to its caller, then the
    /// caller's side (`canon_lower`, or the host keeping the task).
    pub fn call(&mut self, callee: Inst, is_async: bool, callback: bool, caller: Caller, at_once: bool) -> R<Out> {
        let subtask = match caller {
            Caller::Host => None,
            _ => Some(self.new_obj(Obj::Subtask {
                state: STARTING,
                delivered: false,
                cancel_requested: false,
                callee: None,
                index: None,
                w: Waitable::default(),
            })),
        };
        let task = self.new_obj(Obj::Task {
            inst: callee,
            is_async,
            callback,
            phase: Phase::Initial,
            threads: Vec::new(),
            implicit: None,
            subtask,
        });
        let th = self.threads.len();
        self.threads.push(Some(Thread {
            task,
            inst: callee,
            index: None,
            storage: [0, 0],
            wait: None,
            cancellable: false,
            running: true,
        }));
        if let Obj::Task { implicit, .. } = self.obj_mut(task) {
            *implicit = Some(th);
        }
        self.last_call = Some((task, subtask));
        // `enter_implicit_thread`.
        if self.must_wait_to_enter(task) {
            self.insts[callee].num_waiting_to_enter += 1;
            assert!(!self.deliver_pending_cancel(task, true));
            self.wait_until(th, Wait::Enter, true);
        } else {
            self.enter(task, th);
            if at_once {
                self.task_resolve(task, true);
                self.exit_thread(th)?;
            }
        }
        // Back in the caller.
        let Some(s) = subtask else {
            self.host.push(Some(task));
            return Ok(Out::Unit);
        };
        if let Obj::Subtask { callee, .. } = self.obj_mut(s) {
            *callee = Some(task);
        }
        let state = *self.subtask_mut(s).0;
        match caller {
            Caller::Async(inst) => {
                if state >= RETURNED {
                    *self.subtask_mut(s).1 = true;
                    return Ok(Out::Word(RETURNED));
                }
                let i = self.insts[inst].handles.add(s);
                *self.subtask_mut(s).3 = Some(i);
                Ok(Out::Word(state | i << 4))
            }
            Caller::Sync(cth) => {
                if state >= RETURNED {
                    *self.subtask_mut(s).1 = true;
                    return Ok(Out::Unit);
                }
                self.wait_until(cth, Wait::Resolved(s), false);
                Ok(Out::Blocked)
            }
            Caller::Host => unreachable!(),
        }
    }

    /// The rest of `enter_implicit_thread` once past backpressure, and
    /// `Task.start`.
    fn enter(&mut self, task: Id, th: Tid) {
        if self.needs_exclusive(task) {
            let inst = self.task(task).0;
            assert!(self.insts[inst].exclusive.is_none());
            self.insts[inst].exclusive = Some(th);
        }
        self.register_thread(task, th);
        self.task_start(task);
    }

    /// `Thread.resume` of a waiting thread (`stop_waiting_internal`) and
    /// what its wait returns; `cancelled` for a cancellation.
    fn resume(&mut self, th: Tid, cancelled: bool, choice: &Choice) -> Option<(u32, u32, u32)> {
        let t = self.thread_mut(th);
        assert!(!t.running && (t.cancellable || !cancelled));
        let wait = t.wait.take();
        t.running = true;
        let (task, inst) = (t.task, t.inst);
        let implicit = self.task(task).5 == Some(th);
        match wait {
            None | Some(Wait::Nothing) => None,
            Some(Wait::NotExclusive) => {
                // The callback loop takes the instance back.
                assert!(implicit && self.insts[inst].exclusive.is_none());
                self.insts[inst].exclusive = Some(th);
                Some((if cancelled { EV_TASK_CANCELLED } else { EV_NONE }, 0, 0))
            }
            Some(Wait::Set { set, not_exclusive }) => {
                let event = if cancelled {
                    (EV_TASK_CANCELLED, 0, 0)
                } else {
                    self.set_get_pending_event(set, choice)
                };
                if let Obj::Set { num_waiting, .. } = self.obj_mut(set) {
                    *num_waiting -= 1;
                }
                if not_exclusive {
                    assert!(implicit && self.insts[inst].exclusive.is_none());
                    self.insts[inst].exclusive = Some(th);
                }
                Some(event)
            }
            Some(Wait::Waitable(w)) => {
                assert!(!cancelled);
                self.waitable_mut(w).sync_waiter = false;
                Some(self.get_pending_event(w))
            }
            Some(Wait::Resolved(s)) => {
                assert!(!cancelled);
                // `deliver_resolve`.
                *self.subtask_mut(s).1 = true;
                None
            }
            Some(Wait::Enter) => {
                self.insts[inst].num_waiting_to_enter -= 1;
                if cancelled {
                    // `Task.cancel` (the state is `CANCEL_DELIVERED`), and
                    // the thread returns: it was never registered.
                    self.task_resolve(task, false);
                    self.threads[th] = None;
                    if let Obj::Task { implicit, .. } = self.obj_mut(task) {
                        *implicit = None;
                    }
                } else {
                    self.enter(task, th);
                }
                None
            }
        }
    }

    /// The threads `Store.tick` may resume.
    pub fn ready_threads(&self) -> Vec<Tid> {
        (0..self.threads.len())
            .filter(|t| self.threads[*t].is_some() && self.ready(*t))
            .collect()
    }

    /// The runtime resumes a ready thread (the implementation's choice).
    pub fn tick(&mut self, choice: &Choice) -> R<Out> {
        let ready = self.ready_threads();
        let Some(&first) = ready.first() else {
            return Ok(Out::Unit);
        };
        let th = choice.thread.filter(|t| ready.contains(t)).unwrap_or(first);
        let event = self.resume(th, false, choice);
        Ok(Out::Woke { th, event })
    }

    /// `Task.request_cancellation`: the thread it resumed, if any.
    fn request_cancellation(&mut self, task: Id, choice: &Choice) -> Option<Tid> {
        let (inst, _, _, phase, threads, implicit, _) = self.task(task);
        if phase == Phase::Initial {
            let th = implicit.expect("model: a task waiting to start without its thread");
            *self.phase_mut(task) = Phase::CancelDelivered;
            self.resume(th, true, choice);
            return Some(th);
        }
        assert_eq!(phase, Phase::Started, "model: a second cancellation request");
        let exclusive = self.insts[inst].exclusive;
        let mut candidates: Vec<Tid> = threads
            .iter()
            .copied()
            .filter(|t| {
                let t = self.thread(*t);
                t.cancellable && !t.running
            })
            .collect();
        if self.needs_exclusive(task) && exclusive.is_some() && exclusive != implicit {
            candidates.retain(|t| Some(*t) != implicit);
        }
        let Some(&first) = candidates.first() else {
            *self.phase_mut(task) = Phase::PendingCancel;
            return None;
        };
        let th = choice.thread.filter(|t| candidates.contains(t)).unwrap_or(first);
        *self.phase_mut(task) = Phase::CancelDelivered;
        self.resume(th, true, choice);
        Some(th)
    }

    pub fn host_cancel(&mut self, slot: usize, choice: &Choice) -> R<Out> {
        let task = self.host[slot].expect("driver: cancelling a released call");
        let resumed = self.request_cancellation(task, choice);
        Ok(Out::Cancel { resumed, result: None })
    }

    pub fn host_release(&mut self, slot: usize) -> R<Out> {
        self.host[slot] = None;
        Ok(Out::Unit)
    }

    /// `thread.yield` (the runtime always switches).
    pub fn yield_(&mut self, th: Tid, cancellable: bool) -> R<Out> {
        if self.deliver_pending_cancel(self.thread(th).task, cancellable) {
            return Ok(Out::Word(1));
        }
        self.wait_until(th, Wait::Nothing, cancellable);
        Ok(Out::Blocked)
    }

    /// `thread.suspend`.
    pub fn suspend(&mut self, th: Tid, cancellable: bool) -> R<Out> {
        if self.deliver_pending_cancel(self.thread(th).task, cancellable) {
            return Ok(Out::Word(1));
        }
        let t = self.thread_mut(th);
        t.cancellable = cancellable;
        t.running = false;
        Ok(Out::Blocked)
    }

    /// `thread.{suspend,yield}-then-{resume,promote}` (the runtime always
    /// switches or blocks).
    pub fn switch(
        &mut self,
        th: Tid,
        index: u32,
        yielding: bool,
        promote: bool,
        cancellable: bool,
        choice: &Choice,
    ) -> R<Out> {
        let (inst, task) = (self.thread(th).inst, self.thread(th).task);
        let other = self.insts[inst].threads.get(index)?;
        if !promote {
            trap_if(!self.suspended(other), "thread not suspended")?;
        }
        if self.deliver_pending_cancel(task, cancellable) {
            return Ok(Out::Word(1));
        }
        // `suspend_then_promote` falls back to `suspend`/`yield_` unless the
        // other thread is ready; then it stops waiting, as if suspended.
        let go = !promote || self.ready(other);
        if yielding {
            self.wait_until(th, Wait::Nothing, cancellable);
        } else {
            let t = self.thread_mut(th);
            t.cancellable = cancellable;
            t.running = false;
        }
        if !go {
            return Ok(Out::Blocked);
        }
        let event = self.resume(other, false, choice);
        Ok(Out::Woke { th: other, event })
    }

    /// `thread.resume-later`.
    pub fn resume_later(&mut self, inst: Inst, index: u32) -> R<Out> {
        let th = self.insts[inst].threads.get(index)?;
        trap_if(!self.suspended(th), "thread not suspended")?;
        let t = self.thread_mut(th);
        t.wait = Some(Wait::Nothing);
        t.cancellable = false;
        Ok(Out::Unit)
    }

    /// `waitable-set.wait` (an event there already is taken at once).
    pub fn wait_set(&mut self, th: Tid, si: u32, cancellable: bool, choice: &Choice) -> R<Out> {
        let (inst, task) = (self.thread(th).inst, self.thread(th).task);
        let set = self.insts[inst].handles.get(si)?;
        trap_if(!matches!(self.obj(set), Obj::Set { .. }), "not a waitable set")?;
        if self.deliver_pending_cancel(task, cancellable) {
            return Ok(Out::Event(EV_TASK_CANCELLED, 0, 0));
        }
        if self.set_has_pending_event(set) {
            let (c, i, p) = self.set_get_pending_event(set, choice);
            return Ok(Out::Event(c, i, p));
        }
        if let Obj::Set { num_waiting, .. } = self.obj_mut(set) {
            *num_waiting += 1;
        }
        self.wait_until(
            th,
            Wait::Set {
                set,
                not_exclusive: false,
            },
            cancellable,
        );
        Ok(Out::Blocked)
    }

    /// A callback returned `YIELD`.
    pub fn callback_yield(&mut self, th: Tid) -> R<Out> {
        let (inst, task) = (self.thread(th).inst, self.thread(th).task);
        assert_eq!(self.insts[inst].exclusive, Some(th));
        self.insts[inst].exclusive = None;
        if self.deliver_pending_cancel(task, true) {
            self.insts[inst].exclusive = Some(th);
            return Ok(Out::Event(EV_TASK_CANCELLED, 0, 0));
        }
        self.wait_until(th, Wait::NotExclusive, true);
        Ok(Out::Blocked)
    }

    /// A callback returned `WAIT` on set `si`.
    pub fn callback_wait(&mut self, th: Tid, si: u32) -> R<Out> {
        let (inst, task) = (self.thread(th).inst, self.thread(th).task);
        assert_eq!(self.insts[inst].exclusive, Some(th));
        let set = self.insts[inst].handles.get(si)?;
        trap_if(!matches!(self.obj(set), Obj::Set { .. }), "not a waitable set")?;
        self.insts[inst].exclusive = None;
        if self.deliver_pending_cancel(task, true) {
            self.insts[inst].exclusive = Some(th);
            return Ok(Out::Event(EV_TASK_CANCELLED, 0, 0));
        }
        if let Obj::Set { num_waiting, .. } = self.obj_mut(set) {
            *num_waiting += 1;
        }
        self.wait_until(
            th,
            Wait::Set {
                set,
                not_exclusive: true,
            },
            true,
        );
        Ok(Out::Blocked)
    }

    /// `Task.return_`.
    pub fn task_return(&mut self, th: Tid) -> R<Out> {
        let task = self.thread(th).task;
        trap_if(self.task(task).3 == Phase::Resolved, "task resolved already")?;
        self.task_resolve(task, true);
        Ok(Out::Unit)
    }

    /// `Task.cancel`.
    pub fn task_cancel(&mut self, th: Tid) -> R<Out> {
        let task = self.thread(th).task;
        trap_if(self.task(task).3 != Phase::CancelDelivered, "no cancellation delivered")?;
        self.task_resolve(task, false);
        Ok(Out::Unit)
    }

    /// A thread returns: `Task.unregister_thread` (and, for an implicit
    /// thread, `exit_implicit_thread`).
    pub fn exit_thread(&mut self, th: Tid) -> R<Out> {
        let t = self.threads[th].take().expect("model: exiting a dead thread");
        let (inst, _, _, phase, ..) = self.task(t.task);
        if self.insts[inst].exclusive == Some(th) {
            self.insts[inst].exclusive = None;
        }
        if let Some(index) = t.index {
            self.insts[inst].threads.remove(index)?;
        }
        let last = match self.obj_mut(t.task) {
            Obj::Task { threads, implicit, .. } => {
                threads.retain(|x| *x != th);
                if *implicit == Some(th) {
                    *implicit = None;
                }
                threads.is_empty()
            }
            _ => unreachable!(),
        };
        // `trap_if(self.state != RESOLVED)` once the last thread is gone
        // (the thread is gone all the same: the instance is lost).
        trap_if(
            last && phase != Phase::Resolved,
            "last thread exited before the task resolved",
        )?;
        Ok(Out::Unit)
    }

    /// `thread.new-indirect` by thread `th`: a suspended thread of its task.
    pub fn spawn(&mut self, th: Tid) -> R<Out> {
        let (task, inst) = (self.thread(th).task, self.thread(th).inst);
        let new = self.threads.len();
        self.threads.push(Some(Thread {
            task,
            inst,
            index: None,
            storage: [0, 0],
            wait: None,
            cancellable: false,
            running: false,
        }));
        self.register_thread(task, new);
        Ok(Out::Word(self.thread(new).index.unwrap()))
    }

    pub fn thread_index(&self, th: Tid) -> R<Out> {
        Ok(Out::Word(
            self.thread(th).index.expect("model: running thread not registered"),
        ))
    }

    pub fn context_get(&self, th: Tid, slot: u32) -> R<Out> {
        match self.thread(th).storage.get(slot as usize) {
            Some(v) => Ok(Out::Word(*v)),
            None => trap("context slot out of range"),
        }
    }

    pub fn context_set(&mut self, th: Tid, slot: u32, value: u32) -> R<Out> {
        match self.thread_mut(th).storage.get_mut(slot as usize) {
            Some(v) => {
                *v = value;
                Ok(Out::Unit)
            }
            None => trap("context slot out of range"),
        }
    }

    /// Tears a thread down at the end of a sequence (not a spec operation:
    /// what a store's teardown does): its wait is abandoned, its task
    /// returns (or, if it never started, is cancelled) and it exits.
    pub fn abort(&mut self, th: Tid) -> R<Out> {
        let t = self.thread_mut(th);
        let wait = t.wait.take();
        t.running = true;
        let (task, inst) = (t.task, t.inst);
        match wait {
            Some(Wait::Set { set, .. }) => {
                if let Obj::Set { num_waiting, .. } = self.obj_mut(set) {
                    *num_waiting -= 1;
                }
            }
            Some(Wait::Waitable(w)) => self.waitable_mut(w).sync_waiter = false,
            Some(Wait::Enter) => {
                self.insts[inst].num_waiting_to_enter -= 1;
                *self.phase_mut(task) = Phase::Resolved;
                if let Some(s) = self.task(task).6 {
                    let (state, _, _, index, w) = self.subtask_mut(s);
                    if index.is_some() {
                        w.pending = Some(Pending::Subtask);
                    }
                    *state = CANCELLED_BEFORE_STARTED;
                }
            }
            _ => {}
        }
        if self.task(task).3 != Phase::Resolved {
            self.task_resolve(task, true);
        }
        self.exit_thread(th)
    }
}
