//! `bindgen!`: worlds read from `tests/wit/demo.wit` (and inline WIT),
//! components written in WAT, instantiated through the generated world,
//! their exports called through the generated `Guest` structs and their
//! imports implemented through the generated `Host` traits.

#![cfg(all(feature = "component-model", feature = "async"))]

use std::collections::HashMap;
use weft::component::{Component, HasSelf, Linker, Resource};
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

/// A component of the `demo` world of `tests/wit/demo.wit`: every `api`
/// function forwards to the `host` function of the same shape;
/// `run-counter` makes a counter, bumps it, reads it and drops it.
fn demo_component() -> String {
    format!(
        r#"(component
    (import "test:demo/host" (instance $host
        (type $point' (record (field "x" s32) (field "y" s32) (field "label" string)))
        (export "point" (type $point (eq $point')))
        (type $shape' (variant (case "circle" u32) (case "rect" $point) (case "empty")))
        (export "shape" (type $shape (eq $shape')))
        (type $color' (enum "red" "green" "blue"))
        (export "color" (type $color (eq $color')))
        (type $perms' (flags "read" "write" "exec"))
        (export "perms" (type $perms (eq $perms')))
        (export "counter" (type $counter (sub resource)))
        (export "[constructor]counter" (func (param "start" u32) (result (own $counter))))
        (export "[method]counter.get" (func (param "self" (borrow $counter)) (result u32)))
        (export "[method]counter.bump" (func (param "self" (borrow $counter)) (param "by" u32)))
        (export "move-point" (func (param "p" $point) (param "dx" s32) (result $point)))
        (export "area" (func (param "s" $shape) (result u64)))
        (export "next-color" (func (param "c" $color) (result $color)))
        (export "add-perms" (func (param "p" $perms) (result $perms)))
        (export "log" (func (param "msg" string)))
        (export "maybe" (func (param "x" (option u32)) (result (result u32 (error string)))))
        (export "pair" (func (param "t" (tuple u8 string)) (result (list string))))))
    (alias export $host "point" (type $point))
    (alias export $host "shape" (type $shape))
    (alias export $host "color" (type $color))
    (alias export $host "perms" (type $perms))
    (alias export $host "counter" (type $counter))
    (core module $libc {LIBC})
    (core instance $libc (instantiate $libc))
    (core func $new (canon lower (func $host "[constructor]counter")))
    (core func $get (canon lower (func $host "[method]counter.get")))
    (core func $bump (canon lower (func $host "[method]counter.bump")))
    (core func $drop (canon resource.drop $counter))
    (core func $move (canon lower (func $host "move-point") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
    (core func $area (canon lower (func $host "area") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
    (core func $next (canon lower (func $host "next-color")))
    (core func $perms (canon lower (func $host "add-perms")))
    (core func $log (canon lower (func $host "log") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
    (core func $maybe (canon lower (func $host "maybe") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
    (core func $pair (canon lower (func $host "pair") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
    (core module $m
        (import "libc" "realloc" (func $realloc (param i32 i32 i32 i32) (result i32)))
        (import "h" "new" (func $new (param i32) (result i32)))
        (import "h" "get" (func $get (param i32) (result i32)))
        (import "h" "bump" (func $bump (param i32 i32)))
        (import "h" "drop" (func $drop (param i32)))
        (import "h" "move" (func $move (param i32 i32 i32 i32 i32 i32)))
        (import "h" "area" (func $area (param i32 i32 i32 i32 i32) (result i64)))
        (import "h" "next" (func $next (param i32) (result i32)))
        (import "h" "perms" (func $perms (param i32) (result i32)))
        (import "h" "log" (func $log (param i32 i32)))
        (import "h" "maybe" (func $maybe (param i32 i32 i32)))
        (import "h" "pair" (func $pair (param i32 i32 i32 i32)))
        (func $alloc (result i32) (call $realloc (i32.const 0) (i32.const 0) (i32.const 8) (i32.const 16)))
        (func (export "run-point") (param i32 i32 i32 i32 i32) (result i32) (local $r i32)
            (local.set $r (call $alloc))
            (call $move (local.get 0) (local.get 1) (local.get 2) (local.get 3) (local.get 4) (local.get $r))
            (local.get $r))
        (func (export "run-shape") (param i32 i32 i32 i32 i32) (result i64)
            (call $area (local.get 0) (local.get 1) (local.get 2) (local.get 3) (local.get 4)))
        (func (export "run-color") (param i32) (result i32) (call $next (local.get 0)))
        (func (export "run-perms") (param i32) (result i32) (call $perms (local.get 0)))
        (func (export "run-counter") (param i32 i32) (result i32) (local $c i32) (local $v i32)
            (local.set $c (call $new (local.get 0)))
            (call $bump (local.get $c) (local.get 1))
            (local.set $v (call $get (local.get $c)))
            (call $drop (local.get $c))
            (local.get $v))
        (func (export "greet") (param i32 i32) (call $log (local.get 0) (local.get 1)))
        (func (export "run-maybe") (param i32 i32) (result i32) (local $r i32)
            (local.set $r (call $alloc))
            (call $maybe (local.get 0) (local.get 1) (local.get $r))
            (local.get $r))
        (func (export "run-pair") (param i32 i32 i32) (result i32) (local $r i32)
            (local.set $r (call $alloc))
            (call $pair (local.get 0) (local.get 1) (local.get 2) (local.get $r))
            (local.get $r))
        (func (export "version") (result i32) (i32.const 7)))
    (core instance $i (instantiate $m
        (with "libc" (instance $libc))
        (with "h" (instance
            (export "new" (func $new)) (export "get" (func $get)) (export "bump" (func $bump))
            (export "drop" (func $drop)) (export "move" (func $move)) (export "area" (func $area))
            (export "next" (func $next)) (export "perms" (func $perms)) (export "log" (func $log))
            (export "maybe" (func $maybe)) (export "pair" (func $pair))))))
    (func $run-point (param "p" $point) (param "dx" s32) (result $point)
        (canon lift (core func $i "run-point") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
    (func $run-shape (param "s" $shape) (result u64)
        (canon lift (core func $i "run-shape") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
    (func $run-color (param "c" $color) (result $color) (canon lift (core func $i "run-color")))
    (func $run-perms (param "p" $perms) (result $perms) (canon lift (core func $i "run-perms")))
    (func $run-counter (param "start" u32) (param "by" u32) (result u32) (canon lift (core func $i "run-counter")))
    (func $greet (param "name" string)
        (canon lift (core func $i "greet") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
    (func $run-maybe (param "x" (option u32)) (result (result u32 (error string)))
        (canon lift (core func $i "run-maybe") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
    (func $run-pair (param "t" (tuple u8 string)) (result (list string))
        (canon lift (core func $i "run-pair") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
    (instance $api
        (export "run-point" (func $run-point))
        (export "run-shape" (func $run-shape))
        (export "run-color" (func $run-color))
        (export "run-perms" (func $run-perms))
        (export "run-counter" (func $run-counter))
        (export "greet" (func $greet))
        (export "run-maybe" (func $run-maybe))
        (export "run-pair" (func $run-pair)))
    (export "test:demo/api" (instance $api))
    (func (export "version") (result u32) (canon lift (core func $i "version"))))"#
    )
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

/// The default (synchronous) bindings of the `demo` world.
mod sync_demo {
    weft::component::bindgen!({
        path: "tests/wit/demo.wit",
        world: "demo",
        additional_derives: [PartialEq],
    });
}

use sync_demo::test::demo::host::{self, Color, Counter, Perms, Point, Shape};

/// The host's state: counters by representation, what the guest logged and
/// which counters it dropped.
#[derive(Default)]
struct State {
    counters: HashMap<u32, u32>,
    next: u32,
    logs: Vec<String>,
    dropped: Vec<u32>,
}

impl host::HostCounter for State {
    fn new(&mut self, start: u32) -> Resource<Counter> {
        self.next += 1;
        self.counters.insert(self.next, start);
        Resource::new_own(self.next)
    }

    fn get(&mut self, self_: Resource<Counter>) -> u32 {
        self.counters[&self_.rep()]
    }

    fn bump(&mut self, self_: Resource<Counter>, by: u32) {
        *self.counters.get_mut(&self_.rep()).expect("a live counter") += by;
    }

    fn drop(&mut self, rep: Resource<Counter>) -> weft::Result<()> {
        self.counters.remove(&rep.rep());
        self.dropped.push(rep.rep());
        Ok(())
    }
}

impl host::Host for State {
    fn move_point(&mut self, p: Point, dx: i32) -> Point {
        Point {
            x: p.x + dx,
            y: p.y,
            label: format!("{}+{dx}", p.label),
        }
    }

    fn area(&mut self, s: Shape) -> u64 {
        match s {
            Shape::Circle(r) => 3 * u64::from(r) * u64::from(r),
            Shape::Rect(p) => (p.x as u64) * (p.y as u64) + p.label.len() as u64,
            Shape::Empty => 0,
        }
    }

    fn next_color(&mut self, c: Color) -> Color {
        match c {
            Color::Red => Color::Green,
            Color::Green => Color::Blue,
            Color::Blue => Color::Red,
        }
    }

    fn add_perms(&mut self, p: Perms) -> Perms {
        p | Perms::EXEC
    }

    fn log(&mut self, msg: String) {
        self.logs.push(msg);
    }

    fn maybe(&mut self, x: Option<u32>) -> Result<u32, String> {
        x.map(|v| v * 2).ok_or_else(|| "nothing".to_string())
    }

    fn pair(&mut self, t: (u8, String)) -> Vec<String> {
        vec![t.1; usize::from(t.0)]
    }
}

#[test]
fn sync_world_round_trips_every_type() -> weft::Result<()> {
    let engine = Engine::default();
    let component = compile(&engine, &demo_component());
    let mut linker = Linker::<State>::new(&engine);
    sync_demo::Demo::add_to_linker::<State, HasSelf<State>>(&mut linker, |s| s)?;
    let mut store = Store::new(&engine, State::default());
    let demo = sync_demo::Demo::instantiate(&mut store, &component, &linker)?;
    let api = demo.test_demo_api();

    let p = Point {
        x: 1,
        y: 2,
        label: "p".into(),
    };
    let moved = api.call_run_point(&mut store, &p, 10)?;
    assert_eq!(
        moved,
        Point {
            x: 11,
            y: 2,
            label: "p+10".into()
        }
    );
    assert_eq!(api.call_run_shape(&mut store, &Shape::Circle(2))?, 12);
    assert_eq!(api.call_run_shape(&mut store, &Shape::Rect(p.clone()))?, 3);
    assert_eq!(api.call_run_shape(&mut store, &Shape::Empty)?, 0);
    assert_eq!(api.call_run_color(&mut store, Color::Blue)?, Color::Red);
    assert_eq!(api.call_run_perms(&mut store, Perms::READ)?, Perms::READ | Perms::EXEC);
    assert_eq!(api.call_run_counter(&mut store, 5, 3)?, 8);
    assert_eq!(store.data().dropped, vec![1]);
    assert!(store.data().counters.is_empty());
    api.call_greet(&mut store, "hello")?;
    assert_eq!(store.data().logs, vec!["hello".to_string()]);
    assert_eq!(api.call_run_maybe(&mut store, Some(21))?, Ok(42));
    assert_eq!(api.call_run_maybe(&mut store, None)?, Err("nothing".to_string()));
    assert_eq!(
        api.call_run_pair(&mut store, (2, "ab"))?,
        vec!["ab".to_string(), "ab".to_string()]
    );
    assert_eq!(demo.call_version(&mut store)?, 7);
    Ok(())
}

/// Polls `future` to its end (a busy loop: every future here makes
/// progress or wakes itself).
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    for _ in 0..1_000_000 {
        if let std::task::Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
    }
    panic!("the future did not finish");
}

/// Pending once (waking itself), then ready.
async fn yield_once() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            std::task::Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await
}

/// The same world with per-function rules: `area` and the counter's drop
/// async, `log` async and trappable, everything else trappable; exports
/// called with `call_async`.
#[cfg(feature = "component-model-async")]
mod async_demo {
    weft::component::bindgen!({
        path: "tests/wit/demo.wit",
        imports: {
            "test:demo/host.area": async,
            "test:demo/host.[drop]counter": async,
            "test:demo/host.log": async | trappable,
            default: trappable,
        },
        exports: { default: async },
    });
}

#[cfg(feature = "component-model-async")]
mod async_impls {
    use super::async_demo::test::demo::host::{self, Color, Counter, Perms, Point, Shape};
    use super::{yield_once, State};
    use weft::component::Resource;

    impl host::HostCounter for State {
        fn new(&mut self, start: u32) -> weft::Result<Resource<Counter>> {
            self.next += 1;
            self.counters.insert(self.next, start);
            Ok(Resource::new_own(self.next))
        }

        fn get(&mut self, self_: Resource<Counter>) -> weft::Result<u32> {
            Ok(self.counters[&self_.rep()])
        }

        fn bump(&mut self, self_: Resource<Counter>, by: u32) -> weft::Result<()> {
            *self.counters.get_mut(&self_.rep()).expect("a live counter") += by;
            Ok(())
        }

        async fn drop(&mut self, rep: Resource<Counter>) -> weft::Result<()> {
            yield_once().await;
            self.counters.remove(&rep.rep());
            self.dropped.push(rep.rep());
            Ok(())
        }
    }

    impl host::Host for State {
        fn move_point(&mut self, p: Point, dx: i32) -> weft::Result<Point> {
            Ok(Point {
                x: p.x + dx,
                y: p.y,
                label: p.label,
            })
        }

        async fn area(&mut self, s: Shape) -> u64 {
            yield_once().await;
            match s {
                Shape::Circle(r) => u64::from(r),
                _ => 1,
            }
        }

        fn next_color(&mut self, c: Color) -> weft::Result<Color> {
            Ok(c)
        }

        fn add_perms(&mut self, p: Perms) -> weft::Result<Perms> {
            Ok(p | Perms::WRITE)
        }

        async fn log(&mut self, msg: String) -> weft::Result<()> {
            yield_once().await;
            if msg == "trap" {
                weft::bail!("the host refused to log `{msg}`");
            }
            self.logs.push(msg);
            Ok(())
        }

        fn maybe(&mut self, x: Option<u32>) -> weft::Result<Result<u32, String>> {
            Ok(x.ok_or_else(|| "none".to_string()))
        }

        fn pair(&mut self, t: (u8, String)) -> weft::Result<Vec<String>> {
            Ok(vec![t.1])
        }
    }
}

#[test]
#[cfg(feature = "component-model-async")]
fn async_imports_and_exports_run_on_a_fiber() -> weft::Result<()> {
    let engine = Engine::default();
    let component = compile(&engine, &demo_component());
    let mut linker = Linker::<State>::new(&engine);
    async_demo::Demo::add_to_linker::<State, HasSelf<State>>(&mut linker, |s| s)?;
    let mut store = Store::new(&engine, State::default());
    block_on(async {
        let demo = async_demo::Demo::instantiate_async(&mut store, &component, &linker).await?;
        let api = demo.test_demo_api();
        assert_eq!(
            api.call_run_shape(&mut store, &async_demo::test::demo::host::Shape::Circle(9))
                .await?,
            9
        );
        assert_eq!(api.call_run_counter(&mut store, 1, 2).await?, 3);
        assert_eq!(store.data().dropped, vec![1]);
        api.call_greet(&mut store, "hi").await?;
        assert_eq!(store.data().logs, vec!["hi".to_string()]);
        // A trappable import's error traps the call, with its message.
        let err = api.call_greet(&mut store, "trap").await.unwrap_err();
        assert!(format!("{err:?}").contains("the host refused to log `trap`"), "{err:?}");
        weft::Result::<()>::Ok(())
    })?;
    Ok(())
}

/// `with:` reuses the synchronous bindings' `host` module: the same
/// `Host` implementation serves this world.
mod with_demo {
    weft::component::bindgen!({
        path: "tests/wit/demo.wit",
        with: { "test:demo/host": super::sync_demo::test::demo::host },
    });
}

#[test]
fn with_reuses_another_bindings_interface() -> weft::Result<()> {
    let engine = Engine::default();
    let component = compile(&engine, &demo_component());
    let mut linker = Linker::<State>::new(&engine);
    with_demo::Demo::add_to_linker::<State, HasSelf<State>>(&mut linker, |s| s)?;
    let mut store = Store::new(&engine, State::default());
    let demo = with_demo::Demo::instantiate(&mut store, &component, &linker)?;
    // The exported interface's types are the reused module's types.
    let p: sync_demo::test::demo::host::Point = demo.test_demo_api().call_run_point(
        &mut store,
        &Point {
            x: 0,
            y: 0,
            label: "o".into(),
        },
        1,
    )?;
    assert_eq!(p.x, 1);
    Ok(())
}

#[test]
fn pre_instantiation_checks_exports_and_instantiates_many_times() -> weft::Result<()> {
    let engine = Engine::default();
    let component = compile(&engine, &demo_component());
    let mut linker = Linker::<State>::new(&engine);
    sync_demo::Demo::add_to_linker::<State, HasSelf<State>>(&mut linker, |s| s)?;
    let pre = sync_demo::DemoPre::new(linker.instantiate_pre(&component)?)?;
    for i in 0..3 {
        let mut store = Store::new(&engine, State::default());
        let demo = pre.instantiate(&mut store)?;
        assert_eq!(demo.test_demo_api().call_run_counter(&mut store, i, 1)?, i + 1);
    }
    // `new` finds the exports of an instance made without the world.
    let mut store = Store::new(&engine, State::default());
    let instance = linker.instantiate(&mut store, &component)?;
    let demo = sync_demo::Demo::new(&mut store, &instance)?;
    assert_eq!(demo.call_version(&mut store)?, 7);
    // A component without the world's exports is refused, naming them.
    let empty = compile(&engine, "(component)");
    let err = sync_demo::DemoPre::new(linker.instantiate_pre(&empty)?)
        .err()
        .expect("an error");
    assert!(format!("{err}").contains("version"), "{err}");
    Ok(())
}

/// A Rust error for the WIT `err-code`: a code the guest gets, or a trap.
#[derive(Debug)]
pub enum CheckError {
    /// Given to the guest.
    Code(errors::test::errs::checks::ErrCode),
    /// Traps.
    Fatal(String),
}

/// `trappable_error_type` and a world-level `use` of an interface type.
mod errors {
    weft::component::bindgen!({
        inline: "
            package test:errs;
            interface checks {
                /// Why a number was refused.
                enum err-code {
                    /// Over 100.
                    too-big,
                    /// Not even.
                    odd,
                }
                check: func(x: u32) -> result<u32, err-code>;
            }
            world errs {
                use checks.{err-code};
                import checks;
                export run: func(x: u32) -> result<u32, err-code>;
            }
        ",
        imports: { default: trappable },
        trappable_error_type: { "test:errs/checks.err-code" => super::CheckError },
    });
}

struct Checker;

impl errors::test::errs::checks::Host for Checker {
    fn check(&mut self, x: u32) -> Result<u32, CheckError> {
        use errors::test::errs::checks::ErrCode;
        match x {
            13 => Err(CheckError::Fatal("thirteen".into())),
            x if x > 100 => Err(CheckError::Code(ErrCode::TooBig)),
            x if x % 2 == 1 => Err(CheckError::Code(ErrCode::Odd)),
            x => Ok(x / 2),
        }
    }

    fn convert_err_code(&mut self, err: CheckError) -> weft::Result<errors::test::errs::checks::ErrCode> {
        match err {
            CheckError::Code(c) => Ok(c),
            CheckError::Fatal(m) => Err(weft::format_err!("fatal check: {m}")),
        }
    }
}

const ERRS: &str = r#"(component
    (import "test:errs/checks" (instance $checks
        (type $e' (enum "too-big" "odd"))
        (export "err-code" (type $e (eq $e')))
        (export "check" (func (param "x" u32) (result (result u32 (error $e)))))))
    (alias export $checks "err-code" (type $e))
    (core module $libc (memory (export "mem") 1))
    (core instance $libc (instantiate $libc))
    (core func $check (canon lower (func $checks "check") (memory (core memory $libc "mem"))))
    (core module $m
        (import "" "check" (func $check (param i32 i32)))
        (func (export "run") (param i32) (result i32)
            (call $check (local.get 0) (i32.const 64))
            (i32.const 64)))
    (core instance $i (instantiate $m (with "" (instance (export "check" (func $check))))))
    (func (export "run") (param "x" u32) (result (result u32 (error $e)))
        (canon lift (core func $i "run") (memory (core memory $libc "mem")))))"#;

#[test]
fn trappable_error_types_convert_or_trap() -> weft::Result<()> {
    use errors::ErrCode;
    let engine = Engine::default();
    let component = compile(&engine, ERRS);
    let mut linker = Linker::<Checker>::new(&engine);
    errors::Errs::add_to_linker::<Checker, HasSelf<Checker>>(&mut linker, |s| s)?;
    let mut store = Store::new(&engine, Checker);
    let w = errors::Errs::instantiate(&mut store, &component, &linker)?;
    assert_eq!(w.call_run(&mut store, 4)?, Ok(2));
    assert_eq!(w.call_run(&mut store, 200)?, Err(ErrCode::TooBig));
    assert_eq!(w.call_run(&mut store, 3)?, Err(ErrCode::Odd));
    assert_eq!(ErrCode::Odd.name(), "odd");
    assert_eq!(ErrCode::TooBig.message(), "Over 100.");
    assert_eq!(ErrCode::Odd.to_string(), "Odd");
    let err = w.call_run(&mut store, 13).unwrap_err();
    assert!(format!("{err:?}").contains("fatal check: thirteen"), "{err:?}");
    Ok(())
}

/// A world with a WIT `async` import (concurrent: `&Accessor`), a `store`
/// import (`Access`), an `async` export (`call_concurrent`) and a sync one.
#[cfg(feature = "component-model-async")]
mod caller {
    weft::component::bindgen!({
        inline: "
            package test:caller;
            world caller {
                import echo: async func(a: u32) -> u32;
                import note: func(n: u32);
                export run: async func(x: u32) -> u32;
                export run-sync: func(x: u32) -> u32;
            }
        ",
        imports: { "note": store },
    });
}

/// `run` calls `echo` lowered `async` and returns the echo plus one;
/// `run-sync` notes its argument and returns it plus one (a sync task may
/// not call an `async` import synchronously).
#[cfg(feature = "component-model-async")]
const CALLER: &str = r#"(component
    (import "echo" (func $echo async (param "a" u32) (result u32)))
    (import "note" (func $note (param "n" u32)))
    (core module $libc (memory (export "mem") 1))
    (core instance $libc (instantiate $libc))
    (core func $echo_async (canon lower (func $echo) async (memory (core memory $libc "mem"))))
    (core func $note (canon lower (func $note)))
    (core func $task_return (canon task.return (result u32)))
    (core func $ws_new (canon waitable-set.new))
    (core func $join (canon waitable.join))
    (core func $subtask_drop (canon subtask.drop))
    (core func $ws_drop (canon waitable-set.drop))
    (core func $context_get (canon context.get i32 0))
    (core func $context_set (canon context.set i32 0))
    (core module $m
        (import "" "mem" (memory 1))
        (import "" "echo-async" (func $echo_async (param i32 i32) (result i32)))
        (import "" "note" (func $note (param i32)))
        (import "" "task.return" (func $task_return (param i32)))
        (import "" "ws.new" (func $ws_new (result i32)))
        (import "" "ws.drop" (func $ws_drop (param i32)))
        (import "" "join" (func $join (param i32 i32)))
        (import "" "subtask.drop" (func $subtask_drop (param i32)))
        (import "" "context.get" (func $context_get (result i32)))
        (import "" "context.set" (func $context_set (param i32)))
        (func (export "run") (param $x i32) (result i32)
            (local $status i32) (local $ptr i32) (local $ws i32)
            (local.set $ptr (i32.const 16))
            (call $context_set (local.get $ptr))
            (local.set $status (call $echo_async (local.get $x) (local.get $ptr)))
            (if (i32.eq (i32.and (local.get $status) (i32.const 0xf)) (i32.const 2))
                (then
                    (call $task_return (i32.add (i32.load (local.get $ptr)) (i32.const 1)))
                    (return (i32.const 0))))
            (local.set $ws (call $ws_new))
            (i32.store offset=4 (local.get $ptr) (local.get $ws))
            (call $join (i32.shr_u (local.get $status) (i32.const 4)) (local.get $ws))
            (i32.or (i32.const 2) (i32.shl (local.get $ws) (i32.const 4))))
        (func (export "cb") (param $event i32) (param $index i32) (param $payload i32) (result i32)
            (local $ptr i32)
            (local.set $ptr (call $context_get))
            (if (i32.ne (local.get $event) (i32.const 1)) (then unreachable))
            (if (i32.ne (local.get $payload) (i32.const 2)) (then unreachable))
            (call $subtask_drop (local.get $index))
            (call $ws_drop (i32.load offset=4 (local.get $ptr)))
            (call $task_return (i32.add (i32.load (local.get $ptr)) (i32.const 1)))
            (i32.const 0))
        (func (export "run-sync") (param $x i32) (result i32)
            (call $note (local.get $x))
            (i32.add (local.get $x) (i32.const 1))))
    (core instance $i (instantiate $m (with "" (instance
        (export "mem" (memory $libc "mem"))
        (export "echo-async" (func $echo_async))
        (export "note" (func $note))
        (export "task.return" (func $task_return))
        (export "ws.new" (func $ws_new))
        (export "ws.drop" (func $ws_drop))
        (export "join" (func $join))
        (export "subtask.drop" (func $subtask_drop))
        (export "context.get" (func $context_get))
        (export "context.set" (func $context_set))))))
    (func (export "run") async (param "x" u32) (result u32)
        (canon lift (core func $i "run") async (callback (core func $i "cb"))))
    (func (export "run-sync") (param "x" u32) (result u32)
        (canon lift (core func $i "run-sync")))
)"#;

/// What the caller's imports saw.
#[cfg(feature = "component-model-async")]
#[derive(Default)]
struct Echoes {
    echoes: u32,
    notes: Vec<u32>,
}

#[cfg(feature = "component-model-async")]
impl caller::CallerImports for Echoes {}

#[cfg(feature = "component-model-async")]
impl caller::CallerImportsWithStore<Echoes> for HasSelf<Echoes> {
    async fn echo(accessor: &weft::component::Accessor<Echoes, Self>, a: u32) -> u32 {
        yield_once().await;
        accessor.with(|mut access| access.get().echoes += 1);
        a
    }

    fn note(mut host: weft::component::Access<'_, Echoes, Self>, n: u32) {
        host.get().notes.push(n);
    }
}

#[test]
#[cfg(feature = "component-model-async")]
fn concurrent_and_store_imports_and_a_concurrent_export() -> weft::Result<()> {
    let engine = Engine::default();
    let component = compile(&engine, CALLER);
    let mut linker = Linker::<Echoes>::new(&engine);
    caller::Caller::add_to_linker::<Echoes, HasSelf<Echoes>>(&mut linker, |s| s)?;
    let mut store = Store::new(&engine, Echoes::default());
    let w = caller::Caller::instantiate(&mut store, &component, &linker)?;
    let out = block_on(store.run_concurrent(async |a| w.call_run(a, 41).await))??;
    assert_eq!(out, 42);
    assert_eq!(store.data().echoes, 1);
    assert_eq!(w.call_run_sync(&mut store, 5)?, 6);
    assert_eq!(store.data().echoes, 1);
    assert_eq!(store.data().notes, vec![5]);
    store.assert_concurrent_state_empty();
    Ok(())
}

/// A world that imports a resource of its own (`token`) and exports an
/// interface with a guest-defined resource (`bucket`).
mod res {
    weft::component::bindgen!({
        inline: "
            package test:res;
            interface store {
                resource bucket {
                    constructor(start: u32);
                    get: func() -> u32;
                    double: static func(x: u32) -> u32;
                }
            }
            world res {
                resource token {
                    constructor(v: u32);
                    value: func() -> u32;
                }
                export store;
                export use-token: func(v: u32) -> u32;
            }
        ",
    });
}

const RES: &str = r#"(component
    (import "token" (type $token (sub resource)))
    (import "[constructor]token" (func $tnew (param "v" u32) (result (own $token))))
    (import "[method]token.value" (func $tval (param "self" (borrow $token)) (result u32)))
    (type $bucket (resource (rep i32)))
    (core func $new (canon resource.new $bucket))
    (core func $tnew (canon lower (func $tnew)))
    (core func $tval (canon lower (func $tval)))
    (core func $tdrop (canon resource.drop $token))
    (core module $m
        (import "" "new" (func $new (param i32) (result i32)))
        (import "" "tnew" (func $tnew (param i32) (result i32)))
        (import "" "tval" (func $tval (param i32) (result i32)))
        (import "" "tdrop" (func $tdrop (param i32)))
        (func (export "ctor") (param i32) (result i32) (call $new (local.get 0)))
        (func (export "get") (param i32) (result i32) (local.get 0))
        (func (export "double") (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))
        (func (export "use-token") (param i32) (result i32) (local $t i32) (local $v i32)
            (local.set $t (call $tnew (local.get 0)))
            (local.set $v (call $tval (local.get $t)))
            (call $tdrop (local.get $t))
            (local.get $v)))
    (core instance $i (instantiate $m (with "" (instance
        (export "new" (func $new)) (export "tnew" (func $tnew))
        (export "tval" (func $tval)) (export "tdrop" (func $tdrop))))))
    (func $ctor (param "start" u32) (result (own $bucket)) (canon lift (core func $i "ctor")))
    (func $get (param "self" (borrow $bucket)) (result u32) (canon lift (core func $i "get")))
    (func $double (param "x" u32) (result u32) (canon lift (core func $i "double")))
    ;; The exported instance comes from a shim component that names the
    ;; resource for the functions' types (as wit-component does).
    (component $shim
        (import "t-bucket" (type $b (sub resource)))
        (import "f-ctor" (func $c (param "start" u32) (result (own $b))))
        (import "f-get" (func $g (param "self" (borrow $b)) (result u32)))
        (import "f-double" (func $d (param "x" u32) (result u32)))
        (export $be "bucket" (type $b))
        (export "[constructor]bucket" (func $c) (func (param "start" u32) (result (own $be))))
        (export "[method]bucket.get" (func $g) (func (param "self" (borrow $be)) (result u32)))
        (export "[static]bucket.double" (func $d)))
    (instance $store (instantiate $shim
        (with "t-bucket" (type $bucket))
        (with "f-ctor" (func $ctor))
        (with "f-get" (func $get))
        (with "f-double" (func $double))))
    (export "test:res/store" (instance $store))
    (func (export "use-token") (param "v" u32) (result u32) (canon lift (core func $i "use-token"))))"#;

/// The host's tokens: values by representation, and the dropped ones.
#[derive(Default)]
struct Tokens {
    values: Vec<u32>,
    dropped: Vec<u32>,
}

impl res::HostToken for Tokens {
    fn new(&mut self, v: u32) -> Resource<res::Token> {
        self.values.push(v * 10);
        Resource::new_own(self.values.len() as u32 - 1)
    }

    fn value(&mut self, self_: Resource<res::Token>) -> u32 {
        self.values[self_.rep() as usize]
    }

    fn drop(&mut self, rep: Resource<res::Token>) -> weft::Result<()> {
        self.dropped.push(rep.rep());
        Ok(())
    }
}

impl res::ResImports for Tokens {}

#[test]
fn world_resources_and_exported_resources() -> weft::Result<()> {
    let engine = Engine::default();
    let component = compile(&engine, RES);
    let mut linker = Linker::<Tokens>::new(&engine);
    res::Res::add_to_linker::<Tokens, HasSelf<Tokens>>(&mut linker, |s| s)?;
    let mut store = Store::new(&engine, Tokens::default());
    let w = res::Res::instantiate(&mut store, &component, &linker)?;
    // The world's own imported resource.
    assert_eq!(w.call_use_token(&mut store, 4)?, 40);
    assert_eq!(store.data().dropped, vec![0]);
    // The guest's resource, as `ResourceAny`.
    let bucket = w.test_res_store().bucket();
    let b: res::exports::test::res::store::Bucket = bucket.call_constructor(&mut store, 21)?;
    assert_eq!(bucket.call_get(&mut store, b)?, 21);
    assert_eq!(bucket.call_double(&mut store, 8)?, 16);
    b.resource_drop(&mut store)?;
    Ok(())
}

/// The other flavours of the demo world must expand to code that
/// compiles: every import with store access (sync and async, resource
/// drops included) and concurrent exports.
#[cfg(feature = "component-model-async")]
#[allow(
    dead_code,
    reason = "only compiled: the flavours' shapes are checked by the compiler"
)]
mod flavours {
    mod store_sync {
        weft::component::bindgen!({ path: "tests/wit/demo.wit", imports: { default: store | trappable } });
    }
    mod store_async {
        weft::component::bindgen!({
            path: "tests/wit/demo.wit",
            imports: { default: async | store },
            exports: { default: async | store },
        });
    }
    mod required_send {
        weft::component::bindgen!({ path: "tests/wit/demo.wit", require_store_data_send: true, skip_mut_forwarding_impls: true });
    }

    /// `with:` by package, and a resource mapped to a Rust type.
    mod with_package {
        weft::component::bindgen!({
            path: "tests/wit/demo.wit",
            with: { "test:demo": super::super::sync_demo::test::demo },
        });
    }
    pub struct MyCounter;

    /// A WIT `async func` with a `trappable_error_type`: the conversion
    /// runs through the accessor.
    mod concurrent_errors {
        weft::component::bindgen!({
            inline: "
                package test:ce;
                interface c {
                    enum e { a, b }
                    f: async func(x: u32) -> result<u32, e>;
                }
                world w { import c; }
            ",
            imports: { default: trappable },
            trappable_error_type: { "test:ce/c.e" => super::super::CheckError },
        });
    }

    struct Ce;

    impl concurrent_errors::test::ce::c::Host for Ce {
        fn convert_e(&mut self, _err: super::CheckError) -> weft::Result<concurrent_errors::test::ce::c::E> {
            Ok(concurrent_errors::test::ce::c::E::B)
        }
    }

    impl concurrent_errors::test::ce::c::HostWithStore<Ce> for HasSelf<Ce> {
        async fn f(_accessor: &Accessor<Ce, Self>, x: u32) -> Result<u32, super::CheckError> {
            Err(super::CheckError::Fatal(format!("{x}")))
        }
    }

    fn link_concurrent_errors(linker: &mut weft::component::Linker<Ce>) -> weft::Result<()> {
        concurrent_errors::W::add_to_linker::<Ce, HasSelf<Ce>>(linker, |s| s)
    }
    mod with_resource {
        weft::component::bindgen!({
            path: "tests/wit/demo.wit",
            with: { "test:demo/host.counter": super::MyCounter },
        });
    }

    use super::State;
    use weft::component::{Access, Accessor, HasSelf, Resource};

    /// The mapped interface and resource are the same types.
    fn mapped(
        p: with_package::test::demo::host::Point,
        c: Resource<with_resource::test::demo::host::Counter>,
    ) -> (super::Point, Resource<MyCounter>) {
        (p, c)
    }

    /// The concurrent export takes owned parameters and an accessor.
    async fn call_concurrent_export(
        w: &store_async::Demo,
        accessor: &Accessor<State>,
    ) -> weft::Result<store_async::test::demo::host::Point> {
        let p = store_async::test::demo::host::Point {
            x: 0,
            y: 0,
            label: String::new(),
        };
        w.test_demo_api().call_run_point(accessor, p, 1).await
    }

    /// A `store` drop reaches the store through `Access`.
    fn drop_with_access(
        access: Access<'_, State, HasSelf<State>>,
        rep: Resource<store_sync::test::demo::host::Counter>,
    ) -> weft::Result<()> {
        <HasSelf<State> as store_sync::test::demo::host::HostCounterWithStore<State>>::drop(access, rep)
    }

    impl store_sync::test::demo::host::HostCounterWithStore<State> for HasSelf<State> {
        fn new(
            mut host: Access<'_, State, Self>,
            start: u32,
        ) -> weft::Result<Resource<store_sync::test::demo::host::Counter>> {
            host.get().next += start;
            Ok(Resource::new_own(host.get().next))
        }
        fn get(
            _host: Access<'_, State, Self>,
            self_: Resource<store_sync::test::demo::host::Counter>,
        ) -> weft::Result<u32> {
            Ok(self_.rep())
        }
        fn bump(
            _host: Access<'_, State, Self>,
            _self_: Resource<store_sync::test::demo::host::Counter>,
            _by: u32,
        ) -> weft::Result<()> {
            Ok(())
        }
        fn drop(
            mut host: Access<'_, State, Self>,
            rep: Resource<store_sync::test::demo::host::Counter>,
        ) -> weft::Result<()> {
            host.get().dropped.push(rep.rep());
            Ok(())
        }
    }
}
