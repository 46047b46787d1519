//! The rules of WebAssembly 3.0 that let a constant expression read an
//! immutable global defined earlier in the module, and let function types
//! form explicit recursion groups, without the rest of the GC proposal.
//!
//! `wasmparser` allows `global.get` of a defined global in constant
//! expressions, and explicit `rec` groups, only with its GC feature. Weft has no garbage collector, so a
//! module rejected for that reason alone is validated again with the GC
//! feature, and then checked to use nothing else of GC: no GC operator (even
//! in unreachable code), no GC heap type in locals, blocks or operator
//! immediates. GC types in the type, import, table, global and element
//! sections are rejected by the translation itself.

use crate::translate::TranslateError;
use wasmparser::{AbstractHeapType, BlockType, FunctionBody, HeapType, Operator, RefType, ValType};

/// The message of `wasmparser`'s error for `global.get` of a defined global
/// in a constant expression without the GC feature.
pub(crate) const LOCAL_GLOBAL_GET: &str = "global.get of locally defined global";

/// The message of `wasmparser`'s error for an explicit recursion group
/// without the GC feature: Weft supports groups of function types (see
/// `Module::rec_groups`).
pub(crate) const REC_GROUP_USAGE: &str = "rec group usage requires `gc` proposal";

fn gc_error(what: impl std::fmt::Display, offset: u64) -> TranslateError {
    TranslateError {
        message: format!("{what} needs the GC proposal, which Weft does not support"),
        offset,
    }
}

fn is_gc_heap_type(heap: HeapType) -> bool {
    match heap {
        HeapType::Abstract { shared, ty } => {
            shared
                || !matches!(
                    ty,
                    AbstractHeapType::Func
                        | AbstractHeapType::Extern
                        | AbstractHeapType::NoFunc
                        | AbstractHeapType::NoExtern
                        | AbstractHeapType::Exn
                        | AbstractHeapType::NoExn
                )
        }
        HeapType::Concrete(_) => false,
        _ => true,
    }
}

fn check_ref(ty: RefType, offset: u64) -> Result<(), TranslateError> {
    if is_gc_heap_type(ty.heap_type()) {
        return Err(gc_error(format!("reference type {ty}"), offset));
    }
    Ok(())
}

fn check_val(ty: ValType, offset: u64) -> Result<(), TranslateError> {
    match ty {
        ValType::Ref(r) => check_ref(r, offset),
        _ => Ok(()),
    }
}

fn check_block(ty: BlockType, offset: u64) -> Result<(), TranslateError> {
    match ty {
        BlockType::Type(t) => check_val(t, offset),
        _ => Ok(()),
    }
}

/// Checks that a function body uses nothing of the GC proposal.
pub(crate) fn check_body(body: &FunctionBody<'_>) -> Result<(), TranslateError> {
    let mut locals = body.get_locals_reader()?;
    for _ in 0..locals.get_count() {
        let offset = locals.original_position();
        let (_, ty) = locals.read()?;
        check_val(ty, offset)?;
    }
    let mut reader = body.get_operators_reader()?;
    while !reader.eof() {
        let (op, offset) = reader.read_with_offset()?;
        use Operator as O;
        match op {
            O::RefEq
            | O::StructNew { .. }
            | O::StructNewDefault { .. }
            | O::StructGet { .. }
            | O::StructGetS { .. }
            | O::StructGetU { .. }
            | O::StructSet { .. }
            | O::ArrayNew { .. }
            | O::ArrayNewDefault { .. }
            | O::ArrayNewFixed { .. }
            | O::ArrayNewData { .. }
            | O::ArrayNewElem { .. }
            | O::ArrayGet { .. }
            | O::ArrayGetS { .. }
            | O::ArrayGetU { .. }
            | O::ArraySet { .. }
            | O::ArrayLen
            | O::ArrayFill { .. }
            | O::ArrayCopy { .. }
            | O::ArrayInitData { .. }
            | O::ArrayInitElem { .. }
            | O::RefTestNonNull { .. }
            | O::RefTestNullable { .. }
            | O::RefCastNonNull { .. }
            | O::RefCastNullable { .. }
            | O::BrOnCast { .. }
            | O::BrOnCastFail { .. }
            | O::AnyConvertExtern
            | O::ExternConvertAny
            | O::RefI31
            | O::I31GetS
            | O::I31GetU => return Err(gc_error(format!("operator {op:?}"), offset)),
            O::RefNull { hty } if is_gc_heap_type(hty) => return Err(gc_error(format!("heap type {hty:?}"), offset)),
            O::TypedSelect { ty } => check_val(ty, offset)?,
            O::TypedSelectMulti { tys } => {
                for ty in tys {
                    check_val(ty, offset)?;
                }
            }
            O::Block { blockty } | O::Loop { blockty } | O::If { blockty } => check_block(blockty, offset)?,
            O::TryTable { try_table } => check_block(try_table.ty, offset)?,
            _ => {}
        }
    }
    Ok(())
}
