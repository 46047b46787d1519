//! `weft serve`: serves a `wasi:http/proxy` (WASI 0.2) or
//! `wasi:http/service` (WASI 0.3) component over HTTP/1, as `wasmtime
//! serve` does. A component that exports `wasi:http/handler@0.3.x` is
//! served with WASI 0.3, any other as a 0.2 proxy. Requests go through
//! `weft_wasi_http::handler::ProxyHandler`: instances are reused as
//! `wasmtime serve` reuses them (`--max-instance-reuse-count`, default 1
//! for 0.2 and 128 for 0.3; `--max-instance-concurrent-reuse-count`,
//! default 1 and 16; `--idle-instance-timeout`, default 1s), each on a
//! thread of tokio's blocking pool (WASI 0.2's host functions wait on the
//! calling thread; a 0.3 instance runs its store's event loop there). A
//! guest that traps, or returns without answering, gets a 500 and the
//! error is printed on stderr; a trap drops the instance, and the next
//! request gets a fresh one.
//!
//! Outgoing requests of the guest (0.2 `outgoing-handler.handle`, 0.3
//! `client.send`) are refused with `HTTP-request-denied` unless
//! `-S http-outgoing` is given; then they are sent with
//! `weft_wasi_http::default_send_request` (plain HTTP/1).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context as _, Result};
use clap::Args;
use hyper::body::Incoming;
use std::future::Future;
use weft::component::{Component, Linker, ResourceTable};
use weft::{Config, Engine, Store};
use weft_wasi::p2::{WasiCtx, WasiCtxView, WasiView};
use weft_wasi_http::handler::{
    HandlerState, Instance, ProxyHandler, ProxyPre, ShouldAccept, WorkerExpiration, WorkerState, WorkerStatus,
};
use weft_wasi_http::p3::ServicePre;
use weft_wasi_http::{RequestOptions, WasiBody, WasiHttpCtx, WasiHttpCtxView, WasiHttpHooks, WasiHttpView};

use crate::run_options;

/// The `-S` switches `weft serve` understands.
const SERVE_WASI_SWITCHES: &str = "cli[=y|n], http[=y], http-outgoing[=y|n], \
     http-outgoing-body-buffer-chunks=N, http-outgoing-body-chunk-size=N, inherit-env[=y|n], inherit-network[=y|n], allow-ip-name-lookup[=y|n], tcp[=y|n], udp[=y|n] (`-S help` describes them)";

