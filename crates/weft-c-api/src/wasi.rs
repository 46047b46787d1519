//! `wasi.h`: WASI configurations (`wasi_config_t`), given to a store with
//! `weft_context_set_wasi`, over `weft-wasi`.
//!
//! A configuration is kept as plain settings (the standard streams as
//! files, bytes or callbacks that can be shared), and the store builds
//! from it both contexts a guest may use: WASI preview1's, for the
//! functions `weft_linker_define_wasi` defines, and WASI 0.2's, for those
//! of `weft_component_linker_add_wasip2`. Only the one the guest links to
//! is ever used; the other is never read from or written to.

use crate::error::{catch_err, weft_error_t};
use crate::guard;
use crate::host_env::Finalizer;
use crate::host_env::HostEnv;
use crate::store::weft_context_t;
use crate::vec::wasm_byte_vec_t;
use std::ffi::{c_char, c_uchar, c_void, CStr};
use std::io;
use std::sync::{Arc, Mutex};
use weft_wasi::{FsPerms, WasiCtxBuilder};

/// Where a standard stream of the guest goes (or comes from).
enum Stream {
    /// The host process's own stream.
    Inherit,
    /// A file (each context gets its own handle of the same open file).
    File(std::fs::File),
    /// Bytes (stdin only).
    Bytes(Vec<u8>),
    /// A host callback (stdout and stderr only), shared by the contexts
    /// built from the configuration: its finalizer runs once, when the last
    /// of them is dropped.
    Custom(Arc<Mutex<CustomOutput>>),
}

/// The shared output of a host callback, as a stream of a context.
struct SharedOutput(Arc<Mutex<CustomOutput>>);

impl weft_wasi::IsTerminal for SharedOutput {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl weft_wasi::StdoutStream for SharedOutput {
    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(CallbackWriter(self.0.clone()))
    }
}

/// A writer calling the host's callback (each write completes at once).
struct CallbackWriter(Arc<Mutex<CustomOutput>>);

impl tokio::io::AsyncWrite for CallbackWriter {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<io::Result<usize>> {
        let r = match self.0.lock() {
            Ok(mut out) => out.write(buf),
            Err(_) => Err(io::Error::other("the WASI output callback panicked earlier")),
        };
        std::task::Poll::Ready(r)
    }
    fn poll_flush(self: std::pin::Pin<&mut Self>, _cx: &mut std::task::Context<'_>) -> std::task::Poll<io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}

/// `wasi_config_t`: the arguments, environment, standard streams and
/// preopened directories of a guest.
#[derive(Default)]
pub struct wasi_config_t {
    args: Vec<String>,
    inherit_args: bool,
    env: Vec<(String, String)>,
    inherit_env: bool,
    stdin: Option<Stream>,
    stdout: Option<Stream>,
    stderr: Option<Stream>,
    preopens: Vec<(String, String, bool)>,
    inherit_network: bool,
    allow_ip_name_lookup: bool,
}

/// The callback of `wasi_config_set_stdout_custom`.
pub type wasi_write_callback_t = Option<unsafe extern "C" fn(*mut c_void, *const c_uchar, usize) -> isize>;

/// Output written by a host callback.
struct CustomOutput {
    callback: unsafe extern "C" fn(*mut c_void, *const c_uchar, usize) -> isize,
    env: HostEnv,
}

impl CustomOutput {
    /// Calls the host with `buf`.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // SAFETY: the host's callback with its data and `buf.len()` bytes.
        let n = unsafe { (self.callback)(self.env.data(), buf.as_ptr(), buf.len()) };
        if n < 0 {
            Err(io::Error::from_raw_os_error(
                n.unsigned_abs().min(i32::MAX as usize) as i32
            ))
        } else {
            Ok((n as usize).min(buf.len()))
        }
    }
}

/// A new configuration: no arguments, an empty environment, an empty
/// stdin, stdout and stderr thrown away, no preopened directories.
#[no_mangle]
pub extern "C" fn wasi_config_new() -> Option<Box<wasi_config_t>> {
    Some(Box::default())
}

/// Deletes a configuration.
#[no_mangle]
pub extern "C" fn wasi_config_delete(config: Option<Box<wasi_config_t>>) {
    guard(|| (), || drop(config))
}

/// # Safety
///
/// `s` is null or a NUL-terminated string.
unsafe fn cstr(s: *const c_char) -> Option<String> {
    if s.is_null() {
        return None;
    }
    // SAFETY: the caller's contract.
    unsafe { CStr::from_ptr(s) }.to_str().ok().map(str::to_string)
}

/// The guest's arguments (copied); false if one is not UTF-8.
///
/// # Safety
///
/// `argv` points to `argc` NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn wasi_config_set_argv(
    config: Option<&mut wasi_config_t>,
    argc: usize,
    argv: *const *const c_char,
) -> bool {
    guard(
        || false,
        || {
            let Some(c) = config else { return false };
            let mut args = Vec::with_capacity(argc);
            for i in 0..argc {
                // SAFETY: the caller gives `argc` strings.
                let Some(a) = (unsafe { cstr(*argv.add(i)) }) else {
                    return false;
                };
                args.push(a);
            }
            c.args = args;
            c.inherit_args = false;
            true
        },
    )
}

