//! `FuncNames`: the name section's function names, kept in one string.

use weft_environ::{supported_features, translate_module, FuncNames};

#[test]
fn names_in_order_out_of_order_and_replaced() {
    let mut names = FuncNames::default();
    assert!(names.is_empty());
    assert_eq!(names.get(0), None);
    names.insert(2, "two");
    names.insert(5, "five");
    // Out of order, then a replacement of an existing name.
    names.insert(1, "one");
    names.insert(5, "cinq");
    names.insert(9, "");
    assert_eq!(names.len(), 4);
    assert_eq!(names.get(1), Some("one"));
    assert_eq!(names.get(2), Some("two"));
    assert_eq!(names.get(5), Some("cinq"));
    assert_eq!(names.get(9), Some(""));
    assert_eq!(names.get(3), None);
    let all: Vec<(u32, &str)> = names.iter().collect();
    assert_eq!(all, [(1, "one"), (2, "two"), (5, "cinq"), (9, "")]);
}

#[test]
fn translation_reads_the_name_section() {
    let wasm = wat::parse_str(
        r#"(module
            (func $first)
            (func)
            (func $third (export "third")))"#,
    )
    .unwrap();
    let t = translate_module(&wasm, supported_features()).unwrap();
    let names: Vec<(u32, &str)> = t.module.func_names.iter().collect();
    assert_eq!(names, [(0, "first"), (2, "third")]);
}
