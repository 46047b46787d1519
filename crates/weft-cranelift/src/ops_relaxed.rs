//! Relaxed SIMD operators.
//!
//! Each has one result on a given machine, the same every time. With
//! [`weft_environ::Tunables::relaxed_simd_deterministic`] it is the deterministic
//! result of the spec (the one the corresponding non-relaxed operator, or a
//! fused multiply-add, gives); otherwise on x86 it is whatever the fastest
//! native instruction gives, which the spec allows.

use crate::func_translator::FuncTranslator;
use anyhow::{anyhow, Result};
use cranelift_codegen::ir::types::{F32X4, F64X2, I16X8, I32X4, I64X2, I8X16};
use cranelift_codegen::ir::{InstBuilder, Type, Value};
use wasmparser::Operator;
use weft_environ::BuiltinFunction;

impl FuncTranslator<'_, '_> {
    /// Whether relaxed operators may use the fast native x86 instructions.
    fn relaxed_native_x86(&self) -> bool {
        !self.tunables.relaxed_simd_deterministic && self.isa.name() == "x64"
    }

    /// `a * b + c` lane-wise: one fused instruction where the machine has
    /// FMA; otherwise a multiply then an add, or, when results must be
    /// deterministic, the runtime's fused multiply-add for each lane.
    fn relaxed_madd(&mut self, ty: Type, a: Value, b: Value, c: Value) -> Result<Value> {
        if self.isa.has_native_fma() {
            return Ok(self.b.ins().fma(a, b, c));
        }
        if !self.tunables.relaxed_simd_deterministic {
            let product = self.b.ins().fmul(a, b);
            return Ok(self.b.ins().fadd(product, c));
        }
        let builtin = if ty == F32X4 {
            BuiltinFunction::FmaF32
        } else {
            BuiltinFunction::FmaF64
        };
        let mut result = c;
        for lane in 0..ty.lane_count() as u8 {
            let x = self.b.ins().extractlane(a, lane);
            let y = self.b.ins().extractlane(b, lane);
            let z = self.b.ins().extractlane(c, lane);
            let r = self
                .call_builtin(builtin, &[x, y, z])?
                .ok_or_else(|| anyhow!("fma builtin returns nothing"))?;
            result = self.b.ins().insertlane(result, r, lane);
        }
        Ok(result)
    }

    fn relaxed_madd_op(&mut self, ty: Type, negate: bool) -> Result<()> {
        let c = self.pop_v(ty);
        let (a, b) = self.pop2_v(ty);
        let a = if negate { self.b.ins().fneg(a) } else { a };
        let v = self.relaxed_madd(ty, a, b, c)?;
        self.push_v(v);
        Ok(())
    }

    fn relaxed_laneselect(&mut self, ty: Type) {
        let c = self.pop_v(ty);
        let (a, b) = self.pop2_v(ty);
        let v = if self.relaxed_native_x86() && self.isa.has_blendv_lowering(ty) {
            self.b.ins().blendv(c, a, b)
        } else {
            self.b.ins().bitselect(c, a, b)
        };
        self.push_v(v);
    }

    fn relaxed_min_max(&mut self, ty: Type, max: bool) {
        let (a, b) = self.pop2_v(ty);
        let v = match (self.relaxed_native_x86(), max) {
            // `minps`/`maxps` semantics: the second operand when either is
            // NaN or both are zeros.
            (true, false) => self.pmin(ty, a, b),
            (true, true) => self.pmax(ty, a, b),
            (false, false) => self.b.ins().fmin(a, b),
            (false, true) => self.b.ins().fmax(a, b),
        };
        self.push_v(v);
    }

    /// The `i16x8` dot product of signed `a` and 7-bit `b`: `pmaddubsw`
    /// (unsigned `b`, saturating) natively, else signed products with
    /// wrapping sums.
    fn relaxed_dot_i8x16(&mut self, a: Value, b: Value) -> Value {
        if self.relaxed_native_x86() && self.isa.has_x86_pmaddubsw_lowering() {
            return self.b.ins().x86_pmaddubsw(a, b);
        }
        let alo = self.b.ins().swiden_low(a);
        let blo = self.b.ins().swiden_low(b);
        let lo = self.b.ins().imul(alo, blo);
        let ahi = self.b.ins().swiden_high(a);
        let bhi = self.b.ins().swiden_high(b);
        let hi = self.b.ins().imul(ahi, bhi);
        self.b.ins().iadd_pairwise(lo, hi)
    }

