//! The host built-ins an adapter imports, and the instantiation of an
//! adapter module against them: the flag and call-scope bookkeeping
//! (`enter`, `exit`), string transcoding between different encodings, the
//! moves of `own` and lends of `borrow` handles between the two instances'
//! handle tables, and `trap`, which raises the trap of a failed check. All
//! safe code over the memories' accessors.

use crate::component::call::StoreMemory;
use crate::component::handles::{enter_call, exit_call, implemented_by};
use crate::component::load_store::{load_string_from_range, store_string};
use crate::component::resources::Handle;
use crate::component::store::{ComponentInstanceRef, Options};
use crate::component::{trap, LiftContext, LowerContext};
use crate::{AsContextMut, Extern, Func, Module, StoreContextMut, Val, ValType};
use weft_environ::component::adapter::{
    AdapterTrap, ADAPTER, ASYNC_TO_CALLEE, ASYNC_TO_CALLER, BORROW_TO_CALLEE, CALLEE, CALLEE_MEMORY, CALLEE_REALLOC,
    CALLER_MEMORY, CALLER_REALLOC, ENTER, EXIT, OWN_TO_CALLEE, OWN_TO_CALLER, POST_RETURN, START_CALL,
    TRANSCODE_TO_CALLEE, TRANSCODE_TO_CALLER, TRAP, UNSUPPORTED,
};
use weft_environ::component::{ComponentTypes, TypeFuncIndex, TypeResourceIndex};

fn arg(params: &[Val], i: usize) -> crate::Result<u32> {
    match params.get(i) {
        Some(Val::I32(v)) => Ok(*v as u32),
        _ => crate::bail!("expected an i32 argument"),
    }
}

fn set(results: &mut [Val], i: usize, v: u32) {
    if let Some(r) = results.get_mut(i) {
        *r = Val::I32(v as i32);
    }
}

/// The error an adapter's call fails with when its check `t` fails: a core
/// [`crate::Trap`] with Wasmtime's message where Wasmtime has one, else a
/// canonical ABI trap worded as when the host lifts the value.
pub(crate) fn trap_error(t: AdapterTrap) -> crate::Error {
    use crate::Trap;
    let core = match t {
        AdapterTrap::UnalignedPointer => Trap::UnalignedPointer,
        AdapterTrap::InvalidDiscriminant => Trap::InvalidDiscriminant,
        AdapterTrap::InvalidChar => Trap::InvalidChar,
        AdapterTrap::ListOutOfBounds => Trap::ListOutOfBounds,
        AdapterTrap::StringOutOfBounds => Trap::StringOutOfBounds,
        AdapterTrap::MemoryOutOfBounds => Trap::MemoryOutOfBounds,
        AdapterTrap::ListTooLong => return trap("list is too long"),
        AdapterTrap::StringTooLong => return trap("string is too long"),
        AdapterTrap::InvalidUtf8 => return trap("invalid UTF-8"),
    };
    crate::Error::new(core)
}

/// `f` (a `realloc` or `post-return` function of the instance `flags`)
/// wrapped so that its instance's `may_leave` flag is clear while it runs,
/// as CanonicalABI.md's `reallocate` and `canon_lift` do: a call out of the
/// instance from there traps with "cannot leave component instance".
fn without_leaving<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    f: Func,
    flags: ComponentInstanceRef,
) -> crate::Result<Func> {
    let ty = f.ty(&mut *store);
    Ok(Func::new(&mut *store, ty, move |mut c, params, results| {
        let mut store = c.as_context_mut();
        store.components_mut().flags_mut(flags)?.may_leave = false;
        f.call(&mut store, params, results)?;
        store.components_mut().flags_mut(flags)?.may_leave = true;
        Ok(())
    }))
}

/// What an adapter's instance is made for: the call's lifted function (its
/// store index and core function), the lowered function type and its
/// types, and the two sides' options.
pub(crate) struct AdapterCall<'a> {
    pub(crate) lifted: u32,
    pub(crate) callee_core: Extern,
    pub(crate) types: &'a std::sync::Arc<ComponentTypes>,
    pub(crate) ty: TypeFuncIndex,
    pub(crate) caller: &'a Options,
    pub(crate) callee: &'a Options,
}

