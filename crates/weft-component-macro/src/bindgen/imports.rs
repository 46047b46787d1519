//! Imports: the `Host`/`HostWithStore` traits (and `HostFoo` per resource)
//! and the `add_to_linker` functions that link them.

use super::{camel, docs, fn_name, ident, owner_iface, param_name, snake, Gen, Style};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;
use wit_parser::{Function, InterfaceId, Stability, Type, TypeDefKind, TypeId};

/// The functions and resources of one interface (or of the world).
pub(crate) struct ImportSet<'a> {
    pub(crate) iface: Option<InterfaceId>,
    pub(crate) funcs: Vec<&'a Function>,
    pub(crate) resources: Vec<TypeId>,
    pub(crate) depth: usize,
    pub(crate) host: Ident,
    pub(crate) host_ws: Ident,
    /// Whether an `options: &LinkOptions` is in scope of the linker
    /// statements (the set has `@unstable` items).
    pub(crate) options: bool,
}

/// What generating an import set gives.
pub(crate) struct ImportOut {
    pub(crate) traits: TokenStream,
    /// Statements defining everything on `inst` with `host_getter`.
    pub(crate) body: TokenStream,
    /// Other interfaces' `Host` traits `D::Data` must implement (for
    /// their `convert_*` functions).
    pub(crate) extra_hosts: Vec<TokenStream>,
}

