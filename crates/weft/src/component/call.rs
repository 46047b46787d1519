//! Calls across the component boundary: into a lifted function (from the
//! host or from another component) and out of a lowered one (to the host).

// Import loop kept on purpose: a call into a lifted function runs as a
// task of the event loop (concurrent/), whose tasks and hooks make calls.
use super::concurrent;
use super::flat::lift_flat_iter;
use super::handles::{enter_call, exit_call, lift_resources, lower_resources, release_lowered};
use super::linker::HostDtor;
use super::resources::Handle;
use super::store::{ComponentInstanceRef, LiftedFunc, Options};
use super::types::ResourceKind;
use super::{lift_flat_values, lower_flat_values, LiftContext, LowerContext, LowerMemory, Val};
use crate::{AsContextMut, StoreContextMut};
use weft_environ::component::abi::{self, AbiOptions, Context, FlatType, MAX_FLAT_PARAMS, MAX_FLAT_RESULTS};
use weft_environ::component::{ComponentTypes, FuncType, InterfaceType};

/// The memory of canonical options in a store, with its `realloc`.
pub(crate) struct StoreMemory<'s, 'a, T: 'static> {
    pub(crate) store: &'s mut StoreContextMut<'a, T>,
    pub(crate) memory: Option<crate::Memory>,
    pub(crate) realloc: Option<crate::Func>,
    pub(crate) flags: ComponentInstanceRef,
}

impl<T: 'static> LowerMemory for StoreMemory<'_, '_, T> {
    fn memory(&mut self) -> &mut [u8] {
        match self.memory {
            Some(m) => m.data_mut(&mut *self.store),
            None => &mut [],
        }
    }

    fn realloc(&mut self, old_ptr: u32, old_size: u32, align: u32, new_size: u32) -> crate::Result<u32> {
        let Some(realloc) = self.realloc else {
            return Err(crate::component::trap(
                "a value needs memory, but the canonical options have no `realloc`",
            ));
        };
        let args = [old_ptr, old_size, align, new_size].map(|v| crate::Val::I32(v as i32));
        let mut result = [crate::Val::I32(0)];
        // `realloc` may not call out; the flag goes back to what it was,
        // which inside `lowering` is cleared too.
        let was = self.store.components().flags(self.flags)?.may_leave;
        set_may_leave(self.store, self.flags, false)?;
        let called = realloc.call(&mut *self.store, &args, &mut result);
        set_may_leave(self.store, self.flags, was)?;
        called?;
        match result[0] {
            crate::Val::I32(p) => Ok(p as u32),
            _ => crate::bail!("`realloc` returned a value that is not an i32"),
        }
    }
}

/// Traps unless the component instance `at` may call out.
pub(crate) fn check_may_leave<T>(store: &StoreContextMut<'_, T>, at: ComponentInstanceRef) -> crate::Result<()> {
    if !store.components().flags(at)?.may_leave {
        return Err(crate::component::trap("cannot leave component instance"));
    }
    Ok(())
}

/// What happens to a handle removed from a table: an `own` handle runs
/// its resource's destructor (a guest's core function, entered unless it
/// would be re-entered, or the host's), a `borrow` handle ends its borrow.
/// `from` is the component instance that drops it (`None`: the host).
pub(crate) fn drop_handle<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    h: Handle,
    from: Option<ComponentInstanceRef>,
) -> crate::Result<()> {
    if !h.own {
        if let Some(scope) = h.borrow_scope {
            if let Some(call) = store.components_mut().calls.get_mut(scope as usize) {
                call.num_borrows = call.num_borrows.saturating_sub(1);
            }
        }
        return Ok(());
    }
    match h.ty.0 {
        ResourceKind::Guest { instance, resource, .. } => {
            let defined = store
                .components()
                .instance(instance)?
                .defined
                .get(resource as usize)
                .cloned()
                .ok_or_else(|| crate::format_err!("resource {resource} not found in its component instance"))?;
            let Some(dtor) = defined.dtor else {
                return Ok(());
            };
            let at = ComponentInstanceRef {
                instance,
                component_instance: defined.component_instance,
            };
            let reentering = from != Some(at);
            if reentering {
                if !store.components().flags(at)?.may_enter {
                    return Err(crate::component::trap("cannot enter component instance"));
                }
                set_may_enter(store, at, false)?;
            }
            let r = dtor.call(&mut *store, &[crate::Val::I32(h.rep as i32)], &mut []);
            if reentering && !matches!(&r, Err(e) if crate::component::is_trap(e)) {
                set_may_enter(store, at, true)?;
            }
            r
        }
        ResourceKind::Static { .. } => Ok(()),
        ResourceKind::Host(_) | ResourceKind::HostDynamic(_) => {
            let dtor = store.components().host_dtors.get(&h.ty).cloned();
            match dtor.as_ref().and_then(|d| d.downcast_ref::<HostDtor<T>>()) {
                Some(dtor) => dtor(store.as_context_mut(), h.rep),
                None => Ok(()),
            }
        }
    }
}

