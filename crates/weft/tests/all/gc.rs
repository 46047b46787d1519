//! The GC proposal through the public API (`Config::wasm_gc`): structs and
//! arrays with packed fields, `i31ref`, `ref.eq`, the casts over the type
//! hierarchy, canonical types across modules, and the traps (null, out of
//! bounds, failed casts, allocations too large). Results cross the API as
//! numbers: host values of GC references are not there yet.

use weft::*;

fn gc_engine() -> Engine {
    let mut config = Config::new();
    config.wasm_gc(true);
    Engine::new(&config).unwrap()
}

fn module(engine: &Engine, wat: &str) -> Module {
    Module::new(engine, wat::parse_str(wat).unwrap()).unwrap()
}

fn trap_of(err: Error) -> Trap {
    *err.downcast_ref::<Trap>()
        .unwrap_or_else(|| panic!("not a trap: {err:#}"))
}

#[test]
fn collectors() {
    let mut config = Config::new();
    config.wasm_gc(true).collector(Collector::Null);
    assert!(Engine::new(&config).is_ok());
    config.collector(Collector::DeferredReferenceCounting);
    assert!(Engine::new(&config).is_ok(), "the tracing collector stands in for it");
}

#[test]
fn gc_types_need_the_switch() {
    let wasm = wat::parse_str("(module (type (struct (field i32))))").unwrap();
    let err = Module::new(&Engine::default(), &wasm).unwrap_err();
    assert!(format!("{err:#}").contains("gc"), "{err:#}");
    assert!(Module::new(&gc_engine(), &wasm).is_ok());
}

#[test]
fn structs_with_packed_and_reference_fields() -> Result<()> {
    let engine = gc_engine();
    let m = module(
        &engine,
        r#"(module
            (type $ft (func (result i32)))
            (type $inner (struct (field (mut i64))))
            (type $s (struct
                (field $a (mut i8)) (field $b i16) (field $c (mut f64))
                (field $d (mut (ref null $inner))) (field $e v128) (field $f (mut funcref))))
            (func $f (export "f") (result i32) (i32.const 5))
            (elem declare func $f)
            (func (export "run") (result i32 i32 i32 f64 i64 i32 i32)
                (local $x (ref $s))
                (local.set $x (struct.new $s
                    (i32.const 0x1ff) (i32.const -2) (f64.const 1.5)
                    (struct.new $inner (i64.const 77)) (v128.const i32x4 1 2 3 4) (ref.func $f)))
                (struct.set $s $a (local.get $x) (i32.const 0x80))
                (struct.get_s $s $a (local.get $x))
                (struct.get_u $s $a (local.get $x))
                (struct.get_s $s $b (local.get $x))
                (struct.get $s $c (local.get $x))
                (struct.get $inner 0 (struct.get $s $d (local.get $x)))
                (i32x4.extract_lane 3 (struct.get $s $e (local.get $x)))
                (call_ref $ft (ref.cast (ref null $ft)
                    (struct.get $s $f (local.get $x)))))
            (func (export "defaults") (result i32 i64 i32)
                (local $x (ref $s))
                (local.set $x (struct.new_default $s))
                (struct.get_u $s $a (local.get $x))
                (i64.trunc_f64_s (struct.get $s $c (local.get $x)))
                (ref.is_null (struct.get $s $d (local.get $x))))
            (func (export "null") (result i32)
                (struct.get_u $s $a (ref.null $s))))"#,
    );
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &m, &[])?;
    let run = instance.get_typed_func::<(), (i32, i32, i32, f64, i64, i32, i32)>(&mut store, "run")?;
    assert_eq!(run.call(&mut store, ())?, (-128, 0x80, -2, 1.5, 77, 4, 5));
    let defaults = instance.get_typed_func::<(), (i32, i64, i32)>(&mut store, "defaults")?;
    assert_eq!(defaults.call(&mut store, ())?, (0, 0, 1));
    let null = instance.get_typed_func::<(), i32>(&mut store, "null")?;
    assert_eq!(trap_of(null.call(&mut store, ()).unwrap_err()), Trap::NullReference);
    Ok(())
}