/// The guest's arguments are the host process's.
#[no_mangle]
pub extern "C" fn wasi_config_inherit_argv(config: Option<&mut wasi_config_t>) {
    if let Some(c) = config {
        c.inherit_args = true;
        c.args.clear();
    }
}

/// The guest's environment (copied); false if a name or value is not UTF-8.
///
/// # Safety
///
/// `names` and `values` point to `envc` NUL-terminated strings each.
#[no_mangle]
pub unsafe extern "C" fn wasi_config_set_env(
    config: Option<&mut wasi_config_t>,
    envc: usize,
    names: *const *const c_char,
    values: *const *const c_char,
) -> bool {
    guard(
        || false,
        || {
            let Some(c) = config else { return false };
            let mut env = Vec::with_capacity(envc);
            for i in 0..envc {
                // SAFETY: the caller gives `envc` names and values.
                let (Some(n), Some(v)) = (unsafe { cstr(*names.add(i)) }, unsafe { cstr(*values.add(i)) }) else {
                    return false;
                };
                env.push((n, v));
            }
            c.env = env;
            c.inherit_env = false;
            true
        },
    )
}

/// The guest's environment is the host process's.
#[no_mangle]
pub extern "C" fn wasi_config_inherit_env(config: Option<&mut wasi_config_t>) {
    if let Some(c) = config {
        c.inherit_env = true;
        c.env.clear();
    }
}

/// # Safety
///
/// `path` is null or a NUL-terminated string.
unsafe fn open(path: *const c_char, write: bool) -> Option<std::fs::File> {
    // SAFETY: the caller's contract.
    let path = unsafe { cstr(path) }?;
    if write {
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .ok()
    } else {
        std::fs::File::open(path).ok()
    }
}

/// The guest's stdin reads the file `path`; false if it cannot be opened.
///
/// # Safety
///
/// `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn wasi_config_set_stdin_file(config: Option<&mut wasi_config_t>, path: *const c_char) -> bool {
    guard(
        || false,
        || {
            let Some(c) = config else { return false };
            // SAFETY: the caller's contract.
            match unsafe { open(path, false) } {
                Some(f) => {
                    c.stdin = Some(Stream::File(f));
                    true
                }
                None => false,
            }
        },
    )
}

/// The guest's stdin reads `binary` (taken).
#[no_mangle]
pub extern "C" fn wasi_config_set_stdin_bytes(
    config: Option<&mut wasi_config_t>,
    binary: Option<&mut wasm_byte_vec_t>,
) {
    guard(
        || (),
        || {
            let (Some(c), Some(b)) = (config, binary) else { return };
            c.stdin = Some(Stream::Bytes(b.take()));
        },
    )
}

/// The guest's stdin is the host process's.
#[no_mangle]
pub extern "C" fn wasi_config_inherit_stdin(config: Option<&mut wasi_config_t>) {
    if let Some(c) = config {
        c.stdin = Some(Stream::Inherit);
    }
}

/// The guest's stdout writes the file `path` (created or truncated); false
/// if it cannot be opened.
///
/// # Safety
///
/// `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn wasi_config_set_stdout_file(config: Option<&mut wasi_config_t>, path: *const c_char) -> bool {
    guard(
        || false,
        || {
            let Some(c) = config else { return false };
            // SAFETY: the caller's contract.
            match unsafe { open(path, true) } {
                Some(f) => {
                    c.stdout = Some(Stream::File(f));
                    true
                }
                None => false,
            }
        },
    )
}

