//! Exceptions made and thrown by the host (`ExnType`, `ExnRefPre`,
//! `ExnRef::new`, `Store::throw`, `Caller::throw`), as in Wasmtime 48:
//! caught by wasm by tag or with `catch_all`, uncaught up to the embedder,
//! refused when their fields or store are wrong, and kept alive by the
//! store while pending across a collection. The modules are text, so these
//! tests need the `wat` feature.

#![cfg(feature = "wat")]

use weft::{
    Caller, Config, Engine, ExnRef, ExnRefPre, ExnType, ExternRef, Func, FuncType, Linker, Module, RootScope, Rooted,
    Store, Tag, TagType, ThrownException, Val, ValType,
};

fn is_thrown(err: &weft::Error) -> bool {
    err.chain().any(|e| e.downcast_ref::<ThrownException>().is_some())
}

/// A tag of `(param i32 i64)` and the exception type of its payload.
fn tag_i32_i64(store: &mut Store<()>) -> (Tag, ExnType) {
    let engine = store.engine().clone();
    let ty = TagType::new(FuncType::new(&engine, [ValType::I32, ValType::I64], []));
    let tag = Tag::new(&mut *store, &ty).unwrap();
    (tag, ExnType::from_tag_type(&ty).unwrap())
}

/// A host function `host.throw (param i32)` that throws `tag` with the
/// payload `(x, x * 10)`, and a linker with it and the tag as `host.tag`.
fn linker_with_thrower(store: &mut Store<()>, tag: Tag, ty: &ExnType) -> Linker<()> {
    let pre = ExnRefPre::new(&mut *store, ty.clone());
    let throw = Func::wrap(
        &mut *store,
        move |mut caller: Caller<'_, ()>, x: i32| -> weft::Result<()> {
            let exn = ExnRef::new(&mut caller, &pre, &tag, &[Val::I32(x), Val::I64(i64::from(x) * 10)])?;
            Ok(caller.throw(exn)?)
        },
    );
    let mut linker = Linker::new(store.engine());
    linker.define(&*store, "host", "tag", tag).unwrap();
    linker.define(&*store, "host", "throw", throw).unwrap();
    linker
}

const CATCHER: &str = r#"(module
    (import "host" "tag" (tag $t (param i32 i64)))
    (import "host" "throw" (func $throw (param i32)))
    (tag $other (param i32 i64))
    ;; Catches by tag: returns the payload.
    (func (export "by_tag") (param i32) (result i32 i64)
        (block $h (result i32 i64)
            (try_table (catch $other $h) (catch $t $h) (call $throw (local.get 0)))
            (unreachable)))
    ;; catch_all: returns 1 when something was caught.
    (func (export "all") (param i32) (result i32)
        (block $h
            (try_table (catch_all $h) (call $throw (local.get 0)))
            (return (i32.const 0)))
        (i32.const 1))
    ;; catch_all_ref: hands the exception back to the host.
    (func (export "all_ref") (param i32) (result exnref)
        (block $h (result exnref)
            (try_table (catch_all_ref $h) (call $throw (local.get 0)))
            (unreachable)))
    ;; throw_ref of an exnref the host made, caught by tag.
    (func (export "rethrow") (param exnref) (result i32 i64)
        (block $h (result i32 i64)
            (try_table (catch $t $h) (throw_ref (local.get 0)))
            (unreachable)))
    ;; Only $other is caught: the host's exception goes on to the embedder.
    (func (export "uncaught") (param i32) (result i32)
        (block $h (result i32 i64)
            (try_table (catch $other $h) (call $throw (local.get 0)))
            (return (i32.const -1)))
        (drop)))"#;

