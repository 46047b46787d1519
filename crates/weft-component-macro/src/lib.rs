//! Derive macros `ComponentType`, `Lift` and `Lower`, the `flags!` macro
//! and `bindgen!`, for weft's typed component API (`weft::component`), as
//! Wasmtime's `wasmtime-component-macro`. Use them through `weft::component`; the
//! generated code refers to `weft::component::__internal`.
//!
//! * `#[component(record)]` on a struct with named fields: a `record` whose
//!   labels are the field names in kebab case (`foo_bar` is `foo-bar`).
//! * `#[component(variant)]` on an enum whose cases have no field or one
//!   unnamed field: a `variant`.
//! * `#[component(enum)]` on an enum without fields: an `enum`.
//!
//! Case labels are the case names in kebab case (`FooBar` is `foo-bar`).
//! `#[component(name = "...")]` on a field or case sets its label. Generic
//! types are not supported.

#![deny(missing_docs)]

mod bindgen;

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Data, DeriveInput, Error, Fields, Ident, LitStr, Token, Type};

/// Derives `weft::component::ComponentType` (see the crate documentation).
#[proc_macro_derive(ComponentType, attributes(component))]
pub fn derive_component_type(input: TokenStream) -> TokenStream {
    expand(input, Trait::ComponentType)
}

/// Derives `weft::component::Lift` (see the crate documentation).
#[proc_macro_derive(Lift, attributes(component))]
pub fn derive_lift(input: TokenStream) -> TokenStream {
    expand(input, Trait::Lift)
}

/// Derives `weft::component::Lower` (see the crate documentation).
#[proc_macro_derive(Lower, attributes(component))]
pub fn derive_lower(input: TokenStream) -> TokenStream {
    expand(input, Trait::Lower)
}

#[derive(Clone, Copy)]
enum Trait {
    ComponentType,
    Lift,
    Lower,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Record,
    Variant,
    Enum,
}

/// What a `#[component(...)]` attribute says.
#[derive(Default)]
struct ComponentAttr {
    kind: Option<Kind>,
    name: Option<String>,
}