/// What `-S help` prints.
const SERVE_WASI_HELP: &str = "The -S switches of weft serve (comma-separated or repeated; a bare name is `=y`):
  cli[=y|n]                   link all of wasi:cli/command (filesystem, sockets, ...) besides the
                              wasi:http world's imports (default n)
  http[=y]                    wasi:http; always on (`=n` is an error)
  http-outgoing[=y|n]         send the guest's outgoing HTTP requests (0.2 outgoing-handler.handle,
                              0.3 client.send) with weft_wasi_http::default_send_request (HTTP/1,
                              https over TLS trusting the Mozilla roots and the PEM file
                              $SSL_CERT_FILE); default n: they are refused with HTTP-request-denied
  http-outgoing-body-buffer-chunks=N
                              writes buffered on a 0.2 outgoing body's stream (default 1)
  http-outgoing-body-chunk-size=N
                              most bytes in one write to a 0.2 outgoing body's stream (default 1 MiB)
  inherit-env[=y|n]           give the guest the host's environment variables (default n)
  inherit-network[=y|n]       let wasi:sockets reach the host's network, TCP and UDP (default n)
  allow-ip-name-lookup[=y|n]  allow wasi:sockets/ip-name-lookup (default n)
  tcp[=y|n]                   allow wasi:sockets TCP (default n)
  udp[=y|n]                   allow wasi:sockets UDP (default n)
  help                        print this and exit";

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The address to listen on (`127.0.0.1:0` picks a free port; the
    /// address is printed on stderr).
    #[arg(long, value_name = "SOCKADDR", default_value = "0.0.0.0:8080")]
    addr: SocketAddr,

    /// Give the guest the host directory HOST under the name GUEST (default:
    /// HOST as written), with every permission (with `-S cli`).
    /// Repeatable.
    #[arg(long = "dir", value_name = "HOST[::GUEST]")]
    dirs: Vec<String>,

    /// Set the guest's environment variable NAME to VAL, or to the host's
    /// value of NAME when no VAL is given. Repeatable.
    #[arg(long = "env", value_name = "NAME[=VAL]")]
    envs: Vec<String>,

    /// Wasm switches, as `weft run -W`.
    #[arg(short = 'W', value_name = "OPT[=VAL]")]
    wasm: Vec<String>,

    /// WASI switches, comma-separated or repeated: `cli` (link all of
    /// `wasi:cli/command`, with filesystem and sockets, besides the proxy
    /// world's imports), `http` (always on), `http-outgoing` (send the
    /// guest's outgoing HTTP requests; refused by default),
    /// `inherit-env`, `inherit-network`, `allow-ip-name-lookup`, `tcp`,
    /// `udp`; `-S help` describes them.
    #[arg(short = 'S', value_name = "OPT[=VAL]")]
    wasi: Vec<String>,

    /// How many requests one instance serves before it is dropped
    /// (default, as `wasmtime serve`: 1 for a WASI 0.2 proxy, 128 for a
    /// WASI 0.3 service). A 0.2 instance serves its requests one after
    /// the other.
    #[arg(long, value_name = "N")]
    max_instance_reuse_count: Option<usize>,

    /// How many requests one instance serves at the same time (default 1
    /// for a WASI 0.2 proxy, which can take only 1, and 16 for a WASI 0.3
    /// service).
    #[arg(long, value_name = "N")]
    max_instance_concurrent_reuse_count: Option<usize>,

    /// How long an instance with no request to serve is kept for the next
    /// one (default 1s).
    #[arg(long, value_name = "DURATION")]
    idle_instance_timeout: Option<String>,

    /// The `wasi:http/proxy` component: a binary `.wasm` or a text `.wat`
    /// file (not needed with `-S help`).
    #[arg(value_name = "FILE")]
    component: Option<PathBuf>,
}

/// How instances are reused.
#[derive(Debug, Clone, Copy)]
struct Reuse {
    /// Requests per instance.
    total: usize,
    /// Requests per instance at the same time.
    concurrent: usize,
    /// How long an idle instance is kept.
    idle: std::time::Duration,
}

/// Checks the instance-reuse switches and gives their values for a WASI
/// 0.3 service (`p3`) or a 0.2 proxy: a count must be at least 1.
fn reuse_switches(args: &ServeArgs, p3: bool) -> Result<Reuse> {
    for (name, value) in [
        ("--max-instance-reuse-count", args.max_instance_reuse_count),
        (
            "--max-instance-concurrent-reuse-count",
            args.max_instance_concurrent_reuse_count,
        ),
    ] {
        if value == Some(0) {
            bail!("`{name} 0` is not supported: an instance serves at least 1 request");
        }
    }
    let idle = match &args.idle_instance_timeout {
        Some(text) => run_options::parse_duration(text).context("invalid `--idle-instance-timeout`")?,
        None => std::time::Duration::from_secs(1),
    };
    let (total, concurrent) = if p3 { (128, 16) } else { (1, 1) };
    Ok(Reuse {
        total: args.max_instance_reuse_count.unwrap_or(total),
        concurrent: args.max_instance_concurrent_reuse_count.unwrap_or(concurrent),
        idle,
    })
}

/// What the `-S` switches of `weft serve` ask for.
#[derive(Debug, Default)]
struct ServeSwitches {
    cli: bool,
    /// `-S http-outgoing`: the guest's outgoing requests are sent.
    http_outgoing: bool,
    /// `-S http-outgoing-body-buffer-chunks`.
    buffer_chunks: Option<usize>,
    /// `-S http-outgoing-body-chunk-size`.
    chunk_size: Option<usize>,
    /// `-S help`: print the switches and exit.
    help: bool,
    wasi: run_options::WasiSwitches,
}

