//! Maps keyed by the store's own ids and indices (store object indices,
//! resource types, and the event loop's host tasks and streams), hashed with one multiplication instead of SipHash:
//! their keys are made by the store, not chosen by anyone outside it, so
//! they need no protection against crafted collisions, and instantiation
//! and the event loop insert and look them up often.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` hashed with [`IdHasher`].
pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// The hash of rustc's `FxHasher`: rotate, xor, multiply.
#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl IdHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::IdMap;

    #[test]
    fn sequential_keys_are_kept_apart() {
        let mut m: IdMap<u32, u32> = IdMap::default();
        for i in 0..10_000 {
            m.insert(i, i * 2);
        }
        assert_eq!(m.len(), 10_000);
        assert!((0..10_000).all(|i| m[&i] == i * 2));
        m.retain(|k, _| k % 2 == 0);
        assert_eq!(m.len(), 5_000);
        assert_eq!(m.get(&3), None);
    }
}
