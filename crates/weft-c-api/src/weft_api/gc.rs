//! The GC references of `weft.h`: `weft/anyref.h`, `weft/eqref.h`,
//! `weft/structref.h`, `weft/arrayref.h` and `weft/exnref.h`, over the
//! facade's `AnyRef`, `EqRef`, `I31`, `StructRef`, `ArrayRef`, `ExnRef`,
//! `StructRefPre`, `ArrayRefPre` and `OwnedRooted`.
//!
//! A non-null `weft_anyref_t` (and `weft_eqref_t`, `weft_structref_t`,
//! `weft_arrayref_t`, which share its layout and representation) is a GC
//! root owned by C: its `__private3` points to a [`GcRoot`], a box holding
//! an `OwnedRooted<AnyRef>` that keeps the object alive (and a copy of its
//! `Rooted` handle, valid as long as the owned root is), which
//! `weft_anyref_unroot` frees; `weft_anyref_clone` makes a new box. So, as
//! in Wasmtime, every non-null reference Weft hands to C must be unrooted,
//! and unrooting needs no store. A box carries a tag checked on every use,
//! so a reference already unrooted (through the variable unrooted: the
//! struct is set to null) or a corrupted one is refused as far as it can be
//! detected.
//!
//! A non-null exception reference (`weft_exnref_t`) is a C-owned root in
//! the same way: its `__private3` points to an [`ExnRoot`] box (with a tag
//! of its own, so an `anyref` is never taken for an `exnref` nor the
//! reverse) holding an `OwnedRooted<ExnRef>`; `weft_exnref_unroot` frees it,
//! and the exception is collected once nothing else reaches it.
//!
//! Raw values (`*_to_raw`, `weft_val_raw_t`) of `anyref`s and `exnref`s
//! name an entry of the store's tables of raw roots
//! ([`StoreData::anyref_raws`], [`StoreData::exnref_raws`]), which keep the
//! object alive until the store is deleted.

// Import loop kept on purpose: `weft_val_t` (val.rs) carries GC
// references, whose handles live here, and the fields of structs and
// arrays are `weft_val_t`s.
use super::gc_types::{
    heaptype_of_array, heaptype_of_kind, heaptype_of_struct, weft_array_type_t, weft_exn_type_t, weft_heaptype_t,
    weft_struct_type_t, WEFT_HEAPTYPE_KIND_ANY, WEFT_HEAPTYPE_KIND_I31,
};
use super::val::{table_handle, weft_tag_t};
use super::val::{val_from_weft, val_to_weft, weft_gcref_t, weft_val_t};
use crate::error::{catch_err, weft_error_t};
use crate::guard;
use crate::r#ref::{wasm_ref_t, wasm_trap_t, Entity};
use crate::store::{StoreData, StoreShared};
use std::ffi::c_void;
use std::mem::MaybeUninit;
use weft::{
    AnyRef, ArrayRef, ArrayRefPre, ExnRef, OwnedRooted, RootScope, Rooted, StoreContextMut, StructRef, StructRefPre,
    I31,
};

/// The tag of a live [`GcRoot`].
const LIVE: u64 = 0x7765_6674_2d67_6372;

/// What a non-null `weft_anyref_t` points to (`repr(C)`: the tag first,
/// as in [`ExnRoot`]).
#[repr(C)]
pub(crate) struct GcRoot {
    tag: u64,
    rooted: Rooted<AnyRef>,
    _owned: OwnedRooted<AnyRef>,
}

/// A null reference.
pub(crate) const NULL: weft_gcref_t = weft_gcref_t {
    store_id: 0,
    private1: 0,
    private2: 0,
    private3: std::ptr::null_mut(),
};

/// A new C-owned root of `r` (a reference of `store`).
pub(crate) fn anyref_handle(
    store: &StoreShared,
    cx: &mut StoreContextMut<'_, StoreData>,
    r: Rooted<AnyRef>,
) -> anyhow::Result<weft_gcref_t> {
    let owned = r.to_owned_rooted(&mut *cx)?;
    Ok(box_root(store.id(), r, owned))
}

fn box_root(store_id: u64, rooted: Rooted<AnyRef>, owned: OwnedRooted<AnyRef>) -> weft_gcref_t {
    let b = Box::new(GcRoot {
        tag: LIVE,
        rooted,
        _owned: owned,
    });
    weft_gcref_t {
        store_id,
        private1: 0,
        private2: 0,
        private3: Box::into_raw(b).cast::<c_void>(),
    }
}

/// The root a non-null handle points to.
fn root_of(h: &weft_gcref_t) -> anyhow::Result<&GcRoot> {
    let p = h.private3.cast::<GcRoot>();
    if p.is_null() {
        anyhow::bail!("invalid GC reference (not made by Weft, or already unrooted)");
    }
    // SAFETY: a non-null reference's pointer is a `GcRoot` box made by
    // `box_root` and not freed yet (the header's contract: references are
    // used until unrooted); the tag check below catches some misuse.
    let root = unsafe { &*p };
    if root.tag != LIVE {
        anyhow::bail!("invalid GC reference (already unrooted?)");
    }
    Ok(root)
}

/// The reference of a C handle, checked against the store (None for null).
pub(crate) fn anyref_of(store: &StoreShared, h: &weft_gcref_t) -> anyhow::Result<Option<Rooted<AnyRef>>> {
    if h.store_id == 0 {
        return Ok(None);
    }
    if h.store_id != store.id() {
        anyhow::bail!("GC reference used with the wrong store");
    }
    Ok(Some(root_of(h)?.rooted))
}

/// The reference of a C handle rooted in the current root scope (so it
/// stays alive after the handle is unrooted, until the scope ends).
pub(crate) fn anyref_into_scope(
    store: &StoreShared,
    cx: &mut StoreContextMut<'_, StoreData>,
    h: &weft_gcref_t,
) -> anyhow::Result<Option<Rooted<AnyRef>>> {
    if anyref_of(store, h)?.is_none() {
        return Ok(None);
    }
    Ok(Some(root_of(h)?._owned.to_rooted(&mut *cx)?))
}

/// The reference of a C handle that must not be null.
fn non_null(store: &StoreShared, h: Option<&weft_gcref_t>, what: &str) -> anyhow::Result<Rooted<AnyRef>> {
    let h = h.ok_or_else(|| crate::null_error(what))?;
    anyref_of(store, h)?.ok_or_else(|| anyhow::anyhow!("`{what}` is a null reference"))
}

/// A new root of the same object (null for null or invalid handles).
pub(crate) fn clone_handle(h: &weft_gcref_t) -> weft_gcref_t {
    if h.store_id == 0 {
        return NULL;
    }
    match root_of(h) {
        Ok(root) => box_root(h.store_id, root.rooted, root._owned.clone()),
        Err(_) => NULL,
    }
}

