use super::*;
use weft_environ::component::abi::{
    self, align_to, flatten_functype, flatten_type, AbiOptions, Context, FlatType, PtrType, MAX_FLAT_PARAMS,
    MAX_FLAT_RESULTS,
};
use weft_environ::component::{Case, DefinedType, Field, FuncType};

/// A memory whose `realloc` is a bump allocator that always moves the
/// allocation (copying its contents), to check that lowering re-reads the
/// pointer `realloc` returns.
struct Bump {
    mem: Vec<u8>,
    next: u32,
    calls: Vec<(u32, u32, u32, u32)>,
}

impl Bump {
    fn new(size: usize) -> Self {
        Bump {
            mem: vec![0; size],
            next: 8,
            calls: Vec::new(),
        }
    }
}

impl LowerMemory for Bump {
    fn memory(&mut self) -> &mut [u8] {
        &mut self.mem
    }

    fn realloc(&mut self, old_ptr: u32, old_size: u32, align: u32, new_size: u32) -> Result<u32> {
        self.calls.push((old_ptr, old_size, align, new_size));
        let ptr = align_to(self.next, align);
        self.next = ptr + new_size;
        anyhow::ensure!(self.next as usize <= self.mem.len(), "out of memory");
        let n = old_size.min(new_size) as usize;
        self.mem
            .copy_within(old_ptr as usize..old_ptr as usize + n, ptr as usize);
        Ok(ptr)
    }
}

fn def(types: &mut ComponentTypes, d: DefinedType) -> InterfaceType {
    InterfaceType::Defined(types.intern_defined(d))
}

fn lift_cx<'a>(types: &'a ComponentTypes, memory: &'a [u8], encoding: StringEncoding) -> LiftContext<'a> {
    LiftContext {
        types,
        memory,
        encoding,
    }
}

/// Stores `val` at an aligned address, then loads it back.
fn through_memory(types: &ComponentTypes, ty: InterfaceType, val: &Val, encoding: StringEncoding) -> Val {
    let mut m = Bump::new(4096);
    let ptr = m
        .realloc(
            0,
            0,
            abi::alignment(types, ty, PtrType::I32),
            abi::elem_size(types, ty, PtrType::I32),
        )
        .unwrap();
    let mut cx = LowerContext {
        types,
        memory: &mut m,
        encoding,
    };
    store(&mut cx, val, ty, ptr).unwrap();
    load(&lift_cx(types, &m.mem, encoding), ty, ptr).unwrap()
}

/// Lowers `val` to flat values, checks their number against
/// `flatten_type`, then lifts it back.
fn through_flat(types: &ComponentTypes, ty: InterfaceType, val: &Val, encoding: StringEncoding) -> Val {
    let mut m = Bump::new(4096);
    let mut cx = LowerContext {
        types,
        memory: &mut m,
        encoding,
    };
    let flat = lower_flat(&mut cx, val, ty).unwrap();
    assert_eq!(flat.len(), flatten_type(types, ty, PtrType::I32).len(), "{ty:?}");
    lift_flat(&lift_cx(types, &m.mem, encoding), ty, &flat).unwrap()
}

fn round_trips(types: &ComponentTypes, ty: InterfaceType, val: Val) {
    for enc in [
        StringEncoding::Utf8,
        StringEncoding::Utf16,
        StringEncoding::CompactUtf16,
    ] {
        assert_eq!(through_memory(types, ty, &val, enc), val, "memory {ty:?} {enc:?}");
        assert_eq!(through_flat(types, ty, &val, enc), val, "flat {ty:?} {enc:?}");
    }
}

fn is_trap<T: std::fmt::Debug>(r: Result<T>) -> String {
    let e = r.unwrap_err().to_string();
    assert!(e.starts_with("wasm trap: "), "{e}");
    e
}

fn is_mismatch<T: std::fmt::Debug>(r: Result<T>) {
    let e = r.unwrap_err().to_string();
    assert!(e.starts_with("type mismatch: "), "{e}");
}

fn b(v: Val) -> Option<Box<Val>> {
    Some(Box::new(v))
}

#[test]
fn primitives_round_trip() {
    use InterfaceType as T;
    let types = ComponentTypes::new();
    let cases = [
        (T::Bool, Val::Bool(true)),
        (T::Bool, Val::Bool(false)),
        (T::S8, Val::S8(-128)),
        (T::U8, Val::U8(255)),
        (T::S16, Val::S16(-2)),
        (T::U16, Val::U16(65535)),
        (T::S32, Val::S32(i32::MIN)),
        (T::U32, Val::U32(u32::MAX)),
        (T::S64, Val::S64(-5)),
        (T::U64, Val::U64(u64::MAX)),
        (T::F32, Val::Float32(-1.5)),
        (T::F64, Val::Float64(1e300)),
        (T::Char, Val::Char('😀')),
        (T::Char, Val::Char('\u{d7ff}')),
        (T::String, Val::String(String::new())),
        (T::String, Val::String("hé 日本 😀".into())),
    ];
    for (ty, val) in cases {
        round_trips(&types, ty, val);
    }
}

#[test]
fn flat_integer_representation() {
    use InterfaceType as T;
    let types = ComponentTypes::new();
    let mut m = Bump::new(16);
    let mut cx = LowerContext {
        types: &types,
        memory: &mut m,
        encoding: StringEncoding::Utf8,
    };
    assert_eq!(lower_flat(&mut cx, &Val::S8(-1), T::S8).unwrap(), [0xffff_ffff]);
    assert_eq!(lower_flat(&mut cx, &Val::S64(-1), T::S64).unwrap(), [u64::MAX]);
    assert_eq!(lower_flat(&mut cx, &Val::Float32(1.0), T::F32).unwrap(), [0x3f80_0000]);
    let lcx = lift_cx(&types, &[], StringEncoding::Utf8);
    // High bits beyond the type's width are ignored; bools are nonzero.
    assert_eq!(lift_flat(&lcx, T::U8, &[0x1_0000_01ff]).unwrap(), Val::U8(0xff));
    assert_eq!(lift_flat(&lcx, T::S16, &[0xffff_8000]).unwrap(), Val::S16(i16::MIN));
    assert_eq!(lift_flat(&lcx, T::Bool, &[7]).unwrap(), Val::Bool(true));
    assert_eq!(lift_flat(&lcx, T::Bool, &[1 << 32]).unwrap(), Val::Bool(false));
    // Wrong numbers of flat values are errors, not panics.
    is_mismatch(lift_flat(&lcx, T::U32, &[]));
    is_mismatch(lift_flat(&lcx, T::U32, &[1, 2]));
    is_mismatch(lift_flat(&lcx, T::String, &[0]));
}

#[test]
fn nan_is_canonicalized() {
    use InterfaceType as T;
    let types = ComponentTypes::new();
    let odd32 = f32::from_bits(0xffc0_1234);
    let odd64 = f64::from_bits(0xfff8_0000_0000_1234);
    let enc = StringEncoding::Utf8;
    let Val::Float32(f) = through_memory(&types, T::F32, &Val::Float32(odd32), enc) else {
        panic!()
    };
    assert_eq!(f.to_bits(), 0x7fc0_0000);
    let Val::Float64(f) = through_flat(&types, T::F64, &Val::Float64(odd64), enc) else {
        panic!()
    };
    assert_eq!(f.to_bits(), 0x7ff8_0000_0000_0000);
    let mem = 0xffc0_1234u32.to_le_bytes();
    let Val::Float32(f) = load(&lift_cx(&types, &mem, StringEncoding::Utf8), T::F32, 0).unwrap() else {
        panic!()
    };
    assert_eq!(f.to_bits(), 0x7fc0_0000);
}

