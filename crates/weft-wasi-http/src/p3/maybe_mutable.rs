//! [`MaybeMutable`]: a value the guest may change, or one it may only
//! read (the `request-options` a request hands out).

use std::sync::Arc;

/// A value shared with `Arc`, mutable or not (the host value of
/// `request-options`: the ones `request.get-options` returns are
/// immutable), as Wasmtime's `MaybeMutable`.
#[derive(Debug, Clone)]
pub enum MaybeMutable<T> {
    /// The guest may change it.
    Mutable(Arc<T>),
    /// The guest may only read it.
    Immutable(Arc<T>),
}

impl<T> MaybeMutable<T> {
    /// A mutable value.
    pub fn new_mutable(v: impl Into<Arc<T>>) -> Self {
        MaybeMutable::Mutable(v.into())
    }

    /// A mutable default value.
    pub fn new_mutable_default() -> Self
    where
        T: Default,
    {
        MaybeMutable::Mutable(Arc::new(T::default()))
    }

    /// An immutable value.
    pub fn new_immutable(v: impl Into<Arc<T>>) -> Self {
        MaybeMutable::Immutable(v.into())
    }

    /// The shared value.
    pub fn into_arc(self) -> Arc<T> {
        match self {
            MaybeMutable::Mutable(v) | MaybeMutable::Immutable(v) => v,
        }
    }

    /// The value to change, unless it is immutable (copied first when it
    /// is shared).
    pub fn get_mut(&mut self) -> Option<&mut T>
    where
        T: Clone,
    {
        match self {
            MaybeMutable::Mutable(v) => Some(Arc::make_mut(v)),
            MaybeMutable::Immutable(_) => None,
        }
    }
}

impl<T> std::ops::Deref for MaybeMutable<T> {
    type Target = Arc<T>;

    fn deref(&self) -> &Arc<T> {
        match self {
            MaybeMutable::Mutable(v) | MaybeMutable::Immutable(v) => v,
        }
    }
}

impl<T> From<MaybeMutable<T>> for Arc<T> {
    fn from(v: MaybeMutable<T>) -> Arc<T> {
        v.into_arc()
    }
}

/// The host value of `request-options`.
pub type SharedRequestOptions = MaybeMutable<crate::RequestOptions>;