/// Frees the root of a handle and makes it null.
pub(crate) fn unroot_handle(h: &mut weft_gcref_t) {
    if h.store_id != 0 && root_of(h).is_ok() {
        let p = h.private3.cast::<GcRoot>();
        // SAFETY: checked live above; the box is freed once: its tag is
        // cleared first and the handle made null.
        unsafe {
            (*p).tag = 0;
            drop(Box::from_raw(p));
        }
    }
    *h = NULL;
}

/// Runs `f` with the store's context in a root scope (so the temporary
/// handles the facade makes are released when `f` returns).
fn with_scope<R>(store: &StoreShared, f: impl FnOnce(&mut StoreContextMut<'_, StoreData>) -> R) -> R {
    // SAFETY: the only context of this store in use in this function.
    let mut cx = unsafe { store.ctx() };
    let mut scope = RootScope::new(&mut cx);
    let mut cx = weft::AsContextMut::as_context_mut(&mut scope);
    f(&mut cx)
}

// ---- anyref.h ---------------------------------------------------------

/// A new root of `anyref` in `out` (null for null).
#[no_mangle]
pub extern "C" fn weft_anyref_clone(anyref: Option<&weft_gcref_t>, out: Option<&mut MaybeUninit<weft_gcref_t>>) {
    guard(
        || (),
        || {
            if let (Some(r), Some(out)) = (anyref, out) {
                out.write(clone_handle(r));
            }
        },
    )
}

/// Releases the root (the reference is null afterwards).
#[no_mangle]
pub extern "C" fn weft_anyref_unroot(r: Option<&mut weft_gcref_t>) {
    guard(|| (), || r.map_or((), unroot_handle))
}

/// The reference of a raw value of `weft_anyref_to_raw` (null for 0 or an
/// unknown value).
#[no_mangle]
pub extern "C" fn weft_anyref_from_raw(
    context: Option<&StoreShared>,
    raw: u32,
    out: Option<&mut MaybeUninit<weft_gcref_t>>,
) {
    guard(
        || (),
        || {
            let (Some(store), Some(out)) = (context, out) else {
                return;
            };
            out.write(anyref_from_raw(store, raw).unwrap_or(NULL));
        },
    )
}

/// The C handle of a raw `anyref` value (null for 0).
pub(crate) fn anyref_from_raw(store: &StoreShared, raw: u32) -> anyhow::Result<weft_gcref_t> {
    if raw == 0 {
        return Ok(NULL);
    }
    // SAFETY: the only context in use in this function.
    let cx = unsafe { store.ctx() };
    let (rooted, owned) = raw
        .checked_sub(1)
        .and_then(|i| cx.data().anyref_raws.get(i as usize))
        .cloned()
        .ok_or_else(|| anyhow::anyhow!("invalid raw anyref {raw}"))?;
    Ok(box_root(store.id(), rooted, owned))
}

/// The raw value of a reference: an entry of the store's raw roots,
/// kept until the store is deleted.
pub(crate) fn anyref_to_raw(cx: &mut StoreContextMut<'_, StoreData>, r: Rooted<AnyRef>) -> anyhow::Result<u32> {
    let owned = r.to_owned_rooted(&mut *cx)?;
    let raws = &mut cx.data_mut().anyref_raws;
    raws.push((r, owned));
    u32::try_from(raws.len()).map_err(|_| anyhow::anyhow!("too many raw anyrefs"))
}

/// The raw value of a reference (0 for null or invalid): see
/// `weft/anyref.h`.
#[no_mangle]
pub extern "C" fn weft_anyref_to_raw(context: Option<&StoreShared>, r: Option<&weft_gcref_t>) -> u32 {
    guard(
        || 0,
        || {
            let (Some(store), Some(r)) = (context, r) else { return 0 };
            let Ok(Some(rooted)) = anyref_of(store, r) else {
                return 0;
            };
            // SAFETY: the only context in use in this function.
            let mut cx = unsafe { store.ctx() };
            anyref_to_raw(&mut cx, rooted).unwrap_or(0)
        },
    )
}

/// The `i31ref` of `i31val` (its top bit dropped) in `out`.
#[no_mangle]
pub extern "C" fn weft_anyref_from_i31(
    context: Option<&StoreShared>,
    i31val: u32,
    out: Option<&mut MaybeUninit<weft_gcref_t>>,
) {
    guard(
        || (),
        || {
            let (Some(store), Some(out)) = (context, out) else {
                return;
            };
            let h = with_scope(store, |cx| {
                let r = AnyRef::from_i31(&mut *cx, I31::wrapping_u32(i31val));
                anyref_handle(store, cx, r)
            });
            out.write(h.unwrap_or(NULL));
        },
    )
}

/// Runs a test on a non-null reference of the store (false otherwise).
fn test(
    context: Option<&StoreShared>,
    r: Option<&weft_gcref_t>,
    f: impl FnOnce(&StoreShared, Rooted<AnyRef>) -> anyhow::Result<bool>,
) -> bool {
    guard(
        || false,
        || {
            let (Some(store), Some(r)) = (context, r) else {
                return false;
            };
            match anyref_of(store, r) {
                Ok(Some(rooted)) => f(store, rooted).unwrap_or(false),
                _ => false,
            }
        },
    )
}

fn i31_of(store: &StoreShared, r: Rooted<AnyRef>) -> anyhow::Result<Option<I31>> {
    // SAFETY: the only context in use in this function.
    let cx = unsafe { store.ctx() };
    r.as_i31(&cx)
}

/// Whether the reference is an `i31ref` (false for null).
#[no_mangle]
pub extern "C" fn weft_anyref_is_i31(context: Option<&StoreShared>, anyref: Option<&weft_gcref_t>) -> bool {
    test(context, anyref, |s, r| Ok(i31_of(s, r)?.is_some()))
}

/// The `i31ref`'s value, zero-extended, in `dst`; false if it is not one.
#[no_mangle]
pub extern "C" fn weft_anyref_i31_get_u(
    context: Option<&StoreShared>,
    anyref: Option<&weft_gcref_t>,
    dst: Option<&mut u32>,
) -> bool {
    let Some(dst) = dst else { return false };
    test(context, anyref, |s, r| {
        Ok(match i31_of(s, r)? {
            Some(v) => {
                *dst = v.get_u32();
                true
            }
            None => false,
        })
    })
}

/// The `i31ref`'s value, sign-extended, in `dst`; false if it is not one.
#[no_mangle]
pub extern "C" fn weft_anyref_i31_get_s(
    context: Option<&StoreShared>,
    anyref: Option<&weft_gcref_t>,
    dst: Option<&mut i32>,
) -> bool {
    let Some(dst) = dst else { return false };
    test(context, anyref, |s, r| {
        Ok(match i31_of(s, r)? {
            Some(v) => {
                *dst = v.get_i32();
                true
            }
            None => false,
        })
    })
}

fn is_eq(store: &StoreShared, r: Rooted<AnyRef>) -> anyhow::Result<bool> {
    // SAFETY: the only context in use in this function.
    let cx = unsafe { store.ctx() };
    r.is_eqref(&cx)
}

fn is_struct(store: &StoreShared, r: Rooted<AnyRef>) -> anyhow::Result<bool> {
    // SAFETY: the only context in use in this function.
    let cx = unsafe { store.ctx() };
    r.is_struct(&cx)
}

fn is_array(store: &StoreShared, r: Rooted<AnyRef>) -> anyhow::Result<bool> {
    // SAFETY: the only context in use in this function.
    let cx = unsafe { store.ctx() };
    r.is_array(&cx)
}

/// A downcast: a new root in `out` if `pred` holds, else null and false.
fn downcast(
    context: Option<&StoreShared>,
    r: Option<&weft_gcref_t>,
    out: Option<&mut MaybeUninit<weft_gcref_t>>,
    pred: fn(&StoreShared, Rooted<AnyRef>) -> anyhow::Result<bool>,
) -> bool {
    let Some(out) = out else { return false };
    let ok = test(context, r, pred);
    match (ok, r) {
        (true, Some(r)) => {
            out.write(clone_handle(r));
            true
        }
        _ => {
            out.write(NULL);
            false
        }
    }
}

/// Whether the reference is an `eqref` (false for null).
#[no_mangle]
pub extern "C" fn weft_anyref_is_eqref(context: Option<&StoreShared>, anyref: Option<&weft_gcref_t>) -> bool {
    test(context, anyref, is_eq)
}

/// The reference as an `eqref` (a new root) in `out`, if it is one.
#[no_mangle]
pub extern "C" fn weft_anyref_as_eqref(
    context: Option<&StoreShared>,
    anyref: Option<&weft_gcref_t>,
    out: Option<&mut MaybeUninit<weft_gcref_t>>,
) -> bool {
    downcast(context, anyref, out, is_eq)
}

/// Whether the reference is a struct (false for null).
#[no_mangle]
pub extern "C" fn weft_anyref_is_struct(context: Option<&StoreShared>, anyref: Option<&weft_gcref_t>) -> bool {
    test(context, anyref, is_struct)
}

/// The reference as a `structref` (a new root) in `out`, if it is one.
#[no_mangle]
pub extern "C" fn weft_anyref_as_struct(
    context: Option<&StoreShared>,
    anyref: Option<&weft_gcref_t>,
    out: Option<&mut MaybeUninit<weft_gcref_t>>,
) -> bool {
    downcast(context, anyref, out, is_struct)
}

/// Whether the reference is an array (false for null).
#[no_mangle]
pub extern "C" fn weft_anyref_is_array(context: Option<&StoreShared>, anyref: Option<&weft_gcref_t>) -> bool {
    test(context, anyref, is_array)
}

/// The reference as an `arrayref` (a new root) in `out`, if it is one.
#[no_mangle]
pub extern "C" fn weft_anyref_as_array(
    context: Option<&StoreShared>,
    anyref: Option<&weft_gcref_t>,
    out: Option<&mut MaybeUninit<weft_gcref_t>>,
) -> bool {
    downcast(context, anyref, out, is_array)
}

/// The heap type of the referenced object in `out` (caller-owned): `i31`,
/// the concrete struct or array type, or `any` for a host reference made
/// internal. False for null.
#[no_mangle]
pub extern "C" fn weft_anyref_type(
    context: Option<&StoreShared>,
    anyref: Option<&weft_gcref_t>,
    out: Option<&mut MaybeUninit<weft_heaptype_t>>,
) -> bool {
    let Some(out) = out else { return false };
    let mut ty = None;
    let ok = test(context, anyref, |store, r| {
        // SAFETY: the only context in use in this function.
        let cx = unsafe { store.ctx() };
        ty = Some(if r.is_i31(&cx)? {
            heaptype_of_kind(WEFT_HEAPTYPE_KIND_I31)
        } else if let Some(s) = r.as_struct(&cx)? {
            heaptype_of_struct(s.ty(&cx)?)
        } else if let Some(a) = r.as_array(&cx)? {
            heaptype_of_array(a.ty(&cx)?)
        } else {
            heaptype_of_kind(WEFT_HEAPTYPE_KIND_ANY)
        });
        Ok(true)
    });
    match (ok, ty) {
        (true, Some(t)) => {
            out.write(t);
            true
        }
        _ => false,
    }
}

// ---- eqref.h ----------------------------------------------------------

/// A new root of `eqref` in `out`.
#[no_mangle]
pub extern "C" fn weft_eqref_clone(eqref: Option<&weft_gcref_t>, out: Option<&mut MaybeUninit<weft_gcref_t>>) {
    weft_anyref_clone(eqref, out)
}

/// Releases the root (the reference is null afterwards).
#[no_mangle]
pub extern "C" fn weft_eqref_unroot(r: Option<&mut weft_gcref_t>) {
    weft_anyref_unroot(r)
}

/// The reference as an `anyref` (a new root; `eqref` is not consumed).
#[no_mangle]
pub extern "C" fn weft_eqref_to_anyref(eqref: Option<&weft_gcref_t>, out: Option<&mut MaybeUninit<weft_gcref_t>>) {
    weft_anyref_clone(eqref, out)
}

/// The `i31ref` of `i31val` (top bit dropped) as an `eqref`.
#[no_mangle]
pub extern "C" fn weft_eqref_from_i31(
    context: Option<&StoreShared>,
    i31val: u32,
    out: Option<&mut MaybeUninit<weft_gcref_t>>,
) {
    weft_anyref_from_i31(context, i31val, out)
}

/// Whether the reference is an `i31ref`.
#[no_mangle]
pub extern "C" fn weft_eqref_is_i31(context: Option<&StoreShared>, eqref: Option<&weft_gcref_t>) -> bool {
    weft_anyref_is_i31(context, eqref)
}

/// The `i31ref`'s value, zero-extended; false if it is not one.
#[no_mangle]
pub extern "C" fn weft_eqref_i31_get_u(
    context: Option<&StoreShared>,
    eqref: Option<&weft_gcref_t>,
    dst: Option<&mut u32>,
) -> bool {
    weft_anyref_i31_get_u(context, eqref, dst)
}

/// The `i31ref`'s value, sign-extended; false if it is not one.
#[no_mangle]
pub extern "C" fn weft_eqref_i31_get_s(
    context: Option<&StoreShared>,
    eqref: Option<&weft_gcref_t>,
    dst: Option<&mut i32>,
) -> bool {
    weft_anyref_i31_get_s(context, eqref, dst)
}

/// Whether the reference is an array.
#[no_mangle]
pub extern "C" fn weft_eqref_is_array(context: Option<&StoreShared>, eqref: Option<&weft_gcref_t>) -> bool {
    weft_anyref_is_array(context, eqref)
}

/// The reference as an `arrayref` (a new root), if it is one.
#[no_mangle]
pub extern "C" fn weft_eqref_as_array(
    context: Option<&StoreShared>,
    eqref: Option<&weft_gcref_t>,
    out: Option<&mut MaybeUninit<weft_gcref_t>>,
) -> bool {
    weft_anyref_as_array(context, eqref, out)
}

/// Whether the reference is a struct.
#[no_mangle]
pub extern "C" fn weft_eqref_is_struct(context: Option<&StoreShared>, eqref: Option<&weft_gcref_t>) -> bool {
    weft_anyref_is_struct(context, eqref)
}

/// The reference as a `structref` (a new root), if it is one.
#[no_mangle]
pub extern "C" fn weft_eqref_as_struct(
    context: Option<&StoreShared>,
    eqref: Option<&weft_gcref_t>,
    out: Option<&mut MaybeUninit<weft_gcref_t>>,
) -> bool {
    weft_anyref_as_struct(context, eqref, out)
}

/// The heap type of the referenced object (see `weft_anyref_type`).
#[no_mangle]
pub extern "C" fn weft_eqref_type(
    context: Option<&StoreShared>,
    eqref: Option<&weft_gcref_t>,
    out: Option<&mut MaybeUninit<weft_heaptype_t>>,
) -> bool {
    weft_anyref_type(context, eqref, out)
}

// ---- structref.h ------------------------------------------------------

/// `weft_struct_ref_pre_t`: an allocator of structs of one type in one
/// store.
pub struct weft_struct_ref_pre_t {
    store_id: u64,
    pre: StructRefPre,
}

/// `weft_array_ref_pre_t`: an allocator of arrays of one type in one store.
pub struct weft_array_ref_pre_t {
    store_id: u64,
    pre: ArrayRefPre,
}

/// An allocator of structs of type `ty` in the store (caller-owned).
#[no_mangle]
pub extern "C" fn weft_struct_ref_pre_new(
    context: Option<&StoreShared>,
    ty: Option<&weft_struct_type_t>,
) -> Option<Box<weft_struct_ref_pre_t>> {
    guard(
        || None,
        || {
            let (store, ty) = (context?, ty?);
            // SAFETY: the only context in use in this function.
            let mut cx = unsafe { store.ctx() };
            let pre = StructRefPre::new(&mut cx, ty.ty.clone());
            Some(Box::new(weft_struct_ref_pre_t {
                store_id: store.id(),
                pre,
            }))
        },
    )
}

/// Deletes the allocator.
#[no_mangle]
pub extern "C" fn weft_struct_ref_pre_delete(pre: Option<Box<weft_struct_ref_pre_t>>) {
    guard(|| (), || drop(pre))
}

/// The Weft values of `n` C values at `ptr`.
///
/// # Safety
///
/// `ptr` points to `n` values (or is NULL with `n` 0).
unsafe fn vals_arg(
    store: &StoreShared,
    cx: &StoreContextMut<'_, StoreData>,
    ptr: *const weft_val_t,
    n: usize,
) -> anyhow::Result<Vec<weft::Val>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if ptr.is_null() {
        return Err(crate::null_error("fields"));
    }
    // SAFETY: the caller gives `n` values.
    let vals = unsafe { std::slice::from_raw_parts(ptr, n) };
    vals.iter().map(|v| val_to_weft(store, cx, v)).collect()
}

