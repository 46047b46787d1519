//! The component API: compiling, linking host functions, instantiating and
//! calling components with dynamic values.

#![cfg(feature = "component-model")]

use weft::component::{Component, Linker, Val};
use weft::{Engine, Store};

fn component(engine: &Engine, text: &str) -> Component {
    let bytes = wat::parse_str(text).expect("test component is valid text");
    Component::new(engine, bytes).expect("test component compiles")
}

/// Calls the export `name` of `instance` with `args` and returns its one
/// result.
fn call_export<T: 'static>(
    store: &mut Store<T>,
    instance: &weft::component::Instance,
    name: &str,
    args: &[Val],
) -> weft::Result<Val> {
    let f = instance.get_func(&mut *store, name).expect(name);
    let mut out = [Val::Bool(false)];
    f.call(&mut *store, args, &mut out)?;
    Ok(out[0].clone())
}

/// A core module with a bump allocator for `realloc` (a reallocation
/// copies the old block).
const LIBC: &str = r#"
    (memory (export "memory") 1)
    (global $bump (mut i32) (i32.const 1024))
    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
        (local $p i32)
        (local.set $p (i32.and (i32.add (global.get $bump) (i32.sub (local.get 2) (i32.const 1)))
                               (i32.sub (i32.const 0) (local.get 2))))
        (global.set $bump (i32.add (local.get $p) (local.get 3)))
        ;; A reallocation keeps the old contents (as much as fits).
        (if (local.get 0) (then
            (memory.copy (local.get $p) (local.get 0)
                (select (local.get 1) (local.get 3) (i32.lt_u (local.get 1) (local.get 3))))))
        (local.get $p))
"#;

#[test]
fn a_lifted_function_adds_numbers() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(
        &engine,
        r#"(component
            (core module $m (func (export "add") (param i32 i32) (result i32)
                (i32.add (local.get 0) (local.get 1))))
            (core instance $i (instantiate $m))
            (func (export "add") (param "a" u32) (param "b" u32) (result u32)
                (canon lift (core func $i "add"))))"#,
    );
    let mut store = Store::new(&engine, ());
    let linker = Linker::<()>::new(&engine);
    let instance = linker.instantiate(&mut store, &c)?;
    let add = instance.get_func(&mut store, "add").expect("export `add`");
    let mut results = [Val::Bool(false)];
    add.call(&mut store, &[Val::U32(2), Val::U32(40)], &mut results)?;
    assert_eq!(results[0], Val::U32(42));
    // Wrong argument types and counts are errors.
    assert!(add.call(&mut store, &[Val::U32(2)], &mut results).is_err());
    assert!(add
        .call(&mut store, &[Val::String("x".into()), Val::U32(1)], &mut results)
        .is_err());
    Ok(())
}

#[test]
fn strings_go_through_memory_and_realloc() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(
        &engine,
        &format!(
            r#"(component
            (core module $m {LIBC}
                ;; Returns its string argument with its first byte upper-cased:
                ;; a (ptr, len) pair stored at 16.
                (func (export "shout") (param i32 i32) (result i32)
                    (i32.store8 (local.get 0) (i32.sub (i32.load8_u (local.get 0)) (i32.const 32)))
                    (i32.store (i32.const 16) (local.get 0))
                    (i32.store (i32.const 20) (local.get 1))
                    (i32.const 16)))
            (core instance $i (instantiate $m))
            (func (export "shout") (param "s" string) (result string)
                (canon lift (core func $i "shout") (memory (core memory $i "memory")) (realloc (core func $i "realloc")))))"#
        ),
    );
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    let shout = instance.get_func(&mut store, "shout").expect("export `shout`");
    let mut results = [Val::Bool(false)];
    shout.call(&mut store, &[Val::String("hello".into())], &mut results)?;
    assert_eq!(results[0], Val::String("Hello".into()));
    Ok(())
}

#[test]
fn the_guest_calls_a_host_function() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(
        &engine,
        &format!(
            r#"(component
            (import "greet" (func $greet (param "name" string) (result string)))
            (core module $libc {LIBC})
            (core instance $libc (instantiate $libc))
            (core func $greet (canon lower (func $greet) (memory (core memory $libc "memory")) (realloc (core func $libc "realloc"))))
            (core module $m
                (import "host" "greet" (func $greet (param i32 i32 i32)))
                (import "libc" "memory" (memory 1))
                ;; Calls greet("wasm") and returns the length of the answer.
                (func (export "run") (result i32)
                    (i32.store (i32.const 0) (i32.const 0x6d736177))
                    (call $greet (i32.const 0) (i32.const 4) (i32.const 8))
                    (i32.load (i32.const 12))))
            (core instance $i (instantiate $m
                (with "host" (instance (export "greet" (func $greet))))
                (with "libc" (instance $libc))))
            (func (export "run") (result u32) (canon lift (core func $i "run"))))"#
        ),
    );
    let mut store = Store::new(&engine, Vec::<String>::new());
    let mut linker = Linker::<Vec<String>>::new(&engine);
    linker.root().func_new("greet", |mut store, args, results| {
        let Val::String(name) = &args[0] else {
            weft::bail!("expected a string");
        };
        store.data_mut().push(name.clone());
        results[0] = Val::String(format!("hello, {name}!"));
        Ok(())
    })?;
    let instance = linker.instantiate(&mut store, &c)?;
    let run = instance.get_func(&mut store, "run").expect("export `run`");
    let mut results = [Val::Bool(false)];
    run.call(&mut store, &[], &mut results)?;
    assert_eq!(results[0], Val::U32("hello, wasm!".len() as u32));
    assert_eq!(store.data(), &["wasm".to_string()]);
    Ok(())
}

#[test]
fn a_missing_import_is_named() {
    let engine = Engine::default();
    let c = component(&engine, r#"(component (import "f" (func)))"#);
    let mut store = Store::new(&engine, ());
    let err = Linker::<()>::new(&engine).instantiate(&mut store, &c).unwrap_err();
    assert!(format!("{err:#}").contains("`f`"), "{err:#}");
}

#[test]
fn components_call_each_other() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(
        &engine,
        &format!(
            r#"(component
            (component $callee
                (core module $m {LIBC}
                    (func (export "len") (param i32 i32) (result i32) (local.get 1)))
                (core instance $i (instantiate $m))
                (func (export "len") (param "s" string) (result u32)
                    (canon lift (core func $i "len") (memory (core memory $i "memory")) (realloc (core func $i "realloc")))))
            ;; The caller is a sibling of the callee: a component instance
            ;; may not call into its own child.
            (component $caller
                (import "callee" (instance $callee (export "len" (func (param "s" string) (result u32)))))
                (core module $libc {LIBC})
                (core instance $libc (instantiate $libc))
                (core func $len (canon lower (func $callee "len") (memory (core memory $libc "memory")) (realloc (core func $libc "realloc"))))
                (core module $m
                    (import "callee" "len" (func $len (param i32 i32) (result i32)))
                    (import "libc" "memory" (memory 1))
                    (func (export "run") (result i32)
                        (i32.store (i32.const 0) (i32.const 0x64636261))
                        (call $len (i32.const 0) (i32.const 3))))
                (core instance $i (instantiate $m
                    (with "callee" (instance (export "len" (func $len))))
                    (with "libc" (instance $libc))))
                (func (export "run") (result u32) (canon lift (core func $i "run"))))
            (instance $callee (instantiate $callee))
            (instance $caller (instantiate $caller (with "callee" (instance $callee))))
            (export "run" (func $caller "run")))"#
        ),
    );
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    let run = instance.get_func(&mut store, "run").expect("export `run`");
    let mut results = [Val::Bool(false)];
    run.call(&mut store, &[], &mut results)?;
    assert_eq!(results[0], Val::U32(3));
    Ok(())
}

