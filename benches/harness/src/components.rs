//! The component-model benchmarks (`cm-*`): calls of a component export
//! (`call`, `call_async`, `call_concurrent`, typed and dynamic), a stream
//! moving 1 MiB in 4 KiB chunks from the host to a guest and from a guest to
//! a guest, and 1,000 concurrent tasks each waiting on a future the host
//! resolves. The components are the same text on both engines; the
//! `component_engine!` macro compiles the same driving code against each
//! crate, whose component APIs have the same names.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// `add1: func(x: u32) -> u32` lifted synchronously, and `add1-async`, the
/// same lifted `async` with a callback (it returns with `task.return` and
/// exits at once).
pub const CALLS: &str = r#"(component
    (core func $ret (canon task.return (result u32)))
    (core module $m
        (import "" "task.return" (func $ret (param i32)))
        (func (export "add1") (param i32) (result i32)
            (i32.add (local.get 0) (i32.const 1)))
        (func (export "add1-async") (param i32) (result i32)
            (call $ret (i32.add (local.get 0) (i32.const 1)))
            (i32.const 0))
        (func (export "cb") (param i32 i32 i32) (result i32) unreachable))
    (core instance $i (instantiate $m (with "" (instance (export "task.return" (func $ret))))))
    (func (export "add1") (param "x" u32) (result u32)
        (canon lift (core func $i "add1")))
    (func (export "add1-async") async (param "x" u32) (result u32)
        (canon lift (core func $i "add1-async") async (callback (core func $i "cb"))))
)"#;

/// Bytes a stream benchmark moves, and the size of each read and write.
pub const STREAM_BYTES: u32 = 1 << 20;
pub const CHUNK: usize = 4096;

