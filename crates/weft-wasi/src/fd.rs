//! `fd_*`: reading, writing, seeking, syncing and describing open file
//! descriptors, listing directories, and the preopen table.

use crate::ctx::{DirListEntry, Entry, Kind, WasiP1Ctx};
use crate::errno::{Errno, Result};
use crate::filestat;
use crate::memory::{GuestMemory, IoVec};
use crate::stdio::{IsTerminal, StdoutStream};
use crate::types::{fdflags, filetype, rights, whence, ADVICE_MAX, DIRENT_SIZE, FILESTAT_SIZE};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;

/// Reads into `iovs` with `read`, one buffer after another, until a read
/// comes back short. An error after some bytes were read ends the loop with
/// the bytes read so far.
fn read_iovecs(
    mem: &mut GuestMemory<'_>,
    iovs: &[IoVec],
    mut read: impl FnMut(&mut [u8], u64) -> std::io::Result<usize>,
) -> Result<usize> {
    let mut total = 0usize;
    for v in iovs {
        if v.len == 0 {
            continue;
        }
        let buf = mem.slice_mut(v.ptr, v.len)?;
        match read(buf, total as u64) {
            Ok(n) => {
                total += n;
                if n < buf.len() {
                    break;
                }
            }
            Err(_) if total > 0 => break,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(total)
}

/// Writes `iovs` with `write`, each buffer whole, stopping at the first
/// short write. An error after some bytes were written ends the loop with
/// the bytes written so far.
fn write_iovecs(
    mem: &GuestMemory<'_>,
    iovs: &[IoVec],
    mut write: impl FnMut(&[u8], u64) -> std::io::Result<usize>,
) -> Result<usize> {
    let mut total = 0usize;
    for v in iovs {
        let buf = mem.slice(v.ptr, v.len)?;
        let mut done = 0;
        while done < buf.len() {
            match write(&buf[done..], (total + done) as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(_) if total + done > 0 => return Ok(total + done),
                Err(e) => return Err(e.into()),
            }
        }
        total += done;
        if done < buf.len() {
            break;
        }
    }
    Ok(total)
}

fn stream_write(out: &mut dyn StdoutStream, buf: &[u8]) -> std::io::Result<usize> {
    crate::stdio::write_blocking(out, buf)
}

/// Syncs a file after a write when its descriptor asks for synchronized
/// writes.
fn sync_after_write(file: &std::fs::File, flags: u16) -> Result<()> {
    if flags & (fdflags::SYNC | fdflags::RSYNC) != 0 {
        file.sync_all()?;
    } else if flags & fdflags::DSYNC != 0 {
        file.sync_data()?;
    }
    Ok(())
}

/// `fd_read`.
pub(crate) fn read(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    iovs: u32,
    iovs_len: u32,
    nread: u32,
) -> Result<()> {
    let iovs = mem.iovecs(iovs, iovs_len)?;
    mem.slice(nread, 4)?;
    let entry = ctx.table.get(fd, rights::FD_READ)?;
    let n = match &mut entry.kind {
        Kind::File(f) => read_iovecs(mem, &iovs, |buf, _| f.read(buf))?,
        Kind::Stdin(s) => read_once(mem, &iovs, |buf| crate::stdio::read_blocking(&**s, buf))?,
        Kind::Socket(s) => read_once(mem, &iovs, |buf| s.read(buf))?,
        Kind::Dir(_) => return Err(Errno::Isdir.into()),
        _ => return Err(Errno::Badf.into()),
    };
    mem.write_u32(nread, n as u32)?;
    Ok(())
}

/// One read into the first non-empty buffer: streams may block, so only
/// the first read may wait.
fn read_once(
    mem: &mut GuestMemory<'_>,
    iovs: &[IoVec],
    read: impl FnOnce(&mut [u8]) -> std::io::Result<usize>,
) -> Result<usize> {
    match iovs.iter().find(|v| v.len > 0) {
        Some(v) => Ok(read(mem.slice_mut(v.ptr, v.len)?)?),
        None => Ok(0),
    }
}

/// `fd_pread`.
pub(crate) fn pread(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    iovs: u32,
    iovs_len: u32,
    offset: u64,
    nread: u32,
) -> Result<()> {
    let iovs = mem.iovecs(iovs, iovs_len)?;
    mem.slice(nread, 4)?;
    let entry = ctx.table.get(fd, rights::FD_READ | rights::FD_SEEK)?;
    let n = match &mut entry.kind {
        Kind::File(f) => read_iovecs(mem, &iovs, |buf, done| {
            let at = offset.checked_add(done).ok_or(std::io::ErrorKind::InvalidInput)?;
            f.read_at(buf, at)
        })?,
        Kind::Dir(_) => return Err(Errno::Isdir.into()),
        _ => return Err(Errno::Spipe.into()),
    };
    mem.write_u32(nread, n as u32)?;
    Ok(())
}

/// `fd_write`.
pub(crate) fn write(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    iovs: u32,
    iovs_len: u32,
    nwritten: u32,
) -> Result<()> {
    let iovs = mem.iovecs(iovs, iovs_len)?;
    mem.slice(nwritten, 4)?;
    let entry = ctx.table.get(fd, rights::FD_WRITE)?;
    let flags = entry.flags;
    let n = match &mut entry.kind {
        Kind::File(f) => {
            let n = write_iovecs(mem, &iovs, |buf, _| f.write(buf))?;
            sync_after_write(f, flags)?;
            n
        }
        Kind::Stdout(s) => write_iovecs(mem, &iovs, |buf, _| stream_write(&mut **s, buf))?,
        Kind::Socket(s) => write_iovecs(mem, &iovs, |buf, _| s.write(buf))?,
        Kind::Dir(_) => return Err(Errno::Isdir.into()),
        _ => return Err(Errno::Badf.into()),
    };
    mem.write_u32(nwritten, n as u32)?;
    Ok(())
}

/// `fd_pwrite`.
pub(crate) fn pwrite(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    iovs: u32,
    iovs_len: u32,
    offset: u64,
    nwritten: u32,
) -> Result<()> {
    let iovs = mem.iovecs(iovs, iovs_len)?;
    mem.slice(nwritten, 4)?;
    let entry = ctx.table.get(fd, rights::FD_WRITE | rights::FD_SEEK)?;
    let flags = entry.flags;
    let n = match &mut entry.kind {
        Kind::File(f) => {
            let n = write_iovecs(mem, &iovs, |buf, done| {
                let at = offset.checked_add(done).ok_or(std::io::ErrorKind::InvalidInput)?;
                f.write_at(buf, at)
            })?;
            sync_after_write(f, flags)?;
            n
        }
        Kind::Dir(_) => return Err(Errno::Isdir.into()),
        _ => return Err(Errno::Spipe.into()),
    };
    mem.write_u32(nwritten, n as u32)?;
    Ok(())
}

/// `fd_seek`.
pub(crate) fn seek(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    offset: u64,
    how: u32,
    newoffset: u32,
) -> Result<()> {
    let offset = offset as i64;
    let pos = match how {
        whence::SET => SeekFrom::Start(u64::try_from(offset).map_err(|_| Errno::Inval)?),
        whence::CUR => SeekFrom::Current(offset),
        whence::END => SeekFrom::End(offset),
        _ => return Err(Errno::Inval.into()),
    };
    mem.slice(newoffset, 8)?;
    let required = if offset == 0 && how == whence::CUR {
        rights::FD_TELL
    } else {
        rights::FD_SEEK | rights::FD_TELL
    };
    let entry = ctx.table.entries.get_mut(&fd).ok_or(Errno::Badf)?;
    let Kind::File(f) = &mut entry.kind else {
        return Err(match entry.kind {
            Kind::Dir(_) => Errno::Badf,
            _ => Errno::Spipe,
        }
        .into());
    };
    if entry.base & required != required {
        return Err(Errno::Notcapable.into());
    }
    let new = f.seek(pos)?;
    mem.write_u64(newoffset, new)?;
    Ok(())
}

/// `fd_tell`.
pub(crate) fn tell(ctx: &mut WasiP1Ctx, mem: &mut GuestMemory<'_>, fd: u32, offset: u32) -> Result<()> {
    seek(ctx, mem, fd, 0, whence::CUR, offset)
}

/// `fd_sync`.
pub(crate) fn sync(ctx: &mut WasiP1Ctx, _mem: &mut GuestMemory<'_>, fd: u32) -> Result<()> {
    match &mut ctx.table.get(fd, rights::FD_SYNC)?.kind {
        Kind::File(f) => f.sync_all()?,
        Kind::Dir(d) => d.dir.try_clone()?.into_std_file().sync_all()?,
        // Every write was flushed.
        Kind::Stdout(_) => {}
        _ => return Err(Errno::Inval.into()),
    }
    Ok(())
}

/// `fd_datasync`.
pub(crate) fn datasync(ctx: &mut WasiP1Ctx, _mem: &mut GuestMemory<'_>, fd: u32) -> Result<()> {
    match &mut ctx.table.get(fd, rights::FD_DATASYNC)?.kind {
        Kind::File(f) => f.sync_data()?,
        Kind::Stdout(_) => {}
        _ => return Err(Errno::Inval.into()),
    }
    Ok(())
}

/// `fd_advise`: advice is only a hint; it is checked and accepted.
pub(crate) fn advise(
    ctx: &mut WasiP1Ctx,
    _mem: &mut GuestMemory<'_>,
    fd: u32,
    offset: u64,
    len: u64,
    advice: u32,
) -> Result<()> {
    if advice > ADVICE_MAX || offset.checked_add(len).is_none_or(|end| end > i64::MAX as u64) {
        return Err(Errno::Inval.into());
    }
    match &ctx.table.get(fd, rights::FD_ADVISE)?.kind {
        Kind::File(_) => Ok(()),
        Kind::Dir(_) => Err(Errno::Badf.into()),
        _ => Err(Errno::Spipe.into()),
    }
}

/// `fd_allocate`: makes the file at least `offset + len` bytes long.
pub(crate) fn allocate(ctx: &mut WasiP1Ctx, _mem: &mut GuestMemory<'_>, fd: u32, offset: u64, len: u64) -> Result<()> {
    let entry = ctx.table.get(fd, rights::FD_ALLOCATE)?;
    let Kind::File(f) = &entry.kind else {
        return Err(Errno::Badf.into());
    };
    if len == 0 {
        return Err(Errno::Inval.into());
    }
    let end = offset
        .checked_add(len)
        .filter(|e| *e <= i64::MAX as u64)
        .ok_or(Errno::Fbig)?;
    if f.metadata()?.len() < end {
        f.set_len(end)?;
    }
    Ok(())
}

/// `fd_close`.
pub(crate) fn close(ctx: &mut WasiP1Ctx, _mem: &mut GuestMemory<'_>, fd: u32) -> Result<()> {
    match ctx.table.entries.remove(&fd) {
        Some(_) => Ok(()),
        None => Err(Errno::Badf.into()),
    }
}

/// `fd_renumber`: moves `from` to `to`, closing what `to` was.
pub(crate) fn renumber(ctx: &mut WasiP1Ctx, _mem: &mut GuestMemory<'_>, from: u32, to: u32) -> Result<()> {
    if !ctx.table.entries.contains_key(&from) || !ctx.table.entries.contains_key(&to) {
        return Err(Errno::Badf.into());
    }
    if from != to {
        if let Some(entry) = ctx.table.entries.remove(&from) {
            ctx.table.entries.insert(to, entry);
        }
    }
    Ok(())
}

/// The file type of an open descriptor.
fn entry_filetype(entry: &Entry) -> Result<u8> {
    Ok(match &entry.kind {
        Kind::File(f) => filestat::filetype_of(&cap_std::fs::Metadata::from_file(f)?.file_type()),
        Kind::Dir(_) => filetype::DIRECTORY,
        Kind::Stdin(s) if s.is_terminal() => filetype::CHARACTER_DEVICE,
        Kind::Stdout(s) if s.is_terminal() => filetype::CHARACTER_DEVICE,
        Kind::Stdin(_) | Kind::Stdout(_) => filetype::UNKNOWN,
        Kind::Listener(_) | Kind::Socket(_) => filetype::SOCKET_STREAM,
    })
}

/// `fd_fdstat_get`.
pub(crate) fn fdstat_get(ctx: &mut WasiP1Ctx, mem: &mut GuestMemory<'_>, fd: u32, buf: u32) -> Result<()> {
    let entry = ctx.table.get(fd, 0)?;
    let mut out = [0u8; 24];
    out[0] = entry_filetype(entry)?;
    out[2..4].copy_from_slice(&entry.flags.to_le_bytes());
    out[8..16].copy_from_slice(&entry.base.to_le_bytes());
    out[16..24].copy_from_slice(&entry.inheriting.to_le_bytes());
    mem.write(buf, &out)?;
    Ok(())
}

/// `fd_fdstat_set_flags`: append is set on the host file; the sync flags
/// make every write to the descriptor sync; nonblock applies to sockets.
pub(crate) fn fdstat_set_flags(ctx: &mut WasiP1Ctx, _mem: &mut GuestMemory<'_>, fd: u32, flags: u32) -> Result<()> {
    let flags = u16::try_from(flags)
        .ok()
        .filter(|f| f & !fdflags::ALL == 0)
        .ok_or(Errno::Inval)?;
    let entry = ctx.table.get(fd, rights::FD_FDSTAT_SET_FLAGS)?;
    match &entry.kind {
        Kind::File(f) => {
            let mut os = rustix::fs::fcntl_getfl(f)?;
            os.set(rustix::fs::OFlags::APPEND, flags & fdflags::APPEND != 0);
            rustix::fs::fcntl_setfl(f, os)?;
        }
        Kind::Socket(s) => s.set_nonblocking(flags & fdflags::NONBLOCK != 0)?,
        Kind::Listener(l) => l.set_nonblocking(flags & fdflags::NONBLOCK != 0)?,
        _ => {}
    }
    entry.flags = flags;
    Ok(())
}

/// `fd_fdstat_set_rights`: rights can only be dropped.
pub(crate) fn fdstat_set_rights(
    ctx: &mut WasiP1Ctx,
    _mem: &mut GuestMemory<'_>,
    fd: u32,
    base: u64,
    inheriting: u64,
) -> Result<()> {
    let entry = ctx.table.get(fd, 0)?;
    if base & !entry.base != 0 || inheriting & !entry.inheriting != 0 {
        return Err(Errno::Notcapable.into());
    }
    entry.base = base;
    entry.inheriting = inheriting;
    Ok(())
}

/// `fd_filestat_get`.
pub(crate) fn filestat_get(ctx: &mut WasiP1Ctx, mem: &mut GuestMemory<'_>, fd: u32, buf: u32) -> Result<()> {
    mem.slice(buf, FILESTAT_SIZE)?;
    let entry = ctx.table.get(fd, rights::FD_FILESTAT_GET)?;
    let stat = match &entry.kind {
        Kind::File(f) => filestat::encode(&cap_std::fs::Metadata::from_file(f)?),
        Kind::Dir(d) => filestat::encode(&d.dir.dir_metadata()?),
        _ => filestat::encode_empty(entry_filetype(entry)?),
    };
    mem.write(buf, &stat)?;
    Ok(())
}

/// `fd_filestat_set_size`.
pub(crate) fn filestat_set_size(ctx: &mut WasiP1Ctx, _mem: &mut GuestMemory<'_>, fd: u32, size: u64) -> Result<()> {
    match &ctx.table.get(fd, rights::FD_FILESTAT_SET_SIZE)?.kind {
        Kind::File(f) => {
            if size > i64::MAX as u64 {
                return Err(Errno::Fbig.into());
            }
            f.set_len(size)?;
            Ok(())
        }
        Kind::Dir(_) => Err(Errno::Isdir.into()),
        _ => Err(Errno::Inval.into()),
    }
}

/// `fd_filestat_set_times`.
pub(crate) fn filestat_set_times(
    ctx: &mut WasiP1Ctx,
    _mem: &mut GuestMemory<'_>,
    fd: u32,
    atim: u64,
    mtim: u64,
    fst_flags: u32,
) -> Result<()> {
    let (atime, mtime) = filestat::time_specs(atim, mtim, fst_flags)?;
    let (atime, mtime) = (
        atime.map(filestat::TimeSpec::for_file),
        mtime.map(filestat::TimeSpec::for_file),
    );
    use fs_set_times::SetTimes;
    match &ctx.table.get(fd, rights::FD_FILESTAT_SET_TIMES)?.kind {
        Kind::File(f) => SetTimes::set_times(f, atime, mtime)?,
        Kind::Dir(d) => SetTimes::set_times(&d.dir, atime, mtime)?,
        _ => return Err(Errno::Badf.into()),
    }
    Ok(())
}

/// `fd_prestat_get`: a preopened directory and the length of its name.
pub(crate) fn prestat_get(ctx: &mut WasiP1Ctx, mem: &mut GuestMemory<'_>, fd: u32, buf: u32) -> Result<()> {
    let entry = ctx.table.entries.get(&fd).ok_or(Errno::Badf)?;
    let Kind::Dir(d) = &entry.kind else {
        return Err(Errno::Badf.into());
    };
    let name = d.preopen.as_ref().ok_or(Errno::Badf)?;
    let mut out = [0u8; 8];
    out[4..8].copy_from_slice(&(name.len() as u32).to_le_bytes());
    mem.write(buf, &out)?;
    Ok(())
}

/// `fd_prestat_dir_name`.
pub(crate) fn prestat_dir_name(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    path: u32,
    len: u32,
) -> Result<()> {
    let entry = ctx.table.entries.get(&fd).ok_or(Errno::Badf)?;
    let Kind::Dir(d) = &entry.kind else {
        return Err(Errno::Badf.into());
    };
    let name = d.preopen.as_ref().ok_or(Errno::Badf)?;
    if (len as usize) < name.len() {
        return Err(Errno::Nametoolong.into());
    }
    mem.write(path, name.as_bytes())?;
    Ok(())
}

/// Lists a directory: `.`, `..`, then its entries.
fn list_dir(dir: &cap_std::fs::Dir) -> Result<Vec<DirListEntry>> {
    use cap_std::fs::MetadataExt;
    use rustix::fs::DirEntryExt;
    let own_ino = dir.dir_metadata().map(|m| m.ino()).unwrap_or(0);
    let mut out = vec![
        DirListEntry {
            name: b".".to_vec(),
            filetype: filetype::DIRECTORY,
            ino: own_ino,
        },
        DirListEntry {
            name: b"..".to_vec(),
            filetype: filetype::DIRECTORY,
            ino: 0,
        },
    ];
    for entry in dir.entries()? {
        let entry = entry?;
        let filetype = entry
            .file_type()
            .map(|t| filestat::filetype_of(&t))
            .unwrap_or(filetype::UNKNOWN);
        use std::os::unix::ffi::OsStringExt;
        out.push(DirListEntry {
            name: entry.file_name().into_vec(),
            filetype,
            ino: entry.ino(),
        });
    }
    Ok(out)
}

/// `fd_readdir`: fills the buffer with `dirent`s from `cookie` on; the last
/// one is cut off when it does not fit, which tells the guest to read on.
pub(crate) fn readdir(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    buf: u32,
    buf_len: u32,
    cookie: u64,
    bufused: u32,
) -> Result<()> {
    mem.slice(buf, buf_len)?;
    mem.slice(bufused, 4)?;
    let dir = ctx.table.dir(fd, rights::FD_READDIR)?;
    if cookie == 0 || dir.listing.is_none() {
        dir.listing = Some(list_dir(&dir.dir)?);
    }
    let listing = dir.listing.as_deref().unwrap_or_default();
    let mut out = Vec::new();
    let start = usize::try_from(cookie).unwrap_or(usize::MAX);
    for (i, e) in listing.iter().enumerate().skip(start) {
        if out.len() >= buf_len as usize {
            break;
        }
        out.extend_from_slice(&(i as u64 + 1).to_le_bytes());
        out.extend_from_slice(&e.ino.to_le_bytes());
        out.extend_from_slice(&(e.name.len() as u32).to_le_bytes());
        out.extend_from_slice(&[e.filetype, 0, 0, 0]);
        debug_assert_eq!(DIRENT_SIZE, 24);
        out.extend_from_slice(&e.name);
    }
    out.truncate(buf_len as usize);
    mem.write(buf, &out)?;
    mem.write_u32(bufused, out.len() as u32)?;
    Ok(())
}