/// A component instance may not call into itself, an ancestor or a
/// descendant ("cannot enter component instance", as in the reference test
/// `async/trap-on-reenter.wast` and Wasmtime); siblings call each other.
#[test]
fn only_siblings_call_each_other() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(
        &engine,
        r#"(component
            (core module $p (func (export "seven") (result i32) (i32.const 7)))
            (core instance $p (instantiate $p))
            (func $seven (result u32) (canon lift (core func $p "seven")))
            ;; `get` returns 5; `call-up` returns what its import `up` does.
            (component $child
                (import "up" (func $up (result u32)))
                (core func $up' (canon lower (func $up)))
                (core module $m
                    (import "" "up" (func $up (result i32)))
                    (func (export "get") (result i32) (i32.const 5))
                    (func (export "call-up") (result i32) (call $up)))
                (core instance $i (instantiate $m (with "" (instance (export "up" (func $up'))))))
                (func (export "get") (result u32) (canon lift (core func $i "get")))
                (func (export "call-up") (result u32) (canon lift (core func $i "call-up"))))
            ;; `run` returns what its import `get` does, plus 1.
            (component $caller
                (import "get" (func $get (result u32)))
                (core func $get' (canon lower (func $get)))
                (core module $m
                    (import "" "get" (func $get (result i32)))
                    (func (export "run") (result i32) (i32.add (call $get) (i32.const 1))))
                (core instance $i (instantiate $m (with "" (instance (export "get" (func $get'))))))
                (func (export "run") (result u32) (canon lift (core func $i "run"))))
            ;; The child's `up` is the root's own lifted function.
            (instance $child (instantiate $child (with "up" (func $seven))))
            (instance $sibling (instantiate $caller (with "get" (func $child "get"))))
            ;; The root's own core code calls its child's `get`.
            (core func $get (canon lower (func $child "get")))
            (core module $r
                (import "" "get" (func $get (result i32)))
                (func (export "down") (result i32) (i32.add (call $get) (i32.const 1))))
            (core instance $r (instantiate $r (with "" (instance (export "get" (func $get))))))
            (func (export "down") (result u32) (canon lift (core func $r "down")))
            (export "up" (func $child "call-up"))
            (export "sibling" (func $sibling "run"))
            (export "get" (func $child "get"))
            (export "seven" (func $seven)))"#,
    );
    // Each call in a fresh instance: a trap leaves the instance unenterable.
    let call = |name: &str| -> weft::Result<Val> {
        let mut store = Store::new(&engine, ());
        let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
        call_export(&mut store, &instance, name, &[])
    };
    // The host enters any of them.
    assert_eq!(call("get")?, Val::U32(5));
    assert_eq!(call("seven")?, Val::U32(7));
    // A sibling calls the child.
    assert_eq!(call("sibling")?, Val::U32(6));
    // The root calls its own child; the child calls its parent.
    for name in ["down", "up"] {
        let err = call(name).unwrap_err();
        assert!(
            format!("{err:#}").contains("wasm trap: cannot enter component instance"),
            "{name}: {err:#}"
        );
    }
    Ok(())
}

/// A component defining a resource `r` with a destructor that counts drops
/// in a global, `new(rep) -> own<r>`, `rep(borrow<r>) -> u32` and `drops()`.
const RESOURCE: &str = r#"(component
    (core module $d
        (global $drops (mut i32) (i32.const 0))
        (func (export "dtor") (param i32) (global.set $drops (i32.add (global.get $drops) (i32.const 1))))
        (func (export "drops") (result i32) (global.get $drops)))
    (core instance $d (instantiate $d))
    (type $r (resource (rep i32) (dtor (core func $d "dtor"))))
    (core func $new (canon resource.new $r))
    (core module $m
        (import "" "new" (func $new (param i32) (result i32)))
        (func (export "new") (param i32) (result i32) (call $new (local.get 0)))
        (func (export "rep") (param i32) (result i32) (local.get 0)))
    (core instance $i (instantiate $m (with "" (instance (export "new" (func $new))))))
    (export $r' "r" (type $r))
    (func (export "new") (param "rep" u32) (result (own $r')) (canon lift (core func $i "new")))
    (func (export "rep") (param "r" (borrow $r')) (result u32) (canon lift (core func $i "rep")))
    (func (export "drops") (result u32) (canon lift (core func $d "drops"))))"#;

#[test]
fn guest_resources_reach_the_host_and_come_back() -> weft::Result<()> {
    let engine = Engine::default();
    let c = match Component::new(&engine, wat::parse_str(RESOURCE)?) {
        Ok(c) => c,
        Err(e) => panic!("{e:#}"),
    };
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    let new = instance.get_func(&mut store, "new").expect("new");
    let rep = instance.get_func(&mut store, "rep").expect("rep");
    let drops = instance.get_func(&mut store, "drops").expect("drops");
    let mut out = [Val::Bool(false)];
    new.call(&mut store, &[Val::U32(7)], &mut out)?;
    let Val::Resource(r) = out[0].clone() else {
        panic!("expected a resource, got {:?}", out[0]);
    };
    assert!(r.owned());
    // Lent to the guest as a borrow, the host keeps it.
    rep.call(&mut store, &[Val::Resource(r)], &mut out)?;
    assert_eq!(out[0], Val::U32(7));
    drops.call(&mut store, &[], &mut out)?;
    assert_eq!(out[0], Val::U32(0));
    // Dropping it runs the guest's destructor once; dropping again fails.
    r.resource_drop(&mut store)?;
    drops.call(&mut store, &[], &mut out)?;
    assert_eq!(out[0], Val::U32(1));
    assert!(r.resource_drop(&mut store).is_err());
    Ok(())
}

struct Counter(u32);

#[test]
fn host_resources_live_in_a_resource_table() -> weft::Result<()> {
    use weft::component::{Resource, ResourceTable, ResourceType};
    let engine = Engine::default();
    // The guest makes a counter, bumps it twice through a borrow, reads it,
    // then drops its handle, which runs the host's destructor.
    let c = component(
        &engine,
        r#"(component
            (import "counter" (type $c (sub resource)))
            (import "new" (func $new (result (own $c))))
            (import "bump" (func $bump (param "c" (borrow $c)) (result u32)))
            (core func $new (canon lower (func $new)))
            (core func $bump (canon lower (func $bump)))
            (core func $drop (canon resource.drop $c))
            (core module $m
                (import "" "new" (func $new (result i32)))
                (import "" "bump" (func $bump (param i32) (result i32)))
                (import "" "drop" (func $drop (param i32)))
                (func (export "run") (result i32) (local $h i32) (local $v i32)
                    (local.set $h (call $new))
                    (drop (call $bump (local.get $h)))
                    (local.set $v (call $bump (local.get $h)))
                    (call $drop (local.get $h))
                    (local.get $v)))
            (core instance $i (instantiate $m (with "" (instance
                (export "new" (func $new)) (export "bump" (func $bump)) (export "drop" (func $drop))))))
            (func (export "run") (result u32) (canon lift (core func $i "run"))))"#,
    );
    struct Host {
        table: ResourceTable,
        dropped: Vec<u32>,
    }
    let mut store = Store::new(
        &engine,
        Host {
            table: ResourceTable::new(),
            dropped: Vec::new(),
        },
    );
    let mut linker = Linker::<Host>::new(&engine);
    linker
        .root()
        .resource("counter", ResourceType::host::<Counter>(), |mut store, rep| {
            let host = store.data_mut();
            host.table.delete(Resource::<Counter>::new_own(rep))?;
            host.dropped.push(rep);
            Ok(())
        })?;
    linker.root().func_new("new", |mut store, _, results| {
        let r = store.data_mut().table.push(Counter(0))?;
        results[0] = Val::Resource(r.try_into_resource_any(&mut store)?);
        Ok(())
    })?;
    linker.root().func_new("bump", |mut store, args, results| {
        let Val::Resource(r) = &args[0] else {
            weft::bail!("expected a resource");
        };
        let r = Resource::<Counter>::try_from_resource_any(*r, &mut store)?;
        let counter = store.data_mut().table.get_mut(&r)?;
        counter.0 += 1;
        results[0] = Val::U32(counter.0);
        Ok(())
    })?;
    let instance = linker.instantiate(&mut store, &c)?;
    let run = instance.get_func(&mut store, "run").expect("run");
    let mut out = [Val::Bool(false)];
    run.call(&mut store, &[], &mut out)?;
    assert_eq!(out[0], Val::U32(2));
    assert_eq!(store.data().dropped, vec![0]);
    assert!(store.data().table.is_empty());
    Ok(())
}

#[test]
fn instance_pre_instantiates_many_times() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(
        &engine,
        r#"(component
            (import "seven" (func $seven (result u32)))
            (core func $seven (canon lower (func $seven)))
            (core module $m
                (import "" "seven" (func $seven (result i32)))
                (func (export "run") (result i32) (i32.add (call $seven) (i32.const 1))))
            (core instance $i (instantiate $m (with "" (instance (export "seven" (func $seven))))))
            (func (export "run") (result u32) (canon lift (core func $i "run"))))"#,
    );
    let mut linker = Linker::<()>::new(&engine);
    linker.root().func_new("seven", |_, _, results| {
        results[0] = Val::U32(7);
        Ok(())
    })?;
    let pre = linker.instantiate_pre(&c)?;
    for _ in 0..3 {
        let mut store = Store::new(&engine, ());
        let instance = pre.instantiate(&mut store)?;
        let run = instance.get_func(&mut store, "run").expect("run");
        let mut out = [Val::Bool(false)];
        run.call(&mut store, &[], &mut out)?;
        assert_eq!(out[0], Val::U32(8));
    }
    // A store of another engine is refused.
    let mut other = Store::new(&Engine::default(), ());
    assert!(pre.instantiate(&mut other).is_err());
    Ok(())
}

#[test]
fn a_component_reports_its_type() {
    use weft::component::types::{ComponentItem, Type};
    let engine = Engine::default();
    let c = component(
        &engine,
        r#"(component
            (type $point (record (field "x" s32) (field "y" s32)))
            (import "log" (func (param "msg" string)))
            (core module $m (func (export "f") (param i32 i32) (result i32) (local.get 0)))
            (core instance $i (instantiate $m))
            (export $p "point" (type $point))
            (func (export "x") (param "p" $p) (result s32) (canon lift (core func $i "f"))))"#,
    );
    let ty = c.component_type();
    let imports: Vec<_> = ty.imports(&engine).collect();
    assert_eq!(imports.len(), 1);
    let (name, ComponentItem::ComponentFunc(log)) = &imports[0] else {
        panic!("expected a function import, got {imports:?}");
    };
    assert_eq!(*name, "log");
    assert_eq!(
        log.params().map(|(n, t)| (n.to_string(), t)).collect::<Vec<_>>(),
        [("msg".to_string(), Type::String)]
    );
    let Some(ComponentItem::ComponentFunc(x)) = ty.get_export(&engine, "x") else {
        panic!("expected the function export `x`");
    };
    let params: Vec<_> = x.params().collect();
    let Type::Record(point) = &params[0].1 else {
        panic!("expected a record parameter");
    };
    let fields: Vec<_> = point.fields().map(|f| (f.name.to_string(), f.ty)).collect();
    assert_eq!(fields, [("x".to_string(), Type::S32), ("y".to_string(), Type::S32)]);
    assert_eq!(x.results().collect::<Vec<_>>(), [Type::S32]);
    assert!(ty.get_export(&engine, "nope").is_none());
}

/// An outer component calling functions of an inner one (its sibling under
/// the root) whose types are scalars: the calls go through fused adapters.
const FUSED: &str = r#"(component
    (component $inner
        (core module $m
            (global $post (mut i32) (i32.const 0))
            (func (export "id8") (param i32) (result i32) (local.get 0))
            (func (export "not") (param i32) (result i32) (i32.eqz (local.get 0)))
            (func (export "ch") (param i32) (result i32) (local.get 0))
            (func (export "dir") (param i32) (result i32) (local.get 0))
            (func (export "add") (param i64 f64) (result f64) (f64.add (f64.convert_i64_s (local.get 0)) (local.get 1)))
            (func (export "post") (param i32) (global.set $post (i32.add (global.get $post) (i32.const 1))))
            (func (export "posts") (result i32) (global.get $post)))
        (core instance $i (instantiate $m))
        (type $dir (enum "north" "south"))
        (export $d "direction" (type $dir))
        (func (export "id8") (param "x" u8) (result u8) (canon lift (core func $i "id8") (post-return (core func $i "post"))))
        (func (export "not") (param "x" bool) (result bool) (canon lift (core func $i "not")))
        (func (export "ch") (param "x" char) (result char) (canon lift (core func $i "ch")))
        (func (export "dir") (param "x" $d) (result $d) (canon lift (core func $i "dir")))
        (func (export "add") (param "a" s64) (param "b" f64) (result f64) (canon lift (core func $i "add")))
        (func (export "posts") (result u32) (canon lift (core func $i "posts"))))
    (component $outer
        (import "inner" (instance $inner
            (type $dir (enum "north" "south"))
            (export "direction" (type $d (eq $dir)))
            (export "id8" (func (param "x" u8) (result u8)))
            (export "not" (func (param "x" bool) (result bool)))
            (export "ch" (func (param "x" char) (result char)))
            (export "dir" (func (param "x" $d) (result $d)))
            (export "add" (func (param "a" s64) (param "b" f64) (result f64)))))
        (core func $id8 (canon lower (func $inner "id8")))
        (core func $not (canon lower (func $inner "not")))
        (core func $ch (canon lower (func $inner "ch")))
        (core func $dir (canon lower (func $inner "dir")))
        (core func $add (canon lower (func $inner "add")))
        (core module $m
            (import "" "id8" (func $id8 (param i32) (result i32)))
            (import "" "not" (func $not (param i32) (result i32)))
            (import "" "ch" (func $ch (param i32) (result i32)))
            (import "" "dir" (func $dir (param i32) (result i32)))
            (import "" "add" (func $add (param i64 f64) (result f64)))
            (func (export "id8") (param i32) (result i32) (call $id8 (local.get 0)))
            (func (export "not") (param i32) (result i32) (call $not (local.get 0)))
            (func (export "ch") (param i32) (result i32) (call $ch (local.get 0)))
            (func (export "dir") (param i32) (result i32) (call $dir (local.get 0)))
            (func (export "add") (result f64) (call $add (i64.const 40) (f64.const 2.5))))
        (core instance $o (instantiate $m (with "" (instance
            (export "id8" (func $id8)) (export "not" (func $not)) (export "ch" (func $ch))
            (export "dir" (func $dir)) (export "add" (func $add))))))
        (func (export "id8") (param "x" u32) (result u32) (canon lift (core func $o "id8")))
        (func (export "not") (param "x" u32) (result u32) (canon lift (core func $o "not")))
        (func (export "ch") (param "x" u32) (result u32) (canon lift (core func $o "ch")))
        (func (export "dir") (param "x" u32) (result u32) (canon lift (core func $o "dir")))
        (func (export "add") (result f64) (canon lift (core func $o "add"))))
    (instance $inner (instantiate $inner))
    (instance $outer (instantiate $outer (with "inner" (instance $inner))))
    (export "id8" (func $outer "id8"))
    (export "not" (func $outer "not"))
    (export "ch" (func $outer "ch"))
    (export "dir" (func $outer "dir"))
    (export "add" (func $outer "add"))
    (export "posts" (func $inner "posts")))"#;

#[test]
fn scalar_calls_between_components_use_fused_adapters() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(&engine, FUSED);
    assert_eq!(c.fused_adapters(), 5);
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    let call = |store: &mut Store<()>, name: &str, args: &[Val]| call_export(store, &instance, name, args);
    // A u8 keeps its low byte; the post-return runs once per call.
    assert_eq!(call(&mut store, "id8", &[Val::U32(0x1ff)])?, Val::U32(0xff));
    assert_eq!(call(&mut store, "id8", &[Val::U32(7)])?, Val::U32(7));
    // A bool is 0 or 1 whatever the caller passed.
    assert_eq!(call(&mut store, "not", &[Val::U32(0)])?, Val::U32(1));
    assert_eq!(call(&mut store, "not", &[Val::U32(5)])?, Val::U32(0));
    assert_eq!(call(&mut store, "ch", &[Val::U32('é' as u32)])?, Val::U32('é' as u32));
    assert_eq!(call(&mut store, "dir", &[Val::U32(1)])?, Val::U32(1));
    assert_eq!(call(&mut store, "add", &[])?, Val::Float64(42.5));
    // Invalid chars and enum cases trap, in a fresh store each.
    for (name, arg, trap) in [
        ("ch", 0xd800, weft::Trap::InvalidChar),
        ("ch", 0x110000, weft::Trap::InvalidChar),
        ("dir", 2, weft::Trap::InvalidDiscriminant),
    ] {
        let mut store = Store::new(&engine, ());
        let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
        let f = instance.get_func(&mut store, name).expect(name);
        let mut out = [Val::Bool(false)];
        let err = f.call(&mut store, &[Val::U32(arg)], &mut out).unwrap_err();
        assert_eq!(
            err.downcast_ref::<weft::Trap>(),
            Some(&trap),
            "{name}({arg:#x}): {err:?}"
        );
    }
    // The post-return of the inner `id8` ran twice.
    let posts = instance.get_func(&mut store, "posts").expect("posts");
    let mut out = [Val::Bool(false)];
    posts.call(&mut store, &[], &mut out)?;
    assert_eq!(out[0], Val::U32(2));
    Ok(())
}

#[test]
fn values_of_another_store_are_errors() -> weft::Result<()> {
    let engine = Engine::default();
    let c = match Component::new(&engine, wat::parse_str(RESOURCE)?) {
        Ok(c) => c,
        Err(e) => panic!("{e:#}"),
    };
    let mut a = Store::new(&engine, ());
    let mut b = Store::new(&engine, ());
    let linker = Linker::<()>::new(&engine);
    let ia = linker.instantiate(&mut a, &c)?;
    let ib = linker.instantiate(&mut b, &c)?;
    let new_a = ia.get_func(&mut a, "new").expect("new");
    let rep_b = ib.get_func(&mut b, "rep").expect("rep");
    let mut out = [Val::Bool(false)];
    // A function of store `a` called with store `b`.
    assert!(new_a.call(&mut b, &[Val::U32(1)], &mut out).is_err());
    // An instance of store `a` looked up in store `b`.
    assert!(ia.get_func(&mut b, "new").is_none());
    // A resource of store `a` passed to a function of store `b`.
    new_a.call(&mut a, &[Val::U32(1)], &mut out)?;
    let Val::Resource(r) = out[0].clone() else {
        panic!("expected a resource");
    };
    assert!(rep_b.call(&mut b, &[Val::Resource(r)], &mut out).is_err());
    assert!(r.resource_drop(&mut b).is_err());
    // Store `a` is still fine.
    r.resource_drop(&mut a)?;
    Ok(())
}

/// An inner component that greets by name (string in, string out) and
/// counts the bytes of a string; an outer one (its sibling under the root)
/// that calls both with strings written into its own memory.
fn fused_strings() -> String {
    format!(
        r#"(component
        (component $inner
            (core module $m {LIBC}
                ;; greet(name) = "hi " + name, returned through a return area at 16.
                (func (export "greet") (param $p i32) (param $n i32) (result i32) (local $d i32)
                    (local.set $d (call 0 (i32.const 0) (i32.const 0) (i32.const 1) (i32.add (local.get $n) (i32.const 3))))
                    (i32.store8 (local.get $d) (i32.const 104))
                    (i32.store8 offset=1 (local.get $d) (i32.const 105))
                    (i32.store8 offset=2 (local.get $d) (i32.const 32))
                    (memory.copy (i32.add (local.get $d) (i32.const 3)) (local.get $p) (local.get $n))
                    (i32.store (i32.const 16) (local.get $d))
                    (i32.store (i32.const 20) (i32.add (local.get $n) (i32.const 3)))
                    (i32.const 16))
                (func (export "len") (param i32 i32) (result i32) (local.get 1)))
            (core instance $i (instantiate $m))
            (func (export "greet") (param "name" string) (result string)
                (canon lift (core func $i "greet") (memory (core memory $i "memory")) (realloc (core func $i "realloc"))))
            (func (export "len") (param "s" string) (result u32)
                (canon lift (core func $i "len") (memory (core memory $i "memory")) (realloc (core func $i "realloc")))))
        (component $outer
            (import "inner" (instance $inner
                (export "greet" (func (param "name" string) (result string)))
                (export "len" (func (param "s" string) (result u32)))))
            (core module $libc {LIBC})
            (core instance $libc (instantiate $libc))
            (core func $greet (canon lower (func $inner "greet") (memory (core memory $libc "memory")) (realloc (core func $libc "realloc"))))
            (core func $len (canon lower (func $inner "len") (memory (core memory $libc "memory")) (realloc (core func $libc "realloc"))))
            (core module $m
                (import "" "greet" (func $greet (param i32 i32 i32)))
                (import "" "len" (func $len (param i32 i32) (result i32)))
                (import "" "memory" (memory 1))
                ;; Writes "wasm" at 0, calls greet with a return area at 8 and
                ;; returns the length of the answer; "bad" passes 0xff, which is
                ;; not UTF-8.
                (func (export "greet-len") (result i32)
                    (i32.store (i32.const 0) (i32.const 0x6d736177))
                    (call $greet (i32.const 0) (i32.const 4) (i32.const 8))
                    (i32.load (i32.const 12)))
                (func (export "greet-first") (result i32)
                    (i32.load8_u (i32.load (i32.const 8))))
                (func (export "len") (param i32) (result i32)
                    (i32.store (i32.const 0) (i32.const 0x63a9c362))
                    (call $len (i32.const 0) (local.get 0)))
                (func (export "bad") (result i32)
                    (i32.store8 (i32.const 0) (i32.const 0xff))
                    (call $len (i32.const 0) (i32.const 1))))
            (core instance $o (instantiate $m (with "" (instance
                (export "greet" (func $greet)) (export "len" (func $len)) (export "memory" (memory $libc "memory"))))))
            (func (export "greet-len") (result u32) (canon lift (core func $o "greet-len")))
            (func (export "greet-first") (result u32) (canon lift (core func $o "greet-first")))
            (func (export "len") (param "n" u32) (result u32) (canon lift (core func $o "len")))
            (func (export "bad") (result u32) (canon lift (core func $o "bad"))))
        (instance $inner (instantiate $inner))
        (instance $outer (instantiate $outer (with "inner" (instance $inner))))
        (export "greet-len" (func $outer "greet-len"))
        (export "greet-first" (func $outer "greet-first"))
        (export "len" (func $outer "len"))
        (export "bad" (func $outer "bad")))"#
    )
}

#[test]
fn strings_between_components_use_fused_adapters() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(&engine, &fused_strings());
    assert_eq!(c.fused_adapters(), 2);
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    let mut call = |name: &str, args: &[Val]| call_export(&mut store, &instance, name, args);
    // "hi wasm", copied back into the caller's memory.
    assert_eq!(call("greet-len", &[])?, Val::U32(7));
    assert_eq!(call("greet-first", &[])?, Val::U32(b'h' as u32));
    // "bé" (3 bytes of UTF-8) crosses whole; cutting "é" in half traps.
    assert_eq!(call("len", &[Val::U32(3)])?, Val::U32(3));
    let err = call("len", &[Val::U32(2)]).unwrap_err();
    assert!(format!("{err:#}").contains("wasm trap: invalid UTF-8"), "{err:?}");
    Ok(())
}

#[test]
fn invalid_utf8_traps_in_the_adapter() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(&engine, &fused_strings());
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    let bad = instance.get_func(&mut store, "bad").expect("bad");
    let mut out = [Val::Bool(false)];
    let err = bad.call(&mut store, &[], &mut out).unwrap_err();
    assert!(format!("{err:#}").contains("wasm trap: invalid UTF-8"), "{err:?}");
    Ok(())
}

#[test]
fn integer_lists_between_components_use_fused_adapters() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(
        &engine,
        &format!(
            r#"(component
            (component $inner
                (core module $m {LIBC}
                    ;; sum(list<u16>) and double(list<u32>) -> list<u32>.
                    (func (export "sum") (param $p i32) (param $n i32) (result i32) (local $s i32)
                        (block (loop
                            (br_if 1 (i32.eqz (local.get $n)))
                            (local.set $s (i32.add (local.get $s) (i32.load16_u (local.get $p))))
                            (local.set $p (i32.add (local.get $p) (i32.const 2)))
                            (local.set $n (i32.sub (local.get $n) (i32.const 1)))
                            (br 0)))
                        (local.get $s))
                    (func (export "double") (param $p i32) (param $n i32) (result i32) (local $i i32)
                        (block (loop
                            (br_if 1 (i32.ge_u (local.get $i) (local.get $n)))
                            (i32.store (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 2)))
                                (i32.shl (i32.load (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 2)))) (i32.const 1)))
                            (local.set $i (i32.add (local.get $i) (i32.const 1)))
                            (br 0)))
                        (i32.store (i32.const 16) (local.get $p))
                        (i32.store (i32.const 20) (local.get $n))
                        (i32.const 16)))
                (core instance $i (instantiate $m))
                (func (export "sum") (param "l" (list u16)) (result u32)
                    (canon lift (core func $i "sum") (memory (core memory $i "memory")) (realloc (core func $i "realloc"))))
                (func (export "double") (param "l" (list u32)) (result (list u32))
                    (canon lift (core func $i "double") (memory (core memory $i "memory")) (realloc (core func $i "realloc")))))
            (component $outer
                (import "inner" (instance $inner
                    (export "sum" (func (param "l" (list u16)) (result u32)))
                    (export "double" (func (param "l" (list u32)) (result (list u32))))))
                (core module $libc {LIBC})
                (core instance $libc (instantiate $libc))
                (core func $sum (canon lower (func $inner "sum") (memory (core memory $libc "memory")) (realloc (core func $libc "realloc"))))
                (core func $double (canon lower (func $inner "double") (memory (core memory $libc "memory")) (realloc (core func $libc "realloc"))))
                (core module $m
                    (import "" "sum" (func $sum (param i32 i32) (result i32)))
                    (import "" "double" (func $double (param i32 i32 i32)))
                    (import "" "memory" (memory 1))
                    ;; The list [1, 2, 300] of u16 at `p`.
                    (func (export "sum") (param $p i32) (result i32)
                        (i32.store16 (local.get $p) (i32.const 1))
                        (i32.store16 offset=2 (local.get $p) (i32.const 2))
                        (i32.store16 offset=4 (local.get $p) (i32.const 300))
                        (call $sum (local.get $p) (i32.const 3)))
                    ;; double([5, 7]) read back from the return area at 8.
                    (func (export "double") (result i32)
                        (i32.store (i32.const 32) (i32.const 5))
                        (i32.store (i32.const 36) (i32.const 7))
                        (call $double (i32.const 32) (i32.const 2) (i32.const 8))
                        (i32.add
                            (i32.mul (i32.load (i32.load (i32.const 8))) (i32.const 100))
                            (i32.add (i32.load offset=4 (i32.load (i32.const 8))) (i32.load (i32.const 12))))))
                (core instance $o (instantiate $m (with "" (instance
                    (export "sum" (func $sum)) (export "double" (func $double)) (export "memory" (memory $libc "memory"))))))
                (func (export "sum") (param "p" u32) (result u32) (canon lift (core func $o "sum")))
                (func (export "double") (result u32) (canon lift (core func $o "double"))))
            (instance $inner (instantiate $inner))
            (instance $outer (instantiate $outer (with "inner" (instance $inner))))
            (export "sum" (func $outer "sum"))
            (export "double" (func $outer "double")))"#
        ),
    );
    assert_eq!(c.fused_adapters(), 2);
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    let mut call = |name: &str, args: &[Val]| call_export(&mut store, &instance, name, args);
    assert_eq!(call("sum", &[Val::U32(64)])?, Val::U32(303));
    // [10, 14]: 10 * 100 + 14 + the length 2.
    assert_eq!(call("double", &[])?, Val::U32(1016));
    // A list of u16 at an odd address traps.
    let err = call("sum", &[Val::U32(65)]).unwrap_err();
    assert_eq!(
        err.downcast_ref::<weft::Trap>(),
        Some(&weft::Trap::UnalignedPointer),
        "{err:?}"
    );
    assert!(format!("{err:#}").contains("wasm trap: unaligned pointer"), "{err:#}");
    Ok(())
}

#[test]
fn records_of_scalars_cross_fused_adapters_flat() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(
        &engine,
        r#"(component
            (component $inner
                (core module $m (func (export "sum") (param i32 i32 i32) (result i32)
                    (i32.add (local.get 0) (i32.add (local.get 1) (local.get 2)))))
                (core instance $i (instantiate $m))
                (type $pt (record (field "x" s16) (field "y" s16)))
                (export $p "point-type" (type $pt))
                (func (export "sum") (param "p" $p) (param "z" (tuple u8)) (result s32)
                    (canon lift (core func $i "sum"))))
            (component $outer
                (import "inner" (instance $inner
                    (type $pt (record (field "x" s16) (field "y" s16)))
                    (export "point-type" (type $p (eq $pt)))
                    (export "sum" (func (param "p" $p) (param "z" (tuple u8)) (result s32)))))
                (core func $sum (canon lower (func $inner "sum")))
                (core module $m
                    (import "" "sum" (func $sum (param i32 i32 i32) (result i32)))
                    ;; x = 0x1fffe (-2 as s16), y = 5, z = 0x101 (1 as u8).
                    (func (export "run") (result i32) (call $sum (i32.const 0x1fffe) (i32.const 5) (i32.const 0x101))))
                (core instance $o (instantiate $m (with "" (instance (export "sum" (func $sum))))))
                (func (export "run") (result s32) (canon lift (core func $o "run"))))
            (instance $inner (instantiate $inner))
            (instance $outer (instantiate $outer (with "inner" (instance $inner))))
            (export "run" (func $outer "run")))"#,
    );
    assert_eq!(c.fused_adapters(), 1);
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    let run = instance.get_func(&mut store, "run").expect("run");
    let mut out = [Val::Bool(false)];
    run.call(&mut store, &[], &mut out)?;
    assert_eq!(out[0], Val::S32(-2 + 5 + 1));
    Ok(())
}

#[test]
fn variants_cross_fused_adapters_flat() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(
        &engine,
        r#"(component
            (component $inner
                (core module $m
                    (func (export "opt") (param i32 i32) (result i32)
                        (i32.add (i32.mul (local.get 0) (i32.const 1000)) (local.get 1)))
                    (func (export "res") (param i32 i32) (result f32)
                        (if (result f32) (local.get 0)
                            (then (f32.convert_i32_s (local.get 1)))
                            (else (f32.reinterpret_i32 (local.get 1)))))
                    (func (export "var") (param i32 i64) (result i64) (local.get 1)))
                (core instance $i (instantiate $m))
                (type $v (variant (case "a" u64) (case "b" f32)))
                (export $v2 "v" (type $v))
                (func (export "opt") (param "x" (option u8)) (result u32) (canon lift (core func $i "opt")))
                (func (export "res") (param "x" (result f32 (error s16))) (result f32) (canon lift (core func $i "res")))
                (func (export "var") (param "x" $v2) (result u64) (canon lift (core func $i "var"))))
            (component $outer
                (import "inner" (instance $inner
                    (type $v (variant (case "a" u64) (case "b" f32)))
                    (export "v" (type $v2 (eq $v)))
                    (export "opt" (func (param "x" (option u8)) (result u32)))
                    (export "res" (func (param "x" (result f32 (error s16))) (result f32)))
                    (export "var" (func (param "x" $v2) (result u64)))))
                (core func $opt (canon lower (func $inner "opt")))
                (core func $res (canon lower (func $inner "res")))
                (core func $var (canon lower (func $inner "var")))
                (core module $m
                    (import "" "opt" (func $opt (param i32 i32) (result i32)))
                    (import "" "res" (func $res (param i32 i32) (result f32)))
                    (import "" "var" (func $var (param i32 i64) (result i64)))
                    (func (export "opt") (param i32 i32) (result i32) (call $opt (local.get 0) (local.get 1)))
                    (func (export "res") (param i32 i32) (result f32) (call $res (local.get 0) (local.get 1)))
                    (func (export "var") (param i32 i64) (result i64) (call $var (local.get 0) (local.get 1))))
                (core instance $o (instantiate $m (with "" (instance
                    (export "opt" (func $opt)) (export "res" (func $res)) (export "var" (func $var))))))
                (func (export "opt") (param "d" u32) (param "p" u32) (result u32) (canon lift (core func $o "opt")))
                (func (export "res") (param "d" u32) (param "p" u32) (result f32) (canon lift (core func $o "res")))
                (func (export "var") (param "d" u32) (param "p" u64) (result u64) (canon lift (core func $o "var"))))
            (instance $inner (instantiate $inner))
            (instance $outer (instantiate $outer (with "inner" (instance $inner))))
            (export "opt" (func $outer "opt"))
            (export "res" (func $outer "res"))
            (export "var" (func $outer "var")))"#,
    );
    assert_eq!(c.fused_adapters(), 3);
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    let mut call = |name: &str, args: &[Val]| call_export(&mut store, &instance, name, args);
    // some(0x1ff as u8) arrives as some(0xff); none's payload slot is zeroed.
    assert_eq!(call("opt", &[Val::U32(1), Val::U32(0x1ff)])?, Val::U32(1255));
    assert_eq!(call("opt", &[Val::U32(0), Val::U32(77)])?, Val::U32(0));
    // ok(2.5) travels as f32 bits in an i32 slot; error(0x18000 as s16) is
    // sign-extended to -32768.
    assert_eq!(
        call("res", &[Val::U32(0), Val::U32(2.5f32.to_bits())])?,
        Val::Float32(2.5)
    );
    assert_eq!(call("res", &[Val::U32(1), Val::U32(0x18000)])?, Val::Float32(-32768.0));
    // b(1.5) in the joined i64 slot keeps only the low 32 bits.
    let slot = 0xdead_0000_0000_u64 | u64::from(1.5f32.to_bits());
    assert_eq!(
        call("var", &[Val::U32(1), Val::U64(slot)])?,
        Val::U64(u64::from(1.5f32.to_bits()))
    );
    assert_eq!(call("var", &[Val::U32(0), Val::U64(slot)])?, Val::U64(slot));
    // A discriminant past the last case traps.
    let err = call("opt", &[Val::U32(2), Val::U32(0)]).unwrap_err();
    assert_eq!(
        err.downcast_ref::<weft::Trap>(),
        Some(&weft::Trap::InvalidDiscriminant),
        "{err:?}"
    );
    Ok(())
}