#[test]
fn bool_loads_any_nonzero_byte_as_true() {
    let types = ComponentTypes::new();
    let cx = lift_cx(&types, &[0, 2, 0x80], StringEncoding::Utf8);
    assert_eq!(load(&cx, InterfaceType::Bool, 0).unwrap(), Val::Bool(false));
    assert_eq!(load(&cx, InterfaceType::Bool, 1).unwrap(), Val::Bool(true));
    assert_eq!(load(&cx, InterfaceType::Bool, 2).unwrap(), Val::Bool(true));
}

/// A registry with one type of each kind, nested.
struct Zoo {
    types: ComponentTypes,
    record: InterfaceType,
    tuple: InterfaceType,
    variant: InterfaceType,
    enum_: InterfaceType,
    option: InterfaceType,
    result: InterfaceType,
    result_empty: InterfaceType,
    flags3: InterfaceType,
    flags12: InterfaceType,
    flags40: InterfaceType,
    list_u16: InterfaceType,
    list_string: InterfaceType,
    list_record: InterfaceType,
    fixed: InterfaceType,
    map_u8_string: InterfaceType,
    map_of_maps: InterfaceType,
}

fn zoo() -> Zoo {
    use InterfaceType as T;
    let mut types = ComponentTypes::new();
    let field = |name: &str, ty| Field { name: name.into(), ty };
    let record = def(
        &mut types,
        DefinedType::Record([field("a", T::U8), field("b", T::String), field("c", T::F64)].into()),
    );
    let tuple = def(&mut types, DefinedType::Tuple([T::U8, T::U64, T::Char].into()));
    let case = |name: &str, ty| Case { name: name.into(), ty };
    let variant = def(
        &mut types,
        DefinedType::Variant(
            [
                case("none", None),
                case("f", Some(T::F32)),
                case("n", Some(T::U32)),
                case("big", Some(T::U64)),
                case("d", Some(T::F64)),
                case("rec", Some(record)),
            ]
            .into(),
        ),
    );
    let enum_ = def(
        &mut types,
        DefinedType::Enum(["x".into(), "y".into(), "z".into()].into()),
    );
    let option = def(&mut types, DefinedType::Option(T::String));
    let result = def(
        &mut types,
        DefinedType::Result {
            ok: Some(T::F32),
            err: Some(T::S64),
        },
    );
    let result_empty = def(&mut types, DefinedType::Result { ok: None, err: None });
    let labels = |n: usize| (0..n).map(|i| format!("f{i}")).collect::<Box<[String]>>();
    let flags3 = def(&mut types, DefinedType::Flags(labels(3)));
    let flags12 = def(&mut types, DefinedType::Flags(labels(12)));
    let flags40 = def(&mut types, DefinedType::Flags(labels(40)));
    let list_u16 = def(&mut types, DefinedType::List(T::U16));
    let list_string = def(&mut types, DefinedType::List(T::String));
    let list_record = def(&mut types, DefinedType::List(record));
    let fixed = def(&mut types, DefinedType::FixedLengthList(T::S16, 3));
    let map_u8_string = def(&mut types, DefinedType::Map(T::U8, T::String));
    let map_of_maps = def(&mut types, DefinedType::Map(T::Char, map_u8_string));
    Zoo {
        types,
        record,
        tuple,
        variant,
        enum_,
        option,
        result,
        result_empty,
        flags3,
        flags12,
        flags40,
        list_u16,
        list_string,
        list_record,
        fixed,
        map_u8_string,
        map_of_maps,
    }
}

fn record_val(a: u8, b: &str, c: f64) -> Val {
    Val::Record(vec![
        ("a".into(), Val::U8(a)),
        ("b".into(), Val::String(b.into())),
        ("c".into(), Val::Float64(c)),
    ])
}

#[test]
fn compound_values_round_trip() {
    let z = zoo();
    let flags = |names: &[&str]| Val::Flags(names.iter().map(|s| s.to_string()).collect());
    let cases = vec![
        (z.record, record_val(7, "ab", 2.5)),
        (z.tuple, Val::Tuple(vec![Val::U8(1), Val::U64(1 << 40), Val::Char('x')])),
        (z.variant, Val::Variant("none".into(), None)),
        (z.variant, Val::Variant("f".into(), b(Val::Float32(-0.25)))),
        (z.variant, Val::Variant("n".into(), b(Val::U32(0xdead_beef)))),
        (z.variant, Val::Variant("big".into(), b(Val::U64(u64::MAX)))),
        (z.variant, Val::Variant("d".into(), b(Val::Float64(3.25)))),
        (z.variant, Val::Variant("rec".into(), b(record_val(1, "日本", -1.0)))),
        (z.enum_, Val::Enum("z".into())),
        (z.option, Val::Option(None)),
        (z.option, Val::Option(b(Val::String("some".into())))),
        (z.result, Val::Result(Ok(b(Val::Float32(1.0))))),
        (z.result, Val::Result(Err(b(Val::S64(-9))))),
        (z.result_empty, Val::Result(Ok(None))),
        (z.result_empty, Val::Result(Err(None))),
        (z.flags3, flags(&[])),
        (z.flags3, flags(&["f0", "f2"])),
        (z.flags12, flags(&["f1", "f11"])),
        (z.flags40, flags(&["f0", "f31", "f32", "f39"])),
        (z.list_u16, Val::List(vec![])),
        (z.list_u16, Val::List(vec![Val::U16(1), Val::U16(2), Val::U16(65535)])),
        (
            z.list_string,
            Val::List(vec![Val::String("a".into()), Val::String("é😀".into())]),
        ),
        (
            z.list_record,
            Val::List(vec![record_val(1, "x", 0.5), record_val(2, "yy", 1.5)]),
        ),
        (z.fixed, Val::List(vec![Val::S16(-1), Val::S16(0), Val::S16(1)])),
    ];
    for (ty, val) in cases {
        round_trips(&z.types, ty, val);
    }
}

#[test]
fn maps_round_trip() {
    let z = zoo();
    let s = |x: &str| Val::String(x.into());
    let inner = Val::Map(vec![(Val::U8(1), s("one")), (Val::U8(2), s("twö"))]);
    let cases = [
        (z.map_u8_string, Val::Map(Vec::new())),
        (z.map_u8_string, inner.clone()),
        // Entries keep their order, duplicate keys included.
        (
            z.map_u8_string,
            Val::Map(vec![(Val::U8(9), s("a")), (Val::U8(1), s("b")), (Val::U8(9), s("c"))]),
        ),
        (
            z.map_of_maps,
            Val::Map(vec![(Val::Char('x'), inner), (Val::Char('ÿ'), Val::Map(Vec::new()))]),
        ),
    ];
    for (ty, val) in cases {
        round_trips(&z.types, ty, val);
    }
}