/// A new struct of `pre`'s type with the `nfields` values `fields` (not
/// consumed), in `out` (a root to unroot).
///
/// # Safety
///
/// `fields` points to `nfields` values (or is NULL with `nfields` 0).
#[no_mangle]
pub unsafe extern "C" fn weft_structref_new(
    context: Option<&StoreShared>,
    pre: Option<&weft_struct_ref_pre_t>,
    fields: *const weft_val_t,
    nfields: usize,
    out: Option<&mut MaybeUninit<weft_gcref_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = context.ok_or_else(|| crate::null_error("context"))?;
        let pre = pre.ok_or_else(|| crate::null_error("pre"))?;
        let out = out.ok_or_else(|| crate::null_error("out"))?;
        if pre.store_id != store.id() {
            anyhow::bail!("struct allocator used with the wrong store");
        }
        let h = with_scope(store, |cx| {
            // SAFETY: the caller's contract.
            let vals = unsafe { vals_arg(store, cx, fields, nfields) }?;
            let s = StructRef::new(&mut *cx, &pre.pre, &vals)?;
            anyref_handle(store, cx, s.to_anyref())
        })?;
        out.write(h);
        Ok(())
    })
}

/// A new root of the struct.
#[no_mangle]
pub extern "C" fn weft_structref_clone(r: Option<&weft_gcref_t>, out: Option<&mut MaybeUninit<weft_gcref_t>>) {
    weft_anyref_clone(r, out)
}

