//! The plans of small hand-written components.

#![cfg(feature = "component-model")]

use weft_environ::component::*;
use weft_environ::EntityIndex;

fn translate(wat: &str) -> (Vec<Vec<u8>>, Component, ComponentTypes) {
    let bytes = wat::parse_str(wat).expect("valid text");
    let t = translate_component(&bytes, supported_component_features()).expect("translates");
    let modules = t.modules.iter().map(|m| m.bytes.to_vec()).collect();
    (modules, t.component, t.types)
}

fn lifts(c: &Component) -> Vec<&Step> {
    c.steps.iter().filter(|s| matches!(s, Step::Lift { .. })).collect()
}

#[test]
fn one_module_lifting_a_function() {
    let (modules, c, types) = translate(
        r#"(component
            (core module $m
              (memory (export "mem") 1)
              (func (export "f") (param i32 i32) (result i32) local.get 0)
              (func (export "realloc") (param i32 i32 i32 i32) (result i32) i32.const 0)
              (func (export "post") (param i32)))
            (core instance $i (instantiate $m))
            (func (export "f") (param "s" string) (result u32)
              (canon lift (core func $i "f") (memory (core memory $i "mem")) (realloc (core func $i "realloc"))
                (post-return (core func $i "post")) string-encoding=utf16)))"#,
    );
    assert_eq!(modules.len(), 1);
    assert_eq!(c.num_core_instances, 1);
    assert!(c.imports.is_empty());
    let Step::InstantiateModule { module, args, .. } = &c.steps[0] else {
        panic!("{:?}", c.steps)
    };
    assert_eq!(*module, ModuleRef::Static(StaticModuleIndex(0)));
    assert!(args.is_empty());
    let alias = |name: &str| {
        c.steps.iter().find_map(|s| match s {
            Step::AliasExport {
                item, name: n, index, ..
            } if n == name => Some((*item, *index)),
            _ => None,
        })
    };
    let (f, f_index) = alias("f").expect("f aliased");
    assert_eq!(f_index, Some(EntityIndex::Function(0)));
    let Step::Lift {
        func,
        core_func,
        ty,
        options,
    } = lifts(&c)[0].clone()
    else {
        unreachable!()
    };
    assert_eq!(core_func, f);
    assert_eq!(options.memory, Some(alias("mem").unwrap().0));
    assert_eq!(options.realloc, Some(alias("realloc").unwrap().0));
    assert_eq!(options.post_return, Some(alias("post").unwrap().0));
    assert_eq!(options.string_encoding, StringEncoding::Utf16);
    let fty = types.func(ty).unwrap();
    assert_eq!(fty.params[..], [("s".to_string(), InterfaceType::String)]);
    assert_eq!(fty.result, Some(InterfaceType::U32));
    assert_eq!(c.exports, vec![("f".to_string(), Export::LiftedFunction { func, ty })]);
}

