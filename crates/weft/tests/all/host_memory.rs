//! `Config::with_host_memory`: linear memories live in memory an embedder's
//! `MemoryCreator` provides, data segments are copied into it, and since it
//! has no guard region every access is bounds-checked.

#![allow(
    unsafe_code,
    reason = "MemoryCreator and LinearMemory are unsafe traits: the test implements them over memory it allocates"
)]

use std::alloc::Layout;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use weft::*;

/// A memory reserved whole at creation on the heap.
struct HeapMemory {
    base: *mut u8,
    layout: Layout,
    size: usize,
}

// SAFETY: the allocation is owned by the value.
unsafe impl Send for HeapMemory {}
// SAFETY: as for `Send`.
unsafe impl Sync for HeapMemory {}

// SAFETY: `base .. base + size` lies in the zeroed allocation of
// `layout.size()` bytes, which never moves and is freed on drop; growth past
// it fails.
unsafe impl LinearMemory for HeapMemory {
    fn byte_size(&self) -> usize {
        self.size
    }
    fn byte_capacity(&self) -> usize {
        self.layout.size()
    }
    fn grow_to(&mut self, new_size: usize) -> Result<()> {
        ensure!(new_size <= self.layout.size(), "past the reservation");
        self.size = new_size;
        Ok(())
    }
    fn as_ptr(&self) -> *mut u8 {
        self.base
    }
}

impl Drop for HeapMemory {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `new_memory`.
        unsafe { std::alloc::dealloc(self.base, self.layout) }
    }
}

/// What a creator was asked: the type's minimum in pages, then the minimum,
/// maximum, reservation and guard in bytes.
type Asked = (u64, usize, Option<usize>, Option<usize>, usize);

/// A creator that remembers what it was asked and where its memories are.
#[derive(Default)]
struct Creator {
    made: AtomicUsize,
    asked: Mutex<Vec<Asked>>,
    bases: Mutex<Vec<usize>>,
    fail: bool,
}

// SAFETY: each memory reserves `reserved_size_in_bytes` (or the maximum, or
// 4 pages) up front and never moves; the creator is asked for no guard.
unsafe impl MemoryCreator for Creator {
    fn new_memory(
        &self,
        ty: MemoryType,
        minimum: usize,
        maximum: Option<usize>,
        reserved: Option<usize>,
        guard: usize,
    ) -> std::result::Result<Box<dyn LinearMemory>, String> {
        if self.fail {
            return Err("the host is out of memories".to_string());
        }
        self.made.fetch_add(1, Ordering::SeqCst);
        self.asked
            .lock()
            .unwrap()
            .push((ty.minimum(), minimum, maximum, reserved, guard));
        let capacity = reserved.or(maximum).unwrap_or(4 << 16).max(minimum).max(1);
        let layout = Layout::from_size_align(capacity, 16).map_err(|e| e.to_string())?;
        // SAFETY: `layout` has a non-zero size.
        let base = unsafe { std::alloc::alloc_zeroed(layout) };
        if base.is_null() {
            return Err("out of memory".to_string());
        }
        self.bases.lock().unwrap().push(base as usize);
        Ok(Box::new(HeapMemory {
            base,
            layout,
            size: minimum,
        }))
    }
}

const MODULE: &str = r#"(module
  (memory (export "mem") 1 3)
  (data (i32.const 10) "hi")
  (func (export "load") (param i32) (result i32) (i32.load8_u (local.get 0)))
  (func (export "store") (param i32 i32) (i32.store8 (local.get 0) (local.get 1)))
  (func (export "load_far") (param i32) (result i32) (i32.load8_u offset=65535 (local.get 0)))
  (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0))))"#;

fn engine(creator: Arc<Creator>) -> Result<Engine> {
    let mut config = Config::new();
    config.with_host_memory(creator);
    Engine::new(&config)
}

#[test]
fn memories_live_in_the_creators_memory() -> Result<()> {
    let creator = Arc::new(Creator::default());
    let engine = engine(creator.clone())?;
    let module = Module::new(&engine, wat::parse_str(MODULE)?)?;
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[])?;
    assert_eq!(creator.made.load(Ordering::SeqCst), 1);
    assert_eq!(
        creator.asked.lock().unwrap()[0],
        (1, 65536, Some(3 * 65536), Some(3 * 65536), 0)
    );
    let mem = instance.get_memory(&mut store, "mem").unwrap();
    assert_eq!(mem.data_ptr(&store) as usize, creator.bases.lock().unwrap()[0]);
    // The data segment was copied in.
    let load = instance.get_typed_func::<i32, i32>(&mut store, "load")?;
    let store8 = instance.get_typed_func::<(i32, i32), ()>(&mut store, "store")?;
    let load_far = instance.get_typed_func::<i32, i32>(&mut store, "load_far")?;
    let grow = instance.get_typed_func::<i32, i32>(&mut store, "grow")?;
    assert_eq!(load.call(&mut store, 10)?, i32::from(b'h'));
    store8.call(&mut store, (100, 7))?;
    assert_eq!(mem.data(&store)[100], 7);
    // Just past the end traps, though the creator's allocation is larger:
    // every access is checked.
    assert_eq!(load.call(&mut store, 65535)?, 0);
    let trap = load.call(&mut store, 65536).unwrap_err();
    assert_eq!(trap.downcast_ref::<Trap>(), Some(&Trap::MemoryOutOfBounds), "{trap:?}");
    let trap = load_far.call(&mut store, 1).unwrap_err();
    assert_eq!(trap.downcast_ref::<Trap>(), Some(&Trap::MemoryOutOfBounds), "{trap:?}");
    assert!(store8.call(&mut store, (-1, 1)).is_err());
    // Growing uses the reservation and keeps the base.
    assert_eq!(grow.call(&mut store, 1)?, 1);
    assert_eq!(load_far.call(&mut store, 1)?, 0);
    assert_eq!(mem.data_ptr(&store) as usize, creator.bases.lock().unwrap()[0]);
    assert_eq!(grow.call(&mut store, 2)?, -1);
    assert_eq!(mem.grow(&mut store, 1)?, 2);
    assert_eq!(mem.data_size(&store), 3 * 65536);

    // A memory made by the host is the creator's too.
    let m = Memory::new(&mut store, MemoryType::new(2, Some(2)))?;
    assert_eq!(creator.made.load(Ordering::SeqCst), 2);
    assert_eq!(m.data_ptr(&store) as usize, creator.bases.lock().unwrap()[1]);
    assert_eq!(m.data_size(&store), 2 * 65536);
    Ok(())
}

#[test]
fn a_failing_creator_fails_instantiation() -> Result<()> {
    let creator = Arc::new(Creator {
        fail: true,
        ..Creator::default()
    });
    let engine = engine(creator)?;
    let module = Module::new(&engine, wat::parse_str(MODULE)?)?;
    let mut store = Store::new(&engine, ());
    let err = Instance::new(&mut store, &module, &[]).unwrap_err();
    assert!(format!("{err:#}").contains("the host is out of memories"), "{err:#}");
    Ok(())
}
