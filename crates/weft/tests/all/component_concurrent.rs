//! The concurrent API: `run_concurrent`, `call_concurrent`,
//! `start_call_concurrent`/`finish_call_concurrent`, concurrent host
//! functions (host tasks), `spawn` and `JoinHandle::abort`, and the same
//! host tasks under `call_async` and a synchronous `call`. Every test ends
//! with the store's concurrent state empty.

#![cfg(feature = "component-model-async")]

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use weft::component::{Accessor, AccessorTask, Component, Instance, Linker, TypedFunc, Val};
use weft::{Config, Engine, Store};

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

/// A boxed future of the tests' own executor.
type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// Polls every future until all are done; their outputs in order.
async fn join_all<T>(futures: Vec<BoxFuture<'_, T>>) -> Vec<T> {
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

/// `run: async func(x: u32) -> u32` calls the host's `echo: async func(a:
/// u32) -> u32` lowered `async`, waits for the subtask with the callback's
/// WAIT when it does not return at once, and returns the echo plus one.
/// `run-sync: func(x: u32) -> u32` calls `echo` lowered synchronously.
const CALLER: &str = r#"(component
    (import "echo" (func $echo async (param "a" u32) (result u32)))
    (core module $libc (memory (export "mem") 1))
    (core instance $libc (instantiate $libc))
    (core func $echo_async (canon lower (func $echo) async (memory (core memory $libc "mem"))))
    (core func $echo_sync (canon lower (func $echo)))
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
        (import "" "echo-sync" (func $echo_sync (param i32) (result i32)))
        (import "" "task.return" (func $task_return (param i32)))
        (import "" "ws.new" (func $ws_new (result i32)))
        (import "" "ws.drop" (func $ws_drop (param i32)))
        (import "" "join" (func $join (param i32 i32)))
        (import "" "subtask.drop" (func $subtask_drop (param i32)))
        (import "" "context.get" (func $context_get (result i32)))
        (import "" "context.set" (func $context_set (param i32)))
        ;; Each task keeps its echo's result at 16 + 8x and its waitable
        ;; set at 20 + 8x; context slot 0 holds 16 + 8x.
        (func (export "run") (param $x i32) (result i32)
            (local $status i32) (local $ptr i32) (local $ws i32)
            (local.set $ptr (i32.add (i32.const 16) (i32.shl (local.get $x) (i32.const 3))))
            (call $context_set (local.get $ptr))
            (local.set $status (call $echo_async (local.get $x) (local.get $ptr)))
            (if (i32.eq (i32.and (local.get $status) (i32.const 0xf)) (i32.const 2))
                (then
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
            ;; An echo of 1000 traps.
            (if (i32.eq (i32.load (local.get $ptr)) (i32.const 1000)) (then unreachable))
            (call $subtask_drop (local.get $index))
            (call $ws_drop (i32.load offset=4 (local.get $ptr)))
            (call $task_return (i32.add (i32.load (local.get $ptr)) (i32.const 1)))
            (i32.const 0))
        (func (export "run-sync") (param $x i32) (result i32)
            (i32.add (call $echo_sync (local.get $x)) (i32.const 1))))
    (core instance $i (instantiate $m (with "" (instance
        (export "mem" (memory $libc "mem"))
        (export "echo-async" (func $echo_async))
        (export "echo-sync" (func $echo_sync))
        (export "task.return" (func $task_return))
        (export "ws.new" (func $ws_new))
        (export "ws.drop" (func $ws_drop))
        (export "join" (func $join))
        (export "subtask.drop" (func $subtask_drop))
        (export "context.get" (func $context_get))
        (export "context.set" (func $context_set))))))
    (func (export "run") async (param "x" u32) (result u32)
        (canon lift (core func $i "run") async (callback (core func $i "cb"))))
    (func (export "run-sync") (param "x" u32) (result u32)
        (canon lift (core func $i "run-sync")))
)"#;

/// How many times the host's `echo` ran.
#[derive(Default)]
struct Host {
    echoes: usize,
    /// The arguments of the echoes, in the order they finished.
    order: Vec<u32>,
}

fn engine() -> Engine {
    Engine::new(&Config::new()).unwrap()
}

/// Runs 20 concurrent calls whose echoes yield 0 to 3 times, under the
/// schedule `seed`: the order in which the echoes finished.
fn echo_order(seed: Option<u64>) -> Vec<u32> {
    let mut config = Config::new();
    if let Some(seed) = seed {
        config.concurrency_schedule_seed(seed);
    }
    let engine = Engine::new(&config).unwrap();
    let component = Component::new(&engine, wat::parse_str(CALLER).unwrap()).unwrap();
    let mut store = Store::new(&engine, Host::default());
    let mut linker = Linker::new(&engine);
    linker
        .root()
        .func_wrap_concurrent("echo", move |accessor: &Accessor<Host>, (a,): (u32,)| {
            Box::pin(async move {
                for _ in 0..a % 4 {
                    yield_once().await;
                }
                accessor.with(|mut access| access.data_mut().order.push(a));
                Ok((a,))
            })
        })
        .unwrap();
    let instance = linker.instantiate(&mut store, &component).unwrap();
    let run: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run").unwrap();
    let outs = block_on(store.run_concurrent(async |accessor| {
        let calls: Vec<BoxFuture<'_, weft::Result<(u32,)>>> = (0..20u32)
            .map(|i| Box::pin(run.call_concurrent(accessor, (i,))) as BoxFuture<'_, _>)
            .collect();
        join_all(calls).await
    }))
    .unwrap();
    for (i, out) in outs.into_iter().enumerate() {
        assert_eq!(out.unwrap(), (i as u32 + 1,));
    }
    store.assert_concurrent_state_empty();
    std::mem::take(&mut store.data_mut().order)
}

/// A linker whose `echo` yields `yields` times before it returns its
/// argument.
fn linker(engine: &Engine, yields: usize) -> Linker<Host> {
    let mut linker = Linker::new(engine);
    linker
        .root()
        .func_wrap_concurrent("echo", move |accessor: &Accessor<Host>, (a,): (u32,)| {
            Box::pin(async move {
                for _ in 0..yields {
                    yield_once().await;
                }
                accessor.with(|mut access| {
                    access.data_mut().echoes += 1;
                    access.data_mut().order.push(a);
                });
                Ok((a,))
            })
        })
        .unwrap();
    linker
}

fn setup(yields: usize) -> (Store<Host>, Instance) {
    let engine = engine();
    let component = Component::new(&engine, wat::parse_str(CALLER).unwrap()).unwrap();
    let mut store = Store::new(&engine, Host::default());
    let instance = linker(&engine, yields).instantiate(&mut store, &component).unwrap();
    (store, instance)
}

#[test]
fn call_concurrent_waits_for_a_concurrent_host_function() -> weft::Result<()> {
    for yields in [0, 1, 3] {
        let (mut store, instance) = setup(yields);
        let run: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run")?;
        let out = block_on(store.run_concurrent(async |accessor| run.call_concurrent(accessor, (41,)).await))??;
        assert_eq!(out, (42,));
        assert_eq!(store.data().echoes, 1);
        store.assert_concurrent_state_empty();
    }
    Ok(())
}

#[test]
fn many_calls_run_concurrently() -> weft::Result<()> {
    let (mut store, instance) = setup(2);
    let run = instance.get_func(&mut store, "run").expect("run");
    let outs = block_on(store.run_concurrent(async |accessor| {
        let calls: Vec<BoxFuture<'_, weft::Result<u32>>> = (0..20u32)
            .map(|i| {
                Box::pin(async move {
                    let mut out = [Val::Bool(false)];
                    run.call_concurrent(accessor, &[Val::U32(i)], &mut out).await?;
                    match out[0] {
                        Val::U32(v) => Ok(v),
                        ref other => weft::bail!("unexpected result {other:?}"),
                    }
                }) as BoxFuture<'_, _>
            })
            .collect();
        join_all(calls).await
    }))?;
    let outs: Vec<u32> = outs.into_iter().collect::<weft::Result<_>>()?;
    assert_eq!(outs, (1..=20).collect::<Vec<_>>());
    assert_eq!(store.data().echoes, 20);
    store.assert_concurrent_state_empty();
    Ok(())
}

#[test]
fn start_and_finish_call_concurrent() -> weft::Result<()> {
    let (mut store, instance) = setup(1);
    let run: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run")?;
    let call = run.start_call_concurrent(&mut store, (9,))?;
    let _ = call.task();
    let out = block_on(store.run_concurrent(async move |accessor| run.finish_call_concurrent(accessor, call).await))??;
    assert_eq!(out, (10,));
    store.assert_concurrent_state_empty();
    Ok(())
}

#[test]
fn a_dropped_start_call_concurrent_leaves_the_store_usable() -> weft::Result<()> {
    let (mut store, instance) = setup(1);
    let run: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run")?;
    // Dropped outside any event loop, with its task waiting for the host.
    drop(run.start_call_concurrent(&mut store, (1,))?);
    // The next event loop ends the task and releases it.
    let out = block_on(store.run_concurrent(async |accessor| run.call_concurrent(accessor, (2,)).await))??;
    assert_eq!(out, (3,));
    assert_eq!(store.data().echoes, 2);
    store.assert_concurrent_state_empty();
    Ok(())
}

#[test]
fn a_dropped_call_concurrent_future_leaves_the_store_usable() -> weft::Result<()> {
    for polls in [0usize, 1, 2] {
        let (mut store, instance) = setup(3);
        let run: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run")?;
        block_on(store.run_concurrent(async |accessor| {
            let mut call = Box::pin(run.call_concurrent(accessor, (5,)));
            let mut cx = Context::from_waker(Waker::noop());
            for _ in 0..polls {
                assert!(call.as_mut().poll(&mut cx).is_pending());
            }
        }))?;
        let out = block_on(store.run_concurrent(async |accessor| run.call_concurrent(accessor, (6,)).await))??;
        assert_eq!(out, (7,));
        // Let whatever the dropped call left behind finish.
        block_on(store.run_concurrent(async |_| {
            for _ in 0..10 {
                yield_once().await;
            }
        }))?;
        store.assert_concurrent_state_empty();
    }
    Ok(())
}

#[test]
fn host_tasks_run_under_call_async_and_a_synchronous_call() -> weft::Result<()> {
    for yields in [0, 2] {
        let (mut store, instance) = setup(yields);
        let run: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run")?;
        assert_eq!(block_on(run.call_async(&mut store, (1,)))?, (2,));
        assert_eq!(run.call(&mut store, (2,))?, (3,));
        store.assert_concurrent_state_empty();
    }
    Ok(())
}

/// A synchronous task may not make a synchronous call of an `async`
/// import (it could block), even one that would be ready at once: the
/// call traps up front, as in Wasmtime.
#[test]
fn a_synchronous_lower_of_an_async_import_from_a_sync_task_traps() -> weft::Result<()> {
    for yields in [0, 1] {
        let (mut store, instance) = setup(yields);
        let run_sync: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run-sync")?;
        let err = run_sync.call(&mut store, (4,)).unwrap_err();
        assert!(
            format!("{err:#}").contains("cannot block a synchronous task before returning"),
            "{err:#}"
        );
        assert_eq!(store.data().echoes, 0);
        store.assert_concurrent_state_empty();
    }
    Ok(())
}

struct Count(Arc<AtomicUsize>, usize);

impl AccessorTask<Host> for Count {
    async fn run(self, accessor: &Accessor<Host>) -> weft::Result<()> {
        for _ in 0..self.1 {
            yield_once().await;
            self.0.fetch_add(1, Ordering::SeqCst);
        }
        accessor.with(|mut access| access.data_mut().echoes += 100);
        Ok(())
    }
}

#[test]
fn spawned_tasks_run_and_can_be_aborted() -> weft::Result<()> {
    let (mut store, _instance) = setup(0);
    let done = Arc::new(AtomicUsize::new(0));
    let finished = store.spawn(Count(done.clone(), 3))?;
    let aborted = store.spawn(Count(Arc::new(AtomicUsize::new(0)), 1_000_000))?;
    block_on(store.run_concurrent(async |accessor| {
        let again = accessor.spawn(Count(done.clone(), 2)).unwrap();
        aborted.abort();
        finished.await;
        again.await;
        aborted.await;
    }))?;
    assert_eq!(done.load(Ordering::SeqCst), 5);
    assert_eq!(store.data().echoes, 200);
    store.assert_concurrent_state_empty();
    Ok(())
}

/// Waits until its flag is set: registers its waker once and is woken
/// exactly once (by [`WakeThenPanic`]).
struct WaitFlag(Arc<std::sync::atomic::AtomicBool>, Arc<std::sync::Mutex<Option<Waker>>>);

impl AccessorTask<Host> for WaitFlag {
    async fn run(self, _: &Accessor<Host>) -> weft::Result<()> {
        std::future::poll_fn(|cx| {
            if self.0.load(Ordering::SeqCst) {
                return Poll::Ready(());
            }
            *self.1.lock().unwrap() = Some(cx.waker().clone());
            Poll::Pending
        })
        .await;
        Ok(())
    }
}

/// Wakes itself, then sets the flag and wakes the [`WaitFlag`] (so both
/// are woken for the same turn, itself first), then panics when polled.
struct WakeThenPanic(Arc<std::sync::atomic::AtomicBool>, Arc<std::sync::Mutex<Option<Waker>>>);

impl AccessorTask<Host> for WakeThenPanic {
    async fn run(self, _: &Accessor<Host>) -> weft::Result<()> {
        let mut first = true;
        std::future::poll_fn(|cx| {
            if !first {
                panic!("the spawned task's own panic");
            }
            first = false;
            cx.waker().wake_by_ref();
            self.0.store(true, Ordering::SeqCst);
            if let Some(w) = self.1.lock().unwrap().take() {
                w.wake();
            }
            Poll::<()>::Pending
        })
        .await;
        Ok(())
    }
}

/// A host task's panic unwinds through a turn of the event loop: the
/// tasks woken for the same turn and not polled yet stay woken (they were
/// once lost, and what waited on them hung).
#[test]
fn a_panic_in_a_host_task_loses_no_wake_up() -> weft::Result<()> {
    let (mut store, _instance) = setup(0);
    let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let waker = Arc::new(std::sync::Mutex::new(None));
    let waiting = store.spawn(WaitFlag(flag.clone(), waker.clone()))?;
    store.spawn(WakeThenPanic(flag, waker))?;
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        block_on(store.run_concurrent(async |_| loop {
            yield_once().await;
        }))
    }));
    assert!(panicked.is_err());
    block_on(store.run_concurrent(async |_| waiting.await))?;
    store.assert_concurrent_state_empty();
    Ok(())
}

