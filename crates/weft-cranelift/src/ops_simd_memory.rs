//! SIMD loads and stores: whole vectors, extending loads, splats, zero-
//! extending loads and single lanes.

use crate::func_translator::FuncTranslator;
use anyhow::Result;
use cranelift_codegen::ir::types::{I16, I16X8, I32, I32X4, I64, I64X2, I8, I8X16};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;
use wasmparser::{MemArg, Operator};

impl FuncTranslator<'_, '_> {
    /// An extending load of 8 bytes (`load8x8_s` and the like).
    fn load_extend(
        &mut self,
        memarg: &MemArg,
        load: impl FnOnce(&mut FunctionBuilder<'_>, MemFlagsData, Value, i32) -> Value,
    ) -> Result<()> {
        let (addr, offset) = self.heap_addr(memarg, 8)?;
        let flags = self.heap_flags();
        let v = load(&mut self.b, flags, addr, offset);
        self.push_v(v);
        Ok(())
    }

    /// Loads a scalar of type `lane` and splats it to a vector of type `ty`.
    fn load_splat(&mut self, memarg: &MemArg, lane: Type, ty: Type) -> Result<()> {
        let (addr, offset) = self.heap_addr(memarg, lane.bytes())?;
        let flags = self.heap_flags();
        let x = self.b.ins().load(lane, flags, addr, offset);
        let v = self.b.ins().splat(ty, x);
        self.push_v(v);
        Ok(())
    }

    /// Loads a scalar of type `lane` into lane 0 of a zeroed vector of type
    /// `ty`.
    fn load_zero(&mut self, memarg: &MemArg, lane: Type, ty: Type) -> Result<()> {
        let (addr, offset) = self.heap_addr(memarg, lane.bytes())?;
        let flags = self.heap_flags();
        let x = self.b.ins().load(lane, flags, addr, offset);
        let v = self.b.ins().scalar_to_vector(ty, x);
        self.push_v(v);
        Ok(())
    }

    /// Loads a scalar of type `ty.lane_type()` into lane `lane` of the
    /// vector on the stack (of type `ty`).
    fn load_lane(&mut self, memarg: &MemArg, ty: Type, lane: u8) -> Result<()> {
        let vector = self.pop_v(ty);
        let (addr, offset) = self.heap_addr(memarg, ty.lane_type().bytes())?;
        let flags = self.heap_flags();
        let x = self.b.ins().load(ty.lane_type(), flags, addr, offset);
        let v = self.b.ins().insertlane(vector, x, lane);
        self.push_v(v);
        Ok(())
    }

    /// Stores lane `lane` of the vector on the stack (of type `ty`).
    fn store_lane(&mut self, memarg: &MemArg, ty: Type, lane: u8) -> Result<()> {
        let vector = self.pop_v(ty);
        let (addr, offset) = self.heap_addr(memarg, ty.lane_type().bytes())?;
        let flags = self.heap_flags();
        let x = self.b.ins().extractlane(vector, lane);
        self.b.ins().store(flags, x, addr, offset);
        Ok(())
    }

    /// Translates `op` if it is a SIMD memory access; returns whether it
    /// was.
    pub(crate) fn translate_simd_memory(&mut self, op: &Operator<'_>) -> Result<bool> {
        use Operator as O;
        match op {
            O::V128Load { memarg } => self.wasm_load(memarg, 16, |b, f, a, o| b.ins().load(I8X16, f, a, o))?,
            O::V128Store { memarg } => self.wasm_store(memarg, 16, |b, f, v, a, o| {
                b.ins().store(f, v, a, o);
            })?,
            O::V128Load8x8S { memarg } => self.load_extend(memarg, |b, f, a, o| b.ins().sload8x8(f, a, o))?,
            O::V128Load8x8U { memarg } => self.load_extend(memarg, |b, f, a, o| b.ins().uload8x8(f, a, o))?,
            O::V128Load16x4S { memarg } => self.load_extend(memarg, |b, f, a, o| b.ins().sload16x4(f, a, o))?,
            O::V128Load16x4U { memarg } => self.load_extend(memarg, |b, f, a, o| b.ins().uload16x4(f, a, o))?,
            O::V128Load32x2S { memarg } => self.load_extend(memarg, |b, f, a, o| b.ins().sload32x2(f, a, o))?,
            O::V128Load32x2U { memarg } => self.load_extend(memarg, |b, f, a, o| b.ins().uload32x2(f, a, o))?,
            O::V128Load8Splat { memarg } => self.load_splat(memarg, I8, I8X16)?,
            O::V128Load16Splat { memarg } => self.load_splat(memarg, I16, I16X8)?,
            O::V128Load32Splat { memarg } => self.load_splat(memarg, I32, I32X4)?,
            O::V128Load64Splat { memarg } => self.load_splat(memarg, I64, I64X2)?,
            O::V128Load32Zero { memarg } => self.load_zero(memarg, I32, I32X4)?,
            O::V128Load64Zero { memarg } => self.load_zero(memarg, I64, I64X2)?,
            O::V128Load8Lane { memarg, lane } => self.load_lane(memarg, I8X16, *lane)?,
            O::V128Load16Lane { memarg, lane } => self.load_lane(memarg, I16X8, *lane)?,
            O::V128Load32Lane { memarg, lane } => self.load_lane(memarg, I32X4, *lane)?,
            O::V128Load64Lane { memarg, lane } => self.load_lane(memarg, I64X2, *lane)?,
            O::V128Store8Lane { memarg, lane } => self.store_lane(memarg, I8X16, *lane)?,
            O::V128Store16Lane { memarg, lane } => self.store_lane(memarg, I16X8, *lane)?,
            O::V128Store32Lane { memarg, lane } => self.store_lane(memarg, I32X4, *lane)?,
            O::V128Store64Lane { memarg, lane } => self.store_lane(memarg, I64X2, *lane)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}
