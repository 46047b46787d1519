//! The store-wide table of entries and the per-instance handle tables.

// Import loop kept on purpose: the state of each kind of entry is defined
// beside its rules (task.rs, copy.rs), which are methods of `Tasks` over
// this table, so that each kind's data and rules are read together.
use crate::copy::{EndState, SharedState};
use crate::task::{SubtaskState, TaskState};
use std::fmt;
use weft_slab::Slab;

/// How many emptied thread lists [`Tasks`] keeps for new tasks.
const MAX_SPARE_THREAD_LISTS: usize = 64;

/// An entry of [`Tasks`]: stable for the entry's life, reused once freed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntryId(pub(crate) u32);

impl EntryId {
    /// The entry's index (for a runtime that keeps it in a value).
    pub fn index(self) -> u32 {
        self.0
    }

    /// The entry at `index` (looking it up fails safely if it is stale).
    pub fn from_index(index: u32) -> EntryId {
        EntryId(index)
    }
}

/// The marker of a resource handle's index in a handle table.
const RESOURCE: EntryId = EntryId(u32::MAX);

/// A component instance's handle table in [`Tasks`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InstanceId(pub(crate) u32);

/// The kinds of entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A call into a lifted function (`Task` of CanonicalABI.md).
    Task,
    /// A call out of a component through an async `canon lower`.
    Subtask,
    /// A waitable set.
    WaitableSet,
    /// The state a stream's two ends share.
    Stream,
    /// The state a future's two ends share.
    Future,
    /// The readable end of a stream.
    ReadableStream,
    /// The writable end of a stream.
    WritableStream,
    /// The readable end of a future.
    ReadableFuture,
    /// The writable end of a future.
    WritableFuture,
    /// An error context.
    ErrorContext,
    /// A resource handle (kept by the runtime; the table only gives out its
    /// index).
    Resource,
}

impl Kind {
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Kind::Task => "task",
            Kind::Subtask => "subtask",
            Kind::WaitableSet => "waitable set",
            Kind::Stream => "stream",
            Kind::Future => "future",
            Kind::ReadableStream => "readable stream end",
            Kind::WritableStream => "writable stream end",
            Kind::ReadableFuture => "readable future end",
            Kind::WritableFuture => "writable future end",
            Kind::ErrorContext => "error context",
            Kind::Resource => "resource",
        }
    }

    /// Whether entries of this kind can join a waitable set.
    pub fn is_waitable(self) -> bool {
        matches!(
            self,
            Kind::Subtask | Kind::ReadableStream | Kind::WritableStream | Kind::ReadableFuture | Kind::WritableFuture
        )
    }
}

/// A misuse of the table: each is a trap of the canonical ABI (or, for
/// [`TaskError::Stale`], a bug of the runtime caught safely).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskError {
    /// The handle index is not in the instance's table (never given out,
    /// or dropped already).
    NoHandle(u32),
    /// The handle is of another kind than the operation needs.
    WrongKind {
        /// The handle index that was given.
        index: u32,
        /// What the operation needs.
        expected: &'static str,
        /// What the index holds.
        found: Kind,
    },
    /// A stream or future end of another type than the built-in's.
    WrongType(u32),
    /// A waitable set that still has waitables joined was dropped.
    SetHasWaitables,
    /// A waitable set that a task waits on was dropped.
    SetHasWaiters,
    /// A subtask was dropped before its resolution was delivered.
    SubtaskNotResolved,
    /// A waitable was used synchronously while in a waitable set, or
    /// joined to a set while waited on synchronously.
    SyncWaiter,
    /// The writable end of a future was dropped before a value was written.
    FutureNotWritten,
    /// `task.return` or `task.cancel` after the task returned or cancelled.
    TaskResolved,
    /// A `context.get`/`context.set` slot out of range.
    ContextSlot(u32),
    /// The instance's table has no room for another handle.
    TableFull,
    /// An [`EntryId`] or [`InstanceId`] that is not live (a runtime bug).
    Stale,
    /// Another trap of the canonical ABI, with its message.
    Trap(&'static str),
}

