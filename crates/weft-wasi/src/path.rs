//! `path_*`: every operation that names a path relative to a directory
//! descriptor.
//!
//! Paths are resolved by cap-std inside the directory's handle; nothing
//! here looks at path components. An attempt to leave the directory comes
//! back from cap-std as an error that maps to `perm`.

use crate::ctx::{DirDesc, Entry, Kind, WasiP1Ctx};
use crate::errno::{Errno, Result};
use crate::filestat;
use crate::memory::GuestMemory;
use crate::types::{fdflags, oflags, rights, FILESTAT_SIZE, LOOKUP_SYMLINK_FOLLOW};
use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt, OpenOptionsMaybeDirExt};
use cap_std::fs::{Dir, OpenOptions};

/// The path the guest passed, owned so that the memory can be written
/// afterwards.
fn path_arg(mem: &GuestMemory<'_>, ptr: u32, len: u32) -> Result<String> {
    Ok(mem.str(ptr, len)?.to_string())
}

fn dir_ref(ctx: &WasiP1Ctx, fd: u32, required: u64) -> Result<&Dir> {
    let entry = ctx.table.entries.get(&fd).ok_or(Errno::Badf)?;
    let Kind::Dir(d) = &entry.kind else {
        return Err(Errno::Notdir.into());
    };
    if entry.base & required != required {
        return Err(Errno::Notcapable.into());
    }
    Ok(&d.dir)
}

/// `path_open`.
#[allow(
    clippy::too_many_arguments,
    reason = "one parameter per parameter of the WASI function"
)]
pub(crate) fn open(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    dirflags: u32,
    path: u32,
    path_len: u32,
    oflags: u32,
    base: u64,
    inheriting: u64,
    fdflags: u32,
    fd_out: u32,
) -> Result<()> {
    let path = path_arg(mem, path, path_len)?;
    mem.slice(fd_out, 4)?;
    let oflags = u16::try_from(oflags)
        .ok()
        .filter(|f| f & !oflags::ALL == 0)
        .ok_or(Errno::Inval)?;
    let fdflags = u16::try_from(fdflags)
        .ok()
        .filter(|f| f & !fdflags::ALL == 0)
        .ok_or(Errno::Inval)?;
    let mut required = rights::PATH_OPEN;
    if oflags & oflags::CREAT != 0 {
        required |= rights::PATH_CREATE_FILE;
    }
    if oflags & oflags::TRUNC != 0 {
        required |= rights::PATH_FILESTAT_SET_SIZE;
    }
    let (dir, parent_inheriting) = ctx.table.dir_with_inheriting(fd, required)?;
    // What the guest asks for, within what the directory may pass on.
    let base = base & parent_inheriting;
    let inheriting = inheriting & parent_inheriting;
    let follow = if dirflags & LOOKUP_SYMLINK_FOLLOW != 0 {
        FollowSymlinks::Yes
    } else {
        FollowSymlinks::No
    };

    // A descriptor with a right to change a file's contents is open for
    // writing, which a directory never is (`isdir`, as open(2) with
    // `O_WRONLY` or `O_RDWR` says of a directory).
    let write_rights = rights::FD_DATASYNC | rights::FD_WRITE | rights::FD_ALLOCATE | rights::FD_FILESTAT_SET_SIZE;
    let entry = if oflags & oflags::DIRECTORY != 0 {
        if oflags & (oflags::CREAT | oflags::TRUNC) != 0 {
            return Err(Errno::Inval.into());
        }
        let opened = match follow {
            FollowSymlinks::Yes => dir.open_dir(&path)?,
            FollowSymlinks::No => dir.open_dir_nofollow(&path)?,
        };
        if base & write_rights != 0 {
            return Err(Errno::Isdir.into());
        }
        dir_entry(opened, base, inheriting, fdflags)
    } else {
        let write = oflags & (oflags::CREAT | oflags::TRUNC) != 0 || base & write_rights != 0;
        let read = base & rights::FILE_READ != 0 || !write;
        let mut opts = OpenOptions::new();
        // Append is set on the open file below, not here: cap-std (as std)
        // refuses append with truncate, which wasi-libc's
        // `O_APPEND | O_TRUNC` asks for, and append would open the file
        // for writing even without the right to write.
        opts.read(read).write(write).follow(follow).maybe_dir(true);
        if oflags & oflags::CREAT != 0 {
            if oflags & oflags::EXCL != 0 {
                opts.create_new(true);
            } else {
                opts.create(true);
            }
        }
        if oflags & oflags::TRUNC != 0 {
            opts.truncate(true);
        }
        let file = dir.open_with(&path, &opts)?;
        if file.metadata()?.is_dir() {
            if write {
                return Err(Errno::Isdir.into());
            }
            dir_entry(Dir::from_std_file(file.into_std()), base, inheriting, fdflags)
        } else {
            if fdflags & fdflags::APPEND != 0 {
                let os = rustix::fs::fcntl_getfl(&file)?;
                rustix::fs::fcntl_setfl(&file, os | rustix::fs::OFlags::APPEND)?;
            }
            Entry {
                kind: Kind::File(file.into_std()),
                base: base & rights::FILE,
                inheriting,
                flags: fdflags,
            }
        }
    };
    let new_fd = ctx.table.push(entry)?;
    mem.write_u32(fd_out, new_fd)?;
    Ok(())
}

fn dir_entry(dir: Dir, base: u64, inheriting: u64, flags: u16) -> Entry {
    Entry {
        kind: Kind::Dir(DirDesc {
            dir,
            preopen: None,
            listing: None,
        }),
        base: base & rights::DIR,
        inheriting,
        flags,
    }
}

