//! Streams and futures: `SharedStreamImpl`, `SharedFutureImpl`,
//! `CopyEnd`, `stream_copy`, `future_copy`, `cancel_copy` and the `drop`
//! of ends, and passing ends and error contexts between instances.

use super::*;

impl Model {
    pub fn new_copyable(&mut self, inst: Inst, is_stream: bool, ty: u32) -> R<Out> {
        let shared = self.new_obj(Obj::Shared {
            numeric: numeric(ty),
            dropped: false,
            pending: None,
        });
        let end = |kind| Obj::End {
            shared,
            kind,
            ty,
            state: CopyState::Idle,
            buf: None,
            w: Waitable::default(),
            index: 0,
        };
        let r = self.new_obj(end(EndKind::of(is_stream, true)));
        let w = self.new_obj(end(EndKind::of(is_stream, false)));
        let ri = self.add_handle(inst, r);
        let wi = self.add_handle(inst, w);
        Ok(Out::Pair(ri, wi))
    }

    /// The guards every end built-in starts with: the end at `i`, of
    /// `kind` and type `ty`.
    fn get_end(&self, inst: Inst, i: u32, kind: EndKind, ty: u32) -> R<Id> {
        let e = self.insts[inst].handles.get(i)?;
        match self.obj(e) {
            Obj::End { kind: k, ty: t, .. } => {
                trap_if(*k != kind, "wrong kind of end")?;
                trap_if(*t != ty, "wrong type")?;
                Ok(e)
            }
            _ => trap("not an end"),
        }
    }

    /// `on_copy_done(result)` of end `e`.
    fn on_copy_done(&mut self, e: Id, result: u32) {
        let (_, kind, ..) = self.end(e);
        self.waitable_mut(e).pending = Some(if kind.is_stream() {
            Pending::Stream { result, reclaim: false }
        } else {
            Pending::Future { result }
        });
    }

    /// `reset_and_notify_pending(result)`.
    fn reset_and_notify_pending(&mut self, shared: Id, result: u32) {
        let (_, pending) = self.shared_mut(shared);
        let (p, _) = pending.take().expect("model: nothing pending to notify");
        self.on_copy_done(p, result);
    }

    /// Moves `n` elements from the writer's buffer to the reader's.
    fn move_elems(&mut self, writer: Id, reader: Id, n: u32) -> (u32, u32, u32, u32, u32) {
        let src = self.end(writer).4.expect("model: writer without a buffer");
        let dst = self.end(reader).4.expect("model: reader without a buffer");
        assert!(n > 0 && n <= src.remain() && n <= dst.remain());
        for e in [writer, reader] {
            self.end_mut(e).1.as_mut().unwrap().progress += n;
        }
        (src.cx, src.at(), dst.cx, dst.at(), n)
    }

