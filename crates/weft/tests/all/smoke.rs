//! Smoke tests: a module compiles, instantiates and runs through the public API.

use weft::*;

fn wasm(text: &str) -> Vec<u8> {
    wat::parse_str(text).expect("test module is valid text")
}

#[test]
fn add_and_trap() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        wasm(
            r#"(module
            (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add)
            (func $boom (export "boom") unreachable)
            (func (export "div") (param i32 i32) (result i32) local.get 0 local.get 1 i32.div_s)
            (memory (export "mem") 1)
            (func (export "load") (param i32) (result i32) local.get 0 i32.load)
            (func $rec (export "rec") (param i32) (result i32) local.get 0 call $rec))"#,
        ),
    )?;
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[])?;
    let add = instance.get_typed_func::<(i32, i32), i32>(&mut store, "add")?;
    assert_eq!(add.call(&mut store, (2, 3))?, 5);
    let boom = instance.get_typed_func::<(), ()>(&mut store, "boom")?;
    let err = boom.call(&mut store, ()).unwrap_err();
    assert_eq!(
        err.downcast_ref::<Trap>(),
        Some(&Trap::UnreachableCodeReached),
        "{err:?}"
    );
    let div = instance.get_typed_func::<(i32, i32), i32>(&mut store, "div")?;
    let err = div.call(&mut store, (1, 0)).unwrap_err();
    assert_eq!(
        err.downcast_ref::<Trap>(),
        Some(&Trap::IntegerDivisionByZero),
        "{err:?}"
    );
    let load = instance.get_typed_func::<i32, i32>(&mut store, "load")?;
    assert_eq!(load.call(&mut store, 0)?, 0);
    let err = load.call(&mut store, 65536).unwrap_err();
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::MemoryOutOfBounds), "{err:?}");
    let rec = instance.get_typed_func::<i32, i32>(&mut store, "rec")?;
    let err = rec.call(&mut store, 0).unwrap_err();
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::StackOverflow), "{err:?}");
    assert_eq!(add.call(&mut store, (2, 3))?, 5);
    Ok(())
}

#[test]
fn host_functions() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        wasm(
            r#"(module
            (import "host" "double" (func $double (param i32) (result i32)))
            (import "host" "fail" (func $fail))
            (func (export "run") (param i32) (result i32) local.get 0 call $double)
            (func (export "fail") call $fail))"#,
        ),
    )?;
    let mut store = Store::new(&engine, 7u32);
    let mut linker = Linker::new(&engine);
    linker.func_wrap("host", "double", |mut caller: Caller<'_, u32>, x: i32| {
        *caller.data_mut() += 1;
        x * 2
    })?;
    linker.func_wrap("host", "fail", || -> Result<()> { bail!("nope") })?;
    let instance = linker.instantiate(&mut store, &module)?;
    let run = instance.get_typed_func::<i32, i32>(&mut store, "run")?;
    assert_eq!(run.call(&mut store, 21)?, 42);
    assert_eq!(*store.data(), 8);
    let fail = instance.get_typed_func::<(), ()>(&mut store, "fail")?;
    let err = fail.call(&mut store, ()).unwrap_err();
    assert!(format!("{err:?}").contains("nope"), "{err:?}");
    assert_eq!(run.call(&mut store, 1)?, 2);
    Ok(())
}
