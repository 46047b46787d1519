//! `weft serve` on `wasi:http/proxy` components (the WAT guests of
//! weft-wasi-http's tests, written to files as text): real HTTP/1.1
//! requests over loopback to a server on a free port, 1,000 of them at
//! once, a trapping guest answered with 500, outgoing requests refused,
//! and the `-S` switches; and the same for `wasi:http/service` (WASI
//! 0.3) components (weft-wasi-http's `p3_guest`), with outgoing requests
//! sent to a loopback hyper server under `-S http-outgoing`, over TLS for
//! `https`.

/// The guests of weft-wasi-http's tests.
#[allow(dead_code, reason = "the CLI tests use a part of the guests")]
mod proxy_guest {
    include!("../crates/weft-wasi-http/tests/all/common/mod.rs");
}

/// The WASI 0.3 guests of weft-wasi-http's tests.
#[allow(dead_code, reason = "the CLI tests use a part of the guests")]
mod p3_guest {
    include!("../crates/weft-wasi-http/tests/all/p3_guest/mod.rs");
}

/// The test CA and TLS server certificate of weft-wasi-http's tests.
#[allow(dead_code, reason = "the CLI tests use a part of it")]
mod tls_server {
    include!("../crates/weft-wasi-http/tests/all/tls_server/mod.rs");
}

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

mod scratch;
use scratch::temp_dir;

