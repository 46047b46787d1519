//! Exception handling through the public API: tags and their types, tag
//! linking, exceptions across instances, uncaught exceptions reaching the
//! host, exceptions meeting a host function, and precompiled modules. The
//! modules are text, so these tests need the `wat` feature.

#![cfg(feature = "wat")]

use weft::{
    Caller, Config, Engine, Extern, ExternType, Func, FuncType, Instance, Linker, Module, Store, Tag, TagType,
    ThrownException, ValType,
};

fn is_thrown(err: &weft::Error) -> bool {
    err.chain().any(|e| e.downcast_ref::<ThrownException>().is_some())
}

/// A module that defines and exports a tag `e` of `(param i32)` and a
/// function `throw` that throws it with its argument.
const THROWER: &str = r#"(module
    (tag $e (export "e") (param i32))
    (func (export "throw") (param i32) (throw $e (local.get 0))))"#;

#[test]
fn tag_types_and_tags() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let ty = TagType::new(FuncType::new(&engine, [ValType::I32, ValType::F64], []));
    let tag = Tag::new(&mut store, &ty).unwrap();
    assert_eq!(tag.ty(&store).ty(), ty.ty());
    assert_eq!(ty.to_string(), "(tag (func (param i32 f64)))");
    let other = Tag::new(&mut store, &ty).unwrap();
    assert!(!Tag::eq(&tag, &other, &store), "every new tag is a new identity");
    assert!(Tag::eq(&tag, &tag, &store));

    let with_results = TagType::new(FuncType::new(&engine, [], [ValType::I32]));
    let err = Tag::new(&mut store, &with_results).unwrap_err();
    assert!(err.to_string().contains("no results"), "{err}");

    let module = Module::new(
        &engine,
        r#"(module (import "m" "t" (tag (param i64))) (tag (export "u") (param f32 i32)))"#,
    )
    .unwrap();
    let import = module.imports().next().unwrap();
    match import.ty() {
        ExternType::Tag(t) => assert_eq!(t.ty().params().collect::<Vec<_>>(), [ValType::I64]),
        other => panic!("expected a tag import, got {other:?}"),
    }
    let export = module.exports().next().unwrap();
    let ExternType::Tag(t) = export.ty() else {
        panic!("expected a tag export")
    };
    assert_eq!(t.ty().params().collect::<Vec<_>>(), [ValType::F32, ValType::I32]);
}

#[test]
fn tag_linking_checks_types_exactly_and_names_the_import() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let module = Module::new(&engine, r#"(module (import "host" "tag" (tag (param i32))))"#).unwrap();

    let wrong = Tag::new(&mut store, &TagType::new(FuncType::new(&engine, [ValType::I64], []))).unwrap();
    let err = Instance::new(&mut store, &module, &[wrong.into()]).unwrap_err();
    let message = format!("{err:#}");
    assert!(
        message.contains("incompatible import type for `host::tag`"),
        "{message}"
    );
    assert!(message.contains("tag"), "{message}");

    let func = Func::wrap(&mut store, |_: i32| {});
    let err = Instance::new(&mut store, &module, &[func.into()]).unwrap_err();
    assert!(format!("{err:#}").contains("found function"), "{err:#}");

    let mut other_store = Store::new(&engine, ());
    let foreign = Tag::new(
        &mut other_store,
        &TagType::new(FuncType::new(&engine, [ValType::I32], [])),
    )
    .unwrap();
    let err = Instance::new(&mut store, &module, &[foreign.into()]).unwrap_err();
    assert!(format!("{err:#}").contains("different store"), "{err:#}");

    let right = Tag::new(&mut store, &TagType::new(FuncType::new(&engine, [ValType::I32], []))).unwrap();
    Instance::new(&mut store, &module, &[right.into()]).unwrap();

    let mut linker = Linker::new(&engine);
    linker.define(&store, "host", "tag", wrong).unwrap();
    let err = linker.instantiate(&mut store, &module).unwrap_err();
    assert!(format!("{err:#}").contains("host::tag"), "{err:#}");
}

