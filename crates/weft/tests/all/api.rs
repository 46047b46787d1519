//! Integration tests of the embedding API: traps and backtraces, host
//! panics, imports and exports, `Caller`, `Linker`, and bad input.

use weft::*;

/// Modules are written as text and assembled here, so these tests also run
/// without the `wat` feature.
fn wasm(text: &str) -> Vec<u8> {
    wat::parse_str(text).expect("test module is valid text")
}

fn instance_of(store: &mut Store<()>, wat: &str) -> Result<Instance> {
    let module = Module::new(store.engine(), wasm(wat))?;
    Instance::new(store, &module, &[])
}

#[test]
fn traps_carry_their_code_and_a_named_backtrace() -> Result<()> {
    let mut store = Store::new(&Engine::default(), ());
    let instance = instance_of(
        &mut store,
        r#"(module $m
            (func $inner unreachable)
            (func $middle call $inner)
            (func (export "outer") call $middle))"#,
    )?;
    let outer = instance.get_typed_func::<(), ()>(&mut store, "outer")?;
    let err = outer.call(&mut store, ()).unwrap_err();
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::UnreachableCodeReached));
    let bt = err.downcast_ref::<WasmBacktrace>().expect("backtrace attached");
    let names: Vec<_> = bt
        .frames()
        .iter()
        .map(|f| f.func_name().unwrap_or("?").to_string())
        .collect();
    assert_eq!(names[..2], ["inner".to_string(), "middle".to_string()], "{bt}");
    assert_eq!(bt.frames()[0].module_name(), Some("m"));
    // `unreachable` is the first operator of its body, after the count of
    // local declarations: one byte in.
    assert_eq!(bt.frames()[0].func_offset(), Some(1), "{bt}");
    let offset = bt.frames()[0].module_offset().expect("the frame has an offset");
    assert!(format!("{bt}").contains(&format!("{offset:#8x} - m!inner")), "{bt}");
    assert!(format!("{err:?}").contains("unreachable"), "{err:?}");
    Ok(())
}

#[test]
fn every_trap_kind_is_reported() -> Result<()> {
    let mut store = Store::new(&Engine::default(), ());
    let instance = instance_of(
        &mut store,
        r#"(module
            (memory 1)
            (table 2 funcref)
            (type $t (func))
            (func $f (param i32))
            (elem (i32.const 1) $f)
            (func (export "oob") (result i32) i32.const 65536 i32.load)
            (func (export "table_oob") (result funcref) i32.const 5 table.get 0)
            (func (export "null") i32.const 0 call_indirect (type $t))
            (func (export "sig") i32.const 1 call_indirect (type $t))
            (func (export "ovf") (result i32) i32.const 0x80000000 i32.const -1 i32.div_s)
            (func (export "div0") (result i64) i64.const 1 i64.const 0 i64.rem_u)
            (func (export "conv") (result i32) f32.const nan i32.trunc_f32_s)
            (func $rec (export "stack") call $rec))"#,
    )?;
    let cases = [
        ("oob", Trap::MemoryOutOfBounds),
        ("table_oob", Trap::TableOutOfBounds),
        ("null", Trap::IndirectCallToNull),
        ("sig", Trap::BadSignature),
        ("ovf", Trap::IntegerOverflow),
        ("div0", Trap::IntegerDivisionByZero),
        ("conv", Trap::BadConversionToInteger),
        ("stack", Trap::StackOverflow),
    ];
    for (name, trap) in cases {
        let f = instance.get_func(&mut store, name).unwrap();
        let mut results = vec![Val::I32(0); f.ty(&store).results().len()];
        let err = f.call(&mut store, &[], &mut results).unwrap_err();
        assert_eq!(err.downcast_ref::<Trap>(), Some(&trap), "{name}: {err:?}");
    }
    Ok(())
}

#[test]
fn host_panic_resumes_in_the_caller_and_the_store_stays_usable() -> Result<()> {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let module = Module::new(
        &engine,
        wasm(
            r#"(module (import "" "panic" (func $p)) (func (export "run") call $p)
                   (func (export "ok") (result i32) i32.const 7))"#,
        ),
    )?;
    let panic = Func::wrap(&mut store, || -> () { panic!("host panic!") });
    let instance = Instance::new(&mut store, &module, &[panic.into()])?;
    let run = instance.get_typed_func::<(), ()>(&mut store, "run")?;
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run.call(&mut store, ())));
    let payload = caught.expect_err("the panic must propagate");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"host panic!"));
    let ok = instance.get_typed_func::<(), i32>(&mut store, "ok")?;
    assert_eq!(ok.call(&mut store, ())?, 7);
    Ok(())
}

