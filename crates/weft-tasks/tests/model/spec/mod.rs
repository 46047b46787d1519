//! An executable model of CanonicalABI.md's rules for what `weft-tasks`
//! keeps: handle and thread tables (`Table`), waitable sets and their
//! events (`Waitable`, `WaitableSet`), subtasks (`Subtask`, the
//! `on_start`/`on_resolve` of `canon_lower`), streams and futures
//! (`SharedStreamImpl`, `SharedFutureImpl`, `CopyEnd`, `stream_copy`,
//! `future_copy`, `cancel_copy`, `drop`), error contexts, tasks and threads
//! (`Task`, `Thread`: backpressure, exclusivity, cancellation, readiness).
//!
//! It is written from the spec's Python, not from `weft-tasks`: objects are
//! plain structs in an arena, an object lives while something reaches it
//! (the spec's garbage collection; `weft-tasks` counts references), and
//! where the spec lets the embedder choose (which event a set delivers,
//! which thread a cancellation resumes, which ready thread runs) the model
//! accepts the implementation's choice if the spec allows it.

use crate::ops::*;

mod copy;
mod task;

pub type Id = usize;

/// `CopyResult`.
pub const COMPLETED: u32 = 0;
pub const DROPPED: u32 = 1;
pub const CANCELLED: u32 = 2;

/// `EventCode`.
pub const EV_NONE: u32 = 0;
pub const EV_SUBTASK: u32 = 1;
pub const EV_STREAM_READ: u32 = 2;
pub const EV_STREAM_WRITE: u32 = 3;
pub const EV_FUTURE_READ: u32 = 4;
pub const EV_FUTURE_WRITE: u32 = 5;
pub const EV_TASK_CANCELLED: u32 = 6;

/// `Subtask.State`.
pub const STARTING: u32 = 0;
pub const STARTED: u32 = 1;
pub const RETURNED: u32 = 2;
pub const CANCELLED_BEFORE_STARTED: u32 = 3;
pub const CANCELLED_BEFORE_RETURNED: u32 = 4;

// Where `weft-tasks` follows the component model's reference tests
// (`test/async/*.wast`) rather than CanonicalABI.md's Python, on purpose,
// the model does too, by these switches (turn one off to see the spec's
// rule fail).

/// `sync-streams.wast`: a task that resolves gives its instance's
/// exclusivity up at once, where `Task.return_` keeps it until the implicit
/// thread exits or the callback loop waits.
pub const RESOLVING_ENDS_EXCLUSIVITY: bool = true;

/// `cancel-stream.wast`: cancelling a stream copy whose `COMPLETED` event
/// is pending (it made progress, or a zero-length copy completed) reports
/// `CANCELLED` with the count, where `cancel_copy` delivers the pending
/// `COMPLETED` event as it is.
pub const CANCEL_AFTER_PROGRESS_IS_CANCELLED: bool = true;

pub type R<T> = Result<T, String>;

/// `Buffer.MAX_LENGTH`.
pub const MAX_LENGTH: u32 = (1 << 28) - 1;

fn trap<T>(why: &str) -> R<T> {
    Err(why.to_string())
}

fn trap_if(cond: bool, why: &str) -> R<()> {
    if cond {
        trap(why)
    } else {
        Ok(())
    }
}

/// `Table`: index 0 reserved, the last freed index reused first.
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub array: Vec<Option<usize>>,
    free: Vec<u32>,
}

impl Table {
    fn new() -> Table {
        Table {
            array: vec![None],
            free: Vec::new(),
        }
    }

    pub fn get(&self, i: u32) -> R<usize> {
        match self.array.get(i as usize) {
            Some(Some(e)) => Ok(*e),
            _ => trap("no such index"),
        }
    }

    fn add(&mut self, e: usize) -> u32 {
        if let Some(i) = self.free.pop() {
            assert!(self.array[i as usize].is_none());
            self.array[i as usize] = Some(e);
            i
        } else {
            self.array.push(Some(e));
            (self.array.len() - 1) as u32
        }
    }

    fn remove(&mut self, i: u32) -> R<usize> {
        let e = self.get(i)?;
        self.array[i as usize] = None;
        self.free.push(i);
        Ok(e)
    }

    pub fn len(&self) -> usize {
        self.array.iter().filter(|e| e.is_some()).count()
    }

    /// The live (index, element) pairs.
    pub fn entries(&self) -> Vec<(u32, usize)> {
        self.array
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.map(|e| (i as u32, e)))
            .collect()
    }
}

/// `CopyState`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyState {
    Idle,
    Copying,
    Cancelling,
    Done,
}

