//! Instances of modules.

use crate::externals::{Extern, Global, Memory, Table, Tag};
use crate::func::{FuncData, FuncTy, TypedFunc, WasmParams, WasmResults};
use crate::store::{AsContextMut, InstanceData, StoreId, StoreInner, StoreOpaque};
use crate::trap::TrapExt;
use crate::types::{GlobalType, MemoryType, TableType};
use crate::{Func, Module, SharedMemory, Trap};
use weft_environ::{EntityIndex, EntityType, WasmValType};
use weft_runtime::{FuncRefPtr, InstanceImports};
use weft_types::VMSharedTypeIndex;

/// An instance of a module in a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instance {
    pub(crate) store: StoreId,
    pub(crate) index: u32,
}

/// A named export of an instance.
#[derive(Debug, Clone)]
pub struct Export<'instance> {
    name: &'instance str,
    definition: Extern,
}

impl<'instance> Export<'instance> {
    /// The export's name.
    pub fn name(&self) -> &'instance str {
        self.name
    }
    /// The exported item.
    pub fn into_extern(self) -> Extern {
        self.definition
    }
    /// The function, if it is one.
    pub fn into_func(self) -> Option<Func> {
        self.definition.into_func()
    }
    /// The memory, if it is one.
    pub fn into_memory(self) -> Option<Memory> {
        self.definition.into_memory()
    }
    /// The shared memory, if it is one.
    pub fn into_shared_memory(self) -> Option<SharedMemory> {
        self.definition.into_shared_memory()
    }
    /// The table, if it is one.
    pub fn into_table(self) -> Option<Table> {
        self.definition.into_table()
    }
    /// The global, if it is one.
    pub fn into_global(self) -> Option<Global> {
        self.definition.into_global()
    }
    /// The tag, if it is one.
    pub fn into_tag(self) -> Option<Tag> {
        self.definition.into_tag()
    }
}

impl Instance {
    /// Instantiates `module` with `imports`, given in the order of the
    /// module's imports, and runs its start function.
    pub fn new(mut store: impl AsContextMut, module: &Module, imports: &[Extern]) -> crate::Result<Instance> {
        instantiate(store.as_context_mut().0, module, imports)
    }