#[test]
fn uncaught_exception_is_an_error_and_the_store_stays_usable() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let module = Module::new(&engine, THROWER).unwrap();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let throw = instance.get_typed_func::<i32, ()>(&mut store, "throw").unwrap();
    let err = throw.call(&mut store, 7).unwrap_err();
    assert!(is_thrown(&err), "{err:#}");
    assert!(err.to_string().contains("uncaught wasm exception"), "{err}");
    // The host can take the exception and read it.
    assert!(store.has_pending_exception());
    let exn = store.take_pending_exception().expect("the escaped exception");
    assert!(!store.has_pending_exception());
    assert!(store.take_pending_exception().is_none());
    let tag = instance.get_tag(&mut store, "e").unwrap();
    assert!(Tag::eq(&exn.tag(&store).unwrap(), &tag, &store));
    assert_eq!(exn.fields(&store).unwrap()[0].i32(), Some(7));

    let adder = Module::new(
        &engine,
        r#"(module (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1))))"#,
    )
    .unwrap();
    let adder = Instance::new(&mut store, &adder, &[]).unwrap();
    let add = adder.get_typed_func::<(i32, i32), i32>(&mut store, "add").unwrap();
    assert_eq!(add.call(&mut store, (2, 3)).unwrap(), 5);
    // Throwing again works as the first time.
    assert!(is_thrown(&throw.call(&mut store, 8).unwrap_err()));
}

/// Instance B imports A's tag and function, calls it through an import and
/// through a table, and catches what it throws.
#[test]
fn exception_thrown_in_one_instance_is_caught_in_another() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let a = Module::new(&engine, THROWER).unwrap();
    let a = Instance::new(&mut store, &a, &[]).unwrap();
    let b = Module::new(
        &engine,
        r#"(module
            (import "a" "e" (tag $e (param i32)))
            (import "a" "throw" (func $throw (param i32)))
            (type $t (func (param i32)))
            (table funcref (elem $throw))
            (func (export "direct") (param i32) (result i32)
                (block $caught (result i32)
                    (try_table (catch $e $caught) (call $throw (local.get 0)))
                    (i32.const -1)))
            (func (export "indirect") (param i32) (result i32)
                (block $caught (result i32)
                    (try_table (catch $e $caught)
                        (call_indirect (type $t) (local.get 0) (i32.const 0)))
                    (i32.const -1)))
            (func (export "rethrown") (param i32) (result i32)
                (block $caught (result i32)
                    (try_table (catch $e $caught)
                        (block $ref (result exnref)
                            (try_table (catch_all_ref $ref) (call $throw (local.get 0)))
                            (unreachable))
                        (throw_ref))
                    (i32.const -1))))"#,
    )
    .unwrap();
    let imports: Vec<Extern> = vec![
        a.get_tag(&mut store, "e").unwrap().into(),
        a.get_func(&mut store, "throw").unwrap().into(),
    ];
    let b = Instance::new(&mut store, &b, &imports).unwrap();
    for (name, value) in [("direct", 11), ("indirect", 12), ("rethrown", 13)] {
        let f = b.get_typed_func::<i32, i32>(&mut store, name).unwrap();
        assert_eq!(f.call(&mut store, value).unwrap(), value, "{name}");
    }
}

