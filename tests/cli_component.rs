//! `weft run` on WASI 0.2 command components (the guests of weft-wasi's
//! `p2_guest`, written to files as binaries and as text): output,
//! arguments, `--env`, `--dir`, and the exit statuses of `wasmtime run`
//! (`run` returning `err` or `exit(err)` is 1, a trap is 134 with its
//! message and wasm backtrace); `weft compile` and `--allow-precompiled`
//! for components; `--invoke` with WAVE values, whose expected outputs
//! are those `wasmtime run` 49 prints for the same calls.

/// The guests of weft-wasi's tests.
#[allow(dead_code, reason = "the CLI tests use a part of the guests")]
mod p2_guest {
    include!("../crates/weft-wasi/tests/all/p2_guest/mod.rs");
}

use std::process::{Command, Output};

mod scratch;
use scratch::temp_dir;

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

/// A component whose `echo-NAME` exports return their argument, for
/// `--invoke`: scalars are passed and returned as one core value; other
/// types get a second parameter, `pad` (16 `u8`s), so that the parameters
/// are passed in memory, and return the pointer to them: the first
/// parameter's layout there is that of the result.
fn echo_component() -> String {
    let named = [
        (
            "rec",
            r#"(record (field "a" u32) (field "b" string) (field "c" (option char)))"#,
        ),
        (
            "v",
            r#"(variant (case "nothing") (case "num" s64) (case "text" string))"#,
        ),
        ("color", r#"(enum "red" "green" "blue")"#),
        ("perms", r#"(flags "read" "write" "exec")"#),
        ("kw", r#"(record (field "true" bool) (field "some" u8))"#),
    ];
    let scalars = [
        ("color", "$color", "i32"),
        ("perms", "$perms", "i32"),
        ("chr", "char", "i32"),
        ("bool", "bool", "i32"),
        ("s16", "s16", "i32"),
        ("res-unit", "(result)", "i32"),
        ("u64", "u64", "i64"),
        ("f32", "f32", "f32"),
        ("f64", "f64", "f64"),
    ];
    let in_memory = [
        ("rec", "$rec"),
        ("v", "$v"),
        ("kw", "$kw"),
        ("opt", "(option u8)"),
        ("opt-opt", "(option (option u8))"),
        ("res", "(result string (error u32))"),
        ("list", "(list f64)"),
        ("str", "string"),
        ("tup", "(tuple bool s8)"),
        ("nested", "(list (option (result (tuple u8 string))))"),
        ("list-rec", "(list $rec)"),
    ];
    let mut out = String::from(
        r#"(component
    (core module $m
        (memory (export "memory") 1)
        (global $next (mut i32) (i32.const 1024))
        (func (export "realloc") (param i32 i32 i32 i32) (result i32) (local $p i32)
            (local.set $p (i32.and (i32.add (global.get $next) (i32.sub (local.get 2) (i32.const 1)))
                                   (i32.sub (i32.const 0) (local.get 2))))
            (global.set $next (i32.add (local.get $p) (local.get 3)))
            (local.get $p))
        (func (export "echo") (param i32) (result i32) (local.get 0))
        (func (export "echo-i32") (param i32) (result i32) (local.get 0))
        (func (export "echo-i64") (param i64) (result i64) (local.get 0))
        (func (export "echo-f32") (param f32) (result f32) (local.get 0))
        (func (export "echo-f64") (param f64) (result f64) (local.get 0))
        (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
        (func (export "nothing")))
    (core instance $i (instantiate $m))
    (func (export "add") (param "a" u32) (param "b" u32) (result u32) (canon lift (core func $i "add")))
    (func (export "nothing") (canon lift (core func $i "nothing")))
"#,
    );
    for (name, def) in named {
        out.push_str(&format!(
            "    (type ${name}-def {def})\n    (export ${name} \"{name}\" (type ${name}-def))\n"
        ));
    }
    for (name, ty, core) in scalars {
        out.push_str(&format!(
            "    (func (export \"echo-{name}\") (param \"x\" {ty}) (result {ty}) (canon lift (core func $i \"echo-{core}\")))\n"
        ));
    }
    let pad = format!("(tuple{})", " u8".repeat(16));
    for (name, ty) in in_memory {
        out.push_str(&format!(
            "    (func (export \"echo-{name}\") (param \"x\" {ty}) (param \"pad\" {pad}) (result {ty})
                (canon lift (core func $i \"echo\") (memory (core memory $i \"memory\")) (realloc (core func $i \"realloc\"))))\n"
        ));
    }
    out.push(')');
    out
}

const PAD: &str = "(0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0)";

#[test]
fn invoke_calls_an_export_with_wave_values_as_wasmtime_run_does() {
    let dir = temp_dir("invoke");
    let path = dir.join("echo.wat");
    std::fs::write(&path, echo_component()).unwrap();
    let path = path.to_str().unwrap();
    // (call, what `wasmtime run --invoke` 49.0 prints)
    let cases: &[(&str, &str)] = &[
        ("add(1, 2)", "3"),
        ("add( 1 ,2 )", "3"),
        ("nothing()", "()"),
        (
            "echo-rec({a: 1, b: \"hi\\n\\\"x\", c: some('\\'')}, PAD)",
            "{a: 1, b: \"hi\\n\\\"x\", c: some('\\'')}",
        ),
        ("echo-rec({b: \"x\", a: 2}, PAD)", "{a: 2, b: \"x\"}"),
        (
            "echo-rec({a: 2, b: \"\\u{1F600}\\t\", c: none}, PAD)",
            "{a: 2, b: \"\u{1F600}\\t\"}",
        ),
        ("echo-v(nothing, PAD)", "nothing"),
        ("echo-v(num(-5), PAD)", "num(-5)"),
        ("echo-v(text(\"a\"), PAD)", "text(\"a\")"),
        ("echo-color(green)", "green"),
        ("echo-perms({exec, read})", "{read, exec}"),
        ("echo-perms({})", "{}"),
        ("echo-opt(some(3), PAD)", "some(3)"),
        ("echo-opt(none, PAD)", "none"),
        ("echo-opt(3, PAD)", "some(3)"),
        ("echo-opt-opt(some(none), PAD)", "some(none)"),
        ("echo-opt-opt(some(some(1)), PAD)", "some(some(1))"),
        ("echo-res(ok(\"y\"), PAD)", "ok(\"y\")"),
        ("echo-res(err(4), PAD)", "err(4)"),
        ("echo-res-unit(ok)", "ok"),
        ("echo-res-unit(err)", "err"),
        (
            "echo-list([1.5, -0.0, 1e21, nan, inf, -inf, 0.1, 3, 1.5e-7], PAD)",
            "[1.5, -0, 1000000000000000000000, nan, inf, -inf, 0.1, 3, 0.00000015]",
        ),
        ("echo-list([1,], PAD)", "[1]"),
        ("echo-str(\"\", PAD)", "\"\""),
        ("echo-str(\"\\u{7f}\\u{0}é\\r\\\\\", PAD)", "\"\\u{7f}\\u{0}é\\r\\\\\""),
        ("echo-str(\"it's\\u{a0}\", PAD)", "\"it\\'s\\u{a0}\""),
        ("echo-chr('x')", "'x'"),
        ("echo-chr('\\n')", "'\\n'"),
        ("echo-chr('\"')", "'\\\"'"),
        ("echo-chr('\\u{0}')", "'\\u{0}'"),
        ("echo-f32(0.1)", "0.1"),
        ("echo-f32(1.0e-7)", "0.0000001"),
        ("echo-f32(16777217)", "16777216"),
        ("echo-f64(123456789.125)", "123456789.125"),
        ("echo-tup((true, -128), PAD)", "(true, -128)"),
        ("echo-u64(18446744073709551615)", "18446744073709551615"),
        ("echo-s16(-32768)", "-32768"),
        ("echo-bool(false)", "false"),
        (
            "echo-nested([some(ok((1, \"a\"))), none, some(err)], PAD)",
            "[some(ok((1, \"a\"))), none, some(err)]",
        ),
        ("echo-kw({%true: true, %some: 1}, PAD)", "{true: true, some: 1}"),
        ("echo-list-rec([{a: 1, b: \"\"}], PAD)", "[{a: 1, b: \"\"}]"),
    ];
    for (call, expected) in cases {
        let call = call.replace("PAD", PAD);
        let out = weft(&["run", "--invoke", &call, path]);
        assert_eq!(out.status.code(), Some(0), "{call}: {out:?}");
        assert_eq!(text(&out.stdout), format!("{expected}\n"), "{call}");
    }
}

#[test]
fn invoke_errors_say_what_and_where() {
    let dir = temp_dir("invoke-errors");
    let path = dir.join("echo.wat");
    std::fs::write(&path, echo_component()).unwrap();
    let path = path.to_str().unwrap();
    let cases: &[(&str, &str)] = &[
        ("nope(1)", "no exported function named `nope`"),
        ("add(1)", "`add` takes 2 parameters (a, b) but 1 was given at 3..6"),
        (
            "add(1, 2, 3)",
            "`add` takes 2 parameters (a, b) but 3 were given at 3..12",
        ),
        ("add(1, x)", "expected u32, found the label `x` at 7..8"),
        (
            "add(1, 99999999999)",
            "`99999999999` is not a value of type u32 at 7..18",
        ),
        ("add(1, -1)", "`-1` is not a value of type u32 at 7..9"),
        (
            "echo-color(purple)",
            "expected an enum of red, green, blue, found `purple` at 11..17",
        ),
        ("echo-rec({a: 1}, PAD)", "missing field `b` at 9..15"),
        ("echo-str(\"abc, PAD)", "unterminated literal at 9..49"),
        (
            "add",
            "unexpected end of input (expected `(` after the function's name) at 3..3",
        ),
        ("add(1,2", "unexpected end of input at 7..7"),
        ("echo-chr('ab')", "a character literal holds one character at 9..13"),
        ("echo-perms({read, foo})", "unknown flag `foo`"),
        ("echo-v(num, PAD)", "the case `num` needs a payload: `num(..)` at 7..10"),
    ];
    for (call, expected) in cases {
        let call = call.replace("PAD", PAD);
        let out = weft(&["run", "--invoke", &call, path]);
        assert_eq!(out.status.code(), Some(1), "{call}: {out:?}");
        assert!(out.stdout.is_empty(), "{call}: {out:?}");
        let err = text(&out.stderr);
        assert!(err.contains(expected), "{call}: {err}");
    }
}

#[test]
fn invoke_finds_functions_of_exported_instances() {
    let dir = temp_dir("invoke-run");
    let wasm = component_file(&dir, "hello", p2_guest::HELLO);
    for call in ["run()", "wasi:cli/run.run@0.2.3()"] {
        let out = weft(&["run", "--invoke", call, &wasm]);
        assert_eq!(out.status.code(), Some(0), "{call}: {out:?}");
        assert_eq!(text(&out.stdout), "hello from a component\nhello.wasm\nok\n", "{call}");
    }
    let out = weft(&["run", "--invoke", "wasi:cli/run.nope@0.2.3()", &wasm]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        text(&out.stderr).contains("the exported instance `wasi:cli/run@0.2.3` has no function named `nope`"),
        "{out:?}"
    );
    // A precompiled component is invoked the same way.
    let out = weft(&["compile", &wasm]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let cwasm = dir.join("hello.cwasm");
    let out = weft(&[
        "run",
        "--allow-precompiled",
        "--invoke",
        "run()",
        cwasm.to_str().unwrap(),
    ]);
    assert_eq!(
        text(&out.stdout),
        "hello from a component\nhello.cwasm\nok\n",
        "{out:?}"
    );
}
