//! Precompiled modules: `Engine::precompile_module` and `Module::serialize`
//! round-trip through `Module::deserialize`, and bytes made by another
//! configuration, another version or no Weft at all are refused with a
//! clear error.

#![allow(
    unsafe_code,
    reason = "the tests call the unsafe Module::deserialize on Weft's own output"
)]

use weft::*;

const WAT: &str = r#"(module
    (import "host" "double" (func $double (param i32) (result i32)))
    (memory (export "memory") 1)
    (data (i32.const 16) "precompiled")
    (func $add (export "add") (param i32 i32) (result i32)
        (call $double (i32.add (local.get 0) (local.get 1))))
    (func (export "load") (param i32) (result i32) (i32.load8_u (local.get 0)))
    (func (export "div") (param i32 i32) (result i32) (i32.div_s (local.get 0) (local.get 1))))"#;

fn binary() -> Vec<u8> {
    wat::parse_str(WAT).unwrap()
}

fn check(engine: &Engine, module: &Module) {
    let mut store = Store::new(engine, ());
    let mut linker = Linker::new(engine);
    linker.func_wrap("host", "double", |x: i32| x * 2).unwrap();
    let instance = linker.instantiate(&mut store, module).unwrap();
    let add = instance.get_typed_func::<(i32, i32), i32>(&mut store, "add").unwrap();
    assert_eq!(add.call(&mut store, (2, 3)).unwrap(), 10);
    let load = instance.get_typed_func::<i32, i32>(&mut store, "load").unwrap();
    assert_eq!(load.call(&mut store, 16).unwrap(), b'p' as i32);
    // The trap table came along: a trap is still a trap, out-of-bounds
    // accesses still hit the guard pages.
    let div = instance.get_typed_func::<(i32, i32), i32>(&mut store, "div").unwrap();
    let err = div.call(&mut store, (1, 0)).unwrap_err();
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::IntegerDivisionByZero));
    // So did the address map: the frame names the `i32.div_s`, the third
    // operator of its body.
    let bt = err.downcast_ref::<WasmBacktrace>().unwrap();
    assert_eq!(bt.frames()[0].func_offset(), Some(5), "{bt}");
    let err = load.call(&mut store, 70_000).unwrap_err();
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::MemoryOutOfBounds));
}

#[test]
fn precompile_then_deserialize() {
    let engine = Engine::default();
    let bytes = engine.precompile_module(&binary()).unwrap();
    assert_eq!(engine.detect_precompiled(&bytes), Some(Precompiled::Module));
    assert_eq!(engine.detect_precompiled(&binary()), None);
    // SAFETY: the bytes were just made by this process.
    let module = unsafe { Module::deserialize(&engine, &bytes) }.unwrap();
    check(&engine, &module);
}

#[test]
fn serialize_then_deserialize_in_another_engine() {
    let engine = Engine::default();
    let module = Module::new(&engine, binary()).unwrap();
    let bytes = module.serialize().unwrap();
    let other = Engine::default();
    // SAFETY: the bytes were just made by this process.
    let module = unsafe { Module::deserialize(&other, &bytes) }.unwrap();
    check(&other, &module);
    // Serializing the deserialized module gives the same bytes.
    assert_eq!(module.serialize().unwrap(), bytes);
}

/// Asserts that this process maps a file named `name` with the
/// permissions `perms` (as `/proc/self/maps` shows them; Linux only).
fn assert_mapped(name: &str, perms: &str) {
    if cfg!(target_os = "linux") {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        assert!(
            maps.lines()
                .any(|l| l.ends_with(name) && l.split_whitespace().nth(1) == Some(perms)),
            "no {perms} mapping of {name}:\n{maps}"
        );
    }
}