fn parse_bool(name: &str, value: Option<&str>) -> Result<bool> {
    match value {
        None | Some("y") | Some("yes") | Some("true") => Ok(true),
        Some("n") | Some("no") | Some("false") => Ok(false),
        Some(other) => bail!("invalid value `{other}` for `-S {name}`: expected y or n"),
    }
}

/// A count of at least 1.
fn parse_count(name: &str, value: Option<&str>) -> Result<usize> {
    match value.and_then(|v| v.parse::<usize>().ok()) {
        Some(n) if n >= 1 => Ok(n),
        _ => bail!("invalid value for `-S {name}`: expected a count of at least 1, as `-S {name}=4`"),
    }
}

fn parse_switches(values: &[String]) -> Result<ServeSwitches> {
    let mut out = ServeSwitches::default();
    for item in values.iter().flat_map(|v| v.split(',')).filter(|s| !s.is_empty()) {
        let (name, value) = match item.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (item, None),
        };
        match name {
            "cli" | "common" => out.cli = parse_bool(name, value)?,
            "http-outgoing" => out.http_outgoing = parse_bool(name, value)?,
            "http-outgoing-body-buffer-chunks" => out.buffer_chunks = Some(parse_count(name, value)?),
            "http-outgoing-body-chunk-size" => out.chunk_size = Some(parse_count(name, value)?),
            "help" => out.help = true,
            "http" => {
                if !parse_bool(name, value)? {
                    bail!("wasi-http is required for the serve command, and must not be disabled");
                }
            }
            "inherit-env" => out.wasi.inherit_env = parse_bool(name, value)?,
            "inherit-network" => out.wasi.inherit_network = parse_bool(name, value)?,
            "allow-ip-name-lookup" => out.wasi.allow_ip_name_lookup = parse_bool(name, value)?,
            "tcp" => out.wasi.tcp = parse_bool(name, value)?,
            "udp" => out.wasi.udp = parse_bool(name, value)?,
            "threads" => bail!("wasi-threads does not support components yet"),
            _ => bail!("unsupported `-S {name}`: weft serve understands {SERVE_WASI_SWITCHES}"),
        }
    }
    Ok(out)
}

/// The hooks of `weft serve`: outgoing requests are refused unless
/// `-S http-outgoing` is on; then they go out with
/// `default_send_request` on the server's tokio runtime.
struct ServeHooks {
    /// Whether requests may be sent.
    outgoing: bool,
    /// `-S http-outgoing-body-buffer-chunks`, if given.
    buffer_chunks: Option<usize>,
    /// `-S http-outgoing-body-chunk-size`, if given.
    chunk_size: Option<usize>,
}

impl WasiHttpHooks for ServeHooks {
    fn p2_outgoing_body_buffer_chunks(&mut self) -> usize {
        self.buffer_chunks
            .unwrap_or(weft_wasi_http::p2::DEFAULT_OUTGOING_BODY_BUFFER_CHUNKS)
    }

    fn p2_outgoing_body_chunk_size(&mut self) -> usize {
        self.chunk_size
            .unwrap_or(weft_wasi_http::p2::DEFAULT_OUTGOING_BODY_CHUNK_SIZE)
    }

    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        fut: Box<dyn Future<Output = Result<(), weft_wasi_http::Error>> + Send>,
    ) -> Box<
        dyn Future<
                Output = weft_wasi_http::Result<(
                    http::Response<WasiBody>,
                    Box<dyn Future<Output = Result<(), weft_wasi_http::Error>> + Send>,
                )>,
            > + Send,
    > {
        if !self.outgoing {
            return weft_wasi_http::refuse_request(request, options, fut);
        }
        drop(fut);
        Box::new(async move {
            use http_body_util::BodyExt;
            let (response, io) = weft_wasi_http::default_send_request(request, options).await?;
            let io: Box<dyn Future<Output = Result<(), weft_wasi_http::Error>> + Send> = Box::new(io);
            Ok((response.map(BodyExt::boxed_unsync), io))
        })
    }
}

