//! The host's readable ends of streams and futures (Wasmtime's
//! `StreamReader<T>`, `FutureReader<T>` and their guarded forms), typed
//! error contexts ([`ErrorContext`]), and the conversions between them and
//! the dynamic values ([`StreamAny`], [`FutureAny`], [`ErrorContextAny`]).
//!
//! A reader holds one reference of the store's task table (a `HostHold`):
//! passing it to a guest (as an argument or a result) moves it there,
//! [`StreamReader::pipe`] gives it to a consumer, and closing or dropping
//! it drops the end (a dropped reader's end is dropped the next time the
//! store runs). Its element type is checked against the guest's when the
//! function type is checked (typed functions), or as items move (a
//! mismatch is an error, never a wrong value).

use super::accessor::AsAccessor;
use super::drivers::{
    FutureConsumerDriver, FutureProducerDriver, HostFuturePipe, HostPipe, StreamConsumerDriver, StreamProducerDriver,
};
use super::host::{self, check_concurrency_support};
use super::host_streams;
use super::streams::{FutureConsumer, FutureProducer, StreamConsumer, StreamProducer};
use crate::component::async_values::{AsyncHandle, HostHold};
use crate::component::typed::{expected, wrong_val, InstanceType};
use crate::component::{trap, ComponentType, ErrorContextAny, FutureAny, InterfaceType, Lift, Lower, StreamAny, Val};
use crate::store::StoreInner;
use crate::{AsContextMut, StoreContextMut};
use std::any::TypeId;
use std::marker::PhantomData;
use std::sync::Arc;
use std::task::{Context, Poll};
use weft_environ::component::DefinedType;
use weft_tasks::EntryId;

/// The type tag of the ends of a stream or future the host made (it is
/// replaced when the readable end moves into an instance).
const HOST_TYPE_TAG: u32 = u32::MAX - 1;

/// Checks that `ty` is a `stream` (or, `future`, a `future`) of `T`.
fn typecheck_payload<T: ComponentType>(
    ty: &InterfaceType,
    types: &InstanceType<'_>,
    stream: bool,
) -> crate::Result<()> {
    let what = if stream { "stream" } else { "future" };
    let payload = match ty {
        InterfaceType::Defined(d) => match types.defined(*d) {
            Some(DefinedType::Stream(t)) if stream => *t,
            Some(DefinedType::Future(t)) if !stream => *t,
            _ => return Err(expected(what, ty, types)),
        },
        _ => return Err(expected(what, ty, types)),
    };
    match payload {
        Some(t) => T::typecheck(&t, types),
        None if T::IS_UNIT => Ok(()),
        None => crate::bail!("type mismatch: the {what} has no payload"),
    }
}

/// Releases the reference `hold` has, if it has one (of the store
/// `store`).
fn close_hold<D: 'static>(hold: &HostHold, store: &mut StoreContextMut<'_, D>) -> crate::Result<()> {
    if hold.peek().is_none() {
        return Ok(());
    }
    let id = host_streams::take(hold, store.0.opaque().id())?;
    host_streams::release(store, id)
}

/// Checks that `hold` belongs to `store` and is still held.
fn check_hold<D>(hold: &HostHold, store: &StoreContextMut<'_, D>) -> crate::Result<()> {
    if hold.store != store.0.opaque().id() {
        crate::bail!("the stream, future or error context belongs to another store");
    }
    if hold.peek().is_none() {
        crate::bail!("the stream, future or error context was closed or given away already");
    }
    Ok(())
}

