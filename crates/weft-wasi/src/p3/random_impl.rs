//! `wasi:random@0.3`: the same generators as WASI 0.2's (the operating
//! system's for `random`, the context's seeded generator for `insecure`).

use super::bindings::wasi::random::{insecure, insecure_seed, random};
use crate::random::WasiRandomCtx;

/// `max_len` capped at the context's largest size (a short read, which
/// 0.3 allows, where 0.2 traps).
fn cap(view: &WasiRandomCtx, max_len: u64) -> u64 {
    max_len.min(view.max_random_size)
}

impl random::Host for WasiRandomCtx {
    fn get_random_bytes(&mut self, max_len: u64) -> weft::Result<Vec<u8>> {
        let len = cap(self, max_len);
        crate::p2::bindings::wasi::random::random::Host::get_random_bytes(self, len)
    }
    fn get_random_u64(&mut self) -> weft::Result<u64> {
        crate::p2::bindings::wasi::random::random::Host::get_random_u64(self)
    }
}

impl insecure::Host for WasiRandomCtx {
    fn get_insecure_random_bytes(&mut self, max_len: u64) -> weft::Result<Vec<u8>> {
        let len = cap(self, max_len);
        crate::p2::bindings::wasi::random::insecure::Host::get_insecure_random_bytes(self, len)
    }
    fn get_insecure_random_u64(&mut self) -> weft::Result<u64> {
        crate::p2::bindings::wasi::random::insecure::Host::get_insecure_random_u64(self)
    }
}

impl insecure_seed::Host for WasiRandomCtx {
    fn get_insecure_seed(&mut self) -> weft::Result<(u64, u64)> {
        crate::p2::bindings::wasi::random::insecure_seed::Host::insecure_seed(self)
    }
}
