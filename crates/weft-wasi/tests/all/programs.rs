//! C-like WASI programs written in `.wat` (`tests/wat/`), run through the
//! public API with pipes for stdio and a temp dir as their preopen; their
//! output is compared line by line with what a POSIX-like system prints.

use crate::common;

use common::{run, temp_dir};
use weft_wasi::{FsPerms, I32Exit, MemoryInputPipe, WasiCtxBuilder};

fn lines(s: &[&str]) -> String {
    s.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn args_env_and_exit_status() {
    let out = run(
        "args_env.wat",
        WasiCtxBuilder::new()
            .args(&["prog", "first arg"])
            .arg("x")
            .env("HOME", "/home/guest")
            .envs(&[("LANG", "C"), ("EMPTY", "")]),
    );
    assert_eq!(
        out.stdout,
        lines(&["prog", "first arg", "x", "HOME=/home/guest", "LANG=C", "EMPTY="])
    );
    assert_eq!(out.exit_code(), Some(3), "{:?}", out.result);

    // No arguments, no environment: exit status 0 is still an I32Exit.
    let out = run("args_env.wat", &mut WasiCtxBuilder::new());
    assert_eq!(out.stdout, "");
    assert_eq!(out.exit_code(), Some(0));
}

#[test]
fn files() {
    let dir = temp_dir();
    let out = run(
        "files.wat",
        WasiCtxBuilder::new()
            .preopened_dir(dir.path(), ".", FsPerms::ReadWrite)
            .unwrap(),
    );
    assert!(out.result.is_ok(), "{:?}\n{}", out.result, out.stdout);
    let want = [
        "hello, file",
        "hello, WASI",
        "12", // size
        "5",  // size after truncation
        "12", // position
        "3",  // seek from the end
        "28", // bad whence
        "28", // negative position
        "10", // after fd_allocate
        "4",  // regular file
        "8",  // double close
        "44", // missing file
        "8",  // write to stdin
        "3",  // the preopen is a directory
        ".",  // named "."
        "8",  // stdout is not a preopen
        "hello++",
    ];
    assert_eq!(out.stdout, lines(&want));
    assert_eq!(std::fs::read(dir.path().join("out.txt")).unwrap(), b"hello++");
}

#[test]
fn directories() {
    let dir = temp_dir();
    let out = run(
        "dirs.wat",
        WasiCtxBuilder::new()
            .preopened_dir(dir.path(), ".", FsPerms::ReadWrite)
            .unwrap(),
    );
    assert!(out.result.is_ok(), "{:?}\n{}", out.result, out.stdout);
    let want = [
        "20",    // mkdir twice
        "b.txt", // readlink
        "7",     // symlink
        "4",     // followed: regular file
        "2",     // nlink after path_link
        "5",     // readdir a cookie at a time
        "5",     // readdir at once
        "2000",  // mtime set by path_filestat_set_times
        "28",    // a time and "now" at once
        "44",    // rmdir twice
        "31",    // unlink_file of a directory
        "55",    // rmdir of a non-empty directory
        "25",    // a path that is not UTF-8
    ];
    assert_eq!(out.stdout, lines(&want));
    let mut left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["d3"]);
}

#[test]
fn clocks_poll_random() {
    let out = run(
        "clocks_poll.wat",
        WasiCtxBuilder::new().stdin(MemoryInputPipe::new("input")),
    );
    assert!(out.result.is_ok(), "{:?}\n{}", out.result, out.stdout);
    let want = [
        "yes", // realtime
        "yes", "yes", "yes", "yes", // four clocks
        "28", "28", // unknown clock
        "1", "42", "0", "0", "yes", // a 20 ms sleep
        "1",   // a past absolute deadline
        "1", "1", "1", // stdin readable
        "2", "0", "8", // stdout writable, bad fd
        "28", "28",  // no subscriptions; a CPU-time clock
        "yes", // random
        "58", "28", // proc_raise
        "21", "21", "21", "21", // faults
    ];
    assert_eq!(out.stdout, lines(&want));
}