/// The guest's stdout is the host process's.
#[no_mangle]
pub extern "C" fn wasi_config_inherit_stdout(config: Option<&mut wasi_config_t>) {
    if let Some(c) = config {
        c.stdout = Some(Stream::Inherit);
    }
}

/// The guest's stdout calls `callback` with each write.
#[no_mangle]
pub extern "C" fn wasi_config_set_stdout_custom(
    config: Option<&mut wasi_config_t>,
    callback: wasi_write_callback_t,
    data: *mut c_void,
    finalizer: Finalizer,
) {
    let env = HostEnv::new(data, finalizer);
    guard(
        || (),
        || {
            let (Some(c), Some(callback)) = (config, callback) else {
                return;
            };
            c.stdout = Some(Stream::Custom(Arc::new(Mutex::new(CustomOutput { callback, env }))));
        },
    )
}

/// The guest's stderr writes the file `path`; false if it cannot be opened.
///
/// # Safety
///
/// `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn wasi_config_set_stderr_file(config: Option<&mut wasi_config_t>, path: *const c_char) -> bool {
    guard(
        || false,
        || {
            let Some(c) = config else { return false };
            // SAFETY: the caller's contract.
            match unsafe { open(path, true) } {
                Some(f) => {
                    c.stderr = Some(Stream::File(f));
                    true
                }
                None => false,
            }
        },
    )
}

/// The guest's stderr is the host process's.
#[no_mangle]
pub extern "C" fn wasi_config_inherit_stderr(config: Option<&mut wasi_config_t>) {
    if let Some(c) = config {
        c.stderr = Some(Stream::Inherit);
    }
}

/// The guest's stderr calls `callback` with each write.
#[no_mangle]
pub extern "C" fn wasi_config_set_stderr_custom(
    config: Option<&mut wasi_config_t>,
    callback: wasi_write_callback_t,
    data: *mut c_void,
    finalizer: Finalizer,
) {
    let env = HostEnv::new(data, finalizer);
    guard(
        || (),
        || {
            let (Some(c), Some(callback)) = (config, callback) else {
                return;
            };
            c.stderr = Some(Stream::Custom(Arc::new(Mutex::new(CustomOutput { callback, env }))));
        },
    )
}

/// Gives the guest the host directory `host_path` as `guest_path`
/// (read-only unless `fs_mutable`); false on bad UTF-8 or if the directory
/// cannot be opened.
///
/// # Safety
///
/// Both paths are NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn wasi_config_preopen_dir(
    config: Option<&mut wasi_config_t>,
    host_path: *const c_char,
    guest_path: *const c_char,
    fs_mutable: bool,
) -> bool {
    guard(
        || false,
        || {
            let Some(c) = config else { return false };
            // SAFETY: the caller's contract.
            let (Some(h), Some(g)) = (unsafe { cstr(host_path) }, unsafe { cstr(guest_path) }) else {
                return false;
            };
            if !std::path::Path::new(&h).is_dir() {
                return false;
            }
            c.preopens.push((h, g, fs_mutable));
            true
        },
    )
}

/// Lets a WASI 0.2 guest's sockets bind, connect and send to every
/// address (by default none). WASI preview1 opens no sockets.
#[no_mangle]
pub extern "C" fn wasi_config_inherit_network(config: Option<&mut wasi_config_t>) {
    if let Some(c) = config {
        c.inherit_network = true;
    }
}

/// Lets a WASI 0.2 guest look up host names (`wasi:sockets/ip-name-lookup`;
/// by default not). WASI preview1 has no name lookups.
#[no_mangle]
pub extern "C" fn wasi_config_allow_ip_name_lookup(config: Option<&mut wasi_config_t>, enable: bool) {
    if let Some(c) = config {
        c.allow_ip_name_lookup = enable;
    }
}

/// The contexts of a store built from one configuration: WASI preview1's
/// and WASI 0.2's.
pub(crate) struct WasiContexts {
    pub(crate) p1: weft_wasi::WasiP1Ctx,
    pub(crate) p2: weft_wasi::p2::WasiCtx,
}

