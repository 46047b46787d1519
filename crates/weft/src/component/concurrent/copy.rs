//! The bytes of stream and future copies: `weft-tasks` pairs a reader's
//! buffer with a writer's and says how many elements to move; this module
//! loads them from one memory and stores them into the other, with each
//! side's options (`ReadableBufferGuestImpl.read`,
//! `WritableBufferGuestImpl.write`).

// Import loop kept on purpose: the files of `concurrent/` are one event
// loop split by size (threads in sched.rs, tasks in calls.rs, host tasks in
// host.rs, built-ins and copies); a resumed thread runs calls that wait in
// the loop, so each part calls the others.
use super::builtins::{wait_for_event, BLOCKED};
use super::host_streams;
use crate::component::call::lowering;
use crate::component::handles::{lift_resources, lower_resources};
use crate::component::load_store::{self, align_of, load, size_of};
use crate::component::store::Options;
use crate::component::{trap, InterfaceType, LiftContext, Val};
use crate::StoreContextMut;
use std::sync::Arc;
use weft_environ::component::{ComponentTypes, DefinedType};
use weft_tasks::{Buffer, InstanceId, Kind};

/// The options and element type of a copy built-in, by the index the task
/// table's buffers carry.
#[derive(Clone)]
pub(crate) struct CopyCx {
    types: Arc<ComponentTypes>,
    /// The element type (`None`: a stream or future of no type).
    elem: Option<InterfaceType>,
    options: Options,
}

/// A copy a built-in asks for: `len` elements at `ptr` with the options of
/// copy context `cx`.
pub(crate) struct CopyRequest {
    cx: u32,
    ptr: u32,
    len: u32,
}

impl CopyCx {
    pub(crate) fn request(cx: u32, ptr: u32, len: u32) -> CopyRequest {
        CopyRequest { cx, ptr, len }
    }
}

/// The element type of the stream or future type `ty`.
fn element(types: &ComponentTypes, ty: InterfaceType) -> Option<InterfaceType> {
    match ty {
        InterfaceType::Defined(d) => match types.defined(d) {
            Some(DefinedType::Stream(t) | DefinedType::Future(t)) => *t,
            _ => None,
        },
        _ => None,
    }
}

/// Whether values of the stream or future type `ty` may be copied within
/// one instance (`none_or_number_type`).
pub(crate) fn is_numeric(types: &ComponentTypes, ty: InterfaceType) -> bool {
    use InterfaceType as I;
    matches!(
        element(types, ty),
        None | Some(I::U8 | I::U16 | I::U32 | I::U64 | I::S8 | I::S16 | I::S32 | I::S64 | I::F32 | I::F64)
    )
}

/// Registers the options of a copy built-in; the index its buffers carry.
pub(crate) fn register<T>(
    store: &mut StoreContextMut<'_, T>,
    types: &Arc<ComponentTypes>,
    ty: InterfaceType,
    options: Options,
) -> crate::Result<u32> {
    let cxs = &mut store.components_mut().sched.copy_cx;
    cxs.push(CopyCx {
        types: types.clone(),
        elem: element(types, ty),
        options,
    });
    u32::try_from(cxs.len() - 1).map_err(|_| crate::format_err!("too many copy built-ins"))
}

/// `stream_copy`/`future_copy` on end `index` of `inst`.
pub(crate) fn start<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    inst: InstanceId,
    index: u32,
    kind: Kind,
    ty: u32,
    is_async: bool,
    req: CopyRequest,
) -> crate::Result<u32> {
    let Some(cx) = store.components().sched.copy_cx.get(req.cx as usize).cloned() else {
        crate::bail!("internal error: unknown copy context");
    };
    let elem_size = cx.elem.map_or(0, |t| size_of(&cx.types, t));
    if req.len > weft_tasks::MAX_BUFFER_LENGTH {
        return Err(trap("the buffer is longer than the maximum length"));
    }
    if let (Some(t), true) = (cx.elem, req.len > 0) {
        let align = align_of(&cx.types, t);
        if !req.ptr.is_multiple_of(align) {
            return Err(trap(format_args!(
                "unaligned pointer {}, not aligned to {align}",
                req.ptr
            )));
        }
        let len = cx.options.memory.map_or(0, |m| m.data(&*store).len() as u64);
        if u64::from(req.ptr) + u64::from(req.len) * u64::from(elem_size) > len {
            return Err(trap("buffer out of bounds of memory"));
        }
    }
    let buffer = Buffer {
        cx: req.cx,
        ptr: req.ptr,
        len: req.len,
        progress: 0,
        elem_size,
    };
    let tasks = &mut store.components_mut().tasks;
    let started = tasks.copy(inst, index, kind, ty, is_async, buffer).map_err(trap)?;
    if let Some(t) = started.transfer {
        transfer(store, t)?;
    }
    if !store.components().tasks.has_pending_event(started.end) {
        host_streams::poll_peer_now(store, started.end);
    }
    finish(store, started.end, is_async)
}