/// A running `weft serve`, killed when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
    stderr: Arc<Mutex<String>>,
    /// Holds the component file; removed after the server is killed.
    _dir: scratch::ScratchDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Starts `weft serve` on a free loopback port with the component of
    /// `guest` and the extra arguments `args`.
    fn start(test: &str, guest: &str, args: &[&str]) -> Server {
        Server::start_component(test, &proxy_guest::proxy("0.2.3", guest), args)
    }

    /// Starts `weft serve` on a free loopback port with the component
    /// text `component` and the extra arguments `args`.
    fn start_component(test: &str, component: &str, args: &[&str]) -> Server {
        Server::start_component_env(test, component, args, &[])
    }

    /// [`Server::start_component`] with the environment variables `env`
    /// set (and `SSL_CERT_FILE` only when `env` names it).
    fn start_component_env(test: &str, component: &str, args: &[&str], env: &[(&str, &str)]) -> Server {
        let dir = temp_dir(test);
        let file = dir.join("component.wat");
        std::fs::write(&file, component).expect("write the component");
        let mut child = Command::new(env!("CARGO_BIN_EXE_weft"))
            .env_remove("SSL_CERT_FILE")
            .envs(env.iter().copied())
            .arg("serve")
            .args(["--addr", "127.0.0.1:0"])
            .args(args)
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start weft serve");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr"));
        let mut first = String::new();
        lines.read_line(&mut first).expect("read stderr");
        let addr = first
            .trim()
            .strip_prefix("Serving HTTP on http://")
            .and_then(|a| a.strip_suffix('/'))
            .unwrap_or_else(|| panic!("unexpected first line of weft serve: {first:?}"))
            .parse()
            .expect("a socket address");
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        std::thread::spawn(move || {
            for line in lines.lines().map_while(Result::ok) {
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        Server {
            child,
            addr,
            stderr,
            _dir: dir,
        }
    }

    /// What the server printed on stderr after its first line, once it
    /// contains `needle` (or after 10 seconds).
    fn stderr_with(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let s = self.stderr.lock().unwrap().clone();
            if s.contains(needle) || Instant::now() > deadline {
                return s;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A response: status, headers (names in lower case), body.
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

/// The body of a chunked response.
fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n").expect("chunk size line");
        let size_text = std::str::from_utf8(&data[..line_end]).expect("chunk size");
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16).expect("hex size");
        data = &data[line_end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

/// Sends one HTTP/1.1 request on a new connection (`Connection: close`)
/// and reads the whole response.
async fn request(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Response {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let mut head = format!("{method} {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n");
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    if !body.is_empty() {
        head.push_str(&format!("content-length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.expect("write request");
    stream.write_all(body).await.expect("write body");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read response");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("end of the response head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let rest = &raw[split + 4..];
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked { dechunk(rest) } else { rest.to_vec() };
    Response { status, headers, body }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

#[test]
fn serve_answers_with_the_guests_response() {
    let server = Server::start("fixed", proxy_guest::FIXED, &[]);
    runtime().block_on(async {
        for _ in 0..3 {
            let resp = request(server.addr, "GET", "/", &[], b"").await;
            assert_eq!(resp.status, 200);
            assert_eq!(resp.header("content-type"), ["text/plain"]);
            assert_eq!(resp.body, proxy_guest::FIXED_BODY.as_bytes());
        }
    });
}

#[test]
fn serve_echoes_headers_path_and_a_large_body() {
    let server = Server::start("echo", proxy_guest::ECHO, &[]);
    let body: Vec<u8> = (0..300_000u32).map(|i| (i % 253) as u8).collect();
    runtime().block_on(async {
        let resp = request(server.addr, "POST", "/echo?x=y", &[("x-custom", "one")], &body).await;
        assert_eq!(resp.status, 200);
        assert_eq!(resp.header("x-custom"), ["one"]);
        assert_eq!(resp.header("x-path"), ["/echo?x=y"]);
        assert_eq!(resp.body.len(), body.len());
        assert!(resp.body == body, "the echoed body differs");
    });
}

#[test]
fn serve_answers_a_trap_with_500_and_logs_it() {
    let server = Server::start("trap", proxy_guest::TRAP, &[]);
    runtime().block_on(async {
        let resp = request(server.addr, "GET", "/boom", &[], b"").await;
        assert_eq!(resp.status, 500);
        // The server goes on serving.
        let resp = request(server.addr, "GET", "/again", &[], b"").await;
        assert_eq!(resp.status, 500);
    });
    let log = server.stderr_with("unreachable");
    assert!(log.contains("GET /boom") && log.contains("unreachable"), "{log}");
}

#[test]
fn serve_answers_an_error_code_with_500_and_logs_it() {
    let server = Server::start("error-code", proxy_guest::ERROR_CODE_ANSWER, &[]);
    runtime().block_on(async {
        let resp = request(server.addr, "GET", "/err", &[], b"").await;
        assert_eq!(resp.status, 500);
    });
    let log = server.stderr_with("InternalError");
    assert!(log.contains("GET /err") && log.contains("error code"), "{log}");
}

#[test]
fn serve_refuses_outgoing_requests() {
    let server = Server::start("outgoing", proxy_guest::OUTGOING, &[]);
    runtime().block_on(async {
        let resp = request(server.addr, "GET", "/", &[], b"").await;
        assert_eq!((resp.status, &resp.body[..]), (403, &b"denied\n"[..]));
    });
}

/// 1,000 requests at once, each on its own connection: every one is
/// answered, none is lost. Prints the requests per second.
#[test]
fn serve_answers_1000_concurrent_requests() {
    let server = Server::start("concurrent", proxy_guest::FIXED, &[]);
    let addr = server.addr;
    let rt = runtime();
    let start = Instant::now();
    let ok = rt.block_on(async move {
        let tasks: Vec<_> = (0..1000)
            .map(|i| tokio::spawn(async move { request(addr, "GET", &format!("/{i}"), &[], b"").await }))
            .collect();
        let mut ok = 0;
        for t in tasks {
            let resp = t.await.expect("request task");
            assert_eq!(resp.status, 200);
            assert_eq!(resp.body, proxy_guest::FIXED_BODY.as_bytes());
            ok += 1;
        }
        ok
    });
    let elapsed = start.elapsed();
    assert_eq!(ok, 1000);
    eprintln!(
        "weft serve: 1000 concurrent requests in {:.3} s ({:.0} requests/s)",
        elapsed.as_secs_f64(),
        1000.0 / elapsed.as_secs_f64()
    );
}

#[test]
fn serve_with_cli_links_the_command_world_too() {
    let server = Server::start("cli", proxy_guest::FIXED, &["-S", "cli", "--env", "A=b"]);
    runtime().block_on(async {
        let resp = request(server.addr, "GET", "/", &[], b"").await;
        assert_eq!(resp.status, 200);
    });
}

#[test]
fn serve_refuses_http_n_and_unknown_switches() {
    let dir = temp_dir("switches");
    let file = dir.join("proxy.wat");
    std::fs::write(&file, proxy_guest::proxy("0.2.3", proxy_guest::FIXED)).unwrap();
    for (switch, message) in [
        ("http=n", "wasi-http is required for the serve command"),
        ("nope", "unsupported `-S nope`"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_weft"))
            .args(["serve", "--addr", "127.0.0.1:0", "-S", switch])
            .arg(&file)
            .output()
            .expect("run weft serve");
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{err}");
    }
    // Not a proxy: a component without the incoming-handler export.
    let empty = dir.join("empty.wat");
    std::fs::write(&empty, "(component)").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .arg(&empty)
        .output()
        .expect("run weft serve");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("wasi:http/proxy"));
}

/// A WASI 0.3 service: its fixed answer (status, headers and a body the
/// guest writes to a stream after returning the response), its echo of a
/// large request body, and 200 concurrent requests, all over loopback.
#[test]
fn serve_p3_answers_real_http_requests() {
    // The test guests keep one request's state in globals: each instance
    // serves one request (`serve_p3_reuses_an_instance` reuses one).
    let fixed = Server::start_component("p3-fixed", &p3_guest::service(p3_guest::Mode::Fixed, ""), ONE);
    let echo = Server::start_component("p3-echo", &p3_guest::service(p3_guest::Mode::Echo, ""), ONE);
    let body: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let (fixed_addr, echo_addr) = (fixed.addr, echo.addr);
    let rt = runtime();
    rt.block_on(async {
        let resp = request(fixed_addr, "GET", "/", &[], b"").await;
        assert_eq!(resp.status, 201);
        assert_eq!(resp.header("content-type"), ["text/plain"]);
        assert_eq!(resp.header("x-weft"), ["p3"]);
        assert_eq!(resp.body, p3_guest::FIXED_BODY.as_bytes());
        let resp = request(echo_addr, "POST", "/echo", &[], &body).await;
        assert_eq!(resp.status, 200);
        assert_eq!(resp.body.len(), body.len());
        assert!(resp.body == body, "the echoed body differs");
    });
    let start = Instant::now();
    let ok = rt.block_on(async move {
        let tasks: Vec<_> = (0..200)
            .map(|i| tokio::spawn(async move { request(fixed_addr, "GET", &format!("/{i}"), &[], b"").await }))
            .collect();
        let mut ok = 0;
        for t in tasks {
            let resp = t.await.expect("request task");
            assert_eq!(resp.status, 201);
            assert_eq!(resp.body, p3_guest::FIXED_BODY.as_bytes());
            ok += 1;
        }
        ok
    });
    assert_eq!(ok, 200);
    eprintln!(
        "weft serve (wasi:http 0.3): 200 concurrent requests in {:.3} s",
        start.elapsed().as_secs_f64()
    );
}

/// One request per instance, for the WASI 0.3 test guests, which keep a
/// request's state in globals (a guest built by a toolchain keeps it per
/// task, and can be reused).
const ONE: &[&str] = &["--max-instance-reuse-count", "1"];

/// With the default reuse of a WASI 0.3 service (128 requests per
/// instance) and one request at a time (the test guest handles one at a
/// time), requests one after the other are served by a reused instance,
/// each answered whole.
#[test]
fn serve_p3_reuses_an_instance() {
    let guest = p3_guest::service(p3_guest::Mode::Fixed, "");
    let server = Server::start_component("p3-reuse", &guest, &["--max-instance-concurrent-reuse-count", "1"]);
    runtime().block_on(async {
        for i in 0..20 {
            let resp = request(server.addr, "GET", &format!("/{i}"), &[], b"").await;
            assert_eq!(resp.status, 201, "request {i}");
            assert_eq!(resp.body, p3_guest::FIXED_BODY.as_bytes(), "request {i}");
        }
    });
}

#[test]
fn serve_p3_answers_a_trap_with_500() {
    let server = Server::start_component("p3-trap", &p3_guest::service(p3_guest::Mode::Trap, ""), ONE);
    runtime().block_on(async {
        let resp = request(server.addr, "GET", "/boom", &[], b"").await;
        assert_eq!(resp.status, 500);
        let resp = request(server.addr, "GET", "/again", &[], b"").await;
        assert_eq!(resp.status, 500);
    });
    let log = server.stderr_with("unreachable");
    assert!(log.contains("GET /boom") && log.contains("unreachable"), "{log}");
}

/// A hyper server on a free loopback port answering every request with
/// 418; the number of requests it answered.
fn teapot(rt: &tokio::runtime::Runtime) -> (SocketAddr, Arc<std::sync::atomic::AtomicUsize>) {
    teapot_with(rt, None)
}

/// [`teapot`], over TLS with `tls` when given.
fn teapot_with(
    rt: &tokio::runtime::Runtime,
    tls: Option<tokio_rustls::TlsAcceptor>,
) -> (SocketAddr, Arc<std::sync::atomic::AtomicUsize>) {
    let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind the loopback server");
    let addr = listener.local_addr().unwrap();
    let seen = count.clone();
    rt.spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let seen = seen.clone();
            let tls = tls.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |_req: hyper::Request<hyper::body::Incoming>| {
                    seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    async {
                        let mut resp =
                            hyper::Response::new(http_body_util::Full::new(bytes::Bytes::from_static(b"tea")));
                        *resp.status_mut() = hyper::StatusCode::IM_A_TEAPOT;
                        Ok::<_, std::convert::Infallible>(resp)
                    }
                });
                let http = hyper::server::conn::http1::Builder::new();
                let _ = match tls {
                    Some(tls) => match tls.accept(stream).await {
                        Ok(stream) => {
                            http.serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                                .await
                        }
                        // A client that refused the certificate.
                        Err(_) => return,
                    },
                    None => {
                        http.serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                            .await
                    }
                };
            });
        }
    });
    (addr, count)
}

/// `-S http-outgoing`: a WASI 0.3 guest's `client.send` reaches a
/// loopback server (the guest answers with the status it got); without
/// the switch it is refused with `HTTP-request-denied` (403 from the
/// guest) and nothing reaches the server.
#[test]
fn serve_http_outgoing_sends_guest_requests_only_when_on() {
    let rt = runtime();
    let (addr, count) = teapot(&rt);
    let guest = p3_guest::service(p3_guest::Mode::Send, &addr.to_string());
    let off = Server::start_component("p3-outgoing-off", &guest, ONE);
    let on = Server::start_component(
        "p3-outgoing-on",
        &guest,
        &["-S", "http-outgoing", "--max-instance-reuse-count", "1"],
    );
    rt.block_on(async {
        let resp = request(off.addr, "GET", "/", &[], b"").await;
        assert_eq!((resp.status, &resp.body[..]), (403, &b"denied\n"[..]));
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 0);
        let resp = request(on.addr, "GET", "/", &[], b"").await;
        assert_eq!((resp.status, &resp.body[..]), (418, &b"fetched\n"[..]));
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 1);
    });
}

/// `https` outgoing requests: a WASI 0.3 guest's request without a
/// scheme goes out as `https` (the default scheme) to a loopback TLS
/// server for `localhost`. With `SSL_CERT_FILE` naming the test CA, `weft
/// serve` trusts the server's certificate and the guest gets the 418;
/// without it the certificate is refused (a TLS error, which the guest
/// answers with 502) and no request reaches the server.
#[test]
fn serve_sends_https_requests_to_the_servers_it_trusts() {
    let rt = runtime();
    let (addr, count) = teapot_with(&rt, Some(tls_server::acceptor()));
    let guest = p3_guest::service(p3_guest::Mode::SendNoScheme, &format!("localhost:{}", addr.port()));
    let ca_dir = temp_dir("https-ca");
    let ca = ca_dir.join("ca.pem");
    std::fs::write(&ca, tls_server::CA_PEM).expect("write the CA");
    let args = ["-S", "http-outgoing", "--max-instance-reuse-count", "1"];
    let untrusting = Server::start_component("https-untrusted", &guest, &args);
    let trusting = Server::start_component_env(
        "https-trusted",
        &guest,
        &args,
        &[("SSL_CERT_FILE", ca.to_str().unwrap())],
    );
    rt.block_on(async {
        let resp = request(untrusting.addr, "GET", "/", &[], b"").await;
        assert_eq!((resp.status, &resp.body[..]), (502, &b"refused otherwise\n"[..]));
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 0);
        let resp = request(trusting.addr, "GET", "/", &[], b"").await;
        assert_eq!((resp.status, &resp.body[..]), (418, &b"fetched\n"[..]));
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 1);
    });
}

