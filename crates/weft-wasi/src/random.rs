//! `wasi:random`: the part of the context the `wasi:random` interfaces
//! see, under the module path Wasmtime 48 gives it
//! (`wasmtime_wasi::random`). Secure random bytes come from the operating
//! system; the insecure ones from a fast generator seeded from it.

use weft::component::HasData;

/// The largest number of random bytes one call may ask for by default (as
/// Wasmtime's `DEFAULT_MAX_SIZE`); see
/// [`crate::WasiCtxBuilder::max_random_size`].
pub const DEFAULT_MAX_SIZE: u64 = 64 << 20;

/// The [`HasData`] type of the `wasi:random` host functions: they see the
/// [`WasiRandomCtx`] alone (`wasi:random` has no resources).
pub struct WasiRandom;

impl HasData for WasiRandom {
    type Data<'a> = &'a mut WasiRandomCtx;
}

/// The part of the WASI context `wasi:random` sees: the insecure
/// generator, the insecure seed and the most bytes one call may ask for.
/// The default seeds both from the operating system and allows
/// [`DEFAULT_MAX_SIZE`] bytes.
pub struct WasiRandomCtx {
    pub(crate) insecure_random: SplitMix,
    pub(crate) insecure_random_seed: u128,
    pub(crate) max_random_size: u64,
}

impl Default for WasiRandomCtx {
    fn default() -> Self {
        let seed = random_seed();
        WasiRandomCtx {
            insecure_random: SplitMix(seed as u64),
            insecure_random_seed: random_seed(),
            max_random_size: DEFAULT_MAX_SIZE,
        }
    }
}

impl std::fmt::Debug for WasiRandomCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasiRandomCtx")
            .field("max_random_size", &self.max_random_size)
            .finish_non_exhaustive()
    }
}

/// Implemented by a store's data to lend `wasi:random` its context.
/// Every [`crate::WasiView`] implements it, and so does [`WasiRandomCtx`].
pub trait WasiRandomView: Send {
    /// The `wasi:random` context.
    fn random(&mut self) -> &mut WasiRandomCtx;
}

impl WasiRandomView for WasiRandomCtx {
    fn random(&mut self) -> &mut WasiRandomCtx {
        self
    }
}

/// A random seed from the operating system.
pub(crate) fn random_seed() -> u128 {
    u128::from_le_bytes(os_random::<16>())
}

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
fn os_random<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    // Without an OS generator the bytes stay as they are; that only weakens
    // the insecure generator's seed.
    let _ = getrandom::fill(&mut b);
    b
}
