//! The benchmark harness of `cargo xtask bench`: one process runs one
//! benchmark on one engine (Weft or Wasmtime) and prints its samples.
//!
//! ```text
//! weft-bench-harness ENGINE BENCH [ARG] [--reps N] [--gc]
//!   ENGINE  weft | wasmtime
//!   BENCH   sightglass PATH.wasm       compile, deserialize (bytes, file), instantiate (first, again), execute
//!           call-empty | call-empty-untyped | call-args8 | call-args8-untyped
//!           call-host | call-host-args8 | memory-grow
//!           atomics-counter | atomics-pingpong
//!           gc-binary-trees | gc-list-churn   (WebAssembly GC, allocation-heavy)
//!           async-call-empty | async-call-host
//!           cm-call | cm-call-untyped | cm-call-async | cm-call-async-untyped
//!           cm-call-concurrent | cm-call-concurrent-untyped
//!           cm-stream-host | cm-stream-guest | cm-futures   (components.rs)
//!           wasi-p2-start                a WASI 0.2 command's start-up (wasi_p2.rs)
//!           wasi-http-round-trip         a wasi:http request in process (wasi_http.rs)
//!           compile-synthetic NFUNCS     compile a generated module of NFUNCS functions
//!           compile PATH.wasm            compile a module file (and deserialize), nothing else
//!           instantiate-data BYTES       instantiate a module with one BYTES-long data segment
//! ```
//!
//! Each sample is printed as `sample METRIC NANOSECONDS` (per operation for
//! the call benchmarks), and facts about the input as `size BYTES`. The
//! compile and instantiate steps also print `sample compile_peak BYTES` and
//! `sample instantiate_peak BYTES`: how far the process's resident memory
//! peaked above its size before the step (once per process), not counting
//! the pages of the harness's own code that the step ran first
//! ([`peak_of`]). The same code is compiled twice, once against each crate (`engine!` below): Weft's
//! API is Wasmtime's, so only the WASI set-up differs.
//!
//! Single-threaded timed steps run with this thread pinned to one CPU
//! ([`pinned`]).
//!
//! With `--gc`, the engines of the core benchmarks (sightglass and the
//! calls) are built with `Config::wasm_gc(true)`: the same rows with the GC
//! proposal on, to see that core-only code keeps its speed.

use std::future::Future;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

mod components;
mod inputs;
mod wasi_http;
mod wasi_p2;

/// Runs a future whose host functions never really wait: polls it with a
/// no-op waker until it is ready.
fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// Whether `--gc` was given: core benchmarks run with the GC proposal on.
static GC_ON: AtomicBool = AtomicBool::new(false);

/// Runs `f` with this thread pinned to one CPU, the last of those it may
/// run on, then lets it run anywhere again; where the affinity cannot be
/// read or set, `f` just runs.
///
/// Used for the timed steps that run on one thread (a program's execution,
/// the call, component, memory and GC loops), the same for both engines.
/// On the 2-CPU virtual machine measured (AMD EPYC, Zen 3), such a step
/// left to the scheduler was 10-45 % slower in some processes and not in
/// others, in either engine (shootout-memmove ran in 17 or 22 ms unpinned,
/// 15.3 ms pinned), which drowned differences of a few percent. Over the
/// 24 execution rows of a full 5-round run, the median spread was 7-9 %
/// unpinned (two runs) and 4 % pinned. Compilation is left free: both
/// engines compile on every CPU.
fn pinned<R>(f: impl FnOnce() -> R) -> R {
    use rustix::thread::{sched_getaffinity, sched_setaffinity, CpuSet};
    let Ok(all) = sched_getaffinity(None) else { return f() };
    let Some(last) = (0..CpuSet::MAX_CPU).rev().find(|&cpu| all.is_set(cpu)) else {
        return f();
    };
    let mut one = CpuSet::new();
    one.set(last);
    let moved = sched_setaffinity(None, &one).is_ok();
    let out = f();
    if moved {
        let _ = sched_setaffinity(None, &all);
    }
    out
}

fn sample(metric: &str, d: Duration) {
    println!("sample {metric} {}", d.as_nanos());
}