    fn data<'a>(&self, store: &'a StoreOpaque) -> Option<&'a InstanceData> {
        (store.id() == self.store)
            .then(|| store.instances.get(self.index as usize))
            .flatten()
    }

    /// The export `name`, if any.
    pub fn get_export(&self, store: impl AsContextMut, name: &str) -> Option<Extern> {
        let store = store.as_context();
        let opaque = store.0.opaque();
        let data = self.data(opaque)?;
        let index = data.module.inner.env.export(name)?;
        Some(self.entity(opaque, data, index))
    }

    fn entity(&self, store: &StoreOpaque, data: &InstanceData, index: EntityIndex) -> Extern {
        let entities = store.objects.instance_entities(data.id);
        match index {
            EntityIndex::Function(i) => Extern::Func(Func::from_store_index(self.store, data.funcs[i as usize])),
            EntityIndex::Memory(i) => {
                let id = entities.memories[i as usize];
                match store.objects.memory(id).shared() {
                    Some(shared) => {
                        let ty = store.memory_types.get(&id.0).cloned();
                        let ty = ty.unwrap_or_else(|| store.memory_type(id));
                        Extern::SharedMemory(SharedMemory::from_runtime(&store.engine, shared.clone(), ty))
                    }
                    None => Extern::Memory(Memory { store: self.store, id }),
                }
            }
            EntityIndex::Table(i) => Extern::Table(Table {
                store: self.store,
                id: entities.tables[i as usize],
            }),
            EntityIndex::Global(i) => Extern::Global(Global {
                store: self.store,
                id: entities.globals[i as usize],
            }),
            EntityIndex::Tag(i) => Extern::Tag(Tag {
                store: self.store,
                id: entities.tags[i as usize],
            }),
        }
    }

    /// All exports, in the module's order.
    pub fn exports<'a, T: 'static>(
        &'a self,
        store: impl Into<crate::StoreContextMut<'a, T>>,
    ) -> impl ExactSizeIterator<Item = Export<'a>> + 'a {
        let store = store.into();
        let inner: &'a StoreInner<T> = store.0;
        let opaque = &inner.opaque;
        let mut out = Vec::new();
        if let Some(data) = self.data(opaque) {
            for e in data.module.inner.env.exports.iter() {
                out.push(Export {
                    name: &e.name,
                    definition: self.entity(opaque, data, e.index),
                });
            }
        }
        out.into_iter()
    }

    /// The exported function `name`, if any.
    pub fn get_func(&self, store: impl AsContextMut, name: &str) -> Option<Func> {
        self.get_export(store, name)?.into_func()
    }

    /// The exported function `name` as a typed function.
    pub fn get_typed_func<Params: WasmParams, Results: WasmResults>(
        &self,
        mut store: impl AsContextMut,
        name: &str,
    ) -> crate::Result<TypedFunc<Params, Results>> {
        let f = self
            .get_func(&mut store, name)
            .ok_or_else(|| crate::format_err!("failed to find function export `{name}`"))?;
        f.typed::<Params, Results>(&store)
            .map_err(|e| e.context(format!("failed to convert function `{name}` to given type")))
    }

    /// The exported memory `name`, if any.
    pub fn get_memory(&self, store: impl AsContextMut, name: &str) -> Option<Memory> {
        self.get_export(store, name)?.into_memory()
    }

    /// The exported shared memory `name`, if any.
    pub fn get_shared_memory(&self, store: impl AsContextMut, name: &str) -> Option<SharedMemory> {
        self.get_export(store, name)?.into_shared_memory()
    }

    /// The exported table `name`, if any.
    pub fn get_table(&self, store: impl AsContextMut, name: &str) -> Option<Table> {
        self.get_export(store, name)?.into_table()
    }

    /// The exported global `name`, if any.
    pub fn get_global(&self, store: impl AsContextMut, name: &str) -> Option<Global> {
        self.get_export(store, name)?.into_global()
    }

    /// The exported tag `name`, if any.
    pub fn get_tag(&self, store: impl AsContextMut, name: &str) -> Option<Tag> {
        self.get_export(store, name)?.into_tag()
    }

    /// The module this is an instance of.
    pub fn module<'a, T: 'static>(&self, store: impl Into<crate::StoreContext<'a, T>>) -> Option<&'a Module> {
        let store = store.into();
        self.data(store.0.opaque()).map(|d| &d.module)
    }
}

