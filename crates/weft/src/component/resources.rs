//! Resources: runtime resource types, handle tables and the values that
//! carry resources across the API ([`ResourceAny`], [`Resource`]).
//!
//! Each component instance of a plan has a handle table (`Table` of
//! CanonicalABI.md): index 0 is reserved, freed slots are reused, and every
//! misuse (a wrong index, a handle of another type, dropping an `own` that
//! is lent out, a borrow left at the end of a call) is a trap. The host has
//! one table per store for the `own` and `borrow` values it holds.

// Import loop kept on purpose: `ResourceAny::resource_drop` and
// `ResourceAny`s made before they have a type reach the store's handle
// tables (handles.rs) and the destructor call (call.rs), which move
// `ResourceAny`s.
use super::call::drop_host_resource;
use super::handles::unresolved;
use super::trap;
use super::types::{ResourceKind, ResourceType};
use std::marker::PhantomData;
use weft_slab::Slab;

/// The largest index of a handle table (`Table.MAX_LENGTH`).
const MAX_HANDLES: u32 = (1 << 28) - 1;

/// One element of a handle table (`ResourceHandle`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Handle {
    pub(crate) ty: ResourceType,
    pub(crate) rep: u32,
    pub(crate) own: bool,
    /// For a borrow: the call that lent it (a call depth of the store).
    pub(crate) borrow_scope: Option<u32>,
    /// How many borrows of this handle are live.
    pub(crate) num_lends: u32,
    /// Made by the host from a `Resource<T>` or `ResourceDynamic`
    /// (`try_into_resource_any`) rather than lifted from a guest: dropped
    /// by the host, it runs no destructor (as in Wasmtime, where only a
    /// handle that came from a guest carries one).
    pub(crate) host_made: bool,
    /// Made by `Lower` for a `Val` of one call (a `Resource<T>` among a
    /// typed call's parameters or a typed host function's results): no
    /// `ResourceAny` of it is the host's, so what the call leaves of it in
    /// the host table (a `borrow`, or an `own` the call failed before
    /// taking) is removed when the call ends (`handles::release_lowered`).
    pub(crate) lowered: bool,
}

impl Handle {
    /// A new `own` handle of the resource `rep` of type `ty`, neither lent
    /// nor made by the host.
    pub(crate) fn owned(ty: ResourceType, rep: u32) -> Handle {
        Handle {
            ty,
            rep,
            own: true,
            borrow_scope: None,
            num_lends: 0,
            host_made: false,
            lowered: false,
        }
    }
}

/// The handle table of one component instance (`Table` of CanonicalABI.md):
/// index 0 is never used, freed indices are reused.
#[derive(Debug, Clone)]
pub(crate) struct HandleTable {
    slots: Slab<Handle>,
}

impl Default for HandleTable {
    fn default() -> Self {
        HandleTable {
            slots: Slab::starting_at(1),
        }
    }
}

impl HandleTable {
    /// `Table.add` (with the async ABI, the task table gives out the
    /// indices: see [`Handles`]).
    #[cfg(not(feature = "component-model-async"))]
    pub(crate) fn add(&mut self, h: Handle) -> crate::Result<u32> {
        self.slots
            .insert_within(h, MAX_HANDLES)
            .ok_or_else(|| trap("the handle table is full"))
    }

    /// `Table.get`.
    pub(crate) fn get(&self, i: u32) -> crate::Result<&Handle> {
        self.find(i)
            .ok_or_else(|| trap(format_args!("unknown handle index {i}")))
    }

    /// The handle at `i`, if there is one: for callers to whom an empty
    /// index is no error (building the error costs a backtrace capture).
    pub(crate) fn find(&self, i: u32) -> Option<&Handle> {
        self.slots.get(i)
    }

    pub(crate) fn get_mut(&mut self, i: u32) -> crate::Result<&mut Handle> {
        self.slots
            .get_mut(i)
            .ok_or_else(|| trap(format_args!("unknown handle index {i}")))
    }

    /// The handle at `i`, which must be of the resource type `ty`.
    pub(crate) fn get_of(&self, i: u32, ty: ResourceType) -> crate::Result<Handle> {
        let h = *self.get(i)?;
        if h.ty != ty {
            // Wasmtime's wording: which kind of resource was expected, and
            // which was found ("a different" one when both are of a kind).
            let found = if h.ty.is_host() == ty.is_host() {
                format!("a different {}", h.ty.kind_name())
            } else {
                h.ty.kind_name().to_string()
            };
            return Err(trap(format_args!(
                "handle index {i} used with the wrong type, expected {} but found {found}",
                ty.kind_name()
            )));
        }
        Ok(h)
    }

