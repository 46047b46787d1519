//! What the model and the real table are both asked to do, what they
//! answer, and the random numbers that choose it.

/// A component instance of a sequence (0, 1 or 2).
pub type Inst = usize;
/// A thread, numbered in the order the sequence created it (the model and
/// the driver number them alike).
pub type Tid = usize;

/// A small seeded PRNG (splitmix64).
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        if items.is_empty() {
            None
        } else {
            Some(items[self.below(items.len())])
        }
    }
}

/// The four kinds of stream and future ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndKind {
    ReadableStream,
    WritableStream,
    ReadableFuture,
    WritableFuture,
}

impl EndKind {
    pub const ALL: [EndKind; 4] = [
        EndKind::ReadableStream,
        EndKind::WritableStream,
        EndKind::ReadableFuture,
        EndKind::WritableFuture,
    ];

    pub fn is_stream(self) -> bool {
        matches!(self, EndKind::ReadableStream | EndKind::WritableStream)
    }

    pub fn readable(self) -> bool {
        matches!(self, EndKind::ReadableStream | EndKind::ReadableFuture)
    }

    pub fn of(is_stream: bool, readable: bool) -> EndKind {
        match (is_stream, readable) {
            (true, true) => EndKind::ReadableStream,
            (true, false) => EndKind::WritableStream,
            (false, true) => EndKind::ReadableFuture,
            (false, false) => EndKind::WritableFuture,
        }
    }

    pub fn real(self) -> weft_tasks::Kind {
        match self {
            EndKind::ReadableStream => weft_tasks::Kind::ReadableStream,
            EndKind::WritableStream => weft_tasks::Kind::WritableStream,
            EndKind::ReadableFuture => weft_tasks::Kind::ReadableFuture,
            EndKind::WritableFuture => weft_tasks::Kind::WritableFuture,
        }
    }
}

/// The element types of the streams and futures of a sequence, as the type
/// tags the runtime passes: 1 is `u32` (a number type), 2 is `string`
/// (not a number type: no copies within one instance), 3 is no type.
pub const TYPES: [u32; 3] = [1, 2, 3];

/// Whether elements of type `ty` may be copied within one instance
/// (`none_or_number_type`).
pub fn numeric(ty: u32) -> bool {
    ty != 2
}

/// The size of an element of type `ty`.
pub fn elem_size(ty: u32) -> u32 {
    match ty {
        1 => 4,
        2 => 8,
        _ => 0,
    }
}

/// Who makes a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    /// The host (`call_async`): it holds the task until it releases it.
    Host,
    /// A guest of this instance, through an `async` lower.
    Async(Inst),
    /// A guest thread, through a synchronous lower: it waits.
    Sync(Tid),
}

