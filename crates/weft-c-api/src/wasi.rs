//! `wasi.h`: WASI preview1 configurations (`wasi_config_t`), given to a
//! store with `weft_context_set_wasi` and linked with
//! `weft_linker_define_wasi`, over `weft-wasi`.

use crate::error::{catch_err, weft_error_t};
use crate::func::HostEnv;
use crate::guard;
use crate::store::{weft_context_t, Finalizer};
use crate::vec::wasm_byte_vec_t;
use std::ffi::{c_char, c_uchar, c_void, CStr};
use std::io;
use weft_wasi::{DirPerms, FilePerms, WasiCtxBuilder};

/// Where a standard stream of the guest goes (or comes from).
enum Stream {
    /// The host process's own stream.
    Inherit,
    /// A file.
    File(std::fs::File),
    /// Bytes (stdin only).
    Bytes(Vec<u8>),
    /// A host callback (stdout and stderr only).
    Custom(CustomOutput),
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
}

/// The callback of `wasi_config_set_stdout_custom`.
pub type wasi_write_callback_t = Option<unsafe extern "C" fn(*mut c_void, *const c_uchar, usize) -> isize>;

/// Output written by a host callback.
struct CustomOutput {
    callback: unsafe extern "C" fn(*mut c_void, *const c_uchar, usize) -> isize,
    env: HostEnv,
}

impl weft_wasi::StdoutStream for CustomOutput {
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
            c.stdout = Some(Stream::Custom(CustomOutput { callback, env }));
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
            c.stderr = Some(Stream::Custom(CustomOutput { callback, env }));
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

/// Network access: Weft's WASI preview1 has no sockets to open; accepted
/// and ignored.
#[no_mangle]
pub extern "C" fn wasi_config_inherit_network(_config: Option<&mut wasi_config_t>) {}

/// Name lookups: Weft's WASI preview1 has none; accepted and ignored.
#[no_mangle]
pub extern "C" fn wasi_config_allow_ip_name_lookup(_config: Option<&mut wasi_config_t>, _enable: bool) {}

/// The WASI context of `config`.
fn build(config: wasi_config_t) -> anyhow::Result<weft_wasi::WasiP1Ctx> {
    let mut b = WasiCtxBuilder::new();
    if config.inherit_args {
        b.inherit_args();
    } else {
        b.args(&config.args);
    }
    if config.inherit_env {
        b.inherit_env();
    } else {
        b.envs(&config.env);
    }
    match config.stdin {
        Some(Stream::Inherit) => {
            b.inherit_stdin();
        }
        Some(Stream::File(f)) => {
            b.stdin(weft_wasi::InputFile::new(f));
        }
        Some(Stream::Bytes(bytes)) => {
            b.stdin(weft_wasi::MemoryInputPipe::new(bytes));
        }
        _ => {}
    }
    match config.stdout {
        Some(Stream::Inherit) => {
            b.inherit_stdout();
        }
        Some(Stream::File(f)) => {
            b.stdout(weft_wasi::OutputFile::new(f));
        }
        Some(Stream::Custom(c)) => {
            b.stdout(c);
        }
        _ => {}
    }
    match config.stderr {
        Some(Stream::Inherit) => {
            b.inherit_stderr();
        }
        Some(Stream::File(f)) => {
            b.stderr(weft_wasi::OutputFile::new(f));
        }
        Some(Stream::Custom(c)) => {
            b.stderr(c);
        }
        _ => {}
    }
    for (host, guest, mutable) in config.preopens {
        let (d, f) = if mutable {
            (DirPerms::all(), FilePerms::all())
        } else {
            (DirPerms::READ, FilePerms::READ)
        };
        b.preopened_dir(&host, &guest, d, f)?;
    }
    Ok(b.build_p1())
}

/// Gives the store the WASI context of `wasi` (taken), for the functions
/// `weft_linker_define_wasi` defines.
#[no_mangle]
pub extern "C" fn weft_context_set_wasi(
    context: Option<&weft_context_t>,
    wasi: Option<Box<wasi_config_t>>,
) -> Option<Box<weft_error_t>> {
    catch_err(|| {
        let c = context.ok_or_else(|| crate::null_error("context"))?;
        let wasi = wasi.ok_or_else(|| crate::null_error("wasi"))?;
        let ctx = build(*wasi)?;
        // SAFETY: a context used only inside this function.
        unsafe { c.ctx() }.data_mut().wasi = Some(ctx);
        Ok(())
    })
}