/// [`super::ResourceAny::resource_drop`].
pub(crate) fn drop_host_resource<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    resource: super::ResourceAny,
) -> crate::Result<()> {
    let table = &mut store.components_mut().host_handles;
    let h = table.get(&resource)?;
    if h.num_lends != 0 {
        crate::bail!("cannot drop a resource that is lent out");
    }
    table.remove(resource.index);
    if h.host_made {
        // The host drops a resource it made itself: the linker's
        // destructor is for handles that come from a guest (as in
        // Wasmtime).
        return Ok(());
    }
    drop_handle(store, h, None)
}

pub(crate) fn set_may_leave<T>(
    store: &mut StoreContextMut<'_, T>,
    flags: ComponentInstanceRef,
    value: bool,
) -> crate::Result<()> {
    store.components_mut().flags_mut(flags)?.may_leave = value;
    Ok(())
}

pub(crate) fn set_may_enter<T>(
    store: &mut StoreContextMut<'_, T>,
    flags: ComponentInstanceRef,
    value: bool,
) -> crate::Result<()> {
    store.components_mut().flags_mut(flags)?.may_enter = value;
    Ok(())
}

/// Marks the component instance `flags` trapped: it is never entered
/// again.
pub(crate) fn poison_instance<T>(store: &mut StoreContextMut<'_, T>, flags: ComponentInstanceRef) -> crate::Result<()> {
    let components = &mut store.0.opaque_mut().components;
    let f = components.flags_mut(flags)?;
    f.may_enter = false;
    f.trapped = true;
    components.newly_trapped = true;
    // The host's calls waiting to enter it become ready, and the event loop
    // ends them (`concurrent::calls::implicit_thread`).
    #[cfg(feature = "component-model-async")]
    if let Ok(inst) = components.task_table(flags) {
        let _ = components.tasks.end_backpressure(inst);
    }
    Ok(())
}

/// The bytes of the options' memory (empty without one).
fn memory_bytes<'a, T>(store: &'a StoreContextMut<'_, T>, options: &Options) -> &'a [u8] {
    match options.memory {
        Some(m) => m.data(store),
        None => &[],
    }
}

fn flat_count(types: &ComponentTypes, tys: &[InterfaceType]) -> usize {
    tys.iter()
        .fold(0, |n, t| n.saturating_add(types.value_abi(*t).flat_count()))
}

fn result_types(ty: &FuncType) -> &[InterfaceType] {
    ty.result.as_slice()
}

/// Whether values of `tys` are scalars or strings, which hold no handles
/// (no resource, stream, future or error context) to move.
fn holds_no_handles(tys: &[InterfaceType]) -> bool {
    use InterfaceType as I;
    tys.iter().all(|t| {
        matches!(
            t,
            I::Bool
                | I::S8
                | I::U8
                | I::S16
                | I::U16
                | I::S32
                | I::U32
                | I::S64
                | I::U64
                | I::F32
                | I::F64
                | I::Char
                | I::String
        )
    })
}

/// The core value of type `t` held in a flat slot (the `u64` in which
/// the flat lowering carries every core number, bits unchanged).
pub(crate) fn flat_to_core(t: FlatType, slot: u64) -> crate::Val {
    match t {
        FlatType::I32 => crate::Val::I32(slot as u32 as i32),
        FlatType::I64 => crate::Val::I64(slot as i64),
        FlatType::F32 => crate::Val::F32(slot as u32),
        FlatType::F64 => crate::Val::F64(slot),
    }
}

