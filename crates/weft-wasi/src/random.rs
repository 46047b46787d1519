//! `wasi:random`: the part of the context the `wasi:random` interfaces
//! see, under the module path Wasmtime 48 gives it
//! (`wasmtime_wasi::random`). By default secure random bytes come from a
//! ChaCha generator seeded from the operating system ([`thread_rng`]) and
//! the insecure ones from a fast generator seeded from it; an embedder may
//! give its own of either (any [`Rng`], e.g. a [`Deterministic`] one).

use rand::{Rng, SeedableRng};
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

/// The part of the WASI context `wasi:random` sees: the secure and the
/// insecure generators, the insecure seed and the most bytes one call may
/// ask for. The default seeds all three from the operating system and
/// allows [`DEFAULT_MAX_SIZE`] bytes.
pub struct WasiRandomCtx {
    pub(crate) random: Box<dyn Rng + Send>,
    pub(crate) insecure_random: Box<dyn Rng + Send>,
    pub(crate) insecure_random_seed: u128,
    pub(crate) max_random_size: u64,
}

impl Default for WasiRandomCtx {
    fn default() -> Self {
        WasiRandomCtx {
            random: thread_rng(),
            insecure_random: insecure_rng(),
            insecure_random_seed: random_seed(),
            max_random_size: DEFAULT_MAX_SIZE,
        }
    }
}

/// A secure generator: a `StdRng` (ChaCha12) seeded from `rand`'s thread
/// generator, as Wasmtime 48's `thread_rng`.
pub fn thread_rng() -> Box<dyn Rng + Send> {
    Box::new(rand::rngs::StdRng::from_rng(&mut rand::rng()))
}

/// The default insecure generator: a `SmallRng` seeded from `rand`'s thread
/// generator.
pub(crate) fn insecure_rng() -> Box<dyn Rng + Send> {
    Box::new(rand::rngs::SmallRng::from_rng(&mut rand::rng()))
}

/// A "generator" that gives the bytes it was made with, in order, again
/// and again (for tests that want `wasi:random` to be predictable).
///
/// ```
/// use weft_wasi::random::Deterministic;
/// use weft_wasi::Rng;
/// let mut r = Deterministic::new(vec![1, 2, 3]);
/// let mut buf = [0u8; 5];
/// r.fill_bytes(&mut buf);
/// assert_eq!(buf, [1, 2, 3, 1, 2]);
/// ```
#[derive(Debug, Clone)]
pub struct Deterministic {
    bytes: Vec<u8>,
    next: usize,
}

impl Deterministic {
    /// A generator cycling through `bytes`; with none it gives zeros.
    pub fn new(bytes: Vec<u8>) -> Self {
        Deterministic { bytes, next: 0 }
    }
}

impl rand::TryRng for Deterministic {
    type Error = std::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        let mut b = [0u8; 4];
        self.try_fill_bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        let mut b = [0u8; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        if self.bytes.is_empty() {
            dst.fill(0);
            return Ok(());
        }
        for b in dst {
            *b = self.bytes[self.next];
            self.next = (self.next + 1) % self.bytes.len();
        }
        Ok(())
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

/// A random seed, from the thread's generator (seeded once from the
/// operating system, as Wasmtime seeds its own): one system call per
/// thread rather than one per WASI context.
pub(crate) fn random_seed() -> u128 {
    let mut b = [0u8; 16];
    rand::rng().fill_bytes(&mut b);
    u128::from_le_bytes(b)
}
