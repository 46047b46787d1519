//! `ResourceTable`: the host's own state behind the resources it hands out.

use super::Resource;
use std::any::Any;
use weft_slab::Slab;

/// Why a [`ResourceTable`] operation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceTableError {
    /// The table holds as many entries as it can.
    Full,
    /// No entry has the resource's representation.
    NotPresent,
    /// The entry holds a value of another type than the resource's.
    WrongType,
    /// The entry still has children (entries made with
    /// [`ResourceTable::push_child`]) and cannot be deleted.
    HasChildren,
}

impl std::fmt::Display for ResourceTableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ResourceTableError::Full => "resource table has no free keys",
            ResourceTableError::NotPresent => "resource not present",
            ResourceTableError::WrongType => "resource is of another type",
            ResourceTableError::HasChildren => "resource has children",
        })
    }
}

impl std::error::Error for ResourceTableError {}

struct Entry {
    value: Box<dyn Any + Send>,
    parent: Option<u32>,
    children: usize,
}

/// A table of host values of any type, each named by the [`Resource<T>`]
/// it was pushed as: the representation of the resource is its key. As
/// Wasmtime's `ResourceTable`, it is what a host keeps in its store data to
/// implement resource types (`Linker::resource` with
/// `ResourceType::host::<T>()`).
#[derive(Default)]
pub struct ResourceTable {
    entries: Slab<Entry>,
}

impl std::fmt::Debug for ResourceTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceTable").field("len", &self.len()).finish()
    }
}

impl ResourceTable {
    /// An empty table.
    pub fn new() -> ResourceTable {
        ResourceTable::default()
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn insert(&mut self, entry: Entry) -> Result<u32, ResourceTableError> {
        self.entries.insert(entry).ok_or(ResourceTableError::Full)
    }

    /// Stores `value` and returns an owned resource naming it.
    pub fn push<T: Send + 'static>(&mut self, value: T) -> Result<Resource<T>, ResourceTableError> {
        let key = self.insert(Entry {
            value: Box::new(value),
            parent: None,
            children: 0,
        })?;
        Ok(Resource::new_own(key))
    }

    /// Stores `value` as a child of `parent`, which cannot be deleted while
    /// it has children.
    pub fn push_child<T: Send + 'static, U: 'static>(
        &mut self,
        value: T,
        parent: &Resource<U>,
    ) -> Result<Resource<T>, ResourceTableError> {
        let parent_key = parent.rep();
        self.entry_mut(parent_key)?.children += 1;
        let key = self.insert(Entry {
            value: Box::new(value),
            parent: Some(parent_key),
            children: 0,
        });
        if key.is_err() {
            if let Ok(p) = self.entry_mut(parent_key) {
                p.children -= 1;
            }
        }
        Ok(Resource::new_own(key?))
    }

    fn entry(&self, key: u32) -> Result<&Entry, ResourceTableError> {
        self.entries.get(key).ok_or(ResourceTableError::NotPresent)
    }

    fn entry_mut(&mut self, key: u32) -> Result<&mut Entry, ResourceTableError> {
        self.entries.get_mut(key).ok_or(ResourceTableError::NotPresent)
    }