/// The core arguments of a call of `f` whose parameters are given as the
/// flat values `args` (one per core parameter), and its core results'
/// slots, zeroed.
pub(crate) fn flat_core_args(f: &LiftedFunc, args: &[u64]) -> crate::Result<(Vec<crate::Val>, Vec<crate::Val>)> {
    let flat = &f.sig.flat;
    if args.len() != flat.params.len() {
        crate::bail!("internal error: flat arguments for a function that takes others");
    }
    let core_args = flat
        .params
        .iter()
        .zip(args)
        .map(|(t, v)| flat_to_core(*t, *v))
        .collect();
    let core_results = flat.results.iter().map(|t| flat_to_core(*t, 0)).collect();
    Ok((core_args, core_results))
}

#[cfg(feature = "component-model-async")]
/// Calls `core`, the core function of a lifted function whose core
/// signature is `sig`, with the flat values `args` of its parameters,
/// through raw values on the stack (no core value is made): the flat
/// value of its first result, if it has one.
pub(crate) fn call_core_flat<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    core: &crate::Func,
    sig: &weft_environ::component::abi::FlatFuncType,
    args: &[u64],
) -> crate::Result<Option<u64>> {
    let n = sig.params.len().max(sig.results.len()).max(1);
    let mut raw = [weft_runtime::ValRaw::default(); MAX_FLAT_PARAMS + 1];
    let (Some(values), true) = (raw.get_mut(..n), args.len() == sig.params.len()) else {
        crate::bail!("internal error: the flat arguments do not match the core signature");
    };
    for ((slot, t), v) in values.iter_mut().zip(&sig.params).zip(args) {
        *slot = match t {
            FlatType::I32 => weft_runtime::ValRaw::i32(*v as u32 as i32),
            FlatType::I64 => weft_runtime::ValRaw::i64(*v as i64),
            FlatType::F32 => weft_runtime::ValRaw::f32(*v as u32),
            FlatType::F64 => weft_runtime::ValRaw::f64(*v),
        };
    }
    core.call_raw(store.0, values)?;
    Ok(sig.results.first().map(|t| match t {
        FlatType::I32 => u64::from(values[0].get_i32() as u32),
        FlatType::I64 => values[0].get_i64() as u64,
        FlatType::F32 => u64::from(values[0].get_f32()),
        FlatType::F64 => values[0].get_f64(),
    }))
}

/// The flat slot of a core number (its bits, zero-extended to 64); any
/// other value is an error.
pub(crate) fn core_to_flat(v: &crate::Val) -> crate::Result<u64> {
    Ok(match v {
        crate::Val::I32(x) => u64::from(*x as u32),
        crate::Val::I64(x) => *x as u64,
        crate::Val::F32(x) => u64::from(*x),
        crate::Val::F64(x) => *x,
        _ => crate::bail!("a core value of the canonical ABI must be a number"),
    })
}

/// The arguments of a lowered function, lifted from its core parameters
/// with the caller's options (the last core parameter is the pointer for
/// the results when they do not fit in one core value).
pub(crate) fn lift_args_from_core<T>(
    store: &mut StoreContextMut<'_, T>,
    types: &ComponentTypes,
    ty: &FuncType,
    options: &Options,
    params: &[crate::Val],
) -> crate::Result<Vec<Val>> {
    let spilled_results = flat_count(types, result_types(ty)) > MAX_FLAT_RESULTS;
    let n = params.len() - usize::from(spilled_results && !params.is_empty());
    // At most `MAX_FLAT_PARAMS` flat values, or one pointer to them.
    let mut flat = [0u64; MAX_FLAT_PARAMS];
    let Some(flat) = flat.get_mut(..n) else {
        crate::bail!("a lowered function has {n} core parameters, more than the canonical ABI passes");
    };
    for (f, p) in flat.iter_mut().zip(params) {
        *f = core_to_flat(p)?;
    }
    let cx = LiftContext {
        types,
        memory: memory_bytes(store, options),
        encoding: options.encoding,
    };
    lift_flat_iter(&cx, MAX_FLAT_PARAMS, ty.param_types(), flat)
}

