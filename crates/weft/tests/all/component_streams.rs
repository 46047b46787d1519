//! Host streams and futures: `StreamReader::new` with producers read by a
//! guest, `pipe` into consumers of what a guest writes, the same for
//! futures, closing and dropping host ends at any point, conversions to
//! and from the dynamic values, guarded readers and direct byte access.
//! Every test ends with the store's concurrent state empty.

#![cfg(feature = "component-model-async")]

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use weft::component::{
    Component, Destination, FutureConsumer, FutureReader, Instance, Linker, Source, StreamAny, StreamConsumer,
    StreamProducer, StreamReader, StreamResult, TypedFunc, Val, VecBuffer,
};
use weft::{Config, Engine, Store, StoreContextMut};

/// Polls `future` to its end (a busy loop: every future here makes
/// progress or wakes itself).
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..1_000_000 {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
    }
    panic!("the future did not finish");
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

/// The guest side.
///
/// - `sum32: async func(s: stream<u32>, chunk: u32) -> u32` and `sum8`
///   (`stream<u8>`) read `chunk` elements at a time (synchronous reads)
///   until the writer drops, then drop the stream and return the sum.
/// - `first: async func(s: stream<u32>) -> u32` reads once (2 elements)
///   and drops the stream.
/// - `fut: async func(f: future<u32>) -> u32` reads the future's value.
/// - `produce: async func(n: u32) -> stream<u32>` returns a stream and then
///   writes 1..=n to it (synchronous writes) until done or the reader
///   drops; `make-future: async func(v: u32) -> future<u32>` returns a
///   future and writes `v` to it.
const GUEST: &str = r#"(component
    (core module $libc (memory (export "mem") 1))
    (core instance $libc (instantiate $libc))
    (type $ST (stream u32))
    (type $ST8 (stream u8))
    (type $FT (future u32))
    (core func $ret_u32 (canon task.return (result u32)))
    (core func $ret_st (canon task.return (result $ST)))
    (core func $ret_ft (canon task.return (result $FT)))
    (core func $read (canon stream.read $ST (memory (core memory $libc "mem"))))
    (core func $read8 (canon stream.read $ST8 (memory (core memory $libc "mem"))))
    (core func $write (canon stream.write $ST (memory (core memory $libc "mem"))))
    (core func $snew (canon stream.new $ST))
    (core func $drop_r (canon stream.drop-readable $ST))
    (core func $drop_r8 (canon stream.drop-readable $ST8))
    (core func $drop_w (canon stream.drop-writable $ST))
    (core func $fread (canon future.read $FT (memory (core memory $libc "mem"))))
    (core func $fwrite (canon future.write $FT (memory (core memory $libc "mem"))))
    (core func $fnew (canon future.new $FT))
    (core func $fdrop_r (canon future.drop-readable $FT))
    (core func $fdrop_w (canon future.drop-writable $FT))
    (core module $m
        (import "" "mem" (memory 1))
        (import "" "ret-u32" (func $ret_u32 (param i32)))
        (import "" "ret-st" (func $ret_st (param i32)))
        (import "" "ret-ft" (func $ret_ft (param i32)))
        (import "" "read" (func $read (param i32 i32 i32) (result i32)))
        (import "" "read8" (func $read8 (param i32 i32 i32) (result i32)))
        (import "" "write" (func $write (param i32 i32 i32) (result i32)))
        (import "" "snew" (func $snew (result i64)))
        (import "" "drop-r" (func $drop_r (param i32)))
        (import "" "drop-r8" (func $drop_r8 (param i32)))
        (import "" "drop-w" (func $drop_w (param i32)))
        (import "" "fread" (func $fread (param i32 i32) (result i32)))
        (import "" "fwrite" (func $fwrite (param i32 i32) (result i32)))
        (import "" "fnew" (func $fnew (result i64)))
        (import "" "fdrop-r" (func $fdrop_r (param i32)))
        (import "" "fdrop-w" (func $fdrop_w (param i32)))
        (func (export "sum32") (param $s i32) (param $chunk i32) (result i32)
            (local $ret i32) (local $n i32) (local $i i32) (local $sum i32)
            (loop $l
                (local.set $ret (call $read (local.get $s) (i32.const 64) (local.get $chunk)))
                (local.set $n (i32.shr_u (local.get $ret) (i32.const 4)))
                (local.set $i (i32.const 0))
                (block $done (loop $add
                    (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
                    (local.set $sum (i32.add (local.get $sum)
                        (i32.load (i32.add (i32.const 64) (i32.shl (local.get $i) (i32.const 2))))))
                    (local.set $i (i32.add (local.get $i) (i32.const 1)))
                    (br $add)))
                (br_if $l (i32.eqz (i32.and (local.get $ret) (i32.const 0xf)))))
            (call $drop_r (local.get $s))
            (call $ret_u32 (local.get $sum))
            (i32.const 0))
        (func (export "sum8") (param $s i32) (param $chunk i32) (result i32)
            (local $ret i32) (local $n i32) (local $i i32) (local $sum i32)
            (loop $l
                (local.set $ret (call $read8 (local.get $s) (i32.const 64) (local.get $chunk)))
                (local.set $n (i32.shr_u (local.get $ret) (i32.const 4)))
                (local.set $i (i32.const 0))
                (block $done (loop $add
                    (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
                    (local.set $sum (i32.add (local.get $sum)
                        (i32.load8_u (i32.add (i32.const 64) (local.get $i)))))
                    (local.set $i (i32.add (local.get $i) (i32.const 1)))
                    (br $add)))
                (br_if $l (i32.eqz (i32.and (local.get $ret) (i32.const 0xf)))))
            (call $drop_r8 (local.get $s))
            (call $ret_u32 (local.get $sum))
            (i32.const 0))
        (func (export "first") (param $s i32) (result i32)
            (local $ret i32)
            (local.set $ret (call $read (local.get $s) (i32.const 64) (i32.const 2)))
            (call $drop_r (local.get $s))
            (call $ret_u32 (i32.shr_u (local.get $ret) (i32.const 4)))
            (i32.const 0))
        (func (export "fut") (param $f i32) (result i32)
            (local $ret i32)
            (local.set $ret (call $fread (local.get $f) (i32.const 64)))
            (call $fdrop_r (local.get $f))
            (if (i32.ne (local.get $ret) (i32.const 0)) (then
                (call $ret_u32 (i32.const -1))
                (return (i32.const 0))))
            (call $ret_u32 (i32.load (i32.const 64)))
            (i32.const 0))
        (func (export "produce") (param $n i32) (result i32)
            (local $ret64 i64) (local $rx i32) (local $tx i32) (local $i i32) (local $off i32) (local $ret i32)
            (local.set $ret64 (call $snew))
            (local.set $rx (i32.wrap_i64 (local.get $ret64)))
            (local.set $tx (i32.wrap_i64 (i64.shr_u (local.get $ret64) (i64.const 32))))
            (block $f (loop $fl
                (br_if $f (i32.ge_u (local.get $i) (local.get $n)))
                (i32.store (i32.add (i32.const 1024) (i32.shl (local.get $i) (i32.const 2)))
                    (i32.add (local.get $i) (i32.const 1)))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br $fl)))
            (call $ret_st (local.get $rx))
            (block $done (loop $w
                (br_if $done (i32.ge_u (local.get $off) (local.get $n)))
                (local.set $ret (call $write (local.get $tx)
                    (i32.add (i32.const 1024) (i32.shl (local.get $off) (i32.const 2)))
                    (i32.sub (local.get $n) (local.get $off))))
                (local.set $off (i32.add (local.get $off) (i32.shr_u (local.get $ret) (i32.const 4))))
                (br_if $done (i32.ne (i32.and (local.get $ret) (i32.const 0xf)) (i32.const 0)))
                (br $w)))
            (call $drop_w (local.get $tx))
            (i32.const 0))
        (func (export "make-future") (param $v i32) (result i32)
            (local $ret64 i64) (local $rx i32) (local $tx i32)
            (local.set $ret64 (call $fnew))
            (local.set $rx (i32.wrap_i64 (local.get $ret64)))
            (local.set $tx (i32.wrap_i64 (i64.shr_u (local.get $ret64) (i64.const 32))))
            (i32.store (i32.const 96) (local.get $v))
            (call $ret_ft (local.get $rx))
            (drop (call $fwrite (local.get $tx) (i32.const 96)))
            (call $fdrop_w (local.get $tx))
            (i32.const 0))
        (func (export "cb") (param i32 i32 i32) (result i32) unreachable))
    (core instance $i (instantiate $m (with "" (instance
        (export "mem" (memory $libc "mem"))
        (export "ret-u32" (func $ret_u32))
        (export "ret-st" (func $ret_st))
        (export "ret-ft" (func $ret_ft))
        (export "read" (func $read))
        (export "read8" (func $read8))
        (export "write" (func $write))
        (export "snew" (func $snew))
        (export "drop-r" (func $drop_r))
        (export "drop-r8" (func $drop_r8))
        (export "drop-w" (func $drop_w))
        (export "fread" (func $fread))
        (export "fwrite" (func $fwrite))
        (export "fnew" (func $fnew))
        (export "fdrop-r" (func $fdrop_r))
        (export "fdrop-w" (func $fdrop_w))))))
    (func (export "sum32") async (param "s" $ST) (param "chunk" u32) (result u32)
        (canon lift (core func $i "sum32") async (callback (core func $i "cb"))))
    (func (export "sum8") async (param "s" $ST8) (param "chunk" u32) (result u32)
        (canon lift (core func $i "sum8") async (callback (core func $i "cb"))))
    (func (export "first") async (param "s" $ST) (result u32)
        (canon lift (core func $i "first") async (callback (core func $i "cb"))))
    (func (export "fut") async (param "f" $FT) (result u32)
        (canon lift (core func $i "fut") async (callback (core func $i "cb"))))
    (func (export "produce") async (param "n" u32) (result $ST)
        (canon lift (core func $i "produce") async (callback (core func $i "cb"))))
    (func (export "make-future") async (param "v" u32) (result $FT)
        (canon lift (core func $i "make-future") async (callback (core func $i "cb"))))
)"#;

