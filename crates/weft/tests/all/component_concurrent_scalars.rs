//! Calls of `async` functions whose parameters and result are integers or
//! `bool`s: the host passes them to the core function as flat values, and a
//! `task.return` for the host keeps its flat result until the host lifts
//! it. Each value must come out as the canonical ABI lifts it (narrow
//! integers truncated, `bool` any non-zero `i32`), through the typed and
//! the dynamic API, with `call_concurrent` and `call_async`.

#![cfg(feature = "component-model-async")]

use std::future::Future;
use std::task::{Context, Poll, Waker};
use weft::component::{Component, Instance, Linker, TypedFunc, Val};
use weft::{Config, Engine, Store};

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

/// Callback-lifted `async` functions that return at once:
/// - `wide(x: s64, y: u64) -> u64` returns `x + y`;
/// - `narrow(b: bool, x: s8, y: u16) -> s8` returns `x` when `b`, else
///   `y + 0x100` (the core `i32` has bits above the `s8`'s);
/// - `truth(x: u32) -> bool` returns `x` itself as the core `i32`;
/// - `sink(x: u32)` returns nothing;
/// - `name(x: u32) -> string` returns "ok" (a result that is not a scalar).
const COMPONENT: &str = r#"(component
    (core module $libc (memory (export "mem") 1)
        (data (i32.const 16) "ok"))
    (core instance $libc (instantiate $libc))
    (core func $ret_u64 (canon task.return (result u64)))
    (core func $ret_s8 (canon task.return (result s8)))
    (core func $ret_bool (canon task.return (result bool)))
    (core func $ret_none (canon task.return))
    (core func $ret_string (canon task.return (result string) (memory (core memory $libc "mem"))))
    (core module $m
        (import "" "ret-u64" (func $ret_u64 (param i64)))
        (import "" "ret-s8" (func $ret_s8 (param i32)))
        (import "" "ret-bool" (func $ret_bool (param i32)))
        (import "" "ret-none" (func $ret_none))
        (import "" "ret-string" (func $ret_string (param i32 i32)))
        (func (export "wide") (param i64 i64) (result i32)
            (call $ret_u64 (i64.add (local.get 0) (local.get 1)))
            (i32.const 0))
        (func (export "narrow") (param i32 i32 i32) (result i32)
            (if (local.get 0)
                (then (call $ret_s8 (local.get 1)))
                (else (call $ret_s8 (i32.add (local.get 2) (i32.const 0x100)))))
            (i32.const 0))
        (func (export "truth") (param i32) (result i32)
            (call $ret_bool (local.get 0))
            (i32.const 0))
        (func (export "sink") (param i32) (result i32)
            (call $ret_none)
            (i32.const 0))
        (func (export "name") (param i32) (result i32)
            (call $ret_string (i32.const 16) (i32.const 2))
            (i32.const 0))
        (func (export "cb") (param i32 i32 i32) (result i32) unreachable))
    (core instance $i (instantiate $m (with "" (instance
        (export "ret-u64" (func $ret_u64))
        (export "ret-s8" (func $ret_s8))
        (export "ret-bool" (func $ret_bool))
        (export "ret-none" (func $ret_none))
        (export "ret-string" (func $ret_string))))))
    (func (export "wide") async (param "x" s64) (param "y" u64) (result u64)
        (canon lift (core func $i "wide") async (callback (core func $i "cb"))))
    (func (export "narrow") async (param "b" bool) (param "x" s8) (param "y" u16) (result s8)
        (canon lift (core func $i "narrow") async (callback (core func $i "cb"))))
    (func (export "truth") async (param "x" u32) (result bool)
        (canon lift (core func $i "truth") async (callback (core func $i "cb"))))
    (func (export "sink") async (param "x" u32)
        (canon lift (core func $i "sink") async (callback (core func $i "cb"))))
    (func (export "name") async (param "x" u32) (result string)
        (canon lift (core func $i "name") async (callback (core func $i "cb"))
            (memory (core memory $libc "mem"))))
)"#;

fn setup() -> (Store<()>, Instance) {
    let engine = Engine::new(&Config::new()).unwrap();
    let bytes = wat::parse_str(COMPONENT).unwrap();
    let component = Component::new(&engine, bytes).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &component).unwrap();
    (store, instance)
}

