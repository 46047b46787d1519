//! The host's streams and futures in the API sequences: producers of known
//! sequences of items that a guest reads (and hashes), consumers that check
//! each item a guest writes against the sequence, and a consumer of a
//! future's value. Producers and consumers yield at random points, offer or
//! take random amounts (through their buffers or, for bytes, the guest's
//! memory directly), and stop early or end with their last items.

use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use weft::component::{
    ComponentType, Destination, FutureConsumer, Lift, Lower, Source, StreamConsumer, StreamProducer, StreamResult,
    VecBuffer,
};
use weft::StoreContextMut;

/// The item `i` of a sequence of `u32`s (as the guest's `$value` with
/// `wide` set).
pub(super) fn value32(i: u32) -> u32 {
    i.wrapping_mul(0x9e37_79b1).wrapping_add(1)
}

/// The item `i` of a sequence of bytes (as the guest's `$value`).
pub(super) fn value8(i: u32) -> u8 {
    (i.wrapping_mul(7).wrapping_add(3) & 0xff) as u8
}

/// The guest's `$mix`: an order-sensitive hash step (FNV-1a on words).
pub(super) fn mix(h: u32, x: u32) -> u32 {
    (h ^ x).wrapping_mul(0x0100_0193)
}

/// What the guest's `consume` returns after reading items `0..count` of
/// the sequence.
pub(super) fn sequence_hash(wide: bool, count: u32) -> u32 {
    let h = (0..count).fold(0x811c_9dc5, |h, i| {
        mix(h, if wide { value32(i) } else { u32::from(value8(i)) })
    });
    mix(h, count)
}

/// The items of the test's streams: `u32`s (moved as values through a
/// buffer) and bytes (also moved directly).
pub(super) trait Elem:
    Copy + PartialEq + std::fmt::Debug + Send + Sync + Unpin + Lower + Lift + ComponentType + 'static
{
    /// The item `i` of the sequence.
    fn at(i: u32) -> Self;

    /// Offers items `from..from + count` through `dest`: all of them in its
    /// buffer, or (bytes, `direct`) as many as the reader's memory takes.
    /// How many it offered.
    fn offer<'a, D: 'static>(
        dest: Destination<'a, Self, VecBuffer<Self>>,
        store: StoreContextMut<'a, D>,
        from: u32,
        count: u32,
        direct: bool,
    ) -> u32;

    /// Takes at most `max` items from `source` (bytes, `direct`: from the
    /// writer's memory).
    fn take<D: 'static>(
        source: Source<'_, Self>,
        store: StoreContextMut<'_, D>,
        max: usize,
        direct: bool,
    ) -> weft::Result<Vec<Self>>;
}

fn offer_buffered<'a, T: Elem>(mut dest: Destination<'a, T, VecBuffer<T>>, from: u32, count: u32) -> u32 {
    let items: Vec<T> = (from..from + count).map(T::at).collect();
    dest.set_buffer(items.into());
    count
}

fn take_buffered<T: Elem, D>(
    mut source: Source<'_, T>,
    mut store: StoreContextMut<'_, D>,
    max: usize,
) -> weft::Result<Vec<T>> {
    let mut items = Vec::with_capacity(max);
    source.read(&mut store, &mut items)?;
    Ok(items)
}

impl Elem for u32 {
    fn at(i: u32) -> u32 {
        value32(i)
    }
    fn offer<'a, D: 'static>(
        dest: Destination<'a, u32, VecBuffer<u32>>,
        _store: StoreContextMut<'a, D>,
        from: u32,
        count: u32,
        _direct: bool,
    ) -> u32 {
        offer_buffered(dest, from, count)
    }
    fn take<D: 'static>(
        source: Source<'_, u32>,
        store: StoreContextMut<'_, D>,
        max: usize,
        _direct: bool,
    ) -> weft::Result<Vec<u32>> {
        take_buffered(source, store, max)
    }
}

impl Elem for u8 {
    fn at(i: u32) -> u8 {
        value8(i)
    }
    fn offer<'a, D: 'static>(
        dest: Destination<'a, u8, VecBuffer<u8>>,
        store: StoreContextMut<'a, D>,
        from: u32,
        count: u32,
        direct: bool,
    ) -> u32 {
        if !direct {
            return offer_buffered(dest, from, count);
        }
        let mut out = dest.as_direct(store, count as usize);
        let room = out.remaining();
        let n = room.len().min(count as usize);
        for (k, b) in room[..n].iter_mut().enumerate() {
            *b = value8(from + k as u32);
        }
        out.mark_written(n);
        n as u32
    }
    fn take<D: 'static>(
        source: Source<'_, u8>,
        store: StoreContextMut<'_, D>,
        max: usize,
        direct: bool,
    ) -> weft::Result<Vec<u8>> {
        if !direct {
            return take_buffered(source, store, max);
        }
        let mut input = source.as_direct(store);
        let bytes = input.remaining();
        let n = bytes.len().min(max);
        let items = bytes[..n].to_vec();
        input.mark_read(n);
        Ok(items)
    }
}

/// When a producer or consumer waits: bit `k` of `pattern` set makes its
/// `k`th poll (mod 64) return `Pending` (waking itself), never twice in a
/// row; with `finish` set it stops instead (`Cancelled`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Pace {
    pub(super) pattern: u64,
    step: u32,
    waited: bool,
}

