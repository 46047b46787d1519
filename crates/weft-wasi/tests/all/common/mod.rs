//! Helpers shared by the weft-wasi tests: running a `.wat` program with a
//! WASI context, and the `syscalls.wat` shim that tests drive call by call.

#![allow(dead_code, reason = "shared by test files that each use a part of it")]

use std::path::{Path, PathBuf};
use weft::{Engine, Instance, Linker, Memory, Module, Store};
use weft_wasi::preview1::{self, WasiP1Ctx};
use weft_wasi::{MemoryOutputPipe, WasiCtxBuilder};

/// WASI errno values the tests expect.
pub mod errno {
    pub const BADF: i32 = 8;
    pub const EXIST: i32 = 20;
    pub const FAULT: i32 = 21;
    pub const INVAL: i32 = 28;
    pub const ISDIR: i32 = 31;
    pub const LOOP: i32 = 32;
    pub const NAMETOOLONG: i32 = 37;
    pub const NOENT: i32 = 44;
    pub const NOTDIR: i32 = 54;
    pub const NOTEMPTY: i32 = 55;
    pub const PERM: i32 = 63;
    pub const NOTCAPABLE: i32 = 76;
}

/// `oflags` and `lookupflags`.
pub const CREAT: i32 = 1;
pub const DIRECTORY: i32 = 2;
pub const EXCL: i32 = 4;
pub const TRUNC: i32 = 8;
pub const FOLLOW: i32 = 1;

/// `fdflags`.
pub const APPEND: i32 = 1;

/// `rights`.
pub mod rights {
    pub const FD_DATASYNC: u64 = 1 << 0;
    pub const FD_READ: u64 = 1 << 1;
    pub const FD_WRITE: u64 = 1 << 6;
    pub const FD_ALLOCATE: u64 = 1 << 8;
    pub const FD_READDIR: u64 = 1 << 14;
    pub const FD_FILESTAT_SET_SIZE: u64 = 1 << 22;
    /// Every right of `wasi_snapshot_preview1`.
    pub const ALL: u64 = (1 << 30) - 1;
    /// The rights that write to a file, which a directory refuses.
    pub const WRITE: u64 = FD_DATASYNC | FD_WRITE | FD_ALLOCATE | FD_FILESTAT_SET_SIZE;
}

/// `whence`.
pub const SEEK_SET: i32 = 0;
pub const SEEK_CUR: i32 = 1;
pub const SEEK_END: i32 = 2;

pub fn wat_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wat").join(name)
}

/// A fresh directory under the system temp dir, removed on drop.
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("weft-wasi-")
        .tempdir()
        .expect("temp dir")
}

/// What a program did: the result of `_start`, its stdout and stderr.
pub struct Outcome {
    pub result: anyhow::Result<()>,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    /// The `proc_exit` status, if the program called it.
    pub fn exit_code(&self) -> Option<i32> {
        let err = self.result.as_ref().err()?;
        err.downcast_ref::<weft_wasi::I32Exit>().map(|e| e.0)
    }
}

/// Runs the program `tests/wat/NAME` with the context `builder` describes,
/// its stdout and stderr going to pipes.
pub fn run(name: &str, builder: &mut WasiCtxBuilder) -> Outcome {
    run_path(&wat_path(name), builder)
}

/// Runs the program at `path` (text or binary).
pub fn run_path(path: &Path, builder: &mut WasiCtxBuilder) -> Outcome {
    let stdout = MemoryOutputPipe::new(1 << 20);
    let stderr = MemoryOutputPipe::new(1 << 20);
    builder.stdout(stdout.clone()).stderr(stderr.clone());
    let engine = Engine::default();
    let mut linker: Linker<WasiP1Ctx> = Linker::new(&engine);
    preview1::add_to_linker_sync(&mut linker, |t| t).expect("add WASI");
    let module = Module::from_file(&engine, path).expect("compile program");
    let mut store = Store::new(&engine, builder.build_p1());
    let result = (|| {
        linker.module(&mut store, "", &module)?;
        linker
            .get_default(&mut store, "")?
            .typed::<(), ()>(&store)?
            .call(&mut store, ())
    })();
    Outcome {
        result,
        stdout: String::from_utf8_lossy(&stdout.contents()).into_owned(),
        stderr: String::from_utf8_lossy(&stderr.contents()).into_owned(),
    }
}