/// The results of a lowered function, lowered into its core results (or
/// into memory at the pointer passed as its last core parameter).
pub(crate) fn lower_results_to_core<T>(
    store: &mut StoreContextMut<'_, T>,
    types: &ComponentTypes,
    ty: &FuncType,
    options: &Options,
    params: &[crate::Val],
    out: &[Val],
    results: &mut [crate::Val],
) -> crate::Result<()> {
    let tys = result_types(ty);
    let out_param = if flat_count(types, tys) > MAX_FLAT_RESULTS {
        match params.last() {
            Some(crate::Val::I32(p)) => Some(*p as u32),
            _ => crate::bail!("the lowered function has no pointer for its results"),
        }
    } else {
        None
    };
    // The core result types: those of the result's flattening, or none
    // when it goes to memory.
    let result_abi = tys.first().map(|t| types.value_abi(*t));
    let flat_tys = match (out_param, &result_abi) {
        (None, Some(facts)) => facts.flat(abi::PtrType::I32),
        _ => &[],
    };
    let lowered = lowering(store, types, options, |cx| {
        lower_flat_values(cx, MAX_FLAT_RESULTS, out, tys, out_param)
    });
    let flat = lowered?;
    if flat.len() != results.len() || flat.len() != flat_tys.len() {
        crate::bail!("the lowered results do not match the core signature");
    }
    for ((r, v), t) in results.iter_mut().zip(flat).zip(flat_tys) {
        *r = flat_to_core(*t, v);
    }
    Ok(())
}

/// Runs `f` with a context that lowers into the memory of `options`, with
/// the instance's `may_leave` cleared meanwhile (its `realloc` may not call
/// out of it).
pub(crate) fn lowering<T, R>(
    store: &mut StoreContextMut<'_, T>,
    types: &ComponentTypes,
    options: &Options,
    f: impl FnOnce(&mut LowerContext<'_>) -> crate::Result<R>,
) -> crate::Result<R> {
    let was = store.components().flags(options.flags)?.may_leave;
    set_may_leave(store, options.flags, false)?;
    let result = {
        let mut memory = StoreMemory {
            store: &mut *store,
            memory: options.memory,
            realloc: options.realloc,
            flags: options.flags,
        };
        let mut cx = LowerContext {
            types,
            memory: &mut memory,
            encoding: options.encoding,
        };
        f(&mut cx)
    };
    set_may_leave(store, options.flags, was)?;
    result
}

/// The arguments and result pointer of a function lowered `async`: the
/// parameters flat when they fit in `MAX_FLAT_ASYNC_PARAMS` values, else
/// a pointer to them; then, when the function has a result, the pointer
/// the result is stored at.
pub(crate) fn lift_async_args<T>(
    store: &mut StoreContextMut<'_, T>,
    types: &ComponentTypes,
    ty: &FuncType,
    options: &Options,
    params: &[crate::Val],
) -> crate::Result<(Vec<Val>, Option<u32>)> {
    let param_tys: Vec<InterfaceType> = ty.param_types().collect();
    let (params, retptr) = match (ty.result.is_some(), params.split_last()) {
        (true, Some((last, rest))) => (rest, Some(core_to_flat(last)? as u32)),
        _ => (params, None),
    };
    let flat = params.iter().map(core_to_flat).collect::<crate::Result<Vec<_>>>()?;
    let cx = LiftContext {
        types,
        memory: memory_bytes(store, options),
        encoding: options.encoding,
    };
    let args = lift_flat_values(&cx, abi::MAX_FLAT_ASYNC_PARAMS, &param_tys, &flat)?;
    Ok((args, retptr))
}

/// Lowers the results `out` of a call that the caller lowered
/// synchronously with `options`: their handles move into the caller's
/// instance, then the values go to the core results or to the caller's
/// return area.
pub(crate) fn lower_sync_results<T>(
    store: &mut StoreContextMut<'_, T>,
    types: &ComponentTypes,
    ty: &FuncType,
    options: &Options,
    params: &[crate::Val],
    out: &mut [Val],
    results: &mut [crate::Val],
) -> crate::Result<()> {
    move_result_handles(store, types, ty, options, out)?;
    lower_results_to_core(store, types, ty, options, params, out, results)
}

/// Moves the handles of the results `out` into the instance of the
/// caller's `options`; when that fails, releases the handles made for
/// them in the host table (`release_lowered`).
fn move_result_handles<T>(
    store: &mut StoreContextMut<'_, T>,
    types: &ComponentTypes,
    ty: &FuncType,
    options: &Options,
    out: &mut [Val],
) -> crate::Result<()> {
    let moved = lower_resources(store, types, result_types(ty), out, options.flags, None);
    if moved.is_err() {
        release_lowered(store, out);
    }
    moved
}

/// Lowers the results `out` of a call that the caller lowered `async`
/// with `options`: their handles move into the caller's instance, then the
/// values are stored at `retptr` (none when the function returns nothing).
pub(crate) fn lower_async_results<T>(
    store: &mut StoreContextMut<'_, T>,
    types: &ComponentTypes,
    ty: &FuncType,
    options: &Options,
    retptr: Option<u32>,
    out: &mut [Val],
) -> crate::Result<()> {
    move_result_handles(store, types, ty, options, out)?;
    match retptr {
        Some(ptr) => store_results_at(store, types, ty, options, ptr, out),
        None => Ok(()),
    }
}

/// Stores the results `out` of a call at `ptr` in the memory of the
/// caller's `options` (an `async` lower's result pointer).
pub(crate) fn store_results_at<T>(
    store: &mut StoreContextMut<'_, T>,
    types: &ComponentTypes,
    ty: &FuncType,
    options: &Options,
    ptr: u32,
    out: &[Val],
) -> crate::Result<()> {
    let tys = result_types(ty);
    let stored = lowering(store, types, options, |cx| {
        lower_flat_values(cx, 0, out, tys, Some(ptr))
    });
    stored.map(drop)
}

/// Calls the lifted function at store index `index` with `args`, writing
/// its results to `results`: lowers the arguments with the callee's
/// options, calls the core function, lifts the results, then runs the
/// `post-return` function.
pub(crate) fn call_lifted<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    index: u32,
    args: &[Val],
    results: &mut [Val],
) -> crate::Result<()> {
    call_lifted_with(store, index, HostArgs::Vals(args), HostResults::Vals(results))
}

