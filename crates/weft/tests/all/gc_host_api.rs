//! Structs and arrays built, read and written from the host (Wasmtime 48's
//! `StructType`/`ArrayType`, `StructRefPre`/`ArrayRefPre`, `StructRef`/
//! `ArrayRef`), and passed into wasm and back through typed functions.

use weft::*;

fn gc_engine() -> Engine {
    let mut config = Config::new();
    config.wasm_gc(true);
    Engine::new(&config).unwrap()
}

fn struct_type(engine: &Engine) -> StructType {
    StructType::new(
        engine,
        [
            FieldType::new(Mutability::Var, StorageType::I8),
            FieldType::new(Mutability::Const, StorageType::ValType(ValType::I64)),
            FieldType::new(
                Mutability::Var,
                StorageType::ValType(ValType::Ref(RefType::new(true, HeapType::Any))),
            ),
        ],
    )
    .unwrap()
}

#[test]
fn structs_from_the_host() -> Result<()> {
    let engine = gc_engine();
    let mut store = Store::new(&engine, ());
    let ty = struct_type(&engine);
    assert_eq!(ty.fields().len(), 3);
    assert_eq!(ty.field(1).unwrap().mutability(), Mutability::Const);
    let pre = StructRefPre::new(&mut store, ty.clone());
    let inner = StructRef::new(&mut store, &pre, &[Val::I32(1), Val::I64(2), Val::AnyRef(None)])?;
    let s = StructRef::new(
        &mut store,
        &pre,
        &[Val::I32(0x1ff), Val::I64(-5), Val::AnyRef(Some(inner.to_anyref()))],
    )?;
    // The packed field keeps its low 8 bits.
    assert_eq!(s.field(&mut store, 0)?.i32(), Some(0xff));
    assert_eq!(s.field(&mut store, 1)?.i64(), Some(-5));
    let Val::AnyRef(Some(a)) = s.field(&mut store, 2)? else {
        panic!("field 2 holds a struct")
    };
    assert_eq!(a.unwrap_struct(&store)?.field(&mut store, 1)?.i64(), Some(2));
    s.set_field(&mut store, 0, Val::I32(7))?;
    assert_eq!(s.fields(&mut store)?[0].i32(), Some(7));
    // Errors, not panics: immutable field, wrong type, bad index, arity.
    assert!(s.set_field(&mut store, 1, Val::I64(1)).is_err());
    assert!(s.set_field(&mut store, 0, Val::I64(1)).is_err());
    assert!(s.field(&mut store, 3).is_err());
    assert!(StructRef::new(&mut store, &pre, &[Val::I32(1)]).is_err());
    assert!(StructType::eq(&s.ty(&store)?, &ty));
    // The heap type of the value is a struct, and an eqref.
    let any = s.to_anyref();
    assert!(any.is_struct(&store)? && any.is_eqref(&store)? && !any.is_array(&store)?);
    assert!(any.as_array(&store)?.is_none());
    Ok(())
}

#[test]
fn arrays_from_the_host() -> Result<()> {
    let engine = gc_engine();
    let mut store = Store::new(&engine, ());
    let ty = ArrayType::new(&engine, FieldType::new(Mutability::Var, StorageType::I16))?;
    let pre = ArrayRefPre::new(&mut store, ty);
    let a = ArrayRef::new(&mut store, &pre, &Val::I32(-1), 5)?;
    assert_eq!(a.len(&store)?, 5);
    assert_eq!(a.get(&mut store, 4)?.i32(), Some(0xffff));
    a.set(&mut store, 2, Val::I32(42))?;
    assert_eq!(a.get(&mut store, 2)?.i32(), Some(42));
    assert!(a.get(&mut store, 5).is_err());
    assert!(a.set(&mut store, 5, Val::I32(0)).is_err());
    let fixed = ArrayRef::new_fixed(&mut store, &pre, &[Val::I32(1), Val::I32(2), Val::I32(3)])?;
    assert_eq!(fixed.len(&store)?, 3);
    assert_eq!(fixed.get(&mut store, 1)?.i32(), Some(2));
    let immutable = ArrayType::new(
        &engine,
        FieldType::new(Mutability::Const, StorageType::ValType(ValType::F64)),
    )?;
    let pre = ArrayRefPre::new(&mut store, immutable);
    let b = ArrayRef::new(&mut store, &pre, &Val::F64(1.5f64.to_bits()), 2)?;
    assert!(b.set(&mut store, 0, Val::F64(0)).is_err());
    assert_eq!(b.get(&mut store, 1)?.f64(), Some(1.5));
    assert!(b.to_anyref().is_array(&store)?);
    Ok(())
}

