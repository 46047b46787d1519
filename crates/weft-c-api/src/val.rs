//! `wasm_val_t` and `wasm_val_vec_t`, and their conversions to and from
//! `weft::Val`.

use crate::guard;
use crate::r#ref::{wasm_ref_t, Entity, ExternPayload};
use crate::store::{StoreData, StoreShared};
use crate::types::{WASM_EXTERNREF, WASM_F32, WASM_F64, WASM_FUNCREF, WASM_I32, WASM_I64};
use crate::vec::{declare_vec, CVec, VecElem};
use std::mem::MaybeUninit;
use std::rc::Rc;
use weft::{ExternRef, StoreContextMut, Val};

/// The payload of a `wasm_val_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union wasm_val_union {
    /// `i32`.
    pub i32: i32,
    /// `i64`.
    pub i64: i64,
    /// `f32`.
    pub f32: f32,
    /// `f64`.
    pub f64: f64,
    /// A reference (owned by the value; null for a null reference).
    pub ref_: *mut wasm_ref_t,
}

/// `wasm_val_t`: a kind and a payload. A reference in it is owned by it.
#[repr(C)]
pub struct wasm_val_t {
    /// The kind (`wasm_valkind_t`).
    pub kind: u8,
    /// The payload.
    pub of: wasm_val_union,
}

impl wasm_val_t {
    /// The `i32` 0.
    pub(crate) fn zero() -> wasm_val_t {
        wasm_val_t {
            kind: WASM_I32,
            of: wasm_val_union { i64: 0 },
        }
    }

    /// A value of kind `kind` holding `r` (owned).
    fn reference(kind: u8, r: Option<Box<wasm_ref_t>>) -> wasm_val_t {
        wasm_val_t {
            kind,
            of: wasm_val_union {
                ref_: r.map_or(std::ptr::null_mut(), Box::into_raw),
            },
        }
    }

    /// The reference of a reference value, borrowed.
    pub(crate) fn ref_borrow(&self) -> Option<&wasm_ref_t> {
        if self.kind != WASM_EXTERNREF && self.kind != WASM_FUNCREF {
            return None;
        }
        // SAFETY: a reference value's payload is its `ref_` field, null or
        // a reference made by this library (`wasm.h` contract).
        unsafe { self.of.ref_.as_ref() }
    }

    /// A deep copy (references are copied).
    pub(crate) fn copy(&self) -> wasm_val_t {
        match self.kind {
            WASM_EXTERNREF | WASM_FUNCREF => {
                wasm_val_t::reference(self.kind, self.ref_borrow().map(|r| Box::new(r.clone())))
            }
            _ => wasm_val_t {
                kind: self.kind,
                of: self.of,
            },
        }
    }

    /// Releases the reference, if any.
    pub(crate) fn release(&mut self) {
        if self.kind == WASM_EXTERNREF || self.kind == WASM_FUNCREF {
            // SAFETY: see `ref_borrow`; the value owns its reference, which
            // was boxed by this library, and is cleared after.
            let r = unsafe { self.of.ref_ };
            if !r.is_null() {
                // SAFETY: as above.
                drop(unsafe { Box::from_raw(r) });
            }
            self.of.ref_ = std::ptr::null_mut();
        }
    }

    /// The Weft value (references checked against `store`).
    pub(crate) fn to_weft(&self, store: &StoreShared, cx: &mut StoreContextMut<'_, StoreData>) -> anyhow::Result<Val> {
        // SAFETY: the payload field read is the one `kind` names.
        Ok(unsafe {
            match self.kind {
                WASM_I32 => Val::I32(self.of.i32),
                WASM_I64 => Val::I64(self.of.i64),
                WASM_F32 => Val::F32(self.of.f32.to_bits()),
                WASM_F64 => Val::F64(self.of.f64.to_bits()),
                WASM_FUNCREF => match self.ref_borrow() {
                    None => Val::FuncRef(None),
                    Some(r) => {
                        let (s, f) = r
                            .func()
                            .ok_or_else(|| anyhow::anyhow!("funcref value is not a function"))?;
                        if s.id() != store.id() {
                            anyhow::bail!("function belongs to another store");
                        }
                        Val::FuncRef(Some(f))
                    }
                },
                WASM_EXTERNREF => match self.ref_borrow() {
                    None => Val::ExternRef(None),
                    Some(r) => {
                        let payload = crate::AssertSendSync(ExternPayload::new(r));
                        Val::ExternRef(Some(ExternRef::new(&mut *cx, payload)?))
                    }
                },
                k => anyhow::bail!("unknown value kind {k}"),
            }
        })
    }

    /// The C value of `v` (references owned by the result).
    pub(crate) fn from_weft(
        v: &Val,
        store: &Rc<StoreShared>,
        cx: &mut StoreContextMut<'_, StoreData>,
    ) -> anyhow::Result<wasm_val_t> {
        Ok(match v {
            Val::I32(i) => wasm_val_t {
                kind: WASM_I32,
                of: wasm_val_union { i32: *i },
            },
            Val::I64(i) => wasm_val_t {
                kind: WASM_I64,
                of: wasm_val_union { i64: *i },
            },
            Val::F32(b) => wasm_val_t {
                kind: WASM_F32,
                of: wasm_val_union {
                    f32: f32::from_bits(*b),
                },
            },
            Val::F64(b) => wasm_val_t {
                kind: WASM_F64,
                of: wasm_val_union {
                    f64: f64::from_bits(*b),
                },
            },
            Val::FuncRef(f) => {
                wasm_val_t::reference(WASM_FUNCREF, f.map(|f| wasm_ref_t::entity(store, Entity::Func(f))))
            }
            Val::ExternRef(None) => wasm_val_t::reference(WASM_EXTERNREF, None),
            Val::ExternRef(Some(e)) => {
                let data = e.data(&*cx)?;
                let r = data
                    .and_then(|d| d.downcast_ref::<crate::AssertSendSync<ExternPayload>>())
                    .and_then(|p| p.0.to_ref());
                wasm_val_t::reference(WASM_EXTERNREF, r)
            }
            Val::V128(_) => anyhow::bail!("v128 values have no wasm.h representation"),
            Val::ExnRef(_) => anyhow::bail!("exnref values have no wasm.h representation"),
            Val::AnyRef(_) => anyhow::bail!("anyref values have no wasm.h representation"),
        })
    }
}

impl VecElem for wasm_val_t {
    fn zero() -> Self {
        wasm_val_t::zero()
    }
    fn clone_elem(&self) -> Self {
        self.copy()
    }
    fn drop_elem(mut self) {
        self.release()
    }
}

/// `wasm_val_vec_t`.
pub type wasm_val_vec_t = CVec<wasm_val_t>;

declare_vec!(
    wasm_val_vec_t,
    wasm_val_t,
    wasm_val_vec_new_empty,
    wasm_val_vec_new_uninitialized,
    wasm_val_vec_new,
    wasm_val_vec_copy,
    wasm_val_vec_delete
);

/// Releases the reference a value owns.
#[no_mangle]
pub extern "C" fn wasm_val_delete(v: Option<&mut wasm_val_t>) {
    guard(
        || (),
        || {
            if let Some(v) = v {
                v.release()
            }
        },
    )
}

/// Sets `out` to a copy of `src` (references copied).
#[no_mangle]
pub extern "C" fn wasm_val_copy(out: Option<&mut MaybeUninit<wasm_val_t>>, src: Option<&wasm_val_t>) {
    guard(
        || (),
        || {
            if let (Some(out), Some(src)) = (out, src) {
                out.write(src.copy());
            }
        },
    )
}
