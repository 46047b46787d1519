//! The custom descriptors proposal through the public API
//! (`Config::wasm_custom_descriptors`): the switch, descriptors that the
//! collector keeps alive through the objects they describe, descriptor
//! casts and their traps, fields of described structs read by the host,
//! and exact casts. The spec files of the proposal are run by
//! `tests/spec_testsuite.rs` (`scope4_custom_descriptors`).

use weft::*;

fn engine() -> Engine {
    let mut config = Config::new();
    config.wasm_gc(true).wasm_custom_descriptors(true);
    Engine::new(&config).unwrap()
}

fn trap_of(err: Error) -> Trap {
    *err.downcast_ref::<Trap>()
        .unwrap_or_else(|| panic!("not a trap: {err:#}"))
}

#[test]
fn custom_descriptors_are_a_switch_off_by_default_that_needs_gc() {
    let wasm = wat::parse_str(
        r#"(module
            (rec (type $a (descriptor $b) (struct)) (type $b (describes $a) (struct))))"#,
    )
    .unwrap();
    let exact = wat::parse_str("(module (type $t (struct)) (global (ref null (exact $t)) (ref.null none)))").unwrap();
    let mut gc = Config::new();
    gc.wasm_gc(true);
    let gc = Engine::new(&gc).unwrap();
    for module in [&wasm, &exact] {
        let err = Module::new(&gc, module).unwrap_err();
        assert!(format!("{err:#}").contains("custom descriptors"), "{err:#}");
        assert!(Module::new(&engine(), module).is_ok());
    }
    let mut no_gc = Config::new();
    no_gc.wasm_custom_descriptors(true);
    let Err(err) = Engine::new(&no_gc) else {
        panic!("custom descriptors without GC were accepted");
    };
    assert!(format!("{err:#}").contains("GC"), "{err:#}");
}