/// Why an import does not fit, or `None` when it does. An `exact` function
/// import (custom descriptors) matches a function of its type only.
fn check_import(
    store: &StoreOpaque,
    module: &Module,
    expected: &EntityType,
    exact: bool,
    actual: &Extern,
) -> Option<String> {
    // The expected type as a public type (which registers a function type
    // with the engine) is made only for an error.
    let expected_ty = || module.extern_type(expected);
    let mismatch = |found: String| {
        let expected_ty = expected_ty();
        Some(format!(
            "expected {} of type `{}`, found {}",
            expected_ty.desc(),
            expected_ty,
            found
        ))
    };
    match (expected, actual) {
        (EntityType::Function(i), Extern::Func(f)) => {
            let want = module.inner.raw_type_ids.get(*i as usize).copied();
            let data = f.data(store).ok()?;
            let have = data.func_ref.type_id();
            // With GC, a function of a declared subtype matches too.
            let subtype = || {
                want.is_some_and(|w| {
                    module
                        .inner
                        .engine
                        .inner
                        .types
                        .is_subtype(VMSharedTypeIndex(have), VMSharedTypeIndex(w))
                })
            };
            if Some(have) != want && (exact || !subtype()) {
                return mismatch(match data.ty(store) {
                    Ok(ty) => format!("function of type `{ty}`"),
                    Err(_) => "a function".to_string(),
                });
            }
            None
        }
        (EntityType::Global(g), Extern::Global(actual_g)) => {
            let have = store.global_type(actual_g.id);
            // Compared as canonical wasm types: the public ones do not show
            // concrete struct and array types or exactness.
            let have_wasm = store
                .wasm_global_types
                .get(&actual_g.id.0)
                .copied()
                .unwrap_or_else(|| have.content().to_wasm());
            let want_wasm = module.canonical_val_type(g.ty);
            let ok = have.is_mutable() == g.mutable
                && if g.mutable {
                    have_wasm == want_wasm
                } else {
                    val_type_matches(module, have_wasm, want_wasm)
                };
            if !ok {
                return mismatch(format!("global of type `{have}`"));
            }
            None
        }
        (EntityType::Table(t), Extern::Table(actual_t)) => {
            let have = store.table_type(actual_t.id);
            let declared_max = store.table_types.get(&actual_t.id.0).and_then(|t| t.maximum());
            let have_element = store
                .wasm_table_elements
                .get(&actual_t.id.0)
                .copied()
                .unwrap_or_else(|| have.element().to_wasm());
            let ok = have_element == module.canonical_table(t).element
                && have.is_64() == t.table64
                && limits_match(have.minimum(), declared_max, t.minimum, t.maximum);
            if !ok {
                return mismatch(format!("table of type `{have}`"));
            }
            None
        }
        (EntityType::Memory(m), Extern::Memory(actual_m)) => {
            let have = store.memory_type(actual_m.id);
            let declared_max = store.memory_types.get(&actual_m.id.0).and_then(|t| t.maximum());
            if have.is_shared() != m.shared
                || have.is_64() != m.memory64
                || have.page_size_log2() != m.page_size_log2
                || !limits_match(have.minimum(), declared_max, m.minimum, m.maximum)
            {
                return mismatch(format!("memory of type `{have}`"));
            }
            None
        }
        (EntityType::Memory(m), Extern::SharedMemory(actual_m)) => {
            let have = actual_m.current_ty();
            if !m.shared
                || have.is_64() != m.memory64
                || have.page_size_log2() != m.page_size_log2
                || !limits_match(have.minimum(), have.maximum(), m.minimum, m.maximum)
            {
                return mismatch(format!("memory of type `{have}`"));
            }
            None
        }
        (EntityType::Tag(i), Extern::Tag(actual_t)) => {
            let want = module.inner.raw_type_ids.get(*i as usize).copied();
            if Some(store.objects.tag_type_id(actual_t.id)) != want {
                return mismatch(format!("tag of type `{}`", store.tag_type(actual_t.id)));
            }
            None
        }
        (_, other) => {
            let kind = match other {
                Extern::Tag(_) => "tag",
                Extern::Func(_) => "function",
                Extern::Global(_) => "global",
                Extern::Table(_) => "table",
                Extern::Memory(_) | Extern::SharedMemory(_) => "memory",
            };
            mismatch(kind.to_string())
        }
    }
}

/// Whether a value of canonical type `have` may be where one of `want` is
/// expected, declared subtyping of concrete types included.
fn val_type_matches(module: &Module, have: WasmValType, want: WasmValType) -> bool {
    match (have, want) {
        (WasmValType::Ref(have), WasmValType::Ref(want)) => {
            let engine = &module.inner.engine;
            have.matches_with(&want, &mut |a, b| crate::types::index_matches(engine, a, b))
        }
        (have, want) => have == want,
    }
}

fn limits_match(actual_min: u64, actual_max: Option<u64>, want_min: u64, want_max: Option<u64>) -> bool {
    actual_min >= want_min
        && match want_max {
            None => true,
            Some(w) => actual_max.is_some_and(|a| a <= w),
        }
}

