//! Precompiled components: `Engine::precompile_component` and
//! `Component::serialize` round-trip through `Component::deserialize`
//! (core modules, fused adapters, host imports, types), and bytes of the
//! wrong kind, of another configuration or cut short are refused with an
//! error that says which.

#![cfg(feature = "component-model")]
#![allow(
    unsafe_code,
    reason = "the tests call the unsafe Component::deserialize on Weft's own output"
)]

use weft::component::{Component, Linker, Val};
use weft::{Config, Engine, Module, Precompiled, Store};

/// A root with a host import and two nested components: `inner` greets by
/// name (string in, string out, with its own memory and allocator) and
/// `outer` calls it through a fused adapter, and adds with the host.
const WAT: &str = r#"(component
    (import "host-add" (func $host-add (param "a" u32) (param "b" u32) (result u32)))
    (component $inner
        (core module $m
            (memory (export "memory") 1)
            (global $next (mut i32) (i32.const 256))
            (func (export "realloc") (param i32 i32 i32 i32) (result i32) (local $p i32)
                (local.set $p (global.get $next))
                (global.set $next (i32.add (local.get $p) (local.get 3)))
                (local.get $p))
            ;; greet(name) = ">" + name, through a return area at 16.
            (func (export "greet") (param $p i32) (param $n i32) (result i32) (local $d i32)
                (local.set $d (global.get $next))
                (global.set $next (i32.add (local.get $d) (i32.add (local.get $n) (i32.const 1))))
                (i32.store8 (local.get $d) (i32.const 62))
                (memory.copy (i32.add (local.get $d) (i32.const 1)) (local.get $p) (local.get $n))
                (i32.store (i32.const 16) (local.get $d))
                (i32.store (i32.const 20) (i32.add (local.get $n) (i32.const 1)))
                (i32.const 16)))
        (core instance $i (instantiate $m))
        (func (export "greet") (param "name" string) (result string)
            (canon lift (core func $i "greet") (memory (core memory $i "memory")) (realloc (core func $i "realloc")))))
    (component $outer
        (import "inner" (instance $inner (export "greet" (func (param "name" string) (result string)))))
        (import "add" (func $add (param "a" u32) (param "b" u32) (result u32)))
        (core module $mem
            (memory (export "memory") 1)
            (global $next (mut i32) (i32.const 1024))
            (func (export "realloc") (param i32 i32 i32 i32) (result i32) (local $p i32)
                (local.set $p (global.get $next))
                (global.set $next (i32.add (local.get $p) (local.get 3)))
                (local.get $p)))
        (core instance $mem (instantiate $mem))
        (core func $greet (canon lower (func $inner "greet") (memory (core memory $mem "memory")) (realloc (core func $mem "realloc"))))
        (core func $add (canon lower (func $add)))
        (core module $m
            (import "" "greet" (func $greet (param i32 i32 i32)))
            (import "" "add" (func $add (param i32 i32) (result i32)))
            (import "" "memory" (memory 1))
            ;; Greets "wasm" (written at 0) with a return area at 8 and
            ;; returns the answer's first byte plus the host's sum.
            (func (export "run") (param i32) (result i32)
                (i32.store (i32.const 0) (i32.const 0x6d736177))
                (call $greet (i32.const 0) (i32.const 4) (i32.const 8))
                (i32.add (i32.load8_u (i32.load (i32.const 8)))
                    (call $add (local.get 0) (i32.load (i32.const 12))))))
        (core instance $o (instantiate $m (with "" (instance
            (export "greet" (func $greet)) (export "add" (func $add)) (export "memory" (memory $mem "memory"))))))
        (func (export "run") (param "x" u32) (result u32) (canon lift (core func $o "run"))))
    (instance $inner (instantiate $inner))
    (instance $outer (instantiate $outer (with "inner" (instance $inner)) (with "add" (func $host-add))))
    (export "greet" (func $inner "greet"))
    (export "run" (func $outer "run")))"#;

fn binary() -> Vec<u8> {
    wat::parse_str(WAT).expect("test component is valid text")
}