/// The store data of one request.
struct ServeState {
    wasi: WasiCtx,
    http: WasiHttpCtx,
    table: ResourceTable,
    hooks: ServeHooks,
}

impl WasiView for ServeState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl WasiHttpView for ServeState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView {
            ctx: &mut self.http,
            table: &mut self.table,
            hooks: &mut self.hooks,
        }
    }
}

/// Whether `component` exports `wasi:http/handler@0.3.x` (a WASI 0.3
/// service).
fn exports_p3_handler(component: &Component) -> bool {
    let ty = component.component_type();
    let engine = component.engine();
    // (A local: the iterator borrows `ty` until it is dropped.)
    let exported = ty.exports(engine).any(|(name, _)| {
        name.strip_prefix("wasi:http/handler@")
            .is_some_and(|version| version.starts_with("0.3."))
    });
    exported
}

/// What every worker shares: how to make a store and an instance.
struct Server {
    pre: ProxyPre<ServeState>,
    engine: Engine,
    program: PathBuf,
    dirs: Vec<String>,
    envs: Vec<String>,
    switches: ServeSwitches,
    wasm: run_options::WasmSwitches,
    reuse: Reuse,
}

/// `weft serve`: exit status 1 when the component cannot be loaded or
/// the address cannot be bound.
pub fn serve_command(args: &ServeArgs) -> ExitCode {
    match serve(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("Error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn serve(args: &ServeArgs) -> Result<()> {
    let switches = parse_switches(&args.wasi)?;
    if switches.help {
        println!("{SERVE_WASI_HELP}");
        return Ok(());
    }
    // The switches are checked before the component is read.
    reuse_switches(args, false)?;
    let Some(path) = &args.component else {
        bail!("weft serve needs the component to serve: weft serve [OPTIONS] FILE");
    };
    let wasm = run_options::parse_wasm_switches(&args.wasm)?;
    let mut config = Config::new();
    run_options::configure(&mut config, &wasm);
    let engine = Engine::new(&config)?;
    let bytes = std::fs::read(path).with_context(|| format!("failed to read `{}`", path.display()))?;
    let component =
        Component::new(&engine, &bytes).with_context(|| format!("failed to compile `{}`", path.display()))?;
    let mut linker = Linker::<ServeState>::new(&engine);
    if switches.cli {
        weft_wasi::p2::add_to_linker_sync(&mut linker)?;
        weft_wasi_http::p2::add_only_http_to_linker_sync(&mut linker)?;
    } else {
        weft_wasi_http::p2::add_to_linker_sync(&mut linker)?;
    }
    let p3 = exports_p3_handler(&component);
    let pre = if p3 {
        // As `wasmtime serve`: the 0.3 service world's imports (all of
        // `wasi:cli/command@0.3.0` with `-S cli`) besides 0.2's.
        if switches.cli {
            weft_wasi::p3::add_to_linker(&mut linker)?;
        } else {
            weft_wasi::p3::cli::add_to_linker(&mut linker)?;
            weft_wasi::p3::clocks::add_to_linker(&mut linker)?;
            weft_wasi::p3::random::add_to_linker(&mut linker)?;
        }
        weft_wasi_http::p3::add_to_linker(&mut linker)?;
        let pre = linker
            .instantiate_pre(&component)
            .and_then(ServicePre::new)
            .with_context(|| {
                format!(
                    "`{}` is not a wasi:http/service component this host can run",
                    path.display()
                )
            })?;
        ProxyPre::P3(pre)
    } else {
        let pre = linker
            .instantiate_pre(&component)
            .and_then(weft_wasi_http::p2::bindings::ProxyPre::new)
            .with_context(|| {
                format!(
                    "`{}` is not a wasi:http/proxy component this host can run",
                    path.display()
                )
            })?;
        ProxyPre::P2(pre)
    };
    let program = PathBuf::from(path.file_name().unwrap_or(path.as_os_str()));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("failed to start the tokio runtime")?;
    let server = Server {
        pre,
        engine,
        program,
        dirs: args.dirs.clone(),
        envs: args.envs.clone(),
        switches,
        wasm,
        reuse: reuse_switches(args, p3)?,
    };
    // A first context checks the `--dir` and `--env` switches before any
    // request comes.
    server.wasi_ctx()?;
    runtime.block_on(accept_loop(ProxyHandler::new(server), args.addr))
}

impl Server {
    fn wasi_ctx(&self) -> Result<WasiCtx> {
        let mut builder = run_options::build_wasi(
            Path::new(&self.program),
            &[],
            &self.dirs,
            &self.envs,
            &self.switches.wasi,
        )?;
        Ok(builder.build())
    }
}

/// The `wasi:http` view of a worker's store.
fn serve_view(state: &mut ServeState) -> WasiHttpCtxView<'_> {
    state.http()
}

impl HandlerState for Server {
    type StoreData = ServeState;
    type WorkerExpiration = IdleTimeout;
    type WorkerState = Worker;

    fn instantiate(&self) -> impl Future<Output = weft::Result<Instance<ServeState, IdleTimeout, Worker>>> + Send {
        let made = self.wasi_ctx().and_then(|wasi| {
            let state = ServeState {
                wasi,
                http: WasiHttpCtx::new(),
                table: ResourceTable::new(),
                hooks: ServeHooks {
                    outgoing: self.switches.http_outgoing,
                    buffer_chunks: self.switches.buffer_chunks,
                    chunk_size: self.switches.chunk_size,
                },
            };
            let mut store = Store::new(&self.engine, state);
            run_options::arm_limits(&self.engine, &mut store, &self.wasm)?;
            Ok(store)
        });
        let reuse = self.reuse;
        async move {
            let mut store = made?;
            let proxy = self.pre.instantiate_async(&mut store).await?;
            Ok(Instance {
                store,
                proxy,
                view: serve_view,
                expiration: IdleTimeout {
                    after: reuse.idle,
                    sleep: None,
                },
                state: Worker { reuse },
            })
        }
    }
}

/// A worker of `weft serve`: it takes requests while fewer than the
/// reuse counts are running and were taken.
struct Worker {
    reuse: Reuse,
}

impl WorkerState for Worker {
    type StoreData = ServeState;
    type RequestData = ();

    fn should_accept_request(&self, concurrent_count: usize, total_count: usize) -> ShouldAccept {
        if total_count >= self.reuse.total {
            ShouldAccept::Never
        } else if concurrent_count >= self.reuse.concurrent {
            ShouldAccept::No
        } else {
            ShouldAccept::Yes
        }
    }

    fn on_request_start(
        &self,
        _store: weft::StoreContextMut<'_, ServeState>,
        _data: (),
        _task: weft::component::GuestTaskId,
    ) -> std::pin::Pin<Box<dyn Future<Output = ()> + 'static + Send + Sync>> {
        // No request timeout.
        Box::pin(std::future::pending())
    }

    fn drop(&self, store: Store<ServeState>, result: Result<(), weft::Error>) {
        drop(store);
        if let Err(err) = result {
            eprintln!("weft serve: an instance was dropped after an error: {err:?}");
        }
    }
}

