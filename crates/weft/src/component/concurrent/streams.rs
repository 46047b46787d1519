//! Host producers and consumers of streams and futures (Wasmtime's
//! `StreamProducer`, `StreamConsumer`, `FutureProducer`,
//! `FutureConsumer`), and their views of the guest's buffer: a
//! [`Destination`] to produce into, a [`Source`] to consume from, and
//! their direct byte views ([`DirectDestination`], [`DirectSource`]).
//!
//! The runtime polls a producer when a guest reads from the stream (the
//! destination is the guest's buffer) and a consumer when a guest writes to
//! it (the source is the guest's buffer): first within the built-in that
//! starts the copy, so a producer with items at hand completes the read
//! before the guest goes on, then from the event loop whenever its waker
//! is woken. Items a producer leaves in its buffer beyond what the read
//! takes are delivered to the next reads before it is polled again.
//!
//! When the guest cancels a copy a producer or consumer has not finished,
//! the runtime polls it at once with `finish` set: it should then finish
//! with what it has (`StreamResult::Cancelled` with nothing moved, a
//! future producer's `Ok(None)`, a future consumer's `Ok(())` without
//! taking the value), and the guest's cancellation returns `CANCELLED`
//! (with the count moved). A producer or consumer that returns `Pending`
//! even then keeps the cancellation waiting (`BLOCKED`, or a synchronous
//! cancellation's wait) until it finishes.

use super::buffers::{ReadBuffer, WriteBuffer};
use super::copy::{elem_of, load_elems};
use crate::component::{InterfaceType, Lift};
use crate::store::StoreId;
use crate::{AsContextMut, StoreContextMut};
use std::any::{Any, TypeId};
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

/// How a producer's or consumer's poll ended (as Wasmtime's
/// `StreamResult`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamResult {
    /// It moved what it could; poll it again for the next copy.
    Completed,
    /// It stopped early because `finish` was set.
    Cancelled,
    /// It is done: no more items will be produced or consumed (the host's
    /// end of the stream is dropped once its buffered items are read).
    Dropped,
}

/// The producer of the items of a stream the host writes (as Wasmtime's
/// `StreamProducer`), for a store whose data is `D`.
pub trait StreamProducer<D>: Send + 'static {
    /// The type of the elements it produces.
    type Item;
    /// Where it puts items for the reader.
    type Buffer: WriteBuffer<Self::Item> + Default;

    /// Produces items for the reader: into `destination`'s buffer
    /// ([`Destination::set_buffer`]) or, for bytes, straight into the
    /// reader's memory ([`Destination::as_direct`]). `Pending` (with `cx`'s
    /// waker woken later) when it has none yet; items put in the buffer
    /// meanwhile are delivered all the same.
    fn poll_produce<'a>(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        store: StoreContextMut<'a, D>,
        destination: Destination<'a, Self::Item, Self::Buffer>,
        finish: bool,
    ) -> Poll<crate::Result<StreamResult>>;

    /// Converts the producer back into the Rust type `ty` (a
    /// `Box<ty>`), or gives it back (used by `StreamReader::try_into`).
    fn try_into(me: Pin<Box<Self>>, _ty: TypeId) -> Result<Box<dyn Any>, Pin<Box<Self>>> {
        Err(me)
    }
}

/// The consumer of the items of a stream the host reads (as Wasmtime's
/// `StreamConsumer`), for a store whose data is `D`.
pub trait StreamConsumer<D>: Send + 'static {
    /// The type of the elements it consumes.
    type Item;

    /// Consumes items of the writer: [`Source::read`] moves them into a
    /// buffer; for bytes, [`Source::as_direct`] reads the writer's memory.
    /// Items not read stay with the writer for the next poll.
    fn poll_consume(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        store: StoreContextMut<D>,
        source: Source<'_, Self::Item>,
        finish: bool,
    ) -> Poll<crate::Result<StreamResult>>;
}

/// The producer of the value of a future the host writes (as Wasmtime's
/// `FutureProducer`). Every `Future` of a `Result` is one.
pub trait FutureProducer<D>: Send + 'static {
    /// The value.
    type Item;

    /// The value, once there is one. With `finish` set (the guest cancels
    /// its read), `None` says the read was cancelled before the value was
    /// ready: the read finishes `CANCELLED` and the producer is polled
    /// again for the next read. Without it, `None` drops the host's end
    /// without a value (the read finishes `DROPPED`).
    fn poll_produce(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        store: StoreContextMut<D>,
        finish: bool,
    ) -> Poll<crate::Result<Option<Self::Item>>>;
}

