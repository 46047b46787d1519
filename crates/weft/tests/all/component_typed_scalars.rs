//! `TypedFunc::call` passes integer and `bool` parameters and results as
//! the core values themselves: every value must come out as `Func::call`
//! (through component values) gives it, narrow types wrapped and
//! sign-extended as the canonical ABI says, `post-return` run, and a trap
//! poisoning the instance the same way.

#![cfg(feature = "component-model")]

use weft::component::{Component, Func, Instance, Linker, TypedFunc, Val};
use weft::{Engine, Store};

const GUEST: &str = r#"(component
    (core module $m
        (global $post (mut i32) (i32.const 0))
        (func (export "neg8") (param i32) (result i32) (i32.sub (i32.const 0) (local.get 0)))
        (func (export "add64") (param i64 i64) (result i64) (i64.add (local.get 0) (local.get 1)))
        (func (export "not") (param i32) (result i32) (i32.eqz (local.get 0)))
        (func (export "mix") (param i32 i32 i32 i64) (result i64)
            (i64.add
                (i64.add (i64.extend_i32_u (local.get 0)) (i64.extend_i32_s (local.get 1)))
                (i64.add (i64.extend_i32_u (local.get 2)) (local.get 3))))
        (func (export "id") (param i32) (result i32) (local.get 0))
        (func (export "div") (param i32 i32) (result i32) (i32.div_u (local.get 0) (local.get 1)))
        (func (export "post") (param i32) (global.set $post (i32.add (global.get $post) (i32.const 1))))
        (func (export "posts") (result i32) (global.get $post))
        (func (export "unit")))
    (core instance $i (instantiate $m))
    (func (export "neg8") (param "x" s8) (result s8) (canon lift (core func $i "neg8")))
    (func (export "neg16") (param "x" s16) (result s16) (canon lift (core func $i "neg8")))
    (func (export "add64") (param "a" u64) (param "b" u64) (result u64) (canon lift (core func $i "add64")))
    (func (export "adds64") (param "a" s64) (param "b" s64) (result s64) (canon lift (core func $i "add64")))
    (func (export "not") (param "b" bool) (result bool) (canon lift (core func $i "not")))
    (func (export "mix") (param "a" u8) (param "b" s16) (param "c" u32) (param "d" s64) (result s64)
        (canon lift (core func $i "mix")))
    (func (export "to-u8") (param "x" u32) (result u8) (canon lift (core func $i "id")))
    (func (export "to-s8") (param "x" u32) (result s8) (canon lift (core func $i "id")))
    (func (export "to-bool") (param "x" u32) (result bool) (canon lift (core func $i "id")))
    (func (export "div") (param "a" u32) (param "b" u32) (result u32)
        (canon lift (core func $i "div") (post-return (core func $i "post"))))
    (func (export "posts") (result u32) (canon lift (core func $i "posts")))
    (func (export "unit") (canon lift (core func $i "unit")))
)"#;

fn setup() -> (Store<()>, Instance) {
    let engine = Engine::default();
    let component = Component::new(&engine, wat::parse_str(GUEST).unwrap()).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Linker::new(&engine).instantiate(&mut store, &component).unwrap();
    (store, instance)
}

/// The result of `name` called with `args` through component values.
fn dynamic(store: &mut Store<()>, instance: &Instance, name: &str, args: &[Val]) -> Val {
    let f: Func = instance.get_func(&mut *store, name).unwrap();
    let mut out = [Val::Bool(false)];
    f.call(&mut *store, args, &mut out).unwrap();
    out[0].clone()
}

