//! The store-wide table of entries and the per-instance handle tables.

use std::fmt;

/// An entry of [`Tasks`]: stable for the entry's life, reused once freed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntryId(u32);

/// A component instance's handle table in [`Tasks`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InstanceId(u32);

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
}

impl Kind {
    fn describe(self) -> &'static str {
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
        /// The index.
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
    /// A waitable with a synchronous waiter was joined to a set.
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
            TaskError::SubtaskNotResolved => write!(f, "cannot drop a subtask before its resolution is delivered"),
            TaskError::SyncWaiter => write!(f, "cannot join a waitable that is waited on synchronously"),
            TaskError::FutureNotWritten => {
                write!(f, "cannot drop future write end without first writing a value")
            }
            TaskError::TaskResolved => write!(f, "the task has already returned or been cancelled"),
            TaskError::ContextSlot(i) => write!(f, "context slot {i} out of range"),
            TaskError::TableFull => write!(f, "the handle table is full"),
            TaskError::Stale => write!(f, "internal error: stale task table reference"),
        }
    }
}

impl std::error::Error for TaskError {}

/// The number of `context.get`/`context.set` slots of a thread.
pub const CONTEXT_SLOTS: usize = 2;

/// The most handles one instance's table holds (indices fit in 28 bits, as
/// the packed results of async calls need).
pub const MAX_HANDLES: u32 = (1 << 28) - 1;

/// The state of a task: a call into a lifted function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskState {
    /// Whether the function is lifted `async`: only then may it call
    /// `task.return` or `task.cancel`.
    pub is_async: bool,
    /// The thread-local storage of the task's (only) thread.
    pub context: [u32; CONTEXT_SLOTS],
    /// Whether the task has returned (`task.return`, or the core function
    /// of a synchronous lift returned).
    pub returned: bool,
    /// Whether the task called `task.cancel`.
    pub cancelled: bool,
}

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

/// What every waitable has.
#[derive(Debug, Clone, Default)]
struct WaitableState {
    /// The waitable set it joined (holding one reference to it).
    set: Option<EntryId>,
    /// A pending event: (code, payload).
    pending: Option<(u32, u32)>,
    has_sync_waiter: bool,
}

#[derive(Debug, Clone)]
enum State {
    Task(TaskState),
    Subtask {
        status: SubtaskStatus,
        resolve_delivered: bool,
        waitable: WaitableState,
    },
    WaitableSet {
        members: u32,
        num_waiting: u32,
    },
    Shared {
        is_stream: bool,
        /// The stream's or future's type, as the runtime identifies it.
        ty: u32,
        readable_dropped: bool,
        writable_dropped: bool,
    },
    End {
        shared: EntryId,
        readable: bool,
        is_stream: bool,
        /// A future's writable end: whether its value was written.
        done: bool,
        waitable: WaitableState,
    },
    ErrorContext {
        message: String,
    },
}

impl State {
    fn kind(&self) -> Kind {
        match self {
            State::Task(_) => Kind::Task,
            State::Subtask { .. } => Kind::Subtask,
            State::WaitableSet { .. } => Kind::WaitableSet,
            State::Shared { is_stream: true, .. } => Kind::Stream,
            State::Shared { is_stream: false, .. } => Kind::Future,
            State::End {
                readable, is_stream, ..
            } => match (is_stream, readable) {
                (true, true) => Kind::ReadableStream,
                (true, false) => Kind::WritableStream,
                (false, true) => Kind::ReadableFuture,
                (false, false) => Kind::WritableFuture,
            },
            State::ErrorContext { .. } => Kind::ErrorContext,
        }
    }

    fn waitable(&mut self) -> Option<&mut WaitableState> {
        match self {
            State::Subtask { waitable, .. } | State::End { waitable, .. } => Some(waitable),
            _ => None,
        }
    }
}

#[derive(Debug)]
struct Entry {
    refs: u32,
    state: State,
}