#[test]
fn host_errors_come_back_with_their_message() -> Result<()> {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let module = Module::new(
        &engine,
        wasm(r#"(module (import "" "f" (func $f)) (func (export "run") call $f))"#),
    )?;
    let f = Func::wrap(&mut store, || -> Result<()> { bail!("host says no") });
    let instance = Instance::new(&mut store, &module, &[f.into()])?;
    let err = instance
        .get_typed_func::<(), ()>(&mut store, "run")?
        .call(&mut store, ())
        .unwrap_err();
    assert!(format!("{err:?}").contains("host says no"), "{err:?}");
    assert!(err.downcast_ref::<Trap>().is_none());
    Ok(())
}

#[test]
fn deep_host_wasm_recursion() -> Result<()> {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let module = Module::new(
        &engine,
        wasm(
            r#"(module (import "" "down" (func $down (param i32) (result i32)))
            (func (export "f") (param i32) (result i32)
              local.get 0 i32.eqz if (result i32) i32.const 0 else local.get 0 call $down end))"#,
        ),
    )?;
    let mut linker = Linker::new(&engine);
    linker.func_wrap("", "down", |mut caller: Caller<'_, ()>, n: i32| -> Result<i32> {
        let f = caller.get_export("f").and_then(|e| e.into_func()).unwrap();
        let mut out = [Val::I32(0)];
        f.call(&mut caller, &[Val::I32(n - 1)], &mut out)?;
        Ok(out[0].i32().unwrap() + 1)
    })?;
    let instance = linker.instantiate(&mut store, &module)?;
    let f = instance.get_typed_func::<i32, i32>(&mut store, "f")?;
    assert_eq!(f.call(&mut store, 20)?, 20);
    // Recursing through the host without bound ends in a stack-overflow trap
    // (host frames count against `max_wasm_stack`), never in a crash.
    let err = f.call(&mut store, 1_000_000).unwrap_err();
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::StackOverflow), "{err:?}");
    assert_eq!(f.call(&mut store, 3)?, 3);
    Ok(())
}