#[test]
fn arrays_and_their_bulk_operations() -> Result<()> {
    let engine = gc_engine();
    let m = module(
        &engine,
        r#"(module
            (type $bytes (array (mut i8)))
            (type $longs (array (mut i64)))
            (type $refs (array (mut (ref null $longs))))
            (memory 1)
            (data $d "\01\02\03\04\05\06\07\08")
            (func (export "bytes") (result i32 i32 i32 i32 i32)
                (local $a (ref $bytes))
                (local.set $a (array.new $bytes (i32.const 0xfe) (i32.const 10)))
                (array.set $bytes (local.get $a) (i32.const 9) (i32.const 3))
                (array.fill $bytes (local.get $a) (i32.const 2) (i32.const 7) (i32.const 3))
                (array.len (local.get $a))
                (array.get_s $bytes (local.get $a) (i32.const 0))
                (array.get_u $bytes (local.get $a) (i32.const 1))
                (array.get_u $bytes (local.get $a) (i32.const 4))
                (array.get_u $bytes (local.get $a) (i32.const 9)))
            (func (export "longs") (result i64 i64 i64 i32)
                (local $a (ref $longs))
                (local $r (ref $refs))
                (local.set $a (array.new_fixed $longs 4 (i64.const 10) (i64.const 20) (i64.const 30) (i64.const 40)))
                ;; Overlapping copy inside one array.
                (array.copy $longs $longs (local.get $a) (i32.const 1) (local.get $a) (i32.const 0) (i32.const 3))
                (local.set $r (array.new_default $refs (i32.const 3)))
                (array.set $refs (local.get $r) (i32.const 2) (local.get $a))
                (array.get $longs (local.get $a) (i32.const 3))
                (array.get $longs (array.get $refs (local.get $r) (i32.const 2)) (i32.const 1))
                (array.get $longs (local.get $a) (i32.const 0))
                (ref.is_null (array.get $refs (local.get $r) (i32.const 0))))
            (func (export "data") (result i32 i32 i32)
                (local $a (ref $bytes))
                (local.set $a (array.new_data $bytes $d (i32.const 2) (i32.const 4)))
                (array.init_data $bytes $d (local.get $a) (i32.const 3) (i32.const 7) (i32.const 1))
                (array.len (local.get $a))
                (array.get_u $bytes (local.get $a) (i32.const 0))
                (array.get_u $bytes (local.get $a) (i32.const 3)))
            (func (export "get") (param i32) (result i32)
                (array.get_u $bytes (array.new_default $bytes (i32.const 4)) (local.get 0)))
            (func (export "fill") (param i32 i32)
                (array.fill $bytes (array.new_default $bytes (i32.const 4))
                    (local.get 0) (i32.const 1) (local.get 1)))
            (func (export "new_data") (param i32)
                (drop (array.new_data $bytes $d (i32.const 0) (local.get 0))))
            (func (export "huge") (result i32)
                (array.len (array.new_default $longs (i32.const -1)))))"#,
    );
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &m, &[])?;
    let bytes = instance.get_typed_func::<(), (i32, i32, i32, i32, i32)>(&mut store, "bytes")?;
    assert_eq!(bytes.call(&mut store, ())?, (10, -2, 0xfe, 7, 3));
    let longs = instance.get_typed_func::<(), (i64, i64, i64, i32)>(&mut store, "longs")?;
    assert_eq!(longs.call(&mut store, ())?, (30, 10, 10, 1));
    let data = instance.get_typed_func::<(), (i32, i32, i32)>(&mut store, "data")?;
    assert_eq!(data.call(&mut store, ())?, (4, 3, 8));

    let get = instance.get_typed_func::<i32, i32>(&mut store, "get")?;
    assert_eq!(get.call(&mut store, 3)?, 0);
    for index in [4, -1] {
        assert_eq!(
            trap_of(get.call(&mut store, index).unwrap_err()),
            Trap::ArrayOutOfBounds
        );
    }
    let fill = instance.get_typed_func::<(i32, i32), ()>(&mut store, "fill")?;
    fill.call(&mut store, (0, 4))?;
    fill.call(&mut store, (4, 0))?;
    assert_eq!(
        trap_of(fill.call(&mut store, (1, 4)).unwrap_err()),
        Trap::ArrayOutOfBounds
    );
    assert_eq!(
        trap_of(fill.call(&mut store, (-1, 2)).unwrap_err()),
        Trap::ArrayOutOfBounds
    );
    let new_data = instance.get_typed_func::<i32, ()>(&mut store, "new_data")?;
    new_data.call(&mut store, 8)?;
    assert_eq!(
        trap_of(new_data.call(&mut store, 9).unwrap_err()),
        Trap::MemoryOutOfBounds
    );
    // 2^32 - 1 elements of 8 bytes: more than any GC heap holds.
    let huge = instance.get_typed_func::<(), i32>(&mut store, "huge")?;
    assert_eq!(
        trap_of(huge.call(&mut store, ()).unwrap_err()),
        Trap::AllocationTooLarge
    );
    Ok(())
}

