//! The WebAssembly 3.0 proposals without GC through the public API: `v128`
//! values across the API and trampolines, relaxed SIMD results, the
//! `Config` switches, memory64, and concrete function reference types.
//! The modules are text, so these tests need the `wat` feature.

#![cfg(feature = "wat")]

use weft::*;

fn engine_with(f: impl FnOnce(&mut Config)) -> Engine {
    let mut config = Config::new();
    f(&mut config);
    Engine::new(&config).unwrap()
}

fn v128(lanes: [u32; 4]) -> V128 {
    let mut bits = 0u128;
    for (i, lane) in lanes.iter().enumerate() {
        bits |= u128::from(*lane) << (32 * i);
    }
    V128::from(bits)
}

#[test]
fn v128_through_typed_funcs_host_functions_and_globals() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        r#"(module
            (import "host" "twice" (func $twice (param v128) (result v128)))
            (global (export "g") (mut v128) (v128.const i32x4 1 2 3 4))
            (func (export "run") (param v128 i32) (result v128 i32)
                (i32x4.add (call $twice (local.get 0)) (global.get 0))
                (i32.add (local.get 1) (i32.const 1))))"#,
    )?;
    let mut store = Store::new(&engine, ());
    let twice = Func::wrap(&mut store, |x: V128| -> V128 {
        let bits = x.as_u128();
        let mut out = 0u128;
        for i in 0..4 {
            let lane = ((bits >> (32 * i)) as u32).wrapping_mul(2);
            out |= u128::from(lane) << (32 * i);
        }
        V128::from(out)
    });
    let instance = Instance::new(&mut store, &module, &[twice.into()])?;
    let run = instance.get_typed_func::<(V128, i32), (V128, i32)>(&mut store, "run")?;
    let (v, i) = run.call(&mut store, (v128([10, 20, 30, u32::MAX]), 5))?;
    assert_eq!(v, v128([21, 42, 63, 2]));
    assert_eq!(i, 6);

    // The untyped API and globals.
    let global = instance.get_global(&mut store, "g").unwrap();
    assert_eq!(global.ty(&store).content(), &ValType::V128);
    global.set(&mut store, Val::V128(v128([0, 0, 0, 7])))?;
    let func = instance.get_func(&mut store, "run").unwrap();
    let mut results = [Val::I32(0), Val::I32(0)];
    func.call(&mut store, &[Val::V128(v128([1, 1, 1, 1])), Val::I32(0)], &mut results)?;
    assert_eq!(results[0].v128(), Some(v128([2, 2, 2, 9])));
    assert!(func
        .call(&mut store, &[Val::I32(1), Val::I32(0)], &mut results)
        .is_err());
    Ok(())
}

const RELAXED: &str = r#"(module
    (func (export "swizzle") (param v128 v128) (result v128)
        (i8x16.relaxed_swizzle (local.get 0) (local.get 1)))
    (func (export "trunc") (param v128) (result v128)
        (i32x4.relaxed_trunc_f32x4_s (local.get 0)))
    (func (export "min") (param v128 v128) (result v128)
        (f32x4.relaxed_min (local.get 0) (local.get 1))))"#;

fn relaxed_results(deterministic: bool) -> Result<Vec<u128>> {
    let engine = engine_with(|c| {
        c.relaxed_simd_deterministic(deterministic);
    });
    let module = Module::new(&engine, RELAXED)?;
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[])?;
    let swizzle = instance.get_typed_func::<(V128, V128), V128>(&mut store, "swizzle")?;
    let trunc = instance.get_typed_func::<V128, V128>(&mut store, "trunc")?;
    let min = instance.get_typed_func::<(V128, V128), V128>(&mut store, "min")?;
    let nan = f32::NAN.to_bits();
    let mut out = Vec::new();
    for _ in 0..2 {
        out.push(
            swizzle
                .call(&mut store, (V128::from(u128::MAX / 255 * 7), V128::from(u128::MAX)))?
                .as_u128(),
        );
        out.push(trunc.call(&mut store, v128([nan, 0x4f00_0000, 0, 0]))?.as_u128());
        out.push(
            min.call(&mut store, (v128([nan, 0, 0, 0]), v128([0, 0x8000_0000, 0, 0])))?
                .as_u128(),
        );
    }
    Ok(out)
}

