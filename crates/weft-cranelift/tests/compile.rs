//! Compiles small modules and checks the shape of the output.

use weft_cranelift::Compiler;
use weft_environ::{supported_features, translate_module, CompiledModule, Trap, WasmFuncType, WasmValType};

fn compile(wat: &str) -> CompiledModule<'static> {
    let wasm = wat::parse_str(wat).expect("valid wat");
    let translation = translate_module(&wasm, supported_features()).expect("valid module");
    let compiler = Compiler::new_native().expect("host supported");
    let compiled = compiler.compile_module(&translation, false).expect("compiles");
    check_layout(
        &compiled,
        translation.module.num_defined_funcs() as usize,
        translation.module.types.len(),
    );
    compiled
}

fn check_layout(compiled: &CompiledModule, num_funcs: usize, num_types: usize) {
    assert_eq!(compiled.funcs.len(), num_funcs);
    assert_eq!(compiled.array_trampolines.len(), num_types);
    let mut end = 0;
    for loc in &compiled.funcs {
        assert_eq!(loc.offset % 16, 0, "functions are 16-byte aligned");
        assert!(loc.offset >= end, "functions do not overlap");
        assert!(loc.len > 0);
        end = loc.offset + loc.len;
    }
    assert!(end as usize <= compiled.code.len());
    // Trampolines follow the functions, each after the one before.
    for offset in &compiled.array_trampolines {
        assert_eq!(offset % 16, 0, "trampolines are 16-byte aligned");
        assert!(*offset >= end, "trampolines do not overlap");
        assert!((*offset as usize) < compiled.code.len());
        end = offset + 1;
    }
    assert!(compiled.traps.windows(2).all(|w| w[0].0 <= w[1].0), "traps are sorted");
    assert!(compiled
        .traps
        .iter()
        .all(|(off, _)| (*off as usize) < compiled.code.len()));
    assert!(
        compiled.address_map.windows(2).all(|w| w[0].0 < w[1].0),
        "address map is sorted"
    );
    assert!(compiled
        .address_map
        .iter()
        .all(|(off, _)| (*off as usize) < compiled.code.len()));
    if num_funcs > 0 {
        assert!(!compiled.address_map.is_empty());
    }
}

fn has_trap(compiled: &CompiledModule, trap: Trap) -> bool {
    compiled.traps.iter().any(|(_, t)| *t == trap)
}

#[test]
fn compiler_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Compiler>();
    assert_send_sync::<weft_cranelift::CompiledFunction>();
    // Per-function compilation in parallel shares the translation.
    assert_send_sync::<weft_environ::ModuleTranslation<'static>>();
}

#[test]
fn empty_module() {
    let compiled = compile("(module)");
    assert!(compiled.code.is_empty());
    assert!(compiled.traps.is_empty());
}

#[test]
fn arithmetic_and_control() {
    let compiled = compile(
        r#"(module
            (func $fac (export "fac") (param i64) (result i64)
                (if (result i64) (i64.eqz (local.get 0))
                    (then (i64.const 1))
                    (else (i64.mul (local.get 0) (call $fac (i64.sub (local.get 0) (i64.const 1)))))))
            (func (export "div") (param i32 i32) (result i32 i32 i32 i32)
                (i32.div_s (local.get 0) (local.get 1))
                (i32.div_u (local.get 0) (local.get 1))
                (i32.rem_s (local.get 0) (local.get 1))
                (i32.rem_u (local.get 0) (local.get 1)))
            (func (export "conv") (param f64) (result i32 i64 i32 i64)
                (i32.trunc_f64_s (local.get 0))
                (i64.trunc_f64_u (local.get 0))
                (i32.trunc_sat_f64_s (local.get 0))
                (i64.trunc_sat_f64_u (local.get 0)))
            (func (export "floats") (param f32 f32) (result f32)
                (f32.min (f32.nearest (local.get 0)) (f32.copysign (f32.sqrt (local.get 1)) (local.get 0))))
            (func (export "loop") (param i32) (result i32) (local i32)
                (block $done
                    (loop $l
                        (br_if $done (i32.eqz (local.get 0)))
                        (local.set 1 (i32.add (local.get 1) (local.get 0)))
                        (local.set 0 (i32.sub (local.get 0) (i32.const 1)))
                        (br $l)))
                (local.get 1))
            (func (export "multi") (param i32) (result i32 i64)
                (local.get 0)
                (block $b (param i32) (result i32 i64)
                    (i64.extend_i32_u (local.get 0))
                    (br_table $b $b 0 (local.get 0))))
            (func (export "dead") (result i32)
                (return (i32.const 1))
                (block (loop (if (i32.const 1) (then (unreachable)) (else (br 1)))))
                (i32.const 2))
            (func (export "trap") (unreachable))
        )"#,
    );
    assert_eq!(compiled.funcs.len(), 8);
    assert!(has_trap(&compiled, Trap::StackOverflow));
    assert!(has_trap(&compiled, Trap::IntegerDivisionByZero));
    assert!(has_trap(&compiled, Trap::IntegerOverflow));
    assert!(has_trap(&compiled, Trap::BadConversionToInteger));
    assert!(has_trap(&compiled, Trap::UnreachableCodeReached));
}