/// Resident memory figures of this process, read once from
/// `/proc/self/status`, in bytes: each of `fields` is `VmRSS` (now),
/// `VmHWM` (the peak) or `RssFile` (the file-backed part now).
fn resident<const N: usize>(fields: [&str; N]) -> Option<[u64; N]> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let mut out = [0; N];
    for (slot, field) in out.iter_mut().zip(fields) {
        let line = status.lines().find(|l| l.starts_with(field))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        *slot = kib * 1024;
    }
    Some(out)
}

/// Runs `f` and prints how far the process's resident memory peaked above
/// what it was before, as the sample `METRIC_peak` (bytes). The peak is
/// reset first (`/proc/self/clear_refs`); where it cannot be, or on other
/// systems, nothing is printed. Only the first measurement of a process is
/// meaningful (freed memory stays resident for the next), so callers
/// measure once per process.
///
/// The file-backed pages the step added are left out: they are the
/// harness's own code (and its libraries') run for the first time, paged
/// in 64 KiB at a time, which measured the binary's layout rather than the
/// engine. Weft's first instantiation, for one, added 276 KiB of them and
/// no anonymous memory at all. Code pages only come in during a step, so
/// the figure is the peak of the other memory wherever the peak falls
/// after the step's code has run once.
fn peak_of<R>(metric: &str, f: impl FnOnce() -> R) -> R {
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let before = resident(["VmRSS", "RssFile"]);
    let r = f();
    if let (true, Some([before, file_before]), Some([peak, file_after])) =
        (reset, before, resident(["VmHWM", "RssFile"]))
    {
        let code = file_after.saturating_sub(file_before);
        println!("sample {metric}_peak {}", peak.saturating_sub(before).saturating_sub(code));
    }
    r
}

fn sample_per_op(metric: &str, d: Duration, ops: u64) {
    println!("sample {metric} {:.3}", d.as_nanos() as f64 / ops as f64);
}

/// How long a call benchmark runs untimed before its first sample.
///
/// One batch was not enough. On the development machine, Weft's
/// wasm-to-host calls ran at 5.6 ns per call in the first millisecond of a
/// process, 4.5 in the next and 4.1 from about 2 ms on, while Wasmtime's
/// held 4.7 from the start (the same ramp, in steps, whether or not the
/// CPU had just been busy). Samples taken at once measured that ramp, not
/// the calls.
const WARM_UP: Duration = Duration::from_millis(50);

/// Times `batches` batches of `iters` calls of `f` (after [`WARM_UP`] of
/// untimed batches) and prints the time per call of each batch.
fn batches(metric: &str, batches: usize, iters: u64, mut f: impl FnMut()) {
    let warm = Instant::now();
    while warm.elapsed() < WARM_UP {
        for _ in 0..iters {
            f();
        }
    }
    for _ in 0..batches {
        let start = Instant::now();
        for _ in 0..iters {
            f();
        }
        sample_per_op(metric, start.elapsed(), iters);
    }
}

/// How many more times a short sightglass program runs after its first run
/// in a process, and until how much execution time in all.
const EXTRA_RUNS: usize = 4;
const EXTRA_TIME: Duration = Duration::from_millis(100);

/// The state a sightglass program's store holds: WASI and the times at which
/// it called `bench.start` and `bench.end`.
struct Host<W> {
    wasi: W,
    start: Option<Instant>,
    end: Option<Instant>,
}

