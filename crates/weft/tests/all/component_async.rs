//! The component model's async ABI as far as Weft runs it: async lifts
//! that return through `task.return`, async lowers of calls that complete
//! without blocking, the built-ins' `may_leave` traps, `context.get/set`,
//! the task table's built-ins, and the "not supported yet" errors of what
//! would need to suspend a task.

#![cfg(feature = "component-model-async")]

use weft::component::{Component, Linker, Val};
use weft::{Config, Engine, Store};

/// An engine with every async extension of the component model on: the
/// stackful ABI, the further async built-ins, threading and `error-context`
/// are off by default (as in Wasmtime 48) and the components here use them.
fn engine() -> Engine {
    Engine::new(&async_config()).expect("the async extensions are built in")
}

fn async_config() -> Config {
    let mut config = Config::new();
    config
        .wasm_component_model_async(true)
        .wasm_component_model_more_async_builtins(true)
        .wasm_component_model_async_stackful(true)
        .wasm_component_model_threading(true)
        .wasm_component_model_error_context(true);
    config
}

fn component(engine: &Engine, text: &str) -> Component {
    let bytes = wat::parse_str(text).expect("test component is valid text");
    Component::new(engine, bytes).expect("test component compiles")
}

fn call(store: &mut Store<()>, instance: &weft::component::Instance, name: &str, args: &[Val]) -> weft::Result<Val> {
    let f = instance.get_func(&mut *store, name).expect(name);
    let mut out = [Val::Bool(false)];
    f.call(&mut *store, args, &mut out)?;
    Ok(out[0].clone())
}

/// Async-lifted exports whose core functions call `task.return`.
const ASYNC_EXPORTS: &str = r#"(component
    (core module $mem (memory (export "m") 1) (data (i32.const 64) "hello"))
    (core instance $mi (instantiate $mem))
    (canon task.return (result u32) (core func $ret-u32))
    (canon task.return (result string) (memory (core memory $mi "m")) (core func $ret-string))
    (core module $m
        (import "" "ret-u32" (func $ret-u32 (param i32)))
        (import "" "ret-string" (func $ret-string (param i32 i32)))
        (func (export "double") (param i32) (call $ret-u32 (i32.mul (local.get 0) (i32.const 2))))
        (func (export "greet") (call $ret-string (i32.const 64) (i32.const 5)))
        (func (export "forgets"))
        (func (export "twice") (call $ret-u32 (i32.const 1)) (call $ret-u32 (i32.const 2)))
        (func (export "wrong-type") (call $ret-string (i32.const 64) (i32.const 5)))
        (func (export "sync-returns") (result i32) (call $ret-u32 (i32.const 1)) (i32.const 0))
        (func (export "cb-exit") (param i32) (result i32)
            (call $ret-u32 (i32.add (local.get 0) (i32.const 1)))
            (i32.const 0))
        (func (export "cb-wait") (param i32) (result i32) (i32.const 2))
        (func (export "cb") (param i32 i32 i32) (result i32) (i32.const 0)))
    (core instance $i (instantiate $m (with "" (instance
        (export "ret-u32" (func $ret-u32))
        (export "ret-string" (func $ret-string))))))
    (func (export "double") async (param "x" u32) (result u32) (canon lift (core func $i "double") async))
    (func (export "greet") async (result string)
        (canon lift (core func $i "greet") async (memory (core memory $mi "m"))))
    (func (export "forgets") async (result u32) (canon lift (core func $i "forgets") async))
    (func (export "twice") async (result u32) (canon lift (core func $i "twice") async))
    (func (export "wrong-type") async (result u32) (canon lift (core func $i "wrong-type") async))
    (func (export "sync-returns") (result u32) (canon lift (core func $i "sync-returns")))
    (func (export "cb-exit") async (param "x" u32) (result u32)
        (canon lift (core func $i "cb-exit") async (callback (core func $i "cb"))))
    (func (export "cb-wait") async (param "x" u32) (result u32)
        (canon lift (core func $i "cb-wait") async (callback (core func $i "cb"))))
)"#;