#[test]
fn memories_tables_globals_and_imports() {
    let compiled = compile(
        r#"(module
            (type $t (func (param i32) (result i32)))
            (import "env" "f" (func $imp (type $t)))
            (import "env" "g" (global $g (mut i64)))
            (import "env" "mem" (memory 1))
            (table $tab 10 funcref)
            (table $ext 1 externref)
            (global $h (mut f32) (f32.const 1.5))
            (elem declare func $local)
            (data $d "hello")
            (elem $e func $local)
            (func $local (type $t) (i32.add (local.get 0) (call $imp (local.get 0))))
            (func (export "mem") (param i32) (result i64)
                (i32.store offset=4 (local.get 0) (i32.load8_u offset=0xffffffff (local.get 0)))
                (f64.store (local.get 0) (f64.load (local.get 0)))
                (i64.store32 (local.get 0) (i64.load16_s (local.get 0)))
                (drop (memory.grow (memory.size)))
                (memory.fill (local.get 0) (i32.const 0) (i32.const 16))
                (memory.copy (local.get 0) (i32.const 0) (i32.const 16))
                (memory.init $d (local.get 0) (i32.const 0) (i32.const 5))
                (data.drop $d)
                (i64.load (local.get 0)))
            (func (export "tables") (param i32) (result i32)
                (table.set $tab (local.get 0) (ref.func $local))
                (drop (ref.is_null (table.get $tab (local.get 0))))
                (table.set $ext (i32.const 0) (ref.null extern))
                (drop (table.grow $tab (ref.null func) (i32.const 2)))
                (table.fill $tab (i32.const 0) (ref.null func) (i32.const 1))
                (table.copy $tab $tab (i32.const 0) (i32.const 1) (i32.const 1))
                (table.init $tab $e (i32.const 0) (i32.const 0) (i32.const 1))
                (elem.drop $e)
                (drop (table.size $ext))
                (call_indirect $tab (type $t) (local.get 0) (local.get 0)))
            (func (export "globals") (result i64)
                (global.set $h (f32.neg (global.get $h)))
                (global.set $g (i64.add (global.get $g) (i64.const 1)))
                (global.get $g))
        )"#,
    );
    for trap in [
        Trap::MemoryOutOfBounds,
        Trap::TableOutOfBounds,
        Trap::IndirectCallToNull,
        Trap::BadSignature,
        Trap::StackOverflow,
    ] {
        assert!(has_trap(&compiled, trap), "missing {trap:?}");
    }
}

#[test]
fn simd_and_relaxed_simd_compile_in_both_relaxed_modes() {
    let wasm = wat::parse_str(
        r#"(module
            (memory 1)
            (func (param v128 v128 v128) (result v128 i32)
                (local v128)
                (local.set 3 (f32x4.relaxed_madd (local.get 0) (local.get 1) (local.get 2)))
                (local.set 3 (i8x16.relaxed_swizzle (local.get 3) (local.get 1)))
                (local.set 3 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get 0) (local.get 2) (local.get 3)))
                (local.set 3 (i16x8.relaxed_laneselect (local.get 0) (local.get 1) (local.get 3)))
                (v128.store offset=16 (i32.const 0) (local.get 3))
                (v128.load32_zero (i32.const 4))
                (i32x4.extract_lane 0 (v128.const i32x4 1 2 3 4))))"#,
    )
    .unwrap();
    let translation = translate_module(&wasm, supported_features()).unwrap();
    for deterministic in [false, true] {
        let compiler = Compiler::new_native()
            .unwrap()
            .with_relaxed_simd_deterministic(deterministic);
        compiler.compile_module(&translation, false).unwrap();
    }
}

#[test]
fn simd_is_rejected_when_disabled() {
    let wasm =
        wat::parse_str(r#"(module (func (result i32) (i32x4.extract_lane 0 (v128.const i32x4 1 2 3 4))))"#).unwrap();
    let features = supported_features().difference(wasmparser::WasmFeatures::SIMD);
    let err = translate_module(&wasm, features).err().unwrap();
    assert!(err.message.contains("SIMD"), "{err}");
}

#[test]
fn wasm_to_host_trampolines() {
    use WasmValType::*;
    let compiler = Compiler::new_native().unwrap();
    let funcref = Ref(weft_environ::WasmRefType::FUNCREF);
    let types = [
        WasmFuncType::new([], []),
        WasmFuncType::new([I32, I64, F32, F64, funcref], []),
        WasmFuncType::new([], [I32, I64, F32, F64, funcref]),
        WasmFuncType::new([I32; 20], [F64; 12]),
        WasmFuncType::new([V128, I32, V128], [V128, V128, F32]),
    ];
    for ty in &types {
        let t = compiler.compile_wasm_to_host_trampoline(ty).unwrap();
        assert!(!t.code.is_empty());
        assert!(t.traps.iter().any(|(_, trap)| *trap == Trap::HostError), "{ty}");
        assert!(t.traps.iter().all(|(off, _)| (*off as usize) < t.code.len()));
        compiler.compile_array_trampoline(ty).unwrap();
    }
}
