//! The vectors of `wasm.h` (`wasm_X_vec_t`): a length and a pointer to
//! elements that the vector owns.

use std::mem::MaybeUninit;

/// A `wasm_X_vec_t`: `size` elements at `data` (null when empty), allocated
/// by this library as a boxed slice.
#[repr(C)]
pub struct CVec<E: VecElem> {
    /// The number of elements.
    pub size: usize,
    /// The elements (null when `size` is 0).
    pub data: *mut E,
}

/// What a vector needs of its elements.
pub trait VecElem: Sized {
    /// The element of a vector made by `wasm_X_vec_new_uninitialized`.
    fn zero() -> Self;
    /// A deep copy (`wasm_X_vec_copy`).
    fn clone_elem(&self) -> Self;
    /// Releases what the element owns (`wasm_X_vec_delete`).
    fn drop_elem(self) {}
}

impl VecElem for u8 {
    fn zero() -> u8 {
        0
    }
    fn clone_elem(&self) -> u8 {
        *self
    }
}

impl<T: Clone> VecElem for Option<Box<T>> {
    fn zero() -> Self {
        None
    }
    fn clone_elem(&self) -> Self {
        self.clone()
    }
}

impl<E: VecElem> CVec<E> {
    /// An empty vector.
    pub fn empty() -> CVec<E> {
        CVec {
            size: 0,
            data: std::ptr::null_mut(),
        }
    }

    /// A vector owning the elements of `v`.
    pub fn from_vec(v: Vec<E>) -> CVec<E> {
        if v.is_empty() {
            return CVec::empty();
        }
        let b = v.into_boxed_slice();
        let size = b.len();
        CVec {
            size,
            data: Box::into_raw(b).cast::<E>(),
        }
    }

    /// The elements.
    pub fn as_slice(&self) -> &[E] {
        if self.data.is_null() || self.size == 0 {
            return &[];
        }
        // SAFETY: a vector's `data` points to `size` initialized elements:
        // this library made it so, or the C caller did, as `wasm.h` requires
        // of every vector passed in.
        unsafe { std::slice::from_raw_parts(self.data, self.size) }
    }

    /// The elements, writable.
    pub fn as_mut_slice(&mut self) -> &mut [E] {
        if self.data.is_null() || self.size == 0 {
            return &mut [];
        }
        // SAFETY: as in `as_slice`; `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.data, self.size) }
    }

    /// Takes the elements out, leaving the vector empty.
    pub fn take(&mut self) -> Vec<E> {
        if self.data.is_null() || self.size == 0 {
            // Field by field: assigning `*self` would drop it, which takes.
            self.size = 0;
            self.data = std::ptr::null_mut();
            return Vec::new();
        }
        let ptr = std::ptr::slice_from_raw_parts_mut(self.data, self.size);
        self.size = 0;
        self.data = std::ptr::null_mut();
        // SAFETY: a vector owning its elements was allocated by this library
        // as a boxed slice of exactly `size` elements (`from_vec`); the
        // `wasm.h` contract is that only such vectors are given back to be
        // deleted or consumed.
        unsafe { Box::from_raw(ptr) }.into_vec()
    }

    /// A deep copy.
    pub fn copy(&self) -> CVec<E> {
        CVec::from_vec(self.as_slice().iter().map(VecElem::clone_elem).collect())
    }
}

impl<E: VecElem> Drop for CVec<E> {
    fn drop(&mut self) {
        for e in self.take() {
            e.drop_elem();
        }
    }
}

impl<E: VecElem> Clone for CVec<E> {
    fn clone(&self) -> Self {
        self.copy()
    }
}

impl<E: VecElem> Default for CVec<E> {
    fn default() -> Self {
        CVec::empty()
    }
}

/// Writes `v` to an out-parameter (nothing if it is null).
pub(crate) fn write_out<T>(out: Option<&mut MaybeUninit<T>>, v: T) {
    if let Some(out) = out {
        out.write(v);
    }
}

/// Declares the five functions of a vector type.
macro_rules! declare_vec {
    ($vec:ident, $elem:ty, $new_empty:ident, $new_uninit:ident, $new:ident, $copy:ident, $delete:ident) => {
        /// Sets `out` to an empty vector.
        #[no_mangle]
        pub extern "C" fn $new_empty(out: Option<&mut std::mem::MaybeUninit<$vec>>) {
            $crate::vec::write_out(out, $crate::vec::CVec::empty());
        }

        /// Sets `out` to a vector of `size` default elements.
        #[no_mangle]
        pub extern "C" fn $new_uninit(out: Option<&mut std::mem::MaybeUninit<$vec>>, size: usize) {
            $crate::guard(
                || (),
                || {
                    let v = (0..size)
                        .map(|_| <$elem as $crate::vec::VecElem>::zero())
                        .collect();
                    $crate::vec::write_out(out, $crate::vec::CVec::from_vec(v));
                },
            )
        }

        /// Sets `out` to a vector of the `size` elements at `data`, taking
        /// ownership of them.
        ///
        /// # Safety
        ///
        /// `data` points to `size` valid elements (or is null with `size` 0).
        #[no_mangle]
        pub unsafe extern "C" fn $new(out: Option<&mut std::mem::MaybeUninit<$vec>>, size: usize, data: *const $elem) {
            $crate::guard(
                || (),
                || {
                    let mut v = Vec::with_capacity(size);
                    if !data.is_null() {
                        for i in 0..size {
                            // SAFETY: the caller gives `size` valid elements
                            // and their ownership; each is read once.
                            v.push(unsafe { std::ptr::read(data.add(i)) });
                        }
                    }
                    $crate::vec::write_out(out, $crate::vec::CVec::from_vec(v));
                },
            )
        }

        /// Sets `out` to a deep copy of `src`.
        #[no_mangle]
        pub extern "C" fn $copy(out: Option<&mut std::mem::MaybeUninit<$vec>>, src: Option<&$vec>) {
            $crate::guard(
                || (),
                || {
                    let v = src.map(|s| s.copy()).unwrap_or_default();
                    $crate::vec::write_out(out, v);
                },
            )
        }

        /// Deletes the elements of `v` and leaves it empty.
        #[no_mangle]
        pub extern "C" fn $delete(v: Option<&mut $vec>) {
            $crate::guard(
                || (),
                || {
                    if let Some(v) = v {
                        for e in v.take() {
                            <$elem as $crate::vec::VecElem>::drop_elem(e);
                        }
                    }
                },
            )
        }
    };
}
pub(crate) use declare_vec;

/// `wasm_byte_vec_t` (and `wasm_name_t`, `wasm_message_t`).
pub type wasm_byte_vec_t = CVec<u8>;
/// `wasm_name_t`.
pub type wasm_name_t = wasm_byte_vec_t;

declare_vec!(
    wasm_byte_vec_t,
    u8,
    wasm_byte_vec_new_empty,
    wasm_byte_vec_new_uninitialized,
    wasm_byte_vec_new,
    wasm_byte_vec_copy,
    wasm_byte_vec_delete
);

/// A name vector holding the bytes of `s`.
pub(crate) fn name_from_str(s: &str) -> wasm_name_t {
    CVec::from_vec(s.as_bytes().to_vec())
}
