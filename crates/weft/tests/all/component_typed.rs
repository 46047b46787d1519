//! The typed component API: derived types, `func_wrap`, `TypedFunc`.
//!
//! Most tests use an "echo" guest: it imports a host function `f: func(x: T)
//! -> U` and exports `run: func(x: T) -> U`, which passes its argument to
//! `f` and returns what `f` returns. Calling `run` from the host sends a
//! value host-to-guest (lowered into the guest) and back guest-to-host
//! (lifted for the typed host function), and the result makes the same trip
//! the other way.

#![cfg(feature = "component-model")]

use weft::component::{
    flags, Component, ComponentType, Lift, Linker, Lower, Resource, ResourceAny, ResourceType, TypedFunc, Val,
};
use weft::{Engine, Store};

/// A core module with a memory and a bump allocator for `realloc`.
const LIBC: &str = r#"
    (memory (export "mem") 1)
    (global $bump (mut i32) (i32.const 1024))
    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
        (local $p i32)
        (local.set $p (i32.and (i32.add (global.get $bump) (i32.sub (local.get 2) (i32.const 1)))
                               (i32.sub (i32.const 0) (local.get 2))))
        (global.set $bump (i32.add (local.get $p) (local.get 3)))
        (local.get $p))
"#;

/// The shape of an echo guest.
struct Echo<'a> {
    /// Declarations of the imported instance `host` before its function
    /// `f`: named types, exported as `(export "name" (type $name ...))`.
    decls: &'a str,
    /// The parameter type of `f` and `run`.
    param: &'a str,
    /// The result type of `f` and `run`.
    result: &'a str,
    /// The flat core parameters of the parameter type (e.g. `i32 i32`).
    flat_params: &'a str,
    /// The single flat core result, or `None` when the result is returned
    /// through memory.
    flat_result: Option<&'a str>,
}