#[test]
fn narrow_integers_wrap_and_extend_as_through_values() {
    let (mut store, instance) = setup();
    let neg8: TypedFunc<(i8,), (i8,)> = instance.get_typed_func(&mut store, "neg8").unwrap();
    let neg16: TypedFunc<(i16,), (i16,)> = instance.get_typed_func(&mut store, "neg16").unwrap();
    for x in [0i8, 1, -1, 127, -128, 42] {
        let (typed,) = neg8.call(&mut store, (x,)).unwrap();
        assert_eq!(typed, x.wrapping_neg());
        assert_eq!(Val::S8(typed), dynamic(&mut store, &instance, "neg8", &[Val::S8(x)]));
    }
    for x in [0i16, 1, -1, i16::MAX, i16::MIN] {
        let (typed,) = neg16.call(&mut store, (x,)).unwrap();
        assert_eq!(typed, x.wrapping_neg());
    }
    let to_u8: TypedFunc<(u32,), (u8,)> = instance.get_typed_func(&mut store, "to-u8").unwrap();
    let to_s8: TypedFunc<(u32,), (i8,)> = instance.get_typed_func(&mut store, "to-s8").unwrap();
    let to_bool: TypedFunc<(u32,), (bool,)> = instance.get_typed_func(&mut store, "to-bool").unwrap();
    for x in [0u32, 1, 0x7f, 0x80, 0xff, 0x1ff, 0xffff_ff80, u32::MAX, 2] {
        let (u,) = to_u8.call(&mut store, (x,)).unwrap();
        assert_eq!(
            Val::U8(u),
            dynamic(&mut store, &instance, "to-u8", &[Val::U32(x)]),
            "{x:#x}"
        );
        assert_eq!(u, x as u8);
        let (s,) = to_s8.call(&mut store, (x,)).unwrap();
        assert_eq!(
            Val::S8(s),
            dynamic(&mut store, &instance, "to-s8", &[Val::U32(x)]),
            "{x:#x}"
        );
        let (b,) = to_bool.call(&mut store, (x,)).unwrap();
        assert_eq!(
            Val::Bool(b),
            dynamic(&mut store, &instance, "to-bool", &[Val::U32(x)]),
            "{x:#x}"
        );
        assert_eq!(b, x != 0);
    }
}

#[test]
fn wide_and_mixed_parameters() {
    let (mut store, instance) = setup();
    let add64: TypedFunc<(u64, u64), (u64,)> = instance.get_typed_func(&mut store, "add64").unwrap();
    assert_eq!(add64.call(&mut store, (u64::MAX, 2)).unwrap(), (1,));
    let adds64: TypedFunc<(i64, i64), (i64,)> = instance.get_typed_func(&mut store, "adds64").unwrap();
    assert_eq!(adds64.call(&mut store, (-5, 3)).unwrap(), (-2,));
    let not: TypedFunc<(bool,), (bool,)> = instance.get_typed_func(&mut store, "not").unwrap();
    assert_eq!(not.call(&mut store, (true,)).unwrap(), (false,));
    assert_eq!(not.call(&mut store, (false,)).unwrap(), (true,));
    let mix: TypedFunc<(u8, i16, u32, i64), (i64,)> = instance.get_typed_func(&mut store, "mix").unwrap();
    let (typed,) = mix.call(&mut store, (200, -300, u32::MAX, -1)).unwrap();
    assert_eq!(typed, 200 - 300 + i64::from(u32::MAX) - 1);
    let args = [Val::U8(200), Val::S16(-300), Val::U32(u32::MAX), Val::S64(-1)];
    assert_eq!(Val::S64(typed), dynamic(&mut store, &instance, "mix", &args));
    let unit: TypedFunc<(), ()> = instance.get_typed_func(&mut store, "unit").unwrap();
    unit.call(&mut store, ()).unwrap();
}

#[test]
fn post_return_runs_and_a_trap_poisons_the_instance() {
    let (mut store, instance) = setup();
    let div: TypedFunc<(u32, u32), (u32,)> = instance.get_typed_func(&mut store, "div").unwrap();
    let posts: TypedFunc<(), (u32,)> = instance.get_typed_func(&mut store, "posts").unwrap();
    assert_eq!(div.call(&mut store, (7, 2)).unwrap(), (3,));
    assert_eq!(div.call(&mut store, (9, 3)).unwrap(), (3,));
    assert_eq!(posts.call(&mut store, ()).unwrap(), (2,));
    let err = div.call(&mut store, (1, 0)).unwrap_err();
    assert!(format!("{err:?}").contains("divide by zero"), "{err:?}");
    // The instance trapped: it is not entered again, whichever path calls.
    let again = div.call(&mut store, (1, 1)).unwrap_err();
    assert!(
        format!("{again:#}").contains("cannot enter component instance"),
        "{again:#}"
    );
    let f = instance.get_func(&mut store, "div").unwrap();
    let mut out = [Val::U32(0)];
    let dynamic = f.call(&mut store, &[Val::U32(1), Val::U32(1)], &mut out).unwrap_err();
    assert_eq!(format!("{again:#}"), format!("{dynamic:#}"));
}

#[test]
fn a_typed_func_of_another_store_is_refused() {
    let (mut store, instance) = setup();
    let (mut other, _) = setup();
    let not: TypedFunc<(bool,), (bool,)> = instance.get_typed_func(&mut store, "not").unwrap();
    let err = not.call(&mut other, (true,)).unwrap_err();
    assert!(format!("{err:#}").contains("store"), "{err:#}");
}
