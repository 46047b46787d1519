//! Hash maps of the store's own keys (object indices, resource types),
//! with a fast hasher instead of the default SipHash: the keys are
//! numbers the runtime made, not input an attacker chooses, so they need
//! no protection against collisions crafted on purpose, and instantiation
//! inserts several of them per instance.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A [`HashMap`] with [`IndexHasher`].
pub(crate) type IndexMap<K, V> = HashMap<K, V, BuildHasherDefault<IndexHasher>>;

/// A multiplicative hasher (as rustc's "Fx" hash): each word is mixed into
/// the state with a rotation, an xor and a multiplication by an odd
/// constant, which spreads consecutive indices over the high bits that the
/// table's control bytes use.
#[derive(Default, Clone, Copy)]
pub(crate) struct IndexHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl IndexHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for IndexHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let (words, rest) = bytes.as_chunks::<8>();
        for w in words {
            self.add(u64::from_le_bytes(*w));
        }
        for b in rest {
            self.add(u64::from(*b));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::IndexMap;

    #[test]
    fn keeps_every_key() {
        let mut map = IndexMap::default();
        for i in 0..10_000usize {
            map.insert(i * 7, i);
        }
        assert_eq!(map.len(), 10_000);
        assert!((0..10_000usize).all(|i| map.get(&(i * 7)) == Some(&i)));
        assert_eq!(map.get(&1), None);
    }
}
