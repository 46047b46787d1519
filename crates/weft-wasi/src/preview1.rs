//! `wasi_snapshot_preview1` in a [`Linker`]: one host function per WASI
//! function, each a thin shim that borrows the guest's memory and the
//! store's [`WasiP1Ctx`] and calls the implementation.

use crate::errno::Error;
use crate::memory::GuestMemory;
use crate::p1_clocks as clocks;
use crate::{fd, path, poll, proc, sock};
use weft::{Caller, Extern, Linker};

pub use crate::ctx::WasiP1Ctx;

/// The import module name of WASI preview1.
pub const MODULE: &str = "wasi_snapshot_preview1";

/// Runs `body` with the guest's exported `memory` (empty when it has none,
/// so every access is `fault`) and the context from the store's data.
fn with_memory<T: 'static, R>(
    caller: &mut Caller<'_, T>,
    get: impl Fn(&mut T) -> &mut WasiP1Ctx,
    body: impl FnOnce(&mut WasiP1Ctx, &mut GuestMemory<'_>) -> Result<R, Error>,
) -> Result<R, Error> {
    let memory = caller.get_export("memory").and_then(Extern::into_memory);
    let (bytes, data): (&mut [u8], &mut T) = match memory {
        Some(m) => m.data_and_store_mut(&mut *caller),
        None => (&mut [], caller.data_mut()),
    };
    let mut mem = GuestMemory::new(bytes);
    body(get(data), &mut mem)
}

/// What a WASI function returns to wasm: 0 or an errno, or a trap.
fn to_wasm(result: Result<(), Error>) -> anyhow::Result<i32> {
    match result {
        Ok(()) => Ok(0),
        Err(Error::Errno(e)) => Ok(e as i32),
        Err(Error::Trap(e)) => Err(e),
    }
}

/// Runs one WASI function (see [`with_memory`]): an errno is the
/// function's result; a trap is the host function's error.
fn dispatch<T: 'static>(
    caller: &mut Caller<'_, T>,
    get: impl Fn(&mut T) -> &mut WasiP1Ctx,
    body: impl FnOnce(&mut WasiP1Ctx, &mut GuestMemory<'_>) -> Result<(), Error>,
) -> anyhow::Result<i32> {
    to_wasm(with_memory(caller, get, body))
}

/// Defines `$name` in the linker: wasm `i32`s become `u32`s and `i64`s
/// `u64`s before the implementation sees them.
macro_rules! define {
    ($linker:ident, $get:ident, $name:literal => $f:path, ($($arg:ident : $w:ty as $r:ty),*)) => {
        $linker.func_wrap(MODULE, $name, move |mut caller: Caller<'_, T>, $($arg: $w),*| -> anyhow::Result<i32> {
            dispatch(&mut caller, $get, |ctx, mem| $f(ctx, mem, $($arg as $r),*))
        })?;
    };
}

