//! The buffers of host streams (as Wasmtime's `WriteBuffer`, `ReadBuffer`
//! and `VecBuffer`): a producer puts the items it offers in a
//! [`WriteBuffer`], a consumer reads items into a [`ReadBuffer`].
//!
//! Unlike Wasmtime's, [`WriteBuffer::take`] hands items over one by one
//! by value (Wasmtime lends a slice of `MaybeUninit<T>`, which only
//! `unsafe` code can read).

/// Items a stream producer offers, in order (as Wasmtime's
/// `WriteBuffer`). The runtime lowers items from [`WriteBuffer::remaining`]
/// into the reader's buffer and then [`WriteBuffer::skip`]s them; a host
/// reader [`WriteBuffer::take`]s them.
pub trait WriteBuffer<T>: Send + Sync + 'static {
    /// The items not consumed yet.
    fn remaining(&self) -> &[T];

    /// Consumes the first `count` items (they were copied); `count` is at
    /// most `remaining().len()`.
    fn skip(&mut self, count: usize);

    /// Consumes the first `count` items (at most `remaining().len()`),
    /// passing each to `fun` by value.
    fn take(&mut self, count: usize, fun: &mut dyn FnMut(T));
}

/// Where a stream consumer reads items to (as Wasmtime's `ReadBuffer`).
pub trait ReadBuffer<T>: Send + Sync + 'static {
    /// Appends `iter`'s items.
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I);

    /// How many more items fit: a read moves at most this many.
    fn remaining_capacity(&self) -> usize;

    /// Moves `count` items from `input` (at most its `remaining().len()`).
    fn move_from(&mut self, input: &mut dyn WriteBuffer<T>, count: usize);
}

/// A [`WriteBuffer`] over a `Vec` (as Wasmtime's `VecBuffer`): the items
/// of the `Vec` in order.
#[derive(Debug)]
pub struct VecBuffer<T> {
    items: Vec<T>,
    /// The items before this are consumed (dropped when the buffer is
    /// compacted, reset or dropped).
    offset: usize,
}

impl<T> Default for VecBuffer<T> {
    fn default() -> Self {
        VecBuffer {
            items: Vec::new(),
            offset: 0,
        }
    }
}

impl<T> VecBuffer<T> {
    /// An empty buffer with room for `capacity` items.
    pub fn with_capacity(capacity: usize) -> Self {
        VecBuffer {
            items: Vec::with_capacity(capacity),
            offset: 0,
        }
    }

    /// Empties the buffer (keeping its allocation).
    pub fn reset(&mut self) {
        self.items.clear();
        self.offset = 0;
    }

    /// Drops consumed items once they are the larger part.
    fn compact(&mut self) {
        if self.offset == self.items.len() {
            self.reset();
        } else if self.offset > self.items.len() / 2 {
            self.items.drain(..self.offset);
            self.offset = 0;
        }
    }
}

impl<T> From<Vec<T>> for VecBuffer<T> {
    fn from(items: Vec<T>) -> Self {
        VecBuffer { items, offset: 0 }
    }
}

impl<T: Send + Sync + 'static> WriteBuffer<T> for VecBuffer<T> {
    fn remaining(&self) -> &[T] {
        self.items.get(self.offset..).unwrap_or(&[])
    }

    fn skip(&mut self, count: usize) {
        self.offset = (self.offset + count).min(self.items.len());
        self.compact();
    }

    fn take(&mut self, count: usize, fun: &mut dyn FnMut(T)) {
        let end = (self.offset + count).min(self.items.len());
        for item in self.items.drain(self.offset..end) {
            fun(item);
        }
        self.compact();
    }
}

impl<T: Send + Sync + 'static> WriteBuffer<T> for Option<T> {
    fn remaining(&self) -> &[T] {
        self.as_slice()
    }

    fn skip(&mut self, count: usize) {
        if count > 0 {
            *self = None;
        }
    }

    fn take(&mut self, count: usize, fun: &mut dyn FnMut(T)) {
        if count > 0 {
            if let Some(item) = self.take() {
                fun(item);
            }
        }
    }
}

impl<T: Send + Sync + 'static> ReadBuffer<T> for Vec<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        Extend::extend(self, iter)
    }

    fn remaining_capacity(&self) -> usize {
        self.capacity() - self.len()
    }

    fn move_from(&mut self, input: &mut dyn WriteBuffer<T>, count: usize) {
        let count = count.min(input.remaining().len());
        self.reserve(count);
        input.take(count, &mut |item| self.push(item));
    }
}

impl<T: Send + Sync + 'static> ReadBuffer<T> for Option<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        if self.is_none() {
            *self = iter.into_iter().next();
        }
    }

    fn remaining_capacity(&self) -> usize {
        usize::from(self.is_none())
    }

    fn move_from(&mut self, input: &mut dyn WriteBuffer<T>, count: usize) {
        if self.is_none() && count > 0 {
            input.take(1, &mut |item| *self = Some(item));
        }
    }
}