#[test]
fn structs_and_arrays_cross_into_wasm_and_back() -> Result<()> {
    let engine = gc_engine();
    let wasm = wat::parse_str(
        r#"(module
            (type $s (struct (field (mut i8)) (field i64) (field (mut anyref))))
            (type $a (array (mut i32)))
            (func (export "second") (param (ref null struct)) (result i64)
                (struct.get $s 1 (ref.cast (ref $s) (local.get 0))))
            (func (export "make") (param i64) (result (ref null struct))
                (struct.new $s (i32.const 3) (local.get 0) (ref.i31 (i32.const 9))))
            (func (export "sum") (param (ref null array)) (result i32)
                (local $a (ref $a)) (local $i i32) (local $acc i32)
                (local.set $a (ref.cast (ref $a) (local.get 0)))
                (block $done (loop $l
                    (br_if $done (i32.ge_u (local.get $i) (array.len (local.get $a))))
                    (local.set $acc (i32.add (local.get $acc) (array.get $a (local.get $a) (local.get $i))))
                    (local.set $i (i32.add (local.get $i) (i32.const 1)))
                    (br $l)))
                (local.get $acc))
            (func (export "id") (param anyref) (result anyref) (local.get 0)))"#,
    )
    .unwrap();
    let module = Module::new(&engine, &wasm)?;
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[])?;

    // A host-made struct of the same type as the module's $s.
    let pre = StructRefPre::new(&mut store, struct_type(&engine));
    let s = StructRef::new(&mut store, &pre, &[Val::I32(1), Val::I64(77), Val::AnyRef(None)])?;
    let second = instance.get_typed_func::<Option<Rooted<StructRef>>, i64>(&mut store, "second")?;
    assert_eq!(second.call(&mut store, Some(s))?, 77);

    // A wasm-made struct read from the host.
    let make = instance.get_typed_func::<i64, Option<Rooted<StructRef>>>(&mut store, "make")?;
    let made = make.call(&mut store, 123)?.expect("a struct");
    assert_eq!(made.field(&mut store, 1)?.i64(), Some(123));
    assert_eq!(made.field(&mut store, 0)?.i32(), Some(3));
    let Val::AnyRef(Some(i31)) = made.field(&mut store, 2)? else {
        panic!("an i31ref")
    };
    assert_eq!(i31.unwrap_i31(&store)?.get_i32(), 9);
    assert!(StructType::eq(&made.ty(&store)?, pre.ty()));

    // A host-made array summed by wasm.
    let aty = ArrayType::new(
        &engine,
        FieldType::new(Mutability::Var, StorageType::ValType(ValType::I32)),
    )?;
    let apre = ArrayRefPre::new(&mut store, aty);
    let arr = ArrayRef::new_fixed(&mut store, &apre, &[Val::I32(1), Val::I32(2), Val::I32(39)])?;
    let sum = instance.get_typed_func::<Option<Rooted<ArrayRef>>, i32>(&mut store, "sum")?;
    assert_eq!(sum.call(&mut store, Some(arr))?, 42);

    // anyref through a typed function, both ways.
    let id = instance.get_typed_func::<Option<Rooted<AnyRef>>, Option<Rooted<AnyRef>>>(&mut store, "id")?;
    let back = id.call(&mut store, Some(arr.to_anyref()))?.expect("the array");
    assert_eq!(back.unwrap_array(&store)?.get(&mut store, 2)?.i32(), Some(39));
    assert!(id.call(&mut store, None)?.is_none());

    // Objects made by the host survive collections while rooted.
    store.gc(None)?;
    assert_eq!(arr.get(&mut store, 0)?.i32(), Some(1));
    assert_eq!(s.field(&mut store, 1)?.i64(), Some(77));
    Ok(())
}