macro_rules! engine {
    ($name:ident, $rt:ident, $wasi_ctx:ty, $make_wasi:path, $add_wasi:path) => {
        mod $name {
            use super::*;
            use $rt::{Caller, Config, Engine, Instance, Linker, Module, Store, Val};

            type Ctx = Host<$wasi_ctx>;

            fn engine(async_support: bool) -> anyhow::Result<Engine> {
                let mut config = Config::new();
                #[allow(deprecated, reason = "the same code drives Wasmtime, whose switch is not deprecated in every version")]
                config.async_support(async_support);
                if GC_ON.load(Ordering::Relaxed) {
                    config.wasm_function_references(true);
                    config.wasm_gc(true);
                }
                Engine::new(&config).map_err(anyhow::Error::from)
            }

            pub fn sightglass(path: &Path, reps: usize) -> anyhow::Result<()> {
                let bytes = std::fs::read(path)?;
                let dir = path.parent().unwrap_or(Path::new("."));
                println!("size {}", bytes.len());
                let engine = engine(false)?;
                let mut linker = Linker::<Ctx>::new(&engine);
                $add_wasi(&mut linker, |h: &mut Ctx| &mut h.wasi)?;
                linker.func_wrap("bench", "start", |mut c: Caller<'_, Ctx>| {
                    c.data_mut().start = Some(Instant::now());
                })?;
                linker.func_wrap("bench", "end", |mut c: Caller<'_, Ctx>| {
                    c.data_mut().end = Some(Instant::now());
                })?;
                for rep in 0..reps {
                    let start = Instant::now();
                    let module = if rep == 0 {
                        peak_of("compile", || Module::new(&engine, &bytes))?
                    } else {
                        Module::new(&engine, &bytes)?
                    };
                    sample("compile", start.elapsed());

                    let serialized = module.serialize()?;
                    let start = Instant::now();
                    // SAFETY: the bytes were just made by the same engine.
                    let deserialized = unsafe { Module::deserialize(&engine, &serialized)? };
                    sample("deserialize", start.elapsed());
                    drop(deserialized);

                    // The same bytes from a file (in the page cache): an
                    // engine may map it rather than read and copy it.
                    let file = std::env::temp_dir().join(format!("weft-bench-{}.cwasm", std::process::id()));
                    std::fs::write(&file, &serialized)?;
                    let start = Instant::now();
                    // SAFETY: the file was just written from the same engine's bytes.
                    let deserialized = unsafe { Module::deserialize_file(&engine, &file)? };
                    sample("deserialize_file", start.elapsed());
                    drop(deserialized);
                    std::fs::remove_file(&file)?;

                    // The first instantiation after compiling is the one
                    // timed; short programs then run again in fresh
                    // instances for more execution samples (up to
                    // `EXTRA_RUNS` more, or about `EXTRA_TIME` in all).
                    let mut executed = Duration::ZERO;
                    let mut run = 0;
                    while run == 0 || (run <= EXTRA_RUNS && executed < EXTRA_TIME) {
                        let host = Host { wasi: $make_wasi(dir)?, start: None, end: None };
                        let mut store = Store::new(&engine, host);
                        let start = Instant::now();
                        let instance = if rep == 0 && run == 0 {
                            peak_of("instantiate", || linker.instantiate(&mut store, &module))?
                        } else {
                            linker.instantiate(&mut store, &module)?
                        };
                        if run == 0 {
                            sample("instantiate", start.elapsed());
                        }
                        let entry = instance.get_typed_func::<(), ()>(&mut store, "_start")?;
                        pinned(|| entry.call(&mut store, ()))?;
                        let data = store.data();
                        match (data.start, data.end) {
                            (Some(s), Some(e)) => {
                                sample("execute", e - s);
                                executed += e - s;
                            }
                            _ => anyhow::bail!("the program did not call bench.start and bench.end"),
                        }
                        run += 1;
                    }

                    // Instantiating the same module again: work an engine
                    // defers to the first instantiation is done by now.
                    let host = Host { wasi: $make_wasi(dir)?, start: None, end: None };
                    let mut store = Store::new(&engine, host);
                    let start = Instant::now();
                    let instance = linker.instantiate(&mut store, &module)?;
                    sample("instantiate_again", start.elapsed());
                    let _ = instance; // `Instance` is `Copy` on both engines: nothing to drop.
                }
                Ok(())
            }

            const CALLS: &str = r#"(module
                (import "host" "nop" (func $nop))
                (import "host" "nop8" (func $nop8 (param i32 i64 f32 f64 i32 i64 f32 f64) (result i64)))
                (func (export "empty"))
                (func (export "args8") (param i32 i64 f32 f64 i32 i64 f32 f64) (result i64)
                    local.get 1)
                (func (export "call_host") (param $n i32)
                    (loop $l
                        call $nop
                        (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
                (func (export "call_host_args8") (param $n i32)
                    (loop $l
                        (drop (call $nop8 (local.get $n) (i64.const 2) (f32.const 3) (f64.const 4)
                                          (i32.const 5) (i64.const 6) (f32.const 7) (f64.const 8)))
                        (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))))"#;

            const IN_WASM_LOOP: i32 = 1000;

            pub fn calls(bench: &str, reps: usize) -> anyhow::Result<()> {
                let engine = engine(false)?;
                let module = Module::new(&engine, CALLS)?;
                let mut linker = Linker::<()>::new(&engine);
                linker.func_wrap("host", "nop", || {})?;
                linker.func_wrap(
                    "host",
                    "nop8",
                    |a: i32, b: i64, c: f32, d: f64, e: i32, f: i64, g: f32, h: f64| -> i64 {
                        a as i64 + b + c as i64 + d as i64 + e as i64 + f + g as i64 + h as i64
                    },
                )?;
                let mut store = Store::new(&engine, ());
                let instance = linker.instantiate(&mut store, &module)?;
                let iters = 20_000;
                match bench {
                    "call-empty" => {
                        let f = instance.get_typed_func::<(), ()>(&mut store, "empty")?;
                        batches("per_call", reps, iters, || f.call(&mut store, ()).unwrap());
                    }
                    "call-empty-untyped" => {
                        let f = instance.get_func(&mut store, "empty").unwrap();
                        batches("per_call", reps, iters, || f.call(&mut store, &[], &mut []).unwrap());
                    }
                    "call-args8" => {
                        let f = instance
                            .get_typed_func::<(i32, i64, f32, f64, i32, i64, f32, f64), i64>(&mut store, "args8")?;
                        batches("per_call", reps, iters, || {
                            let r = f.call(&mut store, (1, 2, 3.0, 4.0, 5, 6, 7.0, 8.0)).unwrap();
                            assert_eq!(r, 2);
                        });
                    }
                    "call-args8-untyped" => {
                        let f = instance.get_func(&mut store, "args8").unwrap();
                        let args = [
                            Val::I32(1),
                            Val::I64(2),
                            Val::F32(3f32.to_bits()),
                            Val::F64(4f64.to_bits()),
                            Val::I32(5),
                            Val::I64(6),
                            Val::F32(7f32.to_bits()),
                            Val::F64(8f64.to_bits()),
                        ];
                        let mut results = [Val::I64(0)];
                        batches("per_call", reps, iters, || {
                            f.call(&mut store, &args, &mut results).unwrap();
                        });
                    }
                    "call-host" | "call-host-args8" => {
                        let name = if bench == "call-host" { "call_host" } else { "call_host_args8" };
                        let f = instance.get_typed_func::<i32, ()>(&mut store, name)?;
                        let warm = Instant::now();
                        while warm.elapsed() < WARM_UP {
                            f.call(&mut store, IN_WASM_LOOP)?;
                        }
                        for _ in 0..reps {
                            let start = Instant::now();
                            for _ in 0..20 {
                                f.call(&mut store, IN_WASM_LOOP)?;
                            }
                            sample_per_op("per_call", start.elapsed(), 20 * IN_WASM_LOOP as u64);
                        }
                    }
                    _ => anyhow::bail!("unknown benchmark `{bench}`"),
                }
                Ok(())
            }

            pub fn async_calls(bench: &str, reps: usize) -> anyhow::Result<()> {
                let engine = engine(true)?;
                let module = Module::new(
                    &engine,
                    r#"(module
                        (import "host" "nop_async" (func $nop_async))
                        (func (export "empty"))
                        (func (export "call_host") call $nop_async))"#,
                )?;
                let mut linker = Linker::<()>::new(&engine);
                linker.func_wrap_async("host", "nop_async", |_c: Caller<'_, ()>, (): ()| Box::new(async {}))?;
                let mut store = Store::new(&engine, ());
                let instance = block_on(linker.instantiate_async(&mut store, &module))?;
                let name = match bench {
                    "async-call-empty" => "empty",
                    "async-call-host" => "call_host",
                    _ => anyhow::bail!("unknown benchmark `{bench}`"),
                };
                let f = instance.get_typed_func::<(), ()>(&mut store, name)?;
                batches("per_call", reps, 5_000, || block_on(f.call_async(&mut store, ())).unwrap());
                Ok(())
            }

            pub fn memory_grow(reps: usize) -> anyhow::Result<()> {
                let engine = engine(false)?;
                let module = Module::new(
                    &engine,
                    r#"(module
                        (memory 1)
                        (func (export "grow") (param $n i32)
                            (loop $l
                                (drop (memory.grow (i32.const 1)))
                                (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))))"#,
                )?;
                let grows = 1000;
                for _ in 0..reps {
                    let mut store = Store::new(&engine, ());
                    let instance = Instance::new(&mut store, &module, &[])?;
                    let grow = instance.get_typed_func::<i32, ()>(&mut store, "grow")?;
                    let start = Instant::now();
                    grow.call(&mut store, grows)?;
                    sample_per_op("per_grow", start.elapsed(), grows as u64);
                }
                Ok(())
            }

            const ATOMICS: &str = r#"(module
                (import "env" "mem" (memory 1 1 shared))
                ;; Adds 1 to the counter at 64, $n times.
                (func (export "count") (param $n i32)
                    (loop $l
                        (drop (i32.atomic.rmw.add (i32.const 64) (i32.const 1)))
                        (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
                ;; Player $me (0 or 1) takes $n turns: it sleeps until the
                ;; turn word at 0 is $me, then hands it to the other and
                ;; wakes them.
                (func (export "play") (param $me i32) (param $n i32)
                    (local $other i32)
                    (local.set $other (i32.sub (i32.const 1) (local.get $me)))
                    (loop $turn
                        (block $mine
                            (loop $sleep
                                (br_if $mine (i32.eq (i32.atomic.load (i32.const 0)) (local.get $me)))
                                (drop (memory.atomic.wait32 (i32.const 0) (local.get $other) (i64.const -1)))
                                (br $sleep)))
                        (i32.atomic.store (i32.const 0) (local.get $other))
                        (drop (memory.atomic.notify (i32.const 0) (i32.const 1)))
                        (br_if $turn (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))))"#;

            /// Two threads, each with its own store and an instance
            /// importing one shared memory: `atomics-counter` increments
            /// one counter from both (contended), `atomics-pingpong` hands
            /// a turn back and forth with wait and notify. The time per
            /// increment or per hand-off, from both threads' start to both
            /// ends.
            pub fn atomics(bench: &str, reps: usize) -> anyhow::Result<()> {
                use std::sync::{Arc, Barrier};
                use $rt::{MemoryType, SharedMemory, WaitResult};
                let mut config = Config::new();
                config.wasm_threads(true);
                config.shared_memory(true);
                let engine = Engine::new(&config).map_err(anyhow::Error::from)?;
                let module = Module::new(&engine, ATOMICS)?;
                let ops: i32 = match bench {
                    "atomics-counter" => 1_000_000,
                    "atomics-pingpong" => 20_000,
                    _ => anyhow::bail!("unknown benchmark `{bench}`"),
                };
                // A first round warms up, untimed.
                for rep in 0..=reps {
                    let memory = SharedMemory::new(&engine, MemoryType::shared(1, 1))?;
                    let start = Arc::new(Barrier::new(3));
                    let threads: Vec<_> = (0..2)
                        .map(|me| {
                            let (module, memory, start) = (module.clone(), memory.clone(), start.clone());
                            let bench = bench.to_string();
                            std::thread::spawn(move || -> anyhow::Result<()> {
                                let mut store = Store::new(module.engine(), ());
                                let instance = Instance::new(&mut store, &module, &[memory.into()])?;
                                if bench == "atomics-counter" {
                                    let count = instance.get_typed_func::<i32, ()>(&mut store, "count")?;
                                    start.wait();
                                    count.call(&mut store, ops)?;
                                } else {
                                    let play = instance.get_typed_func::<(i32, i32), ()>(&mut store, "play")?;
                                    start.wait();
                                    play.call(&mut store, (me, ops))?;
                                }
                                Ok(())
                            })
                        })
                        .collect();
                    start.wait();
                    let began = Instant::now();
                    for t in threads {
                        t.join().map_err(|_| anyhow::anyhow!("a benchmark thread panicked"))??;
                    }
                    let elapsed = began.elapsed();
                    if bench == "atomics-counter" {
                        // A wait that does not time out only if the counter
                        // holds something else: no increment was lost.
                        let seen = memory.atomic_wait32(64, 2 * ops as u32, Some(Duration::ZERO));
                        anyhow::ensure!(matches!(seen, Ok(WaitResult::TimedOut)), "increments were lost");
                    }
                    if rep > 0 {
                        sample_per_op("per_op", elapsed, 2 * ops as u64);
                    }
                }
                Ok(())
            }

            /// Builds a GC engine with each crate's default collector.
            fn gc_engine() -> anyhow::Result<Engine> {
                let mut config = Config::new();
                config.wasm_function_references(true);
                config.wasm_gc(true);
                Engine::new(&config).map_err(anyhow::Error::from)
            }

            /// The GC benchmarks (`inputs::GC_BENCHES`): each rep runs the
            /// program once in a fresh store (after an untimed warm-up
            /// run) and checks its result.
            pub fn gc(bench: &str, reps: usize) -> anyhow::Result<()> {
                let engine = gc_engine()?;
                let module = Module::new(&engine, inputs::GC_BENCHES)?;
                let (name, arg1, arg2, expected) = inputs::gc_bench(bench)?;
                for rep in 0..=reps {
                    let mut store = Store::new(&engine, ());
                    let instance = Instance::new(&mut store, &module, &[])?;
                    let f = instance.get_typed_func::<(i32, i32), i32>(&mut store, name)?;
                    let start = Instant::now();
                    let r = f.call(&mut store, (arg1, arg2))?;
                    let elapsed = start.elapsed();
                    anyhow::ensure!(r == expected, "`{bench}` returned {r}, not {expected}");
                    if rep > 0 {
                        sample("run", elapsed);
                    }
                }
                Ok(())
            }

            pub fn compile_synthetic(funcs: usize, reps: usize) -> anyhow::Result<()> {
                compile_bytes(&inputs::synthetic_module(funcs), reps)
            }

            pub fn compile_file(path: &Path, reps: usize) -> anyhow::Result<()> {
                compile_bytes(&std::fs::read(path)?, reps)
            }

            /// Compiles `bytes` `reps` times, and deserializes what each
            /// compilation serializes.
            fn compile_bytes(bytes: &[u8], reps: usize) -> anyhow::Result<()> {
                println!("size {}", bytes.len());
                let engine = engine(false)?;
                for rep in 0..reps {
                    let start = Instant::now();
                    let module = if rep == 0 {
                        peak_of("compile", || Module::new(&engine, bytes))?
                    } else {
                        Module::new(&engine, bytes)?
                    };
                    sample("compile", start.elapsed());

                    let serialized = module.serialize()?;
                    let start = Instant::now();
                    // SAFETY: the bytes were just made by the same engine.
                    let deserialized = unsafe { Module::deserialize(&engine, &serialized)? };
                    sample("deserialize", start.elapsed());
                    drop(deserialized);
                    drop(module);
                }
                Ok(())
            }

            pub fn instantiate_data(size: usize, reps: usize) -> anyhow::Result<()> {
                let bytes = inputs::data_module(size);
                println!("size {size}");
                let engine = engine(false)?;
                let module = Module::new(&engine, &bytes)?;
                // Warm-up: the first instantiation may prepare lazily built state.
                {
                    let mut store = Store::new(&engine, ());
                    Instance::new(&mut store, &module, &[])?;
                }
                for rep in 0..reps {
                    let mut store = Store::new(&engine, ());
                    let start = Instant::now();
                    let instance = if rep == 0 {
                        peak_of("instantiate", || Instance::new(&mut store, &module, &[]))?
                    } else {
                        Instance::new(&mut store, &module, &[])?
                    };
                    sample("instantiate", start.elapsed());
                    // The segment really is there.
                    let memory = instance.get_memory(&mut store, "memory").unwrap();
                    assert_eq!(memory.data(&store)[size - 1], inputs::data_byte(size - 1));
                }
                Ok(())
            }
        }
    };
}

fn weft_wasi(dir: &Path) -> anyhow::Result<weft_wasi::WasiP1Ctx> {
    use weft_wasi::{FsPerms, WasiCtxBuilder};
    let mut b = WasiCtxBuilder::new();
    b.arg("benchmark");
    b.preopened_dir(dir, ".", FsPerms::ReadWrite)?;
    Ok(b.build_p1())
}

fn wasmtime_wasi(dir: &Path) -> anyhow::Result<wasmtime_wasi::p1::WasiP1Ctx> {
    use wasmtime_wasi::{FsPerms, WasiCtxBuilder};
    let mut b = WasiCtxBuilder::new();
    b.arg("benchmark");
    b.preopened_dir(dir, ".", FsPerms::ReadWrite)?;
    Ok(b.build_p1())
}

engine!(
    weft_engine,
    weft,
    weft_wasi::WasiP1Ctx,
    weft_wasi,
    weft_wasi::preview1::add_to_linker_sync
);
engine!(
    wasmtime_engine,
    wasmtime,
    wasmtime_wasi::p1::WasiP1Ctx,
    wasmtime_wasi,
    wasmtime_wasi::p1::add_to_linker_sync
);

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e:?}");
        std::process::exit(1);
    }
}