impl<T, E, Fut, D> FutureProducer<D> for Fut
where
    Fut: std::future::Future<Output = Result<T, E>> + Send + 'static,
    E: Into<crate::Error>,
{
    type Item = T;

    fn poll_produce(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        _store: StoreContextMut<D>,
        finish: bool,
    ) -> Poll<crate::Result<Option<T>>> {
        match self.poll(cx) {
            Poll::Ready(r) => Poll::Ready(r.map(Some).map_err(Into::into)),
            // Cancelled by the reader: the future stays for its next read.
            Poll::Pending if finish => Poll::Ready(Ok(None)),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// The consumer of the value of a future the host reads (as Wasmtime's
/// `FutureConsumer`).
pub trait FutureConsumer<D>: Send + 'static {
    /// The value.
    type Item;

    /// Consumes the value: [`Source::read`] moves it into a buffer (an
    /// `Option<Item>` or a `Vec<Item>` with room for it).
    fn poll_consume(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        store: StoreContextMut<D>,
        source: Source<'_, Self::Item>,
        finish: bool,
    ) -> Poll<crate::Result<()>>;
}

/// The guest's buffer that a producer writes to or a consumer reads from,
/// and how far it got.
pub(crate) struct GuestBuffer {
    pub(crate) store: StoreId,
    /// The copy context (options and element type) of the buffer.
    pub(crate) cx: u32,
    /// The address of its first element not copied before this poll.
    pub(crate) ptr: u32,
    /// The elements it had left before this poll.
    pub(crate) remain: u32,
    /// The elements moved during this poll.
    pub(crate) moved: u32,
    /// The guest is cancelling the copy: the producer or consumer is
    /// polled with `finish` set.
    pub(crate) cancelling: bool,
}

impl GuestBuffer {
    /// The elements left.
    pub(crate) fn left(&self) -> u32 {
        self.remain.saturating_sub(self.moved)
    }

    /// The memory of a byte buffer's elements not moved yet (`None` unless
    /// the elements are `u8`s of the store `store`).
    fn direct_range<T>(&self, store: &StoreContextMut<'_, T>) -> Option<(crate::Memory, std::ops::Range<usize>)> {
        if store.0.opaque().id() != self.store {
            return None;
        }
        match elem_of(store, self.cx) {
            Ok((Some(InterfaceType::U8), 1, Some(memory))) => {
                let start = self.ptr as usize + self.moved as usize;
                Some((memory, start..start + self.left() as usize))
            }
            _ => None,
        }
    }
}

/// Where a [`StreamProducer`] puts items: its buffer, delivered to the
/// reader after the poll, or (bytes) the reader's memory (as Wasmtime's
/// `Destination`).
pub struct Destination<'a, T, B> {
    buffer: &'a mut B,
    reader: Reader<'a>,
    _marker: PhantomData<fn() -> T>,
}

/// Who reads what a producer makes: a guest (its buffer), or a host
/// consumer the producer is piped into (bytes written directly go to a
/// scratch buffer first).
enum Reader<'a> {
    Guest(&'a mut GuestBuffer),
    Host(&'a mut HostScratch),
}

impl Reader<'_> {
    fn reborrow(&mut self) -> Reader<'_> {
        match self {
            Reader::Guest(g) => Reader::Guest(g),
            Reader::Host(h) => Reader::Host(h),
        }
    }
}

/// The bytes a producer piped into a host consumer wrote directly
/// ([`Destination::as_direct`]): the first `written` of `bytes`.
#[derive(Default)]
pub(crate) struct HostScratch {
    pub(crate) bytes: Vec<u8>,
    pub(crate) written: usize,
}

impl<'a, T, B> Destination<'a, T, B> {
    pub(crate) fn new(buffer: &'a mut B, guest: &'a mut GuestBuffer) -> Self {
        Destination {
            buffer,
            reader: Reader::Guest(guest),
            _marker: PhantomData,
        }
    }

    /// A destination read by a host consumer.
    pub(crate) fn host(buffer: &'a mut B, scratch: &'a mut HostScratch) -> Self {
        Destination {
            buffer,
            reader: Reader::Host(scratch),
            _marker: PhantomData,
        }
    }

    /// Takes the buffer (leaving an empty one), to fill it and
    /// [`Destination::set_buffer`] it back.
    pub fn take_buffer(&mut self) -> B
    where
        B: Default,
    {
        std::mem::take(self.buffer)
    }