impl fmt::Display for TaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskError::NoHandle(i) => write!(f, "unknown handle index {i}"),
            TaskError::WrongKind { index, expected, found } => {
                write!(f, "handle index {index} is a {}, not a {expected}", found.describe())
            }
            TaskError::WrongType(i) => write!(f, "handle index {i} is a stream or future end of another type"),
            TaskError::SetHasWaitables => write!(f, "cannot drop waitable set with waitables joined to it"),
            TaskError::SetHasWaiters => write!(f, "cannot drop waitable set with waiters"),
            TaskError::SubtaskNotResolved => write!(f, "cannot drop a subtask which has not yet resolved"),
            TaskError::SyncWaiter => write!(f, "waitable cannot be used synchronously while added to a waitable set"),
            TaskError::FutureNotWritten => {
                write!(f, "cannot drop future write end without first writing a value")
            }
            TaskError::TaskResolved => write!(f, "the task has already returned or been cancelled"),
            TaskError::ContextSlot(i) => write!(f, "context slot {i} out of range"),
            TaskError::TableFull => write!(f, "the handle table is full"),
            TaskError::Stale => write!(f, "internal error: stale task table reference"),
            TaskError::Trap(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for TaskError {}

/// The number of `context.get`/`context.set` slots of a thread.
pub const CONTEXT_SLOTS: usize = 2;

/// The most handles one instance's table holds (indices fit in 28 bits, as
/// the packed results of async calls need).
pub const MAX_HANDLES: u32 = (1 << 28) - 1;

/// The states of a subtask, with the values of CanonicalABI.md's
/// `Subtask.State`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubtaskStatus {
    /// Not started: its arguments are not lifted yet.
    Starting = 0,
    /// Started, not returned.
    Started = 1,
    /// Returned its value.
    Returned = 2,
    /// Cancelled before it started.
    CancelledBeforeStarted = 3,
    /// Cancelled after it started, before it returned.
    CancelledBeforeReturned = 4,
}

impl SubtaskStatus {
    /// Whether the subtask is done (returned or cancelled).
    pub fn resolved(self) -> bool {
        !matches!(self, SubtaskStatus::Starting | SubtaskStatus::Started)
    }
}

/// An event a waitable holds until it is delivered; what it says is worked
/// out at delivery, as CanonicalABI.md's `pending_event` closures do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pending {
    /// The subtask's state changed.
    Subtask,
    /// A copy of a stream or future end made progress or finished with
    /// `result` (a `CopyResult`); `reclaim` takes the end's buffer back
    /// from the stream it is pending in.
    Copy { result: u32, reclaim: bool },
}

/// What every waitable has.
#[derive(Debug, Clone, Default)]
pub(crate) struct WaitableState {
    /// The waitable set it joined (holding one reference to it).
    pub(crate) set: Option<EntryId>,
    /// A pending event.
    pub(crate) pending: Option<Pending>,
    pub(crate) has_sync_waiter: bool,
    /// Its index in the handle table of the instance that holds it (0 while
    /// no instance does).
    pub(crate) index: u32,
}

/// The state of an entry, by kind.
#[derive(Debug, Clone)]
pub(crate) enum State {
    Task(TaskState),
    Subtask(SubtaskState),
    WaitableSet {
        /// The joined waitables, in the order they joined.
        members: Vec<EntryId>,
        num_waiting: u32,
    },
    Shared(SharedState),
    End(EndState),
    ErrorContext {
        message: String,
    },
}