/// `cancel_copy` on end `index` of `inst`.
pub(crate) fn cancel<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    inst: InstanceId,
    index: u32,
    kind: Kind,
    ty: u32,
    is_async: bool,
) -> crate::Result<u32> {
    // A host producer or consumer at the other end finishes the copy
    // itself, polled with `finish` set.
    let driven = host_streams::driven_shared(store, inst, index).is_some();
    let tasks = &mut store.components_mut().tasks;
    let end = if driven {
        tasks.cancel_copy_deferred(inst, index, kind, ty, is_async)
    } else {
        tasks.cancel_copy(inst, index, kind, ty, is_async)
    }
    .map_err(trap)?;
    if driven && !store.components().tasks.has_pending_event(end) {
        host_streams::poll_peer_now(store, end);
    }
    finish(store, end, is_async)
}

/// The end of a copy or cancellation on `end`: its event's payload when it
/// has one, else `BLOCKED` (async) or a wait for it (synchronous).
fn finish<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    end: weft_tasks::EntryId,
    is_async: bool,
) -> crate::Result<u32> {
    if !store.components().tasks.has_pending_event(end) {
        if is_async {
            return Ok(BLOCKED);
        }
        wait_for_event(store, end)?;
    }
    let event = store.components_mut().tasks.take_event(end).map_err(trap)?;
    Ok(event.payload)
}

/// Moves `t.n` elements from the writer's buffer to the reader's.
fn transfer<T: 'static>(store: &mut StoreContextMut<'_, T>, t: weft_tasks::Transfer) -> crate::Result<()> {
    if transfer_plain(store, &t)? {
        return Ok(());
    }
    let vals = load_elems(store, t.src.0, t.src.1, t.n)?;
    store_elems(store, t.dst.0, t.dst.1, vals)
}

/// The size of a value of `ty` when the canonical ABI loads and stores it
/// as its plain bytes (the integers: no handles, no validation, no NaN to
/// canonicalize), so that a copy between two buffers of it is a copy of
/// bytes.
pub(crate) fn plain_size(ty: InterfaceType) -> Option<u32> {
    use InterfaceType as I;
    match ty {
        I::U8 | I::S8 => Some(1),
        I::U16 | I::S16 => Some(2),
        I::U32 | I::S32 => Some(4),
        I::U64 | I::S64 => Some(8),
        _ => None,
    }
}

/// [`transfer`] as a copy of bytes, when both buffers hold the same
/// integer type; `false` (nothing done) otherwise.
fn transfer_plain<T: 'static>(store: &mut StoreContextMut<'_, T>, t: &weft_tasks::Transfer) -> crate::Result<bool> {
    let (src, dst) = {
        let cxs = &store.0.opaque().components.sched.copy_cx;
        match (cxs.get(t.src.0 as usize), cxs.get(t.dst.0 as usize)) {
            (Some(s), Some(d)) => (s, d),
            _ => crate::bail!("internal error: unknown copy context"),
        }
    };
    let size = match (src.elem, dst.elem) {
        (Some(a), Some(b)) if a == b => match plain_size(a) {
            Some(size) => size,
            None => return Ok(false),
        },
        _ => return Ok(false),
    };
    let (Some(src_mem), Some(dst_mem)) = (src.options.memory, dst.options.memory) else {
        return Ok(false);
    };
    let len = u64::from(t.n) * u64::from(size);
    let range = |addr: u32, mem_len: usize| {
        let start = u64::from(addr);
        (start + len <= mem_len as u64).then(|| start as usize..(start + len) as usize)
    };
    let bytes = {
        let data = src_mem.data(&*store);
        let Some(r) = range(t.src.1, data.len()) else {
            return Err(trap("buffer out of bounds of memory"));
        };
        data[r].to_vec()
    };
    let data = dst_mem.data_mut(&mut *store);
    let Some(r) = range(t.dst.1, data.len()) else {
        return Err(trap("buffer out of bounds of memory"));
    };
    data[r].copy_from_slice(&bytes);
    Ok(true)
}

