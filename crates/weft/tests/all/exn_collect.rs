//! Exceptions are collected (issue #16): a guest or host that makes
//! exceptions in a loop and keeps none stays within a bounded number of
//! live exceptions, while every exception something reaches (a host root,
//! a global, a table, a GC struct field, a wasm local across a call that
//! collects, the payload of a reachable exception, the pending exception)
//! survives collections with its tag and payload, and a stale host handle
//! is refused instead of naming the exception that reuses its slot.

use weft::*;

/// The threshold of live exceptions at which a new one starts a collection
/// (`weft_runtime::exn::MIN_COLLECT_THRESHOLD`), and the bound the loops
/// below must stay under: at most twice it, plus the few kept.
const THRESHOLD: usize = 1024;
const BOUND: usize = 2 * THRESHOLD + 8;

fn engine(gc: bool, legacy: bool) -> Engine {
    let mut config = Config::new();
    config.wasm_gc(gc).wasm_legacy_exceptions(legacy);
    Engine::new(&config).unwrap()
}

fn module(engine: &Engine, wat: &str) -> Module {
    Module::new(engine, wat::parse_str(wat).unwrap()).unwrap()
}

/// A linker with `host.gc`, which collects from inside wasm, and
/// `host.live`, the number of live exceptions.
fn linker(engine: &Engine) -> Linker<()> {
    let mut linker = Linker::new(engine);
    linker
        .func_wrap("host", "gc", |mut caller: Caller<'_, ()>| caller.gc(None))
        .unwrap();
    linker
        .func_wrap("host", "live", |caller: Caller<'_, ()>| -> i32 {
            caller.live_exceptions() as i32
        })
        .unwrap();
    linker
}