/// Releases the root.
#[no_mangle]
pub extern "C" fn weft_structref_unroot(r: Option<&mut weft_gcref_t>) {
    weft_anyref_unroot(r)
}

/// The struct as an `anyref` (a new root).
#[no_mangle]
pub extern "C" fn weft_structref_to_anyref(r: Option<&weft_gcref_t>, out: Option<&mut MaybeUninit<weft_gcref_t>>) {
    weft_anyref_clone(r, out)
}

/// The struct as an `eqref` (a new root).
#[no_mangle]
pub extern "C" fn weft_structref_to_eqref(r: Option<&weft_gcref_t>, out: Option<&mut MaybeUninit<weft_gcref_t>>) {
    weft_anyref_clone(r, out)
}

fn as_struct(
    store: &StoreShared,
    cx: &StoreContextMut<'_, StoreData>,
    r: Option<&weft_gcref_t>,
) -> anyhow::Result<Rooted<StructRef>> {
    non_null(store, r, "structref")?
        .as_struct(cx)?
        .ok_or_else(|| anyhow::anyhow!("the reference is not a struct"))
}

fn as_array(
    store: &StoreShared,
    cx: &StoreContextMut<'_, StoreData>,
    r: Option<&weft_gcref_t>,
) -> anyhow::Result<Rooted<ArrayRef>> {
    non_null(store, r, "arrayref")?
        .as_array(cx)?
        .ok_or_else(|| anyhow::anyhow!("the reference is not an array"))
}

