//! Stack maps for the collector (see `weft_runtime::gc_roots`).
//!
//! A function that may hold references the collector traces (the `extern`,
//! `any` and `exn` hierarchies) across a call gets Cranelift user stack maps:
//! every variable of such a type, and every `i64` value it pushes on the
//! wasm operand stack, is declared as needing one, so Cranelift keeps it in
//! a stack slot across each call and records the slot in the call's stack
//! map. `i64` operands are included because the translator does not track
//! operand types: an integer recorded this way is only read as a candidate
//! root, which the collector checks against its heap. Functions that never
//! see such a reference get no stack maps and generate the same code as
//! before. Whether a function needs them is decided from its signature and
//! locals, then its operators (`op_makes_traced`): scanned before the
//! translation in a module that declares traced types (`module_may_trace`),
//! or else checked as the function is translated without stack maps, which
//! translates it again with them at the first such operator.
//!
//! The builtins that may collect (allocations) and those that run host
//! code (the fuel and epoch builtins, whose callbacks may collect, sample a
//! profile or capture a backtrace) are called through a small trampoline
//! per module that records the exit frame pointer and return address in
//! the store context, as the wasm-to-host trampolines do, so the collector
//! and backtraces can walk the wasm frames from there.

use crate::types::trusted;
use anyhow::Result;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{AbiParam, Function, InstBuilder, Signature, UserFuncName};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use wasmparser::{BlockType, FunctionBody, Operator};
use weft_environ::{vmstore, BuiltinFunction, Module, WasmHeapType, WasmValType};

/// The builtins that may run a collection or host code: compiled code
/// calls them through their trampoline (namespace 1 of Cranelift's user
/// names, index in this list), which records the exit so that the wasm
/// frames are walkable while they run. `OutOfFuel` and `NewEpoch` run the
/// store's fuel and epoch callbacks, where the embedder may collect,
/// capture a `WasmBacktrace` or take a `GuestProfiler` sample.
/// `Throw` makes an exception, and collects when the number of live
/// exceptions has grown enough. `Unwind` walks the wasm frames from the
/// exit to find where an exception resumes.
pub(crate) const COLLECTING_BUILTINS: [BuiltinFunction; 7] = [
    BuiltinFunction::GcAlloc,
    BuiltinFunction::Throw,
    BuiltinFunction::Unwind,
    BuiltinFunction::GcArrayNewSegment,
    BuiltinFunction::GcAnyConvertExtern,
    BuiltinFunction::OutOfFuel,
    BuiltinFunction::NewEpoch,
];

/// Whether `ty` is a reference the collector traces.
pub(crate) fn is_traced(module: &Module, ty: WasmValType) -> bool {
    match module.resolve_val_type(ty) {
        WasmValType::Ref(r) => matches!(
            r.heap_type.top(),
            WasmHeapType::Extern | WasmHeapType::Any | WasmHeapType::Exn
        ),
        _ => false,
    }
}

/// [`is_traced`] of a wasmparser value type (of a local).
pub(crate) fn is_traced_local(module: &Module, ty: wasmparser::ValType) -> bool {
    is_traced_wp(module, ty)
}

fn is_traced_wp(module: &Module, ty: wasmparser::ValType) -> bool {
    match ty {
        wasmparser::ValType::Ref(r) => module
            .convert_ref_type(r)
            .is_ok_and(|r| is_traced(module, WasmValType::Ref(r))),
        _ => false,
    }
}

fn func_type_traced(module: &Module, index: u32) -> bool {
    module
        .types
        .get(index as usize)
        .is_some_and(|t| t.params.iter().chain(t.results.iter()).any(|v| is_traced(module, *v)))
}

fn block_traced(module: &Module, ty: BlockType) -> bool {
    match ty {
        BlockType::Empty => false,
        BlockType::Type(t) => is_traced_wp(module, t),
        BlockType::FuncType(i) => func_type_traced(module, i),
    }
}

/// Whether functions of `module` are likely to make traced references:
/// it declares a traced function type, global or table, GC types, or tags
/// (exception handling). Their bodies are scanned for such operators
/// before they are translated ([`body_makes_traced`]), since many of them
/// may need stack maps; the bodies of other modules are translated once,
/// optimistically, and again only if one turns out to need them.
pub(crate) fn module_may_trace(module: &Module) -> bool {
    !module.tags.is_empty()
        || module.has_gc_types()
        || (0..module.types.len()).any(|t| func_type_traced(module, t as u32))
        || module.globals.iter().any(|g| is_traced(module, g.ty))
        || module
            .tables
            .iter()
            .any(|t| is_traced(module, WasmValType::Ref(t.element)))
}

