//! SIMD operators of the fixed-width SIMD proposal: the shared helpers, and
//! constants, shuffles, lanes, comparisons and bitwise operators. The
//! arithmetic and conversions are in `ops_simd_arith.rs`, memory accesses in
//! `ops_simd_memory.rs` and the relaxed operators in `ops_relaxed.rs`.
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

    pub(crate) fn v_unop(&mut self, ty: Type, f: impl FnOnce(&mut Self, Value) -> Value) {
        let a = self.pop_v(ty);
        let v = f(self, a);
        self.push_v(v);
    }

    pub(crate) fn v_binop(&mut self, ty: Type, f: impl FnOnce(&mut Self, Value, Value) -> Value) {
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
    pub(crate) fn v_shift(&mut self, ty: Type, f: impl FnOnce(&mut Self, Value, Value) -> Value) {
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
    pub(crate) fn v_extadd_pairwise(&mut self, ty: Type, signed: bool) {
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
    pub(crate) fn v_extmul(&mut self, ty: Type, high: bool, signed: bool) {
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

    /// Translates `op` if it is a SIMD constant, shuffle, lane, comparison
    /// or bitwise operator; returns whether it was.
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

            _ => return Ok(false),
        }
        Ok(true)
    }
}
