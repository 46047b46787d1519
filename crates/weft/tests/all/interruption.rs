//! Fuel and epoch interruption of synchronous calls.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use weft::*;

fn wasm(text: &str) -> Vec<u8> {
    wat::parse_str(text).expect("test module is valid text")
}

const FIB: &str = r#"(module
  (func $fibonacci (export "fibonacci") (param $n i32) (result i32)
    (if (i32.lt_s (local.get $n) (i32.const 2)) (then (return (local.get $n))))
    (i32.add (call $fibonacci (i32.sub (local.get $n) (i32.const 1)))
             (call $fibonacci (i32.sub (local.get $n) (i32.const 2))))))"#;

const LOOP: &str = r#"(module (func (export "run") (loop br 0)))"#;

/// What Wasmtime 48's `fuel` example prints for the same function: the fuel
/// each of fib(1) to fib(13) consumes out of 10,000, fib(14) running out.
const WASMTIME_FIB_FUEL: [u64; 13] = [6, 26, 46, 86, 146, 246, 406, 666, 1086, 1766, 2866, 4646, 7526];

#[test]
fn fuel_is_consumed_as_in_wasmtime_and_runs_out() -> Result<()> {
    let mut config = Config::new();
    config.consume_fuel(true);
    let engine = Engine::new(&config)?;
    let mut store = Store::new(&engine, ());
    store.set_fuel(10_000)?;
    let module = Module::new(&engine, wasm(FIB))?;
    let instance = Instance::new(&mut store, &module, &[])?;
    let fib = instance.get_typed_func::<i32, i32>(&mut store, "fibonacci")?;
    let mut consumed = Vec::new();
    let mut exhausted_at = None;
    for n in 1..40 {
        let before = store.get_fuel()?;
        match fib.call(&mut store, n) {
            Ok(_) => consumed.push(before - store.get_fuel()?),
            Err(e) => {
                assert_eq!(e.downcast_ref::<Trap>(), Some(&Trap::OutOfFuel), "{e:?}");
                exhausted_at = Some(n);
                break;
            }
        }
        store.set_fuel(10_000)?;
    }
    assert_eq!(consumed, WASMTIME_FIB_FUEL);
    assert_eq!(exhausted_at, Some(14));
    // The store stays usable.
    store.set_fuel(10_000)?;
    assert_eq!(fib.call(&mut store, 10)?, 55);
    Ok(())
}

#[test]
fn an_infinite_loop_runs_out_of_fuel() -> Result<()> {
    let mut config = Config::new();
    config.consume_fuel(true);
    let engine = Engine::new(&config)?;
    let mut store = Store::new(&engine, ());
    store.set_fuel(1_000_000)?;
    let module = Module::new(&engine, wasm(LOOP))?;
    let instance = Instance::new(&mut store, &module, &[])?;
    let run = instance.get_typed_func::<(), ()>(&mut store, "run")?;
    let err = run.call(&mut store, ()).unwrap_err();
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::OutOfFuel), "{err:?}");
    assert_eq!(store.get_fuel()?, 0);
    Ok(())
}

#[test]
fn fuel_apis_fail_without_fuel() {
    let mut store = Store::new(&Engine::default(), ());
    assert!(store.set_fuel(1).is_err());
    assert!(store.get_fuel().is_err());
}

#[test]
fn an_infinite_loop_is_interrupted_by_the_epoch() -> Result<()> {
    let mut config = Config::new();
    config.epoch_interruption(true);
    let engine = Engine::new(&config)?;
    let mut store = Store::new(&engine, ());
    let module = Module::new(&engine, wasm(LOOP))?;
    let instance = Instance::new(&mut store, &module, &[])?;
    store.set_epoch_deadline(1);
    let ticker = engine.clone();
    let handle = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        ticker.increment_epoch();
    });
    let run = instance.get_typed_func::<(), ()>(&mut store, "run")?;
    let err = run.call(&mut store, ()).unwrap_err();
    handle.join().unwrap();
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::Interrupt), "{err:?}");
    Ok(())
}

#[test]
fn the_default_epoch_deadline_traps_at_once() -> Result<()> {
    let mut config = Config::new();
    config.epoch_interruption(true);
    let engine = Engine::new(&config)?;
    let mut store = Store::new(&engine, ());
    let module = Module::new(&engine, wasm(FIB))?;
    let instance = Instance::new(&mut store, &module, &[])?;
    let fib = instance.get_typed_func::<i32, i32>(&mut store, "fibonacci")?;
    let err = fib.call(&mut store, 1).unwrap_err();
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::Interrupt), "{err:?}");
    store.set_epoch_deadline(1);
    assert_eq!(fib.call(&mut store, 10)?, 55);
    Ok(())
}

#[test]
fn the_epoch_callback_extends_the_deadline_and_then_fails() -> Result<()> {
    let mut config = Config::new();
    config.epoch_interruption(true);
    let engine = Engine::new(&config)?;
    let mut store = Store::new(&engine, ());
    let module = Module::new(&engine, wasm(LOOP))?;
    let instance = Instance::new(&mut store, &module, &[])?;
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    store.set_epoch_deadline(1);
    store.epoch_deadline_callback(move |_ctx| {
        let n = seen.fetch_add(1, Ordering::SeqCst);
        if n < 3 {
            // A deadline of the current epoch is reached at the next check.
            Ok(UpdateDeadline::Continue(0))
        } else {
            bail!("enough")
        }
    });
    engine.increment_epoch();
    let run = instance.get_typed_func::<(), ()>(&mut store, "run")?;
    let err = run.call(&mut store, ()).unwrap_err();
    assert!(format!("{err:?}").contains("enough"), "{err:?}");
    assert_eq!(calls.load(Ordering::SeqCst), 4);
    // Yielding needs an async call: a sync call fails cleanly.
    store.epoch_deadline_async_yield_and_update(1);
    engine.increment_epoch();
    store.set_epoch_deadline(0);
    let err = run.call(&mut store, ()).unwrap_err();
    assert!(format!("{err:?}").contains("async"), "{err:?}");
    Ok(())
}
