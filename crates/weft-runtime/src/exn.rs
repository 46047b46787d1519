//! The exceptions of a store: a table of slots that the collector frees
//! (see `gc_roots.rs`) and that new exceptions reuse.
//!
//! **Words.** An exnref word names a slot and the slot's *generation*:
//! `(generation << 32) | (slot + 1)`. A slot's generation goes up each
//! time its exception is freed, so a stale word (a host handle used after
//! its root scope ended and its exception was collected, or an integer that
//! happens to look like a word) never names the exception that reuses the
//! slot: it names nothing, and every use of it fails. Generations start at
//! 1 and stay below `2^31`, so a word is never 0, never has
//! `weft_environ::EXTERN_HOLDS_ANY` (bit 63) set, and is never mistaken for
//! an extern reference word or a GC heap word (both below `2^32`). A slot
//! whose generation would reach `2^31` is retired instead of reused.

// Import loop kept on purpose: the store context (vm.rs) holds the table,
// whose exceptions hold its tag definitions and payload values.
use crate::vm::{VMTagDefinition, ValRaw};

/// A thrown exception: its tag and payload.
#[derive(Debug, Clone)]
pub(crate) struct ExnObject {
    /// The tag's identity.
    pub(crate) tag: *const VMTagDefinition,
    /// One value per parameter of the tag's type.
    pub(crate) values: Box<[ValRaw]>,
    /// Whether a word of it may be held anywhere but in the store
    /// context's pending exception (an `exnref` was made of it by
    /// `catch_ref`, `catch_all_ref` or a legacy `catch`, it reached the
    /// host, or the host made it). An exception never exposed is freed as
    /// soon as a handler catches it without an `exnref`; an exposed one
    /// only by a collection that finds it unreachable.
    pub(crate) exposed: bool,
}

/// One slot of the table.
#[derive(Debug)]
struct Slot {
    generation: u32,
    exn: Option<ExnObject>,
}

/// The generation past which a slot is retired.
const MAX_GENERATION: u32 = (1 << 31) - 1;

/// The number of live exceptions below which no automatic collection runs.
pub(crate) const MIN_COLLECT_THRESHOLD: usize = 1024;

/// The exceptions of a store (see the module docs).
#[derive(Debug)]
pub(crate) struct ExnTable {
    slots: Vec<Slot>,
    /// Free slots, reused last-freed first.
    free: Vec<u32>,
    /// The number of live exceptions.
    live: usize,
    /// The number of live exceptions at which a new one starts a
    /// collection (see `VMStoreContext::maybe_collect_exceptions`).
    pub(crate) next_collect: usize,
}

impl Default for ExnTable {
    fn default() -> Self {
        ExnTable {
            slots: Vec::new(),
            free: Vec::new(),
            live: 0,
            next_collect: MIN_COLLECT_THRESHOLD,
        }
    }
}

/// The slot index and generation a word names (`None` for 0, or a word
/// that cannot be one).
fn split(word: u64) -> Option<(usize, u32)> {
    let slot = (word & 0xffff_ffff).checked_sub(1)?;
    let generation = u32::try_from(word >> 32).ok()?;
    Some((usize::try_from(slot).ok()?, generation))
}

fn join(slot: usize, generation: u32) -> usize {
    ((u64::from(generation) << 32) | (slot as u64 + 1)) as usize
}

const _: () = assert!(usize::BITS == 64, "exnref words are 64-bit");

impl ExnTable {
    /// The number of live exceptions.
    pub(crate) fn live(&self) -> usize {
        self.live
    }

    /// The number of slots (live, free or retired).
    pub(crate) fn num_slots(&self) -> usize {
        self.slots.len()
    }

    /// The slot of the live exception `word` names, if it names one.
    pub(crate) fn slot_of(&self, word: u64) -> Option<usize> {
        let (slot, generation) = split(word)?;
        let s = self.slots.get(slot)?;
        (s.generation == generation && s.exn.is_some()).then_some(slot)
    }

    /// The exception in slot `slot`, if it is live.
    pub(crate) fn in_slot(&self, slot: usize) -> Option<&ExnObject> {
        self.slots.get(slot)?.exn.as_ref()
    }

    /// The live exception `word` names.
    pub(crate) fn get(&self, word: usize) -> Option<&ExnObject> {
        let slot = self.slot_of(word as u64)?;
        self.slots[slot].exn.as_ref()
    }