/// Asks the store's resource limiter about the instance, its tables and
/// memories and their initial sizes.
fn check_limits<T: 'static>(store: &mut StoreInner<T>, env: &weft_environ::Module) -> crate::Result<()> {
    use crate::limits::Growth;
    let (max_instances, max_tables, max_memories) = store.count_limits();
    let defined_tables = env.tables.len() - env.num_imported_tables as usize;
    let defined_memories = env.memories.len() - env.num_imported_memories as usize;
    let objects = &store.opaque.objects;
    if store.opaque.instances.len() + 1 > max_instances {
        crate::bail!(
            "resource limit exceeded: instance count too high at {}",
            store.opaque.instances.len() + 1
        );
    }
    if objects.num_tables() + defined_tables > max_tables {
        crate::bail!(
            "resource limit exceeded: table count too high at {}",
            objects.num_tables() + defined_tables
        );
    }
    if objects.num_memories() + defined_memories > max_memories {
        crate::bail!(
            "resource limit exceeded: memory count too high at {}",
            objects.num_memories() + defined_memories
        );
    }
    for m in &env.memories[env.num_imported_memories as usize..] {
        let page = m.page_size();
        let desired = m.minimum.saturating_mul(page).min(usize::MAX as u64) as usize;
        let maximum = m
            .maximum
            .map(|x| x.saturating_mul(page).min(usize::MAX as u64) as usize);
        if !store.may_grow(Growth::Memory, 0, desired, maximum)? {
            crate::bail!("memory minimum size of {} pages exceeds memory limits", m.minimum);
        }
    }
    for t in &env.tables[env.num_imported_tables as usize..] {
        let desired = t.minimum.min(usize::MAX as u64) as usize;
        let maximum = t.maximum.map(|x| x.min(usize::MAX as u64) as usize);
        if !store.may_grow(Growth::Table, 0, desired, maximum)? {
            crate::bail!("table minimum size of {} elements exceeds table limits", t.minimum);
        }
    }
    Ok(())
}