    /// The value of `resource`.
    pub fn get<T: 'static>(&self, resource: &Resource<T>) -> Result<&T, ResourceTableError> {
        self.entry(resource.rep())?
            .value
            .downcast_ref()
            .ok_or(ResourceTableError::WrongType)
    }

    /// The value of `resource`, mutably.
    pub fn get_mut<T: 'static>(&mut self, resource: &Resource<T>) -> Result<&mut T, ResourceTableError> {
        self.entry_mut(resource.rep())?
            .value
            .downcast_mut()
            .ok_or(ResourceTableError::WrongType)
    }

    /// The value of the entry `key`, whatever its type.
    pub fn get_any_mut(&mut self, key: u32) -> Result<&mut dyn Any, ResourceTableError> {
        Ok(&mut *self.entry_mut(key)?.value)
    }

    /// The values of several entries at once, each with the `T` it is
    /// keyed by in `map` (Wasmtime's `iter_entries`): an entry of `map`
    /// whose key names no value comes out as
    /// [`ResourceTableError::NotPresent`]. Entries come in key order.
    pub fn iter_entries<'a, T>(
        &'a mut self,
        map: std::collections::BTreeMap<u32, T>,
    ) -> impl Iterator<Item = (Result<&'a mut dyn Any, ResourceTableError>, T)> {
        let mut map = map;
        let mut found = Vec::with_capacity(map.len());
        for (key, entry) in self.entries.iter_mut() {
            if let Some(t) = map.remove(&key) {
                let value: &'a mut dyn Any = &mut *entry.value;
                found.push((Ok(value), t));
            }
        }
        found.extend(map.into_values().map(|t| (Err(ResourceTableError::NotPresent), t)));
        found.into_iter()
    }

    /// Removes `resource` and returns its value; fails while it has
    /// children.
    pub fn delete<T: 'static>(&mut self, resource: Resource<T>) -> Result<T, ResourceTableError> {
        let key = resource.rep();
        let entry = self.entry(key)?;
        if entry.children != 0 {
            return Err(ResourceTableError::HasChildren);
        }
        if !entry.value.is::<T>() {
            return Err(ResourceTableError::WrongType);
        }
        let entry = self.entries.remove(key).ok_or(ResourceTableError::NotPresent)?;
        if let Some(parent) = entry.parent {
            if let Ok(p) = self.entry_mut(parent) {
                p.children = p.children.saturating_sub(1);
            }
        }
        entry
            .value
            .downcast::<T>()
            .map(|b| *b)
            .map_err(|_| ResourceTableError::WrongType)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct File(&'static str);
    struct Dir;

    #[test]
    fn push_get_delete() {
        let mut table = ResourceTable::new();
        let f = table.push(File("a")).unwrap();
        assert_eq!(table.get(&f).unwrap().0, "a");
        table.get_mut(&f).unwrap().0 = "b";
        // A resource of another type with the same key is refused.
        let wrong = Resource::<Dir>::new_own(f.rep());
        assert_eq!(table.get(&wrong).err(), Some(ResourceTableError::WrongType));
        assert_eq!(table.delete(f).unwrap().0, "b");
        assert_eq!(table.get(&f).err(), Some(ResourceTableError::NotPresent));
        assert!(table.is_empty());
    }

    #[test]
    fn several_entries_at_once() {
        let mut table = ResourceTable::new();
        let a = table.push(File("a")).unwrap();
        let b = table.push(File("b")).unwrap();
        let map: std::collections::BTreeMap<u32, char> = [(b.rep(), 'b'), (a.rep(), 'a'), (99, 'x')].into();
        let mut seen = Vec::new();
        for (entry, tag) in table.iter_entries(map) {
            match entry {
                Ok(v) => {
                    let f = v.downcast_mut::<File>().unwrap();
                    f.0 = if tag == 'a' { "A" } else { "B" };
                    seen.push(tag);
                }
                Err(e) => {
                    assert_eq!(e, ResourceTableError::NotPresent);
                    seen.push(tag);
                }
            }
        }
        assert_eq!(seen, ['a', 'b', 'x']);
        assert_eq!(table.get(&a).unwrap().0, "A");
        assert!(table.get_any_mut(b.rep()).unwrap().is::<File>());
        assert_eq!(table.get_any_mut(99).err(), Some(ResourceTableError::NotPresent));
    }

    #[test]
    fn children_keep_their_parent() {
        let mut table = ResourceTable::new();
        let d = table.push(Dir).unwrap();
        let f = table.push_child(File("x"), &d).unwrap();
        assert_eq!(table.delete(d).err(), Some(ResourceTableError::HasChildren));
        table.delete(f).unwrap();
        table.delete(d).unwrap();
        assert_eq!(table.len(), 0);
    }
}
