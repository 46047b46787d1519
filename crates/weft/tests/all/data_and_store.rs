//! `Memory::data_and_store_mut`: guest memory and host data borrowed at once
//! from inside a host function, and from a store of another id.

use weft::*;

#[test]
fn host_function_reads_memory_and_writes_its_data() -> Result<()> {
    let engine = Engine::default();
    let mut store = Store::new(&engine, Vec::<u8>::new());
    let mut linker = Linker::new(&engine);
    linker.func_wrap(
        "host",
        "take",
        |mut caller: Caller<'_, Vec<u8>>, ptr: i32, len: i32| -> Result<()> {
            let memory = caller
                .get_export("memory")
                .and_then(Extern::into_memory)
                .expect("memory");
            let (bytes, data) = memory.data_and_store_mut(&mut caller);
            let range = ptr as usize..(ptr + len) as usize;
            data.extend_from_slice(&bytes[range.clone()]);
            bytes[range].fill(b'x');
            Ok(())
        },
    )?;
    let module = Module::new(
        &engine,
        wat::parse_str(
            r#"(module (import "host" "take" (func $take (param i32 i32)))
            (memory (export "memory") 1) (data (i32.const 8) "hello")
            (func (export "run") (call $take (i32.const 8) (i32.const 5))))"#,
        )?,
    )?;
    let instance = linker.instantiate(&mut store, &module)?;
    instance
        .get_typed_func::<(), ()>(&mut store, "run")?
        .call(&mut store, ())?;
    assert_eq!(store.data().as_slice(), b"hello");
    let memory = instance.get_memory(&mut store, "memory").unwrap();
    assert_eq!(&memory.data(&store)[8..13], b"xxxxx");
    Ok(())
}

#[test]
fn memory_of_another_store_is_empty() -> Result<()> {
    let engine = Engine::default();
    let mut a = Store::new(&engine, 1u32);
    let mut b = Store::new(&engine, 2u32);
    let memory = Memory::new(&mut a, MemoryType::new(1, None))?;
    let (bytes, data) = memory.data_and_store_mut(&mut b);
    assert!(bytes.is_empty());
    assert_eq!(*data, 2);
    let (bytes, data) = memory.data_and_store_mut(&mut a);
    assert_eq!(bytes.len(), 65536);
    assert_eq!(*data, 1);
    Ok(())
}

#[test]
fn a_typed_func_called_with_another_store_is_refused() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        wat::parse_str(
            r#"(module (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1))))"#,
        )?,
    )?;
    let mut a = Store::new(&engine, 1u32);
    let mut b = Store::new(&engine, 2u32);
    let add = Instance::new(&mut a, &module, &[])?.get_typed_func::<(i32, i32), i32>(&mut a, "add")?;
    assert_eq!(add.call(&mut a, (2, 3))?, 5);
    // Another store of the same type, with an instance at the same index.
    Instance::new(&mut b, &module, &[])?;
    let err = add.call(&mut b, (2, 3)).unwrap_err();
    assert!(format!("{err:?}").contains("store"), "{err:?}");
    // The view still works in its own store, and so does a host function's.
    assert_eq!(add.call(&mut a, (4, 5))?, 9);
    let host = Func::wrap(&mut a, |x: i32| x * 2).typed::<i32, i32>(&a)?;
    assert_eq!(host.call(&mut a, 21)?, 42);
    assert!(host.call(&mut b, 21).is_err());
    Ok(())
}
