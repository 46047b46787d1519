//! `weft compile FILE -o OUT` and `weft run --allow-precompiled OUT`.

use std::process::Command;

mod scratch;
use scratch::temp_dir;

fn weft() -> Command {
    Command::new(env!("CARGO_BIN_EXE_weft"))
}

#[test]
fn compile_then_run_precompiled() {
    let dir = temp_dir("run");
    let wat = dir.join("add.wat");
    std::fs::write(
        &wat,
        r#"(module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))"#,
    )
    .unwrap();
    let cwasm = dir.join("add.cwasm");
    let out = weft().arg("compile").arg(&wat).arg("-o").arg(&cwasm).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(cwasm.is_file());

    let out = weft()
        .args(["run", "--allow-precompiled", "--invoke", "add"])
        .arg(&cwasm)
        .args(["2", "40"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "42");

    // Without the switch a precompiled file is refused.
    let out = weft()
        .args(["run", "--invoke", "add"])
        .arg(&cwasm)
        .args(["2", "40"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--allow-precompiled"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The default output name is FILE with `.cwasm`.
    std::fs::remove_file(&cwasm).unwrap();
    let out = weft().arg("compile").arg(&wat).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(cwasm.is_file());

    // Code compiled for another configuration (fuel) is refused clearly.
    let out = weft()
        .args(["run", "--allow-precompiled", "--fuel", "1000", "--invoke", "add"])
        .arg(&cwasm)
        .args(["2", "40"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The error names the file once.
    let name = cwasm.file_name().unwrap().to_str().unwrap();
    assert!(
        stderr.contains("engine configuration") && stderr.matches(name).count() == 1,
        "{stderr}"
    );
}

#[test]
fn compile_reports_bad_modules() {
    let dir = temp_dir("bad");
    let bad = dir.join("bad.wasm");
    std::fs::write(&bad, b"\0asm\x01\0\0\0\x99").unwrap();
    let out = weft().arg("compile").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("failed to compile"));
}

/// `weft compile -W` compiles with the switches that change the code, and
/// `weft run --allow-precompiled` then needs the same ones: fuel counted in
/// the code runs out, and an engine without fuel refuses the file.
#[test]
fn compile_with_wasm_switches() {
    let dir = temp_dir("switches");
    let wat = dir.join("spin.wat");
    std::fs::write(&wat, r#"(module (func (export "spin") (loop $l (br $l))))"#).unwrap();
    let cwasm = dir.join("spin.cwasm");
    let out = weft()
        .arg("compile")
        .args(["-W", "fuel=1000,multi-memory=n"])
        .arg(&wat)
        .arg("-o")
        .arg(&cwasm)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let out = weft()
        .args([
            "run",
            "--allow-precompiled",
            "-W",
            "fuel=1000,multi-memory=n",
            "--invoke",
            "spin",
        ])
        .arg(&cwasm)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(134), "{stderr}");
    assert!(stderr.contains("fuel"), "{stderr}");

    let out = weft()
        .args(["run", "--allow-precompiled", "--invoke", "spin"])
        .arg(&cwasm)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("spin.cwasm"), "{stderr}");

    let out = weft()
        .arg("compile")
        .args(["-W", "no-such=y"])
        .arg(&wat)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("unsupported `-W no-such`"), "{stderr}");
}
