//! The drivers of host producers and consumers: each moves items between
//! its producer or consumer and the copies the guest at the other end
//! makes (see `host_streams`).

use super::buffers::{VecBuffer, WriteBuffer};
use super::copy::{elem_of, plain_size, store_elems};
use super::host_streams::{advance, cancelled, peer, Driver};
use super::streams::{
    Destination, FutureConsumer, FutureProducer, GuestBuffer, HostScratch, Source, StreamConsumer, StreamProducer,
    StreamResult,
};
use crate::component::{Lower, Val};
use crate::{AsContextMut, StoreContextMut};
use std::any::{Any, TypeId};
use std::pin::Pin;
use std::task::{Context, Poll};
use weft_tasks::{EntryId, PeerCopy};

/// The guest's waiting copy at the other end of `end`: `Err(done)` when
/// there is none (`done`: the other end was dropped).
fn waiting<D>(store: &StoreContextMut<'_, D>, end: EntryId) -> crate::Result<Result<GuestBuffer, bool>> {
    Ok(match peer(store, end)? {
        PeerCopy::Dropped => Err(true),
        PeerCopy::Idle => Err(false),
        PeerCopy::Waiting {
            cx,
            ptr,
            remain,
            cancelling,
        } => Ok(GuestBuffer {
            store: store.0.opaque().id(),
            cx,
            ptr,
            remain,
            moved: 0,
            cancelling,
        }),
    })
}

/// Lowers as many items of `buffer` as the guest's buffer has room for
/// into it.
fn deliver<D: 'static, T: Lower, B: WriteBuffer<T> + ?Sized>(
    store: &mut StoreContextMut<'_, D>,
    guest: &mut GuestBuffer,
    buffer: &mut B,
) -> crate::Result<()> {
    let n = buffer.remaining().len().min(guest.left() as usize);
    if n == 0 {
        return Ok(());
    }
    let (elem, size, memory) = elem_of(store, guest.cx)?;
    let at = guest.ptr.wrapping_add(guest.moved.wrapping_mul(size));
    // Integers go in bulk, as their bytes, when the guest's buffer holds
    // them (its bounds were checked when the copy started; memories only
    // grow).
    if let (Some(size), Some(memory)) = (elem.and_then(plain_size), memory) {
        let start = at as usize;
        let end = start + n * size as usize;
        if let Some(out) = memory.data_mut(&mut *store).get_mut(start..end) {
            if T::store_plain(&buffer.remaining()[..n], out) {
                buffer.skip(n);
                guest.moved += n as u32;
                return Ok(());
            }
        }
    }
    let vals = buffer.remaining()[..n]
        .iter()
        .map(|item| item.lower(store))
        .collect::<crate::Result<Vec<Val>>>()?;
    store_elems(store, guest.cx, at, vals)?;
    buffer.skip(n);
    // `n` is at most `guest.left()`, a `u32`.
    guest.moved += n as u32;
    Ok(())
}

/// Turns the `Result<Poll<_>>` of a driver's step into its poll.
fn flip(r: crate::Result<Poll<()>>) -> Poll<crate::Result<()>> {
    match r {
        Ok(Poll::Ready(())) => Poll::Ready(Ok(())),
        Ok(Poll::Pending) => Poll::Pending,
        Err(e) => Poll::Ready(Err(e)),
    }
}

/// Drives a [`StreamProducer`] into the guest's reads.
pub(crate) struct StreamProducerDriver<P: StreamProducer<D>, D> {
    /// `None` once it returned `Dropped` (or was converted back).
    producer: Option<Pin<Box<P>>>,
    buffer: P::Buffer,
    _marker: std::marker::PhantomData<fn() -> D>,
}

impl<P: StreamProducer<D>, D> StreamProducerDriver<P, D> {
    pub(crate) fn new(producer: P) -> Self {
        StreamProducerDriver {
            producer: Some(Box::pin(producer)),
            buffer: P::Buffer::default(),
            _marker: std::marker::PhantomData,
        }
    }

