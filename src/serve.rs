//! `weft serve`: serves a `wasi:http/proxy` (WASI 0.2) or
//! `wasi:http/service` (WASI 0.3) component over HTTP/1, as `wasmtime
//! serve` does. A component that exports `wasi:http/handler@0.3.x` is
//! served with WASI 0.3, any other as a 0.2 proxy. Each request gets a
//! store and an instance of its own (made from one pre-instance), runs on
//! a thread of tokio's blocking pool (WASI 0.2's host functions wait on
//! the calling thread; a 0.3 request runs the store's event loop there,
//! in `run_concurrent`, until hyper has read the whole response body), and
//! is answered with the guest's response; a guest that traps or returns
//! without answering gets a 500, and the error is printed on stderr.
//!
//! Outgoing requests of the guest (0.2 `outgoing-handler.handle`, 0.3
//! `client.send`) are refused with `HTTP-request-denied` unless
//! `-S http-outgoing` is given; then they are sent with
//! `weft_wasi_http::default_send_request` (plain HTTP/1).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Context as _, Result};
use clap::Args;
use hyper::body::Incoming;
use std::future::Future;
use weft::component::{Component, Linker, ResourceTable};
use weft::{Config, Engine, Store};
use weft_wasi::p2::{WasiCtx, WasiCtxView, WasiView};
use weft_wasi_http::p2::bindings::http::types::Scheme;
use weft_wasi_http::p2::bindings::sync::ProxyPre;
use weft_wasi_http::p2::body::HyperOutgoingBody;
use weft_wasi_http::p3::ServicePre;
use weft_wasi_http::{RequestOptions, WasiBody, WasiHttpCtx, WasiHttpCtxView, WasiHttpHooks, WasiHttpView};

use crate::run_options;

/// The `-S` switches `weft serve` understands.
const SERVE_WASI_SWITCHES: &str = "cli[=y|n], http[=y], http-outgoing[=y|n], inherit-env[=y|n], \
     inherit-network[=y|n], allow-ip-name-lookup[=y|n], tcp[=y|n], udp[=y|n] (`-S help` describes them)";

/// What `-S help` prints.
const SERVE_WASI_HELP: &str = "The -S switches of weft serve (comma-separated or repeated; a bare name is `=y`):
  cli[=y|n]                   link all of wasi:cli/command (filesystem, sockets, ...) besides the
                              wasi:http world's imports (default n)
  http[=y]                    wasi:http; always on (`=n` is an error)
  http-outgoing[=y|n]         send the guest's outgoing HTTP requests (0.2 outgoing-handler.handle,
                              0.3 client.send) with weft_wasi_http::default_send_request (plain
                              HTTP/1, no TLS); default n: they are refused with HTTP-request-denied
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

    /// How many requests one instance may serve before it is dropped
    /// (Wasmtime's switch). Weft gives every request an instance of its
    /// own: only 1 is accepted.
    #[arg(long, value_name = "N")]
    max_instance_reuse_count: Option<usize>,

    /// How many requests one instance may serve at the same time
    /// (Wasmtime's switch). Weft gives every request an instance of its
    /// own: only 1 is accepted.
    #[arg(long, value_name = "N")]
    max_instance_concurrent_reuse_count: Option<usize>,

    /// How long an idle instance is kept for reuse (Wasmtime's switch,
    /// default 1s). Accepted and checked; without reuse an instance is
    /// dropped as soon as its request is answered, so it has no effect.
    #[arg(long, value_name = "DURATION")]
    idle_instance_timeout: Option<String>,

    /// The `wasi:http/proxy` component: a binary `.wasm` or a text `.wat`
    /// file (not needed with `-S help`).
    #[arg(value_name = "FILE")]
    component: Option<PathBuf>,
}

/// Checks the instance-reuse switches: Weft serves every request with a
/// new instance, so a reuse count other than 1 is refused.
fn check_reuse_switches(args: &ServeArgs) -> Result<()> {
    for (name, value) in [
        ("--max-instance-reuse-count", args.max_instance_reuse_count),
        (
            "--max-instance-concurrent-reuse-count",
            args.max_instance_concurrent_reuse_count,
        ),
    ] {
        if let Some(n) = value {
            if n != 1 {
                bail!(
                    "`{name} {n}` is not supported: weft serve gives every request an instance of its own, \
                     so only `{name} 1` is accepted"
                );
            }
        }
    }
    if let Some(text) = &args.idle_instance_timeout {
        run_options::parse_duration(text).context("invalid `--idle-instance-timeout`")?;
    }
    Ok(())
}

/// What the `-S` switches of `weft serve` ask for.
#[derive(Debug, Default)]
struct ServeSwitches {
    cli: bool,
    /// `-S http-outgoing`: the guest's outgoing requests are sent.
    http_outgoing: bool,
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
}

