//! A guest's cancellation of a copy that a host producer or consumer
//! serves: the runtime polls the producer or consumer with `finish` set,
//! and the cancellation returns what it did (`CANCELLED` with the count
//! moved, or the value that arrived meanwhile). A producer that still
//! returns `Pending` keeps an async cancellation `BLOCKED` until it
//! finishes, and a synchronous one waits. Every test ends with the store's
//! concurrent state empty.

#![cfg(feature = "component-model-async")]

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use weft::component::{
    Component, Destination, FutureReader, Instance, Linker, Source, StreamConsumer, StreamProducer, StreamReader,
    StreamResult, TypedFunc, VecBuffer,
};
use weft::{Config, Engine, Store, StoreContextMut};

/// Polls `future` to its end (a busy loop: every future here makes
/// progress or wakes itself).
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..100_000 {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
    }
    panic!("the future did not finish");
}

/// The guest. Results pack a copy's payload (result code in the low 4
/// bits, count above) with `NOT_BLOCKED` when the copy did not block, and
/// data in the high bits.
///
/// - `cancel-read(s: stream<u32>, sync: u32) -> u32` reads 4 elements
///   (async); if that blocks, cancels the read (async, waiting for the
///   event if the cancellation blocks; or synchronously when `sync` is 1).
///   Returns the payload plus the sum of the elements read, shifted left
///   by 16.
/// - `cancel-fread(f: future<u32>) -> u32` reads the future (async), cancels
///   the read, then reads again, waiting for the value. Returns the
///   cancellation's payload, the second read's shifted left by 4 and the
///   value shifted left by 8.
/// - `write-cancel(go: future<u32>) -> stream<u32>` returns a stream, waits
///   for `go`, writes 1, 2, 3, 4 (async), cancels the write if it blocks
///   and keeps the payload for `last: func() -> u32`.
const GUEST: &str = r#"(component
    (core module $libc (memory (export "mem") 1))
    (core instance $libc (instantiate $libc))
    (type $ST (stream u32))
    (type $FT (future u32))
    (core func $ret_u32 (canon task.return (result u32)))
    (core func $ret_st (canon task.return (result $ST)))
    (core func $read (canon stream.read $ST async (memory (core memory $libc "mem"))))
    (core func $cancel_r (canon stream.cancel-read $ST async))
    (core func $cancel_r_sync (canon stream.cancel-read $ST))
    (core func $drop_r (canon stream.drop-readable $ST))
    (core func $write (canon stream.write $ST async (memory (core memory $libc "mem"))))
    (core func $cancel_w (canon stream.cancel-write $ST async))
    (core func $snew (canon stream.new $ST))
    (core func $drop_w (canon stream.drop-writable $ST))
    (core func $fread (canon future.read $FT async (memory (core memory $libc "mem"))))
    (core func $fcancel (canon future.cancel-read $FT async))
    (core func $fdrop_r (canon future.drop-readable $FT))
    (core func $ws_new (canon waitable-set.new))
    (core func $join (canon waitable.join))
    (core func $ws_wait (canon waitable-set.wait (memory (core memory $libc "mem"))))
    (core func $ws_drop (canon waitable-set.drop))
    (core module $m
        (import "" "mem" (memory 1))
        (import "" "ret-u32" (func $ret_u32 (param i32)))
        (import "" "ret-st" (func $ret_st (param i32)))
        (import "" "read" (func $read (param i32 i32 i32) (result i32)))
        (import "" "cancel-r" (func $cancel_r (param i32) (result i32)))
        (import "" "cancel-r-sync" (func $cancel_r_sync (param i32) (result i32)))
        (import "" "drop-r" (func $drop_r (param i32)))
        (import "" "write" (func $write (param i32 i32 i32) (result i32)))
        (import "" "cancel-w" (func $cancel_w (param i32) (result i32)))
        (import "" "snew" (func $snew (result i64)))
        (import "" "drop-w" (func $drop_w (param i32)))
        (import "" "fread" (func $fread (param i32 i32) (result i32)))
        (import "" "fcancel" (func $fcancel (param i32) (result i32)))
        (import "" "fdrop-r" (func $fdrop_r (param i32)))
        (import "" "ws-new" (func $ws_new (result i32)))
        (import "" "join" (func $join (param i32 i32)))
        (import "" "ws-wait" (func $ws_wait (param i32 i32) (result i32)))
        (import "" "ws-drop" (func $ws_drop (param i32)))
        (global $last (mut i32) (i32.const -1))
        ;; Waits for the event of waitable `h`; its payload.
        (func $event (param $h i32) (result i32)
            (local $ws i32)
            (local.set $ws (call $ws_new))
            (call $join (local.get $h) (local.get $ws))
            (drop (call $ws_wait (local.get $ws) (i32.const 16)))
            (call $join (local.get $h) (i32.const 0))
            (call $ws_drop (local.get $ws))
            (i32.load (i32.const 20)))
        (func (export "cancel-read") (param $s i32) (param $sync i32)
            (local $c i32) (local $i i32) (local $sum i32)
            (local.set $c (call $read (local.get $s) (i32.const 64) (i32.const 4)))
            (if (i32.eq (local.get $c) (i32.const -1))
                (then
                    (if (local.get $sync)
                        (then (local.set $c (call $cancel_r_sync (local.get $s))))
                        (else
                            (local.set $c (call $cancel_r (local.get $s)))
                            (if (i32.eq (local.get $c) (i32.const -1))
                                (then (local.set $c (call $event (local.get $s))))))))
                (else (local.set $c (i32.or (local.get $c) (i32.const 8)))))
            (block $done (loop $add
                (br_if $done (i32.ge_u (local.get $i) (i32.shr_u (local.get $c) (i32.const 4))))
                (local.set $sum (i32.add (local.get $sum)
                    (i32.load (i32.add (i32.const 64) (i32.shl (local.get $i) (i32.const 2))))))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br $add)))
            (call $drop_r (local.get $s))
            (call $ret_u32 (i32.or (local.get $c) (i32.shl (local.get $sum) (i32.const 16)))))
        (func (export "cancel-fread") (param $f i32)
            (local $c i32) (local $r i32)
            (local.set $c (call $fread (local.get $f) (i32.const 64)))
            (if (i32.eq (local.get $c) (i32.const -1))
                (then
                    (local.set $c (call $fcancel (local.get $f)))
                    (if (i32.eq (local.get $c) (i32.const -1))
                        (then (local.set $c (call $event (local.get $f))))))
                (else (local.set $c (i32.or (local.get $c) (i32.const 8)))))
            (local.set $r (call $fread (local.get $f) (i32.const 64)))
            (if (i32.eq (local.get $r) (i32.const -1))
                (then (local.set $r (call $event (local.get $f)))))
            (call $fdrop_r (local.get $f))
            (call $ret_u32 (i32.or (i32.or (local.get $c) (i32.shl (local.get $r) (i32.const 4)))
                (i32.shl (i32.load (i32.const 64)) (i32.const 8)))))
        (func (export "write-cancel") (param $go i32)
            (local $ret64 i64) (local $w i32) (local $c i32)
            (local.set $ret64 (call $snew))
            (local.set $w (i32.wrap_i64 (i64.shr_u (local.get $ret64) (i64.const 32))))
            (call $ret_st (i32.wrap_i64 (local.get $ret64)))
            (if (i32.eq (call $fread (local.get $go) (i32.const 128)) (i32.const -1))
                (then (drop (call $event (local.get $go)))))
            (call $fdrop_r (local.get $go))
            (i32.store (i32.const 1024) (i32.const 1))
            (i32.store (i32.const 1028) (i32.const 2))
            (i32.store (i32.const 1032) (i32.const 3))
            (i32.store (i32.const 1036) (i32.const 4))
            (local.set $c (call $write (local.get $w) (i32.const 1024) (i32.const 4)))
            (if (i32.eq (local.get $c) (i32.const -1))
                (then
                    (local.set $c (call $cancel_w (local.get $w)))
                    (if (i32.eq (local.get $c) (i32.const -1))
                        (then (local.set $c (call $event (local.get $w))))))
                (else (local.set $c (i32.or (local.get $c) (i32.const 8)))))
            (global.set $last (local.get $c))
            (call $drop_w (local.get $w)))
        (func (export "last") (result i32) (global.get $last)))
    (core instance $i (instantiate $m (with "" (instance
        (export "mem" (memory $libc "mem"))
        (export "ret-u32" (func $ret_u32))
        (export "ret-st" (func $ret_st))
        (export "read" (func $read))
        (export "cancel-r" (func $cancel_r))
        (export "cancel-r-sync" (func $cancel_r_sync))
        (export "drop-r" (func $drop_r))
        (export "write" (func $write))
        (export "cancel-w" (func $cancel_w))
        (export "snew" (func $snew))
        (export "drop-w" (func $drop_w))
        (export "fread" (func $fread))
        (export "fcancel" (func $fcancel))
        (export "fdrop-r" (func $fdrop_r))
        (export "ws-new" (func $ws_new))
        (export "join" (func $join))
        (export "ws-wait" (func $ws_wait))
        (export "ws-drop" (func $ws_drop))))))
    (func (export "cancel-read") async (param "s" $ST) (param "sync" u32) (result u32)
        (canon lift (core func $i "cancel-read") async))
    (func (export "cancel-fread") async (param "f" $FT) (result u32)
        (canon lift (core func $i "cancel-fread") async))
    (func (export "write-cancel") async (param "go" $FT) (result $ST)
        (canon lift (core func $i "write-cancel") async))
    (func (export "last") (result u32) (canon lift (core func $i "last")))
)"#;

