//! Trampolines between the host's calling convention and wasm's.

use crate::types::{clif_type, trap_to_code, trusted, wasm_signature};
use anyhow::Result;
use cranelift_codegen::ir::types::{I64, I8};
use cranelift_codegen::ir::{AbiParam, Function, InstBuilder, Signature, StackSlotData, StackSlotKind, UserFuncName};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use weft_environ::{vmhostctx, vmstore, Trap, VMOffsets, WasmFuncType, VALRAW_SIZE};

/// Offsets of the fixed part of every `VMContext` (the same for all
/// modules).
pub(crate) fn fixed_offsets() -> VMOffsets {
    VMOffsets {
        num_types: 0,
        num_funcs: 0,
        num_defined_funcs: 0,
        num_memories: 0,
        num_tables: 0,
        num_globals: 0,
        num_imported_globals: 0,
        num_tags: 0,
    }
}

/// Builds the host-to-wasm trampoline of a function type:
/// `extern fn(callee_vmctx, caller_vmctx, code, values: *mut ValRaw)`.
///
/// It loads the parameters from `values[i]`, calls `code` with the wasm
/// calling convention and stores the results to `values[i]`. (An
/// exception no wasm handler catches never returns here: compiled code
/// traps with [`weft_environ::Trap::UncaughtException`] where it finds no
/// handler.)
pub(crate) fn build_array_trampoline(
    ty: &WasmFuncType,
    config: TargetFrontendConfig,
    fctx: &mut FunctionBuilderContext,
) -> Result<Function> {
    let wasm_sig = wasm_signature(ty)?;
    let mut sig = Signature::new(config.default_call_conv);
    sig.params.extend([AbiParam::new(I64); 4]);
    let mut func = Function::with_name_signature(UserFuncName::default(), sig);
    let mut b = FunctionBuilder::new(&mut func, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let &[callee_vmctx, caller_vmctx, code, values] = b.block_params(entry) else {
        unreachable!()
    };

    let mut args = vec![callee_vmctx, caller_vmctx];
    for (i, p) in ty.params.iter().enumerate() {
        let offset = i32::try_from(i as u64 * u64::from(VALRAW_SIZE))?;
        args.push(b.ins().load(clif_type(*p)?, trusted(), values, offset));
    }
    let wasm_sig = b.import_signature(wasm_sig);
    let call = b.ins().call_indirect(wasm_sig, code, &args);
    let results = b.inst_results(call).to_vec();
    for (i, r) in results.into_iter().enumerate() {
        let offset = i32::try_from(i as u64 * u64::from(VALRAW_SIZE))?;
        b.ins().store(trusted(), r, values, offset);
    }
    b.ins().return_(&[]);
    b.finalize(config);
    Ok(func)
}

/// Builds the wasm-to-host trampoline of a function type: a wasm function
/// (tail calling convention) that spills its parameters to a stack buffer of
/// `ValRaw`s, records its frame pointer and return address in the caller's
/// store context, calls the host shim
/// `extern fn(callee_vmctx, caller_vmctx, values, len) -> u8` found at
/// `callee_vmctx + vmhostctx::SHIM`, traps with [`Trap::HostError`] when the
/// shim returns 0, and returns the results the shim wrote to the buffer.
///
/// `len` is `max(params, results)`; the buffer always holds at least one
/// slot.
pub(crate) fn build_wasm_to_host_trampoline(
    ty: &WasmFuncType,
    config: TargetFrontendConfig,
    fctx: &mut FunctionBuilderContext,
) -> Result<Function> {
    let sig = wasm_signature(ty)?;
    let mut func = Function::with_name_signature(UserFuncName::default(), sig);
    let len = ty.params.len().max(ty.results.len());
    let slot_size = u32::try_from(len.max(1))? * VALRAW_SIZE;
    let result_types = ty.results.iter().map(|r| clif_type(*r)).collect::<Result<Vec<_>>>()?;

    let mut b = FunctionBuilder::new(&mut func, fctx);
    let slot = b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, slot_size, 4));
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let params = b.block_params(entry).to_vec();
    let (callee_vmctx, caller_vmctx) = (params[0], params[1]);

    let values = b.ins().stack_addr(I64, slot, 0);
    for (i, p) in params[2..].iter().enumerate() {
        let offset = i32::try_from(i as u64 * u64::from(VALRAW_SIZE))?;
        b.ins().store(trusted(), *p, values, offset);
    }

    let offsets = fixed_offsets();
    let store = b
        .ins()
        .load(I64, trusted(), caller_vmctx, offsets.vmctx_store_context() as i32);
    let fp = b.ins().get_frame_pointer(I64);
    b.ins().store(trusted(), fp, store, vmstore::LAST_WASM_EXIT_FP as i32);
    let pc = b.ins().get_return_address(I64);
    b.ins().store(trusted(), pc, store, vmstore::LAST_WASM_EXIT_PC as i32);

    let shim = b.ins().load(I64, trusted(), callee_vmctx, vmhostctx::SHIM as i32);
    let mut shim_sig = Signature::new(config.default_call_conv);
    shim_sig.params.extend([AbiParam::new(I64); 4]);
    shim_sig.returns.push(AbiParam::new(I8));
    let shim_sig = b.import_signature(shim_sig);
    let len = b.ins().iconst(I64, len as i64);
    let call = b
        .ins()
        .call_indirect(shim_sig, shim, &[callee_vmctx, caller_vmctx, values, len]);
    let ok = b.inst_results(call)[0];
    // The exit is over: a collection from elsewhere must not walk this
    // frame any more.
    let zero = b.ins().iconst(I64, 0);
    b.ins().store(trusted(), zero, store, vmstore::LAST_WASM_EXIT_FP as i32);
    b.ins().trapz(ok, trap_to_code(Trap::HostError));

    let mut results = Vec::with_capacity(result_types.len());
    for (i, ty) in result_types.into_iter().enumerate() {
        let offset = i32::try_from(i as u64 * u64::from(VALRAW_SIZE))?;
        results.push(b.ins().load(ty, trusted(), values, offset));
    }
    b.ins().return_(&results);
    b.finalize(config);
    Ok(func)
}