#[test]
fn record_results_cross_fused_adapters_in_memory() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(
        &engine,
        &format!(
            r#"(component
            (component $inner
                (core module $m {LIBC}
                    ;; point(x) = {{ ok: true (stored as 7), x: x, y: -x, z: 1.5 }} at 32.
                    (func (export "point") (param i32) (result i32)
                        (i32.store8 (i32.const 32) (i32.const 7))
                        (i32.store16 (i32.const 34) (local.get 0))
                        (i64.store (i32.const 40) (i64.sub (i64.const 0) (i64.extend_i32_u (local.get 0))))
                        (f32.store (i32.const 48) (f32.const 1.5))
                        (i32.const 32)))
                (core instance $i (instantiate $m))
                (type $pt (record (field "ok" bool) (field "x" u16) (field "y" s64) (field "z" f32)))
                (export $p "point-type" (type $pt))
                (func (export "point") (param "x" u16) (result $p)
                    (canon lift (core func $i "point") (memory (core memory $i "memory")) (realloc (core func $i "realloc")))))
            (component $outer
                (import "inner" (instance $inner
                    (type $pt (record (field "ok" bool) (field "x" u16) (field "y" s64) (field "z" f32)))
                    (export "point-type" (type $p (eq $pt)))
                    (export "point" (func (param "x" u16) (result $p)))))
                (core module $libc {LIBC})
                (core instance $libc (instantiate $libc))
                (core func $point (canon lower (func $inner "point") (memory (core memory $libc "memory")) (realloc (core func $libc "realloc"))))
                (core module $m
                    (import "" "point" (func $point (param i32 i32)))
                    (import "" "memory" (memory 1))
                    ;; Sums the fields of point(5) read from the return area at 64.
                    (func (export "run") (result f64)
                        (call $point (i32.const 5) (i32.const 64))
                        (f64.add
                            (f64.convert_i32_u (i32.add (i32.load8_u (i32.const 64)) (i32.load16_u (i32.const 66))))
                            (f64.add (f64.convert_i64_s (i64.load (i32.const 72))) (f64.promote_f32 (f32.load (i32.const 80))))))
                    ;; A misaligned return pointer traps.
                    (func (export "bad") (result f64) (call $point (i32.const 5) (i32.const 65)) (f64.const 0)))
                (core instance $o (instantiate $m (with "" (instance
                    (export "point" (func $point)) (export "memory" (memory $libc "memory"))))))
                (func (export "run") (result f64) (canon lift (core func $o "run")))
                (func (export "bad") (result f64) (canon lift (core func $o "bad"))))
            (instance $inner (instantiate $inner))
            (instance $outer (instantiate $outer (with "inner" (instance $inner))))
            (export "run" (func $outer "run"))
            (export "bad" (func $outer "bad")))"#
        ),
    );
    assert_eq!(c.fused_adapters(), 1);
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    let mut call = |name: &str| call_export(&mut store, &instance, name, &[]);
    // ok (7 normalized to 1) + x 5 + y -5 + z 1.5.
    assert_eq!(call("run")?, Val::Float64(1.0 + 5.0 - 5.0 + 1.5));
    let err = call("bad").unwrap_err();
    assert_eq!(
        err.downcast_ref::<weft::Trap>(),
        Some(&weft::Trap::UnalignedPointer),
        "{err:?}"
    );
    Ok(())
}