#[test]
fn import_errors_name_the_import_and_types() -> Result<()> {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let module = Module::new(&engine, wasm(r#"(module (import "env" "f" (func (param i32))))"#))?;
    let linker = Linker::<()>::new(&engine);
    let err = linker.instantiate(&mut store, &module).unwrap_err();
    assert!(err.to_string().contains("env::f"), "{err}");
    let wrong = Func::wrap(&mut store, |_: i64| {});
    let err = Instance::new(&mut store, &module, &[wrong.into()]).unwrap_err();
    let msg = format!("{err:#}");
    assert!(
        msg.contains("env::f") && msg.contains("i32") && msg.contains("i64"),
        "{msg}"
    );
    let err = Instance::new(&mut store, &module, &[]).unwrap_err();
    assert!(err.to_string().contains("imports"), "{err}");
    Ok(())
}

#[test]
fn misuse_is_an_error_not_a_panic() -> Result<()> {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let mut other = Store::new(&engine, ());
    let instance = instance_of(
        &mut store,
        r#"(module (func (export "f") (param i32) (result i32) local.get 0)
                   (func (export "r") (param funcref)))"#,
    )?;
    let f = instance.get_func(&mut store, "f").unwrap();
    assert!(f.typed::<i64, i32>(&store).is_err());
    assert!(f.typed::<(), i32>(&store).is_err());
    assert!(f.call(&mut store, &[], &mut [Val::I32(0)]).is_err());
    assert!(f.call(&mut store, &[Val::I64(1)], &mut [Val::I32(0)]).is_err());
    assert!(f.call(&mut store, &[Val::I32(1)], &mut []).is_err());
    assert!(f.call(&mut other, &[Val::I32(1)], &mut [Val::I32(0)]).is_err());
    let foreign = Func::wrap(&mut other, || {});
    let r = instance.get_func(&mut store, "r").unwrap();
    assert!(r.call(&mut store, &[Val::FuncRef(Some(foreign))], &mut []).is_err());
    let g = Global::new(&mut other, GlobalType::new(ValType::I32, Mutability::Var), Val::I32(1))?;
    assert!(g.set(&mut store, Val::I32(2)).is_err());
    Ok(())
}

#[test]
fn bad_modules_give_offsets() {
    let engine = Engine::default();
    let err = Module::new(&engine, b"\0asm\x01\0\0\0\x01").unwrap_err();
    assert!(err.to_string().contains("offset"), "{err}");
    let err = Module::new(&engine, wasm(r#"(module (func (result i32)))"#)).unwrap_err();
    assert!(err.to_string().contains("offset"), "{err}");
    assert!(Module::validate(&engine, b"garbage").is_err());
    assert!(Module::new(&engine, "(module").is_err());
}

/// Function bodies are validated on the threads that compile them: an
/// invalid body, among valid ones on either side, gives the error that
/// validating the module gives, from `Module::new` and from
/// `Engine::precompile_module`.
#[test]
fn invalid_body_errors_match_validation() {
    let engine = Engine::default();
    let funcs: String = (0..20).map(|i| format!("(func (result i32) i32.const {i})")).collect();
    let bad = wasm(&format!("(module {funcs} (func (result i32) i64.const 1) {funcs})"));
    let expected = Module::validate(&engine, &bad).unwrap_err().to_string();
    assert!(
        expected.contains("type mismatch") && expected.contains("offset"),
        "{expected}"
    );
    assert_eq!(Module::new(&engine, &bad).unwrap_err().to_string(), expected);
    assert_eq!(engine.precompile_module(&bad).unwrap_err().to_string(), expected);
    let good = wasm(&format!("(module {funcs})"));
    Module::new(&engine, &good).unwrap();
}

#[test]
fn memory_table_and_global_api() -> Result<()> {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let instance = instance_of(
        &mut store,
        r#"(module (memory (export "m") 1 3) (table (export "t") 2 funcref)
                   (global (export "g") (mut i64) (i64.const 5))
                   (func (export "f") (result i32) i32.const 4 i32.load))"#,
    )?;
    let m = instance.get_memory(&mut store, "m").unwrap();
    assert_eq!(m.size(&store), 1);
    m.write(&mut store, 4, &[1, 0, 0, 0])?;
    let f = instance.get_typed_func::<(), i32>(&mut store, "f")?;
    assert_eq!(f.call(&mut store, ())?, 1);
    assert_eq!(m.grow(&mut store, 2)?, 1);
    assert!(m.grow(&mut store, 1).is_err());
    assert_eq!(m.data_size(&store), 3 * 65536);
    let mut buf = [0u8; 4];
    assert!(m.read(&store, 3 * 65536 - 2, &mut buf).is_err());
    let t = instance.get_table(&mut store, "t").unwrap();
    assert_eq!(t.size(&store), 2);
    t.set(&mut store, 1, Ref::Func(Some(*f.func())))?;
    assert!(t.get(&mut store, 1).unwrap().as_func().unwrap().is_some());
    assert!(t.get(&mut store, 2).is_none());
    assert_eq!(t.grow(&mut store, 3, Ref::Func(None))?, 2);
    let g = instance.get_global(&mut store, "g").unwrap();
    assert_eq!(g.get(&mut store).i64(), Some(5));
    g.set(&mut store, Val::I64(9))?;
    assert_eq!(g.get(&mut store).i64(), Some(9));
    assert!(g.set(&mut store, Val::I32(9)).is_err());
    Ok(())
}

#[test]
fn externrefs_round_trip() -> Result<()> {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let instance = instance_of(
        &mut store,
        r#"(module (func (export "id") (param externref) (result externref) local.get 0))"#,
    )?;
    let id = instance.get_typed_func::<Option<Rooted<ExternRef>>, Option<Rooted<ExternRef>>>(&mut store, "id")?;
    let r = ExternRef::new(&mut store, String::from("hello"))?;
    let back = id.call(&mut store, Some(r))?.unwrap();
    assert!(Rooted::ref_eq(&store, &r, &back)?);
    let data = back.data(&store)?.unwrap();
    assert_eq!(data.downcast_ref::<String>().map(String::as_str), Some("hello"));
    assert!(id.call(&mut store, None)?.is_none());
    store.gc(None).unwrap();
    Ok(())
}

#[test]
fn linker_definitions() -> Result<()> {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let mut linker = Linker::new(&engine);
    let provider = Module::new(
        &engine,
        wasm(r#"(module (func (export "seven") (result i32) i32.const 7))"#),
    )?;
    linker.module(&mut store, "p", &provider)?;
    let user = Module::new(
        &engine,
        wasm(
            r#"(module (import "p" "seven" (func $s (result i32))) (import "h" "g" (global i32))
                   (func (export "") (result i32) call $s global.get 0 i32.add))"#,
        ),
    )?;
    let g = Global::new(
        &mut store,
        GlobalType::new(ValType::I32, Mutability::Const),
        Val::I32(1),
    )?;
    linker.define(&store, "h", "g", g)?;
    assert!(linker.define(&store, "h", "g", g).is_err());
    linker.allow_shadowing(true);
    linker.define(&store, "h", "g", g)?;
    linker.module(&mut store, "u", &user)?;
    let default = linker.get_default(&mut store, "u")?;
    let mut out = [Val::I32(0)];
    default.call(&mut store, &[], &mut out)?;
    assert_eq!(out[0].i32(), Some(8));
    assert!(linker.get(&mut store, "p", "seven").is_some());
    assert!(linker.get(&mut store, "p", "eight").is_none());
    let ty = FuncType::new(&engine, [ValType::I32], [ValType::I32]);
    linker.func_new("h", "dyn", ty, |_caller, params, results| {
        results[0] = Val::I32(params[0].i32().unwrap() * 3);
        Ok(())
    })?;
    let f = linker.get(&mut store, "h", "dyn").unwrap().into_func().unwrap();
    f.call(&mut store, &[Val::I32(5)], &mut out)?;
    assert_eq!(out[0].i32(), Some(15));
    Ok(())
}

#[test]
fn module_imports_and_exports_are_listed() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        wasm(
            r#"(module $named (import "a" "b" (func (param i32))) (memory (export "mem") 1)
                   (func (export "f")))"#,
        ),
    )?;
    assert_eq!(module.name(), Some("named"));
    let imports: Vec<_> = module
        .imports()
        .map(|i| (i.module().to_string(), i.name().to_string()))
        .collect();
    assert_eq!(imports, [("a".to_string(), "b".to_string())]);
    let exports: Vec<_> = module.exports().map(|e| e.name().to_string()).collect();
    assert_eq!(exports, ["mem", "f"]);
    Ok(())
}