/// A new stream or future whose ends are the host's: a hold of the
/// readable end for `T`'s reader, and a driver made by `driver` for the
/// writable end.
fn new_host_copyable<D: 'static, T: 'static>(
    store: &mut StoreContextMut<'_, D>,
    is_stream: bool,
    driver: Box<dyn host_streams::Driver<D>>,
) -> crate::Result<Arc<HostHold>> {
    check_concurrency_support(store)?;
    let id = store.0.opaque().id();
    let components = store.components_mut();
    let (r, w) = components
        .tasks
        .host_copyable_new(is_stream, HOST_TYPE_TAG, true)
        .map_err(trap)?;
    let hold = host_streams::new_hold(components, id, r, Some(TypeId::of::<T>()));
    host_streams::hold_new_end(components, w);
    host_streams::start_driver(store, w, driver)?;
    Ok(hold)
}

/// Takes the driver of the host producer writing the stream or future
/// of the readable end `end` (taken from `hold`) out of the store, to pipe
/// it into a host consumer: both ends are dropped. The producer as a
/// `drivers::HostFeed`.
fn take_host_feed<D: 'static>(
    hold: &HostHold,
    store: &mut StoreContextMut<'_, D>,
    end: EntryId,
) -> crate::Result<Option<Box<dyn std::any::Any + Send>>> {
    let driver = match host_streams::take_peer_driver(store, end) {
        Ok(Some(driver)) => driver,
        Ok(None) => {
            host_streams::put_back(hold, end);
            crate::bail!("unsupported: piping a stream or future into a host consumer from inside its own producer");
        }
        Err(e) => {
            host_streams::put_back(hold, end);
            return Err(e);
        }
    };
    host_streams::release(store, end)?;
    Ok(driver.into_feed())
}

/// Starts a host task that polls `poll` (a host-to-host pipe) with the
/// store the event loop lends until it is done.
fn start_pipe_task<D: 'static>(
    store: &mut StoreContextMut<'_, D>,
    mut poll: impl FnMut(&mut Context<'_>, &mut StoreContextMut<'_, D>) -> Poll<crate::Result<()>> + Send + 'static,
) -> crate::Result<()> {
    let future = Box::pin(std::future::poll_fn(move |cx| {
        weft_fiber::with_lent_store::<StoreInner<D>, _>(|inner| poll(cx, &mut StoreContextMut(inner)))
            .unwrap_or_else(|| {
                Poll::Ready(Err(crate::format_err!(
                    "internal error: a host-to-host pipe without its store"
                )))
            })
            .map(|r| r.map(|()| Vec::new()))
    }));
    host::start_task(store, future).map(drop)
}

/// The readable end of a stream of `T`s, held by the host (as Wasmtime's
/// `StreamReader`).
pub struct StreamReader<T> {
    hold: Arc<HostHold>,
    _marker: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for StreamReader<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamReader").field("end", &self.hold.peek()).finish()
    }
}

impl<T> StreamReader<T> {
    /// A new stream whose items `producer` makes, as the reader a guest
    /// reads them from (pass it as an argument or a result). Fails when the
    /// engine has no concurrency support.
    pub fn new<S: AsContextMut>(mut store: S, producer: impl StreamProducer<S::Data, Item = T>) -> crate::Result<Self>
    where
        T: Lower + Lift + Send + Sync + 'static,
    {
        let mut store = store.as_context_mut();
        let driver = Box::new(StreamProducerDriver::new(producer));
        let hold = new_host_copyable::<S::Data, T>(&mut store, true, driver)?;
        Ok(StreamReader {
            hold,
            _marker: PhantomData,
        })
    }

    /// Reads the stream with `consumer`: it is polled whenever the writer
    /// (a guest) writes, or, when the host made the stream with a
    /// producer, whenever the producer has items (a host task moves them
    /// from one to the other). The reader is consumed; when the consumer
    /// returns `Dropped` or fails, or the writer drops its end (the
    /// producer is done and its items taken), the stream ends.
    pub fn pipe<S: AsContextMut>(
        self,
        mut store: S,
        consumer: impl StreamConsumer<S::Data, Item = T>,
    ) -> crate::Result<()>
    where
        T: 'static,
    {
        let mut store = store.as_context_mut();
        check_concurrency_support(&store)?;
        let end = host_streams::take(&self.hold, store.0.opaque().id())?;
        if !host_streams::peer_is_driven(&store, end) {
            return host_streams::start_driver(&mut store, end, Box::new(StreamConsumerDriver::new(consumer)));
        }
        let Some(feed) = take_host_feed(&self.hold, &mut store, end)? else {
            crate::bail!("internal error: the stream's writer is not a producer of its items");
        };
        let Some(mut pipe) = HostPipe::<T, _, S::Data>::new(feed, consumer) else {
            crate::bail!("internal error: the stream's producer makes items of another type");
        };
        start_pipe_task(&mut store, move |cx, store| pipe.poll(cx, store))
    }

