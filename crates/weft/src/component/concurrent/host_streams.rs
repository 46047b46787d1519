//! The store's side of host streams and futures: the references the host
//! holds in the task table, and the drivers of host producers and
//! consumers.
//!
//! - A value the host holds (a [`StreamAny`](crate::component::StreamAny),
//!   a `StreamReader`, an error context, ...) owns one reference through a
//!   `HostHold`; `held` counts them (with the drivers' ends) for
//!   [`Store::check_concurrent_state`](crate::Store::check_concurrent_state).
//!   A hold dropped with its reference in puts it on `queue`, which
//!   [`release_dropped`] empties (the event loop calls it every turn). An
//!   end released this way is dropped as `stream.drop-*` would drop it:
//!   the other side's copy finishes `DROPPED`.
//! - A driver moves elements between a host producer or consumer and the
//!   guest's copy at the other end of its host end. It lives here (so that
//!   a drop of the other end, or a close, can end it at once, without a
//!   turn of the event loop) and runs as a host task whose future only
//!   polls it ([`shim`]); a guest's copy on the other end wakes it.

// Import loop kept on purpose: the files of `concurrent/` are one event
// loop split by size (threads in sched.rs, tasks in calls.rs, host tasks in
// host.rs, built-ins and copies); a resumed thread runs calls that wait in
// the loop, so each part calls the others.
use super::host::{self, HostFuture};
use crate::component::async_values::HostHold;
use crate::component::lock;
use crate::component::store::ComponentStore;
use crate::component::trap;
use crate::id_map::IdMap;
use crate::store::{StoreId, StoreInner};
use crate::StoreContextMut;
use std::any::{Any, TypeId};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use weft_tasks::{EntryId, PeerCopy};

/// A driver of a host end: moves elements between a host producer or
/// consumer and the other end's copies.
pub(crate) trait Driver<T: 'static>: Send {
    /// Moves what it can; `Ready` when it is done (its end is then
    /// dropped).
    fn poll(&mut self, cx: &mut Context<'_>, store: StoreContextMut<'_, T>, end: EntryId) -> Poll<crate::Result<()>>;

    /// Converts the producer back into the Rust type `ty`
    /// (`StreamProducer::try_into`), if it is one and is still whole.
    fn try_into_any(&mut self, _ty: TypeId) -> Option<Box<dyn Any>> {
        None
    }

    /// A producer's driver as the feed of a host-to-host pipe: a
    /// `Box<dyn HostFeed<Item, T>>` (see `drivers`), or `None` for other
    /// drivers.
    fn into_feed(self: Box<Self>) -> Option<Box<dyn Any + Send>> {
        None
    }
}

/// The boxed driver of a store whose data is `T` (kept as `dyn Any`, since
/// the store's component state does not know `T`).
type BoxedDriver<T> = Box<dyn Driver<T>>;

/// A driver and the host task that polls it.
struct DriverSlot {
    /// The stream or future its end belongs to.
    shared: EntryId,
    /// The host task.
    task: u64,
    /// A `BoxedDriver<T>`; `None` while it is being polled.
    state: Option<Box<dyn Any + Send>>,
    /// The host task's waker, once it was polled.
    waker: Option<Waker>,
    /// How the driver ended when a built-in polled it
    /// ([`poll_peer_now`]): its result, or its panic, for the host task
    /// to report.
    outcome: Option<Outcome>,
}

/// The host's references and drivers (see the module documentation).
#[derive(Default)]
pub(crate) struct HostStreams {
    /// The entries of holds dropped with their reference.
    queue: Arc<Mutex<Vec<u32>>>,
    /// The references the host holds, by entry (values, dropped holds not
    /// released yet, drivers' ends).
    held: IdMap<EntryId, u32>,
    /// The drivers, by the host end each drives.
    drivers: IdMap<EntryId, DriverSlot>,
}

impl HostStreams {
    /// The references the host holds, each as often as it is held.
    pub(crate) fn held(&self) -> impl Iterator<Item = EntryId> + '_ {
        self.held
            .iter()
            .flat_map(|(id, n)| std::iter::repeat_n(*id, *n as usize))
    }

    /// Lines naming the drivers, for the state dump.
    pub(crate) fn describe(&self) -> String {
        let mut lines: Vec<String> = self
            .drivers
            .iter()
            .map(|(end, slot)| {
                format!(
                    "host driver of end {} (stream or future {}): host task {}\n",
                    end.index(),
                    slot.shared.index(),
                    slot.task
                )
            })
            .collect();
        lines.sort();
        lines.concat()
    }

    /// The end a driver drives on the other side of `end`, of the stream
    /// or future `shared`, if the host drives one.
    fn driven_peer(&self, shared: EntryId, end: EntryId) -> Option<EntryId> {
        self.drivers
            .iter()
            .find(|(e, s)| **e != end && s.shared == shared)
            .map(|(e, _)| *e)
    }

    fn hold(&mut self, id: EntryId) {
        *self.held.entry(id).or_insert(0) += 1;
    }

    fn unhold(&mut self, id: EntryId) {
        if let Some(n) = self.held.get_mut(&id) {
            *n -= 1;
            if *n == 0 {
                self.held.remove(&id);
            }
        }
    }
}