fn setup() -> (Store<()>, Instance) {
    // Synchronous `stream.read`/`write` need the "more async builtins".
    let mut config = Config::new();
    config.wasm_component_model_more_async_builtins(true);
    let engine = Engine::new(&config).unwrap();
    let component = Component::new(&engine, wat::parse_str(GUEST).unwrap()).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &component).unwrap();
    (store, instance)
}

type Sum = TypedFunc<(StreamReader<u32>, u32), (u32,)>;

fn sum32(store: &mut Store<()>, instance: &Instance) -> Sum {
    instance.get_typed_func(&mut *store, "sum32").unwrap()
}

/// Checks the store's state, runs its event loop once more (a dropped
/// host end is released then), and checks that it is empty.
fn finish(store: &mut Store<()>) {
    store.check_concurrent_state().unwrap();
    block_on(store.run_concurrent(async |_| yield_once().await)).unwrap();
    store.check_concurrent_state().unwrap();
    store.assert_concurrent_state_empty();
}

#[test]
fn a_guest_reads_a_vec_producer() -> weft::Result<()> {
    for chunk in [1u32, 3, 10, 16] {
        let (mut store, instance) = setup();
        let sum = sum32(&mut store, &instance);
        let reader = StreamReader::new(&mut store, (1..=10u32).collect::<Vec<_>>())?;
        assert_eq!(block_on(sum.call_async(&mut store, (reader, chunk)))?, (55,));
        let reader = StreamReader::new(&mut store, vec![5u32; 7].into_boxed_slice())?;
        assert_eq!(sum.call(&mut store, (reader, chunk))?, (35,));
        let reader = StreamReader::new(&mut store, std::iter::empty::<u32>())?;
        assert_eq!(sum.call(&mut store, (reader, chunk))?, (0,));
        let reader = StreamReader::new(&mut store, vec![2u32, 4])?;
        let out = block_on(store.run_concurrent(async |a| sum.call_concurrent(a, (reader, chunk)).await))??;
        assert_eq!(out, (6,));
        finish(&mut store);
    }
    Ok(())
}