#[test]
fn relaxed_simd_is_the_same_every_time_and_deterministic_when_asked() -> Result<()> {
    for deterministic in [false, true] {
        let r = relaxed_results(deterministic)?;
        assert_eq!(r[..3], r[3..], "relaxed results changed between calls");
        if deterministic {
            // Out-of-range indices select 0; NaN truncates to 0 and large
            // values saturate; `fmin` propagates NaN and orders -0 < 0.
            assert_eq!(r[0], 0);
            assert_eq!(r[1], v128([0, i32::MAX as u32, 0, 0]).as_u128());
            let lanes = r[2].to_le_bytes();
            let lane0 = u32::from_le_bytes(lanes[0..4].try_into().unwrap());
            let lane1 = u32::from_le_bytes(lanes[4..8].try_into().unwrap());
            assert!(f32::from_bits(lane0).is_nan());
            assert_eq!(lane1, 0x8000_0000);
        }
    }
    Ok(())
}

/// A module, how to disable the proposal it uses, and a word of the error.
type DisabledCase = (&'static str, fn(&mut Config), &'static str);

#[test]
fn disabled_proposals_fail_validation_with_a_clear_error() {
    let cases: [DisabledCase; 7] = [
        (
            "(module (func (drop (v128.const i64x2 0 0))))",
            |c| {
                c.wasm_relaxed_simd(false).wasm_simd(false);
            },
            "SIMD",
        ),
        (
            "(module (func (param v128) (result v128) (i8x16.relaxed_swizzle (local.get 0) (local.get 0))))",
            |c| {
                c.wasm_relaxed_simd(false);
            },
            "relaxed SIMD",
        ),
        (
            "(module (func $f (return_call $f)))",
            |c| {
                c.wasm_tail_call(false);
            },
            "tail call",
        ),
        (
            "(module (memory 1) (memory 1))",
            |c| {
                c.wasm_multi_memory(false);
            },
            "multiple memories",
        ),
        (
            "(module (memory i64 1))",
            |c| {
                c.wasm_memory64(false);
            },
            "memory64",
        ),
        (
            "(module (global i32 (i32.add (i32.const 1) (i32.const 2))))",
            |c| {
                c.wasm_extended_const(false);
            },
            "constant expression",
        ),
        (
            "(module (type $t (func)) (func (param (ref $t))))",
            |c| {
                c.wasm_function_references(false);
            },
            "function references",
        ),
    ];
    let all = Engine::default();
    for (wat, disable, message) in cases {
        Module::new(&all, wat).unwrap_or_else(|e| panic!("{wat}: {e:#}"));
        let engine = engine_with(disable);
        let err = Module::new(&engine, wat).expect_err(wat);
        let text = format!("{err:#}");
        assert!(text.to_lowercase().contains(&message.to_lowercase()), "{wat}: {text}");
    }
}

#[test]
fn default_config_enables_what_wasmtime_enables() {
    let engine = Engine::default();
    for wat in [
        "(module (func (drop (v128.const i64x2 0 0))))",
        "(module (func $f (return_call $f)))",
        "(module (memory 1) (memory 1))",
        "(module (global i32 (i32.add (i32.const 1) (i32.const 2))))",
        "(module (type $t (func)) (func (param (ref $t))))",
        "(module (memory i64 1))",
        "(module (func (param v128) (result v128) (i8x16.relaxed_swizzle (local.get 0) (local.get 0))))",
    ] {
        Module::new(&engine, wat).unwrap_or_else(|e| panic!("{wat}: {e:#}"));
    }
    let mut config = Config::new();
    config.wasm_simd(false);
    assert!(Engine::new(&config).is_err(), "relaxed SIMD without SIMD");
}

