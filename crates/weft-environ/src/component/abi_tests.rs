//! The layout functions against the definitions of `CanonicalABI.md`.

use super::abi::*;
use super::types::*;
use InterfaceType as T;

fn record(types: &mut ComponentTypes, fields: &[T]) -> T {
    let fields = fields
        .iter()
        .enumerate()
        .map(|(i, ty)| Field {
            name: format!("f{i}"),
            ty: *ty,
        })
        .collect();
    T::Defined(types.intern_defined(DefinedType::Record(fields)))
}

fn variant(types: &mut ComponentTypes, cases: &[Option<T>]) -> T {
    let cases = cases
        .iter()
        .enumerate()
        .map(|(i, ty)| Case {
            name: format!("c{i}"),
            ty: *ty,
        })
        .collect();
    T::Defined(types.intern_defined(DefinedType::Variant(cases)))
}

fn defined(types: &mut ComponentTypes, def: DefinedType) -> T {
    T::Defined(types.intern_defined(def))
}

fn flags(types: &mut ComponentTypes, n: usize) -> T {
    defined(types, DefinedType::Flags((0..n).map(|i| format!("f{i}")).collect()))
}

fn layout(types: &ComponentTypes, ty: T) -> (u32, u32) {
    (elem_size(types, ty, PtrType::I32), alignment(types, ty, PtrType::I32))
}

use FlatType::{F32, F64, I32, I64};

#[test]
fn primitives() {
    let types = ComponentTypes::new();
    let cases = [
        (T::Bool, 1, [I32]),
        (T::S8, 1, [I32]),
        (T::U16, 2, [I32]),
        (T::U32, 4, [I32]),
        (T::Char, 4, [I32]),
        (T::S64, 8, [I64]),
        (T::F32, 4, [F32]),
        (T::F64, 8, [F64]),
        (T::ErrorContext, 4, [I32]),
    ];
    for (ty, size, flat) in cases {
        assert_eq!(layout(&types, ty), (size, size), "{ty:?}");
        assert_eq!(flatten_type(&types, ty, PtrType::I32), flat, "{ty:?}");
    }
    assert_eq!(layout(&types, T::String), (8, 4));
    assert_eq!(flatten_type(&types, T::String, PtrType::I32), [I32, I32]);
    assert_eq!(elem_size(&types, T::String, PtrType::I64), 16);
    assert_eq!(alignment(&types, T::String, PtrType::I64), 8);
    assert_eq!(flatten_type(&types, T::String, PtrType::I64), [I64, I64]);
}

#[test]
fn handles_are_i32() {
    let mut types = ComponentTypes::new();
    let r = types.intern_resource(ResourceType::Defined(DefinedResourceIndex(0)));
    for ty in [T::Own(r), T::Borrow(r)] {
        assert_eq!(layout(&types, ty), (4, 4));
        assert_eq!(flatten_type(&types, ty, PtrType::I32), [I32]);
    }
}

#[test]
fn records_are_padded() {
    let mut types = ComponentTypes::new();
    // u8 at 0, u32 at 4: size 8, alignment 4.
    let r = record(&mut types, &[T::U8, T::U32]);
    assert_eq!(layout(&types, r), (8, 4));
    assert_eq!(flatten_type(&types, r, PtrType::I32), [I32, I32]);
    // u8 at 0, u16 at 2, u8 at 4, padded to 6.
    let r = record(&mut types, &[T::U8, T::U16, T::U8]);
    assert_eq!(layout(&types, r), (6, 2));
    // u64 at 0, u8 at 8, padded to 16.
    let r = record(&mut types, &[T::U64, T::U8]);
    assert_eq!(layout(&types, r), (16, 8));
    // A nested record keeps its own padding: {u8, {u8, u32}} is 1 + 3 + 8.
    let inner = record(&mut types, &[T::U8, T::U32]);
    let outer = record(&mut types, &[T::U8, inner]);
    assert_eq!(layout(&types, outer), (12, 4));
    // A tuple is the record of its fields.
    let tuple = defined(&mut types, DefinedType::Tuple([T::U8, T::U32].into()));
    assert_eq!(layout(&types, tuple), (8, 4));
    assert_eq!(despecialize(&types, tuple), Despecialized::Record(vec![T::U8, T::U32]));
    // A string field: pointer-aligned.
    let r = record(&mut types, &[T::U8, T::String]);
    assert_eq!(layout(&types, r), (12, 4));
    assert_eq!(flatten_type(&types, r, PtrType::I32), [I32, I32, I32]);
}