#[test]
fn i31_refs_and_ref_eq() -> Result<()> {
    let engine = gc_engine();
    let m = module(
        &engine,
        r#"(module
            (type $s (struct))
            (func (export "i31") (param i32) (result i32 i32)
                (i31.get_s (ref.i31 (local.get 0)))
                (i31.get_u (ref.i31 (local.get 0))))
            (func (export "eq") (result i32 i32 i32 i32 i32)
                (local $a (ref $s))
                (local.set $a (struct.new $s))
                (ref.eq (local.get $a) (local.get $a))
                (ref.eq (local.get $a) (struct.new $s))
                (ref.eq (ref.i31 (i32.const 5)) (ref.i31 (i32.const 5)))
                (ref.eq (ref.i31 (i32.const 0)) (ref.null none))
                (ref.eq (ref.null eq) (ref.null none)))
            (func (export "null") (result i32)
                (i31.get_u (ref.null i31))))"#,
    );
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &m, &[])?;
    let i31 = instance.get_typed_func::<i32, (i32, i32)>(&mut store, "i31")?;
    assert_eq!(i31.call(&mut store, 5)?, (5, 5));
    assert_eq!(i31.call(&mut store, -1)?, (-1, 0x7fff_ffff));
    assert_eq!(i31.call(&mut store, 0x4000_0000)?, (-0x4000_0000, 0x4000_0000));
    assert_eq!(i31.call(&mut store, i32::MIN)?, (0, 0));
    let eq = instance.get_typed_func::<(), (i32, i32, i32, i32, i32)>(&mut store, "eq")?;
    assert_eq!(eq.call(&mut store, ())?, (1, 0, 1, 0, 1));
    let null = instance.get_typed_func::<(), i32>(&mut store, "null")?;
    assert_eq!(trap_of(null.call(&mut store, ()).unwrap_err()), Trap::NullReference);
    Ok(())
}