/// Ends a worker that has had no request for a while.
struct IdleTimeout {
    after: std::time::Duration,
    /// The timer, and the idle start it was set for.
    sleep: Option<(std::time::Instant, std::pin::Pin<Box<tokio::time::Sleep>>)>,
}

impl WorkerExpiration for IdleTimeout {
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        state: WorkerStatus,
        start: std::time::Instant,
    ) -> std::task::Poll<()> {
        if state != WorkerStatus::Idle {
            self.sleep = None;
            return std::task::Poll::Pending;
        }
        let after = self.after;
        let sleep = match &mut self.sleep {
            Some((since, sleep)) if *since == start => sleep,
            slot => {
                let deadline = tokio::time::Instant::from_std(start) + after;
                &mut slot.insert((start, Box::pin(tokio::time::sleep_until(deadline)))).1
            }
        };
        sleep.as_mut().poll(cx)
    }
}

async fn accept_loop(handler: ProxyHandler<Server>, addr: SocketAddr) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("failed to listen on {addr}"))?;
    eprintln!("Serving HTTP on http://{}/", listener.local_addr()?);
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(err) => {
                // Out of file descriptors, a connection reset before it
                // was taken: the server goes on.
                eprintln!("weft serve: failed to accept a connection: {err}");
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let handler = handler.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| handle(handler.clone(), req));
            if let Err(err) = hyper::server::conn::http1::Builder::new()
                .keep_alive(true)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await
            {
                if !err.is_incomplete_message() {
                    eprintln!("weft serve: connection error: {err}");
                }
            }
        });
    }
}

