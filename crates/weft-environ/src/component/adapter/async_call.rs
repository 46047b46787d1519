//! The fused adapter of a call of an `async` function type between two
//! components. The callee runs as a task the runtime schedules (it may
//! wait for backpressure before it starts, block, and return long after
//! the caller's core call ended), so the adapter is three functions:
//!
//! - [`ADAPTER`], with the caller's lowered signature
//!   (`async` or not), passes its core arguments to the
//!   [`START_CALL`] built-in, which checks the flags,
//!   makes the subtask and the callee's task and returns the status of an
//!   `async` lower (or, lowered synchronously, waits and returns the flat
//!   result);
//! - [`START`] is what the runtime calls when the callee's
//!   task starts (`OnStart`): from the caller's core arguments and the
//!   call's resource scope it makes the callee's core arguments, moving
//!   every value from the caller's memory and tables to the callee's;
//! - [`RETURN`] is what the runtime calls when the callee
//!   returns (`task.return`, or the return of a synchronous lift), before
//!   `post-return`: from the callee's flat results (or the pointer to them)
//!   followed by the caller's core arguments it moves the result to the
//!   caller: through the caller's return pointer, or as the flat result of
//!   a synchronous lower, which the runtime hands to `START_CALL`.
//!
//! The moves are the same translation as every other adapter's.

use super::translate::AdapterFuncBuilder;
use super::wasm::{self, val_type};
// Import loop kept on purpose: this is the async kind of the adapters of
// mod.rs (whose adapter_module picks it), with their imports and moves.
use super::{flat_len, import_moves, move_params, move_result, scan, Imports, MoveNeeds, Moves, Needs, Sides, PTR};
use super::{ADAPTER, RETURN, START, START_CALL};
use crate::component::abi::{self, AbiOptions, Context, FlatType};
use crate::component::{ComponentTypes, FuncType, InterfaceType, StringEncoding};
use wasm_encoder::{
    CodeSection, ExportKind, ExportSection, FunctionSection, Instruction as W, Module as Encoder, TypeSection, ValType,
};

const I32: ValType = ValType::I32;