/// Calls `$m!($linker, $get, NAME => IMPL, (ARGS))` for every WASI
/// function but `poll_oneoff` and `proc_exit`, which differ between the
/// sync and the async linker.
macro_rules! for_each_function {
    ($m:ident, $linker:ident, $get:ident) => {
        $m!($linker, $get, "args_get" => proc::args_get, (a: i32 as u32, b: i32 as u32));
        $m!($linker, $get, "args_sizes_get" => proc::args_sizes_get, (a: i32 as u32, b: i32 as u32));
        $m!($linker, $get, "environ_get" => proc::environ_get, (a: i32 as u32, b: i32 as u32));
        $m!($linker, $get, "environ_sizes_get" => proc::environ_sizes_get, (a: i32 as u32, b: i32 as u32));
        $m!($linker, $get, "clock_res_get" => clocks::res_get, (id: i32 as u32, out: i32 as u32));
        $m!($linker, $get, "clock_time_get" => clocks::time_get, (id: i32 as u32, precision: i64 as u64, out: i32 as u32));
        $m!($linker, $get, "fd_advise" => fd::advise, (fd: i32 as u32, offset: i64 as u64, len: i64 as u64, advice: i32 as u32));
        $m!($linker, $get, "fd_allocate" => fd::allocate, (fd: i32 as u32, offset: i64 as u64, len: i64 as u64));
        $m!($linker, $get, "fd_close" => fd::close, (fd: i32 as u32));
        $m!($linker, $get, "fd_datasync" => fd::datasync, (fd: i32 as u32));
        $m!($linker, $get, "fd_fdstat_get" => fd::fdstat_get, (fd: i32 as u32, buf: i32 as u32));
        $m!($linker, $get, "fd_fdstat_set_flags" => fd::fdstat_set_flags, (fd: i32 as u32, flags: i32 as u32));
        $m!($linker, $get, "fd_fdstat_set_rights" => fd::fdstat_set_rights, (fd: i32 as u32, base: i64 as u64, inheriting: i64 as u64));
        $m!($linker, $get, "fd_filestat_get" => fd::filestat_get, (fd: i32 as u32, buf: i32 as u32));
        $m!($linker, $get, "fd_filestat_set_size" => fd::filestat_set_size, (fd: i32 as u32, size: i64 as u64));
        $m!($linker, $get, "fd_filestat_set_times" => fd::filestat_set_times, (fd: i32 as u32, atim: i64 as u64, mtim: i64 as u64, flags: i32 as u32));
        $m!($linker, $get, "fd_pread" => fd::pread, (fd: i32 as u32, iovs: i32 as u32, len: i32 as u32, offset: i64 as u64, out: i32 as u32));
        $m!($linker, $get, "fd_prestat_get" => fd::prestat_get, (fd: i32 as u32, buf: i32 as u32));
        $m!($linker, $get, "fd_prestat_dir_name" => fd::prestat_dir_name, (fd: i32 as u32, path: i32 as u32, len: i32 as u32));
        $m!($linker, $get, "fd_pwrite" => fd::pwrite, (fd: i32 as u32, iovs: i32 as u32, len: i32 as u32, offset: i64 as u64, out: i32 as u32));
        $m!($linker, $get, "fd_read" => fd::read, (fd: i32 as u32, iovs: i32 as u32, len: i32 as u32, out: i32 as u32));
        $m!($linker, $get, "fd_readdir" => fd::readdir, (fd: i32 as u32, buf: i32 as u32, len: i32 as u32, cookie: i64 as u64, out: i32 as u32));
        $m!($linker, $get, "fd_renumber" => fd::renumber, (from: i32 as u32, to: i32 as u32));
        $m!($linker, $get, "fd_seek" => fd::seek, (fd: i32 as u32, offset: i64 as u64, whence: i32 as u32, out: i32 as u32));
        $m!($linker, $get, "fd_sync" => fd::sync, (fd: i32 as u32));
        $m!($linker, $get, "fd_tell" => fd::tell, (fd: i32 as u32, out: i32 as u32));
        $m!($linker, $get, "fd_write" => fd::write, (fd: i32 as u32, iovs: i32 as u32, len: i32 as u32, out: i32 as u32));
        $m!($linker, $get, "path_create_directory" => path::create_directory, (fd: i32 as u32, path: i32 as u32, len: i32 as u32));
        $m!($linker, $get, "path_filestat_get" => path::filestat_get, (fd: i32 as u32, flags: i32 as u32, path: i32 as u32, len: i32 as u32, buf: i32 as u32));
        $m!($linker, $get, "path_filestat_set_times" => path::filestat_set_times, (fd: i32 as u32, flags: i32 as u32, path: i32 as u32, len: i32 as u32, atim: i64 as u64, mtim: i64 as u64, fst: i32 as u32));
        $m!($linker, $get, "path_link" => path::link, (fd: i32 as u32, flags: i32 as u32, old: i32 as u32, old_len: i32 as u32, new_fd: i32 as u32, new: i32 as u32, new_len: i32 as u32));
        $m!($linker, $get, "path_open" => path::open, (fd: i32 as u32, dirflags: i32 as u32, path: i32 as u32, len: i32 as u32, oflags: i32 as u32, base: i64 as u64, inheriting: i64 as u64, fdflags: i32 as u32, out: i32 as u32));
        $m!($linker, $get, "path_readlink" => path::readlink, (fd: i32 as u32, path: i32 as u32, len: i32 as u32, buf: i32 as u32, buf_len: i32 as u32, out: i32 as u32));
        $m!($linker, $get, "path_remove_directory" => path::remove_directory, (fd: i32 as u32, path: i32 as u32, len: i32 as u32));
        $m!($linker, $get, "path_rename" => path::rename, (fd: i32 as u32, old: i32 as u32, old_len: i32 as u32, new_fd: i32 as u32, new: i32 as u32, new_len: i32 as u32));
        $m!($linker, $get, "path_symlink" => path::symlink, (old: i32 as u32, old_len: i32 as u32, fd: i32 as u32, new: i32 as u32, new_len: i32 as u32));
        $m!($linker, $get, "path_unlink_file" => path::unlink_file, (fd: i32 as u32, path: i32 as u32, len: i32 as u32));
        $m!($linker, $get, "proc_raise" => proc::raise, (sig: i32 as u32));
        $m!($linker, $get, "sched_yield" => proc::sched_yield, ());
        $m!($linker, $get, "random_get" => clocks::random_get, (buf: i32 as u32, len: i32 as u32));
        $m!($linker, $get, "sock_accept" => sock::accept, (fd: i32 as u32, flags: i32 as u32, out: i32 as u32));
        $m!($linker, $get, "sock_recv" => sock::recv, (fd: i32 as u32, iovs: i32 as u32, len: i32 as u32, flags: i32 as u32, out: i32 as u32, oflags: i32 as u32));
        $m!($linker, $get, "sock_send" => sock::send, (fd: i32 as u32, iovs: i32 as u32, len: i32 as u32, flags: i32 as u32, out: i32 as u32));
        $m!($linker, $get, "sock_shutdown" => sock::shutdown, (fd: i32 as u32, how: i32 as u32));
    };
}