/// Tags are generative: a second instance of the same module has its own
/// tag, and its `catch` does not catch the first instance's exceptions.
#[test]
fn tags_are_per_instance() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let module = Module::new(
        &engine,
        r#"(module
            (import "other" "throw" (func $other))
            (tag $e (export "e"))
            (func (export "throw") (throw $e))
            (func (export "catch_other") (result i32)
                (block $caught
                    (try_table (catch $e $caught) (call $other))
                    (return (i32.const 0)))
                (i32.const 1)))"#,
    )
    .unwrap();
    let mut linker = Linker::new(&engine);
    let noop = Func::wrap(&mut store, || {});
    linker.define(&store, "other", "throw", noop).unwrap();
    let first = linker.instantiate(&mut store, &module).unwrap();
    let first_throw = first.get_func(&mut store, "throw").unwrap();
    let second = Instance::new(&mut store, &module, &[first_throw.into()]).unwrap();
    let second_throw = second.get_func(&mut store, "throw").unwrap();
    let third = Instance::new(&mut store, &module, &[second_throw.into()]).unwrap();
    // The second instance does not catch the first one's tag.
    let catch = second.get_typed_func::<(), i32>(&mut store, "catch_other").unwrap();
    assert!(is_thrown(&catch.call(&mut store, ()).unwrap_err()));
    // ... but the third catches nothing of the second's either, while a
    // module importing the second's tag does.
    let catch = third.get_typed_func::<(), i32>(&mut store, "catch_other").unwrap();
    assert!(is_thrown(&catch.call(&mut store, ()).unwrap_err()));
    let catcher = Module::new(
        &engine,
        r#"(module
            (import "m" "e" (tag $e))
            (import "m" "throw" (func $throw))
            (func (export "run") (result i32)
                (block $caught
                    (try_table (catch $e $caught) (call $throw))
                    (return (i32.const 0)))
                (i32.const 1)))"#,
    )
    .unwrap();
    let imports: Vec<Extern> = vec![
        second.get_tag(&mut store, "e").unwrap().into(),
        second.get_func(&mut store, "throw").unwrap().into(),
    ];
    let catcher = Instance::new(&mut store, &catcher, &imports).unwrap();
    let run = catcher.get_typed_func::<(), i32>(&mut store, "run").unwrap();
    assert_eq!(run.call(&mut store, ()).unwrap(), 1);
}

/// A host tag defined in a linker is thrown and caught by wasm with its
/// payload.
#[test]
fn host_tag_thrown_and_caught_with_payload() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let ty = TagType::new(FuncType::new(&engine, [ValType::I64, ValType::F32], []));
    let tag = Tag::new(&mut store, &ty).unwrap();
    let mut linker = Linker::new(&engine);
    linker.define(&store, "host", "tag", tag).unwrap();
    let module = Module::new(
        &engine,
        r#"(module
            (import "host" "tag" (tag $t (param i64 f32)))
            (func $thrower (param i64) (throw $t (local.get 0) (f32.const 1.5)))
            (func (export "run") (param i64) (result i64)
                (local f32)
                (block $h (result i64 f32)
                    (try_table (catch $t $h) (call $thrower (local.get 0)))
                    (unreachable))
                (local.set 1)
                (i64.add (i64.trunc_f32_s (local.get 1)))))"#,
    )
    .unwrap();
    let instance = linker.instantiate(&mut store, &module).unwrap();
    let run = instance.get_typed_func::<i64, i64>(&mut store, "run").unwrap();
    assert_eq!(run.call(&mut store, 40).unwrap(), 41);
}

/// An exception never skips a host function: it becomes an error where it
/// reaches the host function's call into wasm. A host function that returns
/// that error throws the exception on into its wasm caller, which catches
/// it (as in Wasmtime, where a host function returning `ThrownException`
/// throws the store's pending exception); one that handles it returns
/// normally.
#[test]
fn exception_through_a_host_function() {
    let engine = Engine::default();
    let mut store: Store<Option<Func>> = Store::new(&engine, None);
    let thrower = Module::new(&engine, THROWER).unwrap();
    let thrower = Instance::new(&mut store, &thrower, &[]).unwrap();
    let throw = thrower.get_func(&mut store, "throw").unwrap();
    *store.data_mut() = Some(throw);

    let forward = Func::wrap(
        &mut store,
        |mut caller: Caller<'_, Option<Func>>, x: i32| -> weft::Result<()> {
            let throw = caller.data().expect("set above");
            throw.typed::<i32, ()>(&caller)?.call(&mut caller, x)
        },
    );
    let swallow = Func::wrap(&mut store, |mut caller: Caller<'_, Option<Func>>, x: i32| -> i32 {
        let throw = caller.data().expect("set above");
        match throw.typed::<i32, ()>(&caller).and_then(|f| f.call(&mut caller, x)) {
            Ok(()) => 0,
            Err(e) if is_thrown(&e) => 1,
            Err(_) => 2,
        }
    });
    let module = Module::new(
        &engine,
        r#"(module
            (import "a" "e" (tag $e (param i32)))
            (import "host" "forward" (func $forward (param i32)))
            (import "host" "swallow" (func $swallow (param i32) (result i32)))
            (func (export "via_forward") (param i32) (result i32)
                (block $caught (result i32)
                    (try_table (catch $e $caught) (call $forward (local.get 0)))
                    (i32.const -1)))
            (func (export "via_swallow") (param i32) (result i32)
                (block $caught (result i32)
                    (try_table (catch $e $caught) (return (call $swallow (local.get 0))))
                    (i32.const -1))))"#,
    )
    .unwrap();
    let imports: Vec<Extern> = vec![
        thrower.get_tag(&mut store, "e").unwrap().into(),
        forward.into(),
        swallow.into(),
    ];
    let instance = Instance::new(&mut store, &module, &imports).unwrap();

    let via_forward = instance.get_typed_func::<i32, i32>(&mut store, "via_forward").unwrap();
    assert_eq!(via_forward.call(&mut store, 5).unwrap(), 5);
    assert!(!store.has_pending_exception(), "caught, so no longer pending");

    let via_swallow = instance.get_typed_func::<i32, i32>(&mut store, "via_swallow").unwrap();
    assert_eq!(via_swallow.call(&mut store, 5).unwrap(), 1);

    // The store is still usable: wasm catches its own exceptions again.
    let catcher = Module::new(
        &engine,
        r#"(module
            (import "a" "e" (tag $e (param i32)))
            (import "a" "throw" (func $throw (param i32)))
            (func (export "run") (result i32)
                (block $caught (result i32)
                    (try_table (catch $e $caught) (call $throw (i32.const 9)))
                    (i32.const -1))))"#,
    )
    .unwrap();
    let imports: Vec<Extern> = vec![
        thrower.get_tag(&mut store, "e").unwrap().into(),
        thrower.get_func(&mut store, "throw").unwrap().into(),
    ];
    let catcher = Instance::new(&mut store, &catcher, &imports).unwrap();
    let run = catcher.get_typed_func::<(), i32>(&mut store, "run").unwrap();
    assert_eq!(run.call(&mut store, ()).unwrap(), 9);
}