/// `CopyResult.CANCELLED`.
const CANCELLED: u32 = 2;
/// The guest's mark of a copy that did not block.
const NOT_BLOCKED: u32 = 8;

fn setup() -> (Store<()>, Instance) {
    // The synchronous `stream.cancel-read` is one of the "more async
    // builtins"; the guest's functions are stackful.
    let mut config = Config::new();
    config.wasm_component_model_more_async_builtins(true);
    config.wasm_component_model_async_stackful(true);
    let engine = Engine::new(&config).unwrap();
    let component = Component::new(&engine, wat::parse_str(GUEST).unwrap()).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &component).unwrap();
    (store, instance)
}

fn finish(store: &mut Store<()>) {
    store.check_concurrent_state().unwrap();
    store.assert_concurrent_state_empty();
}

/// What a producer does when polled with `finish` set.
#[derive(Clone, Copy, Debug, PartialEq)]
enum OnFinish {
    /// Writes these items and returns `Completed`.
    Give(&'static [u32]),
    /// Returns `Cancelled` with nothing written.
    Cancel,
    /// Returns `Pending` (waking itself) this many times, then writes
    /// `[7]` and returns `Completed`.
    PendingThenGive(u32),
}

/// Has nothing until the read is cancelled; records each poll's `finish`.
struct Lazy {
    on_finish: OnFinish,
    polls: Arc<Mutex<Vec<bool>>>,
}

impl<D> StreamProducer<D> for Lazy {
    type Item = u32;
    type Buffer = VecBuffer<u32>;

