//! [`LinkerInstance::func_wrap`]: host functions with typed parameters and
//! results, type checked against the component's imports at instantiation.

// Import loop kept on purpose: this file is the `func_wrap` part of the
// linker (`LinkerInstance`), split off by size.
use super::direct::HostCall;
use super::linker::{Definition, DirectFunc, TypeCheck};
use super::typed::{typecheck_func, ComponentNamedList, InstanceType, Lift, Lower};
use super::types::ComponentFunc;
use super::{LinkerInstance, Val};
use crate::{AsContextMut, StoreContextMut};
use anyhow::Context as _;
use std::sync::Arc;
use weft_environ::component::{FuncType, ItemType};

impl<T: 'static> LinkerInstance<'_, T> {
    /// Defines `name` as a host function with typed parameters `Params` and
    /// results `Results` (tuples: see [`ComponentNamedList`]), as Wasmtime's
    /// `LinkerInstance::func_wrap`.
    ///
    /// Instantiating a component whose import `name` has another type fails
    /// with an error naming the import (the mismatch as its cause).
    pub fn func_wrap<Params, Results, F>(&mut self, name: &str, func: F) -> crate::Result<()>
    where
        F: Fn(StoreContextMut<'_, T>, Params) -> crate::Result<Results> + Send + Sync + 'static,
        Params: ComponentNamedList + Lift + 'static,
        Results: ComponentNamedList + Lower + 'static,
    {
        let func = Arc::new(func);
        let direct_func = func.clone();
        let host =
            move |mut store: StoreContextMut<'_, T>, _ty: &ComponentFunc, args: Vec<Val>, results: &mut [Val]| {
                let params = Params::lift(&mut store, Val::Tuple(args))?;
                let out = func(store.as_context_mut(), params)?;
                write_results(results, results_of(&mut store, out)?)
            };
        // Calls from a synchronous `canon lower` skip the `Val`s.
        let direct: DirectFunc<T> = Arc::new(
            move |cx: &mut HostCall<'_, '_, T>,
                  ty: &FuncType,
                  flat: &[u64],
                  out_param: Option<u32>,
                  out: &mut Vec<u64>| {
                let params = Params::lift_params_direct(cx, ty, flat)?;
                let ret = direct_func(cx.store().as_context_mut(), params)?;
                ret.lower_results_direct(cx, ty, out_param, out)
            },
        );
        let check = typecheck_check::<Params, Results>();
        self.insert(name, Definition::Func(Arc::new(host), Some(check), Some(direct)))
    }
}

/// The results of a typed host function as a list of values.
pub(crate) fn results_of<R: Lower>(store: &mut StoreContextMut<'_, impl Sized>, ret: R) -> crate::Result<Vec<Val>> {
    match ret.lower(store)? {
        Val::Tuple(vals) => Ok(vals),
        _ => crate::bail!("the host function's results do not match its type"),
    }
}

/// Writes `vals` to `results`, checking the count.
pub(crate) fn write_results(results: &mut [Val], vals: Vec<Val>) -> crate::Result<()> {
    if vals.len() != results.len() {
        crate::bail!("the host function's results do not match its type");
    }
    for (r, v) in results.iter_mut().zip(vals) {
        *r = v;
    }
    Ok(())
}

/// The type check of a host function typed `Params -> Results` against
/// an import's function type.
pub(crate) fn typecheck_check<Params, Results>() -> TypeCheck
where
    Params: ComponentNamedList + Lift + 'static,
    Results: ComponentNamedList + Lower + 'static,
{
    Arc::new(|index, types: &InstanceType<'_>| {
        let ty = types
            .func(index)
            .ok_or_else(|| crate::format_err!("function type {} not found", index.0))?;
        typecheck_func::<Params, Results>(ty, types)
    })
}

fn describe_item_type(ty: ItemType) -> &'static str {
    match ty {
        ItemType::Func(_) => "a function",
        ItemType::Instance(_) => "an instance",
        ItemType::Module(_) => "a module",
        _ => "a type",
    }
}

/// What `describe` says of a definition that fits an import of kind `ty`
/// (instances and modules).
fn describe_definition_of(ty: ItemType) -> &'static str {
    match ty {
        ItemType::Instance(_) => "an instance",
        ItemType::Module(_) => "a module",
        _ => "",
    }
}

/// Checks `def`, the definition of an import of type `ty` at `path`:
/// functions, instances and modules must be defined, with the right kind,
/// down through the exports of instances; typed host functions run their
/// type checks. Resource types are checked by instantiation.
pub(crate) fn check_import<T>(
    types: &InstanceType<'_>,
    ty: ItemType,
    def: &Definition<T>,
    path: &str,
) -> crate::Result<()> {
    match (ty, def) {
        (ItemType::Func(f), Definition::Func(_, check, _)) => {
            if types.func(f).is_some_and(|t| t.is_async) {
                crate::bail!(
                    "component imports `{path}` as an `async` function, which a synchronous or `*_async` \
                     host function cannot satisfy: define it with `func_wrap_concurrent` or `func_new_concurrent`"
                );
            }
            match check {
                Some(check) => check(f, types).with_context(|| {
                    format!("component imports function `{path}`, but the linker defines it with another type")
                }),
                None => Ok(()),
            }
        }
        #[cfg(feature = "component-model-async")]
        (ItemType::Func(f), Definition::ConcurrentFunc(_, Some(check))) => check(f, types).with_context(|| {
            format!("component imports function `{path}`, but the linker defines it with another type")
        }),
        (ItemType::Instance(i), Definition::Instance(map)) => {
            let instance = types
                .instance(i)
                .ok_or_else(|| crate::format_err!("instance type {} not found", i.0))?;
            for (name, t) in instance.exports.iter() {
                let at = format!("{path}/{name}");
                match map.get(name) {
                    Some(d) => check_import(types, *t, d, &at)?,
                    None if matches!(t, ItemType::Func(_) | ItemType::Instance(_) | ItemType::Module(_)) => {
                        crate::bail!("component imports `{at}`, but the linker does not define it")
                    }
                    None => {}
                }
            }
            Ok(())
        }
        (ItemType::Func(_), d @ (Definition::Instance(_) | Definition::Module(_) | Definition::Resource(..)))
        | (ItemType::Instance(_), d)
        | (ItemType::Module(_), d)
            if d.describe() != describe_definition_of(ty) =>
        {
            crate::bail!(
                "component imports `{path}` as {}, but the linker defines it as {}",
                describe_item_type(ty),
                d.describe()
            )
        }
        _ => Ok(()),
    }
}