#[test]
fn lists_of_other_scalars_cross_fused_adapters_element_by_element() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(
        &engine,
        &format!(
            r#"(component
            (component $inner
                (core module $m {LIBC}
                    ;; ones(list<bool>): how many bytes are exactly 1.
                    (func (export "ones") (param $p i32) (param $n i32) (result i32) (local $c i32)
                        (block (loop
                            (br_if 1 (i32.eqz (local.get $n)))
                            (local.set $c (i32.add (local.get $c) (i32.eq (i32.load8_u (local.get $p)) (i32.const 1))))
                            (local.set $p (i32.add (local.get $p) (i32.const 1)))
                            (local.set $n (i32.sub (local.get $n) (i32.const 1)))
                            (br 0)))
                        (local.get $c))
                    ;; halves(): [1.5, 2.5] of f64 through a return area at 16.
                    (func (export "halves") (result i32)
                        (f64.store (i32.const 32) (f64.const 1.5))
                        (f64.store (i32.const 40) (f64.const 2.5))
                        (i32.store (i32.const 16) (i32.const 32))
                        (i32.store (i32.const 20) (i32.const 2))
                        (i32.const 16)))
                (core instance $i (instantiate $m))
                (func (export "ones") (param "l" (list bool)) (result u32)
                    (canon lift (core func $i "ones") (memory (core memory $i "memory")) (realloc (core func $i "realloc"))))
                (func (export "halves") (result (list f64))
                    (canon lift (core func $i "halves") (memory (core memory $i "memory")) (realloc (core func $i "realloc")))))
            (component $outer
                (import "inner" (instance $inner
                    (export "ones" (func (param "l" (list bool)) (result u32)))
                    (export "halves" (func (result (list f64))))))
                (core module $libc {LIBC})
                (core instance $libc (instantiate $libc))
                (core func $ones (canon lower (func $inner "ones") (memory (core memory $libc "memory")) (realloc (core func $libc "realloc"))))
                (core func $halves (canon lower (func $inner "halves") (memory (core memory $libc "memory")) (realloc (core func $libc "realloc"))))
                (core module $m
                    (import "" "ones" (func $ones (param i32 i32) (result i32)))
                    (import "" "halves" (func $halves (param i32)))
                    (import "" "memory" (memory 1))
                    ;; [false, 5 (true), true]
                    (func (export "ones") (result i32)
                        (i32.store8 (i32.const 0) (i32.const 0))
                        (i32.store8 (i32.const 1) (i32.const 5))
                        (i32.store8 (i32.const 2) (i32.const 1))
                        (call $ones (i32.const 0) (i32.const 3)))
                    (func (export "halves") (result f64)
                        (call $halves (i32.const 8))
                        (f64.add (f64.load (i32.load (i32.const 8))) (f64.load offset=8 (i32.load (i32.const 8))))))
                (core instance $o (instantiate $m (with "" (instance
                    (export "ones" (func $ones)) (export "halves" (func $halves)) (export "memory" (memory $libc "memory"))))))
                (func (export "ones") (result u32) (canon lift (core func $o "ones")))
                (func (export "halves") (result f64) (canon lift (core func $o "halves"))))
            (instance $inner (instantiate $inner))
            (instance $outer (instantiate $outer (with "inner" (instance $inner))))
            (export "ones" (func $outer "ones"))
            (export "halves" (func $outer "halves")))"#
        ),
    );
    assert_eq!(c.fused_adapters(), 2);
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    let mut call = |name: &str| call_export(&mut store, &instance, name, &[]);
    // The 5 arrives normalized to 1.
    assert_eq!(call("ones")?, Val::U32(2));
    assert_eq!(call("halves")?, Val::Float64(4.0));
    Ok(())
}

