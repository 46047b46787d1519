//! Exceptions unwinding over wasm frames that have no handler: the frame
//! that catches keeps its live values and its stack, however deep the
//! throw, thrown by wasm or by the host, from inside a nested call into
//! wasm, on a fiber, and many times over. The modules are text, so these
//! tests need the `wat` feature.

#![cfg(feature = "wat")]

#[cfg(feature = "async")]
use crate::async_calls::block_on;
use weft::{
    Caller, Engine, ExnRef, ExnRefPre, ExnType, Func, FuncType, Linker, Module, Store, Tag, TagType, Val, ValType,
};

/// `run(n, depth)`: `n` times, computes twelve values from the loop
/// counter, keeps them live across a call that recurses `depth` frames
/// (through direct calls, `call_indirect` and `call_ref`, none of which
/// handles anything) and throws the counter, catches it, and folds the
/// twelve values and the payload into a sum.
const DEEP: &str = r#"(module
    (tag $e (param i64))
    (type $r (func (param i64 i32)))
    (table funcref (elem $down_direct $down_indirect $down_ref))
    (elem declare func $down_direct)
    (func $throw (param i64) (throw $e (local.get 0)))
    (func $down_direct (param i64 i32)
        (if (i32.eqz (local.get 1)) (then (call $throw (local.get 0))))
        (call_indirect (type $r) (local.get 0) (i32.sub (local.get 1) (i32.const 1))
            (i32.rem_u (local.get 1) (i32.const 3))))
    (func $down_indirect (param i64 i32)
        (call $down_direct (local.get 0) (local.get 1)))
    (func $down_ref (param i64 i32)
        (call_ref $r (local.get 0) (local.get 1) (ref.func $down_direct)))
    (func (export "run") (param $n i32) (param $depth i32) (result i64)
        (local $i i32) (local $sum i64)
        (local $a i64) (local $b i64) (local $c i64) (local $d i64) (local $e i64) (local $f i64)
        (local $g f64) (local $h f64) (local $k f64) (local $l f64) (local $m f64) (local $o f64)
        (block $done
            (loop $next
                (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
                (local.set $a (i64.extend_i32_u (local.get $i)))
                (local.set $b (i64.mul (local.get $a) (i64.const 3)))
                (local.set $c (i64.add (local.get $a) (i64.const 1000)))
                (local.set $d (i64.xor (local.get $a) (i64.const 0x5555)))
                (local.set $e (i64.shl (local.get $a) (i64.const 7)))
                (local.set $f (i64.sub (i64.const 99) (local.get $a)))
                (local.set $g (f64.convert_i64_u (local.get $a)))
                (local.set $h (f64.mul (local.get $g) (f64.const 0.5)))
                (local.set $k (f64.add (local.get $g) (f64.const 2)))
                (local.set $l (f64.sub (local.get $g) (f64.const 3)))
                (local.set $m (f64.mul (local.get $g) (f64.const 4)))
                (local.set $o (f64.add (local.get $g) (f64.const 5)))
                (local.set $sum (i64.add (local.get $sum)
                    (block $caught (result i64)
                        (try_table (catch $e $caught)
                            (call $down_direct (i64.add (local.get $a) (i64.const 7)) (local.get $depth)))
                        (unreachable))))
                (local.set $sum (i64.add (local.get $sum)
                    (i64.add (i64.add (i64.add (local.get $a) (local.get $b)) (i64.add (local.get $c) (local.get $d)))
                        (i64.add (local.get $e) (local.get $f)))))
                (local.set $sum (i64.add (local.get $sum) (i64.trunc_f64_s
                    (f64.add (f64.add (f64.add (local.get $g) (local.get $h)) (f64.add (local.get $k) (local.get $l)))
                        (f64.add (local.get $m) (local.get $o))))))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br $next)))
        (local.get $sum)))"#;

/// What [`DEEP`]'s `run(n, _)` returns.
fn deep_expected(n: i64) -> i64 {
    (0..n)
        .map(|a| {
            let ints = (a + 7) + a + a * 3 + (a + 1000) + (a ^ 0x5555) + (a << 7) + (99 - a);
            let g = a as f64;
            let floats = g + g * 0.5 + (g + 2.0) + (g - 3.0) + g * 4.0 + (g + 5.0);
            ints + floats as i64
        })
        .sum()
}

#[test]
fn deep_throws_resume_in_the_catching_frame_with_its_values() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let module = Module::new(&engine, DEEP).unwrap();
    let instance = weft::Instance::new(&mut store, &module, &[]).unwrap();
    let run = instance.get_typed_func::<(i32, i32), i64>(&mut store, "run").unwrap();
    for depth in [0, 1, 2, 5, 40] {
        assert_eq!(
            run.call(&mut store, (3, depth)).unwrap(),
            deep_expected(3),
            "depth {depth}"
        );
    }
    // Thousands of throws from one frame: a stack pointer restored wrong
    // would drift and overflow the stack, or corrupt the frame.
    assert_eq!(run.call(&mut store, (20_000, 9)).unwrap(), deep_expected(20_000));
}