    /// The producer the stream was made with, as a `V`, when it is one (its
    /// `StreamProducer::try_into` says) and nothing was read yet: the
    /// stream is then closed. Otherwise the reader comes back.
    pub fn try_into<V: 'static>(self, mut store: impl AsContextMut) -> Result<V, Self> {
        let mut store = store.as_context_mut();
        let Some(end) = self.hold.peek().filter(|_| self.hold.store == store.0.opaque().id()) else {
            return Err(self);
        };
        match host_streams::try_take_peer_producer(&mut store, EntryId::from_index(end), TypeId::of::<V>()) {
            Ok(Some(any)) => {
                let _ = close_hold(&self.hold, &mut store);
                match any.downcast::<V>() {
                    Ok(v) => Ok(*v),
                    Err(_) => Err(self),
                }
            }
            _ => Err(self),
        }
    }

    /// Drops the readable end now (a writer's copy finishes `DROPPED`);
    /// nothing happens if it was closed or given away already.
    pub fn close(&mut self, mut store: impl AsContextMut) -> crate::Result<()> {
        close_hold(&self.hold, &mut store.as_context_mut())
    }

    /// [`StreamReader::close`] through an accessor.
    pub fn close_with(&mut self, accessor: impl AsAccessor) -> crate::Result<()> {
        accessor
            .as_accessor()
            .try_with(|mut access| self.close(access.as_context_mut()))?
    }

    /// This reader, closed through `accessor` when the guard is dropped.
    pub fn guard<A: AsAccessor>(self, accessor: A) -> GuardedStreamReader<T, A> {
        GuardedStreamReader::new(accessor, self)
    }

    /// The reader as a dynamic value.
    pub fn try_into_stream_any(self, mut store: impl AsContextMut) -> crate::Result<StreamAny>
    where
        T: ComponentType + 'static,
    {
        check_hold(&self.hold, &store.as_context_mut())?;
        Ok(StreamAny(AsyncHandle::Host(self.hold)))
    }

    /// The reader of a dynamic value. Fails when the host made the stream
    /// with items of another type (a guest's stream is checked as its items
    /// move).
    pub fn try_from_stream_any(stream: StreamAny) -> crate::Result<Self>
    where
        T: ComponentType + 'static,
    {
        let hold = any_hold(stream.0, TypeId::of::<T>(), "stream")?;
        Ok(StreamReader {
            hold,
            _marker: PhantomData,
        })
    }
}

/// The hold of a dynamic value, checked to be held by the host and, if the
/// host made it, to carry items of the type `ty`.
fn any_hold(handle: AsyncHandle, ty: TypeId, what: &str) -> crate::Result<Arc<HostHold>> {
    match handle {
        AsyncHandle::Host(hold) => {
            if hold.payload.is_some_and(|p| p != ty) {
                crate::bail!("type mismatch: the {what} carries items of another type");
            }
            Ok(hold)
        }
        AsyncHandle::Raw(_) => crate::bail!("the {what} is not held by the host"),
    }
}

/// The readable end of a future of a `T`, held by the host (as Wasmtime's
/// `FutureReader`).
pub struct FutureReader<T> {
    hold: Arc<HostHold>,
    _marker: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for FutureReader<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FutureReader").field("end", &self.hold.peek()).finish()
    }
}

