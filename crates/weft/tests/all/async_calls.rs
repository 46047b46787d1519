//! Async calls on fibers: async host functions, yields, and futures that are
//! safe to drop at any point.

#![cfg(feature = "async")]

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use weft::*;

fn wasm(text: &str) -> Vec<u8> {
    wat::parse_str(text).expect("test module is valid text")
}

fn async_engine(f: impl FnOnce(&mut Config)) -> Engine {
    let mut config = Config::new();
    f(&mut config);
    Engine::new(&config).unwrap()
}

/// A future that is pending `n` times (waking itself), then ready.
struct PendingTimes(usize);

impl Future for PendingTimes {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 == 0 {
            Poll::Ready(())
        } else {
            self.0 -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// Polls `future` to completion on this thread (a minimal executor).
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

const HOST: &str = r#"(module
    (import "host" "wait" (func $wait (param i32) (result i32)))
    (func (export "run") (param i32) (result i32)
      local.get 0 call $wait i32.const 1 i32.add)
    (func (export "plain") (param i32) (result i32) local.get 0 i32.const 2 i32.mul))"#;

fn host_linker(engine: &Engine) -> Linker<()> {
    let mut linker = Linker::new(engine);
    linker
        .func_wrap_async("host", "wait", |_caller: Caller<'_, ()>, (n,): (i32,)| {
            Box::new(async move {
                PendingTimes(n.max(0) as usize).await;
                n * 10
            })
        })
        .unwrap();
    linker
}

#[test]
fn async_host_functions_run_under_a_hand_written_executor() -> Result<()> {
    let engine = async_engine(|_| {});
    let module = Module::new(&engine, wasm(HOST))?;
    let mut store = Store::new(&engine, ());
    let linker = host_linker(&engine);
    let instance = block_on(linker.instantiate_async(&mut store, &module))?;
    let run = instance.get_typed_func::<i32, i32>(&mut store, "run")?;
    assert_eq!(block_on(run.call_async(&mut store, 3))?, 31);
    let f = instance.get_func(&mut store, "run").unwrap();
    let mut out = [Val::I32(0)];
    block_on(f.call_async(&mut store, &[Val::I32(2)], &mut out))?;
    assert_eq!(out[0].i32(), Some(21));
    assert_eq!(engine.async_stacks_in_use(), 0);
    Ok(())
}

#[test]
fn async_host_functions_run_under_tokio() -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()?;
    rt.block_on(async {
        let engine = async_engine(|_| {});
        let module = Module::new(&engine, wasm(HOST))?;
        let mut linker = Linker::<u32>::new(&engine);
        linker.func_wrap_async("host", "wait", |mut caller: Caller<'_, u32>, (n,): (i32,)| {
            Box::new(async move {
                tokio::time::sleep(std::time::Duration::from_millis(n as u64)).await;
                *caller.data_mut() += 1;
                n * 10
            })
        })?;
        let mut handles = Vec::new();
        for i in 0..4 {
            let (engine, module, linker) = (engine.clone(), module.clone(), linker.clone());
            handles.push(tokio::spawn(async move {
                let mut store = Store::new(&engine, 0u32);
                let instance = linker.instantiate_async(&mut store, &module).await?;
                let run = instance.get_typed_func::<i32, i32>(&mut store, "run")?;
                let r = run.call_async(&mut store, i).await?;
                assert_eq!(*store.data(), 1);
                Ok::<i32, Error>(r)
            }));
        }
        for (i, h) in handles.into_iter().enumerate() {
            assert_eq!(h.await??, i as i32 * 10 + 1);
        }
        assert_eq!(engine.async_stacks_in_use(), 0);
        Ok(())
    })
}

#[test]
fn sync_calls_keep_working_and_refuse_async_host_functions() -> Result<()> {
    let engine = async_engine(|_| {});
    let module = Module::new(&engine, wasm(HOST))?;
    let mut store = Store::new(&engine, ());
    let linker = host_linker(&engine);
    let instance = linker.instantiate(&mut store, &module)?;
    let plain = instance.get_typed_func::<i32, i32>(&mut store, "plain")?;
    assert_eq!(plain.call(&mut store, 4)?, 8);
    let run = instance.get_typed_func::<i32, i32>(&mut store, "run")?;
    let err = run.call(&mut store, 1).unwrap_err();
    assert!(format!("{err:?}").contains("call_async"), "{err:?}");
    assert_eq!(plain.call(&mut store, 5)?, 10);
    Ok(())
}