    /// Sets the buffer whose items are delivered to the reader.
    pub fn set_buffer(&mut self, buffer: B) {
        *self.buffer = buffer;
    }

    /// How many more items the reader takes now (a guest's buffer's room
    /// beyond what was written directly); `None` for a reader of unknown
    /// capacity (a host consumer the stream is piped into).
    pub fn remaining(&self, _store: impl AsContextMut) -> Option<usize> {
        match &self.reader {
            Reader::Guest(g) => Some(g.left() as usize),
            Reader::Host(_) => None,
        }
    }

    /// A shorter borrow of this destination.
    pub fn reborrow(&mut self) -> Destination<'_, T, B> {
        Destination {
            buffer: self.buffer,
            reader: self.reader.reborrow(),
            _marker: PhantomData,
        }
    }
}

impl<'a, B> Destination<'a, u8, B> {
    /// The reader's memory, to write bytes into directly: a guest's
    /// buffer, or for a host consumer `capacity` bytes of scratch space.
    pub fn as_direct<D>(mut self, store: StoreContextMut<'a, D>, capacity: usize) -> DirectDestination<'a, D> {
        if let Reader::Host(h) = &mut self.reader {
            h.bytes.truncate(h.written);
            h.bytes.resize(h.written + capacity, 0);
        }
        DirectDestination {
            store,
            reader: self.reader,
        }
    }
}

/// The reader's memory for bytes written directly (as Wasmtime's
/// `DirectDestination`): write into [`DirectDestination::remaining`] and
/// say how much with [`DirectDestination::mark_written`], or use it as an
/// [`std::io::Write`].
pub struct DirectDestination<'a, D: 'static> {
    store: StoreContextMut<'a, D>,
    reader: Reader<'a>,
}

impl<D: 'static> DirectDestination<'_, D> {
    /// The reader's bytes not written yet (empty when the stream's
    /// elements are not `u8`s).
    pub fn remaining(&mut self) -> &mut [u8] {
        match &mut self.reader {
            Reader::Guest(guest) => match guest.direct_range(&self.store) {
                Some((memory, range)) => memory.data_mut(&mut self.store).get_mut(range).unwrap_or_default(),
                None => &mut [],
            },
            Reader::Host(h) => h.bytes.get_mut(h.written..).unwrap_or_default(),
        }
    }

    /// Records that the first `count` bytes of
    /// [`DirectDestination::remaining`] were written (at most its length).
    pub fn mark_written(&mut self, count: usize) {
        match &mut self.reader {
            Reader::Guest(guest) => {
                let count = u32::try_from(count).unwrap_or(u32::MAX).min(guest.left());
                if guest.direct_range(&self.store).is_some() {
                    guest.moved += count;
                }
            }
            Reader::Host(h) => h.written += count.min(h.bytes.len() - h.written),
        }
    }
}

impl<D: 'static> std::io::Write for DirectDestination<'_, D> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let dst = self.remaining();
        let n = dst.len().min(buf.len());
        dst[..n].copy_from_slice(&buf[..n]);
        self.mark_written(n);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The items a guest writes, for a [`StreamConsumer`] or
/// [`FutureConsumer`] to read (as Wasmtime's `Source`).
pub struct Source<'a, T> {
    writer: Writer<'a, T>,
}

