//! References of `wasm.h`: `wasm_ref_t` and every object that is one
//! (functions, globals, tables, memories, externs, instances, modules,
//! traps, foreign objects), with their host info.
//!
//! All of them are one Rust type, [`wasm_ref_t`], so that `wasm_X_as_ref`,
//! `wasm_X_as_extern` and their inverses return the same pointer. The
//! inverses check the kind and return null for another.
//!
//! Host info belongs to what a reference points to, not to the reference:
//! copies and references coming back out of wasm see the same host info.
//! Store objects keep theirs in the store (finalized when it is deleted);
//! modules, traps and foreign objects in their shared part.

use crate::guard;
use crate::host_env::Finalizer;
use crate::store::StoreShared;
use std::cell::RefCell;
use std::ffi::c_void;
use std::rc::{Rc, Weak};
use weft::{Func, Global, Instance, Memory, Table, Tag};

/// What a store object is (also the key of its host info).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Entity {
    /// A function.
    Func(Func),
    /// A global.
    Global(Global),
    /// A table.
    Table(Table),
    /// A memory.
    Memory(Memory),
    /// An instance.
    Instance(Instance),
    /// A tag.
    Tag(Tag),
}

/// Host info with its finalizer, run when it is dropped.
pub struct HostInfo {
    pub(crate) data: *mut c_void,
    pub(crate) finalizer: Finalizer,
}

impl Drop for HostInfo {
    fn drop(&mut self) {
        if let Some(f) = self.finalizer {
            // SAFETY: the finalizer the host gave with this data; it runs
            // once, when the info is replaced or its owner goes away.
            unsafe { f(self.data) }
        }
    }
}

/// The shared part of a foreign object.
pub struct ForeignShared {
    pub(crate) host_info: RefCell<Option<HostInfo>>,
}

/// The shared part of a module.
pub struct ModuleShared {
    pub(crate) module: weft::Module,
    pub(crate) host_info: RefCell<Option<HostInfo>>,
}

/// The shared part of a trap.
pub struct TrapShared {
    pub(crate) error: anyhow::Error,
    pub(crate) host_info: RefCell<Option<HostInfo>>,
}

/// What a reference points to.
#[derive(Clone)]
pub enum RefKind {
    /// An object of a store.
    Entity(Rc<StoreShared>, Entity),
    /// A module.
    Module(Rc<ModuleShared>),
    /// A trap.
    Trap(Rc<TrapShared>),
    /// A foreign object.
    Foreign(Rc<ForeignShared>),
}

/// `wasm_ref_t`, and every object of `wasm.h` that is a reference.
#[derive(Clone)]
pub struct wasm_ref_t {
    pub(crate) r: RefKind,
}

/// `wasm_func_t`.
pub type wasm_func_t = wasm_ref_t;
/// `wasm_global_t`.
pub type wasm_global_t = wasm_ref_t;
/// `wasm_table_t`.
pub type wasm_table_t = wasm_ref_t;
/// `wasm_memory_t`.
pub type wasm_memory_t = wasm_ref_t;
/// `wasm_extern_t`.
pub type wasm_extern_t = wasm_ref_t;
/// `wasm_instance_t`.
pub type wasm_instance_t = wasm_ref_t;
/// `wasm_module_t`.
pub type wasm_module_t = wasm_ref_t;
/// `wasm_trap_t`.
pub type wasm_trap_t = wasm_ref_t;
/// `wasm_foreign_t`.
pub type wasm_foreign_t = wasm_ref_t;

impl wasm_ref_t {
    /// A reference to a store object.
    pub(crate) fn entity(store: &Rc<StoreShared>, e: Entity) -> Box<wasm_ref_t> {
        Box::new(wasm_ref_t {
            r: RefKind::Entity(store.clone(), e),
        })
    }

    /// A new trap for `error`.
    pub(crate) fn trap(error: anyhow::Error) -> Box<wasm_ref_t> {
        Box::new(wasm_ref_t {
            r: RefKind::Trap(Rc::new(TrapShared {
                error,
                host_info: RefCell::new(None),
            })),
        })
    }

    /// The store object, if this is one.
    pub(crate) fn as_entity(&self) -> Option<(&Rc<StoreShared>, Entity)> {
        match &self.r {
            RefKind::Entity(s, e) => Some((s, *e)),
            _ => None,
        }
    }

    /// The function, if this is one.
    pub(crate) fn func(&self) -> Option<(&Rc<StoreShared>, Func)> {
        match self.as_entity()? {
            (s, Entity::Func(f)) => Some((s, f)),
            _ => None,
        }
    }