#[test]
fn host_throws_and_wasm_catches_by_tag_with_the_fields() {
    let mut store = Store::<()>::default();
    let (tag, ty) = tag_i32_i64(&mut store);
    let linker = linker_with_thrower(&mut store, tag, &ty);
    let module = Module::new(store.engine(), CATCHER).unwrap();
    let instance = linker.instantiate(&mut store, &module).unwrap();
    let by_tag = instance
        .get_typed_func::<i32, (i32, i64)>(&mut store, "by_tag")
        .unwrap();
    assert_eq!(by_tag.call(&mut store, 7).unwrap(), (7, 70));
    assert_eq!(by_tag.call(&mut store, -3).unwrap(), (-3, -30));
    assert!(!store.has_pending_exception(), "a caught exception is not pending");

    // Caught as an exnref, it is the host's exception, tag and fields.
    let all_ref = instance.get_func(&mut store, "all_ref").unwrap();
    let mut out = [Val::I32(0)];
    all_ref.call(&mut store, &[Val::I32(5)], &mut out).unwrap();
    let exn = *out[0].exn_ref().flatten().expect("a non-null exnref");
    assert!(Tag::eq(&exn.tag(&store).unwrap(), &tag, &store));
    let fields = exn.fields(&store).unwrap();
    assert_eq!((fields[0].i32(), fields[1].i64()), (Some(5), Some(50)));
    assert_eq!(exn.field(&store, 1).unwrap().i64(), Some(50));
    let err = exn.field(&store, 2).unwrap_err();
    assert!(err.to_string().contains("out of bounds"), "{err}");
    assert!(ExnType::eq(&exn.ty(&store).unwrap(), &ty));

    // An exception the host made, never thrown, is an exnref wasm rethrows.
    let pre = ExnRefPre::new(&mut store, ty);
    let made = ExnRef::new(&mut store, &pre, &tag, &[Val::I32(-1), Val::I64(-2)]).unwrap();
    let rethrow = instance.get_func(&mut store, "rethrow").unwrap();
    let mut out = [Val::I32(0), Val::I64(0)];
    rethrow.call(&mut store, &[Val::ExnRef(Some(made))], &mut out).unwrap();
    assert_eq!((out[0].i32(), out[1].i64()), (Some(-1), Some(-2)));
}

#[test]
fn catch_all_catches_the_host_exception() {
    let mut store = Store::<()>::default();
    let (tag, ty) = tag_i32_i64(&mut store);
    let linker = linker_with_thrower(&mut store, tag, &ty);
    let module = Module::new(store.engine(), CATCHER).unwrap();
    let instance = linker.instantiate(&mut store, &module).unwrap();
    let all = instance.get_typed_func::<i32, i32>(&mut store, "all").unwrap();
    assert_eq!(all.call(&mut store, 1).unwrap(), 1);
    assert!(!store.has_pending_exception());
}

#[test]
fn uncaught_host_exception_reaches_the_embedder() {
    let mut store = Store::<()>::default();
    let (tag, ty) = tag_i32_i64(&mut store);
    let linker = linker_with_thrower(&mut store, tag, &ty);
    let module = Module::new(store.engine(), CATCHER).unwrap();
    let instance = linker.instantiate(&mut store, &module).unwrap();
    let uncaught = instance.get_typed_func::<i32, i32>(&mut store, "uncaught").unwrap();
    let err = uncaught.call(&mut store, 9).unwrap_err();
    assert!(is_thrown(&err), "{err:#}");
    assert!(store.has_pending_exception());
    let exn = store.take_pending_exception().expect("the pending exception");
    assert!(!store.has_pending_exception());
    assert!(Tag::eq(&exn.tag(&store).unwrap(), &tag, &store));
    let fields = exn.fields(&store).unwrap();
    assert_eq!((fields[0].i32(), fields[1].i64()), (Some(9), Some(90)));

    // The host function called from the host: the same error, pending.
    let throw = linker.get(&mut store, "host", "throw").unwrap().into_func().unwrap();
    let err = throw.call(&mut store, &[Val::I32(4)], &mut []).unwrap_err();
    assert!(is_thrown(&err), "{err:#}");
    let exn = store.take_pending_exception().expect("the pending exception");
    assert_eq!(exn.fields(&store).unwrap()[0].i32(), Some(4));

    // `Store::throw` outside any call leaves it pending too.
    let pre = ExnRefPre::new(&mut store, ty);
    let exn = ExnRef::new(&mut store, &pre, &tag, &[Val::I32(1), Val::I64(2)]).unwrap();
    let err = store.throw::<()>(exn).unwrap_err();
    assert!(err.to_string().contains("uncaught wasm exception"), "{err}");
    let taken = store.take_pending_exception().expect("thrown");
    assert_eq!(taken.fields(&store).unwrap()[1].i64(), Some(2));

    // The store is still usable: wasm catches the host's exceptions again.
    let by_tag = instance
        .get_typed_func::<i32, (i32, i64)>(&mut store, "by_tag")
        .unwrap();
    assert_eq!(by_tag.call(&mut store, 2).unwrap(), (2, 20));
}