#[test]
fn memory64_accesses_are_bounds_checked() -> Result<()> {
    let engine = engine_with(|c| {
        c.wasm_memory64(true);
    });
    let module = Module::new(
        &engine,
        r#"(module
            (memory (export "mem") i64 1 2)
            (func (export "load") (param i64) (result i32) (i32.load (local.get 0)))
            (func (export "load_far") (param i64) (result i32)
                (i32.load offset=0xffff_ffff_ffff_fff0 (local.get 0)))
            (func (export "grow") (param i64) (result i64) (memory.grow (local.get 0))))"#,
    )?;
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[])?;
    let load = instance.get_typed_func::<i64, i32>(&mut store, "load")?;
    let load_far = instance.get_typed_func::<i64, i32>(&mut store, "load_far")?;
    let grow = instance.get_typed_func::<i64, i64>(&mut store, "grow")?;
    let memory = instance.get_memory(&mut store, "mem").unwrap();
    assert!(memory.ty(&store).is_64());
    memory.write(&mut store, 65532, &7u32.to_le_bytes())?;
    assert_eq!(load.call(&mut store, 65532)?, 7);
    for index in [65533, 65536, 1 << 32, -1] {
        let err = load.call(&mut store, index).unwrap_err();
        assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::MemoryOutOfBounds), "{index}");
    }
    for index in [0, 0x20, -1] {
        let err = load_far.call(&mut store, index).unwrap_err();
        assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::MemoryOutOfBounds), "{index}");
    }
    assert_eq!(grow.call(&mut store, 1)?, 1);
    assert_eq!(load.call(&mut store, 65536)?, 0);
    assert_eq!(grow.call(&mut store, 1)?, -1);

    let host = Memory::new(&mut store, MemoryType::new64(1, None))?;
    assert!(host.ty(&store).is_64());
    Ok(())
}

#[test]
fn concrete_function_reference_types() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        r#"(module
            (type $binop (func (param i32 i32) (result i32)))
            (type $unop (func (param i32) (result i32)))
            (func $add (type $binop) (i32.add (local.get 0) (local.get 1)))
            (func $neg (type $unop) (i32.sub (i32.const 0) (local.get 0)))
            (table $t (export "table") 2 (ref null $binop))
            (global $g (export "g") (mut (ref null $binop)) (ref.func $add))
            (elem declare func $add $neg)
            (func (export "apply") (param (ref $binop) i32 i32) (result i32)
                (call_ref $binop (local.get 1) (local.get 2) (local.get 0)))
            (func (export "apply_global") (param i32 i32) (result i32)
                (call_ref $binop (local.get 0) (local.get 1) (ref.as_non_null (global.get $g))))
            (func (export "add") (type $binop) (call $add (local.get 0) (local.get 1)))
            (func (export "neg") (type $unop) (call $neg (local.get 0))))"#,
    )?;
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[])?;
    let apply = instance.get_func(&mut store, "apply").unwrap();
    let add = instance.get_func(&mut store, "add").unwrap();
    let neg = instance.get_func(&mut store, "neg").unwrap();

    // The parameter type names the function type.
    let param = apply.ty(&store).param(0).unwrap();
    let ValType::Ref(r) = &param else { panic!("{param}") };
    assert!(!r.is_nullable());
    assert_eq!(r.heap_type().as_concrete_func(), Some(&add.ty(&store)));

    let mut results = [Val::I32(0)];
    apply.call(&mut store, &[add.into(), Val::I32(2), Val::I32(3)], &mut results)?;
    assert_eq!(results[0].i32(), Some(5));
    // A function of another type, or null, does not fit `(ref $binop)`.
    assert!(apply
        .call(&mut store, &[neg.into(), Val::I32(2), Val::I32(3)], &mut results)
        .is_err());
    assert!(apply
        .call(
            &mut store,
            &[Val::FuncRef(None), Val::I32(2), Val::I32(3)],
            &mut results
        )
        .is_err());
    assert!(Val::from(add).matches_ty(&store, &param)?);
    assert!(!Val::from(neg).matches_ty(&store, &param)?);

    // Tables and globals of concrete types check the functions put in them.
    let table = instance.get_table(&mut store, "table").unwrap();
    table.set(&mut store, 0, add.into())?;
    assert!(table.set(&mut store, 1, neg.into()).is_err());
    let global = instance.get_global(&mut store, "g").unwrap();
    global.set(&mut store, Val::FuncRef(None))?;
    assert!(global.set(&mut store, neg.into()).is_err());
    let apply_global = instance.get_typed_func::<(i32, i32), i32>(&mut store, "apply_global")?;
    let err = apply_global.call(&mut store, (1, 2)).unwrap_err();
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::NullReference));
    global.set(&mut store, add.into())?;
    assert_eq!(apply_global.call(&mut store, (1, 2))?, 3);

    // A function type made through the API is the same type.
    let binop = FuncType::new(&engine, [ValType::I32, ValType::I32], [ValType::I32]);
    assert_eq!(binop, add.ty(&store));
    let host = Func::new(&mut store, binop, |_, args, results| {
        results[0] = Val::I32(args[0].i32().unwrap_or(0) * args[1].i32().unwrap_or(0));
        Ok(())
    });
    apply.call(&mut store, &[host.into(), Val::I32(6), Val::I32(7)], &mut results)?;
    assert_eq!(results[0].i32(), Some(42));
    Ok(())
}