/// As in Wasmtime 48, async is always available: `call_async` works on a
/// default `Config`, and `Config::async_support` does nothing.
#[test]
fn call_async_works_on_a_default_config() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(&engine, wasm(HOST))?;
    let mut store = Store::new(&engine, ());
    let linker = host_linker(&engine);
    let instance = linker.instantiate(&mut store, &module)?;
    let plain = instance.get_typed_func::<i32, i32>(&mut store, "plain")?;
    assert_eq!(block_on(plain.call_async(&mut store, 1))?, 2);
    let mut config = Config::new();
    #[allow(
        deprecated,
        reason = "checks that the deprecated switch still compiles and does nothing"
    )]
    config.async_support(false);
    let engine = Engine::new(&config)?;
    let module = Module::new(&engine, wasm(HOST))?;
    let mut store = Store::new(&engine, ());
    let instance = host_linker(&engine).instantiate(&mut store, &module)?;
    let plain = instance.get_typed_func::<i32, i32>(&mut store, "plain")?;
    assert_eq!(block_on(plain.call_async(&mut store, 20))?, 40);
    Ok(())
}

/// Polls `future` `polls` times and then drops it; returns its output if it
/// finished within those polls.
fn poll_then_drop<F: Future>(future: F, polls: usize) -> Option<F::Output> {
    let mut future = Box::pin(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..polls {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return Some(v);
        }
    }
    None
}

#[test]
fn dropping_a_pending_call_then_calling_again_is_safe() -> Result<()> {
    let engine = async_engine(|_| {});
    let module = Module::new(&engine, wasm(HOST))?;
    let mut store = Store::new(&engine, ());
    let linker = host_linker(&engine);
    let instance = block_on(linker.instantiate_async(&mut store, &module))?;
    let run = instance.get_typed_func::<i32, i32>(&mut store, "run")?;
    for polls in [0, 1, 2, 5] {
        let out = poll_then_drop(run.call_async(&mut store, 100), polls);
        assert!(out.is_none(), "the call cannot finish in {polls} polls");
        assert_eq!(engine.async_stacks_in_use(), 0, "stack leaked after {polls} polls");
        assert_eq!(block_on(run.call_async(&mut store, 2))?, 21);
        assert!(!run.call(&mut store, 0).unwrap_err().to_string().is_empty());
    }
    Ok(())
}