impl<T> FutureReader<T> {
    /// A new future whose value `producer` makes (polled once a guest
    /// reads), as the reader a guest reads it from. Fails when the engine
    /// has no concurrency support.
    pub fn new<S: AsContextMut>(mut store: S, producer: impl FutureProducer<S::Data, Item = T>) -> crate::Result<Self>
    where
        T: Lower + Lift + Send + Sync + 'static,
    {
        let mut store = store.as_context_mut();
        let driver = Box::new(FutureProducerDriver::new(producer));
        let hold = new_host_copyable::<S::Data, T>(&mut store, false, driver)?;
        Ok(FutureReader {
            hold,
            _marker: PhantomData,
        })
    }

    /// Reads the future with `consumer`, polled once the writer (a guest)
    /// writes the value, or, when the host made the future with a
    /// producer, once the producer has it.
    pub fn pipe<S: AsContextMut>(
        self,
        mut store: S,
        consumer: impl FutureConsumer<S::Data, Item = T> + Unpin,
    ) -> crate::Result<()>
    where
        T: Lift + 'static,
    {
        let mut store = store.as_context_mut();
        check_concurrency_support(&store)?;
        let end = host_streams::take(&self.hold, store.0.opaque().id())?;
        if !host_streams::peer_is_driven(&store, end) {
            return host_streams::start_driver(&mut store, end, Box::new(FutureConsumerDriver::new(consumer)));
        }
        let Some(feed) = take_host_feed(&self.hold, &mut store, end)? else {
            crate::bail!("internal error: the future's writer is not a producer of its value");
        };
        let Some(mut pipe) = HostFuturePipe::<T, _, S::Data>::new(feed, consumer) else {
            crate::bail!("internal error: the future's producer makes a value of another type");
        };
        start_pipe_task(&mut store, move |cx, store| pipe.poll(cx, store))
    }

    /// Drops the readable end now; nothing happens if it was closed or
    /// given away already.
    pub fn close(&mut self, mut store: impl AsContextMut) -> crate::Result<()> {
        close_hold(&self.hold, &mut store.as_context_mut())
    }

    /// [`FutureReader::close`] through an accessor.
    pub fn close_with(&mut self, accessor: impl AsAccessor) -> crate::Result<()> {
        accessor
            .as_accessor()
            .try_with(|mut access| self.close(access.as_context_mut()))?
    }

    /// This reader, closed through `accessor` when the guard is dropped.
    pub fn guard<A: AsAccessor>(self, accessor: A) -> GuardedFutureReader<T, A> {
        GuardedFutureReader::new(accessor, self)
    }

    /// The reader as a dynamic value.
    pub fn try_into_future_any(self, mut store: impl AsContextMut) -> crate::Result<FutureAny>
    where
        T: ComponentType + 'static,
    {
        check_hold(&self.hold, &store.as_context_mut())?;
        Ok(FutureAny(AsyncHandle::Host(self.hold)))
    }

    /// The reader of a dynamic value (see
    /// [`StreamReader::try_from_stream_any`]).
    pub fn try_from_future_any(future: FutureAny) -> crate::Result<Self>
    where
        T: ComponentType + 'static,
    {
        let hold = any_hold(future.0, TypeId::of::<T>(), "future")?;
        Ok(FutureReader {
            hold,
            _marker: PhantomData,
        })
    }
}