#[test]
fn precompiled_module_keeps_exception_handling() {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        r#"(module
            (tag $e (param i32))
            (func $throw (param i32) (throw $e (local.get 0)))
            (func (export "run") (param i32) (result i32)
                (block $caught (result i32)
                    (try_table (catch $e $caught) (call $throw (local.get 0)))
                    (i32.const -1)))
            (func (export "escape") (call $throw (i32.const 1))))"#,
    )
    .unwrap();
    let bytes = module.serialize().unwrap();
    // SAFETY: the bytes were just made by `serialize` with the same engine.
    let module = unsafe { Module::deserialize(&engine, &bytes) }.unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let run = instance.get_typed_func::<i32, i32>(&mut store, "run").unwrap();
    assert_eq!(run.call(&mut store, 33).unwrap(), 33);
    let escape = instance.get_typed_func::<(), ()>(&mut store, "escape").unwrap();
    assert!(is_thrown(&escape.call(&mut store, ()).unwrap_err()));
}

#[test]
fn exceptions_can_be_disabled() {
    let mut config = Config::new();
    config.wasm_exceptions(false);
    let engine = Engine::new(&config).unwrap();
    assert!(Module::new(&engine, THROWER).is_err());
    let module = Module::new(&engine, r#"(module (func (export "f") (result i32) (i32.const 1)))"#).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let f = instance.get_typed_func::<(), i32>(&mut store, "f").unwrap();
    assert_eq!(f.call(&mut store, ()).unwrap(), 1);
}

/// A caught exception reaches the host as an `exnref`: the host reads its
/// tag and payload and hands it back to wasm, which rethrows it.
#[test]
fn exnref_values_cross_to_the_host_and_back() {
    use weft::Val;
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let module = Module::new(
        &engine,
        r#"(module
            (tag $e (export "e") (param i32 i64))
            (global $g (export "g") (mut exnref) (ref.null exn))
            (func (export "catch") (param i32) (result exnref)
                (block $h (result exnref)
                    (try_table (catch_all_ref $h) (throw $e (local.get 0) (i64.const 5)))
                    (unreachable)))
            (func (export "store") (param exnref) (global.set $g (local.get 0)))
            (func (export "is_null") (result i32) (ref.is_null (global.get $g)))
            (func (export "rethrow") (param exnref) (result i32 i64)
                (block $h (result i32 i64)
                    (try_table (catch $e $h) (throw_ref (local.get 0)))
                    (unreachable))))"#,
    )
    .unwrap();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let tag = instance.get_tag(&mut store, "e").unwrap();
    let catch = instance.get_func(&mut store, "catch").unwrap();
    let mut out = [Val::I32(0)];
    catch.call(&mut store, &[Val::I32(21)], &mut out).unwrap();
    let Some(Some(exn)) = out[0].exn_ref().map(|e| e.copied()) else {
        panic!("expected a non-null exnref, got {:?}", out[0]);
    };
    assert!(Tag::eq(&exn.tag(&store).unwrap(), &tag, &store));
    let fields = exn.fields(&store).unwrap();
    assert_eq!(fields.len(), 2);
    assert_eq!(fields[0].i32(), Some(21));
    assert_eq!(fields[1].i64(), Some(5));

    let is_null = instance.get_typed_func::<(), i32>(&mut store, "is_null").unwrap();
    assert_eq!(is_null.call(&mut store, ()).unwrap(), 1);
    let store_fn = instance.get_func(&mut store, "store").unwrap();
    store_fn.call(&mut store, &[Val::ExnRef(Some(exn))], &mut []).unwrap();
    assert_eq!(is_null.call(&mut store, ()).unwrap(), 0);
    let global = instance.get_global(&mut store, "g").unwrap();
    assert!(matches!(global.get(&mut store), Val::ExnRef(Some(_))));

    let rethrow = instance.get_func(&mut store, "rethrow").unwrap();
    let mut out = [Val::I32(0), Val::I64(0)];
    rethrow.call(&mut store, &[Val::ExnRef(Some(exn))], &mut out).unwrap();
    assert_eq!(out[0].i32(), Some(21));
    assert_eq!(out[1].i64(), Some(5));
    // A null exnref makes `throw_ref` trap.
    let err = rethrow.call(&mut store, &[Val::ExnRef(None)], &mut out).unwrap_err();
    assert!(err.downcast_ref::<weft::Trap>().is_some(), "{err:#}");

    // An exnref of another store is refused.
    let mut other = Store::new(&engine, ());
    let other_instance = Instance::new(&mut other, &module, &[]).unwrap();
    let other_catch = other_instance.get_func(&mut other, "catch").unwrap();
    let mut out = [Val::I32(0)];
    other_catch.call(&mut other, &[Val::I32(1)], &mut out).unwrap();
    let err = store_fn.call(&mut store, &out, &mut []).unwrap_err();
    assert!(format!("{err:#}").contains("different store"), "{err:#}");
}

