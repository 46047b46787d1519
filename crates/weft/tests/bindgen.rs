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
