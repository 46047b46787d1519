//! The state of the component-model async ABI, as plain data.
//!
//! This crate owns the store-wide [`Tasks`] table: every task, thread,
//! subtask, waitable set, stream and future (their shared state and their
//! readable and writable ends) and error context of a store, and one handle
//! table per component instance ([`Tasks::new_instance`]) whose indices
//! (1, 2, ...; 0 is never used) are what core wasm sees; resource handles
//! take their indices from it too. Every entry counts its references (a
//! handle, a thread's hold on its task, an end's hold on its stream, a
//! subtask's hold on its callee task, a set membership); an entry is freed
//! exactly when its count reaches zero, never before and never by guessing
//! that it is done. The rules follow `CanonicalABI.md` (*Threads*, *Tasks*,
//! *Waitable State*, *Subtask State*, *Stream State*, *Future State* and the
//! `canon_*` built-ins): what a waiting thread waits for is data
//! ([`WaitFor`]) and [`Tasks::is_ready`] decides when it may run;
//! backpressure, exclusivity and cancellation requests are tracked here;
//! every misuse the spec traps on is a [`TaskError`].
//!
//! It never runs wasm, switches stacks, knows about code generation or a
//! store's memories, or uses `unsafe`: the runtime (`weft`) calls it, runs
//! the threads it says are ready, moves the bytes a stream copy names
//! ([`Transfer`]) and turns its errors into traps.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod copy;
mod table;
mod task;
#[cfg(test)]
mod tests;

pub use copy::{
    Buffer, CopyStart, CopyState, PeerCopy, Transfer, COPY_CANCELLED, COPY_COMPLETED, COPY_DROPPED, MAX_BUFFER_LENGTH,
};
pub use table::SubtaskStatus;
pub use table::{
    EntryId, Event, InstanceId, Kind, TaskError, Tasks, CONTEXT_SLOTS, EVENT_FUTURE_READ, EVENT_FUTURE_WRITE,
    EVENT_NONE, EVENT_STREAM_READ, EVENT_STREAM_WRITE, EVENT_SUBTASK, EVENT_TASK_CANCELLED, MAX_HANDLES,
};
pub use task::{CancelAction, SubtaskState, TaskPhase, TaskState, ThreadId, ThreadState, WaitFor};
