//! The input of `bindgen!`: the short forms and the `{ key: value, ... }`
//! form with Wasmtime 48's options.

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::{braced, bracketed, Error, Ident, LitBool, LitStr, Path, Token};

/// The flags of an `imports`/`exports` rule.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub(crate) struct FnFlags {
    pub(crate) async_: bool,
    pub(crate) store: bool,
    pub(crate) trappable: bool,
    pub(crate) tracing: bool,
    pub(crate) exact: bool,
}

/// An `imports` or `exports` option: keyed rules in order, and `default`.
#[derive(Default)]
pub(crate) struct FnRules {
    pub(crate) rules: Vec<(String, FnFlags)>,
    pub(crate) default: FnFlags,
}

/// Every option of the macro.
#[derive(Default)]
pub(crate) struct Config {
    pub(crate) world: Option<String>,
    pub(crate) paths: Vec<String>,
    pub(crate) inline: Option<String>,
    pub(crate) imports: FnRules,
    pub(crate) exports: FnRules,
    pub(crate) trappable_error_type: Vec<(String, Path)>,
    pub(crate) with: Vec<(String, Path)>,
    pub(crate) additional_derives: Vec<Path>,
    pub(crate) require_store_data_send: bool,
    pub(crate) crate_path: Option<Path>,
    pub(crate) anyhow: bool,
    pub(crate) skip_mut_forwarding_impls: bool,
    pub(crate) stringify: bool,
}

impl Parse for Config {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut cfg = Config::default();
        if input.is_empty() {
            return Ok(cfg);
        }
        if input.peek(syn::token::Brace) {
            let body;
            braced!(body in input);
            parse_options(&body, &mut cfg)?;
            if !input.is_empty() {
                return Err(input.error("unexpected input after the options"));
            }
            return Ok(cfg);
        }
        if input.peek(LitStr) {
            cfg.world = Some(input.parse::<LitStr>()?.value());
        }
        if input.peek(Token![in]) {
            input.parse::<Token![in]>()?;
            cfg.paths.push(input.parse::<LitStr>()?.value());
        }
        if !input.is_empty() {
            return Err(input.error("expected `\"world\"`, `in \"path\"` or `{ options }`"));
        }
        Ok(cfg)
    }
}

fn parse_bool(input: ParseStream) -> syn::Result<bool> {
    Ok(input.parse::<LitBool>()?.value)
}

