//! Tests of the `weft` command as a user runs it: `weft run` and
//! `weft wast` on small files written to a temporary directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod scratch;
use scratch::temp_dir;

fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write test file");
    path
}

fn weft(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(args)
        .output()
        .expect("run the weft binary")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Asserts the command failed cleanly: non-zero exit, no panic.
fn assert_clean_failure(output: &Output) {
    assert!(!output.status.success(), "expected failure: {output:?}");
    assert_ne!(output.status.code(), Some(101), "weft panicked: {output:?}");
    assert!(!stderr(output).contains("panicked"), "weft panicked: {output:?}");
}

const ARITH_WAT: &str = r#"
(module
  (func (export "add") (param i32 i32) (result i32)
    (i32.add (local.get 0) (local.get 1)))
  (func (export "wide") (param i64) (result i64)
    (i64.mul (local.get 0) (i64.const 2)))
  (func (export "half") (param f64) (result f64)
    (f64.mul (local.get 0) (f64.const 0.5)))
  (func (export "pair") (param f32) (result f32 i32)
    (local.get 0) (i32.const 7))
  (func (export "boom") (result i32)
    unreachable))
"#;

#[test]
fn run_invoke_prints_results() {
    let dir = temp_dir("invoke");
    let wat = write(&dir, "arith.wat", ARITH_WAT);
    let wat = wat.to_str().expect("utf-8 temp path");

    let output = weft(&["run", "--invoke", "add", wat, "2", "-5"]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(stdout(&output), "-3\n");

    let output = weft(&["run", "--invoke", "wide", wat, "-4000000000"]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(stdout(&output), "-8000000000\n");

    let output = weft(&["run", "--invoke", "half", wat, "3"]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(stdout(&output), "1.5\n");

    let output = weft(&["run", "--invoke", "half", wat, "inf"]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(stdout(&output), "inf\n");

    let output = weft(&["run", "--invoke", "pair", wat, "nan"]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(stdout(&output), "NaN\n7\n");
}

#[test]
fn run_custom_descriptors_need_their_switch() {
    let dir = temp_dir("custom-descriptors");
    let wat = write(
        &dir,
        "desc.wat",
        r#"(module
            (rec (type $a (descriptor $b) (struct (field i32)))
                 (type $b (describes $a) (struct)))
            (func (export "f") (result i32)
                (struct.get $a 0
                    (ref.cast (ref (exact $a))
                        (struct.new_desc $a (i32.const 42) (struct.new $b))))))"#,
    );
    let wat = wat.to_str().expect("utf-8 temp path");

    let output = weft(&["run", "-W", "gc=y", "--invoke", "f", wat]);
    assert_clean_failure(&output);
    assert!(stderr(&output).contains("custom descriptors"), "{output:?}");

    let output = weft(&["run", "-W", "gc=y,custom-descriptors=y", "--invoke", "f", wat]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(stdout(&output), "42\n");
}

#[test]
fn run_invoke_bad_arguments_fail_cleanly() {
    let dir = temp_dir("badargs");
    let wat = write(&dir, "arith.wat", ARITH_WAT);
    let wat = wat.to_str().expect("utf-8 temp path");

    let output = weft(&["run", "--invoke", "add", wat, "1"]);
    assert_clean_failure(&output);
    assert_eq!(output.status.code(), Some(1));

    let output = weft(&["run", "--invoke", "add", wat, "1", "two"]);
    assert_clean_failure(&output);
    assert!(stderr(&output).contains("two"), "{output:?}");

    let output = weft(&["run", "--invoke", "nope", wat]);
    assert_clean_failure(&output);
    assert!(stderr(&output).contains("nope"), "{output:?}");
}

#[test]
fn run_trap_exits_134() {
    let dir = temp_dir("trap");
    let wat = write(&dir, "arith.wat", ARITH_WAT);
    let output = weft(&["run", "--invoke", "boom", wat.to_str().expect("utf-8 temp path")]);
    assert_eq!(output.status.code(), Some(134), "{output:?}");
    assert!(stderr(&output).contains("failed to run main module"), "{output:?}");
    assert_eq!(stdout(&output), "");
}

/// Errors of the guest are reported with their wasm backtrace only: with
/// `RUST_BACKTRACE=1`, `anyhow` captures a Rust backtrace of Weft's own
/// frames in every error, and `{:?}` would print it after the wasm one.
#[test]
fn run_guest_errors_print_no_rust_backtrace() {
    let dir = temp_dir("no-rust-backtrace");
    let trap = write(
        &dir,
        "trap.wat",
        r#"(module (func $inner unreachable) (func (export "_start") call $inner))"#,
    );
    // `proc_exit` with a status outside [0, 126) is an error of the guest
    // that is not a trap (status 1).
    let bad_exit = write(
        &dir,
        "exit.wat",
        r#"(module
             (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
             (memory (export "memory") 1)
             (func (export "_start") (call $exit (i32.const 200))))"#,
    );
    let run = |path: &Path| {
        Command::new(env!("CARGO_BIN_EXE_weft"))
            .args(["run", path.to_str().expect("utf-8 temp path")])
            .env("RUST_BACKTRACE", "1")
            .env_remove("RUST_LIB_BACKTRACE")
            .output()
            .expect("run the weft binary")
    };

    let output = run(&trap);
    assert_eq!(output.status.code(), Some(134), "{output:?}");
    let err = stderr(&output);
    assert!(err.contains("wasm backtrace") && err.contains("unreachable"), "{err}");
    assert!(!err.contains("Stack backtrace"), "{err}");
    assert!(!err.to_lowercase().contains("stack backtrace"), "{err}");

    let output = run(&bad_exit);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let err = stderr(&output);
    assert!(err.contains("invalid exit status"), "{err}");
    assert!(!err.to_lowercase().contains("stack backtrace"), "{err}");
}

#[test]
fn run_start_function_by_default() {
    let dir = temp_dir("start");
    let ok = write(&dir, "ok.wat", r#"(module (func (export "_start")))"#);
    let output = weft(&["run", ok.to_str().expect("utf-8 temp path")]);
    assert!(output.status.success(), "{output:?}");

    let trap = write(&dir, "trap.wat", r#"(module (func (export "_start") unreachable))"#);
    let output = weft(&["run", trap.to_str().expect("utf-8 temp path")]);
    assert_eq!(output.status.code(), Some(134), "{output:?}");
}

#[test]
fn run_missing_file_is_one_line() {
    let dir = temp_dir("missing");
    let missing = dir.join("no-such-module.wasm");
    let output = weft(&["run", missing.to_str().expect("utf-8 temp path")]);
    assert_clean_failure(&output);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert_eq!(err.trim_end().lines().count(), 1, "{err:?}");
    assert!(err.contains("no-such-module.wasm"), "{err:?}");
}

#[test]
fn run_garbage_bytes_is_an_error_not_a_panic() {
    let dir = temp_dir("garbage");
    let garbage = write(&dir, "garbage.wasm", [0xffu8, 0x00, 0x13, 0x37, 0x80, 0x80, 0x80]);
    let output = weft(&["run", garbage.to_str().expect("utf-8 temp path")]);
    assert_clean_failure(&output);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert_eq!(err.trim_end().lines().count(), 1, "{err:?}");

    // A truncated binary: correct magic, then nothing useful.
    let truncated = write(&dir, "truncated.wasm", b"\0asm\x01\x00\x00\x00\x01\x05");
    let output = weft(&["run", truncated.to_str().expect("utf-8 temp path")]);
    assert_clean_failure(&output);
}

#[test]
fn run_missing_import_names_it() {
    let dir = temp_dir("import");
    let wat = write(
        &dir,
        "import.wat",
        r#"(module (import "env" "log" (func)) (func (export "_start")))"#,
    );
    let output = weft(&["run", wat.to_str().expect("utf-8 temp path")]);
    assert_clean_failure(&output);
    let err = stderr(&output);
    assert_eq!(err.trim_end().lines().count(), 1, "{err:?}");
    assert!(err.contains("env") && err.contains("log"), "{err:?}");
}

#[test]
fn run_fib_example() {
    let fib = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/fib.wat");
    let output = weft(&["run", "--invoke", "fib", fib.to_str().expect("utf-8 path"), "20"]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(stdout(&output), "6765\n");
}

const PASSING_WAST: &str = r#"
(module
  (func (export "one") (result i32) (i32.const 1))
  (func (export "div") (param i32 i32) (result i32)
    (i32.div_s (local.get 0) (local.get 1))))
(assert_return (invoke "one") (i32.const 1))
(assert_trap (invoke "div" (i32.const 1) (i32.const 0)) "integer divide by zero")
(assert_invalid (module (func (result i32))) "type mismatch")
(assert_malformed (module quote "(func") "unexpected end")
"#;

const FAILING_WAST: &str = r#"
(module (func (export "one") (result i32) (i32.const 1)))
(assert_return (invoke "one") (i32.const 2))
(assert_return (invoke "one") (i32.const 1))
(assert_return (invoke "missing") (i32.const 1))
"#;

#[test]
fn wast_passing_script() {
    let dir = temp_dir("wast-pass");
    let script = write(&dir, "pass.wast", PASSING_WAST);
    let output = weft(&["wast", script.to_str().expect("utf-8 temp path")]);
    assert!(output.status.success(), "{output:?}");
    let out = stdout(&output);
    assert!(out.starts_with("ok "), "{out}");
    assert_eq!(out.lines().last(), Some("1 passed, 0 failed"), "{out}");
}

#[test]
fn wast_failing_script() {
    let dir = temp_dir("wast-fail");
    let pass = write(&dir, "pass.wast", PASSING_WAST);
    let fail = write(&dir, "fail.wast", FAILING_WAST);
    let output = weft(&[
        "wast",
        pass.to_str().expect("utf-8 temp path"),
        fail.to_str().expect("utf-8 temp path"),
    ]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let out = stdout(&output);
    assert_eq!(out.lines().last(), Some("1 passed, 1 failed"), "{out}");
    assert!(out.contains("FAIL "), "{out}");
    // Both failing directives are reported, with file:line:col (the column
    // of the directive keyword).
    assert!(out.contains("fail.wast:3:2: assert_return"), "{out}");
    assert!(out.contains("fail.wast:5:2: assert_return"), "{out}");
    assert!(!out.contains("fail.wast:4:"), "{out}");
}

/// Two script threads hand a turn back and forth through the script's
/// shared memory with `memory.atomic.wait32` and `notify`: only threads
/// that really run at the same time finish it.
const THREADS_WAST: &str = r#"
(module $Mem (memory (export "m") 1 1 shared))
(thread $ping (shared (module $Mem))
  (module
    (memory (import "Mem" "m") 1 1 shared)
    (func (export "play") (param $me i32) (param $n i32)
      (loop $turn
        (block $mine
          (loop $sleep
            (br_if $mine (i32.eq (i32.atomic.load (i32.const 0)) (local.get $me)))
            (drop (memory.atomic.wait32 (i32.const 0) (i32.sub (i32.const 1) (local.get $me)) (i64.const -1)))
            (br $sleep)))
        (i32.atomic.store (i32.const 0) (i32.sub (i32.const 1) (local.get $me)))
        (drop (memory.atomic.notify (i32.const 0) (i32.const 1)))
        (br_if $turn (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))))
  (register "player")
  (invoke "play" (i32.const 0) (i32.const 100)))
(thread $pong (shared (module $Mem))
  (module
    (memory (import "Mem" "m") 1 1 shared)
    (func (export "play") (param $me i32) (param $n i32)
      (loop $turn
        (block $mine
          (loop $sleep
            (br_if $mine (i32.eq (i32.atomic.load (i32.const 0)) (local.get $me)))
            (drop (memory.atomic.wait32 (i32.const 0) (i32.sub (i32.const 1) (local.get $me)) (i64.const -1)))
            (br $sleep)))
        (i32.atomic.store (i32.const 0) (i32.sub (i32.const 1) (local.get $me)))
        (drop (memory.atomic.notify (i32.const 0) (i32.const 1)))
        (br_if $turn (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))))
  (invoke "play" (i32.const 1) (i32.const 100)))
(wait $ping)
(wait $pong)
"#;

#[test]
fn wast_threads_run_on_os_threads() {
    let dir = temp_dir("wast-threads");
    let script = write(&dir, "threads.wast", THREADS_WAST);
    let output = weft(&["wast", script.to_str().expect("utf-8 temp path")]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(stdout(&output).lines().last(), Some("1 passed, 0 failed"), "{output:?}");
}

#[test]
fn wast_unparsable_script_fails_cleanly() {
    let dir = temp_dir("wast-bad");
    let bad = write(&dir, "bad.wast", "(module (func (export \"f\")");
    let output = weft(&["wast", bad.to_str().expect("utf-8 temp path")]);
    assert_clean_failure(&output);
    assert_eq!(stdout(&output).lines().last(), Some("0 passed, 1 failed"), "{output:?}");
}

#[test]
fn help_lists_options() {
    let output = weft(&["--help"]);
    assert!(output.status.success(), "{output:?}");
    let out = stdout(&output);
    assert!(out.contains("run") && out.contains("wast"), "{out}");

    let output = weft(&["run", "--help"]);
    assert!(output.status.success(), "{output:?}");
    assert!(stdout(&output).contains("--invoke"), "{output:?}");
}

/// A script mixing core modules and components: component values, named
/// component instances, canonical ABI and core traps, an import the script
/// does not define (a function that traps when called), and an invalid
/// component.
const COMPONENT_WAST: &str = r#"
(module (func (export "one") (result i32) (i32.const 1)))
(assert_return (invoke "one") (i32.const 1))
(component $c
  (core module $m
    (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
    (func (export "bad-char") (result i32) (i32.const 0xd800))
    (func (export "unwrap") (param i32 i32) (result i32) (local.get 1))
    (func (export "neg") (param f64) (result f64) (f64.neg (local.get 0)))
    (func (export "trap") unreachable))
  (core instance $i (instantiate $m))
  (func (export "add") (param "a" u32) (param "b" u32) (result u32) (canon lift (core func $i "add")))
  (func (export "bad-char") (result char) (canon lift (core func $i "bad-char")))
  (func (export "unwrap") (param "x" (option u32)) (result u32) (canon lift (core func $i "unwrap")))
  (func (export "neg") (param "x" f64) (result f64) (canon lift (core func $i "neg")))
  (func (export "trap") (canon lift (core func $i "trap"))))
(assert_return (invoke "add" (u32.const 1) (u32.const 2)) (u32.const 3))
(assert_return (invoke $c "unwrap" (option.some (u32.const 7))) (u32.const 7))
(assert_return (invoke "neg" (f64.const nan)) (f64.const nan))
(assert_return (invoke "neg" (f64.const 1.5)) (f64.const -1.5))
(assert_trap (invoke "bad-char") "invalid `char` bit pattern")
(assert_trap (invoke "trap") "unreachable")
(assert_invalid (component (core func (canon lower (func 0)))) "index out of bounds")
(component
  (import "undefined-fn" (func $f))
  (core func $g (canon lower (func $f)))
  (core module $m (import "" "f" (func)) (func (export "run") call 0))
  (core instance $i (instantiate $m (with "" (instance (export "f" (func $g))))))
  (func (export "run") (canon lift (core func $i "run"))))
(assert_trap (invoke "run") "unknown import")
(module (func (export "two") (result i32) (i32.const 2)))
(assert_return (invoke "two") (i32.const 2))
;; `trap` trapped in $c, which cannot be entered again.
(assert_trap (invoke $c "add" (u32.const 2) (u32.const 2)) "cannot enter component instance")
"#;

#[test]
fn wast_component_script() {
    let dir = temp_dir("wast-component");
    let script = write(&dir, "component.wast", COMPONENT_WAST);
    let output = weft(&["wast", script.to_str().expect("utf-8 temp path")]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(stdout(&output).lines().last(), Some("1 passed, 0 failed"), "{output:?}");

    // A wrong result, an unknown export and a component that does not
    // compile are reported with their place and directive.
    let failing = r#"(component
  (core module $m (func (export "f") (result i32) (i32.const 1)))
  (core instance $i (instantiate $m))
  (func (export "f") (result bool) (canon lift (core func $i "f"))))
(assert_return (invoke "f") (bool.const false))
(assert_return (invoke "g"))
(component (core func (canon lower (func 0))))
(assert_return (invoke "f") (bool.const true))
"#;
    let script = write(&dir, "fail.wast", failing);
    let output = weft(&["wast", script.to_str().expect("utf-8 temp path")]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let out = stdout(&output);
    assert!(
        out.contains("fail.wast:5:2: assert_return: result 0: expected"),
        "{out}"
    );
    assert!(
        out.contains("fail.wast:6:2: assert_return: no exported function named \"g\""),
        "{out}"
    );
    assert!(
        out.contains("fail.wast:7:2: component: failed to compile the component"),
        "{out}"
    );
    assert!(
        out.contains("fail.wast:8:2: assert_return: no current module: the module at 7:2 failed"),
        "{out}"
    );
}