/// A new hold of `id` (whose reference the caller gives to it) for the
/// host; `payload` is the Rust type of a host-made stream's elements.
pub(crate) fn new_hold(
    components: &mut ComponentStore,
    store: StoreId,
    id: EntryId,
    payload: Option<TypeId>,
) -> Arc<HostHold> {
    let hs = &mut components.host_streams;
    hs.hold(id);
    HostHold::new(store, id.index(), payload, hs.queue.clone())
}

/// Counts the host's reference to the new end `id`, which a driver is to
/// hold.
pub(crate) fn hold_new_end(components: &mut ComponentStore, id: EntryId) {
    components.host_streams.hold(id);
}

/// Whether a driver of the host drives the other end of `end`.
pub(crate) fn peer_is_driven<T>(store: &StoreContextMut<'_, T>, end: EntryId) -> bool {
    let components = store.components();
    let Ok(shared) = components.tasks.end_shared(end) else {
        return false;
    };
    components.host_streams.driven_peer(shared, end).is_some()
}

/// Takes the reference out of `hold` (of the store `store`) for the
/// caller, who must either [`put_back`], [`moved`] or [`release`] it.
pub(crate) fn take(hold: &HostHold, store: StoreId) -> crate::Result<EntryId> {
    if hold.store != store {
        crate::bail!("the stream, future or error context belongs to another store");
    }
    hold.take()
        .map(EntryId::from_index)
        .ok_or_else(|| crate::format_err!("the stream, future or error context was closed or given away already"))
}

/// Gives a reference taken with [`take`] back to its hold.
pub(crate) fn put_back(hold: &HostHold, id: EntryId) {
    hold.put_back(id.index());
}

/// The host no longer holds the reference to `id` taken from a hold: it
/// moved into a component instance's table.
pub(crate) fn moved(components: &mut ComponentStore, id: EntryId) {
    components.host_streams.unhold(id);
}

/// Releases the host's reference to `id`: an end is dropped (the other
/// end's copy finishes `DROPPED`, and a driver of the other end ends), an
/// error context released.
pub(crate) fn release<T: 'static>(store: &mut StoreContextMut<'_, T>, id: EntryId) -> crate::Result<()> {
    let components = store.components_mut();
    components.host_streams.unhold(id);
    let tasks = &mut components.tasks;
    let shared = tasks.is_end(id).then(|| tasks.end_shared(id).ok()).flatten();
    let released = match shared {
        Some(_) => tasks.drop_host_end(id),
        None => tasks.release(id),
    };
    if let Some(shared) = shared {
        peer_dropped(store, shared)?;
    }
    released.map_err(trap)
}

/// Releases the references of holds dropped since the store last ran.
pub(crate) fn release_dropped<T: 'static>(store: &mut StoreContextMut<'_, T>) {
    loop {
        let dropped = std::mem::take(&mut *lock(&store.components().host_streams.queue));
        if dropped.is_empty() {
            return;
        }
        for id in dropped {
            let _ = release(store, EntryId::from_index(id));
        }
    }
}

/// Starts `driver` for the host end `end` (whose reference, counted as
/// the host's, it now holds): a host task polls it from the event loop's
/// next turn. On failure the end is dropped.
pub(crate) fn start_driver<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    end: EntryId,
    driver: BoxedDriver<T>,
) -> crate::Result<()> {
    let started = store
        .components()
        .tasks
        .end_shared(end)
        .map_err(trap)
        .and_then(|shared| Ok((shared, host::start_task(store, shim::<T>(end))?)));
    let (shared, task) = match started {
        Ok(s) => s,
        Err(e) => {
            let _ = release(store, end);
            return Err(e);
        }
    };
    let hs = &mut store.components_mut().host_streams;
    hs.drivers.insert(
        end,
        DriverSlot {
            shared,
            task,
            state: Some(Box::new(driver)),
            waker: None,
            outcome: None,
        },
    );
    Ok(())
}

/// The future of a driver's host task: polls the driver of `end` with the
/// store the event loop lends.
fn shim<T: 'static>(end: EntryId) -> HostFuture {
    Box::pin(std::future::poll_fn(move |cx| {
        weft_fiber::with_lent_store::<StoreInner<T>, _>(|inner| poll_driver(&mut StoreContextMut(inner), end, cx))
            .unwrap_or_else(|| {
                Poll::Ready(Err(crate::format_err!(
                    "internal error: a stream driver without its store"
                )))
            })
    }))
}