/// Component `$a` lifts `f`; component `$b` imports a function, lowers it
/// and calls it from its core module; the root wires `$a`'s export into `$b`.
#[test]
fn nested_components_lower_a_lifted_function() {
    let (modules, c, _) = translate(
        r#"(component
            (component $a
              (core module $m
                (memory (export "mem") 1)
                (func (export "f") (param i32) (result i32) local.get 0))
              (core instance $i (instantiate $m))
              (func (export "f") (param "x" u32) (result u32)
                (canon lift (core func $i "f") (memory (core memory $i "mem")))))
            (component $b
              (import "f" (func $f (param "x" u32) (result u32)))
              (core module $libc (memory (export "mem") 1))
              (core instance $libc (instantiate $libc))
              (core func $f (canon lower (func $f) (memory (core memory $libc "mem")) string-encoding=latin1+utf16))
              (core module $m
                (import "host" "f" (func (param i32) (result i32)))
                (func (export "run") (result i32) i32.const 7 call 0))
              (core instance $i (instantiate $m (with "host" (instance (export "f" (func $f))))))
              (func (export "run") (result u32) (canon lift (core func $i "run"))))
            (instance $a (instantiate $a))
            (instance $b (instantiate $b (with "f" (func $a "f"))))
            (export "run" (func $b "run")))"#,
    );
    assert_eq!(modules.len(), 3);
    assert_eq!(c.num_component_instances, 3);
    let lower = c
        .steps
        .iter()
        .find_map(|s| match s {
            Step::Lower {
                item, callee, options, ..
            } => Some((*item, callee.clone(), options.clone())),
            _ => None,
        })
        .expect("a lower step");
    let (
        lowered,
        LowerCallee::Lifted {
            func,
            core_func,
            options: callee,
        },
        caller,
    ) = lower
    else {
        panic!("expected a component-to-component lower: {lower:?}")
    };
    // The callee's options are those of `$a`'s lift, the caller's `$b`'s.
    let Some(Step::Lift {
        core_func: lifted_core,
        options: lift_options,
        ..
    }) = c.lift(func)
    else {
        panic!("no lift for {func:?}")
    };
    assert_eq!(*lifted_core, core_func);
    assert_eq!(*lift_options, callee);
    assert_eq!(callee.instance, ComponentInstanceIndex(1));
    assert_eq!(caller.instance, ComponentInstanceIndex(2));
    assert!(callee.memory.is_some() && caller.memory.is_some());
    assert_ne!(callee.memory, caller.memory);
    assert_eq!(caller.string_encoding, StringEncoding::CompactUtf16);
    assert_eq!(callee.string_encoding, StringEncoding::Utf8);
    // `$b`'s module is instantiated with the lowered function.
    let instantiated_with_lower = c.steps.iter().any(|s| {
        matches!(s, Step::InstantiateModule { args, component_instance, .. }
            if args[..] == [lowered] && *component_instance == ComponentInstanceIndex(2))
    });
    assert!(instantiated_with_lower, "{:#?}", c.steps);
    // The root exports `$b`'s lifted `run`.
    let [(name, Export::LiftedFunction { func: run, .. })] = &c.exports[..] else {
        panic!("{:?}", c.exports)
    };
    assert_eq!(name, "run");
    let Some(Step::Lift { options, .. }) = c.lift(*run) else {
        panic!()
    };
    assert_eq!(options.instance, ComponentInstanceIndex(2));
}

#[test]
fn resources_new_drop_rep() {
    let (_, c, types) = translate(
        r#"(component
            (core module $d (func (export "dtor") (param i32)))
            (core instance $d (instantiate $d))
            (type $r (resource (rep i32) (dtor (core func $d "dtor"))))
            (core func $new (canon resource.new $r))
            (core func $drop (canon resource.drop $r))
            (core func $rep (canon resource.rep $r))
            (core module $m
              (import "" "new" (func (param i32) (result i32)))
              (import "" "drop" (func (param i32)))
              (import "" "rep" (func (param i32) (result i32)))
              (func (export "make") (result i32) i32.const 42 call 0))
            (core instance $i (instantiate $m (with "" (instance
              (export "new" (func $new)) (export "drop" (func $drop)) (export "rep" (func $rep))))))
            (export $R "r" (type $r))
            (func (export "make") (result (own $R)) (canon lift (core func $i "make"))))"#,
    );
    let Some(Step::DefineResource {
        resource,
        ty,
        dtor,
        instance,
        ..
    }) = c.steps.iter().find(|s| matches!(s, Step::DefineResource { .. }))
    else {
        panic!("no resource defined: {:?}", c.steps)
    };
    assert_eq!(*resource, DefinedResourceIndex(0));
    assert_eq!(
        types.resource(*ty),
        Some(&ResourceType::Defined(DefinedResourceIndex(0)))
    );
    assert_eq!(*instance, ComponentInstanceIndex(0));
    assert!(dtor.is_some());
    let mut intrinsics = Vec::new();
    for s in &c.steps {
        match s {
            Step::ResourceNew { item, resource, .. } => intrinsics.push(("new", *item, *resource)),
            Step::ResourceDrop { item, resource, .. } => intrinsics.push(("drop", *item, *resource)),
            Step::ResourceRep { item, resource, .. } => intrinsics.push(("rep", *item, *resource)),
            _ => {}
        }
    }
    assert_eq!(
        intrinsics.iter().map(|i| i.0).collect::<Vec<_>>(),
        ["new", "drop", "rep"]
    );
    assert!(intrinsics.iter().all(|i| i.2 == *ty));
    let Some(Step::InstantiateModule { args, .. }) = c
        .steps
        .iter()
        .rev()
        .find(|s| matches!(s, Step::InstantiateModule { .. }))
    else {
        panic!()
    };
    assert_eq!(args[..], intrinsics.iter().map(|i| i.1).collect::<Vec<_>>()[..]);
    let Some((_, Export::LiftedFunction { ty: fty, .. })) = c.exports.iter().find(|e| e.0 == "make") else {
        panic!()
    };
    assert_eq!(types.func(*fty).unwrap().result, Some(InterfaceType::Own(*ty)));
    assert!(c
        .exports
        .contains(&("r".to_string(), Export::Type(AnyType::Resource(*ty)))));
}