impl State {
    pub(crate) fn kind(&self) -> Kind {
        match self {
            State::Task(_) => Kind::Task,
            State::Subtask(_) => Kind::Subtask,
            State::WaitableSet { .. } => Kind::WaitableSet,
            State::Shared(s) if s.is_stream => Kind::Stream,
            State::Shared(_) => Kind::Future,
            State::End(e) => match (e.is_stream, e.readable) {
                (true, true) => Kind::ReadableStream,
                (true, false) => Kind::WritableStream,
                (false, true) => Kind::ReadableFuture,
                (false, false) => Kind::WritableFuture,
            },
            State::ErrorContext { .. } => Kind::ErrorContext,
        }
    }

    pub(crate) fn waitable(&mut self) -> Option<&mut WaitableState> {
        match self {
            State::Subtask(s) => Some(&mut s.waitable),
            State::End(e) => Some(&mut e.waitable),
            _ => None,
        }
    }

    pub(crate) fn waitable_ref(&self) -> Option<&WaitableState> {
        match self {
            State::Subtask(s) => Some(&s.waitable),
            State::End(e) => Some(&e.waitable),
            _ => None,
        }
    }
}

#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) refs: u32,
    pub(crate) state: State,
}

/// One component instance's async state: its handle table (index ->
/// entry; index 0 is reserved, the "none" of `waitable.join`), its thread
/// table, and the backpressure and exclusivity that gate new tasks.
#[derive(Debug)]
pub(crate) struct InstanceState {
    pub(crate) handles: Slab<EntryId>,
    pub(crate) threads: Slab<crate::task::ThreadId>,
    /// `backpressure.inc` minus `backpressure.dec`.
    pub(crate) backpressure: u32,
    /// Tasks waiting for backpressure to end.
    pub(crate) num_waiting_to_enter: u32,
    /// The implicit thread running a task that needs the instance to itself.
    pub(crate) exclusive: Option<crate::task::ThreadId>,
}

impl Default for InstanceState {
    fn default() -> Self {
        InstanceState {
            handles: Slab::starting_at(1),
            threads: Slab::starting_at(1),
            backpressure: 0,
            num_waiting_to_enter: 0,
            exclusive: None,
        }
    }
}

/// The store-wide table of the async ABI (see the crate documentation).
#[derive(Debug, Default)]
pub struct Tasks {
    pub(crate) entries: Slab<Entry>,
    pub(crate) instances: Vec<InstanceState>,
    pub(crate) threads: Slab<crate::task::ThreadState>,
    /// The threads waiting for a condition, in the order they started to.
    pub(crate) waiting: Vec<crate::task::ThreadId>,
    /// Tasks freed since the runtime last asked ([`Tasks::take_freed_tasks`]).
    freed_tasks: Vec<EntryId>,
    /// The emptied thread lists of freed tasks, for the next tasks (a task
    /// then makes no allocation for its list).
    pub(crate) spare_thread_lists: Vec<Vec<crate::task::ThreadId>>,
}

impl Tasks {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// A new, empty handle table for a component instance.
    pub fn new_instance(&mut self) -> InstanceId {
        self.instances.push(InstanceState::default());
        InstanceId((self.instances.len() - 1) as u32)
    }

    /// The number of live entries (for tests and leak checks).
    pub fn live_entries(&self) -> usize {
        self.entries.len()
    }

    /// The number of live threads (for tests and leak checks).
    pub fn live_threads(&self) -> usize {
        self.threads.len()
    }

    /// The number of handles in `inst`'s table.
    pub fn live_handles(&self, inst: InstanceId) -> usize {
        self.instances.get(inst.0 as usize).map_or(0, |t| t.handles.len())
    }

    pub(crate) fn new_entry(&mut self, state: State) -> EntryId {
        // The slab fails only when all 2^32 ids are live, which no memory
        // holds (an entry takes more than 16 bytes).
        EntryId(self.entries.insert(Entry { refs: 1, state }).unwrap_or(u32::MAX))
    }

    pub(crate) fn entry(&self, id: EntryId) -> Result<&Entry, TaskError> {
        self.entries.get(id.0).ok_or(TaskError::Stale)
    }