    fn step(
        &mut self,
        cx: &mut Context<'_>,
        store: &mut StoreContextMut<'_, D>,
        end: EntryId,
    ) -> crate::Result<Poll<()>>
    where
        D: 'static,
        P::Item: Lower,
    {
        loop {
            let mut guest = match waiting(store, end)? {
                Ok(g) => g,
                Err(true) => return Ok(Poll::Ready(())),
                Err(false) if self.producer.is_none() && self.buffer.remaining().is_empty() => {
                    return Ok(Poll::Ready(()))
                }
                Err(false) => return Ok(Poll::Pending),
            };
            // Items left from an earlier poll go first.
            if !self.buffer.remaining().is_empty() {
                deliver(store, &mut guest, &mut self.buffer)?;
                advance(store, end, guest.moved)?;
                continue;
            }
            let Some(producer) = self.producer.as_mut() else {
                // Done and delivered: the end is dropped, and the read
                // finishes `DROPPED`.
                return Ok(Poll::Ready(()));
            };
            let finish = guest.cancelling;
            let polled = producer.as_mut().poll_produce(
                cx,
                store.as_context_mut(),
                Destination::new(&mut self.buffer, &mut guest),
                finish,
            );
            let result = match polled {
                Poll::Ready(Err(e)) => return Err(e),
                Poll::Ready(Ok(r)) => Some(r),
                Poll::Pending => None,
            };
            deliver(store, &mut guest, &mut self.buffer)?;
            match result {
                Some(StreamResult::Dropped) => {
                    self.producer = None;
                    if guest.moved > 0 || guest.remain == 0 {
                        advance(store, end, guest.moved)?;
                    }
                }
                Some(StreamResult::Completed | StreamResult::Cancelled) => advance(store, end, guest.moved)?,
                None => {
                    if guest.moved > 0 {
                        advance(store, end, guest.moved)?;
                    }
                    return Ok(Poll::Pending);
                }
            }
        }
    }
}

impl<P, D> Driver<D> for StreamProducerDriver<P, D>
where
    P: StreamProducer<D>,
    P::Item: Lower + Send + Sync + 'static,
    D: 'static,
{
    fn poll(
        &mut self,
        cx: &mut Context<'_>,
        mut store: StoreContextMut<'_, D>,
        end: EntryId,
    ) -> Poll<crate::Result<()>> {
        flip(self.step(cx, &mut store, end))
    }

    fn into_feed(self: Box<Self>) -> Option<Box<dyn Any + Send>> {
        let feed: Box<dyn HostFeed<P::Item, D>> = Box::new(ProducerFeed {
            driver: *self,
            direct: VecBuffer::default(),
            scratch: HostScratch::default(),
        });
        Some(Box::new(feed))
    }

    fn try_into_any(&mut self, ty: TypeId) -> Option<Box<dyn Any>> {
        if !self.buffer.remaining().is_empty() {
            return None;
        }
        let producer = self.producer.take()?;
        match P::try_into(producer, ty) {
            Ok(converted) => Some(converted),
            Err(producer) => {
                self.producer = Some(producer);
                None
            }
        }
    }
}

/// Drives a [`StreamConsumer`] from the guest's writes.
pub(crate) struct StreamConsumerDriver<C> {
    consumer: Pin<Box<C>>,
}

impl<C> StreamConsumerDriver<C> {
    pub(crate) fn new(consumer: C) -> Self {
        StreamConsumerDriver {
            consumer: Box::pin(consumer),
        }
    }
}

impl<C> StreamConsumerDriver<C> {
    fn step<D: 'static>(
        &mut self,
        cx: &mut Context<'_>,
        store: &mut StoreContextMut<'_, D>,
        end: EntryId,
    ) -> crate::Result<Poll<()>>
    where
        C: StreamConsumer<D>,
    {
        loop {
            let mut guest = match waiting(store, end)? {
                Ok(g) => g,
                Err(true) => return Ok(Poll::Ready(())),
                Err(false) => return Ok(Poll::Pending),
            };
            let finish = guest.cancelling;
            let polled =
                self.consumer
                    .as_mut()
                    .poll_consume(cx, store.as_context_mut(), Source::new(&mut guest), finish);
            match polled {
                Poll::Ready(Err(e)) => return Err(e),
                Poll::Ready(Ok(StreamResult::Dropped)) => {
                    if guest.moved > 0 || guest.remain == 0 {
                        advance(store, end, guest.moved)?;
                    }
                    return Ok(Poll::Ready(()));
                }
                Poll::Ready(Ok(_)) => advance(store, end, guest.moved)?,
                Poll::Pending => {
                    if guest.moved > 0 {
                        advance(store, end, guest.moved)?;
                    }
                    return Ok(Poll::Pending);
                }
            }
        }
    }
}