#[test]
fn the_host_calls_async_lifted_exports_that_call_task_return() -> weft::Result<()> {
    let engine = engine();
    let c = component(&engine, ASYNC_EXPORTS);
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &c)?;
    assert_eq!(call(&mut store, &instance, "double", &[Val::U32(21)])?, Val::U32(42));
    assert_eq!(call(&mut store, &instance, "greet", &[])?, Val::String("hello".into()));
    // With a callback, the core function's `EXIT` ends the task.
    assert_eq!(call(&mut store, &instance, "cb-exit", &[Val::U32(9)])?, Val::U32(10));
    // Again: each call is a new task.
    assert_eq!(call(&mut store, &instance, "double", &[Val::U32(5)])?, Val::U32(10));
    Ok(())
}

/// Each misuse traps, and the store goes on working.
#[test]
fn task_return_misuse_traps() -> weft::Result<()> {
    let engine = engine();
    let c = component(&engine, ASYNC_EXPORTS);
    let mut store = Store::new(&engine, ());
    for (name, message) in [
        ("forgets", "async-lifted export failed to produce a result"),
        ("twice", "called more than once"),
        ("wrong-type", "invalid `task.return` signature"),
        ("sync-returns", "lifted without `async`"),
    ] {
        let instance = Linker::new(&engine).instantiate(&mut store, &c)?;
        let err = call(&mut store, &instance, name, &[]).unwrap_err();
        assert!(format!("{err:?}").contains(message), "{name}: {err:?}");
        let fresh = Linker::new(&engine).instantiate(&mut store, &c)?;
        assert_eq!(call(&mut store, &fresh, "double", &[Val::U32(2)])?, Val::U32(4));
    }
    Ok(())
}

/// Waits that nothing can end are deadlocks, reported with what waits; a
/// synchronous task may not block; the store stays usable after each.
#[test]
fn waits_nothing_can_end_are_deadlocks_or_traps() -> weft::Result<()> {
    let engine = engine();
    let c = component(&engine, ASYNC_EXPORTS);
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &c)?;
    // A callback that waits on waitable set 0 (no such set) traps.
    let err = call(&mut store, &instance, "cb-wait", &[Val::U32(1)]).unwrap_err();
    assert!(format!("{err:?}").contains("unknown handle index 0"), "{err:?}");

    let c = component(&engine, TABLE_OPS);
    for (name, message) in [
        (
            "wait-empty-async",
            "deadlock detected: event loop cannot make further progress",
        ),
        ("read-stream", "cannot block a synchronous task before returning"),
        (
            "new-thread",
            "the start function index points to an uninitialized function",
        ),
    ] {
        let instance = Linker::new(&engine).instantiate(&mut store, &c)?;
        let err = call(&mut store, &instance, name, &[]).unwrap_err();
        assert!(format!("{err:?}").contains(message), "{name}: {err:?}");
        // The store is left usable.
        let fresh = Linker::new(&engine).instantiate(&mut store, &c)?;
        assert_eq!(call(&mut store, &fresh, "streams", &[])?, Val::U32(1));
    }
    // The deadlock names the wait.
    let instance = Linker::new(&engine).instantiate(&mut store, &c)?;
    let err = call(&mut store, &instance, "wait-empty-async", &[]).unwrap_err();
    assert!(
        format!("{err:?}").contains("waits for an event in waitable set 1"),
        "{err:?}"
    );
    Ok(())
}