/// Streams of bytes, with asynchronous `stream.read`/`stream.write` and the
/// callback's WAIT on a waitable set whenever a copy blocks (the way
/// callback-lifted guests are written).
///
/// - `consume: async func(s: stream<u8>) -> u32` reads 4 KiB at a time until
///   the writer drops, then returns the number of bytes read.
/// - `produce: async func() -> stream<u8>` returns a new stream, then writes
///   1 MiB to it 4 KiB at a time and drops it.
///
/// Each instance runs one task at a time: its state is in globals.
pub const STREAMS: &str = r#"(component
    (core module $libc (memory (export "mem") 1))
    (core instance $libc (instantiate $libc))
    (type $S (stream u8))
    (core func $ret_u32 (canon task.return (result u32)))
    (core func $ret_s (canon task.return (result $S)))
    (core func $read (canon stream.read $S async (memory (core memory $libc "mem"))))
    (core func $write (canon stream.write $S async (memory (core memory $libc "mem"))))
    (core func $snew (canon stream.new $S))
    (core func $drop_r (canon stream.drop-readable $S))
    (core func $drop_w (canon stream.drop-writable $S))
    (core func $ws_new (canon waitable-set.new))
    (core func $join (canon waitable.join))
    (core func $ws_drop (canon waitable-set.drop))
    (core module $m
        (import "" "mem" (memory 1))
        (import "" "ret-u32" (func $ret_u32 (param i32)))
        (import "" "ret-s" (func $ret_s (param i32)))
        (import "" "read" (func $read (param i32 i32 i32) (result i32)))
        (import "" "write" (func $write (param i32 i32 i32) (result i32)))
        (import "" "snew" (func $snew (result i64)))
        (import "" "drop-r" (func $drop_r (param i32)))
        (import "" "drop-w" (func $drop_w (param i32)))
        (import "" "ws.new" (func $ws_new (result i32)))
        (import "" "join" (func $join (param i32 i32)))
        (import "" "ws.drop" (func $ws_drop (param i32)))
        ;; The stream end this instance reads or writes, its waitable set,
        ;; the bytes read so far, the bytes left to write.
        (global $s (mut i32) (i32.const 0))
        (global $ws (mut i32) (i32.const 0))
        (global $total (mut i32) (i32.const 0))
        (global $left (mut i32) (i32.const 0))
        (func $wait (result i32)
            (i32.or (i32.const 2) (i32.shl (global.get $ws) (i32.const 4))))

        (func (export "consume") (param $s i32) (result i32)
            (global.set $s (local.get $s))
            (global.set $total (i32.const 0))
            (global.set $ws (call $ws_new))
            (call $join (local.get $s) (global.get $ws))
            (call $read_loop))
        ;; Adds a read's count; whether the stream goes on.
        (func $consumed (param $ret i32) (result i32)
            (global.set $total (i32.add (global.get $total) (i32.shr_u (local.get $ret) (i32.const 4))))
            (i32.eqz (i32.and (local.get $ret) (i32.const 0xf))))
        (func $read_loop (result i32)
            (local $ret i32)
            (loop $l
                (local.set $ret (call $read (global.get $s) (i32.const 4096) (i32.const 4096)))
                (if (i32.eq (local.get $ret) (i32.const -1)) (then (return (call $wait))))
                (br_if $l (call $consumed (local.get $ret))))
            (call $end_read))
        (func $end_read (result i32)
            (call $drop_r (global.get $s))
            (call $ws_drop (global.get $ws))
            (call $ret_u32 (global.get $total))
            (i32.const 0))
        (func (export "consume-cb") (param $event i32) (param $index i32) (param $payload i32) (result i32)
            (if (i32.ne (local.get $event) (i32.const 2)) (then unreachable))
            (if (call $consumed (local.get $payload)) (then (return (call $read_loop))))
            (call $end_read))

        (func (export "produce") (result i32)
            (local $r64 i64)
            (local.set $r64 (call $snew))
            (global.set $s (i32.wrap_i64 (i64.shr_u (local.get $r64) (i64.const 32))))
            (global.set $left (i32.const 1048576))
            (global.set $ws (call $ws_new))
            (call $join (global.get $s) (global.get $ws))
            (call $ret_s (i32.wrap_i64 (local.get $r64)))
            (call $write_loop))
        ;; Subtracts a write's count; whether to write more.
        (func $written (param $ret i32) (result i32)
            (global.set $left (i32.sub (global.get $left) (i32.shr_u (local.get $ret) (i32.const 4))))
            (i32.and
                (i32.eqz (i32.and (local.get $ret) (i32.const 0xf)))
                (i32.gt_s (global.get $left) (i32.const 0))))
        (func $write_loop (result i32)
            (local $ret i32)
            (loop $l
                (local.set $ret (call $write (global.get $s) (i32.const 4096)
                    (select (i32.const 4096) (global.get $left)
                        (i32.gt_u (global.get $left) (i32.const 4096)))))
                (if (i32.eq (local.get $ret) (i32.const -1)) (then (return (call $wait))))
                (br_if $l (call $written (local.get $ret))))
            (call $end_write))
        (func $end_write (result i32)
            (call $drop_w (global.get $s))
            (call $ws_drop (global.get $ws))
            (i32.const 0))
        (func (export "produce-cb") (param $event i32) (param $index i32) (param $payload i32) (result i32)
            (if (i32.ne (local.get $event) (i32.const 3)) (then unreachable))
            (if (call $written (local.get $payload)) (then (return (call $write_loop))))
            (call $end_write)))
    (core instance $i (instantiate $m (with "" (instance
        (export "mem" (memory $libc "mem"))
        (export "ret-u32" (func $ret_u32))
        (export "ret-s" (func $ret_s))
        (export "read" (func $read))
        (export "write" (func $write))
        (export "snew" (func $snew))
        (export "drop-r" (func $drop_r))
        (export "drop-w" (func $drop_w))
        (export "ws.new" (func $ws_new))
        (export "join" (func $join))
        (export "ws.drop" (func $ws_drop))))))
    (func (export "consume") async (param "s" $S) (result u32)
        (canon lift (core func $i "consume") async (callback (core func $i "consume-cb"))))
    (func (export "produce") async (result $S)
        (canon lift (core func $i "produce") async (callback (core func $i "produce-cb"))))
)"#;

/// Concurrent tasks.
pub const TASKS: usize = 1000;

