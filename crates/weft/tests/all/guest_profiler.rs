//! `GuestProfiler`: samples taken from host calls of a looping module, and
//! from an epoch deadline callback, give a Firefox processed-format profile
//! naming the functions; the call hook records host calls as interval
//! markers, as Wasmtime 48 does.

#![cfg(feature = "profiling")]

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
    let profiler = Arc::new(Mutex::new(
        GuestProfiler::new(
            &engine,
            "prog",
            Duration::from_millis(1),
            [("prog".to_string(), module.clone())],
        )
        .unwrap(),
    ));
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
    let empty = GuestProfiler::new(&engine, "none", Duration::from_millis(1), []).unwrap();
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

fn finish(profiler: &Arc<Mutex<GuestProfiler>>, engine: &Engine) -> serde_json::Value {
    // The store still holds a clone of the Arc in its callbacks.
    let empty = GuestProfiler::new(engine, "none", Duration::from_millis(1), []).unwrap();
    let profiler = std::mem::replace(&mut *profiler.lock().unwrap(), empty);
    let mut out = Vec::new();
    profiler.finish(&mut out).unwrap();
    serde_json::from_slice(&out).unwrap()
}

/// The labels of the frames of stack `index` of `thread`, outermost first.
fn stack_labels(json: &serde_json::Value, thread: &serde_json::Value, index: usize) -> Vec<String> {
    let strings = json["shared"]["stringArray"]
        .as_array()
        .or_else(|| thread["stringArray"].as_array())
        .expect("no string table in the profile");
    let mut labels = Vec::new();
    let mut at = Some(index);
    while let Some(i) = at {
        let frame = thread["stackTable"]["frame"][i].as_u64().unwrap() as usize;
        let func = thread["frameTable"]["func"][frame].as_u64().unwrap() as usize;
        let name = thread["funcTable"]["name"][func].as_u64().unwrap() as usize;
        labels.push(strings[name].as_str().unwrap().to_string());
        at = thread["stackTable"]["prefix"][i].as_u64().map(|p| p as usize);
    }
    labels.reverse();
    labels
}

const SPIN: &str = r#"(module $prog
     (global $stop (export "stop") (mut i32) (i32.const 0))
     (func $spin
       (loop $l (br_if $l (i32.eqz (global.get $stop)))))
     (func $work call $spin)
     (func $main (export "main") call $work))"#;

/// A wasm loop `main -> work -> spin` interrupted by epoch ticks from
/// another thread: the epoch deadline callback samples the stack of the
/// interrupted wasm.
#[test]
fn samples_from_the_epoch_callback_see_the_interrupted_frames() {
    let mut config = weft::Config::new();
    config.epoch_interruption(true);
    let engine = Engine::new(&config).unwrap();
    let module = Module::new(&engine, wat::parse_str(SPIN).unwrap()).unwrap();
    let profiler = Arc::new(Mutex::new(
        GuestProfiler::new(
            &engine,
            "prog",
            Duration::from_millis(1),
            [("prog".to_string(), module.clone())],
        )
        .unwrap(),
    ));
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &module).unwrap();
    let stop = instance.get_global(&mut store, "stop").unwrap();
    let p = profiler.clone();
    let mut samples = 0;
    store.epoch_deadline_callback(move |mut ctx| {
        p.lock().unwrap().sample(&ctx, Duration::from_micros(100));
        samples += 1;
        if samples == 5 {
            stop.set(&mut ctx, weft::Val::I32(1))?;
        }
        Ok(weft::UpdateDeadline::Continue(1))
    });
    store.set_epoch_deadline(1);
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let ticker = {
        let (engine, done) = (engine.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(1));
                engine.increment_epoch();
            }
        })
    };
    let main = instance.get_typed_func::<(), ()>(&mut store, "main").unwrap();
    let result = main.call(&mut store, ());
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    ticker.join().unwrap();
    result.unwrap();

    let json = finish(&profiler, &engine);
    let thread = &json["threads"][0];
    let stacks = thread["samples"]["stack"].as_array().unwrap();
    assert_eq!(stacks.len(), 5, "one sample per callback: {}", thread["samples"]);
    // Every sample has a stack, and the last one (taken in the loop, which
    // runs until that callback stops it) is main -> work -> spin.
    assert!(
        stacks.iter().all(|s| s.is_u64()),
        "a sample without a stack: {stacks:?}"
    );
    let last = stack_labels(&json, thread, stacks[4].as_u64().unwrap() as usize);
    assert_eq!(last, ["prog!main", "prog!work", "prog!spin"]);
}