impl Pace {
    pub(super) fn new(pattern: u64) -> Pace {
        Pace {
            pattern,
            step: 0,
            waited: false,
        }
    }

    /// `Some(poll)` when this poll waits or, with `finish`, stops.
    fn wait<R>(&mut self, cx: &mut Context<'_>, finish: bool, cancelled: R) -> Option<Poll<weft::Result<R>>> {
        let bit = (self.pattern >> (self.step % 64)) & 1 == 1;
        self.step += 1;
        if self.waited || !bit {
            self.waited = false;
            return None;
        }
        self.waited = true;
        if finish {
            return Some(Poll::Ready(Ok(cancelled)));
        }
        cx.waker().wake_by_ref();
        Some(Poll::Pending)
    }
}

/// Produces items `0..n` of the sequence, at most `per_poll` per poll;
/// with `last_dropped` its last items come with `Dropped`.
pub(super) struct SeqProducer<T> {
    pub(super) next: u32,
    pub(super) n: u32,
    pub(super) per_poll: u32,
    pub(super) pace: Pace,
    pub(super) direct: bool,
    pub(super) last_dropped: bool,
    pub(super) _marker: PhantomData<fn() -> T>,
}

impl<T: Elem, D: 'static> StreamProducer<D> for SeqProducer<T> {
    type Item = T;
    type Buffer = VecBuffer<T>;

    fn poll_produce<'a>(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        store: StoreContextMut<'a, D>,
        destination: Destination<'a, T, VecBuffer<T>>,
        finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        let me = self.get_mut();
        if me.next >= me.n {
            return Poll::Ready(Ok(StreamResult::Dropped));
        }
        if let Some(poll) = me.pace.wait(cx, finish, StreamResult::Cancelled) {
            return poll;
        }
        let count = me.per_poll.max(1).min(me.n - me.next);
        me.next += T::offer(destination, store, me.next, count, me.direct);
        if me.next >= me.n && me.last_dropped {
            Poll::Ready(Ok(StreamResult::Dropped))
        } else {
            Poll::Ready(Ok(StreamResult::Completed))
        }
    }
}

/// What a consumer saw: the items it took (checked against the sequence),
/// the first item that was wrong, whether it stopped itself and whether it
/// is gone (dropped by the runtime).
#[derive(Debug, Default)]
pub(super) struct Log {
    pub(super) got: u32,
    pub(super) bad: Option<String>,
    pub(super) stopped: bool,
    pub(super) ended: bool,
}

/// Takes items of the sequence, at most `chunk` per poll, and stops
/// (`Dropped`) once it has `stop_after`.
pub(super) struct SeqConsumer<T> {
    pub(super) chunk: usize,
    pub(super) stop_after: u32,
    pub(super) pace: Pace,
    pub(super) direct: bool,
    pub(super) log: Arc<Mutex<Log>>,
    pub(super) _marker: PhantomData<fn() -> T>,
}

impl<T> Drop for SeqConsumer<T> {
    fn drop(&mut self) {
        self.log.lock().unwrap().ended = true;
    }
}

impl<T: Elem, D: 'static> StreamConsumer<D> for SeqConsumer<T> {
    type Item = T;

    fn poll_consume(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        store: StoreContextMut<D>,
        source: Source<'_, T>,
        finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        let me = self.get_mut();
        if let Some(poll) = me.pace.wait(cx, finish, StreamResult::Cancelled) {
            return poll;
        }
        let items = T::take(source, store, me.chunk.max(1), me.direct)?;
        let mut log = me.log.lock().unwrap();
        for item in items {
            if item != T::at(log.got) && log.bad.is_none() {
                log.bad = Some(format!("item {} is {item:?}, not {:?}", log.got, T::at(log.got)));
            }
            log.got += 1;
        }
        if log.got >= me.stop_after {
            log.stopped = true;
            return Poll::Ready(Ok(StreamResult::Dropped));
        }
        Poll::Ready(Ok(StreamResult::Completed))
    }
}

/// Takes a future's value and checks it is `expect`.
pub(super) struct ValueConsumer {
    pub(super) expect: u32,
    pub(super) pace: Pace,
    pub(super) log: Arc<Mutex<Log>>,
}

impl Drop for ValueConsumer {
    fn drop(&mut self) {
        self.log.lock().unwrap().ended = true;
    }
}

impl<D: 'static> FutureConsumer<D> for ValueConsumer {
    type Item = u32;

    fn poll_consume(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut store: StoreContextMut<D>,
        mut source: Source<'_, u32>,
        finish: bool,
    ) -> Poll<weft::Result<()>> {
        let me = self.get_mut();
        if let Some(Poll::Pending) = me.pace.wait(cx, finish, ()) {
            return Poll::Pending;
        }
        let mut value = None;
        source.read(&mut store, &mut value)?;
        let mut log = me.log.lock().unwrap();
        match value {
            Some(v) if v == me.expect => log.got += 1,
            Some(v) => log.bad = Some(format!("the future's value is {v}, not {}", me.expect)),
            None => log.bad = Some("the future had no value".to_string()),
        }
        Poll::Ready(Ok(()))
    }
}