fn parse_attrs(attrs: &[Attribute]) -> syn::Result<ComponentAttr> {
    let mut out = ComponentAttr::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("component")) {
        attr.parse_nested_meta(|meta| {
            let kind = if meta.path.is_ident("record") {
                Kind::Record
            } else if meta.path.is_ident("variant") {
                Kind::Variant
            } else if meta.path.is_ident("enum") {
                Kind::Enum
            } else if meta.path.is_ident("name") {
                let lit: LitStr = meta.value()?.parse()?;
                out.name = Some(lit.value());
                return Ok(());
            } else {
                return Err(meta.error("expected `record`, `variant`, `enum` or `name = \"...\"`"));
            };
            if out.kind.replace(kind).is_some() {
                return Err(meta.error("the kind of the type is given twice"));
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// `snake_case` or `UpperCamelCase` in kebab case.
fn kebab(ident: &str) -> String {
    let ident = ident.strip_prefix("r#").unwrap_or(ident);
    let mut out = String::new();
    let mut prev_lower = false;
    for c in ident.chars() {
        if c == '_' {
            out.push('-');
            prev_lower = false;
        } else if c.is_uppercase() {
            if prev_lower {
                out.push('-');
            }
            out.extend(c.to_lowercase());
            prev_lower = false;
        } else {
            out.push(c);
            prev_lower = true;
        }
    }
    out
}

fn expand(input: TokenStream, which: Trait) -> TokenStream {
    let input = syn::parse_macro_input!(input as DeriveInput);
    match expand_derive(&input, which) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// A field of a record or a case of a variant or enum: its Rust name, its
/// label and its payload type.
struct Member {
    ident: Ident,
    label: String,
    ty: Option<Type>,
}

fn expand_derive(input: &DeriveInput, which: Trait) -> syn::Result<TokenStream2> {
    if !input.generics.params.is_empty() {
        return Err(Error::new_spanned(
            &input.generics,
            "generic component types are not supported",
        ));
    }
    let attr = parse_attrs(&input.attrs)?;
    let Some(kind) = attr.kind else {
        return Err(Error::new(
            Span::call_site(),
            "expected `#[component(record)]`, `#[component(variant)]` or `#[component(enum)]`",
        ));
    };
    let mut members = Vec::new();
    match (&input.data, kind) {
        (Data::Struct(s), Kind::Record) => {
            let Fields::Named(fields) = &s.fields else {
                return Err(Error::new_spanned(&s.fields, "a record needs named fields"));
            };
            for f in &fields.named {
                let Some(ident) = f.ident.clone() else {
                    return Err(Error::new_spanned(f, "a record needs named fields"));
                };
                let label = parse_attrs(&f.attrs)?.name.unwrap_or_else(|| kebab(&ident.to_string()));
                members.push(Member {
                    ident,
                    label,
                    ty: Some(f.ty.clone()),
                });
            }
        }
        (Data::Enum(e), Kind::Variant | Kind::Enum) => {
            for v in &e.variants {
                let ty = match &v.fields {
                    Fields::Unit => None,
                    Fields::Unnamed(f) if f.unnamed.len() == 1 && kind == Kind::Variant => {
                        f.unnamed.first().map(|f| f.ty.clone())
                    }
                    _ if kind == Kind::Enum => {
                        return Err(Error::new_spanned(&v.fields, "the cases of an enum have no fields"))
                    }
                    _ => {
                        return Err(Error::new_spanned(
                            &v.fields,
                            "a case of a variant has no field or one unnamed field",
                        ))
                    }
                };
                let label = parse_attrs(&v.attrs)?
                    .name
                    .unwrap_or_else(|| kebab(&v.ident.to_string()));
                members.push(Member {
                    ident: v.ident.clone(),
                    label,
                    ty,
                });
            }
        }
        (_, Kind::Record) => return Err(Error::new(Span::call_site(), "a record must be a struct")),
        (_, _) => return Err(Error::new(Span::call_site(), "a variant or enum must be an enum")),
    }
    let name = &input.ident;
    let rt = quote!(weft::component::__internal);
    let labels: Vec<&str> = members.iter().map(|m| m.label.as_str()).collect();
    let idents: Vec<&Ident> = members.iter().map(|m| &m.ident).collect();
    Ok(match which {
        Trait::ComponentType => {
            let body = match kind {
                Kind::Record => {
                    let tys = members.iter().map(|m| &m.ty);
                    quote!(#rt::typecheck_record(ty, types, &[#((#labels, <#tys as #rt::ComponentType>::typecheck as #rt::Typecheck)),*]))
                }
                Kind::Variant => {
                    let checks = members.iter().map(|m| match &m.ty {
                        Some(t) => quote!(Some(<#t as #rt::ComponentType>::typecheck as #rt::Typecheck)),
                        None => quote!(None),
                    });
                    quote!(#rt::typecheck_variant(ty, types, &[#((#labels, #checks)),*]))
                }
                Kind::Enum => quote!(#rt::typecheck_enum(ty, types, &[#(#labels),*])),
            };
            quote! {
                impl #rt::ComponentType for #name {
                    fn typecheck(ty: &#rt::InterfaceType, types: &#rt::InstanceType<'_>) -> #rt::Result<()> {
                        #body
                    }
                }
            }
        }
        Trait::Lift => {
            let body = match kind {
                Kind::Record => {
                    let tys = members.iter().map(|m| &m.ty);
                    quote! {
                        let mut fields = #rt::lift_record(val, &[#(#labels),*])?;
                        Ok(Self { #(#idents: <#tys as #rt::Lift>::lift(store, #rt::next_field(&mut fields)?)?,)* })
                    }
                }
                Kind::Variant => {
                    let arms = members.iter().map(|m| {
                        let (ident, label) = (&m.ident, &m.label);
                        match &m.ty {
                            Some(t) => quote!(#label => Ok(Self::#ident(<#t as #rt::Lift>::lift(store, #rt::payload(payload, #label)?)?)),),
                            None => quote!(#label => { #rt::no_payload(payload, #label)?; Ok(Self::#ident) }),
                        }
                    });
                    quote! {
                        let (name, payload) = #rt::lift_variant(val)?;
                        match name.as_str() {
                            #(#arms)*
                            other => Err(#rt::unknown("case", other)),
                        }
                    }
                }
                Kind::Enum => quote! {
                    let name = #rt::lift_enum(val)?;
                    match name.as_str() {
                        #(#labels => Ok(Self::#idents),)*
                        other => Err(#rt::unknown("case", other)),
                    }
                },
            };
            quote! {
                impl #rt::Lift for #name {
                    #[allow(unused_variables, reason = "a case without payload binds nothing")]
                    fn lift<U: 'static>(store: &mut #rt::StoreContextMut<'_, U>, val: #rt::Val) -> #rt::Result<Self> {
                        #body
                    }
                }
            }
        }
        Trait::Lower => {
            let body = match kind {
                // Through `lower_record`, which releases the handles made
                // for the fields before one that fails.
                Kind::Record => quote! {
                    #rt::lower_record(store, &[#((#labels, &self.#idents as &dyn #rt::LowerVal<U>)),*])
                },
                Kind::Variant => {
                    let arms = members.iter().map(|m| {
                        let (ident, label) = (&m.ident, &m.label);
                        match &m.ty {
                            Some(_) => quote!(Self::#ident(v) => Ok(#rt::Val::Variant(#label.to_string(), Some(Box::new(#rt::Lower::lower(v, store)?)))),),
                            None => quote!(Self::#ident => Ok(#rt::Val::Variant(#label.to_string(), None)),),
                        }
                    });
                    quote!(match self { #(#arms)* })
                }
                Kind::Enum => quote! {
                    match self { #(Self::#idents => Ok(#rt::Val::Enum(#labels.to_string())),)* }
                },
            };
            quote! {
                impl #rt::Lower for #name {
                    #[allow(unused_variables, reason = "a case without payload binds nothing")]
                    fn lower<U: 'static>(&self, store: &mut #rt::StoreContextMut<'_, U>) -> #rt::Result<#rt::Val> {
                        #body
                    }
                }
            }
        }
    })
}

/// Generates Rust bindings for a WIT world, as Wasmtime 48's
/// `component::bindgen!`: a struct per world (`instantiate`,
/// `instantiate_async`, `new`, `add_to_linker`, `{World}Pre`,
/// `{World}Indices`), a `Host` trait per imported interface (and `HostFoo`
/// per resource) with `add_to_linker`, a `Guest` struct per exported
/// interface with `call_*` methods, and Rust types for the WIT types.
///
/// Forms: `bindgen!()`, `bindgen!("world")`, `bindgen!(in "path")`,
/// `bindgen!("world" in "path")` and `bindgen!({ option: value, ... })` with
/// the options `world`, `path`, `inline`, `imports`, `exports`
/// (`async | store | trappable` flags per function or `default`),
/// `trappable_error_type`, `with`, `additional_derives`, `ownership`
/// (`Owning`), `require_store_data_send`, `wasmtime_crate`, `anyhow`,
/// `skip_mut_forwarding_impls` and `stringify`. Paths are relative to the
/// crate's `Cargo.toml`; an error in the WIT is a compile error naming its
/// file and line. `with` maps imported interfaces (by interface, package
/// or namespace) and resources; `@unstable` features become `LinkOptions`.
/// Not supported yet: `ownership: Borrowing`, `interfaces`,
/// `named_imports`, `include_component_type` (errors); the `tracing` and
/// `verbose_tracing` flags are accepted and add no tracing.
#[proc_macro]
pub fn bindgen(input: TokenStream) -> TokenStream {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    match bindgen::expand(input.into(), std::path::Path::new(&dir)) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// The input of `flags!`: `Name { #[component(name = "...")] const FLAG; ... }`.
struct FlagsInput {
    attrs: Vec<Attribute>,
    name: Ident,
    flags: Vec<(Vec<Attribute>, Ident)>,
}

impl Parse for FlagsInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let name: Ident = input.parse()?;
        let body;
        syn::braced!(body in input);
        let mut flags = Vec::new();
        while !body.is_empty() {
            let attrs = body.call(Attribute::parse_outer)?;
            body.parse::<Token![const]>()?;
            let ident: Ident = body.parse()?;
            body.parse::<Token![;]>()?;
            flags.push((attrs, ident));
        }
        Ok(FlagsInput { attrs, name, flags })
    }
}

/// Defines a set of flags: `flags! { Perms { #[component(name = "read")]
/// const READ; const WRITE; } }` makes a `Copy` struct `Perms` with
/// associated constants `READ` and `WRITE`, the operators `|`, `&`, `^`,
/// `!` and `-` and the methods `empty`, `all`, `contains`, `is_empty`,
/// `insert` and `remove`, standing for the component type
/// `flags { read, write }` (a flag's label is its name in kebab case unless
/// `#[component(name = "...")]` sets it). Up to 64 flags. Attributes before
/// the name (like doc comments) go on the struct.
#[proc_macro]
pub fn flags(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as FlagsInput);
    match expand_flags(input) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand_flags(input: FlagsInput) -> syn::Result<TokenStream2> {
    if input.flags.len() > 64 {
        return Err(Error::new_spanned(&input.name, "at most 64 flags are supported"));
    }
    let rt = quote!(weft::component::__internal);
    let FlagsInput { attrs, name, flags } = input;
    let mut idents = Vec::new();
    let mut labels = Vec::new();
    let mut docs = Vec::new();
    for (attrs, ident) in &flags {
        let label = parse_attrs(attrs)?
            .name
            .unwrap_or_else(|| kebab(&ident.to_string().to_lowercase()));
        docs.push(format!("The flag `{label}`."));
        labels.push(label);
        idents.push(ident.clone());
    }
    let bits: Vec<u64> = (0..flags.len() as u32).map(|i| 1u64 << i).collect();
    let all: u64 = bits.iter().fold(0, |a, b| a | b);
    let debug_name = name.to_string();
    let field = format_ident!("__bits");
    Ok(quote! {
        #(#attrs)*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct #name { #field: u64 }

        #[allow(dead_code, reason = "a program uses only some of its flags")]
        impl #name {
            #(#[doc = #docs] pub const #idents: Self = Self { #field: #bits };)*

            /// No flag set.
            pub const fn empty() -> Self { Self { #field: 0 } }
            /// Every flag set.
            pub const fn all() -> Self { Self { #field: #all } }
            /// Whether every flag of `other` is set in `self`.
            pub const fn contains(&self, other: Self) -> bool { self.#field & other.#field == other.#field }
            /// Whether no flag is set.
            pub const fn is_empty(&self) -> bool { self.#field == 0 }
            /// Sets the flags of `other`.
            pub fn insert(&mut self, other: Self) { self.#field |= other.#field; }
            /// Clears the flags of `other`.
            pub fn remove(&mut self, other: Self) { self.#field &= !other.#field; }
        }

        impl ::core::ops::BitOr for #name {
            type Output = Self;
            fn bitor(self, rhs: Self) -> Self { Self { #field: self.#field | rhs.#field } }
        }
        impl ::core::ops::BitOrAssign for #name {
            fn bitor_assign(&mut self, rhs: Self) { self.#field |= rhs.#field; }
        }
        impl ::core::ops::BitAnd for #name {
            type Output = Self;
            fn bitand(self, rhs: Self) -> Self { Self { #field: self.#field & rhs.#field } }
        }
        impl ::core::ops::BitAndAssign for #name {
            fn bitand_assign(&mut self, rhs: Self) { self.#field &= rhs.#field; }
        }
        impl ::core::ops::BitXor for #name {
            type Output = Self;
            fn bitxor(self, rhs: Self) -> Self { Self { #field: self.#field ^ rhs.#field } }
        }
        impl ::core::ops::BitXorAssign for #name {
            fn bitxor_assign(&mut self, rhs: Self) { self.#field ^= rhs.#field; }
        }
        impl ::core::ops::Sub for #name {
            type Output = Self;
            fn sub(self, rhs: Self) -> Self { Self { #field: self.#field & !rhs.#field } }
        }
        impl ::core::ops::Not for #name {
            type Output = Self;
            fn not(self) -> Self { Self { #field: !self.#field & #all } }
        }

        impl ::core::fmt::Debug for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(#debug_name)?;
                f.write_str("(")?;
                let mut first = true;
                #(
                    if self.contains(Self::#idents) {
                        if !first { f.write_str(" | ")?; }
                        first = false;
                        f.write_str(::core::stringify!(#idents))?;
                    }
                )*
                let _ = first;
                f.write_str(")")
            }
        }

        impl #rt::ComponentType for #name {
            fn typecheck(ty: &#rt::InterfaceType, types: &#rt::InstanceType<'_>) -> #rt::Result<()> {
                #rt::typecheck_flags(ty, types, &[#(#labels),*])
            }
        }

        impl #rt::Lift for #name {
            fn lift<U: 'static>(_store: &mut #rt::StoreContextMut<'_, U>, val: #rt::Val) -> #rt::Result<Self> {
                let mut out = Self::empty();
                for name in #rt::lift_flags(val)? {
                    match name.as_str() {
                        #(#labels => out.insert(Self::#idents),)*
                        other => return Err(#rt::unknown("flag", other)),
                    }
                }
                Ok(out)
            }
        }

        impl #rt::Lower for #name {
            fn lower<U: 'static>(&self, _store: &mut #rt::StoreContextMut<'_, U>) -> #rt::Result<#rt::Val> {
                let mut names = Vec::new();
                #(
                    if self.contains(Self::#idents) {
                        names.push(#labels.to_string());
                    }
                )*
                Ok(#rt::Val::Flags(names))
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::kebab;

    #[test]
    fn names_are_kebab_cased() {
        assert_eq!(kebab("foo_bar"), "foo-bar");
        assert_eq!(kebab("FooBar"), "foo-bar");
        assert_eq!(kebab("a"), "a");
        assert_eq!(kebab("r#type"), "type");
        assert_eq!(kebab("read_all"), "read-all");
    }
}
