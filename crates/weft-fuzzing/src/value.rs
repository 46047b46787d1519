//! Engine-neutral values and call outcomes, and how two of them compare.

use std::fmt;
pub use weft::Trap;

/// A WebAssembly value as both engines can express it.
///
/// Floats are kept as bits. References keep only what two engines can agree
/// on: whether a function reference is null, and the `u32` payload of a host
/// (extern) reference created by the harness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Value {
    /// An `i32`.
    I32(i32),
    /// An `i64`.
    I64(i64),
    /// An `f32`, by its bits.
    F32(u32),
    /// An `f64`, by its bits.
    F64(u64),
    /// A function reference: `true` when it is not null.
    FuncRef(bool),
    /// An extern reference: the payload the harness gave it, or `None` for null.
    ExternRef(Option<u32>),
    /// A `v128`, by its bits.
    V128(u128),
}

/// The type of a [`Value`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueType {
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `funcref`
    FuncRef,
    /// `externref`
    ExternRef,
    /// `v128`
    V128,
}

impl ValueType {
    /// Converts a wasmparser value type, if the harness supports it.
    pub fn from_wasmparser(ty: wasmparser::ValType) -> Option<ValueType> {
        use wasmparser::ValType as V;
        Some(match ty {
            V::I32 => ValueType::I32,
            V::I64 => ValueType::I64,
            V::F32 => ValueType::F32,
            V::F64 => ValueType::F64,
            V::V128 => ValueType::V128,
            V::Ref(r) if r == wasmparser::RefType::FUNCREF => ValueType::FuncRef,
            V::Ref(r) if r == wasmparser::RefType::EXTERNREF => ValueType::ExternRef,
            _ => return None,
        })
    }
}

const F32_CANONICAL_NAN: u32 = 0x7fc0_0000;
const F64_CANONICAL_NAN: u64 = 0x7ff8_0000_0000_0000;

impl Value {
    /// The value with every NaN replaced by the canonical (positive, quiet) NaN.
    ///
    /// The WebAssembly spec lets engines pick any NaN payload for the result
    /// of an arithmetic operation, so NaNs are compared after this step.
    pub fn canonicalize(self) -> Value {
        match self {
            Value::F32(bits) if f32::from_bits(bits).is_nan() => Value::F32(F32_CANONICAL_NAN),
            Value::F64(bits) if f64::from_bits(bits).is_nan() => Value::F64(F64_CANONICAL_NAN),
            other => other,
        }
    }

    /// Whether two values agree: bitwise, after NaN canonicalization.
    pub fn agrees_with(&self, other: &Value) -> bool {
        self.canonicalize() == other.canonicalize()
    }

    /// The value's type.
    pub fn ty(&self) -> ValueType {
        match self {
            Value::I32(_) => ValueType::I32,
            Value::I64(_) => ValueType::I64,
            Value::F32(_) => ValueType::F32,
            Value::F64(_) => ValueType::F64,
            Value::FuncRef(_) => ValueType::FuncRef,
            Value::ExternRef(_) => ValueType::ExternRef,
            Value::V128(_) => ValueType::V128,
        }
    }

    /// The value as a `.wast` argument or expected result.
    pub fn to_wast(&self) -> String {
        match *self {
            Value::I32(x) => format!("(i32.const {x})"),
            Value::I64(x) => format!("(i64.const {x})"),
            Value::F32(bits) => format!("(f32.const {})", wast_float(bits as u64, 32)),
            Value::F64(bits) => format!("(f64.const {})", wast_float(bits, 64)),
            Value::FuncRef(false) => "(ref.null func)".to_string(),
            Value::FuncRef(true) => "(ref.func)".to_string(),
            Value::ExternRef(None) => "(ref.null extern)".to_string(),
            Value::ExternRef(Some(n)) => format!("(ref.extern {n})"),
            Value::V128(x) => format!("(v128.const i64x2 {} {})", x as u64 as i64, (x >> 64) as u64 as i64),
        }
    }
}

