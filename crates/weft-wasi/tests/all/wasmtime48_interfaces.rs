//! Wasmtime 48's per-interface linking of WASI, written as a 48 embedder
//! writes it (with `wasmtime_wasi` renamed `weft_wasi`): single
//! interfaces are linked with the `HasData` types of the crate-root
//! modules (`WasiCli`, `WasiClocks`, `WasiRandom`, `WasiFilesystem`,
//! `WasiSockets`) and a getter each, for a store whose data is not a
//! `WasiView` but lends only the sub-contexts (`WasiCliView`,
//! `WasiClocksView`, ...), taken from a built `WasiCtx` through its
//! `cli()`, `clocks()`, ... accessors. Components written in WAT here call
//! what is linked and hand back what they got, which the tests check.

#![cfg(feature = "p2")]

use crate::p2_guest;

use weft::component::{Component, Instance, Linker, ResourceTable};
use weft::{Engine, Store};
use weft_wasi::cli::{WasiCli, WasiCliCtx, WasiCliCtxView, WasiCliView};
use weft_wasi::clocks::{WasiClocks, WasiClocksCtx, WasiClocksCtxView, WasiClocksView};
use weft_wasi::filesystem::{WasiFilesystem, WasiFilesystemCtx, WasiFilesystemCtxView, WasiFilesystemView};
use weft_wasi::random::{WasiRandom, WasiRandomCtx, WasiRandomView};
use weft_wasi::sockets::{WasiSockets, WasiSocketsCtx, WasiSocketsCtxView, WasiSocketsView};
use weft_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

/// Store data with the five sub-contexts and a table, and no `WasiCtx`:
/// it implements the per-package views only.
struct Partial {
    cli: WasiCliCtx,
    clocks: WasiClocksCtx,
    random: WasiRandomCtx,
    filesystem: WasiFilesystemCtx,
    sockets: WasiSocketsCtx,
    table: ResourceTable,
}

impl WasiCliView for Partial {
    fn cli(&mut self) -> WasiCliCtxView<'_> {
        WasiCliCtxView {
            ctx: &mut self.cli,
            table: &mut self.table,
        }
    }
}

impl WasiClocksView for Partial {
    fn clocks(&mut self) -> WasiClocksCtxView<'_> {
        WasiClocksCtxView {
            ctx: &mut self.clocks,
            table: &mut self.table,
        }
    }
}

impl WasiRandomView for Partial {
    fn random(&mut self) -> &mut WasiRandomCtx {
        &mut self.random
    }
}

impl WasiFilesystemView for Partial {
    fn filesystem(&mut self) -> WasiFilesystemCtxView<'_> {
        WasiFilesystemCtxView {
            ctx: &mut self.filesystem,
            table: &mut self.table,
        }
    }
}

impl WasiSocketsView for Partial {
    fn sockets(&mut self) -> WasiSocketsCtxView<'_> {
        WasiSocketsCtxView {
            ctx: &mut self.sockets,
            table: &mut self.table,
        }
    }
}

/// A full `WasiView`, which gets every per-package view from the blanket
/// impls.
struct Full {
    ctx: WasiCtx,
    table: ResourceTable,
}

impl WasiView for Full {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.ctx,
            table: &mut self.table,
        }
    }
}

const SEED: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
const FILE_TEXT: &str = "hello from the preopen";

/// A context with arguments, a known insecure seed, TCP allowed and a
/// preopen holding `hello.txt`.
fn built_ctx(dir: &std::path::Path) -> weft::Result<WasiCtx> {
    std::fs::write(dir.join("hello.txt"), FILE_TEXT)?;
    Ok(WasiCtxBuilder::new()
        .args(&["prog", "first-arg"])
        .insecure_random_seed(SEED)
        .allow_tcp(true)
        .preopened_dir(dir, "/data", FsPerms::ReadWrite)?
        .build())
}

/// Store data made of the sub-contexts of `ctx`, moved out through the
/// accessors 48 gives `WasiCtx` (each sub-context is `Default`).
fn partial(mut ctx: WasiCtx) -> Partial {
    Partial {
        cli: std::mem::take(ctx.cli()),
        clocks: std::mem::take(ctx.clocks()),
        random: std::mem::take(ctx.random()),
        filesystem: std::mem::take(ctx.filesystem()),
        sockets: std::mem::take(ctx.sockets()),
        table: ResourceTable::new(),
    }
}

/// A fresh directory for a test's preopen, removed when dropped.
fn sandbox(test: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("weft-wasi-48-{test}-"))
        .tempdir()
        .expect("create the test's directory")
}