#[test]
fn serve_switch_help_lists_http_outgoing() {
    let out = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["serve", "-S", "help", "unused.wasm"])
        .output()
        .expect("run weft serve");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("http-outgoing[=y|n]") && text.contains("HTTP-request-denied"),
        "{text}"
    );
}

/// `-S help` needs no component file (as `wasmtime serve -S help`).
#[test]
fn serve_switch_help_works_without_a_file() {
    let out = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["serve", "-S", "help"])
        .output()
        .expect("run weft serve");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("http-outgoing[=y|n]"));
    // Without `-S help`, a missing file is an error that says so.
    let out = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .output()
        .expect("run weft serve");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs the component to serve"), "{err}");
}

/// The instance-reuse switches of `wasmtime serve`: counts and an idle
/// timeout are accepted (and the server answers); a count of 0, or a
/// timeout that is no duration, is refused with the switch's name.
#[test]
fn serve_instance_reuse_switches() {
    let server = Server::start(
        "reuse-1",
        proxy_guest::FIXED,
        &[
            "--max-instance-reuse-count",
            "1",
            "--max-instance-concurrent-reuse-count",
            "1",
            "--idle-instance-timeout",
            "500ms",
        ],
    );
    runtime().block_on(async {
        let resp = request(server.addr, "GET", "/", &[], b"").await;
        assert_eq!(resp.status, 200);
        assert_eq!(resp.body, proxy_guest::FIXED_BODY.as_bytes());
    });
    let dir = temp_dir("reuse-refused");
    let file = dir.join("proxy.wat");
    std::fs::write(&file, proxy_guest::proxy("0.2.3", proxy_guest::FIXED)).unwrap();
    for (args, message) in [
        (
            ["--max-instance-reuse-count", "0"],
            "`--max-instance-reuse-count 0` is not supported",
        ),
        (
            ["--max-instance-concurrent-reuse-count", "0"],
            "`--max-instance-concurrent-reuse-count 0` is not supported",
        ),
        (["--idle-instance-timeout", "soon"], "invalid `--idle-instance-timeout`"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_weft"))
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(args)
            .arg(&file)
            .output()
            .expect("run weft serve");
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{err}");
    }
}

/// A 0.2 guest that counts the requests its instance served (a global of
/// the core module) and answers with the count as its body; it traps on
/// a request whose path is `/trap`.
const COUNTER: &str = r#"
    (global $count (mut i32) (i32.const 0))
    (data (i32.const 2048) "/trap")
    (func $handle (param $req i32) (param $out i32)
      (local $s i32)
      (global.set $count (i32.add (global.get $count) (i32.const 1)))
      ;; path-with-query: option<string> at 0 (tag), 4 (ptr), 8 (len).
      (call $req-path (local.get $req) (i32.const 0))
      (if (i32.and (i32.load8_u (i32.const 0)) (i32.eq (i32.load (i32.const 8)) (i32.const 5)))
        (then (if (i32.eq (i32.load8_u (i32.add (i32.load (i32.const 4)) (i32.const 1))) (i32.const 116))
          (then unreachable))))
      (i32.store8 (i32.const 3000) (i32.add (i32.const 48) (global.get $count)))
      (local.set $s (call $start (local.get $out) (i32.const 200) (call $fields-new)))
      (call $write-all (local.get $s) (i32.const 3000) (i32.const 1))
      (call $finish (local.get $s)))
"#;

/// The bodies of `COUNTER`'s answers to `paths`, one request after the
/// other.
fn counts(server: &Server, paths: &[&str]) -> Vec<String> {
    runtime().block_on(async {
        let mut out = Vec::new();
        for path in paths {
            // A 0.2 guest answers before its call returns: a request sent
            // at once may find the instance busy and get a new one. The
            // pause lets the instance finish first, also on a 2-core CI
            // machine busy with the other tests' servers (100 ms was once
            // too short there). It stays well below the idle timeout below.
            tokio::time::sleep(Duration::from_millis(300)).await;
            let resp = request(server.addr, "GET", path, &[], b"").await;
            out.push(if resp.status == 200 {
                String::from_utf8_lossy(&resp.body).into_owned()
            } else {
                resp.status.to_string()
            });
        }
        out
    })
}

/// A 0.2 instance serves one request by default (each request sees a
/// fresh instance), `--max-instance-reuse-count N` of them one after the
/// other (the guest's state carries over, then a fresh instance comes),
/// and a trap drops the instance: the next request gets a fresh one.
#[test]
fn serve_reuses_p2_instances_and_drops_them_after_a_trap() {
    let fresh = Server::start("count-1", COUNTER, &[]);
    assert_eq!(counts(&fresh, &["/", "/", "/"]), ["1", "1", "1"]);

    let reused = Server::start("count-3", COUNTER, &["--max-instance-reuse-count", "3"]);
    assert_eq!(counts(&reused, &["/", "/", "/", "/", "/"]), ["1", "2", "3", "1", "2"]);

    let trapping = Server::start("count-trap", COUNTER, &["--max-instance-reuse-count", "10"]);
    assert_eq!(
        counts(&trapping, &["/", "/", "/trap", "/", "/"]),
        ["1", "2", "500", "1", "2"]
    );
    let log = trapping.stderr_with("unreachable");
    assert!(log.contains("GET /trap") && log.contains("unreachable"), "{log}");

    // An idle instance is dropped after `--idle-instance-timeout`.
    let idle = Server::start(
        "count-idle",
        COUNTER,
        &["--max-instance-reuse-count", "10", "--idle-instance-timeout", "1500ms"],
    );
    assert_eq!(counts(&idle, &["/", "/"]), ["1", "2"]);
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(counts(&idle, &["/"]), ["1"]);
}

#[test]
fn serve_p3_with_cli_links_the_command_world_too() {
    let guest = p3_guest::service(p3_guest::Mode::Fixed, "");
    let server = Server::start_component(
        "p3-cli",
        &guest,
        &["-S", "cli", "--env", "A=b", "--max-instance-reuse-count", "1"],
    );
    runtime().block_on(async {
        let resp = request(server.addr, "GET", "/", &[], b"").await;
        assert_eq!(resp.status, 201);
        assert_eq!(resp.body, p3_guest::FIXED_BODY.as_bytes());
    });
}
