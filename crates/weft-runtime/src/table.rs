//! Tables of references. Elements are pointer-sized words: a
//! `*const VMFuncRef` for function references, an opaque handle for extern
//! references, 0 for null.

use weft_environ::WasmRefType;

/// The largest number of elements a table may grow to.
pub const MAX_TABLE_ELEMENTS: u64 = 10_000_000;

/// What compiled code reads: `{ base, current_elements }`.
#[repr(C)]
#[derive(Debug)]
pub struct VMTableDefinition {
    /// The first element.
    pub base: *mut usize,
    /// The number of elements.
    pub current_elements: usize,
}

/// A table: its elements as the words compiled code reads, and its limits.
#[derive(Debug)]
pub struct Table {
    elements: Vec<usize>,
    definition: Box<VMTableDefinition>,
    element_type: WasmRefType,
    maximum: u64,
    declared_maximum: Option<u64>,
}

// SAFETY: the definition only points into our own vector.
unsafe impl Send for Table {}
// SAFETY: as for `Send`; mutation requires `&mut self`.
unsafe impl Sync for Table {}

impl Table {
    #[doc(hidden)]
    /// A table of `minimum` elements set to `init`.
    pub fn new(element_type: WasmRefType, minimum: u64, maximum: Option<u64>, init: usize) -> anyhow::Result<Table> {
        let declared_maximum = maximum;
        let maximum = maximum.unwrap_or(MAX_TABLE_ELEMENTS).min(MAX_TABLE_ELEMENTS);
        if minimum > maximum {
            anyhow::bail!("table minimum size of {minimum} elements exceeds the limit of {maximum} elements");
        }
        let mut elements = vec![init; minimum as usize];
        let definition = Box::new(VMTableDefinition {
            base: elements.as_mut_ptr(),
            current_elements: elements.len(),
        });
        Ok(Table {
            elements,
            definition,
            element_type,
            maximum,
            declared_maximum,
        })
    }

    /// The type of the elements.
    pub fn element_type(&self) -> WasmRefType {
        self.element_type
    }

    /// The number of elements.
    pub fn size(&self) -> u64 {
        self.elements.len() as u64
    }

    /// The largest size this table may grow to.
    pub fn maximum(&self) -> u64 {
        self.maximum
    }

    /// The maximum the table declares, in elements.
    pub fn declared_maximum(&self) -> Option<u64> {
        self.declared_maximum
    }

    /// The element at `index`.
    pub fn get(&self, index: u64) -> Option<usize> {
        self.elements.get(usize::try_from(index).ok()?).copied()
    }

    #[doc(hidden)]
    /// Sets the element at `index`; `false` when out of bounds.
    pub fn set(&mut self, index: u64, value: usize) -> bool {
        match usize::try_from(index).ok().and_then(|i| self.elements.get_mut(i)) {
            Some(slot) => {
                *slot = value;
                true
            }
            None => false,
        }
    }

    /// The elements.
    pub fn elements(&self) -> &[usize] {
        &self.elements
    }

    #[doc(hidden)]
    /// The elements, writable.
    pub fn elements_mut(&mut self) -> &mut [usize] {
        &mut self.elements
    }

    #[doc(hidden)]
    /// Grows by `delta` elements set to `init`; returns the old size, or
    /// `None` when the table cannot grow that far.
    pub fn grow(&mut self, delta: u64, init: usize) -> Option<u64> {
        let old = self.size();
        let new = old.checked_add(delta)?;
        if new > self.maximum {
            return None;
        }
        self.elements.resize(new as usize, init);
        self.definition.base = self.elements.as_mut_ptr();
        self.definition.current_elements = self.elements.len();
        Some(old)
    }

    /// The address of the definition read by compiled code.
    pub(crate) fn definition_ptr(&mut self) -> *mut VMTableDefinition {
        &mut *self.definition
    }
}
