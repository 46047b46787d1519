//! `WasmBacktrace::capture` and `force_capture`: the wasm frames on the
//! stack now, innermost first, from a host function that wasm called.

use std::sync::{Arc, Mutex};
use weft::{Caller, Engine, Linker, Module, Store, WasmBacktrace};

const WAT: &str = r#"
    (module $m
      (import "host" "capture" (func $capture))
      (func $outer (export "outer") call $middle)
      (func $middle call $inner)
      (func $inner call $capture)
      (func (export "reenter") call $outer))
"#;

type Frames = Arc<Mutex<Vec<Vec<(u32, Option<String>, Option<String>, bool)>>>>;

fn summary(bt: &WasmBacktrace) -> Vec<(u32, Option<String>, Option<String>, bool)> {
    bt.frames()
        .iter()
        .map(|f| {
            (
                f.func_index(),
                f.func_name().map(str::to_string),
                f.module_name().map(str::to_string),
                f.module_offset().is_some() && f.func_offset().is_some(),
            )
        })
        .collect()
}

fn setup() -> (Store<()>, weft::Instance, Frames) {
    let engine = Engine::default();
    let module = Module::new(&engine, wat::parse_str(WAT).unwrap()).unwrap();
    let mut store = Store::new(&engine, ());
    let seen: Frames = Arc::default();
    let s = seen.clone();
    let mut linker = Linker::new(&engine);
    linker
        .func_wrap("host", "capture", move |caller: Caller<'_, ()>| {
            let captured = WasmBacktrace::capture(&caller);
            let forced = WasmBacktrace::force_capture(&caller);
            assert_eq!(summary(&captured), summary(&forced));
            s.lock().unwrap().push(summary(&captured));
        })
        .unwrap();
    let instance = linker.instantiate(&mut store, &module).unwrap();
    (store, instance, seen)
}

fn named(index: u32, name: &str) -> (u32, Option<String>, Option<String>, bool) {
    (index, Some(name.to_string()), Some("m".to_string()), true)
}

#[test]
fn captures_three_frames_innermost_first() {
    let (mut store, instance, seen) = setup();
    let outer = instance.get_typed_func::<(), ()>(&mut store, "outer").unwrap();
    outer.call(&mut store, ()).unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(
        *seen,
        vec![vec![named(3, "inner"), named(2, "middle"), named(1, "outer")]]
    );
}

#[test]
fn captures_the_calling_frame_of_a_fourth_function() {
    let (mut store, instance, seen) = setup();
    let reenter = instance.get_typed_func::<(), ()>(&mut store, "reenter").unwrap();
    reenter.call(&mut store, ()).unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    let names: Vec<_> = seen[0].iter().map(|f| f.0).collect();
    assert_eq!(names, [3, 2, 1, 4]);
}

#[test]
fn empty_outside_wasm() {
    let (mut store, instance, _seen) = setup();
    assert!(WasmBacktrace::capture(&store).frames().is_empty());
    assert!(WasmBacktrace::force_capture(&mut store).frames().is_empty());
    // And still empty after wasm ran and returned.
    let outer = instance.get_typed_func::<(), ()>(&mut store, "outer").unwrap();
    outer.call(&mut store, ()).unwrap();
    assert!(WasmBacktrace::capture(&store).frames().is_empty());
}

/// A call into wasm made by a host function that wasm called: the frames
/// of both activations, the inner one first.
#[test]
fn nested_activations_are_walked() {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        wat::parse_str(
            r#"(module $n
             (import "host" "capture" (func $capture))
             (import "host" "reenter" (func $reenter))
             (func $deep (export "deep") call $capture)
             (func $top (export "top") call $reenter))"#,
        )
        .unwrap(),
    )
    .unwrap();
    let mut store = Store::new(&engine, ());
    let seen: Frames = Arc::default();
    let s = seen.clone();
    let mut linker = Linker::new(&engine);
    linker
        .func_wrap("host", "capture", move |caller: Caller<'_, ()>| {
            s.lock().unwrap().push(summary(&WasmBacktrace::capture(&caller)));
        })
        .unwrap();
    linker
        .func_wrap("host", "reenter", |mut caller: Caller<'_, ()>| {
            let deep = caller.get_export("deep").unwrap().into_func().unwrap();
            deep.call(&mut caller, &[], &mut []).unwrap();
        })
        .unwrap();
    let instance = linker.instantiate(&mut store, &module).unwrap();
    let top = instance.get_typed_func::<(), ()>(&mut store, "top").unwrap();
    top.call(&mut store, ()).unwrap();
    let seen = seen.lock().unwrap();
    let names: Vec<_> = seen[0].iter().map(|f| f.1.clone().unwrap()).collect();
    assert_eq!(names, ["deep", "top"]);
}

/// A wasm loop `main -> work -> spin` interrupted by epoch ticks from
/// another thread: a capture in the epoch deadline callback lists the
/// frames of the interrupted wasm, innermost first.
#[test]
fn capture_in_the_epoch_callback_sees_the_interrupted_frames() {
    let mut config = weft::Config::new();
    config.epoch_interruption(true);
    let engine = Engine::new(&config).unwrap();
    let module = Module::new(
        &engine,
        wat::parse_str(
            r#"(module $m
             (global $stop (export "stop") (mut i32) (i32.const 0))
             (func $spin (loop $l (br_if $l (i32.eqz (global.get $stop)))))
             (func $work call $spin)
             (func $main (export "main") call $work))"#,
        )
        .unwrap(),
    )
    .unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &module).unwrap();
    let stop = instance.get_global(&mut store, "stop").unwrap();
    let seen: Frames = Arc::default();
    let s = seen.clone();
    store.epoch_deadline_callback(move |mut ctx| {
        let mut seen = s.lock().unwrap();
        seen.push(summary(&WasmBacktrace::capture(&ctx)));
        if seen.len() == 3 {
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
                std::thread::sleep(std::time::Duration::from_millis(1));
                engine.increment_epoch();
            }
        })
    };
    let main = instance.get_typed_func::<(), ()>(&mut store, "main").unwrap();
    let result = main.call(&mut store, ());
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    ticker.join().unwrap();
    result.unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    // The last callback ran in the loop (which runs until it stops it).
    let names: Vec<_> = seen[2].iter().map(|f| f.1.clone().unwrap_or_default()).collect();
    assert_eq!(names, ["spin", "work", "main"]);
    assert!(seen[2].iter().all(|f| f.3), "frames without offsets: {:?}", seen[2]);
    // Every capture has the interrupted frames, ending with `main`.
    for frames in seen.iter() {
        assert_eq!(frames.last().and_then(|f| f.1.as_deref()), Some("main"), "{frames:?}");
    }
}
