//! Random steps, chosen from the model's state so that most name live
//! handles and threads (and some do not), and the steps that empty the
//! table at the end of a sequence.

use crate::ops::*;
use crate::spec::{self, CopyState, Held, Id, Model, Obj, Phase};
use crate::Run;

impl Run {
    // Generation.

    fn entries(&self, inst: Inst) -> Vec<(u32, Id)> {
        self.model.insts[inst].handles.entries()
    }

    /// A handle index of `inst`: mostly one whose object `want` accepts,
    /// sometimes any, sometimes any number.
    fn pick_index(&mut self, inst: Inst, want: impl Fn(&Model, Id) -> bool) -> u32 {
        let all = self.entries(inst);
        let good: Vec<u32> = all
            .iter()
            .filter(|(_, o)| want(&self.model, *o))
            .map(|(i, _)| *i)
            .collect();
        let r = self.rng.below(100);
        if r < 85 && !good.is_empty() {
            return self.rng.pick(&good).unwrap();
        }
        if r < 95 && !all.is_empty() {
            return all[self.rng.below(all.len())].0;
        }
        self.rng.below(self.model.insts[inst].handles.array.len() + 3) as u32
    }

    /// Like `pick_index`, but mostly one that `pref` accepts if
    /// there is one.
    fn pick_pref(&mut self, inst: Inst, pref: impl Fn(&Model, Id) -> bool, want: impl Fn(&Model, Id) -> bool) -> u32 {
        let preferred: Vec<u32> = self
            .entries(inst)
            .into_iter()
            .filter(|(_, o)| pref(&self.model, *o))
            .map(|(i, _)| i)
            .collect();
        if !preferred.is_empty() && self.rng.chance(65) {
            return self.rng.pick(&preferred).unwrap();
        }
        self.pick_index(inst, want)
    }

    /// Mostly an instance with a handle `want` accepts, if there is one.
    fn inst_with(&mut self, default: Inst, want: impl Fn(&Model, Id) -> bool) -> Inst {
        let with: Vec<Inst> = (0..self.model.insts.len())
            .filter(|i| self.entries(*i).iter().any(|(_, o)| want(&self.model, *o)))
            .collect();
        match self.rng.pick(&with) {
            Some(i) if self.rng.chance(85) => i,
            _ => default,
        }
    }

    fn running(&self, inst: Option<Inst>) -> Vec<Tid> {
        (0..self.model.threads.len())
            .filter(|t| {
                self.model.threads[*t]
                    .as_ref()
                    .is_some_and(|x| x.running && inst.is_none_or(|i| x.inst == i))
            })
            .collect()
    }

    /// The kind and type to name end `i` of `inst` with: mostly its own.
    fn end_args(&mut self, inst: Inst, i: u32) -> (EndKind, u32) {
        let own = self.model.insts[inst]
            .handles
            .get(i)
            .ok()
            .and_then(|o| match self.model.obj(o) {
                Obj::End { kind, ty, .. } => Some((*kind, *ty)),
                _ => None,
            });
        let (mut kind, mut ty) = own.unwrap_or((EndKind::ALL[self.rng.below(4)], TYPES[self.rng.below(3)]));
        if self.rng.chance(8) {
            kind = EndKind::ALL[self.rng.below(4)];
        }
        if self.rng.chance(6) {
            ty = TYPES[self.rng.below(3)];
        }
        (kind, ty)
    }

    fn sync_thread(&mut self, inst: Inst, percent: u64) -> Option<Tid> {
        let running = self.running(Some(inst));
        if self.rng.chance(percent) {
            self.rng.pick(&running)
        } else {
            None
        }
    }

    pub(crate) fn gen(&mut self) -> Op {
        loop {
            if let Some(op) = self.try_gen() {
                return op;
            }
        }
    }

