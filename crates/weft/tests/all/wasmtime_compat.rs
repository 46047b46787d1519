//! Programs written the way Wasmtime's own examples are (hello, gcd, memory,
//! linking, externref), with only the crate renamed: they must compile and
//! behave the same against Weft.

use weft::*;

fn wasm(text: &str) -> Vec<u8> {
    wat::parse_str(text).expect("test module is valid text")
}

struct MyState {
    name: String,
    count: usize,
}

#[test]
fn hello() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        wasm(r#"(module (import "" "" (func $hello)) (func (export "run") (call $hello)))"#),
    )?;
    let mut store = Store::new(
        &engine,
        MyState {
            name: "hello, world!".to_string(),
            count: 0,
        },
    );
    let hello_func = Func::wrap(&mut store, |mut caller: Caller<'_, MyState>| {
        assert_eq!(caller.data().name, "hello, world!");
        caller.data_mut().count += 1;
    });
    let imports = [hello_func.into()];
    let instance = Instance::new(&mut store, &module, &imports)?;
    let run = instance.get_typed_func::<(), ()>(&mut store, "run")?;
    run.call(&mut store, ())?;
    assert_eq!(store.data().count, 1);
    Ok(())
}

#[test]
fn gcd() -> Result<()> {
    let mut store = Store::<()>::default();
    let module = Module::new(
        store.engine(),
        wasm(
            r#"(module
              (func $gcd (param i32 i32) (result i32)
                (local i32)
                block
                  block
                    local.get 0
                    br_if 0
                    local.get 1
                    local.set 2
                    br 1
                  end
                  loop
                    local.get 1
                    local.get 0
                    local.tee 2
                    i32.rem_u
                    local.set 0
                    local.get 2
                    local.set 1
                    local.get 0
                    br_if 0
                  end
                end
                local.get 2)
              (export "gcd" (func $gcd)))"#,
        ),
    )?;
    let instance = Instance::new(&mut store, &module, &[])?;
    let gcd = instance.get_typed_func::<(i32, i32), i32>(&mut store, "gcd")?;
    assert_eq!(gcd.call(&mut store, (6, 27))?, 3);
    Ok(())
}

#[test]
fn memory() -> Result<()> {
    let mut store: Store<()> = Store::default();
    let wasm = wasm(
        r#"(module
          (memory (export "memory") 2 3)
          (func (export "size") (result i32) (memory.size))
          (func (export "load") (param i32) (result i32) (i32.load8_s (local.get 0)))
          (func (export "store") (param i32 i32) (i32.store8 (local.get 0) (local.get 1)))
          (data (i32.const 0x1000) "\01\02\03\04"))"#,
    );
    let module = Module::from_binary(store.engine(), &wasm)?;
    let instance = Instance::new(&mut store, &module, &[])?;
    let memory = instance
        .get_memory(&mut store, "memory")
        .ok_or(format_err!("failed to find `memory` export"))?;
    let size = instance.get_typed_func::<(), i32>(&mut store, "size")?;
    let load_fn = instance.get_typed_func::<i32, i32>(&mut store, "load")?;
    let store_fn = instance.get_typed_func::<(i32, i32), ()>(&mut store, "store")?;

    assert_eq!(memory.size(&store), 2);
    assert_eq!(memory.data_size(&store), 0x20000);
    assert_eq!(memory.data_mut(&mut store)[0], 0);
    assert_eq!(memory.data_mut(&mut store)[0x1000], 1);
    assert_eq!(memory.data_mut(&mut store)[0x1003], 4);
    assert_eq!(size.call(&mut store, ())?, 2);
    assert_eq!(load_fn.call(&mut store, 0)?, 0);
    assert_eq!(load_fn.call(&mut store, 0x1000)?, 1);
    assert!(load_fn.call(&mut store, 0x20000).is_err());

    memory.data_mut(&mut store)[0x1003] = 5;
    store_fn.call(&mut store, (0x1002, 6))?;
    assert!(store_fn.call(&mut store, (0x20000, 0)).is_err());
    assert_eq!(memory.data(&store)[0x1002], 6);
    assert_eq!(memory.data(&store)[0x1003], 5);

    memory.grow(&mut store, 1)?;
    assert_eq!(memory.size(&store), 3);
    assert!(memory.grow(&mut store, 1).is_err());
    assert!(memory.grow(&mut store, 0).is_ok());

    let memorytype = MemoryType::new(5, Some(5));
    let memory2 = Memory::new(&mut store, memorytype)?;
    assert_eq!(memory2.size(&store), 5);
    assert!(memory2.grow(&mut store, 1).is_err());
    Ok(())
}