    /// The live exception `word` names, for changing.
    pub(crate) fn get_mut(&mut self, word: usize) -> Option<&mut ExnObject> {
        let slot = self.slot_of(word as u64)?;
        self.slots[slot].exn.as_mut()
    }

    /// Adds `exn` and returns its word; `None` when every slot a word can
    /// name (`2^32 - 2` of them) is in use or retired (far more memory
    /// than a machine has would be needed first).
    pub(crate) fn insert(&mut self, exn: ExnObject) -> Option<usize> {
        let slot = match self.free.pop() {
            Some(slot) => slot as usize,
            None => {
                if self.slots.len() >= 0xffff_fffe {
                    return None;
                }
                self.slots.push(Slot {
                    generation: 1,
                    exn: None,
                });
                self.slots.len() - 1
            }
        };
        let s = &mut self.slots[slot];
        s.exn = Some(exn);
        self.live += 1;
        Some(join(slot, s.generation))
    }

    /// Frees the exception in slot `slot`, if it is live: its words then
    /// name nothing.
    fn free_slot(&mut self, slot: usize) -> Option<ExnObject> {
        let s = self.slots.get_mut(slot)?;
        let exn = s.exn.take()?;
        self.live -= 1;
        if s.generation < MAX_GENERATION {
            s.generation += 1;
            self.free.push(slot as u32);
        }
        Some(exn)
    }

    /// Frees exception `word` once its handler caught it without making an
    /// `exnref`, if it was never exposed (no other word of it exists).
    pub(crate) fn release_caught(&mut self, word: usize) {
        if let Some(slot) = self.slot_of(word as u64) {
            if self.slots[slot].exn.as_ref().is_some_and(|e| !e.exposed) {
                self.free_slot(slot);
            }
        }
    }

    /// Frees every live exception whose slot is not marked; returns them.
    pub(crate) fn sweep(&mut self, marks: &[bool]) -> Vec<ExnObject> {
        let mut dead = Vec::new();
        for slot in 0..self.slots.len() {
            if self.slots[slot].exn.is_some() && !marks.get(slot).copied().unwrap_or(true) {
                dead.extend(self.free_slot(slot));
            }
        }
        dead
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exn(v: i32) -> ExnObject {
        ExnObject {
            tag: std::ptr::null(),
            values: Box::new([ValRaw::i32(v)]),
            exposed: true,
        }
    }

    #[test]
    fn freed_slots_are_reused_under_a_new_generation() {
        let mut t = ExnTable::default();
        let a = t.insert(exn(1)).unwrap();
        let b = t.insert(exn(2)).unwrap();
        assert_ne!(a, b);
        assert_eq!(t.live(), 2);
        // Slot of `a` unmarked: freed.
        let dead = t.sweep(&[false, true]);
        assert_eq!(dead.len(), 1);
        assert_eq!(t.live(), 1);
        assert!(t.get(a).is_none());
        let c = t.insert(exn(3)).unwrap();
        // Same slot, new generation: the stale word names nothing.
        assert_eq!(c & 0xffff_ffff, a & 0xffff_ffff);
        assert_ne!(c, a);
        assert!(t.get(a).is_none());
        assert_eq!(t.get(c).unwrap().values[0].get_i32(), 3);
        assert_eq!(t.get(b).unwrap().values[0].get_i32(), 2);
        assert_eq!(t.num_slots(), 2);
    }

    #[test]
    fn words_are_never_small_nor_tagged() {
        let mut t = ExnTable::default();
        let a = t.insert(exn(1)).unwrap() as u64;
        assert!(a >= 1 << 32);
        assert_eq!(a & weft_environ::EXTERN_HOLDS_ANY, 0);
        for w in [0u64, 1, 2, 1 << 32, u64::MAX, a + 1, a | (1 << 63)] {
            assert!(t.slot_of(w).is_none(), "{w:#x}");
        }
        assert_eq!(t.slot_of(a), Some(0));
    }

    #[test]
    fn unexposed_exceptions_are_released_when_caught() {
        let mut t = ExnTable::default();
        let mut e = exn(1);
        e.exposed = false;
        let a = t.insert(e).unwrap();
        let b = t.insert(exn(2)).unwrap();
        t.release_caught(b);
        assert!(t.get(b).is_some());
        t.release_caught(a);
        assert!(t.get(a).is_none());
        assert_eq!(t.live(), 1);
    }
}
