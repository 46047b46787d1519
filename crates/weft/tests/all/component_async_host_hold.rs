//! Host functions whose future holds the store (`func_wrap_async`) called
//! from tasks of the component model's async ABI: by a task of a
//! synchronous type started with `call_concurrent`, by an `async`-typed
//! task under `call_concurrent` and under `call_async`. The future waits
//! for another OS thread; nothing else in the store runs meanwhile; a
//! driver dropped mid-wait stops the host function and leaves the store
//! usable.

#![cfg(feature = "component-model-async")]

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;
use weft::component::{Component, Instance, Linker, TypedFunc};
use weft::{Config, Engine, Store};

/// Wakes a parked thread.
struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs `future` to its end on this thread, parking while it is pending.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park_timeout(Duration::from_secs(5));
    }
}

/// A future that is ready once another thread opens it.
#[derive(Clone, Default)]
struct Gate(Arc<Mutex<(bool, Option<Waker>)>>);

impl Gate {
    fn open_after(&self, delay: Duration) {
        let gate = self.clone();
        std::thread::spawn(move || {
            std::thread::sleep(delay);
            let waker = {
                let mut s = gate.0.lock().unwrap();
                s.0 = true;
                s.1.take()
            };
            if let Some(w) = waker {
                w.wake();
            }
        });
    }
}

impl Future for Gate {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = self.0.lock().unwrap();
        if s.0 {
            Poll::Ready(())
        } else {
            s.1 = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}

/// Records when the host function's future is dropped.
struct OnDrop(Arc<Mutex<Vec<String>>>, u32);

impl Drop for OnDrop {
    fn drop(&mut self) {
        self.0.lock().unwrap().push(format!("drop {}", self.1));
    }
}

#[derive(Default)]
struct Host {
    /// The host function's events, in order.
    log: Arc<Mutex<Vec<String>>>,
    /// Opened by the test before (or while) the guest waits.
    gate: Gate,
    /// How long after its call the gate opens, or `None` for never.
    delay: Option<Duration>,
}

/// `wait: func(x: u32) -> u32` imported (synchronous), called lowered
/// synchronously by `run-sync: func(x) -> wait(x) + 1` and by
/// `run-async: async func(x) -> wait(x) + 1` (lifted with a callback that
/// returns at once); `run-many: async func(n) -> n` calls the imported
/// `tick: func()` `n` times.
const GUEST: &str = r#"(component
    (import "wait" (func $wait (param "x" u32) (result u32)))
    (import "tick" (func $tick))
    (core func $wait_sync (canon lower (func $wait)))
    (core func $tick_sync (canon lower (func $tick)))
    (core func $task_return (canon task.return (result u32)))
    (core module $m
        (import "" "wait" (func $wait (param i32) (result i32)))
        (import "" "tick" (func $tick))
        (import "" "task.return" (func $task_return (param i32)))
        (func (export "run-many") (param $n i32) (result i32)
            (local $i i32)
            (block $done
                (loop $next
                    (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
                    (call $tick)
                    (local.set $i (i32.add (local.get $i) (i32.const 1)))
                    (br $next)))
            (call $task_return (local.get $i))
            (i32.const 0))
        (func (export "run-sync") (param $x i32) (result i32)
            (i32.add (call $wait (local.get $x)) (i32.const 1)))
        (func (export "run-async") (param $x i32) (result i32)
            (call $task_return (i32.add (call $wait (local.get $x)) (i32.const 1)))
            (i32.const 0))
        (func (export "cb") (param i32 i32 i32) (result i32) unreachable))
    (core instance $i (instantiate $m (with "" (instance
        (export "wait" (func $wait_sync))
        (export "tick" (func $tick_sync))
        (export "task.return" (func $task_return))))))
    (func (export "run-many") async (param "n" u32) (result u32)
        (canon lift (core func $i "run-many") async (callback (core func $i "cb"))))
    (func (export "run-sync") (param "x" u32) (result u32)
        (canon lift (core func $i "run-sync")))
    (func (export "run-async") async (param "x" u32) (result u32)
        (canon lift (core func $i "run-async") async (callback (core func $i "cb"))))
)"#;

fn setup() -> (Store<Host>, Instance) {
    let engine = Engine::new(&Config::new()).unwrap();
    let component = Component::new(&engine, wat::parse_str(GUEST).unwrap()).unwrap();
    let mut linker = Linker::<Host>::new(&engine);
    linker
        .root()
        .func_wrap_async("wait", |store, (x,): (u32,)| {
            let host = store.data();
            let (log, gate, delay) = (host.log.clone(), host.gate.clone(), host.delay);
            Box::new(async move {
                log.lock().unwrap().push(format!("start {x}"));
                let _guard = OnDrop(log.clone(), x);
                if let Some(d) = delay {
                    let gate = Gate::default();
                    gate.open_after(d);
                    gate.await;
                } else {
                    gate.await;
                }
                log.lock().unwrap().push(format!("end {x}"));
                Ok((x * 2,))
            })
        })
        .unwrap();
    // Pending once (waking itself at once), then ready: one hold each.
    linker
        .root()
        .func_wrap_async("tick", |_store, (): ()| {
            Box::new(async {
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
                .await;
                Ok(())
            })
        })
        .unwrap();
    let mut store = Store::new(&engine, Host::default());
    store.data_mut().delay = Some(Duration::from_millis(10));
    let instance = block_on(linker.instantiate_async(&mut store, &component)).unwrap();
    (store, instance)
}

fn log(store: &Store<Host>) -> Vec<String> {
    store.data().log.lock().unwrap().clone()
}

#[test]
fn a_sync_typed_export_under_call_concurrent_waits_for_an_async_host_function() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let run: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run-sync")?;
    let out = block_on(store.run_concurrent(async |a| run.call_concurrent(a, (20,)).await))??;
    assert_eq!(out, (41,));
    assert_eq!(log(&store), ["start 20", "end 20", "drop 20"]);
    store.assert_concurrent_state_empty();
    Ok(())
}