#[test]
fn the_accessor_is_refused_outside_the_event_loop() {
    let accessor_outside = std::sync::Mutex::new(None::<Accessor<Host>>);
    let (mut store, _instance) = setup(0);
    block_on(store.run_concurrent(async |accessor| {
        *accessor_outside.lock().unwrap() = Some(accessor.clone());
        // Nested `with`: refused.
        accessor.with(|_| assert!(accessor.try_with(|_| ()).is_err()));
    }))
    .unwrap();
    let accessor = accessor_outside.lock().unwrap().take().unwrap();
    let err = accessor.try_with(|_| ()).unwrap_err();
    assert!(format!("{err}").contains("not reachable"), "{err}");
}

#[test]
fn concurrency_support_off_refuses_the_concurrent_api() {
    let mut config = Config::new();
    config.concurrency_support(false);
    let engine = Engine::new(&config).unwrap();
    assert!(!engine.get_concurrency_support());
    let mut linker: Linker<Host> = Linker::new(&engine);
    let err = linker
        .root()
        .func_wrap_concurrent("echo", |_: &Accessor<Host>, (a,): (u32,)| {
            Box::pin(async move { Ok((a,)) })
        })
        .unwrap_err();
    assert!(format!("{err}").contains("concurrency_support"), "{err}");
    let mut store = Store::new(&engine, Host::default());
    let err = block_on(store.run_concurrent(async |_| ())).unwrap_err();
    assert!(format!("{err}").contains("concurrency support is not enabled"), "{err}");
}

