//! Fused adapters: core wasm modules, generated with `wasm-encoder` and
//! compiled like any module, through which one component calls a function
//! lifted by another component of the same plan without the host lifting
//! and lowering the values in between.
//!
//! An adapter exports one function with the caller's lowered core
//! signature. It calls `enter` (a host built-in that checks and clears the
//! callee instance's `may_enter` flag and checks the caller's `may_leave`),
//! converts each argument as lifting from the caller and lowering into the
//! callee would (truncating narrow integers, normalizing `bool`s, checking
//! `char`s and enum discriminants, trapping with `unreachable` on invalid
//! input), calls the callee's core function, converts the result the same
//! way, calls the callee's `post-return` with the callee's result, then
//! `exit` (which sets `may_enter` again).
//!
//! Adapted so far: parameters and results that are scalars (numbers,
//! `bool`, `char`, enums: one flat value each; flags, their unknown bits
//! dropped), records and tuples of
//! them passed as flat values, variants, options and results of them passed
//! flat (as parameters), records and tuples of scalars returned in memory
//! (field by field between the two return areas), strings when both sides
//! use UTF-8 (validated, then copied from one memory to the other after the
//! receiving side's `realloc`), and lists of scalars or of records of
//! scalars (checked the same way; integers copied as bytes, other elements
//! field by field, each field converted); a string or list result comes back through the callee's
//! return area and the caller's return pointer. Signatures that spill their
//! parameters, other encodings, other lists, records, variants and
//! resources go through Rust (`instance.rs`).

use wasm_encoder::{
    CodeSection, EntityType, ExportKind, ExportSection, Function, FunctionSection, ImportSection, Instruction,
    Module as Encoder, TypeSection, ValType,
};
use weft_environ::component::abi::{self, AbiOptions, Context, FlatType};
use weft_environ::component::{ComponentTypes, DefinedType, FuncType, InterfaceType};

/// Import names of an adapter module (module `""`).
pub(crate) const CALLEE: &str = "callee";
pub(crate) const ENTER: &str = "enter";
pub(crate) const EXIT: &str = "exit";
pub(crate) const POST_RETURN: &str = "post-return";
pub(crate) const CALLER_MEMORY: &str = "caller-memory";
pub(crate) const CALLEE_MEMORY: &str = "callee-memory";
pub(crate) const CALLER_REALLOC: &str = "caller-realloc";
pub(crate) const CALLEE_REALLOC: &str = "callee-realloc";

/// The longest string the canonical ABI moves, in bytes.
const MAX_STRING_BYTE_LENGTH: i32 = (1 << 28) - 1;
/// The adapter's export.
pub(crate) const ADAPTER: &str = "adapter";

/// How one scalar is converted on its way across.
#[derive(Clone, Copy)]
enum Conversion {
    None,
    Bool,
    Mask(i32),
    SignExtend8,
    SignExtend16,
    Char,
    Discriminant(u32),
    CanonF32,
    CanonF64,
}

fn conversion(types: &ComponentTypes, ty: InterfaceType) -> Option<Conversion> {
    use InterfaceType as I;
    Some(match ty {
        I::Bool => Conversion::Bool,
        I::U8 => Conversion::Mask(0xff),
        I::U16 => Conversion::Mask(0xffff),
        I::S8 => Conversion::SignExtend8,
        I::S16 => Conversion::SignExtend16,
        I::U32 | I::S32 | I::U64 | I::S64 => Conversion::None,
        I::F32 => Conversion::CanonF32,
        I::F64 => Conversion::CanonF64,
        I::Char => Conversion::Char,
        I::Defined(d) => match types.defined(d)? {
            DefinedType::Enum(cases) if !cases.is_empty() && cases.len() <= 256 => {
                Conversion::Discriminant(cases.len() as u32)
            }
            _ => return None,
        },
        _ => return None,
    })
}

fn val_type(t: FlatType) -> ValType {
    match t {
        FlatType::I32 => ValType::I32,
        FlatType::I64 => ValType::I64,
        FlatType::F32 => ValType::F32,
        FlatType::F64 => ValType::F64,
    }
}

/// Locals of the adapter function after its parameters.
struct Scratch {
    i32: u32,
    f32: u32,
    f64: u32,
    result: u32,
    out: u32,
}