    pub(crate) fn entry_mut(&mut self, id: EntryId) -> Result<&mut Entry, TaskError> {
        self.entries.get_mut(id.0).ok_or(TaskError::Stale)
    }

    /// Adds a reference to `id`.
    pub fn acquire(&mut self, id: EntryId) -> Result<(), TaskError> {
        let e = self.entry_mut(id)?;
        e.refs = e.refs.checked_add(1).ok_or(TaskError::Stale)?;
        Ok(())
    }

    /// Removes a reference to `id`; at zero the entry is freed and the
    /// references it holds (its stream's shared state, its waitable set,
    /// a subtask's callee task, a task's caller subtask) are released in
    /// turn.
    pub fn release(&mut self, id: EntryId) -> Result<(), TaskError> {
        let e = self.entry_mut(id)?;
        e.refs = e.refs.checked_sub(1).ok_or(TaskError::Stale)?;
        if e.refs > 0 {
            return Ok(());
        }
        let Some(entry) = self.entries.remove(id.0) else {
            return Err(TaskError::Stale);
        };
        // The one entry this one holds a reference to, if any.
        let held = match entry.state {
            State::End(end) => {
                if let Some(set) = end.waitable.set {
                    self.leave_set(set, id)?;
                }
                Some(end.shared)
            }
            State::Subtask(sub) => {
                if let Some(set) = sub.waitable.set {
                    self.leave_set(set, id)?;
                }
                sub.callee
            }
            State::Task(mut task) => {
                self.freed_tasks.push(id);
                if self.spare_thread_lists.len() < MAX_SPARE_THREAD_LISTS {
                    task.threads.clear();
                    self.spare_thread_lists.push(std::mem::take(&mut task.threads));
                }
                task.subtask
            }
            _ => None,
        };
        match held {
            Some(h) => self.release(h),
            None => Ok(()),
        }
    }

    /// The tasks freed since the last call (so that a runtime can forget
    /// what it keeps of them before their ids are given out again).
    pub fn take_freed_tasks(&mut self) -> Vec<EntryId> {
        std::mem::take(&mut self.freed_tasks)
    }

    /// One task freed since the last call, as [`Tasks::take_freed_tasks`]
    /// gives them all, keeping the list's room for the next ones (no
    /// allocation per task on a hot path).
    pub fn pop_freed_task(&mut self) -> Option<EntryId> {
        self.freed_tasks.pop()
    }

    /// The kind of the entry at `id`, if it is live.
    pub fn kind_of(&self, id: EntryId) -> Option<Kind> {
        self.entries.get(id.0).map(|e| e.state.kind())
    }

    /// The reference count of `id` (0 once freed).
    pub fn refs(&self, id: EntryId) -> u32 {
        self.entries.get(id.0).map_or(0, |e| e.refs)
    }

    pub(crate) fn instance(&self, inst: InstanceId) -> Result<&InstanceState, TaskError> {
        self.instances.get(inst.0 as usize).ok_or(TaskError::Stale)
    }

    pub(crate) fn instance_mut(&mut self, inst: InstanceId) -> Result<&mut InstanceState, TaskError> {
        self.instances.get_mut(inst.0 as usize).ok_or(TaskError::Stale)
    }

    /// Gives `inst` a handle to `id`, moving one reference of `id` (the
    /// caller's) into the handle.
    pub(crate) fn add_handle(&mut self, inst: InstanceId, id: EntryId) -> Result<u32, TaskError> {
        let table = self.instance_mut(inst)?;
        if table.handles.len() >= MAX_HANDLES as usize {
            return Err(TaskError::TableFull);
        }
        let index = table.handles.insert(id).ok_or(TaskError::TableFull)?;
        if let Some(w) = self.entry_mut(id)?.state.waitable() {
            w.index = index;
        }
        Ok(index)
    }

