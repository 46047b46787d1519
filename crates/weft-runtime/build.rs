//! Compiles the C helpers that catch traps (`src/helpers.c`).

fn main() {
    println!("cargo:rerun-if-changed=src/helpers.c");
    cc::Build::new().file("src/helpers.c").compile("weft_helpers");
}
