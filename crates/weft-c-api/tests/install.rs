//! `cargo xtask c-api install --prefix DIR` installs a C API that C
//! programs build against with nothing but `pkg-config` (or CMake's
//! `find_package(weft)`).
//!
//! Without a C compiler or `pkg-config` the test prints a note and passes,
//! unless `CI` is set, in which case it fails. The CMake part runs only
//! where `cmake` is installed.

use std::path::Path;
use std::process::Command;

/// A program using only `wasm.h`: a module (as bytes) calling back the host.
const WASM_PROGRAM: &str = r#"
#include <stdio.h>
#include <wasm.h>

static int called = 0;
static wasm_trap_t *cb(const wasm_val_vec_t *args, wasm_val_vec_t *results) {
  called = args->data[0].of.i32;
  return NULL;
}

int main(void) {
  // (module (import "" "f" (func (param i32))) (func (export "run") i32.const 42 call 0))
  static const char bytes[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x60, 0x01, 0x7f, 0x00,
    0x60, 0x00, 0x00, 0x02, 0x06, 0x01, 0x00, 0x01, 0x66, 0x00, 0x00, 0x03, 0x02, 0x01, 0x01,
    0x07, 0x07, 0x01, 0x03, 0x72, 0x75, 0x6e, 0x00, 0x01, 0x0a, 0x08, 0x01, 0x06, 0x00, 0x41,
    0x2a, 0x10, 0x00, 0x0b};
  wasm_engine_t *engine = wasm_engine_new();
  wasm_store_t *store = wasm_store_new(engine);
  wasm_byte_vec_t binary;
  wasm_byte_vec_new(&binary, sizeof(bytes), bytes);
  wasm_module_t *module = wasm_module_new(store, &binary);
  wasm_byte_vec_delete(&binary);
  if (!module) return 1;
  wasm_functype_t *ty = wasm_functype_new_1_0(wasm_valtype_new_i32());
  wasm_func_t *f = wasm_func_new(store, ty, cb);
  wasm_functype_delete(ty);
  wasm_extern_t *imports[] = {wasm_func_as_extern(f)};
  wasm_extern_vec_t import_vec = WASM_ARRAY_VEC(imports);
  wasm_instance_t *instance = wasm_instance_new(store, module, &import_vec, NULL);
  if (!instance) return 2;
  wasm_extern_vec_t exports;
  wasm_instance_exports(instance, &exports);
  wasm_val_vec_t none = WASM_EMPTY_VEC;
  wasm_trap_t *trap = wasm_func_call(wasm_extern_as_func(exports.data[0]), &none, &none);
  if (trap) return 3;
  printf("wasm.h: %d\n", called);
  wasm_extern_vec_delete(&exports);
  wasm_instance_delete(instance);
  wasm_func_delete(f);
  wasm_module_delete(module);
  wasm_store_delete(store);
  wasm_engine_delete(engine);
  return called == 42 ? 0 : 4;
}
"#;

/// A program using `weft.h`: text compiled, linked and called.
const WEFT_PROGRAM: &str = r#"
#include <stdio.h>
#include <string.h>
#include <weft.h>

int main(void) {
  const char *wat = "(module (func (export \"add\") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))";
  wasm_engine_t *engine = wasm_engine_new();
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_context_t *cx = weft_store_context(store);
  wasm_byte_vec_t wasm;
  if (weft_wat2wasm(wat, strlen(wat), &wasm)) return 1;
  weft_module_t *module = NULL;
  if (weft_module_new(engine, (const uint8_t *)wasm.data, wasm.size, &module)) return 2;
  wasm_byte_vec_delete(&wasm);
  weft_linker_t *linker = weft_linker_new(engine);
  weft_instance_t instance;
  wasm_trap_t *trap = NULL;
  if (weft_linker_instantiate(linker, cx, module, &instance, &trap) || trap) return 3;
  weft_extern_t add;
  if (!weft_instance_export_get(cx, &instance, "add", 3, &add)) return 4;
  weft_val_t args[2] = {{.kind = WEFT_I32, .of.i32 = 40}, {.kind = WEFT_I32, .of.i32 = 2}};
  weft_val_t result;
  if (weft_func_call(cx, &add.of.func, args, 2, &result, 1, &trap) || trap) return 5;
  printf("weft.h: %d\n", result.of.i32);
  weft_linker_delete(linker);
  weft_module_delete(module);
  weft_store_delete(store);
  wasm_engine_delete(engine);
  return result.of.i32 == 42 ? 0 : 6;
}
"#;

