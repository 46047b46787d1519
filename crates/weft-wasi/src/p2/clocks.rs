//! `wasi:clocks`: the wall clock and the monotonic clock with its timers.

use super::bindings::wasi::clocks::{monotonic_clock, wall_clock};
use super::io::{subscribe, Deadline, DynPollable};
use crate::clocks::WasiClocksCtxView;
use std::time::Duration;
use weft::component::Resource;

impl wall_clock::Host for WasiClocksCtxView<'_> {
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

impl TryFrom<std::time::SystemTime> for wall_clock::Datetime {
    type Error = crate::clocks::DatetimeError;
    /// The date-time of a system time (Wasmtime 48's conversion); the
    /// error for a time before the Unix epoch.
    fn try_from(t: std::time::SystemTime) -> Result<Self, Self::Error> {
        let d = crate::clocks::since_epoch(t)?;
        Ok(wall_clock::Datetime {
            seconds: d.as_secs(),
            nanoseconds: d.subsec_nanos(),
        })
    }
}

impl monotonic_clock::Host for WasiClocksCtxView<'_> {
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
