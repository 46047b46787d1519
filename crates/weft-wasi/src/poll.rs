//! `poll_oneoff`: waits for clocks and for descriptors to become readable
//! or writable.
//!
//! Files, directories, pipes in memory and output streams are always ready,
//! as `poll(2)` has it for regular files. The host's stdin and sockets are
//! waited for with `poll(2)`; clocks bound the wait.

use crate::ctx::{Kind, WasiP1Ctx};
use crate::errno::{Errno, Result};
use crate::memory::GuestMemory;
use crate::p1_clocks as clocks;
use crate::types::{
    clockid, eventtype, rights, EVENT_FD_READWRITE_HANGUP, EVENT_SIZE, SUBSCRIPTION_CLOCK_ABSTIME, SUBSCRIPTION_SIZE,
};
use rustix::event::{PollFd, PollFlags};
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

/// The host's stdin, kept so that its descriptor can be borrowed for a
/// `poll(2)`.
static HOST_STDIN: LazyLock<std::io::Stdin> = LazyLock::new(std::io::stdin);

enum Sub {
    /// Fires `remaining` nanoseconds after the call began, or at once with
    /// an error.
    Clock(Result<u64, Errno>),
    Fd {
        fd: u32,
        read: bool,
    },
}

struct Event {
    userdata: u64,
    error: Errno,
    ty: u8,
    nbytes: u64,
    flags: u16,
}

impl Event {
    fn encode(&self) -> [u8; EVENT_SIZE as usize] {
        let mut out = [0u8; EVENT_SIZE as usize];
        out[0..8].copy_from_slice(&self.userdata.to_le_bytes());
        out[8..10].copy_from_slice(&(self.error as u16).to_le_bytes());
        out[10] = self.ty;
        out[16..24].copy_from_slice(&self.nbytes.to_le_bytes());
        out[24..26].copy_from_slice(&self.flags.to_le_bytes());
        out
    }
}

/// How long until a clock subscription fires.
fn clock_remaining(id: u32, timeout: u64, flags: u16) -> Result<u64, Errno> {
    if flags & !SUBSCRIPTION_CLOCK_ABSTIME != 0 {
        return Err(Errno::Inval);
    }
    // CPU-time clocks cannot be waited for.
    if id != clockid::REALTIME && id != clockid::MONOTONIC {
        return Err(Errno::Inval);
    }
    if flags & SUBSCRIPTION_CLOCK_ABSTIME != 0 {
        let now = clocks::now(id).map_err(|e| match e {
            crate::errno::Error::Errno(e) => e,
            crate::errno::Error::Trap(_) => Errno::Io,
        })?;
        Ok(timeout.saturating_sub(now))
    } else {
        Ok(timeout)
    }
}

/// Whether a descriptor is ready now (`Some`) or must be waited for with
/// `poll(2)` (`None`), for reading or writing.
fn fd_ready(kind: &Kind, read: bool) -> Option<Result<u64, Errno>> {
    match kind {
        Kind::File(f) => {
            if !read {
                return Some(Ok(0));
            }
            let available = (|| -> std::io::Result<u64> {
                let len = f.metadata()?.len();
                let pos = rustix::fs::seek(f, rustix::fs::SeekFrom::Current(0))?;
                Ok(len.saturating_sub(pos))
            })();
            Some(Ok(available.unwrap_or(0)))
        }
        Kind::Dir(_) => Some(Err(Errno::Badf)),
        Kind::Stdin(s) if read => {
            if s.host_stdin() {
                None
            } else {
                Some(Ok(0))
            }
        }
        Kind::Stdout(_) if !read => Some(Ok(0)),
        Kind::Stdin(_) | Kind::Stdout(_) => Some(Err(Errno::Badf)),
        Kind::Socket(_) | Kind::Listener(_) => None,
    }
}

/// The host descriptor to `poll(2)` for a descriptor that can block.
fn host_fd(kind: &Kind) -> Option<BorrowedFd<'_>> {
    match kind {
        Kind::Socket(s) => Some(s.as_fd()),
        Kind::Listener(l) => Some(l.as_fd()),
        Kind::Stdin(_) => Some(HOST_STDIN.as_fd()),
        _ => None,
    }
}

/// A `poll_oneoff` between its two halves: what is ready, and how long to
/// sleep before the clocks are looked at.
pub(crate) struct PollPlan {
    subs: Vec<(u64, u8, Sub)>,
    events: Vec<Event>,
    start: Instant,
    events_ptr: u32,
    nevents: u32,
    /// How long to sleep for the earliest clock, when nothing else is
    /// awaited.
    pub(crate) sleep: Option<Duration>,
}

/// `poll_oneoff`: [`prepare`], sleep, [`finish`].
pub(crate) fn poll_oneoff(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    subs_ptr: u32,
    events_ptr: u32,
    nsubs: u32,
    nevents: u32,
) -> Result<()> {
    let plan = prepare(ctx, mem, subs_ptr, events_ptr, nsubs, nevents)?;
    if let Some(d) = plan.sleep {
        std::thread::sleep(d);
    }
    finish(plan, mem)
}

