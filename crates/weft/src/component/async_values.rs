//! Stream, future and error-context values of the dynamic API
//! ([`super::Val::Stream`], [`super::Val::Future`],
//! [`super::Val::ErrorContext`]).
//!
//! Like a resource, such a value is lifted as the raw handle index of the
//! lifting instance's table and then moved to the store (a stream or future
//! end is taken out of the instance; an error context is shared), and it is
//! lowered by moving it into the destination instance's table.
//!
//! Held by the host, a value owns one reference of the store's task table
//! through a [`HostHold`]: clones of the value share it, lowering the value
//! into an instance (or piping it, or closing it) takes the reference out,
//! and when the last clone is dropped with the reference still in, the
//! reference goes to the store's queue of dropped holds, released the next
//! time the store runs (no drop needs the store, and none leaks).

use crate::component::lock;
use crate::store::StoreId;
use std::any::TypeId;
use std::sync::{Arc, Mutex};

/// The host's reference to an entry of a store's task table (a stream or
/// future end, or an error context).
#[cfg_attr(
    not(feature = "component-model-async"),
    allow(dead_code, reason = "only the async ABI makes host holds")
)]
pub(crate) struct HostHold {
    /// The store whose table holds the entry.
    pub(crate) store: StoreId,
    /// The entry's index, until someone takes the reference.
    id: Mutex<Option<u32>>,
    /// The Rust type of the elements, for a stream or future the host
    /// made (`None` for one lifted from a guest, whose elements are checked
    /// as they are moved).
    pub(crate) payload: Option<TypeId>,
    /// Where a dropped hold puts its reference.
    queue: Arc<Mutex<Vec<u32>>>,
}

#[cfg_attr(
    not(feature = "component-model-async"),
    allow(dead_code, reason = "only the async ABI makes host holds")
)]
impl HostHold {
    /// A hold of entry `id` of `store`'s table; `queue` is the store's
    /// queue of dropped holds.
    pub(crate) fn new(store: StoreId, id: u32, payload: Option<TypeId>, queue: Arc<Mutex<Vec<u32>>>) -> Arc<HostHold> {
        Arc::new(HostHold {
            store,
            id: Mutex::new(Some(id)),
            payload,
            queue,
        })
    }

    /// A hold with no reference (closed), of no store.
    pub(crate) fn closed() -> Arc<HostHold> {
        Arc::new(HostHold {
            store: StoreId::NONE,
            id: Mutex::new(None),
            payload: None,
            queue: Arc::new(Mutex::new(Vec::new())),
        })
    }

    /// Takes the reference out (the caller now owns it); `None` once taken.
    pub(crate) fn take(&self) -> Option<u32> {
        lock(&self.id).take()
    }

    /// Puts back a reference taken with [`HostHold::take`] (an operation
    /// that failed before it used it).
    pub(crate) fn put_back(&self, id: u32) {
        *lock(&self.id) = Some(id);
    }

    /// The entry, while the hold has it.
    pub(crate) fn peek(&self) -> Option<u32> {
        *lock(&self.id)
    }
}

impl std::fmt::Debug for HostHold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostHold").field("entry", &self.peek()).finish()
    }
}

impl Drop for HostHold {
    fn drop(&mut self) {
        if let Some(id) = self.take() {
            lock(&self.queue).push(id);
        }
    }
}

/// Where an async value's handle is.
#[derive(Clone)]
pub(crate) enum AsyncHandle {
    /// A raw index of the lifting or lowering instance's table.
    Raw(u32),
    /// Held by the store on behalf of the host.
    #[cfg_attr(
        not(feature = "component-model-async"),
        allow(dead_code, reason = "only the async ABI moves these values")
    )]
    Host(Arc<HostHold>),
}

impl AsyncHandle {
    /// The raw index a lowering writes (0 for a host handle: lowering moves
    /// every handle into the instance first).
    pub(crate) fn raw_index(&self) -> u32 {
        match self {
            AsyncHandle::Raw(i) => *i,
            AsyncHandle::Host(_) => 0,
        }
    }
}

impl PartialEq for AsyncHandle {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (AsyncHandle::Raw(a), AsyncHandle::Raw(b)) => a == b,
            (AsyncHandle::Host(a), AsyncHandle::Host(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl std::fmt::Debug for AsyncHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AsyncHandle::Raw(i) => f.debug_tuple("Raw").field(i).finish(),
            AsyncHandle::Host(h) => match h.peek() {
                Some(id) => f.debug_tuple("Host").field(&id).finish(),
                None => f.write_str("Host(closed)"),
            },
        }
    }
}

macro_rules! async_value {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        ///
        /// Clones share one reference: the first to be lowered into a
        /// component instance (or closed) takes it, and the others are then
        /// closed too. Dropping the last clone of a value still held gives
        /// its reference back to the store.
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name(pub(crate) AsyncHandle);

        impl $name {
            /// A value lifted as the raw index `i` of the lifting instance.
            pub(crate) fn raw(i: u32) -> Self {
                $name(AsyncHandle::Raw(i))
            }
        }
    };
}

async_value!(
    /// The readable end of a `stream`, held by the store.
    StreamAny
);
async_value!(
    /// The readable end of a `future`, held by the store.
    FutureAny
);
async_value!(
    /// An `error-context`, held by the store.
    ErrorContextAny
);
