//! Numeric operators: constants, integer and float arithmetic, comparisons
//! and conversions.

use crate::func_translator::FuncTranslator;
use anyhow::Result;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::immediates::{Ieee32, Ieee64};
use cranelift_codegen::ir::types::{F32, F64, I16, I32, I64, I8};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value};
use wasmparser::Operator;

impl FuncTranslator<'_, '_> {
    fn unop(&mut self, f: impl FnOnce(&mut Self, Value) -> Value) {
        let a = self.pop();
        let v = f(self, a);
        self.push(v);
    }

    fn binop(&mut self, f: impl FnOnce(&mut Self, Value, Value) -> Value) {
        let (a, b) = self.pop2();
        let v = f(self, a, b);
        self.push(v);
    }

    /// `i64.add128`/`sub128`: `(lo1, hi1, lo2, hi2)` to `(lo, hi)` of the
    /// 128-bit operation `f`.
    fn wide_128(&mut self, f: impl FnOnce(&mut Self, Value, Value) -> Value) {
        let (lo2, hi2) = self.pop2();
        let (lo1, hi1) = self.pop2();
        let a = self.b.ins().iconcat(lo1, hi1);
        let b = self.b.ins().iconcat(lo2, hi2);
        let v = f(self, a, b);
        let (lo, hi) = self.b.ins().isplit(v);
        self.push(lo);
        self.push(hi);
    }

    /// `i64.mul_wide_s`/`_u`: `(a, b)` to the low and high halves of the
    /// 128-bit product, the high half by `high`.
    fn mul_wide(&mut self, high: impl FnOnce(&mut Self, Value, Value) -> Value) {
        let (a, b) = self.pop2();
        let lo = self.b.ins().imul(a, b);
        let hi = high(self, a, b);
        self.push(lo);
        self.push(hi);
    }

    fn icmp(&mut self, cc: IntCC) {
        let (a, b) = self.pop2();
        let c = self.b.ins().icmp(cc, a, b);
        let v = self.b.ins().uextend(I32, c);
        self.push(v);
    }

    fn fcmp(&mut self, cc: FloatCC) {
        let (a, b) = self.pop2();
        let c = self.b.ins().fcmp(cc, a, b);
        let v = self.b.ins().uextend(I32, c);
        self.push(v);
    }

    fn eqz(&mut self) {
        let a = self.pop();
        let c = self.b.ins().icmp_imm_u(IntCC::Equal, a, 0);
        let v = self.b.ins().uextend(I32, c);
        self.push(v);
    }