#[test]
fn casts_follow_declared_subtyping() -> Result<()> {
    let engine = gc_engine();
    let m = module(
        &engine,
        r#"(module
            (type $a (sub (struct (field i32))))
            (type $b (sub $a (struct (field i32) (field i64))))
            (type $c (sub final $b (struct (field i32) (field i64))))
            (type $other (struct (field i32)))
            (type $arr (array i8))
            (global $objects (mut (ref null $arr)) (ref.null $arr))
            ;; Object 0..4: $a, $b, $c, $other, an array; 5: an i31; 6: null.
            (func $object (param i32) (result anyref)
                (block $null
                    (block $i31
                        (block $arr
                            (block $other
                                (block $c
                                    (block $b
                                        (block $a
                                            (br_table $a $b $c $other $arr $i31 $null (local.get 0)))
                                        (return (struct.new $a (i32.const 1))))
                                    (return (struct.new $b (i32.const 2) (i64.const 0))))
                                (return (struct.new $c (i32.const 3) (i64.const 0))))
                            (return (struct.new $other (i32.const 4))))
                        (return (array.new_default $arr (i32.const 1))))
                    (return (ref.i31 (i32.const 6))))
                (ref.null any))
            ;; One bit per test, for object $i.
            (func (export "tests") (param $i i32) (result i32)
                (local $r anyref)
                (local.set $r (call $object (local.get $i)))
                (i32.or (i32.or (i32.or (i32.or
                (i32.or (i32.or (i32.or (i32.or
                    (ref.test (ref $a) (local.get $r))
                    (i32.shl (ref.test (ref $b) (local.get $r)) (i32.const 1)))
                    (i32.shl (ref.test (ref $c) (local.get $r)) (i32.const 2)))
                    (i32.shl (ref.test (ref $other) (local.get $r)) (i32.const 3)))
                    (i32.shl (ref.test (ref struct) (local.get $r)) (i32.const 4)))
                    (i32.shl (ref.test (ref array) (local.get $r)) (i32.const 5)))
                    (i32.shl (ref.test (ref i31) (local.get $r)) (i32.const 6)))
                    (i32.shl (ref.test (ref eq) (local.get $r)) (i32.const 7)))
                    (i32.shl (ref.test (ref null $c) (local.get $r)) (i32.const 8))))
            (func (export "field_of_b") (param i32) (result i32)
                (struct.get $b 0 (ref.cast (ref $b) (call $object (local.get 0)))))
            (func (export "branch") (param i32) (result i32)
                (block $is_a (result (ref $a))
                    (block $not_i31 (result anyref)
                        (br_on_cast $is_a anyref (ref $a) (call $object (local.get 0)))
                        (br_on_cast_fail $not_i31 anyref (ref i31))
                        (return (i32.add (i31.get_u) (i32.const 100))))
                    (drop)
                    (return (i32.const -1)))
                (struct.get $a 0)))"#,
    );
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &m, &[])?;
    let tests = instance.get_typed_func::<i32, i32>(&mut store, "tests")?;
    let expected = [
        0b0_1001_0001, // $a: a, struct, eq
        0b0_1001_0011, // $b: a, b
        0b1_1001_0111, // $c: a, b, c, and null $c
        0b0_1001_1000, // $other: only itself, although $a has the same fields
        0b0_1010_0000, // array
        0b0_1100_0000, // i31
        0b1_0000_0000, // null: only the nullable test
    ];
    for (i, want) in expected.iter().enumerate() {
        assert_eq!(tests.call(&mut store, i as i32)?, *want, "object {i}");
    }
    let field_of_b = instance.get_typed_func::<i32, i32>(&mut store, "field_of_b")?;
    assert_eq!(field_of_b.call(&mut store, 2)?, 3);
    for i in [0, 3, 4, 5, 6] {
        assert_eq!(
            trap_of(field_of_b.call(&mut store, i).unwrap_err()),
            Trap::CastFailure,
            "{i}"
        );
    }
    let branch = instance.get_typed_func::<i32, i32>(&mut store, "branch")?;
    let got: Vec<i32> = (0..7).map(|i| branch.call(&mut store, i)).collect::<Result<_>>()?;
    assert_eq!(got, [1, 2, 3, -1, -1, 106, -1]);
    Ok(())
}

#[test]
fn equal_recursion_groups_of_two_modules_are_one_type() -> Result<()> {
    let engine = gc_engine();
    let types = r#"
        (rec (type $node (struct (field i32) (field (ref null $list))))
             (type $list (array (ref null $node))))"#;
    let a = module(
        &engine,
        &format!(
            r#"(module {types}
                (global (export "g") (mut anyref) (ref.null any))
                (func (export "make")
                    (global.set 0 (struct.new $node (i32.const 42)
                        (array.new_default $list (i32.const 2))))))"#
        ),
    );
    let b = module(
        &engine,
        &format!(
            r#"(module {types}
                (type $lone (struct (field i32) (field (ref null $list))))
                (import "a" "g" (global (mut anyref)))
                (func (export "read") (result i32 i32 i32)
                    (ref.test (ref $lone) (global.get 0))
                    (struct.get $node 0 (ref.cast (ref $node) (global.get 0)))
                    (array.len (struct.get $node 1 (ref.cast (ref $node) (global.get 0))))))"#
        ),
    );
    let mut store = Store::new(&engine, ());
    let ia = Instance::new(&mut store, &a, &[])?;
    let g = ia.get_global(&mut store, "g").unwrap();
    let ib = Instance::new(&mut store, &b, &[g.into()])?;
    ia.get_typed_func::<(), ()>(&mut store, "make")?.call(&mut store, ())?;
    let read = ib.get_typed_func::<(), (i32, i32, i32)>(&mut store, "read")?;
    assert_eq!(read.call(&mut store, ())?, (0, 42, 2));
    Ok(())
}

