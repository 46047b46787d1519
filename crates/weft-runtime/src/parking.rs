//! Where `memory.atomic.wait32`/`wait64` sleep until a
//! `memory.atomic.notify` of their address (or their timeout): one spot per
//! shared memory, waiters woken in the order they came, per address.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The waiters of one memory.
#[derive(Debug, Default)]
pub struct ParkingSpot {
    state: Mutex<Waiters>,
    woken: Condvar,
}

#[derive(Debug, Default)]
struct Waiters {
    /// The tickets of the waiters of each address, oldest first.
    by_addr: HashMap<u64, VecDeque<u64>>,
    /// Tickets notified and not yet seen by their waiter.
    notified: HashSet<u64>,
    next_ticket: u64,
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

impl ParkingSpot {
    /// Waits at `addr` if `still_expected()` (called under the spot's lock,
    /// so that a notify cannot slip in between the check and the wait)
    /// holds, until notified or `timeout` passes (`None`: forever).
    pub fn wait(&self, addr: u64, still_expected: impl FnOnce() -> bool, timeout: Option<Duration>) -> WaitResult {
        let mut w = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if !still_expected() {
            return WaitResult::Mismatch;
        }
        let ticket = w.next_ticket;
        w.next_ticket += 1;
        w.by_addr.entry(addr).or_default().push_back(ticket);
        let deadline = timeout.map(|t| Instant::now().checked_add(t));
        loop {
            if w.notified.remove(&ticket) {
                return WaitResult::Ok;
            }
            let remaining = match deadline {
                None => None,
                // A timeout too far to represent is forever.
                Some(None) => None,
                Some(Some(d)) => match d.checked_duration_since(Instant::now()) {
                    Some(r) if !r.is_zero() => Some(r),
                    _ => {
                        if let Some(q) = w.by_addr.get_mut(&addr) {
                            q.retain(|t| *t != ticket);
                            if q.is_empty() {
                                w.by_addr.remove(&addr);
                            }
                        }
                        return WaitResult::TimedOut;
                    }
                },
            };
            w = match remaining {
                None => self.woken.wait(w).unwrap_or_else(PoisonError::into_inner),
                Some(r) => self.woken.wait_timeout(w, r).unwrap_or_else(PoisonError::into_inner).0,
            };
        }
    }

    /// Wakes up to `count` waiters of `addr`, oldest first; returns how
    /// many.
    pub fn notify(&self, addr: u64, count: u32) -> u32 {
        let mut w = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(q) = w.by_addr.get_mut(&addr) else {
            return 0;
        };
        let n = q.len().min(count as usize);
        let tickets: Vec<u64> = q.drain(..n).collect();
        if q.is_empty() {
            w.by_addr.remove(&addr);
        }
        w.notified.extend(tickets);
        drop(w);
        if n > 0 {
            self.woken.notify_all();
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
}