/// Yields before each item, offers items one or two at a time and ends
/// after `n` items.
struct Slow {
    next: u32,
    n: u32,
    yielded: bool,
}

impl<D> StreamProducer<D> for Slow {
    type Item = u32;
    type Buffer = VecBuffer<u32>;

    fn poll_produce<'a>(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        store: StoreContextMut<'a, D>,
        mut destination: Destination<'a, u32, VecBuffer<u32>>,
        _finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        let me = self.get_mut();
        if me.next >= me.n {
            return Poll::Ready(Ok(StreamResult::Dropped));
        }
        if !me.yielded {
            me.yielded = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        me.yielded = false;
        // A guest reader has room; a host consumer's room is unknown.
        assert_ne!(destination.remaining(store), Some(0));
        let take = (me.n - me.next).min(1 + me.next % 2);
        let items: Vec<u32> = (me.next + 1..=me.next + take).collect();
        me.next += take;
        destination.set_buffer(items.into());
        Poll::Ready(Ok(StreamResult::Completed))
    }
}

#[test]
fn a_guest_reads_a_producer_that_waits() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let sum = sum32(&mut store, &instance);
    for chunk in [1u32, 4] {
        let reader = StreamReader::new(
            &mut store,
            Slow {
                next: 0,
                n: 20,
                yielded: false,
            },
        )?;
        assert_eq!(block_on(sum.call_async(&mut store, (reader, chunk)))?, (210,));
    }
    finish(&mut store);
    Ok(())
}

/// Writes bytes straight into the reader's memory: `n` bytes of value 3.
struct Bytes {
    left: usize,
}

impl<D> StreamProducer<D> for Bytes {
    type Item = u8;
    type Buffer = VecBuffer<u8>;

    fn poll_produce<'a>(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        store: StoreContextMut<'a, D>,
        destination: Destination<'a, u8, VecBuffer<u8>>,
        _finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        let me = self.get_mut();
        if me.left == 0 {
            return Poll::Ready(Ok(StreamResult::Dropped));
        }
        let mut direct = destination.as_direct(store, me.left);
        let room = direct.remaining();
        let n = room.len().min(me.left);
        room[..n].fill(3);
        direct.mark_written(n);
        me.left -= n;
        Poll::Ready(Ok(StreamResult::Completed))
    }
}

#[test]
fn direct_bytes_reach_the_guest() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let sum8: TypedFunc<(StreamReader<u8>, u32), (u32,)> = instance.get_typed_func(&mut store, "sum8")?;
    for chunk in [1u32, 7, 64] {
        let reader = StreamReader::new(&mut store, Bytes { left: 100 })?;
        assert_eq!(sum8.call(&mut store, (reader, chunk))?, (300,));
    }
    // Bytes from a buffer and through `io::Write`.
    let reader = StreamReader::new(&mut store, vec![1u8, 2, 3])?;
    assert_eq!(sum8.call(&mut store, (reader, 2))?, (6,));
    finish(&mut store);
    Ok(())
}

