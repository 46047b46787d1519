//! The mark-sweep collector through the public API: `Store::gc` frees
//! unreachable objects (cycles included) and extern references (their host
//! data is dropped), and keeps what globals, tables and the host's rooted
//! handles reach.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use weft::*;

fn gc_engine() -> Engine {
    let mut config = Config::new();
    config.wasm_gc(true);
    Engine::new(&config).unwrap()
}

fn module(engine: &Engine, wat: &str) -> Module {
    Module::new(engine, wat::parse_str(wat).unwrap()).unwrap()
}

const RING: &str = r#"(module
    (type $node (struct (field $next (mut (ref null $node))) (field $v i64)))
    (global $keep (export "keep") (mut (ref null $node)) (ref.null $node))
    (table $t (export "t") 2 (ref null $node))
    ;; A ring of $n nodes; returns the sum of the values around it once.
    (func $ring (param $n i32) (result (ref $node))
        (local $first (ref $node)) (local $cur (ref $node)) (local $i i32)
        (local.set $first (struct.new $node (ref.null $node) (i64.const 0)))
        (local.set $cur (local.get $first))
        (local.set $i (i32.const 1))
        (block $done (loop $l
            (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
            (local.set $cur (struct.new $node (local.get $cur) (i64.extend_i32_u (local.get $i))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $l)))
        ;; Close the ring: the first node points at the last.
        (struct.set $node $next (local.get $first) (local.get $cur))
        (local.get $first))
    (func (export "build") (param $n i32)
        (drop (call $ring (local.get $n))))
    (func (export "keep_global") (param $n i32)
        (global.set $keep (call $ring (local.get $n))))
    (func (export "keep_table") (param $n i32)
        (table.set $t (i32.const 1) (call $ring (local.get $n))))
    (func (export "clear")
        (global.set $keep (ref.null $node))
        (table.set $t (i32.const 1) (ref.null $node)))
    ;; The sum of the values of the ring at $r, walking $n nodes.
    (func $sum (param $r (ref null $node)) (param $n i32) (result i64)
        (local $acc i64)
        (block $done (loop $l
            (br_if $done (i32.eqz (local.get $n)))
            (local.set $acc (i64.add (local.get $acc) (struct.get $node $v (local.get $r))))
            (local.set $r (struct.get $node $next (local.get $r)))
            (local.set $n (i32.sub (local.get $n) (i32.const 1)))
            (br $l)))
        (local.get $acc))
    (func (export "sum_global") (param $n i32) (result i64)
        (call $sum (global.get $keep) (local.get $n)))
    (func (export "sum_table") (param $n i32) (result i64)
        (call $sum (table.get $t (i32.const 1)) (local.get $n)))
    (func (export "sum_any") (param $r anyref) (param $n i32) (result i64)
        (call $sum (ref.cast (ref null $node) (local.get $r)) (local.get $n)))
    (func (export "make") (param $n i32) (result anyref)
        (call $ring (local.get $n)))
    ;; Builds $rounds rings of $n nodes, dropping each, while a first ring
    ;; stays in a local and the latest one on the operand stack; returns
    ;; the sums of both (checked by the host).
    (func (export "churn") (param $rounds i32) (param $n i32) (result i64 i64)
        (local $kept (ref null $node))
        (local.set $kept (call $ring (i32.const 100)))
        (call $ring (local.get $n))
        (block $done (loop $l
            (br_if $done (i32.eqz (local.get $rounds)))
            (drop (call $ring (local.get $n)))
            (local.set $rounds (i32.sub (local.get $rounds) (i32.const 1)))
            (br $l)))
        (call $sum (local.get $n))
        (call $sum (local.get $kept) (i32.const 100))))"#;

/// Rings of 1,000 structs rebuilt 1,000 times (a million structs, each
/// ring a cycle) with a collection after each: the heap's live bytes and
/// its capacity stay under a fixed bound.
#[test]
fn a_ring_rebuilt_in_a_loop_runs_in_bounded_memory() -> Result<()> {
    let engine = gc_engine();
    let m = module(&engine, RING);
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &m, &[])?;
    let build = instance.get_typed_func::<i32, ()>(&mut store, "build")?;
    let mut peak_capacity = 0;
    for _ in 0..1000 {
        build.call(&mut store, 1000)?;
        store.gc(None)?;
        let (live, capacity, _) = store.gc_heap_stats().expect("the heap exists");
        assert_eq!(live, 0, "a dropped ring is freed, cycle and all");
        peak_capacity = peak_capacity.max(capacity);
    }
    // A ring is 1,000 objects of 24 bytes: the heap never needs to grow.
    assert!(peak_capacity <= 1 << 20, "capacity grew to {peak_capacity}");
    let (_, _, collections) = store.gc_heap_stats().unwrap();
    assert!(collections >= 1000);
    Ok(())
}