    /// Puts `h` at index `i`, given out by the instance's index space
    /// (which never gives out 0).
    #[cfg(feature = "component-model-async")]
    fn put(&mut self, i: u32, h: Handle) -> crate::Result<()> {
        if self.slots.insert_at(i, h) {
            Ok(())
        } else {
            Err(trap(format_args!("unknown handle index {i}")))
        }
    }

    /// Takes the handle at `i` out, leaving its index to the index space.
    #[cfg(feature = "component-model-async")]
    fn take(&mut self, i: u32) -> crate::Result<Handle> {
        self.slots
            .take(i)
            .ok_or_else(|| trap(format_args!("unknown handle index {i}")))
    }

    /// `Table.remove` (see [`Self::add`]).
    #[cfg(not(feature = "component-model-async"))]
    pub(crate) fn remove(&mut self, i: u32) -> crate::Result<Handle> {
        self.slots
            .remove(i)
            .ok_or_else(|| trap(format_args!("unknown handle index {i}")))
    }
}

/// The host's handle table (one per store): each handle also carries a
/// serial number, which the [`ResourceAny`] naming it keeps. A copy of a
/// `ResourceAny` kept after its handle was dropped or moved then fails,
/// where an index alone would name whatever handle came to reuse the slot.
#[derive(Debug)]
pub(crate) struct HostHandleTable {
    slots: Slab<(Handle, u32)>,
    /// The serial of the next handle added (never 0: a raw `ResourceAny`
    /// has serial 0).
    next_serial: u32,
}

impl Default for HostHandleTable {
    fn default() -> Self {
        HostHandleTable {
            slots: Slab::starting_at(1),
            next_serial: 1,
        }
    }
}

impl HostHandleTable {
    /// Adds `h`; returns its index and serial.
    pub(crate) fn add(&mut self, h: Handle) -> crate::Result<(u32, u32)> {
        let serial = self.next_serial;
        // After 2^32 - 1 handles the serials repeat, skipping 0.
        self.next_serial = self.next_serial.checked_add(1).unwrap_or(1);
        let index = self
            .slots
            .insert_within((h, serial), MAX_HANDLES)
            .ok_or_else(|| trap("the host's handle table is full"))?;
        Ok((index, serial))
    }

    /// How many handles the table holds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// The handle at `i`, an index the runtime keeps (a borrow lent or
    /// received for a call in progress).
    pub(crate) fn get_mut(&mut self, i: u32) -> Option<&mut Handle> {
        self.slots.get_mut(i).map(|(h, _)| h)
    }

    /// Removes the handle at `i`, an index the runtime keeps.
    pub(crate) fn remove(&mut self, i: u32) -> Option<Handle> {
        self.slots.remove(i).map(|(h, _)| h)
    }

    /// The handle `a` names, if it is still in the table: its slot holds
    /// the handle of `a`'s serial, type and ownership.
    pub(crate) fn find(&self, a: &ResourceAny) -> Option<&Handle> {
        match self.slots.get(a.index) {
            Some((h, serial)) if *serial == a.serial && h.ty == a.ty && h.own == a.own => Some(h),
            _ => None,
        }
    }

    /// The handle `a` names; an error once it was dropped or moved (an
    /// empty slot is an "unknown handle index", as before serials and in
    /// Wasmtime).
    pub(crate) fn get(&self, a: &ResourceAny) -> crate::Result<Handle> {
        match self.find(a) {
            Some(h) => Ok(*h),
            None if self.slots.get(a.index).is_none() => crate::bail!(
                "unknown handle index {}: the resource was already dropped or given away",
                a.index
            ),
            None => crate::bail!("the resource was already dropped or given away"),
        }
    }

    /// What the host takes back of `a` (`try_from_resource_any`): an
    /// `own` handle leaves the table, a `borrow` stays; an error once it
    /// was dropped or moved.
    pub(crate) fn claim(&mut self, a: &ResourceAny) -> crate::Result<Handle> {
        let h = self.get(a)?;
        if a.own {
            self.slots.remove(a.index);
        }
        Ok(h)
    }

    /// Adds a handle the host made itself (`try_into_resource_any`, or
    /// `lowered` for one call's values) and returns the `ResourceAny` of
    /// the store `store` that names it.
    pub(crate) fn add_host_made(
        &mut self,
        store: crate::store::StoreId,
        ty: ResourceType,
        rep: u32,
        own: bool,
        lowered: bool,
    ) -> crate::Result<ResourceAny> {
        let (index, serial) = self.add(Handle {
            ty,
            rep,
            own,
            borrow_scope: None,
            num_lends: 0,
            host_made: true,
            lowered,
        })?;
        Ok(ResourceAny {
            store,
            index,
            serial,
            ty,
            own,
        })
    }
}