/// A map is stored exactly as the `list<tuple<K, V>>` it despecializes to,
/// and lifts back from that memory as a map.
#[test]
fn maps_are_stored_as_lists_of_tuples() {
    let mut z = zoo();
    let entry = z.types.map_entry(InterfaceType::U8, InterfaceType::String).unwrap();
    let list = def(&mut z.types, DefinedType::List(entry));
    let pairs = [(7u8, "seven"), (0, ""), (7, "again")];
    let map = Val::Map(
        pairs
            .iter()
            .map(|(k, v)| (Val::U8(*k), Val::String((*v).into())))
            .collect(),
    );
    let tuples = Val::List(
        pairs
            .iter()
            .map(|(k, v)| Val::Tuple(vec![Val::U8(*k), Val::String((*v).into())]))
            .collect(),
    );
    let stored = |ty, val: &Val| {
        let mut m = Bump::new(512);
        let mut cx = LowerContext {
            types: &z.types,
            memory: &mut m,
            encoding: StringEncoding::Utf8,
        };
        let flat = lower_flat(&mut cx, val, ty).unwrap();
        (flat, m.mem, m.calls)
    };
    let (map_flat, map_mem, map_calls) = stored(z.map_u8_string, &map);
    let (list_flat, list_mem, list_calls) = stored(list, &tuples);
    assert_eq!(map_flat, list_flat);
    assert_eq!(map_mem, list_mem);
    assert_eq!(map_calls, list_calls);
    // The entries are 12-byte (u8, string) tuples aligned to 4.
    assert_eq!(map_calls.first(), Some(&(0, 0, 4, 36)));
    let cx = lift_cx(&z.types, &map_mem, StringEncoding::Utf8);
    assert_eq!(lift_flat(&cx, z.map_u8_string, &map_flat).unwrap(), map);
    assert_eq!(lift_flat(&cx, list, &map_flat).unwrap(), tuples);
    // A map is not a list, nor a list a map.
    let mut m = Bump::new(512);
    let mut cx = LowerContext {
        types: &z.types,
        memory: &mut m,
        encoding: StringEncoding::Utf8,
    };
    is_mismatch(lower_flat(&mut cx, &tuples, z.map_u8_string));
    is_mismatch(lower_flat(&mut cx, &map, list));
    is_mismatch(lower_flat(
        &mut cx,
        &Val::Map(vec![(Val::U32(1), Val::String("x".into()))]),
        z.map_u8_string,
    ));
}

#[test]
fn memory_layout_matches_the_spec() {
    let z = zoo();
    let mut m = Bump::new(256);
    let mut cx = LowerContext {
        types: &z.types,
        memory: &mut m,
        encoding: StringEncoding::Utf8,
    };
    // variant: u8 discriminant, payload at 8 (f64 alignment).
    store(
        &mut cx,
        &Val::Variant("n".into(), b(Val::U32(0x0403_0201))),
        z.variant,
        64,
    )
    .unwrap();
    assert_eq!(m.mem[64], 2);
    assert_eq!(&m.mem[72..76], &[1, 2, 3, 4]);
    // flags: 12 labels in a u16.
    let mut cx = LowerContext {
        types: &z.types,
        memory: &mut m,
        encoding: StringEncoding::Utf8,
    };
    store(&mut cx, &Val::Flags(vec!["f0".into(), "f9".into()]), z.flags12, 128).unwrap();
    assert_eq!(&m.mem[128..130], &[0x01, 0x02]);
    // A list is (ptr, len) at the value's address.
    let mut cx = LowerContext {
        types: &z.types,
        memory: &mut m,
        encoding: StringEncoding::Utf8,
    };
    store(&mut cx, &Val::List(vec![Val::U16(5)]), z.list_u16, 136).unwrap();
    let ptr = u32::from_le_bytes(m.mem[136..140].try_into().unwrap()) as usize;
    assert_eq!(u32::from_le_bytes(m.mem[140..144].try_into().unwrap()), 1);
    assert_eq!(&m.mem[ptr..ptr + 2], &[5, 0]);
    assert_eq!(m.calls.last(), Some(&(0, 0, 2, 2)));
}

#[test]
fn misaligned_and_out_of_bounds_traps() {
    use InterfaceType as T;
    let z = zoo();
    let mem = [0u8; 16];
    let cx = lift_cx(&z.types, &mem, StringEncoding::Utf8);
    assert!(is_trap(load(&cx, T::U32, 1)).contains("aligned"));
    assert!(is_trap(load(&cx, T::U64, 16)).contains("bounds"));
    is_trap(load(&cx, T::U8, 16));
    is_trap(load(&cx, T::U8, u32::MAX));
    is_trap(load(&cx, z.record, 8));
    is_trap(load(&cx, z.list_u16, u32::MAX - 3));
    let mut m = Bump::new(16);
    let mut lcx = LowerContext {
        types: &z.types,
        memory: &mut m,
        encoding: StringEncoding::Utf8,
    };
    is_trap(store(&mut lcx, &Val::U16(1), T::U16, 3));
    is_trap(store(&mut lcx, &Val::U64(1), T::U64, 16));
    is_trap(store(&mut lcx, &Val::U8(1), T::U8, u32::MAX));
    is_trap(lift_flat_values(&cx, 0, &[T::U64], &[12]));
    is_trap(lift_flat_values(&cx, 0, &[T::U64], &[4]));
}

#[test]
fn list_traps() {
    let z = zoo();
    let mut mem = vec![0u8; 64];
    // A list<u16> of 4 elements at 2: fine. At 1: misaligned. 40 at 2: out of bounds.
    let cx = lift_cx(&z.types, &mem, StringEncoding::Utf8);
    assert_eq!(
        lift_flat(&cx, z.list_u16, &[2, 4]).unwrap(),
        Val::List(vec![Val::U16(0); 4])
    );
    is_trap(lift_flat(&cx, z.list_u16, &[1, 4]));
    is_trap(lift_flat(&cx, z.list_u16, &[2, 40]));
    is_trap(lift_flat(&cx, z.list_u16, &[u64::from(u32::MAX - 1), 1]));
    assert!(is_trap(lift_flat(&cx, z.list_u16, &[0, 1 << 27])).contains("too long"));
    assert!(is_trap(lift_flat(&cx, z.list_u16, &[0, u64::from(u32::MAX)])).contains("too long"));
    // The same through memory: (ptr, len) = (1, 1) at 8.
    mem[8] = 1;
    mem[12] = 1;
    is_trap(load(&lift_cx(&z.types, &mem, StringEncoding::Utf8), z.list_u16, 8));
    // Lists of zero-sized elements are limited in length too.
    let mut types = ComponentTypes::new();
    let unit = def(&mut types, DefinedType::Tuple([].into()));
    let list_unit = def(&mut types, DefinedType::List(unit));
    let cx = lift_cx(&types, &[], StringEncoding::Utf8);
    assert_eq!(
        lift_flat(&cx, list_unit, &[0, 3]).unwrap(),
        Val::List(vec![Val::Tuple(vec![]); 3])
    );
    is_trap(lift_flat(&cx, list_unit, &[0, u64::from(u32::MAX)]));
}

#[test]
fn char_traps() {
    let types = ComponentTypes::new();
    let cx = lift_cx(&types, &[], StringEncoding::Utf8);
    for bad in [0xd800u64, 0xdfff, 0x11_0000, 0xffff_ffff] {
        is_trap(lift_flat(&cx, InterfaceType::Char, &[bad]));
        let mem = (bad as u32).to_le_bytes();
        is_trap(load(
            &lift_cx(&types, &mem, StringEncoding::Utf8),
            InterfaceType::Char,
            0,
        ));
    }
    assert_eq!(
        lift_flat(&cx, InterfaceType::Char, &[0x10_ffff]).unwrap(),
        Val::Char('\u{10ffff}')
    );
}

#[test]
fn discriminant_traps() {
    let z = zoo();
    let cx = lift_cx(&z.types, &[3, 0, 0, 0, 2, 0, 0, 0], StringEncoding::Utf8);
    is_trap(load(&cx, z.enum_, 0));
    is_trap(load(&cx, z.option, 4));
    is_trap(load(&cx, z.result_empty, 4));
    is_trap(lift_flat(&cx, z.enum_, &[3]));
    is_trap(lift_flat(&cx, z.result, &[2, 0]));
    is_trap(lift_flat(&cx, z.variant, &[6, 0, 0, 0, 0]));
    // Discriminants wider than a byte are read whole.
    let mut types = ComponentTypes::new();
    let big = def(
        &mut types,
        DefinedType::Enum((0..300).map(|i| format!("e{i}")).collect()),
    );
    let cx = lift_cx(&types, &[0x2b, 0x01], StringEncoding::Utf8);
    assert_eq!(load(&cx, big, 0).unwrap(), Val::Enum("e299".into()));
    let cx = lift_cx(&types, &[0x2c, 0x01], StringEncoding::Utf8);
    is_trap(load(&cx, big, 0));
    round_trips(&types, big, Val::Enum("e257".into()));
}

