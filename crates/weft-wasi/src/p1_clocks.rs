//! `clock_*` and `random_get`.

use crate::ctx::WasiP1Ctx;
use crate::errno::{Errno, Result};
use crate::memory::GuestMemory;
use crate::types::clockid;
use rustix::time::{ClockId, Timespec};
use std::time::SystemTime;

fn timespec_nanos(t: Timespec) -> u64 {
    (t.tv_sec.max(0) as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(t.tv_nsec.max(0) as u64)
}

/// The host clock of a WASI clock id.
fn host_clock(id: u32) -> Result<ClockId> {
    Ok(match id {
        clockid::REALTIME => ClockId::Realtime,
        clockid::MONOTONIC => ClockId::Monotonic,
        clockid::PROCESS_CPUTIME_ID => ClockId::ProcessCPUTime,
        clockid::THREAD_CPUTIME_ID => ClockId::ThreadCPUTime,
        _ => return Err(Errno::Inval.into()),
    })
}

/// The current time of clock `id` in nanoseconds: since the Unix epoch for
/// the realtime clock, since an unspecified point for the others.
pub(crate) fn now(id: u32) -> Result<u64> {
    if id == clockid::REALTIME {
        let since = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_err(|_| Errno::Overflow)?;
        return u64::try_from(since.as_nanos()).map_err(|_| Errno::Overflow.into());
    }
    Ok(timespec_nanos(rustix::time::clock_gettime(host_clock(id)?)))
}

/// `clock_res_get`.
pub(crate) fn res_get(_ctx: &mut WasiP1Ctx, mem: &mut GuestMemory<'_>, id: u32, out: u32) -> Result<()> {
    let res = timespec_nanos(rustix::time::clock_getres(host_clock(id)?)).max(1);
    mem.write_u64(out, res)?;
    Ok(())
}

/// `clock_time_get` (the precision is a hint and is ignored).
pub(crate) fn time_get(
    _ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    id: u32,
    _precision: u64,
    out: u32,
) -> Result<()> {
    let t = now(id)?;
    mem.write_u64(out, t)?;
    Ok(())
}

/// `random_get`: bytes from the operating system's secure generator.
pub(crate) fn random_get(_ctx: &mut WasiP1Ctx, mem: &mut GuestMemory<'_>, buf: u32, len: u32) -> Result<()> {
    let buf = mem.slice_mut(buf, len)?;
    getrandom::fill(buf).map_err(|_| Errno::Io)?;
    Ok(())
}