impl WasiHttpHooks for ServeHooks {
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

/// The pre-instance of the served component: a WASI 0.2 proxy or a WASI
/// 0.3 service.
enum Pre {
    P2(ProxyPre<ServeState>),
    P3(ServicePre<ServeState>),
}

impl Pre {
    fn engine(&self) -> &Engine {
        match self {
            Pre::P2(p) => p.engine(),
            Pre::P3(p) => p.engine(),
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

/// What every request shares.
struct Server {
    pre: Pre,
    program: PathBuf,
    dirs: Vec<String>,
    envs: Vec<String>,
    switches: ServeSwitches,
    wasm: run_options::WasmSwitches,
    /// The server's runtime (outgoing requests are sent on it).
    runtime: tokio::runtime::Handle,
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
    check_reuse_switches(args)?;
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
    let pre = if exports_p3_handler(&component) {
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
        Pre::P3(pre)
    } else {
        let pre = linker
            .instantiate_pre(&component)
            .and_then(ProxyPre::new)
            .with_context(|| {
                format!(
                    "`{}` is not a wasi:http/proxy component this host can run",
                    path.display()
                )
            })?;
        Pre::P2(pre)
    };
    let program = PathBuf::from(path.file_name().unwrap_or(path.as_os_str()));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("failed to start the tokio runtime")?;
    let server = Arc::new(Server {
        runtime: runtime.handle().clone(),
        pre,
        program,
        dirs: args.dirs.clone(),
        envs: args.envs.clone(),
        switches,
        wasm,
    });
    // A first context checks the `--dir` and `--env` switches before any
    // request comes.
    server.wasi_ctx()?;
    runtime.block_on(accept_loop(server, args.addr))
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

    /// Runs the guest on one request (on a blocking thread); the response
    /// goes to `tx`.
    fn run(&self, req: hyper::Request<Incoming>, tx: ResponseSender) -> Result<()> {
        let state = ServeState {
            wasi: self.wasi_ctx()?,
            http: WasiHttpCtx::new(),
            table: ResourceTable::new(),
            hooks: ServeHooks {
                outgoing: self.switches.http_outgoing,
            },
        };
        let engine = self.pre.engine();
        let mut store = Store::new(engine, state);
        run_options::arm_limits(engine, &mut store, &self.wasm)?;
        match &self.pre {
            Pre::P2(pre) => {
                let req = store.data_mut().http().new_incoming_request(Scheme::Http, req)?;
                let out = store.data_mut().http().new_response_outparam(tx)?;
                let proxy = pre.instantiate(&mut store)?;
                proxy.wasi_http_incoming_handler().call_handle(&mut store, req, out)
            }
            Pre::P3(pre) => self.runtime.block_on(run_p3(pre, store, req, tx)),
        }
    }
}

/// Where the guest's response (or error code) goes.
type ResponseSender = tokio::sync::oneshot::Sender<
    Result<hyper::Response<HyperOutgoingBody>, weft_wasi_http::p2::bindings::http::types::ErrorCode>,
>;

/// A response body that says when hyper is done with it (dropped it).
struct DoneBody {
    inner: HyperOutgoingBody,
    _done: tokio::sync::oneshot::Sender<()>,
}

impl http_body::Body for DoneBody {
    type Data = bytes::Bytes;
    type Error = weft_wasi_http::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<bytes::Bytes>, Self::Error>>> {
        std::pin::Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// Runs a WASI 0.3 service on one request: calls its
/// `wasi:http/handler.handle` in the store's event loop, sends the
/// response to `tx`, and keeps the loop running (the guest writes the
/// body) until hyper is done with the body.
async fn run_p3(
    pre: &ServicePre<ServeState>,
    mut store: Store<ServeState>,
    req: hyper::Request<Incoming>,
    tx: ResponseSender,
) -> Result<()> {
    use http_body_util::BodyExt;
    let service = pre.instantiate_async(&mut store).await?;
    let (mut req, _handled) = weft_wasi_http::p3::Request::from_http(store.data_mut().http().hooks, req);
    req.scheme = Some(http::uri::Scheme::HTTP);
    store
        .run_concurrent(async move |store| -> Result<()> {
            let response = match service.handle(store, req).await? {
                Ok(r) => r,
                Err(code) => {
                    let _ = tx.send(Err(weft_wasi_http::p3::to_p2(code)));
                    return Ok(());
                }
            };
            let response = store.with(|access| response.into_http_reporting(access))?;
            let (done, done_rx) = tokio::sync::oneshot::channel();
            let response = response.map(|body| {
                DoneBody {
                    inner: body,
                    _done: done,
                }
                .boxed_unsync()
            });
            if tx.send(Ok(response)).is_ok() {
                let _ = done_rx.await;
            }
            Ok(())
        })
        .await?
}

async fn accept_loop(server: Arc<Server>, addr: SocketAddr) -> Result<()> {
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
        let server = server.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| handle(server.clone(), req));
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

/// A 500 with no body.
fn internal_error() -> hyper::Response<HyperOutgoingBody> {
    use http_body_util::BodyExt;
    let body = http_body_util::Full::new(bytes::Bytes::from_static(b"Internal Server Error\n"))
        .map_err(|never| match never {})
        .boxed_unsync();
    let mut resp = hyper::Response::new(body);
    *resp.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
    resp
}

async fn handle(
    server: Arc<Server>,
    req: hyper::Request<Incoming>,
) -> Result<hyper::Response<HyperOutgoingBody>, Infallible> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let what = format!("{} {}", req.method(), req.uri());
    let task = tokio::task::spawn_blocking(move || server.run(req, tx));
    let report = |result: Result<Result<()>, tokio::task::JoinError>| match result {
        Ok(Ok(())) => None,
        Ok(Err(err)) => Some(format!("{err:?}")),
        Err(err) => Some(format!("the handler panicked: {err}")),
    };
    match rx.await {
        Ok(Ok(resp)) => {
            // The guest may go on writing the body: its end is reported
            // when it comes.
            tokio::spawn(async move {
                if let Some(err) = report(task.await) {
                    eprintln!("weft serve: {what}: error after the response was sent: {err}");
                }
            });
            Ok(resp)
        }
        Ok(Err(code)) => {
            eprintln!("weft serve: {what}: the guest answered with error code {code:?}");
            Ok(internal_error())
        }
        Err(_) => {
            let err = report(task.await).unwrap_or_else(|| "the guest returned without setting a response".to_string());
            eprintln!("weft serve: {what}: {err}");
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
    }
}