#[test]
fn flags_cross_fused_adapters_with_unknown_bits_dropped() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(
        &engine,
        r#"(component
            (component $inner
                (core module $m (func (export "id") (param i32) (result i32) (local.get 0)))
                (core instance $i (instantiate $m))
                (type $f (flags "r" "w" "x"))
                (export $f2 "perms" (type $f))
                (func (export "id") (param "p" $f2) (result u32) (canon lift (core func $i "id"))))
            (component $outer
                (import "inner" (instance $inner
                    (type $f (flags "r" "w" "x"))
                    (export "perms" (type $f2 (eq $f)))
                    (export "id" (func (param "p" $f2) (result u32)))))
                (core func $id (canon lower (func $inner "id")))
                (core module $m
                    (import "" "id" (func $id (param i32) (result i32)))
                    (func (export "run") (param i32) (result i32) (call $id (local.get 0))))
                (core instance $o (instantiate $m (with "" (instance (export "id" (func $id))))))
                (func (export "run") (param "p" u32) (result u32) (canon lift (core func $o "run"))))
            (instance $inner (instantiate $inner))
            (instance $outer (instantiate $outer (with "inner" (instance $inner))))
            (export "run" (func $outer "run")))"#,
    );
    assert_eq!(c.fused_adapters(), 1);
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    let run = instance.get_func(&mut store, "run").expect("run");
    let mut out = [Val::Bool(false)];
    run.call(&mut store, &[Val::U32(0xff)], &mut out)?;
    assert_eq!(out[0], Val::U32(0b111));
    Ok(())
}

/// The canonical option of a string encoding name.
fn encoding_option(encoding: &str) -> String {
    format!("string-encoding={encoding}")
}

/// A component whose export `echo` (of type `ty -> ty`, with a parameter
/// `pad` of sixteen `u64`s after `x` when `spill`) is that of an outer
/// component calling `echo` of an inner one, its sibling, through a fused
/// adapter. The inner `echo` gives its
/// argument back: as the pointer it received when the parameters spill
/// (the tuple of the parameters starts with `x`), else from a return area
/// holding the pointer and length of a string or list. `defs` are named
/// types (`$name` refers to them) defined and exported by both components
/// (and by the outer one's import of the inner instance); the outer
/// side uses `encodings.0`, the inner one `encodings.1`.
fn echo_component(defs: &[(&str, &str)], ty: &str, encodings: (&str, &str), spill: bool) -> String {
    let pad = if spill {
        format!("(param \"pad\" (tuple{}))", " u64".repeat(16))
    } else {
        String::new()
    };
    let inner_defs: String = defs
        .iter()
        .map(|(name, def)| format!("(type ${name}' {def}) (export ${name} \"{name}\" (type ${name}'))\n"))
        .collect();
    // The outer component defines the same types (types are structural),
    // both for its own export and in the type of the instance it imports;
    // so does the root, which re-exports `echo` with them.
    let outer_defs = inner_defs.clone();
    let root_defs = inner_defs.clone();
    let import_defs: String = defs
        .iter()
        .map(|(name, def)| format!("(type ${name}' {def}) (export \"{name}\" (type ${name} (eq ${name}')))\n"))
        .collect();
    let (inner_core, outer_import, outer_core) = if spill {
        (
            "(func (export \"echo\") (param i32) (result i32) (local.get 0))",
            "(param i32 i32)",
            "(func (export \"echo\") (param i32) (result i32) (call $echo (local.get 0) (i32.const 64)) (i32.const 64))",
        )
    } else {
        (
            "(func (export \"echo\") (param i32 i32) (result i32)
                (i32.store (i32.const 8) (local.get 0)) (i32.store (i32.const 12) (local.get 1)) (i32.const 8))",
            "(param i32 i32 i32)",
            "(func (export \"echo\") (param i32 i32) (result i32)
                (call $echo (local.get 0) (local.get 1) (i32.const 64)) (i32.const 64))",
        )
    };
    let (outer_enc, inner_enc) = (encoding_option(encodings.0), encoding_option(encodings.1));
    format!(
        r#"(component
        (component $inner
            (core module $m {LIBC} {inner_core})
            (core instance $i (instantiate $m))
            {inner_defs}
            (func (export "echo") (param "x" {ty}) {pad} (result {ty})
                (canon lift (core func $i "echo") (memory (core memory $i "memory"))
                    (realloc (core func $i "realloc")) {inner_enc})))
        (component $outer
            (import "inner" (instance $inner
                {import_defs}
                (export "echo" (func (param "x" {ty}) {pad} (result {ty})))))
            {outer_defs}
            (core module $libc {LIBC})
            (core instance $libc (instantiate $libc))
            (core func $echo (canon lower (func $inner "echo") (memory (core memory $libc "memory"))
                (realloc (core func $libc "realloc")) {outer_enc}))
            (core module $m (import "" "echo" (func $echo {outer_import})) {outer_core})
            (core instance $o (instantiate $m (with "" (instance (export "echo" (func $echo))))))
            (func (export "echo") (param "x" {ty}) {pad} (result {ty})
                (canon lift (core func $o "echo") (memory (core memory $libc "memory"))
                    (realloc (core func $libc "realloc")) {outer_enc})))
        (instance $inner (instantiate $inner))
        (instance $outer (instantiate $outer (with "inner" (instance $inner))))
        {root_defs}
        (export "echo" (func $outer "echo") (func (param "x" {ty}) {pad} (result {ty}))))"#
    )
}

/// Checks that every value of `vals` comes back equal from the echo of
/// [`echo_component`].
fn assert_echoes(defs: &[(&str, &str)], ty: &str, encodings: (&str, &str), spill: bool, vals: &[Val]) {
    let engine = Engine::default();
    let text = echo_component(defs, ty, encodings, spill);
    let c = component(&engine, &text);
    assert_eq!(c.fused_adapters(), 1, "the call between the components is fused");
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine)
        .instantiate(&mut store, &c)
        .expect("the echo component instantiates");
    let pad = Val::Tuple((0..16).map(Val::U64).collect());
    for v in vals {
        let mut args = vec![v.clone()];
        if spill {
            args.push(pad.clone());
        }
        let out = call_export(&mut store, &instance, "echo", &args)
            .unwrap_or_else(|e| panic!("echo of {v:?} ({ty}, {encodings:?}): {e:#}"));
        assert_eq!(&out, v, "echo of {ty} with encodings {encodings:?}");
    }
}

fn s(text: &str) -> Val {
    Val::String(text.to_string())
}

fn strings(texts: &[&str]) -> Val {
    Val::List(texts.iter().map(|t| s(t)).collect())
}

const UTF8: (&str, &str) = ("utf8", "utf8");

#[test]
fn lists_of_strings_and_nested_lists_cross_fused_adapters() {
    assert_echoes(
        &[],
        "(list string)",
        UTF8,
        false,
        &[strings(&[]), strings(&["", "a", "héllo", "☃😀"]), strings(&["x"; 40])],
    );
    let nested = Val::List(vec![
        Val::List(vec![Val::U32(1), Val::U32(2)]),
        Val::List(vec![]),
        Val::List((0..50).map(Val::U32).collect()),
    ]);
    assert_echoes(&[], "(list (list u32))", UTF8, false, &[nested]);
    let deep = Val::List(vec![
        Val::List(vec![strings(&["a", "bc"]), strings(&[])]),
        Val::List(vec![]),
    ]);
    assert_echoes(&[], "(list (list (list string)))", UTF8, false, &[deep]);
}

#[test]
fn lists_of_variants_cross_fused_adapters() {
    let defs = [(
        "shape",
        r#"(variant (case "none") (case "dot" u8) (case "name" string) (case "pair" (tuple f64 u16)))"#,
    )];
    let v = |case: &str, payload: Option<Val>| Val::Variant(case.to_string(), payload.map(Box::new));
    let shapes = Val::List(vec![
        v("none", None),
        v("dot", Some(Val::U8(7))),
        v("name", Some(s("zébu"))),
        v("pair", Some(Val::Tuple(vec![Val::Float64(-1.5), Val::U16(65535)]))),
        v("name", Some(s(""))),
    ]);
    assert_echoes(&defs, "(list $shape)", UTF8, false, &[shapes, Val::List(vec![])]);
    let options = Val::List(vec![
        Val::Option(None),
        Val::Option(Some(Box::new(s("some")))),
        Val::Option(Some(Box::new(s("ü")))),
    ]);
    assert_echoes(&[], "(list (option string))", UTF8, false, &[options]);
}

