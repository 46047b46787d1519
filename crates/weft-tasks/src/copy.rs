//! Streams and futures: the rendezvous of a reader's and a writer's
//! buffers (CanonicalABI.md, *Buffer State*, *Stream State*, *Future
//! State* and the `stream.*`/`future.*` built-ins). The bytes themselves
//! are moved by the runtime: this module says what to copy where
//! ([`Transfer`]) and keeps the progress, states and events.

mod host;

pub use host::PeerCopy;

use crate::table::{Pending, State, Tasks, WaitableState};
use crate::{
    EntryId, Event, InstanceId, Kind, TaskError, EVENT_FUTURE_READ, EVENT_FUTURE_WRITE, EVENT_STREAM_READ,
    EVENT_STREAM_WRITE,
};

/// `CopyResult.COMPLETED`.
pub const COPY_COMPLETED: u32 = 0;
/// `CopyResult.DROPPED`.
pub const COPY_DROPPED: u32 = 1;
/// `CopyResult.CANCELLED`.
pub const COPY_CANCELLED: u32 = 2;
/// The most elements one copy may name (`Buffer.MAX_LENGTH`).
pub const MAX_BUFFER_LENGTH: u32 = (1 << 28) - 1;

/// A guest buffer of a copy: `len` elements of `elem_size` bytes at `ptr`
/// in the memory of the options the runtime knows as `cx`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Buffer {
    /// The runtime's identifier of the options (memory, realloc, encoding)
    /// the buffer lives in.
    pub cx: u32,
    /// Its address.
    pub ptr: u32,
    /// Its length in elements.
    pub len: u32,
    /// The elements copied so far.
    pub progress: u32,
    /// The size of an element (0 for streams of no type).
    pub elem_size: u32,
}

impl Buffer {
    fn remain(&self) -> u32 {
        self.len - self.progress
    }

    /// The address of the next element.
    fn at(&self) -> u32 {
        self.ptr.wrapping_add(self.progress.wrapping_mul(self.elem_size))
    }
}

/// Elements the runtime must move now: `n` from `src` to `dst`, each
/// `(cx, address)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transfer {
    /// Where they are read.
    pub src: (u32, u32),
    /// Where they are written.
    pub dst: (u32, u32),
    /// How many.
    pub n: u32,
}

/// The copy state of an end (`CopyState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyState {
    /// No copy in progress.
    Idle,
    /// A copy in progress.
    Copying,
    /// A copy being cancelled.
    Cancelling,
    /// Finished for good.
    Done,
}

impl CopyState {
    /// A copy is in progress (perhaps being cancelled).
    fn is_waiting(self) -> bool {
        matches!(self, CopyState::Copying | CopyState::Cancelling)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct SharedState {
    pub(crate) is_stream: bool,
    /// Whether values may be copied within one instance (no type, or a
    /// number type).
    numeric: bool,
    /// One end was dropped.
    dropped: bool,
    /// The end whose buffer waits for the other side, and the instance
    /// that started that copy.
    pending: Option<(EntryId, InstanceId)>,
}

#[derive(Debug, Clone)]
pub(crate) struct EndState {
    pub(crate) shared: EntryId,
    pub(crate) readable: bool,
    pub(crate) is_stream: bool,
    /// The type the holder's built-ins must name.
    ty: u32,
    copy: CopyState,
    buffer: Option<Buffer>,
    pub(crate) waitable: WaitableState,
}

/// What was done to an end in a state that does not allow it.
#[derive(Clone, Copy)]
enum Misuse {
    Copy,
    Drop,
    Lift,
    LiftInSet,
}

impl EndState {
    /// The trap of `misuse` of this end in its state, with the reference
    /// tests' wording.
    fn misuse(&self, misuse: Misuse) -> TaskError {
        let done = self.copy == CopyState::Done;
        TaskError::Trap(match (misuse, self.is_stream, self.readable, done) {
            (Misuse::Copy, true, true, true) => {
                "cannot read from stream after being notified that the writable end dropped"
            }
            (Misuse::Copy, true, false, true) => {
                "cannot write to stream after being notified that the readable end dropped"
            }
            (Misuse::Copy, false, true, true) => "cannot read from future after previous read succeeded",
            (Misuse::Copy, false, false, true) => {
                "cannot write to future after previous write succeeded or readable end dropped"
            }
            (Misuse::Copy, ..) => "cannot have concurrent operations active on a future/stream",
            (Misuse::Drop, true, true, _) => "cannot remove busy stream",
            (Misuse::Drop, true, false, _) => "cannot drop busy stream",
            (Misuse::Drop, false, true, _) => "cannot remove busy future",
            (Misuse::Drop, false, false, _) => "cannot drop busy future",
            (Misuse::Lift, true, _, true) => "cannot lift stream after being notified that the writable end dropped",
            (Misuse::Lift, false, _, true) => "cannot lift future after previous read succeeded",
            (Misuse::Lift, true, ..) => "cannot remove busy stream",
            (Misuse::Lift, false, ..) => "cannot remove busy future",
            (Misuse::LiftInSet, true, ..) => "cannot lift stream while it's in a waitable set",
            (Misuse::LiftInSet, false, ..) => "cannot lift future while it's in a waitable set",
        })
    }

    /// Gives the end the type tag of a new holder.
    pub(crate) fn retag(&mut self, ty: u32) {
        self.ty = ty;
    }
}

/// What a started copy did at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyStart {
    /// The end that started the copy.
    pub end: EntryId,
    /// Elements to move now, if the other side was waiting.
    pub transfer: Option<Transfer>,
}

impl Tasks {
    fn end(&self, id: EntryId) -> Result<&EndState, TaskError> {
        match &self.entry(id)?.state {
            State::End(e) => Ok(e),
            _ => Err(TaskError::Stale),
        }
    }

