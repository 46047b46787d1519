//! Maps whose keys are the dense indices of the store's task table.

/// A key of a [`DenseMap`]: a small index given out by the store's task
/// table, reused once freed.
pub(crate) trait DenseKey: Copy + Eq {
    fn index(self) -> usize;
}

impl DenseKey for weft_tasks::EntryId {
    fn index(self) -> usize {
        weft_tasks::EntryId::index(self) as usize
    }
}

impl DenseKey for weft_tasks::ThreadId {
    fn index(self) -> usize {
        weft_tasks::ThreadId::index(self) as usize
    }
}

/// A map whose keys are dense indices (task-table entries and threads): a
/// vector of slots, so an insert or a look-up is an index, with no hash.
/// Iteration goes by index.
pub(crate) struct DenseMap<K, V> {
    slots: Vec<Option<(K, V)>>,
    len: usize,
}

impl<K, V> Default for DenseMap<K, V> {
    fn default() -> Self {
        DenseMap {
            slots: Vec::new(),
            len: 0,
        }
    }
}

impl<K: DenseKey, V> DenseMap<K, V> {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn get(&self, k: &K) -> Option<&V> {
        match self.slots.get(k.index()) {
            Some(Some((key, v))) if key == k => Some(v),
            _ => None,
        }
    }

    pub(crate) fn get_mut(&mut self, k: &K) -> Option<&mut V> {
        match self.slots.get_mut(k.index()) {
            Some(Some((key, v))) if key == k => Some(v),
            _ => None,
        }
    }

    pub(crate) fn contains_key(&self, k: &K) -> bool {
        self.get(k).is_some()
    }

    /// Sets the value of `k`, returning the one it replaces.
    pub(crate) fn insert(&mut self, k: K, v: V) -> Option<V> {
        let i = k.index();
        if i >= self.slots.len() {
            self.slots.resize_with(i + 1, || None);
        }
        let old = self.slots[i].replace((k, v)).map(|(_, v)| v);
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    pub(crate) fn remove(&mut self, k: &K) -> Option<V> {
        let slot = self.slots.get_mut(k.index())?;
        match slot {
            Some((key, _)) if key == k => {
                self.len -= 1;
                slot.take().map(|(_, v)| v)
            }
            _ => None,
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.slots.iter().filter_map(|s| s.as_ref().map(|(k, v)| (k, v)))
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &K> {
        self.iter().map(|(k, _)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::DenseMap;

    #[test]
    fn dense_maps_insert_find_and_remove() {
        let mut m: DenseMap<weft_tasks::EntryId, u32> = DenseMap::default();
        let id = weft_tasks::EntryId::from_index;
        assert_eq!(m.insert(id(5), 50), None);
        assert_eq!(m.insert(id(1), 10), None);
        assert_eq!(m.insert(id(5), 55), Some(50));
        assert_eq!(m.len(), 2);
        assert_eq!(m.get(&id(5)), Some(&55));
        assert_eq!(m.get(&id(3)), None);
        assert_eq!(m.get(&id(100)), None);
        assert_eq!(m.keys().map(|k| k.index()).collect::<Vec<_>>(), [1, 5]);
        assert_eq!(m.remove(&id(5)), Some(55));
        assert_eq!(m.remove(&id(5)), None);
        assert!(!m.contains_key(&id(5)) && m.contains_key(&id(1)));
        assert_eq!(m.len(), 1);
    }
}