    fn poll_produce<'a>(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        _store: StoreContextMut<'a, D>,
        mut destination: Destination<'a, u32, VecBuffer<u32>>,
        finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        let me = self.get_mut();
        me.polls.lock().unwrap().push(finish);
        if !finish {
            // Nothing yet (and nothing will wake us but a cancellation).
            return Poll::Pending;
        }
        match &mut me.on_finish {
            OnFinish::Give(items) => {
                destination.set_buffer(items.to_vec().into());
                Poll::Ready(Ok(StreamResult::Completed))
            }
            OnFinish::Cancel => Poll::Ready(Ok(StreamResult::Cancelled)),
            OnFinish::PendingThenGive(0) => {
                destination.set_buffer(vec![7].into());
                Poll::Ready(Ok(StreamResult::Completed))
            }
            OnFinish::PendingThenGive(n) => {
                *n -= 1;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }
}

fn cancel_read(store: &mut Store<()>, instance: &Instance, on_finish: OnFinish, sync: bool) -> (u32, Vec<bool>) {
    let f: TypedFunc<(StreamReader<u32>, u32), (u32,)> = instance.get_typed_func(&mut *store, "cancel-read").unwrap();
    let polls = Arc::new(Mutex::new(Vec::new()));
    let reader = StreamReader::new(
        &mut *store,
        Lazy {
            on_finish,
            polls: polls.clone(),
        },
    )
    .unwrap();
    let out = block_on(store.run_concurrent(async |a| f.call_concurrent(a, (reader, u32::from(sync))).await))
        .unwrap()
        .unwrap()
        .0;
    let polls = polls.lock().unwrap().clone();
    (out, polls)
}

#[test]
fn a_cancelled_read_takes_what_the_producer_gives_on_finish() {
    for sync in [false, true] {
        let (mut store, instance) = setup();
        let (out, polls) = cancel_read(&mut store, &instance, OnFinish::Give(&[5, 6]), sync);
        // Polled when the read started (nothing), then with `finish`.
        assert_eq!(polls, [false, true], "sync {sync}");
        // The two items arrive with the cancellation: `CANCELLED`, count 2.
        assert_eq!(out & 0xffff, CANCELLED | 2 << 4, "sync {sync}: {out:#x}");
        assert_eq!(out >> 16, 11, "sync {sync}");
        finish(&mut store);
    }
}

#[test]
fn a_producer_that_cancels_ends_the_read_with_nothing() {
    for sync in [false, true] {
        let (mut store, instance) = setup();
        let (out, polls) = cancel_read(&mut store, &instance, OnFinish::Cancel, sync);
        assert_eq!(polls, [false, true]);
        assert_eq!(out, CANCELLED, "sync {sync}: {out:#x}");
        finish(&mut store);
    }
}

#[test]
fn a_producer_pending_on_finish_keeps_the_cancellation_waiting() {
    for sync in [false, true] {
        let (mut store, instance) = setup();
        let (out, polls) = cancel_read(&mut store, &instance, OnFinish::PendingThenGive(3), sync);
        // Every poll after the cancellation has `finish` set.
        assert_eq!(polls, [false, true, true, true, true], "sync {sync}");
        assert_eq!(out & 0xffff, CANCELLED | 1 << 4, "sync {sync}: {out:#x}");
        assert_eq!(out >> 16, 7);
        finish(&mut store);
    }
}

#[test]
fn a_read_of_a_ready_producer_completes_without_blocking() {
    // The producer is polled within `stream.read`: the read does not block.
    let (mut store, instance) = setup();
    let f: TypedFunc<(StreamReader<u32>, u32), (u32,)> = instance.get_typed_func(&mut store, "cancel-read").unwrap();
    let reader = StreamReader::new(&mut store, vec![1u32, 2, 3, 4, 5]).unwrap();
    let (out,) = block_on(store.run_concurrent(async |a| f.call_concurrent(a, (reader, 0)).await))
        .unwrap()
        .unwrap();
    assert_eq!(out & 0xffff, NOT_BLOCKED | 4 << 4, "{out:#x}");
    assert_eq!(out >> 16, 10);
    finish(&mut store);
}

/// A future that is pending until `value` is set (and then ready with it).
struct Later {
    value: Arc<Mutex<Option<u32>>>,
    polls: Arc<Mutex<u32>>,
}

impl Future for Later {
    type Output = weft::Result<u32>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<weft::Result<u32>> {
        *self.polls.lock().unwrap() += 1;
        match *self.value.lock().unwrap() {
            Some(v) => Poll::Ready(Ok(v)),
            None => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }
}

#[test]
fn a_cancelled_future_read_leaves_the_producer_for_the_next_read() {
    let (mut store, instance) = setup();
    let f: TypedFunc<(FutureReader<u32>,), (u32,)> = instance.get_typed_func(&mut store, "cancel-fread").unwrap();
    let value = Arc::new(Mutex::new(None));
    let polls = Arc::new(Mutex::new(0));
    let reader = FutureReader::new(
        &mut store,
        Later {
            value: value.clone(),
            polls: polls.clone(),
        },
    )
    .unwrap();
    let (out,) = block_on(store.run_concurrent(async |a| {
        let call = f.call_concurrent(a, (reader,));
        let mut call = std::pin::pin!(call);
        // Let the guest read, cancel and read again before the value is
        // there.
        for _ in 0..3 {
            if let Poll::Ready(r) = futures_poll(call.as_mut()).await {
                return r;
            }
            yield_now().await;
        }
        *value.lock().unwrap() = Some(42);
        call.await
    }))
    .unwrap()
    .unwrap();
    // The first read was cancelled (the Rust future returns `None` when
    // polled with `finish`), the second got 42 (`COMPLETED`).
    assert_eq!(out & 0xf, CANCELLED, "{out:#x}");
    assert_eq!((out >> 4) & 0xf, 0, "{out:#x}");
    assert_eq!(out >> 8, 42, "{out:#x}");
    assert!(*polls.lock().unwrap() >= 2);
    finish(&mut store);
}

/// Polls `f` once, from within an async block.
async fn futures_poll<F: Future + Unpin>(mut f: F) -> Poll<F::Output> {
    std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut f).poll(cx))).await
}