#[test]
fn variant_flattening_joins_and_pads() {
    let z = zoo();
    // variant { none, f(f32), n(u32), big(u64), d(f64), rec(record{u8, string, f64}) }:
    // the i32 discriminant, then the join of [f32], [i32], [i64], [f64] and
    // [i32, i32, i32, f64].
    assert_eq!(
        flatten_type(&z.types, z.variant, PtrType::I32),
        [
            FlatType::I32,
            FlatType::I64,
            FlatType::I32,
            FlatType::I32,
            FlatType::F64
        ]
    );
    let mut m = Bump::new(256);
    let mut cx = LowerContext {
        types: &z.types,
        memory: &mut m,
        encoding: StringEncoding::Utf8,
    };
    let f = lower_flat(&mut cx, &Val::Variant("f".into(), b(Val::Float32(1.0))), z.variant).unwrap();
    assert_eq!(f, [1, 0x3f80_0000, 0, 0, 0]);
    let d = lower_flat(&mut cx, &Val::Variant("d".into(), b(Val::Float64(2.0))), z.variant).unwrap();
    assert_eq!(d, [4, 2.0f64.to_bits(), 0, 0, 0]);
    let none = lower_flat(&mut cx, &Val::Variant("none".into(), None), z.variant).unwrap();
    assert_eq!(none, [0, 0, 0, 0, 0]);
    // Lifting an f32 carried in an i64 slot ignores the high bits; the
    // padding values are consumed whatever they are.
    let lcx = lift_cx(&z.types, &[], StringEncoding::Utf8);
    assert_eq!(
        lift_flat(&lcx, z.variant, &[1, 0xffff_ffff_3f80_0000, 99, 99, 99]).unwrap(),
        Val::Variant("f".into(), b(Val::Float32(1.0)))
    );
    assert_eq!(
        lift_flat(&lcx, z.variant, &[2, 0xffff_ffff_0000_0005, 0, 0, 0]).unwrap(),
        Val::Variant("n".into(), b(Val::U32(5)))
    );
    // result<f32, s64>: [i32, i64].
    assert_eq!(
        lift_flat(&lcx, z.result, &[0, 0x4000_0000]).unwrap(),
        Val::Result(Ok(b(Val::Float32(2.0))))
    );
}

#[test]
fn flat_counts_agree_with_flatten_type() {
    let z = zoo();
    for ty in [
        z.record,
        z.tuple,
        z.variant,
        z.enum_,
        z.option,
        z.result,
        z.result_empty,
        z.flags3,
        z.flags40,
        z.list_record,
        z.fixed,
        z.map_u8_string,
        z.map_of_maps,
        InterfaceType::String,
        InterfaceType::F32,
    ] {
        assert_eq!(
            flat::flat_count(&z.types, ty),
            flatten_type(&z.types, ty, PtrType::I32).len(),
            "{ty:?}"
        );
    }
}

/// The registry works out each type's layout and flat types when it is
/// interned; a registry read back from a precompiled component works them
/// out again, to the same facts.
#[test]
fn registry_facts_survive_serialization() {
    let z = zoo();
    let bytes = postcard::to_stdvec(&z.types).unwrap();
    let read: ComponentTypes = postcard::from_bytes(&bytes).unwrap();
    let [defined, ..] = z.types.counts();
    assert!(defined > 10, "the zoo has {defined} defined types");
    for i in 0..defined as u32 {
        let index = weft_environ::component::TypeDefinedIndex(i);
        let ty = InterfaceType::Defined(index);
        assert_eq!(read.value_abi(ty), z.types.value_abi(ty), "{ty:?}");
        assert_eq!(read.defined_abi(index), z.types.defined_abi(index), "{ty:?}");
        assert_eq!(
            read.value_abi(ty).flat_count(),
            flatten_type(&z.types, ty, PtrType::I32).len(),
            "{ty:?}"
        );
    }
}

#[test]
fn mismatched_values_are_errors() {
    use InterfaceType as T;
    let z = zoo();
    let mut m = Bump::new(256);
    let mut cx = LowerContext {
        types: &z.types,
        memory: &mut m,
        encoding: StringEncoding::Utf8,
    };
    is_mismatch(store(&mut cx, &Val::U32(1), T::String, 0));
    is_mismatch(lower_flat(&mut cx, &Val::S8(1), T::U8));
    is_mismatch(lower_flat(
        &mut cx,
        &Val::Record(vec![("a".into(), Val::U8(1))]),
        z.record,
    ));
    let renamed = Val::Record(vec![
        ("a".into(), Val::U8(1)),
        ("x".into(), Val::String(String::new())),
        ("c".into(), Val::Float64(0.0)),
    ]);
    is_mismatch(store(&mut cx, &renamed, z.record, 0));
    is_mismatch(lower_flat(&mut cx, &Val::Enum("w".into()), z.enum_));
    is_mismatch(lower_flat(&mut cx, &Val::Variant("n".into(), None), z.variant));
    is_mismatch(lower_flat(
        &mut cx,
        &Val::Variant("none".into(), b(Val::U32(1))),
        z.variant,
    ));
    is_mismatch(store(&mut cx, &Val::Variant("n".into(), b(Val::U64(1))), z.variant, 0));
    is_mismatch(lower_flat(&mut cx, &Val::Flags(vec!["nope".into()]), z.flags3));
    is_mismatch(lower_flat(&mut cx, &Val::List(vec![Val::S16(1)]), z.fixed));
    is_mismatch(lower_flat(&mut cx, &Val::Result(Ok(None)), z.result));
    is_mismatch(lower_flat(&mut cx, &Val::Option(None), z.result));
    is_mismatch(lower_flat_values(&mut cx, 16, &[Val::U8(1)], &[], None));
    // A handle must be a resource.
    is_mismatch(lower_flat(
        &mut cx,
        &Val::U32(0),
        T::Own(weft_environ::component::TypeResourceIndex(0)),
    ));
    // A type index of another registry.
    let foreign = InterfaceType::Defined(weft_environ::component::TypeDefinedIndex(999));
    is_mismatch(lower_flat(&mut cx, &Val::U8(1), foreign));
    is_mismatch(lift_flat(&lift_cx(&z.types, &[], StringEncoding::Utf8), foreign, &[]));
}

// Strings.

fn lower_string(s: &str, enc: StringEncoding) -> (Bump, u32, u32) {
    let types = ComponentTypes::new();
    let mut m = Bump::new(1024);
    let mut cx = LowerContext {
        types: &types,
        memory: &mut m,
        encoding: enc,
    };
    let flat = lower_flat(&mut cx, &Val::String(s.into()), InterfaceType::String).unwrap();
    let (ptr, len) = (flat[0] as u32, flat[1] as u32);
    let cx = lift_cx(&types, &m.mem, enc);
    assert_eq!(
        lift_flat(&cx, InterfaceType::String, &flat).unwrap(),
        Val::String(s.into())
    );
    (m, ptr, len)
}

fn bytes(m: &Bump, ptr: u32, len: usize) -> &[u8] {
    &m.mem[ptr as usize..ptr as usize + len]
}

#[test]
fn strings_lower_to_utf8() {
    let (m, ptr, len) = lower_string("aé😀", StringEncoding::Utf8);
    assert_eq!(len, 7);
    assert_eq!(bytes(&m, ptr, 7), "aé😀".as_bytes());
    assert_eq!(m.calls, [(0, 0, 1, 7)]);
}