#[test]
fn variants_join_flat_types() {
    let mut types = ComponentTypes::new();
    // option<u8>: u8 discriminant, u8 payload.
    let o = defined(&mut types, DefinedType::Option(T::U8));
    assert_eq!(layout(&types, o), (2, 1));
    assert_eq!(flatten_type(&types, o, PtrType::I32), [I32, I32]);
    assert_eq!(despecialize(&types, o), Despecialized::Variant(vec![None, Some(T::U8)]));
    // option<u64>: payload at 8.
    let o = defined(&mut types, DefinedType::Option(T::U64));
    assert_eq!(layout(&types, o), (16, 8));
    assert_eq!(flatten_type(&types, o, PtrType::I32), [I32, I64]);
    // result<u32, f32>: join(i32, f32) = i32.
    let r = defined(
        &mut types,
        DefinedType::Result {
            ok: Some(T::U32),
            err: Some(T::F32),
        },
    );
    assert_eq!(layout(&types, r), (8, 4));
    assert_eq!(flatten_type(&types, r, PtrType::I32), [I32, I32]);
    // result (no payloads): just the discriminant.
    let r = defined(&mut types, DefinedType::Result { ok: None, err: None });
    assert_eq!(layout(&types, r), (1, 1));
    assert_eq!(flatten_type(&types, r, PtrType::I32), [I32]);
    // variant { f32, u64 }: join(f32, i64) = i64.
    let v = variant(&mut types, &[Some(T::F32), Some(T::U64)]);
    assert_eq!(flatten_type(&types, v, PtrType::I32), [I32, I64]);
    // variant { (f32, f32), f64 }: [join(f32, f64) = i64, f32].
    let pair = defined(&mut types, DefinedType::Tuple([T::F32, T::F32].into()));
    let v = variant(&mut types, &[Some(pair), Some(T::F64), None]);
    assert_eq!(flatten_type(&types, v, PtrType::I32), [I32, I64, F32]);
    assert_eq!(layout(&types, v), (16, 8));
    // variant { f32, f32 } keeps f32.
    let v = variant(&mut types, &[Some(T::F32), Some(T::F32)]);
    assert_eq!(flatten_type(&types, v, PtrType::I32), [I32, F32]);
    // variant { u8, u16 string }: payload at the string's alignment.
    let v = variant(&mut types, &[Some(T::U8), Some(T::String)]);
    assert_eq!(layout(&types, v), (12, 4));
}

#[test]
fn discriminants_grow_with_cases() {
    let mut types = ComponentTypes::new();
    for (cases, size) in [(1, 1), (2, 1), (256, 1), (257, 2), (65536, 2), (65537, 4)] {
        assert_eq!(discriminant_size(cases), size, "{cases} cases");
    }
    let e = defined(
        &mut types,
        DefinedType::Enum((0..257).map(|i| format!("e{i}")).collect()),
    );
    assert_eq!(layout(&types, e), (2, 2));
    assert_eq!(flatten_type(&types, e, PtrType::I32), [I32]);
    let e = defined(&mut types, DefinedType::Enum((0..3).map(|i| format!("e{i}")).collect()));
    assert_eq!(despecialize(&types, e), Despecialized::Variant(vec![None; 3]));
    assert_eq!(layout(&types, e), (1, 1));
}

#[test]
fn flags_layout() {
    let mut types = ComponentTypes::new();
    // 0 and 33 labels are rejected by validation; they keep the layout of
    // the spec's earlier, unbounded definition.
    for (n, size, align, flat) in [
        (0, 0, 1, 0),
        (1, 1, 1, 1),
        (8, 1, 1, 1),
        (9, 2, 2, 1),
        (16, 2, 2, 1),
        (17, 4, 4, 1),
        (32, 4, 4, 1),
        (33, 8, 4, 2),
    ] {
        let f = flags(&mut types, n);
        assert_eq!(layout(&types, f), (size, align), "{n} flags");
        assert_eq!(flatten_type(&types, f, PtrType::I32), vec![I32; flat], "{n} flags");
        assert_eq!(flags_size(n), size);
    }
}