/// Advances `engine`'s epoch every millisecond on a thread of its own until
/// dropped, as an embedder's epoch timer does. (A yield sets the next
/// deadline from the epoch at resumption, as in Wasmtime, so the epoch must
/// advance while wasm runs, not only between polls.)
struct Ticker {
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Ticker {
    fn start(engine: &Engine) -> Ticker {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (engine, stopped) = (engine.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !stopped.load(Ordering::SeqCst) {
                engine.increment_epoch();
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        });
        Ticker {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[test]
fn epoch_yields_let_other_futures_progress_and_can_be_dropped() -> Result<()> {
    let engine = async_engine(|c| {
        c.epoch_interruption(true);
    });
    let module = Module::new(&engine, wasm(r#"(module (func (export "spin") (loop br 0)))"#))?;
    let mut store = Store::new(&engine, ());
    let instance = block_on(Instance::new_async(&mut store, &module, &[]))?;
    store.set_epoch_deadline(1);
    store.epoch_deadline_async_yield_and_update(1);
    let spin = instance.get_typed_func::<(), ()>(&mut store, "spin")?;
    let ticker = Ticker::start(&engine);
    let mut future = Box::pin(spin.call_async(&mut store, ()));
    let mut cx = Context::from_waker(Waker::noop());
    let mut pending = 0;
    for _ in 0..5 {
        assert!(future.as_mut().poll(&mut cx).is_pending());
        pending += 1;
    }
    drop(future);
    drop(ticker);
    assert_eq!(pending, 5);
    assert_eq!(engine.async_stacks_in_use(), 0);
    Ok(())
}

#[test]
fn epoch_yield_sets_the_next_deadline_after_resuming() -> Result<()> {
    // As in Wasmtime, the new deadline counts from the epoch at resumption:
    // ticks that pass while the call is suspended do not make it yield
    // again. A loop of 50 iterations with the epoch advanced only between
    // polls therefore yields once, not at every iteration.
    let engine = async_engine(|c| {
        c.epoch_interruption(true);
    });
    let module = Module::new(
        &engine,
        wasm(
            r#"(module (func (export "count") (param i32) (result i32)
              (loop $l local.get 0 i32.const 1 i32.sub local.tee 0 br_if $l) i32.const 7))"#,
        ),
    )?;
    let mut store = Store::new(&engine, ());
    let instance = block_on(Instance::new_async(&mut store, &module, &[]))?;
    let count = instance.get_typed_func::<i32, i32>(&mut store, "count")?;
    store.set_epoch_deadline(1);
    store.epoch_deadline_async_yield_and_update(1);
    engine.increment_epoch();
    let mut future = Box::pin(count.call_async(&mut store, 50));
    let mut cx = Context::from_waker(Waker::noop());
    let mut polls = 1;
    let result = loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(result) => break result?,
            Poll::Pending => {
                polls += 1;
                assert!(polls < 10, "the call yields at every tick");
                engine.increment_epoch();
            }
        }
    };
    assert_eq!((result, polls), (7, 2));
    Ok(())
}

#[test]
fn fuel_yields_suspend_and_the_call_finishes() -> Result<()> {
    let engine = async_engine(|c| {
        c.consume_fuel(true);
    });
    let module = Module::new(
        &engine,
        wasm(
            r#"(module (func (export "count") (param i32) (result i32)
              (loop $l local.get 0 i32.const 1 i32.sub local.tee 0 br_if $l) local.get 0))"#,
        ),
    )?;
    let mut store = Store::new(&engine, ());
    store.set_fuel(u64::MAX / 2)?;
    store.fuel_async_yield_interval(Some(1000))?;
    let instance = block_on(Instance::new_async(&mut store, &module, &[]))?;
    let count = instance.get_typed_func::<i32, i32>(&mut store, "count")?;
    let polls = Arc::new(AtomicUsize::new(0));
    let counted = polls.clone();
    let result = block_on(async {
        let mut call = Box::pin(count.call_async(&mut store, 10_000));
        std::future::poll_fn(|cx| {
            counted.fetch_add(1, Ordering::SeqCst);
            call.as_mut().poll(cx)
        })
        .await
    })?;
    assert_eq!(result, 0);
    assert!(polls.load(Ordering::SeqCst) > 10, "{}", polls.load(Ordering::SeqCst));
    // Dropped mid-way, the call leaves the store usable.
    assert!(poll_then_drop(count.call_async(&mut store, 1_000_000), 3).is_none());
    assert_eq!(block_on(count.call_async(&mut store, 10))?, 0);
    assert_eq!(engine.async_stacks_in_use(), 0);
    Ok(())
}

#[test]
fn call_async_futures_are_send() {
    fn is_send<T: Send>(_: &T) {}
    let engine = async_engine(|_| {});
    let mut store = Store::new(&engine, ());
    let f = Func::wrap(&mut store, || {});
    let fut = f.call_async(&mut store, &[], &mut []);
    is_send(&fut);
    drop(fut);
}

