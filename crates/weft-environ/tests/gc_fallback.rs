//! The constructs of WebAssembly 3.0 that `wasmparser` accepts only with
//! its GC feature and Weft supports without GC (explicit recursion groups,
//! `global.get` of a defined global in constant expressions): modules that
//! use them translate with the supported features but GC (the default
//! configuration), and modules that fail validation for another reason keep
//! their error.

use wasmparser::WasmFeatures;
use weft_environ::{supported_features, translate_module};

fn translate(wat: &str) -> Result<weft_environ::Module, String> {
    let wasm = wat::parse_str(wat).map_err(|e| e.to_string())?;
    translate_module(&wasm, supported_features() - WasmFeatures::GC)
        .map(|t| t.module)
        .map_err(|e| e.message)
}

#[test]
fn defined_globals_are_read_by_every_constant_expression() {
    let module = translate(
        r#"(module
            (import "m" "g" (global i32))
            (global $a i32 (i32.const 4))
            (global $b i32 (i32.add (global.get 0) (global.get $a)))
            (table $t 10 funcref)
            (table 10 funcref (ref.func $f))
            (memory 1)
            (func $f)
            (elem (table $t) (offset (global.get $a)) funcref (ref.func $f))
            (elem funcref (item (ref.func $f)))
            (data (offset (global.get $b)) "x"))"#,
    )
    .unwrap();
    assert_eq!(module.globals.len(), 3);
    // Each kind of constant expression on its own (tables come before
    // globals, so their initializers cannot read a defined global).
    for wat in [
        r#"(module (global $g i32 (i32.const 0)) (global i32 (global.get $g)))"#,
        r#"(module (global $g i32 (i32.const 0)) (table 1 funcref) (elem (offset (global.get $g))))"#,
        r#"(module (global $r funcref (ref.func $f)) (elem funcref (item (global.get $r))) (func $f))"#,
        r#"(module (global $g i32 (i32.const 0)) (memory 1) (data (offset (global.get $g)) "x"))"#,
    ] {
        translate(wat).unwrap_or_else(|e| panic!("{wat}: {e}"));
    }
}

#[test]
fn explicit_recursion_groups_of_function_types_translate() {
    let module = translate(r#"(module (type (func)) (rec (type (func)) (type (func (param i32)))))"#).unwrap();
    assert_eq!(module.rec_groups, vec![1..3]);
}

#[test]
fn other_errors_keep_their_message() {
    // A mutable global read in a constant expression, imported or defined.
    let imported = translate(r#"(module (import "m" "g" (global (mut i32))) (global i32 (global.get 0)))"#);
    assert!(imported.unwrap_err().contains("mutable global"));
    let defined = translate(r#"(module (global (mut i32) (i32.const 0)) (global i32 (global.get 0)))"#);
    assert!(defined.unwrap_err().contains("mutable global"));
    // An unknown global.
    assert!(translate(r#"(module (global i32 (global.get 3)))"#)
        .unwrap_err()
        .contains("unknown global"));
    // A group that is valid but uses the rest of GC.
    assert!(translate(r#"(module (rec (type (struct)) (type (func))))"#).is_err());
    // A body that uses GC in a module that needs the fallback.
    let gc_body = translate(r#"(module (rec (type (func)) (type (func))) (func (drop (ref.i31 (i32.const 0)))))"#);
    assert!(gc_body.unwrap_err().contains("needs the GC proposal"));
    // A module that fails before its group is not validated again.
    let wasm = wat::parse_str(r#"(module (rec (type (func)) (type (func))))"#).unwrap();
    let without_function_references = supported_features() - WasmFeatures::FUNCTION_REFERENCES - WasmFeatures::GC;
    let err = translate_module(&wasm, without_function_references).err().unwrap();
    assert!(err.message.contains("gc"), "{}", err.message);
}