/// A WASI 0.2.12 component that imports only `wasi:random/insecure-seed`,
/// `wasi:clocks/{wall-clock, monotonic-clock}`, `wasi:cli/environment`,
/// `wasi:sockets/{tcp, tcp-create-socket}` and
/// `wasi:filesystem/{types, preopens}` (a part of each) and exports one
/// function per check:
///
/// - `seed-lo`/`seed-hi`: the two halves of `insecure-seed`;
/// - `wall-seconds`, `mono-now`: the clocks' readings;
/// - `arg-count`, `first-arg`: `get-arguments`'s length and its second
///   entry (the first after the program name);
/// - `tcp-family`: creates an IPv4 TCP socket and returns its
///   `address-family` (0 = ipv4), or 100 + the error code;
/// - `preopen-type`: the `descriptor-type` of the first preopen (3 =
///   directory), or 100 + the error code;
/// - `read-file`: the text of `hello.txt` in the first preopen, opened
///   with `open-at` and read with `read` (traps on an error).
fn p2_component() -> String {
    let fs_codes = p2_guest::ERROR_CODES
        .iter()
        .map(|c| format!("\"{c}\""))
        .collect::<Vec<_>>()
        .join(" ");
    let v = "0.2.12";
    format!(
        r#"(component
  (import "wasi:random/insecure-seed@{v}" (instance $seed
    (export "insecure-seed" (func (result (tuple u64 u64))))))
  (import "wasi:clocks/wall-clock@{v}" (instance $wall
    (type $datetime' (record (field "seconds" u64) (field "nanoseconds" u32)))
    (export "datetime" (type $datetime (eq $datetime')))
    (export "now" (func (result $datetime)))))
  (import "wasi:clocks/monotonic-clock@{v}" (instance $mono
    (export "now" (func (result u64)))))
  (import "wasi:cli/environment@{v}" (instance $env
    (export "get-arguments" (func (result (list string))))))
  (import "wasi:sockets/tcp@{v}" (instance $tcp
    (export "tcp-socket" (type $socket (sub resource)))
    (type $family' (enum "ipv4" "ipv6"))
    (export "ip-address-family" (type $family (eq $family')))
    (export "[method]tcp-socket.address-family" (func (param "self" (borrow $socket)) (result $family)))))
  (alias export $tcp "tcp-socket" (type $tcp-socket))
  (import "wasi:sockets/tcp-create-socket@{v}" (instance $tcp-create
    (alias outer 1 $tcp-socket (type $s'))
    (export "tcp-socket" (type $s (eq $s')))
    (type $family' (enum "ipv4" "ipv6"))
    (export "ip-address-family" (type $family (eq $family')))
    (type $code' (enum "unknown" "access-denied" "not-supported" "invalid-argument" "out-of-memory" "timeout"
      "concurrency-conflict" "not-in-progress" "would-block" "invalid-state" "new-socket-limit"
      "address-not-bindable" "address-in-use" "remote-unreachable" "connection-refused" "connection-reset"
      "connection-aborted" "datagram-too-large" "name-unresolvable" "temporary-resolver-failure"
      "permanent-resolver-failure"))
    (export "error-code" (type $code (eq $code')))
    (export "create-tcp-socket" (func (param "address-family" $family) (result (result (own $s) (error $code)))))))
  (import "wasi:filesystem/types@{v}" (instance $fs
    (export "descriptor" (type $descriptor (sub resource)))
    (type $error-code' (enum {fs_codes}))
    (export "error-code" (type $error-code (eq $error-code')))
    (type $path-flags' (flags "symlink-follow"))
    (export "path-flags" (type $path-flags (eq $path-flags')))
    (type $open-flags' (flags "create" "directory" "exclusive" "truncate"))
    (export "open-flags" (type $open-flags (eq $open-flags')))
    (type $descriptor-flags' (flags "read" "write" "file-integrity-sync" "data-integrity-sync" "requested-write-sync" "mutate-directory"))
    (export "descriptor-flags" (type $descriptor-flags (eq $descriptor-flags')))
    (type $descriptor-type' (enum "unknown" "block-device" "character-device" "directory" "fifo" "symbolic-link" "regular-file" "socket"))
    (export "descriptor-type" (type $descriptor-type (eq $descriptor-type')))
    (export "[method]descriptor.get-type" (func (param "self" (borrow $descriptor))
      (result (result $descriptor-type (error $error-code)))))
    (export "[method]descriptor.open-at" (func (param "self" (borrow $descriptor)) (param "path-flags" $path-flags)
      (param "path" string) (param "open-flags" $open-flags) (param "flags" $descriptor-flags)
      (result (result (own $descriptor) (error $error-code)))))
    (export "[method]descriptor.read" (func (param "self" (borrow $descriptor)) (param "length" u64) (param "offset" u64)
      (result (result (tuple (list u8) bool) (error $error-code)))))))
  (alias export $fs "descriptor" (type $descriptor))
  (import "wasi:filesystem/preopens@{v}" (instance $preopens
    (alias outer 1 $descriptor (type $d'))
    (export "descriptor" (type $d (eq $d')))
    (export "get-directories" (func (result (list (tuple (own $d) string)))))))

  (core module $libc
    (memory (export "mem") 1)
    (global $bump (mut i32) (i32.const 8192))
    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
      (local $p i32)
      (local.set $p (i32.and (i32.add (global.get $bump) (i32.sub (local.get 2) (i32.const 1)))
                             (i32.sub (i32.const 0) (local.get 2))))
      (global.set $bump (i32.add (local.get $p) (local.get 3)))
      (if (i32.gt_u (global.get $bump) (i32.const 65536)) (then unreachable))
      (local.get $p)))
  (core instance $libc (instantiate $libc))
  (alias core export $libc "mem" (core memory $mem))
  (alias core export $libc "realloc" (core func $realloc))

  (core func $seed (canon lower (func $seed "insecure-seed") (memory $mem)))
  (core func $wall-now (canon lower (func $wall "now") (memory $mem)))
  (core func $mono-now (canon lower (func $mono "now")))
  (core func $get-args (canon lower (func $env "get-arguments") (memory $mem) (realloc $realloc)))
  (core func $create-tcp (canon lower (func $tcp-create "create-tcp-socket") (memory $mem)))
  (core func $tcp-family (canon lower (func $tcp "[method]tcp-socket.address-family")))
  (core func $drop-tcp (canon resource.drop $tcp-socket))
  (core func $get-dirs (canon lower (func $preopens "get-directories") (memory $mem) (realloc $realloc)))
  (core func $get-type (canon lower (func $fs "[method]descriptor.get-type") (memory $mem)))
  (core func $open-at (canon lower (func $fs "[method]descriptor.open-at") (memory $mem) (realloc $realloc)))
  (core func $read (canon lower (func $fs "[method]descriptor.read") (memory $mem) (realloc $realloc)))
  (core func $drop-descriptor (canon resource.drop $descriptor))

  (core module $m
    (import "libc" "mem" (memory 1))
    (import "w" "seed" (func $seed (param i32)))
    (import "w" "wall-now" (func $wall-now (param i32)))
    (import "w" "mono-now" (func $mono-now (result i64)))
    (import "w" "get-args" (func $get-args (param i32)))
    (import "w" "create-tcp" (func $create-tcp (param i32 i32)))
    (import "w" "tcp-family" (func $tcp-family (param i32) (result i32)))
    (import "w" "drop-tcp" (func $drop-tcp (param i32)))
    (import "w" "get-dirs" (func $get-dirs (param i32)))
    (import "w" "get-type" (func $get-type (param i32 i32)))
    (import "w" "open-at" (func $open-at (param i32 i32 i32 i32 i32 i32 i32)))
    (import "w" "read" (func $read (param i32 i64 i64 i32)))
    (import "w" "drop-descriptor" (func $drop-descriptor (param i32)))
    (data (i32.const 2048) "hello.txt")

    (func (export "seed-lo") (result i64) (call $seed (i32.const 32)) (i64.load (i32.const 32)))
    (func (export "seed-hi") (result i64) (call $seed (i32.const 32)) (i64.load (i32.const 40)))
    (func (export "wall-seconds") (result i64) (call $wall-now (i32.const 32)) (i64.load (i32.const 32)))
    (func (export "mono-now") (result i64) (call $mono-now))
    (func (export "arg-count") (result i32) (call $get-args (i32.const 32)) (i32.load (i32.const 36)))
    ;; The list's second (ptr, len) pair is the string result.
    (func (export "first-arg") (result i32)
      (call $get-args (i32.const 32))
      (i32.add (i32.load (i32.const 32)) (i32.const 8)))
    (func (export "tcp-family") (result i32) (local $s i32) (local $f i32)
      (call $create-tcp (i32.const 0) (i32.const 32))
      (if (i32.load8_u (i32.const 32))
        (then (return (i32.add (i32.const 100) (i32.load8_u (i32.const 36))))))
      (local.set $s (i32.load (i32.const 36)))
      (local.set $f (call $tcp-family (local.get $s)))
      (call $drop-tcp (local.get $s))
      (local.get $f))
    ;; The first preopen's descriptor (the others are dropped).
    (func $first-preopen (result i32) (local $list i32) (local $n i32) (local $i i32)
      (call $get-dirs (i32.const 32))
      (local.set $list (i32.load (i32.const 32)))
      (local.set $n (i32.load (i32.const 36)))
      (if (i32.eqz (local.get $n)) (then unreachable))
      (local.set $i (i32.const 1))
      (block $done (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $drop-descriptor (i32.load (i32.add (local.get $list) (i32.mul (local.get $i) (i32.const 12)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
      (i32.load (local.get $list)))
    (func (export "preopen-type") (result i32) (local $d i32) (local $r i32)
      (local.set $d (call $first-preopen))
      (call $get-type (local.get $d) (i32.const 64))
      (local.set $r (i32.load8_u (i32.const 65)))
      (if (i32.load8_u (i32.const 64)) (then (local.set $r (i32.add (i32.const 100) (local.get $r)))))
      (call $drop-descriptor (local.get $d))
      (local.get $r))
    (func (export "read-file") (result i32) (local $d i32) (local $f i32)
      (local.set $d (call $first-preopen))
      ;; path-flags none, open-flags none, descriptor-flags read.
      (call $open-at (local.get $d) (i32.const 0) (i32.const 2048) (i32.const 9) (i32.const 0) (i32.const 1) (i32.const 64))
      (if (i32.load8_u (i32.const 64)) (then unreachable))
      (local.set $f (i32.load (i32.const 68)))
      (call $read (local.get $f) (i64.const 1000) (i64.const 0) (i32.const 96))
      (if (i32.load8_u (i32.const 96)) (then unreachable))
      (call $drop-descriptor (local.get $f))
      (call $drop-descriptor (local.get $d))
      (i32.const 100)))

  (core instance $i (instantiate $m
    (with "libc" (instance $libc))
    (with "w" (instance
      (export "seed" (func $seed)) (export "wall-now" (func $wall-now)) (export "mono-now" (func $mono-now))
      (export "get-args" (func $get-args)) (export "create-tcp" (func $create-tcp))
      (export "tcp-family" (func $tcp-family)) (export "drop-tcp" (func $drop-tcp))
      (export "get-dirs" (func $get-dirs)) (export "get-type" (func $get-type)) (export "open-at" (func $open-at))
      (export "read" (func $read)) (export "drop-descriptor" (func $drop-descriptor))))))
  (func (export "seed-lo") (result u64) (canon lift (core func $i "seed-lo")))
  (func (export "seed-hi") (result u64) (canon lift (core func $i "seed-hi")))
  (func (export "wall-seconds") (result u64) (canon lift (core func $i "wall-seconds")))
  (func (export "mono-now") (result u64) (canon lift (core func $i "mono-now")))
  (func (export "arg-count") (result u32) (canon lift (core func $i "arg-count")))
  (func (export "first-arg") (result string) (canon lift (core func $i "first-arg") (memory $mem)))
  (func (export "tcp-family") (result u32) (canon lift (core func $i "tcp-family")))
  (func (export "preopen-type") (result u32) (canon lift (core func $i "preopen-type")))
  (func (export "read-file") (result string) (canon lift (core func $i "read-file") (memory $mem))))"#
    )
}

/// What the exports of `p2_component` returned.
#[derive(Debug)]
struct Seen {
    seed: (u64, u64),
    wall_seconds: u64,
    mono: (u64, u64),
    arg_count: u32,
    first_arg: String,
    tcp_family: u32,
    preopen_type: u32,
    file: String,
}

/// Calls every export of `p2_component` with the synchronous API.
fn probe_sync<T: 'static>(store: &mut Store<T>, instance: &Instance) -> weft::Result<Seen> {
    fn num<T: 'static>(store: &mut Store<T>, instance: &Instance, name: &str) -> weft::Result<u64> {
        let f = instance.get_typed_func::<(), (u64,)>(&mut *store, name)?;
        Ok(f.call(&mut *store, ())?.0)
    }
    fn small<T: 'static>(store: &mut Store<T>, instance: &Instance, name: &str) -> weft::Result<u32> {
        let f = instance.get_typed_func::<(), (u32,)>(&mut *store, name)?;
        Ok(f.call(&mut *store, ())?.0)
    }
    fn text<T: 'static>(store: &mut Store<T>, instance: &Instance, name: &str) -> weft::Result<String> {
        let f = instance.get_typed_func::<(), (String,)>(&mut *store, name)?;
        Ok(f.call(&mut *store, ())?.0)
    }
    Ok(Seen {
        seed: (num(store, instance, "seed-lo")?, num(store, instance, "seed-hi")?),
        wall_seconds: num(store, instance, "wall-seconds")?,
        mono: (num(store, instance, "mono-now")?, num(store, instance, "mono-now")?),
        arg_count: small(store, instance, "arg-count")?,
        first_arg: text(store, instance, "first-arg")?,
        tcp_family: small(store, instance, "tcp-family")?,
        preopen_type: small(store, instance, "preopen-type")?,
        file: text(store, instance, "read-file")?,
    })
}

/// Calls every export of `p2_component` with the async API.
async fn probe_async<T: Send + 'static>(store: &mut Store<T>, instance: &Instance) -> weft::Result<Seen> {
    async fn num<T: Send + 'static>(store: &mut Store<T>, instance: &Instance, name: &str) -> weft::Result<u64> {
        let f = instance.get_typed_func::<(), (u64,)>(&mut *store, name)?;
        Ok(f.call_async(&mut *store, ()).await?.0)
    }
    async fn small<T: Send + 'static>(store: &mut Store<T>, instance: &Instance, name: &str) -> weft::Result<u32> {
        let f = instance.get_typed_func::<(), (u32,)>(&mut *store, name)?;
        Ok(f.call_async(&mut *store, ()).await?.0)
    }
    async fn text<T: Send + 'static>(store: &mut Store<T>, instance: &Instance, name: &str) -> weft::Result<String> {
        let f = instance.get_typed_func::<(), (String,)>(&mut *store, name)?;
        Ok(f.call_async(&mut *store, ()).await?.0)
    }
    Ok(Seen {
        seed: (
            num(store, instance, "seed-lo").await?,
            num(store, instance, "seed-hi").await?,
        ),
        wall_seconds: num(store, instance, "wall-seconds").await?,
        mono: (
            num(store, instance, "mono-now").await?,
            num(store, instance, "mono-now").await?,
        ),
        arg_count: small(store, instance, "arg-count").await?,
        first_arg: text(store, instance, "first-arg").await?,
        tcp_family: small(store, instance, "tcp-family").await?,
        preopen_type: small(store, instance, "preopen-type").await?,
        file: text(store, instance, "read-file").await?,
    })
}

/// Checks what the guest saw against the context of `built_ctx`, with
/// `tcp_family` the expected result of `tcp-family`.
fn check(seen: &Seen, tcp_family: u32) {
    assert_eq!(seen.seed, (SEED as u64, (SEED >> 64) as u64), "{seen:?}");
    let host = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(seen.wall_seconds.abs_diff(host) <= 5, "{seen:?} vs {host}");
    // The context's monotonic clock counts from its creation, a moment
    // ago, and never goes back.
    assert!(seen.mono.0 <= seen.mono.1, "{seen:?}");
    assert!(seen.mono.1 < 600_000_000_000, "{seen:?}");
    assert_eq!(seen.arg_count, 2, "{seen:?}");
    assert_eq!(seen.first_arg, "first-arg");
    assert_eq!(seen.tcp_family, tcp_family, "{seen:?}");
    // 3 = `directory`.
    assert_eq!(seen.preopen_type, 3, "{seen:?}");
    assert_eq!(seen.file, FILE_TEXT);
}

/// 48's sync per-interface linking (`bindings::sync::<pkg>::<iface>::
/// add_to_linker::<T, D>`) for a store that lends only the sub-contexts,
/// with closures and the view traits' methods as getters.
#[test]
fn sync_single_interfaces_for_a_state_with_only_sub_contexts() -> weft::Result<()> {
    use weft_wasi::p2::bindings::sync as b;
    let dir = sandbox("sync");
    let engine = Engine::default();
    let mut linker = Linker::<Partial>::new(&engine);
    b::random::insecure_seed::add_to_linker::<Partial, WasiRandom>(&mut linker, |s| &mut s.random)?;
    b::clocks::wall_clock::add_to_linker::<Partial, WasiClocks>(&mut linker, |s| WasiClocksCtxView {
        ctx: &mut s.clocks,
        table: &mut s.table,
    })?;
    b::clocks::monotonic_clock::add_to_linker::<Partial, WasiClocks>(&mut linker, Partial::clocks)?;
    b::cli::environment::add_to_linker::<Partial, WasiCli>(&mut linker, |s| s.cli())?;
    b::sockets::tcp::add_to_linker::<Partial, WasiSockets>(&mut linker, |s| WasiSocketsCtxView {
        ctx: &mut s.sockets,
        table: &mut s.table,
    })?;
    b::sockets::tcp_create_socket::add_to_linker::<Partial, WasiSockets>(&mut linker, |s| s.sockets())?;
    b::filesystem::types::add_to_linker::<Partial, WasiFilesystem>(&mut linker, |s| s.filesystem())?;
    b::filesystem::preopens::add_to_linker::<Partial, WasiFilesystem>(&mut linker, |s| s.filesystem())?;

    let component = Component::new(&engine, wat::parse_str(p2_component())?)?;
    let mut store = Store::new(&engine, partial(built_ctx(dir.path())?));
    let instance = linker.instantiate(&mut store, &component)?;
    let seen = probe_sync(&mut store, &instance)?;
    // 0 = `ipv4`: TCP is allowed by the context the sockets part came from.
    check(&seen, 0);
    // Every resource the guest made was dropped again.
    assert!(store.data().table.is_empty());
    Ok(())
}

/// A single interface missing from the linker fails the instantiation
/// with its name (only what is linked is there).
#[test]
fn an_interface_left_out_is_missing() -> weft::Result<()> {
    use weft_wasi::p2::bindings::sync as b;
    let dir = sandbox("missing");
    let engine = Engine::default();
    let mut linker = Linker::<Partial>::new(&engine);
    b::random::insecure_seed::add_to_linker::<Partial, WasiRandom>(&mut linker, Partial::random)?;
    b::clocks::wall_clock::add_to_linker::<Partial, WasiClocks>(&mut linker, Partial::clocks)?;
    b::clocks::monotonic_clock::add_to_linker::<Partial, WasiClocks>(&mut linker, Partial::clocks)?;
    b::cli::environment::add_to_linker::<Partial, WasiCli>(&mut linker, Partial::cli)?;
    b::sockets::tcp::add_to_linker::<Partial, WasiSockets>(&mut linker, Partial::sockets)?;
    b::filesystem::types::add_to_linker::<Partial, WasiFilesystem>(&mut linker, Partial::filesystem)?;
    b::filesystem::preopens::add_to_linker::<Partial, WasiFilesystem>(&mut linker, Partial::filesystem)?;
    let component = Component::new(&engine, wat::parse_str(p2_component())?)?;
    let mut store = Store::new(&engine, partial(built_ctx(dir.path())?));
    let err = linker.instantiate(&mut store, &component).unwrap_err();
    assert!(format!("{err:?}").contains("wasi:sockets/tcp-create-socket"), "{err:?}");
    Ok(())
}

/// 48's async per-interface linking (`bindings::<pkg>::<iface>::
/// add_to_linker::<T, D>`) for a full `WasiView`, whose per-package views
/// come from the blanket impls; the context does not allow TCP, and the
/// guest is told so.
#[test]
fn async_single_interfaces_for_a_wasi_view() -> weft::Result<()> {
    use weft_wasi::p2::bindings as b;
    let dir = sandbox("async");
    let engine = Engine::default();
    let mut linker = Linker::<Full>::new(&engine);
    b::random::insecure_seed::add_to_linker::<Full, WasiRandom>(&mut linker, Full::random)?;
    b::clocks::wall_clock::add_to_linker::<Full, WasiClocks>(&mut linker, Full::clocks)?;
    b::clocks::monotonic_clock::add_to_linker::<Full, WasiClocks>(&mut linker, Full::clocks)?;
    b::cli::environment::add_to_linker::<Full, WasiCli>(&mut linker, Full::cli)?;
    b::sockets::tcp::add_to_linker::<Full, WasiSockets>(&mut linker, Full::sockets)?;
    b::sockets::tcp_create_socket::add_to_linker::<Full, WasiSockets>(&mut linker, |s| WasiSocketsCtxView {
        ctx: s.ctx.sockets(),
        table: &mut s.table,
    })?;
    b::filesystem::types::add_to_linker::<Full, WasiFilesystem>(&mut linker, Full::filesystem)?;
    b::filesystem::preopens::add_to_linker::<Full, WasiFilesystem>(&mut linker, Full::filesystem)?;

    let component = Component::new(&engine, wat::parse_str(p2_component())?)?;
    let mut ctx = built_ctx(dir.path())?;
    // TCP off again: the sub-context is the context's own.
    *ctx.sockets() = WasiSocketsCtx::default();
    let mut store = Store::new(
        &engine,
        Full {
            ctx,
            table: ResourceTable::new(),
        },
    );
    let seen = weft_wasi::runtime::in_tokio(async {
        let instance = linker.instantiate_async(&mut store, &component).await?;
        probe_async(&mut store, &instance).await
    })?;
    // 101 = error `access-denied`.
    check(&seen, 101);
    Ok(())
}

/// A WASI 0.3.0 component that imports a part of `wasi:cli/environment`,
/// `wasi:random/insecure-seed`, `wasi:clocks/monotonic-clock`,
/// `wasi:filesystem/{types, preopens}` and `wasi:sockets/types`, and
/// exports `seed-lo`, `seed-hi`, `mono-now`, `arg-count`, `first-arg`,
/// `tcp-family` and `preopen-count` (each as `p2_component`'s, the last
/// the number of preopens, all dropped again).
#[cfg(feature = "p3")]
fn p3_component() -> String {
    let v = "0.3.0";
    format!(
        r#"(component
  (import "wasi:random/insecure-seed@{v}" (instance $seed
    (export "get-insecure-seed" (func (result (tuple u64 u64))))))
  (import "wasi:clocks/monotonic-clock@{v}" (instance $mono
    (export "now" (func (result u64)))))
  (import "wasi:cli/environment@{v}" (instance $env
    (export "get-arguments" (func (result (list string))))))
  (import "wasi:sockets/types@{v}" (instance $sockets
    (type $code' (variant (case "access-denied") (case "not-supported") (case "invalid-argument")
      (case "out-of-memory") (case "timeout") (case "invalid-state") (case "address-not-bindable")
      (case "address-in-use") (case "remote-unreachable") (case "connection-refused") (case "connection-broken")
      (case "connection-reset") (case "connection-aborted") (case "datagram-too-large") (case "other" (option string))))
    (export "error-code" (type $code (eq $code')))
    (type $family' (enum "ipv4" "ipv6"))
    (export "ip-address-family" (type $family (eq $family')))
    (export "tcp-socket" (type $socket (sub resource)))
    (export "[static]tcp-socket.create" (func (param "address-family" $family) (result (result (own $socket) (error $code)))))
    (export "[method]tcp-socket.get-address-family" (func (param "self" (borrow $socket)) (result $family)))))
  (alias export $sockets "tcp-socket" (type $tcp-socket))
  (import "wasi:filesystem/types@{v}" (instance $fs
    (export "descriptor" (type $descriptor (sub resource)))))
  (alias export $fs "descriptor" (type $descriptor))
  (import "wasi:filesystem/preopens@{v}" (instance $preopens
    (alias outer 1 $descriptor (type $d'))
    (export "descriptor" (type $d (eq $d')))
    (export "get-directories" (func (result (list (tuple (own $d) string)))))))

  (core module $libc
    (memory (export "mem") 1)
    (global $bump (mut i32) (i32.const 8192))
    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
      (local $p i32)
      (local.set $p (i32.and (i32.add (global.get $bump) (i32.sub (local.get 2) (i32.const 1)))
                             (i32.sub (i32.const 0) (local.get 2))))
      (global.set $bump (i32.add (local.get $p) (local.get 3)))
      (if (i32.gt_u (global.get $bump) (i32.const 65536)) (then unreachable))
      (local.get $p)))
  (core instance $libc (instantiate $libc))
  (alias core export $libc "mem" (core memory $mem))
  (alias core export $libc "realloc" (core func $realloc))

  (core func $seed (canon lower (func $seed "get-insecure-seed") (memory $mem)))
  (core func $mono-now (canon lower (func $mono "now")))
  (core func $get-args (canon lower (func $env "get-arguments") (memory $mem) (realloc $realloc)))
  (core func $create-tcp (canon lower (func $sockets "[static]tcp-socket.create") (memory $mem) (realloc $realloc)))
  (core func $tcp-family (canon lower (func $sockets "[method]tcp-socket.get-address-family")))
  (core func $drop-tcp (canon resource.drop $tcp-socket))
  (core func $get-dirs (canon lower (func $preopens "get-directories") (memory $mem) (realloc $realloc)))
  (core func $drop-descriptor (canon resource.drop $descriptor))

  (core module $m
    (import "libc" "mem" (memory 1))
    (import "w" "seed" (func $seed (param i32)))
    (import "w" "mono-now" (func $mono-now (result i64)))
    (import "w" "get-args" (func $get-args (param i32)))
    (import "w" "create-tcp" (func $create-tcp (param i32 i32)))
    (import "w" "tcp-family" (func $tcp-family (param i32) (result i32)))
    (import "w" "drop-tcp" (func $drop-tcp (param i32)))
    (import "w" "get-dirs" (func $get-dirs (param i32)))
    (import "w" "drop-descriptor" (func $drop-descriptor (param i32)))

    (func (export "seed-lo") (result i64) (call $seed (i32.const 32)) (i64.load (i32.const 32)))
    (func (export "seed-hi") (result i64) (call $seed (i32.const 32)) (i64.load (i32.const 40)))
    (func (export "mono-now") (result i64) (call $mono-now))
    (func (export "arg-count") (result i32) (call $get-args (i32.const 32)) (i32.load (i32.const 36)))
    (func (export "first-arg") (result i32)
      (call $get-args (i32.const 32))
      (i32.add (i32.load (i32.const 32)) (i32.const 8)))
    (func (export "tcp-family") (result i32) (local $s i32) (local $f i32)
      (call $create-tcp (i32.const 0) (i32.const 32))
      (if (i32.load8_u (i32.const 32))
        (then (return (i32.add (i32.const 100) (i32.load8_u (i32.const 36))))))
      (local.set $s (i32.load (i32.const 36)))
      (local.set $f (call $tcp-family (local.get $s)))
      (call $drop-tcp (local.get $s))
      (local.get $f))
    (func (export "preopen-count") (result i32) (local $list i32) (local $n i32) (local $i i32)
      (call $get-dirs (i32.const 32))
      (local.set $list (i32.load (i32.const 32)))
      (local.set $n (i32.load (i32.const 36)))
      (block $done (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $drop-descriptor (i32.load (i32.add (local.get $list) (i32.mul (local.get $i) (i32.const 12)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
      (local.get $n)))

  (core instance $i (instantiate $m
    (with "libc" (instance $libc))
    (with "w" (instance
      (export "seed" (func $seed)) (export "mono-now" (func $mono-now)) (export "get-args" (func $get-args))
      (export "create-tcp" (func $create-tcp)) (export "tcp-family" (func $tcp-family))
      (export "drop-tcp" (func $drop-tcp)) (export "get-dirs" (func $get-dirs))
      (export "drop-descriptor" (func $drop-descriptor))))))
  (func (export "seed-lo") (result u64) (canon lift (core func $i "seed-lo")))
  (func (export "seed-hi") (result u64) (canon lift (core func $i "seed-hi")))
  (func (export "mono-now") (result u64) (canon lift (core func $i "mono-now")))
  (func (export "arg-count") (result u32) (canon lift (core func $i "arg-count")))
  (func (export "first-arg") (result string) (canon lift (core func $i "first-arg") (memory $mem)))
  (func (export "tcp-family") (result u32) (canon lift (core func $i "tcp-family")))
  (func (export "preopen-count") (result u32) (canon lift (core func $i "preopen-count"))))"#
    )
}

/// 48's WASIp3 per-package linking (`p3::cli::add_to_linker`,
/// `p3::clocks::add_to_linker`, ... taking `T: WasiCliView` etc.) for a
/// store that lends only the sub-contexts.
#[cfg(feature = "p3")]
#[test]
fn p3_packages_for_a_state_with_only_sub_contexts() -> weft::Result<()> {
    let dir = sandbox("p3");
    let engine = Engine::default();
    let mut linker = Linker::<Partial>::new(&engine);
    weft_wasi::p3::cli::add_to_linker(&mut linker)?;
    weft_wasi::p3::clocks::add_to_linker(&mut linker)?;
    weft_wasi::p3::random::add_to_linker(&mut linker)?;
    weft_wasi::p3::filesystem::add_to_linker(&mut linker)?;
    weft_wasi::p3::sockets::add_to_linker(&mut linker)?;
    let component = Component::new(&engine, wat::parse_str(p3_component())?)?;
    let mut store = Store::new(&engine, partial(built_ctx(dir.path())?));
    let instance = linker.instantiate(&mut store, &component)?;
    fn call<R: weft::component::ComponentNamedList + weft::component::Lift + Send + Sync + 'static>(
        store: &mut Store<Partial>,
        instance: &Instance,
        name: &str,
    ) -> weft::Result<R> {
        instance
            .get_typed_func::<(), R>(&mut *store, name)?
            .call(&mut *store, ())
    }
    let (lo,): (u64,) = call(&mut store, &instance, "seed-lo")?;
    let (hi,): (u64,) = call(&mut store, &instance, "seed-hi")?;
    assert_eq!((lo, hi), (SEED as u64, (SEED >> 64) as u64));
    let (a,): (u64,) = call(&mut store, &instance, "mono-now")?;
    let (b,): (u64,) = call(&mut store, &instance, "mono-now")?;
    assert!(a <= b && b < 600_000_000_000, "{a} {b}");
    let (n,): (u32,) = call(&mut store, &instance, "arg-count")?;
    assert_eq!(n, 2);
    let (first,): (String,) = call(&mut store, &instance, "first-arg")?;
    assert_eq!(first, "first-arg");
    // 0 = `ipv4`: TCP is allowed.
    let (family,): (u32,) = call(&mut store, &instance, "tcp-family")?;
    assert_eq!(family, 0);
    let (preopens,): (u32,) = call(&mut store, &instance, "preopen-count")?;
    assert_eq!(preopens, 1);
    assert!(store.data().table.is_empty());

    // With TCP not allowed, `create` is `access-denied` (case 0).
    store.data_mut().sockets = WasiSocketsCtx::default();
    let (family,): (u32,) = call(&mut store, &instance, "tcp-family")?;
    assert_eq!(family, 100);
    Ok(())
}

/// A wall clock stopped at 1,700,000,000 s after the epoch.
struct StoppedWall;

impl weft_wasi::HostWallClock for StoppedWall {
    fn resolution(&self) -> std::time::Duration {
        std::time::Duration::from_secs(1)
    }
    fn now(&self) -> std::time::Duration {
        std::time::Duration::from_secs(1_700_000_000)
    }
}

/// A monotonic clock stopped at 42 ns.
struct StoppedMono;

impl weft_wasi::HostMonotonicClock for StoppedMono {
    fn resolution(&self) -> u64 {
        1
    }
    fn now(&self) -> u64 {
        42
    }
}

/// 48's `WasiCtxBuilder::wall_clock` and `monotonic_clock`: the guest's
/// `wasi:clocks` read the embedder's clocks, not the host's.
#[test]
fn custom_clocks_are_what_the_guest_reads() -> weft::Result<()> {
    use weft_wasi::p2::bindings::sync as b;
    let dir = sandbox("clocks");
    std::fs::write(dir.path().join("hello.txt"), FILE_TEXT)?;
    let engine = Engine::default();
    let mut linker = Linker::<Full>::new(&engine);
    b::random::insecure_seed::add_to_linker::<Full, WasiRandom>(&mut linker, Full::random)?;
    b::clocks::wall_clock::add_to_linker::<Full, WasiClocks>(&mut linker, Full::clocks)?;
    b::clocks::monotonic_clock::add_to_linker::<Full, WasiClocks>(&mut linker, Full::clocks)?;
    b::cli::environment::add_to_linker::<Full, WasiCli>(&mut linker, Full::cli)?;
    b::sockets::tcp::add_to_linker::<Full, WasiSockets>(&mut linker, Full::sockets)?;
    b::sockets::tcp_create_socket::add_to_linker::<Full, WasiSockets>(&mut linker, Full::sockets)?;
    b::filesystem::types::add_to_linker::<Full, WasiFilesystem>(&mut linker, Full::filesystem)?;
    b::filesystem::preopens::add_to_linker::<Full, WasiFilesystem>(&mut linker, Full::filesystem)?;
    let mut ctx = WasiCtxBuilder::new()
        .args(&["prog", "first-arg"])
        .wall_clock(StoppedWall)
        .monotonic_clock(StoppedMono)
        .allow_blocking_current_thread(true)
        .preopened_dir(dir.path(), "/data", FsPerms::ReadOnly)?
        .build();
    // The flag is kept in the filesystem part of the context.
    let fs = format!("{:?}", ctx.filesystem());
    assert!(fs.contains("allow_blocking_current_thread: true"), "{fs}");
    let component = Component::new(&engine, wat::parse_str(p2_component())?)?;
    let mut store = Store::new(
        &engine,
        Full {
            ctx,
            table: ResourceTable::new(),
        },
    );
    let instance = linker.instantiate(&mut store, &component)?;
    let seen = probe_sync(&mut store, &instance)?;
    assert_eq!(seen.wall_seconds, 1_700_000_000, "{seen:?}");
    assert_eq!(seen.mono, (42, 42), "{seen:?}");
    // A read-only preopen still reads.
    assert_eq!(seen.file, FILE_TEXT);
    Ok(())
}

/// A component exporting `secure` and `insecure`, the `u64`s its
/// `wasi:random/random` and `wasi:random/insecure` give.
fn random_component() -> String {
    let v = "0.2.12";
    format!(
        r#"(component
  (import "wasi:random/random@{v}" (instance $r (export "get-random-u64" (func (result u64)))))
  (import "wasi:random/insecure@{v}" (instance $i (export "get-insecure-random-u64" (func (result u64)))))
  (core func $ru (canon lower (func $r "get-random-u64")))
  (core func $iu (canon lower (func $i "get-insecure-random-u64")))
  (core module $m
    (import "r" "u" (func $ru (result i64)))
    (import "i" "u" (func $iu (result i64)))
    (func (export "secure") (result i64) (call $ru))
    (func (export "insecure") (result i64) (call $iu)))
  (core instance $ci (instantiate $m
    (with "r" (instance (export "u" (func $ru))))
    (with "i" (instance (export "u" (func $iu))))))
  (func (export "secure") (result u64) (canon lift (core func $ci "secure")))
  (func (export "insecure") (result u64) (canon lift (core func $ci "insecure"))))"#
    )
}

/// 48's `WasiCtxBuilder::secure_random` and `insecure_random` with
/// `Deterministic` generators: the guest's `wasi:random` gives their
/// bytes, in order.
#[test]
fn deterministic_generators_are_what_the_guest_gets() -> weft::Result<()> {
    use weft_wasi::p2::bindings::sync as b;
    use weft_wasi::Deterministic;
    let engine = Engine::default();
    let mut linker = Linker::<Full>::new(&engine);
    b::random::random::add_to_linker::<Full, WasiRandom>(&mut linker, Full::random)?;
    b::random::insecure::add_to_linker::<Full, WasiRandom>(&mut linker, Full::random)?;
    let ctx = WasiCtxBuilder::new()
        .secure_random(Deterministic::new(vec![1, 2, 3]))
        .insecure_random(Deterministic::new(vec![7]))
        .build();
    let component = Component::new(&engine, wat::parse_str(random_component())?)?;
    let mut store = Store::new(
        &engine,
        Full {
            ctx,
            table: ResourceTable::new(),
        },
    );
    let instance = linker.instantiate(&mut store, &component)?;
    let secure = instance.get_typed_func::<(), (u64,)>(&mut store, "secure")?;
    let insecure = instance.get_typed_func::<(), (u64,)>(&mut store, "insecure")?;
    assert_eq!(
        secure.call(&mut store, ())?.0,
        u64::from_le_bytes([1, 2, 3, 1, 2, 3, 1, 2])
    );
    // The cycle goes on where it stopped.
    assert_eq!(
        secure.call(&mut store, ())?.0,
        u64::from_le_bytes([3, 1, 2, 3, 1, 2, 3, 1])
    );
    assert_eq!(insecure.call(&mut store, ())?.0, u64::from_le_bytes([7; 8]));
    // The default generators are the operating system's, not these.
    let mut other = Store::new(
        &engine,
        Full {
            ctx: WasiCtxBuilder::new().build(),
            table: ResourceTable::new(),
        },
    );
    let instance = linker.instantiate(&mut other, &component)?;
    let secure = instance.get_typed_func::<(), (u64,)>(&mut other, "secure")?;
    let (a, c) = (secure.call(&mut other, ())?.0, secure.call(&mut other, ())?.0);
    assert_ne!(a, c);
    Ok(())
}