#[test]
fn sync_host_functions_cannot_satisfy_async_imports() {
    let engine = engine();
    let component = Component::new(&engine, wat::parse_str(CALLER).unwrap()).unwrap();
    let mut linker: Linker<Host> = Linker::new(&engine);
    linker.root().func_wrap("echo", |_, (a,): (u32,)| Ok((a,))).unwrap();
    let mut store = Store::new(&engine, Host::default());
    let err = linker.instantiate(&mut store, &component).unwrap_err();
    assert!(format!("{err:#}").contains("`echo` as an `async` function"), "{err:#}");
}

#[test]
fn a_schedule_seed_replays_the_same_interleaving() {
    let default = echo_order(None);
    assert_eq!(default, echo_order(None));
    let orders: Vec<Vec<u32>> = (1..=6).map(|seed| echo_order(Some(seed))).collect();
    for (seed, order) in (1..=6).zip(&orders) {
        assert_eq!(order, &echo_order(Some(seed)), "seed {seed} did not replay");
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..20).collect::<Vec<_>>());
    }
    // Different seeds explore different interleavings.
    assert!(orders.iter().any(|o| o != &orders[0]), "{orders:?}");
}

/// The component of ../shared/seeds/002's tests.
const THUNK_COMPONENT: &str = r#"
    (component
        (core module $m
            (func (export "thunk"))
        )
        (core instance $i (instantiate $m))
        (func (export "thunk") async
            (canon lift (core func $i "thunk"))
        )
    )
