//! `weft-wasi-http`'s integration tests, in one test binary
//! (`cargo test -p weft-wasi-http --test all`), so that the API they use
//! is monomorphized and linked once. Each test module is what used to be a
//! test file of its own; run one with `cargo test -p weft-wasi-http --test
//! all MODULE::`.

#[cfg_attr(
    not(feature = "p3"),
    allow(dead_code, reason = "the 0.3 tests use a part of the guests")
)]
mod common;
#[cfg(feature = "p3")]
mod p3_guest;

mod handler_p3;
mod p2_async_io;
mod p3;
mod proxy;
mod send;
#[allow(dead_code, reason = "weft serve's tests use the CA too")]
mod tls_server;
mod wasmtime48_shape;
