//! Tail calls run in constant stack space.
//!
//! The loop count of the main test is `WEFT_TAIL_CALLS` (default one
//! billion, about two seconds); the wasm stack is limited to 64 KiB, which a
//! non-tail recursion exhausts within a few thousand calls. The modules are
//! text, so these tests need the `wat` feature.

#![cfg(feature = "wat")]

use weft::{Config, Engine, Instance, Module, Store, Trap};

const WASM_STACK: usize = 64 << 10;

fn engine() -> Engine {
    let mut config = Config::new();
    config.max_wasm_stack(WASM_STACK);
    Engine::new(&config).unwrap()
}

fn tail_calls() -> i64 {
    std::env::var("WEFT_TAIL_CALLS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000_000)
}

#[test]
fn a_billion_tail_calls_do_not_grow_the_stack() {
    let engine = engine();
    let module = Module::new(
        &engine,
        r#"(module
            (func $loop (export "loop") (param i64) (result i64)
                (if (result i64) (i64.eqz (local.get 0))
                    (then (i64.const 42))
                    (else (return_call $loop (i64.sub (local.get 0) (i64.const 1))))))
            (func $plain (export "plain") (param i64) (result i64)
                (if (result i64) (i64.eqz (local.get 0))
                    (then (i64.const 42))
                    (else (call $plain (i64.sub (local.get 0) (i64.const 1)))))))"#,
    )
    .unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let looping = instance.get_typed_func::<i64, i64>(&mut store, "loop").unwrap();
    assert_eq!(looping.call(&mut store, tail_calls()).unwrap(), 42);

    // The same recursion without tail calls exhausts the stack.
    let plain = instance.get_typed_func::<i64, i64>(&mut store, "plain").unwrap();
    let err = plain.call(&mut store, 1_000_000).unwrap_err();
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::StackOverflow));
}

#[test]
fn indirect_and_reference_tail_calls_and_tail_calls_to_the_host() {
    let engine = engine();
    let module = Module::new(
        &engine,
        r#"(module
            (type $t (func (param i64) (result i64)))
            (import "host" "done" (func $done (param i64) (result i64)))
            (table funcref (elem $even $odd))
            (elem declare func $even)
            ;; even and odd tail-call each other through the table and
            ;; through references, and the host at the end.
            (func $even (export "even") (param i64) (result i64)
                (if (result i64) (i64.eqz (local.get 0))
                    (then (return_call $done (i64.const 1)))
                    (else (return_call_indirect (type $t)
                        (i64.sub (local.get 0) (i64.const 1)) (i32.const 1)))))
            (func $odd (param i64) (result i64)
                (if (result i64) (i64.eqz (local.get 0))
                    (then (return_call $done (i64.const 0)))
                    (else (return_call_ref $t
                        (i64.sub (local.get 0) (i64.const 1)) (ref.func $even))))))"#,
    )
    .unwrap();
    let mut store = Store::new(&engine, ());
    let done = weft::Func::wrap(&mut store, |x: i64| x * 100);
    let instance = Instance::new(&mut store, &module, &[done.into()]).unwrap();
    let even = instance.get_typed_func::<i64, i64>(&mut store, "even").unwrap();
    assert_eq!(even.call(&mut store, 10_000_001).unwrap(), 0);
    assert_eq!(even.call(&mut store, 10_000_000).unwrap(), 100);
}

#[test]
fn an_endless_tail_call_loop_runs_out_of_fuel() {
    let mut config = Config::new();
    config.consume_fuel(true);
    let engine = Engine::new(&config).unwrap();
    let module = Module::new(
        &engine,
        r#"(module
            (type $t (func))
            (table funcref (elem $spin $spin_ref))
            (elem declare func $spin)
            (func $spin (export "spin") (return_call $spin))
            (func (export "spin_indirect") (return_call_indirect (type $t) (i32.const 0)))
            (func $spin_ref (export "spin_ref") (return_call_ref $t (ref.func $spin_ref))))"#,
    )
    .unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    for name in ["spin", "spin_indirect", "spin_ref"] {
        store.set_fuel(1_000_000).unwrap();
        let f = instance.get_typed_func::<(), ()>(&mut store, name).unwrap();
        let err = f.call(&mut store, ()).unwrap_err();
        assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::OutOfFuel), "{name}");
    }
}