/// Throwing and catching consume fuel: a loop that does nothing else runs
/// out of it.
#[test]
fn throw_and_catch_consume_fuel() {
    let mut config = Config::new();
    config.consume_fuel(true);
    let engine = Engine::new(&config).unwrap();
    let mut store = Store::new(&engine, ());
    store.set_fuel(10_000).unwrap();
    let module = Module::new(
        &engine,
        r#"(module
            (tag $e)
            (func $throw (throw $e))
            (func (export "spin")
                (loop $again
                    (block $h (try_table (catch $e $h) (call $throw)))
                    (br $again))))"#,
    )
    .unwrap();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let spin = instance.get_typed_func::<(), ()>(&mut store, "spin").unwrap();
    let err = spin.call(&mut store, ()).unwrap_err();
    assert_eq!(
        err.downcast_ref::<weft::Trap>(),
        Some(&weft::Trap::OutOfFuel),
        "{err:#}"
    );
    assert_eq!(store.get_fuel().unwrap(), 0);
}

/// Calls to defined functions that cannot throw skip the exception check;
/// the others keep it, however deep the chain of direct calls to a thrower
/// (through an import, a table, or a recursive cycle).
#[test]
fn exceptions_propagate_through_chains_of_direct_calls() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let a = Module::new(&engine, THROWER).unwrap();
    let a = Instance::new(&mut store, &a, &[]).unwrap();
    let module = Module::new(
        &engine,
        r#"(module
            (import "a" "e" (tag $e (param i32)))
            (import "a" "throw" (func $throw (param i32)))
            (type $v (func (param i32)))
            (table funcref (elem $via_import))
            (func $leaf (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
            (func $via_import (param i32) (drop (call $leaf (local.get 0))) (call $throw (local.get 0)))
            (func $middle (param i32) (call $via_import (local.get 0)))
            (func $via_table (param i32) (call_indirect (type $v) (local.get 0) (i32.const 0)))
            (func $even (param i32)
                (if (i32.eqz (local.get 0)) (then (call $throw (i32.const 100))) (else (call $odd (i32.sub (local.get 0) (i32.const 1))))))
            (func $odd (param i32)
                (if (i32.eqz (local.get 0)) (then (call $throw (i32.const 101))) (else (call $even (i32.sub (local.get 0) (i32.const 1))))))
            (func (export "run") (param i32) (result i32)
                (block $h (result i32)
                    (try_table (catch $e $h)
                        (if (i32.eq (local.get 0) (i32.const 0)) (then (call $middle (i32.const 7))))
                        (if (i32.eq (local.get 0) (i32.const 1)) (then (call $via_table (i32.const 8))))
                        (if (i32.eq (local.get 0) (i32.const 2)) (then (call $even (i32.const 9))))
                        (drop (call $leaf (i32.const 0))))
                    (i32.const -1))))"#,
    )
    .unwrap();
    let imports: Vec<Extern> = vec![
        a.get_tag(&mut store, "e").unwrap().into(),
        a.get_func(&mut store, "throw").unwrap().into(),
    ];
    let instance = Instance::new(&mut store, &module, &imports).unwrap();
    let run = instance.get_typed_func::<i32, i32>(&mut store, "run").unwrap();
    assert_eq!(run.call(&mut store, 0).unwrap(), 7);
    assert_eq!(run.call(&mut store, 1).unwrap(), 8);
    assert_eq!(run.call(&mut store, 2).unwrap(), 101);
    assert_eq!(run.call(&mut store, 3).unwrap(), -1);
}

