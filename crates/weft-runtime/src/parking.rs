//! Where `memory.atomic.wait32`/`wait64` sleep until a
//! `memory.atomic.notify` of their address (or their timeout): one spot per
//! shared memory, waiters woken in the order they came, per address.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// The waiters of one memory.
#[derive(Debug, Default)]
pub struct ParkingSpot {
    /// The waiters of each address, oldest first.
    waiters: Mutex<HashMap<u64, VecDeque<Arc<Waiter>>>>,
}

/// One waiting thread: a notify sets `notified` and unparks `thread`, which
/// sees the flag without taking the spot's lock (which the notifier, about
/// to wait in its turn, may hold).
#[derive(Debug)]
struct Waiter {
    thread: Thread,
    notified: AtomicBool,
}

/// How a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitResult {
    /// A notify woke it (0).
    Ok = 0,
    /// The value was not the expected one (1).
    Mismatch = 1,
    /// The timeout passed (2).
    TimedOut = 2,
}

/// How many times a waiter checks for its notify, with a pause between
/// checks, before it yields ([`spin_until`]).
const SPINS: u32 = 64;

/// How many times a waiter then yields its CPU, checking for its notify
/// each time, before it goes to sleep.
const YIELDS: u32 = 4;

/// The shortest timeout a waiter spins for: a wait shorter than this goes
/// to sleep at once.
const SPIN_AT_LEAST: Duration = Duration::from_micros(50);

/// Waits a little for `flag`, awake: true if it was set.
///
/// A notify often follows within microseconds (two threads handing work
/// back and forth), and a waiter that went to sleep costs its notifier a
/// system call and itself a wake-up by the scheduler, several microseconds
/// on the machine measured. The pauses let a notifier on another CPU get
/// there first; the yields, one on the same CPU.
fn spin_until(flag: &AtomicBool) -> bool {
    for _ in 0..SPINS {
        if flag.load(Ordering::Acquire) {
            return true;
        }
        std::hint::spin_loop();
    }
    for _ in 0..YIELDS {
        if flag.load(Ordering::Acquire) {
            return true;
        }
        std::thread::yield_now();
    }
    flag.load(Ordering::Acquire)
}

impl ParkingSpot {
    /// Waits at `addr` if `still_expected()` (called under the spot's lock,
    /// so that a notify cannot slip in between the check and the wait)
    /// holds, until notified or `timeout` passes (`None`: forever). The
    /// waiter stays awake for a few microseconds first ([`spin_until`]),
    /// unless its timeout is shorter than [`SPIN_AT_LEAST`].
    pub fn wait(&self, addr: u64, still_expected: impl FnOnce() -> bool, timeout: Option<Duration>) -> WaitResult {
        let me = {
            let mut waiters = self.waiters.lock().unwrap_or_else(PoisonError::into_inner);
            if !still_expected() {
                return WaitResult::Mismatch;
            }
            let me = Arc::new(Waiter {
                thread: std::thread::current(),
                notified: AtomicBool::new(false),
            });
            waiters.entry(addr).or_default().push_back(me.clone());
            me
        };
        // A timeout too far to represent is forever.
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        if timeout.is_none_or(|t| t >= SPIN_AT_LEAST) && spin_until(&me.notified) {
            return WaitResult::Ok;
        }
        loop {
            if me.notified.load(Ordering::Acquire) {
                return WaitResult::Ok;
            }
            let Some(deadline) = deadline else {
                // `park` may return without an unpark: the loop checks again.
                std::thread::park();
                continue;
            };
            match deadline.checked_duration_since(Instant::now()) {
                Some(r) if !r.is_zero() => std::thread::park_timeout(r),
                _ => return self.time_out(addr, &me),
            }
        }
    }

    /// Ends the wait of `me` at `addr` whose time is up: it leaves the
    /// queue, unless a notify took it out first (which then counts).
    fn time_out(&self, addr: u64, me: &Arc<Waiter>) -> WaitResult {
        let mut waiters = self.waiters.lock().unwrap_or_else(PoisonError::into_inner);
        if me.notified.load(Ordering::Acquire) {
            return WaitResult::Ok;
        }
        if let Some(q) = waiters.get_mut(&addr) {
            q.retain(|w| !Arc::ptr_eq(w, me));
            if q.is_empty() {
                waiters.remove(&addr);
            }
        }
        WaitResult::TimedOut
    }

    /// Wakes up to `count` waiters of `addr`, oldest first; returns how
    /// many.
    pub fn notify(&self, addr: u64, count: u32) -> u32 {
        let mut waiters = self.waiters.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(q) = waiters.get_mut(&addr) else {
            return 0;
        };
        let n = q.len().min(count as usize);
        // Flagged under the lock, so that a waiter timing out (which looks
        // under it) either was woken or is still in the queue.
        for w in q.drain(..n) {
            w.notified.store(true, Ordering::Release);
            w.thread.unpark();
        }
        if q.is_empty() {
            waiters.remove(&addr);
        }
        n as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn waits_time_out_mismatch_and_are_woken() {
        let spot = Arc::new(ParkingSpot::default());
        assert_eq!(spot.wait(8, || false, None), WaitResult::Mismatch);
        assert_eq!(spot.wait(8, || true, Some(Duration::ZERO)), WaitResult::TimedOut);
        assert_eq!(spot.notify(8, 1), 0, "a timed-out waiter is gone");
        let waiter = {
            let spot = spot.clone();
            std::thread::spawn(move || spot.wait(16, || true, None))
        };
        while spot.notify(16, 1) == 0 {
            std::thread::yield_now();
        }
        assert_eq!(waiter.join().unwrap(), WaitResult::Ok);
    }

    #[test]
    fn a_wait_with_time_left_times_out_and_leaves_the_queue() {
        let spot = ParkingSpot::default();
        let start = Instant::now();
        assert_eq!(
            spot.wait(8, || true, Some(Duration::from_millis(20))),
            WaitResult::TimedOut
        );
        assert!(start.elapsed() >= Duration::from_millis(20));
        assert_eq!(spot.notify(8, 1), 0, "the timed-out waiter left");
    }

    #[test]
    fn one_notify_wakes_several_waiters() {
        let spot = Arc::new(ParkingSpot::default());
        let waiters: Vec<_> = (0..3)
            .map(|_| {
                let spot = spot.clone();
                std::thread::spawn(move || spot.wait(24, || true, None))
            })
            .collect();
        // Each notify wakes those waiting by then; all three are woken in
        // the end, none twice (a fourth notify finds nobody).
        let mut woken = 0;
        while woken < 3 {
            woken += spot.notify(24, 3);
            std::thread::yield_now();
        }
        assert_eq!(woken, 3);
        for w in waiters {
            assert_eq!(w.join().unwrap(), WaitResult::Ok);
        }
        assert_eq!(spot.notify(24, 1), 0);
    }
}