/// The arguments of a call from the host: component values, or the flat
/// core values of parameters that are all integers or `bool`s, as
/// `TypedFunc::call` passes them when
/// [`LiftSig::scalars`](crate::component::store::LiftSig::scalars) holds.
pub(crate) enum HostArgs<'a> {
    Vals(&'a [Val]),
    Flat(&'a [u64]),
}

/// Where a call from the host puts its results: as component values, or as
/// their flat core values (see [`HostArgs`]).
pub(crate) enum HostResults<'a> {
    Vals(&'a mut [Val]),
    Flat(&'a mut [u64]),
}

impl HostResults<'_> {
    fn len(&self) -> usize {
        match self {
            HostResults::Vals(r) => r.len(),
            HostResults::Flat(r) => r.len(),
        }
    }
}

/// [`call_lifted`] with its arguments and results in either form.
fn call_lifted_with<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    index: u32,
    args: HostArgs<'_>,
    results: HostResults<'_>,
) -> crate::Result<()> {
    #[cfg(feature = "component-model-async")]
    return concurrent::around_call(store, |store| call_lifted_checked(store, index, args, results));
    #[cfg(not(feature = "component-model-async"))]
    call_lifted_checked(store, index, args, results)
}

/// The checks before the host calls `f` with room for `results` results:
/// the count is the function's, and its instance may be entered.
pub(crate) fn check_call<T>(store: &StoreContextMut<'_, T>, f: &LiftedFunc, results: usize) -> crate::Result<()> {
    let expected = f.types.func(f.ty).map_or(0, |t| usize::from(t.result.is_some()));
    if results != expected {
        crate::bail!("expected {expected} results, got {results}");
    }
    if !store.components().flags(f.options.flags)?.may_enter {
        return Err(crate::component::trap("cannot enter component instance"));
    }
    Ok(())
}

