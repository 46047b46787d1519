//! `weft serve`: serves a `wasi:http/proxy` component over HTTP/1, as
//! `wasmtime serve` does. Each request gets a store and an instance of its
//! own (made from one `ProxyPre`), runs on a thread of tokio's blocking
//! pool (WASI 0.2's host functions wait on the calling thread), and is
//! answered with what the guest sets on its `response-outparam`; a guest
//! that traps or returns without answering gets a 500, and the error is
//! printed on stderr.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Context as _, Result};
use clap::Args;
use hyper::body::Incoming;
use weft::component::{Component, Linker, ResourceTable};
use weft::{Config, Engine, Store};
use weft_wasi::p2::{WasiCtx, WasiCtxView, WasiView};
use weft_wasi_http::p2::bindings::http::types::Scheme;
use weft_wasi_http::p2::bindings::sync::ProxyPre;
use weft_wasi_http::p2::body::HyperOutgoingBody;
use weft_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

use crate::run_options;

/// The `-S` switches `weft serve` understands.
const SERVE_WASI_SWITCHES: &str = "cli[=y|n], http[=y], inherit-env[=y|n], inherit-network[=y|n], \
     allow-ip-name-lookup[=y|n], tcp[=y|n], udp[=y|n]";

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
    /// world's imports), `http` (always on), `inherit-env`,
    /// `inherit-network`, `allow-ip-name-lookup`, `tcp`, `udp`.
    #[arg(short = 'S', value_name = "OPT[=VAL]")]
    wasi: Vec<String>,

    /// The `wasi:http/proxy` component: a binary `.wasm` or a text `.wat`
    /// file.
    #[arg(value_name = "FILE")]
    component: PathBuf,
}

/// What the `-S` switches of `weft serve` ask for.
#[derive(Debug, Default)]
struct ServeSwitches {
    cli: bool,
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

/// The store data of one request.
struct ServeState {
    wasi: WasiCtx,
    http: WasiHttpCtx,
    table: ResourceTable,
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
            hooks: Default::default(),
        }
    }
}

/// What every request shares.
struct Server {
    pre: ProxyPre<ServeState>,
    program: PathBuf,
    dirs: Vec<String>,
    envs: Vec<String>,
    switches: ServeSwitches,
    wasm: run_options::WasmSwitches,
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
    let wasm = run_options::parse_wasm_switches(&args.wasm)?;
    let mut config = Config::new();
    run_options::configure(&mut config, &wasm);
    let engine = Engine::new(&config)?;
    let path = &args.component;
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
    let pre = linker
        .instantiate_pre(&component)
        .and_then(ProxyPre::new)
        .with_context(|| {
            format!(
                "`{}` is not a wasi:http/proxy component this host can run",
                path.display()
            )
        })?;
    let program = PathBuf::from(path.file_name().unwrap_or(path.as_os_str()));
    let server = Arc::new(Server {
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
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("failed to start the tokio runtime")?;
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
    fn run(
        &self,
        req: hyper::Request<Incoming>,
        tx: tokio::sync::oneshot::Sender<
            Result<hyper::Response<HyperOutgoingBody>, weft_wasi_http::p2::bindings::http::types::ErrorCode>,
        >,
    ) -> Result<()> {
        let state = ServeState {
            wasi: self.wasi_ctx()?,
            http: WasiHttpCtx::new(),
            table: ResourceTable::new(),
        };
        let engine = self.pre.engine();
        let mut store = Store::new(engine, state);
        run_options::arm_limits(engine, &mut store, &self.wasm)?;
        let req = store.data_mut().http().new_incoming_request(Scheme::Http, req)?;
        let out = store.data_mut().http().new_response_outparam(tx)?;
        let proxy = self.pre.instantiate(&mut store)?;
        proxy.wasi_http_incoming_handler().call_handle(&mut store, req, out)
    }
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
        assert!(s.cli && !s.wasi.tcp);
        assert!(parse_switches(&["http=n".into()]).is_err());
        assert!(parse_switches(&["nope".into()]).is_err());
    }
}