"#;

fn thunk(engine: &Engine) -> weft::Result<(Store<()>, TypedFunc<(), ()>)> {
    let component = Component::new(engine, wat::parse_str(THUNK_COMPONENT)?)?;
    let mut store = Store::new(engine, ());
    let instance = block_on(Linker::new(engine).instantiate_async(&mut store, &component))?;
    let thunk = instance.get_typed_func::<(), ()>(&mut store, "thunk")?;
    Ok((store, thunk))
}

/// seeds/002: dropping the result of `start_call_concurrent` outside of the
/// store's event loop does not panic, and nothing leaks.
#[test]
fn drop_start_call_concurrent_outside_event_loop() -> weft::Result<()> {
    let (mut store, thunk) = thunk(&engine())?;
    let call = thunk.start_call_concurrent(&mut store, ())?;
    drop(call);
    store.assert_concurrent_state_empty();
    // The store stays usable.
    block_on(store.run_concurrent(async |accessor| thunk.call_concurrent(accessor, ()).await))??;
    store.assert_concurrent_state_empty();
    Ok(())
}

/// seeds/002: an error from `TaskGroupHook::handle_finish` for a
/// `call_concurrent` does not panic; the call fails with it, the store
/// stays usable and its concurrent state is empty.
#[test]
fn task_group_hook_finish_error_call_concurrent() -> weft::Result<()> {
    use weft::component::{TaskGroupHook, TaskGroupId};
    struct FailFinish;
    impl TaskGroupHook for FailFinish {
        fn handle_start(&mut self, _: TaskGroupId) -> weft::Result<()> {
            Ok(())
        }
        fn handle_enter(&mut self, _: TaskGroupId) -> weft::Result<()> {
            Ok(())
        }
        fn handle_exit(&mut self, _: TaskGroupId) -> weft::Result<()> {
            Ok(())
        }
        fn handle_finish(&mut self, _: TaskGroupId) -> weft::Result<()> {
            weft::bail!("handle_finish failed")
        }
    }
    let (mut store, thunk) = thunk(&engine())?;
    store.task_group_hook(FailFinish);
    let result = block_on(store.run_concurrent(async |store| thunk.call_concurrent(store, ()).await));
    let err = match result {
        Err(e) | Ok(Err(e)) => e,
        Ok(Ok(())) => panic!("the hook's error was lost"),
    };
    assert!(format!("{err:#}").contains("handle_finish failed"), "{err:#}");
    store.assert_concurrent_state_empty();
    Ok(())
}

