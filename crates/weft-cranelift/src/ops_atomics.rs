//! The threads proposal's atomic operators: loads, stores, read-modify-
//! writes and compare-exchanges of 8 to 64 bits, `atomic.fence`, and
//! `memory.atomic.wait32`/`wait64`/`notify` (runtime builtins).
//!
//! Every atomic access checks its effective address here, first for
//! alignment (`Trap::HeapMisaligned`), then against the memory's current
//! length (`Trap::MemoryOutOfBounds`), so the access itself never faults:
//! the guard region is not relied on for atomics.

use crate::func_translator::FuncTranslator;
use crate::types::{trap_to_code, trusted};
use anyhow::{anyhow, bail, Result};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I16, I32, I64, I8};
use cranelift_codegen::ir::{AtomicRmwOp, InstBuilder, MemFlagsData, Type, Value};
use wasmparser::{MemArg, MemArgTarget, Operator};
use weft_environ::{BuiltinFunction, Trap};

/// What the wait and notify builtins return for an access out of bounds
/// (as the signed `i32` they return).
const WAIT_OUT_OF_BOUNDS: i64 = weft_environ::ATOMIC_OUT_OF_BOUNDS as i32 as i64;
/// What the wait builtins return for a memory that is not shared.
const WAIT_NOT_SHARED: i64 = weft_environ::ATOMIC_WAIT_NOT_SHARED as i32 as i64;