#[test]
fn strings_lower_to_utf16() {
    let (m, ptr, len) = lower_string("aé😀", StringEncoding::Utf16);
    assert_eq!(len, 4);
    assert_eq!(ptr % 2, 0);
    assert_eq!(bytes(&m, ptr, 8), &[0x61, 0, 0xe9, 0, 0x3d, 0xd8, 0x00, 0xde]);
    // Worst case 2 * 7 bytes, then shrunk to 8.
    assert_eq!(m.calls[0], (0, 0, 2, 14));
    assert_eq!((m.calls[1].1, m.calls[1].2, m.calls[1].3), (14, 2, 8));
    let (m, _, len) = lower_string("ab", StringEncoding::Utf16);
    assert_eq!((len, m.calls.len()), (2, 1));
}

#[test]
fn strings_lower_to_latin1_or_utf16() {
    // Latin-1 only: "café" is 5 UTF-8 bytes, 4 Latin-1 bytes: shrunk.
    let (m, ptr, len) = lower_string("café", StringEncoding::CompactUtf16);
    assert_eq!(len, 4);
    assert_eq!(bytes(&m, ptr, 4), &[b'c', b'a', b'f', 0xe9]);
    assert_eq!(m.calls[0], (0, 0, 2, 5));
    assert_eq!((m.calls[1].1, m.calls[1].2, m.calls[1].3), (5, 2, 4));
    // ASCII: exact fit, no shrink.
    let (m, _, len) = lower_string("abc", StringEncoding::CompactUtf16);
    assert_eq!((len, m.calls.len()), (3, 1));
    // Past Latin-1 after a Latin-1 prefix: inflated in place, tagged.
    let (m, ptr, len) = lower_string("é日😀", StringEncoding::CompactUtf16);
    assert_eq!(len, 4 | UTF16_TAG);
    assert_eq!(bytes(&m, ptr, 8), &[0xe9, 0, 0xe5, 0x65, 0x3d, 0xd8, 0x00, 0xde]);
    // 9 UTF-8 bytes: allocate 9, grow to 18, shrink to 8.
    assert_eq!(m.calls.iter().map(|c| c.3).collect::<Vec<_>>(), [9, 18, 8]);
    let (_, _, len) = lower_string("日本", StringEncoding::CompactUtf16);
    assert_eq!(len, 2 | UTF16_TAG);
    let (_, _, len) = lower_string("", StringEncoding::CompactUtf16);
    assert_eq!(len, 0);
}

#[test]
fn strings_lift_from_each_encoding() {
    let types = ComponentTypes::new();
    let lift = |mem: &[u8], enc, ptr: u32, len: u32| {
        lift_flat(
            &lift_cx(&types, mem, enc),
            InterfaceType::String,
            &[u64::from(ptr), u64::from(len)],
        )
    };
    let mut mem = vec![0u8; 32];
    mem[2..6].copy_from_slice(&[0x61, 0, 0xe9, 0]);
    assert_eq!(
        lift(&mem, StringEncoding::Utf16, 2, 2).unwrap(),
        Val::String("aé".into())
    );
    assert_eq!(
        lift(&mem, StringEncoding::CompactUtf16, 2, 2 | UTF16_TAG).unwrap(),
        Val::String("aé".into())
    );
    assert_eq!(
        lift(&mem, StringEncoding::CompactUtf16, 2, 4).unwrap(),
        Val::String("a\0é\0".into())
    );
    // Misaligned UTF-16 and latin1+utf16 (both 2-aligned); UTF-8 is not.
    is_trap(lift(&mem, StringEncoding::Utf16, 3, 1));
    is_trap(lift(&mem, StringEncoding::CompactUtf16, 3, 1));
    assert!(lift(&mem, StringEncoding::Utf8, 3, 1).is_ok());
    // Out of bounds.
    is_trap(lift(&mem, StringEncoding::Utf8, 30, 3));
    is_trap(lift(&mem, StringEncoding::Utf16, 30, 2));
    is_trap(lift(&mem, StringEncoding::Utf8, u32::MAX, 2));
    // Too long (more than 2^28 - 1 bytes), whatever the memory.
    assert!(is_trap(lift(&mem, StringEncoding::Utf8, 0, 1 << 28)).contains("too long"));
    assert!(is_trap(lift(&mem, StringEncoding::Utf16, 0, 1 << 27)).contains("too long"));
    assert!(is_trap(lift(&mem, StringEncoding::CompactUtf16, 0, UTF16_TAG | (1 << 27))).contains("too long"));
    assert!(is_trap(lift(&mem, StringEncoding::CompactUtf16, 0, UTF16_TAG - 1)).contains("too long"));
    is_trap(lift(&mem, StringEncoding::Utf16, 0, u32::MAX));
    // Invalid UTF-8: a lone continuation byte, an overlong encoding, a
    // surrogate, a truncated sequence.
    for bad in [&[0x80u8][..], &[0xc0, 0x80], &[0xed, 0xa0, 0x80], &[0xe6, 0x97]] {
        mem[8..8 + bad.len()].copy_from_slice(bad);
        assert!(is_trap(lift(&mem, StringEncoding::Utf8, 8, bad.len() as u32)).contains("UTF-8"));
    }
    // Unpaired surrogates in UTF-16 (and tagged latin1+utf16).
    for bad in [&[0x00u8, 0xd8][..], &[0x00, 0xdc, 0x61, 0], &[0x00, 0xd8, 0x61, 0]] {
        mem[16..16 + bad.len()].copy_from_slice(bad);
        let units = bad.len() as u32 / 2;
        assert!(is_trap(lift(&mem, StringEncoding::Utf16, 16, units)).contains("UTF-16"));
        is_trap(lift(&mem, StringEncoding::CompactUtf16, 16, units | UTF16_TAG));
    }
    // Through memory: the (ptr, len) pair.
    mem[24..28].copy_from_slice(&2u32.to_le_bytes());
    mem[28..32].copy_from_slice(&(2 | UTF16_TAG).to_le_bytes());
    mem[2..6].copy_from_slice(&[0x61, 0, 0xe9, 0]);
    let cx = lift_cx(&types, &mem, StringEncoding::CompactUtf16);
    assert_eq!(load(&cx, InterfaceType::String, 24).unwrap(), Val::String("aé".into()));
    is_trap(load(&cx, InterfaceType::String, 26));
}

#[test]
fn bad_realloc_results_trap() {
    let types = ComponentTypes::new();
    let mut mem = vec![0u8; 64];
    for (enc, ret) in [
        (StringEncoding::Utf16, 3u32),
        (StringEncoding::CompactUtf16, 1),
        (StringEncoding::Utf8, 62),
        (StringEncoding::Utf8, u32::MAX),
    ] {
        let mut realloc = |_: &mut [u8], _, _, _, _| Ok(ret);
        let mut sm = SliceMemory {
            memory: &mut mem,
            realloc: &mut realloc,
        };
        let mut cx = LowerContext {
            types: &types,
            memory: &mut sm,
            encoding: enc,
        };
        is_trap(lower_flat(&mut cx, &Val::String("abcd".into()), InterfaceType::String));
    }
    // A list<u32> allocation at a misaligned address, and a failing realloc.
    let mut types = ComponentTypes::new();
    let list = def(&mut types, DefinedType::List(InterfaceType::U32));
    let mut realloc = |_: &mut [u8], _, _, _, _| Ok(2);
    let mut sm = SliceMemory {
        memory: &mut mem,
        realloc: &mut realloc,
    };
    let mut cx = LowerContext {
        types: &types,
        memory: &mut sm,
        encoding: StringEncoding::Utf8,
    };
    is_trap(lower_flat(&mut cx, &Val::List(vec![Val::U32(1)]), list));
    let mut realloc = |_: &mut [u8], _, _, _, _| Err(anyhow::anyhow!("guest realloc failed"));
    let mut sm = SliceMemory {
        memory: &mut mem,
        realloc: &mut realloc,
    };
    let mut cx = LowerContext {
        types: &types,
        memory: &mut sm,
        encoding: StringEncoding::Utf8,
    };
    let e = lower_flat(&mut cx, &Val::List(vec![]), list).unwrap_err();
    assert_eq!(e.to_string(), "guest realloc failed");
}

