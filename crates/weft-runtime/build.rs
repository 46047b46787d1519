//! Compiles the C helpers that catch traps (`src/helpers.c`) on targets
//! where `traps.rs` has no setjmp of its own (all but x86-64 Unix).

fn main() {
    println!("cargo:rerun-if-changed=src/helpers.c");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let unix = std::env::var_os("CARGO_CFG_UNIX").is_some();
    if arch != "x86_64" || !unix {
        cc::Build::new().file("src/helpers.c").compile("weft_helpers");
    }
}
