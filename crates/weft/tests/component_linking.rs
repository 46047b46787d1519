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
