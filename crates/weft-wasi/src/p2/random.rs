//! `wasi:random`: bytes of the context's secure and insecure generators.

use super::bindings::wasi::random::{insecure, insecure_seed, random};
use crate::random::WasiRandomCtx;
use rand::Rng;

fn check_len(ctx: &WasiRandomCtx, len: u64) -> anyhow::Result<usize> {
    if len > ctx.max_random_size {
        anyhow::bail!(
            "wasi:random: {len} random bytes asked for, more than the limit of {}",
            ctx.max_random_size
        );
    }
    Ok(len as usize)
}

impl random::Host for WasiRandomCtx {
    fn get_random_bytes(&mut self, len: u64) -> anyhow::Result<Vec<u8>> {
        let mut buf = vec![0; check_len(self, len)?];
        self.random.fill_bytes(&mut buf);
        Ok(buf)
    }
    fn get_random_u64(&mut self) -> anyhow::Result<u64> {
        Ok(self.random.next_u64())
    }
}

impl insecure::Host for WasiRandomCtx {
    fn get_insecure_random_bytes(&mut self, len: u64) -> anyhow::Result<Vec<u8>> {
        let mut buf = vec![0; check_len(self, len)?];
        self.insecure_random.fill_bytes(&mut buf);
        Ok(buf)
    }
    fn get_insecure_random_u64(&mut self) -> anyhow::Result<u64> {
        Ok(self.insecure_random.next_u64())
    }
}

impl insecure_seed::Host for WasiRandomCtx {
    fn insecure_seed(&mut self) -> anyhow::Result<(u64, u64)> {
        let s = self.insecure_random_seed;
        Ok((s as u64, (s >> 64) as u64))
    }
}