/// Built-ins over the task table, called from a synchronously lifted
/// function.
const TABLE_OPS: &str = r#"(component
    (core module $mem (memory (export "m") 1))
    (core instance $mi (instantiate $mem))
    (type $s (stream u8))
    (type $f (future u32))
    (core module $tm (table (export "t") 1 funcref))
    (core instance $ti (instantiate $tm))
    (core type $thread-fn (func (param i32)))
    (canon stream.new $s (core func $stream.new))
    (canon stream.read $s (memory (core memory $mi "m")) (core func $stream.read))
    (canon stream.drop-readable $s (core func $stream.drop-readable))
    (canon stream.drop-writable $s (core func $stream.drop-writable))
    (canon future.new $f (core func $future.new))
    (canon future.drop-readable $f (core func $future.drop-readable))
    (canon future.drop-writable $f (core func $future.drop-writable))
    (canon waitable-set.new (core func $ws.new))
    (canon waitable-set.poll (memory (core memory $mi "m")) (core func $ws.poll))
    (canon waitable-set.wait (memory (core memory $mi "m")) (core func $ws.wait))
    (canon waitable-set.drop (core func $ws.drop))
    (canon waitable.join (core func $join))
    (canon thread.new-indirect $thread-fn (core table $ti "t") (core func $thread.new))
    (canon context.get i32 0 (core func $ctx.get))
    (canon context.set i32 0 (core func $ctx.set))
    (canon thread.yield (core func $yield))
    (canon thread.index (core func $thread.index))
    (core module $m
        (import "" "mem" (memory 1))
        (import "" "stream.new" (func $stream.new (result i64)))
        (import "" "stream.read" (func $stream.read (param i32 i32 i32) (result i32)))
        (import "" "stream.drop-readable" (func $stream.drop-readable (param i32)))
        (import "" "stream.drop-writable" (func $stream.drop-writable (param i32)))
        (import "" "future.new" (func $future.new (result i64)))
        (import "" "future.drop-readable" (func $future.drop-readable (param i32)))
        (import "" "future.drop-writable" (func $future.drop-writable (param i32)))
        (import "" "ws.new" (func $ws.new (result i32)))
        (import "" "ws.poll" (func $ws.poll (param i32 i32) (result i32)))
        (import "" "ws.wait" (func $ws.wait (param i32 i32) (result i32)))
        (import "" "ws.drop" (func $ws.drop (param i32)))
        (import "" "join" (func $join (param i32 i32)))
        (import "" "thread.new" (func $thread.new (param i32 i32) (result i32)))
        (import "" "ctx.get" (func $ctx.get (result i32)))
        (import "" "ctx.set" (func $ctx.set (param i32)))
        (import "" "yield" (func $yield (result i32)))
        (import "" "thread.index" (func $thread.index (result i32)))
        (global $saved (mut i32) (i32.const 0))
        ;; stream.new gives readable 1 and writable 2; dropping both ends
        ;; frees them, and the indices are given out again, the last freed
        ;; first (as the free list of CanonicalABI.md's `Table`).
        (func (export "streams") (result i32)
            (local $p i64)
            (local.set $p (call $stream.new))
            (if (i64.ne (local.get $p) (i64.const 0x2_0000_0001)) (then unreachable))
            (call $stream.drop-readable (i32.const 1))
            (call $stream.drop-writable (i32.const 2))
            (if (i64.ne (call $stream.new) (i64.const 0x1_0000_0002)) (then unreachable))
            (call $stream.drop-readable (i32.const 2))
            (call $stream.drop-writable (i32.const 1))
            (i32.const 1))
        (func (export "drop-twice") (result i32)
            (drop (call $stream.new))
            (call $stream.drop-readable (i32.const 1))
            (call $stream.drop-readable (i32.const 1))
            (i32.const 0))
        (func (export "drop-unwritten-future") (result i32)
            (drop (call $future.new))
            (call $future.drop-writable (i32.const 2))
            (i32.const 0))
        (func (export "wrong-end") (result i32)
            (drop (call $stream.new))
            (call $stream.drop-writable (i32.const 1))
            (i32.const 0))
        ;; A set with a member cannot be dropped; polling it with nothing
        ;; pending gives NONE (0) and writes zeros.
        (func (export "sets") (result i32)
            (local $s i32)
            (drop (call $stream.new))
            (local.set $s (call $ws.new))
            (if (i32.ne (local.get $s) (i32.const 3)) (then unreachable))
            (call $join (i32.const 1) (local.get $s))
            (i32.store (i32.const 8) (i32.const -1))
            (if (i32.ne (call $ws.poll (local.get $s) (i32.const 8)) (i32.const 0)) (then unreachable))
            (if (i32.ne (i32.load (i32.const 8)) (i32.const 0)) (then unreachable))
            (call $join (i32.const 1) (i32.const 0))
            (call $ws.drop (local.get $s))
            (i32.const 1))
        (func (export "drop-joined-set") (result i32)
            (local $s i32)
            (drop (call $stream.new))
            (local.set $s (call $ws.new))
            (call $join (i32.const 1) (local.get $s))
            (call $ws.drop (local.get $s))
            (i32.const 0))
        (func (export "wait-empty") (result i32)
            (drop (call $ws.wait (call $ws.new) (i32.const 8)))
            (i32.const 0))
        (func (export "wait-empty-async")
            (drop (call $ws.wait (call $ws.new) (i32.const 8))))
        (func (export "read-stream") (result i32)
            (drop (call $stream.new))
            (drop (call $stream.read (i32.const 1) (i32.const 0) (i32.const 1)))
            (i32.const 0))
        (func (export "new-thread") (result i32)
            (drop (call $thread.new (i32.const 0) (i32.const 0)))
            (i32.const 0))
        ;; context.get reads what context.set wrote in this task; a new task
        ;; starts with 0. thread.yield returns 0 (not cancelled).
        (func (export "context") (result i32)
            (local $before i32)
            (local.set $before (call $ctx.get))
            (call $ctx.set (i32.add (local.get $before) (i32.const 5)))
            (if (i32.ne (call $yield) (i32.const 0)) (then unreachable))
            (if (i32.ne (call $thread.index) (i32.const 1)) (then unreachable))
            (i32.add (call $ctx.get) (i32.mul (local.get $before) (i32.const 100))))
        (func (export "post") (param i32)
            (drop (call $ws.new)))
    )
    (core instance $i (instantiate $m (with "" (instance
        (export "mem" (memory $mi "m"))
        (export "stream.new" (func $stream.new))
        (export "stream.read" (func $stream.read))
        (export "stream.drop-readable" (func $stream.drop-readable))
        (export "stream.drop-writable" (func $stream.drop-writable))
        (export "future.new" (func $future.new))
        (export "future.drop-readable" (func $future.drop-readable))
        (export "future.drop-writable" (func $future.drop-writable))
        (export "ws.new" (func $ws.new))
        (export "ws.poll" (func $ws.poll))
        (export "ws.wait" (func $ws.wait))
        (export "ws.drop" (func $ws.drop))
        (export "join" (func $join))
        (export "thread.new" (func $thread.new))
        (export "ctx.get" (func $ctx.get))
        (export "ctx.set" (func $ctx.set))
        (export "yield" (func $yield))
        (export "thread.index" (func $thread.index))))))
    (func (export "streams") (result u32) (canon lift (core func $i "streams")))
    (func (export "drop-twice") (result u32) (canon lift (core func $i "drop-twice")))
    (func (export "drop-unwritten-future") (result u32) (canon lift (core func $i "drop-unwritten-future")))
    (func (export "wrong-end") (result u32) (canon lift (core func $i "wrong-end")))
    (func (export "sets") (result u32) (canon lift (core func $i "sets")))
    (func (export "drop-joined-set") (result u32) (canon lift (core func $i "drop-joined-set")))
    (func (export "wait-empty") (result u32) (canon lift (core func $i "wait-empty")))
    (func (export "wait-empty-async") async (result u32) (canon lift (core func $i "wait-empty-async") async))
    (func (export "read-stream") (result u32) (canon lift (core func $i "read-stream")))
    (func (export "new-thread") (result u32) (canon lift (core func $i "new-thread")))
    (func (export "context") (result u32) (canon lift (core func $i "context")))
    (func (export "post-leaves") (result u32)
        (canon lift (core func $i "context") (post-return (core func $i "post"))))
)"#;