#[test]
fn an_infinite_loop_yielding_on_epochs_lets_other_tasks_run() -> Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_time().build()?;
    rt.block_on(async {
        let engine = async_engine(|c| {
            c.epoch_interruption(true);
        });
        let module = Module::new(&engine, wasm(r#"(module (func (export "spin") (loop br 0)))"#))?;
        let mut store = Store::new(&engine, ());
        store.set_epoch_deadline(1_000);
        store.epoch_deadline_async_yield_and_update(1);
        let instance = Instance::new_async(&mut store, &module, &[]).await?;
        let spin = instance.get_typed_func::<(), ()>(&mut store, "spin")?;
        let ticks = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (ticker_count, ticker_stop) = (ticks.clone(), stop.clone());
        // Another task on the same thread: it only runs when the wasm
        // yields, which it does at each tick of the epoch timer.
        let other = tokio::spawn(async move {
            while !ticker_stop.load(Ordering::SeqCst) {
                ticker_count.fetch_add(1, Ordering::SeqCst);
                tokio::task::yield_now().await;
            }
        });
        let timer = Ticker::start(&engine);
        store.set_epoch_deadline(0);
        let outcome =
            tokio::time::timeout(std::time::Duration::from_millis(100), spin.call_async(&mut store, ())).await;
        assert!(outcome.is_err(), "the infinite loop cannot finish");
        drop(timer);
        stop.store(true, Ordering::SeqCst);
        other.await?;
        assert!(ticks.load(Ordering::SeqCst) > 10, "{}", ticks.load(Ordering::SeqCst));
        assert_eq!(engine.async_stacks_in_use(), 0);
        Ok(())
    })
}

/// Exceptions work in async calls: one thrown and caught around a suspended
/// async host call, and one escaping to the caller of `call_async`, which
/// gets a `ThrownException` and can call again.
#[test]
fn exceptions_in_async_calls() -> Result<()> {
    let engine = async_engine(|_| {});
    let module = Module::new(
        &engine,
        wasm(
            r#"(module
            (import "host" "wait" (func $wait (param i32) (result i32)))
            (tag $e (param i32))
            (func $throw_after_wait (param i32) (throw $e (call $wait (local.get 0))))
            (func (export "caught") (param i32) (result i32)
                (block $h (result i32)
                    (try_table (catch $e $h) (call $throw_after_wait (local.get 0)))
                    (i32.const -1)))
            (func (export "escapes") (param i32) (call $throw_after_wait (local.get 0))))"#,
        ),
    )?;
    let mut store = Store::new(&engine, ());
    let linker = host_linker(&engine);
    let instance = block_on(linker.instantiate_async(&mut store, &module))?;
    let caught = instance.get_typed_func::<i32, i32>(&mut store, "caught")?;
    assert_eq!(block_on(caught.call_async(&mut store, 3))?, 30);
    let escapes = instance.get_typed_func::<i32, ()>(&mut store, "escapes")?;
    let err = block_on(escapes.call_async(&mut store, 2)).unwrap_err();
    assert!(
        err.chain().any(|e| e.downcast_ref::<ThrownException>().is_some()),
        "{err:#}"
    );
    assert_eq!(block_on(caught.call_async(&mut store, 1))?, 10);
    assert_eq!(engine.async_stacks_in_use(), 0);
    Ok(())
}

/// An async host function that throws after suspending: wasm catches the
/// exception by tag with its payload, and uncaught it reaches the caller of
/// `call_async`, pending in the store.
#[test]
fn async_host_function_throws_into_wasm() -> Result<()> {
    let engine = async_engine(|_| {});
    let mut store = Store::new(&engine, ());
    let ty = ExnType::new(&engine, [ValType::I32])?;
    let tag = Tag::new(&mut store, &ty.tag_type())?;
    let mut linker = Linker::new(&engine);
    linker.define(&store, "host", "tag", tag)?;
    linker.func_wrap_async("host", "throw", move |mut caller: Caller<'_, ()>, (n,): (i32,)| {
        let ty = ty.clone();
        Box::new(async move {
            PendingTimes(2).await;
            let pre = ExnRefPre::new(&mut caller, ty);
            let exn = ExnRef::new(&mut caller, &pre, &tag, &[Val::I32(n + 1)])?;
            caller.throw::<()>(exn)?;
            Ok::<(), Error>(())
        })
    })?;
    let module = Module::new(
        &engine,
        wasm(
            r#"(module
            (import "host" "tag" (tag $t (param i32)))
            (import "host" "throw" (func $throw (param i32)))
            (func (export "caught") (param i32) (result i32)
                (block $h (result i32)
                    (try_table (catch $t $h) (call $throw (local.get 0)))
                    (i32.const -1)))
            (func (export "escapes") (param i32) (call $throw (local.get 0))))"#,
        ),
    )?;
    let instance = block_on(linker.instantiate_async(&mut store, &module))?;
    let caught = instance.get_typed_func::<i32, i32>(&mut store, "caught")?;
    assert_eq!(block_on(caught.call_async(&mut store, 3))?, 4);
    let escapes = instance.get_typed_func::<i32, ()>(&mut store, "escapes")?;
    let err = block_on(escapes.call_async(&mut store, 7)).unwrap_err();
    assert!(
        err.chain().any(|e| e.downcast_ref::<ThrownException>().is_some()),
        "{err:#}"
    );
    let exn = store.take_pending_exception().expect("the escaped exception");
    assert_eq!(exn.fields(&store)?[0].i32(), Some(8));
    assert_eq!(engine.async_stacks_in_use(), 0);
    Ok(())
}