#[test]
fn stdin_pipe_is_read_to_the_end() {
    let wat = r#"(module
        (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
        (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
        (memory (export "memory") 1)
        (func (export "_start")
          (i32.store (i32.const 0) (i32.const 100))
          (i32.store (i32.const 4) (i32.const 3))
          (loop $copy
            (if (call $read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)) (then unreachable))
            (if (i32.load (i32.const 8)) (then
              (i32.store (i32.const 16) (i32.const 100))
              (i32.store (i32.const 20) (i32.load (i32.const 8)))
              (drop (call $write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 24)))
              (drop (call $write (i32.const 2) (i32.const 16) (i32.const 1) (i32.const 24)))
              (br $copy))))))"#;
    let out = run_wat(
        wat,
        WasiCtxBuilder::new().stdin(MemoryInputPipe::new("some input, in pieces")),
    );
    assert!(out.result.is_ok(), "{:?}", out.result);
    assert_eq!(out.stdout, "some input, in pieces");
    assert_eq!(out.stderr, "some input, in pieces");
}

/// Runs a program given as text.
fn run_wat(wat: &str, builder: &mut WasiCtxBuilder) -> common::Outcome {
    let dir = temp_dir();
    let name = "inline.wat";
    let path = dir.path().join(name);
    std::fs::write(&path, wat).unwrap();
    common::run_path(&path, builder)
}

#[test]
fn trap_is_not_an_exit() {
    let out = run_wat(
        r#"(module (memory (export "memory") 1) (func (export "_start") unreachable))"#,
        &mut WasiCtxBuilder::new(),
    );
    let err = out.result.unwrap_err();
    assert!(err.downcast_ref::<I32Exit>().is_none());
    assert!(err.downcast_ref::<weft::Trap>().is_some(), "{err:?}");
}

#[test]
fn exit_status_out_of_range_traps() {
    let wat = r#"(module
        (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
        (memory (export "memory") 1)
        (func (export "_start") (call $exit (i32.const 126))))"#;
    let out = run_wat(wat, &mut WasiCtxBuilder::new());
    let err = out.result.unwrap_err();
    assert!(err.downcast_ref::<I32Exit>().is_none());
    assert!(format!("{err:?}").contains("invalid exit status"), "{err:?}");
}

