//! Linking components: the types of exported instances, and the linker's
//! checks of instance imports (missing exports, wrong kinds).

#![cfg(feature = "component-model")]

use weft::component::types::ComponentItem;
use weft::component::{Component, Linker};
use weft::{Engine, Store};

fn component(engine: &Engine, text: &str) -> Component {
    let bytes = wat::parse_str(text).expect("test component is valid text");
    Component::new(engine, bytes).expect("test component compiles")
}

#[test]
fn exported_instances_have_instance_types() {
    let engine = Engine::default();
    let c = component(
        &engine,
        r#"(component
            (core module $m (func (export "f") (param i32) (result i32) (local.get 0)))
            (core instance $i (instantiate $m))
            (func $f (param "x" u32) (result u32) (canon lift (core func $i "f")))
            (instance $inner (export "f" (func $f)))
            (instance $outer (export "inner" (instance $inner)) (export "g" (func $f)))
            (export "outer" (instance $outer))
            (export "top" (func $f)))"#,
    );
    let ty = c.component_type();
    let names: Vec<&str> = ty.exports(&engine).map(|(n, _)| n).collect();
    assert_eq!(names, ["outer", "top"]);
    let Some(ComponentItem::ComponentInstance(outer)) = ty.get_export(&engine, "outer") else {
        panic!("`outer` is not an instance")
    };
    let outer_names: Vec<&str> = outer.exports().map(|(n, _)| n).collect();
    assert_eq!(outer_names, ["inner", "g"]);
    let Some(ComponentItem::ComponentInstance(inner)) = outer.get_export("inner") else {
        panic!("`inner` is not an instance")
    };
    let Some(ComponentItem::ComponentFunc(f)) = inner.get_export("f") else {
        panic!("`f` is not a function")
    };
    assert_eq!(f.params().count(), 1);
    assert_eq!(f.results().count(), 1);
}