/// A guest buffer (`BufferGuestImpl`).
#[derive(Clone, Copy, Debug)]
pub struct Buf {
    pub cx: u32,
    pub ptr: u32,
    pub len: u32,
    pub progress: u32,
    pub elem_size: u32,
}

impl Buf {
    fn remain(&self) -> u32 {
        self.len - self.progress
    }

    /// Where the next element is read or written.
    fn at(&self) -> u32 {
        self.ptr.wrapping_add(self.progress.wrapping_mul(self.elem_size))
    }
}

/// A `pending_event` closure, as data: what it computes at delivery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pending {
    /// `subtask_event`.
    Subtask,
    /// `stream_event(result, reclaim_buffer)`; `reclaim` is the
    /// `reset_pending` of `on_copy`.
    Stream { result: u32, reclaim: bool },
    /// `future_event(result)`.
    Future { result: u32 },
}

/// `Waitable`.
#[derive(Clone, Debug, Default)]
pub struct Waitable {
    pub pending: Option<Pending>,
    pub wset: Option<Id>,
    pub sync_waiter: bool,
}

/// `Task.State`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Initial,
    Started,
    PendingCancel,
    CancelDelivered,
    Resolved,
}

#[derive(Clone, Debug)]
pub enum Obj {
    Set {
        elems: Vec<Id>,
        num_waiting: u32,
    },
    /// `SharedStreamImpl`/`SharedFutureImpl`: the pending buffer is the
    /// pending end's (`pending_inst` beside it).
    Shared {
        numeric: bool,
        dropped: bool,
        pending: Option<(Id, Inst)>,
    },
    End {
        shared: Id,
        kind: EndKind,
        ty: u32,
        state: CopyState,
        buf: Option<Buf>,
        w: Waitable,
        /// Its handle index (the `i` its events carry).
        index: u32,
    },
    Subtask {
        state: u32,
        /// `resolve_delivered()`.
        delivered: bool,
        cancel_requested: bool,
        /// The callee's task (`on_cancel` is its `request_cancellation`).
        callee: Option<Id>,
        /// Its handle index once the async lower gave it one (then
        /// `maybe_on_progress` is `on_progress`).
        index: Option<u32>,
        w: Waitable,
    },
    Task {
        inst: Inst,
        is_async: bool,
        callback: bool,
        phase: Phase,
        threads: Vec<Tid>,
        implicit: Option<Tid>,
        /// The caller's subtask (`on_start`/`on_resolve` reach it).
        subtask: Option<Id>,
    },
    Err {
        msg: String,
    },
}

/// What a waiting thread's `ready_func` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// `lambda: True` (yield, resume-later).
    Nothing,
    /// The callback loop's `YIELD`: `lambda: not inst.exclusive_thread`.
    NotExclusive,
    /// `wait_for_event_and`: an event in `set` (and, for a callback's
    /// `WAIT`, no exclusive thread).
    Set { set: Id, not_exclusive: bool },
    /// `wait_for_pending_event` (a synchronous copy, cancel or
    /// `subtask.cancel`).
    Waitable(Id),
    /// A synchronous lower waiting for `subtask.resolved`.
    Resolved(Id),
    /// `enter_implicit_thread`: `lambda: not has_backpressure()`.
    Enter,
}

#[derive(Clone, Debug)]
pub struct Thread {
    pub task: Id,
    pub inst: Inst,
    /// Its index in the instance's `threads` table, once registered.
    pub index: Option<u32>,
    pub storage: [u32; 2],
    pub wait: Option<Wait>,
    pub cancellable: bool,
    pub running: bool,
}

#[derive(Clone, Debug)]
pub struct Instance {
    pub handles: Table,
    pub threads: Table,
    pub backpressure: u32,
    pub num_waiting_to_enter: u32,
    pub exclusive: Option<Tid>,
}

/// A value the host holds between lifting and lowering.
#[derive(Clone, Copy, Debug)]
pub enum Held {
    End(Id),
    Err(Id),
}

/// The spec's state of a store.
#[derive(Clone, Debug)]
pub struct Model {
    pub objs: Vec<Option<Obj>>,
    pub threads: Vec<Option<Thread>>,
    pub insts: Vec<Instance>,
    /// The tasks of the host's calls, until it lets go of them.
    pub host: Vec<Option<Id>>,
    /// The values the host holds.
    pub held: Vec<Option<Held>>,
    /// The task and subtask the last call made.
    pub last_call: Option<(Id, Option<Id>)>,
}

/// The choices an implementation made where the spec allows several.
#[derive(Clone, Copy, Debug, Default)]
pub struct Choice {
    /// The handle index of the waitable whose event was delivered.
    pub event_index: Option<u32>,
    /// The thread resumed (by the runtime, or cancelled).
    pub thread: Option<Tid>,
}

