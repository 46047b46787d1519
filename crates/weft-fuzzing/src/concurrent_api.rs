//! `concurrent_api`: the API-sequence property test of the component
//! model's concurrent API, as a fuzz target and as a seeded test. Random
//! sequences of `run_concurrent` with several `call_concurrent`s (some
//! dropped after a few polls), `call_async` futures dropped at random
//! points, synchronous calls, `start_call_concurrent` results dropped
//! outside the event loop, spawned tasks that are aborted, calls that trap,
//! concurrent host functions that fail or panic, under random schedule
//! seeds, over two instances of a guest component.
//!
//! Checked after every step: no panic escapes except the host function's
//! own; every call that completes returns the right value (`x + 1`), and
//! one to an instance nothing has doomed yet always completes; and at the
//! end of every sequence the task table adds up
//! (`Store::check_concurrent_state`) and, unless an instance was doomed,
//! is empty.
//!
//! The sequences come from a [`Source`]: a seed (the test in
//! `tests/concurrent_api.rs`, 10,000 sequences in `cargo test`) or the
//! bytes of a fuzz input (`fuzz/fuzz_targets/concurrent_api.rs`, and
//! `--target concurrent_api` of the `crash` binary).

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};
use weft::component::{Accessor, AccessorTask, Component, Linker, TypedFunc};
use weft::{Config, Engine, Store};

/// `run(x)` calls the host's `echo(x)` lowered `async`, waits for it with
/// the callback's WAIT when it does not return at once, and returns the
/// echo plus one; an echo of 1000 traps in the callback (after the
/// callback dropped its handles).
const COMPONENT: &str = r#"(component
    (import "echo" (func $echo async (param "a" u32) (result u32)))
    (core module $libc (memory (export "mem") 1))
    (core instance $libc (instantiate $libc))
    (core func $echo_async (canon lower (func $echo) async (memory (core memory $libc "mem"))))
    (core func $task_return (canon task.return (result u32)))
    (core func $ws_new (canon waitable-set.new))
    (core func $join (canon waitable.join))
    (core func $subtask_drop (canon subtask.drop))
    (core func $ws_drop (canon waitable-set.drop))
    (core func $context_get (canon context.get i32 0))
    (core func $context_set (canon context.set i32 0))
    (core module $m
        (import "" "mem" (memory 1))
        (import "" "echo-async" (func $echo_async (param i32 i32) (result i32)))
        (import "" "task.return" (func $task_return (param i32)))
        (import "" "ws.new" (func $ws_new (result i32)))
        (import "" "ws.drop" (func $ws_drop (param i32)))
        (import "" "join" (func $join (param i32 i32)))
        (import "" "subtask.drop" (func $subtask_drop (param i32)))
        (import "" "context.get" (func $context_get (result i32)))
        (import "" "context.set" (func $context_set (param i32)))
        (global $next (mut i32) (i32.const 16))
        ;; Each task has 8 bytes of its own (the echo, the waitable set),
        ;; whose address context slot 0 keeps.
        (func (export "run") (param $x i32) (result i32)
            (local $status i32) (local $ptr i32) (local $ws i32)
            (local.set $ptr (global.get $next))
            (global.set $next (i32.and (i32.add (global.get $next) (i32.const 8)) (i32.const 0xfff8)))
            (call $context_set (local.get $ptr))
            (local.set $status (call $echo_async (local.get $x) (local.get $ptr)))
            (if (i32.eq (i32.and (local.get $status) (i32.const 0xf)) (i32.const 2))
                (then
                    (if (i32.eq (i32.load (local.get $ptr)) (i32.const 1000)) (then unreachable))
                    (call $task_return (i32.add (i32.load (local.get $ptr)) (i32.const 1)))
                    (return (i32.const 0))))
            (local.set $ws (call $ws_new))
            (i32.store offset=4 (local.get $ptr) (local.get $ws))
            (call $join (i32.shr_u (local.get $status) (i32.const 4)) (local.get $ws))
            (i32.or (i32.const 2) (i32.shl (local.get $ws) (i32.const 4))))
        (func (export "cb") (param $event i32) (param $index i32) (param $payload i32) (result i32)
            (local $ptr i32)
            (local.set $ptr (call $context_get))
            (if (i32.ne (local.get $event) (i32.const 1)) (then unreachable))
            (if (i32.ne (local.get $payload) (i32.const 2)) (then unreachable))
            (call $subtask_drop (local.get $index))
            (call $ws_drop (i32.load offset=4 (local.get $ptr)))
            (if (i32.eq (i32.load (local.get $ptr)) (i32.const 1000)) (then unreachable))
            (call $task_return (i32.add (i32.load (local.get $ptr)) (i32.const 1)))
            (i32.const 0)))
    (core instance $i (instantiate $m (with "" (instance
        (export "mem" (memory $libc "mem"))
        (export "echo-async" (func $echo_async))
        (export "task.return" (func $task_return))
        (export "ws.new" (func $ws_new))
        (export "ws.drop" (func $ws_drop))
        (export "join" (func $join))
        (export "subtask.drop" (func $subtask_drop))
        (export "context.get" (func $context_get))
        (export "context.set" (func $context_set))))))
    (func (export "run") async (param "x" u32) (result u32)
        (canon lift (core func $i "run") async (callback (core func $i "cb"))))
)"#;