#[test]
#[cfg(feature = "async")]
fn deep_throws_unwind_on_a_fiber() {
    let mut config = weft::Config::new();
    #[allow(
        deprecated,
        reason = "Weft mirrors Wasmtime 48, where the switch is not deprecated yet"
    )]
    config.async_support(true);
    let engine = Engine::new(&config).unwrap();
    let mut store = Store::new(&engine, ());
    let module = Module::new(&engine, DEEP).unwrap();
    let instance = block_on(weft::Instance::new_async(&mut store, &module, &[])).unwrap();
    let run = instance.get_typed_func::<(i32, i32), i64>(&mut store, "run").unwrap();
    let sum = block_on(run.call_async(&mut store, (2_000, 12))).unwrap();
    assert_eq!(sum, deep_expected(2_000));
}

/// A module whose `outer(x)` calls `host.call_inner` inside a `try_table`
/// through a frame without a handler; `inner(x)` throws `$t` (the host's
/// tag) with `x`, uncaught in its own call into wasm, and `host_throws(x)`
/// calls `host.throw`, which throws from the host.
const NESTED: &str = r#"(module
    (import "host" "tag" (tag $t (param i32 i64)))
    (import "host" "call_inner" (func $call_inner (param i32)))
    (import "host" "throw" (func $host_throw (param i32)))
    (func $through (param i32) (call $call_inner (local.get 0)))
    (func $through_host (param i32) (call $host_throw (local.get 0)))
    (func (export "inner") (param i32) (throw $t (local.get 0) (i64.const 5)))
    (func (export "outer") (param i32) (result i32 i64)
        (local $keep i32)
        (local.set $keep (i32.mul (local.get 0) (i32.const 3)))
        (block $h (result i32 i64)
            (try_table (catch $t $h) (call $through (local.get 0)))
            (unreachable))
        (drop)
        (i64.extend_i32_u (local.get $keep)))
    (func (export "host_throws") (param i32) (result i32 i64)
        (block $h (result i32 i64)
            (try_table (catch $t $h) (call $through_host (local.get 0)))
            (unreachable))))"#;

#[test]
fn exceptions_cross_nested_calls_and_host_throws() {
    let mut store = Store::<()>::default();
    let engine = store.engine().clone();
    let tag_ty = TagType::new(FuncType::new(&engine, [ValType::I32, ValType::I64], []));
    let tag = Tag::new(&mut store, &tag_ty).unwrap();
    let exn_ty = ExnType::from_tag_type(&tag_ty).unwrap();
    let pre = ExnRefPre::new(&mut store, exn_ty);
    let throw = Func::wrap(
        &mut store,
        move |mut caller: Caller<'_, ()>, x: i32| -> weft::Result<()> {
            let exn = ExnRef::new(&mut caller, &pre, &tag, &[Val::I32(x), Val::I64(i64::from(x) * 10)])?;
            Ok(caller.throw(exn)?)
        },
    );
    // Calls the instance's `inner`, whose exception reaches this host
    // function as an error; returning it throws it on into `outer`.
    let call_inner = Func::wrap(&mut store, |mut caller: Caller<'_, ()>, x: i32| -> weft::Result<()> {
        let inner = caller.get_export("inner").and_then(|e| e.into_func()).unwrap();
        inner.call(&mut caller, &[Val::I32(x)], &mut [])
    });
    let mut linker = Linker::new(&engine);
    linker.define(&store, "host", "tag", tag).unwrap();
    linker.define(&store, "host", "throw", throw).unwrap();
    linker.define(&store, "host", "call_inner", call_inner).unwrap();
    let module = Module::new(&engine, NESTED).unwrap();
    let instance = linker.instantiate(&mut store, &module).unwrap();
    let outer = instance.get_typed_func::<i32, (i32, i64)>(&mut store, "outer").unwrap();
    let host_throws = instance
        .get_typed_func::<i32, (i32, i64)>(&mut store, "host_throws")
        .unwrap();
    for x in 0..200 {
        // `outer` returns the payload's i32 and the local it kept across
        // the call.
        let (first, kept) = outer.call(&mut store, x).unwrap();
        assert_eq!((first, kept), (x, i64::from(x) * 3), "round {x}");
        assert_eq!(
            host_throws.call(&mut store, x).unwrap(),
            (x, i64::from(x) * 10),
            "round {x}"
        );
    }
}
