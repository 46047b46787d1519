//! `bindgen!`: Rust bindings for a WIT world, in the shapes Wasmtime 48's
//! macro generates (see `../shared/api/wasmtime48-bindgen.md`). WIT is read
//! and resolved by `wit-parser`; this module only writes Rust.

mod options;
mod types;

use options::{Config, FnFlags, FnRules};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use syn::Error;
use wit_parser::{
    Function, FunctionKind, InterfaceId, Resolve, Type, TypeDefKind, TypeId, TypeOwner, WorldId, WorldItem, WorldKey,
};

/// Expands `bindgen!(input)`, reading WIT paths relative to `manifest_dir`.
pub(crate) fn expand(input: TokenStream, manifest_dir: &Path) -> syn::Result<TokenStream> {
    let cfg: Config = syn::parse2(input)?;
    let (resolve, world, files) = load(&cfg, manifest_dir)?;
    let out = Gen::new(&cfg, &resolve, world)?.generate(&files)?;
    if cfg.stringify {
        let s = out.to_string();
        return Ok(quote!(#s));
    }
    Ok(out)
}

fn wit_error(resolve: &Resolve, err: anyhow::Error) -> Error {
    // `render_error` adds the file, line and column of a parse or
    // resolution error; the chain of contexts says what was being read.
    let rendered = resolve.render_error(&err);
    let chain: Vec<String> = err.chain().map(|e| e.to_string()).collect();
    let msg = if chain.iter().all(|c| rendered.contains(c.as_str())) {
        rendered
    } else {
        format!("{}\n{rendered}", chain.join(": "))
    };
    Error::new(Span::call_site(), msg)
}

type Loaded = (Resolve, WorldId, Vec<String>);

fn load(cfg: &Config, manifest_dir: &Path) -> syn::Result<Loaded> {
    let mut resolve = Resolve::new();
    resolve.all_features = true;
    let mut files = Vec::new();
    let mut pkgs = Vec::new();
    let mut paths = cfg.paths.clone();
    if paths.is_empty() && (cfg.inline.is_none() || manifest_dir.join("wit").exists()) {
        paths.push("wit".to_string());
    }
    for p in &paths {
        let abs = manifest_dir.join(p);
        if !abs.exists() {
            if cfg.inline.is_some() && cfg.paths.is_empty() {
                continue;
            }
            return Err(Error::new(
                Span::call_site(),
                format!("failed to read WIT at `{}`: no such file or directory", abs.display()),
            ));
        }
        let (pkg, map) = resolve.push_path(&abs).map_err(|e| wit_error(&resolve, e))?;
        files.extend(map.paths().map(|p| p.display().to_string()));
        pkgs.push(pkg);
    }
    if let Some(inline) = &cfg.inline {
        let pkg = resolve
            .push_str("inline.wit", inline)
            .map_err(|e| wit_error(&resolve, e))?;
        pkgs = vec![pkg];
    }
    let world = resolve
        .select_world(&pkgs, cfg.world.as_deref())
        .map_err(|e| wit_error(&resolve, e))?;
    Ok((resolve, world, files))
}

/// Kebab-case WIT name to snake case, keywords escaped with `_`.
pub(crate) fn snake(name: &str) -> String {
    escape(name.to_lowercase().replace('-', "_"))
}

/// Kebab-case WIT name to upper camel case.
pub(crate) fn camel(name: &str) -> String {
    let mut out = String::new();
    for word in name.split('-') {
        let mut chars = word.chars();
        if let Some(c) = chars.next() {
            out.extend(c.to_uppercase());
            let rest: String = chars.collect();
            if word.chars().all(|c| !c.is_lowercase()) {
                out.push_str(&rest.to_lowercase());
            } else {
                out.push_str(&rest);
            }
        }
    }
    escape(out)
}

/// Kebab-case WIT name to SHOUTY_SNAKE case.
pub(crate) fn shouty(name: &str) -> String {
    escape(name.to_uppercase().replace('-', "_"))
}

fn escape(s: String) -> String {
    const KEYWORDS: &[&str] = &[
        "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl",
        "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct",
        "super", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract",
        "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
        "gen",
    ];
    if KEYWORDS.contains(&s.as_str()) {
        format!("{s}_")
    } else {
        s
    }
}

pub(crate) fn ident(s: &str) -> syn::Ident {
    format_ident!("{}", s)
}

/// `#[doc = ...]` from WIT docs, or `fallback`.
pub(crate) fn docs(d: &wit_parser::Docs, fallback: &str) -> TokenStream {
    match &d.contents {
        Some(c) => {
            let lines = c.lines().map(|l| format!(" {l}"));
            quote!(#(#[doc = #lines])*)
        }
        None => quote!(#[doc = #fallback]),
    }
}

/// How an import is linked and called.
#[derive(Clone, Copy, PartialEq)]
enum Style {
    /// `&mut self`, `func_wrap`.
    Sync,
    /// `&mut self` returning a future, `func_wrap_async`.
    Async,
    /// `Access<T, Self>`, `func_wrap`.
    Store,
    /// `Access<T, Self>` returning a future, `func_wrap_async`.
    AsyncStore,
    /// `&Accessor<T, Self>` returning a future, `func_wrap_concurrent`.
    Concurrent,
}

impl Style {
    fn of(flags: FnFlags, wit_async: bool) -> Style {
        match (wit_async, flags.async_, flags.store) {
            (true, _, _) => Style::Concurrent,
            (false, false, false) => Style::Sync,
            (false, true, false) => Style::Async,
            (false, false, true) => Style::Store,
            (false, true, true) => Style::AsyncStore,
        }
    }
    fn is_async(self) -> bool {
        matches!(self, Style::Async | Style::AsyncStore | Style::Concurrent)
    }
}

/// One `imports`/`exports` rule set and which of its rules matched.
struct Rules<'a> {
    rules: &'a FnRules,
    used: RefCell<HashSet<usize>>,
    what: &'static str,
}

impl Rules<'_> {
    /// The flags of a function: `exact` candidates are full names,
    /// `prefixes` the interface, package and namespace names.
    fn flags(&self, exact: &[String], prefixes: &[String]) -> FnFlags {
        for (i, (key, flags)) in self.rules.rules.iter().enumerate() {
            let hit = exact.iter().any(|e| e == key) || (!flags.exact && prefixes.iter().any(|p| p == key));
            if hit {
                self.used.borrow_mut().insert(i);
                return *flags;
            }
        }
        self.rules.default
    }

    fn check_unused(&self) -> syn::Result<()> {
        let used = self.used.borrow();
        let unused: Vec<&str> = self
            .rules
            .rules
            .iter()
            .enumerate()
            .filter(|(i, _)| !used.contains(i))
            .map(|(_, (k, _))| k.as_str())
            .collect();
        if unused.is_empty() {
            Ok(())
        } else {
            Err(Error::new(
                Span::call_site(),
                format!("unused `{}` rules found: {unused:?}", self.what),
            ))
        }
    }
}

/// Where an interface's module is and what it links as.
#[derive(Clone)]
struct IfaceInfo {
    /// Module path from the macro's root (`["exports", "ns", "pkg", "i"]`).
    path: Vec<String>,
    /// The instance name (`ns:pkg/iface@1.0.0` or a plain name).
    instance: String,
    exported: bool,
    /// The names a flag rule's key may be: full names and prefixes.
    prefixes: Vec<String>,
    full: Vec<String>,
}

pub(crate) struct Gen<'a> {
    cfg: &'a Config,
    resolve: &'a Resolve,
    world: WorldId,
    rt: TokenStream,
    ifaces: HashMap<InterfaceId, IfaceInfo>,
    imports: Rules<'a>,
    exports: Rules<'a>,
    /// `trappable_error_type`: the WIT error type and its Rust type.
    trappable: HashMap<TypeId, syn::Path>,
    /// Types used as the error of a `result`.
    error_types: HashSet<TypeId>,
    /// `with` keys and whether they were used.
    with_used: RefCell<HashSet<usize>>,
    /// Whether imported traits carry `Send` (some import is async).
    send: bool,
    /// The interface whose module is being written (its own types are
    /// named without a path).
    current: RefCell<Option<InterfaceId>>,
}

impl<'a> Gen<'a> {
    fn new(cfg: &'a Config, resolve: &'a Resolve, world: WorldId) -> syn::Result<Gen<'a>> {
        let rt = match &cfg.crate_path {
            Some(p) => quote!(#p),
            None => quote!(weft),
        };
        let mut g = Gen {
            cfg,
            resolve,
            world,
            rt,
            ifaces: HashMap::new(),
            imports: Rules {
                rules: &cfg.imports,
                used: RefCell::default(),
                what: "imports",
            },
            exports: Rules {
                rules: &cfg.exports,
                used: RefCell::default(),
                what: "exports",
            },
            trappable: HashMap::new(),
            error_types: HashSet::new(),
            with_used: RefCell::default(),
            send: cfg.require_store_data_send,
            current: RefCell::new(None),
        };
        g.plan()?;
        Ok(g)
    }

    /// Names every interface's module, finds trappable and error types and
    /// whether imports are async.
    fn plan(&mut self) -> syn::Result<()> {
        let world = &self.resolve.worlds[self.world];
        // Packages seen with several versions get versioned module names.
        let mut versions: HashMap<String, HashSet<String>> = HashMap::new();
        for (_, pkg) in self.resolve.packages.iter() {
            let name = format!("{}:{}", pkg.name.namespace, pkg.name.name);
            let v = pkg.name.version.as_ref().map(|v| v.to_string()).unwrap_or_default();
            versions.entry(name).or_default().insert(v);
        }
        for (exported, items) in [(false, &world.imports), (true, &world.exports)] {
            for (key, item) in items.iter() {
                let WorldItem::Interface { id, .. } = item else {
                    continue;
                };
                if exported && self.ifaces.get(id).is_some_and(|i| !i.exported) {
                    return Err(Error::new(
                        Span::call_site(),
                        "an interface both imported and exported by one world is not supported",
                    ));
                }
                let info = self.iface_info(key, *id, exported, &versions);
                self.ifaces.insert(*id, info);
            }
        }
        for (key, path) in &self.cfg.trappable_error_type {
            let found = key.rsplit_once('.').and_then(|(iface, ty)| {
                self.ifaces.iter().find_map(|(id, info)| {
                    if info.full.iter().any(|f| f == iface) {
                        self.resolve.interfaces[*id].types.get(ty).copied()
                    } else {
                        None
                    }
                })
            });
            match found {
                Some(t) => {
                    self.trappable.insert(self.unalias(t), path.clone());
                }
                None => {
                    return Err(Error::new(
                        Span::call_site(),
                        format!("failed to locate a WIT error type corresponding to the `trappable_error_type` name `{key}` provided"),
                    ))
                }
            }
        }
        for (_, td) in self.resolve.types.iter() {
            if let TypeDefKind::Result(r) = &td.kind {
                if let Some(Type::Id(e)) = r.err {
                    self.error_types.insert(self.unalias(e));
                }
            }
        }
        // Any async import makes the host traits `Send`.
        let mut send = self.send;
        for (key, item) in world.imports.iter() {
            match item {
                WorldItem::Function(f) => {
                    send |= self.import_style(None, f).is_async();
                }
                WorldItem::Interface { id, .. } => {
                    let iface = &self.resolve.interfaces[*id];
                    for f in iface.functions.values() {
                        send |= self.import_style(Some(*id), f).is_async();
                    }
                    for (name, t) in &iface.types {
                        if self.is_resource_def(*t) {
                            send |= self.drop_style(Some(*id), name).is_async();
                        }
                    }
                    let _ = key;
                }
                WorldItem::Type { id, .. } => {
                    if self.is_resource_def(*id) {
                        let name = self.resolve.types[*id].name.clone().unwrap_or_default();
                        send |= self.drop_style(None, &name).is_async();
                    }
                }
            }
        }
        self.send = send;
        Ok(())
    }

    fn iface_info(
        &self,
        key: &WorldKey,
        id: InterfaceId,
        exported: bool,
        versions: &HashMap<String, HashSet<String>>,
    ) -> IfaceInfo {
        let iface = &self.resolve.interfaces[id];
        let mut path = Vec::new();
        if exported {
            path.push("exports".to_string());
        }
        let (instance, full, prefixes) = match (key, iface.package, &iface.name) {
            (WorldKey::Interface(_), Some(pkg), Some(name)) => {
                let pkg = &self.resolve.packages[pkg];
                let pkg_name = format!("{}:{}", pkg.name.namespace, pkg.name.name);
                let unversioned = format!("{pkg_name}/{name}");
                let versioned = match &pkg.name.version {
                    Some(v) => format!("{unversioned}@{v}"),
                    None => unversioned.clone(),
                };
                path.push(snake(&pkg.name.namespace));
                let several = versions.get(&pkg_name).is_some_and(|v| v.len() > 1);
                match (&pkg.name.version, several) {
                    (Some(v), true) => {
                        let v = v.to_string().replace(['.', '-', '+'], "_");
                        path.push(format!("{}{v}", snake(&pkg.name.name)));
                    }
                    _ => path.push(snake(&pkg.name.name)),
                }
                path.push(snake(name));
                let mut prefixes = vec![pkg_name.clone(), pkg.name.namespace.clone()];
                if let Some(v) = &pkg.name.version {
                    prefixes.push(format!("{pkg_name}@{v}"));
                }
                let full = if versioned == unversioned {
                    vec![versioned.clone()]
                } else {
                    vec![versioned.clone(), unversioned]
                };
                (versioned, full, prefixes)
            }
            (WorldKey::Name(n), _, _) => {
                path.push(snake(n));
                (n.clone(), vec![n.clone()], Vec::new())
            }
            (WorldKey::Interface(_), _, _) => {
                let n = iface.name.clone().unwrap_or_else(|| "interface".to_string());
                path.push(snake(&n));
                (n.clone(), vec![n], Vec::new())
            }
        };
        IfaceInfo {
            path,
            instance,
            exported,
            prefixes,
            full,
        }
    }

    /// `t` with `type x = y` aliases followed.
    pub(crate) fn unalias(&self, mut t: TypeId) -> TypeId {
        while let TypeDefKind::Type(Type::Id(next)) = &self.resolve.types[t].kind {
            t = *next;
        }
        t
    }

    fn is_resource_def(&self, t: TypeId) -> bool {
        matches!(self.resolve.types[t].kind, TypeDefKind::Resource)
    }

    /// The rule keys a function of interface `iface` (or of the world) may
    /// be named by.
    fn fn_keys(&self, iface: Option<InterfaceId>, fname: &str) -> (Vec<String>, Vec<String>) {
        match iface.and_then(|i| self.ifaces.get(&i)) {
            Some(info) => {
                let exact: Vec<String> = info.full.iter().map(|f| format!("{f}.{fname}")).collect();
                let mut prefixes = info.full.clone();
                prefixes.extend(info.prefixes.iter().cloned());
                (exact, prefixes)
            }
            None => (vec![fname.to_string()], Vec::new()),
        }
    }

    fn import_style(&self, iface: Option<InterfaceId>, f: &Function) -> Style {
        let (exact, prefixes) = self.fn_keys(iface, &f.name);
        Style::of(self.imports.flags(&exact, &prefixes), f.kind.is_async())
    }

    fn import_flags(&self, iface: Option<InterfaceId>, f: &Function) -> FnFlags {
        let (exact, prefixes) = self.fn_keys(iface, &f.name);
        self.imports.flags(&exact, &prefixes)
    }

    fn drop_style(&self, iface: Option<InterfaceId>, resource: &str) -> Style {
        let (exact, prefixes) = self.fn_keys(iface, &format!("[drop]{resource}"));
        Style::of(self.imports.flags(&exact, &prefixes), false)
    }

    fn export_flags(&self, iface: Option<InterfaceId>, f: &Function) -> FnFlags {
        let (exact, prefixes) = self.fn_keys(iface, &f.name);
        let mut flags = self.exports.flags(&exact, &prefixes);
        if f.kind.is_async() {
            flags.async_ = true;
            flags.store = true;
        }
        flags
    }

    /// The `with` path for an interface, if one is mapped.
    fn with_iface(&self, id: InterfaceId) -> Option<syn::Path> {
        let info = self.ifaces.get(&id)?;
        let iface = &self.resolve.interfaces[id];
        let pkg = iface.package.map(|p| &self.resolve.packages[p]);
        for (i, (key, path)) in self.cfg.with.iter().enumerate() {
            let mut extra: Vec<String> = Vec::new();
            let hit = if info.full.iter().any(|f| f == key) {
                true
            } else if let (Some(pkg), Some(name)) = (pkg, &iface.name) {
                let pkg_name = format!("{}:{}", pkg.name.namespace, pkg.name.name);
                let pkg_ver = pkg.name.version.as_ref().map(|v| format!("{pkg_name}@{v}"));
                if *key == pkg_name || pkg_ver.as_deref() == Some(key.as_str()) {
                    extra.push(snake(name));
                    true
                } else if *key == pkg.name.namespace {
                    extra.push(snake(&pkg.name.name));
                    extra.push(snake(name));
                    true
                } else {
                    false
                }
            } else {
                false
            };
            if hit {
                self.with_used.borrow_mut().insert(i);
                let mut p = path.clone();
                for e in extra {
                    p.segments.push(syn::PathSegment::from(ident(&e)));
                }
                return Some(p);
            }
        }
        None
    }

    /// The `with` path for a resource `iface.res`, if one is mapped.
    fn with_resource(&self, iface: Option<InterfaceId>, name: &str) -> Option<syn::Path> {
        let fulls: Vec<String> = match iface.and_then(|i| self.ifaces.get(&i)) {
            Some(info) => info.full.iter().map(|f| format!("{f}.{name}")).collect(),
            None => vec![name.to_string()],
        };
        for (i, (key, path)) in self.cfg.with.iter().enumerate() {
            if fulls.contains(key) {
                self.with_used.borrow_mut().insert(i);
                return Some(path.clone());
            }
        }
        None
    }

    /// `super::` repeated `depth` times.
    pub(crate) fn supers(depth: usize) -> TokenStream {
        let s = (0..depth).map(|_| quote!(super::));
        quote!(#(#s)*)
    }

    /// A user path seen from a module `depth` levels down.
    fn user_path(path: &syn::Path, depth: usize) -> TokenStream {
        let relative = path.leading_colon.is_none()
            && path
                .segments
                .first()
                .is_some_and(|s| s.ident == "self" || s.ident == "super");
        if relative {
            let sup = Self::supers(depth);
            quote!(#sup #path)
        } else {
            quote!(#path)
        }
    }

    /// The path of interface `id`'s module seen from `depth` levels down.
    fn iface_path(&self, id: InterfaceId, depth: usize) -> TokenStream {
        let sup = Self::supers(depth);
        let segs = self.ifaces[&id].path.iter().map(|s| ident(s));
        quote!(#sup #(#segs)::*)
    }

    fn generate(&self, files: &[String]) -> syn::Result<TokenStream> {
        let world = &self.resolve.worlds[self.world];
        let mut tree = ModTree::default();
        let mut root = TokenStream::new();
        // World-level types and imports.
        let mut world_funcs = Vec::new();
        let mut world_resources = Vec::new();
        for (key, item) in world.imports.iter() {
            match item {
                WorldItem::Type { id, .. } => {
                    root.extend(self.typedef(*id, 0, None)?);
                    if self.is_resource_def(*id) {
                        world_resources.push(*id);
                    }
                }
                WorldItem::Function(f) => world_funcs.push(f),
                WorldItem::Interface { id, .. } => {
                    let _ = key;
                    let info = &self.ifaces[id];
                    let body = match self.with_iface(*id) {
                        Some(p) => {
                            let last = ident(info.path.last().map(String::as_str).unwrap_or("iface"));
                            let p = Self::user_path(&p, info.path.len() - 1);
                            tree.insert_use(&info.path, quote!(pub use #p as #last;));
                            continue;
                        }
                        None => {
                            *self.current.borrow_mut() = Some(*id);
                            let body = self.import_interface(*id);
                            *self.current.borrow_mut() = None;
                            body?
                        }
                    };
                    tree.insert(&info.path, body);
                }
            }
        }
        // `with` maps imported interfaces only: exports are always
        // generated.
        for (_, item) in world.exports.iter() {
            if let WorldItem::Interface { id, .. } = item {
                let info = &self.ifaces[id];
                *self.current.borrow_mut() = Some(*id);
                let body = self.export_interface(*id);
                *self.current.borrow_mut() = None;
                tree.insert(&info.path, body?);
            }
        }
        let world_imports = self.world_imports(&world_funcs, &world_resources)?;
        let world_struct = self.world_struct(world_imports.as_ref())?;
        self.imports.check_unused()?;
        self.exports.check_unused()?;
        let used = self.with_used.borrow();
        let unused: Vec<&str> = self
            .cfg
            .with
            .iter()
            .enumerate()
            .filter(|(i, _)| !used.contains(i))
            .map(|(_, (k, _))| k.as_str())
            .collect();
        if !unused.is_empty() {
            return Err(Error::new(
                Span::call_site(),
                format!("interfaces were specified in the `with` config option but are not referenced in the target world: {unused:?}"),
            ));
        }
        let modules = tree.render();
        let tracked = files.iter().map(|f| {
            quote!(
                const _: &[u8] = include_bytes!(#f);
            )
        });
        Ok(quote! {
            #root
            #world_struct
            #modules
            #(#tracked)*
        })
    }
}

/// The nested modules (`ns::pkg::iface`, `exports::...`) being built.
#[derive(Default)]
struct ModTree {
    body: TokenStream,
    children: Vec<(String, ModTree)>,
}

impl ModTree {
    fn child(&mut self, name: &str) -> &mut ModTree {
        let i = match self.children.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                self.children.push((name.to_string(), ModTree::default()));
                self.children.len() - 1
            }
        };
        &mut self.children[i].1
    }

    fn insert(&mut self, path: &[String], body: TokenStream) {
        let mut node = self;
        for seg in path {
            node = node.child(seg);
        }
        node.body.extend(body);
    }

    /// A `pub use` in the parent of `path` in place of a module.
    fn insert_use(&mut self, path: &[String], item: TokenStream) {
        let mut node = self;
        if let Some((_, parents)) = path.split_last() {
            for seg in parents {
                node = node.child(seg);
            }
        }
        node.body.extend(item);
    }

    fn render(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (name, child) in &self.children {
            let id = ident(name);
            let inner = child.body.clone();
            let nested = child.render();
            let doc = format!("Bindings for `{name}`.");
            out.extend(quote! {
                #[doc = #doc]
                #[allow(clippy::all, unused_imports, reason = "generated by bindgen!")]
                pub mod #id {
                    #inner
                    #nested
                }
            });
        }
        out
    }
}

/// A function's Rust name within its trait or struct.
fn fn_name(f: &Function) -> String {
    match &f.kind {
        FunctionKind::Constructor(_) => "new".to_string(),
        FunctionKind::Method(_)
        | FunctionKind::AsyncMethod(_)
        | FunctionKind::Static(_)
        | FunctionKind::AsyncStatic(_)
        | FunctionKind::MethodGetter(_)
        | FunctionKind::MethodSetter(_)
        | FunctionKind::StaticGetter(_)
        | FunctionKind::StaticSetter(_) => snake(f.name.rsplit_once('.').map(|(_, n)| n).unwrap_or(&f.name)),
        _ => snake(&f.name),
    }
}

fn param_name(name: &str) -> syn::Ident {
    if name == "self" {
        ident("self_")
    } else {
        ident(&snake(name))
    }
}

fn owner_iface(resolve: &Resolve, t: TypeId) -> Option<InterfaceId> {
    match resolve.types[t].owner {
        TypeOwner::Interface(i) => Some(i),
        _ => None,
    }
}

mod exports;
mod imports;
mod world;

#[cfg(test)]
mod tests {
    use super::expand;
    use quote::quote;
    use std::path::PathBuf;

    /// A fresh directory under the system's temporary directory, removed
    /// when dropped.
    struct TempDir(PathBuf);

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn temp_dir(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("weft-bindgen-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        TempDir(dir)
    }

    fn error_of(input: proc_macro2::TokenStream, dir: &std::path::Path) -> String {
        match expand(input, dir) {
            Ok(_) => panic!("expected an error"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_syntax_error_names_the_file_and_line() {
        let dir = temp_dir("syntax");
        std::fs::write(
            dir.0.join("bad.wit"),
            "package a:b;\n\nworld w {\n  import f: func(x: u32 -> u32;\n}\n",
        )
        .unwrap();
        let msg = error_of(quote!({ path: "bad.wit" }), &dir.0);
        assert!(msg.contains("bad.wit:4"), "{msg}");
    }

    #[test]
    fn an_unknown_type_names_the_file_and_line() {
        let dir = temp_dir("unknown");
        std::fs::create_dir_all(dir.0.join("wit")).unwrap();
        std::fs::write(
            dir.0.join("wit").join("world.wit"),
            "package a:b;\nworld w {\n  import f: func(x: nope);\n}\n",
        )
        .unwrap();
        // No path: `wit/` is read.
        let msg = error_of(quote!(), &dir.0);
        assert!(msg.contains("world.wit:3") && msg.contains("nope"), "{msg}");
    }

    #[test]
    fn an_inline_error_names_the_line() {
        let dir = temp_dir("inline");
        let msg = error_of(
            quote!({ inline: "package a:b;\nworld w {\n  export g: func() -> bogus;\n}\n" }),
            &dir.0,
        );
        assert!(msg.contains("inline.wit:3") && msg.contains("bogus"), "{msg}");
    }

    #[test]
    fn a_missing_path_is_an_error() {
        let dir = temp_dir("missing");
        let msg = error_of(quote!(in "nowhere"), &dir.0);
        assert!(msg.contains("nowhere"), "{msg}");
    }

    const WIT: &str = "package a:b;
        interface i {
            record r { x: u32 }
            enum e { one, two }
            resource res { constructor(); m: func() -> u32; }
            f: func(v: r) -> result<u32, e>;
        }
        world w { import i; export g: func() -> u32; }";

    #[test]
    fn options_are_checked_against_the_world() {
        let dir = temp_dir("options");
        let msg = error_of(quote!({ inline: #WIT, imports: { "a:b/i.nope": async } }), &dir.0);
        assert!(
            msg.contains("unused `imports` rules found") && msg.contains("a:b/i.nope"),
            "{msg}"
        );
        let msg = error_of(quote!({ inline: #WIT, exports: { "h": async } }), &dir.0);
        assert!(msg.contains("unused `exports` rules found"), "{msg}");
        let msg = error_of(
            quote!({ inline: #WIT, trappable_error_type: { "a:b/i.zz" => E } }),
            &dir.0,
        );
        assert!(
            msg.contains("failed to locate a WIT error type") && msg.contains("a:b/i.zz"),
            "{msg}"
        );
        let msg = error_of(quote!({ inline: #WIT, with: { "x:y/z": some::path } }), &dir.0);
        assert!(msg.contains("not referenced in the target world"), "{msg}");
        let msg = error_of(quote!({ inline: #WIT, world: "w", world: "w" }), &dir.0);
        assert!(msg.contains("cannot specify second world"), "{msg}");
        let msg = error_of(quote!({ inline: #WIT, with: { "a:b/i": some::path<u8> } }), &dir.0);
        assert!(msg.contains("Module path must not contain angles or parens"), "{msg}");
        let msg = error_of(quote!({ inline: #WIT, trappable_imports: true }), &dir.0);
        assert!(msg.contains("was removed"), "{msg}");
        let msg = error_of(quote!({ inline: #WIT, imports: { default: sideways } }), &dir.0);
        assert!(msg.contains("unknown flag `sideways`"), "{msg}");
        let msg = error_of(quote!({ inline: #WIT, world: "nope" }), &dir.0);
        assert!(msg.contains("nope"), "{msg}");
    }

    #[test]
    fn the_expansion_has_wasmtimes_shapes() {
        let dir = temp_dir("shapes");
        let out = expand(
            quote!({ inline: #WIT, imports: { "a:b/i.f": async | trappable } }),
            &dir.0,
        )
        .expect("expands")
        .to_string();
        for item in [
            "pub mod a",
            "pub mod b",
            "pub mod i",
            "pub struct R",
            "pub enum E",
            "pub enum Res { }",
            "pub trait HostRes",
            "pub trait HostResWithStore < T : 'static >",
            "pub trait Host : HostRes + :: core :: marker :: Send",
            "pub trait HostWithStore < T : 'static >",
            "fn f (& mut self , v : R) -> impl :: core :: future :: Future < Output = weft :: Result < :: core :: result :: Result < u32 , E > > > + :: core :: marker :: Send",
            "fn add_to_linker_instance < T , D >",
            "linker . instance (\"a:b/i\")",
            "func_wrap_async (\"f\"",
            "func_wrap (\"[method]res.m\"",
            "func_wrap (\"[constructor]res\"",
            "pub struct W",
            "pub struct WPre < T : 'static >",
            "pub struct WIndices",
            "pub fn call_g < S : weft :: AsContextMut >",
            "pub fn func_g",
            "pub async fn instantiate_async",
            "impl :: std :: error :: Error for E",
        ] {
            assert!(out.contains(item), "missing `{item}` in\n{out}");
        }
    }
}

#[cfg(test)]
mod wasi_tests {
    use super::expand;
    use quote::quote;
    use std::path::PathBuf;

    /// `../shared/wasi-wit/p2` from the repository root, or `None` when it
    /// is missing outside CI (in CI a missing folder fails the test).
    fn wasi_p2() -> Option<PathBuf> {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/wasi-wit/p2");
        if dir.join("cli.wit").exists() {
            Some(dir)
        } else if std::env::var_os("CI").is_some() {
            panic!("the WASI WIT files are missing: {}", dir.display());
        } else {
            None
        }
    }

    const FILES: [&str; 6] = [
        "io.wit",
        "clocks.wit",
        "random.wit",
        "filesystem.wit",
        "sockets.wit",
        "cli.wit",
    ];

    #[test]
    fn the_wasi_command_world_expands() {
        let Some(dir) = wasi_p2() else { return };
        let paths: Vec<String> = FILES.iter().map(|f| dir.join(f).display().to_string()).collect();
        let out = expand(
            quote!({
                path: [#(#paths),*],
                world: "wasi:cli/command",
                imports: { default: async | trappable },
                exports: { default: async },
            }),
            &dir,
        )
        .unwrap_or_else(|e| panic!("{e}"))
        .to_string();
        for item in [
            "pub struct Command",
            "pub mod wasi",
            "pub mod io",
            "pub trait HostInputStream",
            "pub trait HostDescriptor",
            "linker . instance (\"wasi:io/streams@0.2.12\")",
            "pub fn wasi_cli_run",
            "pub async fn call_run",
            "pub struct LinkOptions { clocks_timezone : bool , }",
            "if options . clocks_timezone { wasi :: clocks :: timezone :: add_to_linker :: < T , D > (linker , & wasi :: clocks :: timezone :: LinkOptions :: from (options) , host_getter) ? ; }",
            "if options . clocks_timezone { inst . func_wrap_async (\"display\"",
        ] {
            assert!(out.contains(item), "missing `{item}`");
        }
    }

    #[test]
    fn the_wasi_http_proxy_world_expands() {
        let Some(dir) = wasi_p2() else { return };
        let mut paths: Vec<String> = FILES.iter().map(|f| dir.join(f).display().to_string()).collect();
        paths.push(dir.join("http.wit").display().to_string());
        let out = expand(
            quote!({
                path: [#(#paths),*],
                world: "wasi:http/proxy",
                imports: { default: async | trappable },
                exports: { default: async },
            }),
            &dir,
        )
        .unwrap_or_else(|e| panic!("{e}"))
        .to_string();
        for item in [
            "pub struct Proxy",
            "pub trait HostFields",
            "pub trait HostOutgoingResponse",
            "pub fn wasi_http_incoming_handler",
            "pub async fn call_handle",
        ] {
            assert!(out.contains(item), "missing `{item}`");
        }
    }
}

#[cfg(test)]
mod named_tests {
    use super::expand;
    use quote::quote;

    #[test]
    fn plain_named_interfaces_get_top_level_modules() {
        let dir = std::env::temp_dir();
        let wit = "package a:b;
            world host {
                import logger: interface { log: func(m: string); }
                export the-name: interface { f: func(x: list<u8>) -> string; }
            }";
        let out = expand(quote!({ inline: #wit }), &dir).expect("expands").to_string();
        for item in [
            "pub mod logger",
            "linker . instance (\"logger\")",
            "pub mod exports",
            "pub mod the_name",
            "pub fn the_name (& self) -> & exports :: the_name :: Guest",
            "no exported instance named `{}`\" , \"the-name\"",
            // A world named `host` is `Host_`, so that it does not clash
            // with the `Host` traits.
            "pub struct Host_",
            "pub fn call_f < S : weft :: AsContextMut > (& self , mut store : S , arg0 : & [u8])",
        ] {
            assert!(out.contains(item), "missing `{item}` in\n{out}");
        }
    }
}