#[test]
fn linker_defines_unknown_imports_as_traps() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        wasm(
            r#"(module
                (import "host" "known" (func $known (result i32)))
                (import "env" "missing" (func $missing (param i32) (result i64)))
                (import "env" "memory" (memory 1))
                (func (export "known") (result i32) (call $known))
                (func (export "missing") (result i64) (call $missing (i32.const 1))))"#,
        ),
    )?;
    let mut store = Store::new(&engine, ());
    let mut linker = Linker::new(&engine);
    linker.func_wrap("host", "known", || 7i32)?;
    let memory = Memory::new(&mut store, MemoryType::new(1, None))?;
    linker.define(&store, "env", "memory", memory)?;
    linker.define_unknown_imports_as_traps(&module)?;
    // The known function keeps its definition; only functions are defined.
    let instance = linker.instantiate(&mut store, &module)?;
    let known = instance.get_typed_func::<(), i32>(&mut store, "known")?;
    assert_eq!(known.call(&mut store, ())?, 7);
    let missing = instance.get_typed_func::<(), i64>(&mut store, "missing")?;
    let err = missing.call(&mut store, ()).unwrap_err();
    assert!(
        format!("{err:?}").contains("unknown import: `env::missing` has not been defined"),
        "{err:?}"
    );
    // The store stays usable after the trap.
    assert_eq!(known.call(&mut store, ())?, 7);

    // A memory import is not a function: it stays undefined.
    let mut bare = Linker::new(&engine);
    bare.define_unknown_imports_as_traps(&module)?;
    let err = bare.instantiate(&mut store, &module).unwrap_err();
    assert!(format!("{err:?}").contains("env::memory"), "{err:?}");
    Ok(())
}

