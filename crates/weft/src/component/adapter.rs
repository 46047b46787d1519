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
//! Only signatures whose parameters and result are scalars (numbers,
//! `bool`, `char`, enums) are adapted so far: their flat forms are the same
//! on both sides and no memory is involved. Every other component-to-
//! component call goes through Rust (`instance.rs`).

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

/// The binary of the adapter for calls of type `ty` whose callee has a
/// `post-return` function when `post_return`, or `None` when the type is
/// not one adapters handle yet.
pub(crate) fn adapter_module(types: &ComponentTypes, ty: &FuncType, post_return: bool) -> Option<Vec<u8>> {
    if ty.is_async {
        return None;
    }
    let params: Vec<Conversion> = ty.param_types().map(|t| conversion(types, t)).collect::<Option<_>>()?;
    let result = match ty.result {
        Some(t) => Some(conversion(types, t)?),
        None => None,
    };
    let flat = abi::flatten_functype(types, ty, AbiOptions::default(), Context::Lower);
    // Scalars flatten to one core value each, the same on both sides.
    if flat.params.len() != params.len() || flat.results.len() != usize::from(result.is_some()) {
        return None;
    }
    let core_params: Vec<ValType> = flat.params.iter().map(|t| val_type(*t)).collect();
    let core_results: Vec<ValType> = flat.results.iter().map(|t| val_type(*t)).collect();

    let mut types_section = TypeSection::new();
    types_section
        .ty()
        .function(core_params.iter().copied(), core_results.iter().copied());
    types_section.ty().function([], []);
    types_section.ty().function(core_results.iter().copied(), []);
    let mut imports = ImportSection::new();
    imports.import("", CALLEE, EntityType::Function(0));
    imports.import("", ENTER, EntityType::Function(1));
    imports.import("", EXIT, EntityType::Function(1));
    if post_return {
        imports.import("", POST_RETURN, EntityType::Function(2));
    }
    let num_imports = 3 + u32::from(post_return);
    let (callee, enter, exit, post) = (0, 1, 2, 3);
    let mut functions = FunctionSection::new();
    functions.function(0);
    let mut exports = ExportSection::new();
    exports.export(ADAPTER, ExportKind::Func, num_imports);

    let n = core_params.len() as u32;
    let result_ty = core_results.first().copied().unwrap_or(ValType::I32);
    let scratch = Scratch {
        i32: n,
        f32: n + 1,
        f64: n + 2,
        result: n + 3,
        out: n + 4,
    };
    let mut f = Function::new([
        (1, ValType::I32),
        (1, ValType::F32),
        (1, ValType::F64),
        (1, result_ty),
        (1, result_ty),
    ]);
    use Instruction as W;
    f.instruction(&W::Call(enter));
    for (i, c) in params.iter().enumerate() {
        f.instruction(&W::LocalGet(i as u32));
        convert(&mut f, *c, &scratch);
    }
    f.instruction(&W::Call(callee));
    if let Some(c) = result {
        // The converted result goes to the caller, then the callee's own
        // result to its post-return.
        f.instruction(&W::LocalTee(scratch.result));
        convert(&mut f, c, &scratch);
        f.instruction(&W::LocalSet(scratch.out));
        if post_return {
            f.instruction(&W::LocalGet(scratch.result));
            f.instruction(&W::Call(post));
        }
    } else if post_return {
        f.instruction(&W::Call(post));
    }
    f.instruction(&W::Call(exit));
    if result.is_some() {
        f.instruction(&W::LocalGet(scratch.out));
    }
    f.instruction(&W::End);
    let mut code = CodeSection::new();
    code.function(&f);

    let mut module = Encoder::new();
    module
        .section(&types_section)
        .section(&imports)
        .section(&functions)
        .section(&exports)
        .section(&code);
    Some(module.finish())
}