#[test]
fn lists() {
    let mut types = ComponentTypes::new();
    let l = defined(&mut types, DefinedType::List(T::U64));
    assert_eq!(layout(&types, l), (8, 4));
    assert_eq!(flatten_type(&types, l, PtrType::I32), [I32, I32]);
    let f = defined(&mut types, DefinedType::FixedLengthList(T::U16, 3));
    assert_eq!(layout(&types, f), (6, 2));
    assert_eq!(flatten_type(&types, f, PtrType::I32), [I32, I32, I32]);
}

#[test]
fn maps_are_lists_of_tuples() {
    let mut types = ComponentTypes::new();
    for (k, v) in [
        (T::String, T::U32),
        (T::U8, T::U64),
        (T::Char, T::Bool),
        (T::U32, T::String),
    ] {
        let map = defined(&mut types, DefinedType::Map(k, v));
        let entry = types.map_entry(k, v).expect("interning a map interns its entry tuple");
        assert_eq!(entry, defined(&mut types, DefinedType::Tuple(Box::new([k, v]))));
        let list = defined(&mut types, DefinedType::List(entry));
        assert_ne!(map, list, "a map is a type of its own");
        assert_eq!(despecialize(&types, map), Despecialized::List(entry, None));
        for ptr in [PtrType::I32, PtrType::I64] {
            assert_eq!(elem_size(&types, map, ptr), elem_size(&types, list, ptr));
            assert_eq!(alignment(&types, map, ptr), alignment(&types, list, ptr));
            assert_eq!(flatten_type(&types, map, ptr), flatten_type(&types, list, ptr));
        }
        assert_eq!(layout(&types, map), (8, 4));
        assert_eq!(flatten_type(&types, map, PtrType::I32), [I32, I32]);
    }
    // A map of maps: the entry's value is itself a (pointer, length) pair.
    let inner = defined(&mut types, DefinedType::Map(T::String, T::U8));
    let outer = defined(&mut types, DefinedType::Map(T::String, inner));
    let entry = types.map_entry(T::String, inner).expect("entry interned");
    assert_eq!(layout(&types, entry), (16, 4));
    assert_eq!(layout(&types, outer), (8, 4));
}

#[test]
fn map_without_entry_does_not_panic() {
    // A registry built by interning always has the entry; a lookup that
    // misses (another registry's key types) counts as an empty record.
    let types = ComponentTypes::new();
    assert_eq!(types.map_entry(T::U8, T::U8), None);
}

fn func(params: &[T], result: Option<T>) -> FuncType {
    FuncType {
        is_async: false,
        params: params.iter().enumerate().map(|(i, t)| (format!("p{i}"), *t)).collect(),
        result,
    }
}

#[test]
fn functypes_spill_to_memory() {
    let types = ComponentTypes::new();
    let sync = AbiOptions::default();
    let f = func(&[T::U32; 16], Some(T::U64));
    let flat = flatten_functype(&types, &f, sync, Context::Lift);
    assert_eq!(flat.params, vec![I32; 16]);
    assert_eq!(flat.results, [I64]);
    // 17 flat parameters: one pointer.
    let f = func(&[T::U32; 17], None);
    assert_eq!(flatten_functype(&types, &f, sync, Context::Lower).params, [I32]);
    let f = func(&[T::String; 8], None);
    assert_eq!(flatten_functype(&types, &f, sync, Context::Lift).params.len(), 16);
    let f = func(&[T::String; 9], None);
    assert_eq!(flatten_functype(&types, &f, sync, Context::Lift).params, [I32]);
    // A string result is two values: returned through memory.
    let f = func(&[T::U8], Some(T::String));
    let lift = flatten_functype(&types, &f, sync, Context::Lift);
    assert_eq!((lift.params, lift.results), (vec![I32], vec![I32]));
    let lower = flatten_functype(&types, &f, sync, Context::Lower);
    assert_eq!((lower.params, lower.results), (vec![I32, I32], vec![]));
    // 64-bit memories pass 64-bit pointers.
    let mem64 = AbiOptions {
        ptr: PtrType::I64,
        ..sync
    };
    let lower = flatten_functype(&types, &f, mem64, Context::Lower);
    assert_eq!((lower.params, lower.results), (vec![I32, I64], vec![]));
    // Async lowers pass at most 4 values and return a status.
    let is_async = AbiOptions { is_async: true, ..sync };
    let f = func(&[T::U32; 5], Some(T::U32));
    let lower = flatten_functype(&types, &f, is_async, Context::Lower);
    assert_eq!((lower.params, lower.results), (vec![I32, I32], vec![I32]));
    let callback = AbiOptions {
        callback: true,
        ..is_async
    };
    let lift = flatten_functype(&types, &f, callback, Context::Lift);
    assert_eq!((lift.params.len(), lift.results), (5, vec![I32]));
}

