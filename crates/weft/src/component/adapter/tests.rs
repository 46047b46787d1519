//! Unit tests of the adapter generator, run against stand-in imports.

use super::builtins::trap_error;
use crate::component::StringEncoding;
use weft_environ::component::adapter::*;
use weft_environ::component::InterfaceType;

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
        is_async: false,
        callback: false,
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
    let trap = Func::new(&mut store, FuncType::new(&engine, i32s(1), []), |_, params, _| {
        Err(AdapterTrap::from_code(params[0].i32().unwrap_or(-1) as u32)
            .map(trap_error)
            .expect("a known trap code"))
    });
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
            TRAP => Extern::Func(trap),
            CALLEE_REALLOC => Extern::Func(realloc),
            CALLER_MEMORY => Extern::Memory(caller),
            CALLEE_MEMORY => Extern::Memory(callee),
            other => panic!("unexpected import {other}"),
        })
        .collect();
    let instance = Instance::new(&mut store, &module, &externs).expect("the adapter instantiates");
    let adapter = instance.get_func(&mut store, ADAPTER).expect("the adapter export");
    let mut out = [Val::I32(0)];
    let result = adapter.call(&mut store, &[Val::I32(0), Val::I32(bytes.len() as i32)], &mut out);
    if let Err(e) = &result {
        // A rejection is the trap of the UTF-8 check, not a bare `unreachable`.
        assert!(format!("{e:#}").contains("invalid UTF-8"), "{e:#}");
    }
    let ok = result.is_ok();
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

/// Runs `store_string` of `s` (from `src` with `src_units` tagged code
/// units) into a memory of the encoding `dst`, with a bump `realloc` that
/// keeps old contents; returns the `realloc` calls (old pointer, old size,
/// alignment, new size), the result and the bytes it points to.
#[allow(clippy::type_complexity, reason = "a test's realloc callback, spelled out once")]
fn stored(
    s: &str,
    src: StringEncoding,
    src_units: u32,
    dst: StringEncoding,
) -> (Vec<(u32, u32, u32, u32)>, (u32, u32), Vec<u8>) {
    use crate::component::{LowerContext, SliceMemory, UTF16_TAG};
    let types = ComponentTypes::new();
    let mut memory = vec![0u8; 4096];
    let mut calls = Vec::new();
    let mut next = 64u32;
    let mut realloc = |mem: &mut [u8], old: u32, old_size: u32, align: u32, size: u32| {
        calls.push((old, old_size, align, size));
        let p = next.div_ceil(align) * align;
        let keep = old_size.min(size) as usize;
        mem.copy_within(old as usize..old as usize + keep, p as usize);
        next = p + size;
        Ok(p)
    };
    let mut slice = SliceMemory {
        memory: &mut memory,
        realloc: &mut realloc,
    };
    let (ptr, units) = {
        let mut cx = LowerContext {
            types: &types,
            memory: &mut slice,
            encoding: dst,
        };
        crate::component::load_store::store_string(&mut cx, s, src, src_units).expect("the string is stored")
    };
    let bytes = match dst {
        StringEncoding::Utf8 => units as usize,
        StringEncoding::Utf16 => 2 * units as usize,
        StringEncoding::CompactUtf16 if units & UTF16_TAG != 0 => 2 * (units ^ UTF16_TAG) as usize,
        StringEncoding::CompactUtf16 => units as usize,
    };
    let out = memory[ptr as usize..ptr as usize + bytes].to_vec();
    (calls, (ptr, units), out)
}

#[test]
fn transcoding_follows_store_string() {
    use crate::component::UTF16_TAG;
    use StringEncoding::{CompactUtf16, Utf16, Utf8};
    let utf16 = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_le_bytes).collect() };

    // UTF-16 to UTF-8: optimistic, then the worst case (3 per unit), then
    // shrunk.
    let (calls, (p, n), bytes) = stored("aé☃", Utf16, 3, Utf8);
    assert_eq!(calls, [(0, 0, 1, 3), (64, 3, 1, 9), (67, 9, 1, 6)]);
    assert_eq!((p, n), (76, 6));
    assert_eq!(bytes, "aé☃".as_bytes());
    // Latin-1 to UTF-8: worst case 2 per unit, not shrunk when reached.
    let (calls, (_, n), bytes) = stored("é", CompactUtf16, 1, Utf8);
    assert_eq!(calls, [(0, 0, 1, 1), (64, 1, 1, 2)]);
    assert_eq!((n, bytes.as_slice()), (2, "é".as_bytes()));
    // UTF-8 to UTF-16: the worst case, then shrunk.
    let (calls, (_, n), bytes) = stored("é☃", Utf8, 5, Utf16);
    assert_eq!(calls, [(0, 0, 2, 10), (64, 10, 2, 4)]);
    assert_eq!((n, bytes), (2, utf16("é☃")));
    // UTF-8 to latin1+utf16: Latin-1 fits, shrunk to its length.
    let (calls, (_, n), bytes) = stored("aé", Utf8, 3, CompactUtf16);
    assert_eq!(calls, [(0, 0, 2, 3), (64, 3, 2, 2)]);
    assert_eq!((n, bytes.as_slice()), (2, &[0x61, 0xe9][..]));
    // ... or not: inflated to UTF-16 and tagged.
    let (calls, (_, n), bytes) = stored("a☃", Utf8, 4, CompactUtf16);
    assert_eq!(calls, [(0, 0, 2, 4), (64, 4, 2, 8), (68, 8, 2, 4)]);
    assert_eq!((n, bytes), (2 | UTF16_TAG, utf16("a☃")));
    // UTF-16 in latin1+utf16 that fits Latin-1 is deflated.
    let (calls, (_, n), bytes) = stored("ab", CompactUtf16, 2 | UTF16_TAG, CompactUtf16);
    assert_eq!(calls, [(0, 0, 2, 4), (64, 4, 1, 2)]);
    assert_eq!((n, bytes.as_slice()), (2, &b"ab"[..]));
    // ... and stays UTF-16 when it does not.
    let (calls, (_, n), bytes) = stored("☃", CompactUtf16, 1 | UTF16_TAG, CompactUtf16);
    assert_eq!(calls, [(0, 0, 2, 2)]);
    assert_eq!((n, bytes), (1 | UTF16_TAG, utf16("☃")));
    // Latin-1 to latin1+utf16 and UTF-16 to UTF-16 are copies.
    let (calls, (_, n), bytes) = stored("ÿ", CompactUtf16, 1, CompactUtf16);
    assert_eq!(calls, [(0, 0, 2, 1)]);
    assert_eq!((n, bytes.as_slice()), (1, &[0xff][..]));
    let (calls, (_, n), _) = stored("😀", Utf16, 2, Utf16);
    assert_eq!((calls, n), (vec![(0, 0, 2, 4)], 2));
}
