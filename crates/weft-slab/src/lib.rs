//! A slab: values by `u32` index, where a removed value's index is given to
//! the next value inserted (the last freed first, as the canonical ABI's
//! `Table` reuses indices).
//!
//! It is the one free-list table of Weft's handle tables: the component
//! instances' handle and thread tables and the store-wide table of tasks in
//! `weft-tasks`, and the facade's resource handle tables and
//! `ResourceTable`. It sits in a crate of its own because those have no
//! other crate in common (`weft-tasks` depends on no Weft crate).
//!
//! It never panics, allocates only when it grows, and has no `unsafe`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// Values by `u32` index, with a free list of the indices of removed values.
///
/// Indices start at the slab's first index ([`Slab::starting_at`]; 0 for
/// [`Slab::new`]); smaller ones are never used. An index is reused only
/// after its value is [removed](Slab::remove), the last freed first.
#[derive(Debug, Clone)]
pub struct Slab<T> {
    /// The value of index `first + k` is `slots[k]`.
    slots: Vec<Option<T>>,
    /// Indices of removed values, to be given out again (last first).
    free: Vec<u32>,
    /// The smallest index.
    first: u32,
    /// The number of values.
    len: usize,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab::new()
    }
}

impl<T> Slab<T> {
    /// An empty slab whose indices start at 0. Does not allocate.
    pub const fn new() -> Self {
        Slab::starting_at(0)
    }

    /// An empty slab whose indices start at `first` (1 for tables where 0
    /// means "none"). Does not allocate.
    pub const fn starting_at(first: u32) -> Self {
        Slab {
            slots: Vec::new(),
            free: Vec::new(),
            first,
            len: 0,
        }
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the slab holds no value.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Where index `i` lives in `slots`, if it is not below the first index.
    fn slot(&self, i: u32) -> Option<usize> {
        i.checked_sub(self.first).map(|k| k as usize)
    }

    /// Stores `value` at the most recently freed index, or else at the
    /// index after the largest used, and returns the index; `None` (and
    /// `value` dropped) when that index would be above `max`.
    pub fn insert_within(&mut self, value: T, max: u32) -> Option<u32> {
        if let Some(i) = self.free.pop() {
            if let Some(slot) = self.slot(i).and_then(|k| self.slots.get_mut(k)) {
                if slot.is_none() {
                    *slot = Some(value);
                    self.len += 1;
                    return Some(i);
                }
            }
        }
        let i = u32::try_from(self.slots.len())
            .ok()
            .and_then(|k| k.checked_add(self.first))
            .filter(|i| *i <= max)?;
        self.slots.push(Some(value));
        self.len += 1;
        Some(i)
    }

    /// Stores `value` as [`Slab::insert_within`] does with no limit but the
    /// largest `u32`; `None` only when every index is taken.
    pub fn insert(&mut self, value: T) -> Option<u32> {
        self.insert_within(value, u32::MAX)
    }

    /// The value at index `i`.
    pub fn get(&self, i: u32) -> Option<&T> {
        self.slot(i).and_then(|k| self.slots.get(k)).and_then(Option::as_ref)
    }

    /// The value at index `i`, writable.
    pub fn get_mut(&mut self, i: u32) -> Option<&mut T> {
        self.slot(i)
            .and_then(|k| self.slots.get_mut(k))
            .and_then(Option::as_mut)
    }

    /// Removes the value at index `i` and frees the index for reuse.
    pub fn remove(&mut self, i: u32) -> Option<T> {
        let value = self.take(i)?;
        self.free.push(i);
        Some(value)
    }

    /// Stores `value` at index `i`, given out by an index space kept
    /// elsewhere, replacing the value there; `false` (and `value` dropped)
    /// when `i` is below the first index. A slab used this way must not
    /// [`insert`](Slab::insert) or [`remove`](Slab::remove): its own free
    /// list does not know of such indices.
    pub fn insert_at(&mut self, i: u32, value: T) -> bool {
        let Some(k) = self.slot(i) else {
            return false;
        };
        if self.slots.len() <= k {
            self.slots.resize_with(k + 1, || None);
        }
        if self.slots[k].replace(value).is_none() {
            self.len += 1;
        }
        true
    }

    /// Removes the value at index `i` without freeing the index (the
    /// counterpart of [`Slab::insert_at`]).
    pub fn take(&mut self, i: u32) -> Option<T> {
        let value = self
            .slot(i)
            .and_then(|k| self.slots.get_mut(k))
            .and_then(Option::take)?;
        self.len -= 1;
        Some(value)
    }

    /// One past the largest index that has held a value (at least the first
    /// index): every index of the slab is below it.
    pub fn index_bound(&self) -> usize {
        self.first as usize + self.slots.len()
    }

    /// The values and their indices, in the order of the indices.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> + '_ {
        let first = self.first;
        // `first + k` is an index the slab gave out or was given: no overflow.
        self.slots
            .iter()
            .enumerate()
            .filter_map(move |(k, slot)| slot.as_ref().map(|v| (first.wrapping_add(k as u32), v)))
    }