impl Model {
    pub fn new(instances: usize) -> Model {
        Model {
            objs: Vec::new(),
            threads: Vec::new(),
            insts: (0..instances)
                .map(|_| Instance {
                    handles: Table::new(),
                    threads: Table::new(),
                    backpressure: 0,
                    num_waiting_to_enter: 0,
                    exclusive: None,
                })
                .collect(),
            host: Vec::new(),
            held: Vec::new(),
            last_call: None,
        }
    }

    fn new_obj(&mut self, o: Obj) -> Id {
        self.objs.push(Some(o));
        self.objs.len() - 1
    }

    pub fn obj(&self, id: Id) -> &Obj {
        self.objs[id].as_ref().expect("model: dead object")
    }

    fn obj_mut(&mut self, id: Id) -> &mut Obj {
        self.objs[id].as_mut().expect("model: dead object")
    }

    pub fn thread(&self, th: Tid) -> &Thread {
        self.threads[th].as_ref().expect("model: dead thread")
    }

    fn thread_mut(&mut self, th: Tid) -> &mut Thread {
        self.threads[th].as_mut().expect("model: dead thread")
    }

    pub fn kind_name(o: &Obj) -> &'static str {
        match o {
            Obj::Set { .. } => "waitable set",
            Obj::Shared { .. } => "shared",
            Obj::End { .. } => "end",
            Obj::Subtask { .. } => "subtask",
            Obj::Task { .. } => "task",
            Obj::Err { .. } => "error context",
        }
    }

    fn waitable(&self, id: Id) -> Option<&Waitable> {
        match self.obj(id) {
            Obj::End { w, .. } | Obj::Subtask { w, .. } => Some(w),
            _ => None,
        }
    }

    fn waitable_mut(&mut self, id: Id) -> &mut Waitable {
        match self.obj_mut(id) {
            Obj::End { w, .. } | Obj::Subtask { w, .. } => w,
            _ => panic!("model: not a waitable"),
        }
    }

    pub fn has_pending_event(&self, id: Id) -> bool {
        self.waitable(id).is_some_and(|w| w.pending.is_some())
    }

    pub fn set_has_pending_event(&self, set: Id) -> bool {
        match self.obj(set) {
            Obj::Set { elems, .. } => elems.iter().any(|w| self.has_pending_event(*w)),
            _ => false,
        }
    }

    // Tables.

    fn add_handle(&mut self, inst: Inst, id: Id) -> u32 {
        let i = self.insts[inst].handles.add(id);
        if let Obj::End { index, .. } = self.obj_mut(id) {
            *index = i;
        }
        i
    }

    pub fn end(&self, id: Id) -> (Id, EndKind, u32, CopyState, Option<Buf>, &Waitable) {
        match self.obj(id) {
            Obj::End {
                shared,
                kind,
                ty,
                state,
                buf,
                w,
                ..
            } => (*shared, *kind, *ty, *state, *buf, w),
            _ => panic!("model: not an end"),
        }
    }

    fn end_mut(&mut self, id: Id) -> (&mut CopyState, &mut Option<Buf>, &mut Waitable) {
        match self.obj_mut(id) {
            Obj::End { state, buf, w, .. } => (state, buf, w),
            _ => panic!("model: not an end"),
        }
    }

    fn shared_mut(&mut self, id: Id) -> (&mut bool, &mut Option<(Id, Inst)>) {
        match self.obj_mut(id) {
            Obj::Shared { dropped, pending, .. } => (dropped, pending),
            _ => panic!("model: not a shared stream or future"),
        }
    }

    fn subtask_mut(&mut self, id: Id) -> (&mut u32, &mut bool, &mut bool, &mut Option<u32>, &mut Waitable) {
        match self.obj_mut(id) {
            Obj::Subtask {
                state,
                delivered,
                cancel_requested,
                index,
                w,
                ..
            } => (state, delivered, cancel_requested, index, w),
            _ => panic!("model: not a subtask"),
        }
    }

    pub fn task(&self, id: Id) -> (Inst, bool, bool, Phase, &Vec<Tid>, Option<Tid>, Option<Id>) {
        match self.obj(id) {
            Obj::Task {
                inst,
                is_async,
                callback,
                phase,
                threads,
                implicit,
                subtask,
            } => (*inst, *is_async, *callback, *phase, threads, *implicit, *subtask),
            _ => panic!("model: not a task"),
        }
    }

    fn phase_mut(&mut self, id: Id) -> &mut Phase {
        match self.obj_mut(id) {
            Obj::Task { phase, .. } => phase,
            _ => panic!("model: not a task"),
        }
    }

    // Waitables and waitable sets.

    /// `Waitable.join`.
    fn join_set(&mut self, w: Id, set: Option<Id>) {
        if let Some(old) = self.waitable_mut(w).wset.take() {
            if let Obj::Set { elems, .. } = self.obj_mut(old) {
                let at = elems
                    .iter()
                    .position(|e| *e == w)
                    .expect("model: member not in its set");
                elems.remove(at);
            }
        }
        self.waitable_mut(w).wset = set;
        if let Some(set) = set {
            if let Obj::Set { elems, .. } = self.obj_mut(set) {
                elems.push(w);
            }
        }
    }

    /// `Waitable.drop`.
    fn drop_waitable(&mut self, w: Id) {
        let ws = self.waitable(w).expect("model: not a waitable");
        assert!(ws.pending.is_none(), "model: a waitable dropped with an event pending");
        assert!(!ws.sync_waiter, "model: a waitable dropped with a synchronous waiter");
        self.join_set(w, None);
    }

    /// `Waitable.get_pending_event`: runs the closure.
    fn get_pending_event(&mut self, w: Id) -> (u32, u32, u32) {
        let pending = self.waitable_mut(w).pending.take().expect("model: no pending event");
        match pending {
            Pending::Subtask => {
                let (state, delivered, _, index, _) = self.subtask_mut(w);
                if *state >= RETURNED {
                    // `deliver_resolve`.
                    assert!(!*delivered);
                    *delivered = true;
                }
                (
                    EV_SUBTASK,
                    index.expect("model: event of a subtask without a handle"),
                    *state,
                )
            }
            Pending::Stream { result, reclaim } => {
                let (shared, kind, _, state, buf, _) = self.end(w);
                assert!(matches!(state, CopyState::Copying | CopyState::Cancelling));
                if reclaim {
                    // `reset_pending` of the `on_copy` that set this event:
                    // this end's buffer is still the pending one.
                    let (_, pending) = self.shared_mut(shared);
                    assert_eq!(pending.map(|p| p.0), Some(w), "model: reclaiming a buffer not pending");
                    *pending = None;
                }
                let progress = buf.expect("model: copy without a buffer").progress;
                let index = match self.obj(w) {
                    Obj::End { index, .. } => *index,
                    _ => unreachable!(),
                };
                let (st, b, _) = self.end_mut(w);
                let result =
                    if CANCEL_AFTER_PROGRESS_IS_CANCELLED && *st == CopyState::Cancelling && result == COMPLETED {
                        CANCELLED
                    } else {
                        result
                    };
                *st = if result == DROPPED {
                    CopyState::Done
                } else {
                    CopyState::Idle
                };
                *b = None;
                let code = if kind.readable() {
                    EV_STREAM_READ
                } else {
                    EV_STREAM_WRITE
                };
                (code, index, result | progress << 4)
            }
            Pending::Future { result } => {
                let (_, kind, _, state, buf, _) = self.end(w);
                assert!(matches!(state, CopyState::Copying | CopyState::Cancelling));
                let buf = buf.expect("model: copy without a buffer");
                assert_eq!(buf.remain() == 0, result == COMPLETED);
                let index = match self.obj(w) {
                    Obj::End { index, .. } => *index,
                    _ => unreachable!(),
                };
                let (st, b, _) = self.end_mut(w);
                *st = if result == DROPPED || result == COMPLETED {
                    CopyState::Done
                } else {
                    CopyState::Idle
                };
                *b = None;
                let code = if kind.readable() {
                    EV_FUTURE_READ
                } else {
                    EV_FUTURE_WRITE
                };
                (code, index, result)
            }
        }
    }

    /// `WaitableSet.get_pending_event`: any member with an event (the
    /// spec shuffles); the implementation's choice if it is one.
    fn set_get_pending_event(&mut self, set: Id, choice: &Choice) -> (u32, u32, u32) {
        let Obj::Set { elems, .. } = self.obj(set) else {
            panic!("model: not a set")
        };
        let candidates: Vec<Id> = elems.iter().copied().filter(|w| self.has_pending_event(*w)).collect();
        assert!(!candidates.is_empty());
        let index_of = |m: &Model, w: Id| match m.obj(w) {
            Obj::End { index, .. } => Some(*index),
            Obj::Subtask { index, .. } => *index,
            _ => None,
        };
        let chosen = candidates
            .iter()
            .copied()
            .find(|w| choice.event_index.is_some() && index_of(self, *w) == choice.event_index)
            .unwrap_or(candidates[0]);
        self.get_pending_event(chosen)
    }

    pub fn waitable_set_new(&mut self, inst: Inst) -> R<Out> {
        let set = self.new_obj(Obj::Set {
            elems: Vec::new(),
            num_waiting: 0,
        });
        Ok(Out::Word(self.add_handle(inst, set)))
    }

    pub fn waitable_set_drop(&mut self, inst: Inst, i: u32) -> R<Out> {
        let set = self.insts[inst].handles.get(i)?;
        let Obj::Set { elems, num_waiting } = self.obj(set) else {
            return trap("not a waitable set");
        };
        trap_if(!elems.is_empty(), "waitable set has members")?;
        trap_if(*num_waiting > 0, "waitable set has waiters")?;
        self.insts[inst].handles.remove(i)?;
        Ok(Out::Unit)
    }

    pub fn waitable_join(&mut self, inst: Inst, wi: u32, si: u32) -> R<Out> {
        let w = self.insts[inst].handles.get(wi)?;
        let Some(ws) = self.waitable(w) else {
            return trap("not a waitable");
        };
        trap_if(ws.sync_waiter, "waitable has a synchronous waiter")?;
        if si == 0 {
            self.join_set(w, None);
        } else {
            let set = self.insts[inst].handles.get(si)?;
            trap_if(!matches!(self.obj(set), Obj::Set { .. }), "not a waitable set")?;
            self.join_set(w, Some(set));
        }
        Ok(Out::Unit)
    }

    /// `waitable-set.poll` (not cancellable).
    pub fn waitable_set_poll(&mut self, inst: Inst, si: u32, choice: &Choice) -> R<Out> {
        let set = self.insts[inst].handles.get(si)?;
        trap_if(!matches!(self.obj(set), Obj::Set { .. }), "not a waitable set")?;
        if !self.set_has_pending_event(set) {
            return Ok(Out::Event(EV_NONE, 0, 0));
        }
        let (c, i, p) = self.set_get_pending_event(set, choice);
        Ok(Out::Event(c, i, p))
    }

    // Error contexts.

    pub fn error_context_new(&mut self, inst: Inst, msg: String) -> R<Out> {
        let e = self.new_obj(Obj::Err { msg });
        Ok(Out::Word(self.add_handle(inst, e)))
    }

    pub fn error_context_message(&self, inst: Inst, i: u32) -> R<Out> {
        match self.obj(self.insts[inst].handles.get(i)?) {
            Obj::Err { msg } => Ok(Out::Str(msg.clone())),
            _ => trap("not an error context"),
        }
    }

    pub fn error_context_drop(&mut self, inst: Inst, i: u32) -> R<Out> {
        let e = self.insts[inst].handles.get(i)?;
        trap_if(!matches!(self.obj(e), Obj::Err { .. }), "not an error context")?;
        self.insts[inst].handles.remove(i)?;
        Ok(Out::Unit)
    }

    // Liveness.

    /// Frees the objects nothing reaches any more (the spec's garbage
    /// collection): what stays is what `weft-tasks` must keep.
    pub fn collect(&mut self) {
        let mut live = vec![false; self.objs.len()];
        let mut stack: Vec<Id> = Vec::new();
        for inst in &self.insts {
            stack.extend(inst.handles.entries().into_iter().map(|(_, e)| e));
        }
        for t in self.threads.iter().flatten() {
            stack.push(t.task);
            if let Some(Wait::Set { set: x, .. } | Wait::Waitable(x) | Wait::Resolved(x)) = t.wait {
                stack.push(x);
            }
        }
        stack.extend(self.host.iter().flatten());
        stack.extend(self.held.iter().flatten().map(|h| match h {
            Held::End(e) | Held::Err(e) => *e,
        }));
        while let Some(id) = stack.pop() {
            if live[id] {
                continue;
            }
            live[id] = true;
            match self.obj(id) {
                Obj::End { shared, w, .. } => {
                    stack.push(*shared);
                    stack.extend(w.wset);
                }
                Obj::Subtask { callee, w, .. } => {
                    stack.extend(*callee);
                    stack.extend(w.wset);
                }
                Obj::Task { phase, subtask, .. } if *phase != Phase::Resolved => stack.extend(*subtask),
                _ => {}
            }
        }
        for (id, l) in live.into_iter().enumerate() {
            if !l {
                self.objs[id] = None;
            }
        }
    }

    pub fn live_objects(&self) -> usize {
        self.objs.iter().filter(|o| o.is_some()).count()
    }

    pub fn live_threads(&self) -> usize {
        self.threads.iter().filter(|t| t.is_some()).count()
    }
}