/// Adds every function of `wasi_snapshot_preview1` to `linker`; `get`
/// finds the [`WasiP1Ctx`] in the store's data. The functions block the
/// calling thread when they wait (reads of stdin, `poll_oneoff`).
///
/// ```
/// use weft::{Engine, Linker, Module, Store};
/// use weft_wasi::preview1::{self, WasiP1Ctx};
/// use weft_wasi::{MemoryOutputPipe, WasiCtxBuilder};
///
/// let engine = Engine::default();
/// let mut linker: Linker<WasiP1Ctx> = Linker::new(&engine);
/// preview1::add_to_linker_sync(&mut linker, |t| t)?;
/// let stdout = MemoryOutputPipe::new(1024);
/// let wasi = WasiCtxBuilder::new().stdout(stdout.clone()).build_p1();
/// let mut store = Store::new(&engine, wasi);
/// let module = Module::new(&engine, r#"(module
///     (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
///     (memory (export "memory") 1)
///     (data (i32.const 16) "hi\n")
///     (data (i32.const 0) "\10\00\00\00\03\00\00\00")
///     (func (export "_start") (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))"#)?;
/// linker.module(&mut store, "", &module)?;
/// linker.get_default(&mut store, "")?.typed::<(), ()>(&store)?.call(&mut store, ())?;
/// assert_eq!(&stdout.contents()[..], b"hi\n");
/// # Ok::<(), anyhow::Error>(())
/// ```
pub fn add_to_linker_sync<T: 'static>(
    linker: &mut Linker<T>,
    get: impl Fn(&mut T) -> &mut WasiP1Ctx + Copy + Send + Sync + 'static,
) -> anyhow::Result<()> {
    for_each_function!(define, linker, get);
    define!(linker, get, "poll_oneoff" => poll::poll_oneoff, (subs: i32 as u32, events: i32 as u32, n: i32 as u32, out: i32 as u32));
    // `proc_exit` returns nothing: it always ends the call.
    linker.func_wrap(
        MODULE,
        "proc_exit",
        move |mut caller: Caller<'_, T>, status: i32| -> anyhow::Result<()> {
            dispatch(&mut caller, get, |ctx, mem| proc::exit(ctx, mem, status as u32)).map(|_| ())
        },
    )?;
    Ok(())
}