#[test]
fn table_built_ins_follow_the_spec() -> weft::Result<()> {
    let engine = engine();
    let c = component(&engine, TABLE_OPS);
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &c)?;
    assert_eq!(call(&mut store, &instance, "streams", &[])?, Val::U32(1));
    assert_eq!(call(&mut store, &instance, "sets", &[])?, Val::U32(1));
    for (name, message) in [
        ("drop-twice", "unknown handle index 1"),
        ("drop-unwritten-future", "without first writing a value"),
        ("wrong-end", "is a readable stream end, not a writable stream end"),
        ("drop-joined-set", "cannot drop waitable set with waitables"),
        ("wait-empty", "cannot block a synchronous task before returning"),
    ] {
        let instance = Linker::new(&engine).instantiate(&mut store, &c)?;
        let err = call(&mut store, &instance, name, &[]).unwrap_err();
        let text = format!("{err:?}");
        assert!(text.contains("wasm trap") && text.contains(message), "{name}: {text}");
    }
    Ok(())
}

#[test]
fn context_is_per_task_and_built_ins_trap_in_post_return() -> weft::Result<()> {
    let engine = engine();
    let c = component(&engine, TABLE_OPS);
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &c)?;
    // Each call is a new task whose context starts at 0.
    assert_eq!(call(&mut store, &instance, "context", &[])?, Val::U32(5));
    assert_eq!(call(&mut store, &instance, "context", &[])?, Val::U32(5));
    // `waitable-set.new` in a post-return function: may_leave is clear.
    let err = call(&mut store, &instance, "post-leaves", &[]).unwrap_err();
    assert!(
        format!("{err:?}").contains("cannot leave component instance"),
        "{err:?}"
    );
    Ok(())
}

