//! The fused adapter of a call of an `async` function type between two
//! components. The callee runs as a task the runtime schedules (it may
//! wait for backpressure before it starts, block, and return long after
//! the caller's core call ended), so the adapter is three functions:
//!
//! - [`ADAPTER`](super::ADAPTER), with the caller's lowered signature
//!   (`async` or not), passes its core arguments to the
//!   [`START_CALL`](super::START_CALL) built-in, which checks the flags,
//!   makes the subtask and the callee's task and returns the status of an
//!   `async` lower (or, lowered synchronously, waits and returns the flat
//!   result);
//! - [`START`](super::START) is what the runtime calls when the callee's
//!   task starts (`OnStart`): from the caller's core arguments and the
//!   call's resource scope it makes the callee's core arguments, moving
//!   every value from the caller's memory and tables to the callee's;
//! - [`RETURN`](super::RETURN) is what the runtime calls when the callee
//!   returns (`task.return`, or the return of a synchronous lift), before
//!   `post-return`: from the callee's flat results (or the pointer to them)
//!   followed by the caller's core arguments it moves the result to the
//!   caller: through the caller's return pointer, or as the flat result of
//!   a synchronous lower, which the runtime hands to `START_CALL`.
//!
//! The moves are the same translation as every other adapter's.

use super::translate::{AdapterFuncBuilder, CopyDirection, Place};
use super::wasm::{self, val_type};
// Import loop kept on purpose: this is the async kind of the adapters of
// mod.rs (whose adapter_module picks it), with their imports and layout.
use super::{flat_len, scan, tuple_layout, AdapterTrap, Imports, Needs, Sides, PTR};
use super::{
    ADAPTER, ASYNC_TO_CALLEE, ASYNC_TO_CALLER, BORROW_TO_CALLEE, CALLEE_MEMORY, CALLEE_REALLOC, CALLER_MEMORY,
    CALLER_REALLOC, OWN_TO_CALLEE, OWN_TO_CALLER, RETURN, START, START_CALL, TRANSCODE_TO_CALLEE, TRANSCODE_TO_CALLER,
    TRAP, UNSUPPORTED,
};
use crate::component::abi::{self, AbiOptions, Context, FlatType};
use crate::component::{ComponentTypes, FuncType, InterfaceType, StringEncoding};
use wasm_encoder::{
    CodeSection, EntityType, ExportKind, ExportSection, FunctionSection, Instruction as W, Module as Encoder,
    TypeSection, ValType,
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
    // signature), 1 `() -> ()`, 2 start, 3 return, 4 realloc, 5 UTF-8
    // validation, 6 unused, 7 trap, 8 transcode, 9 own, 10 borrow and
    // async values.
    let mut start_params = lower_params.clone();
    start_params.push(I32);
    let mut return_params = callee_result_vals.clone();
    return_params.extend(lower_params.iter().copied());
    let mut type_section = TypeSection::new();
    type_section.ty().function(lower_params.clone(), lower_results.clone());
    type_section.ty().function([], []);
    type_section.ty().function(start_params, lift_params.clone());
    type_section.ty().function(return_params, caller_flat_result.clone());
    type_section.ty().function([I32, I32, I32, I32], [I32]);
    type_section.ty().function([I32, I32], []);
    type_section.ty().function([], [I32]);
    type_section.ty().function([I32], []);
    type_section.ty().function([I32, I32], [I32, I32]);
    type_section.ty().function([I32, I32], [I32]);
    type_section.ty().function([I32, I32, I32], [I32]);

    let mut imports = Imports {
        section: wasm_encoder::ImportSection::new(),
        next: 0,
    };
    let start_call = imports.func(START_CALL, 0);
    let callee_realloc = imports.func_if(callee_realloc, CALLEE_REALLOC, 4);
    let caller_realloc = imports.func_if(caller_realloc, CALLER_REALLOC, 4);
    let transcode_to_callee = imports.func_if(p.strings && !utf8, TRANSCODE_TO_CALLEE, 8);
    let transcode_to_caller = imports.func_if(r.strings && !utf8, TRANSCODE_TO_CALLER, 8);
    let own_to_callee = imports.func_if(p.own, OWN_TO_CALLEE, 9);
    let own_to_caller = imports.func_if(r.own, OWN_TO_CALLER, 9);
    let borrow_to_callee = imports.func_if(p.borrow, BORROW_TO_CALLEE, 10);
    let async_to_callee = imports.func_if(p.async_values, ASYNC_TO_CALLEE, 10);
    let async_to_caller = imports.func_if(r.async_values, ASYNC_TO_CALLER, 10);
    let unsupported = imports.func_if(r.borrow, UNSUPPORTED, 1);
    let traps = needs_memory || p.checked || r.checked;
    let trap = imports.func_if(traps, TRAP, 7);
    let num_imported = imports.next;
    let mut imports = imports.section;
    if needs_memory {
        // Both are imported so that the caller's is memory 0 and the
        // callee's memory 1; the runtime passes an empty memory for a side
        // that has none (its values never touch it).
        let memory = EntityType::Memory(wasm_encoder::MemoryType {
            minimum: 0,
            maximum: None,
            memory64: false,
            shared: false,
            page_size_log2: None,
        });
        imports.import("", CALLER_MEMORY, memory);
        imports.import("", CALLEE_MEMORY, memory);
    }
    // Functions: the adapter, start, return, then the two validators.
    let validate = [num_imported + 3, num_imported + 4];
    let to_callee = CopyDirection {
        from_mem: 0,
        to_mem: 1,
        from_enc: sides.caller.encoding,
        to_enc: sides.callee.encoding,
        realloc: callee_realloc,
        validate: validators.then_some(validate[0]),
        transcode: transcode_to_callee,
        own: own_to_callee,
        borrow: borrow_to_callee,
        async_value: async_to_callee,
        unsupported,
    };
    let to_caller = CopyDirection {
        from_mem: 1,
        to_mem: 0,
        from_enc: sides.callee.encoding,
        to_enc: sides.caller.encoding,
        realloc: caller_realloc,
        validate: validators.then_some(validate[1]),
        transcode: transcode_to_caller,
        own: own_to_caller,
        borrow: None,
        async_value: async_to_caller,
        unsupported,
    };
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
    let params_tuple = tuple_layout(types, &param_tys);
    let src = if caller_params_spill {
        g.b.check_align(0, params_tuple.0);
        g.b.check_range_const(0, params_tuple.1, 0, AdapterTrap::MemoryOutOfBounds);
        Place::Mem {
            mem: 0,
            addr: 0,
            offset: 0,
        }
    } else {
        let flat: Vec<FlatType> = param_tys
            .iter()
            .flat_map(|t| abi::flatten_type(types, *t, PTR))
            .collect();
        Place::Flat(flat.iter().enumerate().map(|(i, t)| (i as u32, *t)).collect())
    };
    let (dst, callee_args) = if callee_params_spill {
        let realloc = callee_realloc.ok_or("internal error: no callee realloc")?;
        let ptr = g.b.local(I32);
        g.b.i(W::I32Const(0));
        g.b.i(W::I32Const(0));
        g.b.i(W::I32Const(params_tuple.0 as i32));
        g.b.i(W::I32Const(params_tuple.1 as i32));
        g.b.i(W::Call(realloc));
        g.b.i(W::LocalSet(ptr));
        g.b.check_align(ptr, params_tuple.0);
        g.b.check_range_const(ptr, params_tuple.1, 1, AdapterTrap::MemoryOutOfBounds);
        let place = Place::Mem {
            mem: 1,
            addr: ptr,
            offset: 0,
        };
        (place, vec![ptr])
    } else {
        let locals = g.flat_locals(&lift.params);
        let args = locals.iter().map(|(l, _)| *l).collect();
        (Place::Flat(locals), args)
    };
    let srcs = g.fields(&param_tys, &src)?;
    let dsts = g.fields(&param_tys, &dst)?;
    for ((t, s), d) in param_tys.iter().zip(&srcs).zip(&dsts) {
        g.translate(*t, s, d, &to_callee, 0)?;
    }
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
        let align = abi::alignment(types, t, PTR);
        let size = abi::elem_size(types, t, PTR);
        let src = if callee_result_spill {
            g.b.check_align(0, align);
            g.b.check_range_const(0, size, 1, AdapterTrap::MemoryOutOfBounds);
            Place::Mem {
                mem: 1,
                addr: 0,
                offset: 0,
            }
        } else {
            Place::Flat(callee_result.iter().enumerate().map(|(i, t)| (i as u32, *t)).collect())
        };
        let dst = if caller_retptr {
            let retptr = (k + n).checked_sub(1).ok_or("internal error: no return pointer")?;
            g.b.check_align(retptr, align);
            g.b.check_range_const(retptr, size, 0, AdapterTrap::MemoryOutOfBounds);
            Place::Mem {
                mem: 0,
                addr: retptr,
                offset: 0,
            }
        } else if sides.caller.is_async {
            // A result of no flat values: nothing to write.
            Place::Flat(Vec::new())
        } else {
            let locals = g.flat_locals(&lower.results);
            caller_results = locals.iter().map(|(l, _)| *l).collect();
            Place::Flat(locals)
        };
        g.translate(t, &src, &dst, &to_caller, 0)?;
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