impl Gen<'_> {
    /// `stmt`, run only when its `@unstable` feature is enabled.
    pub(crate) fn gate(&self, options: bool, stability: &Stability, stmt: TokenStream) -> TokenStream {
        match stability {
            Stability::Unstable { feature, .. } if options => {
                let f = ident(&snake(feature));
                quote!(if options.#f { #stmt })
            }
            _ => stmt,
        }
    }

    /// The `@unstable` features of an interface's items, sorted.
    pub(crate) fn iface_features(&self, id: InterfaceId) -> Vec<String> {
        let iface = &self.resolve.interfaces[id];
        let mut out = Vec::new();
        let stabilities = std::iter::once(&iface.stability)
            .chain(iface.functions.values().map(|f| &f.stability))
            .chain(iface.types.values().map(|t| &self.resolve.types[*t].stability));
        for s in stabilities {
            if let Stability::Unstable { feature, .. } = s {
                out.push(feature.clone());
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// `LinkOptions`: one switch per feature.
    pub(crate) fn link_options(&self, features: &[String]) -> TokenStream {
        let fields: Vec<Ident> = features.iter().map(|f| ident(&snake(f))).collect();
        let docs = features
            .iter()
            .map(|f| format!("Enables the `@unstable(feature = {f})` items."));
        quote! {
            /// Which `@unstable` WIT features `add_to_linker` defines.
            #[derive(Clone, Debug, Default)]
            pub struct LinkOptions { #(#fields: bool,)* }
            impl LinkOptions {
                #(
                    #[doc = #docs]
                    pub fn #fields(&mut self, enabled: bool) -> &mut Self {
                        self.#fields = enabled;
                        self
                    }
                )*
            }
        }
    }

    fn send_bound(&self) -> TokenStream {
        if self.send {
            quote!(+ ::core::marker::Send)
        } else {
            quote!()
        }
    }

    /// The `result<T, E>` of `f` when `E` has a `trappable_error_type`:
    /// the ok type, the error type and the Rust error type.
    fn trappable_result(&self, f: &Function) -> Option<(Option<Type>, TypeId, syn::Path)> {
        let Some(Type::Id(r)) = f.result else {
            return None;
        };
        let TypeDefKind::Result(res) = &self.resolve.types[r].kind else {
            return None;
        };
        let Some(Type::Id(e)) = res.err else {
            return None;
        };
        let def = self.unalias(e);
        self.trappable.get(&def).map(|p| (res.ok, def, p.clone()))
    }

    fn result_path(&self) -> TokenStream {
        let rt = &self.rt;
        if self.cfg.anyhow {
            quote!(::anyhow::Result)
        } else {
            quote!(#rt::Result)
        }
    }

    /// The return type of the host function for `f`.
    fn host_ret(&self, f: &Function, trappable: bool, depth: usize) -> TokenStream {
        let base = match &f.result {
            Some(t) => self.ty(t, depth, false),
            None => quote!(()),
        };
        if !trappable {
            return base;
        }
        let res = self.result_path();
        if let Some((ok, _, path)) = self.trappable_result(f) {
            let ok = ok.map(|t| self.ty(&t, depth, false)).unwrap_or(quote!(()));
            let path = Self::user_path(&path, depth);
            return quote!(::core::result::Result<#ok, #path>);
        }
        quote!(#res<#base>)
    }

    /// A host trait method's signature (without `;` or body), its
    /// parameter names and types.
    fn host_sig(
        &self,
        f: &Function,
        style: Style,
        trappable: bool,
        depth: usize,
    ) -> (TokenStream, Vec<Ident>, Vec<TokenStream>) {
        let rt = &self.rt;
        let name = ident(&fn_name(f));
        let names: Vec<Ident> = f.params.iter().map(|p| param_name(&p.name)).collect();
        let tys: Vec<TokenStream> = f.params.iter().map(|p| self.ty(&p.ty, depth, false)).collect();
        let ret = self.host_ret(f, trappable, depth);
        let ret = if style.is_async() {
            quote!(impl ::core::future::Future<Output = #ret> + ::core::marker::Send)
        } else {
            ret
        };
        let first = match style {
            Style::Sync | Style::Async => quote!(&mut self),
            Style::Store | Style::AsyncStore => quote!(host: #rt::component::Access<'_, T, Self>),
            Style::Concurrent => quote!(accessor: &#rt::component::Accessor<T, Self>),
        };
        let sig = quote!(fn #name(#first, #(#names: #tys),*) -> #ret);
        (sig, names, tys)
    }

    fn drop_sig(&self, res: &Ident, style: Style) -> TokenStream {
        let rt = &self.rt;
        let r = self.result_path();
        let rep = quote!(rep: #rt::component::Resource<#res>);
        match style {
            Style::Sync => quote!(fn drop(&mut self, #rep) -> #r<()>),
            Style::Async => {
                quote!(fn drop(&mut self, #rep) -> impl ::core::future::Future<Output = #r<()>> + ::core::marker::Send)
            }
            Style::Store => quote!(fn drop(accessor: #rt::component::Access<'_, T, Self>, #rep) -> #r<()>),
            Style::AsyncStore | Style::Concurrent => quote! {
                fn drop(accessor: &#rt::component::Accessor<T, Self>, #rep)
                    -> impl ::core::future::Future<Output = #r<()>> + ::core::marker::Send where Self: Sized
            },
        }
    }

    /// The body that turns the host's return value `r` into the guest's
    /// results; `host` is how to reach the `Host` again for a conversion.
    fn finish(
        &self,
        f: &Function,
        trappable: bool,
        conv_host: TokenStream,
        depth: usize,
        set: &ImportSet<'_>,
    ) -> (TokenStream, Option<TokenStream>) {
        let mut extra = None;
        let mut out = TokenStream::new();
        if trappable {
            if let Some((_, err, _)) = self.trappable_result(f) {
                let owner = owner_iface(self.resolve, err);
                let conv_trait = if owner.is_some() && owner == set.iface {
                    let h = &set.host;
                    quote!(#h)
                } else if let Some(o) = owner {
                    let p = self.iface_path(o, depth);
                    extra = Some(quote!(#p::Host));
                    quote!(#p::Host)
                } else {
                    let h = &set.host;
                    quote!(#h)
                };
                let cname = format_ident!(
                    "convert_{}",
                    snake(self.resolve.types[err].name.as_deref().unwrap_or("error"))
                );
                out.extend(quote! {
                    let r = match r {
                        ::core::result::Result::Ok(v) => ::core::result::Result::Ok(v),
                        ::core::result::Result::Err(e) => ::core::result::Result::Err(#conv_trait::#cname(#conv_host, e)?),
                    };
                });
            } else {
                out.extend(quote!(let r = r?;));
            }
        }
        if f.result.is_some() {
            out.extend(quote!(::core::result::Result::Ok((r,))));
        } else {
            out.extend(quote!(let () = r; ::core::result::Result::Ok(())));
        }
        (out, extra)
    }

    /// Traits, forwarding impls and linker statements of an import set.
    pub(crate) fn import_set(&self, set: &ImportSet<'_>) -> syn::Result<ImportOut> {
        let rt = &self.rt;
        let send = self.send_bound();
        let depth = set.depth;
        let mut traits = TokenStream::new();
        let mut body = TokenStream::new();
        let mut extra_hosts = Vec::new();
        // Resources first, then the freestanding functions.
        let mut groups: Vec<(Option<TypeId>, Ident, Ident)> = set
            .resources
            .iter()
            .map(|r| {
                let n = camel(self.resolve.types[*r].name.as_deref().unwrap_or("resource"));
                (
                    Some(*r),
                    format_ident!("Host{}", n),
                    format_ident!("Host{}WithStore", n),
                )
            })
            .collect();
        groups.push((None, set.host.clone(), set.host_ws.clone()));
        let mut sub_plain = Vec::new();
        let mut sub_ws = Vec::new();
        for (res, plain, ws) in &groups {
            let mut plain_methods = Vec::new();
            let mut ws_methods = Vec::new();
            let mut forwards = Vec::new();
            if let Some(r) = res {
                let wit_name = self.resolve.types[*r].name.clone().unwrap_or_default();
                let res_ty = ident(&camel(&wit_name));
                let style = self.drop_style(set.iface, &wit_name);
                let sig = self.drop_sig(&res_ty, style);
                let d = format!("Drops the `{wit_name}` whose `own` handle the guest dropped.");
                let rtype = quote!(#rt::component::ResourceType::host::<#res_ty>());
                let new_own = quote!(#rt::component::Resource::new_own(rep));
                let mut rbody = TokenStream::new();
                match style {
                    Style::Sync => {
                        plain_methods.push(quote!(#[doc = #d] #sig;));
                        forwards.push(quote!(#sig { #plain::drop(&mut **self, rep) }));
                        rbody.extend(quote! {
                            inst.resource(#wit_name, #rtype, move |mut store, rep| {
                                #plain::drop(&mut host_getter(store.data_mut()), #new_own)
                            })?;
                        });
                    }
                    Style::Async => {
                        plain_methods.push(quote!(#[doc = #d] #sig;));
                        forwards.push(quote!(#sig { #plain::drop(&mut **self, rep) }));
                        rbody.extend(quote! {
                            inst.resource_async(#wit_name, #rtype, move |mut store, rep| {
                                ::std::boxed::Box::new(async move {
                                    #plain::drop(&mut host_getter(store.data_mut()), #new_own).await
                                })
                            })?;
                        });
                    }
                    Style::Store => {
                        ws_methods.push(quote!(#[doc = #d] #sig;));
                        rbody.extend(quote! {
                            inst.resource(#wit_name, #rtype, move |store, rep| {
                                <D as #ws<T>>::drop(#rt::component::Access::new(store, host_getter), #new_own)
                            })?;
                        });
                    }
                    Style::AsyncStore | Style::Concurrent => {
                        ws_methods.push(quote!(#[doc = #d] #sig;));
                        rbody.extend(quote! {
                            inst.resource_concurrent(#wit_name, #rtype, move |caller: &#rt::component::Accessor<T>, rep| {
                                ::std::boxed::Box::pin(async move {
                                    let host = &caller.with_getter::<D>(host_getter);
                                    <D as #ws<T>>::drop(host, #new_own).await
                                })
                            })?;
                        });
                    }
                }
                body.extend(self.gate(set.options, &self.resolve.types[*r].stability, rbody));
            }
            for f in set.funcs.iter().filter(|f| f.kind.resource() == *res) {
                let flags = self.import_flags(set.iface, f);
                let style = self.import_style(set.iface, f);
                let trappable = flags.trappable;
                let (sig, names, tys) = self.host_sig(f, style, trappable, depth);
                let d = docs(&f.docs, &format!("The WIT function `{}`.", f.name));
                let mname = ident(&fn_name(f));
                let wit_name = &f.name;
                let args = quote!((#(#names,)*): (#(#tys,)*));
                let call_args = quote!(#(#names),*);
                match style {
                    Style::Sync | Style::Async => {
                        plain_methods.push(quote!(#d #sig;));
                        forwards.push(quote!(#sig { #plain::#mname(&mut **self, #call_args) }));
                    }
                    _ => ws_methods.push(quote!(#d #sig;)),
                }
                let store_ctx = quote!(#rt::StoreContextMut<'_, T>);
                let regetter = quote!(&mut host_getter(caller.data_mut()));
                let stmt = match style {
                    Style::Sync => {
                        let (fin, ex) = self.finish(f, trappable, quote!(host), depth, set);
                        extra_hosts.extend(ex);
                        quote! {
                            inst.func_wrap(#wit_name, move |mut caller: #store_ctx, #args| {
                                let host = &mut host_getter(caller.data_mut());
                                let r = #plain::#mname(host, #call_args);
                                #fin
                            })?;
                        }
                    }
                    Style::Async => {
                        let (fin, ex) = self.finish(f, trappable, quote!(host), depth, set);
                        extra_hosts.extend(ex);
                        quote! {
                            inst.func_wrap_async(#wit_name, move |mut caller: #store_ctx, #args| {
                                ::std::boxed::Box::new(async move {
                                    let host = &mut host_getter(caller.data_mut());
                                    let r = #plain::#mname(host, #call_args).await;
                                    #fin
                                })
                            })?;
                        }
                    }
                    Style::Store => {
                        let (fin, ex) = self.finish(f, trappable, regetter, depth, set);
                        extra_hosts.extend(ex);
                        quote! {
                            inst.func_wrap(#wit_name, move |mut caller: #store_ctx, #args| {
                                let host = #rt::component::Access::<T, D>::new(#rt::AsContextMut::as_context_mut(&mut caller), host_getter);
                                let r = <D as #ws<T>>::#mname(host, #call_args);
                                #fin
                            })?;
                        }
                    }
                    Style::AsyncStore => {
                        let (fin, ex) = self.finish(f, trappable, regetter, depth, set);
                        extra_hosts.extend(ex);
                        quote! {
                            inst.func_wrap_async(#wit_name, move |mut caller: #store_ctx, #args| {
                                ::std::boxed::Box::new(async move {
                                    let host = #rt::component::Access::<T, D>::new(#rt::AsContextMut::as_context_mut(&mut caller), host_getter);
                                    let r = <D as #ws<T>>::#mname(host, #call_args).await;
                                    #fin
                                })
                            })?;
                        }
                    }
                    Style::Concurrent => {
                        let (fin, ex) =
                            self.finish(f, trappable, quote!(&mut host_getter(access.data_mut())), depth, set);
                        extra_hosts.extend(ex);
                        // A conversion reaches the store through the accessor.
                        let fin = if trappable && self.trappable_result(f).is_some() {
                            quote! {
                                caller.with(|mut access| { #fin })
                            }
                        } else {
                            fin
                        };
                        quote! {
                            inst.func_wrap_concurrent(#wit_name, move |caller: &#rt::component::Accessor<T>, #args| {
                                ::std::boxed::Box::pin(async move {
                                    let host = &caller.with_getter::<D>(host_getter);
                                    let r = <D as #ws<T>>::#mname(host, #call_args).await;
                                    #fin
                                })
                            })?;
                        }
                    }
                };
                body.extend(self.gate(set.options, &f.stability, stmt));
            }
            if res.is_none() {
                // `convert_*` for the trappable error types defined here.
                if let Some(iface) = set.iface {
                    for (t, path) in &self.trappable {
                        if owner_iface(self.resolve, *t) == Some(iface) {
                            let wit = self.resolve.types[*t].name.clone().unwrap_or_default();
                            let cname = format_ident!("convert_{}", snake(&wit));
                            let ty = ident(&camel(&wit));
                            let path = Self::user_path(path, depth);
                            let r = self.result_path();
                            let d = format!("Turns the Rust error into the WIT `{wit}` the guest gets, or a trap.");
                            let sig = quote!(fn #cname(&mut self, err: #path) -> #r<#ty>);
                            plain_methods.push(quote!(#[doc = #d] #sig;));
                            forwards.push(quote!(#sig { #plain::#cname(&mut **self, err) }));
                        }
                    }
                }
            }
            let ws_empty = ws_methods.is_empty();
            let (plain_supers, ws_supers) = if res.is_none() {
                (sub_plain.clone(), sub_ws.clone())
            } else {
                (Vec::new(), Vec::new())
            };
            let plain_bound = if plain_supers.is_empty() && !self.send {
                quote!()
            } else if plain_supers.is_empty() {
                quote!(: ::core::marker::Send)
            } else {
                quote!(: #(#plain_supers)+* #send)
            };
            let pd = format!("The host's side of `{}` (functions without store access).", plain);
            let wd = format!("The host's side of `{}` (functions with store access).", plain);
            traits.extend(quote! {
                #[doc = #pd]
                pub trait #plain #plain_bound { #(#plain_methods)* }
                #[doc = #wd]
                pub trait #ws<T: 'static>: #rt::component::HasData #(+ #ws_supers)* #send { #(#ws_methods)* }
            });
            if ws_empty {
                traits.extend(quote! {
                    impl<_H: ?Sized, T: 'static> #ws<T> for _H where _H: #rt::component::HasData #(+ #ws_supers)* #send {}
                });
            }
            if !self.cfg.skip_mut_forwarding_impls {
                traits.extend(quote! {
                    impl<_T: #plain + ?Sized #send> #plain for &mut _T { #(#forwards)* }
                });
            }
            if res.is_some() {
                sub_plain.push(quote!(#plain));
                sub_ws.push(quote!(#ws<T>));
            }
        }
        Ok(ImportOut {
            traits,
            body,
            extra_hosts,
        })
    }

    /// The module body of an imported interface.
    pub(crate) fn import_interface(&self, id: InterfaceId) -> syn::Result<TokenStream> {
        let rt = &self.rt;
        let send = self.send_bound();
        let info = &self.ifaces[&id];
        let depth = info.path.len();
        let iface = &self.resolve.interfaces[id];
        let mut out = TokenStream::new();
        let mut resources = Vec::new();
        for (_, t) in &iface.types {
            out.extend(self.typedef(*t, depth, Some(id))?);
            if self.is_resource_def(*t) {
                resources.push(*t);
            }
        }
        let features = self.iface_features(id);
        let set = ImportSet {
            iface: Some(id),
            funcs: iface.functions.values().collect(),
            resources,
            depth,
            host: ident("Host"),
            host_ws: ident("HostWithStore"),
            options: !features.is_empty(),
        };
        let (opt_param, opt_arg) = if features.is_empty() {
            (quote!(), quote!())
        } else {
            out.extend(self.link_options(&features));
            (quote!(options: &LinkOptions,), quote!(options,))
        };
        let ImportOut {
            traits,
            body,
            mut extra_hosts,
        } = self.import_set(&set)?;
        extra_hosts.dedup_by(|a, b| a.to_string() == b.to_string());
        let instance = &info.instance;
        let link_doc = format!(
            "Defines the interface on `linker` (as its instance `{instance}`), reaching the host's state through `host_getter`."
        );
        out.extend(traits);
        out.extend(quote! {
            /// Defines the interface's functions and resources on `inst`,
            /// reaching the host's state through `host_getter`.
            pub fn add_to_linker_instance<T, D>(
                inst: &mut #rt::component::LinkerInstance<'_, T>,
                #opt_param
                host_getter: fn(&mut T) -> D::Data<'_>,
            ) -> #rt::Result<()>
            where
                D: HostWithStore<T> #send,
                for<'a> D::Data<'a>: Host #(+ #extra_hosts)* #send,
                T: 'static #send,
            {
                let _ = (&host_getter, #opt_arg);
                #body
                ::core::result::Result::Ok(())
            }

            #[doc = #link_doc]
            pub fn add_to_linker<T, D>(
                linker: &mut #rt::component::Linker<T>,
                #opt_param
                host_getter: fn(&mut T) -> D::Data<'_>,
            ) -> #rt::Result<()>
            where
                D: HostWithStore<T> #send,
                for<'a> D::Data<'a>: Host #(+ #extra_hosts)* #send,
                T: 'static #send,
            {
                let mut inst = linker.instance(#instance)?;
                add_to_linker_instance::<T, D>(&mut inst, #opt_arg host_getter)
            }
        });
        Ok(out)
    }
}