/// A component lowers a host function and an async-lifted function of
/// another component with `async`: both complete at once, so the caller
/// gets `RETURNED` (2) and the result in its memory.
#[test]
fn async_lowers_of_calls_that_complete_return_returned() -> weft::Result<()> {
    let engine = engine();
    let c = component(
        &engine,
        r#"(component
            (import "host-add" (func $host-add async (param "a" u32) (param "b" u32) (result u32)))
            (component $callee
                (canon task.return (result u64) (core func $ret))
                (core module $m
                    (import "" "ret" (func $ret (param i64)))
                    (func (export "big") (param i32) (call $ret (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32)))))
                (core instance $i (instantiate $m (with "" (instance (export "ret" (func $ret))))))
                (func (export "big") async (param "x" u32) (result u64) (canon lift (core func $i "big") async)))
            (instance $callee (instantiate $callee))
            ;; The caller is a sibling of the callee: a component may not
            ;; call into its own child.
            (component $caller
                (import "host-add" (func $host-add async (param "a" u32) (param "b" u32) (result u32)))
                (import "big" (func $callee-big async (param "x" u32) (result u64)))
                (core module $mem (memory (export "m") 1))
                (core instance $mi (instantiate $mem))
                (core func $add (canon lower (func $host-add) async (memory (core memory $mi "m"))))
                (core func $big (canon lower (func $callee-big) async (memory (core memory $mi "m"))))
                (core module $main
                    (import "" "mem" (memory 1))
                    (import "" "add" (func $add (param i32 i32 i32) (result i32)))
                    (import "" "big" (func $big (param i32 i32) (result i32)))
                    (func (export "run") (result i64)
                        (if (i32.ne (call $add (i32.const 40) (i32.const 2) (i32.const 16)) (i32.const 2))
                            (then unreachable))
                        (if (i32.ne (call $big (i32.const 3) (i32.const 24)) (i32.const 2))
                            (then unreachable))
                        (i64.add (i64.load32_u (i32.const 16)) (i64.load (i32.const 24)))))
                (core instance $main (instantiate $main (with "" (instance
                    (export "mem" (memory $mi "m"))
                    (export "add" (func $add))
                    (export "big" (func $big))))))
                (func (export "run") (result u64) (canon lift (core func $main "run"))))
            (instance $caller (instantiate $caller
                (with "host-add" (func $host-add))
                (with "big" (func $callee "big"))))
            (export "run" (func $caller "run")))"#,
    );
    let mut store = Store::new(&engine, ());
    let mut linker = Linker::<()>::new(&engine);
    // An `async` import is satisfied by a concurrent host function; this
    // one is ready when first polled.
    linker.root().func_new_concurrent("host-add", |_, _, args, results| {
        Box::pin(async move {
            let (Val::U32(a), Val::U32(b)) = (&args[0], &args[1]) else {
                weft::bail!("expected two u32s");
            };
            results[0] = Val::U32(a + b);
            Ok(())
        })
    })?;
    let instance = linker.instantiate(&mut store, &c)?;
    assert_eq!(call(&mut store, &instance, "run", &[])?, Val::U64(42 + (3 << 32)));
    Ok(())
}