    /// `rem_s`: Cranelift's `srem` is defined for `MIN % -1`, but the
    /// divisor -1 is replaced by 1 (same result for every dividend) so that
    /// no backend ever executes the overflowing machine division.
    fn rem_s(&mut self, ty: Type) {
        let (a, b) = self.pop2();
        let is_minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, b, -1);
        let one = self.b.ins().iconst(ty, 1);
        let divisor = self.b.ins().select(is_minus_one, one, b);
        let v = self.b.ins().srem(a, divisor);
        self.push(v);
    }

    /// Sign-extends the low `from` bits of the top value within `ty`.
    fn extend_s(&mut self, from: Type, ty: Type) {
        let a = self.pop();
        let narrow = self.b.ins().ireduce(from, a);
        let v = self.b.ins().sextend(ty, narrow);
        self.push(v);
    }

    fn bitcast(&mut self, ty: Type) {
        let a = self.pop();
        let v = self.b.ins().bitcast(ty, MemFlagsData::new(), a);
        self.push(v);
    }

    /// Translates `op` if it is a numeric operator; returns whether it was.
    pub(crate) fn translate_numeric(&mut self, op: &Operator<'_>) -> Result<bool> {
        use Operator as O;
        match *op {
            O::I32Const { value } => {
                let v = self.b.ins().iconst(I32, i64::from(value as u32));
                self.push(v);
            }
            O::I64Const { value } => {
                let v = self.b.ins().iconst(I64, value);
                self.push(v);
            }
            O::F32Const { value } => {
                let v = self.b.ins().f32const(Ieee32::with_bits(value.bits()));
                self.push(v);
            }
            O::F64Const { value } => {
                let v = self.b.ins().f64const(Ieee64::with_bits(value.bits()));
                self.push(v);
            }

            // Comparisons.
            O::I32Eqz | O::I64Eqz => self.eqz(),
            O::I32Eq | O::I64Eq => self.icmp(IntCC::Equal),
            O::I32Ne | O::I64Ne => self.icmp(IntCC::NotEqual),
            O::I32LtS | O::I64LtS => self.icmp(IntCC::SignedLessThan),
            O::I32LtU | O::I64LtU => self.icmp(IntCC::UnsignedLessThan),
            O::I32GtS | O::I64GtS => self.icmp(IntCC::SignedGreaterThan),
            O::I32GtU | O::I64GtU => self.icmp(IntCC::UnsignedGreaterThan),
            O::I32LeS | O::I64LeS => self.icmp(IntCC::SignedLessThanOrEqual),
            O::I32LeU | O::I64LeU => self.icmp(IntCC::UnsignedLessThanOrEqual),
            O::I32GeS | O::I64GeS => self.icmp(IntCC::SignedGreaterThanOrEqual),
            O::I32GeU | O::I64GeU => self.icmp(IntCC::UnsignedGreaterThanOrEqual),
            O::F32Eq | O::F64Eq => self.fcmp(FloatCC::Equal),
            O::F32Ne | O::F64Ne => self.fcmp(FloatCC::NotEqual),
            O::F32Lt | O::F64Lt => self.fcmp(FloatCC::LessThan),
            O::F32Gt | O::F64Gt => self.fcmp(FloatCC::GreaterThan),
            O::F32Le | O::F64Le => self.fcmp(FloatCC::LessThanOrEqual),
            O::F32Ge | O::F64Ge => self.fcmp(FloatCC::GreaterThanOrEqual),

            // Integer arithmetic.
            O::I32Clz | O::I64Clz => self.unop(|s, a| s.b.ins().clz(a)),
            O::I32Ctz | O::I64Ctz => self.unop(|s, a| s.b.ins().ctz(a)),
            O::I32Popcnt | O::I64Popcnt => self.unop(|s, a| s.b.ins().popcnt(a)),
            O::I32Add | O::I64Add => self.binop(|s, a, b| s.b.ins().iadd(a, b)),
            // Wide arithmetic: 128-bit sums and differences of two `i64`
            // pairs (low half first), and full 64×64 products.
            O::I64Add128 => self.wide_128(|s, a, b| s.b.ins().iadd(a, b)),
            O::I64Sub128 => self.wide_128(|s, a, b| s.b.ins().isub(a, b)),
            O::I64MulWideS => self.mul_wide(|s, a, b| s.b.ins().smulhi(a, b)),
            O::I64MulWideU => self.mul_wide(|s, a, b| s.b.ins().umulhi(a, b)),
            O::I32Sub | O::I64Sub => self.binop(|s, a, b| s.b.ins().isub(a, b)),
            O::I32Mul | O::I64Mul => self.binop(|s, a, b| s.b.ins().imul(a, b)),
            // `sdiv` traps with INTEGER_DIVISION_BY_ZERO and, for MIN / -1,
            // INTEGER_OVERFLOW; `udiv` and `urem` trap on a zero divisor.
            O::I32DivS | O::I64DivS => self.binop(|s, a, b| s.b.ins().sdiv(a, b)),
            O::I32DivU | O::I64DivU => self.binop(|s, a, b| s.b.ins().udiv(a, b)),
            O::I32RemS => self.rem_s(I32),
            O::I64RemS => self.rem_s(I64),
            O::I32RemU | O::I64RemU => self.binop(|s, a, b| s.b.ins().urem(a, b)),
            O::I32And | O::I64And => self.binop(|s, a, b| s.b.ins().band(a, b)),
            O::I32Or | O::I64Or => self.binop(|s, a, b| s.b.ins().bor(a, b)),
            O::I32Xor | O::I64Xor => self.binop(|s, a, b| s.b.ins().bxor(a, b)),
            // Cranelift masks shift and rotate amounts like wasm does.
            O::I32Shl | O::I64Shl => self.binop(|s, a, b| s.b.ins().ishl(a, b)),
            O::I32ShrS | O::I64ShrS => self.binop(|s, a, b| s.b.ins().sshr(a, b)),
            O::I32ShrU | O::I64ShrU => self.binop(|s, a, b| s.b.ins().ushr(a, b)),
            O::I32Rotl | O::I64Rotl => self.binop(|s, a, b| s.b.ins().rotl(a, b)),
            O::I32Rotr | O::I64Rotr => self.binop(|s, a, b| s.b.ins().rotr(a, b)),
            O::I32Extend8S => self.extend_s(I8, I32),
            O::I32Extend16S => self.extend_s(I16, I32),
            O::I64Extend8S => self.extend_s(I8, I64),
            O::I64Extend16S => self.extend_s(I16, I64),
            O::I64Extend32S => self.extend_s(I32, I64),

            // Float arithmetic; Cranelift's operators have wasm's semantics
            // (NaN propagation and signed zeros in `fmin`/`fmax`, bitwise
            // `fneg`/`fabs`/`fcopysign`, round-to-even `nearest`).
            O::F32Abs | O::F64Abs => self.unop(|s, a| s.b.ins().fabs(a)),
            O::F32Neg | O::F64Neg => self.unop(|s, a| s.b.ins().fneg(a)),
            O::F32Ceil | O::F64Ceil => self.unop(|s, a| s.b.ins().ceil(a)),
            O::F32Floor | O::F64Floor => self.unop(|s, a| s.b.ins().floor(a)),
            O::F32Trunc | O::F64Trunc => self.unop(|s, a| s.b.ins().trunc(a)),
            O::F32Nearest | O::F64Nearest => self.unop(|s, a| s.b.ins().nearest(a)),
            O::F32Sqrt | O::F64Sqrt => self.unop(|s, a| s.b.ins().sqrt(a)),
            O::F32Add | O::F64Add => self.binop(|s, a, b| s.b.ins().fadd(a, b)),
            O::F32Sub | O::F64Sub => self.binop(|s, a, b| s.b.ins().fsub(a, b)),
            O::F32Mul | O::F64Mul => self.binop(|s, a, b| s.b.ins().fmul(a, b)),
            O::F32Div | O::F64Div => self.binop(|s, a, b| s.b.ins().fdiv(a, b)),
            O::F32Min | O::F64Min => self.binop(|s, a, b| s.b.ins().fmin(a, b)),
            O::F32Max | O::F64Max => self.binop(|s, a, b| s.b.ins().fmax(a, b)),
            O::F32Copysign | O::F64Copysign => self.binop(|s, a, b| s.b.ins().fcopysign(a, b)),

            // Conversions. The trapping float-to-int conversions trap with
            // BAD_CONVERSION_TO_INTEGER on NaN and INTEGER_OVERFLOW when out
            // of range.
            O::I32WrapI64 => self.unop(|s, a| s.b.ins().ireduce(I32, a)),
            O::I64ExtendI32S => self.unop(|s, a| s.b.ins().sextend(I64, a)),
            O::I64ExtendI32U => self.unop(|s, a| s.b.ins().uextend(I64, a)),
            O::I32TruncF32S | O::I32TruncF64S => self.unop(|s, a| s.b.ins().fcvt_to_sint(I32, a)),
            O::I32TruncF32U | O::I32TruncF64U => self.unop(|s, a| s.b.ins().fcvt_to_uint(I32, a)),
            O::I64TruncF32S | O::I64TruncF64S => self.unop(|s, a| s.b.ins().fcvt_to_sint(I64, a)),
            O::I64TruncF32U | O::I64TruncF64U => self.unop(|s, a| s.b.ins().fcvt_to_uint(I64, a)),
            O::I32TruncSatF32S | O::I32TruncSatF64S => self.unop(|s, a| s.b.ins().fcvt_to_sint_sat(I32, a)),
            O::I32TruncSatF32U | O::I32TruncSatF64U => self.unop(|s, a| s.b.ins().fcvt_to_uint_sat(I32, a)),
            O::I64TruncSatF32S | O::I64TruncSatF64S => self.unop(|s, a| s.b.ins().fcvt_to_sint_sat(I64, a)),
            O::I64TruncSatF32U | O::I64TruncSatF64U => self.unop(|s, a| s.b.ins().fcvt_to_uint_sat(I64, a)),
            O::F32ConvertI32S | O::F32ConvertI64S => self.unop(|s, a| s.b.ins().fcvt_from_sint(F32, a)),
            O::F32ConvertI32U | O::F32ConvertI64U => self.unop(|s, a| s.b.ins().fcvt_from_uint(F32, a)),
            O::F64ConvertI32S | O::F64ConvertI64S => self.unop(|s, a| s.b.ins().fcvt_from_sint(F64, a)),
            O::F64ConvertI32U | O::F64ConvertI64U => self.unop(|s, a| s.b.ins().fcvt_from_uint(F64, a)),
            O::F32DemoteF64 => self.unop(|s, a| s.b.ins().fdemote(F32, a)),
            O::F64PromoteF32 => self.unop(|s, a| s.b.ins().fpromote(F64, a)),
            O::I32ReinterpretF32 => self.bitcast(I32),
            O::I64ReinterpretF64 => self.bitcast(I64),
            O::F32ReinterpretI32 => self.bitcast(F32),
            O::F64ReinterpretI64 => self.bitcast(F64),
            _ => return Ok(false),
        }
        Ok(true)
    }
}