/// A module whose `$a` objects are described by `$b` objects holding an
/// `i64`; `$c` is a subtype of `$a` with more fields, described by `$d`, a
/// subtype of `$b`.
const DESCRIBED: &str = r#"(module
    (rec
        (type $a (sub (descriptor $b) (struct (field $x i32))))
        (type $b (sub (describes $a) (struct (field $tag i64))))
        (type $c (sub $a (descriptor $d) (struct (field $x i32) (field $y i64))))
        (type $d (sub $b (describes $c) (struct (field $tag i64) (field $extra i32)))))
    (global $obj (mut (ref null $a)) (ref.null none))
    (global $other (mut (ref null $b)) (ref.null none))
    ;; An $a whose descriptor only it holds.
    (func (export "make") (param $tag i64)
        (global.set $obj (struct.new_desc $a (i32.const 7) (struct.new $b (local.get $tag)))))
    (func (export "make_sub") (param $tag i64)
        (global.set $obj
            (struct.new_desc $c (i32.const 8) (i64.const 9)
                (struct.new $d (local.get $tag) (i32.const 10)))))
    (func (export "set_other") (param $tag i64)
        (global.set $other (struct.new $b (local.get $tag))))
    ;; Garbage of the descriptor's size, to reuse freed memory.
    (func (export "churn") (param $n i32)
        (loop $l
            (drop (struct.new $b (i64.const -1)))
            (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
    (func (export "tag") (result i64)
        (struct.get $b $tag (ref.get_desc $a (global.get $obj))))
    (func (export "x") (result i32)
        (struct.get $a $x (global.get $obj)))
    (func (export "obj") (result anyref) (global.get $obj))
    ;; The object cast with its own descriptor, then with $other.
    (func (export "cast_own") (result i32)
        (struct.get $a $x
            (ref.cast_desc_eq (ref $a) (global.get $obj) (ref.get_desc $a (global.get $obj)))))
    (func (export "cast_other") (result i32)
        (struct.get $a $x (ref.cast_desc_eq (ref $a) (global.get $obj) (global.get $other))))
    (func (export "cast_null_desc") (result i32)
        (struct.get $a $x (ref.cast_desc_eq (ref $a) (global.get $obj) (ref.null none))))
    (func (export "branch_own") (result i32)
        (block $yes (result (ref $a))
            (br_on_cast_desc_eq $yes anyref (ref $a)
                (global.get $obj) (ref.get_desc $a (global.get $obj)))
            (return (i32.const 0)))
        (drop)
        (i32.const 1))
    (func (export "branch_fail_other") (result i32)
        (block $no (result anyref)
            (br_on_cast_desc_eq_fail $no anyref (ref $a) (global.get $obj) (global.get $other))
            (return (i32.const 0)))
        (drop)
        (i32.const 1))
    (func (export "new_null_desc")
        (drop (struct.new_default_desc $a (ref.null none))))
    ;; Exact casts: an $a is (exact $a), a $c is not.
    (func (export "is_exact_a") (result i32)
        (ref.test (ref (exact $a)) (global.get $obj))))"#;

#[test]
fn descriptors_live_as_long_as_their_objects_and_casts_compare_them() -> Result<()> {
    let engine = engine();
    let module = Module::new(&engine, wat::parse_str(DESCRIBED)?)?;
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[])?;
    let make = instance.get_typed_func::<i64, ()>(&mut store, "make")?;
    let make_sub = instance.get_typed_func::<i64, ()>(&mut store, "make_sub")?;
    let set_other = instance.get_typed_func::<i64, ()>(&mut store, "set_other")?;
    let churn = instance.get_typed_func::<i32, ()>(&mut store, "churn")?;
    let tag = instance.get_typed_func::<(), i64>(&mut store, "tag")?;
    let x = instance.get_typed_func::<(), i32>(&mut store, "x")?;
    let cast_own = instance.get_typed_func::<(), i32>(&mut store, "cast_own")?;
    let cast_other = instance.get_typed_func::<(), i32>(&mut store, "cast_other")?;
    let cast_null_desc = instance.get_typed_func::<(), i32>(&mut store, "cast_null_desc")?;
    let branch_own = instance.get_typed_func::<(), i32>(&mut store, "branch_own")?;
    let branch_fail_other = instance.get_typed_func::<(), i32>(&mut store, "branch_fail_other")?;
    let new_null_desc = instance.get_typed_func::<(), ()>(&mut store, "new_null_desc")?;
    let is_exact_a = instance.get_typed_func::<(), i32>(&mut store, "is_exact_a")?;

    make.call(&mut store, 41)?;
    set_other.call(&mut store, 41)?;
    // Only the object reaches its descriptor: collected, then the freed
    // memory reused, a descriptor the collector missed would read -1.
    store.gc(None)?;
    churn.call(&mut store, 20_000)?;
    store.gc(None)?;
    churn.call(&mut store, 20_000)?;
    assert_eq!(tag.call(&mut store, ())?, 41);
    assert_eq!(x.call(&mut store, ())?, 7);

    // Descriptors compare by identity: an equal one is another descriptor.
    assert_eq!(cast_own.call(&mut store, ())?, 7);
    assert_eq!(
        trap_of(cast_other.call(&mut store, ()).unwrap_err()),
        Trap::DescriptorCastFailure
    );
    assert_eq!(
        trap_of(cast_null_desc.call(&mut store, ()).unwrap_err()),
        Trap::NullDescriptorReference
    );
    assert_eq!(branch_own.call(&mut store, ())?, 1);
    assert_eq!(branch_fail_other.call(&mut store, ())?, 1);
    assert_eq!(
        trap_of(new_null_desc.call(&mut store, ()).unwrap_err()),
        Trap::NullDescriptorReference
    );
    assert_eq!(is_exact_a.call(&mut store, ())?, 1);

    // A subtype's object: the inherited field and the descriptor at the
    // offsets of the supertype, so code written for $a reads them.
    make_sub.call(&mut store, 99)?;
    store.gc(None)?;
    churn.call(&mut store, 20_000)?;
    assert_eq!(tag.call(&mut store, ())?, 99);
    assert_eq!(x.call(&mut store, ())?, 8);
    assert_eq!(cast_own.call(&mut store, ())?, 8);
    assert_eq!(is_exact_a.call(&mut store, ())?, 0);
    Ok(())
}

#[test]
fn the_host_reads_described_structs_but_cannot_allocate_them() -> Result<()> {
    let engine = engine();
    let module = Module::new(&engine, wat::parse_str(DESCRIBED)?)?;
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[])?;
    instance
        .get_typed_func::<i64, ()>(&mut store, "make_sub")?
        .call(&mut store, 5)?;
    let obj = instance.get_func(&mut store, "obj").expect("obj export");
    let mut results = [Val::I32(0)];
    obj.call(&mut store, &[], &mut results)?;
    let Val::AnyRef(Some(any)) = &results[0] else {
        panic!("expected a struct, got {:?}", results[0]);
    };
    let st = any.unwrap_struct(&store)?;
    // The fields, not the descriptor that comes before the first one.
    let fields = st.fields(&mut store)?;
    assert!(matches!(fields.as_slice(), [Val::I32(8), Val::I64(9)]), "{fields:?}");
    let ty = st.ty(&store)?;
    let pre = StructRefPre::new(&mut store, ty);
    let err = StructRef::new(&mut store, &pre, &[Val::I32(1), Val::I64(2)]).unwrap_err();
    assert!(format!("{err:#}").contains("descriptor"), "{err:#}");
    Ok(())
}

