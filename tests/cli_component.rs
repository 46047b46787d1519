//! `weft run` on WASI 0.2 command components (the guests of weft-wasi's
//! `p2_guest`, written to files as binaries and as text): output,
//! arguments, `--env`, `--dir`, and the exit statuses of `wasmtime run`
//! (`run` returning `err` or `exit(err)` is 1, a trap is 134 with its
//! message and wasm backtrace).

/// The guests of weft-wasi's tests.
#[allow(dead_code, reason = "the CLI tests use a part of the guests")]
mod p2_guest {
    include!("../crates/weft-wasi/tests/p2_guest/mod.rs");
}

use std::path::PathBuf;
use std::process::{Command, Output};

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("weft-cli-component-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Writes the component of `main` to `DIR/NAME.wasm` and returns the path.
fn component_file(dir: &std::path::Path, name: &str, main: &str) -> String {
    let binary = wat::parse_str(p2_guest::component("0.2.3", main)).expect("valid component text");
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
fn a_component_prints_its_arguments_and_environment() {
    let dir = temp_dir("hello");
    let wasm = component_file(&dir, "hello", p2_guest::HELLO);
    let out = weft(&["run", "--env", "GREETING=hi there", &wasm, "one", "--two"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        text(&out.stdout),
        "hello from a component\nhello.wasm\none\n--two\nGREETING=hi there\n"
    );
    // The same component as text.
    let wat = dir.join("hello.wat");
    std::fs::write(
        &wat,
        format!(";; a comment\n{}", p2_guest::component("0.2.12", p2_guest::HELLO)),
    )
    .unwrap();
    let wat = wat.to_str().unwrap();
    let out = weft(&["run", wat]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(text(&out.stdout), "hello from a component\nhello.wat\n");
}

#[test]
fn exit_statuses_are_those_of_wasmtime_run() {
    let dir = temp_dir("exit");
    let out = weft(&["run", &component_file(&dir, "err", p2_guest::RETURN_ERR)]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let out = weft(&["run", &component_file(&dir, "exit", p2_guest::EXIT_ERR)]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(text(&out.stdout), "exiting\n");
    let out = weft(&["run", &component_file(&dir, "trap", p2_guest::TRAP)]);
    assert_eq!(out.status.code(), Some(134), "{out:?}");
    assert_eq!(text(&out.stdout), "about to trap\n");
    let err = text(&out.stderr);
    assert!(err.contains("unreachable"), "{err}");
    assert!(err.contains("wasm backtrace"), "{err}");
}

#[test]
fn dir_gives_a_preopen() {
    let dir = temp_dir("dir");
    let data = dir.join("data");
    std::fs::create_dir_all(data.join("sub")).unwrap();
    std::fs::write(data.join("in.txt"), "read by the guest\n").unwrap();
    let wasm = component_file(&dir, "files", p2_guest::FILES);
    let arg = format!("{}::/data", data.display());
    let out = weft(&[
        "run",
        "--dir",
        &arg,
        "-S",
        "inherit-network,tcp=n,udp=n,allow-ip-name-lookup=n",
        &wasm,
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("preopen /data\nread by the guest\nentry "),
        "{stdout}"
    );
    for entry in ["in.txt", "out.txt", "sub"] {
        assert!(stdout.contains(&format!("\nentry {entry}\n")), "{stdout}");
    }
    assert!(stdout.contains("../outside/secret.txt: not-permitted\n"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(data.join("out.txt")).unwrap(),
        "written by the guest\n"
    );
}

#[test]
fn invoke_is_refused_for_components() {
    let dir = temp_dir("invoke");
    let wasm = component_file(&dir, "hello", p2_guest::HELLO);
    let out = weft(&["run", "--invoke", "run()", &wasm]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(text(&out.stderr).contains("not supported for components"), "{out:?}");
}

#[test]
fn a_compiled_component_runs_as_the_wasm_does() {
    let dir = temp_dir("compile");
    let wasm = component_file(&dir, "hello", p2_guest::HELLO);
    let cwasm = dir.join("hello.cwasm");
    let out = weft(&["compile", &wasm]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(cwasm.is_file());
    let cwasm = cwasm.to_str().unwrap();
    let from_wasm = weft(&["run", "--env", "A=b", &wasm, "x", "--y"]);
    let from_cwasm = weft(&["run", "--allow-precompiled", "--env", "A=b", cwasm, "x", "--y"]);
    assert_eq!(from_cwasm.status.code(), Some(0), "{from_cwasm:?}");
    // Only argv[0], the file's name, differs.
    assert_eq!(
        text(&from_cwasm.stdout),
        text(&from_wasm.stdout).replace("hello.wasm", "hello.cwasm")
    );
    assert_eq!(
        text(&from_cwasm.stdout),
        "hello from a component\nhello.cwasm\nx\n--y\nA=b\n"
    );

    // A trap in precompiled code: status 134, message and backtrace.
    let trap = component_file(&dir, "trap", p2_guest::TRAP);
    let out = weft(&["compile", &trap, "-o", dir.join("trap.bin").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = weft(&["run", "--allow-precompiled", dir.join("trap.bin").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(134), "{out:?}");
    assert_eq!(text(&out.stdout), "about to trap\n");
    let err = text(&out.stderr);
    assert!(err.contains("unreachable") && err.contains("wasm backtrace"), "{err}");

    // A component given as text compiles too.
    let wat = dir.join("text.wat");
    std::fs::write(&wat, p2_guest::component("0.2.12", p2_guest::HELLO)).unwrap();
    let out = weft(&["compile", wat.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = weft(&["run", "--allow-precompiled", dir.join("text.cwasm").to_str().unwrap()]);
    assert_eq!(text(&out.stdout), "hello from a component\ntext.cwasm\n", "{out:?}");
}

#[test]
fn a_compiled_component_is_refused_without_allow_precompiled() {
    let dir = temp_dir("refuse");
    let wasm = component_file(&dir, "hello", p2_guest::HELLO);
    let out = weft(&["compile", &wasm]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let cwasm = dir.join("hello.cwasm");
    let out = weft(&["run", cwasm.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(text(&out.stdout).is_empty(), "{out:?}");
    let err = text(&out.stderr);
    assert!(
        err.contains("is a precompiled component: running it needs `--allow-precompiled`"),
        "{err}"
    );
    // Compiled for another configuration (fuel changes the code): refused
    // with the reason.
    let out = weft(&[
        "run",
        "--allow-precompiled",
        "--fuel",
        "1000000",
        cwasm.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(text(&out.stderr).contains("another engine configuration"), "{out:?}");
}