#[test]
fn records_holding_strings_and_lists_cross_fused_adapters() {
    let defs = [
        ("color", r#"(enum "red" "green" "blue")"#),
        ("perms", r#"(flags "r" "w" "x")"#),
        (
            "person",
            r#"(record (field "name" string) (field "age" u8) (field "tags" (list string))
                (field "color" $color) (field "perms" $perms) (field "scores" (list f32)))"#,
        ),
    ];
    let person = |name: &str, tags: &[&str]| {
        Val::Record(vec![
            ("name".into(), s(name)),
            ("age".into(), Val::U8(42)),
            ("tags".into(), strings(tags)),
            ("color".into(), Val::Enum("blue".into())),
            ("perms".into(), Val::Flags(vec!["r".into(), "x".into()])),
            ("scores".into(), Val::List(vec![Val::Float32(1.5), Val::Float32(-0.0)])),
        ])
    };
    assert_echoes(
        &defs,
        "(list $person)",
        UTF8,
        false,
        &[Val::List(vec![person("Ada", &["math", "poetry"]), person("", &[])])],
    );
    // The same record alone: 9 flat values and 2 params' worth of pad
    // spill into memory on both sides.
    assert_echoes(&defs, "$person", UTF8, true, &[person("Grace", &["navy"])]);
}

#[test]
fn variant_option_and_result_results_with_strings_cross_fused_adapters() {
    let ok = |v: Val| Val::Result(Ok(Some(Box::new(v))));
    let err = |v: Val| Val::Result(Err(Some(Box::new(v))));
    assert_echoes(
        &[],
        "(result string (error string))",
        UTF8,
        true,
        &[ok(s("fine")), err(s("bad ☹"))],
    );
    assert_echoes(
        &[],
        "(option string)",
        UTF8,
        true,
        &[Val::Option(None), Val::Option(Some(Box::new(s("there"))))],
    );
    let defs = [(
        "ev",
        r#"(variant (case "a" u64) (case "b" string) (case "c" (list u8)) (case "d"))"#,
    )];
    let v = |case: &str, payload: Option<Val>| Val::Variant(case.to_string(), payload.map(Box::new));
    assert_echoes(
        &defs,
        "$ev",
        UTF8,
        true,
        &[
            v("a", Some(Val::U64(u64::MAX))),
            v("b", Some(s("bee"))),
            v("c", Some(Val::List(vec![Val::U8(1), Val::U8(255)]))),
            v("d", None),
        ],
    );
}

#[test]
fn strings_cross_fused_adapters_between_every_pair_of_encodings() {
    let texts = [
        "",
        "ascii only",
        "café crème",      // Latin-1
        "ÿ at the end: ÿ", // Latin-1, high half
        "snow ☃ and 😀",   // outside Latin-1, a surrogate pair in UTF-16
        "☃",
    ];
    let encodings = ["utf8", "utf16", "latin1+utf16"];
    for outer in encodings {
        for inner in encodings {
            let vals: Vec<Val> = texts.iter().map(|t| s(t)).collect();
            assert_echoes(&[], "string", (outer, inner), false, &vals);
            assert_echoes(&[], "(list string)", (outer, inner), false, &[strings(&texts)]);
        }
    }
}

#[test]
fn a_record_of_twenty_fields_spills_through_fused_adapters() {
    let fields: String = (0..20)
        .map(|i| {
            let t = ["u8", "string", "f64", "char", "bool"][i % 5];
            format!("(field \"f{i}\" {t}) ")
        })
        .collect();
    let defs = [("big", format!("(record {fields})"))];
    let defs: Vec<(&str, &str)> = defs.iter().map(|(n, d)| (*n, d.as_str())).collect();
    let val = Val::Record(
        (0..20)
            .map(|i| {
                let v = match i % 5 {
                    0 => Val::U8(i as u8),
                    1 => s(&format!("field {i}")),
                    2 => Val::Float64(i as f64 / 4.0),
                    3 => Val::Char('λ'),
                    _ => Val::Bool(i % 2 == 0),
                };
                (format!("f{i}"), v)
            })
            .collect(),
    );
    // Twenty fields flatten to more than 16 values: no pad needed, but the
    // echo component's pad is harmless.
    assert_echoes(&defs, "$big", UTF8, true, &[val]);
}

#[test]
fn seventeen_parameters_spill_through_fused_adapters() -> weft::Result<()> {
    let params: String = (0..17).map(|i| format!("(param \"p{i}\" u32) ")).collect();
    let text = format!(
        r#"(component
        (component $inner
            (core module $m {LIBC}
                ;; The sum of the 17 u32s of the tuple the adapter allocated.
                (func (export "sum") (param $p i32) (result i32) (local $i i32) (local $s i32)
                    (block (loop
                        (br_if 1 (i32.eq (local.get $i) (i32.const 17)))
                        (local.set $s (i32.add (local.get $s)
                            (i32.mul (i32.load (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 2))))
                                     (i32.add (local.get $i) (i32.const 1)))))
                        (local.set $i (i32.add (local.get $i) (i32.const 1)))
                        (br 0)))
                    (local.get $s)))
            (core instance $i (instantiate $m))
            (func (export "sum") {params} (result u32)
                (canon lift (core func $i "sum") (memory (core memory $i "memory")) (realloc (core func $i "realloc")))))
        (component $outer
            (import "inner" (instance $inner (export "sum" (func {params} (result u32)))))
            (core module $libc {LIBC})
            (core instance $libc (instantiate $libc))
            (core func $sum (canon lower (func $inner "sum") (memory (core memory $libc "memory"))))
            (core module $m
                (import "" "sum" (func $sum (param i32) (result i32)))
                (func (export "sum") (param i32) (result i32) (call $sum (local.get 0))))
            (core instance $o (instantiate $m (with "" (instance (export "sum" (func $sum))))))
            (func (export "sum") {params} (result u32)
                (canon lift (core func $o "sum") (memory (core memory $libc "memory")) (realloc (core func $libc "realloc")))))
        (instance $inner (instantiate $inner))
        (instance $outer (instantiate $outer (with "inner" (instance $inner))))
        (export "sum" (func $outer "sum")))"#
    );
    let engine = Engine::default();
    let c = component(&engine, &text);
    assert_eq!(c.fused_adapters(), 1);
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    let args: Vec<Val> = (1..=17).map(Val::U32).collect();
    // Each parameter weighted by its position: the order is kept.
    let expected: u32 = (1..=17).map(|i| i * i).sum();
    assert_eq!(call_export(&mut store, &instance, "sum", &args)?, Val::U32(expected));
    Ok(())
}

/// Whether `err` is a trap: a wasm trap of the adapter or a canonical ABI
/// trap reported by one of its built-ins.
fn is_trap(err: &weft::Error) -> bool {
    err.downcast_ref::<weft::Trap>().is_some() || format!("{err:#}").contains("wasm trap")
}

/// A component whose exports are those of an outer component passing raw
/// core values chosen by the host to functions of inner components (its
/// siblings), through fused adapters: `count`
/// (a `list<u32>`: pointer and length), `opt` (an `option<u32>`:
/// discriminant and payload), `len16` (a UTF-16 string of two code units,
/// "a" and the argument, to a UTF-8 callee) and `bad32`/`bad8` (lists to a
/// callee whose `realloc` returns 0xfffe).
fn raw_calls() -> String {
    format!(
        r#"(component
        (component $inner
            (core module $m {LIBC}
                (func (export "count") (param i32 i32) (result i32) (local.get 1))
                (func (export "opt") (param i32 i32) (result i32) (local.get 1))
                (func (export "len") (param i32 i32) (result i32) (local.get 1)))
            (core instance $i (instantiate $m))
            (func (export "count") (param "l" (list u32)) (result u32)
                (canon lift (core func $i "count") (memory (core memory $i "memory")) (realloc (core func $i "realloc"))))
            (func (export "opt") (param "o" (option u32)) (result u32) (canon lift (core func $i "opt")))
            (func (export "len") (param "s" string) (result u32)
                (canon lift (core func $i "len") (memory (core memory $i "memory")) (realloc (core func $i "realloc")))))
        (component $bad
            (core module $m
                (memory (export "memory") 1)
                (func (export "realloc") (param i32 i32 i32 i32) (result i32) (i32.const 0xfffe))
                (func (export "count") (param i32 i32) (result i32) (local.get 1)))
            (core instance $i (instantiate $m))
            (func (export "bad32") (param "l" (list u32)) (result u32)
                (canon lift (core func $i "count") (memory (core memory $i "memory")) (realloc (core func $i "realloc"))))
            (func (export "bad8") (param "l" (list u8)) (result u32)
                (canon lift (core func $i "count") (memory (core memory $i "memory")) (realloc (core func $i "realloc")))))
        (component $outer
            (import "inner" (instance $inner
                (export "count" (func (param "l" (list u32)) (result u32)))
                (export "opt" (func (param "o" (option u32)) (result u32)))
                (export "len" (func (param "s" string) (result u32)))))
            (import "bad" (instance $bad
                (export "bad32" (func (param "l" (list u32)) (result u32)))
                (export "bad8" (func (param "l" (list u8)) (result u32)))))
            (core module $libc {LIBC})
            (core instance $libc (instantiate $libc))
            (core func $count (canon lower (func $inner "count") (memory (core memory $libc "memory"))))
            (core func $opt (canon lower (func $inner "opt")))
            (core func $len16 (canon lower (func $inner "len") (memory (core memory $libc "memory")) string-encoding=utf16))
            (core func $bad32 (canon lower (func $bad "bad32") (memory (core memory $libc "memory"))))
            (core func $bad8 (canon lower (func $bad "bad8") (memory (core memory $libc "memory"))))
            (core module $m
                (import "" "count" (func $count (param i32 i32) (result i32)))
                (import "" "opt" (func $opt (param i32 i32) (result i32)))
                (import "" "len16" (func $len16 (param i32 i32) (result i32)))
                (import "" "bad32" (func $bad32 (param i32 i32) (result i32)))
                (import "" "bad8" (func $bad8 (param i32 i32) (result i32)))
                (import "" "memory" (memory 1))
                (func (export "count") (param i32 i32) (result i32) (call $count (local.get 0) (local.get 1)))
                (func (export "opt") (param i32 i32) (result i32) (call $opt (local.get 0) (local.get 1)))
                (func (export "len16") (param i32) (result i32)
                    (i32.store16 (i32.const 16) (i32.const 0x61))
                    (i32.store16 (i32.const 18) (local.get 0))
                    (call $len16 (i32.const 16) (i32.const 2)))
                (func (export "bad32") (param i32 i32) (result i32) (call $bad32 (local.get 0) (local.get 1)))
                (func (export "bad8") (param i32 i32) (result i32) (call $bad8 (local.get 0) (local.get 1))))
            (core instance $o (instantiate $m (with "" (instance
                (export "count" (func $count)) (export "opt" (func $opt)) (export "len16" (func $len16))
                (export "bad32" (func $bad32)) (export "bad8" (func $bad8)) (export "memory" (memory $libc "memory"))))))
            (func (export "count") (param "p" u32) (param "n" u32) (result u32) (canon lift (core func $o "count")))
            (func (export "opt") (param "d" u32) (param "v" u32) (result u32) (canon lift (core func $o "opt")))
            (func (export "len16") (param "unit" u32) (result u32) (canon lift (core func $o "len16")))
            (func (export "bad32") (param "p" u32) (param "n" u32) (result u32) (canon lift (core func $o "bad32")))
            (func (export "bad8") (param "p" u32) (param "n" u32) (result u32) (canon lift (core func $o "bad8"))))
        (instance $inner (instantiate $inner))
        (instance $bad (instantiate $bad))
        (instance $outer (instantiate $outer (with "inner" (instance $inner)) (with "bad" (instance $bad))))
        (export "count" (func $outer "count"))
        (export "opt" (func $outer "opt"))
        (export "len16" (func $outer "len16"))
        (export "bad32" (func $outer "bad32"))
        (export "bad8" (func $outer "bad8")))"#
    )
}

