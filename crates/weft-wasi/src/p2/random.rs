//! `wasi:random`: secure random bytes from the operating system, and a
//! fast insecure generator.

use super::bindings::wasi::random::{insecure, insecure_seed, random};
use crate::random::WasiRandomCtx;

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
        getrandom::fill(&mut buf)
            .map_err(|e| anyhow::anyhow!("wasi:random: the operating system's generator failed: {e}"))?;
        Ok(buf)
    }
    fn get_random_u64(&mut self) -> anyhow::Result<u64> {
        let mut b = [0u8; 8];
        getrandom::fill(&mut b)
            .map_err(|e| anyhow::anyhow!("wasi:random: the operating system's generator failed: {e}"))?;
        Ok(u64::from_le_bytes(b))
    }
}

impl insecure::Host for WasiRandomCtx {
    fn get_insecure_random_bytes(&mut self, len: u64) -> anyhow::Result<Vec<u8>> {
        let len = check_len(self, len)?;
        let mut out = Vec::with_capacity(len + 8);
        while out.len() < len {
            out.extend_from_slice(&self.insecure_random.next_u64().to_le_bytes());
        }
        out.truncate(len);
        Ok(out)
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