/// The `syscalls.wat` shim, instantiated with a context.
pub struct Shim {
    pub store: Store<WasiP1Ctx>,
    pub instance: Instance,
    pub memory: Memory,
}

/// Where the shim's callers put their first and second path.
const PATH_A: usize = 1024;
const PATH_B: usize = 2048;

impl Shim {
    pub fn new(builder: &mut WasiCtxBuilder) -> Shim {
        let engine = Engine::default();
        let mut linker: Linker<WasiP1Ctx> = Linker::new(&engine);
        preview1::add_to_linker_sync(&mut linker, |t| t).expect("add WASI");
        let module = Module::from_file(&engine, wat_path("syscalls.wat")).expect("compile shim");
        let mut store = Store::new(&engine, builder.build_p1());
        let instance = linker.instantiate(&mut store, &module).expect("instantiate shim");
        let memory = instance.get_memory(&mut store, "memory").expect("memory");
        Shim {
            store,
            instance,
            memory,
        }
    }

    fn put(&mut self, at: usize, s: &str) -> (i32, i32) {
        assert!(s.len() < 1024);
        self.memory
            .write(&mut self.store, at, s.as_bytes())
            .expect("write path");
        (at as i32, s.len() as i32)
    }

    fn call<P: weft::WasmParams>(&mut self, name: &str, params: P) -> i32 {
        let f = self
            .instance
            .get_typed_func::<P, i32>(&mut self.store, name)
            .expect("shim export");
        f.call(&mut self.store, params).expect("shim call")
    }

    fn u32_at(&self, at: usize) -> u32 {
        let mut b = [0u8; 4];
        self.memory.read(&self.store, at, &mut b).expect("read");
        u32::from_le_bytes(b)
    }

    fn u64_at(&self, at: usize) -> u64 {
        let mut b = [0u8; 8];
        self.memory.read(&self.store, at, &mut b).expect("read");
        u64::from_le_bytes(b)
    }

    /// `path_open` with every right (but the rights to write when `oflags`
    /// has `DIRECTORY`): the errno and, on success, the new fd.
    pub fn open(&mut self, fd: i32, path: &str, dirflags: i32, oflags: i32, fdflags: i32) -> Result<i32, i32> {
        let base = if oflags & DIRECTORY != 0 {
            rights::ALL & !rights::WRITE
        } else {
            rights::ALL
        };
        self.open_with_rights(fd, path, dirflags, oflags, base, fdflags)
    }

    /// `path_open` with the base rights `base`.
    pub fn open_with_rights(
        &mut self,
        fd: i32,
        path: &str,
        dirflags: i32,
        oflags: i32,
        base: u64,
        fdflags: i32,
    ) -> Result<i32, i32> {
        let (p, l) = self.put(PATH_A, path);
        match self.call("open", (fd, p, l, dirflags, oflags, base as i64, fdflags)) {
            0 => Ok(self.u32_at(0) as i32),
            e => Err(e),
        }
    }

    /// `fd_pwrite`: the errno and the count.
    pub fn pwrite(&mut self, fd: i32, data: &str, offset: u64) -> Result<u32, i32> {
        let (p, l) = self.put(PATH_B, data);
        match self.call("pwrite", (fd, p, l, offset as i64)) {
            0 => Ok(self.u32_at(8)),
            e => Err(e),
        }
    }

    /// `fd_seek`: the errno and the new offset.
    pub fn seek(&mut self, fd: i32, offset: i64, whence: i32) -> Result<u64, i32> {
        match self.call("seek", (fd, offset, whence)) {
            0 => Ok(self.u64_at(8)),
            e => Err(e),
        }
    }

    /// `fd_fdstat_get`: (filetype, fdflags, base rights, inheriting rights).
    pub fn fdstat(&mut self, fd: i32) -> Result<(u8, u16, u64, u64), i32> {
        match self.call("fdstat", fd) {
            0 => {
                let mut head = [0u8; 4];
                self.memory.read(&self.store, 512, &mut head).expect("read");
                Ok((
                    head[0],
                    u16::from_le_bytes([head[2], head[3]]),
                    self.u64_at(512 + 8),
                    self.u64_at(512 + 16),
                ))
            }
            e => Err(e),
        }
    }

