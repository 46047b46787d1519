//! `SharedMemory`: one memory imported by instances of several stores on
//! several OS threads, with atomics, waits and notifies across them, growth
//! seen by all, and the host's own accesses.

use std::sync::{Arc, Barrier};
use std::time::Duration;
use weft::{
    Config, Engine, Extern, Instance, Linker, Memory, MemoryType, Module, Result, SharedMemory, Store, Trap, WaitResult,
};

fn engine() -> Engine {
    let mut config = Config::new();
    config.shared_memory(true);
    Engine::new(&config).unwrap()
}

/// A module importing `env.mem` (shared, 1 to 4 pages) with atomic helpers.
const USER: &str = r#"(module
    (import "env" "mem" (memory 1 4 shared))
    (func (export "add") (param i32 i32) (result i32)
        (i32.atomic.rmw.add (local.get 0) (local.get 1)))
    (func (export "count") (param $addr i32) (param $n i32)
        (loop $l
            (drop (i32.atomic.rmw.add (local.get $addr) (i32.const 1)))
            (local.set $n (i32.sub (local.get $n) (i32.const 1)))
            (br_if $l (local.get $n))))
    (func (export "load") (param i32) (result i32) (i32.atomic.load (local.get 0)))
    (func (export "store") (param i32 i32) (i32.atomic.store (local.get 0) (local.get 1)))
    (func (export "wait") (param i32 i32 i64) (result i32)
        (memory.atomic.wait32 (local.get 0) (local.get 1) (local.get 2)))
    (func (export "notify") (param i32 i32) (result i32)
        (memory.atomic.notify (local.get 0) (local.get 1)))
    (func (export "size") (result i32) (memory.size))
    (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0))))"#;

fn user_module(engine: &Engine) -> Module {
    Module::new(engine, wat::parse_str(USER).unwrap()).unwrap()
}

/// A store on this thread with an instance of [`USER`] importing `memory`.
fn instantiate(module: &Module, memory: &SharedMemory) -> Result<(Store<()>, Instance)> {
    let mut store = Store::new(module.engine(), ());
    let mut linker = Linker::new(module.engine());
    linker.define(&store, "env", "mem", memory.clone())?;
    let instance = linker.instantiate(&mut store, module)?;
    Ok((store, instance))
}

#[test]
fn shared_memories_are_send_and_sync() {
    fn check<T: Send + Sync + Clone + 'static>() {}
    check::<SharedMemory>();
}

/// A wasm thread blocked in `memory.atomic.wait32` in one store is woken by
/// `memory.atomic.notify` from another store on another thread.
#[test]
fn a_wait_in_one_store_is_woken_by_a_notify_in_another() -> Result<()> {
    let engine = engine();
    let module = user_module(&engine);
    let memory = SharedMemory::new(&engine, MemoryType::shared(1, 4))?;
    let waiter = {
        let (module, memory) = (module.clone(), memory.clone());
        std::thread::spawn(move || -> Result<i32> {
            let (mut store, instance) = instantiate(&module, &memory)?;
            let wait = instance.get_typed_func::<(i32, i32, i64), i32>(&mut store, "wait")?;
            // No timeout: only a notify ends it.
            wait.call(&mut store, (64, 0, -1))
        })
    };
    let (mut store, instance) = instantiate(&module, &memory)?;
    let notify = instance.get_typed_func::<(i32, i32), i32>(&mut store, "notify")?;
    // Notify until the waiter has parked and been woken.
    let mut woken = 0;
    while woken == 0 {
        woken = notify.call(&mut store, (64, 1))?;
        std::thread::yield_now();
    }
    assert_eq!(woken, 1);
    assert_eq!(waiter.join().unwrap()?, 0, "woken by a notify");
    Ok(())
}