/// With the call hook forwarded to the profiler, each host call is an
/// interval marker named `hostcall` (start with the wasm stack of the call,
/// then end), as in Wasmtime 48, and no sample is added.
#[test]
fn call_hook_records_host_calls_as_interval_markers() {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        wat::parse_str(
            r#"(module $prog
             (import "host" "tick" (func $tick))
             (func $work call $tick)
             (func $main (export "main") call $work call $work))"#,
        )
        .unwrap(),
    )
    .unwrap();
    let profiler = Arc::new(Mutex::new(
        GuestProfiler::new(
            &engine,
            "prog",
            Duration::from_millis(1),
            [("prog".to_string(), module.clone())],
        )
        .unwrap(),
    ));
    let mut store = Store::new(&engine, ());
    let p = profiler.clone();
    store.call_hook(move |ctx, kind| {
        p.lock().unwrap().call_hook(&ctx, kind);
        Ok(())
    });
    let mut linker = Linker::new(&engine);
    linker.func_wrap("host", "tick", || {}).unwrap();
    let instance = linker.instantiate(&mut store, &module).unwrap();
    let main = instance.get_typed_func::<(), ()>(&mut store, "main").unwrap();
    main.call(&mut store, ()).unwrap();

    let json = finish(&profiler, &engine);
    let schemas = json["meta"]["markerSchema"].as_array().unwrap();
    assert!(
        schemas.iter().any(|s| s["name"] == "hostcall"),
        "no hostcall marker schema: {schemas:?}"
    );
    let thread = &json["threads"][0];
    assert_eq!(thread["samples"]["length"], 0, "the call hook adds no sample");
    let markers = &thread["markers"];
    assert_eq!(
        markers["length"], 4,
        "two host calls, a start and an end each: {markers}"
    );
    // Phases: 2 is an interval start, 3 an interval end.
    let phases: Vec<u64> = markers["phase"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_u64().unwrap())
        .collect();
    assert_eq!(phases, [2, 3, 2, 3]);
    for (i, data) in markers["data"].as_array().unwrap().iter().enumerate() {
        assert_eq!(data["type"], "hostcall");
        let stack = data["cause"]["stack"].as_u64();
        if phases[i] == 2 {
            let stack = stack.unwrap_or_else(|| panic!("no stack on the start of a host call: {data}"));
            assert_eq!(stack_labels(&json, thread, stack as usize), ["prog!main", "prog!work"]);
        } else {
            assert!(stack.is_none(), "a stack on the end of a host call: {data}");
        }
    }
}

/// Frames of modules not given to the profiler are left out; a module of
/// another engine is refused.
#[test]
fn only_listed_modules_and_same_engine() {
    let engine = Engine::default();
    let listed = Module::new(&engine, "(module $a (func (export \"f\")))").unwrap();
    let other_engine = Engine::default();
    let foreign = Module::new(&other_engine, "(module $b)").unwrap();
    let err = GuestProfiler::new(
        &engine,
        "prog",
        Duration::from_millis(1),
        [("a".to_string(), listed.clone()), ("b".to_string(), foreign)],
    )
    .unwrap_err();
    assert!(err.to_string().contains("module `b`"), "{err}");

    // The host-call module sampled with only an unrelated module listed.
    let module = Module::new(
        &engine,
        r#"(module $prog (import "host" "tick" (func $tick)) (func (export "main") call $tick))"#,
    )
    .unwrap();
    let profiler = Arc::new(Mutex::new(
        GuestProfiler::new(&engine, "prog", Duration::from_millis(1), [("a".to_string(), listed)]).unwrap(),
    ));
    let mut store = Store::new(&engine, ());
    let mut linker = Linker::new(&engine);
    let p = profiler.clone();
    linker
        .func_wrap("host", "tick", move |caller: Caller<'_, ()>| {
            p.lock().unwrap().sample(&caller, Duration::ZERO);
        })
        .unwrap();
    let instance = linker.instantiate(&mut store, &module).unwrap();
    let main = instance.get_typed_func::<(), ()>(&mut store, "main").unwrap();
    main.call(&mut store, ()).unwrap();
    let json = finish(&profiler, &engine);
    let thread = &json["threads"][0];
    assert_eq!(thread["samples"]["length"], 1);
    assert_eq!(
        thread["frameTable"]["length"], 0,
        "a frame of an unlisted module: {thread}"
    );
}

/// `new_component` profiles the component's core modules: a sample from a
/// host function the component imports names the core functions on the
/// stack.
#[cfg(feature = "component-model")]
#[test]
fn new_component_profiles_the_core_modules() {
    use weft::component::{Component, Linker as ComponentLinker};
    let engine = Engine::default();
    let component = Component::new(
        &engine,
        wat::parse_str(
            r#"(component
                (import "tick" (func $tick))
                (core func $tick' (canon lower (func $tick)))
                (core module $m
                    (import "" "tick" (func $tick))
                    (func $inner call $tick)
                    (func $outer (export "run") call $inner))
                (core instance $i (instantiate $m (with "" (instance (export "tick" (func $tick'))))))
                (func (export "run") (canon lift (core func $i "run"))))"#,
        )
        .unwrap(),
    )
    .unwrap();
    let profiler = Arc::new(Mutex::new(
        GuestProfiler::new_component(&engine, "comp", Duration::from_millis(1), component.clone(), []).unwrap(),
    ));
    let mut store = Store::new(&engine, ());
    let mut linker = ComponentLinker::<()>::new(&engine);
    let p = profiler.clone();
    linker
        .root()
        .func_wrap("tick", move |ctx, (): ()| {
            p.lock().unwrap().sample(&ctx, Duration::ZERO);
            Ok(())
        })
        .unwrap();
    let instance = linker.instantiate(&mut store, &component).unwrap();
    let run = instance.get_typed_func::<(), ()>(&mut store, "run").unwrap();
    run.call(&mut store, ()).unwrap();
    let json = finish(&profiler, &engine);
    let thread = &json["threads"][0];
    let stacks = thread["samples"]["stack"].as_array().unwrap();
    assert_eq!(stacks.len(), 1);
    let labels = stack_labels(&json, thread, stacks[0].as_u64().unwrap() as usize);
    let funcs: Vec<&str> = labels.iter().map(|l| l.rsplit('!').next().unwrap()).collect();
    assert_eq!(funcs, ["outer", "inner"], "{labels:?}");
}