/// The copy context `cx`.
fn copy_cx<T>(store: &StoreContextMut<'_, T>, cx: u32) -> crate::Result<CopyCx> {
    match store.components().sched.copy_cx.get(cx as usize) {
        Some(c) => Ok(c.clone()),
        None => crate::bail!("internal error: unknown copy context"),
    }
}

/// The element type of the buffers of copy context `cx` (`None` for a
/// stream or future of no type), the size of an element, and the memory.
pub(crate) fn elem_of<T>(
    store: &StoreContextMut<'_, T>,
    cx: u32,
) -> crate::Result<(Option<InterfaceType>, u32, Option<crate::Memory>)> {
    let c = copy_cx(store, cx)?;
    Ok((c.elem, c.elem.map_or(0, |t| size_of(&c.types, t)), c.options.memory))
}

/// Loads `n` elements at `addr` of a writer's buffer with the options of
/// copy context `cx`; handles in them move out of the writer's instance
/// to the store (`ReadableBufferGuestImpl.read`).
pub(crate) fn load_elems<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    cx: u32,
    addr: u32,
    n: u32,
) -> crate::Result<Vec<Val>> {
    let src = copy_cx(store, cx)?;
    let Some(src_ty) = src.elem else {
        return Ok(Vec::new());
    };
    let size = size_of(&src.types, src_ty);
    let mut vals = {
        let cx = LiftContext {
            types: &src.types,
            memory: src.options.memory.map_or(&[][..], |m| m.data(&*store)),
            encoding: src.options.encoding,
        };
        (0..n)
            .map(|i| load(&cx, src_ty, addr.wrapping_add(i.wrapping_mul(size))))
            .collect::<crate::Result<Vec<Val>>>()?
    };
    // Streams hold no borrows.
    if src.types.contains_async_value(src_ty) || has_resources(&src.types, src_ty) {
        let src_tys = vec![src_ty; vals.len()];
        lift_resources(
            store,
            &src.types,
            src_tys.iter().copied(),
            &mut vals,
            src.options.flags,
            usize::MAX,
        )?;
    }
    Ok(vals)
}

/// Stores `vals` at `addr` of a reader's buffer with the options of copy
/// context `cx`; handles in them move into the reader's instance
/// (`WritableBufferGuestImpl.write`).
pub(crate) fn store_elems<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    cx: u32,
    addr: u32,
    mut vals: Vec<Val>,
) -> crate::Result<()> {
    let dst = copy_cx(store, cx)?;
    let Some(dst_ty) = dst.elem else {
        return Ok(());
    };
    if dst.types.contains_async_value(dst_ty) || has_resources(&dst.types, dst_ty) {
        let dst_tys = vec![dst_ty; vals.len()];
        lower_resources(store, &dst.types, &dst_tys, &mut vals, dst.options.flags, None)?;
    }
    let dst_size = size_of(&dst.types, dst_ty);
    lowering(store, &dst.types, &dst.options, |cx| {
        for (i, v) in vals.iter().enumerate() {
            load_store::store(cx, v, dst_ty, addr.wrapping_add((i as u32).wrapping_mul(dst_size)))?;
        }
        Ok(())
    })
}

/// Whether values of `ty` hold resource handles.
fn has_resources(types: &ComponentTypes, ty: InterfaceType) -> bool {
    match ty {
        InterfaceType::Own(_) | InterfaceType::Borrow(_) => true,
        InterfaceType::Defined(d) => types
            .defined(d)
            .is_some_and(|def| def.any_type(|t| has_resources(types, t))),
        _ => false,
    }
}

/// Stores `s` as a string (pointer and length) at `ptr` with `options`
/// (`error-context.debug-message`).
pub(crate) fn store_string_at<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    types: &Arc<ComponentTypes>,
    options: &Options,
    s: &str,
    ptr: u32,
) -> crate::Result<()> {
    lowering(store, types, options, |cx| {
        load_store::store(cx, &Val::String(s.to_string()), InterfaceType::String, ptr)
    })
}
