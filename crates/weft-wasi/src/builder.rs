//! `WasiCtxBuilder`: what a guest may see and touch.

use crate::ctx::{DirDesc, Entry, FdTable, Kind, WasiP1Ctx};
use crate::perms::FsPerms;
use crate::stdio::{self, ClosedInputStream, SinkOutputStream, StdinStream, StdoutStream};
use crate::types::rights;
use anyhow::Context as _;
use std::net::{TcpListener, TcpStream};
use std::path::Path;

enum Preopen {
    Dir(cap_std::fs::Dir, String, FsPerms),
    Listener(TcpListener),
    Stream(TcpStream),
}

/// Builds a [`WasiP1Ctx`], as Wasmtime's `WasiCtxBuilder`: by default the
/// guest has no arguments, no environment, no directories, an empty stdin,
/// and stdout and stderr that discard what is written.
///
/// ```
/// use weft_wasi::{FsPerms, MemoryOutputPipe, WasiCtxBuilder};
/// let stdout = MemoryOutputPipe::new(1 << 20);
/// let ctx = WasiCtxBuilder::new()
///     .arg("prog")
///     .arg("--verbose")
///     .env("HOME", "/")
///     .stdout(stdout.clone())
///     .preopened_dir(".", ".", FsPerms::ReadOnly)?
///     .build_p1();
/// assert_eq!(ctx.args(), ["prog", "--verbose"]);
/// # Ok::<(), anyhow::Error>(())
/// ```
pub struct WasiCtxBuilder {
    stdin: Box<dyn StdinStream>,
    stdout: Box<dyn StdoutStream>,
    stderr: Box<dyn StdoutStream>,
    args: Vec<String>,
    env: Vec<(String, String)>,
    preopens: Vec<Preopen>,
    initial_cwd: Option<String>,
    insecure_random_seed: Option<u128>,
    max_random_size: u64,
    #[cfg_attr(
        not(feature = "p2"),
        allow(dead_code, reason = "read only by `build`, the WASI 0.2 context")
    )]
    allow_blocking_current_thread: bool,
    #[cfg(feature = "p2")]
    secure_random: Option<Box<dyn crate::Rng + Send>>,
    #[cfg(feature = "p2")]
    insecure_random: Option<Box<dyn crate::Rng + Send>>,
    #[cfg(feature = "p2")]
    wall_clock: Option<Box<dyn crate::HostWallClock + Send>>,
    #[cfg(feature = "p2")]
    monotonic_clock: Option<Box<dyn crate::HostMonotonicClock + Send>>,
    allow_tcp: bool,
    allow_udp: bool,
    allow_ip_name_lookup: bool,
    inherit_network: bool,
    #[cfg(feature = "p2")]
    socket_addr_check: Option<crate::sockets::AddrCheck>,
}

impl Default for WasiCtxBuilder {
    fn default() -> Self {
        WasiCtxBuilder {
            stdin: Box::new(ClosedInputStream),
            stdout: Box::new(SinkOutputStream),
            stderr: Box::new(SinkOutputStream),
            args: Vec::new(),
            env: Vec::new(),
            preopens: Vec::new(),
            initial_cwd: None,
            insecure_random_seed: None,
            max_random_size: 64 << 20,
            allow_blocking_current_thread: false,
            #[cfg(feature = "p2")]
            secure_random: None,
            #[cfg(feature = "p2")]
            insecure_random: None,
            #[cfg(feature = "p2")]
            wall_clock: None,
            #[cfg(feature = "p2")]
            monotonic_clock: None,
            allow_tcp: false,
            allow_udp: false,
            allow_ip_name_lookup: false,
            inherit_network: false,
            #[cfg(feature = "p2")]
            socket_addr_check: None,
        }
    }
}

impl WasiCtxBuilder {
    /// A builder for a guest that sees nothing (see the type's docs).
    pub fn new() -> Self {
        Self::default()
    }

    /// Standard input from `stdin` (a [`crate::MemoryInputPipe`], an
    /// [`crate::InputFile`], [`crate::stdin()`], ...).
    pub fn stdin(&mut self, stdin: impl StdinStream + 'static) -> &mut Self {
        self.stdin = Box::new(stdin);
        self
    }

    /// Standard output to `stdout` (a [`crate::MemoryOutputPipe`], an
    /// [`crate::OutputFile`], [`crate::stdout()`], ...).
    pub fn stdout(&mut self, stdout: impl StdoutStream + 'static) -> &mut Self {
        self.stdout = Box::new(stdout);
        self
    }