/// A C++ program using the per-topic headers of `weft.hh` the way a
/// program for Wasmtime 48's `wasmtime.hh` does (`sed s/wasmtime/weft/g`):
/// a typed host function and a component's type.
const CPP_PROGRAM: &str = r#"
#include <iostream>
#include <weft/component.hh>
#include <weft/linker.hh>

int main() {
  weft::Engine engine;
  weft::Store store(engine);
  auto module = weft::Module::compile(engine, "(module (import \"h\" \"f\" (func $f (param i32) (result i32)))"
                                              " (func (export \"run\") (result i32) (call $f (i32.const 41))))").unwrap();
  weft::Linker linker(engine);
  linker.func_wrap("h", "f", [](int32_t x) { return x + 1; }).unwrap();
  auto instance = linker.instantiate(store, module).unwrap();
  auto run = std::get<weft::Func>(*instance.get(store, "run")).typed<std::monostate, int32_t>(store).unwrap();
  auto component = weft::component::Component::compile(engine, "(component)").unwrap();
  std::cout << "weft.hh: " << run.call(store, std::monostate()).unwrap() << ", component exports "
            << component.type().export_count(engine) << "\n";
  return 0;
}
"#;

/// A C++ program using `wasm.hh` (the standard's C++ API, over `wasm.h`):
/// `WASM_PROGRAM`'s module calling back a host function.
const WASM_HH_PROGRAM: &str = r#"
#include <cstdio>
#include <wasm.hh>

static int called = 0;
static auto cb(const wasm::vec<wasm::Val> &args, wasm::vec<wasm::Val> &) -> wasm::own<wasm::Trap> {
  called = args[0].i32();
  return nullptr;
}

int main() {
  static const char bytes[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x60, 0x01, 0x7f, 0x00,
    0x60, 0x00, 0x00, 0x02, 0x06, 0x01, 0x00, 0x01, 0x66, 0x00, 0x00, 0x03, 0x02, 0x01, 0x01,
    0x07, 0x07, 0x01, 0x03, 0x72, 0x75, 0x6e, 0x00, 0x01, 0x0a, 0x08, 0x01, 0x06, 0x00, 0x41,
    0x2a, 0x10, 0x00, 0x0b};
  auto engine = wasm::Engine::make();
  auto store = wasm::Store::make(engine.get());
  auto binary = wasm::vec<byte_t>::make_uninitialized(sizeof(bytes));
  for (size_t i = 0; i < sizeof(bytes); ++i) binary[i] = bytes[i];
  auto module = wasm::Module::make(store.get(), binary);
  if (!module) return 1;
  auto ty = wasm::FuncType::make(wasm::ownvec<wasm::ValType>::make(wasm::ValType::make(wasm::ValKind::I32)));
  auto f = wasm::Func::make(store.get(), ty.get(), cb);
  auto instance = wasm::Instance::make(store.get(), module.get(), wasm::vec<wasm::Extern *>::make(f.get()));
  if (!instance) return 2;
  auto exports = instance->exports();
  auto none = wasm::vec<wasm::Val>::make();
  auto results = wasm::vec<wasm::Val>::make();
  if (exports[0]->func()->call(none, results)) return 3;
  std::printf("wasm.hh: %d\n", called);
  return called == 42 ? 0 : 4;
}
"#;

/// Whether `tool --version` runs; fails under CI if not.
fn have(tool: &str) -> bool {
    match Command::new(tool).arg("--version").output() {
        Ok(o) if o.status.success() => true,
        _ => {
            if std::env::var_os("CI").is_some() {
                panic!("`{tool}` not found, and CI is set");
            }
            eprintln!("note: `{tool}` not found; the C API installation test is skipped");
            false
        }
    }
}

