//! Stream and future ends held by the host (a host producer or consumer,
//! or a value the host keeps). A host end never waits in the rendezvous
//! with a buffer of its own: the runtime looks at the other end's copy
//! ([`Tasks::host_peer`]), moves elements into or out of its buffer, and
//! says how many it moved ([`Tasks::host_advance`]), which completes that
//! copy as the arrival of a guest's buffer would.

use super::{CopyState, EndState, SharedState};
use crate::table::{Pending, State, Tasks, WaitableState};
use crate::{EntryId, Kind, TaskError, COPY_CANCELLED, COPY_COMPLETED, COPY_DROPPED};

/// What the other end of a host-held end is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerCopy {
    /// No copy of the other end waits for elements now (none started,
    /// cancelled, or its last one has an event not yet delivered).
    Idle,
    /// A copy of the other end waits: `remain` elements fit (a read) or
    /// are offered (a write) at `ptr` with the options of copy context
    /// `cx` (a `remain` of 0 is a zero-length copy waiting for readiness).
    Waiting {
        /// The copy context (options) of the buffer.
        cx: u32,
        /// The address of the next element.
        ptr: u32,
        /// The elements left in the buffer.
        remain: u32,
        /// The copy is being cancelled
        /// ([`Tasks::cancel_copy_deferred`]): the host should finish it
        /// as soon as it can, with what it has.
        cancelling: bool,
    },
    /// The other end was dropped.
    Dropped,
}

impl Tasks {
    /// A new stream (`is_stream`) or future whose readable and writable
    /// ends are both held by the host, one reference each and no handle:
    /// `(readable, writable)`. `ty` and `numeric` as for
    /// [`Tasks::stream_new`] (the type tag is replaced when an end is
    /// lowered into an instance).
    pub fn host_copyable_new(
        &mut self,
        is_stream: bool,
        ty: u32,
        numeric: bool,
    ) -> Result<(EntryId, EntryId), TaskError> {
        let shared = self.new_entry(State::Shared(SharedState {
            is_stream,
            numeric,
            dropped: false,
            pending: None,
        }));
        // Each end holds one reference to the shared state.
        self.acquire(shared)?;
        let end = |readable| {
            State::End(EndState {
                shared,
                readable,
                is_stream,
                ty,
                copy: CopyState::Idle,
                buffer: None,
                waitable: WaitableState::default(),
            })
        };
        let r = self.new_entry(end(true));
        let w = self.new_entry(end(false));
        Ok((r, w))
    }

    /// The shared state of the stream or future `end` belongs to (stable
    /// while any end of it lives).
    pub fn end_shared(&self, end: EntryId) -> Result<EntryId, TaskError> {
        Ok(self.end(end)?.shared)
    }

    /// The shared state of the stream or future whose end handle `index`
    /// of `inst` names.
    pub fn end_shared_at(&self, inst: crate::InstanceId, index: u32) -> Result<EntryId, TaskError> {
        self.end_shared(self.handle(inst, index)?)
    }

    /// Whether `id` is a live stream or future end.
    pub fn is_end(&self, id: EntryId) -> bool {
        matches!(
            self.kind_of(id),
            Some(Kind::ReadableStream | Kind::WritableStream | Kind::ReadableFuture | Kind::WritableFuture)
        )
    }

    /// What the other end of the host-held `end` is doing.
    pub fn host_peer(&self, end: EntryId) -> Result<PeerCopy, TaskError> {
        let shared = self.end(end)?.shared;
        let s = match &self.entry(shared)?.state {
            State::Shared(s) => s,
            _ => return Err(TaskError::Stale),
        };
        if s.dropped {
            return Ok(PeerCopy::Dropped);
        }
        let Some((peer, _)) = s.pending.filter(|(p, _)| *p != end) else {
            return Ok(PeerCopy::Idle);
        };
        let e = self.end(peer)?;
        if !e.copy.is_waiting() || e.waitable.pending.is_some() {
            return Ok(PeerCopy::Idle);
        }
        let Some(buf) = e.buffer else {
            return Ok(PeerCopy::Idle);
        };
        Ok(PeerCopy::Waiting {
            cx: buf.cx,
            ptr: buf.at(),
            remain: buf.remain(),
            cancelling: e.copy == CopyState::Cancelling,
        })
    }

    /// Records that the host moved `n` elements into or out of the buffer
    /// of the copy the other end of the host-held `end` waits with
    /// ([`PeerCopy::Waiting`]), and completes that copy: its event is
    /// pending (a stream's reports the progress; a future's is done).
    pub fn host_advance(&mut self, end: EntryId, n: u32) -> Result<(), TaskError> {
        let (shared, is_stream) = {
            let e = self.end(end)?;
            (e.shared, e.is_stream)
        };
        let peer = self.host_waiting_peer(end)?;
        let Some(buf) = self.end_mut(peer)?.buffer.as_mut() else {
            return Err(TaskError::Stale);
        };
        if n > buf.remain() || (!is_stream && n != 1) {
            return Err(TaskError::Trap("the host moved more elements than the buffer holds"));
        }
        buf.progress += n;
        if is_stream {
            self.set_pending(
                peer,
                Pending::Copy {
                    result: COPY_COMPLETED,
                    reclaim: true,
                },
            )
        } else {
            self.shared_mut(shared)?.pending = None;
            self.end_mut(end)?.copy = CopyState::Done;
            self.set_pending(
                peer,
                Pending::Copy {
                    result: COPY_COMPLETED,
                    reclaim: false,
                },
            )
        }
    }

    /// Finishes the other end's waiting copy, which is being cancelled
    /// ([`PeerCopy::Waiting`]'s `cancelling`), with nothing moved by the
    /// host in this poll: its event is pending, `CANCELLED` (a stream's
    /// with the count moved before).
    pub fn host_cancelled(&mut self, end: EntryId) -> Result<(), TaskError> {
        let peer = self.host_waiting_peer(end)?;
        if self.end(peer)?.copy != CopyState::Cancelling {
            return Err(TaskError::Trap("the host cancelled a copy the guest did not cancel"));
        }
        self.set_pending(
            peer,
            Pending::Copy {
                result: COPY_CANCELLED,
                reclaim: true,
            },
        )
    }

    /// The other end of the host-held `end`, whose copy waits for the host.
    fn host_waiting_peer(&self, end: EntryId) -> Result<EntryId, TaskError> {
        let shared = self.end(end)?.shared;
        let peer = match &self.entry(shared)?.state {
            State::Shared(s) => match s.pending {
                Some((p, _)) if p != end && !s.dropped => p,
                _ => return Err(TaskError::Stale),
            },
            _ => return Err(TaskError::Stale),
        };
        let e = self.end(peer)?;
        if !e.copy.is_waiting() || e.waitable.pending.is_some() || e.buffer.is_none() {
            return Err(TaskError::Stale);
        }
        Ok(peer)
    }

    /// Drops the host-held `end` (it has no handle and no copy of its
    /// own): the other end's waiting copy finishes `DROPPED`, and its later
    /// ones at once; the host's reference is released.
    pub fn drop_host_end(&mut self, end: EntryId) -> Result<(), TaskError> {
        let shared = self.end(end)?.shared;
        let s = self.shared_mut(shared)?;
        if !s.dropped {
            s.dropped = true;
            if let Some((p, _)) = s.pending.take() {
                self.set_pending(
                    p,
                    Pending::Copy {
                        result: COPY_DROPPED,
                        reclaim: false,
                    },
                )?;
            }
        }
        self.release(end)
    }
}
