//! Wasmtime's `wasip1` example, as `examples/wasip1/main.rs` has it (the
//! crates renamed, the module's path adapted), compiles against Weft and
//! runs: the test calls the example's own `main`.

#[allow(dead_code, reason = "the example's fields are read only by its Debug output")]
mod example {
    include!("../../examples/wasip1/main.rs");

    pub fn run() -> Result<()> {
        main()
    }
}

#[test]
fn wasmtime_wasip1_example_runs() {
    example::run().expect("the wasip1 example runs");
}