/// Function types in an explicit recursion group are distinct from each
/// other and from alike types outside the group: `call_indirect` tells them
/// apart, and the same group in another module gives the same types.
#[test]
fn recursion_groups_of_function_types() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let module = Module::new(
        &engine,
        r#"(module
            (rec (type $a (func (result i32))) (type $b (func (result i32))))
            (type $c (func (result i32)))
            (func $fa (type $a) (i32.const 1))
            (func $fb (type $b) (i32.const 2))
            (func $fc (type $c) (i32.const 3))
            (table (export "t") funcref (elem $fa $fb $fc))
            (func (export "call_a") (param i32) (result i32) (call_indirect (type $a) (local.get 0))))"#,
    )
    .unwrap();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let call_a = instance.get_typed_func::<i32, i32>(&mut store, "call_a").unwrap();
    assert_eq!(call_a.call(&mut store, 0).unwrap(), 1);
    for wrong in [1, 2] {
        let err = call_a.call(&mut store, wrong).unwrap_err();
        assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::BadSignature), "{err:#}");
    }
    // Another module with the same group calls the first one's `$b` as its
    // own `$b`.
    let other = Module::new(
        &engine,
        r#"(module
            (rec (type $a (func (result i32))) (type $b (func (result i32))))
            (import "m" "t" (table 3 funcref))
            (func (export "call_b") (param i32) (result i32) (call_indirect (type $b) (local.get 0))))"#,
    )
    .unwrap();
    let table = instance.get_table(&mut store, "t").unwrap();
    let other = Instance::new(&mut store, &other, &[table.into()]).unwrap();
    let call_b = other.get_typed_func::<i32, i32>(&mut store, "call_b").unwrap();
    assert_eq!(call_b.call(&mut store, 1).unwrap(), 2);
    assert!(call_b.call(&mut store, 0).is_err());
    // Groups with anything but final function types stay unsupported.
    assert!(Module::new(&engine, r#"(module (rec (type (struct)) (type (func))))"#).is_err());
}

/// Wide arithmetic is off by default (as in Wasmtime) and, switched on,
/// computes 128-bit sums, differences and full products.
#[test]
fn wide_arithmetic_is_a_switch_off_by_default() -> Result<()> {
    let wat = r#"(module
        (func (export "add") (param i64 i64 i64 i64) (result i64 i64)
            (i64.add128 (local.get 0) (local.get 1) (local.get 2) (local.get 3)))
        (func (export "sub") (param i64 i64 i64 i64) (result i64 i64)
            (i64.sub128 (local.get 0) (local.get 1) (local.get 2) (local.get 3)))
        (func (export "mul_s") (param i64 i64) (result i64 i64)
            (i64.mul_wide_s (local.get 0) (local.get 1)))
        (func (export "mul_u") (param i64 i64) (result i64 i64)
            (i64.mul_wide_u (local.get 0) (local.get 1))))"#;
    let err = Module::new(&Engine::default(), wat).unwrap_err();
    assert!(format!("{err:#}").contains("wide arithmetic"), "{err:#}");

    let engine = engine_with(|c| {
        c.wasm_wide_arithmetic(true);
    });
    let module = Module::new(&engine, wat)?;
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[])?;
    let add = instance.get_typed_func::<(i64, i64, i64, i64), (i64, i64)>(&mut store, "add")?;
    let sub = instance.get_typed_func::<(i64, i64, i64, i64), (i64, i64)>(&mut store, "sub")?;
    let mul_s = instance.get_typed_func::<(i64, i64), (i64, i64)>(&mut store, "mul_s")?;
    let mul_u = instance.get_typed_func::<(i64, i64), (i64, i64)>(&mut store, "mul_u")?;
    // The carry crosses into the high half, and the borrow out of it.
    assert_eq!(add.call(&mut store, (-1, 0, 1, 0))?, (0, 1));
    assert_eq!(sub.call(&mut store, (0, 1, 1, 0))?, (-1, 0));
    // (2^64 - 1)^2 = 2^128 - 2^65 + 1 unsigned; (-1)·(-1) = 1 signed.
    assert_eq!(mul_u.call(&mut store, (-1, -1))?, (1, -2));
    assert_eq!(mul_s.call(&mut store, (-1, -1))?, (1, 0));
    assert_eq!(mul_s.call(&mut store, (i64::MIN, 2))?, (0, -1));
    Ok(())
}

