//! SIMD operators of the fixed-width SIMD proposal, except memory accesses
//! (`ops_simd_memory.rs`) and the relaxed ones (`ops_relaxed.rs`).
//!
//! Every `v128` on the value stack is an `i8x16`: operators bitcast their
//! operands to the lane type they work on and bitcast their results back, so
//! that block parameters, locals and calls see one type. The bitcasts cost
//! nothing in machine code.

use crate::func_translator::FuncTranslator;
use anyhow::Result;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32, F32X4, F64, F64X2, I16, I16X8, I32, I32X4, I64, I64X2, I8, I8X16};
use cranelift_codegen::ir::{ConstantData, Endianness, InstBuilder, MemFlagsData, Type, Value};
use wasmparser::Operator;

impl FuncTranslator<'_, '_> {
    /// `value` as type `ty` (a no-op when it already is).
    pub(crate) fn bitcast_to(&mut self, ty: Type, value: Value) -> Value {
        if self.b.func.dfg.value_type(value) == ty {
            return value;
        }
        let flags = MemFlagsData::new().with_endianness(Endianness::Little);
        self.b.ins().bitcast(ty, flags, value)
    }

    /// Pops a `v128` as a vector of type `ty`.
    pub(crate) fn pop_v(&mut self, ty: Type) -> Value {
        let v = self.pop();
        self.bitcast_to(ty, v)
    }

    /// Pops two `v128`s as vectors of type `ty`, in push order.
    pub(crate) fn pop2_v(&mut self, ty: Type) -> (Value, Value) {
        let b = self.pop_v(ty);
        let a = self.pop_v(ty);
        (a, b)
    }

    /// Pushes a vector as a `v128` (`i8x16`).
    pub(crate) fn push_v(&mut self, value: Value) {
        let v = self.bitcast_to(I8X16, value);
        self.push(v);
    }

    /// A vector constant of type `ty` from the little-endian bits `bits`.
    pub(crate) fn v128_const(&mut self, ty: Type, bits: u128) -> Value {
        let handle = self
            .b
            .func
            .dfg
            .constants
            .insert(ConstantData::from(bits.to_le_bytes().to_vec()));
        self.b.ins().vconst(ty, handle)
    }

    fn v_unop(&mut self, ty: Type, f: impl FnOnce(&mut Self, Value) -> Value) {
        let a = self.pop_v(ty);
        let v = f(self, a);
        self.push_v(v);
    }

    fn v_binop(&mut self, ty: Type, f: impl FnOnce(&mut Self, Value, Value) -> Value) {
        let (a, b) = self.pop2_v(ty);
        let v = f(self, a, b);
        self.push_v(v);
    }

    fn v_icmp(&mut self, ty: Type, cc: IntCC) {
        self.v_binop(ty, |s, a, b| s.b.ins().icmp(cc, a, b));
    }

    fn v_fcmp(&mut self, ty: Type, cc: FloatCC) {
        self.v_binop(ty, |s, a, b| s.b.ins().fcmp(cc, a, b));
    }

    /// A shift of every lane of a vector of type `ty` by an `i32` amount
    /// (Cranelift, like wasm, takes the amount modulo the lane width).
    fn v_shift(&mut self, ty: Type, f: impl FnOnce(&mut Self, Value, Value) -> Value) {
        let amount = self.pop();
        let a = self.pop_v(ty);
        let v = f(self, a, amount);
        self.push_v(v);
    }

    /// `all_true`: 1 when no lane of the vector of type `ty` is zero.
    fn v_all_true(&mut self, ty: Type) {
        let a = self.pop_v(ty);
        let t = self.b.ins().vall_true(a);
        let v = self.b.ins().uextend(I32, t);
        self.push(v);
    }

    /// `bitmask`: the top bit of each lane of a vector of type `ty`.
    fn v_bitmask(&mut self, ty: Type) {
        let a = self.pop_v(ty);
        let v = self.b.ins().vhigh_bits(I32, a);
        self.push(v);
    }

    /// `splat` of a scalar, reduced to `lane` first when narrower than it.
    fn v_splat(&mut self, ty: Type, lane: Type) {
        let x = self.pop();
        let x = if self.b.func.dfg.value_type(x) != lane {
            self.b.ins().ireduce(lane, x)
        } else {
            x
        };
        let v = self.b.ins().splat(ty, x);
        self.push_v(v);
    }

