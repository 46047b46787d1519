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

/// The folder holding `libweft.so`: Cargo builds the library (it has an
/// rlib crate type besides `cdylib` and `staticlib`) into the `deps` folder
/// of this very test binary, in the same run and with the same features.
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    // target/<profile>/deps/c_api-HASH
    exe.parent().expect("deps folder").to_path_buf()
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

/// The scratch folder with every test module assembled (once: the tests
/// run in parallel).
fn scratch() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(make_scratch).clone()
}

fn make_scratch() -> PathBuf {
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

/// Compiles `tests/c/NAME.c` and returns the program's path.
fn build(name: &str, dir: &Path) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    build_at(&manifest.join("tests/c").join(name), dir)
}

/// Compiles the C file `src` into `dir` and returns the program's path.
fn build_at(src: &Path, dir: &Path) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let name = src.file_name().unwrap().to_string_lossy().into_owned();
    let exe = dir.join(src.file_stem().unwrap());
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
        .arg(src)
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

/// The functions `weft.h` (with `wasm.h`) declares: the names of the
/// prototypes left after preprocessing, outside function bodies and
/// typedefs.
fn declared_functions(dir: &Path) -> Vec<String> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = dir.join("all_headers.c");
    std::fs::write(&src, "#include <weft.h>\n").unwrap();
    let out = Command::new(compiler())
        .arg("-E")
        .arg("-I")
        .arg(manifest.join("include"))
        .arg(&src)
        .output()
        .expect("run the C preprocessor");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let code: String = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    // Top-level statements: split at `;` and at the `}` closing a body.
    let mut names = Vec::new();
    let mut depth = 0;
    let mut stmt = String::new();
    for c in code.chars() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 && !stmt.trim_start().starts_with("typedef") && !stmt.contains('=') {
                    // A function body (or an enum/struct definition).
                    stmt.clear();
                    continue;
                }
            }
            ';' if depth == 0 => {
                let s = stmt.trim();
                if !s.starts_with("typedef") && !s.starts_with("static") && !s.starts_with("extern \"C\"") {
                    if let Some(open) = s.find('(') {
                        let head = s[..open].trim_end();
                        let name: String = head
                            .chars()
                            .rev()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect::<Vec<_>>()
                            .into_iter()
                            .rev()
                            .collect();
                        if name.starts_with("wasm_") || name.starts_with("weft_") {
                            names.push(name);
                        }
                    }
                }
                stmt.clear();
                continue;
            }
            _ => {}
        }
        if depth == 0 {
            stmt.push(c);
        }
    }
    names.sort();
    names.dedup();
    names
}

/// Every function the headers declare is defined by `libweft`: a program
/// taking the address of each one links.
#[test]
fn every_declared_function_is_defined() {
    if !have_compiler() {
        return;
    }
    let dir = scratch();
    let names = declared_functions(&dir);
    assert!(names.len() > 300, "only {} functions found in the headers", names.len());
    let mut c = String::from("#include <stdio.h>\n#include <weft.h>\nstatic void (*const symbols[])(void) = {\n");
    for n in &names {
        c.push_str(&format!("  (void (*)(void)){n},\n"));
    }
    c.push_str("};\nint main(void) {\n  printf(\"%zu\\n\", sizeof(symbols) / sizeof(symbols[0]));\n  return 0;\n}\n");
    std::fs::write(dir.join("symbols.c"), c).unwrap();
    let exe = build_at(&dir.join("symbols.c"), &dir);
    let out = Command::new(&exe).output().expect("run the symbols program");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), names.len().to_string());
}

macro_rules! c_tests {
    ($($name:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            run(stringify!($name));
        }
    )*};
}

c_tests!(
    hello,
    callback,
    global,
    memory,
    table,
    trap,
    start,
    reflect,
    multi,
    hostref,
    finalize,
    serialize,
    weft_core,
    weft_interrupt,
    weft_externref,
    weft_component,
    weft_component_serialize,
    weft_sharedmemory,
    weft_async,
    weft_async_gc,
    weft_wasi,
    weft_wasip2,
    weft_wasi_http,
    weft_gc,
    weft_exn,
    weft_stack_creator,
    weft_memory_creator,
    weft_pooling,
    weft_profiling,
    threads,
);

