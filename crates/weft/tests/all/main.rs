//! Weft's integration tests, in one test binary (`cargo test -p weft --test all`):
//! one binary builds and links the monomorphized API once instead of once
//! per file. Each module is what used to be a test file of its own; run
//! one with `cargo test -p weft --test all MODULE::`.

mod api;
mod async_calls;
mod async_drop_property;
mod backtrace_capture;
mod bindgen;
mod bindgen_wasi;
mod call_hook;
mod component_api;
mod component_async;
mod component_async_host_hold;
mod component_call_async;
mod component_concurrent;
mod component_concurrent_scalars;
mod component_features;
mod component_fused_async;
mod component_linking;
mod component_precompiled;
mod component_stream_cancel;
mod component_streams;
mod component_typed;
mod component_typed_direct;
mod component_typed_scalars;
mod custom_descriptors;
mod custom_stack;
mod data_and_store;
mod entry_trampolines;
mod exceptions;
mod exn_collect;
mod exn_unwind;
mod fixed_size_tables;
mod gc;
mod gc_collect;
mod gc_host_api;
mod guest_profiler;
mod host_exceptions;
mod host_memory;
mod interruption;
mod limits;
mod memory_copy_inline;
mod pooling;
mod precompiled;
mod proposals;
mod robustness;
mod shared_memory;
mod smoke;
mod tail_call;
mod wasmtime_compat;
mod wasmtime_compat_concurrent;