    /// `extract_lane`, extended to `i32` for 8- and 16-bit lanes.
    fn v_extract(&mut self, ty: Type, lane: u8, signed: Option<bool>) {
        let a = self.pop_v(ty);
        let x = self.b.ins().extractlane(a, lane);
        let x = match signed {
            Some(true) => self.b.ins().sextend(I32, x),
            Some(false) => self.b.ins().uextend(I32, x),
            None => x,
        };
        self.push(x);
    }

    /// `replace_lane`, reducing an `i32` to 8 or 16 bits first.
    fn v_replace(&mut self, ty: Type, lane: u8) {
        let x = self.pop();
        let a = self.pop_v(ty);
        let x = if self.b.func.dfg.value_type(x) != ty.lane_type() {
            self.b.ins().ireduce(ty.lane_type(), x)
        } else {
            x
        };
        let v = self.b.ins().insertlane(a, x, lane);
        self.push_v(v);
    }

    /// `extadd_pairwise`: widens both halves and adds adjacent lanes.
    fn v_extadd_pairwise(&mut self, ty: Type, signed: bool) {
        self.v_unop(ty, |s, a| {
            let (lo, hi) = if signed {
                (s.b.ins().swiden_low(a), s.b.ins().swiden_high(a))
            } else {
                (s.b.ins().uwiden_low(a), s.b.ins().uwiden_high(a))
            };
            s.b.ins().iadd_pairwise(lo, hi)
        });
    }

    /// `extmul_{low,high}`: widens one half of both operands and multiplies.
    fn v_extmul(&mut self, ty: Type, high: bool, signed: bool) {
        self.v_binop(ty, |s, a, b| {
            let (a, b) = match (high, signed) {
                (false, true) => (s.b.ins().swiden_low(a), s.b.ins().swiden_low(b)),
                (true, true) => (s.b.ins().swiden_high(a), s.b.ins().swiden_high(b)),
                (false, false) => (s.b.ins().uwiden_low(a), s.b.ins().uwiden_low(b)),
                (true, false) => (s.b.ins().uwiden_high(a), s.b.ins().uwiden_high(b)),
            };
            s.b.ins().imul(a, b)
        });
    }

    /// `i32x4.dot_i16x8_s`: products of signed 16-bit lanes, adjacent pairs
    /// added (lowered to `pmaddwd` on x86).
    pub(crate) fn dot_i16x8(&mut self, a: Value, b: Value) -> Value {
        let alo = self.b.ins().swiden_low(a);
        let blo = self.b.ins().swiden_low(b);
        let lo = self.b.ins().imul(alo, blo);
        let ahi = self.b.ins().swiden_high(a);
        let bhi = self.b.ins().swiden_high(b);
        let hi = self.b.ins().imul(ahi, bhi);
        self.b.ins().iadd_pairwise(lo, hi)
    }

    /// `pmin`: `b < a ? b : a`, lane-wise (the operand order matters for NaN
    /// and signed zeros).
    pub(crate) fn pmin(&mut self, ty: Type, a: Value, b: Value) -> Value {
        let cmp = self.b.ins().fcmp(FloatCC::LessThan, b, a);
        let cmp = self.bitcast_to(ty, cmp);
        self.b.ins().bitselect(cmp, b, a)
    }

    /// `pmax`: `a < b ? b : a`, lane-wise.
    pub(crate) fn pmax(&mut self, ty: Type, a: Value, b: Value) -> Value {
        let cmp = self.b.ins().fcmp(FloatCC::LessThan, a, b);
        let cmp = self.bitcast_to(ty, cmp);
        self.b.ins().bitselect(cmp, b, a)
    }

    /// Saturating conversion of the two `f64` lanes to `i32`, the upper two
    /// lanes zero.
    pub(crate) fn trunc_sat_f64x2_zero(&mut self, a: Value, signed: bool) -> Value {
        let zero = self.v128_const(I64X2, 0);
        if signed {
            let wide = self.b.ins().fcvt_to_sint_sat(I64X2, a);
            self.b.ins().snarrow(wide, zero)
        } else {
            let wide = self.b.ins().fcvt_to_uint_sat(I64X2, a);
            self.b.ins().uunarrow(wide, zero)
        }
    }