/// An echo of this traps the caller.
const TRAP: u32 = 1000;
/// An echo of this panics in the host function.
const PANIC: u32 = 2000;
/// An echo of this fails in the host function (the caller traps).
const FAIL: u32 = 3000;

/// What the sequences did, to show that they test something: calls that
/// returned, calls that failed, host panics caught, calls dropped.
static COMPLETED: AtomicUsize = AtomicUsize::new(0);
static FAILED: AtomicUsize = AtomicUsize::new(0);
static PANICS: AtomicUsize = AtomicUsize::new(0);
static DROPPED: AtomicUsize = AtomicUsize::new(0);

/// The message of the host function's own panic.
const HOST_PANIC: &str = "the host function's own panic";

/// Where a sequence's choices come from: a seeded xorshift64*, or the
/// bytes of a fuzz input (eight at a time; zeros once they run out).
pub enum Source<'a> {
    /// A seeded pseudo-random sequence.
    Seeded(u64),
    /// A fuzz input.
    Bytes(&'a [u8]),
}

impl Source<'_> {
    /// A source seeded with `seed`.
    pub fn seeded(seed: u64) -> Source<'static> {
        Source::Seeded(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        match self {
            Source::Seeded(state) => {
                let mut x = *state;
                x ^= x >> 12;
                x ^= x << 25;
                x ^= x >> 27;
                *state = x;
                x.wrapping_mul(0x2545_F491_4F6C_DD1D)
            }
            Source::Bytes(data) => {
                let n = data.len().min(8);
                let mut word = [0u8; 8];
                word[..n].copy_from_slice(&data[..n]);
                *data = &data[n..];
                u64::from_le_bytes(word)
            }
        }
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// One call: the instance, the argument, and after how many polls its
/// future is dropped (`None`: polled to the end).
#[derive(Debug, Clone, Copy)]
struct Call {
    inst: usize,
    x: u32,
    drop_after: Option<usize>,
}

#[derive(Debug, Clone)]
enum Op {
    /// `run_concurrent` running these calls at once (and, with `spawn`, a
    /// spawned task that is aborted).
    Concurrent { calls: Vec<Call>, spawn: bool },
    /// A `call_async` (its future dropped after `drop_after` polls).
    CallAsync(Call),
    /// A synchronous `call`.
    Call(Call),
    /// `start_call_concurrent`, dropped outside the event loop.
    StartDrop(Call),
    /// `run_concurrent` that only lets the store's other work run.
    Drain,
}

fn gen_call(rng: &mut Source<'_>) -> Call {
    let x = match rng.below(40) {
        0 => TRAP,
        1 => PANIC,
        2 => FAIL,
        _ => rng.below(50) as u32,
    };
    Call {
        inst: rng.below(2) as usize,
        x,
        drop_after: rng.chance(25).then(|| rng.below(4) as usize),
    }
}

fn gen_op(rng: &mut Source<'_>) -> Op {
    match rng.below(10) {
        0..=3 => Op::Concurrent {
            calls: (0..1 + rng.below(4)).map(|_| gen_call(rng)).collect(),
            spawn: rng.chance(20),
        },
        4 | 5 => Op::CallAsync(gen_call(rng)),
        6 => Op::Call(Call {
            drop_after: None,
            ..gen_call(rng)
        }),
        7 => Op::StartDrop(gen_call(rng)),
        _ => Op::Drain,
    }
}

/// Pending once (waking itself), then ready.
async fn yield_once() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await
}