    /// The global, if this is one.
    pub(crate) fn global(&self) -> Option<(&Rc<StoreShared>, Global)> {
        match self.as_entity()? {
            (s, Entity::Global(g)) => Some((s, g)),
            _ => None,
        }
    }

    /// The table, if this is one.
    pub(crate) fn table(&self) -> Option<(&Rc<StoreShared>, Table)> {
        match self.as_entity()? {
            (s, Entity::Table(t)) => Some((s, t)),
            _ => None,
        }
    }

    /// The memory, if this is one.
    pub(crate) fn memory(&self) -> Option<(&Rc<StoreShared>, Memory)> {
        match self.as_entity()? {
            (s, Entity::Memory(m)) => Some((s, m)),
            _ => None,
        }
    }

    /// The instance, if this is one.
    pub(crate) fn instance(&self) -> Option<(&Rc<StoreShared>, Instance)> {
        match self.as_entity()? {
            (s, Entity::Instance(i)) => Some((s, i)),
            _ => None,
        }
    }

    /// The module, if this is one.
    pub(crate) fn module(&self) -> Option<&Rc<ModuleShared>> {
        match &self.r {
            RefKind::Module(m) => Some(m),
            _ => None,
        }
    }

    /// The trap, if this is one.
    pub(crate) fn trap_shared(&self) -> Option<&Rc<TrapShared>> {
        match &self.r {
            RefKind::Trap(t) => Some(t),
            _ => None,
        }
    }