/// [`call_lifted`] inside the call's task group.
fn call_lifted_checked<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    index: u32,
    args: HostArgs<'_>,
    results: HostResults<'_>,
) -> crate::Result<()> {
    let f = lifted_func(store, index)?;
    check_call(store, &f, results.len())?;
    #[cfg(feature = "component-model-async")]
    if f.types.func(f.ty).is_some_and(|t| t.is_async) {
        let (HostArgs::Vals(args), HostResults::Vals(results)) = (args, results) else {
            crate::bail!("internal error: flat values for a call of an `async` function");
        };
        return concurrent::call_async_typed(store, index, args, results);
    }
    let scope = enter_call(store);
    let r = match concurrent::enter_task(store, index) {
        Ok(depth) => {
            let r = call_lifted_in(store, &f, args, results, scope);
            r.and(concurrent::exit_task(store, depth))
        }
        Err(e) => Err(e),
    };
    let exited = exit_call(store, scope, r.is_ok());
    r.and(exited)
}

/// The lifted function at store index `index`, borrowed.
#[cfg(feature = "component-model-async")]
pub(crate) fn lifted_ref<'a, T>(store: &'a StoreContextMut<'_, T>, index: u32) -> crate::Result<&'a LiftedFunc> {
    store
        .components()
        .funcs
        .get(index as usize)
        .ok_or_else(|| crate::format_err!("component function not found in store"))
}

/// The lifted function at store index `index`.
pub(crate) fn lifted_func<T>(store: &StoreContextMut<'_, T>, index: u32) -> crate::Result<LiftedFunc> {
    store
        .components()
        .funcs
        .get(index as usize)
        .cloned()
        .ok_or_else(|| crate::format_err!("component function not found in store"))
}

/// The arguments of a call into `f`, lowered with its options into core
/// arguments (its `realloc` may run), after moving their handles into its
/// instance; also the core results' slots, zeroed.
pub(crate) fn lower_call_args<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    f: &LiftedFunc,
    args: &[Val],
    scope: usize,
) -> crate::Result<(Vec<crate::Val>, Vec<crate::Val>)> {
    let types = &*f.types;
    let sig = &*f.sig;
    let param_tys = &sig.params[..];
    if args.len() != param_tys.len() {
        crate::bail!("expected {} arguments, got {}", param_tys.len(), args.len());
    }
    let flags = f.options.flags;
    let flat_ty = &sig.flat;
    // Only values that may hold handles are copied to move them.
    let moved;
    let args = if sig.params_plain {
        args
    } else {
        let mut owned = args.to_vec();
        lower_resources(store, types, param_tys, &mut owned, flags, Some(scope))?;
        moved = owned;
        &moved[..]
    };
    // Lowering the arguments may call the callee's `realloc`.
    let flat_args = {
        let mut memory = StoreMemory {
            store: &mut *store,
            memory: f.options.memory,
            realloc: f.options.realloc,
            flags,
        };
        let mut cx = LowerContext {
            types,
            memory: &mut memory,
            encoding: f.options.encoding,
        };
        lower_flat_values(&mut cx, MAX_FLAT_PARAMS, args, param_tys, None)?
    };
    if flat_args.len() != flat_ty.params.len() {
        crate::bail!("the lowered arguments do not match the core signature");
    }
    let core_args: Vec<crate::Val> = flat_ty
        .params
        .iter()
        .zip(&flat_args)
        .map(|(t, v)| flat_to_core(*t, *v))
        .collect();
    let core_results: Vec<crate::Val> = flat_ty.results.iter().map(|t| flat_to_core(*t, 0)).collect();
    Ok((core_args, core_results))
}

/// The signature facts of a function lifted with `options` from type `ty`
/// of `types`, for [`LiftedFunc::sig`].
pub(crate) fn lift_sig(
    types: &ComponentTypes,
    ty: weft_environ::component::TypeFuncIndex,
    options: &crate::component::store::Options,
) -> crate::Result<crate::component::store::LiftSig> {
    let func = types
        .func(ty)
        .ok_or_else(|| crate::format_err!("component function type not found"))?;
    let abi_options = AbiOptions {
        is_async: options.is_async,
        callback: options.callback.is_some(),
        ..AbiOptions::default()
    };
    let params: Box<[InterfaceType]> = func.param_types().collect();
    let flat = abi::flatten_functype(types, func, abi_options, Context::Lift);
    let scalar = |t: &InterfaceType| {
        use InterfaceType as I;
        matches!(
            t,
            I::Bool | I::S8 | I::U8 | I::S16 | I::U16 | I::S32 | I::U32 | I::S64 | I::U64
        )
    };
    let params_scalar = params.iter().all(scalar) && flat.params.len() == params.len() && params.len() <= MAX_SCALARS;
    let scalars = !func.is_async
        && !options.is_async
        && params_scalar
        && func.result.iter().all(scalar)
        && flat.results.len() == usize::from(func.result.is_some());
    Ok(crate::component::store::LiftSig {
        flat,
        params_plain: holds_no_handles(&params),
        result_plain: holds_no_handles(func.result.as_slice()),
        params,
        scalars,
        params_scalar,
    })
}