/// `bytes::Bytes` and `BytesMut` are producers (as in Wasmtime 48): their
/// bytes reach the guest in order, whatever its chunk size, and a stream
/// nothing read gives its producer back.
#[test]
fn bytes_and_bytes_mut_are_producers() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let sum8: TypedFunc<(StreamReader<u8>, u32), (u32,)> = instance.get_typed_func(&mut store, "sum8")?;
    let data: Vec<u8> = (0..200u32).map(|i| (i * 7 + 3) as u8).collect();
    let total: u32 = data.iter().map(|b| u32::from(*b)).sum();
    for chunk in [1u32, 7, 64, 500] {
        let reader = StreamReader::new(&mut store, bytes::Bytes::from(data.clone()))?;
        assert_eq!(sum8.call(&mut store, (reader, chunk))?, (total,));
        let reader = StreamReader::new(&mut store, bytes::BytesMut::from(&data[..]))?;
        assert_eq!(block_on(sum8.call_async(&mut store, (reader, chunk)))?, (total,));
    }
    let reader = StreamReader::new(&mut store, bytes::Bytes::new())?;
    assert_eq!(sum8.call(&mut store, (reader, 4))?, (0,));
    let reader = StreamReader::new(&mut store, bytes::Bytes::from_static(b"abc"))?;
    let back: bytes::Bytes = reader.try_into(&mut store).expect("the Bytes");
    assert_eq!(&back[..], b"abc");
    finish(&mut store);
    Ok(())
}

#[test]
fn a_guest_that_drops_the_stream_early_ends_the_producer() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let first: TypedFunc<(StreamReader<u32>,), (u32,)> = instance.get_typed_func(&mut store, "first")?;
    let reader = StreamReader::new(&mut store, (0..100u32).collect::<Vec<_>>())?;
    assert_eq!(first.call(&mut store, (reader,))?, (2,));
    let reader = StreamReader::new(
        &mut store,
        Slow {
            next: 0,
            n: 1000,
            yielded: false,
        },
    )?;
    assert_eq!(block_on(first.call_async(&mut store, (reader,)))?, (1,));
    // The producers are gone at once: no turn of the event loop needed.
    store.check_concurrent_state()?;
    store.assert_concurrent_state_empty();
    Ok(())
}

#[test]
fn host_readers_dropped_or_closed_unused_leave_nothing() -> weft::Result<()> {
    let (mut store, _instance) = setup();
    let reader = StreamReader::new(&mut store, vec![1u32, 2])?;
    store.check_concurrent_state()?;
    drop(reader);
    let mut reader = StreamReader::new(&mut store, vec![1u32, 2])?;
    reader.close(&mut store)?;
    reader.close(&mut store)?;
    drop(reader);
    let future = FutureReader::new(&mut store, async { Ok::<_, weft::Error>(1u32) })?;
    drop(future);
    store.check_concurrent_state()?;
    store.assert_concurrent_state_empty();
    Ok(())
}

#[test]
fn a_closed_reader_cannot_be_passed() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let sum = sum32(&mut store, &instance);
    let mut reader = StreamReader::new(&mut store, vec![1u32])?;
    reader.close(&mut store)?;
    let err = sum.call(&mut store, (reader, 1)).unwrap_err();
    assert!(format!("{err:#}").contains("closed"), "{err:#}");
    finish(&mut store);
    Ok(())
}

#[test]
fn a_guest_reads_a_host_future() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let fut: TypedFunc<(FutureReader<u32>,), (u32,)> = instance.get_typed_func(&mut store, "fut")?;
    let reader = FutureReader::new(&mut store, async { Ok::<_, weft::Error>(42u32) })?;
    assert_eq!(fut.call(&mut store, (reader,))?, (42,));
    let reader = FutureReader::new(&mut store, async {
        for _ in 0..3 {
            yield_once().await;
        }
        Ok::<_, weft::Error>(7u32)
    })?;
    assert_eq!(block_on(fut.call_async(&mut store, (reader,)))?, (7,));
    let reader = FutureReader::new(&mut store, async { Ok::<_, weft::Error>(9u32) })?;
    let out = block_on(store.run_concurrent(async |a| fut.call_concurrent(a, (reader,)).await))??;
    assert_eq!(out, (9,));
    finish(&mut store);
    Ok(())
}

#[test]
fn a_failing_future_producer_drops_the_future() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let fut: TypedFunc<(FutureReader<u32>,), (u32,)> = instance.get_typed_func(&mut store, "fut")?;
    let reader = FutureReader::new(&mut store, async { Err::<u32, _>(weft::format_err!("no value")) })?;
    let err = fut.call(&mut store, (reader,)).unwrap_err();
    assert!(format!("{err:#}").contains("no value"), "{err:#}");
    finish(&mut store);
    Ok(())
}

/// Collects what it reads, `chunk` items at a time; returns `Dropped`
/// after `stop_after` items. Records the end of the stream when dropped.
struct Collect {
    seen: Arc<Mutex<Vec<u32>>>,
    closed: Arc<Mutex<bool>>,
    chunk: usize,
    stop_after: usize,
    pending_first: bool,
}

impl Drop for Collect {
    fn drop(&mut self) {
        *self.closed.lock().unwrap() = true;
    }
}

impl<D> StreamConsumer<D> for Collect {
    type Item = u32;

    fn poll_consume(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut store: StoreContextMut<D>,
        mut source: Source<'_, u32>,
        _finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        let me = self.get_mut();
        if me.pending_first {
            me.pending_first = false;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let mut buf = Vec::with_capacity(me.chunk);
        source.read(&mut store, &mut buf)?;
        let mut seen = me.seen.lock().unwrap();
        seen.extend(buf);
        if seen.len() >= me.stop_after {
            return Poll::Ready(Ok(StreamResult::Dropped));
        }
        Poll::Ready(Ok(StreamResult::Completed))
    }
}

/// What a [`Collect`] saw, and whether it was dropped.
type Seen = (Arc<Mutex<Vec<u32>>>, Arc<Mutex<bool>>);

fn collect(chunk: usize, stop_after: usize) -> (Collect, Seen) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let closed = Arc::new(Mutex::new(false));
    let c = Collect {
        seen: seen.clone(),
        closed: closed.clone(),
        chunk,
        stop_after,
        pending_first: chunk.is_multiple_of(2),
    };
    (c, (seen, closed))
}