/// The first half of `poll_oneoff`: reads the subscriptions and finds the
/// descriptors that are ready. Host descriptors (stdin, sockets) are waited
/// for here with `poll(2)`, bounded by the earliest clock; a wait for clocks
/// alone is left to the caller as [`PollPlan::sleep`], so that an async
/// host can await it instead of blocking.
pub(crate) fn prepare(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    subs_ptr: u32,
    events_ptr: u32,
    nsubs: u32,
    nevents: u32,
) -> Result<PollPlan> {
    if nsubs == 0 {
        return Err(Errno::Inval.into());
    }
    let raw = mem.slice(subs_ptr, nsubs.checked_mul(SUBSCRIPTION_SIZE).ok_or(Errno::Fault)?)?;
    mem.slice(events_ptr, nsubs.checked_mul(EVENT_SIZE).ok_or(Errno::Fault)?)?;
    mem.slice(nevents, 4)?;
    let start = Instant::now();

    let mut subs = Vec::with_capacity(nsubs as usize);
    for s in raw.chunks_exact(SUBSCRIPTION_SIZE as usize) {
        let u64_at = |i: usize| u64::from_le_bytes(s[i..i + 8].try_into().unwrap_or_default());
        let u32_at = |i: usize| u32::from_le_bytes(s[i..i + 4].try_into().unwrap_or_default());
        let userdata = u64_at(0);
        let sub = match s[8] {
            eventtype::CLOCK => {
                let flags = u16::from_le_bytes([s[40], s[41]]);
                Sub::Clock(clock_remaining(u32_at(16), u64_at(24), flags))
            }
            eventtype::FD_READ => Sub::Fd {
                fd: u32_at(16),
                read: true,
            },
            eventtype::FD_WRITE => Sub::Fd {
                fd: u32_at(16),
                read: false,
            },
            _ => return Err(Errno::Inval.into()),
        };
        subs.push((userdata, s[8], sub));
    }

    let mut events = Vec::new();
    let mut waiting: Vec<(usize, BorrowedFd<'_>, bool)> = Vec::new();
    let mut timeout: Option<u64> = None;
    for (i, (userdata, ty, sub)) in subs.iter().enumerate() {
        let event = |error: Errno, nbytes: u64| Event {
            userdata: *userdata,
            error,
            ty: *ty,
            nbytes,
            flags: 0,
        };
        match sub {
            Sub::Clock(Err(e)) => events.push(event(*e, 0)),
            Sub::Clock(Ok(remaining)) => timeout = Some(timeout.map_or(*remaining, |t| t.min(*remaining))),
            Sub::Fd { fd, read } => match ctx.table.entries.get(fd) {
                None => events.push(event(Errno::Badf, 0)),
                Some(entry) if entry.base & rights::POLL_FD_READWRITE == 0 => events.push(event(Errno::Notcapable, 0)),
                Some(entry) => match fd_ready(&entry.kind, *read) {
                    Some(Ok(nbytes)) => events.push(event(Errno::Success, nbytes)),
                    Some(Err(e)) => events.push(event(e, 0)),
                    None => match host_fd(&entry.kind) {
                        Some(h) => waiting.push((i, h, *read)),
                        None => events.push(event(Errno::Success, 0)),
                    },
                },
            },
        }
    }

    // Wait only when nothing is ready yet.
    let wait_ns = if events.is_empty() { timeout } else { Some(0) };
    if !waiting.is_empty() {
        let mut fds: Vec<PollFd<'_>> = waiting
            .iter()
            .map(|(_, h, read)| {
                let flags = if *read { PollFlags::IN } else { PollFlags::OUT };
                PollFd::from_borrowed_fd(*h, flags)
            })
            .collect();
        loop {
            let elapsed = start.elapsed().as_nanos() as u64;
            let ts = wait_ns.map(|ns| {
                let left = ns.saturating_sub(elapsed);
                rustix::time::Timespec {
                    tv_sec: (left / 1_000_000_000) as i64,
                    tv_nsec: (left % 1_000_000_000) as _,
                }
            });
            match rustix::event::poll(&mut fds, ts.as_ref()) {
                Ok(_) => break,
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(std::io::Error::from(e).into()),
            }
        }
        for ((i, _, _), pfd) in waiting.iter().zip(&fds) {
            let rev = pfd.revents();
            if rev.is_empty() {
                continue;
            }
            let (userdata, ty, _) = &subs[*i];
            let error = if rev.contains(PollFlags::NVAL) {
                Errno::Badf
            } else {
                Errno::Success
            };
            let flags = if rev.contains(PollFlags::HUP) {
                EVENT_FD_READWRITE_HANGUP
            } else {
                0
            };
            events.push(Event {
                userdata: *userdata,
                error,
                ty: *ty,
                nbytes: 0,
                flags,
            });
        }
    }
    drop(waiting);
    let sleep = match wait_ns {
        Some(ns) if events.is_empty() => {
            Some(Duration::from_nanos(ns).saturating_sub(start.elapsed())).filter(|d| !d.is_zero())
        }
        _ => None,
    };
    Ok(PollPlan {
        subs,
        events,
        start,
        events_ptr,
        nevents,
        sleep,
    })
}

/// The second half of `poll_oneoff`: every clock whose time has come
/// fires, and the events are written.
pub(crate) fn finish(plan: PollPlan, mem: &mut GuestMemory<'_>) -> Result<()> {
    let PollPlan {
        subs,
        mut events,
        start,
        events_ptr,
        nevents,
        ..
    } = plan;
    let elapsed = start.elapsed().as_nanos() as u64;
    for (userdata, ty, sub) in &subs {
        if let Sub::Clock(Ok(remaining)) = sub {
            if *remaining <= elapsed {
                events.push(Event {
                    userdata: *userdata,
                    error: Errno::Success,
                    ty: *ty,
                    nbytes: 0,
                    flags: 0,
                });
            }
        }
    }

    let mut out = Vec::with_capacity(events.len() * EVENT_SIZE as usize);
    for e in &events {
        out.extend_from_slice(&e.encode());
    }
    mem.write(events_ptr, &out)?;
    mem.write_u32(nevents, events.len() as u32)?;
    Ok(())
}