#[test]
fn invalid_values_trap_in_fused_adapters() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(&engine, &raw_calls());
    assert_eq!(c.fused_adapters(), 5);
    // Each call in a fresh instance: a trap leaves the callee unenterable.
    let call = |name: &str, args: &[u32]| -> weft::Result<Val> {
        let mut store = Store::new(&engine, ());
        let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
        let args: Vec<Val> = args.iter().map(|a| Val::U32(*a)).collect();
        call_export(&mut store, &instance, name, &args)
    };
    let traps = |name: &str, args: &[u32]| match call(name, args) {
        Ok(v) => panic!("{name}{args:?} returned {v:?} instead of trapping"),
        Err(e) => assert!(is_trap(&e), "{name}{args:?}: {e:#}"),
    };
    // Lists: fine, misaligned, out of bounds, too long.
    assert_eq!(call("count", &[2048, 3])?, Val::U32(3));
    assert_eq!(call("count", &[0, 0])?, Val::U32(0));
    traps("count", &[2050, 3]);
    traps("count", &[65536 - 8, 3]);
    traps("count", &[0, 0x4000_0000]);
    // Options: discriminant 0 or 1, else a trap.
    assert_eq!(call("opt", &[1, 5])?, Val::U32(5));
    assert_eq!(call("opt", &[0, 5])?, Val::U32(0));
    traps("opt", &[2, 5]);
    // UTF-16 to UTF-8: "ab" is 2 bytes, "a☃" 4; unpaired surrogates trap.
    assert_eq!(call("len16", &[0x62])?, Val::U32(2));
    assert_eq!(call("len16", &[0x2603])?, Val::U32(4));
    traps("len16", &[0xd800]);
    traps("len16", &[0xdc00]);
    // A realloc result that is misaligned (list<u32>) or out of bounds
    // (list<u8> of 4 bytes at 0xfffe).
    traps("bad32", &[2048, 1]);
    traps("bad8", &[2048, 4]);
    Ok(())
}