/// The resource handles of a component instance, in the one index space
/// its resources share with its waitables, waitable sets and error contexts
/// (CanonicalABI.md's `ComponentInstance.handles`): with the async ABI the
/// task table gives out the indices and the resources' data is kept here.
pub(crate) struct Handles<'a> {
    pub(crate) table: &'a mut HandleTable,
    #[cfg(feature = "component-model-async")]
    pub(crate) index_space: (&'a mut weft_tasks::Tasks, weft_tasks::InstanceId),
}

impl Handles<'_> {
    /// `Table.add`.
    pub(crate) fn add(&mut self, h: Handle) -> crate::Result<u32> {
        #[cfg(feature = "component-model-async")]
        {
            let (tasks, inst) = &mut self.index_space;
            let i = tasks
                .reserve_resource_index(*inst)
                .map_err(|_| trap("the handle table is full"))?;
            self.table.put(i, h)?;
            Ok(i)
        }
        #[cfg(not(feature = "component-model-async"))]
        self.table.add(h)
    }

    /// `Table.get`, writable.
    pub(crate) fn get_mut(&mut self, i: u32) -> crate::Result<&mut Handle> {
        self.table.get_mut(i)
    }

    /// The handle at `i`, which must be of the resource type `ty`.
    pub(crate) fn get_of(&self, i: u32, ty: ResourceType) -> crate::Result<Handle> {
        self.table.get_of(i, ty)
    }

    /// `Table.remove`.
    pub(crate) fn remove(&mut self, i: u32) -> crate::Result<Handle> {
        #[cfg(feature = "component-model-async")]
        {
            let h = self.table.take(i)?;
            let (tasks, inst) = &mut self.index_space;
            let _ = tasks.free_resource_index(*inst, i);
            Ok(h)
        }
        #[cfg(not(feature = "component-model-async"))]
        self.table.remove(i)
    }
}

/// A resource held by the host: an `own` or `borrow` handle in the store's
/// host table, of any resource type.
///
/// An owned `ResourceAny` must be given back to wasm or dropped with
/// [`ResourceAny::resource_drop`] (which runs the destructor); a borrowed
/// one is valid only during the host call that received it. A copy used
/// after its handle was dropped or given to wasm is an error, even when a
/// newer handle took its place in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResourceAny {
    pub(crate) store: crate::store::StoreId,
    pub(crate) index: u32,
    /// The serial of the host table's handle at `index` (0 for a raw
    /// index): see [`HostHandleTable`].
    pub(crate) serial: u32,
    pub(crate) ty: ResourceType,
    pub(crate) own: bool,
}

impl ResourceAny {
    /// A raw handle index of a component instance's table (as the
    /// canonical ABI lifts and lowers it), not yet moved to or from the
    /// host table.
    pub(crate) fn raw(index: u32, own: bool) -> ResourceAny {
        ResourceAny {
            store: crate::store::StoreId::NONE,
            index,
            serial: 0,
            ty: unresolved(),
            own,
        }
    }

    /// The resource's type.
    pub fn ty(&self) -> ResourceType {
        self.ty
    }

    /// Whether this is an `own` handle (else a `borrow`).
    pub fn owned(&self) -> bool {
        self.own
    }

    /// Drops the resource: removes it from the store's host table and, for
    /// an `own` handle that came from a guest, runs its destructor (the
    /// component's, or the one given to `LinkerInstance::resource` for a
    /// host type). As in Wasmtime, a handle the host made itself with
    /// `try_into_resource_any` is the host's to clean up: dropping it runs
    /// no destructor.
    pub fn resource_drop(self, mut store: impl crate::AsContextMut) -> crate::Result<()> {
        let mut store = store.as_context_mut();
        store.0.opaque().check(self.store, "resource")?;
        drop_host_resource(&mut store, self)
    }
}

/// A resource of the host type `T`, named by its representation (an `u32`
/// the host chooses and interprets, e.g. an index into a
/// `ResourceTable`-like collection of its own).
pub struct Resource<T> {
    rep: u32,
    own: bool,
    _marker: PhantomData<fn() -> T>,
}

impl<T> Clone for Resource<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Resource<T> {}