#[test]
fn deserialize_file_reads_the_file() {
    let engine = Engine::default();
    // Under the target directory, whose mount lets files execute (the
    // test binaries run from it), unlike some systems' temporary one.
    let dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("weft-precompiled-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.cwasm");
    std::fs::write(&path, engine.precompile_module(&binary()).unwrap()).unwrap();
    // SAFETY: the file was just written by this process.
    let module = unsafe { Module::deserialize_file(&engine, &path) }.unwrap();
    check(&engine, &module);
    // The file itself is mapped executable: its code was not copied.
    assert_mapped("m.cwasm", "r-xp");
    // So is its memory image, privately: an instance's memory maps the
    // data from the file, and writing to the memory changes neither the
    // file nor the next instance's memory.
    {
        let mut store = Store::new(&engine, ());
        let mut linker = Linker::new(&engine);
        linker.func_wrap("host", "double", |x: i32| x * 2).unwrap();
        let instance = linker.instantiate(&mut store, &module).unwrap();
        assert_mapped("m.cwasm", "rw-p");
        let memory = instance.get_memory(&mut store, "memory").unwrap();
        assert_eq!(&memory.data(&store)[16..27], b"precompiled");
        memory.data_mut(&mut store)[16] = b'P';
        let before = std::fs::read(&path).unwrap();
        assert_eq!(before, engine.precompile_module(&binary()).unwrap());
    }
    check(&engine, &module);
    // The code runs where the file is mapped: removing the file leaves the
    // mapping (and the module) intact, and serializing the module gives
    // the file's bytes back.
    let written = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    check(&engine, &module);
    assert_eq!(module.serialize().unwrap(), written);
    // SAFETY: a missing file is only an error.
    let err = unsafe { Module::deserialize_file(&engine, dir.join("missing.cwasm")) }.unwrap_err();
    assert!(format!("{err:#}").contains("failed to read"), "{err:#}");
    // An empty file cannot be mapped: it is read instead, and refused.
    std::fs::write(dir.join("empty.cwasm"), b"").unwrap();
    // SAFETY: an empty file is refused before any code is mapped.
    let err = unsafe { Module::deserialize_file(&engine, dir.join("empty.cwasm")) }.unwrap_err();
    assert!(format!("{err:#}").contains("truncated"), "{err:#}");
    // A truncated file is refused with its name.
    std::fs::write(&path, &written[..written.len() / 2]).unwrap();
    // SAFETY: truncated bytes are refused before any code is mapped.
    let err = unsafe { Module::deserialize_file(&engine, &path) }.unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.contains("truncated") && msg.contains("m.cwasm"), "{msg}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn other_configurations_versions_and_garbage_are_refused() {
    let engine = Engine::default();
    let bytes = engine.precompile_module(&binary()).unwrap();

    let mut config = Config::new();
    config.consume_fuel(true);
    let fuel_engine = Engine::new(&config).unwrap();
    // SAFETY: the bytes are Weft's; only the configuration differs.
    let err = unsafe { Module::deserialize(&fuel_engine, &bytes) }.unwrap_err();
    assert!(format!("{err:#}").contains("engine configuration"), "{err:#}");

    // An engine without a feature the code was compiled with refuses it,
    // and names the feature.
    let mut config = Config::new();
    config.wasm_tail_call(false);
    let fewer = Engine::new(&config).unwrap();
    // SAFETY: the bytes are Weft's; only the features differ.
    let err = unsafe { Module::deserialize(&fewer, &bytes) }.unwrap_err();
    let msg = format!("{err:#}");
    assert!(
        msg.contains("features this engine does not enable") && msg.contains("TAIL_CALL"),
        "{msg}"
    );

    // The version string follows the magic (11 bytes), the format (4) and
    // its length (8); change its first digit.
    let mut other_version = bytes.clone();
    other_version[23] = b'9';
    // SAFETY: refused before any code is mapped.
    let err = unsafe { Module::deserialize(&engine, &other_version) }.unwrap_err();
    assert!(format!("{err:#}").contains("precompiled by Weft 9"), "{err:#}");

    // SAFETY: refused before any code is mapped.
    let err = unsafe { Module::deserialize(&engine, binary()) }.unwrap_err();
    assert!(format!("{err:#}").contains("not a precompiled Weft module"), "{err:#}");

    for len in [12, 40, bytes.len() / 2, bytes.len() - 1] {
        // SAFETY: truncated bytes are refused before any code is mapped.
        let err = unsafe { Module::deserialize(&engine, &bytes[..len]) }.unwrap_err();
        assert!(format!("{err:#}").contains("truncated"), "{len}: {err:#}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    // SAFETY: refused before any code is mapped.
    let err = unsafe { Module::deserialize(&engine, &longer) }.unwrap_err();
    assert!(format!("{err:#}").contains("trailing"), "{err:#}");
}

/// Code compiled with fewer WebAssembly features than the loading engine
/// enables loads and runs, as in Wasmtime.
#[test]
fn code_compiled_with_fewer_features_loads() {
    let mut config = Config::new();
    config
        .wasm_tail_call(false)
        .wasm_simd(false)
        .wasm_relaxed_simd(false)
        .wasm_multi_memory(false);
    let fewer = Engine::new(&config).unwrap();
    let bytes = fewer.precompile_module(&binary()).unwrap();
    let mut config = Config::new();
    config.wasm_wide_arithmetic(true);
    for engine in [Engine::default(), Engine::new(&config).unwrap()] {
        // SAFETY: the bytes were just made by this process.
        let module = unsafe { Module::deserialize(&engine, &bytes) }.unwrap();
        check(&engine, &module);
    }
}
