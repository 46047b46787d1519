//! A store lent to the code that runs inside a scope on this thread: the
//! event loop of the component model's concurrent API polls host futures
//! inside [`lend_store`], and those futures reach the store through
//! [`with_lent_store`] (`Accessor::with` in the facade).
//!
//! Sound by construction: the lent `&mut S` stays borrowed by
//! [`lend_store`] for exactly the scope's duration, [`with_lent_store`]
//! takes the pointer out while its closure runs (a nested call finds
//! nothing), and every fiber switch of this crate saves the slot and
//! clears it for the other side ([`switching`]), so a store lent on one
//! stack is never reached from another.

use std::any::TypeId;
use std::cell::Cell;

/// The store lent now, with its type.
#[derive(Clone, Copy)]
struct Lent {
    ptr: *mut (),
    ty: Option<TypeId>,
}

impl Lent {
    const NONE: Lent = Lent {
        ptr: std::ptr::null_mut(),
        ty: None,
    };
}

thread_local! {
    static LENT: Cell<Lent> = const { Cell::new(Lent::NONE) };
}

/// Puts the slot back as it was when dropped (also when unwinding).
struct Restore(Lent);

impl Drop for Restore {
    fn drop(&mut self) {
        LENT.with(|c| c.set(self.0));
    }
}

/// Runs `f` with `store` lent to it: code that `f` runs on this thread (and
/// on no other stack) reaches the store with [`with_lent_store`].
pub fn lend_store<S: 'static, R>(store: &mut S, f: impl FnOnce() -> R) -> R {
    let lent = Lent {
        ptr: (store as *mut S).cast(),
        ty: Some(TypeId::of::<S>()),
    };
    let _restore = Restore(LENT.with(|c| c.replace(lent)));
    f()
}

/// Runs `f` with the store of type `S` lent by the innermost
/// [`lend_store`] on this stack, or returns `None` when there is none (no
/// scope, a store of another type, or inside another `with_lent_store`).
pub fn with_lent_store<S: 'static, R>(f: impl FnOnce(&mut S) -> R) -> Option<R> {
    let lent = LENT.with(|c| c.get());
    if lent.ty != Some(TypeId::of::<S>()) || lent.ptr.is_null() {
        return None;
    }
    let _restore = Restore(LENT.with(|c| c.replace(Lent::NONE)));
    // SAFETY: `lent.ptr` was made from a `&mut S` (its `TypeId` matches) by
    // a `lend_store` whose scope is running further down this stack: the
    // reference stays borrowed, unused, until that scope ends, so it is
    // valid, and nothing else reaches it meanwhile. The slot is emptied
    // for as long as this `&mut S` lives, so no second one is made from it;
    // fiber switches clear it for the other side (`switching`).
    let store = unsafe { &mut *lent.ptr.cast::<S>() };
    Some(f(store))
}

/// Whether a store of type `S` is lent now (and not taken).
pub fn is_store_lent<S: 'static>() -> bool {
    let lent = LENT.with(|c| c.get());
    lent.ty == Some(TypeId::of::<S>()) && !lent.ptr.is_null()
}

/// Runs `f`, a switch to another stack and back, with the slot cleared on
/// the other side and restored on this one.
pub(crate) fn switching<R>(f: impl FnOnce() -> R) -> R {
    let _restore = Restore(LENT.with(|c| c.replace(Lent::NONE)));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lent_store_is_reached_once_and_only_inside_the_scope() {
        let mut store = 5u32;
        assert!(with_lent_store::<u32, _>(|_| ()).is_none());
        lend_store(&mut store, || {
            assert!(is_store_lent::<u32>());
            assert!(!is_store_lent::<u64>());
            assert!(with_lent_store::<u64, _>(|_| ()).is_none());
            let got = with_lent_store::<u32, _>(|s| {
                *s += 1;
                // Taken: a nested call finds nothing.
                assert!(with_lent_store::<u32, _>(|_| ()).is_none());
                *s
            });
            assert_eq!(got, Some(6));
            assert!(is_store_lent::<u32>());
        });
        assert!(!is_store_lent::<u32>());
        assert_eq!(store, 6);
    }

    #[test]
    fn a_panic_inside_the_scope_restores_the_slot() {
        let mut store = 1u8;
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            lend_store(&mut store, || with_lent_store::<u8, _>(|_| panic!("boom")))
        }));
        assert!(r.is_err());
        assert!(!is_store_lent::<u8>());
    }

    #[test]
    fn a_fiber_switch_hides_the_lent_store_from_the_other_side() {
        let pool = std::sync::Arc::new(crate::FiberPool::new(256 * 1024));
        let mut fiber = crate::StoreFiber::<u32>::new(&pool, |store, suspender| {
            lend_store(store, || {
                let mut other = 0u32;
                assert!(suspender.suspend(&mut other).is_ok());
                // Back on this stack: the fiber's own loan again.
                assert!(is_store_lent::<u32>());
            });
        })
        .unwrap();
        let mut store = 3u32;
        lend_store(&mut 9u32, || {
            // The resumer's loan is cleared on the fiber, the fiber's is
            // cleared here when it suspends, and the resumer's comes back.
            assert!(!fiber.resume(&mut store));
            assert_eq!(with_lent_store::<u32, _>(|s| *s), Some(9));
            assert!(fiber.resume(&mut store));
            assert_eq!(with_lent_store::<u32, _>(|s| *s), Some(9));
        });
    }
}
