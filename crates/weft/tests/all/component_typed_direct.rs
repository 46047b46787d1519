//! The direct path of typed host functions (`func_wrap`, called from a
//! synchronous `canon lower`): the arguments go from the caller's flat
//! values and memory straight to Rust values, and the results back, with
//! no `Val` in between. `component_typed.rs` round-trips every kind of
//! value through it; here a guest hands a host function raw flat values
//! that are not valid for their type, and the direct path must fail with
//! the same trap as the `Val` path (`func_new`), never panic, and leave
//! the resources' handle tables as they were.

#![cfg(feature = "component-model")]

use weft::component::{Component, Linker, Resource, ResourceTable, Val};
use weft::{Engine, Store};

/// A component importing a resource type `r` and `f: func(x: ty) -> u32`
/// (`ty` may name `$r`), and exporting
/// `run: func(a: u32, b: u32) -> u32`, which passes its two arguments to
/// `f` as the first two of `f`'s `flat` core parameters (the others 0).
fn raw_caller(engine: &Engine, ty: &str, flat: &[&str]) -> Component {
    let params: String = flat.iter().map(|t| format!("{t} ")).collect();
    let args: String = flat
        .iter()
        .enumerate()
        .map(|(i, t)| match (i, *t) {
            (0 | 1, "i32") => format!("(local.get {i}) "),
            (0 | 1, "i64") => format!("(i64.extend_i32_u (local.get {i})) "),
            (_, t) => format!("({t}.const 0) "),
        })
        .collect();
    let text = format!(
        r#"(component
            (import "r" (type $r (sub resource)))
            (import "f" (func $f (param "x" {ty}) (result u32)))
            (core module $libc
                (memory (export "mem") 1)
                (data (i32.const 100) "\ff\fe")
                (func (export "realloc") (param i32 i32 i32 i32) (result i32) (i32.const 512)))
            (core instance $libc (instantiate $libc))
            (core func $f (canon lower (func $f) (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
            (core module $m
                (import "host" "f" (func $f (param {params}) (result i32)))
                (func (export "run") (param i32 i32) (result i32) (call $f {args})))
            (core instance $i (instantiate $m (with "host" (instance (export "f" (func $f))))))
            (func (export "run") (param "a" u32) (param "b" u32) (result u32)
                (canon lift (core func $i "run"))))"#
    );
    Component::new(engine, wat::parse_str(text).expect("valid text")).expect("the test component compiles")
}

/// A linker defining the resource type `r` as [`Counter`].
fn linker_with_r(engine: &Engine) -> Linker<()> {
    let mut linker = Linker::new(engine);
    linker
        .root()
        .resource("r", weft::component::ResourceType::host::<Counter>(), |_, _| Ok(()))
        .expect("defines r");
    linker
}

/// The error of calling `run(a, b)` with `linker`'s `f`.
fn run_error(engine: &Engine, component: &Component, linker: &Linker<()>, a: u32, b: u32) -> String {
    let mut store = Store::new(engine, ());
    let instance = linker.instantiate(&mut store, component).expect("instantiates");
    let run = instance
        .get_typed_func::<(u32, u32), (u32,)>(&mut store, "run")
        .expect("run is exported");
    match run.call(&mut store, (a, b)) {
        Ok(r) => panic!("run({a}, {b}) returned {r:?} instead of failing"),
        Err(e) => format!("{e:#}"),
    }
}

/// Checks that the typed host function `typed` and a `func_new` host
/// function both fail `run(a, b)` for the type `ty`, with the same error
/// containing `expected`.
fn same_trap<P>(ty: &str, flat: &[&str], (a, b): (u32, u32), expected: &str)
where
    P: weft::component::ComponentNamedList + weft::component::Lift + 'static,
{
    let engine = Engine::default();
    let component = raw_caller(&engine, ty, flat);
    let mut typed = linker_with_r(&engine);
    typed.root().func_wrap("f", |_, _: P| Ok((0u32,))).expect("defines f");
    let mut dynamic = linker_with_r(&engine);
    dynamic
        .root()
        .func_new("f", |_, _: &[Val], results: &mut [Val]| {
            results[0] = Val::U32(0);
            Ok(())
        })
        .expect("defines f");
    let direct = run_error(&engine, &component, &typed, a, b);
    let vals = run_error(&engine, &component, &dynamic, a, b);
    assert!(direct.contains(expected), "{ty}: {direct}");
    assert_eq!(direct, vals, "{ty}: the direct path and the Val path fail alike");
}

#[test]
fn invalid_flat_values_trap_as_on_the_val_path() {
    same_trap::<(String,)>("string", &["i32", "i32"], (65530, 10), "out of bounds");
    same_trap::<(String,)>("string", &["i32", "i32"], (100, 2), "invalid UTF-8");
    same_trap::<(Vec<u8>,)>("(list u8)", &["i32", "i32"], (65530, 10), "out of bounds");
    same_trap::<(Vec<u32>,)>("(list u32)", &["i32", "i32"], (2, 1), "unaligned");
    same_trap::<(Vec<String>,)>("(list string)", &["i32", "i32"], (0, 1 << 30), "too long");
    same_trap::<(char,)>("char", &["i32"], (0xd800, 0), "invalid `char`");
    same_trap::<(Option<u32>,)>("(option u32)", &["i32", "i32"], (2, 0), "discriminant 2");
    same_trap::<(Result<u64, String>,)>(
        "(result u64 (error string))",
        &["i32", "i64", "i32"],
        (3, 0),
        "discriminant 3",
    );
    // The error case's string, at a pointer past the memory.
    same_trap::<(Result<(), String>,)>(
        "(result (error string))",
        &["i32", "i32", "i32"],
        (1, 70000),
        "out of bounds",
    );
}

/// A host resource type of the tests.
struct Counter;

/// Component text shared by tests: a core module `$libc` with a memory and
/// a `realloc` that always answers 512, and the import `$f` lowered with
/// them as the core function `$f`.
macro_rules! libc_and_lowered_f {
    () => {
        r#"
        (core module $libc
            (memory (export "mem") 1)
            (func (export "realloc") (param i32 i32 i32 i32) (result i32) (i32.const 512)))
        (core instance $libc (instantiate $libc))
        (core func $f (canon lower (func $f) (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))"#
    };
}

#[test]
fn invalid_handles_trap_as_on_the_val_path() {
    // No handle 5 in the caller's table, and no handle 0 ever.
    same_trap::<(Resource<Counter>,)>("(own $r)", &["i32"], (5, 0), "unknown handle index 5");
    same_trap::<(Resource<Counter>,)>("(borrow $r)", &["i32"], (0, 0), "unknown handle index 0");
}

#[test]
fn a_result_pointer_out_of_bounds_traps() {
    // `f: func(x: u32) -> string` returns through a pointer the guest gives
    // (the second core parameter): 65535 is neither aligned nor in bounds.
    let engine = Engine::default();
    let text = concat!(
        r#"(component
        (import "r" (type $r (sub resource)))
        (import "f" (func $f (param "x" u32) (result string)))"#,
        libc_and_lowered_f!(),
        r#"
        (core module $m
            (import "host" "f" (func $f (param i32 i32)))
            (func (export "run") (param i32 i32) (result i32) (call $f (local.get 0) (local.get 1)) (i32.const 0)))
        (core instance $i (instantiate $m (with "host" (instance (export "f" (func $f))))))
        (func (export "run") (param "a" u32) (param "b" u32) (result u32)
            (canon lift (core func $i "run"))))"#
    );
    let component =
        Component::new(&engine, wat::parse_str(text).expect("valid text")).expect("the test component compiles");
    let mut typed = linker_with_r(&engine);
    typed
        .root()
        .func_wrap("f", |_, (x,): (u32,)| Ok((x.to_string(),)))
        .expect("defines f");
    let mut dynamic = linker_with_r(&engine);
    dynamic
        .root()
        .func_new("f", |_, args: &[Val], results: &mut [Val]| {
            results[0] = Val::String(format!("{:?}", args[0]));
            Ok(())
        })
        .expect("defines f");
    for ptr in [65535, 65534, 1 << 20] {
        let direct = run_error(&engine, &component, &typed, 7, ptr);
        let vals = run_error(&engine, &component, &dynamic, 7, ptr);
        assert_eq!(direct, vals, "result pointer {ptr}");
    }
    // An aligned pointer in bounds works: the string is stored there.
    let mut store = Store::new(&engine, ());
    let instance = typed.instantiate(&mut store, &component).expect("instantiates");
    let run = instance
        .get_typed_func::<(u32, u32), (u32,)>(&mut store, "run")
        .expect("run is exported");
    assert_eq!(run.call(&mut store, (42, 64)).expect("run(42, 64)"), (0,));
}

#[test]
fn resources_move_in_and_out_of_the_direct_path() -> weft::Result<()> {
    // `make: func(n: u32) -> own<r>`, `get: func(c: borrow<r>) -> u32` and
    // `take: func(c: own<r>) -> u32`: the guest makes one, reads it through
    // a borrow, then gives it back; a second `take` of the same handle
    // traps, and a borrow kept by the host does not outlive the call.
    let engine = Engine::default();
    let text = r#"(component
        (import "r" (type $r (sub resource)))
        (import "make" (func $make (param "n" u32) (result (own $r))))
        (import "get" (func $get (param "c" (borrow $r)) (result u32)))
        (import "take" (func $take (param "c" (own $r)) (result u32)))
        (core func $make (canon lower (func $make)))
        (core func $get (canon lower (func $get)))
        (core func $take (canon lower (func $take)))
        (core module $m
            (import "h" "make" (func $make (param i32) (result i32)))
            (import "h" "get" (func $get (param i32) (result i32)))
            (import "h" "take" (func $take (param i32) (result i32)))
            (func (export "run") (param i32) (result i32)
                (local $h i32) (local $sum i32)
                (local.set $h (call $make (local.get 0)))
                (local.set $sum (call $get (local.get $h)))
                (local.set $sum (i32.add (local.get $sum) (call $take (local.get $h))))
                (local.get $sum))
            (func (export "twice") (param i32) (result i32)
                (local $h i32)
                (local.set $h (call $make (local.get 0)))
                (drop (call $take (local.get $h)))
                (call $take (local.get $h))))
        (core instance $i (instantiate $m (with "h" (instance
            (export "make" (func $make)) (export "get" (func $get)) (export "take" (func $take))))))
        (func (export "run") (param "n" u32) (result u32) (canon lift (core func $i "run")))
        (func (export "twice") (param "n" u32) (result u32) (canon lift (core func $i "twice"))))"#;
    let component = Component::new(&engine, wat::parse_str(text)?)?;
    let mut linker = Linker::<ResourceTable>::new(&engine);
    let mut root = linker.root();
    root.resource("r", weft::component::ResourceType::host::<Counter>(), |_, _| Ok(()))?;
    root.func_wrap("make", |_, (n,): (u32,)| Ok((Resource::<Counter>::new_own(n),)))?;
    root.func_wrap("get", |_, (c,): (Resource<Counter>,)| {
        assert!(!c.owned(), "a borrow is lifted as a borrow");
        Ok((c.rep() * 10,))
    })?;
    root.func_wrap("take", |_, (c,): (Resource<Counter>,)| {
        assert!(c.owned(), "an own is lifted as an own");
        Ok((c.rep(),))
    })?;
    let mut store = Store::new(&engine, ResourceTable::new());
    let instance = linker.instantiate(&mut store, &component)?;
    let run = instance.get_typed_func::<(u32,), (u32,)>(&mut store, "run")?;
    assert_eq!(run.call(&mut store, (4,))?, (44,));
    let twice = instance.get_typed_func::<(u32,), (u32,)>(&mut store, "twice")?;
    let err = twice.call(&mut store, (4,)).expect_err("a handle taken twice traps");
    assert!(format!("{err:#}").contains("unknown handle index"), "{err:#}");
    Ok(())
}

/// A component whose `run: func(n: u32) -> u32` writes the decimal digit
/// `n` into its own memory and passes that one-character string to the
/// host's `f: func(s: string) -> u32`, returning what `f` returns.
const STRING_CALLER: &str = concat!(
    r#"(component
    (import "f" (func $f (param "s" string) (result u32)))"#,
    libc_and_lowered_f!(),
    r#"
    (core module $m
        (import "host" "f" (func $f (param i32 i32) (result i32)))
        (import "libc" "mem" (memory 1))
        (func (export "run") (param i32) (result i32)
            (i32.store8 (i32.const 100) (i32.add (i32.const 48) (local.get 0)))
            (call $f (i32.const 100) (i32.const 1))))
    (core instance $i (instantiate $m
        (with "host" (instance (export "f" (func $f))))
        (with "libc" (instance $libc))))
    (func (export "run") (param "n" u32) (result u32)
        (canon lift (core func $i "run"))))"#
);