/// A 500 with a short body.
fn internal_error() -> hyper::Response<WasiBody> {
    use http_body_util::BodyExt;
    let body = http_body_util::Full::new(bytes::Bytes::from_static(b"Internal Server Error\n"))
        .map_err(|never| match never {})
        .boxed_unsync();
    let mut resp = hyper::Response::new(body);
    *resp.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
    resp
}

/// The request with an absolute `http` URI (its authority from the `host`
/// header): a WASI 0.3 guest sees the scheme `http`, as the server was
/// reached with.
fn with_http_scheme(req: hyper::Request<Incoming>) -> weft_wasi_http::handler::Request {
    use http_body_util::BodyExt;
    let (mut parts, body) = req.into_parts();
    if parts.uri.scheme().is_none() {
        let host = parts
            .headers
            .get(http::header::HOST)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.parse::<http::uri::Authority>().ok());
        if let Some(host) = host {
            let mut uri = http::uri::Parts::default();
            uri.scheme = Some(http::uri::Scheme::HTTP);
            uri.authority = Some(host);
            uri.path_and_query = parts.uri.path_and_query().cloned();
            if let Ok(uri) = http::Uri::from_parts(uri) {
                parts.uri = uri;
            }
        }
    }
    hyper::Request::from_parts(parts, body.map_err(weft_wasi_http::Error::from).boxed_unsync())
}

async fn handle(
    handler: ProxyHandler<Server>,
    req: hyper::Request<Incoming>,
) -> Result<hyper::Response<WasiBody>, Infallible> {
    let what = format!("{} {}", req.method(), req.uri());
    match handler.handle((), with_http_scheme(req)).await {
        Ok(resp) => Ok(resp),
        Err(err) => {
            eprintln!("weft serve: {what}: {err:#}");
            Ok(internal_error())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_switches;

    #[test]
    fn serve_switches() {
        let s = parse_switches(&["cli,tcp=n".into(), "http".into()]).unwrap();
        assert!(s.cli && !s.wasi.tcp && !s.http_outgoing);
        assert!(parse_switches(&["http-outgoing".into()]).unwrap().http_outgoing);
        assert!(!parse_switches(&["http-outgoing=n".into()]).unwrap().http_outgoing);
        assert!(parse_switches(&["http-outgoing=maybe".into()]).is_err());
        assert!(parse_switches(&["http=n".into()]).is_err());
        assert!(parse_switches(&["nope".into()]).is_err());
        let s =
            parse_switches(&["http-outgoing-body-buffer-chunks=4,http-outgoing-body-chunk-size=100".into()]).unwrap();
        assert_eq!((s.buffer_chunks, s.chunk_size), (Some(4), Some(100)));
        assert!(parse_switches(&["http-outgoing-body-chunk-size=0".into()]).is_err());
        assert!(parse_switches(&["http-outgoing-body-buffer-chunks".into()]).is_err());
    }
}
