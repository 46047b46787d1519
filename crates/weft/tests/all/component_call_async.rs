//! `call_async` on component functions, and the scenario of Wasmtime's
//! advisory (../shared/seeds/000): a `call_async` future dropped after any
//! number of polls, then the instance called again. Nothing panics or
//! leaks, and the store stays usable.

#![cfg(feature = "component-model-async")]

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use weft::component::{Component, Linker, TypedFunc, Val};
use weft::{Config, Engine, Store};

fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// Polls `future` `polls` times, then drops it; its output if it finished.
fn poll_then_drop<F: Future>(future: F, polls: usize) -> Option<F::Output> {
    let mut future: Pin<Box<F>> = Box::pin(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..polls {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return Some(v);
        }
    }
    None
}

/// `spin` loops forever (yielding at each epoch); `add` adds; `spin-async`
/// is an async-typed export whose core function loops the same way.
const SPINNER: &str = r#"(component
    (core module $m
        (func (export "spin") (loop $l (br $l)))
        (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
        (func (export "spin-async") (result i32) (loop $l (br $l)) (i32.const 0))
        (func (export "cb") (param i32 i32 i32) (result i32) (i32.const 0)))
    (core instance $i (instantiate $m))
    (func (export "spin") (canon lift (core func $i "spin")))
    (func (export "add") (param "a" u32) (param "b" u32) (result u32) (canon lift (core func $i "add")))
    (func (export "spin-async") async
        (canon lift (core func $i "spin-async") async (callback (core func $i "cb"))))
)"#;

fn setup() -> (Engine, Component) {
    let mut config = Config::new();
    config.epoch_interruption(true);
    let engine = Engine::new(&config).unwrap();
    let component = Component::new(&engine, wat::parse_str(SPINNER).unwrap()).unwrap();
    (engine, component)
}

fn store(engine: &Engine) -> Store<()> {
    let mut store = Store::new(engine, ());
    store.epoch_deadline_async_yield_and_update(1);
    store.set_epoch_deadline(0);
    engine.increment_epoch();
    store
}

#[test]
fn call_async_returns_the_results() -> weft::Result<()> {
    let (engine, component) = setup();
    let mut store = store(&engine);
    let instance = block_on(Linker::new(&engine).instantiate_async(&mut store, &component))?;
    let add = instance.get_func(&mut store, "add").expect("add");
    let mut out = [Val::Bool(false)];
    block_on(add.call_async(&mut store, &[Val::U32(40), Val::U32(2)], &mut out))?;
    assert_eq!(out[0], Val::U32(42));
    let typed: TypedFunc<(u32, u32), (u32,)> = instance.get_typed_func(&mut store, "add")?;
    assert_eq!(block_on(typed.call_async(&mut store, (1, 2)))?, (3,));
    Ok(())
}

/// The advisory's scenario, after 0, 1 and many polls, through the dynamic
/// and the typed API, with a synchronous and an async-typed export.
#[test]
fn a_dropped_call_async_future_leaves_the_store_usable() -> weft::Result<()> {
    let (engine, component) = setup();
    // The epoch keeps passing, so that a resumed loop yields again.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let ticker = {
        let (engine, stop) = (engine.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                engine.increment_epoch();
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        })
    };
    let r = dropped_futures(&engine, &component);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = ticker.join();
    r
}

fn dropped_futures(engine: &Engine, component: &Component) -> weft::Result<()> {
    for polls in [0, 1, 2, 10] {
        for name in ["spin", "spin-async"] {
            let mut store = store(engine);
            let instance = block_on(Linker::new(engine).instantiate_async(&mut store, component))?;
            let spin = instance.get_func(&mut store, name).expect(name);
            for _ in 0..2 {
                // The epoch passes the deadline: the loop yields at once.
                store.set_epoch_deadline(0);
                engine.increment_epoch();
                let result = poll_then_drop(spin.call_async(&mut store, &[], &mut []), polls);
                if let Some(r) = result {
                    panic!("{name} cannot finish: {r:?}");
                }
                // An async-typed task's thread stays in the store (on its
                // own fiber) when its caller goes: later event loops run
                // it, and dropping the store unwinds it.
                if name == "spin" {
                    assert_eq!(engine.async_stacks_in_use(), 0, "{name} after {polls} polls");
                }
                store.check_concurrent_state()?;
            }
            // The instance is called again: it works (the cancelled calls
            // were host errors, not traps) or fails with a clear error.
            let add: TypedFunc<(u32, u32), (u32,)> = instance.get_typed_func(&mut store, "add")?;
            match block_on(add.call_async(&mut store, (40, 2))) {
                Ok(r) => assert_eq!(r, (42,)),
                Err(e) => assert!(format!("{e:#}").contains("cannot enter component instance"), "{e:#}"),
            }
            store.set_epoch_deadline(0);
            engine.increment_epoch();
            let typed_spin: TypedFunc<(), ()> = instance.get_typed_func(&mut store, name)?;
            let r = poll_then_drop(typed_spin.call_async(&mut store, ()), polls);
            assert!(r.is_none(), "{r:?}");
            store.check_concurrent_state()?;
            // A new instance in the same store works.
            let fresh = block_on(Linker::new(engine).instantiate_async(&mut store, component))?;
            let add: TypedFunc<(u32, u32), (u32,)> = fresh.get_typed_func(&mut store, "add")?;
            assert_eq!(block_on(add.call_async(&mut store, (1, 1)))?, (2,));
            drop(store);
            assert_eq!(engine.async_stacks_in_use(), 0, "{name} after {polls} polls");
        }
    }
    Ok(())
}

/// A task of an `async` function that spins yields at each epoch: the
/// store's event loop gives the executor a turn and runs other work
/// meanwhile, under `run_concurrent` as under `call_async`.
#[test]
fn a_spinning_async_task_yields_to_other_work() -> weft::Result<()> {
    let (engine, component) = setup();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let ticker = {
        let (engine, stop) = (engine.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                engine.increment_epoch();
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        })
    };
    let r = (|| -> weft::Result<()> {
        let mut store = store(&engine);
        let instance = block_on(Linker::new(&engine).instantiate_async(&mut store, &component))?;
        let spin: TypedFunc<(), ()> = instance.get_typed_func(&mut store, "spin-async")?;
        let add: TypedFunc<(u32, u32), (u32,)> = instance.get_typed_func(&mut store, "add")?;
        let sum = block_on(store.run_concurrent(async |accessor| {
            let mut spinning = Box::pin(spin.call_concurrent(accessor, ()));
            let mut cx = Context::from_waker(Waker::noop());
            for _ in 0..3 {
                assert!(spinning.as_mut().poll(&mut cx).is_pending());
                // Let the loop run a turn or two.
                let mut turned = false;
                std::future::poll_fn(|cx| {
                    if turned {
                        Poll::Ready(())
                    } else {
                        turned = true;
                        cx.waker().wake_by_ref();
                        Poll::Pending
                    }
                })
                .await;
            }
            add.call_concurrent(accessor, (40, 2)).await
        }))??;
        assert_eq!(sum, (42,));
        store.check_concurrent_state()?;
        drop(store);
        assert_eq!(engine.async_stacks_in_use(), 0);
        Ok(())
    })();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = ticker.join();
    r
}