/// A free list over a `Vec` of optional slots.
#[derive(Debug)]
struct Slab<T> {
    slots: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab {
            slots: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> Slab<T> {
    fn insert(&mut self, value: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(value);
                i
            }
            None => {
                self.slots.push(Some(value));
                (self.slots.len() - 1) as u32
            }
        }
    }

    fn get(&self, i: u32) -> Option<&T> {
        self.slots.get(i as usize).and_then(Option::as_ref)
    }

    fn get_mut(&mut self, i: u32) -> Option<&mut T> {
        self.slots.get_mut(i as usize).and_then(Option::as_mut)
    }

    fn remove(&mut self, i: u32) -> Option<T> {
        let v = self.slots.get_mut(i as usize)?.take()?;
        self.free.push(i);
        Some(v)
    }

    fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

/// One component instance's handle table: index -> entry. Index 0 is
/// reserved (it is the "none" sentinel of `waitable.join`).
#[derive(Debug)]
struct HandleTable {
    slab: Slab<EntryId>,
}

impl Default for HandleTable {
    fn default() -> Self {
        let mut slab = Slab::default();
        slab.slots.push(None);
        HandleTable { slab }
    }
}

/// The store-wide table of the async ABI (see the crate documentation).
#[derive(Debug, Default)]
pub struct Tasks {
    entries: Slab<Entry>,
    instances: Vec<HandleTable>,
}

impl Tasks {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// A new, empty handle table for a component instance.
    pub fn new_instance(&mut self) -> InstanceId {
        self.instances.push(HandleTable::default());
        InstanceId((self.instances.len() - 1) as u32)
    }

    /// The number of live entries (for tests and leak checks).
    pub fn live_entries(&self) -> usize {
        self.entries.len()
    }

    /// The number of handles in `inst`'s table.
    pub fn live_handles(&self, inst: InstanceId) -> usize {
        self.instances.get(inst.0 as usize).map_or(0, |t| t.slab.len() - 1)
    }

    fn new_entry(&mut self, state: State) -> EntryId {
        EntryId(self.entries.insert(Entry { refs: 1, state }))
    }

    fn entry(&self, id: EntryId) -> Result<&Entry, TaskError> {
        self.entries.get(id.0).ok_or(TaskError::Stale)
    }

    fn entry_mut(&mut self, id: EntryId) -> Result<&mut Entry, TaskError> {
        self.entries.get_mut(id.0).ok_or(TaskError::Stale)
    }

    /// Adds a reference to `id`.
    pub fn acquire(&mut self, id: EntryId) -> Result<(), TaskError> {
        let e = self.entry_mut(id)?;
        e.refs = e.refs.checked_add(1).ok_or(TaskError::Stale)?;
        Ok(())
    }