/// The same churn inside one call: collections start from allocations in
/// wasm, whose frames' references (a local, an operand) survive them, and
/// the heap stays bounded.
#[test]
fn allocation_pressure_collects_and_wasm_frames_keep_their_references() -> Result<()> {
    let engine = gc_engine();
    let m = module(&engine, RING);
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &m, &[])?;
    let churn = instance.get_typed_func::<(i32, i32), (i64, i64)>(&mut store, "churn")?;
    let (latest, kept) = churn.call(&mut store, (1000, 1000))?;
    assert_eq!(latest, (0..1000).sum::<i64>());
    assert_eq!(kept, (0..100).sum::<i64>());
    let (_, capacity, collections) = store.gc_heap_stats().unwrap();
    assert!(collections >= 10, "only {collections} collections");
    assert!(capacity <= 1 << 20, "capacity grew to {capacity}");
    Ok(())
}

#[test]
fn objects_reachable_from_globals_tables_and_host_roots_survive() -> Result<()> {
    let engine = gc_engine();
    let m = module(&engine, RING);
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &m, &[])?;
    let run = |store: &mut Store<()>, name: &str, n: i32| -> Result<()> {
        instance.get_typed_func::<i32, ()>(&mut *store, name)?.call(store, n)
    };
    run(&mut store, "keep_global", 100)?;
    run(&mut store, "keep_table", 50)?;
    let make = instance.get_func(&mut store, "make").unwrap();
    let mut out = [Val::I32(0)];
    make.call(&mut store, &[Val::I32(10)], &mut out)?;
    let Val::AnyRef(Some(held)) = out[0] else {
        panic!("make returns a struct")
    };
    // Garbage beside them.
    run(&mut store, "build", 1000)?;
    store.gc(None)?;
    let (live, _, _) = store.gc_heap_stats().unwrap();
    assert_eq!(live, (100 + 50 + 10) * 24, "only the three kept rings are left");
    let sum_global = instance.get_typed_func::<i32, i64>(&mut store, "sum_global")?;
    let sum_table = instance.get_typed_func::<i32, i64>(&mut store, "sum_table")?;
    // Walking twice around each ring reads every node.
    assert_eq!(sum_global.call(&mut store, 200)?, 2 * (0..100).sum::<i64>());
    assert_eq!(sum_table.call(&mut store, 100)?, 2 * (0..50).sum::<i64>());
    let sum_any = instance.get_func(&mut store, "sum_any").unwrap();
    let mut sum = [Val::I64(0)];
    sum_any.call(&mut store, &[Val::AnyRef(Some(held)), Val::I32(20)], &mut sum)?;
    assert_eq!(sum[0].i64(), Some(2 * (0..10).sum::<i64>()));
    // Once nothing refers to them, they go too (the host handle was made
    // in the store's own scope, so it still roots its ring).
    instance
        .get_typed_func::<(), ()>(&mut store, "clear")?
        .call(&mut store, ())?;
    store.gc(None)?;
    assert_eq!(store.gc_heap_stats().unwrap().0, 10 * 24);
    Ok(())
}

#[test]
fn a_root_scope_releases_its_handles() -> Result<()> {
    let engine = gc_engine();
    let m = module(&engine, RING);
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &m, &[])?;
    let make = instance.get_func(&mut store, "make").unwrap();
    let held = {
        let mut scope = RootScope::new(&mut store);
        let mut out = [Val::I32(0)];
        make.call(&mut scope, &[Val::I32(10)], &mut out)?;
        let Val::AnyRef(Some(held)) = out[0] else {
            panic!("make returns a struct")
        };
        scope.as_context_mut().gc(None)?;
        assert!(held.is_struct(&scope)?, "rooted inside its scope");
        held
    };
    store.gc(None)?;
    assert_eq!(store.gc_heap_stats().unwrap().0, 0, "freed once its scope ended");
    // The stale handle is refused, not followed.
    assert!(held.is_struct(&store).is_err());
    Ok(())
}

struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn gc_frees_unreachable_externrefs_and_drops_their_data() -> Result<()> {
    let engine = Engine::default();
    let m = module(
        &engine,
        r#"(module
            (global $g (export "g") (mut externref) (ref.null extern))
            (func (export "set") (param externref) (global.set $g (local.get 0)))
            (func (export "clear") (global.set $g (ref.null extern))))"#,
    );
    let drops = Arc::new(AtomicUsize::new(0));
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &m, &[])?;
    let set = instance.get_typed_func::<Option<Rooted<ExternRef>>, ()>(&mut store, "set")?;
    let clear = instance.get_typed_func::<(), ()>(&mut store, "clear")?;
    {
        let mut scope = RootScope::new(&mut store);
        let kept = ExternRef::new(&mut scope, Counted(drops.clone()))?;
        let _lost = ExternRef::new(&mut scope, Counted(drops.clone()))?;
        set.call(&mut scope, Some(kept))?;
    }
    assert_eq!(store.live_externrefs(), 2);
    store.gc(None)?;
    assert_eq!(drops.load(Ordering::SeqCst), 1, "the unreachable one is dropped");
    assert_eq!(store.live_externrefs(), 1, "the global keeps the other");
    clear.call(&mut store, ())?;
    store.gc(None)?;
    assert_eq!(drops.load(Ordering::SeqCst), 2);
    assert_eq!(store.live_externrefs(), 0);
    // Many references made and dropped in scopes do not accumulate.
    for _ in 0..100 {
        let mut scope = RootScope::new(&mut store);
        for _ in 0..100 {
            ExternRef::new(&mut scope, Counted(drops.clone()))?;
        }
    }
    store.gc(None)?;
    assert_eq!(drops.load(Ordering::SeqCst), 10_002);
    assert_eq!(store.live_externrefs(), 0);
    Ok(())
}

#[test]
fn owned_handles_root_until_dropped() -> Result<()> {
    let engine = gc_engine();
    let m = module(&engine, RING);
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &m, &[])?;
    let make = instance.get_func(&mut store, "make").unwrap();
    let drops = Arc::new(AtomicUsize::new(0));
    let (owned, owned_extern) = {
        let mut scope = RootScope::new(&mut store);
        let mut out = [Val::I32(0)];
        make.call(&mut scope, &[Val::I32(10)], &mut out)?;
        let Val::AnyRef(Some(held)) = out[0] else {
            panic!("make returns a struct")
        };
        let e = ExternRef::new(&mut scope, Counted(drops.clone()))?;
        (held.to_owned_rooted(&mut scope)?, e.to_owned_rooted(&mut scope)?)
    };
    store.gc(None)?;
    assert_eq!(
        store.gc_heap_stats().unwrap().0,
        10 * 24,
        "the owned handle roots its ring"
    );
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    let again = owned.to_rooted(&mut store)?;
    assert!(again.is_struct(&store)?);
    let copy = owned.clone();
    drop(owned);
    store.gc(None)?;
    assert_eq!(store.gc_heap_stats().unwrap().0, 10 * 24, "a clone still roots it");
    drop(copy);
    drop(owned_extern);
    {
        // `again` was made in the store's own scope: end it with a scope
        // of its own to test the owned roots alone.
        let mut scope = RootScope::new(&mut store);
        scope.as_context_mut().gc(None)?;
    }
    assert_eq!(
        drops.load(Ordering::SeqCst),
        1,
        "the extern reference goes with its owned handle"
    );
    Ok(())
}

/// Records the GC heap's growth requests and refuses past a size.
struct Limiter {
    max: usize,
    asked: Vec<(usize, usize)>,
}

impl ResourceLimiter for Limiter {
    fn memory_growing(&mut self, current: usize, desired: usize, _maximum: Option<usize>) -> Result<bool> {
        self.asked.push((current, desired));
        Ok(desired <= self.max)
    }
    fn table_growing(&mut self, _current: usize, _desired: usize, _maximum: Option<usize>) -> Result<bool> {
        Ok(true)
    }
}

/// Heap growth asks the store's `ResourceLimiter` (`memory_growing`, as in
/// Wasmtime); refused, the allocation traps and the store stays usable.
#[test]
fn heap_growth_asks_the_resource_limiter() -> Result<()> {
    let engine = gc_engine();
    let m = module(
        &engine,
        r#"(module
            (type $node (struct (field (ref null $node)) (field i64)))
            (global $keep (mut (ref null $node)) (ref.null $node))
            (func (export "grow") (param $n i32)
                (block $done (loop $l
                    (br_if $done (i32.eqz (local.get $n)))
                    (global.set $keep (struct.new $node (global.get $keep) (i64.const 1)))
                    (local.set $n (i32.sub (local.get $n) (i32.const 1)))
                    (br $l))))
            (func (export "clear") (global.set $keep (ref.null $node))))"#,
    );
    let mut store = Store::new(
        &engine,
        Limiter {
            max: 1 << 19,
            asked: Vec::new(),
        },
    );
    store.limiter(|l| l as &mut dyn ResourceLimiter);
    let instance = Instance::new(&mut store, &m, &[])?;
    let grow = instance.get_typed_func::<i32, ()>(&mut store, "grow")?;
    // 100,000 reachable nodes of 24 bytes do not fit in 512 KiB.
    let err = grow.call(&mut store, 100_000).unwrap_err();
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::AllocationTooLarge), "{err:#}");
    // Allowed from 256 KiB to 512 KiB, then refused (after the collection
    // that could not free anything, and for the allocation itself).
    let asked = &store.data().asked;
    assert_eq!(asked[0], (1 << 18, 1 << 19));
    assert!(
        asked.len() >= 2 && asked[1..].iter().all(|a| *a == (1 << 19, 1 << 20)),
        "{asked:?}"
    );
    let (_, capacity, _) = store.gc_heap_stats().unwrap();
    assert_eq!(capacity, 1 << 19);
    // Freed, the same work fits again.
    instance
        .get_typed_func::<(), ()>(&mut store, "clear")?
        .call(&mut store, ())?;
    store.gc(None)?;
    grow.call(&mut store, 10_000)?;
    Ok(())
}