fn parse_options(input: ParseStream, cfg: &mut Config) -> syn::Result<()> {
    let mut seen: Vec<String> = Vec::new();
    while !input.is_empty() {
        let key: Ident = input.parse()?;
        input.parse::<Token![:]>()?;
        let name = key.to_string();
        if seen.contains(&name) {
            let msg = match name.as_str() {
                "world" => "cannot specify second world".to_string(),
                "inline" | "path" => "cannot specify second source".to_string(),
                _ => format!("cannot specify `{name}` twice"),
            };
            return Err(Error::new(key.span(), msg));
        }
        seen.push(name.clone());
        match name.as_str() {
            "world" => cfg.world = Some(input.parse::<LitStr>()?.value()),
            "path" => {
                if input.peek(syn::token::Bracket) {
                    let list;
                    bracketed!(list in input);
                    let items = list.parse_terminated(|p| p.parse::<LitStr>(), Token![,])?;
                    cfg.paths.extend(items.iter().map(|l| l.value()));
                } else {
                    cfg.paths.push(input.parse::<LitStr>()?.value());
                }
            }
            "inline" => cfg.inline = Some(input.parse::<LitStr>()?.value()),
            "imports" => cfg.imports = parse_rules(input)?,
            "exports" => cfg.exports = parse_rules(input)?,
            "trappable_error_type" => {
                let body;
                braced!(body in input);
                while !body.is_empty() {
                    let k: LitStr = body.parse()?;
                    body.parse::<Token![=>]>()?;
                    let p: Path = body.parse()?;
                    cfg.trappable_error_type.push((k.value(), p));
                    if !body.is_empty() {
                        body.parse::<Token![,]>()?;
                    }
                }
            }
            "with" => {
                let body;
                braced!(body in input);
                while !body.is_empty() {
                    let k: LitStr = body.parse()?;
                    body.parse::<Token![:]>()?;
                    let p: Path = body.parse()?;
                    let has_args = p.segments.iter().any(|s| !s.arguments.is_none());
                    if has_args {
                        return Err(Error::new(k.span(), "Module path must not contain angles or parens"));
                    }
                    cfg.with.push((k.value(), p));
                    if !body.is_empty() {
                        body.parse::<Token![,]>()?;
                    }
                }
            }
            "additional_derives" => {
                let list;
                bracketed!(list in input);
                let items = list.parse_terminated(Path::parse, Token![,])?;
                for p in items {
                    let s = quote::quote!(#p).to_string();
                    if !cfg
                        .additional_derives
                        .iter()
                        .any(|d| quote::quote!(#d).to_string() == s)
                    {
                        cfg.additional_derives.push(p);
                    }
                }
            }
            "ownership" => {
                let kind: Ident = input.parse()?;
                match kind.to_string().as_str() {
                    "Owning" => {}
                    "Borrowing" => {
                        return Err(Error::new(
                            kind.span(),
                            "`ownership: Borrowing` is not supported by weft's bindgen! yet; use `Owning`",
                        ))
                    }
                    _ => return Err(Error::new(kind.span(), "expected `Owning` or `Borrowing { .. }`")),
                }
            }
            "require_store_data_send" => cfg.require_store_data_send = parse_bool(input)?,
            "wasmtime_crate" => cfg.crate_path = Some(input.parse()?),
            "anyhow" => cfg.anyhow = parse_bool(input)?,
            "skip_mut_forwarding_impls" => cfg.skip_mut_forwarding_impls = parse_bool(input)?,
            "stringify" => cfg.stringify = parse_bool(input)?,
            // Both only change how rustc shows the expansion.
            "include_generated_code_from_file" | "debug" => {
                parse_bool(input)?;
            }
            "interfaces" | "named_imports" | "include_component_type" => {
                return Err(Error::new(
                    key.span(),
                    format!("the `{name}` option is not supported by weft's bindgen! yet"),
                ))
            }
            "async" | "trappable_imports" | "concurrent_imports" | "concurrent_exports" | "tracing"
            | "verbose_tracing" => {
                return Err(Error::new(
                    key.span(),
                    format!("the `{name}` option was removed: use the `imports`/`exports` flags instead"),
                ))
            }
            _ => return Err(Error::new(key.span(), format!("unknown bindgen! option `{name}`"))),
        }
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
    }
    if cfg.inline.is_some() && cfg.world.is_none() && seen.iter().any(|s| s == "interfaces") {
        return Err(Error::new(
            Span::call_site(),
            "`interfaces` cannot be combined with `inline`",
        ));
    }
    Ok(())
}

fn parse_flags(input: ParseStream) -> syn::Result<FnFlags> {
    let mut flags = FnFlags::default();
    loop {
        if input.peek(Token![async]) {
            input.parse::<Token![async]>()?;
            flags.async_ = true;
        } else {
            let id: Ident = input.parse()?;
            match id.to_string().as_str() {
                "store" => flags.store = true,
                "trappable" => flags.trappable = true,
                "tracing" => flags.tracing = true,
                "verbose_tracing" => flags.tracing = true,
                "exact" => flags.exact = true,
                other => {
                    return Err(Error::new(
                        id.span(),
                        format!("unknown flag `{other}`: expected `async`, `store`, `trappable`, `tracing`, `verbose_tracing` or `exact`"),
                    ))
                }
            }
        }
        if input.peek(Token![|]) {
            input.parse::<Token![|]>()?;
        } else {
            return Ok(flags);
        }
    }
}

fn parse_rules(input: ParseStream) -> syn::Result<FnRules> {
    let body;
    braced!(body in input);
    let mut rules = FnRules::default();
    let mut default_seen = false;
    while !body.is_empty() {
        if body.peek(LitStr) {
            let k: LitStr = body.parse()?;
            body.parse::<Token![:]>()?;
            rules.rules.push((k.value(), parse_flags(&body)?));
        } else {
            let id: Ident = body.parse()?;
            if id != "default" || default_seen {
                return Err(Error::new(id.span(), "expected a \"function\" key or one `default`"));
            }
            default_seen = true;
            body.parse::<Token![:]>()?;
            rules.default = parse_flags(&body)?;
        }
        if !body.is_empty() {
            body.parse::<Token![,]>()?;
        }
    }
    Ok(rules)
}