/// Emits the conversion of the value on top of the stack.
fn convert(f: &mut Function, c: Conversion, s: &Scratch) {
    use Instruction as W;
    match c {
        Conversion::None => {}
        Conversion::Bool => {
            f.instruction(&W::I32Const(0));
            f.instruction(&W::I32Ne);
        }
        Conversion::Mask(m) => {
            f.instruction(&W::I32Const(m));
            f.instruction(&W::I32And);
        }
        Conversion::SignExtend8 => {
            f.instruction(&W::I32Extend8S);
        }
        Conversion::SignExtend16 => {
            f.instruction(&W::I32Extend16S);
        }
        Conversion::Char => {
            // Trap on surrogates and on values past U+10FFFF.
            f.instruction(&W::LocalTee(s.i32));
            f.instruction(&W::I32Const(0x110000));
            f.instruction(&W::I32GeU);
            f.instruction(&W::LocalGet(s.i32));
            f.instruction(&W::I32Const(0xd800));
            f.instruction(&W::I32Sub);
            f.instruction(&W::I32Const(0x800));
            f.instruction(&W::I32LtU);
            f.instruction(&W::I32Or);
            f.instruction(&W::If(wasm_encoder::BlockType::Empty));
            f.instruction(&W::Unreachable);
            f.instruction(&W::End);
            f.instruction(&W::LocalGet(s.i32));
        }
        Conversion::Discriminant(n) => {
            f.instruction(&W::LocalTee(s.i32));
            f.instruction(&W::I32Const(n as i32));
            f.instruction(&W::I32GeU);
            f.instruction(&W::If(wasm_encoder::BlockType::Empty));
            f.instruction(&W::Unreachable);
            f.instruction(&W::End);
            f.instruction(&W::LocalGet(s.i32));
        }
        Conversion::CanonF32 => {
            // x != x ? canonical NaN : x
            f.instruction(&W::LocalTee(s.f32));
            f.instruction(&W::F32Const(f32::from_bits(0x7fc0_0000).into()));
            f.instruction(&W::LocalGet(s.f32));
            f.instruction(&W::LocalGet(s.f32));
            f.instruction(&W::F32Eq);
            f.instruction(&W::Select);
        }
        Conversion::CanonF64 => {
            f.instruction(&W::LocalTee(s.f64));
            f.instruction(&W::F64Const(f64::from_bits(0x7ff8_0000_0000_0000).into()));
            f.instruction(&W::LocalGet(s.f64));
            f.instruction(&W::LocalGet(s.f64));
            f.instruction(&W::F64Eq);
            f.instruction(&W::Select);
        }
    }
}

/// How one parameter or result crosses.
#[derive(Clone)]
enum Kind {
    /// Flat values converted one by one: a scalar, or a record or tuple of
    /// scalars (one conversion per flat value, in order).
    Flat(Vec<Conversion>),
    /// A string or list, copied into the other memory: a UTF-8 string on
    /// both sides (validated first), or a list of elements.
    Range(Elem),
    /// A record or tuple of scalars that comes back in memory (a result of
    /// more than one flat value): its fields, their flat types, its size and
    /// alignment.
    MemRecord {
        fields: Vec<(MemField, FlatType)>,
        size: u32,
        align: u32,
    },
    /// A variant, option or result passed flat: the discriminant, then the
    /// joined payload slots; each case's payload as (conversion, its own
    /// flat type) per slot it uses.
    Variant {
        slots: Vec<FlatType>,
        cases: Vec<Vec<(Conversion, FlatType)>>,
    },
}

impl Kind {
    /// How many core values the kind is passed as.
    fn flat_len(&self) -> usize {
        match self {
            Kind::Flat(cs) => cs.len(),
            Kind::Range(_) => 2,
            Kind::Variant { slots, .. } => 1 + slots.len(),
            Kind::MemRecord { fields, .. } => fields.len(),
        }
    }
}

/// The variant-like `ty` as a [`Kind::Variant`], when every payload is
/// scalars passed flat.
fn variant(types: &ComponentTypes, ty: InterfaceType) -> Option<Kind> {
    let cases: Vec<Option<InterfaceType>> = match abi::despecialize(types, ty) {
        abi::Despecialized::Variant(cases) => cases,
        _ => return None,
    };
    if cases.is_empty() || cases.len() > 256 {
        return None;
    }
    let mut flat_types = abi::flatten_type(types, ty, abi::PtrType::I32);
    if flat_types.is_empty() {
        return None;
    }
    flat_types.remove(0);
    let mut out = Vec::with_capacity(cases.len());
    for case in &cases {
        let payload = match case {
            Some(t) => {
                let convs = flat(types, *t)?;
                let tys = abi::flatten_type(types, *t, abi::PtrType::I32);
                if convs.len() != tys.len() || tys.len() > flat_types.len() {
                    return None;
                }
                convs.into_iter().zip(tys).collect()
            }
            None => Vec::new(),
        };
        out.push(payload);
    }
    Some(Kind::Variant {
        slots: flat_types,
        cases: out,
    })
}

/// A scalar field of a record stored in memory.
#[derive(Clone, Copy)]
struct MemField {
    offset: u32,
    size: u32,
    conversion: Conversion,
}