/// The headers compile as C++17 and link with C linkage (where a C++
/// compiler, `$CXX` or `c++`, is installed).
#[test]
fn cpp_headers() {
    let Some(cxx) = cxx_compiler("the C++ header test") else {
        return;
    };
    let exe = build_cpp(&cxx, "cpp_headers", "c++17");
    let run = Command::new(&exe).output().expect("run the C++ program");
    assert!(run.status.success());
    assert_eq!(String::from_utf8_lossy(&run.stdout), "C++: 42\n");
}

/// The C++ compiler (`$CXX`, else `c++`) if it runs; `None` (after a note
/// saying that `what` is skipped) if not. Under `CI` one must run.
fn cxx_compiler(what: &str) -> Option<String> {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    if Command::new(&cxx)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Some(cxx);
    }
    if std::env::var_os("CI").is_some() {
        panic!("no C++ compiler (`{cxx}`) found, and CI is set");
    }
    eprintln!("note: no C++ compiler (`{cxx}`) found; {what} is skipped");
    None
}

/// Compiles `tests/c/NAME.cc` as C++ of the standard `std` (`c++17` or
/// `c++20`; warnings denied; no debug information, which only slows the
/// compiler down here) against the headers and `libweft` into the scratch
/// folder, and returns the program's path.
fn build_cpp(cxx: &str, name: &str, std: &str) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = lib_dir();
    let exe = scratch().join(format!("{name}-{std}"));
    let out = Command::new(cxx)
        .arg(format!("-std={std}"))
        .args(["-Wall", "-Wextra", "-Werror"])
        .arg("-I")
        .arg(manifest.join("include"))
        .arg(manifest.join(format!("tests/c/{name}.cc")))
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lweft", "-lpthread", "-ldl", "-lm"])
        .output()
        .expect("run the C++ compiler");
    assert!(
        out.status.success(),
        "compiling {name}.cc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Builds `tests/c/NAME.cc` as C++17 against the headers and `libweft`,
/// runs it in the scratch folder, and checks that it prints
/// `tests/c/NAME.out` (where a C++ compiler, `$CXX` or `c++`, is
/// installed; under `CI` one must be).
fn cpp_program(name: &str) {
    cpp_program_as(name, "c++17");
}

/// `cpp_program` in the C++ standard `std`.
fn cpp_program_as(name: &str, std: &str) {
    let Some(cxx) = cxx_compiler(&format!("the {name} test")) else {
        return;
    };
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = build_cpp(&cxx, name, std);
    let run = Command::new(&exe)
        .current_dir(scratch())
        .output()
        .expect("run the C++ program");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{name} failed ({}):\nstdout:\n{stdout}\nstderr:\n{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    let expected = std::fs::read_to_string(manifest.join(format!("tests/c/{name}.out"))).unwrap();
    assert_eq!(stdout, expected, "output of {name}");
}

/// Each C++ header (`weft.hh`, `weft/**/*.hh`, `wasm.hh` and its
/// implementation `weft/detail/wasm_hh_impl.hh`) compiles alone as C++17,
/// first in a translation unit, as a program for Wasmtime 48 includes
/// `wasmtime/X.hh` (where a C++ compiler is installed).
///
/// A header that only includes others (an umbrella such as `weft.hh`, or
/// one of the files at Wasmtime 48's paths that forward to Weft's) is only
/// preprocessed alone, and each C++ header it includes must be one of those
/// compiled alone: parsing all of `weft.hh` takes a second or two, and
/// doing it for each of the 23 such files was most of this test's time. The
/// others are compiled two at a time.
#[test]
fn cpp_each_header_alone() {
    let Some(cxx) = cxx_compiler("the check of each C++ header alone") else {
        return;
    };
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let mut headers = Vec::new();
    let mut dirs = vec![include.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "hh") {
                headers.push(path.strip_prefix(&include).unwrap().to_path_buf());
            }
        }
    }
    headers.sort();
    assert!(headers.len() > 30, "the C++ headers: {headers:?}");
    for h in ["wasm.hh", "weft/detail/wasm_hh_impl.hh"] {
        assert!(headers.iter().any(|p| p == Path::new(h)), "{h} not among {headers:?}");
    }
    // Split the forwarding headers from the rest.
    let mut jobs = Vec::new();
    for header in &headers {
        let text = std::fs::read_to_string(include.join(header)).unwrap();
        match included_only(&text) {
            Some(included) => {
                for inc in included.iter().filter(|i| i.ends_with(".hh")) {
                    assert!(
                        headers.iter().any(|h| h == Path::new(inc)),
                        "{} includes <{inc}>, which is not one of the C++ headers checked alone",
                        header.display()
                    );
                }
                jobs.push((header, "-E"));
            }
            None => jobs.push((header, "-fsyntax-only")),
        }
    }
    assert!(
        jobs.iter().filter(|(_, mode)| *mode == "-fsyntax-only").count() > 20,
        "too few headers with content of their own: {jobs:?}"
    );
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c-api-hh-alone");
    std::fs::create_dir_all(&dir).unwrap();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for worker in 0..2 {
            let (jobs, next, failures, dir, include, cxx) = (&jobs, &next, &failures, &dir, &include, &cxx);
            scope.spawn(move || {
                let src = dir.join(format!("alone{worker}.cc"));
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((header, mode)) = jobs.get(i) else {
                        return;
                    };
                    std::fs::write(
                        &src,
                        format!("#include <{}>\nint main() {{ return 0; }}\n", header.display()),
                    )
                    .unwrap();
                    let out = Command::new(cxx)
                        .args(["-std=c++17", "-Wall", "-Wextra", "-Werror", mode, "-o", "/dev/null"])
                        .arg("-I")
                        .arg(include)
                        .arg(&src)
                        .output()
                        .expect("run the C++ compiler");
                    if !out.status.success() {
                        failures.lock().unwrap().push(format!(
                            "{} alone ({mode}):\n{}",
                            header.display(),
                            String::from_utf8_lossy(&out.stderr)
                        ));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The headers a header includes, if including them is all it does (once
/// its comments, include guard and `#pragma`s are set aside); `None` if it
/// has content of its own.
fn included_only(text: &str) -> Option<Vec<String>> {
    let mut code = String::new();
    let mut rest = text;
    // Block comments out.
    while let Some(start) = rest.find("/*") {
        code.push_str(&rest[..start]);
        rest = rest[start..].find("*/").map_or("", |end| &rest[start + end + 2..]);
    }
    code.push_str(rest);
    let mut included = Vec::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap().trim();
        if line.is_empty() {
            continue;
        }
        if let Some(path) = line.strip_prefix("#include") {
            included.push(path.trim().trim_matches(['<', '>', '"']).to_string());
        } else if !["#ifndef", "#define", "#endif", "#pragma"]
            .iter()
            .any(|d| line.starts_with(d))
        {
            return None;
        }
    }
    Some(included)
}

/// `weft.hh`, the C++ API: core wasm (host functions, calls, traps,
/// globals, memories, linkers, serialization, exceptions) and components
/// (host functions, string and record values).
#[test]
fn weft_hh() {
    cpp_program("weft_hh");
}

/// `weft.hh`'s type classes through the per-topic headers: a module's
/// imports and exports reflected, types built by the host, the `Trace` of a
/// trap, `Func::wrap`, `Linker::func_wrap` and `TypedFunc` calls.
#[test]
fn weft_hh_types() {
    cpp_program("weft_hh_types");
}

/// `weft.hh` against Wasmtime 48's C++ API (issue #16): the members and
/// header files it lacked or named differently, each called with its
/// result checked.
#[test]
fn weft_hh_48() {
    cpp_program("weft_hh_48");
}

/// The same program as C++20, where `weft::Span` is `std::span` (as
/// Wasmtime 48's `Span`) and the rest of the API must work with it.
#[test]
fn weft_hh_48_cpp20() {
    cpp_program_as("weft_hh_48", "c++20");
}

/// `weft.hh`'s GC reference classes: `ExternRef`, `AnyRef`, `EqRef`,
/// `StructRef`, `ArrayRef` and their `Pre`s, through globals and functions.
#[test]
fn weft_hh_gc() {
    cpp_program("weft_hh_gc");
}

/// `weft/component.hh`'s type classes: a component's imports and exports
/// reflected down to every value type, and an instance function's type.
#[test]
fn weft_hh_component() {
    cpp_program("weft_hh_component");
}

/// Every function and type of the headers has a Doxygen comment (`wasm.h`'s
/// in `doc-wasm.h`): Doxygen, where it is installed, warns about nothing.
#[test]
fn headers_are_documented() {
    if !Command::new("doxygen")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("note: `doxygen` not found; the header documentation is not checked");
        return;
    }
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c-api-doxygen");
    std::fs::create_dir_all(&dir).unwrap();
    let doxyfile = format!(
        "INPUT = {}\nRECURSIVE = YES\nFILE_PATTERNS = *.h\nOUTPUT_DIRECTORY = {}\n\
         GENERATE_LATEX = NO\nGENERATE_HTML = NO\nGENERATE_XML = YES\nEXTRACT_ALL = NO\n\
         WARN_IF_UNDOCUMENTED = YES\nWARN_IF_DOC_ERROR = YES\nWARN_NO_PARAMDOC = NO\nQUIET = YES\n\
         ENABLE_PREPROCESSING = YES\nMACRO_EXPANSION = YES\nEXPAND_ONLY_PREDEF = NO\n\
         PREDEFINED = WASM_API_EXTERN= \"WEFT_CONFIG_PROP(ret,name,ty)=ret weft_config_##name##_set(wasm_config_t *, ty);\"\n",
        include.display(),
        dir.join("out").display()
    );
    std::fs::write(dir.join("Doxyfile"), doxyfile).unwrap();
    let out = Command::new("doxygen")
        .arg("Doxyfile")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let warnings = String::from_utf8_lossy(&out.stderr);
    assert!(warnings.trim().is_empty(), "doxygen warnings:\n{warnings}");
}

/// `tests/c/wasm_hh.cc` (the standard's examples written against `wasm.hh`,
/// the C++ API of `wasm.h`) built once, or `None` without a C++ compiler
/// (then the tests pass, unless `CI` is set).
fn wasm_hh_program() -> Option<PathBuf> {
    static BUILT: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let cxx = cxx_compiler("the wasm.hh tests")?;
            Some(build_cpp(&cxx, "wasm_hh", "c++17"))
        })
        .clone()
}

/// Runs the example `name` of `tests/c/wasm_hh.cc` and checks that it
/// prints `tests/c/EXPECTED.out` (the C example's output, where there is
/// one).
fn wasm_hh(name: &str, expected: &str) {
    let Some(exe) = wasm_hh_program() else {
        return;
    };
    let run = Command::new(&exe)
        .arg(name)
        .current_dir(scratch())
        .output()
        .expect("run the wasm.hh program");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "wasm.hh example {name} failed ({}):\nstdout:\n{stdout}\nstderr:\n{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/c/{expected}.out"));
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(stdout, expected, "output of the wasm.hh example {name}");
}

macro_rules! wasm_hh_tests {
    ($($test:ident => $name:literal, $out:literal;)*) => {$(
        /// The `wasm.hh` example of the same name as the C one, printing
        /// what it prints.
        #[test]
        fn $test() {
            wasm_hh($name, $out);
        }
    )*};
}

wasm_hh_tests!(
    wasm_hh_hello => "hello", "hello";
    wasm_hh_callback => "callback", "callback";
    wasm_hh_global => "global", "global";
    wasm_hh_memory => "memory", "memory";
    wasm_hh_table => "table", "table";
    wasm_hh_trap => "trap", "trap";
    wasm_hh_start => "start", "start";
    wasm_hh_reflect => "reflect", "reflect";
    wasm_hh_multi => "multi", "multi";
    wasm_hh_hostref => "hostref", "hostref";
    wasm_hh_finalize => "finalize", "finalize";
    wasm_hh_serialize => "serialize", "serialize";
    wasm_hh_threads => "threads", "threads";
    wasm_hh_misuse => "misuse", "wasm_hh_misuse";
);