/// Field `index` of the struct in `out` (caller-owned: unroot it).
#[no_mangle]
pub extern "C" fn weft_structref_field(
    context: Option<&StoreShared>,
    structref: Option<&weft_gcref_t>,
    index: usize,
    out: Option<&mut MaybeUninit<weft_val_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = context.ok_or_else(|| crate::null_error("context"))?;
        let out = out.ok_or_else(|| crate::null_error("out"))?;
        let v = with_scope(store, |cx| {
            let s = as_struct(store, cx, structref)?;
            let v = s.field(&mut *cx, index)?;
            val_from_weft(store, cx, &v)
        })?;
        out.write(v);
        Ok(())
    })
}

/// Sets field `index` of the struct to `val` (not consumed).
#[no_mangle]
pub extern "C" fn weft_structref_set_field(
    context: Option<&StoreShared>,
    structref: Option<&weft_gcref_t>,
    index: usize,
    val: Option<&weft_val_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = context.ok_or_else(|| crate::null_error("context"))?;
        let val = val.ok_or_else(|| crate::null_error("val"))?;
        with_scope(store, |cx| {
            let s = as_struct(store, cx, structref)?;
            let v = val_to_weft(store, cx, val)?;
            s.set_field(&mut *cx, index, v)
        })
    })
}

/// The struct's type (caller-owned), or NULL for a null or invalid
/// reference.
#[no_mangle]
pub extern "C" fn weft_structref_type(
    context: Option<&StoreShared>,
    structref: Option<&weft_gcref_t>,
) -> Option<Box<weft_struct_type_t>> {
    guard(
        || None,
        || {
            let store = context?;
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            let s = as_struct(store, &cx, structref).ok()?;
            Some(Box::new(weft_struct_type_t { ty: s.ty(&cx).ok()? }))
        },
    )
}

// ---- arrayref.h -------------------------------------------------------

/// An allocator of arrays of type `ty` in the store (caller-owned).
#[no_mangle]
pub extern "C" fn weft_array_ref_pre_new(
    context: Option<&StoreShared>,
    ty: Option<&weft_array_type_t>,
) -> Option<Box<weft_array_ref_pre_t>> {
    guard(
        || None,
        || {
            let (store, ty) = (context?, ty?);
            // SAFETY: the only context in use in this function.
            let mut cx = unsafe { store.ctx() };
            let pre = ArrayRefPre::new(&mut cx, ty.ty.clone());
            Some(Box::new(weft_array_ref_pre_t {
                store_id: store.id(),
                pre,
            }))
        },
    )
}

/// Deletes the allocator.
#[no_mangle]
pub extern "C" fn weft_array_ref_pre_delete(pre: Option<Box<weft_array_ref_pre_t>>) {
    guard(|| (), || drop(pre))
}

/// A new array of `pre`'s type of `len` elements, each `elem` (not
/// consumed), in `out` (a root to unroot).
#[no_mangle]
pub extern "C" fn weft_arrayref_new(
    context: Option<&StoreShared>,
    pre: Option<&weft_array_ref_pre_t>,
    elem: Option<&weft_val_t>,
    len: u32,
    out: Option<&mut MaybeUninit<weft_gcref_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = context.ok_or_else(|| crate::null_error("context"))?;
        let pre = pre.ok_or_else(|| crate::null_error("pre"))?;
        let elem = elem.ok_or_else(|| crate::null_error("elem"))?;
        let out = out.ok_or_else(|| crate::null_error("out"))?;
        if pre.store_id != store.id() {
            anyhow::bail!("array allocator used with the wrong store");
        }
        let h = with_scope(store, |cx| {
            let v = val_to_weft(store, cx, elem)?;
            let a = ArrayRef::new(&mut *cx, &pre.pre, &v, len)?;
            anyref_handle(store, cx, a.to_anyref())
        })?;
        out.write(h);
        Ok(())
    })
}

/// A new root of the array.
#[no_mangle]
pub extern "C" fn weft_arrayref_clone(r: Option<&weft_gcref_t>, out: Option<&mut MaybeUninit<weft_gcref_t>>) {
    weft_anyref_clone(r, out)
}

/// Releases the root.
#[no_mangle]
pub extern "C" fn weft_arrayref_unroot(r: Option<&mut weft_gcref_t>) {
    weft_anyref_unroot(r)
}

/// The array as an `anyref` (a new root).
#[no_mangle]
pub extern "C" fn weft_arrayref_to_anyref(r: Option<&weft_gcref_t>, out: Option<&mut MaybeUninit<weft_gcref_t>>) {
    weft_anyref_clone(r, out)
}

/// The array as an `eqref` (a new root).
#[no_mangle]
pub extern "C" fn weft_arrayref_to_eqref(r: Option<&weft_gcref_t>, out: Option<&mut MaybeUninit<weft_gcref_t>>) {
    weft_anyref_clone(r, out)
}

/// The array's length in `out`.
#[no_mangle]
pub extern "C" fn weft_arrayref_len(
    context: Option<&StoreShared>,
    arrayref: Option<&weft_gcref_t>,
    out: Option<&mut u32>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = context.ok_or_else(|| crate::null_error("context"))?;
        let out = out.ok_or_else(|| crate::null_error("out"))?;
        // SAFETY: the only context in use in this function.
        let cx = unsafe { store.ctx() };
        *out = as_array(store, &cx, arrayref)?.len(&cx)?;
        Ok(())
    })
}

/// Element `index` of the array in `out` (caller-owned: unroot it).
#[no_mangle]
pub extern "C" fn weft_arrayref_get(
    context: Option<&StoreShared>,
    arrayref: Option<&weft_gcref_t>,
    index: u32,
    out: Option<&mut MaybeUninit<weft_val_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = context.ok_or_else(|| crate::null_error("context"))?;
        let out = out.ok_or_else(|| crate::null_error("out"))?;
        let v = with_scope(store, |cx| {
            let a = as_array(store, cx, arrayref)?;
            let v = a.get(&mut *cx, index)?;
            val_from_weft(store, cx, &v)
        })?;
        out.write(v);
        Ok(())
    })
}

/// Sets element `index` of the array to `val` (not consumed).
#[no_mangle]
pub extern "C" fn weft_arrayref_set(
    context: Option<&StoreShared>,
    arrayref: Option<&weft_gcref_t>,
    index: u32,
    val: Option<&weft_val_t>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = context.ok_or_else(|| crate::null_error("context"))?;
        let val = val.ok_or_else(|| crate::null_error("val"))?;
        with_scope(store, |cx| {
            let a = as_array(store, cx, arrayref)?;
            let v = val_to_weft(store, cx, val)?;
            a.set(&mut *cx, index, v)
        })
    })
}