    fn end_mut(&mut self, id: EntryId) -> Result<&mut EndState, TaskError> {
        match &mut self.entry_mut(id)?.state {
            State::End(e) => Ok(e),
            _ => Err(TaskError::Stale),
        }
    }

    fn shared_mut(&mut self, id: EntryId) -> Result<&mut SharedState, TaskError> {
        match &mut self.entry_mut(id)?.state {
            State::Shared(s) => Ok(s),
            _ => Err(TaskError::Stale),
        }
    }

    fn new_copyable(
        &mut self,
        inst: InstanceId,
        is_stream: bool,
        ty: u32,
        numeric: bool,
    ) -> Result<(u32, u32), TaskError> {
        let (r, w) = self.host_copyable_new(is_stream, ty, numeric)?;
        let ri = self.add_handle(inst, r);
        let wi = ri.clone().and_then(|_| self.add_handle(inst, w));
        match (ri, wi) {
            (Ok(ri), Ok(wi)) => Ok((ri, wi)),
            (ri, _) => {
                if let Ok(ri) = ri {
                    self.take_handle(inst, ri)?;
                }
                self.release(r)?;
                self.release(w)?;
                Err(TaskError::TableFull)
            }
        }
    }

    /// `stream.new`: the readable and writable ends' handles. `ty`
    /// identifies the stream type for the type checks of the other
    /// built-ins; `numeric` says whether its elements may be copied within
    /// one instance (no type or a number type).
    pub fn stream_new(&mut self, inst: InstanceId, ty: u32, numeric: bool) -> Result<(u32, u32), TaskError> {
        self.new_copyable(inst, true, ty, numeric)
    }

    /// `future.new` (see [`Tasks::stream_new`]).
    pub fn future_new(&mut self, inst: InstanceId, ty: u32, numeric: bool) -> Result<(u32, u32), TaskError> {
        self.new_copyable(inst, false, ty, numeric)
    }

    /// The end handle `index` of `inst` names, checked to be of `kind` and
    /// of a stream or future of type `ty`.
    pub fn check_end(&self, inst: InstanceId, index: u32, kind: Kind, ty: u32) -> Result<EntryId, TaskError> {
        let id = self.handle_of(inst, index, kind)?;
        if self.end(id)?.ty != ty {
            return Err(TaskError::WrongType(index));
        }
        Ok(id)
    }

    /// Re-types an end that moved into another instance (`ty` as its new
    /// holder names the type).
    pub fn retype_end(&mut self, inst: InstanceId, index: u32, ty: u32) -> Result<(), TaskError> {
        let id = self.handle(inst, index)?;
        self.end_mut(id)?.ty = ty;
        Ok(())
    }