#[test]
fn wrong_fields_or_tag_are_refused() {
    let mut store = Store::<()>::default();
    let (tag, ty) = tag_i32_i64(&mut store);
    let pre = ExnRefPre::new(&mut store, ty.clone());
    assert!(ExnType::eq(pre.ty(), &ty));
    assert_eq!(ty.fields().len(), 2);
    assert_eq!(ty.field(0).unwrap().element_type().unpack(), ValType::I32);
    assert!(ty.field(2).is_none());
    assert_eq!(ty.to_string(), "(exn (field i32) (field i64))");

    let err = ExnRef::new(&mut store, &pre, &tag, &[Val::I32(1)]).unwrap_err();
    assert!(format!("{err:#}").contains("has 2 fields, but 1 values"), "{err:#}");
    let err = ExnRef::new(&mut store, &pre, &tag, &[Val::I32(1), Val::F32(0)]).unwrap_err();
    let message = format!("{err:#}");
    assert!(message.contains("field 1"), "{message}");
    assert!(message.contains("expected i64, found f32"), "{message}");

    // A tag of another type than the allocator's.
    let engine = store.engine().clone();
    let other_ty = TagType::new(FuncType::new(&engine, [ValType::I64, ValType::I32], []));
    let other_tag = Tag::new(&mut store, &other_ty).unwrap();
    let err = ExnRef::new(&mut store, &pre, &other_tag, &[Val::I32(1), Val::I64(2)]).unwrap_err();
    assert!(
        format!("{err:#}").contains("is not the type of the allocator"),
        "{err:#}"
    );

    // A tag type with results is the type of no exception.
    let with_results = TagType::new(FuncType::new(&engine, [], [ValType::I32]));
    assert!(ExnType::from_tag_type(&with_results).is_err());

    // Right fields work, and nothing was thrown by the refusals.
    ExnRef::new(&mut store, &pre, &tag, &[Val::I32(1), Val::I64(2)]).unwrap();
    assert!(!store.has_pending_exception());
}

#[test]
fn objects_of_another_store_are_refused() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let mut other = Store::new(&engine, ());
    let (tag, ty) = tag_i32_i64(&mut store);
    let (other_tag, _) = tag_i32_i64(&mut other);
    let pre = ExnRefPre::new(&mut store, ty.clone());
    let other_pre = ExnRefPre::new(&mut other, ty.clone());
    let fields = [Val::I32(1), Val::I64(2)];

    let err = ExnRef::new(&mut store, &pre, &other_tag, &fields).unwrap_err();
    assert!(
        format!("{err:#}").contains("tag belongs to a different store"),
        "{err:#}"
    );
    let err = ExnRef::new(&mut store, &other_pre, &tag, &fields).unwrap_err();
    assert!(format!("{err:#}").contains("allocator"), "{err:#}");
    let foreign_ref = ExternRef::new(&mut other, 1u32).unwrap();
    let externref_ty = ExnType::new(&engine, [ValType::EXTERNREF]).unwrap();
    let ext_tag = Tag::new(&mut store, &externref_ty.tag_type()).unwrap();
    let ext_pre = ExnRefPre::new(&mut store, externref_ty);
    let err = ExnRef::new(&mut store, &ext_pre, &ext_tag, &[Val::ExternRef(Some(foreign_ref))]).unwrap_err();
    assert!(format!("{err:#}").contains("different store"), "{err:#}");

    // Throwing an exception of another store throws nothing; a host
    // function returning that error makes its caller trap, whatever the
    // handlers.
    let foreign = ExnRef::new(&mut other, &other_pre, &other_tag, &fields).unwrap();
    let err = store.throw::<()>(foreign).unwrap_err();
    assert!(err.to_string().contains("different store"), "{err}");
    assert!(!store.has_pending_exception());

    let mut store: Store<Option<Rooted<ExnRef>>> = Store::new(&engine, Some(foreign));
    let throw = Func::wrap(
        &mut store,
        |mut caller: Caller<'_, Option<Rooted<ExnRef>>>| -> weft::Result<()> {
            let exn = caller.data().expect("set above");
            Ok(caller.throw(exn)?)
        },
    );
    let module = Module::new(
        &engine,
        r#"(module
            (import "host" "throw" (func $throw))
            (func (export "run") (result i32)
                (block $h (try_table (catch_all $h) (call $throw)) (return (i32.const 0)))
                (i32.const 1)))"#,
    )
    .unwrap();
    let instance = weft::Instance::new(&mut store, &module, &[throw.into()]).unwrap();
    let run = instance.get_typed_func::<(), i32>(&mut store, "run").unwrap();
    let err = run.call(&mut store, ()).unwrap_err();
    assert!(format!("{err:#}").contains("different store"), "{err:#}");
    assert!(!store.has_pending_exception());
}