#[test]
fn unknown_indices_do_not_panic() {
    let types = ComponentTypes::new();
    let ty = T::Defined(TypeDefinedIndex(99));
    assert_eq!(layout(&types, ty), (0, 1));
    assert!(flatten_type(&types, ty, PtrType::I32).is_empty());
}

#[test]
fn streams_and_futures_are_i32_handles() {
    let mut types = ComponentTypes::new();
    let stream = defined(&mut types, DefinedType::Stream(Some(T::String)));
    let empty_stream = defined(&mut types, DefinedType::Stream(None));
    let future = defined(&mut types, DefinedType::Future(Some(T::U64)));
    for ty in [stream, empty_stream, future] {
        assert_eq!(layout(&types, ty), (4, 4), "{ty:?}");
        assert_eq!(flatten_type(&types, ty, PtrType::I32), [I32], "{ty:?}");
        assert_eq!(flatten_type(&types, ty, PtrType::I64), [I32], "{ty:?}");
    }
    // In a record: like `u32` fields.
    let r = record(&mut types, &[T::U8, future, stream]);
    assert_eq!(layout(&types, r), (12, 4));
    assert_eq!(flatten_type(&types, r, PtrType::I32), [I32, I32, I32]);
}

/// Types whose flattening is longer than the registry keeps of it
/// ([`FLAT_KEPT`]) still flatten whole, and still spill a signature.
#[test]
fn long_flattenings_are_complete() {
    let mut types = ComponentTypes::new();
    let fixed = defined(&mut types, DefinedType::FixedLengthList(T::U32, 20));
    assert_eq!(flatten_type(&types, fixed, PtrType::I32), vec![I32; 20]);
    assert_eq!(types.value_abi(fixed).flat_count(), 20);
    assert_eq!(types.value_abi(fixed).flat(PtrType::I32).len(), FLAT_KEPT);

    let rec = record(&mut types, &[fixed, T::F64]);
    let mut expected = vec![I32; 20];
    expected.push(F64);
    assert_eq!(flatten_type(&types, rec, PtrType::I32), expected);
    assert_eq!(layout(&types, rec), (88, 8));

    // The payloads join position by position: `f64` against `u32` is `i64`.
    let var = variant(&mut types, &[Some(fixed), Some(T::F64), None]);
    let mut expected = vec![I32, I64];
    expected.extend(vec![I32; 19]);
    assert_eq!(flatten_type(&types, var, PtrType::I32), expected);
    assert_eq!(types.value_abi(var).flat_count(), 21);
    assert_eq!(layout(&types, var), (88, 8));

    let sig = flatten_functype(
        &types,
        &func(&[fixed], Some(fixed)),
        AbiOptions::default(),
        Context::Lower,
    );
    assert_eq!(sig.params, [I32, I32]);
    assert!(sig.results.is_empty());

    // A hundred-thousand-element list keeps a bounded prefix.
    let huge = defined(&mut types, DefinedType::FixedLengthList(T::U8, 100_000));
    assert_eq!(types.value_abi(huge).flat_count(), 100_000);
    assert_eq!(layout(&types, huge), (100_000, 1));
    let sig = flatten_functype(&types, &func(&[huge], None), AbiOptions::default(), Context::Lift);
    assert_eq!(sig.params, [I32]);
}

/// The registry's facts of a record give each field's offset, and those of
/// a variant the payload's offset, for both pointer sizes.
#[test]
fn offsets_of_fields_and_payloads() {
    let mut types = ComponentTypes::new();
    let rec = record(&mut types, &[T::U8, T::String, T::U16, T::F64]);
    let T::Defined(index) = rec else { unreachable!() };
    let abi = types.defined_abi(index).unwrap();
    assert_eq!(abi.field_offsets(PtrType::I32), [0, 4, 12, 16]);
    assert_eq!(abi.field_offsets(PtrType::I64), [0, 8, 24, 32]);
    let var = variant(&mut types, &[None, Some(T::String)]);
    let T::Defined(index) = var else { unreachable!() };
    let abi = types.defined_abi(index).unwrap();
    assert_eq!(abi.payload_offset(PtrType::I32), 4);
    assert_eq!(abi.payload_offset(PtrType::I64), 8);
    assert!(abi.field_offsets(PtrType::I32).is_empty());
}