#[test]
fn an_async_typed_export_under_call_concurrent_waits_for_an_async_host_function() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let run: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run-async")?;
    let out = block_on(store.run_concurrent(async |a| run.call_concurrent(a, (5,)).await))??;
    assert_eq!(out, (11,));
    store.assert_concurrent_state_empty();
    Ok(())
}

#[test]
fn an_async_typed_export_under_call_async_waits_for_an_async_host_function() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let run: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run-async")?;
    let out = block_on(run.call_async(&mut store, (7,)))?;
    assert_eq!(out, (15,));
    // And again: the store is not left holding anything.
    let out = block_on(run.call_async(&mut store, (8,)))?;
    assert_eq!(out, (17,));
    store.assert_concurrent_state_empty();
    Ok(())
}

/// Two concurrent calls: the second host function starts only after the
/// first one's future is done (it holds the store).
#[test]
fn nothing_else_runs_while_a_host_future_holds_the_store() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let sync: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run-sync")?;
    let asy: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run-async")?;
    let (a, b) = block_on(store.run_concurrent(async |acc| {
        let a = std::pin::pin!(sync.call_concurrent(acc, (1,)));
        let b = std::pin::pin!(asy.call_concurrent(acc, (2,)));
        let (mut a, mut b) = (Some(a), Some(b));
        let (mut ra, mut rb) = (None, None);
        std::future::poll_fn(|cx| {
            if let Some(f) = a.as_mut() {
                if let Poll::Ready(r) = f.as_mut().poll(cx) {
                    ra = Some(r);
                    a = None;
                }
            }
            if let Some(f) = b.as_mut() {
                if let Poll::Ready(r) = f.as_mut().poll(cx) {
                    rb = Some(r);
                    b = None;
                }
            }
            if ra.is_some() && rb.is_some() {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await;
        (ra.unwrap(), rb.unwrap())
    }))?;
    assert_eq!(a?, (3,));
    assert_eq!(b?, (5,));
    let log = log(&store);
    assert_eq!(log.len(), 6, "{log:?}");
    // Each host call runs from start to end before the other starts.
    for pair in log.chunks(3) {
        let x = &pair[0]["start ".len()..];
        assert_eq!(pair, [format!("start {x}"), format!("end {x}"), format!("drop {x}")]);
    }
    store.assert_concurrent_state_empty();
    Ok(())
}

/// Dropping `run_concurrent` while the host future waits stops the host
/// function (its future is dropped) and leaves the store usable.
#[test]
fn a_dropped_run_concurrent_stops_the_holding_host_function() -> weft::Result<()> {
    let (mut store, instance) = setup();
    store.data_mut().delay = None;
    let run: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run-sync")?;
    {
        let mut call = Box::pin(store.run_concurrent(async |a| run.call_concurrent(a, (3,)).await));
        let mut cx = Context::from_waker(Waker::noop());
        for _ in 0..10 {
            assert!(call.as_mut().poll(&mut cx).is_pending());
        }
    }
    assert_eq!(log(&store), ["start 3", "drop 3"]);
    // The store goes on: the next call completes.
    store.data_mut().delay = Some(Duration::from_millis(5));
    let out = block_on(store.run_concurrent(async |a| run.call_concurrent(a, (4,)).await))??;
    assert_eq!(out, (9,));
    store.assert_concurrent_state_empty();
    Ok(())
}

/// Dropping a `call_async` while the host future waits does the same.
#[test]
fn a_dropped_call_async_stops_the_holding_host_function() -> weft::Result<()> {
    let (mut store, instance) = setup();
    store.data_mut().delay = None;
    let run: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run-async")?;
    {
        let mut call = Box::pin(run.call_async(&mut store, (3,)));
        let mut cx = Context::from_waker(Waker::noop());
        for _ in 0..10 {
            assert!(call.as_mut().poll(&mut cx).is_pending());
        }
    }
    assert_eq!(log(&store), ["start 3", "drop 3"]);
    store.data_mut().delay = Some(Duration::from_millis(5));
    let out = block_on(run.call_async(&mut store, (4,)))?;
    assert_eq!(out, (9,));
    store.assert_concurrent_state_empty();
    Ok(())
}

/// Many holds in a row, under `call_async` (whose start of the task waits
/// in place) and `call_concurrent` (the event loop): each wait is one turn
/// of a loop, not a deeper native stack.
#[test]
fn many_holds_in_a_row_do_not_nest() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let run: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run-many")?;
    let out = block_on(run.call_async(&mut store, (20_000,)))?;
    assert_eq!(out, (20_000,));
    let out = block_on(store.run_concurrent(async |a| run.call_concurrent(a, (20_000,)).await))??;
    assert_eq!(out, (20_000,));
    store.assert_concurrent_state_empty();
    Ok(())
}
