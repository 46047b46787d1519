//! With the `p2` (`p3`) feature, the WASI 0.2 (0.3) bindings are generated from the WIT
//! files of `../shared/wasi-wit/p2` (`p3`) (beside the repository, never copied
//! into it). This stops the build with a clear message when they are
//! missing, before `bindgen!` would fail on the first file.

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_P2").is_some() {
        check(
            "p2",
            "0.2",
            &[
                "io.wit",
                "clocks.wit",
                "random.wit",
                "filesystem.wit",
                "sockets.wit",
                "cli.wit",
            ],
        );
    }
    if std::env::var_os("CARGO_FEATURE_P3").is_some() {
        check(
            "p3",
            "0.3",
            &["clocks.wit", "random.wit", "filesystem.wit", "sockets.wit", "cli.wit"],
        );
    }
}

/// Stops the build when one of the WIT `files` of `../shared/wasi-wit/<feature>`
/// (WASI `version`) is missing.
fn check(feature: &str, version: &str, files: &[&str]) {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let dir = Path::new(&manifest).join("../../../shared/wasi-wit").join(feature);
    println!("cargo:rerun-if-changed={}", dir.display());
    for file in files {
        let path = dir.join(file);
        if !path.is_file() {
            panic!(
                "weft-wasi's `{feature}` feature needs the WASI {version} WIT files: `{}` is missing. \
                 They are read from `../shared/wasi-wit/{feature}` relative to the repository's root \
                 (the shared reference folder beside the repository); put that folder there \
                 or build without the `{feature}` feature.",
                path.display()
            );
        }
    }
}