const IMPORTS_AN_INSTANCE: &str = r#"(component
    (import "host" (instance $h
        (export "f" (func))
        (export "g" (func (param "x" u32)))))
    (alias export $h "f" (func $f))
    (core func $f' (canon lower (func $f)))
    (core module $m (import "" "f" (func)))
    (core instance (instantiate $m (with "" (instance (export "f" (func $f')))))))"#;

#[test]
fn a_missing_export_of_an_imported_instance_is_named() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(&engine, IMPORTS_AN_INSTANCE);
    let mut linker = Linker::<()>::new(&engine);
    linker.instance("host")?.func_new("f", |_, _, _| Ok(()))?;
    let mut store = Store::new(&engine, ());
    let err = linker.instantiate(&mut store, &c).unwrap_err().to_string();
    assert!(err.contains("host/g") && err.contains("does not define"), "{err}");
    // With `g` defined, the component links.
    linker.instance("host")?.func_new("g", |_, _, _| Ok(()))?;
    linker.instantiate(&mut store, &c)?;
    Ok(())
}

#[test]
fn an_export_of_the_wrong_kind_is_named() -> weft::Result<()> {
    let engine = Engine::default();
    let c = component(&engine, IMPORTS_AN_INSTANCE);
    let mut linker = Linker::<()>::new(&engine);
    let mut host = linker.instance("host")?;
    host.func_new("f", |_, _, _| Ok(()))?;
    host.instance("g")?;
    let mut store = Store::new(&engine, ());
    let err = linker.instantiate(&mut store, &c).unwrap_err().to_string();
    assert!(
        err.contains("host/g") && err.contains("as a function") && err.contains("as an instance"),
        "{err}"
    );
    Ok(())
}

/// A component exporting `f` of the given parameter type and a record type.
fn exporter(engine: &Engine, param: &str) -> Component {
    component(
        engine,
        &format!(
            r#"(component
            (core module $m (func (export "f") (param i32)))
            (core instance $i (instantiate $m))
            (type $r' (record (field "a" u32) (field "b" string)))
            (export $r "r" (type $r'))
            (func (export "f") (param "x" {param}) (canon lift (core func $i "f"))))"#
        ),
    )
}

fn func_type(engine: &Engine, c: &Component, name: &str) -> weft::component::types::ComponentFunc {
    match c.component_type().get_export(engine, name) {
        Some(ComponentItem::ComponentFunc(f)) => f,
        _ => panic!("`{name}` is not a function"),
    }
}

#[test]
fn equal_types_of_different_components_are_equal() {
    let engine = Engine::default();
    let a = exporter(&engine, "u32");
    let b = exporter(&engine, "u32");
    let c = exporter(&engine, "s32");
    assert_eq!(func_type(&engine, &a, "f"), func_type(&engine, &b, "f"));
    assert_ne!(func_type(&engine, &a, "f"), func_type(&engine, &c, "f"));
    let record = |c: &Component| match c.component_type().get_export(&engine, "r") {
        Some(ComponentItem::Type(t)) => t,
        _ => panic!("`r` is not a type"),
    };
    assert_eq!(record(&a), record(&c));
    assert_eq!(a.component_type(), b.component_type());
    assert_ne!(a.component_type(), c.component_type());
    // Types stay usable after their component is dropped.
    let ty = func_type(&engine, &a, "f");
    drop(a);
    assert_eq!(ty, func_type(&engine, &b, "f"));
}

#[test]
fn types_naming_resources_are_equal_only_within_their_component() {
    let engine = Engine::default();
    let text = r#"(component
        (type $r' (resource (rep i32)))
        (export $r "r" (type $r'))
        (core module $m (func (export "f") (param i32)))
        (core instance $i (instantiate $m))
        (func (export "f") (param "x" (own $r)) (canon lift (core func $i "f"))))"#;
    let a = component(&engine, text);
    let b = component(&engine, text);
    assert_eq!(func_type(&engine, &a, "f"), func_type(&engine, &a, "f"));
    assert_ne!(func_type(&engine, &a, "f"), func_type(&engine, &b, "f"));
}

#[test]
fn host_functions_with_a_component_type_are_checked_by_id() -> weft::Result<()> {
    let engine = Engine::default();
    let source = exporter(&engine, "u32");
    let ty = func_type(&engine, &source, "f");
    let importer = |param: &str| {
        component(
            &engine,
            &format!(
                r#"(component
                (import "f" (func $f (param "x" {param})))
                (core func $f' (canon lower (func $f)))
                (core module $m (import "" "f" (func (param i32))))
                (core instance (instantiate $m (with "" (instance (export "f" (func $f')))))))"#
            ),
        )
    };
    let mut linker = Linker::<()>::new(&engine);
    linker.root().func_new_with_type("f", &ty, |_, _, _| Ok(()))?;
    let mut store = Store::new(&engine, ());
    linker.instantiate(&mut store, &importer("u32"))?;
    let err = linker.instantiate(&mut store, &importer("s32")).unwrap_err();
    assert!(format!("{err:#}").contains("`f`"), "{err:#}");
    Ok(())
}

#[test]
fn instances_report_their_exports_types_and_resources() -> weft::Result<()> {
    use weft::component::types::Type;
    use weft::component::Val;
    let engine = Engine::default();
    let c = component(
        &engine,
        r#"(component
            (type $r' (resource (rep i32)))
            (export $r "r" (type $r'))
            (core func $new (canon resource.new $r))
            (core module $m
                (import "" "new" (func $new (param i32) (result i32)))
                (func (export "make") (param i32) (result i32) (call $new (local.get 0)))
                (func (export "add") (param i32 i64) (result i64) (i64.add (i64.extend_i32_u (local.get 0)) (local.get 1))))
            (core instance $i (instantiate $m (with "" (instance (export "new" (func $new))))))
            (func $make (param "rep" u32) (result (own $r)) (canon lift (core func $i "make")))
            (func $add (param "a" u32) (param "b" u64) (result u64) (canon lift (core func $i "add")))
            (instance $inner (export "add" (func $add)))
            (export "make" (func $make))
            (export "inner" (instance $inner)))"#,
    );
    let mut store = Store::new(&engine, ());
    let instance = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    let (item, inner) = instance.get_export(&mut store, None, "inner").expect("inner");
    assert!(matches!(item, ComponentItem::ComponentInstance(_)));
    let (item, add) = instance.get_export(&mut store, Some(&inner), "add").expect("add");
    assert!(matches!(item, ComponentItem::ComponentFunc(_)));
    assert!(instance.get_export(&mut store, Some(&inner), "missing").is_none());
    let add = instance.get_func(&mut store, &add).expect("add is a function");
    let params = add.params(&store);
    assert_eq!(params.len(), 2);
    assert_eq!((params[0].0.as_str(), &params[0].1), ("a", &Type::U32));
    assert_eq!((params[1].0.as_str(), &params[1].1), ("b", &Type::U64));
    assert_eq!(&add.results(&store)[..], &[Type::U64]);
    // The exported resource type is the type of the handles the
    // instance makes.
    let r = instance.get_resource(&mut store, "r").expect("r is a resource");
    assert!(instance.get_resource(&mut store, "make").is_none());
    let make = instance.get_func(&mut store, "make").expect("make");
    let mut out = [Val::Bool(false)];
    make.call(&mut store, &[Val::U32(5)], &mut out)?;
    let Val::Resource(handle) = &out[0] else {
        panic!("`make` returned {:?}", out[0])
    };
    assert_eq!(handle.ty(), r);
    // Another instance of the same component defines another resource.
    let other = Linker::<()>::new(&engine).instantiate(&mut store, &c)?;
    assert_ne!(other.get_resource(&mut store, "r"), Some(r));
    // Functions of another store have no parameters to report.
    let mut store2 = Store::new(&engine, ());
    assert!(add.params(&store2).is_empty());
    assert!(instance.get_export(&mut store2, None, "inner").is_none());
    Ok(())
}