#[test]
fn typed_concurrent_calls_pass_scalars_flat() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let wide: TypedFunc<(i64, u64), (u64,)> = instance.get_typed_func(&mut store, "wide")?;
    let narrow: TypedFunc<(bool, i8, u16), (i8,)> = instance.get_typed_func(&mut store, "narrow")?;
    let truth: TypedFunc<(u32,), (bool,)> = instance.get_typed_func(&mut store, "truth")?;
    let sink: TypedFunc<(u32,), ()> = instance.get_typed_func(&mut store, "sink")?;
    let name: TypedFunc<(u32,), (String,)> = instance.get_typed_func(&mut store, "name")?;
    block_on(store.run_concurrent(async |a| -> weft::Result<()> {
        assert_eq!(wide.call_concurrent(a, (-1, 1 << 63)).await?, ((1u64 << 63) - 1,));
        assert_eq!(wide.call_concurrent(a, (i64::MIN, 0)).await?, (1u64 << 63,));
        Ok(())
    }))??;
    block_on(store.run_concurrent(async |a| -> weft::Result<()> {
        assert_eq!(narrow.call_concurrent(a, (true, -5, 0)).await?, (-5,));
        assert_eq!(narrow.call_concurrent(a, (true, i8::MIN, 0)).await?, (i8::MIN,));
        // 0xff + 0x100: the s8 is the low byte, -1.
        assert_eq!(narrow.call_concurrent(a, (false, 0, 0xff)).await?, (-1,));
        assert_eq!(narrow.call_concurrent(a, (false, 0, 0x7f)).await?, (0x7f,));
        assert_eq!(truth.call_concurrent(a, (0,)).await?, (false,));
        assert_eq!(truth.call_concurrent(a, (2,)).await?, (true,));
        assert_eq!(truth.call_concurrent(a, (0x8000_0000,)).await?, (true,));
        sink.call_concurrent(a, (7,)).await?;
        assert_eq!(name.call_concurrent(a, (1,)).await?, ("ok".to_string(),));
        Ok(())
    }))??;
    store.assert_concurrent_state_empty();
    Ok(())
}

#[test]
fn dynamic_concurrent_calls_pass_scalars_flat() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let f = |store: &mut Store<()>, name: &str| instance.get_func(&mut *store, name).unwrap();
    let (wide, narrow, truth, sink, name) = (
        f(&mut store, "wide"),
        f(&mut store, "narrow"),
        f(&mut store, "truth"),
        f(&mut store, "sink"),
        f(&mut store, "name"),
    );
    block_on(store.run_concurrent(async |a| -> weft::Result<()> {
        let mut out = [Val::Bool(false)];
        wide.call_concurrent(a, &[Val::S64(-3), Val::U64(10)], &mut out).await?;
        assert_eq!(out[0], Val::U64(7));
        narrow
            .call_concurrent(a, &[Val::Bool(true), Val::S8(-100), Val::U16(0)], &mut out)
            .await?;
        assert_eq!(out[0], Val::S8(-100));
        narrow
            .call_concurrent(a, &[Val::Bool(false), Val::S8(0), Val::U16(0x80)], &mut out)
            .await?;
        assert_eq!(out[0], Val::S8(-128));
        truth.call_concurrent(a, &[Val::U32(5)], &mut out).await?;
        assert_eq!(out[0], Val::Bool(true));
        sink.call_concurrent(a, &[Val::U32(5)], &mut []).await?;
        name.call_concurrent(a, &[Val::U32(5)], &mut out).await?;
        assert_eq!(out[0], Val::String("ok".into()));
        // Values of the wrong type are refused, as for any call.
        let err = wide
            .call_concurrent(a, &[Val::U32(1), Val::U64(1)], &mut out)
            .await
            .unwrap_err();
        assert!(format!("{err:#}").contains("type"), "{err:#}");
        Ok(())
    }))??;
    store.assert_concurrent_state_empty();
    Ok(())
}

#[test]
fn async_calls_lift_flat_results() -> weft::Result<()> {
    let (mut store, instance) = setup();
    let narrow: TypedFunc<(bool, i8, u16), (i8,)> = instance.get_typed_func(&mut store, "narrow")?;
    assert_eq!(block_on(narrow.call_async(&mut store, (false, 0, 0xfe)))?, (-2,));
    let truth = instance.get_func(&mut store, "truth").unwrap();
    let mut out = [Val::Bool(false)];
    block_on(truth.call_async(&mut store, &[Val::U32(9)], &mut out))?;
    assert_eq!(out[0], Val::Bool(true));
    store.assert_concurrent_state_empty();
    Ok(())
}