/// A resource defined in a nested component is a new resource type per
/// instantiation of that component.
#[test]
fn each_instantiation_defines_its_own_resource() {
    let (_, c, types) = translate(
        r#"(component
            (component $c
              (type $r (resource (rep i32)))
              (export "r" (type $r)))
            (instance $one (instantiate $c))
            (instance $two (instantiate $c))
            (export "one" (instance $one))
            (export "two" (instance $two)))"#,
    );
    assert_eq!(c.num_defined_resources, 2);
    let resource_of = |name: &str| match c.exports.iter().find(|e| e.0 == name) {
        Some((_, Export::Instance(items))) => match &items[..] {
            [(_, Export::Type(AnyType::Resource(r)))] => *r,
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    };
    let (one, two) = (resource_of("one"), resource_of("two"));
    assert_ne!(one, two);
    assert_eq!(
        types.resource(one),
        Some(&ResourceType::Defined(DefinedResourceIndex(0)))
    );
    assert_eq!(
        types.resource(two),
        Some(&ResourceType::Defined(DefinedResourceIndex(1)))
    );
}

#[test]
fn outer_aliases_reach_the_enclosing_component() {
    let (modules, c, types) = translate(
        r#"(component $outer
            (core module $m (func (export "f") (result i32) i32.const 1))
            (type $t (func (result u32)))
            (type $rec (record (field "a" u8) (field "b" u32)))
            (component $inner
              (alias outer $outer $m (core module $m))
              (alias outer $outer $t (type $t))
              (core instance $i (instantiate $m))
              (func (export "f") (type $t) (canon lift (core func $i "f"))))
            (instance $x (instantiate $inner))
            (export "f" (func $x "f"))
            (export "rec" (type $rec)))"#,
    );
    assert_eq!(modules.len(), 1);
    let Some(Step::InstantiateModule {
        module,
        component_instance,
        ..
    }) = c.steps.first()
    else {
        panic!()
    };
    assert_eq!(*module, ModuleRef::Static(StaticModuleIndex(0)));
    assert_eq!(*component_instance, ComponentInstanceIndex(1));
    let Some((_, Export::LiftedFunction { ty, .. })) = c.exports.iter().find(|e| e.0 == "f") else {
        panic!()
    };
    assert_eq!(types.func(*ty).unwrap().result, Some(InterfaceType::U32));
    // The same function type written again interns to the same index.
    let mut types2 = types.clone();
    let again = types2.intern_func(FuncType {
        is_async: false,
        params: Box::new([]),
        result: Some(InterfaceType::U32),
    });
    assert_eq!(again, *ty);
}

#[test]
fn imported_instance_resources_get_import_identities() {
    let (_, c, types) = translate(
        r#"(component
            (import "host" (instance $h
              (export "r" (type $r (sub resource)))
              (export "take" (func (param "x" (own $r))))))
            (alias export $h "r" (type $r))
            (alias export $h "take" (func $take))
            (core func $take (canon lower (func $take)))
            (core module $m (import "" "take" (func (param i32))))
            (core instance (instantiate $m (with "" (instance (export "take" (func $take))))))
            (export "r2" (type $r)))"#,
    );
    assert_eq!(c.imports.len(), 1);
    assert_eq!(c.imported_resources.len(), 1);
    let imported = &c.imported_resources[0];
    assert_eq!(imported.at.import, ImportIndex(0));
    assert_eq!(&imported.at.path[..], ["r".to_string()]);
    assert_eq!(
        types.resource(imported.ty),
        Some(&ResourceType::Imported(ImportedResourceIndex(0)))
    );
    let Some(Step::Lower {
        callee: LowerCallee::Import(import),
        ty,
        ..
    }) = c.steps.iter().find(|s| matches!(s, Step::Lower { .. }))
    else {
        panic!("{:?}", c.steps)
    };
    let at = &c.runtime_imports[import.0 as usize];
    assert_eq!(&at.path[..], ["take".to_string()]);
    assert_eq!(types.func(*ty).unwrap().params[0].1, InterfaceType::Own(imported.ty));
    assert_eq!(
        c.exports,
        vec![("r2".to_string(), Export::Type(AnyType::Resource(imported.ty)))]
    );
    // The import's recorded type names the imported identity too.
    let ItemType::Instance(ity) = c.imports[0].ty else {
        panic!()
    };
    let itype = types.instance(ity).unwrap();
    assert_eq!(itype.export("r"), Some(ItemType::Type(AnyType::Resource(imported.ty))));
}