    /// Adds a handle to a new entry, freeing the entry if the table is full.
    pub(crate) fn add_new_handle(&mut self, inst: InstanceId, id: EntryId) -> Result<u32, TaskError> {
        self.add_handle(inst, id).inspect_err(|_| {
            let _ = self.release(id);
        })
    }

    /// The entry a handle of `inst` names.
    pub fn handle(&self, inst: InstanceId, index: u32) -> Result<EntryId, TaskError> {
        match self.instance(inst)?.handles.get(index).copied() {
            None => Err(TaskError::NoHandle(index)),
            Some(RESOURCE) => Err(TaskError::WrongKind {
                index,
                expected: "waitable, waitable set or error context",
                found: Kind::Resource,
            }),
            Some(id) => Ok(id),
        }
    }

    /// Gives out an index of `inst`'s handle table for a resource handle the
    /// runtime keeps (resources share the index space of waitables,
    /// waitable sets and error contexts).
    pub fn reserve_resource_index(&mut self, inst: InstanceId) -> Result<u32, TaskError> {
        let table = self.instance_mut(inst)?;
        if table.handles.len() >= MAX_HANDLES as usize {
            return Err(TaskError::TableFull);
        }
        table.handles.insert(RESOURCE).ok_or(TaskError::TableFull)
    }

    /// Gives back the index of a resource handle.
    pub fn free_resource_index(&mut self, inst: InstanceId, index: u32) -> Result<(), TaskError> {
        let table = self.instance_mut(inst)?;
        match table.handles.get(index) {
            Some(&RESOURCE) => {
                table.handles.remove(index);
                Ok(())
            }
            _ => Err(TaskError::NoHandle(index)),
        }
    }

    /// The kind of the entry a handle of `inst` names.
    pub fn handle_kind(&self, inst: InstanceId, index: u32) -> Result<Kind, TaskError> {
        Ok(self.entry(self.handle(inst, index)?)?.state.kind())
    }

    pub(crate) fn handle_of(&self, inst: InstanceId, index: u32, kind: Kind) -> Result<EntryId, TaskError> {
        let id = self.handle(inst, index).map_err(|e| match e {
            TaskError::WrongKind { found, .. } => TaskError::WrongKind {
                index,
                expected: kind.describe(),
                found,
            },
            e => e,
        })?;
        let found = self.entry(id)?.state.kind();
        if found != kind {
            return Err(TaskError::WrongKind {
                index,
                expected: kind.describe(),
                found,
            });
        }
        Ok(id)
    }

    /// Takes handle `index` out of `inst`'s table without releasing its
    /// reference (which the caller now holds).
    pub(crate) fn take_handle(&mut self, inst: InstanceId, index: u32) -> Result<EntryId, TaskError> {
        let id = self
            .instance_mut(inst)?
            .handles
            .remove(index)
            .ok_or(TaskError::NoHandle(index))?;
        if let Some(w) = self.entry_mut(id)?.state.waitable() {
            w.index = 0;
        }
        Ok(id)
    }

    /// Removes a handle of `inst` after `check` accepts its entry, and
    /// releases the handle's reference.
    pub(crate) fn drop_handle(
        &mut self,
        inst: InstanceId,
        index: u32,
        kind: Kind,
        check: impl FnOnce(&State) -> Result<(), TaskError>,
    ) -> Result<(), TaskError> {
        let id = self.handle_of(inst, index, kind)?;
        check(&self.entry(id)?.state)?;
        let id = self.take_handle(inst, index)?;
        self.release(id)
    }

    // Waitable sets.

    /// `waitable-set.new`.
    pub fn waitable_set_new(&mut self, inst: InstanceId) -> Result<u32, TaskError> {
        let id = self.new_entry(State::WaitableSet {
            members: Vec::new(),
            num_waiting: 0,
        });
        self.add_new_handle(inst, id)
    }