/// Takes nothing until the write is cancelled, then `take_on_finish`
/// items; records each poll's `finish`.
struct Reluctant {
    take_on_finish: usize,
    polls: Arc<Mutex<Vec<bool>>>,
    seen: Arc<Mutex<Vec<u32>>>,
}

impl<D> StreamConsumer<D> for Reluctant {
    type Item = u32;

    fn poll_consume(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        mut store: StoreContextMut<D>,
        mut source: Source<'_, u32>,
        finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        let me = self.get_mut();
        me.polls.lock().unwrap().push(finish);
        if !finish {
            return Poll::Pending;
        }
        if me.take_on_finish == 0 {
            return Poll::Ready(Ok(StreamResult::Cancelled));
        }
        let mut buf = Vec::with_capacity(me.take_on_finish);
        source.read(&mut store, &mut buf)?;
        me.seen.lock().unwrap().extend(buf);
        Poll::Ready(Ok(StreamResult::Completed))
    }
}

#[test]
fn a_cancelled_write_gives_the_consumer_its_finish() {
    for take in [0usize, 3] {
        let (mut store, instance) = setup();
        let f: TypedFunc<(FutureReader<u32>,), (StreamReader<u32>,)> =
            instance.get_typed_func(&mut store, "write-cancel").unwrap();
        let last: TypedFunc<(), (u32,)> = instance.get_typed_func(&mut store, "last").unwrap();
        let go = Arc::new(Mutex::new(None));
        let polls = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let go_reader = FutureReader::new(
            &mut store,
            Later {
                value: go.clone(),
                polls: Arc::default(),
            },
        )
        .unwrap();
        let consumer = Reluctant {
            take_on_finish: take,
            polls: polls.clone(),
            seen: seen.clone(),
        };
        block_on(store.run_concurrent(async |a| -> weft::Result<()> {
            let (stream,) = f.call_concurrent(a, (go_reader,)).await?;
            a.with(|mut access| stream.pipe(&mut access, consumer))?;
            *go.lock().unwrap() = Some(1);
            // Let the guest write, cancel and finish.
            for _ in 0..20 {
                yield_now().await;
            }
            Ok(())
        }))
        .unwrap()
        .unwrap();
        let (out,) = last.call(&mut store, ()).unwrap();
        assert_eq!(out, CANCELLED | (take as u32) << 4, "take {take}: {out:#x}");
        assert_eq!(*seen.lock().unwrap(), [1, 2, 3, 4][..take].to_vec());
        assert_eq!(polls.lock().unwrap().first(), Some(&false));
        assert!(polls.lock().unwrap().contains(&true));
        finish(&mut store);
    }
}

/// Pending once (waking itself), then ready: gives the event loop a turn.
async fn yield_now() {
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