/// Runs the event loop until `closed` is set.
fn run_until_closed(store: &mut Store<()>, closed: &Arc<Mutex<bool>>) {
    block_on(store.run_concurrent(async |_| {
        while !*closed.lock().unwrap() {
            yield_once().await;
        }
    }))
    .unwrap();
}

#[test]
fn pipe_collects_what_a_guest_writes() -> weft::Result<()> {
    for (n, chunk, stop_after) in [(10u32, 3usize, usize::MAX), (50, 50, usize::MAX), (40, 4, 9), (5, 1, 1)] {
        let (mut store, instance) = setup();
        let produce: TypedFunc<(u32,), (StreamReader<u32>,)> = instance.get_typed_func(&mut store, "produce")?;
        let (consumer, (seen, closed)) = collect(chunk, stop_after);
        let (reader,) = block_on(produce.call_async(&mut store, (n,)))?;
        reader.pipe(&mut store, consumer)?;
        run_until_closed(&mut store, &closed);
        let seen = seen.lock().unwrap().clone();
        let expected: Vec<u32> = (1..=n).take(seen.len()).collect();
        assert_eq!(seen, expected);
        if stop_after == usize::MAX {
            assert_eq!(seen.len(), n as usize);
        } else {
            assert!(seen.len() >= stop_after && seen.len() < stop_after + chunk);
        }
        finish(&mut store);
    }
    Ok(())
}

#[test]
fn pipe_inside_run_concurrent() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let produce: TypedFunc<(u32,), (StreamReader<u32>,)> = instance.get_typed_func(&mut store, "produce")?;
    let (consumer, (seen, closed)) = collect(5, usize::MAX);
    block_on(store.run_concurrent(async |accessor| {
        let (reader,) = produce.call_concurrent(accessor, (12,)).await?;
        accessor.with(|mut access| reader.pipe(&mut access, consumer))?;
        while !*closed.lock().unwrap() {
            yield_once().await;
        }
        Ok::<_, weft::Error>(())
    }))??;
    assert_eq!(*seen.lock().unwrap(), (1..=12).collect::<Vec<_>>());
    finish(&mut store);
    Ok(())
}

struct TakeFuture {
    value: Arc<Mutex<Option<u32>>>,
}

impl<D> FutureConsumer<D> for TakeFuture {
    type Item = u32;

    fn poll_consume(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        mut store: StoreContextMut<D>,
        mut source: Source<'_, u32>,
        _finish: bool,
    ) -> Poll<weft::Result<()>> {
        let mut v = None;
        source.read(&mut store, &mut v)?;
        *self.value.lock().unwrap() = v;
        Poll::Ready(Ok(()))
    }
}

#[test]
fn future_pipe_takes_what_a_guest_writes() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let make: TypedFunc<(u32,), (FutureReader<u32>,)> = instance.get_typed_func(&mut store, "make-future")?;
    let value = Arc::new(Mutex::new(None));
    let (reader,) = block_on(make.call_async(&mut store, (31,)))?;
    reader.pipe(&mut store, TakeFuture { value: value.clone() })?;
    block_on(store.run_concurrent(async |_| {
        while value.lock().unwrap().is_none() {
            yield_once().await;
        }
    }))?;
    assert_eq!(*value.lock().unwrap(), Some(31));
    finish(&mut store);
    Ok(())
}

#[test]
fn dropping_a_guest_stream_held_by_the_host_drops_its_end() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let produce = instance.get_func(&mut store, "produce").expect("produce");
    for typed in [false, true] {
        let mut out = [Val::Bool(false)];
        block_on(produce.call_async(&mut store, &[Val::U32(30)], &mut out))?;
        let Val::Stream(stream) = out[0].clone() else {
            panic!("not a stream: {:?}", out[0]);
        };
        store.check_concurrent_state()?;
        if typed {
            let reader: StreamReader<u32> = stream.try_into_stream_reader()?;
            let any = StreamAny::try_from_stream_reader(&mut store, reader)?;
            drop(any);
        } else {
            drop(stream);
        }
        // A clone in `out` still holds it.
        store.check_concurrent_state()?;
        drop(out);
        // The guest's blocked write finishes `DROPPED` and its task ends.
        finish(&mut store);
    }
    // Closed explicitly.
    let mut out = [Val::Bool(false)];
    block_on(produce.call_async(&mut store, &[Val::U32(3)], &mut out))?;
    if let Val::Stream(s) = &mut out[0] {
        s.close(&mut store)?;
    }
    finish(&mut store);
    Ok(())
}