/// The array's type (caller-owned), or NULL for a null or invalid
/// reference.
#[no_mangle]
pub extern "C" fn weft_arrayref_type(
    context: Option<&StoreShared>,
    arrayref: Option<&weft_gcref_t>,
) -> Option<Box<weft_array_type_t>> {
    guard(
        || None,
        || {
            let store = context?;
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            let a = as_array(store, &cx, arrayref).ok()?;
            Some(Box::new(weft_array_type_t { ty: a.ty(&cx).ok()? }))
        },
    )
}

// ---- exnref.h ---------------------------------------------------------

/// The tag of a live [`ExnRoot`].
const EXN_LIVE: u64 = 0x7765_6674_2d65_786e;

/// What a non-null `weft_exnref_t` points to (`repr(C)`: the tag first,
/// as in [`GcRoot`]).
#[repr(C)]
pub(crate) struct ExnRoot {
    tag: u64,
    rooted: Rooted<ExnRef>,
    owned: OwnedRooted<ExnRef>,
}

fn box_exn_root(store_id: u64, rooted: Rooted<ExnRef>, owned: OwnedRooted<ExnRef>) -> weft_gcref_t {
    let b = Box::new(ExnRoot {
        tag: EXN_LIVE,
        rooted,
        owned,
    });
    weft_gcref_t {
        store_id,
        private1: 0,
        private2: 0,
        private3: Box::into_raw(b).cast::<c_void>(),
    }
}

/// The root a non-null exception handle points to.
fn exn_root_of(h: &weft_gcref_t) -> anyhow::Result<&ExnRoot> {
    let p = h.private3.cast::<ExnRoot>();
    if p.is_null() {
        anyhow::bail!("invalid exnref (not made by Weft, or already unrooted)");
    }
    // SAFETY: a non-null reference's pointer is a root box made by
    // `box_exn_root` or `box_root` and not freed yet (the header's
    // contract: references are used until unrooted); both are `repr(C)`
    // with the `u64` tag first, so the tag is read alike in either.
    let tag = unsafe { p.cast::<u64>().read() };
    if tag != EXN_LIVE {
        anyhow::bail!("invalid exnref (already unrooted, or not an exnref?)");
    }
    // SAFETY: the tag says the box is an `ExnRoot`.
    Ok(unsafe { &*p })
}

/// A new C-owned root of exception `e` (of `store`).
pub(crate) fn exnref_handle(
    store: &StoreShared,
    cx: &mut StoreContextMut<'_, StoreData>,
    e: Rooted<ExnRef>,
) -> anyhow::Result<weft_gcref_t> {
    let owned = e.to_owned_rooted(&mut *cx)?;
    Ok(box_exn_root(store.id(), e, owned))
}

/// The exception of a C handle (None for null), checked against the
/// store. The handle's `Rooted` stays valid as long as the handle is
/// rooted.
pub(crate) fn exnref_of(
    store: &StoreShared,
    _cx: &StoreContextMut<'_, StoreData>,
    h: &weft_gcref_t,
) -> anyhow::Result<Option<Rooted<ExnRef>>> {
    if h.store_id == 0 {
        return Ok(None);
    }
    if h.store_id != store.id() {
        anyhow::bail!("exnref used with the wrong store");
    }
    Ok(Some(exn_root_of(h)?.rooted))
}

fn exn_non_null(
    store: &StoreShared,
    cx: &StoreContextMut<'_, StoreData>,
    h: Option<&weft_gcref_t>,
) -> anyhow::Result<Rooted<ExnRef>> {
    let h = h.ok_or_else(|| crate::null_error("exn"))?;
    exnref_of(store, cx, h)?.ok_or_else(|| anyhow::anyhow!("`exn` is a null reference"))
}

/// The exception of a C handle rooted in the current root scope (so it
/// stays alive after the handle is unrooted, until the scope ends).
pub(crate) fn exnref_into_scope(
    store: &StoreShared,
    cx: &mut StoreContextMut<'_, StoreData>,
    h: &weft_gcref_t,
) -> anyhow::Result<Option<Rooted<ExnRef>>> {
    if exnref_of(store, cx, h)?.is_none() {
        return Ok(None);
    }
    Ok(Some(exn_root_of(h)?.owned.to_rooted(&mut *cx)?))
}

/// A new root of the same exception (null for null or invalid handles).
pub(crate) fn clone_exn_handle(h: &weft_gcref_t) -> weft_gcref_t {
    if h.store_id == 0 {
        return NULL;
    }
    match exn_root_of(h) {
        Ok(root) => box_exn_root(h.store_id, root.rooted, root.owned.clone()),
        Err(_) => NULL,
    }
}

/// Frees the root of an exception handle and makes it null.
pub(crate) fn unroot_exn_handle(h: &mut weft_gcref_t) {
    if h.store_id != 0 && exn_root_of(h).is_ok() {
        let p = h.private3.cast::<ExnRoot>();
        // SAFETY: checked live above; the box is freed once: its tag is
        // cleared first and the handle made null.
        unsafe {
            (*p).tag = 0;
            drop(Box::from_raw(p));
        }
    }
    *h = NULL;
}

/// A new root of the exception in `out` (null for null or invalid
/// references).
#[no_mangle]
pub extern "C" fn weft_exnref_clone(r: Option<&weft_gcref_t>, out: Option<&mut MaybeUninit<weft_gcref_t>>) {
    guard(
        || (),
        || {
            if let (Some(r), Some(out)) = (r, out) {
                out.write(clone_exn_handle(r));
            }
        },
    )
}

/// Releases the root (the reference is null afterwards): the exception is
/// collected once nothing else reaches it.
#[no_mangle]
pub extern "C" fn weft_exnref_unroot(r: Option<&mut weft_gcref_t>) {
    guard(|| (), || r.map_or((), unroot_exn_handle))
}

/// The C handle of a raw `exnref` value (null for 0).
pub(crate) fn exnref_from_raw(store: &StoreShared, raw: u32) -> anyhow::Result<weft_gcref_t> {
    if raw == 0 {
        return Ok(NULL);
    }
    // SAFETY: the only context in use in this function.
    let cx = unsafe { store.ctx() };
    let (rooted, owned) = raw
        .checked_sub(1)
        .and_then(|i| cx.data().exnref_raws.get(i as usize))
        .cloned()
        .ok_or_else(|| anyhow::anyhow!("invalid raw exnref {raw}"))?;
    Ok(box_exn_root(store.id(), rooted, owned))
}

/// The exception of a raw `exnref` value (None for 0), without a handle:
/// the raw table keeps it alive.
pub(crate) fn exnref_of_raw(cx: &StoreContextMut<'_, StoreData>, raw: u32) -> anyhow::Result<Option<Rooted<ExnRef>>> {
    if raw == 0 {
        return Ok(None);
    }
    raw.checked_sub(1)
        .and_then(|i| cx.data().exnref_raws.get(i as usize))
        .map(|(r, _)| Some(*r))
        .ok_or_else(|| anyhow::anyhow!("invalid raw exnref {raw}"))
}