    /// `waitable-set.drop`: traps while waitables are joined or a task
    /// waits on it.
    pub fn waitable_set_drop(&mut self, inst: InstanceId, index: u32) -> Result<(), TaskError> {
        self.drop_handle(inst, index, Kind::WaitableSet, |s| match s {
            State::WaitableSet { members, .. } if !members.is_empty() => Err(TaskError::SetHasWaitables),
            State::WaitableSet { num_waiting, .. } if *num_waiting > 0 => Err(TaskError::SetHasWaiters),
            _ => Ok(()),
        })
    }

    fn leave_set(&mut self, set: EntryId, member: EntryId) -> Result<(), TaskError> {
        if let State::WaitableSet { members, .. } = &mut self.entry_mut(set)?.state {
            members.retain(|m| *m != member);
        }
        self.release(set)
    }

    /// `waitable.join`: moves the waitable `wi` into the set `si`, or out
    /// of any set when `si` is 0. A member holds a reference to its set.
    pub fn waitable_join(&mut self, inst: InstanceId, wi: u32, si: u32) -> Result<(), TaskError> {
        let w = self.handle(inst, wi)?;
        let found = self.entry(w)?.state.kind();
        if !found.is_waitable() {
            return Err(TaskError::WrongKind {
                index: wi,
                expected: "waitable",
                found,
            });
        }
        let set = if si == 0 {
            None
        } else {
            Some(self.handle_of(inst, si, Kind::WaitableSet)?)
        };
        let waitable = self.entry_mut(w)?.state.waitable().ok_or(TaskError::Stale)?;
        if waitable.has_sync_waiter {
            return Err(TaskError::SyncWaiter);
        }
        let old = std::mem::replace(&mut waitable.set, set);
        // Leave the old set first (`Waitable.join`), so that joining the
        // set it is in moves the waitable to the end of its members. (`set`
        // has a handle, so leaving it does not free it.)
        if let Some(old) = old {
            self.leave_set(old, w)?;
        }
        if let Some(set) = set {
            self.acquire(set)?;
            if let State::WaitableSet { members, .. } = &mut self.entry_mut(set)?.state {
                members.push(w);
            }
        }
        Ok(())
    }

    /// Whether the waitable `w` has an event pending.
    pub fn has_pending_event(&self, w: EntryId) -> bool {
        self.entries
            .get(w.0)
            .and_then(|e| e.state.waitable_ref())
            .is_some_and(|w| w.pending.is_some())
    }

    /// Whether a member of the waitable set `set` has an event pending.
    pub fn set_has_pending_event(&self, set: EntryId) -> bool {
        match self.entries.get(set.0).map(|e| &e.state) {
            Some(State::WaitableSet { members, .. }) => members.iter().any(|m| self.has_pending_event(*m)),
            _ => false,
        }
    }

    /// Takes the first pending event of a member of `set`, as (code,
    /// waitable index, payload), or `(EVENT_NONE, 0, 0)`.
    pub fn take_set_event(&mut self, set: EntryId) -> Result<Event, TaskError> {
        let member = match &self.entry(set)?.state {
            State::WaitableSet { members, .. } => members.iter().copied().find(|m| self.has_pending_event(*m)),
            _ => return Err(TaskError::Stale),
        };
        match member {
            Some(w) => self.take_event(w),
            None => Ok(Event::NONE),
        }
    }

    /// Delivers the pending event of the waitable `w` (see `Pending`).
    pub fn take_event(&mut self, w: EntryId) -> Result<Event, TaskError> {
        let entry = self.entry_mut(w)?;
        let waitable = entry.state.waitable().ok_or(TaskError::Stale)?;
        let Some(pending) = waitable.pending.take() else {
            return Ok(Event::NONE);
        };
        let index = waitable.index;
        match pending {
            Pending::Subtask => {
                let State::Subtask(sub) = &mut entry.state else {
                    return Err(TaskError::Stale);
                };
                if sub.status.resolved() {
                    sub.resolve_delivered = true;
                }
                Ok(Event {
                    code: EVENT_SUBTASK,
                    index,
                    payload: sub.status as u32,
                })
            }
            Pending::Copy { result, reclaim } => self.deliver_copy_event(w, index, result, reclaim),
        }
    }