impl<C: StreamConsumer<D>, D: 'static> Driver<D> for StreamConsumerDriver<C> {
    fn poll(
        &mut self,
        cx: &mut Context<'_>,
        mut store: StoreContextMut<'_, D>,
        end: EntryId,
    ) -> Poll<crate::Result<()>> {
        flip(self.step(cx, &mut store, end))
    }
}

/// Drives a [`FutureProducer`] into the guest's read.
pub(crate) struct FutureProducerDriver<P> {
    producer: Pin<Box<P>>,
}

impl<P> FutureProducerDriver<P> {
    pub(crate) fn new(producer: P) -> Self {
        FutureProducerDriver {
            producer: Box::pin(producer),
        }
    }
}

impl<P> FutureProducerDriver<P> {
    fn step<D: 'static>(
        &mut self,
        cx: &mut Context<'_>,
        store: &mut StoreContextMut<'_, D>,
        end: EntryId,
    ) -> crate::Result<Poll<()>>
    where
        P: FutureProducer<D>,
        P::Item: Lower,
    {
        let guest = match waiting(store, end)? {
            Ok(g) => g,
            Err(true) => return Ok(Poll::Ready(())),
            Err(false) => return Ok(Poll::Pending),
        };
        match self
            .producer
            .as_mut()
            .poll_produce(cx, store.as_context_mut(), guest.cancelling)
        {
            Poll::Ready(Ok(Some(value))) => {
                let val = value.lower(store)?;
                store_elems(store, guest.cx, guest.ptr, vec![val])?;
                advance(store, end, 1)?;
                Ok(Poll::Ready(()))
            }
            // Cancelled: the read finishes `CANCELLED`, and the producer
            // stays for the next one.
            Poll::Ready(Ok(None)) if guest.cancelling => {
                cancelled(store, end)?;
                Ok(Poll::Pending)
            }
            Poll::Ready(Ok(None)) => Ok(Poll::Ready(())),
            Poll::Ready(Err(e)) => Err(e),
            Poll::Pending => Ok(Poll::Pending),
        }
    }
}

impl<P: FutureProducer<D>, D: 'static> Driver<D> for FutureProducerDriver<P>
where
    P::Item: Lower + Send + Sync + 'static,
{
    fn into_feed(self: Box<Self>) -> Option<Box<dyn Any + Send>> {
        let feed: Box<dyn HostFeed<P::Item, D>> = Box::new(ValueFeed {
            producer: Some(self.producer),
            value: None,
        });
        Some(Box::new(feed))
    }

    fn poll(
        &mut self,
        cx: &mut Context<'_>,
        mut store: StoreContextMut<'_, D>,
        end: EntryId,
    ) -> Poll<crate::Result<()>> {
        flip(self.step(cx, &mut store, end))
    }
}

/// Drives a [`FutureConsumer`] from the guest's write.
pub(crate) struct FutureConsumerDriver<C> {
    consumer: Pin<Box<C>>,
    /// Whether the guest's value was taken (the consumer is then polled
    /// with an empty source until it is done).
    taken: bool,
}

impl<C> FutureConsumerDriver<C> {
    pub(crate) fn new(consumer: C) -> Self {
        FutureConsumerDriver {
            consumer: Box::pin(consumer),
            taken: false,
        }
    }
}