/// A struct of one type is never accepted where wasm expects a concrete
/// struct type it is not a subtype of: through `Func::call`, a typed call,
/// `Global::set` and `Table::set` (before, the public types showed every
/// concrete struct type as `struct`, and wasm read the small struct with
/// the big one's layout, past its end). Concrete types show as such.
#[test]
fn host_values_are_checked_against_concrete_struct_types() -> Result<()> {
    let engine = gc_engine();
    let wasm = wat::parse_str(
        r#"(module
            (type $small (struct (field i32)))
            (type $big (sub (struct (field i64) (field i64) (field i64) (field i64)
                               (field i64) (field i64) (field i64) (field i64))))
            (type $bigger (sub $big (struct (field i64) (field i64) (field i64) (field i64)
                               (field i64) (field i64) (field i64) (field i64) (field i32))))
            (global (export "g") (mut (ref null $big)) (ref.null $big))
            (table (export "t") 1 (ref null $big))
            (func (export "small") (result (ref $small)) (struct.new $small (i32.const 5)))
            (func (export "big") (result (ref $big)) (struct.new_default $big))
            (func (export "bigger") (result (ref $bigger)) (struct.new_default $bigger))
            (func (export "last") (param (ref $big)) (result i64) (struct.get $big 7 (local.get 0))))"#,
    )
    .unwrap();
    let module = Module::new(&engine, &wasm)?;
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[])?;
    let small = instance
        .get_typed_func::<(), Rooted<StructRef>>(&mut store, "small")?
        .call(&mut store, ())?;
    let big = instance
        .get_typed_func::<(), Rooted<StructRef>>(&mut store, "big")?
        .call(&mut store, ())?;
    let bigger = instance
        .get_typed_func::<(), Rooted<StructRef>>(&mut store, "bigger")?
        .call(&mut store, ())?;

    // The parameter's type is the concrete one.
    let last = instance.get_func(&mut store, "last").unwrap();
    let ty = last.ty(&store);
    let Some(ValType::Ref(param)) = ty.params().next() else {
        panic!("a reference parameter")
    };
    let want = param
        .heap_type()
        .as_concrete_struct()
        .expect("a concrete struct type")
        .clone();
    assert!(StructType::eq(&want, &big.ty(&store)?));
    assert!(HeapType::ConcreteStruct(bigger.ty(&store)?).matches(param.heap_type()));
    assert!(!HeapType::ConcreteStruct(small.ty(&store)?).matches(param.heap_type()));

    // Func::call: the small struct is refused; the big one and its subtype work.
    let mut out = [Val::I64(1)];
    let err = last
        .call(&mut store, &[Val::AnyRef(Some(small.to_anyref()))], &mut out)
        .unwrap_err();
    assert!(format!("{err:#}").contains("type"), "{err:#}");
    last.call(&mut store, &[Val::AnyRef(Some(big.to_anyref()))], &mut out)?;
    assert_eq!(out[0].i64(), Some(0));
    last.call(&mut store, &[Val::AnyRef(Some(bigger.to_anyref()))], &mut out)?;

    // A typed call with an abstract struct reference checks each value.
    let typed = last.typed::<Rooted<StructRef>, i64>(&store)?;
    assert!(typed.call(&mut store, small).is_err());
    assert_eq!(typed.call(&mut store, big)?, 0);
    assert_eq!(typed.call(&mut store, bigger)?, 0);

    // Globals and tables of the concrete type.
    let g = instance.get_global(&mut store, "g").unwrap();
    assert!(g.set(&mut store, Val::AnyRef(Some(small.to_anyref()))).is_err());
    g.set(&mut store, Val::AnyRef(Some(big.to_anyref())))?;
    let t = instance.get_table(&mut store, "t").unwrap();
    assert!(t.set(&mut store, 0, Ref::Any(Some(small.to_anyref()))).is_err());
    t.set(&mut store, 0, Ref::Any(Some(bigger.to_anyref())))?;
    Ok(())
}