fn run() -> anyhow::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut reps = 5;
    if let Some(i) = args.iter().position(|a| a == "--reps") {
        reps = args.get(i + 1).and_then(|n| n.parse().ok()).unwrap_or(reps);
        args.drain(i..(i + 2).min(args.len()));
    }
    if let Some(i) = args.iter().position(|a| a == "--gc") {
        GC_ON.store(true, Ordering::Relaxed);
        args.remove(i);
    }
    let [engine, bench, rest @ ..] = args.as_slice() else {
        anyhow::bail!("usage: weft-bench-harness weft|wasmtime BENCH [ARG] [--reps N] [--gc]");
    };
    let arg = rest.first().map(String::as_str);
    let number = || -> anyhow::Result<usize> {
        arg.and_then(|a| a.parse().ok())
            .ok_or_else(|| anyhow::anyhow!("`{bench}` needs a number"))
    };
    macro_rules! dispatch {
        ($m:ident) => {
            match bench.as_str() {
                "sightglass" => $m::sightglass(Path::new(arg.unwrap_or_default()), reps),
                "memory-grow" => pinned(|| $m::memory_grow(reps)),
                b if b.starts_with("atomics-") => $m::atomics(b, reps),
                b if b.starts_with("gc-") => pinned(|| $m::gc(b, reps)),
                "compile-synthetic" => $m::compile_synthetic(number()?, reps),
                "compile" => $m::compile_file(Path::new(arg.unwrap_or_default()), reps),
                "instantiate-data" => $m::instantiate_data(number()?, reps),
                b if b.starts_with("async-") => pinned(|| $m::async_calls(b, reps)),
                b => pinned(|| $m::calls(b, reps)),
            }
        };
    }
    if bench == "wasi-p2-start" {
        return match engine.as_str() {
            "weft" => wasi_p2::weft_p2::run(reps),
            "wasmtime" => wasi_p2::wasmtime_p2::run(reps),
            e => anyhow::bail!("unknown engine `{e}` (weft or wasmtime)"),
        };
    }
    if bench == "wasi-http-round-trip" {
        return match engine.as_str() {
            "weft" => wasi_http::weft_http::run(reps),
            "wasmtime" => wasi_http::wasmtime_http::run(reps),
            e => anyhow::bail!("unknown engine `{e}` (weft or wasmtime)"),
        };
    }
    if bench.starts_with("cm-") {
        return match engine.as_str() {
            "weft" => pinned(|| components::weft_components::run(bench, reps)),
            "wasmtime" => pinned(|| components::wasmtime_components::run(bench, reps)),
            e => anyhow::bail!("unknown engine `{e}` (weft or wasmtime)"),
        };
    }
    match engine.as_str() {
        "weft" => dispatch!(weft_engine),
        "wasmtime" => dispatch!(wasmtime_engine),
        e => anyhow::bail!("unknown engine `{e}` (weft or wasmtime)"),
    }
}
