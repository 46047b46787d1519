//! The world: its struct (`instantiate`, `new`, `add_to_linker`, export
//! accessors), `{World}Pre`, `{World}Indices` and the world-level imports.

use super::exports::field_name;
use super::imports::{ImportOut, ImportSet};
use super::{camel, ident, snake, Gen};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use wit_parser::{Function, Stability, TypeId, WorldItem};

impl Gen<'_> {
    fn world_ident(&self) -> syn::Ident {
        let name = camel(&self.resolve.worlds[self.world].name);
        if name == "Host" {
            ident("Host_")
        } else {
            ident(&name)
        }
    }

    /// The `@unstable` features of the world's imports, sorted.
    pub(crate) fn world_features(&self) -> Vec<String> {
        let world = &self.resolve.worlds[self.world];
        let mut out = Vec::new();
        for (_, item) in world.imports.iter() {
            if let Stability::Unstable { feature, .. } = item.stability(self.resolve) {
                out.push(feature.clone());
            }
            if let WorldItem::Interface { id, .. } = item {
                out.extend(self.iface_features(*id));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The traits of the world's own imported functions and resources.
    pub(crate) fn world_imports(&self, funcs: &[&Function], resources: &[TypeId]) -> syn::Result<Option<ImportOut>> {
        if funcs.is_empty() && resources.is_empty() {
            return Ok(None);
        }
        let w = self.world_ident();
        let set = ImportSet {
            iface: None,
            funcs: funcs.to_vec(),
            resources: resources.to_vec(),
            depth: 0,
            host: format_ident!("{}Imports", w),
            host_ws: format_ident!("{}ImportsWithStore", w),
            options: !self.world_features().is_empty(),
        };
        self.import_set(&set).map(Some)
    }

    /// The world struct, `{World}Pre` and `{World}Indices`.
    pub(crate) fn world_struct(&self, world_imports: Option<&ImportOut>) -> syn::Result<TokenStream> {
        let rt = &self.rt;
        let world = &self.resolve.worlds[self.world];
        let w = self.world_ident();
        let pre = format_ident!("{}Pre", w);
        let idx = format_ident!("{}Indices", w);
        let send = if self.send {
            quote!(+ ::core::marker::Send)
        } else {
            quote!()
        };
        // Exports.
        let mut iface_fields = Vec::new();
        let mut iface_paths = Vec::new();
        let mut func_fields = Vec::new();
        let mut func_names = Vec::new();
        let mut func_loads = Vec::new();
        let mut methods = TokenStream::new();
        for (_, item) in world.exports.iter() {
            match item {
                WorldItem::Interface { id, .. } => {
                    let info = &self.ifaces[id];
                    let field = ident(&info.path[1..].join("_"));
                    let path = self.iface_path(*id, 0);
                    let d = format!("The exported interface `{}`.", info.instance);
                    methods.extend(quote! {
                        #[doc = #d]
                        pub fn #field(&self) -> &#path::Guest { &self.#field }
                    });
                    iface_fields.push(field);
                    iface_paths.push(path);
                }
                WorldItem::Function(f) => {
                    let field = field_name(f);
                    let (params, results, _) = self.export_types(f, None, 0);
                    let fname = &f.name;
                    func_loads.push(quote! {
                        let #field = *instance.get_typed_func::<(#(#params,)*), #results>(&mut store, #fname)?.func();
                    });
                    methods.extend(self.export_methods(f, None, 0, &snake(&f.name), quote!(self.#field)));
                    func_fields.push(field);
                    func_names.push(fname.clone());
                }
                WorldItem::Type { .. } => {}
            }
        }
        // Imports.
        let features = self.world_features();
        let has_options = !features.is_empty();
        let (opt_param, opt_arg) = if has_options {
            (quote!(options: &LinkOptions,), quote!(options,))
        } else {
            (quote!(), quote!())
        };
        let mut options_items = TokenStream::new();
        if has_options {
            options_items.extend(self.link_options(&features));
        }
        let mut ws_bounds = Vec::new();
        let mut host_bounds = Vec::new();
        let mut adds = Vec::new();
        if world_imports.is_some() {
            let h = format_ident!("{}Imports", w);
            let hw = format_ident!("{}ImportsWithStore", w);
            ws_bounds.push(quote!(#hw<T>));
            host_bounds.push(quote!(#h));
            adds.push(quote!(Self::add_to_linker_imports::<T, D>(linker, #opt_arg host_getter)?;));
        }
        for (_, item) in world.imports.iter() {
            if let WorldItem::Interface { id, stability, .. } = item {
                let p = self.iface_path(*id, 0);
                ws_bounds.push(quote!(#p::HostWithStore<T>));
                host_bounds.push(quote!(#p::Host));
                let own = self.iface_features(*id);
                let call = if own.is_empty() {
                    quote!(#p::add_to_linker::<T, D>(linker, host_getter)?;)
                } else {
                    let fields: Vec<syn::Ident> = own.iter().map(|f| ident(&snake(f))).collect();
                    options_items.extend(quote! {
                        impl ::core::convert::From<&LinkOptions> for #p::LinkOptions {
                            fn from(o: &LinkOptions) -> Self {
                                let mut r = #p::LinkOptions::default();
                                #(r.#fields(o.#fields);)*
                                r
                            }
                        }
                        impl ::core::convert::From<LinkOptions> for #p::LinkOptions {
                            fn from(o: LinkOptions) -> Self {
                                Self::from(&o)
                            }
                        }
                    });
                    quote!(#p::add_to_linker::<T, D>(linker, &#p::LinkOptions::from(options), host_getter)?;)
                };
                adds.push(self.gate(has_options, stability, call));
            }
        }
        let data_bound = if host_bounds.is_empty() && !self.send {
            quote!()
        } else if host_bounds.is_empty() {
            quote!(for<'a> D::Data<'a>: ::core::marker::Send,)
        } else {
            quote!(for<'a> D::Data<'a>: #(#host_bounds)+* #send,)
        };
        let add_imports = match world_imports {
            Some(out) => {
                let body = &out.body;
                let h = format_ident!("{}Imports", w);
                let hw = format_ident!("{}ImportsWithStore", w);
                let extra = &out.extra_hosts;
                quote! {
                    /// Defines the world's own imported functions and
                    /// resources on `linker`'s root.
                    pub fn add_to_linker_imports<T, D>(
                        linker: &mut #rt::component::Linker<T>,
                        #opt_param
                        host_getter: fn(&mut T) -> D::Data<'_>,
                    ) -> #rt::Result<()>
                    where
                        D: #hw<T> #send,
                        for<'a> D::Data<'a>: #h #(+ #extra)* #send,
                        T: 'static #send,
                    {
                        let _ = (#opt_arg);
                        let mut inst = linker.root();
                        let inst = &mut inst;
                        #body
                        ::core::result::Result::Ok(())
                    }
                }
            }
            None => quote!(),
        };
        let traits = world_imports.map(|o| o.traits.clone()).unwrap_or_default();
        let wd = format!(
            "The world `{}`: an instance of a component that targets it.",
            world.name
        );
        Ok(quote! {
            #traits
            #options_items

            #[doc = #wd]
            pub struct #w {
                #(#iface_fields: #iface_paths::Guest,)*
                #(#func_fields: #rt::component::Func,)*
            }

            /// The world's exports, found and type-checked once for many
            /// instantiations.
            #[derive(Clone)]
            pub struct #idx {
                #(#iface_fields: #iface_paths::GuestIndices,)*
            }

            /// A pre-instantiated component of the world: imports resolved,
            /// exports checked.
            pub struct #pre<T: 'static> {
                instance_pre: #rt::component::InstancePre<T>,
                indices: #idx,
            }

            impl<T: 'static> ::core::clone::Clone for #pre<T> {
                fn clone(&self) -> Self {
                    #pre { instance_pre: self.instance_pre.clone(), indices: self.indices.clone() }
                }
            }

            impl<_T: 'static> #pre<_T> {
                /// Checks the component's exports against the world.
                pub fn new(instance_pre: #rt::component::InstancePre<_T>) -> #rt::Result<Self> {
                    let indices = #idx::new(&instance_pre)?;
                    ::core::result::Result::Ok(#pre { instance_pre, indices })
                }

                /// The engine of the component.
                pub fn engine(&self) -> &#rt::Engine {
                    self.instance_pre.component().engine()
                }

                /// The pre-instantiated component.
                pub fn instance_pre(&self) -> &#rt::component::InstancePre<_T> {
                    &self.instance_pre
                }

                /// Instantiates the component in `store`.
                pub fn instantiate(&self, mut store: impl #rt::AsContextMut<Data = _T>) -> #rt::Result<#w> {
                    let mut store = #rt::AsContextMut::as_context_mut(&mut store);
                    let instance = self.instance_pre.instantiate(&mut store)?;
                    self.indices.load(&mut store, &instance)
                }
            }

            impl<_T: ::core::marker::Send + 'static> #pre<_T> {
                /// Instantiates the component in `store` on a fiber, for
                /// async host functions.
                pub async fn instantiate_async(
                    &self,
                    mut store: impl #rt::AsContextMut<Data = _T> + ::core::marker::Send,
                ) -> #rt::Result<#w> {
                    let mut store = #rt::AsContextMut::as_context_mut(&mut store);
                    let instance = self.instance_pre.instantiate_async(&mut store).await?;
                    self.indices.load(&mut store, &instance)
                }
            }

            impl #idx {
                /// Checks that the component of `instance_pre` has the
                /// world's exports.
                pub fn new<_T: 'static>(instance_pre: &#rt::component::InstancePre<_T>) -> #rt::Result<Self> {
                    let component = instance_pre.component();
                    let _ = component;
                    #(
                        if component.component_type().get_export(component.engine(), #func_names).is_none() {
                            return ::core::result::Result::Err(#rt::format_err!("no export named `{}`", #func_names));
                        }
                    )*
                    ::core::result::Result::Ok(#idx {
                        #(#iface_fields: #iface_paths::GuestIndices::__check(component)?,)*
                    })
                }

                /// Finds the world's exports in `instance`.
                pub fn load(
                    &self,
                    mut store: impl #rt::AsContextMut,
                    instance: &#rt::component::Instance,
                ) -> #rt::Result<#w> {
                    let mut store = #rt::AsContextMut::as_context_mut(&mut store);
                    let _ = (&mut store, instance);
                    #(let #iface_fields = self.#iface_fields.load(&mut store, instance)?;)*
                    #(#func_loads)*
                    ::core::result::Result::Ok(#w { #(#iface_fields,)* #(#func_fields,)* })
                }
            }

            impl #w {
                /// Instantiates `component` in `store` with `linker`'s
                /// definitions.
                pub fn instantiate<_T: 'static>(
                    store: impl #rt::AsContextMut<Data = _T>,
                    component: &#rt::component::Component,
                    linker: &#rt::component::Linker<_T>,
                ) -> #rt::Result<#w> {
                    let pre = linker.instantiate_pre(component)?;
                    #pre::new(pre)?.instantiate(store)
                }

                /// The world's exports of an existing instance.
                pub fn new(store: impl #rt::AsContextMut, instance: &#rt::component::Instance) -> #rt::Result<#w> {
                    let indices = #idx { #(#iface_fields: #iface_paths::GuestIndices::__unchecked(),)* };
                    indices.load(store, instance)
                }

                /// Instantiates `component` in `store` on a fiber.
                pub async fn instantiate_async<_T: ::core::marker::Send + 'static>(
                    store: impl #rt::AsContextMut<Data = _T> + ::core::marker::Send,
                    component: &#rt::component::Component,
                    linker: &#rt::component::Linker<_T>,
                ) -> #rt::Result<#w> {
                    let pre = linker.instantiate_pre(component)?;
                    #pre::new(pre)?.instantiate_async(store).await
                }

                /// Defines every import of the world on `linker`, reaching
                /// the host's state through `host_getter`.
                pub fn add_to_linker<T, D>(
                    linker: &mut #rt::component::Linker<T>,
                    #opt_param
                    host_getter: fn(&mut T) -> D::Data<'_>,
                ) -> #rt::Result<()>
                where
                    D: #rt::component::HasData #(+ #ws_bounds)* #send,
                    #data_bound
                    T: 'static #send,
                {
                    let _ = (&linker, &host_getter, #opt_arg);
                    #(#adds)*
                    ::core::result::Result::Ok(())
                }

                #add_imports

                #methods
            }
        })
    }
}
