//! Stream, future and error-context values of the dynamic API
//! ([`super::Val::Stream`], [`super::Val::Future`],
//! [`super::Val::ErrorContext`]).
//!
//! Like a resource, such a value is lifted as the raw handle index of the
//! lifting instance's table and then moved to the store (a stream or future
//! end is taken out of the instance; an error context is shared), and it is
//! lowered by moving it into the destination instance's table.

/// Where an async value's handle is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum AsyncHandle {
    /// A raw index of the lifting or lowering instance's table.
    Raw(u32),
    /// Held by the store on behalf of the host: an entry of its task table.
    #[cfg_attr(
        not(feature = "component-model-async"),
        allow(dead_code, reason = "only the async ABI moves these values")
    )]
    Host(u32),
}

impl AsyncHandle {
    /// The raw index a lowering writes (0 for a host handle: lowering moves
    /// every handle into the instance first).
    pub(crate) fn raw_index(self) -> u32 {
        match self {
            AsyncHandle::Raw(i) => i,
            AsyncHandle::Host(_) => 0,
        }
    }
}

macro_rules! async_value {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