#[test]
fn stream_any_conversions_check_the_item_type() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let sum = sum32(&mut store, &instance);
    let reader = StreamReader::new(&mut store, vec![1u32, 2, 3])?;
    let any = reader.try_into_stream_any(&mut store)?;
    assert!(StreamReader::<u8>::try_from_stream_any(any.clone()).is_err());
    let reader = StreamReader::<u32>::try_from_stream_any(any)?;
    assert_eq!(sum.call(&mut store, (reader, 2))?, (6,));
    // The dynamic API passes a `Val::Stream` along.
    let reader = StreamReader::new(&mut store, vec![4u32, 5])?;
    let any = StreamAny::try_from_stream_reader(&mut store, reader)?;
    let dynamic = instance.get_func(&mut store, "sum32").expect("sum32");
    let mut out = [Val::Bool(false)];
    dynamic.call(&mut store, &[Val::Stream(any.clone()), Val::U32(1)], &mut out)?;
    assert_eq!(out[0], Val::U32(9));
    // Used twice: the second use fails cleanly.
    let err = dynamic
        .call(&mut store, &[Val::Stream(any), Val::U32(1)], &mut out)
        .unwrap_err();
    assert!(format!("{err:#}").contains("closed or given away"), "{err:#}");
    finish(&mut store);
    Ok(())
}

#[test]
fn try_into_gives_the_producer_back() -> weft::Result<()> {
    let (mut store, _instance) = setup();
    let reader = StreamReader::new(&mut store, vec![1u32, 2, 3])?;
    let reader = match reader.try_into::<String>(&mut store) {
        Ok(_) => panic!("not a String"),
        Err(r) => r,
    };
    let back: Vec<u32> = reader.try_into(&mut store).expect("the Vec");
    assert_eq!(back, vec![1, 2, 3]);
    store.check_concurrent_state()?;
    store.assert_concurrent_state_empty();
    Ok(())
}

#[test]
fn guarded_readers_close_when_dropped() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let sum = sum32(&mut store, &instance);
    let reader = StreamReader::new(&mut store, vec![1u32])?;
    let other = StreamReader::new(&mut store, vec![2u32, 3])?;
    let before = store.concurrent_state_table_size();
    let out = block_on(store.run_concurrent(async |accessor| {
        drop(reader.guard(accessor));
        let kept = other.guard(accessor).into_stream();
        sum.call_concurrent(accessor, (kept, 5)).await
    }))??;
    assert_eq!(out, (5,));
    // The first stream went when its guard was dropped: its two ends, its
    // shared state and its producer's host task; the second with the call.
    assert_eq!(store.concurrent_state_table_size() + 8, before);
    finish(&mut store);
    Ok(())
}

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// Host streams and futures made, passed, piped, closed and dropped at
/// random points; the state adds up after every step and is empty at the
/// end of each sequence.
#[test]
fn random_drops_leave_nothing_behind() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let sum = sum32(&mut store, &instance);
    let first: TypedFunc<(StreamReader<u32>,), (u32,)> = instance.get_typed_func(&mut store, "first")?;
    let fut: TypedFunc<(FutureReader<u32>,), (u32,)> = instance.get_typed_func(&mut store, "fut")?;
    let produce: TypedFunc<(u32,), (StreamReader<u32>,)> = instance.get_typed_func(&mut store, "produce")?;
    let make: TypedFunc<(u32,), (FutureReader<u32>,)> = instance.get_typed_func(&mut store, "make-future")?;
    for seed in 1..=500u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let n = rng.below(30) as u32;
        let chunk = 1 + rng.below(8) as u32;
        let slow = rng.below(2) == 0;
        let reader = if slow {
            StreamReader::new(
                &mut store,
                Slow {
                    next: 0,
                    n,
                    yielded: false,
                },
            )?
        } else {
            StreamReader::new(&mut store, (1..=n).collect::<Vec<_>>())?
        };
        store.check_concurrent_state()?;
        let total: u32 = (1..=n).sum();
        let case = rng.below(7);
        // Printed with a failure, to replay the sequence.
        eprintln!("seed {seed}: case {case}, n {n}, chunk {chunk}, slow {slow}");
        match case {
            0 => drop(reader),
            1 => {
                let mut reader = reader;
                reader.close(&mut store)?;
            }
            2 => assert_eq!(sum.call(&mut store, (reader, chunk))?, (total,)),
            3 => assert_eq!(
                block_on(first.call_async(&mut store, (reader,)))?.0,
                n.min(2).min(if slow { 1 } else { 2 })
            ),
            4 => {
                // Dropped after some polls of a concurrent call.
                let polls = rng.below(4);
                block_on(store.run_concurrent(async |a| {
                    let mut call = Box::pin(sum.call_concurrent(a, (reader, chunk)));
                    let mut cx = Context::from_waker(Waker::noop());
                    for _ in 0..polls {
                        let _ = call.as_mut().poll(&mut cx);
                    }
                }))?;
            }
            5 => {
                drop(reader);
                let (consumer, (seen, closed)) = collect(1 + rng.below(6) as usize, 1 + rng.below(40) as usize);
                let m = rng.below(20) as u32;
                let (piped,) = block_on(produce.call_async(&mut store, (m,)))?;
                if rng.below(3) == 0 {
                    drop(piped);
                    drop(consumer);
                } else {
                    piped.pipe(&mut store, consumer)?;
                    run_until_closed(&mut store, &closed);
                    let seen = seen.lock().unwrap().clone();
                    assert_eq!(seen, (1..=m).take(seen.len()).collect::<Vec<_>>());
                }
            }
            _ => {
                drop(reader);
                let v = rng.below(1000) as u32;
                match rng.below(3) {
                    0 => {
                        let f = FutureReader::new(&mut store, async move { Ok::<_, weft::Error>(v) })?;
                        assert_eq!(fut.call(&mut store, (f,))?, (v,));
                    }
                    1 => {
                        let (f,) = block_on(make.call_async(&mut store, (v,)))?;
                        drop(f);
                    }
                    _ => {
                        let value = Arc::new(Mutex::new(None));
                        let (f,) = block_on(make.call_async(&mut store, (v,)))?;
                        f.pipe(&mut store, TakeFuture { value: value.clone() })?;
                        block_on(store.run_concurrent(async |_| {
                            while value.lock().unwrap().is_none() {
                                yield_once().await;
                            }
                        }))?;
                        assert_eq!(*value.lock().unwrap(), Some(v));
                    }
                }
            }
        }
        store.check_concurrent_state()?;
        // Let what a dropped call left behind finish.
        for _ in 0..200 {
            if store.concurrent_state_table_size() == 0 {
                break;
            }
            block_on(store.run_concurrent(async |_| {
                for _ in 0..5 {
                    yield_once().await;
                }
            }))?;
        }
        store.check_concurrent_state()?;
        store.assert_concurrent_state_empty();
    }
    Ok(())
}