#[test]
fn the_async_abi_can_be_turned_off() {
    let mut config = async_config();
    config.wasm_component_model_async(false);
    let engine = Engine::new(&config).unwrap();
    let bytes = wat::parse_str(ASYNC_EXPORTS).unwrap();
    let Err(err) = Component::new(&engine, bytes) else {
        panic!("async is off, yet the component compiled");
    };
    let text = format!("{err:?}");
    assert!(
        text.contains("unsupported: ") && text.contains("async feature"),
        "{text}"
    );
}

/// A call through a fused adapter is a task of the callee: its context
/// starts at 0 and does not touch the caller's.
#[test]
fn a_fused_call_has_its_own_task_context() -> weft::Result<()> {
    let engine = engine();
    let c = component(
        &engine,
        r#"(component
            (component $callee
                (canon context.get i32 0 (core func $get))
                (canon context.set i32 0 (core func $set))
                (core module $m
                    (import "" "get" (func $get (result i32)))
                    (import "" "set" (func $set (param i32)))
                    (func (export "f") (param i32) (result i32)
                        (local $before i32)
                        (local.set $before (call $get))
                        (call $set (local.get 0))
                        (local.get $before)))
                (core instance $i (instantiate $m (with "" (instance
                    (export "get" (func $get)) (export "set" (func $set))))))
                (func (export "f") (param "x" u32) (result u32) (canon lift (core func $i "f"))))
            (instance $callee (instantiate $callee))
            ;; The caller is a sibling of the callee: a component may not
            ;; call into its own child.
            (component $caller
                (import "f" (func $callee-f (param "x" u32) (result u32)))
                (canon context.get i32 0 (core func $get))
                (canon context.set i32 0 (core func $set))
                (core func $f (canon lower (func $callee-f)))
                (core module $main
                    (import "" "get" (func $get (result i32)))
                    (import "" "set" (func $set (param i32)))
                    (import "" "f" (func $f (param i32) (result i32)))
                    (func (export "run") (result i32)
                        (call $set (i32.const 100))
                        ;; The callee's context starts at 0, each call.
                        (if (i32.ne (call $f (i32.const 7)) (i32.const 0)) (then unreachable))
                        (if (i32.ne (call $f (i32.const 8)) (i32.const 0)) (then unreachable))
                        (call $get)))
                (core instance $main (instantiate $main (with "" (instance
                    (export "get" (func $get)) (export "set" (func $set)) (export "f" (func $f))))))
                (func (export "run") (result u32) (canon lift (core func $main "run"))))
            (instance $caller (instantiate $caller (with "f" (func $callee "f"))))
            (export "run" (func $caller "run")))"#,
    );
    assert_eq!(c.fused_adapters(), 1, "the call goes through a fused adapter");
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &c)?;
    assert_eq!(call(&mut store, &instance, "run", &[])?, Val::U32(100));
    Ok(())
}