/// An instance of the adapter `module` wired to the call's callee, the two
/// sides' options and the built-ins; returns its exported function.
pub(crate) fn instantiate<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    module: &Module,
    call: AdapterCall<'_>,
) -> crate::Result<Func> {
    let AdapterCall {
        lifted,
        callee_core,
        types,
        ty: func_ty,
        caller,
        callee,
    } = call;
    let engine = store.engine().clone();
    // An `async` call's `start-call` reaches the instance's `start` and
    // `return` exports through this, set once the instance exists.
    #[cfg(feature = "component-model-async")]
    let exports = std::sync::Arc::new(std::sync::OnceLock::<crate::component::concurrent::AsyncAdapter>::new());
    #[cfg(not(feature = "component-model-async"))]
    let exports = ();
    let i32s = |n| std::iter::repeat_n(ValType::I32, n);
    let ty = |params: usize, results: usize| crate::FuncType::new(&engine, i32s(params), i32s(results));
    let mut externs = Vec::new();
    for import in module.imports() {
        let name = import.name();
        let f = match name {
            CALLEE => {
                externs.push(callee_core.clone());
                continue;
            }
            CALLER_MEMORY | CALLEE_MEMORY => {
                let options = if name == CALLEE_MEMORY { callee } else { caller };
                let memory = match options.memory {
                    Some(m) => m,
                    // A side without a memory: its values never use one.
                    None => crate::Memory::new(&mut *store, crate::MemoryType::new(0, Some(0)))?,
                };
                externs.push(Extern::Memory(memory));
                continue;
            }
            START_CALL => start_call(store, import.ty(), lifted, types, func_ty, caller, &exports)?,
            POST_RETURN | CALLER_REALLOC | CALLEE_REALLOC => {
                let (f, flags) = match name {
                    POST_RETURN => (callee.post_return, callee.flags),
                    CALLER_REALLOC => (caller.realloc, caller.flags),
                    _ => (callee.realloc, callee.flags),
                };
                match f {
                    Some(f) => without_leaving(store, f, flags)?,
                    None => crate::bail!("the fused adapter expects a `{name}` function"),
                }
            }
            ENTER => {
                let (from, to) = (caller.flags, callee.flags);
                Func::new(&mut *store, ty(0, 1), move |mut c, _, results| {
                    let mut store = c.as_context_mut();
                    let components = &mut store.components_mut();
                    if !components.flags(from)?.may_leave {
                        return Err(crate::component::trap("cannot leave component instance"));
                    }
                    components.check_enter(from, to)?;
                    let flags = components.flags_mut(to)?;
                    if !flags.may_enter {
                        return Err(crate::component::trap("cannot enter component instance"));
                    }
                    flags.may_enter = false;
                    // The call is a task of the callee (its `context.*`
                    // slots) until `exit`; a task left by a trap is ended
                    // by the enclosing call.
                    crate::component::concurrent::enter_task(&mut store, lifted)?;
                    let scope = enter_call(&mut store);
                    set(results, 0, scope as u32);
                    Ok(())
                })
            }
            EXIT => {
                let to = callee.flags;
                Func::new(&mut *store, ty(1, 0), move |mut c, params, _| {
                    let mut store = c.as_context_mut();
                    let scope = arg(params, 0)? as usize;
                    store.components_mut().flags_mut(to)?.may_enter = true;
                    exit_call(&mut store, scope, true)?;
                    crate::component::concurrent::exit_innermost_task(&mut store)
                })
            }
            TRANSCODE_TO_CALLEE | TRANSCODE_TO_CALLER => {
                let (from, to) = if name == TRANSCODE_TO_CALLEE {
                    (caller.clone(), callee.clone())
                } else {
                    (callee.clone(), caller.clone())
                };
                Func::new(&mut *store, ty(2, 2), move |mut c, params, results| {
                    let mut store = c.as_context_mut();
                    let (ptr, units) = (arg(params, 0)?, arg(params, 1)?);
                    let (p, l) = transcode(&mut store, &from, &to, ptr, units)?;
                    set(results, 0, p);
                    set(results, 1, l);
                    Ok(())
                })
            }
            OWN_TO_CALLEE | OWN_TO_CALLER => {
                let (from, to) = if name == OWN_TO_CALLEE {
                    (caller.flags, callee.flags)
                } else {
                    (callee.flags, caller.flags)
                };
                Func::new(&mut *store, ty(2, 1), move |mut c, params, results| {
                    let mut store = c.as_context_mut();
                    let index = move_own(&mut store, from, to, arg(params, 0)?, arg(params, 1)?)?;
                    set(results, 0, index);
                    Ok(())
                })
            }
            BORROW_TO_CALLEE => {
                let (from, to) = (caller.flags, callee.flags);
                Func::new(&mut *store, ty(3, 1), move |mut c, params, results| {
                    let mut store = c.as_context_mut();
                    let (r, index, scope) = (arg(params, 0)?, arg(params, 1)?, arg(params, 2)?);
                    let index = lend_borrow(&mut store, from, to, r, index, scope)?;
                    set(results, 0, index);
                    Ok(())
                })
            }
            ASYNC_TO_CALLEE | ASYNC_TO_CALLER => {
                let (from, to) = if name == ASYNC_TO_CALLEE {
                    (caller.flags, callee.flags)
                } else {
                    (callee.flags, caller.flags)
                };
                Func::new(&mut *store, ty(3, 1), move |mut c, params, results| {
                    let mut store = c.as_context_mut();
                    let (kind, tag, index) = (arg(params, 0)?, arg(params, 1)?, arg(params, 2)?);
                    let index = transfer_async_value(&mut store, from, to, kind, tag, index)?;
                    set(results, 0, index);
                    Ok(())
                })
            }
            UNSUPPORTED => Func::new(&mut *store, ty(0, 0), |_, _, _| {
                crate::bail!("unsupported: a `borrow` result cannot cross between components")
            }),
            TRAP => Func::new(&mut *store, ty(1, 0), |_, params, _| {
                let code = arg(params, 0)?;
                Err(match AdapterTrap::from_code(code) {
                    Some(t) => trap_error(t),
                    None => crate::format_err!("internal error: unknown trap code {code} of a fused adapter"),
                })
            }),
            other => crate::bail!("unknown import `{other}` of a fused adapter"),
        };
        externs.push(Extern::Func(f));
    }
    let instance = crate::Instance::new(&mut *store, module, &externs)?;
    let export = |store: &mut StoreContextMut<'_, T>, name: &str| {
        instance
            .get_func(&mut *store, name)
            .ok_or_else(|| crate::format_err!("the fused adapter has no `{name}` export"))
    };
    #[cfg(feature = "component-model-async")]
    if instance
        .get_func(&mut *store, weft_environ::component::adapter::START)
        .is_some()
    {
        use weft_environ::component::adapter::{RETURN, START};
        let adapter = crate::component::concurrent::AsyncAdapter {
            start: export(store, START)?,
            ret: export(store, RETURN)?,
        };
        let _ = exports.set(adapter);
    }
    export(store, ADAPTER)
}

