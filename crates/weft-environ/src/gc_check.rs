//! The rules of WebAssembly 3.0 that let a constant expression read an
//! immutable global defined earlier in the module, and let function types
//! form explicit recursion groups, without the rest of the GC proposal.
//!
//! `wasmparser` allows `global.get` of a defined global in constant
//! expressions, and explicit `rec` groups, only with its GC feature. Weft
//! has no garbage collector, so a module whose validation without GC fails
//! on one of those constructs ([`is_gc_only_construct`]) is validated again
//! with the GC feature, and then checked to use nothing else of GC: no GC
//! operator (even in unreachable code), no GC heap type in locals, blocks or
//! operator immediates. GC types in the type, import, table, global and element
//! sections are rejected by the translation itself.

use crate::error::TranslateError;
use wasmparser::{
    AbstractHeapType, BlockType, ConstExpr, DataKind, ElementItems, ElementKind, FunctionBody, HeapType, Operator,
    Parser, Payload, RefType, TableInit, TypeRef, ValType,
};

/// Whether the construct at byte `offset` of the module `wasm` is one that
/// `wasmparser` accepts only with its GC feature and that Weft supports
/// without GC: an explicit recursion group (see `Module::rec_groups`), or a
/// `global.get` of a global defined in the module in a constant expression.
///
/// When validation without GC fails at such an offset, that construct is
/// what it failed on, since validation stops at the first error: the module
/// is validated again with GC. Deciding by the construct rather than by the
/// error's text keeps working whatever `wasmparser` calls the error. Only
/// modules that failed validation are scanned, and only their sections up
/// to `offset` (function bodies are skipped).
pub(crate) fn is_gc_only_construct(wasm: &[u8], offset: u64) -> bool {
    let mut imported_globals = 0u32;
    // A `global.get` of a defined global in `expr` at `offset`.
    let reads_defined_global = |expr: &ConstExpr<'_>, imported_globals: u32| {
        let mut reader = expr.get_operators_reader();
        while !reader.eof() {
            match reader.read_with_offset() {
                Ok((Operator::GlobalGet { global_index }, at)) if at == offset => {
                    return global_index >= imported_globals
                }
                Ok(_) => {}
                Err(_) => return false,
            }
        }
        false
    };
    for payload in Parser::new(0).parse_all(wasm) {
        let Ok(payload) = payload else {
            return false;
        };
        if let Some((_, range)) = payload.as_section() {
            if range.start > offset {
                return false;
            }
            if range.end <= offset {
                // Imports still count.
                if !matches!(payload, Payload::ImportSection(_)) {
                    continue;
                }
            }
        }
        let found = match payload {
            Payload::TypeSection(reader) => reader
                .into_iter_with_offsets()
                .map_while(Result::ok)
                .any(|(at, group)| at == offset && group.is_explicit_rec_group()),
            Payload::ImportSection(reader) => {
                for import in reader.into_imports() {
                    let Ok(import) = import else {
                        return false;
                    };
                    if matches!(import.ty, TypeRef::Global(_)) {
                        imported_globals += 1;
                    }
                }
                false
            }
            Payload::TableSection(reader) => reader.into_iter().map_while(Result::ok).any(|table| match &table.init {
                TableInit::Expr(e) => reads_defined_global(e, imported_globals),
                TableInit::RefNull => false,
            }),
            Payload::GlobalSection(reader) => reader
                .into_iter()
                .map_while(Result::ok)
                .any(|g| reads_defined_global(&g.init_expr, imported_globals)),
            Payload::ElementSection(reader) => reader.into_iter().map_while(Result::ok).any(|elem| {
                let in_offset = match &elem.kind {
                    ElementKind::Active { offset_expr, .. } => reads_defined_global(offset_expr, imported_globals),
                    ElementKind::Passive | ElementKind::Declared => false,
                };
                in_offset
                    || match elem.items {
                        ElementItems::Expressions(_, exprs) => exprs
                            .into_iter()
                            .map_while(Result::ok)
                            .any(|e| reads_defined_global(&e, imported_globals)),
                        ElementItems::Functions(_) => false,
                    }
            }),
            Payload::DataSection(reader) => reader.into_iter().map_while(Result::ok).any(|data| match &data.kind {
                DataKind::Active { offset_expr, .. } => reads_defined_global(offset_expr, imported_globals),
                DataKind::Passive => false,
            }),
            _ => false,
        };
        if found {
            return true;
        }
    }
    false
}

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
            | O::StructNewDesc { .. }
            | O::StructNewDefaultDesc { .. }
            | O::RefGetDesc { .. }
            | O::RefCastDescEqNonNull { .. }
            | O::RefCastDescEqNullable { .. }
            | O::BrOnCastDescEq { .. }
            | O::BrOnCastDescEqFail { .. }
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
