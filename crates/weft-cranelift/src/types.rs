//! Conversions between wasm and Cranelift types, signatures and trap codes.

use anyhow::Result;
use cranelift_codegen::ir::{types, AbiParam, ArgumentPurpose, Endianness, MemFlagsData, Signature, TrapCode, Type};
use cranelift_codegen::isa::CallConv;
use weft_environ::{BuiltinType, Trap, WasmFuncType, WasmValType};

/// The Cranelift type of a wasm value type. References are `i64`; a `v128`
/// is `i8x16` wherever it is stored or passed (locals, block parameters,
/// calls), and is bitcast to the lane type an operator needs.
pub(crate) fn clif_type(ty: WasmValType) -> Result<Type> {
    Ok(match ty {
        WasmValType::I32 => types::I32,
        WasmValType::I64 => types::I64,
        WasmValType::F32 => types::F32,
        WasmValType::F64 => types::F64,
        WasmValType::Ref(_) => types::I64,
        WasmValType::V128 => types::I8X16,
    })
}

/// The Cranelift type of a wasmparser value type (see [`clif_type`]).
pub(crate) fn clif_type_of(ty: wasmparser::ValType) -> Result<Type> {
    Ok(match ty {
        wasmparser::ValType::I32 => types::I32,
        wasmparser::ValType::I64 => types::I64,
        wasmparser::ValType::F32 => types::F32,
        wasmparser::ValType::F64 => types::F64,
        wasmparser::ValType::Ref(_) => types::I64,
        wasmparser::ValType::V128 => types::I8X16,
    })
}

/// The signature of a wasm function of type `ty`:
/// `tail (callee_vmctx, caller_vmctx, params...) -> results`.
pub(crate) fn wasm_signature(ty: &WasmFuncType) -> Result<Signature> {
    let mut sig = Signature::new(CallConv::Tail);
    sig.params
        .push(AbiParam::special(types::I64, ArgumentPurpose::VMContext));
    sig.params.push(AbiParam::new(types::I64));
    for p in ty.params.iter() {
        sig.params.push(AbiParam::new(clif_type(*p)?));
    }
    for r in ty.results.iter() {
        sig.returns.push(AbiParam::new(clif_type(*r)?));
    }
    Ok(sig)
}

/// The Cranelift trap code that compiled code uses for `trap`.
pub(crate) fn trap_to_code(trap: Trap) -> TrapCode {
    match trap {
        Trap::StackOverflow => TrapCode::STACK_OVERFLOW,
        Trap::MemoryOutOfBounds => TrapCode::HEAP_OUT_OF_BOUNDS,
        Trap::IntegerOverflow => TrapCode::INTEGER_OVERFLOW,
        Trap::IntegerDivisionByZero => TrapCode::INTEGER_DIVISION_BY_ZERO,
        Trap::BadConversionToInteger => TrapCode::BAD_CONVERSION_TO_INTEGER,
        other => TrapCode::unwrap_user(other as u8),
    }
}

/// The trap that a Cranelift trap code of compiled code stands for.
pub(crate) fn trap_from_code(code: TrapCode) -> Option<Trap> {
    match code {
        TrapCode::STACK_OVERFLOW => Some(Trap::StackOverflow),
        TrapCode::HEAP_OUT_OF_BOUNDS => Some(Trap::MemoryOutOfBounds),
        TrapCode::INTEGER_OVERFLOW => Some(Trap::IntegerOverflow),
        TrapCode::INTEGER_DIVISION_BY_ZERO => Some(Trap::IntegerDivisionByZero),
        TrapCode::BAD_CONVERSION_TO_INTEGER => Some(Trap::BadConversionToInteger),
        other => Trap::from_u8(other.as_raw().get()),
    }
}

/// Flags for loads and stores of runtime structures: never trap, aligned,
/// little-endian.
pub(crate) fn trusted() -> MemFlagsData {
    MemFlagsData::trusted().with_endianness(Endianness::Little)
}

/// Flags for loads of fields that never change while an instance lives and
/// whose address is always valid (pointers in the `VMContext`): such loads
/// may be moved and deduplicated freely.
pub(crate) fn vmctx_readonly() -> MemFlagsData {
    trusted().with_readonly().with_can_move()
}

/// Flags for loads of immutable fields behind a pointer that is only valid
/// after a check (fields of a `VMFuncRef` reached through a table): they may
/// be deduplicated but not hoisted above the check.
pub(crate) fn trusted_readonly() -> MemFlagsData {
    trusted().with_readonly()
}

/// The Cranelift type of a builtin's parameter or result.
pub(crate) fn builtin_type(ty: BuiltinType) -> Type {
    match ty {
        BuiltinType::Vmctx | BuiltinType::Pointer | BuiltinType::I64 => types::I64,
        BuiltinType::I32 => types::I32,
        BuiltinType::F32 => types::F32,
        BuiltinType::F64 => types::F64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trap_codes_round_trip() {
        for trap in Trap::ALL {
            assert_eq!(trap_from_code(trap_to_code(*trap)), Some(*trap));
        }
    }
}