pub(crate) fn instantiate<T: 'static>(
    store: &mut StoreInner<T>,
    module: &Module,
    imports: &[Extern],
) -> crate::Result<Instance> {
    if !crate::Engine::same(&store.opaque.engine, module.engine()) {
        crate::bail!("cross-`Engine` instantiation is not currently supported");
    }
    let env = module.inner.env.clone();
    if imports.len() != env.imports.len() {
        crate::bail!("expected {} imports, found {}", env.imports.len(), imports.len());
    }
    check_limits(store, &env)?;
    if !store.opaque.engine.config().shared_memory
        && env.memories[env.num_imported_memories as usize..]
            .iter()
            .any(|m| m.shared)
    {
        crate::bail!("{}", crate::shared_memory::SHARED_MEMORY_DISABLED);
    }
    let opaque = store.opaque_mut();
    let mut funcs: Vec<FuncRefPtr> = Vec::with_capacity(env.num_imported_funcs as usize);
    let mut func_indices: Vec<u32> = Vec::with_capacity(env.functions.len());
    let mut tables = Vec::with_capacity(env.num_imported_tables as usize);
    let mut memories = Vec::with_capacity(env.num_imported_memories as usize);
    let mut globals = Vec::with_capacity(env.num_imported_globals as usize);
    let mut tags = Vec::with_capacity(env.num_imported_tags as usize);
    for (import, actual) in env.imports.iter().zip(imports) {
        if actual.store_id().is_some_and(|id| id != opaque.id()) {
            crate::bail!(
                "import `{}::{}` belongs to a different store",
                import.module,
                import.field
            );
        }
        let expected = env.entity_type(import.index);
        let exact = matches!(import.index, EntityIndex::Function(i) if env.is_exact_func_import(i));
        if let Some(why) = check_import(opaque, module, &expected, exact, actual) {
            return Err(crate::format_err!("{why}").context(format!(
                "incompatible import type for `{}::{}`",
                import.module, import.field
            )));
        }
        match actual {
            Extern::Func(f) => {
                let data = f.data(opaque)?;
                if data.func_ref.type_id() == u32::MAX {
                    crate::bail!(
                        "host function imported as `{}::{}` could not be compiled",
                        import.module,
                        import.field
                    );
                }
                funcs.push(data.func_ref);
                func_indices.push(f.index);
            }
            Extern::Table(t) => tables.push(t.id),
            Extern::Memory(m) => memories.push(m.id),
            Extern::SharedMemory(m) => {
                if !crate::Engine::same(m.engine(), &opaque.engine) {
                    crate::bail!(
                        "shared memory imported as `{}::{}` belongs to a different engine",
                        import.module,
                        import.field
                    );
                }
                memories.push(opaque.import_shared_memory(m));
            }
            Extern::Global(g) => globals.push(g.id),
            Extern::Tag(t) => tags.push(t.id),
        }
    }
    let first_func = opaque.funcs.len() as u32;
    let instance_index = opaque.instances.len() as u32;
    let runtime_imports = InstanceImports {
        funcs: &funcs,
        tables: &tables,
        memories: &memories,
        globals: &globals,
        tags: &tags,
    };
    for (type_id, info) in &module.inner.gc_types {
        opaque.objects.context().register_gc_type(*type_id, info.clone());
    }
    let id = opaque.objects.instantiate(
        &env,
        &module.inner.raw_type_ids,
        &module.inner.func_code,
        &runtime_imports,
        module.inner.memory_images(),
        first_func,
        instance_index,
    )?;
    // Register the defined functions, memories, tables and globals.
    let defined = env.num_imported_funcs..env.num_imported_funcs + env.num_defined_funcs();
    let runtime_instance = opaque.objects.instance(id);
    let trampolines = &module.inner.array_trampolines;
    opaque.funcs.extend(defined.clone().map(|index| {
        let type_index = env.functions[index as usize];
        FuncData {
            func_ref: runtime_instance.func_ref(index),
            ty: FuncTy::Wasm {
                instance: instance_index,
                index: type_index,
            },
            trampoline: trampolines.get(type_index as usize).copied().flatten(),
            host: None,
        }
    }));
    func_indices.extend((first_func..).take(defined.len()));
    let entities = opaque.objects.instance_entities(id);
    for (i, g) in entities
        .globals
        .iter()
        .enumerate()
        .skip(env.num_imported_globals as usize)
    {
        let canonical = module.canonical_global(&env.globals[i]);
        let ty = GlobalType::from_wasm(module.engine(), &canonical);
        // Kept only when the public type does not show it all.
        if ty.content().to_wasm() != canonical.ty {
            opaque.wasm_global_types.insert(g.0, canonical.ty);
        }
        opaque.global_types.insert(g.0, ty);
    }
    for (i, t) in entities
        .tables
        .iter()
        .enumerate()
        .skip(env.num_imported_tables as usize)
    {
        let canonical = module.canonical_table(&env.tables[i]);
        let ty = TableType::from_wasm(module.engine(), &canonical);
        if ty.element().to_wasm() != canonical.element {
            opaque.wasm_table_elements.insert(t.0, canonical.element);
        }
        opaque.table_types.insert(t.0, ty);
    }
    for (i, m) in entities
        .memories
        .iter()
        .enumerate()
        .skip(env.num_imported_memories as usize)
    {
        opaque.memory_types.insert(m.0, MemoryType::from_wasm(&env.memories[i]));
        if let Some(shared) = opaque.objects.memory(*m).shared() {
            opaque.shared_memories.insert(shared.identity(), *m);
        }
    }
    for (i, t) in entities.tags.iter().enumerate().skip(env.num_imported_tags as usize) {
        let ty = crate::TagType::new(module.func_type(env.tags[i]));
        opaque.tag_types.insert(t.0, ty);
    }
    opaque.instances.push(InstanceData {
        module: module.clone(),
        id,
        funcs: func_indices,
    });
    let instance = Instance {
        store: opaque.id(),
        index: instance_index,
    };
    if let Err(trap) = opaque.objects.initialize(id) {
        return Err(crate::Error::new(Trap::from_runtime(trap)));
    }
    if let Some(start) = env.start {
        let func = Func::from_store_index(
            opaque.id(),
            opaque.instances[instance_index as usize].funcs[start as usize],
        );
        func.call_raw(store, &mut [weft_runtime::ValRaw::default()])?;
    }
    Ok(instance)
}