/// The most parameters `TypedFunc::call`'s fast path passes as flat values
/// ([`LiftSig::scalars`](crate::component::store::LiftSig::scalars)).
pub(crate) const MAX_SCALARS: usize = MAX_FLAT_PARAMS;

/// The results of a synchronous lift's core function, lifted with its
/// options; traps if the callee kept a borrow, and moves the results'
/// handles out of its instance.
pub(crate) fn lift_call_results<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    f: &LiftedFunc,
    core_results: &[crate::Val],
    scope: usize,
) -> crate::Result<Vec<Val>> {
    let types = &*f.types;
    let ty = types
        .func(f.ty)
        .ok_or_else(|| crate::format_err!("component function type not found"))?;
    let result_tys = ty.result.as_slice();
    let flat_results = core_results
        .iter()
        .map(core_to_flat)
        .collect::<crate::Result<Vec<_>>>()?;
    let mut v = {
        let cx = LiftContext {
            types,
            memory: memory_bytes(store, &f.options),
            encoding: f.options.encoding,
        };
        lift_flat_values(&cx, MAX_FLAT_RESULTS, result_tys, &flat_results)?
    };
    check_borrows_returned(store, scope)?;
    if !f.sig.result_plain {
        lift_resources(store, types, result_tys.iter().copied(), &mut v, f.options.flags, scope)?;
    }
    Ok(v)
}

/// Traps if the callee of call `scope` still holds a borrow it was lent.
pub(crate) fn check_borrows_returned<T>(store: &StoreContextMut<'_, T>, scope: usize) -> crate::Result<()> {
    if store.components().calls.get(scope).is_some_and(|c| c.num_borrows != 0) {
        return Err(crate::component::trap(
            "borrow handles still remain at the end of the call",
        ));
    }
    Ok(())
}

/// Runs `f`'s `post-return` with the core results, `may_leave` cleared.
pub(crate) fn post_return<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    f: &LiftedFunc,
    core_results: &[crate::Val],
) -> crate::Result<()> {
    let Some(post_return) = f.options.post_return else {
        return Ok(());
    };
    set_may_leave(store, f.options.flags, false)?;
    let r = post_return.call(&mut *store, core_results, &mut []);
    let r = super::trap_on_throw(store, r);
    set_may_leave(store, f.options.flags, true)?;
    r
}

/// The synchronous call of `f` (its result count and `may_enter` checked).
fn call_lifted_in<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    f: &LiftedFunc,
    args: HostArgs<'_>,
    results: HostResults<'_>,
    scope: usize,
) -> crate::Result<()> {
    let flags = f.options.flags;
    let (core_args, mut core_results) = match args {
        HostArgs::Vals(args) => lower_call_args(store, f, args, scope)?,
        HostArgs::Flat(args) => {
            if !f.sig.scalars {
                crate::bail!("internal error: flat arguments for a function that takes others");
            }
            flat_core_args(f, args)?
        }
    };
    set_may_enter(store, flags, false)?;
    let called = f.core.call(&mut *store, &core_args, &mut core_results);
    let called = super::trap_on_throw(store, called);
    if let Err(e) = called {
        // A trapped instance is not entered again until it is re-made; a
        // host error leaves it as it was.
        if crate::component::is_trap(&e) {
            poison_instance(store, flags)?;
        } else {
            set_may_enter(store, flags, true)?;
        }
        return Err(e);
    }
    let lifted = match &results {
        HostResults::Vals(_) => lift_call_results(store, f, &core_results, scope),
        HostResults::Flat(_) => check_borrows_returned(store, scope).map(|()| Vec::new()),
    };
    let lifted = match lifted {
        Ok(v) => v,
        Err(e) => {
            set_may_enter(store, flags, true)?;
            return Err(e);
        }
    };
    if let Err(e) = post_return(store, f, &core_results) {
        if crate::component::is_trap(&e) {
            poison_instance(store, flags)?;
        } else {
            set_may_enter(store, flags, true)?;
        }
        return Err(e);
    }
    set_may_enter(store, flags, true)?;
    match results {
        HostResults::Vals(results) => {
            for (r, v) in results.iter_mut().zip(lifted) {
                *r = v;
            }
        }
        HostResults::Flat(results) => {
            for (r, v) in results.iter_mut().zip(&core_results) {
                *r = core_to_flat(v)?;
            }
        }
    }
    Ok(())
}

