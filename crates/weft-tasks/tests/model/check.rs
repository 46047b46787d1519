//! The checks after every step: the real table says what the model says.

use crate::spec::{Id, Model, Obj, Phase, Wait};
use crate::Run;
use weft_tasks::{EntryId, Kind, TaskPhase, WaitFor};

impl Run {
    /// Records that model object `obj` is real entry `id`.
    pub(crate) fn bind(&mut self, obj: Id, id: EntryId) -> Result<(), String> {
        if let Some(old) = self.ids.get(&obj) {
            if *old != id {
                return Err(format!("model object {obj} was entry {old:?}, now {id:?}"));
            }
        }
        if let Some(other) = self.rev.get(&id) {
            if *other != obj && self.model.objs[*other].is_some() {
                return Err(format!("entry {id:?} is model objects {other} and {obj}"));
            }
        }
        self.ids.insert(obj, id);
        self.rev.insert(id, obj);
        Ok(())
    }

    pub(crate) fn real_wait(&self, w: Wait) -> Option<WaitFor> {
        let id = |x: Id| self.ids.get(&x).copied();
        Some(match w {
            Wait::Nothing => WaitFor::Nothing,
            Wait::NotExclusive => WaitFor::NotExclusive,
            Wait::Set { set, not_exclusive } => WaitFor::Set {
                set: id(set)?,
                not_exclusive,
            },
            Wait::Waitable(x) => WaitFor::Waitable(id(x)?),
            Wait::Resolved(x) => WaitFor::Resolved(id(x)?),
            Wait::Enter => WaitFor::Enter,
        })
    }

