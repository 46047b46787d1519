//! Exception handling: `throw`, `throw_ref` and the handlers of `try_table`.
//!
//! Throwing calls a builtin that records the exception as the store's
//! pending exception (`vmstore::PENDING_EXN` and its tag identity in
//! `PENDING_EXN_TAG`), then jumps to the handler of the throw point.
//!
//! The handler of a point is the dispatch block of the innermost enclosing
//! `try_table`, or else the function's propagate block. A dispatch
//! block compares the pending tag with the tag identity of each `catch`
//! clause (identities are per instance: the pointer in the vmctx's tag
//! array), in order; on a match it clears the pending exception, reads the
//! payload and branches to the clause's label; otherwise it jumps to the
//! handler of the enclosing `try_table`.
//!
//! A legacy `try` (`try` ... `catch`/`catch_all` ... `end`, or `try` ...
//! `delegate`) works the same way: throw points of its body jump to its
//! dispatch block, which each `catch` clause extends with the test of its
//! tag as the clause is reached (the clause's body follows its test); an
//! exception no clause takes goes on to the enclosing handler, and
//! `delegate` sends every exception of the body to the handler of the
//! label it names. A clause keeps the exception it caught, for
//! `rethrow`. Inside a clause the `try`'s own handlers no longer apply.
//!
//! Exceptions leave a function by unwinding, so calls outside the scope of
//! a handler cost nothing. A call to wasm in the scope of one is a
//! `try_call`: Cranelift records, for its return address, a landing pad
//! that jumps to the handler, and the offset of the stack pointer from the
//! frame pointer there. The propagate block calls the `Unwind` builtin,
//! which walks the frame pointers of the calling wasm frames to the first
//! return address with a landing pad and resumes there (the landing pad
//! takes every register as clobbered, as after any exceptional edge). When
//! no frame of this call into wasm has one, the builtin returns and the
//! block traps with `Trap::UncaughtException`; the runtime turns that into
//! an error. A host function between the thrower and a would-be catcher
//! gets that error from its own call into wasm, so no Rust frame with
//! work left is ever skipped; if it returns it (or throws an exception of
//! its own), the host shim makes the exception pending again and unwinds
//! from the wasm-to-host trampoline's exit in the same way.

use crate::func_translator::{block_args, FuncTranslator};
use crate::types::{clif_type, trap_to_code, trusted, vmctx_readonly};
use anyhow::{anyhow, Result};
use cranelift_codegen::ir::{types, Block, InstBuilder, StackSlotData, StackSlotKind, Type, Value};
use wasmparser::{Catch, Operator};
use weft_environ::{vmstore, BuiltinFunction, Trap, VALRAW_SIZE};

