//! `wasi:clocks@0.3`: the monotonic clock with its waits, and the system
//! clock, over the context's clocks (the ones WASI 0.2 uses).

use super::bindings::wasi::clocks::{monotonic_clock, system_clock, types};
use crate::clocks::{WasiClocks, WasiClocksCtxView};
use crate::sleep::Sleep;
use std::time::Duration;
use weft::component::Accessor;

impl types::Host for WasiClocksCtxView<'_> {}

impl monotonic_clock::Host for WasiClocksCtxView<'_> {
    fn now(&mut self) -> weft::Result<u64> {
        Ok(self.ctx.monotonic_clock.now())
    }
    fn get_resolution(&mut self) -> weft::Result<u64> {
        Ok(self.ctx.monotonic_clock.resolution())
    }
}

impl<T: 'static> monotonic_clock::HostWithStore<T> for WasiClocks {
    async fn wait_until(accessor: &Accessor<T, Self>, when: u64) -> weft::Result<()> {
        let now = accessor.with(|mut access| access.get().ctx.monotonic_clock.now());
        Sleep::new(Duration::from_nanos(when.saturating_sub(now))).await;
        Ok(())
    }
    async fn wait_for(_accessor: &Accessor<T, Self>, how_long: u64) -> weft::Result<()> {
        Sleep::new(Duration::from_nanos(how_long)).await;
        Ok(())
    }
}

impl TryFrom<std::time::SystemTime> for system_clock::Instant {
    type Error = crate::clocks::DatetimeError;
    /// The instant of a system time (Wasmtime 48's conversion); the error
    /// for a time before the Unix epoch or whose seconds overflow `s64`.
    fn try_from(t: std::time::SystemTime) -> Result<Self, Self::Error> {
        instant(crate::clocks::since_epoch(t)?)
    }
}

/// The instant `d` after the Unix epoch; the error if its seconds
/// overflow `s64`.
fn instant(d: Duration) -> Result<system_clock::Instant, crate::clocks::DatetimeError> {
    Ok(system_clock::Instant {
        seconds: i64::try_from(d.as_secs())?,
        nanoseconds: d.subsec_nanos(),
    })
}

impl system_clock::Host for WasiClocksCtxView<'_> {
    fn now(&mut self) -> weft::Result<system_clock::Instant> {
        // A wall clock of the embedder's that reads beyond `s64` seconds
        // is an error of the host, not the guest's.
        let d = self.ctx.wall_clock.now();
        instant(d).map_err(|e| anyhow::Error::new(e).context("wasi:clocks/system-clock.now"))
    }
    fn get_resolution(&mut self) -> weft::Result<u64> {
        let d = self.ctx.wall_clock.resolution();
        Ok(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
    }
}