macro_rules! guarded {
    ($(#[$doc:meta])* $name:ident, $reader:ident, $into:ident) => {
        $(#[$doc])*
        pub struct $name<T, A: AsAccessor> {
            /// `None` once taken back.
            reader: Option<$reader<T>>,
            accessor: A,
        }

        impl<T, A: AsAccessor> $name<T, A> {
            /// Guards `reader`: it is closed through `accessor` when the
            /// guard is dropped.
            pub fn new(accessor: A, reader: $reader<T>) -> Self {
                $name {
                    reader: Some(reader),
                    accessor,
                }
            }

            /// The reader, no longer guarded.
            pub fn $into(mut self) -> $reader<T> {
                match self.reader.take() {
                    Some(r) => r,
                    None => $reader {
                        hold: HostHold::closed(),
                        _marker: PhantomData,
                    },
                }
            }
        }

        impl<T, A: AsAccessor> From<$name<T, A>> for $reader<T> {
            fn from(guarded: $name<T, A>) -> Self {
                guarded.$into()
            }
        }

        impl<T, A: AsAccessor> Drop for $name<T, A> {
            fn drop(&mut self) {
                if let Some(mut reader) = self.reader.take() {
                    // Outside the event loop the reader's own drop gives
                    // the end back when the store runs next.
                    let _ = self
                        .accessor
                        .as_accessor()
                        .try_with(|mut access| reader.close(access.as_context_mut()));
                }
            }
        }
    };
}

guarded!(
    /// A [`StreamReader`] closed through an accessor when dropped (as
    /// Wasmtime's `GuardedStreamReader`).
    GuardedStreamReader,
    StreamReader,
    into_stream
);
guarded!(
    /// A [`FutureReader`] closed through an accessor when dropped (as
    /// Wasmtime's `GuardedFutureReader`).
    GuardedFutureReader,
    FutureReader,
    into_future
);

/// An `error-context` the host holds, typed (as Wasmtime's
/// `ErrorContext`).
#[derive(Debug, Clone)]
pub struct ErrorContext {
    hold: Arc<HostHold>,
}

impl ErrorContext {
    /// The dynamic value.
    pub fn into_val(self) -> Val {
        Val::ErrorContext(ErrorContextAny(AsyncHandle::Host(self.hold)))
    }

    /// The error context `val` holds, checked to be of `store`.
    pub fn from_val(mut store: impl AsContextMut, val: &Val) -> crate::Result<Self> {
        match val {
            Val::ErrorContext(ErrorContextAny(AsyncHandle::Host(hold))) => {
                check_hold(hold, &store.as_context_mut())?;
                Ok(ErrorContext { hold: hold.clone() })
            }
            other => Err(wrong_val("error-context", other)),
        }
    }

    /// Releases the error context now.
    pub fn close(&mut self, mut store: impl AsContextMut) -> crate::Result<()> {
        close_hold(&self.hold, &mut store.as_context_mut())
    }
}

impl StreamAny {
    /// The dynamic value of `reader`.
    pub fn try_from_stream_reader<T: ComponentType + 'static>(
        store: impl AsContextMut,
        reader: StreamReader<T>,
    ) -> crate::Result<Self> {
        reader.try_into_stream_any(store)
    }

    /// The typed reader of this value.
    pub fn try_into_stream_reader<T: ComponentType + 'static>(self) -> crate::Result<StreamReader<T>> {
        StreamReader::try_from_stream_any(self)
    }

    /// Drops the readable end now (every clone of the value is then
    /// closed); nothing happens if it was closed or given away already.
    pub fn close(&mut self, mut store: impl AsContextMut) -> crate::Result<()> {
        match &self.0 {
            AsyncHandle::Host(hold) => close_hold(hold, &mut store.as_context_mut()),
            AsyncHandle::Raw(_) => Ok(()),
        }
    }
}

impl FutureAny {
    /// The dynamic value of `reader`.
    pub fn try_from_future_reader<T: ComponentType + 'static>(
        store: impl AsContextMut,
        reader: FutureReader<T>,
    ) -> crate::Result<Self> {
        reader.try_into_future_any(store)
    }

    /// The typed reader of this value.
    pub fn try_into_future_reader<T: ComponentType + 'static>(self) -> crate::Result<FutureReader<T>> {
        FutureReader::try_from_future_any(self)
    }

    /// Drops the readable end now (see [`StreamAny::close`]).
    pub fn close(&mut self, mut store: impl AsContextMut) -> crate::Result<()> {
        match &self.0 {
            AsyncHandle::Host(hold) => close_hold(hold, &mut store.as_context_mut()),
            AsyncHandle::Raw(_) => Ok(()),
        }
    }
}