    fn try_gen(&mut self) -> Option<Op> {
        let n = self.model.insts.len();
        let inst = self.rng.below(n);
        let is_end = |m: &Model, o: Id| matches!(m.obj(o), Obj::End { .. });
        let is_set = |m: &Model, o: Id| matches!(m.obj(o), Obj::Set { .. });
        let is_sub = |m: &Model, o: Id| matches!(m.obj(o), Obj::Subtask { .. });
        let is_err = |m: &Model, o: Id| matches!(m.obj(o), Obj::Err { .. });
        let is_waitable = |m: &Model, o: Id| matches!(m.obj(o), Obj::End { .. } | Obj::Subtask { .. });
        const WEIGHTS: [u32; 38] = [
            5, 3, 10, 7, 5, 4, 16, 6, 6, 2, 1, 2, 3, 2, 4, 1, 2, 4, 4, 5, 9, 12, 3, 2, 3, 5, 3, 4, 4, 2, 4, 2, 1, 1, 1,
            2, 2, 4,
        ];
        let total: u32 = WEIGHTS.iter().sum();
        let mut x = self.rng.below(total as usize) as u32;
        let mut which = 0;
        while x >= WEIGHTS[which] {
            x -= WEIGHTS[which];
            which += 1;
        }
        let busy_end = |m: &Model, o: Id| matches!(m.obj(o), Obj::End { state, .. } if *state == CopyState::Copying);
        let inst = match which {
            1 | 3 => self.inst_with(inst, is_set),
            2 | 18 | 19 => self.inst_with(inst, is_waitable),
            6 | 8 | 12 | 16 => self.inst_with(inst, is_end),
            7 => self.inst_with(inst, busy_end),
            10 | 11 | 13 => self.inst_with(inst, is_err),
            _ => inst,
        };
        let inst = match which {
            18 | 19 => self.inst_with(inst, is_sub),
            _ => inst,
        };
        let running = self.running(None);
        let th = self.rng.pick(&running);
        Some(match which {
            0 => Op::SetNew { inst },
            1 => Op::SetDrop {
                inst,
                i: self.pick_index(inst, is_set),
            },
            2 => {
                // Mostly a waitable that will have an event, out of a set.
                let busy = |m: &Model, o: Id| match m.obj(o) {
                    Obj::End { state, w, .. } => *state == CopyState::Copying && w.wset.is_none(),
                    Obj::Subtask { delivered, w, .. } => !*delivered && w.wset.is_none(),
                    _ => false,
                };
                let w = self.pick_pref(inst, busy, is_waitable);
                let s = if self.rng.chance(15) {
                    0
                } else {
                    self.pick_index(inst, is_set)
                };
                Op::Join { inst, w, s }
            }
            3 => Op::Poll {
                inst,
                s: self.pick_pref(inst, |m, o| m.set_has_pending_event(o), is_set),
            },
            4 => Op::StreamNew {
                inst,
                ty: TYPES[self.rng.below(3)],
            },
            5 => Op::FutureNew {
                inst,
                ty: TYPES[self.rng.below(3)],
            },
            6 => {
                // Mostly an idle end, often one whose other end waits.
                let idle = |m: &Model, o: Id| matches!(m.obj(o), Obj::End { state, .. } if *state == CopyState::Idle);
                let meets = |m: &Model, o: Id| match m.obj(o) {
                    Obj::End {
                        state: CopyState::Idle,
                        shared,
                        ..
                    } => matches!(m.obj(*shared), Obj::Shared { pending: Some((p, _)), .. } if *p != o),
                    _ => false,
                };
                let i = self.pick_pref(inst, meets, idle);
                let (kind, ty) = self.end_args(inst, i);
                let len = if !kind.is_stream() {
                    1
                } else if self.rng.chance(1) {
                    spec::MAX_LENGTH + 1
                } else {
                    [0, 1, 1, 2, 3, 4][self.rng.below(6)]
                };
                Op::Copy {
                    inst,
                    i,
                    kind,
                    ty,
                    sync: self.sync_thread(inst, 30),
                    cx: inst as u32 * 10 + self.rng.below(3) as u32,
                    ptr: 8 * self.rng.below(64) as u32,
                    len,
                }
            }
            7 => {
                let i = self.pick_index(
                    inst,
                    |m, o| matches!(m.obj(o), Obj::End { state, .. } if *state == CopyState::Copying),
                );
                let (kind, ty) = self.end_args(inst, i);
                Op::CancelCopy {
                    inst,
                    i,
                    kind,
                    ty,
                    sync: self.sync_thread(inst, 30),
                }
            }
            8 => {
                let i = self.pick_index(inst, is_end);
                let (kind, ty) = self.end_args(inst, i);
                Op::DropEnd { inst, i, kind, ty }
            }
            9 => Op::ErrNew {
                inst,
                msg: self.rng.below(100) as u32,
            },
            10 => Op::ErrMsg {
                inst,
                i: self.pick_index(inst, is_err),
            },
            11 => Op::ErrDrop {
                inst,
                i: self.pick_index(inst, is_err),
            },
            12 => {
                let i = self.pick_index(inst, |m, o| {
                    matches!(m.obj(o), Obj::End { kind, state, w, .. }
                        if kind.readable() && *state == CopyState::Idle && w.wset.is_none())
                });
                let (mut kind, ty) = self.end_args(inst, i);
                if !kind.readable() && self.rng.chance(80) {
                    kind = EndKind::of(kind.is_stream(), true);
                }
                Op::LiftEnd { inst, i, kind, ty }
            }
            13 => Op::LiftErr {
                inst,
                i: self.pick_index(inst, is_err),
            },
            14 | 15 => {
                let slots: Vec<usize> = (0..self.model.held.len())
                    .filter(|s| self.model.held[*s].is_some())
                    .collect();
                let slot = self.rng.pick(&slots)?;
                match self.model.held[slot]? {
                    Held::End(e) if which == 14 => Op::Lower {
                        slot,
                        inst,
                        ty: self.model.end(e).2,
                    },
                    Held::Err(_) if which == 14 => Op::Lower { slot, inst, ty: 0 },
                    Held::Err(_) => Op::ReleaseErr { slot },
                    Held::End(_) => return None,
                }
            }
            16 => {
                let movable: Vec<u32> = self
                    .entries(inst)
                    .into_iter()
                    .filter(|(_, o)| match self.model.obj(*o) {
                        Obj::Err { .. } => true,
                        Obj::End { kind, state, w, .. } => {
                            kind.readable() && *state == CopyState::Idle && w.wset.is_none()
                        }
                        _ => false,
                    })
                    .map(|(i, _)| i)
                    .collect();
                Op::Transfer {
                    from: inst,
                    i: self.rng.pick(&movable)?,
                    to: self.rng.below(n),
                }
            }
            17 => Op::Backpressure {
                inst,
                inc: self.rng.chance(55),
            },
            18 => Op::SubtaskDrop {
                inst,
                i: self.pick_index(inst, is_sub),
            },
            19 => Op::SubtaskCancel {
                inst,
                i: self.pick_index(inst, is_sub),
                sync: self.sync_thread(inst, 25),
            },
            20 => {
                let callee = self.rng.below(n);
                let others: Vec<Inst> = (0..n).filter(|i| *i != callee).collect();
                let r = self.rng.below(100);
                let caller = if r < 30 || others.is_empty() {
                    Caller::Host
                } else if r < 80 {
                    Caller::Async(self.rng.pick(&others).unwrap())
                } else {
                    let callers: Vec<Tid> = running
                        .iter()
                        .copied()
                        .filter(|t| self.model.thread(*t).inst != callee)
                        .collect();
                    match self.rng.pick(&callers) {
                        Some(t) => Caller::Sync(t),
                        None => Caller::Host,
                    }
                };
                let is_async = self.rng.chance(70);
                Op::Call {
                    callee,
                    is_async,
                    callback: is_async && self.rng.chance(50),
                    caller,
                    at_once: self.rng.chance(25),
                }
            }
            21 => Op::Tick,
            22 => Op::Yield {
                th: th?,
                cancellable: self.rng.chance(50),
            },
            23 => Op::Suspend {
                th: th?,
                cancellable: self.rng.chance(50),
            },
            24 => {
                let indices: Vec<u32> = self.model.insts[inst]
                    .threads
                    .entries()
                    .into_iter()
                    .map(|(i, _)| i)
                    .collect();
                let index = match self.rng.pick(&indices) {
                    Some(i) if self.rng.chance(85) => i,
                    _ => self.rng.below(indices.len() + 3) as u32,
                };
                Op::ResumeLater { inst, index }
            }
            25 => {
                let th = th?;
                let ti = self.model.thread(th).inst;
                Op::WaitSet {
                    th,
                    s: self.pick_index(ti, is_set),
                    cancellable: self.rng.chance(50),
                }
            }
            26 | 27 => {
                let cands: Vec<Tid> = running
                    .iter()
                    .copied()
                    .filter(|t| {
                        let x = self.model.thread(*t);
                        let (_, _, callback, _, _, implicit, _) = self.model.task(x.task);
                        callback && implicit == Some(*t) && self.model.insts[x.inst].exclusive == Some(*t)
                    })
                    .collect();
                let th = self.rng.pick(&cands)?;
                if which == 26 {
                    Op::CallbackYield { th }
                } else {
                    let ti = self.model.thread(th).inst;
                    let sets: Vec<u32> = self
                        .entries(ti)
                        .into_iter()
                        .filter(|(_, o)| is_set(&self.model, *o))
                        .map(|(i, _)| i)
                        .collect();
                    Op::CallbackWait {
                        th,
                        s: self.rng.pick(&sets)?,
                    }
                }
            }
            28 => Op::TaskReturn { th: th? },
            29 => {
                let th = th?;
                if !self.model.task(self.model.thread(th).task).1 {
                    return None;
                }
                Op::TaskCancel { th }
            }
            30 => {
                let th = th?;
                let (_, _, _, phase, threads, _, subtask) = self.model.task(self.model.thread(th).task);
                let ok = phase == Phase::Resolved || threads.len() > 1 || (subtask.is_none() && self.rng.chance(30));
                if !ok {
                    return None;
                }
                Op::Exit { th }
            }
            31 => Op::Spawn { th: th? },
            32 => Op::ThreadIndex { th: th? },
            33 => Op::ContextGet {
                th: th?,
                slot: self.rng.below(3) as u32,
            },
            34 => Op::ContextSet {
                th: th?,
                slot: self.rng.below(3) as u32,
                value: self.rng.below(1000) as u32,
            },
            35 => {
                let slots: Vec<usize> = (0..self.model.host.len())
                    .filter(|s| {
                        !self.host_cancelled[*s]
                            && self.model.host[*s].is_some_and(|t| self.model.task(t).3 != Phase::Resolved)
                    })
                    .collect();
                let slot = self.rng.pick(&slots)?;
                self.host_cancelled[slot] = true;
                Op::HostCancel { slot }
            }
            36 => {
                let slots: Vec<usize> = (0..self.model.host.len())
                    .filter(|s| self.model.host[*s].is_some())
                    .collect();
                Op::HostRelease {
                    slot: self.rng.pick(&slots)?,
                }
            }
            _ => {
                let th = th?;
                let ti = self.model.thread(th).inst;
                let indices: Vec<u32> = self.model.insts[ti]
                    .threads
                    .entries()
                    .into_iter()
                    .map(|(i, _)| i)
                    .collect();
                let index = match self.rng.pick(&indices) {
                    Some(i) if self.rng.chance(90) => i,
                    _ => self.rng.below(indices.len() + 3) as u32,
                };
                Op::Switch {
                    th,
                    index,
                    yielding: self.rng.chance(50),
                    promote: self.rng.chance(50),
                    cancellable: self.rng.chance(50),
                }
            }
        })
    }