/// Resources, waitable sets, stream ends and error contexts share one index
/// space per component instance (CanonicalABI.md's
/// `ComponentInstance.handles`); a resource index is not a waitable set and
/// a waitable set index is not a resource.
#[test]
fn resources_and_waitables_share_one_index_space() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(
        &engine,
        r#"(component
    (type $r (resource (rep i32)))
    (type $s (stream u8))
    (canon resource.new $r (core func $resource.new))
    (canon resource.rep $r (core func $resource.rep))
    (canon waitable-set.new (core func $ws.new))
    (canon waitable-set.drop (core func $ws.drop))
    (canon stream.new $s (core func $stream.new))
    (core module $m
        (import "" "resource.new" (func $resource.new (param i32) (result i32)))
        (import "" "resource.rep" (func $resource.rep (param i32) (result i32)))
        (import "" "ws.new" (func $ws.new (result i32)))
        (import "" "ws.drop" (func $ws.drop (param i32)))
        (import "" "stream.new" (func $stream.new (result i64)))
        ;; 1, 2, then the stream's ends 3 and 4: 1234.
        (func (export "indices") (result i32)
            (local $r i32) (local $s i32) (local $ends i64)
            (local.set $r (call $resource.new (i32.const 7)))
            (local.set $s (call $ws.new))
            (local.set $ends (call $stream.new))
            (i32.add
                (i32.add (i32.mul (local.get $r) (i32.const 1000)) (i32.mul (local.get $s) (i32.const 100)))
                (i32.add
                    (i32.mul (i32.wrap_i64 (local.get $ends)) (i32.const 10))
                    (i32.wrap_i64 (i64.shr_u (local.get $ends) (i64.const 32))))))
        (func (export "rep-of-set") (result i32)
            (call $resource.rep (call $ws.new)))
        (func (export "drop-resource-as-set")
            (call $ws.drop (call $resource.new (i32.const 7)))))
    (core instance $i (instantiate $m (with "" (instance
        (export "resource.new" (func $resource.new))
        (export "resource.rep" (func $resource.rep))
        (export "ws.new" (func $ws.new))
        (export "ws.drop" (func $ws.drop))
        (export "stream.new" (func $stream.new))))))
    (func (export "indices") (result u32) (canon lift (core func $i "indices")))
    (func (export "rep-of-set") (result u32) (canon lift (core func $i "rep-of-set")))
    (func (export "drop-resource-as-set") (canon lift (core func $i "drop-resource-as-set")))
)"#,
    );
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &c)?;
    assert_eq!(call(&mut store, &instance, "indices", &[])?, Val::U32(1234));
    let instance = Linker::new(&engine).instantiate(&mut store, &c)?;
    let err = call(&mut store, &instance, "rep-of-set", &[]).unwrap_err();
    assert!(format!("{err:?}").contains("unknown handle index 1"), "{err:?}");
    let instance = Linker::new(&engine).instantiate(&mut store, &c)?;
    let f = instance.get_func(&mut store, "drop-resource-as-set").expect("export");
    let err = f.call(&mut store, &[], &mut []).unwrap_err();
    assert!(
        format!("{err:?}").contains("handle index 1 is a resource, not a waitable set"),
        "{err:?}"
    );
    Ok(())
}

/// An exception that escapes a lifted function is a trap at the component
/// boundary (`call_and_trap_on_throw`), not an error the caller could take
/// as an exception; the instance is left unenterable, the store usable.
#[test]
fn an_exception_escaping_a_component_is_a_trap() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(
        &engine,
        r#"(component
    (core module $m
        (tag $e)
        (func (export "throws") (result i32) (throw $e))
        (func (export "fine") (result i32) (i32.const 7)))
    (core instance $i (instantiate $m))
    (func (export "throws") (result u32) (canon lift (core func $i "throws")))
    (func (export "fine") (result u32) (canon lift (core func $i "fine")))
)"#,
    );
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &c)?;
    let err = call(&mut store, &instance, "throws", &[]).unwrap_err();
    assert!(err.downcast_ref::<weft::ThrownException>().is_none(), "{err:?}");
    assert!(
        format!("{err:#}").contains("wasm trap: an uncaught exception reached a component boundary"),
        "{err:#}"
    );
    assert!(!store.has_pending_exception(), "nobody outside may catch it");
    // The trapped instance refuses later calls; another one works.
    let err = call(&mut store, &instance, "fine", &[]).unwrap_err();
    assert!(
        format!("{err:#}").contains("cannot enter component instance"),
        "{err:#}"
    );
    let other = Linker::new(&engine).instantiate(&mut store, &c)?;
    assert_eq!(call(&mut store, &other, "fine", &[])?, Val::U32(7));
    Ok(())
}