// Spilling.

#[test]
fn params_spill_past_max_flat_params() {
    use InterfaceType as T;
    let z = zoo();
    let func = |n: usize| FuncType {
        is_async: false,
        params: (0..n).map(|i| (format!("p{i}"), T::U32)).collect(),
        result: None,
    };
    for n in [16, 17] {
        let tys = vec![T::U32; n];
        let vals: Vec<Val> = (0..n as u32).map(Val::U32).collect();
        let mut m = Bump::new(256);
        let mut cx = LowerContext {
            types: &z.types,
            memory: &mut m,
            encoding: StringEncoding::Utf8,
        };
        let flat = lower_flat_values(&mut cx, MAX_FLAT_PARAMS, &vals, &tys, None).unwrap();
        let sig = flatten_functype(&z.types, &func(n), AbiOptions::default(), Context::Lift);
        assert_eq!(flat.len(), sig.params.len());
        if n == 17 {
            // One pointer to a tuple of 17 u32s, allocated with realloc.
            assert_eq!(m.calls, [(0, 0, 4, 68)]);
            let ptr = flat[0] as usize;
            assert_eq!(&m.mem[ptr + 64..ptr + 68], &16u32.to_le_bytes());
        }
        let lifted = lift_flat_values(
            &lift_cx(&z.types, &m.mem, StringEncoding::Utf8),
            MAX_FLAT_PARAMS,
            &tys,
            &flat,
        )
        .unwrap();
        assert_eq!(lifted, vals);
    }
}

#[test]
fn results_spill_past_max_flat_results() {
    let z = zoo();
    let tys = [z.record];
    let vals = [record_val(3, "spilled", 0.125)];
    let mut m = Bump::new(256);
    let mut cx = LowerContext {
        types: &z.types,
        memory: &mut m,
        encoding: StringEncoding::Utf16,
    };
    // Lowering into a caller-provided out pointer returns no flat values.
    let out = lower_flat_values(&mut cx, MAX_FLAT_RESULTS, &vals, &tys, Some(128)).unwrap();
    assert!(out.is_empty());
    let cx = lift_cx(&z.types, &m.mem, StringEncoding::Utf16);
    assert_eq!(lift_flat_values(&cx, MAX_FLAT_RESULTS, &tys, &[128]).unwrap(), vals);
    // The out pointer is checked.
    let mut cx = LowerContext {
        types: &z.types,
        memory: &mut m,
        encoding: StringEncoding::Utf16,
    };
    is_trap(lower_flat_values(&mut cx, MAX_FLAT_RESULTS, &vals, &tys, Some(129)));
    is_trap(lower_flat_values(&mut cx, MAX_FLAT_RESULTS, &vals, &tys, Some(248)));
    // A single flat result is returned as is.
    let out = lower_flat_values(
        &mut cx,
        MAX_FLAT_RESULTS,
        &[Val::U64(9)],
        &[InterfaceType::U64],
        Some(0),
    )
    .unwrap();
    assert_eq!(out, [9]);
    // Spilled lifts take exactly one pointer.
    let lcx = lift_cx(&z.types, &m.mem, StringEncoding::Utf16);
    is_mismatch(lift_flat_values(&lcx, MAX_FLAT_RESULTS, &tys, &[128, 0]));
    is_mismatch(lift_flat_values(&lcx, MAX_FLAT_RESULTS, &tys, &[]));
}

#[test]
fn huge_fixed_length_lists_of_empty_elements_trap() {
    let mut types = ComponentTypes::new();
    let unit = def(&mut types, DefinedType::Tuple([].into()));
    let fixed = def(&mut types, DefinedType::FixedLengthList(unit, u32::MAX));
    let cx = lift_cx(&types, &[], StringEncoding::Utf8);
    is_trap(load(&cx, fixed, 0));
    is_trap(lift_flat(&cx, fixed, &[]));
}

/// A small xorshift generator, for the sweep below.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Mostly small values, sometimes anything.
    fn value(&mut self) -> u64 {
        match self.next() % 4 {
            0 => self.next(),
            1 => self.next() % 4,
            _ => self.next() % 72,
        }
    }
}