    /// Standard error to `stderr`.
    pub fn stderr(&mut self, stderr: impl StdoutStream + 'static) -> &mut Self {
        self.stderr = Box::new(stderr);
        self
    }

    /// The host's standard input.
    pub fn inherit_stdin(&mut self) -> &mut Self {
        self.stdin(stdio::stdin())
    }

    /// The host's standard output.
    pub fn inherit_stdout(&mut self) -> &mut Self {
        self.stdout(stdio::stdout())
    }

    /// The host's standard error.
    pub fn inherit_stderr(&mut self) -> &mut Self {
        self.stderr(stdio::stderr())
    }

    /// The host's standard input, output and error.
    pub fn inherit_stdio(&mut self) -> &mut Self {
        self.inherit_stdin().inherit_stdout().inherit_stderr()
    }

    /// Appends `args` to the arguments (the first is the program's name).
    pub fn args(&mut self, args: &[impl AsRef<str>]) -> &mut Self {
        self.args.extend(args.iter().map(|a| a.as_ref().to_string()));
        self
    }

    /// Appends one argument.
    pub fn arg(&mut self, arg: impl AsRef<str>) -> &mut Self {
        self.args.push(arg.as_ref().to_string());
        self
    }

    /// Appends the host process's arguments (not valid UTF-8 ones are
    /// converted lossily).
    pub fn inherit_args(&mut self) -> &mut Self {
        self.args
            .extend(std::env::args_os().map(|a| a.to_string_lossy().into_owned()));
        self
    }