/// `wait: async func(f: future<u32>) -> u32` reads the future
/// (asynchronously; when the read blocks, it waits on a waitable set of its
/// own, kept in context slot 0) and returns its value. Each future's value
/// lands at `64 + 4 * handle`.
pub const FUTURES: &str = r#"(component
    (core module $libc (memory (export "mem") 1))
    (core instance $libc (instantiate $libc))
    (type $F (future u32))
    (core func $ret_u32 (canon task.return (result u32)))
    (core func $fread (canon future.read $F async (memory (core memory $libc "mem"))))
    (core func $fdrop_r (canon future.drop-readable $F))
    (core func $ws_new (canon waitable-set.new))
    (core func $join (canon waitable.join))
    (core func $ws_drop (canon waitable-set.drop))
    (core func $context_get (canon context.get i32 0))
    (core func $context_set (canon context.set i32 0))
    (core module $m
        (import "" "mem" (memory 1))
        (import "" "ret-u32" (func $ret_u32 (param i32)))
        (import "" "fread" (func $fread (param i32 i32) (result i32)))
        (import "" "fdrop-r" (func $fdrop_r (param i32)))
        (import "" "ws.new" (func $ws_new (result i32)))
        (import "" "join" (func $join (param i32 i32)))
        (import "" "ws.drop" (func $ws_drop (param i32)))
        (import "" "context.get" (func $context_get (result i32)))
        (import "" "context.set" (func $context_set (param i32)))
        (func $slot (param $f i32) (result i32)
            (i32.add (i32.const 64) (i32.shl (local.get $f) (i32.const 2))))
        ;; Drops the future and returns its value.
        (func $done (param $f i32) (result i32)
            (local $v i32)
            (local.set $v (i32.load (call $slot (local.get $f))))
            (call $fdrop_r (local.get $f))
            (call $ret_u32 (local.get $v))
            (i32.const 0))
        (func (export "wait") (param $f i32) (result i32)
            (local $ret i32) (local $ws i32)
            (local.set $ret (call $fread (local.get $f) (call $slot (local.get $f))))
            (if (i32.ne (local.get $ret) (i32.const -1)) (then
                (if (i32.ne (i32.and (local.get $ret) (i32.const 0xf)) (i32.const 0)) (then unreachable))
                (return (call $done (local.get $f)))))
            (local.set $ws (call $ws_new))
            (call $context_set (local.get $ws))
            (call $join (local.get $f) (local.get $ws))
            (i32.or (i32.const 2) (i32.shl (local.get $ws) (i32.const 4))))
        (func (export "wait-cb") (param $event i32) (param $index i32) (param $payload i32) (result i32)
            (local $r i32)
            (if (i32.ne (local.get $event) (i32.const 4)) (then unreachable))
            (if (i32.ne (i32.and (local.get $payload) (i32.const 0xf)) (i32.const 0)) (then unreachable))
            (local.set $r (call $done (local.get $index)))
            (call $ws_drop (call $context_get))
            (local.get $r)))
    (core instance $i (instantiate $m (with "" (instance
        (export "mem" (memory $libc "mem"))
        (export "ret-u32" (func $ret_u32))
        (export "fread" (func $fread))
        (export "fdrop-r" (func $fdrop_r))
        (export "ws.new" (func $ws_new))
        (export "join" (func $join))
        (export "ws.drop" (func $ws_drop))
        (export "context.get" (func $context_get))
        (export "context.set" (func $context_set))))))
    (func (export "wait") async (param "f" $F) (result u32)
        (canon lift (core func $i "wait") async (callback (core func $i "wait-cb"))))
)"#;

