//! The state of the component-model async ABI, as plain data.
//!
//! This crate owns the store-wide [`Tasks`] table: every task, subtask,
//! waitable set, stream and future (their shared state and their readable
//! and writable ends) and error context of a store is an entry of it, and
//! each component instance has a handle table ([`Tasks::new_instance`])
//! whose indices (1, 2, ...; 0 is never used) are what core wasm sees.
//! Every entry counts its references: a guest handle, a membership of a
//! waitable set, an end's hold on its stream or future, a running call's
//! hold on its task. An entry is freed exactly when its count reaches zero,
//! never before and never by guessing that it is done. The state machines
//! follow `CanonicalABI.md` (*Waitable State*, *Subtask State*, *Stream
//! State*, *Future State*) as far as Weft runs them; every misuse the spec
//! traps on is a [`TaskError`].
//!
//! It never runs wasm, suspends, knows about code generation or a store's
//! memories, or uses `unsafe`: the runtime (`weft`) calls it and turns its
//! errors into traps.

#![forbid(unsafe_code)]

mod copy;
mod table;
mod task;
#[cfg(test)]
mod tests;

pub use copy::{
    Buffer, CopyStart, CopyState, Transfer, COPY_CANCELLED, COPY_COMPLETED, COPY_DROPPED, MAX_BUFFER_LENGTH,
};
pub use table::SubtaskStatus;
pub use table::{
    EntryId, Event, InstanceId, Kind, TaskError, Tasks, CONTEXT_SLOTS, EVENT_FUTURE_READ, EVENT_FUTURE_WRITE,
    EVENT_NONE, EVENT_STREAM_READ, EVENT_STREAM_WRITE, EVENT_SUBTASK, EVENT_TASK_CANCELLED, MAX_HANDLES,
};
pub use task::{CancelAction, SubtaskState, TaskPhase, TaskState, ThreadId, ThreadState, WaitFor};