/// Lifting arbitrary memory and flat values as every type in every encoding
/// never panics, and whatever lifts lowers and lifts back to itself.
#[test]
fn arbitrary_input_never_panics_and_round_trips() {
    let z = zoo();
    let tys = [
        z.record,
        z.tuple,
        z.variant,
        z.enum_,
        z.option,
        z.result,
        z.result_empty,
        z.flags3,
        z.flags12,
        z.flags40,
        z.list_u16,
        z.list_string,
        z.list_record,
        z.fixed,
        z.map_u8_string,
        z.map_of_maps,
        InterfaceType::String,
        InterfaceType::Char,
        InterfaceType::F32,
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut lifted = 0;
    for round in 0..3000 {
        let mut mem = vec![0u8; 72];
        for b in &mut mem {
            *b = rng.value() as u8;
        }
        let ty = tys[round % tys.len()];
        let enc = [
            StringEncoding::Utf8,
            StringEncoding::Utf16,
            StringEncoding::CompactUtf16,
        ][round % 3];
        let cx = lift_cx(&z.types, &mem, enc);
        let n = flatten_type(&z.types, ty, PtrType::I32).len();
        let flat: Vec<u64> = (0..n + (round % 5 == 0) as usize).map(|_| rng.value()).collect();
        let from_flat = lift_flat(&cx, ty, &flat);
        let from_memory = load(&cx, ty, rng.value() as u32);
        for val in [from_flat, from_memory].into_iter().flatten() {
            lifted += 1;
            let back = through_flat(&z.types, ty, &val, enc);
            assert_eq!(format!("{back:?}"), format!("{val:?}"));
            let back = through_memory(&z.types, ty, &val, enc);
            assert_eq!(format!("{back:?}"), format!("{val:?}"));
        }
    }
    assert!(lifted > 300, "{lifted}");
}

fn func(params: &[InterfaceType], result: Option<InterfaceType>) -> FuncType {
    FuncType {
        is_async: false,
        params: params.iter().enumerate().map(|(i, t)| (format!("p{i}"), *t)).collect(),
        result,
    }
}

#[test]
fn function_values_without_spilling() {
    use InterfaceType as T;
    let types = ComponentTypes::new();
    let ty = func(&[T::U32, T::String], Some(T::U64));
    let args = [Val::U32(7), Val::String("hi".into())];
    let mut m = Bump::new(256);
    let mut cx = LowerContext {
        types: &types,
        memory: &mut m,
        encoding: StringEncoding::Utf8,
    };
    let flat = lower_params(&mut cx, &ty, &args).unwrap();
    assert_eq!(flat.len(), 3);
    let results = lower_results(&mut cx, &ty, Some(&Val::U64(5)), &flat).unwrap();
    assert_eq!(results, [5]);
    let lcx = lift_cx(&types, &m.mem, StringEncoding::Utf8);
    assert_eq!(lift_params(&lcx, &ty, &flat).unwrap(), args);
    assert_eq!(lift_results(&lcx, &ty, &results).unwrap(), Some(Val::U64(5)));
    // Wrong numbers of core values.
    is_mismatch(lift_params(&lcx, &ty, &flat[..2]));
    is_mismatch(lift_results(&lcx, &ty, &[]));
    // No result.
    let unit = func(&[], None);
    assert_eq!(lift_results(&lcx, &unit, &[]).unwrap(), None);
    let mut cx = LowerContext {
        types: &types,
        memory: &mut m,
        encoding: StringEncoding::Utf8,
    };
    assert!(lower_results(&mut cx, &unit, None, &[]).unwrap().is_empty());
    is_mismatch(lower_results(&mut cx, &unit, Some(&Val::U8(1)), &[]));
    is_mismatch(lower_params(&mut cx, &ty, &args[..1]));
    // Async functions are not supported yet.
    let async_ty = FuncType {
        is_async: true,
        ..ty.clone()
    };
    let e = lower_params(&mut cx, &async_ty, &args).unwrap_err().to_string();
    assert!(e.starts_with("unsupported: "), "{e}");
}

#[test]
fn function_values_with_spilling() {
    let z = zoo();
    let params = vec![InterfaceType::U32; 17];
    let ty = func(&params, Some(z.record));
    let args: Vec<Val> = (0..17).map(Val::U32).collect();
    let result = record_val(9, "out", 4.0);
    let mut m = Bump::new(512);
    // Calling a lifted function: one pointer to the arguments, allocated.
    let mut cx = LowerContext {
        types: &z.types,
        memory: &mut m,
        encoding: StringEncoding::Utf8,
    };
    let flat = lower_params(&mut cx, &ty, &args).unwrap();
    assert_eq!(flat.len(), 1);
    // Implementing a lowered function: the arguments' pointer, then the
    // pointer to store the result at.
    let out = 256u64;
    let core_params = [flat[0], out];
    let lcx = lift_cx(&z.types, &m.mem, StringEncoding::Utf8);
    assert_eq!(lift_params(&lcx, &ty, &core_params).unwrap(), args);
    let mut cx = LowerContext {
        types: &z.types,
        memory: &mut m,
        encoding: StringEncoding::Utf8,
    };
    assert!(lower_results(&mut cx, &ty, Some(&result), &core_params)
        .unwrap()
        .is_empty());
    // The lifted function returns that pointer.
    let lcx = lift_cx(&z.types, &m.mem, StringEncoding::Utf8);
    assert_eq!(lift_results(&lcx, &ty, &[out]).unwrap(), Some(result.clone()));
    // A misaligned result pointer traps on both sides.
    is_trap(lift_results(&lcx, &ty, &[out + 1]));
    let mut cx = LowerContext {
        types: &z.types,
        memory: &mut m,
        encoding: StringEncoding::Utf8,
    };
    is_trap(lower_results(&mut cx, &ty, Some(&result), &[flat[0], out + 4]));
}

/// Host resource types of the handle-table tests below.
struct Res;
struct Other;

/// A component importing the resource type `r`, with `borrow` (takes a
/// borrow, drops it, returns 7) and `two` (takes two owns, traps).
const HANDLE_TABLE_COMPONENT: &str = r#"(component
    (import "r" (type $r (sub resource)))
    (core func $drop (canon resource.drop $r))
    (core module $m
        (import "" "drop" (func $drop (param i32)))
        (func (export "borrow") (param i32) (result i32)
            (call $drop (local.get 0))
            i32.const 7)
        (func (export "two") (param i32 i32) (result i32) unreachable)
        (func (export "pair") (param i32 i32) (result i32) unreachable))
    (core instance $i (instantiate $m (with "" (instance (export "drop" (func $drop))))))
    (func (export "borrow") (param "x" (borrow $r)) (result u32)
        (canon lift (core func $i "borrow")))
    (func (export "two") (param "x" (own $r)) (param "y" (own $r)) (result u32)
        (canon lift (core func $i "two")))
    (type $pair (record (field "a" (own $r)) (field "b" u32)))
    (export $pair' "pair-type" (type $pair))
    (func (export "pair") (param "x" $pair') (result u32)
        (canon lift (core func $i "pair"))))"#;

/// A store with an instance of [`HANDLE_TABLE_COMPONENT`].
fn handle_table_instance() -> Result<(crate::Store<()>, Instance)> {
    instance_with_resource_r(HANDLE_TABLE_COMPONENT)
}

/// A store with an instance of the component `wat`, whose import `r` is
/// the host resource type [`Res`].
fn instance_with_resource_r(wat: &str) -> Result<(crate::Store<()>, Instance)> {
    let engine = crate::Engine::default();
    let component = Component::new(&engine, wat::parse_str(wat)?)?;
    let mut linker = Linker::<()>::new(&engine);
    linker
        .root()
        .resource("r", ResourceType::host::<Res>(), |_, _| Ok(()))?;
    let mut store = crate::Store::new(&engine, ());
    let instance = linker.instantiate(&mut store, &component)?;
    Ok((store, instance))
}

/// How many handles the host table of `store` holds.
fn host_handles(store: &mut crate::Store<()>) -> usize {
    crate::AsContextMut::as_context_mut(store)
        .components()
        .host_handles
        .len()
}

#[test]
fn handles_made_for_a_typed_calls_parameters_do_not_stay_in_the_host_table() -> Result<()> {
    let (mut store, instance) = handle_table_instance()?;

    // A borrow is lent for the call only.
    let borrow = instance.get_typed_func::<(Resource<Res>,), (u32,)>(&mut store, "borrow")?;
    for _ in 0..3 {
        assert_eq!(borrow.call(&mut store, (Resource::new_borrow(5),))?, (7,));
    }
    assert_eq!(host_handles(&mut store), 0, "the borrows stayed in the host table");

    // The call fails on its first parameter (a handle of another type),
    // before it takes the second, made for the call; the first, which the
    // host made itself, stays the host's.
    let two = instance.get_typed_func::<(ResourceAny, Resource<Res>), (u32,)>(&mut store, "two")?;
    let kept = Resource::<Other>::new_own(1).try_into_resource_any(&mut store)?;
    for _ in 0..2 {
        let err = two.call(&mut store, (kept, Resource::new_own(6))).unwrap_err();
        assert!(format!("{err:#}").contains("another resource type"), "{err:#}");
    }
    assert_eq!(
        host_handles(&mut store),
        1,
        "the second parameter stayed in the host table"
    );
    kept.resource_drop(&mut store)?;
    Ok(())
}

/// A `u32` whose lowering always fails, as a host type's `Lower` may.
struct FailsToLower;

impl ComponentType for FailsToLower {
    fn typecheck(ty: &InterfaceType, types: &typed::InstanceType<'_>) -> Result<()> {
        u32::typecheck(ty, types)
    }
}

impl Lower for FailsToLower {
    fn lower<U: 'static>(&self, _store: &mut crate::StoreContextMut<'_, U>) -> Result<Val> {
        Err(crate::Error::msg("this value cannot be lowered"))
    }
}

/// The record `pair-type` of [`HANDLE_TABLE_COMPONENT`], with a field that
/// fails to lower after one that makes a handle.
#[derive(ComponentType, Lower)]
#[component(record)]
struct Pair {
    a: Resource<Res>,
    b: FailsToLower,
}

#[test]
fn a_derived_record_that_fails_to_lower_releases_the_handles_of_its_fields() -> Result<()> {
    let (mut store, instance) = handle_table_instance()?;
    let pair = instance.get_typed_func::<(Pair,), (u32,)>(&mut store, "pair")?;
    for _ in 0..2 {
        let value = Pair {
            a: Resource::new_own(1),
            b: FailsToLower,
        };
        let err = pair.call(&mut store, (value,)).unwrap_err();
        assert!(format!("{err:#}").contains("cannot be lowered"), "{err:#}");
    }
    assert_eq!(host_handles(&mut store), 0, "field `a` stayed in the host table");
    Ok(())
}

#[test]
fn a_resource_any_kept_after_its_drop_does_not_name_the_handle_that_reuses_its_slot() -> Result<()> {
    let (mut store, instance) = handle_table_instance()?;
    let first = Resource::<Res>::new_own(1).try_into_resource_any(&mut store)?;
    let stale = first;
    first.resource_drop(&mut store)?;
    let second = Resource::<Res>::new_own(2).try_into_resource_any(&mut store)?;
    assert_eq!(second.index, stale.index, "the host table reuses the slot");
    assert_ne!(second, stale);

    // Every use of the stale copy fails, and none touches `second`.
    let dropped = |e: crate::Error| assert!(format!("{e:#}").contains("already dropped"), "{e:#}");
    dropped(Resource::<Res>::try_from_resource_any(stale, &mut store).unwrap_err());
    dropped(stale.resource_drop(&mut store).unwrap_err());
    let two = instance.get_typed_func::<(ResourceAny, Resource<Res>), (u32,)>(&mut store, "two")?;
    dropped(two.call(&mut store, (stale, Resource::new_own(6))).unwrap_err());
    assert_eq!(host_handles(&mut store), 1, "only `second` is left");
    assert_eq!(Resource::<Res>::try_from_resource_any(second, &mut store)?.rep(), 2);

    // A handle moved out of the host table (here into a guest, by a call
    // that then traps) leaves its copies stale too.
    let third = Resource::<Res>::new_own(3).try_into_resource_any(&mut store)?;
    let two = instance.get_typed_func::<(ResourceAny, ResourceAny), (u32,)>(&mut store, "two")?;
    let fourth = Resource::<Res>::new_own(4).try_into_resource_any(&mut store)?;
    assert!(two.call(&mut store, (third, fourth)).is_err(), "the callee traps");
    dropped(third.resource_drop(&mut store).unwrap_err());
    dropped(fourth.resource_drop(&mut store).unwrap_err());
    Ok(())
}

/// Polls `f` (a `run_concurrent`, which never waits for a waker here)
/// until it is ready.
#[cfg(feature = "component-model-async")]
fn poll_to_end<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(out) = std::future::Future::poll(f.as_mut(), &mut cx) {
            return out;
        }
    }
}

