//! `GuestProfiler`: samples taken from host calls of a looping module give
//! a Firefox processed-format profile naming the functions.

use std::sync::{Arc, Mutex};
use std::time::Duration;
use weft::{Caller, Engine, GuestProfiler, Linker, Module, Store};

fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
        serde_json::Value::Object(o) => o.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

#[test]
fn samples_from_host_calls_name_the_functions() {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        wat::parse_str(
            r#"(module $prog
             (import "host" "tick" (func $tick))
             (func $leaf call $tick)
             (func $work (param i32)
               (if (i32.and (local.get 0) (i32.const 1))
                 (then call $leaf)
                 (else call $tick)))
             (func $main (export "main")
               (local $i i32)
               (loop $l
                 (call $work (local.get $i))
                 (local.set $i (i32.add (local.get $i) (i32.const 1)))
                 (br_if $l (i32.lt_u (local.get $i) (i32.const 20))))))"#,
        )
        .unwrap(),
    )
    .unwrap();
    let profiler = Arc::new(Mutex::new(GuestProfiler::new(
        "prog",
        Duration::from_millis(1),
        [("prog".to_string(), module.clone())],
    )));
    let mut store = Store::new(&engine, ());
    let mut linker = Linker::new(&engine);
    let p = profiler.clone();
    linker
        .func_wrap("host", "tick", move |caller: Caller<'_, ()>| {
            p.lock().unwrap().sample(&caller, Duration::from_micros(10));
        })
        .unwrap();
    let instance = linker.instantiate(&mut store, &module).unwrap();
    let main = instance.get_typed_func::<(), ()>(&mut store, "main").unwrap();
    main.call(&mut store, ()).unwrap();
    // A sample outside wasm has an empty stack and is fine too.
    profiler.lock().unwrap().sample(&store, Duration::ZERO);
    // The linker and the store still hold the host function's clone.
    let empty = GuestProfiler::new("none", Duration::from_millis(1), []);
    let profiler = std::mem::replace(&mut *profiler.lock().unwrap(), empty);
    let mut out = Vec::new();
    profiler.finish(&mut out).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert!(json.get("meta").is_some(), "no meta in the profile");
    assert!(json
        .get("threads")
        .and_then(|t| t.as_array())
        .is_some_and(|t| t.len() == 1));
    let mut all = Vec::new();
    strings(&json, &mut all);
    for name in ["prog!main", "prog!work", "prog!leaf"] {
        assert!(
            all.iter().any(|s| s == name),
            "{name} not in the profile's strings: {all:?}"
        );
    }
}