/// The `start-call` built-in of an `async` call's adapter (of the caller's
/// lowered type `ty`): the checks of `canon lower`, then the subtask and
/// the callee's task, whose arguments and result the adapter's `start` and
/// `return` move (set in `exports` once the adapter is instantiated).
#[cfg(feature = "component-model-async")]
#[allow(clippy::too_many_arguments, reason = "the call's parts, taken apart once")]
fn start_call<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    import: crate::ExternType,
    lifted: u32,
    types: &std::sync::Arc<ComponentTypes>,
    ty: TypeFuncIndex,
    caller: &Options,
    exports: &std::sync::Arc<std::sync::OnceLock<crate::component::concurrent::AsyncAdapter>>,
) -> crate::Result<Func> {
    let crate::ExternType::Func(core_ty) = import else {
        crate::bail!("the fused adapter's `{START_CALL}` is not a function");
    };
    let (types, caller, exports) = (types.clone(), caller.clone(), exports.clone());
    Ok(Func::new(&mut *store, core_ty, move |mut c, params, results| {
        let mut store = c.as_context_mut();
        let Some(adapter) = exports.get().copied() else {
            crate::bail!("internal error: the fused adapter's exports are not set");
        };
        if !store.components().flags(caller.flags)?.may_leave {
            return Err(trap("cannot leave component instance"));
        }
        let to = crate::component::call::lifted_func(&store, lifted)?.options.flags;
        store.components().check_enter(caller.flags, to)?;
        let scope = enter_call(&mut store);
        let r = crate::component::concurrent::call_lowered(
            &mut store,
            &types,
            ty,
            &caller,
            lifted,
            params,
            results,
            scope,
            Some(adapter),
        );
        let exited = exit_call(&mut store, scope, false);
        r.and(exited)
    }))
}

#[cfg(not(feature = "component-model-async"))]
#[allow(clippy::too_many_arguments, reason = "the call's parts, taken apart once")]
fn start_call<T: 'static>(
    _: &mut StoreContextMut<'_, T>,
    _: crate::ExternType,
    _: u32,
    _: &std::sync::Arc<ComponentTypes>,
    _: TypeFuncIndex,
    _: &Options,
    _: &(),
) -> crate::Result<Func> {
    crate::bail!("unsupported: calls of `async` functions between components need the `component-model-async` feature")
}