fn poll_driver<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    end: EntryId,
    cx: &mut Context<'_>,
) -> Poll<crate::Result<Vec<crate::component::Val>>> {
    let hs = &mut store.components_mut().host_streams;
    let Some(slot) = hs.drivers.get_mut(&end) else {
        // Ended from outside (its other end was dropped).
        return Poll::Ready(Ok(Vec::new()));
    };
    slot.waker = Some(cx.waker().clone());
    if let Some(outcome) = slot.outcome.take() {
        return report(store, end, outcome);
    }
    let Some(state) = slot.state.take() else {
        return Poll::Pending;
    };
    let driver = match state.downcast::<BoxedDriver<T>>() {
        Ok(d) => d,
        Err(_) => {
            return Poll::Ready(Err(crate::format_err!(
                "internal error: a driver of another store type"
            )))
        }
    };
    match poll_taken(store, end, driver, cx) {
        None => Poll::Pending,
        Some(outcome) => report(store, end, outcome),
    }
}

/// How a driver ended: its result, or its panic.
type Outcome = std::thread::Result<crate::Result<()>>;

/// Polls `driver`, taken out of the slot of `end`, catching a panic: back
/// in its slot while it is pending (`None`); dropped, with how it ended,
/// once it is done.
fn poll_taken<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    end: EntryId,
    mut driver: Box<BoxedDriver<T>>,
    cx: &mut Context<'_>,
) -> Option<Outcome> {
    let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        driver.poll(cx, store.as_context_mut(), end)
    }));
    let outcome = match polled {
        Ok(Poll::Pending) => {
            if let Some(slot) = store.components_mut().host_streams.drivers.get_mut(&end) {
                slot.state = Some(driver);
            }
            return None;
        }
        Ok(Poll::Ready(result)) => Ok(result),
        Err(panic) => Err(panic),
    };
    // The producer or consumer goes now (its `Drop` runs here, outside
    // the slot's borrow).
    drop(driver);
    Some(outcome)
}

/// The host task's answer for the driver of `end`, which ended with
/// `outcome`: its end is dropped, and a panic goes on.
fn report<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    end: EntryId,
    outcome: Outcome,
) -> Poll<crate::Result<Vec<crate::component::Val>>> {
    let finished = finish(store, end);
    match outcome {
        Ok(result) => Poll::Ready(result.and(finished).map(|()| Vec::new())),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

use crate::AsContextMut as _;

/// Ends the driver of `end` (its state dropped already): its end is
/// dropped.
fn finish<T: 'static>(store: &mut StoreContextMut<'_, T>, end: EntryId) -> crate::Result<()> {
    store.components_mut().host_streams.drivers.remove(&end);
    release(store, end)
}

/// An end of the stream or future `shared` was dropped: the drivers of the
/// other end end now (or, while one is being polled, when it next looks).
pub(crate) fn peer_dropped<T: 'static>(store: &mut StoreContextMut<'_, T>, shared: EntryId) -> crate::Result<()> {
    let hs = &mut store.components_mut().host_streams;
    if hs.drivers.is_empty() {
        return Ok(());
    }
    let ends: Vec<EntryId> = hs
        .drivers
        .iter()
        .filter(|(_, s)| s.shared == shared)
        .map(|(e, _)| *e)
        .collect();
    let mut result = Ok(());
    for end in ends {
        let hs = &mut store.components_mut().host_streams;
        let Some(slot) = hs.drivers.get_mut(&end) else {
            continue;
        };
        let Some(state) = slot.state.take() else {
            if let Some(w) = &slot.waker {
                w.wake_by_ref();
            }
            continue;
        };
        let task = slot.task;
        // The producer or consumer goes (its `Drop` runs here).
        drop(state);
        host::drop_task(store, task);
        result = result.and(finish(store, end));
    }
    result
}