    /// `waitable-set.poll` without cancellation: the event of a member
    /// with one pending, or `(EVENT_NONE, 0, 0)`.
    pub fn waitable_set_poll(&mut self, inst: InstanceId, si: u32) -> Result<(u32, u32, u32), TaskError> {
        let set = self.handle_of(inst, si, Kind::WaitableSet)?;
        let e = self.take_set_event(set)?;
        Ok((e.code, e.index, e.payload))
    }

    /// The waitable set handle `si` of `inst` names.
    pub fn waitable_set(&self, inst: InstanceId, si: u32) -> Result<EntryId, TaskError> {
        self.handle_of(inst, si, Kind::WaitableSet)
    }

    /// Counts a task waiting on `set` (`waitable-set.wait`), or one less.
    pub fn set_waiting(&mut self, set: EntryId, waiting: bool) -> Result<(), TaskError> {
        if let State::WaitableSet { num_waiting, .. } = &mut self.entry_mut(set)?.state {
            *num_waiting = if waiting {
                num_waiting.saturating_add(1)
            } else {
                num_waiting.saturating_sub(1)
            };
        }
        Ok(())
    }

    // Error contexts.

    /// `error-context.new` with its debug message.
    pub fn error_context_new(&mut self, inst: InstanceId, message: String) -> Result<u32, TaskError> {
        let id = self.new_entry(State::ErrorContext { message });
        self.add_new_handle(inst, id)
    }

    /// The debug message of an error context.
    pub fn error_context_message(&self, inst: InstanceId, index: u32) -> Result<&str, TaskError> {
        let id = self.handle_of(inst, index, Kind::ErrorContext)?;
        match &self.entry(id)?.state {
            State::ErrorContext { message } => Ok(message),
            _ => Err(TaskError::Stale),
        }
    }

    /// `error-context.drop`.
    pub fn error_context_drop(&mut self, inst: InstanceId, index: u32) -> Result<(), TaskError> {
        self.drop_handle(inst, index, Kind::ErrorContext, |_| Ok(()))
    }

    /// Moves handle `index` of `from` to a new handle of `to` (an error
    /// context, or a stream or future end, passed to another instance):
    /// the new index.
    pub fn transfer(&mut self, from: InstanceId, index: u32, to: InstanceId) -> Result<u32, TaskError> {
        let id = self.take_handle(from, index)?;
        self.add_handle(to, id).inspect_err(|_| {
            let _ = self.release(id);
        })
    }

    /// `lift_error_context`: the error context at `index` of `inst`, with
    /// a new reference for the caller (error contexts are shared).
    pub fn lift_error_context(&mut self, inst: InstanceId, index: u32) -> Result<EntryId, TaskError> {
        let id = self.handle_of(inst, index, Kind::ErrorContext)?;
        self.acquire(id)?;
        Ok(id)
    }

    /// Lowers a lifted error context, stream or future end `id` (moving the
    /// caller's reference) into a new handle of `inst`; an end takes `ty`,
    /// the type tag of its new holder.
    pub fn lower_handle(&mut self, inst: InstanceId, id: EntryId, ty: u32) -> Result<u32, TaskError> {
        let index = self.add_handle(inst, id)?;
        if let State::End(e) = &mut self.entry_mut(id)?.state {
            e.retag(ty);
        }
        Ok(index)
    }
}

/// An event delivered to a waiting or polling task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// `EventCode`.
    pub code: u32,
    /// The waitable's handle index.
    pub index: u32,
    /// The event's payload.
    pub payload: u32,
}