/// Moves the stream or future end, or shares the error context, `index` of
/// `from` (of the adapter's `kind` and type `tag`) to a new handle of `to`.
#[cfg(feature = "component-model-async")]
fn transfer_async_value<T>(
    store: &mut StoreContextMut<'_, T>,
    from: ComponentInstanceRef,
    to: ComponentInstanceRef,
    kind: u32,
    tag: u32,
    index: u32,
) -> crate::Result<u32> {
    crate::component::concurrent::transfer_async_value(store.components_mut(), from, to, kind, tag, index)
}

#[cfg(not(feature = "component-model-async"))]
fn transfer_async_value<T>(
    _: &mut StoreContextMut<'_, T>,
    _: ComponentInstanceRef,
    _: ComponentInstanceRef,
    _: u32,
    _: u32,
    _: u32,
) -> crate::Result<u32> {
    crate::bail!("unsupported: streams, futures and error contexts need the `component-model-async` feature")
}

/// Moves the `own` handle `index` of resource type `r` from the table of
/// `from` to the table of `to` (`lift_own`, then `lower_own`).
fn move_own<T>(
    store: &mut StoreContextMut<'_, T>,
    from: ComponentInstanceRef,
    to: ComponentInstanceRef,
    r: u32,
    index: u32,
) -> crate::Result<u32> {
    let components = &mut store.components_mut();
    let ty = components.resource_type(from.instance, TypeResourceIndex(r))?;
    let mut table = components.handles(from)?;
    let h = table.get_of(index, ty)?;
    if h.num_lends != 0 {
        return Err(trap("cannot remove owned resource while borrowed"));
    }
    if !h.own {
        return Err(trap("cannot move a borrowed handle as an owned one"));
    }
    table.remove(index)?;
    components.handles(to)?.add(Handle {
        borrow_scope: None,
        num_lends: 0,
        host_made: false,
        lowered: false,
        ..h
    })
}

/// Lends the handle `index` of resource type `r` of `from` to `to` for the
/// call `scope` (`lift_borrow`, then `lower_borrow`): the representation
/// when `to` implements the resource, else a new borrow handle of `to`.
fn lend_borrow<T>(
    store: &mut StoreContextMut<'_, T>,
    from: ComponentInstanceRef,
    to: ComponentInstanceRef,
    r: u32,
    index: u32,
    scope: u32,
) -> crate::Result<u32> {
    let components = &mut store.components_mut();
    let ty = components.resource_type(from.instance, TypeResourceIndex(r))?;
    let mut table = components.handles(from)?;
    let h = table.get_of(index, ty)?;
    table.get_mut(index)?.num_lends += 1;
    let call = components
        .calls
        .get_mut(scope as usize)
        .ok_or_else(|| crate::format_err!("no call in progress"))?;
    call.lenders.push((Some(from), index));
    if implemented_by(components, ty, to)? {
        return Ok(h.rep);
    }
    let index = components.handles(to)?.add(Handle {
        ty,
        rep: h.rep,
        own: false,
        borrow_scope: Some(scope),
        num_lends: 0,
        host_made: false,
        lowered: false,
    })?;
    if let Some(call) = components.calls.get_mut(scope as usize) {
        call.num_borrows += 1;
    }
    Ok(index)
}

/// Lifts the string `(ptr, tagged_units)` from the memory of `from` (its
/// checks and traps) and stores it into the memory of `to` as
/// `store_string_into_range` does for a source in `from`'s encoding.
fn transcode<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    from: &Options,
    to: &Options,
    ptr: u32,
    tagged_units: u32,
) -> crate::Result<(u32, u32)> {
    let types = ComponentTypes::new();
    let Some(src_memory) = from.memory else {
        crate::bail!("the fused adapter expects a memory");
    };
    let s = {
        let cx = LiftContext {
            types: &types,
            memory: src_memory.data(&*store),
            encoding: from.encoding,
        };
        load_string_from_range(&cx, ptr, tagged_units)?
    };
    let mut memory = StoreMemory {
        store,
        memory: to.memory,
        realloc: to.realloc,
        flags: to.flags,
    };
    let mut cx = LowerContext {
        types: &types,
        memory: &mut memory,
        encoding: to.encoding,
    };
    store_string(&mut cx, &s, from.encoding, tagged_units)
}