    /// Translates `op` if it is a SIMD operator other than a memory access
    /// or a relaxed one; returns whether it was.
    pub(crate) fn translate_simd(&mut self, op: &Operator<'_>) -> Result<bool> {
        use Operator as O;
        match op {
            O::V128Const { value } => {
                let v = self.v128_const(I8X16, value.i128() as u128);
                self.push(v);
            }
            O::I8x16Shuffle { lanes } => {
                let (a, b) = self.pop2_v(I8X16);
                let mask = self.b.func.dfg.immediates.push(ConstantData::from(lanes.to_vec()));
                let v = self.b.ins().shuffle(a, b, mask);
                self.push_v(v);
            }
            O::I8x16Swizzle => self.v_binop(I8X16, |s, a, b| s.b.ins().swizzle(a, b)),

            // Splats and lanes.
            O::I8x16Splat => self.v_splat(I8X16, I8),
            O::I16x8Splat => self.v_splat(I16X8, I16),
            O::I32x4Splat => self.v_splat(I32X4, I32),
            O::I64x2Splat => self.v_splat(I64X2, I64),
            O::F32x4Splat => self.v_splat(F32X4, F32),
            O::F64x2Splat => self.v_splat(F64X2, F64),
            O::I8x16ExtractLaneS { lane } => self.v_extract(I8X16, *lane, Some(true)),
            O::I8x16ExtractLaneU { lane } => self.v_extract(I8X16, *lane, Some(false)),
            O::I16x8ExtractLaneS { lane } => self.v_extract(I16X8, *lane, Some(true)),
            O::I16x8ExtractLaneU { lane } => self.v_extract(I16X8, *lane, Some(false)),
            O::I32x4ExtractLane { lane } => self.v_extract(I32X4, *lane, None),
            O::I64x2ExtractLane { lane } => self.v_extract(I64X2, *lane, None),
            O::F32x4ExtractLane { lane } => self.v_extract(F32X4, *lane, None),
            O::F64x2ExtractLane { lane } => self.v_extract(F64X2, *lane, None),
            O::I8x16ReplaceLane { lane } => self.v_replace(I8X16, *lane),
            O::I16x8ReplaceLane { lane } => self.v_replace(I16X8, *lane),
            O::I32x4ReplaceLane { lane } => self.v_replace(I32X4, *lane),
            O::I64x2ReplaceLane { lane } => self.v_replace(I64X2, *lane),
            O::F32x4ReplaceLane { lane } => self.v_replace(F32X4, *lane),
            O::F64x2ReplaceLane { lane } => self.v_replace(F64X2, *lane),

            // Comparisons: all ones in the lanes where the comparison holds.
            O::I8x16Eq => self.v_icmp(I8X16, IntCC::Equal),
            O::I8x16Ne => self.v_icmp(I8X16, IntCC::NotEqual),
            O::I8x16LtS => self.v_icmp(I8X16, IntCC::SignedLessThan),
            O::I8x16LtU => self.v_icmp(I8X16, IntCC::UnsignedLessThan),
            O::I8x16GtS => self.v_icmp(I8X16, IntCC::SignedGreaterThan),
            O::I8x16GtU => self.v_icmp(I8X16, IntCC::UnsignedGreaterThan),
            O::I8x16LeS => self.v_icmp(I8X16, IntCC::SignedLessThanOrEqual),
            O::I8x16LeU => self.v_icmp(I8X16, IntCC::UnsignedLessThanOrEqual),
            O::I8x16GeS => self.v_icmp(I8X16, IntCC::SignedGreaterThanOrEqual),
            O::I8x16GeU => self.v_icmp(I8X16, IntCC::UnsignedGreaterThanOrEqual),
            O::I16x8Eq => self.v_icmp(I16X8, IntCC::Equal),
            O::I16x8Ne => self.v_icmp(I16X8, IntCC::NotEqual),
            O::I16x8LtS => self.v_icmp(I16X8, IntCC::SignedLessThan),
            O::I16x8LtU => self.v_icmp(I16X8, IntCC::UnsignedLessThan),
            O::I16x8GtS => self.v_icmp(I16X8, IntCC::SignedGreaterThan),
            O::I16x8GtU => self.v_icmp(I16X8, IntCC::UnsignedGreaterThan),
            O::I16x8LeS => self.v_icmp(I16X8, IntCC::SignedLessThanOrEqual),
            O::I16x8LeU => self.v_icmp(I16X8, IntCC::UnsignedLessThanOrEqual),
            O::I16x8GeS => self.v_icmp(I16X8, IntCC::SignedGreaterThanOrEqual),
            O::I16x8GeU => self.v_icmp(I16X8, IntCC::UnsignedGreaterThanOrEqual),
            O::I32x4Eq => self.v_icmp(I32X4, IntCC::Equal),
            O::I32x4Ne => self.v_icmp(I32X4, IntCC::NotEqual),
            O::I32x4LtS => self.v_icmp(I32X4, IntCC::SignedLessThan),
            O::I32x4LtU => self.v_icmp(I32X4, IntCC::UnsignedLessThan),
            O::I32x4GtS => self.v_icmp(I32X4, IntCC::SignedGreaterThan),
            O::I32x4GtU => self.v_icmp(I32X4, IntCC::UnsignedGreaterThan),
            O::I32x4LeS => self.v_icmp(I32X4, IntCC::SignedLessThanOrEqual),
            O::I32x4LeU => self.v_icmp(I32X4, IntCC::UnsignedLessThanOrEqual),
            O::I32x4GeS => self.v_icmp(I32X4, IntCC::SignedGreaterThanOrEqual),
            O::I32x4GeU => self.v_icmp(I32X4, IntCC::UnsignedGreaterThanOrEqual),
            O::I64x2Eq => self.v_icmp(I64X2, IntCC::Equal),
            O::I64x2Ne => self.v_icmp(I64X2, IntCC::NotEqual),
            O::I64x2LtS => self.v_icmp(I64X2, IntCC::SignedLessThan),
            O::I64x2GtS => self.v_icmp(I64X2, IntCC::SignedGreaterThan),
            O::I64x2LeS => self.v_icmp(I64X2, IntCC::SignedLessThanOrEqual),
            O::I64x2GeS => self.v_icmp(I64X2, IntCC::SignedGreaterThanOrEqual),
            O::F32x4Eq => self.v_fcmp(F32X4, FloatCC::Equal),
            O::F32x4Ne => self.v_fcmp(F32X4, FloatCC::NotEqual),
            O::F32x4Lt => self.v_fcmp(F32X4, FloatCC::LessThan),
            O::F32x4Gt => self.v_fcmp(F32X4, FloatCC::GreaterThan),
            O::F32x4Le => self.v_fcmp(F32X4, FloatCC::LessThanOrEqual),
            O::F32x4Ge => self.v_fcmp(F32X4, FloatCC::GreaterThanOrEqual),
            O::F64x2Eq => self.v_fcmp(F64X2, FloatCC::Equal),
            O::F64x2Ne => self.v_fcmp(F64X2, FloatCC::NotEqual),
            O::F64x2Lt => self.v_fcmp(F64X2, FloatCC::LessThan),
            O::F64x2Gt => self.v_fcmp(F64X2, FloatCC::GreaterThan),
            O::F64x2Le => self.v_fcmp(F64X2, FloatCC::LessThanOrEqual),
            O::F64x2Ge => self.v_fcmp(F64X2, FloatCC::GreaterThanOrEqual),

            // Bitwise.
            O::V128Not => self.v_unop(I8X16, |s, a| s.b.ins().bnot(a)),
            O::V128And => self.v_binop(I8X16, |s, a, b| s.b.ins().band(a, b)),
            O::V128AndNot => self.v_binop(I8X16, |s, a, b| s.b.ins().band_not(a, b)),
            O::V128Or => self.v_binop(I8X16, |s, a, b| s.b.ins().bor(a, b)),
            O::V128Xor => self.v_binop(I8X16, |s, a, b| s.b.ins().bxor(a, b)),
            O::V128Bitselect => {
                let c = self.pop_v(I8X16);
                let (a, b) = self.pop2_v(I8X16);
                let v = self.b.ins().bitselect(c, a, b);
                self.push_v(v);
            }
            O::V128AnyTrue => {
                let a = self.pop_v(I8X16);
                let t = self.b.ins().vany_true(a);
                let v = self.b.ins().uextend(I32, t);
                self.push(v);
            }
            O::I8x16AllTrue => self.v_all_true(I8X16),
            O::I16x8AllTrue => self.v_all_true(I16X8),
            O::I32x4AllTrue => self.v_all_true(I32X4),
            O::I64x2AllTrue => self.v_all_true(I64X2),
            O::I8x16Bitmask => self.v_bitmask(I8X16),
            O::I16x8Bitmask => self.v_bitmask(I16X8),
            O::I32x4Bitmask => self.v_bitmask(I32X4),
            O::I64x2Bitmask => self.v_bitmask(I64X2),

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