    // The end of a sequence.

    pub(crate) fn cleanup(&mut self) -> Result<(), String> {
        let n = self.model.insts.len();
        for th in 0..self.model.threads.len() {
            if self.model.threads[th].is_some() {
                self.step_ok(Op::Abort { th })?;
            }
        }
        for slot in 0..self.model.held.len() {
            match self.model.held[slot] {
                Some(Held::End(e)) => {
                    let ty = self.model.end(e).2;
                    self.step_ok(Op::Lower { slot, inst: 0, ty })?;
                }
                Some(Held::Err(_)) => {
                    self.step_ok(Op::ReleaseErr { slot })?;
                }
                None => {}
            }
        }
        for inst in 0..n {
            for (i, o) in self.entries(inst) {
                let in_set = match self.model.obj(o) {
                    Obj::End { w, .. } | Obj::Subtask { w, .. } => w.wset.is_some(),
                    _ => false,
                };
                if in_set {
                    self.step_ok(Op::Join { inst, w: i, s: 0 })?;
                }
            }
            for (i, o) in self.entries(inst) {
                if let Obj::End {
                    kind,
                    ty,
                    state: CopyState::Copying,
                    ..
                } = *self.model.obj(o)
                {
                    self.step_ok(Op::CancelCopy {
                        inst,
                        i,
                        kind,
                        ty,
                        sync: None,
                    })?;
                }
            }
            // Subtasks take their last event from a set.
            let subs: Vec<u32> = self
                .entries(inst)
                .into_iter()
                .filter(|(_, o)| matches!(self.model.obj(*o), Obj::Subtask { delivered: false, .. }))
                .map(|(i, _)| i)
                .collect();
            if !subs.is_empty() {
                let Out::Word(s) = self.step_ok(Op::SetNew { inst })? else {
                    unreachable!()
                };
                for w in &subs {
                    self.step_ok(Op::Join { inst, w: *w, s })?;
                }
                for _ in 0..=subs.len() {
                    self.step_ok(Op::Poll { inst, s })?;
                }
                for w in &subs {
                    self.step_ok(Op::Join { inst, w: *w, s: 0 })?;
                }
                self.step_ok(Op::SetDrop { inst, i: s })?;
            }
        }
        // Readable ends, then writable ends (a future's written first).
        for pass in 0..2 {
            for inst in 0..n {
                for (i, o) in self.entries(inst) {
                    let Obj::End { kind, ty, state, .. } = *self.model.obj(o) else {
                        continue;
                    };
                    if kind.readable() != (pass == 0) {
                        continue;
                    }
                    if kind == EndKind::WritableFuture && state != CopyState::Done {
                        self.step_ok(Op::Copy {
                            inst,
                            i,
                            kind,
                            ty,
                            sync: None,
                            cx: 0,
                            ptr: 0,
                            len: 1,
                        })?;
                    }
                    self.step_ok(Op::DropEnd { inst, i, kind, ty })?;
                }
            }
        }
        for inst in 0..n {
            for (i, o) in self.entries(inst) {
                match self.model.obj(o) {
                    Obj::Subtask { .. } => self.step_ok(Op::SubtaskDrop { inst, i })?,
                    Obj::Err { .. } => self.step_ok(Op::ErrDrop { inst, i })?,
                    _ => continue,
                };
            }
            for (i, _) in self.entries(inst) {
                self.step_ok(Op::SetDrop { inst, i })?;
            }
        }
        for slot in 0..self.model.host.len() {
            if self.model.host[slot].is_some() {
                self.step_ok(Op::HostRelease { slot })?;
            }
        }
        let t = &self.real.tasks;
        if t.live_entries() != 0 || t.live_threads() != 0 || self.real.insts.iter().any(|i| t.live_handles(*i) != 0) {
            return Err(format!(
                "not empty at the end: {} entries, {} threads",
                t.live_entries(),
                t.live_threads()
            ));
        }
        Ok(())
    }
}