    /// Removes a reference to `id`; at zero the entry is freed and the
    /// references it holds (its stream's shared state, its waitable set)
    /// are released in turn.
    pub fn release(&mut self, id: EntryId) -> Result<(), TaskError> {
        let e = self.entry_mut(id)?;
        e.refs -= 1;
        if e.refs > 0 {
            return Ok(());
        }
        let Some(entry) = self.entries.remove(id.0) else {
            return Err(TaskError::Stale);
        };
        match entry.state {
            State::End { shared, waitable, .. } => {
                self.release(shared)?;
                if let Some(set) = waitable.set {
                    self.leave_set(set)?;
                }
            }
            State::Subtask { waitable, .. } => {
                if let Some(set) = waitable.set {
                    self.leave_set(set)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The kind of the entry at `id`, if it is live.
    pub fn kind_of(&self, id: EntryId) -> Option<Kind> {
        self.entries.get(id.0).map(|e| e.state.kind())
    }

    /// The reference count of `id` (0 once freed).
    pub fn refs(&self, id: EntryId) -> u32 {
        self.entries.get(id.0).map_or(0, |e| e.refs)
    }

    fn table(&mut self, inst: InstanceId) -> Result<&mut HandleTable, TaskError> {
        self.instances.get_mut(inst.0 as usize).ok_or(TaskError::Stale)
    }

    /// Gives `inst` a handle to `id`, moving one reference of `id` (the
    /// caller's) into the handle.
    fn add_handle(&mut self, inst: InstanceId, id: EntryId) -> Result<u32, TaskError> {
        let table = self.table(inst)?;
        if table.slab.len() as u32 > MAX_HANDLES {
            return Err(TaskError::TableFull);
        }
        Ok(table.slab.insert(id))
    }

    /// The entry a handle of `inst` names.
    pub fn handle(&self, inst: InstanceId, index: u32) -> Result<EntryId, TaskError> {
        self.instances
            .get(inst.0 as usize)
            .ok_or(TaskError::Stale)?
            .slab
            .get(index)
            .copied()
            .ok_or(TaskError::NoHandle(index))
    }

    /// The kind of the entry a handle of `inst` names.
    pub fn handle_kind(&self, inst: InstanceId, index: u32) -> Result<Kind, TaskError> {
        Ok(self.entry(self.handle(inst, index)?)?.state.kind())
    }

    fn handle_of(&self, inst: InstanceId, index: u32, kind: Kind) -> Result<EntryId, TaskError> {
        let id = self.handle(inst, index)?;
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

    /// Removes a handle of `inst` after `check` accepts its entry, and
    /// releases the handle's reference.
    fn drop_handle(
        &mut self,
        inst: InstanceId,
        index: u32,
        kind: Kind,
        check: impl FnOnce(&State) -> Result<(), TaskError>,
    ) -> Result<(), TaskError> {
        let id = self.handle_of(inst, index, kind)?;
        check(&self.entry(id)?.state)?;
        self.table(inst)?.slab.remove(index);
        self.release(id)
    }

    // Tasks.

    /// A new task (held by the caller: one reference, to release when the
    /// call ends).
    pub fn new_task(&mut self, is_async: bool) -> EntryId {
        self.new_entry(State::Task(TaskState {
            is_async,
            context: [0; CONTEXT_SLOTS],
            returned: false,
            cancelled: false,
        }))
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

    /// `context.get`.
    pub fn context_get(&self, task: EntryId, slot: u32) -> Result<u32, TaskError> {
        let t = self.task(task)?;
        t.context
            .get(slot as usize)
            .copied()
            .ok_or(TaskError::ContextSlot(slot))
    }

    /// `context.set`.
    pub fn context_set(&mut self, task: EntryId, slot: u32, value: u32) -> Result<(), TaskError> {
        let t = self.task_mut(task)?;
        let s = t.context.get_mut(slot as usize).ok_or(TaskError::ContextSlot(slot))?;
        *s = value;
        Ok(())
    }

    /// Records that the task returned (`task.return`, or the end of a
    /// synchronous call); fails if it already returned or cancelled.
    pub fn task_return(&mut self, task: EntryId) -> Result<(), TaskError> {
        let t = self.task_mut(task)?;
        if t.returned || t.cancelled {
            return Err(TaskError::TaskResolved);
        }
        t.returned = true;
        Ok(())
    }

    // Subtasks.

    /// A subtask of `inst` in state `status`, with a handle (returned).
    pub fn new_subtask(&mut self, inst: InstanceId, status: SubtaskStatus) -> Result<u32, TaskError> {
        let id = self.new_entry(State::Subtask {
            status,
            resolve_delivered: false,
            waitable: WaitableState::default(),
        });
        self.add_handle(inst, id).inspect_err(|_| {
            let _ = self.release(id);
        })
    }

    /// Records that a subtask resolved (with its pending `SUBTASK` event).
    pub fn resolve_subtask(&mut self, inst: InstanceId, index: u32, status: SubtaskStatus) -> Result<(), TaskError> {
        let id = self.handle_of(inst, index, Kind::Subtask)?;
        if let State::Subtask {
            status: s, waitable, ..
        } = &mut self.entry_mut(id)?.state
        {
            *s = status;
            waitable.pending = Some((EVENT_SUBTASK, status as u32));
        }
        Ok(())
    }

    /// `subtask.drop`: traps unless the subtask's resolution was delivered.
    pub fn subtask_drop(&mut self, inst: InstanceId, index: u32) -> Result<(), TaskError> {
        self.drop_handle(inst, index, Kind::Subtask, |s| match s {
            State::Subtask {
                resolve_delivered: true,
                ..
            } => Ok(()),
            _ => Err(TaskError::SubtaskNotResolved),
        })
    }

    // Waitable sets.

    /// `waitable-set.new`.
    pub fn waitable_set_new(&mut self, inst: InstanceId) -> Result<u32, TaskError> {
        let id = self.new_entry(State::WaitableSet {
            members: 0,
            num_waiting: 0,
        });
        self.add_handle(inst, id).inspect_err(|_| {
            let _ = self.release(id);
        })
    }

    /// `waitable-set.drop`: traps while waitables are joined or a task
    /// waits on it.
    pub fn waitable_set_drop(&mut self, inst: InstanceId, index: u32) -> Result<(), TaskError> {
        self.drop_handle(inst, index, Kind::WaitableSet, |s| match s {
            State::WaitableSet { members, .. } if *members > 0 => Err(TaskError::SetHasWaitables),
            State::WaitableSet { num_waiting, .. } if *num_waiting > 0 => Err(TaskError::SetHasWaiters),
            _ => Ok(()),
        })
    }

    fn leave_set(&mut self, set: EntryId) -> Result<(), TaskError> {
        if let State::WaitableSet { members, .. } = &mut self.entry_mut(set)?.state {
            *members = members.saturating_sub(1);
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
        if let Some(set) = set {
            self.acquire(set)?;
            if let State::WaitableSet { members, .. } = &mut self.entry_mut(set)?.state {
                *members += 1;
            }
        }
        if let Some(old) = old {
            self.leave_set(old)?;
        }
        Ok(())
    }

    /// `waitable-set.poll` without cancellation: the event of a member
    /// with one pending, as (code, waitable index, payload), or
    /// `(EVENT_NONE, 0, 0)`. Delivering a subtask's event marks its
    /// resolution delivered.
    pub fn waitable_set_poll(&mut self, inst: InstanceId, si: u32) -> Result<(u32, u32, u32), TaskError> {
        let set = self.handle_of(inst, si, Kind::WaitableSet)?;
        let table = &self.instances.get(inst.0 as usize).ok_or(TaskError::Stale)?.slab;
        let mut found = None;
        for (index, slot) in table.slots.iter().enumerate() {
            let Some(id) = slot else { continue };
            let Some(entry) = self.entries.get_mut(id.0) else {
                continue;
            };
            if let Some(w) = entry.state.waitable() {
                if w.set == Some(set) && w.pending.is_some() {
                    found = Some((index as u32, *id));
                    break;
                }
            }
        }
        let Some((index, id)) = found else {
            return Ok((EVENT_NONE, 0, 0));
        };
        let entry = self.entry_mut(id)?;
        let (code, payload) = entry
            .state
            .waitable()
            .and_then(|w| w.pending.take())
            .ok_or(TaskError::Stale)?;
        if let State::Subtask { resolve_delivered, .. } = &mut entry.state {
            *resolve_delivered = true;
        }
        Ok((code, index, payload))
    }

    // Streams and futures.

    fn new_copyable(&mut self, inst: InstanceId, is_stream: bool, ty: u32) -> Result<(u32, u32), TaskError> {
        let shared = self.new_entry(State::Shared {
            is_stream,
            ty,
            readable_dropped: false,
            writable_dropped: false,
        });
        // Each end holds one reference to the shared state.
        self.acquire(shared)?;
        let end = |readable| State::End {
            shared,
            readable,
            is_stream,
            done: false,
            waitable: WaitableState::default(),
        };
        let r = self.new_entry(end(true));
        let w = self.new_entry(end(false));
        let ri = self.add_handle(inst, r);
        let wi = ri.clone().and_then(|_| self.add_handle(inst, w));
        match (ri, wi) {
            (Ok(ri), Ok(wi)) => Ok((ri, wi)),
            (ri, _) => {
                if let Ok(ri) = ri {
                    self.table(inst)?.slab.remove(ri);
                }
                self.release(r)?;
                self.release(w)?;
                Err(TaskError::TableFull)
            }
        }
    }

    /// `stream.new`: the readable and writable ends' handles. `ty`
    /// identifies the stream type for the type checks of the other
    /// built-ins.
    pub fn stream_new(&mut self, inst: InstanceId, ty: u32) -> Result<(u32, u32), TaskError> {
        self.new_copyable(inst, true, ty)
    }

    /// `future.new` (see [`Tasks::stream_new`]).
    pub fn future_new(&mut self, inst: InstanceId, ty: u32) -> Result<(u32, u32), TaskError> {
        self.new_copyable(inst, false, ty)
    }

    /// Checks that handle `index` of `inst` is an end of `kind` of a stream
    /// or future of type `ty`.
    pub fn check_end(&self, inst: InstanceId, index: u32, kind: Kind, ty: u32) -> Result<(), TaskError> {
        let id = self.handle_of(inst, index, kind)?;
        let State::End { shared, .. } = self.entry(id)?.state else {
            return Err(TaskError::Stale);
        };
        match self.entry(shared)?.state {
            State::Shared { ty: t, .. } if t == ty => Ok(()),
            _ => Err(TaskError::WrongType(index)),
        }
    }

    /// `{stream,future}.drop-{readable,writable}`: `kind` says which end.
    /// The writable end of a future traps unless its value was written.
    pub fn drop_end(&mut self, inst: InstanceId, index: u32, kind: Kind, ty: u32) -> Result<(), TaskError> {
        self.check_end(inst, index, kind, ty)?;
        let id = self.handle(inst, index)?;
        let (shared, readable) = match self.entry(id)?.state {
            State::End {
                shared,
                readable,
                is_stream,
                done,
                ..
            } => {
                if !is_stream && !readable && !done {
                    return Err(TaskError::FutureNotWritten);
                }
                (shared, readable)
            }
            _ => return Err(TaskError::Stale),
        };
        if let State::Shared {
            readable_dropped,
            writable_dropped,
            ..
        } = &mut self.entry_mut(shared)?.state
        {
            if readable {
                *readable_dropped = true;
            } else {
                *writable_dropped = true;
            }
        }
        self.table(inst)?.slab.remove(index);
        self.release(id)
    }

    /// Whether the other end of the stream or future that handle `index`
    /// of `inst` is an end of was dropped.
    pub fn peer_dropped(&self, inst: InstanceId, index: u32) -> Result<bool, TaskError> {
        let id = self.handle(inst, index)?;
        let State::End { shared, readable, .. } = self.entry(id)?.state else {
            return Err(TaskError::Stale);
        };
        match self.entry(shared)?.state {
            State::Shared {
                readable_dropped,
                writable_dropped,
                ..
            } => Ok(if readable { writable_dropped } else { readable_dropped }),
            _ => Err(TaskError::Stale),
        }
    }

    // Error contexts.

    /// `error-context.new` with its debug message.
    pub fn error_context_new(&mut self, inst: InstanceId, message: String) -> Result<u32, TaskError> {
        let id = self.new_entry(State::ErrorContext { message });
        self.add_handle(inst, id).inspect_err(|_| {
            let _ = self.release(id);
        })
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
}

/// `EventCode.NONE`.
pub const EVENT_NONE: u32 = 0;
/// `EventCode.SUBTASK`.
pub const EVENT_SUBTASK: u32 = 1;