#[test]
fn constant_expressions_and_extern_conversions() -> Result<()> {
    let engine = gc_engine();
    let m = module(
        &engine,
        r#"(module
            (type $pair (struct (field i32) (field (ref i31))))
            (type $arr (array i16))
            (global $p (ref $pair) (struct.new $pair (i32.const 7) (ref.i31 (i32.const -3))))
            (global $a (ref $arr) (array.new $arr (i32.const 0x1_2345) (i32.const 3)))
            (global $f (ref $arr) (array.new_fixed $arr 2 (i32.const 1) (i32.const 2)))
            (global $e externref (extern.convert_any (ref.i31 (i32.const 9))))
            (func (export "consts") (result i32 i32 i32 i32 i32 i32)
                (struct.get $pair 0 (global.get $p))
                (i31.get_s (struct.get $pair 1 (global.get $p)))
                (array.len (global.get $a))
                (array.get_u $arr (global.get $a) (i32.const 2))
                (array.get_u $arr (global.get $f) (i32.const 1))
                (i31.get_u (ref.cast (ref i31) (any.convert_extern (global.get $e)))))
            ;; A host reference made internal is no eqref, and comes back
            ;; out unchanged.
            (func (export "round_trip") (param externref) (result externref i32 i32)
                (extern.convert_any (any.convert_extern (local.get 0)))
                (ref.test (ref eq) (any.convert_extern (local.get 0)))
                (ref.test (ref any) (any.convert_extern (local.get 0)))))"#,
    );
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &m, &[])?;
    let consts = instance.get_typed_func::<(), (i32, i32, i32, i32, i32, i32)>(&mut store, "consts")?;
    assert_eq!(consts.call(&mut store, ())?, (7, -3, 3, 0x2345, 2, 9));
    let round_trip = instance.get_func(&mut store, "round_trip").unwrap();
    let host = ExternRef::new(&mut store, 1234u32)?;
    let mut results = [Val::I32(0), Val::I32(0), Val::I32(0)];
    round_trip.call(&mut store, &[Val::ExternRef(Some(host))], &mut results)?;
    let Val::ExternRef(Some(back)) = &results[0] else {
        panic!("not an externref: {:?}", results[0]);
    };
    assert_eq!(back.data(&store)?.and_then(|d| d.downcast_ref::<u32>()), Some(&1234));
    assert_eq!((results[1].i32(), results[2].i32()), (Some(0), Some(1)));
    round_trip.call(&mut store, &[Val::ExternRef(None)], &mut results)?;
    assert!(matches!(results[0], Val::ExternRef(None)));
    assert_eq!((results[1].i32(), results[2].i32()), (Some(0), Some(0)));
    Ok(())
}