/// Defines `$name` in the linker as an async host function whose future
/// runs the implementation when first polled.
#[cfg(feature = "async")]
macro_rules! define_async {
    ($linker:ident, $get:ident, $name:literal => $f:path, ($($arg:ident : $w:ty as $r:ty),*)) => {
        $linker.func_wrap_async(MODULE, $name, move |mut caller: Caller<'_, T>, ($($arg,)*): ($($w,)*)| {
            Box::new(async move { dispatch(&mut caller, $get, |ctx, mem| $f(ctx, mem, $($arg as $r),*)) })
        })?;
    };
}

/// Adds every function of `wasi_snapshot_preview1` to `linker` as async
/// host functions, for guests called with `call_async`; `get` finds the
/// [`WasiP1Ctx`] in the store's data.
///
/// `poll_oneoff` waiting for clocks only suspends the guest and lets the
/// executor run other tasks until the earliest clock (a helper thread wakes
/// the future: no particular async runtime is needed). Everything else,
/// including waits on the host's stdin and on sockets, completes within
/// the first poll of its future, as the sync functions do.
///
/// ```
/// use weft::{Config, Engine, Linker, Module, Store};
/// use weft_wasi::preview1::{self, WasiP1Ctx};
/// use weft_wasi::WasiCtxBuilder;
///
/// let config = Config::new();
/// let engine = Engine::new(&config)?;
/// let mut linker: Linker<WasiP1Ctx> = Linker::new(&engine);
/// preview1::add_to_linker_async(&mut linker, |t| t)?;
/// let mut store = Store::new(&engine, WasiCtxBuilder::new().build_p1());
/// let module = Module::new(&engine, r#"(module
///     (import "wasi_snapshot_preview1" "sched_yield" (func $yield (result i32)))
///     (memory (export "memory") 1)
///     (func (export "_start") (drop (call $yield))))"#)?;
/// let run = async {
///     let instance = linker.instantiate_async(&mut store, &module).await?;
///     let start = instance.get_typed_func::<(), ()>(&mut store, "_start")?;
///     start.call_async(&mut store, ()).await
/// };
/// # let _ = run;
/// # Ok::<(), anyhow::Error>(())
/// ```
#[cfg(feature = "async")]
pub fn add_to_linker_async<T: Send + 'static>(
    linker: &mut Linker<T>,
    get: impl Fn(&mut T) -> &mut WasiP1Ctx + Copy + Send + Sync + 'static,
) -> anyhow::Result<()> {
    for_each_function!(define_async, linker, get);
    linker.func_wrap_async(
        MODULE,
        "poll_oneoff",
        move |mut caller: Caller<'_, T>, (subs, events, n, out): (i32, i32, i32, i32)| {
            Box::new(async move {
                let prepared = with_memory(&mut caller, get, |ctx, mem| {
                    poll::prepare(ctx, mem, subs as u32, events as u32, n as u32, out as u32)
                });
                let plan = match prepared {
                    Ok(plan) => plan,
                    Err(e) => return to_wasm(Err(e)),
                };
                if let Some(d) = plan.sleep {
                    crate::sleep::Sleep::new(d).await;
                }
                dispatch(&mut caller, get, |_, mem| poll::finish(plan, mem))
            })
        },
    )?;
    linker.func_wrap_async(
        MODULE,
        "proc_exit",
        move |mut caller: Caller<'_, T>, (status,): (i32,)| {
            Box::new(
                async move { dispatch(&mut caller, get, |ctx, mem| proc::exit(ctx, mem, status as u32)).map(|_| ()) },
            )
        },
    )?;
    Ok(())
}