/// The binary of the adapter of an `async` call of type `ty` (see the
/// module docs).
pub(super) fn async_adapter_module(types: &ComponentTypes, ty: &FuncType, sides: Sides) -> Result<Vec<u8>, String> {
    let param_tys: Vec<InterfaceType> = ty.param_types().collect();
    let (mut p, mut r) = (Needs::default(), Needs::default());
    for t in &param_tys {
        scan(types, *t, &mut p, 0);
    }
    if let Some(t) = ty.result {
        scan(types, t, &mut r, 0);
    }
    let caller_abi = AbiOptions {
        is_async: sides.caller.is_async,
        ..AbiOptions::default()
    };
    let callee_abi = AbiOptions {
        is_async: sides.callee.is_async,
        callback: sides.callee.callback,
        ..AbiOptions::default()
    };
    let lower = abi::flatten_functype(types, ty, caller_abi, Context::Lower);
    let lift = abi::flatten_functype(types, ty, callee_abi, Context::Lift);

    let params_len = param_tys.iter().fold(0usize, |n, t| {
        n.saturating_add(flat_len(types, *t, abi::MAX_FLAT_PARAMS, 0))
    });
    let caller_limit = if sides.caller.is_async {
        abi::MAX_FLAT_ASYNC_PARAMS
    } else {
        abi::MAX_FLAT_PARAMS
    };
    let caller_params_spill = params_len > caller_limit;
    let callee_params_spill = params_len > abi::MAX_FLAT_PARAMS;
    // The callee's result: `task.return`'s parameters (an `async` lift) or
    // the core result (a synchronous one), each with its own spill limit.
    let callee_result_limit = if sides.callee.is_async {
        abi::MAX_FLAT_PARAMS
    } else {
        abi::MAX_FLAT_RESULTS
    };
    let result_len = ty.result.map_or(0, |t| flat_len(types, t, abi::MAX_FLAT_PARAMS, 0));
    let callee_result_spill = result_len > callee_result_limit;
    let callee_result: Vec<FlatType> = match ty.result {
        None => Vec::new(),
        Some(_) if callee_result_spill => vec![FlatType::I32],
        Some(t) => abi::flatten_type(types, t, PTR),
    };
    // The caller's result: through its return pointer (its last
    // parameter) or as the flat result of a synchronous lower.
    let caller_retptr = if sides.caller.is_async {
        result_len > 0
    } else {
        result_len > abi::MAX_FLAT_RESULTS
    };

    let values_in_memory = p.strings || p.lists || r.strings || r.lists;
    let caller_memory = values_in_memory || caller_params_spill || caller_retptr;
    let callee_memory = values_in_memory || callee_params_spill || callee_result_spill;
    if (caller_memory && !sides.caller.memory) || (callee_memory && !sides.callee.memory) {
        return Err("the canonical options of a component-to-component call lack a memory".into());
    }
    let callee_realloc = p.strings || p.lists || callee_params_spill;
    let caller_realloc = r.strings || r.lists;
    if (callee_realloc && !sides.callee.realloc) || (caller_realloc && !sides.caller.realloc) {
        return Err("the canonical options of a component-to-component call lack a `realloc`".into());
    }
    let needs_memory = caller_memory || callee_memory;
    let utf8 = sides.caller.encoding == StringEncoding::Utf8 && sides.callee.encoding == StringEncoding::Utf8;
    let validators = utf8 && (p.strings || r.strings);

    let lower_params: Vec<ValType> = lower.params.iter().map(|t| val_type(*t)).collect();
    let lower_results: Vec<ValType> = lower.results.iter().map(|t| val_type(*t)).collect();
    let lift_params: Vec<ValType> = lift.params.iter().map(|t| val_type(*t)).collect();
    let callee_result_vals: Vec<ValType> = callee_result.iter().map(|t| val_type(*t)).collect();
    // The flat result a synchronous lower returns (none when `async`).
    let caller_flat_result: Vec<ValType> = if sides.caller.is_async {
        Vec::new()
    } else {
        lower_results.clone()
    };

    // Types: 0 the adapter and `start-call` (the caller's lowered
    // signature), 1 `() -> ()`, 2 start, 3 return, then the built-ins'
    // (`builtin_types`).
    let mut start_params = lower_params.clone();
    start_params.push(I32);
    let mut return_params = callee_result_vals.clone();
    return_params.extend(lower_params.iter().copied());
    let mut type_section = TypeSection::new();
    type_section.ty().function(lower_params.clone(), lower_results.clone());
    type_section.ty().function([], []);
    type_section.ty().function(start_params, lift_params.clone());
    type_section.ty().function(return_params, caller_flat_result.clone());
    super::builtin_types(&mut type_section);

    let mut imports = Imports {
        section: wasm_encoder::ImportSection::new(),
        next: 0,
    };
    let start_call = imports.func(START_CALL, 0);
    let need = MoveNeeds {
        callee_realloc,
        caller_realloc,
        memory: needs_memory,
        validators,
    };
    // Functions: the adapter, start, return, then the two validators.
    let (imports, num_imported, moves) = import_moves(imports, (&p, &r), &sides, &need, 3);
    let Moves {
        to_callee,
        to_caller,
        trap,
    } = moves;
    let n = lower_params.len() as u32;

    // The adapter: every argument to `start-call`, its results returned.
    let mut adapter = wasm::Body::new(n, None);
    for i in 0..n {
        adapter.i(W::LocalGet(i));
    }
    adapter.i(W::Call(start_call));

    // Start: the caller's arguments (flat, or the tuple its first
    // parameter points to) to the callee's (flat, or a tuple allocated
    // with the callee's `realloc`); the scope is the last parameter.
    let mut g = AdapterFuncBuilder::new(types, n + 1, trap);
    g.b.i(W::LocalGet(n));
    g.b.i(W::LocalSet(g.scope));
    let callee_args = move_params(
        &mut g,
        &param_tys,
        (caller_params_spill, callee_params_spill),
        &to_callee,
    )?;
    for a in callee_args {
        g.b.i(W::LocalGet(a));
    }
    let start = g.b.finish()?;

    // Return: the callee's result (flat, or what its pointer points to) to
    // the caller's return pointer or flat result.
    let k = callee_result.len() as u32;
    let mut g = AdapterFuncBuilder::new(types, k + n, trap);
    let mut caller_results = Vec::new();
    if let Some(t) = ty.result {
        let flat = callee_result.iter().enumerate().map(|(i, t)| (i as u32, *t)).collect();
        let from_ptr = callee_result_spill.then_some(0);
        let retptr = if caller_retptr {
            Some((k + n).checked_sub(1).ok_or("internal error: no return pointer")?)
        } else {
            None
        };
        // An `async` lower without a return pointer has a result of no flat
        // values: nothing to write.
        let to_flat = if sides.caller.is_async {
            &[][..]
        } else {
            &lower.results[..]
        };
        caller_results = move_result(&mut g, t, (flat, from_ptr), (retptr, to_flat), &to_caller)?;
    }
    for l in caller_results {
        g.b.i(W::LocalGet(l));
    }
    let ret = g.b.finish()?;

    let mut functions = FunctionSection::new();
    let mut code = CodeSection::new();
    functions.function(0);
    code.function(&adapter.finish()?);
    functions.function(2);
    code.function(&start);
    functions.function(3);
    code.function(&ret);
    if validators {
        let trap = trap.ok_or("internal error: no trap built-in")?;
        functions.function(5);
        functions.function(5);
        code.function(&wasm::validate_utf8(0, trap));
        code.function(&wasm::validate_utf8(1, trap));
    }
    let mut exports = ExportSection::new();
    exports.export(ADAPTER, ExportKind::Func, num_imported);
    exports.export(START, ExportKind::Func, num_imported + 1);
    exports.export(RETURN, ExportKind::Func, num_imported + 2);
    let mut module = Encoder::new();
    module
        .section(&type_section)
        .section(&imports)
        .section(&functions)
        .section(&exports)
        .section(&code);
    Ok(module.finish())
}
