//! `path_open` with the flags and rights C programs pass: wasi-libc's
//! `open` turns `O_ACCMODE` into rights, `O_CREAT`, `O_TRUNC`,
//! `O_DIRECTORY` and `O_EXCL` into `oflags`, and `O_APPEND` into the
//! `fdflags` of the new descriptor.

use crate::common;

use common::errno::*;
use common::{rights, Shim, APPEND, CREAT, DIRECTORY, FOLLOW, SEEK_CUR, SEEK_END, SEEK_SET, TRUNC};
use std::path::Path;
use weft_wasi::{FsPerms, WasiCtxBuilder};

/// The preopened directory's descriptor.
const ROOT: i32 = 3;
/// `filetype::directory`.
const FILETYPE_DIRECTORY: u8 = 3;

fn shim(dir: &Path) -> Shim {
    let mut builder = WasiCtxBuilder::new();
    builder.preopened_dir(dir, ".", FsPerms::ReadWrite).expect("preopen");
    Shim::new(&mut builder)
}

/// The base rights wasi-libc's `open` asks for with `O_WRONLY`: every right
/// but reading, within what the directory `fd` lets descriptors opened
/// through it have.
fn wasi_libc_write_only_rights(s: &mut Shim, fd: i32) -> u64 {
    let (_, _, _, inheriting) = s.fdstat(fd).expect("fdstat of the directory");
    let max = !(rights::FD_DATASYNC
        | rights::FD_READ
        | rights::FD_WRITE
        | rights::FD_ALLOCATE
        | rights::FD_READDIR
        | rights::FD_FILESTAT_SET_SIZE)
        | rights::FD_DATASYNC
        | rights::FD_WRITE
        | rights::FD_ALLOCATE
        | rights::FD_FILESTAT_SET_SIZE;
    max & inheriting
}

/// A directory is never open for writing: `O_DIRECTORY` with the right to
/// write is `isdir`, as without `O_DIRECTORY`; reading it is fine.
#[test]
fn directory_with_write_rights_is_isdir() {
    let tmp = common::temp_dir();
    std::fs::create_dir(tmp.path().join("sub")).unwrap();
    std::fs::write(tmp.path().join("file.txt"), b"x").unwrap();
    let mut s = shim(tmp.path());
    let read_write = rights::FD_READ | rights::FD_WRITE;

    assert_eq!(
        s.open_with_rights(ROOT, "sub", FOLLOW, DIRECTORY, read_write, 0),
        Err(ISDIR)
    );
    assert_eq!(
        s.open_with_rights(ROOT, ".", FOLLOW, DIRECTORY, read_write, 0),
        Err(ISDIR)
    );
    for right in [
        rights::FD_WRITE,
        rights::FD_DATASYNC,
        rights::FD_ALLOCATE,
        rights::FD_FILESTAT_SET_SIZE,
    ] {
        assert_eq!(
            s.open_with_rights(ROOT, "sub", FOLLOW, DIRECTORY, rights::FD_READ | right, 0),
            Err(ISDIR),
            "right {right:#x}"
        );
    }
    assert_eq!(s.open_with_rights(ROOT, "sub", FOLLOW, 0, read_write, 0), Err(ISDIR));
    // What the path is decides first: a file is `notdir`.
    assert_eq!(
        s.open_with_rights(ROOT, "file.txt", FOLLOW, DIRECTORY, read_write, 0),
        Err(NOTDIR)
    );

    // Reading is allowed, and so is every right but writing.
    let fd = s
        .open_with_rights(ROOT, "sub", FOLLOW, DIRECTORY, rights::FD_READ | rights::FD_READDIR, 0)
        .expect("open the directory for reading");
    assert_eq!(s.fdstat(fd).unwrap().0, FILETYPE_DIRECTORY);
    assert_eq!(s.close(fd), 0);
    let fd = s
        .open_with_rights(ROOT, "sub", FOLLOW, DIRECTORY, rights::ALL & !rights::WRITE, 0)
        .expect("open the directory with every right but writing");
    assert_eq!(s.close(fd), 0);
}

/// `open(path, O_CREAT | O_TRUNC | O_WRONLY | O_APPEND)` as wasi-libc
/// makes it: the file is created or truncated, every write goes to its end,
/// `lseek` works, and `pwrite` leaves the offset where it was.
#[test]
fn create_truncate_append_as_wasi_libc_opens() {
    let tmp = common::temp_dir();
    let log = tmp.path().join("log.txt");
    std::fs::write(&log, b"old contents").unwrap();
    let mut s = shim(tmp.path());
    let base = wasi_libc_write_only_rights(&mut s, ROOT);

    let fd = s
        .open_with_rights(ROOT, "log.txt", FOLLOW, CREAT | TRUNC, base, APPEND)
        .expect("open with O_CREAT | O_TRUNC | O_WRONLY | O_APPEND");
    let (_, flags, _, _) = s.fdstat(fd).unwrap();
    assert_eq!(flags & APPEND as u16, APPEND as u16, "fdflags {flags:#x}");
    assert_eq!(std::fs::read(&log).unwrap(), b"", "truncated");
    assert_eq!(s.read(fd), Err(BADF), "write-only");

    assert_eq!(s.write(fd, "ab"), Ok(2));
    assert_eq!(std::fs::read(&log).unwrap(), b"ab");
    // Seeking works, but writes still go to the end.
    assert_eq!(s.seek(fd, 0, SEEK_SET), Ok(0));
    assert_eq!(s.write(fd, "cd"), Ok(2));
    assert_eq!(std::fs::read(&log).unwrap(), b"abcd");
    assert_eq!(s.seek(fd, 0, SEEK_CUR), Ok(4));
    assert_eq!(s.seek(fd, -1, SEEK_END), Ok(3));
    assert_eq!(s.seek(fd, 1, SEEK_SET), Ok(1));

    // pwrite does not move the offset.
    assert_eq!(s.pwrite(fd, "X", 0), Ok(1));
    assert_eq!(s.seek(fd, 0, SEEK_CUR), Ok(1));

    assert_eq!(s.write(fd, "ef"), Ok(2));
    let contents = std::fs::read(&log).unwrap();
    assert!(contents.ends_with(b"ef"), "{:?}", String::from_utf8_lossy(&contents));
    assert_eq!(s.seek(fd, 0, SEEK_CUR), Ok(contents.len() as u64));
    assert_eq!(s.close(fd), 0);

    // Again on the existing file: truncated again; a new file is created.
    let fd = s
        .open_with_rights(ROOT, "log.txt", FOLLOW, CREAT | TRUNC, base, APPEND)
        .expect("open the existing file again");
    assert_eq!(s.write(fd, "new"), Ok(3));
    assert_eq!(std::fs::read(&log).unwrap(), b"new");
    assert_eq!(s.close(fd), 0);
    let fd = s
        .open_with_rights(ROOT, "fresh.txt", FOLLOW, CREAT | TRUNC, base, APPEND)
        .expect("create a new file");
    assert_eq!(s.write(fd, "1"), Ok(1));
    assert_eq!(s.write(fd, "2"), Ok(1));
    assert_eq!(std::fs::read(tmp.path().join("fresh.txt")).unwrap(), b"12");
    assert_eq!(s.close(fd), 0);
}