    /// Whether `self` and `other` point to the same thing.
    pub(crate) fn same(&self, other: &wasm_ref_t) -> bool {
        match (&self.r, &other.r) {
            (RefKind::Entity(s1, e1), RefKind::Entity(s2, e2)) => Rc::ptr_eq(s1, s2) && e1 == e2,
            (RefKind::Module(a), RefKind::Module(b)) => Rc::ptr_eq(a, b),
            (RefKind::Trap(a), RefKind::Trap(b)) => Rc::ptr_eq(a, b),
            (RefKind::Foreign(a), RefKind::Foreign(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// The host info's data.
    pub(crate) fn host_info(&self) -> *mut c_void {
        let cell = match &self.r {
            RefKind::Entity(s, e) => {
                // SAFETY: a context used only inside this function.
                return unsafe { s.ctx() }
                    .data()
                    .host_info
                    .get(e)
                    .map_or(std::ptr::null_mut(), |h| h.data);
            }
            RefKind::Module(m) => &m.host_info,
            RefKind::Trap(t) => &t.host_info,
            RefKind::Foreign(f) => &f.host_info,
        };
        cell.borrow().as_ref().map_or(std::ptr::null_mut(), |h| h.data)
    }

    /// Replaces the host info (the old one's finalizer runs).
    pub(crate) fn set_host_info(&self, info: HostInfo) {
        let old = match &self.r {
            RefKind::Entity(s, e) => {
                // SAFETY: a context used only inside this statement.
                unsafe { s.ctx() }.data_mut().host_info.insert(*e, info)
            }
            RefKind::Module(m) => m.host_info.borrow_mut().replace(info),
            RefKind::Trap(t) => t.host_info.borrow_mut().replace(info),
            RefKind::Foreign(f) => f.host_info.borrow_mut().replace(info),
        };
        // The finalizer may call back into the C API: run it with no borrow.
        drop(old);
    }
}

/// What an `externref` made from a `wasm_ref_t` holds: the reference, with
/// store objects held weakly so that a store does not keep itself alive.
pub(crate) enum ExternPayload {
    Entity(Weak<StoreShared>, Entity),
    Other(RefKind),
}

impl ExternPayload {
    /// The payload of `r`.
    pub(crate) fn new(r: &wasm_ref_t) -> ExternPayload {
        match &r.r {
            RefKind::Entity(s, e) => ExternPayload::Entity(Rc::downgrade(s), *e),
            other => ExternPayload::Other(other.clone()),
        }
    }

    /// The reference back (None if its store is gone).
    pub(crate) fn to_ref(&self) -> Option<Box<wasm_ref_t>> {
        let r = match self {
            ExternPayload::Entity(s, e) => RefKind::Entity(s.upgrade()?, *e),
            ExternPayload::Other(k) => k.clone(),
        };
        Some(Box::new(wasm_ref_t { r }))
    }
}

/// Declares the reference functions of `wasm.h` for one object kind.
macro_rules! declare_ref {
    ($name:literal, $check:expr,
     $delete:ident, $copy:ident, $same:ident, $get_hi:ident, $set_hi:ident, $set_hi_fin:ident
     $(, $as_ref:ident, $ref_as:ident, $as_ref_const:ident, $ref_as_const:ident)?) => {
        #[doc = concat!("Deletes a `wasm_", $name, "_t` reference.")]
        #[no_mangle]
        pub extern "C" fn $delete(r: Option<Box<$crate::r#ref::wasm_ref_t>>) {
            $crate::guard(|| (), || drop(r))
        }

        #[doc = concat!("A new reference to the same `wasm_", $name, "_t`.")]
        #[no_mangle]
        pub extern "C" fn $copy(r: Option<&$crate::r#ref::wasm_ref_t>) -> Option<Box<$crate::r#ref::wasm_ref_t>> {
            $crate::guard(|| None, || r.map(|r| Box::new(r.clone())))
        }

        #[doc = concat!("Whether two `wasm_", $name, "_t` references point to the same object.")]
        #[no_mangle]
        pub extern "C" fn $same(a: Option<&$crate::r#ref::wasm_ref_t>, b: Option<&$crate::r#ref::wasm_ref_t>) -> bool {
            $crate::guard(|| false, || match (a, b) {
                (Some(a), Some(b)) => a.same(b),
                (None, None) => true,
                _ => false,
            })
        }

        #[doc = concat!("The host info of a `wasm_", $name, "_t`.")]
        #[no_mangle]
        pub extern "C" fn $get_hi(r: Option<&$crate::r#ref::wasm_ref_t>) -> *mut std::ffi::c_void {
            $crate::guard(std::ptr::null_mut, || r.map_or(std::ptr::null_mut(), |r| r.host_info()))
        }

        #[doc = concat!("Sets the host info of a `wasm_", $name, "_t`.")]
        #[no_mangle]
        pub extern "C" fn $set_hi(r: Option<&$crate::r#ref::wasm_ref_t>, info: *mut std::ffi::c_void) {
            $set_hi_fin(r, info, None)
        }

        #[doc = concat!("Sets the host info of a `wasm_", $name, "_t`, with a finalizer.")]
        #[no_mangle]
        pub extern "C" fn $set_hi_fin(
            r: Option<&$crate::r#ref::wasm_ref_t>,
            info: *mut std::ffi::c_void,
            finalizer: $crate::host_env::Finalizer,
        ) {
            $crate::guard(|| (), || {
                if let Some(r) = r {
                    r.set_host_info($crate::r#ref::HostInfo { data: info, finalizer });
                }
            })
        }

        $(
            #[doc = concat!("The `wasm_", $name, "_t` as a reference (the same pointer).")]
            #[no_mangle]
            pub extern "C" fn $as_ref(r: *mut $crate::r#ref::wasm_ref_t) -> *mut $crate::r#ref::wasm_ref_t {
                r
            }

            #[doc = concat!("The reference as a `wasm_", $name, "_t` (null if it is not one).")]
            #[no_mangle]
            pub extern "C" fn $ref_as(r: Option<&mut $crate::r#ref::wasm_ref_t>) -> *mut $crate::r#ref::wasm_ref_t {
                match r {
                    Some(r) if ($check)(&*r) => r,
                    _ => std::ptr::null_mut(),
                }
            }

            #[doc = concat!("The `wasm_", $name, "_t` as a reference (the same pointer).")]
            #[no_mangle]
            pub extern "C" fn $as_ref_const(r: *const $crate::r#ref::wasm_ref_t) -> *const $crate::r#ref::wasm_ref_t {
                r
            }

            #[doc = concat!("The reference as a `wasm_", $name, "_t` (null if it is not one).")]
            #[no_mangle]
            pub extern "C" fn $ref_as_const(r: Option<&$crate::r#ref::wasm_ref_t>) -> *const $crate::r#ref::wasm_ref_t {
                match r {
                    Some(r) if ($check)(r) => r,
                    _ => std::ptr::null(),
                }
            }
        )?
    };
}

declare_ref!(
    "ref",
    |_: &wasm_ref_t| true,
    wasm_ref_delete,
    wasm_ref_copy,
    wasm_ref_same,
    wasm_ref_get_host_info,
    wasm_ref_set_host_info,
    wasm_ref_set_host_info_with_finalizer
);

declare_ref!(
    "foreign",
    |r: &wasm_ref_t| matches!(r.r, RefKind::Foreign(_)),
    wasm_foreign_delete,
    wasm_foreign_copy,
    wasm_foreign_same,
    wasm_foreign_get_host_info,
    wasm_foreign_set_host_info,
    wasm_foreign_set_host_info_with_finalizer,
    wasm_foreign_as_ref,
    wasm_ref_as_foreign,
    wasm_foreign_as_ref_const,
    wasm_ref_as_foreign_const
);

declare_ref!(
    "trap",
    |r: &wasm_ref_t| matches!(r.r, RefKind::Trap(_)),
    wasm_trap_delete,
    wasm_trap_copy,
    wasm_trap_same,
    wasm_trap_get_host_info,
    wasm_trap_set_host_info,
    wasm_trap_set_host_info_with_finalizer,
    wasm_trap_as_ref,
    wasm_ref_as_trap,
    wasm_trap_as_ref_const,
    wasm_ref_as_trap_const
);

declare_ref!(
    "module",
    |r: &wasm_ref_t| matches!(r.r, RefKind::Module(_)),
    wasm_module_delete,
    wasm_module_copy,
    wasm_module_same,
    wasm_module_get_host_info,
    wasm_module_set_host_info,
    wasm_module_set_host_info_with_finalizer,
    wasm_module_as_ref,
    wasm_ref_as_module,
    wasm_module_as_ref_const,
    wasm_ref_as_module_const
);

declare_ref!(
    "instance",
    |r: &wasm_ref_t| r.instance().is_some(),
    wasm_instance_delete,
    wasm_instance_copy,
    wasm_instance_same,
    wasm_instance_get_host_info,
    wasm_instance_set_host_info,
    wasm_instance_set_host_info_with_finalizer,
    wasm_instance_as_ref,
    wasm_ref_as_instance,
    wasm_instance_as_ref_const,
    wasm_ref_as_instance_const
);

declare_ref!(
    "func",
    |r: &wasm_ref_t| r.func().is_some(),
    wasm_func_delete,
    wasm_func_copy,
    wasm_func_same,
    wasm_func_get_host_info,
    wasm_func_set_host_info,
    wasm_func_set_host_info_with_finalizer,
    wasm_func_as_ref,
    wasm_ref_as_func,
    wasm_func_as_ref_const,
    wasm_ref_as_func_const
);

declare_ref!(
    "global",
    |r: &wasm_ref_t| r.global().is_some(),
    wasm_global_delete,
    wasm_global_copy,
    wasm_global_same,
    wasm_global_get_host_info,
    wasm_global_set_host_info,
    wasm_global_set_host_info_with_finalizer,
    wasm_global_as_ref,
    wasm_ref_as_global,
    wasm_global_as_ref_const,
    wasm_ref_as_global_const
);

declare_ref!(
    "table",
    |r: &wasm_ref_t| r.table().is_some(),
    wasm_table_delete,
    wasm_table_copy,
    wasm_table_same,
    wasm_table_get_host_info,
    wasm_table_set_host_info,
    wasm_table_set_host_info_with_finalizer,
    wasm_table_as_ref,
    wasm_ref_as_table,
    wasm_table_as_ref_const,
    wasm_ref_as_table_const
);

declare_ref!(
    "memory",
    |r: &wasm_ref_t| r.memory().is_some(),
    wasm_memory_delete,
    wasm_memory_copy,
    wasm_memory_same,
    wasm_memory_get_host_info,
    wasm_memory_set_host_info,
    wasm_memory_set_host_info_with_finalizer,
    wasm_memory_as_ref,
    wasm_ref_as_memory,
    wasm_memory_as_ref_const,
    wasm_ref_as_memory_const
);

declare_ref!(
    "extern",
    |r: &wasm_ref_t| matches!(
        r.as_entity(),
        Some((
            _,
            Entity::Func(_) | Entity::Global(_) | Entity::Table(_) | Entity::Memory(_) | Entity::Tag(_)
        ))
    ),
    wasm_extern_delete,
    wasm_extern_copy,
    wasm_extern_same,
    wasm_extern_get_host_info,
    wasm_extern_set_host_info,
    wasm_extern_set_host_info_with_finalizer,
    wasm_extern_as_ref,
    wasm_ref_as_extern,
    wasm_extern_as_ref_const,
    wasm_ref_as_extern_const
);

/// A new foreign object (its store is not needed: it belongs to none).
#[no_mangle]
pub extern "C" fn wasm_foreign_new(_store: Option<&crate::store::wasm_store_t>) -> Option<Box<wasm_foreign_t>> {
    guard(
        || None,
        || {
            Some(Box::new(wasm_ref_t {
                r: RefKind::Foreign(Rc::new(ForeignShared {
                    host_info: RefCell::new(None),
                })),
            }))
        },
    )
}
