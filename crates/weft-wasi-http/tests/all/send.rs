//! `default_send_request` against a small HTTP/1 server on loopback: the
//! request arrives with its method, path, headers and body, and the
//! response's status, headers and body come back; a refused connection is
//! `Error::Connect`, another scheme than `http` and `https` is refused,
//! and an `https` server whose certificate no root vouches for is
//! `Error::Tls`. (`weft serve`'s tests send `https` requests to a server
//! whose CA the client is told to trust.)

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use weft_wasi_http::default_send_request;
use weft_wasi_http::p2::body::HyperOutgoingBody;
use weft_wasi_http::Error;

fn body(data: &'static [u8]) -> HyperOutgoingBody {
    Full::new(Bytes::from_static(data))
        .map_err(|never| match never {})
        .boxed_unsync()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_request_goes_out_and_its_response_comes_back() {
    let rt = runtime();
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut got = Vec::new();
            let mut buf = [0u8; 4096];
            // The head and the 5-byte body.
            while !(got.windows(4).any(|w| w == b"\r\n\r\n") && got.ends_with(b"hello")) {
                let n = s.read(&mut buf).await.unwrap();
                assert!(n > 0, "the request ended early: {:?}", String::from_utf8_lossy(&got));
                got.extend_from_slice(&buf[..n]);
            }
            s.write_all(b"HTTP/1.1 201 Created\r\nx-answer: 42\r\ncontent-length: 6\r\n\r\nworld!")
                .await
                .unwrap();
            String::from_utf8(got).unwrap()
        });
        let req = http::Request::post(format!("http://{addr}/path?q"))
            .header("host", addr.to_string())
            .header("x-test", "yes")
            .header("content-length", "5")
            .body(body(b"hello"))
            .unwrap();
        let (resp, io) = default_send_request(req, None).await.expect("the request is sent");
        // The connection runs on as the body is read.
        let io = tokio::spawn(io);
        assert_eq!(resp.status(), 201);
        assert_eq!(resp.headers()["x-answer"], "42");
        let got = resp.into_body().collect().await.expect("the body").to_bytes();
        assert_eq!(got, "world!");
        io.await.unwrap().expect("the connection ends cleanly");
        let request = server.await.unwrap();
        assert!(request.starts_with("POST /path?q HTTP/1.1\r\n"), "{request}");
        assert!(request.to_ascii_lowercase().contains("x-test: yes"), "{request}");

        // Nobody listens there any more.
        let req = http::Request::get(format!("http://{addr}/")).body(body(b"")).unwrap();
        let Err(err) = default_send_request(req, None).await else {
            panic!("a request to a closed port was sent")
        };
        assert!(matches!(err, Error::Connect(_)), "{err:?}");

        let req = http::Request::get("ftp://localhost/").body(body(b"")).unwrap();
        let Err(err) = default_send_request(req, None).await else {
            panic!("an ftp request was sent")
        };
        assert!(matches!(err, Error::HttpProtocolError), "{err:?}");
    });
}

/// An `https` request makes a TLS connection, and checks the server's
/// certificate: the test CA is not among the roots this process trusts,
/// so the handshake fails, with `Error::Tls`, and the server sees the
/// client give up on it.
#[test]
fn an_https_server_is_checked_against_the_roots() {
    let rt = runtime();
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (s, _) = listener.accept().await.unwrap();
            crate::tls_server::acceptor().accept(s).await.map(drop)
        });
        let req = http::Request::get(format!("https://localhost:{}/", addr.port()))
            .body(body(b""))
            .unwrap();
        let Err(err) = default_send_request(req, None).await else {
            panic!("a server with an unknown CA was trusted")
        };
        let Error::Tls(e) = &err else {
            panic!("not a TLS error: {err:?}")
        };
        assert!(e.to_string().contains("UnknownIssuer"), "{e}");
        let handshake = server.await.unwrap();
        assert!(handshake.is_err(), "the server's handshake ended well");
    });
}