    /// The values, mutably, and their indices, in the order of the indices.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (u32, &mut T)> + '_ {
        let first = self.first;
        // `first + k` is an index the slab gave out or was given: no overflow.
        self.slots
            .iter_mut()
            .enumerate()
            .filter_map(move |(k, slot)| slot.as_mut().map(|v| (first.wrapping_add(k as u32), v)))
    }
}

#[cfg(test)]
mod tests {
    use super::Slab;

    #[test]
    fn iter_mut_changes_the_values() {
        let mut s = Slab::new();
        s.insert(1);
        s.insert(2);
        s.insert(3);
        s.remove(1);
        for (i, v) in s.iter_mut() {
            *v += i * 10;
        }
        assert_eq!(s.iter().collect::<Vec<_>>(), [(0, &1), (2, &23)]);
    }

    #[test]
    fn freed_indices_are_reused_last_first() {
        let mut s = Slab::new();
        assert_eq!(s.insert('a'), Some(0));
        assert_eq!(s.insert('b'), Some(1));
        assert_eq!(s.insert('c'), Some(2));
        assert_eq!(s.remove(0), Some('a'));
        assert_eq!(s.remove(2), Some('c'));
        assert_eq!(s.remove(2), None);
        assert_eq!(s.len(), 1);
        assert_eq!(s.insert('d'), Some(2));
        assert_eq!(s.insert('e'), Some(0));
        assert_eq!(s.insert('f'), Some(3));
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            [(0, &'e'), (1, &'b'), (2, &'d'), (3, &'f')]
        );
        assert_eq!(s.index_bound(), 4);
    }

    #[test]
    fn indices_start_at_the_first() {
        let mut s = Slab::starting_at(1);
        assert_eq!(s.index_bound(), 1);
        assert_eq!(s.get(0), None);
        assert_eq!(s.insert(10), Some(1));
        assert_eq!(s.insert(20), Some(2));
        assert_eq!(s.get(0), None);
        assert_eq!(s.get(2), Some(&20));
        *s.get_mut(1).unwrap() = 11;
        assert_eq!(s.iter().collect::<Vec<_>>(), [(1, &11), (2, &20)]);
        assert!(!s.insert_at(0, 5));
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn insert_within_stops_at_the_limit() {
        let mut s = Slab::starting_at(1);
        assert_eq!(s.insert_within(1, 2), Some(1));
        assert_eq!(s.insert_within(2, 2), Some(2));
        assert_eq!(s.insert_within(3, 2), None);
        s.remove(1);
        assert_eq!(s.insert_within(4, 2), Some(1));
        let mut s = Slab::starting_at(u32::MAX);
        assert_eq!(s.insert(1), Some(u32::MAX));
        assert_eq!(s.insert(2), None);
        assert_eq!(s.iter().collect::<Vec<_>>(), [(u32::MAX, &1)]);
    }

    #[test]
    fn insert_at_and_take_leave_the_free_list_alone() {
        let mut s = Slab::starting_at(1);
        assert!(s.insert_at(3, 'x'));
        assert_eq!(s.len(), 1);
        assert!(s.insert_at(3, 'y'));
        assert_eq!(s.len(), 1);
        assert_eq!(s.get(2), None);
        assert_eq!(s.take(3), Some('y'));
        assert_eq!(s.take(3), None);
        assert!(s.is_empty());
        assert_eq!(s.index_bound(), 4);
    }
}