/// `err: async func() -> error-context` returns a new error context (and
/// drops its own handle).
const ERR: &str = r#"(component
    (core module $libc (memory (export "mem") 1) (data (i32.const 0) "oops"))
    (core instance $libc (instantiate $libc))
    (core func $ec_new (canon error-context.new (memory (core memory $libc "mem"))))
    (core func $ec_drop (canon error-context.drop))
    (core func $ret (canon task.return (result error-context)))
    (core module $m
        (import "" "ec.new" (func $ec_new (param i32 i32) (result i32)))
        (import "" "ec.drop" (func $ec_drop (param i32)))
        (import "" "ret" (func $ret (param i32)))
        (func (export "err") (result i32)
            (local $e i32)
            (local.set $e (call $ec_new (i32.const 0) (i32.const 4)))
            (call $ret (local.get $e))
            (call $ec_drop (local.get $e))
            (i32.const 0))
        (func (export "cb") (param i32 i32 i32) (result i32) unreachable))
    (core instance $i (instantiate $m (with "" (instance
        (export "ec.new" (func $ec_new))
        (export "ec.drop" (func $ec_drop))
        (export "ret" (func $ret))))))
    (func (export "err") async (result error-context)
        (canon lift (core func $i "err") async (callback (core func $i "cb"))))
)"#;

#[test]
fn error_contexts_held_by_the_host_are_released() -> weft::Result<()> {
    use weft::component::ErrorContext;
    let mut config = Config::new();
    config.wasm_component_model_error_context(true);
    let engine = Engine::new(&config)?;
    let component = Component::new(&engine, wat::parse_str(ERR)?)?;
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &component)?;
    let err = instance.get_func(&mut store, "err").expect("err");
    let typed: TypedFunc<(), (ErrorContext,)> = instance.get_typed_func(&mut store, "err")?;
    // Dropped: released when the store runs next.
    let mut out = [Val::Bool(false)];
    err.call(&mut store, &[], &mut out)?;
    let typed_too = ErrorContext::from_val(&mut store, &out[0])?;
    store.check_concurrent_state()?;
    drop(out);
    drop(typed_too);
    store.check_concurrent_state()?;
    store.assert_concurrent_state_empty();
    // Closed.
    let (mut e,) = typed.call(&mut store, ())?;
    e.close(&mut store)?;
    store.check_concurrent_state()?;
    store.assert_concurrent_state_empty();
    // As a value again.
    let (e,) = typed.call(&mut store, ())?;
    let Val::ErrorContext(mut any) = e.into_val() else {
        panic!("not an error context");
    };
    any.close(&mut store)?;
    store.assert_concurrent_state_empty();
    Ok(())
}