/// Polls `future` to its end, or gives up after many polls (a call that
/// never finishes is a failure the caller reports).
fn block_on<F: Future>(future: F) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..100_000 {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return Some(v);
        }
    }
    None
}

/// Polls `future` `polls` times, then drops it; its output if it finished.
fn poll_then_drop<F: Future>(future: F, polls: usize) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..polls {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return Some(v);
        }
    }
    None
}

/// A spawned task that yields until it is aborted.
struct Forever;

impl AccessorTask<()> for Forever {
    async fn run(self, _: &Accessor<()>) -> weft::Result<()> {
        loop {
            yield_once().await;
        }
    }
}

/// The future of one concurrent call.
type CallFuture<'a> = Pin<Box<dyn Future<Output = weft::Result<(u32,)>> + 'a>>;

/// The outcome of one call: its result if it finished.
type Outcome = Option<weft::Result<(u32,)>>;

/// Runs `calls` at once in one `run_concurrent`.
fn concurrent(
    store: &mut Store<()>,
    funcs: &[TypedFunc<(u32,), (u32,)>],
    calls: &[Call],
    spawn: bool,
) -> Result<Vec<Outcome>, String> {
    let out = block_on(store.run_concurrent(async |accessor| {
        let aborted = spawn.then(|| accessor.spawn(Forever)).transpose()?;
        let mut futures: Vec<Option<CallFuture<'_>>> = calls
            .iter()
            .map(|c| Some(Box::pin(funcs[c.inst].call_concurrent(accessor, (c.x,))) as Pin<Box<_>>))
            .collect();
        let mut outcomes: Vec<Outcome> = calls.iter().map(|_| None).collect();
        let mut polls = vec![0usize; calls.len()];
        std::future::poll_fn(|cx| {
            let mut pending = false;
            for (i, f) in futures.iter_mut().enumerate() {
                let Some(fut) = f else { continue };
                if calls[i].drop_after.is_some_and(|n| polls[i] >= n) {
                    *f = None;
                    continue;
                }
                polls[i] += 1;
                match fut.as_mut().poll(cx) {
                    Poll::Ready(v) => {
                        outcomes[i] = Some(v);
                        *f = None;
                    }
                    Poll::Pending => pending = true,
                }
            }
            if pending {
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        })
        .await;
        if let Some(handle) = aborted {
            handle.abort();
            handle.await;
        }
        Ok::<_, weft::Error>(outcomes)
    }));
    match out {
        None => Err(format!(
            "run_concurrent did not finish:\n{}",
            store.debug_concurrent_state()
        )),
        Some(Err(e)) => Err(format!("run_concurrent failed: {e:#}")),
        Some(Ok(Err(e))) => Err(format!("the spawn failed: {e:#}")),
        Some(Ok(Ok(outcomes))) => Ok(outcomes),
    }
}

/// Whether `e` is an error a doomed call may end with.
fn acceptable_failure(e: &weft::Error) -> bool {
    let text = format!("{e:#}");
    [
        "unreachable",
        "cannot enter component instance",
        "host function",
        "echo failed",
    ]
    .iter()
    .any(|m| text.contains(m))
}

/// Checks one call's outcome; `doomed` says whether a call that may
/// poison its instance was issued to it (before or alongside).
fn check(call: &Call, outcome: &Outcome, doomed: bool) -> Result<(), String> {
    let counter = match outcome {
        None => &DROPPED,
        Some(Ok(_)) => &COMPLETED,
        Some(Err(_)) => &FAILED,
    };
    counter.fetch_add(1, Ordering::Relaxed);
    match outcome {
        None if call.drop_after.is_some() => Ok(()),
        None => Err(format!("{call:?} did not finish")),
        Some(Ok((v,))) if matches!(call.x, TRAP | PANIC | FAIL) => Err(format!("{call:?} returned {v}")),
        Some(Ok((v,))) if *v == call.x + 1 => Ok(()),
        Some(Ok((v,))) => Err(format!("{call:?} returned {v}, not {}", call.x + 1)),
        Some(Err(e)) if (doomed || matches!(call.x, TRAP | PANIC | FAIL)) && acceptable_failure(e) => Ok(()),
        Some(Err(e)) => Err(format!("{call:?} failed: {e:#}")),
    }
}

/// Whether a panic's payload is the host function's own.
fn host_panic(payload: &(dyn std::any::Any + Send)) -> bool {
    payload.downcast_ref::<&str>().is_some_and(|m| *m == HOST_PANIC)
        || payload.downcast_ref::<String>().is_some_and(|m| m == HOST_PANIC)
}

/// What every sequence shares: the engine, the compiled component and the
/// linker with the host's `echo`.
pub struct Fixture {
    engine: Engine,
    component: Component,
    linker: Linker<()>,
}

/// The shared part of the sequences.
pub fn fixture() -> Fixture {
    let engine = Engine::new(&Config::new()).unwrap();
    let component = Component::new(&engine, wat::parse_str(COMPONENT).unwrap()).unwrap();
    let mut linker = Linker::new(&engine);
    linker
        .root()
        .func_wrap_concurrent("echo", |_: &Accessor<()>, (a,): (u32,)| {
            Box::pin(async move {
                for _ in 0..a % 3 {
                    yield_once().await;
                }
                if a == PANIC {
                    panic!("{}", HOST_PANIC);
                }
                if a == FAIL {
                    weft::bail!("echo failed");
                }
                Ok((a,))
            })
        })
        .unwrap();
    Fixture {
        engine,
        component,
        linker,
    }
}

/// Runs the sequence that `source` chooses (`seed` names it in messages);
/// a description of the first broken property.
pub fn run_sequence(f: &Fixture, seed: u64, mut rng: Source<'_>) -> Result<(), String> {
    let mut store = Store::new(&f.engine, ());
    store.set_concurrency_schedule_seed(rng.chance(70).then(|| rng.next()));
    let funcs: Vec<TypedFunc<(u32,), (u32,)>> = (0..2)
        .map(|_| {
            let instance = f.linker.instantiate(&mut store, &f.component).unwrap();
            instance.get_typed_func(&mut store, "run").unwrap()
        })
        .collect();
    let mut doomed = [false; 2];
    let ops: Vec<Op> = (0..1 + rng.below(8)).map(|_| gen_op(&mut rng)).collect();
    for (step, op) in ops.iter().enumerate() {
        let calls: Vec<Call> = match op {
            Op::Concurrent { calls, .. } => calls.clone(),
            Op::CallAsync(c) | Op::Call(c) | Op::StartDrop(c) => vec![*c],
            Op::Drain => Vec::new(),
        };
        let was_doomed = doomed;
        for c in &calls {
            if matches!(c.x, TRAP | PANIC | FAIL) {
                doomed[c.inst] = true;
            }
        }
        let context = |e: String| format!("sequence {seed}, step {step} of {ops:?}: {e}");
        let ran = catch_unwind(AssertUnwindSafe(|| -> Result<Vec<Outcome>, String> {
            match op {
                Op::Concurrent { calls, spawn } => concurrent(&mut store, &funcs, calls, *spawn),
                Op::CallAsync(c) => Ok(vec![match c.drop_after {
                    Some(n) => poll_then_drop(funcs[c.inst].call_async(&mut store, (c.x,)), n),
                    None => Some(
                        block_on(funcs[c.inst].call_async(&mut store, (c.x,))).ok_or("call_async did not finish")?,
                    ),
                }]),
                Op::Call(c) => Ok(vec![Some(funcs[c.inst].call(&mut store, (c.x,)))]),
                Op::StartDrop(c) => {
                    let r = funcs[c.inst].start_call_concurrent(&mut store, (c.x,));
                    Ok(vec![r.err().map(Err)])
                }
                Op::Drain => {
                    block_on(store.run_concurrent(async |_| {
                        for _ in 0..8 {
                            yield_once().await;
                        }
                    }))
                    .ok_or("the drain did not finish")?
                    .map_err(|e| format!("the drain failed: {e:#}"))?;
                    Ok(Vec::new())
                }
            }
        }));
        match ran {
            Err(payload) if host_panic(&*payload) => {
                // The panic may come from any echo of 2000 in flight.
                PANICS.fetch_add(1, Ordering::Relaxed);
                doomed = [true, true];
            }
            Err(payload) => {
                let msg = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                return Err(context(format!("a panic escaped: {msg}")));
            }
            Ok(Err(e)) if doomed != [false, false] && acceptable_failure(&weft::format_err!("{e}")) => {}
            Ok(Err(e)) => return Err(context(e)),
            Ok(Ok(outcomes)) => {
                for (c, o) in calls.iter().zip(&outcomes) {
                    // A call dropped before it was issued has no outcome.
                    let o = if matches!(op, Op::StartDrop(_)) && o.is_none() {
                        &None
                    } else {
                        o
                    };
                    if matches!(op, Op::StartDrop(_)) && o.is_none() {
                        continue;
                    }
                    check(c, o, was_doomed[c.inst] || doomed[c.inst]).map_err(context)?;
                }
            }
        }
        store.check_concurrent_state().map_err(|e| context(format!("{e:#}")))?;
    }
    // Let whatever is left run to its end.
    let drained = catch_unwind(AssertUnwindSafe(|| {
        block_on(store.run_concurrent(async |_| {
            for _ in 0..16 {
                yield_once().await;
            }
        }))
    }));
    match drained {
        Err(payload) if host_panic(&*payload) => doomed = [true, true],
        Err(_) => return Err(format!("sequence {seed}: a panic escaped the final drain")),
        Ok(None) => return Err(format!("sequence {seed}: the final drain did not finish")),
        Ok(Some(Err(e))) if doomed != [false, false] && acceptable_failure(&e) => {}
        Ok(Some(Err(e))) => return Err(format!("sequence {seed}: the final drain failed: {e:#}")),
        Ok(Some(Ok(()))) => {}
    }
    store
        .check_concurrent_state()
        .map_err(|e| format!("sequence {seed} of {ops:?}: at the end: {e:#}"))?;
    if doomed == [false, false] && store.concurrent_state_table_size() != 0 {
        return Err(format!(
            "sequence {seed} of {ops:?}: the concurrent state is not empty:\n{}",
            store.debug_concurrent_state()
        ));
    }
    Ok(())
}

/// The counts of call outcomes so far: completed, failed, host panics
/// caught, dropped.
pub fn outcome_counts() -> [usize; 4] {
    [&COMPLETED, &FAILED, &PANICS, &DROPPED].map(|c| c.load(Ordering::Relaxed))
}

/// Keeps the host function's own (expected) panics out of the output;
/// other panics print as before.
pub fn quiet_host_panics() {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !host_panic(info.payload()) {
            hook(info);
        }
    }));
}

/// `concurrent_api`: the sequence a fuzz input chooses keeps every
/// guarantee (see the module docs); panics with a description otherwise.
pub fn concurrent_api_target(f: &Fixture, data: &[u8]) {
    if let Err(e) = run_sequence(f, 0, Source::Bytes(data)) {
        panic!("{e}");
    }
}