/// A function of a component instance: lifted from core wasm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Func {
    pub(crate) store: crate::store::StoreId,
    pub(crate) index: u32,
}

impl Func {
    /// Calls the function with `params`, writing its results to `results`
    /// (as many as the function has: zero or one), then runs its
    /// `post-return` function, if any (as Wasmtime does since
    /// `Func::post_return` became a no-op).
    ///
    /// Fails when the arguments do not match the function's type, when the
    /// function belongs to another store, when the callee's instance may
    /// not be entered (it trapped, or the call would re-enter it), or when
    /// the call traps.
    pub fn call(&self, mut store: impl crate::AsContextMut, params: &[Val], results: &mut [Val]) -> crate::Result<()> {
        let mut store = store.as_context_mut();
        store.0.opaque().check(self.store, "component function")?;
        call_lifted(&mut store, self.index, params, results)
    }

    /// Does nothing: `call` runs the `post-return` function itself. Kept so
    /// that programs written for Wasmtime compile.
    pub fn post_return(&self, _store: impl crate::AsContextMut) -> crate::Result<()> {
        Ok(())
    }

    /// `TypedFunc::call`'s fast path: calls with the flat values `args` of
    /// integer and `bool` parameters, writing the flat result to
    /// `results`, when the function allows it
    /// ([`LiftSig::scalars`](crate::component::store::LiftSig::scalars));
    /// the count of flat results written, or `None` (nothing done) when it
    /// does not.
    pub(crate) fn call_scalars<T: 'static>(
        &self,
        store: &mut crate::StoreContextMut<'_, T>,
        args: &[u64],
        results: &mut [u64],
    ) -> crate::Result<Option<usize>> {
        store.0.opaque().check(self.store, "component function")?;
        let n = match store.components().funcs.get(self.index as usize) {
            Some(f) if f.sig.scalars && f.sig.flat.params.len() == args.len() => f.sig.flat.results.len(),
            _ => return Ok(None),
        };
        let Some(results) = results.get_mut(..n) else {
            return Ok(None);
        };
        call_lifted_with(store, self.index, HostArgs::Flat(args), HostResults::Flat(results))?;
        Ok(Some(n))
    }

    /// The function's type, or `None` for a function of another store.
    fn component_func(&self, store: &crate::StoreContext<'_, impl Sized>) -> Option<super::types::ComponentFunc> {
        let opaque = store.0.opaque();
        opaque.check(self.store, "component function").ok()?;
        let f = opaque.components.funcs.get(self.index as usize)?;
        Some(super::types::ComponentFunc::new(&f.types, f.ty))
    }

    /// The function's type (Wasmtime 48's `Func::ty`), or `None` for a
    /// function of another store than `store` (where Wasmtime panics).
    pub fn ty(&self, store: impl crate::AsContext) -> Option<super::types::ComponentFunc> {
        let store = store.as_context();
        self.component_func(&store)
    }

    /// The parameters' names and types, in order (none for a function of
    /// another store).
    pub fn params(&self, store: impl crate::AsContext) -> Box<[(String, super::types::Type)]> {
        let store = store.as_context();
        match self.component_func(&store) {
            Some(f) => f.params().map(|(n, t)| (n.to_string(), t)).collect(),
            None => Box::new([]),
        }
    }

    /// The result types (none for a function of another store).
    pub fn results(&self, store: impl crate::AsContext) -> Box<[super::types::Type]> {
        let store = store.as_context();
        match self.component_func(&store) {
            Some(f) => f.results().collect(),
            None => Box::new([]),
        }
    }
}
