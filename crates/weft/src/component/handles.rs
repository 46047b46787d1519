//! Moving resources between handle tables around a call.
//!
//! The canonical ABI lifts an `own` or `borrow` as the raw handle index of
//! the lifting instance's table ([`ResourceAny::raw`]) and lowers a raw
//! index as it is. The passes here run right after lifting and right
//! before lowering, on the values' trees: they take handles out of the
//! source table (`lift_own`, `lift_borrow` of CanonicalABI.md), put them
//! into the destination table (`lower_own`, `lower_borrow`), and record
//! the lends and borrows of the call so that its end can check them.

use super::resources::{Handle, ResourceAny};
use super::store::{ComponentInstanceRef, ComponentStore};
use super::trap;
use super::types::{ResourceKind, ResourceType};
use super::Val;
use crate::StoreContextMut;
use weft_environ::component::{ComponentTypes, DefinedType, InterfaceType, TypeResourceIndex};

/// Calls `f` on every handle in `val`, a value of type `ty`: every
/// resource, stream, future and error context, with its type.
fn for_each_handle(
    types: &ComponentTypes,
    ty: InterfaceType,
    val: &mut Val,
    f: &mut dyn FnMut(InterfaceType, &mut Val) -> crate::Result<()>,
) -> crate::Result<()> {
    match (ty, val) {
        (InterfaceType::Own(_) | InterfaceType::Borrow(_) | InterfaceType::ErrorContext, v) => f(ty, v),
        (InterfaceType::Defined(d), val) => {
            let Some(def) = types.defined(d) else {
                crate::bail!("type {} not found", d.0);
            };
            match (def, val) {
                (DefinedType::Stream(_) | DefinedType::Future(_), v) => f(ty, v)?,
                (DefinedType::Record(fields), Val::Record(vs)) => {
                    for (field, (_, v)) in fields.iter().zip(vs.iter_mut()) {
                        for_each_handle(types, field.ty, v, f)?;
                    }
                }
                (DefinedType::Tuple(tys), Val::Tuple(vs)) => {
                    for (t, v) in tys.iter().zip(vs.iter_mut()) {
                        for_each_handle(types, *t, v, f)?;
                    }
                }
                (DefinedType::List(t) | DefinedType::FixedLengthList(t, _), Val::List(vs)) => {
                    for v in vs.iter_mut() {
                        for_each_handle(types, *t, v, f)?;
                    }
                }
                (DefinedType::Map(kt, vt), Val::Map(pairs)) => {
                    for (k, v) in pairs.iter_mut() {
                        for_each_handle(types, *kt, k, f)?;
                        for_each_handle(types, *vt, v, f)?;
                    }
                }
                (DefinedType::Variant(cases), Val::Variant(name, Some(payload))) => {
                    if let Some(t) = cases.iter().find(|c| &c.name == name).and_then(|c| c.ty) {
                        for_each_handle(types, t, payload, f)?;
                    }
                }
                (DefinedType::Option(t), Val::Option(Some(payload))) => for_each_handle(types, *t, payload, f)?,
                (DefinedType::Result { ok: Some(t), .. }, Val::Result(Ok(Some(payload))))
                | (DefinedType::Result { err: Some(t), .. }, Val::Result(Err(Some(payload)))) => {
                    for_each_handle(types, *t, payload, f)?
                }
                _ => {}
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// A handle met in a value: a resource (`own` or `borrow`, of a resource
/// type of the value's types), or a stream, future or error context with
/// its type.
pub(crate) enum HandleRef<'a> {
    Resource {
        own: bool,
        ty: TypeResourceIndex,
        handle: &'a mut ResourceAny,
    },
    #[cfg_attr(
        not(feature = "component-model-async"),
        allow(dead_code, reason = "nothing moves them")
    )]
    Async(InterfaceType, &'a mut Val),
}

/// Calls `f` on every handle in `val`, a value of type `ty`; a value that
/// is not a resource where the type says `own` or `borrow` is an error.
pub(crate) fn for_each_handle_ref(
    types: &ComponentTypes,
    ty: InterfaceType,
    val: &mut Val,
    f: &mut dyn FnMut(HandleRef<'_>) -> crate::Result<()>,
) -> crate::Result<()> {
    for_each_handle(types, ty, val, &mut |ty, v| match (ty, v) {
        (InterfaceType::Own(r), Val::Resource(a)) => f(HandleRef::Resource {
            own: true,
            ty: r,
            handle: a,
        }),
        (InterfaceType::Borrow(r), Val::Resource(a)) => f(HandleRef::Resource {
            own: false,
            ty: r,
            handle: a,
        }),
        (InterfaceType::Own(_) | InterfaceType::Borrow(_), v) => {
            crate::bail!("type mismatch: expected a resource, found {}", v.kind())
        }
        (ty, v) => f(HandleRef::Async(ty, v)),
    })
}

/// Moves the resources of `vals` (lifted from the component instance `from`
/// as raw indices of its table) to the host table, lending `borrow`s for
/// the call `scope` (`lift_own`, `lift_borrow`).
pub(crate) fn lift_resources<T>(
    store: &mut StoreContextMut<'_, T>,
    types: &ComponentTypes,
    tys: impl IntoIterator<Item = InterfaceType>,
    vals: &mut [Val],
    from: ComponentInstanceRef,
    scope: usize,
) -> crate::Result<()> {
    let id = store.0.opaque().id();
    let components = &mut store.components_mut();
    for (t, v) in tys.into_iter().zip(vals.iter_mut()) {
        for_each_handle_ref(types, t, v, &mut |h| {
            let (own, r, a) = match h {
                HandleRef::Resource { own, ty, handle } => (own, ty, handle),
                #[cfg(feature = "component-model-async")]
                HandleRef::Async(ty, v) => return super::concurrent::lift_async_value(components, id, from, ty, v),
                #[cfg(not(feature = "component-model-async"))]
                HandleRef::Async(..) => return Ok(()),
            };
            let ty = components.resource_type(from.instance, r)?;
            let index = a.index;
            let mut table = components.handles(from)?;
            let h = table.get_of(index, ty)?;
            let host_index = if own {
                if h.num_lends != 0 {
                    return Err(trap("cannot remove owned resource while borrowed"));
                }
                if !h.own {
                    return Err(trap("cannot move a borrowed handle as an owned one"));
                }
                table.remove(index)?;
                components.host_handles.add(Handle {
                    borrow_scope: None,
                    num_lends: 0,
                    host_made: false,
                    lowered: false,
                    ..h
                })?
            } else {
                table.get_mut(index)?.num_lends += 1;
                let host = components.host_handles.add(Handle {
                    ty,
                    rep: h.rep,
                    own: false,
                    borrow_scope: None,
                    num_lends: 0,
                    host_made: false,
                    lowered: false,
                })?;
                let call = components
                    .calls
                    .get_mut(scope)
                    .ok_or_else(|| crate::format_err!("no call in progress"))?;
                call.lenders.push((Some(from), index));
                call.host_borrows.push(host.0);
                host
            };
            *a = ResourceAny {
                store: id,
                index: host_index.0,
                serial: host_index.1,
                ty,
                own,
            };
            Ok(())
        })?;
    }
    Ok(())
}

/// Removes from the host table what `vals`, the values of one call, still
/// hold of the handles `Lower` made for them (`Handle::lowered`): a
/// `borrow`, lent for the call only, and an `own` the call failed before
/// taking. Runs no destructor: the host made them. A value that moved into
/// a guest no longer names a host handle and is left alone.
pub(crate) fn release_lowered<T>(store: &mut StoreContextMut<'_, T>, vals: &[Val]) {
    let id = store.0.opaque().id();
    let table = &mut store.components_mut().host_handles;
    // The values inside aggregates wait in `pending`, which allocates only
    // for a call that passes one.
    let mut top = vals.iter();
    let mut pending: Vec<&Val> = Vec::new();
    while let Some(v) = pending.pop().or_else(|| top.next()) {
        match v {
            Val::Resource(r) if r.store == id => {
                let made_for_the_call = table.find(r).is_some_and(|h| h.lowered);
                if made_for_the_call {
                    let _ = table.remove(r.index);
                }
            }
            Val::List(vs) | Val::Tuple(vs) => pending.extend(vs),
            Val::Map(entries) => pending.extend(entries.iter().flat_map(|(k, v)| [k, v])),
            Val::Record(fields) => pending.extend(fields.iter().map(|(_, v)| v)),
            Val::Variant(_, Some(v)) | Val::Option(Some(v)) | Val::Result(Ok(Some(v)) | Err(Some(v))) => {
                pending.push(v)
            }
            _ => {}
        }
    }
}

/// Moves the resources of `vals` (host values) into the table of the
/// component instance `to`, as raw indices for lowering (`lower_own`,
/// `lower_borrow`); a borrow of a resource `to` implements is passed as its
/// representation.
pub(crate) fn lower_resources<T>(
    store: &mut StoreContextMut<'_, T>,
    types: &ComponentTypes,
    tys: &[InterfaceType],
    vals: &mut [Val],
    to: ComponentInstanceRef,
    scope: Option<usize>,
) -> crate::Result<()> {
    let id = store.0.opaque().id();
    let components = &mut store.components_mut();
    for (t, v) in tys.iter().zip(vals.iter_mut()) {
        for_each_handle_ref(types, *t, v, &mut |h| {
            let (own, r, a) = match h {
                HandleRef::Resource { own, ty, handle } => (own, ty, handle),
                #[cfg(feature = "component-model-async")]
                HandleRef::Async(ty, v) => return super::concurrent::lower_async_value(components, id, to, ty, v),
                #[cfg(not(feature = "component-model-async"))]
                HandleRef::Async(..) => return Ok(()),
            };
            if a.store != id {
                crate::bail!("the resource belongs to a different store than the one it is used with");
            }
            let ty = components.resource_type(to.instance, r)?;
            if a.ty != ty {
                crate::bail!("type mismatch: the resource is of another resource type");
            }
            let h = components.host_handles.get(a)?;
            let index = if own {
                if !h.own {
                    crate::bail!("a borrowed resource cannot be passed as an owned one");
                }
                if h.num_lends != 0 {
                    crate::bail!("cannot move a resource that is lent out");
                }
                components.host_handles.remove(a.index);
                components.handles(to)?.add(Handle {
                    host_made: false,
                    lowered: false,
                    ..h
                })?
            } else {
                if implemented_by(components, ty, to)? {
                    h.rep
                } else {
                    let scope =
                        scope.ok_or_else(|| crate::format_err!("a borrow can only be passed as an argument"))?;
                    let index = components.handles(to)?.add(Handle {
                        ty,
                        rep: h.rep,
                        own: false,
                        borrow_scope: Some(scope as u32),
                        num_lends: 0,
                        host_made: false,
                        lowered: false,
                    })?;
                    if let Some(call) = components.calls.get_mut(scope) {
                        call.num_borrows += 1;
                    }
                    index
                }
            };
            *a = ResourceAny::raw(index, own);
            Ok(())
        })?;
    }
    Ok(())
}

/// Whether the component instance `to` implements the resource type `ty`
/// (a borrow of it is then lowered as its representation).
pub(crate) fn implemented_by(
    components: &ComponentStore,
    ty: ResourceType,
    to: ComponentInstanceRef,
) -> crate::Result<bool> {
    Ok(match ty.0 {
        ResourceKind::Guest { instance, resource, .. } => {
            instance == to.instance
                && components
                    .instance(instance)?
                    .defined
                    .get(resource as usize)
                    .is_some_and(|d| d.component_instance == to.component_instance)
        }
        ResourceKind::Host(_) | ResourceKind::HostDynamic(_) | ResourceKind::Static { .. } => false,
    })
}

/// Starts the bookkeeping of a call; returns its scope.
pub(crate) fn enter_call<T>(store: &mut StoreContextMut<'_, T>) -> usize {
    #[cfg(feature = "component-model-async")]
    let stack = super::concurrent::current_stack(store);
    #[cfg(not(feature = "component-model-async"))]
    let stack = None;
    store.components_mut().calls.push(stack)
}

/// Ends the call `scope`: returns its lends, removes the host's borrows
/// made for it, and traps if the callee kept a borrow (when `check`).
pub(crate) fn exit_call<T>(store: &mut StoreContextMut<'_, T>, scope: usize, check: bool) -> crate::Result<()> {
    let components = &mut store.components_mut();
    let ended = components.calls.end(scope);
    let mut kept_borrows = false;
    for call in ended {
        kept_borrows |= call.num_borrows != 0;
        for (at, index) in call.lenders {
            let lender = match at {
                Some(at) => components.handles(at).ok().and_then(|h| h.table.get_mut(index).ok()),
                None => components.host_handles.get_mut(index),
            };
            if let Some(h) = lender {
                h.num_lends = h.num_lends.saturating_sub(1);
            }
        }
        for index in call.host_borrows {
            let _ = components.host_handles.remove(index);
        }
    }
    if check && kept_borrows {
        return Err(trap("borrow handles still remain at the end of the call"));
    }
    Ok(())
}

/// The resource type of a raw lifted handle, before it is resolved.
pub(crate) fn unresolved() -> ResourceType {
    struct Unresolved;
    ResourceType::host::<Unresolved>()
}