const LOOPS: &str = r#"(module
    (import "host" "live" (func $live (result i32)))
    (tag $e (param i32))
    ;; Throws and catches with `catch_ref` $n times, dropping the exnref;
    ;; returns the sum of the payloads.
    (func (export "catch_ref_loop") (param $n i32) (result i32)
        (local $sum i32) (local $max i32)
        (loop $next
            (block $h (result i32 exnref)
                (try_table (catch_ref $e $h) (throw $e (local.get $n)))
                (unreachable))
            (drop)
            (local.set $sum (i32.add (local.get $sum)))
            (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
        (local.get $sum))
    ;; The same with `catch_all_ref`, throwing from a callee; returns the
    ;; most live exceptions seen.
    (func $throw (param i32) (throw $e (local.get 0)))
    (func (export "catch_all_ref_loop") (param $n i32) (result i32)
        (local $max i32) (local $live i32)
        (loop $next
            (block $h (result exnref)
                (try_table (catch_all_ref $h) (call $throw (local.get $n)))
                (unreachable))
            (drop)
            (local.set $live (call $live))
            (if (i32.gt_u (local.get $live) (local.get $max)) (then (local.set $max (local.get $live))))
            (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
        (local.get $max)))"#;

fn guest_loops(gc: bool) {
    let engine = engine(gc, false);
    let mut store = Store::new(&engine, ());
    let instance = linker(&engine)
        .instantiate(&mut store, &module(&engine, LOOPS))
        .unwrap();
    let catch_ref = instance
        .get_typed_func::<i32, i32>(&mut store, "catch_ref_loop")
        .unwrap();
    let n = 100_000;
    let expected = (1..=n).fold(0i32, |a, b| a.wrapping_add(b));
    assert_eq!(catch_ref.call(&mut store, n).unwrap(), expected);
    let live = store.live_exceptions();
    assert!(live <= BOUND, "{live} live exceptions after {n} throws");
    let catch_all_ref = instance
        .get_typed_func::<i32, i32>(&mut store, "catch_all_ref_loop")
        .unwrap();
    let max = catch_all_ref.call(&mut store, n).unwrap() as usize;
    assert!(max <= BOUND, "up to {max} live exceptions during {n} throws");
    // Nothing reaches them: a collection frees them all.
    store.gc(None).unwrap();
    assert_eq!(store.live_exceptions(), 0);
}

/// 100k throws caught with `catch_ref` (the exnref dropped) leave a bounded
/// number of live exceptions, without the GC proposal.
#[test]
fn guest_catch_ref_loop_stays_bounded() {
    guest_loops(false);
}

/// The same with the GC proposal on.
#[test]
fn guest_catch_ref_loop_stays_bounded_with_gc() {
    guest_loops(true);
}

fn tag_i32(store: &mut Store<()>) -> (Tag, ExnRefPre) {
    let engine = store.engine().clone();
    let ty = TagType::new(FuncType::new(&engine, [ValType::I32], []));
    let tag = Tag::new(&mut *store, &ty).unwrap();
    let pre = ExnRefPre::new(&mut *store, ExnType::from_tag_type(&ty).unwrap());
    (tag, pre)
}

fn payload(store: &mut Store<()>, exn: &Rooted<ExnRef>) -> Result<i32> {
    match exn.fields(&mut *store)?.as_slice() {
        [Val::I32(v)] => Ok(*v),
        other => bail!("unexpected payload {other:?}"),
    }
}

/// `ExnRef::new` in a loop, each in its own `RootScope`, stays bounded; an
/// `OwnedRooted` keeps its exception past its scope.
#[test]
fn host_exnref_new_in_root_scopes_stays_bounded() {
    let mut store = Store::new(&engine(false, false), ());
    let (tag, pre) = tag_i32(&mut store);
    let mut owned = None;
    for i in 0..20_000 {
        let mut scope = RootScope::new(&mut store);
        let exn = ExnRef::new(&mut scope, &pre, &tag, &[Val::I32(i)]).unwrap();
        if i == 7 {
            owned = Some(exn.to_owned_rooted(&mut scope).unwrap());
        }
        drop(scope);
        let live = store.live_exceptions();
        assert!(live <= BOUND, "{live} live exceptions at {i}");
    }
    store.gc(None).unwrap();
    assert_eq!(store.live_exceptions(), 1, "only the owned one is left");
    let owned = owned.unwrap();
    let exn = owned.to_rooted(&mut store).unwrap();
    assert_eq!(payload(&mut store, &exn).unwrap(), 7);
    assert!(Tag::eq(&exn.tag(&store).unwrap(), &tag, &store));
    drop(owned);
    // `exn` is rooted by the store's outermost scope.
    store.gc(None).unwrap();
    assert_eq!(store.live_exceptions(), 1);
}

/// A `Rooted<ExnRef>` used after its scope ended and its exception was
/// collected is refused, even once a new exception reuses the slot: it is
/// never taken for that exception.
#[test]
fn stale_rooted_exnref_is_refused_not_reused() {
    let engine = engine(false, false);
    let mut store = Store::new(&engine, ());
    let (tag, pre) = tag_i32(&mut store);
    let stale = {
        let mut scope = RootScope::new(&mut store);
        ExnRef::new(&mut scope, &pre, &tag, &[Val::I32(1)]).unwrap()
    };
    assert_eq!(payload(&mut store, &stale).unwrap(), 1, "not collected yet");
    store.gc(None).unwrap();
    assert_eq!(store.live_exceptions(), 0);
    let fresh = ExnRef::new(&mut store, &pre, &tag, &[Val::I32(2)]).unwrap();
    assert_eq!(store.live_exceptions(), 1);
    assert_eq!(payload(&mut store, &fresh).unwrap(), 2);
    let err = payload(&mut store, &stale).unwrap_err();
    assert!(format!("{err:#}").contains("no such exception"), "{err:#}");
    assert!(stale.tag(&store).is_err());
    assert!(!Rooted::ref_eq(&store, &stale, &fresh).unwrap());
    // Throwing it throws nothing.
    let thrown = store.throw::<()>(stale).unwrap_err();
    assert!(!store.has_pending_exception(), "{thrown}");
    // Nor can wasm get it.
    let m = module(
        &engine,
        r#"(module
            (tag $e (import "host" "tag") (param i32))
            (func (export "rethrow") (param exnref) (result i32)
                (block $h (result i32)
                    (try_table (catch $e $h) (throw_ref (local.get 0)))
                    (unreachable))))"#,
    );
    let mut l = Linker::new(&engine);
    l.define(&store, "host", "tag", tag).unwrap();
    let instance = l.instantiate(&mut store, &m).unwrap();
    let rethrow = instance.get_func(&mut store, "rethrow").unwrap();
    let mut out = [Val::I32(0)];
    let err = rethrow
        .call(&mut store, &[Val::ExnRef(Some(stale))], &mut out)
        .unwrap_err();
    assert!(format!("{err:#}").contains("no exception"), "{err:#}");
    rethrow.call(&mut store, &[Val::ExnRef(Some(fresh))], &mut out).unwrap();
    assert_eq!(out[0].i32(), Some(2));
}

const KEEPERS: &str = r#"(module
    (import "host" "gc" (func $gc))
    (tag $e (export "e") (param i32))
    (tag $outer (param exnref))
    (global $g (export "g") (mut exnref) (ref.null exn))
    (table $t (export "t") 4 exnref)
    (func $catch (param $v i32) (result exnref)
        (block $h (result exnref)
            (try_table (catch_all_ref $h) (throw $e (local.get $v)))
            (unreachable)))
    ;; The payload of an exception: rethrown and caught by tag.
    (func $payload (param $x exnref) (result i32)
        (block $h (result i32)
            (try_table (catch $e $h) (throw_ref (local.get $x)))
            (unreachable)))
    ;; Many short-lived exceptions, so that automatic collections run.
    (func $churn (param $n i32)
        (loop $next
            (drop (call $catch (local.get $n)))
            (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
    (func (export "keep") (param $v i32)
        (global.set $g (call $catch (local.get $v)))
        (table.set $t (i32.const 2) (call $catch (i32.add (local.get $v) (i32.const 1)))))
    (func (export "clear")
        (global.set $g (ref.null exn))
        (table.set $t (i32.const 2) (ref.null exn)))
    (func (export "churn") (param $n i32) (call $churn (local.get $n)))
    (func (export "from_global") (result i32) (call $payload (global.get $g)))
    (func (export "from_table") (result i32) (call $payload (table.get $t (i32.const 2))))
    ;; An exnref in a local, across a host collection and churn.
    (func (export "local_across_gc") (param $v i32) (result i32)
        (local $x exnref)
        (local.set $x (call $catch (local.get $v)))
        (call $gc)
        (call $churn (i32.const 5000))
        (call $gc)
        (call $payload (local.get $x)))
    ;; An exception whose payload holds another: only the outer one is
    ;; kept in the global.
    (func (export "nest") (param $v i32)
        (global.set $g
            (block $h (result exnref)
                (try_table (catch_all_ref $h) (throw $outer (call $catch (local.get $v))))
                (unreachable))))
    (func (export "nested_payload") (result i32)
        (call $payload
            (block $h (result exnref)
                (try_table (catch $outer $h) (throw_ref (global.get $g)))
                (unreachable)))))"#;

fn keepers(gc: bool) {
    let engine = engine(gc, false);
    let mut store = Store::new(&engine, ());
    let instance = linker(&engine)
        .instantiate(&mut store, &module(&engine, KEEPERS))
        .unwrap();
    let keep = instance.get_typed_func::<i32, ()>(&mut store, "keep").unwrap();
    let clear = instance.get_typed_func::<(), ()>(&mut store, "clear").unwrap();
    let churn = instance.get_typed_func::<i32, ()>(&mut store, "churn").unwrap();
    let from_global = instance.get_typed_func::<(), i32>(&mut store, "from_global").unwrap();
    let from_table = instance.get_typed_func::<(), i32>(&mut store, "from_table").unwrap();
    let local = instance
        .get_typed_func::<i32, i32>(&mut store, "local_across_gc")
        .unwrap();
    let nest = instance.get_typed_func::<i32, ()>(&mut store, "nest").unwrap();
    let nested = instance
        .get_typed_func::<(), i32>(&mut store, "nested_payload")
        .unwrap();
    let e = instance.get_tag(&mut store, "e").unwrap();

    keep.call(&mut store, 40).unwrap();
    churn.call(&mut store, 5000).unwrap();
    store.gc(None).unwrap();
    assert_eq!(store.live_exceptions(), 2, "the global's and the table's");
    assert_eq!(from_global.call(&mut store, ()).unwrap(), 40);
    assert_eq!(from_table.call(&mut store, ()).unwrap(), 41);
    // Read from the host: the right tag and payload.
    let g = instance.get_global(&mut store, "g").unwrap();
    let Val::ExnRef(Some(x)) = g.get(&mut store) else {
        panic!("the global holds no exnref")
    };
    assert!(Tag::eq(&x.tag(&store).unwrap(), &e, &store));
    assert_eq!(payload(&mut store, &x).unwrap(), 40);
    clear.call(&mut store, ()).unwrap();
    // `x` still roots the global's exception (store scope); the table's
    // goes.
    store.gc(None).unwrap();
    assert_eq!(store.live_exceptions(), 1);

    assert_eq!(local.call(&mut store, 77).unwrap(), 77);

    nest.call(&mut store, 9).unwrap();
    churn.call(&mut store, 5000).unwrap();
    store.gc(None).unwrap();
    assert_eq!(nested.call(&mut store, ()).unwrap(), 9);
    clear.call(&mut store, ()).unwrap();
}

/// Exnrefs kept in a global, a table, a local across collections, and in
/// the payload of a kept exception survive (without the GC proposal).
#[test]
fn kept_exnrefs_survive_collections() {
    keepers(false);
}

/// The same with the GC proposal on.
#[test]
fn kept_exnrefs_survive_collections_with_gc() {
    keepers(true);
}

/// An exnref in a GC struct field keeps its exception alive.
#[test]
fn exnref_in_struct_field_survives() {
    let engine = engine(true, false);
    let mut store = Store::new(&engine, ());
    let m = module(
        &engine,
        r#"(module
            (type $box (struct (field (mut exnref))))
            (tag $e (param i32))
            (global $g (mut (ref null $box)) (ref.null $box))
            (func $catch (param $v i32) (result exnref)
                (block $h (result exnref)
                    (try_table (catch_all_ref $h) (throw $e (local.get $v)))
                    (unreachable)))
            (func (export "keep") (param $v i32)
                (global.set $g (struct.new $box (call $catch (local.get $v)))))
            (func (export "churn") (param $n i32)
                (loop $next
                    (drop (call $catch (local.get $n)))
                    ;; Garbage structs too.
                    (drop (struct.new $box (ref.null exn)))
                    (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
            (func (export "get") (result i32)
                (block $h (result i32)
                    (try_table (catch $e $h) (throw_ref (struct.get $box 0 (global.get $g))))
                    (unreachable))))"#,
    );
    let instance = linker(&engine).instantiate(&mut store, &m).unwrap();
    let keep = instance.get_typed_func::<i32, ()>(&mut store, "keep").unwrap();
    let churn = instance.get_typed_func::<i32, ()>(&mut store, "churn").unwrap();
    let get = instance.get_typed_func::<(), i32>(&mut store, "get").unwrap();
    keep.call(&mut store, 123).unwrap();
    churn.call(&mut store, 5000).unwrap();
    store.gc(None).unwrap();
    assert_eq!(store.live_exceptions(), 1);
    assert_eq!(get.call(&mut store, ()).unwrap(), 123);
}

/// A legacy `catch` keeps its exception for `rethrow` across a call that
/// collects.
#[test]
fn legacy_catch_keeps_exception_for_rethrow_across_gc() {
    let engine = engine(false, true);
    let mut store = Store::new(&engine, ());
    let m = module(
        &engine,
        r#"(module
            (import "host" "gc" (func $gc))
            (tag $e (param i32))
            (func $churn (param $n i32)
                (loop $next
                    (block $h (result exnref)
                        (try_table (catch_all_ref $h) (throw $e (local.get $n)))
                        (unreachable))
                    (drop)
                    (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
            (func $inner (param $v i32)
                try
                    local.get $v
                    throw $e
                catch $e
                    drop
                    call $gc
                    i32.const 3000
                    call $churn
                    call $gc
                    rethrow 0
                end)
            (func (export "run") (param $v i32) (result i32)
                (block $h (result i32)
                    (try_table (catch $e $h) (call $inner (local.get $v)))
                    (unreachable))))"#,
    );
    let instance = linker(&engine).instantiate(&mut store, &m).unwrap();
    let run = instance.get_typed_func::<i32, i32>(&mut store, "run").unwrap();
    assert_eq!(run.call(&mut store, 55).unwrap(), 55);
    store.gc(None).unwrap();
    assert_eq!(store.live_exceptions(), 0);
}

/// The exception that escaped to the host stays alive until taken, and
/// goes once the host's handle goes.
#[test]
fn pending_exception_survives_until_taken() {
    let engine = engine(false, false);
    let mut store = Store::new(&engine, ());
    let m = module(
        &engine,
        r#"(module
            (tag $e (param i32))
            (func (export "escape") (param i32) (throw $e (local.get 0))))"#,
    );
    let instance = Instance::new(&mut store, &m, &[]).unwrap();
    let escape = instance.get_typed_func::<i32, ()>(&mut store, "escape").unwrap();
    {
        let mut scope = RootScope::new(&mut store);
        assert!(escape.call(&mut scope, 31).is_err());
    }
    store.gc(None).unwrap();
    assert_eq!(store.live_exceptions(), 1);
    {
        let mut scope = RootScope::new(&mut store);
        let exn = scope.as_context_mut().take_pending_exception().unwrap();
        let fields = exn.fields(&mut scope).unwrap();
        assert!(matches!(fields.as_slice(), [Val::I32(31)]));
    }
    store.gc(None).unwrap();
    assert_eq!(store.live_exceptions(), 0);
}