/// One step of a sequence. Guest built-ins name handles by index (any
/// number, valid or not); the runtime's steps (calls, resuming threads)
/// are made only as a runtime would make them.
#[derive(Clone, Debug)]
pub enum Op {
    SetNew {
        inst: Inst,
    },
    SetDrop {
        inst: Inst,
        i: u32,
    },
    Join {
        inst: Inst,
        w: u32,
        s: u32,
    },
    Poll {
        inst: Inst,
        s: u32,
    },
    StreamNew {
        inst: Inst,
        ty: u32,
    },
    FutureNew {
        inst: Inst,
        ty: u32,
    },
    /// `{stream,future}.{read,write}`; `sync` names the calling thread of a
    /// synchronous copy.
    Copy {
        inst: Inst,
        i: u32,
        kind: EndKind,
        ty: u32,
        sync: Option<Tid>,
        cx: u32,
        ptr: u32,
        len: u32,
    },
    CancelCopy {
        inst: Inst,
        i: u32,
        kind: EndKind,
        ty: u32,
        sync: Option<Tid>,
    },
    DropEnd {
        inst: Inst,
        i: u32,
        kind: EndKind,
        ty: u32,
    },
    ErrNew {
        inst: Inst,
        msg: u32,
    },
    ErrMsg {
        inst: Inst,
        i: u32,
    },
    ErrDrop {
        inst: Inst,
        i: u32,
    },
    /// `lift_async_value` of a readable end into a value held by the host.
    LiftEnd {
        inst: Inst,
        i: u32,
        kind: EndKind,
        ty: u32,
    },
    /// `lift_error_context` into a value held by the host.
    LiftErr {
        inst: Inst,
        i: u32,
    },
    /// Lowers the value the host holds in `slot` into `inst` (`ty`: the
    /// type tag of an end there).
    Lower {
        slot: usize,
        inst: Inst,
        ty: u32,
    },
    /// The host drops the error context it holds in `slot`.
    ReleaseErr {
        slot: usize,
    },
    /// `Tasks::transfer` of an idle readable end or an error context.
    Transfer {
        from: Inst,
        i: u32,
        to: Inst,
    },
    Backpressure {
        inst: Inst,
        inc: bool,
    },
    SubtaskDrop {
        inst: Inst,
        i: u32,
    },
    SubtaskCancel {
        inst: Inst,
        i: u32,
        sync: Option<Tid>,
    },
    /// A call into an `async`-typed function of `callee`, lifted `async`
    /// or not, with or without `callback`; with `at_once` the callee
    /// returns as soon as it starts.
    Call {
        callee: Inst,
        is_async: bool,
        callback: bool,
        caller: Caller,
        at_once: bool,
    },
    /// The runtime resumes a waiting thread that is ready, if any.
    Tick,
    /// `thread.yield`.
    Yield {
        th: Tid,
        cancellable: bool,
    },
    /// `thread.suspend`.
    Suspend {
        th: Tid,
        cancellable: bool,
    },
    /// `thread.{suspend,yield}-then-{resume,promote}` by thread `th` of the
    /// thread at `index` of its instance.
    Switch {
        th: Tid,
        index: u32,
        yielding: bool,
        promote: bool,
        cancellable: bool,
    },
    /// `thread.resume-later` from `inst`.
    ResumeLater {
        inst: Inst,
        index: u32,
    },
    /// `waitable-set.wait`.
    WaitSet {
        th: Tid,
        s: u32,
        cancellable: bool,
    },
    /// A callback returning `YIELD`.
    CallbackYield {
        th: Tid,
    },
    /// A callback returning `WAIT` on set `s`.
    CallbackWait {
        th: Tid,
        s: u32,
    },
    TaskReturn {
        th: Tid,
    },
    TaskCancel {
        th: Tid,
    },
    /// The thread returns (a synchronously lifted implicit thread returns
    /// its value: `task.return` first).
    Exit {
        th: Tid,
    },
    /// `thread.new-indirect`: a suspended explicit thread of `th`'s task.
    Spawn {
        th: Tid,
    },
    ThreadIndex {
        th: Tid,
    },
    ContextGet {
        th: Tid,
        slot: u32,
    },
    ContextSet {
        th: Tid,
        slot: u32,
        value: u32,
    },
    /// The host asks to cancel its call in `slot`.
    HostCancel {
        slot: usize,
    },
    /// The host lets go of the task of its call in `slot`.
    HostRelease {
        slot: usize,
    },
    /// Tears a thread down (the end of a sequence): its wait is abandoned,
    /// its task returns if it has not resolved, and it exits.
    Abort {
        th: Tid,
    },
}

/// What a step answered (a trap is an `Err`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Out {
    Unit,
    Word(u32),
    Pair(u32, u32),
    Event(u32, u32, u32),
    Str(String),
    /// The current thread waits.
    Blocked,
    /// A copy: the elements moved at once (source cx and address,
    /// destination cx and address, count), then the result (`None`:
    /// `BLOCKED` or waiting).
    Copied {
        transfer: Option<(u32, u32, u32, u32, u32)>,
        result: Option<u32>,
    },
    /// A cancellation request resumed this thread (cancelled), then the
    /// subtask's state (`None`: `BLOCKED` or waiting).
    Cancel {
        resumed: Option<Tid>,
        result: Option<u32>,
    },
    /// The runtime resumed this thread; the event its wait returned, if it
    /// waited for one.
    Woke {
        th: Tid,
        event: Option<(u32, u32, u32)>,
    },
}