    /// Everything the real table says agrees with the model.
    pub(crate) fn check(&mut self) -> Result<(), String> {
        // Forget the entries of dead objects (their ids are reused).
        let model = &self.model;
        self.ids.retain(|obj, _| model.objs[*obj].is_some());
        let ids = &self.ids;
        self.rev.retain(|_, obj| ids.contains_key(obj));
        let n = self.model.insts.len();
        for k in 0..n {
            let inst = self.real.insts[k];
            let t = &self.real.tasks;
            let mi = &self.model.insts[k];
            if t.live_handles(inst) != mi.handles.len() {
                return Err(format!(
                    "instance {k}: {} handles, the model has {}",
                    t.live_handles(inst),
                    mi.handles.len()
                ));
            }
            let excl = mi.exclusive.map(|th| self.real.threads[th]);
            if excl.is_some_and(|e| e.is_none()) || t.exclusive(inst) != excl.flatten() {
                return Err(format!(
                    "instance {k}: exclusive thread {:?}, the model has {:?}",
                    t.exclusive(inst),
                    mi.exclusive
                ));
            }
            for (idx, obj) in mi.handles.entries() {
                let id = self
                    .real
                    .tasks
                    .handle(inst, idx)
                    .map_err(|e| format!("instance {k} handle {idx}: {e}"))?;
                self.bind(obj, id)?;
                let t = &self.real.tasks;
                let m = &self.model;
                let kind = t.handle_kind(inst, idx).map_err(|e| e.to_string())?;
                let bad = |what: &str| format!("instance {k} handle {idx} ({kind:?}): {what} differs");
                match m.obj(obj) {
                    Obj::Set { .. } => {
                        if kind != Kind::WaitableSet {
                            return Err(bad("kind"));
                        }
                        if t.set_has_pending_event(id) != m.set_has_pending_event(obj) {
                            return Err(bad("whether a member has an event"));
                        }
                    }
                    Obj::End { kind: ek, shared, .. } => {
                        if kind != ek.real() {
                            return Err(bad("kind"));
                        }
                        let Obj::Shared { dropped, .. } = m.obj(*shared) else {
                            unreachable!()
                        };
                        if t.peer_dropped(inst, idx) != Ok(*dropped) {
                            return Err(bad("whether an end was dropped"));
                        }
                        if t.has_pending_event(id) != m.has_pending_event(obj) {
                            return Err(bad("whether an event is pending"));
                        }
                    }
                    Obj::Subtask {
                        state,
                        delivered,
                        cancel_requested,
                        ..
                    } => {
                        if kind != Kind::Subtask {
                            return Err(bad("kind"));
                        }
                        let s = t.subtask_state(id).map_err(|e| e.to_string())?;
                        if s.status as u32 != *state
                            || s.resolve_delivered != *delivered
                            || s.cancellation_requested != *cancel_requested
                        {
                            return Err(bad(&format!(
                                "state ({:?}, delivered {}, cancel requested {}; model {state}, {delivered}, {cancel_requested})",
                                s.status, s.resolve_delivered, s.cancellation_requested
                            )));
                        }
                        if t.has_pending_event(id) != m.has_pending_event(obj) {
                            return Err(bad("whether an event is pending"));
                        }
                    }
                    Obj::Err { msg } => {
                        if kind != Kind::ErrorContext {
                            return Err(bad("kind"));
                        }
                        if t.error_context_message(inst, idx) != Ok(msg.as_str()) {
                            return Err(bad("message"));
                        }
                    }
                    o => return Err(format!("model: a {} in a handle table", Model::kind_name(o))),
                }
            }
        }
        // Threads.
        let t = &self.real.tasks;
        if t.live_threads() != self.model.live_threads() {
            return Err(format!(
                "{} live threads, the model has {}",
                t.live_threads(),
                self.model.live_threads()
            ));
        }
        let mut waiting = Vec::new();
        for tid in 0..self.model.threads.len() {
            let (Some(mt), Some(rt)) = (
                self.model.threads[tid].clone(),
                self.real.threads.get(tid).copied().flatten(),
            ) else {
                if self.model.threads[tid].is_some() || self.real.threads.get(tid).copied().flatten().is_some() {
                    return Err(format!("thread {tid} is alive on one side only"));
                }
                continue;
            };
            let st = self
                .real
                .tasks
                .thread(rt)
                .map_err(|e| format!("thread {tid}: {e}"))?
                .clone();
            self.bind(mt.task, st.task)?;
            let t = &self.real.tasks;
            let bad = |what: &str| format!("thread {tid}: {what} differs ({st:?}, model {mt:?})");
            if st.running != mt.running || st.context != mt.storage {
                return Err(bad("running or context"));
            }
            match (st.wait, mt.wait) {
                (None, None) => {}
                (Some(r), Some(m)) => {
                    if self.real_wait(m).is_some_and(|m| m != r)
                        || std::mem::discriminant(&r) != std::mem::discriminant(&self.real_wait(m).unwrap_or(r))
                    {
                        return Err(bad("wait"));
                    }
                }
                _ => return Err(bad("wait")),
            }
            if !mt.running && st.cancellable != mt.cancellable {
                return Err(bad("cancellable"));
            }
            if mt.index.is_some_and(|i| i != st.index) {
                return Err(bad("index"));
            }
            if t.is_ready(rt) != self.model.ready(tid) {
                return Err(bad("readiness"));
            }
            if t.is_suspended(rt) != self.model.suspended(tid) {
                return Err(bad("suspension"));
            }
            if mt.wait.is_some() {
                waiting.push(rt);
            }
        }
        let mut real_waiting = self.real.tasks.waiting_threads().to_vec();
        real_waiting.sort_by_key(|t| format!("{t:?}"));
        waiting.sort_by_key(|t| format!("{t:?}"));
        if real_waiting != waiting {
            return Err(format!("waiting threads {real_waiting:?}, the model's {waiting:?}"));
        }
        // Tasks and entries.
        for (&obj, &id) in &self.ids {
            let m = &self.model;
            let t = &self.real.tasks;
            let want = Model::kind_name(m.obj(obj));
            if self.real.kind_name(id) != Some(want) {
                return Err(format!(
                    "entry {id:?} is a {:?}, the model's a {want}",
                    self.real.kind_name(id)
                ));
            }
            if let Obj::Task { phase, .. } = m.obj(obj) {
                let rp = t.task(id).map_err(|e| e.to_string())?.phase;
                let same = matches!(
                    (rp, phase),
                    (TaskPhase::Initial, Phase::Initial)
                        | (TaskPhase::Started, Phase::Started)
                        | (TaskPhase::PendingCancel, Phase::PendingCancel)
                        | (TaskPhase::CancelDelivered, Phase::CancelDelivered)
                        | (TaskPhase::Resolved, Phase::Resolved)
                );
                if !same {
                    return Err(format!("task {id:?}: phase {rp:?}, the model's {phase:?}"));
                }
                if t.has_backpressure(id) != Ok(m.has_backpressure(obj))
                    || t.must_wait_to_enter(id) != Ok(m.must_wait_to_enter(obj))
                {
                    return Err(format!("task {id:?}: backpressure differs"));
                }
            }
        }
        // Every reference is held by something: the table's own holders and
        // the driver's (the host's calls and values, and the subtask of a
        // synchronous call while its caller waits).
        let mut held: Vec<EntryId> = self
            .real
            .host
            .iter()
            .chain(&self.real.held)
            .flatten()
            .copied()
            .collect();
        for th in self.real.threads.iter().flatten() {
            if let Ok(weft_tasks::ThreadState {
                wait: Some(WaitFor::Resolved(s)),
                ..
            }) = self.real.tasks.thread(*th)
            {
                held.push(*s);
            }
        }
        self.real.tasks.check_references(&held)?;
        if self.real.tasks.live_entries() != self.model.live_objects() {
            return Err(format!(
                "{} live entries, the model has {} live objects",
                self.real.tasks.live_entries(),
                self.model.live_objects()
            ));
        }
        Ok(())
    }
}