impl Echo<'_> {
    fn text(&self) -> String {
        let Echo {
            decls,
            param,
            result,
            flat_params,
            flat_result,
        } = self;
        // The types `host` exports, aliased for the component's own use.
        let aliases: String = decls
            .split("(export \"")
            .skip(1)
            .filter_map(|rest| {
                let (name, rest) = rest.split_once('"')?;
                let var = rest.trim_start().strip_prefix("(type ")?.split_whitespace().next()?;
                Some(format!("(alias export $host \"{name}\" (type {var})) "))
            })
            .collect();
        let n = flat_params.split_whitespace().count();
        let args: String = (0..n).map(|i| format!("(local.get {i}) ")).collect();
        let (import_ty, body, export_result) = match flat_result {
            Some(r) => (
                format!("(param {flat_params}) (result {r})"),
                format!("(call $f {args})"),
                *r,
            ),
            None => (
                format!("(param {flat_params} i32)"),
                format!("(call $f {args} (i32.const 64)) (i32.const 64)"),
                "i32",
            ),
        };
        format!(
            r#"(component
                (import "host" (instance $host
                    {decls}
                    (export "f" (func (param "x" {param}) (result {result})))))
                {aliases}
                (alias export $host "f" (func $f))
                (core module $libc {LIBC})
                (core instance $libc (instantiate $libc))
                (core func $f (canon lower (func $f) (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
                (core module $m
                    (import "host" "f" (func $f {import_ty}))
                    (func (export "run") (param {flat_params}) (result {export_result}) {body}))
                (core instance $i (instantiate $m (with "host" (instance (export "f" (func $f))))))
                (func (export "run") (param "x" {param}) (result {result})
                    (canon lift (core func $i "run") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc")))))"#
        )
    }

    fn component(&self, engine: &Engine) -> Component {
        compile(engine, &self.text())
    }
}

/// Compiles a test component from its text.
fn compile(engine: &Engine, text: &str) -> Component {
    let bytes = match wat::parse_str(text) {
        Ok(b) => b,
        Err(e) => panic!("invalid test component: {e}\n{text}"),
    };
    match Component::new(engine, bytes) {
        Ok(c) => c,
        Err(e) => panic!("test component does not compile: {e:#}\n{text}"),
    }
}

/// Instantiates `echo` with `f` as its import and returns `run`, typed.
fn echo_with<T, P, R>(
    store: &mut Store<T>,
    echo: &Echo<'_>,
    f: impl Fn(weft::StoreContextMut<'_, T>, (P,)) -> weft::Result<(R,)> + Send + Sync + 'static,
) -> weft::Result<TypedFunc<(P,), (R,)>>
where
    T: 'static,
    P: ComponentType + Lift + Lower + 'static,
    R: ComponentType + Lift + Lower + 'static,
{
    let engine = store.engine().clone();
    let mut linker = Linker::<T>::new(&engine);
    linker.instance("host")?.func_wrap("f", f)?;
    let instance = linker.instantiate(&mut *store, &echo.component(&engine))?;
    instance.get_typed_func::<(P,), (R,)>(&mut *store, "run")
}

/// The values the host function of an echo guest received, in one store
/// data type for every value type: a store type per value type would
/// monomorphize the store and linker API again for each, for nothing.
type Received = Vec<Box<dyn std::any::Any + Send>>;

/// The value `f` received and what it returns for it.
fn echo_roundtrip<P, R>(echo: &Echo<'_>, arg: P, f: fn(P) -> R) -> weft::Result<R>
where
    P: ComponentType + Lift + Lower + Clone + PartialEq + std::fmt::Debug + Send + Sync + 'static,
    R: ComponentType + Lift + Lower + 'static,
{
    let engine = Engine::default();
    let mut store = Store::new(&engine, Received::new());
    let run = echo_with(&mut store, echo, move |mut store, (x,): (P,)| {
        store.data_mut().push(Box::new(x.clone()));
        Ok((f(x),))
    })?;
    let (r,) = run.call(&mut store, (arg.clone(),))?;
    run.post_return(&mut store)?;
    let received: Vec<Option<&P>> = store.data().iter().map(|v| v.downcast_ref::<P>()).collect();
    assert_eq!(received, [Some(&arg)], "the value the host function received");
    Ok(r)
}

#[derive(ComponentType, Lift, Lower, Debug, Clone, PartialEq)]
#[component(record)]
struct Point {
    x: i32,
    y_coord: i32,
    #[component(name = "label")]
    name: String,
}

#[test]
fn records_round_trip() -> weft::Result<()> {
    let echo = Echo {
        decls: r#"(type $p' (record (field "x" s32) (field "y-coord" s32) (field "label" string)))
                  (export "point" (type $p (eq $p')))"#,
        param: "$p",
        result: "$p",
        flat_params: "i32 i32 i32 i32",
        flat_result: None,
    };
    let p = Point {
        x: -1,
        y_coord: 2,
        name: "origin".into(),
    };
    let r = echo_roundtrip(&echo, p, |p| Point {
        x: p.x * 10,
        y_coord: p.y_coord * 10,
        name: p.name.to_uppercase(),
    })?;
    assert_eq!(
        r,
        Point {
            x: -10,
            y_coord: 20,
            name: "ORIGIN".into()
        }
    );
    Ok(())
}

#[derive(ComponentType, Lift, Lower, Debug, Clone, PartialEq)]
#[component(variant)]
enum Shape {
    Empty,
    Circle(f64),
    #[component(name = "named")]
    Label(String),
    Pair((u8, char)),
}

#[test]
fn variants_round_trip() -> weft::Result<()> {
    // Joined flat payload: i32 discriminant, then i64 (f64 / i32 ptr / u8), i32 (len / char).
    let echo = Echo {
        decls: r#"(type $s' (variant (case "empty") (case "circle" f64) (case "named" string) (case "pair" (tuple u8 char))))
                  (export "shape" (type $s (eq $s')))"#,
        param: "$s",
        result: "$s",
        flat_params: "i32 i64 i32",
        flat_result: None,
    };
    let next = |s: Shape| match s {
        Shape::Empty => Shape::Circle(1.5),
        Shape::Circle(r) => Shape::Label(format!("r={r}")),
        Shape::Label(s) => Shape::Pair((s.len() as u8, 'λ')),
        Shape::Pair(_) => Shape::Empty,
    };
    assert_eq!(echo_roundtrip(&echo, Shape::Empty, next)?, Shape::Circle(1.5));
    assert_eq!(
        echo_roundtrip(&echo, Shape::Circle(2.5), next)?,
        Shape::Label("r=2.5".into())
    );
    assert_eq!(
        echo_roundtrip(&echo, Shape::Label("héllo".into()), next)?,
        Shape::Pair((6, 'λ'))
    );
    assert_eq!(echo_roundtrip(&echo, Shape::Pair((1, 'x')), next)?, Shape::Empty);
    Ok(())
}

#[derive(ComponentType, Lift, Lower, Debug, Clone, Copy, PartialEq)]
#[component(enum)]
enum Color {
    Red,
    DarkGreen,
    #[component(name = "azure")]
    Blue,
}

#[test]
fn enums_round_trip() -> weft::Result<()> {
    let echo = Echo {
        decls: r#"(type $c' (enum "red" "dark-green" "azure"))
                  (export "color" (type $c (eq $c')))"#,
        param: "$c",
        result: "$c",
        flat_params: "i32",
        flat_result: Some("i32"),
    };
    let next = |c| match c {
        Color::Red => Color::DarkGreen,
        Color::DarkGreen => Color::Blue,
        Color::Blue => Color::Red,
    };
    for c in [Color::Red, Color::DarkGreen, Color::Blue] {
        assert_eq!(echo_roundtrip(&echo, c, next)?, next(c));
    }
    Ok(())
}

flags! {
    /// File permissions.
    Perms {
        #[component(name = "read")]
        const READ;
        const WRITE;
        const EXEC_ALL;
    }
}

#[test]
fn flags_round_trip() -> weft::Result<()> {
    let echo = Echo {
        decls: r#"(type $f' (flags "read" "write" "exec-all"))
                  (export "perms" (type $f (eq $f')))"#,
        param: "$f",
        result: "$f",
        flat_params: "i32",
        flat_result: Some("i32"),
    };
    for p in [
        Perms::empty(),
        Perms::READ,
        Perms::WRITE | Perms::EXEC_ALL,
        Perms::all(),
    ] {
        assert_eq!(echo_roundtrip(&echo, p, |p| !p)?, !p);
    }
    assert_eq!(format!("{:?}", Perms::READ | Perms::WRITE), "Perms(READ | WRITE)");
    assert!(Perms::all().contains(Perms::EXEC_ALL));
    assert_eq!(Perms::all() - Perms::READ, Perms::WRITE | Perms::EXEC_ALL);
    Ok(())
}

#[test]
fn options_and_results_round_trip() -> weft::Result<()> {
    let echo = Echo {
        decls: "",
        param: "(option u32)",
        result: "(result string (error u8))",
        flat_params: "i32 i32",
        flat_result: None,
    };
    let f = |o: Option<u32>| -> Result<String, u8> {
        match o {
            Some(n) => Ok(n.to_string()),
            None => Err(7),
        }
    };
    assert_eq!(echo_roundtrip(&echo, Some(42), f)?, Ok("42".to_string()));
    assert_eq!(echo_roundtrip(&echo, None, f)?, Err(7));

    // `()` stands for an absent payload.
    let echo = Echo {
        decls: "",
        param: "(result (error string))",
        result: "(result u64)",
        flat_params: "i32 i32 i32",
        flat_result: None,
    };
    let f = |r: Result<(), String>| -> Result<u64, ()> { r.map(|()| u64::MAX).map_err(|_| ()) };
    assert_eq!(echo_roundtrip(&echo, Ok(()), f)?, Ok(u64::MAX));
    assert_eq!(echo_roundtrip(&echo, Err("no".to_string()), f)?, Err(()));
    Ok(())
}

#[test]
fn lists_of_strings_round_trip() -> weft::Result<()> {
    let echo = Echo {
        decls: "",
        param: "(list string)",
        result: "(list string)",
        flat_params: "i32 i32",
        flat_result: None,
    };
    let f = |v: Vec<String>| -> Vec<String> { v.into_iter().rev().map(|s| s + "!").collect() };
    let words: Vec<String> = ["one", "two", "", "drei"].iter().map(|s| s.to_string()).collect();
    assert_eq!(echo_roundtrip(&echo, words, f)?, ["drei!", "!", "two!", "one!"]);
    assert_eq!(echo_roundtrip(&echo, Vec::new(), f)?, Vec::<String>::new());

    // `Box<[T]>` is a list too.
    let echo = Echo {
        decls: "",
        param: "(list u16)",
        result: "(tuple u32 bool)",
        flat_params: "i32 i32",
        flat_result: None,
    };
    let f = |v: Box<[u16]>| -> (u32, bool) { (v.iter().map(|&x| u32::from(x)).sum(), v.is_empty()) };
    assert_eq!(
        echo_roundtrip(&echo, vec![1u16, 2, 65535].into_boxed_slice(), f)?,
        (65538, false)
    );
    Ok(())
}

/// Round trips `v` through `f: func(x: ty) -> ty`, whose core type is
/// `flat -> flat`, with `g` as the host function.
fn same<V>(ty: &str, flat: &str, v: V, g: fn(V) -> V) -> weft::Result<V>
where
    V: ComponentType + Lift + Lower + Clone + PartialEq + std::fmt::Debug + Send + Sync + 'static,
{
    let echo = Echo {
        decls: "",
        param: ty,
        result: ty,
        flat_params: flat,
        flat_result: Some(flat),
    };
    echo_roundtrip(&echo, v, g)
}

#[test]
fn primitives_round_trip() -> weft::Result<()> {
    assert!(!same("bool", "i32", true, |b| !b)?);
    assert_eq!(same("s8", "i32", -5i8, |x| x * 20)?, -100);
    assert_eq!(same("u8", "i32", 200u8, |x| x + 55)?, 255);
    assert_eq!(same("s16", "i32", -300i16, |x| x * 100)?, -30000);
    assert_eq!(same("u16", "i32", 65000u16, |x| x + 535)?, 65535);
    assert_eq!(same("s32", "i32", i32::MIN, |x| x + 1)?, i32::MIN + 1);
    assert_eq!(same("u32", "i32", u32::MAX, |x| x - 1)?, u32::MAX - 1);
    assert_eq!(same("s64", "i64", i64::MIN, |x| x / 2)?, i64::MIN / 2);
    assert_eq!(same("u64", "i64", u64::MAX, |x| x >> 1)?, u64::MAX >> 1);
    assert_eq!(same("f32", "f32", 1.5f32, |x| x * -2.0)?, -3.0);
    assert_eq!(same("f64", "f64", 0.1f64, |x| x + 0.2)?, 0.1 + 0.2);
    assert!(same("f64", "f64", 1.0f64, |_| f64::NAN)?.is_nan());
    assert_eq!(same("char", "i32", 'a', |c| c.to_ascii_uppercase())?, 'A');
    assert_eq!(same("char", "i32", '🦀', |_| 'λ')?, 'λ');

    let echo = Echo {
        decls: "",
        param: "string",
        result: "string",
        flat_params: "i32 i32",
        flat_result: None,
    };
    assert_eq!(
        echo_roundtrip(&echo, "héllo".to_string(), |s| s.repeat(2))?,
        "héllohéllo"
    );
    assert_eq!(echo_roundtrip(&echo, String::new(), |s| s)?, "");
    Ok(())
}

#[derive(ComponentType, Lift, Lower, Debug, Clone, PartialEq)]
#[component(record)]
struct Entry {
    key: String,
    tags: Vec<String>,
    point: Option<Point>,
}

#[test]
fn nested_types_round_trip() -> weft::Result<()> {
    // list<record { key: string, tags: list<string>, point: option<point> }>
    // as (ptr, len); the result (a tuple of a count and the keys) through
    // memory.
    let echo = Echo {
        decls: r#"(type $p' (record (field "x" s32) (field "y-coord" s32) (field "label" string)))
                  (export "point" (type $p (eq $p')))
                  (type $e' (record (field "key" string) (field "tags" (list string)) (field "point" (option $p))))
                  (export "entry" (type $e (eq $e')))"#,
        param: "(list $e)",
        result: "(tuple u32 (list (option string)))",
        flat_params: "i32 i32",
        flat_result: None,
    };
    let entries = vec![
        Entry {
            key: "a".into(),
            tags: vec!["t1".into(), "t2".into()],
            point: Some(Point {
                x: 1,
                y_coord: -1,
                name: "p".into(),
            }),
        },
        Entry {
            key: "b".into(),
            tags: vec![],
            point: None,
        },
    ];
    let r = echo_roundtrip(&echo, entries, |es| {
        let labels = es.iter().map(|e| e.point.as_ref().map(|p| p.name.clone())).collect();
        (es.iter().map(|e| e.tags.len() as u32).sum::<u32>(), labels)
    })?;
    assert_eq!(r, (2, vec![Some("p".to_string()), None]));
    Ok(())
}

#[test]
fn host_functions_take_several_parameters_and_no_result() -> weft::Result<()> {
    let engine = Engine::default();
    let text = format!(
        r#"(component
            (import "host" (instance $host
                (export "log" (func (param "level" u8) (param "msg" string) (param "urgent" bool)))))
            (alias export $host "log" (func $log))
            (core module $libc {LIBC})
            (core instance $libc (instantiate $libc))
            (core func $log (canon lower (func $log) (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
            (core module $m
                (import "host" "log" (func $log (param i32 i32 i32 i32)))
                (func (export "run") (param i32 i32 i32 i32) (call $log (local.get 0) (local.get 1) (local.get 2) (local.get 3))))
            (core instance $i (instantiate $m (with "host" (instance (export "log" (func $log))))))
            (func (export "run") (param "level" u8) (param "msg" string) (param "urgent" bool)
                (canon lift (core func $i "run") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc")))))"#
    );
    let component = compile(&engine, &text);
    let mut store = Store::new(&engine, Vec::<(u8, String, bool)>::new());
    let mut linker = Linker::<Vec<(u8, String, bool)>>::new(&engine);
    linker
        .instance("host")?
        .func_wrap("log", |mut store, (level, msg, urgent): (u8, String, bool)| {
            if msg == "fail" {
                weft::bail!("the host refuses");
            }
            store.data_mut().push((level, msg, urgent));
            Ok(())
        })?;
    let instance = linker.instantiate(&mut store, &component)?;
    let run = instance.get_typed_func::<(u8, &str, bool), ()>(&mut store, "run")?;
    run.call(&mut store, (3, "disk full", true))?;
    run.call(&mut store, (0, "", false))?;
    assert_eq!(
        store.data(),
        &[(3, "disk full".to_string(), true), (0, String::new(), false)]
    );
    // An error of the host function is the call's error.
    let err = run.call(&mut store, (1, "fail", false)).unwrap_err();
    assert!(format!("{err:#}").contains("the host refuses"), "{err:#}");
    Ok(())
}

/// A host resource type.
struct Counter;

#[test]
fn resources_round_trip() -> weft::Result<()> {
    let engine = Engine::default();
    let decls = r#"(export "counter" (type $c (sub resource)))"#;
    // An own goes to the guest and comes back through the host function,
    // which replaces it with a new own.
    let echo = Echo {
        decls,
        param: "(own $c)",
        result: "(own $c)",
        flat_params: "i32",
        flat_result: Some("i32"),
    };
    let mut store = Store::new(&engine, Vec::<u32>::new());
    let mut linker = Linker::<Vec<u32>>::new(&engine);
    linker
        .instance("host")?
        .resource("counter", ResourceType::host::<Counter>(), |mut store, rep| {
            store.data_mut().push(rep);
            Ok(())
        })?;
    linker
        .instance("host")?
        .func_wrap("f", |_store, (c,): (Resource<Counter>,)| {
            assert!(c.owned());
            Ok((Resource::<Counter>::new_own(c.rep() + 1),))
        })?;
    let instance = linker.instantiate(&mut store, &echo.component(&engine))?;
    let run = instance.get_typed_func::<(Resource<Counter>,), (Resource<Counter>,)>(&mut store, "run")?;
    let (r,) = run.call(&mut store, (Resource::new_own(5),))?;
    assert!(r.owned());
    assert_eq!(r.rep(), 6);

    // A list of owns goes to the host function, which takes them as
    // `ResourceAny`s and drops them (running the destructor).
    let echo = Echo {
        decls,
        param: "(list (own $c))",
        result: "u32",
        flat_params: "i32 i32",
        flat_result: Some("i32"),
    };
    linker.allow_shadowing(true);
    linker
        .instance("host")?
        .func_wrap("f", |mut store, (cs,): (Vec<ResourceAny>,)| {
            let mut sum = 0;
            for c in cs {
                assert!(c.owned());
                sum += c.ty().eq(&ResourceType::host::<Counter>()) as u32;
                c.resource_drop(&mut store)?;
            }
            Ok((sum,))
        })?;
    let instance = linker.instantiate(&mut store, &echo.component(&engine))?;
    let run = instance.get_typed_func::<(Vec<Resource<Counter>>,), (u32,)>(&mut store, "run")?;
    let owns = vec![Resource::new_own(3), Resource::new_own(4)];
    assert_eq!(run.call(&mut store, (owns,))?, (2,));
    assert_eq!(store.data(), &[3, 4], "the destructor ran for each");
    // A handle the host makes itself is the host's to clean up: dropping
    // it runs no destructor (as in Wasmtime).
    let mine = Resource::<Counter>::new_own(9).try_into_resource_any(&mut store)?;
    mine.resource_drop(&mut store)?;
    assert_eq!(store.data(), &[3, 4], "no destructor for a handle the host made");

    // An own the guest receives is lent to the host function as a borrow.
    let echo = Echo {
        decls,
        param: "(borrow $c)",
        result: "u32",
        flat_params: "i32",
        flat_result: Some("i32"),
    };
    let text = echo.text().replace(
        r#"(func (export "run") (param "x" (borrow $c))"#,
        r#"(func (export "run") (param "x" (own $c))"#,
    );
    linker
        .instance("host")?
        .func_wrap("f", |mut store, (c,): (Resource<Counter>,)| {
            assert!(!c.owned());
            // A borrow stays in the host table after being converted.
            let again = c.try_into_resource_any(&mut store)?;
            Ok((c.rep() * 100 + u32::from(!again.owned()),))
        })?;
    let instance = linker.instantiate(&mut store, &compile(&engine, &text))?;
    let run = instance.get_typed_func::<(Resource<Counter>,), (u32,)>(&mut store, "run")?;
    assert_eq!(run.call(&mut store, (Resource::new_own(9),))?, (901,));
    Ok(())
}

/// Another host resource type.
struct Other;

#[test]
fn a_resource_of_another_type_is_an_error() -> weft::Result<()> {
    let engine = Engine::default();
    let echo = Echo {
        decls: r#"(export "counter" (type $c (sub resource)))"#,
        param: "(own $c)",
        result: "(own $c)",
        flat_params: "i32",
        flat_result: Some("i32"),
    };
    let mut store = Store::new(&engine, ());
    let mut linker = Linker::<()>::new(&engine);
    linker.allow_shadowing(true);
    let mut host = linker.instance("host")?;
    host.resource("counter", ResourceType::host::<Counter>(), |_, _| Ok(()))?;
    // The type check knows the imported resource's identity: a host
    // function taking `Resource<Other>` for a `counter` does not link.
    host.func_wrap("f", |_, (c,): (Resource<Other>,)| Ok((c,)))?;
    let err = linker.instantiate(&mut store, &echo.component(&engine)).unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.contains("`host/f`") && msg.contains("Other"), "{msg}");
    // With the right type it links. Asking for a typed function with the
    // wrong resource type then fails; `ResourceAny` matches any handle.
    linker
        .instance("host")?
        .func_wrap("f", |_, (c,): (Resource<Counter>,)| Ok((c,)))?;
    let instance = linker.instantiate(&mut store, &echo.component(&engine))?;
    let err = instance
        .get_typed_func::<(Resource<Other>,), (Resource<Counter>,)>(&mut store, "run")
        .unwrap_err();
    assert!(format!("{err:#}").contains("Other"), "{err:#}");
    instance.get_typed_func::<(ResourceAny,), (Resource<Counter>,)>(&mut store, "run")?;
    let run = instance.get_typed_func::<(Resource<Counter>,), (Resource<Counter>,)>(&mut store, "run")?;
    let back = run.call(&mut store, (Resource::new_own(7),))?.0;
    assert_eq!(back.rep(), 7);
    Ok(())
}

#[test]
fn sixteen_parameters() -> weft::Result<()> {
    let engine = Engine::default();
    let params: String = (0..16).map(|i| format!(r#"(param "p{i}" u32) "#)).collect();
    let sum: String = (1..16).map(|i| format!("(local.get {i}) i32.add ")).collect();
    let text = format!(
        r#"(component
            (core module $m (func (export "sum") (param {}) (result i32) (local.get 0) {sum}))
            (core instance $i (instantiate $m))
            (func (export "sum") {params} (result u32) (canon lift (core func $i "sum"))))"#,
        "i32 ".repeat(16)
    );
    let component = compile(&engine, &text);
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &component)?;
    type P = (
        u32,
        u32,
        u32,
        u32,
        u32,
        u32,
        u32,
        u32,
        u32,
        u32,
        u32,
        u32,
        u32,
        u32,
        u32,
        u32,
    );
    let sum = instance.get_typed_func::<P, (u32,)>(&mut store, "sum")?;
    let args: P = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
    assert_eq!(sum.call(&mut store, args)?, (136,));
    assert!(instance
        .get_typed_func::<(u32, u32), (u32,)>(&mut store, "sum")
        .is_err());
    Ok(())
}

#[test]
fn a_mistyped_host_function_is_an_error_naming_the_import() {
    let engine = Engine::default();
    let echo = Echo {
        decls: "",
        param: "u32",
        result: "string",
        flat_params: "i32",
        flat_result: None,
    };
    let component = echo.component(&engine);
    let mut store = Store::new(&engine, ());
    let check = |linker: &Linker<()>, store: &mut Store<()>, cause: &str| {
        let err = linker.instantiate(&mut *store, &component).unwrap_err();
        let msg = format!("{err:#}");
        assert!(msg.contains("`host/f`") && msg.contains(cause), "{msg}");
    };
    let mut linker = Linker::<()>::new(&engine);
    linker
        .instance("host")
        .unwrap()
        .func_wrap("f", |_, (x,): (u64,)| Ok((x.to_string(),)))
        .unwrap();
    check(&linker, &mut store, "parameters");
    let mut linker = Linker::<()>::new(&engine);
    linker
        .instance("host")
        .unwrap()
        .func_wrap("f", |_, (x,): (u32,)| Ok((x,)))
        .unwrap();
    check(&linker, &mut store, "results");
    let mut linker = Linker::<()>::new(&engine);
    linker
        .instance("host")
        .unwrap()
        .func_wrap("f", |_, (x, y): (u32, u32)| Ok((x + y,)))
        .unwrap();
    check(&linker, &mut store, "parameters");
    let mut linker = Linker::<()>::new(&engine);
    linker
        .instance("host")
        .unwrap()
        .func_wrap("f", |_, (x,): (u32,)| Ok((x.to_string(),)))
        .unwrap();
    assert!(linker.instantiate(&mut store, &component).is_ok());
}

#[test]
fn derived_types_check_names_and_shapes() {
    let engine = Engine::default();
    // The record has the fields of `Point` under other names or types.
    for (decl, flat_params) in [
        (
            r#"(record (field "x" s32) (field "y" s32) (field "label" string))"#,
            "i32 i32 i32 i32",
        ),
        (
            r#"(record (field "x" s32) (field "y-coord" s32) (field "label" u32))"#,
            "i32 i32 i32",
        ),
        (r#"(record (field "x" s32) (field "y-coord" s32))"#, "i32 i32"),
        (r#"(tuple s32 s32 string)"#, "i32 i32 i32 i32"),
    ] {
        let decls = format!(r#"(type $p' {decl}) (export "point" (type $p (eq $p')))"#);
        let echo = Echo {
            decls: &decls,
            param: "$p",
            result: "u32",
            flat_params,
            flat_result: Some("i32"),
        };
        let mut linker = Linker::<()>::new(&engine);
        linker
            .instance("host")
            .unwrap()
            .func_wrap("f", |_, (_,): (Point,)| Ok((0u32,)))
            .unwrap();
        let mut store = Store::new(&engine, ());
        let err = linker.instantiate(&mut store, &echo.component(&engine)).unwrap_err();
        assert!(format!("{err:#}").contains("type mismatch"), "{err:#}");
    }
}

#[test]
fn typed_exports_are_checked() -> weft::Result<()> {
    let engine = Engine::default();
    let echo = Echo {
        decls: "",
        param: "(list string)",
        result: "(option s32)",
        flat_params: "i32 i32",
        flat_result: None,
    };
    let component = echo.component(&engine);
    let mut store = Store::new(&engine, ());
    let mut linker = Linker::<()>::new(&engine);
    linker.instance("host")?.func_wrap("f", |_, (v,): (Vec<String>,)| {
        Ok((v.first().and_then(|s| s.parse::<i32>().ok()),))
    })?;
    let instance = linker.instantiate(&mut store, &component)?;
    // `&str` lowers as a string.
    let run = instance.get_typed_func::<(&[&str],), (Option<i32>,)>(&mut store, "run")?;
    assert_eq!(run.call(&mut store, (&["-12", "x"],))?, (Some(-12),));
    let run = instance.get_typed_func::<(Vec<String>,), (Option<i32>,)>(&mut store, "run")?;
    assert_eq!(run.call(&mut store, (vec!["x".to_string()],))?, (None,));

    let err = instance
        .get_typed_func::<(Vec<u32>,), (Option<i32>,)>(&mut store, "run")
        .unwrap_err();
    assert!(
        format!("{err:#}").contains("failed to convert function to given type"),
        "{err:#}"
    );
    assert!(format!("{err:#}").contains("parameters"), "{err:#}");
    let err = instance
        .get_typed_func::<(Vec<String>,), (i32,)>(&mut store, "run")
        .unwrap_err();
    assert!(format!("{err:#}").contains("results"), "{err:#}");
    let err = instance
        .get_typed_func::<(Vec<String>,), ()>(&mut store, "run")
        .unwrap_err();
    assert!(format!("{err:#}").contains("results"), "{err:#}");
    let err = instance.get_typed_func::<(), ()>(&mut store, "nope").unwrap_err();
    assert!(format!("{err:#}").contains("failed to find function export"), "{err:#}");

    // `Func::typed` does the same check.
    let func = instance.get_func(&mut store, "run").expect("export `run`");
    assert!(func.typed::<(Vec<String>,), (Option<i32>,)>(&store).is_ok());
    assert!(func.typed::<(String,), (Option<i32>,)>(&store).is_err());
    Ok(())
}

#[test]
fn lifting_a_value_of_the_wrong_shape_is_an_error() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let mut cx = store.as_context_mut();
    assert!(Point::lift(&mut cx, Val::U32(1)).is_err());
    assert!(Point::lift(&mut cx, Val::Record(vec![("x".into(), Val::S32(1))])).is_err());
    assert!(Shape::lift(&mut cx, Val::Variant("circle".into(), None)).is_err());
    assert!(Shape::lift(&mut cx, Val::Variant("square".into(), None)).is_err());
    assert!(Shape::lift(&mut cx, Val::Variant("empty".into(), Some(Box::new(Val::U8(1))))).is_err());
    assert!(Color::lift(&mut cx, Val::Enum("purple".into())).is_err());
    assert!(Perms::lift(&mut cx, Val::Flags(vec!["sudo".into()])).is_err());
    assert!(<(u32, u32)>::lift(&mut cx, Val::Tuple(vec![Val::U32(1)])).is_err());
    assert!(<Result<(), u8>>::lift(&mut cx, Val::Result(Ok(Some(Box::new(Val::U8(1)))))).is_err());
    assert!(<Result<u8, ()>>::lift(&mut cx, Val::Result(Ok(None))).is_err());
    assert_eq!(
        Perms::lift(&mut cx, Val::Flags(vec!["write".into()])).ok(),
        Some(Perms::WRITE)
    );
    assert_eq!(
        Shape::lift(
            &mut cx,
            Val::Variant("circle".into(), Some(Box::new(Val::Float64(2.0))))
        )
        .ok(),
        Some(Shape::Circle(2.0))
    );
}

use weft::AsContextMut as _;