/// Global and table imports are matched on canonical types, which the
/// public types do not fully show: exactness, concrete struct types and
/// declared subtyping of function types.
#[test]
fn global_and_table_imports_match_exact_and_concrete_types() -> Result<()> {
    let engine = engine();
    let mut store = Store::new(&engine, ());
    let exporter = Module::new(
        &engine,
        wat::parse_str(
            r#"(module
                (type $f (sub (func)))
                (type $g (sub $f (func)))
                (type $s (sub (struct)))
                (type $t (sub $s (struct (field i32))))
                (func $gf (type $g))
                (elem declare func $gf)
                (global (export "func") (ref null $f) (ref.func $gf))
                (global (export "sub_func") (ref null $g) (ref.func $gf))
                (global (export "exact_s") (ref null (exact $s)) (ref.null none))
                (global (export "s") (ref null $s) (struct.new $t (i32.const 1)))
                (table (export "table") 1 (ref null $s)))"#,
        )?,
    )?;
    let exports = Instance::new(&mut store, &exporter, &[])?;
    let import = |store: &mut Store<()>, name: &str, ty: &str| -> Result<()> {
        let wasm = wat::parse_str(format!(
            r#"(module
                (type $f (sub (func)))
                (type $g (sub $f (func)))
                (type $s (sub (struct)))
                (type $u (struct (field i64)))
                (import "m" "x" {ty}))"#
        ))?;
        let module = Module::new(&engine, wasm)?;
        let export = exports.get_export(&mut *store, name).expect("export");
        Instance::new(store, &module, &[export]).map(drop)
    };
    // Exactness.
    assert!(import(&mut store, "func", "(global (ref null (exact $f)))").is_err());
    assert!(import(&mut store, "exact_s", "(global (ref null (exact $s)))").is_ok());
    assert!(import(&mut store, "exact_s", "(global (ref null $s))").is_ok());
    assert!(import(&mut store, "s", "(global (ref null (exact $s)))").is_err());
    // Concrete struct types, which the public types show as `struct`.
    assert!(import(&mut store, "s", "(global (ref null $s))").is_ok());
    assert!(import(&mut store, "s", "(global (ref null $u))").is_err());
    // Declared subtyping of an immutable global's type.
    assert!(import(&mut store, "sub_func", "(global (ref null $f))").is_ok());
    assert!(import(&mut store, "func", "(global (ref null $g))").is_err());
    // Table element types are invariant.
    assert!(import(&mut store, "table", "(table 1 (ref null $s))").is_ok());
    assert!(import(&mut store, "table", "(table 1 (ref null $u))").is_err());
    assert!(import(&mut store, "table", "(table 1 (ref null (exact $s)))").is_err());
    Ok(())
}