/// A host producer piped into a host consumer: the items go from one to
/// the other in order, whatever the consumer's chunk size, whether the
/// producer waits, offers everything at once or writes bytes directly, and
/// whether the consumer stops early; both go when the pipe ends, and the
/// store's state is empty.
#[test]
fn host_producers_pipe_into_host_consumers() -> weft::Result<()> {
    let (mut store, _instance) = setup();
    for chunk in [1usize, 3, 16] {
        // All at once, then one or two at a time after waiting.
        let reader = StreamReader::new(&mut store, (1..=10u32).collect::<Vec<_>>())?;
        let (consumer, (seen, closed)) = collect(chunk, usize::MAX);
        reader.pipe(&mut store, consumer)?;
        run_until_closed(&mut store, &closed);
        assert_eq!(*seen.lock().unwrap(), (1..=10).collect::<Vec<_>>());
        let slow = Slow {
            next: 0,
            n: 25,
            yielded: false,
        };
        let reader = StreamReader::new(&mut store, slow)?;
        let (consumer, (seen, closed)) = collect(chunk, 7);
        reader.pipe(&mut store, consumer)?;
        run_until_closed(&mut store, &closed);
        let seen = seen.lock().unwrap().clone();
        assert!(seen.len() >= 7 && seen.len() < 7 + chunk, "{seen:?}");
        assert_eq!(seen, (1..=seen.len() as u32).collect::<Vec<_>>());
        store.check_concurrent_state()?;
    }
    // Bytes written directly, read as values and read directly.
    for direct in [false, true] {
        let got = Arc::new(Mutex::new(Vec::new()));
        let done = Arc::new(Mutex::new(false));
        let reader = StreamReader::new(&mut store, Bytes { left: 1000 })?;
        reader.pipe(
            &mut store,
            ByteSink {
                got: got.clone(),
                done: done.clone(),
                direct,
            },
        )?;
        run_until_closed(&mut store, &done);
        assert_eq!(*got.lock().unwrap(), vec![3u8; 1000]);
        let reader = StreamReader::new(&mut store, bytes::Bytes::from_static(b"hello, pipe"))?;
        let (got, done) = (Arc::new(Mutex::new(Vec::new())), Arc::new(Mutex::new(false)));
        reader.pipe(
            &mut store,
            ByteSink {
                got: got.clone(),
                done: done.clone(),
                direct,
            },
        )?;
        run_until_closed(&mut store, &done);
        assert_eq!(&got.lock().unwrap()[..], b"hello, pipe");
    }
    // Inside the event loop, through an accessor.
    let (consumer, (seen, closed)) = collect(4, usize::MAX);
    block_on(store.run_concurrent(async |accessor| {
        accessor.with(|mut access| {
            let reader = StreamReader::new(&mut access, vec![7u32, 8, 9])?;
            reader.pipe(&mut access, consumer)
        })?;
        while !*closed.lock().unwrap() {
            yield_once().await;
        }
        Ok::<_, weft::Error>(())
    }))??;
    assert_eq!(*seen.lock().unwrap(), vec![7, 8, 9]);
    finish(&mut store);
    Ok(())
}

/// A host future producer piped into a host consumer: the value gets
/// there, whether the producer waits first or not, and the state is empty.
#[test]
fn host_future_producers_pipe_into_host_consumers() -> weft::Result<()> {
    let (mut store, _instance) = setup();
    for yields in [0, 3] {
        let value = Arc::new(Mutex::new(None));
        let reader = FutureReader::new(&mut store, async move {
            for _ in 0..yields {
                yield_once().await;
            }
            Ok::<_, weft::Error>(40 + yields)
        })?;
        reader.pipe(&mut store, TakeFuture { value: value.clone() })?;
        block_on(store.run_concurrent(async |_| {
            while value.lock().unwrap().is_none() {
                yield_once().await;
            }
        }))?;
        assert_eq!(*value.lock().unwrap(), Some(40 + yields));
    }
    finish(&mut store);
    Ok(())
}

/// Collects bytes (at most 100 per poll), through a buffer or directly;
/// records the end of the stream when dropped.
struct ByteSink {
    got: Arc<Mutex<Vec<u8>>>,
    done: Arc<Mutex<bool>>,
    direct: bool,
}

impl Drop for ByteSink {
    fn drop(&mut self) {
        *self.done.lock().unwrap() = true;
    }
}

impl<D> StreamConsumer<D> for ByteSink {
    type Item = u8;

    fn poll_consume(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        mut store: StoreContextMut<D>,
        source: Source<'_, u8>,
        _finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        let mut got = self.got.lock().unwrap();
        if self.direct {
            let mut input = source.as_direct(store);
            let bytes = input.remaining();
            let n = bytes.len().min(100);
            got.extend_from_slice(&bytes[..n]);
            input.mark_read(n);
        } else {
            let mut buf = Vec::with_capacity(100);
            let mut source = source;
            source.read(&mut store, &mut buf)?;
            got.extend(buf);
        }
        Poll::Ready(Ok(StreamResult::Completed))
    }
}

/// Integers written by one guest reach another guest's reads unchanged
/// (such copies move as bytes), in chunks that do not line up with the
/// writes.
///
/// This once aborted with a null store pointer in
/// `weft_runtime::host::host_shim`: `produce` suspends in a synchronous
/// `stream.write` after `task.return`, and the event loop resumed its fiber
/// outside any call into wasm (the fiber's `StackState` now keeps its store
/// pointer).
#[test]
fn a_guest_stream_of_integers_reaches_another_guest() -> weft::Result<()> {
    let mut config = Config::new();
    config.wasm_component_model_more_async_builtins(true);
    let engine = Engine::new(&config)?;
    let component = Component::new(&engine, wat::parse_str(GUEST)?)?;
    let mut store = Store::new(&engine, ());
    let writer = Linker::new(&engine).instantiate(&mut store, &component)?;
    let reader = Linker::new(&engine).instantiate(&mut store, &component)?;
    let produce: TypedFunc<(u32,), (StreamReader<u32>,)> = writer.get_typed_func(&mut store, "produce")?;
    let sum = sum32(&mut store, &reader);
    for (n, chunk) in [(1u32, 1u32), (100, 7), (300, 16)] {
        let out = block_on(store.run_concurrent(async |a| -> weft::Result<(u32,)> {
            let (stream,) = produce.call_concurrent(a, (n,)).await?;
            sum.call_concurrent(a, (stream, chunk)).await
        }))??;
        assert_eq!(out, (n * (n + 1) / 2,));
    }
    finish(&mut store);
    Ok(())
}