/// The raw value of an exception: an entry of the store's raw roots, kept
/// until the store is deleted.
pub(crate) fn exnref_to_raw(cx: &mut StoreContextMut<'_, StoreData>, e: Rooted<ExnRef>) -> anyhow::Result<u32> {
    let owned = e.to_owned_rooted(&mut *cx)?;
    let raws = &mut cx.data_mut().exnref_raws;
    raws.push((e, owned));
    u32::try_from(raws.len()).map_err(|_| anyhow::anyhow!("too many raw exnrefs"))
}

/// The reference of a raw value of `weft_exnref_to_raw` (null for 0 or an
/// unknown value).
#[no_mangle]
pub extern "C" fn weft_exnref_from_raw(
    context: Option<&StoreShared>,
    raw: u32,
    out: Option<&mut MaybeUninit<weft_gcref_t>>,
) {
    guard(
        || (),
        || {
            let (Some(store), Some(out)) = (context, out) else {
                return;
            };
            out.write(exnref_from_raw(store, raw).unwrap_or(NULL));
        },
    )
}

/// The raw value of the reference (0 for null or invalid): an entry of the
/// store's raw roots, which keeps the exception alive until the store is
/// deleted.
#[no_mangle]
pub extern "C" fn weft_exnref_to_raw(context: Option<&StoreShared>, r: Option<&weft_gcref_t>) -> u32 {
    guard(
        || 0,
        || {
            let (Some(store), Some(r)) = (context, r) else { return 0 };
            // SAFETY: the only context in use in this function.
            let mut cx = unsafe { store.ctx() };
            match exnref_of(store, &cx, r) {
                Ok(Some(e)) => exnref_to_raw(&mut cx, e).unwrap_or(0),
                _ => 0,
            }
        },
    )
}

/// The tag the exception was thrown with, in `tag_ret`.
#[no_mangle]
pub extern "C" fn weft_exnref_tag(
    store: Option<&StoreShared>,
    exn: Option<&weft_gcref_t>,
    tag_ret: Option<&mut MaybeUninit<weft_tag_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        let out = tag_ret.ok_or_else(|| crate::null_error("tag_ret"))?;
        // SAFETY: the only context in use in this function.
        let mut cx = unsafe { store.ctx() };
        let e = exn_non_null(store, &cx, exn)?;
        let tag = e.tag(&cx)?;
        out.write(table_handle(store, &mut cx, Entity::Tag(tag)));
        Ok(())
    })
}

/// The number of values of the exception's payload (0 for a null or
/// invalid reference).
#[no_mangle]
pub extern "C" fn weft_exnref_field_count(store: Option<&StoreShared>, exn: Option<&weft_gcref_t>) -> usize {
    guard(
        || 0,
        || {
            let Some(store) = store else { return 0 };
            // In a root scope: reading the fields roots the references
            // among them.
            with_scope(store, |cx| {
                exn_non_null(store, cx, exn)
                    .and_then(|e| e.fields(&*cx))
                    .map_or(0, |f| f.len())
            })
        },
    )
}

/// Value `index` of the exception's payload in `val_ret` (caller-owned).
#[no_mangle]
pub extern "C" fn weft_exnref_field(
    store: Option<&StoreShared>,
    exn: Option<&weft_gcref_t>,
    index: usize,
    val_ret: Option<&mut MaybeUninit<weft_val_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        let out = val_ret.ok_or_else(|| crate::null_error("val_ret"))?;
        let v = with_scope(store, |cx| {
            let e = exn_non_null(store, cx, exn)?;
            let fields = e.fields(&*cx)?;
            let n = fields.len();
            let v = fields
                .get(index)
                .ok_or_else(|| anyhow::anyhow!("field index {index} out of bounds: the exception has {n}"))?;
            val_from_weft(store, cx, v)
        })?;
        out.write(v);
        Ok(())
    })
}

/// A new exception of the store, thrown with `tag` and with the `nfields`
/// values at `fields` as payload (they must match the tag's parameter
/// types, in number and type; not consumed), in `exn_ret`. Throw it from a
/// host function with `weft_context_set_exception`.
///
/// # Safety
///
/// `fields` must point to `nfields` values (or be null when `nfields` is
/// 0).
#[no_mangle]
pub unsafe extern "C" fn weft_exnref_new(
    store: Option<&StoreShared>,
    tag: Option<&weft_tag_t>,
    fields: *const weft_val_t,
    nfields: usize,
    exn_ret: Option<&mut MaybeUninit<weft_gcref_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let store = store.ok_or_else(|| crate::null_error("store"))?;
        let tag = tag.ok_or_else(|| crate::null_error("tag"))?;
        let out = exn_ret.ok_or_else(|| crate::null_error("exn_ret"))?;
        let fields: &[weft_val_t] = if nfields == 0 {
            &[]
        } else if fields.is_null() {
            return Err(crate::null_error("fields"));
        } else {
            // SAFETY: the caller passes `nfields` values at `fields`.
            unsafe { std::slice::from_raw_parts(fields, nfields) }
        };
        let h = with_scope(store, |cx| {
            let tag = match super::entity_at(store, cx, tag.head.store_id, tag.head.private1 as usize)? {
                Entity::Tag(t) => t,
                _ => anyhow::bail!("`tag` is not a tag"),
            };
            let values = fields
                .iter()
                .enumerate()
                .map(|(i, v)| val_to_weft(store, cx, v).map_err(|e| e.context(format!("field {i} of the exception"))))
                .collect::<anyhow::Result<Vec<_>>>()?;
            let ty = weft::ExnType::from_tag_type(&tag.ty(&*cx))?;
            let pre = weft::ExnRefPre::new(&mut *cx, ty);
            let exn = ExnRef::new(&mut *cx, &pre, &tag, &values)?;
            exnref_handle(store, cx, exn)
        })?;
        out.write(h);
        Ok(())
    })
}

/// Makes `exn` the store's pending exception and returns the trap (owned
/// by the caller) that a host callback returns to throw it into its wasm
/// caller, where `try_table` may catch it; uncaught, the embedder's call
/// fails with an uncaught-exception trap and `weft_context_take_exception`
/// gives the exception. A null, invalid or foreign `exn` throws nothing:
/// the trap returned then says what is wrong (and returning it makes the
/// wasm caller trap).
#[no_mangle]
pub extern "C" fn weft_context_set_exception(
    store: Option<&StoreShared>,
    exn: Option<&weft_gcref_t>,
) -> Option<Box<wasm_trap_t>> {
    let error = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> anyhow::Error {
        let Some(store) = store else {
            return crate::null_error("store");
        };
        // SAFETY: the only context in use in this function.
        let mut cx = unsafe { store.ctx() };
        match exn_non_null(store, &cx, exn) {
            Ok(e) => match cx.throw::<()>(e) {
                Err(thrown) => anyhow::Error::new(thrown),
                Ok(()) => anyhow::anyhow!("throwing the exception failed"),
            },
            Err(e) => e.context("weft_context_set_exception threw nothing"),
        }
    }))
    .unwrap_or_else(|_| anyhow::anyhow!("weft_context_set_exception panicked; nothing was thrown"));
    Some(wasm_ref_t::trap(error))
}