/// Calls `run(n)` of `instance`.
fn run_digit(store: &mut Store<()>, instance: &weft::component::Instance, n: u32) -> u32 {
    let run = instance
        .get_typed_func::<(u32,), (u32,)>(&mut *store, "run")
        .expect("run is exported");
    run.call(&mut *store, (n,)).expect("run succeeds").0
}

/// The instances of a component share the closure of each typed host
/// function they lower, but each call reads its own instance's memory, in
/// one store and across stores; a linker with another host function for
/// the same import gets that function.
#[test]
fn lowered_host_functions_keep_their_instance_and_linker() {
    let engine = Engine::default();
    let bytes = wat::parse_str(STRING_CALLER).expect("valid text");
    let component = Component::new(&engine, bytes).expect("compiles");
    let parse = |base: u32| {
        let mut linker = Linker::<()>::new(&engine);
        linker
            .root()
            .func_wrap("f", move |_, (s,): (String,)| {
                let digit = s.parse::<u32>().map_err(|e| weft::format_err!("`{s}`: {e}"))?;
                Ok((base + digit,))
            })
            .expect("defines f");
        linker
    };
    let (tens, hundreds) = (parse(10), parse(100));
    let mut store = Store::new(&engine, ());
    let a = tens.instantiate(&mut store, &component).expect("instantiates");
    let b = tens.instantiate(&mut store, &component).expect("instantiates");
    let c = hundreds.instantiate(&mut store, &component).expect("instantiates");
    let mut other = Store::new(&engine, ());
    let d = tens.instantiate(&mut other, &component).expect("instantiates");
    // Each call writes its digit into its own instance's memory first;
    // interleaving them shows that no call reads another's.
    assert_eq!(run_digit(&mut store, &a, 3), 13);
    assert_eq!(run_digit(&mut store, &b, 4), 14);
    assert_eq!(run_digit(&mut store, &c, 5), 105);
    assert_eq!(run_digit(&mut other, &d, 6), 16);
    assert_eq!(run_digit(&mut store, &a, 7), 17);
    assert_eq!(run_digit(&mut store, &c, 8), 108);
    assert_eq!(run_digit(&mut store, &b, 9), 19);
}