    /// Sets the environment variable `key` to `value`.
    pub fn env(&mut self, key: impl AsRef<str>, value: impl AsRef<str>) -> &mut Self {
        let (key, value) = (key.as_ref().to_string(), value.as_ref().to_string());
        match self.env.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => self.env.push((key, value)),
        }
        self
    }

    /// Sets each of `env`.
    pub fn envs(&mut self, env: &[(impl AsRef<str>, impl AsRef<str>)]) -> &mut Self {
        for (k, v) in env {
            self.env(k, v);
        }
        self
    }

    /// Sets every environment variable of the host process (not valid UTF-8
    /// ones are converted lossily).
    pub fn inherit_env(&mut self) -> &mut Self {
        for (k, v) in std::env::vars_os() {
            self.env(k.to_string_lossy(), v.to_string_lossy());
        }
        self
    }

    /// Gives the guest the host directory `host_path` under the name
    /// `guest_path`. The guest reaches nothing outside it: not by `..`, an
    /// absolute path, a symlink, a rename or a hard link. Fails when the
    /// directory cannot be opened. With [`FsPerms::ReadOnly`] the guest may
    /// only list, open, stat and read what is there; with
    /// [`FsPerms::ReadWrite`] it may also create, remove, rename, link and
    /// write.
    pub fn preopened_dir(
        &mut self,
        host_path: impl AsRef<Path>,
        guest_path: impl AsRef<str>,
        perms: FsPerms,
    ) -> anyhow::Result<&mut Self> {
        let host_path = host_path.as_ref();
        let dir = cap_std::fs::Dir::open_ambient_dir(host_path, cap_std::ambient_authority())
            .with_context(|| format!("failed to open directory `{}`", host_path.display()))?;
        self.preopens
            .push(Preopen::Dir(dir, guest_path.as_ref().to_string(), perms));
        Ok(self)
    }

    /// Gives the guest a listening TCP socket, on which it may
    /// `sock_accept` connections. It gets the next file descriptor after
    /// those given before.
    pub fn preopened_socket(&mut self, listener: TcpListener) -> &mut Self {
        self.preopens.push(Preopen::Listener(listener));
        self
    }

    /// Gives the guest a connected TCP stream (`sock_recv`, `sock_send`,
    /// `sock_shutdown`, `fd_read`, `fd_write`).
    pub fn preopened_stream(&mut self, stream: TcpStream) -> &mut Self {
        self.preopens.push(Preopen::Stream(stream));
        self
    }

    /// The directory a WASI 0.2 guest's `initial-cwd` reports (none by
    /// default).
    pub fn initial_cwd(&mut self, path: impl AsRef<str>) -> &mut Self {
        self.initial_cwd = Some(path.as_ref().to_string());
        self
    }

    /// The value of WASI 0.2's `insecure-seed` (random by default).
    pub fn insecure_random_seed(&mut self, seed: u128) -> &mut Self {
        self.insecure_random_seed = Some(seed);
        self
    }

    /// The generator of a WASI 0.2/0.3 guest's `wasi:random/random` (by
    /// default [`crate::thread_rng`]). Give a secure one unless the guest
    /// must be predictable (a test's [`crate::Deterministic`]).
    #[cfg(feature = "p2")]
    pub fn secure_random(&mut self, random: impl crate::Rng + Send + 'static) -> &mut Self {
        self.secure_random = Some(Box::new(random));
        self
    }

    /// The generator of a WASI 0.2/0.3 guest's `wasi:random/insecure` (by
    /// default a fast one seeded from the operating system).
    #[cfg(feature = "p2")]
    pub fn insecure_random(&mut self, insecure_random: impl crate::Rng + Send + 'static) -> &mut Self {
        self.insecure_random = Some(Box::new(insecure_random));
        self
    }

    /// The wall clock a WASI 0.2/0.3 guest's `wasi:clocks/wall-clock` reads
    /// (by default the host's).
    #[cfg(feature = "p2")]
    pub fn wall_clock(&mut self, clock: impl crate::HostWallClock + 'static) -> &mut Self {
        self.wall_clock = Some(Box::new(clock));
        self
    }

    /// The clock a WASI 0.2/0.3 guest's `wasi:clocks/monotonic-clock`
    /// reads (by default the host's).
    #[cfg(feature = "p2")]
    pub fn monotonic_clock(&mut self, clock: impl crate::HostMonotonicClock + 'static) -> &mut Self {
        self.monotonic_clock = Some(Box::new(clock));
        self
    }

    /// Whether blocking file-system work of a WASI 0.2/0.3 guest may run
    /// on the calling thread (default `false`), as Wasmtime 48's.
    ///
    /// By default the `wasi:filesystem` functions that touch the disk
    /// (open, read, write, stat, list, rename, sync, ...) run that work on a
    /// thread of weft-wasi's tokio blocking pool and await it, so the thread
    /// that polls the guest under `call_async` (an executor's) goes on
    /// running other tasks meanwhile; the synchronous bindings park their
    /// thread until the work is done. With `true` the work runs on the
    /// calling thread, which saves the hand-over to another thread but
    /// blocks it (and, on a current-thread runtime, every other task) for
    /// as long as the disk takes. The checks before the work (handles,
    /// open modes, permissions) always run on the calling thread.
    ///
    /// The setting is given to each preopened directory, and from a
    /// directory to what a guest opens in it, file streams included; a
    /// descriptor an embedder makes itself (`p2::File::new`,
    /// `p2::Dir::new`) carries the setting it was made with.
    pub fn allow_blocking_current_thread(&mut self, enable: bool) -> &mut Self {
        self.allow_blocking_current_thread = enable;
        self
    }

    /// The most random bytes one WASI 0.2 call may ask for (64 MiB by
    /// default); asking for more traps.
    pub fn max_random_size(&mut self, max_size: u64) -> &mut Self {
        self.max_random_size = max_size;
        self
    }

    /// Lets a WASI 0.2 guest use TCP (denied by default).
    pub fn allow_tcp(&mut self, enable: bool) -> &mut Self {
        self.allow_tcp = enable;
        self
    }

    /// Lets a WASI 0.2 guest use UDP (denied by default).
    pub fn allow_udp(&mut self, enable: bool) -> &mut Self {
        self.allow_udp = enable;
        self
    }

    /// Lets a WASI 0.2 guest resolve host names (denied by default).
    pub fn allow_ip_name_lookup(&mut self, enable: bool) -> &mut Self {
        self.allow_ip_name_lookup = enable;
        self
    }

    /// Lets a WASI 0.2 guest's sockets reach every address (by default
    /// none); TCP and UDP must still be allowed. Replaces a
    /// `socket_addr_check` (feature `p2`).
    pub fn inherit_network(&mut self) -> &mut Self {
        self.inherit_network = true;
        #[cfg(feature = "p2")]
        {
            self.socket_addr_check = None;
        }
        self
    }

    /// Decides which addresses a WASI 0.2/0.3 guest's sockets may bind,
    /// listen on, connect or send to, and accept or receive from: the
    /// future `check` returns gives `true` to allow (by default every
    /// address is refused). The future is driven to its end on the thread
    /// of the host call that checks the address. Replaces
    /// [`WasiCtxBuilder::inherit_network`].
    ///
    /// ```
    /// use weft_wasi::WasiCtxBuilder;
    /// // Loopback only.
    /// WasiCtxBuilder::new()
    ///     .allow_tcp(true)
    ///     .socket_addr_check(|addr, _use| Box::pin(async move { addr.ip().is_loopback() }));
    /// ```
    #[cfg(feature = "p2")]
    pub fn socket_addr_check<F>(&mut self, check: F) -> &mut Self
    where
        F: Fn(
                std::net::SocketAddr,
                crate::sockets::SocketAddrUse,
            ) -> std::pin::Pin<Box<dyn std::future::Future<Output = bool> + Send + Sync>>
            + Send
            + Sync
            + 'static,
    {
        self.inherit_network = false;
        self.socket_addr_check = Some(std::sync::Arc::new(check));
        self
    }

    /// The WASI 0.2 context (for components). The builder is left as a new
    /// one. Preopened sockets are preview1's and are not given to it.
    #[cfg(feature = "p2")]
    pub fn build(&mut self) -> crate::p2::WasiCtx {
        use std::sync::{Arc, Mutex};
        let b = std::mem::take(self);
        let preopens = b
            .preopens
            .into_iter()
            .filter_map(|p| match p {
                Preopen::Dir(dir, name, perms) => Some((
                    crate::p2::Descriptor::Dir(crate::p2::Dir::preopen(dir, perms, b.allow_blocking_current_thread)),
                    name,
                )),
                Preopen::Listener(_) | Preopen::Stream(_) => None,
            })
            .collect();
        crate::p2::WasiCtx {
            cli: crate::cli::WasiCliCtx {
                args: b.args,
                env: b.env,
                initial_cwd: b.initial_cwd,
                stdin: Arc::new(Mutex::new(b.stdin)),
                stdout: Arc::new(Mutex::new(b.stdout)),
                stderr: Arc::new(Mutex::new(b.stderr)),
            },
            clocks: crate::clocks::WasiClocksCtx {
                wall_clock: b.wall_clock.unwrap_or_else(crate::clocks::wall_clock),
                monotonic_clock: b.monotonic_clock.unwrap_or_else(crate::clocks::monotonic_clock),
            },
            filesystem: crate::filesystem::WasiFilesystemCtx {
                allow_blocking_current_thread: b.allow_blocking_current_thread,
                preopens,
            },
            random: crate::random::WasiRandomCtx {
                random: b.secure_random.unwrap_or_else(crate::random::thread_rng),
                insecure_random: b.insecure_random.unwrap_or_else(crate::random::insecure_rng),
                insecure_random_seed: b.insecure_random_seed.unwrap_or_else(crate::random::random_seed),
                max_random_size: b.max_random_size,
            },
            sockets: crate::sockets::WasiSocketsCtx {
                allow_tcp: b.allow_tcp,
                allow_udp: b.allow_udp,
                allow_ip_name_lookup: b.allow_ip_name_lookup,
                addr_check: match (b.inherit_network, b.socket_addr_check) {
                    (true, _) => Some(std::sync::Arc::new(|_, _| Box::pin(async { true }))),
                    (false, check) => check,
                },
            },
        }
    }

    /// The context. The builder is left as a new one.
    pub fn build_p1(&mut self) -> WasiP1Ctx {
        let b = std::mem::take(self);
        let mut table = FdTable::default();
        let stdio = [
            (Kind::Stdin(b.stdin), rights::STDIN),
            (Kind::Stdout(b.stdout), rights::STDOUT),
            (Kind::Stdout(b.stderr), rights::STDOUT),
        ];
        for (kind, base) in stdio {
            // The table is empty, so it has room.
            let _ = table.push(Entry {
                kind,
                base,
                inheriting: 0,
                flags: 0,
            });
        }
        for preopen in b.preopens {
            let entry = match preopen {
                Preopen::Dir(dir, name, perms) => {
                    let (base, inheriting) = dir_rights(perms);
                    Entry {
                        kind: Kind::Dir(DirDesc {
                            dir,
                            preopen: Some(name),
                            listing: None,
                        }),
                        base,
                        inheriting,
                        flags: 0,
                    }
                }
                Preopen::Listener(l) => Entry {
                    kind: Kind::Listener(l),
                    base: rights::LISTENER,
                    inheriting: rights::SOCKET,
                    flags: 0,
                },
                Preopen::Stream(s) => Entry {
                    kind: Kind::Socket(s),
                    base: rights::SOCKET,
                    inheriting: 0,
                    flags: 0,
                },
            };
            let _ = table.push(entry);
        }
        WasiP1Ctx {
            args: b.args,
            env: b.env,
            table,
        }
    }
}

/// The rights of a preopened directory: what it may do itself, and what
/// what is opened through it may do.
fn dir_rights(perms: FsPerms) -> (u64, u64) {
    let mut dir = rights::DIR;
    let mut file = rights::FILE;
    if perms.write_not_permitted() {
        dir &= !rights::DIR_MUTATE;
        file &= !rights::FILE_WRITE;
    }
    (dir, dir | file)
}