/// The legacy exception handling instructions are off by default (as in
/// Wasmtime) and, switched on, catch by tag, catch all, rethrow what a
/// clause caught and delegate to an outer `try`.
#[test]
fn legacy_exceptions_catch_rethrow_and_delegate() -> weft::Result<()> {
    let wat = r#"(module
        (tag $e (param i32))
        (tag $other)
        (func $throw (param i32) (throw $e (local.get 0)))
        ;; Catches $e and returns its payload plus one.
        (func (export "catch") (param i32) (result i32)
            try (result i32)
                local.get 0
                call $throw
                i32.const 0
            catch $e
                i32.const 1
                i32.add
            end)
        ;; A clause that rethrows: the outer try catches it with catch_all.
        (func (export "rethrow") (result i32)
            try (result i32)
                try
                    i32.const 5
                    call $throw
                catch $e
                    drop
                    rethrow 0
                end
                i32.const 0
            catch_all
                i32.const 7
            end)
        ;; The inner try delegates to the outer one, skipping the inner
        ;; block's handlers.
        (func (export "delegate") (result i32)
            try $outer (result i32)
                try
                    throw $other
                delegate $outer
                i32.const 0
            catch $other
                i32.const 9
            end)
        ;; Nothing catches $other here: it leaves the function.
        (func (export "uncaught") (result i32)
            try (result i32)
                throw $other
            catch $e
            end))"#;
    let err = Module::new(&Engine::default(), wat).unwrap_err();
    assert!(format!("{err:#}").contains("legacy_exceptions"), "{err:#}");

    let mut config = Config::new();
    config.wasm_legacy_exceptions(true);
    let engine = Engine::new(&config)?;
    let module = Module::new(&engine, wat)?;
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[])?;
    let catch = instance.get_typed_func::<i32, i32>(&mut store, "catch")?;
    assert_eq!(catch.call(&mut store, 41)?, 42);
    let rethrow = instance.get_typed_func::<(), i32>(&mut store, "rethrow")?;
    assert_eq!(rethrow.call(&mut store, ())?, 7);
    let delegate = instance.get_typed_func::<(), i32>(&mut store, "delegate")?;
    assert_eq!(delegate.call(&mut store, ())?, 9);
    let uncaught = instance.get_typed_func::<(), i32>(&mut store, "uncaught")?;
    assert!(uncaught.call(&mut store, ()).is_err());
    Ok(())
}
