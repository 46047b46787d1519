//! WIT types as Rust types: references to types and the definitions of
//! named types (records, variants, enums, flags, resources, aliases).

use super::{camel, docs, ident, shouty, snake, Gen};
use proc_macro2::TokenStream;
use quote::quote;
use wit_parser::{Handle, InterfaceId, Type, TypeDefKind, TypeId, TypeOwner};

impl Gen<'_> {
    /// The Rust type of `t` seen from a module `depth` levels down;
    /// `borrowed` for the parameters of exports (`&str`, `&[T]`).
    pub(crate) fn ty(&self, t: &Type, depth: usize, borrowed: bool) -> TokenStream {
        match t {
            Type::Bool => quote!(bool),
            Type::U8 => quote!(u8),
            Type::U16 => quote!(u16),
            Type::U32 => quote!(u32),
            Type::U64 => quote!(u64),
            Type::S8 => quote!(i8),
            Type::S16 => quote!(i16),
            Type::S32 => quote!(i32),
            Type::S64 => quote!(i64),
            Type::F32 => quote!(f32),
            Type::F64 => quote!(f64),
            Type::Char => quote!(char),
            Type::String if borrowed => quote!(&str),
            Type::String => quote!(::std::string::String),
            Type::ErrorContext => {
                let rt = &self.rt;
                quote!(#rt::component::ErrorContext)
            }
            Type::Id(id) => self.ty_id(*id, depth, borrowed),
        }
    }

    fn ty_id(&self, id: TypeId, depth: usize, borrowed: bool) -> TokenStream {
        let td = &self.resolve.types[id];
        if td.name.is_some() {
            let path = self.type_path(id, depth);
            if borrowed && self.has_list(&Type::Id(id)) {
                return quote!(&#path);
            }
            return path;
        }
        self.kind_ty(&td.kind, depth, borrowed)
    }

    /// The Rust type of an anonymous type of kind `kind`.
    fn kind_ty(&self, kind: &TypeDefKind, depth: usize, borrowed: bool) -> TokenStream {
        let rt = &self.rt;
        match kind {
            TypeDefKind::Option(t) => {
                let t = self.ty(t, depth, borrowed);
                quote!(::core::option::Option<#t>)
            }
            TypeDefKind::Result(r) => {
                let ok = r.ok.as_ref().map(|t| self.ty(t, depth, borrowed)).unwrap_or(quote!(()));
                let err = r
                    .err
                    .as_ref()
                    .map(|t| self.ty(t, depth, borrowed))
                    .unwrap_or(quote!(()));
                quote!(::core::result::Result<#ok, #err>)
            }
            TypeDefKind::List(t) => {
                let t = self.ty(t, depth, false);
                if borrowed {
                    quote!(&[#t])
                } else {
                    quote!(::std::vec::Vec<#t>)
                }
            }
            TypeDefKind::FixedLengthList(t, n) => {
                let t = self.ty(t, depth, borrowed);
                let n = *n as usize;
                quote!([#t; #n])
            }
            TypeDefKind::Map(k, v) => {
                let k = self.ty(k, depth, false);
                let v = self.ty(v, depth, false);
                quote!(::std::collections::HashMap<#k, #v>)
            }
            TypeDefKind::Tuple(t) => {
                let ts = t.types.iter().map(|t| self.ty(t, depth, borrowed));
                quote!((#(#ts,)*))
            }
            TypeDefKind::Handle(Handle::Own(r) | Handle::Borrow(r)) => self.handle(*r, depth),
            TypeDefKind::Future(t) => {
                let t = t.as_ref().map(|t| self.ty(t, depth, false)).unwrap_or(quote!(()));
                quote!(#rt::component::FutureReader<#t>)
            }
            TypeDefKind::Stream(t) => {
                let t = t.as_ref().map(|t| self.ty(t, depth, false)).unwrap_or(quote!(()));
                quote!(#rt::component::StreamReader<#t>)
            }
            TypeDefKind::Type(t) => self.ty(t, depth, borrowed),
            // Named kinds always have names; an unknown type is an error of
            // the resolver.
            TypeDefKind::Record(_)
            | TypeDefKind::Resource
            | TypeDefKind::Flags(_)
            | TypeDefKind::Variant(_)
            | TypeDefKind::Enum(_)
            | TypeDefKind::Unknown => quote!(()),
        }
    }

    /// `own<r>`/`borrow<r>`: `Resource<R>` for a host resource,
    /// `ResourceAny` for a guest (exported) one.
    fn handle(&self, r: TypeId, depth: usize) -> TokenStream {
        let rt = &self.rt;
        if self.is_guest_resource(r) {
            return quote!(#rt::component::ResourceAny);
        }
        let path = self.type_path(r, depth);
        quote!(#rt::component::Resource<#path>)
    }

    pub(crate) fn is_guest_resource(&self, r: TypeId) -> bool {
        let def = self.unalias(r);
        match self.resolve.types[def].owner {
            TypeOwner::Interface(i) => self.ifaces.get(&i).is_some_and(|info| info.exported),
            _ => false,
        }
    }

    /// The path of the named type `id` seen from `depth` levels down.
    pub(crate) fn type_path(&self, id: TypeId, depth: usize) -> TokenStream {
        let td = &self.resolve.types[id];
        let name = ident(&camel(td.name.as_deref().unwrap_or("anonymous")));
        match td.owner {
            TypeOwner::Interface(i) if *self.current.borrow() == Some(i) => quote!(#name),
            TypeOwner::Interface(i) if self.ifaces.contains_key(&i) => {
                let p = self.iface_path(i, depth);
                quote!(#p::#name)
            }
            _ => {
                let sup = Self::supers(depth);
                quote!(#sup #name)
            }
        }
    }

    /// Whether a value of `t` holds a string or list (so is passed by
    /// reference to exports).
    pub(crate) fn has_list(&self, t: &Type) -> bool {
        self.any_inner(t, &mut |k| {
            matches!(k, Some(TypeDefKind::List(_)) | Some(TypeDefKind::Map(..)) | None)
        })
    }

    /// Whether `t` may derive `Copy` (no string, list, handle, future,
    /// stream or error context inside).
    fn is_copy(&self, t: &Type) -> bool {
        !self.any_inner(t, &mut |k| {
            matches!(
                k,
                None | Some(TypeDefKind::List(_))
                    | Some(TypeDefKind::Map(..))
                    | Some(TypeDefKind::Handle(_))
                    | Some(TypeDefKind::Resource)
                    | Some(TypeDefKind::Future(_))
                    | Some(TypeDefKind::Stream(_))
            )
        })
    }

    /// Whether `t` may derive `Clone` (no future or stream inside).
    fn is_clone(&self, t: &Type) -> bool {
        !self.any_inner(t, &mut |k| {
            matches!(k, Some(TypeDefKind::Future(_)) | Some(TypeDefKind::Stream(_)))
        })
    }

    /// Whether `pred` holds for some part of `t` (`None` stands for
    /// `string` and `error-context`).
    fn any_inner(&self, t: &Type, pred: &mut dyn FnMut(Option<&TypeDefKind>) -> bool) -> bool {
        match t {
            Type::String | Type::ErrorContext => pred(None),
            Type::Id(id) => {
                let kind = &self.resolve.types[*id].kind;
                if pred(Some(kind)) {
                    return true;
                }
                match kind {
                    TypeDefKind::Record(r) => r.fields.iter().any(|f| self.any_inner(&f.ty, pred)),
                    TypeDefKind::Variant(v) => v
                        .cases
                        .iter()
                        .any(|c| c.ty.as_ref().is_some_and(|t| self.any_inner(t, pred))),
                    TypeDefKind::Tuple(t) => t.types.iter().any(|t| self.any_inner(t, pred)),
                    TypeDefKind::Option(t) | TypeDefKind::List(t) | TypeDefKind::FixedLengthList(t, _) => {
                        self.any_inner(t, pred)
                    }
                    TypeDefKind::Type(t) => self.any_inner(t, pred),
                    TypeDefKind::Result(r) => {
                        r.ok.as_ref().is_some_and(|t| self.any_inner(t, pred))
                            || r.err.as_ref().is_some_and(|t| self.any_inner(t, pred))
                    }
                    TypeDefKind::Map(k, v) => self.any_inner(k, pred) || self.any_inner(v, pred),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// The derives of a generated struct or enum: `base` then
    /// `additional_derives` not already there.
    fn derives(&self, base: &[&str]) -> TokenStream {
        let mut names: Vec<String> = base.iter().map(|s| s.to_string()).collect();
        let mut out: Vec<TokenStream> = base
            .iter()
            .map(|b| {
                let i = ident(b);
                quote!(#i)
            })
            .collect();
        for d in &self.cfg.additional_derives {
            let last = d.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            if !names.contains(&last) {
                names.push(last);
                out.push(quote!(#d));
            }
        }
        if out.is_empty() {
            quote!()
        } else {
            quote!(#[derive(#(#out),*)])
        }
    }

    /// The definition of the named type `id`, in a module `depth` levels
    /// down (`iface` is the interface whose module it is).
    pub(crate) fn typedef(&self, id: TypeId, depth: usize, iface: Option<InterfaceId>) -> syn::Result<TokenStream> {
        let rt = &self.rt;
        let td = &self.resolve.types[id];
        let Some(wit_name) = td.name.as_deref() else {
            return Ok(quote!());
        };
        let name = ident(&camel(wit_name));
        let doc = docs(&td.docs, &format!("The WIT type `{wit_name}`."));
        let ct = quote!(#rt::component::ComponentType, #rt::component::Lift, #rt::component::Lower);
        let this = Type::Id(id);
        let mut out = match &td.kind {
            TypeDefKind::Record(r) => {
                let fields = r.fields.iter().map(|f| {
                    let n = ident(&snake(&f.name));
                    let label = &f.name;
                    let t = self.ty(&f.ty, depth, false);
                    let d = docs(&f.docs, &format!("The field `{label}`."));
                    quote!(#d #[component(name = #label)] pub #n: #t)
                });
                let derives = self.derives(&self.std_derives(&this, false));
                quote! {
                    #doc
                    #[derive(#ct)]
                    #[component(record)]
                    #derives
                    pub struct #name { #(#fields,)* }
                }
            }
            TypeDefKind::Variant(v) => {
                let cases = v.cases.iter().map(|c| {
                    let n = ident(&camel(&c.name));
                    let label = &c.name;
                    let d = docs(&c.docs, &format!("The case `{label}`."));
                    match &c.ty {
                        Some(t) => {
                            let t = self.ty(t, depth, false);
                            quote!(#d #[component(name = #label)] #n(#t))
                        }
                        None => quote!(#d #[component(name = #label)] #n),
                    }
                });
                let derives = self.derives(&self.std_derives(&this, false));
                quote! {
                    #doc
                    #[derive(#ct)]
                    #[component(variant)]
                    #derives
                    pub enum #name { #(#cases,)* }
                }
            }
            TypeDefKind::Enum(e) => {
                let cases = e.cases.iter().map(|c| {
                    let n = ident(&camel(&c.name));
                    let label = &c.name;
                    let d = docs(&c.docs, &format!("The case `{label}`."));
                    quote!(#d #[component(name = #label)] #n)
                });
                let repr = match e.cases.len() {
                    0..=256 => quote!(u8),
                    257..=65536 => quote!(u16),
                    _ => quote!(u32),
                };
                let derives = self.derives(&["Clone", "Copy", "Eq", "PartialEq", "Debug"]);
                let mut out = quote! {
                    #doc
                    #[derive(#ct)]
                    #[component(enum)]
                    #derives
                    #[repr(#repr)]
                    pub enum #name { #(#cases,)* }
                };
                if self.error_types.contains(&id) {
                    let names = e.cases.iter().map(|c| {
                        let n = ident(&camel(&c.name));
                        let label = &c.name;
                        quote!(#name::#n => #label)
                    });
                    let messages = e.cases.iter().map(|c| {
                        let n = ident(&camel(&c.name));
                        let m = c.docs.contents.clone().unwrap_or_default();
                        quote!(#name::#n => #m)
                    });
                    out.extend(quote! {
                        impl #name {
                            /// The case's WIT name.
                            pub fn name(&self) -> &'static str { match self { #(#names,)* } }
                            /// The case's WIT documentation.
                            pub fn message(&self) -> &'static str { match self { #(#messages,)* } }
                        }
                    });
                }
                out
            }
            TypeDefKind::Flags(f) => {
                let flags = f.flags.iter().map(|fl| {
                    let n = ident(&shouty(&fl.name));
                    let label = &fl.name;
                    quote!(#[component(name = #label)] const #n;)
                });
                let builtin = ["Clone", "Copy", "PartialEq", "Eq", "Hash", "Default", "Debug"];
                let extra: Vec<&syn::Path> = self
                    .cfg
                    .additional_derives
                    .iter()
                    .filter(|d| {
                        let last = d.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                        !builtin.contains(&last.as_str())
                    })
                    .collect();
                let extra = if extra.is_empty() {
                    quote!()
                } else {
                    quote!(#[derive(#(#extra),*)])
                };
                quote! {
                    #rt::component::flags!(#doc #extra #name { #(#flags)* });
                }
            }
            TypeDefKind::Resource => {
                if self.is_guest_resource(id) {
                    quote!(#doc pub type #name = #rt::component::ResourceAny;)
                } else if let Some(p) = self.with_resource(iface, wit_name) {
                    let p = Self::user_path(&p, depth);
                    quote!(pub use #p as #name;)
                } else {
                    quote!(#doc pub enum #name {})
                }
            }
            TypeDefKind::Type(Type::Id(other)) if self.resolve.types[*other].name.is_some() => {
                let p = self.type_path(*other, depth);
                quote!(#doc pub type #name = #p;)
            }
            _ => {
                let t = self.ty_id_structural(id, depth);
                quote!(#doc pub type #name = #t;)
            }
        };
        let is_def = matches!(
            td.kind,
            TypeDefKind::Record(_) | TypeDefKind::Variant(_) | TypeDefKind::Enum(_) | TypeDefKind::Flags(_)
        );
        if is_def && self.error_types.contains(&id) {
            out.extend(quote! {
                impl ::core::fmt::Display for #name {
                    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        write!(f, "{:?}", self)
                    }
                }
                impl ::std::error::Error for #name {}
            });
        }
        Ok(out)
    }

    /// The structure of the named type `id` (for `type x = list<u8>`).
    fn ty_id_structural(&self, id: TypeId, depth: usize) -> TokenStream {
        self.kind_ty(&self.resolve.types[id].kind, depth, false)
    }

    /// The standard derives of a record or variant.
    fn std_derives(&self, t: &Type, _variant: bool) -> Vec<&'static str> {
        let mut d = Vec::new();
        if self.is_clone(t) {
            d.push("Clone");
        }
        if self.is_copy(t) {
            d.push("Copy");
        }
        d.push("Debug");
        d
    }
}
