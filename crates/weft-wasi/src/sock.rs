//! `sock_*` on preopened TCP sockets and the connections accepted on them.

use crate::ctx::{Entry, Kind, WasiP1Ctx};
use crate::errno::{Errno, Result};
use crate::memory::GuestMemory;
use crate::types::{fdflags, riflags, rights, sdflags, ROFLAGS_NONE};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};

fn stream(ctx: &mut WasiP1Ctx, fd: u32, required: u64) -> Result<&mut TcpStream> {
    let entry = ctx.table.get(fd, 0)?;
    let Kind::Socket(s) = &mut entry.kind else {
        return Err(Errno::Notsock.into());
    };
    if entry.base & required != required {
        return Err(Errno::Notcapable.into());
    }
    Ok(s)
}

/// `sock_accept`: a new descriptor for the next connection.
pub(crate) fn accept(ctx: &mut WasiP1Ctx, mem: &mut GuestMemory<'_>, fd: u32, flags: u32, fd_out: u32) -> Result<()> {
    if flags & !(fdflags::NONBLOCK as u32) != 0 {
        return Err(Errno::Inval.into());
    }
    mem.slice(fd_out, 4)?;
    let entry = ctx.table.get(fd, 0)?;
    let Kind::Listener(listener) = &entry.kind else {
        return Err(Errno::Notsock.into());
    };
    if entry.base & rights::SOCK_ACCEPT == 0 {
        return Err(Errno::Notcapable.into());
    }
    let inheriting = entry.inheriting;
    let (conn, _) = listener.accept()?;
    let nonblock = flags & fdflags::NONBLOCK as u32 != 0;
    conn.set_nonblocking(nonblock)?;
    let new_fd = ctx.table.push(Entry {
        kind: Kind::Socket(conn),
        base: rights::SOCKET & inheriting,
        inheriting: 0,
        flags: if nonblock { fdflags::NONBLOCK } else { 0 },
    })?;
    mem.write_u32(fd_out, new_fd)?;
    Ok(())
}

/// `sock_recv`: one receive into the first non-empty buffer, or, with
/// `recv_waitall`, until every buffer is full or the peer closes.
#[allow(
    clippy::too_many_arguments,
    reason = "one parameter per parameter of the WASI function"
)]
pub(crate) fn recv(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    iovs: u32,
    iovs_len: u32,
    flags: u32,
    datalen: u32,
    oflags: u32,
) -> Result<()> {
    let all = (riflags::RECV_PEEK | riflags::RECV_WAITALL) as u32;
    if flags & !all != 0 {
        return Err(Errno::Inval.into());
    }
    let iovs = mem.iovecs(iovs, iovs_len)?;
    mem.slice(datalen, 4)?;
    mem.slice(oflags, 2)?;
    let s = stream(ctx, fd, rights::FD_READ)?;
    let mut total = 0usize;
    for v in iovs.iter().filter(|v| v.len > 0) {
        let buf = mem.slice_mut(v.ptr, v.len)?;
        let n = if flags & riflags::RECV_PEEK as u32 != 0 {
            s.peek(buf)?
        } else if flags & riflags::RECV_WAITALL as u32 != 0 {
            let mut done = 0;
            while done < buf.len() {
                match s.read(&mut buf[done..])? {
                    0 => break,
                    n => done += n,
                }
            }
            done
        } else {
            s.read(buf)?
        };
        total += n;
        if flags & riflags::RECV_WAITALL as u32 == 0 || n < buf.len() {
            break;
        }
    }
    mem.write_u32(datalen, total as u32)?;
    mem.write_u16(oflags, ROFLAGS_NONE)?;
    Ok(())
}

/// `sock_send`.
pub(crate) fn send(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    iovs: u32,
    iovs_len: u32,
    flags: u32,
    datalen: u32,
) -> Result<()> {
    if flags != 0 {
        return Err(Errno::Inval.into());
    }
    let iovs = mem.iovecs(iovs, iovs_len)?;
    mem.slice(datalen, 4)?;
    let s = stream(ctx, fd, rights::FD_WRITE)?;
    let mut total = 0usize;
    for v in &iovs {
        let buf = mem.slice(v.ptr, v.len)?;
        let n = match s.write(buf) {
            Ok(n) => n,
            Err(_) if total > 0 => break,
            Err(e) => return Err(e.into()),
        };
        total += n;
        if n < buf.len() {
            break;
        }
    }
    mem.write_u32(datalen, total as u32)?;
    Ok(())
}

/// `sock_shutdown`.
pub(crate) fn shutdown(ctx: &mut WasiP1Ctx, _mem: &mut GuestMemory<'_>, fd: u32, how: u32) -> Result<()> {
    let how = match how {
        sdflags::RD => Shutdown::Read,
        sdflags::WR => Shutdown::Write,
        h if h == sdflags::RD | sdflags::WR => Shutdown::Both,
        _ => return Err(Errno::Inval.into()),
    };
    stream(ctx, fd, rights::SOCK_SHUTDOWN)?.shutdown(how)?;
    Ok(())
}
