//! `weft-wasi`'s integration tests, in one test binary
//! (`cargo test -p weft-wasi --test all`), so that the API they use is
//! monomorphized and linked once. Each test module is what used to be a
//! test file of its own; run one with `cargo test -p weft-wasi --test all
//! MODULE::`. Only `p3_many_sockets` stays a binary of its own, since it
//! counts the process's threads.

mod common;
#[cfg(feature = "p2")]
#[allow(dead_code, reason = "each test module uses a part of the guests")]
mod p2_guest;
#[cfg(feature = "p3")]
#[allow(dead_code, reason = "each test module uses a part of the guests")]
mod p3_guest;

mod async_host;
mod datetime;
mod open_flags;
mod p2;
mod p2_embedder_stream;
mod p2_fs_async;
mod p2_reactor;
mod p2_sockets;
mod p2_streams_api;
mod p3;
mod p3_connect;
mod programs;
mod runtime48;
mod sandbox;
mod wasmtime48_interfaces;
mod wasmtime_example;
