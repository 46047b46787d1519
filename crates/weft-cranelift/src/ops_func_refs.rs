//! Tail calls (`return_call`, `return_call_indirect`, `return_call_ref`)
//! and the operators of typed function references (`call_ref`,
//! `ref.as_non_null`, `br_on_null`, `br_on_non_null`).
//!
//! Every wasm function uses Cranelift's `tail` calling convention, so a tail
//! call is Cranelift's `return_call`: the caller's frame is replaced by the
//! callee's and a chain of tail calls runs in constant stack space.

use crate::func_translator::{block_args, FuncTranslator};
use crate::types::{trap_to_code, vmctx_readonly};
use anyhow::{anyhow, Result};
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{InstBuilder, Value};
use wasmparser::Operator;
use weft_environ::Trap;

impl FuncTranslator<'_, '_> {
    /// The number of parameters of module type `ty_index`.
    fn num_params(&self, ty_index: u32) -> Result<usize> {
        self.module
            .types
            .get(ty_index as usize)
            .map(|t| t.params.len())
            .ok_or_else(|| anyhow!("type index {ty_index} out of range"))
    }

    /// Pops a function reference and traps with [`Trap::NullReference`]
    /// when it is null; returns its code pointer and vmctx.
    fn non_null_callee(&mut self) -> (Value, Value) {
        let func_ref = self.pop();
        self.b.ins().trapz(func_ref, trap_to_code(Trap::NullReference));
        self.load_func_ref_fields(func_ref, false)
    }

    /// Tail-calls `code` with the wasm signature of module type `ty_index`,
    /// popping the arguments.
    fn return_call_indirect_wasm(&mut self, ty_index: u32, code: Value, callee_vmctx: Value) -> Result<()> {
        let sig = self.wasm_sig_ref(ty_index)?;
        let mut args = vec![callee_vmctx, self.vmctx];
        args.extend(self.popn(self.num_params(ty_index)?));
        self.b.ins().return_call_indirect(sig, code, &args);
        self.reachable = false;
        Ok(())
    }

    /// `return_call`: a direct tail call for defined functions, through the
    /// import's `VMFuncRef` for imported ones.
    fn translate_return_call(&mut self, function_index: u32) -> Result<()> {
        let ty_index = *self
            .module
            .functions
            .get(function_index as usize)
            .ok_or_else(|| anyhow!("function index {function_index} out of range"))?;
        if self.module.is_imported_func(function_index) {
            let func_ref = self.b.ins().load(
                I64,
                vmctx_readonly(),
                self.vmctx,
                self.offsets.vmctx_func_ref(function_index) as i32,
            );
            let (code, callee_vmctx) = self.load_func_ref_fields(func_ref, true);
            return self.return_call_indirect_wasm(ty_index, code, callee_vmctx);
        }
        let sig = self.wasm_sig_ref(ty_index)?;
        let callee = self.direct_func_ref(function_index - self.module.num_imported_funcs, sig);
        let mut args = vec![self.vmctx, self.vmctx];
        args.extend(self.popn(self.num_params(ty_index)?));
        self.b.ins().return_call(callee, &args);
        self.reachable = false;
        Ok(())
    }

    /// Translates `op` if it is a tail call or an operator of typed function
    /// references; returns whether it was.
    pub(crate) fn translate_func_refs(&mut self, op: &Operator<'_>) -> Result<bool> {
        use Operator as O;
        match *op {
            O::ReturnCall { function_index } => self.translate_return_call(function_index)?,
            O::ReturnCallIndirect {
                type_index,
                table_index,
            } => {
                let (code, callee_vmctx) = self.indirect_callee(type_index, table_index)?;
                self.return_call_indirect_wasm(type_index, code, callee_vmctx)?;
            }
            O::CallRef { type_index } => {
                let (code, callee_vmctx) = self.non_null_callee();
                self.call_wasm_indirect(type_index, code, callee_vmctx)?;
            }
            O::ReturnCallRef { type_index } => {
                let (code, callee_vmctx) = self.non_null_callee();
                self.return_call_indirect_wasm(type_index, code, callee_vmctx)?;
            }
            O::RefAsNonNull => {
                let r = self.pop();
                self.b.ins().trapz(r, trap_to_code(Trap::NullReference));
                self.push(r);
            }
            O::BrOnNull { relative_depth } => {
                // Null: branch with the values below the reference. Not
                // null: go on with the reference on the stack.
                let r = self.pop();
                let (target, arity) = self.branch_target(self.frame_index(relative_depth));
                let args = block_args(&self.peekn(arity));
                let next = self.b.create_block();
                self.b.ins().brif(r, next, &[], target, &args);
                self.b.seal_block(next);
                self.b.switch_to_block(next);
                self.push(r);
            }
            O::BrOnNonNull { relative_depth } => {
                // Not null: branch with the reference as the last value.
                // Null: go on without it.
                let r = self.pop();
                let (target, arity) = self.branch_target(self.frame_index(relative_depth));
                let mut args = self.peekn(arity.saturating_sub(1));
                args.push(r);
                let args = block_args(&args);
                let next = self.b.create_block();
                self.b.ins().brif(r, target, &args, next, &[]);
                self.b.seal_block(next);
                self.b.switch_to_block(next);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}
