//! Fuel and epoch checks.
//!
//! With `Tunables::consume_fuel`, operators charge fuel into a counter kept
//! in the translator; the count is added to the store's `fuel_consumed` at
//! every point where control flow may leave the current basic block (so no
//! path loses its charge), and function entries and loop headers call the
//! `OutOfFuel` builtin once the counter is no longer negative. With
//! `Tunables::epoch_interruption`, the same places compare the engine's epoch
//! with the store's deadline and call `NewEpoch` when it is reached. Both
//! builtins return a status; non-zero traps with `HostError`, the builtin
//! having recorded why.

use crate::func_translator::FuncTranslator;
use crate::types::{trusted, vmctx_readonly};
use anyhow::Result;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types::I64, InstBuilder, Value};
use wasmparser::Operator;
use weft_environ::{vmstore, BuiltinFunction, Trap};

impl FuncTranslator<'_, '_> {
    /// The store context pointer.
    pub(crate) fn store_context(&mut self) -> Value {
        let offset = self.offsets.vmctx_store_context() as i32;
        self.b.ins().load(I64, vmctx_readonly(), self.vmctx, offset)
    }

    /// Charges the fuel of `op` and, where control may leave the block,
    /// adds what is pending to the store's counter.
    pub(crate) fn charge_fuel(&mut self, op: &Operator<'_>) {
        let (cost, flush) = match op {
            Operator::Nop | Operator::Drop | Operator::Block { .. } | Operator::Loop { .. } => {
                (0, matches!(op, Operator::Loop { .. }))
            }
            Operator::Unreachable | Operator::Return | Operator::Else | Operator::End => (0, true),
            Operator::If { .. }
            | Operator::Br { .. }
            | Operator::BrIf { .. }
            | Operator::BrTable { .. }
            | Operator::Call { .. }
            | Operator::CallIndirect { .. }
            | Operator::CallRef { .. }
            | Operator::ReturnCall { .. }
            | Operator::ReturnCallIndirect { .. }
            | Operator::ReturnCallRef { .. }
            | Operator::BrOnNull { .. }
            | Operator::BrOnNonNull { .. }
            | Operator::Throw { .. }
            | Operator::ThrowRef => (1, true),
            _ => (1, false),
        };
        self.pending_fuel += cost;
        if flush {
            self.flush_fuel();
        }
    }

    /// Adds the pending fuel to the store's counter.
    pub(crate) fn flush_fuel(&mut self) {
        if self.pending_fuel == 0 {
            return;
        }
        let ctx = self.store_context();
        let offset = vmstore::FUEL_CONSUMED as i32;
        let fuel = self.b.ins().load(I64, trusted(), ctx, offset);
        let fuel = self.b.ins().iadd_imm_s(fuel, self.pending_fuel);
        self.b.ins().store(trusted(), fuel, ctx, offset);
        self.pending_fuel = 0;
    }

    /// At a function entry or loop header: calls into the runtime when fuel
    /// ran out or the epoch deadline passed.
    pub(crate) fn interrupt_checks(&mut self) -> Result<()> {
        if self.tunables.consume_fuel {
            self.flush_fuel();
            let ctx = self.store_context();
            let fuel = self.b.ins().load(I64, trusted(), ctx, vmstore::FUEL_CONSUMED as i32);
            let out = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, fuel, 0);
            self.call_builtin_if(out, BuiltinFunction::OutOfFuel)?;
        }
        if self.tunables.epoch_interruption {
            let ctx = self.store_context();
            let counter = self.b.ins().load(I64, vmctx_readonly(), ctx, vmstore::EPOCH_PTR as i32);
            let epoch = self.b.ins().load(I64, trusted(), counter, 0);
            let deadline = self.b.ins().load(I64, trusted(), ctx, vmstore::EPOCH_DEADLINE as i32);
            let reached = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, epoch, deadline);
            self.call_builtin_if(reached, BuiltinFunction::NewEpoch)?;
        }
        Ok(())
    }

    /// Calls `builtin` (a status-returning interrupt builtin) when `cond`
    /// holds, in a cold block, and continues in a new block.
    fn call_builtin_if(&mut self, cond: Value, builtin: BuiltinFunction) -> Result<()> {
        let slow = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(slow);
        self.b.ins().brif(cond, slow, &[], cont, &[]);
        self.b.seal_block(slow);
        self.b.switch_to_block(slow);
        self.call_builtin_checked(builtin, &[], Trap::HostError)?;
        self.b.ins().jump(cont, &[]);
        self.b.seal_block(cont);
        self.b.switch_to_block(cont);
        Ok(())
    }
}
