//! `wasi:clocks`: the host's clocks and the part of the context the
//! `wasi:clocks` interfaces see, under the module path Wasmtime 48 gives
//! them (`wasmtime_wasi::clocks`).

use std::time::{Duration, Instant, SystemTime};
use weft::component::{HasData, ResourceTable};

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

/// A time that a WASI date-time cannot hold (Wasmtime's
/// `DatetimeError`): one before the Unix epoch, or one whose seconds
/// overflow the WIT type. The `TryFrom<SystemTime>` conversions of
/// `p2`'s `wall-clock.datetime` and `p3`'s `system-clock.instant` give
/// it.
#[derive(Debug)]
pub struct DatetimeError(DatetimeErrorKind);

/// What was wrong with the time.
#[derive(Debug)]
enum DatetimeErrorKind {
    /// Before the Unix epoch, by the duration.
    BeforeEpoch(Duration),
    /// A count that does not fit the date-time's field.
    OutOfRange,
}

impl std::fmt::Display for DatetimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            DatetimeErrorKind::BeforeEpoch(d) => {
                write!(
                    f,
                    "the time is {d:?} before the Unix epoch, which a WASI date-time cannot hold"
                )
            }
            DatetimeErrorKind::OutOfRange => {
                f.write_str("the time is too far from the Unix epoch for a WASI date-time")
            }
        }
    }
}

impl std::error::Error for DatetimeError {}

impl From<std::time::SystemTimeError> for DatetimeError {
    fn from(e: std::time::SystemTimeError) -> Self {
        DatetimeError(DatetimeErrorKind::BeforeEpoch(e.duration()))
    }
}

impl From<std::num::TryFromIntError> for DatetimeError {
    fn from(_: std::num::TryFromIntError) -> Self {
        DatetimeError(DatetimeErrorKind::OutOfRange)
    }
}

/// The time since the Unix epoch of `t`; the error if it is before.
pub(crate) fn since_epoch(t: SystemTime) -> Result<Duration, DatetimeError> {
    Ok(t.duration_since(SystemTime::UNIX_EPOCH)?)
}

/// The host's monotonic clock, boxed (the default of [`WasiClocksCtx`]).
pub fn monotonic_clock() -> Box<dyn HostMonotonicClock + Send> {
    Box::new(MonotonicClock::new())
}

/// The host's wall clock, boxed (the default of [`WasiClocksCtx`]).
pub fn wall_clock() -> Box<dyn HostWallClock + Send> {
    Box::new(WallClock::new())
}

/// The [`HasData`] type of the `wasi:clocks` host functions: they see a
/// [`WasiClocksCtxView`].
pub struct WasiClocks;

impl HasData for WasiClocks {
    type Data<'a> = WasiClocksCtxView<'a>;
}

/// The part of the WASI context `wasi:clocks` sees: the wall clock and
/// the monotonic clock (by default the host's, [`wall_clock`] and
/// [`monotonic_clock`]).
pub struct WasiClocksCtx {
    pub(crate) wall_clock: Box<dyn HostWallClock + Send>,
    pub(crate) monotonic_clock: Box<dyn HostMonotonicClock + Send>,
}

impl Default for WasiClocksCtx {
    fn default() -> Self {
        WasiClocksCtx {
            wall_clock: wall_clock(),
            monotonic_clock: monotonic_clock(),
        }
    }
}

impl std::fmt::Debug for WasiClocksCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasiClocksCtx").finish_non_exhaustive()
    }
}

/// What the `wasi:clocks` host functions reach in the store's data.
pub struct WasiClocksCtxView<'a> {
    /// The `wasi:clocks` part of the context.
    pub ctx: &'a mut WasiClocksCtx,
    /// The table of the guest's resources (timers' pollables).
    pub table: &'a mut ResourceTable,
}

/// Implemented by a store's data to lend `wasi:clocks` its context and
/// table. Every [`crate::WasiView`] implements it.
pub trait WasiClocksView: Send {
    /// The `wasi:clocks` context and the resource table.
    fn clocks(&mut self) -> WasiClocksCtxView<'_>;
}
