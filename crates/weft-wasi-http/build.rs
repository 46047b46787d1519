//! The `wasi:http` bindings are generated from the WIT files of
//! `../shared/wasi-wit/p2` (beside the repository, never copied into it).
//! This stops the build with a clear message when they are missing, before
//! `bindgen!` would fail on the first file.

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let dir = Path::new(&manifest).join("../../../shared/wasi-wit/p2");
    println!("cargo:rerun-if-changed={}", dir.display());
    for file in [
        "io.wit",
        "clocks.wit",
        "random.wit",
        "filesystem.wit",
        "sockets.wit",
        "cli.wit",
        "http.wit",
    ] {
        let path = dir.join(file);
        if !path.is_file() {
            panic!(
                "weft-wasi-http needs the WASI 0.2 WIT files: `{}` is missing. They are read from \
                 `../shared/wasi-wit/p2` relative to the repository's root (the shared reference \
                 folder beside the repository); put that folder there.",
                path.display()
            );
        }
    }
}
