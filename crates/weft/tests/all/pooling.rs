//! The pooling allocator: limits enforced with errors naming them, memory
//! slots reserved once and reused after a store drops, and reset between
//! uses.

#![allow(
    unsafe_code,
    reason = "one test calls the unsafe Module::deserialize on Weft's own output"
)]

use weft::*;

fn engine(f: impl FnOnce(&mut PoolingAllocationConfig)) -> Result<Engine> {
    let mut pool = PoolingAllocationConfig::new();
    f(&mut pool);
    let mut config = Config::new();
    config.allocation_strategy(pool);
    Engine::new(&config)
}

const MODULE: &str = r#"(module
  (memory (export "mem") 1)
  (data (i32.const 200) "\2a")
  (table 1 funcref)
  (func (export "peek") (param i32) (result i32) (i32.load8_u (local.get 0)))
  (func (export "poke") (param i32 i32) (i32.store8 (local.get 0) (local.get 1)))
  (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0))))"#;

fn instance(engine: &Engine, module: &Module) -> Result<(Store<()>, Instance)> {
    let mut store = Store::new(engine, ());
    let instance = Instance::new(&mut store, module, &[])?;
    Ok((store, instance))
}

#[test]
fn totals_are_enforced_and_given_back_when_stores_drop() -> Result<()> {
    let engine = engine(|p| {
        p.total_core_instances(2).total_memories(2).total_tables(2);
    })?;
    let module = Module::new(&engine, wat::parse_str(MODULE)?)?;
    let a = instance(&engine, &module)?;
    let b = instance(&engine, &module)?;
    let Err(err) = instance(&engine, &module) else {
        panic!("a third instance is refused")
    };
    assert!(format!("{err:#}").contains("total_core_instances"), "{err:#}");
    drop(a);
    // The first store's instance, memory and table are back in the pool.
    let c = instance(&engine, &module)?;
    drop((b, c));

    // Memories made by the host count too.
    let engine = self::engine(|p| {
        p.total_memories(1);
    })?;
    let mut store = Store::new(&engine, ());
    Memory::new(&mut store, MemoryType::new(1, None))?;
    let err = Memory::new(&mut store, MemoryType::new(1, None)).unwrap_err();
    assert!(format!("{err:#}").contains("total_memories"), "{err:#}");
    drop(store);
    let mut store = Store::new(&engine, ());
    Memory::new(&mut store, MemoryType::new(1, None))?;

    // And tables.
    let engine = self::engine(|p| {
        p.total_tables(1).table_elements(4);
    })?;
    let mut store = Store::new(&engine, ());
    let ty = TableType::new(RefType::FUNCREF, 1, None);
    let t = Table::new(&mut store, ty.clone(), Ref::Func(None))?;
    assert!(t.grow(&mut store, 3, Ref::Func(None)).is_ok());
    assert!(
        t.grow(&mut store, 1, Ref::Func(None)).is_err(),
        "table_elements caps growth"
    );
    let err = Table::new(&mut store, ty, Ref::Func(None)).unwrap_err();
    assert!(format!("{err:#}").contains("total_tables"), "{err:#}");
    drop(store);
    let mut store = Store::new(&engine, ());
    let err = Table::new(&mut store, TableType::new(RefType::FUNCREF, 5, None), Ref::Func(None)).unwrap_err();
    assert!(format!("{err:#}").contains("table_elements"), "{err:#}");
    Table::new(&mut store, TableType::new(RefType::FUNCREF, 2, None), Ref::Func(None))?;
    Ok(())
}

#[test]
fn per_module_limits_are_enforced() -> Result<()> {
    let engine = engine(|p| {
        p.max_memory_size(2 << 16).table_elements(5);
    })?;
    // As in Wasmtime, a module past a per-module limit is refused when it is
    // made, naming the limit.
    for (wat, limit) in [
        ("(module (memory 1) (memory 1))", "max_memories_per_module"),
        ("(module (table 1 funcref) (table 1 funcref))", "max_tables_per_module"),
        ("(module (memory 3))", "max_memory_size"),
        ("(module (table 6 funcref))", "table_elements"),
    ] {
        let err = Module::new(&engine, wat::parse_str(wat)?).unwrap_err();
        let message = format!("{err:#}");
        assert!(
            message.contains(limit) && message.contains("pooling"),
            "{wat}: {message}"
        );
    }
    // So is a precompiled one.
    let plain = Engine::default();
    let bytes = Module::new(&plain, wat::parse_str("(module (table 6 funcref))")?)?.serialize()?;
    // SAFETY: the bytes were made by `serialize` just above.
    let err = unsafe { Module::deserialize(&engine, &bytes) }.unwrap_err();
    assert!(format!("{err:#}").contains("table_elements"), "{err:#}");

    // Growth stops at the limits.
    let module = Module::new(&engine, wat::parse_str(MODULE)?)?;
    let (mut store, inst) = instance(&engine, &module)?;
    let grow = inst.get_typed_func::<i32, i32>(&mut store, "grow")?;
    assert_eq!(grow.call(&mut store, 1)?, 1);
    assert_eq!(grow.call(&mut store, 1)?, -1);
    let mem = inst.get_memory(&mut store, "mem").unwrap();
    assert!(mem.grow(&mut store, 1).is_err());
    Ok(())
}