/// Memories of 1-byte pages (custom page sizes, off by default): every
/// access past the length traps, even inside the host page that holds the
/// last byte; `memory.grow` and `memory.size` count bytes; import types
/// must agree on the page size; the builder checks its limits.
#[test]
fn custom_page_sizes_count_single_bytes() -> Result<()> {
    let wat = r#"(module
        (memory (export "mem") 10 20 (pagesize 1))
        (func (export "load") (param i32) (result i32) (i32.load (local.get 0)))
        (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
        (func (export "size") (result i32) (memory.size)))"#;
    let err = Module::new(&Engine::default(), wat).unwrap_err();
    assert!(format!("{err:#}").contains("custom page sizes"), "{err:#}");

    let engine = engine_with(|c| {
        c.wasm_custom_page_sizes(true);
    });
    let module = Module::new(&engine, wat)?;
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[])?;
    let load = instance.get_typed_func::<i32, i32>(&mut store, "load")?;
    let grow = instance.get_typed_func::<i32, i32>(&mut store, "grow")?;
    let size = instance.get_typed_func::<(), i32>(&mut store, "size")?;
    let mem = instance.get_memory(&mut store, "mem").unwrap();
    assert_eq!((mem.page_size(&store), mem.page_size_log2(&store)), (1, 0));
    assert_eq!(mem.data_size(&store), 10);
    mem.data_mut(&mut store)[6..10].copy_from_slice(&7u32.to_le_bytes());
    assert_eq!(load.call(&mut store, 6)?, 7);
    let trap = load.call(&mut store, 7).unwrap_err();
    assert_eq!(trap.downcast_ref::<Trap>(), Some(&Trap::MemoryOutOfBounds));
    assert_eq!(grow.call(&mut store, 1)?, 10);
    assert_eq!(size.call(&mut store, ())?, 11);
    assert_eq!(load.call(&mut store, 7)?, 0);
    assert_eq!(grow.call(&mut store, 10)?, -1, "past the maximum of 20 bytes");
    // The type is the declared one, as in Wasmtime; the size is current.
    assert_eq!(mem.ty(&store).to_string(), "(memory 10 20 (pagesize 1))");
    assert_eq!(mem.size(&store), 11);

    // A host memory of 1-byte pages satisfies such an import, and one of
    // 64 KiB pages does not.
    let importer = Module::new(&engine, r#"(module (import "" "m" (memory 1 (pagesize 1))))"#)?;
    let small = Memory::new(&mut store, MemoryTypeBuilder::new().min(4).page_size_log2(0).build()?)?;
    Instance::new(&mut store, &importer, &[small.into()])?;
    let big = Memory::new(&mut store, MemoryType::new(1, None))?;
    let err = Instance::new(&mut store, &importer, &[big.into()]).unwrap_err();
    assert!(format!("{err:#}").contains("incompatible import type"), "{err:#}");

    assert!(MemoryTypeBuilder::new().page_size_log2(3).build().is_err());
    assert!(MemoryTypeBuilder::new().min(1 << 32).page_size_log2(0).build().is_err());
    assert!(MemoryTypeBuilder::new().min(65537).build().is_err());
    assert!(MemoryTypeBuilder::new().min(65536).build().is_ok());
    let default_engine = Engine::default();
    let mut other = Store::new(&default_engine, ());
    assert!(Memory::new(&mut other, MemoryTypeBuilder::new().page_size_log2(0).build()?).is_err());
    Ok(())
}