/// An exception whose payload holds the only reference to an extern
/// reference keeps it alive across collections while it is pending, and
/// after it is taken.
#[test]
fn gc_keeps_the_pending_exception_and_its_fields_alive() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let ty = ExnType::new(&engine, [ValType::EXTERNREF, ValType::I32]).unwrap();
    let tag = Tag::new(&mut store, &ty.tag_type()).unwrap();
    let pre = ExnRefPre::new(&mut store, ty);
    let exn = {
        let mut scope = RootScope::new(&mut store);
        let kept = ExternRef::new(&mut scope, String::from("kept")).unwrap();
        ExternRef::new(&mut scope, String::from("dropped")).unwrap();
        ExnRef::new(&mut scope, &pre, &tag, &[Val::ExternRef(Some(kept)), Val::I32(3)]).unwrap()
    };
    assert!(is_thrown(&store.throw::<()>(exn).unwrap_err().into()));
    assert_eq!(store.live_externrefs(), 2);
    store.gc(None).unwrap();
    assert_eq!(store.live_externrefs(), 1, "only the exception's field is kept");
    assert!(store.has_pending_exception());

    // Thrown from a host function and collected during the call: the
    // embedder still gets the field.
    let throw = Func::wrap(&mut store, move |mut caller: Caller<'_, ()>| -> weft::Result<()> {
        let exn = caller.take_pending_exception().expect("pending");
        caller.gc(None)?;
        Ok(caller.throw(exn)?)
    });
    let module = Module::new(
        &engine,
        r#"(module (import "host" "throw" (func $throw)) (func (export "run") (call $throw)))"#,
    )
    .unwrap();
    let instance = weft::Instance::new(&mut store, &module, &[throw.into()]).unwrap();
    let run = instance.get_typed_func::<(), ()>(&mut store, "run").unwrap();
    assert!(is_thrown(&run.call(&mut store, ()).unwrap_err()));
    store.gc(None).unwrap();
    let exn = store.take_pending_exception().expect("pending");
    let fields = exn.fields(&store).unwrap();
    let Some(Some(field)) = fields[0].extern_ref() else {
        panic!("expected an externref, got {:?}", fields[0]);
    };
    let data = field.data(&store).unwrap().expect("data");
    assert_eq!(data.downcast_ref::<String>().map(String::as_str), Some("kept"));
    assert_eq!(fields[1].i32(), Some(3));
}

/// Without exception handling, compiled code does not look for exceptions:
/// a host function's throw is its caller's trap, and the exception stays
/// pending for the embedder.
#[test]
fn host_throw_without_exception_handling_is_an_error() {
    let mut config = Config::new();
    config.wasm_exceptions(false);
    let engine = Engine::new(&config).unwrap();
    let mut store = Store::new(&engine, ());
    let ty = ExnType::new(&engine, [ValType::I32]).unwrap();
    let tag = Tag::new(&mut store, &ty.tag_type()).unwrap();
    let pre = ExnRefPre::new(&mut store, ty);
    let throw = Func::wrap(&mut store, move |mut caller: Caller<'_, ()>| -> weft::Result<i32> {
        let exn = ExnRef::new(&mut caller, &pre, &tag, &[Val::I32(12)])?;
        Ok(caller.throw(exn)?)
    });
    let module = Module::new(
        &engine,
        r#"(module (import "host" "throw" (func $throw (result i32)))
            (func (export "run") (result i32) (i32.add (call $throw) (i32.const 1))))"#,
    )
    .unwrap();
    let instance = weft::Instance::new(&mut store, &module, &[throw.into()]).unwrap();
    let run = instance.get_typed_func::<(), i32>(&mut store, "run").unwrap();
    let err = run.call(&mut store, ()).unwrap_err();
    assert!(is_thrown(&err), "{err:#}");
    let exn = store.take_pending_exception().expect("pending");
    assert_eq!(exn.fields(&store).unwrap()[0].i32(), Some(12));
}
