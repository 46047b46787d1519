//! Builds the C programs of `tests/c/` against `libweft` and runs them.
//!
//! Each `NAME.c` is compiled with the system C compiler (`$CC`, else `cc`)
//! against the headers of `include/` and the `libweft.so` Cargo built for
//! this test, then run in a scratch folder holding every `tests/c/*.wat`
//! assembled to `.wasm`; its standard output must equal `NAME.out`.
//! Without a C compiler the test prints a note and passes, unless `CI` is
//! set, in which case it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder holding `libweft.so`: the profile folder of this test binary,
/// after building the library there (Cargo builds only the rlibs an
/// integration test links, so the test asks Cargo for `libweft` itself,
/// once).
fn lib_dir() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("test executable path");
            // target/<profile>/deps/c_api-HASH
            let profile_dir = exe.parent().and_then(Path::parent).expect("profile folder");
            let target_dir = profile_dir.parent().expect("target folder");
            let mut cmd = Command::new(env!("CARGO"));
            cmd.args(["build", "--quiet", "-p", "weft-c-api", "--lib"])
                .env("CARGO_TARGET_DIR", target_dir)
                .current_dir(env!("CARGO_MANIFEST_DIR"));
            if profile_dir.file_name().is_some_and(|n| n == "release") {
                cmd.arg("--release");
            }
            let status = cmd.status().expect("run cargo");
            assert!(status.success(), "building libweft failed");
            profile_dir.to_path_buf()
        })
        .clone()
}

fn compiler() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".to_string())
}

/// Whether a C compiler runs; fails under CI if not.
fn have_compiler() -> bool {
    match Command::new(compiler()).arg("--version").output() {
        Ok(o) if o.status.success() => true,
        _ => {
            if std::env::var_os("CI").is_some() {
                panic!("no C compiler (`{}`) found, and CI is set", compiler());
            }
            eprintln!(
                "note: no C compiler (`{}`) found; the C API tests are skipped",
                compiler()
            );
            false
        }
    }
}

/// The scratch folder with every test module assembled.
fn scratch() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c-api-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c");
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "wat") {
            let wasm = wat::parse_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            std::fs::write(dir.join(path.file_stem().unwrap()).with_extension("wasm"), wasm).unwrap();
        }
    }
    dir
}

/// Compiles `tests/c/NAME.c` (as C, or C++ for `.cc`) and returns the
/// program's path.
fn build(name: &str, dir: &Path) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = manifest.join("tests/c").join(name);
    let exe = dir.join(Path::new(name).file_stem().unwrap());
    let lib = lib_dir();
    assert!(
        lib.join("libweft.so").exists(),
        "{} missing: Cargo builds it with this test",
        lib.join("libweft.so").display()
    );
    let out = Command::new(compiler())
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter", "-g"])
        .arg("-I")
        .arg(manifest.join("include"))
        .arg("-I")
        .arg(manifest.join("tests/c"))
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lweft", "-lpthread", "-ldl", "-lm"])
        .output()
        .expect("run the C compiler");
    assert!(
        out.status.success(),
        "compiling {name} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Builds and runs `tests/c/NAME.c`, checking its output against `NAME.out`.
fn run(name: &str) {
    if !have_compiler() {
        return;
    }
    let dir = scratch();
    let exe = build(&format!("{name}.c"), &dir);
    let out = Command::new(&exe)
        .current_dir(&dir)
        .output()
        .expect("run the C program");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{name} failed ({}):\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let expected_path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/c")
        .join(format!("{name}.out"));
    let expected =
        std::fs::read_to_string(&expected_path).unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
    assert_eq!(stdout, expected, "output of {name}");
}

macro_rules! c_tests {
    ($($name:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            run(stringify!($name));
        }
    )*};
}

c_tests!(hello, callback, global, memory, table, trap, start, reflect, multi, hostref, finalize, serialize);
