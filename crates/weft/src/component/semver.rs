//! Semver-compatible names of imports and exports
//! (`wasi:cli/environment@0.2.3` and `@0.2.12`), as Wasmtime matches
//! them: the same major version, and for `0.x` the same minor.

/// The index in `names` of the name that `name` matches by semver
/// compatibility (the same base, a compatible version, the highest such
/// version first), for lookups of exports by a name with another patch
/// release than the component's (`wasi:cli/run@0.2.12` finds
/// `wasi:cli/run@0.2.3`). Exact matches are the caller's to try first.
pub(crate) fn semver_match<'a>(name: &str, names: impl Iterator<Item = &'a str>) -> Option<usize> {
    let (base, version) = split_version(name)?;
    let key = version.compatibility_key()?;
    let mut best: Option<(Version, usize)> = None;
    for (i, n) in names.enumerate() {
        let Some((b, v)) = split_version(n) else {
            continue;
        };
        if b == base && v.compatibility_key() == Some(key) && best.as_ref().is_none_or(|(bv, _)| v > *bv) {
            best = Some((v, i));
        }
    }
    best.map(|(_, i)| i)
}

/// A semver version `major.minor.patch` (with a pre-release or build
/// part, which makes it match only itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Version {
    pub(crate) major: u64,
    pub(crate) minor: u64,
    pub(crate) patch: u64,
    /// Whether it has a pre-release or build part.
    pub(crate) extra: bool,
}

impl Version {
    /// Versions with the same key are compatible: the major version, and
    /// for `0.x` the minor too. `0.0.x` and pre-releases have none.
    pub(crate) fn compatibility_key(&self) -> Option<(u64, u64)> {
        if self.extra {
            return None;
        }
        match (self.major, self.minor) {
            (0, 0) => None,
            (0, minor) => Some((0, minor)),
            (major, _) => Some((major, 0)),
        }
    }
}

/// Splits `name@1.2.3` into `name` and its version; `None` when the name
/// has no `@` or what follows is not a semver version.
pub(crate) fn split_version(name: &str) -> Option<(&str, Version)> {
    let (base, version) = name.rsplit_once('@')?;
    let (core, extra) = match version.find(['-', '+']) {
        Some(i) => (&version[..i], true),
        None => (version, false),
    };
    let mut parts = core.split('.');
    let mut num = || -> Option<u64> {
        let p = parts.next()?;
        if p.is_empty() || (p.len() > 1 && p.starts_with('0')) || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        p.parse().ok()
    };
    let v = Version {
        major: num()?,
        minor: num()?,
        patch: num()?,
        extra,
    };
    if parts.next().is_some() {
        return None;
    }
    Some((base, v))
}
