//! [`HasData`] and [`HasSelf`]: how host functions name the part of a
//! store's data they reach (as Wasmtime's), used by the accessors of the
//! concurrent API and by the `add_to_linker` functions `bindgen!` generates.

use std::marker::PhantomData;

/// Names the part of a store's data that host code reaches through an
/// accessor or a `bindgen!`-generated getter (as Wasmtime's `HasData`): [`HasSelf<T>`] for all of it, or
/// a type of the embedder's for a projection (`Data<'a>` is what the
/// accessor's getter returns).
pub trait HasData: 'static {
    /// What the getter returns for a borrow of the store's data.
    type Data<'a>;
}

/// [`HasData`] for the whole of the store's data `T`: `Data<'a>` is
/// `&'a mut T`.
pub struct HasSelf<T: ?Sized>(PhantomData<T>);

impl<T: ?Sized + 'static> HasData for HasSelf<T> {
    type Data<'a> = &'a mut T;
}