impl wasi_config_t {
    /// A builder holding these settings, with its own handles of the
    /// configuration's files.
    fn builder(&self) -> anyhow::Result<WasiCtxBuilder> {
        let mut b = WasiCtxBuilder::new();
        if self.inherit_args {
            b.inherit_args();
        } else {
            b.args(&self.args);
        }
        if self.inherit_env {
            b.inherit_env();
        } else {
            b.envs(&self.env);
        }
        let dup = |f: &std::fs::File, which: &str| {
            f.try_clone()
                .map_err(|e| anyhow::anyhow!("wasi_config_t: duplicating the {which} file failed: {e}"))
        };
        match &self.stdin {
            Some(Stream::Inherit) => {
                b.inherit_stdin();
            }
            Some(Stream::File(f)) => {
                b.stdin(weft_wasi::InputFile::new(dup(f, "stdin")?));
            }
            Some(Stream::Bytes(bytes)) => {
                b.stdin(weft_wasi::MemoryInputPipe::new(bytes.clone()));
            }
            _ => {}
        }
        for (stream, which) in [(&self.stdout, "stdout"), (&self.stderr, "stderr")] {
            let out: Box<dyn weft_wasi::StdoutStream> = match stream {
                Some(Stream::Inherit) if which == "stdout" => Box::new(weft_wasi::stdout()),
                Some(Stream::Inherit) => Box::new(weft_wasi::stderr()),
                Some(Stream::File(f)) => Box::new(weft_wasi::OutputFile::new(dup(f, which)?)),
                Some(Stream::Custom(c)) => Box::new(SharedOutput(c.clone())),
                _ => continue,
            };
            if which == "stdout" {
                b.stdout(BoxedOutput(out));
            } else {
                b.stderr(BoxedOutput(out));
            }
        }
        for (host, guest, mutable) in &self.preopens {
            let perms = if *mutable {
                FsPerms::ReadWrite
            } else {
                FsPerms::ReadOnly
            };
            b.preopened_dir(host, guest, perms)?;
        }
        // As Wasmtime's: TCP and UDP are allowed, and every address is
        // refused unless the network is inherited.
        b.allow_tcp(true).allow_udp(true);
        b.allow_ip_name_lookup(self.allow_ip_name_lookup);
        if self.inherit_network {
            b.inherit_network();
        }
        Ok(b)
    }

    /// Both contexts of these settings.
    fn build(&self) -> anyhow::Result<WasiContexts> {
        Ok(WasiContexts {
            p1: self.builder()?.build_p1(),
            p2: self.builder()?.build(),
        })
    }
}

/// A boxed output stream, as a stream.
struct BoxedOutput(Box<dyn weft_wasi::StdoutStream>);

impl weft_wasi::IsTerminal for BoxedOutput {
    fn is_terminal(&self) -> bool {
        self.0.is_terminal()
    }
}

impl weft_wasi::StdoutStream for BoxedOutput {
    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        self.0.async_stream()
    }
    fn p2_stream(&self) -> Box<dyn weft_wasi::p2::OutputStream> {
        self.0.p2_stream()
    }
}

/// Gives the store the WASI contexts of `wasi` (taken, even on error): the
/// preview1 context of the functions `weft_linker_define_wasi` defines and
/// the WASI 0.2 context of those of `weft_component_linker_add_wasip2`.
#[no_mangle]
pub extern "C" fn weft_context_set_wasi(
    context: Option<&weft_context_t>,
    wasi: Option<Box<wasi_config_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let c = context.ok_or_else(|| crate::null_error("context"))?;
        let wasi = wasi.ok_or_else(|| crate::null_error("wasi"))?;
        let WasiContexts { p1, p2 } = wasi.build()?;
        // SAFETY: a context used only inside this function.
        let mut cx = unsafe { c.ctx() };
        let data = cx.data_mut();
        data.wasi = Some(p1);
        data.wasip2 = Some(crate::store::WasiP2 {
            ctx: p2,
            table: weft::component::ResourceTable::new(),
        });
        Ok(())
    })
}

/// Gives the store a new `wasi:http` context (Wasmtime's
/// `wasmtime_context_set_wasi_http`), for the functions
/// `weft_component_linker_add_wasi_http` (and `_async`) define. Its
/// resources live in the WASI 0.2 table of `weft_context_set_wasi`, so call
/// it after that one (a store with no WASI context gets an empty one).
/// Outgoing requests are refused with `HTTP-request-denied`. A null
/// `context` does nothing (the function has no way to report it).
#[no_mangle]
pub extern "C" fn weft_context_set_wasi_http(context: Option<&weft_context_t>) {
    guard(
        || (),
        || {
            let Some(c) = context else { return };
            // SAFETY: a context used only inside this function.
            let mut cx = unsafe { c.ctx() };
            cx.data_mut().wasi_http = Some(weft_wasi_http::WasiHttpCtx::new());
        },
    )
}
