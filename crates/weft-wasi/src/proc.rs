//! Arguments, environment, `proc_exit`, `proc_raise` and `sched_yield`.

use crate::ctx::WasiP1Ctx;
use crate::errno::{Errno, Error, Result};
use crate::memory::GuestMemory;

/// The error a guest's `proc_exit` ends its call with: downcast the error of
/// the call to this to get the exit status.
///
/// ```
/// # fn status(err: anyhow::Error) -> i32 {
/// match err.downcast_ref::<weft_wasi::I32Exit>() {
///     Some(exit) => exit.0,
///     None => 134,
/// }
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct I32Exit(pub i32);

impl std::fmt::Display for I32Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Exited with i32 exit status {}", self.0)
    }
}

impl std::error::Error for I32Exit {}

/// Writes NUL-terminated `strings` to `buf` and pointers to them to `ptrs`.
fn write_strings(mem: &mut GuestMemory<'_>, strings: &[Vec<u8>], ptrs: u32, buf: u32) -> Result<()> {
    let mut at = buf;
    for (i, s) in strings.iter().enumerate() {
        let slot = ptrs.checked_add(i as u32 * 4).ok_or(Errno::Fault)?;
        mem.write_u32(slot, at)?;
        mem.write(at, s)?;
        let end = at.checked_add(s.len() as u32).ok_or(Errno::Fault)?;
        mem.write_u8(end, 0)?;
        at = end.checked_add(1).ok_or(Errno::Fault)?;
    }
    Ok(())
}

fn sizes(mem: &mut GuestMemory<'_>, strings: &[Vec<u8>], count: u32, size: u32) -> Result<()> {
    let total: usize = strings.iter().map(|s| s.len() + 1).sum();
    mem.write_u32(count, strings.len() as u32)?;
    mem.write_u32(size, u32::try_from(total).map_err(|_| Errno::Overflow)?)?;
    Ok(())
}

fn args(ctx: &WasiP1Ctx) -> Vec<Vec<u8>> {
    ctx.args.iter().map(|a| a.as_bytes().to_vec()).collect()
}

fn env(ctx: &WasiP1Ctx) -> Vec<Vec<u8>> {
    ctx.env.iter().map(|(k, v)| format!("{k}={v}").into_bytes()).collect()
}

/// `args_get`.
pub(crate) fn args_get(ctx: &mut WasiP1Ctx, mem: &mut GuestMemory<'_>, argv: u32, argv_buf: u32) -> Result<()> {
    write_strings(mem, &args(ctx), argv, argv_buf)
}

/// `args_sizes_get`.
pub(crate) fn args_sizes_get(ctx: &mut WasiP1Ctx, mem: &mut GuestMemory<'_>, argc: u32, size: u32) -> Result<()> {
    sizes(mem, &args(ctx), argc, size)
}

/// `environ_get`.
pub(crate) fn environ_get(ctx: &mut WasiP1Ctx, mem: &mut GuestMemory<'_>, environ: u32, buf: u32) -> Result<()> {
    write_strings(mem, &env(ctx), environ, buf)
}

/// `environ_sizes_get`.
pub(crate) fn environ_sizes_get(ctx: &mut WasiP1Ctx, mem: &mut GuestMemory<'_>, count: u32, size: u32) -> Result<()> {
    sizes(mem, &env(ctx), count, size)
}

/// `proc_exit`: ends the guest with [`I32Exit`]. Only statuses below 126
/// are portable (larger ones are reserved by shells); others trap.
pub(crate) fn exit(_ctx: &mut WasiP1Ctx, _mem: &mut GuestMemory<'_>, status: u32) -> Result<()> {
    if status >= 126 {
        return Err(Error::Trap(anyhow::anyhow!(
            "exit with invalid exit status outside of [0..126): {status}"
        )));
    }
    Err(Error::Trap(I32Exit(status as i32).into()))
}

/// The largest `signal` of WASI (`sys`).
const SIGNAL_MAX: u32 = 30;

/// `proc_raise`: signal 0 (`none`) does nothing; raising a real signal is
/// not supported (`notsup`), as in Wasmtime; anything else is `inval`.
pub(crate) fn raise(_ctx: &mut WasiP1Ctx, _mem: &mut GuestMemory<'_>, signal: u32) -> Result<()> {
    match signal {
        0 => Ok(()),
        1..=SIGNAL_MAX => Err(Errno::Notsup.into()),
        _ => Err(Errno::Inval.into()),
    }
}

/// `sched_yield`.
pub(crate) fn sched_yield(_ctx: &mut WasiP1Ctx, _mem: &mut GuestMemory<'_>) -> Result<()> {
    std::thread::yield_now();
    Ok(())
}
