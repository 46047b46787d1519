//! `cargo xtask import-cycles`: finds files of one crate that import each
//! other in a loop.
//!
//! Every crate root of the workspace (each package's `src/lib.rs`,
//! `src/main.rs`, `src/bin/*.rs`, `tests/*.rs`, `examples/*.rs` and
//! `benches/*.rs`) is read with the modules it declares. A file depends on
//! another when it names an item defined there: through a `use` (its
//! `crate::`, `super::`, `self::` or child-module path is followed through
//! re-exports to the file that defines the item) or through such a path
//! written in the code. A `use` of a whole module by glob depends on the
//! module's file.
//!
//! An import may close a loop on purpose (a type and the store that owns
//! it): a comment at the import, in the comment block right above the `use`
//! (or above the run of `use` lines it belongs to) or on its line, that
//! contains "import loop" says so, and the check leaves out that file's
//! dependency on the imported one (paths to the same file included). The
//! check fails when the remaining imports still form a loop, and prints each
//! loop with the imports that make it.
//!
//! The reading is lexical, not a compiler's: macros are not expanded and
//! `#[path]` attributes are not followed. It is exact enough for this
//! workspace, whose files use neither for modules.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

pub const USAGE: &str = "usage: cargo xtask import-cycles [--all]

  Fails when files of one crate import each other in a loop, except through
  imports whose comment says \"import loop\" (and why). --all also lists the
  loops those commented imports close, and every commented import.";

/// Runs `import-cycles ARGS` over the workspace at `root`.
pub fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let mut all = false;
    for a in args {
        match a.as_str() {
            "--all" => all = true,
            _ => return Err(USAGE.into()),
        }
    }
    let mut failed = 0;
    let mut crates = 0;
    for root_file in crate_roots(root)? {
        let graph = Crate::read(&root_file)?;
        crates += 1;
        let name = root_file.strip_prefix(root).unwrap_or(&root_file).display().to_string();
        let loops = graph.loops(false);
        if !loops.is_empty() {
            failed += loops.len();
            println!("{name}: {} import loop(s) without a comment saying why", loops.len());
            for l in &loops {
                graph.print_loop(root, l, false);
            }
        }
        if all {
            let kept = graph.loops(true);
            if !kept.is_empty() {
                println!("{name}: {} import loop(s) counting the commented imports", kept.len());
                for l in &kept {
                    graph.print_loop(root, l, true);
                }
            }
        }
    }
    if failed > 0 {
        return Err(format!(
            "{failed} import loop(s) between files: move the shared items to a file below their users, \
             or say why at the import (a comment containing \"import loop\")"
        ));
    }
    println!("{crates} crate roots: no import loop between files without a comment saying why");
    Ok(())
}