#[test]
fn linking() -> Result<()> {
    let engine = Engine::default();
    let mut linker = Linker::new(&engine);
    let mut store = Store::new(&engine, ());
    let provider = Module::new(
        &engine,
        wasm(r#"(module (func (export "double") (param i32) (result i32) local.get 0 i32.const 2 i32.mul))"#),
    )?;
    let user = Module::new(
        &engine,
        wasm(
            r#"(module (import "provider" "double" (func $d (param i32) (result i32)))
                   (func (export "run") (result i32) i32.const 21 call $d))"#,
        ),
    )?;
    let provider = linker.instantiate(&mut store, &provider)?;
    linker.instance(&mut store, "provider", provider)?;
    let run = linker
        .instantiate(&mut store, &user)?
        .get_typed_func::<(), i32>(&mut store, "run")?;
    assert_eq!(run.call(&mut store, ())?, 42);
    Ok(())
}

#[test]
fn externref() -> Result<()> {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let module = Module::new(
        &engine,
        wasm(
            r#"(module
          (table $table (export "table") 10 externref)
          (global $global (export "global") (mut externref) (ref.null extern))
          (func (export "func") (param externref) (result externref) local.get 0))"#,
        ),
    )?;
    let instance = Instance::new(&mut store, &module, &[])?;
    let externref = ExternRef::new(&mut store, "Hello, World!")?;
    assert!(externref.data(&store)?.expect("some data").is::<&'static str>());

    let table = instance.get_table(&mut store, "table").unwrap();
    table.set(&mut store, 3, Some(externref).into())?;
    let elem = table
        .get(&mut store, 3)
        .unwrap()
        .as_extern()
        .expect("externref")
        .cloned()
        .expect("not null");
    assert!(Rooted::ref_eq(&store, &elem, &externref)?);

    let global = instance.get_global(&mut store, "global").unwrap();
    global.set(&mut store, Some(externref).into())?;
    let global_val = global
        .get(&mut store)
        .extern_ref()
        .expect("externref")
        .cloned()
        .expect("not null");
    assert!(Rooted::ref_eq(&store, &global_val, &externref)?);

    let func = instance.get_typed_func::<Option<Rooted<ExternRef>>, Option<Rooted<ExternRef>>>(&mut store, "func")?;
    let ret = func.call(&mut store, Some(externref))?;
    assert!(ret.is_some());
    assert!(Rooted::ref_eq(&store, ret.as_ref().unwrap(), &externref)?);
    store.gc(None).unwrap();
    Ok(())
}

/// The reference accessors of Wasmtime's `Val` and `Ref`, under Wasmtime's
/// names: each answers for its own kind and `None`/false for the others.
#[test]
fn reference_accessors() -> Result<()> {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let f = Func::wrap(&mut store, || {});
    let e = ExternRef::new(&mut store, 7u32)?;

    let func = Val::FuncRef(Some(f));
    assert!(func.funcref().is_some_and(|f| f.is_some()));
    assert!(func.externref().is_none() && func.anyref().is_none() && func.exnref().is_none());
    let ext = Val::ExternRef(Some(e));
    assert!(ext.externref().is_some_and(|e| e.is_some()));
    assert!(ext.funcref().is_none());
    assert!(Val::AnyRef(None).anyref().is_some_and(|a| a.is_none()));
    assert_eq!(Val::ExnRef(None).exnref().map(|e| e.is_none()), Some(true));
    assert!(Val::I32(1).funcref().is_none());

    let r = Ref::Func(Some(f));
    assert!(r.is_func() && !r.is_extern() && !r.is_any() && !r.is_exn());
    assert!(r.as_any().is_none() && r.as_exn().is_none());
    let r = Ref::Any(None);
    assert!(r.is_any() && r.as_any().is_some_and(|a| a.is_none()));
    let r = Ref::Exn(None);
    assert!(r.is_exn() && r.as_exn().is_some_and(|e| e.is_none()));
    assert!(Ref::Extern(None).is_extern());
    Ok(())
}