#[test]
fn anyrefs_cross_the_host_api() -> Result<()> {
    let engine = gc_engine();
    let m = module(
        &engine,
        r#"(module
            (type $s (struct (field i32)))
            (type $a (array i8))
            (global (export "g") (mut anyref) (ref.null any))
            (func (export "make") (param i32) (result anyref)
                (block $other
                    (block $array
                        (block $struct
                            (br_table $struct $array $other (local.get 0)))
                        (return (struct.new $s (i32.const 11))))
                    (return (array.new_default $a (i32.const 2))))
                (ref.i31 (i32.const -7)))
            (func (export "field") (param anyref) (result i32)
                (struct.get $s 0 (ref.cast (ref $s) (local.get 0))))
            (func (export "i31") (param anyref) (result i32)
                (i31.get_s (ref.cast (ref i31) (local.get 0)))))"#,
    );
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &m, &[])?;
    let make = instance.get_func(&mut store, "make").unwrap();
    let mut out = [Val::I32(0)];
    let mut made = Vec::new();
    for i in 0..3 {
        make.call(&mut store, &[Val::I32(i)], &mut out)?;
        let Val::AnyRef(Some(r)) = out[0] else {
            panic!("not an anyref: {:?}", out[0]);
        };
        made.push(r);
    }
    let (s, a, i) = (made[0], made[1], made[2]);
    assert!(s.is_struct(&store)? && !s.is_array(&store)? && s.is_eqref(&store)?);
    assert!(a.is_array(&store)? && !a.is_i31(&store)?);
    assert_eq!(i.unwrap_i31(&store)?.get_i32(), -7);
    assert!(s.as_i31(&store)?.is_none());

    // Back into wasm: as arguments and through a global.
    let f = instance.get_func(&mut store, "field").unwrap();
    f.call(&mut store, &[Val::AnyRef(Some(s))], &mut out)?;
    assert_eq!(out[0].i32(), Some(11));
    let i31 = instance.get_func(&mut store, "i31").unwrap();
    let host_i31 = AnyRef::from_i31(&mut store, I31::wrapping_i32(1 << 30));
    i31.call(&mut store, &[Val::AnyRef(Some(host_i31))], &mut out)?;
    assert_eq!(out[0].i32(), Some(-(1 << 30)));
    let err = f.call(&mut store, &[Val::AnyRef(Some(a))], &mut out).unwrap_err();
    assert_eq!(trap_of(err), Trap::CastFailure);
    let g = instance.get_global(&mut store, "g").unwrap();
    g.set(&mut store, Val::AnyRef(Some(s)))?;
    let Val::AnyRef(Some(back)) = g.get(&mut store) else {
        panic!("the global lost its anyref");
    };
    assert!(Rooted::ref_eq(&store, &back, &s)?);
    // A host reference made internal, and back.
    let host = ExternRef::new(&mut store, 5u32)?;
    let inner = AnyRef::convert_extern(&mut store, host)?;
    assert!(!inner.is_eqref(&store)? && !inner.is_struct(&store)?);
    let outer = ExternRef::convert_any(&mut store, inner)?;
    assert_eq!(outer.data(&store)?.and_then(|d| d.downcast_ref::<u32>()), Some(&5));
    Ok(())
}

#[test]
fn i31_values_wrap_and_check() {
    assert_eq!(I31::new_i32(-1).map(|v| v.get_i32()), Some(-1));
    assert_eq!(I31::new_i32(1 << 30), None);
    assert_eq!(I31::new_u32(1 << 31), None);
    assert_eq!(I31::wrapping_u32(u32::MAX).get_u32(), 0x7fff_ffff);
    assert_eq!(I31::wrapping_i32(i32::MIN).get_i32(), 0);
}

#[test]
fn anyrefs_of_another_store_or_no_object_are_refused() -> Result<()> {
    let engine = gc_engine();
    let m = module(
        &engine,
        r#"(module (func (export "id") (param anyref) (result anyref) (local.get 0))
                   (func (export "new") (result anyref) (struct.new_default 0))
                   (type (struct)))"#,
    );
    let mut one = Store::new(&engine, ());
    let mut two = Store::new(&engine, ());
    let i1 = Instance::new(&mut one, &m, &[])?;
    let i2 = Instance::new(&mut two, &m, &[])?;
    let mut out = [Val::I32(0)];
    i1.get_func(&mut one, "new").unwrap().call(&mut one, &[], &mut out)?;
    let from_one = out[0].clone();
    let id2 = i2.get_func(&mut two, "id").unwrap();
    let err = id2.call(&mut two, &[from_one], &mut out).unwrap_err();
    assert!(format!("{err:#}").contains("different store"), "{err:#}");
    Ok(())
}