/// Each crate root of the packages in the workspace (and the benchmark
/// harness), sorted.
fn crate_roots(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut packages = vec![root.to_path_buf(), root.join("xtask"), root.join("benches/harness")];
    let crates_dir = root.join("crates");
    let entries = std::fs::read_dir(&crates_dir).map_err(|e| format!("cannot read {}: {e}", crates_dir.display()))?;
    for entry in entries.flatten() {
        if entry.path().join("Cargo.toml").is_file() {
            packages.push(entry.path());
        }
    }
    let mut out = Vec::new();
    for p in packages {
        for f in ["src/lib.rs", "src/main.rs"] {
            if p.join(f).is_file() {
                out.push(p.join(f));
            }
        }
        for dir in ["src/bin", "tests", "examples", "benches"] {
            let Ok(entries) = std::fs::read_dir(p.join(dir)) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                } else if path.join("main.rs").is_file() {
                    out.push(path.join("main.rs"));
                }
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Where the file of a module declared `mod name;` is.
enum ModFile {
    /// `name.rs` or `name/mod.rs` beside this base path (`dir/name`).
    Base(PathBuf),
    /// The file a `#[path]` attribute names.
    Named(PathBuf),
}

/// A source file with its comments and literals blanked out.
struct SourceFile {
    path: PathBuf,
    /// The code, with every byte of comments, strings and character
    /// literals replaced by a space (newlines kept).
    code: Vec<u8>,
    /// The comment text of each line (0-based).
    comments: Vec<String>,
    /// Whether each line holds code (0-based).
    has_code: Vec<bool>,
    /// The lines covered by `use` items and attributes (0-based).
    use_lines: Vec<bool>,
    /// The file named by a `#[path = "..."]` attribute, by its line
    /// (0-based).
    path_attrs: BTreeMap<usize, String>,
}

impl SourceFile {
    fn read(path: &Path) -> Result<SourceFile, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let (code, comment_bytes) = blank(text.as_bytes());
        let lines = text.split('\n').count();
        let mut comments = vec![String::new(); lines];
        let mut has_code = vec![false; lines];
        let mut line = 0;
        for (i, &b) in code.iter().enumerate() {
            if b == b'\n' {
                line += 1;
                continue;
            }
            if !b.is_ascii_whitespace() {
                has_code[line] = true;
            }
            if comment_bytes[i] {
                comments[line].push(text.as_bytes()[i] as char);
            }
        }
        let path_attrs = text
            .split('\n')
            .enumerate()
            .filter_map(|(l, t)| {
                let rest = t
                    .trim()
                    .strip_prefix("#[path")?
                    .trim_start()
                    .strip_prefix('=')?
                    .trim_start();
                let rest = rest.strip_prefix('"')?;
                Some((l, rest[..rest.find('"')?].to_string()))
            })
            .collect();
        Ok(SourceFile {
            path: path.to_path_buf(),
            code,
            comments,
            has_code,
            use_lines: vec![false; lines],
            path_attrs,
        })
    }

    /// Whether the import or path at `line` has a comment containing
    /// "import loop": on its line, or in the comment block above it or
    /// above the run of `use` lines and attributes it belongs to.
    fn explained(&self, line: usize) -> bool {
        let says = |l: usize| self.comments[l].to_ascii_lowercase().contains("import loop");
        if says(line) {
            return true;
        }
        let mut l = line;
        while l > 0 {
            l -= 1;
            if self.has_code[l] {
                if self.use_lines[l] {
                    continue;
                }
                return false;
            }
            if self.comments[l].trim().is_empty() {
                return false;
            }
            if says(l) {
                return true;
            }
        }
        false
    }
}

/// Replaces comments, string and character literals by spaces (newlines
/// kept). Returns the blanked code and which bytes were comments.
fn blank(src: &[u8]) -> (Vec<u8>, Vec<bool>) {
    let mut out = src.to_vec();
    let mut comment = vec![false; src.len()];
    let mut i = 0;
    let n = src.len();
    let wipe = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to.min(n)] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    while i < n {
        let c = src[i];
        let next = src.get(i + 1).copied();
        if c == b'/' && next == Some(b'/') {
            let end = src[i..].iter().position(|&b| b == b'\n').map_or(n, |p| i + p);
            comment[i..end].iter_mut().for_each(|c| *c = true);
            wipe(&mut out, i, end);
            i = end;
        } else if c == b'/' && next == Some(b'*') {
            let mut depth = 0;
            let mut j = i;
            while j < n {
                if src[j] == b'/' && src.get(j + 1) == Some(&b'*') {
                    depth += 1;
                    j += 2;
                } else if src[j] == b'*' && src.get(j + 1) == Some(&b'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            comment[i..j.min(n)].iter_mut().for_each(|c| *c = true);
            wipe(&mut out, i, j);
            i = j;
        } else if c == b'r' && matches!(next, Some(b'#') | Some(b'"')) && !ident_byte_before(src, i) {
            // A raw string: r"..." or r#"..."#.
            let hashes = src[i + 1..].iter().take_while(|&&b| b == b'#').count();
            if src.get(i + 1 + hashes) != Some(&b'"') {
                i += 1;
                continue;
            }
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let body = i + 2 + hashes;
            let end = src[body..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(n, |p| body + p + close.len());
            wipe(&mut out, i + 1, end);
            i = end;
        } else if c == b'"' {
            let mut j = i + 1;
            while j < n && src[j] != b'"' {
                j += if src[j] == b'\\' { 2 } else { 1 };
            }
            wipe(&mut out, i + 1, j);
            i = j + 1;
        } else if c == b'\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if next == Some(b'\\') {
                let mut j = i + 2;
                while j < n && src[j] != b'\'' {
                    j += 1;
                }
                wipe(&mut out, i + 1, j);
                i = j + 1;
            } else {
                // One character (possibly multi-byte) then a quote.
                let len = next.map_or(1, utf8_len);
                if src.get(i + 1 + len) == Some(&b'\'') {
                    wipe(&mut out, i + 1, i + 1 + len);
                    i += len + 2;
                } else {
                    i += 1;
                }
            }
        } else {
            i += 1;
        }
    }
    (out, comment)
}

fn ident_byte_before(src: &[u8], i: usize) -> bool {
    i > 0 && (src[i - 1].is_ascii_alphanumeric() || src[i - 1] == b'_')
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

/// A token of blanked code.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Path,
    Punct(u8),
}

/// Tokens with their 0-based line.
fn tokenize(code: &[u8]) -> Vec<(Tok, usize)> {
    let mut out = Vec::new();
    let mut line = 0;
    let mut i = 0;
    while i < code.len() {
        let c = code[i];
        if c == b'\n' {
            line += 1;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            // Raw identifiers (r#type) are their name.
            if c == b'r' && code.get(i + 1) == Some(&b'#') && code.get(i + 2).is_some_and(|b| b.is_ascii_alphabetic()) {
                i += 2;
            }
            let start = i;
            while i < code.len() && (code[i].is_ascii_alphanumeric() || code[i] == b'_' || code[i] >= 0x80) {
                i += 1;
            }
            let word = String::from_utf8_lossy(&code[start..i]).into_owned();
            out.push((Tok::Ident(word), line));
        } else if c.is_ascii_digit() {
            while i < code.len() && (code[i].is_ascii_alphanumeric() || code[i] == b'_') {
                i += 1;
            }
        } else if c == b':' && code.get(i + 1) == Some(&b':') {
            out.push((Tok::Path, line));
            i += 2;
        } else {
            out.push((Tok::Punct(c), line));
            i += 1;
        }
    }
    out
}

/// One module of a crate (a file's own module or a module inline in it).
#[derive(Default)]
struct Module {
    file: usize,
    parent: Option<usize>,
    children: HashMap<String, usize>,
    /// The names of the items it defines.
    items: BTreeSet<String>,
    uses: Vec<Use>,
    /// Paths written in its code (first segment `crate`, `super`, `self` or
    /// a name in scope), with their line.
    paths: Vec<(Vec<String>, usize)>,
}

/// One name a `use` brings in (or a glob).
struct Use {
    path: Vec<String>,
    /// Whether it is a re-export (`pub use`, `pub(crate) use`...): the
    /// module's public face, not a dependency of its code.
    reexport: bool,
    /// The name it binds; `None` for a glob.
    name: Option<String>,
    line: usize,
}

/// Where a path leads.
#[derive(Clone, Copy, PartialEq)]
enum Target {
    Module(usize),
    /// An item, by the file that defines it.
    Item(usize),
}

/// One import of a file from another.
struct Edge {
    from: usize,
    to: usize,
    line: usize,
    explained: bool,
}

/// A crate's files, modules and imports between files.
struct Crate {
    files: Vec<SourceFile>,
    modules: Vec<Module>,
    edges: Vec<Edge>,
}

impl Crate {
    fn read(root_file: &Path) -> Result<Crate, String> {
        let mut krate = Crate {
            files: Vec::new(),
            modules: vec![Module::default()],
            edges: Vec::new(),
        };
        krate.read_file(root_file, 0, true)?;
        krate.link();
        Ok(krate)
    }

    /// Reads the file of module `m` and, recursively, the files of the
    /// modules it declares. `owns_dir` is whether its child modules' files
    /// sit beside it (a crate root or `mod.rs`) rather than in a folder
    /// named after it.
    fn read_file(&mut self, path: &Path, m: usize, owns_dir: bool) -> Result<(), String> {
        let file = self.files.len();
        self.files.push(SourceFile::read(path)?);
        self.modules[m].file = file;
        let dir = if owns_dir {
            path.parent().unwrap_or(Path::new(".")).to_path_buf()
        } else {
            path.with_extension("")
        };
        let toks = tokenize(&self.files[file].code);
        // Module stack: (module, folder of its child files, brace depth of
        // its body).
        let mut stack = vec![(m, dir, 0usize)];
        let mut depth = 0usize;
        let mut external = Vec::new();
        // Whether the item being read has `#[cfg(test)]`.
        let mut cfg_test = false;
        let mut i = 0;
        while i < toks.len() {
            if depth == stack.last().map_or(0, |s| s.2)
                && !matches!(&toks[i].0, Tok::Punct(b'#'))
                && !matches!(&toks[i].0, Tok::Ident(w) if w == "mod" || w == "pub")
                && !matches!(&toks[i].0, Tok::Punct(b'(' | b')'))
                && !matches!(&toks[i].0, Tok::Ident(w) if w == "crate" || w == "super")
            {
                cfg_test = false;
            }
            let (cur, cur_dir, body_depth) = stack.last().cloned().unwrap_or((m, PathBuf::new(), 0));
            let top = depth == body_depth;
            match &toks[i].0 {
                Tok::Punct(b'{') => depth += 1,
                Tok::Punct(b'}') => {
                    if depth == body_depth && stack.len() > 1 {
                        stack.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                Tok::Punct(b'#') if top => {
                    // An attribute: its lines go with the item below.
                    let start = toks[i].1;
                    let mut j = i + 1;
                    if toks.get(j).map(|t| &t.0) == Some(&Tok::Punct(b'!')) {
                        j += 1;
                    }
                    if toks.get(j).map(|t| &t.0) == Some(&Tok::Punct(b'[')) {
                        let mut d = 0;
                        while j < toks.len() {
                            match toks[j].0 {
                                Tok::Punct(b'[') => d += 1,
                                Tok::Punct(b']') => {
                                    d -= 1;
                                    if d == 0 {
                                        break;
                                    }
                                }
                                _ => {}
                            }
                            j += 1;
                        }
                        let end = toks.get(j).map_or(start, |t| t.1);
                        self.mark_use_lines(file, start, end);
                        let words: Vec<&Tok> = toks[i..j].iter().map(|t| &t.0).collect();
                        // `#[cfg(test)]`, `#[cfg(all(test, ...))]`.
                        let has = |w: &str| words.iter().any(|t| matches!(t, Tok::Ident(x) if x == w));
                        cfg_test = has("cfg") && has("test") && !has("not") && !has("any");
                        i = j + 1;
                        continue;
                    }
                }
                Tok::Ident(w) if top && w == "mod" && cfg_test => {
                    // A test module: not part of the crate's layering.
                    let open = toks[i..].iter().position(|t| matches!(t.0, Tok::Punct(b'{' | b';')));
                    let Some(open) = open.map(|p| i + p) else { break };
                    i = open + 1;
                    if toks[open].0 == Tok::Punct(b'{') {
                        let mut d = 1;
                        while i < toks.len() && d > 0 {
                            match toks[i].0 {
                                Tok::Punct(b'{') => d += 1,
                                Tok::Punct(b'}') => d -= 1,
                                _ => {}
                            }
                            i += 1;
                        }
                    }
                    cfg_test = false;
                    continue;
                }
                Tok::Ident(w) if top && w == "mod" => {
                    if let (Some((Tok::Ident(name), _)), Some((next, _))) = (toks.get(i + 1), toks.get(i + 2)) {
                        let child = self.modules.len();
                        self.modules.push(Module {
                            parent: Some(cur),
                            file,
                            ..Module::default()
                        });
                        self.modules[cur].children.insert(name.clone(), child);
                        if *next == Tok::Punct(b'{') {
                            stack.push((child, cur_dir.join(name), depth + 1));
                            depth += 1;
                            i += 3;
                            continue;
                        }
                        // `#[path = "..."]` right above names the file,
                        // relative to this file's folder.
                        let attr = (i > 0 && toks[i - 1].0 == Tok::Punct(b']'))
                            .then(|| self.files[file].path_attrs.get(&toks[i - 1].1))
                            .flatten();
                        let base = match attr {
                            Some(p) => ModFile::Named(path.parent().unwrap_or(Path::new(".")).join(p)),
                            None => ModFile::Base(cur_dir.join(name)),
                        };
                        external.push((child, base));
                        i += 2;
                    }
                }
                Tok::Ident(w) if top && w == "use" => {
                    let start = toks[i].1;
                    let end = toks[i..]
                        .iter()
                        .position(|t| t.0 == Tok::Punct(b';'))
                        .map_or(toks.len(), |p| i + p);
                    let mut out = Vec::new();
                    use_tree(&toks[i + 1..end], &[], &mut out);
                    let reexport = is_public(&toks, i);
                    for (path, name) in out {
                        self.modules[cur].uses.push(Use {
                            path,
                            reexport,
                            name,
                            line: start,
                        });
                    }
                    let last = toks.get(end).map_or(start, |t| t.1);
                    self.mark_use_lines(file, start, last);
                    i = end + 1;
                    continue;
                }
                Tok::Ident(w) if top && w == "macro_rules" => {
                    if let Some((Tok::Ident(name), _)) = toks.get(i + 2) {
                        self.modules[cur].items.insert(name.clone());
                    }
                }
                Tok::Ident(w)
                    if top
                        && matches!(
                            w.as_str(),
                            "struct" | "enum" | "union" | "trait" | "fn" | "type" | "const" | "static"
                        ) =>
                {
                    if let Some((Tok::Ident(name), _)) = toks.get(i + 1) {
                        if !matches!(name.as_str(), "fn" | "mut" | "unsafe" | "async" | "extern") {
                            self.modules[cur].items.insert(name.clone());
                        }
                    }
                }
                Tok::Ident(w) if toks.get(i + 1).map(|t| &t.0) == Some(&Tok::Path) && !is_prefixed(&toks, i) => {
                    // A path written in the code: `a::b::c`.
                    let mut path = vec![w.clone()];
                    let mut j = i + 1;
                    while toks.get(j).map(|t| &t.0) == Some(&Tok::Path) {
                        match toks.get(j + 1) {
                            Some((Tok::Ident(s), _)) => {
                                path.push(s.clone());
                                j += 2;
                            }
                            _ => break,
                        }
                    }
                    self.modules[cur].paths.push((path, toks[i].1));
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        for (child, base) in external {
            let base = match base {
                ModFile::Named(named) => {
                    // A file named by `#[path]` owns its folder, as `mod.rs`.
                    self.read_file(&named, child, true)?;
                    continue;
                }
                ModFile::Base(base) => base,
            };
            let flat = base.with_extension("rs");
            let nested = base.join("mod.rs");
            if flat.is_file() {
                self.read_file(&flat, child, false)?;
            } else if nested.is_file() {
                self.read_file(&nested, child, true)?;
            } else {
                return Err(format!(
                    "{}: module file not found ({} or {})",
                    path.display(),
                    flat.display(),
                    nested.display()
                ));
            }
        }
        Ok(())
    }

    fn mark_use_lines(&mut self, file: usize, from: usize, to: usize) {
        let lines = &mut self.files[file].use_lines;
        for l in from..=to.min(lines.len().saturating_sub(1)) {
            lines[l] = true;
        }
    }

    /// Resolves every import and path to the file it names.
    fn link(&mut self) {
        let mut edges = Vec::new();
        for m in 0..self.modules.len() {
            let file = self.modules[m].file;
            let mut add = |to: Option<Target>, line: usize, import: Option<usize>, modules: &[Module]| {
                let to = match to {
                    Some(Target::Item(f)) => f,
                    Some(Target::Module(x)) => modules[x].file,
                    None => return,
                };
                if to != file {
                    edges.push((file, to, line, import));
                }
            };
            for u in &self.modules[m].uses {
                let target = self.resolve(m, &u.path, 0);
                // A module imported by name is a dependency only through the
                // paths that use it; a glob depends on the module's file.
                if u.reexport || (u.name.is_some() && matches!(target, Some(Target::Module(_)))) {
                    continue;
                }
                add(target, u.line, None, &self.modules);
            }
            for (path, line) in &self.modules[m].paths {
                if matches!(path[0].as_str(), "Self" | "std" | "core" | "alloc") {
                    continue;
                }
                let target = self.resolve(m, path, 0);
                if matches!(target, Some(Target::Module(_))) {
                    continue;
                }
                // A path through a module imported by name is explained at
                // that import.
                let import = self.modules[m]
                    .uses
                    .iter()
                    .find(|u| u.name.as_deref() == Some(path[0].as_str()))
                    .map(|u| u.line);
                add(target, *line, import, &self.modules);
            }
        }
        edges.sort();
        edges.dedup();
        self.edges = edges
            .into_iter()
            .map(|(from, to, line, import)| Edge {
                from,
                to,
                line,
                explained: self.files[from].explained(line) || import.is_some_and(|l| self.files[from].explained(l)),
            })
            .collect();
        // One import that says why a file depends on another covers that
        // dependency: the paths written in the code to the same file too.
        let pairs: BTreeSet<(usize, usize)> = self
            .edges
            .iter()
            .filter(|e| e.explained)
            .map(|e| (e.from, e.to))
            .collect();
        for e in &mut self.edges {
            e.explained |= pairs.contains(&(e.from, e.to));
        }
    }

    /// Where `path`, written in module `m`, leads; `None` for other crates
    /// and names this reading cannot follow.
    fn resolve(&self, m: usize, path: &[String], depth: usize) -> Option<Target> {
        if depth > 16 || path.is_empty() {
            return None;
        }
        let mut cur = m;
        let mut rest = path;
        match path[0].as_str() {
            "crate" => {
                cur = 0;
                rest = &path[1..];
            }
            "self" => rest = &path[1..],
            "super" => {
                while rest.first().map(String::as_str) == Some("super") {
                    cur = self.modules[cur].parent?;
                    rest = &rest[1..];
                }
            }
            first => {
                // A path relative to the module: its child module, item or
                // imported name; anything else is another crate.
                let module = &self.modules[m];
                let local = module.children.contains_key(first)
                    || module.items.contains(first)
                    || module.uses.iter().any(|u| u.name.as_deref() == Some(first));
                if !local {
                    return None;
                }
            }
        }
        self.walk(cur, rest, depth)
    }

    fn walk(&self, cur: usize, path: &[String], depth: usize) -> Option<Target> {
        let Some(first) = path.first() else {
            return Some(Target::Module(cur));
        };
        let module = &self.modules[cur];
        if let Some(&child) = module.children.get(first) {
            return self.walk(child, &path[1..], depth);
        }
        if module.items.contains(first) {
            return Some(Target::Item(module.file));
        }
        for u in module.uses.iter().filter(|u| u.name.as_deref() == Some(first.as_str())) {
            match self.resolve(cur, &u.path, depth + 1) {
                Some(Target::Module(x)) => return self.walk(x, &path[1..], depth + 1),
                Some(item) => return Some(item),
                None => {}
            }
        }
        for u in module.uses.iter().filter(|u| u.name.is_none()) {
            if let Some(Target::Module(x)) = self.resolve(cur, &u.path, depth + 1) {
                if x != cur {
                    if let Some(t) = self.walk(x, path, depth + 1) {
                        return Some(t);
                    }
                }
            }
        }
        None
    }

    /// The loops between files: the strongly connected components of more
    /// than one file, over every import (`with_explained`) or only the
    /// imports without a comment saying why.
    fn loops(&self, with_explained: bool) -> Vec<Vec<usize>> {
        let n = self.files.len();
        let mut adj = vec![Vec::new(); n];
        for e in &self.edges {
            if with_explained || !e.explained {
                adj[e.from].push(e.to);
            }
        }
        let mut sccs = strongly_connected(&adj);
        sccs.retain(|c| c.len() > 1);
        for c in &mut sccs {
            c.sort();
        }
        sccs.sort();
        sccs
    }

    fn print_loop(&self, root: &Path, files: &[usize], with_explained: bool) {
        let name = |f: usize| {
            let p = &self.files[f].path;
            p.strip_prefix(root).unwrap_or(p).display().to_string()
        };
        let names: Vec<String> = files.iter().map(|&f| name(f)).collect();
        println!("  loop of {} files: {}", files.len(), names.join(", "));
        let mut by_pair: BTreeMap<(usize, usize), Vec<(usize, bool)>> = BTreeMap::new();
        for e in &self.edges {
            if files.contains(&e.from) && files.contains(&e.to) && (with_explained || !e.explained) {
                by_pair.entry((e.from, e.to)).or_default().push((e.line, e.explained));
            }
        }
        for ((from, to), lines) in by_pair {
            let lines: Vec<String> = lines
                .iter()
                .map(|(l, explained)| format!("{}{}", l + 1, if *explained { " (commented)" } else { "" }))
                .collect();
            println!("    {} -> {} (line {})", name(from), name(to), lines.join(", "));
        }
    }
}

/// Whether the `use` at `i` has a visibility (`pub`, `pub(crate)`, ...).
fn is_public(toks: &[(Tok, usize)], i: usize) -> bool {
    let ident = |j: usize, w: &str| matches!(&toks[j].0, Tok::Ident(x) if x == w);
    match i.checked_sub(1) {
        Some(j) if ident(j, "pub") => true,
        Some(j) if toks[j].0 == Tok::Punct(b')') => {
            // `pub(crate) use`, `pub(super) use`, `pub(in path) use`.
            let open = toks[..j].iter().rposition(|t| t.0 == Tok::Punct(b'('));
            open.is_some_and(|o| o > 0 && ident(o - 1, "pub"))
        }
        _ => false,
    }
}

/// Whether the identifier at `i` continues a path (`a::b`, `.b`), so that it
/// is not the start of one.
fn is_prefixed(toks: &[(Tok, usize)], i: usize) -> bool {
    i > 0 && matches!(toks[i - 1].0, Tok::Path | Tok::Punct(b'.'))
}

/// Expands a use tree (the tokens between `use` and `;`) into paths with the
/// names they bind (`None` for globs).
fn use_tree(toks: &[(Tok, usize)], prefix: &[String], out: &mut Vec<(Vec<String>, Option<String>)>) {
    // Skip a visibility (`pub(crate)` is before `use`, so only a leading
    // `::` can appear here).
    let mut i = 0;
    let mut path = prefix.to_vec();
    while i < toks.len() {
        match &toks[i].0 {
            Tok::Ident(w) if w == "as" => {
                if let Some((Tok::Ident(alias), _)) = toks.get(i + 1) {
                    push_use(out, &path, Some(alias.clone()));
                }
                return;
            }
            Tok::Ident(w) => {
                path.push(w.clone());
                i += 1;
            }
            Tok::Path => i += 1,
            Tok::Punct(b'*') => {
                out.push((path, None));
                return;
            }
            Tok::Punct(b'{') => {
                // Split the group at its top-level commas.
                let mut d = 0;
                let mut start = i + 1;
                let mut j = i;
                while j < toks.len() {
                    match toks[j].0 {
                        Tok::Punct(b'{') => d += 1,
                        Tok::Punct(b'}') => {
                            d -= 1;
                            if d == 0 {
                                if start < j {
                                    use_tree(&toks[start..j], &path, out);
                                }
                                break;
                            }
                        }
                        Tok::Punct(b',') if d == 1 => {
                            if start < j {
                                use_tree(&toks[start..j], &path, out);
                            }
                            start = j + 1;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                return;
            }
            _ => i += 1,
        }
    }
    let name = path.last().cloned();
    push_use(out, &path, name);
}

fn push_use(out: &mut Vec<(Vec<String>, Option<String>)>, path: &[String], name: Option<String>) {
    let mut path = path.to_vec();
    // `a::b::{self}` imports `a::b` by its name.
    let mut name = name;
    if path.last().map(String::as_str) == Some("self") && path.len() > 1 {
        path.pop();
        if name.as_deref() == Some("self") {
            name = path.last().cloned();
        }
    }
    out.push((path, name));
}

/// Tarjan's strongly connected components, iteratively.
fn strongly_connected(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = adj.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut next = 0;
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut call = vec![(start, 0usize)];
        index[start] = next;
        low[start] = next;
        next += 1;
        stack.push(start);
        on_stack[start] = true;
        while let Some(&mut (v, ref mut k)) = call.last_mut() {
            if *k < adj[v].len() {
                let w = adj[v][*k];
                *k += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(parent, _)) = call.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    out.push(comp);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(src: &str) -> Vec<(Vec<String>, Option<String>)> {
        let (code, _) = blank(src.as_bytes());
        let toks = tokenize(&code);
        let mut out = Vec::new();
        use_tree(&toks, &[], &mut out);
        out
    }

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn use_trees_expand() {
        let got = paths("crate::a::{B, c::{self, D as E}, f::*}");
        assert_eq!(
            got,
            vec![
                (s(&["crate", "a", "B"]), Some("B".into())),
                (s(&["crate", "a", "c"]), Some("c".into())),
                (s(&["crate", "a", "c", "D"]), Some("E".into())),
                (s(&["crate", "a", "f"]), None),
            ]
        );
    }

    #[test]
    fn comments_and_strings_are_blanked() {
        let src = "a // use crate::x;\nb \"crate::y\" '\"' 'c /* z */ d";
        let (code, comment) = blank(src.as_bytes());
        let code = String::from_utf8(code).unwrap();
        assert!(!code.contains("crate"));
        assert!(code.contains("'c"), "a lifetime stays: {code}");
        assert!(code.contains(" d"));
        assert!(comment[2]);
        assert!(!comment[0]);
    }

    #[test]
    fn strongly_connected_finds_loops() {
        let adj = vec![vec![1], vec![2], vec![0], vec![0]];
        let mut sccs = strongly_connected(&adj);
        sccs.iter_mut().for_each(|c| c.sort());
        assert!(sccs.contains(&vec![0, 1, 2]));
        assert!(sccs.contains(&vec![3]));
    }

    /// A crate in a temporary folder: its files by relative path.
    fn krate(files: &[(&str, &str)]) -> (PathBuf, Crate) {
        let dir = std::env::temp_dir().join(format!("weft-xtask-cycles-{}-{}", std::process::id(), files.len()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, body) in files {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, body).unwrap();
        }
        let k = Crate::read(&dir.join("lib.rs")).unwrap();
        (dir, k)
    }

    #[test]
    fn loops_follow_reexports_and_skip_commented_imports() {
        let (dir, k) = krate(&[
            ("lib.rs", "mod a;\nmod b;\npub mod c;\npub use c::Thing;\n"),
            ("a.rs", "use crate::Thing;\npub struct A;\n"),
            (
                "c/mod.rs",
                "mod inner;\npub use inner::Thing;\n#[cfg(test)]\nmod tests { use super::*; }\n",
            ),
            (
                "c/inner.rs",
                "// Import loop kept on purpose: test.\nuse crate::b::B;\npub struct Thing;\n",
            ),
            ("b.rs", "pub struct B;\nfn f() { let _ = crate::c::inner::Thing; }\n"),
        ]);
        // c/inner.rs -> b.rs (commented) and b.rs -> c/inner.rs: one loop,
        // fully explained.
        assert!(k.loops(false).is_empty(), "{:?}", k.loops(false));
        let all = k.loops(true);
        assert_eq!(all.len(), 1);
        let mut names: Vec<_> = all[0]
            .iter()
            .map(|&f| k.files[f].path.strip_prefix(&dir).unwrap().display().to_string())
            .collect();
        names.sort();
        assert_eq!(names, ["b.rs", "c/inner.rs"]);
        // a.rs names Thing through two re-exports: the edge goes to inner.rs.
        let a = k.files.iter().position(|f| f.path.ends_with("a.rs")).unwrap();
        let inner = k.files.iter().position(|f| f.path.ends_with("inner.rs")).unwrap();
        assert!(k.edges.iter().any(|e| e.from == a && e.to == inner));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn test_modules_are_left_out_and_module_imports_explain_their_paths() {
        let (dir, k) = krate(&[
            ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
            (
                "a.rs",
                "pub struct A;\n#[cfg(all(test, feature = \"x\"))]\nmod tests { use crate::b::B; }\n",
            ),
            ("b.rs", "pub struct B(crate::a::A);\nfn f() { crate::c::g(); }\n"),
            (
                "c.rs",
                "// Import loop kept on purpose: test.\nuse crate::b;\npub fn g() {}\nfn h() { b::B; }\n",
            ),
        ]);
        // a.rs -> b.rs only from its tests; c.rs -> b.rs through `b::`,
        // explained at `use crate::b`.
        assert!(k.loops(false).is_empty(), "{:?}", k.loops(false));
        assert_eq!(k.loops(true).len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn uncommented_loops_fail() {
        let (dir, k) = krate(&[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a.rs", "use super::b::B;\npub struct A;\n"),
            ("b.rs", "pub struct B(crate::a::A);\n"),
        ]);
        assert_eq!(k.loops(false).len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn path_attributes_name_module_files() {
        let dir = std::env::temp_dir().join(format!("weft-xtask-cycles-path-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, body) in [
            (
                "src/lib.rs",
                "#[allow(dead_code)]\n#[path = \"../shared/common.rs\"]\nmod common;\nmod b;\n",
            ),
            ("shared/common.rs", "use crate::b::B;\npub struct C;\n"),
            ("src/b.rs", "use crate::common::C;\npub struct B;\n"),
        ] {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, body).unwrap();
        }
        let k = Crate::read(&dir.join("src/lib.rs")).unwrap();
        // The file the attribute names is read, and its loop with b.rs seen.
        let loops = k.loops(false);
        assert_eq!(loops.len(), 1, "{loops:?}");
        let mut names: Vec<_> = loops[0]
            .iter()
            .map(|&f| k.files[f].path.strip_prefix(&dir).unwrap().display().to_string())
            .collect();
        names.sort();
        assert_eq!(names, ["src/../shared/common.rs", "src/b.rs"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
