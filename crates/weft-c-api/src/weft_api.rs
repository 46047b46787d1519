//! The functions of `weft.h` beyond `wasm.h` (filled in step by step).
