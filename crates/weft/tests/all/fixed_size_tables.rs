//! A table the module defines with equal minimum and maximum has a size
//! the compiled code knows: its bounds checks compare against a constant
//! and its elements' base is loaded once for a loop. Out-of-bounds
//! accesses must still trap, the table must still refuse to grow, and
//! elements changed inside a loop (by wasm or by the host) must be seen.

use weft::*;

const TEXT: &str = r#"
(module
  (type $r (func (result i32)))
  (func $one (type $r) i32.const 1)
  (func $two (type $r) i32.const 2)
  (table $t 3 3 funcref)
  (table $w i64 2 2 funcref)
  (elem (table $t) (i32.const 0) func $one $two)
  (elem (table $w) (i64.const 1) func $two)
  (export "t" (table $t))
  (func (export "call") (param i32) (result i32)
    (call_indirect $t (type $r) (local.get 0)))
  (func (export "call64") (param i64) (result i32)
    (call_indirect $w (type $r) (local.get 0)))
  (func (export "size") (result i32) (table.size $t))
  (func (export "size64") (result i64) (table.size $w))
  (func (export "grow") (param i32) (result i32)
    (table.grow $t (ref.null func) (local.get 0)))
  (func (export "get_is_null") (param i32) (result i32)
    (ref.is_null (table.get $t (local.get 0))))
  (func (export "set_null") (param i32)
    (table.set $t (local.get 0) (ref.null func)))
  ;; Calls element 0 `n` times and sums the results; before the call
  ;; numbered `k`, element 0 becomes `$two`.
  (func (export "loop") (param $n i32) (param $k i32) (result i32)
    (local $i i32) (local $sum i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.eq (local.get $i) (local.get $k))
          (then (table.set $t (i32.const 0) (ref.func $two))))
        (local.set $sum (i32.add (local.get $sum)
          (call_indirect $t (type $r) (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $sum))
)
"#;

fn trap_of(e: &Error) -> Option<Trap> {
    e.downcast_ref::<Trap>().copied()
}

fn setup() -> (Store<()>, Instance) {
    let engine = Engine::default();
    let module = Module::new(&engine, wat::parse_str(TEXT).unwrap()).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    (store, instance)
}

#[test]
fn calls_through_a_fixed_size_table_are_bounds_checked() {
    let (mut store, instance) = setup();
    let call = instance.get_typed_func::<u32, i32>(&mut store, "call").unwrap();
    assert_eq!(call.call(&mut store, 0).unwrap(), 1);
    assert_eq!(call.call(&mut store, 1).unwrap(), 2);
    let null = call.call(&mut store, 2).unwrap_err();
    assert_eq!(trap_of(&null), Some(Trap::IndirectCallToNull), "{null:?}");
    for index in [3, 4, 1 << 31, u32::MAX] {
        let e = call.call(&mut store, index).unwrap_err();
        assert_eq!(trap_of(&e), Some(Trap::TableOutOfBounds), "index {index}: {e:?}");
    }
    let call64 = instance.get_typed_func::<u64, i32>(&mut store, "call64").unwrap();
    assert_eq!(call64.call(&mut store, 1).unwrap(), 2);
    for index in [2, 1 << 32, (1 << 32) + 1, u64::MAX] {
        let e = call64.call(&mut store, index).unwrap_err();
        assert_eq!(trap_of(&e), Some(Trap::TableOutOfBounds), "index {index}: {e:?}");
    }
}

#[test]
fn a_fixed_size_table_keeps_its_size() {
    let (mut store, instance) = setup();
    let size = instance.get_typed_func::<(), i32>(&mut store, "size").unwrap();
    let size64 = instance.get_typed_func::<(), i64>(&mut store, "size64").unwrap();
    let grow = instance.get_typed_func::<i32, i32>(&mut store, "grow").unwrap();
    assert_eq!(size.call(&mut store, ()).unwrap(), 3);
    assert_eq!(size64.call(&mut store, ()).unwrap(), 2);
    assert_eq!(grow.call(&mut store, 1).unwrap(), -1);
    assert_eq!(grow.call(&mut store, 0).unwrap(), 3);
    let table = instance.get_table(&mut store, "t").unwrap();
    assert!(table.grow(&mut store, 1, Ref::Func(None)).is_err());
    assert_eq!(table.size(&store), 3);
    assert_eq!(size.call(&mut store, ()).unwrap(), 3);

    let get_is_null = instance.get_typed_func::<u32, i32>(&mut store, "get_is_null").unwrap();
    let set_null = instance.get_typed_func::<u32, ()>(&mut store, "set_null").unwrap();
    assert_eq!(get_is_null.call(&mut store, 0).unwrap(), 0);
    assert_eq!(get_is_null.call(&mut store, 2).unwrap(), 1);
    for index in [3, u32::MAX] {
        let e = get_is_null.call(&mut store, index).unwrap_err();
        assert_eq!(trap_of(&e), Some(Trap::TableOutOfBounds), "get {index}: {e:?}");
        let e = set_null.call(&mut store, index).unwrap_err();
        assert_eq!(trap_of(&e), Some(Trap::TableOutOfBounds), "set {index}: {e:?}");
    }
}

#[test]
fn elements_changed_during_a_loop_are_called() {
    let (mut store, instance) = setup();
    let run = instance.get_typed_func::<(u32, u32), i32>(&mut store, "loop").unwrap();
    // Element 0 is `$one` for the first 4 calls and `$two` for the last 6.
    assert_eq!(run.call(&mut store, (10, 4)).unwrap(), 4 + 12);

    // A change made by the host between calls is seen too.
    let (mut store, instance) = setup();
    let run = instance.get_typed_func::<(u32, u32), i32>(&mut store, "loop").unwrap();
    let table = instance.get_table(&mut store, "t").unwrap();
    let two = table.get(&mut store, 1).unwrap();
    table.set(&mut store, 0, two).unwrap();
    assert_eq!(run.call(&mut store, (5, u32::MAX)).unwrap(), 10);
    table.set(&mut store, 0, Ref::Func(None)).unwrap();
    let e = run.call(&mut store, (1, u32::MAX)).unwrap_err();
    assert_eq!(trap_of(&e), Some(Trap::IndirectCallToNull), "{e:?}");
}