impl ErrorContextAny {
    /// Releases the error context now (see [`StreamAny::close`]).
    pub fn close(&mut self, mut store: impl AsContextMut) -> crate::Result<()> {
        match &self.0 {
            AsyncHandle::Host(hold) => close_hold(hold, &mut store.as_context_mut()),
            AsyncHandle::Raw(_) => Ok(()),
        }
    }
}

/// The hold of a value lifted to the host, checked to be of `store`.
fn lifted_hold<U>(store: &StoreContextMut<'_, U>, handle: AsyncHandle, what: &str) -> crate::Result<Arc<HostHold>> {
    match handle {
        AsyncHandle::Host(hold) if hold.store == store.0.opaque().id() => Ok(hold),
        AsyncHandle::Host(_) => crate::bail!("the {what} belongs to another store"),
        AsyncHandle::Raw(_) => crate::bail!("the {what} is not held by the host"),
    }
}

impl<T: ComponentType> ComponentType for StreamReader<T> {
    fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> crate::Result<()> {
        typecheck_payload::<T>(ty, types, true)
    }
}

impl<T: ComponentType> Lift for StreamReader<T> {
    fn lift<U: 'static>(store: &mut StoreContextMut<'_, U>, val: Val) -> crate::Result<Self> {
        match val {
            Val::Stream(s) => Ok(StreamReader {
                hold: lifted_hold(store, s.0, "stream")?,
                _marker: PhantomData,
            }),
            other => Err(wrong_val("stream", &other)),
        }
    }
}

impl<T: ComponentType> Lower for StreamReader<T> {
    fn lower<U: 'static>(&self, store: &mut StoreContextMut<'_, U>) -> crate::Result<Val> {
        check_hold(&self.hold, store)?;
        Ok(Val::Stream(StreamAny(AsyncHandle::Host(self.hold.clone()))))
    }
}

impl<T: ComponentType> ComponentType for FutureReader<T> {
    fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> crate::Result<()> {
        typecheck_payload::<T>(ty, types, false)
    }
}

impl<T: ComponentType> Lift for FutureReader<T> {
    fn lift<U: 'static>(store: &mut StoreContextMut<'_, U>, val: Val) -> crate::Result<Self> {
        match val {
            Val::Future(f) => Ok(FutureReader {
                hold: lifted_hold(store, f.0, "future")?,
                _marker: PhantomData,
            }),
            other => Err(wrong_val("future", &other)),
        }
    }
}

impl<T: ComponentType> Lower for FutureReader<T> {
    fn lower<U: 'static>(&self, store: &mut StoreContextMut<'_, U>) -> crate::Result<Val> {
        check_hold(&self.hold, store)?;
        Ok(Val::Future(FutureAny(AsyncHandle::Host(self.hold.clone()))))
    }
}

impl ComponentType for ErrorContext {
    fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> crate::Result<()> {
        match ty {
            InterfaceType::ErrorContext => Ok(()),
            other => Err(expected("error-context", other, types)),
        }
    }
}

impl Lift for ErrorContext {
    fn lift<U: 'static>(store: &mut StoreContextMut<'_, U>, val: Val) -> crate::Result<Self> {
        match val {
            Val::ErrorContext(e) => Ok(ErrorContext {
                hold: lifted_hold(store, e.0, "error context")?,
            }),
            other => Err(wrong_val("error-context", &other)),
        }
    }
}

impl Lower for ErrorContext {
    fn lower<U: 'static>(&self, store: &mut StoreContextMut<'_, U>) -> crate::Result<Val> {
        check_hold(&self.hold, store)?;
        Ok(Val::ErrorContext(ErrorContextAny(AsyncHandle::Host(self.hold.clone()))))
    }
}
