//! `wasi:clocks`: the wall clock and the monotonic clock with its timers.

use super::bindings::wasi::clocks::{monotonic_clock, wall_clock};
use super::io::{subscribe, Deadline, DynPollable};
use super::WasiCtxView;
use std::time::{Duration, Instant, SystemTime};
use weft::component::Resource;

/// A clock of the time of day (Wasmtime's `HostWallClock`).
pub trait HostWallClock: Send {
    /// The clock's resolution.
    fn resolution(&self) -> Duration;
    /// The time since the Unix epoch.
    fn now(&self) -> Duration;
}

/// A clock that never goes back (Wasmtime's `HostMonotonicClock`), in
/// nanoseconds.
pub trait HostMonotonicClock: Send {
    /// The clock's resolution in nanoseconds.
    fn resolution(&self) -> u64;
    /// Nanoseconds since a fixed, unspecified point.
    fn now(&self) -> u64;
}

/// The host's wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct WallClock;

impl WallClock {
    /// The host's wall clock.
    pub fn new() -> WallClock {
        WallClock
    }
}

impl HostWallClock for WallClock {
    fn resolution(&self) -> Duration {
        Duration::from_nanos(1)
    }
    fn now(&self) -> Duration {
        // A host clock before 1970 reads as the epoch.
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
    }
}

/// The host's monotonic clock, counting from its creation.
#[derive(Debug, Clone, Copy)]
pub struct MonotonicClock {
    start: Instant,
}

impl MonotonicClock {
    /// A clock that reads 0 now.
    pub fn new() -> MonotonicClock {
        MonotonicClock { start: Instant::now() }
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        MonotonicClock::new()
    }
}

impl HostMonotonicClock for MonotonicClock {
    fn resolution(&self) -> u64 {
        1
    }
    fn now(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

impl wall_clock::Host for WasiCtxView<'_> {
    fn now(&mut self) -> anyhow::Result<wall_clock::Datetime> {
        let d = self.ctx.wall_clock.now();
        Ok(wall_clock::Datetime {
            seconds: d.as_secs(),
            nanoseconds: d.subsec_nanos(),
        })
    }
    fn resolution(&mut self) -> anyhow::Result<wall_clock::Datetime> {
        let d = self.ctx.wall_clock.resolution();
        Ok(wall_clock::Datetime {
            seconds: d.as_secs(),
            nanoseconds: d.subsec_nanos(),
        })
    }
}

impl monotonic_clock::Host for WasiCtxView<'_> {
    fn now(&mut self) -> anyhow::Result<u64> {
        Ok(self.ctx.monotonic_clock.now())
    }
    fn resolution(&mut self) -> anyhow::Result<u64> {
        Ok(self.ctx.monotonic_clock.resolution())
    }
    fn subscribe_instant(&mut self, when: u64) -> anyhow::Result<Resource<DynPollable>> {
        let now = self.ctx.monotonic_clock.now();
        let deadline = self
            .table
            .push(Deadline::after(Duration::from_nanos(when.saturating_sub(now)))?)?;
        subscribe(self.table, deadline)
    }
    fn subscribe_duration(&mut self, when: u64) -> anyhow::Result<Resource<DynPollable>> {
        let deadline = self.table.push(Deadline::after(Duration::from_nanos(when))?)?;
        subscribe(self.table, deadline)
    }
}