fn run_ok(cmd: &mut Command, what: &str) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn install_and_build_with_pkg_config() {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    if !have(&cc) || !have("pkg-config") {
        return;
    }
    // The libraries Cargo built for this test run (next to this binary), so
    // that the installer does not build them again with other features.
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps folder");
    let target_dir = deps.parent().and_then(Path::parent).expect("target folder");
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c-api-install");
    let _ = std::fs::remove_dir_all(&work);
    let prefix = work.join("prefix");
    std::fs::create_dir_all(&work).unwrap();

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut install = Command::new(env!("CARGO"));
    install
        .args(["run", "--quiet", "-p", "xtask", "--", "c-api", "install", "--prefix"])
        .arg(&prefix)
        .arg("--lib-dir")
        .arg(deps)
        .env("CARGO_TARGET_DIR", target_dir)
        .current_dir(&root);
    run_ok(&mut install, "cargo xtask c-api install");
    for f in [
        "include/wasm.h",
        "include/weft.h",
        "include/weft/func.h",
        "include/wasm.hh",
        "include/weft/detail/wasm_hh_impl.hh",
        "include/weft.hh",
        "include/weft/func.hh",
        "include/weft/detail/core.hh",
        "include/weft/component.hh",
        "include/weft/component/types.hh",
        "lib/libweft.so",
        "lib/libweft.a",
        "lib/pkgconfig/weft.pc",
        "lib/cmake/weft/weftConfig.cmake",
        "lib/cmake/weft/weftConfigVersion.cmake",
    ] {
        assert!(prefix.join(f).exists(), "{f} not installed");
    }

    let pkg_config_path = prefix.join("lib/pkgconfig");
    for (name, program, expected) in [
        ("wasm_prog", WASM_PROGRAM, "wasm.h: 42\n"),
        ("weft_prog", WEFT_PROGRAM, "weft.h: 42\n"),
    ] {
        let src = work.join(format!("{name}.c"));
        std::fs::write(&src, program).unwrap();
        let exe = work.join(name);
        // Exactly the documented command line, through a shell.
        let script = format!(
            "{cc} {} -o {} $(pkg-config --cflags --libs weft)",
            src.display(),
            exe.display()
        );
        run_ok(
            Command::new("sh")
                .arg("-c")
                .arg(&script)
                .env("PKG_CONFIG_PATH", &pkg_config_path),
            &script,
        );
        let out = run_ok(&mut Command::new(&exe), name);
        assert_eq!(out, expected);
    }

    // C++ programs (`weft.hh`, `wasm.hh`), where a C++ compiler is installed.
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    if Command::new(&cxx)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        let src = work.join("cpp_prog.cc");
        std::fs::write(&src, CPP_PROGRAM).unwrap();
        let exe = work.join("cpp_prog");
        let script = format!(
            "{cxx} -std=c++17 {} -o {} $(pkg-config --cflags --libs weft)",
            src.display(),
            exe.display()
        );
        run_ok(
            Command::new("sh")
                .arg("-c")
                .arg(&script)
                .env("PKG_CONFIG_PATH", &pkg_config_path),
            &script,
        );
        let out = run_ok(&mut Command::new(&exe), "cpp_prog");
        assert_eq!(out, "weft.hh: 42, component exports 0\n");

        let src = work.join("wasm_hh_prog.cc");
        std::fs::write(&src, WASM_HH_PROGRAM).unwrap();
        let exe = work.join("wasm_hh_prog");
        let script = format!(
            "{cxx} -std=c++17 {} -o {} $(pkg-config --cflags --libs weft)",
            src.display(),
            exe.display()
        );
        run_ok(
            Command::new("sh")
                .arg("-c")
                .arg(&script)
                .env("PKG_CONFIG_PATH", &pkg_config_path),
            &script,
        );
        let out = run_ok(&mut Command::new(&exe), "wasm_hh_prog");
        assert_eq!(out, "wasm.hh: 42\n");
    } else {
        eprintln!("note: no C++ compiler (`{cxx}`) found; the installed C++ headers are not tested");
    }

    // The CMake package, where CMake is installed.
    if Command::new("cmake")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        let project = work.join("cmake-project");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join("prog.c"), WEFT_PROGRAM).unwrap();
        std::fs::write(
            project.join("CMakeLists.txt"),
            "cmake_minimum_required(VERSION 3.10)\nproject(weft_user C)\nfind_package(weft 0.1 REQUIRED)\n\
             add_executable(prog prog.c)\ntarget_link_libraries(prog weft::weft)\n\
             add_executable(prog_static prog.c)\ntarget_link_libraries(prog_static weft::weft_static)\n",
        )
        .unwrap();
        let build = project.join("build");
        run_ok(
            Command::new("cmake")
                .arg("-S")
                .arg(&project)
                .arg("-B")
                .arg(&build)
                .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display())),
            "cmake configure",
        );
        run_ok(Command::new("cmake").arg("--build").arg(&build), "cmake build");
        for exe in ["prog", "prog_static"] {
            let out = run_ok(&mut Command::new(build.join(exe)), exe);
            assert_eq!(out, "weft.h: 42\n");
        }
    } else {
        eprintln!("note: `cmake` not found; the CMake package is not tested");
    }
}