#[test]
fn slots_are_reused_and_reset() -> Result<()> {
    let engine = engine(|p| {
        p.total_memories(1);
    })?;
    let module = Module::new(&engine, wat::parse_str(MODULE)?)?;
    let (mut store, inst) = instance(&engine, &module)?;
    let poke = inst.get_typed_func::<(i32, i32), ()>(&mut store, "poke")?;
    let grow = inst.get_typed_func::<i32, i32>(&mut store, "grow")?;
    poke.call(&mut store, (100, 42))?;
    poke.call(&mut store, (200, 7))?;
    assert_eq!(grow.call(&mut store, 1)?, 1);
    poke.call(&mut store, (70000, 43))?;
    let base = inst.get_memory(&mut store, "mem").unwrap().data_ptr(&store) as usize;
    drop(store);

    // The same slot, zeroed, back to one page.
    let (mut store, inst) = instance(&engine, &module)?;
    let mem = inst.get_memory(&mut store, "mem").unwrap();
    assert_eq!(mem.data_ptr(&store) as usize, base, "the slot is reused");
    assert_eq!(mem.data_size(&store), 65536);
    let peek = inst.get_typed_func::<i32, i32>(&mut store, "peek")?;
    assert_eq!(peek.call(&mut store, 100)?, 0, "the slot was reset");
    assert_eq!(peek.call(&mut store, 200)?, 42, "the data segment is there again");
    let trap = peek.call(&mut store, 70000).unwrap_err();
    assert_eq!(trap.downcast_ref::<Trap>(), Some(&Trap::MemoryOutOfBounds));
    let grow = inst.get_typed_func::<i32, i32>(&mut store, "grow")?;
    assert_eq!(grow.call(&mut store, 1)?, 1);
    assert_eq!(peek.call(&mut store, 70000)?, 0, "grown pages were reset too");
    Ok(())
}

#[test]
fn on_demand_is_the_default() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(&engine, wat::parse_str(MODULE)?)?;
    let stores = (0..3).map(|_| instance(&engine, &module)).collect::<Result<Vec<_>>>()?;
    assert_eq!(stores.len(), 3);
    let mut config = Config::new();
    config.allocation_strategy(InstanceAllocationStrategy::OnDemand);
    config.allocation_strategy(InstanceAllocationStrategy::pooling());
    Engine::new(&config)?;
    Ok(())
}

/// Polls `future` to completion on this thread.
#[cfg(feature = "async")]
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

#[cfg(feature = "async")]
#[test]
fn total_stacks_limits_async_calls() -> Result<()> {
    let engine = engine(|p| {
        p.total_stacks(1);
    })?;
    let module = Module::new(&engine, wat::parse_str(MODULE)?)?;
    let mut store = Store::new(&engine, ());
    let inst = block_on(Instance::new_async(&mut store, &module, &[]))?;
    assert_eq!(engine.async_stacks_in_use(), 0);
    assert!(inst.get_memory(&mut store, "mem").is_some());
    // As in Wasmtime, the store keeps its stack for its next async call:
    // another store finds none left until the first is dropped.
    let mut other = Store::new(&engine, ());
    let Err(err) = block_on(Instance::new_async(&mut other, &module, &[])) else {
        panic!("a second stack was lent past `total_stacks`")
    };
    assert!(format!("{err:#}").contains("total_stacks"), "{err:#}");
    block_on(Instance::new_async(&mut store, &module, &[]))?;
    drop(store);
    block_on(Instance::new_async(&mut other, &module, &[]))?;

    let engine = self::engine(|p| {
        p.total_stacks(0);
    })?;
    let module = Module::new(&engine, wat::parse_str(MODULE)?)?;
    let mut store = Store::new(&engine, ());
    let Err(err) = block_on(Instance::new_async(&mut store, &module, &[])) else {
        panic!("no stack is left for the instantiation")
    };
    assert!(format!("{err:#}").contains("total_stacks"), "{err:#}");
    Ok(())
}

#[cfg(feature = "component-model")]
#[test]
fn total_component_instances_is_enforced() -> Result<()> {
    use weft::component::{Component, Linker};
    let engine = engine(|p| {
        p.total_component_instances(1);
    })?;
    let component = Component::new(&engine, wat::parse_str("(component)")?)?;
    let linker = Linker::<()>::new(&engine);
    let mut store = Store::new(&engine, ());
    linker.instantiate(&mut store, &component)?;
    let err = linker.instantiate(&mut store, &component).unwrap_err();
    assert!(format!("{err:#}").contains("total_component_instances"), "{err:#}");
    drop(store);
    let mut store = Store::new(&engine, ());
    linker.instantiate(&mut store, &component)?;
    Ok(())
}