/// Threads (off by default): atomic read-modify-writes and compare-
/// exchanges of every width, alignment traps, and waits on a shared memory
/// that time out or see another value; a wait on a memory that is not
/// shared traps.
#[test]
fn threads_atomics_and_waits() -> Result<()> {
    let wat = r#"(module
        (memory (export "mem") 1 1 shared)
        (func (export "add8") (param i32 i32) (result i32)
            (i32.atomic.rmw8.add_u (local.get 0) (local.get 1)))
        (func (export "cmpxchg") (param i32 i64 i64) (result i64)
            (i64.atomic.rmw.cmpxchg (local.get 0) (local.get 1) (local.get 2)))
        (func (export "load") (param i32) (result i64) (i64.atomic.load (local.get 0)))
        (func (export "wait") (param i32 i32 i64) (result i32)
            (memory.atomic.wait32 (local.get 0) (local.get 1) (local.get 2)))
        (func (export "notify") (param i32 i32) (result i32)
            (memory.atomic.notify (local.get 0) (local.get 1)))
        (func (export "fence") (atomic.fence)))"#;
    let no_threads = engine_with(|c| {
        c.wasm_threads(false);
    });
    let err = Module::new(&no_threads, wat).unwrap_err();
    assert!(format!("{err:#}").contains("threads"), "{err:#}");
    // As in Wasmtime 48, threads are on by default but shared memories
    // need `Config::shared_memory`: the module compiles and its
    // instantiation names the switch.
    let default = Engine::default();
    let module = Module::new(&default, wat)?;
    let err = Instance::new(&mut Store::new(&default, ()), &module, &[]).unwrap_err();
    assert!(format!("{err:#}").contains("Config::shared_memory"), "{err:#}");

    let engine = engine_with(|c| {
        c.shared_memory(true);
    });
    let module = Module::new(&engine, wat)?;
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[])?;
    let add8 = instance.get_typed_func::<(i32, i32), i32>(&mut store, "add8")?;
    let cmpxchg = instance.get_typed_func::<(i32, i64, i64), i64>(&mut store, "cmpxchg")?;
    let load = instance.get_typed_func::<i32, i64>(&mut store, "load")?;
    let wait = instance.get_typed_func::<(i32, i32, i64), i32>(&mut store, "wait")?;
    let notify = instance.get_typed_func::<(i32, i32), i32>(&mut store, "notify")?;
    instance
        .get_typed_func::<(), ()>(&mut store, "fence")?
        .call(&mut store, ())?;

    // An 8-bit add wraps within its byte and returns the old value.
    assert_eq!(add8.call(&mut store, (8, 0xff))?, 0);
    assert_eq!(add8.call(&mut store, (8, 2))?, 0xff);
    assert_eq!(load.call(&mut store, 8)?, 1);
    assert_eq!(cmpxchg.call(&mut store, (8, 5, 9))?, 1, "no exchange on a mismatch");
    assert_eq!(cmpxchg.call(&mut store, (8, 1, 9))?, 1);
    assert_eq!(load.call(&mut store, 8)?, 9);
    let trap = load.call(&mut store, 4).unwrap_err();
    assert_eq!(trap.downcast_ref::<Trap>(), Some(&Trap::HeapMisaligned));
    let trap = load.call(&mut store, 65536).unwrap_err();
    assert_eq!(trap.downcast_ref::<Trap>(), Some(&Trap::MemoryOutOfBounds));

    // Nobody else can notify in this store: the waits see another value
    // (1) or time out (2); a notify finds no waiter.
    assert_eq!(wait.call(&mut store, (0, 1, -1))?, 1);
    assert_eq!(wait.call(&mut store, (0, 0, 1_000))?, 2);
    assert_eq!(notify.call(&mut store, (0, 10))?, 0);

    // The type says shared, and so does its text.
    assert!(instance.get_memory(&mut store, "mem").is_none());
    let mem = instance.get_shared_memory(&mut store, "mem").unwrap();
    assert_eq!(mem.ty().to_string(), "(memory 1 1 shared)");

    // A wait on a memory that is not shared traps.
    let unshared = Module::new(
        &engine,
        r#"(module (memory 1)
            (func (export "wait") (result i32)
                (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const 0))))"#,
    )?;
    let instance = Instance::new(&mut store, &unshared, &[])?;
    let trap = instance
        .get_typed_func::<(), i32>(&mut store, "wait")?
        .call(&mut store, ())
        .unwrap_err();
    assert_eq!(trap.downcast_ref::<Trap>(), Some(&Trap::AtomicWaitNonSharedMemory));
    Ok(())
}