/// The scalar fields of `ty` (a record or tuple of scalars, nested or not)
/// stored in memory at `base`, in order, or `None` for another type.
fn mem_fields(types: &ComponentTypes, ty: InterfaceType, base: u32, out: &mut Vec<MemField>, depth: u32) -> Option<()> {
    if depth > 100 {
        return None;
    }
    let ptr = abi::PtrType::I32;
    let fields: Vec<InterfaceType> = match ty {
        InterfaceType::Defined(d) => match types.defined(d)? {
            DefinedType::Record(fields) => fields.iter().map(|f| f.ty).collect(),
            DefinedType::Tuple(tys) => tys.to_vec(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    if fields.is_empty() {
        out.push(MemField {
            offset: base,
            size: abi::elem_size(types, ty, ptr),
            conversion: conversion(types, ty)?,
        });
        return Some(());
    }
    let mut offset = 0u32;
    for t in fields {
        offset = abi::align_to(offset, abi::alignment(types, t, ptr));
        mem_fields(types, t, base.checked_add(offset)?, out, depth + 1)?;
        offset = offset.checked_add(abi::elem_size(types, t, ptr))?;
    }
    Some(())
}

/// Emits the load of a scalar of `size` bytes at `offset` from the address
/// in local `ptr` of memory `m`, as the flat type `t`.
fn load_scalar(f: &mut Function, ptr: u32, offset: u32, size: u32, t: FlatType, m: u32) {
    use Instruction as W;
    f.instruction(&W::LocalGet(ptr));
    let a = mem(u64::from(offset), size.trailing_zeros(), m);
    f.instruction(&match (t, size) {
        (FlatType::I32, 1) => W::I32Load8U(a),
        (FlatType::I32, 2) => W::I32Load16U(a),
        (FlatType::I32, _) => W::I32Load(a),
        (FlatType::I64, _) => W::I64Load(a),
        (FlatType::F32, _) => W::F32Load(a),
        (FlatType::F64, _) => W::F64Load(a),
    });
}

/// Emits the store of the value on the stack (below it, the address was
/// pushed first) as a scalar of `size` bytes at `offset` of memory `m`.
fn store_scalar(f: &mut Function, offset: u32, size: u32, t: FlatType, m: u32) {
    use Instruction as W;
    let a = mem(u64::from(offset), size.trailing_zeros(), m);
    f.instruction(&match (t, size) {
        (FlatType::I32, 1) => W::I32Store8(a),
        (FlatType::I32, 2) => W::I32Store16(a),
        (FlatType::I32, _) => W::I32Store(a),
        (FlatType::I64, _) => W::I64Store(a),
        (FlatType::F32, _) => W::F32Store(a),
        (FlatType::F64, _) => W::F64Store(a),
    });
}

/// Emits the coercion of a value carried in a slot of type `have` to the
/// payload's own type `want` (`lift_flat_variant`'s `CoerceValueIter`).
fn coerce_lift(f: &mut Function, have: FlatType, want: FlatType) {
    use Instruction as W;
    match (have, want) {
        (FlatType::I32, FlatType::F32) => {
            f.instruction(&W::F32ReinterpretI32);
        }
        (FlatType::I64, FlatType::I32) => {
            f.instruction(&W::I32WrapI64);
        }
        (FlatType::I64, FlatType::F32) => {
            f.instruction(&W::I32WrapI64);
            f.instruction(&W::F32ReinterpretI32);
        }
        (FlatType::I64, FlatType::F64) => {
            f.instruction(&W::F64ReinterpretI64);
        }
        _ => {}
    }
}

/// The other way: a payload value of type `have` into a slot of type
/// `want` (`lower_flat_variant`).
fn coerce_lower(f: &mut Function, have: FlatType, want: FlatType) {
    use Instruction as W;
    match (have, want) {
        (FlatType::F32, FlatType::I32) => {
            f.instruction(&W::I32ReinterpretF32);
        }
        (FlatType::I32, FlatType::I64) => {
            f.instruction(&W::I64ExtendI32U);
        }
        (FlatType::F32, FlatType::I64) => {
            f.instruction(&W::I32ReinterpretF32);
            f.instruction(&W::I64ExtendI32U);
        }
        (FlatType::F64, FlatType::I64) => {
            f.instruction(&W::I64ReinterpretF64);
        }
        _ => {}
    }
}

/// The elements of a [`Kind::Range`].
#[derive(Clone)]
struct Elem {
    size: u32,
    align: u32,
    utf8: bool,
    /// The scalar fields of one element, each converted as it is copied;
    /// empty when the bytes are copied as they are (strings, integers).
    fields: Vec<(MemField, FlatType)>,
}

/// The most bytes a list may take (`MAX_LIST_BYTE_LENGTH`).
const MAX_LIST_BYTE_LENGTH: i64 = (1 << 28) - 1;

fn kind(types: &ComponentTypes, ty: InterfaceType, utf8: bool) -> Option<Kind> {
    use InterfaceType as I;
    match ty {
        I::String if utf8 => Some(Kind::Range(Elem {
            size: 1,
            align: 1,
            utf8: true,
            fields: Vec::new(),
        })),
        I::String => None,
        I::Defined(d) => match types.defined(d)? {
            DefinedType::List(elem) => {
                let ptr = abi::PtrType::I32;
                let (size, align) = (abi::elem_size(types, *elem, ptr), abi::alignment(types, *elem, ptr));
                let fields = match elem {
                    // Integers are copied as they are.
                    I::U8 | I::S8 | I::U16 | I::S16 | I::U32 | I::S32 | I::U64 | I::S64 => Vec::new(),
                    _ => {
                        let mut fields = Vec::new();
                        mem_fields(types, *elem, 0, &mut fields, 0)?;
                        let flat_types = abi::flatten_type(types, *elem, ptr);
                        if fields.len() != flat_types.len() || size == 0 {
                            return None;
                        }
                        fields.into_iter().zip(flat_types).collect()
                    }
                };
                Some(Kind::Range(Elem {
                    size,
                    align,
                    utf8: false,
                    fields,
                }))
            }
            DefinedType::Variant(_) | DefinedType::Option(_) | DefinedType::Result { .. } => variant(types, ty),
            _ => flat(types, ty).map(Kind::Flat),
        },
        _ => flat(types, ty).map(Kind::Flat),
    }
}

/// The conversions of the flat values of `ty`, a scalar or a record or
/// tuple of them, or `None` for any other type.
fn flat(types: &ComponentTypes, ty: InterfaceType) -> Option<Vec<Conversion>> {
    fn go(types: &ComponentTypes, ty: InterfaceType, out: &mut Vec<Conversion>, depth: u32) -> Option<()> {
        if depth > 100 {
            return None;
        }
        if let InterfaceType::Defined(d) = ty {
            match types.defined(d)? {
                DefinedType::Record(fields) => {
                    for field in fields.iter() {
                        go(types, field.ty, out, depth + 1)?;
                    }
                    return Some(());
                }
                DefinedType::Tuple(tys) => {
                    for t in tys.iter() {
                        go(types, *t, out, depth + 1)?;
                    }
                    return Some(());
                }
                // One i32 per 32 flags; bits past the last flag are dropped,
                // as lifting ignores them and lowering writes zeros.
                DefinedType::Flags(labels) => {
                    let mut left = labels.len();
                    while left > 0 {
                        let n = left.min(32);
                        let mask = if n == 32 { -1 } else { ((1u32 << n) - 1) as i32 };
                        out.push(Conversion::Mask(mask));
                        left -= n;
                    }
                    return Some(());
                }
                _ => {}
            }
        }
        out.push(conversion(types, ty)?);
        Some(())
    }
    let mut out = Vec::new();
    go(types, ty, &mut out, 0)?;
    Some(out)
}

/// What the canonical options of the two sides provide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Sides {
    /// Whether the callee has a `post-return` function.
    pub(crate) post_return: bool,
    /// Whether both sides encode strings as UTF-8.
    pub(crate) utf8: bool,
    /// Whether the caller has a memory and a `realloc`.
    pub(crate) caller_memory: bool,
    /// Whether the callee has a memory and a `realloc`.
    pub(crate) callee_memory: bool,
}

const I32: ValType = ValType::I32;

fn mem(offset: u64, align: u32, memory_index: u32) -> wasm_encoder::MemArg {
    wasm_encoder::MemArg {
        offset,
        align,
        target: wasm_encoder::MemArgTarget::Memory(memory_index),
        ordering: None,
    }
}

/// Traps unless `ptr + len` is within memory `m` (computed in 64 bits, so
/// that it cannot wrap). `ptr` and `len` are locals.
fn check_range(f: &mut Function, ptr: u32, len: u32, m: u32) {
    use Instruction as W;
    f.instruction(&W::LocalGet(ptr));
    f.instruction(&W::I64ExtendI32U);
    f.instruction(&W::LocalGet(len));
    f.instruction(&W::I64ExtendI32U);
    f.instruction(&W::I64Add);
    f.instruction(&W::MemorySize(m));
    f.instruction(&W::I64ExtendI32U);
    f.instruction(&W::I64Const(16));
    f.instruction(&W::I64Shl);
    f.instruction(&W::I64GtU);
    f.instruction(&W::If(wasm_encoder::BlockType::Empty));
    f.instruction(&W::Unreachable);
    f.instruction(&W::End);
}

/// Traps when the value of local `local` is not a multiple of `align`.
fn check_align(f: &mut Function, local: u32, align: i32) {
    use Instruction as W;
    f.instruction(&W::LocalGet(local));
    f.instruction(&W::I32Const(align - 1));
    f.instruction(&W::I32And);
    f.instruction(&W::If(wasm_encoder::BlockType::Empty));
    f.instruction(&W::Unreachable);
    f.instruction(&W::End);
}

/// A function `(ptr, len)` that traps unless the bytes `ptr..ptr + len` of
/// memory `m` are in bounds and are well-formed UTF-8 (no overlong forms,
/// no surrogates, nothing past U+10FFFF), as lifting a string requires.
fn validate_utf8(m: u32) -> Function {
    use Instruction as W;
    let (ptr, len, i, b, c) = (0, 1, 2, 3, 4);
    let mut f = Function::new([(3, I32)]);
    let trap_if = |f: &mut Function| {
        f.instruction(&W::If(wasm_encoder::BlockType::Empty));
        f.instruction(&W::Unreachable);
        f.instruction(&W::End);
    };
    // Lengths past the limit trap before anything is read.
    f.instruction(&W::LocalGet(len));
    f.instruction(&W::I32Const(MAX_STRING_BYTE_LENGTH));
    f.instruction(&W::I32GtU);
    trap_if(&mut f);
    check_range(&mut f, ptr, len, m);
    // Byte `i + k` (k = 1..3) must exist and be a continuation byte; its
    // value is left in `c`.
    let continuation = |f: &mut Function, k: i32| {
        f.instruction(&W::LocalGet(i));
        f.instruction(&W::I32Const(k));
        f.instruction(&W::I32Add);
        f.instruction(&W::LocalGet(len));
        f.instruction(&W::I32GeU);
        trap_if(f);
        f.instruction(&W::LocalGet(ptr));
        f.instruction(&W::LocalGet(i));
        f.instruction(&W::I32Add);
        f.instruction(&W::I32Load8U(mem(k as u64, 0, m)));
        f.instruction(&W::LocalTee(c));
        f.instruction(&W::I32Const(0xc0));
        f.instruction(&W::I32And);
        f.instruction(&W::I32Const(0x80));
        f.instruction(&W::I32Ne);
        trap_if(f);
    };
    // `c` (the first continuation byte) must be within lo..=hi.
    let first_in = |f: &mut Function, lo: i32, hi: i32| {
        f.instruction(&W::LocalGet(c));
        f.instruction(&W::I32Const(lo));
        f.instruction(&W::I32LtU);
        f.instruction(&W::LocalGet(c));
        f.instruction(&W::I32Const(hi));
        f.instruction(&W::I32GtU);
        f.instruction(&W::I32Or);
        trap_if(f);
    };
    let advance = |f: &mut Function, n: i32| {
        f.instruction(&W::LocalGet(i));
        f.instruction(&W::I32Const(n));
        f.instruction(&W::I32Add);
        f.instruction(&W::LocalSet(i));
        f.instruction(&W::Br(1));
    };
    f.instruction(&W::Block(wasm_encoder::BlockType::Empty));
    f.instruction(&W::Loop(wasm_encoder::BlockType::Empty));
    f.instruction(&W::LocalGet(i));
    f.instruction(&W::LocalGet(len));
    f.instruction(&W::I32GeU);
    f.instruction(&W::BrIf(1));
    f.instruction(&W::LocalGet(ptr));
    f.instruction(&W::LocalGet(i));
    f.instruction(&W::I32Add);
    f.instruction(&W::I32Load8U(mem(0, 0, m)));
    f.instruction(&W::LocalSet(b));
    // ASCII.
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0x80));
    f.instruction(&W::I32LtU);
    f.instruction(&W::If(wasm_encoder::BlockType::Empty));
    advance(&mut f, 1);
    f.instruction(&W::End);
    // Two bytes: C2..DF.
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0xe0));
    f.instruction(&W::I32LtU);
    f.instruction(&W::If(wasm_encoder::BlockType::Empty));
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0xc2));
    f.instruction(&W::I32LtU);
    trap_if(&mut f);
    continuation(&mut f, 1);
    advance(&mut f, 2);
    f.instruction(&W::End);
    // Three bytes: E0..EF (E0: no overlong, ED: no surrogates).
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0xf0));
    f.instruction(&W::I32LtU);
    f.instruction(&W::If(wasm_encoder::BlockType::Empty));
    continuation(&mut f, 1);
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0xe0));
    f.instruction(&W::I32Eq);
    f.instruction(&W::If(wasm_encoder::BlockType::Empty));
    first_in(&mut f, 0xa0, 0xbf);
    f.instruction(&W::End);
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0xed));
    f.instruction(&W::I32Eq);
    f.instruction(&W::If(wasm_encoder::BlockType::Empty));
    first_in(&mut f, 0x80, 0x9f);
    f.instruction(&W::End);
    continuation(&mut f, 2);
    advance(&mut f, 3);
    f.instruction(&W::End);
    // Four bytes: F0..F4 (F0: no overlong, F4: nothing past U+10FFFF).
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0xf4));
    f.instruction(&W::I32GtU);
    trap_if(&mut f);
    continuation(&mut f, 1);
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0xf0));
    f.instruction(&W::I32Eq);
    f.instruction(&W::If(wasm_encoder::BlockType::Empty));
    first_in(&mut f, 0x90, 0xbf);
    f.instruction(&W::End);
    f.instruction(&W::LocalGet(b));
    f.instruction(&W::I32Const(0xf4));
    f.instruction(&W::I32Eq);
    f.instruction(&W::If(wasm_encoder::BlockType::Empty));
    first_in(&mut f, 0x80, 0x8f);
    f.instruction(&W::End);
    continuation(&mut f, 2);
    continuation(&mut f, 3);
    f.instruction(&W::LocalGet(i));
    f.instruction(&W::I32Const(4));
    f.instruction(&W::I32Add);
    f.instruction(&W::LocalSet(i));
    f.instruction(&W::Br(0));
    f.instruction(&W::End);
    f.instruction(&W::End);
    f.instruction(&W::End);
    f
}