impl<C> FutureConsumerDriver<C> {
    fn step<D: 'static>(
        &mut self,
        cx: &mut Context<'_>,
        store: &mut StoreContextMut<'_, D>,
        end: EntryId,
    ) -> crate::Result<Poll<()>>
    where
        C: FutureConsumer<D>,
    {
        let mut guest = if self.taken {
            GuestBuffer {
                store: store.0.opaque().id(),
                cx: 0,
                ptr: 0,
                remain: 0,
                moved: 0,
                cancelling: false,
            }
        } else {
            match waiting(store, end)? {
                Ok(g) => g,
                Err(true) => return Ok(Poll::Ready(())),
                Err(false) => return Ok(Poll::Pending),
            }
        };
        let finish = guest.cancelling;
        let polled = self
            .consumer
            .as_mut()
            .poll_consume(cx, store.as_context_mut(), Source::new(&mut guest), finish);
        if !self.taken && finish && guest.moved == 0 && matches!(polled, Poll::Ready(Ok(()))) {
            // Cancelled before it took the value: the write finishes
            // `CANCELLED`, and the consumer stays for the next one.
            cancelled(store, end)?;
            return Ok(Poll::Pending);
        }
        if !self.taken && (guest.moved > 0 || polled.is_ready()) {
            // The value is the consumer's (read or not): the write is done.
            self.taken = true;
            advance(store, end, 1)?;
        }
        match polled {
            Poll::Ready(r) => r.map(Poll::Ready),
            Poll::Pending => Ok(Poll::Pending),
        }
    }
}

impl<C: FutureConsumer<D>, D: 'static> Driver<D> for FutureConsumerDriver<C> {
    fn poll(
        &mut self,
        cx: &mut Context<'_>,
        mut store: StoreContextMut<'_, D>,
        end: EntryId,
    ) -> Poll<crate::Result<()>> {
        flip(self.step(cx, &mut store, end))
    }
}

/// A host producer's side of a pipe into a host consumer: makes items and
/// offers them (see [`HostPipe`]).
pub(crate) trait HostFeed<T, D>: Send {
    /// Polls the producer for more items (only when none are offered);
    /// `Ready(true)` once it is done.
    fn poll_feed(&mut self, cx: &mut Context<'_>, store: StoreContextMut<'_, D>) -> Poll<crate::Result<bool>>;

    /// The items offered, in order (empty when there are none).
    fn offered(&mut self) -> &mut dyn WriteBuffer<T>;
}

/// A [`StreamProducerDriver`] feeding a host consumer: the producer's
/// buffer, and the bytes it wrote directly (into `scratch`, then moved to
/// `direct`, offered first).
struct ProducerFeed<P: StreamProducer<D>, D> {
    driver: StreamProducerDriver<P, D>,
    direct: VecBuffer<P::Item>,
    scratch: HostScratch,
}

impl<P, D> HostFeed<P::Item, D> for ProducerFeed<P, D>
where
    P: StreamProducer<D>,
    P::Item: Send + Sync + 'static,
    D: 'static,
{
    fn poll_feed(&mut self, cx: &mut Context<'_>, store: StoreContextMut<'_, D>) -> Poll<crate::Result<bool>> {
        let Some(producer) = self.driver.producer.as_mut() else {
            return Poll::Ready(Ok(true));
        };
        self.scratch.written = 0;
        let polled = producer.as_mut().poll_produce(
            cx,
            store,
            Destination::host(&mut self.driver.buffer, &mut self.scratch),
            false,
        );
        if self.scratch.written > 0 {
            // Written as bytes: the items are bytes.
            let bytes: Vec<u8> = self.scratch.bytes.drain(..self.scratch.written).collect();
            if let Some(direct) = (&mut self.direct as &mut dyn Any).downcast_mut::<VecBuffer<u8>>() {
                *direct = bytes.into();
            }
        }
        match polled {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Ready(Ok(StreamResult::Dropped)) => {
                self.driver.producer = None;
                Poll::Ready(Ok(true))
            }
            Poll::Ready(Ok(_)) => Poll::Ready(Ok(false)),
        }
    }

    fn offered(&mut self) -> &mut dyn WriteBuffer<P::Item> {
        if self.direct.remaining().is_empty() {
            &mut self.driver.buffer
        } else {
            &mut self.direct
        }
    }
}

/// A host producer piped into a host consumer: a host task moves the
/// producer's items to the consumer, with no guest and no task-table
/// entries in between. It ends when the consumer returns `Dropped` (the
/// producer is dropped) or the producer is done and its items are taken
/// (the consumer is dropped, as when a guest writer drops its end).
pub(crate) struct HostPipe<T, C, D> {
    feed: Box<dyn HostFeed<T, D>>,
    consumer: Pin<Box<C>>,
    done: bool,
}

