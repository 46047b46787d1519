//! `weft run` on WASI 0.3 command components (the guests of weft-wasi's
//! `p3_guest`, written to files as binaries and as text): it picks WASI
//! 0.3 because the component imports `wasi:cli/*@0.3.0`, runs the `async`
//! `wasi:cli/run` export in the event loop, and ends with the exit
//! statuses of a WASI 0.2 run (`err` and `exit(err)` are 1, `exit-with-code`
//! its code, a trap 134 with its message and wasm backtrace).

/// The guests of weft-wasi's tests.
#[allow(dead_code, reason = "the CLI tests use a part of the guests")]
mod p3_guest {
    include!("../crates/weft-wasi/tests/all/p3_guest/mod.rs");
}

use p3_guest::Ending;
use std::path::Path;
use std::process::{Command, Output};

mod scratch;
use scratch::temp_dir;

/// Writes the guest to `DIR/NAME.wasm` and returns the path.
fn component_file(dir: &Path, name: &str, out: &str, err: &str, ending: Ending) -> String {
    let binary = wat::parse_str(p3_guest::component(out, err, ending)).expect("valid component text");
    let path = dir.join(format!("{name}.wasm"));
    std::fs::write(&path, binary).expect("write the component");
    path.to_str().expect("utf-8 temp path").to_string()
}

fn weft(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(args)
        .output()
        .expect("run the weft binary")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn hello_world_runs_under_weft_run() {
    let dir = temp_dir("hello");
    let wasm = component_file(&dir, "hello", "hello from wasi 0.3\n", "", Ending::Ok);
    let out = weft(&["run", &wasm]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(text(&out.stdout), "hello from wasi 0.3\n");
    assert_eq!(text(&out.stderr), "");
    // The same component as text.
    let wat = dir.join("hello.wat");
    std::fs::write(&wat, p3_guest::component("as text\n", "to stderr\n", Ending::Ok)).unwrap();
    let out = weft(&["run", wat.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(text(&out.stdout), "as text\n");
    assert_eq!(text(&out.stderr), "to stderr\n");
}

#[test]
fn exit_statuses_are_those_of_a_wasi_0_2_run() {
    let dir = temp_dir("exit");
    let out = weft(&["run", &component_file(&dir, "err", "failing\n", "", Ending::Err)]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(text(&out.stdout), "failing\n");
    let out = weft(&[
        "run",
        &component_file(&dir, "code", "exiting\n", "", Ending::ExitCode(42)),
    ]);
    assert_eq!(out.status.code(), Some(42), "{out:?}");
    assert_eq!(text(&out.stdout), "exiting\n");
    let out = weft(&["run", &component_file(&dir, "zero", "", "", Ending::ExitCode(0))]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = weft(&[
        "run",
        &component_file(&dir, "trap", "about to trap\n", "", Ending::Trap),
    ]);
    assert_eq!(out.status.code(), Some(134), "{out:?}");
    assert_eq!(text(&out.stdout), "about to trap\n");
    let err = text(&out.stderr);
    assert!(err.contains("unreachable"), "{err}");
    assert!(err.contains("wasm backtrace"), "{err}");
}

#[test]
fn a_component_writes_a_file_in_a_dir_given_with_dir() {
    let dir = temp_dir("file");
    let sandbox = dir.join("sandbox");
    std::fs::create_dir_all(&sandbox).unwrap();
    let binary = wat::parse_str(p3_guest::file_component(
        "out.txt",
        "through a stream\n",
        "written\n",
        Ending::Ok,
    ))
    .expect("valid component text");
    let wasm = dir.join("file.wasm");
    std::fs::write(&wasm, binary).unwrap();
    let out = weft(&[
        "run",
        "--dir",
        &format!("{}::/", sandbox.display()),
        wasm.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(text(&out.stderr), "written\n");
    assert_eq!(
        std::fs::read_to_string(sandbox.join("out.txt")).unwrap(),
        "through a stream\n"
    );
    // Without a preopen the guest finds none and traps.
    let out = weft(&["run", wasm.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(134), "{out:?}");
}

#[test]
fn invoke_names_the_async_run_with_its_version() {
    let dir = temp_dir("invoke");
    let wasm = component_file(&dir, "invoke", "invoked\n", "", Ending::Ok);
    // The version's dots are not the separator of the function's name.
    let out = weft(&["run", "--invoke", "wasi:cli/run@0.3.0.run()", &wasm]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(text(&out.stdout), "invoked\nok\n");
    // The version may also follow the function's name.
    let out = weft(&["run", "--invoke", "wasi:cli/run.run@0.3.0()", &wasm]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(text(&out.stdout), "invoked\nok\n");
    let out = weft(&["run", "--invoke", "wasi:cli/run@0.3.0.nope()", &wasm]);
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    let err = text(&out.stderr);
    assert!(
        err.contains("the exported instance `wasi:cli/run@0.3.0` has no function named `nope`"),
        "{err}"
    );
}