/// Function indices of an adapter module.
struct Funcs {
    callee: u32,
    enter: u32,
    exit: u32,
    post_return: u32,
    callee_realloc: u32,
    caller_realloc: u32,
    validate: [u32; 2],
}

/// Locals of the adapter used by range copies.
struct CopyLocals {
    src: u32,
    len: u32,
    dst: u32,
    bytes: u32,
    /// Element loops: the index and the two element pointers.
    i: u32,
    sp: u32,
    dp: u32,
}

/// Emits the copy of the range `(l.src, l.len)` (a pointer and an element
/// count in locals) from memory `from` into a new allocation of memory `to`
/// made by `realloc`, leaving the new pointer in `l.dst`: the checks of
/// lifting (length limit, alignment, bounds, UTF-8 for strings), the
/// allocation and its checks, then one `memory.copy`.
#[allow(clippy::too_many_arguments)]
fn copy_range(
    f: &mut Function,
    funcs: &Funcs,
    l: &CopyLocals,
    elem: &Elem,
    scratch: &Scratch,
    from: u32,
    to: u32,
    realloc: u32,
) {
    use Instruction as W;
    if elem.utf8 {
        f.instruction(&W::LocalGet(l.src));
        f.instruction(&W::LocalGet(l.len));
        f.instruction(&W::Call(funcs.validate[from as usize]));
        f.instruction(&W::LocalGet(l.len));
        f.instruction(&W::LocalSet(l.bytes));
    } else {
        f.instruction(&W::LocalGet(l.len));
        f.instruction(&W::I64ExtendI32U);
        f.instruction(&W::I64Const(i64::from(elem.size)));
        f.instruction(&W::I64Mul);
        f.instruction(&W::I64Const(MAX_LIST_BYTE_LENGTH));
        f.instruction(&W::I64GtU);
        f.instruction(&W::If(wasm_encoder::BlockType::Empty));
        f.instruction(&W::Unreachable);
        f.instruction(&W::End);
        f.instruction(&W::LocalGet(l.len));
        f.instruction(&W::I32Const(elem.size as i32));
        f.instruction(&W::I32Mul);
        f.instruction(&W::LocalSet(l.bytes));
        check_align(f, l.src, elem.align as i32);
        check_range(f, l.src, l.bytes, from);
    }
    f.instruction(&W::I32Const(0));
    f.instruction(&W::I32Const(0));
    f.instruction(&W::I32Const(elem.align as i32));
    f.instruction(&W::LocalGet(l.bytes));
    f.instruction(&W::Call(realloc));
    f.instruction(&W::LocalSet(l.dst));
    check_align(f, l.dst, elem.align as i32);
    check_range(f, l.dst, l.bytes, to);
    if elem.fields.is_empty() {
        f.instruction(&W::LocalGet(l.dst));
        f.instruction(&W::LocalGet(l.src));
        f.instruction(&W::LocalGet(l.bytes));
        f.instruction(&W::MemoryCopy {
            src_mem: from,
            dst_mem: to,
        });
        return;
    }
    // Element by element, each field converted.
    f.instruction(&W::I32Const(0));
    f.instruction(&W::LocalSet(l.i));
    f.instruction(&W::LocalGet(l.src));
    f.instruction(&W::LocalSet(l.sp));
    f.instruction(&W::LocalGet(l.dst));
    f.instruction(&W::LocalSet(l.dp));
    f.instruction(&W::Block(wasm_encoder::BlockType::Empty));
    f.instruction(&W::Loop(wasm_encoder::BlockType::Empty));
    f.instruction(&W::LocalGet(l.i));
    f.instruction(&W::LocalGet(l.len));
    f.instruction(&W::I32GeU);
    f.instruction(&W::BrIf(1));
    for (field, t) in &elem.fields {
        f.instruction(&W::LocalGet(l.dp));
        load_scalar(f, l.sp, field.offset, field.size, *t, from);
        convert(f, field.conversion, scratch);
        store_scalar(f, field.offset, field.size, *t, to);
    }
    for local in [l.sp, l.dp] {
        f.instruction(&W::LocalGet(local));
        f.instruction(&W::I32Const(elem.size as i32));
        f.instruction(&W::I32Add);
        f.instruction(&W::LocalSet(local));
    }
    f.instruction(&W::LocalGet(l.i));
    f.instruction(&W::I32Const(1));
    f.instruction(&W::I32Add);
    f.instruction(&W::LocalSet(l.i));
    f.instruction(&W::Br(0));
    f.instruction(&W::End);
    f.instruction(&W::End);
}