/// Who wrote what a consumer reads: a guest (its buffer), or a host
/// producer piped into the consumer (its buffer).
enum Writer<'a, T> {
    Guest(&'a mut GuestBuffer),
    Host(&'a mut dyn WriteBuffer<T>),
}

impl<'a, T> Source<'a, T> {
    pub(crate) fn new(guest: &'a mut GuestBuffer) -> Self {
        Source {
            writer: Writer::Guest(guest),
        }
    }

    /// The items of a host producer's buffer.
    pub(crate) fn host(buffer: &'a mut dyn WriteBuffer<T>) -> Self {
        Source {
            writer: Writer::Host(buffer),
        }
    }

    /// A shorter borrow of this source.
    pub fn reborrow(&mut self) -> Source<'_, T> {
        Source {
            writer: match &mut self.writer {
                Writer::Guest(g) => Writer::Guest(g),
                Writer::Host(h) => Writer::Host(&mut **h),
            },
        }
    }

    /// Moves as many items as `buffer` has room for (and the writer
    /// offers) into `buffer`, lifting them from the writer's memory.
    pub fn read<B, S: AsContextMut>(&mut self, mut store: S, buffer: &mut B) -> crate::Result<()>
    where
        T: Lift + 'static,
        B: ReadBuffer<T>,
    {
        let mut store = store.as_context_mut();
        let guest = match &mut self.writer {
            Writer::Guest(g) => &mut **g,
            Writer::Host(input) => {
                let n = buffer.remaining_capacity().min(input.remaining().len());
                buffer.move_from(&mut **input, n);
                return Ok(());
            }
        };
        if store.0.opaque().id() != guest.store {
            crate::bail!("the stream or future belongs to another store");
        }
        let n = u32::try_from(buffer.remaining_capacity())
            .unwrap_or(u32::MAX)
            .min(guest.left());
        if n == 0 {
            return Ok(());
        }
        let (_, size, _) = elem_of(&store, guest.cx)?;
        let at = guest.ptr.wrapping_add(guest.moved.wrapping_mul(size));
        let vals = load_elems(&mut store, guest.cx, at, n)?;
        guest.moved += n;
        let items = vals
            .into_iter()
            .map(|v| T::lift(&mut store, v))
            .collect::<crate::Result<Vec<T>>>()?;
        buffer.extend(items);
        Ok(())
    }

    /// How many items the writer still offers.
    pub fn remaining(&self, _store: impl AsContextMut) -> usize
    where
        T: 'static,
    {
        match &self.writer {
            Writer::Guest(g) => g.left() as usize,
            Writer::Host(h) => h.remaining().len(),
        }
    }
}

impl<'a> Source<'a, u8> {
    /// The writer's memory (or a host producer's buffer), to read bytes
    /// from directly.
    pub fn as_direct<D>(self, store: StoreContextMut<'a, D>) -> DirectSource<'a, D> {
        DirectSource {
            store,
            writer: self.writer,
        }
    }
}

/// The writer's memory for bytes read directly (as Wasmtime's
/// `DirectSource`): read [`DirectSource::remaining`] and say how much with
/// [`DirectSource::mark_read`], or use it as an [`std::io::Read`].
pub struct DirectSource<'a, D: 'static> {
    store: StoreContextMut<'a, D>,
    writer: Writer<'a, u8>,
}

impl<D: 'static> DirectSource<'_, D> {
    /// The writer's bytes not read yet (empty when the stream's elements
    /// are not `u8`s).
    pub fn remaining(&mut self) -> &[u8] {
        match &mut self.writer {
            Writer::Guest(guest) => match guest.direct_range(&self.store) {
                Some((memory, range)) => memory.data(&self.store).get(range).unwrap_or_default(),
                None => &[],
            },
            Writer::Host(h) => h.remaining(),
        }
    }

    /// Records that the first `count` bytes of [`DirectSource::remaining`]
    /// were read (at most its length).
    pub fn mark_read(&mut self, count: usize) {
        match &mut self.writer {
            Writer::Guest(guest) => {
                let count = u32::try_from(count).unwrap_or(u32::MAX).min(guest.left());
                if guest.direct_range(&self.store).is_some() {
                    guest.moved += count;
                }
            }
            Writer::Host(h) => {
                let count = count.min(h.remaining().len());
                h.skip(count);
            }
        }
    }
}

impl<D: 'static> std::io::Read for DirectSource<'_, D> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let src = self.remaining();
        let n = src.len().min(buf.len());
        buf[..n].copy_from_slice(&src[..n]);
        self.mark_read(n);
        Ok(n)
    }
}

impl<T: Unpin + Send + Sync + 'static, D> StreamProducer<D> for Vec<T> {
    type Item = T;
    type Buffer = super::buffers::VecBuffer<T>;

    fn poll_produce<'a>(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        _store: StoreContextMut<'a, D>,
        mut destination: Destination<'a, T, Self::Buffer>,
        _finish: bool,
    ) -> Poll<crate::Result<StreamResult>> {
        destination.set_buffer(std::mem::take(self.get_mut()).into());
        Poll::Ready(Ok(StreamResult::Dropped))
    }

    fn try_into(me: Pin<Box<Self>>, ty: TypeId) -> Result<Box<dyn Any>, Pin<Box<Self>>> {
        if ty == TypeId::of::<Self>() {
            let me: Box<Self> = Pin::into_inner(me);
            Ok(me)
        } else {
            Err(me)
        }
    }
}

