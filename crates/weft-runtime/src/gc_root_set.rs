//! The data of a store's roots (see `gc_roots.rs`, which reads them):
//! kept apart so that the store context can hold it without importing the
//! collector.

use crate::table::Table;
use std::any::Any;
use std::cell::{Cell, RefCell, UnsafeCell};

/// Host data of an extern reference.
pub type ExternData = Box<dyn Any + Send + Sync>;

/// A store's extern references: slot `i` is extern reference word `i + 1`.
#[derive(Default)]
pub(crate) struct ExternRefs {
    pub(crate) slots: Vec<Option<ExternData>>,
    pub(crate) free: Vec<usize>,
}

/// What the collector of a store finds roots in, besides the stack.
#[derive(Default)]
pub(crate) struct GcRoots {
    /// Extern references (freed by collections; only touched through
    /// `&VMStoreContext` by code that never keeps a reference across a
    /// collection, see `externref`).
    pub(crate) externs: UnsafeCell<ExternRefs>,
    /// Reference words the host holds (`Rooted` handles): a LIFO list that
    /// root scopes truncate.
    pub(crate) host: RefCell<Vec<u64>>,
    /// Reference words of the host's owned handles (`OwnedRooted`), each
    /// rooted while its liveness token has a strong reference.
    pub(crate) owned: RefCell<Vec<(std::sync::Weak<()>, u64)>>,
    /// The first 8 bytes of every global of the store (boxed by the
    /// store, never moved).
    pub(crate) globals: RefCell<Vec<*const u64>>,
    /// Every table of the store holding extern or GC references.
    pub(crate) tables: RefCell<Vec<*const Table>>,
    /// The element segments of every instance of the store.
    pub(crate) elements: RefCell<Vec<*const Vec<Vec<usize>>>>,
    /// The exit frame pointer and pc of each wasm activation below the
    /// current one that called out to the host, which called wasm again.
    pub(crate) outer_exits: RefCell<Vec<(usize, usize)>>,
    /// Whether a collection is running (allocations made meanwhile, by
    /// destructors of host data, must not start another).
    pub(crate) collecting: Cell<bool>,
    /// The store uses the null collector: nothing is ever collected.
    pub(crate) null_collector: Cell<bool>,
}

impl std::fmt::Debug for GcRoots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GcRoots")
            .field("host", &self.host.borrow().len())
            .finish_non_exhaustive()
    }
}
