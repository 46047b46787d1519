//! Unit tests of the adapter generator, run against stand-in imports.

use super::*;

use crate::{Engine, Extern, Func, FuncType, Instance, Memory, MemoryType, Module, Store, Val};
use weft_environ::component::ComponentTypes;

/// Runs the adapter of `(param "s" string) -> u32` on `bytes` and says
/// whether the callee was reached (the string was accepted).
fn accepts(bytes: &[u8]) -> bool {
    let types = ComponentTypes::new();
    let ty = weft_environ::component::FuncType {
        is_async: false,
        params: vec![("s".to_string(), InterfaceType::String)].into(),
        result: Some(InterfaceType::U32),
    };
    let side = Side {
        encoding: StringEncoding::Utf8,
        memory: true,
        realloc: true,
    };
    let sides = Sides {
        post_return: false,
        caller: side,
        callee: side,
    };
    let wasm = adapter_module(&types, &ty, sides).expect("strings are adapted");
    let engine = Engine::default();
    let module = Module::new(&engine, wasm).expect("the adapter compiles");
    let mut store = Store::new(&engine, ());
    let caller = Memory::new(&mut store, MemoryType::new(1, None)).unwrap();
    let callee = Memory::new(&mut store, MemoryType::new(1, None)).unwrap();
    caller.data_mut(&mut store)[..bytes.len()].copy_from_slice(bytes);
    let i32s = |n| std::iter::repeat_n(crate::ValType::I32, n);
    let f = Func::new(
        &mut store,
        FuncType::new(&engine, i32s(2), i32s(1)),
        |_, args, results| {
            results[0] = args[1].clone();
            Ok(())
        },
    );
    let enter = Func::new(&mut store, FuncType::new(&engine, [], i32s(1)), |_, _, results| {
        results[0] = Val::I32(0);
        Ok(())
    });
    let exit = Func::new(&mut store, FuncType::new(&engine, i32s(1), []), |_, _, _| Ok(()));
    let realloc = Func::new(&mut store, FuncType::new(&engine, i32s(4), i32s(1)), |_, _, results| {
        results[0] = Val::I32(1024);
        Ok(())
    });
    let externs: Vec<Extern> = module
        .imports()
        .map(|i| match i.name() {
            CALLEE => Extern::Func(f),
            ENTER => Extern::Func(enter),
            EXIT => Extern::Func(exit),
            CALLEE_REALLOC => Extern::Func(realloc),
            CALLER_MEMORY => Extern::Memory(caller),
            CALLEE_MEMORY => Extern::Memory(callee),
            other => panic!("unexpected import {other}"),
        })
        .collect();
    let instance = Instance::new(&mut store, &module, &externs).expect("the adapter instantiates");
    let adapter = instance.get_func(&mut store, ADAPTER).expect("the adapter export");
    let mut out = [Val::I32(0)];
    let ok = adapter
        .call(&mut store, &[Val::I32(0), Val::I32(bytes.len() as i32)], &mut out)
        .is_ok();
    if ok {
        assert_eq!(out[0].i32(), Some(bytes.len() as i32));
        assert_eq!(&callee.data(&store)[1024..1024 + bytes.len()], bytes);
    }
    ok
}

#[test]
fn the_utf8_check_agrees_with_rust() {
    let cases: &[&[u8]] = &[
        b"",
        b"plain ascii",
        "é☃😀".as_bytes(),
        &[0x7f],
        &[0x80],
        &[0xc0, 0x80],
        &[0xc1, 0xbf],
        &[0xc2, 0x80],
        &[0xdf, 0xbf],
        &[0xe0, 0x80, 0x80],
        &[0xe0, 0x9f, 0xbf],
        &[0xe0, 0xa0, 0x80],
        &[0xed, 0x9f, 0xbf],
        &[0xed, 0xa0, 0x80],
        &[0xef, 0xbf, 0xbf],
        &[0xf0, 0x8f, 0xbf, 0xbf],
        &[0xf0, 0x90, 0x80, 0x80],
        &[0xf4, 0x8f, 0xbf, 0xbf],
        &[0xf4, 0x90, 0x80, 0x80],
        &[0xf5, 0x80, 0x80, 0x80],
        &[0xff],
        &[0xe2, 0x98],
        &[0x61, 0xf0, 0x9f, 0x98],
        &[0xc3, 0x28],
    ];
    for bytes in cases {
        assert_eq!(accepts(bytes), std::str::from_utf8(bytes).is_ok(), "{bytes:x?}");
    }
}
