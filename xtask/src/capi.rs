//! `cargo xtask c-api install --prefix DIR [--release]`: builds `libweft`
//! and installs the C API: the headers in `DIR/include`, `libweft.so` and
//! `libweft.a` in `DIR/lib`, a pkg-config file (`DIR/lib/pkgconfig/weft.pc`)
//! and a CMake package (`DIR/lib/cmake/weft`, for `find_package(weft)`,
//! with the targets `weft::weft` (shared) and `weft::weft_static`).

use std::path::{Path, PathBuf};
use std::process::Command;

pub const USAGE: &str = "usage: cargo xtask c-api install --prefix DIR [--release | --lib-dir LIBS]

  Builds libweft (crates/weft-c-api) and installs its headers, libraries,
  pkg-config file (weft.pc) and CMake package (find_package(weft)) under DIR.
  With --lib-dir, nothing is built: libweft.so and libweft.a are taken from
  the folder LIBS (the C API's tests install the libraries their own cargo
  run built, from target/debug/deps).";

/// The version written into the pkg-config and CMake files.
const VERSION: &str = "0.1.0";

/// Runs `c-api ARGS`.
pub fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let mut prefix = None;
    let mut release = false;
    let mut lib_dir = None;
    let mut it = args.iter();
    match it.next().map(String::as_str) {
        Some("install") => {}
        _ => return Err(USAGE.to_string()),
    }
    while let Some(a) = it.next() {
        match a.as_str() {
            "--prefix" => prefix = Some(PathBuf::from(it.next().ok_or(USAGE)?)),
            "--release" => release = true,
            "--lib-dir" => lib_dir = Some(PathBuf::from(it.next().ok_or(USAGE)?)),
            _ => return Err(format!("unknown argument `{a}`\n\n{USAGE}")),
        }
    }
    let prefix = prefix.ok_or(USAGE)?;
    let prefix = if prefix.is_absolute() {
        prefix
    } else {
        std::env::current_dir().map_err(|e| e.to_string())?.join(prefix)
    };
    if release && lib_dir.is_some() {
        return Err(format!("--release and --lib-dir exclude each other\n\n{USAGE}"));
    }
    let lib_dir = match lib_dir {
        Some(dir) => dir,
        None => build(root, release)?,
    };
    install(root, &prefix, &lib_dir)
}

/// Builds libweft and returns the folder holding `libweft.so` and `libweft.a`.
fn build(root: &Path, release: bool) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut build = Command::new(&cargo);
    build.args(["build", "-p", "weft-c-api", "--lib"]).current_dir(root);
    if release {
        build.arg("--release");
    }
    let status = build.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("building libweft failed".to_string());
    }
    let profile = if release { "release" } else { "debug" };
    Ok(target_dir(&cargo, root)?.join(profile))
}

fn install(root: &Path, prefix: &Path, lib_dir: &Path) -> Result<(), String> {
    let include = prefix.join("include");
    let lib = prefix.join("lib");
    copy_dir(&root.join("crates/weft-c-api/include"), &include)?;
    std::fs::create_dir_all(&lib).map_err(|e| format!("cannot create {}: {e}", lib.display()))?;
    for name in ["libweft.so", "libweft.a"] {
        copy(&lib_dir.join(name), &lib.join(name))?;
    }
    write(&lib.join("pkgconfig/weft.pc"), &pkg_config(prefix))?;
    write(&lib.join("cmake/weft/weftConfig.cmake"), CMAKE_CONFIG)?;
    write(
        &lib.join("cmake/weft/weftConfigVersion.cmake"),
        &CMAKE_VERSION.replace("@VERSION@", VERSION),
    )?;
    println!("installed the C API of weft {VERSION} in {}", prefix.display());
    Ok(())
}

/// Cargo's target folder (`CARGO_TARGET_DIR` or the workspace's).
fn target_dir(cargo: &str, root: &Path) -> Result<PathBuf, String> {
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let key = "\"target_directory\":\"";
    let start = text.find(key).ok_or("no target_directory in cargo metadata")? + key.len();
    let end = text[start..].find('"').ok_or("malformed cargo metadata")? + start;
    Ok(PathBuf::from(text[start..end].replace("\\\\", "\\")))
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    // Remove first: the installed library may be mapped by a running program.
    let _ = std::fs::remove_file(to);
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let entries = std::fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        let path = entry.path();
        let dest = to.join(entry.file_name());
        if path.is_dir() {
            copy_dir(&path, &dest)?;
        } else {
            copy(&path, &dest)?;
        }
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// `weft.pc`. Programs link `libweft.so` and find it again at run time
/// through the rpath; `pkg-config --static` gives what `libweft.a` needs.
fn pkg_config(prefix: &Path) -> String {
    format!(
        "prefix={}
exec_prefix=${{prefix}}
libdir=${{exec_prefix}}/lib
includedir=${{prefix}}/include

Name: weft
Description: The C API of Weft, a WebAssembly runtime (wasm.h and weft.h)
Version: {VERSION}
Cflags: -I${{includedir}}
Libs: -L${{libdir}} -Wl,-rpath,${{libdir}} -lweft
Libs.private: -lpthread -ldl -lm
",
        prefix.display()
    )
}

/// `weftConfig.cmake`: imported targets relative to the file's own place,
/// so the installation may move.
const CMAKE_CONFIG: &str = r#"# The CMake package of Weft's C API: find_package(weft) gives the targets
# weft::weft (libweft.so) and weft::weft_static (libweft.a).
get_filename_component(_weft_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(NOT TARGET weft::weft)
  add_library(weft::weft SHARED IMPORTED)
  set_target_properties(weft::weft PROPERTIES
    IMPORTED_LOCATION "${_weft_prefix}/lib/libweft.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_weft_prefix}/include")
endif()

if(NOT TARGET weft::weft_static)
  add_library(weft::weft_static STATIC IMPORTED)
  set_target_properties(weft::weft_static PROPERTIES
    IMPORTED_LOCATION "${_weft_prefix}/lib/libweft.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_weft_prefix}/include"
    INTERFACE_LINK_LIBRARIES "pthread;dl;m")
endif()

set(weft_INCLUDE_DIRS "${_weft_prefix}/include")
set(weft_LIBRARIES weft::weft)
set(weft_FOUND TRUE)
unset(_weft_prefix)
"#;

/// `weftConfigVersion.cmake`: compatible within a major version (and, for
/// 0.x, a minor version).
const CMAKE_VERSION: &str = r#"set(PACKAGE_VERSION "@VERSION@")
if(PACKAGE_FIND_VERSION)
  string(REPLACE "." ";" _weft_want "${PACKAGE_FIND_VERSION}")
  string(REPLACE "." ";" _weft_have "${PACKAGE_VERSION}")
  list(GET _weft_want 0 _weft_want_major)
  list(GET _weft_have 0 _weft_have_major)
  list(LENGTH _weft_want _weft_want_len)
  set(_weft_want_minor 0)
  if(_weft_want_len GREATER 1)
    list(GET _weft_want 1 _weft_want_minor)
  endif()
  list(GET _weft_have 1 _weft_have_minor)
  if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION
     OR NOT _weft_want_major EQUAL _weft_have_major
     OR (_weft_have_major EQUAL 0 AND NOT _weft_want_minor EQUAL _weft_have_minor))
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  else()
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
    if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
      set(PACKAGE_VERSION_EXACT TRUE)
    endif()
  endif()
endif()
"#;