    /// Starts a copy (`stream.read`/`write`, `future.read`/`write`) on end
    /// `index` of `inst` with `buffer` (its `progress` must be 0). After
    /// moving [`CopyStart::transfer`], the runtime delivers the end's event
    /// if it has one ([`Tasks::take_event`]), else waits (synchronous) or
    /// returns `BLOCKED`.
    pub fn copy(
        &mut self,
        inst: InstanceId,
        index: u32,
        kind: Kind,
        ty: u32,
        is_async: bool,
        buffer: Buffer,
    ) -> Result<CopyStart, TaskError> {
        let id = self.check_end(inst, index, kind, ty)?;
        let e = self.end(id)?;
        if e.copy != CopyState::Idle {
            return Err(e.misuse(Misuse::Copy));
        }
        if e.waitable.set.is_some() && !is_async {
            return Err(TaskError::SyncWaiter);
        }
        if buffer.len > MAX_BUFFER_LENGTH {
            return Err(TaskError::Trap("the buffer is longer than the maximum length"));
        }
        let (shared_id, readable, is_stream) = (e.shared, e.readable, e.is_stream);
        let shared = match &self.entry(shared_id)?.state {
            State::Shared(s) => s.clone(),
            _ => return Err(TaskError::Stale),
        };
        // Like every trap, this one leaves the end as it was.
        if !shared.dropped && shared.pending.is_some_and(|(_, i)| i == inst) && !shared.numeric {
            return Err(TaskError::Trap(if is_stream {
                "cannot read from and write to intra-component stream"
            } else {
                "cannot read from and write to intra-component future"
            }));
        }
        let end = self.end_mut(id)?;
        end.copy = CopyState::Copying;
        end.buffer = Some(buffer);
        let done = |result| Pending::Copy { result, reclaim: false };
        if shared.dropped {
            self.set_pending(id, done(COPY_DROPPED))?;
            return Ok(CopyStart {
                end: id,
                transfer: None,
            });
        }
        let Some((other, _)) = shared.pending else {
            self.shared_mut(shared_id)?.pending = Some((id, inst));
            return Ok(CopyStart {
                end: id,
                transfer: None,
            });
        };
        let theirs = self.end(other)?.buffer.ok_or(TaskError::Stale)?;
        if !is_stream {
            // A future: one value, and both sides are done.
            let transfer = self.advance(id, other, readable, 1)?;
            self.shared_mut(shared_id)?.pending = None;
            self.set_pending(other, done(COPY_COMPLETED))?;
            self.set_pending(id, done(COPY_COMPLETED))?;
            return Ok(CopyStart { end: id, transfer });
        }
        if theirs.remain() > 0 {
            let mut transfer = None;
            if buffer.remain() > 0 {
                let n = buffer.remain().min(theirs.remain());
                transfer = self.advance(id, other, readable, n)?;
                self.set_pending(
                    other,
                    Pending::Copy {
                        result: COPY_COMPLETED,
                        reclaim: true,
                    },
                )?;
            }
            self.set_pending(id, done(COPY_COMPLETED))?;
            Ok(CopyStart { end: id, transfer })
        } else if !readable && buffer.len == 0 && theirs.len == 0 {
            self.set_pending(id, done(COPY_COMPLETED))?;
            Ok(CopyStart {
                end: id,
                transfer: None,
            })
        } else {
            // Their zero-length buffer is done; ours waits in its place.
            self.set_pending(other, done(COPY_COMPLETED))?;
            self.shared_mut(shared_id)?.pending = Some((id, inst));
            Ok(CopyStart {
                end: id,
                transfer: None,
            })
        }
    }

    /// Advances the buffers of `ours` and `theirs` by `n`, and says what to
    /// move (from the writer to the reader).
    fn advance(
        &mut self,
        ours: EntryId,
        theirs: EntryId,
        we_read: bool,
        n: u32,
    ) -> Result<Option<Transfer>, TaskError> {
        let a = self.end(ours)?.buffer.ok_or(TaskError::Stale)?;
        let b = self.end(theirs)?.buffer.ok_or(TaskError::Stale)?;
        let (src, dst) = if we_read { (b, a) } else { (a, b) };
        for id in [ours, theirs] {
            if let Some(buf) = self.end_mut(id)?.buffer.as_mut() {
                buf.progress += n;
            }
        }
        Ok(Some(Transfer {
            src: (src.cx, src.at()),
            dst: (dst.cx, dst.at()),
            n,
        }))
    }

    fn set_pending(&mut self, end: EntryId, pending: Pending) -> Result<(), TaskError> {
        self.end_mut(end)?.waitable.pending = Some(pending);
        Ok(())
    }

    /// Delivers a copy event of end `w` (see `copy`).
    pub(crate) fn deliver_copy_event(
        &mut self,
        w: EntryId,
        index: u32,
        result: u32,
        reclaim: bool,
    ) -> Result<Event, TaskError> {
        let e = self.end(w)?;
        let shared = e.shared;
        if reclaim {
            let s = self.shared_mut(shared)?;
            if s.pending.is_some_and(|(p, _)| p == w) {
                s.pending = None;
            }
        }
        let e = self.end_mut(w)?;
        let progress = e.buffer.map_or(0, |b| b.progress);
        // A stream copy cancelled after it made progress reports the
        // cancellation with its count (the reference tests' behaviour).
        let result = if e.is_stream && e.copy == CopyState::Cancelling && result == COPY_COMPLETED {
            COPY_CANCELLED
        } else {
            result
        };
        let code = match (e.is_stream, e.readable) {
            (true, true) => EVENT_STREAM_READ,
            (true, false) => EVENT_STREAM_WRITE,
            (false, true) => EVENT_FUTURE_READ,
            (false, false) => EVENT_FUTURE_WRITE,
        };
        let payload = if e.is_stream {
            e.copy = if result == COPY_DROPPED {
                CopyState::Done
            } else {
                CopyState::Idle
            };
            result | progress << 4
        } else {
            e.copy = if result == COPY_DROPPED || result == COPY_COMPLETED {
                CopyState::Done
            } else {
                CopyState::Idle
            };
            result
        };
        e.buffer = None;
        Ok(Event { code, index, payload })
    }