#[test]
fn bad_pointers_are_faults_not_panics() {
    // Each call gets pointers past the end of memory, or lengths that
    // overflow; every one must return fault (21) or another errno.
    let wat = r#"(module
        (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
        (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
        (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
        (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes (param i32 i32) (result i32)))
        (import "wasi_snapshot_preview1" "environ_get" (func $env_get (param i32 i32) (result i32)))
        (import "wasi_snapshot_preview1" "path_open"
          (func $open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
        (import "wasi_snapshot_preview1" "fd_prestat_dir_name" (func $dir_name (param i32 i32 i32) (result i32)))
        (import "wasi_snapshot_preview1" "fd_readdir" (func $readdir (param i32 i32 i32 i64 i32) (result i32)))
        (import "wasi_snapshot_preview1" "fd_fdstat_get" (func $fdstat (param i32 i32) (result i32)))
        (memory (export "memory") 1)
        (func (export "run") (result i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)
          ;; iovec table past the end
          (call $write (i32.const 1) (i32.const 65532) (i32.const 1) (i32.const 0))
          ;; an iovec whose buffer runs past the end
          (i32.store (i32.const 0) (i32.const 65530))
          (i32.store (i32.const 4) (i32.const 100))
          (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))
          ;; a huge iovec count
          (call $read (i32.const 0) (i32.const 0) (i32.const 0x7fffffff) (i32.const 8))
          ;; argv pointers past the end
          (call $args_get (i32.const 65535) (i32.const 0))
          (call $args_sizes (i32.const 0) (i32.const -1))
          (call $env_get (i32.const 0) (i32.const 65534))
          ;; a path past the end, and an fd out pointer past the end
          (call $open (i32.const 3) (i32.const 0) (i32.const 65530) (i32.const 100) (i32.const 0)
            (i64.const -1) (i64.const -1) (i32.const 0) (i32.const 0))
          (call $open (i32.const 3) (i32.const 0) (i32.const 200) (i32.const 1) (i32.const 0)
            (i64.const -1) (i64.const -1) (i32.const 0) (i32.const 65534))
          ;; a name buffer too small, then past the end
          (call $dir_name (i32.const 3) (i32.const 0) (i32.const 0))
          (call $readdir (i32.const 3) (i32.const 65000) (i32.const 1000) (i64.const 0) (i32.const 0))
          (call $fdstat (i32.const 1) (i32.const 65530))))"#;
    let dir = temp_dir();
    let engine = weft::Engine::default();
    let mut linker = weft::Linker::new(&engine);
    weft_wasi::preview1::add_to_linker_sync(&mut linker, |t| t).unwrap();
    let ctx = WasiCtxBuilder::new()
        .arg("a")
        .env("K", "V")
        .preopened_dir(dir.path(), "somewhere", FsPerms::ReadWrite)
        .unwrap()
        .build_p1();
    let mut store = weft::Store::new(&engine, ctx);
    let module = weft::Module::new(&engine, wat).unwrap();
    let instance = linker.instantiate(&mut store, &module).unwrap();
    type R = (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32);
    let f = instance.get_typed_func::<(), R>(&mut store, "run").unwrap();
    let r = f.call(&mut store, ()).unwrap();
    assert_eq!(r, (21, 21, 21, 21, 21, 21, 21, 21, 37, 21, 21));
}

#[test]
fn module_without_memory_gets_faults() {
    let wat = r#"(module
        (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
        (import "wasi_snapshot_preview1" "sched_yield" (func $yield (result i32)))
        (func (export "run") (result i32 i32)
          (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))
          (call $yield)))"#;
    let engine = weft::Engine::default();
    let mut linker = weft::Linker::new(&engine);
    weft_wasi::preview1::add_to_linker_sync(&mut linker, |t| t).unwrap();
    let mut store = weft::Store::new(&engine, WasiCtxBuilder::new().build_p1());
    let module = weft::Module::new(&engine, wat).unwrap();
    let instance = linker.instantiate(&mut store, &module).unwrap();
    let f = instance.get_typed_func::<(), (i32, i32)>(&mut store, "run").unwrap();
    assert_eq!(f.call(&mut store, ()).unwrap(), (21, 0));
}

#[test]
fn output_pipe_capacity_is_enforced() {
    let wat = r#"(module
        (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
        (memory (export "memory") 1)
        (data (i32.const 100) "0123456789")
        (func (export "run") (result i32 i32 i32 i32)
          (i32.store (i32.const 0) (i32.const 100))
          (i32.store (i32.const 4) (i32.const 10))
          (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))
          (i32.load (i32.const 8))
          (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))
          (i32.load (i32.const 8))))"#;
    let stdout = weft_wasi::MemoryOutputPipe::new(6);
    let engine = weft::Engine::default();
    let mut linker = weft::Linker::new(&engine);
    weft_wasi::preview1::add_to_linker_sync(&mut linker, |t| t).unwrap();
    let mut store = weft::Store::new(&engine, WasiCtxBuilder::new().stdout(stdout.clone()).build_p1());
    let module = weft::Module::new(&engine, wat).unwrap();
    let instance = linker.instantiate(&mut store, &module).unwrap();
    let f = instance
        .get_typed_func::<(), (i32, i32, i32, i32)>(&mut store, "run")
        .unwrap();
    // A short write, then nospc (51).
    assert_eq!(f.call(&mut store, ()).unwrap(), (0, 6, 51, 6));
    assert_eq!(&stdout.contents()[..], b"012345");
}

#[test]
fn sockets_accept_recv_send_shutdown() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let client = std::thread::spawn(move || {
        let mut conn = std::net::TcpStream::connect(addr).unwrap();
        conn.write_all(b"ping").unwrap();
        let mut reply = Vec::new();
        conn.read_to_end(&mut reply).unwrap();
        reply
    });
    let out = run("socket_echo.wat", WasiCtxBuilder::new().preopened_socket(listener));
    assert!(out.result.is_ok(), "{:?}\n{}", out.result, out.stdout);
    assert_eq!(out.stdout, lines(&["6", "57", "4", "9", "28"]));
    assert_eq!(client.join().unwrap(), b"pong:ping");
}