/// Takes the exception that last escaped wasm into `exn_ret`; false if
/// there is none.
#[no_mangle]
pub extern "C" fn weft_context_take_exception(
    store: Option<&StoreShared>,
    exn_ret: Option<&mut MaybeUninit<weft_gcref_t>>,
) -> bool {
    guard(
        || false,
        || {
            let (Some(store), Some(out)) = (store, exn_ret) else {
                return false;
            };
            // In a root scope: the handle's owned root is what keeps the
            // exception alive.
            let h = with_scope(store, |cx| match cx.take_pending_exception() {
                Some(e) => exnref_handle(store, cx, e).ok(),
                None => None,
            });
            match h {
                Some(h) => {
                    out.write(h);
                    true
                }
                None => false,
            }
        },
    )
}

/// Whether an exception that escaped wasm (or that
/// `weft_context_set_exception` set) waits to be taken; inside a host
/// function too.
#[no_mangle]
pub extern "C" fn weft_context_has_exception(store: Option<&StoreShared>) -> bool {
    guard(
        || false,
        || {
            let Some(store) = store else { return false };
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            cx.has_pending_exception()
        },
    )
}

/// The exception's type (its tag's payload; caller-owned), or NULL for a
/// null or invalid reference.
#[no_mangle]
pub extern "C" fn weft_exnref_type(
    context: Option<&StoreShared>,
    exnref: Option<&weft_gcref_t>,
) -> Option<Box<weft_exn_type_t>> {
    guard(
        || None,
        || {
            let store = context?;
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            let e = exn_non_null(store, &cx, exnref).ok()?;
            let tag = e.tag(&cx).ok()?;
            Some(Box::new(weft_exn_type_t { ty: tag.ty(&cx) }))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::super::val::{weft_valunion_t, WEFT_EXNREF, WEFT_I32};
    use super::*;
    use crate::r#ref::Entity;
    use crate::store::{weft_context_gc, StoreShared};

    fn live(store: &StoreShared) -> usize {
        // SAFETY: the only context in use here.
        unsafe { store.ctx() }.live_exceptions()
    }

    fn new_exn(store: &StoreShared, tag: &weft_tag_t, v: i32) -> weft_gcref_t {
        let field = weft_val_t {
            kind: WEFT_I32,
            of: weft_valunion_t { i32: v },
        };
        let mut out = MaybeUninit::uninit();
        // SAFETY: one value at `&field`.
        let err = unsafe { weft_exnref_new(Some(store), Some(tag), &field, 1, Some(&mut out)) };
        assert!(err.is_none());
        // SAFETY: written on success.
        unsafe { out.assume_init() }
    }

    fn field(store: &StoreShared, exn: &weft_gcref_t) -> Option<i32> {
        let mut out = MaybeUninit::uninit();
        if weft_exnref_field(Some(store), Some(exn), 0, Some(&mut out)).is_some() {
            return None;
        }
        // SAFETY: written on success; an i32 field.
        Some(unsafe { out.assume_init().of.i32 })
    }

    /// Unrooting a `weft_exnref_t` (and a `weft_val_t` holding one) lets
    /// its exception be collected; clones and raw values keep it alive.
    #[test]
    fn unrooted_exnrefs_are_collected() {
        let engine = weft::Engine::default();
        let store = StoreShared::new(&engine, std::ptr::null_mut(), None);
        let tag = {
            // SAFETY: the only context in use here.
            let mut cx = unsafe { store.ctx() };
            let ty = weft::TagType::new(weft::FuncType::new(&engine, [weft::ValType::I32], []));
            let t = weft::Tag::new(&mut cx, &ty).unwrap();
            table_handle(&store, &mut cx, Entity::Tag(t))
        };
        let mut kept: Vec<weft_gcref_t> = (0..10).map(|i| new_exn(&store, &tag, i)).collect();
        for i in 0..5000 {
            let mut e = new_exn(&store, &tag, i);
            weft_exnref_unroot(Some(&mut e));
            assert!(e.private3.is_null(), "unrooting makes the reference null");
            assert!(live(&store) <= 2 * 1024 + 16, "{} live at {i}", live(&store));
        }
        assert!(weft_context_gc(Some(&store)).is_none());
        assert_eq!(live(&store), 10);
        for (i, k) in kept.iter().enumerate() {
            assert_eq!(field(&store, k), Some(i as i32));
        }
        // A clone roots on its own; a value holding one too.
        let mut clone = MaybeUninit::uninit();
        weft_exnref_clone(Some(&kept[3]), Some(&mut clone));
        // SAFETY: written by `weft_exnref_clone`.
        let mut clone = unsafe { clone.assume_init() };
        let mut copy = MaybeUninit::uninit();
        let src = weft_val_t {
            kind: WEFT_EXNREF,
            of: weft_valunion_t { gcref: kept[4] },
        };
        super::super::val::weft_val_clone(Some(&src), Some(&mut copy));
        // SAFETY: written by `weft_val_clone`.
        let mut val = unsafe { copy.assume_init() };
        let raw = weft_exnref_to_raw(Some(&store), Some(&kept[5]));
        assert_ne!(raw, 0);
        for k in &mut kept {
            weft_exnref_unroot(Some(k));
        }
        assert!(weft_context_gc(Some(&store)).is_none());
        assert_eq!(live(&store), 3, "the clone's, the value's and the raw value's");
        assert_eq!(field(&store, &clone), Some(3));
        // SAFETY: an exnref value.
        assert_eq!(field(&store, unsafe { &val.of.gcref }), Some(4));
        let mut again = MaybeUninit::uninit();
        weft_exnref_from_raw(Some(&store), raw, Some(&mut again));
        // SAFETY: written by `weft_exnref_from_raw`.
        let mut again = unsafe { again.assume_init() };
        assert_eq!(field(&store, &again), Some(5));
        weft_exnref_unroot(Some(&mut again));
        weft_exnref_unroot(Some(&mut clone));
        super::super::val::weft_val_unroot(Some(&mut val));
        assert!(weft_context_gc(Some(&store)).is_none());
        assert_eq!(live(&store), 1, "the raw value's root lasts as long as the store");
        // An unrooted handle is refused, not read.
        assert!(field(&store, &clone).is_none());
    }
}
