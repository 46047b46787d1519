//! SIMD arithmetic, shifts, narrowing and widening, float operators and
//! conversions (see `ops_simd.rs` for the conventions).

use crate::func_translator::FuncTranslator;
use anyhow::Result;
use cranelift_codegen::ir::types::{F32X4, F64X2, I16X8, I32X4, I64X2, I8X16};
use cranelift_codegen::ir::InstBuilder;
use wasmparser::Operator;

impl FuncTranslator<'_, '_> {
    /// Translates `op` if it is a SIMD arithmetic, shift, narrowing,
    /// widening, float or conversion operator; returns whether it was.
    pub(crate) fn translate_simd_arith(&mut self, op: &Operator<'_>) -> Result<bool> {
        use Operator as O;
        match op {
            // Integer arithmetic.
            O::I8x16Abs => self.v_unop(I8X16, |s, a| s.b.ins().iabs(a)),
            O::I16x8Abs => self.v_unop(I16X8, |s, a| s.b.ins().iabs(a)),
            O::I32x4Abs => self.v_unop(I32X4, |s, a| s.b.ins().iabs(a)),
            O::I64x2Abs => self.v_unop(I64X2, |s, a| s.b.ins().iabs(a)),
            O::I8x16Neg => self.v_unop(I8X16, |s, a| s.b.ins().ineg(a)),
            O::I16x8Neg => self.v_unop(I16X8, |s, a| s.b.ins().ineg(a)),
            O::I32x4Neg => self.v_unop(I32X4, |s, a| s.b.ins().ineg(a)),
            O::I64x2Neg => self.v_unop(I64X2, |s, a| s.b.ins().ineg(a)),
            O::I8x16Popcnt => self.v_unop(I8X16, |s, a| s.b.ins().popcnt(a)),
            O::I8x16Add => self.v_binop(I8X16, |s, a, b| s.b.ins().iadd(a, b)),
            O::I16x8Add => self.v_binop(I16X8, |s, a, b| s.b.ins().iadd(a, b)),
            O::I32x4Add => self.v_binop(I32X4, |s, a, b| s.b.ins().iadd(a, b)),
            O::I64x2Add => self.v_binop(I64X2, |s, a, b| s.b.ins().iadd(a, b)),
            O::I8x16Sub => self.v_binop(I8X16, |s, a, b| s.b.ins().isub(a, b)),
            O::I16x8Sub => self.v_binop(I16X8, |s, a, b| s.b.ins().isub(a, b)),
            O::I32x4Sub => self.v_binop(I32X4, |s, a, b| s.b.ins().isub(a, b)),
            O::I64x2Sub => self.v_binop(I64X2, |s, a, b| s.b.ins().isub(a, b)),
            O::I16x8Mul => self.v_binop(I16X8, |s, a, b| s.b.ins().imul(a, b)),
            O::I32x4Mul => self.v_binop(I32X4, |s, a, b| s.b.ins().imul(a, b)),
            O::I64x2Mul => self.v_binop(I64X2, |s, a, b| s.b.ins().imul(a, b)),
            O::I8x16AddSatS => self.v_binop(I8X16, |s, a, b| s.b.ins().sadd_sat(a, b)),
            O::I8x16AddSatU => self.v_binop(I8X16, |s, a, b| s.b.ins().uadd_sat(a, b)),
            O::I16x8AddSatS => self.v_binop(I16X8, |s, a, b| s.b.ins().sadd_sat(a, b)),
            O::I16x8AddSatU => self.v_binop(I16X8, |s, a, b| s.b.ins().uadd_sat(a, b)),
            O::I8x16SubSatS => self.v_binop(I8X16, |s, a, b| s.b.ins().ssub_sat(a, b)),
            O::I8x16SubSatU => self.v_binop(I8X16, |s, a, b| s.b.ins().usub_sat(a, b)),
            O::I16x8SubSatS => self.v_binop(I16X8, |s, a, b| s.b.ins().ssub_sat(a, b)),
            O::I16x8SubSatU => self.v_binop(I16X8, |s, a, b| s.b.ins().usub_sat(a, b)),
            O::I8x16MinS => self.v_binop(I8X16, |s, a, b| s.b.ins().smin(a, b)),
            O::I8x16MinU => self.v_binop(I8X16, |s, a, b| s.b.ins().umin(a, b)),
            O::I8x16MaxS => self.v_binop(I8X16, |s, a, b| s.b.ins().smax(a, b)),
            O::I8x16MaxU => self.v_binop(I8X16, |s, a, b| s.b.ins().umax(a, b)),
            O::I16x8MinS => self.v_binop(I16X8, |s, a, b| s.b.ins().smin(a, b)),
            O::I16x8MinU => self.v_binop(I16X8, |s, a, b| s.b.ins().umin(a, b)),
            O::I16x8MaxS => self.v_binop(I16X8, |s, a, b| s.b.ins().smax(a, b)),
            O::I16x8MaxU => self.v_binop(I16X8, |s, a, b| s.b.ins().umax(a, b)),
            O::I32x4MinS => self.v_binop(I32X4, |s, a, b| s.b.ins().smin(a, b)),
            O::I32x4MinU => self.v_binop(I32X4, |s, a, b| s.b.ins().umin(a, b)),
            O::I32x4MaxS => self.v_binop(I32X4, |s, a, b| s.b.ins().smax(a, b)),
            O::I32x4MaxU => self.v_binop(I32X4, |s, a, b| s.b.ins().umax(a, b)),
            O::I8x16AvgrU => self.v_binop(I8X16, |s, a, b| s.b.ins().avg_round(a, b)),
            O::I16x8AvgrU => self.v_binop(I16X8, |s, a, b| s.b.ins().avg_round(a, b)),
            O::I16x8Q15MulrSatS => self.v_binop(I16X8, |s, a, b| s.b.ins().sqmul_round_sat(a, b)),
            O::I32x4DotI16x8S => self.v_binop(I16X8, |s, a, b| s.dot_i16x8(a, b)),
            O::I16x8ExtAddPairwiseI8x16S => self.v_extadd_pairwise(I8X16, true),
            O::I16x8ExtAddPairwiseI8x16U => self.v_extadd_pairwise(I8X16, false),
            O::I32x4ExtAddPairwiseI16x8S => self.v_extadd_pairwise(I16X8, true),
            O::I32x4ExtAddPairwiseI16x8U => self.v_extadd_pairwise(I16X8, false),
            O::I16x8ExtMulLowI8x16S => self.v_extmul(I8X16, false, true),
            O::I16x8ExtMulHighI8x16S => self.v_extmul(I8X16, true, true),
            O::I16x8ExtMulLowI8x16U => self.v_extmul(I8X16, false, false),
            O::I16x8ExtMulHighI8x16U => self.v_extmul(I8X16, true, false),
            O::I32x4ExtMulLowI16x8S => self.v_extmul(I16X8, false, true),
            O::I32x4ExtMulHighI16x8S => self.v_extmul(I16X8, true, true),
            O::I32x4ExtMulLowI16x8U => self.v_extmul(I16X8, false, false),
            O::I32x4ExtMulHighI16x8U => self.v_extmul(I16X8, true, false),
            O::I64x2ExtMulLowI32x4S => self.v_extmul(I32X4, false, true),
            O::I64x2ExtMulHighI32x4S => self.v_extmul(I32X4, true, true),
            O::I64x2ExtMulLowI32x4U => self.v_extmul(I32X4, false, false),
            O::I64x2ExtMulHighI32x4U => self.v_extmul(I32X4, true, false),

            // Shifts.
            O::I8x16Shl => self.v_shift(I8X16, |s, a, n| s.b.ins().ishl(a, n)),
            O::I16x8Shl => self.v_shift(I16X8, |s, a, n| s.b.ins().ishl(a, n)),
            O::I32x4Shl => self.v_shift(I32X4, |s, a, n| s.b.ins().ishl(a, n)),
            O::I64x2Shl => self.v_shift(I64X2, |s, a, n| s.b.ins().ishl(a, n)),
            O::I8x16ShrS => self.v_shift(I8X16, |s, a, n| s.b.ins().sshr(a, n)),
            O::I16x8ShrS => self.v_shift(I16X8, |s, a, n| s.b.ins().sshr(a, n)),
            O::I32x4ShrS => self.v_shift(I32X4, |s, a, n| s.b.ins().sshr(a, n)),
            O::I64x2ShrS => self.v_shift(I64X2, |s, a, n| s.b.ins().sshr(a, n)),
            O::I8x16ShrU => self.v_shift(I8X16, |s, a, n| s.b.ins().ushr(a, n)),
            O::I16x8ShrU => self.v_shift(I16X8, |s, a, n| s.b.ins().ushr(a, n)),
            O::I32x4ShrU => self.v_shift(I32X4, |s, a, n| s.b.ins().ushr(a, n)),
            O::I64x2ShrU => self.v_shift(I64X2, |s, a, n| s.b.ins().ushr(a, n)),

            // Narrowing and widening.
            O::I8x16NarrowI16x8S => self.v_binop(I16X8, |s, a, b| s.b.ins().snarrow(a, b)),
            O::I8x16NarrowI16x8U => self.v_binop(I16X8, |s, a, b| s.b.ins().unarrow(a, b)),
            O::I16x8NarrowI32x4S => self.v_binop(I32X4, |s, a, b| s.b.ins().snarrow(a, b)),
            O::I16x8NarrowI32x4U => self.v_binop(I32X4, |s, a, b| s.b.ins().unarrow(a, b)),
            O::I16x8ExtendLowI8x16S => self.v_unop(I8X16, |s, a| s.b.ins().swiden_low(a)),
            O::I16x8ExtendHighI8x16S => self.v_unop(I8X16, |s, a| s.b.ins().swiden_high(a)),
            O::I16x8ExtendLowI8x16U => self.v_unop(I8X16, |s, a| s.b.ins().uwiden_low(a)),
            O::I16x8ExtendHighI8x16U => self.v_unop(I8X16, |s, a| s.b.ins().uwiden_high(a)),
            O::I32x4ExtendLowI16x8S => self.v_unop(I16X8, |s, a| s.b.ins().swiden_low(a)),
            O::I32x4ExtendHighI16x8S => self.v_unop(I16X8, |s, a| s.b.ins().swiden_high(a)),
            O::I32x4ExtendLowI16x8U => self.v_unop(I16X8, |s, a| s.b.ins().uwiden_low(a)),
            O::I32x4ExtendHighI16x8U => self.v_unop(I16X8, |s, a| s.b.ins().uwiden_high(a)),
            O::I64x2ExtendLowI32x4S => self.v_unop(I32X4, |s, a| s.b.ins().swiden_low(a)),
            O::I64x2ExtendHighI32x4S => self.v_unop(I32X4, |s, a| s.b.ins().swiden_high(a)),
            O::I64x2ExtendLowI32x4U => self.v_unop(I32X4, |s, a| s.b.ins().uwiden_low(a)),
            O::I64x2ExtendHighI32x4U => self.v_unop(I32X4, |s, a| s.b.ins().uwiden_high(a)),

            // Float arithmetic, with wasm's NaN and signed-zero rules (as
            // for the scalar operators).
            O::F32x4Ceil => self.v_unop(F32X4, |s, a| s.b.ins().ceil(a)),
            O::F64x2Ceil => self.v_unop(F64X2, |s, a| s.b.ins().ceil(a)),
            O::F32x4Floor => self.v_unop(F32X4, |s, a| s.b.ins().floor(a)),
            O::F64x2Floor => self.v_unop(F64X2, |s, a| s.b.ins().floor(a)),
            O::F32x4Trunc => self.v_unop(F32X4, |s, a| s.b.ins().trunc(a)),
            O::F64x2Trunc => self.v_unop(F64X2, |s, a| s.b.ins().trunc(a)),
            O::F32x4Nearest => self.v_unop(F32X4, |s, a| s.b.ins().nearest(a)),
            O::F64x2Nearest => self.v_unop(F64X2, |s, a| s.b.ins().nearest(a)),
            O::F32x4Abs => self.v_unop(F32X4, |s, a| s.b.ins().fabs(a)),
            O::F64x2Abs => self.v_unop(F64X2, |s, a| s.b.ins().fabs(a)),
            O::F32x4Neg => self.v_unop(F32X4, |s, a| s.b.ins().fneg(a)),
            O::F64x2Neg => self.v_unop(F64X2, |s, a| s.b.ins().fneg(a)),
            O::F32x4Sqrt => self.v_unop(F32X4, |s, a| s.b.ins().sqrt(a)),
            O::F64x2Sqrt => self.v_unop(F64X2, |s, a| s.b.ins().sqrt(a)),
            O::F32x4Add => self.v_binop(F32X4, |s, a, b| s.b.ins().fadd(a, b)),
            O::F64x2Add => self.v_binop(F64X2, |s, a, b| s.b.ins().fadd(a, b)),
            O::F32x4Sub => self.v_binop(F32X4, |s, a, b| s.b.ins().fsub(a, b)),
            O::F64x2Sub => self.v_binop(F64X2, |s, a, b| s.b.ins().fsub(a, b)),
            O::F32x4Mul => self.v_binop(F32X4, |s, a, b| s.b.ins().fmul(a, b)),
            O::F64x2Mul => self.v_binop(F64X2, |s, a, b| s.b.ins().fmul(a, b)),
            O::F32x4Div => self.v_binop(F32X4, |s, a, b| s.b.ins().fdiv(a, b)),
            O::F64x2Div => self.v_binop(F64X2, |s, a, b| s.b.ins().fdiv(a, b)),
            O::F32x4Min => self.v_binop(F32X4, |s, a, b| s.b.ins().fmin(a, b)),
            O::F64x2Min => self.v_binop(F64X2, |s, a, b| s.b.ins().fmin(a, b)),
            O::F32x4Max => self.v_binop(F32X4, |s, a, b| s.b.ins().fmax(a, b)),
            O::F64x2Max => self.v_binop(F64X2, |s, a, b| s.b.ins().fmax(a, b)),
            O::F32x4PMin => self.v_binop(F32X4, |s, a, b| s.pmin(F32X4, a, b)),
            O::F64x2PMin => self.v_binop(F64X2, |s, a, b| s.pmin(F64X2, a, b)),
            O::F32x4PMax => self.v_binop(F32X4, |s, a, b| s.pmax(F32X4, a, b)),
            O::F64x2PMax => self.v_binop(F64X2, |s, a, b| s.pmax(F64X2, a, b)),

            // Conversions.
            O::I32x4TruncSatF32x4S => self.v_unop(F32X4, |s, a| s.b.ins().fcvt_to_sint_sat(I32X4, a)),
            O::I32x4TruncSatF32x4U => self.v_unop(F32X4, |s, a| s.b.ins().fcvt_to_uint_sat(I32X4, a)),
            O::I32x4TruncSatF64x2SZero => self.v_unop(F64X2, |s, a| s.trunc_sat_f64x2_zero(a, true)),
            O::I32x4TruncSatF64x2UZero => self.v_unop(F64X2, |s, a| s.trunc_sat_f64x2_zero(a, false)),
            O::F32x4ConvertI32x4S => self.v_unop(I32X4, |s, a| s.b.ins().fcvt_from_sint(F32X4, a)),
            O::F32x4ConvertI32x4U => self.v_unop(I32X4, |s, a| s.b.ins().fcvt_from_uint(F32X4, a)),
            O::F64x2ConvertLowI32x4S => self.v_unop(I32X4, |s, a| {
                let wide = s.b.ins().swiden_low(a);
                s.b.ins().fcvt_from_sint(F64X2, wide)
            }),
            O::F64x2ConvertLowI32x4U => self.v_unop(I32X4, |s, a| {
                let wide = s.b.ins().uwiden_low(a);
                s.b.ins().fcvt_from_uint(F64X2, wide)
            }),
            O::F32x4DemoteF64x2Zero => self.v_unop(F64X2, |s, a| s.b.ins().fvdemote(a)),
            O::F64x2PromoteLowF32x4 => self.v_unop(F32X4, |s, a| s.b.ins().fvpromote_low(a)),
            _ => return Ok(false),
        }
        Ok(true)
    }
}
