//! Exports: a `Guest` struct per exported interface with `call_*`
//! methods, `GuestIndices` to find and type-check them, and a `GuestFoo`
//! view per exported resource.

use super::{camel, docs, fn_name, ident, Gen};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;
use wit_parser::{Function, FunctionKind, InterfaceId};

/// A `Guest` field name for a function (`[method]a.b` is `method_a_b`).
pub(crate) fn field_name(f: &Function) -> Ident {
    let n = f
        .name
        .replace("[method]", "method-")
        .replace("[static]", "static-")
        .replace("[constructor]", "constructor-")
        .replace("[async method]", "method-")
        .replace("[async static]", "static-")
        .replace('.', "-");
    ident(&super::snake(&n))
}

impl Gen<'_> {
    /// The parameter and result types of an export's `TypedFunc`.
    pub(crate) fn export_types(
        &self,
        f: &Function,
        iface: Option<InterfaceId>,
        depth: usize,
    ) -> (Vec<TokenStream>, TokenStream, bool) {
        let flags = self.export_flags(iface, f);
        let concurrent = flags.async_ && flags.store;
        let params: Vec<TokenStream> = f.params.iter().map(|p| self.ty(&p.ty, depth, !concurrent)).collect();
        let results = match &f.result {
            Some(t) => {
                let t = self.ty(t, depth, false);
                quote!((#t,))
            }
            None => quote!(()),
        };
        (params, results, concurrent)
    }

    /// `func_{name}` and `call_{name}` for the export `f` whose `Func` is
    /// `recv`.
    pub(crate) fn export_methods(
        &self,
        f: &Function,
        iface: Option<InterfaceId>,
        depth: usize,
        name: &str,
        recv: TokenStream,
    ) -> TokenStream {
        let rt = &self.rt;
        let flags = self.export_flags(iface, f);
        let (params, results, concurrent) = self.export_types(f, iface, depth);
        let ret = match &f.result {
            Some(t) => self.ty(t, depth, false),
            None => quote!(()),
        };
        let args: Vec<Ident> = (0..params.len()).map(|i| format_ident!("arg{}", i)).collect();
        let func_m = format_ident!("func_{}", name);
        let call_m = format_ident!("call_{}", name);
        let d = docs(&f.docs, &format!("Calls the exported WIT function `{}`.", f.name));
        let fd = format!("The exported WIT function `{}` as a typed function.", f.name);
        let callee = quote!(#rt::component::__internal::typed_func_unchecked::<(#(#params,)*), #results>(#recv));
        let out = if f.result.is_some() {
            quote!(::core::result::Result::Ok(r.0))
        } else {
            quote!(let () = r; ::core::result::Result::Ok(()))
        };
        let call = if concurrent {
            quote! {
                #d
                pub async fn #call_m<_T, _D>(
                    &self,
                    accessor: &#rt::component::Accessor<_T, _D>,
                    #(#args: #params),*
                ) -> #rt::Result<#ret>
                where
                    _T: ::core::marker::Send + 'static,
                    _D: #rt::component::HasData + ?Sized,
                {
                    let callee = #callee;
                    let r = callee.call_concurrent(accessor, (#(#args,)*)).await?;
                    #out
                }
            }
        } else if flags.async_ {
            quote! {
                #d
                pub async fn #call_m<S: #rt::AsContextMut>(&self, mut store: S, #(#args: #params),*) -> #rt::Result<#ret>
                where
                    <S as #rt::AsContext>::Data: ::core::marker::Send + 'static,
                {
                    let callee = #callee;
                    let r = callee.call_async(#rt::AsContextMut::as_context_mut(&mut store), (#(#args,)*)).await?;
                    #out
                }
            }
        } else {
            quote! {
                #d
                pub fn #call_m<S: #rt::AsContextMut>(&self, mut store: S, #(#args: #params),*) -> #rt::Result<#ret> {
                    let callee = #callee;
                    let r = callee.call(#rt::AsContextMut::as_context_mut(&mut store), (#(#args,)*))?;
                    #out
                }
            }
        };
        quote! {
            #[doc = #fd]
            pub fn #func_m(&self) -> #rt::component::TypedFunc<(#(#params,)*), #results> {
                #callee
            }
            #call
        }
    }

    /// The module body of an exported interface.
    pub(crate) fn export_interface(&self, id: InterfaceId) -> syn::Result<TokenStream> {
        let rt = &self.rt;
        let info = &self.ifaces[&id];
        let depth = info.path.len();
        let iface = &self.resolve.interfaces[id];
        let name = &info.instance;
        let mut out = TokenStream::new();
        for (_, t) in &iface.types {
            out.extend(self.typedef(*t, depth, Some(id))?);
        }
        let funcs: Vec<&Function> = iface.functions.values().collect();
        let fields: Vec<Ident> = funcs.iter().map(|f| field_name(f)).collect();
        let wit_names: Vec<&String> = funcs.iter().map(|f| &f.name).collect();
        let mut guest_methods = TokenStream::new();
        let mut res_views = TokenStream::new();
        for (f, field) in funcs.iter().zip(&fields) {
            if f.kind.resource().is_none() {
                guest_methods.extend(self.export_methods(f, Some(id), depth, &fn_name(f), quote!(self.#field)));
            }
        }
        for (res_name, t) in &iface.types {
            if !self.is_resource_def(*t) {
                continue;
            }
            let view = format_ident!("Guest{}", camel(res_name));
            let accessor = ident(&super::snake(res_name));
            let mut methods = TokenStream::new();
            for (f, field) in funcs.iter().zip(&fields) {
                if f.kind.resource() != Some(*t) {
                    continue;
                }
                let mname = match f.kind {
                    FunctionKind::Constructor(_) => "constructor".to_string(),
                    _ => fn_name(f),
                };
                methods.extend(self.export_methods(f, Some(id), depth, &mname, quote!(self.funcs.#field)));
            }
            let vd = format!("The functions of the exported resource `{res_name}`.");
            let ad = format!("The functions of the exported resource `{res_name}`.");
            guest_methods.extend(quote! {
                #[doc = #ad]
                pub fn #accessor(&self) -> #view<'_> { #view { funcs: self } }
            });
            res_views.extend(quote! {
                #[doc = #vd]
                pub struct #view<'a> { funcs: &'a Guest }
                impl #view<'_> { #methods }
            });
        }
        let loads = funcs.iter().zip(&fields).map(|(f, field)| {
            let (params, results, _) = self.export_types(f, Some(id), depth);
            let fname = &f.name;
            quote! {
                let #field = {
                    let index = instance
                        .get_export_index(&mut store, ::core::option::Option::Some(&instance_index), #fname)
                        .ok_or_else(|| #rt::format_err!("instance export `{}` does not have export `{}`", #name, #fname))?;
                    *instance.get_typed_func::<(#(#params,)*), #results>(&mut store, &index)?.func()
                };
            }
        });
        let gd = format!("The functions the guest exports as `{name}`.");
        out.extend(quote! {
            #[doc = #gd]
            #[derive(Clone)]
            pub struct Guest { #(#fields: #rt::component::Func,)* }

            /// Finds and type-checks the exports of this interface.
            #[derive(Clone)]
            pub struct GuestIndices { _checked: () }

            impl GuestIndices {
                /// Checks that the component of `instance_pre` exports this
                /// interface with all its functions.
                pub fn new<_T: 'static>(instance_pre: &#rt::component::InstancePre<_T>) -> #rt::Result<GuestIndices> {
                    Self::__check(instance_pre.component())
                }

                #[doc(hidden)]
                pub fn __check(component: &#rt::component::Component) -> #rt::Result<GuestIndices> {
                    let ty = component.component_type();
                    let instance = match ty.get_export(component.engine(), #name) {
                        ::core::option::Option::Some(#rt::component::types::ComponentItem::ComponentInstance(i)) => i,
                        _ => return ::core::result::Result::Err(#rt::format_err!("no exported instance named `{}`", #name)),
                    };
                    #(
                        if instance.get_export(#wit_names).is_none() {
                            return ::core::result::Result::Err(#rt::format_err!(
                                "instance export `{}` does not have export `{}`", #name, #wit_names
                            ));
                        }
                    )*
                    let _ = instance;
                    ::core::result::Result::Ok(GuestIndices { _checked: () })
                }

                #[doc(hidden)]
                pub fn __unchecked() -> GuestIndices {
                    GuestIndices { _checked: () }
                }

                /// Finds the functions in `instance` and checks their types.
                pub fn load(
                    &self,
                    mut store: impl #rt::AsContextMut,
                    instance: &#rt::component::Instance,
                ) -> #rt::Result<Guest> {
                    let mut store = #rt::AsContextMut::as_context_mut(&mut store);
                    let instance_index = instance
                        .get_export_index(&mut store, ::core::option::Option::None, #name)
                        .ok_or_else(|| #rt::format_err!("no exported instance named `{}`", #name))?;
                    let _ = &instance_index;
                    #(#loads)*
                    ::core::result::Result::Ok(Guest { #(#fields,)* })
                }
            }

            impl Guest { #guest_methods }
            #res_views
        });
        Ok(out)
    }
}