    /// Translates `op` if it is a relaxed SIMD operator; returns whether it
    /// was.
    pub(crate) fn translate_relaxed_simd(&mut self, op: &Operator<'_>) -> Result<bool> {
        use Operator as O;
        match op {
            O::I8x16RelaxedSwizzle => {
                let (a, b) = self.pop2_v(I8X16);
                let v = if self.relaxed_native_x86() && self.isa.has_x86_pshufb_lowering() {
                    self.b.ins().x86_pshufb(a, b)
                } else {
                    self.b.ins().swizzle(a, b)
                };
                self.push_v(v);
            }
            O::I32x4RelaxedTruncF32x4S => {
                let a = self.pop_v(F32X4);
                let v = if self.relaxed_native_x86() {
                    self.b.ins().x86_cvtt2dq(I32X4, a)
                } else {
                    self.b.ins().fcvt_to_sint_sat(I32X4, a)
                };
                self.push_v(v);
            }
            O::I32x4RelaxedTruncF32x4U => {
                let a = self.pop_v(F32X4);
                let v = self.b.ins().fcvt_to_uint_sat(I32X4, a);
                self.push_v(v);
            }
            O::I32x4RelaxedTruncF64x2SZero | O::I32x4RelaxedTruncF64x2UZero => {
                let a = self.pop_v(F64X2);
                let signed = matches!(op, O::I32x4RelaxedTruncF64x2SZero);
                let v = self.trunc_sat_f64x2_zero(a, signed);
                self.push_v(v);
            }
            O::F32x4RelaxedMadd => self.relaxed_madd_op(F32X4, false)?,
            O::F32x4RelaxedNmadd => self.relaxed_madd_op(F32X4, true)?,
            O::F64x2RelaxedMadd => self.relaxed_madd_op(F64X2, false)?,
            O::F64x2RelaxedNmadd => self.relaxed_madd_op(F64X2, true)?,
            O::I8x16RelaxedLaneselect => self.relaxed_laneselect(I8X16),
            O::I16x8RelaxedLaneselect => self.relaxed_laneselect(I16X8),
            O::I32x4RelaxedLaneselect => self.relaxed_laneselect(I32X4),
            O::I64x2RelaxedLaneselect => self.relaxed_laneselect(I64X2),
            O::F32x4RelaxedMin => self.relaxed_min_max(F32X4, false),
            O::F32x4RelaxedMax => self.relaxed_min_max(F32X4, true),
            O::F64x2RelaxedMin => self.relaxed_min_max(F64X2, false),
            O::F64x2RelaxedMax => self.relaxed_min_max(F64X2, true),
            O::I16x8RelaxedQ15mulrS => {
                let (a, b) = self.pop2_v(I16X8);
                let v = if self.relaxed_native_x86() && self.isa.has_x86_pmulhrsw_lowering() {
                    self.b.ins().x86_pmulhrsw(a, b)
                } else {
                    self.b.ins().sqmul_round_sat(a, b)
                };
                self.push_v(v);
            }
            O::I16x8RelaxedDotI8x16I7x16S => {
                let (a, b) = self.pop2_v(I8X16);
                let v = self.relaxed_dot_i8x16(a, b);
                self.push_v(v);
            }
            O::I32x4RelaxedDotI8x16I7x16AddS => {
                let c = self.pop_v(I32X4);
                let (a, b) = self.pop2_v(I8X16);
                let dot = self.relaxed_dot_i8x16(a, b);
                let lo = self.b.ins().swiden_low(dot);
                let hi = self.b.ins().swiden_high(dot);
                let dot32 = self.b.ins().iadd_pairwise(lo, hi);
                let v = self.b.ins().iadd(dot32, c);
                self.push_v(v);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}