#[cfg(feature = "component-model-async")]
#[test]
fn a_concurrent_call_that_never_starts_releases_the_handles_made_for_it() -> Result<()> {
    use crate::AsContextMut as _;
    let (mut store, instance) = handle_table_instance()?;
    let two = instance.get_typed_func::<(Resource<Res>, Resource<Res>), (u32,)>(&mut store, "two")?;
    let borrow = instance.get_typed_func::<(Resource<Res>,), (u32,)>(&mut store, "borrow")?;
    // The first call traps, which leaves the instance unenterable before
    // the second starts: the second fails without taking its borrow.
    let run = store.run_concurrent(async |a| -> Result<_> {
        let (first, second) = a.with(|mut access| -> Result<_> {
            let first =
                two.start_call_concurrent(access.as_context_mut(), (Resource::new_own(1), Resource::new_own(2)))?;
            let second = borrow.start_call_concurrent(access.as_context_mut(), (Resource::new_borrow(3),))?;
            Ok((first, second))
        })?;
        let first = two.finish_call_concurrent(a, first).await;
        let second = borrow.finish_call_concurrent(a, second).await;
        Ok((first.is_err(), second.map_err(|e| format!("{e:#}"))))
    });
    let (first_failed, second) = poll_to_end(run)??;
    assert!(first_failed, "the first call traps");
    let second = second.expect_err("the second call cannot enter the instance");
    assert!(second.contains("trapped"), "{second}");
    assert_eq!(
        host_handles(&mut store),
        0,
        "the unstarted call's borrow stayed in the host table"
    );
    let cx = crate::AsContextMut::as_context_mut(&mut store);
    let tasks = &cx.components().tasks;
    assert_eq!(
        (tasks.live_entries(), tasks.live_threads()),
        (0, 0),
        "the unstarted call's task and thread stayed"
    );
    store.check_concurrent_state()?;
    Ok(())
}

/// `hold(x)` turns backpressure on and waits for nothing (a later `hold`
/// waits to enter); `boom` traps.
#[cfg(feature = "component-model-async")]
const BACKPRESSURE_COMPONENT: &str = r#"(component
    (import "r" (type $r (sub resource)))
    (canon backpressure.inc (core func $bp.inc))
    (canon waitable-set.new (core func $ws.new))
    (core module $m
        (import "" "bp.inc" (func $bp.inc))
        (import "" "ws.new" (func $ws.new (result i32)))
        (func (export "hold") (param i32) (result i32)
            (call $bp.inc)
            (i32.or (i32.const 2) (i32.shl (call $ws.new) (i32.const 4))))
        (func (export "cb") (param i32 i32 i32) (result i32) unreachable)
        (func (export "boom") unreachable))
    (core instance $i (instantiate $m (with "" (instance
        (export "bp.inc" (func $bp.inc))
        (export "ws.new" (func $ws.new))))))
    (func (export "hold") async (param "x" (borrow $r))
        (canon lift (core func $i "hold") async (callback (core func $i "cb"))))
    (func (export "boom") (canon lift (core func $i "boom"))))"#;

#[cfg(feature = "component-model-async")]
#[test]
fn a_concurrent_call_waiting_to_enter_an_instance_that_traps_releases_the_handles_made_for_it() -> Result<()> {
    use crate::AsContextMut as _;
    let (mut store, instance) = instance_with_resource_r(BACKPRESSURE_COMPONENT)?;
    let hold = instance.get_typed_func::<(Resource<Res>,), ()>(&mut store, "hold")?;
    let boom = instance.get_typed_func::<(), ()>(&mut store, "boom")?;
    // The first `hold` starts and waits; the second waits to enter; then
    // `boom` traps, and neither `hold` can go on.
    let run = store.run_concurrent(async |a| -> Result<_> {
        let (first, second, third) = a.with(|mut access| -> Result<_> {
            let first = hold.start_call_concurrent(access.as_context_mut(), (Resource::new_borrow(1),))?;
            let second = hold.start_call_concurrent(access.as_context_mut(), (Resource::new_borrow(2),))?;
            let third = boom.start_call_concurrent(access.as_context_mut(), ())?;
            Ok((first, second, third))
        })?;
        let third = boom.finish_call_concurrent(a, third).await;
        let second = hold.finish_call_concurrent(a, second).await;
        let first = hold.finish_call_concurrent(a, first).await;
        Ok([first, second, third].map(|r| r.map_err(|e| format!("{e:#}"))))
    });
    let outcomes = poll_to_end(run)??;
    let [first, second, third] = outcomes.map(|r| r.expect_err("every call fails"));
    assert!(third.contains("unreachable"), "{third}");
    assert!(first.contains("trapped"), "{first}");
    assert!(second.contains("trapped"), "{second}");
    assert_eq!(
        host_handles(&mut store),
        0,
        "the borrow of the call waiting to enter stayed in the host table"
    );
    // Every reference adds up; what is left is the first `hold`, which had
    // started and stays suspended in the trapped instance until the store
    // is dropped (its task and implicit thread).
    store.check_concurrent_state()?;
    let cx = crate::AsContextMut::as_context_mut(&mut store);
    assert_eq!(
        cx.components().tasks.live_threads(),
        1,
        "only the first call's thread is left"
    );
    Ok(())
}

#[cfg(feature = "component-model-async")]
#[test]
fn handles_made_for_a_concurrent_calls_parameters_do_not_stay_in_the_host_table() -> Result<()> {
    let (mut store, instance) = handle_table_instance()?;
    let borrow = instance.get_typed_func::<(Resource<Res>,), (u32,)>(&mut store, "borrow")?;
    for _ in 0..3 {
        let run = store.run_concurrent(async |a| borrow.call_concurrent(a, (Resource::new_borrow(5),)).await);
        assert_eq!(poll_to_end(run)??, (7,));
    }
    let left = host_handles(&mut store);
    assert_eq!(left, 0, "the borrows stayed in the host table");
    Ok(())
}