impl FuncTranslator<'_, '_> {
    /// Translates the exception operators other than `try_table`; returns
    /// whether `op` was one.
    pub(crate) fn translate_exceptions(&mut self, op: &Operator<'_>) -> Result<bool> {
        match op {
            Operator::Throw { tag_index } => self.translate_throw(*tag_index)?,
            Operator::ThrowRef => {
                let exn = self.pop();
                self.b.ins().trapz(exn, trap_to_code(Trap::NullReference));
                self.call_builtin(BuiltinFunction::ThrowRef, &[exn])?;
                let handler = self.handler_block();
                self.jump(handler, &[]);
                self.reachable = false;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn tag_param_types(&self, tag: u32) -> Result<Vec<Type>> {
        let ty_index = *self
            .module
            .tags
            .get(tag as usize)
            .ok_or_else(|| anyhow!("tag index {tag} out of range"))?;
        let ty = self
            .module
            .types
            .get(ty_index as usize)
            .ok_or_else(|| anyhow!("tag type index {ty_index} out of range"))?;
        ty.params.iter().map(|p| clif_type(*p)).collect()
    }

    fn values_slot(&mut self, n: usize) -> Result<Value> {
        let size = u32::try_from(n.max(1))? * VALRAW_SIZE;
        let slot = self
            .b
            .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, size, 4));
        Ok(self.b.ins().stack_addr(types::I64, slot, 0))
    }

    fn translate_throw(&mut self, tag: u32) -> Result<()> {
        let tys = self.tag_param_types(tag)?;
        let values = self.popn(tys.len());
        let slot = self.values_slot(values.len())?;
        for (i, v) in values.iter().enumerate() {
            let offset = i32::try_from(i)? * VALRAW_SIZE as i32;
            self.b.ins().store(trusted(), *v, slot, offset);
        }
        let tag_value = self.i32_const(tag);
        self.call_builtin(BuiltinFunction::Throw, &[tag_value, slot])?;
        let handler = self.handler_block();
        self.jump(handler, &[]);
        self.reachable = false;
        Ok(())
    }

    /// The function's propagate block: unwinds the pending exception to the
    /// innermost calling frame with a handler for it (the `Unwind`
    /// builtin), or traps with `UncaughtException` when no frame of this
    /// call into wasm has one. Created on first use and filled by
    /// [`FuncTranslator::finish_propagate_block`] once the body is done.
    pub(crate) fn propagate_block(&mut self) -> Block {
        if let Some(block) = self.propagate {
            return block;
        }
        let block = self.b.create_block();
        // Exceptions are rare: keep the block out of the straight-line code.
        self.b.set_cold_block(block);
        self.propagate = Some(block);
        block
    }

    /// Fills the propagate block, if some throw point used it. Called after
    /// the function's last `end`, when every other block is filled.
    pub(crate) fn finish_propagate_block(&mut self) -> Result<()> {
        let Some(block) = self.propagate else { return Ok(()) };
        self.b.switch_to_block(block);
        self.b.seal_block(block);
        self.call_builtin(BuiltinFunction::Unwind, &[])?;
        self.b.ins().trap(trap_to_code(Trap::UncaughtException));
        Ok(())
    }

    /// Emits the test of a handler of `tag` in the current block (a dispatch
    /// block): branches to a new block when the pending exception has the
    /// tag, which becomes the current block; returns the block to go on
    /// testing in when it has not.
    pub(crate) fn test_pending_tag(&mut self, tag: u32) -> Block {
        let store = self.store_context();
        let offset = self.offsets.vmctx_tag(tag) as i32;
        let want = self.b.ins().load(types::I64, vmctx_readonly(), self.vmctx, offset);
        let have = self
            .b
            .ins()
            .load(types::I64, trusted(), store, vmstore::PENDING_EXN_TAG as i32);
        let same = self
            .b
            .ins()
            .icmp(cranelift_codegen::ir::condcodes::IntCC::Equal, want, have);
        let matched = self.b.create_block();
        let next = self.b.create_block();
        self.b.ins().brif(same, matched, &[], next, &[]);
        self.b.seal_block(matched);
        self.b.seal_block(next);
        self.b.switch_to_block(matched);
        next
    }

    /// Takes the pending exception: clears it and returns it.
    pub(crate) fn take_pending_exception(&mut self) -> Value {
        let store = self.store_context();
        let exn = self
            .b
            .ins()
            .load(types::I64, trusted(), store, vmstore::PENDING_EXN as i32);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.ins().store(trusted(), zero, store, vmstore::PENDING_EXN as i32);
        exn
    }

    /// Emits the dispatch block of a `try_table` with `catches` (labels
    /// relative to the frames enclosing the `try_table`, which is not on the
    /// control stack yet). The current block must be filled.
    pub(crate) fn emit_dispatch(&mut self, catches: &[Catch]) -> Result<Block> {
        let outer = self.handler_block();
        let dispatch = self.b.create_block();
        self.b.set_cold_block(dispatch);
        self.b.switch_to_block(dispatch);
        for catch in catches {
            let (tag, label, with_ref) = match *catch {
                Catch::One { tag, label } => (Some(tag), label, false),
                Catch::OneRef { tag, label } => (Some(tag), label, true),
                Catch::All { label } => (None, label, false),
                Catch::AllRef { label } => (None, label, true),
            };
            let next = tag.map(|tag| self.test_pending_tag(tag));
            let exn = self.take_pending_exception();
            let mut args = self.catch_exception(tag, exn, with_ref)?;
            if with_ref {
                args.push(exn);
            }
            let (target, _) = self.branch_target(self.frame_index(label));
            self.b.ins().jump(target, &block_args(&args));
            match next {
                Some(next) => self.b.switch_to_block(next),
                None => return Ok(dispatch),
            }
        }
        self.jump(outer, &[]);
        Ok(dispatch)
    }

    /// Calls the `ExnCatch` builtin for a handler of `tag` (`None`: a
    /// `catch_all`) and loads the payload.
    pub(crate) fn catch_exception(&mut self, tag: Option<u32>, exn: Value, keep: bool) -> Result<Vec<Value>> {
        let tys = match tag {
            Some(tag) => self.tag_param_types(tag)?,
            None => Vec::new(),
        };
        let out = if tys.is_empty() {
            self.b.ins().iconst(types::I64, 0)
        } else {
            self.values_slot(tys.len())?
        };
        let keep = self.i32_const(u32::from(keep));
        self.call_builtin(BuiltinFunction::ExnCatch, &[exn, out, keep])?;
        let mut values = Vec::with_capacity(tys.len());
        for (i, ty) in tys.iter().enumerate() {
            let offset = i32::try_from(i)? * VALRAW_SIZE as i32;
            values.push(self.b.ins().load(*ty, trusted(), out, offset));
        }
        Ok(values)
    }
}