impl<T: 'static, C: StreamConsumer<D, Item = T>, D: 'static> HostPipe<T, C, D> {
    /// The pipe from a producer's driver (its `into_feed`) into `consumer`;
    /// `None` when the driver is not a producer's of `T`s.
    pub(crate) fn new(feed: Box<dyn Any + Send>, consumer: C) -> Option<Self> {
        let feed = feed.downcast::<Box<dyn HostFeed<T, D>>>().ok()?;
        Some(HostPipe {
            feed: *feed,
            consumer: Box::pin(consumer),
            done: false,
        })
    }

    /// Moves what it can; `Ready` when the pipe is done.
    pub(crate) fn poll(&mut self, cx: &mut Context<'_>, store: &mut StoreContextMut<'_, D>) -> Poll<crate::Result<()>> {
        loop {
            let offered = self.feed.offered().remaining().len();
            if offered > 0 {
                let polled = self.consumer.as_mut().poll_consume(
                    cx,
                    store.as_context_mut(),
                    Source::host(self.feed.offered()),
                    false,
                );
                match polled {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Ready(Ok(StreamResult::Dropped)) => return Poll::Ready(Ok(())),
                    Poll::Ready(Ok(_)) => {
                        if self.feed.offered().remaining().len() == offered {
                            // It took nothing: the executor's turn first.
                            cx.waker().wake_by_ref();
                            return Poll::Pending;
                        }
                    }
                }
                continue;
            }
            if self.done {
                return Poll::Ready(Ok(()));
            }
            match self.feed.poll_feed(cx, store.as_context_mut()) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(done)) => {
                    self.done = done;
                    if !done && self.feed.offered().remaining().is_empty() {
                        // It made nothing: the executor's turn first.
                        cx.waker().wake_by_ref();
                        return Poll::Pending;
                    }
                }
            }
        }
    }
}

/// A [`FutureProducer`] feeding a host consumer: its value, once made.
struct ValueFeed<P: FutureProducer<D>, D> {
    /// `None` once it made its value (or none).
    producer: Option<Pin<Box<P>>>,
    value: Option<P::Item>,
}

impl<P, D> HostFeed<P::Item, D> for ValueFeed<P, D>
where
    P: FutureProducer<D>,
    P::Item: Send + Sync + 'static,
    D: 'static,
{
    fn poll_feed(&mut self, cx: &mut Context<'_>, store: StoreContextMut<'_, D>) -> Poll<crate::Result<bool>> {
        let Some(producer) = self.producer.as_mut() else {
            return Poll::Ready(Ok(true));
        };
        match producer.as_mut().poll_produce(cx, store, false) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Ready(Ok(value)) => {
                self.producer = None;
                self.value = value;
                Poll::Ready(Ok(true))
            }
        }
    }

    fn offered(&mut self) -> &mut dyn WriteBuffer<P::Item> {
        &mut self.value
    }
}

/// A host future producer piped into a host consumer: the producer's
/// value, once made, goes to the consumer (which is dropped unpolled when
/// the producer made none, as when a guest writer drops its end).
pub(crate) struct HostFuturePipe<T, C, D> {
    feed: Box<dyn HostFeed<T, D>>,
    consumer: Pin<Box<C>>,
    made: bool,
}

impl<T: 'static, C: FutureConsumer<D, Item = T>, D: 'static> HostFuturePipe<T, C, D> {
    /// The pipe from a producer's driver (its `into_feed`) into `consumer`;
    /// `None` when the driver is not a producer's of a `T`.
    pub(crate) fn new(feed: Box<dyn Any + Send>, consumer: C) -> Option<Self> {
        let feed = feed.downcast::<Box<dyn HostFeed<T, D>>>().ok()?;
        Some(HostFuturePipe {
            feed: *feed,
            consumer: Box::pin(consumer),
            made: false,
        })
    }

    /// Moves the value; `Ready` when the pipe is done.
    pub(crate) fn poll(&mut self, cx: &mut Context<'_>, store: &mut StoreContextMut<'_, D>) -> Poll<crate::Result<()>> {
        if !self.made {
            match self.feed.poll_feed(cx, store.as_context_mut()) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(_)) => self.made = true,
            }
            if self.feed.offered().remaining().is_empty() {
                return Poll::Ready(Ok(()));
            }
        }
        self.consumer
            .as_mut()
            .poll_consume(cx, store.as_context_mut(), Source::host(self.feed.offered()), false)
    }
}