    /// The checks of `{stream,future}.cancel-{read,write}` on end `index`,
    /// and the cancellation itself: the end, with its event pending if the
    /// cancellation finished at once.
    pub fn cancel_copy(
        &mut self,
        inst: InstanceId,
        index: u32,
        kind: Kind,
        ty: u32,
        is_async: bool,
    ) -> Result<EntryId, TaskError> {
        self.cancel_copy_with(inst, index, kind, ty, is_async, false)
    }

    /// [`Tasks::cancel_copy`] of a copy whose other end is held by the
    /// host and served by a producer or consumer the runtime drives: the
    /// copy, if it still waits, stays waiting, now cancelling
    /// ([`PeerCopy::Waiting`]'s `cancelling`), for the host to finish it
    /// with what it moved ([`Tasks::host_advance`]) or with nothing
    /// ([`Tasks::host_cancelled`]).
    pub fn cancel_copy_deferred(
        &mut self,
        inst: InstanceId,
        index: u32,
        kind: Kind,
        ty: u32,
        is_async: bool,
    ) -> Result<EntryId, TaskError> {
        self.cancel_copy_with(inst, index, kind, ty, is_async, true)
    }

    fn cancel_copy_with(
        &mut self,
        inst: InstanceId,
        index: u32,
        kind: Kind,
        ty: u32,
        is_async: bool,
        defer: bool,
    ) -> Result<EntryId, TaskError> {
        let id = self.check_end(inst, index, kind, ty)?;
        let e = self.end(id)?;
        if e.copy != CopyState::Copying || e.waitable.has_sync_waiter {
            return Err(TaskError::Trap("cannot cancel a copy that is not in progress"));
        }
        if e.waitable.set.is_some() && !is_async {
            return Err(TaskError::SyncWaiter);
        }
        let shared = e.shared;
        self.end_mut(id)?.copy = CopyState::Cancelling;
        if !defer && !self.has_pending_event(id) {
            let s = self.shared_mut(shared)?;
            if s.pending.is_some_and(|(p, _)| p == id) {
                s.pending = None;
                self.set_pending(
                    id,
                    Pending::Copy {
                        result: COPY_CANCELLED,
                        reclaim: false,
                    },
                )?;
            }
        }
        Ok(id)
    }

    /// `{stream,future}.drop-{readable,writable}`: `kind` says which end.
    /// Traps while a copy is in progress, and for the writable end of a
    /// future whose value was not written. A copy the other side has
    /// pending finishes `DROPPED`.
    pub fn drop_end(&mut self, inst: InstanceId, index: u32, kind: Kind, ty: u32) -> Result<(), TaskError> {
        let id = self.check_end(inst, index, kind, ty)?;
        let e = self.end(id)?;
        if matches!(e.copy, CopyState::Copying | CopyState::Cancelling) {
            return Err(e.misuse(Misuse::Drop));
        }
        if !e.is_stream && !e.readable && e.copy != CopyState::Done {
            return Err(TaskError::FutureNotWritten);
        }
        let shared = e.shared;
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
        let id = self.take_handle(inst, index)?;
        self.release(id)
    }

    /// Whether the stream or future that handle `index` of `inst` is an
    /// end of had an end dropped.
    pub fn peer_dropped(&self, inst: InstanceId, index: u32) -> Result<bool, TaskError> {
        let id = self.handle(inst, index)?;
        match &self.entry(self.end(id)?.shared)?.state {
            State::Shared(s) => Ok(s.dropped),
            _ => Err(TaskError::Stale),
        }
    }

    /// `lift_async_value`: takes the readable end `index` (of `kind`, type
    /// `ty`) out of `inst`, checked to be idle and in no waitable set; the
    /// caller holds its reference.
    pub fn lift_end(&mut self, inst: InstanceId, index: u32, kind: Kind, ty: u32) -> Result<EntryId, TaskError> {
        let id = self.check_end(inst, index, kind, ty)?;
        let e = self.end(id)?;
        if e.copy != CopyState::Idle {
            return Err(e.misuse(Misuse::Lift));
        }
        if e.waitable.set.is_some() {
            return Err(e.misuse(Misuse::LiftInSet));
        }
        self.take_handle(inst, index)
    }
}