impl Event {
    /// `(EventCode.NONE, 0, 0)`.
    pub const NONE: Event = Event {
        code: EVENT_NONE,
        index: 0,
        payload: 0,
    };
    /// `(EventCode.TASK_CANCELLED, 0, 0)`.
    pub const CANCELLED: Event = Event {
        code: EVENT_TASK_CANCELLED,
        index: 0,
        payload: 0,
    };
}

/// `EventCode.NONE`.
pub const EVENT_NONE: u32 = 0;
/// `EventCode.SUBTASK`.
pub const EVENT_SUBTASK: u32 = 1;
/// `EventCode.STREAM_READ`.
pub const EVENT_STREAM_READ: u32 = 2;
/// `EventCode.STREAM_WRITE`.
pub const EVENT_STREAM_WRITE: u32 = 3;
/// `EventCode.FUTURE_READ`.
pub const EVENT_FUTURE_READ: u32 = 4;
/// `EventCode.FUTURE_WRITE`.
pub const EVENT_FUTURE_WRITE: u32 = 5;
/// `EventCode.TASK_CANCELLED`.
pub const EVENT_TASK_CANCELLED: u32 = 6;

impl Tasks {
    /// Checks every entry's reference count against the holders the table
    /// knows of (handles, threads, stream ends, subtasks and their callee
    /// tasks, waitable set memberships) plus `held`, the references the
    /// runtime keeps itself. An entry with more references than holders is
    /// leaked (nobody will release it), one with fewer was released too
    /// often. Returns a readable list of the entries that do not add up.
    pub fn check_references(&self, held: &[EntryId]) -> Result<(), String> {
        let mut expected = vec![0u32; self.entries.index_bound()];
        let mut count = |id: EntryId| {
            if let Some(n) = expected.get_mut(id.0 as usize) {
                *n += 1;
            }
        };
        for inst in &self.instances {
            for (_, id) in inst.handles.iter() {
                if *id != RESOURCE {
                    count(*id);
                }
            }
        }
        for (_, t) in self.threads.iter() {
            count(t.task);
        }
        for id in held {
            count(*id);
        }
        for (_, e) in self.entries.iter() {
            match &e.state {
                State::End(end) => count(end.shared),
                State::Subtask(s) => s.callee.into_iter().for_each(&mut count),
                State::Task(t) => t.subtask.into_iter().for_each(&mut count),
                _ => {}
            }
            if let Some(set) = e.state.waitable_ref().and_then(|w| w.set) {
                count(set);
            }
        }
        let mut problems = String::new();
        for (i, e) in self.entries.iter() {
            let want = expected[i as usize];
            if e.refs != want {
                let what = if e.refs > want { "leaked" } else { "released too often" };
                problems.push_str(&format!(
                    "  {} {i}: {} references, {want} holders ({what})\n",
                    e.state.kind().describe(),
                    e.refs
                ));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    /// A readable account of every live entry and thread: what each is,
    /// who holds it and what each waiting thread waits for.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for (i, inst) in self.instances.iter().enumerate() {
            let handles: Vec<String> = inst
                .handles
                .iter()
                .map(|(index, &id)| {
                    let kind = if id == RESOURCE {
                        "resource"
                    } else {
                        self.kind_of(id).map_or("stale", |k| k.describe())
                    };
                    format!("{index}: {kind}")
                })
                .collect();
            if !handles.is_empty() || inst.backpressure > 0 || inst.exclusive.is_some() {
                out.push_str(&format!(
                    "component instance {i}: handles [{}], backpressure {}, exclusive thread {}\n",
                    handles.join(", "),
                    inst.backpressure,
                    inst.exclusive
                        .and_then(|t| self.threads.get(t.0))
                        .map_or("none".to_string(), |t| t.index.to_string())
                ));
            }
        }
        for (i, e) in self.entries.iter() {
            out.push_str(&format!(
                "entry {i}: {} ({} references)\n",
                e.state.kind().describe(),
                e.refs
            ));
        }
        out.push_str(&self.describe_waits());
        out
    }
}