/// A copy started or is being cancelled on `end`, a guest's end: when the
/// host drives the other end, its driver is polled now (as Wasmtime polls
/// a producer when a read starts), so what the producer or consumer has at
/// hand completes the copy before the guest goes on, without a turn of
/// the event loop. How the driver ends (its result, an error, a panic) is
/// kept for its host task, which reports it when the event loop next
/// polls it, exactly as if the loop had polled the driver itself. A
/// driver being polled further up the stack is woken instead.
pub(crate) fn poll_peer_now<T: 'static>(store: &mut StoreContextMut<'_, T>, end: EntryId) {
    let components = store.components_mut();
    if components.host_streams.drivers.is_empty() {
        return;
    }
    let Ok(shared) = components.tasks.end_shared(end) else {
        return;
    };
    let hs = &mut components.host_streams;
    let Some((peer, slot)) = hs
        .driven_peer(shared, end)
        .and_then(|peer| Some((peer, hs.drivers.get_mut(&peer)?)))
    else {
        return;
    };
    let waker = slot.waker.clone();
    let driver = match slot.state.take().map(|s| s.downcast::<BoxedDriver<T>>()) {
        Some(Ok(driver)) => driver,
        other => {
            // Being polled (or of another store type, which cannot be):
            // its host task looks again.
            if let Some(Err(state)) = other {
                slot.state = Some(state);
            }
            if let Some(w) = &waker {
                w.wake_by_ref();
            }
            return;
        }
    };
    // A driver whose host task was never polled has no waker yet; its
    // task is queued, and its first poll gives the producer the real one.
    let waker = waker.unwrap_or_else(|| Waker::noop().clone());
    let mut cx = Context::from_waker(&waker);
    // Done: its host task reports how it ended.
    if let Some(outcome) = poll_taken(store, peer, driver, &mut cx) {
        if let Some(slot) = store.components_mut().host_streams.drivers.get_mut(&peer) {
            slot.outcome = Some(outcome);
            waker.wake_by_ref();
        }
    }
}

/// The stream or future of the end handle `index` of `inst`, when a
/// driver of the host drives one of its ends (for a drop of the handle).
pub(crate) fn driven_shared<T>(
    store: &StoreContextMut<'_, T>,
    inst: weft_tasks::InstanceId,
    index: u32,
) -> Option<EntryId> {
    let components = store.components();
    if components.host_streams.drivers.is_empty() {
        return None;
    }
    let shared = components.tasks.end_shared_at(inst, index).ok()?;
    components
        .host_streams
        .drivers
        .values()
        .any(|s| s.shared == shared)
        .then_some(shared)
}

/// What the other end of the host end `end` is doing.
pub(crate) fn peer<T>(store: &StoreContextMut<'_, T>, end: EntryId) -> crate::Result<PeerCopy> {
    store.components().tasks.host_peer(end).map_err(trap)
}

/// Completes the other end's waiting copy after `n` elements moved.
pub(crate) fn advance<T>(store: &mut StoreContextMut<'_, T>, end: EntryId, n: u32) -> crate::Result<()> {
    store.components_mut().tasks.host_advance(end, n).map_err(trap)
}

/// Finishes the other end's cancelling copy with nothing moved in this
/// poll (`CANCELLED`).
pub(crate) fn cancelled<T>(store: &mut StoreContextMut<'_, T>, end: EntryId) -> crate::Result<()> {
    store.components_mut().tasks.host_cancelled(end).map_err(trap)
}

/// Takes the driver of the other end of `end` out of the store, if the
/// host drives it and it is not being polled: its end and host task go
/// (the driver itself is not dropped). Used to pipe a host producer into a
/// host consumer.
pub(crate) fn take_peer_driver<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    end: EntryId,
) -> crate::Result<Option<BoxedDriver<T>>> {
    let components = store.components_mut();
    let shared = components.tasks.end_shared(end).map_err(trap)?;
    let Some(peer) = components.host_streams.driven_peer(shared, end) else {
        return Ok(None);
    };
    let Some(slot) = components.host_streams.drivers.get_mut(&peer) else {
        return Ok(None);
    };
    if !slot.state.as_ref().is_some_and(|s| s.is::<BoxedDriver<T>>()) {
        return Ok(None);
    }
    let task = slot.task;
    let Some(Ok(driver)) = slot.state.take().map(|s| s.downcast::<BoxedDriver<T>>()) else {
        return Ok(None);
    };
    host::drop_task(store, task);
    finish(store, peer)?;
    Ok(Some(*driver))
}

/// Takes the driver of the other end of `end` out of the store, if the
/// host drives it and it is not being polled: its end and host task go
/// with it. Used to convert a producer back (`StreamReader::try_into`).
pub(crate) fn try_take_peer_producer<T: 'static>(
    store: &mut StoreContextMut<'_, T>,
    end: EntryId,
    ty: TypeId,
) -> crate::Result<Option<Box<dyn Any>>> {
    let components = store.components_mut();
    let shared = components.tasks.end_shared(end).map_err(trap)?;
    let Some(peer) = components.host_streams.driven_peer(shared, end) else {
        return Ok(None);
    };
    let Some(slot) = components.host_streams.drivers.get_mut(&peer) else {
        return Ok(None);
    };
    let Some(state) = slot.state.as_mut() else {
        return Ok(None);
    };
    let Some(driver) = state.downcast_mut::<BoxedDriver<T>>() else {
        return Ok(None);
    };
    let Some(converted) = driver.try_into_any(ty) else {
        return Ok(None);
    };
    let task = slot.task;
    slot.state = None;
    host::drop_task(store, task);
    finish(store, peer)?;
    Ok(Some(converted))
}