/// Three sibling components: `impl` defines resource `r` (`make`, `peek` of
/// a borrow, `take` of an own, which drops it), `mid` receives borrows of it
/// (`drop` drops the borrow, `keep` keeps it), and `outer` moves an `own`
/// handle between them through fused adapters.
fn resource_calls() -> &'static str {
    r#"(component
    (component $impl
        (core module $d
            (global $drops (mut i32) (i32.const 0))
            (func (export "dtor") (param i32) (global.set $drops (i32.add (global.get $drops) (i32.const 1))))
            (func (export "drops") (result i32) (global.get $drops)))
        (core instance $d (instantiate $d))
        (type $r (resource (rep i32) (dtor (core func $d "dtor"))))
        (core func $new (canon resource.new $r))
        (core func $rep (canon resource.rep $r))
        (core func $drop (canon resource.drop $r))
        (core module $m
            (import "" "new" (func $new (param i32) (result i32)))
            (import "" "rep" (func $rep (param i32) (result i32)))
            (import "" "drop" (func $drop (param i32)))
            (func (export "make") (param i32) (result i32) (call $new (local.get 0)))
            (func (export "peek") (param i32) (result i32) (local.get 0))
            (func (export "take") (param i32) (result i32) (local $r i32)
                (local.set $r (call $rep (local.get 0)))
                (call $drop (local.get 0))
                (local.get $r)))
        (core instance $i (instantiate $m (with "" (instance
            (export "new" (func $new)) (export "rep" (func $rep)) (export "drop" (func $drop))))))
        (export $r' "r" (type $r))
        (func (export "make") (param "rep" u32) (result (own $r')) (canon lift (core func $i "make")))
        (func (export "peek") (param "r" (borrow $r')) (result u32) (canon lift (core func $i "peek")))
        (func (export "take") (param "r" (own $r')) (result u32) (canon lift (core func $i "take")))
        (func (export "drops") (result u32) (canon lift (core func $d "drops"))))
    (instance $impl (instantiate $impl))
    (alias export $impl "r" (type $r))
    (component $mid
        (import "r" (type $r (sub resource)))
        (core func $drop (canon resource.drop $r))
        (core module $m
            (import "" "drop" (func $drop (param i32)))
            (func (export "keep") (param i32) (result i32) (local.get 0))
            (func (export "drop") (param i32) (result i32) (call $drop (local.get 0)) (i32.const 1)))
        (core instance $i (instantiate $m (with "" (instance (export "drop" (func $drop))))))
        (func (export "keep") (param "r" (borrow $r)) (result u32) (canon lift (core func $i "keep")))
        (func (export "drop") (param "r" (borrow $r)) (result u32) (canon lift (core func $i "drop"))))
    (instance $mid (instantiate $mid (with "r" (type $r))))
    (component $outer
        (import "r" (type $r (sub resource)))
        (import "impl" (instance $impl
            (export "make" (func (param "rep" u32) (result (own $r))))
            (export "peek" (func (param "r" (borrow $r)) (result u32)))
            (export "take" (func (param "r" (own $r)) (result u32)))))
        (import "mid" (instance $mid
            (export "keep" (func (param "r" (borrow $r)) (result u32)))
            (export "drop" (func (param "r" (borrow $r)) (result u32)))))
        (core func $make (canon lower (func $impl "make")))
        (core func $peek (canon lower (func $impl "peek")))
        (core func $take (canon lower (func $impl "take")))
        (core func $keep (canon lower (func $mid "keep")))
        (core func $mdrop (canon lower (func $mid "drop")))
        (core module $m
            (import "" "make" (func $make (param i32) (result i32)))
            (import "" "peek" (func $peek (param i32) (result i32)))
            (import "" "take" (func $take (param i32) (result i32)))
            (import "" "keep" (func $keep (param i32) (result i32)))
            (import "" "mdrop" (func $mdrop (param i32) (result i32)))
            ;; make(7), lend it to impl (which sees the rep) and to mid (which
            ;; drops its borrow), then move it to impl, which drops it: 7.
            (func (export "run") (result i32) (local $h i32)
                (local.set $h (call $make (i32.const 7)))
                (if (i32.ne (call $peek (local.get $h)) (i32.const 7)) (then unreachable))
                (if (i32.ne (call $mdrop (local.get $h)) (i32.const 1)) (then unreachable))
                (if (i32.ne (call $peek (local.get $h)) (i32.const 7)) (then unreachable))
                (call $take (local.get $h)))
            (func (export "keep") (result i32) (call $keep (call $make (i32.const 9))))
            (func (export "take-twice") (result i32) (local $h i32)
                (local.set $h (call $make (i32.const 3)))
                (drop (call $take (local.get $h)))
                (call $take (local.get $h))))
        (core instance $o (instantiate $m (with "" (instance
            (export "make" (func $make)) (export "peek" (func $peek)) (export "take" (func $take))
            (export "keep" (func $keep)) (export "mdrop" (func $mdrop))))))
        (func (export "run") (result u32) (canon lift (core func $o "run")))
        (func (export "keep") (result u32) (canon lift (core func $o "keep")))
        (func (export "take-twice") (result u32) (canon lift (core func $o "take-twice"))))
    (instance $outer (instantiate $outer
        (with "r" (type $r)) (with "impl" (instance $impl)) (with "mid" (instance $mid))))
    (export "run" (func $outer "run"))
    (export "keep" (func $outer "keep"))
    (export "take-twice" (func $outer "take-twice"))
    (export "drops" (func $impl "drops")))"#
}

#[test]
fn own_and_borrow_handles_cross_fused_adapters() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(&engine, resource_calls());
    assert_eq!(c.fused_adapters(), 5);
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    assert_eq!(call_export(&mut store, &instance, "drops", &[])?, Val::U32(0));
    assert_eq!(call_export(&mut store, &instance, "run", &[])?, Val::U32(7));
    // `take` dropped the handle it received: the destructor ran once.
    assert_eq!(call_export(&mut store, &instance, "drops", &[])?, Val::U32(1));
    assert_eq!(call_export(&mut store, &instance, "run", &[])?, Val::U32(7));
    assert_eq!(call_export(&mut store, &instance, "drops", &[])?, Val::U32(2));

    // A callee that keeps a borrow traps at the end of the call.
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    let err = call_export(&mut store, &instance, "keep", &[]).unwrap_err();
    assert!(format!("{err:#}").contains("borrow handles still remain"), "{err:#}");

    // An own handle moved away is gone from the caller's table.
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    let err = call_export(&mut store, &instance, "take-twice", &[]).unwrap_err();
    assert!(format!("{err:#}").contains("unknown handle index"), "{err:#}");
    Ok(())
}

#[test]
fn fixed_length_lists_and_maps_cross_fused_adapters() {
    // Twenty elements in memory: a loop over both memories.
    let l = Val::List((0..20).map(|i| Val::U32(i * 7)).collect());
    assert_echoes(&[], "(list u32 20)", UTF8, true, &[l]);
    let pairs = Val::List(
        (0..40)
            .map(|i| Val::Tuple(vec![Val::U8(i), s(&format!("{i}"))]))
            .collect(),
    );
    assert_echoes(&[], "(list (tuple u8 string) 40)", UTF8, true, &[pairs]);
    let three = Val::List(vec![s("α"), s(""), s("γγ")]);
    assert_echoes(&[], "(list string 3)", ("utf8", "utf16"), true, &[three]);
    let map = Val::Map(vec![
        (s("one"), Val::U32(1)),
        (s("two"), Val::U32(2)),
        (s("one"), Val::U32(3)),
    ]);
    assert_echoes(&[], "(map string u32)", UTF8, false, &[map, Val::Map(vec![])]);
}

/// A `post-return` or `realloc` function of a callee reached through a
/// fused adapter may not call out of its instance (CanonicalABI.md clears
/// `may_leave` around both).
#[test]
fn post_return_and_realloc_may_not_leave_through_adapters() -> weft::Result<()> {
    let engine = Engine::default();
    let text = |post_return_calls_out: bool| {
        let (post, realloc) = if post_return_calls_out {
            ("(call $out)", "")
        } else {
            ("", "(call $out)")
        };
        format!(
            r#"(component
            (import "out" (func $out-host))
            (component $C
              (import "out" (func $out))
              (core func $out' (canon lower (func $out)))
              (core module $m
                (import "" "out" (func $out))
                (memory (export "memory") 1)
                (func (export "realloc") (param i32 i32 i32 i32) (result i32) {realloc} (i32.const 64))
                (func (export "f") (param i32 i32) (result i32) (local.get 1))
                (func (export "post") (param i32) {post}))
              (core instance $i (instantiate $m (with "" (instance (export "out" (func $out'))))))
              (func (export "f") (param "s" string) (result u32)
                (canon lift (core func $i "f") (memory (core memory $i "memory"))
                  (realloc (core func $i "realloc")) (post-return (core func $i "post")))))
            (component $D
              (import "f" (func $f (param "s" string) (result u32)))
              (core module $mem (memory (export "memory") 1) (data (memory 0) (i32.const 0) "hi"))
              (core instance $mem (instantiate $mem))
              (core func $f' (canon lower (func $f) (memory (core memory $mem "memory"))))
              (core module $m
                (import "" "f" (func $f (param i32 i32) (result i32)))
                (func (export "run") (result i32) (call $f (i32.const 0) (i32.const 2))))
              (core instance $i (instantiate $m (with "" (instance (export "f" (func $f'))))))
              (func (export "run") (result u32) (canon lift (core func $i "run"))))
            (instance $c (instantiate $C (with "out" (func $out-host))))
            (instance $d (instantiate $D (with "f" (func $c "f"))))
            (export "run" (func $d "run")))"#
        )
    };
    for post_return_calls_out in [false, true] {
        let c = component(&engine, &text(post_return_calls_out));
        assert_eq!(c.fused_adapters(), 1);
        let mut linker = Linker::<()>::new(&engine);
        linker.root().func_new("out", |_, _, _| Ok(()))?;
        let mut store = Store::new(&engine, ());
        let instance = linker.instantiate(&mut store, &c)?;
        let err = call_export(&mut store, &instance, "run", &[]).unwrap_err();
        assert!(
            format!("{err:#}").contains("cannot leave component instance"),
            "post-return calls out: {post_return_calls_out}: {err:#}"
        );
    }
    Ok(())
}

/// A canonical ABI trap raised by the runtime (here `resource.drop` of a
/// handle that does not exist) leaves the instance unenterable, as a core
/// wasm trap does; a host function's error does not.
#[test]
fn runtime_raised_traps_poison_the_instance() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(
        &engine,
        r#"(component
            (import "fail" (func $fail))
            (type $r (resource (rep i32)))
            (core func $drop (canon resource.drop $r))
            (core func $fail' (canon lower (func $fail)))
            (core module $m
                (import "" "drop" (func $drop (param i32)))
                (import "" "fail" (func $fail))
                (func (export "bad-drop") (call $drop (i32.const 42)))
                (func (export "host-error") (call $fail))
                (func (export "ok") (result i32) (i32.const 7)))
            (core instance $i (instantiate $m (with "" (instance (export "drop" (func $drop)) (export "fail" (func $fail'))))))
            (func (export "bad-drop") (canon lift (core func $i "bad-drop")))
            (func (export "host-error") (canon lift (core func $i "host-error")))
            (func (export "ok") (result u32) (canon lift (core func $i "ok"))))"#,
    );
    let mut linker = Linker::<()>::new(&engine);
    linker
        .root()
        .func_new("fail", |_, _, _| weft::bail!("the host says no"))?;
    let mut store = Store::new(&engine, ());
    let instance = linker.instantiate(&mut store, &c)?;
    let call = |store: &mut Store<()>, name: &str| {
        let f = instance.get_func(&mut *store, name).expect(name);
        let mut out = vec![Val::Bool(false); if name == "ok" { 1 } else { 0 }];
        f.call(&mut *store, &[], &mut out)
    };
    let err = call(&mut store, "host-error").unwrap_err();
    assert!(format!("{err:#}").contains("the host says no"), "{err:#}");
    call(&mut store, "ok")?;
    let err = call(&mut store, "bad-drop").unwrap_err();
    assert!(format!("{err:#}").contains("wasm trap"), "{err:#}");
    let err = call(&mut store, "ok").unwrap_err();
    assert!(
        format!("{err:#}").contains("cannot enter component instance"),
        "{err:#}"
    );
    // A fresh instance in the same store works.
    let again = linker.instantiate(&mut store, &c)?;
    let ok = again.get_func(&mut store, "ok").expect("ok");
    let mut out = [Val::Bool(false)];
    ok.call(&mut store, &[], &mut out)?;
    assert_eq!(out[0], Val::U32(7));
    Ok(())
}

/// Run-time host resource types (`ResourceType::host_dynamic`, as the C
/// API's `weft_component_resource_type_new_host`): resources of one payload
/// go in and out and are dropped through their destructor; those of another
/// payload are refused. `func_new_with_func_type` hands the host function
/// its type, and `Func::ty` gives it to the embedder.
#[test]
fn dynamic_host_resources_and_typed_dynamic_functions() -> weft::Result<()> {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;
    use weft::component::{ResourceDynamic, ResourceType};

    let engine = Engine::default();
    let c = component(
        &engine,
        r#"(component
            (import "thing" (type $t (sub resource)))
            (import "describe" (func $describe (param "a" u32) (param "b" string) (result u32)))
            (core func $drop (canon resource.drop $t))
            (core module $libc (memory (export "memory") 1))
            (core instance $libc (instantiate $libc))
            (core func $d (canon lower (func $describe) (memory (core memory $libc "memory"))))
            (core module $m
                (import "" "drop" (func $drop (param i32)))
                (import "" "describe" (func $describe (param i32 i32 i32) (result i32)))
                (func (export "id") (param i32) (result i32) (local.get 0))
                (func (export "desc") (param i32) (result i32)
                    (call $describe (local.get 0) (i32.const 0) (i32.const 0)))
                (func (export "consume") (param i32) (call $drop (local.get 0))))
            (core instance $i (instantiate $m (with "" (instance
                (export "drop" (func $drop)) (export "describe" (func $d))))))
            (func (export "id") (param "x" (own $t)) (result (own $t)) (canon lift (core func $i "id")))
            (func (export "desc") (param "x" u32) (result u32) (canon lift (core func $i "desc")))
            (func (export "consume") (param "x" (own $t)) (canon lift (core func $i "consume"))))"#,
    );
    let dropped = Arc::new(AtomicU32::new(0));
    let mut linker = Linker::<()>::new(&engine);
    let d = dropped.clone();
    linker
        .root()
        .resource("thing", ResourceType::host_dynamic(7), move |_, rep| {
            d.store(rep, Ordering::SeqCst);
            Ok(())
        })?;
    linker
        .root()
        .func_new_with_func_type("describe", |_, ty, args, results| {
            let names: Vec<&str> = ty.params().map(|(n, _)| n).collect();
            assert_eq!(names, ["a", "b"]);
            assert_eq!(ty.results().count(), 1);
            results[0] = args[0].clone();
            Ok(())
        })?;
    let mut store = Store::new(&engine, ());
    let instance = linker.instantiate(&mut store, &c)?;

    assert_eq!(call_export(&mut store, &instance, "desc", &[Val::U32(9)])?, Val::U32(9));

    let id = instance.get_func(&mut store, "id").expect("id");
    let ty = id.ty(&store).expect("a function of this store");
    assert_eq!(ty.params().count(), 1);
    assert_eq!(ty.results().count(), 1);
    assert!(id.ty(Store::new(&engine, ())).is_none());

    let any = ResourceDynamic::new_own(42, 7).try_into_resource_any(&mut store)?;
    assert_eq!(any.ty(), ResourceType::host_dynamic(7));
    assert_ne!(any.ty(), ResourceType::host_dynamic(8));
    let back = call_export(&mut store, &instance, "id", &[Val::Resource(any)])?;
    let Val::Resource(back) = back else {
        panic!("not a resource: {back:?}")
    };
    let host = ResourceDynamic::try_from_resource_any(back, &mut store)?;
    assert_eq!((host.rep(), host.ty(), host.owned()), (42, 7, true));

    let any = host.try_into_resource_any(&mut store)?;
    let consume = instance.get_func(&mut store, "consume").expect("consume");
    consume.call(&mut store, &[Val::Resource(any)], &mut [])?;
    assert_eq!(dropped.load(Ordering::SeqCst), 42);

    // A resource of another payload is not a `thing`.
    let other = ResourceDynamic::new_own(1, 8).try_into_resource_any(&mut store)?;
    let err = call_export(&mut store, &instance, "id", &[Val::Resource(other)]).unwrap_err();
    assert!(
        format!("{err:#}").contains("wrong type") || format!("{err:#}").contains("resource"),
        "{err:#}"
    );
    // A borrow converts back without leaving the host table.
    let b = ResourceDynamic::new_borrow(5, 7).try_into_resource_any(&mut store)?;
    assert!(!b.owned());
    assert_eq!(ResourceDynamic::try_from_resource_any(b, &mut store)?.rep(), 5);
    Ok(())
}

/// The import and export types of a core module a component imports.
#[test]
fn module_type_import_and_export_types() {
    use weft::component::types::ComponentItem;
    let engine = Engine::default();
    let c = component(
        &engine,
        r#"(component
            (import "plugin" (core module
                (import "env" "log" (func (param i32)))
                (export "f" (func (result i32)))
                (export "mem" (memory 1)))))"#,
    );
    let ty = c.component_type();
    let Some(ComponentItem::Module(m)) = ty.get_import(&engine, "plugin") else {
        panic!("no module import");
    };
    let imports: Vec<_> = m.import_types(&engine).collect();
    assert_eq!(imports.len(), 1);
    assert_eq!((imports[0].0, imports[0].1), ("env", "log"));
    let weft::ExternType::Func(f) = &imports[0].2 else {
        panic!("not a function")
    };
    assert_eq!(f.params().len(), 1);
    let exports: Vec<_> = m.export_types(&engine).collect();
    assert_eq!(exports.len(), 2);
    assert!(matches!(exports[0], ("f", weft::ExternType::Func(_))));
    assert!(matches!(exports[1], ("mem", weft::ExternType::Memory(_))));
}

/// A core module the component exports has a type too (as in Wasmtime):
/// its own, and one re-exported from the imports has the imported type,
/// at the root and inside an exported instance.
#[test]
fn exported_core_modules_have_their_types() {
    use weft::component::types::ComponentItem;
    let engine = Engine::default();
    let c = component(
        &engine,
        r#"(component
            (import "outside" (core module $outside
                (export "g" (global i64))))
            (core module $own
                (import "host" "tick" (func (param i32 i64) (result f32)))
                (memory (export "mem") 2 3)
                (table (export "tab") 1 funcref)
                (func (export "f") (result i32) i32.const 7))
            (instance $bundle (export "inner" (core module $own)))
            (export "own" (core module $own))
            (export "again" (core module $outside))
            (export "bundle" (instance $bundle)))"#,
    );
    let ty = c.component_type();
    let names: Vec<_> = ty.exports(&engine).map(|(n, _)| n.to_string()).collect();
    assert_eq!(names, ["own", "again", "bundle"]);

    let Some(ComponentItem::Module(own)) = ty.get_export(&engine, "own") else {
        panic!("`own` has no module type");
    };
    let imports: Vec<_> = own.import_types(&engine).collect();
    assert_eq!(imports.len(), 1);
    assert_eq!((imports[0].0, imports[0].1), ("host", "tick"));
    let weft::ExternType::Func(tick) = &imports[0].2 else {
        panic!("`tick` is not a function");
    };
    assert_eq!(tick.params().len(), 2);
    assert_eq!(tick.results().len(), 1);
    let exports: Vec<_> = own.export_types(&engine).collect();
    assert_eq!(exports.len(), 3);
    let ("mem", weft::ExternType::Memory(mem)) = &exports[0] else {
        panic!("{:?}", exports[0].0);
    };
    assert_eq!((mem.minimum(), mem.maximum()), (2, Some(3)));
    assert!(matches!(exports[1], ("tab", weft::ExternType::Table(_))));
    assert!(matches!(exports[2], ("f", weft::ExternType::Func(_))));

    let Some(ComponentItem::Module(again)) = ty.get_export(&engine, "again") else {
        panic!("`again` has no module type");
    };
    let exports: Vec<_> = again.export_types(&engine).collect();
    assert_eq!(exports.len(), 1);
    assert!(matches!(exports[0], ("g", weft::ExternType::Global(_))));

    let Some(ComponentItem::ComponentInstance(bundle)) = ty.get_export(&engine, "bundle") else {
        panic!("`bundle` has no instance type");
    };
    let Some(ComponentItem::Module(inner)) = bundle.get_export("inner") else {
        panic!("`bundle` has no module `inner`");
    };
    assert_eq!(inner.export_types(&engine).count(), 3);
}
