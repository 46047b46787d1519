//! Calls from compiled code to the runtime's builtin functions.

use crate::func_translator::FuncTranslator;
use crate::types::{builtin_type, trap_to_code, vmctx_readonly};
use anyhow::{bail, Result};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{AbiParam, InstBuilder, Signature, Value};
use weft_environ::{BuiltinFunction, BuiltinType, Trap};

impl FuncTranslator<'_, '_> {
    /// Calls `builtin` with the function's vmctx followed by `args`. `i32`
    /// arguments passed where the builtin takes a 64-bit integer are
    /// zero-extended. Returns the builtin's result, if any.
    pub(crate) fn call_builtin(&mut self, builtin: BuiltinFunction, args: &[Value]) -> Result<Option<Value>> {
        let params = builtin.params();
        if params.first() != Some(&BuiltinType::Vmctx) || params.len() != args.len() + 1 {
            bail!("builtin {builtin:?} called with {} arguments", args.len());
        }
        let sig = match self.builtin_sigs.get(&builtin.index()) {
            Some(sig) => *sig,
            None => {
                let mut sig = Signature::new(self.default_call_conv);
                sig.params
                    .extend(params.iter().map(|p| AbiParam::new(builtin_type(*p))));
                sig.returns
                    .extend(builtin.results().iter().map(|r| AbiParam::new(builtin_type(*r))));
                let sig = self.b.import_signature(sig);
                self.builtin_sigs.insert(builtin.index(), sig);
                sig
            }
        };
        let mut call_args = vec![self.vmctx];
        for (arg, ty) in args.iter().zip(&params[1..]) {
            let want = builtin_type(*ty);
            let have = self.b.func.dfg.value_type(*arg);
            let arg = match (have, want) {
                (I32, I64) => self.b.ins().uextend(I64, *arg),
                (I64, I32) => self.b.ins().ireduce(I32, *arg),
                _ => *arg,
            };
            call_args.push(arg);
        }
        let inst = match crate::gc_stack_maps::COLLECTING_BUILTINS
            .iter()
            .position(|b| *b == builtin)
        {
            // A builtin that may collect goes through its trampoline, which
            // records where the wasm frames start.
            Some(i) => {
                let f = self.builtin_trampoline_ref(i as u32, sig);
                self.b.ins().call(f, &call_args)
            }
            None => {
                let offset = self.offsets.vmctx_builtins() as i32;
                let array = self.b.ins().load(I64, vmctx_readonly(), self.vmctx, offset);
                let slot = i32::try_from(builtin.index() * 8)?;
                let callee = self.b.ins().load(I64, vmctx_readonly(), array, slot);
                self.b.ins().call_indirect(sig, callee, &call_args)
            }
        };
        Ok(self.b.inst_results(inst).first().copied())
    }

    /// Calls a builtin that returns an `i32` status and traps with `trap`
    /// when the status is non-zero.
    pub(crate) fn call_builtin_checked(&mut self, builtin: BuiltinFunction, args: &[Value], trap: Trap) -> Result<()> {
        let Some(status) = self.call_builtin(builtin, args)? else {
            bail!("builtin {builtin:?} returns no status");
        };
        self.b.ins().trapnz(status, trap_to_code(trap));
        Ok(())
    }

    /// Traps with `HostError` when a grow builtin returned
    /// [`weft_environ::GROW_ERROR`] (the store's resource limiter failed).
    pub(crate) fn trap_on_grow_error(&mut self, old: Value) {
        let failed = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, old, weft_environ::GROW_ERROR as i64);
        self.b.ins().trapnz(failed, trap_to_code(Trap::HostError));
    }

    /// An `i32` constant (for indices passed to builtins).
    pub(crate) fn i32_const(&mut self, value: u32) -> Value {
        self.b.ins().iconst(I32, i64::from(value))
    }
}