/// What a recording hook heard.
#[derive(Default)]
struct Heard(std::sync::Mutex<Vec<String>>);

struct Recorder(Arc<Heard>, Option<&'static str>);

impl weft::component::TaskGroupHook for Recorder {
    fn handle_start(&mut self, g: weft::component::TaskGroupId) -> weft::Result<()> {
        self.record("start", g)
    }
    fn handle_enter(&mut self, g: weft::component::TaskGroupId) -> weft::Result<()> {
        self.record("enter", g)
    }
    fn handle_exit(&mut self, g: weft::component::TaskGroupId) -> weft::Result<()> {
        self.record("exit", g)
    }
    fn handle_finish(&mut self, g: weft::component::TaskGroupId) -> weft::Result<()> {
        self.record("finish", g)
    }
}

impl Recorder {
    fn record(&mut self, what: &str, g: weft::component::TaskGroupId) -> weft::Result<()> {
        self.0 .0.lock().unwrap().push(format!("{what} {g:?}"));
        if self.1 == Some(what) {
            weft::bail!("{what} refused");
        }
        Ok(())
    }
}

#[test]
fn task_group_hooks_hear_a_call_and_its_host_tasks() -> weft::Result<()> {
    let (mut store, instance) = setup(1);
    let heard = Arc::new(Heard::default());
    store.task_group_hook(Recorder(heard.clone(), None));
    let run: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run")?;
    let out = block_on(store.run_concurrent(async |accessor| run.call_concurrent(accessor, (1,)).await))??;
    assert_eq!(out, (2,));
    let heard = heard.0.lock().unwrap().clone();
    assert_eq!(
        heard.first().map(String::as_str),
        Some("start TaskGroupId(1)"),
        "{heard:?}"
    );
    assert_eq!(
        heard.last().map(String::as_str),
        Some("finish TaskGroupId(1)"),
        "{heard:?}"
    );
    let enters = heard.iter().filter(|h| h.starts_with("enter")).count();
    let exits = heard.iter().filter(|h| h.starts_with("exit")).count();
    // The task's first run, the echo's two polls, the callback's run.
    assert!(enters >= 3 && enters == exits, "{heard:?}");
    store.assert_concurrent_state_empty();
    Ok(())
}

#[test]
fn a_failing_enter_hook_aborts_its_group_and_the_store_stays_usable() -> weft::Result<()> {
    for refused in ["start", "enter", "exit"] {
        let (mut store, instance) = setup(1);
        store.task_group_hook(Recorder(Arc::new(Heard::default()), Some(refused)));
        let run: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run")?;
        let result = block_on(store.run_concurrent(async |accessor| run.call_concurrent(accessor, (1,)).await));
        let err = match result {
            Err(e) | Ok(Err(e)) => e,
            Ok(Ok(_)) => panic!("the hook's error was lost ({refused})"),
        };
        assert!(format!("{err:#}").contains("refused"), "{refused}: {err:#}");
        // Without the hook, the store takes new work (a new instance).
        store.task_group_hook(Recorder(Arc::new(Heard::default()), None));
        let engine = store.engine().clone();
        let component = Component::new(&engine, wat::parse_str(CALLER)?)?;
        let instance = linker(&engine, 0).instantiate(&mut store, &component)?;
        let run: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run")?;
        let out = block_on(store.run_concurrent(async |accessor| run.call_concurrent(accessor, (5,)).await))??;
        assert_eq!(out, (6,));
        store.check_concurrent_state()?;
    }
    Ok(())
}

/// A trap in a task stops its own call and its own component instance;
/// the store's other instance, and its calls in the same event loop, go
/// on (Wasmtime stops the whole store).
#[test]
fn a_trap_stops_only_its_own_call_and_instance() -> weft::Result<()> {
    let engine = engine();
    let component = Component::new(&engine, wat::parse_str(CALLER)?)?;
    let mut store = Store::new(&engine, Host::default());
    let linker = linker(&engine, 2);
    let a = linker.instantiate(&mut store, &component)?;
    let b = linker.instantiate(&mut store, &component)?;
    let run_a: TypedFunc<(u32,), (u32,)> = a.get_typed_func(&mut store, "run")?;
    let run_b: TypedFunc<(u32,), (u32,)> = b.get_typed_func(&mut store, "run")?;
    let (ra, rb) = block_on(store.run_concurrent(async |accessor| {
        let calls: Vec<BoxFuture<'_, weft::Result<(u32,)>>> = vec![
            Box::pin(run_a.call_concurrent(accessor, (1000,))),
            Box::pin(run_b.call_concurrent(accessor, (20,))),
        ];
        let mut outs = join_all(calls).await.into_iter();
        (outs.next().unwrap(), outs.next().unwrap())
    }))?;
    let err = ra.unwrap_err();
    assert!(format!("{err:#}").contains("unreachable"), "{err:#}");
    assert_eq!(rb?, (21,));
    // The trapped instance refuses every later call; the other works.
    let err =
        block_on(store.run_concurrent(async |accessor| run_a.call_concurrent(accessor, (1,)).await))?.unwrap_err();
    assert!(
        format!("{err:#}").contains("cannot enter component instance"),
        "{err:#}"
    );
    let out = block_on(store.run_concurrent(async |accessor| run_b.call_concurrent(accessor, (1,)).await))??;
    assert_eq!(out, (2,));
    // The trapped instance keeps its handles (a subtask and a waitable
    // set); every reference still adds up.
    store.check_concurrent_state()?;
    assert_eq!(
        store.concurrent_state_table_size(),
        2,
        "{}",
        store.debug_concurrent_state()
    );
    Ok(())
}

/// `async_call_stack` names the guest task that called a concurrent host
/// function while the call starts; the host's own code has none.
#[test]
fn async_call_stack_names_the_calling_task() -> weft::Result<()> {
    use weft::AsContextMut;
    let engine = engine();
    let component = Component::new(&engine, wat::parse_str(CALLER)?)?;
    let mut linker = Linker::new(&engine);
    linker
        .root()
        .func_wrap_concurrent("echo", |accessor: &Accessor<Host>, (a,): (u32,)| {
            let depth = accessor.with(|mut access| access.as_context_mut().async_call_stack().map(|s| s.count()));
            Box::pin(async move {
                assert_eq!(depth?, 1);
                Ok((a,))
            })
        })?;
    let mut store = Store::new(&engine, Host::default());
    let instance = linker.instantiate(&mut store, &component)?;
    let run: TypedFunc<(u32,), (u32,)> = instance.get_typed_func(&mut store, "run")?;
    assert_eq!(store.as_context_mut().async_call_stack()?.count(), 0);
    let out = block_on(store.run_concurrent(async |accessor| run.call_concurrent(accessor, (1,)).await))??;
    assert_eq!(out, (2,));
    store.as_context_mut().assert_concurrent_state_empty();
    Ok(())
}