/// `path_create_directory`.
pub(crate) fn create_directory(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    path: u32,
    len: u32,
) -> Result<()> {
    let path = path_arg(mem, path, len)?;
    dir_ref(ctx, fd, rights::PATH_CREATE_DIRECTORY)?.create_dir(path)?;
    Ok(())
}

/// `path_remove_directory`.
pub(crate) fn remove_directory(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    path: u32,
    len: u32,
) -> Result<()> {
    let path = path_arg(mem, path, len)?;
    dir_ref(ctx, fd, rights::PATH_REMOVE_DIRECTORY)?.remove_dir(path)?;
    Ok(())
}

/// `path_unlink_file`.
pub(crate) fn unlink_file(ctx: &mut WasiP1Ctx, mem: &mut GuestMemory<'_>, fd: u32, path: u32, len: u32) -> Result<()> {
    let path = path_arg(mem, path, len)?;
    dir_ref(ctx, fd, rights::PATH_UNLINK_FILE)?.remove_file(path)?;
    Ok(())
}

/// `path_rename`: both ends resolve inside their directories.
#[allow(
    clippy::too_many_arguments,
    reason = "one parameter per parameter of the WASI function"
)]
pub(crate) fn rename(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    old_path: u32,
    old_len: u32,
    new_fd: u32,
    new_path: u32,
    new_len: u32,
) -> Result<()> {
    let old = path_arg(mem, old_path, old_len)?;
    let new = path_arg(mem, new_path, new_len)?;
    let from = dir_ref(ctx, fd, rights::PATH_RENAME_SOURCE)?;
    let to = dir_ref(ctx, new_fd, rights::PATH_RENAME_TARGET)?;
    from.rename(old, to, new)?;
    Ok(())
}

/// `path_link`: a hard link; both ends resolve inside their directories.
/// Following a symlink at the source is not supported (`inval`), as in
/// Wasmtime.
#[allow(
    clippy::too_many_arguments,
    reason = "one parameter per parameter of the WASI function"
)]
pub(crate) fn link(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    old_flags: u32,
    old_path: u32,
    old_len: u32,
    new_fd: u32,
    new_path: u32,
    new_len: u32,
) -> Result<()> {
    let old = path_arg(mem, old_path, old_len)?;
    let new = path_arg(mem, new_path, new_len)?;
    if old_flags & LOOKUP_SYMLINK_FOLLOW != 0 {
        return Err(Errno::Inval.into());
    }
    let from = dir_ref(ctx, fd, rights::PATH_LINK_SOURCE)?;
    let to = dir_ref(ctx, new_fd, rights::PATH_LINK_TARGET)?;
    from.hard_link(old, to, new)?;
    Ok(())
}

/// `path_symlink`: the target must be relative (an absolute one is
/// `perm`); a target that leads outside may be created, but every later
/// lookup through it is refused.
pub(crate) fn symlink(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    old_path: u32,
    old_len: u32,
    fd: u32,
    new_path: u32,
    new_len: u32,
) -> Result<()> {
    let target = path_arg(mem, old_path, old_len)?;
    let link = path_arg(mem, new_path, new_len)?;
    dir_ref(ctx, fd, rights::PATH_SYMLINK)?.symlink(target, link)?;
    Ok(())
}

/// `path_readlink`: the target, cut to the buffer's length. A link with an
/// absolute target is `perm`: its host path is not the guest's business.
#[allow(
    clippy::too_many_arguments,
    reason = "one parameter per parameter of the WASI function"
)]
pub(crate) fn readlink(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    path: u32,
    path_len: u32,
    buf: u32,
    buf_len: u32,
    bufused: u32,
) -> Result<()> {
    let path = path_arg(mem, path, path_len)?;
    mem.slice(buf, buf_len)?;
    mem.slice(bufused, 4)?;
    let target = dir_ref(ctx, fd, rights::PATH_READLINK)?.read_link(path)?;
    use std::os::unix::ffi::OsStringExt;
    let bytes = target.into_os_string().into_vec();
    let n = bytes.len().min(buf_len as usize);
    mem.write(buf, &bytes[..n])?;
    mem.write_u32(bufused, n as u32)?;
    Ok(())
}

/// `path_filestat_get`.
pub(crate) fn filestat_get(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    flags: u32,
    path: u32,
    path_len: u32,
    buf: u32,
) -> Result<()> {
    let path = path_arg(mem, path, path_len)?;
    mem.slice(buf, FILESTAT_SIZE)?;
    let dir = dir_ref(ctx, fd, rights::PATH_FILESTAT_GET)?;
    let meta = if flags & LOOKUP_SYMLINK_FOLLOW != 0 {
        dir.metadata(path)?
    } else {
        dir.symlink_metadata(path)?
    };
    mem.write(buf, &filestat::encode(&meta))?;
    Ok(())
}

/// `path_filestat_set_times`.
#[allow(
    clippy::too_many_arguments,
    reason = "one parameter per parameter of the WASI function"
)]
pub(crate) fn filestat_set_times(
    ctx: &mut WasiP1Ctx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    flags: u32,
    path: u32,
    path_len: u32,
    atim: u64,
    mtim: u64,
    fst_flags: u32,
) -> Result<()> {
    let path = path_arg(mem, path, path_len)?;
    let (atime, mtime) = filestat::time_specs(atim, mtim, fst_flags)?;
    let (atime, mtime) = (
        atime.map(filestat::TimeSpec::for_path),
        mtime.map(filestat::TimeSpec::for_path),
    );
    let dir = dir_ref(ctx, fd, rights::PATH_FILESTAT_SET_TIMES)?;
    if flags & LOOKUP_SYMLINK_FOLLOW != 0 {
        dir.set_times(path, atime, mtime)?;
    } else {
        dir.set_symlink_times(path, atime, mtime)?;
    }
    Ok(())
}