/// Two instances of one component: each starts a task that returns at once
/// and goes on waiting for a future. One instance traps: it refuses every
/// later call, while the other's task still runs to its end.
const WAITS_ON: &str = r#"(component
    (core module $mem (memory (export "m") 1))
    (core instance $mi (instantiate $mem))
    (type $f (future))
    (canon task.return (result u32) (core func $ret))
    (canon future.new $f (core func $future.new))
    (canon future.read $f async (memory (core memory $mi "m")) (core func $future.read))
    (canon future.write $f async (memory (core memory $mi "m")) (core func $future.write))
    (canon future.drop-readable $f (core func $fdr))
    (canon future.drop-writable $f (core func $fdw))
    (canon waitable-set.new (core func $ws.new))
    (canon waitable.join (core func $join))
    (core module $m
        (import "" "ret" (func $ret (param i32)))
        (import "" "future.new" (func $future.new (result i64)))
        (import "" "future.read" (func $future.read (param i32 i32) (result i32)))
        (import "" "future.write" (func $future.write (param i32 i32) (result i32)))
        (import "" "fdr" (func $fdr (param i32)))
        (import "" "fdw" (func $fdw (param i32)))
        (import "" "ws.new" (func $ws.new (result i32)))
        (import "" "join" (func $join (param i32 i32)))
        (global $w (mut i32) (i32.const 0))
        (global $r (mut i32) (i32.const 0))
        (global $done (mut i32) (i32.const 0))
        ;; Returns 1 at once, then waits for the future's value.
        (func (export "start") (result i32)
            (local $ends i64) (local $ws i32)
            (local.set $ends (call $future.new))
            (global.set $r (i32.wrap_i64 (local.get $ends)))
            (global.set $w (i32.wrap_i64 (i64.shr_u (local.get $ends) (i64.const 32))))
            (if (i32.ne (call $future.read (global.get $r) (i32.const 0)) (i32.const -1))
                (then unreachable))
            (local.set $ws (call $ws.new))
            (call $join (global.get $r) (local.get $ws))
            (call $ret (i32.const 1))
            (i32.or (i32.const 2) (i32.shl (local.get $ws) (i32.const 4))))
        (func (export "start-cb") (param i32 i32 i32) (result i32)
            (global.set $done (i32.const 1))
            (call $join (global.get $r) (i32.const 0))
            (call $fdr (global.get $r))
            (i32.const 0))
        (func (export "finish") (result i32)
            (drop (call $future.write (global.get $w) (i32.const 0)))
            (call $fdw (global.get $w))
            (i32.const 0))
        (func (export "boom") (result i32) unreachable)
        ;; Yields once (so that waiting tasks run), then returns $done.
        (func (export "check") (result i32) (i32.const 1))
        (func (export "check-cb") (param i32 i32 i32) (result i32)
            (call $ret (global.get $done))
            (i32.const 0)))
    (core instance $i (instantiate $m (with "" (instance
        (export "ret" (func $ret)) (export "future.new" (func $future.new))
        (export "future.read" (func $future.read)) (export "future.write" (func $future.write))
        (export "fdr" (func $fdr)) (export "fdw" (func $fdw))
        (export "ws.new" (func $ws.new)) (export "join" (func $join))))))
    (func (export "start") async (result u32)
        (canon lift (core func $i "start") async (callback (core func $i "start-cb"))))
    (func (export "finish") (result u32) (canon lift (core func $i "finish")))
    (func (export "boom") (result u32) (canon lift (core func $i "boom")))
    (func (export "check") async (result u32)
        (canon lift (core func $i "check") async (callback (core func $i "check-cb"))))
)"#;

#[test]
fn a_trap_stops_only_its_own_instance() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(&engine, WAITS_ON);
    let mut store = Store::new(&engine, ());
    let a = Linker::new(&engine).instantiate(&mut store, &c)?;
    let b = Linker::new(&engine).instantiate(&mut store, &c)?;
    assert_eq!(call(&mut store, &a, "start", &[])?, Val::U32(1));
    assert_eq!(call(&mut store, &b, "start", &[])?, Val::U32(1));
    let err = call(&mut store, &a, "boom", &[]).unwrap_err();
    assert!(err.downcast_ref::<weft::Trap>().is_some(), "{err:?}");
    for name in ["finish", "check", "start"] {
        let err = call(&mut store, &a, name, &[]).unwrap_err();
        assert!(
            format!("{err:#}").contains("cannot enter component instance"),
            "{name}: {err:#}"
        );
    }
    // The other instance's waiting task is woken and runs to its end.
    assert_eq!(call(&mut store, &b, "finish", &[])?, Val::U32(0));
    assert_eq!(call(&mut store, &b, "check", &[])?, Val::U32(1));
    Ok(())
}