#[test]
fn linker_defines_unknown_imports_as_default_values() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        wasm(
            r#"(module
                (import "env" "f" (func $f (param i32) (result i32 i64 f32 f64 funcref externref)))
                (import "env" "g" (global $g (mut i64)))
                (import "env" "t" (table 3 funcref))
                (import "env" "m" (memory 2))
                (import "env" "e" (tag))
                (func (export "f") (result i32 i64 f32 f64 funcref externref) (call $f (i32.const 5)))
                (func (export "g") (result i64) (global.get $g))
                (func (export "t") (result i32) (table.size 0))
                (func (export "m") (result i32) (memory.size))
                (func (export "null") (result i32) (ref.is_null (table.get 0 (i32.const 2)))))"#,
        ),
    )?;
    let mut store = Store::new(&engine, ());
    let mut linker = Linker::new(&engine);
    linker.define_unknown_imports_as_default_values(&mut store, &module)?;
    let instance = linker.instantiate(&mut store, &module)?;
    let f = instance.get_func(&mut store, "f").unwrap();
    let mut results = vec![Val::I32(9); 6];
    f.call(&mut store, &[], &mut results)?;
    assert!(matches!(results[0], Val::I32(0)));
    assert!(matches!(results[1], Val::I64(0)));
    assert!(matches!(results[2], Val::F32(0)));
    assert!(matches!(results[3], Val::F64(0)));
    assert!(matches!(results[4], Val::FuncRef(None)));
    assert!(matches!(results[5], Val::ExternRef(None)));
    let call = |store: &mut Store<()>, name: &str| -> Result<i64> {
        let func = instance.get_func(&mut *store, name).unwrap();
        let mut out = [Val::I64(-1)];
        func.call(&mut *store, &[], &mut out)?;
        Ok(match out[0] {
            Val::I32(v) => i64::from(v),
            Val::I64(v) => v,
            _ => -1,
        })
    };
    assert_eq!(call(&mut store, "g")?, 0);
    assert_eq!(call(&mut store, "t")?, 3);
    assert_eq!(call(&mut store, "m")?, 2);
    assert_eq!(call(&mut store, "null")?, 1);

    // A type without a default value: the error names the import.
    let strict = Module::new(
        &engine,
        wasm(r#"(module (type $t (func)) (import "env" "r" (global (ref $t))))"#),
    )?;
    let err = Linker::new(&engine)
        .define_unknown_imports_as_default_values(&mut store, &strict)
        .unwrap_err();
    assert!(format!("{err:?}").contains("env::r"), "{err:?}");
    let strict = Module::new(
        &engine,
        wasm(r#"(module (import "env" "f" (func (result (ref func)))))"#),
    )?;
    let err = Linker::new(&engine)
        .define_unknown_imports_as_default_values(&mut store, &strict)
        .unwrap_err();
    assert!(format!("{err:?}").contains("env::f"), "{err:?}");
    Ok(())
}

#[test]
fn typed_calls_of_every_list_length_pass_their_values_intact() -> Result<()> {
    // Lists of 3, 5 and 9 values take the 4-, 8- and 16-slot arrays; the
    // 5 results outnumber their one parameter. Numbers are written at their
    // own width, so each function mixes widths and negative values, whose
    // upper bits must not leak into a neighbour or a wider read.
    let mut store = Store::new(&Engine::default(), ());
    let instance = instance_of(
        &mut store,
        r#"(module
            (func (export "three") (param i32 i64 f32) (result i64)
                (i64.add (i64.extend_i32_u (local.get 0))
                    (i64.add (local.get 1) (i64.trunc_f32_s (local.get 2)))))
            (func (export "spread") (param i32) (result i32 i64 f32 f64 i32)
                (local.get 0)
                (i64.extend_i32_s (local.get 0))
                (f32.convert_i32_s (local.get 0))
                (f64.convert_i32_s (local.get 0))
                (i32.mul (local.get 0) (i32.const 2)))
            (func (export "nine") (param i32 i64 f32 f64 i32 i64 f32 f64 i32) (result i64)
                (i64.add
                    (i64.add (i64.extend_i32_u (local.get 0)) (local.get 1))
                    (i64.add
                        (i64.add (i64.trunc_f32_s (local.get 2)) (i64.trunc_f64_s (local.get 3)))
                        (i64.add
                            (i64.add (i64.extend_i32_u (local.get 4)) (local.get 5))
                            (i64.add
                                (i64.add (i64.trunc_f32_s (local.get 6)) (i64.trunc_f64_s (local.get 7)))
                                (i64.extend_i32_u (local.get 8))))))))"#,
    )?;
    let three = instance.get_typed_func::<(i32, i64, f32), i64>(&mut store, "three")?;
    // -1 as an unsigned 32-bit value, not sign-extended from its slot.
    assert_eq!(three.call(&mut store, (-1, -5, -2.5))?, 0xffff_ffff - 5 - 2);

    let spread = instance.get_typed_func::<i32, (i32, i64, f32, f64, i32)>(&mut store, "spread")?;
    assert_eq!(spread.call(&mut store, -7)?, (-7, -7, -7.0, -7.0, -14));

    let nine = instance.get_typed_func::<(i32, i64, f32, f64, u32, i64, f32, f64, u32), i64>(&mut store, "nine")?;
    let args = (-1, -10, 3.9, -4.9, u32::MAX, i64::MIN / 2, -6.0, 7.0, 8);
    let expected = 0xffff_ffff - 10 + 3 - 4 + 0xffff_ffff + i64::MIN / 2 - 6 + 7 + 8;
    assert_eq!(nine.call(&mut store, args)?, expected);
    Ok(())
}
