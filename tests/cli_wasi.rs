//! `weft run` on WASI commands, as `wasmtime run` runs them: arguments,
//! `--env`, `--dir`, exit statuses from `proc_exit`, traps with their wasm
//! backtrace, `-W unknown-imports-default=y`, `--fuel`, `--wasm-timeout`,
//! and the one-line errors of bad options.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

mod scratch;
use scratch::temp_dir;

fn write(dir: &Path, name: &str, contents: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write test file");
    path.to_str().expect("utf-8 temp path").to_string()
}

/// A program of weft-wasi's tests.
fn wasi_program(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/weft-wasi/tests/wat")
        .join(name);
    path.to_str().expect("utf-8 path").to_string()
}

fn weft(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(args)
        .env("WEFT_TEST_FROM_HOST", "host value")
        .output()
        .expect("run the weft binary")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A failure on one line, with a non-zero status and no panic.
#[track_caller]
fn assert_one_line_failure(output: &Output) -> String {
    assert!(!output.status.success(), "{output:?}");
    assert_ne!(output.status.code(), Some(101), "weft panicked: {output:?}");
    let err = text(&output.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err:?}");
    err
}

#[test]
fn args_env_and_exit_status() {
    let program = wasi_program("args_env.wat");
    let output = weft(&[
        "run",
        "--env",
        "GREETING=hello world",
        "--env",
        "WEFT_TEST_FROM_HOST",
        "--env",
        "WEFT_TEST_UNSET_ON_HOST",
        &program,
        "first",
        "--not-an-option",
    ]);
    // The program exits with argc.
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    assert_eq!(
        text(&output.stdout),
        format!("{program}\nfirst\n--not-an-option\nGREETING=hello world\nWEFT_TEST_FROM_HOST=host value\n")
    );
    assert_eq!(text(&output.stderr), "");
}

#[test]
fn dir_with_guest_name() {
    let dir = temp_dir("dir");
    let output = weft(&[
        "run",
        "--dir",
        &format!("{}::.", dir.display()),
        &wasi_program("files.wat"),
    ]);
    assert!(output.status.success(), "{output:?}");
    assert!(text(&output.stdout).ends_with("hello++\n"), "{output:?}");
    assert_eq!(std::fs::read(dir.join("out.txt")).unwrap(), b"hello++");

    // Without a preopen the program fails at its first step.
    let output = weft(&["run", &wasi_program("files.wat")]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_eq!(text(&output.stdout), "step 1: errno 8\n");
}

#[test]
fn missing_dir_is_one_line() {
    let dir = temp_dir("missing-dir");
    let err = assert_one_line_failure(&weft(&[
        "run",
        "--dir",
        dir.join("nope").to_str().unwrap(),
        &wasi_program("args_env.wat"),
    ]));
    assert!(err.contains("nope"), "{err}");
}

const UNKNOWN_IMPORTS: &str = r#"(module
  (import "bench" "start" (func $start))
  (import "env" "value" (func $value (param i32) (result i64 f32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (call $start)
    (drop (call $value (i32.const 1)))
    (call $exit (i32.wrap_i64))))"#;

#[test]
fn unknown_imports() {
    let dir = temp_dir("unknown");
    let wat = write(&dir, "unknown.wat", UNKNOWN_IMPORTS);
    // Stubbed: `value` returns 0, so the exit status is 0.
    let output = weft(&["run", "-W", "unknown-imports-default=y", &wat]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    // Not stubbed: one line naming the first unknown import.
    let err = assert_one_line_failure(&weft(&["run", &wat]));
    assert!(err.contains("bench::start"), "{err}");
    // Stubs that fail when called: an error of the host, not a trap of
    // wasm, so the status is 1 as in Wasmtime.
    let output = weft(&["run", "-W", "unknown-imports-trap=y", &wat]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(text(&output.stderr).contains("bench::start"), "{output:?}");
}

#[test]
fn trap_prints_message_and_backtrace() {
    let dir = temp_dir("trap");
    let wat = write(
        &dir,
        "trap.wat",
        r#"(module $prog
            (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
            (memory (export "memory") 1)
            (data (i32.const 16) "before\n")
            (func $inner unreachable)
            (func $outer (call $inner))
            (func (export "_start")
              (i32.store (i32.const 0) (i32.const 16))
              (i32.store (i32.const 4) (i32.const 7))
              (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
              (call $outer)))"#,
    );
    let output = weft(&["run", &wat]);
    assert_eq!(output.status.code(), Some(134), "{output:?}");
    assert_eq!(text(&output.stdout), "before\n");
    let err = text(&output.stderr);
    assert!(err.contains("wasm backtrace"), "{err}");
    assert!(err.contains("inner") && err.contains("outer"), "{err}");
    assert!(err.contains("unreachable"), "{err}");
}

#[test]
fn fuel_and_timeout_stop_a_loop() {
    let dir = temp_dir("limits");
    let wat = write(
        &dir,
        "spin.wat",
        r#"(module (func (export "_start") (loop $l (br $l))))"#,
    );
    let output = weft(&["run", "--fuel", "10000", &wat]);
    assert_eq!(output.status.code(), Some(134), "{output:?}");
    assert!(text(&output.stderr).contains("fuel"), "{output:?}");
    let output = weft(&["run", "-W", "fuel=10000", &wat]);
    assert_eq!(output.status.code(), Some(134), "{output:?}");

    let start = Instant::now();
    let output = weft(&["run", "--wasm-timeout", "200ms", &wat]);
    assert_eq!(output.status.code(), Some(134), "{output:?}");
    assert!(start.elapsed() < Duration::from_secs(30));
    let output = weft(&["run", "-W", "timeout=0.2", &wat]);
    assert_eq!(output.status.code(), Some(134), "{output:?}");

    // Enough fuel: the program finishes.
    let ok = write(&dir, "ok.wat", r#"(module (func (export "_start")))"#);
    let output = weft(&["run", "--fuel", "100", "--wasm-timeout", "10s", &ok]);
    assert!(output.status.success(), "{output:?}");
}

#[test]
fn bad_options_are_one_line() {
    let program = wasi_program("args_env.wat");
    let err = assert_one_line_failure(&weft(&["run", "-W", "no-such-switch=y", &program]));
    assert!(err.contains("no-such-switch"), "{err}");
    let err = assert_one_line_failure(&weft(&["run", "-S", "no-such-switch", &program]));
    assert!(err.contains("no-such-switch"), "{err}");
    let output = weft(&["run", "--wasm-timeout", "soon", &program]);
    assert!(!output.status.success(), "{output:?}");
}

#[test]
fn allow_precompiled_is_accepted() {
    let output = weft(&["run", "--allow-precompiled", &wasi_program("args_env.wat")]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
}

#[test]
fn inherit_env_switch() {
    let output = weft(&["run", "-S", "inherit-env=y", &wasi_program("args_env.wat")]);
    assert!(
        text(&output.stdout).contains("WEFT_TEST_FROM_HOST=host value\n"),
        "{output:?}"
    );
}

#[test]
fn help_explains_every_run_option() {
    let output = weft(&["run", "--help"]);
    assert!(output.status.success(), "{output:?}");
    let help = text(&output.stdout);
    for option in [
        "--dir",
        "--env",
        "--invoke",
        "-W",
        "-S",
        "--fuel",
        "--wasm-timeout",
        "--allow-precompiled",
    ] {
        assert!(
            help.contains(option),
            "`weft run --help` does not mention {option}:\n{help}"
        );
    }
}