    /// `fd_read` of up to 4096 bytes.
    pub fn read(&mut self, fd: i32) -> Result<Vec<u8>, i32> {
        match self.call("read", fd) {
            0 => {
                let n = self.u32_at(8) as usize;
                let mut buf = vec![0; n];
                self.memory.read(&self.store, 4096, &mut buf).expect("read");
                Ok(buf)
            }
            e => Err(e),
        }
    }

    /// `fd_write`: the errno and the count.
    pub fn write(&mut self, fd: i32, data: &str) -> Result<u32, i32> {
        let (p, l) = self.put(PATH_B, data);
        match self.call("write", (fd, p, l)) {
            0 => Ok(self.u32_at(8)),
            e => Err(e),
        }
    }

    pub fn close(&mut self, fd: i32) -> i32 {
        self.call("close", fd)
    }

    fn path_op(&mut self, name: &str, fd: i32, path: &str) -> i32 {
        let (p, l) = self.put(PATH_A, path);
        self.call(name, (fd, p, l))
    }

    pub fn mkdir(&mut self, fd: i32, path: &str) -> i32 {
        self.path_op("mkdir", fd, path)
    }
    pub fn rmdir(&mut self, fd: i32, path: &str) -> i32 {
        self.path_op("rmdir", fd, path)
    }
    pub fn unlink(&mut self, fd: i32, path: &str) -> i32 {
        self.path_op("unlink", fd, path)
    }

    pub fn rename(&mut self, fd: i32, old: &str, new_fd: i32, new: &str) -> i32 {
        let (o, ol) = self.put(PATH_A, old);
        let (n, nl) = self.put(PATH_B, new);
        self.call("rename", (fd, o, ol, new_fd, n, nl))
    }

    pub fn link(&mut self, fd: i32, flags: i32, old: &str, new_fd: i32, new: &str) -> i32 {
        let (o, ol) = self.put(PATH_A, old);
        let (n, nl) = self.put(PATH_B, new);
        self.call("link", (fd, flags, o, ol, new_fd, n, nl))
    }

    pub fn symlink(&mut self, target: &str, fd: i32, link: &str) -> i32 {
        let (o, ol) = self.put(PATH_A, target);
        let (n, nl) = self.put(PATH_B, link);
        self.call("symlink", (o, ol, fd, n, nl))
    }

    pub fn readlink(&mut self, fd: i32, path: &str) -> Result<String, i32> {
        match self.path_op("readlink", fd, path) {
            0 => {
                let mut buf = vec![0; self.u32_at(8) as usize];
                self.memory.read(&self.store, 4096, &mut buf).expect("read");
                Ok(String::from_utf8_lossy(&buf).into_owned())
            }
            e => Err(e),
        }
    }

    /// `path_filestat_get`: (filetype, nlink, size, mtim).
    pub fn stat(&mut self, fd: i32, flags: i32, path: &str) -> Result<(u8, u64, u64, u64), i32> {
        let (p, l) = self.put(PATH_A, path);
        match self.call("stat", (fd, flags, p, l)) {
            0 => {
                let mut ft = [0u8; 1];
                self.memory.read(&self.store, 512 + 16, &mut ft).expect("read");
                Ok((
                    ft[0],
                    self.u64_at(512 + 24),
                    self.u64_at(512 + 32),
                    self.u64_at(512 + 48),
                ))
            }
            e => Err(e),
        }
    }

    pub fn set_times(&mut self, fd: i32, flags: i32, path: &str, atim: u64, mtim: u64, fst: i32) -> i32 {
        let (p, l) = self.put(PATH_A, path);
        self.call("set_times", (fd, flags, p, l, atim as i64, mtim as i64, fst))
    }

    /// Whether `needle` appears anywhere in the guest's memory.
    pub fn memory_contains(&self, needle: &[u8]) -> bool {
        self.memory.data(&self.store).windows(needle.len()).any(|w| w == needle)
    }
}

/// The store data of the component tests: a WASI context and its resource
/// table. One type for every test module, so the WASI host functions are
/// monomorphized once in this binary.
#[cfg(feature = "p2")]
pub struct State {
    pub ctx: weft_wasi::p2::WasiCtx,
    pub table: weft::component::ResourceTable,
}

#[cfg(feature = "p2")]
impl weft_wasi::p2::WasiView for State {
    fn ctx(&mut self) -> weft_wasi::p2::WasiCtxView<'_> {
        weft_wasi::p2::WasiCtxView {
            ctx: &mut self.ctx,
            table: &mut self.table,
        }
    }
}
