//! Calls of `async` functions between two components go through fused
//! adapters: the adapter starts the callee's task, and its `start` and
//! `return` functions move the arguments and the result from one memory
//! and table to the other (strings transcoded, tuples spilled, handles
//! moved), whichever way each side lowers and lifts the call.

#![cfg(feature = "component-model-async")]

use weft::component::{Component, Linker, ResourceAny};
use weft::{Engine, Store};

/// A bump allocator over memory 0, exported as `realloc`: shrinking keeps
/// the block, growing copies it to a new one.
const BUMP: &str = r#"
    (global $next (mut i32) (i32.const 4096))
    (func (export "realloc") (param $old i32) (param $old_size i32) (param $align i32) (param $size i32)
            (result i32)
        (local $p i32)
        (if (i32.and (i32.ne (local.get $old) (i32.const 0)) (i32.le_u (local.get $size) (local.get $old_size)))
            (then (return (local.get $old))))
        (local.set $p (i32.and
            (i32.add (global.get $next) (i32.sub (local.get $align) (i32.const 1)))
            (i32.sub (i32.const 0) (local.get $align))))
        (global.set $next (i32.add (local.get $p) (local.get $size)))
        (if (local.get $old) (then (memory.copy (local.get $p) (local.get $old) (local.get $old_size))))
        (local.get $p))
"#;