/// Instantiates `component` with the host's `host-add` and checks its
/// exports' types and results.
fn check(engine: &Engine, component: &Component) {
    assert_eq!(component.fused_adapters(), 1);
    assert_eq!(component.import_names().collect::<Vec<_>>(), ["host-add"]);
    assert_eq!(component.export_names().collect::<Vec<_>>(), ["greet", "run"]);
    let ty = component.component_type();
    assert_eq!(ty.exports(engine).count(), 2);
    let mut store = Store::new(engine, ());
    let mut linker = Linker::<()>::new(engine);
    linker
        .root()
        .func_wrap("host-add", |_, (a, b): (u32, u32)| Ok((a * 100 + b,)))
        .unwrap();
    let instance = linker.instantiate(&mut store, component).unwrap();
    let greet = instance.get_func(&mut store, "greet").unwrap();
    let mut out = [Val::Bool(false)];
    greet.call(&mut store, &[Val::String("weft".into())], &mut out).unwrap();
    assert_eq!(out[0], Val::String(">weft".into()));
    let run = instance.get_func(&mut store, "run").unwrap();
    run.call(&mut store, &[Val::U32(3)], &mut out).unwrap();
    // '>' (62) + 3 * 100 + len(">wasm").
    assert_eq!(out[0], Val::U32(62 + 300 + 5));
}

#[test]
fn the_component_runs_before_serializing() {
    let engine = Engine::default();
    check(&engine, &Component::new(&engine, binary()).unwrap());
}

#[test]
fn precompile_then_deserialize() {
    let engine = Engine::default();
    let bytes = engine.precompile_component(&binary()).unwrap();
    assert_eq!(engine.detect_precompiled(&bytes), Some(Precompiled::Component));
    assert_eq!(engine.detect_precompiled(&binary()), None);
    // SAFETY: the bytes were just made by this process.
    let component = unsafe { Component::deserialize(&engine, &bytes) }.unwrap();
    check(&engine, &component);
}

#[test]
fn serialize_then_deserialize_in_another_engine() {
    let engine = Engine::default();
    let bytes = Component::new(&engine, binary()).unwrap().serialize().unwrap();
    let other = Engine::default();
    // SAFETY: the bytes were just made by this process.
    let component = unsafe { Component::deserialize(&other, &bytes) }.unwrap();
    check(&other, &component);
    // Serializing the deserialized component gives the same bytes.
    assert_eq!(component.serialize().unwrap(), bytes);
}

#[test]
fn deserialize_file_reads_the_file_and_names_it() {
    let engine = Engine::default();
    let dir = std::env::temp_dir().join(format!("weft-precompiled-component-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("c.cwasm");
    std::fs::write(&path, engine.precompile_component(&binary()).unwrap()).unwrap();
    // SAFETY: the file was just written by this process.
    let component = unsafe { Component::deserialize_file(&engine, &path) }.unwrap();
    check(&engine, &component);
    let bad = dir.join("bad.cwasm");
    std::fs::write(&bad, b"\0weft-ccomp").unwrap();
    // SAFETY: a refused file maps no code.
    let err = unsafe { Component::deserialize_file(&engine, &bad) }.unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.contains("bad.cwasm") && msg.contains("truncated"), "{msg}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn loading_compiles_nothing() {
    // A component whose core module is large to compile loads far faster
    // than it compiles: the code is mapped, not generated again.
    let mut funcs = String::new();
    for i in 0..400 {
        funcs.push_str(&format!(
            "(func (export \"f{i}\") (param i32) (result i32) {} (local.get 0))\n",
            "(local.set 0 (i32.mul (i32.add (local.get 0) (i32.const 7)) (i32.const 3)))".repeat(8)
        ));
    }
    let text = format!(
        r#"(component (core module $m {funcs} (func (export "one") (result i32) (i32.const 1)))
            (core instance $i (instantiate $m))
            (func (export "one") (result u32) (canon lift (core func $i "one"))))"#
    );
    let mut config = Config::new();
    config.parallel_compilation(false);
    let engine = Engine::new(&config).unwrap();
    let start = std::time::Instant::now();
    let bytes = engine.precompile_component(&wat::parse_str(&text).unwrap()).unwrap();
    let compile = start.elapsed();
    let start = std::time::Instant::now();
    // SAFETY: the bytes were just made by this process.
    let component = unsafe { Component::deserialize(&engine, &bytes) }.unwrap();
    let load = start.elapsed();
    assert!(load * 3 < compile, "loading took {load:?}, compiling {compile:?}");
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &component).unwrap();
    let mut out = [Val::Bool(false)];
    instance
        .get_func(&mut store, "one")
        .unwrap()
        .call(&mut store, &[], &mut out)
        .unwrap();
    assert_eq!(out[0], Val::U32(1));
}