/// The binary of the adapter for calls of type `ty` between two sides with
/// the options `sides`, or `None` when the type is not one adapters handle
/// yet.
pub(crate) fn adapter_module(types: &ComponentTypes, ty: &FuncType, sides: Sides) -> Option<Vec<u8>> {
    if ty.is_async {
        return None;
    }
    let params: Vec<Kind> = ty
        .param_types()
        .map(|t| kind(types, t, sides.utf8))
        .collect::<Option<_>>()?;
    let result = match ty.result {
        Some(t) => Some(kind(types, t, sides.utf8)?),
        None => None,
    };
    let ranges = params.iter().chain(&result).any(|k| matches!(k, Kind::Range(_)));
    if ranges && !(sides.caller_memory && sides.callee_memory) {
        return None;
    }
    let lower = abi::flatten_functype(types, ty, AbiOptions::default(), Context::Lower);
    let lift = abi::flatten_functype(types, ty, AbiOptions::default(), Context::Lift);
    let flat_params: usize = params.iter().map(Kind::flat_len).sum();
    // A result of more than one flat value comes back in memory: strings,
    // lists, and records or tuples of scalars are read from there so far.
    let result = match (result, ty.result) {
        (Some(Kind::Flat(cs)), Some(t)) if cs.len() != 1 => {
            let mut fields = Vec::new();
            mem_fields(types, t, 0, &mut fields, 0)?;
            let flat_types = abi::flatten_type(types, t, abi::PtrType::I32);
            if fields.len() != flat_types.len() || !(sides.caller_memory && sides.callee_memory) {
                return None;
            }
            Some(Kind::MemRecord {
                fields: fields.into_iter().zip(flat_types).collect(),
                size: abi::elem_size(types, t, abi::PtrType::I32),
                align: abi::alignment(types, t, abi::PtrType::I32),
            })
        }
        (Some(Kind::Variant { .. }), _) => return None,
        (result, _) => result,
    };
    let memory_result = matches!(result, Some(Kind::MemRecord { .. }));
    // Whether the adapter imports both memories (and defines the UTF-8
    // checks, used or not).
    let strings = ranges || memory_result;
    let string_result = matches!(result, Some(Kind::Range(_)));
    // No spilled parameters; the only spilled result is a string's.
    if lift.params.len() != flat_params || (result.is_some() && lift.results.len() != 1) {
        return None;
    }
    let lower_params: Vec<ValType> = lower.params.iter().map(|t| val_type(*t)).collect();
    let lower_results: Vec<ValType> = lower.results.iter().map(|t| val_type(*t)).collect();
    let lift_params: Vec<ValType> = lift.params.iter().map(|t| val_type(*t)).collect();
    let lift_results: Vec<ValType> = lift.results.iter().map(|t| val_type(*t)).collect();

    // Types: 0 the adapter (the caller's lowered signature), 1 `() -> ()`,
    // 2 post-return, 3 the callee (its lifted signature), 4 realloc,
    // 5 UTF-8 validation.
    let mut type_section = TypeSection::new();
    type_section
        .ty()
        .function(lower_params.iter().copied(), lower_results.iter().copied());
    type_section.ty().function([], []);
    type_section.ty().function(lift_results.iter().copied(), []);
    type_section
        .ty()
        .function(lift_params.iter().copied(), lift_results.iter().copied());
    type_section.ty().function([I32, I32, I32, I32], [I32]);
    type_section.ty().function([I32, I32], []);

    let mut imports = ImportSection::new();
    let mut next = 0;
    let mut import = |imports: &mut ImportSection, name: &str, ty: u32| {
        imports.import("", name, EntityType::Function(ty));
        next += 1;
        next - 1
    };
    let callee = import(&mut imports, CALLEE, 3);
    let enter = import(&mut imports, ENTER, 1);
    let exit = import(&mut imports, EXIT, 1);
    let post_return = if sides.post_return {
        import(&mut imports, POST_RETURN, 2)
    } else {
        u32::MAX
    };
    let callee_realloc = if params.iter().any(|k| matches!(k, Kind::Range(_))) {
        import(&mut imports, CALLEE_REALLOC, 4)
    } else {
        u32::MAX
    };
    let caller_realloc = if string_result {
        import(&mut imports, CALLER_REALLOC, 4)
    } else {
        u32::MAX
    };
    let num_imported = next;
    if strings {
        let memory = EntityType::Memory(wasm_encoder::MemoryType {
            minimum: 0,
            maximum: None,
            memory64: false,
            shared: false,
            page_size_log2: None,
        });
        imports.import("", CALLER_MEMORY, memory);
        imports.import("", CALLEE_MEMORY, memory);
    }
    let funcs = Funcs {
        callee,
        enter,
        exit,
        post_return,
        callee_realloc,
        caller_realloc,
        validate: [num_imported + 1, num_imported + 2],
    };
    let mut functions = FunctionSection::new();
    functions.function(0);
    if strings {
        functions.function(5);
        functions.function(5);
    }
    let mut exports = ExportSection::new();
    exports.export(ADAPTER, ExportKind::Func, num_imported);

    // Locals after the parameters: scratch values and one result local per
    // result kind.
    let n = lower_params.len() as u32;
    let result_ty = lift_results.first().copied().unwrap_or(I32);
    let scratch = Scratch {
        i32: n,
        f32: n + 1,
        f64: n + 2,
        result: n + 3,
        out: n + 4,
    };
    let copy = CopyLocals {
        dst: n + 5,
        src: n + 6,
        len: n + 7,
        bytes: n + 8,
        i: n + 9,
        sp: n + 10,
        dp: n + 11,
    };
    // One local per payload slot of each flat variant parameter, after the
    // fixed ones.
    let mut extra: Vec<ValType> = Vec::new();
    for k in &params {
        if let Kind::Variant { slots, .. } = k {
            extra.extend(slots.iter().map(|t| val_type(*t)));
        }
    }
    let mut locals = vec![
        (1, I32),
        (1, ValType::F32),
        (1, ValType::F64),
        (1, result_ty),
        (1, result_ty),
        (7, I32),
    ];
    locals.extend(extra.iter().map(|t| (1, *t)));
    let mut f = Function::new(locals);
    let mut next_extra = n + 12;
    use Instruction as W;
    f.instruction(&W::Call(funcs.enter));
    // Strings and lists are copied first (each copy's pointer replaces the
    // caller's in its parameter local), then every argument is pushed.
    let mut local = 0;
    for k in &params {
        if let Kind::Range(elem) = k {
            f.instruction(&W::LocalGet(local));
            f.instruction(&W::LocalSet(copy.src));
            f.instruction(&W::LocalGet(local + 1));
            f.instruction(&W::LocalSet(copy.len));
            copy_range(&mut f, &funcs, &copy, elem, &scratch, 0, 1, funcs.callee_realloc);
            f.instruction(&W::LocalGet(copy.dst));
            f.instruction(&W::LocalSet(local));
            local += 2;
        } else {
            local += k.flat_len() as u32;
        }
    }
    // Flat variants: the discriminant is checked, then the active case's
    // payload slots are converted into fresh locals (the others are zero,
    // as lowering pads them), which replace the caller's slots.
    let mut local = 0;
    for k in &params {
        if let Kind::Variant { slots, cases } = k {
            let first = next_extra;
            next_extra += slots.len() as u32;
            f.instruction(&W::LocalGet(local));
            f.instruction(&W::I32Const(cases.len() as i32));
            f.instruction(&W::I32GeU);
            f.instruction(&W::If(wasm_encoder::BlockType::Empty));
            f.instruction(&W::Unreachable);
            f.instruction(&W::End);
            for (c, payload) in cases.iter().enumerate() {
                if payload.is_empty() {
                    continue;
                }
                f.instruction(&W::LocalGet(local));
                f.instruction(&W::I32Const(c as i32));
                f.instruction(&W::I32Eq);
                f.instruction(&W::If(wasm_encoder::BlockType::Empty));
                for (j, (conv, want)) in payload.iter().enumerate() {
                    let have = slots[j];
                    f.instruction(&W::LocalGet(local + 1 + j as u32));
                    coerce_lift(&mut f, have, *want);
                    convert(&mut f, *conv, &scratch);
                    coerce_lower(&mut f, *want, have);
                    f.instruction(&W::LocalSet(first + j as u32));
                }
                f.instruction(&W::End);
            }
            for j in 0..slots.len() as u32 {
                f.instruction(&W::LocalGet(first + j));
                f.instruction(&W::LocalSet(local + 1 + j));
            }
        }
        local += k.flat_len() as u32;
    }
    let mut local = 0;
    for k in &params {
        match k {
            Kind::Flat(cs) => {
                for c in cs {
                    f.instruction(&W::LocalGet(local));
                    convert(&mut f, *c, &scratch);
                    local += 1;
                }
            }
            // (A `MemRecord` is only ever a result.)
            Kind::Range(_) | Kind::Variant { .. } | Kind::MemRecord { .. } => {
                for j in 0..k.flat_len() as u32 {
                    f.instruction(&W::LocalGet(local + j));
                }
                local += k.flat_len() as u32;
            }
        }
    }
    f.instruction(&W::Call(funcs.callee));
    match &result {
        Some(Kind::Flat(cs)) => {
            f.instruction(&W::LocalTee(scratch.result));
            for c in cs {
                convert(&mut f, *c, &scratch);
            }
            f.instruction(&W::LocalSet(scratch.out));
        }
        Some(Kind::Range(elem)) => {
            // The callee's return area: (ptr, len) in its memory.
            f.instruction(&W::LocalSet(scratch.result));
            check_align(&mut f, scratch.result, 4);
            f.instruction(&W::I32Const(8));
            f.instruction(&W::LocalSet(copy.bytes));
            check_range(&mut f, scratch.result, copy.bytes, 1);
            f.instruction(&W::LocalGet(scratch.result));
            f.instruction(&W::I32Load(mem(0, 2, 1)));
            f.instruction(&W::LocalSet(copy.src));
            f.instruction(&W::LocalGet(scratch.result));
            f.instruction(&W::I32Load(mem(4, 2, 1)));
            f.instruction(&W::LocalSet(copy.len));
            copy_range(&mut f, &funcs, &copy, elem, &scratch, 1, 0, funcs.caller_realloc);
            // The caller's return pointer is its last parameter.
            let retptr = n - 1;
            check_align(&mut f, retptr, 4);
            f.instruction(&W::I32Const(8));
            f.instruction(&W::LocalSet(copy.bytes));
            check_range(&mut f, retptr, copy.bytes, 0);
            f.instruction(&W::LocalGet(retptr));
            f.instruction(&W::LocalGet(copy.dst));
            f.instruction(&W::I32Store(mem(0, 2, 0)));
            f.instruction(&W::LocalGet(retptr));
            f.instruction(&W::LocalGet(copy.len));
            f.instruction(&W::I32Store(mem(4, 2, 0)));
        }
        Some(Kind::MemRecord { fields, size, align }) => {
            // From the callee's return area to the caller's, field by field.
            let retptr = n - 1;
            f.instruction(&W::LocalSet(scratch.result));
            f.instruction(&W::I32Const(*size as i32));
            f.instruction(&W::LocalSet(copy.bytes));
            check_align(&mut f, scratch.result, *align as i32);
            check_range(&mut f, scratch.result, copy.bytes, 1);
            check_align(&mut f, retptr, *align as i32);
            check_range(&mut f, retptr, copy.bytes, 0);
            for (field, t) in fields {
                f.instruction(&W::LocalGet(retptr));
                load_scalar(&mut f, scratch.result, field.offset, field.size, *t, 1);
                convert(&mut f, field.conversion, &scratch);
                store_scalar(&mut f, field.offset, field.size, *t, 0);
            }
        }
        // Refused above: a flat variant result would be more than one value.
        Some(Kind::Variant { .. }) | None => {}
    }
    if sides.post_return {
        if result.is_some() {
            f.instruction(&W::LocalGet(scratch.result));
        }
        f.instruction(&W::Call(funcs.post_return));
    }
    f.instruction(&W::Call(funcs.exit));
    if matches!(result, Some(Kind::Flat(_))) {
        f.instruction(&W::LocalGet(scratch.out));
    }
    f.instruction(&W::End);

    let mut code = CodeSection::new();
    code.function(&f);
    if strings {
        code.function(&validate_utf8(0));
        code.function(&validate_utf8(1));
    }
    let mut module = Encoder::new();
    module
        .section(&type_section)
        .section(&imports)
        .section(&functions)
        .section(&exports)
        .section(&code);
    Some(module.finish())
}

#[cfg(test)]
mod tests {
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
        let sides = Sides {
            post_return: false,
            utf8: true,
            caller_memory: true,
            callee_memory: true,
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
        let unit = || FuncType::new(&engine, [], []);
        let enter = Func::new(&mut store, unit(), |_, _, _| Ok(()));
        let exit = Func::new(&mut store, unit(), |_, _, _| Ok(()));
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
}