/// With `Collector::Null` nothing is freed: the same churn fills the heap
/// to its limit, where allocation traps instead.
#[test]
fn the_null_collector_frees_nothing() -> Result<()> {
    let mut config = Config::new();
    config.wasm_gc(true).collector(Collector::Null);
    let engine = Engine::new(&config)?;
    let m = module(&engine, RING);
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &m, &[])?;
    let build = instance.get_typed_func::<i32, ()>(&mut store, "build")?;
    for _ in 0..10 {
        build.call(&mut store, 1000)?;
        store.gc(None)?;
    }
    let (live, _, collections) = store.gc_heap_stats().unwrap();
    assert_eq!(live, 10 * 1000 * 24);
    assert_eq!(collections, 0);
    Ok(())
}

/// A collection from an epoch deadline callback walks the interrupted wasm
/// frames (the epoch builtin records the exit): the reference only a local
/// of the interrupted function holds survives, an unreachable one is freed.
#[test]
fn gc_in_an_epoch_callback_keeps_the_interrupted_frames_references() -> Result<()> {
    let mut config = Config::new();
    config.epoch_interruption(true);
    let engine = Engine::new(&config)?;
    let m = module(
        &engine,
        r#"(module
            (global $g (export "g") (mut externref) (ref.null extern))
            (global $stop (export "stop") (mut i32) (i32.const 0))
            (func (export "set") (param externref) (global.set $g (local.get 0)))
            (func (export "run") (local $r externref)
                (local.set $r (global.get $g))
                (global.set $g (ref.null extern))
                (loop $l (br_if $l (i32.eqz (global.get $stop))))
                (global.set $g (local.get $r))))"#,
    );
    let drops = Arc::new(AtomicUsize::new(0));
    let mut store = Store::new(&engine, ());
    // No tick happens before the ticker starts below.
    store.set_epoch_deadline(1);
    let instance = Instance::new(&mut store, &m, &[])?;
    let set = instance.get_typed_func::<Option<Rooted<ExternRef>>, ()>(&mut store, "set")?;
    let run = instance.get_typed_func::<(), ()>(&mut store, "run")?;
    let stop = instance.get_global(&mut store, "stop").unwrap();
    {
        let mut scope = RootScope::new(&mut store);
        let kept = ExternRef::new(&mut scope, Counted(drops.clone()))?;
        let _lost = ExternRef::new(&mut scope, Counted(drops.clone()))?;
        set.call(&mut scope, Some(kept))?;
    }
    assert_eq!(store.live_externrefs(), 2);
    let seen = Arc::new(AtomicUsize::new(0));
    let s = seen.clone();
    store.epoch_deadline_callback(move |mut ctx| {
        ctx.gc(None)?;
        if s.fetch_add(1, Ordering::SeqCst) + 1 == 3 {
            stop.set(&mut ctx, Val::I32(1))?;
        }
        Ok(UpdateDeadline::Continue(1))
    });
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let ticker = {
        let (engine, done) = (engine.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(1));
                engine.increment_epoch();
            }
        })
    };
    let result = run.call(&mut store, ());
    done.store(true, Ordering::Relaxed);
    ticker.join().unwrap();
    result?;
    assert_eq!(seen.load(Ordering::SeqCst), 3);
    assert_eq!(
        drops.load(Ordering::SeqCst),
        1,
        "the callback's collection freed the unreachable one"
    );
    assert_eq!(store.live_externrefs(), 1, "the frame's local kept the other");
    let g = instance.get_global(&mut store, "g").unwrap();
    let Val::ExternRef(Some(r)) = g.get(&mut store) else {
        panic!("the global lost the reference the frame held");
    };
    assert!(r.data(&store)?.is_some_and(|d| d.is::<Counted>()));
    Ok(())
}
