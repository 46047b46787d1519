//! `wasi:random`: secure random bytes from the operating system, and a
//! fast insecure generator.

use super::bindings::wasi::random::{insecure, insecure_seed, random};
use super::WasiCtxView;

/// The largest number of random bytes one call may ask for by default (as
/// Wasmtime's `DEFAULT_MAX_SIZE`).
pub const DEFAULT_MAX_SIZE: u64 = 64 << 20;

/// The insecure generator: SplitMix64, seeded from the operating system.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Random bytes from the operating system.
pub(crate) fn os_random<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    // Without an OS generator the bytes stay as they are; that only weakens
    // the insecure generator's seed.
    let _ = getrandom::fill(&mut b);
    b
}

fn check_len(ctx: &super::WasiCtx, len: u64) -> anyhow::Result<usize> {
    if len > ctx.max_random_size {
        anyhow::bail!(
            "wasi:random: {len} random bytes asked for, more than the limit of {}",
            ctx.max_random_size
        );
    }
    Ok(len as usize)
}

impl random::Host for WasiCtxView<'_> {
    fn get_random_bytes(&mut self, len: u64) -> anyhow::Result<Vec<u8>> {
        let mut buf = vec![0; check_len(self.ctx, len)?];
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

impl insecure::Host for WasiCtxView<'_> {
    fn get_insecure_random_bytes(&mut self, len: u64) -> anyhow::Result<Vec<u8>> {
        let len = check_len(self.ctx, len)?;
        let mut out = Vec::with_capacity(len + 8);
        while out.len() < len {
            out.extend_from_slice(&self.ctx.insecure_random.next_u64().to_le_bytes());
        }
        out.truncate(len);
        Ok(out)
    }
    fn get_insecure_random_u64(&mut self) -> anyhow::Result<u64> {
        Ok(self.ctx.insecure_random.next_u64())
    }
}

impl insecure_seed::Host for WasiCtxView<'_> {
    fn insecure_seed(&mut self) -> anyhow::Result<(u64, u64)> {
        let s = self.ctx.insecure_random_seed;
        Ok((s as u64, (s >> 64) as u64))
    }
}