impl<T: Send + Sync + 'static, D> StreamProducer<D> for Box<[T]> {
    type Item = T;
    type Buffer = super::buffers::VecBuffer<T>;

    fn poll_produce<'a>(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        _store: StoreContextMut<'a, D>,
        mut destination: Destination<'a, T, Self::Buffer>,
        _finish: bool,
    ) -> Poll<crate::Result<StreamResult>> {
        let items = std::mem::take(self.get_mut()).into_vec();
        destination.set_buffer(items.into());
        Poll::Ready(Ok(StreamResult::Dropped))
    }

    fn try_into(me: Pin<Box<Self>>, ty: TypeId) -> Result<Box<dyn Any>, Pin<Box<Self>>> {
        if ty == TypeId::of::<Self>() {
            let me: Box<Self> = Pin::into_inner(me);
            Ok(me)
        } else {
            Err(me)
        }
    }
}

impl<T: Send + Sync + 'static, D> StreamProducer<D> for std::iter::Empty<T> {
    type Item = T;
    type Buffer = Option<T>;

    fn poll_produce<'a>(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        _store: StoreContextMut<'a, D>,
        _destination: Destination<'a, T, Self::Buffer>,
        _finish: bool,
    ) -> Poll<crate::Result<StreamResult>> {
        Poll::Ready(Ok(StreamResult::Dropped))
    }
}

/// Writes as much of `bytes` as the reader takes straight into its
/// memory; how many bytes that was.
fn write_direct<D>(
    destination: Destination<'_, u8, super::buffers::VecBuffer<u8>>,
    store: StoreContextMut<'_, D>,
    bytes: &[u8],
) -> usize {
    let mut direct = destination.as_direct(store, bytes.len());
    let room = direct.remaining();
    let n = room.len().min(bytes.len());
    room[..n].copy_from_slice(&bytes[..n]);
    direct.mark_written(n);
    n
}

/// One turn of a `Bytes` or `BytesMut` producer: as many of its bytes as
/// the reader has room for, written straight into its memory; the stream
/// ends with the last of them.
fn produce_bytes<D, B: bytes::Buf + std::ops::Deref<Target = [u8]>>(
    me: &mut B,
    store: StoreContextMut<'_, D>,
    destination: Destination<'_, u8, super::buffers::VecBuffer<u8>>,
) -> Poll<crate::Result<StreamResult>> {
    if me.is_empty() {
        return Poll::Ready(Ok(StreamResult::Dropped));
    }
    let n = write_direct(destination, store, me);
    me.advance(n);
    Poll::Ready(Ok(if me.is_empty() {
        StreamResult::Dropped
    } else {
        StreamResult::Completed
    }))
}

/// Converts a boxed producer into `ty` when it is one.
fn convert_into<P: Unpin + 'static>(me: Pin<Box<P>>, ty: TypeId) -> Result<Box<dyn Any>, Pin<Box<P>>> {
    if ty == TypeId::of::<P>() {
        let me: Box<P> = Pin::into_inner(me);
        Ok(me)
    } else {
        Err(me)
    }
}

/// The bytes, written straight into the reader's memory as it reads (as
/// Wasmtime's producer for `bytes::Bytes`).
impl<D> StreamProducer<D> for bytes::Bytes {
    type Item = u8;
    type Buffer = super::buffers::VecBuffer<u8>;

    fn poll_produce<'a>(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        store: StoreContextMut<'a, D>,
        destination: Destination<'a, u8, Self::Buffer>,
        _finish: bool,
    ) -> Poll<crate::Result<StreamResult>> {
        produce_bytes(self.get_mut(), store, destination)
    }

    fn try_into(me: Pin<Box<Self>>, ty: TypeId) -> Result<Box<dyn Any>, Pin<Box<Self>>> {
        convert_into(me, ty)
    }
}

/// The bytes, written straight into the reader's memory as it reads (as
/// Wasmtime's producer for `bytes::BytesMut`).
impl<D> StreamProducer<D> for bytes::BytesMut {
    type Item = u8;
    type Buffer = super::buffers::VecBuffer<u8>;

    fn poll_produce<'a>(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        store: StoreContextMut<'a, D>,
        destination: Destination<'a, u8, Self::Buffer>,
        _finish: bool,
    ) -> Poll<crate::Result<StreamResult>> {
        produce_bytes(self.get_mut(), store, destination)
    }

    fn try_into(me: Pin<Box<Self>>, ty: TypeId) -> Result<Box<dyn Any>, Pin<Box<Self>>> {
        convert_into(me, ty)
    }
}