#[test]
fn a_core_module_is_not_a_component_and_back() {
    let engine = Engine::default();
    let module = engine.precompile_module(&wat::parse_str("(module)").unwrap()).unwrap();
    // SAFETY: refused bytes map no code.
    let err = unsafe { Component::deserialize(&engine, &module) }.unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.contains("precompiled core module, not a component"), "{msg}");
    let component = engine.precompile_component(&binary()).unwrap();
    // SAFETY: refused bytes map no code.
    let err = unsafe { Module::deserialize(&engine, &component) }.unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.contains("precompiled component, not a module"), "{msg}");
    // SAFETY: refused bytes map no code.
    let err = unsafe { Component::deserialize(&engine, binary()) }.unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.contains("not a component precompiled by Weft"), "{msg}");
}

/// A component compiled with fewer features (core and component-model
/// ones) than the loading engine enables loads and runs, as in Wasmtime.
#[test]
fn a_component_compiled_with_fewer_features_loads() {
    let mut config = Config::new();
    config
        .wasm_component_model_async(false)
        .wasm_tail_call(false)
        .wasm_simd(false)
        .wasm_relaxed_simd(false);
    let fewer = Engine::new(&config).unwrap();
    let bytes = fewer.precompile_component(&binary()).unwrap();
    let engine = Engine::default();
    // SAFETY: the bytes were just made by this process.
    let component = unsafe { Component::deserialize(&engine, &bytes) }.unwrap();
    check(&engine, &component);
}

// Without the feature both engines leave the async ABI off alike.
#[cfg(feature = "component-model-async")]
#[test]
fn another_engine_configuration_is_refused() {
    let engine = Engine::default();
    let bytes = engine.precompile_component(&binary()).unwrap();
    let mut config = Config::new();
    config.wasm_component_model_async(false);
    let other = Engine::new(&config).unwrap();
    // SAFETY: refused bytes map no code.
    let err = unsafe { Component::deserialize(&other, &bytes) }.unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.contains("features this engine does not enable"), "{msg}");
    let mut config = Config::new();
    config.wasm_tail_call(false);
    let other = Engine::new(&config).unwrap();
    // SAFETY: refused bytes map no code.
    let err = unsafe { Component::deserialize(&other, &bytes) }.unwrap_err();
    let msg = format!("{err:#}");
    assert!(
        msg.contains("features this engine does not enable") && msg.contains("TAIL_CALL"),
        "{msg}"
    );
    // Fuel changes the code: refused.
    let mut config = Config::new();
    config.consume_fuel(true);
    let other = Engine::new(&config).unwrap();
    // SAFETY: refused bytes map no code.
    let err = unsafe { Component::deserialize(&other, &bytes) }.unwrap_err();
    assert!(format!("{err:#}").contains("another engine configuration"), "{err:#}");
    // The optimization level does not change what the code does: as in
    // Wasmtime, an engine set to another level loads it.
    let mut config = Config::new();
    config.cranelift_opt_level(weft::OptLevel::None);
    let other = Engine::new(&config).unwrap();
    // SAFETY: the bytes were made by `precompile_component` above.
    unsafe { Component::deserialize(&other, &bytes) }.unwrap();
}

#[test]
fn every_truncation_is_refused() {
    let engine = Engine::default();
    let bytes = engine.precompile_component(&binary()).unwrap();
    for len in (0..bytes.len()).step_by(7).chain([bytes.len() - 1]) {
        // SAFETY: refused bytes map no code.
        let err = unsafe { Component::deserialize(&engine, &bytes[..len]) }.unwrap_err();
        let msg = format!("{err:#}");
        assert!(msg.contains("truncated"), "at {len} of {}: {msg}", bytes.len());
    }
}