/// Whether one of the operators of `body` makes a traced reference
/// ([`op_makes_traced`]).
pub(crate) fn body_makes_traced(module: &Module, body: &FunctionBody<'_>) -> Result<bool> {
    let mut ops = body.get_operators_reader()?;
    while !ops.eof() {
        if op_makes_traced(module, &ops.read()?) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether the function of type `ty_index` with `body` declares a traced
/// reference: a parameter, a result or a local of a traced type. Such a
/// function has stack maps from its start; any other gets them only once
/// one of its operators makes a traced reference ([`op_makes_traced`]).
pub(crate) fn declares_traced(module: &Module, ty_index: u32, body: &FunctionBody<'_>) -> Result<bool> {
    if func_type_traced(module, ty_index) {
        return Ok(true);
    }
    let mut locals = body.get_locals_reader()?;
    for _ in 0..locals.get_count() {
        let (_, ty) = locals.read()?;
        if is_traced_wp(module, ty) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether `op` may make or hold a traced reference: a function without
/// traced declarations ([`declares_traced`]) needs stack maps when one of
/// its operators does, reachable or not.
pub(crate) fn op_makes_traced(module: &Module, op: &Operator<'_>) -> bool {
    let callee_type = |f: u32| module.functions.get(f as usize).copied();
    match *op {
        Operator::GlobalGet { global_index } => module
            .globals
            .get(global_index as usize)
            .is_some_and(|g| is_traced(module, g.ty)),
        Operator::TableGet { table } => module
            .tables
            .get(table as usize)
            .is_some_and(|t| is_traced(module, WasmValType::Ref(t.element))),
        Operator::Call { function_index } | Operator::ReturnCall { function_index } => {
            callee_type(function_index).is_some_and(|t| func_type_traced(module, t))
        }
        Operator::CallIndirect { type_index, .. }
        | Operator::ReturnCallIndirect { type_index, .. }
        | Operator::CallRef { type_index }
        | Operator::ReturnCallRef { type_index } => func_type_traced(module, type_index),
        Operator::Block { blockty } | Operator::Loop { blockty } | Operator::If { blockty } => {
            block_traced(module, blockty)
        }
        Operator::Try { .. } => true,
        // A clause that makes an `exnref`, and the legacy `try`, whose
        // clauses keep the exception they caught for `rethrow`.
        Operator::TryTable { ref try_table } => {
            block_traced(module, try_table.ty)
                || try_table
                    .catches
                    .iter()
                    .any(|c| matches!(c, wasmparser::Catch::OneRef { .. } | wasmparser::Catch::AllRef { .. }))
        }
        Operator::ThrowRef | Operator::CatchAll | Operator::Rethrow { .. } => true,
        Operator::TypedSelect { ty } => is_traced_wp(module, ty),
        Operator::TypedSelectMulti { ref tys } => tys.iter().any(|t| is_traced_wp(module, *t)),
        Operator::StructNew { .. }
        | Operator::StructNewDefault { .. }
        | Operator::StructNewDesc { .. }
        | Operator::StructNewDefaultDesc { .. }
        | Operator::RefGetDesc { .. }
        | Operator::StructGet { .. }
        | Operator::ArrayNew { .. }
        | Operator::ArrayNewDefault { .. }
        | Operator::ArrayNewFixed { .. }
        | Operator::ArrayNewData { .. }
        | Operator::ArrayNewElem { .. }
        | Operator::ArrayGet { .. }
        | Operator::AnyConvertExtern
        | Operator::ExternConvertAny
        | Operator::Catch { .. } => true,
        _ => false,
    }
}

/// The trampoline of `builtin` (one of [`COLLECTING_BUILTINS`]): the
/// builtin's signature; records its frame pointer and return address as the
/// store's exit, then calls the builtin from the vmctx's builtins array.
pub(crate) fn build_builtin_trampoline(
    builtin: BuiltinFunction,
    call_conv: CallConv,
    config: TargetFrontendConfig,
    fctx: &mut FunctionBuilderContext,
) -> Result<Function> {
    let mut sig = Signature::new(call_conv);
    sig.params.extend(
        builtin
            .params()
            .iter()
            .map(|p| AbiParam::new(crate::types::builtin_type(*p))),
    );
    sig.returns.extend(
        builtin
            .results()
            .iter()
            .map(|r| AbiParam::new(crate::types::builtin_type(*r))),
    );
    let mut func = Function::with_name_signature(UserFuncName::default(), sig.clone());
    let mut b = FunctionBuilder::new(&mut func, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let params = b.block_params(entry).to_vec();
    let vmctx = params[0];
    let offsets = crate::trampolines::fixed_offsets();
    let store = b
        .ins()
        .load(I64, trusted(), vmctx, offsets.vmctx_store_context() as i32);
    let fp = b.ins().get_frame_pointer(I64);
    b.ins().store(trusted(), fp, store, vmstore::LAST_WASM_EXIT_FP as i32);
    let pc = b.ins().get_return_address(I64);
    b.ins().store(trusted(), pc, store, vmstore::LAST_WASM_EXIT_PC as i32);
    let array = b.ins().load(I64, trusted(), vmctx, offsets.vmctx_builtins() as i32);
    let callee = b.ins().load(I64, trusted(), array, i32::try_from(builtin.index() * 8)?);
    let sig_ref = b.import_signature(sig);
    let call = b.ins().call_indirect(sig_ref, callee, &params);
    let results = b.inst_results(call).to_vec();
    // The exit is over: a collection from elsewhere must not walk this
    // frame any more.
    let zero = b.ins().iconst(I64, 0);
    b.ins().store(trusted(), zero, store, vmstore::LAST_WASM_EXIT_FP as i32);
    b.ins().return_(&results);
    b.finalize(config);
    Ok(func)
}