impl Value {
    /// The value as an expected result in a `.wast` script: like
    /// [`Value::to_wast`], but a quiet NaN matches any quiet NaN
    /// (`nan:arithmetic`), since engines may pick any payload.
    pub fn to_wast_expected(&self) -> String {
        match *self {
            Value::F32(bits) if f32::from_bits(bits).is_nan() && bits & 0x0040_0000 != 0 => {
                "(f32.const nan:arithmetic)".to_string()
            }
            Value::F64(bits) if f64::from_bits(bits).is_nan() && bits & 0x0008_0000_0000_0000 != 0 => {
                "(f64.const nan:arithmetic)".to_string()
            }
            other => other.to_wast(),
        }
    }
}

/// Writes a float in `.wast` syntax, exactly: NaN payloads as `nan:0x...`,
/// everything else as a hexadecimal float.
fn wast_float(bits: u64, width: u32) -> String {
    let (mantissa_bits, exponent_bits) = if width == 32 { (23, 8) } else { (52, 11) };
    let sign = if bits >> (width - 1) & 1 == 1 { "-" } else { "" };
    let exponent = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1);
    let mantissa = bits & ((1u64 << mantissa_bits) - 1);
    let max_exponent = (1 << exponent_bits) - 1;
    let bias = (1i64 << (exponent_bits - 1)) - 1;
    // Hex digits of the mantissa, left-aligned on a nibble boundary.
    let pad = (4 - mantissa_bits % 4) % 4;
    let digits = (mantissa_bits + pad) / 4;
    let hex = format!("{:0width$x}", mantissa << pad, width = digits as usize);
    if exponent == max_exponent {
        if mantissa == 0 {
            format!("{sign}inf")
        } else {
            format!("{sign}nan:0x{mantissa:x}")
        }
    } else if exponent == 0 {
        format!("{sign}0x0.{hex}p{}", 1 - bias)
    } else {
        format!("{sign}0x1.{hex}p{}", exponent as i64 - bias)
    }
}

/// Why a call or an instantiation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// WebAssembly trapped.
    Trap(Trap),
    /// Any other error (compilation, linking, resource limits), with its text.
    Error(String),
}

impl Failure {
    /// Whether two failures agree: traps of the same kind, or two errors.
    pub fn agrees_with(&self, other: &Failure) -> bool {
        match (self, other) {
            (Failure::Trap(a), Failure::Trap(b)) => a == b,
            (Failure::Error(_), Failure::Error(_)) => true,
            _ => false,
        }
    }

    /// Whether this is a stack overflow, whose depth legitimately differs
    /// between engines.
    pub fn is_stack_overflow(&self) -> bool {
        matches!(self, Failure::Trap(Trap::StackOverflow))
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Trap(t) => write!(f, "trap: {}", t.message()),
            Failure::Error(e) => write!(f, "error: {e}"),
        }
    }
}

/// The outcome of one call: its results, or why it failed.
pub type Outcome = Result<Vec<Value>, Failure>;

/// Whether two call outcomes agree (see [`Value::agrees_with`] and
/// [`Failure::agrees_with`]).
pub fn outcomes_agree(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| x.agrees_with(y)),
        (Err(x), Err(y)) => x.agrees_with(y),
        _ => false,
    }
}

/// Formats an outcome for reports.
pub fn describe(outcome: &Outcome) -> String {
    match outcome {
        Ok(values) => format!("{values:?}"),
        Err(failure) => failure.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nans_agree_after_canonicalization() {
        assert!(Value::F32(0x7fc0_0001).agrees_with(&Value::F32(0xffc0_0000)));
        assert!(!Value::F32(0x0000_0000).agrees_with(&Value::F32(0x8000_0000)));
        assert!(Value::F64(1.5f64.to_bits()).agrees_with(&Value::F64(1.5f64.to_bits())));
    }

    #[test]
    fn floats_print_exactly() {
        assert_eq!(wast_float(1.0f32.to_bits() as u64, 32), "0x1.000000p0");
        assert_eq!(wast_float((-2.5f64).to_bits(), 64), "-0x1.4000000000000p1");
        assert_eq!(wast_float(1, 32), "0x0.000002p-126");
        assert_eq!(wast_float(0x7fc0_0000, 32), "nan:0x400000");
        assert_eq!(wast_float(f64::NEG_INFINITY.to_bits(), 64), "-inf");
    }
}