/// A boxed future, for [`join_all`].
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// Polls every future until all are done; their outputs in order.
pub async fn join_all<T>(futures: Vec<BoxFuture<'_, T>>) -> Vec<T> {
    let mut futures: Vec<_> = futures.into_iter().map(Some).collect();
    let mut out: Vec<Option<T>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, o) in futures.iter_mut().zip(out.iter_mut()) {
            if let Some(fut) = f {
                match fut.as_mut().poll(cx) {
                    Poll::Ready(v) => {
                        *o = Some(v);
                        *f = None;
                    }
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    out.into_iter().map(|o| o.expect("finished")).collect()
}

/// Holds every waiter until `n` of them have been polled, then lets all go:
/// the host's side of the futures of the `TASKS` benchmark, so that every
/// guest task is waiting before any future resolves.
pub struct Gate {
    n: usize,
    state: Mutex<(bool, Vec<Option<Waker>>)>,
}

impl Gate {
    pub fn new(n: usize) -> Arc<Gate> {
        Arc::new(Gate {
            n,
            state: Mutex::new((false, vec![None; n])),
        })
    }

    /// Waits until the gate opens, then gives `i`.
    pub async fn wait(self: Arc<Gate>, i: usize) -> Result<u32, std::io::Error> {
        std::future::poll_fn(|cx: &mut Context<'_>| {
            let mut state = self.state.lock().unwrap();
            if state.0 {
                return Poll::Ready(());
            }
            state.1[i] = Some(cx.waker().clone());
            if state.1.iter().filter(|w| w.is_some()).count() == self.n {
                state.0 = true;
                for w in state.1.iter_mut() {
                    if let Some(w) = w.take() {
                        w.wake();
                    }
                }
                return Poll::Ready(());
            }
            Poll::Pending
        })
        .await;
        Ok(i as u32)
    }
}

macro_rules! component_engine {
    ($name:ident, $rt:ident) => {
        pub mod $name {
            use crate::components::*;
            use crate::{batches, block_on, sample};
            use $rt::component::{
                Component, Destination, FutureReader, Instance, Linker, StreamProducer, StreamReader,
                StreamResult, TypedFunc, Val, VecBuffer,
            };
            use $rt::{Config, Engine, Store, StoreContextMut};
            use std::time::Instant;

            fn engine() -> anyhow::Result<Engine> {
                Engine::new(&Config::new()).map_err(anyhow::Error::from)
            }

            fn instance(engine: &Engine, store: &mut Store<()>, wat: &str) -> anyhow::Result<Instance> {
                let component = Component::new(engine, wat)?;
                Ok(Linker::<()>::new(engine).instantiate(store, &component)?)
            }

            /// Gives `STREAM_BYTES` bytes in chunks of `CHUNK`.
            ///
            /// Each chunk is a new filled vector, not a clone of a kept one:
            /// a 4 KiB copy between two heap blocks that lie 4 KiB plus a
            /// few bytes apart (as consecutive blocks do) hits the CPU's 4K
            /// aliasing and takes 4-5 times longer, so the row measured
            /// where `malloc` put the blocks rather than the engine.
            struct Chunks {
                left: u32,
            }

            impl<D> StreamProducer<D> for Chunks {
                type Item = u8;
                type Buffer = VecBuffer<u8>;

                fn poll_produce<'a>(
                    self: Pin<&mut Self>,
                    _cx: &mut Context<'_>,
                    _store: StoreContextMut<'a, D>,
                    mut destination: Destination<'a, u8, VecBuffer<u8>>,
                    _finish: bool,
                ) -> Poll<$rt::Result<StreamResult>> {
                    let me = self.get_mut();
                    if me.left == 0 {
                        return Poll::Ready(Ok(StreamResult::Dropped));
                    }
                    me.left -= CHUNK as u32;
                    destination.set_buffer(vec![7; CHUNK].into());
                    Poll::Ready(Ok(StreamResult::Completed))
                }
            }

            pub fn run(bench: &str, reps: usize) -> anyhow::Result<()> {
                let engine = engine()?;
                let mut store = Store::new(&engine, ());
                match bench {
                    "cm-call" | "cm-call-untyped" | "cm-call-async" | "cm-call-async-untyped" => {
                        let instance = instance(&engine, &mut store, CALLS)?;
                        let typed: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "add1")?;
                        let func = instance.get_func(&mut store, "add1").expect("add1");
                        let mut results = [Val::U32(0)];
                        match bench {
                            "cm-call" => batches("per_call", reps, 20_000, || {
                                assert_eq!(typed.call(&mut store, (1,)).unwrap(), (2,));
                            }),
                            "cm-call-untyped" => batches("per_call", reps, 20_000, || {
                                func.call(&mut store, &[Val::U32(1)], &mut results).unwrap();
                                assert_eq!(results[0], Val::U32(2));
                            }),
                            "cm-call-async" => batches("per_call", reps, 5_000, || {
                                assert_eq!(block_on(typed.call_async(&mut store, (1,))).unwrap(), (2,));
                            }),
                            _ => batches("per_call", reps, 5_000, || {
                                block_on(func.call_async(&mut store, &[Val::U32(1)], &mut results)).unwrap();
                                assert_eq!(results[0], Val::U32(2));
                            }),
                        }
                    }
                    "cm-call-concurrent" | "cm-call-concurrent-untyped" => {
                        let instance = instance(&engine, &mut store, CALLS)?;
                        let typed: TypedFunc<(u32,), (u32,)> =
                            instance.get_typed_func(&mut store, "add1-async")?;
                        let func = instance.get_func(&mut store, "add1-async").expect("add1-async");
                        let untyped = bench.ends_with("untyped");
                        let iters = 5_000u64;
                        block_on(store.run_concurrent(async |accessor| -> anyhow::Result<()> {
                            // A warm-up batch, then the timed ones.
                            for rep in 0..=reps {
                                let start = Instant::now();
                                for _ in 0..iters {
                                    if untyped {
                                        let mut results = [Val::U32(0)];
                                        func.call_concurrent(accessor, &[Val::U32(1)], &mut results).await?;
                                        assert_eq!(results[0], Val::U32(2));
                                    } else {
                                        assert_eq!(typed.call_concurrent(accessor, (1,)).await?, (2,));
                                    }
                                }
                                if rep > 0 {
                                    crate::sample_per_op("per_call", start.elapsed(), iters);
                                }
                            }
                            Ok(())
                        }))??;
                    }
                    "cm-stream-host" => {
                        let instance = instance(&engine, &mut store, STREAMS)?;
                        let consume: TypedFunc<(StreamReader<u8>,), (u32,)> =
                            instance.get_typed_func(&mut store, "consume")?;
                        for rep in 0..=reps {
                            let start = Instant::now();
                            let reader = StreamReader::new(
                                &mut store,
                                Chunks {
                                    left: STREAM_BYTES,
                                },
                            )?;
                            let out = block_on(
                                store.run_concurrent(async |a| consume.call_concurrent(a, (reader,)).await),
                            )??;
                            assert_eq!(out, (STREAM_BYTES,));
                            if rep > 0 {
                                sample("per_stream", start.elapsed());
                            }
                        }
                    }
                    "cm-stream-guest" => {
                        // Two instances: one writes, the other reads; the
                        // host only hands the readable end from one to the
                        // other.
                        let writer = instance(&engine, &mut store, STREAMS)?;
                        let reader = instance(&engine, &mut store, STREAMS)?;
                        let produce: TypedFunc<(), (StreamReader<u8>,)> =
                            writer.get_typed_func(&mut store, "produce")?;
                        let consume: TypedFunc<(StreamReader<u8>,), (u32,)> =
                            reader.get_typed_func(&mut store, "consume")?;
                        for rep in 0..=reps {
                            let start = Instant::now();
                            let out = block_on(store.run_concurrent(async |a| -> anyhow::Result<(u32,)> {
                                let (stream,) = produce.call_concurrent(a, ()).await?;
                                Ok(consume.call_concurrent(a, (stream,)).await?)
                            }))??;
                            assert_eq!(out, (STREAM_BYTES,));
                            if rep > 0 {
                                sample("per_stream", start.elapsed());
                            }
                        }
                    }
                    "cm-futures" => {
                        let instance = instance(&engine, &mut store, FUTURES)?;
                        let wait: TypedFunc<(FutureReader<u32>,), (u32,)> =
                            instance.get_typed_func(&mut store, "wait")?;
                        for rep in 0..=reps {
                            let start = Instant::now();
                            let outs = block_on(store.run_concurrent(async |a| -> anyhow::Result<Vec<u32>> {
                                let gate = Gate::new(TASKS);
                                let mut calls: Vec<BoxFuture<'_, anyhow::Result<u32>>> = Vec::new();
                                for i in 0..TASKS {
                                    let reader = a.with(|access| FutureReader::new(access, gate.clone().wait(i)))?;
                                    calls.push(Box::pin(async move {
                                        Ok(wait.call_concurrent(a, (reader,)).await?.0)
                                    }));
                                }
                                join_all(calls).await.into_iter().collect()
                            }))??;
                            assert!(outs.iter().enumerate().all(|(i, &v)| v == i as u32));
                            if rep > 0 {
                                sample("per_batch", start.elapsed());
                            }
                        }
                    }
                    _ => anyhow::bail!("unknown benchmark `{bench}`"),
                }
                Ok(())
            }
        }
    };
}

component_engine!(weft_components, weft);
component_engine!(wasmtime_components, wasmtime);
