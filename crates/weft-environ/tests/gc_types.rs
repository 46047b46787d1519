//! The types of the GC proposal in a module's translation: struct and array
//! types with packed fields, subtypes and recursion groups, concrete
//! references resolved to the kind of the type they name; and rejected
//! without the GC feature.

use wasmparser::WasmFeatures;
use weft_environ::{
    supported_features, translate_module, CompositeKind, EngineOrModuleTypeIndex, WasmHeapType, WasmStorageType,
    WasmValType,
};

fn translate(wat: &str, gc: bool) -> Result<weft_environ::Module, String> {
    let wasm = wat::parse_str(wat).map_err(|e| e.to_string())?;
    let features = if gc {
        supported_features()
    } else {
        supported_features() - WasmFeatures::GC
    };
    translate_module(&wasm, features)
        .map(|t| t.module)
        .map_err(|e| e.message)
}

const TYPES: &str = r#"(module
    (type $point (sub (struct (field $x i32) (field $y (mut i16)))))
    (rec
        (type $node (sub $point (struct (field i32) (field (mut i16)) (field (ref null $list)))))
        (type $list (array (mut (ref null $node)))))
    (type $f (func (param (ref $node)) (result (ref null $list) anyref i31ref)))
    (global (mut (ref null $point)) (ref.null $point))
    (table 1 (ref null $list)))"#;

#[test]
fn struct_array_and_sub_types_are_translated() {
    let m = translate(TYPES, true).unwrap();
    assert_eq!(m.sub_types.len(), 4);
    assert!(m.has_gc_types());
    assert_eq!(m.all_rec_groups, vec![0..1, 1..3, 3..4]);
    assert_eq!(m.rec_groups, vec![1..3]);

    let point = &m.sub_types[0];
    assert!(!point.is_final && point.supertype.is_none());
    let fields = &point.as_struct().unwrap().fields;
    assert_eq!(fields[0].element_type, WasmStorageType::Val(WasmValType::I32));
    assert!(!fields[0].mutable);
    assert_eq!(fields[1].element_type, WasmStorageType::I16);
    assert!(fields[1].mutable);

    let node = &m.sub_types[1];
    assert_eq!(node.supertype, Some(EngineOrModuleTypeIndex::Module(0)));
    assert!(!node.is_final && m.sub_types[2].is_final);
    // A forward reference inside the group is resolved to an array type.
    match node.as_struct().unwrap().fields[2].element_type {
        WasmStorageType::Val(WasmValType::Ref(r)) => {
            assert_eq!(
                r.heap_type,
                WasmHeapType::ConcreteArray(EngineOrModuleTypeIndex::Module(2))
            )
        }
        other => panic!("unexpected field {other:?}"),
    }
    assert_eq!(m.sub_types[2].composite.kind(), CompositeKind::Array);

    let f = &m.types[3];
    assert_eq!(
        f.params[0],
        WasmValType::Ref(weft_environ::WasmRefType::new(
            false,
            WasmHeapType::ConcreteStruct(EngineOrModuleTypeIndex::Module(1))
        ))
    );
    assert_eq!(f.results[1].to_string(), "anyref");
    assert_eq!(f.results[2].to_string(), "i31ref");
    // Globals and tables see the kinds too.
    assert!(matches!(
        m.globals[0].ty,
        WasmValType::Ref(r) if r.heap_type == WasmHeapType::ConcreteStruct(EngineOrModuleTypeIndex::Module(0))
    ));
    assert_eq!(
        m.tables[0].element.heap_type,
        WasmHeapType::ConcreteArray(EngineOrModuleTypeIndex::Module(2))
    );
}

#[test]
fn gc_types_need_the_gc_feature() {
    let err = translate(TYPES, false).unwrap_err();
    assert!(err.to_lowercase().contains("gc"), "{err}");
    // Function types alone keep translating as before.
    let m = translate("(module (type (func)) (rec (type (func)) (type (func))))", true).unwrap();
    assert!(!m.has_gc_types());
}

#[test]
fn the_any_hierarchy_is_ordered() {
    use WasmHeapType::*;
    let s = ConcreteStruct(EngineOrModuleTypeIndex::Engine(3));
    let a = ConcreteArray(EngineOrModuleTypeIndex::Engine(4));
    for (sub, sup) in [
        (s, Struct),
        (s, Eq),
        (s, Any),
        (a, Array),
        (I31, Eq),
        (Eq, Any),
        (None, s),
        (None, I31),
    ] {
        assert!(sub.matches(sup), "{sub} <: {sup}");
    }
    for (sub, sup) in [
        (Any, Eq),
        (s, Array),
        (a, Struct),
        (I31, Struct),
        (None, Func),
        (NoFunc, Any),
        (Func, Any),
    ] {
        assert!(!sub.matches(sup), "not {sub} <: {sup}");
    }
    assert!(s.is_gc_heap_word() && !Func.is_gc_heap_word());
    assert_eq!(s.top(), Any);
    assert_eq!(I31.bottom(), None);
}