impl<T> std::fmt::Debug for Resource<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resource")
            .field("rep", &self.rep)
            .field("own", &self.own)
            .finish()
    }
}

impl<T: 'static> Resource<T> {
    /// An owned resource with representation `rep`.
    pub fn new_own(rep: u32) -> Resource<T> {
        Resource {
            rep,
            own: true,
            _marker: PhantomData,
        }
    }

    /// A borrowed resource with representation `rep`.
    pub fn new_borrow(rep: u32) -> Resource<T> {
        Resource {
            rep,
            own: false,
            _marker: PhantomData,
        }
    }

    /// The representation.
    pub fn rep(&self) -> u32 {
        self.rep
    }

    /// Whether this is an `own` handle (else a `borrow`).
    pub fn owned(&self) -> bool {
        self.own
    }

    /// This resource as a [`ResourceAny`] in `store`'s host table.
    pub fn try_into_resource_any(self, store: impl crate::AsContextMut) -> crate::Result<ResourceAny> {
        self.into_host_handle(store, false)
    }

    /// This resource as a [`ResourceAny`] made for a `Val` of one call
    /// (see `Handle::lowered`).
    pub(crate) fn lower_to_resource_any(self, store: impl crate::AsContextMut) -> crate::Result<ResourceAny> {
        self.into_host_handle(store, true)
    }

    fn into_host_handle(self, mut store: impl crate::AsContextMut, lowered: bool) -> crate::Result<ResourceAny> {
        let mut store = store.as_context_mut();
        let id = store.0.opaque().id();
        let ty = ResourceType::host::<T>();
        store
            .components_mut()
            .host_handles
            .add_host_made(id, ty, self.rep, self.own, lowered)
    }

    /// The resource held by `resource`, taken out of `store`'s host table
    /// (for an `own`); fails when it is of another type.
    pub fn try_from_resource_any(resource: ResourceAny, mut store: impl crate::AsContextMut) -> crate::Result<Self> {
        let mut store = store.as_context_mut();
        store.0.opaque().check(resource.store, "resource")?;
        if resource.ty != ResourceType::host::<T>() {
            crate::bail!("the resource is not a `{}`", std::any::type_name::<T>());
        }
        let h = store.components_mut().host_handles.claim(&resource)?;
        Ok(Resource {
            rep: h.rep,
            own: h.own,
            _marker: PhantomData,
        })
    }
}

/// A resource of a run-time host type ([`ResourceType::host_dynamic`]):
/// its representation, the payload naming its type, and whether it is an
/// `own` handle. The dynamic counterpart of [`Resource`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResourceDynamic {
    rep: u32,
    ty: u32,
    own: bool,
}

impl ResourceDynamic {
    /// An owned resource of type `ty` with representation `rep`.
    pub fn new_own(rep: u32, ty: u32) -> ResourceDynamic {
        ResourceDynamic { rep, ty, own: true }
    }

    /// A borrowed resource of type `ty` with representation `rep`.
    pub fn new_borrow(rep: u32, ty: u32) -> ResourceDynamic {
        ResourceDynamic { rep, ty, own: false }
    }

    /// The representation.
    pub fn rep(&self) -> u32 {
        self.rep
    }

    /// The payload of its type ([`ResourceType::host_dynamic`]).
    pub fn ty(&self) -> u32 {
        self.ty
    }

    /// Whether this is an `own` handle (else a `borrow`).
    pub fn owned(&self) -> bool {
        self.own
    }

    /// This resource as a [`ResourceAny`] in `store`'s host table.
    pub fn try_into_resource_any(self, mut store: impl crate::AsContextMut) -> crate::Result<ResourceAny> {
        let mut store = store.as_context_mut();
        let id = store.0.opaque().id();
        let ty = ResourceType::host_dynamic(self.ty);
        store
            .components_mut()
            .host_handles
            .add_host_made(id, ty, self.rep, self.own, false)
    }

    /// The resource held by `resource`, taken out of `store`'s host table
    /// (for an `own`); fails when it is not of a run-time host type.
    pub fn try_from_resource_any(resource: ResourceAny, mut store: impl crate::AsContextMut) -> crate::Result<Self> {
        let mut store = store.as_context_mut();
        store.0.opaque().check(resource.store, "resource")?;
        let ResourceKind::HostDynamic(ty) = resource.ty.0 else {
            crate::bail!("the resource is not of a run-time host resource type (ResourceType::host_dynamic)");
        };
        let h = store.components_mut().host_handles.claim(&resource)?;
        Ok(ResourceDynamic {
            rep: h.rep,
            ty,
            own: h.own,
        })
    }
}