    /// `stream_copy`/`future_copy`: `sync` is the calling thread of a
    /// synchronous copy.
    #[allow(
        clippy::too_many_arguments,
        reason = "one parameter per argument of the spec's copy function"
    )]
    pub fn copy(
        &mut self,
        inst: Inst,
        i: u32,
        kind: EndKind,
        ty: u32,
        sync: Option<Tid>,
        cx: u32,
        ptr: u32,
        len: u32,
    ) -> R<Out> {
        let e = self.get_end(inst, i, kind, ty)?;
        let (shared, _, _, state, _, w) = self.end(e);
        trap_if(state != CopyState::Idle, "end not idle")?;
        trap_if(
            w.wset.is_some() && sync.is_some(),
            "synchronous copy of an end in a set",
        )?;
        trap_if(len > MAX_LENGTH, "buffer too long")?;
        let Obj::Shared {
            numeric,
            dropped,
            pending,
            ..
        } = self.obj(shared).clone()
        else {
            unreachable!()
        };
        // The `# temporary` trap of `read`/`write` (before anything moves).
        if let (false, Some((_, pinst))) = (dropped, pending) {
            trap_if(pinst == inst && !numeric, "intra-component copy")?;
        }
        let buf = Buf {
            cx,
            ptr,
            len,
            progress: 0,
            elem_size: elem_size(ty),
        };
        let (st, b, _) = self.end_mut(e);
        *st = CopyState::Copying;
        *b = Some(buf);
        let mut transfer = None;
        let readable = kind.readable();
        if kind.is_stream() {
            if dropped {
                self.on_copy_done(e, DROPPED);
            } else if let Some((p, _)) = pending {
                let theirs = self.end(p).4.unwrap();
                if theirs.remain() > 0 {
                    if buf.remain() > 0 {
                        let n = buf.remain().min(theirs.remain());
                        let (wr, rd) = if readable { (p, e) } else { (e, p) };
                        transfer = Some(self.move_elems(wr, rd, n));
                        // `pending_on_copy(self.reset_pending)`.
                        self.waitable_mut(p).pending = Some(Pending::Stream {
                            result: COMPLETED,
                            reclaim: true,
                        });
                    }
                    self.on_copy_done(e, COMPLETED);
                } else if !readable && buf.len == 0 && theirs.len == 0 {
                    self.on_copy_done(e, COMPLETED);
                } else {
                    self.reset_and_notify_pending(shared, COMPLETED);
                    *self.shared_mut(shared).1 = Some((e, inst));
                }
            } else {
                *self.shared_mut(shared).1 = Some((e, inst));
            }
        } else if readable {
            assert!(!dropped, "model: reading a future whose writer dropped");
            if let Some((p, _)) = pending {
                transfer = Some(self.move_elems(p, e, 1));
                self.reset_and_notify_pending(shared, COMPLETED);
                self.on_copy_done(e, COMPLETED);
            } else {
                *self.shared_mut(shared).1 = Some((e, inst));
            }
        } else if dropped {
            self.on_copy_done(e, DROPPED);
        } else if let Some((p, _)) = pending {
            transfer = Some(self.move_elems(e, p, 1));
            self.reset_and_notify_pending(shared, COMPLETED);
            self.on_copy_done(e, COMPLETED);
        } else {
            *self.shared_mut(shared).1 = Some((e, inst));
        }
        let result = self.deliver_or_wait(e, sync);
        Ok(Out::Copied { transfer, result })
    }

    /// The end of `stream_copy`, `future_copy` and `cancel_copy`: the
    /// event now if there is one, else `BLOCKED` or a synchronous wait.
    fn deliver_or_wait(&mut self, e: Id, sync: Option<Tid>) -> Option<u32> {
        if !self.has_pending_event(e) {
            if let Some(th) = sync {
                self.wait_for_pending_event(th, e);
            }
            return None;
        }
        Some(self.get_pending_event(e).2)
    }

    /// `Waitable.wait_for_pending_event` (the thread waits; the runtime
    /// resumes it with [`Model::tick`]).
    pub(super) fn wait_for_pending_event(&mut self, th: Tid, w: Id) {
        let ws = self.waitable_mut(w);
        assert!(ws.wset.is_none() && !ws.sync_waiter);
        ws.sync_waiter = true;
        self.wait_until(th, Wait::Waitable(w), false);
    }

    pub fn cancel_copy(&mut self, inst: Inst, i: u32, kind: EndKind, ty: u32, sync: Option<Tid>) -> R<Out> {
        let e = self.get_end(inst, i, kind, ty)?;
        let (shared, _, _, state, _, w) = self.end(e);
        trap_if(state != CopyState::Copying || w.sync_waiter, "no copy to cancel")?;
        trap_if(
            w.wset.is_some() && sync.is_some(),
            "synchronous cancel of an end in a set",
        )?;
        *self.end_mut(e).0 = CopyState::Cancelling;
        if !self.has_pending_event(e) {
            // `shared.cancel()`: the pending buffer is this end's.
            assert_eq!(self.shared_mut(shared).1.map(|p| p.0), Some(e));
            self.reset_and_notify_pending(shared, CANCELLED);
        }
        let result = self.deliver_or_wait(e, sync);
        Ok(Out::Copied { transfer: None, result })
    }

    pub fn drop_end(&mut self, inst: Inst, i: u32, kind: EndKind, ty: u32) -> R<Out> {
        let e = self.get_end(inst, i, kind, ty)?;
        let (shared, _, _, state, ..) = self.end(e);
        if kind == EndKind::WritableFuture {
            trap_if(state != CopyState::Done, "future not written")?;
        }
        trap_if(matches!(state, CopyState::Copying | CopyState::Cancelling), "end busy")?;
        self.insts[inst].handles.remove(i)?;
        let (dropped, pending) = self.shared_mut(shared);
        if !*dropped {
            *dropped = true;
            if pending.is_some() {
                self.reset_and_notify_pending(shared, DROPPED);
            }
        }
        self.drop_waitable(e);
        Ok(Out::Unit)
    }

    /// `lift_async_value`: the host holds the end.
    pub fn lift_end(&mut self, inst: Inst, i: u32, kind: EndKind, ty: u32) -> R<Out> {
        let e = self.get_end(inst, i, kind, ty)?;
        let (_, _, _, state, _, w) = self.end(e);
        trap_if(state != CopyState::Idle, "lifting a busy or done end")?;
        trap_if(w.wset.is_some(), "lifting an end in a set")?;
        self.insts[inst].handles.remove(i)?;
        self.held.push(Some(Held::End(e)));
        Ok(Out::Unit)
    }

    /// `lift_error_context`: the host holds the error context too.
    pub fn lift_error_context(&mut self, inst: Inst, i: u32) -> R<Out> {
        let e = self.insts[inst].handles.get(i)?;
        trap_if(!matches!(self.obj(e), Obj::Err { .. }), "not an error context")?;
        self.held.push(Some(Held::Err(e)));
        Ok(Out::Unit)
    }

    /// `lower_{stream,future,error_context}` of what the host holds.
    pub fn lower(&mut self, slot: usize, inst: Inst, ty: u32) -> R<Out> {
        let held = self.held[slot].take().expect("driver: lowering nothing");
        let id = match held {
            Held::End(e) => {
                assert_eq!(self.end(e).2, ty, "driver: lowering an end as another type");
                e
            }
            Held::Err(e) => e,
        };
        Ok(Out::Word(self.add_handle(inst, id)))
    }

    pub fn release_err(&mut self, slot: usize) -> R<Out> {
        assert!(matches!(self.held[slot].take(), Some(Held::Err(_))));
        Ok(Out::Unit)
    }

    /// Moves an idle readable end or an error context to another instance
    /// (as lifting and lowering it would).
    pub fn transfer(&mut self, from: Inst, i: u32, to: Inst) -> R<Out> {
        let id = self.insts[from].handles.remove(i)?;
        Ok(Out::Word(self.add_handle(to, id)))
    }
}