impl FuncTranslator<'_, '_> {
    /// Translates the atomic operators; returns whether `op` was one.
    pub(crate) fn translate_atomics(&mut self, op: &Operator<'_>) -> Result<bool> {
        use AtomicRmwOp as A;
        use Operator as O;
        match op {
            O::AtomicFence { .. } => {
                self.b.ins().fence();
            }
            O::I32AtomicLoad { memarg } => self.atomic_load(memarg, I32, I32)?,
            O::I64AtomicLoad { memarg } => self.atomic_load(memarg, I64, I64)?,
            O::I32AtomicLoad8U { memarg } => self.atomic_load(memarg, I8, I32)?,
            O::I32AtomicLoad16U { memarg } => self.atomic_load(memarg, I16, I32)?,
            O::I64AtomicLoad8U { memarg } => self.atomic_load(memarg, I8, I64)?,
            O::I64AtomicLoad16U { memarg } => self.atomic_load(memarg, I16, I64)?,
            O::I64AtomicLoad32U { memarg } => self.atomic_load(memarg, I32, I64)?,
            O::I32AtomicStore { memarg } | O::I64AtomicStore { memarg } => {
                let ty = if matches!(op, O::I32AtomicStore { .. }) {
                    I32
                } else {
                    I64
                };
                self.atomic_store(memarg, ty)?
            }
            O::I32AtomicStore8 { memarg } | O::I64AtomicStore8 { memarg } => self.atomic_store(memarg, I8)?,
            O::I32AtomicStore16 { memarg } | O::I64AtomicStore16 { memarg } => self.atomic_store(memarg, I16)?,
            O::I64AtomicStore32 { memarg } => self.atomic_store(memarg, I32)?,

            O::I32AtomicRmwAdd { memarg } => self.atomic_rmw(memarg, A::Add, I32, I32)?,
            O::I64AtomicRmwAdd { memarg } => self.atomic_rmw(memarg, A::Add, I64, I64)?,
            O::I32AtomicRmw8AddU { memarg } => self.atomic_rmw(memarg, A::Add, I8, I32)?,
            O::I32AtomicRmw16AddU { memarg } => self.atomic_rmw(memarg, A::Add, I16, I32)?,
            O::I64AtomicRmw8AddU { memarg } => self.atomic_rmw(memarg, A::Add, I8, I64)?,
            O::I64AtomicRmw16AddU { memarg } => self.atomic_rmw(memarg, A::Add, I16, I64)?,
            O::I64AtomicRmw32AddU { memarg } => self.atomic_rmw(memarg, A::Add, I32, I64)?,
            O::I32AtomicRmwSub { memarg } => self.atomic_rmw(memarg, A::Sub, I32, I32)?,
            O::I64AtomicRmwSub { memarg } => self.atomic_rmw(memarg, A::Sub, I64, I64)?,
            O::I32AtomicRmw8SubU { memarg } => self.atomic_rmw(memarg, A::Sub, I8, I32)?,
            O::I32AtomicRmw16SubU { memarg } => self.atomic_rmw(memarg, A::Sub, I16, I32)?,
            O::I64AtomicRmw8SubU { memarg } => self.atomic_rmw(memarg, A::Sub, I8, I64)?,
            O::I64AtomicRmw16SubU { memarg } => self.atomic_rmw(memarg, A::Sub, I16, I64)?,
            O::I64AtomicRmw32SubU { memarg } => self.atomic_rmw(memarg, A::Sub, I32, I64)?,
            O::I32AtomicRmwAnd { memarg } => self.atomic_rmw(memarg, A::And, I32, I32)?,
            O::I64AtomicRmwAnd { memarg } => self.atomic_rmw(memarg, A::And, I64, I64)?,
            O::I32AtomicRmw8AndU { memarg } => self.atomic_rmw(memarg, A::And, I8, I32)?,
            O::I32AtomicRmw16AndU { memarg } => self.atomic_rmw(memarg, A::And, I16, I32)?,
            O::I64AtomicRmw8AndU { memarg } => self.atomic_rmw(memarg, A::And, I8, I64)?,
            O::I64AtomicRmw16AndU { memarg } => self.atomic_rmw(memarg, A::And, I16, I64)?,
            O::I64AtomicRmw32AndU { memarg } => self.atomic_rmw(memarg, A::And, I32, I64)?,
            O::I32AtomicRmwOr { memarg } => self.atomic_rmw(memarg, A::Or, I32, I32)?,
            O::I64AtomicRmwOr { memarg } => self.atomic_rmw(memarg, A::Or, I64, I64)?,
            O::I32AtomicRmw8OrU { memarg } => self.atomic_rmw(memarg, A::Or, I8, I32)?,
            O::I32AtomicRmw16OrU { memarg } => self.atomic_rmw(memarg, A::Or, I16, I32)?,
            O::I64AtomicRmw8OrU { memarg } => self.atomic_rmw(memarg, A::Or, I8, I64)?,
            O::I64AtomicRmw16OrU { memarg } => self.atomic_rmw(memarg, A::Or, I16, I64)?,
            O::I64AtomicRmw32OrU { memarg } => self.atomic_rmw(memarg, A::Or, I32, I64)?,
            O::I32AtomicRmwXor { memarg } => self.atomic_rmw(memarg, A::Xor, I32, I32)?,
            O::I64AtomicRmwXor { memarg } => self.atomic_rmw(memarg, A::Xor, I64, I64)?,
            O::I32AtomicRmw8XorU { memarg } => self.atomic_rmw(memarg, A::Xor, I8, I32)?,
            O::I32AtomicRmw16XorU { memarg } => self.atomic_rmw(memarg, A::Xor, I16, I32)?,
            O::I64AtomicRmw8XorU { memarg } => self.atomic_rmw(memarg, A::Xor, I8, I64)?,
            O::I64AtomicRmw16XorU { memarg } => self.atomic_rmw(memarg, A::Xor, I16, I64)?,
            O::I64AtomicRmw32XorU { memarg } => self.atomic_rmw(memarg, A::Xor, I32, I64)?,
            O::I32AtomicRmwXchg { memarg } => self.atomic_rmw(memarg, A::Xchg, I32, I32)?,
            O::I64AtomicRmwXchg { memarg } => self.atomic_rmw(memarg, A::Xchg, I64, I64)?,
            O::I32AtomicRmw8XchgU { memarg } => self.atomic_rmw(memarg, A::Xchg, I8, I32)?,
            O::I32AtomicRmw16XchgU { memarg } => self.atomic_rmw(memarg, A::Xchg, I16, I32)?,
            O::I64AtomicRmw8XchgU { memarg } => self.atomic_rmw(memarg, A::Xchg, I8, I64)?,
            O::I64AtomicRmw16XchgU { memarg } => self.atomic_rmw(memarg, A::Xchg, I16, I64)?,
            O::I64AtomicRmw32XchgU { memarg } => self.atomic_rmw(memarg, A::Xchg, I32, I64)?,

            O::I32AtomicRmwCmpxchg { memarg } => self.atomic_cmpxchg(memarg, I32, I32)?,
            O::I64AtomicRmwCmpxchg { memarg } => self.atomic_cmpxchg(memarg, I64, I64)?,
            O::I32AtomicRmw8CmpxchgU { memarg } => self.atomic_cmpxchg(memarg, I8, I32)?,
            O::I32AtomicRmw16CmpxchgU { memarg } => self.atomic_cmpxchg(memarg, I16, I32)?,
            O::I64AtomicRmw8CmpxchgU { memarg } => self.atomic_cmpxchg(memarg, I8, I64)?,
            O::I64AtomicRmw16CmpxchgU { memarg } => self.atomic_cmpxchg(memarg, I16, I64)?,
            O::I64AtomicRmw32CmpxchgU { memarg } => self.atomic_cmpxchg(memarg, I32, I64)?,

            O::MemoryAtomicWait32 { memarg } => self.atomic_wait(memarg, BuiltinFunction::MemoryAtomicWait32, 4)?,
            O::MemoryAtomicWait64 { memarg } => self.atomic_wait(memarg, BuiltinFunction::MemoryAtomicWait64, 8)?,
            O::MemoryAtomicNotify { memarg } => {
                let count = self.pop();
                let (mem, ea) = self.atomic_effective_address(memarg, 4)?;
                let mem = self.i32_const(mem);
                let woken = self
                    .call_builtin(BuiltinFunction::MemoryAtomicNotify, &[mem, ea, count])?
                    .ok_or_else(|| anyhow!("the notify builtin returns nothing"))?;
                self.trap_on_wait_status(woken);
                self.push(woken);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The flags of atomic accesses: their address was checked, so they
    /// cannot fault.
    fn atomic_flags(&self) -> MemFlagsData {
        trusted().with_alias_region(Some(self.regions.heap))
    }

    /// Pops an index and returns the memory and effective address
    /// (`index + offset`, as an `i64`) of an atomic access of `size` bytes,
    /// trapping when it is not aligned to `size`.
    fn atomic_effective_address(&mut self, memarg: &MemArg, size: u32) -> Result<(u32, Value)> {
        let mem = match memarg.target {
            MemArgTarget::Memory(mem) => mem,
            MemArgTarget::Array(_) => bail!("GC array accesses are not supported"),
        };
        let memory64 = self.check_atomic_memory(mem)?;
        let index = self.pop();
        let index = if memory64 {
            index
        } else {
            self.b.ins().uextend(I64, index)
        };
        let offset = self.b.ins().iconst(I64, memarg.offset as i64);
        // An offset past the 64-bit index space is out of bounds.
        let ea = self
            .b
            .ins()
            .uadd_overflow_trap(index, offset, trap_to_code(Trap::MemoryOutOfBounds));
        if size > 1 {
            let misaligned = self.b.ins().band_imm_u(ea, i64::from(size - 1));
            self.b.ins().trapnz(misaligned, trap_to_code(Trap::HeapMisaligned));
        }
        Ok((mem, ea))
    }

    fn check_atomic_memory(&self, mem: u32) -> Result<bool> {
        Ok(self.memory_decl(mem)?.memory64)
    }

    /// The native address of an atomic access of `size` bytes (aligned,
    /// and checked against the memory's current length).
    fn atomic_addr(&mut self, memarg: &MemArg, size: u32) -> Result<Value> {
        let (mem, ea) = self.atomic_effective_address(memarg, size)?;
        let def = self.memory_def(mem)?;
        let length = self.memory_length(def);
        let size = self.b.ins().iconst(I64, i64::from(size));
        let end = self
            .b
            .ins()
            .uadd_overflow_trap(ea, size, trap_to_code(Trap::MemoryOutOfBounds));
        let oob = self.b.ins().icmp(IntCC::UnsignedGreaterThan, end, length);
        self.b.ins().trapnz(oob, trap_to_code(Trap::MemoryOutOfBounds));
        let base = self.memory_base(mem)?;
        Ok(self.b.ins().iadd(base, ea))
    }

    /// Zero-extends `v` (of the access type) to the operator's type.
    fn widen(&mut self, v: Value, access: Type, ty: Type) -> Value {
        if access == ty {
            v
        } else {
            self.b.ins().uextend(ty, v)
        }
    }

    /// Truncates `v` (of the operator's type) to the access type.
    fn narrow(&mut self, v: Value, access: Type) -> Value {
        if self.b.func.dfg.value_type(v) == access {
            v
        } else {
            self.b.ins().ireduce(access, v)
        }
    }

    fn atomic_load(&mut self, memarg: &MemArg, access: Type, ty: Type) -> Result<()> {
        let addr = self.atomic_addr(memarg, access.bytes())?;
        let flags = self.atomic_flags();
        let v = self.b.ins().atomic_load(access, flags, addr);
        let v = self.widen(v, access, ty);
        self.push(v);
        Ok(())
    }

    fn atomic_store(&mut self, memarg: &MemArg, access: Type) -> Result<()> {
        let value = self.pop();
        let addr = self.atomic_addr(memarg, access.bytes())?;
        let value = self.narrow(value, access);
        let flags = self.atomic_flags();
        self.b.ins().atomic_store(flags, value, addr);
        Ok(())
    }

    fn atomic_rmw(&mut self, memarg: &MemArg, op: AtomicRmwOp, access: Type, ty: Type) -> Result<()> {
        let value = self.pop();
        let addr = self.atomic_addr(memarg, access.bytes())?;
        let value = self.narrow(value, access);
        let flags = self.atomic_flags();
        let old = self.b.ins().atomic_rmw(access, flags, op, addr, value);
        let old = self.widen(old, access, ty);
        self.push(old);
        Ok(())
    }

    fn atomic_cmpxchg(&mut self, memarg: &MemArg, access: Type, ty: Type) -> Result<()> {
        let (expected, replacement) = self.pop2();
        let addr = self.atomic_addr(memarg, access.bytes())?;
        let expected = self.narrow(expected, access);
        let replacement = self.narrow(replacement, access);
        let flags = self.atomic_flags();
        let old = self.b.ins().atomic_cas(flags, addr, expected, replacement);
        let old = self.widen(old, access, ty);
        self.push(old);
        Ok(())
    }

    /// `memory.atomic.wait32`/`64`: the builtin checks the bounds and that
    /// the memory is shared, compares and sleeps.
    fn atomic_wait(&mut self, memarg: &MemArg, builtin: BuiltinFunction, size: u32) -> Result<()> {
        let timeout = self.pop();
        let expected = self.pop();
        let (mem, ea) = self.atomic_effective_address(memarg, size)?;
        let mem = self.i32_const(mem);
        let status = self
            .call_builtin(builtin, &[mem, ea, expected, timeout])?
            .ok_or_else(|| anyhow!("the wait builtin returns nothing"))?;
        self.trap_on_wait_status(status);
        self.push(status);
        Ok(())
    }

    /// Traps when a wait or notify builtin reported an access out of
    /// bounds or a wait on a memory that is not shared.
    fn trap_on_wait_status(&mut self, status: Value) {
        let oob = self.b.ins().icmp_imm_s(IntCC::Equal, status, WAIT_OUT_OF_BOUNDS);
        self.b.ins().trapnz(oob, trap_to_code(Trap::MemoryOutOfBounds));
        let unshared = self.b.ins().icmp_imm_s(IntCC::Equal, status, WAIT_NOT_SHARED);
        self.b
            .ins()
            .trapnz(unshared, trap_to_code(Trap::AtomicWaitNonSharedMemory));
    }
}
