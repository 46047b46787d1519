//! `Store::call_hook`: every transition between the host and wasm, balanced
//! across the suspensions of async calls and of component-model tasks; an
//! error of the hook fails the call.

use std::sync::{Arc, Mutex};
#[cfg(feature = "async")]
use std::task::{Context, Poll, Waker};
use weft::{CallHook, Caller, Engine, Linker, Module, Store};

#[cfg(feature = "async")]
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// Pending once (waking itself), then ready.
#[cfg(feature = "component-model-async")]
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

type Heard = Arc<Mutex<Vec<CallHook>>>;

fn record<T: 'static>(store: &mut Store<T>) -> Heard {
    let heard: Heard = Arc::default();
    let h = heard.clone();
    store.call_hook(move |_, kind| {
        h.lock().unwrap().push(kind);
        Ok(())
    });
    heard
}

/// Opens and closes nest, and every one is closed at the end.
#[cfg(feature = "component-model-async")]
fn assert_balanced(heard: &[CallHook]) {
    let mut open = Vec::new();
    for kind in heard {
        match kind {
            CallHook::CallingWasm | CallHook::CallingHost => open.push(*kind),
            CallHook::ReturningFromWasm => assert_eq!(open.pop(), Some(CallHook::CallingWasm), "{heard:?}"),
            CallHook::ReturningFromHost => assert_eq!(open.pop(), Some(CallHook::CallingHost), "{heard:?}"),
        }
    }
    assert!(open.is_empty(), "{heard:?}");
}

const WAT: &str = r#"(module
    (import "host" "f" (func $f))
    (func (export "run") (call $f)))"#;

#[test]
fn transitions_of_a_call_into_wasm_and_back_through_the_host() -> weft::Result<()> {
    use CallHook::*;
    let engine = Engine::default();
    let module = Module::new(&engine, wat::parse_str(WAT)?)?;
    let mut store = Store::new(&engine, ());
    let heard = record(&mut store);
    let mut linker = Linker::new(&engine);
    linker.func_wrap("host", "f", |_: Caller<'_, ()>| {})?;
    let instance = linker.instantiate(&mut store, &module)?;
    let run = instance.get_typed_func::<(), ()>(&mut store, "run")?;
    heard.lock().unwrap().clear();
    run.call(&mut store, ())?;
    assert_eq!(
        *heard.lock().unwrap(),
        [CallingWasm, CallingHost, ReturningFromHost, ReturningFromWasm]
    );
    assert!(CallingHost.entering_host() && ReturningFromWasm.entering_host());
    assert!(CallingWasm.exiting_host() && ReturningFromHost.exiting_host());
    Ok(())
}

/// An epoch yield suspends the call's fiber: the hook hears the call
/// close and open again around the suspension. (A `func_wrap_async` host
/// function holds the store while it waits, so its suspensions are not
/// heard.)
#[cfg(feature = "async")]
#[test]
fn transitions_stay_balanced_across_an_async_suspension() -> weft::Result<()> {
    use CallHook::*;
    let mut config = weft::Config::new();
    config.epoch_interruption(true);
    let engine = Engine::new(&config)?;
    let module = Module::new(
        &engine,
        wat::parse_str(
            r#"(module (func (export "spin") (local $i i32)
                (loop $l
                    (local.set $i (i32.add (local.get $i) (i32.const 1)))
                    (br_if $l (i32.lt_u (local.get $i) (i32.const 10))))))"#,
        )?,
    )?;
    let mut store = Store::new(&engine, ());
    store.epoch_deadline_async_yield_and_update(1);
    let instance = block_on(Linker::new(&engine).instantiate_async(&mut store, &module))?;
    let spin = instance.get_typed_func::<(), ()>(&mut store, "spin")?;
    let heard = record(&mut store);
    store.set_epoch_deadline(0);
    engine.increment_epoch();
    block_on(spin.call_async(&mut store, ()))?;
    let heard = heard.lock().unwrap().clone();
    assert_eq!(
        heard,
        [CallingWasm, ReturningFromWasm, CallingWasm, ReturningFromWasm],
        "suspended once: neither side runs meanwhile"
    );
    Ok(())
}

#[test]
fn an_error_of_the_hook_fails_the_call() -> weft::Result<()> {
    let engine = Engine::default();
    let module = Module::new(&engine, wat::parse_str(WAT)?)?;
    let mut store = Store::new(&engine, ());
    let mut linker = Linker::new(&engine);
    linker.func_wrap("host", "f", |_: Caller<'_, ()>| {})?;
    let instance = linker.instantiate(&mut store, &module)?;
    let run = instance.get_typed_func::<(), ()>(&mut store, "run")?;
    store.call_hook(|_, kind| {
        if kind == CallHook::CallingHost {
            weft::bail!("no host calls today");
        }
        Ok(())
    });
    let err = run.call(&mut store, ()).unwrap_err();
    assert!(format!("{err:#}").contains("no host calls today"), "{err:#}");
    // The store stays usable once the hook allows the call.
    store.call_hook(|_, _| Ok(()));
    run.call(&mut store, ())?;
    Ok(())
}

/// A component task that waits for a concurrent host function suspends
/// its fiber: the transitions stay balanced.
#[cfg(feature = "component-model-async")]
#[test]
fn transitions_stay_balanced_across_component_tasks() -> weft::Result<()> {
    use weft::component::{Accessor, Component, Linker, TypedFunc};
    let engine = Engine::default();
    let component = Component::new(
        &engine,
        r#"(component
            (import "slow" (func $slow async))
            (core func $slow (canon lower (func $slow)))
            (core module $m
                (import "" "slow" (func $slow))
                (func (export "run") (call $slow) (call $slow)))
            (core instance $i (instantiate $m (with "" (instance (export "slow" (func $slow))))))
            (func (export "run") async (canon lift (core func $i "run"))))"#,
    )?;
    let mut linker = Linker::new(&engine);
    linker.root().func_wrap_concurrent("slow", |_: &Accessor<()>, (): ()| {
        Box::pin(async {
            yield_once().await;
            Ok(())
        })
    })?;
    let mut store = Store::new(&engine, ());
    let instance = linker.instantiate(&mut store, &component)?;
    let run: TypedFunc<(), ()> = instance.get_typed_func(&mut store, "run")?;
    let heard = record(&mut store);
    block_on(store.run_concurrent(async |accessor| run.call_concurrent(accessor, ()).await))??;
    let heard = heard.lock().unwrap().clone();
    assert!(heard.len() >= 8, "{heard:?}");
    assert_balanced(&heard);
    Ok(())
}
