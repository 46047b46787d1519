//! `weft/externref.h`: host references (`externref`) in `weft_val_t`.
//!
//! A `weft_externref_t` names an entry of the store's externref table
//! ([`crate::store::StoreData::externrefs`]) by index plus one (0 is null).
//! Weft keeps extern references until their store is deleted, so rooting
//! and unrooting are no-ops, and the host data's finalizer runs when the
//! store is deleted.

// Import loop kept on purpose: `weft_val_t` (val.rs) carries extern
// references, which are a kind of `weft_gcref_t`.
use super::val::weft_gcref_t;
use crate::guard;
use crate::host_env::Finalizer;
use crate::host_env::HostEnv;
use crate::store::{StoreData, StoreShared};
use std::ffi::c_void;
use std::mem::MaybeUninit;
use weft::{ExternRef, Rooted, StoreContextMut};

/// `weft_externref_t` (the layout of every GC reference handle).
pub type weft_externref_t = weft_gcref_t;

/// The data of an extern reference made by `weft_externref_new`.
struct HostData(HostEnv);

/// A null reference.
pub(crate) const NULL: weft_gcref_t = weft_gcref_t {
    store_id: 0,
    private1: 0,
    private2: 0,
    private3: std::ptr::null_mut(),
};

/// The address identifying an extern reference's data.
fn data_key(cx: &StoreContextMut<'_, StoreData>, r: &Rooted<ExternRef>) -> anyhow::Result<usize> {
    let data = r.data(cx)?.ok_or_else(|| anyhow::anyhow!("externref without data"))?;
    Ok(data as *const (dyn std::any::Any + Send + Sync) as *const () as usize)
}

/// The C handle of an extern reference (its index in the table, plus one).
pub(crate) fn externref_handle(
    store: &StoreShared,
    cx: &mut StoreContextMut<'_, StoreData>,
    r: Rooted<ExternRef>,
) -> anyhow::Result<weft_externref_t> {
    let key = data_key(cx, &r)?;
    let data = cx.data_mut();
    let index = match data.externref_ids.get(&key) {
        Some(&i) => i,
        None => {
            data.externrefs.push(r);
            let i = data.externrefs.len() as u32;
            data.externref_ids.insert(key, i);
            i
        }
    };
    Ok(weft_gcref_t {
        store_id: store.id(),
        private1: index,
        private2: 0,
        private3: std::ptr::null_mut(),
    })
}

/// The extern reference of a C handle (None for null).
pub(crate) fn externref_of(
    store: &StoreShared,
    cx: &StoreContextMut<'_, StoreData>,
    r: &weft_externref_t,
) -> anyhow::Result<Option<Rooted<ExternRef>>> {
    if r.store_id == 0 {
        return Ok(None);
    }
    if r.store_id != store.id() {
        anyhow::bail!("object used with the wrong store");
    }
    let index = r.private1 as usize;
    index
        .checked_sub(1)
        .and_then(|i| cx.data().externrefs.get(i))
        .copied()
        .map(Some)
        .ok_or_else(|| anyhow::anyhow!("invalid externref handle"))
}

/// A new extern reference holding `data` (finalized with the store) in
/// `out`; false if it could not be made.
#[no_mangle]
pub extern "C" fn weft_externref_new(
    context: Option<&StoreShared>,
    data: *mut c_void,
    finalizer: Finalizer,
    out: Option<&mut MaybeUninit<weft_externref_t>>,
) -> bool {
    guard(
        || false,
        || {
            let env = HostEnv::new(data, finalizer);
            let (Some(store), Some(out)) = (context, out) else {
                return false;
            };
            // SAFETY: the only context in use in this function.
            let mut cx = unsafe { store.ctx() };
            let Ok(r) = ExternRef::new(&mut cx, HostData(env)) else {
                return false;
            };
            match externref_handle(store, &mut cx, r) {
                Ok(h) => {
                    out.write(h);
                    true
                }
                Err(_) => false,
            }
        },
    )
}

/// The data given to `weft_externref_new` (NULL for a null or foreign
/// reference).
#[no_mangle]
pub extern "C" fn weft_externref_data(context: Option<&StoreShared>, r: Option<&weft_externref_t>) -> *mut c_void {
    guard(std::ptr::null_mut, || {
        let (Some(store), Some(r)) = (context, r) else {
            return std::ptr::null_mut();
        };
        // SAFETY: the only context in use in this function.
        let cx = unsafe { store.ctx() };
        let Ok(Some(rooted)) = externref_of(store, &cx, r) else {
            return std::ptr::null_mut();
        };
        match rooted.data(&cx) {
            Ok(Some(d)) => d
                .downcast_ref::<HostData>()
                .map_or(std::ptr::null_mut(), |h| h.0.data()),
            _ => std::ptr::null_mut(),
        }
    })
}

/// Copies the reference to `out` (Weft keeps references until their store
/// is deleted: nothing to root).
#[no_mangle]
pub extern "C" fn weft_externref_clone(r: Option<&weft_externref_t>, out: Option<&mut MaybeUninit<weft_externref_t>>) {
    if let (Some(r), Some(out)) = (r, out) {
        out.write(*r);
    }
}

/// Releases the reference's root: nothing to do in Weft.
#[no_mangle]
pub extern "C" fn weft_externref_unroot(_r: Option<&mut weft_externref_t>) {}

/// The reference of a raw value of `weft_externref_to_raw` (null for 0).
#[no_mangle]
pub extern "C" fn weft_externref_from_raw(
    context: Option<&StoreShared>,
    raw: u32,
    out: Option<&mut MaybeUninit<weft_externref_t>>,
) {
    guard(
        || (),
        || {
            let (Some(store), Some(out)) = (context, out) else {
                return;
            };
            let h = weft_gcref_t {
                store_id: if raw == 0 { 0 } else { store.id() },
                private1: raw,
                private2: 0,
                private3: std::ptr::null_mut(),
            };
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            out.write(if externref_of(store, &cx, &h).is_ok() { h } else { NULL });
        },
    )
}

/// The raw value of a reference (0 for null or invalid).
#[no_mangle]
pub extern "C" fn weft_externref_to_raw(context: Option<&StoreShared>, r: Option<&weft_externref_t>) -> u32 {
    guard(
        || 0,
        || {
            let (Some(store), Some(r)) = (context, r) else { return 0 };
            // SAFETY: the only context in use in this function.
            let cx = unsafe { store.ctx() };
            match externref_of(store, &cx, r) {
                Ok(Some(_)) => r.private1,
                _ => 0,
            }
        },
    )
}
