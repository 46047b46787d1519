//! Host-to-wasm trampolines are compiled only for the types of functions
//! the host can reach: every way a function can reach the host (export,
//! start function, table element, `ref.func` in a global's or an element
//! segment's initializer and its result through `call`) still calls it,
//! from compiled and from precompiled code. The modules are text, so these
//! tests need the `wat` feature.

#![cfg(feature = "wat")]
#![allow(
    unsafe_code,
    reason = "the test calls the unsafe Module::deserialize on Weft's own output"
)]

use weft::{Engine, Func, Instance, Module, Store, Val};

/// Each reachable function has a type of its own, so that a missing
/// trampoline would show; `$hidden` (also of its own type) is reachable
/// from wasm only.
const REACH: &str = r#"(module
    (type $t_export (func (result i32)))
    (type $t_table (func (param i32) (result i32)))
    (type $t_global (func (param i64) (result i64)))
    (type $t_elem (func (param f32) (result f32)))
    (type $t_start (func))
    (type $t_hidden (func (param i32 i32 i32) (result i32)))
    (global $started (mut i32) (i32.const 0))
    (global (export "g") funcref (ref.func $in_global))
    (table (export "t") 2 funcref)
    (elem (i32.const 0) func $in_table)
    (elem declare funcref (ref.func $in_elem_expr))
    (func $hidden (type $t_hidden) (i32.add (local.get 0) (i32.add (local.get 1) (local.get 2))))
    (func $in_table (type $t_table) (i32.mul (local.get 0) (i32.const 3)))
    (func $in_global (type $t_global) (i64.add (local.get 0) (i64.const 1)))
    (func $in_elem_expr (type $t_elem) (f32.neg (local.get 0)))
    (func $start (type $t_start) (global.set $started (i32.const 1)))
    (start $start)
    (func (export "run") (type $t_export)
        (i32.add (global.get $started) (call $hidden (i32.const 1) (i32.const 2) (i32.const 3))))
    (func (export "get_elem") (result funcref) (ref.func $in_elem_expr)))"#;

fn check(store: &mut Store<()>, instance: &Instance) {
    let run = instance.get_typed_func::<(), i32>(&mut *store, "run").unwrap();
    assert_eq!(
        run.call(&mut *store, ()).unwrap(),
        7,
        "the start function ran and `$hidden` was called"
    );

    let table = instance.get_table(&mut *store, "t").unwrap();
    let f = table.get(&mut *store, 0).unwrap();
    let f = f.as_func().unwrap().unwrap();
    let mut out = [Val::I32(0)];
    f.call(&mut *store, &[Val::I32(5)], &mut out).unwrap();
    assert_eq!(out[0].i32().unwrap(), 15);

    let global = instance.get_global(&mut *store, "g").unwrap();
    let f = global.get(&mut *store);
    let f: &Func = f.func_ref().unwrap().unwrap();
    let mut out = [Val::I64(0)];
    f.call(&mut *store, &[Val::I64(41)], &mut out).unwrap();
    assert_eq!(out[0].i64().unwrap(), 42);

    let get_elem = instance.get_func(&mut *store, "get_elem").unwrap();
    let mut out = [Val::null_func_ref()];
    get_elem.call(&mut *store, &[], &mut out).unwrap();
    let f = *out[0].func_ref().unwrap().unwrap();
    let mut out = [Val::F32(0)];
    f.call(&mut *store, &[Val::F32(2.5f32.to_bits())], &mut out).unwrap();
    assert_eq!(out[0].f32().unwrap(), -2.5);
}

#[test]
fn every_function_the_host_can_reach_has_an_entry() {
    let engine = Engine::default();
    let module = Module::new(&engine, REACH).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    check(&mut store, &instance);

    let bytes = module.serialize().unwrap();
    // SAFETY: the bytes were just made by the same engine.
    let module = unsafe { Module::deserialize(&engine, &bytes) }.unwrap();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    check(&mut store, &instance);
}