#[test]
fn errors_carry_offsets_and_name_what_is_unsupported() {
    let module = wat::parse_str("(module)").unwrap();
    let err = translate_component(&module, supported_component_features())
        .err()
        .unwrap();
    assert!(err.message.contains("expected a component"), "{err}");

    let mut bytes = wat::parse_str("(component (core module))").unwrap();
    bytes.truncate(bytes.len() - 1);
    let err = translate_component(&bytes, supported_component_features())
        .err()
        .unwrap();
    assert!(err.offset > 0, "{err}");

    let bytes = wat::parse_str(
        r#"(component
            (core module $m (func (export "f") (result i32) i32.const 0))
            (core instance $i (instantiate $m))
            (type $s (stream u8))
            (func $f (result $s) (canon lift (core func $i "f"))))"#,
    )
    .unwrap();
    // Without the async features, `stream` is a proposal not enabled.
    let err = translate_component(&bytes, supported_component_features())
        .err()
        .unwrap();
    assert!(err.message.starts_with("unsupported: "), "{err}");
    assert!(err.message.contains("async"), "{err}");
    // With them, it is a defined type.
    let features = supported_component_features() | async_component_features();
    let t = translate_component(&bytes, features).unwrap();
    let Some(Step::Lift { ty, .. }) = t.component.steps.iter().find(|s| matches!(s, Step::Lift { .. })) else {
        panic!("no lift");
    };
    let Some(InterfaceType::Defined(d)) = t.types.func(*ty).unwrap().result else {
        panic!("the result is not a defined type");
    };
    assert_eq!(t.types.defined(d), Some(&DefinedType::Stream(Some(InterfaceType::U8))));
}

#[test]
fn async_builtins_become_builtin_steps() {
    let bytes = wat::parse_str(
        r#"(component
            (core module $mem (memory (export "m") 1))
            (core instance $mi (instantiate $mem))
            (type $f (future u32))
            (canon task.return (result u32) (core func $ret))
            (canon context.get i32 1 (core func $get))
            (canon waitable-set.poll (memory (core memory $mi "m")) (core func $poll))
            (canon future.new $f (core func $new))
            (canon thread.yield (core func $yield)))"#,
    )
    .unwrap();
    let features = supported_component_features() | async_component_features();
    let t = translate_component(&bytes, features).unwrap();
    let builtins: Vec<&Builtin> = t
        .component
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Builtin { builtin, .. } => Some(builtin),
            _ => None,
        })
        .collect();
    let names: Vec<&str> = builtins.iter().map(|b| b.name()).collect();
    assert_eq!(
        names,
        [
            "task.return",
            "context.get",
            "waitable-set.poll",
            "future.new",
            "thread.yield"
        ]
    );
    assert!(matches!(
        builtins[0],
        Builtin::TaskReturn {
            result: Some(InterfaceType::U32),
            ..
        }
    ));
    assert_eq!(builtins[1], &Builtin::ContextGet(1));
    use weft_environ::component::abi::FlatType::{I32, I64};
    assert_eq!(builtins[0].signature(&t.types), (vec![I32], vec![]));
    assert_eq!(builtins[2].signature(&t.types), (vec![I32, I32], vec![I32]));
    assert_eq!(builtins[3].signature(&t.types), (vec![], vec![I64]));
}

/// A component whose own core type definitions use GC's syntax (a non-final
/// `sub` function type) translates; a core module that uses GC does not,
/// with GC off (as `Config` has it by default).
#[test]
fn gc_type_syntax_is_accepted_outside_core_modules_only() {
    let (modules, _, _) = translate(
        r#"(component
            (core type $f (sub (func)))
            (core module $m (func (export "f"))))"#,
    );
    assert_eq!(modules.len(), 1);
    let bytes = wat::parse_str(
        r#"(component
            (core type $f (sub (func)))
            (core module $m (type $s (struct)) (func (export "f") (result (ref null $s)) ref.null $s)))"#,
    )
    .expect("valid text");
    let without_gc = supported_component_features() - wasmparser::WasmFeatures::GC;
    let err = translate_component(&bytes, without_gc)
        .err()
        .expect("a module using GC is refused");
    assert!(err.message.contains("gc"), "{}", err.message);
}