/// N threads, each with its own store, increment one counter with
/// `i32.atomic.rmw.add`: no increment is lost.
#[test]
fn atomic_counters_from_many_threads_reach_the_exact_total() -> Result<()> {
    const THREADS: usize = 4;
    const EACH: i32 = 50_000;
    let engine = engine();
    let module = user_module(&engine);
    let memory = SharedMemory::new(&engine, MemoryType::shared(1, 4))?;
    let start = Arc::new(Barrier::new(THREADS));
    let threads: Vec<_> = (0..THREADS)
        .map(|_| {
            let (module, memory, start) = (module.clone(), memory.clone(), start.clone());
            std::thread::spawn(move || -> Result<()> {
                let (mut store, instance) = instantiate(&module, &memory)?;
                let count = instance.get_typed_func::<(i32, i32), ()>(&mut store, "count")?;
                start.wait();
                count.call(&mut store, (128, EACH))
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap()?;
    }
    let (mut store, instance) = instantiate(&module, &memory)?;
    let load = instance.get_typed_func::<i32, i32>(&mut store, "load")?;
    assert_eq!(load.call(&mut store, 128)?, THREADS as i32 * EACH);
    Ok(())
}

/// Growth by the host or by wasm in one store is seen by every store and by
/// the host, and the base does not move (the old contents stay in place).
#[test]
fn growth_is_seen_by_every_store_and_the_host() -> Result<()> {
    let engine = engine();
    let module = user_module(&engine);
    let memory = SharedMemory::new(&engine, MemoryType::shared(1, 4))?;
    let (mut a, ia) = instantiate(&module, &memory)?;
    let (mut b, ib) = instantiate(&module, &memory)?;
    let size_a = ia.get_typed_func::<(), i32>(&mut a, "size")?;
    let size_b = ib.get_typed_func::<(), i32>(&mut b, "size")?;
    let grow_a = ia.get_typed_func::<i32, i32>(&mut a, "grow")?;
    let store_a = ia.get_typed_func::<(i32, i32), ()>(&mut a, "store")?;
    let load_b = ib.get_typed_func::<i32, i32>(&mut b, "load")?;
    store_a.call(&mut a, (16, 77))?;
    let before = memory.data().as_ptr();

    assert_eq!(memory.grow(1)?, 1, "the host grows it");
    assert_eq!((size_a.call(&mut a, ())?, size_b.call(&mut b, ())?), (2, 2));
    assert_eq!(grow_a.call(&mut a, 1)?, 2, "wasm grows it in store a");
    assert_eq!(size_b.call(&mut b, ())?, 3, "store b sees it");
    assert_eq!(memory.size(), 3);
    assert_eq!(memory.data_size(), 3 * 65536);
    assert_eq!(memory.data().len(), 3 * 65536);
    assert_eq!(memory.ty().minimum(), 1, "the type it was made with, as in Wasmtime");
    // The new page is usable from the other store, on another thread too.
    store_a.call(&mut a, (2 * 65536 + 8, 5))?;
    assert_eq!(load_b.call(&mut b, 2 * 65536 + 8)?, 5);
    let (module2, memory2) = (module.clone(), memory.clone());
    let seen = std::thread::spawn(move || -> Result<(i32, i32)> {
        let (mut c, ic) = instantiate(&module2, &memory2)?;
        let load = ic.get_typed_func::<i32, i32>(&mut c, "load")?;
        Ok((load.call(&mut c, 16)?, load.call(&mut c, 2 * 65536 + 8)?))
    })
    .join()
    .unwrap()?;
    assert_eq!(seen, (77, 5));
    assert_eq!(memory.data().as_ptr(), before, "a shared memory never moves");

    // Past the maximum: wasm sees -1, the host an error; nothing changes.
    assert_eq!(grow_a.call(&mut a, 2)?, -1);
    let err = memory.grow(2).unwrap_err();
    assert!(format!("{err}").contains("at most 4"), "{err}");
    assert_eq!(memory.grow(1)?, 3);
    assert_eq!(size_b.call(&mut b, ())?, 4);
    Ok(())
}

/// The host's own waits and notifies meet wasm's, across threads; waits
/// time out or see another value; bad addresses trap.
#[test]
fn host_waits_and_notifies_meet_wasm() -> Result<()> {
    let engine = engine();
    let module = user_module(&engine);
    let memory = SharedMemory::new(&engine, MemoryType::shared(1, 4))?;
    assert_eq!(memory.page_size(), 65536);

    assert_eq!(memory.atomic_wait32(0, 1, None)?, WaitResult::Mismatch);
    assert_eq!(
        memory.atomic_wait64(8, 0, Some(Duration::from_millis(1)))?,
        WaitResult::TimedOut
    );
    assert_eq!(memory.atomic_notify(0, 1)?, 0);
    assert_eq!(memory.atomic_wait32(2, 0, None), Err(Trap::HeapMisaligned));
    assert_eq!(memory.atomic_wait64(4, 0, None), Err(Trap::HeapMisaligned));
    assert_eq!(memory.atomic_notify(65536, 1), Err(Trap::MemoryOutOfBounds));
    assert_eq!(memory.atomic_wait32(65536 - 2, 0, None), Err(Trap::HeapMisaligned));
    assert_eq!(memory.atomic_wait64(65536, 0, None), Err(Trap::MemoryOutOfBounds));

    // The host waits; wasm on another thread notifies.
    let notifier = {
        let (module, memory) = (module.clone(), memory.clone());
        std::thread::spawn(move || -> Result<()> {
            let (mut store, instance) = instantiate(&module, &memory)?;
            let notify = instance.get_typed_func::<(i32, i32), i32>(&mut store, "notify")?;
            while notify.call(&mut store, (32, 1))? == 0 {
                std::thread::yield_now();
            }
            Ok(())
        })
    };
    assert_eq!(memory.atomic_wait32(32, 0, None)?, WaitResult::Ok);
    notifier.join().unwrap()?;

    // Wasm waits with a timeout that passes, then one the host's notify
    // cuts short.
    let (mut store, instance) = instantiate(&module, &memory)?;
    let wait = instance.get_typed_func::<(i32, i32, i64), i32>(&mut store, "wait")?;
    assert_eq!(wait.call(&mut store, (40, 0, 1_000_000))?, 2, "timed out");
    let waiter = {
        let (module, memory) = (module.clone(), memory.clone());
        std::thread::spawn(move || -> Result<i32> {
            let (mut store, instance) = instantiate(&module, &memory)?;
            let wait = instance.get_typed_func::<(i32, i32, i64), i32>(&mut store, "wait")?;
            wait.call(&mut store, (40, 0, 60_000_000_000))
        })
    };
    while memory.atomic_notify(40, 1)? == 0 {
        std::thread::yield_now();
    }
    assert_eq!(waiter.join().unwrap()?, 0);
    Ok(())
}

/// A shared memory defined by a module is exported as a `SharedMemory`
/// (not a `Memory`), and instances of other stores can import it.
#[test]
fn exported_shared_memories_are_shared_memories() -> Result<()> {
    let engine = engine();
    let definer = Module::new(
        &engine,
        wat::parse_str(r#"(module (memory (export "mem") 1 4 shared) (data (i32.const 16) "\2a"))"#)?,
    )?;
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &definer, &[])?;
    assert!(instance.get_memory(&mut store, "mem").is_none());
    let export = instance.get_export(&mut store, "mem").unwrap();
    assert!(matches!(export, Extern::SharedMemory(_)));
    assert_eq!(export.ty(&store).memory().unwrap().to_string(), "(memory 1 4 shared)");
    let memory = instance.get_shared_memory(&mut store, "mem").unwrap();
    assert_eq!(memory.size(), 1);

    let module = user_module(&engine);
    let (mut other, user) = instantiate(&module, &memory)?;
    let load = user.get_typed_func::<i32, i32>(&mut other, "load")?;
    assert_eq!(load.call(&mut other, 16)?, 42, "the definer's data segment");
    // Importing it back into its own store uses the same memory.
    let again = Instance::new(&mut store, &module, &[memory.clone().into()])?;
    let add = again.get_typed_func::<(i32, i32), i32>(&mut store, "add")?;
    assert_eq!(add.call(&mut store, (16, 1))?, 42);
    assert_eq!(load.call(&mut other, 16)?, 43);
    Ok(())
}

/// What is refused: unshared types, missing proposals, another engine,
/// imports of the wrong sharedness or limits, and `Memory::new` of a shared
/// type.
#[test]
fn mismatches_are_errors() -> Result<()> {
    let engine = engine();
    let err = SharedMemory::new(&engine, MemoryType::new(1, Some(2))).unwrap_err();
    assert!(format!("{err}").contains("shared"), "{err}");
    let err = SharedMemory::new(&Engine::default(), MemoryType::shared(1, 2)).unwrap_err();
    assert!(format!("{err}").contains("Config::shared_memory"), "{err}");
    let mut no_threads = Config::new();
    no_threads.wasm_threads(false).shared_memory(true);
    let err = SharedMemory::new(&Engine::new(&no_threads)?, MemoryType::shared(1, 2)).unwrap_err();
    assert!(format!("{err}").contains("wasm_threads"), "{err}");
    let mut store = Store::new(&engine, ());
    let err = Memory::new(&mut store, MemoryType::shared(1, 2)).unwrap_err();
    assert!(format!("{err}").contains("SharedMemory"), "{err}");

    let module = user_module(&engine);
    // Another engine's memory.
    let other = SharedMemory::new(&self::engine(), MemoryType::shared(1, 4))?;
    let err = Instance::new(&mut store, &module, &[other.into()]).unwrap_err();
    assert!(format!("{err:#}").contains("different engine"), "{err:#}");
    // Limits: a maximum larger than the import allows.
    let big = SharedMemory::new(&engine, MemoryType::shared(1, 8))?;
    let err = Instance::new(&mut store, &module, &[big.into()]).unwrap_err();
    assert!(format!("{err:#}").contains("incompatible import type"), "{err:#}");
    // A module importing an unshared memory gets no shared one.
    let unshared = Module::new(
        &engine,
        wat::parse_str(r#"(module (import "env" "mem" (memory 1 4)))"#)?,
    )?;
    let fits = SharedMemory::new(&engine, MemoryType::shared(1, 4))?;
    let err = Instance::new(&mut store, &unshared, &[fits.clone().into()]).unwrap_err();
    assert!(format!("{err:#}").contains("incompatible import type"), "{err:#}");
    // And a shared import gets no unshared memory.
    let plain = Memory::new(&mut store, MemoryType::new(1, Some(4)))?;
    let err = Instance::new(&mut store, &module, &[plain.into()]).unwrap_err();
    assert!(format!("{err:#}").contains("incompatible import type"), "{err:#}");
    Instance::new(&mut store, &module, &[fits.into()])?;
    Ok(())
}