/// `echo` (an `async`-typed function lifted synchronously, its strings in
/// UTF-16) is called with an `async` lower from UTF-8: six flat parameters
/// spill to a tuple in the caller's memory, the string is transcoded both
/// ways, and the result comes back through the caller's return pointer.
/// `add` (lifted `async` with a callback, returning with `task.return`) is
/// called with a synchronous lower, whose flat result the adapter's
/// `return` hands back.
fn component() -> String {
    format!(
        r#"(component
    (component $callee
        (core module $m
            (memory (export "mem") 1)
            {BUMP}
            (func (export "echo") (param $s i32) (param $n i32) (param $a i32) (param $b i32)
                    (param $c i32) (param $d i32) (result i32)
                (i32.store (i32.const 0) (local.get $s))
                (i32.store (i32.const 4) (local.get $n))
                (i32.store (i32.const 8)
                    (i32.add (i32.add (local.get $a) (local.get $b)) (i32.add (local.get $c) (local.get $d))))
                (i32.const 0)))
        (core instance $i (instantiate $m))
        (core func $task-return (canon task.return (result u32)))
        (core module $cb
            (import "" "task.return" (func $ret (param i32)))
            (func (export "add") (param i32 i32) (result i32)
                (call $ret (i32.add (local.get 0) (local.get 1)))
                (i32.const 0))
            (func (export "cb") (param i32 i32 i32) (result i32) (i32.const 0)))
        (core instance $j (instantiate $cb (with "" (instance (export "task.return" (func $task-return))))))
        (func (export "echo") async
            (param "s" string) (param "a" u32) (param "b" u32) (param "c" u32) (param "d" u32)
            (result (tuple string u32))
            (canon lift (core func $i "echo") (memory (core memory $i "mem")) (realloc (core func $i "realloc"))
                string-encoding=utf16))
        (func (export "add") async (param "a" u32) (param "b" u32) (result u32)
            (canon lift (core func $j "add") async (callback (core func $j "cb"))))
    )
    (instance $c (instantiate $callee))
    (component $caller
        (import "echo" (func $echo async
            (param "s" string) (param "a" u32) (param "b" u32) (param "c" u32) (param "d" u32)
            (result (tuple string u32))))
        (import "add" (func $add async (param "a" u32) (param "b" u32) (result u32)))
        (core module $libc
            (memory (export "mem") 1)
            {BUMP})
        (core instance $libc (instantiate $libc))
        (core func $echo' (canon lower (func $echo) async (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
        (core func $add' (canon lower (func $add)))
        (core module $m
            (import "libc" "mem" (memory 1))
            (import "" "echo" (func $echo (param i32 i32) (result i32)))
            (import "" "add" (func $add (param i32 i32) (result i32)))
            (data (i32.const 100) "h\c3\a9llo")
            (func (export "run") (result i32)
                (i32.store (i32.const 200) (i32.const 100))
                (i32.store (i32.const 204) (i32.const 6))
                (i32.store (i32.const 208) (i32.const 1))
                (i32.store (i32.const 212) (i32.const 2))
                (i32.store (i32.const 216) (i32.const 3))
                (i32.store (i32.const 220) (i32.const 4))
                ;; The callee returns at once: `RETURNED` (2), no subtask.
                (if (i32.ne (call $echo (i32.const 200) (i32.const 300)) (i32.const 2))
                    (then unreachable))
                (i32.const 300))
            (func (export "sum") (param i32 i32) (result i32)
                (call $add (local.get 0) (local.get 1))))
        (core instance $i (instantiate $m
            (with "libc" (instance $libc))
            (with "" (instance (export "echo" (func $echo')) (export "add" (func $add'))))))
        (func (export "run") (result (tuple string u32))
            (canon lift (core func $i "run") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
        (func (export "sum") async (param "a" u32) (param "b" u32) (result u32)
            (canon lift (core func $i "sum")))
    )
    (instance $r (instantiate $caller (with "echo" (func $c "echo")) (with "add" (func $c "add"))))
    (export "run" (func $r "run"))
    (export "sum" (func $r "sum"))
)"#
    )
}

#[test]
fn async_calls_between_components_are_fused() -> weft::Result<()> {
    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str(component())?)?;
    assert_eq!(component.fused_adapters(), 2, "both calls go through fused adapters");
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &component)?;

    let run = instance.get_typed_func::<(), ((String, u32),)>(&mut store, "run")?;
    let ((s, n),) = run.call(&mut store, ())?;
    assert_eq!((s.as_str(), n), ("héllo", 10));

    let sum = instance.get_typed_func::<(u32, u32), (u32,)>(&mut store, "sum")?;
    assert_eq!(sum.call(&mut store, (20, 22))?, (42,));
    // Again: the adapters' instances are reused, nothing was left behind.
    assert_eq!(sum.call(&mut store, (1, 2))?, (3,));
    store.assert_concurrent_state_empty();
    Ok(())
}

/// An `own` handle passed to an `async` function of another component
/// moves into the callee's table when its task starts, and a handle it
/// returns moves back into the caller's.
#[test]
fn handles_move_through_an_async_fused_adapter() -> weft::Result<()> {
    let wat = r#"(component
    (component $callee
        (type $r (resource (rep i32)))
        (export $R "r" (type $r))
        (core module $m
            ;; Gives the handle it was given back.
            (func (export "bump") (param $h i32) (result i32)
                (local.get $h)))
        (core instance $i (instantiate $m))
        (func (export "bump") async (param "r" (own $R)) (result (own $R))
            (canon lift (core func $i "bump")))
        (core func $new (canon resource.new $r))
        (core module $n
            (import "" "new" (func $new (param i32) (result i32)))
            (func (export "make") (param i32) (result i32) (call $new (local.get 0))))
        (core instance $k (instantiate $n (with "" (instance (export "new" (func $new))))))
        (func (export "make") (param "rep" u32) (result (own $R)) (canon lift (core func $k "make")))
    )
    (instance $c (instantiate $callee))
    (alias export $c "r" (type $r))
    (component $caller
        (import "r" (type $r (sub resource)))
        (import "bump" (func $bump async (param "r" (own $r)) (result (own $r))))
        (core module $libc (memory (export "mem") 1))
        (core instance $libc (instantiate $libc))
        (core func $bump' (canon lower (func $bump) async (memory (core memory $libc "mem"))))
        (core module $m
            (import "libc" "mem" (memory 1))
            (import "" "bump" (func $bump (param i32 i32) (result i32)))
            (func (export "pass") (param $h i32) (result i32)
                (if (i32.ne (call $bump (local.get $h) (i32.const 16)) (i32.const 2))
                    (then unreachable))
                (i32.load (i32.const 16))))
        (core instance $i (instantiate $m
            (with "libc" (instance $libc))
            (with "" (instance (export "bump" (func $bump'))))))
        (export $R "r" (type $r))
        (func (export "pass") async (param "r" (own $R)) (result (own $R))
            (canon lift (core func $i "pass")))
    )
    (instance $x (instantiate $caller (with "r" (type $r)) (with "bump" (func $c "bump"))))
    (export $R "r" (type $r))
    (export "make" (func $c "make") (func (param "rep" u32) (result (own $R))))
    (export "pass" (func $x "pass") (func async (param "r" (own $R)) (result (own $R))))
)"#;
    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str(wat)?)?;
    assert!(component.fused_adapters() >= 1);
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &component)?;
    let make = instance.get_typed_func::<(u32,), (ResourceAny,)>(&mut store, "make")?;
    let pass = instance.get_typed_func::<(ResourceAny,), (ResourceAny,)>(&mut store, "pass")?;
    let (r,) = make.call(&mut store, (7,))?;
    let (back,) = pass.call(&mut store, (r,))?;
    assert_eq!(back.ty(), r.ty());
    back.resource_drop(&mut store)?;
    // The first handle moved away: using it again is an error, not a panic.
    assert!(pass.call(&mut store, (r,)).is_err());
    Ok(())
}

/// An error context passed to another component through a synchronous
/// call's fused adapter is shared: the callee's new handle, returned to
/// the caller, reads the same debug message.
#[test]
fn error_contexts_cross_a_fused_adapter() -> weft::Result<()> {
    let wat = format!(
        r#"(component
    (component $callee
        (core module $m (func (export "echo") (param i32) (result i32) (local.get 0)))
        (core instance $i (instantiate $m))
        (func (export "echo") (param "e" error-context) (result error-context)
            (canon lift (core func $i "echo")))
    )
    (instance $c (instantiate $callee))
    (component $caller
        (import "echo" (func $echo (param "e" error-context) (result error-context)))
        (core module $libc
            (memory (export "mem") 1)
            {BUMP})
        (core instance $libc (instantiate $libc))
        (core func $echo' (canon lower (func $echo)))
        (core func $new (canon error-context.new (memory (core memory $libc "mem"))))
        (core func $msg (canon error-context.debug-message
            (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
        (core func $drop (canon error-context.drop))
        (core module $m
            (import "libc" "mem" (memory 1))
            (import "" "echo" (func $echo (param i32) (result i32)))
            (import "" "new" (func $new (param i32 i32) (result i32)))
            (import "" "msg" (func $msg (param i32 i32)))
            (import "" "drop" (func $drop (param i32)))
            (data (i32.const 100) "oops")
            (func (export "run") (result i32)
                (local $e i32) (local $f i32)
                (local.set $e (call $new (i32.const 100) (i32.const 4)))
                (local.set $f (call $echo (local.get $e)))
                ;; Shared, not moved: the caller's first handle stays, and
                ;; the one that came back is another.
                (if (i32.eq (local.get $e) (local.get $f)) (then unreachable))
                (call $msg (local.get $f) (i32.const 200))
                (call $drop (local.get $e))
                (call $drop (local.get $f))
                ;; "oops": its length, and its first byte.
                (i32.add
                    (i32.mul (i32.load (i32.const 204)) (i32.const 1000))
                    (i32.load8_u (i32.load (i32.const 200))))))
        (core instance $i (instantiate $m
            (with "libc" (instance $libc))
            (with "" (instance
                (export "echo" (func $echo')) (export "new" (func $new))
                (export "msg" (func $msg)) (export "drop" (func $drop))))))
        (func (export "run") (result u32) (canon lift (core func $i "run")))
    )
    (instance $r (instantiate $caller (with "echo" (func $c "echo"))))
    (export "run" (func $r "run"))
)"#
    );
    let mut config = weft::Config::new();
    config.wasm_component_model_error_context(true);
    let engine = Engine::new(&config)?;
    let component = Component::new(&engine, wat::parse_str(wat)?)?;
    assert_eq!(component.fused_adapters(), 1);
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &component)?;
    let run = instance.get_typed_func::<(), (u32,)>(&mut store, "run")?;
    assert_eq!(run.call(&mut store, ())?, (4000 + u32::from(b'o'),));
    Ok(())
}
